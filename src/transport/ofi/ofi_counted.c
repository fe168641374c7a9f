/* transport/ofi/ofi_counted.c -- the counted RMA endpoint.
 *
 * An NBI Put small enough to inject, and an NBI Get, need no completion of
 * their own: gex_NBI_Wait/Test only ask whether all of a thread's are done.
 * On the main endpoint each still carries a context and costs a completion
 * entry (ofi_rma.c says why the main endpoint's counters cannot be
 * trusted: the provider counts its own internal reads and writes there).
 * This second endpoint sends no messages, so its completion counters count
 * exactly the writes and reads posted on it: injected writes and fi_read
 * with no context, and the counters say how many have completed.
 *
 * Who uses it: one thread, the one that started the transport (it sets
 * gexi_tls.net_counted), and only outside access regions.  Each operation
 * it posts is also counted in that thread's NBI tracker (pending[kind]),
 * so core/nbi.c sees it in flight; the owner takes completed ones off the
 * tracker when it tests (gexi_ofi_counted_reap).  Other threads, and
 * operations inside access regions, use the main endpoint as before.
 *
 * It targets the peers' main endpoints (the same fi_addr_t: it shares the
 * address vector) and is bound to the main completion queue without
 * asking for completions of its operations: polling that queue progresses
 * it, and failed operations are reported there (with no context: the
 * error names no peer).  The only entries it puts there are those of its
 * drain receives, where a provider keeps a stranger's messages (below).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi.h"

/* A stranger may send messages to the endpoint's address too.  'net'
 * refuses what finds no receive (back-pressure, a few MiB kept), so there
 * the endpoint posts none.  tcp;ofi_rxm and udp;ofi_rxd keep every
 * message that finds no receive (a 1 GiB flood grew a rank by 4 GiB and
 * 1.3 GiB: tests/sec_attack.sh flood), so there the endpoint also takes
 * messages, into many small drain receives whose every message is dropped
 * and reported (ofi_am.c), as the main endpoint drops a stranger's.  It
 * opens by default only on 'net': over tcp;ofi_rxm an 8-byte Put and its
 * completion took no less time on it than on the main endpoint; on
 * udp;ofi_rxd, providers not tried, and shm (where a second endpoint is a
 * second /dev/shm object the exit path does not know to remove) only with
 * GEX_OFI_COUNTED_RMA=1. */
static int counted_by_default(const char *prov) { return strcmp(prov, "net") == 0; }
static int needs_drain(const char *prov) {
  return strstr(prov, "ofi_rxm") != NULL || strstr(prov, "ofi_rxd") != NULL;
}
/* Drain receives: many small ones, so that a poll gives back as many as a
 * flood brings (what finds none the provider keeps); a message longer than
 * one is truncated, an error completion dropped the same way. */
#define OFI_DRAIN_RX 256
#define OFI_DRAIN_BYTES 256

static void drain_post(struct gexi_ofi *o) {
  o->rma_rx = calloc(OFI_DRAIN_RX, sizeof *o->rma_rx);
  void *mem = NULL; /* one block, cut into the receives (kept to the end) */
  if (!o->rma_rx || posix_memalign(&mem, 64, (size_t)OFI_DRAIN_RX * OFI_DRAIN_BYTES))
    gexi_fatal("out of memory");
  for (int i = 0; i < OFI_DRAIN_RX; i++) {
    struct ofi_rxbuf *rx = &o->rma_rx[i];
    rx->mem = (char *)mem + (size_t)i * OFI_DRAIN_BYTES;
    rx->len = OFI_DRAIN_BYTES;
    rx->ep = o->rma_ep;
    rx->drain = 1;
    gexi_ofi_rx_post(rx);
  }
}

static void counted_close(struct gexi_ofi *o) {
  if (o->rma_ep) fi_close(&o->rma_ep->fid);
  for (int k = 0; k < 2; k++)
    if (o->rma_cntr[k]) fi_close(&o->rma_cntr[k]->fid);
  o->rma_ep = NULL;
  o->rma_cntr[0] = o->rma_cntr[1] = NULL;
}

void gexi_ofi_counted_open(void) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  int want = gexi_ctx.env.ofi_counted_rma;
  if (want < 0) want = counted_by_default(o->prov_name);
  /* Contexts shared by every operation (nbi_shared) mean the provider keeps
   * nothing in them and needs no local registration: a context-free read
   * into any buffer is allowed. */
  if (!want || !o->nbi_shared) return;
  struct fi_cntr_attr attr = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
  const char *what = "fi_cntr_open";
  int rc = 0;
  for (int k = 0; k < 2 && !rc; k++) rc = fi_cntr_open(o->domain, &attr, &o->rma_cntr[k], NULL);
  /* fi_read takes no flags: the endpoint's own say that an operation
   * completes once delivered, as the main endpoint's do per call (and
   * gexi_ofi_counted_write gives them per call too). */
  struct fi_info *fi = o->fi.dupinfo(o->info);
  if (!fi) gexi_fatal("out of memory");
  fi->tx_attr->op_flags = o->write_flags;
  /* It initiates RMA and sends nothing; it receives only into its drain
   * receives, where the provider would otherwise keep a stranger's
   * messages. */
  const int drain = needs_drain(o->prov_name);
  fi->caps = FI_RMA | FI_READ | FI_WRITE | (drain ? FI_MSG | FI_RECV : 0);
  fi->tx_attr->caps = FI_RMA | FI_READ | FI_WRITE;
  fi->rx_attr->caps = drain ? FI_MSG | FI_RECV : 0;
  if (!rc) (what = "fi_endpoint", rc = fi_endpoint(o->domain, fi, &o->rma_ep, NULL));
  o->fi.freeinfo(fi);
  if (!rc) (what = "fi_ep_bind(av)", rc = fi_ep_bind(o->rma_ep, &o->av->fid, 0));
  /* Bound for receives too, though none is ever posted: tcp;ofi_rxm and
   * net refuse to enable an endpoint without a receive CQ. */
  if (!rc)
    (what = "fi_ep_bind(cq)",
     rc = fi_ep_bind(o->rma_ep, &o->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
  if (!rc) (what = "fi_ep_bind(cntr)", rc = fi_ep_bind(o->rma_ep, &o->rma_cntr[0]->fid, FI_WRITE));
  if (!rc) rc = fi_ep_bind(o->rma_ep, &o->rma_cntr[1]->fid, FI_READ);
  if (!rc) (what = "fi_enable", rc = fi_enable(o->rma_ep));
  if (rc) {
    /* Not fatal: the main endpoint does everything without it. */
    if (gexi_ctx.env.ofi_counted_rma > 0 && gexi_ctx.rank == 0)
      fprintf(stderr, "libgex: GEX_OFI_COUNTED_RMA=1: no counted endpoint on %s (%s: %s)\n",
              o->prov_name, what, gexi_ofi_strerror(rc));
    counted_close(o);
    return;
  }
  o->rma_wmsg = (struct fi_msg_rma){.msg_iov = &o->rma_wiov, .iov_count = 1,
                                    .rma_iov = &o->rma_wrma, .rma_iov_count = 1};
  o->rma_wflags = FI_INJECT | o->write_flags;
  if (drain) drain_post(o);
  gexi_tls.net_counted = o->rma_owner = gexi_ofi_thread_tracker();
}

/* Inside an access region the owner's NBI operations join the region's
 * tracker, on the main endpoint: the fast paths see no counted endpoint
 * until the region ends (gexi_ofi_region_event gives it back). */
void gexi_ofi_region_begin(void) { gexi_tls.net_counted = NULL; }

void gexi_ofi_counted_reap(void) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  struct gexi_net_nbi *t = o->rma_owner;
  for (int k = 0; k < 2; k++) {
    if (o->rma_posted[k] == o->rma_seen[k]) continue;
    uint64_t done = fi_cntr_read(o->rma_cntr[k]);
    if (GEXI_UNLIKELY(fi_cntr_readerr(o->rma_cntr[k]) != 0)) {
      gexi_ofi_poll(GEXI_POLL_ALL); /* the completion queue's error entry names the cause */
      gexi_fatal_peer(GEX_RANK_INVALID,
                      "network (libfabric %s): an NBI %s failed (a peer is unreachable)",
                      o->prov_name, k == OFI_NBI_PUT ? "put" : "get");
    }
    if (done == o->rma_seen[k]) continue;
    /* done <= rma_posted: each of these was counted in the tracker. */
    atomic_fetch_sub_explicit(&t->pending[k], done - o->rma_seen[k], memory_order_release);
    o->rma_seen[k] = done;
  }
}

/* The provider refused an operation for now (-FI_EAGAIN): make progress
 * and post it again. */
void gexi_ofi_counted_retry(ssize_t rc, int is_write) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  const struct ofi_counted_op x = o->rma_last; /* a poll below may post another */
  uint64_t key = o->peers[x.peer].key;
  for (;;) {
    if (rc != -FI_EAGAIN) gexi_ofi_fail(is_write ? "fi_writemsg" : "fi_read", rc);
    gexi_ofi_progress_stalled(GEXI_POLL_ALL);
    rc = is_write ? gexi_ofi_counted_write(o, x.local, x.nbytes, x.peer, x.raddr, key)
                  : fi_read(o->rma_ep, x.local, x.nbytes, NULL, x.peer, x.raddr, key, NULL);
    if (rc == 0) return;
  }
}

/* Operations posted on the counted endpoint by this process (a test hook:
 * GEX_TEST_COUNTED in tests/t_nbi_counted.c). */
uint64_t gexi_ofi_counted_ops(void) {
  struct gexi_ofi *o = __atomic_load_n(&gexi_ctx.ofi, __ATOMIC_ACQUIRE);
  return o ? o->rma_posted[OFI_NBI_PUT] + o->rma_posted[OFI_NBI_GET] : 0;
}

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
 * asking for completions: polling that queue progresses it, and failed
 * operations are reported there (with no context: the error names no
 * peer).
 */
#include <stdio.h>
#include <string.h>

#include "transport/ofi/ofi.h"

/* The endpoint posts no receives, so whatever a stranger sends to its
 * address is the provider's to keep or refuse.  It opens by default only
 * where the provider was seen to refuse such a flood (back-pressure, a few
 * MiB kept): 'net'.  tcp;ofi_rxm and udp;ofi_rxd keep every message (a
 * 1 GiB flood grew a rank by 4 GiB and 1.3 GiB: tests/sec_attack.sh
 * flood), so there, as on providers not tried (and on shm, where a second
 * endpoint is a second /dev/shm object the exit path does not know to
 * remove), only GEX_OFI_COUNTED_RMA=1 opens it. */
static int counted_by_default(const char *prov) { return strcmp(prov, "net") == 0; }

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
  /* It initiates RMA and nothing else: no messages in (a stranger's would
   * find no receive) or out. */
  fi->caps = FI_RMA | FI_READ | FI_WRITE;
  fi->tx_attr->caps = FI_RMA | FI_READ | FI_WRITE;
  fi->rx_attr->caps = 0;
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

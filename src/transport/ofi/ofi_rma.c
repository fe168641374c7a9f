/* transport/ofi/ofi_rma.c -- Put and Get to off-node peers.
 *
 * Completion tracking by form:
 *   NBI       an operation context that counts down the initiating thread's
 *             tracker (or its open access region's) when the completion is
 *             polled; gexi_ofi_nbi_test reads the tracker;
 *   NB        a heap ofi_op that is the client's event;
 *   Blocking  an ofi_op on the caller's stack, waited on before return.
 * Sources smaller than the provider's inject size are copied by the
 * provider (FI_INJECT): reusable at once.  Larger sources of an operation
 * whose local completion is GEX_EVENT_NOW go through a bounce buffer when
 * they fit one, else the call waits for the operation.
 *
 * Why not completion counters for NBI: the counters bound to the endpoint
 * also count reads and writes that providers issue internally (rendezvous
 * transfers of large messages are RMA reads), so "counter >= operations
 * posted" can hold before our own operations are done.  That was observed
 * with tcp;ofi_rxm, udp;ofi_rxd and shm (a Get issued after gex_NBI_Wait
 * read stale data while other threads sent Medium AMs).  So the main
 * endpoint has no counters; every operation on it reports through the
 * completion queue.  A second endpoint that sends no messages has exact
 * counters: the initializing thread's small NBI Puts and its NBI Gets go
 * there (ofi_counted.c).
 */
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi.h"


struct ofi_op *gexi_ofi_op_new(int kind) {
  struct ofi_op *op = calloc(1, sizeof *op);
  if (!op) gexi_fatal("out of memory");
  op->ev_kind = GEXI_EV_NET;
  op->kind = kind;
  return op;
}

__attribute__((noinline)) static struct gexi_net_nbi *nbi_tracker_new(struct gexi_net_nbi **slot) {
  struct gexi_net_nbi *t = calloc(1, sizeof *t);
  if (!t) gexi_fatal("out of memory");
  for (int k = 0; k < 3; k++)
    t->shared[k] = (struct ofi_op){.ev_kind = GEXI_EV_NET, .kind = OFI_OP_NBI_SHARED, .nbi = t,
                                   .nbi_kind = k, .peer = GEX_RANK_INVALID};
  if (slot == &gexi_tls.net_nbi) gexi_tls.net_nbi_pending = t->pending;
  return *slot = t;
}

/* The tracker NBI operations of this thread join now. */
static inline struct gexi_net_nbi *nbi_tracker(void) {
  gexi_tls.nbi_maybe = 1; /* an operation is about to join it (core/nbi.c) */
  struct gexi_net_nbi **slot = gexi_tls.in_access_region ? &gexi_tls.net_region : &gexi_tls.net_nbi;
  return GEXI_LIKELY(*slot != NULL) ? *slot : nbi_tracker_new(slot);
}

/* A context for one NBI operation of this thread. */
struct ofi_op *gexi_ofi_nbi_op(int kind) {
  struct ofi_op *op = gexi_ofi_op_new(OFI_OP_NBI);
  op->nbi = nbi_tracker();
  op->nbi_kind = kind;
  atomic_fetch_add_explicit(&op->nbi->pending[kind], 1, memory_order_relaxed);
  return op;
}

/* The same for an operation that needs nothing released at completion:
 * the tracker's shared context where the provider allows it. */
static inline struct ofi_op *nbi_op_plain(int kind) {
  if (!gexi_ctx.ofi->nbi_shared) return gexi_ofi_nbi_op(kind);
  struct gexi_net_nbi *t = nbi_tracker();
  atomic_fetch_add_explicit(&t->pending[kind], 1, memory_order_relaxed);
  return &t->shared[kind];
}

void gexi_ofi_wait_op(struct ofi_op *op, int what) {
  while (!atomic_load_explicit(&op->done, memory_order_acquire)) {
    if (gexi_poll(what))
      gexi_busy();
    else
      gexi_idle();
  }
}

static void check_segment(const char *fn, gex_Rank_t jobrank) {
  if (GEXI_UNLIKELY(!gexi_ctx.ofi->peers[jobrank].key && !gexi_ctx.peers[jobrank].seg_size))
    gexi_fatal("%s: rank %u has no attached segment", fn, (unsigned)jobrank);
}

static inline struct ofi_remote seg_remote(gex_Rank_t j, const void *addr) {
  return gexi_ofi_remote(j, 0, addr);
}

/* Post one write; op may be NULL (counted only). */
static void post_write_at(gex_Rank_t j, struct ofi_remote r, const void *src, size_t nbytes,
                          uint64_t flags, struct ofi_op *op, int what) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  struct fid_mr *tmp = NULL;
  void *desc = (flags & FI_INJECT) ? NULL : gexi_ofi_local_desc(src, nbytes, FI_WRITE, &tmp);
  if (tmp) op->tmp_mr = tmp; /* FI_MR_LOCAL: callers pass an op whenever a registration may be made */
  if (op && op->kind != OFI_OP_NBI_SHARED) op->peer = j;
  struct iovec iov = {(void *)src, nbytes};
  struct fi_rma_iov riov = {r.raddr, nbytes, r.key};
  struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = j,
                           .rma_iov = &riov, .rma_iov_count = 1,
                           .context = op ? &op->fctx : NULL};
  OFI_RETRY(fi_writemsg(o->ep, &msg, flags), what, "fi_writemsg");
}

static void post_read_at(gex_Rank_t j, void *dest, struct ofi_remote r, size_t nbytes,
                         uint64_t flags, struct ofi_op *op, int what) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  struct fid_mr *tmp = NULL;
  void *desc = gexi_ofi_local_desc(dest, nbytes, FI_READ, &tmp);
  if (tmp) op->tmp_mr = tmp;
  if (op && op->kind != OFI_OP_NBI_SHARED) op->peer = j;
  struct iovec iov = {dest, nbytes};
  struct fi_rma_iov riov = {r.raddr, nbytes, r.key};
  struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = j,
                           .rma_iov = &riov, .rma_iov_count = 1,
                           .context = op ? &op->fctx : NULL};
  OFI_RETRY(fi_readmsg(o->ep, &msg, flags), what, "fi_readmsg");
}

/* Without delivery-complete writes, a read issued after them (reads are
 * ordered after writes to the same peer: FI_ORDER_RAW) completes only once
 * they have landed. */
static void flush_peer(gex_Rank_t j, struct ofi_remote r, int what) {
  char scratch;
  struct ofi_op op = {.ev_kind = GEXI_EV_NET, .kind = OFI_OP_WAIT};
  post_read_at(j, &scratch, r, 1, FI_COMPLETION, &op, what);
  gexi_ofi_wait_op(&op, what);
}

void gexi_ofi_write_sync(gex_Rank_t j, struct ofi_remote r, const void *src, size_t nbytes,
                         int what) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  struct ofi_op op = {.ev_kind = GEXI_EV_NET, .kind = OFI_OP_WAIT};
  uint64_t fl = o->write_flags | FI_COMPLETION | (nbytes <= o->inject_size ? FI_INJECT : 0);
  post_write_at(j, r, src, nbytes, fl, &op, what);
  gexi_ofi_wait_op(&op, what);
  if (o->flush_with_read) flush_peer(j, r, what);
}

/* The NBI fast path (shared context, no registration, no bounce): count the
 * operation in this thread's tracker and post it; the general path handles
 * the rare -FI_EAGAIN. */
static inline void post_nbi_plain(gex_Rank_t j, int is_write, void *local, struct ofi_remote r,
                                  size_t nbytes, uint64_t flags) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  int kind = is_write ? OFI_NBI_PUT : OFI_NBI_GET;
  struct gexi_net_nbi *t = nbi_tracker();
  atomic_fetch_add_explicit(&t->pending[kind], 1, memory_order_relaxed);
  struct ofi_op *op = &t->shared[kind];
  struct iovec iov = {local, nbytes};
  struct fi_rma_iov riov = {r.raddr, nbytes, r.key};
  struct fi_msg_rma msg = {.msg_iov = &iov, .iov_count = 1, .addr = j, .rma_iov = &riov,
                           .rma_iov_count = 1, .context = &op->fctx};
  ssize_t rc = is_write ? fi_writemsg(o->ep, &msg, flags) : fi_readmsg(o->ep, &msg, flags);
  if (GEXI_LIKELY(rc == 0)) return;
  if (rc != -FI_EAGAIN) gexi_ofi_fail(is_write ? "fi_writemsg" : "fi_readmsg", rc);
  OFI_RETRY(is_write ? fi_writemsg(o->ep, &msg, flags) : fi_readmsg(o->ep, &msg, flags),
            GEXI_POLL_ALL, is_write ? "fi_writemsg" : "fi_readmsg");
}

/* An NBI Put of at most inject_size bytes, or an NBI Get, on the counted
 * endpoint (ofi_counted.c): counted in the tracker, no context, no
 * completion entry.  gexi_tls.net_counted is set only in the endpoint's
 * owner, and cleared while it has an access region open. */
static inline int counted_to(gex_Rank_t j) {
  return gexi_tls.net_counted != NULL &&
         gexi_ctx.ofi->peers[j].key != 0; /* (else the main path reports a missing segment) */
}

/* The operation is written down (rma_last) before the provider call, so
 * that nothing has to stay in registers across it: a refusal is posted
 * again from there. */
static inline void post_counted(struct gexi_net_nbi *t, gex_Rank_t j, int is_write, void *local,
                                uint64_t raddr, size_t nbytes, uint64_t key) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  atomic_fetch_add_explicit(&t->pending[is_write ? OFI_NBI_PUT : OFI_NBI_GET], 1,
                            memory_order_relaxed);
  o->rma_posted[is_write ? OFI_NBI_PUT : OFI_NBI_GET]++;
  o->rma_last = (struct ofi_counted_op){local, raddr, nbytes, j};
  ssize_t rc = is_write ? gexi_ofi_counted_write(o, local, nbytes, j, raddr, key)
                        : fi_read(o->rma_ep, local, nbytes, NULL, j, raddr, key, NULL);
  if (GEXI_UNLIKELY(rc != 0)) gexi_ofi_counted_retry(rc, is_write);
}

/* This thread's tracker, made if it has none yet. */
struct gexi_net_nbi *gexi_ofi_thread_tracker(void) {
  return gexi_tls.net_nbi ? gexi_tls.net_nbi : nbi_tracker_new(&gexi_tls.net_nbi);
}

static inline int lc_is_event(gex_Event_t *lc) {
  return lc != GEX_EVENT_NOW && lc != GEX_EVENT_DEFER && lc != GEX_EVENT_GROUP;
}

/* A small NBI Put to a peer on another node with a segment (nbi_key): the
 * source is copied by the provider (FI_INJECT).  0 when it does not fit
 * that path (gexi_ofi_put's general path then reports a missing segment). */
static inline int put_nbi_small(gex_Rank_t j, void *dest, const void *src, size_t nbytes) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  if (GEXI_UNLIKELY(nbytes - 1 >= o->inject_size || !o->nbi_shared || !o->peers[j].nbi_key))
    return 0;
  post_nbi_plain(j, 1, (void *)src, seg_remote(j, dest), nbytes,
                 o->write_flags | FI_INJECT | FI_COMPLETION);
  return 1;
}

/* The put_nbi entries (transport.h).  What they take: a Put of at most
 * inject_size bytes to a peer on another node that has a segment (nbi_key).
 * Everything else goes to gexi_rma_put_nbi_general, which comes back to
 * gexi_ofi_put for what is the network's. */

/* Not inlined into gexi_ofi_put_nbi: its registers would be saved on the
 * counted endpoint's path too. */
__attribute__((noinline)) int gexi_ofi_put_nbi_main(gex_TM_t tm, const void *src, size_t nbytes,
                                                    gex_Rank_t rank, void *dest,
                                                    uint64_t lc_flags) {
  const gex_Rank_t j = gexi_tm_jobrank(tm, rank);
  if (GEXI_LIKELY(put_nbi_small(j, dest, src, nbytes))) return 0;
  return gexi_rma_put_nbi_general(tm, src, nbytes, rank, dest, lc_flags);
}

/* The counted endpoint's Put, its arguments where the provider call takes
 * them. */
__attribute__((noinline)) static int put_counted(struct gexi_ofi *o, const void *src,
                                                 size_t nbytes, fi_addr_t j, uint64_t raddr,
                                                 uint64_t key) {
  post_counted(o->rma_owner, (gex_Rank_t)j, 1, (void *)src, raddr, nbytes, key);
  return 0;
}

/* The entry where the counted endpoint is open: its case is checked first,
 * and its Put made out of line, so that neither path saves registers for
 * the other.  (libgex's own instructions for an 8-byte NBI Put over net,
 * bench/opcount.sh: 80 when the RMA layer's entry called the transport, 56
 * with this one the teams' entry.) */
int gexi_ofi_put_nbi(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank, void *dest,
                     uint64_t lc_flags) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  if (GEXI_LIKELY(gexi_tls.net_counted != NULL)) {
    /* An operation is about to join the tracker (core/nbi.c); set early,
     * while the thread's address is at hand (should the Put go elsewhere,
     * it only costs the next gex_NBI_Wait a look at the counts). */
    gexi_tls.nbi_maybe = 1;
    if (GEXI_LIKELY(nbytes - 1 < o->inject_size)) {
      const gex_Rank_t j = gexi_tm_jobrank(tm, rank);
      const struct ofi_peer *p = &o->peers[j];
      if (GEXI_LIKELY(p->nbi_key != 0))
        return put_counted(o, src, nbytes, j, (uintptr_t)dest - p->addr_base, p->key);
    }
  }
  return gexi_ofi_put_nbi_main(tm, src, nbytes, rank, dest, lc_flags);
}

static gex_Event_t put_at(gex_Rank_t j, struct ofi_remote r, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt, int mode);

gex_Event_t gexi_ofi_put(gex_Rank_t j, void *dest, const void *src, size_t nbytes,
                         gex_Event_t *lc_opt, gex_Flags_t flags, int mode) {
  (void)flags;
  if (mode == GEXI_MODE_NBI && put_nbi_small(j, dest, src, nbytes)) return 0;
  if (nbytes == 0) {
    if (mode == GEXI_MODE_NB && lc_is_event(lc_opt)) *lc_opt = GEX_EVENT_INVALID;
    return mode == GEXI_MODE_NB ? GEX_EVENT_INVALID : 0;
  }
  check_segment("gex_RMA_Put", j);
  if (mode == GEXI_MODE_BLOCKING) {
    gexi_ofi_write_sync(j, seg_remote(j, dest), src, nbytes, GEXI_POLL_ALL);
    return 0;
  }
  return put_at(j, seg_remote(j, dest), src, nbytes, lc_opt, mode);
}

/* An NB or NBI Put of nbytes > 0 to r. */
static gex_Event_t put_at(gex_Rank_t j, struct ofi_remote r, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt, int mode) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  int inject = nbytes <= o->inject_size;
  uint64_t fl = o->write_flags | (inject ? FI_INJECT : 0);

  /* The source must be reusable on return: copy it, or wait. */
  int need_lc_now = !inject && lc_opt == GEX_EVENT_NOW;
  void *bounce = NULL;
  if (need_lc_now && nbytes <= o->wire_max) {
    bounce = gexi_ofi_pool_get(GEXI_POLL_ALL);
    memcpy(bounce, src, nbytes);
    src = bounce;
  }

  if (mode == GEXI_MODE_NBI) {
    if (need_lc_now && !bounce) {
      struct ofi_op op = {.ev_kind = GEXI_EV_NET, .kind = OFI_OP_WAIT};
      post_write_at(j, r, src, nbytes, fl | FI_COMPLETION, &op, GEXI_POLL_ALL);
      gexi_ofi_wait_op(&op, GEXI_POLL_ALL);
      return 0;
    }
    struct ofi_op *op;
    if (bounce) {
      op = gexi_ofi_nbi_op(OFI_NBI_PUT);
      op->bounce = bounce;
    } else {
      op = nbi_op_plain(OFI_NBI_PUT);
    }
    post_write_at(j, r, src, nbytes, fl | FI_COMPLETION, op, GEXI_POLL_ALL);
    return 0;
  }

  /* NB */
  struct ofi_op *op = gexi_ofi_op_new(OFI_OP_EVENT);
  op->bounce = bounce;
  if (lc_is_event(lc_opt)) {
    if (inject) {
      *lc_opt = GEX_EVENT_INVALID;
    } else {
      op->lc = gexi_ofi_op_new(OFI_OP_LEAF);
      *lc_opt = (gex_Event_t)(void *)op->lc;
    }
  }
  post_write_at(j, r, src, nbytes, fl | FI_COMPLETION, op, GEXI_POLL_ALL);
  if (need_lc_now && !bounce) gexi_ofi_wait_op(op, GEXI_POLL_ALL);
  return (gex_Event_t)(void *)op;
}

/* A Get of nbytes > 0 from r, in any mode. */
static gex_Event_t get_at(gex_Rank_t j, void *dest, struct ofi_remote r, size_t nbytes,
                          int mode) {
  switch (mode) {
    case GEXI_MODE_BLOCKING: {
      struct ofi_op op = {.ev_kind = GEXI_EV_NET, .kind = OFI_OP_WAIT};
      post_read_at(j, dest, r, nbytes, FI_COMPLETION, &op, GEXI_POLL_ALL);
      gexi_ofi_wait_op(&op, GEXI_POLL_ALL);
      return 0;
    }
    case GEXI_MODE_NBI:
      if (GEXI_LIKELY(gexi_ctx.ofi->nbi_shared))
        post_nbi_plain(j, 0, dest, r, nbytes, FI_COMPLETION);
      else
        post_read_at(j, dest, r, nbytes, FI_COMPLETION, gexi_ofi_nbi_op(OFI_NBI_GET),
                     GEXI_POLL_ALL);
      return 0;
    default: {
      struct ofi_op *op = gexi_ofi_op_new(OFI_OP_EVENT);
      post_read_at(j, dest, r, nbytes, FI_COMPLETION, op, GEXI_POLL_ALL);
      return (gex_Event_t)(void *)op;
    }
  }
}

__attribute__((noinline)) static gex_Event_t get_main(gex_Rank_t j, void *dest, void *src,
                                                     size_t nbytes, int mode) {
  if (nbytes == 0) return mode == GEXI_MODE_NB ? GEX_EVENT_INVALID : 0;
  check_segment("gex_RMA_Get", j);
  return get_at(j, dest, seg_remote(j, src), nbytes, mode);
}

/* An NBI Get on the counted endpoint first, on its own (as gexi_ofi_put_nbi). */
gex_Event_t gexi_ofi_get(gex_Rank_t j, void *dest, void *src, size_t nbytes, gex_Flags_t flags,
                         int mode) {
  (void)flags;
  if (GEXI_LIKELY(mode == GEXI_MODE_NBI && nbytes != 0 && counted_to(j))) {
    gexi_tls.nbi_maybe = 1; /* an operation is about to join the tracker (core/nbi.c) */
    post_counted(gexi_tls.net_counted, j, 0, dest, gexi_ofi_raddr(j, src), nbytes,
                 gexi_ctx.ofi->peers[j].key);
    return 0;
  }
  return get_main(j, dest, src, nbytes, mode);
}

/* get_exposed and put_exposed: up to BATCH transfers in flight, each
 * waited for with an op on the stack. */
enum { EXPOSED_BATCH = 8 };

/* wflags: flags a write adds to FI_COMPLETION (rma_exposed: delivery
 * completion where the provider has it). */
static void exposed_rma(gex_Rank_t j, size_t n, const struct gexi_exposed_rma *x, int is_write,
                        void (*then)(void *arg, size_t first, size_t k), void *arg,
                        uint64_t wflags) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  for (size_t first = 0; first < n; first += EXPOSED_BATCH) {
    struct ofi_op op[EXPOSED_BATCH];
    size_t k = n - first < EXPOSED_BATCH ? n - first : EXPOSED_BATCH;
    for (size_t i = 0; i < k; i++) {
      const struct gexi_exposed_rma *r = &x[first + i];
      op[i] = (struct ofi_op){.ev_kind = GEXI_EV_NET, .kind = OFI_OP_WAIT, .peer = j};
      struct fid_mr *tmp = NULL;
      void *desc = gexi_ofi_local_desc(r->local, r->nbytes, is_write ? FI_WRITE : FI_READ, &tmp);
      op[i].tmp_mr = tmp;
      struct iovec iov = {r->local, r->nbytes};
      struct fi_rma_iov riov = {r->raddr, r->nbytes, r->key};
      struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = j,
                               .rma_iov = &riov, .rma_iov_count = 1, .context = &op[i].fctx};
      if (is_write)
        OFI_RETRY(fi_writemsg(o->ep, &msg, FI_COMPLETION | wflags), GEXI_POLL_ALL, "fi_writemsg");
      else
        OFI_RETRY(fi_readmsg(o->ep, &msg, FI_COMPLETION), GEXI_POLL_ALL, "fi_readmsg");
    }
    if (then) then(arg, first, k); /* ordered after the writes: FI_ORDER_SAW */
    for (size_t i = 0; i < k; i++) gexi_ofi_wait_op(&op[i], GEXI_POLL_ALL);
  }
}

void gexi_ofi_get_exposed(gex_Rank_t j, size_t n, const struct gexi_exposed_rma *r) {
  exposed_rma(j, n, r, 0, NULL, NULL, 0);
}

void gexi_ofi_put_exposed(gex_Rank_t j, size_t n, const struct gexi_exposed_rma *w,
                          void (*then)(void *arg, size_t first, size_t k), void *arg) {
  exposed_rma(j, n, w, 1, then, arg, 0);
}

/* One transfer with a region j exposed, as the segment's are made: NB and
 * NBI in flight with the others (the source reusable on return -- injected,
 * bounced, or waited for -- unless an NBI Put's lc_opt defers it), blocking complete at the peer on return (a
 * write with delivery completion where the provider has it, else followed
 * by a read of its first byte: reads are ordered after writes). */
gex_Event_t gexi_ofi_rma_exposed(gex_Rank_t j, int is_write, const struct gexi_exposed_rma *x,
                                 int mode) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  const struct ofi_remote r = {x->raddr, x->key};
  if (x->nbytes == 0) return GEX_EVENT_INVALID;
  if (!is_write) return get_at(j, x->local, r, x->nbytes, mode);
  if (mode != GEXI_MODE_BLOCKING)
    return put_at(j, r, x->local, x->nbytes, x->lc_deferred ? GEX_EVENT_DEFER : GEX_EVENT_NOW,
                  mode);
  exposed_rma(j, 1, x, is_write, NULL, NULL, o->write_flags);
  if (o->flush_with_read) {
    char scratch;
    struct gexi_exposed_rma f = {&scratch, x->raddr, x->key, 1, 0};
    exposed_rma(j, 1, &f, 0, NULL, NULL, 0);
  }
  return GEX_EVENT_INVALID;
}

static int tracker_busy(struct gexi_net_nbi *t, gex_EC_t mask) {
  if (!t) return 0;
  if ((mask & (GEX_EC_PUT | GEX_EC_LC)) &&
      atomic_load_explicit(&t->pending[OFI_NBI_PUT], memory_order_acquire))
    return 1;
  if ((mask & GEX_EC_GET) &&
      atomic_load_explicit(&t->pending[OFI_NBI_GET], memory_order_acquire))
    return 1;
  return (mask & GEX_EC_RMW) && atomic_load_explicit(&t->pending[OFI_NBI_RMW], memory_order_acquire);
}

/* Is this thread the counted endpoint's owner (whether or not it has an
 * access region open)? */
static inline int counted_owner(void) {
  struct gexi_net_nbi *owner = gexi_ctx.ofi->rma_owner;
  return owner != NULL && owner == gexi_tls.net_nbi;
}

int gexi_ofi_nbi_test(gex_EC_t mask) {
  if (counted_owner()) gexi_ofi_counted_reap();
  int pending = tracker_busy(gexi_tls.net_nbi, mask);
  if (pending) gexi_ofi_poll(GEXI_POLL_ALL); /* a spin on NBI_Test must make progress */
  return pending;
}

/* The event of an access region that just ended: done when the region's
 * tracker has nothing in flight; it owns the tracker from now on. */
gex_Event_t gexi_ofi_region_event(void) {
  if (counted_owner()) gexi_tls.net_counted = gexi_ctx.ofi->rma_owner; /* (region_begin) */
  struct gexi_net_nbi *t = gexi_tls.net_region;
  gexi_tls.net_region = NULL;
  if (!t) return GEX_EVENT_INVALID;
  if (!tracker_busy(t, GEX_EC_ALL)) {
    free(t);
    return GEX_EVENT_INVALID;
  }
  struct ofi_op *op = gexi_ofi_op_new(OFI_OP_REGION);
  op->nbi = t;
  return (gex_Event_t)(void *)op;
}

/* A synced event: a root frees its leaf with itself; a leaf lives until its
 * root is synced. */
void gexi_ofi_event_free(gex_Event_t e) {
  struct ofi_op *op = (struct ofi_op *)(void *)e;
  if (op->kind == OFI_OP_LEAF) return;
  free(op->lc);
  free(op);
}

/* gex_Event_QueryLeaf: an NB Put's local-completion leaf (the same event
 * its lc_opt received), else none. */
gex_Event_t gexi_ofi_event_leaf(gex_Event_t root, gex_EC_t category) {
  struct ofi_op *op = (struct ofi_op *)(void *)root;
  if (op->kind != OFI_OP_EVENT || !(category & GEX_EC_LC) || !op->lc) return GEX_EVENT_INVALID;
  return (gex_Event_t)(void *)op->lc;
}

int gexi_ofi_event_done_ev(gex_Event_t e, int *moved) {
  struct ofi_op *op = (struct ofi_op *)(void *)e;
  *moved = 0;
  if (op->kind == OFI_OP_REGION) {
    if (!tracker_busy(op->nbi, GEX_EC_ALL)) goto region_done;
    *moved = gexi_ofi_poll(GEXI_POLL_ALL);
    if (tracker_busy(op->nbi, GEX_EC_ALL)) return 0;
  region_done:
    free(op->nbi); /* the caller frees the event itself */
    op->nbi = NULL;
    return 1;
  }
  if (atomic_load_explicit(&op->done, memory_order_acquire)) return 1;
  *moved = gexi_ofi_poll(GEXI_POLL_ALL);
  return atomic_load_explicit(&op->done, memory_order_acquire);
}

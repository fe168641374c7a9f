/* transport/ofi/ofi_rma.c -- Put and Get to off-node peers.
 *
 * Completion tracking by form:
 *   NBI       no CQ entry; the write/read counter counts it against
 *             writes_posted/reads_posted (gexi_ofi_nbi_test);
 *   NB        a heap ofi_op that is the client's event;
 *   Blocking  an ofi_op on the caller's stack, waited on before return.
 * Sources smaller than the provider's inject size are copied by the
 * provider (FI_INJECT): reusable at once.  Larger sources of an operation
 * whose local completion is GEX_EVENT_NOW go through a bounce buffer when
 * they fit one, else the call waits for the operation.
 *
 * The counters also count operations that have a CQ entry, so every write
 * and read posted increments the 'posted' totals.  NBI waits are therefore
 * conservative with several threads: a thread waits for every operation
 * posted before its check, its own included.
 */
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi.h"

void *gexi_ofi_pool_get(int what);
void gexi_ofi_pool_put(void *buf);

static struct ofi_op *op_new(int kind) {
  struct ofi_op *op = calloc(1, sizeof *op);
  if (!op) gexi_fatal("out of memory");
  op->ev_kind = GEXI_EV_NET;
  op->kind = kind;
  return op;
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

/* Post one write; op may be NULL (counted only). */
static void post_write(gex_Rank_t j, void *dest, const void *src, size_t nbytes,
                       uint64_t flags, struct ofi_op *op, int what) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  struct fid_mr *tmp = NULL;
  void *desc = (flags & FI_INJECT) ? NULL : gexi_ofi_local_desc(src, nbytes, FI_WRITE, &tmp);
  if (tmp) op->tmp_mr = tmp; /* FI_MR_LOCAL: callers pass an op whenever a registration may be made */
  struct iovec iov = {(void *)src, nbytes};
  struct fi_rma_iov riov = {gexi_ofi_raddr(j, dest), nbytes, o->peers[j].key};
  struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = j,
                           .rma_iov = &riov, .rma_iov_count = 1,
                           .context = op ? &op->fctx : NULL};
  atomic_fetch_add_explicit(&o->writes_posted, 1, memory_order_relaxed);
  OFI_RETRY(fi_writemsg(o->ep, &msg, flags), what, "fi_writemsg");
}

static void post_read(gex_Rank_t j, void *dest, const void *src, size_t nbytes, uint64_t flags,
                      struct ofi_op *op, int what) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  struct fid_mr *tmp = NULL;
  void *desc = gexi_ofi_local_desc(dest, nbytes, FI_READ, &tmp);
  if (tmp) op->tmp_mr = tmp;
  struct iovec iov = {dest, nbytes};
  struct fi_rma_iov riov = {gexi_ofi_raddr(j, src), nbytes, o->peers[j].key};
  struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = j,
                           .rma_iov = &riov, .rma_iov_count = 1,
                           .context = op ? &op->fctx : NULL};
  atomic_fetch_add_explicit(&o->reads_posted, 1, memory_order_relaxed);
  OFI_RETRY(fi_readmsg(o->ep, &msg, flags), what, "fi_readmsg");
}

/* Without delivery-complete writes, a read issued after them (reads are
 * ordered after writes to the same peer: FI_ORDER_RAW) completes only once
 * they have landed. */
static void flush_peer(gex_Rank_t j, void *addr, int what) {
  char scratch;
  struct ofi_op op = {.ev_kind = GEXI_EV_NET, .kind = OFI_OP_WAIT};
  post_read(j, &scratch, addr, 1, FI_COMPLETION, &op, what);
  gexi_ofi_wait_op(&op, what);
}

void gexi_ofi_write_sync(gex_Rank_t j, void *dest, const void *src, size_t nbytes, int what) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  struct ofi_op op = {.ev_kind = GEXI_EV_NET, .kind = OFI_OP_WAIT};
  uint64_t fl = o->write_flags | FI_COMPLETION | (nbytes <= o->inject_size ? FI_INJECT : 0);
  post_write(j, dest, src, nbytes, fl, &op, what);
  gexi_ofi_wait_op(&op, what);
  if (o->flush_with_read) flush_peer(j, dest, what);
}

static inline int lc_is_event(gex_Event_t *lc) {
  return lc != GEX_EVENT_NOW && lc != GEX_EVENT_DEFER && lc != GEX_EVENT_GROUP;
}

gex_Event_t gexi_ofi_put(gex_Rank_t j, void *dest, const void *src, size_t nbytes,
                         gex_Event_t *lc_opt, gex_Flags_t flags, int mode) {
  (void)flags;
  struct gexi_ofi *o = gexi_ctx.ofi;
  if (nbytes == 0) {
    if (mode == GEXI_MODE_NB && lc_is_event(lc_opt)) *lc_opt = GEX_EVENT_INVALID;
    return mode == GEXI_MODE_NB ? GEX_EVENT_INVALID : 0;
  }
  check_segment("gex_RMA_Put", j);
  int inject = nbytes <= o->inject_size;
  uint64_t fl = o->write_flags | (inject ? FI_INJECT : 0);

  if (mode == GEXI_MODE_BLOCKING) {
    gexi_ofi_write_sync(j, dest, src, nbytes, GEXI_POLL_ALL);
    return 0;
  }

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
      post_write(j, dest, src, nbytes, fl | FI_COMPLETION, &op, GEXI_POLL_ALL);
      gexi_ofi_wait_op(&op, GEXI_POLL_ALL);
      return 0;
    }
    if (bounce || (!inject && (o->mr_mode & FI_MR_LOCAL))) {
      /* Something to release at completion: an op nobody waits for. */
      struct ofi_op *op = op_new(OFI_OP_FREE);
      op->bounce = bounce;
      post_write(j, dest, src, nbytes, fl | FI_COMPLETION, op, GEXI_POLL_ALL);
    } else {
      post_write(j, dest, src, nbytes, fl, NULL, GEXI_POLL_ALL);
    }
    return 0;
  }

  /* NB */
  struct ofi_op *op = op_new(OFI_OP_EVENT);
  op->bounce = bounce;
  if (lc_is_event(lc_opt)) {
    if (inject) {
      *lc_opt = GEX_EVENT_INVALID;
    } else {
      op->lc = op_new(OFI_OP_EVENT);
      *lc_opt = (gex_Event_t)(void *)op->lc;
    }
  }
  post_write(j, dest, src, nbytes, fl | FI_COMPLETION, op, GEXI_POLL_ALL);
  if (need_lc_now && !bounce) gexi_ofi_wait_op(op, GEXI_POLL_ALL);
  return (gex_Event_t)(void *)op;
}

gex_Event_t gexi_ofi_get(gex_Rank_t j, void *dest, void *src, size_t nbytes, gex_Flags_t flags,
                         int mode) {
  (void)flags;
  struct gexi_ofi *o = gexi_ctx.ofi;
  if (nbytes == 0) return mode == GEXI_MODE_NB ? GEX_EVENT_INVALID : 0;
  check_segment("gex_RMA_Get", j);
  switch (mode) {
    case GEXI_MODE_BLOCKING: {
      struct ofi_op op = {.ev_kind = GEXI_EV_NET, .kind = OFI_OP_WAIT};
      post_read(j, dest, src, nbytes, FI_COMPLETION, &op, GEXI_POLL_ALL);
      gexi_ofi_wait_op(&op, GEXI_POLL_ALL);
      return 0;
    }
    case GEXI_MODE_NBI:
      if (o->mr_mode & FI_MR_LOCAL) {
        struct ofi_op *op = op_new(OFI_OP_FREE);
        post_read(j, dest, src, nbytes, FI_COMPLETION, op, GEXI_POLL_ALL);
      } else {
        post_read(j, dest, src, nbytes, 0, NULL, GEXI_POLL_ALL);
      }
      return 0;
    default: {
      struct ofi_op *op = op_new(OFI_OP_EVENT);
      post_read(j, dest, src, nbytes, FI_COMPLETION, op, GEXI_POLL_ALL);
      return (gex_Event_t)(void *)op;
    }
  }
}

/* Counter value, failing loudly on an operation that completed in error. */
static uint64_t cntr_value(struct fid_cntr *c, const char *what) {
  uint64_t err = fi_cntr_readerr(c);
  if (GEXI_UNLIKELY(err))
    gexi_fatal("network (libfabric %s): %llu implicit-event %s(s) failed (a peer died or is "
               "unreachable)",
               gexi_ctx.ofi->prov_name, (unsigned long long)err, what);
  return fi_cntr_read(c);
}

int gexi_ofi_nbi_test(gex_EC_t mask) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  int pending = 0;
  if (mask & (GEX_EC_PUT | GEX_EC_LC)) {
    uint64_t posted = atomic_load_explicit(&o->writes_posted, memory_order_relaxed);
    if (posted && cntr_value(o->wcntr, "put") < posted) pending = 1;
  }
  if (!pending && (mask & GEX_EC_GET)) {
    uint64_t posted = atomic_load_explicit(&o->reads_posted, memory_order_relaxed);
    if (posted && cntr_value(o->rcntr, "get") < posted) pending = 1;
  }
  if (pending) gexi_ofi_poll(GEXI_POLL_ALL); /* a spin on NBI_Test must make progress */
  return pending;
}

/* Have the counters caught up with these totals? */
static int counters_reached(uint64_t w, uint64_t r) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  return (!w || cntr_value(o->wcntr, "put") >= w) && (!r || cntr_value(o->rcntr, "get") >= r);
}

/* The event of an access region: the region's NBI operations were counted
 * like all others, so it completes once the counters reach the totals
 * posted when the region ended (conservative: later and other threads'
 * operations posted before that point are waited for too). */
gex_Event_t gexi_ofi_region_event(void) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  uint64_t w = atomic_load_explicit(&o->writes_posted, memory_order_relaxed);
  uint64_t r = atomic_load_explicit(&o->reads_posted, memory_order_relaxed);
  if (counters_reached(w, r)) return GEX_EVENT_INVALID;
  struct ofi_op *op = op_new(OFI_OP_REGION);
  op->w_target = w;
  op->r_target = r;
  return (gex_Event_t)(void *)op;
}

int gexi_ofi_event_done_ev(gex_Event_t e, int *moved) {
  struct ofi_op *op = (struct ofi_op *)(void *)e;
  *moved = 0;
  if (op->kind == OFI_OP_REGION) {
    if (counters_reached(op->w_target, op->r_target)) return 1;
    *moved = gexi_ofi_poll(GEXI_POLL_ALL);
    return counters_reached(op->w_target, op->r_target);
  }
  if (atomic_load_explicit(&op->done, memory_order_acquire)) return 1;
  *moved = gexi_ofi_poll(GEXI_POLL_ALL);
  return atomic_load_explicit(&op->done, memory_order_acquire);
}

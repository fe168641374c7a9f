/* atomic/ad_am.c -- remote atomics carried by Active Messages, and the
 * completion machinery shared with VIS packing (vis/vis.c).
 *
 * An atomic on a target served by GEXI_AD_IMPL_AM (see ad.h) is one Short
 * Request to the target (NBI ones are coalesced: atomic/ad_coalesce.c).  Its
 * handler applies the operation with the very CPU atomics the on-node path
 * uses (gexi_ad_cpu_apply, atomic/ad_ops.c), on the target's own memory, so AM-performed and CPU-performed operations of
 * one domain are atomic with respect to each other.  The handler Replies
 * with the fetched value (or just "done"); the reply handler stores the value
 * through the initiator's result pointer and then decrements the operation's
 * completion counter, which is the NB event's, the open access region's, or
 * the initiating thread's NBI counter.
 *
 * Memory ordering of GEX_FLAG_AD_ACQ / GEX_FLAG_AD_REL: the target applies
 * the atomic with the same C11 order as an on-node caller would.  The
 * message chain supplies the rest: everything the initiating thread did
 * before the call happens-before the Request's delivery (queue publish is a
 * release, the take an acquire), and the Reply's delivery and the counter's
 * release/acquire pair make everything that happened-before the target's
 * atomic visible to the thread that observes completion.  A network
 * transport must give its AM delivery the same message-passing guarantee.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "atomic/ad.h"
#include "atomic/ad_am.h"
#include "am/am_coalesce.h"
#include "rma/rma_device.h"

/* ---- the atomic over AMs -------------------------------------------------------- */
/* Request arguments (12):
 *   0,1   target address (in the target's address space)
 *   2     opcode
 *   3     data type | ORD_ACQ | ORD_REL
 *   4,5   operand1 bits     6,7  operand2 bits
 *   8,9   result pointer at the initiator (NULL: not a fetching operation)
 *   10,11 completion counter at the initiator
 * Replies: FETCHED (value lo/hi, result pointer, counter, data type) or DONE
 * (counter).  The pointers are only carried back, never dereferenced at the
 * target. */
#define ORD_ACQ (1u << 8)
#define ORD_REL (1u << 9)

static void ad_req(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
                   gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6,
                   gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10,
                   gex_AM_Arg_t a11) {
  const uint32_t d = (uint32_t)a3;
  gexi_am_sync_acquire();
  const gex_Flags_t ord =
      ((d & ORD_ACQ) ? GEX_FLAG_AD_ACQ : 0) | ((d & ORD_REL) ? GEX_FLAG_AD_REL : 0);
  const gex_DT_t dt = (gex_DT_t)(d & 0xFF);
  const uint64_t old = gexi_ad_cpu_apply(dt, gexi_am_ptr(a0, a1), (gex_OP_t)(uint32_t)a2,
                                         gexi_am_u64(a4, a5), gexi_am_u64(a6, a7), ord);
  if (a8 | a9)
    gex_AM_ReplyShort7(t, GEXI_AMIDX_AD_FETCHED, 0, GEXI_AM_LO(old), GEXI_AM_HI(old), a8, a9,
                       a10, a11, (gex_AM_Arg_t)dt);
  else
    gex_AM_ReplyShort2(t, GEXI_AMIDX_AD_DONE, 0, a10, a11);
}

static void ad_fetched(gex_Token_t t, gex_AM_Arg_t lo, gex_AM_Arg_t hi, gex_AM_Arg_t r0,
                       gex_AM_Arg_t r1, gex_AM_Arg_t c0, gex_AM_Arg_t c1, gex_AM_Arg_t dt) {
  (void)t;
  const uint64_t v = gexi_am_u64(lo, hi);
  void *res = gexi_am_ptr(r0, r1);
  gexi_am_sync_acquire();
  if ((gex_DT_t)dt & (GEX_DT_I64 | GEX_DT_U64 | GEX_DT_DBL)) {
    memcpy(res, &v, 8);
  } else {
    const uint32_t w = (uint32_t)v;
    memcpy(res, &w, 4);
  }
  /* Last touch of anything the initiator owns: after this the result is
   * published and the event may be freed. */
  gexi_am_counter_done(gexi_am_ptr(c0, c1), 1);
}

static void ad_done(gex_Token_t t, gex_AM_Arg_t c0, gex_AM_Arg_t c1) {
  (void)t;
  gexi_am_sync_acquire();
  gexi_am_counter_done(gexi_am_ptr(c0, c1), 1);
}

gex_Event_t gexi_ad_am_op(int mode, gex_AD_t ad, gex_DT_t dt, void *result_p, gex_Rank_t rank,
                          void *addr, gex_OP_t op, uint64_t operand1, uint64_t operand2,
                          gex_Flags_t flags) {
  const int cat = gexi_ad_op_category(op);
  if (mode == GEXI_MODE_NBI && gexi_co_now())
    return gexi_ad_co_op(ad->peers[rank].jobrank, cat, dt, result_p, addr, op, operand1,
                            operand2, flags);
  void *res = (op & GEXI_FETCHING_OPS) ? result_p : NULL;
  struct gexi_Event *ev = NULL;
  _Atomic uint32_t *c = gexi_am_counter(mode, cat, &ev, 1);
  const gex_AM_Arg_t d = (gex_AM_Arg_t)((uint32_t)dt | ((flags & GEX_FLAG_AD_ACQ) ? ORD_ACQ : 0) |
                                        ((flags & GEX_FLAG_AD_REL) ? ORD_REL : 0));
  int rc = gex_AM_RequestShort12(ad->tm, rank, GEXI_AMIDX_AD_REQ, flags & GEX_FLAG_IMMEDIATE,
                                 GEXI_AM_PTRARGS(addr), (gex_AM_Arg_t)op, d,
                                 GEXI_AM_LO(operand1), GEXI_AM_HI(operand1), GEXI_AM_LO(operand2),
                                 GEXI_AM_HI(operand2), GEXI_AM_PTRARGS(res), GEXI_AM_PTRARGS(c));
  if (rc) { /* GEX_FLAG_IMMEDIATE refusal: nothing was sent */
    gexi_am_counter_done(c, 1);
    free(ev);
    return GEX_EVENT_NO_OP;
  }
  return mode == GEXI_MODE_NBI ? GEX_EVENT_INVALID : ev;
}

/* ---- registration ------------------------------------------------------------------ */
void gexi_ad_am_init(void) {
  gex_AM_Entry_t e[GEXI_AMIDX_AD_LAST - GEXI_AMIDX_AD_REQ + 1];
  size_t n = 0;
  const gex_Flags_t sreq = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST,
                    srep = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY;
  e[n++] = (gex_AM_Entry_t){GEXI_AMIDX_AD_REQ, (gex_AM_Fn_t)ad_req, sreq, 12, NULL, "gexi_ad_req"};
  e[n++] = (gex_AM_Entry_t){GEXI_AMIDX_AD_FETCHED, (gex_AM_Fn_t)ad_fetched, srep, 7, NULL,
                            "gexi_ad_fetched"};
  e[n++] = (gex_AM_Entry_t){GEXI_AMIDX_AD_DONE, (gex_AM_Fn_t)ad_done, srep, 2, NULL,
                            "gexi_ad_done"};
  n += gexi_vis_am_entries(e + n);
  n += gexi_co_am_entries(e + n);
  n += gexi_rma_device_am_entries(e + n);
  gexi_ad_co_init();
  struct gexi_EP *ep = &gexi_ctx.ep;
  pthread_mutex_lock(&ep->reg_lock);
  for (size_t i = 0; i < n; i++) {
    if (e[i].gex_index < GEXI_AMIDX_AD_REQ || e[i].gex_index > GEXI_AMIDX_AD_LAST ||
        ep->handlers[e[i].gex_index].gex_fnptr)
      gexi_fatal("internal AM handler %s: index %u not free", e[i].gex_name,
                 (unsigned)e[i].gex_index);
    ep->handlers[e[i].gex_index] = e[i];
  }
  pthread_mutex_unlock(&ep->reg_lock);
}

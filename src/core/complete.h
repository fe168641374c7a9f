/* core/complete.h -- how operations carried by Active Messages complete
 * at their initiator (remote atomics, VIS packing, coalesced batches,
 * device-memory transfers, and the network transports' software RMA): a
 * counter the reply decrements -- a GEXI_EV_FLAG event's, the open access
 * region's, or the initiating thread's NBI counter of the operation's
 * category -- and the encoding of pointers and 64-bit values as AM
 * arguments.  (core/complete.c)
 */
#ifndef GEXI_CORE_COMPLETE_H
#define GEXI_CORE_COMPLETE_H

#include "core/context.h"
#include "core/event.h"

enum { GEXI_AM_NBI_PUT = 0, GEXI_AM_NBI_GET = 1, GEXI_AM_NBI_RMW = 2 };

/* A GEXI_EV_FLAG event with 'pending' replies due (malloc'd; freed by the
 * successful gex_Event_Test/Wait). */
struct gexi_Event *gexi_ev_flag_new(uint32_t pending);

/* The counter a reply decrements for one operation of the given mode:
 *   NB / blocking: the counter of '*evp' (a new FLAG event is made if
 *                  *evp is NULL; the caller owns it);
 *   NBI:           the open access region's event (made on first use) or
 *                  this thread's NBI counter of category 'cat'.
 * The counter is incremented by 'n' before it is returned.  Undo with
 * gexi_am_counter_undo if the send is refused (GEX_FLAG_IMMEDIATE). */
_Atomic uint32_t *gexi_am_counter(int mode, int cat, struct gexi_Event **evp, uint32_t n);
/* Release: publishes what the reply handler wrote before it. */
static inline void gexi_am_counter_done(_Atomic uint32_t *c, uint32_t n) {
  atomic_fetch_sub_explicit(c, n, memory_order_release);
}

/* ThreadSanitizer cannot follow synchronization that runs through another
 * process (an initiator's thread prepares an event, the target replies, a
 * different thread of the initiator runs the reply handler).  The real
 * ordering exists; to make it visible, initiators release this process-wide
 * counter after preparing what a handler will touch and before sending, and
 * every handler of this file and of vis.c acquires it before touching
 * anything (target-side VIS handlers also release it when done).  It lives
 * in the context (gexi_ctx.am_sync). */
static inline _Atomic uint64_t *gexi_am_sync(void) { return &gexi_ctx.am_sync; }
#if defined(__SANITIZE_THREAD__)
static inline void gexi_am_sync_release(void) {
  atomic_fetch_add_explicit(gexi_am_sync(), 1, memory_order_release);
}
static inline void gexi_am_sync_acquire(void) {
  (void)atomic_load_explicit(gexi_am_sync(), memory_order_acquire);
}
/* With a receive thread (core/rcv_thread.c), the program's memory is also
 * written by handlers on it -- a Put or a VIS scatter from another rank,
 * an atomic -- in the order that messages between processes give (an
 * acknowledgement, a barrier), which ThreadSanitizer cannot see: every
 * poll, and every collective found complete, stands for that order. */
static inline void gexi_am_sync_msg(void) {
  if (gexi_ctx.rcv) atomic_fetch_add_explicit(gexi_am_sync(), 1, memory_order_acq_rel);
}
#else /* only ThreadSanitizer needs to be shown the ordering */
static inline void gexi_am_sync_release(void) {}
static inline void gexi_am_sync_acquire(void) {}
static inline void gexi_am_sync_msg(void) {}
#endif

/* gexi_am_counter's NBI case outside an access region, inline for the
 * transports' fast paths: this thread's counter of category 'cat', raised
 * by n.  Relaxed: the send that follows orders the increment before the
 * reply's decrement. */
static inline _Atomic uint32_t *gexi_am_nbi_count(int cat, uint32_t n) {
  struct gexi_thread_state *t = &gexi_tls;
  atomic_fetch_add_explicit(&t->am_nbi.pending[cat], n, memory_order_relaxed);
  t->nbi_maybe = 1;
  gexi_am_sync_release();
  return &t->am_nbi.pending[cat];
}

/* Non-zero while an NBI operation of a category in 'mask' (outside access
 * regions) of this thread awaits its reply.  Inline: gex_NBI_Wait with
 * nothing outstanding is three loads and a test. */
static inline int gexi_am_nbi_pending(gex_EC_t mask) {
  _Atomic uint32_t *p = gexi_tls.am_nbi.pending;
  uint32_t put = atomic_load_explicit(&p[GEXI_AM_NBI_PUT], memory_order_acquire);
  uint32_t get = atomic_load_explicit(&p[GEXI_AM_NBI_GET], memory_order_acquire);
  uint32_t rmw = atomic_load_explicit(&p[GEXI_AM_NBI_RMW], memory_order_acquire);
  return ((mask & GEX_EC_PUT) && put) | ((mask & GEX_EC_GET) && get) |
         ((mask & GEX_EC_RMW) && rmw);
}

/* Pointers and 64-bit values as two AM arguments (low word first). */
#define GEXI_AM_LO(x) ((gex_AM_Arg_t)(uint32_t)(uint64_t)(x))
#define GEXI_AM_HI(x) ((gex_AM_Arg_t)(uint32_t)((uint64_t)(x) >> 32))
#define GEXI_AM_PTRARGS(p) GEXI_AM_LO((uintptr_t)(p)), GEXI_AM_HI((uintptr_t)(p))
static inline uint64_t gexi_am_u64(gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  return (uint64_t)(uint32_t)lo | (uint64_t)(uint32_t)hi << 32;
}
static inline void *gexi_am_ptr(gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  return (void *)(uintptr_t)gexi_am_u64(lo, hi);
}

#endif

/* atomic/ad_am.h -- operations carried by Active Messages: remote atomics
 * (atomic/ad_am.c) and VIS packing (vis/vis.c), and the completion machinery
 * they share (GEXI_EV_FLAG events, the per-thread NBI counters).
 *
 * Internal handler indices.  Client handlers live at GEX_AM_INDEX_BASE (128)
 * and above and are registered through gex_EP_RegisterHandlers, which
 * refuses anything lower; internal ones are written straight into the
 * endpoint's table by gexi_ad_am_init() at client init.
 *   1..15   reserved for the collectives (src/am/am_internal.h, once merged)
 *   16..31  reserved for atomics, VIS and coalescing (this enum)
 */
#ifndef GEXI_ATOMIC_AD_AM_H
#define GEXI_ATOMIC_AD_AM_H

#include "core/context.h"
#include "core/event.h"

/* indices 16..31 reserved for atomics, VIS packing and coalescing */
enum {
  GEXI_AMIDX_AD_REQ = 16,    /* Short Request: perform one atomic */
  GEXI_AMIDX_AD_FETCHED = 17,/* Short Reply: the fetched value */
  GEXI_AMIDX_AD_DONE = 18,   /* Short Reply: a non-fetching atomic is done */
  GEXI_AMIDX_VIS_PUT = 19,   /* Medium Request: scatter packed chunks */
  GEXI_AMIDX_VIS_PUT_ACK = 20, /* Short Reply: a packed Put landed */
  GEXI_AMIDX_VIS_GET = 21,   /* Medium Request: gather chunks */
  GEXI_AMIDX_VIS_GET_DATA = 22, /* Medium Reply: gathered chunks */
  GEXI_AMIDX_CO_BATCH = 23,  /* Medium Request: coalesced NBI operations (am/am_coalesce.c) */
  GEXI_AMIDX_CO_DONE = 24,   /* Medium Reply: their fetched values and counts */
  GEXI_AMIDX_MK_PUT = 25,    /* Medium Request: data for a device segment (rma/rma_device.c) */
  GEXI_AMIDX_MK_PUT_ACK = 26,/* Short Reply: it landed */
  GEXI_AMIDX_MK_GET = 27,    /* Short Request: data from a device segment */
  GEXI_AMIDX_MK_GET_DATA = 28, /* Medium Reply: the data */
  GEXI_AMIDX_AD_LAST = 31
};

/* NBI atomics as records of coalesced batches (atomic/ad_coalesce.c):
 * append one for the process with jobrank 'j' ('cat': GEXI_AM_NBI_*);
 * returns GEX_EVENT_INVALID, or GEX_EVENT_NO_OP for an IMMEDIATE refusal.
 * gexi_ad_co_init registers the record kind. */
gex_Event_t gexi_ad_co_op(gex_Rank_t j, int cat, gex_DT_t dt, void *result_p, void *addr,
                          gex_OP_t op, uint64_t operand1, uint64_t operand2, gex_Flags_t flags);
void gexi_ad_co_init(void);

/* Register the internal handlers of atomics, VIS and coalescing.  Called once from
 * gex_Client_Init, before the client can communicate.  No peer can send one
 * of these before this process has registered them: atomics need a domain
 * (gex_AD_Create is collective) and VIS needs the target's bound segment
 * (gex_Segment_Attach is collective), both after every rank's init. */
void gexi_ad_am_init(void);
/* The VIS part (vis/vis.c): fills 'e' (at most 8 entries), returns count. */
size_t gexi_vis_am_entries(gex_AM_Entry_t *e);

/* ---- completion ------------------------------------------------------------- */
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
 * in the endpoint's handler table (entry cdata), allocated at registration. */
static inline _Atomic uint64_t *gexi_am_sync(void) {
  return (_Atomic uint64_t *)(uintptr_t)gexi_ctx.ep.handlers[GEXI_AMIDX_AD_REQ].gex_cdata;
}
#if defined(__SANITIZE_THREAD__)
static inline void gexi_am_sync_release(void) {
  atomic_fetch_add_explicit(gexi_am_sync(), 1, memory_order_release);
}
static inline void gexi_am_sync_acquire(void) {
  (void)atomic_load_explicit(gexi_am_sync(), memory_order_acquire);
}
#else /* only ThreadSanitizer needs to be shown the ordering */
static inline void gexi_am_sync_release(void) {}
static inline void gexi_am_sync_acquire(void) {}
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

/* The NBI completion category of an opcode: SET puts, GET gets, the rest
 * are read-modify-writes. */
static inline int gexi_ad_op_category(gex_OP_t op) {
  return op == GEX_OP_SET ? GEXI_AM_NBI_PUT : op == GEX_OP_GET ? GEXI_AM_NBI_GET : GEXI_AM_NBI_RMW;
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

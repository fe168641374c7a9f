/* core/event.c -- explicit events (gex_Event_t).
 *
 * On one node every RMA and AM completes before its initiation call returns
 * and reports GEX_EVENT_INVALID; the events that exist are those of
 * operations that wait for other ranks (collectives, coll/coll.c).  An event object is
 * owned by the caller until a successful Test/Wait frees it.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/event.h"
#include "core/complete.h"
#include "core/net_ops.h"

/* Done?  Advances the collectives of this process.  A collective of the
 * shared-memory engine needs no AM, so it never polls for one; a
 * collective of the AM engine polls once (its progress depends on handlers
 * running here, and a Test loop that never polled could spin forever).
 * 'am' is fixed at initiation, so reading it unlocked is safe.  An event
 * completed by AM replies (GEXI_EV_FLAG) or by the network (GEXI_EV_NET)
 * polls once too.  *moved: whether anything advanced. */
static int event_done_moved(gex_Event_t e, int *moved) {
  switch (e->kind) {
    case GEXI_EV_COLL: {
      int done, polled = e->am ? gexi_poll(GEXI_POLL_ALL) : 0;
      *moved = gexi_coll_progress(e, &done) || polled;
      if (done) gexi_am_sync_msg(); /* (ThreadSanitizer only: core/complete.h) */
      return done;
    }
    case GEXI_EV_NET:
      return gexi_ctx.net->event_done(e, moved);
    case GEXI_EV_FLAG: return gexi_ev_flag_done(e, moved);
    default:
      gexi_fatal("gex_Event: %p is not a valid event", (void *)e);
  }
}
static int event_done(gex_Event_t e) {
  int moved;
  return event_done_moved(e, &moved);
}

struct gexi_Event *gexi_event_new(void) {
  struct gexi_Event *e = atomic_exchange_explicit(&gexi_ctx.spare_event, NULL, memory_order_acquire);
  if (e) {
    memset(e, 0, sizeof *e);
    return e;
  }
  e = calloc(1, sizeof *e);
  if (!e) gexi_fatal("out of memory");
  return e;
}

void gexi_event_release(struct gexi_Event *e) {
  struct gexi_Event *none = NULL;
  if (!atomic_compare_exchange_strong_explicit(&gexi_ctx.spare_event, &none, e, memory_order_release,
                                               memory_order_relaxed))
    free(e);
}

/* A synced event: released, except a transport's leaf event, which lives
 * until its root is synced (GASNet-EX lets a leaf be tested again until
 * then). */
static void event_free(gex_Event_t e) {
  if (e->kind == GEXI_EV_NET)
    gexi_ctx.net->event_free(e);
  else
    gexi_event_release(e);
}

static inline void check_event(const char *fn, gex_Event_t e) {
#if GEX_CHECKS
  if (e == GEX_EVENT_NO_OP) gexi_fatal("%s: GEX_EVENT_NO_OP is not an event to wait on", fn);
#else
  (void)fn;
  (void)e;
#endif
}

int(gex_Event_Test)(gex_Event_t event) { /* (the name in parentheses: gex_inline.h) */
  gexi_check_can_communicate("gex_Event_Test");
  if (event == GEX_EVENT_INVALID) return GASNET_OK;
  check_event("gex_Event_Test", event);
  if (!event_done(event)) return GASNET_ERR_NOT_READY;
  event_free(event);
  return GASNET_OK;
}

void gex_Event_Wait(gex_Event_t event) {
  gexi_check_can_communicate("gex_Event_Wait");
  if (event == GEX_EVENT_INVALID) return;
  check_event("gex_Event_Wait", event);
  int moved;
  while (!event_done_moved(event, &moved)) {
    if (gexi_poll(GEXI_POLL_ALL) || moved)
      gexi_busy();
    else
      gexi_idle();
  }
  gexi_busy(); /* the wait completed: the next one starts spinning afresh */
  event_free(event);
  gexi_settle();
}

/* The arguments of the array calls: the array (NULL only when empty) and
 * the flags (reserved: zero). */
static inline void check_array(const char *fn, const gex_Event_t *pevent, size_t n,
                               gex_Flags_t flags) {
#if GEX_CHECKS
  if (GEXI_UNLIKELY(!pevent && n)) gexi_fatal("%s: pevent is NULL (numevents %zu)", fn, n);
#else
  (void)fn;
  (void)pevent;
  (void)n;
#endif
  GEXI_CHECK_FLAGS(fn, flags, 0);
}

/* Test every event; completed ones are freed and set to INVALID.  Returns
 * the number of events that completed in this pass and, via *live, how many
 * were (before this pass) not INVALID. */
static size_t test_array(gex_Event_t *pevent, size_t n, size_t *live) {
  size_t done = 0, l = 0;
  for (size_t i = 0; i < n; i++) {
    gex_Event_t e = pevent[i];
    if (e == GEX_EVENT_INVALID) continue;
    check_event("gex_Event_*Some/*All", e);
    l++;
    if (event_done(e)) {
      pevent[i] = GEX_EVENT_INVALID;
      done++;
      /* A root may share the array with its leaf (allowed in any order):
       * the leaf is released with the root, so it is complete too. */
      gex_Event_t leaf = e->kind == GEXI_EV_NET ? gexi_ctx.net->event_leaf(e, GEX_EC_LC)
                                                : GEX_EVENT_INVALID;
      for (size_t j = 0; leaf != GEX_EVENT_INVALID && j < n; j++) {
        if (pevent[j] != leaf) continue;
        pevent[j] = GEX_EVENT_INVALID;
        if (j < i) done++; /* already counted as live (and not complete then) */
      }
      event_free(e);
    }
  }
  *live = l;
  return done;
}

int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  gexi_check_can_communicate("gex_Event_TestSome");
  check_array("gex_Event_TestSome", pevent, numevents, flags);
  size_t live, done = test_array(pevent, numevents, &live);
  return (live == 0 || done > 0) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  gexi_check_can_communicate("gex_Event_TestAll");
  check_array("gex_Event_TestAll", pevent, numevents, flags);
  size_t live, done = test_array(pevent, numevents, &live);
  return done == live ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  gexi_check_can_communicate("gex_Event_WaitSome");
  check_array("gex_Event_WaitSome", pevent, numevents, flags);
  for (;;) {
    size_t live, done = test_array(pevent, numevents, &live);
    if (live == 0 || done > 0) break;
    if (gexi_poll(GEXI_POLL_ALL))
      gexi_busy();
    else
      gexi_idle();
  }
  gexi_settle();
}

void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  gexi_check_can_communicate("gex_Event_WaitAll");
  check_array("gex_Event_WaitAll", pevent, numevents, flags);
  for (;;) {
    size_t live, done = test_array(pevent, numevents, &live);
    if (done == live) break;
    if (gexi_poll(GEXI_POLL_ALL))
      gexi_busy();
    else
      gexi_idle();
  }
  gexi_settle();
}

gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category) {
  /* The only leaf that can outlive its initiation is the local completion of
   * a network NB Put (the event its lc_opt received); every other leaf is
   * complete when its call returns. */
  if (root == GEX_EVENT_INVALID || root == GEX_EVENT_NO_OP || root->kind != GEXI_EV_NET)
    return GEX_EVENT_INVALID;
  return gexi_ctx.net->event_leaf(root, event_category);
}

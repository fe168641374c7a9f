/* core/event.h -- the object behind a gex_Event_t.
 *
 * Every event of this build is a collective on a team (coll/coll.c): a
 * state machine of rounds, each a staging step and two team barriers.  It
 * advances when any event of the process is tested or waited on (and at
 * initiation); advancing never runs AM handlers.
 */
#ifndef GEXI_CORE_EVENT_H
#define GEXI_CORE_EVENT_H

#include "core/context.h"
#include <gasnet_coll.h>

enum { GEXI_EV_COLL = 1, GEXI_EV_FLAG = 2 };
enum { GEXI_COLL_BARRIER = 1, GEXI_COLL_BCAST, GEXI_COLL_REDUCE };

/* Complete when 'pending' is 0 and every event of 'sub' is complete.  Reply
 * handlers decrement 'pending' (release) and never touch the event after
 * that: its owner frees it as soon as it reads 0 (acquire). */
struct gexi_ev_flag {
  _Atomic uint32_t pending; /* replies still due */
  gex_Event_t *sub;         /* malloc'd array of further events, or NULL */
  size_t nsub;
};

struct gexi_Event {
  int kind;              /* GEXI_EV_COLL, GEXI_EV_FLAG */
  int ckind;             /* GEXI_COLL_* */
  int done;              /* set under the collective lock */
  int phase;             /* 0: stage+arrive, 1: wait 1st, 2: wait 2nd */
  struct gexi_team *t;
  struct gexi_Event *next; /* team queue */
  uint64_t target;       /* arrival count awaited */
  size_t round, nrounds; /* chunk rounds */
  /* arguments */
  gex_Rank_t root;       /* GEX_RANK_INVALID: reduce to all */
  void *dst;
  const void *src;
  size_t nbytes;         /* broadcast */
  gex_DT_t dt;
  gex_OP_t op;
  size_t dt_sz, dt_cnt, per_round; /* reduce: elements per round */
  gex_Coll_ReduceFn_t user_op;
  const void *user_cdata;
  /* GEXI_EV_FLAG: an operation completed by Active Message replies (remote
   * atomics and VIS over AMs, atomic/ad_am.c). */
  struct gexi_ev_flag flag;
};

/* atomic/ad_am.c: whether a GEXI_EV_FLAG event is complete; polls (all
 * queues) once if it is not, setting *moved if that ran any handler. */
int gexi_ev_flag_done(struct gexi_Event *e, int *moved);

/* Advance every collective of this process; returns non-zero if anything
 * moved.  Sets *done to whether 'e' is complete (e may be NULL). */
int gexi_coll_progress(struct gexi_Event *e, int *done);

/* Non-zero when team t has no collective queued. */
int gexi_coll_idle_team(struct gexi_team *t);

#endif

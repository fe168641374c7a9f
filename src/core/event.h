/* core/event.h -- the object behind a gex_Event_t.
 *
 * Events are either network operations in flight (transport/ofi, kind
 * GEXI_EV_NET, completed by the transport's poll) or collectives on a team
 * (coll/coll.c): a
 * state machine of rounds, each a staging step and two team barriers.  It
 * advances when any event of the process is tested or waited on (and at
 * initiation); advancing never runs AM handlers.
 */
#ifndef GEXI_CORE_EVENT_H
#define GEXI_CORE_EVENT_H

#include "core/context.h"
#include <gasnet_coll.h>

enum { GEXI_EV_COLL = 1 };
/* Network operations (transport/ofi) are events too; their kind value: */
#define GEXI_EV_NET 0x4e4554
enum { GEXI_COLL_BARRIER = 1, GEXI_COLL_BCAST, GEXI_COLL_REDUCE };

struct gexi_Event {
  int kind;              /* GEXI_EV_COLL */
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
};

/* Advance every collective of this process; returns non-zero if anything
 * moved.  Sets *done to whether 'e' is complete (e may be NULL). */
int gexi_coll_progress(struct gexi_Event *e, int *done);

/* Non-zero when team t has no collective queued. */
int gexi_coll_idle_team(struct gexi_team *t);

#endif

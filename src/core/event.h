/* core/event.h -- the object behind a gex_Event_t.
 *
 * Events are network operations in flight (transport/ofi, kind GEXI_EV_NET,
 * completed by the transport's poll) or collectives on a team (coll/coll.c).  A
 * team runs its collectives on one of two engines, fixed when the team is
 * made (coll/coll_am.h: gexi_coll_team_am):
 *  - shared memory (all members on this node): rounds of a staging step and
 *    two team barriers on the control regions; advancing never runs AM
 *    handlers;
 *  - hierarchical (members on several nodes, coll/coll_hier.c): shared
 *    memory inside a node, the AM engine among one leader per node;
 *  - Active Messages (any other team, or GEX_COLL_FORCE_AM=1): handlers
 *    only buffer what arrives; the state machine (coll/coll_am.c) consumes
 *    the buffers and sends the next messages.  Progress needs polls, so
 *    Test* on such an event polls once.
 * Either advances when any event of the process is tested or waited on
 * (and at initiation).
 */
#ifndef GEXI_CORE_EVENT_H
#define GEXI_CORE_EVENT_H

#include "core/context.h"
#include <gasnet_coll.h>

enum { GEXI_EV_COLL = 1, GEXI_EV_FLAG = 2 };
/* Network operations (transport/ofi) are events too; their kind value: */
#define GEXI_EV_NET 0x4e4554
/* GEXI_COLL_GATHER is internal (team construction over the AM engine). */
enum { GEXI_COLL_BARRIER = 1, GEXI_COLL_BCAST, GEXI_COLL_REDUCE, GEXI_COLL_GATHER };

struct gexi_cam_msg;

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
  int phase;             /* shm: 0 stage+arrive, 1 wait 1st, 2 wait 2nd; AM barrier: 1 = sent */
  bool direct;           /* shm barrier that arrived at initiation and is not queued:
                          * done when arrived_all(t, target); read-only after start */
  struct gexi_team *t;
  struct gexi_Event *next; /* team queue */
  uint64_t target;       /* arrival count awaited */
  size_t round, nrounds; /* chunk rounds */
  /* shm broadcast of at most GEXI_COLL_SMALL bytes: its slot in the root's
   * chunk (coll/coll.c). */
  bool small;
  uint32_t slot;
  /* arguments */
  gex_Rank_t root;       /* GEX_RANK_INVALID: reduce to all */
  void *dst;
  const void *src;
  size_t nbytes;         /* broadcast; gather: bytes per record */
  gex_DT_t dt;
  gex_OP_t op;
  size_t dt_sz, dt_cnt, per_round; /* reduce: elements per round */
  gex_Coll_ReduceFn_t user_op;
  const void *user_cdata;
  /* AM engine only (coll/coll_am.c; guarded by the collective lock). */
  bool am;               /* runs on the AM engine or the hierarchical path (Test polls) */
  bool am_started;       /* tree and buffers set up */
  uint32_t seq;          /* team's collective sequence number */
  gex_Rank_t troot;      /* team rank at the root of the tree */
  gex_Rank_t vrank;      /* my rank relative to troot */
  gex_Rank_t vparent;    /* parent's relative rank (GEX_RANK_INVALID at the root) */
  gex_Rank_t nkids;      /* children (relative ranks, increasing) */
  gex_Rank_t *kids;      /* malloc'd at start, freed at completion */
  gex_Rank_t *kid_span;  /* subtree size of each child */
  size_t rb, nfrag;      /* reduce: bytes per round, fragments per round */
  size_t up_round;       /* up phase (reduce/gather): rounds finished */
  gex_Rank_t up_kid;     /* next child to combine in the current round */
  size_t up_frag;        /* next fragment of that child */
  size_t down_frag;      /* down phase: next fragment to receive */
  size_t down_total;     /* fragments of the down phase (0: none here) */
  struct gexi_cam_msg *acc; /* reduce: accumulator of the current round (owned) */
  struct gexi_cam_msg *asmb; /* reduce, elements > one fragment: operand being assembled */
  bool flat_ok;          /* flat AM fallback on a hierarchical team (USER_NC order) */
  size_t chunk;          /* fragment size of this collective */
  struct gexi_cam_rdv *rdv; /* fragments move by rendezvous (RMA reads); owned */
  /* ReduceToAll by recursive doubling (coll/coll_am_xchg.c). */
  bool xchg;             /* runs as an exchange, not on the tree */
  bool xsent;            /* my vector of the current step is sent */
  bool rtr_sent;         /* rendezvous by push: my landing buffer (of this step) announced */
  uint32_t xstep;        /* current step: 0 fold-in, 1..xlog doubling, xlog+1 fold-out */
  uint32_t xlog;         /* log2 of the largest power of two <= team size */
  uint32_t xsteps;       /* steps between fold-in and fold-out: xlog, or 2 xlog by halving */
  unsigned char *xw;     /* halving: the working vector (dst or xwbuf's) */
  struct gexi_cam_msg *xwbuf; /* halving: engine buffer for xw when dst cannot be it */
  size_t xfrags;         /* fragments of one whole vector */
  size_t xgot;           /* the partner's fragments received in this step */
  size_t xacks;          /* rendezvous: the partner's ACKs of this step taken */
  const void *xcur;      /* my partial result: src, an engine buffer (acc) or dst */
  /* Hierarchical path only (coll/coll_hier.c; guarded by the collective lock). */
  bool hier;             /* runs on the hierarchical path */
  struct gexi_Event *sub; /* leaders' AM-engine collective in progress (owned) */
  int hsub;              /* step within the current chunk round */
  unsigned char *tmp;    /* leader's node-local reduction result (malloc'd) */
  /* GEXI_EV_FLAG: an operation completed by Active Message replies (remote
   * atomics and VIS over AMs, atomic/ad_am.c). */
  struct gexi_ev_flag flag;
};

/* A zeroed event object (the spare one if there is one, else calloc'd;
 * fatal when out of memory), and its release after a successful
 * Test/Wait (kept as the spare, else freed).  Thread-safe. */
struct gexi_Event *gexi_event_new(void);
void gexi_event_release(struct gexi_Event *e);

/* atomic/ad_am.c: whether a GEXI_EV_FLAG event is complete; polls (all
 * queues) once if it is not, setting *moved if that ran any handler. */
int gexi_ev_flag_done(struct gexi_Event *e, int *moved);

/* Advance every collective of this process; returns non-zero if anything
 * moved.  Sets *done to whether 'e' is complete (e may be NULL). */
int gexi_coll_progress(struct gexi_Event *e, int *done);

/* Non-zero when team t has no collective queued. */
int gexi_coll_idle_team(struct gexi_team *t);

#endif

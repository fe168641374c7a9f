/* legacy/coll_barrier.c -- GASNet-1 style named barriers over a team
 * (gasnet_coll_barrier_notify / _wait / _try, gasnet_coll_barrier).
 *
 * One gex_Coll_ReduceToAllNB (minimum of three 64-bit words) per barrier
 * decides the match: word 0 is the id of a named barrier (all ones when
 * anonymous), word 1 its complement (so the minimum gives the largest id),
 * word 2 is 0 when the caller passed GASNET_BARRIERFLAG_MISMATCH.  The
 * barrier matches unless a rank forced a mismatch or the named ids differ
 * (smallest != largest); anonymous callers match anything.
 */
#include <stdlib.h>

#include "legacy/coll_legacy.h"

/* One team's barrier state, kept for the life of the process. */
struct gexi_lcoll_barrier {
  struct gexi_lcoll_barrier *next;
  gex_TM_t tm;
  int pending; /* notified, not yet waited */
  int id, flags;
  uint64_t in[3], out[3]; /* the reduction's source and destination */
  gex_Event_t ev;
};

static struct gexi_lcoll_barrier *state_of(gex_TM_t tm, const char *call) {
  if (tm == GEX_TM_INVALID) gexi_lcoll_fatal("%s: the team is GEX_TM_INVALID", call);
  pthread_mutex_lock(&gexi_lcoll.barrier_lock);
  struct gexi_lcoll_barrier *b = gexi_lcoll.barriers;
  while (b && b->tm != tm) b = b->next;
  if (!b) {
    b = calloc(1, sizeof *b);
    if (!b) gexi_lcoll_fatal("%s: out of memory", call);
    b->tm = tm;
    b->next = gexi_lcoll.barriers;
    gexi_lcoll.barriers = b;
  }
  pthread_mutex_unlock(&gexi_lcoll.barrier_lock);
  return b;
}

void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags) {
  struct gexi_lcoll_barrier *b = state_of(team, "gasnet_coll_barrier_notify");
  if (b->pending)
    gexi_lcoll_fatal("gasnet_coll_barrier_notify: called twice without gasnet_coll_barrier_wait");
  int anonymous = (flags & GASNET_BARRIERFLAG_ANONYMOUS) != 0;
  b->id = id;
  b->flags = flags;
  b->in[0] = anonymous ? UINT64_MAX : (uint64_t)(uint32_t)id;
  b->in[1] = anonymous ? UINT64_MAX : ~(uint64_t)(uint32_t)id;
  b->in[2] = (flags & GASNET_BARRIERFLAG_MISMATCH) ? 0 : 1;
  b->pending = 1;
  b->ev = gex_Coll_ReduceToAllNB(team, b->out, b->in, GEX_DT_U64, 8, 3, GEX_OP_MIN, NULL, NULL,
                                 0);
}

/* The barrier is complete: its verdict, and the check that wait repeats
 * notify's arguments. */
static int verdict(struct gexi_lcoll_barrier *b, int id, int flags) {
  b->pending = 0;
  int mismatch = b->out[2] == 0 || (b->out[0] != UINT64_MAX && b->out[0] != ~b->out[1]);
  int named = !(flags & GASNET_BARRIERFLAG_ANONYMOUS);
  if (named != !(b->flags & GASNET_BARRIERFLAG_ANONYMOUS) || (named && id != b->id) ||
      (flags & GASNET_BARRIERFLAG_MISMATCH))
    mismatch = 1;
  return mismatch ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK;
}

int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags) {
  struct gexi_lcoll_barrier *b = state_of(team, "gasnet_coll_barrier_wait");
  if (!b->pending)
    gexi_lcoll_fatal("gasnet_coll_barrier_wait: no gasnet_coll_barrier_notify before it");
  gex_Event_Wait(b->ev);
  return verdict(b, id, flags);
}

int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags) {
  struct gexi_lcoll_barrier *b = state_of(team, "gasnet_coll_barrier_try");
  if (!b->pending)
    gexi_lcoll_fatal("gasnet_coll_barrier_try: no gasnet_coll_barrier_notify before it");
  gasnet_AMPoll();
  if (gex_Event_Test(b->ev) != GASNET_OK) return GASNET_ERR_NOT_READY;
  return verdict(b, id, flags);
}

int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags) {
  gasnet_coll_barrier_notify(team, id, flags);
  return gasnet_coll_barrier_wait(team, id, flags);
}

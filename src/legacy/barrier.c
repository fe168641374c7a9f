/* legacy/barrier.c -- the GASNet-1 split-phase barrier (named and anonymous)
 * over one GASNet-EX reduction on the primordial team.
 *
 * Matching rules (GASNet-1): a barrier matches when every rank that gave a
 * name (flags without GASNET_BARRIERFLAG_ANONYMOUS) gave the same one;
 * anonymous ranks match any name.  It mismatches on every rank when two
 * names differ or any rank passed GASNET_BARRIERFLAG_MISMATCH.  In addition
 * a rank's wait/try mismatches when it names an id that is not the
 * barrier's: the id of its own named notify, or, after an anonymous notify,
 * the name some other rank gave (a named wait after an anonymous notify
 * matches when no rank named the barrier).
 *
 * notify reduces three uint64_t per rank with MAX: on a team whose members
 * are all on this node by the barrier with words of core/hooks.h (the cost
 * of gex_Coll_BarrierNB), else by gex_Coll_ReduceToAllNB(GEX_OP_MAX):
 *   [0] named ? id + 1 : 0          -> max over ranks: 1 + largest name (0: none)
 *   [1] named ? 2^32 - id : 0       -> 2^32 - smallest name
 *   [2] MISMATCH flag given ? 1 : 0 -> some rank forced a mismatch
 * (ids as uint32_t).  The names agree iff largest == smallest.  Because the
 * barrier is a collective on the primordial team, it must not overlap a
 * GASNet-EX collective on that team (the specification forbids it).
 */
#include "core/hooks.h"
#include "legacy/legacy.h"

#define NAMED(flags) (!((flags) & GASNET_BARRIERFLAG_ANONYMOUS))

void gasnet_barrier_notify(int id, int flags) {
  gex_TM_t tm = gexl_team("gasnet_barrier_notify");
  if (gexl_ctx.bar.phase != 0)
    gexl_fatal("gasnet_barrier_notify", "called twice without gasnet_barrier_wait/try between");
  uint32_t uid = (uint32_t)id;
  gexl_ctx.bar.id = id;
  gexl_ctx.bar.flags = flags;
  gexl_ctx.bar.mine[0] = NAMED(flags) ? (uint64_t)uid + 1 : 0;
  gexl_ctx.bar.mine[1] = NAMED(flags) ? ((uint64_t)1 << 32) - uid : 0;
  gexl_ctx.bar.mine[2] = (flags & GASNET_BARRIERFLAG_MISMATCH) ? 1 : 0;
  gexl_ctx.bar.words =
      gexi_coll_barrier_max3(tm, gexl_ctx.bar.mine, &gexl_ctx.bar.event, &gexl_ctx.bar.seq);
  if (!gexl_ctx.bar.words)
    gexl_ctx.bar.event =
        gex_Coll_ReduceToAllNB(tm, gexl_ctx.bar.all, gexl_ctx.bar.mine, GEX_DT_U64,
                               sizeof(uint64_t), 3, GEX_OP_MAX, NULL, NULL, 0);
  gexl_ctx.bar.phase = 1;
}

/* The reduction is complete: decide this rank's result and record what
 * gasnet_barrier_result reports. */
static int finish(int wait_id, int wait_flags) {
  if (gexl_ctx.bar.words)
    gexi_coll_barrier_max3_result(gexl_ctx.tm, gexl_ctx.bar.seq, gexl_ctx.bar.all);
  const uint64_t *all = gexl_ctx.bar.all;
  int any_named = all[0] != 0;
  uint32_t largest = (uint32_t)(all[0] - 1), smallest = (uint32_t)(((uint64_t)1 << 32) - all[1]);
  int mismatch = all[2] != 0 || (any_named && largest != smallest);
  if (!mismatch && NAMED(wait_flags)) {
    uint32_t want = (uint32_t)wait_id;
    if (NAMED(gexl_ctx.bar.flags))
      mismatch = want != (uint32_t)gexl_ctx.bar.id; /* wait names another id than notify */
    else if (any_named)
      mismatch = want != largest; /* anonymous notify, named wait: must match the name */
  }
  gexl_ctx.bar.phase = 0;
  gexl_ctx.bar.event = GEX_EVENT_INVALID;
  if (mismatch) {
    gexl_ctx.bar.result_named = -1;
    gexl_ctx.bar.result_id = gexl_ctx.bar.id;
    return GASNET_ERR_BARRIER_MISMATCH;
  }
  gexl_ctx.bar.result_named = any_named;
  gexl_ctx.bar.result_id = any_named ? (int)largest : 0;
  return GASNET_OK;
}

int gasnet_barrier_wait(int id, int flags) {
  if (gexl_ctx.bar.phase != 1)
    gexl_fatal("gasnet_barrier_wait", "called without a pending gasnet_barrier_notify");
  gex_Event_Wait(gexl_ctx.bar.event);
  return finish(id, flags);
}

int gasnet_barrier_try(int id, int flags) {
  if (gexl_ctx.bar.phase != 1)
    gexl_fatal("gasnet_barrier_try", "called without a pending gasnet_barrier_notify");
  /* Poll first: a loop over try then runs handlers and yields when idle,
   * as GASNET_BLOCKUNTIL does. */
  (void)gasnet_AMPoll();
  if (gex_Event_Test(gexl_ctx.bar.event) != 0) return GASNET_ERR_NOT_READY;
  return finish(id, flags);
}

int gasnet_barrier(int id, int flags) {
  gasnet_barrier_notify(id, flags);
  return gasnet_barrier_wait(id, flags);
}

/* 0 and the name when the last completed barrier was named; non-zero
 * (GASNET_BARRIERFLAG_ANONYMOUS) when every rank was anonymous;
 * GASNET_BARRIERFLAG_MISMATCH, with this rank's notify id, after a mismatch. */
int gasnet_barrier_result(int *id) {
  if (gexl_ctx.bar.result_named < 0) {
    if (id) *id = gexl_ctx.bar.result_id;
    return GASNET_BARRIERFLAG_MISMATCH;
  }
  if (!gexl_ctx.bar.result_named) return GASNET_BARRIERFLAG_ANONYMOUS;
  if (id) *id = gexl_ctx.bar.result_id;
  return 0;
}

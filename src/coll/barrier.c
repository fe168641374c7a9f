/* coll/barrier.c -- gex_Coll_BarrierNB on the primordial team.
 *
 * Each process counts the barriers it has entered in its control region
 * (release store).  The k-th barrier is complete once every process of the
 * node has entered at least k barriers (acquire loads): arrivals are
 * per-process, so several barriers may be in flight at once without one
 * process's early arrivals completing another's barrier.
 */
#include "core/event.h"
#include "transport/shm/shm.h"

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags) {
  (void)flags;
  gexi_check_can_communicate("gex_Coll_BarrierNB");
#if GEX_CHECKS
  if (tm == GEX_TM_INVALID || gexi_tm(tm)->is_pair)
    gexi_fatal("gex_Coll_BarrierNB: a TM-pair (or GEX_TM_INVALID) is not a team");
#endif
  struct gexi_team *t = gexi_tm(tm);
  uint64_t k = atomic_fetch_add_explicit(&t->barriers_started, 1, memory_order_relaxed) + 1;
  gexi_shm_barrier_arrive();
  return gexi_event_new_barrier(k);
}

/* transport/shm/shm_waiting.c -- the neighbourhood's count of waiting
 * threads, for the wait policy (core/progress.c): whether the job's
 * threads that want a core on this host outnumber its cores. */
#include <sched.h>

#include "transport/shm/shm.h"

unsigned gexi_shm_node_waiting(unsigned mine, uint64_t now, uint64_t fresh_ns) {
  struct gexi_shm_node *s = gexi_ctx.shm;
  if (!s || !s->ctrl || !s->ctrl[s->me]) return mine;
  struct gexi_shm_ctrl *c = s->ctrl[s->me];
  atomic_store_explicit(&c->waiting, mine, memory_order_relaxed);
  atomic_store_explicit(&c->cpu, sched_getcpu(), memory_order_relaxed);
  atomic_store_explicit(&c->waiting_at, now, memory_order_relaxed);
  unsigned n = mine;
  for (gex_Rank_t i = 0; i < s->nlocal; i++) {
    if (i == s->me || !s->ctrl[i]) continue;
    const uint64_t at = atomic_load_explicit(&s->ctrl[i]->waiting_at, memory_order_relaxed);
    const uint32_t w = atomic_load_explicit(&s->ctrl[i]->waiting, memory_order_relaxed);
    /* (a stamp newer than 'now', from a clock read later, is fresh) */
    n += w > 1 && (int64_t)(now - at) < (int64_t)fresh_ns ? w : 1;
  }
  return n;
}

int gexi_shm_node_colocated(uint64_t now, uint64_t fresh_ns, cpu_set_t *theirs) {
  struct gexi_shm_node *s = gexi_ctx.shm;
  const int32_t cpu = atomic_load_explicit(&s->ctrl[s->me]->cpu, memory_order_relaxed);
  int shared = 0;
  CPU_ZERO(theirs);
  for (gex_Rank_t i = 0; i < s->nlocal; i++) {
    if (i == s->me) continue;
    const uint64_t at = atomic_load_explicit(&s->ctrl[i]->waiting_at, memory_order_relaxed);
    const int32_t c = atomic_load_explicit(&s->ctrl[i]->cpu, memory_order_relaxed);
    if (c < 0 || c >= CPU_SETSIZE || (int64_t)(now - at) >= (int64_t)fresh_ns) continue;
    CPU_SET(c, theirs);
    if (c != cpu) continue;
    if (i < s->me)
      shared = 2; /* (a lower index than mine: the caller is the one to move) */
    else if (!shared)
      shared = 1;
  }
  return shared;
}

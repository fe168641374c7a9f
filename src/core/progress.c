/* core/progress.c -- polling and the yield policy of every wait loop. */
#include <sched.h>

#include "core/context.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

/* Empty polls in a row before a waiting thread starts yielding the CPU.
 * Short enough that an oversubscribed node (7 ranks on 2 cores) keeps moving,
 * long enough that a ping-pong between two busy cores never yields. */
#define GEXI_SPINS_BEFORE_YIELD 64

int gexi_poll(int what) {
  if (GEXI_UNLIKELY(atomic_load_explicit(&gexi_ctx.exit_requested, memory_order_acquire)))
    gasnet_exit(gexi_ctx.exit_code);
  int n = gexi_shm_poll(what);
  if (gexi_ctx.net) n += gexi_ctx.net->poll(what);
  return n;
}

void gexi_idle(void) {
  if (++gexi_tls.idle_polls >= GEXI_SPINS_BEFORE_YIELD) sched_yield();
}

int gasnet_AMPoll(void) {
  gexi_check_can_communicate("gasnet_AMPoll");
  if (gexi_poll(GEXI_POLL_ALL))
    gexi_busy();
  else
    gexi_idle();
  return GASNET_OK;
}

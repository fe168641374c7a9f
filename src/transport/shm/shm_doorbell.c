/* transport/shm/shm_doorbell.c -- a waiting thread sleeps until a
 * neighbour publishes something for its process (struct gexi_shm_ctrl's
 * 'bell' and 'sleepers').  The futex is a shared one: the word lives in a
 * region every process of the node maps, each at its own address. */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "transport/shm/shm.h"

void gexi_shm_ring_slow(struct gexi_shm_ctrl *c) {
  atomic_fetch_add_explicit(&c->bell, 1, memory_order_seq_cst);
  syscall(SYS_futex, (uint32_t *)&c->bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void gexi_shm_doze(unsigned timeout_us) {
  struct gexi_shm_node *n = gexi_ctx.shm;
  struct gexi_shm_ctrl *c = n->ctrl[n->me];
  atomic_fetch_add_explicit(&c->sleepers, 1, memory_order_seq_cst);
  const uint32_t bell = atomic_load_explicit(&c->bell, memory_order_seq_cst);
  /* (after the count: a message published before it is seen here, one
   * published after it rings) */
  if (!gexi_amq_maybe_ready(n->my_rep) && !gexi_amq_maybe_ready(n->my_req)) {
    const struct timespec ts = {0, (long)timeout_us * 1000L};
    syscall(SYS_futex, (uint32_t *)&c->bell, FUTEX_WAIT, bell, &ts, NULL, 0);
  }
  atomic_fetch_sub_explicit(&c->sleepers, 1, memory_order_relaxed);
}

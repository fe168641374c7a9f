/* transport/sock/sock_keeper.c -- the lane's keeper thread (sock_lane.c,
 * "The keeper"; docs/network.md).
 *
 * A TCP connection is kept by the kernel while its process computes: what
 * arrives is acknowledged, what was lost is sent again.  The lane's
 * datagrams are acknowledged and retransmitted by the process itself, so
 * a rank that left the library for long would leave its peers' pieces
 * unacknowledged and its own lost ones unsent.  The keeper does that work
 * then, and only then:
 *
 *   - it wakes every SOCK_KEEPER_MS (from a condition variable that
 *     stopping signals);
 *   - it acts only if no thread of the process polled since it last
 *     looked (poll_gen did not move) and it gets poll_lock at once: a
 *     thread that waits in the library polls, and keeps the lane itself.
 *     On a crowded host a rank may wait that long for a core while it is
 *     in the library: the keeper then takes its turn, and a poll that
 *     finds the keeper holding poll_lock waits for it (keeper_in) rather
 *     than give up;
 *   - what it does is gexi_sock_lane_service, under poll_lock: no handler
 *     ever runs on this thread, no frame is parsed here, and it never
 *     reports a peer as dead (the program's own waits do).
 *
 * It is started once the lanes are set up and stopped (joined) at exit
 * before the lanes are drained, so two threads never drain them.  Its
 * signals are blocked: they go to the program's threads. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "transport/sock/sock.h"

static void *keeper_main(void *arg) {
  struct gexi_sock *s = arg;
  uint32_t seen = atomic_load_explicit(&s->poll_gen, memory_order_relaxed);
  pthread_mutex_lock(&s->keeper_mu);
  while (!s->keeper_stop) {
    const struct timespec at = gexi_deadline(CLOCK_MONOTONIC, SOCK_KEEPER_MS * 1000000ull);
    int rc = 0;
    while (!s->keeper_stop && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&s->keeper_cv, &s->keeper_mu, &at);
    if (s->keeper_stop) break;
    pthread_mutex_unlock(&s->keeper_mu);
    uint32_t gen = atomic_load_explicit(&s->poll_gen, memory_order_relaxed);
    if (gen == seen && !atomic_load_explicit(&s->leaving, memory_order_acquire) &&
        pthread_mutex_trylock(&s->poll_lock) == 0) {
      atomic_store_explicit(&s->keeper_in, 1, memory_order_relaxed);
      (void)gexi_sock_lane_service();
      atomic_store_explicit(&s->keeper_in, 0, memory_order_relaxed);
      pthread_mutex_unlock(&s->poll_lock);
    }
    seen = gen;
    pthread_mutex_lock(&s->keeper_mu);
  }
  pthread_mutex_unlock(&s->keeper_mu);
  return NULL;
}

void gexi_sock_keeper_start(void) {
  struct gexi_sock *s = gexi_sock_ctx();
  pthread_mutex_init(&s->keeper_mu, NULL);
  pthread_condattr_t ca; /* timed waits on the monotonic clock */
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&s->keeper_cv, &ca);
  pthread_condattr_destroy(&ca);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  /* (default stack size: see bootstrap/launcher.c on the client's TLS) */
  int rc = pthread_create(&s->keeper, NULL, keeper_main, s);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) gexi_fatal("network (sock): cannot start the UDP lane's keeper thread: %s", strerror(rc));
  atomic_store_explicit(&s->keeper_on, 1, memory_order_release);
}

void gexi_sock_keeper_stop(int wait_ms) {
  struct gexi_sock *s = gexi_sock_ctx();
  if (!s || !atomic_load_explicit(&s->keeper_on, memory_order_acquire) ||
      pthread_equal(pthread_self(), s->keeper) || !atomic_exchange(&s->keeper_on, 0))
    return;
  pthread_mutex_lock(&s->keeper_mu);
  s->keeper_stop = 1;
  pthread_cond_signal(&s->keeper_cv);
  pthread_mutex_unlock(&s->keeper_mu);
  /* Bounded: a keeper held up on a lock that the exiting thread holds
   * (a fatal error in the send path) is left behind; the process ends. */
  gexi_join_within(s->keeper, wait_ms);
}

/* core/rcv_thread.c -- the receive thread: network progress while the
 * program's threads are away from the library (GASNET_RCV_THREAD=1; the
 * OpenSHMEM library asks for it, docs/openshmem.md).
 *
 * Over sock and over libfabric's software providers, what a peer sends --
 * an AM, a Put, an atomic -- is done by the target's own polls, and so is
 * a neighbour's AM through shared memory: a rank that computes, or spins
 * on a flag with plain loads, never sees it.  The thread does those polls
 * then, and only then:
 *
 *   - while the program polls (gexi_ctx.poll_gen moves between two looks)
 *     or sleeps in one of the library's waits (gexi_ctx.lib_sleepers), it
 *     stays out of the way, looking again after GEXI_RCV_LOOK_US: a
 *     thread that waits in the library makes its own progress faster than
 *     a second thread contending for the same locks and core would;
 *   - once a look finds nobody polled for a whole GEXI_RCV_LOOK_US, it
 *     polls as a waiting thread does,
 *     and sleeps between polls (up to GEXI_RCV_BLOCK_US) on the network
 *     transport's wait object (net->block), or without a network on the
 *     process's shared-memory doorbell, woken by the next arrival there
 *     (a neighbour's AM reaches a rank with a network at the timeout).
 *     Handlers run on it then, as on any thread of the program.  A program
 *     that comes back while it sleeps there finds the transport taken
 *     (its polls return empty) until the thread wakes: at the next arrival,
 *     or within GEXI_RCV_BLOCK_US;
 *   - GASNET_RCV_THREAD_RATE > 0 bounds its wake-ups a second.
 *
 * Its signals are blocked (they go to the program's threads).  It stops
 * when the process ends (gexi_rcv_thread_stop, before the transports'
 * at-exit work), and never returns: as the specification asks of a
 * progress function, it ends in pthread_exit.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/context.h"
#include "core/net_ops.h"
#include "core/rcv_thread.h"

/* Between two looks while the program is in the library: the first after
 * an absence, doubled at every look that finds it there, up to the most.
 * Long enough that a rank preempted on a crowded core (a time slice or
 * two) is not taken for one away -- the thread would then take the
 * transport's poll from it when it came back, and a crowded round trip
 * took twice as long with looks every millisecond -- and that the thread's
 * own wake-ups seldom cost a waiting rank its core (over tcp;ofi_rxm with
 * two busy loops beside the job, looks every 10 ms made round trips 16 to
 * 37 % longer); short enough for progress without calls (a program that
 * leaves the library is served within two of the longest). */
#define GEXI_RCV_LOOK_US 10000
#define GEXI_RCV_LOOK_MAX_US 160000
/* The longest sleep on the network while the program is away: a program
 * that comes back finds the transport's poll taken for at most this. */
#define GEXI_RCV_BLOCK_US 1000

struct gexi_rcv {
  pthread_mutex_t mu;
  pthread_cond_t cv; /* signalled by stop; on the monotonic clock */
  _Atomic int stop;
  _Atomic int running; /* set by the thread itself (a deferred one may never start) */
  pthread_t th;
  uint64_t gap_ns; /* least time between two wake-ups (GASNET_RCV_THREAD_RATE) */
  int deferred;    /* the client starts it (GEX_FLAG_DEFER_THREADS) */
  gex_ProgressThreadInfo_t info;
};

/* Wait up to 'ns' unless stopped; returns whether it was stopped. */
static int rcv_wait(struct gexi_rcv *r, uint64_t ns) {
  const struct timespec at = gexi_deadline(CLOCK_MONOTONIC, ns);
  pthread_mutex_lock(&r->mu);
  int rc = 0;
  while (!atomic_load_explicit(&r->stop, memory_order_acquire) && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&r->cv, &r->mu, &at);
  pthread_mutex_unlock(&r->mu);
  return atomic_load_explicit(&r->stop, memory_order_acquire);
}

static int rcv_over(struct gexi_rcv *r) {
  return atomic_load_explicit(&r->stop, memory_order_acquire) ||
         atomic_load_explicit(&gexi_ctx.ending, memory_order_acquire);
}

static void *rcv_main(void *arg) {
  struct gexi_rcv *r = arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  r->th = pthread_self();
  atomic_store_explicit(&r->running, 1, memory_order_release);
  uint64_t woke = 0, look_us = GEXI_RCV_LOOK_US;
  while (!rcv_over(r)) {
    /* A look: the program has a whole look_us to show that it is in the
     * library (polling, or asleep in a wait). */
    uint32_t mine = atomic_load_explicit(&gexi_ctx.poll_gen, memory_order_relaxed);
    if (rcv_wait(r, look_us * 1000ull)) break;
    if (atomic_load_explicit(&gexi_ctx.poll_gen, memory_order_relaxed) != mine ||
        atomic_load_explicit(&gexi_ctx.lib_sleepers, memory_order_relaxed)) {
      if (look_us < GEXI_RCV_LOOK_MAX_US) look_us *= 2;
      continue;
    }
    look_us = GEXI_RCV_LOOK_US;
    /* Away: poll as a waiting thread does until the program polls again.
     * 'mine' is poll_gen as this thread's own polls leave it; another
     * thread's poll moves it further (two at once may count one: then the
     * next one shows). */
    while (!rcv_over(r) && atomic_load_explicit(&gexi_ctx.poll_gen, memory_order_relaxed) == mine &&
           !atomic_load_explicit(&gexi_ctx.lib_sleepers, memory_order_relaxed)) {
      const int n = gexi_poll(GEXI_POLL_ALL);
      mine++;
      if (n > 0) continue;
      if (r->gap_ns) {
        const uint64_t now = gexi_now_ns();
        if (now - woke < r->gap_ns && rcv_wait(r, r->gap_ns - (now - woke))) break;
      }
      /* (net->block returns at once where another thread polls or sleeps
       * there: that one is in the library; without a network, a
       * neighbour's message rings the doorbell) */
      if (!gexi_ctx.net)
        gexi_ctx.shm_doze(GEXI_RCV_BLOCK_US);
      else if (!gexi_ctx.net->block(GEXI_RCV_BLOCK_US))
        break;
      woke = gexi_now_ns();
    }
  }
  pthread_exit(NULL);
}

void gexi_rcv_thread_setup(int defer) {
  if (!gexi_ctx.env.rcv_thread || (!gexi_ctx.net && gexi_ctx.nbrhd_size < 2)) return;
  struct gexi_rcv *r = calloc(1, sizeof *r);
  if (!r) gexi_fatal("out of memory");
  pthread_mutex_init(&r->mu, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&r->cv, &ca);
  pthread_condattr_destroy(&ca);
  r->gap_ns = gexi_ctx.env.rcv_thread_rate ? 1000000000ull / gexi_ctx.env.rcv_thread_rate : 0;
  r->info = (gex_ProgressThreadInfo_t){.gex_device_list = gexi_ctx.net ? gexi_ctx.net->name : "shm",
                                       .gex_thread_roles = GEX_THREAD_ROLE_RCV,
                                       .gex_progress_fn = rcv_main,
                                       .gex_progress_arg = r};
  r->deferred = defer;
  gexi_ctx.rcv = r;
  if (defer) return;
  pthread_t th;
  /* (default stack size: see bootstrap/launcher.c on the client's TLS) */
  const int rc = pthread_create(&th, NULL, rcv_main, r);
  if (rc != 0) gexi_fatal("cannot start the receive thread (GASNET_RCV_THREAD): %s", strerror(rc));
}

unsigned gexi_rcv_thread_deferred(const gex_ProgressThreadInfo_t **info) {
  struct gexi_rcv *r = gexi_ctx.rcv;
  if (!r || !r->deferred) return 0;
  *info = &r->info;
  return 1;
}

void gexi_rcv_thread_stop(int wait_ms) {
  struct gexi_rcv *r = gexi_ctx.rcv;
  if (!r || !atomic_load_explicit(&r->running, memory_order_acquire) ||
      pthread_equal(pthread_self(), r->th) || atomic_exchange(&r->stop, 1))
    return;
  /* (no lock: this may run where a signal interrupted a thread that holds
   * r->mu; a wake-up missed so comes at the thread's timeout) */
  pthread_cond_signal(&r->cv);
  gexi_join_within(r->th, wait_ms); /* (one held up in a handler is left behind) */
}

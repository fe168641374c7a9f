/* t_wait_policy.c -- what a waiting thread does with its core under each
 * wait mode (core/progress.c, docs/design.md "Waiting without starving
 * others").
 *
 * Rank 0 waits in GASNET_BLOCKUNTIL for a flag that rank 1 sets with an AM
 * after keeping its own core busy for 20 ms (a loop on the clock: the
 * wait is long, and never ends by itself).  Rank 1 starts its 20 ms only
 * once rank 0 has said (an AM sent just before its wait) that it waits, so
 * a rank 0 that leaves the barrier late on a loaded machine still waits
 * the whole 20 ms.  Rank 0 counts the yields and
 * network sleeps of its wait (internal hooks) and checks them against
 * what its mode must do:
 *
 *   auto (the default), the ranks neighbours in shared memory and
 *        the host not oversubscribed by the job: neither yields nor sleeps (it spins,
 *        as the reference does, so that another program's busy loop never
 *        gets its core while its neighbour may answer at once); but with
 *        as many helper threads of rank 0 waiting as there are cores (the
 *        job's waiting threads then outnumber them), it yields;
 *   auto, every peer over the network (GEX_SUPERNODE_MAXSIZE=1): yields,
 *        and sleeps on the network (whose descriptor wakes it) once a
 *        yield shows that another thread wants its core: checked again
 *        with a thread of rank 0's own kept busy on rank 0's core;
 *   yield (GEX_WAIT_MODE=yield, and gasnet_set_waitmode(GASNET_WAIT_SPINBLOCK)): yields;
 *   spin (GASNET_WAIT_SPIN): neither, unless the host is oversubscribed.
 *
 * Each step checks the flag's value and ends with a barrier.  A job that
 * oversubscribes the machine (more ranks than cores, in all its network
 * namespaces: GEX_TEST_MACHINE_RANKS when the job spans several) yields in
 * every mode: then only that is checked.
 */
#include <gasnet.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

uint64_t gexi_net_sleeps(void);  /* this thread's sleeps (core/progress.c) */
uint64_t gexi_wait_yields(void); /* this thread's yields (core/progress.c) */

#define H_FLAG (GEX_AM_INDEX_BASE + 0)
#define H_WAITING (GEX_AM_INDEX_BASE + 1)

/* (atomic: rank 0's helper threads may run the handlers) */
static atomic_uint flag, waiting;

static void flag_handler(gex_Token_t tok, gex_AM_Arg_t v) {
  (void)tok;
  atomic_store(&flag, (uint32_t)v);
}
static void waiting_handler(gex_Token_t tok, gex_AM_Arg_t v) {
  (void)tok;
  atomic_store(&waiting, (uint32_t)v);
}

static gex_AM_Entry_t handlers[] = {
    {H_FLAG, (gex_AM_Fn_t)flag_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "flag"},
    {H_WAITING, (gex_AM_Fn_t)waiting_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL,
     "waiting"},
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A thread of rank 0's that keeps rank 0's core busy (crowd_core). */
static atomic_int spin_stop;
static void *spinner(void *arg) {
  (void)arg;
  while (!atomic_load_explicit(&spin_stop, memory_order_relaxed)) {
  }
  return NULL;
}

/* Pin this thread to the core it runs on and start a busy thread there
 * ('on'), or stop that thread and give this one back its cores. */
static void crowd_core(int on) {
  static cpu_set_t saved;
  static pthread_t t;
  if (on) {
    CHECK(pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0);
    const int cpu = sched_getcpu();
    CHECK(cpu >= 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0);
    pthread_attr_t a;
    pthread_attr_init(&a);
    CHECK(pthread_attr_setaffinity_np(&a, sizeof one, &one) == 0);
    atomic_store(&spin_stop, 0);
    CHECK(pthread_create(&t, &a, spinner, NULL) == 0);
    pthread_attr_destroy(&a);
  } else {
    atomic_store(&spin_stop, 1);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof saved, &saved) == 0);
  }
}

/* Helper threads of rank 0 that wait too (GASNET_BLOCKUNTIL) while
 * rank 0's main thread waits (helpers_start / helpers_stop). */
#define MAX_HELPERS 60
static atomic_int helpers_done;
static pthread_t helper_th[MAX_HELPERS];
static int nhelpers;
static void *helper(void *arg) {
  (void)arg;
  GASNET_BLOCKUNTIL(atomic_load(&helpers_done));
  return NULL;
}
static void helpers(int n) {
  if (n > 0) {
    atomic_store(&helpers_done, 0);
    nhelpers = n;
    for (int i = 0; i < n; i++) CHECK(pthread_create(&helper_th[i], NULL, helper, NULL) == 0);
  } else {
    atomic_store(&helpers_done, 1);
    for (int i = 0; i < nhelpers; i++) CHECK(pthread_join(helper_th[i], NULL) == 0);
    nhelpers = 0;
  }
}

/* One long wait at rank 0; returns its yields and sleeps there.  'crowd':
 * rank 0's core is kept busy by a thread of its own meanwhile; 'nhelp':
 * that many helper threads of rank 0 wait meanwhile. */
static void long_wait_helped(uint32_t v, uint64_t *yields, uint64_t *sleeps, int crowd,
                             int nhelp) {
  test_barrier();
  *yields = *sleeps = 0;
  if (crowd && T.rank == 0) crowd_core(1);
  if (nhelp && T.rank == 0) helpers(nhelp);
  if (T.rank == 1) {
    GASNET_BLOCKUNTIL(atomic_load(&waiting) == v);
    double end = now_s() + 0.02;
    while (now_s() < end) {
    }
    gex_AM_RequestShort1(T.tm, 0, H_FLAG, 0, (gex_AM_Arg_t)v);
  } else if (T.rank == 0) {
    uint64_t y = gexi_wait_yields(), s = gexi_net_sleeps();
    gex_AM_RequestShort1(T.tm, 1, H_WAITING, 0, (gex_AM_Arg_t)v);
    GASNET_BLOCKUNTIL(atomic_load(&flag) == v);
    *yields = gexi_wait_yields() - y;
    *sleeps = gexi_net_sleeps() - s;
    CHECK(atomic_load(&flag) == v);
  }
  if (crowd && T.rank == 0) crowd_core(0);
  if (nhelp && T.rank == 0) helpers(0);
  test_barrier();
}
static void long_wait(uint32_t v, uint64_t *yields, uint64_t *sleeps, int crowd) {
  long_wait_helped(v, yields, sleeps, crowd, 0);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_WAIT_POLICY", 4096, handlers, 2);
  CHECKF(T.size >= 2, "needs at least 2 ranks");
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  gex_RankInfo_t *nb;
  gex_Rank_t nbrhd = 0, host = 0;
  gex_System_QueryNbrhdInfo(&nb, &nbrhd, NULL);
  gex_System_QueryHostInfo(&nb, &host, NULL);
  /* The job's ranks on this machine: the host's, unless GEX_TEST_MACHINE_RANKS
   * says more (ranks in several network namespaces of one machine, which
   * the host query counts apart but which share its cores). */
  const char *mr = getenv("GEX_TEST_MACHINE_RANKS");
  const long on_machine = mr ? atol(mr) : (long)host;
  const int crowded = cpus > 0 && on_machine > cpus; /* the job oversubscribes the machine */
  const char *mode_env = getenv("GEX_WAIT_MODE");
  const int is_auto = !mode_env || strcmp(mode_env, "auto") == 0; /* the default */
  const int is_yield = mode_env && strcmp(mode_env, "yield") == 0;
  uint64_t y, s;

  long_wait(1, &y, &s, 0); /* the job's own mode */
  if (T.rank == 0) {
    test_log("mode %s, %u neighbour(s), %ld rank(s) on %ld core(s): %" PRIu64 " yields, %" PRIu64
             " sleeps", mode_env ? mode_env : "auto (default)", (unsigned)nbrhd, on_machine,
             cpus, y, s);
    if (crowded)
      CHECKF(y + s > 0, "an oversubscribed host must yield or sleep");
    else if (is_auto && nbrhd > 1)
      CHECKF(y == 0 && s == 0, "auto with neighbours: spin (%" PRIu64 " yields, %" PRIu64 " sleeps)",
             y, s);
    else if (is_auto)
      CHECKF(y > 0, "auto with every peer over the network: yield");
    else if (is_yield)
      CHECKF(y + s > 0, "yield: a 20 ms wait must yield or sleep");
  }

  if (is_auto && nbrhd == 1 && !crowded) {
    long_wait(4, &y, &s, 1);
    if (T.rank == 0) {
      test_log("auto, a busy thread on rank 0's core: %" PRIu64 " yields, %" PRIu64 " sleeps", y, s);
      CHECKF(s > 0, "auto, every peer over the network, its core wanted: sleep on the network");
    }
  }
  if (is_auto && nbrhd > 1 && !crowded && cpus > 0 && cpus <= MAX_HELPERS) {
    long_wait_helped(5, &y, &s, 0, (int)cpus);
    if (T.rank == 0) {
      test_log("auto, %ld helper threads of rank 0 waiting: %" PRIu64 " yields", cpus, y);
      CHECKF(y > 0, "auto with neighbours, the job's waiting threads outnumbering the cores: "
                    "yield");
    }
  }
  CHECK(gasnet_set_waitmode(GASNET_WAIT_SPINBLOCK) == GASNET_OK); /* yield */
  long_wait(2, &y, &s, 0);
  if (T.rank == 0) CHECKF(y + s > 0, "yield mode: a 20 ms wait must yield or sleep");

  CHECK(gasnet_set_waitmode(GASNET_WAIT_SPIN) == GASNET_OK);
  long_wait(3, &y, &s, 0);
  if (T.rank == 0) {
    if (crowded)
      CHECKF(y + s > 0, "spin on an oversubscribed host must still yield");
    else
      CHECKF(y == 0 && s == 0, "spin: neither yield nor sleep (%" PRIu64 " yields)", y);
  }
  test_finish();
}

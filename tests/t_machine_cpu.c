/* t_machine_cpu.c -- two ranks of one machine that reach each other only
 * through the network, on one CPU (core/progress.c, move_home).
 *
 * A rank asleep on the network is woken on its waker's CPU, so two ranks
 * that wake each other gather on one CPU; beside other programs' busy
 * loops a round trip then took 50 to 130 us instead of 17 to 24.  Before
 * it sleeps, a rank found off its home CPU (the one at its place among the
 * machine's ranks in its affinity mask) must move back there.
 *
 * Step 1: ranks 0 and 1 pin themselves to one CPU (the first of rank 0's
 *   mask) and make ROUNDS AM round trips each way, each carrying a value
 *   the peer's handler must return plus one.  Neither can have moved (a
 *   mask of one CPU).
 * Step 2: both get their masks back, still on that one CPU -- rank 0's
 *   home, not rank 1's -- and make ROUNDS2 round trips each way.  Where
 *   the masks have two CPUs or more, rank 1 notes after each of its round
 *   trips whether it runs off its home CPU, on the CPU rank 0 answered on
 *   (the two taking turns there, so that its waits come to look); found
 *   there in OFF_HOME_MOVES of them or more, it must have moved itself
 *   (gexi_cpu_moves).  Found there less often (the scheduler put it home
 *   first), the step says so.  Spinning, the
 *   scheduler separates two busy ranks at once unless something else keeps
 *   the other CPU busy: rank 1 starts a busy process on its home CPU for
 *   the step (ended with it, and with rank 1 should that end first), and
 *   the step makes ROUNDS2_SPIN round trips.
 *
 * Runs only with the two ranks on one machine, not neighbours
 * (GEX_SUPERNODE_MAXSIZE=1), in the mode block, whose every idle moment
 * sleeps on the network (auto sleeps only once it sees others want the
 * core, and takes the same path then), or spin, whose waits look every 64
 * empty polls; otherwise it says SKIP and why.  Spinning, step 1 takes a
 * time slice a round trip (the two ranks take turns on the one CPU), so it
 * makes only ROUNDS_SPIN of them.
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_cpu.h"

uint64_t gexi_cpu_moves(void); /* this thread's moves (core/progress.c) */

#define ROUNDS 200
#define ROUNDS_SPIN 20
#define ROUNDS2 2000
#define ROUNDS2_SPIN 200
/* (a twentieth of the step's round trips: the looks come at most once a
 * millisecond; without them, rank 1 was found there in 0 to 198 of
 * ROUNDS2, and 10 to 13 of ROUNDS2_SPIN) */
#define OFF_HOME_MOVES(rounds) ((rounds) / 20)

/* A busy process on CPU 'cpu' alone, ended with its parent. */
static pid_t busy_on(int cpu) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent ||
        sched_setaffinity(0, sizeof one, &one) != 0)
      _exit(1);
    for (volatile unsigned long spin = 0;; spin++) {
    }
  }
  return pid;
}

/* 'rounds' round trips each way, one rank at a time, values from 'base';
 * returns in how many of its own the caller found itself off CPU 'home'
 * (-1: none) and on the CPU its peer had just answered on: gathered, where
 * its waits must take turns with the peer's and so come to look.  (Off
 * home on a CPU of its own -- the two swapped -- its waits may end before
 * they look.) */
static uint32_t ping_pong(uint32_t base, uint32_t rounds, int home) {
  uint32_t off = 0;
  for (uint32_t i = 0; i < rounds; i++) {
    if (T.rank == 0) round_trip(base + 2 * i);
    test_barrier();
    if (T.rank == 1) {
      round_trip(base + 2 * i + 1);
      const int cpu = sched_getcpu();
      off += home >= 0 && cpu != home && cpu == (int)atomic_load(&peer_cpu);
    }
  }
  test_barrier();
  return off;
}

int main(int argc, char **argv) {
  long cpus;
  const gex_Rank_t nbrhd = test_cpu_init(&argc, &argv, "T_MACHINE_CPU", &cpus);
  const char *mode = getenv("GEX_WAIT_MODE");
  const int spin = mode && strcmp(mode, "spin") == 0;
  if (!mode || (strcmp(mode, "block") != 0 && !spin) || nbrhd != 1 || cpus < 2) {
    test_log0("SKIP: t_machine_cpu: needs the wait mode block or spin, no neighbours and 2 or "
              "more CPUs (mode %s, %u neighbours, %ld CPUs)",
              mode ? mode : "auto", (unsigned)nbrhd, cpus);
    gasnet_exit(77);
  }
  /* Step 1: one CPU for both. */
  cpu_set_t mask;
  const int first = test_pin_to_first_cpu(&mask);
  test_barrier();
  const uint64_t m0 = gexi_cpu_moves();
  const uint32_t rounds = spin ? ROUNDS_SPIN : ROUNDS;
  (void)ping_pong(0, rounds, -1);
  test_log("step 1, both ranks on CPU %d: %u round trips each way", first, rounds);
  CHECKF(gexi_cpu_moves() == m0, "a mask of one CPU: no move");

  /* Step 2: the masks back, the ranks still on one CPU.  Rank 1's home:
   * the second CPU of its mask (its place among the machine's ranks). */
  CHECK(sched_setaffinity(0, sizeof mask, &mask) == 0);
  int home = -1;
  for (int c = 0, k = 1 % CPU_COUNT(&mask); c < CPU_SETSIZE && home < 0; c++)
    if (CPU_ISSET(c, &mask) && k-- == 0) home = c;
  const uint64_t m1 = gexi_cpu_moves();
  const uint32_t rounds2 = spin ? ROUNDS2_SPIN : ROUNDS2;
  const pid_t busy = spin && T.rank == 1 && home >= 0 ? busy_on(home) : 0;
  test_barrier();
  const uint32_t off = ping_pong(4000000, rounds2, T.rank == 1 ? home : -1);
  if (busy > 0) {
    CHECK(kill(busy, SIGKILL) == 0);
    CHECK(waitpid(busy, NULL, 0) == busy);
  }
  if (T.rank == 1) {
    const uint64_t moves = gexi_cpu_moves() - m1;
    test_log("step 2, masks of %d CPUs back%s: rank 1 off its home CPU %d after %u of %u round "
             "trips with rank 0 on its CPU, %" PRIu64 " move(s)%s",
             CPU_COUNT(&mask), busy > 0 ? ", a busy process there" : "", home, off, rounds2,
             moves,
             off < OFF_HOME_MOVES(rounds2) && moves == 0 ? " (the scheduler put it home)" : "");
    if (CPU_COUNT(&mask) >= 2 && off >= OFF_HOME_MOVES(rounds2))
      CHECKF(moves > 0, "rank 1, away from its home CPU, must move back before it %s",
             spin ? "spins on" : "sleeps");
  }
  test_finish();
}

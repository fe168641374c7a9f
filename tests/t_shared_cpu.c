/* t_shared_cpu.c -- two neighbours on one CPU (core/progress.c, "auto,
 * with neighbours"; transport/shm/shm_doorbell.c).
 *
 * Where the scheduler puts two ranks that wait for each other on one CPU
 * (other programs' busy loops on the others), a rank that spins keeps its
 * peer off the CPU for a whole time slice, and an AM round trip that takes
 * a microsecond took 8 ms.  The wait policy must then sleep on the
 * process's doorbell, which the peer's message rings, and the rank of the
 * higher local index must move itself to a CPU no neighbour uses.
 *
 * Step 1: ranks 0 and 1 pin themselves to one CPU (the first of rank 0's
 *   affinity mask) and make ROUNDS AM round trips, each carrying a value
 *   the peer's handler must return plus one.  Both must have slept on the
 *   doorbell (gexi_shm_dozes), and neither can have moved (a mask of one
 *   CPU).
 * Step 2: both get their masks back, still on that one CPU, and make
 *   ROUNDS2 round trips each way.  Where the masks have two CPUs or more,
 *   rank 1 must have moved itself (gexi_cpu_moves) -- unless the scheduler
 *   had put the two apart before rank 1's first round trip (then the step
 *   says so).
 *
 * Runs only in the mode auto with the two ranks neighbours and the host
 * not oversubscribed (otherwise it says SKIP and why): the other modes
 * and an oversubscribed host yield instead.
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "test_cpu.h"

uint64_t gexi_shm_dozes(void); /* this thread's doorbell sleeps (core/progress.c) */
uint64_t gexi_cpu_moves(void); /* ... and moves off a shared CPU */

#define ROUNDS 200
#define ROUNDS2 2000

int main(int argc, char **argv) {
  long cpus;
  const gex_Rank_t nbrhd = test_cpu_init(&argc, &argv, "T_SHARED_CPU", &cpus);
  const char *mode = getenv("GEX_WAIT_MODE");
  if ((mode && strcmp(mode, "auto") != 0) || nbrhd != 2 || cpus < 2) {
    test_log0("SKIP: t_shared_cpu: needs the wait mode auto, 2 neighbours and 2 or more CPUs "
              "(mode %s, %u neighbours, %ld CPUs)",
              mode ? mode : "auto", (unsigned)nbrhd, cpus);
    gasnet_exit(77);
  }
  /* Step 1: one CPU for both. */
  cpu_set_t mask;
  const int first = test_pin_to_first_cpu(&mask);
  test_barrier();
  const uint64_t d0 = gexi_shm_dozes(), m0 = gexi_cpu_moves();
  for (uint32_t i = 0; i < ROUNDS; i++) {
    if (T.rank == 0) round_trip(2 * i);
    test_barrier(); /* (the barrier's arrivals ring the doorbell too) */
    if (T.rank == 1) round_trip(2 * i + 1000000);
  }
  test_barrier();
  const uint64_t dozes = gexi_shm_dozes() - d0;
  test_log("step 1, both ranks on CPU %d: %u round trips each way, %" PRIu64 " doorbell sleeps",
           first, ROUNDS, dozes);
  CHECKF(dozes > 0, "two neighbours on one CPU: the waits must sleep on the doorbell");
  CHECKF(gexi_cpu_moves() == m0, "a mask of one CPU: no move");

  /* Step 2: the masks back, the ranks still on one CPU. */
  CHECK(sched_setaffinity(0, sizeof mask, &mask) == 0);
  const uint64_t m1 = gexi_cpu_moves();
  test_barrier();
  int apart = -1; /* rank 1: whether its first round trip found rank 0 on another CPU */
  for (uint32_t i = 0; i < ROUNDS2; i++) {
    if (T.rank == 0) round_trip(4000000 + 2 * i);
    test_barrier();
    if (T.rank == 1) {
      round_trip(4000000 + 2 * i + 1);
      if (apart < 0) apart = (int)atomic_load(&peer_cpu) != sched_getcpu();
    }
  }
  test_barrier();
  if (T.rank == 1) {
    const uint64_t moves = gexi_cpu_moves() - m1;
    test_log("step 2, masks of %d CPUs back: %" PRIu64 " move(s) of rank 1%s", CPU_COUNT(&mask),
             moves, apart == 1 && moves == 0 ? " (the scheduler had put the ranks apart)" : "");
    if (CPU_COUNT(&mask) >= 2)
      CHECKF(moves > 0 || apart == 1,
             "rank 1, sharing a CPU with rank 0 with another CPU free, must move");
  }
  test_finish();
}

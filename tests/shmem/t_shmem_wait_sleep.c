/* t_shmem_wait_sleep.c -- OpenSHMEM's waits may sleep on the network, its
 * tests never (docs/openshmem.md, wait_until): run with every peer over the
 * network and GEX_WAIT_MODE=block, where a wait that may sleep does so at
 * its first idle moment.
 *
 * Rounds r = 1..12: PE 0 puts 64 words of round r's pattern into PE 1's
 * array, fences, and sets PE 1's flag to r, after a pause that grows with
 * r; PE 1 waits with shmem_long_wait_until (odd rounds) or
 * shmem_signal_wait_until (even rounds) and checks the 64 words.  PE 1
 * counts its network sleeps (libgex's own hook, not part of OpenSHMEM)
 * across the waits, and ends the rounds once it has slept in one.  It
 * must have; and 2000 shmem_long_test calls on a flag that does not change
 * must not sleep.
 *
 *   oshrun -n 2 t_shmem_wait_sleep   (GEX_SUPERNODE_MAXSIZE=1 GEX_WAIT_MODE=block)
 */
#include <stdint.h>
#include <time.h>

#include "shmem_test.h"

uint64_t gexi_net_sleeps(void); /* this thread's network sleeps (libgex core/progress.c) */

static long data[64];
static long flag;
static uint64_t signal_word;
static long go; /* PE 1 -> PE 0: the round to play, or -1 to stop */

static void pause_us(long us) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do
    clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

int main(void) {
  shmem_init();
  CHECK(shmem_n_pes() == 2, "run with 2 PEs, not %d", shmem_n_pes());
  const int me = shmem_my_pe();
  shmem_barrier_all();
  long slept_round = 0;
  for (long r = 1; r <= 12; r++) {
    if (me == 1) {
      shmem_long_atomic_set(&go, r, 0); /* the round begins */
      const uint64_t s0 = gexi_net_sleeps();
      if (r % 2)
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, r);
      else
        CHECK(shmem_signal_wait_until(&signal_word, SHMEM_CMP_EQ, (uint64_t)r) == (uint64_t)r,
              "signal_wait_until returned another value");
      const uint64_t slept = gexi_net_sleeps() - s0;
      for (int i = 0; i < 64; i++)
        CHECK(data[i] == pat(0, i, (int)r), "round %ld: data[%d] = %ld, not %ld", r, i, data[i],
              pat(0, i, (int)r));
      if (slept && !slept_round) slept_round = r;
      shmem_long_atomic_set(&go, slept_round ? -1 : 0, 0);
    } else {
      shmem_long_wait_until(&go, SHMEM_CMP_EQ, r);
      long src[64];
      for (int i = 0; i < 64; i++) src[i] = pat(0, i, (int)r);
      pause_us(200 * r);
      shmem_long_put(data, src, 64, 1);
      shmem_fence();
      if (r % 2)
        shmem_long_atomic_set(&flag, r, 1);
      else
        shmem_uint64_atomic_set(&signal_word, (uint64_t)r, 1);
      shmem_long_wait_until(&go, SHMEM_CMP_NE, r); /* 0, -1, or already r + 1 */
      if (shmem_long_atomic_fetch(&go, 0) < 0) break;
    }
    if (me == 1 && slept_round) break;
  }
  shmem_barrier_all();
  if (me == 1) {
    CHECK(slept_round > 0, "no wait_until slept on the network in 12 rounds (GEX_WAIT_MODE=block)");
    const uint64_t s0 = gexi_net_sleeps();
    for (int i = 0; i < 2000; i++) CHECK(!shmem_long_test(&flag, SHMEM_CMP_EQ, -5), "test");
    CHECK(gexi_net_sleeps() == s0, "shmem_long_test slept %llu times",
          (unsigned long long)(gexi_net_sleeps() - s0));
    printf("PE 1: slept in round %ld\n", slept_round);
  }
  pass("t_shmem_wait_sleep");
  shmem_finalize();
  return 0;
}

/* t_shmem_progress.c -- progress without calls (OpenSHMEM 1.5 section
 * 4.1): a PE that spins on plain loads, with no OpenSHMEM call, still sees
 * the other PEs' puts and atomics land, wherever they run (docs/openshmem.md,
 * "Progress").
 *
 * After a barrier PE 0 spins on an acquire load of 'arrived' (a plain
 * load that ThreadSanitizer can see ordered against the atomic).  Every other
 * PE puts 64 words of its pattern into its own row of PE 0's 'rows', fences,
 * and adds 1 to PE 0's 'arrived' with an atomic.  PE 0 waits for npes - 1
 * with loads alone, for at most SPIN_LIMIT_S seconds, and then checks every
 * row, still without a call.
 *
 * GEX_TEST_SILENCE=1 (the control: GASNET_RCV_THREAD=0 and every peer on
 * another host): PE 0 spins 300 ms and requires that nothing arrived --
 * only its own calls can deliver there -- then waits with
 * shmem_long_wait_until and checks the same.
 *
 *   oshrun -n 4 t_shmem_progress
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "shmem_test.h"

#define MAXPES 64
#define WORDS 64
#define SPIN_LIMIT_S 60

static long rows[MAXPES][WORDS];
static long arrived;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void check_rows(int npes) {
  for (int pe = 1; pe < npes; pe++)
    for (int i = 0; i < WORDS; i++)
      CHECK(rows[pe][i] == pat(pe, i, 5), "rows[%d][%d] = %ld, not %ld", pe, i, rows[pe][i],
            pat(pe, i, 5));
}

int main(void) {
  const char *rcv_before = getenv("GASNET_RCV_THREAD");
  char rcv_was[32] = "";
  if (rcv_before) snprintf(rcv_was, sizeof rcv_was, "%s", rcv_before);
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  /* shmem_init turns the receive thread on without leaving its switch in
   * the environment the program's children inherit, and keeps the user's */
  const char *rcv_after = getenv("GASNET_RCV_THREAD");
  CHECK(rcv_before ? rcv_after && !strcmp(rcv_after, rcv_was) : rcv_after == NULL,
        "GASNET_RCV_THREAD was %s before shmem_init and is %s after",
        rcv_before ? rcv_was : "unset", rcv_after ? rcv_after : "unset");
  CHECK(npes <= MAXPES, "at most %d PEs, not %d", MAXPES, npes);
  const char *e = getenv("GEX_TEST_SILENCE");
  const int silence = e && atoi(e) == 1;
  shmem_barrier_all();
  if (me == 0) {
    if (silence) {
      const double until = now_s() + 0.3;
      while (now_s() < until) {
      }
      const long a = __atomic_load_n(&arrived, __ATOMIC_ACQUIRE);
      CHECK(a == 0, "%ld PEs' atomics arrived with nobody calling", a);
      shmem_long_wait_until(&arrived, SHMEM_CMP_EQ, npes - 1);
    } else {
      const double until = now_s() + SPIN_LIMIT_S;
      long a;
      while ((a = __atomic_load_n(&arrived, __ATOMIC_ACQUIRE)) != npes - 1)
        CHECK(now_s() < until, "%ld of %d PEs' atomics arrived in %d s of spinning", a, npes - 1,
              SPIN_LIMIT_S);
    }
    check_rows(npes);
  } else {
    long src[WORDS];
    for (int i = 0; i < WORDS; i++) src[i] = pat(me, i, 5);
    shmem_putmem(rows[me], src, sizeof src, 0);
    shmem_fence();
    shmem_long_atomic_add(&arrived, 1, 0);
  }
  pass(silence ? "t_shmem_progress (control)" : "t_shmem_progress");
  shmem_finalize();
  return 0;
}

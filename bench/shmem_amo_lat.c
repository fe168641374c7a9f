/* shmem_amo_lat.c -- latency of blocking 64-bit OpenSHMEM atomics from PE 0
 * to PE 1, for bench/report_shmem.py: shmem_long_atomic_fetch_add,
 * shmem_long_atomic_fetch, and shmem_long_atomic_add followed by
 * shmem_quiet.  Only the OpenSHMEM 1.5 API is used, so that the same file
 * builds against any OpenSHMEM library (each library's own oshcc).
 *
 * Every fetched value is checked (the counter counts up by one per add, and
 * nothing else touches it), and PE 1 checks the final count: a wrong result
 * ends the job with status 1.
 *
 * Usage: oshrun -n 2 shmem-amo-lat [ITERATIONS]      (default 20000)
 * Prints: "shmem_amo_lat: fetch_add_us A fetch_us B add_quiet_us C" and PASS.
 */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

int main(int argc, char **argv) {
  const long warm = 1000;
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
  shmem_init();
  if (n < 1 || shmem_n_pes() != 2) {
    if (shmem_my_pe() == 0) fprintf(stderr, "usage: oshrun -n 2 shmem-amo-lat [ITERATIONS]\n");
    shmem_global_exit(2);
  }
  long *counter = shmem_calloc(1, sizeof *counter);
  if (!counter) shmem_global_exit(1);
  shmem_barrier_all();
  int bad = 0;
  if (shmem_my_pe() == 0) {
    long expect = 0;
    double t0 = 0;
    for (long i = 0; i < n + warm; i++) {
      if (i == warm) t0 = now_us();
      if (shmem_long_atomic_fetch_add(counter, 1, 1) != expect++) bad = 1;
    }
    const double fetch_add = (now_us() - t0) / (double)n;
    for (long i = 0; i < n + warm; i++) {
      if (i == warm) t0 = now_us();
      if (shmem_long_atomic_fetch(counter, 1) != expect) bad = 1;
    }
    const double fetch = (now_us() - t0) / (double)n;
    for (long i = 0; i < n + warm; i++) {
      if (i == warm) t0 = now_us();
      shmem_long_atomic_add(counter, 1, 1);
      shmem_quiet();
    }
    const double add_quiet = (now_us() - t0) / (double)n;
    if (shmem_long_atomic_fetch(counter, 1) != 2 * (n + warm)) bad = 1;
    printf("shmem_amo_lat: fetch_add_us %.3f fetch_us %.3f add_quiet_us %.3f\n", fetch_add,
           fetch, add_quiet);
  }
  shmem_barrier_all();
  if (shmem_my_pe() == 1 && *counter != 2 * (n + warm)) bad = 1;
  if (bad) {
    fprintf(stderr, "shmem_amo_lat: PE %d: a fetched or final count is wrong\n", shmem_my_pe());
    shmem_global_exit(1);
  }
  shmem_barrier_all();
  if (shmem_my_pe() == 0) printf("PASS shmem_amo_lat (%ld iterations)\n", n);
  shmem_free(counter);
  shmem_finalize();
  return 0;
}

/* tests/shmem/shmem_test.h -- what the OpenSHMEM tests share: a check that
 * names the PE, the line and the values, and ends the job with status 1.
 * The programs use shmem.h only, as an OpenSHMEM program would. */
#ifndef SHMEM_TEST_H
#define SHMEM_TEST_H
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                               \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fprintf(stderr, "FAIL PE %d %s:%d: %s: ", shmem_my_pe(), __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                    \
      fprintf(stderr, "\n");                                                           \
      fflush(stderr);                                                                  \
      shmem_global_exit(1);                                                            \
    }                                                                                  \
  } while (0)

/* A PE-, index- and round-dependent pattern. */
static inline long pat(int pe, long i, int round) { return (long)pe * 1000003L + i * 7 + round; }

static inline void pass(const char *name) {
  shmem_barrier_all();
  if (shmem_my_pe() == 0) printf("PASS %s (%d PEs)\n", name, shmem_n_pes());
  fflush(stdout);
}
#endif

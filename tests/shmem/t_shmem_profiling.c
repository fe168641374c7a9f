/* tests/shmem/t_shmem_profiling.c -- the profiling interface (pshmem.h).
 *
 * The program is its own profiling library: it defines five OpenSHMEM calls
 * itself, counts them and goes on into libgexshmem through their pshmem_
 * names.  Built twice, linked against the static library (its shmem_ names
 * are weak, so the program's win without a clash) and against the shared
 * one (the program's interpose).  Every PE checks the bytes its puts moved,
 * the atomic's result, and that each of its calls -- and none of the
 * pshmem_ ones it made directly -- went through its own definitions. */
#define GEX_SHMEM_NO_INLINE /* so that every shmem_putmem is a call (pshmem.h) */
#include <pshmem.h>

#include "shmem_test.h"

static int n_long_put, n_putmem, n_barrier_all, n_fetch_add, n_pcontrol;

void shmem_long_put(long *dest, const long *source, size_t nelems, int pe) {
  n_long_put++;
  pshmem_long_put(dest, source, nelems, pe);
}
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
  n_putmem++;
  pshmem_putmem(dest, source, nelems, pe);
}
void shmem_barrier_all(void) {
  n_barrier_all++;
  pshmem_barrier_all();
}
long shmem_long_atomic_fetch_add(long *dest, long value, int pe) {
  n_fetch_add++;
  return pshmem_long_atomic_fetch_add(dest, value, pe);
}
void shmem_pcontrol(const int level, ...) {
  n_pcontrol++;
  pshmem_pcontrol(level); /* the library's: no effect */
}

#define N 64
static long ring[N], bytes_in[N]; /* static data, reached through endpoint 1 */
static long counter;

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  long *heap = (long *)shmem_malloc(N * sizeof(long)), src[N];
  CHECK(heap != NULL, "shmem_malloc");
  shmem_pcontrol(1);

  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < N; i++) src[i] = pat(me, i, round);
    shmem_long_put(heap, src, N, right);
    shmem_long_put(ring, src, N, right);
    shmem_putmem(bytes_in, src, sizeof src, right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
      CHECK(heap[i] == pat(left, i, round), "round %d heap[%d] = %ld", round, i, heap[i]);
      CHECK(ring[i] == pat(left, i, round), "round %d ring[%d] = %ld", round, i, ring[i]);
      CHECK(bytes_in[i] == pat(left, i, round), "round %d bytes[%d] = %ld", round, i, bytes_in[i]);
    }
    shmem_barrier_all();
  }
  long old = shmem_long_atomic_fetch_add(&counter, me + 1, 0);
  CHECK(old >= 0 && old <= (long)n * (n + 1) / 2 - (me + 1), "fetch_add returned %ld", old);
  shmem_barrier_all();
  if (me == 0) CHECK(counter == (long)n * (n + 1) / 2, "counter %ld", counter);

  /* Straight into the library: not counted. */
  pshmem_long_put(heap, src, N, right);
  pshmem_barrier_all();
  CHECK(heap[0] == pat(left, 0, 2), "pshmem_long_put moved %ld", heap[0]);

  CHECK(n_long_put == 6, "%d calls of shmem_long_put seen, 6 made", n_long_put);
  CHECK(n_putmem == 3, "%d calls of shmem_putmem seen, 3 made", n_putmem);
  CHECK(n_barrier_all == 7, "%d calls of shmem_barrier_all seen, 7 made", n_barrier_all);
  CHECK(n_fetch_add == 1, "%d calls of shmem_long_atomic_fetch_add seen, 1 made", n_fetch_add);
  CHECK(n_pcontrol == 1, "%d calls of shmem_pcontrol seen, 1 made", n_pcontrol);
  shmem_free(heap);
  pass("t_shmem_profiling");
  shmem_finalize();
  return 0;
}

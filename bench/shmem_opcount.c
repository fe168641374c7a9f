/* shmem_opcount.c -- the OpenSHMEM loops behind bench/opcount.sh: 8-byte
 * shmem_putmem, shmem_getmem and shmem_putmem_nbi from PE 0 to PE 1, each
 * in a separate non-inlined function loop_<op> whose instructions callgrind
 * counts (as opcount.c does for libgex's own calls).  PE 1 only waits.
 * Every moved value is checked after its loop: a loop that did not move
 * the bytes ends the job with status 1.
 *
 * Usage: gexrun -n 2 shmem-opcount [--iters N | --smoke]   (PASS on success)
 */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#define MEASURED __attribute__((noinline, used))
#else
#define MEASURED __attribute__((noipa, used))
#endif

MEASURED void loop_shput(uint64_t *dst, const uint64_t *src, int pe, long iters) {
  for (long i = 0; i < iters; i++) shmem_putmem(dst, src, 8, pe);
}
MEASURED void loop_shputnbi(uint64_t *dst, const uint64_t *src, int pe, long iters) {
  for (long i = 0; i < iters; i++) shmem_putmem_nbi(dst, src, 8, pe);
}
MEASURED void loop_shget(uint64_t *dst, const uint64_t *src, int pe, long iters) {
  for (long i = 0; i < iters; i++) shmem_getmem(dst, src, 8, pe);
}

int main(int argc, char **argv) {
  long iters = 1000;
  shmem_init();
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--smoke")) {
      iters = 5;
    } else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
      char *end;
      iters = strtol(argv[++i], &end, 10);
      if (*end || iters < 1 || iters > 100000000) iters = -1;
    } else {
      iters = -1;
    }
  }
  if (iters < 0 || shmem_n_pes() != 2) {
    if (shmem_my_pe() == 0)
      fprintf(stderr, "usage: gexrun -n 2 shmem-opcount [--iters N | --smoke]\n");
    shmem_global_exit(2);
  }
  const int me = shmem_my_pe(), peer = 1 - me;
  uint64_t *sym = shmem_calloc(4, sizeof *sym);
  if (!sym) shmem_global_exit(1);
  sym[0] = 0x1111111111111111u * (uint64_t)(me + 1); /* what the peer's gets read */
  shmem_barrier_all();
  int failed = 0;
  if (me == 0) {
    const uint64_t a = 0xfeedfacecafebeefu, b = 0x0123456789abcdefu;
    uint64_t got = 0;
    loop_shput(&sym[1], &a, peer, iters);
    loop_shputnbi(&sym[2], &b, peer, iters);
    shmem_quiet();
    loop_shget(&got, &sym[0], peer, iters);
    if (got != 0x2222222222222222u) {
      fprintf(stderr, "shmem-opcount: shmem_getmem read %#llx\n", (unsigned long long)got);
      failed = 1;
    }
  }
  shmem_barrier_all();
  if (me == 1 && (sym[1] != 0xfeedfacecafebeefu || sym[2] != 0x0123456789abcdefu)) {
    fprintf(stderr, "shmem-opcount: the puts left %#llx %#llx\n", (unsigned long long)sym[1],
            (unsigned long long)sym[2]);
    failed = 1;
  }
  if (failed) shmem_global_exit(1);
  shmem_barrier_all();
  if (me == 0) printf("PASS shmem-opcount (%ld iterations)\n", iters);
  shmem_free(sym);
  shmem_finalize();
  return 0;
}

/* t_shmem_rma.c -- put and get in every form, on the symmetric heap and on
 * static data, to every PE; each byte moved is checked. */
#include "shmem_test.h"

#include <string.h>

#define N 1000
static long sbuf[N];          /* static symmetric data */
static int sint[64];
static uint64_t ssig;
static char sbytes[257];
static long sstride[2 * 24]; /* strided into static data */

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  long *hbuf = shmem_malloc(N * sizeof(long) * (size_t)n);
  long *src = malloc(N * sizeof(long));
  CHECK(hbuf && src, "allocation");
  uint64_t *hsig = shmem_calloc(1, sizeof(uint64_t));
  CHECK(hsig && *hsig == 0, "shmem_calloc");

  for (int round = 0; round < 3; round++) {
    /* 1. blocking long puts into my slot of every PE's heap buffer, and
     * the static buffer of the next PE */
    for (long i = 0; i < N; i++) src[i] = pat(me, i, round);
    for (int pe = 0; pe < n; pe++) shmem_long_put(hbuf + (size_t)me * N, src, N, pe);
    shmem_long_put(sbuf, src, N, (me + 1) % n);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
      for (long i = 0; i < N; i++)
        CHECK(hbuf[(size_t)pe * N + i] == pat(pe, i, round), "heap slot %d [%ld] = %ld", pe, i,
              hbuf[(size_t)pe * N + i]);
    int prev = (me + n - 1) % n;
    for (long i = 0; i < N; i++)
      CHECK(sbuf[i] == pat(prev, i, round), "static [%ld] = %ld", i, sbuf[i]);
    shmem_barrier_all();

    /* 2. blocking gets of the same from every PE (heap) and the next (static) */
    long *got = malloc(N * sizeof(long));
    for (int pe = 0; pe < n; pe++) {
      shmem_long_get(got, hbuf + (size_t)pe * N, N, pe);
      for (long i = 0; i < N; i++) CHECK(got[i] == pat(pe, i, round), "get heap %d %ld round %d: %ld want %ld", pe, i, round, got[i], pat(pe, i, round));
    }
    shmem_getmem(got, sbuf, N * sizeof(long), (me + 1) % n);
    for (long i = 0; i < N; i++) CHECK(got[i] == pat(me, i, round), "getmem static %ld", i);
    shmem_barrier_all(); /* every PE has read before the next step writes */

    /* 3. nbi puts and gets, completed by quiet */
    for (long i = 0; i < N; i++) src[i] = -pat(me, i, round);
    for (int pe = 0; pe < n; pe++) shmem_putmem_nbi(hbuf + (size_t)me * N, src, N * sizeof(long), pe);
    shmem_quiet();
    shmem_barrier_all();
    long *got0 = malloc(N * sizeof(long));
    shmem_long_get_nbi(got, hbuf + (size_t)(n - 1) * N, N, (me + 1) % n);
    shmem_getmem_nbi(got0, hbuf, N * sizeof(long), (me + 1) % n);
    shmem_quiet();
    for (long i = 0; i < N; i++)
      CHECK(got[i] == -pat(n - 1, i, round) && got0[i] == -pat(0, i, round),
            "get_nbi [%ld] = %ld, %ld", i, got[i], got0[i]);
    free(got0);
    free(got);
    shmem_barrier_all();

    /* 4. single elements: p and g of several types, heap and static */
    int t = (me + 1) % n;
    shmem_int_p(&sint[me % 64], me * 3 + round, t);
    shmem_barrier_all();
    CHECK(sint[prev % 64] == prev * 3 + round, "int_p static: %d", sint[prev % 64]);
    CHECK(shmem_int_g(&sint[me % 64], t) == me * 3 + round, "int_g static");
    double *hd = (double *)(hbuf + (size_t)me * N);
    shmem_double_p(hd, 0.5 + me + round, t);
    shmem_quiet();
    CHECK(shmem_double_g(hd, t) == 0.5 + me + round, "double_g heap");
    shmem_barrier_all();

    /* 5. strided: every third element of my src into every second of the
     * next PE's slot (heap) and of its static array, and back with iget;
     * the elements in between keep their values */
    for (long i = 0; i < N; i++) {
      src[i] = pat(me, i, round + 10);
      hbuf[(size_t)prev * N + i] = -7; /* (prev writes this slot) */
    }
    for (int i = 0; i < 2 * 24; i++) sstride[i] = -7;
    shmem_barrier_all();
    shmem_long_iput(hbuf + (size_t)me * N, src, 2, 3, N / 3, t);
    shmem_long_iput(sstride, src + 1, 2, 1, 24, t);
    shmem_barrier_all();
    for (long i = 0; i < N / 3; i++) {
      CHECK(hbuf[(size_t)prev * N + 2 * i] == pat(prev, 3 * i, round + 10), "iput [%ld]", i);
      CHECK(hbuf[(size_t)prev * N + 2 * i + 1] == -7, "iput wrote between: [%ld]", 2 * i + 1);
    }
    for (int i = 0; i < 24; i++) {
      CHECK(sstride[2 * i] == pat(prev, 1 + i, round + 10), "iput static [%d]", i);
      CHECK(sstride[2 * i + 1] == -7, "iput static wrote between: [%d]", 2 * i + 1);
    }
    long *back = calloc(N, sizeof(long));
    shmem_long_iget(back, hbuf + (size_t)me * N, 3, 2, N / 3, t);
    for (long i = 0; i < N / 3; i++) {
      CHECK(back[3 * i] == pat(me, 3 * i, round + 10), "iget %ld", i);
      CHECK(back[3 * i + 1] == 0 && back[3 * i + 2] == 0, "iget wrote between: %ld", i);
    }
    long sback[24];
    shmem_long_iget(sback, sstride, 1, 2, 24, t);
    for (int i = 0; i < 24; i++) CHECK(sback[i] == pat(me, 1 + i, round + 10), "iget static %d", i);
    free(back);
    shmem_barrier_all();

    /* 6. sized: put32/64/128 and bytes of odd lengths into static data */
    char bytes[257];
    for (int i = 0; i < 257; i++) bytes[i] = (char)(me * 31 + i + round);
    shmem_putmem(sbytes, bytes, 257, t);
    uint32_t w32[5] = {1u + (unsigned)me, 2, 3, 4, 5};
    shmem_put32((char *)(hbuf + (size_t)me * N) + 4, w32, 5, t);
    shmem_barrier_all();
    for (int i = 0; i < 257; i++) CHECK(sbytes[i] == (char)(prev * 31 + i + round), "bytes %d", i);
    uint32_t r32[5];
    memcpy(r32, (char *)(hbuf + (size_t)prev * N) + 4, sizeof r32);
    CHECK(r32[0] == 1u + (unsigned)prev && r32[4] == 5, "put32: %u %u", r32[0], r32[4]);
    shmem_barrier_all();

    /* 7. put with signal: data to the next PE, then its signal (heap and
     * static signal objects); the receiver waits for the signal only */
    for (long i = 0; i < N; i++) src[i] = pat(me, i, round + 20);
    shmem_long_put_signal(hbuf + (size_t)me * N, src, N, hsig, (uint64_t)round + 1,
                          SHMEM_SIGNAL_SET, t);
    shmem_putmem_signal_nbi(sbuf, src, N * sizeof(long), &ssig, 1, SHMEM_SIGNAL_ADD, t);
    uint64_t s = shmem_signal_wait_until(hsig, SHMEM_CMP_EQ, (uint64_t)round + 1);
    CHECK(s == (uint64_t)round + 1, "signal %llu", (unsigned long long)s);
    for (long i = 0; i < N; i++)
      CHECK(hbuf[(size_t)prev * N + i] == pat(prev, i, round + 20), "put_signal data %ld", i);
    shmem_uint64_wait_until(&ssig, SHMEM_CMP_GE, (uint64_t)round + 1);
    CHECK(shmem_signal_fetch(&ssig) == (uint64_t)round + 1, "static signal add");
    for (long i = 0; i < N; i++)
      CHECK(sbuf[i] == pat(prev, i, round + 20), "put_signal_nbi data %ld", i);
    shmem_quiet();
    shmem_barrier_all();
  }

  /* The inline forms (shmem/shmem_inline.h) at the heap's edges, and the
   * library's functions through pointers: 8 bytes into the first and the
   * last word of every PE's last block of the heap, then read back from
   * every PE, and a get from this PE itself. */
  {
    const size_t words = 4096;
    uint64_t *edge = shmem_calloc(words, sizeof *edge);
    CHECK(edge, "shmem_calloc of the edge block");
    void (*fput)(void *, const void *, size_t, int) = shmem_putmem;
    void (*fget)(void *, const void *, size_t, int) = shmem_getmem;
    const uint64_t v = 0xa5a5000000000000u + (uint64_t)me;
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
      shmem_putmem(&edge[0], &v, sizeof v, pe);   /* (each PE writes its own word 0 ...) */
      if (pe == (me + 1) % n) fput(&edge[words - 1], &v, sizeof v, pe);
      shmem_putmem_nbi(&edge[1 + (size_t)me], &v, sizeof v, pe);
    }
    shmem_quiet();
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
      uint64_t w0 = 0, last = 0, w = 0;
      shmem_getmem(&w, &edge[1 + (size_t)pe], sizeof w, (pe + 1) % n);
      CHECK(w == 0xa5a5000000000000u + (uint64_t)pe, "inline get of %d's word from %d: %llx", pe,
            (pe + 1) % n, (unsigned long long)w);
      fget(&last, &edge[words - 1], sizeof last, pe);
      CHECK(last == 0xa5a5000000000000u + (uint64_t)((pe + n - 1) % n),
            "the heap block's last word on PE %d: %llx", pe, (unsigned long long)last);
      shmem_getmem_nbi(&w0, &edge[0], sizeof w0, pe);
      shmem_quiet();
      CHECK((w0 >> 48) == 0xa5a5u && (w0 & 0xffff) < (uint64_t)n, "word 0 of PE %d: %llx", pe,
            (unsigned long long)w0);
    }
    uint64_t self = 0;
    shmem_getmem(&self, &edge[1 + (size_t)me], sizeof self, me);
    CHECK(self == v, "a get from this PE itself: %llx", (unsigned long long)self);
    shmem_barrier_all();
    shmem_free(edge);
  }

  /* shmem_ptr: non-NULL exactly for the heap of PEs in the shared team */
  int shared = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  int mapped = 0;
  for (int pe = 0; pe < n; pe++) {
    long *p = shmem_ptr(hbuf, pe);
    if (p) {
      mapped++;
      CHECK(p[(size_t)pe * N] == hbuf[(size_t)pe * N] || pe != me, "shmem_ptr");
    }
    CHECK(shmem_addr_accessible(hbuf, pe) && shmem_addr_accessible(sbuf, pe), "accessible");
  }
  CHECK(mapped == shared, "shmem_ptr mapped %d PEs, shared team has %d", mapped, shared);
  CHECK(!shmem_addr_accessible(src, 0), "a malloc'd buffer is not symmetric");
  free(src);
  shmem_free(hsig);
  shmem_free(hbuf);
  pass("t_shmem_rma");
  shmem_finalize();
  return 0;
}

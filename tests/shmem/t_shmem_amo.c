/* t_shmem_amo.c -- every atomic family, on the heap and on static data,
 * 32- and 64-bit, integer and floating; contended and checked by totals. */
#include "shmem_test.h"

#include <string.h>

#define ITER 200
static long s_long;
static int s_int;
static unsigned long long s_ull;
static uint32_t s_u32;
static float s_flt;
static double s_dbl;
static long s_cas;
static unsigned int s_bits;

static long psum(long v) { /* the sum over all PEs */
  static long in, out;
  in = v;
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &out, &in, 1);
  return out;
}

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes(), t = (me + 1) % n, prev = (me + n - 1) % n;
  long *h = shmem_calloc(16, sizeof(long));
  int *hi = shmem_calloc(16, sizeof(int));
  double *hd = shmem_calloc(4, sizeof(double));
  unsigned long *hu = shmem_calloc(4, sizeof(unsigned long));
  CHECK(h && hi && hd && hu, "shmem_calloc");

  /* 1. contended fetch-add and fetch-inc at PE 0, heap and static: each
   * PE's fetched values rise, and the totals are exact */
  long last_h = -1, last_s = -1;
  int last_i = -1, last_si = -1;
  for (int k = 0; k < ITER; k++) {
    long a = shmem_long_atomic_fetch_add(&h[0], 1, 0);
    long b = shmem_long_atomic_fetch_inc(&s_long, 0);
    int c = shmem_int_atomic_fetch_inc(&hi[0], 0);
    int d = shmem_int_atomic_fetch_add(&s_int, 2, 0);
    CHECK(a > last_h && b > last_s && c > last_i && d > last_si, "fetched values fall");
    last_h = a, last_s = b, last_i = c, last_si = d;
    shmem_ulonglong_atomic_add(&s_ull, 3, t);
    shmem_uint32_atomic_inc(&s_u32, t);
  }
  shmem_barrier_all();
  if (me == 0) {
    CHECK(h[0] == (long)n * ITER && s_long == (long)n * ITER, "totals %ld %ld", h[0], s_long);
    CHECK(hi[0] == n * ITER && s_int == 2 * n * ITER, "int totals %d %d", hi[0], s_int);
  }
  CHECK(s_ull == 3ull * ITER && s_u32 == ITER, "add/inc from the previous PE: %llu %u", s_ull,
        s_u32);
  CHECK(shmem_long_atomic_fetch(&h[0], 0) == (long)n * ITER, "atomic_fetch heap");
  CHECK(shmem_int_atomic_fetch(&s_int, 0) == 2 * n * ITER, "atomic_fetch static");

  /* 2. compare-and-swap: exactly one PE wins each object */
  int won_h = shmem_long_atomic_compare_swap(&h[1], 0, me + 1, 0) == 0;
  int won_s = shmem_long_atomic_compare_swap(&s_cas, 0, me + 1, n - 1) == 0;
  CHECK(psum(won_h) == 1 && psum(won_s) == 1, "compare_swap winners");
  if (me == 0) CHECK(h[1] >= 1 && h[1] <= n, "cas value %ld", h[1]);

  /* 3. swap: the old values and the last one are 0..n, each once */
  long old = shmem_long_atomic_swap(&h[2], me + 1, 0);
  shmem_barrier_all();
  long fin = shmem_long_atomic_fetch(&h[2], 0);
  CHECK(psum(old) + fin == (long)n * (n + 1) / 2, "swap: olds and last do not add up");

  /* 4. set and fetch, floating: heap and static, to the next PE */
  shmem_double_atomic_set(&hd[0], me + 0.25, t);
  shmem_float_atomic_set(&s_flt, (float)me + 0.5f, t);
  shmem_barrier_all();
  CHECK(hd[0] == prev + 0.25 && s_flt == (float)prev + 0.5f, "float set %g %g", hd[0],
        (double)s_flt);
  CHECK(shmem_double_atomic_fetch(&hd[0], t) == me + 0.25, "double fetch");
  double was = shmem_double_atomic_swap(&s_dbl, 1.5 * me, me);
  CHECK(was == 0.0 && s_dbl == 1.5 * me, "double swap on self");
  shmem_barrier_all();

  /* 5. bitwise: each PE sets its bit at PE 0, clears it in a word of all
   * ones, toggles it twice */
  if (me == 0) {
    hu[1] = ~0ul;
    s_bits = ~0u;
  }
  shmem_barrier_all();
  unsigned long bit = 1ul << (me % 64);
  shmem_ulong_atomic_or(&hu[0], bit, 0);
  unsigned long before = shmem_ulong_atomic_fetch_and(&hu[1], ~bit, 0);
  CHECK(before & bit, "fetch_and: my bit was already clear");
  shmem_uint_atomic_and(&s_bits, ~(1u << (me % 32)), 0);
  shmem_ulong_atomic_xor(&hu[2], bit, 0);
  shmem_ulong_atomic_fetch_xor(&hu[2], bit, 0);
  unsigned long f_or = shmem_ulong_atomic_fetch_or(&hu[3], bit, 0);
  (void)f_or;
  shmem_barrier_all();
  if (me == 0) {
    unsigned long all = 0;
    for (int pe = 0; pe < n; pe++) all |= 1ul << (pe % 64);
    CHECK(hu[0] == all && hu[1] == ~all && hu[2] == 0 && hu[3] == all, "bitwise %lx %lx %lx",
          hu[0], hu[1], hu[2]);
    unsigned int all32 = 0;
    for (int pe = 0; pe < n; pe++) all32 |= 1u << (pe % 32);
    CHECK(s_bits == ~all32, "static and %x", s_bits);
  }

  /* 6. the _nbi fetching forms: results land by quiet */
  long res[16];
  for (int k = 0; k < 16; k++) shmem_long_atomic_fetch_add_nbi(&res[k], &h[3], 1, t);
  int ires[4];
  shmem_int_atomic_fetch_inc_nbi(&ires[0], &s_int, t);
  shmem_int_atomic_fetch_nbi(&ires[1], &hi[0], 0);
  shmem_int_atomic_compare_swap_nbi(&ires[2], &hi[2], 0, 5, t);
  shmem_int_atomic_swap_nbi(&ires[3], &hi[3], 9, t);
  shmem_quiet();
  long seen = 0;
  for (int k = 0; k < 16; k++) {
    CHECK(res[k] >= 0 && res[k] < 16, "fetch_add_nbi result %ld", res[k]);
    seen |= 1L << res[k];
  }
  CHECK(seen == 0xffff, "fetch_add_nbi results are not 0..15: %lx", seen);
  CHECK(ires[1] == n * ITER && ires[2] == 0 && ires[3] == 0, "nbi fetch/cswap/swap %d %d %d",
        ires[1], ires[2], ires[3]);
  shmem_barrier_all();
  CHECK(hi[2] == 5 && hi[3] == 9, "nbi cswap/swap landed: %d %d", hi[2], hi[3]);

  /* 7. the 1.3 names and the C11 generic ones */
  long f = shmem_long_fadd(&h[4], 2, 0);
  (void)f;
  shmem_int_inc(&hi[4], 0);
  shmem_atomic_add(&h[5], 3L, 0);
  int g = shmem_atomic_fetch_inc(&hi[5], 0);
  (void)g;
  shmem_barrier_all();
  if (me == 0)
    CHECK(h[4] == 2L * n && hi[4] == n && h[5] == 3L * n && hi[5] == n, "old/generic names");

  /* 8. the deprecated generic names (1.4, still in 1.5), at PE 0: every
   * fetched value and the totals */
  {
    long long *hl = shmem_calloc(1, sizeof(long long));
    CHECK(hl, "shmem_calloc");
    long v = shmem_fadd(&h[6], 2L, 0);
    int w = shmem_finc(&hi[6], 0);
    CHECK(v >= 0 && v % 2 == 0 && v < 2L * n && w >= 0 && w < n, "fadd/finc fetched %ld %d", v, w);
    shmem_add(hl, 5LL, 0);
    shmem_inc(&hi[7], 0);
    shmem_barrier_all();
    if (me == 0)
      CHECK(h[6] == 2L * n && hi[6] == n && *hl == 5LL * n && hi[7] == n,
            "deprecated generic adds: %ld %d %lld %d", h[6], hi[6], *hl, hi[7]);
    shmem_barrier_all();
    if (me == n - 1) {
      CHECK(shmem_cswap(&hi[8], 0, 41, 0) == 0, "cswap fetched");
      CHECK(shmem_swap(&hd[2], 2.5, 0) == 0.0, "swap fetched");
      shmem_set(&h[9], 77L, 0);
      shmem_quiet(); /* (a non-fetching atomic completes by it) */
      CHECK(shmem_fetch(&h[9], 0) == 77L && shmem_fetch(&hi[8], 0) == 41 &&
                shmem_fetch((const double *)&hd[2], 0) == 2.5,
            "set/fetch/cswap/swap landed");
    }
    shmem_barrier_all();
    shmem_free(hl);
  }

  shmem_free(hu);
  shmem_free(hd);
  shmem_free(hi);
  shmem_free(h);
  pass("t_shmem_amo");
  shmem_finalize();
  return 0;
}

/* t_shmem_sync.c -- point-to-point synchronization (wait_until and test in
 * every form), fence and quiet ordering, distributed locks, contexts, and
 * the symmetric heap's allocator. */
#include "shmem_test.h"

#include <string.h>

#define NV 8
static int s_flags[NV];
static long s_lock;
static long s_count;

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes(), t = (me + 1) % n, prev = (me + n - 1) % n;
  long *hv = shmem_calloc(NV, sizeof(long));
  long *data = shmem_calloc(64, sizeof(long));
  CHECK(hv && data, "calloc");

  /* 1. wait_until on a flag set after data (fence orders them) */
  for (int round = 1; round <= 3; round++) {
    for (int i = 0; i < 64; i++) shmem_long_p(&data[i], round * 1000 + me, t);
    shmem_fence();
    shmem_long_p(&hv[0], round, t);
    shmem_long_wait_until(&hv[0], SHMEM_CMP_GE, round);
    for (int i = 0; i < 64; i++)
      CHECK(data[i] == round * 1000 + prev, "data before flag: [%d] = %ld", i, data[i]);
    shmem_barrier_all();
  }

  /* 2. the array forms: the previous PE sets flags 0..NV-1 in order,
   * static data; wait_until_any/some/all and the tests see them */
  CHECK(shmem_int_test(&s_flags[0], SHMEM_CMP_EQ, 1) == 0, "test before the put");
  CHECK(shmem_int_test_any(s_flags, NV, NULL, SHMEM_CMP_EQ, 1) == SIZE_MAX, "test_any empty");
  size_t idx[NV];
  CHECK(shmem_int_test_some(s_flags, NV, idx, NULL, SHMEM_CMP_EQ, 1) == 0, "test_some empty");
  shmem_barrier_all();
  shmem_int_p(&s_flags[3], 1, t);
  size_t got = shmem_int_wait_until_any(s_flags, NV, NULL, SHMEM_CMP_EQ, 1);
  CHECK(got == 3, "wait_until_any: %zu", got);
  int status[NV] = {0};
  status[3] = 1; /* excluded */
  CHECK(shmem_int_test_any(s_flags, NV, status, SHMEM_CMP_EQ, 1) == SIZE_MAX, "status mask");
  shmem_barrier_all();
  for (int i = 0; i < NV; i++) shmem_int_p(&s_flags[i], 1, t);
  shmem_int_wait_until_all(s_flags, NV, NULL, SHMEM_CMP_EQ, 1);
  CHECK(shmem_int_test_all(s_flags, NV, NULL, SHMEM_CMP_EQ, 1) == 1, "test_all");
  size_t k = shmem_int_wait_until_some(s_flags, NV, idx, NULL, SHMEM_CMP_EQ, 1);
  CHECK(k == NV && idx[0] == 0 && idx[NV - 1] == NV - 1, "wait_until_some: %zu", k);
  int vals[NV];
  for (int i = 0; i < NV; i++) vals[i] = 1;
  vals[2] = 2;
  CHECK(shmem_int_test_all_vector(s_flags, NV, NULL, SHMEM_CMP_EQ, vals) == 0, "vector all");
  CHECK(shmem_int_test_any_vector(s_flags, NV, NULL, SHMEM_CMP_NE, vals) == 2, "vector any");
  shmem_int_wait_until_all_vector(s_flags, NV, NULL, SHMEM_CMP_LE, vals);
  CHECK(shmem_int_wait_until_some_vector(s_flags, NV, idx, NULL, SHMEM_CMP_LT, vals) == 1 &&
        idx[0] == 2, "some_vector");
  shmem_barrier_all();

  /* 2b. repeated test_any calls return every element that satisfies, not
   * only the first (all are set now) */
  int seen[NV] = {0}, nseen = 0;
  for (int r = 0; r < 10 * NV && nseen < NV; r++) {
    size_t i = shmem_int_test_any(s_flags, NV, NULL, SHMEM_CMP_EQ, 1);
    CHECK(i < NV, "test_any: %zu", i);
    if (!seen[i]) seen[i] = 1, nseen++;
  }
  CHECK(nseen == NV, "test_any returned %d of the %d elements", nseen, NV);

  /* 2c. a loop of atomic fetches of this PE's own static object sees the
   * previous PE's atomic set (the fetch makes progress) */
  static int s_spin = -1;
  shmem_barrier_all();
  shmem_int_atomic_set(&s_spin, me + 1, t);
  while (shmem_int_atomic_fetch(&s_spin, me) < 0) {
  }
  CHECK(s_spin == prev + 1, "spin on own object: %d", s_spin);
  shmem_barrier_all();

  /* 2d. a loop of tests that holds while the flag is unchanged -- no other
   * call -- sees the previous PE's put change it (every test polls) */
  static int s_change;
  shmem_barrier_all();
  shmem_int_p(&s_change, me + 100, t);
  while (shmem_int_test(&s_change, SHMEM_CMP_EQ, 0)) {
  }
  CHECK(s_change == prev + 100, "test loop saw %d", s_change);
  shmem_barrier_all();

  /* 3. every comparison */
  hv[1] = 5;
  CHECK(shmem_long_test(&hv[1], SHMEM_CMP_EQ, 5) && shmem_long_test(&hv[1], SHMEM_CMP_NE, 4) &&
        shmem_long_test(&hv[1], SHMEM_CMP_GT, 4) && shmem_long_test(&hv[1], SHMEM_CMP_GE, 5) &&
        shmem_long_test(&hv[1], SHMEM_CMP_LT, 6) && shmem_long_test(&hv[1], SHMEM_CMP_LE, 5) &&
        !shmem_long_test(&hv[1], SHMEM_CMP_GT, 5),
        "comparisons");
  shmem_wait_until(&hv[1], SHMEM_CMP_EQ, 5L); /* the C11 generic name */

  /* 4. a lock: each PE adds to a counter at PE 0 with a get and a put
   * (not atomic) inside the critical section */
  for (int r = 0; r < 20; r++) {
    shmem_set_lock(&s_lock);
    long c = shmem_long_g(&s_count, 0);
    shmem_long_p(&s_count, c + 1, 0);
    shmem_clear_lock(&s_lock);
  }
  shmem_barrier_all();
  if (me == 0) CHECK(s_count == 20L * n, "counter under the lock: %ld", s_count);
  int held = shmem_test_lock(&s_lock);
  if (!held) shmem_clear_lock(&s_lock);
  shmem_barrier_all();

  /* 5. contexts: a private context's puts complete by its quiet */
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0 && ctx != SHMEM_CTX_INVALID, "ctx");
  long src[64]; /* an nbi put's source stays untouched until the quiet */
  for (int i = 0; i < 64; i++) src[i] = i * 3 + me;
  for (int i = 0; i < 64; i++) shmem_ctx_long_put_nbi(ctx, &data[i], &src[i], 1, t);
  shmem_ctx_quiet(ctx);
  shmem_ctx_destroy(ctx);
  shmem_barrier_all();
  for (int i = 0; i < 64; i++) CHECK(data[i] == i * 3 + prev, "ctx put [%d]", i);

  /* 6. the allocator: align, realloc keeps the bytes, frees coalesce so a
   * big block fits again */
  char *a = shmem_align(4096, 100);
  CHECK(a && ((uintptr_t)a % 4096) == 0, "align");
  for (size_t al = 1 << 16; al <= (16u << 20); al <<= 1) { /* aligned as an address */
    char *a2 = shmem_align(al, 100);
    CHECK(a2 && ((uintptr_t)a2 % al) == 0, "align %zu: %p", al, (void *)a2);
    shmem_free(a2);
  }
  memset(a, 0x5a, 100);
  char *b = shmem_realloc(a, 10000);
  CHECK(b, "realloc");
  for (int i = 0; i < 100; i++) CHECK(b[i] == 0x5a, "realloc kept byte %d", i);
  shmem_putmem(b + 5000, "xyz", 3, t);
  shmem_barrier_all();
  CHECK(!memcmp(b + 5000, "xyz", 3), "put into the reallocated block");
  void *blocks[16];
  for (int i = 0; i < 16; i++) blocks[i] = shmem_malloc(1 << 16);
  for (int i = 0; i < 16; i += 2) shmem_free(blocks[i]);
  for (int i = 1; i < 16; i += 2) shmem_free(blocks[i]);
  void *big = shmem_malloc(1 << 20);
  CHECK(big, "a 1 MiB block after freeing 16 of 64 KiB");
  CHECK(shmem_malloc(0) == NULL, "malloc(0)");
  CHECK(shmem_malloc((size_t)1 << 40) == NULL, "a block larger than the heap");
  shmem_free(big);
  shmem_free(b);
  /* realloc in place: the largest block the heap holds (found by halving)
   * shrinks to half and grows back, where moving it could not; the bytes
   * stay */
  size_t lo = 0, hi = (size_t)1 << 40;
  while (hi - lo > 4096) {
    size_t mid = lo + (hi - lo) / 2;
    void *m = shmem_malloc(mid);
    if (m) lo = mid; else hi = mid;
    shmem_free(m);
  }
  char *whole = shmem_malloc(lo);
  CHECK(whole && lo > (1 << 20), "the largest block (%zu bytes)", lo);
  memset(whole, 0x3c, 4096);
  char *half = shmem_realloc(whole, lo / 2);
  CHECK(half == whole, "shrinking the largest block in place");
  char *again = shmem_realloc(half, lo);
  CHECK(again == whole, "growing it back into its freed tail");
  for (int i = 0; i < 4096; i++) CHECK(again[i] == 0x3c, "realloc in place kept byte %d", i);
  shmem_free(again);
  shmem_free(data);
  shmem_free(hv);

  /* 7. queries */
  int major, minor;
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_version(&major, &minor);
  shmem_info_get_name(name);
  CHECK(major == 1 && minor == 5 && strlen(name) > 0, "info");
  int prov;
  CHECK(shmem_query_thread(&prov) == 0 && prov >= SHMEM_THREAD_SINGLE, "query_thread");
  CHECK(shmem_pe_accessible(n - 1) && !shmem_pe_accessible(n), "pe_accessible");
  pass("t_shmem_sync");
  shmem_finalize();
  return 0;
}

/* src/shmem/shmem_sync.c -- ordering and completion (fence, quiet), the
 * point-to-point synchronization families (wait_until, test, signals),
 * the world barriers and the distributed locks.
 *
 * Waits read the local object with acquire loads and make progress between
 * reads (gasnet_AMPoll, which yields the CPU after a run of empty polls):
 * a put from a PE on this host stores into the object directly, one from
 * another host is written by this PE's progress.
 */
#include "shmem/shmem_internal.h"

/* Every put, get and atomic of this PE complete: libgex's implicit
 * operations, then the atomics on static data. */
void gexs_quiet_all(void) {
  gex_NBI_Wait(GEX_EC_ALL, 0);
  gexs_amo_quiet();
  atomic_thread_fence(memory_order_seq_cst);
}

/* libgex does not promise that two puts to one PE arrive in order, so a
 * fence is a quiet. */
GEXS_PROFILED(shmem_ctx_fence)
void shmem_ctx_fence(shmem_ctx_t ctx) {
  (void)ctx;
  GEXS_NEED_INIT("shmem_fence");
  gexs_quiet_all();
}
GEXS_PROFILED(shmem_fence)
void shmem_fence(void) { pshmem_ctx_fence(SHMEM_CTX_DEFAULT); }
GEXS_PROFILED(shmem_ctx_quiet)
void shmem_ctx_quiet(shmem_ctx_t ctx) {
  (void)ctx;
  GEXS_NEED_INIT("shmem_quiet");
  gexs_quiet_all();
}
GEXS_PROFILED(shmem_quiet)
void shmem_quiet(void) { pshmem_ctx_quiet(SHMEM_CTX_DEFAULT); }

GEXS_PROFILED(shmem_barrier_all)
void shmem_barrier_all(void) {
  GEXS_NEED_INIT("shmem_barrier_all");
  gexs_quiet_all();
  gex_Event_Wait(gex_Coll_BarrierNB(gexs.world, 0));
}
GEXS_PROFILED(shmem_sync_all)
void shmem_sync_all(void) {
  GEXS_NEED_INIT("shmem_sync_all");
  gex_Event_Wait(gex_Coll_BarrierNB(gexs.world, 0));
}

/* ---- comparisons ---- */
#define CMP(cmp, a, b)                                                            \
  ((cmp) == SHMEM_CMP_EQ   ? (a) == (b)                                           \
   : (cmp) == SHMEM_CMP_NE ? (a) != (b)                                           \
   : (cmp) == SHMEM_CMP_GT ? (a) > (b)                                            \
   : (cmp) == SHMEM_CMP_LE ? (a) <= (b)                                           \
   : (cmp) == SHMEM_CMP_LT ? (a) < (b)                                            \
                           : (a) >= (b))
static void check_cmp(const char *call, int cmp) {
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_GE)
    gexs_fatal(call, "cmp %d is not one of SHMEM_CMP_*", cmp);
}
#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)

#define GEXS_DEF_P2P(TYPE, NAME)                                                          \
  GEXS_PROFILED(shmem_##NAME##_test)                                                      \
  int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE v) {                                  \
    check_cmp("shmem_" #NAME "_test", cmp);                                               \
    gexs_poll();                                                                          \
    return CMP(cmp, LOAD(ivar), v);                                                       \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_wait_until)                                                \
  void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE v) {                           \
    check_cmp("shmem_" #NAME "_wait_until", cmp);                                         \
    GEXS_WAIT_WHILE(!CMP(cmp, LOAD(ivar), v));                                            \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_wait)                                                      \
  void shmem_##NAME##_wait(TYPE *ivar, TYPE v) {                                          \
    pshmem_##NAME##_wait_until(ivar, SHMEM_CMP_NE, v);                                    \
  }                                                                                       \
  /* Vector forms: vs[i] (vector) or *vs (one value for all: step 0). */                 \
  static int NAME##_all(TYPE *iv, size_t n, const int *st, int cmp, const TYPE *vs,       \
                        size_t step) {                                                    \
    for (size_t i = 0; i < n; i++)                                                        \
      if (!(st && st[i]) && !CMP(cmp, LOAD(&iv[i]), vs[i * step])) return 0;              \
    return 1;                                                                             \
  }                                                                                       \
  /* From where the thread's last call left off, so that repeated calls   \
   * return every element that satisfies. */                                             \
  static size_t NAME##_any(TYPE *iv, size_t n, const int *st, int cmp, const TYPE *vs,    \
                           size_t step) {                                                 \
    for (size_t k = 0; k < n; k++) {                                                      \
      size_t i = (gexs_tls.any_next + k) % n;                                             \
      if (!(st && st[i]) && CMP(cmp, LOAD(&iv[i]), vs[i * step])) {                       \
        gexs_tls.any_next = i + 1;                                                        \
        return i;                                                                         \
      }                                                                                   \
    }                                                                                     \
    return SIZE_MAX;                                                                      \
  }                                                                                       \
  static size_t NAME##_some(TYPE *iv, size_t n, size_t *idx, const int *st, int cmp,      \
                            const TYPE *vs, size_t step) {                                \
    size_t k = 0;                                                                         \
    for (size_t i = 0; i < n; i++)                                                        \
      if (!(st && st[i]) && CMP(cmp, LOAD(&iv[i]), vs[i * step])) idx[k++] = i;           \
    return k;                                                                             \
  }                                                                                       \
  static int NAME##_active(size_t n, const int *st) {                                     \
    for (size_t i = 0; i < n; i++)                                                        \
      if (!(st && st[i])) return 1;                                                       \
    return 0;                                                                             \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_test_all)                                                  \
  int shmem_##NAME##_test_all(TYPE *iv, size_t n, const int *st, int cmp, TYPE v) {       \
    check_cmp("shmem_" #NAME "_test_all", cmp);                                           \
    gexs_poll();                                                                          \
    return NAME##_all(iv, n, st, cmp, &v, 0);                                             \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_test_all_vector)                                           \
  int shmem_##NAME##_test_all_vector(TYPE *iv, size_t n, const int *st, int cmp,          \
                                     TYPE *vs) {                                          \
    check_cmp("shmem_" #NAME "_test_all_vector", cmp);                                    \
    gexs_poll();                                                                          \
    return NAME##_all(iv, n, st, cmp, vs, 1);                                             \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_test_any)                                                  \
  size_t shmem_##NAME##_test_any(TYPE *iv, size_t n, const int *st, int cmp, TYPE v) {    \
    check_cmp("shmem_" #NAME "_test_any", cmp);                                           \
    gexs_poll();                                                                          \
    return NAME##_any(iv, n, st, cmp, &v, 0);                                             \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_test_any_vector)                                           \
  size_t shmem_##NAME##_test_any_vector(TYPE *iv, size_t n, const int *st, int cmp,       \
                                        TYPE *vs) {                                       \
    check_cmp("shmem_" #NAME "_test_any_vector", cmp);                                    \
    gexs_poll();                                                                          \
    return NAME##_any(iv, n, st, cmp, vs, 1);                                             \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_test_some)                                                 \
  size_t shmem_##NAME##_test_some(TYPE *iv, size_t n, size_t *idx, const int *st,         \
                                  int cmp, TYPE v) {                                      \
    check_cmp("shmem_" #NAME "_test_some", cmp);                                          \
    gexs_poll();                                                                          \
    return NAME##_some(iv, n, idx, st, cmp, &v, 0);                                       \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_test_some_vector)                                          \
  size_t shmem_##NAME##_test_some_vector(TYPE *iv, size_t n, size_t *idx, const int *st,  \
                                         int cmp, TYPE *vs) {                             \
    check_cmp("shmem_" #NAME "_test_some_vector", cmp);                                   \
    gexs_poll();                                                                          \
    return NAME##_some(iv, n, idx, st, cmp, vs, 1);                                       \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_wait_until_all)                                             \
  void shmem_##NAME##_wait_until_all(TYPE *iv, size_t n, const int *st, int cmp, TYPE v) { \
    check_cmp("shmem_" #NAME "_wait_until_all", cmp);                                     \
    GEXS_WAIT_WHILE(!NAME##_all(iv, n, st, cmp, &v, 0));                                  \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_wait_until_all_vector)                                     \
  void shmem_##NAME##_wait_until_all_vector(TYPE *iv, size_t n, const int *st, int cmp,   \
                                            TYPE *vs) {                                   \
    check_cmp("shmem_" #NAME "_wait_until_all_vector", cmp);                              \
    GEXS_WAIT_WHILE(!NAME##_all(iv, n, st, cmp, vs, 1));                                  \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_wait_until_any)                                            \
  size_t shmem_##NAME##_wait_until_any(TYPE *iv, size_t n, const int *st, int cmp,        \
                                       TYPE v) {                                          \
    check_cmp("shmem_" #NAME "_wait_until_any", cmp);                                     \
    if (!NAME##_active(n, st)) return SIZE_MAX;                                           \
    size_t i;                                                                             \
    GEXS_WAIT_WHILE((i = NAME##_any(iv, n, st, cmp, &v, 0)) == SIZE_MAX);                 \
    return i;                                                                             \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_wait_until_any_vector)                                     \
  size_t shmem_##NAME##_wait_until_any_vector(TYPE *iv, size_t n, const int *st, int cmp, \
                                              TYPE *vs) {                                 \
    check_cmp("shmem_" #NAME "_wait_until_any_vector", cmp);                              \
    if (!NAME##_active(n, st)) return SIZE_MAX;                                           \
    size_t i;                                                                             \
    GEXS_WAIT_WHILE((i = NAME##_any(iv, n, st, cmp, vs, 1)) == SIZE_MAX);                 \
    return i;                                                                             \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_wait_until_some)                                           \
  size_t shmem_##NAME##_wait_until_some(TYPE *iv, size_t n, size_t *idx, const int *st,   \
                                        int cmp, TYPE v) {                                \
    check_cmp("shmem_" #NAME "_wait_until_some", cmp);                                    \
    if (!NAME##_active(n, st)) return 0;                                                  \
    size_t k;                                                                             \
    GEXS_WAIT_WHILE((k = NAME##_some(iv, n, idx, st, cmp, &v, 0)) == 0);                  \
    return k;                                                                             \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_wait_until_some_vector)                                    \
  size_t shmem_##NAME##_wait_until_some_vector(TYPE *iv, size_t n, size_t *idx,           \
                                               const int *st, int cmp, TYPE *vs) {        \
    check_cmp("shmem_" #NAME "_wait_until_some_vector", cmp);                             \
    if (!NAME##_active(n, st)) return 0;                                                  \
    size_t k;                                                                             \
    GEXS_WAIT_WHILE((k = NAME##_some(iv, n, idx, st, cmp, vs, 1)) == 0);                  \
    return k;                                                                             \
  }
GEXS_P2P_TYPES(GEXS_DEF_P2P)

/* The OpenSHMEM 1.3 names on long (the parentheses keep the C11 generic
 * macros of the same names out). */
GEXS_PROFILED(shmem_wait_until)
void(shmem_wait_until)(long *ivar, int cmp, long cmp_value) {
  pshmem_long_wait_until(ivar, cmp, cmp_value);
}
GEXS_PROFILED(shmem_wait)
void(shmem_wait)(long *ivar, long cmp_value) { pshmem_long_wait(ivar, cmp_value); }

/* ---- signals ---- */
GEXS_PROFILED(shmem_signal_fetch)
uint64_t shmem_signal_fetch(const uint64_t *sig_addr) {
  gexs_poll(); /* a loop of fetches waits for signals from other hosts */
  return LOAD(sig_addr);
}

GEXS_PROFILED(shmem_signal_wait_until)
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  check_cmp("shmem_signal_wait_until", cmp);
  uint64_t v;
  GEXS_WAIT_WHILE(!CMP(cmp, (v = LOAD(sig_addr)), cmp_value));
  return v;
}

/* ---- distributed locks: the lock word of PE 0 holds 0 (free) or the
 * holder's PE + 1; taking it is a compare-and-swap there. ---- */
static long lock_cswap(long *lock, long cond, long value) {
  return pshmem_long_atomic_compare_swap(lock, cond, value, 0);
}

GEXS_PROFILED(shmem_set_lock)
void shmem_set_lock(long *lock) {
  GEXS_NEED_INIT("shmem_set_lock");
  while (lock_cswap(lock, 0, (long)gexs.me + 1) != 0) gexs_poll();
}

GEXS_PROFILED(shmem_test_lock)
int shmem_test_lock(long *lock) {
  GEXS_NEED_INIT("shmem_test_lock");
  return lock_cswap(lock, 0, (long)gexs.me + 1) != 0;
}

GEXS_PROFILED(shmem_clear_lock)
void shmem_clear_lock(long *lock) {
  GEXS_NEED_INIT("shmem_clear_lock");
  gexs_quiet_all();
  long held = lock_cswap(lock, (long)gexs.me + 1, 0);
  if (held != (long)gexs.me + 1)
    gexs_fatal("shmem_clear_lock", "the lock at %p is not held by this PE (holder: %ld)",
               (void *)lock, held - 1);
}

/* src/shmem/shmem_active_set.c -- the collectives on an active set
 * (PE_start, logPE_stride, PE_size) with a pSync array: deprecated in
 * OpenSHMEM 1.5, still what many programs call.
 *
 * An active set is not a libgex team (only its members call, so no team
 * can be split for it).  Its synchronization uses the caller's pSync:
 *   pSync[0]  at the set's first PE: arrivals, added by the others;
 *   pSync[1]  at every other member: the first PE's release;
 *   pSync[2]  a member's element count during a collect.
 * Each waiter takes back what it waited for (an atomic add of the negated
 * count), so every element is SHMEM_SYNC_VALUE again when the call
 * returns and a release that arrives early is never lost.  The data
 * moves by gets from the members' symmetric sources between two such
 * synchronizations.
 */
#include "shmem/shmem_internal.h"

#include <stdlib.h>

struct aset {
  int start, stride, size, me; /* me: this PE's index in the set */
};

static struct aset aset_of(const char *call, int start, int log_stride, int size) {
  GEXS_NEED_INIT(call);
  struct aset a = {start, 0, size, -1};
  if (log_stride < 0 || log_stride > 30 || size < 1 || start < 0)
    gexs_fatal(call, "active set (PE_start %d, logPE_stride %d, PE_size %d) is not valid",
               start, log_stride, size);
  a.stride = 1 << log_stride;
  if ((long)start + (long)(size - 1) * a.stride >= gexs.npes)
    gexs_fatal(call, "active set (PE_start %d, logPE_stride %d, PE_size %d) exceeds the %d PEs",
               start, log_stride, size, gexs.npes);
  int d = gexs.me - start;
  if (d < 0 || d % a.stride || d / a.stride >= size)
    gexs_fatal(call, "this PE is not in the active set (PE_start %d, logPE_stride %d, PE_size "
               "%d)", start, log_stride, size);
  a.me = d / a.stride;
  return a;
}
static int pe_of(const struct aset *a, int i) { return a->start + i * a->stride; }

static void add(long *p, long v, int pe) {
  uint64_t u = (uint64_t)v;
  gexs_amo("shmem active set", p, pe, sizeof(long), GEXS_K_INT, GEX_OP_ADD, u, 0, NULL, 0);
}
static void wait_ge(long *p, long v) {
  GEXS_WAIT_WHILE(__atomic_load_n(p, __ATOMIC_ACQUIRE) < v);
}

static void aset_sync(const struct aset *a, long *pSync) {
  if (a->size == 1) return;
  int root = pe_of(a, 0);
  if (a->me == 0) {
    wait_ge(&pSync[0], a->size - 1);
    add(&pSync[0], -(long)(a->size - 1), gexs.me);
    for (int i = 1; i < a->size; i++) add(&pSync[1], 1, pe_of(a, i));
  } else {
    add(&pSync[0], 1, root);
    wait_ge(&pSync[1], 1);
    add(&pSync[1], -1, gexs.me);
  }
  gexs_quiet_all(); /* the adds are complete before anything else is done */
}

GEXS_PROFILED(shmem_sync)
void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync) {
  struct aset a = aset_of("shmem_sync", PE_start, logPE_stride, PE_size);
  aset_sync(&a, pSync);
}

GEXS_PROFILED(shmem_barrier)
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) {
  struct aset a = aset_of("shmem_barrier", PE_start, logPE_stride, PE_size);
  gexs_quiet_all();
  aset_sync(&a, pSync);
}

/* Broadcast: the members but the root read the root's source. */
static void bcast(const char *call, void *dest, const void *source, size_t nbytes, int root,
                  int start, int log_stride, int size, long *pSync) {
  struct aset a = aset_of(call, start, log_stride, size);
  if (root < 0 || root >= size) gexs_fatal(call, "PE_root %d is not in the active set", root);
  aset_sync(&a, pSync);
  if (a.me != root) gexs_get(call, dest, source, nbytes, pe_of(&a, root), 0);
  aset_sync(&a, pSync);
}

/* Gather: member i's block lands at offset off(i) in every dest.  With
 * 'variable', the offsets come from the members' counts in pSync[2], all
 * read at once (one round trip, not one per member); then every block is
 * read at once. */
static void gather(const char *call, void *dest, const void *source, size_t nbytes,
                   int variable, int start, int log_stride, int size, long *pSync) {
  struct aset a = aset_of(call, start, log_stride, size);
  if (variable) __atomic_store_n(&pSync[2], (long)nbytes, __ATOMIC_RELEASE);
  aset_sync(&a, pSync);
  long *counts = NULL;
  if (variable) {
    if (!(counts = malloc((size_t)size * sizeof *counts))) gexs_fatal(call, "out of memory");
    for (int i = 0; i < size; i++) {
      counts[i] = (long)nbytes;
      if (i != a.me) gexs_get(call, &counts[i], &pSync[2], sizeof *counts, pe_of(&a, i), 1);
    }
    gex_NBI_Wait(GEX_EC_GET, 0);
  }
  size_t off = 0;
  for (int i = 0; i < size; i++) {
    const size_t n = variable ? (size_t)counts[i] : nbytes;
    gexs_get(call, (char *)dest + off, source, n, pe_of(&a, i), 1);
    off += n;
  }
  free(counts);
  gexs_quiet_all();
  aset_sync(&a, pSync);
  if (variable) __atomic_store_n(&pSync[2], SHMEM_SYNC_VALUE, __ATOMIC_RELEASE);
}

/* All-to-all: this PE reads block me (sst apart) of each member's source
 * into its block i of dest (dst apart). */
static void exchange(const char *call, void *dest, const void *source, ptrdiff_t dst,
                     ptrdiff_t sst, size_t nelems, size_t sz, int start, int log_stride,
                     int size, long *pSync) {
  struct aset a = aset_of(call, start, log_stride, size);
  aset_sync(&a, pSync);
  for (int i = 0; i < size; i++) {
    char *d = (char *)dest + (size_t)i * nelems * (size_t)dst * sz;
    const char *s = (const char *)source + (size_t)a.me * nelems * (size_t)sst * sz;
    if (dst == 1 && sst == 1) { /* (alltoall: the block in one read) */
      gexs_get(call, d, s, nelems * sz, pe_of(&a, i), 1);
      continue;
    }
    for (size_t e = 0; e < nelems; e++)
      gexs_get(call, d + (ptrdiff_t)e * dst * (ptrdiff_t)sz,
               s + (ptrdiff_t)e * sst * (ptrdiff_t)sz, sz, pe_of(&a, i), 1);
  }
  gexs_quiet_all();
  aset_sync(&a, pSync);
}

#define GEXS_DEF_ASET(BITS)                                                                 \
  GEXS_PROFILED(shmem_broadcast##BITS)                                                      \
  void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,    \
                             int PE_start, int logPE_stride, int PE_size, long *pSync) {    \
    bcast("shmem_broadcast" #BITS, dest, source, nelems * (BITS / 8), PE_root, PE_start,    \
          logPE_stride, PE_size, pSync);                                                    \
  }                                                                                         \
  GEXS_PROFILED(shmem_collect##BITS)                                                        \
  void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                           int logPE_stride, int PE_size, long *pSync) {                    \
    gather("shmem_collect" #BITS, dest, source, nelems * (BITS / 8), 1, PE_start,           \
           logPE_stride, PE_size, pSync);                                                   \
  }                                                                                         \
  GEXS_PROFILED(shmem_fcollect##BITS)                                                       \
  void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                            int logPE_stride, int PE_size, long *pSync) {                   \
    gather("shmem_fcollect" #BITS, dest, source, nelems * (BITS / 8), 0, PE_start,          \
           logPE_stride, PE_size, pSync);                                                   \
  }                                                                                         \
  GEXS_PROFILED(shmem_alltoall##BITS)                                                       \
  void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                            int logPE_stride, int PE_size, long *pSync) {                   \
    exchange("shmem_alltoall" #BITS, dest, source, 1, 1, nelems, BITS / 8, PE_start,        \
             logPE_stride, PE_size, pSync);                                                 \
  }                                                                                         \
  GEXS_PROFILED(shmem_alltoalls##BITS)                                                      \
  void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,  \
                             size_t nelems, int PE_start, int logPE_stride, int PE_size,    \
                             long *pSync) {                                                 \
    exchange("shmem_alltoalls" #BITS, dest, source, dst, sst, nelems, BITS / 8, PE_start,   \
             logPE_stride, PE_size, pSync);                                                 \
  }
GEXS_DEF_ASET(32)
GEXS_DEF_ASET(64)

/* Reductions: every member reads every member's source, in set order (so
 * all get the same floating-point result), then writes dest once all have
 * read (dest may be the source). */
#define GEXS_DEF_TOALL(TYPE, NAME, OP, EXPR)                                                \
  GEXS_PROFILED(shmem_##NAME##_##OP##_to_all)                                               \
  void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce,            \
                                    int PE_start, int logPE_stride, int PE_size,            \
                                    TYPE *pWrk, long *pSync) {                              \
    const char *call = "shmem_" #NAME "_" #OP "_to_all";                                    \
    (void)pWrk;                                                                             \
    struct aset a = aset_of(call, PE_start, logPE_stride, PE_size);                         \
    size_t n = nreduce > 0 ? (size_t)nreduce : 0;                                           \
    TYPE *acc = malloc((n ? n : 1) * sizeof(TYPE)), *in = malloc((n ? n : 1) * sizeof(TYPE)); \
    if (!acc || !in) gexs_fatal(call, "out of memory");                                     \
    aset_sync(&a, pSync);                                                                   \
    for (int m = 0; m < PE_size; m++) {                                                     \
      TYPE *into = m == 0 ? acc : in;                                                       \
      gexs_get(call, into, source, n * sizeof(TYPE), pe_of(&a, m), 0);                      \
      if (m > 0)                                                                            \
        for (size_t i = 0; i < n; i++) {                                                    \
          TYPE x = in[i], y = acc[i];                                                       \
          acc[i] = EXPR;                                                                    \
        }                                                                                   \
    }                                                                                       \
    aset_sync(&a, pSync);                                                                   \
    memcpy(dest, acc, n * sizeof(TYPE));                                                    \
    free(acc);                                                                              \
    free(in);                                                                               \
  }
#define GEXS_DEF_TOALL_BIT(TYPE, NAME)                                                      \
  GEXS_DEF_TOALL(TYPE, NAME, and, (TYPE)(x & y))                                            \
  GEXS_DEF_TOALL(TYPE, NAME, or, (TYPE)(x | y))                                             \
  GEXS_DEF_TOALL(TYPE, NAME, xor, (TYPE)(x ^ y))
#define GEXS_DEF_TOALL_CMP(TYPE, NAME)                                                      \
  GEXS_DEF_TOALL(TYPE, NAME, max, x > y ? x : y)                                            \
  GEXS_DEF_TOALL(TYPE, NAME, min, x < y ? x : y)                                            \
  GEXS_DEF_TOALL(TYPE, NAME, sum, (TYPE)(y + x))                                            \
  GEXS_DEF_TOALL(TYPE, NAME, prod, (TYPE)(y * x))
GEXS_TOALL_BIT_TYPES(GEXS_DEF_TOALL_BIT)
GEXS_TOALL_CMP_TYPES(GEXS_DEF_TOALL_CMP)
GEXS_DEF_TOALL(double _Complex, complexd, sum, y + x)
GEXS_DEF_TOALL(double _Complex, complexd, prod, y * x)
GEXS_DEF_TOALL(float _Complex, complexf, sum, y + x)
GEXS_DEF_TOALL(float _Complex, complexf, prod, y * x)

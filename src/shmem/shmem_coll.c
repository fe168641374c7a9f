/* src/shmem/shmem_coll.c -- the team collectives of OpenSHMEM 1.5: sync,
 * broadcast, collect, fcollect, alltoall(s) and the reductions.
 *
 * Broadcast and the reductions are libgex's (gex_Coll_BroadcastNB,
 * gex_Coll_ReduceToAllNB: built-in data types where the C type is one,
 * a user operation otherwise).  The gathers and exchanges put each
 * member's block into every destination (the destinations are symmetric),
 * between two barriers of the team: the first so that no destination is
 * still read from a previous call, the second so that all have landed.
 */
#include "shmem/shmem_internal.h"

#include <stdlib.h>

static struct gexs_team *team_or_null(shmem_team_t team) {
  return team == SHMEM_TEAM_INVALID ? NULL : gexs_team_of(team);
}
static int world_of(struct gexs_team *t, int pe) { return t->world_pe ? t->world_pe[pe] : pe; }

GEXS_PROFILED(shmem_team_sync)
int shmem_team_sync(shmem_team_t team) {
  GEXS_NEED_INIT("shmem_team_sync");
  struct gexs_team *t = team_or_null(team);
  if (!t) return -1;
  gexs_team_barrier(t);
  return 0;
}

GEXS_PROFILED(shmem_broadcastmem)
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root) {
  GEXS_NEED_INIT("shmem_broadcast");
  struct gexs_team *t = team_or_null(team);
  if (!t) return -1;
  if (PE_root < 0 || PE_root >= t->n_pes)
    gexs_fatal("shmem_broadcast", "PE_root %d out of range (the team has %d PEs)", PE_root,
               t->n_pes);
  if (nelems)
    gex_Event_Wait(gex_Coll_BroadcastNB(t->tm, (gex_Rank_t)PE_root, dest, source, nelems, 0));
  return 0;
}

GEXS_PROFILED(shmem_fcollectmem)
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
  GEXS_NEED_INIT("shmem_fcollect");
  struct gexs_team *t = team_or_null(team);
  if (!t) return -1;
  gexs_team_barrier(t);
  for (int j = 0; j < t->n_pes; j++)
    gexs_put("shmem_fcollect", (char *)dest + (size_t)t->my_pe * nelems, source, nelems,
             world_of(t, j), 1);
  gexs_quiet_all();
  gexs_team_barrier(t);
  return 0;
}

GEXS_PROFILED(shmem_collectmem)
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
  GEXS_NEED_INIT("shmem_collect");
  struct gexs_team *t = team_or_null(team);
  if (!t) return -1;
  size_t n = (size_t)t->n_pes;
  uint64_t *counts = calloc(2 * n, sizeof *counts);
  if (!counts) gexs_fatal("shmem_collect", "out of memory");
  counts[t->my_pe] = nelems;
  /* every member's count, by an addition over arrays zero but at its slot */
  gex_Event_Wait(gex_Coll_ReduceToAllNB(t->tm, counts + n, counts, GEX_DT_U64,
                                        sizeof(uint64_t), n, GEX_OP_ADD, NULL, NULL, 0));
  size_t off = 0;
  for (int j = 0; j < t->my_pe; j++) off += counts[n + (size_t)j];
  free(counts);
  gexs_team_barrier(t);
  for (int j = 0; j < t->n_pes; j++)
    gexs_put("shmem_collect", (char *)dest + off, source, nelems, world_of(t, j), 1);
  gexs_quiet_all();
  gexs_team_barrier(t);
  return 0;
}

/* Element size 'sz': this PE's block j (sst apart in source) goes to PE j's
 * block me (dst apart in dest). */
static int alltoalls(const char *call, shmem_team_t team, void *dest, const void *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t sz) {
  GEXS_NEED_INIT(call);
  struct gexs_team *t = team_or_null(team);
  if (!t) return -1;
  gexs_team_barrier(t);
  for (int k = 0; k < t->n_pes; k++) {
    int j = (t->my_pe + k) % t->n_pes; /* start with the next PE: spread the load */
    char *d = (char *)dest + (size_t)t->my_pe * nelems * (size_t)dst * sz;
    const char *s = (const char *)source + (size_t)j * nelems * (size_t)sst * sz;
    if (dst == 1 && sst == 1) {
      gexs_put(call, d, s, nelems * sz, world_of(t, j), 1);
      continue;
    }
    for (size_t e = 0; e < nelems; e++)
      gexs_put(call, d + (ptrdiff_t)e * dst * (ptrdiff_t)sz, s + (ptrdiff_t)e * sst * (ptrdiff_t)sz,
               sz, world_of(t, j), 1);
  }
  gexs_quiet_all();
  gexs_team_barrier(t);
  return 0;
}

GEXS_PROFILED(shmem_alltoallmem)
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
  return alltoalls("shmem_alltoall", team, dest, source, 1, 1, nelems, 1);
}
GEXS_PROFILED(shmem_alltoallsmem)
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems) {
  return alltoalls("shmem_alltoalls", team, dest, source, dst, sst, nelems, 1);
}

#define GEXS_DEF_COLL(TYPE, NAME)                                                         \
  GEXS_PROFILED(shmem_##NAME##_broadcast)                                                 \
  int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source,         \
                               size_t nelems, int PE_root) {                              \
    return pshmem_broadcastmem(team, dest, source, nelems * sizeof(TYPE), PE_root);       \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_collect)                                                   \
  int shmem_##NAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source,           \
                             size_t nelems) {                                             \
    return pshmem_collectmem(team, dest, source, nelems * sizeof(TYPE));                  \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_fcollect)                                                  \
  int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                              size_t nelems) {                                            \
    return pshmem_fcollectmem(team, dest, source, nelems * sizeof(TYPE));                 \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_alltoall)                                                  \
  int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                              size_t nelems) {                                            \
    return alltoalls("shmem_" #NAME "_alltoall", team, dest, source, 1, 1, nelems,        \
                     sizeof(TYPE));                                                       \
  }                                                                                       \
  GEXS_PROFILED(shmem_##NAME##_alltoalls)                                                 \
  int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source,         \
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems) {             \
    return alltoalls("shmem_" #NAME "_alltoalls", team, dest, source, dst, sst, nelems,   \
                     sizeof(TYPE));                                                       \
  }
GEXS_RMA_TYPES(GEXS_DEF_COLL)

/* ---- reductions ---- */
#define IS_FLT(T) ((T)0.5 != (T)0)
#define IS_SIGNED(T) ((T)-1 < (T)1)
/* The built-in libgex data type of T, or GEX_DT_USER. */
#define DT_OF(T)                                                                          \
  (IS_FLT(T) ? (sizeof(T) == 4 ? GEX_DT_FLT : sizeof(T) == 8 ? GEX_DT_DBL : GEX_DT_USER)  \
   : sizeof(T) == 4 ? (IS_SIGNED(T) ? GEX_DT_I32 : GEX_DT_U32)                            \
   : sizeof(T) == 8 ? (IS_SIGNED(T) ? GEX_DT_I64 : GEX_DT_U64)                            \
                    : GEX_DT_USER)

static int reduce(const char *call, shmem_team_t team, void *dest, const void *source,
                  size_t nreduce, size_t sz, gex_DT_t dt, gex_OP_t op,
                  gex_Coll_ReduceFn_t fn) {
  GEXS_NEED_INIT(call);
  struct gexs_team *t = team_or_null(team);
  if (!t) return -1;
  if (nreduce == 0) return 0;
  void *copy = NULL;
  const char *s = source, *d = dest;
  if (s < d + nreduce * sz && d < s + nreduce * sz) { /* in place: reduce a copy */
    copy = malloc(nreduce * sz);
    if (!copy) gexs_fatal(call, "out of memory");
    memcpy(copy, source, nreduce * sz);
    source = copy;
  }
  if (dt == GEX_DT_USER)
    gex_Event_Wait(gex_Coll_ReduceToAllNB(t->tm, dest, source, GEX_DT_USER, sz, nreduce,
                                          GEX_OP_USER, fn, NULL, 0));
  else
    gex_Event_Wait(gex_Coll_ReduceToAllNB(t->tm, dest, source, dt, sz, nreduce, op, NULL,
                                          NULL, 0));
  free(copy);
  return 0;
}

/* A user operation per type and operation: out[i] = in[i] OP out[i]. */
#define RED_FN(TYPE, NAME, OP, EXPR)                                                      \
  static void red_##NAME##_##OP(const void *a1, void *a2, size_t n, const void *cd) {     \
    (void)cd;                                                                             \
    const TYPE *x = a1;                                                                   \
    TYPE *y = a2;                                                                         \
    for (size_t i = 0; i < n; i++) y[i] = EXPR;                                           \
  }
#define GEXS_DEF_REDUCE(TYPE, NAME, OP, DT, GEXOP, EXPR)                                  \
  RED_FN(TYPE, NAME, OP, EXPR)                                                            \
  GEXS_PROFILED(shmem_##NAME##_##OP##_reduce)                                             \
  int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source,     \
                                   size_t nreduce) {                                      \
    return reduce("shmem_" #NAME "_" #OP "_reduce", team, dest, source, nreduce,          \
                  sizeof(TYPE), DT, GEXOP, red_##NAME##_##OP);                            \
  }
#define GEXS_DEF_REDUCE_BIT(TYPE, NAME)                                                   \
  GEXS_DEF_REDUCE(TYPE, NAME, and, DT_OF(TYPE), GEX_OP_AND, (TYPE)(x[i] & y[i]))          \
  GEXS_DEF_REDUCE(TYPE, NAME, or, DT_OF(TYPE), GEX_OP_OR, (TYPE)(x[i] | y[i]))            \
  GEXS_DEF_REDUCE(TYPE, NAME, xor, DT_OF(TYPE), GEX_OP_XOR, (TYPE)(x[i] ^ y[i]))
#define GEXS_DEF_REDUCE_CMP(TYPE, NAME)                                                   \
  GEXS_DEF_REDUCE(TYPE, NAME, max, DT_OF(TYPE), GEX_OP_MAX, x[i] > y[i] ? x[i] : y[i])    \
  GEXS_DEF_REDUCE(TYPE, NAME, min, DT_OF(TYPE), GEX_OP_MIN, x[i] < y[i] ? x[i] : y[i])
#define GEXS_DEF_REDUCE_ARITH(TYPE, NAME)                                                 \
  GEXS_DEF_REDUCE(TYPE, NAME, sum, DT_OF(TYPE), GEX_OP_ADD, (TYPE)(x[i] + y[i]))          \
  GEXS_DEF_REDUCE(TYPE, NAME, prod, DT_OF(TYPE), GEX_OP_MULT, (TYPE)(x[i] * y[i]))
/* The complex types are no libgex data type: a user operation each. */
#define GEXS_DEF_REDUCE_COMPLEX(TYPE, NAME)                                               \
  GEXS_DEF_REDUCE(TYPE, NAME, sum, GEX_DT_USER, GEX_OP_ADD, x[i] + y[i])                  \
  GEXS_DEF_REDUCE(TYPE, NAME, prod, GEX_DT_USER, GEX_OP_MULT, x[i] * y[i])
GEXS_REDUCE_BIT_TYPES(GEXS_DEF_REDUCE_BIT)
GEXS_REDUCE_CMP_TYPES(GEXS_DEF_REDUCE_CMP)
GEXS_REDUCE_ARITH_TYPES(GEXS_DEF_REDUCE_ARITH)
GEXS_REDUCE_COMPLEX_TYPES(GEXS_DEF_REDUCE_COMPLEX)

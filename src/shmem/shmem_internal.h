/* src/shmem/shmem_internal.h -- the state of the OpenSHMEM library and the
 * helpers every family of calls shares.
 *
 * This room is a client of libgex: it includes the public headers only
 * (tests/layering.sh keeps it so).  Its one context structure is `gexs`.
 *
 * Symmetric objects live in one of two places, told apart by address:
 *   - the symmetric heap: the segment attached to the primordial endpoint.
 *     Every PE allocates the same sequence of blocks at the same offsets,
 *     so an object's offset from the heap base is the same everywhere.  PEs
 *     whose heaps are mapped here (one neighbourhood) are written by plain
 *     loads and stores; the others through libgex RMA on the world team.
 *   - the program's static data (.data and .bss of the executable): bound
 *     as client memory to a second endpoint (index 1) and published, so the
 *     same offset from each PE's data base is reached through
 *     gex_TM_Pair(ep, 1).  Atomics there are Active Messages that the
 *     owner performs with CPU atomics.
 */
#ifndef GEXS_SHMEM_INTERNAL_H
#define GEXS_SHMEM_INTERNAL_H

#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include <pshmem.h> /* <shmem.h>, and the pshmem_ names the library calls itself by */

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A team: a libgex team and the PE numbers of its members in the world. */
struct gexs_team {
  gex_TM_t tm;
  int my_pe, n_pes;
  int *world_pe;             /* team PE -> world PE (NULL for the world team) */
  shmem_team_config_t config;
  void *scratch;             /* the scratch given to gex_TM_Split, or NULL */
  int predefined;            /* world and shared cannot be destroyed */
};

/* A context: the team its PE numbers are relative to. */
struct gexs_ctx {
  struct gexs_team *team;
  long options;
};

/* A block of the symmetric heap (the allocator's records live here, in
 * private memory, never in the heap where a peer could write them). */
struct gexs_block {
  size_t off, size;
  int used;
};

/* The one context structure. */
struct gexs_state {
  int initialized, finalized;
  int thread_level;
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t world;
  int me, npes;
  /* the symmetric heap */
  char *heap;                /* this PE's heap base */
  size_t heap_size;          /* usable bytes (the team scratch follows) */
  char **heap_local;         /* PE -> its heap mapped here, or NULL */
  char **heap_owner;         /* PE -> its heap base in its own address space */
  struct gexsi_pe_view *view_put, *view_get; /* by PE: gexsi_view's tables */
  struct gexs_block *blocks; /* sorted by offset, covering the heap */
  size_t nblocks, cap_blocks;
  /* team scratch: a private area after the heap, one slot per live team */
  char *scratch;
  uint64_t scratch_used;     /* bit i: slot i holds a team's scratch */
  int live_teams;            /* teams made by splits that exist now */
  /* the static data */
  gex_EP_t data_ep;
  gex_TM_t data_tm;          /* gex_TM_Pair(ep, 1) */
  char *data;                /* this PE's data base */
  size_t data_size;
  char **data_owner;         /* PE -> its data base in its own address space */
  /* atomic domains on the world team, by operand kind */
  gex_AD_t ad_u32, ad_u64, ad_flt, ad_dbl;
  /* Active-Message atomics on static data not yet answered */
  atomic_long am_pending;
  struct gexs_team world_team, shared_team;
  struct gexs_ctx default_ctx;
};

extern struct gexs_state gexs;

/* Per-thread state: where the next test_any/wait_until_any starts looking
 * (so that repeated calls find every element that satisfies). */
struct gexs_thread {
  size_t any_next;
};
extern _Thread_local struct gexs_thread gexs_tls;

/* ---- errors ---- */
#ifdef __GNUC__
__attribute__((noreturn, format(printf, 2, 3)))
#endif
void gexs_fatal(const char *call, const char *fmt, ...);

/* The library must be initialized for every call but the queries that the
 * specification allows before shmem_init. */
#define GEXS_NEED_INIT(call)                                                    \
  do {                                                                          \
    if (__builtin_expect(!gexs.initialized || gexs.finalized, 0))               \
      gexs_fatal(call, "called %s shmem_init", gexs.finalized ? "after shmem_finalize" : "before"); \
  } while (0)

/* ---- the profiling interface ---- */
/* Placed before the definition of every call: the call's code is also
 * pshmem_NAME, and NAME is only a weak name for it, so that a profiling
 * library may define NAME itself and reach the library through pshmem_NAME,
 * shared or static, without a clash (docs/openshmem.md, "Profiling").  The
 * library calls itself by the pshmem_ names only, so that such a library
 * sees the program's calls and no others.  tests/shmem/profiling_symbols.sh
 * checks that every call has both names. */
#if defined(__GNUC__) && !defined(__clang__)
#define GEXS_ALIAS_OF(NAME) __attribute__((alias(#NAME), copy(NAME))) /* noreturn too */
#else
#define GEXS_ALIAS_OF(NAME) __attribute__((alias(#NAME)))
#endif
#define GEXS_PROFILED(NAME)                                                     \
  extern __typeof__(NAME) NAME __attribute__((weak));                           \
  extern __typeof__(NAME) p##NAME GEXS_ALIAS_OF(NAME);

/* ---- handles ---- */
static inline struct gexs_team *gexs_team_of(shmem_team_t t) {
  if (t == SHMEM_TEAM_WORLD) return &gexs.world_team;
  if (t == SHMEM_TEAM_SHARED) return &gexs.shared_team;
  return (struct gexs_team *)t;
}
static inline struct gexs_ctx *gexs_ctx_of(shmem_ctx_t c) {
  return c == SHMEM_CTX_DEFAULT ? &gexs.default_ctx : (struct gexs_ctx *)c;
}
/* The world PE of 'pe' numbered in ctx's team; checks its range. */
int gexs_ctx_pe(const char *call, shmem_ctx_t ctx, int pe);
static inline int gexs_pe(const char *call, shmem_ctx_t ctx, int pe) {
  if (__builtin_expect(ctx == SHMEM_CTX_DEFAULT && (unsigned)pe < (unsigned)gexs.npes, 1))
    return pe;
  return gexs_ctx_pe(call, ctx, pe);
}

/* ---- addresses ---- */
/* Where the symmetric object at local address 'addr' (n bytes) is on 'pe'. */
struct gexs_where {
  gex_TM_t tm;    /* world team (heap) or the data pair (static data) */
  void *owner;    /* the address in pe's own address space */
  void *local;    /* mapped here (heap of a neighbour, or this PE), or NULL */
  int heap;       /* 1: in the heap (atomic domains apply) */
};
static inline int gexs_in_heap(const void *addr, size_t n) {
  uintptr_t a = (uintptr_t)addr, b = (uintptr_t)gexs.heap;
  return a >= b && a - b <= gexs.heap_size && n <= gexs.heap_size - (a - b);
}
void gexs_where_slow(const char *call, const void *addr, size_t n, int pe,
                     struct gexs_where *w);
static inline void gexs_where(const char *call, const void *addr, size_t n, int pe,
                              struct gexs_where *w) {
  if (__builtin_expect(gexs_in_heap(addr, n), 1)) {
    size_t off = (size_t)((const char *)addr - gexs.heap);
    w->tm = gexs.world;
    w->owner = gexs.heap_owner[pe] + off;
    w->local = gexs.heap_local[pe] ? gexs.heap_local[pe] + off : NULL;
    w->heap = 1;
    return;
  }
  gexs_where_slow(call, addr, n, pe, w);
}

/* ---- completion and waiting ---- */
void gexs_quiet_all(void);
/* One poll, as a test or a fetch makes before it returns: progress, and
 * the CPU to others after a run of empty ones. */
static inline void gexs_poll(void) { (void)gasnet_AMPoll(); }
/* Wait while cond holds, polling: what a wait_until, a barrier's counter
 * or an atomic's reply waits for comes from other PEs' operations, which
 * only a poll makes land, so the wait may also sleep on the network
 * (GASNET_BLOCKUNTIL's policy, GEX_WAIT_MODE): on a crowded core it hands
 * the core over and is woken by the arrival, where a yield lost the core
 * to a busy loop for a time slice per round trip. */
#define GEXS_WAIT_WHILE(cond) GASNET_BLOCKUNTIL(!(cond))

/* ---- atomics (shmem_amo.c) ---- */
/* Operand kinds of the atomic helpers. */
enum gexs_kind { GEXS_K_INT, GEXS_K_FLT };
/* Perform 'op' (a GEX_OP_*) on the object at 'dest' on world PE 'pe' of
 * 'size' bytes (4 or 8); operands and result are given as 64-bit patterns.
 * Fetching ops store the prior value in *result; with nbi the result lands
 * by the next quiet. */
void gexs_amo(const char *call, void *dest, int pe, size_t size, enum gexs_kind kind,
              gex_OP_t op, uint64_t op1, uint64_t op2, void *result, int nbi);
void gexs_amo_register(gex_AM_Entry_t *table, size_t *n);
/* Wait until every Active-Message atomic of this PE was answered. */
void gexs_amo_quiet(void);

/* ---- the heap (shmem_heap.c) ---- */
void gexs_heap_init(void);
void gexs_heap_fini(void);
void *gexs_scratch_take(void);
void gexs_scratch_give(void *p);
size_t gexs_scratch_size(void);

/* ---- teams (shmem_team.c) ---- */
void gexs_teams_init(void);
void gexs_teams_fini(void);
void gexs_team_barrier(struct gexs_team *t);

/* ---- RMA helpers (shmem_rma.c) ---- */
void gexs_put(const char *call, void *dest, const void *src, size_t n, int pe, int nbi);
void gexs_get(const char *call, void *dest, const void *src, size_t n, int pe, int nbi);

/* ---- environment ---- */
/* The variable a setting is read from: SHMEM_<x> if set, else its
 * deprecated SMA_<x> if that is set, else SHMEM_<x>. */
const char *gexs_env_pick(const char *shmem_name, const char *sma_name);
size_t gexs_env_size(const char *name, size_t dflt);

#endif /* GEXS_SHMEM_INTERNAL_H */

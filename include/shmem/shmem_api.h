/* shmem/shmem_api.h -- the OpenSHMEM 1.5 calls libgexshmem provides, each
 * name written GEXS_FN(name).  Included by <shmem.h> with GEXS_FN(name) as
 * the name itself, and again by <pshmem.h> with it as pshmem_..., the
 * profiling interface's name for the same code (docs/openshmem.md,
 * "Profiling").  No include guard: it is meant to be read twice; the type
 * tables (GEXS_*_TYPES) and the handles come from <shmem.h>. */
#ifndef GEXS_FN
#error "shmem/shmem_api.h is included by <shmem.h> and <pshmem.h> only"
#endif
/* ---- setup, exit, queries ------------------------------------------------- */
void GEXS_FN(shmem_init)(void);
int GEXS_FN(shmem_init_thread)(int requested, int *provided);
void GEXS_FN(shmem_finalize)(void);
#ifdef __GNUC__
__attribute__((noreturn))
#endif
void GEXS_FN(shmem_global_exit)(int status);
int GEXS_FN(shmem_my_pe)(void);
int GEXS_FN(shmem_n_pes)(void);
int GEXS_FN(shmem_pe_accessible)(int pe);
int GEXS_FN(shmem_addr_accessible)(const void *addr, int pe);
void *GEXS_FN(shmem_ptr)(const void *dest, int pe);
void *GEXS_FN(shmem_team_ptr)(shmem_team_t team, const void *dest, int pe);
/* The profiling interface's control: accepted, no effect. */
void GEXS_FN(shmem_pcontrol)(const int level, ...);
void GEXS_FN(shmem_info_get_version)(int *major, int *minor);
void GEXS_FN(shmem_info_get_name)(char *name);
int GEXS_FN(shmem_query_thread)(int *provided);
/* The OpenSHMEM 1.0 names. */
void GEXS_FN(start_pes)(int npes);
int GEXS_FN(_my_pe)(void);
int GEXS_FN(_num_pes)(void);
int GEXS_FN(shmem_query_initialized)(void);

/* ---- symmetric heap --------------------------------------------------------- */
void *GEXS_FN(shmem_malloc)(size_t size);
void *GEXS_FN(shmem_calloc)(size_t count, size_t size);
void *GEXS_FN(shmem_align)(size_t alignment, size_t size);
void *GEXS_FN(shmem_realloc)(void *ptr, size_t size);
void GEXS_FN(shmem_free)(void *ptr);
void *GEXS_FN(shmem_malloc_with_hints)(size_t size, long hints);
void *GEXS_FN(shmalloc)(size_t size);
void *GEXS_FN(shmemalign)(size_t alignment, size_t size);
void *GEXS_FN(shrealloc)(void *ptr, size_t size);
void GEXS_FN(shfree)(void *ptr);

/* ---- contexts and teams ----------------------------------------------------- */
int GEXS_FN(shmem_ctx_create)(long options, shmem_ctx_t *ctx);
void GEXS_FN(shmem_ctx_destroy)(shmem_ctx_t ctx);
int GEXS_FN(shmem_ctx_get_team)(shmem_ctx_t ctx, shmem_team_t *team);
int GEXS_FN(shmem_team_my_pe)(shmem_team_t team);
int GEXS_FN(shmem_team_n_pes)(shmem_team_t team);
int GEXS_FN(shmem_team_get_config)(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int GEXS_FN(shmem_team_translate_pe)(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int GEXS_FN(shmem_team_split_strided)(shmem_team_t parent_team, int start, int stride, int size,
                                      const shmem_team_config_t *config, long config_mask,
                                      shmem_team_t *new_team);
int GEXS_FN(shmem_team_split_2d)(shmem_team_t parent_team, int xrange,
                                 const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                 shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                                 long yaxis_mask, shmem_team_t *yaxis_team);
int GEXS_FN(shmem_team_create_ctx)(shmem_team_t team, long options, shmem_ctx_t *ctx);
void GEXS_FN(shmem_team_destroy)(shmem_team_t team);

/* ---- RMA -------------------------------------------------------------------- */
#define GEXS_DECL_RMA(TYPE, NAME)                                                          \
  void GEXS_FN(shmem_##NAME##_put)(TYPE *dest, const TYPE *source, size_t nelems, int pe);  \
  void GEXS_FN(shmem_ctx_##NAME##_put)(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,     \
                                       size_t nelems, int pe);                              \
  void GEXS_FN(shmem_##NAME##_get)(TYPE *dest, const TYPE *source, size_t nelems, int pe);  \
  void GEXS_FN(shmem_ctx_##NAME##_get)(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,     \
                                       size_t nelems, int pe);                              \
  void GEXS_FN(shmem_##NAME##_put_nbi)(TYPE *dest, const TYPE *source, size_t nelems, int pe); \
  void GEXS_FN(shmem_ctx_##NAME##_put_nbi)(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, \
                                           size_t nelems, int pe);                          \
  void GEXS_FN(shmem_##NAME##_get_nbi)(TYPE *dest, const TYPE *source, size_t nelems, int pe); \
  void GEXS_FN(shmem_ctx_##NAME##_get_nbi)(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, \
                                           size_t nelems, int pe);                          \
  void GEXS_FN(shmem_##NAME##_p)(TYPE *dest, TYPE value, int pe);                           \
  void GEXS_FN(shmem_ctx_##NAME##_p)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);      \
  TYPE GEXS_FN(shmem_##NAME##_g)(const TYPE *source, int pe);                               \
  TYPE GEXS_FN(shmem_ctx_##NAME##_g)(shmem_ctx_t ctx, const TYPE *source, int pe);          \
  void GEXS_FN(shmem_##NAME##_iput)(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, \
                                    size_t nelems, int pe);                                 \
  void GEXS_FN(shmem_ctx_##NAME##_iput)(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,    \
                                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void GEXS_FN(shmem_##NAME##_iget)(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, \
                                    size_t nelems, int pe);                                 \
  void GEXS_FN(shmem_ctx_##NAME##_iget)(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,    \
                                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void GEXS_FN(shmem_##NAME##_put_signal)(TYPE *dest, const TYPE *source, size_t nelems,    \
                                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
  void GEXS_FN(shmem_ctx_##NAME##_put_signal)(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, \
                                              size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                              int sig_op, int pe);                          \
  void GEXS_FN(shmem_##NAME##_put_signal_nbi)(TYPE *dest, const TYPE *source, size_t nelems, \
                                              uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                              int pe);                                      \
  void GEXS_FN(shmem_ctx_##NAME##_put_signal_nbi)(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, \
                                                  size_t nelems, uint64_t *sig_addr,        \
                                                  uint64_t signal, int sig_op, int pe);
GEXS_RMA_TYPES(GEXS_DECL_RMA)
#undef GEXS_DECL_RMA

#define GEXS_DECL_SIZED(BITS, BYTES)                                                        \
  void GEXS_FN(shmem_put##BITS)(void *dest, const void *source, size_t nelems, int pe);     \
  void GEXS_FN(shmem_ctx_put##BITS)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                    int pe);                                                \
  void GEXS_FN(shmem_get##BITS)(void *dest, const void *source, size_t nelems, int pe);     \
  void GEXS_FN(shmem_ctx_get##BITS)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                    int pe);                                                \
  void GEXS_FN(shmem_put##BITS##_nbi)(void *dest, const void *source, size_t nelems, int pe); \
  void GEXS_FN(shmem_ctx_put##BITS##_nbi)(shmem_ctx_t ctx, void *dest, const void *source,  \
                                          size_t nelems, int pe);                           \
  void GEXS_FN(shmem_get##BITS##_nbi)(void *dest, const void *source, size_t nelems, int pe); \
  void GEXS_FN(shmem_ctx_get##BITS##_nbi)(shmem_ctx_t ctx, void *dest, const void *source,  \
                                          size_t nelems, int pe);                           \
  void GEXS_FN(shmem_iput##BITS)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                 size_t nelems, int pe);                                    \
  void GEXS_FN(shmem_ctx_iput##BITS)(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                                     ptrdiff_t sst, size_t nelems, int pe);                 \
  void GEXS_FN(shmem_iget##BITS)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                 size_t nelems, int pe);                                    \
  void GEXS_FN(shmem_ctx_iget##BITS)(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                                     ptrdiff_t sst, size_t nelems, int pe);                 \
  void GEXS_FN(shmem_put##BITS##_signal)(void *dest, const void *source, size_t nelems,     \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
  void GEXS_FN(shmem_ctx_put##BITS##_signal)(shmem_ctx_t ctx, void *dest, const void *source, \
                                             size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                             int sig_op, int pe);                           \
  void GEXS_FN(shmem_put##BITS##_signal_nbi)(void *dest, const void *source, size_t nelems, \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                             int pe);                                       \
  void GEXS_FN(shmem_ctx_put##BITS##_signal_nbi)(shmem_ctx_t ctx, void *dest, const void *source, \
                                                 size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                                 int sig_op, int pe);
GEXS_SIZED_TYPES(GEXS_DECL_SIZED)
#undef GEXS_DECL_SIZED

void GEXS_FN(shmem_putmem)(void *dest, const void *source, size_t nelems, int pe);
void GEXS_FN(shmem_ctx_putmem)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void GEXS_FN(shmem_getmem)(void *dest, const void *source, size_t nelems, int pe);
void GEXS_FN(shmem_ctx_getmem)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void GEXS_FN(shmem_putmem_nbi)(void *dest, const void *source, size_t nelems, int pe);
void GEXS_FN(shmem_ctx_putmem_nbi)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                   int pe);
void GEXS_FN(shmem_getmem_nbi)(void *dest, const void *source, size_t nelems, int pe);
void GEXS_FN(shmem_ctx_getmem_nbi)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                   int pe);
void GEXS_FN(shmem_putmem_signal)(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                  uint64_t signal, int sig_op, int pe);
void GEXS_FN(shmem_ctx_putmem_signal)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void GEXS_FN(shmem_putmem_signal_nbi)(void *dest, const void *source, size_t nelems,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void GEXS_FN(shmem_ctx_putmem_signal_nbi)(shmem_ctx_t ctx, void *dest, const void *source,
                                          size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                          int sig_op, int pe);
uint64_t GEXS_FN(shmem_signal_fetch)(const uint64_t *sig_addr);
uint64_t GEXS_FN(shmem_signal_wait_until)(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- atomics -------------------------------------------------------------- */
#define GEXS_DECL_AMO_EXT(TYPE, NAME)                                                      \
  TYPE GEXS_FN(shmem_##NAME##_atomic_fetch)(const TYPE *source, int pe);                    \
  TYPE GEXS_FN(shmem_ctx_##NAME##_atomic_fetch)(shmem_ctx_t ctx, const TYPE *source, int pe); \
  void GEXS_FN(shmem_##NAME##_atomic_set)(TYPE *dest, TYPE value, int pe);                  \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_set)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  TYPE GEXS_FN(shmem_##NAME##_atomic_swap)(TYPE *dest, TYPE value, int pe);                 \
  TYPE GEXS_FN(shmem_ctx_##NAME##_atomic_swap)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_##NAME##_atomic_fetch_nbi)(TYPE *fetch, const TYPE *source, int pe);   \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_nbi)(shmem_ctx_t ctx, TYPE *fetch,           \
                                                    const TYPE *source, int pe);            \
  void GEXS_FN(shmem_##NAME##_atomic_swap_nbi)(TYPE *fetch, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_swap_nbi)(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                   TYPE value, int pe);
#define GEXS_DECL_AMO_STD(TYPE, NAME)                                                      \
  TYPE GEXS_FN(shmem_##NAME##_atomic_compare_swap)(TYPE *dest, TYPE cond, TYPE value, int pe); \
  TYPE GEXS_FN(shmem_ctx_##NAME##_atomic_compare_swap)(shmem_ctx_t ctx, TYPE *dest, TYPE cond, \
                                                       TYPE value, int pe);                 \
  TYPE GEXS_FN(shmem_##NAME##_atomic_fetch_inc)(TYPE *dest, int pe);                        \
  TYPE GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_inc)(shmem_ctx_t ctx, TYPE *dest, int pe);   \
  void GEXS_FN(shmem_##NAME##_atomic_inc)(TYPE *dest, int pe);                              \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_inc)(shmem_ctx_t ctx, TYPE *dest, int pe);         \
  TYPE GEXS_FN(shmem_##NAME##_atomic_fetch_add)(TYPE *dest, TYPE value, int pe);            \
  TYPE GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_add)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_##NAME##_atomic_add)(TYPE *dest, TYPE value, int pe);                  \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_add)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_##NAME##_atomic_compare_swap_nbi)(TYPE *fetch, TYPE *dest, TYPE cond,  \
                                                       TYPE value, int pe);                 \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_compare_swap_nbi)(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                           TYPE cond, TYPE value, int pe);  \
  void GEXS_FN(shmem_##NAME##_atomic_fetch_inc_nbi)(TYPE *fetch, TYPE *dest, int pe);       \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_inc_nbi)(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                        int pe);                            \
  void GEXS_FN(shmem_##NAME##_atomic_fetch_add_nbi)(TYPE *fetch, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_add_nbi)(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                        TYPE value, int pe);
#define GEXS_DECL_AMO_BIT(TYPE, NAME)                                                      \
  TYPE GEXS_FN(shmem_##NAME##_atomic_fetch_and)(TYPE *dest, TYPE value, int pe);            \
  TYPE GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_and)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_##NAME##_atomic_and)(TYPE *dest, TYPE value, int pe);                  \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_and)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  TYPE GEXS_FN(shmem_##NAME##_atomic_fetch_or)(TYPE *dest, TYPE value, int pe);             \
  TYPE GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_or)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_##NAME##_atomic_or)(TYPE *dest, TYPE value, int pe);                   \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_or)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  TYPE GEXS_FN(shmem_##NAME##_atomic_fetch_xor)(TYPE *dest, TYPE value, int pe);            \
  TYPE GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_xor)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_##NAME##_atomic_xor)(TYPE *dest, TYPE value, int pe);                  \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_xor)(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_##NAME##_atomic_fetch_and_nbi)(TYPE *fetch, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_and_nbi)(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                        TYPE value, int pe);                \
  void GEXS_FN(shmem_##NAME##_atomic_fetch_or_nbi)(TYPE *fetch, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_or_nbi)(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                       TYPE value, int pe);                 \
  void GEXS_FN(shmem_##NAME##_atomic_fetch_xor_nbi)(TYPE *fetch, TYPE *dest, TYPE value, int pe); \
  void GEXS_FN(shmem_ctx_##NAME##_atomic_fetch_xor_nbi)(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                        TYPE value, int pe);
GEXS_AMO_EXT_TYPES(GEXS_DECL_AMO_EXT)
GEXS_AMO_STD_TYPES(GEXS_DECL_AMO_STD)
GEXS_AMO_BIT_TYPES(GEXS_DECL_AMO_BIT)
#undef GEXS_DECL_AMO_EXT
#undef GEXS_DECL_AMO_STD
#undef GEXS_DECL_AMO_BIT

/* The deprecated atomic names (OpenSHMEM 1.3), for int, long, long long
 * (and float, double for fetch/set/swap). */
#define GEXS_DECL_AMO_OLD(TYPE, NAME)                                                      \
  TYPE GEXS_FN(shmem_##NAME##_fetch)(const TYPE *source, int pe);                           \
  void GEXS_FN(shmem_##NAME##_set)(TYPE *dest, TYPE value, int pe);                         \
  TYPE GEXS_FN(shmem_##NAME##_swap)(TYPE *dest, TYPE value, int pe);
#define GEXS_DECL_AMO_OLD_INT(TYPE, NAME)                                                  \
  TYPE GEXS_FN(shmem_##NAME##_cswap)(TYPE *dest, TYPE cond, TYPE value, int pe);            \
  TYPE GEXS_FN(shmem_##NAME##_finc)(TYPE *dest, int pe);                                    \
  void GEXS_FN(shmem_##NAME##_inc)(TYPE *dest, int pe);                                     \
  TYPE GEXS_FN(shmem_##NAME##_fadd)(TYPE *dest, TYPE value, int pe);                        \
  void GEXS_FN(shmem_##NAME##_add)(TYPE *dest, TYPE value, int pe);
GEXS_OLD_AMO_TYPES(GEXS_DECL_AMO_OLD)
GEXS_OLD_AMO_INT_TYPES(GEXS_DECL_AMO_OLD_INT)
#undef GEXS_DECL_AMO_OLD
#undef GEXS_DECL_AMO_OLD_INT

/* ---- memory ordering, point-to-point synchronization ------------------------ */
void GEXS_FN(shmem_fence)(void);
void GEXS_FN(shmem_ctx_fence)(shmem_ctx_t ctx);
void GEXS_FN(shmem_quiet)(void);
void GEXS_FN(shmem_ctx_quiet)(shmem_ctx_t ctx);

#define GEXS_DECL_P2P(TYPE, NAME)                                                           \
  void GEXS_FN(shmem_##NAME##_wait_until)(TYPE *ivar, int cmp, TYPE cmp_value);             \
  void GEXS_FN(shmem_##NAME##_wait)(TYPE *ivar, TYPE cmp_value);                            \
  void GEXS_FN(shmem_##NAME##_wait_until_all)(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                              TYPE cmp_value);                              \
  size_t GEXS_FN(shmem_##NAME##_wait_until_any)(TYPE *ivars, size_t nelems, const int *status, \
                                                int cmp, TYPE cmp_value);                   \
  size_t GEXS_FN(shmem_##NAME##_wait_until_some)(TYPE *ivars, size_t nelems, size_t *indices, \
                                                 const int *status, int cmp, TYPE cmp_value); \
  void GEXS_FN(shmem_##NAME##_wait_until_all_vector)(TYPE *ivars, size_t nelems, const int *status, \
                                                     int cmp, TYPE *cmp_values);            \
  size_t GEXS_FN(shmem_##NAME##_wait_until_any_vector)(TYPE *ivars, size_t nelems,          \
                                                       const int *status, int cmp,          \
                                                       TYPE *cmp_values);                   \
  size_t GEXS_FN(shmem_##NAME##_wait_until_some_vector)(TYPE *ivars, size_t nelems, size_t *indices, \
                                                        const int *status, int cmp,         \
                                                        TYPE *cmp_values);                  \
  int GEXS_FN(shmem_##NAME##_test)(TYPE *ivar, int cmp, TYPE cmp_value);                    \
  int GEXS_FN(shmem_##NAME##_test_all)(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                       TYPE cmp_value);                                     \
  size_t GEXS_FN(shmem_##NAME##_test_any)(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                          TYPE cmp_value);                                  \
  size_t GEXS_FN(shmem_##NAME##_test_some)(TYPE *ivars, size_t nelems, size_t *indices,     \
                                           const int *status, int cmp, TYPE cmp_value);     \
  int GEXS_FN(shmem_##NAME##_test_all_vector)(TYPE *ivars, size_t nelems, const int *status, \
                                              int cmp, TYPE *cmp_values);                   \
  size_t GEXS_FN(shmem_##NAME##_test_any_vector)(TYPE *ivars, size_t nelems, const int *status, \
                                                 int cmp, TYPE *cmp_values);                \
  size_t GEXS_FN(shmem_##NAME##_test_some_vector)(TYPE *ivars, size_t nelems, size_t *indices, \
                                                  const int *status, int cmp, TYPE *cmp_values);
GEXS_P2P_TYPES(GEXS_DECL_P2P)
#undef GEXS_DECL_P2P
void GEXS_FN(shmem_wait_until)(long *ivar, int cmp, long cmp_value);
void GEXS_FN(shmem_wait)(long *ivar, long cmp_value);

/* ---- collectives ------------------------------------------------------------- */
void GEXS_FN(shmem_barrier_all)(void);
void GEXS_FN(shmem_sync_all)(void);
int GEXS_FN(shmem_team_sync)(shmem_team_t team);
void GEXS_FN(shmem_barrier)(int PE_start, int logPE_stride, int PE_size, long *pSync);
/* In C11 shmem_sync(team) is shmem_team_sync (shmem/shmem_generic.h). */
void GEXS_FN(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync);

#define GEXS_DECL_COLL(TYPE, NAME)                                                         \
  int GEXS_FN(shmem_##NAME##_broadcast)(shmem_team_t team, TYPE *dest, const TYPE *source,  \
                                        size_t nelems, int PE_root);                        \
  int GEXS_FN(shmem_##NAME##_collect)(shmem_team_t team, TYPE *dest, const TYPE *source,    \
                                      size_t nelems);                                       \
  int GEXS_FN(shmem_##NAME##_fcollect)(shmem_team_t team, TYPE *dest, const TYPE *source,   \
                                       size_t nelems);                                      \
  int GEXS_FN(shmem_##NAME##_alltoall)(shmem_team_t team, TYPE *dest, const TYPE *source,   \
                                       size_t nelems);                                      \
  int GEXS_FN(shmem_##NAME##_alltoalls)(shmem_team_t team, TYPE *dest, const TYPE *source,  \
                                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
GEXS_RMA_TYPES(GEXS_DECL_COLL)
#undef GEXS_DECL_COLL
int GEXS_FN(shmem_broadcastmem)(shmem_team_t team, void *dest, const void *source, size_t nelems,
                                int PE_root);
int GEXS_FN(shmem_collectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
int GEXS_FN(shmem_fcollectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
int GEXS_FN(shmem_alltoallmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
int GEXS_FN(shmem_alltoallsmem)(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                                ptrdiff_t sst, size_t nelems);

#define GEXS_DECL_SIZED_COLL(BITS)                                                          \
  void GEXS_FN(shmem_broadcast##BITS)(void *dest, const void *source, size_t nelems, int PE_root, \
                                      int PE_start, int logPE_stride, int PE_size, long *pSync); \
  void GEXS_FN(shmem_collect##BITS)(void *dest, const void *source, size_t nelems, int PE_start, \
                                    int logPE_stride, int PE_size, long *pSync);            \
  void GEXS_FN(shmem_fcollect##BITS)(void *dest, const void *source, size_t nelems, int PE_start, \
                                     int logPE_stride, int PE_size, long *pSync);           \
  void GEXS_FN(shmem_alltoall##BITS)(void *dest, const void *source, size_t nelems, int PE_start, \
                                     int logPE_stride, int PE_size, long *pSync);           \
  void GEXS_FN(shmem_alltoalls##BITS)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                      size_t nelems, int PE_start, int logPE_stride, int PE_size, \
                                      long *pSync);
GEXS_DECL_SIZED_COLL(32)
GEXS_DECL_SIZED_COLL(64)
#undef GEXS_DECL_SIZED_COLL

#define GEXS_DECL_REDUCE(TYPE, NAME, OP)                                                    \
  int GEXS_FN(shmem_##NAME##_##OP##_reduce)(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                            size_t nreduce);
#define GEXS_DECL_REDUCE_BIT(TYPE, NAME)                                                    \
  GEXS_DECL_REDUCE(TYPE, NAME, and) GEXS_DECL_REDUCE(TYPE, NAME, or)                        \
  GEXS_DECL_REDUCE(TYPE, NAME, xor)
#define GEXS_DECL_REDUCE_CMP(TYPE, NAME) GEXS_DECL_REDUCE(TYPE, NAME, max) GEXS_DECL_REDUCE(TYPE, NAME, min)
#define GEXS_DECL_REDUCE_ARITH(TYPE, NAME) GEXS_DECL_REDUCE(TYPE, NAME, sum) GEXS_DECL_REDUCE(TYPE, NAME, prod)
GEXS_REDUCE_BIT_TYPES(GEXS_DECL_REDUCE_BIT)
GEXS_REDUCE_CMP_TYPES(GEXS_DECL_REDUCE_CMP)
GEXS_REDUCE_ARITH_TYPES(GEXS_DECL_REDUCE_ARITH)
/* sum and prod also on the complex types (C, and C++ compilers that take
 * C's _Complex, as g++ and clang++ do). */
#if !defined(__cplusplus) || defined(__GNUC__)
GEXS_REDUCE_COMPLEX_TYPES(GEXS_DECL_REDUCE_ARITH)
#endif
#undef GEXS_DECL_REDUCE_BIT
#undef GEXS_DECL_REDUCE_CMP
#undef GEXS_DECL_REDUCE_ARITH
#undef GEXS_DECL_REDUCE

#define GEXS_DECL_TOALL(TYPE, NAME, OP)                                                     \
  void GEXS_FN(shmem_##NAME##_##OP##_to_all)(TYPE *dest, const TYPE *source, int nreduce,   \
                                             int PE_start, int logPE_stride, int PE_size,   \
                                             TYPE *pWrk, long *pSync);
#define GEXS_DECL_TOALL_BIT(TYPE, NAME)                                                     \
  GEXS_DECL_TOALL(TYPE, NAME, and) GEXS_DECL_TOALL(TYPE, NAME, or) GEXS_DECL_TOALL(TYPE, NAME, xor)
#define GEXS_DECL_TOALL_CMP(TYPE, NAME)                                                     \
  GEXS_DECL_TOALL(TYPE, NAME, max) GEXS_DECL_TOALL(TYPE, NAME, min)                         \
  GEXS_DECL_TOALL(TYPE, NAME, sum) GEXS_DECL_TOALL(TYPE, NAME, prod)
GEXS_TOALL_BIT_TYPES(GEXS_DECL_TOALL_BIT)
GEXS_TOALL_CMP_TYPES(GEXS_DECL_TOALL_CMP)
#if !defined(__cplusplus) || defined(__GNUC__)
GEXS_DECL_TOALL(double _Complex, complexd, sum)
GEXS_DECL_TOALL(double _Complex, complexd, prod)
GEXS_DECL_TOALL(float _Complex, complexf, sum)
GEXS_DECL_TOALL(float _Complex, complexf, prod)
#endif
#undef GEXS_DECL_TOALL_BIT
#undef GEXS_DECL_TOALL_CMP
#undef GEXS_DECL_TOALL

/* ---- distributed locks -------------------------------------------------------- */
void GEXS_FN(shmem_set_lock)(long *lock);
void GEXS_FN(shmem_clear_lock)(long *lock);
int GEXS_FN(shmem_test_lock)(long *lock);

/* shmem.h -- OpenSHMEM 1.5 over libgex (libgexshmem).
 *
 * The OpenSHMEM library is a client of libgex's public GASNet-EX API: the
 * symmetric heap is the attached segment, RMA and atomics are libgex's,
 * teams are libgex teams.  See docs/openshmem.md for what is implemented,
 * how each call maps, and the environment variables.
 *
 * The typed interfaces are declared from the type tables below
 * (GEXS_*_TYPES: X(TYPE, TYPENAME)), as the specification's tables list
 * them; the C11 generic selections at the end dispatch on those tables.
 */
#ifndef GEX_SHMEM_H
#define GEX_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- library constants ---------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "libgex OpenSHMEM"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_LE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_GE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_GE SHMEM_CMP_GE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* pSync arrays of the active-set collectives: every element starts at
 * SHMEM_SYNC_VALUE and is back at it when the call returns. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BARRIER_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE 64
#define SHMEM_REDUCE_SYNC_SIZE 64
#define SHMEM_COLLECT_SYNC_SIZE 64
#define SHMEM_ALLTOALL_SYNC_SIZE 64
#define SHMEM_ALLTOALLS_SYNC_SIZE 64
#define SHMEM_SYNC_SIZE 64
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

#define SHMEM_CTX_PRIVATE (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* ---- handles ------------------------------------------------------------- */
typedef struct gexs_team *shmem_team_t;
typedef struct gexs_ctx *shmem_ctx_t;

typedef struct {
  int num_contexts;
} shmem_team_config_t;

/* The predefined handles are constants that no object has as its address;
 * the library resolves them to the job's world and shared teams and the
 * default context. */
#define SHMEM_TEAM_WORLD ((shmem_team_t)(uintptr_t)1)
#define SHMEM_TEAM_SHARED ((shmem_team_t)(uintptr_t)2)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)(uintptr_t)1)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* ---- type tables ---------------------------------------------------------- */
/* Standard RMA types (and the element types of broadcast/collect/alltoall). */
#define GEXS_RMA_TYPES(X)                                                             \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)          \
  X(signed char, schar) X(short, short) X(int, int) X(long, long)                      \
  X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)             \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)       \
  X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)                \
  X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)        \
  X(size_t, size) X(ptrdiff_t, ptrdiff)
/* Sized RMA: X(BITS, bytes) */
#define GEXS_SIZED_TYPES(X) X(8, 1) X(16, 2) X(32, 4) X(64, 8) X(128, 16)
/* Standard AMO types (also the point-to-point synchronization types). */
#define GEXS_AMO_STD_TYPES(X)                                                          \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)               \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)           \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)            \
  X(ptrdiff_t, ptrdiff)
/* Extended AMO types: the standard ones and the two floating types. */
#define GEXS_AMO_EXT_TYPES(X) GEXS_AMO_STD_TYPES(X) X(float, float) X(double, double)
/* Bitwise AMO types. */
#define GEXS_AMO_BIT_TYPES(X)                                                          \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)       \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)
/* Point-to-point synchronization: the standard AMO types, and short and
 * unsigned short (deprecated in 1.5, still used). */
#define GEXS_P2P_TYPES(X) GEXS_AMO_STD_TYPES(X) X(short, short) X(unsigned short, ushort)
/* Reduction types: bitwise (and, or, xor), ordered (max, min), arithmetic
 * (sum, prod). */
#define GEXS_REDUCE_BIT_TYPES(X)                                                       \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)              \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)             \
  X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)              \
  X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define GEXS_REDUCE_CMP_TYPES(X)                                                       \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)        \
  X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar)                 \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)              \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)                   \
  X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)            \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(float, float)              \
  X(double, double) X(long double, longdouble)
#define GEXS_REDUCE_ARITH_TYPES(X) GEXS_REDUCE_CMP_TYPES(X)
/* The active-set (deprecated) reductions: X(TYPE, TYPENAME) per operation. */
#define GEXS_TOALL_BIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define GEXS_TOALL_CMP_TYPES(X) GEXS_TOALL_BIT_TYPES(X) X(float, float) X(double, double) \
  X(long double, longdouble)

/* ---- setup, exit, queries ------------------------------------------------- */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_finalize(void);
#ifdef __GNUC__
__attribute__((noreturn))
#endif
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
/* The profiling interface's control: accepted, no effect. */
void shmem_pcontrol(const int level, ...);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
int shmem_query_thread(int *provided);
/* The OpenSHMEM 1.0 names. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
int shmem_query_initialized(void);

/* ---- symmetric heap --------------------------------------------------------- */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmalloc(size_t size);
void *shmemalign(size_t alignment, size_t size);
void *shrealloc(void *ptr, size_t size);
void shfree(void *ptr);

/* ---- contexts and teams ----------------------------------------------------- */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_team_destroy(shmem_team_t team);

/* ---- RMA -------------------------------------------------------------------- */
#define GEXS_DECL_RMA(TYPE, NAME)                                                          \
  void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe);          \
  void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,             \
                              size_t nelems, int pe);                                      \
  void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe);          \
  void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,             \
                              size_t nelems, int pe);                                      \
  void shmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);      \
  void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,         \
                                  size_t nelems, int pe);                                  \
  void shmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);      \
  void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,         \
                                  size_t nelems, int pe);                                  \
  void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe);                                   \
  void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);              \
  TYPE shmem_##NAME##_g(const TYPE *source, int pe);                                       \
  TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE *source, int pe);                  \
  void shmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,   \
                           size_t nelems, int pe);                                         \
  void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,            \
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);       \
  void shmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,   \
                           size_t nelems, int pe);                                         \
  void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,            \
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);       \
  void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,            \
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
  void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,      \
                                     size_t nelems, uint64_t *sig_addr, uint64_t signal,   \
                                     int sig_op, int pe);                                  \
  void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems,        \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                     int pe);                                              \
  void shmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,  \
                                         size_t nelems, uint64_t *sig_addr,                \
                                         uint64_t signal, int sig_op, int pe);
GEXS_RMA_TYPES(GEXS_DECL_RMA)
#undef GEXS_DECL_RMA

#define GEXS_DECL_SIZED(BITS, BYTES)                                                        \
  void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);              \
  void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                           int pe);                                                         \
  void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);              \
  void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                           int pe);                                                         \
  void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);        \
  void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,           \
                                 size_t nelems, int pe);                                    \
  void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);        \
  void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,           \
                                 size_t nelems, int pe);                                    \
  void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                        size_t nelems, int pe);                                             \
  void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                            ptrdiff_t sst, size_t nelems, int pe);                          \
  void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                        size_t nelems, int pe);                                             \
  void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                            ptrdiff_t sst, size_t nelems, int pe);                          \
  void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,              \
                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);   \
  void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source,        \
                                    size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                                    int sig_op, int pe);                                    \
  void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,          \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op,        \
                                    int pe);                                                \
  void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,    \
                                        size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                        int sig_op, int pe);
GEXS_SIZED_TYPES(GEXS_DECL_SIZED)
#undef GEXS_DECL_SIZED

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                 int sig_op, int pe);
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- atomics -------------------------------------------------------------- */
#define GEXS_DECL_AMO_EXT(TYPE, NAME)                                                      \
  TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe);                            \
  TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe);       \
  void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe);                          \
  void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);     \
  TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe);                         \
  TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);    \
  void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe);           \
  void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch,                   \
                                           const TYPE *source, int pe);                    \
  void shmem_##NAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);        \
  void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,        \
                                          TYPE value, int pe);
#define GEXS_DECL_AMO_STD(TYPE, NAME)                                                      \
  TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe);      \
  TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond,      \
                                              TYPE value, int pe);                         \
  TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe);                                \
  TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe);           \
  void shmem_##NAME##_atomic_inc(TYPE *dest, int pe);                                      \
  void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe);                 \
  TYPE shmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);                    \
  TYPE shmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void shmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe);                          \
  void shmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);     \
  void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond,          \
                                              TYPE value, int pe);                         \
  void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                  TYPE cond, TYPE value, int pe);          \
  void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe);               \
  void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,   \
                                               int pe);                                    \
  void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);   \
  void shmem_ctx_##NAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,   \
                                               TYPE value, int pe);
#define GEXS_DECL_AMO_BIT(TYPE, NAME)                                                      \
  TYPE shmem_##NAME##_atomic_fetch_and(TYPE *dest, TYPE value, int pe);                    \
  TYPE shmem_ctx_##NAME##_atomic_fetch_and(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void shmem_##NAME##_atomic_and(TYPE *dest, TYPE value, int pe);                          \
  void shmem_ctx_##NAME##_atomic_and(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);     \
  TYPE shmem_##NAME##_atomic_fetch_or(TYPE *dest, TYPE value, int pe);                     \
  TYPE shmem_ctx_##NAME##_atomic_fetch_or(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void shmem_##NAME##_atomic_or(TYPE *dest, TYPE value, int pe);                           \
  void shmem_ctx_##NAME##_atomic_or(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);      \
  TYPE shmem_##NAME##_atomic_fetch_xor(TYPE *dest, TYPE value, int pe);                    \
  TYPE shmem_ctx_##NAME##_atomic_fetch_xor(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
  void shmem_##NAME##_atomic_xor(TYPE *dest, TYPE value, int pe);                          \
  void shmem_ctx_##NAME##_atomic_xor(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);     \
  void shmem_##NAME##_atomic_fetch_and_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);   \
  void shmem_ctx_##NAME##_atomic_fetch_and_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,   \
                                               TYPE value, int pe);                        \
  void shmem_##NAME##_atomic_fetch_or_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);    \
  void shmem_ctx_##NAME##_atomic_fetch_or_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,    \
                                              TYPE value, int pe);                         \
  void shmem_##NAME##_atomic_fetch_xor_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);   \
  void shmem_ctx_##NAME##_atomic_fetch_xor_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,   \
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
  TYPE shmem_##NAME##_fetch(const TYPE *source, int pe);                                   \
  void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe);                                 \
  TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe);
#define GEXS_DECL_AMO_OLD_INT(TYPE, NAME)                                                  \
  TYPE shmem_##NAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe);                    \
  TYPE shmem_##NAME##_finc(TYPE *dest, int pe);                                            \
  void shmem_##NAME##_inc(TYPE *dest, int pe);                                             \
  TYPE shmem_##NAME##_fadd(TYPE *dest, TYPE value, int pe);                                \
  void shmem_##NAME##_add(TYPE *dest, TYPE value, int pe);
#define GEXS_OLD_AMO_INT_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define GEXS_OLD_AMO_TYPES(X) GEXS_OLD_AMO_INT_TYPES(X) X(float, float) X(double, double)
GEXS_OLD_AMO_TYPES(GEXS_DECL_AMO_OLD)
GEXS_OLD_AMO_INT_TYPES(GEXS_DECL_AMO_OLD_INT)
#undef GEXS_DECL_AMO_OLD
#undef GEXS_DECL_AMO_OLD_INT

/* ---- memory ordering, point-to-point synchronization ------------------------ */
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

#define GEXS_DECL_P2P(TYPE, NAME)                                                           \
  void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);                      \
  void shmem_##NAME##_wait(TYPE *ivar, TYPE cmp_value);                                     \
  void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                     TYPE cmp_value);                                       \
  size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status,       \
                                       int cmp, TYPE cmp_value);                            \
  size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices,        \
                                        const int *status, int cmp, TYPE cmp_value);        \
  void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems, const int *status,  \
                                            int cmp, TYPE *cmp_values);                     \
  size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,                   \
                                              const int *status, int cmp,                   \
                                              TYPE *cmp_values);                            \
  size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems, size_t *indices, \
                                               const int *status, int cmp,                  \
                                               TYPE *cmp_values);                           \
  int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);                             \
  int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp,       \
                              TYPE cmp_value);                                              \
  size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp,    \
                                 TYPE cmp_value);                                           \
  size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,              \
                                  const int *status, int cmp, TYPE cmp_value);              \
  int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status,         \
                                     int cmp, TYPE *cmp_values);                            \
  size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status,      \
                                        int cmp, TYPE *cmp_values);                         \
  size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices,       \
                                         const int *status, int cmp, TYPE *cmp_values);
GEXS_P2P_TYPES(GEXS_DECL_P2P)
#undef GEXS_DECL_P2P
void shmem_wait_until(long *ivar, int cmp, long cmp_value);
void shmem_wait(long *ivar, long cmp_value);

/* ---- collectives ------------------------------------------------------------- */
void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
/* In C11 shmem_sync(team) is shmem_team_sync (shmem/shmem_generic.h). */
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);

#define GEXS_DECL_COLL(TYPE, NAME)                                                         \
  int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                               size_t nelems, int PE_root);                                \
  int shmem_##NAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source,            \
                             size_t nelems);                                               \
  int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source,           \
                              size_t nelems);                                              \
  int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source,           \
                              size_t nelems);                                              \
  int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
GEXS_RMA_TYPES(GEXS_DECL_COLL)
#undef GEXS_DECL_COLL
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

#define GEXS_DECL_SIZED_COLL(BITS)                                                          \
  void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,    \
                             int PE_start, int logPE_stride, int PE_size, long *pSync);     \
  void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                           int logPE_stride, int PE_size, long *pSync);                     \
  void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                            int logPE_stride, int PE_size, long *pSync);                    \
  void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                            int logPE_stride, int PE_size, long *pSync);                    \
  void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,  \
                             size_t nelems, int PE_start, int logPE_stride, int PE_size,    \
                             long *pSync);
GEXS_DECL_SIZED_COLL(32)
GEXS_DECL_SIZED_COLL(64)
#undef GEXS_DECL_SIZED_COLL

#define GEXS_DECL_REDUCE(TYPE, NAME, OP)                                                    \
  int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source,       \
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
#define GEXS_REDUCE_COMPLEX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)
GEXS_REDUCE_COMPLEX_TYPES(GEXS_DECL_REDUCE_ARITH)
#endif
#undef GEXS_DECL_REDUCE_BIT
#undef GEXS_DECL_REDUCE_CMP
#undef GEXS_DECL_REDUCE_ARITH
#undef GEXS_DECL_REDUCE

#define GEXS_DECL_TOALL(TYPE, NAME, OP)                                                     \
  void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce,            \
                                    int PE_start, int logPE_stride, int PE_size,            \
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
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---- putmem and getmem inline to a PE of this host ------------------------------- */
#include <shmem/shmem_inline.h>

/* ---- C11 generic selections --------------------------------------------------- */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#include <shmem/shmem_generic.h>
#endif

#ifdef __cplusplus
}
#endif

#endif /* GEX_SHMEM_H */

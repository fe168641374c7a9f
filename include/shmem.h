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

/* The deprecated (OpenSHMEM 1.3) atomic names' types, and the complex
 * types of sum and prod (C, and C++ compilers that take C's _Complex, as
 * g++ and clang++ do). */
#define GEXS_OLD_AMO_INT_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define GEXS_OLD_AMO_TYPES(X) GEXS_OLD_AMO_INT_TYPES(X) X(float, float) X(double, double)
#if !defined(__cplusplus) || defined(__GNUC__)
#define GEXS_REDUCE_COMPLEX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)
#endif

/* ---- the calls ------------------------------------------------------------ */
/* Declared once, in shmem/shmem_api.h, with every name written GEXS_FN(name):
 * here the names themselves; <pshmem.h> declares the same list again with
 * the profiling interface's pshmem_ names. */
#define GEXS_FN(name) name
#include <shmem/shmem_api.h>
#undef GEXS_FN

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

/* gasnet_tools.h -- libgex: the GASNet tools API (tools specification 1.20).
 *
 * Communication-independent utilities: timers, memory barriers, portable
 * atomics, mutexes and condition variables, thread-specific data,
 * environment queries, error reporting and system queries.  The API is the
 * one README-tools describes; docs/tools.md says which parts are no-ops here.
 *
 * Two ways to use it:
 *  - tools only ("lite mode"): include this header first, define
 *    GASNETT_THREAD_SAFE=1 for a multi-threaded program, and link
 *    -lgasnet_tools-par (or, single-threaded, -lgasnet_tools-seq);
 *  - with libgex: include <gasnetex.h> first, then this header; thread
 *    safety then follows GASNET_PAR/GASNET_PARSYNC (safe) or GASNET_SEQ, and
 *    the tools come from libgex itself.
 *
 * Names outside the gasnett_/GASNETT_ (and PLATFORM_) prefixes are private
 * to the implementation.  Many calls are macros or inline functions: never
 * take their address.
 */
#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H

/* This header should come before any system header (README-tools): when it
 * does, and the build selected no feature set, ask for POSIX 2008 so that
 * strict -std=c11/c++11 builds still see pthread rwlocks, strdup, ... */
#if !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE) && \
    !defined(_DEFAULT_SOURCE) && !defined(_BSD_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <gasnet_portable_platform.h>
#include <gex/gex_basic.h>

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- thread-safety mode ---------------------------------------------------
 * GEXTI_THREAD_SAFE (always 0 or 1) is what the header tests internally;
 * GASNETT_THREAD_SAFE is 1 when safe and left undefined otherwise, with
 * GASNETT_THREAD_SINGLE 1 in its place. */
#if defined(GASNET_PAR) || defined(GASNET_PARSYNC)
  #if defined(GASNETT_THREAD_SINGLE)
    #error "gasnet_tools.h: GASNETT_THREAD_SINGLE conflicts with GASNET_PAR/GASNET_PARSYNC"
  #endif
  #undef GASNETT_THREAD_SAFE
  #define GASNETT_THREAD_SAFE 1
  #define GEXTI_THREAD_SAFE 1
#elif defined(GASNET_SEQ)
  #if defined(GASNETT_THREAD_SAFE)
    #if GASNETT_THREAD_SAFE
      #error "gasnet_tools.h: GASNETT_THREAD_SAFE=1 conflicts with GASNET_SEQ"
    #endif
    #undef GASNETT_THREAD_SAFE
  #endif
  #define GEXTI_THREAD_SAFE 0
#else /* tools only */
  #if defined(GASNETT_THREAD_SAFE)
    #if GASNETT_THREAD_SAFE
      #if defined(GASNETT_THREAD_SINGLE)
        #error "gasnet_tools.h: define only one of GASNETT_THREAD_SAFE and GASNETT_THREAD_SINGLE"
      #endif
      #undef GASNETT_THREAD_SAFE
      #define GASNETT_THREAD_SAFE 1
      #define GEXTI_THREAD_SAFE 1
    #else
      #undef GASNETT_THREAD_SAFE
      #define GEXTI_THREAD_SAFE 0
    #endif
  #else
    #define GEXTI_THREAD_SAFE 0
  #endif
#endif
#if !GEXTI_THREAD_SAFE && !defined(GASNETT_THREAD_SINGLE)
  #define GASNETT_THREAD_SINGLE 1
#endif

/* Real pthread locks: when thread-safe, or forced with GASNETT_USE_TRUE_MUTEXES=1. */
#if GEXTI_THREAD_SAFE || (defined(GASNETT_USE_TRUE_MUTEXES) && GASNETT_USE_TRUE_MUTEXES)
  #define GEXTI_TRUE_MUTEXES 1
#else
  #define GEXTI_TRUE_MUTEXES 0
#endif

#include <pthread.h>

/* Configuration facts the reference test programs probe (normally produced
 * by a configure step): pthreads and mmap are available. */
#ifndef HAVE_PTHREAD_H
#define HAVE_PTHREAD_H 1
#endif
#ifndef HAVE_MMAP
#define HAVE_MMAP 1
#endif

#ifdef __cplusplus
  #define GASNETT_BEGIN_EXTERNC extern "C" {
  #define GASNETT_END_EXTERNC }
  #define GASNETT_EXTERNC extern "C"
#else
  #define GASNETT_BEGIN_EXTERNC
  #define GASNETT_END_EXTERNC
  #define GASNETT_EXTERNC extern
#endif

GASNETT_BEGIN_EXTERNC

/* ---- versions -------------------------------------------------------------
 * The release numbers are libgex's (gasnetex.h has the same; the check
 * below catches a drift when both are included). */
#ifndef GASNETT_SPEC_VERSION_MAJOR
#define GASNETT_SPEC_VERSION_MAJOR 1
#endif
#ifndef GASNETT_SPEC_VERSION_MINOR
#define GASNETT_SPEC_VERSION_MINOR 20
#endif
#define GASNETT_RELEASE_VERSION_MAJOR 2025
#define GASNETT_RELEASE_VERSION_MINOR 8
#define GASNETT_RELEASE_VERSION_PATCH 0
#ifdef GASNET_RELEASE_VERSION_MAJOR
  #if GASNET_RELEASE_VERSION_MAJOR != GASNETT_RELEASE_VERSION_MAJOR || \
      GASNET_RELEASE_VERSION_MINOR != GASNETT_RELEASE_VERSION_MINOR || \
      GASNET_RELEASE_VERSION_PATCH != GASNETT_RELEASE_VERSION_PATCH
    #error "gasnet_tools.h and gasnetex.h disagree on the release version"
  #endif
#else
  #define GASNET_RELEASE_VERSION_MAJOR 2025
  #define GASNET_RELEASE_VERSION_MINOR 8
  #define GASNET_RELEASE_VERSION_PATCH 0
#endif
const char *gasnett_release_version_str(void);
uint64_t gasnett_release_version(void); /* major*1000000 + minor*10000 + patch */

/* ---- strings and small helpers ---------------------------------------------- */
#ifndef _STRINGIFY
#define _STRINGIFY_HELPER(x) #x
#define _STRINGIFY(x) _STRINGIFY_HELPER(x)
#endif
#define GEXTI_STR_(x) #x
#define GEXTI_STR(x) GEXTI_STR_(x)

#if GEXTI_THREAD_SAFE
  #define GEXTI_THREADMODEL_STR "PAR"
#else
  #define GEXTI_THREADMODEL_STR "SEQ"
#endif
#ifdef PLATFORM_ARCH_64
  #define GEXTI_PTR_STR "64bit"
#else
  #define GEXTI_PTR_STR "32bit"
#endif
/* A short description of this build of the tools. */
#define GASNETT_CONFIG_STRING                                                    \
  "RELEASE=" GEXTI_STR(GASNETT_RELEASE_VERSION_MAJOR) "."                        \
  GEXTI_STR(GASNETT_RELEASE_VERSION_MINOR) "." GEXTI_STR(GASNETT_RELEASE_VERSION_PATCH) \
  ",SPEC=" GEXTI_STR(GASNETT_SPEC_VERSION_MAJOR) "." GEXTI_STR(GASNETT_SPEC_VERSION_MINOR) \
  ",THREADMODEL=" GEXTI_THREADMODEL_STR ",PTR=" GEXTI_PTR_STR ",nodebug,notrace,nostats"
/* Target "tuple" for display: architecture and operating system families. */
#define GASNETT_SYSTEM_TUPLE \
  GEXTI_STR(PLATFORM_ARCH_FAMILYNAME) "-" GEXTI_STR(PLATFORM_OS_FAMILYNAME)

/* ---- compiler annotations ----------------------------------------------------
 * GCC and clang (and the compilers that imitate them) get the attributes;
 * any other compiler gets the safe, empty forms. */
#if defined(__GNUC__) || defined(__clang__)
  #define GEXTI_GNU_ATTRS 1
#else
  #define GEXTI_GNU_ATTRS 0
#endif
#if GEXTI_GNU_ATTRS
  #define GASNETT_INLINE(fnname) static inline __attribute__((__always_inline__))
  #define GASNETT_NEVER_INLINE(fnname, definition) __attribute__((__noinline__)) definition
  #define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
  #define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
  #define GASNETT_NORETURN __attribute__((__noreturn__))
  #define GASNETT_MALLOC __attribute__((__malloc__))
  #define GASNETT_PURE __attribute__((__pure__))
  #define GASNETT_CONST __attribute__((__const__))
  #define GASNETT_HOT __attribute__((__hot__))
  #define GASNETT_COLD __attribute__((__cold__))
  #define GASNETT_DEPRECATED __attribute__((__deprecated__))
  #define GASNETT_WARN_UNUSED_RESULT __attribute__((__warn_unused_result__))
  #define GASNETT_USED __attribute__((__used__))
  #define GASNETT_MAY_ALIAS __attribute__((__may_alias__))
  #define GASNETT_PREDICT_TRUE(expr) __builtin_expect(!!(expr), 1)
  #define GASNETT_PREDICT_FALSE(expr) __builtin_expect(!!(expr), 0)
  #define gasnett_constant_p(expr) __builtin_constant_p(expr)
  #define gasnett_unreachable() __builtin_unreachable()
  #define GASNETT_USE_PRAGMA_GCC_DIAGNOSTIC 1
  #define GEXTI_PRINTF_LIKE(fmtarg, firstvararg) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg)))
#else
  #define GASNETT_INLINE(fnname) static inline
  #define GASNETT_NEVER_INLINE(fnname, definition) definition
  #define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) declarator
  #define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) declarator
  #define GASNETT_NORETURN
  #define GASNETT_MALLOC
  #define GASNETT_PURE
  #define GASNETT_CONST
  #define GASNETT_HOT
  #define GASNETT_COLD
  #define GASNETT_DEPRECATED
  #define GASNETT_WARN_UNUSED_RESULT
  #define GASNETT_USED
  #define GASNETT_MAY_ALIAS
  #define GASNETT_PREDICT_TRUE(expr) (!!(expr))
  #define GASNETT_PREDICT_FALSE(expr) (!!(expr))
  #define gasnett_constant_p(expr) 0
  #define gasnett_unreachable() abort()
  #define GASNETT_USE_PRAGMA_GCC_DIAGNOSTIC 0
  #define GEXTI_PRINTF_LIKE(fmtarg, firstvararg)
#endif
/* The "P" forms exist for compilers that need a pragma after the
 * declaration; the attribute forms above cover every compiler here. */
#define GASNETT_NORETURNP(fnname)
#define GASNETT_MALLOCP(fnname)
#define GASNETT_PUREP(fnname)
#define GASNETT_CONSTP(fnname)

#if defined(__cplusplus)
  #define GASNETT_RESTRICT __restrict__
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
  #define GASNETT_RESTRICT restrict
#elif GEXTI_GNU_ATTRS
  #define GASNETT_RESTRICT __restrict__
#else
  #define GASNETT_RESTRICT
#endif

/* GASNETT_FALLTHROUGH carries its own ';' (README-tools: no ';' after it). */
#if defined(__cplusplus) && defined(__has_cpp_attribute)
  #if __has_cpp_attribute(fallthrough) && __cplusplus >= 201703L
    #define GASNETT_FALLTHROUGH [[fallthrough]];
  #endif
#endif
#if !defined(GASNETT_FALLTHROUGH) && defined(__has_attribute)
  #if __has_attribute(__fallthrough__)
    #define GASNETT_FALLTHROUGH __attribute__((__fallthrough__));
  #endif
#endif
#ifndef GASNETT_FALLTHROUGH
  #define GASNETT_FALLTHROUGH
#endif

#if !defined(if_pf)
  #define if_pf(cond) if (GASNETT_PREDICT_FALSE(cond))
#endif
#if !defined(if_pt)
  #define if_pt(cond) if (GASNETT_PREDICT_TRUE(cond))
#endif

/* gasnett_assume(cond): an optimisation hint; cond must have no side effect. */
#if defined(__clang__)
  #define gasnett_assume(cond) __builtin_assume(cond)
#elif GEXTI_GNU_ATTRS
  #define gasnett_assume(cond) ((cond) ? (void)0 : __builtin_unreachable())
#else
  #define gasnett_assume(cond) ((void)0)
#endif

#if (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) || defined(__cplusplus)
  #define GASNETT_CURRENT_FUNCTION __func__
#elif GEXTI_GNU_ATTRS
  #define GASNETT_CURRENT_FUNCTION __FUNCTION__
#else
  #define GASNETT_CURRENT_FUNCTION ""
#endif

/* Evaluate each argument exactly once, without unused-value warnings. */
#define GASNETT_UNUSED_ARGS1(a1) ((void)(a1))
#define GASNETT_UNUSED_ARGS2(a1, a2) ((void)(a1), (void)(a2))
#define GASNETT_UNUSED_ARGS3(a1, a2, a3) ((void)(a1), (void)(a2), (void)(a3))
#define GASNETT_UNUSED_ARGS4(a1, a2, a3, a4) \
  ((void)(a1), (void)(a2), (void)(a3), (void)(a4))
#define GASNETT_UNUSED_ARGS5(a1, a2, a3, a4, a5) \
  ((void)(a1), (void)(a2), (void)(a3), (void)(a4), (void)(a5))
#define GASNETT_UNUSED_ARGS6(a1, a2, a3, a4, a5, a6) \
  ((void)(a1), (void)(a2), (void)(a3), (void)(a4), (void)(a5), (void)(a6))
#define GASNETT_UNUSED_ARGS7(a1, a2, a3, a4, a5, a6, a7) \
  ((void)(a1), (void)(a2), (void)(a3), (void)(a4), (void)(a5), (void)(a6), (void)(a7))
#define GASNETT_UNUSED_ARGS8(a1, a2, a3, a4, a5, a6, a7, a8) \
  ((void)(a1), (void)(a2), (void)(a3), (void)(a4), (void)(a5), (void)(a6), (void)(a7), (void)(a8))

/* Embed identText in the executable (kept even if never referenced). */
#define GASNETT_IDENT(identName, identText) \
  GASNETT_USED static const char identName[] = identText

/* ---- system properties ---------------------------------------------------------- */
#if defined(PLATFORM_ARCH_POWERPC) && defined(PLATFORM_ARCH_64)
  #define GASNETT_PAGESIZE 65536
  #define GASNETT_PAGESHIFT 16
  #define GASNETT_CACHE_LINE_BYTES 128
#else
  #define GASNETT_PAGESIZE 4096
  #define GASNETT_PAGESHIFT 12
  #define GASNETT_CACHE_LINE_BYTES 64
#endif
/* Upper bound on the threads a program using the tools (and the reference
 * tests) should count on. */
#ifndef GASNETT_MAX_THREADS
#define GASNETT_MAX_THREADS 256
#endif

const char *gasnett_gethostname(void);
const char *gasnett_exe_name(void);
int gasnett_cpu_count(void);
uint64_t gasnett_getPhysMemSz(int failureIsFatal);
int gasnett_isLittleEndian(void);
const char *gasnett_performance_warning_str(void);
void *gasnett_mmap(uintptr_t size);

/* ---- memory barriers ---------------------------------------------------------------
 * Each barrier is also a compiler fence.  wmb orders stores, rmb orders
 * loads, mb orders everything (a full fence: mfence on x86, dmb ish on Arm). */
#define gasnett_compiler_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define gasnett_local_wmb() \
  (__atomic_signal_fence(__ATOMIC_SEQ_CST), __atomic_thread_fence(__ATOMIC_RELEASE))
#define gasnett_local_rmb() \
  (__atomic_signal_fence(__ATOMIC_SEQ_CST), __atomic_thread_fence(__ATOMIC_ACQUIRE))
#define gasnett_local_mb() \
  (__atomic_signal_fence(__ATOMIC_SEQ_CST), __atomic_thread_fence(__ATOMIC_SEQ_CST))
#if GEXTI_THREAD_SAFE
  #define gasnett_weak_wmb() gasnett_local_wmb()
  #define gasnett_weak_rmb() gasnett_local_rmb()
  #define gasnett_weak_mb() gasnett_local_mb()
#else
  #define gasnett_weak_wmb() gasnett_compiler_fence()
  #define gasnett_weak_rmb() gasnett_compiler_fence()
  #define gasnett_weak_mb() gasnett_compiler_fence()
#endif

/* gasnett_spinloop_hint() and gasneti_builtin_unreachable() expand to
 * compiler builtins alone: UPC++'s configure pastes their expansions into a
 * header of its own that is compiled before any GASNet header. */
#if defined(PLATFORM_ARCH_X86_64) || defined(PLATFORM_ARCH_X86)
#define gasnett_spinloop_hint() (__builtin_ia32_pause(), __atomic_signal_fence(__ATOMIC_SEQ_CST))
#elif defined(PLATFORM_ARCH_AARCH64)
#define gasnett_spinloop_hint() __asm__ __volatile__("yield" ::: "memory")
#else
#define gasnett_spinloop_hint() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#endif
#define gasneti_builtin_unreachable() __builtin_unreachable()

/* ---- atomics -----------------------------------------------------------------------
 * Fence flags: MB is RMB|WMB, so "equivalent to both" holds bit for bit. */
#define GASNETT_ATOMIC_NONE 0
#define GASNETT_ATOMIC_RMB_PRE 0x01
#define GASNETT_ATOMIC_WMB_PRE 0x02
#define GASNETT_ATOMIC_MB_PRE (GASNETT_ATOMIC_RMB_PRE | GASNETT_ATOMIC_WMB_PRE)
#define GASNETT_ATOMIC_RMB_POST 0x04
#define GASNETT_ATOMIC_WMB_POST 0x08
#define GASNETT_ATOMIC_MB_POST (GASNETT_ATOMIC_RMB_POST | GASNETT_ATOMIC_WMB_POST)
#define GASNETT_ATOMIC_RMB_POST_IF_TRUE 0x10
#define GASNETT_ATOMIC_RMB_POST_IF_FALSE 0x20
#define GASNETT_ATOMIC_REL GASNETT_ATOMIC_WMB_PRE
#define GASNETT_ATOMIC_ACQ GASNETT_ATOMIC_RMB_POST
#define GASNETT_ATOMIC_ACQ_IF_TRUE GASNETT_ATOMIC_RMB_POST_IF_TRUE
#define GASNETT_ATOMIC_ACQ_IF_FALSE GASNETT_ATOMIC_RMB_POST_IF_FALSE

/* Every atomic type is a struct around a plain integer, operated on with the
 * __atomic builtins (accepted by gcc, g++, clang and clang++ alike).  The
 * fixed-width types have exactly their natural size and alignment. */
/* The counters may alias other objects: README-tools allows operating on
 * any 4- or 8-byte scalar (an int32_t, a float, a double, ...) through a
 * cast to gasnett_atomic32_t * or gasnett_atomic64_t *. */
typedef uint32_t gexti_aliasing_u32 GASNETT_MAY_ALIAS;
typedef uint64_t gexti_aliasing_u64 GASNETT_MAY_ALIAS;
typedef struct GASNETT_MAY_ALIAS { gexti_aliasing_u32 gexti_ctr; } gasnett_atomic32_t;
typedef struct GASNETT_MAY_ALIAS { gexti_aliasing_u64 gexti_ctr; } gasnett_atomic64_t;
typedef gasnett_atomic32_t gasnett_atomic_t;
typedef gasnett_atomic32_t gasnett_strongatomic_t;
typedef gasnett_atomic32_t gasnett_strongatomic32_t;
typedef gasnett_atomic64_t gasnett_strongatomic64_t;
typedef uint32_t gasnett_atomic_val_t;
typedef int32_t gasnett_atomic_sval_t;

#define GASNETT_ATOMIC_MAX ((gasnett_atomic_val_t)0xFFFFFFFFu)
#define GASNETT_ATOMIC_SIGNED_MIN ((gasnett_atomic_sval_t)(-0x7FFFFFFF - 1))
#define GASNETT_ATOMIC_SIGNED_MAX ((gasnett_atomic_sval_t)0x7FFFFFFF)
#define gasnett_atomic_signed(v) ((gasnett_atomic_sval_t)(gasnett_atomic_val_t)(v))

#define GASNETT_HAVE_ATOMIC_ADD_SUB 1
#define GASNETT_HAVE_ATOMIC_CAS 1
#define GASNETT_HAVE_STRONGATOMIC_ADD_SUB 1
#define GASNETT_HAVE_STRONGATOMIC_CAS 1
/* GASNETT_STRONGATOMIC*_NOT_SIGNALSAFE: left undefined (lock-free builtins). */

#define gasnett_atomic_init(v) { (gasnett_atomic_val_t)(v) }
#define gasnett_atomic32_init(v) { (uint32_t)(v) }
#define gasnett_atomic64_init(v) { (uint64_t)(v) }
#define gasnett_strongatomic_init(v) gasnett_atomic_init(v)
#define gasnett_strongatomic32_init(v) gasnett_atomic32_init(v)
#define gasnett_strongatomic64_init(v) gasnett_atomic64_init(v)

/* Fences requested by the flags around an atomic operation.  The op itself
 * is relaxed; PRE/POST fences give the ordering (RMB: acquire fence, WMB:
 * release fence, both: sequentially consistent fence). */
static inline void gexti_atomic_fence_pre(int flags) {
  switch (flags & GASNETT_ATOMIC_MB_PRE) {
    case GASNETT_ATOMIC_MB_PRE: __atomic_thread_fence(__ATOMIC_SEQ_CST); break;
    case GASNETT_ATOMIC_WMB_PRE: __atomic_thread_fence(__ATOMIC_RELEASE); break;
    case GASNETT_ATOMIC_RMB_PRE: __atomic_thread_fence(__ATOMIC_ACQUIRE); break;
    default: break;
  }
}
static inline void gexti_atomic_fence_post(int flags) {
  switch (flags & GASNETT_ATOMIC_MB_POST) {
    case GASNETT_ATOMIC_MB_POST: __atomic_thread_fence(__ATOMIC_SEQ_CST); break;
    case GASNETT_ATOMIC_WMB_POST: __atomic_thread_fence(__ATOMIC_RELEASE); break;
    case GASNETT_ATOMIC_RMB_POST: __atomic_thread_fence(__ATOMIC_ACQUIRE); break;
    default: break;
  }
}
static inline int gexti_atomic_fence_bool(int flags, int result) {
  if (flags & (result ? GASNETT_ATOMIC_RMB_POST_IF_TRUE : GASNETT_ATOMIC_RMB_POST_IF_FALSE))
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
  return result;
}
/* Single-threaded mode: no other thread can observe the order, so the flags
 * only need to keep the compiler from moving memory accesses across. */
static inline void gexti_atomic_fence_seq(int flags) {
  if (flags) __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* GEXTI_STRONG_OPS(N, T, PT): truly atomic operations gexti_sa<N>_* on the
 * T at a PT * (PT: T, may-alias). */
#define GEXTI_STRONG_OPS(N, T, PT)                                                       \
  static inline T gexti_sa##N##_read(PT *p, int f) {                                     \
    gexti_atomic_fence_pre(f);                                                           \
    T v = __atomic_load_n(p, __ATOMIC_RELAXED);                                          \
    gexti_atomic_fence_post(f);                                                          \
    return v;                                                                            \
  }                                                                                      \
  static inline void gexti_sa##N##_set(PT *p, T v, int f) {                              \
    gexti_atomic_fence_pre(f);                                                           \
    __atomic_store_n(p, v, __ATOMIC_RELAXED);                                            \
    gexti_atomic_fence_post(f);                                                          \
  }                                                                                      \
  static inline T gexti_sa##N##_add(PT *p, T v, int f) {                                 \
    gexti_atomic_fence_pre(f);                                                           \
    T r = __atomic_add_fetch(p, v, __ATOMIC_RELAXED);                                    \
    gexti_atomic_fence_post(f);                                                          \
    return r;                                                                            \
  }                                                                                      \
  static inline T gexti_sa##N##_subtract(PT *p, T v, int f) {                            \
    gexti_atomic_fence_pre(f);                                                           \
    T r = __atomic_sub_fetch(p, v, __ATOMIC_RELAXED);                                    \
    gexti_atomic_fence_post(f);                                                          \
    return r;                                                                            \
  }                                                                                      \
  static inline void gexti_sa##N##_increment(PT *p, int f) { (void)gexti_sa##N##_add(p, 1, f); } \
  static inline void gexti_sa##N##_decrement(PT *p, int f) {                             \
    (void)gexti_sa##N##_subtract(p, 1, f);                                               \
  }                                                                                      \
  static inline int gexti_sa##N##_decrement_and_test(PT *p, int f) {                     \
    gexti_atomic_fence_pre(f);                                                           \
    int z = (__atomic_sub_fetch(p, 1, __ATOMIC_RELAXED) == 0);                           \
    gexti_atomic_fence_post(f);                                                          \
    return gexti_atomic_fence_bool(f, z);                                                \
  }                                                                                      \
  static inline int gexti_sa##N##_compare_and_swap(PT *p, T oldval, T newval, int f) {   \
    gexti_atomic_fence_pre(f);                                                           \
    int ok = __atomic_compare_exchange_n(p, &oldval, newval, 0, __ATOMIC_RELAXED,        \
                                         __ATOMIC_RELAXED);                              \
    gexti_atomic_fence_post(f);                                                          \
    return gexti_atomic_fence_bool(f, ok);                                               \
  }                                                                                      \
  static inline T gexti_sa##N##_swap(PT *p, T v, int f) {                                \
    gexti_atomic_fence_pre(f);                                                           \
    T r = __atomic_exchange_n(p, v, __ATOMIC_RELAXED);                                   \
    gexti_atomic_fence_post(f);                                                          \
    return r;                                                                            \
  }

/* GEXTI_SEQ_OPS(N, T): the same operations for single-threaded code:
 * each load and store is a relaxed atomic access (so no torn values and
 * no hoisting out of loops), but read-modify-writes are not atomic.
 * (Same parameters as GEXTI_STRONG_OPS.) */
#define GEXTI_SEQ_OPS(N, T, PT)                                                          \
  static inline T gexti_na##N##_read(PT *p, int f) {                                     \
    gexti_atomic_fence_seq(f);                                                           \
    T v = __atomic_load_n(p, __ATOMIC_RELAXED);                                          \
    gexti_atomic_fence_seq(f);                                                           \
    return v;                                                                            \
  }                                                                                      \
  static inline void gexti_na##N##_set(PT *p, T v, int f) {                              \
    gexti_atomic_fence_seq(f);                                                           \
    __atomic_store_n(p, v, __ATOMIC_RELAXED);                                            \
    gexti_atomic_fence_seq(f);                                                           \
  }                                                                                      \
  static inline T gexti_na##N##_add(PT *p, T v, int f) {                                 \
    gexti_atomic_fence_seq(f);                                                           \
    T r = (T)(__atomic_load_n(p, __ATOMIC_RELAXED) + v);                                 \
    __atomic_store_n(p, r, __ATOMIC_RELAXED);                                            \
    gexti_atomic_fence_seq(f);                                                           \
    return r;                                                                            \
  }                                                                                      \
  static inline T gexti_na##N##_subtract(PT *p, T v, int f) {                            \
    gexti_atomic_fence_seq(f);                                                           \
    T r = (T)(__atomic_load_n(p, __ATOMIC_RELAXED) - v);                                 \
    __atomic_store_n(p, r, __ATOMIC_RELAXED);                                            \
    gexti_atomic_fence_seq(f);                                                           \
    return r;                                                                            \
  }                                                                                      \
  static inline void gexti_na##N##_increment(PT *p, int f) { (void)gexti_na##N##_add(p, 1, f); } \
  static inline void gexti_na##N##_decrement(PT *p, int f) {                             \
    (void)gexti_na##N##_subtract(p, 1, f);                                               \
  }                                                                                      \
  static inline int gexti_na##N##_decrement_and_test(PT *p, int f) {                     \
    return gexti_na##N##_subtract(p, 1, f) == 0;                                         \
  }                                                                                      \
  static inline int gexti_na##N##_compare_and_swap(PT *p, T oldval, T newval, int f) {   \
    gexti_atomic_fence_seq(f);                                                           \
    int ok = (__atomic_load_n(p, __ATOMIC_RELAXED) == oldval);                           \
    if (ok) __atomic_store_n(p, newval, __ATOMIC_RELAXED);                               \
    gexti_atomic_fence_seq(f);                                                           \
    return ok;                                                                           \
  }                                                                                      \
  static inline T gexti_na##N##_swap(PT *p, T v, int f) {                                \
    gexti_atomic_fence_seq(f);                                                           \
    T r = __atomic_load_n(p, __ATOMIC_RELAXED);                                          \
    __atomic_store_n(p, v, __ATOMIC_RELAXED);                                            \
    gexti_atomic_fence_seq(f);                                                           \
    return r;                                                                            \
  }

GEXTI_STRONG_OPS(32, uint32_t, gexti_aliasing_u32)
GEXTI_STRONG_OPS(64, uint64_t, gexti_aliasing_u64)
GEXTI_SEQ_OPS(32, uint32_t, gexti_aliasing_u32)
GEXTI_SEQ_OPS(64, uint64_t, gexti_aliasing_u64)

/* Strong atomics: atomic even in single-threaded mode. */
#define gasnett_strongatomic32_read(p, f) gexti_sa32_read(&(p)->gexti_ctr, (f))
#define gasnett_strongatomic32_set(p, v, f) gexti_sa32_set(&(p)->gexti_ctr, (uint32_t)(v), (f))
#define gasnett_strongatomic32_increment(p, f) gexti_sa32_increment(&(p)->gexti_ctr, (f))
#define gasnett_strongatomic32_decrement(p, f) gexti_sa32_decrement(&(p)->gexti_ctr, (f))
#define gasnett_strongatomic32_decrement_and_test(p, f) \
  gexti_sa32_decrement_and_test(&(p)->gexti_ctr, (f))
#define gasnett_strongatomic32_add(p, v, f) gexti_sa32_add(&(p)->gexti_ctr, (uint32_t)(v), (f))
#define gasnett_strongatomic32_subtract(p, v, f) \
  gexti_sa32_subtract(&(p)->gexti_ctr, (uint32_t)(v), (f))
#define gasnett_strongatomic32_compare_and_swap(p, o, n, f) \
  gexti_sa32_compare_and_swap(&(p)->gexti_ctr, (uint32_t)(o), (uint32_t)(n), (f))
#define gasnett_strongatomic32_swap(p, v, f) gexti_sa32_swap(&(p)->gexti_ctr, (uint32_t)(v), (f))

#define gasnett_strongatomic64_read(p, f) gexti_sa64_read(&(p)->gexti_ctr, (f))
#define gasnett_strongatomic64_set(p, v, f) gexti_sa64_set(&(p)->gexti_ctr, (uint64_t)(v), (f))
#define gasnett_strongatomic64_increment(p, f) gexti_sa64_increment(&(p)->gexti_ctr, (f))
#define gasnett_strongatomic64_decrement(p, f) gexti_sa64_decrement(&(p)->gexti_ctr, (f))
#define gasnett_strongatomic64_decrement_and_test(p, f) \
  gexti_sa64_decrement_and_test(&(p)->gexti_ctr, (f))
#define gasnett_strongatomic64_add(p, v, f) gexti_sa64_add(&(p)->gexti_ctr, (uint64_t)(v), (f))
#define gasnett_strongatomic64_subtract(p, v, f) \
  gexti_sa64_subtract(&(p)->gexti_ctr, (uint64_t)(v), (f))
#define gasnett_strongatomic64_compare_and_swap(p, o, n, f) \
  gexti_sa64_compare_and_swap(&(p)->gexti_ctr, (uint64_t)(o), (uint64_t)(n), (f))
#define gasnett_strongatomic64_swap(p, v, f) gexti_sa64_swap(&(p)->gexti_ctr, (uint64_t)(v), (f))

#define gasnett_strongatomic_read(p, f) gasnett_strongatomic32_read(p, f)
#define gasnett_strongatomic_set(p, v, f) gasnett_strongatomic32_set(p, v, f)
#define gasnett_strongatomic_increment(p, f) gasnett_strongatomic32_increment(p, f)
#define gasnett_strongatomic_decrement(p, f) gasnett_strongatomic32_decrement(p, f)
#define gasnett_strongatomic_decrement_and_test(p, f) \
  gasnett_strongatomic32_decrement_and_test(p, f)
#define gasnett_strongatomic_add(p, v, f) gasnett_strongatomic32_add(p, v, f)
#define gasnett_strongatomic_subtract(p, v, f) gasnett_strongatomic32_subtract(p, v, f)
#define gasnett_strongatomic_compare_and_swap(p, o, n, f) \
  gasnett_strongatomic32_compare_and_swap(p, o, n, f)
#define gasnett_strongatomic_swap(p, v, f) gasnett_strongatomic32_swap(p, v, f)

/* Default atomics: strong when thread-safe, plain otherwise (README-tools). */
#if GEXTI_THREAD_SAFE
  #define GEXTI_AT32(op) gexti_sa32_##op
  #define GEXTI_AT64(op) gexti_sa64_##op
#else
  #define GEXTI_AT32(op) gexti_na32_##op
  #define GEXTI_AT64(op) gexti_na64_##op
#endif
#define gasnett_atomic32_read(p, f) GEXTI_AT32(read)(&(p)->gexti_ctr, (f))
#define gasnett_atomic32_set(p, v, f) GEXTI_AT32(set)(&(p)->gexti_ctr, (uint32_t)(v), (f))
#define gasnett_atomic32_increment(p, f) GEXTI_AT32(increment)(&(p)->gexti_ctr, (f))
#define gasnett_atomic32_decrement(p, f) GEXTI_AT32(decrement)(&(p)->gexti_ctr, (f))
#define gasnett_atomic32_decrement_and_test(p, f) \
  GEXTI_AT32(decrement_and_test)(&(p)->gexti_ctr, (f))
#define gasnett_atomic32_add(p, v, f) GEXTI_AT32(add)(&(p)->gexti_ctr, (uint32_t)(v), (f))
#define gasnett_atomic32_subtract(p, v, f) \
  GEXTI_AT32(subtract)(&(p)->gexti_ctr, (uint32_t)(v), (f))
#define gasnett_atomic32_compare_and_swap(p, o, n, f) \
  GEXTI_AT32(compare_and_swap)(&(p)->gexti_ctr, (uint32_t)(o), (uint32_t)(n), (f))
#define gasnett_atomic32_swap(p, v, f) GEXTI_AT32(swap)(&(p)->gexti_ctr, (uint32_t)(v), (f))

#define gasnett_atomic64_read(p, f) GEXTI_AT64(read)(&(p)->gexti_ctr, (f))
#define gasnett_atomic64_set(p, v, f) GEXTI_AT64(set)(&(p)->gexti_ctr, (uint64_t)(v), (f))
#define gasnett_atomic64_increment(p, f) GEXTI_AT64(increment)(&(p)->gexti_ctr, (f))
#define gasnett_atomic64_decrement(p, f) GEXTI_AT64(decrement)(&(p)->gexti_ctr, (f))
#define gasnett_atomic64_decrement_and_test(p, f) \
  GEXTI_AT64(decrement_and_test)(&(p)->gexti_ctr, (f))
#define gasnett_atomic64_add(p, v, f) GEXTI_AT64(add)(&(p)->gexti_ctr, (uint64_t)(v), (f))
#define gasnett_atomic64_subtract(p, v, f) \
  GEXTI_AT64(subtract)(&(p)->gexti_ctr, (uint64_t)(v), (f))
#define gasnett_atomic64_compare_and_swap(p, o, n, f) \
  GEXTI_AT64(compare_and_swap)(&(p)->gexti_ctr, (uint64_t)(o), (uint64_t)(n), (f))
#define gasnett_atomic64_swap(p, v, f) GEXTI_AT64(swap)(&(p)->gexti_ctr, (uint64_t)(v), (f))

#define gasnett_atomic_read(p, f) gasnett_atomic32_read(p, f)
#define gasnett_atomic_set(p, v, f) gasnett_atomic32_set(p, v, f)
#define gasnett_atomic_increment(p, f) gasnett_atomic32_increment(p, f)
#define gasnett_atomic_decrement(p, f) gasnett_atomic32_decrement(p, f)
#define gasnett_atomic_decrement_and_test(p, f) gasnett_atomic32_decrement_and_test(p, f)
#define gasnett_atomic_add(p, v, f) gasnett_atomic32_add(p, v, f)
#define gasnett_atomic_subtract(p, v, f) gasnett_atomic32_subtract(p, v, f)
#define gasnett_atomic_compare_and_swap(p, o, n, f) gasnett_atomic32_compare_and_swap(p, o, n, f)
#define gasnett_atomic_swap(p, v, f) gasnett_atomic32_swap(p, v, f)

/* ---- timers ------------------------------------------------------------------------
 * A tick is one nanosecond of CLOCK_MONOTONIC (which advances at the same,
 * NTP-disciplined rate as gettimeofday). */
typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX (~(gasnett_tick_t)0)
gasnett_tick_t gasnett_ticks_now(void);
#define gasnett_ticks_to_ns(ticks) ((uint64_t)(ticks))
#define gasnett_ticks_to_us(ticks) ((uint64_t)(ticks) / 1000u)
#define gasnett_ticks_to_sec(ticks) ((double)(ticks) * 1.0e-9)
double gasnett_tick_granularityus(void); /* smallest observable step, in us */
double gasnett_tick_overheadus(void);    /* cost of one gasnett_ticks_now(), in us */
uint64_t gasnett_gettimeofday_us(void);
int gasnett_nsleep(uint64_t ns_delay);

/* ---- mutexes, condition variables, reader/writer locks -------------------------------
 * Thin wrappers around pthreads; without thread safety (and without
 * GASNETT_USE_TRUE_MUTEXES=1) they compile to nothing. */
void gexti_pthread_failed(const char *call, int rc) GASNETT_NORETURN;
#if GEXTI_TRUE_MUTEXES
typedef pthread_mutex_t gasnett_mutex_t;
typedef pthread_cond_t gasnett_cond_t;
#define GASNETT_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define GASNETT_COND_INITIALIZER PTHREAD_COND_INITIALIZER
static inline void gexti_mutex_init(gasnett_mutex_t *m) {
  int rc = pthread_mutex_init(m, NULL);
  if (rc) gexti_pthread_failed("pthread_mutex_init", rc);
}
static inline void gexti_mutex_destroy(gasnett_mutex_t *m) {
  int rc = pthread_mutex_destroy(m);
  if (rc) gexti_pthread_failed("pthread_mutex_destroy", rc);
}
static inline void gexti_mutex_lock(gasnett_mutex_t *m) {
  int rc = pthread_mutex_lock(m);
  if (rc) gexti_pthread_failed("pthread_mutex_lock", rc);
}
static inline void gexti_mutex_unlock(gasnett_mutex_t *m) {
  int rc = pthread_mutex_unlock(m);
  if (rc) gexti_pthread_failed("pthread_mutex_unlock", rc);
}
static inline int gexti_mutex_trylock(gasnett_mutex_t *m) {
  int rc = pthread_mutex_trylock(m);
  if (rc && rc != EBUSY) gexti_pthread_failed("pthread_mutex_trylock", rc);
  return rc;
}
static inline void gexti_cond_init(gasnett_cond_t *c) {
  int rc = pthread_cond_init(c, NULL);
  if (rc) gexti_pthread_failed("pthread_cond_init", rc);
}
static inline void gexti_cond_destroy(gasnett_cond_t *c) {
  int rc = pthread_cond_destroy(c);
  if (rc) gexti_pthread_failed("pthread_cond_destroy", rc);
}
static inline void gexti_cond_signal(gasnett_cond_t *c) {
  int rc = pthread_cond_signal(c);
  if (rc) gexti_pthread_failed("pthread_cond_signal", rc);
}
static inline void gexti_cond_broadcast(gasnett_cond_t *c) {
  int rc = pthread_cond_broadcast(c);
  if (rc) gexti_pthread_failed("pthread_cond_broadcast", rc);
}
static inline void gexti_cond_wait(gasnett_cond_t *c, gasnett_mutex_t *m) {
  int rc = pthread_cond_wait(c, m);
  if (rc) gexti_pthread_failed("pthread_cond_wait", rc);
}
#define gasnett_mutex_init(pm) gexti_mutex_init(pm)
#define gasnett_mutex_destroy(pm) gexti_mutex_destroy(pm)
#define gasnett_mutex_destroy_ignoreerr(pm) pthread_mutex_destroy(pm)
#define gasnett_mutex_lock(pm) gexti_mutex_lock(pm)
#define gasnett_mutex_unlock(pm) gexti_mutex_unlock(pm)
#define gasnett_mutex_trylock(pm) gexti_mutex_trylock(pm)
#define gasnett_cond_init(pc) gexti_cond_init(pc)
#define gasnett_cond_destroy(pc) gexti_cond_destroy(pc)
#define gasnett_cond_signal(pc) gexti_cond_signal(pc)
#define gasnett_cond_broadcast(pc) gexti_cond_broadcast(pc)
#define gasnett_cond_wait(pc, pm) gexti_cond_wait((pc), (pm))

/* Reader/writer locks, where the C library declares them (it does unless the
 * build hid POSIX 2001); otherwise a plain mutex, as README-tools allows. */
#if defined(PTHREAD_RWLOCK_INITIALIZER)
typedef pthread_rwlock_t gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER PTHREAD_RWLOCK_INITIALIZER
static inline void gexti_rwlock_init(gasnett_rwlock_t *l) {
  int rc = pthread_rwlock_init(l, NULL);
  if (rc) gexti_pthread_failed("pthread_rwlock_init", rc);
}
static inline void gexti_rwlock_destroy(gasnett_rwlock_t *l) {
  int rc = pthread_rwlock_destroy(l);
  if (rc) gexti_pthread_failed("pthread_rwlock_destroy", rc);
}
/* A reader refused for a reader-count limit (EAGAIN) waits, as specified. */
static inline void gexti_rwlock_rdlock(gasnett_rwlock_t *l) {
  int rc;
  while ((rc = pthread_rwlock_rdlock(l)) == EAGAIN) sched_yield();
  if (rc) gexti_pthread_failed("pthread_rwlock_rdlock", rc);
}
static inline void gexti_rwlock_wrlock(gasnett_rwlock_t *l) {
  int rc = pthread_rwlock_wrlock(l);
  if (rc) gexti_pthread_failed("pthread_rwlock_wrlock", rc);
}
static inline void gexti_rwlock_unlock(gasnett_rwlock_t *l) {
  int rc = pthread_rwlock_unlock(l);
  if (rc) gexti_pthread_failed("pthread_rwlock_unlock", rc);
}
#define gasnett_rwlock_init(pl) gexti_rwlock_init(pl)
#define gasnett_rwlock_destroy(pl) gexti_rwlock_destroy(pl)
#define gasnett_rwlock_rdlock(pl) gexti_rwlock_rdlock(pl)
#define gasnett_rwlock_wrlock(pl) gexti_rwlock_wrlock(pl)
#define gasnett_rwlock_unlock(pl) gexti_rwlock_unlock(pl)
#define gasnett_rwlock_tryrdlock(pl) pthread_rwlock_tryrdlock(pl)
#define gasnett_rwlock_trywrlock(pl) pthread_rwlock_trywrlock(pl)
#else
typedef gasnett_mutex_t gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER GASNETT_MUTEX_INITIALIZER
#define gasnett_rwlock_init(pl) gexti_mutex_init(pl)
#define gasnett_rwlock_destroy(pl) gexti_mutex_destroy(pl)
#define gasnett_rwlock_rdlock(pl) gexti_mutex_lock(pl)
#define gasnett_rwlock_wrlock(pl) gexti_mutex_lock(pl)
#define gasnett_rwlock_unlock(pl) gexti_mutex_unlock(pl)
#define gasnett_rwlock_tryrdlock(pl) gexti_mutex_trylock(pl)
#define gasnett_rwlock_trywrlock(pl) gexti_mutex_trylock(pl)
#endif

#else /* no real locks */
typedef struct { char gexti_unused; } gasnett_mutex_t;
typedef struct { char gexti_unused; } gasnett_cond_t;
typedef struct { char gexti_unused; } gasnett_rwlock_t;
#define GASNETT_MUTEX_INITIALIZER { 0 }
#define GASNETT_COND_INITIALIZER { 0 }
#define GASNETT_RWLOCK_INITIALIZER { 0 }
#define gasnett_mutex_init(pm) ((void)(pm))
#define gasnett_mutex_destroy(pm) ((void)(pm))
#define gasnett_mutex_destroy_ignoreerr(pm) ((void)(pm), 0)
#define gasnett_mutex_lock(pm) ((void)(pm))
#define gasnett_mutex_unlock(pm) ((void)(pm))
#define gasnett_mutex_trylock(pm) ((void)(pm), 0)
#define gasnett_cond_init(pc) ((void)(pc))
#define gasnett_cond_destroy(pc) ((void)(pc))
#define gasnett_cond_signal(pc) ((void)(pc))
#define gasnett_cond_broadcast(pc) ((void)(pc))
/* With one thread nobody can signal: return at once (a spurious wakeup). */
#define gasnett_cond_wait(pc, pm) ((void)(pc), (void)(pm))
#define gasnett_rwlock_init(pl) ((void)(pl))
#define gasnett_rwlock_destroy(pl) ((void)(pl))
#define gasnett_rwlock_rdlock(pl) ((void)(pl))
#define gasnett_rwlock_wrlock(pl) ((void)(pl))
#define gasnett_rwlock_unlock(pl) ((void)(pl))
#define gasnett_rwlock_tryrdlock(pl) ((void)(pl), 0)
#define gasnett_rwlock_trywrlock(pl) ((void)(pl), 0)
#endif
/* The ownership assertions are checks of debug builds; this is not one. */
#define gasnett_mutex_assertlocked(pm) ((void)(pm))
#define gasnett_mutex_assertunlocked(pm) ((void)(pm))
#define gasnett_rwlock_assertrdlocked(pl) ((void)(pl))
#define gasnett_rwlock_assertwrlocked(pl) ((void)(pl))
#define gasnett_rwlock_assertlocked(pl) ((void)(pl))
#define gasnett_rwlock_assertunlocked(pl) ((void)(pl))

/* ---- thread-specific data ---------------------------------------------------------
 * A key is a thread-local (or, single-threaded, process-global) void
 * pointer, NULL in every new thread; nothing needs initialising. */
#if GEXTI_THREAD_SAFE
  #if defined(__cplusplus) && __cplusplus >= 201103L
    #define GEXTI_TLS thread_local
  #elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
    #define GEXTI_TLS _Thread_local
  #else
    #define GEXTI_TLS __thread
  #endif
#else
  #define GEXTI_TLS
#endif
#define GASNETT_THREADKEY_DECLARE(key) extern GEXTI_TLS void *gexti_threadkey_##key
#define GASNETT_THREADKEY_DEFINE(key) GEXTI_TLS void *gexti_threadkey_##key = 0
#define gasnett_threadkey_get(key) (gexti_threadkey_##key)
#define gasnett_threadkey_set(key, val) ((void)(gexti_threadkey_##key = (void *)(val)))
#define gasnett_threadkey_init(key) ((void)0)
#define gasnett_threadkey_get_noinit(key) gasnett_threadkey_get(key)
#define gasnett_threadkey_set_noinit(key, val) gasnett_threadkey_set(key, val)

/* Two file-local helpers of the reference's tools header that clients
 * name: Legion/Realm takes their addresses to silence "unused function"
 * warnings about the reference's copies.  libgex's thread keys need
 * neither (above); these are small working versions under the same names,
 * so that such code compiles and links unchanged. */
static inline void _gasneti_threadkey_init(pthread_key_t *value, pthread_mutex_t *initmutex,
                                           volatile int *isinit) {
  pthread_mutex_lock(initmutex);
  if (!*isinit && pthread_key_create(value, NULL) == 0) *isinit = 1;
  pthread_mutex_unlock(initmutex);
}
static inline void _gasnett_trace_printf_noop(const char *format, ...)
    GEXTI_PRINTF_LIKE(1, 2);
static inline void _gasnett_trace_printf_noop(const char *format, ...) { (void)format; }

/* ---- environment --------------------------------------------------------------------
 * The _withdefault queries report each variable (once per process) on stderr
 * when GASNET_VERBOSEENV is true.  Sizes (mem_size_multiplier != 0) are a
 * number, possibly fractional or 0x-hex, and an optional unit B, K/KB, M/MB,
 * G/GB, T/TB, P/PB, E/EB (powers of 1024, any case); without a unit the number
 * counts units of mem_size_multiplier bytes.  Malformed values are fatal. */
char *gasnett_getenv(const char *keyname);
void gasnett_setenv(const char *key, const char *value);
void gasnett_unsetenv(const char *key);
char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval);
int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval);
int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                       uint64_t mem_size_multiplier);
double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval);
int gasnett_verboseenv(void);
void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size);
void gasnett_envstr_display(const char *key, const char *val, int is_dflt);
void gasnett_envdbl_display(const char *key, double val, int is_dflt);
char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size);
int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier);

/* ---- errors, backtraces, debugger ---------------------------------------------------- */
void gexti_fatalerror_at(const char *func, const char *file, int line, const char *fmt, ...)
    GASNETT_NORETURN GEXTI_PRINTF_LIKE(4, 5);
void gasnett_fatalerror_nopos(const char *msg, ...)
    GASNETT_NORETURN GEXTI_PRINTF_LIKE(1, 2);
/* Defined as itself so that `#ifdef gasnett_fatalerror_nopos` (UPC++) finds
 * it, as it finds the reference's macro. */
#define gasnett_fatalerror_nopos gasnett_fatalerror_nopos
#define gasnett_fatalerror(...) \
  gexti_fatalerror_at(GASNETT_CURRENT_FUNCTION, __FILE__, __LINE__, __VA_ARGS__)
void gasnett_killmyprocess(int exitcode) GASNETT_NORETURN;
char *gexti_current_loc(const char *func, const char *file, int line);
#define gasnett_current_loc gexti_current_loc(GASNETT_CURRENT_FUNCTION, __FILE__, __LINE__)

typedef struct {
  const char *name;                /* the name GASNET_BACKTRACE_TYPE lists */
  int (*fnp)(int fd);              /* writes a backtrace to fd; 0 on success */
  int threadsupport;               /* can it trace a multi-threaded program? */
} gasnett_backtrace_type_t;
/* Defined by a client that adds its own mechanism (README-tools); the
 * tools library refers to it weakly, so defining it is optional. */
extern gasnett_backtrace_type_t gasnett_backtrace_user;
void gasnett_backtrace_init(const char *exename);
int gasnett_print_backtrace(int fd);
/* The hook fatal errors call: a pointer to a function, assignable. */
int (**gexti_print_backtrace_ifenabled_slot(void))(int);
#define gasnett_print_backtrace_ifenabled (*gexti_print_backtrace_ifenabled_slot())
void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname);
void gasnett_freezeForDebuggerErr(void);

typedef void (*gasnett_sighandlerfn_t)(int);
gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp);

/* ---- miscellaneous ------------------------------------------------------------------- */
#if defined(PLATFORM_OS_LINUX)
  #define GASNETT_SET_AFFINITY_SUPPORT 1
#endif
int gasnett_set_affinity(int rank);
void gasnett_sched_yield(void);
void gasnett_flush_streams(void);
void gasnett_close_streams(void);
uint64_t gasnett_checksum(const void *p, int numbytes);
size_t gasnett_count0s(const void *p, size_t numbytes);
size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                            size_t numbytes);
int gasnett_maximize_rlimits(void);
int gasnett_maximize_rlimit(int res, const char *lim_desc);

/* Zero bytes in a word: a byte b is zero iff the high bit of
 * ((b & 0x7F) + 0x7F) | b is clear. */
static inline int gexti_count0s_u64(uint64_t x) {
  const uint64_t low7 = UINT64_C(0x7F7F7F7F7F7F7F7F);
  uint64_t nonzero_high = ((x & low7) + low7) | x;
  return 8 - __builtin_popcountll(nonzero_high & ~low7);
}
static inline int gexti_count0s_u32(uint32_t x) {
  const uint32_t low7 = 0x7F7F7F7Fu;
  uint32_t nonzero_high = ((x & low7) + low7) | x;
  return 4 - __builtin_popcount(nonzero_high & ~low7);
}
#define gasnett_count0s_uint32_t(x) gexti_count0s_u32((uint32_t)(x))
#define gasnett_count0s_uint64_t(x) gexti_count0s_u64((uint64_t)(x))
#ifdef PLATFORM_ARCH_64
  #define gasnett_count0s_uintptr_t(x) gexti_count0s_u64((uint64_t)(x))
#else
  #define gasnett_count0s_uintptr_t(x) gexti_count0s_u32((uint32_t)(x))
#endif

/* ---- tracing and statistics -------------------------------------------------------------
 * libgex has no trace or stats streams: these are the "inactive" forms. */
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_TRACE_GETMASK() ""
#define GASNETT_STATS_GETMASK() ""
#define GASNETT_TRACE_SETMASK(mask) ((void)0)
#define GASNETT_STATS_SETMASK(mask) ((void)0)
#define GASNETT_TRACE_GET_TRACELOCAL() 0
#define GASNETT_TRACE_SET_TRACELOCAL(val) ((void)0)
#define GASNETT_TRACE_PRINTF(...) ((void)0)
#define GASNETT_TRACE_PRINTF_FORCE(...) ((void)0)
#define GASNETT_STATS_PRINTF(...) ((void)0)
#define GASNETT_STATS_PRINTF_FORCE(...) ((void)0)
#define GASNETT_STATS_DUMP(reset) ((void)0)
#define GASNETT_TRACE_GETSOURCELINE(pfilename, plinenum) \
  ((void)(*(pfilename) = 0), (void)(*(plinenum) = 0))
#define GASNETT_TRACE_SETSOURCELINE(filename, linenum) ((void)0)
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)

GASNETT_END_EXTERNC

/* With libgex: formatting of GASNet-EX values and the self-test of a job
 * (both need its types; gasnetex.h includes the latter itself when it
 * comes second). */
#ifdef GASNETEX_H
#include <gex/gex_tools_format.h>
#include <gex/gex_tools_diagnostics.h>
#endif

#endif /* GASNET_TOOLS_H */

/* tests/test_util.h -- shared helpers for the libgex test programs.
 *
 * Every multi-process test follows the same shape:
 *
 *   int main(int argc, char **argv) {
 *     test_init(&argc, &argv, "T_NAME", seg_size, handlers, nhandlers);
 *     ... communicate, CHECK() every byte that moved ...
 *     test_finish();            // barrier, rank 0 prints "PASS ...", gasnet_exit(0)
 *   }
 *
 * CHECK(cond) / CHECKF(cond, fmt, ...) print "FAIL rank R: file:line: ..." and
 * end the whole job with gasnet_exit(1).  They may be used inside AM handlers
 * (gasnet_exit is legal in handler context).
 *
 * Iteration counts are scaled with test_iters(): GEX_TEST_SCALE (percent,
 * default 100, set lower by CMake for sanitizer builds) and the number of
 * ranks per online CPU.
 */
#ifndef GEX_TEST_UTIL_H
#define GEX_TEST_UTIL_H

#include <gasnetex.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name; /* test name, printed in PASS/FAIL lines */
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  gex_Rank_t rank, size;
  unsigned char *seg_base; /* my segment */
  uintptr_t seg_size;
  /* Every peer's bound segment, from gex_EP_QueryBoundSegmentNB:
   * address in the owner's address space, and its size. */
  unsigned char **peer_seg;
  uintptr_t *peer_size;
  int initialized;
} test_ctx_t;

extern test_ctx_t T;

/* ---- failure reporting ------------------------------------------------ */
#ifdef __GNUC__
#define TEST_NORETURN __attribute__((noreturn))
#define TEST_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TEST_NORETURN
#define TEST_PRINTF(a, b)
#endif

TEST_NORETURN void test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    TEST_PRINTF(4, 5);

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) test_fail(__FILE__, __LINE__, #cond, NULL);          \
  } while (0)
#define CHECKF(cond, ...)                                             \
  do {                                                                \
    if (!(cond)) test_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);   \
  } while (0)

/* Print one line (prefixed "rank R: ") to stdout, flushed at once. */
void test_log(const char *fmt, ...) TEST_PRINTF(1, 2);
/* Same, only from rank 0. */
void test_log0(const char *fmt, ...) TEST_PRINTF(1, 2);

/* ---- start and end -------------------------------------------------------- */
/* gex_Client_Init (client name 'name') with
 * 'init_flags', gex_Segment_Attach of seg_size bytes (rounded up to a page),
 * registration of 'handlers' (may be NULL), discovery of all peer segments,
 * and a barrier so that every rank's handlers are registered on return.
 * Also checks GEX_TEST_EXPECT_RANKS (set by ctest) against the job size. */
void test_init_flags(int *argc, char ***argv, const char *name, uintptr_t seg_size,
                     gex_AM_Entry_t *handlers, size_t nhandlers, gex_Flags_t init_flags);
/* Only the first part of test_init_flags: gex_Client_Init, watchdog, the
 * GEX_TEST_EXPECT_RANKS check; no segment, no handlers, no barrier (for
 * tests that make their segment themselves). */
void test_init_client(int *argc, char ***argv, const char *name, gex_Flags_t init_flags);
/* When set before test_init, gives the segment size of each rank (the
 * seg_size argument is then ignored). */
extern uintptr_t (*test_seg_size_fn)(gex_Rank_t rank, gex_Rank_t size);
#define test_init(argc, argv, name, seg_size, handlers, nhandlers) \
  test_init_flags(argc, argv, name, seg_size, handlers, nhandlers, 0)

/* Arm the alarm that ends a hung test after GEX_TEST_WATCHDOG seconds
 * (test_init does it; tests that start the client otherwise call it). */
void test_start_watchdog(void);

/* Final barrier, rank 0 prints "PASS <name> (<size> ranks)", gasnet_exit(0). */
TEST_NORETURN void test_finish(void);

/* Blocking barrier over the primordial team (gex_Coll_BarrierNB + Wait). */
void test_barrier(void);

/* Does jobrank r share memory with this rank (same neighbourhood)? */
int test_in_nbrhd(gex_Rank_t r);

/* ---- sizes and iteration scaling -------------------------------------------- */
/* GEX_TEST_SCALE in percent (default 100). */
int test_scale_pct(void);
/* base * scale / oversubscription, at least 'min'. */
long test_iters(long base, long min);
/* The count given as the program's first argument, or 'dflt' when there is
 * none or it is not a positive number: ctest passes the run's token there
 * (tests/expect.sh), which must not be read as 0. */
long test_arg_count(int argc, char **argv, long dflt);
/* 1 when the run is "heavy" (sanitizer scale or oversubscribed): tests use
 * it to thin out exhaustive size sweeps while keeping the boundaries. */
int test_reduced(void);

/* ---- data patterns ----------------------------------------------------------- */
/* Deterministic pseudo-random bytes: byte i of stream 'seed'.  Any shift,
 * truncation, duplication or cross-stream mix-up is detected. */
uint64_t test_mix(uint64_t x);
static inline uint64_t test_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return test_mix(test_mix(test_mix(test_mix(a + 0x1234567ULL) ^ b) ^ c) ^ d);
}
void test_fill(void *buf, size_t n, uint64_t seed);
/* Returns -1 when buf holds the pattern, else the index of the first bad byte. */
long test_verify(const void *buf, size_t n, uint64_t seed);
/* Expected byte i of stream seed (for messages). */
unsigned char test_pattern_byte(uint64_t seed, size_t i);
/* Returns -1 when every byte of buf equals c, else the first bad index. */
long test_verify_byte(const void *buf, size_t n, unsigned char c);

#define CHECK_PATTERN(buf, n, seed)                                                       \
  do {                                                                                    \
    long bad_ = test_verify((buf), (n), (seed));                                          \
    if (bad_ >= 0)                                                                        \
      test_fail(__FILE__, __LINE__, "pattern", "byte %ld of %zu: got 0x%02x want 0x%02x", \
                bad_, (size_t)(n), ((const unsigned char *)(buf))[bad_],                  \
                test_pattern_byte((seed), (size_t)bad_));                                 \
  } while (0)

#define CHECK_BYTES(buf, n, c)                                                             \
  do {                                                                                     \
    long bad_ = test_verify_byte((buf), (n), (c));                                         \
    if (bad_ >= 0)                                                                         \
      test_fail(__FILE__, __LINE__, "guard", "byte %ld of %zu: got 0x%02x want 0x%02x",     \
                bad_, (size_t)(n), ((const unsigned char *)(buf))[bad_], (unsigned)(c)); \
  } while (0)

/* ---- misc ------------------------------------------------------------------------ */
/* Split/join a pointer into two AM arguments. */
static inline gex_AM_Arg_t test_ptr_hi(const void *p) {
  return (gex_AM_Arg_t)(uint32_t)((uint64_t)(uintptr_t)p >> 32);
}
static inline gex_AM_Arg_t test_ptr_lo(const void *p) {
  return (gex_AM_Arg_t)(uint32_t)((uint64_t)(uintptr_t)p & 0xFFFFFFFFu);
}
static inline void *test_ptr_join(gex_AM_Arg_t hi, gex_AM_Arg_t lo) {
  return (void *)(uintptr_t)(((uint64_t)(uint32_t)hi << 32) | (uint64_t)(uint32_t)lo);
}

/* Address of 'off' bytes into the segment of rank r (owner's address space). */
static inline void *test_peer_addr(gex_Rank_t r, uintptr_t off) {
  return T.peer_seg[r] + off;
}

/* Wait for an event that may be GEX_EVENT_INVALID (never NO_OP). */
static inline void test_wait(gex_Event_t ev) {
  CHECK(ev != GEX_EVENT_NO_OP);
  gex_Event_Wait(ev);
}

/* Poll until *flag (in shared or local memory) reaches at least v. */
static inline void test_poll_until_geq(const volatile uint64_t *flag, uint64_t v) {
  GASNET_BLOCKUNTIL(__atomic_load_n(flag, __ATOMIC_ACQUIRE) >= v);
}

/* Monotonic time in seconds. */
double test_now(void);

/* A count kept by the library (an internal hook), checked over the job
 * (collective): environment variable 'var' unset or empty -- no check; "0"
 * -- the sum of 'mine' over the job must be 0; anything else -- it must
 * not be.  Rank 0 prints the sum. */
void test_check_job_count(const char *var, uint64_t mine, const char *what);

#endif

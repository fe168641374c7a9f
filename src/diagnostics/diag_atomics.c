/* diagnostics/diag_atomics.c -- section C of the diagnostics: the tools'
 * atomics under contention from 'threads' threads, 'iters' rounds each.
 *
 * Per round every thread
 *  - adds 1 to a 32-bit counter and records the value add returned: every
 *    value 1..n*iters must be returned exactly once;
 *  - decrements a 64-bit counter that starts at n*iters with
 *    decrement_and_test: exactly one call in the team sees zero;
 *  - adds and subtracts seeded random amounts on a 32-bit counter: its end
 *    value is the start plus the sum of every thread's amounts;
 *  - increments a 64-bit counter with a compare-and-swap loop: exact count;
 *  - swaps a value of its own into a 64-bit word: the values taken out plus
 *    the one left equal the values put in plus the first.
 * Fault: thread 0 adds one increment the add counter does not record.
 */
#include <stdlib.h>

#include "diagnostics/diag.h"

/* The fence flags of the operations below (they exercise the flagged forms;
 * the checks need no ordering: the threads are joined before them).  GCC
 * cannot instrument fences under ThreadSanitizer and warns (-Wtsan, an
 * error here), so that build uses the plain forms. */
#if defined(__SANITIZE_THREAD__)
#define FLAGS(f) 0
#else
#define FLAGS(f) (f)
#endif

struct atomics_test {
  gasnett_atomic_t added;       /* +1 per round, values recorded */
  unsigned char *returned;      /* [v - 1]: times add returned v (atomic) */
  gasnett_atomic64_t down;      /* decrement_and_test from n * iters */
  int zero_seen;                /* atomic: calls that saw zero */
  gasnett_atomic32_t sum;       /* random adds and subtracts */
  uint32_t *sum_delta;          /* [t]: the net amount thread t added */
  gasnett_atomic64_t cas;       /* compare-and-swap increments */
  gasnett_atomic64_t swapped;   /* swap */
  uint64_t *swap_out;           /* [t]: sum of the values thread t took out */
};

#define SWAP_FIRST UINT64_C(0x5DEECE66D)
/* The value thread t puts into the swap word in round i (never repeated). */
static uint64_t swap_value(int t, uint64_t i) { return ((uint64_t)(t + 1) << 40) | (i + 1); }

static void atomics_thread(void *arg, int t, int n) {
  struct atomics_test *a = (struct atomics_test *)arg;
  uint64_t iters = (uint64_t)gexdiag_ctx.iters;
  uint64_t total = (uint64_t)n * iters;
  gexdiag_rng_t rng = {gexdiag_key('C', gexdiag_ctx.rank, (uint64_t)t, 0)};
  uint32_t delta = 0;
  uint64_t out = 0;
  for (uint64_t i = 0; i < iters; i++) {
    gasnett_atomic_val_t v = gasnett_atomic_add(&a->added, 1, 0);
    if (v < 1 || v > total)
      gexdiag_error("thread %d: atomic add returned %lu (want 1..%llu)", t, (unsigned long)v,
                    (unsigned long long)total);
    else
      __atomic_fetch_add(&a->returned[v - 1], 1, __ATOMIC_RELAXED);

    if (gasnett_atomic64_decrement_and_test(&a->down, FLAGS(GASNETT_ATOMIC_ACQ_IF_TRUE)))
      __atomic_fetch_add(&a->zero_seen, 1, __ATOMIC_RELAXED);

    uint32_t amount = (uint32_t)gexdiag_range(&rng, 1, 1000);
    if (gexdiag_next(&rng) & 1) {
      gasnett_atomic32_add(&a->sum, amount, FLAGS(GASNETT_ATOMIC_REL));
      delta += amount;
    } else {
      gasnett_atomic32_subtract(&a->sum, amount, FLAGS(GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST));
      delta -= amount;
    }

    for (;;) {
      uint64_t old = gasnett_atomic64_read(&a->cas, 0);
      if (gasnett_atomic64_compare_and_swap(&a->cas, old, old + 1, FLAGS(GASNETT_ATOMIC_ACQ_IF_TRUE))) break;
      gasnett_spinloop_hint();
    }

    out += gasnett_atomic64_swap(&a->swapped, swap_value(t, i), 0);
  }
  a->sum_delta[t] = delta;
  a->swap_out[t] = out;
  if (t == 0 && gexdiag_fault()) gasnett_atomic_increment(&a->added, 0);
}

void gexdiag_section_atomics(void) {
  struct atomics_test a;
  uint64_t iters = (uint64_t)gexdiag_ctx.iters;
  int threads = gexdiag_ctx.threads;
  a.returned = calloc((size_t)((uint64_t)threads * iters), 1);
  a.sum_delta = calloc((size_t)threads, sizeof *a.sum_delta);
  a.swap_out = calloc((size_t)threads, sizeof *a.swap_out);
  if (!a.returned || !a.sum_delta || !a.swap_out) {
    gexdiag_error("no memory for %d threads x %llu rounds", threads, (unsigned long long)iters);
    free(a.returned);
    free(a.sum_delta);
    free(a.swap_out);
    return;
  }
  /* The down counter starts at the requested count; corrected below if
   * fewer threads ran. */
  const uint32_t sum_start = 0x80000000u;
  gasnett_atomic_set(&a.added, 0, 0);
  gasnett_atomic64_set(&a.down, (uint64_t)threads * iters, 0);
  a.zero_seen = 0;
  gasnett_atomic32_set(&a.sum, sum_start, 0);
  gasnett_atomic64_set(&a.cas, 0, 0);
  gasnett_atomic64_set(&a.swapped, SWAP_FIRST, FLAGS(GASNETT_ATOMIC_WMB_POST));

  int n = gexdiag_run_threads(threads, atomics_thread, &a);
  uint64_t total = (uint64_t)n * iters;

  uint64_t added = gasnett_atomic_read(&a.added, FLAGS(GASNETT_ATOMIC_RMB_PRE));
  if (added != (uint32_t)total)
    gexdiag_error("the add counter is %llu after %llu increments", (unsigned long long)added,
                  (unsigned long long)total);
  for (uint64_t v = 0; v < total; v++)
    if (a.returned[v] != 1) {
      gexdiag_error("atomic add returned %llu %u times (every value once)",
                    (unsigned long long)v + 1, (unsigned)a.returned[v]);
      break;
    }
  uint64_t down = gasnett_atomic64_read(&a.down, 0);
  uint64_t down_want = (uint64_t)(threads - n) * iters;
  if (down != down_want)
    gexdiag_error("the decremented counter is %llu, want %llu", (unsigned long long)down,
                  (unsigned long long)down_want);
  if (n == threads && a.zero_seen != 1)
    gexdiag_error("decrement_and_test saw zero %d times (want once)", a.zero_seen);
  uint32_t sum_want = sum_start;
  for (int t = 0; t < n; t++) sum_want += a.sum_delta[t];
  uint32_t sum = gasnett_atomic32_read(&a.sum, 0);
  if (sum != sum_want)
    gexdiag_error("the add/subtract counter is 0x%08lx, want 0x%08lx", (unsigned long)sum,
                  (unsigned long)sum_want);
  uint64_t cas = gasnett_atomic64_read(&a.cas, 0);
  if (cas != total)
    gexdiag_error("the compare-and-swap counter is %llu after %llu increments",
                  (unsigned long long)cas, (unsigned long long)total);
  uint64_t in = SWAP_FIRST, out = gasnett_atomic64_read(&a.swapped, 0);
  for (int t = 0; t < n; t++) {
    out += a.swap_out[t];
    for (uint64_t i = 0; i < iters; i++) in += swap_value(t, i);
  }
  if (in != out)
    gexdiag_error("swap lost or duplicated values (sum in 0x%llx, out 0x%llx)",
                  (unsigned long long)in, (unsigned long long)out);
  free(a.returned);
  free(a.sum_delta);
  free(a.swap_out);
}

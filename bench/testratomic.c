/* testratomic.c -- gex-testratomic: 8-byte remote atomic fetch-add latency
 * and throughput.
 *
 *   gexrun -n 2 gex-testratomic [ITERS [SECTIONS]]
 *
 * Two atomic domains are created on the primordial team, one for GEX_DT_U64
 * and one for GEX_DT_I64, both with the operations GEX_OP_FADD | GEX_OP_ADD.
 * Every even rank (the initiator) runs the sections against the next odd
 * rank ("remote") and against a word of its own segment ("own rank"); the
 * odd ranks wait in a barrier (which polls).  In a job of one rank the
 * "remote" target is the rank itself.
 *
 *   sections  A-F  U64:  A FADD latency, remote     B FADD latency, own rank
 *                        C ADD NBI flood, remote    D ADD NBI flood, own rank
 *                        E FADD NB flood, remote    F FADD NB flood, own rank
 *             G-L  I64:  the same six
 *
 *   FADD latency   ITERS x (gex_AD_OpNB_<DT>(FADD, 1) + gex_Event_Wait):
 *                  one operation outstanding; us/op = the latency
 *   ADD NBI flood  ITERS x gex_AD_OpNBI_<DT>(ADD, 1), then one
 *                  gex_NBI_Wait(GEX_EC_RMW); us/op = elapsed / ITERS, op/s
 *                  the throughput
 *   FADD NB flood  ITERS x gex_AD_OpNB_<DT>(FADD, 1), each into its own
 *                  result, events in an array, then gex_Event_WaitAll
 *
 * Defaults: ITERS 10000.  One line per section:
 *   A:   0 -          8 byte :   10000 iters,      0.01234 us/op,     81004453.1 op/s,        618.013 MiB/s (gex_AD_OpNB_U64 FADD+Wait latency, remote rank 1)
 * (MiB/s counts the 8-byte operand per operation.)  Lines starting with
 * '#' are comments.
 *
 * Checks: before and after every timed loop the target word is read with a
 * FADD of 0; it must have grown by exactly the number of additions (warm-up
 * included).  In the latency loop every fetched value must be the previous
 * one plus 1, and in the FADD flood the fetched values must sum to what
 * ITERS distinct consecutive values sum to.  A failure ends the job with
 * status 1.
 */
#include "gex_bench.h"

#include <gasnet_ratomic.h>

static gex_bench_t b = {
    .prog = "gex-testratomic",
    .usage = "[ITERS [SECTIONS: A-F U64, G-L I64: FADD latency, ADD NBI flood, FADD NB flood; "
             "remote, own rank]]",
    .o = {.iters = 10000, .maxsz = 8, .minsz = 8, .no_size = 1},
};

static gex_AD_t ad_u64, ad_i64;
static gex_Event_t *events;
static uint64_t *results; /* U64 and I64 results share the buffer */

enum { LAT = 0, ADD_NBI = 1, FADD_NB = 2 };
static const char *pat_name[] = {"FADD+Wait latency", "ADD NBI flood + NBI_Wait",
                                 "FADD NB flood + WaitAll"};

/* One FADD of 'inc' (0: a read) on the target; returns the prior value as a
 * uint64_t (I64 values are converted, which is exact modulo 2^64). */
static uint64_t fadd(int is_i64, gex_Rank_t tgt, void *addr, uint64_t inc) {
  if (is_i64) {
    int64_t r = 0;
    gex_Event_Wait(gex_AD_OpNB_I64(ad_i64, &r, tgt, addr, GEX_OP_FADD, (int64_t)inc, 0, 0));
    return (uint64_t)r;
  }
  uint64_t r = 0;
  gex_Event_Wait(gex_AD_OpNB_U64(ad_u64, &r, tgt, addr, GEX_OP_FADD, inc, 0, 0));
  return r;
}

/* n operations of pattern 'pat'; returns 0, or -1 if a fetched value was
 * wrong.  'start' is the target's value before them. */
static int ops(int is_i64, int pat, gex_Rank_t tgt, void *addr, long n, uint64_t start) {
  switch (pat) {
    case LAT: {
      uint64_t expect = start;
      int bad = 0;
      if (is_i64) {
        for (long i = 0; i < n; i++) {
          int64_t r;
          gex_Event_Wait(gex_AD_OpNB_I64(ad_i64, &r, tgt, addr, GEX_OP_FADD, 1, 0, 0));
          bad |= ((uint64_t)r != expect++);
        }
      } else {
        for (long i = 0; i < n; i++) {
          uint64_t r;
          gex_Event_Wait(gex_AD_OpNB_U64(ad_u64, &r, tgt, addr, GEX_OP_FADD, 1, 0, 0));
          bad |= (r != expect++);
        }
      }
      return bad ? -1 : 0;
    }
    case ADD_NBI:
      if (is_i64) {
        for (long i = 0; i < n; i++) gex_AD_OpNBI_I64(ad_i64, NULL, tgt, addr, GEX_OP_ADD, 1, 0, 0);
      } else {
        for (long i = 0; i < n; i++) gex_AD_OpNBI_U64(ad_u64, NULL, tgt, addr, GEX_OP_ADD, 1, 0, 0);
      }
      gex_NBI_Wait(GEX_EC_RMW, 0);
      return 0;
    default: {
      if (is_i64) {
        int64_t *r = (int64_t *)(void *)results;
        for (long i = 0; i < n; i++)
          events[i] = gex_AD_OpNB_I64(ad_i64, &r[i], tgt, addr, GEX_OP_FADD, 1, 0, 0);
      } else {
        for (long i = 0; i < n; i++)
          events[i] = gex_AD_OpNB_U64(ad_u64, &results[i], tgt, addr, GEX_OP_FADD, 1, 0, 0);
      }
      gex_Event_WaitAll(events, (size_t)n, 0);
      /* n distinct values start, start+1, ..., start+n-1 in some order. */
      uint64_t sum = 0, want = (uint64_t)n * start + (uint64_t)n * (uint64_t)(n - 1) / 2;
      for (long i = 0; i < n; i++) sum += results[i];
      return sum == want ? 0 : -1;
    }
  }
}

static void run(char s) {
  int idx = s - 'A', is_i64 = idx / 6, pat = (idx % 6) / 2, self = idx % 2;
  long iters = b.o.iters, warm = bench_warmup(iters);
  gex_Rank_t tgt = self ? b.me : b.peer;
  /* word 0 of the peer's segment is the remote target, word 1 of mine the
   * own-rank one (only the initiator of a pair touches either) */
  void *addr = self ? (void *)(b.myseg + 8) : (void *)b.peerseg;
  const char *dt = is_i64 ? "I64" : "U64";
  gb_barrier(&b);
  if (b.role == BENCH_SENDER) {
    uint64_t v0 = fadd(is_i64, tgt, addr, 0);
    if (ops(is_i64, pat, tgt, addr, warm, v0) != 0)
      gb_die(&b, "%s %s: a fetched value is wrong (warm-up)", dt, pat_name[pat]);
    double t0 = bench_now_us();
    int bad = ops(is_i64, pat, tgt, addr, iters, v0 + (uint64_t)warm);
    double us = bench_now_us() - t0;
    if (bad) gb_die(&b, "%s %s: a fetched value is wrong", dt, pat_name[pat]);
    uint64_t v1 = fadd(is_i64, tgt, addr, 0);
    if (v1 - v0 != (uint64_t)(warm + iters))
      gb_die(&b, "%s %s: the target grew by %llu after %ld additions", dt, pat_name[pat],
             (unsigned long long)(v1 - v0), warm + iters);
    char desc[160];
    snprintf(desc, sizeof desc, "gex_AD_Op%s_%s %s, %s rank %u", pat == ADD_NBI ? "NBI" : "NB", dt,
             pat_name[pat], self ? "own" : "remote", (unsigned)tgt);
    bench_print_op(s, (unsigned)b.me, 8, iters, us, desc);
  }
  gb_barrier(&b);
}

int main(int argc, char **argv) {
  gb_init(&b, &argc, &argv, "ABCDEFGHIJKL");
  gb_attach(&b, 4096);
  memset(b.myseg, 0, 16);
  gex_AD_Create(&ad_u64, b.tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_ADD, 0);
  gex_AD_Create(&ad_i64, b.tm, GEX_DT_I64, GEX_OP_FADD | GEX_OP_ADD, 0);
  gb_barrier(&b); /* the zeroed counters, before any operation (gex_AD_Create does not synchronize) */
  events = malloc(sizeof(gex_Event_t) * (size_t)b.o.iters);
  results = malloc(sizeof(uint64_t) * (size_t)b.o.iters);
  if (!events || !results) gb_die(&b, "out of memory");
  gb_header(&b, "8-byte atomic fetch-add latency and throughput (domains: FADD|ADD)");
  for (const char *s = b.o.sections; *s; s++) run(*s);
  gb_barrier(&b);
  gex_AD_Destroy(ad_i64);
  gex_AD_Destroy(ad_u64);
  free(results);
  free(events);
  gasnet_exit(0);
}

/* testcoll.c -- gex-testcoll: broadcast and reduce-to-all latency.
 *
 *   gexrun -n 2 gex-testcoll [-m] [-in|-out] [-minsz N] [-budget B] [ITERS [MAXSZ [SECTIONS]]]
 *
 * All ranks of the primordial team run ITERS collectives of one size back to
 * back, each initiated and then waited for (gex_Event_Wait) before the
 * next, after ITERS/10 warm-up ones (at most 1000).  The figure printed by
 * rank 0 is the largest over the ranks of (elapsed / ITERS): the mean
 * latency on the slowest rank.
 *
 *   section A  gex_Coll_BroadcastNB from rank 0, size bytes; the root passes
 *              its src as its dst (no copy at the root), as MPI_Bcast's root
 *              broadcasts from its one buffer (mpi-coll-bench F)
 *   section B  gex_Coll_ReduceToAllNB, GEX_DT_U64, GEX_OP_ADD (sum), size/8 elements
 *   section C  gex_Coll_ReduceToAllNB, GEX_DT_DBL, GEX_OP_ADD (sum), size/8 elements
 *   section D  gex_Coll_ReduceToOneNB to rank 0, GEX_DT_U64, GEX_OP_ADD (sum),
 *              size/8 elements (only rank 0's result is checked)
 *
 * Sizes: with -m 8, 16, 32, ... bytes (or from -minsz, at least 8) up to
 * MAXSZ; without -m MAXSZ only.  Sizes are rounded down to a multiple of 8.
 * Defaults: ITERS 1000, MAXSZ 1M.  -in / -out: the source and destination
 * buffers are inside / outside (default, malloc) the segment.
 *
 * One line per size and section:
 *   B:   0 -       4096 byte :    1000 iters,      1.23456 us/op,       810004.5 op/s,       3164.075 MiB/s (gex_Coll_ReduceToAllNB U64 SUM, 2 ranks)
 * (MiB/s: size bytes per collective / us/op.)  Lines starting with '#' are
 * comments.
 *
 * Check, after each size: one more collective with fresh data and a cleared
 * destination; every rank compares its destination with the expected
 * broadcast payload or sum (exact: the DBL inputs are small integers).  A
 * wrong result ends the job with status 1.
 */
#include "gex_bench.h"

static gex_bench_t b = {
    .prog = "gex-testcoll",
    .usage = "[-m] [-in|-out] [-minsz N] [-budget BYTES] [ITERS [MAXSZ [SECTIONS: A=Broadcast "
             "B=ReduceToAll U64 SUM C=ReduceToAll DBL SUM D=ReduceToOne U64 SUM]]]",
    .o = {.iters = 1000, .maxsz = (size_t)1 << 20, .minsz = 8},
};

static unsigned char *src, *dst;

static gex_Event_t coll(char s, size_t sz) {
  switch (s) {
    case 'A': return gex_Coll_BroadcastNB(b.tm, 0, b.me == 0 ? src : dst, src, sz, 0);
    case 'B':
      return gex_Coll_ReduceToAllNB(b.tm, dst, src, GEX_DT_U64, 8, sz / 8, GEX_OP_ADD, NULL, NULL, 0);
    case 'D':
      return gex_Coll_ReduceToOneNB(b.tm, 0, b.me == 0 ? dst : NULL, src, GEX_DT_U64, 8, sz / 8, GEX_OP_ADD,
                                    NULL, NULL, 0);
    default:
      return gex_Coll_ReduceToAllNB(b.tm, dst, src, GEX_DT_DBL, 8, sz / 8, GEX_OP_ADD, NULL, NULL, 0);
  }
}

static const char *opname(char s) {
  switch (s) {
    case 'A': return "gex_Coll_BroadcastNB root 0";
    case 'B': return "gex_Coll_ReduceToAllNB U64 SUM";
    case 'D': return "gex_Coll_ReduceToOneNB U64 SUM root 0";
    default: return "gex_Coll_ReduceToAllNB DBL SUM";
  }
}

/* Element i of rank r's input: small enough that every sum is exact. */
static uint64_t input(gex_Rank_t r, size_t sz, size_t i) { return (uint64_t)r * 1000003u + (i % 4093) + sz % 7; }

static void fill(char s, size_t sz) {
  size_t n = sz / 8;
  if (s == 'A') {
    bench_fill(src, sz, sz, s);
  } else if (s == 'B' || s == 'D') {
    uint64_t *u = (uint64_t *)(void *)src;
    for (size_t i = 0; i < n; i++) u[i] = input(b.me, sz, i);
  } else {
    double *d = (double *)(void *)src;
    for (size_t i = 0; i < n; i++) d[i] = (double)input(b.me, sz, i);
  }
}

static void verify(char s, size_t sz) {
  size_t n = sz / 8;
  fill(s, sz);
  memset(dst, 0, sz);
  gex_Event_Wait(coll(s, sz));
  if (s == 'A') {
    const unsigned char *p = b.me == 0 ? src : dst;
    size_t bad = bench_check(p, sz, sz, s);
    if (bad != (size_t)-1)
      gb_die(&b, "broadcast check failed at size %zu: byte %zu is %#x, expected %#x", sz, bad,
             p[bad], bench_pattern(sz, s, bad));
    return;
  }
  if (s == 'D' && b.me != 0) return; /* only the root has a result */
  for (size_t i = 0; i < n; i++) {
    uint64_t want = 0;
    for (gex_Rank_t r = 0; r < b.nranks; r++) want += input(r, sz, i);
    uint64_t got;
    if (s != 'C') {
      memcpy(&got, dst + 8 * i, 8);
    } else {
      double d;
      memcpy(&d, dst + 8 * i, 8);
      got = (uint64_t)d;
      if (d != (double)want) got = want + 1; /* not an integer or not the sum */
    }
    if (got != want)
      gb_die(&b, "%s check failed at size %zu: element %zu is %llu, expected %llu", opname(s), sz, i,
             (unsigned long long)got, (unsigned long long)want);
  }
}

static void run(char s) {
  for (size_t sz = bench_first_size(&b.o, SIZE_MAX); sz; sz = bench_next_size(&b.o, SIZE_MAX, sz)) {
    size_t n = sz & ~(size_t)7;
    if (n == 0) continue;
    long iters = bench_iters_at(&b.o, n), warm = bench_warmup(iters);
    fill(s, n);
    gb_barrier(&b);
    for (long i = 0; i < warm; i++) gex_Event_Wait(coll(s, n));
    double t0 = bench_now_us();
    for (long i = 0; i < iters; i++) gex_Event_Wait(coll(s, n));
    double us = bench_now_us() - t0;
    verify(s, n);
    us = gb_max_to_0(&b, us);
    if (b.me == 0) {
      char desc[128];
      snprintf(desc, sizeof desc, "%s, %u rank%s", opname(s), (unsigned)b.nranks, b.nranks == 1 ? "" : "s");
      bench_print_op(s, 0, n, iters, us, desc);
    }
  }
}

int main(int argc, char **argv) {
  gb_init(&b, &argc, &argv, "ABCD");
  if (b.o.maxsz < 8) gb_usage(&b, "MAXSZ must be at least 8");
  if (b.o.minsz < 8) b.o.minsz = 8;
  size_t r = bench_round_page(b.o.maxsz);
  gb_attach(&b, b.o.in_seg ? 2 * r : 4096);
  if (b.o.in_seg) {
    src = b.myseg;
    dst = b.myseg + r;
  } else {
    src = gb_local_buffer(&b, 0, b.o.maxsz);
    dst = gb_local_buffer(&b, 0, b.o.maxsz);
  }
  gb_header(&b, "broadcast and reduce latency, the slowest rank's mean");
  for (const char *s = b.o.sections; *s; s++) run(*s);
  gb_barrier(&b);
  gb_free_local(&b, src);
  gb_free_local(&b, dst);
  gasnet_exit(0);
}

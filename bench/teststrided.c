/* teststrided.c -- gex-teststrided: strided Put/Get bandwidth against
 * contiguous transfers of the same bytes.
 *
 *   gexrun -n 2 gex-teststrided [-m] [-in|-out] [-minsz N] [-budget B] [ITERS [MAXSZ [SECTIONS]]]
 *
 * Every even rank (the sender) moves SIZE bytes to / from the next odd
 * rank's segment as a 2-D shape: 'count' chunks of 'chunk' bytes, chunk x
 * count = SIZE, for chunk = 8, 64, 512 and 4096 bytes (those not above
 * SIZE).  On the remote side consecutive chunks are 2 x chunk apart (every
 * other chunk of a region of 2 x SIZE: a column block of a row-major
 * array); on the local side they are packed.  Each section issues ITERS
 * operations back to back and waits once (as gex-testlarge does);
 * bandwidth = SIZE x ITERS / elapsed.
 *
 *   section A  gex_VIS_StridedPutNBI of the shape, then gex_NBI_Wait(GEX_EC_PUT)
 *   section B  gex_VIS_StridedGetNBI of the shape, then gex_NBI_Wait(GEX_EC_GET)
 *   section C  by hand: count x gex_RMA_PutNBI of one chunk each, then one wait
 *   section D  by hand: count x gex_RMA_GetNBI of one chunk each, then one wait
 *   section E  one contiguous gex_RMA_PutNBI of SIZE bytes (no chunks), then one wait
 *   section F  one contiguous gex_RMA_GetNBI of SIZE bytes, then one wait
 *
 * Sizes: with -m 4K, 8K, ... (or from -minsz) up to MAXSZ, else MAXSZ only.
 * Defaults: ITERS 100, MAXSZ 1M.  -budget caps ITERS x SIZE as elsewhere.
 *
 * One line per size, chunk and section:
 *   A:   0 -      65536 byte :     100 iters,      5.12345 us/op,       195180.3 op/s,      12198.765 MiB/s (gex_VIS_StridedPutNBI, chunk 64 B x 1024, remote stride 128 B)
 * (us/op is the time of one SIZE-byte transfer.)  Sections E and F print
 * "chunk SIZE B x 1".  Lines starting with '#' are comments.
 *
 * Check, after each timed loop: for a Put, the sender reads the remote 2 x
 * SIZE region back with a blocking Get and compares the chunks with the
 * source pattern (and the gaps, which must still hold the gap pattern); for
 * a Get, the remote region is filled first and the local buffer compared
 * afterwards.  Wrong data ends the job with status 1.
 */
#include "gex_bench.h"

#include <gasnet_vis.h>

static gex_bench_t b = {
    .prog = "gex-teststrided",
    .usage = "[-m] [-in|-out] [-minsz N] [-budget BYTES] [ITERS [MAXSZ [SECTIONS: A=StridedPutNBI "
             "B=StridedGetNBI C=chunked PutNBI D=chunked GetNBI E=contiguous PutNBI F=contiguous GetNBI]]]",
    .o = {.iters = 100, .maxsz = (size_t)1 << 20, .minsz = 4096},
};

static unsigned char *loc, *chk;
static const size_t chunks[] = {8, 64, 512, 4096};

static const char *opname(char s) {
  switch (s) {
    case 'A': return "gex_VIS_StridedPutNBI";
    case 'B': return "gex_VIS_StridedGetNBI";
    case 'C': return "chunk-by-chunk gex_RMA_PutNBI";
    case 'D': return "chunk-by-chunk gex_RMA_GetNBI";
    case 'E': return "contiguous gex_RMA_PutNBI";
    default: return "contiguous gex_RMA_GetNBI";
  }
}

/* n transfers of the shape (chunk x count, remote stride 2 x chunk). */
static void flood(char s, size_t chunk, size_t count, long n) {
  unsigned char *rem = b.peerseg;
  ptrdiff_t rstride[1] = {(ptrdiff_t)(2 * chunk)}, lstride[1] = {(ptrdiff_t)chunk};
  size_t cnt[1] = {count};
  size_t sz = chunk * count;
  for (long i = 0; i < n; i++) {
    switch (s) {
      case 'A': gex_VIS_StridedPutNBI(b.tm, b.peer, rem, rstride, loc, lstride, chunk, cnt, 1, 0); break;
      case 'B': gex_VIS_StridedGetNBI(b.tm, loc, lstride, b.peer, rem, rstride, chunk, cnt, 1, 0); break;
      case 'C':
        for (size_t k = 0; k < count; k++)
          gex_RMA_PutNBI(b.tm, b.peer, rem + 2 * chunk * k, loc + chunk * k, chunk, GEX_EVENT_DEFER, 0);
        break;
      case 'D':
        for (size_t k = 0; k < count; k++)
          gex_RMA_GetNBI(b.tm, loc + chunk * k, b.peer, rem + 2 * chunk * k, chunk, 0);
        break;
      case 'E': gex_RMA_PutNBI(b.tm, b.peer, rem, loc, sz, GEX_EVENT_DEFER, 0); break;
      default: gex_RMA_GetNBI(b.tm, loc, b.peer, rem, sz, 0); break;
    }
    BENCH_COMPILER_BARRIER();
  }
  gex_NBI_Wait((s == 'A' || s == 'C' || s == 'E') ? GEX_EC_PUT : GEX_EC_GET, 0);
}

/* The remote region as it must look: for a strided/chunked Put, chunk k of
 * the source at 2 x chunk x k and the gap pattern between; for a contiguous
 * Put, the source.  'gap' is the section's gap pattern id. */
static void check_put(char s, size_t chunk, size_t count) {
  size_t sz = chunk * count, span = (s == 'E') ? sz : 2 * sz;
  memset(chk, 0, span);
  gex_RMA_GetBlocking(b.tm, chk, b.peer, b.peerseg, span, 0);
  for (size_t k = 0; k < count; k++) {
    size_t stride = (s == 'E') ? chunk : 2 * chunk;
    for (size_t j = 0; j < chunk; j++) {
      size_t at = k * stride + j, srcidx = k * chunk + j;
      if (chk[at] != bench_pattern(sz, s, srcidx))
        gb_die(&b, "%s check failed (size %zu, chunk %zu): remote byte %zu is %#x, expected %#x",
               opname(s), sz, chunk, at, chk[at], bench_pattern(sz, s, srcidx));
      if (s != 'E' && chk[at + chunk] != 0xa5)
        gb_die(&b, "%s check failed (size %zu, chunk %zu): gap byte %zu was written", opname(s), sz,
               chunk, at + chunk);
    }
  }
}

static void run(char s) {
  int is_put = (s == 'A' || s == 'C' || s == 'E');
  int contiguous = (s == 'E' || s == 'F');
  for (size_t sz = bench_first_size(&b.o, SIZE_MAX); sz; sz = bench_next_size(&b.o, SIZE_MAX, sz)) {
    for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++) {
      size_t chunk = contiguous ? sz : chunks[ci];
      if (chunk > sz) break;
      if (sz % chunk) continue;
      size_t count = sz / chunk;
      long iters = bench_iters_at(&b.o, sz), warm = bench_warmup(iters);
      gb_barrier(&b);
      if (b.role == BENCH_SENDER) {
        /* the remote region: the gap pattern everywhere (Put), or a pattern
         * the Get must bring back chunk by chunk */
        if (is_put) {
          memset(chk, 0xa5, 2 * sz);
          bench_fill(loc, sz, sz, s);
        } else {
          for (size_t k = 0; k < count; k++) {
            size_t stride = contiguous ? chunk : 2 * chunk;
            for (size_t j = 0; j < chunk; j++) chk[k * stride + j] = bench_pattern(sz, s, k * chunk + j);
            if (!contiguous) memset(chk + k * stride + chunk, 0xa5, chunk);
          }
        }
        gex_RMA_PutBlocking(b.tm, b.peer, b.peerseg, chk, 2 * sz, 0);
        flood(s, chunk, count, warm);
        if (!is_put) memset(loc, 0, sz);
        double t0 = bench_now_us();
        flood(s, chunk, count, iters);
        double us = bench_now_us() - t0;
        if (is_put) {
          check_put(s, chunk, count);
        } else {
          size_t bad = bench_check(loc, sz, sz, s);
          if (bad != (size_t)-1)
            gb_die(&b, "%s check failed (size %zu, chunk %zu): local byte %zu is %#x, expected %#x",
                   opname(s), sz, chunk, bad, loc[bad], bench_pattern(sz, s, bad));
        }
        char desc[160];
        if (contiguous)
          snprintf(desc, sizeof desc, "%s, chunk %zu B x 1", opname(s), sz);
        else
          snprintf(desc, sizeof desc, "%s, chunk %zu B x %zu, remote stride %zu B", opname(s), chunk,
                   count, 2 * chunk);
        bench_print_op(s, (unsigned)b.me, sz, iters, us, desc);
      }
      gb_barrier(&b);
      if (contiguous) break;
    }
  }
}

int main(int argc, char **argv) {
  gb_init(&b, &argc, &argv, "ABCDEF");
  size_t region = bench_round_page(2 * b.o.maxsz);
  if (b.o.maxsz > gasnet_getMaxLocalSegmentSize() / 2) {
    char why[160];
    snprintf(why, sizeof why, "MAXSZ %zu needs a segment of twice that; the largest is %zu bytes", b.o.maxsz,
             (size_t)gasnet_getMaxLocalSegmentSize());
    gb_usage(&b, why);
  }
  gb_attach(&b, b.o.in_seg ? region + bench_round_page(b.o.maxsz) : region);
  loc = gb_local_buffer(&b, region, b.o.maxsz);
  chk = calloc(2, b.o.maxsz);
  if (!chk) gb_die(&b, "out of memory");
  gb_header(&b, "strided Put/Get flood bandwidth against chunked and contiguous RMA, MiB/s = 2^20 bytes/s");
  for (const char *s = b.o.sections; *s; s++) run(*s);
  gb_barrier(&b);
  free(chk);
  gb_free_local(&b, loc);
  gasnet_exit(0);
}

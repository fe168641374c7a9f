/* testlarge.c -- gex-testlarge: flood bandwidth of non-blocking Put and Get.
 *
 *   gexrun -n 2 gex-testlarge [-m] [-in|-out] [-minsz N] [-budget B] ITERS MAXSZ [SECTIONS]
 *
 * The reference GASNet testlarge's method: every even rank (the sender)
 * issues ITERS non-blocking operations of one size back to back, all to the
 * same place in the next odd rank's segment, then waits once for all of
 * them; bandwidth = size x ITERS / elapsed time, in MiB/s (2^20 bytes per
 * second).  Sizes: with -m 16, 32, ... bytes up to MAXSZ; without, MAXSZ
 * only.  Defaults: ITERS 1000, MAXSZ 4M.
 *
 *   section A  ITERS x gex_RMA_PutNBI, then gex_NBI_Wait(GEX_EC_PUT, 0)
 *   section B  ITERS x gex_RMA_GetNBI, then gex_NBI_Wait(GEX_EC_GET, 0)
 *   section C  ITERS x gex_RMA_PutNB into an array of events, then gex_Event_WaitAll
 *   section D  ITERS x gex_RMA_GetNB into an array of events, then gex_Event_WaitAll
 *
 * One line per size and section:
 *   A:   0 -      65536 byte :    1000 iters, throughput     12345.678 MiB/s (gex_RMA_PutNBI, out)
 * Lines starting with '#' are comments.
 *
 * The timed operations themselves are checked: the Put source holds a
 * pattern that is read back with a blocking Get afterwards; the Get source
 * (the peer's segment) is filled with a pattern first and the local buffer
 * compared with it afterwards.  Wrong data ends the job with status 1.
 */
#include "gex_bench.h"

static gex_bench_t b = {
    .prog = "gex-testlarge",
    .usage = "[-m] [-in|-out] [-minsz N] [-budget BYTES] ITERS MAXSZ "
             "[SECTIONS: A=PutNBI B=GetNBI C=PutNB D=GetNB]",
    .o = {.iters = 1000, .maxsz = (size_t)4 << 20, .minsz = 16},
};

static unsigned char *loc, *chk;
static gex_Event_t *events;

static const char *opname(char s) {
  switch (s) {
    case 'A': return "gex_RMA_PutNBI";
    case 'B': return "gex_RMA_GetNBI";
    case 'C': return "gex_RMA_PutNB";
    default: return "gex_RMA_GetNB";
  }
}

/* n operations of sz bytes of section s; returns after all completed. */
static void flood(char s, size_t sz, long n) {
  unsigned char *rem = b.peerseg;
  switch (s) {
    case 'A':
      for (long i = 0; i < n; i++) {
        gex_RMA_PutNBI(b.tm, b.peer, rem, loc, sz, GEX_EVENT_DEFER, 0);
        BENCH_COMPILER_BARRIER();
      }
      gex_NBI_Wait(GEX_EC_PUT, 0);
      break;
    case 'B':
      for (long i = 0; i < n; i++) {
        gex_RMA_GetNBI(b.tm, loc, b.peer, rem, sz, 0);
        BENCH_COMPILER_BARRIER();
      }
      gex_NBI_Wait(GEX_EC_GET, 0);
      break;
    case 'C':
      for (long i = 0; i < n; i++) {
        events[i] = gex_RMA_PutNB(b.tm, b.peer, rem, loc, sz, GEX_EVENT_DEFER, 0);
        BENCH_COMPILER_BARRIER();
      }
      gex_Event_WaitAll(events, (size_t)n, 0);
      break;
    default:
      for (long i = 0; i < n; i++) {
        events[i] = gex_RMA_GetNB(b.tm, loc, b.peer, rem, sz, 0);
        BENCH_COMPILER_BARRIER();
      }
      gex_Event_WaitAll(events, (size_t)n, 0);
      break;
  }
}

static void fail_check(const unsigned char *p, size_t sz, char s, size_t at) {
  gb_die(&b, "%s data check failed at size %zu: byte %zu is %#x, expected %#x", opname(s), sz, at,
         p[at], bench_pattern(sz, s, at));
}

static void run(char s) {
  unsigned char *rem = b.peerseg;
  int is_put = (s == 'A' || s == 'C');
  for (size_t sz = bench_first_size(&b.o, SIZE_MAX); sz; sz = bench_next_size(&b.o, SIZE_MAX, sz)) {
    long iters = bench_iters_at(&b.o, sz), warm = bench_warmup(iters);
    gb_barrier(&b);
    if (b.role == BENCH_SENDER) {
      /* Put: the source carries the pattern.  Get: the peer's segment does. */
      if (is_put) {
        bench_fill(loc, sz, sz, s);
      } else {
        bench_fill(chk, sz, sz, s);
        gex_RMA_PutBlocking(b.tm, b.peer, rem, chk, sz, 0);
      }
      flood(s, sz, warm);
      if (!is_put) memset(loc, 0, sz);
      double t0 = bench_now_us();
      flood(s, sz, iters);
      double t1 = bench_now_us();
      size_t bad;
      if (is_put) {
        memset(chk, 0, sz);
        gex_RMA_GetBlocking(b.tm, chk, b.peer, rem, sz, 0);
        if ((bad = bench_check(chk, sz, sz, s)) != (size_t)-1) fail_check(chk, sz, s, bad);
      } else if ((bad = bench_check(loc, sz, sz, s)) != (size_t)-1) {
        fail_check(loc, sz, s, bad);
      }
      double us = t1 - t0;
      if (us <= 0) us = 0.001; /* below the clock's resolution */
      double mibs = (double)sz * (double)iters / (us / 1e6) / (1024.0 * 1024.0);
      printf("%c: %3u - %10zu byte : %7ld iters, throughput %14.3f MiB/s (%s, %s)\n", s,
             (unsigned)b.me, sz, iters, mibs, opname(s), b.o.in_seg ? "in" : "out");
    }
    gb_barrier(&b);
  }
}

int main(int argc, char **argv) {
  gb_init(&b, &argc, &argv, "ABCD");
  gb_attach(&b, b.o.in_seg ? 2 * bench_round_page(b.o.maxsz) : b.o.maxsz);
  loc = gb_local_buffer(&b, bench_round_page(b.o.maxsz), b.o.maxsz);
  chk = malloc(b.o.maxsz);
  events = malloc(sizeof(gex_Event_t) * (size_t)b.o.iters);
  if (!chk || !events) gb_die(&b, "out of memory");
  gb_header(&b, "non-blocking Put/Get flood bandwidth, MiB/s = 2^20 bytes/s");
  for (const char *s = b.o.sections; *s; s++) run(*s);
  gb_barrier(&b);
  free(events);
  free(chk);
  gb_free_local(&b, loc);
  gasnet_exit(0);
}

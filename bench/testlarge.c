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
 *   section E  as A, each Put to a slot of its own: ITERS distinct places in
 *              the peer's segment from ITERS distinct sources (at most 64 MiB
 *              together, fewer iterations at sizes where they would not fit)
 *   section F  as B, each Get from a slot of its own into a slot of its own
 *
 * One line per size and section:
 *   A:   0 -      65536 byte :    1000 iters, throughput     12345.678 MiB/s (gex_RMA_PutNBI, out)
 * Lines starting with '#' are comments.
 *
 * The timed operations themselves are checked: the Put source holds a
 * pattern that is read back with a blocking Get afterwards; the Get source
 * (the peer's segment) is filled with a pattern first and the local buffer
 * compared with it afterwards.  Wrong data ends the job with status 1.
 * Sections E and F check every byte of every operation (outside the timed
 * region): each slot's pattern depends on its index, the warm-up writes
 * another one, so a Put or Get that was lost, or landed in another slot,
 * fails the run.  Test switch GEX_BENCH_FAULT=drop (misplace) makes the
 * timed flood of E and F leave out (misdirect to the next slot) its middle
 * operation, which the check must then report (ctest bench_testlarge_drop,
 * _misplace).
 */
#include "gex_bench.h"

static gex_bench_t b = {
    .prog = "gex-testlarge",
    .usage = "[-m] [-in|-out] [-minsz N] [-budget BYTES] ITERS MAXSZ "
             "[SECTIONS: A=PutNBI B=GetNBI C=PutNB D=GetNB E=PutNBI distinct F=GetNBI distinct]",
    .o = {.iters = 1000, .maxsz = (size_t)4 << 20, .minsz = 16},
};

static unsigned char *loc, *chk;
static gex_Event_t *events;
/* Sections E and F: the slots (at most DISTINCT_MAX bytes), here and at the
 * peer (its segment from offset 0). */
#define DISTINCT_MAX ((size_t)64 << 20)
static size_t distinct_bytes;
static unsigned char *dsrc, *dchk;
static long fault_at = -1; /* GEX_BENCH_FAULT: the timed flood's operation to spoil */
static int fault_drop;      /* 1: leave it out; 0: misdirect it to the next slot */

static const char *opname(char s);

/* Byte i of slot-pattern 'salt' at size sz: depends on the slot (i / sz). */
static unsigned char slot_pattern(size_t sz, int salt, size_t i) {
  uint64_t x = (uint64_t)(i / sz) * 0x9e3779b97f4a7c15ull + (uint64_t)salt * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 31;
  return (unsigned char)(bench_pattern(sz, salt, i) ^ (x >> 24));
}
static void slot_fill(unsigned char *p, size_t n, size_t sz, int salt) {
  for (size_t i = 0; i < n; i++) p[i] = slot_pattern(sz, salt, i);
}
static size_t slot_check(const unsigned char *p, size_t n, size_t sz, int salt) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != slot_pattern(sz, salt, i)) return i;
  return (size_t)-1;
}

/* n Puts (E) or Gets (F) of sz bytes, slot i to slot i, then one wait. */
static void flood_distinct(char s, size_t sz, long n, int timed) {
  unsigned char *rem = b.peerseg;
  for (long i = 0; i < n; i++) {
    size_t off = (size_t)i * sz;
    if (timed && fault_at >= 0 && i == n / 2 && n > 1) {
      if (fault_drop) continue;
      off += sz; /* both ends of the next slot: this one keeps stale bytes */
    }
    if (s == 'E')
      gex_RMA_PutNBI(b.tm, b.peer, rem + off, dsrc + off, sz, GEX_EVENT_DEFER, 0);
    else
      gex_RMA_GetNBI(b.tm, dchk + off, b.peer, rem + off, sz, 0);
    BENCH_COMPILER_BARRIER();
  }
  gex_NBI_Wait(s == 'E' ? GEX_EC_PUT : GEX_EC_GET, 0);
}

/* Copy n bytes between here and the peer's segment at offset 0, blocking,
 * in pieces (setting up and checking sections E and F, untimed). */
static void move_blocking(int to_peer, unsigned char *local, size_t n) {
  unsigned char *rem = b.peerseg;
  for (size_t off = 0; off < n; off += (size_t)1 << 20) {
    size_t k = n - off < ((size_t)1 << 20) ? n - off : (size_t)1 << 20;
    if (to_peer)
      gex_RMA_PutBlocking(b.tm, b.peer, rem + off, local + off, k, 0);
    else
      gex_RMA_GetBlocking(b.tm, local + off, b.peer, rem + off, k, 0);
  }
}

static void run_distinct(char s) {
  for (size_t sz = bench_first_size(&b.o, SIZE_MAX); sz; sz = bench_next_size(&b.o, SIZE_MAX, sz)) {
    long iters = bench_iters_at(&b.o, sz);
    if ((size_t)iters > distinct_bytes / sz) iters = (long)(distinct_bytes / sz);
    long warm = bench_warmup(iters);
    size_t n = (size_t)iters * sz;
    gb_barrier(&b);
    if (b.role == BENCH_SENDER && iters > 0) {
      /* Warm-up with pattern 'w', then the timed flood with pattern s. */
      if (s == 'E') {
        slot_fill(dsrc, n, sz, 'w');
        flood_distinct(s, sz, warm, 0);
        slot_fill(dsrc, n, sz, s);
      } else {
        slot_fill(dsrc, n, sz, s);
        move_blocking(1, dsrc, n);
        flood_distinct(s, sz, warm, 0);
        memset(dchk, 0, n);
      }
      double t0 = bench_now_us();
      flood_distinct(s, sz, iters, 1);
      double t1 = bench_now_us();
      if (s == 'E') {
        memset(dchk, 0, n);
        move_blocking(0, dchk, n);
      }
      size_t bad = slot_check(dchk, n, sz, s);
      if (bad != (size_t)-1)
        gb_die(&b, "%s data check failed at size %zu: operation %zu, its byte %zu is %#x, "
                   "expected %#x",
               s == 'E' ? "distinct-address gex_RMA_PutNBI" : "distinct-address gex_RMA_GetNBI",
               sz, bad / sz, bad % sz, dchk[bad], slot_pattern(sz, s, bad));
      double us = t1 - t0;
      if (us <= 0) us = 0.001;
      double mibs = (double)sz * (double)iters / (us / 1e6) / (1024.0 * 1024.0);
      printf("%c: %3u - %10zu byte : %7ld iters, throughput %14.3f MiB/s (%s, %s)\n", s,
             (unsigned)b.me, sz, iters, mibs, opname(s), b.o.in_seg ? "in" : "out");
    }
    gb_barrier(&b);
  }
}

static const char *opname(char s) {
  switch (s) {
    case 'A': return "gex_RMA_PutNBI";
    case 'B': return "gex_RMA_GetNBI";
    case 'C': return "gex_RMA_PutNB";
    case 'D': return "gex_RMA_GetNB";
    case 'E': return "gex_RMA_PutNBI distinct";
    default: return "gex_RMA_GetNBI distinct";
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
  gb_init(&b, &argc, &argv, "ABCDEF");
  const char *fault = getenv("GEX_BENCH_FAULT");
  if (fault && *fault) {
    if (strcmp(fault, "drop") && strcmp(fault, "misplace"))
      gb_die(&b, "GEX_BENCH_FAULT='%s': drop or misplace", fault);
    fault_at = 0;
    fault_drop = !strcmp(fault, "drop");
  }
  /* Sections E, F: ITERS slots of the largest size, at most DISTINCT_MAX. */
  distinct_bytes = 0;
  if (strpbrk(b.o.sections, "EF")) {
    size_t top = bench_first_size(&b.o, SIZE_MAX);
    for (size_t sz = top; sz; sz = bench_next_size(&b.o, SIZE_MAX, sz)) top = sz;
    size_t want = (size_t)bench_iters_at(&b.o, top) * top;
    for (size_t sz = bench_first_size(&b.o, SIZE_MAX); sz; sz = bench_next_size(&b.o, SIZE_MAX, sz))
      if ((size_t)bench_iters_at(&b.o, sz) * sz > want) want = (size_t)bench_iters_at(&b.o, sz) * sz;
    distinct_bytes = bench_round_page(want < DISTINCT_MAX ? want : DISTINCT_MAX);
    dsrc = malloc(distinct_bytes);
    dchk = malloc(distinct_bytes);
    if (!dsrc || !dchk) gb_die(&b, "out of memory for %zu bytes of slots", distinct_bytes);
  }
  size_t seg = b.o.in_seg ? 2 * bench_round_page(b.o.maxsz) : b.o.maxsz;
  gb_attach(&b, seg > distinct_bytes ? seg : distinct_bytes);
  loc = gb_local_buffer(&b, bench_round_page(b.o.maxsz), b.o.maxsz);
  chk = malloc(b.o.maxsz);
  events = malloc(sizeof(gex_Event_t) * (size_t)b.o.iters);
  if (!chk || !events) gb_die(&b, "out of memory");
  gb_header(&b, "non-blocking Put/Get flood bandwidth, MiB/s = 2^20 bytes/s");
  for (const char *s = b.o.sections; *s; s++) (*s == 'E' || *s == 'F') ? run_distinct(*s) : run(*s);
  gb_barrier(&b);
  free(dsrc);
  free(dchk);
  free(events);
  free(chk);
  gb_free_local(&b, loc);
  gasnet_exit(0);
}

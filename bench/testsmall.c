/* testsmall.c -- gex-testsmall: latency of blocking Put and Get.
 *
 *   gexrun -n 2 gex-testsmall [-m] [-in|-out] [-minsz N] [-budget B] ITERS MAXSZ [SECTIONS]
 *
 * The reference GASNet testsmall's method: every even rank (the sender)
 * times ITERS back-to-back blocking operations to the next odd rank and
 * reports the mean time of one, for each size (with -m: 1, 2, 4, ... bytes
 * up to MAXSZ; without: MAXSZ only).  The odd ranks wait in a barrier.
 *
 *   section A  gex_RMA_PutBlocking: local buffer -> peer's segment
 *   section B  gex_RMA_GetBlocking: peer's segment -> local buffer
 *
 * -in puts the local buffer inside the sender's own segment, -out (default)
 * in malloc'd memory.  Defaults: ITERS 1000, MAXSZ 2048.
 *
 * One line per size and section:
 *   A:   0 -        8 byte :    1000 iters, latency      1.234 us total,    0.00123 us ave. (gex_RMA_PutBlocking, out)
 * (section, sender rank, size, iterations, total time, mean time per
 * operation, the operation and where the local buffer was).  Lines starting
 * with '#' are comments.
 *
 * After timing each size the sender Puts a fresh pattern, Gets it back into
 * another buffer and compares: wrong data ends the job with status 1.
 */
#include "gex_bench.h"

static gex_bench_t b = {
    .prog = "gex-testsmall",
    .usage = "[-m] [-in|-out] [-minsz N] [-budget BYTES] ITERS MAXSZ [SECTIONS: A=Put B=Get]",
    .o = {.iters = 1000, .maxsz = 2048, .minsz = 1},
};

static unsigned char *loc, *chk; /* the local buffer, and where the check reads back */

/* Put then Get back: the data path works at this size. */
static void verify(size_t sz, int section) {
  unsigned char *rem = b.peerseg;
  bench_fill(loc, sz, sz, section);
  memset(chk, 0, sz);
  gex_RMA_PutBlocking(b.tm, b.peer, rem, loc, sz, 0);
  gex_RMA_GetBlocking(b.tm, chk, b.peer, rem, sz, 0);
  size_t bad = bench_check(chk, sz, sz, section);
  if (bad != (size_t)-1)
    gb_die(&b, "data check failed at size %zu: byte %zu is %#x, expected %#x", sz, bad, chk[bad],
           bench_pattern(sz, section, bad));
}

static void run(char section) {
  unsigned char *rem = b.peerseg;
  for (size_t sz = bench_first_size(&b.o, SIZE_MAX); sz; sz = bench_next_size(&b.o, SIZE_MAX, sz)) {
    long iters = bench_iters_at(&b.o, sz), warm = bench_warmup(iters);
    gb_barrier(&b);
    if (b.role == BENCH_SENDER) {
      memset(loc, 0x5a, sz);
      double t0 = 0, t1 = 0;
      if (section == 'A') {
        for (long i = 0; i < warm; i++) {
          gex_RMA_PutBlocking(b.tm, b.peer, rem, loc, sz, 0);
          BENCH_COMPILER_BARRIER();
        }
        t0 = bench_now_us();
        for (long i = 0; i < iters; i++) {
          gex_RMA_PutBlocking(b.tm, b.peer, rem, loc, sz, 0);
          BENCH_COMPILER_BARRIER();
        }
        t1 = bench_now_us();
      } else {
        for (long i = 0; i < warm; i++) {
          gex_RMA_GetBlocking(b.tm, loc, b.peer, rem, sz, 0);
          BENCH_COMPILER_BARRIER();
        }
        t0 = bench_now_us();
        for (long i = 0; i < iters; i++) {
          gex_RMA_GetBlocking(b.tm, loc, b.peer, rem, sz, 0);
          BENCH_COMPILER_BARRIER();
        }
        t1 = bench_now_us();
      }
      verify(sz, section);
      double total = t1 - t0;
      printf("%c: %3u - %10zu byte : %7ld iters, latency %12.3f us total, %10.5f us ave. (%s, %s)\n",
             section, (unsigned)b.me, sz, iters, total, total / (double)iters,
             section == 'A' ? "gex_RMA_PutBlocking" : "gex_RMA_GetBlocking", b.o.in_seg ? "in" : "out");
    }
    gb_barrier(&b);
  }
}

int main(int argc, char **argv) {
  gb_init(&b, &argc, &argv, "AB");
  /* Segment: [0, MAXSZ) is where the peer's operations land; with -in the
   * local buffer follows it. */
  gb_attach(&b, b.o.in_seg ? 2 * bench_round_page(b.o.maxsz) : b.o.maxsz);
  loc = gb_local_buffer(&b, bench_round_page(b.o.maxsz), b.o.maxsz);
  chk = malloc(b.o.maxsz);
  if (!chk) gb_die(&b, "out of memory");
  gb_header(&b, "blocking Put/Get latency");
  for (const char *s = b.o.sections; *s; s++) run(*s);
  gb_barrier(&b);
  free(chk);
  gb_free_local(&b, loc);
  gasnet_exit(0);
}

/* testbarrier.c -- gex-testbarrier: barrier latency.
 *
 *   gexrun -n 2 gex-testbarrier [ITERS [SECTIONS]]
 *
 * Every rank runs ITERS barriers back to back (after ITERS/10 warm-up
 * barriers, at most 1000) and times them; the figure printed by rank 0 is
 * the largest over the ranks of (elapsed / ITERS), the mean time of one
 * barrier on the slowest rank.  This is the reference GASNet testbarrier's
 * measurement (it times gasnet_barrier_notify + wait; libgex declares only
 * the GASNet-EX gex_Coll_BarrierNB, so that is what is timed).
 *
 *   section A  gex_Coll_BarrierNB + gex_Event_Wait on the primordial team
 *   section B  the same on a team made by gex_TM_Split of the primordial
 *              team: every rank, keys reversed (a non-primordial team of
 *              the same ranks, in the other order)
 *
 * Defaults: ITERS 10000.  One line per section:
 *   A:   0 -          0 byte :   10000 iters,      0.12345 us/op,      8100445.3 op/s,              - MiB/s (gex_Coll_BarrierNB+Wait, primordial team, 2 ranks)
 * Lines starting with '#' are comments.
 *
 * Check, after each timed loop: each rank writes the barrier's number into
 * its successor's segment with a blocking Put, barriers, and reads what its
 * predecessor wrote; a value that is not there (the barrier let a rank
 * through before every rank had arrived) ends the job with status 1.
 */
#include "gex_bench.h"

static gex_bench_t b = {
    .prog = "gex-testbarrier",
    .usage = "[ITERS [SECTIONS: A=primordial team B=split team]]",
    .o = {.iters = 10000, .maxsz = 8, .minsz = 8, .no_size = 1},
};

static void barrier_on(gex_TM_t tm) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

/* Each rank r writes 'token' into slot 0 of rank (r+1)'s segment, barriers
 * on 'tm', and checks its own slot.  Several rounds, each with a new token. */
static void verify(gex_TM_t tm, uint64_t token0) {
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  gex_Rank_t next = (gex_Rank_t)((me + 1) % n), prev = (gex_Rank_t)((me + n - 1) % n);
  for (uint64_t k = 0; k < 4; k++) {
    uint64_t token = token0 + k, got;
    void *addr = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, next, &addr, NULL, NULL, 0));
    gex_RMA_PutBlocking(tm, next, addr, &token, sizeof token, 0);
    barrier_on(tm);
    memcpy(&got, b.myseg, sizeof got);
    if (got != token)
      gb_die(&b, "barrier check failed: slot written by rank %u holds %llu, expected %llu",
             (unsigned)prev, (unsigned long long)got, (unsigned long long)token);
    barrier_on(tm); /* nobody overwrites the slot before it was read */
  }
}

static void run(char s, gex_TM_t tm, const char *what) {
  long iters = b.o.iters, warm = bench_warmup(iters);
  gex_Rank_t n = gex_TM_QuerySize(tm);
  barrier_on(tm);
  for (long i = 0; i < warm; i++) barrier_on(tm);
  double t0 = bench_now_us();
  for (long i = 0; i < iters; i++) barrier_on(tm);
  double us = bench_now_us() - t0;
  verify(tm, (uint64_t)(s - 'A' + 1) << 32);
  us = gb_max_to_0(&b, us);
  if (b.me == 0) {
    char desc[128];
    snprintf(desc, sizeof desc, "gex_Coll_BarrierNB+Wait, %s, %u rank%s", what, (unsigned)n,
             n == 1 ? "" : "s");
    bench_print_op(s, 0, 0, iters, us, desc);
  }
}

int main(int argc, char **argv) {
  gb_init(&b, &argc, &argv, "AB");
  gb_attach(&b, 4096);
  gb_header(&b, "barrier latency, the slowest rank's mean");
  for (const char *s = b.o.sections; *s; s++) {
    if (*s == 'A') {
      run('A', b.tm, "primordial team");
    } else {
      gex_TM_t sub = GEX_TM_INVALID;
      gex_TM_Split(&sub, b.tm, 0, (int)(b.nranks - 1 - b.me), NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
      if (sub == GEX_TM_INVALID) gb_die(&b, "gex_TM_Split gave no team");
      run('B', sub, "gex_TM_Split team, keys reversed");
      gb_barrier(&b);
      gex_TM_Destroy(sub, NULL, 0);
    }
  }
  gb_barrier(&b);
  gasnet_exit(0);
}

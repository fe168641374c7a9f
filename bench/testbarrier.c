/* testbarrier.c -- gex-testbarrier: barrier latency.
 *
 *   gexrun -n 2 gex-testbarrier [ITERS [SECTIONS]]
 *
 * Every rank runs ITERS barriers back to back (after ITERS/10 warm-up
 * barriers, at most 1000) and times them; the figure printed by rank 0 is
 * the largest over the ranks of (elapsed / ITERS), the mean time of one
 * barrier on the slowest rank.  This is the reference GASNet testbarrier's
 * measurement.
 *
 *   section A  gex_Coll_BarrierNB + gex_Event_Wait on the primordial team
 *   section B  the same on a team made by gex_TM_Split of the primordial
 *              team: every rank, keys reversed (a non-primordial team of
 *              the same ranks, in the other order)
 *   section C  the legacy anonymous barrier: gasnet_barrier_notify(0,
 *              GASNET_BARRIERFLAG_ANONYMOUS) + gasnet_barrier_wait (what
 *              the reference's testbarrier and GASNet-1 clients time)
 *   section D  the legacy named barrier: notify(i, 0) + wait(i, 0), the
 *              iteration number as the name; a wait that does not return
 *              GASNET_OK ends the job with status 1
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
#include <gasnet.h>

#include "gex_bench.h"

static gex_bench_t b = {
    .prog = "gex-testbarrier",
    .usage = "[ITERS [SECTIONS: A=primordial team B=split team C=legacy anonymous D=legacy named]]",
    .o = {.iters = 10000, .maxsz = 8, .minsz = 8, .no_size = 1},
};

enum { BAR_NB, BAR_ANON, BAR_NAMED };

static void barrier_on(gex_TM_t tm) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

/* One barrier of the given kind; 'id' names a named one. */
static inline void barrier_kind(int kind, gex_TM_t tm, int id) {
  if (kind == BAR_NB) {
    barrier_on(tm);
    return;
  }
  int flags = kind == BAR_ANON ? GASNET_BARRIERFLAG_ANONYMOUS : 0;
  gasnet_barrier_notify(id, flags);
  int rc = gasnet_barrier_wait(id, flags);
  if (rc != GASNET_OK) gb_die(&b, "gasnet_barrier_wait(%d) returned %d", id, rc);
}

/* Each rank r writes 'token' into slot 0 of rank (r+1)'s segment, barriers
 * on 'tm', and checks its own slot.  Several rounds, each with a new token. */
static void verify(int kind, gex_TM_t tm, uint64_t token0) {
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  gex_Rank_t next = (gex_Rank_t)((me + 1) % n), prev = (gex_Rank_t)((me + n - 1) % n);
  for (uint64_t k = 0; k < 4; k++) {
    uint64_t token = token0 + k, got;
    void *addr = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, next, &addr, NULL, NULL, 0));
    gex_RMA_PutBlocking(tm, next, addr, &token, sizeof token, 0);
    barrier_kind(kind, tm, (int)k);
    memcpy(&got, b.myseg, sizeof got);
    if (got != token)
      gb_die(&b, "barrier check failed: slot written by rank %u holds %llu, expected %llu",
             (unsigned)prev, (unsigned long long)got, (unsigned long long)token);
    barrier_kind(kind, tm, (int)k + 100); /* nobody overwrites the slot before it was read */
  }
}

static void run(char s, int kind, gex_TM_t tm, const char *what) {
  long iters = b.o.iters, warm = bench_warmup(iters);
  gex_Rank_t n = gex_TM_QuerySize(tm);
  barrier_on(tm);
  for (long i = 0; i < warm; i++) barrier_kind(kind, tm, (int)i);
  double t0 = bench_now_us();
  for (long i = 0; i < iters; i++) barrier_kind(kind, tm, (int)i);
  double us = bench_now_us() - t0;
  verify(kind, tm, (uint64_t)(s - 'A' + 1) << 32);
  us = gb_max_to_0(&b, us);
  if (b.me == 0) {
    char desc[128];
    snprintf(desc, sizeof desc, "%s, %s, %u rank%s",
             kind == BAR_NB ? "gex_Coll_BarrierNB+Wait" : "gasnet_barrier_notify+wait", what, (unsigned)n,
             n == 1 ? "" : "s");
    bench_print_op(s, 0, 0, iters, us, desc);
  }
}

int main(int argc, char **argv) {
  gb_init(&b, &argc, &argv, "ABCD");
  gb_attach(&b, 4096);
  gb_header(&b, "barrier latency, the slowest rank's mean");
  for (const char *s = b.o.sections; *s; s++) {
    if (*s == 'A') {
      run('A', BAR_NB, b.tm, "primordial team");
    } else if (*s == 'C') {
      run('C', BAR_ANON, b.tm, "anonymous");
    } else if (*s == 'D') {
      run('D', BAR_NAMED, b.tm, "named");
    } else {
      gex_TM_t sub = GEX_TM_INVALID;
      gex_TM_Split(&sub, b.tm, 0, (int)(b.nranks - 1 - b.me), NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
      if (sub == GEX_TM_INVALID) gb_die(&b, "gex_TM_Split gave no team");
      run('B', BAR_NB, sub, "gex_TM_Split team, keys reversed");
      gb_barrier(&b);
      gex_TM_Destroy(sub, NULL, 0);
    }
  }
  gb_barrier(&b);
  gasnet_exit(0);
}

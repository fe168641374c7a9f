/* t_diagnostics.c -- gasnett_diagnostic_gethandlers and gasnett_run_diagnostics
 * (the self-test of a running job, <gasnet_tools.h> with <gasnetex.h>).
 *
 * The handlers are fetched before gex_Client_Init and registered as they
 * are, as the reference testinternal does.  Modes (first argument):
 *   run    (default) every section on the primordial team with each rank's
 *          peer its successor: 0 errors; only the sections listed (lower
 *          case); every rank naming rank 0 (several writers into one area);
 *          the AM and RMA sections on a team split in two (team ranks are
 *          not jobranks).  Each must find 0 errors in every rank.
 *   fault  for each section X, GEX_DIAG_FAULT=X makes section X inject a
 *          fault: running X must then report errors (the same count in
 *          every rank), and running another section must not.
 * The returned count must be the same in every rank.
 */
#include <gasnet_coll.h>
#include <gasnet_tools.h>

#include "test_util.h"

#define AREA ((uintptr_t)64 * 1024)
#define SECTIONS "ABCDEFGHIJK"

/* min and max of v over tm */
static void team_minmax(gex_TM_t tm, long v, long *min, long *max) {
  int64_t in[2] = {v, -v}, out[2];
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, out, in, GEX_DT_I64, sizeof(int64_t), 2, GEX_OP_MIN,
                                        NULL, NULL, 0));
  *min = (long)out[0];
  *max = (long)-out[1];
}

/* Runs the diagnostics on the primordial team; returns the count, after
 * checking that every rank got the same one. */
static int run(long iters, int threads, const char *sections, gex_Rank_t peer) {
  int errs = gasnett_run_diagnostics((int)iters, threads, sections, T.tm, T.seg_base, peer,
                                     T.peer_seg[peer], 4242u + (unsigned)iters);
  long lo, hi;
  team_minmax(T.tm, errs, &lo, &hi);
  CHECKF(lo == hi, "gasnett_run_diagnostics returned %ld to some ranks and %ld to others", lo, hi);
  return errs;
}

static void mode_run(void) {
  long iters = test_iters(300, 20);
  gex_Rank_t next = (T.rank + 1) % T.size;

  test_log0("every section, %ld iterations, 4 threads, peer = next rank", iters);
  int errs = run(iters, 4, NULL, next);
  CHECKF(errs == 0, "gasnett_run_diagnostics found %d errors", errs);
  errs = run(iters, 4, "", next);
  CHECKF(errs == 0, "gasnett_run_diagnostics (\"\") found %d errors", errs);

  test_log0("sections \"aej\" only, 1 thread");
  errs = run(iters, 1, "aej", next);
  CHECKF(errs == 0, "sections aej: %d errors", errs);

  test_log0("every rank names rank 0 as its peer");
  errs = run(iters, 2, "efghijk", 0);
  CHECKF(errs == 0, "every rank to rank 0: %d errors", errs);

  /* A team of the even and one of the odd jobranks, in reverse order. */
  gex_TM_t half;
  gex_TM_Split(&half, T.tm, (int)(T.rank % 2), -(int)T.rank, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  gex_Rank_t hr = gex_TM_QueryRank(half), hn = gex_TM_QuerySize(half);
  gex_Rank_t hpeer = (hr + 1) % hn;
  gex_Rank_t hpeer_job = gex_TM_TranslateRankToJobrank(half, hpeer);
  test_log0("a split team (even/odd jobranks, reversed)");
  errs = gasnett_run_diagnostics((int)iters, 2, "eghijk", half, T.seg_base, hpeer,
                                 T.peer_seg[hpeer_job], 99u);
  long lo, hi;
  team_minmax(T.tm, errs, &lo, &hi);
  CHECKF(lo == 0 && hi == 0, "split team: %ld..%ld errors", lo, hi);
}

static void mode_fault(void) {
  long iters = test_iters(40, 10);
  gex_Rank_t next = (T.rank + 1) % T.size;
  const char *all = SECTIONS;
  for (const char *x = all; *x; x++) {
    char fault[2] = {*x, 0};
    char other[2] = {x[1] ? x[1] : all[0], 0};
    setenv("GEX_DIAG_FAULT", fault, 1);
    int errs = run(iters, 3, fault, next);
    CHECKF(errs > 0, "section %s with its fault injected found no error", fault);
    test_log0("section %s with GEX_DIAG_FAULT=%s: %d errors (expected)", fault, fault, errs);
    errs = run(iters, 3, other, next);
    CHECKF(errs == 0, "section %s found %d errors with GEX_DIAG_FAULT=%s", other, errs, fault);
    /* The letter in lower case is the same switch. */
    fault[0] = (char)(fault[0] - 'A' + 'a');
    setenv("GEX_DIAG_FAULT", fault, 1);
    errs = run(iters, 2, fault, next);
    CHECKF(errs > 0, "section %s (lower case) with its fault injected found no error", fault);
  }
  unsetenv("GEX_DIAG_FAULT");
  int errs = run(iters, 2, NULL, next);
  CHECKF(errs == 0, "every section without faults: %d errors", errs);
}

int main(int argc, char **argv) {
  gex_AM_Entry_t *htable = NULL;
  int hcount = 0;
  gasnett_diagnostic_gethandlers(&htable, &hcount);
  CHECK(htable != NULL && hcount > 0);
  test_init(&argc, &argv, "t_diagnostics", AREA, htable, (size_t)hcount);
  for (int h = 0; h < hcount; h++)
    CHECKF(htable[h].gex_index >= GEX_AM_INDEX_BASE, "handler %d got index %u", h,
           (unsigned)htable[h].gex_index);
  const char *mode = argc > 1 && strncmp(argv[1], "gextok_", 7) ? argv[1] : "run";
  if (!strcmp(mode, "run")) {
    mode_run();
  } else if (!strcmp(mode, "fault")) {
    mode_fault();
  } else {
    CHECKF(0, "unknown mode %s", mode);
  }
  test_finish();
}

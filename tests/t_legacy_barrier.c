/* t_legacy_barrier.c -- the GASNet-1 split-phase barrier (gex/gex_gasnet1.h).
 *
 * A GASNet-EX client (as the reference tests use the barrier through
 * <gasnetex.h> only) runs named, anonymous and unnamed barriers, with
 * matching and mismatching names, the MISMATCH flag, notify/wait pairs that
 * disagree, wait and try, and GASNet-EX barriers in between, and checks the
 * exact return code of every wait/try and of gasnet_barrier_result.
 */
#include "test_util.h"

static int use_try; /* wait through a loop over gasnet_barrier_try */

static int bwait(int id, int flags) {
  if (!use_try) return gasnet_barrier_wait(id, flags);
  int rc, tries = 0;
  while ((rc = gasnet_barrier_try(id, flags)) == GASNET_ERR_NOT_READY) tries++;
  (void)tries;
  return rc;
}

/* One barrier: notify with (nid, nflags), wait with (wid, wflags). */
static int bar(int nid, int nflags, int wid, int wflags) {
  gasnet_barrier_notify(nid, nflags);
  return bwait(wid, wflags);
}

static void expect_named(int id) {
  int got = -12345;
  CHECKF(gasnet_barrier_result(&got) == 0, "result: expected a named barrier");
  CHECKF(got == id, "result id %d, expected %d", got, id);
}

static void expect_anonymous(void) {
  int got;
  CHECKF(gasnet_barrier_result(&got) != 0, "result: expected an anonymous barrier");
}

#define OK(expr) CHECKF((expr) == GASNET_OK, "%s did not return GASNET_OK", #expr)
#define MISMATCH(expr) \
  CHECKF((expr) == GASNET_ERR_BARRIER_MISMATCH, "%s did not return GASNET_ERR_BARRIER_MISMATCH", #expr)

static void round_of_cases(int round) {
  const int me = (int)T.rank, n = (int)T.size;
  const int ids[] = {0, 1, -1, 0x7fffffff, (int)0xcafef00du, 5551212};
  for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
    /* ids wrap around as unsigned values (no signed overflow) */
    int id = (int)((unsigned)ids[k] + (unsigned)round);
    /* All named, same id: split-phase and blocking. */
    OK(bar(id, 0, id, 0));
    expect_named(id);
    OK(gasnet_barrier(id, 0));
    expect_named(id);
    /* All anonymous (the id is ignored), and unnamed. */
    OK(bar(id ^ me, GASNET_BARRIERFLAG_ANONYMOUS, id ^ me, GASNET_BARRIERFLAG_ANONYMOUS));
    expect_anonymous();
    OK(gasnet_barrier(me, GASNET_BARRIERFLAG_UNNAMED));
    expect_anonymous();
    /* Anonymous notify, named wait, no rank names it: matches. */
    OK(bar(me, GASNET_BARRIERFLAG_ANONYMOUS, id, 0));
    expect_anonymous();
    /* Named notify, anonymous wait: matches, the barrier is named. */
    OK(bar(id, 0, 999, GASNET_BARRIERFLAG_ANONYMOUS));
    expect_named(id);
    /* Wait names another id than notify: mismatch on every rank. */
    MISMATCH(bar(id, 0, (int)((unsigned)id + 1u), 0));
  }
  /* The MISMATCH flag on one rank fails the barrier everywhere. */
  for (int j = 0; j < n; j++) {
    int f = me == j ? GASNET_BARRIERFLAG_MISMATCH : 0;
    MISMATCH(bar(7, f, 7, f));
    MISMATCH(gasnet_barrier(7, f));
    int fa = GASNET_BARRIERFLAG_ANONYMOUS | f;
    MISMATCH(bar(7, fa, 7, fa));
  }
  if (n == 1) return;
  for (int j = 0; j < n; j++) {
    /* One rank with another name: mismatch everywhere. */
    MISMATCH(bar(me == j ? 1 : 2, 0, me == j ? 1 : 2, 0));
    MISMATCH(gasnet_barrier(me == j ? 100 : 200, 0));
    /* One anonymous rank among named ones: matches, named everywhere. */
    int f = me == j ? GASNET_BARRIERFLAG_ANONYMOUS : 0;
    OK(bar(me == j ? 12345 : 5551212, f, me == j ? 12345 : 5551212, f));
    expect_named(5551212);
    OK(gasnet_barrier(me == j ? 12345 : 5551212, f));
    expect_named(5551212);
    /* One named rank among anonymous ones: named everywhere. */
    f = me == j ? 0 : GASNET_BARRIERFLAG_ANONYMOUS;
    OK(bar(me == j ? 42 : 911, f, me == j ? 42 : 911, f));
    expect_named(42);
    /* Anonymous notify on j, named wait with the others' name: matches. */
    f = me == j ? GASNET_BARRIERFLAG_ANONYMOUS : 0;
    OK(bar(me == j ? 3 : 77, f, 77, 0));
    expect_named(77);
    /* ... with another name: mismatch on j (the others may or may not see it). */
    int rc = bar(me == j ? 3 : 77, f, me == j ? 3 : 77, 0);
    if (me == j) MISMATCH(rc);
    else CHECK(rc == GASNET_OK || rc == GASNET_ERR_BARRIER_MISMATCH);
  }
  if (n < 3) return;
  for (int j = 0; j < n; j++) {
    int k = (j + 1) % n;
    /* Two different names among anonymous ranks: mismatch everywhere. */
    int nid = me == j ? 1592 : me == k ? 1776 : 0;
    int f = (me == j || me == k) ? 0 : GASNET_BARRIERFLAG_ANONYMOUS;
    MISMATCH(bar(nid, f, nid, f));
    MISMATCH(gasnet_barrier(nid, f));
  }
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "t_legacy_barrier", GASNET_PAGESIZE, NULL, 0);
  const long rounds = test_iters(6, 2);
  for (long r = 0; r < rounds; r++) {
    use_try = (int)(r & 1);
    round_of_cases((int)r);
    /* GASNet-EX barriers between legacy ones (never overlapping them). */
    gex_Event_t ev[4];
    for (int i = 0; i < 4; i++) ev[i] = gex_Coll_BarrierNB(T.tm, 0);
    gex_Event_WaitAll(ev, 4, 0);
    OK(gasnet_barrier((int)r, 0));
    expect_named((int)r);
  }
  /* Work between notify and wait: a Put lands and is seen after the wait. */
  uint64_t *flag = (uint64_t *)T.seg_base;
  gex_Rank_t right = (T.rank + 1) % T.size;
  uint64_t v = 1000 + T.rank;
  gex_RMA_PutBlocking(T.tm, right, T.peer_seg[right], &v, sizeof v, 0);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
  CHECK(*flag == 1000 + (T.rank + T.size - 1) % T.size);
  test_finish();
}

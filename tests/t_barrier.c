/* t_barrier.c -- gex_Coll_BarrierNB: many consecutive barriers with data
 * checks across them (each rank Puts a round stamp to every rank, barrier,
 * everyone checks all stamps of the round), barriers completed by Wait and
 * by Test loops, several barriers in flight at once, and ranks that arrive
 * at very different times.
 */
#include "test_util.h"

/* stamps[parity][src] in every rank's segment (double-buffered by round parity) */
#define STAMP(owner, parity, src) ((uint64_t *)(T.peer_seg[owner]) + (size_t)(parity) * T.size + (src))

static uint64_t stamp_of(gex_Rank_t src, gex_Rank_t dst, long round) {
  return test_seed(src, dst, (uint64_t)round, 42) | 1; /* never 0 */
}

static void complete_barrier(gex_Event_t e, long round) {
  CHECK(e != GEX_EVENT_NO_OP);
  switch (round % 3) {
    case 0: gex_Event_Wait(e); break;
    case 1: while (gex_Event_Test(e) != 0) gasnet_AMPoll(); break;
    default: {
      gex_Event_t a[3] = {GEX_EVENT_INVALID, e, GEX_EVENT_INVALID};
      gex_Event_WaitAll(a, 3, 0);
      CHECK(a[1] == GEX_EVENT_INVALID);
    }
  }
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_BARRIER", 2 * 64 * 8 + 4096, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size;
  CHECK(n <= 64);
  memset(T.seg_base, 0, 2 * 64 * 8);
  test_barrier();

  long rounds = test_iters(1000, 40);
  for (long r = 1; r <= rounds; r++) {
    int par = (int)(r % 2);
    /* skew: a different rank is late every round (busy work, no library calls) */
    if ((gex_Rank_t)(r % n) == me) {
      volatile unsigned x = 0;
      for (int i = 0; i < 20000; i++) x += (unsigned)i;
    }
    for (gex_Rank_t i = 0; i < n; i++) {
      gex_Rank_t p = (me + i) % n;
      uint64_t v = stamp_of(me, p, r);
      switch ((r + i) % 3) {
        case 0: CHECK(gex_RMA_PutBlocking(T.tm, p, STAMP(p, par, me), &v, 8, 0) == 0); break;
        case 1: CHECK(gex_RMA_PutBlockingVal(T.tm, p, STAMP(p, par, me), v, 8, 0) == 0); break;
        default: test_wait(gex_RMA_PutNB(T.tm, p, STAMP(p, par, me), &v, 8, GEX_EVENT_NOW, 0));
      }
    }
    complete_barrier(gex_Coll_BarrierNB(T.tm, 0), r);
    /* after the barrier every rank's stamp for this round is here */
    for (gex_Rank_t s = 0; s < n; s++) {
      uint64_t got = *STAMP(me, par, s);
      CHECKF(got == stamp_of(s, me, r), "round %ld: stamp from rank %u is %#" PRIx64
             " want %#" PRIx64, r, s, got, stamp_of(s, me, r));
    }
    /* The next round writes the other parity; the round after that rewrites
     * this one, which is safe only because every rank passes the next
     * barrier after finishing these checks. */
  }

  /* several barriers in flight at once, completed in various ways */
  long multi = test_iters(100, 5);
  for (long r = 0; r < multi; r++) {
    gex_Event_t e[4];
    for (int i = 0; i < 4; i++) {
      e[i] = gex_Coll_BarrierNB(T.tm, 0);
      CHECK(e[i] != GEX_EVENT_NO_OP);
    }
    switch (r % 3) {
      case 0: gex_Event_WaitAll(e, 4, 0); break;
      case 1:
        for (int i = 3; i >= 0; i--) gex_Event_Wait(e[i]); /* out of order */
        break;
      default:
        while (gex_Event_TestAll(e, 4, 0) != 0) gasnet_AMPoll();
    }
  }

  /* many barriers in flight at once */
  {
    long k = test_iters(512, 16);
    gex_Event_t *e = calloc((size_t)k, sizeof *e);
    CHECK(e);
    for (int round = 0; round < 3; round++) {
      for (long i = 0; i < k; i++) e[i] = gex_Coll_BarrierNB(T.tm, 0);
      if (round == 0) {
        gex_Event_WaitAll(e, (size_t)k, 0);
      } else if (round == 1) {
        for (long i = k - 1; i >= 0; i--) gex_Event_Wait(e[i]);
      } else {
        long left = k;
        while (left > 0) {
          gex_Event_WaitSome(e, (size_t)k, 0);
          long now = 0;
          for (long i = 0; i < k; i++) now += e[i] != GEX_EVENT_INVALID;
          CHECK(now < left);
          left = now;
        }
      }
    }
    free(e);
  }

  /* a barrier is a real synchronisation: rank 0 writes a value everywhere
   * only after a barrier that the others enter after reading the old one */
  volatile uint64_t *cell = STAMP(me, 0, 0);
  for (long r = 0; r < test_iters(30, 3); r++) {
    test_barrier();
    if (r > 0) CHECK(*cell == 1000 + (uint64_t)r - 1);
    test_barrier(); /* every rank has read the old value */
    if (me == 0)
      for (gex_Rank_t p = 0; p < n; p++)
        CHECK(gex_RMA_PutBlockingVal(T.tm, p, STAMP(p, 0, 0), 1000 + (uint64_t)r, 8, 0) == 0);
    test_barrier();
    CHECK(*cell == 1000 + (uint64_t)r);
  }
  test_finish();
}

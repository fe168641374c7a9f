/* t_events.c -- explicit events: gex_Event_Test/Wait, TestAll/WaitAll,
 * TestSome/WaitSome on arrays that mix GEX_EVENT_INVALID with real events
 * (barrier events, RMA events), the treatment of incomplete events (Test
 * fails and leaves the array unchanged), and gex_Event_QueryLeaf.
 */
#include "test_util.h"

#define OFF_FLAG 0
#define OFF_DATA 4096
#define DATALEN 65536

static size_t count_real(const gex_Event_t *a, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) {
    CHECK(a[i] != GEX_EVENT_NO_OP);
    if (a[i] != GEX_EVENT_INVALID) c++;
  }
  return c;
}

/* An event that is certainly incomplete: rank 0 starts a barrier that the
 * other ranks only join once rank 0 lets them. */
static void incomplete_event_rules(int round) {
  const gex_Rank_t me = T.rank, n = T.size;
  volatile uint64_t *flag = (volatile uint64_t *)(T.seg_base + OFF_FLAG);
  if (me == 0) {
    gex_Event_t e = gex_Coll_BarrierNB(T.tm, 0);
    CHECK(e != GEX_EVENT_NO_OP);
    if (n > 1) {
      CHECK(e != GEX_EVENT_INVALID);
      for (int i = 0; i < 3; i++) {
        gasnet_AMPoll();
        CHECK(gex_Event_Test(e) != 0);
      }
      gex_Event_t arr[5] = {GEX_EVENT_INVALID, e, GEX_EVENT_INVALID, GEX_EVENT_INVALID,
                            GEX_EVENT_INVALID};
      CHECK(gex_Event_TestAll(arr, 5, 0) != 0);
      CHECK(arr[1] == e && count_real(arr, 5) == 1);
      CHECK(gex_Event_TestSome(arr, 5, 0) != 0);
      CHECK(arr[1] == e && count_real(arr, 5) == 1);
      /* let the others in */
      for (gex_Rank_t r = 1; r < n; r++)
        CHECK(gex_RMA_PutBlockingVal(T.tm, r, T.peer_seg[r] + OFF_FLAG, (uint64_t)round, 8, 0) ==
              0);
      if (round % 2) {
        gex_Event_WaitSome(arr, 5, 0);
      } else {
        while (gex_Event_TestSome(arr, 5, 0) != 0) gasnet_AMPoll();
      }
      CHECK(count_real(arr, 5) == 0);
    } else {
      gex_Event_Wait(e);
    }
  } else {
    GASNET_BLOCKUNTIL(__atomic_load_n(flag, __ATOMIC_ACQUIRE) >= (uint64_t)round);
    gex_Event_Wait(gex_Coll_BarrierNB(T.tm, 0));
  }
}

static void mixed_arrays(int round) {
  const gex_Rank_t me = T.rank, n = T.size;
  gex_Rank_t peer = (me + 1) % n;
  unsigned char *buf = malloc(DATALEN);
  CHECK(buf);
  /* my data for my predecessor to Get */
  test_fill(T.seg_base + OFF_DATA, DATALEN, test_seed(me, 1, (uint64_t)round, 0));
  test_barrier();

  for (int variant = 0; variant < 4; variant++) {
    memset(buf, 0, DATALEN);
    unsigned char small[8] = {0};
    gex_Event_t arr[10];
    arr[0] = GEX_EVENT_INVALID;
    arr[1] = gex_Coll_BarrierNB(T.tm, 0);
    arr[2] = gex_RMA_GetNB(T.tm, buf, peer, T.peer_seg[peer] + OFF_DATA, DATALEN, 0);
    arr[3] = GEX_EVENT_INVALID;
    arr[4] = gex_Coll_BarrierNB(T.tm, 0); /* several barriers in flight */
    arr[5] = gex_Coll_BarrierNB(T.tm, 0);
    arr[6] = GEX_EVENT_INVALID;
    arr[7] = gex_RMA_GetNB(T.tm, small + 1, peer, T.peer_seg[peer] + OFF_DATA + 1, 7, 0);
    arr[8] = gex_Coll_BarrierNB(T.tm, 0);
    arr[9] = GEX_EVENT_INVALID;
    size_t left = count_real(arr, 10);
    switch (variant) {
      case 0:
        gex_Event_WaitAll(arr, 10, 0);
        break;
      case 1:
        while (gex_Event_TestAll(arr, 10, 0) != 0) {
          CHECK(count_real(arr, 10) <= left);
          gasnet_AMPoll();
        }
        break;
      case 2: /* every successful TestSome retires at least one event */
        while (left > 0) {
          if (gex_Event_TestSome(arr, 10, 0) == 0) {
            size_t now = count_real(arr, 10);
            CHECKF(now < left, "TestSome succeeded but retired nothing (%zu left)", now);
            left = now;
          } else {
            CHECK(count_real(arr, 10) == left);
            gasnet_AMPoll();
          }
        }
        CHECK(gex_Event_TestSome(arr, 10, 0) == 0); /* only INVALIDs: success */
        break;
      case 3:
        while (left > 0) {
          gex_Event_WaitSome(arr, 10, 0);
          size_t now = count_real(arr, 10);
          CHECKF(now < left, "WaitSome returned but retired nothing (%zu left)", now);
          left = now;
        }
        break;
    }
    CHECK(count_real(arr, 10) == 0);
    long bad = test_verify(buf, DATALEN, test_seed(peer, 1, (uint64_t)round, 0));
    CHECKF(bad < 0, "GetNB data from rank %u wrong at byte %ld (variant %d)", peer, bad, variant);
    CHECK(small[0] == 0);
    CHECK(memcmp(small + 1, buf + 1, 7) == 0);
  }
  free(buf);
  test_barrier();
}

static void single_events(void) {
  /* INVALID is complete */
  CHECK(gex_Event_Test(GEX_EVENT_INVALID) == 0);
  gex_Event_Wait(GEX_EVENT_INVALID);
  gex_Event_t none[4] = {GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID,
                         GEX_EVENT_INVALID};
  CHECK(gex_Event_TestAll(none, 4, 0) == 0);
  CHECK(gex_Event_TestSome(none, 4, 0) == 0);
  gex_Event_WaitAll(none, 4, 0);
  gex_Event_WaitSome(none, 4, 0);
  CHECK(gex_Event_TestAll(none, 0, 0) == 0);
  CHECK(gex_Event_TestSome(none, 0, 0) == 0);
  gex_Event_WaitAll(none, 0, 0);
  gex_Event_WaitSome(none, 0, 0);

  /* a barrier event, completed by a Test loop */
  gex_Event_t b = gex_Coll_BarrierNB(T.tm, 0);
  CHECK(b != GEX_EVENT_NO_OP);
  while (gex_Event_Test(b) != 0) gasnet_AMPoll();
}

static void query_leaf(void) {
  const gex_Rank_t me = T.rank, n = T.size;
  /* root INVALID: the leaf is INVALID or an event that tests complete */
  gex_EC_t cats[] = {GEX_EC_LC, GEX_EC_PUT, GEX_EC_GET};
  for (int i = 0; i < 3; i++) {
    gex_Event_t l = gex_Event_QueryLeaf(GEX_EVENT_INVALID, cats[i]);
    CHECK(l != GEX_EVENT_NO_OP);
    if (l != GEX_EVENT_INVALID) CHECK(gex_Event_Test(l) == 0);
  }
  /* the LC leaf of a Put with lc_opt = &ev */
  size_t len = 1 << 20;
  unsigned char *src = malloc(len);
  CHECK(src);
  gex_Rank_t peer = (me + n - 1) % n;
  uint64_t seed = test_seed(me, peer, 33, 0);
  test_fill(src, len, seed);
  gex_Event_t lc = GEX_EVENT_NO_OP;
  gex_Event_t root = gex_RMA_PutNB(T.tm, peer, T.peer_seg[peer] + OFF_DATA + DATALEN, src, len,
                                   &lc, 0);
  CHECK(root != GEX_EVENT_NO_OP && lc != GEX_EVENT_NO_OP);
  gex_Event_t l1 = gex_Event_QueryLeaf(root, GEX_EC_LC);
  gex_Event_t l2 = gex_Event_QueryLeaf(root, GEX_EC_LC);
  CHECK(l1 == l2); /* a query, not a new object */
  CHECK(l1 != GEX_EVENT_NO_OP);
  if (l1 != GEX_EVENT_INVALID) gex_Event_Wait(l1); /* a leaf may be synced before its root */
  gex_Event_Wait(lc);
  memset(src, 0, len); /* locally complete: reusable */
  gex_Event_Wait(root);
  test_barrier();
  gex_Rank_t from = (me + 1) % n;
  long bad = test_verify(T.seg_base + OFF_DATA + DATALEN, len, test_seed(from, me, 33, 0));
  CHECKF(bad < 0, "PutNB data from rank %u wrong at byte %ld", from, bad);
  free(src);
  test_barrier();
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_EVENTS", OFF_DATA + DATALEN + (1 << 20), NULL, 0);
  memset(T.seg_base, 0, OFF_DATA);
  test_barrier();
  single_events();
  int rounds = (int)test_iters(20, 3);
  for (int r = 1; r <= rounds; r++) {
    incomplete_event_rules(r);
    mixed_arrays(r);
  }
  query_leaf();
  test_finish();
}

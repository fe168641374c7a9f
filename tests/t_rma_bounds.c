/* t_rma_bounds.c -- RMA at the edges of a bound segment: a Put and a Get of
 * a peer's whole segment, transfers ending exactly at the last byte or
 * starting at the first, and zero-byte transfers at the one-past-the-end
 * address.  Each rank writes only the segment of its successor, so the whole
 * segment can be used; every byte is verified.
 */
#include "test_util.h"

#define SEGSZ (4 * GASNET_PAGESIZE)

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_RMA_BOUNDS", SEGSZ, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size;
  const gex_Rank_t succ = (me + 1) % n, pred = (me + n - 1) % n;
  const size_t sz = T.peer_size[succ];
  CHECK(sz == T.seg_size); /* everyone attached the same size */
  unsigned char *buf = malloc(sz + 16), *back = malloc(sz + 16);
  CHECK(buf && back);
  unsigned char *base = T.peer_seg[succ];
  int rounds = (int)test_iters(10, 2);

  for (int r = 0; r < rounds; r++) {
    /* the whole segment in one Put; forms rotate with the round */
    test_fill(buf + 1, sz, test_seed(me, succ, (uint64_t)r, 1));
    switch (r % 3) {
      case 0: CHECK(gex_RMA_PutBlocking(T.tm, succ, base, buf + 1, sz, 0) == 0); break;
      case 1: gex_Event_Wait(gex_RMA_PutNB(T.tm, succ, base, buf + 1, sz, GEX_EVENT_DEFER, 0)); break;
      default:
        CHECK(gex_RMA_PutNBI(T.tm, succ, base, buf + 1, sz, GEX_EVENT_GROUP, 0) == 0);
        gex_NBI_Wait(GEX_EC_ALL, 0);
    }
    /* zero-byte transfers at the end of the segment are valid no-ops */
    CHECK(gex_RMA_PutBlocking(T.tm, succ, base + sz, buf, 0, 0) == 0);
    CHECK(gex_RMA_GetBlocking(T.tm, back, succ, base + sz, 0, 0) == 0);
    gex_Event_Wait(gex_RMA_GetNB(T.tm, back, succ, base + sz, 0, 0));
    test_barrier();
    long bad = test_verify(T.seg_base, sz, test_seed(pred, me, (uint64_t)r, 1));
    CHECKF(bad < 0, "round %d: whole-segment Put from rank %u: byte %ld wrong", r, pred, bad);
    test_barrier();

    /* the whole segment in one Get (from the predecessor, which does not change it now) */
    memset(back, 0, sz + 16);
    switch (r % 3) {
      case 0: CHECK(gex_RMA_GetBlocking(T.tm, back + 3, pred, T.peer_seg[pred], sz, 0) == 0); break;
      case 1: gex_Event_Wait(gex_RMA_GetNB(T.tm, back + 3, pred, T.peer_seg[pred], sz, 0)); break;
      default:
        CHECK(gex_RMA_GetNBI(T.tm, back + 3, pred, T.peer_seg[pred], sz, 0) == 0);
        gex_NBI_Wait(GEX_EC_GET, 0);
    }
    CHECK_BYTES(back, 3, 0);
    gex_Rank_t writer = (pred + n - 1) % n; /* who filled pred's segment */
    bad = test_verify(back + 3, sz, test_seed(writer, pred, (uint64_t)r, 1));
    CHECKF(bad < 0, "round %d: whole-segment Get from rank %u: byte %ld wrong", r, pred, bad);
    CHECK_BYTES(back + 3 + sz, 8, 0);
    test_barrier();

    /* the first and the last bytes, and ranges ending exactly at the end */
    size_t lens[] = {1, 7, 8, 4096, sz / 2};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
      size_t len = lens[i];
      uint64_t sd = test_seed(me, succ, (uint64_t)r, 100 + i);
      test_fill(buf, len, sd);
      CHECK(gex_RMA_PutBlocking(T.tm, succ, base + sz - len, buf, len, 0) == 0);
      CHECK(gex_RMA_GetBlocking(T.tm, back, succ, base + sz - len, len, 0) == 0);
      CHECK(test_verify(back, len, sd) < 0);
      CHECK(gex_RMA_PutBlocking(T.tm, succ, base, buf, len, 0) == 0);
      CHECK(gex_RMA_GetBlocking(T.tm, back, succ, base, len, 0) == 0);
      CHECK(test_verify(back, len, sd) < 0);
      gex_RMA_Value_t v = (gex_RMA_Value_t)sd;
      CHECK(gex_RMA_PutBlockingVal(T.tm, succ, base + sz - 8, v, 8, 0) == 0);
      CHECK(gex_RMA_GetBlockingVal(T.tm, succ, base + sz - 8, 8, 0) == v);
      CHECK(gex_RMA_PutBlockingVal(T.tm, succ, base + sz - 1, v, 1, 0) == 0);
      CHECK(gex_RMA_GetBlockingVal(T.tm, succ, base + sz - 1, 1, 0) == (v & 0xFF));
    }
    test_barrier();
  }
  free(buf);
  free(back);
  test_finish();
}

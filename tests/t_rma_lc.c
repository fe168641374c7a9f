/* t_rma_lc.c -- local completion of Puts.  After local completion the source
 * buffer may be overwritten at once; the target must still receive the old
 * data.  Covers lc_opt = pointer to an event (Wait and Test loop), NOW,
 * DEFER (reuse only after the root event), NBI with GROUP (gex_NBI_Wait and
 * gex_NBI_Test with GEX_EC_LC), NBI NOW / DEFER, and blocking Puts.
 */
#include "test_util.h"

enum { C_NB_LCPTR_WAIT, C_NB_LCPTR_TEST, C_NB_NOW, C_NB_DEFER, C_NBI_GROUP_WAIT,
       C_NBI_GROUP_TEST, C_NBI_NOW, C_NBI_DEFER, C_BLOCKING, NCASES };
static const char *case_name[NCASES] = {"NB lc=&ev Wait", "NB lc=&ev Test", "NB NOW",
                                        "NB DEFER",       "NBI GROUP Wait", "NBI GROUP Test",
                                        "NBI NOW",        "NBI DEFER",      "Blocking"};
static const size_t lens[] = {64, 4099, 128 * 1024 + 3};
#define NLEN 3
#define PAD 64
#define CASESZ (64 + PAD + 4099 + PAD + 128 * 1024 + 3 + PAD)
#define REGION ((size_t)NCASES * CASESZ)
#define BIGGEST (128 * 1024 + 3)

static size_t slot_off(int c, int l) {
  size_t off = (size_t)c * CASESZ;
  for (int i = 0; i < l; i++) off += lens[i] + PAD;
  return off;
}

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return (uintptr_t)REGION * n;
}

static void clobber(unsigned char *buf, size_t len) { memset(buf, 0xEE, len); }

int main(int argc, char **argv) {
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_RMA_LC", 0, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size;
  unsigned char *src = malloc(BIGGEST + 8);
  CHECK(src);
  int rounds = (int)test_iters(3, 1);

  for (int round = 0; round < rounds; round++) {
    memset(T.seg_base, 0, REGION * n);
    test_barrier();
    for (gex_Rank_t i = 0; i < n; i++) {
      gex_Rank_t p = (me + i) % n;
      for (int c = 0; c < NCASES; c++)
        for (int l = 0; l < NLEN; l++) {
          size_t len = lens[l];
          unsigned char *s = src + (c + l) % 8; /* unaligned source */
          void *dst = T.peer_seg[p] + REGION * me + slot_off(c, l);
          uint64_t seed = test_seed(me, p, (uint64_t)(c * 10 + l), (uint64_t)round);
          test_fill(s, len, seed);
          switch (c) {
            case C_NB_LCPTR_WAIT:
            case C_NB_LCPTR_TEST: {
              gex_Event_t lc = GEX_EVENT_NO_OP;
              gex_Event_t root = gex_RMA_PutNB(T.tm, p, dst, s, len, &lc, 0);
              CHECK(root != GEX_EVENT_NO_OP);
              CHECK(lc != GEX_EVENT_NO_OP); /* the call must have set it */
              /* A leaf is the event QueryLeaf gives, and stays valid (and
               * complete once synced) until its root is synced. */
              gex_Event_t qlc = gex_Event_QueryLeaf(root, GEX_EC_LC);
              if (lc != GEX_EVENT_INVALID && qlc != GEX_EVENT_INVALID) CHECK(qlc == lc);
              if (c == C_NB_LCPTR_WAIT) {
                gex_Event_Wait(lc);
              } else {
                while (gex_Event_Test(lc) != 0) gasnet_AMPoll();
              }
              CHECK(gex_Event_Test(lc) == GASNET_OK);
              CHECK(gex_Event_Test(qlc) == GASNET_OK);
              gex_Event_t again = lc;
              CHECK(gex_Event_TestAll(&again, 1, 0) == GASNET_OK && again == GEX_EVENT_INVALID);
              clobber(s, len);
              /* a root and its leaf in one array, root first */
              gex_Event_t arr[2] = {root, lc};
              gex_Event_WaitAll(arr, 2, 0);
              CHECK(arr[0] == GEX_EVENT_INVALID && arr[1] == GEX_EVENT_INVALID);
              break;
            }
            case C_NB_NOW: {
              gex_Event_t root = gex_RMA_PutNB(T.tm, p, dst, s, len, GEX_EVENT_NOW, 0);
              CHECK(root != GEX_EVENT_NO_OP);
              clobber(s, len);
              gex_Event_Wait(root);
              break;
            }
            case C_NB_DEFER: {
              gex_Event_t root = gex_RMA_PutNB(T.tm, p, dst, s, len, GEX_EVENT_DEFER, 0);
              CHECK(root != GEX_EVENT_NO_OP);
              gex_Event_Wait(root);
              clobber(s, len);
              break;
            }
            case C_NBI_GROUP_WAIT:
            case C_NBI_GROUP_TEST:
              CHECK(gex_RMA_PutNBI(T.tm, p, dst, s, len, GEX_EVENT_GROUP, 0) == 0);
              if (c == C_NBI_GROUP_WAIT) {
                gex_NBI_Wait(GEX_EC_LC, 0);
              } else {
                while (gex_NBI_Test(GEX_EC_LC, 0) != 0) gasnet_AMPoll();
              }
              clobber(s, len);
              gex_NBI_Wait(GEX_EC_PUT, 0);
              break;
            case C_NBI_NOW:
              CHECK(gex_RMA_PutNBI(T.tm, p, dst, s, len, GEX_EVENT_NOW, 0) == 0);
              clobber(s, len);
              gex_NBI_Wait(GEX_EC_PUT, 0);
              break;
            case C_NBI_DEFER:
              CHECK(gex_RMA_PutNBI(T.tm, p, dst, s, len, GEX_EVENT_DEFER, 0) == 0);
              gex_NBI_Wait(GEX_EC_PUT, 0);
              clobber(s, len);
              break;
            case C_BLOCKING:
              CHECK(gex_RMA_PutBlocking(T.tm, p, dst, s, len, 0) == 0);
              clobber(s, len);
              break;
          }
        }
    }
    /* nothing left outstanding */
    CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == 0);
    test_barrier();
    for (gex_Rank_t srcr = 0; srcr < n; srcr++)
      for (int c = 0; c < NCASES; c++)
        for (int l = 0; l < NLEN; l++) {
          unsigned char *d = T.seg_base + REGION * srcr + slot_off(c, l);
          long bad = test_verify(d, lens[l], test_seed(srcr, me, (uint64_t)(c * 10 + l),
                                                       (uint64_t)round));
          CHECKF(bad < 0, "%s, %zu bytes from rank %u: byte %ld wrong (source reused too early?)",
                 case_name[c], lens[l], srcr, bad);
          CHECK_BYTES(d + lens[l], 16, 0);
        }
    test_barrier();
  }
  free(src);
  test_finish();
}

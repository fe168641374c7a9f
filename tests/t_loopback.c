/* t_loopback.c -- every communication call aimed at the calling rank itself:
 * AM Short/Medium/Long Request and Reply (fixed and negotiated payload, lc
 * options), and all RMA forms incl. the value forms, with data verification.
 * Every rank does this at once, so loopback traffic also runs concurrently
 * with other ranks' loopback traffic.  As in the reference implementation,
 * an AM to oneself runs its handler (and that handler's Reply's handler)
 * inside the sending call.
 */
#include "test_util.h"

#define BIG (256 * 1024)
#define AREA (BIG + 64)
#define OFF_LONG 0
#define OFF_REPLONG AREA
#define OFF_RMA (2 * AREA)
#define OFF_SCRATCH (3 * AREA)

static const gex_AM_Index_t H_S = GEX_AM_INDEX_BASE + 56, H_M = H_S + 1, H_L = H_S + 2,
                             H_RS = H_S + 3, H_RM = H_S + 4, H_RL = H_S + 5;
static atomic_long n_req, n_rep;
static size_t cur_len;

static void check_self(gex_Token_t t, int is_req, int is_long) {
  gex_Token_Info_t info;
  gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
  CHECK(got & GEX_TI_SRCRANK);
  CHECKF(info.gex_srcrank == T.rank, "loopback AM came from rank %u", info.gex_srcrank);
  if (got & GEX_TI_IS_REQ) CHECK(!!info.gex_is_req == is_req);
  if (got & GEX_TI_IS_LONG) CHECK(!!info.gex_is_long == is_long);
}

/* a0: key, a1: reply category (0 Short, 1 Medium, 2 Long) */
static void reply_with(gex_Token_t t, gex_AM_Arg_t key, gex_AM_Arg_t cat) {
  static unsigned char rbuf[BIG];
  size_t len = cur_len;
  test_fill(rbuf, len, test_seed(T.rank, (uint64_t)key, 2, 0));
  int rc = -1;
  if (cat == 0) rc = gex_AM_ReplyShort2(t, H_RS, 0, key, cat);
  if (cat == 1) {
    size_t ml = len < gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 2) ? len : gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 2);
    rc = gex_AM_ReplyMedium2(t, H_RM, rbuf, ml, GEX_EVENT_NOW, 0, key, cat);
  }
  if (cat == 2)
    rc = gex_AM_ReplyLong2(t, H_RL, rbuf, len, T.seg_base + OFF_REPLONG, GEX_EVENT_NOW, 0, key, cat);
  CHECK(rc == 0);
}
static void h_s(gex_Token_t t, gex_AM_Arg_t key, gex_AM_Arg_t cat) {
  check_self(t, 1, 0);
  atomic_fetch_add(&n_req, 1);
  reply_with(t, key, cat);
}
static void h_m(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t key, gex_AM_Arg_t cat) {
  check_self(t, 1, 0);
  CHECK(test_verify(b, nb, test_seed(T.rank, (uint64_t)key, 1, 0)) < 0);
  atomic_fetch_add(&n_req, 1);
  reply_with(t, key, cat);
}
static void h_l(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t key, gex_AM_Arg_t cat) {
  check_self(t, 1, 1);
  CHECK(b == T.seg_base + OFF_LONG);
  CHECK(nb == cur_len);
  CHECK(test_verify(b, nb, test_seed(T.rank, (uint64_t)key, 1, 0)) < 0);
  atomic_fetch_add(&n_req, 1);
  reply_with(t, key, cat);
}
static void h_rs(gex_Token_t t, gex_AM_Arg_t key, gex_AM_Arg_t cat) {
  (void)key;
  check_self(t, 0, 0);
  CHECK(cat == 0);
  atomic_fetch_add(&n_rep, 1);
}
static void h_rm(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t key, gex_AM_Arg_t cat) {
  check_self(t, 0, 0);
  CHECK(cat == 1);
  CHECK(test_verify(b, nb, test_seed(T.rank, (uint64_t)key, 2, 0)) < 0);
  atomic_fetch_add(&n_rep, 1);
}
static void h_rl(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t key, gex_AM_Arg_t cat) {
  check_self(t, 0, 1);
  CHECK(cat == 2);
  CHECK(b == T.seg_base + OFF_REPLONG && nb == cur_len);
  CHECK(test_verify(b, nb, test_seed(T.rank, (uint64_t)key, 2, 0)) < 0);
  atomic_fetch_add(&n_rep, 1);
}

static void am_loopback(void) {
  const gex_Rank_t me = T.rank;
  static unsigned char buf[BIG];
  size_t lens[] = {0, 1, 100, 4096, BIG};
  gex_Event_t dummy;
  size_t maxmed = gex_AM_MaxRequestMedium(T.tm, me, &dummy, 0, 2);
  int key = 0;
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
    for (int cat = 0; cat < 3; cat++)
      for (int rcat = 0; rcat < 3; rcat++)
        for (int lcm = 0; lcm < 3; lcm++) {
          cur_len = lens[li];
          size_t len = cat == 1 && cur_len > maxmed ? maxmed : cur_len;
          test_fill(buf, len, test_seed(me, (uint64_t)key, 1, 0));
          long before = atomic_load(&n_rep);
          gex_Event_t ev = GEX_EVENT_NO_OP;
          gex_Event_t *lc = lcm == 0 ? GEX_EVENT_NOW : lcm == 1 ? &ev : GEX_EVENT_GROUP;
          int rc = -1;
          if (cat == 0) rc = gex_AM_RequestShort2(T.tm, me, H_S, 0, key, rcat);
          if (cat == 1) rc = gex_AM_RequestMedium2(T.tm, me, H_M, buf, len, lc, 0, key, rcat);
          if (cat == 2)
            rc = gex_AM_RequestLong2(T.tm, me, H_L, buf, len, T.seg_base + OFF_LONG, lc, 0, key, rcat);
          CHECK(rc == 0);
          if (cat != 0 && lcm == 1) gex_Event_Wait(ev);
          if (cat != 0 && lcm == 2) gex_NBI_Wait(GEX_EC_AM, 0);
          if (cat != 0) memset(buf, 0xEE, len); /* locally complete */
          /* The handler and its Reply's handler ran inside the call. */
          CHECKF(atomic_load(&n_rep) == before + 1, "loopback AM %d: handlers had not run when the "
                 "Request call returned", key);
          key++;
        }
  CHECK(atomic_load(&n_req) == key && atomic_load(&n_rep) == key);

  /* negotiated payload to self */
  cur_len = 1000;
  long before = atomic_load(&n_rep);
  gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(T.tm, me, NULL, 1000, 1000, NULL, 0, 2);
  CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) == 1000);
  test_fill(gex_AM_SrcDescAddr(sd), 1000, test_seed(me, (uint64_t)key, 1, 0));
  gex_AM_CommitRequestMedium2(sd, H_M, 1000, key, 1);
  CHECK(atomic_load(&n_rep) == before + 1); /* ran inside Commit */
  key++;
  before = atomic_load(&n_rep);
  sd = gex_AM_PrepareRequestLong(T.tm, me, buf, 1000, 1000, T.seg_base + OFF_LONG, GEX_EVENT_NOW, 0, 2);
  CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescAddr(sd) == buf);
  test_fill(buf, 1000, test_seed(me, (uint64_t)key, 1, 0));
  gex_AM_CommitRequestLong2(sd, H_L, 1000, T.seg_base + OFF_LONG, key, 2);
  CHECK(atomic_load(&n_rep) == before + 1); /* ran inside Commit */
}

static void rma_loopback(void) {
  const gex_Rank_t me = T.rank;
  unsigned char *seg = T.seg_base + OFF_RMA;
  static unsigned char src[BIG + 16], dst[BIG + 16];
  size_t lens[] = {1, 2, 3, 7, 8, 9, 63, 64, 65, 4095, 4096, 4097, BIG};
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
    for (int form = 0; form < 6; form++) {
      size_t len = lens[li];
      uint64_t seed = test_seed(me, len, (uint64_t)form, 77);
      memset(seg, 0, BIG + 16);
      memset(dst, 0, sizeof dst);
      gex_Event_t e;
      if (form < 3) { /* Put to myself, check my segment */
        test_fill(src + 1, len, seed);
        if (form == 0) CHECK(gex_RMA_PutBlocking(T.tm, me, seg + 3, src + 1, len, 0) == 0);
        if (form == 1) {
          e = gex_RMA_PutNB(T.tm, me, seg + 3, src + 1, len, GEX_EVENT_DEFER, 0);
          CHECK(e != GEX_EVENT_NO_OP);
          gex_Event_Wait(e);
        }
        if (form == 2) {
          CHECK(gex_RMA_PutNBI(T.tm, me, seg + 3, src + 1, len, GEX_EVENT_GROUP, 0) == 0);
          gex_NBI_Wait(GEX_EC_ALL, 0);
        }
        CHECK_BYTES(seg, 3, 0);
        CHECK_PATTERN(seg + 3, len, seed);
        CHECK_BYTES(seg + 3 + len, 8, 0);
      } else { /* Get from myself, into private memory and into my segment */
        test_fill(seg + 5, len, seed);
        unsigned char *d = (form == 4) ? T.seg_base + OFF_SCRATCH + 1 : dst + 1;
        memset(d - 1, 0, len + 9);
        if (form == 3) CHECK(gex_RMA_GetBlocking(T.tm, d, me, seg + 5, len, 0) == 0);
        if (form == 4) {
          e = gex_RMA_GetNB(T.tm, d, me, seg + 5, len, 0);
          CHECK(e != GEX_EVENT_NO_OP);
          gex_Event_Wait(e);
        }
        if (form == 5) {
          CHECK(gex_RMA_GetNBI(T.tm, d, me, seg + 5, len, 0) == 0);
          gex_NBI_Wait(GEX_EC_GET, 0);
        }
        CHECK_BYTES(d - 1, 1, 0);
        CHECK_PATTERN(d, len, seed);
        CHECK_BYTES(d + len, 8, 0);
      }
    }
  /* value forms */
  size_t w[] = {1, 2, 4, 8};
  for (int i = 0; i < 4; i++) {
    uint64_t v = test_seed(me, w[i], 5, 5);
    uint64_t mask = w[i] == 8 ? ~0ULL : ((1ULL << (8 * w[i])) - 1);
    memset(seg, 0, 32);
    CHECK(gex_RMA_PutBlockingVal(T.tm, me, seg + 1, v, w[i], 0) == 0);
    CHECK(gex_RMA_GetBlockingVal(T.tm, me, seg + 1, w[i], 0) == (v & mask));
    CHECK(gex_RMA_PutNBIVal(T.tm, me, seg + 9, v ^ 1, w[i], 0) == 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    CHECK(gex_RMA_GetBlockingVal(T.tm, me, seg + 9, w[i], 0) == ((v ^ 1) & mask));
    gex_Event_Wait(gex_RMA_PutNBVal(T.tm, me, seg + 17, v ^ 2, w[i], 0));
    CHECK(gex_RMA_GetBlockingVal(T.tm, me, seg + 17, w[i], 0) == ((v ^ 2) & mask));
    CHECK_BYTES(seg + 17 + w[i], 32 - 17 - w[i], 0);
  }
}

int main(int argc, char **argv) {
  gex_AM_Entry_t tab[] = {
      {H_S, (gex_AM_Fn_t)h_s, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "s"},
      {H_M, (gex_AM_Fn_t)h_m, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "m"},
      {H_L, (gex_AM_Fn_t)h_l, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "l"},
      {H_RS, (gex_AM_Fn_t)h_rs, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "rs"},
      {H_RM, (gex_AM_Fn_t)h_rm, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2, NULL, "rm"},
      {H_RL, (gex_AM_Fn_t)h_rl, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, NULL, "rl"},
  };
  test_init(&argc, &argv, "T_LOOPBACK", OFF_SCRATCH + BIG + 64, tab, 6);
  int rounds = (int)test_iters(4, 1);
  for (int r = 0; r < rounds; r++) {
    atomic_store(&n_req, 0);
    atomic_store(&n_rep, 0);
    am_loopback();
    rma_loopback();
  }
  test_finish();
}

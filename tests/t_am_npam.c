/* t_am_npam.c -- negotiated-payload AMs: gex_AM_Prepare{Request,Reply}
 * {Medium,Long} with a client buffer and with a GASNet-allocated one (NULL),
 * gex_AM_SrcDescAddr/Size (client buffer returned as is; allocated buffer
 * aligned; size within [least, most], also when most exceeds the fixed
 * maximum), Commit in numbered, macro and _v2 forms (flags 0 and IMMEDIATE),
 * Cancel (nothing is delivered), Long dest_addr given at Prepare or only at
 * Commit, local completion of a client buffer (event, NOW, GROUP), 0 and 16
 * arguments, and the GEX_FLAG_AM_PREPARE_LEAST_{CLIENT,ALLOC} limit queries
 * (a Prepare with least_payload at that limit succeeds).
 *
 * Every rank runs every case against every rank (self included), one Request
 * at a time; the Request handler verifies and answers with a Reply prepared
 * in the way selected by the Request (reply mode).
 */
#include "test_util.h"

#include <stddef.h>

#define SLOT (256 * 1024 + 64) /* Long destination per (src, kind) */
#define MOST_LONG (256 * 1024)

enum { RM_SHORT, RM_MED_ALLOC, RM_MED_CLIENT, RM_LONG_ALLOC_DEST, RM_LONG_CLIENT_LATE,
       RM_CANCEL_THEN_MED, RM_MED_V2_IMM, RM_LONG_V2, NRM };

static const gex_AM_Index_t H_MED = 150, H_LONG = 151, H_MED0 = 152, H_MED16 = 153,
                            H_REP_SHORT = 160, H_REP_MED = 161, H_REP_LONG = 162;

static atomic_long n_req, n_rep, n_med0, n_med16;
static size_t req_med_alloc, req_med_client, req_long_alloc, req_long_client;
static size_t rep_med_alloc, rep_med_client, rep_long_alloc, rep_long_client;
static size_t max_req_med, max_rep_med;

static unsigned char *req_dest(gex_Rank_t owner, gex_Rank_t src) {
  return T.peer_seg[owner] + (size_t)src * 2 * SLOT;
}
static unsigned char *rep_dest(gex_Rank_t owner, gex_Rank_t src) {
  return T.peer_seg[owner] + (size_t)src * 2 * SLOT + SLOT;
}

static void check_sd(gex_AM_SrcDesc_t sd, const void *client_buf, size_t least, size_t most) {
  CHECK(sd != GEX_AM_SRCDESC_NO_OP);
  void *a = gex_AM_SrcDescAddr(sd);
  size_t s = gex_AM_SrcDescSize(sd);
  CHECKF(s >= least && s <= most, "SrcDescSize %zu not in [%zu, %zu]", s, least, most);
  if (client_buf) {
    CHECK(a == client_buf);
  } else {
    CHECK(a != NULL);
    CHECKF((uintptr_t)a % _Alignof(max_align_t) == 0, "allocated buffer %p not aligned", a);
  }
}

static gex_Rank_t srcrank_of(gex_Token_t t) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  return info.gex_srcrank;
}

/* ---- Replies, built in the Request handler ---- */
static void reply(gex_Token_t t, gex_Rank_t src, int mode, gex_AM_Arg_t key) {
  static unsigned char cbuf[MOST_LONG + 64]; /* handlers run on the main thread only */
  gex_AM_SrcDesc_t sd;
  size_t len;
  uint64_t seed = test_seed(T.rank, src, (uint64_t)key, 2);
  switch (mode) {
    case RM_SHORT:
      CHECK(gex_AM_ReplyShort3(t, H_REP_SHORT, 0, key, 0, mode) == 0);
      return;
    case RM_MED_ALLOC: /* GASNet buffer; least at the ALLOC limit */
      sd = gex_AM_PrepareReplyMedium(t, NULL, rep_med_alloc, rep_med_alloc, NULL, 0, 3);
      check_sd(sd, NULL, rep_med_alloc, rep_med_alloc);
      len = gex_AM_SrcDescSize(sd);
      test_fill(gex_AM_SrcDescAddr(sd), len, seed);
      gex_AM_CommitReplyMedium3(sd, H_REP_MED, len, key, (gex_AM_Arg_t)len, mode);
      return;
    case RM_MED_CLIENT: /* client buffer, most above the fixed maximum */
      sd = gex_AM_PrepareReplyMedium(t, cbuf + 1, 10, 3 * max_rep_med, GEX_EVENT_NOW, 0, 3);
      check_sd(sd, cbuf + 1, 10, 3 * max_rep_med);
      len = gex_AM_SrcDescSize(sd);
      test_fill(cbuf + 1, len, seed);
      gex_AM_CommitReplyMedium(sd, H_REP_MED, len, key, (gex_AM_Arg_t)len, mode);
      memset(cbuf, 0, len + 1); /* NOW: locally complete on return */
      return;
    case RM_LONG_ALLOC_DEST: /* GASNet buffer, dest at Prepare */
      sd = gex_AM_PrepareReplyLong(t, NULL, 1, rep_long_alloc, rep_dest(src, T.rank), NULL, 0, 3);
      check_sd(sd, NULL, 1, rep_long_alloc);
      len = gex_AM_SrcDescSize(sd);
      test_fill(gex_AM_SrcDescAddr(sd), len, seed);
      gex_AM_CommitReplyLong3(sd, H_REP_LONG, len, rep_dest(src, T.rank), key, (gex_AM_Arg_t)len,
                              mode);
      return;
    case RM_LONG_CLIENT_LATE: /* client buffer, dest only at Commit; commit less than offered */
      sd = gex_AM_PrepareReplyLong(t, cbuf, rep_long_client, MOST_LONG, NULL, GEX_EVENT_NOW, 0, 3);
      check_sd(sd, cbuf, rep_long_client, MOST_LONG);
      len = gex_AM_SrcDescSize(sd) - 1;
      test_fill(cbuf, len, seed);
      gex_AM_CommitReplyLong(sd, H_REP_LONG, len, rep_dest(src, T.rank) + 3, key,
                             (gex_AM_Arg_t)len, mode);
      return;
    case RM_CANCEL_THEN_MED: /* a cancelled Prepare does not use up the Reply */
      sd = gex_AM_PrepareReplyMedium(t, NULL, 64, 64, NULL, 0, 3);
      check_sd(sd, NULL, 64, 64);
      CHECK(gex_AM_CancelReplyMedium(sd, 0) == 0);
      sd = gex_AM_PrepareReplyLong(t, cbuf, 64, 64, rep_dest(src, T.rank), GEX_EVENT_NOW, 0, 3);
      check_sd(sd, cbuf, 64, 64);
      CHECK(gex_AM_CancelReplyLong(sd, 0) == 0);
      len = 77;
      test_fill(cbuf, len, seed);
      CHECK(gex_AM_ReplyMedium3(t, H_REP_MED, cbuf, len, GEX_EVENT_NOW, 0, key, (gex_AM_Arg_t)len,
                                mode) == 0);
      return;
    case RM_MED_V2_IMM: { /* _v2 with IMMEDIATE may refuse: the sd stays valid */
      sd = gex_AM_PrepareReplyMedium(t, NULL, 200, 200, NULL, 0, 3);
      check_sd(sd, NULL, 200, 200);
      len = 200;
      test_fill(gex_AM_SrcDescAddr(sd), len, seed);
      if (gex_AM_CommitReplyMedium3_v2(sd, H_REP_MED, len, GEX_FLAG_IMMEDIATE, key,
                                       (gex_AM_Arg_t)len, mode) != 0) {
        CHECK(gex_AM_SrcDescSize(sd) >= 200);
        CHECK(gex_AM_CommitReplyMedium_v2(sd, H_REP_MED, len, 0, key, (gex_AM_Arg_t)len, mode) == 0);
      }
      return;
    }
    case RM_LONG_V2:
      sd = gex_AM_PrepareReplyLong(t, NULL, 512, 4096, NULL, NULL, 0, 3);
      check_sd(sd, NULL, 512, 4096);
      len = gex_AM_SrcDescSize(sd);
      test_fill(gex_AM_SrcDescAddr(sd), len, seed);
      CHECK(gex_AM_CommitReplyLong_v2(sd, H_REP_LONG, len, rep_dest(src, T.rank) + 1, 0, key,
                                      (gex_AM_Arg_t)len, mode) == 0);
      return;
  }
  CHECK(0);
}

static void verify_req(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t key, gex_AM_Arg_t len,
                       gex_AM_Arg_t mode, int is_long) {
  gex_Rank_t src = srcrank_of(t);
  CHECKF(nb == (size_t)(uint32_t)len, "Request key %d: nbytes %zu, committed %d", key, nb, len);
  if (is_long) {
    unsigned char *want = T.seg_base + (size_t)src * 2 * SLOT + (size_t)(key % 4);
    CHECKF(buf == want, "Long Request key %d: dest %p want %p", key, buf, (void *)want);
  }
  long bad = test_verify(buf, nb, test_seed(src, T.rank, (uint64_t)key, 1));
  CHECKF(bad < 0, "Request key %d (%zu bytes) from %u: byte %ld wrong", key, nb, src, bad);
  atomic_fetch_add(&n_req, 1);
  CHECK(mode >= 0 && mode < NRM);
  reply(t, src, mode, key);
}
static void h_med(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t k, gex_AM_Arg_t l, gex_AM_Arg_t m) {
  verify_req(t, b, nb, k, l, m, 0);
}
static void h_long(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t k, gex_AM_Arg_t l, gex_AM_Arg_t m) {
  verify_req(t, b, nb, k, l, m, 1);
}
static void h_med0(gex_Token_t t, void *b, size_t nb) {
  gex_Rank_t src = srcrank_of(t);
  CHECK(nb == 100);
  CHECK(test_verify(b, nb, test_seed(src, T.rank, 0, 0)) < 0);
  atomic_fetch_add(&n_med0, 1);
}
static void h_med16(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                    gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5,
                    gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9,
                    gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13,
                    gex_AM_Arg_t a14, gex_AM_Arg_t a15) {
  gex_AM_Arg_t a[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  for (int j = 0; j < 16; j++) CHECK(a[j] == 1000 * j - 7);
  gex_Rank_t src = srcrank_of(t);
  CHECK(test_verify(b, nb, test_seed(src, T.rank, 16, 0)) < 0);
  atomic_fetch_add(&n_med16, 1);
}

static void verify_rep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t key, gex_AM_Arg_t len,
                       gex_AM_Arg_t mode, int is_long) {
  gex_Rank_t src = srcrank_of(t);
  CHECKF(nb == (size_t)(uint32_t)len, "Reply key %d mode %d: nbytes %zu, committed %d", key, mode,
         nb, len);
  if (is_long) {
    size_t off = mode == RM_LONG_CLIENT_LATE ? 3 : mode == RM_LONG_V2 ? 1 : 0;
    unsigned char *want = T.seg_base + (size_t)src * 2 * SLOT + SLOT + off;
    CHECKF(buf == want, "Long Reply mode %d: dest %p want %p", mode, buf, (void *)want);
  }
  long bad = test_verify(buf, nb, test_seed(src, T.rank, (uint64_t)key, 2));
  CHECKF(bad < 0, "Reply key %d mode %d (%zu bytes) from %u: byte %ld wrong", key, mode, nb, src,
         bad);
  atomic_fetch_add(&n_rep, 1);
}
static void h_rep_short(gex_Token_t t, gex_AM_Arg_t k, gex_AM_Arg_t l, gex_AM_Arg_t m) {
  (void)t;
  (void)k;
  CHECK(l == 0 && m == RM_SHORT);
  atomic_fetch_add(&n_rep, 1);
}
static void h_rep_med(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t k, gex_AM_Arg_t l, gex_AM_Arg_t m) {
  verify_rep(t, b, nb, k, l, m, 0);
}
static void h_rep_long(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t k, gex_AM_Arg_t l, gex_AM_Arg_t m) {
  verify_rep(t, b, nb, k, l, m, 1);
}

/* ---- Requests ---- */
static unsigned char *cbuf;
static int key_counter;

/* One Request case to p; waits for its Reply. */
static void request_case(gex_Rank_t p, int kind, int mode) {
  const gex_Rank_t me = T.rank;
  gex_AM_Arg_t key = (gex_AM_Arg_t)(key_counter++);
  uint64_t seed = test_seed(me, p, (uint64_t)key, 1);
  long before = atomic_load(&n_rep);
  gex_AM_SrcDesc_t sd;
  size_t len;
  unsigned char *dest = req_dest(p, me) + key % 4;
  switch (kind) {
    case 0: /* Medium, GASNet buffer, least = most = ALLOC limit */
      sd = gex_AM_PrepareRequestMedium(T.tm, p, NULL, req_med_alloc, req_med_alloc, NULL, 0, 3);
      check_sd(sd, NULL, req_med_alloc, req_med_alloc);
      len = gex_AM_SrcDescSize(sd);
      test_fill(gex_AM_SrcDescAddr(sd), len, seed);
      gex_AM_CommitRequestMedium3(sd, H_MED, len, key, (gex_AM_Arg_t)len, mode);
      break;
    case 1: { /* Medium, client buffer, lc = &ev; least = CLIENT limit, most way above */
      gex_Event_t lc = GEX_EVENT_NO_OP;
      sd = gex_AM_PrepareRequestMedium(T.tm, p, cbuf + 3, req_med_client, 10 * max_req_med, &lc, 0, 3);
      check_sd(sd, cbuf + 3, req_med_client, 10 * max_req_med);
      len = gex_AM_SrcDescSize(sd);
      test_fill(cbuf + 3, len, seed);
      gex_AM_CommitRequestMedium(sd, H_MED, len, key, (gex_AM_Arg_t)len, mode);
      CHECK(lc != GEX_EVENT_NO_OP);
      gex_Event_Wait(lc);
      memset(cbuf, 0xEE, len + 3); /* locally complete: reusable */
      break;
    }
    case 2: /* Medium, client buffer, GROUP; commit less than offered; _v2 flags 0 */
      sd = gex_AM_PrepareRequestMedium(T.tm, p, cbuf, 100, 1000, GEX_EVENT_GROUP, 0, 3);
      check_sd(sd, cbuf, 100, 1000);
      len = gex_AM_SrcDescSize(sd) / 2;
      test_fill(cbuf, len, seed);
      CHECK(gex_AM_CommitRequestMedium3_v2(sd, H_MED, len, 0, key, (gex_AM_Arg_t)len, mode) == 0);
      gex_NBI_Wait(GEX_EC_AM, 0);
      memset(cbuf, 0xEE, len);
      break;
    case 3: /* Medium, GASNet buffer, _v2 IMMEDIATE (may refuse, then commit normally) */
      sd = gex_AM_PrepareRequestMedium(T.tm, p, NULL, 1, 4096, NULL, 0, 3);
      check_sd(sd, NULL, 1, 4096);
      len = gex_AM_SrcDescSize(sd);
      test_fill(gex_AM_SrcDescAddr(sd), len, seed);
      if (gex_AM_CommitRequestMedium_v2(sd, H_MED, len, GEX_FLAG_IMMEDIATE, key,
                                        (gex_AM_Arg_t)len, mode) != 0)
        CHECK(gex_AM_CommitRequestMedium_v2(sd, H_MED, len, 0, key, (gex_AM_Arg_t)len, mode) == 0);
      break;
    case 4: /* Long, GASNet buffer, dest at Prepare */
      sd = gex_AM_PrepareRequestLong(T.tm, p, NULL, req_long_alloc, req_long_alloc, dest, NULL, 0, 3);
      check_sd(sd, NULL, req_long_alloc, req_long_alloc);
      len = gex_AM_SrcDescSize(sd);
      test_fill(gex_AM_SrcDescAddr(sd), len, seed);
      gex_AM_CommitRequestLong3(sd, H_LONG, len, dest, key, (gex_AM_Arg_t)len, mode);
      break;
    case 5: { /* Long, client buffer, dest only at Commit, lc = &ev */
      gex_Event_t lc = GEX_EVENT_NO_OP;
      sd = gex_AM_PrepareRequestLong(T.tm, p, cbuf, req_long_client, MOST_LONG, NULL, &lc, 0, 3);
      check_sd(sd, cbuf, req_long_client, MOST_LONG);
      len = gex_AM_SrcDescSize(sd);
      test_fill(cbuf, len, seed);
      gex_AM_CommitRequestLong(sd, H_LONG, len, dest, key, (gex_AM_Arg_t)len, mode);
      gex_Event_Wait(lc);
      memset(cbuf, 0xEE, len);
      break;
    }
    case 6: /* Long, client buffer, NOW, _v2 */
      sd = gex_AM_PrepareRequestLong(T.tm, p, cbuf + 1, 1000, 3000, dest, GEX_EVENT_NOW, 0, 3);
      check_sd(sd, cbuf + 1, 1000, 3000);
      len = gex_AM_SrcDescSize(sd);
      test_fill(cbuf + 1, len, seed);
      CHECK(gex_AM_CommitRequestLong3_v2(sd, H_LONG, len, dest, 0, key, (gex_AM_Arg_t)len, mode) == 0);
      memset(cbuf, 0xEE, len + 1);
      break;
    default:
      CHECK(0);
      return;
  }
  GASNET_BLOCKUNTIL(atomic_load(&n_rep) > before);
}

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return (uintptr_t)n * 2 * SLOT;
}

int main(int argc, char **argv) {
  gex_AM_Entry_t tab[] = {
      {H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 3, NULL, "med"},
      {H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 3, NULL, "long"},
      {H_MED0, (gex_AM_Fn_t)h_med0, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "med0"},
      {H_MED16, (gex_AM_Fn_t)h_med16, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 16, NULL, "med16"},
      {H_REP_SHORT, (gex_AM_Fn_t)h_rep_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 3, NULL, "rs"},
      {H_REP_MED, (gex_AM_Fn_t)h_rep_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 3, NULL, "rm"},
      {H_REP_LONG, (gex_AM_Fn_t)h_rep_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 3, NULL, "rl"},
  };
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_AM_NPAM", 0, tab, sizeof tab / sizeof tab[0]);
  const gex_Rank_t me = T.rank, n = T.size;
  gex_Event_t dummy;

  /* limits; symmetric and uniform on one host, so one set serves every pair */
  gex_Rank_t any = (me + 1) % n;
  req_med_alloc = gex_AM_MaxRequestMedium(T.tm, any, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 3);
  req_med_client = gex_AM_MaxRequestMedium(T.tm, any, &dummy, GEX_FLAG_AM_PREPARE_LEAST_CLIENT, 3);
  req_long_alloc = gex_AM_MaxRequestLong(T.tm, any, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 3);
  req_long_client = gex_AM_MaxRequestLong(T.tm, any, &dummy, GEX_FLAG_AM_PREPARE_LEAST_CLIENT, 3);
  rep_med_alloc = gex_AM_MaxReplyMedium(T.tm, any, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 3);
  rep_med_client = gex_AM_MaxReplyMedium(T.tm, any, GEX_EVENT_NOW, GEX_FLAG_AM_PREPARE_LEAST_CLIENT, 3);
  rep_long_alloc = gex_AM_MaxReplyLong(T.tm, any, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 3);
  rep_long_client = gex_AM_MaxReplyLong(T.tm, any, GEX_EVENT_NOW, GEX_FLAG_AM_PREPARE_LEAST_CLIENT, 3);
  max_req_med = gex_AM_MaxRequestMedium(T.tm, any, &dummy, 0, 3);
  max_rep_med = gex_AM_MaxReplyMedium(T.tm, any, GEX_EVENT_NOW, 0, 3);
  test_log0("LEAST limits: req med %zu/%zu long %zu/%zu; rep med %zu/%zu long %zu/%zu "
            "(alloc/client)", req_med_alloc, req_med_client, req_long_alloc, req_long_client,
            rep_med_alloc, rep_med_client, rep_long_alloc, rep_long_client);
  size_t lims[] = {req_med_alloc, req_med_client, req_long_alloc, req_long_client,
                   rep_med_alloc, rep_med_client, rep_long_alloc, rep_long_client};
  for (int i = 0; i < 8; i++) CHECKF(lims[i] >= 512, "LEAST limit %d is %zu", i, lims[i]);
  /* this test's buffers and slots hold up to MOST_LONG */
  if (req_long_client > MOST_LONG) req_long_client = MOST_LONG;
  if (rep_long_client > MOST_LONG) rep_long_client = MOST_LONG;
  if (req_long_alloc > MOST_LONG) req_long_alloc = MOST_LONG;
  if (rep_long_alloc > MOST_LONG) rep_long_alloc = MOST_LONG;
  CHECK(req_med_alloc <= MOST_LONG && req_med_client <= MOST_LONG);
  cbuf = malloc(MOST_LONG + 64);
  CHECK(cbuf);
  /* handlers read the limits above: no Request may arrive before every rank has them */
  test_barrier();
  long expect_rep = 0;

  int rounds = (int)test_iters(2, 1);
  for (int round = 0; round < rounds; round++)
    for (gex_Rank_t i = 0; i < n; i++) {
      gex_Rank_t p = (me + i) % n;
      for (int kind = 0; kind <= 6; kind++)
        for (int mode = 0; mode < NRM; mode++) {
          request_case(p, kind, mode);
          expect_rep++;
        }

      /* Cancel: nothing is sent */
      gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(T.tm, p, NULL, 64, 128, NULL, 0, 3);
      check_sd(sd, NULL, 64, 128);
      CHECK(gex_AM_CancelRequestMedium(sd, 0) == 0);
      sd = gex_AM_PrepareRequestLong(T.tm, p, cbuf, 64, 128, req_dest(p, me), GEX_EVENT_NOW, 0, 3);
      check_sd(sd, cbuf, 64, 128);
      CHECK(gex_AM_CancelRequestLong(sd, 0) == 0);
      /* a Prepare with IMMEDIATE either gives an sd or NO_OP */
      sd = gex_AM_PrepareRequestMedium(T.tm, p, NULL, 64, 64, NULL, GEX_FLAG_IMMEDIATE, 3);
      if (sd != GEX_AM_SRCDESC_NO_OP) CHECK(gex_AM_CancelRequestMedium(sd, 0) == 0);

      /* 0 and 16 arguments */
      sd = gex_AM_PrepareRequestMedium(T.tm, p, NULL, 100, 100, NULL, 0, 0);
      check_sd(sd, NULL, 100, 100);
      test_fill(gex_AM_SrcDescAddr(sd), 100, test_seed(me, p, 0, 0));
      gex_AM_CommitRequestMedium0(sd, H_MED0, 100);
      sd = gex_AM_PrepareRequestMedium(T.tm, p, cbuf, 1, 300, GEX_EVENT_NOW, 0, 16);
      check_sd(sd, cbuf, 1, 300);
      size_t l16 = gex_AM_SrcDescSize(sd);
      test_fill(cbuf, l16, test_seed(me, p, 16, 0));
      gex_AM_CommitRequestMedium(sd, H_MED16, l16, -7, 993, 1993, 2993, 3993, 4993, 5993, 6993,
                                 7993, 8993, 9993, 10993, 11993, 12993, 13993, 14993);
    }
  CHECK(atomic_load(&n_rep) == expect_rep);
  test_barrier();
  CHECKF(atomic_load(&n_req) == expect_rep, "%ld Requests handled, want %ld (cancelled ones sent?)",
         atomic_load(&n_req), expect_rep);
  /* the 0- and 16-argument ones were not waited for: they arrive eventually */
  GASNET_BLOCKUNTIL(atomic_load(&n_med0) == (long)n * rounds && atomic_load(&n_med16) == (long)n * rounds);
  test_barrier();
  CHECK(atomic_load(&n_req) == expect_rep);
  test_finish();
}

/* t_am_reply_credit.c -- Request handlers whose Replies wait for flow-control
 * credit while Requests keep arriving from every side.
 *
 * Every rank sends every other rank, interleaved and without waiting in
 * between, K Medium Requests (every third of the largest size, the others
 * small); each handler answers with a Medium
 * Reply of the largest size, so that with little credit (GEX_OFI_AM_CREDIT)
 * most Replies must wait inside their handler for the credit that the
 * requester gives back.  That credit travels in whatever the requester sends
 * next -- often its own Requests, read from the network in the same batch of
 * completions as the Request whose handler is waiting.  A transport that
 * keeps such a batch to itself while one of its handlers waits never sees
 * the credit: the job hangs (and the test's watchdog ends it).
 *
 * Every Request carries a pattern of (source, target, sequence) that its
 * handler checks; every Reply a pattern the requester checks; each Request
 * is answered exactly once.
 *
 *   t_am_reply_credit [K]      (default 400, scaled by GEX_TEST_SCALE)
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

enum { H_REQ = 200, H_REP };

static long K;
static size_t req_max; /* the largest Medium Request */
static size_t rep_len; /* the largest Medium Reply */
static unsigned char *seen; /* [src * K + seq]: Requests handled */
static unsigned char *answered; /* [dst * K + seq]: Replies received */
static atomic_long replies;

static uint64_t req_seed(gex_Rank_t src, gex_Rank_t dst, long seq) {
  return test_seed(src, dst, (uint64_t)seq, 1);
}
static uint64_t rep_seed(gex_Rank_t src, gex_Rank_t dst, long seq) {
  return test_seed(src, dst, (uint64_t)seq, 2);
}

/* Request seq: every third one of the largest size (its credit runs out
 * too), the others small (many to a batch of completions). */
static size_t req_len(long seq) { return seq % 3 == 0 ? req_max : 312 + (size_t)(seq % 7) * 8; }

static void h_req(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  gex_Rank_t src = info.gex_srcrank;
  long seq = (long)(uint32_t)a0;
  CHECKF(seq >= 0 && seq < K, "Request sequence %ld out of range", seq);
  CHECKF(n == req_len(seq), "Request %ld: %zu bytes, want %zu", seq, n, req_len(seq));
  CHECKF(test_verify(buf, n, req_seed(src, T.rank, seq)) < 0, "Request %ld from rank %u corrupt",
         seq, (unsigned)src);
  unsigned char *s = &seen[(size_t)src * (size_t)K + (size_t)seq];
  CHECKF(*s == 0, "Request %ld from rank %u delivered twice", seq, (unsigned)src);
  *s = 1;
  /* A buffer per handler call: a handler may run inside another's wait. */
  unsigned char *out = malloc(rep_len);
  CHECK(out != NULL);
  test_fill(out, rep_len, rep_seed(T.rank, src, seq));
  CHECK(gex_AM_ReplyMedium1(t, H_REP, out, rep_len, GEX_EVENT_NOW, 0, a0) == 0);
  free(out);
}

static void h_rep(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  gex_Rank_t dst = info.gex_srcrank;
  long seq = (long)(uint32_t)a0;
  CHECKF(seq >= 0 && seq < K, "Reply sequence %ld out of range", seq);
  CHECKF(n == rep_len, "Reply %ld: %zu bytes, want %zu", seq, n, rep_len);
  CHECKF(test_verify(buf, n, rep_seed(dst, T.rank, seq)) < 0, "Reply %ld from rank %u corrupt",
         seq, (unsigned)dst);
  unsigned char *a = &answered[(size_t)dst * (size_t)K + (size_t)seq];
  CHECKF(*a == 0, "Reply %ld from rank %u delivered twice", seq, (unsigned)dst);
  *a = 1;
  atomic_fetch_add(&replies, 1);
}

int main(int argc, char **argv) {
  long base = test_arg_count(argc, argv, 400);
  gex_AM_Entry_t tab[] = {
      {H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "req"},
      {H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "rep"},
  };
  test_init(&argc, &argv, "T_AM_REPLY_CREDIT", 0, tab, 2);
  K = test_iters(base, 50);
  const gex_Rank_t me = T.rank, n = T.size;
  req_max = gex_AM_MaxRequestMedium(T.tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 1);
  rep_len = gex_AM_MaxReplyMedium(T.tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 1);
  seen = calloc((size_t)n * (size_t)K, 1);
  answered = calloc((size_t)n * (size_t)K, 1);
  unsigned char *req = malloc(req_max);
  CHECK(seen && answered && req);
  test_barrier();

  long want = 0;
  for (long seq = 0; seq < K; seq++)
    for (gex_Rank_t i = 1; i < n; i++) {
      gex_Rank_t d = (me + i) % n;
      test_fill(req, req_len(seq), req_seed(me, d, seq));
      CHECK(gex_AM_RequestMedium1(T.tm, d, H_REQ, req, req_len(seq), GEX_EVENT_NOW, 0,
                                  (gex_AM_Arg_t)seq) == 0);
      want++;
    }
  GASNET_BLOCKUNTIL(atomic_load(&replies) == want);
  test_barrier(); /* every Request of every source has been answered */
  for (gex_Rank_t s = 0; s < n; s++)
    for (long seq = 0; seq < K; seq++) {
      int other = s != me;
      CHECKF(seen[(size_t)s * (size_t)K + (size_t)seq] == other,
             "Request %ld from rank %u handled %d times", seq, (unsigned)s,
             seen[(size_t)s * (size_t)K + (size_t)seq]);
      CHECKF(answered[(size_t)s * (size_t)K + (size_t)seq] == other,
             "Reply %ld from rank %u received %d times", seq, (unsigned)s,
             answered[(size_t)s * (size_t)K + (size_t)seq]);
    }
  test_log0("%ld Requests from each rank to each other rank, each answered by a %zu-byte Reply", K,
            rep_len);
  free(req);
  free(seen);
  free(answered);
  test_finish();
}

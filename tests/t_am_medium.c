/* t_am_medium.c -- Medium payload integrity at every size from 0 to
 * gex_AM_MaxRequestMedium (Requests) and 0 to gex_AM_MaxReplyMedium (Replies).
 * Each rank sends to its successor (itself when alone); the Request handler
 * verifies the payload and answers with a Reply Medium of the matching size,
 * which the sender verifies.  Every size is delivered exactly once.  Under
 * reduced scale (sanitizers, oversubscription) the middle of the range is
 * sampled with a prime stride; 0..1100 and the top 200 sizes are always
 * covered.  Also: the largest payload with 16 arguments.
 */
#include "test_util.h"

static size_t max_req, max_rep, max_req16, max_rep16;
static unsigned char *rep_buf;
static unsigned char *seen; /* seen[s]: Reply for size step s arrived */
static atomic_long replies;

static uint64_t req_seed(gex_Rank_t src, size_t s) { return test_seed(src, s, 1, 0); }
static uint64_t rep_seed(gex_Rank_t src, size_t s) { return test_seed(src, s, 2, 0); }
static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

static gex_AM_Index_t H_REQ = 200, H_REP = 201, H_REQ16 = 202, H_REP16 = 203;

static void h_req(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t s_arg) {
  size_t s = (size_t)(uint32_t)s_arg;
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  CHECKF(nbytes == min_sz(s, max_req), "Request step %zu: nbytes %zu", s, nbytes);
  long bad = test_verify(buf, nbytes, req_seed(info.gex_srcrank, s));
  CHECKF(bad < 0, "Request Medium of %zu bytes from rank %u: byte %ld wrong", nbytes,
         info.gex_srcrank, bad);
  size_t rlen = min_sz(s, max_rep);
  CHECK(rlen <= gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 1));
  test_fill(rep_buf, rlen, rep_seed(T.rank, s));
  CHECK(gex_AM_ReplyMedium1(t, H_REP, rep_buf, rlen, GEX_EVENT_NOW, 0, s_arg) == 0);
}

static void h_rep(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t s_arg) {
  size_t s = (size_t)(uint32_t)s_arg;
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  CHECKF(nbytes == min_sz(s, max_rep), "Reply step %zu: nbytes %zu", s, nbytes);
  long bad = test_verify(buf, nbytes, rep_seed(info.gex_srcrank, s));
  CHECKF(bad < 0, "Reply Medium of %zu bytes from rank %u: byte %ld wrong", nbytes,
         info.gex_srcrank, bad);
  CHECKF(seen[s] == 0, "Reply for size step %zu delivered twice", s);
  seen[s] = 1;
  atomic_fetch_add(&replies, 1);
}

#define A16(x) x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7, x + 8, x + 9, x + 10, x + 11, \
               x + 12, x + 13, x + 14, x + 15
static void check16(gex_Token_t t, void *buf, size_t nbytes, const gex_AM_Arg_t *a, int is_req) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  for (int j = 1; j < 16; j++) CHECK(a[j] == a[0] + j);
  CHECK(nbytes == (size_t)(uint32_t)a[0]);
  long bad = test_verify(buf, nbytes, test_seed(info.gex_srcrank, nbytes, 16, (uint64_t)is_req));
  CHECKF(bad < 0, "16-arg Medium %s of %zu bytes: byte %ld wrong", is_req ? "Request" : "Reply",
         nbytes, bad);
  if (is_req) {
    size_t rlen = min_sz(nbytes, max_rep16);
    test_fill(rep_buf, rlen, test_seed(T.rank, rlen, 16, 0));
    gex_AM_Arg_t x = (gex_AM_Arg_t)rlen;
    CHECK(gex_AM_ReplyMedium(t, H_REP16, rep_buf, rlen, GEX_EVENT_NOW, 0, A16(x)) == 0);
  } else {
    atomic_fetch_add(&replies, 1);
  }
}
static void h_req16(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                    gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5,
                    gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9,
                    gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13,
                    gex_AM_Arg_t a14, gex_AM_Arg_t a15) {
  gex_AM_Arg_t a[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  check16(t, b, nb, a, 1);
}
static void h_rep16(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                    gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5,
                    gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9,
                    gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13,
                    gex_AM_Arg_t a14, gex_AM_Arg_t a15) {
  gex_AM_Arg_t a[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  check16(t, b, nb, a, 0);
}

int main(int argc, char **argv) {
  gex_AM_Entry_t tab[] = {
      {H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "req"},
      {H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "rep"},
      {H_REQ16, (gex_AM_Fn_t)h_req16, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 16, NULL, "req16"},
      {H_REP16, (gex_AM_Fn_t)h_rep16, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 16, NULL, "rep16"},
  };
  test_init(&argc, &argv, "T_AM_MEDIUM", 4096, tab, 4);
  const gex_Rank_t me = T.rank, n = T.size;
  gex_Rank_t peer = (me + 1) % n;
  max_req = gex_AM_MaxRequestMedium(T.tm, peer, GEX_EVENT_NOW, 0, 1);
  max_rep = gex_AM_MaxReplyMedium(T.tm, peer, GEX_EVENT_NOW, 0, 1);
  max_req16 = gex_AM_MaxRequestMedium(T.tm, peer, GEX_EVENT_NOW, 0, 16);
  max_rep16 = gex_AM_MaxReplyMedium(T.tm, (me + n - 1) % n, GEX_EVENT_NOW, 0, 16);
  CHECK(max_req >= 512 && max_rep >= 512 && max_req16 >= 512 && max_rep16 >= 512);
  /* my Replies go to my predecessor; limits are symmetric and (here) uniform */
  CHECK(max_rep == gex_AM_MaxReplyMedium(T.tm, (me + n - 1) % n, GEX_EVENT_NOW, 0, 1));
  CHECK(max_req == gex_AM_MaxRequestMedium(T.tm, (me + n - 1) % n, GEX_EVENT_NOW, 0, 1));
  test_log0("MaxRequestMedium %zu, MaxReplyMedium %zu (16 args: %zu, %zu)", max_req, max_rep,
            max_req16, max_rep16);

  size_t top = max_req > max_rep ? max_req : max_rep;
  rep_buf = malloc(top + 1);
  unsigned char *buf = malloc(top + 1);
  seen = calloc(top + 1, 1);
  /* the handlers use the limits and buffers: no Request before every rank has them */
  test_barrier();
  CHECK(rep_buf && buf && seen);

  int reduced = test_reduced();
  long sent = 0;
  for (size_t s = 0; s <= top; s++) {
    if (reduced && s > 1100 && s + 200 < top && (s % 61) != 0) continue;
    size_t len = min_sz(s, max_req);
    test_fill(buf, len, req_seed(me, s));
    CHECK(gex_AM_RequestMedium1(T.tm, peer, H_REQ, buf, len, GEX_EVENT_NOW, 0,
                                (gex_AM_Arg_t)s) == 0);
    sent++;
  }
  GASNET_BLOCKUNTIL(atomic_load(&replies) == sent);
  for (size_t s = 0; s <= top; s++) {
    int want = !(reduced && s > 1100 && s + 200 < top && (s % 61) != 0);
    CHECKF(seen[s] == want, "size step %zu: seen %d want %d", s, seen[s], want);
  }
  test_log0("%ld sizes ok", sent);

  /* largest payloads with 16 arguments, both directions */
  atomic_store(&replies, 0);
  size_t l16[] = {0, 1, 511, 512, max_req16 - 1, max_req16};
  for (size_t i = 0; i < sizeof l16 / sizeof l16[0]; i++) {
    size_t len = l16[i];
    test_fill(buf, len, test_seed(me, len, 16, 1));
    gex_AM_Arg_t x = (gex_AM_Arg_t)len;
    CHECK(gex_AM_RequestMedium(T.tm, peer, H_REQ16, buf, len, GEX_EVENT_NOW, 0, A16(x)) == 0);
  }
  GASNET_BLOCKUNTIL(atomic_load(&replies) == (long)(sizeof l16 / sizeof l16[0]));
  free(buf);
  test_finish();
}

/* t_am_tokeninfo.c -- gex_Token_Info in every handler category: srcrank,
 * ep, entry (the registered index, function, flags, nargs, and the shallow
 * copied cdata and name), is_req, is_long; gasnet_AMGetMsgSource; the
 * token-based limit queries; a Reply of every category from a Request
 * handler of every category; dest_addr delivered when a Long has nbytes == 0
 * (at the segment end and at an address outside any segment).
 */
#include "test_util.h"

enum { SHORT, MEDIUM, LONG, NCAT };
#define REGION 4096 /* per source rank: Long destinations */

static gex_AM_Entry_t tab[2 * NCAT];
static const gex_AM_Entry_t *entry_seen[2 * NCAT];
static int cdata_val[2 * NCAT];
static atomic_long n_req, n_rep;
static char *names[2 * NCAT] = {"req_short", "req_medium", "req_long",
                                "rep_short", "rep_medium", "rep_long"};

static void *long_dest(gex_Rank_t owner, gex_Rank_t src, int is_req, int zero, int odd) {
  if (zero && odd) return (void *)(uintptr_t)0xdead0000u; /* nbytes == 0: any address */
  if (zero) return T.peer_seg[owner] + T.peer_size[owner]; /* one past the end */
  return T.peer_seg[owner] + (size_t)src * REGION + (is_req ? 0 : REGION / 2) + 8;
}

static gex_Rank_t check_token(gex_Token_t t, int k, int is_req, int is_long) {
  gex_Token_Info_t info;
  memset(&info, 0, sizeof info);
  gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
  /* required queries always answered; libgex advertises the optional ones */
  CHECK(got & GEX_TI_SRCRANK);
  CHECK(got & GEX_TI_EP);
#if defined(GASNET_SUPPORTS_TI_ENTRY)
  CHECK(got & GEX_TI_ENTRY);
#endif
#if defined(GASNET_SUPPORTS_TI_IS_REQ)
  CHECK(got & GEX_TI_IS_REQ);
#endif
#if defined(GASNET_SUPPORTS_TI_IS_LONG)
  CHECK(got & GEX_TI_IS_LONG);
#endif
  CHECK(info.gex_srcrank < T.size);
  CHECK(info.gex_ep == T.ep);
  if (got & GEX_TI_IS_REQ) CHECKF(!!info.gex_is_req == is_req, "is_req %u", info.gex_is_req);
  if (got & GEX_TI_IS_LONG) CHECKF(!!info.gex_is_long == is_long, "is_long %u", info.gex_is_long);
  if (got & GEX_TI_ENTRY) {
    const gex_AM_Entry_t *e = info.gex_entry;
    CHECK(e != NULL);
    CHECK(e->gex_index == tab[k].gex_index);
    CHECK(e->gex_fnptr == tab[k].gex_fnptr);
    CHECK(e->gex_flags == tab[k].gex_flags);
    CHECK(e->gex_nargs == tab[k].gex_nargs);
    CHECK(e->gex_cdata == &cdata_val[k]); /* shallow copy */
    CHECK(e->gex_name == names[k]);
    CHECK(strcmp(e->gex_name, names[k]) == 0);
    /* library-owned storage: the same object every time */
    if (entry_seen[k]) CHECK(entry_seen[k] == e);
    entry_seen[k] = e;
  }
  /* partial masks */
  gex_Token_Info_t i2;
  CHECK(gex_Token_Info(t, &i2, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  CHECK(i2.gex_srcrank == info.gex_srcrank);
  CHECK(gex_Token_Info(t, &i2, GEX_TI_EP) & GEX_TI_EP);
  CHECK(i2.gex_ep == T.ep);
  gasnet_node_t src1 = 0xFFFF;
  CHECK(gasnet_AMGetMsgSource(t, &src1) == GASNET_OK);
  CHECK(src1 == info.gex_srcrank);
  return info.gex_srcrank;
}

/* args: a0 = reply category, a1 = zero-length flag, a2 = odd-address flag */
static void do_reply(gex_Token_t t, gex_Rank_t src, int cat, int zero, int odd) {
  /* token-based limits equal the (tm, rank) ones for the same pair */
  CHECK(gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 3) ==
        gex_AM_MaxReplyMedium(T.tm, src, GEX_EVENT_NOW, 0, 3));
  CHECK(gex_Token_MaxReplyLong(t, GEX_EVENT_NOW, 0, 3) ==
        gex_AM_MaxReplyLong(T.tm, src, GEX_EVENT_NOW, 0, 3));
  CHECK(gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 16) >= 512);
  unsigned char pay[300];
  size_t len = zero ? 0 : 300;
  test_fill(pay, len, test_seed(T.rank, src, (uint64_t)cat, 3));
  int rc = -1;
  switch (cat) {
    case SHORT: rc = gex_AM_ReplyShort3(t, tab[NCAT + SHORT].gex_index, 0, cat, zero, odd); break;
    case MEDIUM:
      rc = gex_AM_ReplyMedium3(t, tab[NCAT + MEDIUM].gex_index, pay, len, GEX_EVENT_NOW, 0, cat,
                               zero, odd);
      break;
    case LONG:
      rc = gex_AM_ReplyLong3(t, tab[NCAT + LONG].gex_index, pay, len,
                             long_dest(src, T.rank, 0, zero, odd), GEX_EVENT_NOW, 0, cat, zero, odd);
      break;
  }
  CHECK(rc == 0);
}

static void check_payload(gex_Rank_t src, int cat_code, int is_req, void *buf, size_t nb,
                          int zero, int odd) {
  CHECK(nb == (zero ? 0u : 300u));
  if (cat_code == LONG) {
    void *want = long_dest(T.rank, src, is_req, zero, odd);
    CHECKF(buf == want, "Long %s dest %p, want %p (nbytes %zu)", is_req ? "Request" : "Reply",
           buf, want, nb);
  }
  if (nb) {
    long bad = test_verify(buf, nb, test_seed(src, T.rank, (uint64_t)cat_code, is_req ? 1 : 3));
    CHECKF(bad < 0, "payload byte %ld wrong", bad);
  }
}

static void req_short(gex_Token_t t, gex_AM_Arg_t rc, gex_AM_Arg_t z, gex_AM_Arg_t o) {
  gex_Rank_t src = check_token(t, SHORT, 1, 0);
  atomic_fetch_add(&n_req, 1);
  do_reply(t, src, rc, z, o);
}
static void req_medium(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t rc, gex_AM_Arg_t z,
                       gex_AM_Arg_t o) {
  gex_Rank_t src = check_token(t, MEDIUM, 1, 0);
  check_payload(src, MEDIUM, 1, b, nb, z, o);
  atomic_fetch_add(&n_req, 1);
  do_reply(t, src, rc, z, o);
}
static void req_long(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t rc, gex_AM_Arg_t z,
                     gex_AM_Arg_t o) {
  gex_Rank_t src = check_token(t, LONG, 1, 1);
  check_payload(src, LONG, 1, b, nb, z, o);
  atomic_fetch_add(&n_req, 1);
  do_reply(t, src, rc, z, o);
}
static void rep_short(gex_Token_t t, gex_AM_Arg_t c, gex_AM_Arg_t z, gex_AM_Arg_t o) {
  (void)z;
  (void)o;
  check_token(t, NCAT + SHORT, 0, 0);
  CHECK(c == SHORT);
  atomic_fetch_add(&n_rep, 1);
}
static void rep_medium(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t c, gex_AM_Arg_t z,
                       gex_AM_Arg_t o) {
  gex_Rank_t src = check_token(t, NCAT + MEDIUM, 0, 0);
  CHECK(c == MEDIUM);
  check_payload(src, MEDIUM, 0, b, nb, z, o);
  atomic_fetch_add(&n_rep, 1);
}
static void rep_long(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t c, gex_AM_Arg_t z,
                     gex_AM_Arg_t o) {
  gex_Rank_t src = check_token(t, NCAT + LONG, 0, 1);
  CHECK(c == LONG);
  check_payload(src, LONG, 0, b, nb, z, o);
  atomic_fetch_add(&n_rep, 1);
}

int main(int argc, char **argv) {
  gex_AM_Fn_t fns[2 * NCAT] = {(gex_AM_Fn_t)req_short, (gex_AM_Fn_t)req_medium,
                               (gex_AM_Fn_t)req_long,  (gex_AM_Fn_t)rep_short,
                               (gex_AM_Fn_t)rep_medium, (gex_AM_Fn_t)rep_long};
  gex_Flags_t cf[NCAT] = {GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM, GEX_FLAG_AM_LONG};
  for (int k = 0; k < 2 * NCAT; k++)
    tab[k] = (gex_AM_Entry_t){0, fns[k],
                              cf[k % NCAT] | (k < NCAT ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY),
                              3, &cdata_val[k], names[k]};
  test_init(&argc, &argv, "T_AM_TOKENINFO", 64 * REGION, tab, 2 * NCAT);
  const gex_Rank_t me = T.rank, n = T.size;
  CHECK(n <= 64);
  unsigned char pay[300];
  long sent = 0;
  int rounds = (int)test_iters(4, 1);
  for (int round = 0; round < rounds; round++)
    for (gex_Rank_t i = 0; i < n; i++) {
      gex_Rank_t p = (me + i) % n;
      for (int zero = 0; zero <= 1; zero++)
        for (int odd = 0; odd <= zero; odd++)
          for (int rq = 0; rq < NCAT; rq++)
            for (int rp = 0; rp < NCAT; rp++) {
              size_t len = zero ? 0 : 300;
              test_fill(pay, len, test_seed(me, p, (uint64_t)rq, 1));
              long before = atomic_load(&n_rep);
              int rc = -1;
              switch (rq) {
                case SHORT: rc = gex_AM_RequestShort3(T.tm, p, tab[SHORT].gex_index, 0, rp, zero, odd); break;
                case MEDIUM:
                  rc = gex_AM_RequestMedium3(T.tm, p, tab[MEDIUM].gex_index, pay, len,
                                             GEX_EVENT_NOW, 0, rp, zero, odd);
                  break;
                case LONG:
                  rc = gex_AM_RequestLong3(T.tm, p, tab[LONG].gex_index, pay, len,
                                           long_dest(p, me, 1, zero, odd), GEX_EVENT_NOW, 0, rp,
                                           zero, odd);
                  break;
              }
              CHECK(rc == 0);
              sent++;
              /* one at a time: the Long slots are reused */
              GASNET_BLOCKUNTIL(atomic_load(&n_rep) > before);
            }
    }
  CHECK(atomic_load(&n_rep) == sent);
  test_barrier();
  CHECKF(atomic_load(&n_req) == sent, "%ld Requests handled, %ld expected",
         atomic_load(&n_req), sent); /* everyone sends the same number to everyone */
  test_finish();
}

/* t_am_args.c -- AM Short, Medium and Long, Request and Reply, with every
 * argument count 0..16, through the numbered functions (gex_AM_RequestShort3)
 * and the count-inferring macros (gex_AM_RequestShort(tm, rank, h, flags,
 * a0, a1, a2)).  Every handler checks each argument value, the payload, the
 * Long destination address (also for nbytes == 0) and the token info, and
 * each Request handler sends a Reply of the same category and count.
 *
 * Phase 0 uses the numbered forms, phase 1 the macros; every rank sends one
 * Request of each (category, count) to every rank, self included.
 */
#include "am_forms_gen.h"
#include "test_util.h"

enum { CAT_SHORT, CAT_MEDIUM, CAT_LONG, NCAT };
static const char *cat_name[NCAT] = {"Short", "Medium", "Long"};
#define NM 17
#define SLOT 2048
#define AREA(n) ((size_t)(n) * NM * SLOT) /* one region of NM slots per peer */

static gex_AM_Index_t hidx[NCAT][2][NM]; /* [cat][is_req][M] */
static gex_AM_Fn_t hfn[NCAT][2][NM];
static volatile int phase;
static atomic_long got_req[NCAT][NM], got_rep[NCAT][NM];

static gex_AM_Arg_t arg_val(gex_Rank_t src, gex_Rank_t dst, int cat, int m, int is_req, int j) {
  switch (j % 4) { /* extremes and ordinary values */
    case 0: return (gex_AM_Arg_t)(uint32_t)test_seed(src, dst, (uint64_t)(cat * 100 + m), (uint64_t)(is_req * 32 + j));
    case 1: return INT32_MIN + (gex_AM_Arg_t)(src * 7 + (gex_Rank_t)j);
    case 2: return INT32_MAX - (gex_AM_Arg_t)(dst * 5 + (gex_Rank_t)m);
    default: return -1 - (gex_AM_Arg_t)(j + 16 * m + 512 * is_req);
  }
}

static size_t len_of(int m, int is_req) { return is_req ? (size_t)m * 97 : (size_t)m * 89 + 13; }

static uint64_t payload_seed(gex_Rank_t src, gex_Rank_t dst, int cat, int m, int is_req) {
  return test_seed(src, dst, (uint64_t)(cat * 100 + m), (uint64_t)is_req + 7);
}

/* where a Long lands: request area first, then reply area, in the receiver's segment */
static void *long_dest(gex_Rank_t owner, gex_Rank_t src, int m, int is_req) {
  size_t off = (is_req ? 0 : AREA(T.size)) + ((size_t)src * NM + (size_t)m) * SLOT;
  return T.peer_seg[owner] + off;
}

static void send_reply(gex_Token_t t, gex_Rank_t src, int cat, int m);

static void on_msg(gex_Token_t t, int cat, int is_req, int m, void *buf, size_t nbytes,
                   const gex_AM_Arg_t *args) {
  gex_Token_Info_t info;
  gex_TI_t ti = gex_Token_Info(t, &info, GEX_TI_ALL);
  CHECK((ti & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP));
  gex_Rank_t src = info.gex_srcrank;
  CHECK(src < T.size);
  CHECK(info.gex_ep == T.ep);
  if (ti & GEX_TI_IS_REQ) CHECK(!!info.gex_is_req == is_req);
  if (ti & GEX_TI_IS_LONG) CHECK(!!info.gex_is_long == (cat == CAT_LONG));
  if (ti & GEX_TI_ENTRY) {
    CHECK(info.gex_entry != NULL);
    CHECK(info.gex_entry->gex_nargs == (unsigned)m);
    CHECK(info.gex_entry->gex_index == hidx[cat][is_req][m]);
    CHECK(info.gex_entry->gex_fnptr == hfn[cat][is_req][m]);
  }
  for (int j = 0; j < m; j++)
    CHECKF(args[j] == arg_val(src, T.rank, cat, m, is_req, j),
           "%s %s with %d args from rank %u: arg %d is %d, want %d", cat_name[cat],
           is_req ? "Request" : "Reply", m, src, j, args[j], arg_val(src, T.rank, cat, m, is_req, j));
  if (cat != CAT_SHORT) {
    size_t want = len_of(m, is_req);
    CHECKF(nbytes == want, "%s %s nargs %d: nbytes %zu want %zu", cat_name[cat],
           is_req ? "Request" : "Reply", m, nbytes, want);
    if (cat == CAT_LONG)
      CHECKF(buf == long_dest(T.rank, src, m, is_req), "Long dest %p want %p", buf,
             long_dest(T.rank, src, m, is_req));
    if (nbytes) {
      CHECK(buf != NULL);
      long bad = test_verify(buf, nbytes, payload_seed(src, T.rank, cat, m, is_req));
      CHECKF(bad < 0, "%s %s nargs %d from %u: payload byte %ld wrong", cat_name[cat],
             is_req ? "Request" : "Reply", m, src, bad);
    }
  }
  if (is_req) {
    atomic_fetch_add(&got_req[cat][m], 1);
    send_reply(t, src, cat, m);
  } else {
    atomic_fetch_add(&got_rep[cat][m], 1);
  }
}

/* ---- the 102 handlers ---- */
#define DEF_HANDLERS(M)                                                                        \
  static void hs_req_##M(gex_Token_t t TP##M) {                                               \
    gex_AM_Arg_t v[] = {0 TV##M};                                                              \
    on_msg(t, CAT_SHORT, 1, M, NULL, 0, v + 1);                                                \
  }                                                                                            \
  static void hs_rep_##M(gex_Token_t t TP##M) {                                               \
    gex_AM_Arg_t v[] = {0 TV##M};                                                              \
    on_msg(t, CAT_SHORT, 0, M, NULL, 0, v + 1);                                                \
  }                                                                                            \
  static void hm_req_##M(gex_Token_t t, void *b, size_t nb TP##M) {                           \
    gex_AM_Arg_t v[] = {0 TV##M};                                                              \
    on_msg(t, CAT_MEDIUM, 1, M, b, nb, v + 1);                                                 \
  }                                                                                            \
  static void hm_rep_##M(gex_Token_t t, void *b, size_t nb TP##M) {                           \
    gex_AM_Arg_t v[] = {0 TV##M};                                                              \
    on_msg(t, CAT_MEDIUM, 0, M, b, nb, v + 1);                                                 \
  }                                                                                            \
  static void hl_req_##M(gex_Token_t t, void *b, size_t nb TP##M) {                           \
    gex_AM_Arg_t v[] = {0 TV##M};                                                              \
    on_msg(t, CAT_LONG, 1, M, b, nb, v + 1);                                                   \
  }                                                                                            \
  static void hl_rep_##M(gex_Token_t t, void *b, size_t nb TP##M) {                           \
    gex_AM_Arg_t v[] = {0 TV##M};                                                              \
    on_msg(t, CAT_LONG, 0, M, b, nb, v + 1);                                                   \
  }
FOR_EACH_NARGS(DEF_HANDLERS)

static void fill_table(gex_AM_Entry_t *tab) {
  int k = 0;
#define ENTRY(cat, rr, M, fn, fl)                                                         \
  hfn[cat][rr][M] = (gex_AM_Fn_t)fn;                                                       \
  tab[k++] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)fn,                                          \
                              fl | (rr ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY), M, NULL, \
                              #fn};
#define ENTRIES(M)                                                   \
  ENTRY(CAT_SHORT, 1, M, hs_req_##M, GEX_FLAG_AM_SHORT)             \
  ENTRY(CAT_SHORT, 0, M, hs_rep_##M, GEX_FLAG_AM_SHORT)             \
  ENTRY(CAT_MEDIUM, 1, M, hm_req_##M, GEX_FLAG_AM_MEDIUM)           \
  ENTRY(CAT_MEDIUM, 0, M, hm_rep_##M, GEX_FLAG_AM_MEDIUM)           \
  ENTRY(CAT_LONG, 1, M, hl_req_##M, GEX_FLAG_AM_LONG)               \
  ENTRY(CAT_LONG, 0, M, hl_rep_##M, GEX_FLAG_AM_LONG)
  FOR_EACH_NARGS(ENTRIES)
#undef ENTRIES
#undef ENTRY
}

static void read_indices(const gex_AM_Entry_t *tab) {
  int k = 0;
  for (int m = 0; m < NM; m++)
    for (int cat = 0; cat < NCAT; cat++)
      for (int rr = 1; rr >= 0; rr--) {
        CHECK(tab[k].gex_fnptr == hfn[cat][rr][m]);
        hidx[cat][rr][m] = tab[k].gex_index;
        k++;
      }
}

/* ---- sending ---- */
static void fill_args(gex_AM_Arg_t *A, gex_Rank_t src, gex_Rank_t dst, int cat, int m, int is_req) {
  for (int j = 0; j < 16; j++) A[j] = j < m ? arg_val(src, dst, cat, m, is_req, j) : 0;
}

static void send_request(gex_Rank_t p, int cat, int m, int use_macro, unsigned char *buf) {
  gex_AM_Arg_t A[16];
  fill_args(A, T.rank, p, cat, m, 1);
  gex_AM_Index_t h = hidx[cat][1][m];
  size_t len = len_of(m, 1);
  if (cat != CAT_SHORT) test_fill(buf, len, payload_seed(T.rank, p, cat, m, 1));
  void *dest = long_dest(p, T.rank, m, 1);
  int rc = -1;
#define NUM_CASE(M)                                                                          \
  case M:                                                                                     \
    if (cat == CAT_SHORT) rc = gex_AM_RequestShort##M(T.tm, p, h, 0 TA##M);                 \
    else if (cat == CAT_MEDIUM)                                                              \
      rc = gex_AM_RequestMedium##M(T.tm, p, h, buf, len, GEX_EVENT_NOW, 0 TA##M);            \
    else rc = gex_AM_RequestLong##M(T.tm, p, h, buf, len, dest, GEX_EVENT_NOW, 0 TA##M);    \
    break;
#define MACRO_CASE(M)                                                                        \
  case M:                                                                                     \
    if (cat == CAT_SHORT) rc = gex_AM_RequestShort(T.tm, p, h, 0 TA##M);                    \
    else if (cat == CAT_MEDIUM)                                                              \
      rc = gex_AM_RequestMedium(T.tm, p, h, buf, len, GEX_EVENT_NOW, 0 TA##M);               \
    else rc = gex_AM_RequestLong(T.tm, p, h, buf, len, dest, GEX_EVENT_NOW, 0 TA##M);       \
    break;
  if (!use_macro) {
    switch (m) { FOR_EACH_NARGS(NUM_CASE) }
  } else {
    switch (m) { FOR_EACH_NARGS(MACRO_CASE) }
  }
#undef NUM_CASE
#undef MACRO_CASE
  CHECKF(rc == 0, "Request %s nargs %d returned %d", cat_name[cat], m, rc);
}

static void send_reply(gex_Token_t t, gex_Rank_t src, int cat, int m) {
  gex_AM_Arg_t A[16];
  fill_args(A, T.rank, src, cat, m, 0);
  gex_AM_Index_t h = hidx[cat][0][m];
  size_t len = len_of(m, 0);
  unsigned char buf[16 * 89 + 13 + 8];
  if (cat != CAT_SHORT) test_fill(buf, len, payload_seed(T.rank, src, cat, m, 0));
  void *dest = long_dest(src, T.rank, m, 0);
  int rc = -1;
#define NUM_CASE(M)                                                                     \
  case M:                                                                                \
    if (cat == CAT_SHORT) rc = gex_AM_ReplyShort##M(t, h, 0 TA##M);                     \
    else if (cat == CAT_MEDIUM) rc = gex_AM_ReplyMedium##M(t, h, buf, len, GEX_EVENT_NOW, 0 TA##M); \
    else rc = gex_AM_ReplyLong##M(t, h, buf, len, dest, GEX_EVENT_NOW, 0 TA##M);       \
    break;
#define MACRO_CASE(M)                                                                   \
  case M:                                                                                \
    if (cat == CAT_SHORT) rc = gex_AM_ReplyShort(t, h, 0 TA##M);                        \
    else if (cat == CAT_MEDIUM) rc = gex_AM_ReplyMedium(t, h, buf, len, GEX_EVENT_NOW, 0 TA##M); \
    else rc = gex_AM_ReplyLong(t, h, buf, len, dest, GEX_EVENT_NOW, 0 TA##M);          \
    break;
  if (phase == 0) {
    switch (m) { FOR_EACH_NARGS(NUM_CASE) }
  } else {
    switch (m) { FOR_EACH_NARGS(MACRO_CASE) }
  }
#undef NUM_CASE
#undef MACRO_CASE
  CHECKF(rc == 0, "Reply %s nargs %d returned %d", cat_name[cat], m, rc);
}

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return 2 * AREA(n);
}

int main(int argc, char **argv) {
  static gex_AM_Entry_t tab[NCAT * 2 * NM];
  fill_table(tab);
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_AM_ARGS", 0, tab, NCAT * 2 * NM);
  read_indices(tab);
  CHECK(gex_AM_MaxArgs() >= 16);
  const gex_Rank_t me = T.rank, n = T.size;
  unsigned char *buf = malloc(SLOT);
  CHECK(buf);

  long expect = 0;
  for (int ph = 0; ph < 2; ph++) {
    test_barrier();
    phase = ph;
    test_barrier(); /* nobody sends phase ph before every rank is in it */
    for (gex_Rank_t i = 0; i < n; i++) {
      gex_Rank_t p = (me + i) % n;
      for (int m = 0; m < NM; m++)
        for (int cat = 0; cat < NCAT; cat++) send_request(p, cat, m, ph, buf);
    }
    expect += n;
    /* every Request is answered: wait for all Replies */
    for (int m = 0; m < NM; m++)
      for (int cat = 0; cat < NCAT; cat++)
        GASNET_BLOCKUNTIL(atomic_load(&got_rep[cat][m]) >= expect);
  }
  test_barrier();
  for (int m = 0; m < NM; m++)
    for (int cat = 0; cat < NCAT; cat++) {
      CHECKF(atomic_load(&got_req[cat][m]) == expect, "%s nargs %d: %ld Requests, want %ld",
             cat_name[cat], m, atomic_load(&got_req[cat][m]), expect);
      CHECKF(atomic_load(&got_rep[cat][m]) == expect, "%s nargs %d: %ld Replies, want %ld",
             cat_name[cat], m, atomic_load(&got_rep[cat][m]), expect);
    }
  free(buf);
  test_finish();
}

/* t_am_register.c -- gex_EP_RegisterHandlers: fixed indices are honoured,
 * entries with index 0 get the highest index still free, in table order,
 * after the fixed entries of the same call, across several calls; only the
 * gex_index of zero entries is modified; GEX_AM_INDEX_BASE and 255 are
 * usable; handlers registered as MEDLONG / REQREP run as every category
 * they were registered for.  Every index is exercised by AMs from every
 * rank, and the right function must run.
 */
#include "test_util.h"

#define NH 10
static atomic_long hits[NH];
static gex_AM_Index_t idx_of[NH];

static void hit(gex_Token_t t, int id) {
  gex_Token_Info_t info;
  gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
  if (got & GEX_TI_ENTRY) CHECKF(info.gex_entry->gex_index == idx_of[id], "handler %d ran for index %u",
                                 id, info.gex_entry->gex_index);
  atomic_fetch_add(&hits[id], 1);
}

#define SHORT_H(id) \
  static void h##id(gex_Token_t t, gex_AM_Arg_t a) { CHECK(a == id); hit(t, id); }
SHORT_H(0) SHORT_H(1) SHORT_H(2) SHORT_H(3) SHORT_H(4) SHORT_H(5) SHORT_H(6) SHORT_H(7)

/* id 8: MEDLONG + REQREP; id 9: its Reply counterpart is itself */
static atomic_long medlong_req, medlong_rep;
static void h8(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t a) {
  gex_Token_Info_t info;
  gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
  CHECK(got & GEX_TI_IS_REQ);
  CHECK(nb == 8);
  uint64_t v;
  memcpy(&v, buf, 8);
  CHECK(v == test_seed(info.gex_srcrank, T.rank, (uint64_t)a, 8));
  if (got & GEX_TI_ENTRY) CHECK(info.gex_entry->gex_index == idx_of[8]);
  if (info.gex_is_req) {
    atomic_fetch_add(&medlong_req, 1);
    uint64_t w = test_seed(T.rank, info.gex_srcrank, (uint64_t)a + 1, 8);
    /* reply with the same handler, as the other category */
    int rc;
    if (info.gex_is_long)
      rc = gex_AM_ReplyMedium1(t, idx_of[8], &w, 8, GEX_EVENT_NOW, 0, a + 1);
    else
      rc = gex_AM_ReplyLong1(t, idx_of[8], &w, 8, T.peer_seg[info.gex_srcrank] + 64 * T.rank,
                             GEX_EVENT_NOW, 0, a + 1);
    CHECK(rc == 0);
  } else {
    atomic_fetch_add(&medlong_rep, 1);
  }
}
static void h9(gex_Token_t t) {
  gex_Token_Info_t info;
  gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
  if (got & GEX_TI_ENTRY) CHECK(info.gex_entry->gex_index == idx_of[9]);
  atomic_fetch_add(&hits[9], 1);
  if (got & GEX_TI_IS_REQ && info.gex_is_req) CHECK(gex_AM_ReplyShort0(t, idx_of[9], 0) == 0);
}

#define SF (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST)

int main(int argc, char **argv) {
  static char cd[NH];
  gex_AM_Entry_t call1[] = {
      {250, (gex_AM_Fn_t)h0, SF, 1, &cd[0], "h0"},
      {0, (gex_AM_Fn_t)h1, SF, 1, &cd[1], "h1"},
      {0, (gex_AM_Fn_t)h2, SF, 1, &cd[2], "h2"},
      {200, (gex_AM_Fn_t)h3, SF, 1, &cd[3], "h3"},
      {0, (gex_AM_Fn_t)h4, SF, 1, &cd[4], "h4"},
  };
  gex_AM_Entry_t copy1[5];
  memcpy(copy1, call1, sizeof call1);
  gex_AM_Entry_t call2[] = {
      {0, (gex_AM_Fn_t)h5, SF, 1, &cd[5], "h5"},
      {252, (gex_AM_Fn_t)h6, SF, 1, &cd[6], "h6"},
      {0, (gex_AM_Fn_t)h8, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQREP, 1, &cd[8], "h8"},
  };
  gex_AM_Entry_t call3[] = {
      {GEX_AM_INDEX_BASE, (gex_AM_Fn_t)h7, SF, 1, &cd[7], "h7"},
      {0, (gex_AM_Fn_t)h9, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQREP, 0, &cd[9], "h9"},
  };

  test_init(&argc, &argv, "T_AM_REGISTER", 4096, call1, 5);
  /* call 1: fixed 250 and 200 first; zeros get 255, 254, 253 in table order */
  CHECK(call1[0].gex_index == 250);
  CHECK(call1[1].gex_index == 255);
  CHECK(call1[2].gex_index == 254);
  CHECK(call1[3].gex_index == 200);
  CHECK(call1[4].gex_index == 253);
  for (int i = 0; i < 5; i++) { /* nothing but zero gex_index fields changed */
    CHECK(call1[i].gex_fnptr == copy1[i].gex_fnptr);
    CHECK(call1[i].gex_flags == copy1[i].gex_flags);
    CHECK(call1[i].gex_nargs == copy1[i].gex_nargs);
    CHECK(call1[i].gex_cdata == copy1[i].gex_cdata);
    CHECK(call1[i].gex_name == copy1[i].gex_name);
  }
  /* call 2: fixed 252 first, then 251 (highest free) and 249 (250 is taken) */
  CHECK(gex_EP_RegisterHandlers(T.ep, call2, 3) == GASNET_OK);
  CHECK(call2[1].gex_index == 252);
  CHECK(call2[0].gex_index == 251);
  CHECK(call2[2].gex_index == 249);
  /* call 3: the lowest legal fixed index, and the next free one from the top */
  CHECK(gex_EP_RegisterHandlers(T.ep, call3, 2) == GASNET_OK);
  CHECK(call3[0].gex_index == GEX_AM_INDEX_BASE);
  CHECK(call3[1].gex_index == 248);

  idx_of[0] = call1[0].gex_index;
  idx_of[1] = call1[1].gex_index;
  idx_of[2] = call1[2].gex_index;
  idx_of[3] = call1[3].gex_index;
  idx_of[4] = call1[4].gex_index;
  idx_of[5] = call2[0].gex_index;
  idx_of[6] = call2[1].gex_index;
  idx_of[8] = call2[2].gex_index;
  idx_of[7] = call3[0].gex_index;
  idx_of[9] = call3[1].gex_index;
  test_barrier(); /* every rank has registered calls 2 and 3 */

  const gex_Rank_t me = T.rank, n = T.size;
  for (gex_Rank_t i = 0; i < n; i++) {
    gex_Rank_t p = (me + i) % n;
    for (int id = 0; id < 8; id++)
      CHECK(gex_AM_RequestShort1(T.tm, p, idx_of[id], 0, (gex_AM_Arg_t)id) == 0);
    CHECK(gex_AM_RequestShort0(T.tm, p, idx_of[9], 0) == 0);
    uint64_t v = test_seed(me, p, 10, 8);
    CHECK(gex_AM_RequestMedium1(T.tm, p, idx_of[8], &v, 8, GEX_EVENT_NOW, 0, 10) == 0);
    v = test_seed(me, p, 20, 8);
    CHECK(gex_AM_RequestLong1(T.tm, p, idx_of[8], &v, 8, T.peer_seg[p] + 64 * me + 2048,
                              GEX_EVENT_NOW, 0, 20) == 0);
  }
  /* h9 counts its Requests and its Replies: 2 per peer */
  GASNET_BLOCKUNTIL(atomic_load(&medlong_rep) == 2 * (long)n && atomic_load(&hits[9]) >= 2 * (long)n);
  test_barrier();
  for (int id = 0; id < 8; id++)
    CHECKF(atomic_load(&hits[id]) == (long)n, "handler %d ran %ld times, want %u", id,
           atomic_load(&hits[id]), n);
  CHECK(atomic_load(&hits[9]) == 2 * (long)n);
  CHECK(atomic_load(&medlong_req) == 2 * (long)n);
  test_finish();
}

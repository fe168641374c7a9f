/* t_am_long.c -- Long payload integrity: every size from 0 to MaxMedium
 * (the Medium limit, where Long has no reason to behave differently, but
 * implementations often switch strategy), the boundaries around it, and a
 * sample up to gex_AM_MaxRequestLong / gex_AM_MaxReplyLong, both as
 * Requests and as Replies.  The handler checks dest_addr (also for
 * nbytes == 0), nbytes and every byte.  Each rank sends to its successor
 * (itself when alone), with at most NSLOT Requests in flight; a slot of the
 * target segment is reused only after the Reply for its previous use arrived.
 */
#include "test_util.h"

#define NSLOT 16
static size_t max_med, max_req_long, max_rep_long, slot_sz, big_sz;
static unsigned char *rep_src;
static unsigned char *seen;
static size_t nsteps;
static size_t *step_len; /* Request length of each step */
static atomic_long replies;

/* segment: [req slots][rep slots][big req][big rep] */
static size_t off_req_slot(size_t i) { return i * slot_sz; }
static size_t off_rep_slot(size_t i) { return NSLOT * slot_sz + i * slot_sz; }
static size_t off_big_req(void) { return 2 * NSLOT * slot_sz; }
static size_t off_big_rep(void) { return 2 * NSLOT * slot_sz + big_sz; }

static int is_big(size_t step) { return step_len[step] > max_med; }
static size_t rep_len(size_t step) {
  return step_len[step] < max_rep_long ? step_len[step] : max_rep_long;
}
static size_t req_off(size_t step) { return is_big(step) ? off_big_req() + 3 : off_req_slot(step % NSLOT) + step % 8; }
static size_t rep_off(size_t step) { return is_big(step) ? off_big_rep() + 5 : off_rep_slot(step % NSLOT) + (step * 3) % 8; }

static const gex_AM_Index_t H_REQ = GEX_AM_INDEX_BASE + 36, H_REP = GEX_AM_INDEX_BASE + 37;

static void h_req(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a_step, gex_AM_Arg_t a_len) {
  size_t step = (size_t)(uint32_t)a_step;
  gex_Token_Info_t info;
  CHECK((gex_Token_Info(t, &info, GEX_TI_ALL) & (GEX_TI_SRCRANK | GEX_TI_IS_LONG)) ==
        (GEX_TI_SRCRANK | GEX_TI_IS_LONG));
  CHECK(info.gex_is_long);
  gex_Rank_t src = info.gex_srcrank;
  CHECK(step < nsteps);
  CHECKF(nbytes == step_len[step] && nbytes == (size_t)(uint32_t)a_len,
         "Long Request step %zu: nbytes %zu, sent %zu", step, nbytes, step_len[step]);
  CHECKF(buf == T.seg_base + req_off(step), "Long Request step %zu (%zu bytes): dest %p want %p",
         step, nbytes, buf, (void *)(T.seg_base + req_off(step)));
  long bad = test_verify(buf, nbytes, test_seed(src, step, 1, 0));
  CHECKF(bad < 0, "Long Request of %zu bytes from rank %u: byte %ld wrong", nbytes, src, bad);
  size_t rl = rep_len(step);
  CHECK(rl <= gex_Token_MaxReplyLong(t, GEX_EVENT_NOW, 0, 2));
  test_fill(rep_src, rl, test_seed(T.rank, step, 2, 0));
  void *dest = T.peer_seg[src] + rep_off(step);
  CHECK(gex_AM_ReplyLong2(t, H_REP, rep_src, rl, dest, GEX_EVENT_NOW, 0, a_step,
                          (gex_AM_Arg_t)rl) == 0);
}

static void h_rep(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a_step, gex_AM_Arg_t a_len) {
  size_t step = (size_t)(uint32_t)a_step;
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_ALL) & GEX_TI_SRCRANK);
  CHECK(step < nsteps);
  CHECKF(nbytes == rep_len(step) && nbytes == (size_t)(uint32_t)a_len,
         "Long Reply step %zu: nbytes %zu", step, nbytes);
  CHECKF(buf == T.seg_base + rep_off(step), "Long Reply step %zu (%zu bytes): dest %p want %p",
         step, nbytes, buf, (void *)(T.seg_base + rep_off(step)));
  long bad = test_verify(buf, nbytes, test_seed(info.gex_srcrank, step, 2, 0));
  CHECKF(bad < 0, "Long Reply of %zu bytes from rank %u: byte %ld wrong", nbytes,
         info.gex_srcrank, bad);
  CHECKF(seen[step] == 0, "Reply for step %zu delivered twice", step);
  seen[step] = 1;
  atomic_fetch_add(&replies, 1);
}

static void plan_steps(void) {
  int reduced = test_reduced();
  step_len = malloc((max_med + 64) * sizeof *step_len);
  CHECK(step_len);
  nsteps = 0;
  for (size_t s = 0; s <= max_med; s++) {
    if (reduced && s > 1100 && s + 200 < max_med && s % 61 != 0) continue;
    step_len[nsteps++] = s;
  }
  size_t big[] = {max_med + 1,      max_med + 2,      65536 + 3,        (size_t)1 << 20,
                  max_rep_long - 1, max_rep_long,     max_req_long - 1, max_req_long};
  for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) step_len[nsteps++] = big[i];
}

/* Called by test_init after gex_Client_Init and before gex_Segment_Attach:
 * the limits can be queried already, and size the segment. */
static uintptr_t segsz(gex_Rank_t me, gex_Rank_t n) {
  gex_Rank_t peer = (me + 1) % n, pred = (me + n - 1) % n;
  max_med = gex_AM_MaxRequestMedium(T.tm, peer, GEX_EVENT_NOW, 0, 2);
  max_req_long = gex_AM_MaxRequestLong(T.tm, peer, GEX_EVENT_NOW, 0, 2);
  max_rep_long = gex_AM_MaxReplyLong(T.tm, pred, GEX_EVENT_NOW, 0, 2);
  slot_sz = max_med + 64;
  big_sz = (max_req_long > max_rep_long ? max_req_long : max_rep_long) + 64;
  return 2 * NSLOT * slot_sz + 2 * big_sz;
}

int main(int argc, char **argv) {
  gex_AM_Entry_t tab[] = {
      {H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "req"},
      {H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, NULL, "rep"},
  };
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_AM_LONG", 0, tab, 2);
  const gex_Rank_t me = T.rank, n = T.size;
  gex_Rank_t peer = (me + 1) % n, pred = (me + n - 1) % n;
  /* limits are symmetric; the sizes planned by my predecessor for me hold too */
  CHECK(max_req_long == gex_AM_MaxRequestLong(T.tm, pred, GEX_EVENT_NOW, 0, 2));
  CHECK(max_rep_long == gex_AM_MaxReplyLong(T.tm, peer, GEX_EVENT_NOW, 0, 2));
  CHECK(max_med == gex_AM_MaxRequestMedium(T.tm, pred, GEX_EVENT_NOW, 0, 2));
  CHECK(max_req_long >= 512 && max_rep_long >= 512);
  test_log0("MaxMedium %zu, MaxRequestLong %zu, MaxReplyLong %zu", max_med, max_req_long,
            max_rep_long);
  plan_steps();
  seen = calloc(nsteps, 1);
  rep_src = malloc(big_sz);
  unsigned char *src = malloc(big_sz);
  CHECK(seen && rep_src && src);
  test_barrier(); /* every rank's plan is ready before any Request arrives */

  long sent = 0;
  for (size_t step = 0; step < nsteps; step++) {
    if (is_big(step)) {
      GASNET_BLOCKUNTIL(atomic_load(&replies) == sent); /* one big one at a time */
    } else if (step >= NSLOT) {
      GASNET_BLOCKUNTIL(seen[step - NSLOT]); /* slot free again */
    }
    size_t len = step_len[step];
    unsigned char *s = src + step % 8;
    test_fill(s, len, test_seed(me, step, 1, 0));
    void *dest = T.peer_seg[peer] + req_off(step);
    CHECK(gex_AM_RequestLong2(T.tm, peer, H_REQ, s, len, dest, GEX_EVENT_NOW, 0,
                              (gex_AM_Arg_t)step, (gex_AM_Arg_t)len) == 0);
    sent++;
  }
  GASNET_BLOCKUNTIL(atomic_load(&replies) == sent);
  for (size_t step = 0; step < nsteps; step++) CHECK(seen[step] == 1);
  test_log0("%zu Long sizes ok", nsteps);
  free(src);
  test_finish();
}

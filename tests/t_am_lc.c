/* t_am_lc.c -- local completion of AM payloads.  Once an AM's payload is
 * locally complete its source buffer may be overwritten at once; the handler
 * must still see the original bytes.  Requests: lc_opt = pointer to an event
 * (Wait, or Test loop), GEX_EVENT_GROUP with gex_NBI_Wait/Test(GEX_EC_AM),
 * GEX_EVENT_NOW; Medium and Long.  Replies: lc_opt = pointer to an event set
 * in the handler and waited later outside handler context, and NOW.
 */
#include "test_util.h"

#define K 4                      /* messages per GROUP batch */
static size_t long_len = (size_t)1 << 20; /* 256 KiB at reduced scale */
#define NREPSLOT 16 /* >= ranks: each requester has one Reply outstanding */

static const gex_AM_Index_t H_MED = GEX_AM_INDEX_BASE + 16, H_LONG = GEX_AM_INDEX_BASE + 17,
                             H_ACK = GEX_AM_INDEX_BASE + 18, H_REP_MED = GEX_AM_INDEX_BASE + 19,
                             H_REP_LONG = GEX_AM_INDEX_BASE + 20;
static size_t medlen;
static atomic_long acks, rep_seen;

/* Reply source buffers whose local completion is waited outside the handler */
static unsigned char *rep_buf[NREPSLOT];
static size_t rep_len[NREPSLOT];
static gex_Event_t rep_ev[NREPSLOT];
static int rep_pending[NREPSLOT];

/* segment: per source rank: K Long slots, then a Long reply slot */
static size_t region(void) { return (K + 1) * (long_len + 64); }
static unsigned char *long_slot(gex_Rank_t owner, gex_Rank_t src, int k) {
  return T.peer_seg[owner] + (size_t)src * region() + (size_t)k * (long_len + 64);
}

/* args: key, reply mode (0 ack, 1 Medium reply with lc event, 2 Long reply
 * with lc event, 3 Medium reply NOW), reply slot */
static void on_req(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t key, gex_AM_Arg_t mode,
                   gex_AM_Arg_t slot, int is_long) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  gex_Rank_t src = info.gex_srcrank;
  CHECK(nb == (is_long ? long_len : medlen));
  long bad = test_verify(buf, nb, test_seed(src, T.rank, (uint64_t)key, 1));
  CHECKF(bad < 0, "%s key %d from rank %u: byte %ld wrong (buffer reused before local completion?)",
         is_long ? "Long" : "Medium", key, src, bad);
  if (mode == 0) {
    CHECK(gex_AM_ReplyShort1(t, H_ACK, 0, key) == 0);
    return;
  }
  (void)slot;
  int slot_i = -1; /* a free source buffer; retired outside handler context */
  for (int s = 0; s < NREPSLOT && slot_i < 0; s++)
    if (!rep_pending[s]) slot_i = s;
  CHECK(slot_i >= 0);
  slot = slot_i;
  size_t len = mode == 2 ? long_len : medlen;
  test_fill(rep_buf[slot], len, test_seed(T.rank, src, (uint64_t)key, 2));
  rep_len[slot] = len;
  int rc;
  if (mode == 1) {
    rc = gex_AM_ReplyMedium2(t, H_REP_MED, rep_buf[slot], len, &rep_ev[slot], 0, key, slot);
    rep_pending[slot] = 1; /* waited (then clobbered) outside handler context */
  } else if (mode == 2) {
    rc = gex_AM_ReplyLong2(t, H_REP_LONG, rep_buf[slot], len, long_slot(src, T.rank, K), &rep_ev[slot],
                           0, key, slot);
    rep_pending[slot] = 1;
  } else {
    rc = gex_AM_ReplyMedium2(t, H_REP_MED, rep_buf[slot], len, GEX_EVENT_NOW, 0, key, slot);
    memset(rep_buf[slot], 0xEE, len);
  }
  CHECK(rc == 0);
}
static void h_med(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t k, gex_AM_Arg_t m, gex_AM_Arg_t s) {
  on_req(t, b, nb, k, m, s, 0);
}
static void h_long(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t k, gex_AM_Arg_t m, gex_AM_Arg_t s) {
  on_req(t, b, nb, k, m, s, 1);
}
static void h_ack(gex_Token_t t, gex_AM_Arg_t k) {
  (void)t;
  (void)k;
  atomic_fetch_add(&acks, 1);
}
static void on_rep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t key, int is_long) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  CHECK(nb == (is_long ? long_len : medlen));
  if (is_long) CHECK(buf == long_slot(T.rank, info.gex_srcrank, K));
  long bad = test_verify(buf, nb, test_seed(info.gex_srcrank, T.rank, (uint64_t)key, 2));
  CHECKF(bad < 0, "%s Reply key %d: byte %ld wrong (buffer reused before local completion?)",
         is_long ? "Long" : "Medium", key, bad);
  atomic_fetch_add(&rep_seen, 1);
}
static void h_rep_med(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t k, gex_AM_Arg_t s) {
  (void)s;
  on_rep(t, b, nb, k, 0);
}
static void h_rep_long(gex_Token_t t, void *b, size_t nb, gex_AM_Arg_t k, gex_AM_Arg_t s) {
  (void)s;
  on_rep(t, b, nb, k, 1);
}

/* Outside handler context: wait for the Replies' local completion, then
 * overwrite their buffers. */
static void retire_replies(void);
#define WAIT_UNTIL(cond)  \
  do {                    \
    while (!(cond)) {     \
      gasnet_AMPoll();    \
      retire_replies();   \
    }                     \
  } while (0)
static void retire_replies(void) {
  for (int s = 0; s < NREPSLOT; s++)
    if (rep_pending[s]) {
      CHECK(rep_ev[s] != GEX_EVENT_NO_OP);
      gex_Event_Wait(rep_ev[s]);
      memset(rep_buf[s], 0xEE, rep_len[s]);
      rep_pending[s] = 0;
    }
}

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return (uintptr_t)n * region();
}

int main(int argc, char **argv) {
  gex_AM_Entry_t tab[] = {
      {H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 3, NULL, "med"},
      {H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 3, NULL, "long"},
      {H_ACK, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "ack"},
      {H_REP_MED, (gex_AM_Fn_t)h_rep_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2, NULL, "rm"},
      {H_REP_LONG, (gex_AM_Fn_t)h_rep_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, NULL, "rl"},
  };
  if (test_scale_pct() < 100) long_len = (size_t)256 << 10;
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_AM_LC", 0, tab, 5);
  const gex_Rank_t me = T.rank, n = T.size;
  CHECK(n <= NREPSLOT);
  gex_Event_t dummy;
  medlen = gex_AM_LUBRequestMedium();
  CHECK(medlen <= gex_AM_MaxRequestMedium(T.tm, GEX_RANK_INVALID, &dummy, 0, 3));
  CHECK(medlen <= gex_AM_MaxReplyMedium(T.tm, GEX_RANK_INVALID, &dummy, 0, 2));
  CHECK(long_len <= gex_AM_MaxRequestLong(T.tm, GEX_RANK_INVALID, &dummy, 0, 3));
  CHECK(long_len <= gex_AM_MaxReplyLong(T.tm, GEX_RANK_INVALID, &dummy, 0, 2));
  for (int s = 0; s < NREPSLOT; s++) {
    rep_buf[s] = malloc(long_len);
    CHECK(rep_buf[s]);
  }
  test_barrier(); /* handlers use medlen and rep_buf: set everywhere before any Request */
  unsigned char *buf[K];
  for (int k = 0; k < K; k++) {
    buf[k] = malloc(long_len + 8);
    CHECK(buf[k]);
  }

  int key = 0;
  int rounds = (int)test_iters(4, 1);
  for (int round = 0; round < rounds; round++)
    for (gex_Rank_t i = 0; i < n; i++) {
      gex_Rank_t p = (me + i) % n;
      for (int is_long = 0; is_long <= 1; is_long++) {
        size_t len = is_long ? long_len : medlen;
        gex_AM_Index_t h = is_long ? H_LONG : H_MED;
#define SEND(k, lc, mode, slot)                                                                   \
  (is_long ? gex_AM_RequestLong3(T.tm, p, h, buf[k], len, long_slot(p, me, k), lc, 0, key, mode, \
                                 slot)                                                           \
           : gex_AM_RequestMedium3(T.tm, p, h, buf[k], len, lc, 0, key, mode, slot))
        /* lc = &ev, Wait */
        {
          long a0 = atomic_load(&acks);
          test_fill(buf[0], len, test_seed(me, p, (uint64_t)key, 1));
          gex_Event_t ev = GEX_EVENT_NO_OP;
          CHECK(SEND(0, &ev, 0, 0) == 0);
          CHECK(ev != GEX_EVENT_NO_OP);
          gex_Event_Wait(ev);
          memset(buf[0], 0xEE, len);
          key++;
          WAIT_UNTIL(atomic_load(&acks) > a0);
        }
        /* lc = &ev, Test loop */
        {
          long a0 = atomic_load(&acks);
          test_fill(buf[0], len, test_seed(me, p, (uint64_t)key, 1));
          gex_Event_t ev = GEX_EVENT_NO_OP;
          CHECK(SEND(0, &ev, 0, 0) == 0);
          while (gex_Event_Test(ev) != 0) gasnet_AMPoll();
          memset(buf[0], 0xEE, len);
          key++;
          WAIT_UNTIL(atomic_load(&acks) > a0);
        }
        /* GROUP batch, gex_NBI_Wait(GEX_EC_AM) (odd rounds: Test loop) */
        {
          long a0 = atomic_load(&acks);
          for (int k = 0; k < K; k++) {
            test_fill(buf[k], len, test_seed(me, p, (uint64_t)key, 1));
            CHECK(SEND(k, GEX_EVENT_GROUP, 0, 0) == 0);
            key++;
          }
          if (round % 2) {
            while (gex_NBI_Test(GEX_EC_AM, 0) != 0) gasnet_AMPoll();
          } else {
            gex_NBI_Wait(GEX_EC_AM, 0);
          }
          for (int k = 0; k < K; k++) memset(buf[k], 0xEE, len);
          WAIT_UNTIL(atomic_load(&acks) >= a0 + K);
        }
        /* NOW */
        {
          long a0 = atomic_load(&acks);
          test_fill(buf[0], len, test_seed(me, p, (uint64_t)key, 1));
          CHECK(SEND(0, GEX_EVENT_NOW, 0, 0) == 0);
          memset(buf[0], 0xEE, len);
          key++;
          WAIT_UNTIL(atomic_load(&acks) > a0);
        }
        /* Replies with local completion events (modes 1, 2) and NOW (3) */
        for (int mode = 1; mode <= 3; mode++) {
          long r0 = atomic_load(&rep_seen);
          test_fill(buf[0], len, test_seed(me, p, (uint64_t)key, 1));
          CHECK(SEND(0, GEX_EVENT_NOW, mode, 0) == 0);
          key++;
          WAIT_UNTIL(atomic_load(&rep_seen) > r0);
          retire_replies();
        }
#undef SEND
      }
      /* my Requests are done; Replies I owe others are retired as they come */
      retire_replies();
    }
  /* Replies owed to others may still be pending until everyone is done */
  gex_Event_t b = gex_Coll_BarrierNB(T.tm, 0);
  while (gex_Event_Test(b) != 0) {
    gasnet_AMPoll();
    retire_replies();
  }
  retire_replies();
  test_finish();
}

/* misuse_prog.c -- programs that misuse libgex on purpose; run by misuse.sh.
 *
 * usage: misuse_prog <mode>
 * One rank commits the misuse; the others wait in a barrier that can only
 * end when the job is ended.  Before the misuse the program prints
 *   EXPECT <extended regex>
 * lines that the libgex diagnostic must match (they name the call and the
 * offending value, which is only known at run time for addresses and
 * limits).  If the misuse is not detected the program says so and ends the
 * job with status 0, which misuse.sh reports as a failure.
 */
#include "test_util.h"
#include "misuse_util.h"

#include <pthread.h>

static const gex_AM_Index_t H_REQ = 130, H_REP = 131, H_SAVE = 132;
static gex_Token_t saved_token;
static atomic_int saved, replied;


/* Request handler: replies according to the mode. */
static void h_req(gex_Token_t t, gex_AM_Arg_t a) {
  (void)a;
  if (!strcmp(mode, "second_reply")) {
    CHECK(gex_AM_ReplyShort1(t, H_REP, 0, 1) == 0);
    expect("^libgex: rank %u: gex_AM_ReplyShort[0-9]*: ", T.rank);
    fflush(stdout);
    gex_AM_ReplyShort1(t, H_REP, 0, 2);
    not_detected();
  }
  if (!strcmp(mode, "reply_medium_too_big")) {
    size_t max = gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 1);
    static unsigned char big[1 << 20];
    CHECK(max + 1 <= sizeof big);
    expect("^libgex: rank %u: gex_AM_ReplyMedium[0-9]*: .*\\b%zu\\b", T.rank, max + 1);
    gex_AM_ReplyMedium1(t, H_REP, big, max + 1, GEX_EVENT_NOW, 0, 0);
    not_detected();
  }
  CHECK(gex_AM_ReplyShort1(t, H_REP, 0, 0) == 0);
}
static void h_rep(gex_Token_t t, gex_AM_Arg_t a) {
  (void)a;
  if (!strcmp(mode, "reply_in_reply")) {
    expect("^libgex: rank %u: gex_AM_ReplyShort[0-9]*: ", T.rank);
    gex_AM_ReplyShort1(t, H_REP, 0, 0); /* a Reply from a Reply handler */
    not_detected();
  }
  atomic_store(&replied, 1);
}
static void h_save(gex_Token_t t, gex_AM_Arg_t a) {
  (void)a;
  saved_token = t; /* invalid once this handler returns */
  atomic_store(&saved, 1);
}

/* Flags passed through a volatile, as a client computing them would. */
static volatile gex_Flags_t all_bits = 0xFFFFFFFFu;

static gex_HSL_t hsl = GEX_HSL_INITIALIZER;
static void *lock_hsl(void *arg) {
  (void)arg;
  gex_HSL_Lock(&hsl); /* and keep it */
  return NULL;
}

int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "";
  setvbuf(stdout, NULL, _IOLBF, 0);

  if (!strcmp(mode, "before_init")) {
    expect("^libgex: gasnet_AMPoll: ");
    gasnet_AMPoll();
    printf("NOT DETECTED: gasnet_AMPoll before gex_Client_Init was accepted\n");
    return 0;
  }
  if (!strcmp(mode, "flags_init")) { /* run with one rank: each rank reports */
    gex_Client_t c;
    gex_EP_t ep;
    gex_TM_t tm;
    expect("^libgex: rank 0: gex_Client_Init: flags 0xffffffff: bits 0xfffffffc are not "
           "defined for this call");
    gex_Client_Init(&c, &ep, &tm, "MISUSE", &argc, &argv, all_bits);
    not_detected();
  }

  gex_AM_Entry_t tab[] = {
      {H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "req"},
      {H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "rep"},
      {H_SAVE, (gex_AM_Fn_t)h_save, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "save"},
  };
  test_init(&argc, &argv, "MISUSE", 8192, tab, 3);
  const gex_Rank_t me = T.rank, n = T.size;
  const gex_Rank_t last = n - 1;
  unsigned char buf[64] = {0};

  if (!strcmp(mode, "rank_oob_put")) {
    if (me == 0) {
      gex_Rank_t bad = n + 5;
      expect("^libgex: rank 0: gex_RMA_PutNBI: .*\\b%u\\b", bad);
      gex_RMA_PutNBI(T.tm, bad, T.seg_base, buf, 8, GEX_EVENT_NOW, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "rank_oob_get")) {
    if (me == last) {
      gex_Rank_t bad = n;
      expect("^libgex: rank %u: gex_RMA_GetBlocking: .*\\b%u\\b", me, bad);
      gex_RMA_GetBlocking(T.tm, buf, bad, T.seg_base, 8, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "rank_oob_am")) {
    if (me == 0) {
      gex_Rank_t bad = n + 100;
      expect("^libgex: rank 0: gex_AM_RequestShort[0-9]*: .*\\b%u\\b", bad);
      gex_AM_RequestShort1(T.tm, bad, H_REQ, 0, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "oob_put")) { /* crosses the end of the peer's segment */
    if (me == last) {
      gex_Rank_t p = 0;
      void *addr = T.peer_seg[p] + T.peer_size[p] - 4;
      expect("^libgex: rank %u: gex_RMA_PutNBI: .*%p", me, addr);
      gex_RMA_PutNBI(T.tm, p, addr, buf, 8, GEX_EVENT_NOW, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "oob_get")) { /* below the start of the peer's segment */
    if (me == 0) {
      gex_Rank_t p = last;
      void *addr = T.peer_seg[p] - 64;
      expect("^libgex: rank 0: gex_RMA_GetNB: .*%p", addr);
      gex_Event_Wait(gex_RMA_GetNB(T.tm, buf, p, addr, 16, 0));
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "oob_put_self")) { /* not in any segment at all */
    if (me == 0) {
      void *addr = buf + 8;
      expect("^libgex: rank 0: gex_RMA_PutBlocking: .*%p", addr);
      gex_RMA_PutBlocking(T.tm, 0, addr, buf, 8, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "oob_long")) { /* Long payload beyond the target segment */
    if (me == 0) {
      gex_Rank_t p = last;
      void *addr = T.peer_seg[p] + T.peer_size[p] - 32;
      expect("^libgex: rank 0: gex_AM_RequestLong[0-9]*: .*%p", addr);
      gex_AM_RequestLong1(T.tm, p, H_REQ, buf, 64, addr, GEX_EVENT_NOW, 0, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "bad_handler")) { /* detected by the receiver */
    if (me == 0) {
      expect("^libgex: rank %u: .*\\b200\\b", last);
      expect("^libgex: rank %u: .*[Rr]equest.*[Ss]hort", last);
      CHECK(gex_AM_RequestShort1(T.tm, last, 200, 0, 0) == 0);
    }
    wait_forever();
  }
  if (!strcmp(mode, "wrong_nargs")) { /* H_REQ is registered with 1 argument */
    if (me == 0) {
      expect("^libgex: rank %u: .*\\b%u\\b", last, (unsigned)H_REQ);
      CHECK(gex_AM_RequestShort2(T.tm, last, H_REQ, 0, 1, 2) == 0);
    }
    wait_forever();
  }
  if (!strcmp(mode, "wrong_category")) { /* H_REQ is registered as a Short */
    if (me == 0) {
      expect("^libgex: rank %u: .*\\b%u\\b", last, (unsigned)H_REQ);
      expect("^libgex: rank %u: .*Medium", last);
      CHECK(gex_AM_RequestMedium1(T.tm, last, H_REQ, buf, 8, GEX_EVENT_NOW, 0, 0) == 0);
    }
    wait_forever();
  }
  if (!strcmp(mode, "reply_outside")) {
    if (me == 0) CHECK(gex_AM_RequestShort1(T.tm, last, H_SAVE, 0, 0) == 0);
    if (me == last) {
      GASNET_BLOCKUNTIL(atomic_load(&saved) == 1);
      expect("^libgex: rank %u: gex_AM_ReplyShort[0-9]*: ", me);
      gex_AM_ReplyShort1(saved_token, H_REP, 0, 0); /* the handler has returned */
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "reply_in_reply") || !strcmp(mode, "second_reply") ||
      !strcmp(mode, "reply_medium_too_big")) {
    if (me == 0) CHECK(gex_AM_RequestShort1(T.tm, last, H_REQ, 0, 0) == 0);
    wait_forever();
  }
  if (!strcmp(mode, "medium_too_big")) {
    if (me == 0) {
      size_t max = gex_AM_MaxRequestMedium(T.tm, last, GEX_EVENT_NOW, 0, 1);
      static unsigned char big[1 << 20];
      CHECK(max + 1 <= sizeof big);
      expect("^libgex: rank 0: gex_AM_RequestMedium[0-9]*: .*\\b%zu\\b", max + 1);
      gex_AM_RequestMedium1(T.tm, last, H_REQ, big, max + 1, GEX_EVENT_NOW, 0, 0);
      not_detected();
    }
    wait_forever();
  }
  /* ---- NULL buffers, lc_opt and event arrays ---- */
  if (!strcmp(mode, "null_lc_putnb")) { /* to an on-node peer: the inline path */
    if (me == last) {
      expect("^libgex: rank %u: gex_RMA_PutNB: lc_opt is NULL \\(", me);
      gex_RMA_PutNB(T.tm, 0, T.peer_seg[0], buf, 8, NULL, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "null_lc_putnbi")) {
    if (me == 0) {
      expect("^libgex: rank 0: gex_RMA_PutNBI: lc_opt is NULL \\(an NBI call");
      gex_RMA_PutNBI(T.tm, last, T.peer_seg[last], buf, 8, NULL, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "null_src_put")) {
    if (me == 0) {
      expect("^libgex: rank 0: gex_RMA_PutBlocking: src is NULL \\(nbytes 16\\)$");
      gex_RMA_PutBlocking(T.tm, last, T.peer_seg[last], NULL, 16, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "null_dest_get")) {
    if (me == last) {
      expect("^libgex: rank %u: gex_RMA_GetNBI: dest is NULL \\(nbytes 8\\)$", me);
      gex_RMA_GetNBI(T.tm, NULL, 0, T.peer_seg[0], 8, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "null_src_am")) {
    if (me == 0) {
      expect("^libgex: rank 0: gex_AM_RequestMedium[0-9]*: source_addr is NULL \\(nbytes 8\\)$");
      gex_AM_RequestMedium1(T.tm, last, H_REQ, NULL, 8, GEX_EVENT_NOW, 0, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "null_events_waitall") || !strcmp(mode, "null_events_testsome")) {
    if (me == last) {
      if (mode[12] == 'w') {
        expect("^libgex: rank %u: gex_Event_WaitAll: pevent is NULL \\(numevents 2\\)$", me);
        gex_Event_WaitAll(NULL, 2, 0);
      } else {
        expect("^libgex: rank %u: gex_Event_TestSome: pevent is NULL \\(numevents 3\\)$", me);
        gex_Event_TestSome(NULL, 3, 0);
      }
      not_detected();
    }
    wait_forever();
  }
  /* ---- flag bits not defined for the call ---- */
  if (!strcmp(mode, "flags_put")) {
    if (me == 0) {
      expect("^libgex: rank 0: gex_RMA_PutNBI: flags 0xffffffff: bits 0xffff3800 are not "
             "defined for this call");
      gex_RMA_PutNBI(T.tm, last, T.peer_seg[last], buf, 8, GEX_EVENT_DEFER, all_bits);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "flags_get_jobrank")) { /* only atomics and gex_TM_Create take it */
    if (me == last) {
      expect("^libgex: rank %u: gex_RMA_GetBlocking: flags 0x2000: bits 0x2000 are not defined "
             "for this call", me);
      gex_RMA_GetBlocking(T.tm, buf, 0, T.peer_seg[0], 8, GEX_FLAG_RANK_IS_JOBRANK);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "flags_am")) {
    if (me == 0) {
      expect("^libgex: rank 0: gex_AM_RequestShort[0-9]*: flags 0xffffffff: bits 0xffff3800 "
             "are not defined for this call");
      gex_AM_RequestShort1(T.tm, last, H_REQ, all_bits, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "flags_am_least")) { /* a query flag, invalid for the call itself */
    if (me == 0) {
      expect("^libgex: rank 0: gex_AM_RequestMedium[0-9]*: flags 0x800: bits 0x800 are not "
             "defined for this call");
      gex_AM_RequestMedium1(T.tm, last, H_REQ, buf, 8, GEX_EVENT_NOW,
                            GEX_FLAG_AM_PREPARE_LEAST_CLIENT, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "flags_nbi_wait")) {
    if (me == last) {
      expect("^libgex: rank %u: gex_NBI_Wait: flags 0x1: bits 0x1 are not defined for this "
             "call", me);
      gex_NBI_Wait(GEX_EC_ALL, GEX_FLAG_IMMEDIATE);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "flags_barrier")) { /* every rank makes the same mistake */
    if (me == 0) {
      expect("^libgex: rank 0: gex_Coll_BarrierNB: flags 0x1: bits 0x1 are not defined for "
             "this call");
      gex_Event_Wait(gex_Coll_BarrierNB(T.tm, GEX_FLAG_IMMEDIATE));
      not_detected();
    }
    wait_forever();
  }
  /* ---- handler-safe locks ---- */
  if (!strcmp(mode, "hsl_unlock_free")) {
    if (me == 0) {
      expect("^libgex: rank 0: gex_HSL_Unlock: the handler-safe lock %p is not locked$",
             (void *)&hsl);
      gex_HSL_Unlock(&hsl);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "hsl_unlock_other")) {
    if (me == last) {
      pthread_t th;
      CHECK(pthread_create(&th, NULL, lock_hsl, NULL) == 0);
      CHECK(pthread_join(th, NULL) == 0);
      expect("^libgex: rank %u: gex_HSL_Unlock: the handler-safe lock %p is held by another "
             "thread$", me, (void *)&hsl);
      gasnet_hsl_unlock(&hsl);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "hsl_relock")) {
    if (me == 0) {
      gex_HSL_Lock(&hsl);
      expect("^libgex: rank 0: gex_HSL_Lock: this thread already holds the handler-safe lock "
             "%p$", (void *)&hsl);
      gex_HSL_Lock(&hsl);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "val_size")) {
    if (me == last) {
      expect("^libgex: rank %u: gex_RMA_PutBlockingVal: .*\\b9\\b", me);
      gex_RMA_PutBlockingVal(T.tm, 0, T.peer_seg[0], 1, 9, 0);
      not_detected();
    }
    wait_forever();
  }
  fprintf(stderr, "misuse_prog: unknown mode '%s'\n", mode);
  gasnet_exit(2);
}

/* t_am_immediate.c -- GEX_FLAG_IMMEDIATE under back-pressure.
 *
 * Rank 0 is the target and does not poll: it spins on flags in its own
 * segment with plain atomic loads (no library call).  Every other rank
 * floods it with IMMEDIATE Short and Medium Requests, each attempt with a
 * unique sequence number, until attempts are refused (non-zero return),
 * then a few more.  libgex's AM queues are bounded, so refusal must happen.
 * Each sender records which attempts were accepted in a bitmap that it Puts
 * into the target's segment, then raises its flag.  The target then polls:
 * every accepted Request must run exactly once, and no refused one at all.
 * With one rank, the rank floods itself the same way (refusal not required:
 * an implementation may deliver to itself synchronously).  When a sender is
 * reached through the network the target must poll for the Puts to land, so
 * refusal is not required either and deliveries are checked against the
 * bitmaps at the end of the round.
 */
#include "test_util.h"

#include <sched.h>

#define LIMIT (1u << 20)         /* attempts per sender at most */
#define EXTRA 64                 /* attempts after the first refusal */
#define BM_BYTES (LIMIT / 8)
#define OFF_FLAGS 0              /* uint64 per sender: accepted + 1 once done */
#define OFF_BM 4096              /* accepted-attempt bitmap per sender */
#define MEDLEN 256

static const gex_AM_Index_t H_SHORT = GEX_AM_INDEX_BASE + 26, H_MED = GEX_AM_INDEX_BASE + 27;
static unsigned char *recv_bm; /* [src][attempt], private to the target */
static atomic_long received;
/* A sender reached through the network: the target must poll for the
 * senders' bitmaps to land, so it cannot stay silent during the flood (no
 * refusal is then guaranteed), and deliveries are checked against the
 * bitmaps only at the end of the round. */
static int polling_target;

static int bit(const unsigned char *bm, uint32_t i) { return (bm[i / 8] >> (i % 8)) & 1; }
static void set_bit(unsigned char *bm, uint32_t i) { bm[i / 8] |= (unsigned char)(1u << (i % 8)); }

static void got(gex_Token_t t, uint32_t a, int is_med) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  gex_Rank_t s = info.gex_srcrank;
  CHECK(a < LIMIT && (a % 2 == 1) == is_med);
  /* Whether attempt a was accepted is checked against the sender's bitmap
   * at the end of the round: the next round's flood may already arrive
   * while this round's bitmaps are being cleared. */
  unsigned char *rb = recv_bm + (size_t)s * BM_BYTES;
  CHECKF(!bit(rb, a), "attempt %u of rank %u delivered twice", a, s);
  set_bit(rb, a);
  atomic_fetch_add(&received, 1);
}
static void h_short(gex_Token_t t, gex_AM_Arg_t a) { got(t, (uint32_t)a, 0); }
static void h_med(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t a) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  CHECK(nb == MEDLEN);
  long bad = test_verify(buf, nb, test_seed(info.gex_srcrank, (uint64_t)(uint32_t)a, 9, 0));
  CHECKF(bad < 0, "Medium attempt %d: payload byte %ld wrong", a, bad);
  got(t, (uint32_t)a, 1);
}

/* Flood 'target' with IMMEDIATE Requests; returns accepted count, fills bm. */
static uint64_t flood(gex_Rank_t target, unsigned char *bm, int must_refuse) {
  unsigned char pay[MEDLEN];
  uint64_t accepted = 0;
  uint32_t refused = 0, extra_left = EXTRA;
  uint32_t a;
  for (a = 0; a < LIMIT; a++) {
    int rc;
    if (a % 2 == 0) {
      rc = gex_AM_RequestShort1(T.tm, target, H_SHORT, GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)a);
    } else {
      test_fill(pay, MEDLEN, test_seed(T.rank, a, 9, 0));
      rc = gex_AM_RequestMedium1(T.tm, target, H_MED, pay, MEDLEN, GEX_EVENT_NOW,
                                 GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)a);
    }
    if (rc == 0) {
      set_bit(bm, a);
      accepted++;
    } else {
      refused++;
    }
    if (refused && extra_left-- == 0) break;
  }
  if (must_refuse)
    CHECKF(refused > 0, "%u IMMEDIATE Requests to a rank that does not poll were all accepted",
           a);
  test_log("flood: %" PRIu64 " accepted, %u refused", accepted, refused);
  return accepted;
}

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return OFF_BM + (uintptr_t)n * BM_BYTES;
}

int main(int argc, char **argv) {
  gex_AM_Entry_t tab[] = {
      {H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "imm_s"},
      {H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "imm_m"},
  };
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_AM_IMMEDIATE", 0, tab, 2);
  const gex_Rank_t me = T.rank, n = T.size;
  memset(T.seg_base, 0, OFF_BM + (size_t)n * BM_BYTES);
  recv_bm = calloc(n, BM_BYTES);
  CHECK(recv_bm);
  test_barrier();

  int rounds = (int)test_iters(5, 1);
  for (int round = 0; round < rounds; round++) {
    if (n == 1) {
      unsigned char *bm = T.seg_base + OFF_BM;
      memset(bm, 0, BM_BYTES);
      uint64_t acc = flood(0, bm, 0);
      GASNET_BLOCKUNTIL(atomic_load(&received) == (long)acc);
    } else if (me != 0) {
      unsigned char *bm = calloc(1, BM_BYTES);
      CHECK(bm);
      void *local0 = NULL;
      gex_Segment_QueryBound(T.tm, 0, NULL, &local0, NULL);
      uint64_t acc = flood(0, bm, local0 != NULL);
      /* publish the bitmap, then the flag (blocking Puts complete in order) */
      CHECK(gex_RMA_PutBlocking(T.tm, 0, T.peer_seg[0] + OFF_BM + (size_t)me * BM_BYTES, bm,
                                BM_BYTES, 0) == 0);
      CHECK(gex_RMA_PutBlockingVal(T.tm, 0, T.peer_seg[0] + OFF_FLAGS + 8 * me,
                                   acc + 1 + ((uint64_t)round << 40), 8, 0) == 0);
      free(bm);
    } else {
      /* the target: no library call until every sender is done */
      uint64_t expect = 0;
      for (gex_Rank_t s = 1; s < n; s++) {
        void *local = NULL;
        gex_Segment_QueryBound(T.tm, s, NULL, &local, NULL);
        if (!local) polling_target = 1;
      }
      for (gex_Rank_t s = 1; s < n; s++) {
        volatile uint64_t *f = (volatile uint64_t *)(T.seg_base + OFF_FLAGS + 8 * s);
        uint64_t v;
        while (((v = __atomic_load_n(f, __ATOMIC_ACQUIRE)) >> 40) != (uint64_t)round || v == 0) {
          if (polling_target)
            gasnet_AMPoll();
          else
            sched_yield();
        }
        expect += (v & ((1ULL << 40) - 1)) - 1;
      }
      GASNET_BLOCKUNTIL(atomic_load(&received) == (long)expect);
      test_log("target: %" PRIu64 " accepted Requests delivered exactly once", expect);
    }
    /* anything refused that still arrived would fail in the handler */
    test_barrier();
    test_barrier();
    if (me == 0 && n > 1) {
      for (gex_Rank_t s = 1; s < n; s++) {
        const unsigned char *acc = T.seg_base + OFF_BM + (size_t)s * BM_BYTES;
        const unsigned char *rb = recv_bm + (size_t)s * BM_BYTES;
        for (uint32_t a = 0; a < LIMIT; a++)
          CHECKF(bit(acc, a) == bit(rb, a), "attempt %u of rank %u: %s", a, s,
                 bit(rb, a) ? "refused (non-zero return) but delivered"
                            : "accepted but never delivered");
      }
      /* next round: clear flags and bitmaps (senders wait for the barrier) */
      memset(T.seg_base + OFF_BM, 0, (size_t)n * BM_BYTES);
    }
    /* reset before the barrier after which the next flood may arrive */
    atomic_store(&received, 0);
    memset(recv_bm, 0, (size_t)n * BM_BYTES);
    test_barrier();
  }
  test_finish();
}

/* t_nbi_counted.c -- NBI Puts small enough to be injected and NBI Gets,
 * the operations the network transport posts on its counted endpoint
 * (transport/ofi/ofi_counted.c), mixed with those it does not: the same
 * operations from a second thread and inside access regions, and larger
 * Puts and Gets.
 *
 * Each round, every rank, from its main thread and from a helper thread at
 * once, to every other rank:
 *   - Puts 1 to 64 bytes (sizes cycling) into slots of 64 bytes of the
 *     target's segment, from a buffer it scribbles over as soon as the call
 *     returns (GEX_EVENT_NOW: the source is the caller's again);
 *   - Gets 1 to 64 bytes and pieces of 9000 bytes of the target's pattern;
 *   - every third round, the main thread's second half inside an access
 *     region, whose event it waits for;
 *   - tests with gex_NBI_Test now and then, and syncs with one of three
 *     forms (Wait ALL; a Test loop on PUT then Wait GET; Wait PUT then
 *     Wait GET).
 * After the sync it checks every Get, and reads a few of its Put slots back
 * with blocking Gets (a synced Put has landed at the target).  After a
 * barrier each rank checks its slots: every byte Put where it belongs, the
 * rest of each slot untouched.
 *
 * GEX_TEST_COUNTED=+: some operation of the job went through the counted
 * endpoint (an internal hook of the static library); =0: none did.
 * GEX_TEST_INPLACE=+ / =0: the same for the sock transport's small NBI
 * Puts and Gets written in place into a peer's queue (transport/sock/sock_rma.c).
 *
 *   t_nbi_counted [ROUNDS]   (default 30, scaled; at least 3)
 */
#include <pthread.h>

#include "test_util.h"

#if GEX_TEST_HAVE_OFI
uint64_t gexi_ofi_counted_ops(void);
#else
static uint64_t gexi_ofi_counted_ops(void) { return 0; } /* no network transport */
#endif

uint64_t gexi_sock_rma_tails(void); /* the sock transport's (transport/sock/sock_send.c) */

#define SLOT 64
#define NSLOT 48            /* Put slots per (source, thread) */
#define BIG 9000            /* the large Gets */
#define NBIG 3
#define GET_AREA (NBIG * BIG) /* pattern each rank serves to each reader thread */
#define NTH 2               /* main thread and helper */

/* Segment: [put slots: per source, per thread][get area: per reader, per thread]. */
static size_t put_off(gex_Rank_t src, int th) { return ((size_t)src * NTH + th) * NSLOT * SLOT; }
static size_t get_off(gex_Rank_t reader, int th) {
  return (size_t)T.size * NTH * NSLOT * SLOT + ((size_t)reader * NTH + th) * GET_AREA;
}
static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return (uintptr_t)n * NTH * (NSLOT * SLOT + GET_AREA);
}

static size_t put_len(int k, int round, int th) { return 1 + (size_t)(k * 7 + round * 3 + th) % SLOT; }
static uint64_t put_seed(gex_Rank_t s, gex_Rank_t d, int th, int k, int round) {
  return test_seed(s, d, (uint64_t)(th * 1000 + k), (uint64_t)round * 2);
}
static uint64_t get_seed(gex_Rank_t owner, gex_Rank_t reader, int th, int round) {
  return test_seed(owner, reader, (uint64_t)th, (uint64_t)round * 2 + 1);
}

struct thread_work {
  int th, round;
  unsigned char *small;       /* [peer][NSLOT][SLOT] Gets of 1..64 bytes */
  unsigned char *big;         /* [peer][GET_AREA] */
};

/* One thread's operations of a round to every peer; the main thread (th 0)
 * puts its second half inside an access region every third round. */
static void issue_and_sync(struct thread_work *w) {
  const gex_Rank_t me = T.rank, n = T.size;
  const int th = w->th, round = w->round;
  const int region = th == 0 && round % 3 == 0;
  gex_Event_t ev = GEX_EVENT_INVALID;
  unsigned char buf[SLOT];
  for (int k = 0; k < NSLOT; k++) {
    if (region && k == NSLOT / 2) gex_NBI_BeginAccessRegion(0);
    for (gex_Rank_t i = 1; i < n; i++) {
      gex_Rank_t p = (me + i) % n;
      size_t len = put_len(k, round, th);
      test_fill(buf, len, put_seed(me, p, th, k, round));
      CHECK(gex_RMA_PutNBI(T.tm, p, T.peer_seg[p] + put_off(me, th) + (size_t)k * SLOT, buf, len,
                           GEX_EVENT_NOW, 0) == 0);
      memset(buf, 0xEE, sizeof buf); /* the source is ours again */
      size_t glen = 1 + (size_t)(k * 5 + round) % SLOT;
      CHECK(gex_RMA_GetNBI(T.tm, w->small + ((size_t)p * NSLOT + k) * SLOT, p,
                           T.peer_seg[p] + get_off(me, th) + (size_t)k * SLOT, glen, 0) == 0);
      if (k < NBIG)
        CHECK(gex_RMA_GetNBI(T.tm, w->big + (size_t)p * GET_AREA + (size_t)k * BIG, p,
                             T.peer_seg[p] + get_off(me, th) + (size_t)k * BIG, BIG, 0) == 0);
    }
    if (k % 8 == 3) (void)gex_NBI_Test(k % 16 == 3 ? GEX_EC_PUT : GEX_EC_ALL, 0);
  }
  if (region) ev = gex_NBI_EndAccessRegion(0);
  switch ((round + th) % 3) {
    case 0:
      gex_NBI_Wait(GEX_EC_ALL, 0);
      break;
    case 1:
      while (gex_NBI_Test(GEX_EC_PUT, 0) != GASNET_OK) gasnet_AMPoll();
      gex_NBI_Wait(GEX_EC_GET, 0);
      break;
    default:
      gex_NBI_Wait(GEX_EC_PUT, 0);
      gex_NBI_Wait(GEX_EC_GET, 0);
  }
  if (region) gex_Event_Wait(ev);
  CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK);

  /* Every Get landed; a few Put slots, read back, have landed too. */
  for (gex_Rank_t i = 1; i < n; i++) {
    gex_Rank_t p = (me + i) % n;
    unsigned char pat[SLOT];
    for (int k = 0; k < NSLOT; k++) {
      size_t glen = 1 + (size_t)(k * 5 + round) % SLOT;
      const unsigned char *got = w->small + ((size_t)p * NSLOT + k) * SLOT;
      uint64_t seed = get_seed(p, me, th, round);
      for (size_t b = 0; b < glen; b++)
        CHECKF(got[b] == test_pattern_byte(seed, (size_t)k * SLOT + b),
               "round %d thread %d: small Get %d from rank %u wrong at byte %zu", round, th, k,
               (unsigned)p, b);
    }
    for (int k = 0; k < NBIG; k++) {
      const unsigned char *got = w->big + (size_t)p * GET_AREA + (size_t)k * BIG;
      uint64_t seed = get_seed(p, me, th, round);
      for (size_t b = 0; b < BIG; b++)
        CHECKF(got[b] == test_pattern_byte(seed, (size_t)k * BIG + b),
               "round %d thread %d: large Get %d from rank %u wrong at byte %zu", round, th, k,
               (unsigned)p, b);
    }
    for (int k = round % 5; k < NSLOT; k += 11) {
      size_t len = put_len(k, round, th);
      CHECK(gex_RMA_GetBlocking(T.tm, pat, p, T.peer_seg[p] + put_off(me, th) + (size_t)k * SLOT,
                                len, 0) == 0);
      long bad = test_verify(pat, len, put_seed(me, p, th, k, round));
      CHECKF(bad < 0, "round %d thread %d: synced Put %d to rank %u not there (byte %ld)", round,
             th, k, (unsigned)p, bad);
    }
  }
}

static void *helper(void *arg) {
  issue_and_sync(arg);
  return NULL;
}

int main(int argc, char **argv) {
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_NBI_COUNTED", 0, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size;
  struct thread_work w[NTH];
  for (int th = 0; th < NTH; th++) {
    w[th].th = th;
    w[th].small = malloc((size_t)n * NSLOT * SLOT);
    w[th].big = malloc((size_t)n * GET_AREA);
    CHECK(w[th].small && w[th].big);
  }
  int rounds = (int)test_iters(test_arg_count(argc, argv, 30), 3);
  for (int round = 1; round <= rounds; round++) {
    /* My slots cleared, my Get areas this round's pattern (the 64-byte
     * Gets read the first NSLOT * SLOT bytes of the same stream). */
    memset(T.seg_base, 0, (size_t)n * NTH * NSLOT * SLOT);
    for (gex_Rank_t r = 0; r < n; r++)
      for (int th = 0; th < NTH; th++)
        test_fill(T.seg_base + get_off(r, th), GET_AREA, get_seed(me, r, th, round));
    test_barrier();
    pthread_t t;
    for (int th = 0; th < NTH; th++) {
      w[th].round = round;
      memset(w[th].small, 0, (size_t)n * NSLOT * SLOT);
      memset(w[th].big, 0, (size_t)n * GET_AREA);
    }
    CHECK(pthread_create(&t, NULL, helper, &w[1]) == 0);
    issue_and_sync(&w[0]);
    CHECK(pthread_join(t, NULL) == 0);
    test_barrier();
    for (gex_Rank_t s = 0; s < n; s++) {
      if (s == me) continue;
      for (int th = 0; th < NTH; th++)
        for (int k = 0; k < NSLOT; k++) {
          const unsigned char *slot = T.seg_base + put_off(s, th) + (size_t)k * SLOT;
          size_t len = put_len(k, round, th);
          long bad = test_verify(slot, len, put_seed(s, me, th, k, round));
          CHECKF(bad < 0, "round %d: Put %d of thread %d from rank %u wrong at byte %ld", round,
                 k, th, (unsigned)s, bad);
          CHECK_BYTES(slot + len, SLOT - len, 0);
        }
    }
    test_barrier();
  }
  test_check_job_count("GEX_TEST_COUNTED", gexi_ofi_counted_ops(),
                       "NBI operations on the counted endpoint");
  test_check_job_count("GEX_TEST_INPLACE", gexi_sock_rma_tails(),
                       "queue tails opened for NBI operations written in place");
  for (int th = 0; th < NTH; th++) {
    free(w[th].small);
    free(w[th].big);
  }
  test_finish();
}

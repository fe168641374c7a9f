/* tests/t_atomic_native.c -- the provider-native atomics path (docs/atomics.md).
 *
 * Every rank hammers one U64 counter on every rank (itself included) with
 * FADD through an atomic domain, checks the totals and that every fetched
 * value is unique, then rank 0 times an 8-byte FADD round trip to rank 1
 * (NB + Wait) and prints it: "FADD round trip: X us (path)".
 *
 * Arguments: [iterations of the timing loop, default 2000].
 * With GEX_TEST_NATIVE_EXPECT=native|am the test also checks which path the
 * domain took: an NB operation on this rank itself returns a real event only
 * when it goes through the provider (native; or AMs under GEX_AD_FORCE_AM),
 * and GEX_EVENT_INVALID on the CPU path (AM domains keep CPU on-node).
 */
#include <sched.h>
#include <time.h>

#include <gasnet_ratomic.h>

#include "test_util.h"

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

#define K 200

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_ATOMIC_NATIVE", 0, NULL, 0);
  int iters = (int)test_arg_count(argc, argv, 2000);
  const gex_Rank_t me = T.rank, n = T.size;
  memset(T.seg_base, 0, 4096);
  test_barrier();

  gex_AD_t ad;
  gex_AD_Create(&ad, T.tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET | GEX_OP_SET, 0);

  /* Expected path: an NB FADD on this rank itself returns an event only
   * when the domain sends it through the provider (or AMs under FORCE_AM). */
  const char *expect = getenv("GEX_TEST_NATIVE_EXPECT");
  uint64_t got;
  gex_Event_t ev = gex_AD_OpNB_U64(ad, &got, me, T.peer_seg[me] + 8, GEX_OP_FADD, 0, 0, 0);
  const int self_event = ev != GEX_EVENT_INVALID;
  gex_Event_Wait(ev);
  if (expect && strcmp(expect, "native") == 0)
    CHECKF(self_event, "expected provider-native atomics, but an atomic on this rank completed at once");
  if (expect && strcmp(expect, "am") == 0)
    CHECKF(!self_event, "expected CPU/AM atomics, but an atomic on this rank returned an event");

  /* Contention: K FADDs of 1 from every rank to every rank's counter. */
  uint64_t *fetched = calloc((size_t)n * K, sizeof *fetched);
  CHECK(fetched);
  for (int i = 0; i < K; i++)
    for (gex_Rank_t k = 0; k < n; k++) {
      const gex_Rank_t p = (me + k) % n;
      CHECK(gex_AD_OpNBI_U64(ad, &fetched[(size_t)p * K + (size_t)i], p, T.peer_seg[p], GEX_OP_FADD,
                             1, 0, 0) == 0);
    }
  gex_NBI_Wait(GEX_EC_ALL, 0);
  test_barrier();
  const uint64_t total = (uint64_t)n * K;
  for (gex_Rank_t p = 0; p < n; p++) {
    uint64_t v;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &v, p, T.peer_seg[p], GEX_OP_GET, 0, 0, 0));
    CHECKF(v == total, "counter of rank %u is %" PRIu64 ", want %" PRIu64, (unsigned)p, v, total);
    for (int i = 0; i < K; i++) CHECK(fetched[(size_t)p * K + (size_t)i] < total);
    for (int i = 1; i < K; i++) /* one initiator's fetches to one target increase */
      CHECK(fetched[(size_t)p * K + (size_t)i] != fetched[(size_t)p * K + (size_t)i - 1]);
  }
  test_barrier();

  /* Latency: rank 0 -> rank 1, 8-byte FADD, NB + Wait. */
  if (n > 1 && me == 0) {
    uint64_t *c = (uint64_t *)(void *)(T.peer_seg[1] + 16);
    for (int i = 0; i < 100; i++)
      gex_Event_Wait(gex_AD_OpNB_U64(ad, &got, 1, c, GEX_OP_FADD, 1, 0, 0));
    const double t0 = now_us();
    for (int i = 0; i < iters; i++)
      gex_Event_Wait(gex_AD_OpNB_U64(ad, &got, 1, c, GEX_OP_FADD, 1, 0, 0));
    const double t1 = now_us();
    CHECK(got == (uint64_t)(iters + 100 - 1));
    printf("rank 0: FADD round trip to rank 1: %.2f us (%d iterations, %s)\n",
           (t1 - t0) / iters, iters, self_event ? "provider-native" : "AM path");
  }
  test_barrier();
  gex_AD_Destroy(ad);
  free(fetched);
  test_finish();
}

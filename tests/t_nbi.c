/* t_nbi.c -- implicit-event (NBI) operations: gex_NBI_Test/Wait with the
 * GEX_EC_* category masks (GET, PUT, ALL), NBI access regions
 * (gex_NBI_BeginAccessRegion/EndAccessRegion returning an event that is
 * waited or tested), empty regions, and NBI operations outside a region
 * interleaved with a region.  All moved data is verified.
 */
#include "test_util.h"

#define CHUNK 3000 /* not a multiple of anything nice */
#define NCHUNK 6   /* per (src, dst) pair */
#define REGION ((size_t)CHUNK * NCHUNK)

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return 2 * REGION * n; /* [put area: region per src][get area: region per reader] */
}

static unsigned char *put_area(gex_Rank_t owner, gex_Rank_t src) {
  return T.peer_seg[owner] + REGION * src;
}
static unsigned char *get_area(gex_Rank_t owner, gex_Rank_t reader) {
  return T.peer_seg[owner] + REGION * T.size + REGION * reader;
}

static uint64_t put_seed(gex_Rank_t s, gex_Rank_t d, int c, int round) {
  return test_seed(s, d, (uint64_t)c, (uint64_t)round * 2);
}
static uint64_t get_seed(gex_Rank_t owner, gex_Rank_t reader, int c, int round) {
  return test_seed(owner, reader, (uint64_t)c, (uint64_t)round * 2 + 1);
}

/* Owner side: fill my get area with this round's data, clear my put area. */
static void prepare(int round) {
  const gex_Rank_t me = T.rank, n = T.size;
  memset(put_area(me, 0), 0, REGION * n);
  for (gex_Rank_t r = 0; r < n; r++)
    for (int c = 0; c < NCHUNK; c++)
      test_fill(get_area(me, r) + (size_t)c * CHUNK, CHUNK, get_seed(me, r, c, round));
  test_barrier();
}

static void verify_puts(int round) {
  const gex_Rank_t me = T.rank, n = T.size;
  test_barrier();
  for (gex_Rank_t s = 0; s < n; s++)
    for (int c = 0; c < NCHUNK; c++) {
      long bad = test_verify(put_area(me, s) + (size_t)c * CHUNK, CHUNK, put_seed(s, me, c, round));
      CHECKF(bad < 0, "round %d: Put chunk %d from rank %u wrong at byte %ld", round, c, s, bad);
    }
  test_barrier();
}

static void verify_gets(unsigned char *dst, int round) {
  const gex_Rank_t me = T.rank, n = T.size;
  for (gex_Rank_t p = 0; p < n; p++)
    for (int c = 0; c < NCHUNK; c++) {
      long bad = test_verify(dst + REGION * p + (size_t)c * CHUNK, CHUNK, get_seed(p, me, c, round));
      CHECKF(bad < 0, "round %d: Get chunk %d from rank %u wrong at byte %ld", round, c, p, bad);
    }
}

/* Issue chunk c of the Puts and Gets to/from every peer as NBI. */
static void issue(unsigned char *src, unsigned char *dst, int c, int round, gex_Event_t *lc) {
  const gex_Rank_t me = T.rank, n = T.size;
  for (gex_Rank_t i = 0; i < n; i++) {
    gex_Rank_t p = (me + i) % n;
    unsigned char *s = src + REGION * p + (size_t)c * CHUNK;
    test_fill(s, CHUNK, put_seed(me, p, c, round));
    CHECK(gex_RMA_PutNBI(T.tm, p, put_area(p, me) + (size_t)c * CHUNK, s, CHUNK, lc, 0) == 0);
    CHECK(gex_RMA_GetNBI(T.tm, dst + REGION * p + (size_t)c * CHUNK, p,
                         get_area(p, me) + (size_t)c * CHUNK, CHUNK, 0) == 0);
  }
}

int main(int argc, char **argv) {
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_NBI", 0, NULL, 0);
  const gex_Rank_t n = T.size;
  unsigned char *src = malloc(REGION * n), *dst = malloc(REGION * n);
  CHECK(src && dst);

  /* nothing outstanding: every mask tests complete */
  gex_EC_t masks[] = {GEX_EC_GET, GEX_EC_PUT, GEX_EC_AM, GEX_EC_LC, GEX_EC_RMW, GEX_EC_ALL,
                      GEX_EC_GET | GEX_EC_PUT};
  for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
    CHECK(gex_NBI_Test(masks[i], 0) == 0);
    gex_NBI_Wait(masks[i], 0);
  }

  int rounds = (int)test_iters(20, 2);
  int round = 0;
  for (int it = 0; it < rounds; it++) {
    /* 1: plain NBI, synced per category: Test loop on PUT, Wait on GET */
    prepare(++round);
    memset(dst, 0, REGION * n);
    for (int c = 0; c < NCHUNK; c++) issue(src, dst, c, round, GEX_EVENT_DEFER);
    while (gex_NBI_Test(GEX_EC_PUT, 0) != 0) gasnet_AMPoll();
    gex_NBI_Wait(GEX_EC_GET, 0);
    CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == 0);
    verify_gets(dst, round);
    verify_puts(round);

    /* 2: GEX_EC_ALL and GEX_EVENT_GROUP local completion */
    prepare(++round);
    memset(dst, 0, REGION * n);
    for (int c = 0; c < NCHUNK; c++) issue(src, dst, c, round, GEX_EVENT_GROUP);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    verify_gets(dst, round);
    verify_puts(round);

    /* 3: an access region: its event covers the operations inside it */
    prepare(++round);
    memset(dst, 0, REGION * n);
    gex_NBI_BeginAccessRegion(0);
    for (int c = 0; c < NCHUNK; c++) issue(src, dst, c, round, GEX_EVENT_DEFER);
    gex_Event_t ev = gex_NBI_EndAccessRegion(0);
    CHECK(ev != GEX_EVENT_NO_OP);
    if (it % 2) {
      gex_Event_Wait(ev);
    } else {
      while (gex_Event_Test(ev) != 0) gasnet_AMPoll();
    }
    verify_gets(dst, round);
    verify_puts(round);

    /* 4: NBI outside, a region in between, more NBI outside */
    prepare(++round);
    memset(dst, 0, REGION * n);
    issue(src, dst, 0, round, GEX_EVENT_DEFER);
    issue(src, dst, 1, round, GEX_EVENT_NOW);
    gex_NBI_BeginAccessRegion(0);
    for (int c = 2; c < NCHUNK - 1; c++) issue(src, dst, c, round, GEX_EVENT_DEFER);
    gex_Event_t ev2 = gex_NBI_EndAccessRegion(0);
    issue(src, dst, NCHUNK - 1, round, GEX_EVENT_DEFER);
    gex_Event_t arr[2] = {ev2, GEX_EVENT_INVALID};
    gex_Event_WaitAll(arr, 2, 0);
    gex_NBI_Wait(GEX_EC_GET | GEX_EC_PUT, 0);
    verify_gets(dst, round);
    verify_puts(round);

    /* 5: an empty region */
    gex_NBI_BeginAccessRegion(0);
    gex_Event_t e3 = gex_NBI_EndAccessRegion(0);
    CHECK(e3 != GEX_EVENT_NO_OP);
    gex_Event_Wait(e3);
  }
  free(src);
  free(dst);
  test_finish();
}

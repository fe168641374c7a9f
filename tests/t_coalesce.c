/* t_coalesce.c -- NBI operations that libgex coalesces into one message per
 * target process and thread (am/am_coalesce.c): atomics on the
 * Active-Message path, and small Puts to off-node peers on providers with
 * software RMA.  Results, completion and progress.  Run with
 * GEX_AD_FORCE_AM=1 on one node (every atomic on the AM path) and over the
 * network (atomics and Puts).
 *
 * flood     every rank floods NBI ADDs into its own slot of every rank
 *           (targets interleaved, so batches of all peers are open at once),
 *           NBI FADDs whose fetched values must be 0..N-1, and bit-wise,
 *           MIN/MAX, INC/DEC and 32-bit/floating-point operations whose
 *           results do not depend on their order; then one gex_NBI_Wait.
 *           Checked at the targets after a barrier, and fetched values at
 *           the initiator.
 * masks     NBI SETs are complete after gex_NBI_Wait(GEX_EC_PUT) alone (read
 *           back with blocking GETs), NBI GETs after gex_NBI_Wait(GEX_EC_GET)
 * region    operations before an access region complete with gex_NBI_Wait,
 *           those inside it with the region's event.
 * progress  a ring: each rank raises a flag at the next rank with an NBI SET
 *           and then only polls (gasnet_AMPoll) until its own flag is raised:
 *           an NBI operation must leave at the thread's next poll, without
 *           any NBI sync call.
 * threads   two threads per rank flood NBI ADDs to every rank; one of them
 *           ends without syncing (its operations must still arrive, and its
 *           thread-local state must not be touched after it ended) unless
 *           coalescing is off (GEX_COALESCE=1).
 * immediate NBI ADDs with GEX_FLAG_IMMEDIATE: each one accepted (0) counts,
 *           a refused one (non-zero) must not be performed.
 * puts      NBI Puts of 1..1100 bytes (below and above the coalescing
 *           limit) to every rank, interleaved with NBI ADDs, the source
 *           overwritten right after each call (the data must have been
 *           taken at initiation); after gex_NBI_Wait(GEX_EC_PUT) and a
 *           barrier each rank checks what the others wrote into its
 *           segment; then the same inside an access region, completed by
 *           the region's event alone, checked by the initiator with
 *           blocking Gets.
 */
#include "test_util.h"

#include <gasnet_ratomic.h>
#include <pthread.h>

/* Segment layout (offsets; every rank the same). */
#define MAXR 64
#define O_ADD 0                    /* U64 [MAXR]: ADDs from rank s in slot s */
#define O_FADD (O_ADD + 8 * MAXR)  /* U64: FADDs from the previous rank */
#define O_BITS (O_FADD + 64)       /* U64 [MAXR]: OR/XOR/AND/MIN/MAX area, slot s */
#define O_MIN (O_BITS + 8 * MAXR)  /* I64 [MAXR] */
#define O_MAX (O_MIN + 8 * MAXR)   /* I64 [MAXR] */
#define O_I32 (O_MAX + 8 * MAXR)   /* I32 [MAXR]: INC/DEC */
#define O_DBL (O_I32 + 4 * MAXR)   /* DBL [MAXR]: ADD of 0.5 */
#define O_SET (O_DBL + 8 * MAXR)   /* U64 [MAXR]: SET then GET */
#define O_REG (O_SET + 8 * MAXR)   /* U64 [MAXR]: region ADDs */
#define O_FLAG (O_REG + 8 * MAXR)  /* U64: progress ring flag */
#define O_THR (O_FLAG + 64)        /* U64 [MAXR]: thread ADDs */
#define O_IMM (O_THR + 8 * MAXR)   /* U64 [MAXR]: IMMEDIATE ADDs */
#define O_PUT 32768                /* [MAXR] areas of PUT_AREA bytes: Puts from rank s */
#define PUT_AREA 4096
#define SEG (O_PUT + MAXR * PUT_AREA)

static gex_AD_t ad_u64, ad_i64, ad_i32, ad_dbl;
static long iters;

static void *at(gex_Rank_t r, size_t off) { return T.peer_seg[r] + off; }
static uint64_t *mine(size_t off) { return (uint64_t *)(void *)(T.seg_base + off); }

static uint64_t get_u64(gex_Rank_t r, size_t off) {
  uint64_t v = 0;
  test_wait(gex_AD_OpNB_U64(ad_u64, &v, r, at(r, off), GEX_OP_GET, 0, 0, 0));
  return v;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void flood(void) {
  const gex_Rank_t me = T.rank, n = T.size, next = (me + 1) % n;
  uint64_t *fetched = malloc((size_t)iters * sizeof *fetched);
  CHECK(fetched);
  for (long i = 0; i < (long)iters; i++) {
    for (gex_Rank_t k = 0; k < n; k++) {
      const gex_Rank_t r = (me + k) % n;
      CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, r, at(r, O_ADD + 8 * me), GEX_OP_ADD, 1, 0, 0) == 0);
    }
    CHECK(gex_AD_OpNBI_U64(ad_u64, &fetched[i], next, at(next, O_FADD), GEX_OP_FADD, 1, 0, 0) ==
          0);
    const gex_Rank_t r = (gex_Rank_t)((uint64_t)i % n);
    CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, r, at(r, O_BITS + 8 * me), GEX_OP_XOR,
                           (uint64_t)1 << (i % 64), 0, 0) == 0);
    CHECK(gex_AD_OpNBI_I64(ad_i64, NULL, r, at(r, O_MIN + 8 * me), GEX_OP_MIN, -(int64_t)i, 0,
                           0) == 0);
    CHECK(gex_AD_OpNBI_I64(ad_i64, NULL, r, at(r, O_MAX + 8 * me), GEX_OP_MAX, (int64_t)i, 0,
                           0) == 0);
    CHECK(gex_AD_OpNBI_I32(ad_i32, NULL, r, at(r, O_I32 + 4 * me),
                           (i % 3) ? GEX_OP_INC : GEX_OP_DEC, 0, 0, 0) == 0);
    CHECK(gex_AD_OpNBI_DBL(ad_dbl, NULL, r, at(r, O_DBL + 8 * me), GEX_OP_ADD, 0.5, 0, 0) == 0);
  }
  gex_NBI_Wait(GEX_EC_ALL, 0);
  /* Fetched values: each of 0..iters-1 once (the order is not promised). */
  qsort(fetched, (size_t)iters, sizeof *fetched, cmp_u64);
  for (long i = 0; i < iters; i++) CHECKF(fetched[i] == (uint64_t)i, "fetched[%ld] = %" PRIu64, i, fetched[i]);
  free(fetched);
  test_barrier();
  /* Targets: what every initiator did to this rank. */
  CHECK(*mine(O_FADD) == (uint64_t)iters);
  for (gex_Rank_t s = 0; s < n; s++) {
    CHECKF(mine(O_ADD)[s] == (uint64_t)iters, "ADDs from rank %u: %" PRIu64, (unsigned)s,
           mine(O_ADD)[s]);
    uint64_t bits = 0, cnt = 0;
    int64_t mn = 0, mx = 0;
    int32_t i32 = 0;
    for (long i = 0; i < iters; i++) {
      if ((gex_Rank_t)((uint64_t)i % n) != me) continue;
      bits ^= (uint64_t)1 << (i % 64);
      if (-(int64_t)i < mn) mn = -(int64_t)i;
      if ((int64_t)i > mx) mx = (int64_t)i;
      i32 += (i % 3) ? 1 : -1;
      cnt++;
    }
    CHECK(mine(O_BITS)[s] == bits);
    CHECK(((int64_t *)(void *)(T.seg_base + O_MIN))[s] == mn);
    CHECK(((int64_t *)(void *)(T.seg_base + O_MAX))[s] == mx);
    CHECK(((int32_t *)(void *)(T.seg_base + O_I32))[s] == i32);
    CHECK(((double *)(void *)(T.seg_base + O_DBL))[s] == 0.5 * (double)cnt);
  }
  test_barrier();
}

static void masks(void) {
  const gex_Rank_t me = T.rank, n = T.size;
  for (gex_Rank_t r = 0; r < n; r++)
    CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, r, at(r, O_SET + 8 * me), GEX_OP_SET,
                           0xABCD0000u + me * 16 + r, 0, 0) == 0);
  gex_NBI_Wait(GEX_EC_PUT, 0);
  for (gex_Rank_t r = 0; r < n; r++) CHECK(get_u64(r, O_SET + 8 * me) == 0xABCD0000u + me * 16 + r);
  uint64_t *v = calloc(n, sizeof *v);
  CHECK(v);
  for (gex_Rank_t r = 0; r < n; r++)
    CHECK(gex_AD_OpNBI_U64(ad_u64, &v[r], r, at(r, O_SET + 8 * me), GEX_OP_GET, 0, 0, 0) == 0);
  gex_NBI_Wait(GEX_EC_GET, 0);
  for (gex_Rank_t r = 0; r < n; r++) CHECK(v[r] == 0xABCD0000u + me * 16 + r);
  free(v);
  test_barrier();
}

static void region(void) {
  const gex_Rank_t me = T.rank, n = T.size;
  for (gex_Rank_t r = 0; r < n; r++)
    CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, r, at(r, O_REG + 8 * me), GEX_OP_ADD, 1000, 0, 0) == 0);
  gex_NBI_BeginAccessRegion(0);
  for (long i = 0; i < iters; i++)
    for (gex_Rank_t r = 0; r < n; r++)
      CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, r, at(r, O_REG + 8 * me), GEX_OP_ADD, 1, 0, 0) == 0);
  gex_Event_t ev = gex_NBI_EndAccessRegion(0);
  test_wait(ev);
  gex_NBI_Wait(GEX_EC_ALL, 0);
  for (gex_Rank_t r = 0; r < n; r++) CHECK(get_u64(r, O_REG + 8 * me) == 1000 + (uint64_t)iters);
  test_barrier();
}

static void progress(void) {
  const gex_Rank_t me = T.rank, n = T.size, next = (me + 1) % n;
  volatile uint64_t *flag = mine(O_FLAG);
  if (me == 0) CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, next, at(next, O_FLAG), GEX_OP_SET, 1, 0, 0) == 0);
  /* No NBI sync below until the flag arrived: only polls. */
  while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) gasnet_AMPoll();
  if (me != 0) CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, next, at(next, O_FLAG), GEX_OP_SET, 1, 0, 0) == 0);
  gex_NBI_Wait(GEX_EC_ALL, 0);
  test_barrier();
}

static void *thread_flood(void *arg) {
  const int sync = *(const int *)arg;
  const gex_Rank_t me = T.rank, n = T.size;
  for (long i = 0; i < iters; i++)
    for (gex_Rank_t r = 0; r < n; r++)
      CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, r, at(r, O_THR + 8 * me), GEX_OP_ADD, 1, 0, 0) == 0);
  if (sync) gex_NBI_Wait(GEX_EC_RMW, 0); /* the other thread just ends */
  return NULL;
}

static void threads(void) {
  pthread_t th[2];
  /* Only coalesced operations are promised to complete when their thread
   * ends (docs/coalescing.md); without coalescing both threads sync. */
  const char *co = getenv("GEX_COALESCE");
  int sync[2] = {1, co && atoi(co) <= 1};
  for (int t = 0; t < 2; t++) CHECK(pthread_create(&th[t], NULL, thread_flood, &sync[t]) == 0);
  for (int t = 0; t < 2; t++) CHECK(pthread_join(th[t], NULL) == 0);
  test_barrier();
  for (gex_Rank_t s = 0; s < T.size; s++)
    CHECKF(mine(O_THR)[s] == 2 * (uint64_t)iters, "thread ADDs from rank %u: %" PRIu64,
           (unsigned)s, mine(O_THR)[s]);
  test_barrier();
}

static void immediate(void) {
  const gex_Rank_t me = T.rank, n = T.size;
  uint64_t *ok = calloc(n, sizeof *ok);
  CHECK(ok);
  for (long i = 0; i < iters; i++)
    for (gex_Rank_t r = 0; r < n; r++)
      ok[r] += gex_AD_OpNBI_U64(ad_u64, NULL, r, at(r, O_IMM + 8 * me), GEX_OP_ADD, 1, 0,
                                GEX_FLAG_IMMEDIATE) == 0;
  gex_NBI_Wait(GEX_EC_ALL, 0);
  for (gex_Rank_t r = 0; r < n; r++) CHECK(get_u64(r, O_IMM + 8 * me) == ok[r]);
  free(ok);
  test_barrier();
}

/* Piece k of a Put area: offset and length (1..1100 bytes, 8 pieces). */
static const size_t piece_off[8] = {0, 8, 16, 64, 200, 1300, 2500, 2600};
static const size_t piece_len[8] = {1, 8, 40, 100, 1024, 1100, 7, 1025};

static void put_round(uint64_t round, int in_region) {
  const gex_Rank_t me = T.rank, n = T.size;
  unsigned char src[1200];
  gex_Event_t ev = GEX_EVENT_INVALID;
  if (in_region) gex_NBI_BeginAccessRegion(0);
  for (int k = 0; k < 8; k++)
    for (gex_Rank_t r = 0; r < n; r++) {
      test_fill(src, piece_len[k], test_seed(me, r, (uint64_t)k, round));
      CHECK(gex_RMA_PutNBI(T.tm, r, at(r, O_PUT + PUT_AREA * me + piece_off[k]), src,
                           piece_len[k], GEX_EVENT_DEFER, 0) == 0);
      memset(src, 0xEE, sizeof src); /* the Put took its data already */
      CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, r, at(r, O_THR + 8 * me), GEX_OP_ADD, 1, 0, 0) == 0);
    }
  if (in_region) {
    ev = gex_NBI_EndAccessRegion(0);
    test_wait(ev);
    unsigned char got[1200];
    for (gex_Rank_t r = 0; r < n; r++)
      for (int k = 0; k < 8; k++) {
        CHECK(gex_RMA_GetBlocking(T.tm, got, r, at(r, O_PUT + PUT_AREA * me + piece_off[k]),
                                  piece_len[k], 0) == 0);
        CHECKF(test_verify(got, piece_len[k], test_seed(me, r, (uint64_t)k, round)) < 0,
               "region Put piece %d to rank %u", k, (unsigned)r);
      }
  } else {
    gex_NBI_Wait(GEX_EC_PUT, 0);
  }
  gex_NBI_Wait(GEX_EC_ALL, 0);
  test_barrier();
  for (gex_Rank_t s = 0; s < n; s++)
    for (int k = 0; k < 8; k++)
      CHECKF(test_verify(T.seg_base + O_PUT + PUT_AREA * s + piece_off[k], piece_len[k],
                         test_seed(s, me, (uint64_t)k, round)) < 0,
             "Put piece %d from rank %u, round %" PRIu64, k, (unsigned)s, round);
  test_barrier();
}

static void puts_(void) {
  for (uint64_t round = 1; round <= 20; round++) put_round(round, (int)(round & 1));
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_COALESCE", SEG, NULL, 0);
  CHECK(T.size <= MAXR);
  memset(T.seg_base, 0, SEG); /* (the barrier after gex_AD_Create publishes it) */
  iters = test_iters(3000, 200);
  const gex_OP_t ops = GEX_OP_ADD | GEX_OP_FADD | GEX_OP_XOR | GEX_OP_SET | GEX_OP_GET;
  gex_AD_Create(&ad_u64, T.tm, GEX_DT_U64, ops, 0);
  gex_AD_Create(&ad_i64, T.tm, GEX_DT_I64, GEX_OP_MIN | GEX_OP_MAX, 0);
  gex_AD_Create(&ad_i32, T.tm, GEX_DT_I32, GEX_OP_INC | GEX_OP_DEC, 0);
  gex_AD_Create(&ad_dbl, T.tm, GEX_DT_DBL, GEX_OP_ADD, 0);
  test_barrier(); /* gex_AD_Create does not synchronize */
  test_log0("%ld iterations", iters);
  flood();
  masks();
  region();
  progress();
  threads();
  immediate();
  puts_();
  gex_AD_Destroy(ad_u64);
  gex_AD_Destroy(ad_i64);
  gex_AD_Destroy(ad_i32);
  gex_AD_Destroy(ad_dbl);
  test_finish();
}

/* t_atomic_contend.c -- remote atomics under contention: every rank and NT
 * threads per rank operate on the same location (one per data type, spread
 * over the ranks), NB and NBI forms, all memory-order flag combinations.
 *
 * Phases (each with an exact expected outcome):
 *   mixed   FADD/ADD/INC/FINC/SUB/FDEC: final = start + the sum of all deltas
 *   finc    FINC from 0: final = K (operations in the job) and the fetched
 *           values are exactly 0..K-1 (each recorded in a bitmap with FOR on a
 *           U64 domain, which must not find the bit already set)
 *   casinc  increments by GET + FCAS retry loops: final = K, fetched values
 *           of the successful FCAS are exactly 0..K-1
 *   swap    SWAP of unique ids: the fetched ids plus the final value are
 *           exactly the ids swapped in plus the starting id
 *   minmax  FMAX / MIN of pseudo-random values: the global maximum / minimum
 *   bits    integers: FXOR (XOR of all), MULT by 3 (3^K mod 2^w) and AND of
 *           cleared bits; floating types: FMULT by -1 (sign of (-1)^K)
 */
#include "test_util.h"

#include <gasnet_ratomic.h>
#include <pthread.h>

#define NDT 6
static const gex_DT_t dts[NDT] = {GEX_DT_I32, GEX_DT_U32, GEX_DT_I64,
                                  GEX_DT_U64, GEX_DT_FLT, GEX_DT_DBL};
static const char *const dt_name[NDT] = {"I32", "U32", "I64", "U64", "FLT", "DBL"};
static int is_float(int d) { return d >= 4; }
static int width(int d) { return (d == 0 || d == 1 || d == 4) ? 32 : 64; }

#define NT 4
#define BASE_ITERS 4000
#define CELL_STRIDE 256 /* per data type, in the owner's segment */
#define BM_OFF (CELL_STRIDE * NDT)

static gex_AD_t ad[NDT], bm_ad;
static long N;          /* operations per thread per data type per phase */
static uint64_t K;      /* N * NT * ranks */
static size_t bm_bytes; /* one bitmap per data type, on rank 0 */
static int phase;
static pthread_barrier_t start; /* the threads of a rank start each phase together */

enum { PH_MIXED, PH_FINC, PH_CASINC, PH_SWAP, PH_MINMAX, PH_BITS, NPHASE };
static const char *const ph_name[] = {"mixed", "finc", "casinc", "swap", "minmax", "bits"};

static long iters_upper_bound(void) {
  long v = (long)BASE_ITERS * test_scale_pct() / 100;
  return v < 40 ? 40 : v;
}
static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  uint64_t k = (uint64_t)iters_upper_bound() * NT * n;
  return BM_OFF + NDT * ((k / 64 + 2) * 8) + 4096;
}

/* ---- values as bit patterns of each type --------------------------------------- */
static uint64_t from_i64(int d, int64_t v) {
  if (d == 4) {
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
  }
  if (d == 5) {
    double x = (double)v;
    uint64_t b;
    memcpy(&b, &x, 8);
    return b;
  }
  return width(d) == 32 ? (uint64_t)(uint32_t)v : (uint64_t)v;
}
/* The value of an integer-valued pattern (sign-extended for I32). */
static int64_t to_i64(int d, uint64_t b) {
  if (d == 4) {
    float f;
    uint32_t x = (uint32_t)b;
    memcpy(&f, &x, 4);
    return (int64_t)f;
  }
  if (d == 5) {
    double x;
    memcpy(&x, &b, 8);
    return (int64_t)x;
  }
  if (d == 0) return (int32_t)(uint32_t)b;
  if (d == 1) return (int64_t)(uint32_t)b;
  return (int64_t)b;
}
static uint64_t wmask(int d) { return width(d) == 32 ? 0xFFFFFFFFULL : ~0ULL; }

#define DOOP(DT, TYPE, BT)                                                             \
  static uint64_t do_##DT(int nb, gex_AD_t a, gex_Rank_t tgt, void *addr, gex_OP_t op, \
                          uint64_t o1b, uint64_t o2b, gex_Flags_t fl) {                \
    TYPE res, o1, o2;                                                                  \
    BT b1 = (BT)o1b, b2 = (BT)o2b, rb = 0;                                             \
    memcpy(&res, &rb, sizeof res);                                                     \
    memcpy(&o1, &b1, sizeof o1);                                                       \
    memcpy(&o2, &b2, sizeof o2);                                                       \
    if (nb) {                                                                          \
      gex_Event_Wait(gex_AD_OpNB_##DT(a, &res, tgt, addr, op, o1, o2, fl));            \
    } else {                                                                           \
      CHECK(gex_AD_OpNBI_##DT(a, &res, tgt, addr, op, o1, o2, fl) == 0);               \
      gex_NBI_Wait(GEX_EC_ALL, 0);                                                     \
    }                                                                                  \
    memcpy(&rb, &res, sizeof rb);                                                      \
    return rb;                                                                         \
  }
DOOP(I32, int32_t, uint32_t)
DOOP(U32, uint32_t, uint32_t)
DOOP(I64, int64_t, uint64_t)
DOOP(U64, uint64_t, uint64_t)
DOOP(FLT, float, uint32_t)
DOOP(DBL, double, uint64_t)

static uint64_t op(int d, int nb, gex_Rank_t tgt, void *addr, gex_OP_t o, uint64_t o1, uint64_t o2,
                   gex_Flags_t fl) {
  switch (d) {
    case 0: return do_I32(nb, ad[d], tgt, addr, o, o1, o2, fl);
    case 1: return do_U32(nb, ad[d], tgt, addr, o, o1, o2, fl);
    case 2: return do_I64(nb, ad[d], tgt, addr, o, o1, o2, fl);
    case 3: return do_U64(nb, ad[d], tgt, addr, o, o1, o2, fl);
    case 4: return do_FLT(nb, ad[d], tgt, addr, o, o1, o2, fl);
    default: return do_DBL(nb, ad[d], tgt, addr, o, o1, o2, fl);
  }
}

static gex_Rank_t owner(int d) { return (gex_Rank_t)d % T.size; }
static void *cell(int d, int k) { return T.peer_seg[owner(d)] + d * CELL_STRIDE + k * 8; }
static gex_Flags_t flags_for(long i, int t, gex_Rank_t tgt) {
  gex_Flags_t f = 0;
  if (i & 1) f |= GEX_FLAG_AD_REL;
  if (i & 2) f |= GEX_FLAG_AD_ACQ;
  if ((i + t) % 5 == 0)
    f |= tgt == T.rank ? GEX_FLAG_AD_MY_RANK : test_in_nbrhd(tgt) ? GEX_FLAG_AD_MY_NBRHD : 0;
  return f;
}

/* Record fetched value v of data type d in its bitmap: it must be new. */
static void record(int d, uint64_t v) {
  CHECKF(v <= K, "%s %s: fetched value %" PRIu64 " outside [0,%" PRIu64 "]", dt_name[d],
         ph_name[phase], v, K);
  uint64_t *word = (uint64_t *)(void *)(T.peer_seg[0] + BM_OFF + (size_t)d * bm_bytes) + v / 64;
  const uint64_t bit = 1ULL << (v % 64);
  uint64_t old = 0;
  gex_Event_Wait(gex_AD_OpNB_U64(bm_ad, &old, 0, word, GEX_OP_FOR, bit, 0,
                                 (v & 1) ? GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL : 0));
  CHECKF(!(old & bit), "%s %s: value %" PRIu64 " fetched twice", dt_name[d], ph_name[phase], v);
}

static int64_t rnd_val(gex_Rank_t r, int t, long i, int d) {
  return (int64_t)(test_seed(r, (uint64_t)t, (uint64_t)i, (uint64_t)d) % 1000003);
}
static int64_t delta_of(gex_Rank_t r, int t, long i, gex_OP_t *o) {
  const int64_t k = 1 + (int64_t)((r + (gex_Rank_t)t + (uint64_t)i) % 3);
  switch (i % 6) {
    case 0: *o = GEX_OP_FADD; return k;
    case 1: *o = GEX_OP_ADD; return k;
    case 2: *o = GEX_OP_INC; return 1;
    case 3: *o = GEX_OP_FINC; return 1;
    case 4: *o = GEX_OP_SUB; return -k;
    default: *o = GEX_OP_FDEC; return -1;
  }
}
static uint64_t xor_val(gex_Rank_t r, int t, long i) {
  return test_seed(r, (uint64_t)t, (uint64_t)i, 99);
}
static unsigned and_bit(gex_Rank_t r, int t, long i, int d) {
  return (unsigned)((r * 7 + (gex_Rank_t)t * 3 + (uint64_t)i * 5) % 61) % (unsigned)width(d);
}

static const int64_t START_MIXED = 1000000, START_MIN = 2000000;

static void *worker(void *arg) {
  const int t = (int)(intptr_t)arg;
  const gex_Rank_t me = T.rank;
  pthread_barrier_wait(&start);
  for (int d = 0; d < NDT; d++) {
    const gex_Rank_t tgt = owner(d);
    void *c = cell(d, 0);
    for (long i = 0; i < N; i++) {
      const int nb = (int)((i ^ t) & 1);
      gex_Flags_t fl = flags_for(i, t, tgt);
      switch (phase) {
        case PH_MIXED: {
          gex_OP_t o;
          const int64_t dl = delta_of(me, t, i, &o);
          const int64_t mag = dl < 0 ? -dl : dl;
          op(d, nb, tgt, c, o, from_i64(d, mag), 0, fl);
          break;
        }
        case PH_FINC:
          record(d, (uint64_t)to_i64(d, op(d, nb, tgt, c, GEX_OP_FINC, 0, 0, fl)));
          break;
        case PH_CASINC: {
          uint64_t old = op(d, nb, tgt, c, GEX_OP_GET, 0, 0, 0);
          for (;;) {
            const uint64_t next = from_i64(d, to_i64(d, old) + 1);
            const uint64_t got = op(d, !nb, tgt, c, GEX_OP_FCAS, old, next, fl);
            if (got == old) break;
            old = got;
          }
          record(d, (uint64_t)to_i64(d, old));
          break;
        }
        case PH_SWAP: {
          const int64_t id =
              (int64_t)(((uint64_t)me * NT + (uint64_t)t) * (uint64_t)N + (uint64_t)i);
          record(d, (uint64_t)to_i64(d, op(d, nb, tgt, c, GEX_OP_SWAP, from_i64(d, id), 0, fl)));
          break;
        }
        case PH_MINMAX: {
          const uint64_t v = from_i64(d, rnd_val(me, t, i, d));
          op(d, nb, tgt, c, (i & 4) ? GEX_OP_FMAX : GEX_OP_MAX, v, 0, fl);
          op(d, !nb, tgt, cell(d, 1), (i & 4) ? GEX_OP_MIN : GEX_OP_FMIN, v, 0, fl);
          break;
        }
        default: /* PH_BITS */
          if (is_float(d)) {
            op(d, nb, tgt, cell(d, 1), (i & 1) ? GEX_OP_FMULT : GEX_OP_MULT, from_i64(d, -1), 0,
               fl);
          } else {
            op(d, nb, tgt, c, (i & 1) ? GEX_OP_FXOR : GEX_OP_XOR, xor_val(me, t, i) & wmask(d), 0,
               fl);
            op(d, !nb, tgt, cell(d, 1), (i & 2) ? GEX_OP_FMULT : GEX_OP_MULT, 3, 0, fl);
            op(d, nb, tgt, cell(d, 2), (i & 4) ? GEX_OP_FAND : GEX_OP_AND,
               ~(1ULL << and_bit(me, t, i, d)) & wmask(d), 0, fl);
          }
          break;
      }
    }
  }
  return NULL;
}

/* The owner of each cell sets its starting values (then a barrier). */
static void reset(void) {
  for (int d = 0; d < NDT; d++) {
    if (owner(d) != T.rank) continue;
    uint64_t s0 = 0, s1 = 0, s2 = 0;
    switch (phase) {
      case PH_MIXED: s0 = from_i64(d, START_MIXED); break;
      case PH_SWAP: s0 = from_i64(d, (int64_t)K); break;
      case PH_MINMAX:
        s0 = from_i64(d, 0);
        s1 = from_i64(d, START_MIN);
        break;
      case PH_BITS:
        s0 = 0;
        s1 = is_float(d) ? from_i64(d, 5) : 1;
        s2 = wmask(d);
        break;
      default: break;
    }
    op(d, 1, T.rank, cell(d, 0), GEX_OP_SET, s0, 0, GEX_FLAG_AD_MY_RANK);
    op(d, 0, T.rank, cell(d, 1), GEX_OP_SET, s1, 0, 0);
    op(d, 1, T.rank, cell(d, 2), GEX_OP_SET, s2, 0, GEX_FLAG_AD_REL);
  }
  if (T.rank == 0) memset(T.seg_base + BM_OFF, 0, (size_t)NDT * bm_bytes);
}

static void check_bitmap(int d, uint64_t count) {
  if (T.rank != 0) return;
  const uint64_t *bm = (const uint64_t *)(const void *)(T.seg_base + BM_OFF + (size_t)d * bm_bytes);
  for (uint64_t v = 0; v < count; v++)
    CHECKF(bm[v / 64] & (1ULL << (v % 64)), "%s %s: value %" PRIu64 " was never fetched",
           dt_name[d], ph_name[phase], v);
}

static void verify(void) {
  const gex_Rank_t n = T.size;
  for (int d = 0; d < NDT; d++) {
    const gex_Rank_t tgt = owner(d);
    const uint64_t got0 = op(d, 1, tgt, cell(d, 0), GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ);
    const uint64_t got1 = op(d, 0, tgt, cell(d, 1), GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ);
    const uint64_t got2 = op(d, 1, tgt, cell(d, 2), GEX_OP_GET, 0, 0, 0);
    uint64_t want0 = 0, want1 = 0, want2 = 0;
    switch (phase) {
      case PH_MIXED: {
        int64_t sum = START_MIXED;
        for (gex_Rank_t r = 0; r < n; r++)
          for (int t = 0; t < NT; t++)
            for (long i = 0; i < N; i++) {
              gex_OP_t o;
              sum += delta_of(r, t, i, &o);
            }
        want0 = from_i64(d, sum);
        break;
      }
      case PH_FINC:
      case PH_CASINC:
        want0 = from_i64(d, (int64_t)K);
        check_bitmap(d, K);
        break;
      case PH_SWAP:
        /* the final value is the one id nobody fetched */
        if (T.rank == 0) record(d, (uint64_t)to_i64(d, got0));
        check_bitmap(d, K + 1);
        want0 = got0;
        break;
      case PH_MINMAX: {
        int64_t mx = 0, mn = START_MIN;
        for (gex_Rank_t r = 0; r < n; r++)
          for (int t = 0; t < NT; t++)
            for (long i = 0; i < N; i++) {
              const int64_t v = rnd_val(r, t, i, d);
              if (v > mx) mx = v;
              if (v < mn) mn = v;
            }
        want0 = from_i64(d, mx);
        want1 = from_i64(d, mn);
        break;
      }
      default: {
        if (is_float(d)) {
          want1 = from_i64(d, (K % 2) ? -5 : 5);
          want2 = wmask(d); /* untouched */
          break;
        }
        uint64_t x = 0, m = 1, a = wmask(d);
        for (gex_Rank_t r = 0; r < n; r++)
          for (int t = 0; t < NT; t++)
            for (long i = 0; i < N; i++) {
              x ^= xor_val(r, t, i) & wmask(d);
              m *= 3;
              a &= ~(1ULL << and_bit(r, t, i, d));
            }
        want0 = x;
        want1 = m & wmask(d);
        want2 = a;
        break;
      }
    }
    CHECKF(got0 == want0, "%s %s: final %#" PRIx64 ", want %#" PRIx64, dt_name[d], ph_name[phase],
           got0, want0);
    CHECKF(got1 == want1, "%s %s: second cell %#" PRIx64 ", want %#" PRIx64, dt_name[d],
           ph_name[phase], got1, want1);
    CHECKF(got2 == want2, "%s %s: third cell %#" PRIx64 ", want %#" PRIx64, dt_name[d],
           ph_name[phase], got2, want2);
  }
}

int main(int argc, char **argv) {
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_ATOMIC_CONTEND", 0, NULL, 0);
  N = test_iters(BASE_ITERS, 40);
  /* GEX_AD_FORCE_AM=1: every operation is a round trip through the target's
   * process (which must get a CPU to run the handler): a quarter of the work */
  const char *fa = getenv("GEX_AD_FORCE_AM");
  gex_Rank_t nb_size = 0;
  gex_System_QueryNbrhdInfo(NULL, &nb_size, NULL);
  if (fa && *fa && strcmp(fa, "0") != 0) N = N / 4 < 40 ? 40 : N / 4;
  /* peers on other hosts: each operation is a network round trip */
  if (nb_size != T.size) N = N / 16 < 40 ? 40 : N / 16;
  if (N > iters_upper_bound()) N = iters_upper_bound();
  K = (uint64_t)N * NT * T.size;
  bm_bytes = (size_t)(K / 64 + 2) * 8;
  CHECK(BM_OFF + NDT * bm_bytes <= T.seg_size);

  const gex_OP_t common = GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_ADD |
                          GEX_OP_FADD | GEX_OP_SUB | GEX_OP_INC | GEX_OP_FINC | GEX_OP_FDEC |
                          GEX_OP_MAX | GEX_OP_FMAX | GEX_OP_MIN | GEX_OP_FMIN | GEX_OP_MULT |
                          GEX_OP_FMULT;
  for (int d = 0; d < NDT; d++)
    gex_AD_Create(&ad[d], T.tm, dts[d],
                  common | (is_float(d) ? 0 : GEX_OP_XOR | GEX_OP_FXOR | GEX_OP_AND | GEX_OP_FAND),
                  0);
  gex_AD_Create(&bm_ad, T.tm, GEX_DT_U64, GEX_OP_FOR, GEX_FLAG_AD_FAVOR_MY_NBRHD);
  test_log0("%d threads per rank, %ld operations per thread, type and phase (K=%" PRIu64 ")", NT, N,
            K);

  CHECK(pthread_barrier_init(&start, NULL, NT) == 0);
  for (phase = 0; phase < NPHASE; phase++) {
    reset();
    test_barrier();
    pthread_t th[NT];
    for (int t = 1; t < NT; t++)
      CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
    worker((void *)(intptr_t)0);
    for (int t = 1; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0);
    test_barrier();
    verify();
    test_barrier();
  }
  for (int d = 0; d < NDT; d++) gex_AD_Destroy(ad[d]);
  gex_AD_Destroy(bm_ad);
  test_finish();
}

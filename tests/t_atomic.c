/* t_atomic.c -- remote atomics: every data type x every operation, to every
 * rank including self, in NB and NBI form, with each memory-ordering flag
 * combination and the rank/hint/IMMEDIATE flags; edge values (0, -1, MIN,
 * MAX, -0.0, NaN, infinities, denormals) and random bit patterns.
 *
 * Each case: SET the initial value, run the operation, GET the result; the
 * fetched value (fetching ops) and the final value are compared with a serial
 * reference computed here; non-fetching ops must leave *result_p alone.
 * After a barrier every rank reads its slots back with gex_RMA_Get: the final
 * values are in the target's segment and the bytes next to a 4-byte target
 * are untouched.  Also: the gex_AD_Query* calls, CData, FAVOR flags,
 * domains with a subset of the operations, and gex_AD_Destroy.
 */
#include "test_util.h"

#include <sched.h>
#include <float.h>
#include <gasnet_ratomic.h>
#include <math.h>

#define TYPES(X)                \
  X(I32, int32_t, uint32_t, 1)  \
  X(U32, uint32_t, uint32_t, 1) \
  X(I64, int64_t, uint64_t, 1)  \
  X(U64, uint64_t, uint64_t, 1) \
  X(FLT, float, uint32_t, 0)    \
  X(DBL, double, uint64_t, 0)

static const gex_DT_t dts[] = {GEX_DT_I32, GEX_DT_U32, GEX_DT_I64,
                               GEX_DT_U64, GEX_DT_FLT, GEX_DT_DBL};
static const char *const dt_name[] = {"I32", "U32", "I64", "U64", "FLT", "DBL"};
static const size_t dt_size[] = {4, 4, 8, 8, 4, 8};
#define NDT 6

static const gex_OP_t ops[] = {GEX_OP_SET,  GEX_OP_GET,  GEX_OP_SWAP, GEX_OP_CAS,  GEX_OP_FCAS,
                               GEX_OP_ADD,  GEX_OP_FADD, GEX_OP_SUB,  GEX_OP_FSUB, GEX_OP_INC,
                               GEX_OP_FINC, GEX_OP_DEC,  GEX_OP_FDEC, GEX_OP_MULT, GEX_OP_FMULT,
                               GEX_OP_MIN,  GEX_OP_FMIN, GEX_OP_MAX,  GEX_OP_FMAX, GEX_OP_AND,
                               GEX_OP_FAND, GEX_OP_OR,   GEX_OP_FOR,  GEX_OP_XOR,  GEX_OP_FXOR};
static const char *const op_name[] = {"SET",   "GET",  "SWAP", "CAS",  "FCAS", "ADD",  "FADD",
                                      "SUB",   "FSUB", "INC",  "FINC", "DEC",  "FDEC", "MULT",
                                      "FMULT", "MIN",  "FMIN", "MAX",  "FMAX", "AND",  "FAND",
                                      "OR",    "FOR",  "XOR",  "FXOR"};
#define NOPS 25
#define BITWISE (GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
#define FETCHING                                                                       \
  (GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FINC |  \
   GEX_OP_FDEC | GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FAND | GEX_OP_FOR | \
   GEX_OP_FXOR)

#define NVAR 8 /* memory order (4) x form (NB, NBI) */
#define NVAL 6 /* value sets per (type, op, variant) */
#define SLOT 8
#define REGION ((size_t)NDT * NOPS * NVAR * NVAL * SLOT) /* per writer, in every segment */
#define GUARD 0xA5
#define SENTINEL 0x5A5A5A5A5A5A5A5AULL

static size_t slot_of(int d, int o, int var, int vi) {
  return ((((size_t)d * NOPS + (size_t)o) * NVAR + (size_t)var) * NVAL + (size_t)vi) * SLOT;
}

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return REGION * n + 8 * (uintptr_t)n; /* + one access-region cell per writer */
}

/* ---- values ---------------------------------------------------------------- */
static uint64_t f2b(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}
static uint64_t d2b(double d) {
  uint64_t b;
  memcpy(&b, &d, 8);
  return b;
}

/* An edge value or random bits for type d, chosen by 'seed'. */
static uint64_t pick(int d, uint64_t seed) {
  uint64_t r = test_mix(seed);
  unsigned k = (unsigned)(r % 20);
  r = test_mix(r);
  switch (dts[d]) {
    case GEX_DT_I32:
    case GEX_DT_U32: {
      static const uint32_t e[] = {0, 1, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 2, 0x55555555u, 3};
      return k < 8 ? e[k] : (k < 12 ? (uint32_t)(r % 100) : (uint32_t)r);
    }
    case GEX_DT_I64:
    case GEX_DT_U64: {
      static const uint64_t e[] = {0,
                                   1,
                                   ~0ULL,
                                   0x8000000000000000ULL,
                                   0x7FFFFFFFFFFFFFFFULL,
                                   2,
                                   0x5555555555555555ULL,
                                   0xFFFFFFFFULL};
      return k < 8 ? e[k] : (k < 12 ? r % 100 : r);
    }
    case GEX_DT_FLT: {
      const float e[] = {0.0f,      -0.0f, 1.0f,    -1.5f,        3.25e7f, INFINITY,
                         -INFINITY, NAN,   FLT_MAX, FLT_TRUE_MIN, 1e-3f};
      if (k < 11) return f2b(e[k]);
      if (k < 16) return f2b((float)((int)(r % 2001) - 1000) / 8.0f);
      return (uint32_t)r;
    }
    default: {
      const double e[] = {0.0,      -0.0,      1.0, -1.5,    3.25e300,
                          INFINITY, -INFINITY, NAN, DBL_MAX, 4.9406564584124654e-324,
                          1e-3};
      if (k < 11) return d2b(e[k]);
      if (k < 16) return d2b((double)((int)(r % 2001) - 1000) / 8.0);
      return r;
    }
  }
}

/* ---- serial reference: (fetched, final) bit patterns ---------------------------- */
#define REF(DT, TYPE, BT, IS_INT)                                                              \
  static void ref_##DT(gex_OP_t op, uint64_t v0b, uint64_t o1b, uint64_t o2b, uint64_t *fin) { \
    BT b0 = (BT)v0b, b1 = (BT)o1b, b2 = (BT)o2b, r;                                            \
    TYPE v0, o1, t;                                                                            \
    memcpy(&v0, &b0, sizeof v0);                                                               \
    memcpy(&o1, &b1, sizeof o1);                                                               \
    gex_OP_t base = (op & (0xFFFu << GEXI_OP_FETCH_SHIFT)) ? GEX_OP_TO_NONFETCHING(op) : op;    \
    switch (base) {                                                                            \
      case GEX_OP_ADD:                                                                         \
        if (IS_INT)                                                                            \
          r = (BT)(b0 + b1);                                                                   \
        else {                                                                                 \
          t = v0 + o1;                                                                         \
          memcpy(&r, &t, sizeof r);                                                            \
        }                                                                                      \
        break;                                                                                 \
      case GEX_OP_SUB:                                                                         \
        if (IS_INT)                                                                            \
          r = (BT)(b0 - b1);                                                                   \
        else {                                                                                 \
          t = v0 - o1;                                                                         \
          memcpy(&r, &t, sizeof r);                                                            \
        }                                                                                      \
        break;                                                                                 \
      case GEX_OP_INC:                                                                         \
        if (IS_INT)                                                                            \
          r = (BT)(b0 + 1u);                                                                   \
        else {                                                                                 \
          t = v0 + 1;                                                                          \
          memcpy(&r, &t, sizeof r);                                                            \
        }                                                                                      \
        break;                                                                                 \
      case GEX_OP_DEC:                                                                         \
        if (IS_INT)                                                                            \
          r = (BT)(b0 - 1u);                                                                   \
        else {                                                                                 \
          t = v0 - 1;                                                                          \
          memcpy(&r, &t, sizeof r);                                                            \
        }                                                                                      \
        break;                                                                                 \
      case GEX_OP_MULT:                                                                        \
        if (IS_INT)                                                                            \
          r = (BT)(b0 * b1);                                                                   \
        else {                                                                                 \
          t = v0 * o1;                                                                         \
          memcpy(&r, &t, sizeof r);                                                            \
        }                                                                                      \
        break;                                                                                 \
      case GEX_OP_MIN: r = (v0 < o1) ? b0 : b1; break;                                         \
      case GEX_OP_MAX: r = (v0 > o1) ? b0 : b1; break;                                         \
      case GEX_OP_AND: r = b0 & b1; break;                                                     \
      case GEX_OP_OR: r = b0 | b1; break;                                                      \
      case GEX_OP_XOR: r = b0 ^ b1; break;                                                     \
      case GEX_OP_SET: r = b1; break;                                                          \
      case GEX_OP_CAS: r = (v0 == o1) ? b2 : b0; break;                                        \
      case GEX_OP_GET: r = b0; break;                                                          \
      default: test_fail(__FILE__, __LINE__, "ref", "opcode 0x%x", (unsigned)op);              \
    }                                                                                          \
    *fin = r;                                                                                  \
  }
TYPES(REF)

static uint64_t ref_final(int d, gex_OP_t op, uint64_t v0, uint64_t o1, uint64_t o2) {
  uint64_t f = 0;
  switch (dts[d]) {
    case GEX_DT_I32: ref_I32(op, v0, o1, o2, &f); break;
    case GEX_DT_U32: ref_U32(op, v0, o1, o2, &f); break;
    case GEX_DT_I64: ref_I64(op, v0, o1, o2, &f); break;
    case GEX_DT_U64: ref_U64(op, v0, o1, o2, &f); break;
    case GEX_DT_FLT: ref_FLT(op, v0, o1, o2, &f); break;
    default: ref_DBL(op, v0, o1, o2, &f); break;
  }
  return f;
}

/* Equal bit patterns, or both NaN of the floating type. */
static int same(int d, uint64_t a, uint64_t b) {
  if (a == b) return 1;
  if (dts[d] == GEX_DT_FLT) {
    float x, y;
    uint32_t xa = (uint32_t)a, yb = (uint32_t)b;
    memcpy(&x, &xa, 4);
    memcpy(&y, &yb, 4);
    return isnan(x) && isnan(y);
  }
  if (dts[d] == GEX_DT_DBL) {
    double x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    return isnan(x) && isnan(y);
  }
  return 0;
}

/* GEX_AD_FORCE_AM=1 (set by ctest for the "atomam" runs): every operation is
 * an Active Message, so it completes after the call returns. */
static int force_am;

/* ---- one operation through the typed API -------------------------------------- */
static gex_EC_t ec_of(gex_OP_t op) {
  return op == GEX_OP_SET ? GEX_EC_PUT : op == GEX_OP_GET ? GEX_EC_GET : GEX_EC_RMW;
}

/* *resb: in: the sentinel placed in the result; out: the result's bits. */
#define DOOP(DT, TYPE, BT, IS_INT)                                                              \
  static void do_##DT(int nb, gex_AD_t ad, int null_res, uint64_t *resb, gex_Rank_t tgt,        \
                      void *addr, gex_OP_t op, uint64_t o1b, uint64_t o2b, gex_Flags_t fl) {    \
    TYPE res, o1, o2;                                                                           \
    BT rb = (BT)*resb, b1 = (BT)o1b, b2 = (BT)o2b;                                              \
    memcpy(&res, &rb, sizeof res);                                                              \
    memcpy(&o1, &b1, sizeof o1);                                                                \
    memcpy(&o2, &b2, sizeof o2);                                                                \
    TYPE *rp = null_res ? NULL : &res;                                                          \
    if (nb) {                                                                                   \
      gex_Event_t ev;                                                                           \
      while ((ev = gex_AD_OpNB_##DT(ad, rp, tgt, addr, op, o1, o2, fl)) == GEX_EVENT_NO_OP) {   \
        /* IMMEDIATE may refuse only an AM-carried operation */                                \
        CHECKF(force_am && (fl & GEX_FLAG_IMMEDIATE), "gex_AD_OpNB_" #DT " returned NO_OP");    \
        gasnet_AMPoll();                                                                        \
      }                                                                                         \
      if (!force_am) {                                                                          \
        CHECKF(ev == GEX_EVENT_INVALID, "on-node gex_AD_OpNB_" #DT " returned an event");       \
        gex_Event_Wait(ev);                                                                     \
      } else if (fl & GEX_FLAG_AD_REL) {                                                        \
        /* Test alone must make progress on an AM-completed event */                          \
        while (gex_Event_Test(ev) != GASNET_OK) {                                               \
          sched_yield(); /* Test alone polls: no AMPoll here */                                 \
        }                                                                                       \
      } else {                                                                                  \
        gex_Event_Wait(ev);                                                                     \
      }                                                                                         \
    } else {                                                                                    \
      while (gex_AD_OpNBI_##DT(ad, rp, tgt, addr, op, o1, o2, fl) != 0) {                       \
        CHECKF(force_am && (fl & GEX_FLAG_IMMEDIATE), "gex_AD_OpNBI_" #DT " returned non-zero"); \
        gasnet_AMPoll();                                                                        \
      }                                                                                         \
      if (!force_am)                                                                            \
        CHECK(gex_NBI_Test(ec_of(op), 0) == GASNET_OK);                                         \
      else if (fl & GEX_FLAG_AD_ACQ)                                                            \
        while (gex_NBI_Test(ec_of(op), 0) != GASNET_OK) {                                       \
          sched_yield(); /* Test alone polls: no AMPoll here */                                 \
        }                                                                                       \
      gex_NBI_Wait(ec_of(op), 0);                                                               \
    }                                                                                           \
    memcpy(&rb, &res, sizeof rb);                                                               \
    *resb = rb;                                                                                 \
  }
TYPES(DOOP)

static void do_op(int d, int nb, gex_AD_t ad, int null_res, uint64_t *resb, gex_Rank_t tgt,
                  void *addr, gex_OP_t op, uint64_t o1, uint64_t o2, gex_Flags_t fl) {
  switch (dts[d]) {
    case GEX_DT_I32: do_I32(nb, ad, null_res, resb, tgt, addr, op, o1, o2, fl); break;
    case GEX_DT_U32: do_U32(nb, ad, null_res, resb, tgt, addr, op, o1, o2, fl); break;
    case GEX_DT_I64: do_I64(nb, ad, null_res, resb, tgt, addr, op, o1, o2, fl); break;
    case GEX_DT_U64: do_U64(nb, ad, null_res, resb, tgt, addr, op, o1, o2, fl); break;
    case GEX_DT_FLT: do_FLT(nb, ad, null_res, resb, tgt, addr, op, o1, o2, fl); break;
    default: do_DBL(nb, ad, null_res, resb, tgt, addr, op, o1, o2, fl); break;
  }
}

static uint64_t mask_of(int d) { return dt_size[d] == 8 ? ~0ULL : 0xFFFFFFFFULL; }

int main(int argc, char **argv) {
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_ATOMIC", 0, NULL, 0);
  const char *fa = getenv("GEX_AD_FORCE_AM");
  force_am = fa && *fa && strcmp(fa, "0") != 0;
  /* Peers on other hosts are reached through AMs too: the same relaxed
   * expectations (events, IMMEDIATE refusals, NBI not complete at once). */
  gex_Rank_t nb_size = 0;
  gex_System_QueryNbrhdInfo(NULL, &nb_size, NULL);
  if (nb_size != gex_System_QueryJobSize()) force_am = 1;
  const gex_Rank_t me = T.rank, n = T.size;
  memset(T.seg_base, GUARD, REGION * n);
  test_barrier();

  /* ---- domains and their queries ---- */
  gex_AD_t ad[NDT];
  int cdata_tag[NDT];
  for (int d = 0; d < NDT; d++) {
    gex_OP_t all = 0;
    for (int o = 0; o < NOPS; o++) all |= ops[o];
    if (dts[d] == GEX_DT_FLT || dts[d] == GEX_DT_DBL) all &= ~(gex_OP_t)BITWISE;
    ad[d] = GEX_AD_INVALID;
    gex_AD_Create(&ad[d], T.tm, dts[d], all, 0);
    CHECK(ad[d] != GEX_AD_INVALID);
    CHECK(gex_AD_QueryDT(ad[d]) == dts[d]);
    CHECK(gex_AD_QueryOps(ad[d]) == all);
    CHECK(gex_AD_QueryFlags(ad[d]) == 0);
    CHECK(gex_AD_QueryTM(ad[d]) == T.tm);
    CHECK(gex_AD_QueryCData(ad[d]) == NULL);
    gex_AD_SetCData(ad[d], &cdata_tag[d]);
  }
  for (int d = 0; d < NDT; d++) {
    CHECK(gex_AD_QueryCData(ad[d]) == &cdata_tag[d]);
    for (int e = 0; e < d; e++) CHECK(ad[e] != ad[d]);
  }

  /* ---- every case, every target ---- */
  uint64_t *expect = malloc(REGION / SLOT * n * sizeof(uint64_t));
  CHECK(expect != NULL);
  long cases = 0;
  for (gex_Rank_t i = 0; i < n; i++) {
    const gex_Rank_t p = (me + i) % n;
    const gex_Rank_t pj = gex_TM_TranslateRankToJobrank(T.tm, p);
    for (int d = 0; d < NDT; d++) {
      const int is_float = dts[d] == GEX_DT_FLT || dts[d] == GEX_DT_DBL;
      for (int o = 0; o < NOPS; o++) {
        const gex_OP_t op = ops[o];
        if (is_float && (op & BITWISE)) continue;
        for (int var = 0; var < NVAR; var++) {
          const int nb = var >> 2;
          gex_Flags_t fl = (var & 1 ? GEX_FLAG_AD_ACQ : 0) | (var & 2 ? GEX_FLAG_AD_REL : 0);
          for (int vi = 0; vi < NVAL; vi++) {
            const size_t off = REGION * me + slot_of(d, o, var, vi);
            void *addr = T.peer_seg[p] + off;
            const uint64_t seed =
                test_seed(me, p, (uint64_t)(d * 1000 + o), (uint64_t)(var * 10 + vi));
            const uint64_t v0 = pick(d, seed);
            uint64_t o1 = pick(d, seed + 1), o2 = pick(d, seed + 2);
            if ((op == GEX_OP_CAS || op == GEX_OP_FCAS) && vi % 2 == 0) o1 = v0; /* a match */
            if ((op == GEX_OP_CAS || op == GEX_OP_FCAS) && vi == 3 && is_float)
              o1 = v0 ^ (dt_size[d] == 8 ? 0x8000000000000000ULL : 0x80000000ULL); /* -x */
            gex_Rank_t tgt = p;
            gex_Flags_t f = fl;
            switch ((vi + o) % 4) {
              case 1:
                f |= GEX_FLAG_RANK_IS_JOBRANK;
                tgt = pj;
                break;
              case 2: f |= p == me ? GEX_FLAG_AD_MY_RANK : test_in_nbrhd(p) ? GEX_FLAG_AD_MY_NBRHD : 0; break;
              case 3: f |= GEX_FLAG_IMMEDIATE; break;
              default: break;
            }
            const int fetching = (op & FETCHING) != 0;
            const int null_res = !fetching && (vi % 2);

            uint64_t dummy = SENTINEL;
            do_op(d, vi % 2, ad[d], 1, &dummy, p, addr, GEX_OP_SET, v0, 0, 0);
            uint64_t res = SENTINEL & mask_of(d);
            do_op(d, nb, ad[d], null_res, &res, tgt, addr, op, o1, o2, f);
            uint64_t fin = SENTINEL & mask_of(d);
            do_op(d, !nb, ad[d], 0, &fin, p, addr, GEX_OP_GET, 0, 0, var & 1 ? GEX_FLAG_AD_ACQ : 0);

            const uint64_t want = ref_final(d, op, v0, o1, o2);
            CHECKF(same(d, fin, want),
                   "%s %s rank %u -> %u var %d: v0 %#" PRIx64 " op1 %#" PRIx64 " op2 %#" PRIx64
                   ": final %#" PRIx64 ", want %#" PRIx64,
                   dt_name[d], op_name[o], me, p, var, v0, o1, o2, fin, want);
            if (fetching)
              CHECKF(res == v0, "%s %s rank %u -> %u var %d: fetched %#" PRIx64 ", want %#" PRIx64,
                     dt_name[d], op_name[o], me, p, var, res, v0);
            else
              CHECKF(res == (SENTINEL & mask_of(d)),
                     "%s %s (non-fetching) wrote the result: %#" PRIx64, dt_name[d], op_name[o],
                     res);
            expect[(size_t)p * (REGION / SLOT) + slot_of(d, o, var, vi) / SLOT] = want;
            cases++;
          }
        }
      }
    }
  }
  test_log0("%ld cases per rank", cases);

  /* ---- the values are in the targets' segments; neighbours untouched ---- */
  test_barrier();
  unsigned char *buf = malloc(REGION);
  CHECK(buf != NULL);
  for (gex_Rank_t p = 0; p < n; p++) {
    CHECK(gex_RMA_GetBlocking(T.tm, buf, p, T.peer_seg[p] + REGION * me, REGION, 0) == 0);
    for (int d = 0; d < NDT; d++) {
      const int is_float = dts[d] == GEX_DT_FLT || dts[d] == GEX_DT_DBL;
      for (int o = 0; o < NOPS; o++)
        for (int var = 0; var < NVAR; var++)
          for (int vi = 0; vi < NVAL; vi++) {
            const size_t s = slot_of(d, o, var, vi);
            if (is_float && (ops[o] & BITWISE)) {
              CHECK_BYTES(buf + s, SLOT, GUARD);
              continue;
            }
            uint64_t got = 0;
            if (dt_size[d] == 4) {
              uint32_t g;
              memcpy(&g, buf + s, 4);
              got = g;
              CHECK_BYTES(buf + s + 4, 4, GUARD);
            } else {
              memcpy(&got, buf + s, 8);
            }
            const uint64_t want = expect[(size_t)p * (REGION / SLOT) + s / SLOT];
            CHECKF(same(d, got, want), "%s %s at rank %u: %#" PRIx64 " in memory, want %#" PRIx64,
                   dt_name[d], op_name[o], p, got, want);
          }
    }
  }
  free(buf);
  free(expect);
  test_barrier();
  for (int d = 0; d < NDT; d++) gex_AD_Destroy(ad[d]);

  /* ---- FAVOR flags, a subset of operations, several domains at once ---- */
  const gex_Flags_t favor[] = {GEX_FLAG_AD_FAVOR_MY_RANK, GEX_FLAG_AD_FAVOR_MY_NBRHD,
                               GEX_FLAG_AD_FAVOR_REMOTE};
  gex_AD_t sub[3];
  for (int k = 0; k < 3; k++) {
    gex_AD_Create(&sub[k], T.tm, GEX_DT_DBL, GEX_OP_FADD | GEX_OP_GET | GEX_OP_SET, favor[k]);
    CHECK(gex_AD_QueryFlags(sub[k]) == favor[k]);
    CHECK(gex_AD_QueryOps(sub[k]) == (GEX_OP_FADD | GEX_OP_GET | GEX_OP_SET));
  }
  /* rank r adds (k+1) * (r+1) to a double on rank 0, through domain k */
  double *cell = (double *)(void *)T.peer_seg[0];
  if (me == 0) {
    for (int k = 0; k < 3; k++)
      gex_AD_OpNBI_DBL(sub[k], NULL, 0, cell + k, GEX_OP_SET, 0.0, 0.0, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
  }
  test_barrier();
  for (int k = 0; k < 3; k++) {
    double old = -1;
    gex_Event_t ev =
        gex_AD_OpNB_DBL(sub[k], &old, 0, cell + k, GEX_OP_FADD, (double)((k + 1) * (me + 1)), 0, 0);
    gex_Event_Wait(ev);
    CHECK(old >= 0);
  }
  test_barrier();
  for (int k = 0; k < 3; k++) {
    double v = -1;
    gex_Event_Wait(gex_AD_OpNB_DBL(sub[k], &v, 0, cell + k, GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ));
    double want = (double)(k + 1) * (double)n * (double)(n + 1) / 2.0;
    CHECKF(v == want, "domain %d: sum %g, want %g", k, v, want);
  }
  test_barrier();
  for (int k = 0; k < 3; k++) gex_AD_Destroy(sub[k]);

  /* ---- NBI operations inside an access region belong to its event ---- */
  {
    gex_AD_t rad;
    gex_AD_Create(&rad, T.tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_INC | GEX_OP_GET | GEX_OP_SET, 0);
    enum { KR = 40 };
    uint64_t *mine = (uint64_t *)(void *)(T.seg_base + REGION * n); /* one cell per writer */
    for (gex_Rank_t r = 0; r < n; r++) mine[r] = 0;
    test_barrier();
    uint64_t *got = malloc((size_t)n * KR * sizeof *got);
    CHECK(got != NULL);
    for (size_t i = 0; i < (size_t)n * KR; i++) got[i] = SENTINEL;
    gex_NBI_BeginAccessRegion(0);
    for (int i = 0; i < KR; i++)
      for (gex_Rank_t k = 0; k < n; k++) {
        const gex_Rank_t p = (me + k) % n;
        uint64_t *c = (uint64_t *)(void *)(T.peer_seg[p] + REGION * n) + me;
        if (i % 4 == 3)
          CHECK(gex_AD_OpNBI_U64(rad, NULL, p, c, GEX_OP_INC, 0, 0, 0) == 0);
        else
          CHECK(gex_AD_OpNBI_U64(rad, &got[(size_t)p * KR + (size_t)i], p, c, GEX_OP_FADD, 1, 0,
                                 i & 1 ? GEX_FLAG_AD_REL : 0) == 0);
      }
    gex_Event_t rev = gex_NBI_EndAccessRegion(0);
    /* Provider-native operations (GEX_AD_NATIVE) may all have completed
     * already (their completions are reaped whenever the thread polls):
     * then the region's event may be GEX_EVENT_INVALID. */
    const char *nat = getenv("GEX_AD_NATIVE");
    if (!(nat && *nat && strcmp(nat, "0") != 0 && strcmp(nat, "auto") != 0))
      CHECK(force_am ? rev != GEX_EVENT_INVALID : rev == GEX_EVENT_INVALID);
    /* none of them is in this thread's NBI set */
    CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK);
    gex_Event_Wait(rev);
    /* a second region with nothing in it */
    gex_NBI_BeginAccessRegion(0);
    test_wait(gex_NBI_EndAccessRegion(0));
    for (gex_Rank_t p = 0; p < n; p++) {
      unsigned char seen[KR] = {0};
      for (int i = 0; i < KR; i++) {
        if (i % 4 == 3) continue;
        const uint64_t v = got[(size_t)p * KR + (size_t)i];
        CHECKF(v < KR && !seen[v], "access region: FADD %d on rank %u fetched %" PRIu64, i, p, v);
        seen[v] = 1;
      }
    }
    free(got);
    test_barrier();
    for (gex_Rank_t r = 0; r < n; r++) {
      uint64_t v = 0;
      gex_Event_Wait(gex_AD_OpNB_U64(rad, &v, me, &mine[r], GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ));
      CHECKF(v == KR, "access region: cell of writer %u holds %" PRIu64 ", want %d", r, v, KR);
    }
    test_barrier();
    gex_AD_Destroy(rad);
  }

  test_finish();
}

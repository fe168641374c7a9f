/* atomic/ad_ops.c -- gex_AD_OpNB_<DT> and gex_AD_OpNBI_<DT>.
 *
 * Everything here is generated once per data type by GEXI_AD_TYPES below.
 * For a target on this node an operation is: (checks builds) one combined
 * validity test, a peer-table load, then one CPU atomic on the target's
 * segment as mapped here, selected by a jump table on the opcode's bit
 * number.  No locks, no allocation, no indirect calls; the call is complete
 * when it returns.
 *
 * Atomics work on the bit pattern of the value (an unsigned integer of the
 * same width), so every type shares one code shape:
 *   - integer ADD/SUB/INC/DEC/AND/OR/XOR, SET, SWAP, GET and (F)CAS map to
 *     one __atomic builtin (two's-complement wrap-around for signed types);
 *   - MULT (all types), MIN/MAX (all types) and floating-point arithmetic are
 *     compare-exchange loops on the bit pattern, computing the new value with
 *     the C expression of the specification (so NaN and -0.0 behave as C);
 *   - floating-point (F)CAS compares values as C does (== on the float), then
 *     swaps the bit pattern it compared; CAS is never spuriously failing.
 *
 * Memory order: relaxed unless the flags ask for more.  GEX_FLAG_AD_REL makes
 * the atomic a release operation, GEX_FLAG_AD_ACQ an acquire operation (both:
 * acq_rel).  The order is attached to the atomic itself rather than built from
 * separate fences: same guarantees in the C11 model, and ThreadSanitizer
 * understands it (GCC rejects __atomic_thread_fence under -fsanitize=thread).
 * A SET with ACQ is done as an exchange and a GET with REL as a fetch-or of 0,
 * since C11 has no acquire store or release load.
 */
#include <string.h>

#include "atomic/ad.h"

/* name, C type, bit-pattern type, 1 for integer types */
#define GEXI_AD_TYPES(X)        \
  X(I32, int32_t, uint32_t, 1)  \
  X(U32, uint32_t, uint32_t, 1) \
  X(I64, int64_t, uint64_t, 1)  \
  X(U64, uint64_t, uint64_t, 1) \
  X(FLT, float, uint32_t, 0)    \
  X(DBL, double, uint64_t, 0)

/* Bit number of each opcode: the switch index (a dense jump table). */
enum {
  IX_AND = 0,
  IX_OR = 1,
  IX_XOR = 2,
  IX_ADD = 3,
  IX_SUB = 4,
  IX_MULT = 5,
  IX_MIN = 6,
  IX_MAX = 7,
  IX_INC = 8,
  IX_DEC = 9,
  IX_SET = 10,
  IX_CAS = 11,
  IX_GET = 27,
  IX_FETCH = GEXI_OP_FETCH_SHIFT /* fetching op = non-fetching op's index + 15 */
};
_Static_assert(GEX_OP_ADD == 1u << IX_ADD && GEX_OP_MULT == 1u << IX_MULT &&
                   GEX_OP_MIN == 1u << IX_MIN && GEX_OP_MAX == 1u << IX_MAX &&
                   GEX_OP_SUB == 1u << IX_SUB && GEX_OP_INC == 1u << IX_INC &&
                   GEX_OP_DEC == 1u << IX_DEC && GEX_OP_AND == 1u << IX_AND &&
                   GEX_OP_OR == 1u << IX_OR && GEX_OP_XOR == 1u << IX_XOR &&
                   GEX_OP_SET == 1u << IX_SET && GEX_OP_CAS == 1u << IX_CAS &&
                   GEX_OP_GET == 1u << IX_GET,
               "opcode bit numbers");
_Static_assert(GEX_OP_FADD == GEX_OP_ADD << IX_FETCH && GEX_OP_FMULT == GEX_OP_MULT << IX_FETCH &&
                   GEX_OP_FMIN == GEX_OP_MIN << IX_FETCH && GEX_OP_FMAX == GEX_OP_MAX << IX_FETCH &&
                   GEX_OP_FSUB == GEX_OP_SUB << IX_FETCH && GEX_OP_FINC == GEX_OP_INC << IX_FETCH &&
                   GEX_OP_FDEC == GEX_OP_DEC << IX_FETCH && GEX_OP_FAND == GEX_OP_AND << IX_FETCH &&
                   GEX_OP_FOR == GEX_OP_OR << IX_FETCH && GEX_OP_FXOR == GEX_OP_XOR << IX_FETCH &&
                   GEX_OP_SWAP == GEX_OP_SET << IX_FETCH && GEX_OP_FCAS == GEX_OP_CAS << IX_FETCH,
               "fetching opcodes are their non-fetching partner shifted by IX_FETCH");

/* An opcode of more than one bit is misuse (caught by checks builds); 0 goes
 * to the default case. */
#define GEXI_AD_OPIX(op) __builtin_ctz((op) | 0x80000000u)

#define GEXI_AD_ALWAYS_INLINE static inline __attribute__((always_inline))
#define GEXI_AD_NOINLINE static __attribute__((noinline))

/* Value <-> bit pattern of data type DT. */
#define GB(DT, x) gexi_ad_bits_##DT(x)
#define GV(DT, x) gexi_ad_val_##DT(x)

/* The four memory-order instances: suffix, read-modify-write order, order of
 * a plain load (and of a failed compare-exchange), order of a plain store. */
#define GEXI_AD_ORDERS(X, ...)                                              \
  X(rlx, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __VA_ARGS__) \
  X(acq, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED, __VA_ARGS__) \
  X(rel, __ATOMIC_RELEASE, __ATOMIC_RELAXED, __ATOMIC_RELEASE, __VA_ARGS__) \
  X(acqrel, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE, __ATOMIC_RELEASE, __VA_ARGS__)

/* Compare-exchange loop: new value = EXPR of the current value v_ (as TYPE).
 * Leaves the prior bit pattern in 'old'. */
#define GEXI_AD_CAS_LOOP(DT, EXPR)                                                      \
  do {                                                                                  \
    old = __atomic_load_n(p, __ATOMIC_RELAXED);                                         \
    for (;;) {                                                                          \
      const gexi_ty v_ = GV(DT, old);                                                   \
      const gexi_bt new_ = EXPR;                                                        \
      if (__atomic_compare_exchange_n(p, &old, new_, 1, ORD_, __ATOMIC_RELAXED)) break; \
    }                                                                                   \
  } while (0)

/* MIN/MAX: no store when the value does not change, unless the operation is
 * a release (a releasing RMW must write). */
#define GEXI_AD_MINMAX_LOOP(DT, CMP)                                         \
  do {                                                                       \
    old = __atomic_load_n(p, LORD_);                                         \
    for (;;) {                                                               \
      const gexi_ty v_ = GV(DT, old);                                        \
      const gexi_bt new_ = (v_ CMP o1) ? old : b1;                           \
      if (new_ == old && SORD_ == __ATOMIC_RELAXED) break;                   \
      if (__atomic_compare_exchange_n(p, &old, new_, 1, ORD_, LORD_)) break; \
    }                                                                        \
  } while (0)

/* A non-fetching case and its fetching partner, sharing ACTION (which sets
 * 'old' to the prior bit pattern).  The unused result of the non-fetching
 * form lets the compiler use the cheaper non-fetching instruction. */
#define GEXI_AD_PAIR(DT, IX, ACTION) \
  case IX: ACTION; break;            \
  case IX + IX_FETCH:                \
    ACTION;                          \
    *res = GV(DT, old);              \
    break;

/* One memory-order instance of the CPU operation for one data type. */
#define GEXI_AD_CPU(SFX, ORD, LORD, SORD, DT, TYPE, BT, IS_INT)                                    \
  GEXI_AD_ALWAYS_INLINE void gexi_ad_cpu_##DT##_##SFX(BT *p, TYPE *res, gex_OP_t op, TYPE o1,      \
                                                      TYPE o2) {                                   \
    typedef TYPE gexi_ty;                                                                          \
    typedef BT gexi_bt;                                                                            \
    enum { ORD_ = ORD, LORD_ = LORD, SORD_ = SORD };                                               \
    const BT b1 = GB(DT, o1), b2 = GB(DT, o2);                                                     \
    BT old;                                                                                        \
    (void)b2;                                                                                      \
    switch (GEXI_AD_OPIX(op)) {                                                                    \
      GEXI_AD_PAIR(DT, IX_ADD, if (IS_INT) old = __atomic_fetch_add(p, b1, ORD);                   \
                   else GEXI_AD_CAS_LOOP(DT, GB(DT, v_ + o1)))                                     \
      GEXI_AD_PAIR(DT, IX_SUB, if (IS_INT) old = __atomic_fetch_sub(p, b1, ORD);                   \
                   else GEXI_AD_CAS_LOOP(DT, GB(DT, v_ - o1)))                                     \
      GEXI_AD_PAIR(DT, IX_INC, if (IS_INT) old = __atomic_fetch_add(p, (BT)1, ORD);                \
                   else GEXI_AD_CAS_LOOP(DT, GB(DT, v_ + (TYPE)1)))                                \
      GEXI_AD_PAIR(DT, IX_DEC, if (IS_INT) old = __atomic_fetch_sub(p, (BT)1, ORD);                \
                   else GEXI_AD_CAS_LOOP(DT, GB(DT, v_ - (TYPE)1)))                                \
      /* integer product on the unsigned pattern: wraps, no signed overflow */                     \
      GEXI_AD_PAIR(DT, IX_MULT,                                                                    \
                   GEXI_AD_CAS_LOOP(DT, IS_INT ? (BT)(GB(DT, v_) * b1) : GB(DT, v_ * o1)))         \
      GEXI_AD_PAIR(DT, IX_MIN, GEXI_AD_MINMAX_LOOP(DT, <))                                         \
      GEXI_AD_PAIR(DT, IX_MAX, GEXI_AD_MINMAX_LOOP(DT, >))                                         \
      GEXI_AD_PAIR(DT, IX_AND, old = __atomic_fetch_and(p, b1, ORD))                               \
      GEXI_AD_PAIR(DT, IX_OR, old = __atomic_fetch_or(p, b1, ORD))                                 \
      GEXI_AD_PAIR(DT, IX_XOR, old = __atomic_fetch_xor(p, b1, ORD))                               \
      GEXI_AD_PAIR(                                                                                \
          DT, IX_CAS,                                                                              \
          if (IS_INT) {                                                                            \
            old = b1; /* strong: fails only if the value differs */                                \
            __atomic_compare_exchange_n(p, &old, b2, 0, ORD, LORD);                                \
          } else {                                                                                 \
            old = __atomic_load_n(p, LORD);                                                        \
            while (GV(DT, old) == o1 && !__atomic_compare_exchange_n(p, &old, b2, 1, ORD, LORD)) { \
            }                                                                                      \
          })                                                                                       \
      case IX_SET:                                                                                 \
        if (LORD == __ATOMIC_RELAXED)                                                              \
          __atomic_store_n(p, b1, SORD);                                                           \
        else /* acquire: an RMW */                                                                 \
          (void)__atomic_exchange_n(p, b1, ORD);                                                   \
        break;                                                                                     \
      case IX_SET + IX_FETCH: /* SWAP */ *res = GV(DT, __atomic_exchange_n(p, b1, ORD)); break;    \
      case IX_GET:                                                                                 \
        if (SORD == __ATOMIC_RELAXED)                                                              \
          *res = GV(DT, __atomic_load_n(p, LORD));                                                 \
        else /* release: an RMW */                                                                 \
          *res = GV(DT, __atomic_fetch_or(p, (BT)0, ORD));                                         \
        break;                                                                                     \
      default: /* not reached: the opcode is checked against the domain's ops */ break;            \
    }                                                                                              \
  }

#if GEX_CHECKS
#define GEXI_AD_CHECK(fn, DT, TYPE)                                                          \
  if (GEXI_UNLIKELY(!gexi_ad_ok(ad, GEX_DT_##DT, sizeof(TYPE), res, rank, addr, op, flags))) \
  gexi_ad_bad(fn, ad, GEX_DT_##DT, sizeof(TYPE), res, rank, addr, op, flags)
#else
#define GEXI_AD_CHECK(fn, DT, TYPE) (void)0
#endif

/* (a checks build takes the jobrank through the slow path, which checks it
 * and names the flag in its reports) */
#define GEXI_AD_JOBRANK_IS_RANK(ad) (!GEX_CHECKS && (ad)->jobrank_is_rank)

#define GEXI_AD_DEFINE(DT, TYPE, BT, IS_INT)                                                       \
  GEXI_AD_ALWAYS_INLINE BT gexi_ad_bits_##DT(TYPE v) {                                             \
    BT b;                                                                                          \
    memcpy(&b, &v, sizeof b);                                                                      \
    return b;                                                                                      \
  }                                                                                                \
  GEXI_AD_ALWAYS_INLINE TYPE gexi_ad_val_##DT(BT b) {                                              \
    TYPE v;                                                                                        \
    memcpy(&v, &b, sizeof v);                                                                      \
    return v;                                                                                      \
  }                                                                                                \
  _Static_assert(sizeof(TYPE) == sizeof(BT), "bit pattern width");                                 \
  GEXI_AD_ORDERS(GEXI_AD_CPU, DT, TYPE, BT, IS_INT)                                                \
                                                                                                   \
  /* Ordering flags or a jobrank: translate, check, pick the memory order. */                      \
  GEXI_AD_NOINLINE gex_Event_t gexi_ad_slow_##DT(const char *fn, int mode, gex_AD_t ad, TYPE *res, \
                                                 gex_Rank_t rank, void *addr, gex_OP_t op,         \
                                                 TYPE o1, TYPE o2, gex_Flags_t flags) {            \
    if (flags & GEX_FLAG_RANK_IS_JOBRANK) rank = gexi_ad_jobrank_to_rank(fn, ad, rank);            \
    GEXI_AD_CHECK(fn, DT, TYPE);                                                                   \
    const gexi_Peer_t *p = ad->peers + rank;                                                       \
    if (GEXI_LIKELY(p->local & ad->cpu_local)) {                                                   \
      BT *t = (BT *)(void *)((char *)addr + p->delta);                                             \
      switch (flags & (GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL)) {                                       \
        case 0: gexi_ad_cpu_##DT##_rlx(t, res, op, o1, o2); break;                                 \
        case GEX_FLAG_AD_ACQ: gexi_ad_cpu_##DT##_acq(t, res, op, o1, o2); break;                   \
        case GEX_FLAG_AD_REL: gexi_ad_cpu_##DT##_rel(t, res, op, o1, o2); break;                   \
        default: gexi_ad_cpu_##DT##_acqrel(t, res, op, o1, o2); break;                             \
      }                                                                                            \
      return GEX_EVENT_INVALID;                                                                    \
    }                                                                                              \
    return gexi_ad_remote(fn, mode, ad, GEX_DT_##DT, res, rank, addr, op, GB(DT, o1), GB(DT, o2),  \
                          flags);                                                                  \
  }                                                                                                \
                                                                                                   \
  /* The common case: relaxed, target on this node, named by its team rank                         \
   * -- or by its jobrank where that is the same (a domain of the whole                            \
   * job: UPC++ names every target by jobrank). */                                                 \
  GEXI_AD_ALWAYS_INLINE gex_Event_t gexi_ad_op_##DT(                                               \
      const char *fn, int mode, gex_AD_t ad, TYPE *res, gex_Rank_t rank, void *addr, gex_OP_t op,  \
      TYPE o1, TYPE o2, gex_Flags_t flags) {                                                       \
    if (GEXI_UNLIKELY(flags & GEXI_AD_SLOW_FLAGS) &&                                               \
        ((flags & (GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL)) || !GEXI_AD_JOBRANK_IS_RANK(ad)))           \
      return gexi_ad_slow_##DT(fn, mode, ad, res, rank, addr, op, o1, o2, flags);                  \
    GEXI_AD_CHECK(fn, DT, TYPE);                                                                   \
    const gexi_Peer_t *p = ad->peers + rank;                                                       \
    if (GEXI_LIKELY(p->local & ad->cpu_local)) {                                                   \
      gexi_ad_cpu_##DT##_rlx((BT *)(void *)((char *)addr + p->delta), res, op, o1, o2);            \
      return GEX_EVENT_INVALID;                                                                    \
    }                                                                                              \
    return gexi_ad_remote(fn, mode, ad, GEX_DT_##DT, res, rank, addr, op, GB(DT, o1), GB(DT, o2),  \
                          flags);                                                                  \
  }                                                                                                \
                                                                                                   \
  gex_Event_t gex_AD_OpNB_##DT(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank, void *tgt_addr,   \
                               gex_OP_t opcode, TYPE operand1, TYPE operand2, gex_Flags_t flags) { \
    return gexi_ad_op_##DT("gex_AD_OpNB_" #DT, GEXI_MODE_NB, ad, result_p, tgt_rank, tgt_addr,     \
                           opcode, operand1, operand2, flags);                                     \
  }                                                                                                \
  int gex_AD_OpNBI_##DT(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank, void *tgt_addr,          \
                        gex_OP_t opcode, TYPE operand1, TYPE operand2, gex_Flags_t flags) {        \
    return gexi_ad_op_##DT("gex_AD_OpNBI_" #DT, GEXI_MODE_NBI, ad, result_p, tgt_rank, tgt_addr,   \
                           opcode, operand1, operand2, flags) != GEX_EVENT_INVALID;                \
  }

GEXI_AD_TYPES(GEXI_AD_DEFINE)

/* Run-time data type and order: the AM handler's entry (atomic/ad_am.c). */
#define GEXI_AD_APPLY(DT, TYPE, BT, IS_INT)                                                      \
  static uint64_t gexi_ad_apply_##DT(void *p, gex_OP_t op, uint64_t b1, uint64_t b2,            \
                                     gex_Flags_t order) {                                       \
    BT *t = p;                                                                                   \
    TYPE res = GV(DT, (BT)0);                                                                    \
    const TYPE o1 = GV(DT, (BT)b1), o2 = GV(DT, (BT)b2);                                         \
    switch (order & (GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL)) {                                       \
      case 0: gexi_ad_cpu_##DT##_rlx(t, &res, op, o1, o2); break;                                \
      case GEX_FLAG_AD_ACQ: gexi_ad_cpu_##DT##_acq(t, &res, op, o1, o2); break;                  \
      case GEX_FLAG_AD_REL: gexi_ad_cpu_##DT##_rel(t, &res, op, o1, o2); break;                  \
      default: gexi_ad_cpu_##DT##_acqrel(t, &res, op, o1, o2); break;                            \
    }                                                                                            \
    return (uint64_t)GB(DT, res);                                                                \
  }
GEXI_AD_TYPES(GEXI_AD_APPLY)

uint64_t gexi_ad_cpu_apply(gex_DT_t dt, void *p, gex_OP_t op, uint64_t operand1,
                           uint64_t operand2, gex_Flags_t order) {
  switch (dt) {
    case GEX_DT_I32: return gexi_ad_apply_I32(p, op, operand1, operand2, order);
    case GEX_DT_U32: return gexi_ad_apply_U32(p, op, operand1, operand2, order);
    case GEX_DT_I64: return gexi_ad_apply_I64(p, op, operand1, operand2, order);
    case GEX_DT_U64: return gexi_ad_apply_U64(p, op, operand1, operand2, order);
    case GEX_DT_FLT: return gexi_ad_apply_FLT(p, op, operand1, operand2, order);
    case GEX_DT_DBL: return gexi_ad_apply_DBL(p, op, operand1, operand2, order);
    default: gexi_fatal("atomic AM: data type 0x%x not valid", (unsigned)dt);
  }
}

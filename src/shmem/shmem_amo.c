/* src/shmem/shmem_amo.c -- atomic memory operations.
 *
 * On the symmetric heap: libgex atomic domains on the world team, one per
 * operand kind (32- and 64-bit integers, float, double); every integer
 * operation is done on the unsigned type of its size, which gives the same
 * bits for the signed one.  On static data: an Active Message that the
 * owner performs with CPU atomics and answers (this PE's own static data:
 * the same CPU atomics, here).  Non-fetching operations and the _nbi forms
 * complete by the next quiet.
 */
#include "shmem/shmem_internal.h"

#include <stdio.h>

enum { GEXS_AM_AMO = 128, GEXS_AM_AMO_REPLY = 129 };

/* The operation on local memory; returns the prior value. */
static uint64_t amo_local(void *p, size_t size, gex_OP_t op, uint64_t a, uint64_t b) {
  const int mo = __ATOMIC_SEQ_CST;
#define GEXS_LOCAL_OP(T)                                                         \
  do {                                                                           \
    T *x = p, va = (T)a, vb = (T)b;                                              \
    switch (op) {                                                                \
    case GEX_OP_GET: return __atomic_load_n(x, mo);                              \
    case GEX_OP_SET: __atomic_store_n(x, va, mo); return 0;                      \
    case GEX_OP_SWAP: return __atomic_exchange_n(x, va, mo);                     \
    case GEX_OP_FCAS:                                                            \
      __atomic_compare_exchange_n(x, &va, vb, 0, mo, mo);                        \
      return va;                                                                 \
    case GEX_OP_ADD: case GEX_OP_FADD: return __atomic_fetch_add(x, va, mo);     \
    case GEX_OP_INC: case GEX_OP_FINC: return __atomic_fetch_add(x, (T)1, mo);   \
    case GEX_OP_AND: case GEX_OP_FAND: return __atomic_fetch_and(x, va, mo);     \
    case GEX_OP_OR: case GEX_OP_FOR: return __atomic_fetch_or(x, va, mo);        \
    case GEX_OP_XOR: case GEX_OP_FXOR: return __atomic_fetch_xor(x, va, mo);     \
    default: return 0;                                                           \
    }                                                                            \
  } while (0)
  if (size == 4) GEXS_LOCAL_OP(uint32_t);
  GEXS_LOCAL_OP(uint64_t);
#undef GEXS_LOCAL_OP
}

static int op_known(gex_OP_t op) {
  switch (op) {
  case GEX_OP_GET: case GEX_OP_SET: case GEX_OP_SWAP: case GEX_OP_FCAS: case GEX_OP_ADD:
  case GEX_OP_FADD: case GEX_OP_INC: case GEX_OP_FINC: case GEX_OP_AND: case GEX_OP_FAND:
  case GEX_OP_OR: case GEX_OP_FOR: case GEX_OP_XOR: case GEX_OP_FXOR:
    return 1;
  default:
    return 0;
  }
}

#define HI(v) ((gex_AM_Arg_t)((uint64_t)(v) >> 32))
#define LO(v) ((gex_AM_Arg_t)((uint64_t)(v) & 0xffffffffu))
#define JOIN(h, l) (((uint64_t)(uint32_t)(h) << 32) | (uint32_t)(l))

/* Request: offset in the static data, op, size, two operands, and the
 * requester's result and done-flag pointers (returned as they came). */
static void amo_request(gex_Token_t token, gex_AM_Arg_t off_h, gex_AM_Arg_t off_l,
                        gex_AM_Arg_t op, gex_AM_Arg_t size, gex_AM_Arg_t a_h, gex_AM_Arg_t a_l,
                        gex_AM_Arg_t b_h, gex_AM_Arg_t b_l, gex_AM_Arg_t r_h, gex_AM_Arg_t r_l,
                        gex_AM_Arg_t f_h, gex_AM_Arg_t f_l) {
  uint64_t off = JOIN(off_h, off_l);
  if ((size != 4 && size != 8) || off % (uint64_t)size || off > gexs.data_size ||
      gexs.data_size - off < (uint64_t)size || !op_known((gex_OP_t)op)) {
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    gexs_fatal("shmem atomic", "a request from PE %u names %u bytes at offset %llu of the "
               "static data (%zu bytes) with operation %#x: refused", (unsigned)info.gex_srcrank,
               (unsigned)size, (unsigned long long)off, gexs.data_size, (unsigned)op);
  }
  uint64_t old = amo_local(gexs.data + off, size, (gex_OP_t)op, JOIN(a_h, a_l), JOIN(b_h, b_l));
  gex_AM_ReplyShort(token, GEXS_AM_AMO_REPLY, 0, HI(old), LO(old), size, r_h, r_l, f_h, f_l);
}

static void amo_reply(gex_Token_t token, gex_AM_Arg_t old_h, gex_AM_Arg_t old_l,
                      gex_AM_Arg_t size, gex_AM_Arg_t r_h, gex_AM_Arg_t r_l, gex_AM_Arg_t f_h,
                      gex_AM_Arg_t f_l) {
  (void)token;
  uint64_t old = JOIN(old_h, old_l);
  void *result = (void *)(uintptr_t)JOIN(r_h, r_l);
  atomic_int *flag = (atomic_int *)(uintptr_t)JOIN(f_h, f_l);
  if (result) {
    if (size == 4) {
      uint32_t v = (uint32_t)old;
      memcpy(result, &v, 4);
    } else {
      memcpy(result, &old, 8);
    }
  }
  if (flag)
    atomic_store_explicit(flag, 1, memory_order_release);
  else
    atomic_fetch_sub_explicit(&gexs.am_pending, 1, memory_order_release);
}

void gexs_amo_register(gex_AM_Entry_t *table, size_t *n) {
  table[(*n)++] = (gex_AM_Entry_t){GEXS_AM_AMO, (gex_AM_Fn_t)amo_request,
                                   GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 12, NULL,
                                   "shmem_amo"};
  table[(*n)++] = (gex_AM_Entry_t){GEXS_AM_AMO_REPLY, (gex_AM_Fn_t)amo_reply,
                                   GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 7, NULL,
                                   "shmem_amo_reply"};
}

static int fetching(gex_OP_t op) {
  return op == GEX_OP_GET || op == GEX_OP_SWAP || op == GEX_OP_FCAS || op == GEX_OP_FADD ||
         op == GEX_OP_FINC || op == GEX_OP_FAND || op == GEX_OP_FOR || op == GEX_OP_FXOR;
}

static void amo_heap(void *owner, int pe, size_t size, enum gexs_kind kind, gex_OP_t op,
                     uint64_t a, uint64_t b, void *result, int nbi) {
  gex_Rank_t r = (gex_Rank_t)pe;
  int fetch = fetching(op);
  if (!fetch) result = NULL;
  if (kind == GEXS_K_FLT) {
    if (size == 4) {
      float fa, fb;
      uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
      memcpy(&fa, &ua, 4);
      memcpy(&fb, &ub, 4);
      if (nbi || !fetch)
        gex_AD_OpNBI_FLT(gexs.ad_flt, result, r, owner, op, fa, fb, 0);
      else
        gex_Event_Wait(gex_AD_OpNB_FLT(gexs.ad_flt, result, r, owner, op, fa, fb, 0));
    } else {
      double da, db;
      memcpy(&da, &a, 8);
      memcpy(&db, &b, 8);
      if (nbi || !fetch)
        gex_AD_OpNBI_DBL(gexs.ad_dbl, result, r, owner, op, da, db, 0);
      else
        gex_Event_Wait(gex_AD_OpNB_DBL(gexs.ad_dbl, result, r, owner, op, da, db, 0));
    }
  } else if (size == 4) {
    if (nbi || !fetch)
      gex_AD_OpNBI_U32(gexs.ad_u32, result, r, owner, op, (uint32_t)a, (uint32_t)b, 0);
    else
      gex_Event_Wait(gex_AD_OpNB_U32(gexs.ad_u32, result, r, owner, op, (uint32_t)a,
                                     (uint32_t)b, 0));
  } else {
    if (nbi || !fetch)
      gex_AD_OpNBI_U64(gexs.ad_u64, result, r, owner, op, a, b, 0);
    else
      gex_Event_Wait(gex_AD_OpNB_U64(gexs.ad_u64, result, r, owner, op, a, b, 0));
  }
}

void gexs_amo(const char *call, void *dest, int pe, size_t size, enum gexs_kind kind,
              gex_OP_t op, uint64_t a, uint64_t b, void *result, int nbi) {
  struct gexs_where w;
  gexs_where(call, dest, size, pe, &w);
  if (pe == gexs.me) gexs_poll(); /* (as gexs_get: a loop on this PE's object) */
  if ((uintptr_t)dest % size)
    gexs_fatal(call, "%p is not aligned to its %zu-byte type", dest, size);
  if (w.heap) {
    amo_heap(w.owner, pe, size, kind, op, a, b, result, nbi);
    return;
  }
  int fetch = fetching(op);
  if (pe == gexs.me) {
    uint64_t old = amo_local(dest, size, op, a, b);
    if (fetch && result) memcpy(result, &old, size); /* little-endian: the low bytes */
    return;
  }
  uint64_t off = (uint64_t)((char *)w.owner - gexs.data_owner[pe]);
  atomic_int done;
  atomic_init(&done, 0);
  int wait = fetch && !nbi;
  void *res = fetch ? result : NULL;
  atomic_int *flag = wait ? &done : NULL;
  if (!wait) atomic_fetch_add_explicit(&gexs.am_pending, 1, memory_order_relaxed);
  gex_AM_RequestShort(gexs.world, (gex_Rank_t)pe, GEXS_AM_AMO, 0, HI(off), LO(off),
                      (gex_AM_Arg_t)op, (gex_AM_Arg_t)size, HI(a), LO(a), HI(b), LO(b),
                      HI((uintptr_t)res), LO((uintptr_t)res), HI((uintptr_t)flag),
                      LO((uintptr_t)flag));
  if (wait)
    GEXS_WAIT_WHILE(!atomic_load_explicit(&done, memory_order_acquire));
}

/* Wait until every Active-Message atomic of this PE was answered. */
void gexs_amo_quiet(void) {
  GEXS_WAIT_WHILE(atomic_load_explicit(&gexs.am_pending, memory_order_acquire) > 0);
}

/* ---- the typed calls ---- */
static inline uint64_t bits(const void *p, size_t n) {
  uint64_t v = 0;
  memcpy(&v, p, n);
  return v;
}
#define KIND(TYPE) ((TYPE)0.5 != 0 ? GEXS_K_FLT : GEXS_K_INT)
/* A fetching operation that returns the prior value. */
#define FETCH_OP(TYPE, call, ctx, dest, pe, op, x, y)                                      \
  TYPE r;                                                                                  \
  TYPE x_ = (x), y_ = (y);                                                                 \
  gexs_amo(call, (void *)(dest), gexs_pe(call, ctx, pe), sizeof(TYPE), KIND(TYPE), op,     \
           bits(&x_, sizeof(TYPE)), bits(&y_, sizeof(TYPE)), &r, 0);                       \
  return r
#define NBI_OP(TYPE, call, ctx, fetch, dest, pe, op, x, y)                                 \
  TYPE x_ = (x), y_ = (y);                                                                 \
  gexs_amo(call, (void *)(dest), gexs_pe(call, ctx, pe), sizeof(TYPE), KIND(TYPE), op,     \
           bits(&x_, sizeof(TYPE)), bits(&y_, sizeof(TYPE)), fetch, 1)

#define GEXS_DEF_AMO_EXT(TYPE, NAME)                                                        \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_fetch)                                            \
  TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe) {       \
    FETCH_OP(TYPE, "shmem_" #NAME "_atomic_fetch", ctx, source, pe, GEX_OP_GET, 0, 0);      \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_fetch)                                                \
  TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe) {                            \
    return pshmem_ctx_##NAME##_atomic_fetch(SHMEM_CTX_DEFAULT, source, pe);                 \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_set)                                              \
  void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe) {     \
    NBI_OP(TYPE, "shmem_" #NAME "_atomic_set", ctx, NULL, dest, pe, GEX_OP_SET, value, 0);  \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_set)                                                  \
  void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe) {                          \
    pshmem_ctx_##NAME##_atomic_set(SHMEM_CTX_DEFAULT, dest, value, pe);                     \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_swap)                                             \
  TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe) {    \
    FETCH_OP(TYPE, "shmem_" #NAME "_atomic_swap", ctx, dest, pe, GEX_OP_SWAP, value, 0);    \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_swap)                                                 \
  TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe) {                         \
    return pshmem_ctx_##NAME##_atomic_swap(SHMEM_CTX_DEFAULT, dest, value, pe);             \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_fetch_nbi)                                        \
  void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch,                    \
                                           const TYPE *source, int pe) {                    \
    NBI_OP(TYPE, "shmem_" #NAME "_atomic_fetch_nbi", ctx, fetch, source, pe, GEX_OP_GET, 0, \
           0);                                                                              \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_fetch_nbi)                                            \
  void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe) {           \
    pshmem_ctx_##NAME##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, fetch, source, pe);             \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_swap_nbi)                                         \
  void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,         \
                                          TYPE value, int pe) {                             \
    NBI_OP(TYPE, "shmem_" #NAME "_atomic_swap_nbi", ctx, fetch, dest, pe, GEX_OP_SWAP,      \
           value, 0);                                                                       \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_swap_nbi)                                             \
  void shmem_##NAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe) {        \
    pshmem_ctx_##NAME##_atomic_swap_nbi(SHMEM_CTX_DEFAULT, fetch, dest, value, pe);         \
  }
GEXS_AMO_EXT_TYPES(GEXS_DEF_AMO_EXT)

/* FETCHING(NAME, op, GEXOP) and its plain-form wrapper, and the _nbi form;
 * NONFETCH(NAME, op, GEXOP) for the operations that return nothing. */
#define GEXS_FETCH2(TYPE, NAME, OPNAME, GEXOP)                                              \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_##OPNAME)                                          \
  TYPE shmem_ctx_##NAME##_atomic_##OPNAME(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe) { \
    FETCH_OP(TYPE, "shmem_" #NAME "_atomic_" #OPNAME, ctx, dest, pe, GEXOP, value, 0);      \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_##OPNAME)                                             \
  TYPE shmem_##NAME##_atomic_##OPNAME(TYPE *dest, TYPE value, int pe) {                     \
    return pshmem_ctx_##NAME##_atomic_##OPNAME(SHMEM_CTX_DEFAULT, dest, value, pe);         \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_##OPNAME##_nbi)                                   \
  void shmem_ctx_##NAME##_atomic_##OPNAME##_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,   \
                                                TYPE value, int pe) {                       \
    NBI_OP(TYPE, "shmem_" #NAME "_atomic_" #OPNAME "_nbi", ctx, fetch, dest, pe, GEXOP,     \
           value, 0);                                                                       \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_##OPNAME##_nbi)                                       \
  void shmem_##NAME##_atomic_##OPNAME##_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe) {  \
    pshmem_ctx_##NAME##_atomic_##OPNAME##_nbi(SHMEM_CTX_DEFAULT, fetch, dest, value, pe);   \
  }
#define GEXS_NONFETCH2(TYPE, NAME, OPNAME, GEXOP)                                           \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_##OPNAME)                                          \
  void shmem_ctx_##NAME##_atomic_##OPNAME(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe) { \
    NBI_OP(TYPE, "shmem_" #NAME "_atomic_" #OPNAME, ctx, NULL, dest, pe, GEXOP, value, 0);  \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_##OPNAME)                                             \
  void shmem_##NAME##_atomic_##OPNAME(TYPE *dest, TYPE value, int pe) {                     \
    pshmem_ctx_##NAME##_atomic_##OPNAME(SHMEM_CTX_DEFAULT, dest, value, pe);                \
  }

#define GEXS_DEF_AMO_STD(TYPE, NAME)                                                        \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_compare_swap)                                     \
  TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond,       \
                                              TYPE value, int pe) {                         \
    FETCH_OP(TYPE, "shmem_" #NAME "_atomic_compare_swap", ctx, dest, pe, GEX_OP_FCAS, cond, \
             value);                                                                        \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_compare_swap)                                         \
  TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe) {      \
    return pshmem_ctx_##NAME##_atomic_compare_swap(SHMEM_CTX_DEFAULT, dest, cond, value, pe); \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_compare_swap_nbi)                                 \
  void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                  TYPE cond, TYPE value, int pe) {          \
    NBI_OP(TYPE, "shmem_" #NAME "_atomic_compare_swap_nbi", ctx, fetch, dest, pe,           \
           GEX_OP_FCAS, cond, value);                                                       \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_compare_swap_nbi)                                     \
  void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond,           \
                                              TYPE value, int pe) {                         \
    pshmem_ctx_##NAME##_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, fetch, dest, cond, value, \
                                               pe);                                         \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_fetch_inc)                                        \
  TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe) {           \
    FETCH_OP(TYPE, "shmem_" #NAME "_atomic_fetch_inc", ctx, dest, pe, GEX_OP_FINC, 0, 0);   \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_fetch_inc)                                            \
  TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe) {                                \
    return pshmem_ctx_##NAME##_atomic_fetch_inc(SHMEM_CTX_DEFAULT, dest, pe);               \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_fetch_inc_nbi)                                    \
  void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,    \
                                               int pe) {                                    \
    NBI_OP(TYPE, "shmem_" #NAME "_atomic_fetch_inc_nbi", ctx, fetch, dest, pe, GEX_OP_FINC, \
           0, 0);                                                                           \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_fetch_inc_nbi)                                        \
  void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe) {               \
    pshmem_ctx_##NAME##_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, fetch, dest, pe);           \
  }                                                                                         \
  GEXS_PROFILED(shmem_ctx_##NAME##_atomic_inc)                                              \
  void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe) {                 \
    NBI_OP(TYPE, "shmem_" #NAME "_atomic_inc", ctx, NULL, dest, pe, GEX_OP_INC, 0, 0);      \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_atomic_inc)                                                  \
  void shmem_##NAME##_atomic_inc(TYPE *dest, int pe) {                                      \
    pshmem_ctx_##NAME##_atomic_inc(SHMEM_CTX_DEFAULT, dest, pe);                            \
  }                                                                                         \
  GEXS_FETCH2(TYPE, NAME, fetch_add, GEX_OP_FADD)                                           \
  GEXS_NONFETCH2(TYPE, NAME, add, GEX_OP_ADD)
GEXS_AMO_STD_TYPES(GEXS_DEF_AMO_STD)

#define GEXS_DEF_AMO_BIT(TYPE, NAME)                                                        \
  GEXS_FETCH2(TYPE, NAME, fetch_and, GEX_OP_FAND)                                           \
  GEXS_NONFETCH2(TYPE, NAME, and, GEX_OP_AND)                                               \
  GEXS_FETCH2(TYPE, NAME, fetch_or, GEX_OP_FOR)                                             \
  GEXS_NONFETCH2(TYPE, NAME, or, GEX_OP_OR)                                                 \
  GEXS_FETCH2(TYPE, NAME, fetch_xor, GEX_OP_FXOR)                                           \
  GEXS_NONFETCH2(TYPE, NAME, xor, GEX_OP_XOR)
GEXS_AMO_BIT_TYPES(GEXS_DEF_AMO_BIT)

/* ---- the OpenSHMEM 1.3 names ---- */
#define GEXS_DEF_AMO_OLD(TYPE, NAME)                                                        \
  GEXS_PROFILED(shmem_##NAME##_fetch)                                                       \
  TYPE shmem_##NAME##_fetch(const TYPE *source, int pe) {                                   \
    return pshmem_##NAME##_atomic_fetch(source, pe);                                        \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_set)                                                         \
  void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe) {                                 \
    pshmem_##NAME##_atomic_set(dest, value, pe);                                            \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_swap)                                                        \
  TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe) {                                \
    return pshmem_##NAME##_atomic_swap(dest, value, pe);                                    \
  }
#define GEXS_DEF_AMO_OLD_INT(TYPE, NAME)                                                    \
  GEXS_PROFILED(shmem_##NAME##_cswap)                                                       \
  TYPE shmem_##NAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe) {                    \
    return pshmem_##NAME##_atomic_compare_swap(dest, cond, value, pe);                      \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_finc)                                                        \
  TYPE shmem_##NAME##_finc(TYPE *dest, int pe) {                                            \
    return pshmem_##NAME##_atomic_fetch_inc(dest, pe);                                      \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_inc)                                                         \
  void shmem_##NAME##_inc(TYPE *dest, int pe) { pshmem_##NAME##_atomic_inc(dest, pe); }     \
  GEXS_PROFILED(shmem_##NAME##_fadd)                                                        \
  TYPE shmem_##NAME##_fadd(TYPE *dest, TYPE value, int pe) {                                \
    return pshmem_##NAME##_atomic_fetch_add(dest, value, pe);                               \
  }                                                                                         \
  GEXS_PROFILED(shmem_##NAME##_add)                                                         \
  void shmem_##NAME##_add(TYPE *dest, TYPE value, int pe) {                                 \
    pshmem_##NAME##_atomic_add(dest, value, pe);                                            \
  }
GEXS_OLD_AMO_TYPES(GEXS_DEF_AMO_OLD)
GEXS_OLD_AMO_INT_TYPES(GEXS_DEF_AMO_OLD_INT)

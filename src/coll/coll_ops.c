/* coll/coll_ops.c -- reduction kernels (built-in types and operators, user
 * operations), shared by the shared-memory and the AM collectives engines. */
#include "coll/coll_ops.h"

/* ---- reduction operators -----------------------------------------------
 * out[i] = left[i] op right[i]; out may be left or right itself (the
 * in-place fold is right == out), not a part of either. */
#define GEXI_RED_INT(T, UT)                                                        \
  do {                                                                             \
    const T *a = left, *c = right;                                                 \
    T *b = out;                                                                    \
    switch (op) {                                                                  \
      case GEX_OP_ADD: for (size_t i = 0; i < n; i++) b[i] = (T)((UT)a[i] + (UT)c[i]); break; \
      case GEX_OP_MULT: for (size_t i = 0; i < n; i++) b[i] = (T)((UT)a[i] * (UT)c[i]); break; \
      case GEX_OP_MIN: for (size_t i = 0; i < n; i++) b[i] = a[i] < c[i] ? a[i] : c[i]; break; \
      case GEX_OP_MAX: for (size_t i = 0; i < n; i++) b[i] = a[i] > c[i] ? a[i] : c[i]; break; \
      case GEX_OP_AND: for (size_t i = 0; i < n; i++) b[i] = a[i] & c[i]; break;   \
      case GEX_OP_OR: for (size_t i = 0; i < n; i++) b[i] = a[i] | c[i]; break;    \
      case GEX_OP_XOR: for (size_t i = 0; i < n; i++) b[i] = a[i] ^ c[i]; break;   \
      default: break;                                                              \
    }                                                                              \
  } while (0)
#define GEXI_RED_FP(T)                                                             \
  do {                                                                             \
    const T *a = left, *c = right;                                                 \
    T *b = out;                                                                    \
    switch (op) {                                                                  \
      case GEX_OP_ADD: for (size_t i = 0; i < n; i++) b[i] = a[i] + c[i]; break;   \
      case GEX_OP_MULT: for (size_t i = 0; i < n; i++) b[i] = a[i] * c[i]; break;  \
      case GEX_OP_MIN: for (size_t i = 0; i < n; i++) b[i] = a[i] < c[i] ? a[i] : c[i]; break; \
      case GEX_OP_MAX: for (size_t i = 0; i < n; i++) b[i] = a[i] > c[i] ? a[i] : c[i]; break; \
      default: break;                                                              \
    }                                                                              \
  } while (0)

bool gexi_coll_combine_to(const struct gexi_Event *e, const void *left, const void *right,
                          void *out, size_t n) {
  gex_OP_t op = e->op;
  if (op == GEX_OP_USER || op == GEX_OP_USER_NC) return false;
  switch (e->dt) {
    case GEX_DT_I32: GEXI_RED_INT(int32_t, uint32_t); break;
    case GEX_DT_U32: GEXI_RED_INT(uint32_t, uint32_t); break;
    case GEX_DT_I64: GEXI_RED_INT(int64_t, uint64_t); break;
    case GEX_DT_U64: GEXI_RED_INT(uint64_t, uint64_t); break;
    case GEX_DT_FLT: GEXI_RED_FP(float); break;
    case GEX_DT_DBL: GEXI_RED_FP(double); break;
    default: return false;
  }
  return true;
}

/* out[i] = left[i] op out[i] for n elements. */
void gexi_coll_combine(const struct gexi_Event *e, const void *left, void *out, size_t n) {
  if (e->op == GEX_OP_USER || e->op == GEX_OP_USER_NC)
    e->user_op(left, out, n, e->user_cdata);
  else
    gexi_coll_combine_to(e, left, out, out, n);
}

size_t gexi_coll_builtin_size(gex_DT_t dt) {
  switch (dt) {
    case GEX_DT_I32: case GEX_DT_U32: case GEX_DT_FLT: return 4;
    case GEX_DT_I64: case GEX_DT_U64: case GEX_DT_DBL: return 8;
    default: return 0;
  }
}


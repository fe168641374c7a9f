/* core/op_names.c -- the names of the public opcodes and data types
 * (core/op_names.h). */
#include "core/op_names.h"

static const char *const dt_names[] = {"GEX_DT_I32", "GEX_DT_U32", "GEX_DT_I64", "GEX_DT_U64",
                                       "GEX_DT_FLT", "GEX_DT_DBL", "GEX_DT_USER"};
_Static_assert(GEX_DT_I32 == 1u << 0 && GEX_DT_U32 == 1u << 1 && GEX_DT_I64 == 1u << 2 &&
                   GEX_DT_U64 == 1u << 3 && GEX_DT_FLT == 1u << 4 && GEX_DT_DBL == 1u << 5 &&
                   GEX_DT_USER == 1u << 6,
               "dt_names is indexed by bit number");

/* Indexed by bit number; NULL: no opcode has that bit. */
static const char *const op_names[32] = {
    [0] = "GEX_OP_AND",   [1] = "GEX_OP_OR",    [2] = "GEX_OP_XOR",   [3] = "GEX_OP_ADD",
    [4] = "GEX_OP_SUB",   [5] = "GEX_OP_MULT",  [6] = "GEX_OP_MIN",   [7] = "GEX_OP_MAX",
    [8] = "GEX_OP_INC",   [9] = "GEX_OP_DEC",   [10] = "GEX_OP_SET",  [11] = "GEX_OP_CAS",
    [15] = "GEX_OP_FAND", [16] = "GEX_OP_FOR",  [17] = "GEX_OP_FXOR", [18] = "GEX_OP_FADD",
    [19] = "GEX_OP_FSUB", [20] = "GEX_OP_FMULT", [21] = "GEX_OP_FMIN", [22] = "GEX_OP_FMAX",
    [23] = "GEX_OP_FINC", [24] = "GEX_OP_FDEC", [25] = "GEX_OP_SWAP", [26] = "GEX_OP_FCAS",
    [27] = "GEX_OP_GET",  [30] = "GEX_OP_USER", [31] = "GEX_OP_USER_NC"};
_Static_assert(GEX_OP_AND == 1u << 0 && GEX_OP_ADD == 1u << 3 && GEX_OP_SET == 1u << 10 &&
                   GEX_OP_CAS == 1u << 11 && GEX_OP_FAND == 1u << 15 &&
                   GEX_OP_FADD == 1u << 18 && GEX_OP_SWAP == 1u << 25 &&
                   GEX_OP_FCAS == 1u << 26 && GEX_OP_GET == 1u << 27 &&
                   GEX_OP_USER == 1u << 30 && GEX_OP_USER_NC == 1u << 31,
               "op_names is indexed by bit number");

static int single_bit(uint32_t v) { return v && !(v & (v - 1)); }

const char *gexi_dt_name(gex_DT_t dt) {
  if (!single_bit(dt) || dt > GEX_DT_USER) return NULL;
  return dt_names[__builtin_ctz(dt)];
}

const char *gexi_op_name(gex_OP_t op) {
  if (!single_bit(op)) return NULL;
  return op_names[__builtin_ctz(op)];
}

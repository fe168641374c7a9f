/* coll/coll_ops.h -- reduction kernels shared by both collective engines. */
#ifndef GEXI_COLL_OPS_H
#define GEXI_COLL_OPS_H

#include "core/event.h"

/* out[i] = left[i] op out[i] for n elements of e's type and operator (a
 * user function is called as user_op(left, out, n, cdata)).  'left' holds
 * the lower-ranked operand: for GEX_OP_USER_NC callers keep rank order. */
void gexi_coll_combine(const struct gexi_Event *e, const void *left, void *out, size_t n);

/* out[i] = left[i] op right[i] for a built-in operator (out may be left or
 * right itself, not a part of either); false, touching nothing, for a user
 * operation. */
bool gexi_coll_combine_to(const struct gexi_Event *e, const void *left, const void *right,
                          void *out, size_t n);

/* Size of a built-in data type, 0 for GEX_DT_USER or an unknown value. */
size_t gexi_coll_builtin_size(gex_DT_t dt);

#endif

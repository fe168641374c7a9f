/* core/op_names.h -- the public opcodes and data types as the library's
 * reports name and class them, for the atomics (atomic/) and the ofi
 * transport's native atomics alike.  (core/op_names.c)
 */
#ifndef GEXI_CORE_OP_NAMES_H
#define GEXI_CORE_OP_NAMES_H

#include "core/context.h"

/* The bits of the fetching forms of the non-fetching opcodes (bits 15..26). */
#define GEXI_OP_FETCHING_FORMS ((gex_OP_t)0xFFFu << GEXI_OP_FETCH_SHIFT)
/* Opcodes that write *result_p. */
#define GEXI_FETCHING_OPS (GEXI_OP_FETCHING_FORMS | GEX_OP_GET)

/* Names for messages: "GEX_DT_I32", "GEX_OP_FADD"; NULL if not one value. */
const char *gexi_dt_name(gex_DT_t dt);
const char *gexi_op_name(gex_OP_t op);

#endif

/* am/am_internal.h -- the AM handler indices the library keeps for itself.
 *
 * Indices 1 .. GEX_AM_INDEX_BASE-1 (127) are never handed to clients:
 * gex_EP_RegisterHandlers refuses fixed indices below GEX_AM_INDEX_BASE and
 * gives index-0 entries only indices >= GEX_AM_INDEX_BASE (core/ep.c).
 * Every subsystem that sends internal AMs names its indices here, inside
 * the range it owns, and writes its entries straight into
 * gexi_ctx.ep.handlers during gex_Client_Init (before any peer can reach a
 * poll of this process).  Index 0 stays unused ("any index" in a client
 * table).
 */
#ifndef GEXI_AM_INTERNAL_H
#define GEXI_AM_INTERNAL_H

enum gexi_am_internal_index {
  /* 1..15: collectives and team construction over AMs (coll/coll_am.c). */
  GEXI_AMI_COLL_SHORT = 1,  /* Request Short, 4 args: slot, seq, tag, src team rank */
  GEXI_AMI_COLL_MEDIUM = 2, /* Request Medium, same 4 args + one fragment of data */
  GEXI_AMI_COLL_LAST = 15,
  /* 16..31: remote atomics. */
  GEXI_AMI_ATOMIC_FIRST = 16,
  GEXI_AMI_ATOMIC_LAST = 31,
  /* 32..63: free for later subsystems. */
  GEXI_AMI_RESERVED_END = 63
};

#endif

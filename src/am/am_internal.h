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
  /* 16..31: remote atomics, VIS packing, coalescing, device memory (below). */
  GEXI_AMI_ATOMIC_FIRST = 16,
  GEXI_AMI_ATOMIC_LAST = 31,
  /* 32..63: free for later subsystems. */
  GEXI_AMI_RESERVED_END = 63
};

/* 16..31, registered by gexi_ad_am_init (atomic/ad_am.c). */
enum {
  GEXI_AMIDX_AD_REQ = 16,    /* Short Request: perform one atomic */
  GEXI_AMIDX_AD_FETCHED = 17,/* Short Reply: the fetched value */
  GEXI_AMIDX_AD_DONE = 18,   /* Short Reply: a non-fetching atomic is done */
  GEXI_AMIDX_VIS_PUT = 19,   /* Medium Request: scatter packed chunks */
  GEXI_AMIDX_VIS_PUT_ACK = 20, /* Short Reply: a packed Put landed */
  GEXI_AMIDX_VIS_GET = 21,   /* Medium Request: gather chunks */
  GEXI_AMIDX_VIS_GET_DATA = 22, /* Medium Reply: gathered chunks */
  GEXI_AMIDX_CO_BATCH = 23,  /* Medium Request: coalesced NBI operations (am/am_coalesce.c) */
  GEXI_AMIDX_CO_DONE = 24,   /* Medium Reply: their fetched values and counts */
  GEXI_AMIDX_MK_PUT = 25,    /* Medium Request: data for a device segment (rma/rma_device.c) */
  GEXI_AMIDX_MK_PUT_ACK = 26,/* Short Reply: it landed */
  GEXI_AMIDX_MK_GET = 27,    /* Short Request: data from a device segment */
  GEXI_AMIDX_MK_GET_DATA = 28, /* Medium Reply: the data */
  GEXI_AMIDX_AD_LAST = 31
};

#endif

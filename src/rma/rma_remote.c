/* rma/rma_remote.c -- RMA to peers that are not mapped in this process:
 * handed to the off-node transport. */
#include "core/context.h"
#include "transport/transport.h"

gex_Event_t gexi_RMA_Put_remote(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags,
                                int mode) {
  gex_Rank_t j = gexi_tm_jobrank(tm, rank);
  if (!gexi_ctx.net) gexi_fatal("gex_RMA_Put: rank %u is not reachable (no network transport)", j);
  return gexi_ctx.net->put(j, dest, src, nbytes, lc_opt, flags, mode);
}

gex_Event_t gexi_RMA_Get_remote(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                size_t nbytes, gex_Flags_t flags, int mode) {
  gex_Rank_t j = gexi_tm_jobrank(tm, rank);
  if (!gexi_ctx.net) gexi_fatal("gex_RMA_Get: rank %u is not reachable (no network transport)", j);
  return gexi_ctx.net->get(j, dest, src, nbytes, flags, mode);
}

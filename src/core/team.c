/* core/team.c -- team (gex_TM_t) queries, TM-pairs and rank translation. */
#include <stdlib.h>

#include "core/context.h"

struct gexi_team *gexi_team_new(gex_Rank_t size, gex_Rank_t rank, bool is_pair) {
  struct gexi_team *t = calloc(1, sizeof *t + (size_t)size * sizeof(gexi_Peer_t));
  if (!t) gexi_fatal("out of memory");
  t->head.size = size;
  t->head.rank = rank;
  t->is_pair = is_pair;
  return t;
}

gex_Client_t gex_TM_QueryClient(gex_TM_t tm) { return gexi_tm(tm)->client; }
gex_EP_t gex_TM_QueryEP(gex_TM_t tm) { return gexi_tm(tm)->ep; }
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm) { return gexi_tm(tm)->flags; }
gex_Rank_t gex_TM_QueryRank(gex_TM_t tm) { return gexi_tm(tm)->head.rank; }
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm) { return gexi_tm(tm)->head.size; }
void gex_TM_SetCData(gex_TM_t tm, const void *val) { gexi_tm(tm)->cdata = (void *)val; }
void *gex_TM_QueryCData(gex_TM_t tm) { return gexi_tm(tm)->cdata; }

/* Only one endpoint per process exists (GASNET_MAXEPS == 1), so the pair for
 * remote index 0 is a fixed object of the endpoint: equal arguments give
 * equal values, and it never equals a team's gex_TM_t. */
gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index) {
  if (remote_ep_index != 0)
    gexi_fatal("gex_TM_Pair: endpoint index %u does not exist (GASNET_MAXEPS is 1)",
               (unsigned)remote_ep_index);
  return gexi_tm_handle(local_ep->pair_tm);
}

gex_Rank_t gexi_tm_jobrank(gex_TM_t tm, gex_Rank_t rank) {
  return GEXI_TM_PEERS(tm)[rank].jobrank;
}

gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank) {
  if (rank >= GEXI_TM_SIZE(tm))
    gexi_fatal("gex_TM_TranslateRankToJobrank: rank %u out of range (team size %u)",
               (unsigned)rank, (unsigned)GEXI_TM_SIZE(tm));
  return gexi_tm_jobrank(tm, rank);
}

gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank) {
  if (jobrank >= gexi_ctx.size)
    gexi_fatal("gex_TM_TranslateJobrankToRank: jobrank %u out of range (job size %u)",
               (unsigned)jobrank, (unsigned)gexi_ctx.size);
  for (gex_Rank_t r = 0; r < GEXI_TM_SIZE(tm); r++)
    if (GEXI_TM_PEERS(tm)[r].jobrank == jobrank) return r;
  return GEX_RANK_INVALID;
}

gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags) {
  (void)flags;
  gex_EP_Location_t loc = {gex_TM_TranslateRankToJobrank(tm, rank), 0};
  return loc;
}

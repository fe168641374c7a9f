/* am/am_limits.c -- AM limit queries, token information. */
#include "am/am.h"

unsigned int gex_AM_MaxArgs(void) { return GEXI_AM_MAX_ARGS; }

/* The limits depend on nothing but the category: every peer, lc_opt, flag
 * and argument count gets the same maximum (the argument area of a queue
 * slot is separate from its payload area).  The flags are checked: those
 * of the fixed-payload call, and the AM_PREPARE_LEAST_* query flags. */
#define CHECK_QUERY_FLAGS(fn, flags) GEXI_CHECK_FLAGS(fn, flags, GEXI_FLAGS_P2P | GEXI_FLAGS_AM_LEAST)
size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs) {
  CHECK_QUERY_FLAGS("gex_AM_MaxRequestLong", flags);
  (void)tm, (void)other_rank, (void)lc_opt, (void)numargs;
  return GEXI_AM_MAX_LONG;
}
size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                           gex_Flags_t flags, unsigned int numargs) {
  CHECK_QUERY_FLAGS("gex_AM_MaxReplyLong", flags);
  (void)tm, (void)other_rank, (void)lc_opt, (void)numargs;
  return GEXI_AM_MAX_LONG;
}
size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                               gex_Flags_t flags, unsigned int numargs) {
  CHECK_QUERY_FLAGS("gex_AM_MaxRequestMedium", flags);
  (void)tm, (void)other_rank, (void)lc_opt, (void)numargs;
  return GEXI_AM_MAX_MEDIUM;
}
size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs) {
  CHECK_QUERY_FLAGS("gex_AM_MaxReplyMedium", flags);
  (void)tm, (void)other_rank, (void)lc_opt, (void)numargs;
  return GEXI_AM_MAX_MEDIUM;
}
size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags,
                              unsigned int numargs) {
  CHECK_QUERY_FLAGS("gex_Token_MaxReplyLong", flags);
  (void)token, (void)lc_opt, (void)numargs;
  return GEXI_AM_MAX_LONG;
}
size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt,
                                gex_Flags_t flags, unsigned int numargs) {
  CHECK_QUERY_FLAGS("gex_Token_MaxReplyMedium", flags);
  (void)token, (void)lc_opt, (void)numargs;
  return GEXI_AM_MAX_MEDIUM;
}
size_t gex_AM_LUBRequestLong(void) { return GEXI_AM_MAX_LONG; }
size_t gex_AM_LUBReplyLong(void) { return GEXI_AM_MAX_LONG; }
size_t gex_AM_LUBRequestMedium(void) { return GEXI_AM_MAX_MEDIUM; }
size_t gex_AM_LUBReplyMedium(void) { return GEXI_AM_MAX_MEDIUM; }

gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask) {
  (void)mask; /* every field is cheap: fill them all */
  const struct gexi_Token *t = (const struct gexi_Token *)token;
  info->gex_srcrank = t->src;
  info->gex_ep = &gexi_ctx.ep;
  info->gex_entry = t->entry;
  info->gex_is_req = t->is_req;
  info->gex_is_long = t->is_long;
  return GEX_TI_ALL;
}

int gasnet_AMGetMsgSource(gex_Token_t token, gasnet_node_t *srcindex) {
  if (!token || !srcindex) return GASNET_ERR_BAD_ARG;
  *srcindex = ((const struct gexi_Token *)token)->src;
  return GASNET_OK;
}

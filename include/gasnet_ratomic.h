/* gasnet_ratomic.h -- libgex: GASNet-EX remote atomic operations.
 *
 * Atomic domains (gex_AD_t) and the typed atomic initiation calls
 * gex_AD_OpNB_<DT> / gex_AD_OpNBI_<DT> for the built-in data types
 * I32, U32, I64, U64, FLT and DBL (spec v0.19, "Remote Atomic Operations").
 * The GEX_DT_*, GEX_OP_* and GEX_FLAG_AD_* constants are in gasnet_fwd.h.
 *
 * See docs/atomics.md for which implementation libgex uses when, the memory
 * ordering of GEX_FLAG_AD_ACQ / GEX_FLAG_AD_REL, and the misuse diagnostics.
 */
#ifndef GASNET_RATOMIC_H
#define GASNET_RATOMIC_H

#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- atomic domains ------------------------------------------------------ */
typedef struct gexi_AD *gex_AD_t;
#define GEX_AD_INVALID ((gex_AD_t)0)

/* Collective over 'tm': a domain for the operations 'ops' (OR of GEX_OP_*)
 * on data type 'dt'.  'flags': 0 or one of GEX_FLAG_AD_FAVOR_{MY_RANK,
 * MY_NBRHD,REMOTE} (hints only). */
void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags);
/* Collective over the domain's team; every operation on 'ad' must be
 * complete everywhere before any rank calls it.  Not a barrier. */
void gex_AD_Destroy(gex_AD_t ad);

gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad);
gex_TM_t gex_AD_QueryTM(gex_AD_t ad);
gex_DT_t gex_AD_QueryDT(gex_AD_t ad);
gex_OP_t gex_AD_QueryOps(gex_AD_t ad);
void gex_AD_SetCData(gex_AD_t ad, const void *val);
void *gex_AD_QueryCData(gex_AD_t ad);

/* ---- atomic operations --------------------------------------------------- */
/* For each data type: NB returns an event (GEX_EVENT_INVALID when the
 * operation completed during the call, as it always does for a target on
 * this node); NBI returns 0 (non-zero only for a GEX_FLAG_IMMEDIATE refusal)
 * and is completed by gex_NBI_{Test,Wait} with GEX_EC_RMW (GEX_EC_PUT for
 * GEX_OP_SET, GEX_EC_GET for GEX_OP_GET).  'result_p' receives the prior
 * value for fetching operations and is ignored otherwise. */
#define GEXI_AD_DECLARE(DT, TYPE)                                                                 \
  gex_Event_t gex_AD_OpNB_##DT(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank, void *tgt_addr,  \
                               gex_OP_t opcode, TYPE operand1, TYPE operand2, gex_Flags_t flags); \
  int gex_AD_OpNBI_##DT(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank, void *tgt_addr,         \
                        gex_OP_t opcode, TYPE operand1, TYPE operand2, gex_Flags_t flags);
GEXI_AD_DECLARE(I32, int32_t)
GEXI_AD_DECLARE(U32, uint32_t)
GEXI_AD_DECLARE(I64, int64_t)
GEXI_AD_DECLARE(U64, uint64_t)
GEXI_AD_DECLARE(FLT, float)
GEXI_AD_DECLARE(DBL, double)
#undef GEXI_AD_DECLARE

#ifdef __cplusplus
}
#endif

#endif /* GASNET_RATOMIC_H */

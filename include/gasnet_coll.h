/* gasnet_coll.h -- GASNet-EX non-blocking collectives (libgex).
 *
 * Barrier is declared in gasnetex.h.  The GEX_DT_* and GEX_OP_* constants are
 * in gasnet_fwd.h.  See docs/collectives.md for the algorithms and limits.
 */
#ifndef GASNET_COLL_H
#define GASNET_COLL_H

#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif

/* User-defined reduction: combine 'count' elements, result in arg2_and_out
 * (arg1 is the left-hand operand, arg2_and_out the right-hand one). */
typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count,
                                    const void *cdata);

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes, gex_Flags_t flags);

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                   gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags);

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags);

#ifdef __cplusplus
}
#endif

/* The GASNet-1 prototype collectives (gasnet_coll_*). */
#include <gasnet_coll_legacy.h>

#endif

/* atomic/ad_am.h -- remote atomics carried by Active Messages
 * (atomic/ad_am.c, atomic/ad_coalesce.c), and the registration of the
 * internal handlers of atomics, VIS packing and coalescing (their indices:
 * am/am_internal.h; the completion they share: core/complete.h).
 */
#ifndef GEXI_ATOMIC_AD_AM_H
#define GEXI_ATOMIC_AD_AM_H

#include "core/complete.h"
#include "am/am_internal.h"
#include "core/context.h"


/* NBI atomics as records of coalesced batches (atomic/ad_coalesce.c):
 * append one for the process with jobrank 'j' ('cat': GEXI_AM_NBI_*);
 * returns GEX_EVENT_INVALID, or GEX_EVENT_NO_OP for an IMMEDIATE refusal.
 * gexi_ad_co_init registers the record kind. */
gex_Event_t gexi_ad_co_op(gex_Rank_t j, int cat, gex_DT_t dt, void *result_p, void *addr,
                          gex_OP_t op, uint64_t operand1, uint64_t operand2, gex_Flags_t flags);
void gexi_ad_co_init(void);

/* Register the internal handlers of atomics, VIS and coalescing.  Called once from
 * gex_Client_Init, before the client can communicate.  No peer can send one
 * of these before this process has registered them: atomics need a domain
 * (gex_AD_Create is collective) and VIS needs the target's bound segment
 * (gex_Segment_Attach is collective), both after every rank's init. */
void gexi_ad_am_init(void);
/* The VIS part (vis/vis.c): fills 'e' (at most 8 entries), returns count. */
size_t gexi_vis_am_entries(gex_AM_Entry_t *e);

/* The NBI completion category of an opcode: SET puts, GET gets, the rest
 * are read-modify-writes. */
static inline int gexi_ad_op_category(gex_OP_t op) {
  return op == GEX_OP_SET ? GEXI_AM_NBI_PUT : op == GEX_OP_GET ? GEXI_AM_NBI_GET : GEXI_AM_NBI_RMW;
}

#endif

/* transport/transport.h -- the internal interface of off-node transports.
 *
 * On-node traffic never goes through this table: RMA is inline load/store
 * (gex/gex_inline.h) and AMs use transport/shm directly.  A network
 * transport (libfabric) fills one gexi_net_ops and sets gexi_ctx.net.
 */
#ifndef GEXI_TRANSPORT_H
#define GEXI_TRANSPORT_H

#include "am/am.h"

struct gexi_net_ops {
  const char *name;
  /* Run completions and deliver received AMs; returns work done. */
  int (*poll)(int what);
  /* Send an AM: returns non-zero only for an IMMEDIATE refusal; the payload
   * is reusable on return. */
  int (*am_send)(gex_Rank_t jobrank, const struct gexi_am_hdr *h, const void *payload,
                 gex_Flags_t flags);
  /* RMA to a peer that is not mapped here; 'mode' as in gex_inline.h. */
  gex_Event_t (*put)(gex_Rank_t jobrank, void *dest, const void *src, size_t nbytes,
                     gex_Event_t *lc_opt, gex_Flags_t flags, int mode);
  gex_Event_t (*get)(gex_Rank_t jobrank, void *dest, void *src, size_t nbytes,
                     gex_Flags_t flags, int mode);
  /* Non-zero while implicit operations (GEX_EC_* mask) are in flight. */
  int (*nbi_test)(gex_EC_t mask);
  /* Is the transport's event (kind GEXI_EV_NET) complete?  *moved: whether
   * testing it made progress. */
  int (*event_done)(gex_Event_t e, int *moved);
  /* The event completing the NBI operations of an access region that just
   * ended (GEX_EVENT_INVALID: nothing in flight). */
  gex_Event_t (*region_event)(void);
  /* Segment attach: register this process's segment (returns the key to
   * publish), then learn each off-node peer's key. */
  void (*seg_register)(void *base, uintptr_t size, uint64_t *key);
  void (*seg_peer)(gex_Rank_t jobrank, uint64_t key);
};

#endif

/* core/nbi.c -- implicit-event (NBI) completion and access regions.
 *
 * On-node NBI operations complete before their initiation returns, so there
 * is nothing to wait for unless an off-node transport has operations in
 * flight for this thread.
 */
#include "core/context.h"
#include "transport/transport.h"

static int nbi_pending(gex_EC_t mask) {
  return gexi_ctx.net ? gexi_ctx.net->nbi_test(mask) : 0;
}

int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags) {
  (void)flags;
  gexi_check_can_communicate("gex_NBI_Test");
  return nbi_pending(event_mask) ? GASNET_ERR_NOT_READY : GASNET_OK;
}

void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags) {
  (void)flags;
  gexi_check_can_communicate("gex_NBI_Wait");
  while (nbi_pending(event_mask)) {
    if (gexi_poll(GEXI_POLL_ALL))
      gexi_busy();
    else
      gexi_idle();
  }
}

void gex_NBI_BeginAccessRegion(gex_Flags_t flags) {
  (void)flags;
  gexi_check_can_communicate("gex_NBI_BeginAccessRegion");
  if (gexi_tls.in_access_region)
    gexi_fatal("gex_NBI_BeginAccessRegion: access regions do not nest");
  gexi_tls.in_access_region = 1;
}

gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags) {
  (void)flags;
  gexi_check_can_communicate("gex_NBI_EndAccessRegion");
  if (!gexi_tls.in_access_region)
    gexi_fatal("gex_NBI_EndAccessRegion: no access region is open on this thread");
  gexi_tls.in_access_region = 0;
  /* On-node operations of the region are already complete; network ones are
   * covered by the transport's region event. */
  return gexi_ctx.net ? gexi_ctx.net->region_event() : GEX_EVENT_INVALID;
}

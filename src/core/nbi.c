/* core/nbi.c -- implicit-event (NBI) completion and access regions.
 *
 * On-node NBI operations complete before their initiation returns, so there
 * is nothing to wait for unless an off-node transport has operations in
 * flight for this thread.
 */
#include <stdlib.h>

#include "core/complete.h"
#include "core/context.h"
#include "core/net_ops.h"

/* Whether any NBI operation of this thread may be in flight, whatever its
 * kind: the AM-completed counts and the transport's (put, get, rmw), read
 * without calling the transport.  The precise, masked test is nbi_pending. */
static inline int nbi_any(void) {
  _Atomic uint32_t *a = gexi_tls.am_nbi.pending;
  uint64_t x = atomic_load_explicit(&a[0], memory_order_acquire) |
               atomic_load_explicit(&a[1], memory_order_acquire) |
               atomic_load_explicit(&a[2], memory_order_acquire);
  _Atomic uint64_t *n = gexi_tls.net_nbi_pending;
  if (n)
    x |= atomic_load_explicit(&n[0], memory_order_acquire) |
         atomic_load_explicit(&n[1], memory_order_acquire) |
         atomic_load_explicit(&n[2], memory_order_acquire);
  return x != 0;
}

static int nbi_pending(gex_EC_t mask) {
  int net = gexi_ctx.net ? gexi_ctx.net->nbi_test(mask) : 0;
  return net | gexi_am_nbi_pending(mask); /* operations completed by AM replies */
}

/* The flags of every call here are reserved: zero (checked builds). */
int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags) {
  gexi_check_can_communicate_flags("gex_NBI_Test", flags, 0);
  if (GEXI_LIKELY(!gexi_tls.nbi_maybe)) return GASNET_OK;
  if (gexi_tls.flush_deferred) gexi_tls.flush_deferred();
  if (!nbi_any()) {
    gexi_tls.nbi_maybe = 0;
    return GASNET_OK;
  }
  if (!nbi_pending(event_mask)) return GASNET_OK;
  /* AM-completed operations advance only when handlers run: poll once. */
  if (gexi_am_nbi_pending(event_mask)) gexi_poll(GEXI_POLL_ALL);
  return nbi_pending(event_mask) ? GASNET_ERR_NOT_READY : GASNET_OK;
}

__attribute__((noinline)) static void nbi_wait_slow(gex_EC_t event_mask) {
  while (nbi_pending(event_mask)) {
    if (gexi_poll(GEXI_POLL_ALL))
      gexi_busy();
    else
      gexi_idle();
  }
  gexi_settle();
}

void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags) {
  gexi_check_can_communicate_flags("gex_NBI_Wait", flags, 0);
  /* Nothing outstanding (always so on-node): a few loads, no frame. */
  if (GEXI_LIKELY(!gexi_tls.nbi_maybe)) return;
  if (gexi_tls.flush_deferred) gexi_tls.flush_deferred();
  if (!nbi_any()) {
    gexi_tls.nbi_maybe = 0;
    gexi_settle();
    return;
  }
  nbi_wait_slow(event_mask);
}

void gex_NBI_BeginAccessRegion(gex_Flags_t flags) {
  gexi_check_can_communicate("gex_NBI_BeginAccessRegion");
  GEXI_CHECK_FLAGS("gex_NBI_BeginAccessRegion", flags, 0);
  if (gexi_tls.in_access_region)
    gexi_fatal("gex_NBI_BeginAccessRegion: access regions do not nest");
  /* Coalesced operations from before the region complete outside it. */
  if (gexi_tls.flush_deferred) gexi_tls.flush_deferred();
  gexi_tls.in_access_region = 1;
  if (gexi_ctx.net) gexi_ctx.net->region_begin();
}

gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags) {
  gexi_check_can_communicate("gex_NBI_EndAccessRegion");
  GEXI_CHECK_FLAGS("gex_NBI_EndAccessRegion", flags, 0);
  if (!gexi_tls.in_access_region)
    gexi_fatal("gex_NBI_EndAccessRegion: no access region is open on this thread");
  /* The region's coalesced operations join its event as they are sent. */
  if (gexi_tls.flush_deferred) gexi_tls.flush_deferred();
  gexi_tls.in_access_region = 0;
  /* On-node operations of the region are already complete.  Operations
   * completed by AM replies joined the region's AM event (atomic/ad_am.c);
   * network RMA is covered by the transport's region event, which becomes
   * a sub-event of the AM one when both exist. */
  gex_Event_t am = gexi_tls.am_nbi.region;
  gexi_tls.am_nbi.region = NULL;
  gex_Event_t net = gexi_ctx.net ? gexi_ctx.net->region_event() : GEX_EVENT_INVALID;
  if (!am) return net;
  if (net != GEX_EVENT_INVALID) {
    struct gexi_ev_flag *f = &am->flag;
    gex_Event_t *sub = realloc(f->sub, (f->nsub + 1) * sizeof *sub);
    if (!sub) gexi_fatal("out of memory");
    sub[f->nsub++] = net;
    f->sub = sub;
  }
  return am;
}

/* am/am_check.c -- is a received AM header well formed?
 *
 * Every transport checks a message before it reaches a handler or a copy:
 * the network transport because every byte from the network is untrusted
 * (transport/ofi/ofi_check.c adds the checks of its wire format), the
 * shared-memory queues because a buggy peer process may have corrupted a
 * slot.  The checks are a handful of compares on fields already in cache.
 */
#include "am/am.h"
#include "core/hooks.h"

const char *gexi_am_check_frame(const struct gexi_am_hdr *h) {
  if (GEXI_UNLIKELY(h->category > GEXI_AM_NOP)) return "category";
  if (GEXI_UNLIKELY(h->is_req > 1)) return "direction (is_req)";
  if (GEXI_UNLIKELY(h->nargs > GEXI_AM_MAX_ARGS)) return "nargs";
  switch (h->category) {
    case GEXI_AM_SHORT:
    case GEXI_AM_NOP:
      if (GEXI_UNLIKELY(h->nbytes)) return "nbytes (not 0 for a Short)";
      return NULL;
    case GEXI_AM_MEDIUM:
      if (GEXI_UNLIKELY(h->nbytes > GEXI_AM_MAX_MEDIUM)) return "nbytes (above the Medium maximum)";
      return NULL;
    default: { /* Long: the destination range must lie in this rank's bound segment */
      if (GEXI_UNLIKELY(h->nbytes > GEXI_AM_MAX_LONG)) return "nbytes (above the Long maximum)";
      if (!h->nbytes) return NULL;
      const uint32_t k = gexi_am_ep(h);
      if (GEXI_UNLIKELY(k >= GEXI_MAX_EPS)) return "ep_index";
      /* (endpoint tables only change under teams_lock, before peers may
       * address them: the client publishes first) */
      const gexi_Peer_t *me = gexi_ctx.peers ? &gexi_ctx.peers[gexi_ctx.rank] : NULL;
      if (k) {
        const struct gexi_ep_tab *tab = gexi_ctx.ep_tabs[k];
        me = tab ? &tab->peers[gexi_ctx.rank] : NULL;
        /* a payload the CPU would write into device memory */
        if (tab && tab->device[gexi_ctx.rank] && !(h->ep_index & GEXI_AM_EP_PLACED))
          return "ep_index (a segment of device memory takes placed payloads only)";
      }
      if (GEXI_UNLIKELY(!me || !me->seg_size)) return "dest (no bound segment here)";
      uint64_t off = h->dest - (uint64_t)me->seg_base;
      if (GEXI_UNLIKELY(h->dest < (uint64_t)me->seg_base || off > me->seg_size ||
                        h->nbytes > me->seg_size - off))
        return "dest (range outside the bound segment)";
      return NULL;
    }
  }
}

const char *gexi_am_check_handler(const struct gexi_am_hdr *h) {
  const gex_AM_Entry_t *e = &gexi_ctx.ep.handlers[h->handler];
  if (GEXI_UNLIKELY(!e->gex_fnptr)) return "handler (index not registered)";
  if (e->gex_flags & GEXI_FLAG_AM_ANY) return NULL; /* any category, direction, nargs (core/hooks.h) */
  static const gex_Flags_t cat_flag[] = {GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM, GEX_FLAG_AM_LONG};
  if (GEXI_UNLIKELY(h->category > GEXI_AM_LONG || !(e->gex_flags & cat_flag[h->category])))
    return "handler (not registered for this category)";
  if (GEXI_UNLIKELY(!(e->gex_flags & (h->is_req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY))))
    return "handler (not registered for this direction)";
  if (GEXI_UNLIKELY(e->gex_nargs != h->nargs)) return "nargs (not the handler's argument count)";
  return NULL;
}

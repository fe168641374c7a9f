/* rma/rma_ep.c -- RMA through a TM-pair to endpoints of index k > 0 whose
 * segment is not mapped here (core/ep_pair.c): a segment of device memory,
 * ours or a peer's (rma/rma_device.c); a neighbour's segment of client
 * memory, copied through the kernel (transport/shm/shm_cma.c); or a
 * peer's on another node, moved by the network transport into or out of
 * the region the peer exposed when it bound the segment (its key and the
 * remote address of its byte 0 are in gexi_ctx.ep_tabs[k]).  Also every
 * RMA through a pair whose local endpoint's segment is device memory, to
 * any index: the local buffer may be in that memory, which only the
 * device's copies reach (rma/rma_device.c).
 *
 * An operation to a peer on another node is carried as the primordial
 * endpoint's are: an NB or NBI one is in flight when the call returns, as
 * many at once as the caller starts, where the network transport can
 * (sock; ofi completes each on return).  Every other operation here is
 * complete when the call returns (a Put has landed at the peer, a Get's
 * data is here): a blocking, NB or NBI call initiated through such a pair
 * returns an event or implicit operation that is already done, which the
 * specification allows -- except an NB or NBI one that one copy by a
 * device carries out (rma/rma_device.c), which completes when that copy
 * does.  Its local completion is at return either way.  Mapped neighbours never come here: the inline path copies
 * (gex/gex_inline.h).
 */
#include <string.h>

#include "core/context.h"
#include "rma/rma_device.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

static gex_Event_t ep_rma(const char *fn, gex_TM_t tm, gex_Rank_t rank, int is_write,
                          void *local, void *remote, size_t nbytes, int mode, int lc_deferred) {
  if (nbytes == 0) return GEX_EVENT_INVALID;
  const struct gexi_team *t = gexi_tm(tm);
  const gex_EP_Index_t k = t->remote_index;
  const gexi_Peer_t *p = &GEXI_TM_PEERS(tm)[rank];
  const gex_Rank_t j = p->jobrank;
  if (!p->seg_size)
    gexi_fatal("%s: endpoint %u of rank %u has no published segment", fn, (unsigned)k,
               (unsigned)j);
  if (k && gexi_ctx.ep_tabs[k]->device[j])
    return gexi_rma_device(fn, tm, rank, k, is_write, local, (uintptr_t)remote, nbytes, mode);
  if (t->local_dev)
    return gexi_rma_device_to_host(fn, tm, rank, k, is_write, local, (uintptr_t)remote, nbytes);
  return gexi_rma_ep_host(fn, k, j, is_write, local, remote, nbytes, mode, lc_deferred);
}

gex_Event_t gexi_rma_ep_host(const char *fn, gex_EP_Index_t k, gex_Rank_t j, int is_write,
                             void *local, void *remote, size_t n, int mode, int lc_deferred) {
  const gexi_Peer_t *m = gexi_master_peer(k, j);
  if (m->local) {
    char *there = (char *)remote + m->delta;
    if (is_write)
      memcpy(there, local, n);
    else
      memcpy(local, there, n);
    return GEX_EVENT_INVALID;
  }
  if (k == 0) { /* the job's segments: the primordial pair's way */
    gex_TM_t w = gexi_tm_handle(gexi_ctx.ep.pair_tm);
    if (is_write)
      gexi_RMA_Put_remote(w, j, remote, local, n, GEX_EVENT_NOW, 0, GEXI_MODE_BLOCKING);
    else
      gexi_RMA_Get_remote(w, local, j, remote, n, 0, GEXI_MODE_BLOCKING);
    return GEX_EVENT_INVALID;
  }
  if (gexi_ctx.local_index[j] != GEX_RANK_INVALID) {
    if (is_write)
      gexi_shm_cma_write(fn, j, remote, local, n);
    else
      gexi_shm_cma_read(fn, j, local, remote, n);
    return GEX_EVENT_INVALID;
  }
  if (!gexi_ctx.net) gexi_fatal("%s: rank %u is not reachable (no network transport)", fn, j);
  const struct gexi_ep_tab *tab = gexi_ctx.ep_tabs[k];
  struct gexi_exposed_rma x = {local, tab->net_raddr[j] + ((uintptr_t)remote - m->seg_base),
                               tab->net_key[j], n, lc_deferred};
  return gexi_ctx.net->rma_exposed(j, is_write, &x, mode);
}

gex_Event_t gexi_rma_ep_put(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                            size_t nbytes, gex_Event_t *lc_opt, int mode) {
  gex_Event_t e = ep_rma("gex_RMA_Put", tm, rank, 1, (void *)src, dest, nbytes, mode, 0);
  if (mode == GEXI_MODE_NB && lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER &&
      lc_opt != GEX_EVENT_GROUP)
    *lc_opt = GEX_EVENT_INVALID;
  return e;
}

int gexi_rma_ep_put_nbi(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank, void *dest,
                        uint64_t lc_flags) {
  const gex_Event_t *lc = GEXI_LC_OF(lc_flags);
  ep_rma("gex_RMA_PutNBI", tm, rank, 1, (void *)src, dest, nbytes, GEXI_MODE_NBI,
         lc == GEX_EVENT_DEFER || lc == GEX_EVENT_GROUP);
  return 0;
}

gex_Event_t gexi_rma_ep_get(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                            int mode) {
  return ep_rma("gex_RMA_Get", tm, rank, 0, dest, src, nbytes, mode, 0);
}

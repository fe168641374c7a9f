/* rma/rma_ep.c -- RMA through a TM-pair to endpoints of index k > 0 whose
 * segment is not mapped here (core/ep_pair.c): a segment of device memory,
 * ours or a peer's (rma/rma_device.c); a neighbour's segment of client
 * memory, copied through the kernel (transport/shm/shm_cma.c); or a
 * peer's on another node, moved by the network transport into or out of
 * the region the peer exposed when it bound the segment (its key and the
 * remote address of its byte 0 are in gexi_ctx.ep_tabs[k]).
 *
 * Every operation here is complete when the call returns (a Put has landed
 * at the peer, a Get's data is here): a blocking, NB or NBI call initiated
 * through such a pair returns an event or implicit operation that is
 * already done, which the specification allows -- except an NB or NBI one
 * that one copy by a device carries out (rma/rma_device.c), which
 * completes when that copy does.  Its local completion is at return
 * either way.  Mapped neighbours never come here: the inline path copies
 * (gex/gex_inline.h).
 */
#include "core/context.h"
#include "rma/rma_device.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

static gex_Event_t ep_rma(const char *fn, gex_TM_t tm, gex_Rank_t rank, int is_write,
                          void *local, void *remote, size_t nbytes, int mode) {
  if (nbytes == 0) return GEX_EVENT_INVALID;
  const gex_EP_Index_t k = gexi_tm(tm)->remote_index;
  const gexi_Peer_t *p = &GEXI_TM_PEERS(tm)[rank];
  const gex_Rank_t j = p->jobrank;
  if (!p->seg_size)
    gexi_fatal("%s: endpoint %u of rank %u has no published segment", fn, (unsigned)k,
               (unsigned)j);
  const struct gexi_ep_tab *tab = gexi_ctx.ep_tabs[k];
  if (tab->device[j])
    return gexi_rma_device(fn, tm, rank, k, is_write, local, (uintptr_t)remote, nbytes, mode);
  if (gexi_ctx.local_index[j] != GEX_RANK_INVALID) {
    if (is_write)
      gexi_shm_cma_write(fn, j, remote, local, nbytes);
    else
      gexi_shm_cma_read(fn, j, local, remote, nbytes);
    return GEX_EVENT_INVALID;
  }
  if (!gexi_ctx.net) gexi_fatal("%s: rank %u is not reachable (no network transport)", fn, j);
  struct gexi_exposed_rma x = {local, tab->net_raddr[j] + ((uintptr_t)remote - p->seg_base),
                               tab->net_key[j], nbytes};
  gexi_ctx.net->rma_exposed(j, is_write, &x);
  return GEX_EVENT_INVALID;
}

gex_Event_t gexi_rma_ep_put(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                            size_t nbytes, gex_Event_t *lc_opt, int mode) {
  gex_Event_t e = ep_rma("gex_RMA_Put", tm, rank, 1, (void *)src, dest, nbytes, mode);
  if (mode == GEXI_MODE_NB && lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER &&
      lc_opt != GEX_EVENT_GROUP)
    *lc_opt = GEX_EVENT_INVALID;
  return e;
}

int gexi_rma_ep_put_nbi(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank, void *dest,
                        uint64_t lc_flags) {
  (void)lc_flags;
  ep_rma("gex_RMA_PutNBI", tm, rank, 1, (void *)src, dest, nbytes, GEXI_MODE_NBI);
  return 0;
}

gex_Event_t gexi_rma_ep_get(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                            int mode) {
  return ep_rma("gex_RMA_Get", tm, rank, 0, dest, src, nbytes, mode);
}

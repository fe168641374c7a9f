/* rma/rma_remote.c -- RMA to peers whose segment is not mapped in this
 * process: a neighbour whose segment is client memory (copied through the
 * kernel, transport/shm/shm_cma.c, complete at once), or a peer on another
 * node (handed to the network transport). */
#include <string.h>

#include "am/am_coalesce.h"
#include "core/complete.h"
#include "core/context.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

static inline int is_neighbour(gex_Rank_t jobrank) {
  return gexi_ctx.local_index[jobrank] != GEX_RANK_INVALID;
}

__attribute__((noinline)) static gex_Event_t put_remote(gex_Rank_t j, void *dest,
                                                        const void *src, size_t nbytes,
                                                        gex_Event_t *lc_opt, gex_Flags_t flags,
                                                        int mode) {
  /* Small NBI Puts off-node on software RMA: coalesced (docs/coalescing.md). */
  if (mode == GEXI_MODE_NBI && nbytes - 1 < gexi_ctx.co_put_max && !is_neighbour(j) &&
      gexi_co_now())
    return gexi_rma_co_put(j, dest, src, nbytes, flags) ? GEX_EVENT_NO_OP : GEX_EVENT_INVALID;
  if (is_neighbour(j)) {
    gexi_shm_cma_write("gex_RMA_Put", j, dest, src, nbytes);
    if (mode == GEXI_MODE_NB && lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER &&
        lc_opt != GEX_EVENT_GROUP)
      *lc_opt = GEX_EVENT_INVALID;
    return GEX_EVENT_INVALID;
  }
  if (!gexi_ctx.net) gexi_fatal("gex_RMA_Put: rank %u is not reachable (no network transport)", j);
  return gexi_ctx.net->put(j, dest, src, nbytes, lc_opt, flags, mode);
}

gex_Event_t gexi_RMA_Put_remote(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags,
                                int mode) {
  if (GEXI_UNLIKELY(gexi_tm_ep_path(tm)))
    return gexi_rma_ep_put(tm, rank, dest, src, nbytes, lc_opt, mode);
  return put_remote(gexi_tm_jobrank(tm, rank), dest, src, nbytes, lc_opt, flags, mode);
}

/* An NBI Put the network's put_nbi entry did not take at once: to a
 * neighbour (through the kernel), or the network transport's general path
 * (a peer off the node means there is one: without a transport every rank
 * is a neighbour, objects/client.c).  Also the teams' entry when there is no
 * network transport. */
int gexi_rma_put_nbi_general(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank,
                             void *dest, uint64_t lc_flags) {
  return gexi_rma_put_nbi_to(tm, src, nbytes, gexi_tm_jobrank(tm, rank), dest, lc_flags);
}

int gexi_rma_put_nbi_to(gex_TM_t unused, const void *src, size_t nbytes, gex_Rank_t j,
                        void *dest, uint64_t lc_flags) {
  (void)unused;
  return put_remote(j, dest, src, nbytes, GEXI_LC_OF(lc_flags), GEXI_FLAGS_OF(lc_flags),
                    GEXI_MODE_NBI) != 0;
}

/* put_nbi_remote's other cases, out of line so that its flood case keeps
 * its few registers: too large to coalesce, the network's entry; else
 * put_remote, which coalesces it if it can. */
__attribute__((noinline)) static int put_nbi_remote_slow(gex_TM_t tm, const void *src,
                                                         size_t nbytes, gex_Rank_t rank,
                                                         void *dest, uint64_t lc_flags) {
  if (nbytes - 1 >= gexi_ctx.co_put_max)
    return gexi_ctx.net->put_nbi(tm, src, nbytes, rank, dest, lc_flags);
  return gexi_rma_put_nbi_general(tm, src, nbytes, rank, dest, lc_flags);
}

/* The teams' entry where small Puts are coalesced.  The flood case, an
 * 8-byte Put that fits this thread's open batch for the target: no call, no
 * frame.  co_put_max is 0 when coalescing is off (rma/rma_coalesce.c).  A
 * neighbour is not excluded here: it has an open batch only when atomics
 * reach it by AM (GEX_AD_FORCE_AM), and a Put record in that batch is as
 * correct as a copy through the kernel. */
static int put_nbi_remote(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank,
                          void *dest, uint64_t lc_flags) {
  if (nbytes == 8 && gexi_ctx.co_put_max >= 8 && !gexi_in_handler_or_hsl()) {
    unsigned char *body = gexi_co_try_append(gexi_tm_jobrank(tm, rank), GEXI_CO_PUT,
                                             GEXI_AM_NBI_PUT, GEXI_CO_PUT_HDR + 8, 0);
    if (GEXI_LIKELY(body != NULL)) { /* the record gexi_rma_co_put would write */
      const uint64_t a = (uintptr_t)dest;
      uint64_t w;
      memcpy(&w, src, 8);
      memcpy(body, &a, GEXI_CO_PUT_HDR);
      memcpy(body + GEXI_CO_PUT_HDR, &w, 8);
      return 0;
    }
  }
  return put_nbi_remote_slow(tm, src, nbytes, rank, dest, lc_flags);
}

gexi_put_nbi_fn_t gexi_rma_put_nbi_entry(void) {
  if (gexi_ctx.co_put_max) return put_nbi_remote;
  return gexi_ctx.net ? gexi_ctx.net->put_nbi : gexi_rma_put_nbi_general;
}

gex_Event_t gexi_RMA_Get_remote(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                size_t nbytes, gex_Flags_t flags, int mode) {
  if (GEXI_UNLIKELY(gexi_tm_ep_path(tm)))
    return gexi_rma_ep_get(tm, dest, rank, src, nbytes, mode);
  gex_Rank_t j = gexi_tm_jobrank(tm, rank);
  if (is_neighbour(j)) {
    gexi_shm_cma_read("gex_RMA_Get", j, dest, src, nbytes);
    return GEX_EVENT_INVALID;
  }
  if (!gexi_ctx.net) gexi_fatal("gex_RMA_Get: rank %u is not reachable (no network transport)", j);
  return gexi_ctx.net->get(j, dest, src, nbytes, flags, mode);
}

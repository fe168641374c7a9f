/* core/ep_pair.c -- TM-pairs to endpoints of any index, and what this
 * process knows of the segments bound to other ranks' endpoints.
 *
 * gex_TM_Pair(ep, k) addresses endpoint k of every rank, by jobrank.  Its
 * peer table holds, for each rank, that endpoint's bound segment as the
 * inline RMA path reads it (gex/gex_inline.h): mapped here ('local') when a
 * neighbour's segment is memory libgex allocated, else reached out of line
 * (rma/rma_ep.c).  For k == 0 the table is a copy of the job's
 * (gexi_ctx.peers); for k > 0 a copy of gexi_ctx.ep_tabs[k]->peers, which
 * gex_EP_BindSegment and gex_EP_PublishBoundSegment fill
 * (objects/segment_bind.c).  Whenever one of those tables changes,
 * gexi_peers_sync_locked copies what changed into every pair and team.
 * A pair whose local endpoint has a device segment bound keeps every
 * entry 'not local' (struct gexi_team, local_dev).
 */
#include <stdlib.h>

#include "core/context.h"

struct gexi_ep_tab *gexi_ep_tab_locked(gex_EP_Index_t k) {
  struct gexi_ep_tab *t = gexi_ctx.ep_tabs[k];
  if (t) return t;
  gex_Rank_t n = gexi_ctx.size;
  t = calloc(1, sizeof *t);
  if (!t || !(t->peers = calloc(n, sizeof *t->peers)) ||
      !(t->net_key = calloc(n, sizeof *t->net_key)) ||
      !(t->net_raddr = calloc(n, sizeof *t->net_raddr)) ||
      !(t->device = calloc(n, sizeof *t->device)))
    gexi_fatal("out of memory for the table of endpoint index %u", (unsigned)k);
  for (gex_Rank_t j = 0; j < n; j++) t->peers[j].jobrank = j;
  gexi_ctx.ep_tabs[k] = t;
  return t;
}

__attribute__((noinline)) static gex_TM_t make_pair(struct gexi_EP *ep, gex_EP_Index_t k) {
  pthread_mutex_lock(&gexi_ctx.teams_lock);
  struct gexi_team *t = atomic_load_explicit(&ep->pairs[k], memory_order_relaxed);
  if (!t) {
    t = gexi_team_new(gexi_ctx.size, gexi_ctx.rank, true);
    t->client = ep->client;
    t->ep = ep;
    t->remote_index = k;
    t->ep_path = true;
    t->head.put_nbi = gexi_rma_ep_put_nbi;
    const struct gexi_ep_tab *tab = gexi_ep_tab_locked(k);
    memcpy(t->peers, tab->peers, gexi_ctx.size * sizeof(gexi_Peer_t));
    if (ep->pair_tm->local_dev) {
      t->local_dev = true;
      for (gex_Rank_t r = 0; r < gexi_ctx.size; r++) t->peers[r].local = 0;
    }
    atomic_store_explicit(&ep->pairs[k], t, memory_order_release);
  }
  pthread_mutex_unlock(&gexi_ctx.teams_lock);
  return gexi_tm_handle(t);
}

/* Equal arguments give equal values, and a pair never equals a team's
 * gex_TM_t.  Pairs live as long as the process. */
gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index) {
  if (remote_ep_index == 0) return gexi_tm_handle(local_ep->pair_tm);
  if (remote_ep_index >= gexi_max_eps())
    gexi_fatal("gex_TM_Pair: endpoint index %u does not exist (GASNET_MAXEPS is %u)",
               (unsigned)remote_ep_index, gexi_max_eps());
  struct gexi_team *t = atomic_load_explicit(&local_ep->pairs[remote_ep_index],
                                             memory_order_acquire);
  return t ? gexi_tm_handle(t) : make_pair(local_ep, remote_ep_index);
}

/* Every peer table holds copies of entries of a master table (the job's,
 * or an endpoint index's); when a segment becomes known (attach, bind,
 * publication) the master's entry changes first and these functions carry
 * it into the others. */
static void sync_table(gexi_Peer_t *t, gex_Rank_t n, const gexi_Peer_t *master, bool local_dev) {
  for (gex_Rank_t r = 0; r < n; r++) {
    const gexi_Peer_t *g = &master[t[r].jobrank];
    gexi_Peer_t *p = &t[r];
    const uint32_t local = local_dev ? 0 : g->local;
    /* Write only what changes: other threads may be reading other ranks'
     * entries (and unchanged ones) of the same table right now. */
    if (p->seg_base != g->seg_base || p->seg_size != g->seg_size || p->delta != g->delta ||
        p->local != local) {
      p->seg_base = g->seg_base;
      p->seg_size = g->seg_size;
      p->delta = g->delta;
      p->local = local;
    }
  }
}

void gexi_ep_pairs_local_dev_locked(struct gexi_EP *ep) {
  ep->pair_tm->local_dev = true;
  ep->pair_tm->ep_path = true;
  ep->pair_tm->head.put_nbi = gexi_rma_ep_put_nbi;
  for (unsigned k = 1; k < GEXI_MAX_EPS; k++) {
    struct gexi_team *t = atomic_load_explicit(&ep->pairs[k], memory_order_relaxed);
    if (t) t->local_dev = true; /* (its put_nbi entry is gexi_rma_ep_put_nbi already) */
  }
}

void gexi_peers_sync_locked(void) {
  gex_Rank_t n = gexi_ctx.size;
  uint32_t eps = atomic_load_explicit(&gexi_ctx.ep_count, memory_order_relaxed);
  for (uint32_t e = 0; e < eps; e++) {
    struct gexi_EP *ep = gexi_ctx.eps[e];
    if (ep->pair_tm) sync_table(ep->pair_tm->peers, n, gexi_ctx.peers, ep->pair_tm->local_dev);
    for (unsigned k = 1; k < GEXI_MAX_EPS; k++) {
      struct gexi_team *t = atomic_load_explicit(&ep->pairs[k], memory_order_relaxed);
      if (t) sync_table(t->peers, n, gexi_ctx.ep_tabs[k]->peers, t->local_dev);
    }
  }
  for (struct gexi_team *t = gexi_ctx.live_teams; t; t = t->live_next)
    sync_table(t->peers, t->head.size, gexi_ctx.peers, false);
}

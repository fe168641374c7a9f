/* objects/segment_bind.c -- binding a created segment to the endpoint and
 * publishing it to the other members of a team.
 *
 * What a rank knows about a member's bound segment is its entry in the peer
 * tables (gex/gex_inline.h): base and size in the owner's address space and,
 * when the memory is mapped here, the delta to the local mapping ('local'
 * set).  Every table (the job's, the TM-pair's, each team the client made)
 * holds a copy of the entry of each of its members; the job's table is the
 * master, and gexi_peers_sync_locked() (objects/team.c) copies what changed
 * into the others.
 *
 * Endpoints of index k > 0 have a master table of their own
 * (gexi_ctx.ep_tabs[k], core/ep_pair.c), which the TM-pairs to index k
 * copy; everything below applies to it as to the job's.
 *
 * gex_EP_BindSegment fills this process's own entry (and registers the
 * memory with the network transport, if one runs: the primordial
 * endpoint's segment as the segment, others as exposed regions, whose key
 * and remote address peers use).  gex_EP_PublishBoundSegment exchanges up
 * to E records per member over the team (E: the most endpoints any member
 * publishes, agreed first by a max reduction), by a bit-wise OR reduction
 * of an array that holds every member's records at its team rank (each
 * member contributes zeros elsewhere), then fills the entries of the
 * endpoints that were published:
 *   - a neighbour's segment that libgex allocated: mapped here through its
 *     owner's descriptor (/proc/<pid>/fd/<fd>, as at attach), 'local' set;
 *   - a neighbour's segment of client memory: cannot be mapped; 'local' clear,
 *     so RMA and AM Long reach it through the kernel (shm_cma.c);
 *   - a peer on another node: 'local' clear, its network key handed to the
 *     transport.
 * A bound segment never changes, so a later publication of a segment
 * already known changes nothing.  gex_Segment_Destroy may destroy a
 * segment bound to endpoints of index > 0 (the reference allows it, and
 * UPC++ does it when a device allocator goes): this process forgets it
 * (gexi_segment_unbind), and those endpoints are never bound again, so
 * no peer's entry for them ever changes; a peer that still reaches it
 * errs, and this process's checks end the job naming it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gasnet_coll.h>

#include "core/context.h"
#include "mk/mk.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

/* The master entry of rank j's endpoint of index k: the job's table for
 * k == 0, else index k's (*tab, made if needed).  teams_lock held. */
static gexi_Peer_t *master_entry(gex_EP_Index_t k, gex_Rank_t j, struct gexi_ep_tab **tab) {
  *tab = k ? gexi_ep_tab_locked(k) : NULL;
  return k ? &(*tab)->peers[j] : &gexi_ctx.peers[j];
}

/* ---- gex_EP_BindSegment ---------------------------------------------------------- */
int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t seg, gex_Flags_t flags) {
  gexi_check_init("gex_EP_BindSegment");
  pthread_mutex_lock(&gexi_ctx.teams_lock);
  const char *bad = ep == GEX_EP_INVALID          ? "GEX_EP_INVALID"
                    : seg == GEX_SEGMENT_INVALID  ? "GEX_SEGMENT_INVALID"
                    : flags                       ? "flags must be 0"
                    : !gexi_ep_valid(ep)          ? "not an endpoint of this process"
                    : seg->client != ep->client   ? "the segment belongs to another client"
                    : ep->segment ? "the endpoint already has a bound segment"
                    : ep->seg_destroyed ? "the endpoint's segment was destroyed (libgex binds an "
                                          "endpoint once)"
                                  : NULL; /* (a segment may be bound to several endpoints) */
  if (bad) {
    pthread_mutex_unlock(&gexi_ctx.teams_lock);
    gexi_warn("gex_EP_BindSegment: %s", bad);
    return GASNET_ERR_BAD_ARG;
  }
  const bool device = !gexi_mk_is_host(seg->kind);
  if (device && ep->index == 0) {
    pthread_mutex_unlock(&gexi_ctx.teams_lock);
    gexi_warn("gex_EP_BindSegment: a segment of device memory is bound to an endpoint made by "
              "gex_EP_Create, not to the primordial one");
    return GASNET_ERR_BAD_ARG;
  }
  gex_Rank_t me = gexi_ctx.rank;
  const gex_EP_Index_t k = ep->index;
  struct gexi_ep_tab *tab;
  gexi_Peer_t *p = master_entry(k, me, &tab);
  p->seg_base = (uintptr_t)seg->addr;
  p->seg_size = seg->size;
  p->delta = 0;
  /* Device memory is never touched in place: RMA to it, even our own, goes
   * the out-of-line way (rma/rma_device.c), and nothing is registered with
   * the network for it. */
  p->local = !device;
  if (device) {
    tab->device[me] = 1;
  } else if (gexi_ctx.net && k == 0) { /* our key goes out with the next publication */
    gexi_ctx.net->seg_register(seg->addr, seg->size, &seg->net_key);
    seg->net_registered = true;
    gexi_ctx.net->seg_peer(me, seg->net_key); /* provider-native atomics reach us too */
  } else if (gexi_ctx.net) {
    /* One exposed region serves every endpoint of index > 0 it is bound to. */
    if (!seg->net_exposed)
      seg->net_exposed = gexi_ctx.net->expose(seg->addr, seg->size, &seg->net_xkey, &seg->net_raddr);
    tab->net_key[me] = seg->net_xkey;
    tab->net_raddr[me] = seg->net_raddr;
  }
  if (!seg->ep) seg->ep = ep; /* (the first of the endpoints it is bound to) */
  ep->segment = seg;
  if (device) gexi_ep_pairs_local_dev_locked(ep);
  gexi_peers_sync_locked();
  pthread_mutex_unlock(&gexi_ctx.teams_lock);
  return GASNET_OK;
}

const char *gexi_segment_unbind(struct gexi_Segment *seg) {
  pthread_mutex_lock(&gexi_ctx.teams_lock);
  const uint32_t eps = atomic_load_explicit(&gexi_ctx.ep_count, memory_order_relaxed);
  for (uint32_t e = 0; e < eps; e++)
    if (gexi_ctx.eps[e]->segment == seg && gexi_ctx.eps[e]->index == 0) {
      pthread_mutex_unlock(&gexi_ctx.teams_lock);
      return "it is bound to the primordial endpoint";
    }
  const gex_Rank_t me = gexi_ctx.rank;
  for (uint32_t e = 0; e < eps; e++) {
    struct gexi_EP *ep = gexi_ctx.eps[e];
    if (ep->segment != seg) continue;
    struct gexi_ep_tab *tab;
    gexi_Peer_t *p = master_entry(ep->index, me, &tab);
    *p = (gexi_Peer_t){.jobrank = me};
    tab->device[me] = 0;
    tab->net_key[me] = tab->net_raddr[me] = 0;
    ep->segment = NULL;
    ep->seg_destroyed = true;
  }
  if (seg->net_exposed) gexi_ctx.net->unexpose(seg->net_exposed);
  seg->net_exposed = NULL;
  seg->ep = NULL;
  gexi_peers_sync_locked();
  pthread_mutex_unlock(&gexi_ctx.teams_lock);
  return NULL;
}

/* ---- gex_EP_PublishBoundSegment ---------------------------------------------------- */
/* One endpoint's record.  Only 64-bit words: the exchange ORs them. */
enum { PUB_NONE = 0, PUB_NO_SEGMENT = 1, PUB_SEGMENT = 2 };
struct pub_rec {
  uint64_t state;    /* PUB_*: nothing, an endpoint without a segment, a segment */
  uint64_t jobrank;  /* of the publisher (checked against the team's table) */
  uint64_t ep_index;
  uint64_t base, size;
  uint64_t net_key, net_raddr; /* net_raddr: index > 0 only (an exposed region) */
  uint64_t pid;
  uint64_t fd_plus1; /* libgex-allocated memory: its descriptor + 1; 0: client memory */
  uint64_t device;   /* 1: device memory (mk/mk.h) */
  /* Device memory that neighbours may open (ipc_ok 1): its description. */
  uint64_t ipc_ok, ipc_offset;
  uint64_t ipc[GEXI_DEV_IPC_BYTES / 8];
};
_Static_assert(sizeof(struct pub_rec) % sizeof(uint64_t) == 0, "records are 64-bit words");

static void make_record(struct pub_rec *r, const struct gexi_EP *ep) {
  const struct gexi_Segment *s = ep->segment;
  r->jobrank = gexi_ctx.rank;
  r->ep_index = ep->index;
  if (!s) {
    r->state = PUB_NO_SEGMENT;
    return;
  }
  r->state = PUB_SEGMENT;
  r->base = (uint64_t)(uintptr_t)s->addr;
  r->size = s->size;
  r->net_key = ep->index ? s->net_xkey : s->net_key;
  r->net_raddr = ep->index ? s->net_raddr : 0;
  r->pid = (uint64_t)getpid();
  r->fd_plus1 = s->fd >= 0 ? (uint64_t)s->fd + 1 : 0;
  struct gexi_device *d = gexi_mk_device(s->kind);
  r->device = d != NULL;
  struct gexi_dev_ipc h;
  const char *why;
  if (d && !d->ops->ipc_export(d, (uintptr_t)s->addr, &h, &why)) {
    r->ipc_ok = 1;
    r->ipc_offset = h.offset;
    memcpy(r->ipc, h.bytes, sizeof r->ipc);
  }
}

/* Fill the entry of the endpoint that sent r (already checked) in its
 * index's master table. */
static void learn(const struct pub_rec *r) {
  gex_Rank_t j = (gex_Rank_t)r->jobrank;
  const gex_EP_Index_t k = (gex_EP_Index_t)r->ep_index;
  struct gexi_ep_tab *tab;
  gexi_Peer_t *p = master_entry(k, j, &tab);
  if (p->seg_size) { /* known already (attach, or an earlier publication) */
    if (p->seg_base != r->base || p->seg_size != r->size)
      gexi_fatal("gex_EP_PublishBoundSegment: rank %u published [%p,+%zu) for endpoint %u but "
                 "its bound segment is [%p,+%zu)",
                 (unsigned)j, (void *)(uintptr_t)r->base, (size_t)r->size, (unsigned)k,
                 (void *)p->seg_base, (size_t)p->seg_size);
    return;
  }
  gex_Rank_t li = gexi_ctx.local_index[j];
  intptr_t delta = 0;
  uint32_t local = 0;
  if (r->device > 1 || r->ipc_ok > 1 || (r->device && (k == 0 || r->fd_plus1)) ||
      (r->ipc_ok && !r->device))
    gexi_fatal("gex_EP_PublishBoundSegment: malformed record from rank %u", (unsigned)j);
  if (r->device) {
    p->seg_base = (uintptr_t)r->base;
    p->seg_size = (uintptr_t)r->size;
    p->delta = 0;
    p->local = 0;
    tab->device[j] = 1;
    if (li != GEX_RANK_INVALID && r->ipc_ok && j != gexi_ctx.rank) {
      if (!tab->dev_peers && !(tab->dev_peers = calloc(gexi_ctx.size, sizeof *tab->dev_peers)))
        gexi_fatal("out of memory");
      struct gexi_dev_peer *dp = &tab->dev_peers[j];
      memcpy(dp->h.bytes, r->ipc, sizeof dp->h.bytes);
      dp->h.offset = r->ipc_offset;
      dp->has_h = true;
    }
    return;
  }
  if (li != GEX_RANK_INVALID && r->fd_plus1) {
    if ((int32_t)r->pid != gexi_ctx.shm->pid[li] || r->fd_plus1 > INT32_MAX)
      gexi_fatal("gex_EP_PublishBoundSegment: malformed record from rank %u", (unsigned)j);
    void *m = gexi_shm_map_peer("segment", (int32_t)r->pid, (int32_t)(r->fd_plus1 - 1),
                                (size_t)r->size);
    delta = (intptr_t)((uintptr_t)m - (uintptr_t)r->base);
    local = 1;
  }
  p->seg_base = (uintptr_t)r->base;
  p->seg_size = (uintptr_t)r->size;
  p->delta = delta;
  p->local = local; /* a neighbour of client memory: 0, RMA goes through the kernel */
  if (!gexi_ctx.net) return;
  if (k == 0) {
    gexi_ctx.net->seg_peer(j, r->net_key);
  } else {
    tab->net_key[j] = r->net_key;
    tab->net_raddr[j] = r->net_raddr;
  }
}

/* Why this process's list of endpoints cannot be published, or NULL. */
static const char *check_eps(gex_EP_t *eps, size_t num_eps) {
  if (num_eps && !eps) return "eps is NULL";
  if (num_eps > gexi_max_eps()) return "more endpoints than GASNET_MAXEPS";
  uint64_t seen = 0;
  for (size_t i = 0; i < num_eps; i++) {
    if (!gexi_ep_valid(eps[i])) return "not an endpoint of this process";
    if (seen >> eps[i]->index & 1) return "an endpoint is listed twice";
    seen |= (uint64_t)1 << eps[i]->index;
  }
  return NULL;
}

int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags) {
  const char *fn = "gex_EP_PublishBoundSegment";
  gexi_check_can_communicate(fn);
  if (tm == GEX_TM_INVALID || gexi_tm(tm)->is_pair) {
    gexi_warn("%s: the team is %s", fn, tm == GEX_TM_INVALID ? "GEX_TM_INVALID" : "a TM-pair");
    return GASNET_ERR_BAD_ARG;
  }
  /* An invalid argument is reported after the exchange, which every member
   * joins regardless: a member leaving early would leave the others waiting. */
  const char *bad = flags ? "flags must be 0" : check_eps(eps, num_eps);
  struct gexi_team *t = gexi_tm(tm);
  gex_Rank_t n = t->head.size, me = t->head.rank;
  /* How many records each member sends: the most any member publishes. */
  uint64_t e_mine = bad ? 0 : num_eps, e = 0;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &e, &e_mine, GEX_DT_U64, sizeof e, 1, GEX_OP_MAX,
                                        NULL, NULL, 0));
  if (e > GEXI_MAX_EPS) gexi_fatal("%s: a member publishes %llu endpoints", fn,
                                   (unsigned long long)e);
  if (e == 0) goto done;
  struct pub_rec *all = calloc(2 * (size_t)n * e, sizeof *all);
  if (!all) gexi_fatal("%s: out of memory for %u records", fn, (unsigned)(n * e));
  struct pub_rec *mine = all + (size_t)n * e;
  for (size_t i = 0; i < e_mine; i++) make_record(&mine[(size_t)me * e + i], eps[i]);
  const size_t words = (size_t)n * e * sizeof *all / sizeof(uint64_t);
  gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, all, mine, GEX_DT_U64, sizeof(uint64_t), words,
                                        GEX_OP_OR, NULL, NULL, 0));
  pthread_mutex_lock(&gexi_ctx.teams_lock);
  for (size_t i = 0; i < (size_t)n * e; i++) {
    const struct pub_rec *rec = &all[i];
    if (rec->state == PUB_NONE || rec->state == PUB_NO_SEGMENT) continue;
    /* Records may have crossed the network: check them before use. */
    gex_Rank_t r = (gex_Rank_t)(i / e);
    if (rec->state != PUB_SEGMENT || rec->jobrank != t->peers[r].jobrank || rec->size == 0 ||
        rec->base + rec->size < rec->base || rec->ep_index >= GEXI_MAX_EPS)
      gexi_fatal("%s: malformed record from team rank %u", fn, (unsigned)r);
    if (rec->jobrank != gexi_ctx.rank) learn(rec);
  }
  gexi_peers_sync_locked();
  pthread_mutex_unlock(&gexi_ctx.teams_lock);
  free(all);
done:
  if (bad) {
    gexi_warn("%s: %s", fn, bad);
    return GASNET_ERR_BAD_ARG;
  }
  return GASNET_OK;
}

/* objects/segment.c -- gex_Segment_Attach and the segment queries (segments
 * made by the client: objects/segment_create.c and objects/segment_bind.c).
 *
 * The segment is an anonymous shared-memory object (memfd).  Every process
 * of the node maps every other's segment, and the peer table records, per
 * rank, the owner's base address and the delta to the local mapping, so an
 * on-node RMA is one memcpy (gex/gex_inline.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/context.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

struct seg_info {
  uint64_t base, size;
  int32_t pid, fd;
  uint64_t net_key; /* remote key for the network transport (if any) */
};

/* The largest segment of this process: GASNET_MAX_SEGSIZE (core/env.h:
 * bytes or a fraction of physical memory, for each process ("/P") or for
 * the host ("/H", shared by the processes of this host)), else half of
 * physical memory shared by the neighbourhood's processes.  Rounded down to
 * a page, and never below one. */
uintptr_t gasnet_getMaxLocalSegmentSize(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  const uint64_t phys =
      (pages > 0 && psz > 0) ? (uint64_t)pages * (uint64_t)psz : (uint64_t)1 << 32;
  const int init = gexi_ctx.initialized;
  struct gexi_segsize spec;
  int given = init ? gexi_ctx.env.have_max_segsize : gexi_env_segsize(&spec);
  if (init) spec = gexi_ctx.env.max_segsize;
  uint64_t max;
  if (given) {
    max = spec.is_fraction ? (uint64_t)(spec.fraction * (double)phys) : spec.bytes;
    if (spec.per_host) max /= init ? gexi_ctx.host_size : 1;
  } else {
    max = phys / 2 / (init ? gexi_ctx.nbrhd_size : 1);
  }
  if (max > UINTPTR_MAX) max = UINTPTR_MAX;
  max &= ~(uint64_t)(GASNET_PAGESIZE - 1);
  return max ? (uintptr_t)max : GASNET_PAGESIZE;
}
uintptr_t gasnet_getMaxGlobalSegmentSize(void) { return gasnet_getMaxLocalSegmentSize(); }

void (**gexi_client_attach_hook_p(void))(void *, uintptr_t) {
  return &gexi_ctx.client_attach_hook;
}

int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size) {
  gexi_check_can_communicate("gex_Segment_Attach");
  if (gexi_ctx.segment_attached || gexi_ctx.ep.segment) {
    gexi_warn("gex_Segment_Attach: the endpoint already has a bound segment (%s)",
              gexi_ctx.segment_attached ? "attached" : "gex_EP_BindSegment");
    return GASNET_ERR_RESOURCE;
  }
  if (tm != gexi_tm_handle(gexi_ctx.tm) || !segment_p) return GASNET_ERR_BAD_ARG;
  uintptr_t max = gasnet_getMaxLocalSegmentSize();
  if (size == 0 || size % GASNET_PAGESIZE) {
    gexi_warn("gex_Segment_Attach: size %zu is not a non-zero multiple of %d", (size_t)size,
              GASNET_PAGESIZE);
    return GASNET_ERR_BAD_ARG;
  }
  if (size > max) {
    gexi_warn("gex_Segment_Attach: size %zu exceeds the maximum %zu (GASNET_MAX_SEGSIZE)",
              (size_t)size, (size_t)max);
    return GASNET_ERR_RESOURCE;
  }
  void *base;
  int fd = gexi_shm_create("gex-segment", size, &base);
  if (gexi_ctx.client_attach_hook) gexi_ctx.client_attach_hook(base, size);
  struct seg_info mine = {(uint64_t)(uintptr_t)base, size, (int32_t)getpid(), fd, 0};
  if (gexi_ctx.net) gexi_ctx.net->seg_register(base, size, &mine.net_key);
  struct seg_info *all = calloc(gexi_ctx.size, sizeof *all);
  if (!all) gexi_fatal("out of memory");
  gexi_ctx.boot->allgather(gexi_ctx.boot, &mine, all, sizeof mine);
  pthread_mutex_lock(&gexi_ctx.teams_lock); /* the job's table changes */
  for (gex_Rank_t j = 0; j < gexi_ctx.size; j++) {
    gexi_Peer_t *p = &gexi_ctx.peers[j];
    if (p->local) {
      void *local = (j == gexi_ctx.rank)
                        ? base
                        : gexi_shm_map_peer("segment", all[j].pid, all[j].fd, all[j].size);
      p->delta = (intptr_t)((uintptr_t)local - (uintptr_t)all[j].base);
    }
    p->seg_base = (uintptr_t)all[j].base;
    p->seg_size = (uintptr_t)all[j].size;
    /* Every peer's key, on-node ones too: provider-native atomics reach
     * every member of a domain through the network (docs/atomics.md). */
    if (gexi_ctx.net) gexi_ctx.net->seg_peer(j, all[j].net_key);
    gexi_ctx.ep.pair_tm->peers[j] = *p;
  }
  gexi_peers_sync_locked(); /* teams the client made before attaching */
  pthread_mutex_unlock(&gexi_ctx.teams_lock);
  gexi_bootstrap_barrier(gexi_ctx.boot); /* every peer mapped our segment */
  close(fd);
  free(all);
  struct gexi_Segment *s = &gexi_ctx.segment;
  s->client = &gexi_ctx.client;
  s->addr = base;
  s->size = size;
  s->kind = GEX_MK_HOST;
  s->id = GEXI_SEG_ID_ATTACH;
  s->fd = -1; /* closed: every neighbour mapped it above */
  s->ep = &gexi_ctx.ep;
  s->net_registered = gexi_ctx.net != NULL;
  s->net_key = mine.net_key;
  gexi_ctx.ep.segment = s;
  gexi_ctx.segment_attached = true;
  *segment_p = s;
  return GASNET_OK;
}

gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg) { return seg->client; }
gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg) { return seg->flags; }
void *gex_Segment_QueryAddr(gex_Segment_t seg) { return seg->addr; }
uintptr_t gex_Segment_QuerySize(gex_Segment_t seg) { return seg->size; }
void gex_Segment_SetCData(gex_Segment_t seg, const void *val) { seg->cdata = (void *)val; }
void *gex_Segment_QueryCData(gex_Segment_t seg) { return seg->cdata; }

gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                       void **localaddr_p, uintptr_t *size_p,
                                       gex_Flags_t flags) {
  /* IMMEDIATE only; every answer is local knowledge: never communicates. */
  gexi_check_init("gex_EP_QueryBoundSegmentNB");
  GEXI_CHECK_FLAGS("gex_EP_QueryBoundSegmentNB", flags, GEX_FLAG_IMMEDIATE);
  if (rank >= GEXI_TM_SIZE(tm))
    gexi_fatal("gex_EP_QueryBoundSegmentNB: rank %u out of range (team size %u)", (unsigned)rank,
               (unsigned)GEXI_TM_SIZE(tm));
  const gexi_Peer_t *p = &GEXI_TM_PEERS(tm)[rank];
  const struct gexi_team *t = gexi_tm(tm);
  if (t->local_dev) /* its entries are never 'local' (context.h): the master's say where */
    p = gexi_master_peer(t->remote_index, p->jobrank);
  if (size_p) *size_p = p->seg_size;
  if (p->seg_size) {
    if (owneraddr_p) *owneraddr_p = (void *)p->seg_base;
    if (localaddr_p) *localaddr_p = p->local ? (void *)(p->seg_base + (uintptr_t)p->delta) : NULL;
  }
  return GEX_EVENT_INVALID;
}

int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                           uintptr_t *size_p) {
  if (rank >= GEXI_TM_SIZE(tm) || GEXI_TM_PEERS(tm)[rank].seg_size == 0)
    return GASNET_ERR_BAD_ARG;
  gex_EP_QueryBoundSegmentNB(tm, rank, owneraddr_p, localaddr_p, size_p, 0);
  return GASNET_OK;
}

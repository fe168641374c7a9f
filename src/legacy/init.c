/* legacy/init.c -- gasnet_init, gasnet_attach and the segment and node
 * queries of GASNet-1, over gex_Client_Init, gex_EP_RegisterHandlers and
 * gex_Segment_Attach. */
#include <stdlib.h>

#include "core/hooks.h"
#include "legacy/legacy.h"

int gasnet_init(int *argc, char ***argv) {
  if (gexl_ctx.tm) return GASNET_ERR_NOT_INIT; /* a client exists already */
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  /* The client-init hook (context.c) fills gexl_ctx and gathers the node
   * groups before this returns. */
  int rc = gex_Client_Init(&client, &ep, &tm, "GASNET1", argc, argv, GEX_FLAG_USES_GASNET1);
  if (rc != GASNET_OK) return rc;
  gexl_ctx.gasnet_init_called = 1;
  return GASNET_OK;
}

/* GASNet-1 handler tables say nothing of category, direction or argument
 * count, so every entry is registered with the core's GEXI_FLAG_AM_ANY
 * (core/hooks.h).  Index-0 entries get the highest free index, as
 * gex_EP_RegisterHandlers assigns them, and the index is written back. */
static int register_table(gasnet_handlerentry_t *table, int numentries) {
  if (numentries == 0) return GASNET_OK;
  gex_AM_Entry_t *entries = calloc((size_t)numentries, sizeof *entries);
  if (!entries) return GASNET_ERR_RESOURCE;
  for (int i = 0; i < numentries; i++) {
    entries[i].gex_index = table[i].index;
    entries[i].gex_fnptr = table[i].fnptr;
    entries[i].gex_flags = GEXI_FLAG_AM_ANY;
    entries[i].gex_nargs = 0;
    entries[i].gex_name = "gasnet_attach handler";
  }
  int rc = gex_EP_RegisterHandlers(gexl_ctx.ep, entries, (size_t)numentries);
  if (rc == GASNET_OK)
    for (int i = 0; i < numentries; i++) table[i].index = entries[i].gex_index;
  free(entries);
  return rc;
}

int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                  uintptr_t minheapoffset) {
  (void)minheapoffset; /* no heap is placed after the segment */
  if (!gexl_ctx.gasnet_init_called || gexl_ctx.gasnet_attach_called) {
    fprintf(stderr, "libgex: gasnet_attach: %s\n",
            gexl_ctx.gasnet_attach_called ? "called twice" : "called before gasnet_init");
    return GASNET_ERR_NOT_INIT;
  }
  if (numentries < 0 || (numentries > 0 && !table)) return GASNET_ERR_BAD_ARG;
  if (segsize % GASNET_PAGESIZE) {
    fprintf(stderr, "libgex: gasnet_attach: segsize %zu is not a multiple of GASNET_PAGESIZE\n",
            (size_t)segsize);
    return GASNET_ERR_BAD_ARG;
  }
  /* A zero-length segment becomes one page (GASNet-EX has no empty segments). */
  if (segsize == 0) segsize = GASNET_PAGESIZE;
  int rc = register_table(table, numentries);
  if (rc != GASNET_OK) return rc;
  gex_Segment_t seg;
  rc = gex_Segment_Attach(&seg, gexl_ctx.tm, segsize);
  if (rc != GASNET_OK) return rc;
  (void)gexl_delta_miss(0); /* fills the checks-off fast path's table */
  /* Every rank has registered its handlers before any rank returns. */
  gex_Event_Wait(gex_Coll_BarrierNB(gexl_ctx.tm, 0));
  gexl_ctx.gasnet_attach_called = 1;
  return GASNET_OK;
}

static int segment_attached(void) {
  gex_Segment_t seg = GEX_SEGMENT_INVALID;
  gasnet_QueryGexObjects(NULL, NULL, NULL, &seg);
  return seg != GEX_SEGMENT_INVALID;
}

int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries) {
  gex_TM_t tm = gexl_team("gasnet_getSegmentInfo");
  if (numentries < 0 || (numentries > 0 && !seginfo_table)) return GASNET_ERR_BAD_ARG;
  if (!segment_attached()) return GASNET_ERR_NOT_INIT;
  gex_Rank_t n = gex_TM_QuerySize(tm);
  for (gex_Rank_t i = 0; i < n && i < (gex_Rank_t)numentries; i++) {
    void *owner = NULL;
    uintptr_t size = 0;
    if (gex_Segment_QueryBound(tm, i, &owner, NULL, &size) != GASNET_OK) {
      owner = NULL;
      size = 0;
    }
    seginfo_table[i].addr = owner;
    seginfo_table[i].size = size;
  }
  return GASNET_OK;
}

int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries) {
  gex_TM_t tm = gexl_team("gasnet_getNodeInfo");
  if (numentries < 0 || (numentries > 0 && !nodeinfo_table)) return GASNET_ERR_BAD_ARG;
  /* The groups are gathered for clients that enabled the GASNet-1 API. */
  if (!gexl_ctx.groups) return GASNET_ERR_NOT_INIT;
  int attached = segment_attached();
  gex_Rank_t n = gex_TM_QuerySize(tm);
  for (gex_Rank_t i = 0; i < n && i < (gex_Rank_t)numentries; i++) {
    nodeinfo_table[i].host = gexl_ctx.groups[i].host;
    nodeinfo_table[i].supernode = gexl_ctx.groups[i].supernode;
    uintptr_t offset = 0;
    void *owner = NULL, *local = NULL;
    if (attached && gex_Segment_QueryBound(tm, i, &owner, &local, NULL) == GASNET_OK && local)
      offset = (uintptr_t)local - (uintptr_t)owner;
    nodeinfo_table[i].offset = offset;
  }
  return GASNET_OK;
}

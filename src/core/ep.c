/* core/ep.c -- endpoint creation and queries, AM handler registration
 * (the TM-pairs of endpoints and what they reach: core/ep_pair.c). */
#include <stdio.h>
#include <stdlib.h>

#include "core/context.h"
#include "core/complete.h"
#include "core/hooks.h"
#include "identity/identity.h"

gex_Client_t gex_EP_QueryClient(gex_EP_t ep) { return ep->client; }
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep) { return ep->flags; }
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep) { return ep->segment; }
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep) { return ep->index; }
void gex_EP_SetCData(gex_EP_t ep, const void *val) { ep->cdata = (void *)val; }

unsigned gexi_max_eps(void) { return gexi_conduit_one_ep() ? 1 : GEXI_MAX_EPS; }

int gexi_ep_valid(gex_EP_t ep) {
  if (!ep) return 0;
  uint32_t n = atomic_load_explicit(&gexi_ctx.ep_count, memory_order_acquire);
  for (uint32_t i = 0; i < n; i++)
    if (gexi_ctx.eps[i] == ep) return 1;
  return 0;
}

/* A new endpoint takes the next index; GASNET_ERR_RESOURCE once the
 * identity's GASNET_MAXEPS exist, as the reference answers.  Whatever its
 * capabilities, it serves RMA and VIS through TM-pairs; Active Messages
 * through any TM-pair reach the target process's handler table (the
 * primordial endpoint's, where clients register), and collectives need a
 * team, which only the primordial endpoint joins (docs/segments.md). */
int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities,
                  gex_Flags_t flags) {
  gexi_check_init("gex_EP_Create");
  const char *bad = !ep_p                          ? "ep_p is NULL"
                    : client != &gexi_ctx.client   ? "not the client of this process"
                    : !capabilities || capabilities & ~GEX_EP_CAPABILITY_ALL
                        ? "capabilities must be a non-empty set of GEX_EP_CAPABILITY_*"
                    : flags & ~GEX_FLAG_HINT_ACCEL_ALL ? "flags other than GEX_FLAG_HINT_ACCEL_*"
                                                       : NULL;
  if (bad) {
    gexi_warn("gex_EP_Create: invalid argument: %s", bad);
    return GASNET_ERR_BAD_ARG;
  }
  pthread_mutex_lock(&gexi_ctx.teams_lock);
  uint32_t k = atomic_load_explicit(&gexi_ctx.ep_count, memory_order_relaxed);
  if (k >= gexi_max_eps()) {
    pthread_mutex_unlock(&gexi_ctx.teams_lock);
    gexi_warn("gex_EP_Create: this process has GASNET_MAXEPS (%u) endpoints already",
              gexi_max_eps());
    return GASNET_ERR_RESOURCE;
  }
  struct gexi_EP *ep = calloc(1, sizeof *ep);
  struct gexi_team *pair = ep ? gexi_team_new(gexi_ctx.size, gexi_ctx.rank, true) : NULL;
  if (!pair) {
    pthread_mutex_unlock(&gexi_ctx.teams_lock);
    free(ep);
    return GASNET_ERR_RESOURCE;
  }
  ep->client = client;
  ep->flags = flags;
  ep->index = (gex_EP_Index_t)k;
  ep->caps = capabilities;
  pthread_mutex_init(&ep->reg_lock, NULL);
  /* Its pair to index 0 is the primordial pair's twin: same table, same
   * entry, only the endpoint differs. */
  const struct gexi_team *p0 = gexi_ctx.ep.pair_tm;
  memcpy(pair->peers, p0->peers, gexi_ctx.size * sizeof(gexi_Peer_t));
  pair->head.put_nbi = p0->head.put_nbi;
  pair->client = client;
  pair->ep = ep;
  ep->pair_tm = pair;
  gexi_ctx.eps[k] = ep;
  atomic_store_explicit(&gexi_ctx.ep_count, k + 1, memory_order_release);
  pthread_mutex_unlock(&gexi_ctx.teams_lock);
  *ep_p = ep;
  return GASNET_OK;
}
void *gex_EP_QueryCData(gex_EP_t ep) { return ep->cdata; }

static int valid_entry_flags(gex_Flags_t f) {
  if (f & GEXI_FLAG_AM_ANY) return 1; /* any category and direction (core/hooks.h) */
  gex_Flags_t cat = f & (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG);
  gex_Flags_t dir = f & GEX_FLAG_AM_REQREP;
  return (cat == GEX_FLAG_AM_SHORT || cat == GEX_FLAG_AM_MEDIUM || cat == GEX_FLAG_AM_LONG ||
          cat == GEX_FLAG_AM_MEDLONG) &&
         dir != 0;
}

/* Registration rules: fixed indices first (each in [GEX_AM_INDEX_BASE,255]
 * and unused so far), then every index-0 entry, in table order, takes the
 * highest index still free.  The table is validated whole before anything
 * is registered, so a failed call changes nothing. */
int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries) {
  gexi_check_init("gex_EP_RegisterHandlers");
  if (numentries && !table) return GASNET_ERR_BAD_ARG;
  int rc = GASNET_OK;
  pthread_mutex_lock(&ep->reg_lock);
  unsigned char taken[256];
  for (int i = 0; i < 256; i++) taken[i] = ep->handlers[i].gex_fnptr != NULL;
  /* Indices below GEX_AM_INDEX_BASE belong to the library (am/am_internal.h):
   * a client entry can neither name one (checked below) nor be given one. */
  for (int i = 0; i < GEX_AM_INDEX_BASE; i++) taken[i] = 1;
  size_t zeros = 0;
  for (size_t i = 0; i < numentries && rc == GASNET_OK; i++) {
    const gex_AM_Entry_t *e = &table[i];
    const char *name = e->gex_name ? e->gex_name : "(unnamed)";
    if (!e->gex_fnptr || !valid_entry_flags(e->gex_flags) || e->gex_nargs > GEXI_AM_MAX_ARGS) {
      gexi_warn("gex_EP_RegisterHandlers: entry %zu (%s): needs a function, one AM category "
                "and request/reply flags, and at most %d arguments",
                i, name, GEXI_AM_MAX_ARGS);
      rc = GASNET_ERR_BAD_ARG;
    } else if (e->gex_index == 0) {
      zeros++;
    } else if (e->gex_index < GEX_AM_INDEX_BASE) {
      gexi_warn("gex_EP_RegisterHandlers: entry %zu (%s): index %u is below GEX_AM_INDEX_BASE (%d)",
                i, name, (unsigned)e->gex_index, GEX_AM_INDEX_BASE);
      rc = GASNET_ERR_BAD_ARG;
    } else if (taken[e->gex_index]) {
      gexi_warn("gex_EP_RegisterHandlers: entry %zu (%s): index %u is already registered", i,
                name, (unsigned)e->gex_index);
      rc = GASNET_ERR_BAD_ARG;
    } else {
      taken[e->gex_index] = 1;
    }
  }
  size_t free_count = 0;
  for (int i = GEX_AM_INDEX_BASE; i < 256; i++) free_count += !taken[i];
  if (rc == GASNET_OK && zeros > free_count) {
    gexi_warn("gex_EP_RegisterHandlers: %zu handlers need an index but only %zu are free", zeros,
              free_count);
    rc = GASNET_ERR_RESOURCE;
  }
  if (rc == GASNET_OK) {
    int next = 255;
    for (size_t i = 0; i < numentries; i++) {
      gex_AM_Entry_t *e = &table[i];
      if (e->gex_index == 0) {
        while (taken[next]) next--;
        taken[next] = 1;
        e->gex_index = (gex_AM_Index_t)next;
      }
      ep->handlers[e->gex_index] = *e;
    }
  }
  pthread_mutex_unlock(&ep->reg_lock);
  gexi_am_sync_release(); /* (ThreadSanitizer: the entries, for gexi_am_deliver) */
  return rc;
}

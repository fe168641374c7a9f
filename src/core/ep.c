/* core/ep.c -- endpoint creation and queries, AM handler registration. */
#include <stdio.h>

#include "core/context.h"
#include "core/hooks.h"

gex_Client_t gex_EP_QueryClient(gex_EP_t ep) { return ep->client; }
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep) { return ep->flags; }
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep) { return ep->segment; }
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep) {
  (void)ep;
  return 0;
}
void gex_EP_SetCData(gex_EP_t ep, const void *val) { ep->cdata = (void *)val; }

/* GASNET_MAXEPS is 1: the primordial endpoint is the only one.  Valid
 * requests are refused with GASNET_ERR_RESOURCE, as the reference does in
 * its configurations without multiple endpoints. */
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
  gexi_warn("gex_EP_Create: no endpoint beyond the primordial one (GASNET_MAXEPS is %d)",
            GASNET_MAXEPS);
  return GASNET_ERR_RESOURCE;
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
  return rc;
}

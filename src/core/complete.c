/* core/complete.c -- completion of operations carried by Active Messages
 * (core/complete.h): GEXI_EV_FLAG events and the counter a reply
 * decrements.
 */
#include <stdlib.h>

#include "core/complete.h"

struct gexi_Event *gexi_ev_flag_new(uint32_t pending) {
  struct gexi_Event *e = calloc(1, sizeof *e);
  if (!e) gexi_fatal("out of memory for an event");
  e->kind = GEXI_EV_FLAG;
  atomic_init(&e->flag.pending, pending);
  return e;
}

static int flag_complete(struct gexi_Event *e) {
  struct gexi_ev_flag *f = &e->flag;
  if (f->nsub) {
    if (gex_Event_TestAll(f->sub, f->nsub, 0) != GASNET_OK) return 0;
    free(f->sub); /* every sub-event is complete (and freed by TestAll) */
    f->sub = NULL;
    f->nsub = 0;
  }
  return atomic_load_explicit(&f->pending, memory_order_acquire) == 0;
}

int gexi_ev_flag_done(struct gexi_Event *e, int *moved) {
  *moved = 0;
  if (flag_complete(e)) return 1;
  *moved = gexi_poll(GEXI_POLL_ALL) != 0;
  return flag_complete(e);
}

_Atomic uint32_t *gexi_am_counter(int mode, int cat, struct gexi_Event **evp, uint32_t n) {
  struct gexi_Event *e;
  if (mode != GEXI_MODE_NBI) {
    if (!*evp) *evp = gexi_ev_flag_new(0);
    e = *evp;
  } else if (gexi_tls.in_access_region) {
    if (!gexi_tls.am_nbi.region) gexi_tls.am_nbi.region = gexi_ev_flag_new(0);
    e = gexi_tls.am_nbi.region;
  } else {
    return gexi_am_nbi_count(cat, n);
  }
  atomic_fetch_add_explicit(&e->flag.pending, n, memory_order_relaxed);
  gexi_am_sync_release();
  return &e->flag.pending;
}

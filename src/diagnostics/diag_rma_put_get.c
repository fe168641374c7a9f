/* diagnostics/diag_rma_put_get.c -- sections E, F and G of the
 * diagnostics: contiguous Put and Get to the peer, 'iters' operations each,
 * every byte checked against the shadow of this rank's slot (diag_rma.h).
 *
 * E: blocking Put of a seeded random length at a random offset, then a
 *    blocking Get of it and of the bytes around it.
 * F: batches of non-blocking Puts into the parts of the slot (local
 *    completion now, deferred, or through an event), completed by
 *    gex_Event_WaitAll, TestAll, TestSome or Wait each; then non-blocking
 *    Gets of every part, completed the same ways.
 * G: the same with implicit-event operations, completed by gex_NBI_Wait,
 *    by polling gex_NBI_Test, or inside an NBI access region whose event
 *    is waited for or tested.
 * Local buffers are in the segment or outside it, at random.
 * Fault: one byte of the slot changed behind the shadow's back, midway.
 */
#include <string.h>

#include "diagnostics/diag_rma.h"

#define PARTS 8
#define SHORT_MAX 4096

/* A length in 1..len: mostly short, sometimes all of it. */
static size_t pick_len(struct gexdiag_rma *r, size_t len) {
  if (gexdiag_next(&r->rng) % 32 == 0) return len;
  return gexdiag_range(&r->rng, 1, len < SHORT_MAX ? len : SHORT_MAX);
}

void gexdiag_section_rma_blocking(void) {
  struct gexdiag_rma r;
  if (gexdiag_rma_begin(&r)) return;
  long iters = gexdiag_ctx.iters;
  for (long i = 0; i < iters; i++) {
    size_t n = pick_len(&r, r.len);
    size_t off = gexdiag_range(&r.rng, 0, r.len - n);
    unsigned char *src = gexdiag_rma_src(&r, n);
    gexdiag_fill(src, n, gexdiag_key('E', gexdiag_ctx.rank, (uint64_t)i, 1));
    gex_RMA_PutBlocking(r.tm, r.peer, r.remote + off, src, n, 0);
    gexdiag_rma_wrote(&r, off, src, n);
    if (i == iters / 2 && gexdiag_fault()) gexdiag_rma_corrupt(&r, off + n / 2);
    gexdiag_rma_check_around(&r, off, n, "blocking Put then Get, iteration", i);
  }
  gexdiag_rma_end(&r);
}

/* ---- F and G: batches over the parts of the slot ---------------------------------- */
struct batch {
  int parts;
  size_t part_len;
  size_t off[PARTS], n[PARTS];
  unsigned char *src, *dst; /* parts * part_len bytes each */
};

static void batch_setup(struct gexdiag_rma *r, struct batch *b) {
  b->parts = (int)(r->len / 64 < PARTS ? r->len / 64 : PARTS);
  b->part_len = r->len / (size_t)b->parts;
}

/* Chooses the pieces of batch k and fills their sources. */
static void batch_fill(struct gexdiag_rma *r, struct batch *b, long k) {
  size_t all = (size_t)b->parts * b->part_len;
  b->src = gexdiag_rma_src(r, all);
  b->dst = gexdiag_rma_dst(r, all);
  for (int p = 0; p < b->parts; p++) {
    b->n[p] = pick_len(r, b->part_len);
    b->off[p] = (size_t)p * b->part_len + gexdiag_range(&r->rng, 0, b->part_len - b->n[p]);
    gexdiag_fill(b->src + (size_t)p * b->part_len, b->n[p],
                 gexdiag_key(gexdiag_ctx.section, gexdiag_ctx.rank, (uint64_t)k * PARTS + (uint64_t)p, 1));
  }
}

static void batch_record(struct gexdiag_rma *r, struct batch *b) {
  for (int p = 0; p < b->parts; p++)
    gexdiag_rma_wrote(r, b->off[p], b->src + (size_t)p * b->part_len, b->n[p]);
}

/* Compares every part, whole (the bytes around each piece included). */
static void batch_compare(struct gexdiag_rma *r, struct batch *b, const char *what, long k) {
  for (int p = 0; p < b->parts; p++)
    if (gexdiag_rma_compare(r, (size_t)p * b->part_len, b->dst + (size_t)p * b->part_len,
                            b->part_len, what, k))
      break;
}

/* Completes events[0..n) in one of four ways. */
static void complete_events(struct gexdiag_rma *r, gex_Event_t *ev, int n) {
  switch (gexdiag_next(&r->rng) % 4) {
    case 0:
      gex_Event_WaitAll(ev, (size_t)n, 0);
      break;
    case 1:
      while (gex_Event_TestAll(ev, (size_t)n, 0) != GASNET_OK) gexdiag_poll_idle();
      break;
    case 2:
      /* TestSome overwrites the events it finds complete with INVALID. */
      for (;;) {
        int live = 0;
        for (int i = 0; i < n; i++) live += ev[i] != GEX_EVENT_INVALID;
        if (!live) break;
        if (gex_Event_TestSome(ev, (size_t)n, 0) != GASNET_OK) gexdiag_poll_idle();
      }
      break;
    default:
      for (int i = 0; i < n; i++) gex_Event_Wait(ev[i]);
      break;
  }
  /* Every completed event reads as invalid now (Wait leaves them as they were). */
  for (int i = 0; i < n; i++) ev[i] = GEX_EVENT_INVALID;
}

void gexdiag_section_rma_nb(void) {
  struct gexdiag_rma r;
  if (gexdiag_rma_begin(&r)) return;
  struct batch b;
  batch_setup(&r, &b);
  long batches = gexdiag_ctx.iters / b.parts;
  if (batches < 1) batches = 1;
  gex_Event_t ev[PARTS], lc[PARTS];
  for (long k = 0; k < batches; k++) {
    batch_fill(&r, &b, k);
    int nlc = 0;
    for (int p = 0; p < b.parts; p++) {
      gex_Event_t *lc_opt;
      switch (gexdiag_next(&r.rng) % 3) {
        case 0: lc_opt = GEX_EVENT_NOW; break;
        case 1: lc_opt = GEX_EVENT_DEFER; break;
        default: lc_opt = &lc[nlc++]; break;
      }
      ev[p] = gex_RMA_PutNB(r.tm, r.peer, r.remote + b.off[p], b.src + (size_t)p * b.part_len,
                            b.n[p], lc_opt, 0);
    }
    if (nlc) complete_events(&r, lc, nlc);
    complete_events(&r, ev, b.parts);
    batch_record(&r, &b);
    if (k == batches / 2 && gexdiag_fault()) gexdiag_rma_corrupt(&r, b.off[0]);
    for (int p = 0; p < b.parts; p++)
      ev[p] = gex_RMA_GetNB(r.tm, b.dst + (size_t)p * b.part_len, r.peer,
                            r.remote + (size_t)p * b.part_len, b.part_len, 0);
    complete_events(&r, ev, b.parts);
    batch_compare(&r, &b, "non-blocking Puts then Gets, batch", k);
  }
  gexdiag_rma_end(&r);
}

/* Waits for the implicit-event operations of category 'ec' started since
 * the last wait, in one of two ways. */
static void complete_nbi(struct gexdiag_rma *r, gex_EC_t ec) {
  if (gexdiag_next(&r->rng) & 1) {
    gex_NBI_Wait(ec, 0);
  } else {
    while (gex_NBI_Test(ec, 0) != GASNET_OK) gexdiag_poll_idle();
  }
}

static void complete_region(struct gexdiag_rma *r) {
  gex_Event_t ev = gex_NBI_EndAccessRegion(0);
  complete_events(r, &ev, 1);
}

void gexdiag_section_rma_nbi(void) {
  struct gexdiag_rma r;
  if (gexdiag_rma_begin(&r)) return;
  struct batch b;
  batch_setup(&r, &b);
  long batches = gexdiag_ctx.iters / b.parts;
  if (batches < 1) batches = 1;
  for (long k = 0; k < batches; k++) {
    batch_fill(&r, &b, k);
    int region = (int)(gexdiag_next(&r.rng) & 1);
    int group = 0;
    if (region) gex_NBI_BeginAccessRegion(0);
    for (int p = 0; p < b.parts; p++) {
      gex_Event_t *lc_opt;
      switch (gexdiag_next(&r.rng) % 3) {
        case 0: lc_opt = GEX_EVENT_NOW; break;
        case 1: lc_opt = GEX_EVENT_DEFER; break;
        default: lc_opt = GEX_EVENT_GROUP; group = 1; break;
      }
      gex_RMA_PutNBI(r.tm, r.peer, r.remote + b.off[p], b.src + (size_t)p * b.part_len, b.n[p],
                     lc_opt, 0);
    }
    if (region) {
      complete_region(&r);
    } else {
      if (group) complete_nbi(&r, GEX_EC_LC);
      complete_nbi(&r, GEX_EC_PUT);
    }
    batch_record(&r, &b);
    if (k == batches / 2 && gexdiag_fault()) gexdiag_rma_corrupt(&r, b.off[0]);
    region = (int)(gexdiag_next(&r.rng) & 1);
    if (region) gex_NBI_BeginAccessRegion(0);
    for (int p = 0; p < b.parts; p++)
      gex_RMA_GetNBI(r.tm, b.dst + (size_t)p * b.part_len, r.peer,
                     r.remote + (size_t)p * b.part_len, b.part_len, 0);
    if (region)
      complete_region(&r);
    else
      complete_nbi(&r, (gexdiag_next(&r.rng) & 1) ? GEX_EC_GET : GEX_EC_ALL);
    batch_compare(&r, &b, "implicit-event Puts then Gets, batch", k);
  }
  gexdiag_rma_end(&r);
}

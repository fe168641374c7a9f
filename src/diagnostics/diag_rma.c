/* diagnostics/diag_rma.c -- the slot and its shadow, for the RMA sections
 * (see diag_rma.h).
 */
#include <stdlib.h>
#include <string.h>

#include "diagnostics/diag_rma.h"

#define GUARD 16

int gexdiag_rma_begin(struct gexdiag_rma *r) {
  struct gexdiag_context *c = &gexdiag_ctx;
  memset(r, 0, sizeof *r);
  r->tm = c->tm;
  r->peer = c->peer;
  r->remote = c->peerarea + gexdiag_slot_off(c->rank);
  r->len = gexdiag_slot_len_of(c->peer);
  r->rng.s = gexdiag_key(c->section, c->rank, 0, 0x524D41);
  if (r->len < 64) {
    gexdiag_error("this rank's slot in rank %u's area is %zu bytes: too many ranks name it",
                  (unsigned)c->peer, r->len);
    return -1;
  }
  r->shadow = malloc(r->len);
  r->heap_src = malloc(r->len);
  r->heap_dst = malloc(r->len);
  if (!r->shadow || !r->heap_src || !r->heap_dst) {
    gexdiag_error("no memory for buffers of %zu bytes", r->len);
    gexdiag_rma_end(r);
    return -1;
  }
  /* The reply half is this rank's own while no AM section runs. */
  r->seg_len = c->area / 4;
  r->seg_src = c->myarea + c->area / 2;
  r->seg_dst = r->seg_src + r->seg_len;
  gexdiag_fill(r->shadow, r->len, gexdiag_key(c->section, c->rank, 0, 0x534841));
  gex_RMA_PutBlocking(r->tm, r->peer, r->remote, r->shadow, r->len, 0);
  return 0;
}

void gexdiag_rma_end(struct gexdiag_rma *r) {
  free(r->shadow);
  free(r->heap_src);
  free(r->heap_dst);
  r->shadow = r->heap_src = r->heap_dst = NULL;
}

unsigned char *gexdiag_rma_src(struct gexdiag_rma *r, size_t n) {
  return n <= r->seg_len && (gexdiag_next(&r->rng) & 1) ? r->seg_src : r->heap_src;
}

unsigned char *gexdiag_rma_dst(struct gexdiag_rma *r, size_t n) {
  return n <= r->seg_len && (gexdiag_next(&r->rng) & 1) ? r->seg_dst : r->heap_dst;
}

void gexdiag_rma_wrote(struct gexdiag_rma *r, size_t off, const void *src, size_t n) {
  memcpy(r->shadow + off, src, n);
}

void gexdiag_rma_corrupt(struct gexdiag_rma *r, size_t off) {
  unsigned char wrong = (unsigned char)(r->shadow[off] ^ 0x5A);
  gex_RMA_PutBlocking(r->tm, r->peer, r->remote + off, &wrong, 1, 0);
}

int gexdiag_rma_compare(struct gexdiag_rma *r, size_t off, const unsigned char *buf, size_t n,
                        const char *what, long iter) {
  if (!memcmp(r->shadow + off, buf, n)) return 0;
  size_t i = 0;
  while (r->shadow[off + i] == buf[i]) i++;
  size_t bad = 0;
  for (size_t j = i; j < n; j++) bad += r->shadow[off + j] != buf[j];
  gexdiag_error("%s %ld: byte %zu of rank %u's slot (at %p) is 0x%02x, want 0x%02x "
                "(%zu of the %zu bytes checked differ)",
                what, iter, off + i, (unsigned)r->peer, (void *)(r->remote + off + i), buf[i],
                r->shadow[off + i], bad, n);
  memcpy(r->shadow + off, buf, n);
  return -1;
}

int gexdiag_rma_check_around(struct gexdiag_rma *r, size_t off, size_t n, const char *what,
                             long iter) {
  size_t lo = off < GUARD ? 0 : off - GUARD;
  size_t hi = off + n + GUARD > r->len ? r->len : off + n + GUARD;
  unsigned char *dst = gexdiag_rma_dst(r, hi - lo);
  gex_RMA_GetBlocking(r->tm, dst, r->peer, r->remote + lo, hi - lo, 0);
  return gexdiag_rma_compare(r, lo, dst, hi - lo, what, iter);
}

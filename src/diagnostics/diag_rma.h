/* diagnostics/diag_rma.h -- what the RMA sections (E..H) share: this rank's
 * slot in its peer's area, and a shadow copy of what the slot must hold.
 *
 * Only this rank writes its slot, so after every completed Put the shadow
 * is exactly the slot's contents; every Get is compared with it, bytes
 * around the ones just written included (so a Put that spills over its
 * bounds is caught too).
 */
#ifndef GEXDIAG_DIAG_RMA_H
#define GEXDIAG_DIAG_RMA_H

#include "diagnostics/diag.h"

struct gexdiag_rma {
  gex_TM_t tm;
  gex_Rank_t peer;
  unsigned char *remote;   /* the slot, in the peer's address space */
  size_t len;              /* its length */
  unsigned char *shadow;   /* what it holds: len bytes */
  unsigned char *heap_src, *heap_dst; /* local buffers outside the segment: len bytes each */
  unsigned char *seg_src, *seg_dst;   /* local buffers in this rank's reply half */
  size_t seg_len;                     /* ... seg_len bytes each */
  gexdiag_rng_t rng;
};

/* Sets up the slot of the running section and fills it (and the shadow)
 * with a pattern; 0 on success, -1 (after reporting) when it cannot. */
int gexdiag_rma_begin(struct gexdiag_rma *r);
void gexdiag_rma_end(struct gexdiag_rma *r);

/* A local source or destination buffer of at least n (<= len) bytes: in
 * the segment or outside it, at random. */
unsigned char *gexdiag_rma_src(struct gexdiag_rma *r, size_t n);
unsigned char *gexdiag_rma_dst(struct gexdiag_rma *r, size_t n);

/* Records a Put of n bytes of src at offset off (the shadow follows). */
void gexdiag_rma_wrote(struct gexdiag_rma *r, size_t off, const void *src, size_t n);

/* The section's fault: changes the byte at offset off of the slot behind
 * the shadow's back (a blocking one-byte Put), so the next check fails. */
void gexdiag_rma_corrupt(struct gexdiag_rma *r, size_t off);

/* Compares n bytes fetched from offset off (in buf) with the shadow:
 * reports the first difference, naming 'what' and the step (what is
 * e.g. "blocking Put then Get, iteration"), and then
 * takes the fetched bytes as the truth so one fault is reported once.
 * Returns 0 when they matched. */
int gexdiag_rma_compare(struct gexdiag_rma *r, size_t off, const unsigned char *buf, size_t n,
                        const char *what, long iter);

/* Fetches (blocking) the bytes around [off, off+n), up to 16 on each side
 * within the slot, and compares them with the shadow. */
int gexdiag_rma_check_around(struct gexdiag_rma *r, size_t off, size_t n, const char *what,
                             long iter);

#endif /* GEXDIAG_DIAG_RMA_H */

/* diagnostics/diag_rma_val.c -- section H of the diagnostics: the value
 * forms of RMA.  'iters' times: a seeded random value of 1..8 bytes Put at
 * a random offset of this rank's slot by gex_RMA_PutBlockingVal, PutNBVal
 * or PutNBIVal; read back with gex_RMA_GetBlockingVal (it must be the value
 * put, truncated to its size) and, with the bytes around it, by a Get that
 * is compared with the shadow (diag_rma.h).
 * Fault: midway, another value overwrites the one just put.
 */
#include <string.h>

#include "diagnostics/diag_rma.h"

/* The bytes a value of n bytes has in memory: its low-order n bytes, in
 * the byte order of an object of that size (the value forms' rule). */
static void value_bytes(unsigned char *out, gex_RMA_Value_t v, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  memcpy(out, (const unsigned char *)&v + (sizeof v - n), n);
#else
  memcpy(out, &v, n);
#endif
}

void gexdiag_section_rma_val(void) {
  struct gexdiag_rma r;
  if (gexdiag_rma_begin(&r)) return;
  long iters = gexdiag_ctx.iters;
  for (long i = 0; i < iters; i++) {
    size_t n = gexdiag_range(&r.rng, 1, sizeof(gex_RMA_Value_t));
    size_t off = gexdiag_range(&r.rng, 0, r.len - n);
    gex_RMA_Value_t v = gexdiag_key('H', gexdiag_ctx.rank, (uint64_t)i, 1);
    if (n < sizeof v) v &= ((gex_RMA_Value_t)1 << (8 * n)) - 1;
    void *dest = r.remote + off;
    switch (gexdiag_next(&r.rng) % 3) {
      case 0:
        gex_RMA_PutBlockingVal(r.tm, r.peer, dest, v, n, 0);
        break;
      case 1:
        gex_Event_Wait(gex_RMA_PutNBVal(r.tm, r.peer, dest, v, n, 0));
        break;
      default:
        gex_RMA_PutNBIVal(r.tm, r.peer, dest, v, n, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    }
    unsigned char bytes[sizeof v];
    value_bytes(bytes, v, n);
    gexdiag_rma_wrote(&r, off, bytes, n);
    if (i == iters / 2 && gexdiag_fault())
      gex_RMA_PutBlockingVal(r.tm, r.peer, dest, v ^ 1, n, 0);
    gex_RMA_Value_t got = gex_RMA_GetBlockingVal(r.tm, r.peer, dest, n, 0);
    if (got != v) {
      gexdiag_error("iteration %ld: gex_RMA_GetBlockingVal of %zu bytes at offset %zu of rank %u's "
                    "slot gave 0x%llx, want 0x%llx",
                    i, n, off, (unsigned)r.peer, (unsigned long long)got, (unsigned long long)v);
      /* The slot holds what was read: keep the shadow true to it. */
      value_bytes(bytes, got, n);
      gexdiag_rma_wrote(&r, off, bytes, n);
    }
    gexdiag_rma_check_around(&r, off, n, "value Put then Get, iteration", i);
  }
  gexdiag_rma_end(&r);
}

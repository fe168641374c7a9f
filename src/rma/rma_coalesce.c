/* rma/rma_coalesce.c -- small NBI Puts to off-node peers as records of
 * coalesced batches (am/am_coalesce.c), where the network provider emulates
 * RMA in software and every Put of its own costs a message exchange.  The
 * data are copied into the batch at initiation (the source is reusable at
 * once: local completion is immediate) and written by the target's handler
 * into its bound segment; the Put completes with the batch's answer.
 */
#include <string.h>

#include "am/am_coalesce.h"
#include "core/complete.h"
#include "transport/transport.h"

int gexi_rma_co_put(gex_Rank_t j, void *dest, const void *src, size_t nbytes, gex_Flags_t flags) {
  unsigned char *body = gexi_co_append(j, GEXI_CO_PUT, GEXI_AM_NBI_PUT,
                                       (uint32_t)(GEXI_CO_PUT_HDR + nbytes), 0, flags);
  if (!body) return 1; /* IMMEDIATE refusal */
  const uint64_t a = (uintptr_t)dest;
  memcpy(body, &a, GEXI_CO_PUT_HDR);
  memcpy(body + GEXI_CO_PUT_HDR, src, nbytes);
  return 0;
}

static const char *check(const void *body, uint32_t len, int cat, int *fetch) {
  (void)fetch;
  if (len <= GEXI_CO_PUT_HDR) return "empty Put record";
  if (cat != GEXI_AM_NBI_PUT) return "wrong category for a Put";
  uint64_t a;
  memcpy(&a, body, GEXI_CO_PUT_HDR);
  if (!gexi_co_in_segment(a, len - GEXI_CO_PUT_HDR))
    return "Put outside this process's bound segment";
  return NULL;
}

static int apply(const void *body, uint32_t len, struct gexi_co_fetched *f) {
  (void)f;
  uint64_t a;
  memcpy(&a, body, GEXI_CO_PUT_HDR);
  memcpy((void *)(uintptr_t)a, (const unsigned char *)body + GEXI_CO_PUT_HDR, len - GEXI_CO_PUT_HDR);
  return 0;
}

static const struct gexi_co_kind put_kind = {GEXI_CO_PUT_HDR + GEXI_CO_PUT_LIMIT, check, apply};

void gexi_rma_co_init(void) {
  gexi_co_register(GEXI_CO_PUT, &put_kind);
  int64_t max = gexi_ctx.env.coalesce_put_max;
  if (max < 0) max = gexi_ctx.net ? (int64_t)gexi_ctx.net->coalesce_put_max() : 0;
  if (max > GEXI_CO_PUT_LIMIT) max = GEXI_CO_PUT_LIMIT;
  /* A record (header, address, data) must fit an empty batch. */
  size_t batch = gex_AM_LUBRequestMedium() & ~(size_t)7;
  if (batch > GEXI_CO_BATCH_BYTES) batch = GEXI_CO_BATCH_BYTES;
  const int64_t room = (int64_t)batch - GEXI_CO_HDR - GEXI_CO_PUT_HDR;
  if (max > room) max = room > 0 ? room : 0;
  gexi_ctx.co_put_max = gexi_co_on() ? (size_t)max : 0;
}

/* am/am_coalesce.h -- coalescing of NBI operations into one Active Message
 * per target process and initiating thread (am/am_coalesce.c).
 *
 * A record kind is a kind of operation that can travel in a batch: its
 * module (atomic/ad_coalesce.c, rma/rma_coalesce.c) appends records with
 * gexi_co_append and registers, at client init, how the target checks and
 * applies them.
 */
#ifndef GEXI_AM_COALESCE_H
#define GEXI_AM_COALESCE_H

#include "core/context.h"

enum { GEXI_CO_ATOMIC = 0, GEXI_CO_PUT = 1, GEXI_CO_NKINDS = 2 };
_Static_assert(GEXI_CO_NKINDS <= GEXI_CO_MAX_KINDS, "gexi_ctx.co_kinds has room for every kind");

/* A value a record sends back to the initiator (one Medium Reply carries
 * them all): stored through 'result' there, 'size' 4 or 8 bytes. */
struct gexi_co_fetched {
  uint64_t result;
  uint64_t value;
  uint32_t size;
  uint32_t pad;
};

struct gexi_co_kind {
  /* The largest record body the kind ever appends (a received longer one is
   * malformed). */
  uint32_t max_len;
  /* A received record's body ('len' bytes, 8-byte aligned) and the
   * category it claims (GEXI_AM_NBI_*): NULL if well-formed, else why not;
   * sets *fetch if performing it will send a value back.  Runs for every
   * record of a batch before any is performed. */
  const char *(*check)(const void *body, uint32_t len, int cat, int *fetch);
  /* Perform a checked record; returns 1 and fills *f if it fetched a value. */
  int (*apply)(const void *body, uint32_t len, struct gexi_co_fetched *f);
};

/* Record kinds register once, during gex_Client_Init. */
void gexi_co_register(int kind, const struct gexi_co_kind *k);

/* Whether NBI operations are coalesced at all (GEX_COALESCE > 1). */
static inline int gexi_co_on(void) { return gexi_ctx.env.coalesce > 1; }
/* Whether this NBI operation may be: not from inside an AM handler (it could
 * run within this thread's own send of a batch, in a poll) nor under a
 * handler-safe lock (a full batch is sent at once: a Request). */
static inline int gexi_co_now(void) {
  return gexi_co_on() && !(gexi_tls.handler_depth | gexi_tls.hsl_depth);
}

/* Room for one record of 'len' body bytes for the process with jobrank 'j',
 * completing in category 'cat' (GEXI_AM_NBI_PUT/GET/RMW); 'fetch': the
 * record may send a value back.  A full batch is sent first; with
 * GEX_FLAG_IMMEDIATE in 'flags' that send may be refused, and then NULL is
 * returned and nothing is reserved.  The caller fills the body before its
 * next libgex call. */
void *gexi_co_append(gex_Rank_t j, int kind, int cat, uint32_t len, int fetch,
                     gex_Flags_t flags);

/* Puts (rma/rma_coalesce.c): an NBI Put of 1..gexi_ctx.co_put_max bytes to
 * the off-node process with jobrank 'j' as a record; returns 0, or 1 for an
 * IMMEDIATE refusal.  gexi_rma_co_init registers the record kind and sets
 * co_put_max (GEX_COALESCE_PUT_MAX, or the transport's coalesce_put_max;
 * never above GEXI_CO_PUT_LIMIT); called at client init after the transport
 * started. */
#define GEXI_CO_PUT_LIMIT 4096
int gexi_rma_co_put(gex_Rank_t j, void *dest, const void *src, size_t nbytes, gex_Flags_t flags);
void gexi_rma_co_init(void);

/* The handlers of batches (fills 'e', 2 entries); also prepares the
 * thread-exit hook.  Called once at client init. */
size_t gexi_co_am_entries(gex_AM_Entry_t *e);

#endif

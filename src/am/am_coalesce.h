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

#include <string.h>

#include "am/am.h"
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
  return gexi_co_on() && !gexi_in_handler_or_hsl();
}

/* The open batch for one process, and a thread's batches (am/am_coalesce.c
 * owns them; the fields are here for the inline fast path below). */
struct gexi_co_batch {
  uint32_t bytes;    /* of records in buf */
  uint32_t nfetch;
  uint32_t count[3]; /* records by category (their sum: the batch's records) */
  int listed;        /* on the thread's 'open' list (then flush_deferred is set) */
  /* What the fast path may still append: record bytes and records.  Both 0
   * unless listed; otherwise cap_bytes - bytes and cap_ops - records. */
  uint32_t room, recs_left;
  uint64_t buf[];    /* cap_bytes bytes of records */
};
struct gexi_co_batches {
  uint32_t cap_bytes, cap_ops, cap_fetch; /* limits of one batch */
  int sending;                /* a send is under way (it may poll) */
  uint32_t nopen;
  gex_Rank_t *open;           /* jobranks whose batch is listed, nopen of them */
  struct gexi_co_batch **peer; /* by jobrank; NULL until first used */
  uint32_t nbufs;             /* peer[] entries not NULL */
};

/* Whether [addr, addr + n) lies in this process's bound segment: the
 * target-side check of a record's address (record kinds' check). */
static inline int gexi_co_in_segment(uint64_t addr, uint64_t n) {
  const gexi_Peer_t *me = &gexi_ctx.peers[gexi_ctx.rank];
  const uint64_t off = addr - me->seg_base;
  return off <= me->seg_size && n <= me->seg_size - off;
}

/* Each record: an 8-byte header (kind, category, zero, body length), then
 * the body padded with zeros to a multiple of 8 bytes. */
#define GEXI_CO_HDR 8u
/* The largest batch, in bytes of records. */
#define GEXI_CO_BATCH_BYTES ((uint32_t)GEXI_AM_EAGER_MEDIUM)
static inline uint32_t gexi_co_padded(uint32_t len) { return (len + 7u) & ~7u; }

/* Room for one record of 'len' body bytes in this thread's open batch for
 * the process with jobrank 'j', or NULL if there is none with room (no
 * call: inline fast paths fall back to gexi_co_append).  The caller fills
 * the body before its next libgex call. */
static inline void *gexi_co_try_append(gex_Rank_t j, int kind, int cat, uint32_t len,
                                       int fetch) {
  struct gexi_co_batch **peer = gexi_tls.co_peer, *b;
  const uint32_t need = GEXI_CO_HDR + gexi_co_padded(len);
  if (GEXI_UNLIKELY(!peer || !(b = peer[j]) || need > b->room || !b->recs_left ||
                    (fetch && b->nfetch == gexi_tls.co_batches->cap_fetch)))
    return NULL;
  unsigned char *r = (unsigned char *)b->buf + b->bytes;
  const uint64_t zero = 0, h = (uint64_t)(uint8_t)kind | (uint64_t)(uint8_t)cat << 8 |
                               (uint64_t)len << 32; /* little-endian struct rec_hdr */
  if (len & 7) memcpy(r + need - 8, &zero, 8); /* the padding */
  memcpy(r, &h, 8);
  b->bytes += need;
  b->room -= need;
  b->recs_left--;
  b->nfetch += fetch != 0;
  b->count[cat]++;
  return r + GEXI_CO_HDR;
}

/* The same, making room when there is none: opens the batch, or sends the
 * full one first ('cat': GEXI_AM_NBI_PUT/GET/RMW; 'fetch': the record may
 * send a value back).  With GEX_FLAG_IMMEDIATE in 'flags' that send may be
 * refused, and then NULL is returned and nothing is reserved. */
void *gexi_co_append(gex_Rank_t j, int kind, int cat, uint32_t len, int fetch,
                     gex_Flags_t flags);

/* Puts (rma/rma_coalesce.c): an NBI Put of 1..gexi_ctx.co_put_max bytes to
 * the off-node process with jobrank 'j' as a record (the target address,
 * then the bytes); returns 0, or 1 for an IMMEDIATE refusal.
 * gexi_rma_co_init registers the record kind and sets co_put_max
 * (GEX_COALESCE_PUT_MAX, or the transport's coalesce_put_max; never above
 * GEXI_CO_PUT_LIMIT); called at client init after the transport started. */
#define GEXI_CO_PUT_LIMIT 4096
#define GEXI_CO_PUT_HDR 8 /* a Put record's body: the target address, then the bytes */
int gexi_rma_co_put(gex_Rank_t j, void *dest, const void *src, size_t nbytes, gex_Flags_t flags);
void gexi_rma_co_init(void);

/* The handlers of batches (fills 'e', 2 entries); also prepares the
 * thread-exit hook.  Called once at client init. */
size_t gexi_co_am_entries(gex_AM_Entry_t *e);

#endif

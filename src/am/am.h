/* am/am.h -- Active Message layer internals shared with the transports.
 *
 * A transport carries a gexi_am_hdr (plus the Medium payload) to the target
 * process and calls gexi_am_deliver() there from inside a poll; Long
 * payloads are written to their destination by the transport before the
 * header becomes visible to the target.
 */
#ifndef GEXI_AM_AM_H
#define GEXI_AM_AM_H

#include "core/context.h"

enum { GEXI_AM_SHORT = 0, GEXI_AM_MEDIUM = 1, GEXI_AM_LONG = 2, GEXI_AM_NOP = 3 };

/* Largest payloads.  The Medium limit is the payload room of one shared-
 * memory queue slot; Long payloads are copied straight into the target
 * segment, so their limit is a policy choice (a bound on time spent holding
 * one queue slot), not a buffer size. */
#define GEXI_AM_MAX_MEDIUM ((size_t)16384)
#define GEXI_AM_MAX_LONG ((size_t)4 << 20)
/* The largest Medium payload that internal bulk traffic (collective
 * fragments, coalesced batches) puts in one AM: with the network wire
 * header it stays below 16 KiB, the eager limit of ofi_rxm, which sends
 * larger messages with a much slower segmented protocol (a 64 KiB
 * broadcast over tcp;ofi_rxm took 2.3 times as long in 16 KiB fragments as
 * in 15 KiB ones; full 16 KiB batches made an NBI ADD flood 30 times
 * slower). */
#define GEXI_AM_EAGER_MEDIUM ((size_t)15 << 10)

struct gexi_am_hdr {
  uint8_t category;
  uint8_t is_req;
  uint8_t nargs;
  gex_AM_Index_t handler;
  gex_Rank_t src; /* jobrank of the sender */
  uint32_t nbytes;
  /* Long: the index of the target's endpoint whose bound segment holds
   * dest.  Non-zero: the sender has already placed the payload there
   * through a TM-pair (am_send.c), and transports move no payload. */
  uint32_t ep_index;
  uint64_t dest; /* Long: destination in the target's address space */
  gex_AM_Arg_t args[GEXI_AM_MAX_ARGS];
};

/* The token handed to handlers: lives on the stack of the thread running the
 * handler, valid until the handler returns. */
struct gexi_Token {
  gex_Rank_t src;
  uint8_t is_req;
  uint8_t is_long;
  uint8_t replied;
  const gex_AM_Entry_t *entry;
};

/* Send one AM (the header's fields and its payload) to 'jobrank'; see
 * am_send.c.  Returns non-zero only for a GEX_FLAG_IMMEDIATE refusal. */
int gexi_am_send(gex_Rank_t jobrank, int category, int is_req, gex_AM_Index_t handler,
                 unsigned nargs, const gex_AM_Arg_t *args, const void *payload, size_t nbytes,
                 void *dest, gex_Flags_t flags);
/* Checks of a received header (am_check.c): NULL when it is well formed,
 * else the name of the first bad field.  _frame: category, direction,
 * nargs, nbytes against the category's maximum, a Long's destination range
 * inside this rank's bound segment.  _handler: the handler index is
 * registered for the category, direction and argument count. */
const char *gexi_am_check_frame(const struct gexi_am_hdr *h);
const char *gexi_am_check_handler(const struct gexi_am_hdr *h);

/* Run the handler for one received message (called by transports). */
void gexi_am_deliver(const struct gexi_am_hdr *h, void *payload);

/* Check a Reply's token (only inside its Request handler, at most once) and
 * mark it replied. */
struct gexi_Token *gexi_reply_token(const char *fn, gex_Token_t t);


/* Negotiated payload: source descriptor, thread-owned between Prepare and
 * Commit/Cancel. */
struct gexi_SrcDesc {
  int kind;                /* GEXI_SD_* of the Prepare call */
  gex_Rank_t jobrank;      /* destination */
  void *addr;              /* buffer handed to the client */
  size_t size;             /* its usable length */
  const void *client_buf;  /* non-NULL: client-provided buffer */
  void *dest;              /* Long: dest_addr given at Prepare (may be NULL) */
  unsigned int nargs;
  gex_Flags_t flags;
  gex_Event_t *lc_opt;
  struct gexi_Token *token; /* Reply: the request's token */
  void *transport_slot;     /* reserved transport resource, if any */
  uint64_t transport_pos;
};

#endif

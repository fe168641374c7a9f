/* am/am.h -- Active Message layer internals: tokens, sending, the checks
 * and the delivery of a received message, negotiated payloads.
 *
 * A transport carries a gexi_am_hdr (transport/am_wire.h, plus the Medium
 * payload) to the target process and hands it to this layer there, from
 * inside a poll, through the upcalls registered by gexi_am_upcalls_register
 * (gexi_ctx.am_up); Long payloads are written to their destination by the
 * transport before the header becomes visible to the target.
 */
#ifndef GEXI_AM_AM_H
#define GEXI_AM_AM_H

#include "core/context.h"
#include "transport/am_wire.h"

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

/* Run the handler for one received message (the transports' deliver upcall). */
void gexi_am_deliver(const struct gexi_am_hdr *h, void *payload);
/* Hand the transports this layer's upcalls (gexi_ctx.am_up): called by
 * gex_Client_Init before any transport starts. */
void gexi_am_upcalls_register(void);

/* Check a Reply's token (only inside its Request handler, at most once) and
 * mark it replied. */
struct gexi_Token *gexi_reply_token(const char *fn, gex_Token_t t);

/* Longs to an endpoint of index k > 0 (am_send.c).  gexi_am_long_ep: the
 * endpoint of jobrank whose bound segment holds a Reply Long's
 * [dest, dest + nbytes), 0 for the primordial one (and for a range in
 * none, which the checks report as fn's).  gexi_am_place_long: to a rank
 * of this host, the payload copied into that endpoint's segment (the
 * message then carries none); to another node, nothing (the network
 * transport carries it); into device memory, an RMA on any host.  Returns
 * the header's ep_index (k, with GEXI_AM_EP_PLACED for device memory). */
/* [dest, dest + nbytes) lies in the bound segment of entry p (nbytes > 0). */
static inline int gexi_am_in_segment(const gexi_Peer_t *p, const void *dest, size_t nbytes) {
  uintptr_t off = (uintptr_t)dest - p->seg_base;
  return p->seg_size && off <= p->seg_size && nbytes <= p->seg_size - off;
}
gex_EP_Index_t gexi_am_long_ep(const char *fn, gex_Rank_t jobrank, const void *dest,
                               size_t nbytes);
uint32_t gexi_am_place_long(gex_Rank_t jobrank, gex_EP_Index_t k, void *dest, const void *src,
                            size_t nbytes);

/* Negotiated payload: source descriptor, thread-owned between Prepare and
 * Commit/Cancel. */
struct gexi_SrcDesc {
  int kind;                /* GEXI_SD_* of the Prepare call */
  gex_Rank_t jobrank;      /* destination */
  void *addr;              /* buffer handed to the client */
  size_t size;             /* its usable length */
  const void *client_buf;  /* non-NULL: client-provided buffer */
  void *dest;              /* Long: dest_addr given at Prepare (may be NULL) */
  gex_EP_Index_t ep;       /* Request Long: the target's endpoint (the TM-pair's index) */
  unsigned int nargs;
  gex_Flags_t flags;
  gex_Event_t *lc_opt;
  struct gexi_Token *token; /* Reply: the request's token */
  void *transport_slot;     /* reserved transport resource, if any */
  uint64_t transport_pos;
};

#endif

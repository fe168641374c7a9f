/* transport/am_wire.h -- an Active Message as every transport carries it
 * (shared memory, sock, ofi), and what a transport asks of the AM layer
 * above it.
 *
 * A transport moves a gexi_am_hdr, the Medium payload after it, and writes
 * a Long's payload to its destination before the header becomes visible at
 * the target.  There, inside a poll, it checks the header and hands it up
 * through the upcalls the AM layer registered in the context
 * (gexi_ctx.am_up, set by gex_Client_Init before any transport starts):
 * no transport includes the AM layer's own headers.
 */
#ifndef GEXI_TRANSPORT_AM_WIRE_H
#define GEXI_TRANSPORT_AM_WIRE_H

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
   * dest (gexi_am_ep), and GEXI_AM_EP_PLACED.  A network transport carries
   * a Long's payload into dest unless PLACED says the sender has put it
   * there already (a segment of device memory, which only RMA reaches:
   * am/am_send.c); through shared memory a non-zero ep_index means the
   * payload is placed and the message carries none. */
  uint32_t ep_index;
  uint64_t dest; /* Long: destination in the target's address space */
  gex_AM_Arg_t args[GEXI_AM_MAX_ARGS];
};

#define GEXI_AM_EP_PLACED 0x80000000u
static inline uint32_t gexi_am_ep(const struct gexi_am_hdr *h) {
  return h->ep_index & ~GEXI_AM_EP_PLACED;
}
/* The payload bytes a network transport moves with the message. */
static inline size_t gexi_am_carried(const struct gexi_am_hdr *h) {
  return h->category == GEXI_AM_MEDIUM ||
                 (h->category == GEXI_AM_LONG && !(h->ep_index & GEXI_AM_EP_PLACED))
             ? h->nbytes
             : 0;
}

/* The AM layer's upcalls (am/am_deliver.c). */
struct gexi_am_upcalls {
  /* Run the handler of one received message. */
  void (*deliver)(const struct gexi_am_hdr *h, void *payload);
  /* Checks of a received header: NULL when it is well formed, else the
   * name of the first bad field.  frame: category, direction, nargs,
   * nbytes against the category's maximum, a Long's destination inside
   * this rank's bound segment.  handler: the index is registered for the
   * category, direction and argument count. */
  const char *(*check_frame)(const struct gexi_am_hdr *h);
  const char *(*check_handler)(const struct gexi_am_hdr *h);
};
static inline void gexi_up_deliver(const struct gexi_am_hdr *h, void *payload) {
  gexi_ctx.am_up->deliver(h, payload);
}
static inline const char *gexi_up_check_frame(const struct gexi_am_hdr *h) {
  return gexi_ctx.am_up->check_frame(h);
}
static inline const char *gexi_up_check_handler(const struct gexi_am_hdr *h) {
  return gexi_ctx.am_up->check_handler(h);
}

#endif

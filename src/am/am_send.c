/* am/am_send.c -- the fixed-payload AM injection calls (Request and Reply;
 * Short, Medium, Long).  Every payload is copied (Medium) or written to its
 * destination (Long) before the call returns, so local completion is
 * immediate whatever lc_opt asks for. */
#include <string.h>

#include "am/am.h"
#include "core/complete.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

/* Fill an AM header.  Only the arguments in use are written: a Short with no
 * arguments touches one cache line of a queue slot. */
static inline void set_hdr(struct gexi_am_hdr *h, int category, int is_req,
                           gex_AM_Index_t handler, unsigned nargs, const gex_AM_Arg_t *args,
                           size_t nbytes, void *dest) {
  h->category = (uint8_t)category;
  h->is_req = (uint8_t)is_req;
  h->nargs = (uint8_t)nargs;
  h->handler = handler;
  h->src = gexi_ctx.rank;
  h->nbytes = (uint32_t)nbytes;
  h->dest = (uint64_t)(uintptr_t)dest;
  if (category == GEXI_AM_LONG) h->ep_index = 0; /* (a queue slot may hold an old value) */
  for (unsigned i = 0; i < nargs; i++) h->args[i] = args[i];
}

/* A Medium to this process: the handler gets a copy of the payload (it may
 * write to its buffer, and the source is the client's const memory). */
__attribute__((noinline)) static void am_loopback_medium(struct gexi_am_hdr *h,
                                                         const void *payload, size_t nbytes) {
  _Alignas(16) unsigned char buf[GEXI_AM_MAX_MEDIUM];
  if (nbytes) memcpy(buf, payload, nbytes);
  gexi_am_deliver(h, buf);
}

/* An AM from this process to itself for a client handler runs its handler
 * now, inside the sending call, as the reference implementation does
 * (a client loop that sends to itself and never polls still progresses).
 * A Reply sent by that handler to this process runs nested inside it.
 * Library-internal handlers (indices below GEX_AM_INDEX_BASE) keep going
 * through the queue: their senders may hold locks the handlers take. */
static inline int am_is_loopback(gex_Rank_t jobrank, gex_AM_Index_t handler) {
  return jobrank == gexi_ctx.rank && handler >= GEX_AM_INDEX_BASE;
}
__attribute__((noinline)) static void am_loopback(int category, int is_req,
                                                  gex_AM_Index_t handler, unsigned nargs,
                                                  const gex_AM_Arg_t *args, const void *payload,
                                                  size_t nbytes, void *dest) {
  struct gexi_am_hdr h;
  set_hdr(&h, category, is_req, handler, nargs, args, nbytes, dest);
  if (category == GEXI_AM_MEDIUM) {
    am_loopback_medium(&h, payload, nbytes);
    return;
  }
  if (category == GEXI_AM_LONG && nbytes && dest != payload) memmove(dest, payload, nbytes);
  gexi_am_deliver(&h, NULL);
}

/* Send one AM to 'jobrank' through the transport that reaches it.  On the
 * node the header is built in the queue slot itself.  Returns non-zero only
 * for an IMMEDIATE refusal; the payload is reusable on return. */
/* Medium and Long messages to an off-node peer: the header, then the
 * transport. */
__attribute__((noinline)) static int am_net_send(gex_Rank_t jobrank, int category, int is_req,
                                                 gex_AM_Index_t handler, unsigned nargs,
                                                 const gex_AM_Arg_t *args, const void *payload,
                                                 size_t nbytes, void *dest, gex_Flags_t flags,
                                                 uint32_t ep) {
  struct gexi_am_hdr h;
  set_hdr(&h, category, is_req, handler, nargs, args, nbytes, dest);
  if (ep) h.ep_index = ep;
  return gexi_ctx.net->am_send(jobrank, &h, payload, flags);
}

/* ep: 0, or (a Long only) the header's ep_index for endpoint k of the
 * target (long_ep): on this host the caller has placed the payload already
 * and shared memory moves none; the network transport carries it unless
 * GEXI_AM_EP_PLACED.  A constant 0 where this is inlined by am_inject. */
static inline int am_inject_at(gex_Rank_t jobrank, int category, int is_req,
                               gex_AM_Index_t handler, unsigned nargs,
                               const gex_AM_Arg_t *args, const void *payload, size_t nbytes,
                               void *dest, gex_Flags_t flags, uint32_t ep) {
  /* Off-node first (this process itself is on-node). */
  gex_Rank_t li = gexi_ctx.local_index[jobrank];
  if (li == GEX_RANK_INVALID) {
    if (category == GEXI_AM_SHORT) /* a constant where this is inlined */
      return gexi_ctx.net->am_short(!is_req, jobrank, handler, flags, nargs, args);
    return am_net_send(jobrank, category, is_req, handler, nargs, args, payload, nbytes, dest,
                       flags, ep);
  }
  if (GEXI_UNLIKELY(am_is_loopback(jobrank, handler))) {
    /* (placed: the payload is at dest already, which am_loopback leaves alone) */
    am_loopback(category, is_req, handler, nargs, args, ep ? dest : payload, nbytes, dest);
    return 0;
  }
  uint64_t pos;
  struct gexi_amq_slot *s = gexi_shm_am_reserve(li, is_req, flags, &pos);
  if (!s) return 1;
  set_hdr(&s->hdr, category, is_req, handler, nargs, args, nbytes, dest);
  if (ep) s->hdr.ep_index = ep;
  gexi_shm_am_finish(li, s, pos, category, payload, ep ? 0 : nbytes);
  return 0;
}

static inline int am_inject(gex_Rank_t jobrank, int category, int is_req,
                            gex_AM_Index_t handler, unsigned nargs, const gex_AM_Arg_t *args,
                            const void *payload, size_t nbytes, void *dest, gex_Flags_t flags) {
  return am_inject_at(jobrank, category, is_req, handler, nargs, args, payload, nbytes, dest,
                      flags, 0);
}

int gexi_am_send(gex_Rank_t jobrank, int category, int is_req, gex_AM_Index_t handler,
                 unsigned nargs, const gex_AM_Arg_t *args, const void *payload, size_t nbytes,
                 void *dest, gex_Flags_t flags) {
  gexi_am_sync_release(); /* (as request_target: the library's own AMs) */
  return am_inject(jobrank, category, is_req, handler, nargs, args, payload, nbytes, dest, flags);
}

/* Resolve (tm, rank) of a Request to a jobrank, checking the rank. */
static inline gex_Rank_t request_target(const char *fn, gex_TM_t tm, gex_Rank_t rank) {
  gexi_check_can_communicate(fn);
#if GEX_CHECKS
  if (GEXI_UNLIKELY(tm == GEX_TM_INVALID || rank >= GEXI_TM_SIZE(tm)))
    gexi_bad_rank(fn, tm, rank);
#else
  (void)fn;
#endif
  gexi_am_sync_release(); /* (ThreadSanitizer: what the sender wrote, for its handler) */
  return GEXI_TM_PEERS(tm)[rank].jobrank;
}

/* Validate a Reply's token: only inside the Request handler it names, once. */
struct gexi_Token *gexi_reply_token(const char *fn, gex_Token_t t) {
  struct gexi_Token *tok = (struct gexi_Token *)t;
#if GEX_CHECKS
  if (!tok || gexi_tls.handler_depth == 0 || tok != gexi_tls.cur_token)
    gexi_fatal("%s: called outside a Request handler", fn);
  if (!tok->is_req) gexi_fatal("%s: called outside a Request handler (in a Reply handler)", fn);
  if (tok->replied) gexi_fatal("%s: a second Reply from one Request handler", fn);
  if (gexi_tls.hsl_depth) gexi_fatal("%s: not allowed while holding a handler-safe lock", fn);
#else
  (void)fn;
#endif
  tok->replied = 1;
  gexi_am_sync_release();
  return tok;
}

/* lc_opt handling for AM payloads; 'is_req' because GROUP is Request-only
 * and DEFER is never allowed. */
static inline void am_local_completion(const char *fn, gex_Event_t *lc_opt, int is_req) {
  if (lc_opt == GEX_EVENT_NOW || lc_opt == GEX_EVENT_GROUP) {
#if GEX_CHECKS
    if (lc_opt == GEX_EVENT_GROUP && !is_req)
      gexi_fatal("%s: GEX_EVENT_GROUP is not allowed for a Reply", fn);
#endif
    return;
  }
#if GEX_CHECKS
  if (lc_opt == GEX_EVENT_DEFER || lc_opt == NULL)
    gexi_fatal("%s: lc_opt must be GEX_EVENT_NOW, GEX_EVENT_GROUP or an event pointer", fn);
#else
  (void)fn;
  (void)is_req;
#endif
  *lc_opt = GEX_EVENT_INVALID;
}

/* The payload's size and source, and the flags a fixed-payload AM takes
 * (GEXI_FLAGS_P2P: not the AM_PREPARE_LEAST_* query flags). */
static inline void check_payload(const char *fn, const void *src, size_t nbytes, size_t max,
                                 gex_Flags_t flags) {
#if GEX_CHECKS
  if (GEXI_UNLIKELY(nbytes > max)) gexi_fatal("%s: nbytes %zu exceeds the maximum %zu", fn, nbytes, max);
  GEXI_CHECK_BUF(fn, "source_addr", src, nbytes);
  GEXI_CHECK_FLAGS(fn, flags, GEXI_FLAGS_P2P);
#else
  (void)fn;
  (void)src;
  (void)nbytes;
  (void)max;
  (void)flags;
#endif
}

/* A Long's destination must lie in the target's bound segment. */
static inline void check_long_dest(const char *fn, gex_Rank_t jobrank, const void *dest,
                                   size_t nbytes) {
#if GEX_CHECKS
  if (nbytes && !gexi_am_in_segment(&gexi_ctx.peers[jobrank], dest, nbytes))
    gexi_bad_range(fn, gexi_tm_handle(gexi_ctx.ep.pair_tm), jobrank, dest, nbytes);
#else
  (void)fn;
  (void)jobrank;
  (void)dest;
  (void)nbytes;
#endif
}

/* The on-node part of gex_AM_RequestShort, out of line so that the
 * off-node part is a tail call with nothing to set up. */
#if defined(__clang__)
__attribute__((noinline))
#else
__attribute__((noipa)) /* no clone without 'ch': the argument order is the point */
#endif
static int request_short_local(int ch, gex_Rank_t j, gex_AM_Index_t handler, gex_Flags_t flags,
                               unsigned int nargs, const gex_AM_Arg_t *args) {
  (void)ch; /* the transport's argument order: both calls set up the same registers */
  return am_inject(j, GEXI_AM_SHORT, 1, handler, nargs, args, NULL, 0, NULL, flags);
}

int gexi_AM_RequestShort(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                         gex_Flags_t flags, unsigned int nargs, const gex_AM_Arg_t *args) {
  gex_Rank_t j = request_target("gex_AM_RequestShort", tm, rank);
  GEXI_CHECK_FLAGS("gex_AM_RequestShort", flags, GEXI_FLAGS_P2P);
  if (gexi_ctx.local_index[j] == GEX_RANK_INVALID)
    return gexi_ctx.net->am_short(0, j, handler, flags, nargs, args);
  return request_short_local(0, j, handler, flags, nargs, args);
}

int gexi_AM_ReplyShort(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags,
                       unsigned int nargs, const gex_AM_Arg_t *args) {
  struct gexi_Token *tok = gexi_reply_token("gex_AM_ReplyShort", token);
  GEXI_CHECK_FLAGS("gex_AM_ReplyShort", flags, GEXI_FLAGS_P2P);
  int rc = am_inject(tok->src, GEXI_AM_SHORT, 0, handler, nargs, args, NULL, 0, NULL, flags);
  if (rc) tok->replied = 0; /* IMMEDIATE refusal: the Reply may be retried */
  return rc;
}

int gexi_AM_RequestMedium(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                          const void *src, size_t nbytes, gex_Event_t *lc_opt,
                          gex_Flags_t flags, unsigned int nargs, const gex_AM_Arg_t *args) {
  gex_Rank_t j = request_target("gex_AM_RequestMedium", tm, rank);
  check_payload("gex_AM_RequestMedium", src, nbytes, GEXI_AM_MAX_MEDIUM, flags);
  int rc = am_inject(j, GEXI_AM_MEDIUM, 1, handler, nargs, args, src, nbytes, NULL, flags);
  if (!rc) am_local_completion("gex_AM_RequestMedium", lc_opt, 1);
  return rc;
}

int gexi_AM_ReplyMedium(gex_Token_t token, gex_AM_Index_t handler, const void *src,
                        size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags,
                        unsigned int nargs, const gex_AM_Arg_t *args) {
  struct gexi_Token *tok = gexi_reply_token("gex_AM_ReplyMedium", token);
  check_payload("gex_AM_ReplyMedium", src, nbytes, GEXI_AM_MAX_MEDIUM, flags);
  int rc = am_inject(tok->src, GEXI_AM_MEDIUM, 0, handler, nargs, args, src, nbytes, NULL, flags);
  if (rc)
    tok->replied = 0;
  else
    am_local_completion("gex_AM_ReplyMedium", lc_opt, 0);
  return rc;
}

/* A Long to endpoint k > 0 of jobrank, whose bound segment holds dest
 * (Legion/Realm send them through gex_TM_Pair(ep, k) to the endpoint whose
 * segment holds the destination; a Reply Long goes to the requester's
 * endpoint that holds it: gexi_am_long_ep).  On this host the payload is
 * placed first -- copied where that segment is mapped here, else through
 * the kernel (rma/rma_ep.c), neither of which waits for a peer -- and the
 * message follows with ep_index = k and no payload; to another node the
 * network transport carries the payload with the message into that
 * segment (transport/am_wire.h).  A segment of device memory, on any host,
 * is reached by RMA only: a blocking Put through the primordial endpoint's
 * pair to k places the payload, and the message says so
 * (GEXI_AM_EP_PLACED).  The target checks the range against its own
 * segment of that endpoint (am_check.c).  An IMMEDIATE refusal leaves a
 * placed payload in place. */
uint32_t gexi_am_place_long(gex_Rank_t jobrank, gex_EP_Index_t k, void *dest, const void *src,
                            size_t nbytes) {
  if (GEXI_UNLIKELY(gexi_ctx.ep_tabs[k]->device[jobrank])) {
    if (nbytes)
      gexi_rma_ep_put(gex_TM_Pair(gexi_ctx.eps[0], k), jobrank, dest, src, nbytes, GEX_EVENT_NOW,
                      GEXI_MODE_BLOCKING);
    return k | GEXI_AM_EP_PLACED;
  }
  if (nbytes && gexi_ctx.local_index[jobrank] != GEX_RANK_INVALID)
    gexi_rma_ep_host("gex_AM_*Long", k, jobrank, 1, (void *)src, dest, nbytes,
                     GEXI_MODE_BLOCKING, 0);
  return k;
}
__attribute__((noinline)) static int long_ep(gex_Rank_t jobrank, gex_EP_Index_t k, int is_req,
                                             gex_AM_Index_t handler, const void *src,
                                             size_t nbytes, void *dest, gex_Flags_t flags,
                                             unsigned int nargs, const gex_AM_Arg_t *args) {
  const uint32_t ep = gexi_am_place_long(jobrank, k, dest, src, nbytes);
  return am_inject_at(jobrank, GEXI_AM_LONG, is_req, handler, nargs, args, src, nbytes, dest,
                      flags, ep);
}

/* A Request does not say which of its sender's endpoints sent it, and the
 * handler table is shared (core/ep.c); what says where a Reply Long lands
 * is its destination.  The segments bound to one process's endpoints are
 * distinct memory (a segment bound to several endpoints is one range), so
 * the range names the endpoint: the primordial one's, else that of an
 * index k > 0 whose segment this process knows (published to it or
 * queried).  Neither: the checks report the range, and without them the
 * message goes as a primordial one, which the target drops. */
gex_EP_Index_t gexi_am_long_ep(const char *fn, gex_Rank_t jobrank, const void *dest,
                               size_t nbytes) {
  if (nbytes == 0 || GEXI_LIKELY(gexi_am_in_segment(&gexi_ctx.peers[jobrank], dest, nbytes))) return 0;
  for (gex_EP_Index_t k = 1; k < GEXI_MAX_EPS; k++) {
    const struct gexi_ep_tab *t = gexi_ctx.ep_tabs[k];
    if (t && gexi_am_in_segment(&t->peers[jobrank], dest, nbytes)) return k;
  }
  check_long_dest(fn, jobrank, dest, nbytes);
  return 0;
}

int gexi_AM_RequestLong(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *src,
                        size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
                        unsigned int nargs, const gex_AM_Arg_t *args) {
  if (GEXI_UNLIKELY(tm != GEX_TM_INVALID && gexi_tm(tm)->remote_index)) {
    check_payload("gex_AM_RequestLong", src, nbytes, GEXI_AM_MAX_LONG, flags);
    const gexi_Peer_t *p = gexi_peer_checked("gex_AM_RequestLong", tm, rank, dest, nbytes);
    int rc = long_ep(p->jobrank, gexi_tm(tm)->remote_index, 1, handler, src, nbytes, dest, flags,
                     nargs, args);
    if (!rc) am_local_completion("gex_AM_RequestLong", lc_opt, 1);
    return rc;
  }
  gex_Rank_t j = request_target("gex_AM_RequestLong", tm, rank);
  check_payload("gex_AM_RequestLong", src, nbytes, GEXI_AM_MAX_LONG, flags);
  check_long_dest("gex_AM_RequestLong", j, dest, nbytes);
  int rc = am_inject(j, GEXI_AM_LONG, 1, handler, nargs, args, src, nbytes, dest, flags);
  if (!rc) am_local_completion("gex_AM_RequestLong", lc_opt, 1);
  return rc;
}

int gexi_AM_ReplyLong(gex_Token_t token, gex_AM_Index_t handler, const void *src,
                      size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
                      unsigned int nargs, const gex_AM_Arg_t *args) {
  struct gexi_Token *tok = gexi_reply_token("gex_AM_ReplyLong", token);
  check_payload("gex_AM_ReplyLong", src, nbytes, GEXI_AM_MAX_LONG, flags);
  gex_EP_Index_t k = gexi_am_long_ep("gex_AM_ReplyLong", tok->src, dest, nbytes);
  int rc = k ? long_ep(tok->src, k, 0, handler, src, nbytes, dest, flags, nargs, args)
             : am_inject(tok->src, GEXI_AM_LONG, 0, handler, nargs, args, src, nbytes, dest, flags);
  if (rc)
    tok->replied = 0;
  else
    am_local_completion("gex_AM_ReplyLong", lc_opt, 0);
  return rc;
}

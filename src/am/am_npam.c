/* am/am_npam.c -- negotiated-payload AMs: Prepare, Commit, Cancel.
 *
 * Prepare reserves the queue slot the message will travel in, so Commit can
 * never block.  A GASNet-provided Medium buffer is the slot's own payload
 * area (no copy at Commit); a GASNet-provided Long buffer is a per-thread
 * staging buffer.  Between Prepare and Commit/Cancel the descriptor belongs
 * to the calling thread (gexi_tls.open_sd); a cancelled slot travels as a
 * NOP message, because a claimed queue position cannot be given back.
 */
#include <stdlib.h>
#include <string.h>

#include "am/am.h"
#include "core/complete.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

static _Thread_local struct gexi_SrcDesc sd_storage;

/* Per-thread staging buffers for GASNet-provided payloads that do not live in
 * a queue slot (Long, and every off-node message), freed when the thread
 * exits.  Two per thread: one for the thread's own code and one for the
 * Reply of a handler it runs, because an off-node Commit may poll, and so
 * run a Request handler whose Reply is prepared, while the outer payload
 * still waits in its buffer. */
struct staging {
  void *buf[2];
  size_t len[2];
};
static _Thread_local struct staging staging;
static void staging_free(void *p) {
  struct staging *st = p;
  free(st->buf[0]);
  free(st->buf[1]);
}
static void make_key(void) { pthread_key_create(&gexi_ctx.npam_staging_key, staging_free); }

static void *staging_buffer(size_t len) {
  int k = gexi_tls.handler_depth > 0;
  if (len < 64) len = 64; /* a 0-byte Prepare still gets a valid address */
  if (staging.len[k] < len) {
    pthread_once(&gexi_ctx.npam_staging_once, make_key);
    void *p = realloc(staging.buf[k], len);
    if (!p) gexi_fatal("out of memory (%zu-byte AM staging buffer)", len);
    staging.buf[k] = p;
    staging.len[k] = len;
    pthread_setspecific(gexi_ctx.npam_staging_key, &staging);
  }
  return staging.buf[k];
}

static gex_AM_SrcDesc_t prepare(const char *fn, int kind, gex_Rank_t jobrank,
                                struct gexi_Token *tok, const void *client_buf,
                                size_t least, size_t most, void *dest, gex_Event_t *lc_opt,
                                gex_Flags_t flags, unsigned nargs) {
  int is_req = (kind == GEXI_SD_REQ_MEDIUM || kind == GEXI_SD_REQ_LONG);
  int is_long = (kind == GEXI_SD_REQ_LONG || kind == GEXI_SD_REP_LONG);
  size_t max = is_long ? GEXI_AM_MAX_LONG : GEXI_AM_MAX_MEDIUM;
#if GEX_CHECKS
  if (gexi_tls.open_sd) gexi_fatal("%s: a previous Prepare was not committed or cancelled", fn);
  if (least > max) gexi_fatal("%s: least_payload %zu exceeds the maximum %zu", fn, least, max);
  if (most < least) gexi_fatal("%s: most_payload %zu is below least_payload %zu", fn, most, least);
  if (nargs > GEXI_AM_MAX_ARGS) gexi_fatal("%s: numargs %u exceeds %d", fn, nargs, GEXI_AM_MAX_ARGS);
  if (!client_buf && lc_opt) gexi_fatal("%s: lc_opt must be NULL without a client buffer", fn);
  /* Those of the fixed-payload call, and the (ignored) LEAST_* query flags. */
  GEXI_CHECK_FLAGS(fn, flags, GEXI_FLAGS_P2P | GEXI_FLAGS_AM_LEAST);
#else
  (void)least;
  (void)fn;
#endif
  gex_Rank_t li = gexi_ctx.local_index[jobrank];
  uint64_t pos = 0;
  struct gexi_amq_slot *slot = NULL;
  /* To this process: no queue slot; Commit sends (or runs) it from staging. */
  if (li != GEX_RANK_INVALID && jobrank != gexi_ctx.rank) {
    slot = gexi_shm_am_reserve(li, is_req, flags, &pos);
    if (!slot) return GEX_AM_SRCDESC_NO_OP;
  }
  /* Off-node: the message is built at Commit from a staging buffer (the
   * network transport copies it before Commit returns). */
  struct gexi_SrcDesc *sd = &sd_storage;
  sd->kind = kind;
  sd->jobrank = jobrank;
  sd->size = most < max ? most : max;
  sd->client_buf = client_buf;
  if (client_buf)
    sd->addr = (void *)client_buf;
  else
    sd->addr = (is_long || !slot) ? staging_buffer(sd->size) : slot->payload;
  sd->dest = dest;
  sd->ep = 0;
  sd->nargs = nargs;
  sd->flags = flags;
  sd->lc_opt = lc_opt;
  sd->token = tok;
  sd->transport_slot = slot;
  sd->transport_pos = pos;
  gexi_tls.open_sd = sd;
  return sd;
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank,
                                             const void *client_buf, size_t least_payload,
                                             size_t most_payload, gex_Event_t *lc_opt,
                                             gex_Flags_t flags, unsigned int numargs) {
  gexi_check_can_communicate("gex_AM_PrepareRequestMedium");
  if (rank >= GEXI_TM_SIZE(tm)) gexi_bad_rank("gex_AM_PrepareRequestMedium", tm, rank);
  return prepare("gex_AM_PrepareRequestMedium", GEXI_SD_REQ_MEDIUM, gexi_tm_jobrank(tm, rank),
                 NULL, client_buf, least_payload, most_payload, NULL, lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs) {
  struct gexi_Token *tok = gexi_reply_token("gex_AM_PrepareReplyMedium", token);
  gex_AM_SrcDesc_t sd = prepare("gex_AM_PrepareReplyMedium", GEXI_SD_REP_MEDIUM, tok->src, tok,
                                client_buf, least_payload, most_payload, NULL, lc_opt, flags,
                                numargs);
  if (!sd) tok->replied = 0;
  return sd;
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           void *dest_addr, gex_Event_t *lc_opt,
                                           gex_Flags_t flags, unsigned int numargs) {
  gexi_check_can_communicate("gex_AM_PrepareRequestLong");
  if (rank >= GEXI_TM_SIZE(tm)) gexi_bad_rank("gex_AM_PrepareRequestLong", tm, rank);
  gex_AM_SrcDesc_t sd = prepare("gex_AM_PrepareRequestLong", GEXI_SD_REQ_LONG,
                                gexi_tm_jobrank(tm, rank), NULL, client_buf, least_payload,
                                most_payload, dest_addr, lc_opt, flags, numargs);
  if (sd) sd->ep = gexi_tm(tm)->remote_index; /* (a TM-pair's target endpoint) */
  return sd;
}

gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                         size_t least_payload, size_t most_payload,
                                         void *dest_addr, gex_Event_t *lc_opt,
                                         gex_Flags_t flags, unsigned int numargs) {
  struct gexi_Token *tok = gexi_reply_token("gex_AM_PrepareReplyLong", token);
  gex_AM_SrcDesc_t sd = prepare("gex_AM_PrepareReplyLong", GEXI_SD_REP_LONG, tok->src, tok,
                                client_buf, least_payload, most_payload, dest_addr, lc_opt,
                                flags, numargs);
  if (!sd) tok->replied = 0;
  return sd;
}

static const char *const commit_name[] = {"", "gex_AM_CommitRequestMedium",
                                          "gex_AM_CommitReplyMedium", "gex_AM_CommitRequestLong",
                                          "gex_AM_CommitReplyLong"};

static struct gexi_SrcDesc *owned_sd(const char *fn, gex_AM_SrcDesc_t sd, int kind) {
#if GEX_CHECKS
  if (!sd || sd != gexi_tls.open_sd)
    gexi_fatal("%s: source descriptor %p is not this thread's open Prepare", fn, (void *)sd);
  if (sd->kind != kind) gexi_fatal("%s: source descriptor came from a different Prepare call", fn);
#else
  (void)fn;
  (void)kind;
#endif
  return sd;
}

int gexi_AM_Commit(gex_AM_SrcDesc_t sdh, int kind, gex_AM_Index_t handler, size_t nbytes,
                   void *dest, gex_Flags_t commit_flags, unsigned int nargs,
                   const gex_AM_Arg_t *args) {
  /* commit_flags: only IMMEDIATE has an effect, which is none here (the slot
   * is already reserved: Commit never blocks); the fixed-payload call's
   * flags are accepted. */
  const char *fn = commit_name[kind];
  GEXI_CHECK_FLAGS(fn, commit_flags, GEXI_FLAGS_P2P);
  gexi_am_sync_release(); /* (as am_send.c's request_target) */
  struct gexi_SrcDesc *sd = owned_sd(fn, sdh, kind);
  int is_long = (kind == GEXI_SD_REQ_LONG || kind == GEXI_SD_REP_LONG);
#if GEX_CHECKS
  if (nargs != sd->nargs) gexi_fatal("%s: %u arguments, but Prepare said %u", fn, nargs, sd->nargs);
  if (nbytes > sd->size) gexi_fatal("%s: nbytes %zu exceeds the prepared size %zu", fn, nbytes, sd->size);
  if (is_long && sd->dest && dest != sd->dest)
    gexi_fatal("%s: dest_addr %p differs from the %p given to Prepare", fn, dest, sd->dest);
#endif
  /* A Long to an endpoint of index k > 0 (am_send.c, long_ep): a Request's
   * is its TM-pair's, a Reply's the requester's that holds dest. */
  uint32_t ep = 0;
  if (kind == GEXI_SD_REP_LONG) ep = gexi_am_long_ep(fn, sd->jobrank, dest, nbytes);
  if (kind == GEXI_SD_REQ_LONG) {
    ep = sd->ep;
#if GEX_CHECKS
    if (nbytes && !gexi_am_in_segment(gexi_master_peer(ep, sd->jobrank), dest, nbytes)) {
      if (!ep) gexi_bad_range(fn, gexi_tm_handle(gexi_ctx.ep.pair_tm), sd->jobrank, dest, nbytes);
      gexi_fatal("%s: address range [%p,+%zu) outside the segment of endpoint %u of rank %u", fn,
                 dest, nbytes, (unsigned)ep, (unsigned)sd->jobrank);
    }
#endif
  }
  if (ep) ep = gexi_am_place_long(sd->jobrank, (gex_EP_Index_t)ep, dest, sd->addr, nbytes);
  struct gexi_amq_slot *s = sd->transport_slot;
  if (sd->jobrank == gexi_ctx.rank) {
    /* Loopback: runs a client handler now (am_send.c), else queues it. */
    gex_Event_t *lc = sd->lc_opt;
    gexi_tls.open_sd = NULL;
    gexi_am_send(sd->jobrank, is_long ? GEXI_AM_LONG : GEXI_AM_MEDIUM,
                 kind == GEXI_SD_REQ_MEDIUM || kind == GEXI_SD_REQ_LONG, handler, nargs, args,
                 sd->addr, nbytes, dest, 0);
    if (lc && lc != GEX_EVENT_NOW && lc != GEX_EVENT_GROUP) *lc = GEX_EVENT_INVALID;
    return 0;
  }
  struct gexi_am_hdr net_hdr;
  struct gexi_am_hdr *h = s ? &s->hdr : &net_hdr;
  h->category = is_long ? GEXI_AM_LONG : GEXI_AM_MEDIUM;
  h->is_req = (kind == GEXI_SD_REQ_MEDIUM || kind == GEXI_SD_REQ_LONG);
  h->nargs = (uint8_t)nargs;
  h->handler = handler;
  h->src = gexi_ctx.rank;
  h->nbytes = (uint32_t)nbytes;
  h->ep_index = ep;
  h->dest = (uint64_t)(uintptr_t)dest;
  memcpy(h->args, args, nargs * sizeof(gex_AM_Arg_t));
  gex_Event_t *lc = sd->lc_opt;
  gexi_tls.open_sd = NULL; /* an off-node send may poll and run handlers that Prepare */
  if (s)
    gexi_shm_am_finish(gexi_ctx.local_index[sd->jobrank], s, sd->transport_pos, h->category,
                       sd->addr, ep ? 0 : nbytes);
  else
    gexi_ctx.net->am_send(sd->jobrank, h, sd->addr, 0);
  if (lc && lc != GEX_EVENT_NOW && lc != GEX_EVENT_GROUP) *lc = GEX_EVENT_INVALID;
  return 0;
}

void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd) { return sd->addr; }
size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd) { return sd->size; }

static int cancel(const char *fn, gex_AM_SrcDesc_t sdh, int kind, gex_Flags_t flags) {
  GEXI_CHECK_FLAGS(fn, flags, 0); /* reserved: must be zero */
  struct gexi_SrcDesc *sd = owned_sd(fn, sdh, kind);
  struct gexi_amq_slot *s = sd->transport_slot;
  if (s) {
    s->hdr.category = GEXI_AM_NOP;
    gexi_shm_am_finish(gexi_ctx.local_index[sd->jobrank], s, sd->transport_pos, GEXI_AM_NOP,
                       NULL, 0);
  }
  if (sd->token) sd->token->replied = 0;
  gexi_tls.open_sd = NULL;
  return 0;
}

int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags) {
  return cancel("gex_AM_CancelRequestMedium", sd, GEXI_SD_REQ_MEDIUM, flags);
}
int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags) {
  return cancel("gex_AM_CancelReplyMedium", sd, GEXI_SD_REP_MEDIUM, flags);
}
int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags) {
  return cancel("gex_AM_CancelRequestLong", sd, GEXI_SD_REQ_LONG, flags);
}
int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags) {
  return cancel("gex_AM_CancelReplyLong", sd, GEXI_SD_REP_LONG, flags);
}

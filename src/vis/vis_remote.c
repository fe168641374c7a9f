/* vis/vis_remote.c -- the AM/RMA path of VIS (vis/vis.h): pieces packed
 * into AM Mediums or moved by RMA, their handlers, and the operation's
 * completion.  See docs/vis.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "am/am.h"
#include "atomic/ad_am.h"
#include "core/context.h"
#include "transport/transport.h"
#include "vis/vis.h"

/* ---- the AM / RMA path ------------------------------------------------------------ */
/* Used for a peer that is not on this node, and for every peer under
 * GEX_VIS_FORCE_AM=1.  The operation is cut into contiguous pieces (the
 * largest runs contiguous on both sides).  A piece of at most the pack
 * threshold (every piece, when forced) is packed with its neighbours into AM
 * Medium Requests of at most one Medium payload each:
 *
 *   Put request   { u64 remote address, u32 length, data } ...
 *                 the target's handler copies each record to its address,
 *                 then Replies PUT_ACK.
 *   Get request   { u64 remote address, u64 local address, u32 length } ...
 *                 the target's handler Replies GET_DATA with
 *                 { u64 local address, u32 length, data } ..., which the
 *                 initiator's reply handler copies to the local addresses.
 *
 * Both carry the address of a completion counter (2 arguments), decremented
 * by the initiator's reply handler after the data are in place.  Larger
 * pieces (off-node only) are one RMA each through gexi_RMA_Put_remote /
 * gexi_RMA_Get_remote.
 *
 * Completion, by form:
 *   NBI       packets count in this thread's NBI set (or the open access
 *             region's event: gexi_am_counter) and the RMAs are NBI RMAs,
 *             so gex_NBI_Wait / the region's event covers the operation.
 *   NB        one GEXI_EV_FLAG event: its counter covers the packets and its
 *             'sub' array holds the NB events of the RMAs.
 *   Blocking  the same event, waited for before returning.
 * An armed peer completion handler turns NB and NBI into the blocking form:
 * the handler must reach the target after the data did, and completion is
 * only known at the initiator (replies can arrive in any order, and no call
 * of the client is certain to come later to send it), so the call waits and
 * then sends the handler; it returns with the operation complete.
 *
 * Local completion: packets are copied at injection and the RMAs of a Put
 * use GEX_EVENT_NOW when GEX_FLAG_ENABLE_LEAF_LC asks for local completion
 * (else GEX_EVENT_DEFER), so the source buffers are reusable when an
 * initiation with that flag returns -- the leaf event is GEX_EVENT_INVALID.
 * GEX_FLAG_IMMEDIATE is accepted and ignored on this path (never refuses).
 *
 * Record fields are written and read with memcpy: records are packed with
 * no alignment. */
#define PUT_REC 12 /* u64 address + u32 length */
#define GET_REQ_REC 20
#define GET_REP_REC 12

typedef struct {
  gex_TM_t tm;
  gex_Rank_t rank;
  int is_put, mode, cat;
  gex_Event_t *lc;         /* lc_opt of the per-piece RMA Puts */
  size_t pack_max, cap;    /* pack threshold; payload bytes of one packet */
  unsigned char *buf;      /* the packet being filled (NULL until first needed) */
  size_t used, rep_used;   /* its bytes; Get: the bytes of its reply */
  struct gexi_Event *ev;   /* NB / blocking: the operation's event */
  gex_Event_t *sub;        /* NB / blocking: RMA events (moved into ev) */
  size_t nsub, subcap;
} vis_send_t;

static void vs_flush(vis_send_t *vs) {
  if (!vs->used) return;
  _Atomic uint32_t *c = gexi_am_counter(vs->mode, vs->cat, &vs->ev, 1);
  /* The Medium payload is copied before the call returns: buf is reusable. */
  gex_AM_RequestMedium2(vs->tm, vs->rank, vs->is_put ? GEXI_AMIDX_VIS_PUT : GEXI_AMIDX_VIS_GET,
                        vs->buf, vs->used, GEX_EVENT_NOW, 0, GEXI_AM_PTRARGS(c));
  vs->used = vs->rep_used = 0;
}

static void vs_pack(vis_send_t *vs, uintptr_t remote, uintptr_t local, size_t len) {
  if (!vs->buf && !(vs->buf = malloc(vs->cap))) gexi_fatal("VIS: out of memory");
  while (len) {
    size_t room = vs->is_put ? vs->cap - vs->used : vs->cap - vs->rep_used;
    int req_full = !vs->is_put && vs->cap - vs->used < GET_REQ_REC;
    /* no room, or room for a fragment of under 64 bytes of a longer piece */
    if (req_full || room <= PUT_REC || (room - PUT_REC < len && room - PUT_REC < 64)) {
      if (!vs->used) gexi_fatal("VIS: AM Medium payload of %zu bytes is too small", vs->cap);
      vs_flush(vs);
      continue;
    }
    size_t n = room - PUT_REC < len ? room - PUT_REC : len;
    uint64_t ra = remote, la = local;
    uint32_t l32 = (uint32_t)n;
    unsigned char *r = vs->buf + vs->used;
    memcpy(r, &ra, 8);
    if (vs->is_put) {
      memcpy(r + 8, &l32, 4);
      memcpy(r + PUT_REC, (const void *)local, n);
      vs->used += PUT_REC + n;
    } else {
      memcpy(r + 8, &la, 8);
      memcpy(r + 16, &l32, 4);
      vs->used += GET_REQ_REC;
      vs->rep_used += GET_REP_REC + n;
    }
    remote += n;
    local += n;
    len -= n;
  }
}

static void vs_rma(vis_send_t *vs, uintptr_t remote, uintptr_t local, size_t len) {
  const int m = vs->mode == GEXI_MODE_NBI ? GEXI_MODE_NBI : GEXI_MODE_NB;
  gex_Event_t e =
      vs->is_put ? gexi_RMA_Put_remote(vs->tm, vs->rank, (void *)remote, (const void *)local, len,
                                       vs->lc, 0, m)
                 : gexi_RMA_Get_remote(vs->tm, (void *)local, vs->rank, (void *)remote, len, 0, m);
  if (m == GEXI_MODE_NBI || e == GEX_EVENT_INVALID) return;
  if (vs->nsub == vs->subcap) {
    vs->subcap = vs->subcap ? 2 * vs->subcap : 16;
    vs->sub = realloc(vs->sub, vs->subcap * sizeof *vs->sub);
    if (!vs->sub) gexi_fatal("VIS: out of memory");
  }
  vs->sub[vs->nsub++] = e;
}

/* One contiguous piece: 'dst' and 'src' as the client gave them. */
static inline void vs_piece(vis_send_t *vs, uintptr_t dst, uintptr_t src, size_t len) {
  if (!len) return;
  const uintptr_t remote = vs->is_put ? dst : src, local = vs->is_put ? src : dst;
  if (len <= vs->pack_max)
    vs_pack(vs, remote, local, len);
  else
    vs_rma(vs, remote, local, len);
}

static void vs_list_piece(void *vs, uintptr_t d, uintptr_t s, size_t n) { vs_piece(vs, d, s, n); }

static void vs_strided(vis_send_t *vs, uintptr_t d, uintptr_t s, size_t elem, const dim_t *dims,
                       size_t k) {
  if (k == 0) {
    vs_piece(vs, d, s, elem);
    return;
  }
  const dim_t *t = &dims[k - 1];
  for (size_t i = 0; i < t->n; i++)
    vs_strided(vs, d + (uintptr_t)((ptrdiff_t)i * t->ds), s + (uintptr_t)((ptrdiff_t)i * t->ss),
               elem, dims, k - 1);
}

gex_Event_t gexi_vis_remote(const char *fn, gex_TM_t tm, gex_Rank_t rank, const vis_op_t *op,
                            gex_Flags_t flags, int mode) {
  const gexi_Peer_t *p = GEXI_TM_PEERS(tm) + rank;
  const uint32_t cfg = vis_cfg();
  /* (a neighbour whose segment is client memory, not mapped here, is
   * reached too: pieces by AM, or by RMA through the kernel) */
  if (!p->local && !gexi_ctx.net && gexi_ctx.local_index[p->jobrank] == GEX_RANK_INVALID)
    gexi_fatal("%s: rank %u is not reachable (no network transport)", fn,
               (unsigned)gexi_tm_jobrank(tm, rank));
  const int pc = gexi_vis_pc_armed();
  vis_send_t vs = {.tm = tm, .rank = rank, .is_put = op->is_put,
                   .mode = pc ? GEXI_MODE_BLOCKING : mode,
                   .cat = op->is_put ? GEXI_AM_NBI_PUT : GEXI_AM_NBI_GET,
                   .lc = (flags & GEX_FLAG_ENABLE_LEAF_LC) ? GEX_EVENT_NOW : GEX_EVENT_DEFER};
  size_t req = gex_AM_LUBRequestMedium(), rep = gex_AM_LUBReplyMedium();
  vs.cap = req < rep ? req : rep;
  if (vs.cap > UINT32_MAX) vs.cap = UINT32_MAX;
  /* forced (or on-node, which is only reached when forced): pack every piece */
  vs.pack_max = (cfg & VIS_CFG_FORCE) || p->local ? SIZE_MAX : (size_t)(cfg & VIS_CFG_MAX);
  if (op->kind == VIS_STRIDED)
    vs_strided(&vs, op->dstaddr, op->srcaddr, op->elem, op->dims, op->ndims);
  else
    vis_lists_walk(&op->dst, &op->src, vs_list_piece, &vs);
  vs_flush(&vs);
  free(vs.buf);
  if (vs.nsub) {
    if (!vs.ev) vs.ev = gexi_ev_flag_new(0);
    vs.ev->flag.sub = vs.sub; /* the event owns the array from here */
    vs.ev->flag.nsub = vs.nsub;
  } else {
    free(vs.sub);
  }
  if (vs.mode == GEXI_MODE_NB) return vs.ev ? vs.ev : GEX_EVENT_INVALID;
  if (vs.mode == GEXI_MODE_BLOCKING && vs.ev) gex_Event_Wait(vs.ev);
  if (pc) gexi_vis_peer_completion(fn, tm, rank, op->is_put, flags);
  return GEX_EVENT_INVALID;
}

/* ---- handlers ---------------------------------------------------------------------- */
/* Every handler acquires gexi_am_sync() first (core/complete.h): a packed
 * Put's writes and a later Get's reads of the same bytes may run in
 * different threads of the target, ordered by the client through the
 * initiator's process; target-side handlers also release it when done. */

/* Copy each record { u64 address, u32 length, data } of buf to its address
 * (a packed Put at the target, a Get's reply at the initiator: both
 * records are PUT_REC == GET_REP_REC bytes before the data). */
_Static_assert(PUT_REC == GET_REP_REC, "one record layout for both scatters");
static void scatter(const void *buf, size_t nbytes) {
  const unsigned char *r = buf, *end = r + nbytes;
  while (r < end) {
    uint64_t a;
    uint32_t n;
    memcpy(&a, r, 8);
    memcpy(&n, r + 8, 4);
    memcpy((void *)(uintptr_t)a, r + PUT_REC, n);
    r += PUT_REC + n;
  }
}

/* Target: scatter a packed Put into this process's memory, then acknowledge. */
static void vis_put_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t c0,
                            gex_AM_Arg_t c1) {
  gexi_am_sync_acquire();
  scatter(buf, nbytes);
  gexi_am_sync_release();
  gex_AM_ReplyShort2(t, GEXI_AMIDX_VIS_PUT_ACK, 0, c0, c1);
}

/* Initiator: a packed Put landed. */
static void vis_put_ack(gex_Token_t t, gex_AM_Arg_t c0, gex_AM_Arg_t c1) {
  (void)t;
  gexi_am_sync_acquire();
  gexi_am_counter_done(gexi_am_ptr(c0, c1), 1); /* last touch of the operation */
}

/* Target: gather the requested pieces into one Medium Reply. */
static void vis_get_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t c0,
                            gex_AM_Arg_t c1) {
  const unsigned char *r = buf, *end = r + nbytes;
  size_t need = 0;
  for (const unsigned char *q = r; q < end; q += GET_REQ_REC) {
    uint32_t n;
    memcpy(&n, q + 16, 4);
    need += GET_REP_REC + n;
  }
  unsigned char *out = malloc(need ? need : 1);
  if (!out) gexi_fatal("VIS: out of memory for a Get reply of %zu bytes", need);
  unsigned char *o = out;
  gexi_am_sync_acquire();
  for (; r < end; r += GET_REQ_REC) {
    uint64_t a;
    uint32_t n;
    memcpy(&a, r, 8);
    memcpy(&n, r + 16, 4);
    memcpy(o, r + 8, 8); /* the initiator's address, echoed */
    memcpy(o + 8, &n, 4);
    memcpy(o + GET_REP_REC, (const void *)(uintptr_t)a, n);
    o += GET_REP_REC + n;
  }
  gexi_am_sync_release();
  gex_AM_ReplyMedium2(t, GEXI_AMIDX_VIS_GET_DATA, out, need, GEX_EVENT_NOW, 0, c0, c1);
  free(out);
}

/* Initiator: copy gathered pieces to their local addresses. */
static void vis_get_data(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t c0,
                         gex_AM_Arg_t c1) {
  (void)t;
  gexi_am_sync_acquire();
  scatter(buf, nbytes);
  gexi_am_counter_done(gexi_am_ptr(c0, c1), 1); /* after the data: publishes them */
}

size_t gexi_vis_am_entries(gex_AM_Entry_t *e) {
  const gex_Flags_t mreq = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
                    mrep = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY,
                    srep = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY;
  e[0] = (gex_AM_Entry_t){GEXI_AMIDX_VIS_PUT, (gex_AM_Fn_t)vis_put_handler, mreq, 2, NULL,
                          "gexi_vis_put"};
  e[1] = (gex_AM_Entry_t){GEXI_AMIDX_VIS_PUT_ACK, (gex_AM_Fn_t)vis_put_ack, srep, 2, NULL,
                          "gexi_vis_put_ack"};
  e[2] = (gex_AM_Entry_t){GEXI_AMIDX_VIS_GET, (gex_AM_Fn_t)vis_get_handler, mreq, 2, NULL,
                          "gexi_vis_get"};
  e[3] = (gex_AM_Entry_t){GEXI_AMIDX_VIS_GET_DATA, (gex_AM_Fn_t)vis_get_data, mrep, 2, NULL,
                          "gexi_vis_get_data"};
  return 4;
}

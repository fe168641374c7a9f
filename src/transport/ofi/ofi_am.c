/* transport/ofi/ofi_am.c -- Active Messages over FI_MSG, and the poll loop.
 *
 * Flow control.  Each ordered pair of processes has two byte-credit
 * channels, one for Requests and one for Replies.  A sender spends the
 * wire length of every message from its credit for the target and channel
 * and stalls (polling) when it has too little; the target owes the sender
 * those bytes back once it starts handling the message, and pays them back
 * on any message it sends to that peer (struct ofi_wire.credit) or, when
 * the debt reaches an eighth of a channel, in an explicit credit message,
 * which costs no credit.  (Half a channel proved too late: a Reply sender
 * stalled for credit while the target, idle, owed it just under half and
 * the rest was still on its way back; the reference's testvis over
 * tcp;ofi_rxm hung that way about one run in three.)  So each peer can have
 * at most 2 * credit_bytes of unhandled messages in our receive buffers, and
 * the buffers are sized for all peers at once: nothing is ever dropped or
 * left to the provider's unexpected-message handling.
 *
 * Deadlock freedom is the on-node argument (transport/shm/shm_am.c): a
 * Request sender waiting for credit polls everything; a Reply sender (inside
 * a Request handler) polls replies only, and Requests it reads meanwhile are
 * deferred, so a chain of waiting repliers ends at a process that handles
 * replies and returns their credit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "transport/ofi/ofi.h"

#define OFI_RX_BUF_MIN ((size_t)1 << 20)
#define OFI_POOL_BUFS 64

static inline struct gexi_ofi *O(void) { return gexi_ctx.ofi; }

/* ---- bounce-buffer pool --------------------------------------------------- */
void *gexi_ofi_pool_get(int what) {
  struct gexi_ofi *o = O();
  for (;;) {
    pthread_mutex_lock(&o->pool_lock);
    void *b = o->npool ? o->pool[--o->npool] : NULL;
    pthread_mutex_unlock(&o->pool_lock);
    if (b || what < 0) return b;
    if (gexi_poll(what))
      gexi_busy();
    else
      gexi_idle();
  }
}

void gexi_ofi_pool_put(void *buf) {
  struct gexi_ofi *o = O();
  pthread_mutex_lock(&o->pool_lock);
  o->pool[o->npool++] = buf;
  pthread_mutex_unlock(&o->pool_lock);
}

static void *pool_desc(void) { return O()->pool_desc; }

/* ---- receive buffers ------------------------------------------------------ */
/* A drain buffer (rx->drain) holds one message at a time: it is posted
 * without FI_MULTI_RECV and given back as soon as its message is dropped. */
static void rx_post(struct ofi_rxbuf *rx) {
  struct gexi_ofi *o = O();
  atomic_store_explicit(&rx->refs, 1, memory_order_relaxed);
  atomic_store_explicit(&rx->ledger, OFI_RX_OPEN, memory_order_relaxed);
  atomic_store_explicit(&rx->hi, 0, memory_order_relaxed);
  void *desc = rx->mr ? fi_mr_desc(rx->mr) : NULL;
  struct iovec iov = {rx->mem, rx->len};
  struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1,
                       .addr = FI_ADDR_UNSPEC, .context = &rx->fctx};
  ssize_t rc;
  uint64_t flags = FI_COMPLETION | (o->multi_recv && !rx->drain ? FI_MULTI_RECV : 0);
  while ((rc = fi_recvmsg(rx->ep, &msg, flags)) == -FI_EAGAIN)
    fi_cq_read(o->cq, NULL, 0); /* progress only; no entries are taken */
  if (rc) gexi_ofi_fail("fi_recvmsg", rc);
}

void gexi_ofi_rx_post(struct ofi_rxbuf *rx) { rx_post(rx); }

static inline void rx_unref(struct ofi_rxbuf *rx) {
  if (atomic_fetch_sub_explicit(&rx->refs, 1, memory_order_acq_rel) == 1) rx_post(rx);
}

/* A receive completion (or error) of rx: 'len' bytes at 'buf', 'last' when
 * it carries FI_MULTI_RECV.  Drops the provider's reference once the buffer
 * is released and every message placed in it has completed (struct
 * ofi_rxbuf); with one message per buffer, at once. */
static void rx_completed(struct ofi_rxbuf *rx, const void *buf, size_t len, int last) {
  if (!O()->multi_recv || rx->drain) {
    rx_unref(rx);
    return;
  }
  size_t end = 0;
  if (len && buf) {
    end = (size_t)((const char *)buf - (const char *)rx->mem) + len;
    size_t hi = atomic_load_explicit(&rx->hi, memory_order_relaxed);
    while (end > hi && !atomic_compare_exchange_weak_explicit(&rx->hi, &hi, end,
                                                              memory_order_relaxed,
                                                              memory_order_relaxed)) {
    }
  }
  int64_t sub = (int64_t)len;
  if (last) sub += OFI_RX_OPEN - (int64_t)(end ? end : atomic_load_explicit(&rx->hi, memory_order_relaxed));
  if (atomic_fetch_sub_explicit(&rx->ledger, sub, memory_order_acq_rel) == sub) rx_unref(rx);
}

void gexi_ofi_am_setup(void) {
  struct gexi_ofi *o = O();
  gex_Rank_t noff = gexi_ctx.size - gexi_ctx.nbrhd_size;
  if (noff == 0) noff = 1;
  int64_t credit = gexi_ctx.env.ofi_am_credit ? (int64_t)gexi_ctx.env.ofi_am_credit
                                              : (int64_t)(((size_t)32 << 20) / noff);
  if (credit > (int64_t)256 << 10) credit = (int64_t)256 << 10;
  if (credit < (int64_t)(2 * o->wire_max)) credit = (int64_t)(2 * o->wire_max);
  if (!o->multi_recv) {
    /* One buffer per message: every message costs a whole buffer of credit.
     * Up to 64 buffers per peer and channel where the provider's receive
     * queue holds them for every peer, so that explicit credit returns (every
     * eighth of a channel) come every 8 messages; GEX_OFI_AM_CREDIT lowers
     * it, to no fewer than 16 (an explicit credit return every other
     * message would double the message count). */
    size_t rxq = o->info->rx_attr->size ? o->info->rx_attr->size : 256;
    int64_t per_peer = (int64_t)((rxq - 16) / (4 * (size_t)noff)); /* buffers per peer and channel */
    if (per_peer > 64) per_peer = 64;
    if (gexi_ctx.env.ofi_am_credit && per_peer > credit / (int64_t)o->wire_max)
      per_peer = credit / (int64_t)o->wire_max;
    if (per_peer < 16) per_peer = 16;
    credit = per_peer * (int64_t)o->wire_max;
  }
  o->credit_bytes = credit;
  o->am_inject_max = o->inject_size < OFI_STACK_WIRE ? o->inject_size : OFI_STACK_WIRE;
  for (unsigned n = 0; n <= GEXI_AM_MAX_ARGS; n++)
    o->short_cost[n] = o->multi_recv ? (int64_t)OFI_WIRE_HDR_LEN(n) : (int64_t)o->wire_max;
  o->self = gexi_ctx.rank;
  o->credit_return = (uint32_t)(credit / 8); /* see the flow-control note at the top */
  for (gex_Rank_t j = 0; j < gexi_ctx.size; j++) {
    atomic_init(&o->peers[j].credit[0], credit);
    atomic_init(&o->peers[j].credit[1], credit);
  }
  /* Room for every peer's full credit on both channels plus its credit
   * messages; a buffer is released with up to wire_max bytes unused. */
  size_t need = (size_t)noff * (2 * (size_t)credit + 4 * OFI_WIRE_HDR_LEN(0) + 2 * OFI_AUTH_MSG_LEN);
  size_t bufsz;
  if (o->multi_recv) {
    bufsz = OFI_RX_BUF_MIN > 8 * o->wire_max ? OFI_RX_BUF_MIN : 8 * o->wire_max;
    o->nrx = (int)((need + bufsz - o->wire_max - 1) / (bufsz - o->wire_max)) + 2;
  } else {
    /* One message per buffer: enough buffers for every message the credits
     * allow (each costs at least the smallest wire length). */
    bufsz = o->wire_max;
    o->nrx = (int)(2 * (size_t)noff * (size_t)(credit / (int64_t)o->wire_max) + 6 * noff + 8);
  }
  o->rx = calloc((size_t)o->nrx, sizeof *o->rx);
  if (!o->rx) gexi_fatal("out of memory");
  for (int i = 0; i < o->nrx; i++) {
    struct ofi_rxbuf *rx = &o->rx[i];
    if (posix_memalign(&rx->mem, 4096, bufsz)) gexi_fatal("out of memory (AM receive buffers)");
    rx->len = bufsz;
    rx->ep = o->ep;
    if (o->mr_mode & FI_MR_LOCAL) rx->mr = gexi_ofi_reg(rx->mem, bufsz, FI_RECV);
    rx_post(rx);
  }
  /* Send bounce buffers. */
  pthread_mutex_init(&o->pool_lock, NULL);
  pthread_mutex_init(&o->defer_lock, NULL);
  pthread_mutex_init(&o->cqe_lock, NULL);
  o->pool = calloc(OFI_POOL_BUFS, sizeof *o->pool);
  if (!o->pool || posix_memalign(&o->pool_mem, 4096, OFI_POOL_BUFS * o->wire_max))
    gexi_fatal("out of memory (AM send buffers)");
  if (o->mr_mode & FI_MR_LOCAL) {
    o->pool_mr = gexi_ofi_reg(o->pool_mem, OFI_POOL_BUFS * o->wire_max, FI_SEND | FI_WRITE | FI_READ);
    o->pool_desc = fi_mr_desc(o->pool_mr);
  }
  for (int i = 0; i < OFI_POOL_BUFS; i++) o->pool[i] = (char *)o->pool_mem + (size_t)i * o->wire_max;
  o->npool = OFI_POOL_BUFS;
  gexi_ofi_batch_setup();
}

/* ---- sending -------------------------------------------------------------- */
/* Hand a built message to the provider.  'bounce': buf is a pool buffer to
 * return at completion (otherwise buf is on the caller's stack and small
 * enough to inject). */
void gexi_ofi_send_wire(gex_Rank_t j, void *buf, size_t len, int bounce, int what) {
  struct gexi_ofi *o = O();
  if (!bounce) {
    OFI_RETRY(fi_inject(o->ep, buf, len, j), what, "fi_inject");
    return;
  }
  struct ofi_op *op = calloc(1, sizeof *op);
  if (!op) gexi_fatal("out of memory");
  op->ev_kind = GEXI_EV_NET;
  op->kind = OFI_OP_FREE;
  op->bounce = buf;
  op->peer = j;
  void *desc = pool_desc();
  struct iovec iov = {buf, len};
  struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = j,
                       .context = &op->fctx};
  OFI_RETRY(fi_sendmsg(o->ep, &msg, FI_COMPLETION), what, "fi_sendmsg");
}

static void send_credit(gex_Rank_t j, int what) {
  struct gexi_ofi *o = O();
  struct ofi_peer *p = &o->peers[j];
  uint64_t stack[OFI_STACK_WIRE / 8];
  size_t len = OFI_WIRE_HDR_LEN(0);
  int bounce = len > o->inject_size;
  struct ofi_wire *w = bounce ? gexi_ofi_pool_get(what) : (struct ofi_wire *)(void *)stack;
  memset(w, 0, len);
  gexi_ofi_take_owed(p, w);
  w->token = p->tok_tx; /* set: we owe credit only to a peer we admitted */
  w->type = OFI_WIRE_CREDIT;
  w->h.src = gexi_ctx.rank;
  gexi_ofi_send_wire(j, w, len, bounce, what);
}

/* Pay back debts that reached the threshold (explicit credit messages). */
static void return_credit(int what) {
  struct gexi_ofi *o = O();
  if (!atomic_exchange_explicit(&o->credit_scan, 0, memory_order_acq_rel)) return;
  for (gex_Rank_t j = 0; j < gexi_ctx.size; j++) {
    struct ofi_peer *p = &o->peers[j];
    if (atomic_load_explicit(&p->owed[0], memory_order_relaxed) >= o->credit_return ||
        atomic_load_explicit(&p->owed[1], memory_order_relaxed) >= o->credit_return)
      send_credit(j, what);
  }
}

/* Spend 'len' bytes of credit to peer j on channel ch; 0 on success, 1 when
 * refused (IMMEDIATE). */
__attribute__((noinline)) static int spend_credit_wait(struct ofi_peer *p, int ch, int64_t len,
                                                       gex_Flags_t flags, int what) {
  for (;;) {
    atomic_fetch_add_explicit(&p->credit[ch], len, memory_order_acq_rel);
    if (flags & GEX_FLAG_IMMEDIATE) return 1;
    if (gexi_poll(what))
      gexi_busy();
    else
      gexi_idle();
    int64_t c = atomic_fetch_sub_explicit(&p->credit[ch], len, memory_order_acq_rel);
    if (c >= len) return 0;
  }
}

static inline int spend_credit(struct ofi_peer *p, int ch, int64_t len, gex_Flags_t flags,
                               int what) {
  int64_t c = atomic_fetch_sub_explicit(&p->credit[ch], len, memory_order_acq_rel);
  if (GEXI_LIKELY(c >= len)) return 0;
  return spend_credit_wait(p, ch, len, flags, what);
}

/* Every other message: Long ones (an RMA write first unless packed), ones
 * too big to inject (a bounce buffer from the pool), the first to a peer
 * (the admission handshake). */
__attribute__((noinline)) static int am_send_general(gex_Rank_t j, const struct gexi_am_hdr *h,
                                                     const void *payload, gex_Flags_t flags) {
  struct gexi_ofi *o = O();
  struct ofi_peer *p = &o->peers[j];
  int ch = h->is_req ? 0 : 1;
  int what = h->is_req ? GEXI_POLL_ALL : GEXI_POLL_REPLIES;
  int is_long = h->category == GEXI_AM_LONG;
  int placed = is_long && (h->ep_index & GEXI_AM_EP_PLACED); /* at the target already */
  int packed = is_long && !placed && h->nbytes <= OFI_LONG_PACK_MAX;
  size_t body = (h->category == GEXI_AM_MEDIUM || packed) ? h->nbytes : 0;
  size_t hl = OFI_WIRE_HDR_LEN(h->nargs);
  size_t len = OFI_ROUND8(hl + body);

  /* Once per peer: the handshake that makes it admit us (ofi_auth.c). */
  if (GEXI_UNLIKELY(!atomic_load_explicit(&p->tx_ok, memory_order_acquire)))
    gexi_ofi_auth_connect(j, what);
  int64_t cost = o->multi_recv ? (int64_t)len : (int64_t)o->wire_max;
  if (spend_credit(p, ch, cost, flags, what)) return 1;
  uint64_t stack[OFI_STACK_WIRE / 8];
  /* Too big to inject, small enough to join a batch. */
  if (!is_long && len <= OFI_STACK_WIRE && gexi_ofi_batch_wanted(o, p)) {
    struct ofi_wire *b = (struct ofi_wire *)(void *)stack;
    stack[len / 8 - 1] = 0; /* the padding */
    memcpy(&b->h, h, hl - offsetof(struct ofi_wire, h));
    if (body) memcpy((char *)b + hl, payload, body);
    if (gexi_ofi_batch_add(j, b, len, what)) return 0;
  }
  gexi_ofi_batch_flush(j, what); /* AMs to j leave in order */
  int bounce = len > o->inject_size || len > OFI_STACK_WIRE;
  struct ofi_wire *w = bounce ? gexi_ofi_pool_get((flags & GEX_FLAG_IMMEDIATE) ? -1 : what)
                              : (struct ofi_wire *)(void *)stack;
  if (!w) {
    atomic_fetch_add_explicit(&p->credit[ch], cost, memory_order_acq_rel);
    return 1;
  }
  /* A Long payload too big to pack is written first; the header must not
   * overtake it (send-after-write order, or wait for delivery). */
  struct ofi_op wop;
  int wrote = 0;
  if (is_long && !packed && !placed && h->nbytes) {
    /* (into the segment of the target's endpoint: am_wire.h) */
    struct ofi_remote r = gexi_ofi_remote(j, gexi_am_ep(h), (void *)(uintptr_t)h->dest);
    wop = (struct ofi_op){.ev_kind = GEXI_EV_NET, .kind = OFI_OP_WAIT};
    if (o->order_saw) {
      struct fid_mr *tmp = NULL;
      void *desc = gexi_ofi_local_desc(payload, h->nbytes, FI_WRITE, &tmp);
      wop.tmp_mr = tmp;
      struct iovec iov = {(void *)payload, h->nbytes};
      struct fi_rma_iov riov = {r.raddr, h->nbytes, r.key};
      struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = j,
                               .rma_iov = &riov, .rma_iov_count = 1, .context = &wop.fctx};
      OFI_RETRY(fi_writemsg(o->ep, &msg, FI_COMPLETION | o->write_flags), what, "fi_writemsg");
      wrote = 1;
    } else {
      gexi_ofi_write_sync(j, r, payload, h->nbytes, what);
    }
  }
  memset(w, 0, offsetof(struct ofi_wire, h));
  gexi_ofi_take_owed(p, w);
  w->token = p->tok_tx;
  w->type = packed ? OFI_WIRE_LONG_PACKED : OFI_WIRE_AM;
  memcpy(&w->h, h, hl - offsetof(struct ofi_wire, h));
  if (body) memcpy((char *)w + hl, payload, body);
  gexi_ofi_send_wire(j, w, len, bounce, what);
  if (wrote) gexi_ofi_wait_op(&wop, what); /* the payload is reusable on return */
  return 0;
}

/* The wire header before the AM header: credit returned, session token,
 * type and padding. */
static inline void wire_start(struct ofi_peer *p, struct ofi_wire *w) {
  gexi_ofi_take_owed(p, w);
  w->token = p->tok_tx;
  uint64_t type_pad = OFI_WIRE_AM; /* type, then 7 zero bytes (little endian) */
  _Static_assert(offsetof(struct ofi_wire, h) - offsetof(struct ofi_wire, type) == 8,
                 "type and pad: one word");
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(&w->type, &type_pad, 8);
#else
  memset(&w->type, 0, 8);
  w->type = (uint8_t)type_pad;
#endif
}

/* The common case, Shorts and small Mediums to an admitted peer: built on
 * the stack and injected.  Every byte of the message is written (no stack
 * contents leave the process). */
int gexi_ofi_am_send(gex_Rank_t j, const struct gexi_am_hdr *h, const void *payload,
                     gex_Flags_t flags) {
  struct gexi_ofi *o = O();
  struct ofi_peer *p = &o->peers[j];
  size_t body = h->category == GEXI_AM_MEDIUM ? h->nbytes : 0;
  size_t hl = OFI_WIRE_HDR_LEN(h->nargs);
  size_t len = hl + OFI_ROUND8(body);
  if (GEXI_UNLIKELY(h->category == GEXI_AM_LONG || len > o->am_inject_max ||
                    !atomic_load_explicit(&p->tx_ok, memory_order_acquire)))
    return am_send_general(j, h, payload, flags);
  int what = h->is_req ? GEXI_POLL_ALL : GEXI_POLL_REPLIES;
  if (spend_credit(p, !h->is_req, o->multi_recv ? (int64_t)len : (int64_t)o->wire_max, flags, what))
    return 1;
  uint64_t stack[OFI_STACK_WIRE / 8];
  struct ofi_wire *w = (struct ofi_wire *)(void *)stack;
  memcpy(&w->h, h, offsetof(struct gexi_am_hdr, args)); /* fixed part */
  w->h.ep_index = 0;
  unsigned n = h->nargs;
  for (unsigned i = 0; i < n; i++) w->h.args[i] = h->args[i];
  if (n & 1) w->h.args[n] = 0; /* up to the 8-byte boundary */
  if (body) {
    stack[len / 8 - 1] = 0; /* the payload's padding */
    memcpy((char *)w + hl, payload, body);
  }
  if (gexi_ofi_batch_wanted(o, p) && gexi_ofi_batch_add(j, w, len, what)) return 0;
  wire_start(p, w);
  OFI_RETRY(fi_inject(o->ep, w, len, j), what, "fi_inject");
  return 0;
}

/* Shorts: the same, written straight from the arguments (no header built
 * by the caller, no copy of it), by gexi_ofi_am_short at the end of this
 * section.  Waiting for credit and retrying a refused inject are out of
 * line, so that nothing stays live across the calls of the common case (no
 * registers to save).  The general path of a Short (also of
 * gexi_ofi_am_short_batched, ofi_am_batch.c): */
__attribute__((noinline)) int gexi_ofi_am_short_slow(int ch, gex_Rank_t j, gex_AM_Index_t handler,
                                                    gex_Flags_t flags, unsigned nargs,
                                                    const gex_AM_Arg_t *args) {
  struct gexi_am_hdr h = {.category = GEXI_AM_SHORT, .is_req = (uint8_t)!ch,
                          .nargs = (uint8_t)nargs, .handler = handler, .src = gexi_ctx.rank};
  for (unsigned i = 0; i < nargs; i++) h.args[i] = args[i];
  return am_send_general(j, &h, NULL, flags);
}

/* A Short whose credit a fast path took (gexi_ofi_spend) and cannot go on:
 * the credit was short or no batch buffer is free.  The credit is given
 * back (the cost recomputed, so that the fast path keeps nothing for
 * this), then the general path spends it again, waiting if it must. */
__attribute__((noinline)) int gexi_ofi_am_short_no_credit(int ch, gex_Rank_t j,
                                                          gex_AM_Index_t handler, gex_Flags_t flags,
                                                          unsigned nargs,
                                                          const gex_AM_Arg_t *args) {
  struct gexi_ofi *o = O();
  atomic_fetch_add_explicit(&o->peers[j].credit[ch], gexi_ofi_short_cost(o, nargs),
                            memory_order_acq_rel);
  return gexi_ofi_am_short_slow(ch, j, handler, flags, nargs, args);
}

/* A message built on the stack, with what a retry of its inject needs
 * (kept in memory, so that no register must survive the inject call). */
struct ofi_stack_msg {
  uint64_t wire[OFI_STACK_WIRE / 8];
  size_t len;
  gex_Rank_t j;
  int what;
};

__attribute__((noinline)) static void inject_retry(const struct ofi_stack_msg *m, ssize_t rc) {
  if (rc != -FI_EAGAIN) gexi_ofi_fail("fi_inject", rc);
  gexi_ofi_progress_stalled(m->what);
  OFI_RETRY(fi_inject(O()->ep, m->wire, m->len, m->j), m->what, "fi_inject");
}

/* A Short sent on its own: injected from the stack.  The general path
 * when the message cannot be injected, the peer is not admitted yet or
 * there is no credit; those are decided first, so that the arguments it
 * would need are dead by the time the message is built. */
__attribute__((noinline)) static int am_short_inject(int ch, gex_Rank_t j, gex_AM_Index_t handler,
                                                     gex_Flags_t flags, unsigned nargs,
                                                     const gex_AM_Arg_t *args) {
  struct gexi_ofi *o = O();
  struct ofi_peer *p = &o->peers[j];
  size_t len = OFI_WIRE_HDR_LEN(nargs);
  if (GEXI_UNLIKELY(len > o->am_inject_max ||
                    !atomic_load_explicit(&p->tx_ok, memory_order_acquire)))
    return gexi_ofi_am_short_slow(ch, j, handler, flags, nargs, args);
  int64_t cost = gexi_ofi_short_cost(o, nargs);
  if (GEXI_UNLIKELY(!gexi_ofi_spend(&p->credit[ch], cost)))
    return gexi_ofi_am_short_no_credit(ch, j, handler, flags, nargs, args);
  struct ofi_stack_msg m;
  struct ofi_wire *w = (struct ofi_wire *)(void *)m.wire;
  w->h.category = GEXI_AM_SHORT;
  w->h.is_req = (uint8_t)(ch ^ 1);
  w->h.nargs = (uint8_t)nargs;
  w->h.handler = handler;
  w->h.src = o->self;
  w->h.nbytes = 0;
  w->h.ep_index = 0;
  w->h.dest = 0;
  /* A plain loop: the empty asm keeps the compiler from making it a call
   * of memcpy, whose presence alone costs the function six saved registers. */
  for (unsigned i = 0; i < nargs; i++) {
    w->h.args[i] = args[i];
    __asm__("" : "+r"(i));
  }
  if (nargs & 1) w->h.args[nargs] = 0; /* up to the 8-byte boundary */
  m.len = len;
  m.j = j;
  m.what = ch; /* GEXI_POLL_ALL for a Request, GEXI_POLL_REPLIES for a Reply */
  _Static_assert(GEXI_POLL_ALL == 0 && GEXI_POLL_REPLIES == 1, "what = ch");
  wire_start(p, w);
  ssize_t rc = fi_inject(o->ep, w, len, j);
  if (GEXI_UNLIKELY(rc)) inject_retry(&m, rc);
  return 0;
}

/* Two tail calls, so that neither path pays for the other's registers. */
int gexi_ofi_am_short(int ch, gex_Rank_t j, gex_AM_Index_t handler, gex_Flags_t flags,
                      unsigned nargs, const gex_AM_Arg_t *args) {
  struct gexi_ofi *o = O();
  if (GEXI_UNLIKELY(gexi_ofi_batch_wanted(o, &o->peers[j])))
    return gexi_ofi_am_short_batched(ch, j, handler, flags, nargs, args);
  return am_short_inject(ch, j, handler, flags, nargs, args);
}

/* ---- receiving ------------------------------------------------------------ */
static inline void rx_release(struct ofi_rxbuf *rx) {
  if (rx) rx_unref(rx);
}

/* Drop a message (see gexi_ofi_drop) and release its buffer. */
static void drop(fi_addr_t src, size_t len, struct ofi_rxbuf *rx, const char *why,
                 const char *field) {
  gexi_ofi_drop(src, len, why, field);
  rx_release(rx);
}

/* Take the credits a message returns.  A peer can return no more than we
 * spent: a return that would lift a channel above its full credit is
 * refused (and undone), and the message dropped. */
static const char *take_credit(struct ofi_peer *p, const struct ofi_wire *w) {
  struct gexi_ofi *o = O();
  int64_t after[2] = {0, 0};
  for (int c = 0; c < 2; c++)
    if (w->credit[c])
      after[c] = atomic_fetch_add_explicit(&p->credit[c], w->credit[c], memory_order_acq_rel) +
                 (int64_t)w->credit[c];
  if (GEXI_LIKELY(after[0] <= o->credit_bytes && after[1] <= o->credit_bytes)) return NULL;
  for (int c = 0; c < 2; c++)
    if (w->credit[c])
      atomic_fetch_sub_explicit(&p->credit[c], (int64_t)w->credit[c], memory_order_acq_rel);
  return after[0] > o->credit_bytes ? "credit[0] (more than was spent)"
                                    : "credit[1] (more than was spent)";
}

void gexi_ofi_handle_msg(const void *msg, size_t len, fi_addr_t src_addr, struct ofi_rxbuf *rx,
                         int what) {
  struct gexi_ofi *o = O();
  /* Everything up to the message type must be there before any field is read. */
  if (GEXI_UNLIKELY(len < offsetof(struct ofi_wire, h))) {
    drop(o->have_source ? src_addr : FI_ADDR_NOTAVAIL, len, rx, "truncated message", "length");
    return;
  }
  struct ofi_wire w;
  memcpy(&w, msg, len < sizeof w ? len : sizeof w);
  gex_Rank_t src;
  if (GEXI_LIKELY(o->have_source)) {
    /* The sender is who the provider says it is; a field of the message is
     * never believed. */
    if (GEXI_UNLIKELY(src_addr >= gexi_ctx.size)) {
      drop(FI_ADDR_NOTAVAIL, len, rx, "unknown source", NULL);
      return;
    }
    src = (gex_Rank_t)src_addr;
  } else {
    /* No FI_SOURCE: the claimed sender, which the token must then prove. */
    if (w.type == OFI_WIRE_AUTH)
      src = len >= OFI_AUTH_MSG_LEN ? ((const struct ofi_auth_msg *)msg)->from : GEX_RANK_INVALID;
    else
      src = len >= OFI_WIRE_HDR_LEN(0) ? w.h.src : GEX_RANK_INVALID;
    if (GEXI_UNLIKELY(src >= gexi_ctx.size)) {
      drop(FI_ADDR_NOTAVAIL, len, rx, "unknown claimed source", NULL);
      return;
    }
  }
  if (GEXI_UNLIKELY(w.type == OFI_WIRE_AUTH)) {
    gexi_ofi_auth_recv(src, msg, len);
    rx_release(rx);
    return;
  }
  struct ofi_peer *p = &o->peers[src];
  if (GEXI_UNLIKELY(!atomic_load_explicit(&p->rx_ok, memory_order_acquire))) {
    drop(src, len, rx, "the rank has not been admitted (no handshake with the job's secret)",
         NULL);
    return;
  }
  if (GEXI_UNLIKELY(w.token != p->tok_rx)) {
    drop(src, len, rx,
         "wrong session token (someone else may be using the rank's address)", NULL);
    return;
  }
  const char *bad =
      w.type == OFI_WIRE_BATCH ? gexi_ofi_batch_check(msg, len) : gexi_ofi_check(&w, len);
  if (GEXI_UNLIKELY(bad)) {
    drop(src, len, rx, "malformed message", bad);
    return;
  }
  if ((w.credit[0] | w.credit[1]) && GEXI_UNLIKELY((bad = take_credit(p, &w)))) {
    drop(src, len, rx, "malformed message", bad);
    return;
  }
  if (w.type == OFI_WIRE_CREDIT) {
    rx_release(rx);
    return;
  }
  if (w.type == OFI_WIRE_BATCH) {
    gexi_ofi_batch_deliver(p, src, w.token, msg, len, what);
    rx_release(rx);
    return;
  }
  gexi_ofi_deliver(p, src, &w, msg, len, what);
  rx_release(rx);
}

void gexi_ofi_deliver(struct ofi_peer *p, gex_Rank_t src, struct ofi_wire *w, const void *msg,
                      size_t len, int what) {
  struct gexi_ofi *o = O();
  if (w->h.is_req && what == GEXI_POLL_REPLIES) {
    /* Keep a copy (credits already taken into account) for a full poll;
     * the caller gives the receive buffer back at once.  A deferred message
     * must not pin a multi-receive buffer, or the buffers holding deferred
     * Requests could leave none for the messages -- credit returns among
     * them -- that the waiting Reply sender needs. */
    void *copy = malloc(len);
    if (!copy) gexi_fatal("out of memory");
    memcpy(copy, msg, len);
    w->credit[0] = w->credit[1] = 0;
    memcpy(copy, w, offsetof(struct ofi_wire, h)); /* credits consumed once */
    msg = copy;
    pthread_mutex_lock(&o->defer_lock);
    if (o->ndeferred == o->deferred_cap) {
      size_t cap = o->deferred_cap ? 2 * o->deferred_cap : 64;
      struct ofi_deferred *d = realloc(o->deferred, cap * sizeof *d);
      if (!d) gexi_fatal("out of memory");
      o->deferred = d;
      o->deferred_cap = cap;
    }
    o->deferred[o->ndeferred++] = (struct ofi_deferred){msg, len, src};
    pthread_mutex_unlock(&o->defer_lock);
    return;
  }
  w->h.src = src;
  int ch = w->h.is_req ? 0 : 1;
  uint32_t cost = o->multi_recv ? (uint32_t)len : (uint32_t)o->wire_max;
  uint32_t owed = atomic_fetch_add_explicit(&p->owed[ch], cost, memory_order_relaxed) + cost;
  if (owed >= o->credit_return) atomic_store_explicit(&o->credit_scan, 1, memory_order_release);
  void *payload = (char *)(uintptr_t)msg + OFI_WIRE_HDR_LEN(w->h.nargs);
  if (w->type == OFI_WIRE_LONG_PACKED) {
    if (w->h.nbytes) memcpy((void *)(uintptr_t)w->h.dest, payload, w->h.nbytes);
  } else if (w->h.category == GEXI_AM_MEDIUM && ((uintptr_t)payload & 7)) {
    /* A Medium payload the provider placed unaligned: handed over in an
     * aligned copy of its own (a handler that sends may run another
     * delivery before it returns, so no buffer is shared). */
    void *aligned = malloc(w->h.nbytes ? w->h.nbytes : 1);
    if (!aligned)
      gexi_fatal("out of memory for a Medium payload of %zu bytes", (size_t)w->h.nbytes);
    memcpy(aligned, payload, w->h.nbytes);
    gexi_up_deliver(&w->h, aligned);
    free(aligned);
    return;
  }
  gexi_up_deliver(&w->h, payload);
}

static int run_deferred(void) {
  struct gexi_ofi *o = O();
  if (!o->ndeferred) return 0; /* racy peek; a miss is caught at the next poll */
  pthread_mutex_lock(&o->defer_lock);
  struct ofi_deferred *d = o->deferred;
  size_t n = o->ndeferred;
  o->deferred = NULL;
  o->ndeferred = o->deferred_cap = 0;
  pthread_mutex_unlock(&o->defer_lock);
  for (size_t i = 0; i < n; i++) {
    gexi_ofi_handle_msg(d[i].msg, d[i].len, d[i].src, NULL, GEXI_POLL_ALL);
    free((void *)d[i].msg); /* the copy made when it was deferred */
  }
  free(d);
  return (int)n;
}

static void complete_op(struct ofi_op *op) {
  if (op->kind == OFI_OP_NBI_SHARED) {
    /* The last access: the tracker may be freed once its count is zero. */
    atomic_fetch_sub_explicit(&op->nbi->pending[op->nbi_kind], 1, memory_order_release);
    return;
  }
  if (op->tmp_mr) fi_close(&op->tmp_mr->fid);
  if (op->bounce) gexi_ofi_pool_put(op->bounce);
  if (op->kind == OFI_OP_NBI) {
    atomic_fetch_sub_explicit(&op->nbi->pending[op->nbi_kind], 1, memory_order_release);
    free(op);
    return;
  }
  if (op->kind == OFI_OP_FREE) {
    free(op);
    return;
  }
  if (op->lc) atomic_store_explicit(&op->lc->done, 1, memory_order_release);
  atomic_store_explicit(&op->done, 1, memory_order_release);
}

/* An error completion.  A failed receive is a message that could not be
 * received (a stranger's oversized message is truncated): dropped like any
 * bad message, never fatal.  Any other failure ends the job, naming the
 * operation's peer. */
static void cq_error(void) {
  struct gexi_ofi *o = O();
  struct fi_cq_err_entry err;
  memset(&err, 0, sizeof err);
  char buf[256] = "";
  if (fi_cq_readerr(o->cq, &err, 0) <= 0) return;
  fi_cq_strerror(o->cq, err.prov_errno, err.err_data, buf, sizeof buf);
  if (err.flags & FI_RECV) {
    gexi_ofi_drop(FI_ADDR_NOTAVAIL, err.len, "a receive failed", gexi_ofi_strerror(err.err));
    if (err.op_context)
      rx_completed((struct ofi_rxbuf *)((char *)err.op_context - offsetof(struct ofi_rxbuf, fctx)),
                   err.buf, err.len, (err.flags & FI_MULTI_RECV) != 0);
    return;
  }
  const char *what = (err.flags & FI_RECV)     ? "receive"
                     : (err.flags & FI_ATOMIC) ? "native atomic"
                     : (err.flags & FI_READ)   ? "get"
                     : (err.flags & FI_WRITE)  ? "put"
                                               : "send";
  /* The operation's own context names its peer (receives have none, nor do
   * the shared contexts of NBI operations). */
  const struct ofi_op *op =
      err.op_context && !(err.flags & FI_RECV)
          ? (const struct ofi_op *)((char *)err.op_context - offsetof(struct ofi_op, fctx))
          : NULL;
  if (op && op->peer < gexi_ctx.size) {
    gexi_fatal_peer(op->peer,
                    "network (libfabric %s): a %s with rank %u failed: %s%s%s (rank %u is "
                    "unreachable)",
                    o->prov_name, what, (unsigned)op->peer, gexi_ofi_strerror(err.err),
                    buf[0] ? ": " : "", buf, (unsigned)op->peer);
  }
  /* Peer unknown (an NBI operation): the launcher waits a moment for a
   * rank's death, which is then reported as the cause, before blaming this
   * rank. */
  gexi_fatal_peer(GEX_RANK_INVALID,
                  "network (libfabric %s): a %s failed: %s%s%s (a peer is unreachable)",
                  o->prov_name, what, gexi_ofi_strerror(err.err), buf[0] ? ": " : "", buf);
}

/* The next completion to handle (see gexi_ofi.cqe): one left by an earlier
 * read, or, if there is none and *read is 0, one of a new read of the CQ
 * (*read set).  1: *e and *from hold it; 0: none; -1: the CQ holds an error
 * entry. */
static int next_completion(struct gexi_ofi *o, struct fi_cq_data_entry *e, fi_addr_t *from,
                           int *read) {
  int got = 1;
  pthread_mutex_lock(&o->cqe_lock);
  if (o->cqe_next == o->cqe_count) {
    ssize_t r = 0;
    if (!*read) {
      *read = 1;
      r = o->have_source ? fi_cq_readfrom(o->cq, o->cqe, OFI_CQ_BATCH, o->cqe_from)
                         : fi_cq_read(o->cq, o->cqe, OFI_CQ_BATCH);
    }
    o->cqe_next = 0;
    o->cqe_count = r > 0 ? (unsigned)r : 0;
    if (!o->cqe_count) got = r == -FI_EAVAIL ? -1 : 0;
  }
  if (got > 0) {
    *e = o->cqe[o->cqe_next];
    *from = o->have_source ? o->cqe_from[o->cqe_next] : FI_ADDR_UNSPEC;
    o->cqe_next++;
  }
  pthread_mutex_unlock(&o->cqe_lock);
  return got;
}

int gexi_ofi_poll(int what) {
  struct gexi_ofi *o = O();
  int n = 0;
  /* A new poll generation: the next Request to each peer leaves on its own. */
  atomic_store_explicit(&o->poll_gen, atomic_load_explicit(&o->poll_gen, memory_order_relaxed) + 1,
                        memory_order_relaxed);
  if (atomic_load_explicit(&o->nbatch_open, memory_order_relaxed)) gexi_ofi_batch_flush_all(what);
  if (what == GEXI_POLL_ALL) n += run_deferred();
  struct fi_cq_data_entry e;
  fi_addr_t from;
  int read = 0, got;
  while ((got = next_completion(o, &e, &from, &read)) > 0) {
    if (e.flags & FI_RECV) {
      struct ofi_rxbuf *rx =
          (struct ofi_rxbuf *)((char *)e.op_context - offsetof(struct ofi_rxbuf, fctx));
      if (GEXI_UNLIKELY(rx->drain)) { /* no rank sends to the counted endpoint */
        gexi_ofi_drop(from, e.len, "sent to the counted RMA endpoint, which takes no messages",
                      NULL);
      } else if (e.len) {
        atomic_fetch_add_explicit(&rx->refs, 1, memory_order_relaxed);
        gexi_ofi_handle_msg(e.buf, e.len, from, rx, what);
        n++;
      }
      rx_completed(rx, e.buf, e.len, (e.flags & FI_MULTI_RECV) != 0);
    } else if (e.op_context) {
      complete_op((struct ofi_op *)((char *)e.op_context - offsetof(struct ofi_op, fctx)));
      n++;
    } /* else: an entry for an operation that asked for none (some providers
         ignore FI_SELECTIVE_COMPLETION); its counter already counted it */
  }
  if (got < 0) {
    cq_error();
    return n;
  }
  return_credit(what);
  /* What the handlers just sent (Replies, mostly) leaves before we go on. */
  if (atomic_load_explicit(&o->nbatch_open, memory_order_relaxed)) gexi_ofi_batch_flush_all(what);
  return n;
}

/* Sleep until the network has something for this process, or timeout_us
 * passes (see gexi_net_ops.block).  fi_trywait tells whether sleeping on
 * the wait descriptor is safe now (nothing already queued). */
int gexi_ofi_block(int timeout_us) {
  struct gexi_ofi *o = O();
  if (o->wait_fd < 0) return 0;
  struct fid *f = &o->cq->fid;
  if (fi_trywait(o->fabric, &f, 1) != FI_SUCCESS) return 0;
  struct pollfd p = {.fd = o->wait_fd, .events = POLLIN};
  struct timespec ts = {timeout_us / 1000000, (long)(timeout_us % 1000000) * 1000};
  (void)ppoll(&p, 1, &ts, NULL);
  return 1;
}

void gexi_ofi_progress_stalled(int what) {
  if (gexi_poll(what))
    gexi_busy();
  else
    gexi_idle();
}

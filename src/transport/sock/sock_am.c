/* transport/sock/sock_am.c -- Active Messages over the sock transport.
 *
 * A message is one frame: the AM header cut after its last argument, then
 * the Medium payload or a Long payload not yet at the target.  Requests
 * spend credit: the bytes of Request frames a peer may have sent that we
 * have not handled are bounded by credit_bytes, so a peer that floods us
 * with Requests waits instead of growing our memory or its queue without
 * bound.  Every frame returns the credit its sender owes in its header; a
 * rank that owes much and sends nothing sends a CREDIT frame.  (Frames
 * must carry it: a peer may wait for credit that a debt below the CREDIT
 * frame's threshold holds back, and only our Replies will return it.)  Replies
 * spend none (each answers a Request, so they are bounded by them) and
 * never wait: a Reply is sent from inside a handler.
 *
 * A frame's cost is its length capped at SOCK_WHOLE_MAX: a longer one (a
 * Long) is read straight into its destination and holds no buffer here.
 */
#include <stdlib.h>
#include <string.h>

#include "transport/sock/sock.h"

static inline struct gexi_sock *S(void) { return gexi_sock_ctx(); }

void gexi_sock_am_setup(void) {
  struct gexi_sock *s = S();
  s->credit_bytes = gexi_ctx.env.sock_am_credit ? (int64_t)gexi_ctx.env.sock_am_credit
                                                : (int64_t)512 << 10;
  s->credit_return = (uint32_t)(s->credit_bytes / 4);
  /* From the start, not from the connection: Requests sent before it is
   * made wait in the peer's queue (sock_send.c) with their credit spent. */
  for (gex_Rank_t j = 0; j < gexi_ctx.size; j++)
    atomic_store_explicit(&s->peers[j].credit, s->credit_bytes, memory_order_relaxed);
}

const char *gexi_sock_take_credit(gex_Rank_t j, uint32_t credit) {
  struct gexi_sock *s = S();
  int64_t after = atomic_fetch_add_explicit(&s->peers[j].credit, credit, memory_order_acq_rel) +
                  credit;
  return after > s->credit_bytes ? "credit (more than was spent)" : NULL;
}

void gexi_sock_return_credit(gex_Rank_t j) {
  struct gexi_sock *s = S();
  if (atomic_load_explicit(&s->peers[j].owed, memory_order_relaxed) >= s->credit_return &&
      atomic_load_explicit(&s->peers[j].state, memory_order_acquire) == SOCK_UP) {
    struct sock_frame f = {.len = 0, .type = SOCK_F_CREDIT};
    gexi_sock_send(j, &f, NULL, 0, NULL, 0, SOCK_TX_COPY, GEXI_POLL_ALL, 0);
  }
}

/* Spend a Request's credit: 0, or 1 if it is short and the caller asked
 * for GEX_FLAG_IMMEDIATE.  Waits (polling) otherwise. */
static int spend(gex_Rank_t j, int64_t cost, gex_Flags_t flags) {
  _Atomic int64_t *c = &S()->peers[j].credit;
  for (;;) {
    if (atomic_fetch_sub_explicit(c, cost, memory_order_acq_rel) >= cost) return 0;
    atomic_fetch_add_explicit(c, cost, memory_order_acq_rel);
    if (flags & GEX_FLAG_IMMEDIATE) return 1;
    if (gexi_poll(GEXI_POLL_ALL))
      gexi_busy();
    else
      gexi_idle();
  }
}

int gexi_sock_am_send(gex_Rank_t j, const struct gexi_am_hdr *h, const void *payload,
                      gex_Flags_t flags) {
  struct gexi_sock *s = S();
  int what = h->is_req ? GEXI_POLL_ALL : GEXI_POLL_REPLIES;
  if (GEXI_UNLIKELY(atomic_load_explicit(&s->peers[j].state, memory_order_acquire) != SOCK_UP)) {
    if (flags & GEX_FLAG_IMMEDIATE) { /* start connecting, and refuse this one (it would wait) */
      gexi_sock_connect_soon(j);
      if (atomic_load_explicit(&s->peers[j].state, memory_order_acquire) != SOCK_UP) return 1;
    } else {
      gexi_sock_reach(j, what);
    }
  }
  size_t hl = SOCK_AM_HDR_LEN(h->nargs);
  size_t carried = gexi_am_carried(h);
  struct sock_frame f = {.len = (uint32_t)(hl + SOCK_ROUND8(carried)), .type = SOCK_F_AM};
  if (h->is_req && spend(j, gexi_sock_frame_cost(sizeof f + f.len), flags)) return 1;
  struct gexi_am_hdr hh;
  memcpy(&hh, h, offsetof(struct gexi_am_hdr, args));
  hh.src = gexi_ctx.rank;
  for (unsigned i = 0; i < h->nargs; i++) hh.args[i] = h->args[i];
  if (h->nargs & 1) hh.args[h->nargs] = 0; /* up to the 8-byte boundary */
  gexi_sock_send(j, &f, &hh, hl, payload, carried, SOCK_TX_COPY | SOCK_TX_BATCH, what, 1);
  return 0;
}

/* The general path of a Short: a header for gexi_sock_am_send (which
 * connects, waits for credit, honours GEX_FLAG_IMMEDIATE). */
__attribute__((noinline)) static int am_short_slow(int ch, gex_Rank_t j, gex_AM_Index_t handler,
                                                   gex_Flags_t flags, unsigned nargs,
                                                   const gex_AM_Arg_t *args) {
  struct gexi_am_hdr h;
  memset(&h, 0, offsetof(struct gexi_am_hdr, args));
  h.category = GEXI_AM_SHORT;
  h.is_req = (uint8_t)!ch;
  h.nargs = (uint8_t)nargs;
  h.handler = handler;
  h.src = gexi_ctx.rank;
  for (unsigned i = 0; i < nargs; i++) h.args[i] = args[i];
  return gexi_sock_am_send(j, &h, NULL, flags);
}

/* Write a Short's frame (hl: SOCK_AM_HDR_LEN(nargs)) at 'dst', 8-aligned:
 * every byte of it, the padding included. */
/* The arguments of a Short's header h (and the padding word after an odd
 * count). */
static inline void am_short_args(struct gexi_am_hdr *h, unsigned nargs, const gex_AM_Arg_t *args) {
  for (unsigned i = 0; i < nargs; i++) h->args[i] = args[i];
  if (nargs & 1) h->args[nargs] = 0; /* up to the 8-byte boundary */
}

/* A Short's frame at dst without its arguments (am_short_args): the
 * frame's header as two whole words, the AM header's first 24 bytes zeroed
 * and then the three that are not (its category, GEXI_AM_SHORT, is 0; the
 * receiver takes the sender from the connection, sock_recv.c). */
static inline struct gexi_am_hdr *am_short_head(char *dst, size_t hl, uint32_t credit, int ch,
                                                gex_AM_Index_t handler, unsigned nargs) {
  _Static_assert(GEXI_AM_SHORT == 0 && offsetof(struct gexi_am_hdr, args) == 24,
                 "am_short_head zeroes a Short's header up to its arguments");
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  _Static_assert(offsetof(struct sock_frame, type) == 4 && offsetof(struct sock_frame, credit) == 8,
                 "a frame's header is two words: len and type, credit");
  const uint64_t w[2] = {(uint64_t)hl | (uint64_t)SOCK_F_AM << 32, credit};
  memcpy(dst, w, sizeof w);
#else
  struct sock_frame *f = (struct sock_frame *)(void *)dst;
  *f = (struct sock_frame){.len = (uint32_t)hl, .type = SOCK_F_AM, .credit = credit};
#endif
  struct gexi_am_hdr *h = (struct gexi_am_hdr *)(void *)(dst + sizeof(struct sock_frame));
  memset(h, 0, offsetof(struct gexi_am_hdr, args));
  h->is_req = (uint8_t)!ch;
  h->nargs = (uint8_t)nargs;
  h->handler = handler;
  return h;
}

static inline void am_short_frame(char *dst, size_t hl, uint32_t credit, int ch,
                                  gex_AM_Index_t handler, unsigned nargs,
                                  const gex_AM_Arg_t *args) {
  am_short_args(am_short_head(dst, hl, credit, ch, handler, nargs), nargs, args);
}

/* The arguments of a frame written at the tail, then tx_lock released (out
 * of line: a Short with none needs no loop or registers for them). */
__attribute__((noinline)) static int am_short_args_unlock(struct sock_peer *p,
                                                          struct gexi_am_hdr *h, unsigned nargs,
                                                          const gex_AM_Arg_t *args) {
  am_short_args(h, nargs, args);
  gexi_sock_tx_unlock(p);
  return 0;
}

/* Under p's tx_lock, a Short that does not join a batch in place: built
 * on the stack, sent or queued whole; the lock released. */
__attribute__((noinline)) static int am_short_whole(struct sock_peer *p, int ch, gex_Rank_t j,
                                                    gex_AM_Index_t handler, unsigned nargs,
                                                    const gex_AM_Arg_t *args) {
  size_t hl = SOCK_AM_HDR_LEN(nargs);
  uint64_t buf[(sizeof(struct sock_frame) + sizeof(struct gexi_am_hdr)) / 8 + 1];
  am_short_frame((char *)buf, hl, 0, ch, handler, nargs, args);
  gexi_sock_send_small_locked(j, p, (char *)buf, sizeof(struct sock_frame) + hl, 1, 1);
  return 0;
}

/* Under p's tx_lock, the tail having no room and the frame not to leave at
 * once: a new tail for it, or else the frame whole. */
__attribute__((noinline)) static int am_short_queue(struct sock_peer *p, int ch, gex_Rank_t j,
                                                    gex_AM_Index_t handler, unsigned nargs,
                                                    const gex_AM_Arg_t *args) {
  size_t hl = SOCK_AM_HDR_LEN(nargs);
  if (gexi_sock_tx_open(j)) {
    char *dst = p->tail;
    if (gexi_sock_tx_reserve(p, sizeof(struct sock_frame) + hl)) {
      am_short_frame(dst, hl, gexi_sock_tx_owed(p), ch, handler, nargs, args);
      gexi_sock_tx_unlock(p);
      return 0;
    }
  }
  return am_short_whole(p, ch, j, handler, nargs, args);
}

/* Under p's tx_lock, the tail having no room: the frame sent at once from
 * a piece left open behind it when it is the first since the last poll
 * (gexi_sock_tx_first), else queued. */
static inline int am_short_open_locked(struct sock_peer *p, int ch, gex_Rank_t j,
                                       gex_AM_Index_t handler, unsigned nargs,
                                       const gex_AM_Arg_t *args) {
  if (gexi_sock_leaves_now(p)) {
    size_t hl = SOCK_AM_HDR_LEN(nargs), len = sizeof(struct sock_frame) + hl;
    am_short_frame(gexi_sock_tx_first(p, len), hl, gexi_sock_tx_owed(p), ch, handler, nargs, args);
    return gexi_sock_tx_first_send(j, p, len);
  }
  return am_short_queue(p, ch, j, handler, nargs, args);
}

/* Under p's tx_lock (credit spent): the frame at the queue's open tail,
 * or else whole. */
static inline int am_short_locked(struct sock_peer *p, int ch, gex_Rank_t j,
                                  gex_AM_Index_t handler, unsigned nargs,
                                  const gex_AM_Arg_t *args) {
  size_t hl = SOCK_AM_HDR_LEN(nargs);
  char *dst = p->tail;
  if (GEXI_UNLIKELY(!gexi_sock_tx_reserve(p, sizeof(struct sock_frame) + hl)))
    return am_short_open_locked(p, ch, j, handler, nargs, args);
  struct gexi_am_hdr *h = am_short_head(dst, hl, gexi_sock_tx_owed(p), ch, handler, nargs);
  if (nargs) return am_short_args_unlock(p, h, nargs, args);
  gexi_sock_tx_unlock(p);
  return 0;
}

/* tx_lock was taken: wait for it, then as gexi_sock_am_short. */
__attribute__((noinline)) static int am_short_contended(struct sock_peer *p, int ch, gex_Rank_t j,
                                                        gex_AM_Index_t handler, unsigned nargs,
                                                        const gex_AM_Arg_t *args) {
  gexi_sock_tx_lock_wait(p);
  return am_short_locked(p, ch, j, handler, nargs, args);
}

/* Under p's tx_lock, its tail having no room. */
__attribute__((noinline)) static int am_short_open(struct sock_peer *p, int ch, gex_Rank_t j,
                                                   gex_AM_Index_t handler, unsigned nargs,
                                                   const gex_AM_Arg_t *args) {
  return am_short_open_locked(p, ch, j, handler, nargs, args);
}

/* The common case, a Short to a connected peer with credit to spare: the
 * frame is written in place at the open tail of the peer's queue when it
 * joins a batch there, or else sent whole. */
int gexi_sock_am_short(int ch, gex_Rank_t j, gex_AM_Index_t handler, gex_Flags_t flags,
                       unsigned nargs, const gex_AM_Arg_t *args) {
  _Static_assert(offsetof(struct gexi_am_hdr, args) % 8 == 0, "the arguments start a word");
  struct sock_peer *p = &S()->peers[j];
  size_t hl = SOCK_AM_HDR_LEN(nargs);
  int64_t len = (int64_t)(sizeof(struct sock_frame) + hl);
  if (GEXI_UNLIKELY(atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP))
    return am_short_slow(ch, j, handler, flags, nargs, args);
  if (!ch && GEXI_UNLIKELY(atomic_fetch_sub_explicit(&p->credit, len, memory_order_acq_rel) < len)) {
    atomic_fetch_add_explicit(&p->credit, len, memory_order_acq_rel);
    return am_short_slow(ch, j, handler, flags, nargs, args);
  }
  if (GEXI_UNLIKELY(atomic_exchange_explicit(&p->tx_lock, 1, memory_order_acquire)))
    return am_short_contended(p, ch, j, handler, nargs, args);
  /* am_short_locked's body, written out: calling it here made GCC 12 save
   * a third register, 3 instructions per Short (bench/opcount.sh). */
  char *dst = p->tail;
  if (GEXI_UNLIKELY(!gexi_sock_tx_reserve(p, (size_t)len)))
    return am_short_open(p, ch, j, handler, nargs, args);
  struct gexi_am_hdr *h = am_short_head(dst, hl, gexi_sock_tx_owed(p), ch, handler, nargs);
  if (nargs) return am_short_args_unlock(p, h, nargs, args);
  gexi_sock_tx_unlock(p);
  return 0;
}

void gexi_sock_am_recv(gex_Rank_t j, struct gexi_am_hdr *h, void *payload, int what) {
  struct gexi_sock *s = S();
  if (h->is_req && what == GEXI_POLL_REPLIES) {
    /* A poll for Replies only (a Reply's sender waiting) runs no Request
     * handler: the Request waits, copied, for a full poll. */
    size_t pl = h->category == GEXI_AM_MEDIUM ? h->nbytes : 0;
    char *copy = malloc(sizeof *h + pl);
    if (!copy) gexi_fatal("out of memory");
    memcpy(copy, h, sizeof *h);
    if (pl) memcpy(copy + sizeof *h, payload, pl);
    if (s->ndef == s->defcap) {
      size_t cap = s->defcap ? 2 * s->defcap : 16;
      struct sock_deferred *d = realloc(s->def, cap * sizeof *d);
      if (!d) gexi_fatal("out of memory");
      s->def = d;
      s->defcap = cap;
    }
    s->def[s->ndef++] = (struct sock_deferred){j, copy};
    return;
  }
  gexi_up_deliver(h, payload);
}

int gexi_sock_run_deferred(void) {
  struct gexi_sock *s = S();
  struct sock_deferred *d = s->def;
  size_t n = s->ndef;
  s->def = NULL;
  s->ndef = s->defcap = 0;
  for (size_t i = 0; i < n; i++) {
    struct gexi_am_hdr *h = d[i].frame;
    gexi_up_deliver(h, (char *)d[i].frame + sizeof *h);
    free(d[i].frame);
  }
  free(d);
  return (int)n;
}

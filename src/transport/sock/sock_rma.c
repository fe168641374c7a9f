/* transport/sock/sock_rma.c -- Put and Get over the sock transport, done by
 * the target.
 *
 * The target copies between the stream and one of its regions: its bound
 * segment, or memory it exposed (an endpoint's segment, a collective's
 * rendezvous buffer).  A region is named by a key the target published;
 * every Put and Get is checked against the region's range before a byte is
 * copied.  The initiator's completion counter (core/complete.h: a blocking
 * operation's own, an NB operation's event, the thread's NBI count or the
 * access region's event) travels with the request and comes back in the
 * ACK or the reply; the target never uses it.  A Put's data is locally
 * complete when the call returns: written to the kernel or copied to the
 * peer's queue, or, when large and the caller may wait, written before the
 * call returns (no copy).
 */
#include <stdlib.h>
#include <string.h>

#include "core/complete.h"
#include "transport/sock/sock.h"

static inline struct gexi_sock *S(void) { return gexi_sock_ctx(); }

/* Payloads above this are sent from the caller's memory, not copied. */
#define SOCK_COPY_MAX ((size_t)64 << 10)

/* ---- regions ------------------------------------------------------------------ */
static uint64_t region_add(const void *base, size_t len) {
  struct gexi_sock *s = S();
  pthread_mutex_lock(&s->reg_lock);
  if (s->nreg == s->regcap) {
    size_t cap = s->regcap ? 2 * s->regcap : 16;
    struct sock_region *r = realloc(s->reg, cap * sizeof *r);
    if (!r) gexi_fatal("out of memory");
    s->reg = r;
    s->regcap = cap;
  }
  s->reg[s->nreg++] = (struct sock_region){(uintptr_t)base, len, 1};
  uint64_t key = s->nreg; /* keys are never reused: a stale one finds a dead region */
  pthread_mutex_unlock(&s->reg_lock);
  return key;
}

char *gexi_sock_region(uint64_t key, uint64_t addr, uint64_t len, const char **why) {
  struct gexi_sock *s = S();
  char *p = NULL;
  pthread_mutex_lock(&s->reg_lock);
  if (key == 0 || key > s->nreg || !s->reg[key - 1].live) {
    *why = "no such region (key)";
  } else {
    const struct sock_region *r = &s->reg[key - 1];
    uint64_t off = addr - r->base;
    if (addr < r->base || off > r->len || len > r->len - off)
      *why = "range outside the region";
    else
      p = (char *)(uintptr_t)addr;
  }
  pthread_mutex_unlock(&s->reg_lock);
  return p;
}

void gexi_sock_seg_register(void *base, uintptr_t size, uint64_t *key) {
  *key = region_add(base, size);
}

void gexi_sock_seg_peer(gex_Rank_t j, uint64_t key) { S()->peers[j].seg_key = key; }

void *gexi_sock_expose(const void *buf, size_t len, uint64_t *key, uint64_t *raddr) {
  *key = region_add(buf, len);
  *raddr = (uint64_t)(uintptr_t)buf;
  return (void *)(uintptr_t)*key;
}

void gexi_sock_unexpose(void *handle) {
  struct gexi_sock *s = S();
  uint64_t key = (uint64_t)(uintptr_t)handle;
  pthread_mutex_lock(&s->reg_lock);
  if (key && key <= s->nreg) s->reg[key - 1].live = 0;
  pthread_mutex_unlock(&s->reg_lock);
}

/* ---- completion -------------------------------------------------------------- */
void gexi_sock_rma_done(uint64_t cookie, uint64_t count) {
  if (!cookie) return;
  gexi_am_sync_acquire();
  gexi_am_counter_done((_Atomic uint32_t *)(uintptr_t)cookie, (uint32_t)count);
}

void gexi_sock_ack_flush(void) {
  struct gexi_sock *s = S();
  const gex_Rank_t j = s->ack_peer;
  struct sock_ack a[SOCK_ACKS_MAX];
  const size_t len = s->nacks * sizeof a[0];
  memcpy(a, s->acks, len);
  s->nacks = 0; /* (before the send, which may poll and land more Puts) */
  struct sock_frame f = {.len = (uint32_t)len, .type = SOCK_F_ACK};
  gexi_sock_send(j, &f, a, len, NULL, 0, SOCK_TX_COPY, GEXI_POLL_ALL, 0);
}

static void wait_zero(_Atomic uint32_t *c) {
  while (atomic_load_explicit(c, memory_order_acquire)) {
    if (gexi_poll(GEXI_POLL_ALL))
      gexi_busy();
    else
      gexi_idle();
  }
}

static inline size_t nframes(size_t nbytes) {
  return nbytes ? (nbytes + SOCK_RMA_FRAME_MAX - 1) / SOCK_RMA_FRAME_MAX : 1;
}

/* How a Put's data goes: copied when small or when the caller may not
 * wait, else written before the call returns. */
static int put_mode(size_t nbytes) {
  return nbytes <= SOCK_COPY_MAX || gexi_in_handler_or_hsl() || gexi_sock_polling()
             ? SOCK_TX_COPY
             : SOCK_TX_WAIT;
}

static void put_frames(gex_Rank_t j, uint64_t key, uint64_t addr, const char *src, size_t nbytes,
                       uint64_t cookie) {
  int mode = put_mode(nbytes);
  size_t off = 0;
  do {
    size_t n = nbytes - off < SOCK_RMA_FRAME_MAX ? nbytes - off : SOCK_RMA_FRAME_MAX;
    struct sock_rma r = {key, addr + off, n, cookie, 0};
    struct sock_frame f = {.len = (uint32_t)(sizeof r + SOCK_ROUND8(n)), .type = SOCK_F_PUT};
    gexi_sock_send(j, &f, &r, sizeof r, src + off, n, mode, GEXI_POLL_ALL, 1);
    off += n;
  } while (off < nbytes);
}

static void get_frames(gex_Rank_t j, uint64_t key, uint64_t addr, char *dest, size_t nbytes,
                       uint64_t cookie) {
  size_t off = 0;
  do {
    size_t n = nbytes - off < SOCK_RMA_FRAME_MAX ? nbytes - off : SOCK_RMA_FRAME_MAX;
    struct sock_rma r = {key, addr + off, n, cookie, (uint64_t)(uintptr_t)(dest + off)};
    struct sock_frame f = {.len = sizeof r, .type = SOCK_F_GET};
    gexi_sock_send(j, &f, &r, sizeof r, NULL, 0, SOCK_TX_COPY, GEXI_POLL_ALL, 1);
    off += n;
  } while (off < nbytes);
}

static uint64_t seg_key(const char *fn, gex_Rank_t j) {
  uint64_t key = S()->peers[j].seg_key;
  if (GEXI_UNLIKELY(!key))
    gexi_fatal("%s: rank %u has no segment reachable over the network", fn, (unsigned)j);
  if (GEXI_UNLIKELY(atomic_load_explicit(&S()->peers[j].state, memory_order_acquire) != SOCK_UP))
    gexi_sock_reach(j, GEXI_POLL_ALL);
  return key;
}

/* One Put or Get of the client with region 'key' of j: its frames, and the
 * counter they count down (the caller's own for a blocking one, waited for
 * here). */
static gex_Event_t rma_key(int is_put, gex_Rank_t j, uint64_t key, uint64_t raddr, char *local,
                           size_t nbytes, int mode) {
  uint32_t k = (uint32_t)nframes(nbytes);
  struct gexi_Event *ev = NULL;
  _Atomic uint32_t mine = k, *c = &mine;
  if (mode != GEXI_MODE_BLOCKING)
    c = gexi_am_counter(mode, is_put ? GEXI_AM_NBI_PUT : GEXI_AM_NBI_GET, &ev, k);
  if (is_put)
    put_frames(j, key, raddr, local, nbytes, (uint64_t)(uintptr_t)c);
  else
    get_frames(j, key, raddr, local, nbytes, (uint64_t)(uintptr_t)c);
  if (mode == GEXI_MODE_BLOCKING) wait_zero(c);
  return mode == GEXI_MODE_NB ? ev : GEX_EVENT_INVALID;
}

/* ... with j's segment. */
static gex_Event_t rma(const char *fn, int is_put, gex_Rank_t j, uint64_t raddr, char *local,
                       size_t nbytes, int mode) {
  return rma_key(is_put, j, seg_key(fn, j), raddr, local, nbytes, mode);
}

/* ---- small NBI operations, written in place ----------------------------------------- */
/* An NBI Put of at most SOCK_PUT_INPLACE_MAX bytes, or an NBI Get, to a
 * peer with a segment, outside an access region, is written straight into
 * the open tail of the peer's queue when it has one (as an AM Short is,
 * sock_am.c): it joins the batch the next poll writes.  An open tail means
 * a live connection (a closed one's queue is dropped under tx_lock), so
 * the fast path checks nothing else.  The thread's NBI counter
 * (core/complete.h) counts the operation while tx_lock is held, so before
 * its frame can leave.  Every call out of the fast paths is a tail call
 * (no registers saved). */
#define SOCK_PUT_INPLACE_MAX 64
#define SOCK_RMA_HEAD (sizeof(struct sock_frame) + sizeof(struct sock_rma))

/* Under p's tx_lock: the head of an NBI Put or Get frame at dst.  It
 * carries no credit (what we owe p stays owed, returned by the next AM
 * frame or a CREDIT frame, sock_am.c). */
static inline void rma_head(struct sock_peer *p, char *dst, int type, uint32_t len,
                            uint64_t addr, size_t n, uint64_t dest, int cat) {
  _Atomic uint32_t *c = gexi_am_nbi_count(cat, 1);
  _Static_assert(offsetof(struct sock_frame, type) == 4 && offsetof(struct sock_frame, credit) == 8,
                 "a frame's header is two words: len and type, credit");
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t w[2] = {(uint64_t)len | (uint64_t)type << 32, 0};
#else
  uint64_t w[2] = {(uint64_t)len << 32 | (uint64_t)type << 24, 0};
#endif
  memcpy(dst, w, sizeof w);
  struct sock_rma *r = (struct sock_rma *)(void *)(dst + sizeof(struct sock_frame));
  *r = (struct sock_rma){p->seg_key, addr, n, (uint64_t)(uintptr_t)c, dest};
}

/* A Put's data other than one word (padded), then p's tx_lock released:
 * out of line, so that the one-word case calls nothing. */
__attribute__((noinline)) static int put_data_unlock(struct sock_peer *p, char *d,
                                                     const void *src, size_t n) {
  memset(d + SOCK_ROUND8(n) - 8, 0, 8); /* the padding */
  memcpy(d, src, n);
  gexi_sock_tx_unlock(p);
  return 0;
}

/* Under p's tx_lock: a Put frame at dst, then the lock released. */
static inline int put_frame_unlock(struct sock_peer *p, char *dst, void *dest, const void *src,
                                   size_t n) {
  rma_head(p, dst, SOCK_F_PUT, (uint32_t)(sizeof(struct sock_rma) + SOCK_ROUND8(n)),
           (uint64_t)(uintptr_t)dest, n, 0, GEXI_AM_NBI_PUT);
  char *d = dst + SOCK_RMA_HEAD;
  if (n != 8) return put_data_unlock(p, d, src, n);
  uint64_t w;
  memcpy(&w, src, 8);
  memcpy(d, &w, 8);
  gexi_sock_tx_unlock(p);
  return 0;
}

/* Under p's tx_lock: a one-word Put frame (sock_putw) at dst, then the lock
 * released. */
#define SOCK_PUTW_LEN (sizeof(struct sock_frame) + sizeof(struct sock_putw))
static inline int putw_frame_unlock(struct sock_peer *p, char *dst, void *dest, const void *src) {
  _Atomic uint32_t *c = gexi_am_nbi_count(GEXI_AM_NBI_PUT, 1);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const uint64_t h0 = (uint64_t)sizeof(struct sock_putw) | (uint64_t)SOCK_F_PUTW << 32;
#else
  const uint64_t h0 = (uint64_t)sizeof(struct sock_putw) << 32 | (uint64_t)SOCK_F_PUTW << 24;
#endif
#if defined(__GNUC__) && defined(__SSE2__)
  /* The header (a constant) as one 16-byte store: two instructions, not
   * four. */
  typedef uint64_t v2u64 __attribute__((vector_size(16), aligned(8), may_alias));
  *(v2u64 *)(void *)dst = (v2u64){h0, 0};
#else
  const uint64_t h[2] = {h0, 0};
  memcpy(dst, h, sizeof h);
#endif
  char *b = dst + sizeof(struct sock_frame);
  const uint64_t a = (uint64_t)(uintptr_t)dest, ck = (uint64_t)(uintptr_t)c;
  uint64_t data;
  memcpy(&data, src, 8);
  memcpy(b + offsetof(struct sock_putw, addr), &a, 8);
  memcpy(b + offsetof(struct sock_putw, cookie), &ck, 8);
  memcpy(b + offsetof(struct sock_putw, data), &data, 8);
  gexi_sock_tx_unlock(p);
  return 0;
}

static inline void get_frame(struct sock_peer *p, char *dst, void *dest, void *src, size_t n) {
  rma_head(p, dst, SOCK_F_GET, sizeof(struct sock_rma), (uint64_t)(uintptr_t)src, n,
           (uint64_t)(uintptr_t)dest, GEXI_AM_NBI_GET);
}

/* Whether a small NBI operation may go to peer p in place (this thread is
 * outside an access region; with GEX_CHECKS, the peer has a segment); if
 * so, p's tx_lock is taken (0 also when another thread holds it).
 * Without GEX_CHECKS an operation on a peer that has no segment is the
 * client's error, as the inline paths' bounds are then unchecked too: the
 * peer refuses the frame (a region it does not have) and closes the
 * connection, saying so. */
static inline int inplace_take(struct sock_peer *p) {
  return GEXI_LIKELY(!gexi_tls.in_access_region && (!GEX_CHECKS || p->seg_key != 0) &&
                     !atomic_exchange_explicit(&p->tx_lock, 1, memory_order_acquire));
}

/* Under p's tx_lock, its tail having no room: a new tail for the frame,
 * when the queue waits for a poll and the connection is up (1); else 0,
 * the lock released. */
static inline int inplace_open(struct sock_peer *p, gex_Rank_t j, size_t len) {
  if (!gexi_sock_leaves_now(p) && gexi_sock_tx_open(j) && gexi_sock_tx_reserve(p, len)) {
    p->rma_tails++;
    return 1;
  }
  gexi_sock_tx_unlock(p);
  return 0;
}

/* Under p's tx_lock, its tail having no room: an NBI Put.  p gives the job
 * rank (peers are indexed by it), so the fast path keeps nothing else. */
__attribute__((noinline)) static int put_nbi_open(struct sock_peer *p, void *dest,
                                                  const void *src, size_t n) {
  const gex_Rank_t j = (gex_Rank_t)(p - S()->peers);
  size_t len = SOCK_RMA_HEAD + SOCK_ROUND8(n);
  if (inplace_open(p, j, len)) return put_frame_unlock(p, p->tail - len, dest, src, n);
  return gexi_sock_put(j, dest, src, n, NULL, 0, GEXI_MODE_NBI) != GEX_EVENT_INVALID;
}

/* gexi_sock_get's ways out take its own arguments, so that leaving its
 * fast path moves none of them. */
__attribute__((noipa)) static gex_Event_t get_main(gex_Rank_t j, void *dest, void *src,
                                                   size_t nbytes, gex_Flags_t flags, int mode) {
  (void)flags;
  return rma("gex_RMA_Get", 0, j, (uint64_t)(uintptr_t)src, dest, nbytes, mode);
}

/* Under j's tx_lock, its tail having no room: an NBI Get. */
__attribute__((noipa)) static gex_Event_t get_nbi_open(gex_Rank_t j, void *dest, void *src,
                                                       size_t n, gex_Flags_t flags, int mode) {
  struct sock_peer *p = &S()->peers[j];
  if (inplace_open(p, j, SOCK_RMA_HEAD)) {
    get_frame(p, p->tail - SOCK_RMA_HEAD, dest, src, n);
    gexi_sock_tx_unlock(p);
    return GEX_EVENT_INVALID;
  }
  return get_main(j, dest, src, n, flags, mode);
}

/* The put_nbi entry (transport.h).  The job rank is found first, so that
 * tm and rank are dead from there on (the ways out take j); one word, the
 * commonest size, has a path of its own whose frame length is a constant. */
int gexi_sock_put_nbi(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank, void *dest,
                      uint64_t lc_flags) {
  const gex_Rank_t j = gexi_tm_jobrank(tm, rank);
  struct sock_peer *p = &S()->peers[j];
  if (GEXI_LIKELY(nbytes == 8)) {
    if (inplace_take(p)) {
      char *dst = p->tail;
      if (GEXI_UNLIKELY(!gexi_sock_tx_reserve(p, SOCK_PUTW_LEN)))
        return put_nbi_open(p, dest, src, 8);
      return putw_frame_unlock(p, dst, dest, src);
    }
  } else if (nbytes - 1 < SOCK_PUT_INPLACE_MAX) {
    if (inplace_take(p)) {
      char *dst = p->tail;
      if (GEXI_UNLIKELY(!gexi_sock_tx_reserve(p, SOCK_RMA_HEAD + SOCK_ROUND8(nbytes))))
        return put_nbi_open(p, dest, src, nbytes);
      return put_frame_unlock(p, dst, dest, src, nbytes);
    }
  }
  return gexi_rma_put_nbi_to(GEX_TM_INVALID, src, nbytes, j, dest, lc_flags);
}

gex_Event_t gexi_sock_put(gex_Rank_t j, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt, gex_Flags_t flags, int mode) {
  (void)flags;
  gex_Event_t e = rma("gex_RMA_Put", 1, j, (uint64_t)(uintptr_t)dest, (char *)(uintptr_t)src,
                      nbytes, mode);
  if (mode == GEXI_MODE_NB && lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER &&
      lc_opt != GEX_EVENT_GROUP)
    *lc_opt = GEX_EVENT_INVALID; /* the data left the caller's buffer already */
  return e;
}

gex_Event_t gexi_sock_get(gex_Rank_t j, void *dest, void *src, size_t nbytes, gex_Flags_t flags,
                          int mode) {
  if (GEXI_LIKELY(mode == GEXI_MODE_NBI && nbytes - 1 < SOCK_RMA_FRAME_MAX)) {
    struct sock_peer *p = &S()->peers[j];
    if (inplace_take(p)) {
      char *dst = p->tail;
      if (GEXI_UNLIKELY(!gexi_sock_tx_reserve(p, SOCK_RMA_HEAD)))
        return get_nbi_open(j, dest, src, nbytes, flags, mode);
      get_frame(p, dst, dest, src, nbytes);
      gexi_sock_tx_unlock(p);
      return GEX_EVENT_INVALID;
    }
  }
  return get_main(j, dest, src, nbytes, flags, mode);
}

/* The target of a Get: the reply, sent from the region itself (it stays
 * valid until the initiator has the data) unless it is small. */
void gexi_sock_get_serve(gex_Rank_t j, const struct sock_rma *r, char *src) {
  struct sock_rma rep = {0, 0, r->len, r->cookie, r->dest};
  struct sock_frame f = {.len = (uint32_t)(sizeof rep + SOCK_ROUND8(r->len)), .type = SOCK_F_GETREP};
  gexi_sock_send(j, &f, &rep, sizeof rep, src, r->len,
                 r->len <= 256 ? SOCK_TX_COPY | SOCK_TX_BATCH : SOCK_TX_BORROW, GEXI_POLL_ALL, 0);
}

/* ---- exposed regions (transport.h) ----------------------------------------------- */
void gexi_sock_get_exposed(gex_Rank_t j, size_t n, const struct gexi_exposed_rma *r) {
  if (atomic_load_explicit(&S()->peers[j].state, memory_order_acquire) != SOCK_UP)
    gexi_sock_need(j, GEXI_POLL_ALL);
  _Atomic uint32_t c = 0;
  for (size_t i = 0; i < n; i++) atomic_fetch_add_explicit(&c, (uint32_t)nframes(r[i].nbytes),
                                                           memory_order_relaxed);
  for (size_t i = 0; i < n; i++)
    get_frames(j, r[i].key, r[i].raddr, r[i].local, r[i].nbytes, (uint64_t)(uintptr_t)&c);
  wait_zero(&c);
}

/* Unacknowledged writes (cookie 0): the stream's order makes the message
 * that 'then' sends arrive after them, and nothing waits for them here. */
void gexi_sock_put_exposed(gex_Rank_t j, size_t n, const struct gexi_exposed_rma *w,
                           void (*then)(void *arg, size_t first, size_t k), void *arg) {
  if (atomic_load_explicit(&S()->peers[j].state, memory_order_acquire) != SOCK_UP)
    gexi_sock_need(j, GEXI_POLL_ALL);
  for (size_t i = 0; i < n; i++) put_frames(j, w[i].key, w[i].raddr, w[i].local, w[i].nbytes, 0);
  if (n) then(arg, 0, n);
}

/* As a Put or Get with the segment: NB and NBI ones in flight together,
 * large ones cut into frames that follow each other on the stream. */
gex_Event_t gexi_sock_rma_exposed(gex_Rank_t j, int is_write, const struct gexi_exposed_rma *x,
                                  int mode) {
  if (atomic_load_explicit(&S()->peers[j].state, memory_order_acquire) != SOCK_UP)
    gexi_sock_need(j, GEXI_POLL_ALL);
  return rma_key(is_write, j, x->key, x->raddr, x->local, x->nbytes, mode);
}

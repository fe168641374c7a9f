/* transport/sock/sock_rma.c -- Put and Get over the sock transport, done by
 * the target.
 *
 * The target copies between the stream and one of its regions: its bound
 * segment, or memory it exposed (an endpoint's segment, a collective's
 * rendezvous buffer).  A region is named by a key the target published;
 * every Put and Get is checked against the region's range before a byte is
 * copied.  The initiator's completion counter (atomic/ad_am.h: a blocking
 * operation's own, an NB operation's event, the thread's NBI count or the
 * access region's event) travels with the request and comes back in the
 * ACK or the reply; the target never uses it.  A Put's data is locally
 * complete when the call returns: written to the kernel or copied to the
 * peer's queue, or, when large and the caller may wait, written before the
 * call returns (no copy).
 */
#include <stdlib.h>
#include <string.h>

#include "atomic/ad_am.h"
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

void gexi_sock_ack_flush(gex_Rank_t j) {
  struct sock_peer *p = &S()->peers[j];
  struct sock_ack a = {p->ack_cookie, p->ack_count};
  p->ack_count = 0;
  struct sock_frame f = {.len = sizeof a, .type = SOCK_F_ACK};
  gexi_sock_send(j, &f, &a, sizeof a, NULL, 0, SOCK_TX_COPY, GEXI_POLL_ALL, 0);
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
    gexi_sock_need(j, GEXI_POLL_ALL);
  return key;
}

/* One Put or Get of the client: its frames, and the counter they count
 * down (the caller's own for a blocking one, waited for here). */
static gex_Event_t rma(const char *fn, int is_put, gex_Rank_t j, uint64_t raddr, char *local,
                       size_t nbytes, int mode) {
  uint64_t key = seg_key(fn, j);
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
  (void)flags;
  return rma("gex_RMA_Get", 0, j, (uint64_t)(uintptr_t)src, dest, nbytes, mode);
}

/* The target of a Get: the reply, sent from the region itself (it stays
 * valid until the initiator has the data) unless it is small. */
void gexi_sock_get_serve(gex_Rank_t j, const struct sock_rma *r, char *src) {
  struct sock_rma rep = {0, 0, r->len, r->cookie, r->dest};
  struct sock_frame f = {.len = (uint32_t)(sizeof rep + SOCK_ROUND8(r->len)), .type = SOCK_F_GETREP};
  gexi_sock_send(j, &f, &rep, sizeof rep, src, r->len,
                 r->len <= 256 ? SOCK_TX_COPY : SOCK_TX_BORROW, GEXI_POLL_ALL, 0);
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

void gexi_sock_rma_exposed(gex_Rank_t j, int is_write, const struct gexi_exposed_rma *x) {
  if (atomic_load_explicit(&S()->peers[j].state, memory_order_acquire) != SOCK_UP)
    gexi_sock_need(j, GEXI_POLL_ALL);
  _Atomic uint32_t c = (uint32_t)nframes(x->nbytes);
  if (is_write)
    put_frames(j, x->key, x->raddr, x->local, x->nbytes, (uint64_t)(uintptr_t)&c);
  else
    get_frames(j, x->key, x->raddr, x->local, x->nbytes, (uint64_t)(uintptr_t)&c);
  wait_zero(&c);
}

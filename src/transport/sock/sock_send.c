/* transport/sock/sock_send.c -- writing frames to a peer's connection.
 *
 * A frame goes straight to the kernel (one sendmsg of its pieces) when
 * nothing of the peer's stream is waiting; what the kernel does not take,
 * and every frame behind it, waits in the peer's queue in order, flushed
 * by every poll.  A queued piece is a copy (so the caller's buffer is free
 * on return: local completion at once) or, for data that stays valid (a
 * Get's reply out of a registered region, a Put whose caller waits), the
 * caller's memory itself.  tx_lock guards the queue and keeps frames whole:
 * nobody ever waits while holding it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "transport/sock/sock.h"

static inline struct gexi_sock *S(void) { return gexi_sock_ctx(); }

/* Frames up to this size are sent from one contiguous copy. */
#define SOCK_SMALL_FRAME 256

void gexi_sock_peer_gone(gex_Rank_t j, int fault, const char *why) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  atomic_store_explicit(&p->state, SOCK_CLOSED, memory_order_release);
  if (!fault || atomic_load_explicit(&s->leaving, memory_order_acquire) ||
      atomic_load_explicit(&gexi_ctx.exit_requested, memory_order_acquire))
    return;
  if (p->bye)
    gexi_fatal_peer(j, "network (sock): rank %u has left the job; nothing more can reach it",
                    (unsigned)j);
  gexi_fatal_peer(j, "network (sock): rank %u is unreachable: %s (rank %u died or its host is "
                     "down)", (unsigned)j, why, (unsigned)j);
}

/* Append n bytes at ptr to p's queue: copied into an owned piece (the last
 * one if it has room) or queued by reference. */
static void q_push(struct sock_peer *p, const char *ptr, size_t n, int copy) {
  if (!n) return;
  if (copy && p->qn) {
    struct sock_seg *last = &p->q[p->qhead + p->qn - 1];
    if (last->own && (size_t)(last->p - last->own) + last->len + n <= last->cap) {
      memcpy((char *)(uintptr_t)last->p + last->len, ptr, n);
      last->len += n;
      p->qbytes += n;
      return;
    }
  }
  if (p->qhead + p->qn == p->qcap) {
    if (p->qhead) {
      memmove(p->q, p->q + p->qhead, p->qn * sizeof *p->q);
      p->qhead = 0;
    } else {
      size_t cap = p->qcap ? 2 * p->qcap : 16;
      struct sock_seg *q = realloc(p->q, cap * sizeof *q);
      if (!q) gexi_fatal("out of memory");
      p->q = q;
      p->qcap = cap;
    }
  }
  struct sock_seg *g = &p->q[p->qhead + p->qn++];
  if (copy) {
    size_t cap = n > (16u << 10) ? n : (16u << 10);
    g->own = malloc(cap);
    if (!g->own) gexi_fatal("out of memory");
    memcpy(g->own, ptr, n);
    g->p = g->own;
    g->cap = cap;
  } else {
    g->own = NULL;
    g->p = ptr;
    g->cap = 0;
  }
  g->len = n;
  p->qbytes += n;
}

/* Write what the kernel takes of p's queue (under tx_lock): 0, or an errno. */
static int q_write(struct sock_peer *p) {
  while (p->qn) {
    struct iovec iov[16];
    size_t k = 0;
    for (; k < p->qn && k < 16; k++) {
      iov[k].iov_base = (void *)(uintptr_t)p->q[p->qhead + k].p;
      iov[k].iov_len = p->q[p->qhead + k].len;
    }
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = k};
    ssize_t w = sendmsg(p->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : errno;
    atomic_fetch_add_explicit(&p->tx_written, (uint64_t)w, memory_order_release);
    p->qbytes -= (size_t)w;
    while (w > 0) {
      struct sock_seg *g = &p->q[p->qhead];
      size_t t = (size_t)w < g->len ? (size_t)w : g->len;
      g->p += t;
      g->len -= t;
      w -= (ssize_t)t;
      if (g->len) break;
      free(g->own);
      p->qhead++;
      p->qn--;
    }
    if (p->qn) return 0; /* the kernel took less than all: it is full */
  }
  p->qhead = 0;
  return 0;
}

static void flush_peer(gex_Rank_t j) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  if (pthread_mutex_trylock(&p->tx_lock) != 0) return; /* its holder writes */
  int err = 0;
  if (p->qn && atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_UP) {
    err = q_write(p);
    if (!p->qn) atomic_fetch_sub_explicit(&s->nqueued, 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&p->tx_lock);
  if (err) gexi_sock_peer_gone(j, 0, strerror(err));
}

uint64_t gexi_sock_batched(void) {
  struct gexi_sock *s = __atomic_load_n(&gexi_ctx.sock, __ATOMIC_ACQUIRE);
  return s ? atomic_load_explicit(&s->batched, memory_order_relaxed) : 0;
}

void gexi_sock_flush_all(void) {
  struct gexi_sock *s = S();
  for (unsigned i = 0; i < s->nup && atomic_load_explicit(&s->nqueued, memory_order_relaxed); i++)
    if (s->peers[s->up[i]].qn) flush_peer(s->up[i]);
}

void gexi_sock_flush_any(void) {
  struct gexi_sock *s = S();
  for (gex_Rank_t j = 0; j < gexi_ctx.size && atomic_load_explicit(&s->nqueued, memory_order_relaxed);
       j++)
    flush_peer(j);
}

static int may_wait(void) { return !gexi_in_handler_or_hsl() && !gexi_sock_polling(); }

void gexi_sock_send(gex_Rank_t j, struct sock_frame *f, const void *body, size_t blen,
                    const void *data, size_t dlen, int mode, int what, int fault) {
  static const char zeros[8];
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  size_t pad = SOCK_ROUND8(dlen) - dlen;
  struct iovec iov[4] = {{f, sizeof *f},
                         {(void *)(uintptr_t)body, blen},
                         {(void *)(uintptr_t)data, dlen},
                         {(void *)(uintptr_t)zeros, pad}};
  size_t total = sizeof *f + blen + dlen + pad;
  int batch = mode & SOCK_TX_BATCH;
  mode &= ~SOCK_TX_BATCH;
  pthread_mutex_lock(&p->tx_lock);
  if (GEXI_UNLIKELY(atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP)) {
    pthread_mutex_unlock(&p->tx_lock);
    gexi_sock_peer_gone(j, fault, "its connection is closed");
    return;
  }
  f->credit = atomic_exchange_explicit(&p->owed, 0, memory_order_relaxed);
  size_t w = 0;
  int direct = !p->qn;
  if (direct && batch) { /* one frame per peer and poll goes on its own */
    uint32_t g = atomic_load_explicit(&s->poll_gen, memory_order_relaxed);
    direct = p->tx_gen != g;
    p->tx_gen = g;
  }
  if (batch && !direct) atomic_fetch_add_explicit(&s->batched, 1, memory_order_relaxed);
  if (direct) {
    /* A small frame is assembled and sent with send(): cheaper in the
     * kernel than sendmsg's vector. */
    char small[SOCK_SMALL_FRAME];
    ssize_t r;
    if (total <= sizeof small) {
      size_t o = 0;
      for (int k = 0; k < 4; k++) {
        if (iov[k].iov_len) memcpy(small + o, iov[k].iov_base, iov[k].iov_len);
        o += iov[k].iov_len;
      }
      r = send(p->fd, small, total, MSG_DONTWAIT | MSG_NOSIGNAL);
    } else {
      struct msghdr m = {.msg_iov = iov, .msg_iovlen = 4};
      r = sendmsg(p->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      pthread_mutex_unlock(&p->tx_lock);
      gexi_sock_peer_gone(j, fault, strerror(e));
      return;
    }
    w = r > 0 ? (size_t)r : 0;
  }
  uint64_t end = atomic_load_explicit(&p->tx_queued, memory_order_relaxed) + total;
  atomic_store_explicit(&p->tx_queued, end, memory_order_relaxed);
  if (w) atomic_fetch_add_explicit(&p->tx_written, w, memory_order_release);
  int queued = w < total;
  if (queued) {
    if (!p->qn) atomic_fetch_add_explicit(&s->nqueued, 1, memory_order_relaxed);
    size_t off = w;
    for (int k = 0; k < 4; k++) {
      size_t n = iov[k].iov_len;
      if (off >= n) {
        off -= n;
        continue;
      }
      q_push(p, (const char *)iov[k].iov_base + off, n - off, k != 2 || mode == SOCK_TX_COPY);
      off = 0;
    }
  }
  int err = 0;
  if (queued && batch && p->qbytes >= SOCK_BATCH_MAX) err = q_write(p);
  if (queued && !p->qn) atomic_fetch_sub_explicit(&s->nqueued, 1, memory_order_relaxed);
  size_t qbytes = p->qbytes;
  pthread_mutex_unlock(&p->tx_lock);
  if (err) {
    gexi_sock_peer_gone(j, fault, strerror(err));
    return;
  }
  if (!queued) return;
  if (mode == SOCK_TX_WAIT) {
    while (atomic_load_explicit(&p->tx_written, memory_order_acquire) < end &&
           atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_UP) {
      flush_peer(j);
      if (atomic_load_explicit(&p->tx_written, memory_order_acquire) >= end) break;
      if (gexi_poll(what))
        gexi_busy();
      else
        gexi_idle();
    }
    if (atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP)
      gexi_sock_peer_gone(j, fault, "its connection closed while data was being sent");
  } else if (qbytes > SOCK_QUEUE_MAX && may_wait()) {
    /* Back-pressure: a sender that outruns the peer waits for half. */
    for (;;) {
      flush_peer(j);
      pthread_mutex_lock(&p->tx_lock);
      qbytes = p->qbytes;
      pthread_mutex_unlock(&p->tx_lock);
      if (qbytes <= SOCK_QUEUE_MAX / 2 ||
          atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP)
        break;
      if (gexi_poll(what))
        gexi_busy();
      else
        gexi_idle();
    }
  }
}

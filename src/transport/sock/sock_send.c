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
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "transport/sock/sock.h"

static inline struct gexi_sock *S(void) { return gexi_sock_ctx(); }

/* Write the next bytes of j's stream without blocking: to its connection,
 * or (no descriptor: GEX_SOCK_UDP) to its lane.  As sendmsg. */
static ssize_t stream_writev(gex_Rank_t j, struct sock_peer *p, const struct iovec *iov, int n) {
  if (GEXI_UNLIKELY(p->fd < 0)) return gexi_sock_lane_write(j, iov, n);
  if (GEXI_UNLIKELY(S()->ufd >= 0) && !gexi_sock_lane_drained(j)) { /* (sock_lane.c, "Bulk") */
    errno = EAGAIN;
    return -1;
  }
  struct msghdr m = {.msg_iov = (struct iovec *)(uintptr_t)iov, .msg_iovlen = (size_t)n};
  return sendmsg(p->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}
static inline ssize_t stream_write(gex_Rank_t j, struct sock_peer *p, const void *buf, size_t len) {
  if (GEXI_UNLIKELY(p->fd < 0 || S()->ufd >= 0)) {
    struct iovec v = {(void *)(uintptr_t)buf, len};
    return stream_writev(j, p, &v, 1);
  }
  return send(p->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
}

__attribute__((noinline)) void gexi_sock_tx_lock_wait(struct sock_peer *p) {
  for (unsigned i = 0; atomic_load_explicit(&p->tx_lock, memory_order_relaxed) ||
                       atomic_exchange_explicit(&p->tx_lock, 1, memory_order_acquire);
       i++)
    if (i >= 64) sched_yield();
}

void gexi_sock_peer_gone(gex_Rank_t j, int fault, const char *why) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  atomic_store_explicit(&p->state, SOCK_CLOSED, memory_order_release);
  /* Frames that waited for a connection never made are dropped.  (No
   * caller holds j's tx_lock here.) */
  gexi_sock_tx_lock(p);
  if (p->early) gexi_sock_q_drop(p);
  gexi_sock_tx_unlock(p);
  /* A peer that leaves once the job's exit has begun (with BYE or not: its
   * flush at exit is bounded) is no fault; nor is anything while this
   * process leaves.  Otherwise the launcher decides who is to blame: a rank
   * that died, or the job's exit that has not reached this rank yet. */
  if (!fault || atomic_load_explicit(&s->leaving, memory_order_acquire) ||
      gexi_await_peer_verdict(j))
    return;
  if (p->bye)
    gexi_fatal("network (sock): rank %u has left the job; nothing more can reach it", (unsigned)j);
  gexi_fatal("network (sock): rank %u is unreachable: %s", (unsigned)j, why);
}

/* Fold the frames written at p's open tail into its accounts, and close
 * it (under tx_lock, before anything else reads or changes the queue). */
static inline void q_settle(struct sock_peer *p) {
  if (!p->tail) return;
  struct sock_seg *last = &p->q[p->qhead + p->qn - 1];
  size_t added = (size_t)(p->tail - (last->p + last->len));
  if (added) p->batched++; /* frames joined the tail */
  last->len += added;
  p->qbytes += added;
  atomic_store_explicit(&p->tx_queued,
                        atomic_load_explicit(&p->tx_queued, memory_order_relaxed) + added,
                        memory_order_relaxed);
  p->tail = p->tail_lim = NULL;
}

/* Open the tail after the owned piece 'last' (the queue's last), if its
 * end is 8-aligned and the queue is short of a full batch. */
static inline void q_open(struct sock_peer *p, struct sock_seg *last) {
  char *end = (char *)(uintptr_t)last->p + last->len;
  if (((uintptr_t)end & 7) || p->qbytes >= SOCK_BATCH_MAX) return;
  size_t room = last->cap - (size_t)(end - last->own);
  if (room > SOCK_BATCH_MAX - p->qbytes) room = SOCK_BATCH_MAX - p->qbytes;
  p->tail = end;
  p->tail_lim = end + room;
}

/* Owned pieces: SOCK_PIECE bytes (or a larger frame's length); one
 * written piece of the usual size is kept per peer for the next, for at
 * most SOCK_SPARES_MAX peers of the process (a rank that has talked to a
 * thousand peers would otherwise keep 16 MiB of them). */
#define SOCK_PIECE ((size_t)16 << 10)
#define SOCK_SPARES_MAX 64
/* The first piece of an empty queue: room for a burst (a full piece
 * follows if the burst outgrows it), but small, because a rank that sends
 * a frame or two to each of a thousand peers between two polls (replies,
 * ACKs) holds one such piece for each of them until the poll. */
#define SOCK_FIRST_PIECE ((size_t)1 << 10)
static char *piece_alloc(struct sock_peer *p, size_t cap) {
  char *b = p->spare;
  if (b && cap == SOCK_PIECE) {
    p->spare = NULL;
    atomic_fetch_sub_explicit(&S()->nspares, 1, memory_order_relaxed);
    return b;
  }
  b = malloc(cap);
  if (!b) gexi_fatal("out of memory");
  return b;
}
static void piece_free(struct sock_peer *p, char *own, size_t cap) {
  if (own && cap == SOCK_PIECE && !p->spare &&
      atomic_load_explicit(&S()->nspares, memory_order_relaxed) < SOCK_SPARES_MAX) {
    atomic_fetch_add_explicit(&S()->nspares, 1, memory_order_relaxed);
    p->spare = own;
  } else {
    free(own);
  }
}

/* A new owned piece of 'cap' bytes, empty, at the end of p's queue. */
static struct sock_seg *q_new_piece(struct sock_peer *p, size_t cap) {
  /* A stream over the lane is flushed among the lane's peers: it has one
   * before its queue holds anything.  (A lane peer's fd changes under its
   * tx_lock, held here; another's only under poll_lock, before its state
   * says UP: it is not read here.) */
  if (GEXI_UNLIKELY(S()->ufd >= 0) && !p->qn) {
    gex_Rank_t j = (gex_Rank_t)(p - S()->peers);
    if (gexi_sock_is_lane(j) && p->fd < 0) gexi_sock_lane_touch(j);
  }
  if (p->qhead + p->qn == p->qcap) {
    if (p->qhead) {
      memmove(p->q, p->q + p->qhead, p->qn * sizeof *p->q);
      p->qhead = 0;
    } else {
      size_t n = p->qcap ? 2 * p->qcap : 16;
      struct sock_seg *q = realloc(p->q, n * sizeof *q);
      if (!q) gexi_fatal("out of memory");
      p->q = q;
      p->qcap = n;
    }
  }
  struct sock_seg *g = &p->q[p->qhead + p->qn++];
  g->own = cap ? piece_alloc(p, cap) : NULL;
  g->p = g->own;
  g->cap = cap;
  g->len = 0;
  return g;
}

/* j on the list of queues the polls write (sock.h, qlist), once.  Under
 * p's tx_lock, its queue about to hold bytes to write: q_count counts it in
 * nqueued and lists it. */
static void list_queue(struct gexi_sock *s, gex_Rank_t j) {
  pthread_mutex_lock(&s->qlist_lock);
  if (!s->peers[j].qlisted) {
    s->peers[j].qlisted = 1;
    s->qlist[s->nqlist++] = j;
  }
  pthread_mutex_unlock(&s->qlist_lock);
}
static void q_count(struct gexi_sock *s, struct sock_peer *p) {
  atomic_fetch_add_explicit(&s->nqueued, 1, memory_order_relaxed);
  list_queue(s, (gex_Rank_t)(p - s->peers));
}

static inline void lock_settled(struct sock_peer *p) {
  gexi_sock_tx_lock(p);
  q_settle(p);
}

/* Append n bytes at ptr to p's queue: copied into an owned piece
 * (the last one if it has room; the tail opens after it) or queued by
 * reference. */
static void q_push(struct sock_peer *p, const char *ptr, size_t n, int copy) {
  if (!n) return;
  q_settle(p); /* a tail opened by the previous push moves */
  if (copy && p->qn) {
    struct sock_seg *last = &p->q[p->qhead + p->qn - 1];
    if (last->own && (size_t)(last->p - last->own) + last->len + n <= last->cap) {
      memcpy((char *)(uintptr_t)last->p + last->len, ptr, n);
      last->len += n;
      p->qbytes += n;
      q_open(p, last);
      return;
    }
  }
  size_t piece = p->qn ? SOCK_PIECE : SOCK_FIRST_PIECE;
  struct sock_seg *g = q_new_piece(p, copy ? (n > piece ? n : piece) : 0);
  if (copy)
    memcpy(g->own, ptr, n);
  else
    g->p = ptr;
  g->len = n;
  p->qbytes += n;
  if (copy) q_open(p, g);
}

int gexi_sock_tx_open(gex_Rank_t j) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  q_settle(p);
  if (atomic_load_explicit(&p->state, memory_order_relaxed) != SOCK_UP ||
      p->qbytes >= SOCK_BATCH_MAX ||
      gexi_sock_leaves_now(p))
    return 0;
  /* (an empty queue's first piece is small, as in q_push) */
  const size_t cap = p->qn ? SOCK_PIECE : SOCK_FIRST_PIECE;
  if (!p->qn) q_count(s, p);
  q_open(p, q_new_piece(p, cap));
  return 1;
}

char *gexi_sock_tx_first(struct sock_peer *p, size_t len) {
  q_count(S(), p);
  struct sock_seg *g = q_new_piece(p, len > SOCK_FIRST_PIECE ? len : SOCK_FIRST_PIECE);
  g->len = len;
  p->qbytes += len;
  return g->own;
}

int gexi_sock_tx_first_send(gex_Rank_t j, struct sock_peer *p, size_t len) {
  struct gexi_sock *s = S();
  struct sock_seg *g = &p->q[p->qhead];
  if (GEXI_UNLIKELY(atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP)) {
    gexi_sock_tx_unlock(p);
    gexi_sock_peer_gone(j, 1, "its connection is closed");
    return 0;
  }
  p->tx_gen = atomic_load_explicit(&s->poll_gen, memory_order_relaxed);
  atomic_store_explicit(&p->tx_queued, atomic_load_explicit(&p->tx_queued, memory_order_relaxed) + len,
                        memory_order_relaxed);
  ssize_t r = stream_write(j, p, g->p, len);
  if (GEXI_UNLIKELY(r < 0)) {
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      gexi_sock_tx_unlock(p);
      gexi_sock_peer_gone(j, 1, strerror(e));
      return 0;
    }
    r = 0;
  }
  if (r) {
    atomic_fetch_add_explicit(&p->tx_written, (uint64_t)r, memory_order_release);
    g->p += r;
    g->len -= (size_t)r;
    p->qbytes -= (size_t)r;
  }
  /* The tail after the frame (8-aligned: frames are), up to the piece's
   * end: the queue then holds at most the piece, a full batch. */
  p->tail = g->own + len;
  p->tail_lim = g->own + g->cap; /* (SOCK_FIRST_PIECE: less than a batch) */
  gexi_sock_tx_unlock(p);
  return 0;
}

void gexi_sock_q_drop(struct sock_peer *p) {
  p->tail = p->tail_lim = NULL;
  if (p->early) { /* its connection failed, or ended, before these were written */
    /* (SOCK_EARLY_WAITING: not counted in nqueued; undone below) */
    if (p->early == SOCK_EARLY_WAITING && p->qn)
      atomic_fetch_add_explicit(&S()->nqueued, 1, memory_order_relaxed);
    p->early = 0;
    atomic_fetch_sub_explicit(&gexi_ctx.net_unsent, 1, memory_order_release);
  }
  for (size_t i = 0; i < p->qn; i++) free(p->q[p->qhead + i].own);
  if (p->spare) atomic_fetch_sub_explicit(&S()->nspares, 1, memory_order_relaxed);
  free(p->spare);
  p->spare = NULL;
  if (p->qn) atomic_fetch_sub_explicit(&S()->nqueued, 1, memory_order_relaxed);
  p->qn = p->qhead = p->qbytes = 0;
}

/* Write what the kernel takes of p's queue (under tx_lock): 0, or an errno. */
static int q_write_some(struct sock_peer *p) {
  q_settle(p); /* its pieces are about to be freed */
  if (!p->qbytes) { /* only a first frame's piece that nothing joined (gexi_sock_tx_first) */
    for (; p->qn; p->qn--, p->qhead++) piece_free(p, p->q[p->qhead].own, p->q[p->qhead].cap);
    p->qhead = 0;
    return 0;
  }
  while (p->qn) {
    struct iovec iov[16];
    size_t k = 0;
    for (; k < p->qn && k < 16; k++) {
      iov[k].iov_base = (void *)(uintptr_t)p->q[p->qhead + k].p;
      iov[k].iov_len = p->q[p->qhead + k].len;
    }
    ssize_t w = stream_writev((gex_Rank_t)(p - S()->peers), p, iov, (int)k);
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
      piece_free(p, g->own, g->cap);
      p->qhead++;
      p->qn--;
    }
    if (p->qn) return 0; /* the kernel took less than all: it is full */
  }
  p->qhead = 0;
  return 0;
}

/* The same, and the peer leaves gexi_ctx.net_unsent once what waited for
 * its connection is in the kernel. */
static int q_write(struct sock_peer *p) {
  int err = q_write_some(p);
  if (p->early && !p->qn) {
    p->early = 0;
    atomic_fetch_sub_explicit(&gexi_ctx.net_unsent, 1, memory_order_release);
  }
  return err;
}

/* Write what the kernel takes of j's queue; whether it took anything.
 * 'listed': j came off the list, to go back on it if bytes remain. */
static int flush_peer_from(gex_Rank_t j, int listed) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  if (!gexi_sock_tx_trylock(p)) { /* its holder writes */
    if (listed) list_queue(s, j); /* back on the list */
    return 0;
  }
  q_settle(p);
  int err = 0;
  uint64_t before = atomic_load_explicit(&p->tx_written, memory_order_relaxed);
  if (p->qn && atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_UP) {
    err = q_write(p);
    if (!p->qn) atomic_fetch_sub_explicit(&s->nqueued, 1, memory_order_relaxed);
  }
  /* Still counted (not written, or not up yet): listed again. */
  if (listed && p->qn && (!p->early || p->early == SOCK_EARLY_WRITING)) list_queue(s, j);
  int moved = atomic_load_explicit(&p->tx_written, memory_order_relaxed) != before;
  gexi_sock_tx_unlock(p);
  if (err) gexi_sock_peer_gone(j, 0, strerror(err));
  return moved;
}

static int flush_peer(gex_Rank_t j) { return flush_peer_from(j, 0); }

void gexi_sock_tx_start(gex_Rank_t j) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  gexi_sock_tx_lock(p);
  atomic_store_explicit(&p->state, SOCK_UP, memory_order_release);
  int queued = p->qn != 0;
  if (queued) { /* frames sent while it was being made (q_early): a queue to write now */
    q_count(s, p);
    if (p->early) p->early = SOCK_EARLY_WRITING;
  }
  gexi_sock_tx_unlock(p);
  if (queued) flush_peer(j);
}

/* The sum over the peers of a count kept under their tx_lock. */
static uint64_t peers_sum(size_t field) {
  struct gexi_sock *s = __atomic_load_n(&gexi_ctx.sock, __ATOMIC_ACQUIRE);
  uint64_t n = 0, v;
  for (gex_Rank_t j = 0; s && j < gexi_ctx.size; j++) {
    gexi_sock_tx_lock(&s->peers[j]);
    memcpy(&v, (const char *)&s->peers[j] + field, sizeof v);
    n += v;
    gexi_sock_tx_unlock(&s->peers[j]);
  }
  return n;
}
uint64_t gexi_sock_batched(void) { return peers_sum(offsetof(struct sock_peer, batched)); }
uint64_t gexi_sock_rma_tails(void) { return peers_sum(offsetof(struct sock_peer, rma_tails)); }

int gexi_sock_flush_all(void) {
  struct gexi_sock *s = S();
  pthread_mutex_lock(&s->qlist_lock);
  unsigned n = s->nqlist;
  for (unsigned i = 0; i < n; i++) {
    s->qtaken[i] = s->qlist[i];
    s->peers[s->qlist[i]].qlisted = 0;
  }
  s->nqlist = 0;
  pthread_mutex_unlock(&s->qlist_lock);
  int moved = 0;
  for (unsigned i = 0; i < n; i++) moved |= flush_peer_from(s->qtaken[i], 1);
  return moved;
}

void gexi_sock_flush_any(void) {
  struct gexi_sock *s = S();
  for (gex_Rank_t j = 0; j < gexi_ctx.size && atomic_load_explicit(&s->nqueued, memory_order_relaxed);
       j++)
    flush_peer(j);
}

static int may_wait(void) { return !gexi_in_handler_or_hsl() && !gexi_sock_polling(); }

/* Under p's tx_lock, p's connection not made yet (an attempt on its way,
 * gexi_sock_reach): n bytes at ptr, copied, join its queue.  They are
 * counted among the queues to write only when the connection is made
 * (gexi_sock_tx_start; until then polls and sleeps go on as if nothing
 * waited for the kernel), and the peer in gexi_ctx.net_unsent until the
 * queue has been written (q_write): a wait that completes settles them
 * first (gexi_sock_settle).  No tail is left open: an open tail means a
 * live connection.  So a rank that starts talking to many peers makes
 * their connections side by side, not one after another. */
static void q_early(struct sock_peer *p, const char *ptr, size_t n) {
  if (!p->early) {
    p->early = SOCK_EARLY_WAITING;
    atomic_fetch_add_explicit(&gexi_ctx.net_unsent, 1, memory_order_relaxed);
  }
  atomic_store_explicit(&p->tx_queued, atomic_load_explicit(&p->tx_queued, memory_order_relaxed) + n,
                        memory_order_relaxed);
  q_push(p, ptr, n, 1);
  p->tail = p->tail_lim = NULL;
}

/* Whether a peer in state st is one whose connection is on its way. */
static inline int connecting(int st) { return st == SOCK_DOWN || st == SOCK_WAITING; }

int gexi_sock_send_small(gex_Rank_t j, char *buf, size_t len, int batch, int fault) {
  struct sock_peer *p = &S()->peers[j];
  gexi_sock_tx_lock(p);
  return gexi_sock_send_small_locked(j, p, buf, len, batch, fault);
}

int gexi_sock_send_small_locked(gex_Rank_t j, struct sock_peer *p, char *buf, size_t len,
                                int batch, int fault) {
  struct gexi_sock *s = S();
  q_settle(p);
  int st = atomic_load_explicit(&p->state, memory_order_acquire);
  if (GEXI_UNLIKELY(st != SOCK_UP)) {
    if (connecting(st)) {
      ((struct sock_frame *)(void *)buf)->credit = 0; /* nothing came from it yet */
      q_early(p, buf, len);
      gexi_sock_tx_unlock(p);
      return 1;
    }
    gexi_sock_tx_unlock(p);
    gexi_sock_peer_gone(j, fault, "its connection is closed");
    return 0;
  }
  ((struct sock_frame *)(void *)buf)->credit = gexi_sock_tx_owed(p);
  atomic_store_explicit(&p->tx_queued, atomic_load_explicit(&p->tx_queued, memory_order_relaxed) + len,
                        memory_order_relaxed);
  if (!p->qn) {
    uint32_t g = atomic_load_explicit(&s->poll_gen, memory_order_relaxed);
    if ((!batch || p->tx_gen != g) && !gexi_sock_lane_in_poll(p)) { /* one frame per peer and poll goes on its own */
      p->tx_gen = g;
      ssize_t r = stream_write(j, p, buf, len);
      if (GEXI_LIKELY(r == (ssize_t)len)) {
        atomic_fetch_add_explicit(&p->tx_written, len, memory_order_release);
        gexi_sock_tx_unlock(p);
        return 0;
      }
      if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        int e = errno;
        gexi_sock_tx_unlock(p);
        gexi_sock_peer_gone(j, fault, strerror(e));
        return 0;
      }
      size_t w = r > 0 ? (size_t)r : 0;
      if (w) atomic_fetch_add_explicit(&p->tx_written, w, memory_order_release);
      q_count(s, p);
      q_push(p, buf + w, len - w, 1);
      gexi_sock_tx_unlock(p);
      return 1;
    }
    q_count(s, p);
  }
  p->batched++;
  q_push(p, buf, len, 1); /* into the last piece when it has room: a batch */
  int err = p->qbytes >= SOCK_BATCH_MAX ? q_write(p) : 0;
  if (!p->qn) atomic_fetch_sub_explicit(&s->nqueued, 1, memory_order_relaxed);
  gexi_sock_tx_unlock(p);
  if (err) gexi_sock_peer_gone(j, fault, strerror(err));
  return 1;
}

/* A sender that outruns peer j by more than SOCK_QUEUE_MAX queued bytes
 * waits (where it may) until half of them are written. */
static void backpressure(gex_Rank_t j, int what) {
  struct sock_peer *p = &S()->peers[j];
  if (!may_wait()) return;
  for (size_t limit = SOCK_QUEUE_MAX;; limit = SOCK_QUEUE_MAX / 2) {
    lock_settled(p);
    size_t qbytes = p->qbytes;
    gexi_sock_tx_unlock(p);
    if (qbytes <= limit || atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP) return;
    int moved = flush_peer(j);
    if (gexi_poll(what) || moved) /* bytes the kernel took are progress */
      gexi_busy();
    else
      gexi_idle();
  }
}

void gexi_sock_send(gex_Rank_t j, struct sock_frame *f, const void *body, size_t blen,
                    const void *data, size_t dlen, int mode, int what, int fault) {
  static const char zeros[8];
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  size_t pad = SOCK_ROUND8(dlen) - dlen;
  if (sizeof *f + blen + dlen + pad <= SOCK_SMALL_FRAME) {
    /* Small: assembled here, sent or queued whole. */
    uint64_t buf[SOCK_SMALL_FRAME / 8];
    char *b = (char *)buf;
    memcpy(b, f, sizeof *f);
    if (blen) memcpy(b + sizeof *f, body, blen);
    if (dlen) memcpy(b + sizeof *f + blen, data, dlen);
    if (pad) memset(b + sizeof *f + blen + dlen, 0, pad);
    if (gexi_sock_send_small(j, b, sizeof *f + blen + dlen + pad, mode & SOCK_TX_BATCH, fault) &&
        !(mode & SOCK_TX_BATCH))
      backpressure(j, what);
    return;
  }
  struct iovec iov[4] = {{f, sizeof *f},
                         {(void *)(uintptr_t)body, blen},
                         {(void *)(uintptr_t)data, dlen},
                         {(void *)(uintptr_t)zeros, pad}};
  size_t total = sizeof *f + blen + dlen + pad;
  int batch = mode & SOCK_TX_BATCH;
  mode &= ~SOCK_TX_BATCH;
  lock_settled(p);
  if (GEXI_UNLIKELY(S()->ufd >= 0) && total > SOCK_LANE_BULK && gexi_sock_is_lane(j) &&
      p->fd < 0) /* (as in q_new_piece: a lane peer's fd, read under its tx_lock) */
    gexi_sock_lane_cut(j); /* it and what follows go over TCP */
  int st = atomic_load_explicit(&p->state, memory_order_acquire);
  if (GEXI_UNLIKELY(st != SOCK_UP) && connecting(st) && mode == SOCK_TX_COPY) {
    f->credit = 0; /* nothing came from it yet */
    for (int k = 0; k < 4; k++) q_early(p, iov[k].iov_base, iov[k].iov_len);
    gexi_sock_tx_unlock(p);
    return;
  }
  if (GEXI_UNLIKELY(st != SOCK_UP) && connecting(st)) { /* borrowed data: wait for it */
    gexi_sock_tx_unlock(p);
    gexi_sock_need(j, what);
    lock_settled(p);
    st = atomic_load_explicit(&p->state, memory_order_acquire);
  }
  if (GEXI_UNLIKELY(st != SOCK_UP)) {
    gexi_sock_tx_unlock(p);
    gexi_sock_peer_gone(j, fault, "its connection is closed");
    return;
  }
  f->credit = atomic_exchange_explicit(&p->owed, 0, memory_order_relaxed);
  size_t w = 0;
  int direct = !p->qn && !gexi_sock_lane_in_poll(p);
  if (direct && batch) { /* one frame per peer and poll goes on its own */
    uint32_t g = atomic_load_explicit(&s->poll_gen, memory_order_relaxed);
    direct = p->tx_gen != g;
    p->tx_gen = g;
  }
  if (batch && !direct) p->batched++;
  if (direct) {
    ssize_t r = stream_writev(j, p, iov, 4);
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      gexi_sock_tx_unlock(p);
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
    if (!p->qn) q_count(s, p);
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
  gexi_sock_tx_unlock(p);
  if (err) {
    gexi_sock_peer_gone(j, fault, strerror(err));
    return;
  }
  if (!queued) return;
  if (mode == SOCK_TX_WAIT) {
    while (atomic_load_explicit(&p->tx_written, memory_order_acquire) < end &&
           atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_UP) {
      int moved = flush_peer(j);
      if (atomic_load_explicit(&p->tx_written, memory_order_acquire) >= end) break;
      /* Bytes the kernel took are progress: only a wait that moved nothing
       * may yield or sleep. */
      if (gexi_poll(what) || moved)
        gexi_busy();
      else
        gexi_idle();
    }
    if (atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP)
      gexi_sock_peer_gone(j, fault, "its connection closed while data was being sent");
  } else if (qbytes > SOCK_QUEUE_MAX) {
    backpressure(j, what);
  }
}

/* ---- leaving the job ---- */

/* The most a process spends at exit telling its peers that it leaves:
 * writing what is queued for them and the BYE behind it. */
#define SOCK_EXIT_FLUSH_MS 1000
/* The most it waits for one peer's tx_lock then (its holder never waits
 * while holding it, unless it is the thread that is now exiting, from a
 * signal handler: then the lock is never released). */
#define SOCK_EXIT_LOCK_MS 100

static int tx_lock_until(struct sock_peer *p, uint64_t deadline) {
  for (unsigned i = 0; !gexi_sock_tx_trylock(p); i++) {
    if (gexi_sock_now() >= deadline) return 0;
    if (i >= 64) sched_yield();
  }
  return 1;
}

/* Under p's tx_lock, at exit: write what the kernel takes; whether bytes
 * are left (0 as well when the connection failed: nothing more can go). */
static int exit_write(struct sock_peer *p) {
  if (q_write(p) != 0) {
    p->qn = 0; /* (the process ends: its pieces are not freed) */
    return 0;
  }
  return p->qn != 0;
}

/* At exit, j's queue (over the lane) as its window opens: whether bytes are left. */
static int lane_write_more(gex_Rank_t j) {
  struct sock_peer *p = &S()->peers[j];
  if (!gexi_sock_tx_trylock(p)) return 1;
  int more = exit_write(p);
  gexi_sock_tx_unlock(p);
  return more;
}

/* Called by gexi_end_process (possibly on the bootstrap's watchdog thread):
 * every connected peer gets a BYE, behind what is queued for it, so that
 * its end of file is not taken for a failure and what this rank sent last
 * (a barrier's last messages, a reply) arrives.  Bounded: a peer that does
 * not read, or whose lock is not released in time, gets as much as the
 * kernel took by then (the peer then sees this rank leave without BYE,
 * which is no fault once the job's exit has begun, and otherwise is left
 * to the launcher's verdict: gexi_sock_peer_gone). */
void gexi_sock_at_exit(void) {
  struct gexi_sock *s = __atomic_load_n(&gexi_ctx.sock, __ATOMIC_ACQUIRE);
  if (!s || !s->peers) return;
  atomic_store_explicit(&s->leaving, 1, memory_order_release);
  gexi_sock_keeper_stop(SOCK_EXIT_LOCK_MS); /* (the lanes are this thread's from now on) */
  const uint64_t deadline = gexi_sock_now() + SOCK_EXIT_FLUSH_MS * 1000000ull;
  /* Peers whose bytes did not all go at once, with their descriptors. */
  gex_Rank_t *left = malloc(gexi_ctx.size * sizeof *left);
  struct pollfd *pf = malloc(gexi_ctx.size * sizeof *pf);
  unsigned nleft = 0;
  for (gex_Rank_t j = 0; j < gexi_ctx.size; j++) {
    struct sock_peer *p = &s->peers[j];
    if (atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP) continue;
    uint64_t now = gexi_sock_now(), until = now + SOCK_EXIT_LOCK_MS * 1000000ull;
    if (!tx_lock_until(p, until < deadline ? until : deadline)) continue;
    q_settle(p);
    if (atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_UP) {
      struct sock_frame f = {.type = SOCK_F_BYE};
      q_push(p, (const char *)&f, sizeof f, 1);
      q_settle(p);
      /* Nothing may follow the BYE: senders now find the connection
       * closed (no fault while leaving), and the polls leave it alone. */
      atomic_store_explicit(&p->state, SOCK_CLOSED, memory_order_release);
      if (exit_write(p) && p->fd >= 0 && left && pf) left[nleft++] = j;
    }
    gexi_sock_tx_unlock(p);
  }
  /* While the rest goes, what these peers send is read and dropped (when
   * no other thread reads their connections: this one polls, or nobody
   * does), so that two ranks leaving at once with full queues to each
   * other do not wait on each other. */
  const int polls = (nleft || s->ufd >= 0) &&
                    (gexi_sock_polling() || pthread_mutex_trylock(&s->poll_lock) == 0);
  const int drain = nleft && polls;
  /* The lanes' BYEs and what was queued before them, acknowledged (and
   * what waited for a lane to drain before going over TCP, written). */
  if (s->ufd >= 0 && polls) gexi_sock_lane_exit(deadline, lane_write_more);
  for (unsigned i = 0; i < nleft; i++)
    pf[i] = (struct pollfd){s->peers[left[i]].fd, (short)(POLLOUT | (drain ? POLLIN : 0)), 0};
  char sink[4096];
  while (nleft) {
    uint64_t now = gexi_sock_now();
    if (now >= deadline) break;
    int ms = (int)((deadline - now + 999999) / 1000000);
    if (poll(pf, nleft, ms) < 0 && errno != EINTR) break;
    for (unsigned i = 0; i < nleft; i++) {
      struct sock_peer *p = &s->peers[left[i]];
      if (pf[i].revents & POLLIN) {
        ssize_t r;
        while ((r = recv(p->fd, sink, sizeof sink, MSG_DONTWAIT)) > 0) {
        }
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
          pf[i].events &= (short)~POLLIN; /* its end: nothing more to read */
      }
      int more = 1;
      if ((pf[i].revents & (POLLOUT | POLLERR | POLLHUP | POLLNVAL)) &&
          tx_lock_until(p, deadline)) {
        more = exit_write(p);
        gexi_sock_tx_unlock(p);
      }
      if (!more) { /* done: the last entry takes its place, and is looked at next */
        nleft--;
        left[i] = left[nleft];
        pf[i] = pf[nleft];
        i--;
      }
    }
  }
  if (s->ufd >= 0 && gexi_ctx.env.test_lane_drop) /* (tests: the drops were recovered) */
    fprintf(stderr,
            "libgex: rank %u: UDP lane: %llu pieces dropped on purpose, %llu sent again, "
            "%llu lanes moved to TCP for bulk\n",
            (unsigned)gexi_ctx.rank,
            (unsigned long long)atomic_load_explicit(&s->lane_dropped, memory_order_relaxed),
            (unsigned long long)atomic_load_explicit(&s->lane_resent, memory_order_relaxed),
            (unsigned long long)atomic_load_explicit(&s->lane_cuts, memory_order_relaxed));
  /* (poll_lock, if taken here, stays taken: the process is ending) */
  free(left);
  free(pf);
}

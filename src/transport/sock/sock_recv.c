/* transport/sock/sock_recv.c -- the poll: connections being admitted, and
 * the frames of admitted ones, each checked before anything is done with it.
 *
 * One thread polls at a time (poll_lock, taken with trylock: a thread that
 * finds it taken has nothing to do that the holder will not do).  A handler
 * run by the poll may poll again on its own thread (a nested poll): that one
 * leaves alone the connection whose frame is being handled (its 'busy'), so
 * the frame stays where it is until the handler returns.
 *
 * Connected peers are read directly (a recv each) while there are few of
 * them; the epoll set, which holds every descriptor, is asked every
 * SOCK_CTL_EVERY polls, at every poll while handshakes are in flight or
 * when there are many connections, and by block().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/sock/sock.h"

static inline struct gexi_sock *S(void) { return gexi_sock_ctx(); }

#define SOCK_DIRECT_PEERS 8
#define SOCK_CTL_EVERY 16

static _Thread_local int poll_depth;
int gexi_sock_polling(void) { return poll_depth > 0; }


void gexi_sock_attach(gex_Rank_t j, int fd) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  const int lane = gexi_sock_is_lane(j); /* a lane's stream goes on over it (sock_lane.c, "Bulk") */
  if (!p->rx) {
    p->rx = aligned_alloc(64, SOCK_RX_MIN);
    if (!p->rx) gexi_fatal("out of memory");
    p->rx_cap = SOCK_RX_MIN;
  }
  if (!lane) p->rx_have = p->rx_off = 0;
  int one = 1; /* frames leave when written (no Nagle delay), on both ends */
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  /* GEX_SOCK_SNDBUF; unset or 0: the kernel's autotuning (left alone). */
  if (gexi_ctx.env.sock_sndbuf > 0) {
    int v = (int)gexi_ctx.env.sock_sndbuf;
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
  }
  gexi_sock_rewatch(fd, SOCK_EV_UP, j, EPOLLIN); /* (watched as a handshake until now) */
  s->up[s->nup++] = j;
  if (lane) { /* its senders switch under its lock; its queue is counted already */
    gexi_sock_tx_lock(p);
    p->fd = fd;
    gexi_sock_tx_unlock(p);
    return;
  }
  p->fd = fd;
  gexi_sock_tx_start(j);
}

/* j's connection ended or broke (under poll_lock). */
static void conn_end(gex_Rank_t j, const char *why) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  for (unsigned i = 0; i < s->nup; i++)
    if (s->up[i] == j) {
      s->up[i] = s->up[--s->nup];
      break;
    }
  if (p->fd >= 0) gexi_sock_unwatch(p->fd);
  gexi_sock_tx_lock(p);
  atomic_store_explicit(&p->state, SOCK_CLOSED, memory_order_release);
  gexi_sock_q_drop(p);
  gexi_sock_tx_unlock(p);
  if (gexi_sock_is_lane(j)) gexi_sock_lane_drop(j);
  /* The descriptor stays open (a sender may still hold its number): it is
   * closed with the process. */
  if (!p->bye && why) gexi_sock_peer_gone(j, 1, why);
}

/* A frame that fails a check: the stream cannot be trusted past it. */
static void bad_frame(gex_Rank_t j, const char *why) {
  gexi_sock_refuse("closed the connection of rank %u: a malformed frame (%s)", (unsigned)j, why);
  struct sock_peer *p = &S()->peers[j];
  p->bye = 1; /* reported here; its absence is reported if it is needed */
  conn_end(j, NULL);
  p->bye = 0;
}

/* A Put from j landed: counted toward the ACK of its counter ('cookie'),
 * which goes when the poll ends, or sooner when SOCK_ACKS_MAX counters
 * wait. */
static void put_landed(gex_Rank_t j, uint64_t cookie) {
  if (!cookie) return;
  struct gexi_sock *s = S();
  if (s->nacks && s->ack_peer == j && s->acks[s->nacks - 1].cookie == cookie) {
    s->acks[s->nacks - 1].count++;
    return;
  }
  if (s->nacks && (s->ack_peer != j || s->nacks == SOCK_ACKS_MAX)) gexi_sock_ack_flush();
  s->ack_peer = j;
  s->acks[s->nacks++] = (struct sock_ack){cookie, 1};
}

/* The end of a frame whose data was read into place. */
static void direct_done(gex_Rank_t j, int what) {
  struct sock_peer *p = &S()->peers[j];
  struct sock_direct *d = &p->d;
  switch (d->type) {
    case SOCK_F_PUT: put_landed(j, d->r.cookie); break;
    case SOCK_F_GETREP: gexi_sock_rma_done(d->r.cookie, 1); break;
    default: /* a Long: its payload is in place */
      gexi_sock_am_recv(j, &d->h, NULL, what);
      break;
  }
}

/* Check a frame's header: NULL, with *fixed set to the length of its
 * body's fixed part (an AM's: of its header with 'body' given, else of a
 * header without arguments), or the reason it is malformed. */
static const char *frame_check(const struct sock_frame *f, const char *body, size_t *fixed) {
  if (f->len & 7) return "length not a multiple of 8";
  switch (f->type) {
    case SOCK_F_AM: {
      if (f->len < SOCK_AM_HDR_LEN(0)) return "AM shorter than its header";
      *fixed = SOCK_AM_HDR_LEN(0);
      if (body) {
        const struct gexi_am_hdr *h = (const void *)body;
        if (h->nargs > GEXI_AM_MAX_ARGS) return "nargs";
        *fixed = SOCK_AM_HDR_LEN(h->nargs);
      }
      return NULL;
    }
    case SOCK_F_PUT:
    case SOCK_F_GETREP:
      if (f->len < sizeof(struct sock_rma)) return "RMA frame shorter than its header";
      *fixed = sizeof(struct sock_rma);
      return NULL;
    case SOCK_F_GET:
      if (f->len != sizeof(struct sock_rma)) return "Get of the wrong length";
      *fixed = sizeof(struct sock_rma);
      return NULL;
    case SOCK_F_PUTW:
      if (f->len != sizeof(struct sock_putw)) return "one-word Put of the wrong length";
      *fixed = f->len;
      return NULL;
    case SOCK_F_ACK:
      if (!f->len || f->len % sizeof(struct sock_ack) ||
          f->len > SOCK_ACKS_MAX * sizeof(struct sock_ack))
        return "ACK of the wrong length";
      *fixed = f->len;
      return NULL;
    case SOCK_F_CREDIT:
    case SOCK_F_BYE:
      if (f->len) return "CREDIT/BYE with a body";
      *fixed = 0;
      return NULL;
    default: return "unknown frame type";
  }
}

/* Handle the frame at p->rx + p->rx_off, of which 'have' bytes are in the
 * buffer (at least its header and fixed part).  Returns the bytes consumed
 * from the buffer, 0 if the frame must wait for more, or (size_t)-1 if the
 * connection was closed. */
static size_t frame(gex_Rank_t j, size_t have, int what) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  char *at = p->rx + p->rx_off;
  struct sock_frame f;
  memcpy(&f, at, sizeof f);
  char *body = at + sizeof f;
  size_t fixed = 0;
  const char *bad = frame_check(&f, NULL, &fixed);
  if (!bad && have < sizeof f + fixed) return 0;
  if (!bad) bad = frame_check(&f, body, &fixed); /* the AM's real header length */
  if (!bad && have < sizeof f + fixed) return 0;
  if (!bad && f.len < fixed) bad = "AM shorter than its arguments";
  if (bad) {
    bad_frame(j, bad);
    return (size_t)-1;
  }
  size_t whole = sizeof f + f.len;
  size_t dlen = f.len - fixed; /* data and padding */
  int in_buf = whole <= SOCK_WHOLE_MAX;
  if (in_buf && have < whole) return 0;
  /* From here on the frame is taken (never looked at again from its start). */
  if (f.credit && (bad = gexi_sock_take_credit(j, f.credit))) {
    bad_frame(j, bad);
    return (size_t)-1;
  }
  switch (f.type) {
    case SOCK_F_AM: {
      struct gexi_am_hdr h;
      memset(&h, 0, sizeof h);
      memcpy(&h, body, fixed < sizeof h ? fixed : sizeof h);
      h.src = j; /* who sent it is the connection's rank, never a field */
      size_t carried = gexi_am_carried(&h);
      if ((bad = gexi_up_check_frame(&h)) || (bad = gexi_up_check_handler(&h)) ||
          (SOCK_ROUND8(carried) != dlen && (bad = "length (not the header's payload)"))) {
        bad_frame(j, bad);
        return (size_t)-1;
      }
      /* A Request's bytes are owed back to its sender from now on. */
      if (h.is_req)
        atomic_fetch_add_explicit(&p->owed, (uint32_t)gexi_sock_frame_cost(whole),
                                  memory_order_relaxed);
      if (in_buf) {
        char *payload = body + fixed;
        if (h.category == GEXI_AM_LONG && carried) {
          memcpy((void *)(uintptr_t)h.dest, payload, carried);
          payload = NULL;
        }
        p->busy = 1;
        gexi_sock_am_recv(j, &h, payload, what);
        p->busy = 0;
        return whole;
      }
      /* A Long too big for the buffer: into its destination. */
      p->d.type = SOCK_F_AM;
      p->d.h = h;
      p->d.dst = (char *)(uintptr_t)h.dest;
      p->d.left = carried;
      p->d.pad = dlen - carried;
      break;
    }
    case SOCK_F_PUT:
    case SOCK_F_GETREP:
    case SOCK_F_GET: {
      struct sock_rma r;
      memcpy(&r, body, sizeof r);
      char *dst;
      if (f.type == SOCK_F_GETREP) {
        dst = (char *)(uintptr_t)r.dest; /* ours, carried back */
        if (SOCK_ROUND8(r.len) != dlen) bad = "Get reply of the wrong length";
      } else {
        dst = gexi_sock_region(r.key, r.addr, r.len, &bad);
        if (!bad && f.type == SOCK_F_PUT && SOCK_ROUND8(r.len) != dlen)
          bad = "Put of the wrong length";
      }
      if (bad) {
        bad_frame(j, bad);
        return (size_t)-1;
      }
      if (f.type == SOCK_F_GET) {
        p->busy = 1;
        gexi_sock_get_serve(j, &r, dst);
        p->busy = 0;
        return whole;
      }
      p->d.type = f.type;
      p->d.r = r;
      p->d.dst = dst;
      p->d.left = r.len;
      p->d.pad = dlen - r.len;
      if (in_buf) {
        if (r.len) memcpy(dst, body + fixed, r.len);
        p->d.left = p->d.pad = 0;
        p->busy = 1;
        direct_done(j, what);
        p->busy = 0;
        return whole;
      }
      break;
    }
    case SOCK_F_ACK: {
      for (size_t off = 0; off < f.len; off += sizeof(struct sock_ack)) {
        struct sock_ack a;
        memcpy(&a, body + off, sizeof a);
        gexi_sock_rma_done(a.cookie, a.count);
      }
      return whole;
    }
    case SOCK_F_PUTW: { /* into our bound segment, checked like any Put */
      struct sock_putw w;
      memcpy(&w, body, sizeof w);
      char *dst = gexi_sock_region(s->peers[gexi_ctx.rank].seg_key, w.addr, sizeof w.data, &bad);
      if (bad) {
        bad_frame(j, bad);
        return (size_t)-1;
      }
      memcpy(dst, &w.data, sizeof w.data);
      p->busy = 1;
      put_landed(j, w.cookie);
      p->busy = 0;
      return whole;
    }
    case SOCK_F_BYE: p->bye = 1; return whole;
    default: return whole; /* CREDIT: the header did it */
  }
  /* Direct: what the buffer holds of the data goes now, the rest is read
   * into place by conn_read. */
  size_t in = have - sizeof f - fixed;
  size_t take = in < p->d.left ? in : p->d.left;
  if (take) memcpy(p->d.dst, body + fixed, take);
  p->d.dst += take;
  p->d.left -= take;
  in -= take;
  size_t skip = in < p->d.pad ? in : p->d.pad;
  p->d.pad -= skip;
  if (!p->d.left && !p->d.pad) { /* it was all in the buffer after all */
    p->busy = 1;
    direct_done(j, what);
    p->busy = 0;
  }
  return sizeof f + fixed + take + skip;
}

/* The bytes the frame at p->rx_off needs in the buffer before it can be
 * handled: the whole frame if it is received whole, else its header and
 * fixed part (at most a few hundred bytes), or a header while it has none. */
static size_t rx_need(const struct sock_peer *p) {
  size_t have = p->rx_have - p->rx_off;
  if (have < sizeof(struct sock_frame)) return sizeof(struct sock_frame);
  struct sock_frame f;
  memcpy(&f, p->rx + p->rx_off, sizeof f);
  size_t whole = sizeof f + (size_t)f.len;
  return whole <= SOCK_WHOLE_MAX ? whole : sizeof f + SOCK_AM_HDR_LEN(GEXI_AM_MAX_ARGS);
}

/* Before a recv into p's buffer: what is left of it moved to its start
 * when the room after it runs short, and the buffer grown (by doubling,
 * up to SOCK_RX_BUF) when the frame there needs more than it holds or the
 * last recv filled it.  Frames received whole are at most half of
 * SOCK_RX_BUF, so a full-size buffer needs no more than the move. */
static void rx_room(struct sock_peer *p) {
  if (p->rx_off == p->rx_have) p->rx_off = p->rx_have = 0;
  size_t need = rx_need(p);
  if (p->rx_off && (p->rx_cap - p->rx_have < p->rx_cap / 2 || p->rx_off + need > p->rx_cap)) {
    memmove(p->rx, p->rx + p->rx_off, p->rx_have - p->rx_off);
    p->rx_have -= p->rx_off;
    p->rx_off = 0;
  }
  if (need <= p->rx_cap && !p->rx_grow) return;
  size_t cap = p->rx_cap * 2;
  while (cap < need) cap *= 2;
  if (cap > SOCK_RX_BUF) cap = SOCK_RX_BUF;
  char *n = aligned_alloc(64, cap);
  if (!n) gexi_fatal("out of memory");
  memcpy(n, p->rx, p->rx_have);
  free(p->rx);
  p->rx = n;
  p->rx_cap = (uint32_t)cap;
  p->rx_grow = 0;
}

/* A frame whose data was being read into place is complete: handled. */
static int direct_if_done(gex_Rank_t j, struct sock_peer *p, int what) {
  if (p->d.left || p->d.pad) return 0;
  p->busy = 1;
  direct_done(j, what);
  p->busy = 0;
  return 1;
}

/* Handle the complete frames in p's buffer (until one whose data comes
 * next, straight into place): how many, or -1 if the stream was closed. */
static int rx_frames(gex_Rank_t j, struct sock_peer *p, int what) {
  int n = 0;
  while (p->rx_have - p->rx_off >= sizeof(struct sock_frame)) {
    size_t used = frame(j, p->rx_have - p->rx_off, what);
    if (used == (size_t)-1) return -1;
    if (!used) break;
    p->rx_off += used;
    n++;
    if (p->d.left || p->d.pad) break; /* the rest of its data comes next */
  }
  return n;
}

/* Read what j's connection has and handle every complete frame.  Returns
 * the frames handled plus the reads that moved part of a frame's data (so
 * non-zero when anything arrived). */
static int conn_read_frames(gex_Rank_t j, int what);
static int conn_read(gex_Rank_t j, int what) {
  int n = conn_read_frames(j, what);
  struct sock_peer *p = &S()->peers[j];
  if (n && !p->touched) { /* its ACKs and credit are looked at by this poll */
    p->touched = 1;
    S()->touched[S()->ntouched++] = j;
  }
  return n;
}

static int conn_read_frames(gex_Rank_t j, int what) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  if (p->busy || atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP) return 0;
  int n = 0;
  for (int round = 0; round < 4; round++) {
    ssize_t r;
    if (p->d.left || p->d.pad) {
      if (p->d.left) {
        r = recv(p->fd, p->d.dst, p->d.left, MSG_DONTWAIT);
        if (r > 0) {
          p->d.dst += r;
          p->d.left -= (size_t)r;
        }
      } else {
        char tmp[8];
        r = recv(p->fd, tmp, p->d.pad, MSG_DONTWAIT);
        if (r > 0) p->d.pad -= (size_t)r;
      }
      /* Part of a frame's data is progress too: a poll that moved some
       * must not count as empty, or a receiver yields and sleeps in the
       * middle of a stream (its waits treat an empty poll as idle). */
      if (r > 0) {
        (void)direct_if_done(j, p, what);
        n++;
        continue;
      }
    } else {
      rx_room(p);
      size_t room = p->rx_cap - p->rx_have;
      r = recv(p->fd, p->rx + p->rx_have, room, MSG_DONTWAIT);
      if (r > 0) {
        if ((size_t)r == room && p->rx_cap < SOCK_RX_BUF) p->rx_grow = 1; /* a busy peer */
        p->rx_have += (size_t)r;
        int k = rx_frames(j, p, what);
        if (k < 0) return n;
        n += k;
        if ((size_t)r < p->rx_cap / 2) break; /* drained for now */
        continue;
      }
    }
    if (r == 0) {
      conn_end(j, "it closed its connection");
      return n;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
    conn_end(j, strerror(errno));
    return n;
  }
  return n;
}

int gexi_sock_rx_feed(gex_Rank_t j, const char *data, size_t len, int what) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  int n = 0;
  /* No part of a frame waits: the frames are handled where they are (the
   * piece starts a frame, so it is as aligned as 'data'), and only what
   * is left of the last one is copied to j's buffer below.  A peer whose
   * frames never straddle two pieces has no buffer at all. */
  if (p->rx_off == p->rx_have && !p->d.left && !p->d.pad && len >= sizeof(struct sock_frame)) {
    char *own = p->rx;
    uint32_t own_cap = p->rx_cap;
    p->rx = (char *)(uintptr_t)data;
    p->rx_cap = (uint32_t)len;
    p->rx_off = 0;
    p->rx_have = len;
    int k = rx_frames(j, p, what);
    size_t used = p->rx_off;
    p->rx = own;
    p->rx_cap = own_cap;
    p->rx_off = p->rx_have = 0;
    if (k < 0) return -1;
    n += k;
    data += used;
    len -= used;
    if (atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP) return n;
  }
  if (len && !p->rx) {
    p->rx = aligned_alloc(64, SOCK_RX_MIN);
    if (!p->rx) gexi_fatal("out of memory");
    p->rx_cap = SOCK_RX_MIN;
  }
  while (len) {
    if (p->d.left || p->d.pad) { /* a frame's data, straight into its destination */
      size_t t = len < p->d.left ? len : p->d.left;
      if (t) memcpy(p->d.dst, data, t);
      p->d.dst += t;
      p->d.left -= t;
      data += t;
      len -= t;
      size_t k = len < p->d.pad ? len : p->d.pad;
      p->d.pad -= k;
      data += k;
      len -= k;
      n += direct_if_done(j, p, what);
      continue;
    }
    rx_room(p);
    size_t room = p->rx_cap - p->rx_have, take = len < room ? len : room;
    memcpy(p->rx + p->rx_have, data, take);
    if (take == room && p->rx_cap < SOCK_RX_BUF) p->rx_grow = 1;
    p->rx_have += take;
    data += take;
    len -= take;
    int k = rx_frames(j, p, what);
    if (k < 0) return -1;
    n += k;
    if (atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_UP) return n; /* closed meanwhile */
  }
  if (n && !p->touched) {
    p->touched = 1;
    s->touched[s->ntouched++] = j;
  }
  return n;
}

/* The epoll set: new connections, handshakes, and connections with data
 * when they are not read directly.  'timeout_ms' as epoll_wait's. */
static int ctl_poll(int what, int timeout_ms) {
  struct gexi_sock *s = S();
  struct epoll_event ev[32];
  int k = epoll_wait(s->epfd, ev, 32, timeout_ms);
  int n = 0;
  for (int i = 0; i < k; i++) {
    uint32_t kind = (uint32_t)(ev[i].data.u64 >> 32), idx = (uint32_t)ev[i].data.u64;
    switch (kind) {
      case SOCK_EV_LISTEN: gexi_sock_accept(); break;
      case SOCK_EV_PENDING: gexi_sock_pending_io(idx); break;
      case SOCK_EV_CONNECT: gexi_sock_connect_io(idx); break;
      case SOCK_EV_UP:
        if (s->nup > SOCK_DIRECT_PEERS || timeout_ms) n += conn_read(idx, what);
        break;
      case SOCK_EV_LANE:
        if (timeout_ms) n += gexi_sock_lane_poll(what);
        break;
    }
  }
  if (s->npending || s->ntrying) {
    uint64_t now = gexi_sock_now();
    if (s->npending) gexi_sock_pending_expire(now);
    if (s->ntrying) gexi_sock_connect_timers(now);
  }
  return n;
}

int gexi_sock_poll(int what) {
  struct gexi_sock *s = S();
  int nested = poll_depth > 0;
  if (!nested && pthread_mutex_trylock(&s->poll_lock) != 0) {
    /* The keeper's turn is short: it is waited for.  Another thread
     * polls (or sleeps in block()): what this one batched must not wait
     * for it. */
    if (GEXI_UNLIKELY(atomic_load_explicit(&s->keeper_in, memory_order_relaxed))) {
      pthread_mutex_lock(&s->poll_lock);
    } else {
      if (atomic_load_explicit(&s->nqueued, memory_order_relaxed)) gexi_sock_flush_any();
      return 0;
    }
  }
  poll_depth++;
  atomic_store_explicit(&s->poll_gen, atomic_load_explicit(&s->poll_gen, memory_order_relaxed) + 1,
                        memory_order_relaxed);
  int n = 0;
  if (what == GEXI_POLL_ALL && s->ndef) n += gexi_sock_run_deferred();
  /* Bytes written count as progress, as bytes read do (conn_read). */
  if (atomic_load_explicit(&s->nqueued, memory_order_relaxed)) n += gexi_sock_flush_all();
  if (s->nup <= SOCK_DIRECT_PEERS)
    for (unsigned i = 0; i < s->nup; i++) n += conn_read(s->up[i], what);
  if (s->ufd >= 0) {
    n += gexi_sock_lane_poll(what);
    if (atomic_load_explicit(&s->lane_tcp_wanted, memory_order_acquire)) gexi_sock_lane_connect();
  }
  if (++s->poll_count % SOCK_CTL_EVERY == 0 || s->npending || s->ntrying ||
      s->nup > SOCK_DIRECT_PEERS)
    n += ctl_poll(what, 0);
  /* ACKs and credit owed to the peers whose frames this poll read (only
   * those can owe any: a thousand idle connections cost nothing here). */
  while (s->ntouched) {
    gex_Rank_t j = s->touched[--s->ntouched];
    s->peers[j].touched = 0;
    if (atomic_load_explicit(&s->peers[j].state, memory_order_acquire) != SOCK_UP) continue;
    if (s->nacks && s->ack_peer == j) gexi_sock_ack_flush();
    gexi_sock_return_credit(j);
  }
  s->nacks = 0; /* (a peer whose connection ended gets none) */
  /* What the handlers just sent (Replies, mostly) leaves before we go on. */
  if (atomic_load_explicit(&s->nqueued, memory_order_relaxed)) n += gexi_sock_flush_all();
  if (s->ufd >= 0) gexi_sock_lane_tick();
  poll_depth--;
  if (!nested) pthread_mutex_unlock(&s->poll_lock);
  return n;
}

/* Sleep until a connection has something for this process or timeout_us
 * passes; at once when bytes wait to be written (their progress is not
 * something the read set would wake for) or another thread polls.
 * Returns whether it slept (0: returned at once). */
int gexi_sock_block(int timeout_us) {
  struct gexi_sock *s = S();
  if (atomic_load_explicit(&s->nqueued, memory_order_relaxed) || poll_depth) return 0;
  if (pthread_mutex_trylock(&s->poll_lock) != 0) return 0;
  poll_depth++;
  int ms = timeout_us < 1000 ? 1 : timeout_us / 1000;
  /* The lane's socket is in the epoll set only while this thread sleeps:
   * a socket in the set costs every datagram that reaches it the kernel's
   * epoll callback (a lock taken in the sender's sendto), and every
   * epoll_wait a look at it -- 0.5 us of an 8-byte round trip of 6.5.
   * Adding it reports a datagram already waiting, so none is missed. */
  if (s->ufd >= 0) {
    ms = gexi_sock_lane_timeout(ms);
    gexi_sock_watch(s->ufd, SOCK_EV_LANE, 0);
  }
  (void)ctl_poll(GEXI_POLL_ALL, ms);
  if (s->ufd >= 0) gexi_sock_unwatch(s->ufd);
  if (s->ufd >= 0) gexi_sock_lane_tick();
  poll_depth--;
  pthread_mutex_unlock(&s->poll_lock);
  return 1;
}

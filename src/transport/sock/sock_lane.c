/* transport/sock/sock_lane.c -- the UDP lane (GEX_SOCK_UDP; sock.h, "the
 * UDP lane"; docs/network.md).
 *
 * A peer's stream (the same frames, in the same order, as over a TCP
 * connection) is cut into pieces, one per datagram, sent to its UDP port
 * without any connection.  Reliability is the lane's own:
 *
 *   - every piece has a sequence number (from 1, per direction); the
 *     receiver takes only the next one it expects (a later one is dropped:
 *     the sender sends it again), so the stream stays in order;
 *   - every datagram carries the sender's cumulative acknowledgement of the
 *     other direction; a rank that received pieces and sent nothing back by
 *     the end of its poll sends an acknowledgement alone;
 *   - what is not acknowledged within the retransmission timeout (from
 *     the smoothed round trip, doubled at each timeout) is sent again:
 *     the oldest piece at the timeout, then the next at each
 *     acknowledgement that moves the oldest on, up to what was in flight
 *     at the timeout (the receiver took nothing after a lost piece:
 *     go-back-N, clocked by the acknowledgements, so that a rank whose
 *     receive buffer overflowed with a thousand peers' pieces is not sent
 *     a thousand windows at once); a window of SOCK_LANE_SLOTS datagrams
 *     and SOCK_LANE_WINDOW bytes bounds what is in flight, the rest waits
 *     in the peer's queue as for a full TCP send buffer;
 *   - Bulk: a frame longer than SOCK_LANE_BULK ends the lane: it and every
 *     frame after it wait in the queue while a TCP connection is made (the
 *     usual handshake), and go over it once every piece of the lane has
 *     been acknowledged; so the receiver has handled the lane's last byte
 *     before the connection's first.  The peer, attaching the connection,
 *     moves its own direction over to it the same way.
 *   - a peer that acknowledges nothing for GEX_SOCK_CONNECT_TIMEOUT seconds
 *     while pieces are in flight is reported unreachable (the launcher's
 *     verdict decides, as for a connection that breaks).
 *
 * The keeper: what the kernel does for a TCP connection while its
 * process is busy elsewhere, a thread of the process does for the lane
 * (sock_keeper.c).  When no thread has polled for a while, it takes what
 * arrived: acknowledgements, and pieces, which it acknowledges and keeps
 * in order in the stash, where the next poll handles them first; it
 * sends the acknowledgements owed and retransmits what timed out.  So a
 * rank may compute for as long as it likes after a wait: its peers'
 * pieces are acknowledged and its own are sent again if lost, and a wait
 * that completes does not wait for acknowledgements.  Any datagram of a
 * peer's with a valid MAC shows that it lives; only a peer silent for
 * GEX_SOCK_CONNECT_TIMEOUT while pieces wait for it is reported.
 *
 * Strangers: a datagram is used only if it has the lane's size and magic,
 * names this rank and a rank of the job that has a lane, comes from that
 * rank's published address and UDP port, and its MAC under the job's key
 * checks; a replay is an old sequence number (acknowledged, not used).
 * Anything else is dropped and counted (gexi_sock_refuse): one recvfrom
 * and one MAC is all a stranger's datagram costs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/sock/sock.h"

static inline struct gexi_sock *S(void) { return gexi_sock_ctx(); }

/* The fields read outside their lock (monotonic, or a hint). */
#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define ST(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/* Arm l's retransmission at 'at' (under its peer's tx_lock); the
 * process's earliest comes down to it if it is earlier. */
static void rto_arm(struct sock_lane *l, uint64_t at) {
  ST(l->rto_at, at);
  _Atomic uint64_t *next = &gexi_sock_ctx()->lane_next_rto;
  uint64_t cur = LD(*next);
  while (at < cur && !atomic_compare_exchange_weak_explicit(next, &cur, at, memory_order_relaxed,
                                                            memory_order_relaxed)) {
  }
}

/* Datagrams read by one poll, at most (the rest waits for the next). */
#define SOCK_LANE_BURST 64

uint16_t gexi_sock_lane_open(void) {
  struct gexi_sock *s = S();
  s->ufd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s->ufd < 0) gexi_fatal("network (sock): UDP socket: %s", strerror(errno));
  struct sockaddr_in a = s->me;
  a.sin_port = 0;
  socklen_t al = sizeof a;
  if (bind(s->ufd, (struct sockaddr *)&a, sizeof a) != 0 ||
      getsockname(s->ufd, (struct sockaddr *)&a, &al) != 0)
    gexi_fatal("network (sock): cannot bind a UDP socket to %s: %s", inet_ntoa(s->me.sin_addr),
               strerror(errno));
  /* Room for bursts from many peers (the kernel caps it at net.core.rmem_max). */
  int rb = 4 << 20;
  (void)setsockopt(s->ufd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof rb);
  atomic_store_explicit(&s->lane_next_rto, UINT64_MAX, memory_order_relaxed);
  s->lane_owed_due = UINT64_MAX;
  return a.sin_port;
}

/* j's lane, made at first use by whichever thread gets there first. */
static struct sock_lane *lane_of(gex_Rank_t j) {
  struct gexi_sock *s = S();
  struct sock_lane *l = __atomic_load_n(&s->lane[j], __ATOMIC_ACQUIRE);
  if (GEXI_LIKELY(l != NULL)) return l;
  struct sock_lane *n = calloc(1, sizeof *n);
  if (!n) gexi_fatal("out of memory");
  n->snd_next = n->snd_una = 1;
  atomic_init(&n->rcv_next, 1);
  n->cut = UINT64_MAX;
  uint64_t hint = LD(s->lane_rto_hint); /* (the other lanes' latest: the host's load shows in it) */
  n->rto_ns = hint ? hint : SOCK_LANE_RTO_INIT_NS;
  if (!__atomic_compare_exchange_n(&s->lane[j], &l, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    free(n);
    return l;
  }
  unsigned i = atomic_fetch_add_explicit(&s->nlane_act, 1, memory_order_acq_rel);
  __atomic_store_n(&s->lane_act[i], j, __ATOMIC_RELEASE);
  return n;
}

void gexi_sock_lane_touch(gex_Rank_t j) { (void)lane_of(j); }

void gexi_sock_lane_cut(gex_Rank_t j) {
  struct sock_lane *l = lane_of(j);
  if (l->cut != UINT64_MAX) return;
  l->cut = atomic_load_explicit(&S()->peers[j].tx_queued, memory_order_relaxed);
  atomic_fetch_add_explicit(&S()->lane_cuts, 1, memory_order_relaxed);
  atomic_store_explicit(&l->want_tcp, 1, memory_order_relaxed);
  atomic_store_explicit(&S()->lane_tcp_wanted, 1, memory_order_release);
}

int gexi_sock_lane_drained(gex_Rank_t j) {
  struct sock_lane *l = __atomic_load_n(&S()->lane[j], __ATOMIC_ACQUIRE);
  return !l || l->snd_una == l->snd_next;
}

void gexi_sock_lane_connect(void) {
  struct gexi_sock *s = S();
  atomic_store_explicit(&s->lane_tcp_wanted, 0, memory_order_relaxed);
  unsigned nl = atomic_load_explicit(&s->nlane_act, memory_order_acquire);
  for (unsigned i = 0; i < nl; i++) {
    gex_Rank_t j = __atomic_load_n(&s->lane_act[i], __ATOMIC_ACQUIRE);
    if (j == UINT32_MAX) continue;
    struct sock_lane *l = s->lane[j];
    struct sock_peer *p = &s->peers[j];
    if (!atomic_load_explicit(&l->want_tcp, memory_order_relaxed)) continue;
    atomic_store_explicit(&l->want_tcp, 0, memory_order_relaxed);
    if (p->fd < 0 && p->cfd < 0 && !p->cstep &&
        atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_UP)
      gexi_sock_connect(j);
  }
}

static inline size_t piece_max(gex_Rank_t j) {
  const struct sock_peer *p = &S()->peers[j];
  uint32_t a = p->addr.sin_addr.s_addr;
  int host = a == S()->me.sin_addr.s_addr || (ntohl(a) >> 24) == 127;
  return host ? SOCK_LANE_PIECE_HOST : SOCK_LANE_PIECE_NET;
}

static uint64_t dg_mac(struct sock_dg *h) {
  uint64_t m = h->mac;
  h->mac = 0;
  uint64_t t = gexi_siphash24(&S()->key, h, sizeof *h + h->len);
  h->mac = m;
  return t;
}

/* What dg_send sends: a piece for the first time, an acknowledgement
 * owed at the end of a poll (these two are what GEX_TEST_LANE_DROP
 * loses), or anything else (a piece again, the answer to a BYE). */
enum { DG_FIRST = 1, DG_OWED_ACK = 2, DG_OTHER = 0 };

/* Send datagram dg (header and piece) to j, its ack and MAC brought up to
 * date; a datagram the kernel refuses is as one lost. */
static void dg_send(gex_Rank_t j, struct sock_lane *l, struct sock_dg *h, int kind) {
  struct gexi_sock *s = S();
  uint64_t ack = LD(l->rcv_next); /* (it only grows: a stale one is harmless) */
  h->ack = ack;
  h->mac = dg_mac(h);
  /* GEX_TEST_LANE_DROP=N: every Nth piece is lost on its first sending,
   * and every Nth acknowledgement sent alone (counted together), as if
   * the network lost them: sent as far as this rank can tell. */
  if (GEXI_UNLIKELY(gexi_ctx.env.test_lane_drop) && kind != DG_OTHER &&
      atomic_fetch_add_explicit(&s->lane_sent, 1, memory_order_relaxed) % gexi_ctx.env.test_lane_drop ==
          gexi_ctx.env.test_lane_drop - 1) {
    atomic_fetch_add_explicit(&s->lane_dropped, 1, memory_order_relaxed);
  } else {
    struct sockaddr_in to = s->peers[j].addr;
    to.sin_port = s->uport[j];
    /* A datagram the kernel refused carried no acknowledgement either. */
    if (sendto(s->ufd, h, sizeof *h + h->len, MSG_DONTWAIT | MSG_NOSIGNAL,
               (struct sockaddr *)&to, sizeof to) < 0)
      return;
  }
  uint64_t prev = atomic_load_explicit(&l->ack_sent, memory_order_relaxed);
  while (prev < ack && !atomic_compare_exchange_weak_explicit(&l->ack_sent, &prev, ack,
                                                              memory_order_relaxed,
                                                              memory_order_relaxed)) {
  }
}

ssize_t gexi_sock_lane_write(gex_Rank_t j, const struct iovec *iov, int n) {
  struct sock_lane *l = lane_of(j);
  const size_t pmax = piece_max(j);
  size_t taken = 0, off = 0;
  /* Bytes from the cut on wait for the TCP connection. */
  uint64_t at = atomic_load_explicit(&S()->peers[j].tx_written, memory_order_relaxed);
  size_t room = l->cut == UINT64_MAX ? SIZE_MAX : (size_t)(l->cut - at);
  int k = 0;
  while (k < n && !iov[k].iov_len) k++;
  while (k < n) {
    if (taken == room) break;
    if (l->snd_next - l->snd_una >= SOCK_LANE_SLOTS || l->inflight >= SOCK_LANE_WINDOW) {
      /* A stream that keeps the window full of bytes goes on over TCP
       * (its bytes cost a MAC each here, and a TCP connection moves them
       * faster).  A window counts once, however many writes find it
       * full, and the next only once all of it is acknowledged: a burst
       * of a few thousand AM Shorts (what a benchmark's warm-up sends) is
       * a few windows, and the lane keeps its shorter round trip for the
       * exchanges after it. */
      if (l->inflight >= SOCK_LANE_WINDOW && l->snd_una >= l->full_next) {
        l->full_next = l->snd_next;
        if (++l->full == SOCK_LANE_FULL_CUT && l->cut == UINT64_MAX) gexi_sock_lane_cut(j);
      }
      break;
    }
    size_t piece = 0; /* gather the next piece from the iovecs */
    for (int i = k; i < n && piece < pmax; i++)
      piece += (i == k ? iov[i].iov_len - off : iov[i].iov_len);
    if (piece > pmax) piece = pmax;
    if (piece > room - taken) piece = room - taken;
    struct sock_dg *h = malloc(sizeof *h + piece);
    if (!h) gexi_fatal("out of memory");
    char *d = (char *)(h + 1);
    for (size_t got = 0; got < piece;) {
      size_t t = iov[k].iov_len - off;
      if (t > piece - got) t = piece - got;
      memcpy(d + got, (const char *)iov[k].iov_base + off, t);
      got += t;
      off += t;
      if (off == iov[k].iov_len) {
        off = 0;
        for (k++; k < n && !iov[k].iov_len; k++) {
        }
      }
    }
    memset(h, 0, sizeof *h);
    h->magic = SOCK_DG_MAGIC;
    h->from = gexi_ctx.rank;
    h->to = j;
    h->seq = l->snd_next;
    h->len = (uint32_t)piece;
    uint64_t now = gexi_sock_now();
    struct sock_lane_slot *sl = &l->slot[l->snd_next % SOCK_LANE_SLOTS];
    sl->dg = (char *)h;
    sl->len = (uint32_t)piece;
    sl->resent = 0;
    sl->sent_at = now;
    if (l->snd_una == l->snd_next) { /* the first in flight */
      rto_arm(l, now + l->rto_ns);
      l->stalled_since = now;
      atomic_fetch_add_explicit(&S()->lane_busy, 1, memory_order_relaxed);
    }
    l->snd_next++;
    l->inflight += piece;
    taken += piece;
    dg_send(j, l, h, DG_FIRST);
  }
  if (!taken) {
    errno = EAGAIN;
    return -1;
  }
  return (ssize_t)taken;
}

static void resend(gex_Rank_t j, struct sock_lane *l, uint64_t q, uint64_t now);
static void tick(int keeper);
static void recover_from(gex_Rank_t j, struct sock_lane *l, uint64_t now);

/* Under poll_lock: j acknowledged every piece below 'ack' ('alone': in a
 * datagram with no piece).  0, or why the acknowledgement cannot be (more
 * than was sent). */
static const char *acked(gex_Rank_t j, struct sock_lane *l, uint64_t ack, int alone) {
  struct sock_peer *p = &S()->peers[j];
  gexi_sock_tx_lock(p);
  if (ack > l->snd_next) {
    gexi_sock_tx_unlock(p);
    return "acknowledges what was never sent";
  }
  if (ack <= l->snd_una && l->snd_una != l->snd_next) {
    uint64_t now = gexi_sock_now();
    l->stalled_since = now; /* (nothing new, but j lives: the keeper's stash may be full) */
    /* Fast retransmission: an acknowledgement sent alone that moves
     * nothing says that a piece came out of its turn (the one expected
     * was lost) or came twice; what is in flight goes again, as after a
     * timeout but without waiting for it (and without doubling it). */
    if (alone && ack == l->snd_una && !l->recover) recover_from(j, l, now);
  }
  if (ack > l->snd_una) {
    uint64_t now = gexi_sock_now();
    for (; l->snd_una < ack; l->snd_una++) {
      struct sock_lane_slot *sl = &l->slot[l->snd_una % SOCK_LANE_SLOTS];
      if (!sl->resent) { /* a round-trip sample (RFC 6298's smoothing) */
        uint64_t r = now - sl->sent_at;
        if (!l->srtt_ns) {
          l->srtt_ns = r;
          l->rttvar_ns = r / 2;
        } else {
          uint64_t dev = r > l->srtt_ns ? r - l->srtt_ns : l->srtt_ns - r;
          l->rttvar_ns = (3 * l->rttvar_ns + dev) / 4;
          l->srtt_ns = (7 * l->srtt_ns + r) / 8;
        }
        uint64_t rto = l->srtt_ns + 4 * l->rttvar_ns;
        l->rto_ns = rto < SOCK_LANE_RTO_MIN_NS   ? SOCK_LANE_RTO_MIN_NS
                    : rto > SOCK_LANE_RTO_MAX_NS ? SOCK_LANE_RTO_MAX_NS
                                                 : rto;
        ST(S()->lane_rto_hint, l->rto_ns);
      }
      free(sl->dg);
      sl->dg = NULL;
      l->inflight -= sl->len;
    }
    l->stalled_since = now;
    if (l->snd_una == l->snd_next) {
      ST(l->rto_at, 0);
      l->recover = 0;
      atomic_fetch_sub_explicit(&S()->lane_busy, 1, memory_order_release);
    } else {
      if (l->recover && l->snd_una < l->recover) /* (recovering: the next goes again) */
        resend(j, l, l->snd_una, now);
      else
        l->recover = 0;
      rto_arm(l, now + l->rto_ns);
    }
  }
  gexi_sock_tx_unlock(p);
  return NULL;
}

/* 'again': j sent a piece it already had acknowledged (its sender did not
 * get the acknowledgement): one goes even if the same was sent before. */
static void owe_ack(gex_Rank_t j, struct sock_lane *l, int again) {
  struct gexi_sock *s = S();
  if (again) {
    l->ack_again = 1;
    s->lane_owed_scan = 1;
  }
  if (!l->owed_listed) { /* a single piece: it may wait (SOCK_LANE_ACK_DELAY_NS) */
    l->owed_listed = 1;
    l->owed_at = gexi_sock_now();
    if (l->owed_at + SOCK_LANE_ACK_DELAY_NS < s->lane_owed_due)
      s->lane_owed_due = l->owed_at + SOCK_LANE_ACK_DELAY_NS;
    s->lane_owed[s->nlane_owed++] = j;
  } else {
    s->lane_owed_scan = 1; /* (perhaps a second piece: it may not) */
  }
}

/* One datagram's checks (see the file's comment): 0, or why it is dropped. */
static const char *dg_check(const struct sock_dg *h, size_t got, const struct sockaddr_in *src) {
  struct gexi_sock *s = S();
  if (got < sizeof *h) return "shorter than the header";
  if (h->magic != SOCK_DG_MAGIC) return "not a datagram of libgex's lane";
  if (h->len != got - sizeof *h) return "length";
  if (h->to != gexi_ctx.rank) return "addressed to another rank";
  if (h->from >= gexi_ctx.size || h->from == gexi_ctx.rank || !s->uport[h->from])
    return "from no rank with a lane";
  const struct sock_peer *p = &s->peers[h->from];
  if (src->sin_addr.s_addr != p->addr.sin_addr.s_addr || src->sin_port != s->uport[h->from])
    return "not from the address of the rank it names";
  if (dg_mac((struct sock_dg *)(uintptr_t)h) != h->mac) return "MAC";
  return NULL;
}

/* Piece h (its seq the next of j's, acknowledged or owed) is handled:
 * its frames go to the handlers.  How many frames ran (at least 1). */
static int take(gex_Rank_t j, struct sock_lane *l, const struct sock_dg *h, int what) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  s->lane_feeding = 1;
  int k = gexi_sock_rx_feed(j, (const char *)(h + 1), h->len, what);
  s->lane_feeding = 0;
  if (k >= 0 && p->bye) { /* nothing follows a BYE: it is acknowledged now, and j is gone */
    struct sock_dg a = {.magic = SOCK_DG_MAGIC, .from = gexi_ctx.rank, .to = j};
    dg_send(j, l, &a, DG_OTHER);
    gexi_sock_tx_lock(p);
    atomic_store_explicit(&p->state, SOCK_CLOSED, memory_order_release);
    gexi_sock_q_drop(p);
    gexi_sock_tx_unlock(p);
    gexi_sock_lane_drop(j);
  }
  return k > 0 ? k : 1;
}

/* The stash's pieces, in order, until one's peer is busy (its frame is
 * being handled: the rest wait for a later poll). */
static int stash_feed(int what) {
  struct gexi_sock *s = S();
  int n = 0;
  struct sock_stash *e;
  while ((e = s->stash) != NULL) {
    const struct sock_dg *h = (const struct sock_dg *)(const void *)(e + 1);
    gex_Rank_t j = h->from;
    struct sock_peer *p = &s->peers[j];
    if (p->busy) break;
    s->stash = e->next;
    if (!s->stash) s->stash_end = &s->stash;
    s->stash_bytes -= e->len;
    struct sock_lane *l = s->lane[j];
    l->stashed--;
    if (atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_UP) n += take(j, l, h, what);
    free(e);
  }
  return n;
}

/* The next datagram of the socket, into lane_rx (under poll_lock): -1
 * when none waits (lane_unread cleared), 0 when it is dropped (reported
 * when it fails a check), 1 when it is a peer's: its acknowledgement taken,
 * its rank in *j and its lane in *l, its length in *len. */
static int dg_next(gex_Rank_t *j, struct sock_lane **l, size_t *len) {
  struct gexi_sock *s = S();
  struct sockaddr_in src;
  socklen_t sl = sizeof src;
  ssize_t r = recvfrom(s->ufd, s->lane_rx, sizeof(struct sock_dg) + 65536, MSG_DONTWAIT,
                       (struct sockaddr *)&src, &sl);
  if (r < 0) {
    s->lane_unread = 0;
    return -1;
  }
  const struct sock_dg *h = (const struct sock_dg *)(const void *)s->lane_rx;
  const char *bad = dg_check(h, (size_t)r, &src);
  if (bad) {
    gexi_sock_refuse("dropped a datagram from %s:%u (%s)", inet_ntoa(src.sin_addr),
                     (unsigned)ntohs(src.sin_port), bad);
    return 0;
  }
  *j = h->from;
  if (atomic_load_explicit(&s->peers[*j].state, memory_order_acquire) != SOCK_UP) return 0;
  *l = lane_of(*j);
  if (h->ack && (bad = acked(*j, *l, h->ack, !h->seq))) {
    gexi_sock_refuse("dropped a datagram of rank %u (%s)", (unsigned)*j, bad);
    return 0;
  }
  *len = (size_t)r;
  return 1;
}

int gexi_sock_lane_poll(int what) {
  struct gexi_sock *s = S();
  int n = 0;
  /* A poll nested in a handler that a piece's frame runs reads nothing:
   * the piece is still being fed from the receive buffer. */
  if (s->lane_feeding) return 0;
  if (GEXI_UNLIKELY(s->stash != NULL)) n += stash_feed(what);
  s->lane_unread = 1;
  for (int b = 0; b < SOCK_LANE_BURST; b++) {
    gex_Rank_t j;
    struct sock_lane *l;
    size_t len;
    int got = dg_next(&j, &l, &len);
    if (got < 0) break;
    const struct sock_dg *h = (const struct sock_dg *)(const void *)s->lane_rx;
    if (!got || !h->seq) continue;
    struct sock_peer *p = &s->peers[j];
    /* Old (a replay, or resent), or not yet its turn (its peer is busy,
     * or pieces of it wait in the stash): it comes again. */
    if (h->seq != LD(l->rcv_next) || p->busy || l->stashed) {
      owe_ack(j, l, 1);
      continue;
    }
    ST(l->rcv_next, h->seq + 1);
    owe_ack(j, l, 0);
    n += take(j, l, h, what);
  }
  return n;
}

int gexi_sock_lane_service(void) {
  struct gexi_sock *s = S();
  int n = 0;
  /* (bounded, so that a flood does not keep the lock from the program) */
  s->lane_unread = 1;
  for (int b = 0; b < 4 * SOCK_LANE_BURST; b++) {
    gex_Rank_t j;
    struct sock_lane *l;
    size_t r;
    int got = dg_next(&j, &l, &r);
    if (got < 0) break;
    n++;
    const struct sock_dg *h = (const struct sock_dg *)(const void *)s->lane_rx;
    if (!got || !h->seq) continue;
    if (h->seq != LD(l->rcv_next) || s->stash_bytes + r > SOCK_LANE_STASH_MAX) {
      owe_ack(j, l, 1); /* (an old one; or no room: it comes again) */
      continue;
    }
    struct sock_stash *e = malloc(sizeof *e + r);
    if (!e) {
      owe_ack(j, l, 1);
      continue;
    }
    e->next = NULL;
    e->len = r;
    memcpy(e + 1, h, r);
    if (!s->stash) s->stash_end = &s->stash;
    *s->stash_end = e;
    s->stash_end = &e->next;
    s->stash_bytes += r;
    l->stashed++;
    ST(l->rcv_next, h->seq + 1);
    owe_ack(j, l, 0);
  }
  tick(1);
  return n;
}

/* Under j's tx_lock: piece q goes again. */
static void resend(gex_Rank_t j, struct sock_lane *l, uint64_t q, uint64_t now) {
  struct sock_lane_slot *sl = &l->slot[q % SOCK_LANE_SLOTS];
  sl->sent_at = now;
  atomic_fetch_add_explicit(&S()->lane_resent, 1, memory_order_relaxed);
  dg_send(j, l, (struct sock_dg *)(void *)sl->dg, DG_OTHER);
}

/* Under j's tx_lock: the oldest piece goes again and the rest follow as
 * it is acknowledged (acked).  No piece in flight gives a round-trip
 * sample any more (Karn). */
static void recover_from(gex_Rank_t j, struct sock_lane *l, uint64_t now) {
  for (uint64_t q = l->snd_una; q < l->snd_next; q++) l->slot[q % SOCK_LANE_SLOTS].resent = 1;
  l->recover = l->snd_next;
  resend(j, l, l->snd_una, now);
  rto_arm(l, now + l->rto_ns);
}

/* Under j's tx_lock, its retransmission due: recovery, and the timeout
 * doubles. */
static void rto_fire(gex_Rank_t j, struct sock_lane *l, uint64_t now) {
  l->rto_ns = l->rto_ns * 2 > SOCK_LANE_RTO_MAX_NS ? SOCK_LANE_RTO_MAX_NS : l->rto_ns * 2;
  recover_from(j, l, now);
}

/* Acknowledgements no datagram has carried since the pieces came: sent,
 * or (a single piece, for less than SOCK_LANE_ACK_DELAY_NS, unless 'all')
 * kept for a datagram that may carry them. */
static void owed_acks(uint64_t now, int all) {
  struct gexi_sock *s = S();
  unsigned kept = 0;
  s->lane_owed_scan = 0;
  s->lane_owed_due = UINT64_MAX;
  for (unsigned i = 0; i < s->nlane_owed; i++) {
    gex_Rank_t j = s->lane_owed[i];
    struct sock_lane *l = s->lane[j];
    uint64_t sent = LD(l->ack_sent), next = LD(l->rcv_next);
    if (sent >= next && !l->ack_again) {
      l->owed_listed = 0;
      continue;
    }
    if (!all && !l->ack_again && next - sent < 2 && now - l->owed_at < SOCK_LANE_ACK_DELAY_NS) {
      s->lane_owed[kept++] = j;
      if (l->owed_at + SOCK_LANE_ACK_DELAY_NS < s->lane_owed_due)
        s->lane_owed_due = l->owed_at + SOCK_LANE_ACK_DELAY_NS;
      continue;
    }
    l->owed_listed = 0;
    l->ack_again = 0;
    struct sock_dg a = {.magic = SOCK_DG_MAGIC, .from = gexi_ctx.rank, .to = j};
    dg_send(j, l, &a, DG_OWED_ACK);
  }
  s->nlane_owed = kept;
}

/* 'keeper': called by the keeper, for a rank away from the library: every
 * acknowledgement owed goes, and no peer is reported (the program's own
 * waits decide that). */
static void tick(int keeper) {
  struct gexi_sock *s = S();
  uint64_t now = s->nlane_owed || atomic_load_explicit(&s->lane_busy, memory_order_relaxed)
                     ? gexi_sock_now()
                     : 0;
  if (s->nlane_owed && (keeper || s->lane_owed_scan || now >= s->lane_owed_due)) owed_acks(now, keeper);
  /* Nothing times out while datagrams wait unread: their acknowledgements
   * may be there (a rank that waited long for a core finds hundreds). */
  if (!atomic_load_explicit(&s->lane_busy, memory_order_relaxed) || s->lane_unread) return;
  /* Timeouts: the lanes are looked at once the earliest may be due; the
   * scan sets the earliest of those still armed. */
  if (now < LD(s->lane_next_rto)) return;
  ST(s->lane_next_rto, UINT64_MAX);
  unsigned nl = atomic_load_explicit(&s->nlane_act, memory_order_acquire);
  for (unsigned i = 0; i < nl; i++) {
    gex_Rank_t j = __atomic_load_n(&s->lane_act[i], __ATOMIC_ACQUIRE);
    if (j == UINT32_MAX) continue;
    struct sock_lane *l = s->lane[j];
    struct sock_peer *p = &s->peers[j];
    uint64_t at = LD(l->rto_at);
    if (!at) continue;
    if (now < at || !gexi_sock_tx_trylock(p)) { /* later, or looked at by the next scan */
      rto_arm(l, now < at ? at : now);
      continue;
    }
    int gone = 0;
    if (LD(l->rto_at) && now >= LD(l->rto_at)) {
      gone = !keeper && now - l->stalled_since > s->connect_budget_ns;
      if (!gone) rto_fire(j, l, now);
    }
    gexi_sock_tx_unlock(p);
    if (gone) {
      char why[96];
      snprintf(why, sizeof why, "it acknowledged nothing for %llu s",
               (unsigned long long)(s->connect_budget_ns / 1000000000ull));
      gexi_sock_tx_lock(p);
      atomic_store_explicit(&p->state, SOCK_CLOSED, memory_order_release);
      gexi_sock_q_drop(p);
      gexi_sock_tx_unlock(p);
      gexi_sock_lane_drop(j);
      gexi_sock_peer_gone(j, 1, why);
    }
  }
  /* Lanes made during the scan: their retransmissions count too. */
  unsigned nl2 = atomic_load_explicit(&s->nlane_act, memory_order_acquire);
  for (unsigned i = nl; i < nl2; i++) {
    gex_Rank_t j = __atomic_load_n(&s->lane_act[i], __ATOMIC_ACQUIRE);
    if (j != UINT32_MAX && LD(s->lane[j]->rto_at)) rto_arm(s->lane[j], LD(s->lane[j]->rto_at));
  }
}

void gexi_sock_lane_tick(void) { tick(0); }

int gexi_sock_lane_timeout(int ms) {
  struct gexi_sock *s = S();
  if (s->nlane_owed && (ms < 0 || ms > 1)) ms = 1; /* (an acknowledgement kept: SOCK_LANE_ACK_DELAY_NS) */
  if (!atomic_load_explicit(&s->lane_busy, memory_order_relaxed)) return ms;
  uint64_t now = gexi_sock_now(), first = LD(s->lane_next_rto);
  if (first == UINT64_MAX) return ms;
  if (first <= now) return 0;
  uint64_t w = (first - now + 999999) / 1000000;
  return ms >= 0 && (uint64_t)ms < w ? ms : (int)w;
}

void gexi_sock_lane_drop(gex_Rank_t j) {
  struct gexi_sock *s = S();
  struct sock_lane *l = __atomic_load_n(&s->lane[j], __ATOMIC_ACQUIRE);
  if (!l) return;
  struct sock_peer *p = &s->peers[j];
  gexi_sock_tx_lock(p);
  if (l->snd_una != l->snd_next) atomic_fetch_sub_explicit(&s->lane_busy, 1, memory_order_release);
  for (; l->snd_una < l->snd_next; l->snd_una++) {
    struct sock_lane_slot *sl = &l->slot[l->snd_una % SOCK_LANE_SLOTS];
    free(sl->dg);
    sl->dg = NULL;
  }
  l->inflight = 0;
  ST(l->rto_at, 0);
  gexi_sock_tx_unlock(p);
}

/* Whether anything of a lane is in flight or waits for the window. */
static int lane_busy(void) {
  struct gexi_sock *s = S();
  unsigned nl = atomic_load_explicit(&s->nlane_act, memory_order_acquire);
  for (unsigned i = 0; i < nl; i++) {
    gex_Rank_t j = __atomic_load_n(&s->lane_act[i], __ATOMIC_ACQUIRE);
    if (j == UINT32_MAX) continue;
    struct sock_lane *l = s->lane[j];
    struct sock_peer *p = &s->peers[j];
    if (!gexi_sock_tx_trylock(p)) return 1; /* (its holder is busy with it) */
    int busy = l->snd_una != l->snd_next || p->qn;
    gexi_sock_tx_unlock(p);
    if (busy) return 1;
  }
  return 0;
}

void gexi_sock_lane_exit(uint64_t deadline, int (*write_more)(gex_Rank_t j)) {
  struct gexi_sock *s = S();
  owed_acks(gexi_sock_now(), 1); /* (the peers' exits wait for them) */
  while (lane_busy()) {
    uint64_t now = gexi_sock_now();
    if (now >= deadline) break;
    /* What arrives: acknowledgements are taken, pieces acknowledged and
     * dropped (this rank handles no more frames). */
    struct sockaddr_in src;
    socklen_t sl = sizeof src;
    ssize_t r = recvfrom(s->ufd, s->lane_rx, sizeof(struct sock_dg) + 65536, MSG_DONTWAIT,
                         (struct sockaddr *)&src, &sl);
    if (r >= 0) {
      struct sock_dg *h = (struct sock_dg *)(void *)s->lane_rx;
      if (dg_check(h, (size_t)r, &src)) continue;
      struct sock_lane *l = lane_of(h->from);
      if (h->ack) (void)acked(h->from, l, h->ack, !h->seq);
      if (h->seq && h->seq == LD(l->rcv_next)) ST(l->rcv_next, h->seq + 1);
      if (h->seq) {
        struct sock_dg a = {.magic = SOCK_DG_MAGIC, .from = gexi_ctx.rank, .to = h->from};
        dg_send(h->from, l, &a, DG_OTHER);
      }
      continue;
    }
    /* Pieces that waited for the window go as it opens; timeouts. */
    unsigned nl = atomic_load_explicit(&s->nlane_act, memory_order_acquire);
    for (unsigned i = 0; i < nl; i++) {
      gex_Rank_t j = __atomic_load_n(&s->lane_act[i], __ATOMIC_ACQUIRE);
      if (j == UINT32_MAX) continue;
      struct sock_lane *l = s->lane[j];
      (void)write_more(j); /* (under its lock: nothing when its queue is empty) */
      if (!LD(l->rto_at) || now < LD(l->rto_at) || !gexi_sock_tx_trylock(&s->peers[j])) continue;
      rto_fire(j, l, now);
      gexi_sock_tx_unlock(&s->peers[j]);
    }
    /* Until a datagram comes or the next timeout. */
    struct pollfd pf = {s->ufd, POLLIN, 0};
    (void)poll(&pf, 1, gexi_sock_lane_timeout((int)((deadline - now + 999999) / 1000000)));
  }
}

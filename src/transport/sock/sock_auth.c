/* transport/sock/sock_auth.c -- admission of connections (docs/security.md).
 *
 * Every rank of a job knows its secret K (a SipHash-2-4 key drawn by the
 * launcher, handed to the ranks over the bootstrap channel only).  The rank
 * that connects (C) and the listener (L) exchange four fixed-size messages
 * (struct sock_hs) before anything else is read from the connection:
 *
 *   C -> L  HELLO      C, L, nC                  (fresh random nonce)
 *   L -> C  CHALLENGE  nC, nL, MAC_K(resp, L, C, nC, nL)
 *           C checks it: L knows K (nC is fresh)
 *   C -> L  PROOF      MAC_K(init, C, L, nC, nL)
 *           L checks it: C knows K (nL is fresh), and the connection comes
 *           from the address C published
 *   L -> C  ACCEPT     MAC_K(ok, L, C, nC, nL)   or REFUSE (see below)
 *
 * Until the PROOF checks, L keeps for the connection only a slot of
 * SOCK_PENDING_MAX (sock.h) and reads at most 64 bytes at a time from it;
 * a message that does not check closes it at once.  Captured traffic is
 * useless to a stranger: every MAC covers a nonce of the checking side.
 *
 * Two ranks may connect to each other at once.  The connection made by the
 * lower rank is kept: L refuses C's connection when L has its own attempt
 * to C in flight and L < C; otherwise L accepts it and drops its own
 * attempt.  C uses its connection only after ACCEPT, so nothing is ever
 * sent on a connection that is then dropped; a refused C waits for L's.
 * All of this runs under poll_lock, and nothing of it blocks: the TCP
 * connection is made by a non-blocking connect() that the poll completes,
 * so a rank keeps serving its listener, its peers and its handshakes
 * while its own connections are being made.
 *
 * The connecting socket is bound to the rank's published address (the
 * listener checks it) with IP_BIND_ADDRESS_NO_PORT: the port is chosen by
 * connect() for the destination, so connections to different peers may
 * share a port and a rank's connections never exhaust the host's
 * ephemeral ports (bound first, each held a port of its own: 256 ranks
 * talking all-to-all on one host needed more than the 28,232 there are).
 *
 * Who makes room.  The table of connections not yet authenticated is
 * shared by job members and strangers, who may come from the same
 * address.  A job member sends its HELLO as soon as its connection is
 * made, and it is read in the poll that accepts the connection.  So the
 * table holds at most SOCK_PENDING_MAX connections that have not sent a
 * valid HELLO (a new one closes the oldest of them), and at most one that
 * has, per rank it claims (a newer HELLO claiming the same rank closes the
 * older: a rank makes one attempt at a time).  Job members' connections
 * never make room for each other, and a stranger's cost stays bounded:
 * SOCK_PENDING_MAX descriptors, plus one per rank of the job for HELLOs
 * copied from the job's own.  A job member whose connection is closed
 * anyway retries (sock.h, SOCK_RETRY_*).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sec/handshake.h"
#include "sec/random.h"
#include "transport/sock/sock.h"

static inline struct gexi_sock *S(void) { return gexi_sock_ctx(); }

void gexi_sock_auth_init(int one_host) {
  gexi_net_job_key(&S()->key, one_host);
  gexi_keygen_init(&S()->nonces);
}

/* A fresh nonce: unpredictable to anyone without this process's keygen
 * key, never the same twice in the process. */
static void nonce(unsigned char n[16]) {
  uint64_t v[2] = {gexi_keygen_next(&S()->nonces), gexi_keygen_next(&S()->nonces)};
  memcpy(n, v, 16);
}

enum { LBL_RESP = 0x70736572736b6f73ULL, LBL_INIT = 0x74696e69736b6f73ULL,
       LBL_OK = 0x5f6b6f5f736b6f73ULL, LBL_NO = 0x5f6f6e5f736b6f73ULL };

static uint64_t hs_mac(uint64_t label, uint32_t a, uint32_t b, const unsigned char nc[16],
                       const unsigned char nl[16]) {
  return gexi_hs_mac(&S()->key, label, a, b, nc, nl);
}

/* Send one handshake message on a connection whose send buffer holds
 * nothing else (64 bytes always fit): 0, or -1 if it did not go. */
static int hs_send(int fd, int step, uint32_t from, uint32_t to, const unsigned char nc[16],
                   const unsigned char nl[16], uint64_t mac) {
  struct sock_hs m;
  memset(&m, 0, sizeof m);
  m.magic = SOCK_HS_MAGIC;
  m.step = (uint32_t)step;
  m.from = from;
  m.to = to;
  memcpy(m.nonce_c, nc, 16);
  if (nl) memcpy(m.nonce_l, nl, 16);
  m.mac = mac;
  return send(fd, &m, sizeof m, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof m ? 0 : -1;
}

/* Read what is missing of one 64-byte message: 1 complete, 0 not yet, -1
 * closed or failed. */
static int hs_read(int fd, struct sock_hs *m, unsigned *got) {
  ssize_t r = recv(fd, (char *)m + *got, sizeof *m - *got, MSG_DONTWAIT);
  if (r == 0) return -1;
  if (r < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
  *got += (unsigned)r;
  return *got == sizeof *m;
}

/* Stop watching and close *fd (-1 after), one fewer in *count. */
static void fd_drop(int *fd, unsigned *count) {
  gexi_sock_unwatch(*fd);
  close(*fd);
  *fd = -1;
  (*count)--;
}

/* Close our attempt's connection to j (under poll_lock); the attempt
 * itself stays in 'trying' until it is retried, succeeds or gives up. */
static void connect_drop(gex_Rank_t j) {
  fd_drop(&S()->peers[j].cfd, &S()->nconnecting);
}

/* j leaves the list of peers being connected to (under poll_lock). */
static void trying_remove(gex_Rank_t j) {
  struct gexi_sock *s = S();
  for (unsigned i = 0; i < s->ntrying; i++)
    if (s->trying[i] == j) {
      s->trying[i] = s->trying[--s->ntrying];
      return;
    }
}

/* Our attempts to connect to j are over: it is connected, or gone.  Its
 * place among the SOCK_CONNECT_WINDOW goes to an attempt queued, which the
 * next poll's timers start (gexi_sock_connect_timers). */
static void attempt_end(gex_Rank_t j) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  if (p->cstep && p->cstep != SOCK_CS_QUEUED) s->nactive--;
  p->cstep = 0;
  trying_remove(j);
}

/* Our attempt to connect to j failed (its connection closed, if it had
 * one): try again after the backoff, or report j unreachable once the
 * budget is spent. */
static void connect_retry(gex_Rank_t j, const char *why) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  if (p->cfd >= 0) connect_drop(j);
  uint64_t now = gexi_sock_now();
  if (now >= p->conn_deadline) {
    attempt_end(j);
    char msg[200];
    snprintf(msg, sizeof msg, "no connection within %llu s (the last attempt: %s)",
             (unsigned long long)(s->connect_budget_ns / 1000000000ull), why);
    gexi_sock_peer_gone(j, 1, msg);
    return;
  }
  uint64_t wait = p->tries < 40 ? SOCK_RETRY_FIRST_NS << (p->tries < 7 ? p->tries : 7) : 0;
  if (wait == 0 || wait > SOCK_RETRY_MAX_NS) wait = SOCK_RETRY_MAX_NS;
  uint32_t r = (uint32_t)gexi_keygen_next(&s->nonces);
  wait += (wait / 2) * r / UINT32_MAX; /* ranks that failed together retry apart */
  p->tries++;
  p->cstep = SOCK_CS_BACKOFF;
  p->retry_at = now + wait;
}


/* ---- the listener's side ------------------------------------------------------ */
/* Slot i's connection leaves the table (its descriptor closed unless
 * 'keep': then it stays watched, for gexi_sock_attach to take over): the
 * counts and the claim it held are given back. */
static void pending_end(unsigned i, int keep) {
  struct gexi_sock *s = S();
  struct sock_pending *q = &s->pend[i];
  if (q->step == SOCK_HS_HELLO) s->nhello--;
  else if (s->claim[q->from] == i + 1) s->claim[q->from] = 0;
  if (keep) {
    q->fd = -1;
    s->npending--;
  } else {
    fd_drop(&q->fd, &s->npending);
  }
}
static void pending_close(unsigned i) { pending_end(i, 0); }

static void pending_refuse(unsigned i, const char *why) {
  struct gexi_sock *s = S();
  char ip[INET_ADDRSTRLEN] = "?";
  struct sockaddr_in a;
  socklen_t al = sizeof a;
  if (getpeername(s->pend[i].fd, (struct sockaddr *)&a, &al) == 0)
    inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
  gexi_sock_refuse("refused a connection from %s: %s", ip, why);
  pending_close(i);
}

void gexi_sock_accept(void) {
  struct gexi_sock *s = S();
  for (int n = 0; n < SOCK_ACCEPT_BURST; n++) {
    int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE)
        gexi_sock_refuse("cannot accept a connection: %s", strerror(errno));
      return;
    }
    if (s->nhello >= SOCK_PENDING_MAX) { /* the oldest that has said nothing valid goes */
      unsigned v = s->npend_cap;
      for (unsigned i = 0; i < s->npend_cap; i++)
        if (s->pend[i].fd >= 0 && s->pend[i].step == SOCK_HS_HELLO &&
            (v == s->npend_cap || s->pend[i].serial < s->pend[v].serial))
          v = i;
      pending_refuse(v, "too many connections without a hello (the oldest is closed)");
    }
    /* A free slot exists: at most SOCK_PENDING_MAX without a hello, at
     * most one per rank with one. */
    unsigned slot = 0;
    while (s->pend[slot].fd >= 0) slot++;
    struct sock_pending *q = &s->pend[slot];
    memset(q, 0, sizeof *q);
    q->fd = fd;
    q->step = SOCK_HS_HELLO;
    q->serial = ++s->accept_serial;
    q->deadline = gexi_sock_now() + SOCK_PENDING_NS;
    s->npending++;
    s->nhello++;
    gexi_sock_watch(fd, SOCK_EV_PENDING, slot);
    /* A job member's HELLO is usually here already: read it now, so that
     * its connection leaves the step strangers are evicted from. */
    gexi_sock_pending_io(slot);
  }
}

void gexi_sock_pending_expire(uint64_t now) {
  struct gexi_sock *s = S();
  if (now < s->next_expire) return; /* looked at every 10 ms */
  s->next_expire = now + SOCK_PENDING_NS / 1000;
  for (unsigned i = 0; i < s->npend_cap; i++)
    if (s->pend[i].fd >= 0 && now > s->pend[i].deadline)
      pending_refuse(i, "no handshake within 10 s");
}

/* The connection of slot i proved to be rank 'from': keep it or refuse it. */
static void pending_admit(unsigned i) {
  struct gexi_sock *s = S();
  struct sock_pending *q = &s->pend[i];
  gex_Rank_t me = gexi_ctx.rank, from = q->from;
  struct sock_peer *p = &s->peers[from];
  int st = atomic_load_explicit(&p->state, memory_order_acquire);
  int refuse = (st == SOCK_UP && !gexi_sock_lane_only(from)) || st == SOCK_CLOSED ||
               (p->cfd >= 0 && me < from);
  uint64_t mac = hs_mac(refuse ? LBL_NO : LBL_OK, me, from, q->nonce_c, q->nonce_l);
  if (hs_send(q->fd, refuse ? SOCK_HS_REFUSE : SOCK_HS_ACCEPT, from, me, q->nonce_c, q->nonce_l,
              mac) != 0 || refuse) {
    pending_close(i);
    return;
  }
  if (p->cfd >= 0) connect_drop(from); /* ours loses: the lower rank's connection is kept */
  if (p->cstep) attempt_end(from);      /* (in flight or in its backoff) */
  int fd = q->fd;
  pending_end(i, 1);
  gexi_sock_attach(from, fd);
}

void gexi_sock_pending_io(unsigned i) {
  struct gexi_sock *s = S();
  struct sock_pending *q = &s->pend[i];
  if (q->fd < 0) return;
  int r = hs_read(q->fd, &q->in, &q->got);
  if (r < 0) {
    pending_close(i); /* closed before the handshake ended: nothing to say */
    return;
  }
  if (r == 0) return;
  q->got = 0;
  const struct sock_hs *m = &q->in;
  gex_Rank_t me = gexi_ctx.rank;
  if (m->magic != SOCK_HS_MAGIC || m->step != (uint32_t)q->step) {
    pending_refuse(i, "not a handshake message of this transport");
    return;
  }
  if (q->step == SOCK_HS_HELLO) {
    static const unsigned char zero[16];
    if (m->pad || m->mac || memcmp(m->nonce_l, zero, 16) != 0) {
      pending_refuse(i, "a hello with fields that must be zero set");
      return;
    }
    if (m->to != me || m->from >= gexi_ctx.size || m->from == me) {
      pending_refuse(i, "a hello naming ranks that cannot connect here");
      return;
    }
    /* The connection must come from the address the claimed rank published. */
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    if (getpeername(q->fd, (struct sockaddr *)&a, &al) != 0 ||
        a.sin_addr.s_addr != s->peers[m->from].addr.sin_addr.s_addr) {
      pending_refuse(i, "a hello from an address its claimed rank does not have");
      return;
    }
    /* One handshake per claimed rank: a rank makes one attempt at a time,
     * so an older one claiming it is a stranger's or one its rank gave up. */
    if (s->claim[m->from]) pending_refuse(s->claim[m->from] - 1, "a newer hello claims its rank");
    q->from = m->from;
    memcpy(q->nonce_c, m->nonce_c, 16);
    nonce(q->nonce_l);
    if (hs_send(q->fd, SOCK_HS_CHALLENGE, q->from, me, q->nonce_c, q->nonce_l,
                hs_mac(LBL_RESP, me, q->from, q->nonce_c, q->nonce_l)) != 0) {
      pending_close(i);
      return;
    }
    q->step = SOCK_HS_PROOF;
    s->nhello--;
    s->claim[q->from] = i + 1;
    return;
  }
  /* PROOF */
  if (!gexi_tag_equal(m->mac, hs_mac(LBL_INIT, q->from, me, q->nonce_c, q->nonce_l))) {
    pending_refuse(i, "a handshake that does not prove the job's secret");
    return;
  }
  pending_admit(i);
}

/* ---- the connecting side -------------------------------------------------------- */
/* Our HELLO to j, with a fresh nonce (kept in j's entry). */
static void hello_msg(struct sock_hs *m, gex_Rank_t j) {
  struct sock_peer *p = &S()->peers[j];
  nonce(p->nonce_c);
  memset(m, 0, sizeof *m);
  m->magic = SOCK_HS_MAGIC;
  m->step = SOCK_HS_HELLO;
  m->from = gexi_ctx.rank;
  m->to = j;
  memcpy(m->nonce_c, p->nonce_c, 16);
}

/* The TCP connection is made: say HELLO and wait for the CHALLENGE. */
static void connect_hello(gex_Rank_t j) {
  struct sock_peer *p = &S()->peers[j];
  struct sock_hs m;
  hello_msg(&m, j);
  if (send(p->cfd, &m, sizeof m, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof m) {
    connect_retry(j, "the hello could not be sent");
    return;
  }
  p->cstep = SOCK_HS_CHALLENGE;
  p->cgot = 0;
  gexi_sock_rewatch(p->cfd, SOCK_EV_CONNECT, j, EPOLLIN);
}

/* One attempt: a non-blocking connect from our published address. */
static void connect_start(gex_Rank_t j) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  if (!p->conn_deadline) p->conn_deadline = gexi_sock_now() + s->connect_budget_ns;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (errno == EMFILE || errno == ENFILE)
      gexi_fatal("network (sock): cannot open a connection to rank %u: %s (the descriptor limit, "
                 "ulimit -n, is too low for the peers this rank talks to)",
                 (unsigned)j, strerror(errno));
    gexi_fatal("network (sock): socket: %s", strerror(errno));
  }
  int one = 1;
  /* The port is chosen by connect() (see the file's comment). */
  (void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
  struct sockaddr_in from = s->me;
  from.sin_port = 0; /* the listener checks the address we come from */
  if (bind(fd, (struct sockaddr *)&from, sizeof from) != 0)
    gexi_fatal("network (sock): cannot bind a connection to %s: %s", inet_ntoa(from.sin_addr),
               strerror(errno));
  p->cfd = fd;
  s->nconnecting++;
  int rc;
  do rc = connect(fd, (struct sockaddr *)&p->addr, sizeof p->addr);
  while (rc != 0 && errno == EINTR);
  if (rc != 0 && errno != EINPROGRESS) { /* refused, or no port free for it now */
    connect_retry(j, strerror(errno));
    return;
  }
  p->retry_at = gexi_sock_now() + SOCK_TCP_CONNECT_NS;
  /* Over loopback (and often on a LAN) the kernel has made the connection
   * by now: the HELLO goes at once, not a poll later. */
  struct sock_hs m;
  hello_msg(&m, j);
  if (rc == 0 || send(fd, &m, sizeof m, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof m) {
    gexi_sock_watch_for(fd, SOCK_EV_CONNECT, j, EPOLLIN);
    if (rc == 0) {
      connect_hello(j);
    } else {
      p->cstep = SOCK_HS_CHALLENGE;
      p->cgot = 0;
    }
    return;
  }
  p->cstep = SOCK_CS_TCP;
  gexi_sock_watch_for(fd, SOCK_EV_CONNECT, j, EPOLLOUT);
}

void gexi_sock_connect(gex_Rank_t j) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  s->trying[s->ntrying++] = j;
  p->tries = 0;
  if (s->nactive < SOCK_CONNECT_WINDOW) {
    s->nactive++;
    connect_start(j);
  } else {
    p->cstep = SOCK_CS_QUEUED;
  }
}

void gexi_sock_connect_timers(uint64_t now) {
  struct gexi_sock *s = S();
  for (unsigned i = 0; i < s->ntrying;) {
    gex_Rank_t j = s->trying[i];
    struct sock_peer *p = &s->peers[j];
    unsigned before = s->ntrying;
    int down = atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_DOWN ||
               gexi_sock_lane_only(j);
    if ((p->cstep == SOCK_CS_BACKOFF && now >= p->retry_at) || p->cstep == SOCK_CS_QUEUED) {
      if (!down) { /* its own connection to us came meanwhile, or it is gone */
        attempt_end(j);
      } else if (p->cstep == SOCK_CS_BACKOFF) {
        connect_start(j);
      } else if (s->nactive < SOCK_CONNECT_WINDOW) {
        s->nactive++;
        connect_start(j);
      }
    } else if (p->cstep == SOCK_CS_TCP && now >= p->retry_at) {
      connect_retry(j, "the TCP connection was not made in time");
    }
    if (s->ntrying == before) i++; /* else entry i is another peer now */
  }
}


void gexi_sock_connect_io(gex_Rank_t j) {
  struct sock_peer *p = &S()->peers[j];
  if (p->cfd < 0) return;
  if (p->cstep == SOCK_CS_TCP) {
    int err = 0;
    socklen_t el = sizeof err;
    if (getsockopt(p->cfd, SOL_SOCKET, SO_ERROR, &err, &el) != 0) err = errno;
    if (err) connect_retry(j, strerror(err));
    else connect_hello(j);
    return;
  }
  int r = hs_read(p->cfd, &p->cin, &p->cgot);
  if (r < 0) { /* the listener closed it: it made room for another, or died */
    if (atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_DOWN || gexi_sock_lane_only(j)) {
      connect_retry(j, "it closed the connection during the handshake");
    } else {
      connect_drop(j);
      attempt_end(j);
    }
    return;
  }
  if (r == 0) return;
  p->cgot = 0;
  const struct sock_hs *m = &p->cin;
  gex_Rank_t me = gexi_ctx.rank;
  int ok = m->magic == SOCK_HS_MAGIC && m->from == me && m->to == j &&
           memcmp(m->nonce_c, p->nonce_c, 16) == 0;
  if (ok && p->cstep == SOCK_HS_CHALLENGE && m->step == SOCK_HS_CHALLENGE &&
      gexi_tag_equal(m->mac, hs_mac(LBL_RESP, j, me, p->nonce_c, m->nonce_l))) {
    memcpy(p->nonce_l, m->nonce_l, 16);
    if (hs_send(p->cfd, SOCK_HS_PROOF, me, j, p->nonce_c, p->nonce_l,
                hs_mac(LBL_INIT, me, j, p->nonce_c, p->nonce_l)) != 0) {
      connect_retry(j, "the handshake could not be sent");
      return;
    }
    p->cstep = SOCK_HS_ACCEPT;
    return;
  }
  ok = ok && p->cstep == SOCK_HS_ACCEPT && memcmp(m->nonce_l, p->nonce_l, 16) == 0;
  if (ok && m->step == SOCK_HS_ACCEPT && gexi_tag_equal(m->mac, hs_mac(LBL_OK, j, me, p->nonce_c, p->nonce_l))) {
    int fd = p->cfd; /* (stays watched: gexi_sock_attach takes it over) */
    p->cfd = -1;
    S()->nconnecting--;
    attempt_end(j);
    gexi_sock_attach(j, fd);
    return;
  }
  if (ok && m->step == SOCK_HS_REFUSE && gexi_tag_equal(m->mac, hs_mac(LBL_NO, j, me, p->nonce_c, p->nonce_l))) {
    connect_drop(j); /* its own connection to us is on its way */
    attempt_end(j);
    int down = SOCK_DOWN;
    atomic_compare_exchange_strong(&p->state, &down, SOCK_WAITING);
    return;
  }
  /* The published address of rank j answered without the job's secret. */
  connect_drop(j);
  attempt_end(j);
  gexi_sock_refuse("rank %u's address answered the handshake without the job's secret", (unsigned)j);
  gexi_sock_peer_gone(j, 1, "its address does not answer as a rank of this job");
}

void gexi_sock_connect_soon(gex_Rank_t j) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  /* (cfd and cstep belong to poll_lock's holder: looked at under it only) */
  if (atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_DOWN) return;
  int nested = gexi_sock_polling();
  if (!nested && pthread_mutex_trylock(&s->poll_lock) != 0) return; /* the holder may; retried */
  if (atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_DOWN && p->cfd < 0 &&
      p->cstep == 0)
    gexi_sock_connect(j);
  if (!nested) pthread_mutex_unlock(&s->poll_lock);
}

void gexi_sock_reach(gex_Rank_t j, int what) {
  struct gexi_sock *s = S();
  struct sock_peer *p = &s->peers[j];
  int st = atomic_load_explicit(&p->state, memory_order_acquire);
  if (st == SOCK_UP || st == SOCK_WAITING) return;
  if (st == SOCK_CLOSED) gexi_sock_peer_gone(j, 1, "its connection is closed");
  int nested = gexi_sock_polling();
  if (nested || pthread_mutex_trylock(&s->poll_lock) == 0) {
    if (atomic_load_explicit(&p->state, memory_order_acquire) == SOCK_DOWN && p->cfd < 0 &&
        p->cstep == 0)
      gexi_sock_connect(j);
    int going = atomic_load_explicit(&p->state, memory_order_acquire) != SOCK_DOWN || p->cstep;
    if (!nested) pthread_mutex_unlock(&s->poll_lock);
    if (going) return;
  }
  gexi_sock_need(j, what);
}

void gexi_sock_settle(int timeout_ms) {
  uint64_t until = timeout_ms < 0 ? UINT64_MAX : gexi_sock_now() + (uint64_t)timeout_ms * 1000000ull;
  while (atomic_load_explicit(&gexi_ctx.net_unsent, memory_order_acquire) &&
         (timeout_ms < 0 || gexi_sock_now() < until)) {
    if (gexi_poll(GEXI_POLL_ALL))
      gexi_busy();
    else
      gexi_idle();
  }
}

/* Polls until j's connection is up (connecting first if nobody has). */
void gexi_sock_need(gex_Rank_t j, int what) {
  struct sock_peer *p = &S()->peers[j];
  for (;;) {
    int st = atomic_load_explicit(&p->state, memory_order_acquire);
    if (st == SOCK_UP) return;
    if (st == SOCK_CLOSED) gexi_sock_peer_gone(j, 1, "its connection is closed");
    gexi_sock_connect_soon(j);
    if (gexi_poll(what))
      gexi_busy();
    else
      gexi_idle();
  }
}

/* transport/sock/sock_init.c -- starting the sock transport: the address a
 * rank listens on, the exchange of addresses, the poll set and the
 * operations table (the process-exit hook is in sock_send.c).
 *
 * Address: the IPv4 address of GEX_SOCK_IFACE; without it, 127.0.0.1 when
 * every rank is on this host (forced network on one host), else that of
 * the first interface that is up and not a loopback one.  The listening socket is
 * bound to that address only, so a job on one host is reachable from
 * nowhere else.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include "transport/sock/sock.h"

uint64_t gexi_sock_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Lines about refused connections and bad frames: at most this many per
 * process (a stranger must not be able to fill the job's output). */
#define SOCK_REPORTS 5

void gexi_sock_refuse(const char *fmt, ...) {
  struct gexi_sock *s = gexi_sock_ctx();
  atomic_fetch_add_explicit(&s->refused, 1, memory_order_relaxed);
  unsigned n = atomic_fetch_add_explicit(&s->reported, 1, memory_order_relaxed);
  if (n >= SOCK_REPORTS || atomic_load_explicit(&s->leaving, memory_order_relaxed)) return;
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  gexi_say("network (sock): %s%s", msg,
           n + 1 == SOCK_REPORTS ? "; further ones are counted only" : "");
}

static void watch_op(int op, int fd, int kind, uint32_t idx, uint32_t events) {
  struct epoll_event ev = {.events = events, .data.u64 = ((uint64_t)kind << 32) | idx};
  if (epoll_ctl(gexi_sock_ctx()->epfd, op, fd, &ev) != 0)
    gexi_fatal("network (sock): epoll_ctl: %s", strerror(errno));
}
void gexi_sock_watch_for(int fd, int kind, uint32_t idx, uint32_t events) {
  watch_op(EPOLL_CTL_ADD, fd, kind, idx, events);
}
void gexi_sock_rewatch(int fd, int kind, uint32_t idx, uint32_t events) {
  watch_op(EPOLL_CTL_MOD, fd, kind, idx, events);
}
void gexi_sock_watch(int fd, int kind, uint32_t idx) { watch_op(EPOLL_CTL_ADD, fd, kind, idx, EPOLLIN); }

void gexi_sock_unwatch(int fd) {
  (void)epoll_ctl(gexi_sock_ctx()->epfd, EPOLL_CTL_DEL, fd, NULL);
}

/* The IPv4 address to listen on (see the file's comment). */
static struct in_addr pick_address(int one_host) {
  struct in_addr a = {htonl(INADDR_LOOPBACK)};
  const char *want = gexi_ctx.env.sock_iface;
  if (one_host && !want) return a;
  struct ifaddrs *all = NULL;
  if (getifaddrs(&all) != 0) gexi_fatal("network (sock): getifaddrs: %s", strerror(errno));
  int found = 0;
  for (struct ifaddrs *i = all; i && !found; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP)) continue;
    if (want ? strcmp(i->ifa_name, want) != 0 : (i->ifa_flags & IFF_LOOPBACK) != 0) continue;
    a = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
    found = 1;
  }
  freeifaddrs(all);
  if (!found && want)
    gexi_fatal("GEX_SOCK_IFACE='%s': no interface of that name is up with an IPv4 address", want);
  if (!found)
    gexi_fatal("gex_Client_Init: ranks on other hosts need the network, and no interface but "
               "loopback is up with an IPv4 address (GEX_SOCK_IFACE names one)");
  return a;
}

/* A rank's published address. */
struct sock_addr_rec {
  uint32_t ip; /* network order */
  uint16_t port; /* network order */
  uint16_t uport; /* its UDP port (GEX_SOCK_UDP), network order; 0: none */
};

/* Vectorised I/O, RMA into and out of the bound segment: 4096 for VIS
 * pieces and coalesced Puts, as over libfabric's software providers (every
 * operation is a message exchange here too). */
static size_t sock_vis_pack_max(void) { return 4096; }
static size_t sock_coalesce_put_max(void) { return 1024; }
/* Frames are handled in the order sent: a message after Puts arrives after
 * their bytes have landed. */
static int sock_put_ordered(void) { return 1; }
/* Every operation completes through counters (core/complete.h): the
 * transport has no events and no NBI trackers of its own. */
static int sock_nbi_test(gex_EC_t mask) {
  (void)mask;
  return 0;
}
static int sock_event_done(gex_Event_t e, int *moved) {
  (void)moved;
  gexi_fatal("gex_Event: %p is not an event of the sock transport", (void *)e);
}
static void sock_event_free(gex_Event_t e) {
  gexi_fatal("gex_Event: %p is not an event of the sock transport", (void *)e);
}
static gex_Event_t sock_event_leaf(gex_Event_t root, gex_EC_t category) {
  (void)root;
  (void)category;
  return GEX_EVENT_INVALID;
}
static void sock_region_begin(void) {}
static gex_Event_t sock_region_event(void) { return GEX_EVENT_INVALID; }

static const struct gexi_net_ops sock_ops = {
    .name = "sock",
    .poll = gexi_sock_poll,
    .block = gexi_sock_block,
    .settle = gexi_sock_settle,
    .am_send = gexi_sock_am_send,
    .am_short = gexi_sock_am_short,
    .put = gexi_sock_put,
    .get = gexi_sock_get,
    .put_nbi = gexi_sock_put_nbi,
    .nbi_test = sock_nbi_test,
    .event_done = sock_event_done,
    .event_free = sock_event_free,
    .event_leaf = sock_event_leaf,
    .region_begin = sock_region_begin,
    .region_event = sock_region_event,
    .seg_register = gexi_sock_seg_register,
    .seg_peer = gexi_sock_seg_peer,
    .vis_pack_max = sock_vis_pack_max,
    .coalesce_put_max = sock_coalesce_put_max,
    .expose = gexi_sock_expose,
    .unexpose = gexi_sock_unexpose,
    .get_exposed = gexi_sock_get_exposed,
    .put_ordered = sock_put_ordered,
    .put_exposed = gexi_sock_put_exposed,
    .rma_exposed = gexi_sock_rma_exposed,
};

/* Each connection costs a descriptor: the soft limit goes up to the hard
 * one when a job could need more than it allows. */
static void raise_fd_limit(void) {
  struct rlimit r;
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return;
  rlim_t want = (rlim_t)gexi_ctx.size * 2 + 64 + SOCK_PENDING_MAX; /* peers, handshakes */
  if (r.rlim_cur >= want + 1024 || r.rlim_cur == r.rlim_max) return;
  r.rlim_cur = r.rlim_max;
  (void)setrlimit(RLIMIT_NOFILE, &r);
}

void gexi_sock_start(int one_host) {
  struct gexi_sock *s = calloc(1, sizeof *s);
  if (!s) gexi_fatal("out of memory");
  s->lfd = s->epfd = s->ufd = -1;
  pthread_mutex_init(&s->poll_lock, NULL);
  pthread_mutex_init(&s->reg_lock, NULL);
  pthread_mutex_init(&s->qlist_lock, NULL);
  __atomic_store_n(&gexi_ctx.sock, s, __ATOMIC_RELEASE);
  raise_fd_limit();
  gexi_sock_auth_init(one_host);

  s->epfd = epoll_create1(EPOLL_CLOEXEC);
  if (s->epfd < 0) gexi_fatal("network (sock): epoll_create1: %s", strerror(errno));
  s->me.sin_family = AF_INET;
  s->me.sin_addr = pick_address(one_host);
  s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s->lfd < 0) gexi_fatal("network (sock): socket: %s", strerror(errno));
  /* Room for every rank of the job to connect at once, and more: the
   * kernel cuts it to net.core.somaxconn (4096 by default). */
  int backlog = gexi_ctx.size + 1024 < 65535 ? (int)gexi_ctx.size + 1024 : 65535;
  if (bind(s->lfd, (struct sockaddr *)&s->me, sizeof s->me) != 0 ||
      listen(s->lfd, backlog) != 0)
    gexi_fatal("network (sock): cannot listen on %s: %s", inet_ntoa(s->me.sin_addr),
               strerror(errno));
  socklen_t sl = sizeof s->me;
  if (getsockname(s->lfd, (struct sockaddr *)&s->me, &sl) != 0)
    gexi_fatal("network (sock): getsockname: %s", strerror(errno));
  gexi_sock_watch(s->lfd, SOCK_EV_LISTEN, 0);

  struct sock_addr_rec mine = {s->me.sin_addr.s_addr, s->me.sin_port,
                               gexi_ctx.env.sock_udp ? gexi_sock_lane_open() : 0};
  struct sock_addr_rec *all = calloc(gexi_ctx.size, sizeof *all);
  /* Zeroed before it is published: the exit hook may read it from another thread. */
  struct sock_peer *peers = aligned_alloc(_Alignof(struct sock_peer), gexi_ctx.size * sizeof *peers);
  if (peers) memset(peers, 0, gexi_ctx.size * sizeof *peers);
  __atomic_store_n(&s->peers, peers, __ATOMIC_RELEASE);
  s->up = calloc(gexi_ctx.size, sizeof *s->up);
  s->qlist = calloc(gexi_ctx.size, sizeof *s->qlist);
  s->qtaken = calloc(gexi_ctx.size, sizeof *s->qtaken);
  s->trying = calloc(gexi_ctx.size, sizeof *s->trying);
  s->touched = calloc(gexi_ctx.size, sizeof *s->touched);
  s->uport = calloc(gexi_ctx.size, sizeof *s->uport);
  if (!s->uport || !s->qlist || !s->qtaken) gexi_fatal("out of memory");
  if (s->ufd >= 0) {
    s->lane = calloc(gexi_ctx.size, sizeof *s->lane);
    s->lane_act = malloc(gexi_ctx.size * sizeof *s->lane_act);
    s->lane_owed = calloc(gexi_ctx.size, sizeof *s->lane_owed);
    /* The piece after the header starts 64-aligned, as a connection's
     * receive buffer does: its frames are handled in place (sock_recv.c,
     * gexi_sock_rx_feed).  Kept for the process's life. */
    char *rx = aligned_alloc(64, 64 + 65536);
    s->lane_rx = rx ? rx + 64 - sizeof(struct sock_dg) : NULL;
    if (!s->lane || !s->lane_act || !s->lane_owed || !s->lane_rx) gexi_fatal("out of memory");
    memset(s->lane_act, 0xff, gexi_ctx.size * sizeof *s->lane_act);
  }
  s->npend_cap = SOCK_PENDING_MAX + gexi_ctx.size;
  s->pend = calloc(s->npend_cap, sizeof *s->pend);
  s->claim = calloc(gexi_ctx.size, sizeof *s->claim);
  if (!s->pend || !s->claim) gexi_fatal("out of memory");
  for (unsigned i = 0; i < s->npend_cap; i++) s->pend[i].fd = -1;
  if (!all || !s->peers || !s->up || !s->trying || !s->touched) gexi_fatal("out of memory");
  s->connect_budget_ns = gexi_ctx.env.sock_connect_timeout * 1000000000ull;
  gexi_ctx.boot->allgather(gexi_ctx.boot, &mine, all, sizeof mine);
  for (gex_Rank_t j = 0; j < gexi_ctx.size; j++) {
    struct sock_peer *p = &s->peers[j];
    p->fd = p->cfd = -1;
    p->addr.sin_family = AF_INET;
    p->addr.sin_addr.s_addr = all[j].ip;
    p->addr.sin_port = all[j].port;
    atomic_init(&p->tx_lock, 0);
    /* Over the lane when both have a UDP socket: "up" from the start, with
     * no descriptor (sock_send.c writes such a stream to the lane). */
    if (s->ufd >= 0 && all[j].uport && j != gexi_ctx.rank) {
      s->uport[j] = all[j].uport;
      atomic_store_explicit(&p->state, SOCK_UP, memory_order_relaxed);
    }
  }
  free(all);
  gexi_sock_am_setup();
  s->ops = sock_ops;
  gexi_ctx.net = &s->ops;
  if (s->ufd >= 0) gexi_sock_keeper_start();
  if (gexi_ctx.env.net_verbose && gexi_ctx.rank == 0)
    fprintf(stderr, "libgex: network transport sock (%s), rank 0 listens on %s:%u, AM credit %lld "
                    "bytes per peer\n",
            s->ufd >= 0 ? "UDP lane, TCP" : "TCP", inet_ntoa(s->me.sin_addr),
            (unsigned)ntohs(s->me.sin_port), (long long)s->credit_bytes);
}

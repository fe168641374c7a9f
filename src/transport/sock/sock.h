/* transport/sock/sock.h -- libgex's own network transport over kernel TCP
 * sockets (docs/network.md, "The sock transport"; docs/security.md).
 *
 * Every rank listens on one TCP port of the address it publishes through
 * the bootstrap.  Two ranks share one connection, made by whichever wants
 * to send first (when both do at once, the one made by the lower rank is
 * kept, sock_auth.c).  A connection carries nothing but a fixed-size
 * handshake until the connecting rank has proved that it knows the job's
 * secret, bound to its rank, the listener's rank and two fresh nonces;
 * only then does the listener give it any per-peer state.  After that the
 * connection is a stream of frames (struct sock_frame), each checked before
 * use (sock_recv.c):
 *
 *   - Active Messages: the AM header truncated after its arguments, then
 *     the payload; Requests spend the sender's byte credit for that peer,
 *     returned in the header of the receiver's later frames (sock_am.c);
 *   - RMA (sock_rma.c): Put and Get are done by the target, which copies
 *     between the stream and one of its registered regions (the bound
 *     segment, or a region exposed for the collectives' rendezvous or an
 *     endpoint's segment) after checking the range; the initiator learns
 *     of completion from an ACK or the Get's reply, which count down the
 *     same counters as operations completed by AM replies (core/complete.h),
 *     so events, NBI and access regions need nothing of the transport.
 *
 * Sending writes straight into the kernel; what it does not take waits in
 * the peer's queue (sock_send.c), flushed by every poll.  Large payloads
 * are read from the stream straight into their destination.
 *
 * All state lives in one struct gexi_sock, owned by gexi_ctx.sock.  Words
 * on the wire are in the host's byte order (every rank of a job runs the
 * same libgex on the same architecture).
 */
#ifndef GEXI_SOCK_H
#define GEXI_SOCK_H

#include <netinet/in.h>
#include <pthread.h>
#include <sys/uio.h>

#include "transport/am_wire.h"
#include "core/context.h"
#include "sec/random.h"
#include "sec/siphash.h"
#include "transport/transport.h"

/* ---- the handshake (sock_auth.c) --------------------------------------------- */
#define SOCK_HS_MAGIC 0x316b636f73786567ULL /* "gexsock1" */
enum { SOCK_HS_HELLO = 1, SOCK_HS_CHALLENGE, SOCK_HS_PROOF, SOCK_HS_ACCEPT, SOCK_HS_REFUSE };
/* Every step is one message of exactly this layout (64 bytes). */
struct sock_hs {
  uint64_t magic;
  uint32_t step;
  uint32_t from, to; /* the connecting rank and the listener's */
  uint32_t pad;
  unsigned char nonce_c[16], nonce_l[16];
  uint64_t mac;
};
_Static_assert(sizeof(struct sock_hs) == 64, "struct sock_hs: 64 bytes");

/* Connections accepted that have not sent a valid HELLO: at most this
 * many at once (a new one closes the oldest); with one, at most one per
 * rank it claims (sock_auth.c, "Who makes room").  Each for at most
 * SOCK_PENDING_NS, holding one descriptor and at most 64 bytes of input. */
#define SOCK_PENDING_MAX 64
#define SOCK_PENDING_NS (10ull * 1000000000ull)
/* Connections accepted by one poll, at most (the listener stays readable,
 * so the next poll takes the rest of the backlog). */
#define SOCK_ACCEPT_BURST 64
struct sock_pending {
  int fd;         /* -1: free */
  int step;       /* SOCK_HS_HELLO: waiting for it; SOCK_HS_PROOF: challenge sent */
  uint64_t deadline;
  uint64_t serial; /* accept order: the oldest is closed first */
  uint32_t from;
  unsigned got;   /* bytes of 'in' received */
  struct sock_hs in;
  unsigned char nonce_c[16], nonce_l[16];
};

/* The connecting side: an attempt that fails before ACCEPT (the listener
 * refused the TCP connection, closed it before the handshake ended -- a
 * stranger's flood may have made it make room -- or the kernel had no
 * port) is tried again after a backoff that doubles from
 * SOCK_RETRY_FIRST_NS up to SOCK_RETRY_MAX_NS (plus up to half again at
 * random), until GEX_SOCK_CONNECT_TIMEOUT seconds after the first attempt;
 * only then is the peer reported unreachable.  A peer that died is
 * reported sooner by the launcher. */
#define SOCK_RETRY_FIRST_NS (1ull * 1000000ull)
#define SOCK_RETRY_MAX_NS (100ull * 1000000ull)
/* A TCP connection still not made after this long is abandoned and tried
 * again (the kernel's own SYN retries back off to seconds). */
#define SOCK_TCP_CONNECT_NS (2ull * 1000000000ull)
/* peer->cstep: the step our attempt waits for.  SOCK_HS_CHALLENGE and
 * SOCK_HS_ACCEPT as in struct sock_hs, and: */
enum { SOCK_CS_TCP = 16, /* the TCP connection (cfd watched for EPOLLOUT) */
       SOCK_CS_BACKOFF,  /* no attempt in flight: the next starts at retry_at */
       SOCK_CS_QUEUED    /* waiting for a place among SOCK_CONNECT_WINDOW */ };
/* Peers a rank connects to at once, at most (the others queue, their
 * frames waiting in their queues): a rank that starts talking to hundreds
 * of peers at once would otherwise fill every listener's table of
 * handshakes with its own job's connections, which then make room for
 * each other and retry. */
#define SOCK_CONNECT_WINDOW 16

/* ---- frames ---------------------------------------------------------------- */
enum {
  SOCK_F_AM = 1,     /* gexi_am_hdr (truncated after its arguments), payload */
  SOCK_F_PUT = 2,    /* sock_rma, data */
  SOCK_F_ACK = 3,    /* sock_ack: Puts done */
  SOCK_F_GET = 4,    /* sock_rma */
  SOCK_F_GETREP = 5, /* sock_rma (key and addr: the initiator's), data */
  SOCK_F_CREDIT = 6, /* nothing but the header's credit */
  SOCK_F_BYE = 7,    /* the sender is leaving the job: its end of file is no fault */
  SOCK_F_PUTW = 8,   /* sock_putw: one word into the receiver's bound segment */
};
struct sock_frame {
  uint32_t len;    /* bytes after this header, a multiple of 8 */
  uint8_t type;    /* SOCK_F_* */
  uint8_t pad[3];
  uint32_t credit; /* bytes of the receiver's Requests the sender has handled */
  uint32_t pad2;
};
_Static_assert(sizeof(struct sock_frame) == 16, "struct sock_frame: 16 bytes");
/* Put, Get and a Get's reply.  'cookie' is the initiator's completion
 * counter (core/complete.h), carried back and never used by the target;
 * 'dest' is where a Get's data goes at the initiator. */
struct sock_rma {
  uint64_t key, addr, len, cookie, dest;
};
/* An ACK frame holds 1 to SOCK_ACKS_MAX of these: how many of the
 * receiver's Puts landed for each counter ('cookie') of the sender.  One
 * frame acknowledges the Puts of as many counters -- NB Puts have one
 * each -- as one poll read. */
struct sock_ack {
  uint64_t cookie, count;
};
#define SOCK_ACKS_MAX 16
/* An NBI Put of one word (8 bytes, the commonest size) into the
 * receiver's bound segment, which names it: no key, no length.  40 bytes
 * with the frame's header, against 64 as a Put of sock_rma. */
struct sock_putw {
  uint64_t addr, cookie, data;
};
#define SOCK_ROUND8(n) (((n) + 7) & ~(size_t)7)
#define SOCK_AM_HDR_LEN(nargs) \
  SOCK_ROUND8(offsetof(struct gexi_am_hdr, args) + (size_t)(nargs) * sizeof(gex_AM_Arg_t))
/* Frames up to this length are received whole into the connection's
 * buffer; longer ones (Puts, Get replies and Long payloads) have their data
 * read straight into its destination. */
#define SOCK_RX_BUF ((size_t)64 << 10)
/* A connection's buffer starts at this size, so that a rank that talks
 * to a thousand peers holds 4 MiB of them, not 64 (sock_recv.c). */
#define SOCK_RX_MIN ((size_t)4 << 10)
#define SOCK_WHOLE_MAX ((size_t)32 << 10)
/* The credit an AM Request frame of 'whole' bytes costs (sock_am.c). */
static inline int64_t gexi_sock_frame_cost(size_t whole) {
  return (int64_t)(whole < SOCK_WHOLE_MAX ? whole : SOCK_WHOLE_MAX);
}
/* The largest Put or Get reply in one frame (a larger operation is split). */
#define SOCK_RMA_FRAME_MAX ((size_t)1 << 30)
/* Frames batched for one peer between polls are written once they hold this much. */
#define SOCK_BATCH_MAX ((size_t)16 << 10)
/* Bytes queued for one peer above which a sender that may wait does so. */
#define SOCK_QUEUE_MAX ((size_t)4 << 20)

/* ---- the UDP lane (sock_lane.c, GEX_SOCK_UDP) ------------------------------------ */
/* With GEX_SOCK_UDP=1 every rank also has one UDP socket, and the stream
 * of frames to a peer that has one too is carried in datagrams instead of
 * a TCP connection: no connection is ever made.  Each datagram holds this
 * header and a piece of the stream (any bytes: frames may span datagrams);
 * the lane makes it reliable and in order (a sequence number per
 * datagram, cumulative acknowledgements, retransmission after a timeout
 * that adapts to the round trip) and every datagram carries a MAC under
 * the job's key, over the header and the piece, bound to both ranks. */
#define SOCK_DG_MAGIC 0x31706475786567ULL /* "gexudp1" */
struct sock_dg {
  uint64_t magic;
  uint32_t from, to;
  uint64_t seq; /* of this datagram's piece, from 1; 0: no piece (an acknowledgement) */
  uint64_t ack; /* every datagram of the receiver's with a smaller seq has arrived */
  uint32_t len; /* bytes of the piece */
  uint32_t pad;
  uint64_t mac; /* SipHash-2-4 of the header (this field 0) and the piece */
};
_Static_assert(sizeof(struct sock_dg) == 48, "struct sock_dg: 48 bytes");
/* Datagrams and bytes in flight to one peer, at most (what does not fit
 * waits in the peer's queue, as for a full TCP send buffer). */
#define SOCK_LANE_SLOTS 64
#define SOCK_LANE_WINDOW ((size_t)64 << 10)
/* The piece of one datagram, at most: below an Ethernet MTU to peers on
 * other hosts (no IP fragments), larger to peers on this host. */
#define SOCK_LANE_PIECE_NET (1400 - sizeof(struct sock_dg))
#define SOCK_LANE_PIECE_HOST ((size_t)16 << 10)
/* The retransmission timeout: from the smoothed round trip, within
 * these bounds; doubled at each timeout.  A new lane starts from the
 * timeout of the lane that last measured one (lane_rto_hint), or from
 * INIT before any has (RFC 6298's 1 s): on a host where ranks wait
 * hundreds of milliseconds for a core, a piece is not sent again because
 * its receiver was not running. */
#define SOCK_LANE_RTO_MIN_NS (200ull * 1000000ull)
#define SOCK_LANE_RTO_INIT_NS (1000ull * 1000000ull)
#define SOCK_LANE_RTO_MAX_NS (2000ull * 1000000ull)
struct sock_lane_slot {
  char *dg;        /* the datagram (header and piece), malloc'd; NULL: free */
  uint32_t len;    /* its piece's bytes */
  uint8_t resent;  /* sent more than once (no round-trip sample from it) */
  uint64_t sent_at;
};
struct sock_lane {
  /* Sending (under the peer's tx_lock). */
  uint64_t snd_next, snd_una; /* the next seq; the oldest not acknowledged */
  size_t inflight;            /* bytes of pieces in flight */
  _Atomic uint64_t rto_at;    /* when what is in flight is sent again (0: nothing is) */
  uint64_t rto_ns, srtt_ns, rttvar_ns;
  uint64_t stalled_since;     /* in flight with no acknowledgement since */
  /* After a timeout, pieces below 'recover' are sent again one per
   * acknowledgement that moves snd_una (0: no recovery under way). */
  uint64_t recover;
  struct sock_lane_slot slot[SOCK_LANE_SLOTS]; /* by seq % SOCK_LANE_SLOTS */
  /* Receiving (under poll_lock): the next seq expected; the largest ack
   * sent to it (any thread that sends to it); in the owed list. */
  _Atomic uint64_t rcv_next; /* (read by senders, to carry it) */
  _Atomic uint64_t ack_sent;
  uint8_t owed_listed;
  uint8_t ack_again; /* an acknowledgement is owed even if sent before (owe_ack) */
  uint64_t owed_at;  /* when it was listed (SOCK_LANE_ACK_DELAY_NS) */
  /* The stream's offset where the lane ends (UINT64_MAX: it does not): a
   * frame longer than SOCK_LANE_BULK goes over a TCP connection, made for
   * it, and so does everything after it (sock_lane.c, "Bulk").  Under the
   * peer's tx_lock; want_tcp: the connection is to be started by a poll. */
  uint64_t cut;
  _Atomic uint8_t want_tcp;
  unsigned full;      /* windows found full of bytes (SOCK_LANE_FULL_CUT) */
  uint64_t full_next; /* snd_next when the last was counted: the next counts once it is acked */
  /* Its pieces in the stash, not handled yet (under poll_lock): until
   * they are, its next pieces wait (sock_lane.c, "The keeper"). */
  unsigned stashed;
};
/* A piece the keeper took and acknowledged while no thread polled: the
 * datagram (header and piece) follows, as it arrived. */
struct sock_stash {
  struct sock_stash *next;
  size_t len;
};
/* The stash holds at most this many bytes: beyond, the keeper only says
 * that this rank lives (an acknowledgement of what it has). */
#define SOCK_LANE_STASH_MAX ((size_t)8 << 20)
/* The keeper looks at the lane this often (sock_keeper.c): a piece that
 * arrives while its rank is away is acknowledged within about two such
 * periods, by the sender's first retransmission (SOCK_LANE_RTO_MIN_NS). */
#define SOCK_KEEPER_MS 100
/* A single piece is acknowledged alone only this long after it came, if
 * no datagram to its sender carried the acknowledgement meanwhile (a
 * request's acknowledgement rides on its reply, a reply's on the next
 * request); two pieces, or one that came again, are acknowledged at the
 * end of the poll.  Well below SOCK_LANE_RTO_MIN_NS. */
#define SOCK_LANE_ACK_DELAY_NS (1000ull * 1000ull)
/* A lane whose window was found full of bytes (SOCK_LANE_WINDOW) this
 * many times, each window counted once (a stream of 2 MiB or more, not an
 * exchange or a burst of small messages), ends as for a bulk frame: the
 * rest of the stream goes over a TCP connection. */
#define SOCK_LANE_FULL_CUT 32
/* Frames longer than this go over TCP (they and all after them). */
#define SOCK_LANE_BULK ((size_t)8 << 10)

/* ---- per peer ------------------------------------------------------------------ */
enum { SOCK_DOWN = 0, SOCK_WAITING, SOCK_UP, SOCK_CLOSED };

/* sock_peer.early: 0, or frames sent before the connection was made wait
 * for it (the queue is not counted in nqueued yet), or they are being
 * written over it (counted, as any queue). */
enum { SOCK_EARLY_WAITING = 1, SOCK_EARLY_WRITING = 2 };

/* Bytes waiting to be written to a peer: owned copies or borrowed memory. */
struct sock_seg {
  const char *p;
  size_t len;
  char *own; /* free()d once written, or NULL */
  size_t cap; /* own: its size (appended to while it is the last segment) */
};

/* A frame whose data is being read straight into its destination. */
struct sock_direct {
  char *dst;
  size_t left;        /* data bytes still to read */
  size_t pad;         /* padding bytes to skip after them */
  int type;           /* SOCK_F_PUT, SOCK_F_GETREP or SOCK_F_AM (Long) */
  struct sock_rma r;  /* Put / Get reply */
  struct gexi_am_hdr h; /* Long */
};

/* Cache-line aligned, which makes its size a power of two (512 bytes):
 * no two peers' send locks share a line, and finding a peer's entry
 * is one shift (the fast paths' first step). */
struct sock_peer {
  /* Sending is under tx_lock (gexi_sock_tx_lock()).  First, so that its
   * address is the peer's: the in-place fast paths take it without first
   * computing an address into a register of their own. */
  _Alignas(64) _Atomic int tx_lock;
  _Atomic int state; /* SOCK_* */
  int fd;                   /* the connection, once UP */
  struct sockaddr_in addr;  /* its listener */
  uint64_t seg_key;         /* its bound segment's region key (0: none) */
  /* Our attempt to connect to it (under poll_lock): the socket, the step
   * awaited (SOCK_HS_CHALLENGE or SOCK_HS_ACCEPT), what arrived. */
  int cfd;
  int cstep;
  unsigned cgot;
  struct sock_hs cin;
  unsigned char nonce_c[16], nonce_l[16];
  /* The attempts' budget (0: none made yet); in SOCK_CS_BACKOFF when the
   * next one starts, in SOCK_CS_TCP when this one gives up; the attempts
   * so far (under poll_lock). */
  uint64_t conn_deadline, retry_at;
  uint32_t tries;
  /* Sending (under tx_lock).  tx_queued/tx_written: bytes of this stream
   * appended and written to the kernel (a waiting sender compares them). */
  struct sock_seg *q;
  size_t qhead, qn, qcap, qbytes;
  _Atomic uint64_t tx_queued, tx_written;
  /* The open tail: while 'tail' is set, the last piece of the queue is an
   * owned copy, and frames written at the tail (gexi_sock_tx_reserve, up
   * to tail_lim: the piece's end, or where the queue would hold
   * SOCK_BATCH_MAX bytes) belong to it without being counted in its len,
   * qbytes or tx_queued yet: every other user of the queue settles them
   * first (sock_send.c).  Both NULL: closed. */
  char *tail, *tail_lim;
  char *spare; /* a written piece kept for the next (sock_send.c) */
  uint32_t tx_gen; /* poll_gen at our last frame to it sent on its own (SOCK_TX_BATCH) */
  /* Frames to it that waited for a batch through gexi_sock_send or
   * send_small, plus tails that frames were written at (counted when
   * settled): under tx_lock; GEX_TEST_BATCHED. */
  uint64_t batched;
  /* Tails opened for NBI Puts and Gets written in place (sock_rma.c):
   * under tx_lock; GEX_TEST_INPLACE. */
  uint64_t rma_tails;
  /* Credit: bytes of AM Requests we may still send it; bytes of its
   * Requests we have handled and not yet told it about. */
  _Atomic int64_t credit;
  _Atomic uint32_t owed;

  /* Receiving (under poll_lock).  busy: a frame of it is being handled (a
   * nested poll leaves the connection alone). */
  char *rx;
  size_t rx_have, rx_off;
  uint32_t rx_cap; /* rx's size: SOCK_RX_MIN, doubled while recvs fill it, up to SOCK_RX_BUF */
  uint8_t rx_grow; /* the last recv filled it: double it before the next */
  uint8_t touched; /* in gexi_sock.touched (under poll_lock) */
  /* SOCK_EARLY_*: the queue holds frames sent before the connection was
   * made; the peer is counted in gexi_ctx.net_unsent until they are
   * written (under tx_lock). */
  uint8_t early;
  uint8_t qlisted; /* in gexi_sock.qlist (under qlist_lock) */
  int busy, bye;
  struct sock_direct d;
};

_Static_assert((sizeof(struct sock_peer) & (sizeof(struct sock_peer) - 1)) == 0,
               "struct sock_peer: a power of two (pad or trim it)");

/* A Request received by a poll for Replies only, kept for a full poll. */
struct sock_deferred {
  gex_Rank_t src;
  void *frame; /* malloc'd: the AM header and a Medium payload (Long: placed) */
};

/* A region remote ranks may Put to and Get from (by key - 1). */
struct sock_region {
  uintptr_t base;
  size_t len;
  int live;
};

struct gexi_sock {
  gexi_sipkey_t key;
  struct gexi_keygen nonces; /* the handshakes' nonces (no system call each) */
  int lfd, epfd;
  struct sockaddr_in me;
  struct sock_peer *peers; /* by jobrank */
  /* Under poll_lock: handshakes, receiving, deferred Requests. */
  pthread_mutex_t poll_lock;
  /* SOCK_PENDING_MAX + the job's size slots (sock_auth.c, "Who makes
   * room"); of the connections there, nhello have not sent a valid HELLO;
   * claim[r]: 1 + the slot of the one claiming rank r (0: none). */
  struct sock_pending *pend;
  unsigned npend_cap, nhello;
  uint32_t *claim;
  uint64_t next_expire; /* when pending_expire next looks */
  unsigned npending, nconnecting;
  /* Peers we are connecting to, from the first attempt until ACCEPT or
   * giving up (in any step: their timers are looked at by every poll). */
  gex_Rank_t *trying;
  unsigned ntrying;
  unsigned nactive; /* of them, not SOCK_CS_QUEUED: at most SOCK_CONNECT_WINDOW */
  uint64_t connect_budget_ns; /* GEX_SOCK_CONNECT_TIMEOUT */
  uint64_t accept_serial;
  gex_Rank_t *up; /* connected peers, polled directly */
  unsigned nup;
  gex_Rank_t *touched; /* peers whose frames this poll read (their ACKs, credit) */
  unsigned ntouched;
  /* ACKs not sent yet (under poll_lock): nacks counters of the Puts of one
   * peer, ack_peer (a poll reads one peer's frames after another's). */
  struct sock_ack acks[SOCK_ACKS_MAX];
  unsigned nacks;
  gex_Rank_t ack_peer;
  unsigned poll_count;
  _Atomic uint32_t poll_gen; /* changes at every poll (SOCK_TX_BATCH) */
  struct sock_deferred *def;
  size_t ndef, defcap;
  _Atomic unsigned nqueued; /* peers with bytes queued */
  /* Every peer counted in nqueued is in qlist (and maybe some that no
   * longer are): a poll writes the queues of those, not of every peer. */
  pthread_mutex_t qlist_lock;
  gex_Rank_t *qlist, *qtaken; /* (qtaken: the flush's copy, under poll_lock) */
  unsigned nqlist;
  _Atomic unsigned nspares; /* peers keeping a written piece (sock_send.c) */
  int64_t credit_bytes;     /* per peer */
  uint32_t credit_return;   /* send a CREDIT frame at this debt */
  /* Regions (under reg_lock). */
  pthread_mutex_t reg_lock;
  struct sock_region *reg;
  size_t nreg, regcap;
  /* What strangers and bad frames cost: counted, the first few reported. */
  _Atomic uint64_t refused;
  _Atomic unsigned reported;
  _Atomic int leaving; /* this process is exiting: no more faults reported */
  /* The UDP lane (GEX_SOCK_UDP): its socket (-1: none), each rank's UDP
   * port (network order; 0: it has none, TCP is used); the lanes, made at
   * first use (by CAS); the ranks that have one, in the order they were
   * made (an entry is UINT32_MAX until written); the peers owed an
   * acknowledgement by this poll (under poll_lock); its receive buffer. */
  int ufd;
  uint16_t *uport;
  struct sock_lane **lane;
  gex_Rank_t *lane_act;
  _Atomic unsigned nlane_act;
  gex_Rank_t *lane_owed;
  unsigned nlane_owed;
  /* The owed list is looked at again by the end of the poll (a piece came
   * twice, or a second one), else once the first kept one is due. */
  int lane_owed_scan;
  uint64_t lane_owed_due;
  /* The last read of the lane's socket stopped before it was empty
   * (under poll_lock). */
  int lane_unread;
  char *lane_rx;
  int lane_feeding; /* a piece from lane_rx is being handled (under poll_lock) */
  /* No lane's retransmission is due before this (a lower bound: a scan
   * of the lanes finds the real one). */
  _Atomic uint64_t lane_next_rto;
  /* Some lane wants its TCP connection started (want_tcp). */
  _Atomic int lane_tcp_wanted;
  /* Pieces sent, sent again, and dropped by GEX_TEST_LANE_DROP; lanes
   * cut for bulk. */
  _Atomic uint64_t lane_sent, lane_resent, lane_dropped, lane_cuts;
  /* The latest retransmission timeout measured by a lane. */
  _Atomic uint64_t lane_rto_hint;
  /* Lanes with pieces in flight (their retransmissions are the keeper's
   * while no thread polls: a wait does not wait for acknowledgements). */
  _Atomic unsigned lane_busy;
  /* Pieces the keeper took, in arrival order, handled first by the next
   * poll (under poll_lock). */
  struct sock_stash *stash, **stash_end;
  size_t stash_bytes;
  /* The keeper thread (sock_keeper.c): on, stopping, and what it sleeps on. */
  pthread_t keeper;
  _Atomic int keeper_on;
  _Atomic int keeper_in; /* it holds poll_lock (a poll waits for it) */
  int keeper_stop; /* (under keeper_mu) */
  pthread_mutex_t keeper_mu;
  pthread_cond_t keeper_cv;
  struct gexi_net_ops ops;
};

static inline struct gexi_sock *gexi_sock_ctx(void) { return gexi_ctx.sock; }

/* A peer's tx_lock is held only to append to its queue or to hand the
 * queue to the kernel without blocking (never across a wait), so it is a
 * spin lock: a waiter spins a little, then yields (its holder may be
 * descheduled on an oversubscribed host). */
void gexi_sock_tx_lock_wait(struct sock_peer *p);
static inline void gexi_sock_tx_lock(struct sock_peer *p) {
  if (GEXI_UNLIKELY(atomic_exchange_explicit(&p->tx_lock, 1, memory_order_acquire)))
    gexi_sock_tx_lock_wait(p);
}
static inline int gexi_sock_tx_trylock(struct sock_peer *p) {
  return !atomic_load_explicit(&p->tx_lock, memory_order_relaxed) &&
         !atomic_exchange_explicit(&p->tx_lock, 1, memory_order_acquire);
}
static inline void gexi_sock_tx_unlock(struct sock_peer *p) {
  atomic_store_explicit(&p->tx_lock, 0, memory_order_release);
}

/* ---- sock_init.c ---- */
void gexi_sock_start(int one_host);
uint64_t gexi_sock_now(void);
/* One line about something refused (a stranger, a bad frame); only the
 * first few of a process are printed, every one is counted. */
void gexi_sock_refuse(const char *fmt, ...) GEXI_PRINTF(1, 2);
/* Register fd with the poll set: kind SOCK_EV_* and an index. */
enum { SOCK_EV_LISTEN = 1, SOCK_EV_PENDING, SOCK_EV_CONNECT, SOCK_EV_UP, SOCK_EV_LANE };
void gexi_sock_watch(int fd, int kind, uint32_t idx);
/* The same for 'events' (EPOLLIN, EPOLLOUT); rewatch changes them. */
void gexi_sock_watch_for(int fd, int kind, uint32_t idx, uint32_t events);
void gexi_sock_rewatch(int fd, int kind, uint32_t idx, uint32_t events);
void gexi_sock_unwatch(int fd);

/* ---- sock_auth.c ---- */
void gexi_sock_auth_init(int one_host);
/* Start connecting to j (under poll_lock; j DOWN, no attempt). */
void gexi_sock_connect(gex_Rank_t j);
void gexi_sock_accept(void);
void gexi_sock_pending_io(unsigned slot);
void gexi_sock_connect_io(gex_Rank_t j);
void gexi_sock_pending_expire(uint64_t now);
/* Attempts whose backoff has passed start again; TCP connects that took
 * too long are abandoned and retried (under poll_lock). */
void gexi_sock_connect_timers(uint64_t now);
/* Start connecting to j if it is DOWN and nobody is connecting, unless
 * another thread holds poll_lock (a later call retries). */
void gexi_sock_connect_soon(gex_Rank_t j);
/* Make j's connection usable (polls until it is; fatal if j is gone). */
void gexi_sock_need(gex_Rank_t j, int what);
/* See that j's connection is up or on its way (an attempt of ours in
 * flight or queued, or j's own to us), starting one if need be; fatal if
 * j is gone.  Frames sent to j before it is up wait in its queue
 * (sock_send.c, q_early).  Polls until j is up, as gexi_sock_need, only
 * when no attempt can be started now (another thread polls). */
void gexi_sock_reach(gex_Rank_t j, int what);
/* The settle op (transport.h): polls until no frame waits for its
 * connection (or timeout_ms, if not negative, passes). */
void gexi_sock_settle(int timeout_ms);

/* ---- sock_send.c ---- */
enum { SOCK_TX_COPY = 0, SOCK_TX_BORROW = 1, SOCK_TX_WAIT = 2, SOCK_TX_BATCH = 4 };
/* Append one frame to j's stream: 'f' (len and type set; credit is filled
 * in), 'body' (its fixed part) and 'data' (padded to 8 with zeros).  COPY:
 * whatever the kernel does not take now is copied; BORROW: 'data' stays
 * valid until written (it is queued by reference); WAIT: as BORROW, and
 * returns once written.  COPY | BATCH (Active Messages): the first frame
 * to a peer after a poll goes at once; later ones join the queue, which
 * the next poll writes in one call (or at once when it holds
 * SOCK_BATCH_MAX bytes).  'fault': whether a peer that left is this
 * caller's error (client operations) or not (ACKs, credit, replies to it).
 * Never waits for credit; a COPY send by a caller that may wait holds back
 * while the peer's queue is long. */
void gexi_sock_send(gex_Rank_t j, struct sock_frame *f, const void *body, size_t blen,
                    const void *data, size_t dlen, int mode, int what, int fault);
/* A frame of at most SOCK_SMALL_FRAME bytes, whole in 'buf' (its header's
 * credit is filled in here): sent at once, or -- 'batch' and not the
 * first to j since the last poll, or the kernel full -- queued.  Returns
 * whether it was queued.  Never waits. */
#define SOCK_SMALL_FRAME 256
int gexi_sock_send_small(gex_Rank_t j, char *buf, size_t len, int batch, int fault);
/* The same, p's tx_lock already taken (it is released). */
int gexi_sock_send_small_locked(gex_Rank_t j, struct sock_peer *p, char *buf, size_t len,
                                int batch, int fault);
/* Under tx_lock: whether a frame of 'len' bytes (a multiple of 8) fits at
 * the open tail of p's queue (see struct sock_peer); if so it is taken
 * there, joining the batch the next poll writes, and the caller writes
 * every byte of it at the old p->tail.  If not, the frame goes through
 * gexi_sock_send_small.  Order holds either way: a frame written at the
 * tail is behind everything queued before it.  The caller has checked
 * that the connection was up; one that closes after that loses the frame
 * with those queued before it. */
static inline int gexi_sock_tx_reserve(struct sock_peer *p, size_t len) {
  uintptr_t end = (uintptr_t)p->tail + len; /* (both NULL, closed: len > 0 fails) */
  if (end > (uintptr_t)p->tail_lim) return 0;
  p->tail = (char *)end;
  return 1;
}
/* Under p's tx_lock: whether a batchable frame to p leaves at once -- the
 * queue is empty and no frame to p has left on its own since the last
 * poll (the first after a poll adds no latency to a round trip). */
int gexi_sock_polling(void);
/* Whether p's stream goes over the lane and this thread is in a poll:
 * then every frame to it waits for the poll's end, where they leave
 * together (replies, ACKs, credit: one datagram instead of several). */
static inline int gexi_sock_lane_in_poll(const struct sock_peer *p) {
  return GEXI_UNLIKELY(gexi_sock_ctx()->ufd >= 0) && p->fd < 0 && gexi_sock_polling();
}
static inline int gexi_sock_leaves_now(struct sock_peer *p) {
  return !p->qn && p->tx_gen != atomic_load_explicit(&gexi_sock_ctx()->poll_gen, memory_order_relaxed) &&
         !gexi_sock_lane_in_poll(p);
}
/* Under j's tx_lock, when its tail has no room: open a tail at the end of
 * its queue, in a new piece, for frames that are to wait for the next
 * poll (the queue is not empty, or the first frame since the last poll
 * has left); 0 when a frame must go through gexi_sock_send_small instead
 * (the connection is not up, a full batch is waiting to be written, or
 * this frame is to leave at once). */
int gexi_sock_tx_open(gex_Rank_t j);
/* Under p's tx_lock, its queue empty, for a batchable frame of len bytes
 * that is to leave at once (gexi_sock_leaves_now): where to write it, at
 * the start of a new piece; then gexi_sock_tx_first_send sends it from
 * there and releases the lock.  The piece stays queued, its tail open after
 * the frame, so that the frames that follow until the next poll are
 * written in place behind it; a flush that finds nothing joined drops it. */
char *gexi_sock_tx_first(struct sock_peer *p, size_t len);
int gexi_sock_tx_first_send(gex_Rank_t j, struct sock_peer *p, size_t len);
/* Under tx_lock: the credit a frame to p carries (what we owe it). */
static inline uint32_t gexi_sock_tx_owed(struct sock_peer *p) {
  return atomic_load_explicit(&p->owed, memory_order_relaxed)
             ? atomic_exchange_explicit(&p->owed, 0, memory_order_relaxed)
             : 0;
}
/* Non-zero once some frame joined a batch instead of leaving on its own
 * (the sum of the peers' 'batched': a test hook). */
uint64_t gexi_sock_batched(void);
/* The sum of the peers' rma_tails (a test hook). */
uint64_t gexi_sock_rma_tails(void);
/* Write what is queued, for every peer with bytes queued: flush_all under
 * poll_lock (the connected peers' list; returns whether the kernel took
 * any bytes), flush_any without it (every rank of the job, each under its
 * own tx_lock). */
int gexi_sock_flush_all(void);
void gexi_sock_flush_any(void);
/* j's connection closed or failed ('why'): it is closed here; 'fault':
 * whether this caller needed it (then, unless the job's exit has begun or
 * this process leaves, the launcher's verdict decides: a confirmed death
 * ends this process with a line naming the dead rank, none makes this rank
 * report "rank j is unreachable" and end the job).  Returns when there is
 * nothing to report. */
void gexi_sock_peer_gone(gex_Rank_t j, int fault, const char *why);
/* At process exit (gexi_end_process): a BYE to every connected peer,
 * behind what is queued for it, with a bounded effort. */
void gexi_sock_at_exit(void);
/* j's authenticated connection is up (its fd set): frames sent while it
 * was being made are written now (under poll_lock; takes tx_lock). */
void gexi_sock_tx_start(gex_Rank_t j);
/* Drop everything queued for p (under tx_lock; its connection ended). */
void gexi_sock_q_drop(struct sock_peer *p);

/* ---- sock_recv.c ---- */
int gexi_sock_poll(int what);
/* Whether this thread holds poll_lock (is inside a poll of this transport). */
int gexi_sock_polling(void);
int gexi_sock_block(int timeout_us);
/* Attach j's authenticated connection (under poll_lock; fd is in the
 * poll set already, as the handshake's). */
void gexi_sock_attach(gex_Rank_t j, int fd);

/* ---- sock_am.c ---- */
void gexi_sock_am_setup(void);
int gexi_sock_am_send(gex_Rank_t j, const struct gexi_am_hdr *h, const void *payload,
                      gex_Flags_t flags);
int gexi_sock_am_short(int ch, gex_Rank_t j, gex_AM_Index_t handler, gex_Flags_t flags,
                       unsigned nargs, const gex_AM_Arg_t *args);
/* A checked AM frame from j: deliver it, or keep it for a full poll. */
void gexi_sock_am_recv(gex_Rank_t j, struct gexi_am_hdr *h, void *payload, int what);
int gexi_sock_run_deferred(void);
/* Credit: the header's return from j; our debt to j (CREDIT frames). */
const char *gexi_sock_take_credit(gex_Rank_t j, uint32_t credit);
/* A CREDIT frame to j if what we owe it has reached credit_return. */
void gexi_sock_return_credit(gex_Rank_t j);

/* ---- sock_rma.c ---- */
gex_Event_t gexi_sock_put(gex_Rank_t j, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt, gex_Flags_t flags, int mode);
gex_Event_t gexi_sock_get(gex_Rank_t j, void *dest, void *src, size_t nbytes, gex_Flags_t flags,
                          int mode);
/* The put_nbi entry (transport.h): small Puts in place, else
 * gexi_rma_put_nbi_general. */
int gexi_sock_put_nbi(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank, void *dest,
                      uint64_t lc_flags);
void gexi_sock_seg_register(void *base, uintptr_t size, uint64_t *key);
void gexi_sock_seg_peer(gex_Rank_t j, uint64_t key);
void *gexi_sock_expose(const void *buf, size_t len, uint64_t *key, uint64_t *raddr);
void gexi_sock_unexpose(void *handle);
void gexi_sock_get_exposed(gex_Rank_t j, size_t n, const struct gexi_exposed_rma *r);
void gexi_sock_put_exposed(gex_Rank_t j, size_t n, const struct gexi_exposed_rma *w,
                           void (*then)(void *arg, size_t first, size_t k), void *arg);
gex_Event_t gexi_sock_rma_exposed(gex_Rank_t j, int is_write, const struct gexi_exposed_rma *x,
                                  int mode);
/* The target's side: the region range [addr, addr+len) of 'key', as a
 * pointer, or NULL (and *why) if it is not one. */
char *gexi_sock_region(uint64_t key, uint64_t addr, uint64_t len, const char **why);
/* Frames of RMA received from j (checked). */
void gexi_sock_get_serve(gex_Rank_t j, const struct sock_rma *r, char *src);
void gexi_sock_rma_done(uint64_t cookie, uint64_t count);
/* The ACKs not sent yet (gexi_sock.acks, to ack_peer) leave now, in one
 * frame. */
void gexi_sock_ack_flush(void);

/* ---- sock_lane.c ---- */
/* Open the UDP socket on the rank's address (gexi_sock_start): its port. */
uint16_t gexi_sock_lane_open(void);
/* Whether j's stream goes over the lane (both ranks have a UDP socket). */
static inline int gexi_sock_is_lane(gex_Rank_t j) {
  struct gexi_sock *s = gexi_sock_ctx();
  return s->ufd >= 0 && s->uport[j] != 0;
}
/* Under j's tx_lock: hand a prefix of the n iovecs (the stream's next
 * bytes) to the lane, as many datagrams as its window allows.  The bytes
 * taken, or -1 with errno EAGAIN when the window is full. */
ssize_t gexi_sock_lane_write(gex_Rank_t j, const struct iovec *iov, int n);
/* j's lane exists from now on (made if need be): its queue is flushed by
 * the polls (gexi_sock_flush_all). */
void gexi_sock_lane_touch(gex_Rank_t j);
/* Under j's tx_lock, before a frame longer than SOCK_LANE_BULK joins the
 * stream of lane peer j: the lane ends at the stream's current end (if it
 * has not ended yet), and a TCP connection is wanted. */
void gexi_sock_lane_cut(gex_Rank_t j);
/* Under j's tx_lock: whether nothing of j's lane is in flight (so bytes
 * after it may go over TCP). */
int gexi_sock_lane_drained(gex_Rank_t j);
/* Under poll_lock: the TCP connections the lanes want are started. */
void gexi_sock_lane_connect(void);
/* Whether peer j is reached over its lane and has no TCP connection: its
 * connection attempts go on as a DOWN peer's do (sock_auth.c). */
static inline int gexi_sock_lane_only(gex_Rank_t j) {
  return gexi_sock_is_lane(j) && gexi_sock_ctx()->peers[j].fd < 0;
}
/* Under poll_lock: the datagrams that have arrived (at most a burst);
 * their pieces fed to the frames of their peers.  Frames handled. */
int gexi_sock_lane_poll(int what);
/* Under poll_lock, at the end of a poll: acknowledgements owed and not
 * carried by a datagram since, and retransmission of what timed out. */
void gexi_sock_lane_tick(void);
/* Under poll_lock, from the keeper while no thread polls: what arrived
 * is taken (pieces into the stash, acknowledged), acknowledgements owed
 * are sent, due retransmissions go.  How many datagrams it took. */
int gexi_sock_lane_service(void);
/* ---- sock_keeper.c ---- */
/* The keeper thread starts (after the lanes are set up) and stops (at
 * exit, before the lanes are drained; waiting for it at most wait_ms). */
void gexi_sock_keeper_start(void);
void gexi_sock_keeper_stop(int wait_ms);
/* Milliseconds until the lane's next timeout (-1: none), at most 'ms'. */
int gexi_sock_lane_timeout(int ms);
/* j's stream ended (BYE, a bad frame, or it is gone): what is in flight
 * to it is dropped (under poll_lock or at exit). */
void gexi_sock_lane_drop(gex_Rank_t j);
/* At exit, after the BYEs were handed to the lane: until 'deadline', the
 * lane's acknowledgements are awaited (what arrives is acknowledged and
 * dropped), and write_more(j) writes what of j's queue the window takes
 * (whether bytes are left).  Under poll_lock. */
void gexi_sock_lane_exit(uint64_t deadline, int (*write_more)(gex_Rank_t j));

/* ---- sock_recv.c: bytes of j's stream that came by the lane (under
 * poll_lock, j not busy): handled as if read from a connection.  Frames
 * handled, or -1 if the stream was closed by a bad frame. */
int gexi_sock_rx_feed(gex_Rank_t j, const char *data, size_t len, int what);

#endif

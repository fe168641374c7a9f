/* transport/ofi/ofi.h -- the off-node transport over libfabric (OFI).
 *
 * One reliable-datagram endpoint (FI_EP_RDM) per process (and one more
 * that only posts NBI RMA, ofi_counted.c), an address vector
 * in FI_AV_TABLE mode filled with every rank's address in jobrank order (so
 * a jobrank is its own fi_addr_t and libgex keeps no per-peer connection
 * state), and one completion queue:
 *
 *   - RMA: fi_writemsg/fi_readmsg into the peer's registered segment.  Every
 *     operation carries a context (struct ofi_op): NB ones are the client's
 *     event, blocking ones live on the caller's stack, NBI ones count down
 *     a per-thread tracker (ofi_rma.c says why not completion counters),
 *     except those on the counted endpoint (ofi_counted.c), which a
 *     second endpoint's completion counters report.
 *     Every write asks for FI_DELIVERY_COMPLETE when the provider offers it,
 *     so a completed put is visible at the target.
 *   - Active Messages: FI_MSG sends of a small wire header (struct
 *     ofi_wire) plus payload, received into FI_MULTI_RECV buffers that are
 *     re-posted as soon as every message in them has been handled (or one
 *     buffer per message, where a provider's multi-receive is unreliable).  Byte
 *     credits per peer and direction (requests, replies) bound what a peer
 *     may have in flight to us, so the receive buffers can never overflow
 *     and no provider ever has to drop or buffer an unexpected message.
 *   - Admission (ofi_auth.c, docs/security.md): a peer's messages are
 *     delivered only after it proved, in a handshake keyed by the job's
 *     secret, that it is that rank of this job; the sender of a message is
 *     the rank the provider reports as its source (FI_SOURCE), and every
 *     message carries the session token of that ordered pair.  Every
 *     received message is validated before use (ofi_check.c).
 *
 * All state lives in one struct gexi_ofi, owned by gexi_ctx.ofi.
 */
#ifndef GEXI_OFI_H
#define GEXI_OFI_H

#include <pthread.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "transport/am_wire.h"
#include "core/context.h"
#include "sec/random.h"
#include "sec/siphash.h"
#include "transport/transport.h" /* struct gexi_exposed_rma */

/* What an operation context is for (struct ofi_op.kind). */
enum {
  OFI_OP_WAIT = 1,  /* someone spins on 'done' (blocking op, stack context) */
  OFI_OP_EVENT,     /* NB operation: the op is the gex_Event_t (heap) */
  OFI_OP_FREE,      /* nobody waits: release bounce/tmp_mr and free the op */
  OFI_OP_NBI,       /* NBI operation: count it down in 'nbi', release, free the op */
  OFI_OP_REGION,    /* access-region event: done when 'nbi' has nothing in flight */
  OFI_OP_LEAF,      /* local-completion leaf of an OFI_OP_EVENT Put (its 'lc'): the
                     * client may test it any number of times until the root is
                     * synced; freed with the root (gexi_ofi_event_free) */
  OFI_OP_NBI_SHARED,/* one of a tracker's 'shared' contexts: count it down, nothing
                     * else (no bounce, no registration, no peer, never freed) */
};

#include "core/event.h" /* GEXI_EV_NET */

/* An operation in flight.  'fctx' is the context libfabric sees (providers
 * that ask for FI_CONTEXT/FI_CONTEXT2 use it as scratch space while the
 * operation is in flight); the op is recovered from it by container_of.
 * For OFI_OP_EVENT the op is also the event object handed to the client,
 * whose first member must be the event kind (core/event.c dispatches on it). */
struct ofi_op {
  int ev_kind;               /* GEXI_EV_NET */
  int kind;                  /* OFI_OP_* */
  _Atomic int done;          /* set (release) by the poller on completion */
  struct ofi_op *lc;         /* NB put: local-completion event, or NULL */
  struct fid_mr *tmp_mr;     /* on-the-fly registration to close, or NULL */
  void *bounce;              /* pool buffer to return on completion, or NULL */
  void *copy_to;             /* Get through a bounce buffer: copy here ... */
  size_t copy_len;           /* ... this many bytes on completion */
  struct gexi_net_nbi *nbi;  /* OFI_OP_NBI: the tracker to count down; OFI_OP_REGION: to watch */
  int nbi_kind;              /* OFI_NBI_PUT, OFI_NBI_GET or OFI_NBI_RMW */
  gex_Rank_t peer;           /* jobrank of the target, for error reports */
  struct fi_context2 fctx;
};

/* NBI operations in flight, by kind, of one thread (gexi_tls.net_nbi) or of
 * one access region (gexi_tls.net_region).  Incremented by the initiating
 * thread; decremented (release) by whichever thread polls the completion;
 * read (acquire) by NBI Test/Wait.  A thread's tracker lives on after the
 * thread (completions may still arrive); a region's is freed with its event,
 * after the count reached zero. */
enum { OFI_NBI_PUT = 0, OFI_NBI_GET = 1, OFI_NBI_RMW = 2 /* provider-native atomics */ };
/* (the order core/nbi.c reads gexi_tls.net_nbi_pending in) */
struct gexi_net_nbi {
  _Atomic uint64_t pending[3];
  /* Where the provider keeps no per-operation state in the context
   * (gexi_ofi.nbi_shared), the NBI operations of a kind that need nothing
   * released at completion all pass the same context: no allocation per
   * operation.  Written once when the tracker is made. */
  struct ofi_op shared[3];
};

/* Admission of a peer (ofi_auth.c): where its handshake stands. */
enum {
  OFI_AUTH_NONE = 0,  /* nothing yet */
  OFI_AUTH_HELLO,     /* we sent HELLO: waiting for the peer's CHALLENGE */
  OFI_AUTH_CHALLENGE, /* we answered its HELLO: waiting for its PROOF */
  OFI_AUTH_PROOF,     /* we sent PROOF (peer admitted): waiting for its OK */
  OFI_AUTH_DONE,      /* both directions admitted */
};

/* Per-peer state (by jobrank; only off-node peers are used). */
struct ofi_peer {
  uint64_t key;                    /* remote key of the peer's segment */
  uint64_t addr_base;              /* subtract from a virtual address (0: FI_MR_VIRT_ADDR) */
  _Atomic int64_t credit[2];       /* [req, rep]: bytes we may still send to the peer */
  _Atomic uint32_t owed[2];        /* [req, rep]: bytes of the peer's messages we handled */
  /* Admission.  tok_tx/tok_rx are written (under auth_lock) before rx_ok /
   * tx_ok are set with release; readers load the flag with acquire first. */
  _Atomic int rx_ok;               /* admitted: its messages are delivered */
  _Atomic int tx_ok;               /* it admitted us: we may send it AMs */
  uint64_t tok_tx, tok_rx;         /* session tokens: ours to it, its to us */
  int auth_state;                  /* OFI_AUTH_* (under auth_lock) */
  int auth_hello_sent;             /* we sent this peer a HELLO (under auth_lock) */
  unsigned char nonce_init[16], nonce_resp[16]; /* the handshake's nonces */
  /* Messages dropped (not admitted, wrong token, malformed): counted; the
   * first few are reported with one line each. */
  _Atomic uint32_t dropped;
  /* The poll generation (gexi_ofi.poll_gen) of our last AM to it sent on
   * its own: another one before the next poll joins a batch. */
  _Atomic uint32_t tx_gen;
  /* 'key' for a peer on another node, 0 for a neighbour (reached through
   * shared memory or the kernel, not the network) and for a peer with no
   * segment: the NBI Put entries' one test for "mine to do" (ofi_rma.c). */
  uint64_t nbi_key;
  unsigned char pad_[8]; /* to 128 bytes: the fast path indexes the table with a shift */
};
_Static_assert(sizeof(struct ofi_peer) == 128, "struct ofi_peer: 128 bytes");

/* One multi-receive buffer.  'refs' counts the messages of this buffer being
 * handled plus one while the provider may still write into it; who drops it
 * to zero re-posts the buffer (so a handler's payload stays valid until it
 * returns, even if a nested poll sees the buffer's release).
 *
 * The provider's FI_MULTI_RECV flag does not mean that: ofi_rxm hands the
 * buffer back with the completion of the message it placed last, while
 * messages it placed earlier, arriving in segments (its SAR protocol), are
 * still being written and complete later.  So the provider's reference is
 * dropped by a byte ledger: 'ledger' starts at OFI_RX_OPEN, every completed
 * message subtracts its length, and the flagged completion also subtracts
 * OFI_RX_OPEN minus the end of the space used (the end of the flagged
 * message); messages are placed back to back, so the ledger reaches zero
 * exactly when every message placed in this posting has completed.
 * 'hi' is the furthest end seen (for a flag that comes without a message). */
#define OFI_RX_OPEN ((int64_t)1 << 62)
struct ofi_rxbuf {
  void *mem;
  size_t len;
  struct fid_mr *mr;
  struct fid_ep *ep; /* the endpoint it is posted on */
  int drain;         /* on the counted endpoint: whatever lands is dropped unread */
  _Atomic int refs;
  _Atomic int64_t ledger;
  _Atomic size_t hi;
  struct fi_context2 fctx;
};

/* A Request received while polling for replies only (a Reply being sent
 * from inside a handler may poll, and must not run Request handlers then),
 * kept until a full poll: a malloc'd copy of the message (its receive
 * buffer is already released). */
struct ofi_deferred {
  const void *msg;
  size_t len;
  fi_addr_t src;
};

/* libfabric's own entry points, loaded at start (ofi_lib.c). */
struct gexi_ofi_lib {
  int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                 const struct fi_info *hints, struct fi_info **info);
  void (*freeinfo)(struct fi_info *info);
  struct fi_info *(*dupinfo)(const struct fi_info *info);
  int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
  const char *(*strerror)(int errnum);
};

/* Completions taken from the CQ by one read. */
#define OFI_CQ_BATCH 16

struct gexi_ofi {
  struct gexi_ofi_lib fi;
  struct fi_info *info;
  struct fid_fabric *fabric;
  struct fid_domain *domain;
  struct fid_ep *ep;
  struct fid_av *av;
  struct fid_cq *cq;
  const char *prov_name;
  char shm_name[96];          /* 'shm' provider: our /dev/shm object, unlinked at exit */
  int shm_named;              /* shm_name is complete (release/acquire: gexi_ofi_at_exit
                               * may run on the bootstrap's watchdog thread during init) */
  uint64_t mr_mode;
  size_t inject_size;
  size_t am_inject_max;   /* largest AM built on the stack and injected */
  int64_t short_cost[GEXI_AM_MAX_ARGS + 1]; /* credit a Short costs, by nargs: its length
                                             * (multi-receive), else a whole buffer */
  gex_Rank_t self;        /* gexi_ctx.rank, read through o on the Short paths (which
                           * then keep no second base register) */
  uint64_t write_flags;       /* FI_DELIVERY_COMPLETE when offered */
  int order_saw;              /* a send after a write is delivered after it */
  int flush_with_read;        /* no DELIVERY_COMPLETE: a read after writes flushes them */
  int atomic_caps;            /* the endpoint was opened with FI_ATOMIC (ofi_atomic.c) */
  int have_source;            /* completions report the sender (FI_SOURCE) */
  int nbi_shared;             /* NBI operations may share a context (struct gexi_net_nbi):
                               * no FI_CONTEXT/FI_CONTEXT2 mode, no FI_MR_LOCAL */
  int wait_fd;                /* the CQ's wait descriptor (FI_WAIT_FD), or -1 */

  /* The counted RMA endpoint (ofi_counted.c), or NULL: a second endpoint that
   * only initiates writes and reads (it sends no messages, so nothing the
   * provider does internally is counted), bound to the main CQ for
   * progress and errors and to one completion counter per kind.  One
   * thread, the one that started the transport (gexi_tls.net_counted),
   * posts on it; rma_posted and rma_seen are that thread's alone. */
  struct fid_ep *rma_ep;
  struct fid_cntr *rma_cntr[2];   /* [OFI_NBI_PUT], [OFI_NBI_GET] */
  uint64_t rma_posted[2];         /* operations posted on rma_ep, by kind */
  uint64_t rma_seen[2];           /* the counter's value last taken off the tracker */
  struct ofi_counted_op {         /* the operation being posted (for a retry) */
    void *local;
    uint64_t raddr;
    size_t nbytes;
    gex_Rank_t peer;
  } rma_last;
  struct gexi_net_nbi *rma_owner; /* the owner's tracker (its gexi_tls.net_counted outside
                                   * access regions) */
  struct fi_msg_rma rma_wmsg;     /* the owner's write (gexi_ofi_counted_write): one */
  struct iovec rma_wiov;          /* local and one remote piece, no context, no desc */
  struct fi_rma_iov rma_wrma;
  uint64_t rma_wflags;            /* its flags: FI_INJECT and write_flags */
  struct ofi_rxbuf *rma_rx;       /* its drain receives, where the provider keeps a
                                   * stranger's unmatched messages (ofi_counted.c) */

  /* Admission (ofi_auth.c). */
  gexi_sipkey_t auth_key;     /* the job's secret */
  pthread_mutex_t auth_lock;  /* handshake state of every peer */
  _Atomic uint64_t stranger_drops; /* messages from sources outside the job */


  /* Segment registration. */
  struct gexi_keygen mr_keys; /* keys asked for at every registration */
  struct fid_mr *seg_mr;
  void *seg_desc;
  uintptr_t seg_base, seg_size;

  struct ofi_peer *peers; /* by jobrank */

  /* AM receive side. */
  struct ofi_rxbuf *rx;
  int nrx;
  int multi_recv;         /* buffers take many messages (FI_MULTI_RECV); else one each */
  size_t wire_max;        /* largest AM on the wire (header + Medium payload) */
  int64_t credit_bytes;   /* per peer and channel */
  uint32_t credit_return; /* send an explicit credit message at this debt */
  pthread_mutex_t defer_lock;
  struct ofi_deferred *deferred;
  size_t ndeferred, deferred_cap;
  _Atomic int credit_scan; /* some peer is owed an explicit credit return */
  /* Completions read from the CQ and not handled yet (gexi_ofi_poll takes
   * them one at a time, cqe_next to cqe_count, under cqe_lock).  They are
   * never kept in a poll's own variables: a handler run by the poll may
   * block (a Reply waiting for credit, a send waiting for a bounce buffer)
   * and poll again, and what it waits for -- the credit carried by the next
   * message, the completion that frees a buffer -- may be among them. */
  pthread_mutex_t cqe_lock;
  unsigned cqe_next, cqe_count;
  struct fi_cq_data_entry cqe[OFI_CQ_BATCH];
  fi_addr_t cqe_from[OFI_CQ_BATCH];

  /* AM send side: bounce buffers of wire_max bytes (registered when the
   * provider needs FI_MR_LOCAL). */
  pthread_mutex_t pool_lock;
  void **pool;
  int npool;
  void *pool_mem;
  struct fid_mr *pool_mr;
  void *pool_desc;

  /* Batches of small AMs (ofi_am_batch.c). */
  size_t batch_max;              /* bytes of a batch; 0: AMs are never batched */
  size_t batch_full;             /* a batch longer than this leaves (no room for one more) */
  _Atomic uint32_t poll_gen;     /* changes at every poll */
  _Atomic uint32_t nbatch_open;  /* batches holding records */
  _Atomic int batch_lock;        /* a spinlock over batches[] and batch_open[] (held for a
                                  * copy of at most OFI_STACK_WIRE bytes) */
  struct ofi_batch *batches;     /* by OFI_BATCH_INDEX(jobrank, channel) */
  uint32_t *batch_open;          /* the indexes of the open batches (nbatch_open of them) */
  _Atomic uint64_t batched;      /* AMs that left in a batch (GEX_TEST_BATCHED) */

  /* gexi_ctx.net points here: the transport's operations, with put_nbi
   * taking the counted endpoint only when it is open (ofi_init.c). */
  struct gexi_net_ops ops;
};

/* The open batch of AMs for one peer and channel (Requests, Replies): a
 * pool buffer holding the batch header (struct ofi_wire up to 'h') and
 * 'len' bytes in all.  The channel is the sender's 'what' (GEXI_POLL_ALL
 * for a Request, GEXI_POLL_REPLIES for a Reply). */
#define OFI_BATCH_INDEX(jobrank, ch) (2 * (uint32_t)(jobrank) + (uint32_t)(ch))
#define OFI_BATCH_PEER(index) ((gex_Rank_t)((index) / 2))
struct ofi_batch {
  char *buf;
  uint32_t len;
  uint32_t nrec;           /* records in it */
  _Atomic int64_t *credit; /* the peer's credit of the channel (ofi_peer's credit[ch]) */
  uint64_t pad;            /* (32 bytes: an index is a shift) */
};

/* The wire header of an Active Message.  It carries credits back to the
 * receiver (bytes of its requests/replies we have handled) and the AM
 * header truncated after its last argument; the payload follows at an
 * 8-byte aligned offset.  Every message length is a multiple of 8, so
 * messages packed into a multi-receive buffer stay 8-byte aligned. */
enum {
  OFI_WIRE_AM = 1,
  OFI_WIRE_CREDIT = 2,
  OFI_WIRE_LONG_PACKED = 3,
  OFI_WIRE_AUTH = 4,
  OFI_WIRE_BATCH = 5 /* small AMs, each an ofi_wire from 'h' on (ofi_am_batch.c) */
};
struct ofi_wire {
  uint32_t credit[2];
  uint64_t token; /* the session token of (sender -> receiver), ofi_auth.c */
  uint8_t type;
  uint8_t pad[7];
  struct gexi_am_hdr h;
};

/* A handshake message (type OFI_WIRE_AUTH; ofi_auth.c).  'from' and 'to'
 * are the claimed ranks; the MAC binds them, both nonces and the step. */
enum { OFI_AUTH_MSG_HELLO = 1, OFI_AUTH_MSG_CHALLENGE, OFI_AUTH_MSG_PROOF, OFI_AUTH_MSG_OK };
struct ofi_auth_msg {
  uint32_t credit[2]; /* always 0 */
  uint64_t token;     /* always 0 */
  uint8_t type;       /* OFI_WIRE_AUTH */
  uint8_t step;       /* OFI_AUTH_MSG_* */
  uint8_t pad[2];
  uint32_t from, to;
  uint32_t pad2;
  unsigned char nonce_init[16], nonce_resp[16];
  uint64_t mac;
};
#define OFI_AUTH_MSG_LEN sizeof(struct ofi_auth_msg)
_Static_assert(sizeof(struct ofi_auth_msg) % 8 == 0, "wire messages are multiples of 8 bytes");
#define OFI_WIRE_HDR_LEN(nargs) \
  ((offsetof(struct ofi_wire, h.args) + (size_t)(nargs) * sizeof(gex_AM_Arg_t) + 7) & ~(size_t)7)
#define OFI_ROUND8(n) (((n) + 7) & ~(size_t)7)
/* Largest message built on the stack (and injected, or added to a batch). */
#define OFI_STACK_WIRE 256
/* The bytes of a message before its AM header: a batch's header, and what a
 * record of a batch leaves out. */
#define OFI_WIRE_PREFIX offsetof(struct ofi_wire, h)

/* Long payloads up to this size travel inside the message and are copied
 * into place by the receiver (one message instead of a write and a send). */
#define OFI_LONG_PACK_MAX GEXI_AM_MAX_MEDIUM

/* ---- ofi_init.c ---- */
/* Start the transport if some rank is on another node; sets gexi_ctx.net.
 * 'one_host': every rank shares this host's network stack (forced network
 * on one host), so the loopback interface is preferred. */
void gexi_ofi_start(int one_host);
void gexi_ofi_lib_load(struct gexi_ofi_lib *lib);
const char *gexi_ofi_strerror(ssize_t rc);
/* Process exit: remove what the provider would leave behind (the 'shm'
 * provider's /dev/shm object).  Safe from any thread, never blocks. */
void gexi_ofi_at_exit(void);
GEXI_NORETURN void gexi_ofi_fail(const char *what, ssize_t rc);

/* ---- ofi_mr.c ---- */
/* Register a buffer with a random requested key (bound and enabled under
 * FI_MR_ENDPOINT); ends the job on failure. */
struct fid_mr *gexi_ofi_reg(const void *buf, size_t len, uint64_t access);
void gexi_ofi_seg_register(void *base, uintptr_t size, uint64_t *key);
void gexi_ofi_seg_peer(gex_Rank_t jobrank, uint64_t key);
/* Descriptor for a local buffer: the segment's, or (FI_MR_LOCAL providers
 * only) a temporary registration returned in *tmp to be closed later. */
void *gexi_ofi_local_desc(const void *buf, size_t len, uint64_t access, struct fid_mr **tmp);
/* Rendezvous regions (transport.h: expose, unexpose). */
void *gexi_ofi_expose(const void *buf, size_t len, uint64_t *key, uint64_t *raddr);
void gexi_ofi_unexpose(void *handle);
static inline uint64_t gexi_ofi_raddr(gex_Rank_t jobrank, const void *addr) {
  return (uint64_t)(uintptr_t)addr - gexi_ctx.ofi->peers[jobrank].addr_base;
}
/* The remote side of a transfer: where in the peer's registered memory,
 * and its key.  gexi_ofi_remote: addr in the segment bound to jobrank's
 * endpoint k -- the primordial one's, registered at attach, or a region
 * the peer exposed when it bound a segment to k > 0 (rma/rma_ep.c). */
struct ofi_remote {
  uint64_t raddr, key;
};
static inline struct ofi_remote gexi_ofi_remote(gex_Rank_t jobrank, gex_EP_Index_t k,
                                                const void *addr) {
  if (!k) return (struct ofi_remote){gexi_ofi_raddr(jobrank, addr), gexi_ctx.ofi->peers[jobrank].key};
  const struct gexi_ep_tab *t = gexi_ctx.ep_tabs[k];
  return (struct ofi_remote){t->net_raddr[jobrank] + ((uintptr_t)addr - t->peers[jobrank].seg_base),
                             t->net_key[jobrank]};
}

/* ---- ofi_rma.c ---- */
gex_Event_t gexi_ofi_put(gex_Rank_t jobrank, void *dest, const void *src, size_t nbytes,
                         gex_Event_t *lc_opt, gex_Flags_t flags, int mode);
gex_Event_t gexi_ofi_get(gex_Rank_t jobrank, void *dest, void *src, size_t nbytes,
                         gex_Flags_t flags, int mode);
/* The transport's put_nbi entry (transport.h): gexi_ofi_put_nbi tries the
 * counted endpoint first (the entry when it is open), gexi_ofi_put_nbi_main
 * the main endpoint (the entry when it is not). */
int gexi_ofi_put_nbi(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank, void *dest,
                     uint64_t lc_flags);
int gexi_ofi_put_nbi_main(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank,
                          void *dest, uint64_t lc_flags);
int gexi_ofi_nbi_test(gex_EC_t mask);
/* Open the counted RMA endpoint where the provider offers counters (and
 * GEX_OFI_COUNTED_RMA allows it); the calling thread becomes its owner. */
void gexi_ofi_counted_open(void);
/* A write on the counted endpoint: its source copied at once (FI_INJECT),
 * no completion entry, counted when delivered (the endpoint's
 * write_flags given per call: fi_inject_write's counter moved when the
 * data had left, and a Get after gex_NBI_Wait read what was there
 * before -- net and tcp;ofi_rxm alike). */
static inline ssize_t gexi_ofi_counted_write(struct gexi_ofi *o, const void *local, size_t nbytes,
                                             fi_addr_t j, uint64_t raddr, uint64_t key) {
  /* The owner's message, its constant fields set once (ofi_counted.c). */
  o->rma_wiov = (struct iovec){(void *)local, nbytes};
  o->rma_wrma = (struct fi_rma_iov){raddr, nbytes, key};
  o->rma_wmsg.addr = j;
  return fi_writemsg(o->rma_ep, &o->rma_wmsg, o->rma_wflags);
}
/* The owner takes the operations the counters report done off its tracker. */
void gexi_ofi_counted_reap(void);
/* Post again, with progress, the write or read (rma_last) the endpoint refused with rc. */
void gexi_ofi_counted_retry(ssize_t rc, int is_write);
/* transport.h: region_begin. */
void gexi_ofi_region_begin(void);
struct gexi_net_nbi *gexi_ofi_thread_tracker(void);
uint64_t gexi_ofi_counted_ops(void);
/* transport.h: get_exposed, put_exposed. */
void gexi_ofi_get_exposed(gex_Rank_t jobrank, size_t n, const struct gexi_exposed_rma *r);
void gexi_ofi_put_exposed(gex_Rank_t jobrank, size_t n, const struct gexi_exposed_rma *w,
                          void (*then)(void *arg, size_t first, size_t k), void *arg);
/* transport.h: rma_exposed. */
gex_Event_t gexi_ofi_rma_exposed(gex_Rank_t jobrank, int is_write, const struct gexi_exposed_rma *x,
                                 int mode);
/* Write nbytes to the peer at r and wait until they are delivered there. */
void gexi_ofi_write_sync(gex_Rank_t jobrank, struct ofi_remote r, const void *src, size_t nbytes,
                         int what);
/* Wait, polling 'what', until op->done. */
void gexi_ofi_wait_op(struct ofi_op *op, int what);
int gexi_ofi_event_done_ev(gex_Event_t e, int *moved);
void gexi_ofi_event_free(gex_Event_t e);
gex_Event_t gexi_ofi_event_leaf(gex_Event_t root, gex_EC_t category);
gex_Event_t gexi_ofi_region_event(void);

/* Operation contexts (ofi_rma.c): a heap op of the given kind, and one
 * counted in this thread's NBI tracker (or its open access region's). */
struct ofi_op *gexi_ofi_op_new(int kind);
struct ofi_op *gexi_ofi_nbi_op(int nbi_kind);

/* ---- ofi_atomic.c (provider-native remote atomics, docs/atomics.md) ---- */
/* 1 iff the provider performs (dt, every opcode in ops) natively. */
int gexi_ofi_atomic_valid(gex_DT_t dt, gex_OP_t ops);
/* 1 iff the provider's atomics are done by the NIC (policy of GEX_AD_NATIVE=auto). */
int gexi_ofi_atomic_in_hw(void);
/* Open the endpoint with FI_ATOMIC?  (GEX_AD_NATIVE, and the policy above.) */
int gexi_ofi_atomic_wanted(const char *prov_name);
const char *gexi_ofi_provider(void);
gex_Event_t gexi_ofi_atomic(const char *fn, gex_Rank_t jobrank, gex_DT_t dt, gex_OP_t op,
                            void *addr, uint64_t operand1, uint64_t operand2, void *result_p,
                            gex_Flags_t flags, int mode);

/* ---- ofi_am.c ---- */
int gexi_ofi_am_send(gex_Rank_t jobrank, const struct gexi_am_hdr *h, const void *payload,
                     gex_Flags_t flags);
int gexi_ofi_am_short(int ch, gex_Rank_t jobrank, gex_AM_Index_t handler, gex_Flags_t flags,
                      unsigned nargs, const gex_AM_Arg_t *args);
int gexi_ofi_poll(int what);
void gexi_ofi_am_setup(void);
/* Post rx (again) on its endpoint (ofi_am.c). */
void gexi_ofi_rx_post(struct ofi_rxbuf *rx);
/* Hand a built message to the provider ('bounce': buf is a pool buffer to
 * return at completion; otherwise small enough to inject). */
void gexi_ofi_send_wire(gex_Rank_t j, void *buf, size_t len, int bounce, int what);
void *gexi_ofi_pool_get(int what);
void gexi_ofi_pool_put(void *buf);
/* One received message: 'src' is the sender's jobrank as the provider
 * reports it (FI_ADDR_NOTAVAIL: unknown; without FI_SOURCE: FI_ADDR_UNSPEC).
 * Authenticates, validates and delivers it, or drops it with a report.
 * Releases rx (NULL: nothing to release) unless the message is deferred. */
void gexi_ofi_handle_msg(const void *msg, size_t len, fi_addr_t src, struct ofi_rxbuf *rx,
                         int what);
/* Deliver a checked data message of admitted peer p (jobrank src) whose
 * credits were taken: 'w' is a copy of its first bytes (modified here),
 * 'msg' the whole message (len bytes).  Run its handler, or keep a copy of
 * a Request for a full poll when 'what' is GEXI_POLL_REPLIES.  Leaves the
 * receive buffer to the caller. */
void gexi_ofi_deliver(struct ofi_peer *p, gex_Rank_t src, struct ofi_wire *w, const void *msg,
                      size_t len, int what);

/* Move what we owe peer p into the credit fields of a message to it. */
static inline void gexi_ofi_take_owed(struct ofi_peer *p, struct ofi_wire *w) {
  w->credit[0] = atomic_exchange_explicit(&p->owed[0], 0, memory_order_relaxed);
  w->credit[1] = atomic_exchange_explicit(&p->owed[1], 0, memory_order_relaxed);
}

/* ---- ofi_am_batch.c (batches of small AMs) ---- */
void gexi_ofi_batch_setup(void);
uint64_t gexi_ofi_batched(void);
/* Append a built AM (an ofi_wire of 'len' bytes, its credit already spent;
 * only the part from 'h' on is read) to peer j's batch of its channel:
 * 1 when taken, 0 when the caller must send it on its own (then no such
 * batch is open, so the AMs of a channel leave in the order they were
 * made).  'what': the channel, which is what the sender may poll
 * (GEXI_POLL_ALL for a Request; a full batch is sent at once). */
int gexi_ofi_batch_add(gex_Rank_t j, const struct ofi_wire *w, size_t len, int what);
/* The credit a Short of nargs arguments costs (a whole buffer where each
 * message takes one). */
static inline int64_t gexi_ofi_short_cost(const struct gexi_ofi *o, unsigned nargs) {
  return o->short_cost[nargs];
}
/* Take 'cost' from a peer's credit counter; 0 when it did not have that
 * much (the caller gives it back).  Written old - cost < 0 rather than
 * old < cost: GCC makes that one locked subtraction and a test of its sign,
 * with no register holding the old value or, after it, the cost. */
static inline int gexi_ofi_spend(_Atomic int64_t *credit, int64_t cost) {
  return atomic_fetch_sub_explicit(credit, cost, memory_order_acq_rel) - cost >= 0;
}
/* gexi_ofi_am_short (transport.h's am_short) for a Short whose peer's batch
 * it joins (gexi_ofi_batch_wanted): written straight into the batch from its
 * arguments, or, when the peer is not admitted yet or there is no credit or
 * no buffer, gexi_ofi_am_short_slow (the general path). */
int gexi_ofi_am_short_batched(int ch, gex_Rank_t j, gex_AM_Index_t handler, gex_Flags_t flags,
                              unsigned nargs, const gex_AM_Arg_t *args);
int gexi_ofi_am_short_no_credit(int ch, gex_Rank_t j, gex_AM_Index_t handler, gex_Flags_t flags,
                                unsigned nargs, const gex_AM_Arg_t *args);
int gexi_ofi_am_short_slow(int ch, gex_Rank_t j, gex_AM_Index_t handler, gex_Flags_t flags,
                           unsigned nargs, const gex_AM_Arg_t *args);
/* Send peer j's open batch of channel 'what', if any (before an AM of
 * that channel sent on its own). */
void gexi_ofi_batch_flush(gex_Rank_t j, int what);
/* Send every open batch (at every poll; 'what' as the poll's). */
void gexi_ofi_batch_flush_all(int what);
/* NULL when the received batch msg (len bytes, type OFI_WIRE_BATCH) is
 * well formed: every record a valid Short or Medium, all Requests or all
 * Replies (see
 * gexi_ofi_check), back to back up to its end; else the first bad field. */
const char *gexi_ofi_batch_check(const void *msg, size_t len);
/* Deliver each record of a checked batch of admitted peer p (jobrank src,
 * whose token matched), in order, as gexi_ofi_deliver does a message. */
void gexi_ofi_batch_deliver(struct ofi_peer *p, gex_Rank_t src, uint64_t token, const void *msg,
                            size_t len, int what);
/* Whether an AM to peer p goes to gexi_ofi_batch_add: batching is on and a
 * batch is open somewhere or we sent p an AM since the last poll.
 * Otherwise it is sent on its own, and p remembers the poll generation. */
static inline int gexi_ofi_batch_wanted(struct gexi_ofi *o, struct ofi_peer *p) {
  if (GEXI_LIKELY(!o->batch_max)) return 0;
  uint32_t gen = atomic_load_explicit(&o->poll_gen, memory_order_relaxed);
  if (atomic_load_explicit(&o->nbatch_open, memory_order_relaxed) ||
      atomic_load_explicit(&p->tx_gen, memory_order_relaxed) == gen)
    return 1;
  atomic_store_explicit(&p->tx_gen, gen, memory_order_relaxed);
  return 0;
}

/* ---- ofi_auth.c (admission of peers, docs/security.md) ---- */
/* Load the job's secret from the bootstrap (collective under PMIx). */
void gexi_ofi_auth_init(int one_host);
/* Wait (polling 'what') until peer j has admitted us, starting the
 * handshake if nobody has. */
void gexi_ofi_auth_connect(gex_Rank_t j, int what);
/* A handshake message from jobrank src (already checked: src < size). */
void gexi_ofi_auth_recv(gex_Rank_t src, const void *msg, size_t len);
/* A message that failed admission or validation: count it; report the
 * first few with one line naming the source and the reason. */
void gexi_ofi_drop(fi_addr_t src, size_t len, const char *why, const char *field);

/* ---- ofi_check.c (validation of received messages) ---- */
/* NULL when the data message w (len bytes received, type AM, CREDIT or
 * LONG_PACKED) is well formed for this rank, else the name of the first bad
 * field.  Checks lengths against the bytes received and the category's
 * maximum, the category, direction, handler (registered, for this category,
 * direction and argument count), nargs and a Long's destination range
 * inside this rank's bound segment.  Credit fields are checked by the
 * caller (they depend on the sender's channel state). */
const char *gexi_ofi_check(const struct ofi_wire *w, size_t len);

/* Retry a posting call while the provider says -FI_EAGAIN, progressing the
 * endpoint (polling 'what') in between. */
#define OFI_RETRY(call, what, desc)                       \
  do {                                                    \
    ssize_t rc_;                                          \
    while ((rc_ = (call)) == -FI_EAGAIN) gexi_ofi_progress_stalled(what); \
    if (rc_) gexi_ofi_fail(desc, rc_);                    \
  } while (0)
void gexi_ofi_progress_stalled(int what);
int gexi_ofi_block(int timeout_us);

#endif

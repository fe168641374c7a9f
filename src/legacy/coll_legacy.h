/* legacy/coll_legacy.h -- internals of the GASNet-1 prototype collectives
 * (gasnet_coll_*, include/gasnet_coll_legacy.h).
 *
 * Built only on the public API: Active Messages carry the data and the
 * synchronisation rounds, gex_Coll_* serves the one-time set-up and the
 * named barriers.  Algorithms and semantics: docs/legacy-collectives.md.
 */
#ifndef GEXI_LEGACY_COLL_LEGACY_H
#define GEXI_LEGACY_COLL_LEGACY_H

#include <gasnet_coll.h>
#include <stddef.h>
#include <stdint.h>

enum gexi_lcoll_kind {
  GEXI_LCOLL_BROADCAST,
  GEXI_LCOLL_SCATTER,
  GEXI_LCOLL_GATHER,
  GEXI_LCOLL_GATHER_ALL,
  GEXI_LCOLL_EXCHANGE
};

/* Where an operation is.  IN_BARRIER and OUT_BARRIER are dissemination
 * barriers over the team (IN_ALLSYNC and OUT_ALLSYNC only); SEND pushes
 * this rank's blocks to their destinations; RECV waits for every block
 * that other ranks push here. */
enum gexi_lcoll_state {
  GEXI_LCOLL_IN_BARRIER,
  GEXI_LCOLL_SEND,
  GEXI_LCOLL_RECV,
  GEXI_LCOLL_OUT_BARRIER,
  GEXI_LCOLL_DONE
};

#define GEXI_LCOLL_MAGIC 0x6c636f6cu /* "lcol": marks a live operation */

/* One collective in flight in this process; a handle points at it. */
struct gexi_lcoll_op {
  uint32_t magic;
  uint32_t seq;                      /* the team's operation number, equal in every rank */
  struct gexi_lcoll_op *hash_next;   /* bucket chain of gexi_lcoll.ops[seq % buckets] */
  struct gexi_lcoll_op *prev, *next; /* the list of live operations, in initiation order */
  enum gexi_lcoll_kind kind;
  enum gexi_lcoll_state state;
  int flags;
  gex_Rank_t root;
  size_t nbytes;             /* one block */
  unsigned char *dst;        /* this rank's destination (NULL where it receives nothing) */
  const unsigned char *src;  /* this rank's source (NULL where it sends nothing) */
  size_t dst_size;           /* bytes of dst that peers may write */
  size_t recv_expected;      /* bytes that peers push here */
  size_t recv_got;
  uint32_t rounds_got[2];    /* barrier rounds received, bit r = round r (IN, OUT) */
  unsigned round;            /* next barrier round to send in the current barrier */
  gex_Rank_t send_i;         /* SEND: index of the next destination, 0 .. size-2 */
  size_t send_off;           /* SEND: bytes of the current block already sent */
  int local_copied;          /* this rank's own block is in place */
  int busy;                  /* a thread is advancing it (with the lock dropped) */
};

/* An Active Message that arrived before this rank initiated its operation. */
struct gexi_lcoll_early {
  struct gexi_lcoll_early *next;
  uint32_t seq;
  gex_Rank_t from;
  int is_data;
  uint32_t code; /* sync: phase << 8 | round */
  size_t off;    /* data: destination offset */
  size_t len;
  unsigned char payload[]; /* data: len bytes */
};

#define GEXI_LCOLL_BUCKETS 64

/* The whole state of the legacy collectives: one per process.  'lock'
 * guards the operations, the early messages and next_seq; the fields from
 * tm to h_data are written once, by gexi_lcoll_setup under init_lock,
 * before 'ready' is set (release), and only read after; 'barriers' is
 * guarded by barrier_lock. */
struct gexi_lcoll_ctx {
  gex_HSL_t lock;
  int ready;      /* handlers registered in every rank of the team */
  gex_TM_t tm;    /* the primordial team */
  gex_Rank_t rank, size;
  unsigned nrounds; /* ceil(log2(size)): rounds of a dissemination barrier */
  size_t frag;      /* bytes per data message */
  gex_AM_Index_t h_sync, h_data;
  uint32_t next_seq; /* number of the next operation initiated here */
  struct gexi_lcoll_op *ops[GEXI_LCOLL_BUCKETS];
  struct gexi_lcoll_op *head, *tail;
  struct gexi_lcoll_early *early[GEXI_LCOLL_BUCKETS];
  struct gexi_lcoll_barrier *barriers; /* named barriers, one record per team used */
  pthread_mutex_t init_lock;
  pthread_mutex_t barrier_lock;
};

extern struct gexi_lcoll_ctx gexi_lcoll;

/* Report a misuse or a malformed message ("libgex: rank R: <call>: ...")
 * and end the job. */
#ifdef __GNUC__
__attribute__((noreturn, format(printf, 1, 2)))
#endif
void gexi_lcoll_fatal(const char *fmt, ...);

/* Collective: register the handlers on first use (every rank of the team
 * must make its first legacy data collective at the same point). */
void gexi_lcoll_setup(const char *call);

/* Initiate an operation whose fields kind, flags, root, nbytes, dst, src,
 * dst_size and recv_expected are set; returns its handle, or
 * GASNET_COLL_INVALID_HANDLE when it completed at once (op is then freed). */
gasnet_coll_handle_t gexi_lcoll_start(struct gexi_lcoll_op *op);

/* Advance every live operation one step where it can; returns nonzero if
 * anything moved. */
int gexi_lcoll_progress(void);

/* Handle -> operation, checked; GASNET_COLL_INVALID_HANDLE -> NULL. */
struct gexi_lcoll_op *gexi_lcoll_op_of(gasnet_coll_handle_t h, const char *call);

/* Complete and dead: unlink and free it, return 1; else 0. */
int gexi_lcoll_reap(struct gexi_lcoll_op *op);

#endif

/* coll/coll_am_engine.h -- what the three files of the AM collectives engine
 * share: coll_am.c (records and inbox, sending, trees, the state machines),
 * coll_am_rdv.c (rendezvous: fragments moved by RMA) and coll_am_xchg.c
 * (ReduceToAll by exchange: recursive doubling, halving, standing landing
 * buffers).  coll_am.c's opening comment describes the engine; nothing
 * outside these three files includes this header. */
#ifndef GEXI_COLL_AM_ENGINE_H
#define GEXI_COLL_AM_ENGINE_H

#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "am/am.h"
#include "am/am_internal.h"
#include "coll/coll_am.h"
#include "coll/coll_hier.h"
#include "coll/coll_ops.h"
#include "transport/transport.h"

#define TAG_UP (0u << 28)
#define TAG_DOWN (1u << 28)
#define TAG_BAR (2u << 28)
#define TAG_ACK (3u << 28) /* rendezvous: a fragment was read */
#define TAG_XCHG (4u << 28) /* ReduceToAll exchange: index step * fragments + fragment */
#define TAG_RTR (5u << 28)  /* rendezvous by push: a landing buffer (index: exchange step) */
#define TAG_INDEX_MAX ((1u << 28) - 1)
#define ANY_SRC GEX_RANK_INVALID
/* Recycled records kept at most (chunk records are one fragment each). */
#define FREE_SMALL_MAX 256
#define FREE_CHUNK_MAX 64
/* Larger records (rendezvous rounds) kept for reuse: a fresh one of a MiB
 * costs 256 page faults. */
#define FREE_BIG_MAX 4
#define RDV_MAGIC 0x6c676572u
/* Rendezvous fragments read at once (one sender's, consecutive). */
#define RDV_BATCH 8

struct gexi_cam_msg {
  struct gexi_cam_msg *next;
  uint32_t seq, tag;
  gex_Rank_t src;   /* sender's team rank */
  uint32_t nbytes;  /* payload bytes */
  size_t cap;       /* 0, the chunk size (both recycled) or larger (malloc'd) */
  alignas(max_align_t) unsigned char data[];
};

struct gexi_coll_am {
  pthread_mutex_t lock; /* inbox and free lists */
  struct gexi_cam_msg *head[GEXI_COLL_SLOTS], *tail[GEXI_COLL_SLOTS];
  struct gexi_cam_msg *free_small, *free_chunk, *free_big;
  unsigned nfree_small, nfree_chunk, nfree_big;
  /* read-only after init */
  size_t chunk;   /* fragment size: the largest eager Medium (GEXI_AM_EAGER_MEDIUM) */
  unsigned radix; /* k of the k-nomial trees (GEX_COLL_RADIX) */
  bool force;     /* GEX_COLL_FORCE_AM */
  bool hier;      /* GEX_COLL_HIER (default 1) */
  _Atomic uint64_t rdv_frags;  /* fragments moved by rendezvous (test hook) */
  _Atomic uint64_t rdv_pushed; /* of which written by push (test hook) */
  _Atomic uint64_t halved;     /* ReduceToAll collectives run by halving (test hook) */
  _Atomic uint64_t standing;   /* exchange steps landed in standing buffers (test hook) */
  _Atomic uint64_t same_node_ams; /* client-collective AMs to this node (test hook) */
};

/* A rendezvous fragment's announcement (or, by push, a landing buffer's):
 * the payload of its Medium. */
struct rdv_desc {
  uint64_t raddr, key; /* gexi_net_ops.expose of the sender's buffer, at the fragment */
  uint64_t len;        /* fragment bytes */
  uint32_t magic, pad;
};

/* A buffer this process exposed for one collective. */
struct rdv_expo {
  const unsigned char *base;
  size_t len;
  void *handle;
  uint64_t key, raddr;
};

/* Rendezvous state of one collective (e->rdv). */
struct gexi_cam_rdv {
  struct rdv_expo *x; /* exposures, released at completion */
  size_t n, cap;
  struct gexi_cam_msg *keep; /* engine buffers exposed (reduce partials, landing buffers) */
  size_t acks_due;           /* announcements not yet ACKed */
  bool push;                 /* by push where the pair allows it (push_with) */
  struct rdv_desc *kd;       /* broadcast: each child's landing buffer (push) */
  gex_Rank_t kd_got;         /* children whose announcement was taken (or not needed) */
};

/* Standing landing buffers of a team (see "Standing landing buffers"),
 * by doubling step s (index s - 1) and seq parity. */
#define XL_STEPS 32
struct xl_buf {
  struct gexi_cam_msg *m; /* NULL: none yet */
  size_t len;
  void *handle;
  uint64_t key, raddr;
};
struct gexi_xland {
  struct xl_buf mine[XL_STEPS][2];
  uint32_t mine_seq[XL_STEPS][2]; /* the collective mine[][] is granted for */
  bool mine_ok[XL_STEPS][2];
  struct rdv_desc theirs[XL_STEPS][2]; /* the partner's grants */
  uint32_t theirs_seq[XL_STEPS][2];
  bool theirs_ok[XL_STEPS][2];
};

/* ---- shared between the engine's files ---------------------------------- */
/* The fragment size: the largest eager Medium. */
static inline size_t gexi_cam_chunk(void) { return gexi_ctx.coll_am->chunk; }
/* coll_am.c */
struct gexi_cam_msg *gexi_cam_msg_alloc(size_t nbytes);
void gexi_cam_msg_free(struct gexi_cam_msg *m);
struct gexi_cam_msg *gexi_cam_take(uint32_t slot, uint32_t seq, uint32_t tag, gex_Rank_t src);
void gexi_cam_send_short(const struct gexi_Event *e, gex_Rank_t to, uint32_t seq, uint32_t tag);
void gexi_cam_send_medium(const struct gexi_Event *e, gex_Rank_t to, uint32_t seq, uint32_t tag,
                          const void *p, size_t nbytes);
GEXI_NORETURN void gexi_cam_mismatch(const struct gexi_Event *e, gex_Rank_t src, size_t got,
                                     size_t want);
void gexi_cam_send_frags(struct gexi_Event *e, gex_Rank_t to, uint32_t kind, size_t first,
                         const void *base, size_t blen, const unsigned char *p, size_t rbytes);
int gexi_cam_down(struct gexi_Event *e, int *moved);
/* coll_am_rdv.c */
bool gexi_cam_by_exchange(const struct gexi_Event *e);
bool gexi_cam_push_kind(const struct gexi_Event *e);
bool gexi_cam_rdv_wanted(const struct gexi_Event *e, size_t total);
void gexi_cam_send_frag(struct gexi_Event *e, gex_Rank_t to, uint32_t tag, const void *base,
                        size_t blen, const void *p, size_t len);
void gexi_cam_recv_frags(struct gexi_Event *e, size_t n, struct gexi_cam_msg *const *m,
                         void *const *dst, const size_t *len);
void gexi_cam_recv_frag(struct gexi_Event *e, struct gexi_cam_msg *m, void *dst, size_t len);
bool gexi_cam_push_with(const struct gexi_Event *e, gex_Rank_t peer);
void gexi_cam_send_rtr(struct gexi_Event *e, gex_Rank_t to, uint32_t tag, void *base, size_t blen,
                       void *p, size_t len);
int gexi_cam_take_rtr(struct gexi_Event *e, gex_Rank_t from, uint32_t tag, size_t len,
                      struct rdv_desc *d);
void gexi_cam_push_frags(struct gexi_Event *e, gex_Rank_t to, uint32_t kind, size_t first,
                         const struct rdv_desc *d, size_t doff, const unsigned char *p,
                         size_t rbytes, const struct rdv_desc *grant, bool *root_copy);
void gexi_cam_landed(struct gexi_Event *e, struct gexi_cam_msg *m, uint32_t s);
int gexi_cam_rdv_acked(struct gexi_Event *e, int *moved);
void gexi_cam_rdv_release(struct gexi_Event *e);
void gexi_cam_acc_retire(struct gexi_Event *e, bool announced);
size_t gexi_cam_dst_bytes(const struct gexi_Event *e);
/* coll_am_xchg.c */
void gexi_cam_xchg_start(struct gexi_Event *e);
void gexi_cam_xl_take_grant(struct gexi_Event *e, uint32_t s, const struct gexi_cam_msg *m);
int gexi_cam_xchg_reduce(struct gexi_Event *e, int *moved);

#endif

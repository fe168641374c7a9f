/* coll/coll_am.c -- collectives over Active Messages only, so they work for
 * teams whose members are on different hosts (whatever transport carries
 * the AMs).  See docs/collectives.md, "The AM engine".
 *
 * Messages.  Every message is a Request to handler GEXI_AMI_COLL_SHORT
 * (no payload) or GEXI_AMI_COLL_MEDIUM (one fragment of at most 'chunk'
 * bytes) with four arguments:
 *   slot  the team's slot (agreed by its members at creation)
 *   seq   the team's collective sequence number (t->am_seq at initiation)
 *   tag   kind (bits 28..31: UP toward the tree root, DOWN away from it,
 *         BAR a barrier round) and index (bits 0..27: round or fragment)
 *   src   the sender's rank in the team
 * (seq, tag, src) names one message of one collective uniquely, so the
 * order in which the transport delivers messages does not matter.
 *
 * Early arrivals.  Handlers never look at teams or events: they copy the
 * message into a record and append it to the inbox of its slot (per-slot
 * list, arrival order).  The state machine (run by coll.c under the
 * collective lock from initiation and Test/Wait) takes the record it needs
 * by (seq, tag, src) when it needs it; a message for a collective this
 * process has not initiated yet -- or for a team it has not finished
 * creating -- simply waits in the inbox.  Records are recycled through free
 * lists, so a steady stream of collectives does not allocate.
 *
 * Ownership.  A record belongs to the inbox until take() unlinks it, then
 * to the event that took it until msg_free().  The inbox lock is taken by
 * handlers and by take(); nothing is sent or polled while it is held (the
 * state machine sends with the collective lock held, and a send may poll
 * and run these handlers).
 *
 * Rendezvous.  A broadcast or reduction whose payload is at least
 * GEX_COLL_RDV_MIN bytes, on a transport with RMA (gexi_net_ops.expose),
 * moves in fragments of GEX_COLL_RDV_CHUNK bytes (default 512 KiB: one RMA
 * read each, large enough that the provider streams it, small enough to
 * pipeline through a tree -- 2.2 times faster than 1 MiB for a 1 MiB
 * ReduceToAll over tcp;ofi_rxm) that are not carried by the AMs:
 * the sender exposes the buffer holding them for remote reads and sends a
 * Medium with a struct rdv_desc (same slot, seq, tag and src as the
 * fragment would have); the receiver checks it, reads the fragment
 * straight into its destination (or an engine buffer) and answers with a
 * Short tagged ACK.  The sender keeps every exposed buffer unchanged until
 * all its ACKs are in, then releases them at completion.  Every member
 * makes the same choice from the collective's arguments, the environment
 * and the job-wide transport, so sender and receiver agree on fragment
 * boundaries.
 *
 * Rendezvous by push.  Where the transport delivers a send after the
 * writes posted before it (put_ordered) and GEX_COLL_RDV_PUSH is on, a
 * broadcast's fragments and the exchange's vectors go the other way round
 * between members on different neighbourhoods: the receiver exposes the
 * buffer they land in (its dst, or an engine buffer) and announces it once
 * with a Medium tagged RTR (struct rdv_desc: the whole buffer); the sender
 * writes each fragment into it and then sends a Short with the fragment's
 * tag, which arrives after the bytes.  No ACK: the sender's buffer is free
 * once its writes complete locally, and the receiver's once the last Short
 * is in.  That saves a one-way latency per transfer and lets a broadcast's
 * root finish without hearing back (2 ranks over net, 64 KiB: ReduceToAll
 * 28.5 us against 36.4 by reads, broadcast 17.9 against 23.9).  Between
 * two members of one neighbourhood the AMs go through shared memory, which
 * is not ordered with the network's writes, so those pairs keep the reads;
 * the choice depends only on the pair, so both ends make it alike.
 *
 * Standing landing buffers.  By push, a doubling step of a ReduceToAll
 * exchange waits for the partner's RTR before it writes, and the partner
 * sends that RTR only when it starts the collective: two members fall into
 * a ping-pong, each announcing its buffer for collective j + 1 only after
 * the other's vector of j arrived (two one-way latencies per collective).
 * So at doubling step s of collective j (GEX_COLL_RDV_STANDING bytes at
 * most) the Short telling the partner that fragment 0 of my vector landed
 * is a Medium carrying a grant: a buffer of mine that the team keeps,
 * exposed once, into which the partner writes its vector at step s of
 * collective j + 1 without waiting for an RTR.  Two buffers per step, by
 * the parity of seq: the one granted during j (parity j + 1) last held the
 * partner's vector of j - 1, folded before j - 1 completed here.  Both ends
 * know whether j + 1 lands in the grant: its seq is one above the grant's
 * and it is a doubling step by push of at most the granted size -- the same
 * arguments at every member -- and the partner holds the grant, having
 * taken every message of mine for j before completing j.  The grant rides
 * on a message that j consumes, so no message outlives its collective; the
 * buffers go with the team (gexi_cam_team_free).
 *
 * Why an inbox of a slot cannot hold stale messages: every message sent to
 * a process for a collective is consumed by that process's instance of the
 * collective before it completes there, so when a team is destroyed (all
 * its collectives locally complete) its slot's inbox is empty here; and a
 * new team gets a slot only once every member has published a set of used
 * slots without it, i.e. after destroying the old owner.
 */
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

/* Client-collective AMs sent to a process of this node (test hook). */
uint64_t gexi_coll_same_node_ams(void) { return atomic_load(&gexi_ctx.coll_am->same_node_ams); }
uint64_t gexi_coll_rdv_frags(void) { return atomic_load(&gexi_ctx.coll_am->rdv_frags); }
uint64_t gexi_coll_rdv_pushed(void) { return atomic_load(&gexi_ctx.coll_am->rdv_pushed); }
uint64_t gexi_coll_halved(void) { return atomic_load(&gexi_ctx.coll_am->halved); }
uint64_t gexi_coll_standing(void) { return atomic_load(&gexi_ctx.coll_am->standing); }

/* ---- records, inbox ------------------------------------------------------ */
static struct gexi_cam_msg *msg_alloc(size_t nbytes) {
  struct gexi_coll_am *c = gexi_ctx.coll_am;
  size_t cap = nbytes == 0 ? 0 : nbytes <= c->chunk ? c->chunk : nbytes;
  struct gexi_cam_msg *m = NULL;
  pthread_mutex_lock(&c->lock);
  if (cap == 0 && c->free_small) {
    m = c->free_small;
    c->free_small = m->next;
    c->nfree_small--;
  } else if (cap == c->chunk && c->free_chunk) {
    m = c->free_chunk;
    c->free_chunk = m->next;
    c->nfree_chunk--;
  } else if (cap > c->chunk) {
    for (struct gexi_cam_msg **pp = &c->free_big; *pp; pp = &(*pp)->next)
      if ((*pp)->cap >= cap) {
        m = *pp;
        *pp = m->next;
        c->nfree_big--;
        break;
      }
  }
  pthread_mutex_unlock(&c->lock);
  if (!m) {
    m = malloc(sizeof *m + cap);
    if (!m) gexi_fatal("out of memory");
    m->cap = cap;
  }
  m->next = NULL;
  return m;
}

static void msg_free(struct gexi_cam_msg *m) {
  if (!m) return;
  struct gexi_coll_am *c = gexi_ctx.coll_am;
  struct gexi_cam_msg *victim = NULL;
  pthread_mutex_lock(&c->lock);
  if (m->cap == 0 && c->nfree_small < FREE_SMALL_MAX) {
    m->next = c->free_small;
    c->free_small = m;
    c->nfree_small++;
    m = NULL;
  } else if (m->cap == c->chunk && c->nfree_chunk < FREE_CHUNK_MAX) {
    m->next = c->free_chunk;
    c->free_chunk = m;
    c->nfree_chunk++;
    m = NULL;
  } else if (m->cap > c->chunk) {
    /* Full: the smallest record gives way to a larger one (a run of larger
     * collectives would otherwise never be served from the cache). */
    struct gexi_cam_msg **small = NULL;
    if (c->nfree_big == FREE_BIG_MAX)
      for (struct gexi_cam_msg **pp = &c->free_big; *pp; pp = &(*pp)->next)
        if ((*pp)->cap < m->cap && (!small || (*pp)->cap < (*small)->cap)) small = pp;
    if (small) {
      victim = *small;
      *small = victim->next;
      c->nfree_big--;
    }
    if (c->nfree_big < FREE_BIG_MAX) {
      m->next = c->free_big;
      c->free_big = m;
      c->nfree_big++;
      m = NULL;
    }
  }
  pthread_mutex_unlock(&c->lock);
  free(m);
  free(victim);
}

/* Handlers' common part: record the message in its slot's inbox. */
static void enqueue(gex_AM_Arg_t slot, gex_AM_Arg_t seq, gex_AM_Arg_t tag, gex_AM_Arg_t src,
                    const void *payload, size_t nbytes) {
  struct gexi_coll_am *c = gexi_ctx.coll_am;
  uint32_t s = (uint32_t)slot;
  if (s >= GEXI_COLL_SLOTS) gexi_fatal("internal collective AM for team slot %u", (unsigned)s);
  struct gexi_cam_msg *m = msg_alloc(nbytes);
  m->seq = (uint32_t)seq;
  m->tag = (uint32_t)tag;
  m->src = (gex_Rank_t)src;
  m->nbytes = (uint32_t)nbytes;
  if (nbytes) memcpy(m->data, payload, nbytes);
  pthread_mutex_lock(&c->lock);
  if (c->tail[s])
    c->tail[s]->next = m;
  else
    c->head[s] = m;
  c->tail[s] = m;
  pthread_mutex_unlock(&c->lock);
}

static void coll_short_handler(gex_Token_t tok, gex_AM_Arg_t slot, gex_AM_Arg_t seq,
                               gex_AM_Arg_t tag, gex_AM_Arg_t src) {
  (void)tok;
  enqueue(slot, seq, tag, src, NULL, 0);
}

static void coll_medium_handler(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t slot,
                                gex_AM_Arg_t seq, gex_AM_Arg_t tag, gex_AM_Arg_t src) {
  (void)tok;
  enqueue(slot, seq, tag, src, buf, nbytes);
}

/* Unlink and return the message (seq, tag, src) of the slot's inbox, or
 * NULL if it has not arrived (src ANY_SRC: any sender). */
static struct gexi_cam_msg *take(uint32_t slot, uint32_t seq, uint32_t tag, gex_Rank_t src) {
  struct gexi_coll_am *c = gexi_ctx.coll_am;
  pthread_mutex_lock(&c->lock);
  struct gexi_cam_msg *prev = NULL, *m = c->head[slot];
  for (; m; prev = m, m = m->next) {
    if (m->seq != seq || m->tag != tag || (src != ANY_SRC && m->src != src)) continue;
    if (prev)
      prev->next = m->next;
    else
      c->head[slot] = m->next;
    if (c->tail[slot] == m) c->tail[slot] = prev;
    m->next = NULL;
    break;
  }
  pthread_mutex_unlock(&c->lock);
  return m;
}

void gexi_cam_slot_release(uint32_t slot) {
  struct gexi_coll_am *c = gexi_ctx.coll_am;
  pthread_mutex_lock(&c->lock);
  struct gexi_cam_msg *m = c->head[slot];
  c->head[slot] = c->tail[slot] = NULL;
  pthread_mutex_unlock(&c->lock);
#if GEX_CHECKS
  if (m)
    gexi_fatal("gex_TM_Destroy: internal error: a collective message (seq %u, tag %#x, from "
               "team rank %u) is still buffered for the team",
               (unsigned)m->seq, (unsigned)m->tag, (unsigned)m->src);
#endif
  while (m) {
    struct gexi_cam_msg *nx = m->next;
    msg_free(m);
    m = nx;
  }
}

/* ---- init, engine choice ---------------------------------------------------- */
void gexi_coll_am_init(void) {
  struct gexi_coll_am *c = calloc(1, sizeof *c);
  if (!c) gexi_fatal("out of memory");
  pthread_mutex_init(&c->lock, NULL);
  c->chunk = gex_AM_LUBRequestMedium();
  if (c->chunk > GEXI_AM_EAGER_MEDIUM) c->chunk = GEXI_AM_EAGER_MEDIUM; /* am/am.h */
  c->force = gexi_ctx.env.coll_force_am;
  c->hier = gexi_ctx.env.coll_hier;
  c->radix = gexi_ctx.env.coll_radix; /* 2..64 (core/env.c) */
  gexi_ctx.coll_am = c;
  gex_AM_Entry_t *h = gexi_ctx.ep.handlers;
  h[GEXI_AMI_COLL_SHORT] = (gex_AM_Entry_t){GEXI_AMI_COLL_SHORT, (gex_AM_Fn_t)coll_short_handler,
                                            GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 4, NULL,
                                            "libgex collective (short)"};
  h[GEXI_AMI_COLL_MEDIUM] = (gex_AM_Entry_t){
      GEXI_AMI_COLL_MEDIUM, (gex_AM_Fn_t)coll_medium_handler,
      GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 4, NULL, "libgex collective (medium)"};
  /* Decide the primordial team's engine now, so that coll_path never
   * changes once a team is visible to the client. */
  gexi_coll_team_am(gexi_ctx.tm);
}

int gexi_coll_team_am(struct gexi_team *t) {
  if (!t->coll_path) {
    struct gexi_coll_am *c = gexi_ctx.coll_am;
    gex_Rank_t nlocal = 0;
    /* Neighbourhood membership, not 'local' (whether the member's segment
     * is mapped here, which differs between members for a segment of
     * client memory): the choice must be the same in every member. */
    for (gex_Rank_t i = 0; i < t->head.size; i++)
      nlocal += gexi_ctx.local_index[t->peers[i].jobrank] != GEX_RANK_INVALID;
    if (nlocal == t->head.size && !c->force)
      t->coll_path = GEXI_COLL_PATH_SHM;
    else if (c->force || !c->hier)
      t->coll_path = GEXI_COLL_PATH_AM;
    else /* same decision everywhere: from the team's node layout */
      t->coll_path = gexi_coll_hier_useful(t) ? GEXI_COLL_PATH_HIER : GEXI_COLL_PATH_AM;
  }
  return t->coll_path != GEXI_COLL_PATH_SHM;
}

/* ---- sending ---------------------------------------------------------------- */
/* Count client-collective AMs to same-node peers (never by the hierarchical
 * path, whose leaders are on different nodes; e->flat_ok marks the flat
 * USER_NC fallback of a hierarchical team, which may send them). */
static void count_dest(const struct gexi_Event *e, gex_Rank_t to) {
  gex_Rank_t j = e->t->peers[to].jobrank;
  if (e->ckind != GEXI_COLL_GATHER && !e->flat_ok && j != gexi_ctx.rank &&
      gexi_ctx.local_index[j] != GEX_RANK_INVALID)
    atomic_fetch_add_explicit(&gexi_ctx.coll_am->same_node_ams, 1, memory_order_relaxed);
}

static void send_short(const struct gexi_Event *e, gex_Rank_t to, uint32_t seq, uint32_t tag) {
  struct gexi_team *t = e->t;
  count_dest(e, to);
  gex_AM_Arg_t a[4] = {(gex_AM_Arg_t)t->slot, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)tag,
                       (gex_AM_Arg_t)t->head.rank};
  gexi_AM_RequestShort(gexi_tm_handle(t), to, GEXI_AMI_COLL_SHORT, 0, 4, a);
}

/* The payload is copied (or sent) before the call returns. */
static void send_medium(const struct gexi_Event *e, gex_Rank_t to, uint32_t seq, uint32_t tag,
                        const void *p, size_t nbytes) {
  struct gexi_team *t = e->t;
  count_dest(e, to);
  gex_AM_Arg_t a[4] = {(gex_AM_Arg_t)t->slot, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)tag,
                       (gex_AM_Arg_t)t->head.rank};
  gexi_AM_RequestMedium(gexi_tm_handle(t), to, GEXI_AMI_COLL_MEDIUM, p, nbytes, GEX_EVENT_NOW,
                        0, 4, a);
}

static GEXI_NORETURN void mismatch(const struct gexi_Event *e, gex_Rank_t src, size_t got,
                                   size_t want) {
  static const char *const names[] = {"?", "gex_Coll_BarrierNB", "gex_Coll_BroadcastNB",
                                      "gex_Coll_Reduce*NB", "team construction"};
  gexi_fatal("%s: team rank %u sent %zu bytes where %zu were expected: the collective's "
             "arguments (size, count, type or root) differ between the members",
             names[e->ckind], (unsigned)src, got, want);
}

/* ---- rendezvous ----------------------------------------------------------------- */
/* From GEX_COLL_RDV_MIN bytes (32 KiB by default) where the data will move
 * by push (a broadcast, or a ReduceToAll by exchange, on a transport with
 * put_ordered): one write and one Short per fragment, no acknowledgement,
 * beat the 15 KiB fragments' copies (net, 4 ranks: broadcast 32 KiB 42.6
 * us against 61.6 in fragments, 64 KiB 57 against 95; ReduceToAll 32 KiB
 * 102 against 124; 2 ranks: ReduceToAll 32 KiB 26.3 against 35.7, 16 KiB
 * 25 against 19 -- fragments win below 32 KiB).  Where it will move by
 * reads, the readers' round trips cost more: from twice that where every
 * transfer is between two processes alone (the exchange, each of whose
 * steps moves a whole vector both ways; a broadcast in a team of two, one
 * read with nothing to pipeline: 64 KiB 25 us against 29-33 in fragments),
 * else from four times that (a tree, whose root serves every reader while
 * fragments pipeline: at 4 ranks 64 KiB took 184 us by reads and 110 in
 * fragments). */
static bool by_exchange(const struct gexi_Event *e) {
  return e->ckind == GEXI_COLL_REDUCE && e->root == GEX_RANK_INVALID && gexi_ctx.env.coll_xchg;
}

/* Whether a rendezvous of e moves by push (between the pairs push_with
 * allows); called only where gexi_ctx.net exposes buffers. */
static bool push_kind(const struct gexi_Event *e) {
  return (e->ckind == GEXI_COLL_BCAST || by_exchange(e)) && gexi_ctx.env.coll_rdv_push &&
         gexi_ctx.net->put_ordered();
}

static bool rdv_wanted(const struct gexi_Event *e, size_t total) {
  if (e->ckind == GEXI_COLL_GATHER || !gexi_ctx.net || !gexi_ctx.net->expose) return false;
  uint64_t min = gexi_ctx.env.coll_rdv_min;
  if (!push_kind(e))
    min *= by_exchange(e) || (e->ckind == GEXI_COLL_BCAST && e->t->head.size == 2) ? 2 : 4;
  return min && total >= min;
}

/* The exposure of the buffer [base, base+len), made on first use. */
static struct rdv_expo *expo_of(struct gexi_Event *e, const void *base, size_t len) {
  struct gexi_cam_rdv *r = e->rdv;
  for (size_t i = 0; i < r->n; i++)
    if (r->x[i].base == base) return &r->x[i];
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 4;
    r->x = realloc(r->x, r->cap * sizeof *r->x);
    if (!r->x) gexi_fatal("out of memory");
  }
  struct rdv_expo *x = &r->x[r->n++];
  x->base = base;
  x->len = len;
  x->handle = gexi_ctx.net->expose(base, len, &x->key, &x->raddr);
  return x;
}

/* Send fragment [p, p+len) of the buffer [base, base+blen) to team rank
 * 'to': as a Medium, or announced for a rendezvous read (the buffer must
 * then stay unchanged until completion). */
static void send_frag(struct gexi_Event *e, gex_Rank_t to, uint32_t tag, const void *base,
                      size_t blen, const void *p, size_t len) {
  if (!e->rdv) {
    send_medium(e, to, e->seq, tag, p, len);
    return;
  }
  const struct rdv_expo *x = expo_of(e, base, blen);
  struct rdv_desc d = {x->raddr + (uint64_t)((const unsigned char *)p - x->base), x->key, len,
                       RDV_MAGIC, 0};
  e->rdv->acks_due++;
  send_medium(e, to, e->seq, tag, &d, sizeof d);
}

/* The n fragment messages m[i] into dst[i] (len[i] bytes each): copied
 * from them, or read from their senders, all reads of one sender in flight
 * at once, and acknowledged.  Frees them. */
static void recv_frags(struct gexi_Event *e, size_t n, struct gexi_cam_msg *const *m,
                       void *const *dst, const size_t *len) {
  if (!e->rdv) {
    for (size_t i = 0; i < n; i++) {
      if (m[i]->nbytes != len[i]) mismatch(e, m[i]->src, m[i]->nbytes, len[i]);
      memcpy(dst[i], m[i]->data, len[i]);
      msg_free(m[i]);
    }
    return;
  }
  struct gexi_exposed_rma r[RDV_BATCH];
  for (size_t i = 0; i < n; i++) {
    struct rdv_desc d;
    if (m[i]->nbytes != sizeof d || m[i]->src >= e->t->head.size)
      mismatch(e, m[i]->src, m[i]->nbytes, len[i]);
    memcpy(&d, m[i]->data, sizeof d);
    if (d.magic != RDV_MAGIC || d.len != len[i]) mismatch(e, m[i]->src, d.len, len[i]);
    r[i] = (struct gexi_exposed_rma){dst[i], d.raddr, d.key, len[i]};
  }
  for (size_t i = 0, j; i < n; i = j) { /* runs of one sender */
    for (j = i + 1; j < n && m[j]->src == m[i]->src;) j++;
    gexi_ctx.net->get_exposed(e->t->peers[m[i]->src].jobrank, j - i, r + i);
  }
  atomic_fetch_add_explicit(&gexi_ctx.coll_am->rdv_frags, n, memory_order_relaxed);
  for (size_t i = 0; i < n; i++) {
    send_short(e, m[i]->src, e->seq, TAG_ACK);
    msg_free(m[i]);
  }
}

static void recv_frag(struct gexi_Event *e, struct gexi_cam_msg *m, void *dst, size_t len) {
  recv_frags(e, 1, &m, &dst, &len);
}

/* Whether the fragments between me and team rank 'peer' move by push (see
 * "Rendezvous by push"): only through the network, whose AMs are ordered
 * after its writes.  Symmetric in the pair. */
static bool push_with(const struct gexi_Event *e, gex_Rank_t peer) {
  return e->rdv && e->rdv->push &&
         gexi_ctx.local_index[e->t->peers[peer].jobrank] == GEX_RANK_INVALID;
}

/* Announce the landing buffer [p, p+len), inside [base, base+blen), to team
 * rank 'to'. */
static void send_rtr(struct gexi_Event *e, gex_Rank_t to, uint32_t tag, void *base, size_t blen,
                     void *p, size_t len) {
  const struct rdv_expo *x = expo_of(e, base, blen);
  struct rdv_desc d = {x->raddr + (uint64_t)((unsigned char *)p - x->base), x->key, len,
                       RDV_MAGIC, 0};
  send_medium(e, to, e->seq, tag, &d, sizeof d);
}

/* Take team rank 'from''s announcement of a landing buffer of len bytes
 * into *d; 0 if it has not arrived. */
static int take_rtr(struct gexi_Event *e, gex_Rank_t from, uint32_t tag, size_t len,
                    struct rdv_desc *d) {
  struct gexi_cam_msg *m = take(e->t->slot, e->seq, tag, from);
  if (!m) return 0;
  if (m->nbytes != sizeof *d) mismatch(e, m->src, m->nbytes, len);
  memcpy(d, m->data, sizeof *d);
  msg_free(m);
  if (d->magic != RDV_MAGIC || d->len != len) mismatch(e, from, d->len, len);
  return 1;
}

struct push_then {
  struct gexi_Event *e;
  gex_Rank_t to;
  uint32_t tag0;                /* tag of the first fragment of the batch */
  const struct rdv_desc *grant; /* carried by the batch's first message (or NULL) */
  bool root_copy;               /* a broadcast root's src to dst copy, not done yet */
};

/* put_exposed's 'then': the Shorts telling that fragments landed (the
 * first a Medium with the grant, if any).  A broadcast root also copies its
 * src into its own dst there, while the bytes are on their way: after
 * waiting for the writes, the copy would delay its next broadcast (net, 2
 * ranks, 1 MiB: the child's announcement for the next one came during the
 * copy). */
static void push_landed(void *arg, size_t first, size_t k) {
  struct push_then *p = arg;
  for (size_t i = first; i < first + k; i++)
    if (i == 0 && p->grant)
      send_medium(p->e, p->to, p->e->seq, p->tag0, p->grant, sizeof *p->grant);
    else
      send_short(p->e, p->to, p->e->seq, p->tag0 + (uint32_t)i);
  if (p->root_copy) {
    memcpy(p->e->dst, p->e->src, p->e->nbytes);
    p->root_copy = false;
  }
}

/* Push rbytes at p to team rank 'to', at offset doff of the landing buffer
 * it announced in *d, as fragments (tag kind | first + f): written, each
 * followed by its Short (the first one carrying 'grant' if not NULL);
 * returns once p is reusable.  With *root_copy, a broadcast root's copy of
 * src into dst is made once the first writes are posted, and *root_copy is
 * cleared. */
static void push_frags(struct gexi_Event *e, gex_Rank_t to, uint32_t kind, size_t first,
                       const struct rdv_desc *d, size_t doff, const unsigned char *p,
                       size_t rbytes, const struct rdv_desc *grant, bool *root_copy) {
  size_t c = e->chunk, n = (rbytes + c - 1) / c;
  struct gexi_exposed_rma w[RDV_BATCH];
  for (size_t f0 = 0; f0 < n; f0 += RDV_BATCH) {
    size_t k = n - f0 < RDV_BATCH ? n - f0 : RDV_BATCH;
    for (size_t i = 0; i < k; i++) {
      size_t off = (f0 + i) * c;
      w[i] = (struct gexi_exposed_rma){(void *)(uintptr_t)(p + off), d->raddr + doff + off, d->key,
                                       rbytes - off < c ? rbytes - off : c};
    }
    struct push_then pt = {e, to, kind | (uint32_t)(first + f0), f0 ? NULL : grant,
                           root_copy && *root_copy};
    gexi_ctx.net->put_exposed(e->t->peers[to].jobrank, k, w, push_landed, &pt);
    if (root_copy) *root_copy = pt.root_copy;
  }
  atomic_fetch_add_explicit(&gexi_ctx.coll_am->rdv_frags, n, memory_order_relaxed);
  atomic_fetch_add_explicit(&gexi_ctx.coll_am->rdv_pushed, n, memory_order_relaxed);
}

static void xl_take_grant(struct gexi_Event *e, uint32_t s, const struct gexi_cam_msg *m);

/* A fragment's Short from a pusher: its bytes are in place.  With a grant
 * for step s of the next collective when s is not 0. */
static void landed(struct gexi_Event *e, struct gexi_cam_msg *m, uint32_t s) {
  if (s)
    xl_take_grant(e, s, m);
  else if (m->nbytes)
    mismatch(e, m->src, m->nbytes, 0);
  msg_free(m);
}


/* Every announcement of e acknowledged? */
static int rdv_acked(struct gexi_Event *e, int *moved) {
  struct gexi_cam_rdv *r = e->rdv;
  while (r && r->acks_due) {
    struct gexi_cam_msg *m = take(e->t->slot, e->seq, TAG_ACK, ANY_SRC);
    if (!m) return 0;
    msg_free(m);
    r->acks_due--;
    *moved = 1;
  }
  return 1;
}

static void rdv_release(struct gexi_Event *e) {
  struct gexi_cam_rdv *r = e->rdv;
  if (!r) return;
  for (size_t i = 0; i < r->n; i++) gexi_ctx.net->unexpose(r->x[i].handle);
  free(r->x);
  free(r->kd);
  while (r->keep) {
    struct gexi_cam_msg *nx = r->keep->next;
    msg_free(r->keep);
    r->keep = nx;
  }
  free(r);
  e->rdv = NULL;
}

/* Done with the reduce accumulator: kept until completion if it was
 * announced for reading. */
static void acc_retire(struct gexi_Event *e, bool announced) {
  if (announced && e->rdv) {
    e->acc->next = e->rdv->keep;
    e->rdv->keep = e->acc;
  } else {
    msg_free(e->acc);
  }
  e->acc = NULL;
}

/* Bytes of dst a broadcast or reduction to all fills. */
static size_t dst_bytes(const struct gexi_Event *e) {
  return e->ckind == GEXI_COLL_REDUCE ? e->dt_cnt * e->dt_sz : e->nbytes;
}

/* ---- k-nomial trees ------------------------------------------------------------
 * Over relative ranks v = (team rank - troot) mod n.  Write v in base k; if
 * its lowest non-zero digit d sits at place value m, its parent is v - d*m
 * and its subtree is [v, v+m) (the root's: everything).  Its children are
 * v + d'*m' for every place value m' < m and digit d' in 1..k-1 (those
 * below n), in increasing order; child c's subtree is [c, c+m').  So a
 * subtree is a contiguous range of relative ranks and the children's
 * ranges follow each other in order: folding 'mine op child1 op child2 ...'
 * keeps rank order when troot is 0. */
static uint64_t low_place(uint64_t v, uint64_t n, uint64_t k) {
  uint64_t m = 1;
  if (v == 0) {
    while (m < n) m *= k;
    return m;
  }
  while ((v / m) % k == 0) m *= k;
  return m;
}

static gex_Rank_t span_of(uint64_t v, uint64_t n, uint64_t k) {
  uint64_t m = low_place(v, n, k);
  return (gex_Rank_t)(m < n - v ? m : n - v);
}

static gex_Rank_t rank_of(const struct gexi_Event *e, gex_Rank_t v) {
  return (gex_Rank_t)(((uint64_t)v + e->troot) % e->t->head.size);
}

/* A broadcast by rendezvous runs on a binomial tree (k = 2) whatever
 * GEX_COLL_RADIX says: its transfers are long, and a member that serves
 * fewer children gets the payload to all of them sooner (net, 4 ranks, 1
 * MiB: 352-404 us against 558 at k = 4). */
static void setup_tree(struct gexi_Event *e, gex_Rank_t troot) {
  uint64_t n = e->t->head.size;
  uint64_t k = e->ckind == GEXI_COLL_BCAST && e->rdv ? 2 : gexi_ctx.coll_am->radix;
  uint64_t v = ((uint64_t)e->t->head.rank + n - troot) % n;
  e->troot = troot;
  e->vrank = (gex_Rank_t)v;
  uint64_t lm = low_place(v, n, k);
  e->vparent = v == 0 ? GEX_RANK_INVALID : (gex_Rank_t)(v - ((v / lm) % k) * lm);
  gex_Rank_t cnt = 0;
  for (int pass = 0; pass < 2; pass++) {
    cnt = 0;
    for (uint64_t m = 1; m < lm && v + m < n; m *= k)
      for (uint64_t d = 1; d < k && v + d * m < n; d++) {
        if (pass) {
          e->kids[cnt] = (gex_Rank_t)(v + d * m);
          e->kid_span[cnt] = (gex_Rank_t)(m < n - (v + d * m) ? m : n - (v + d * m));
        }
        cnt++;
      }
    if (pass == 0 && cnt) {
      e->kids = malloc(2 * (size_t)cnt * sizeof *e->kids);
      if (!e->kids) gexi_fatal("out of memory");
      e->kid_span = e->kids + cnt;
    }
    if (cnt == 0) break;
  }
  e->nkids = cnt;
}

/* ---- state machines ---------------------------------------------------------- */
static size_t chunk(void) { return gexi_ctx.coll_am->chunk; }


/* Byte range of down-phase fragment g in dst. */
static void frag_range(const struct gexi_Event *e, size_t g, size_t *off, size_t *len) {
  size_t c = e->chunk;
  if (e->ckind == GEXI_COLL_REDUCE) {
    size_t r = g / e->nfrag, f = g % e->nfrag, first = r * e->per_round;
    size_t cnt = e->dt_cnt - first < e->per_round ? e->dt_cnt - first : e->per_round;
    size_t rbytes = cnt * e->dt_sz;
    *off = r * e->rb + f * c;
    *len = rbytes - f * c < c ? rbytes - f * c : c;
  } else {
    size_t total = e->ckind == GEXI_COLL_GATHER ? e->nbytes * e->t->head.size : e->nbytes;
    *off = g * c;
    *len = total - *off < c ? total - *off : c;
  }
}

static void xchg_start(struct gexi_Event *e);

static void start(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  gex_Rank_t n = t->head.size, me = t->head.rank;
  size_t frags = 0;
  e->chunk = chunk();
  if ((e->ckind == GEXI_COLL_BCAST || e->ckind == GEXI_COLL_REDUCE) && rdv_wanted(e, dst_bytes(e))) {
    if (!(e->rdv = calloc(1, sizeof *e->rdv))) gexi_fatal("out of memory");
    e->chunk = gexi_ctx.env.coll_rdv_chunk;
    /* In a team of two nothing is forwarded, so nothing gains from
     * pipelining: one fragment (net, 1 MiB: broadcast 117.7 us against
     * 126.3 in two, ReduceToAll 161.8 against 173.7; at 4 ranks 512 KiB
     * fragments won, 374 against 448 us for the broadcast). */
    if (e->t->head.size == 2 && dst_bytes(e) > e->chunk) e->chunk = dst_bytes(e);
    e->rdv->push = push_kind(e);
  }
  size_t c = e->chunk;
  switch (e->ckind) {
    case GEXI_COLL_BARRIER:
      e->nrounds = 0;
      while (((uint64_t)1 << e->nrounds) < n) e->nrounds++;
      e->round = 0;
      e->phase = 0;
      return;
    case GEXI_COLL_BCAST:
      setup_tree(e, e->root);
      frags = (e->nbytes + c - 1) / c;
      e->nrounds = e->vrank == 0; /* up phase: the root's sends */
      e->down_total = e->vrank == 0 ? 0 : frags;
      break;
    case GEXI_COLL_REDUCE: {
      bool all = e->root == GEX_RANK_INVALID;
      if (by_exchange(e)) {
        xchg_start(e);
        frags = ((size_t)e->xsteps + 2) * e->xfrags;
        break;
      }
      setup_tree(e, all || e->op == GEX_OP_USER_NC ? 0 : e->root);
      if (e->dt_sz <= c) {
        e->per_round = c / e->dt_sz;
        e->nfrag = 1;
      } else {
        e->per_round = 1;
        e->nfrag = (e->dt_sz + c - 1) / c;
      }
      e->rb = e->per_round * e->dt_sz;
      e->nrounds = (e->dt_cnt + e->per_round - 1) / e->per_round;
      frags = e->nrounds * e->nfrag;
      /* Who receives a down phase: every non-root of ReduceToAll; the root
       * of a ReduceToOne whose tree is rooted elsewhere (USER_NC). */
      e->down_total =
          (all && e->vrank != 0) || (!all && e->troot != e->root && me == e->root) ? frags : 0;
      break;
    }
    case GEXI_COLL_GATHER:
      setup_tree(e, 0);
      frags = (e->nbytes * n + c - 1) / c;
      e->nrounds = 1;
      e->down_total = e->vrank == 0 ? 0 : frags;
      memcpy((char *)e->dst + (size_t)me * e->nbytes, e->src, e->nbytes);
      break;
    default: break;
  }
  if (frags > TAG_INDEX_MAX)
    gexi_fatal("collective of %zu fragments: too large (at most %u)", frags,
               (unsigned)TAG_INDEX_MAX);
}

static int step_barrier(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  int moved = 0;
  while (e->round < e->nrounds) {
    uint32_t tag = TAG_BAR | (uint32_t)e->round;
    if (!e->phase) {
      send_short(e, (gex_Rank_t)(((uint64_t)t->head.rank + ((uint64_t)1 << e->round)) %
                                 t->head.size),
                 e->seq, tag);
      e->phase = 1;
      moved = 1;
    }
    struct gexi_cam_msg *m = take(t->slot, e->seq, tag, ANY_SRC);
    if (!m) return moved;
    msg_free(m);
    e->round++;
    e->phase = 0;
    moved = 1;
  }
  e->done = 1;
  return 1;
}

/* Send rbytes at p, inside the buffer [base, base+blen), to team rank 'to'
 * as fragments (tag kind | first + f). */
static void send_frags(struct gexi_Event *e, gex_Rank_t to, uint32_t kind, size_t first,
                       const void *base, size_t blen, const unsigned char *p, size_t rbytes) {
  size_t c = e->chunk;
  for (size_t off = 0, f = 0; off < rbytes; off += c, f++)
    send_frag(e, to, kind | (uint32_t)(first + f), base, blen, p + off,
              rbytes - off < c ? rbytes - off : c);
}

/* ---- ReduceToAll: recursive doubling ------------------------------------------
 * With p the largest power of two <= n and rem = n - p: at step 0
 * (fold-in) every even team rank below 2*rem sends its vector to the next
 * rank, which folds it in as the left operand; the even rank then only
 * waits for the result at step xlog+1 (fold-out).  The other p ranks take
 * virtual ranks v (odd r < 2*rem: r/2; r >= 2*rem: r - rem), and at steps
 * s = 1..xlog exchange their whole partial results with virtual rank
 * v ^ 2^(s-1), folding lower op higher (or, where the operands commute bit
 * for bit, mine op partner's: no copy of mine).  Each virtual rank stands for a
 * contiguous range of team ranks and, before step s, each partner holds the
 * fold of an aligned block of 2^(s-1) virtual ranks, so every fold keeps
 * rank order (GEX_OP_USER_NC) and both partners compute the same result
 * from the same operands, bit for bit.  Against the tree's reduce-then-
 * broadcast: log2(p) (+2) one-way latencies instead of two tree depths, and
 * no rank takes in more than one vector per step.  GEX_COLL_XCHG=0 runs
 * ReduceToAll on the tree instead (tests, comparisons). */
static gex_Rank_t xchg_real(gex_Rank_t v, gex_Rank_t rem) {
  return v < rem ? 2 * v + 1 : v + rem;
}

/* The level of doubling step s (1..xsteps): its partner is v XOR 2^(level-1).
 * Doubling: s.  Halving: s for the reduce-scatter steps 1..xlog, then back
 * down, xlog..1, for the allgather. */
static uint32_t xchg_level(const struct gexi_Event *e, uint32_t s) {
  return s <= e->xlog ? s : 2 * e->xlog - s + 1;
}

/* Partner of step s (GEX_RANK_INVALID: none); whether I send and receive. */
static gex_Rank_t xchg_partner(const struct gexi_Event *e, uint32_t s, bool *snd, bool *rcv) {
  gex_Rank_t n = e->t->head.size, me = e->t->head.rank;
  gex_Rank_t rem = n - ((gex_Rank_t)1 << e->xlog);
  bool edge = s == 0 || s == e->xsteps + 1;
  *snd = *rcv = false;
  if (me < 2 * rem && me % 2 == 0) { /* folded into me + 1 */
    if (!edge) return GEX_RANK_INVALID;
    *snd = s == 0;
    *rcv = !*snd;
    return me + 1;
  }
  if (edge) {
    if (me >= 2 * rem) return GEX_RANK_INVALID;
    *rcv = s == 0;
    *snd = !*rcv;
    return me - 1;
  }
  gex_Rank_t v = me < 2 * rem ? me / 2 : me - rem;
  *snd = *rcv = true;
  return xchg_real(v ^ ((gex_Rank_t)1 << (xchg_level(e, s) - 1)), rem);
}

static bool overlap(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  return n && x < y + n && y < x + n;
}

/* Whether x op y and y op x are the same bytes for every x, y: the built-in
 * operators on integers.  (Not floating point: MIN and MAX with signed
 * zeros or NaNs, and ADD of two NaNs, depend on the order.) */
static bool bitwise_commutes(const struct gexi_Event *e) {
  switch (e->dt) {
    case GEX_DT_I32: case GEX_DT_U32: case GEX_DT_I64: case GEX_DT_U64:
      return e->op != GEX_OP_USER && e->op != GEX_OP_USER_NC;
    default: return false;
  }
}

static void xchg_start(struct gexi_Event *e) {
  e->xchg = true;
  e->xlog = 0;
  while (((uint64_t)2 << e->xlog) <= e->t->head.size) e->xlog++;
  /* Halving from 4 doubling members, for payloads of at least 32 times
   * GEX_COLL_RDV_MIN (1 MiB by default) with an element for every member:
   * it takes twice as many steps, which cost more than it saves below that
   * (net, 4 ranks: 512 KiB 515 us against 483 by doubling, 256 KiB 403
   * against 314-345; 1 MiB 750-783 against 1214). */
  bool halve = e->rdv && e->xlog >= 2 && e->dt_cnt >= ((size_t)1 << e->xlog) &&
               dst_bytes(e) / 32 >= gexi_ctx.env.coll_rdv_min;
  e->xsteps = halve ? 2 * e->xlog : e->xlog;
  if (halve) atomic_fetch_add_explicit(&gexi_ctx.coll_am->halved, 1, memory_order_relaxed);
  e->xfrags = (dst_bytes(e) + e->chunk - 1) / e->chunk;
  e->xcur = e->src;
}

/* Fold the partner's vector (at 'into': e->asmb, or dst) into my partial
 * result e->xcur, the partner's on the left if lower.  The result lands in
 * dst at my last doubling step, else in an engine buffer, and becomes
 * e->xcur.  The caller has waited for the partner's ACKs if this writes a
 * buffer the partner may be reading; an engine buffer that held an
 * announced partial is kept until completion (acc_retire). */
static void xchg_fold(struct gexi_Event *e, unsigned char *into, bool lower, bool last) {
  size_t total = dst_bytes(e);
  unsigned char *out = into;
  if (!lower) { /* mine on the left: into the partner's vector, or into dst at the end */
    bool to_dst = last && into != e->dst && !overlap(e->dst, into, total) &&
                  (e->xcur == e->dst || !overlap(e->dst, e->xcur, total));
    if (to_dst && gexi_coll_combine_to(e, e->xcur, into, e->dst, e->dt_cnt)) {
      out = e->dst;
    } else {
      gexi_coll_combine(e, e->xcur, out, e->dt_cnt);
      if (last && out != e->dst) {
        memcpy(e->dst, out, total);
        out = e->dst;
      }
    }
  } else {
    out = last ? e->dst : e->acc ? e->acc->data : (e->acc = msg_alloc(total))->data;
    if (out != e->xcur) memmove(out, e->xcur, total); /* dst may be src */
    gexi_coll_combine(e, into, out, e->dt_cnt);
  }
  if (e->acc && out != e->acc->data) acc_retire(e, true);
  if (e->asmb && out == e->asmb->data) {
    e->acc = e->asmb;
  } else if (e->asmb && e->rdv && e->rdv->push) { /* it was a landing buffer: exposed */
    e->asmb->next = e->rdv->keep;
    e->rdv->keep = e->asmb;
  } else {
    msg_free(e->asmb);
  }
  e->asmb = NULL;
  e->xcur = out;
}

/* ---- ReduceToAll: halving -------------------------------------------------------
 * From 4 doubling members and 32 GEX_COLL_RDV_MIN bytes (xchg_start), the
 * doubling steps become a reduce-scatter and an allgather (Rabenseifner):
 * at reduce-scatter step s (partner v XOR 2^(s-1)) both partners hold the
 * same segment of elements; each keeps one half (the lower one where that
 * bit of v is 0), sends the other, and folds the partner's copy of its
 * half into its own, lower rank on the left as in doubling.  After xlog
 * steps each member holds the fully reduced 1/p of the vector; the
 * allgather undoes the steps (levels xlog..1), each member sending what it
 * holds and receiving its partner's into place.  Every member moves 2(p-1)/p
 * of a vector instead of log2(p) whole ones and folds (p-1)/p of one
 * instead of log2(p); every element is reduced at one member only, so all
 * end with the same bytes.  The working vector xw is dst where it is free
 * of src and xcur (or is them both, in place), else an engine buffer. */

/* The segment [*lo, *hi) of elements virtual rank v keeps after k
 * reduce-scatter steps. */
static void xseg(size_t cnt, gex_Rank_t v, uint32_t k, size_t *lo, size_t *hi) {
  size_t a = 0, b = cnt;
  for (uint32_t j = 0; j < k; j++) {
    size_t mid = a + (b - a) / 2;
    if ((v >> j) & 1)
      a = mid;
    else
      b = mid;
  }
  *lo = a;
  *hi = b;
}

static gex_Rank_t xvirt(const struct gexi_Event *e) {
  gex_Rank_t n = e->t->head.size, me = e->t->head.rank;
  gex_Rank_t rem = n - ((gex_Rank_t)1 << e->xlog);
  return me < 2 * rem ? me / 2 : me - rem;
}

/* ---- ReduceToAll: standing landing buffers (see the top of this file) ---- */

/* Whether step s of e, by push (psh) with its partner, grants a standing
 * buffer for the next collective: a doubling step of at most
 * GEX_COLL_RDV_STANDING bytes.  The same at both ends of the pair. */
static bool xl_eligible(const struct gexi_Event *e, uint32_t s, bool psh) {
  return psh && e->xchg && e->xsteps == e->xlog && s >= 1 && s <= e->xlog && s <= XL_STEPS &&
         dst_bytes(e) <= gexi_ctx.env.coll_rdv_standing;
}

/* My standing buffer the partner writes step s of e into, or NULL (then it
 * waits for my RTR). */
static unsigned char *xl_landing(const struct gexi_Event *e, uint32_t s, bool psh) {
  const struct gexi_xland *x = e->t->xland;
  unsigned p = e->seq & 1;
  if (!x || !xl_eligible(e, s, psh) || !x->mine_ok[s - 1][p] || x->mine_seq[s - 1][p] != e->seq)
    return NULL;
  const struct xl_buf *b = &x->mine[s - 1][p];
  return b->len >= dst_bytes(e) ? b->m->data : NULL;
}

/* The partner's standing buffer I write step s of e into, or NULL. */
static const struct rdv_desc *xl_target(const struct gexi_Event *e, uint32_t s, bool psh) {
  const struct gexi_xland *x = e->t->xland;
  unsigned p = e->seq & 1;
  if (!x || !xl_eligible(e, s, psh) || !x->theirs_ok[s - 1][p] || x->theirs_seq[s - 1][p] != e->seq)
    return NULL;
  return x->theirs[s - 1][p].len >= dst_bytes(e) ? &x->theirs[s - 1][p] : NULL;
}

static struct gexi_xland *xl_of(struct gexi_team *t) {
  if (!t->xland && !(t->xland = calloc(1, sizeof *t->xland))) gexi_fatal("out of memory");
  return t->xland;
}

static void xl_buf_release(struct xl_buf *b) {
  if (!b->m) return;
  gexi_ctx.net->unexpose(b->handle);
  msg_free(b->m);
  *b = (struct xl_buf){0};
}

/* My grant for step s of the collective after e: the buffer of its parity
 * (free: see the top of this file), grown to e's size if smaller. */
static void xl_grant(struct gexi_Event *e, uint32_t s, struct rdv_desc *g) {
  struct gexi_xland *x = xl_of(e->t);
  uint32_t next = e->seq + 1;
  struct xl_buf *b = &x->mine[s - 1][next & 1];
  size_t total = dst_bytes(e);
  if (b->m && b->len < total) xl_buf_release(b);
  if (!b->m) {
    b->m = msg_alloc(total);
    b->len = total;
    b->handle = gexi_ctx.net->expose(b->m->data, total, &b->key, &b->raddr);
  }
  x->mine_seq[s - 1][next & 1] = next;
  x->mine_ok[s - 1][next & 1] = true;
  *g = (struct rdv_desc){b->raddr, b->key, b->len, RDV_MAGIC, 0};
}

/* The partner's grant for step s of the collective after e, in m. */
static void xl_take_grant(struct gexi_Event *e, uint32_t s, const struct gexi_cam_msg *m) {
  struct rdv_desc d;
  if (m->nbytes != sizeof d) mismatch(e, m->src, m->nbytes, sizeof d);
  memcpy(&d, m->data, sizeof d);
  if (d.magic != RDV_MAGIC || d.len < dst_bytes(e)) mismatch(e, m->src, d.len, dst_bytes(e));
  struct gexi_xland *x = xl_of(e->t);
  uint32_t next = e->seq + 1;
  x->theirs[s - 1][next & 1] = d;
  x->theirs_seq[s - 1][next & 1] = next;
  x->theirs_ok[s - 1][next & 1] = true;
}

void gexi_cam_team_free(struct gexi_team *t) {
  struct gexi_xland *x = t->xland;
  if (!x) return;
  for (size_t i = 0; i < XL_STEPS; i++)
    for (size_t p = 0; p < 2; p++) xl_buf_release(&x->mine[i][p]);
  free(x);
  t->xland = NULL;
}

/* One step s of a segment exchange with team rank pr (tags TAG_XCHG from
 * s * xfrags): send sn bytes at p, inside [base, base+blen), and receive rn
 * bytes into q, inside [rbase, rbase+rlen) (either may be 0 bytes): by
 * push where the pair allows it, else by rendezvous reads.  'standing': q
 * is my standing buffer, granted to the partner (no RTR).  0 until done;
 * state in xsent, xgot and rtr_sent, which the caller resets per step. */
static int seg_xfer(struct gexi_Event *e, uint32_t s, gex_Rank_t pr, const void *base,
                    size_t blen, const unsigned char *p, size_t sn, unsigned char *rbase,
                    size_t rlen, unsigned char *q, size_t rn, bool standing, int *moved) {
  size_t c = e->chunk, first = (size_t)s * e->xfrags;
  bool psh = push_with(e, pr), grants = xl_eligible(e, s, psh);
  if (psh && rn && !e->rtr_sent) {
    if (!standing) send_rtr(e, pr, TAG_RTR | s, rbase, rlen, q, rn);
    e->rtr_sent = true;
    *moved = 1;
  }
  if (sn && !e->xsent) {
    if (psh) {
      struct rdv_desc d, g;
      const struct rdv_desc *w = xl_target(e, s, psh);
      if (w)
        d = *w;
      else if (!take_rtr(e, pr, TAG_RTR | s, sn, &d))
        return 0;
      if (grants) xl_grant(e, s, &g);
      push_frags(e, pr, TAG_XCHG, first, &d, 0, p, sn, grants ? &g : NULL, NULL);
    } else {
      send_frags(e, pr, TAG_XCHG, first, base, blen, p, sn);
    }
    e->xsent = true;
    *moved = 1;
  }
  for (size_t nfr = (rn + c - 1) / c; e->xgot < nfr;) {
    uint32_t tag = TAG_XCHG | (uint32_t)(first + e->xgot);
    struct gexi_cam_msg *m = take(e->t->slot, e->seq, tag, pr);
    if (!m) return 0;
    size_t off = e->xgot * c;
    if (psh)
      landed(e, m, grants && e->xgot == 0 ? s : 0);
    else
      recv_frag(e, m, q + off, rn - off < c ? rn - off : c);
    e->xgot++;
    *moved = 1;
    if (standing && e->xgot == nfr)
      atomic_fetch_add_explicit(&gexi_ctx.coll_am->standing, 1, memory_order_relaxed);
  }
  return 1;
}

/* Halving step s (1..2 xlog) with team rank pr; 0 until done. */
static int halve_step(struct gexi_Event *e, uint32_t s, gex_Rank_t pr, int *moved) {
  size_t sz = e->dt_sz, total = dst_bytes(e);
  uint32_t lvl = xchg_level(e, s);
  bool rs = s <= e->xlog;
  gex_Rank_t v = xvirt(e), pv = v ^ ((gex_Rank_t)1 << (lvl - 1));
  size_t alo, ahi, blo, bhi; /* mine and the partner's at this level */
  xseg(e->dt_cnt, v, lvl, &alo, &ahi);
  xseg(e->dt_cnt, pv, lvl, &blo, &bhi);
  if (!e->xw) {
    if (e->xcur == e->dst || (!overlap(e->dst, e->xcur, total) && !overlap(e->dst, e->src, total)))
      e->xw = e->dst;
    else
      e->xw = (e->xwbuf = msg_alloc(total))->data;
  }
  /* Reduce-scatter: send the partner's half from my partial (xcur at the
   * first step, then xw), receive mine into the engine buffer asmb.
   * Allgather: send mine from xw, receive the partner's into xw. */
  const unsigned char *from = rs && s == 1 ? e->xcur : e->xw;
  size_t slo = rs ? blo : alo, sn = ((rs ? bhi : ahi) - slo) * sz;
  size_t rlo = rs ? alo : blo, rn = ((rs ? ahi : bhi) - rlo) * sz;
  if (rs && !e->asmb) e->asmb = msg_alloc(total);
  unsigned char *rbase = rs ? e->asmb->data : e->xw, *into = rs ? rbase : rbase + rlo * sz;
  if (!seg_xfer(e, s, pr, from, total, from + slo * sz, sn, rbase, total, into, rn, false, moved))
    return 0;
  if (rs) { /* fold the partner's copy of my half into xw */
    unsigned char *k = e->xw + alo * sz;
    const unsigned char *mine = from + alo * sz;
    if (pr < e->t->head.rank || bitwise_commutes(e)) { /* the partner's on the left */
      if (k != mine) memcpy(k, mine, rn);
      gexi_coll_combine(e, into, k, ahi - alo);
    } else { /* mine on the left */
      gexi_coll_combine(e, mine, into, ahi - alo);
      memcpy(k, into, rn);
    }
  } else if (s == e->xsteps) {
    e->xcur = e->xw;
  }
  return 1;
}

/* Step s of the exchange (fold-in, a doubling step, fold-out) with team
 * rank pr; 0 until done. */
static int xchg_step(struct gexi_Event *e, uint32_t s, gex_Rank_t pr, bool snd, bool rcv,
                     int *moved) {
  struct gexi_team *t = e->t;
  size_t total = dst_bytes(e);
  bool fold_out = s == e->xsteps + 1;
  bool psh = pr != GEX_RANK_INVALID && push_with(e, pr);
  /* 'lower': the partner's operand goes on the left, into my partial.
   * Where the order does not change the bytes, mine goes on the left
   * whoever is lower: into the partner's vector, no copy of mine.
   * 'dst_busy': dst holds my partial, or src (in place), which an
   * earlier step's partner may still be reading (or, by push, my own
   * write of this step). */
  bool lower = rcv && pr < t->head.rank && !bitwise_commutes(e), last = s == e->xsteps;
  bool dst_busy = overlap(e->dst, e->xcur, total) || overlap(e->dst, e->src, total);
  /* Straight into dst: the fold-out's result (its sender has read all
   * it wanted from me), and the partner's operand of my last fold when
   * mine is the left one and dst is free. */
  unsigned char *into = e->dst, *standing = rcv && !fold_out ? xl_landing(e, s, psh) : NULL;
  if (standing) {
    into = standing;
  } else if (rcv && !fold_out && !(last && !lower && !dst_busy)) {
    if (!e->asmb) e->asmb = msg_alloc(total);
    into = e->asmb->data;
  }
  const unsigned char *mine = e->xcur;
  if ((snd || rcv) && !seg_xfer(e, s, pr, mine, total, mine, snd ? total : 0, into, total,
                                into, rcv ? total : 0, standing != NULL, moved))
    return 0;
  if (rcv) {
    /* Before the fold writes a buffer a reader may still need: dst when
     * busy (every ACK of this collective so far), or acc, my partial of
     * this step (this partner's ACKs; none by push). */
    if (!fold_out && e->rdv && last && dst_busy && !rdv_acked(e, moved)) return 0;
    while (!fold_out && e->rdv && !psh && lower && !last && e->acc && e->xacks < e->xfrags) {
      struct gexi_cam_msg *m = take(t->slot, e->seq, TAG_ACK, pr);
      if (!m) return 0;
      msg_free(m);
      e->rdv->acks_due--;
      e->xacks++;
      *moved = 1;
    }
    if (fold_out)
      e->xcur = e->dst;
    else
      xchg_fold(e, into, lower, last);
  }
  return 1;
}

static int xchg_reduce(struct gexi_Event *e, int *moved) {
  size_t total = dst_bytes(e);
  while (e->xstep <= e->xsteps + 1) {
    uint32_t s = e->xstep;
    bool snd, rcv;
    gex_Rank_t pr = xchg_partner(e, s, &snd, &rcv);
    bool halving = e->xsteps != e->xlog && snd && s && s <= e->xsteps;
    if (!(halving ? halve_step(e, s, pr, moved) : xchg_step(e, s, pr, snd, rcv, moved)))
      return 0;
    e->xstep++;
    e->xsent = e->rtr_sent = false;
    e->xgot = e->xacks = 0;
    *moved = 1;
  }
  if (e->xcur != e->dst && total) { /* a team of one, or halving in an engine buffer */
    if (e->rdv && !rdv_acked(e, moved)) return 0; /* dst may overlap src, still read */
    memmove(e->dst, e->xcur, total);
  }
  if (e->acc) acc_retire(e, true);
  return 1;
}

/* Broadcast: the landing buffer of every child I push to, in child order;
 * 0 until all are in. */
static int kids_ready(struct gexi_Event *e, int *moved) {
  struct gexi_cam_rdv *r = e->rdv;
  if (!r) return 1;
  if (!r->kd && e->nkids && !(r->kd = calloc(e->nkids, sizeof *r->kd)))
    gexi_fatal("out of memory");
  for (; r->kd_got < e->nkids; r->kd_got++) {
    gex_Rank_t kid = rank_of(e, e->kids[r->kd_got]);
    if (!push_with(e, kid)) continue;
    if (!take_rtr(e, kid, TAG_RTR, e->nbytes, &r->kd[r->kd_got])) return 0;
    *moved = 1;
  }
  return 1;
}

/* Broadcast root: everything goes out at once, fragment by fragment to
 * every child (the transport's flow control paces it); by push, once every
 * child pushed to has announced where. */
static int up_bcast(struct gexi_Event *e, int *moved) {
  if (!kids_ready(e, moved)) return 0;
  size_t frags = (e->nbytes + e->chunk - 1) / e->chunk;
  for (size_t g = 0; g < frags; g++) {
    size_t off, len;
    frag_range(e, g, &off, &len);
    for (gex_Rank_t i = 0; i < e->nkids; i++)
      if (!push_with(e, rank_of(e, e->kids[i])))
        send_frag(e, rank_of(e, e->kids[i]), TAG_DOWN | (uint32_t)g, e->src, e->nbytes,
                  (const char *)e->src + off, len);
  }
  bool copy = e->dst != e->src && e->nbytes;
  for (gex_Rank_t i = 0; i < e->nkids; i++)
    if (push_with(e, rank_of(e, e->kids[i])))
      push_frags(e, rank_of(e, e->kids[i]), TAG_DOWN, 0, &e->rdv->kd[i], 0, e->src, e->nbytes,
                 NULL, &copy);
  if (copy) memcpy(e->dst, e->src, e->nbytes);
  e->up_round = 1;
  *moved = 1;
  return 1;
}

/* Reduce, up phase: per round, my elements, then each child's partial
 * result in child order, folded as acc = acc op child (left operand =
 * lower ranks); then to the parent, or at the tree root into dst / down. */
static int up_reduce(struct gexi_Event *e, int *moved) {
  struct gexi_team *t = e->t;
  bool all = e->root == GEX_RANK_INVALID;
  size_t c = e->chunk;
  while (e->up_round < e->nrounds) {
    size_t r = e->up_round, first = r * e->per_round;
    size_t cnt = e->dt_cnt - first < e->per_round ? e->dt_cnt - first : e->per_round;
    size_t rbytes = cnt * e->dt_sz;
    if (!e->acc) {
      e->acc = msg_alloc(e->rb);
      memcpy(e->acc->data, (const char *)e->src + first * e->dt_sz, rbytes);
      e->up_kid = 0;
      e->up_frag = 0;
      *moved = 1;
    }
    while (e->up_kid < e->nkids) {
      gex_Rank_t kid = rank_of(e, e->kids[e->up_kid]);
      struct gexi_cam_msg *op;
      if (e->nfrag == 1) {
        op = take(t->slot, e->seq, TAG_UP | (uint32_t)r, kid);
        if (!op) return 0;
        if (e->rdv) {
          struct gexi_cam_msg *m = op;
          op = msg_alloc(e->rb);
          recv_frag(e, m, op->data, rbytes);
        } else if (op->nbytes != rbytes) {
          mismatch(e, op->src, op->nbytes, rbytes);
        }
      } else {
        if (!e->asmb) e->asmb = msg_alloc(e->rb);
        while (e->up_frag < e->nfrag) {
          struct gexi_cam_msg *m =
              take(t->slot, e->seq, TAG_UP | (uint32_t)(r * e->nfrag + e->up_frag), kid);
          if (!m) return 0;
          size_t want = rbytes - e->up_frag * c < c ? rbytes - e->up_frag * c : c;
          recv_frag(e, m, e->asmb->data + e->up_frag * c, want);
          e->up_frag++;
          *moved = 1;
        }
        op = e->asmb;
        e->asmb = NULL;
        e->up_frag = 0;
      }
      gexi_coll_combine(e, e->acc->data, op->data, cnt);
      msg_free(e->acc);
      e->acc = op;
      e->up_kid++;
      *moved = 1;
    }
    unsigned char *d = (unsigned char *)e->dst + first * e->dt_sz;
    bool from_acc = e->vrank != 0 || (!all && t->head.rank != e->root);
    if (e->vrank != 0) {
      send_frags(e, rank_of(e, e->vparent), TAG_UP, r * e->nfrag, e->acc->data, rbytes,
                 e->acc->data, rbytes);
    } else if (all) {
      memcpy(d, e->acc->data, rbytes);
      for (gex_Rank_t i = 0; i < e->nkids; i++)
        send_frags(e, rank_of(e, e->kids[i]), TAG_DOWN, r * e->nfrag, e->dst, dst_bytes(e), d,
                   rbytes);
    } else if (t->head.rank == e->root) {
      memcpy(d, e->acc->data, rbytes);
    } else { /* USER_NC tree rooted at 0: forward to the real root */
      send_frags(e, e->root, TAG_DOWN, r * e->nfrag, e->acc->data, rbytes, e->acc->data, rbytes);
    }
    acc_retire(e, from_acc);
    e->up_round++;
    *moved = 1;
  }
  return 1;
}

/* Gather (team construction): records of the subtree, then up; the tree
 * root sends the whole array down. */
static int up_gather(struct gexi_Event *e, int *moved) {
  struct gexi_team *t = e->t;
  size_t c = chunk(), rs = e->nbytes;
  uint64_t n = t->head.size, k = gexi_ctx.coll_am->radix;
  if (e->up_round) return 1;
  while (e->up_kid < e->nkids) {
    gex_Rank_t kid = e->kids[e->up_kid]; /* troot 0: relative = team rank */
    size_t bytes = (size_t)e->kid_span[e->up_kid] * rs;
    while (e->up_frag * c < bytes) {
      struct gexi_cam_msg *m = take(t->slot, e->seq, TAG_UP | (uint32_t)e->up_frag, kid);
      if (!m) return 0;
      size_t want = bytes - e->up_frag * c < c ? bytes - e->up_frag * c : c;
      recv_frag(e, m, (char *)e->dst + (size_t)kid * rs + e->up_frag * c, want);
      e->up_frag++;
      *moved = 1;
    }
    e->up_frag = 0;
    e->up_kid++;
  }
  unsigned char *d = e->dst;
  if (e->vrank != 0) {
    send_frags(e, e->vparent, TAG_UP, 0, d, (size_t)n * rs, d + (size_t)e->vrank * rs,
               (size_t)span_of(e->vrank, n, k) * rs);
  } else {
    for (gex_Rank_t i = 0; i < e->nkids; i++)
      send_frags(e, e->kids[i], TAG_DOWN, 0, d, (size_t)n * rs, d, (size_t)n * rs);
  }
  e->up_round = 1;
  *moved = 1;
  return 1;
}

/* Down phase: fragments from the parent (or, for a USER_NC ReduceToOne,
 * from team rank 0) into dst, forwarded to the children unless this is
 * that forward. */
static int down(struct gexi_Event *e, int *moved) {
  struct gexi_team *t = e->t;
  bool fwd = !(e->ckind == GEXI_COLL_REDUCE && e->root != GEX_RANK_INVALID);
  /* By push (broadcast only): from the parent, Shorts once the bytes are
   * in dst; to a child, once it has said where. */
  bool pushed =
      e->ckind == GEXI_COLL_BCAST && e->down_total && push_with(e, rank_of(e, e->vparent));
  if (e->ckind == GEXI_COLL_BCAST && e->down_total && !kids_ready(e, moved)) return 0;
  while (e->down_frag < e->down_total) {
    /* The next fragments that are here (by rendezvous: read together; a
     * 1 MiB broadcast over net, 2 fragments: 4 ranks 477 against 531 us, 2
     * ranks 135 against 142.  The exchange reads one at a time: together,
     * its 1 MiB ReduceToAll at 4 ranks took 7% longer). */
    struct gexi_cam_msg *m[RDV_BATCH];
    void *d[RDV_BATCH];
    size_t off[RDV_BATCH], len[RDV_BATCH], k = 0, most = e->rdv ? RDV_BATCH : 1;
    for (; k < most && e->down_frag + k < e->down_total; k++) {
      size_t g = e->down_frag + k;
      if (!(m[k] = take(t->slot, e->seq, TAG_DOWN | (uint32_t)g, ANY_SRC))) break;
      frag_range(e, g, &off[k], &len[k]);
      d[k] = (char *)e->dst + off[k];
    }
    if (!k) return 0;
    if (pushed)
      for (size_t f = 0; f < k; f++) landed(e, m[f], 0);
    else
      recv_frags(e, k, m, d, len);
    for (size_t f = 0; fwd && f < k; f++)
      for (gex_Rank_t i = 0; i < e->nkids; i++)
        if (!push_with(e, rank_of(e, e->kids[i])))
          send_frag(e, rank_of(e, e->kids[i]), TAG_DOWN | (uint32_t)(e->down_frag + f), e->dst,
                    dst_bytes(e), (char *)e->dst + off[f], len[f]);
    for (gex_Rank_t i = 0; fwd && i < e->nkids; i++) /* the k fragments are contiguous */
      if (push_with(e, rank_of(e, e->kids[i])))
        push_frags(e, rank_of(e, e->kids[i]), TAG_DOWN, e->down_frag, &e->rdv->kd[i], off[0],
                   (const unsigned char *)e->dst + off[0], off[k - 1] + len[k - 1] - off[0], NULL,
                   NULL);
    e->down_frag += k;
    *moved = 1;
  }
  return 1;
}

int gexi_cam_step(struct gexi_Event *e) {
  int moved = 0;
  if (!e->am_started) {
    start(e);
    e->am_started = true;
    moved = 1;
  }
  if (e->ckind == GEXI_COLL_BARRIER) return step_barrier(e) | moved;
  int up_done = 1;
  switch (e->ckind) {
    case GEXI_COLL_BCAST:
      if (!e->rtr_sent) { /* by push: where my parent writes */
        e->rtr_sent = true;
        if (e->vrank != 0 && push_with(e, rank_of(e, e->vparent)))
          send_rtr(e, rank_of(e, e->vparent), TAG_RTR, e->dst, e->nbytes, e->dst, e->nbytes);
      }
      if (e->up_round < e->nrounds) up_done = up_bcast(e, &moved);
      break;
    case GEXI_COLL_REDUCE:
      up_done = e->xchg ? xchg_reduce(e, &moved) : up_reduce(e, &moved);
      break;
    case GEXI_COLL_GATHER: up_done = up_gather(e, &moved); break;
    default: break;
  }
  int down_done = down(e, &moved);
  if (up_done && down_done && rdv_acked(e, &moved)) {
    rdv_release(e);
    free(e->kids);
    e->kids = e->kid_span = NULL;
    msg_free(e->acc);
    msg_free(e->asmb);
    msg_free(e->xwbuf);
    e->acc = e->asmb = e->xwbuf = NULL;
    e->done = 1;
    moved = 1;
  }
  return moved;
}

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
 * Ownership.  A record belongs to the inbox until gexi_cam_take() unlinks it,
 * then to the event that took it until gexi_cam_msg_free().  The inbox lock is taken by
 * handlers and by gexi_cam_take(); nothing is sent or polled while it is held (the
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
#include "coll/coll_am_engine.h"

/* Client-collective AMs sent to a process of this node (test hook). */
uint64_t gexi_coll_same_node_ams(void) { return atomic_load(&gexi_ctx.coll_am->same_node_ams); }
uint64_t gexi_coll_rdv_frags(void) { return atomic_load(&gexi_ctx.coll_am->rdv_frags); }
uint64_t gexi_coll_rdv_pushed(void) { return atomic_load(&gexi_ctx.coll_am->rdv_pushed); }
uint64_t gexi_coll_halved(void) { return atomic_load(&gexi_ctx.coll_am->halved); }
uint64_t gexi_coll_standing(void) { return atomic_load(&gexi_ctx.coll_am->standing); }

/* ---- records, inbox ------------------------------------------------------ */
struct gexi_cam_msg *gexi_cam_msg_alloc(size_t nbytes) {
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

void gexi_cam_msg_free(struct gexi_cam_msg *m) {
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
  struct gexi_cam_msg *m = gexi_cam_msg_alloc(nbytes);
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
struct gexi_cam_msg *gexi_cam_take(uint32_t slot, uint32_t seq, uint32_t tag, gex_Rank_t src) {
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
    gexi_cam_msg_free(m);
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

void gexi_cam_send_short(const struct gexi_Event *e, gex_Rank_t to, uint32_t seq, uint32_t tag) {
  struct gexi_team *t = e->t;
  count_dest(e, to);
  gex_AM_Arg_t a[4] = {(gex_AM_Arg_t)t->slot, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)tag,
                       (gex_AM_Arg_t)t->head.rank};
  gexi_AM_RequestShort(gexi_tm_handle(t), to, GEXI_AMI_COLL_SHORT, 0, 4, a);
}

/* The payload is copied (or sent) before the call returns. */
void gexi_cam_send_medium(const struct gexi_Event *e, gex_Rank_t to, uint32_t seq, uint32_t tag,
                        const void *p, size_t nbytes) {
  struct gexi_team *t = e->t;
  count_dest(e, to);
  gex_AM_Arg_t a[4] = {(gex_AM_Arg_t)t->slot, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)tag,
                       (gex_AM_Arg_t)t->head.rank};
  gexi_AM_RequestMedium(gexi_tm_handle(t), to, GEXI_AMI_COLL_MEDIUM, p, nbytes, GEX_EVENT_NOW,
                        0, 4, a);
}

GEXI_NORETURN void gexi_cam_mismatch(const struct gexi_Event *e, gex_Rank_t src, size_t got,
                                   size_t want) {
  static const char *const names[] = {"?", "gex_Coll_BarrierNB", "gex_Coll_BroadcastNB",
                                      "gex_Coll_Reduce*NB", "team construction"};
  gexi_fatal("%s: team rank %u sent %zu bytes where %zu were expected: the collective's "
             "arguments (size, count, type or root) differ between the members",
             names[e->ckind], (unsigned)src, got, want);
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


static void start(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  gex_Rank_t n = t->head.size, me = t->head.rank;
  size_t frags = 0;
  e->chunk = gexi_cam_chunk();
  if ((e->ckind == GEXI_COLL_BCAST || e->ckind == GEXI_COLL_REDUCE) && gexi_cam_rdv_wanted(e, gexi_cam_dst_bytes(e))) {
    if (!(e->rdv = calloc(1, sizeof *e->rdv))) gexi_fatal("out of memory");
    e->chunk = gexi_ctx.env.coll_rdv_chunk;
    /* In a team of two nothing is forwarded, so nothing gains from
     * pipelining: one fragment (net, 1 MiB: broadcast 117.7 us against
     * 126.3 in two, ReduceToAll 161.8 against 173.7; at 4 ranks 512 KiB
     * fragments won, 374 against 448 us for the broadcast). */
    if (e->t->head.size == 2 && gexi_cam_dst_bytes(e) > e->chunk) e->chunk = gexi_cam_dst_bytes(e);
    e->rdv->push = gexi_cam_push_kind(e);
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
      if (gexi_cam_by_exchange(e)) {
        gexi_cam_xchg_start(e);
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
      gexi_cam_send_short(e, (gex_Rank_t)(((uint64_t)t->head.rank + ((uint64_t)1 << e->round)) %
                                 t->head.size),
                 e->seq, tag);
      e->phase = 1;
      moved = 1;
    }
    struct gexi_cam_msg *m = gexi_cam_take(t->slot, e->seq, tag, ANY_SRC);
    if (!m) return moved;
    gexi_cam_msg_free(m);
    e->round++;
    e->phase = 0;
    moved = 1;
  }
  e->done = 1;
  return 1;
}

/* Send rbytes at p, inside the buffer [base, base+blen), to team rank 'to'
 * as fragments (tag kind | first + f). */
void gexi_cam_send_frags(struct gexi_Event *e, gex_Rank_t to, uint32_t kind, size_t first,
                       const void *base, size_t blen, const unsigned char *p, size_t rbytes) {
  size_t c = e->chunk;
  for (size_t off = 0, f = 0; off < rbytes; off += c, f++)
    gexi_cam_send_frag(e, to, kind | (uint32_t)(first + f), base, blen, p + off,
              rbytes - off < c ? rbytes - off : c);
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
    if (!gexi_cam_push_with(e, kid)) continue;
    if (!gexi_cam_take_rtr(e, kid, TAG_RTR, e->nbytes, &r->kd[r->kd_got])) return 0;
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
      if (!gexi_cam_push_with(e, rank_of(e, e->kids[i])))
        gexi_cam_send_frag(e, rank_of(e, e->kids[i]), TAG_DOWN | (uint32_t)g, e->src, e->nbytes,
                  (const char *)e->src + off, len);
  }
  bool copy = e->dst != e->src && e->nbytes;
  for (gex_Rank_t i = 0; i < e->nkids; i++)
    if (gexi_cam_push_with(e, rank_of(e, e->kids[i])))
      gexi_cam_push_frags(e, rank_of(e, e->kids[i]), TAG_DOWN, 0, &e->rdv->kd[i], 0, e->src, e->nbytes,
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
      e->acc = gexi_cam_msg_alloc(e->rb);
      memcpy(e->acc->data, (const char *)e->src + first * e->dt_sz, rbytes);
      e->up_kid = 0;
      e->up_frag = 0;
      *moved = 1;
    }
    while (e->up_kid < e->nkids) {
      gex_Rank_t kid = rank_of(e, e->kids[e->up_kid]);
      struct gexi_cam_msg *op;
      if (e->nfrag == 1) {
        op = gexi_cam_take(t->slot, e->seq, TAG_UP | (uint32_t)r, kid);
        if (!op) return 0;
        if (e->rdv) {
          struct gexi_cam_msg *m = op;
          op = gexi_cam_msg_alloc(e->rb);
          gexi_cam_recv_frag(e, m, op->data, rbytes);
        } else if (op->nbytes != rbytes) {
          gexi_cam_mismatch(e, op->src, op->nbytes, rbytes);
        }
      } else {
        if (!e->asmb) e->asmb = gexi_cam_msg_alloc(e->rb);
        while (e->up_frag < e->nfrag) {
          struct gexi_cam_msg *m =
              gexi_cam_take(t->slot, e->seq, TAG_UP | (uint32_t)(r * e->nfrag + e->up_frag), kid);
          if (!m) return 0;
          size_t want = rbytes - e->up_frag * c < c ? rbytes - e->up_frag * c : c;
          gexi_cam_recv_frag(e, m, e->asmb->data + e->up_frag * c, want);
          e->up_frag++;
          *moved = 1;
        }
        op = e->asmb;
        e->asmb = NULL;
        e->up_frag = 0;
      }
      gexi_coll_combine(e, e->acc->data, op->data, cnt);
      gexi_cam_msg_free(e->acc);
      e->acc = op;
      e->up_kid++;
      *moved = 1;
    }
    unsigned char *d = (unsigned char *)e->dst + first * e->dt_sz;
    bool from_acc = e->vrank != 0 || (!all && t->head.rank != e->root);
    if (e->vrank != 0) {
      gexi_cam_send_frags(e, rank_of(e, e->vparent), TAG_UP, r * e->nfrag, e->acc->data, rbytes,
                 e->acc->data, rbytes);
    } else if (all) {
      memcpy(d, e->acc->data, rbytes);
      for (gex_Rank_t i = 0; i < e->nkids; i++)
        gexi_cam_send_frags(e, rank_of(e, e->kids[i]), TAG_DOWN, r * e->nfrag, e->dst, gexi_cam_dst_bytes(e), d,
                   rbytes);
    } else if (t->head.rank == e->root) {
      memcpy(d, e->acc->data, rbytes);
    } else { /* USER_NC tree rooted at 0: forward to the real root */
      gexi_cam_send_frags(e, e->root, TAG_DOWN, r * e->nfrag, e->acc->data, rbytes, e->acc->data, rbytes);
    }
    gexi_cam_acc_retire(e, from_acc);
    e->up_round++;
    *moved = 1;
  }
  return 1;
}

/* Gather (team construction): records of the subtree, then up; the tree
 * root sends the whole array down. */
static int up_gather(struct gexi_Event *e, int *moved) {
  struct gexi_team *t = e->t;
  size_t c = gexi_cam_chunk(), rs = e->nbytes;
  uint64_t n = t->head.size, k = gexi_ctx.coll_am->radix;
  if (e->up_round) return 1;
  while (e->up_kid < e->nkids) {
    gex_Rank_t kid = e->kids[e->up_kid]; /* troot 0: relative = team rank */
    size_t bytes = (size_t)e->kid_span[e->up_kid] * rs;
    while (e->up_frag * c < bytes) {
      struct gexi_cam_msg *m = gexi_cam_take(t->slot, e->seq, TAG_UP | (uint32_t)e->up_frag, kid);
      if (!m) return 0;
      size_t want = bytes - e->up_frag * c < c ? bytes - e->up_frag * c : c;
      gexi_cam_recv_frag(e, m, (char *)e->dst + (size_t)kid * rs + e->up_frag * c, want);
      e->up_frag++;
      *moved = 1;
    }
    e->up_frag = 0;
    e->up_kid++;
  }
  unsigned char *d = e->dst;
  if (e->vrank != 0) {
    gexi_cam_send_frags(e, e->vparent, TAG_UP, 0, d, (size_t)n * rs, d + (size_t)e->vrank * rs,
               (size_t)span_of(e->vrank, n, k) * rs);
  } else {
    for (gex_Rank_t i = 0; i < e->nkids; i++)
      gexi_cam_send_frags(e, e->kids[i], TAG_DOWN, 0, d, (size_t)n * rs, d, (size_t)n * rs);
  }
  e->up_round = 1;
  *moved = 1;
  return 1;
}

/* Down phase: fragments from the parent (or, for a USER_NC ReduceToOne,
 * from team rank 0) into dst, forwarded to the children unless this is
 * that forward. */
int gexi_cam_down(struct gexi_Event *e, int *moved) {
  struct gexi_team *t = e->t;
  bool fwd = !(e->ckind == GEXI_COLL_REDUCE && e->root != GEX_RANK_INVALID);
  /* By push (broadcast only): from the parent, Shorts once the bytes are
   * in dst; to a child, once it has said where. */
  bool pushed =
      e->ckind == GEXI_COLL_BCAST && e->down_total && gexi_cam_push_with(e, rank_of(e, e->vparent));
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
      if (!(m[k] = gexi_cam_take(t->slot, e->seq, TAG_DOWN | (uint32_t)g, ANY_SRC))) break;
      frag_range(e, g, &off[k], &len[k]);
      d[k] = (char *)e->dst + off[k];
    }
    if (!k) return 0;
    if (pushed)
      for (size_t f = 0; f < k; f++) gexi_cam_landed(e, m[f], 0);
    else
      gexi_cam_recv_frags(e, k, m, d, len);
    for (size_t f = 0; fwd && f < k; f++)
      for (gex_Rank_t i = 0; i < e->nkids; i++)
        if (!gexi_cam_push_with(e, rank_of(e, e->kids[i])))
          gexi_cam_send_frag(e, rank_of(e, e->kids[i]), TAG_DOWN | (uint32_t)(e->down_frag + f), e->dst,
                    gexi_cam_dst_bytes(e), (char *)e->dst + off[f], len[f]);
    for (gex_Rank_t i = 0; fwd && i < e->nkids; i++) /* the k fragments are contiguous */
      if (gexi_cam_push_with(e, rank_of(e, e->kids[i])))
        gexi_cam_push_frags(e, rank_of(e, e->kids[i]), TAG_DOWN, e->down_frag, &e->rdv->kd[i], off[0],
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
        if (e->vrank != 0 && gexi_cam_push_with(e, rank_of(e, e->vparent)))
          gexi_cam_send_rtr(e, rank_of(e, e->vparent), TAG_RTR, e->dst, e->nbytes, e->dst, e->nbytes);
      }
      if (e->up_round < e->nrounds) up_done = up_bcast(e, &moved);
      break;
    case GEXI_COLL_REDUCE:
      up_done = e->xchg ? gexi_cam_xchg_reduce(e, &moved) : up_reduce(e, &moved);
      break;
    case GEXI_COLL_GATHER: up_done = up_gather(e, &moved); break;
    default: break;
  }
  int down_done = gexi_cam_down(e, &moved);
  if (up_done && down_done && gexi_cam_rdv_acked(e, &moved)) {
    gexi_cam_rdv_release(e);
    free(e->kids);
    e->kids = e->kid_span = NULL;
    gexi_cam_msg_free(e->acc);
    gexi_cam_msg_free(e->asmb);
    gexi_cam_msg_free(e->xwbuf);
    e->acc = e->asmb = e->xwbuf = NULL;
    e->done = 1;
    moved = 1;
  }
  return moved;
}

/* coll/coll.c -- non-blocking collectives on any team: barrier, broadcast,
 * reduce-to-one and reduce-to-all (see docs/collectives.md).
 *
 * Barrier counters.  Every process keeps, in its control region, one
 * arrival counter per team slot (team_bar[slot].arrivals; the slot is agreed by
 * the team's members at creation, the primordial team uses slot 0).  An
 * arrival is a release increment of my own counter; the k-th arrival of a
 * team is complete once every member's counter minus its base (its value
 * when the team was created) is >= k (acquire loads).  Counters are
 * monotonic, so any number of barriers may be in flight and a peer that
 * arrives early never completes someone else's older barrier.
 *
 * Broadcast and reduce move data through the members' staging chunks
 * (control region, coll_stage[slot], GEXI_COLL_CHUNK bytes), in rounds of at
 * most one chunk: stage my contribution, arrive, wait (every contribution
 * is visible), read and combine, arrive, wait (nobody reads my chunk any
 * more, so the next round or collective may overwrite it).
 *
 * A broadcast of at most one chunk waits for no one but its root: the root
 * stages, arrives twice and is done; every other member waits for the
 * root's first arrival only, copies, and arrives a second time.  The
 * root's staged data is then still being read, so a member about to write
 * there again first waits until every member has made the arrivals of the
 * broadcast that used it.  Broadcasts of at most GEXI_COLL_SMALL bytes
 * take turns over GEXI_COLL_SMALL_SLOTS slots of the chunk (the k-th small
 * broadcast or reduce of a team uses slot k mod the slot count, in every
 * member), so a root runs up to that many broadcasts ahead of the slowest
 * reader (small_guard[slot]); a larger one waits until every earlier
 * one-chunk collective's readers are done (stage_guard).  A reduce of at
 * most GEXI_COLL_SMALL bytes works the same way: every member stages into
 * its slot and arrives, waits for every member's arrival (reduce-to-one:
 * only the root waits and reads), combines, and arrives a second time
 * without waiting; the slot's guard keeps the next writer of that slot
 * until every reader is done.  Every member still arrives twice per
 * one-chunk collective, so the counts stay in step across members whatever
 * runs in between.
 *
 * Every collective of a team is queued in initiation order (the order is
 * the same in every member) and only the queue head advances, so the
 * arrival counts of one team are consumed in the same order everywhere.  A
 * process-wide lock guards all queues; any Test/Wait advances every queue
 * of the process.
 *
 * Teams with a member on another node run the same queues hierarchically
 * (coll/coll_hier.c: shared memory inside a node, AMs among one leader per
 * node) or, with GEX_COLL_HIER=0, when no node holds two members, for team
 * construction's gather and for order-sensitive USER_NC reductions the
 * hierarchy cannot keep in rank order, on the flat AM engine
 * (coll/coll_am.c; every team with GEX_COLL_FORCE_AM=1).  The
 * shared-memory path above is unchanged for all-local teams.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "coll/coll_am.h"
#include "coll/coll_hier.h"
#include "coll/coll_ops.h"
#include "core/event.h"
#include "core/hooks.h"
#include "transport/shm/shm.h"

_Static_assert(GEXI_COLL_SLOTS == GEXI_SHM_TEAM_SLOTS, "one team slot space for both engines");
_Static_assert(GEXI_COLL_SMALL * GEXI_COLL_SMALL_SLOTS <= GEXI_COLL_CHUNK,
               "the small broadcasts' slots fit a chunk");

/* The lock, the list of teams with queued collectives and their number
 * live in gexi_ctx (coll_lock, coll_active, coll_n_active). */

static void ensure_mctrl(struct gexi_team *t) {
  if (t->mctrl) return;
  gex_Rank_t n = t->head.size;
  struct gexi_shm_ctrl **m = malloc((size_t)n * sizeof *m);
  if (!m) gexi_fatal("out of memory");
  for (gex_Rank_t i = 0; i < n; i++) {
    gex_Rank_t j = t->peers[i].jobrank;
    if (gexi_ctx.local_index[j] == GEX_RANK_INVALID)
      gexi_fatal("collectives: internal error: team member jobrank %u is not on this node "
                 "but the team uses the shared-memory engine",
                 (unsigned)j);
    m[i] = gexi_shm_ctrl_of(j);
  }
  t->mctrl = m;
}

static void arrive(struct gexi_team *t) {
  t->arrivals++;
  atomic_fetch_add_explicit(&t->mctrl[t->head.rank]->team_bar[t->slot].arrivals, 1,
                            memory_order_release);
  gexi_shm_ring_all(t->mctrl, t->head.size);
}

/* Member r's arrivals on this team (acquire). */
static uint64_t arrivals_of(const struct gexi_team *t, gex_Rank_t r) {
  return atomic_load_explicit(&t->mctrl[r]->team_bar[t->slot].arrivals, memory_order_acquire) -
         (t->bar_base ? t->bar_base[r] : 0);
}

/* Has member r made its k-th arrival? */
static int arrived_one(const struct gexi_team *t, gex_Rank_t r, uint64_t k) {
  return arrivals_of(t, r) >= k;
}

/* Has every member made its k-th arrival?  t->seen_all caches the least
 * count seen in every member (counters only grow), so a guard or a barrier
 * that every member is known to have passed costs no read of the others'
 * lines.  It is stored with release after the acquire loads that saw the
 * counts and loaded with acquire, so whoever trusts it also sees what the
 * members wrote before those arrivals.  Racing stores may lower it: any
 * value stored was a true lower bound. */
static int arrived_all(struct gexi_team *t, uint64_t k) {
  if (atomic_load_explicit(&t->seen_all, memory_order_acquire) >= k) return 1;
  uint64_t least = UINT64_MAX;
  for (gex_Rank_t i = 0; i < t->head.size; i++) {
    uint64_t a = arrivals_of(t, i);
    if (a < k) return 0;
    if (a < least) least = a;
  }
  atomic_store_explicit(&t->seen_all, least, memory_order_release);
  return 1;
}

static unsigned char *stage_of(const struct gexi_team *t, gex_Rank_t r) {
  return t->mctrl[r]->coll_stage[t->slot];
}

/* ---- the state machine --------------------------------------------------- */
/* Where a broadcast's data is staged in its root's chunk: a small one's
 * slot, else from the chunk's start. */
static size_t stage_off(const struct gexi_Event *e) {
  return e->small ? (size_t)e->slot * GEXI_COLL_SMALL : 0;
}

static void stage(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  if (e->ckind == GEXI_COLL_BCAST) {
    if (t->head.rank != e->root) return;
    size_t off = e->round * GEXI_COLL_CHUNK;
    size_t len = e->nbytes - off < GEXI_COLL_CHUNK ? e->nbytes - off : GEXI_COLL_CHUNK;
    memcpy(stage_of(t, t->head.rank) + stage_off(e), (const char *)e->src + off, len);
  } else if (e->ckind == GEXI_COLL_REDUCE) {
    size_t first = e->round * e->per_round;
    size_t cnt = e->dt_cnt - first < e->per_round ? e->dt_cnt - first : e->per_round;
    memcpy(stage_of(t, t->head.rank) + stage_off(e), (const char *)e->src + first * e->dt_sz,
           cnt * e->dt_sz);
  }
}

static void consume(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  gex_Rank_t me = t->head.rank;
  if (e->ckind == GEXI_COLL_BCAST) {
    size_t off = e->round * GEXI_COLL_CHUNK;
    size_t len = e->nbytes - off < GEXI_COLL_CHUNK ? e->nbytes - off : GEXI_COLL_CHUNK;
    char *d = (char *)e->dst + off;
    if (me != e->root)
      memcpy(d, stage_of(t, e->root) + stage_off(e), len);
    else if (e->dst != e->src)
      memcpy(d, (const char *)e->src + off, len);
  } else if (e->ckind == GEXI_COLL_REDUCE) {
    if (e->root != GEX_RANK_INVALID && e->root != me) return;
    size_t first = e->round * e->per_round;
    size_t cnt = e->dt_cnt - first < e->per_round ? e->dt_cnt - first : e->per_round;
    char *d = (char *)e->dst + first * e->dt_sz;
    gex_Rank_t n = t->head.size;
    /* Right fold in rank order: x0 op (x1 op (... op x[n-1])), so a
     * non-commutative (USER_NC) operator sees the operands in rank order. */
    size_t so = stage_off(e);
    memcpy(d, stage_of(t, n - 1) + so, cnt * e->dt_sz);
    for (gex_Rank_t i = n - 1; i-- > 0;) gexi_coll_combine(e, stage_of(t, i) + so, d, cnt);
  }
}

/* May this member write its staged data for e now (nobody reads what it
 * overwrites)?  Only a broadcast's root and every reducer write. */
static int stage_free(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  int writes = e->ckind == GEXI_COLL_REDUCE || (e->ckind == GEXI_COLL_BCAST && t->head.rank == e->root);
  if (!writes) return 1;
  /* A small one's slot: its last user's readers, and those of a larger
   * one-chunk broadcast since (they read the whole chunk).  A larger one:
   * every earlier one-chunk collective's readers. */
  uint64_t g = e->small ? t->small_guard[e->slot] : t->stage_guard;
  if (e->small && t->large_guard > g) g = t->large_guard;
  return !g || arrived_all(t, g);
}

/* The second arrival of a one-chunk broadcast or small reduce; its staged
 * data is free again once every member has made it. */
static void one_chunk_done(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  arrive(t);
  t->stage_guard = t->arrivals;
  if (e->small)
    t->small_guard[e->slot] = t->arrivals;
  else
    t->large_guard = t->arrivals;
  e->done = 1;
}

/* One step of e (the head of its team's queue); returns 1 if it moved. */
static int step(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  if (e->hier) return gexi_hier_step(e);
  if (e->am) return gexi_cam_step(e);
  switch (e->phase) {
    case 0:
      if (e->round == e->nrounds) {
        e->done = 1;
        return 1;
      }
      if (!stage_free(e)) return 0;
      stage(e);
      arrive(t);
      e->target = t->arrivals;
      if (e->ckind == GEXI_COLL_BCAST && e->nrounds == 1) { /* one chunk: see the top */
        if (t->head.rank != e->root) {
          e->phase = 3;
          return 1;
        }
        consume(e); /* (the root's own copy, if dst is not src) */
        one_chunk_done(e);
        return 1;
      }
      if (e->ckind == GEXI_COLL_REDUCE && e->small) { /* see the top */
        if (e->root != GEX_RANK_INVALID && t->head.rank != e->root) {
          one_chunk_done(e); /* reduce-to-one, not the root: nothing to read */
          return 1;
        }
        e->phase = 4;
        return 1;
      }
      e->phase = 1;
      return 1;
    case 3: /* one-chunk broadcast, not the root: the root has staged */
      if (!arrived_one(t, e->root, e->target)) return 0;
      consume(e);
      one_chunk_done(e);
      return 1;
    case 4: /* small reduce, a reader: every member has staged */
      if (!arrived_all(t, e->target)) return 0;
      consume(e);
      one_chunk_done(e);
      return 1;
    case 1:
      if (!arrived_all(t, e->target)) return 0;
      if (e->ckind == GEXI_COLL_BARRIER) {
        e->round++;
        e->phase = 0;
        return 1;
      }
      consume(e);
      arrive(t);
      e->target = t->arrivals;
      e->phase = 2;
      return 1;
    default:
      if (!arrived_all(t, e->target)) return 0;
      e->round++;
      e->phase = 0;
      return 1;
  }
}

static int progress_locked(void) {
  int moved = 0;
  struct gexi_team **pp = &gexi_ctx.coll_active;
  while (*pp) {
    struct gexi_team *t = *pp;
    while (t->q_head) {
      struct gexi_Event *e = t->q_head;
      int m = step(e);
      moved |= m;
      if (e->done) {
        t->q_head = e->next;
        if (!t->q_head) t->q_tail = NULL;
      } else if (!m) {
        break;
      }
    }
    if (!t->q_head) {
      t->active = false;
      atomic_fetch_sub_explicit(&gexi_ctx.coll_n_active, 1, memory_order_relaxed);
      *pp = t->active_next;
      t->active_next = NULL;
    } else {
      pp = &t->active_next;
    }
  }
  return moved;
}

int gexi_coll_progress(struct gexi_Event *e, int *done) {
  if (e && e->direct) { /* lock-free: counters only */
    if (arrived_all(e->t, e->target)) {
      *done = 1;
      return 1;
    }
    *done = 0;
    if (!atomic_load_explicit(&gexi_ctx.coll_n_active, memory_order_relaxed)) return 0;
  }
  pthread_mutex_lock(&gexi_ctx.coll_lock);
  int moved = progress_locked();
  if (done) *done = e ? (e->direct ? arrived_all(e->t, e->target) : e->done) : 1;
  pthread_mutex_unlock(&gexi_ctx.coll_lock);
  return moved;
}

int gexi_coll_idle_team(struct gexi_team *t) {
  pthread_mutex_lock(&gexi_ctx.coll_lock);
  int idle = t->q_head == NULL;
  pthread_mutex_unlock(&gexi_ctx.coll_lock);
  return idle;
}

static struct gexi_Event *alloc_op(struct gexi_team *t, int ckind) {
  struct gexi_Event *e = gexi_event_new();
  e->kind = GEXI_EV_COLL;
  e->ckind = ckind;
  e->t = t;
  e->root = GEX_RANK_INVALID;
  return e;
}

static struct gexi_Event *new_op(const char *fn, gex_TM_t tm, int ckind) {
  gexi_check_can_communicate(fn);
  if (tm == GEX_TM_INVALID || gexi_tm(tm)->is_pair)
    gexi_fatal("%s: a TM-pair (or GEX_TM_INVALID) is not a team", fn);
  return alloc_op(gexi_tm(tm), ckind);
}

static gex_Event_t start(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  pthread_mutex_lock(&gexi_ctx.coll_lock);
  if (gexi_coll_team_am(t)) {
    e->am = true;
    e->seq = t->am_seq++; /* initiation order: the same in every member */
    if (t->coll_path == GEXI_COLL_PATH_HIER) {
      if (gexi_coll_hier_ok(e))
        e->hier = true;
      else
        e->flat_ok = true; /* USER_NC across split node blocks: rank order needs the flat tree */
    }
  } else {
    ensure_mctrl(t);
    int small = (e->ckind == GEXI_COLL_BCAST && e->nbytes <= GEXI_COLL_SMALL) ||
                (e->ckind == GEXI_COLL_REDUCE && e->dt_cnt <= GEXI_COLL_SMALL / e->dt_sz);
    if (small) { /* its slot: see the top */
      e->small = true;
      e->slot = t->small_seq++ % GEXI_COLL_SMALL_SLOTS;
    }
  }
  if (t->q_tail)
    t->q_tail->next = e;
  else
    t->q_head = e;
  t->q_tail = e;
  if (!t->active) {
    t->active = true;
    atomic_fetch_add_explicit(&gexi_ctx.coll_n_active, 1, memory_order_relaxed);
    t->active_next = gexi_ctx.coll_active;
    gexi_ctx.coll_active = t;
  }
  progress_locked();
  int done = e->done;
  pthread_mutex_unlock(&gexi_ctx.coll_lock);
  if (done) {
    gexi_event_release(e);
    return GEX_EVENT_INVALID;
  }
  return e;
}

/* A barrier on a team of the shared-memory engine (0 on any other: the
 * caller queues it for its engine).  With 'words', first publishes them
 * for gexi_coll_barrier_max3 (generation *seq).  Fast path: with nothing
 * queued the barrier arrives at once (what start() would do in its first
 * step) and is not queued.  Its completion depends on the arrival counters
 * only (every member's count >= target, acquire loads pairing with the
 * release increments of arrive()), so it needs neither the queue nor the
 * lock, and collectives initiated after it may arrive before it completes:
 * counters are monotonic and consumed in the same order everywhere, and a
 * barrier stages nothing.  Sets *ev to GEX_EVENT_INVALID when every member
 * had already arrived, else to a direct or a queued event. */
static int barrier_shm(struct gexi_team *t, const uint64_t *words, uint64_t *seq, gex_Event_t *ev) {
  pthread_mutex_lock(&gexi_ctx.coll_lock);
  if (gexi_coll_team_am(t)) {
    pthread_mutex_unlock(&gexi_ctx.coll_lock);
    return 0;
  }
  ensure_mctrl(t);
  if (words) {
    uint64_t s = t->words_seq++;
    _Atomic uint64_t *w = t->mctrl[t->head.rank]->team_bar[t->slot].words[s & 1];
    for (int k = 0; k < 3; k++) atomic_store_explicit(&w[k], words[k], memory_order_relaxed);
    *seq = s;
  }
  if (t->q_head) { /* behind queued collectives: in its turn */
    pthread_mutex_unlock(&gexi_ctx.coll_lock);
    struct gexi_Event *e = alloc_op(t, GEXI_COLL_BARRIER);
    e->nrounds = 1;
    *ev = start(e);
    return 1;
  }
  arrive(t);
  uint64_t target = t->arrivals;
  pthread_mutex_unlock(&gexi_ctx.coll_lock);
  *ev = GEX_EVENT_INVALID;
  if (arrived_all(t, target)) return 1;
  struct gexi_Event *e = alloc_op(t, GEXI_COLL_BARRIER);
  e->direct = true;
  e->target = target;
  *ev = e;
  return 1;
}

/* Flags: none for the barrier; the data collectives take the segment
 * disposition assertions (announced by the specification, without effect
 * here) and nothing else. */
#define COLL_DATA_FLAGS                                                                  \
  (GEX_FLAG_SELF_SEG_UNKNOWN | GEX_FLAG_SELF_SEG_SOME | GEX_FLAG_SELF_SEG_BOUND |         \
   GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_PEER_SEG_SOME |        \
   GEX_FLAG_PEER_SEG_BOUND | GEX_FLAG_PEER_SEG_OFFSET)

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags) {
  gexi_check_can_communicate("gex_Coll_BarrierNB");
  GEXI_CHECK_FLAGS("gex_Coll_BarrierNB", flags, 0);
  if (tm != GEX_TM_INVALID && !gexi_tm(tm)->is_pair) {
    gex_Event_t d;
    if (barrier_shm(gexi_tm(tm), NULL, NULL, &d)) return d;
  }
  struct gexi_Event *e = new_op("gex_Coll_BarrierNB", tm, GEXI_COLL_BARRIER);
  e->nrounds = 1;
  return start(e);
}

/* core/hooks.h, 3.  Why two generations suffice: a member writes
 * generation s & 1 only after its barrier s - 1 completed, i.e. after every
 * member arrived at s - 1, which each did only after reading its result of
 * s - 2 (the caller's contract).  The words are published by the release
 * increment of the barrier's arrival and read after the acquire loads that
 * saw every member arrive. */
int gexi_coll_barrier_max3(gex_TM_t tm, const uint64_t mine[3], gex_Event_t *ev, uint64_t *seq) {
  gexi_check_can_communicate("gasnet_barrier_notify");
  return barrier_shm(gexi_tm(tm), mine, seq, ev);
}

void gexi_coll_barrier_max3_result(gex_TM_t tm, uint64_t seq, uint64_t out[3]) {
  const struct gexi_team *t = gexi_tm(tm);
  out[0] = out[1] = out[2] = 0;
  for (gex_Rank_t r = 0; r < t->head.size; r++) {
    _Atomic uint64_t *w = t->mctrl[r]->team_bar[t->slot].words[seq & 1];
    for (int k = 0; k < 3; k++) {
      uint64_t v = atomic_load_explicit(&w[k], memory_order_relaxed);
      if (v > out[k]) out[k] = v;
    }
  }
}

int gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags) {
  gex_Event_Wait(gex_Coll_BarrierNB(tm, flags));
  return GASNET_OK;
}

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes, gex_Flags_t flags) {
  GEXI_CHECK_FLAGS("gex_Coll_BroadcastNB", flags, COLL_DATA_FLAGS);
  struct gexi_Event *e = new_op("gex_Coll_BroadcastNB", tm, GEXI_COLL_BCAST);
  if (root >= e->t->head.size)
    gexi_fatal("gex_Coll_BroadcastNB: root %u out of range (team size %u)", (unsigned)root,
               (unsigned)e->t->head.size);
  e->root = root;
  e->dst = dst;
  e->src = src;
  e->nbytes = nbytes;
  e->nrounds = (nbytes + GEXI_COLL_CHUNK - 1) / GEXI_COLL_CHUNK;
  return start(e);
}

static void check_reduce(const char *fn, gex_DT_t dt, size_t dt_sz, gex_OP_t op,
                         gex_Coll_ReduceFn_t user_op) {
  if (op == GEX_OP_USER || op == GEX_OP_USER_NC) {
    if (!user_op) gexi_fatal("%s: op 0x%x (user-defined) with a NULL user_op", fn, (unsigned)op);
    if (dt != GEX_DT_USER && gexi_coll_builtin_size(dt) == 0)
      gexi_fatal("%s: unknown data type 0x%x", fn, (unsigned)dt);
    if (dt_sz == 0) gexi_fatal("%s: dt_sz 0 for a user-defined operation", fn);
  } else {
    size_t sz = gexi_coll_builtin_size(dt);
    if (sz == 0)
      gexi_fatal("%s: data type 0x%x with built-in op 0x%x (built-in ops need a built-in type)",
                 fn, (unsigned)dt, (unsigned)op);
    int fp = dt == GEX_DT_FLT || dt == GEX_DT_DBL;
    int ok = op == GEX_OP_ADD || op == GEX_OP_MULT || op == GEX_OP_MIN || op == GEX_OP_MAX ||
             (!fp && (op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR));
    if (!ok)
      gexi_fatal("%s: op 0x%x is not a reduction operator for data type 0x%x", fn,
                 (unsigned)op, (unsigned)dt);
    if (dt_sz != sz)
      gexi_fatal("%s: dt_sz %zu does not match data type 0x%x (size %zu)", fn, dt_sz,
                 (unsigned)dt, sz);
  }
}

static gex_Event_t reduce(const char *fn, gex_TM_t tm, gex_Rank_t root, void *dst,
                          const void *src, gex_DT_t dt, size_t dt_sz, size_t dt_cnt,
                          gex_OP_t op, gex_Coll_ReduceFn_t user_op, void *user_cdata) {
  struct gexi_Event *e = new_op(fn, tm, GEXI_COLL_REDUCE);
#if GEX_CHECKS
  check_reduce(fn, dt, dt_sz, op, user_op);
#else
  (void)check_reduce;
#endif
  if (dt_sz == 0 || dt_sz > GEXI_COLL_CHUNK)
    gexi_fatal("%s: dt_sz %zu outside the supported range [1, %u]", fn, dt_sz,
               (unsigned)GEXI_COLL_CHUNK);
  e->root = root;
  e->dst = dst;
  e->src = src;
  e->dt = dt;
  e->dt_sz = dt_sz;
  e->dt_cnt = dt_cnt;
  e->op = op;
  e->user_op = user_op;
  e->user_cdata = user_cdata;
  e->per_round = GEXI_COLL_CHUNK / dt_sz;
  e->nrounds = (dt_cnt + e->per_round - 1) / e->per_round;
  return start(e);
}

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                   gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags) {
  GEXI_CHECK_FLAGS("gex_Coll_ReduceToOneNB", flags, COLL_DATA_FLAGS);
  if (tm != GEX_TM_INVALID && !gexi_tm(tm)->is_pair && root >= GEXI_TM_SIZE(tm))
    gexi_fatal("gex_Coll_ReduceToOneNB: root %u out of range (team size %u)", (unsigned)root,
               (unsigned)GEXI_TM_SIZE(tm));
  return reduce("gex_Coll_ReduceToOneNB", tm, root, dst, src, dt, dt_sz, dt_cnt, op, user_op,
                user_cdata);
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags) {
  GEXI_CHECK_FLAGS("gex_Coll_ReduceToAllNB", flags, COLL_DATA_FLAGS);
  return reduce("gex_Coll_ReduceToAllNB", tm, GEX_RANK_INVALID, dst, src, dt, dt_sz, dt_cnt, op,
                user_op, user_cdata);
}

/* Internal allgather of one fixed-size record per member over an AM-engine
 * team (team construction): all[r * rs] = member r's record.  Blocking. */
void gexi_coll_allgather(struct gexi_team *p, const void *mine, void *all, size_t rs) {
  struct gexi_Event *e = new_op("team construction", gexi_tm_handle(p), GEXI_COLL_GATHER);
  if (!gexi_coll_team_am(p)) gexi_fatal("internal error: allgather on a shared-memory team");
  e->src = mine;
  e->dst = all;
  e->nbytes = rs;
  gex_Event_Wait(start(e));
}

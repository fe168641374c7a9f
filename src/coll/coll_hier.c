/* coll/coll_hier.c -- hierarchical collectives for teams whose members sit
 * on several nodes (see docs/collectives.md, "Hierarchical collectives").
 *
 * Layout (per team, computed at its first collective, the same in every
 * member because it depends only on the membership): the members on this
 * node in team-rank order, loc[0..nloc-1]; the node's leader is loc[0] (its
 * lowest team rank); the leaders, ordered by team rank, form an internal
 * team 'lt' (same slot as the team) on which the AM engine runs.  Members
 * of one node never send each other messages: they meet in shared memory.
 *
 * Local synchronisation uses only the team slot's arrival counters
 * (team_bar[slot].arrivals in each process's control region, minus the base
 * recorded at team creation), with two roles:
 *   gather   every non-leader increments its own counter (release); the
 *            leader waits until each non-leader's counter reached the
 *            number of gathers so far (acquire loads);
 *   release  the leader increments its own counter (release); each
 *            non-leader waits until the leader's counter reached the
 *            number of releases so far (acquire load).
 * So a non-leader's counter counts gathers, the leader's counts releases;
 * both are monotonic and every member of the node passes the same sequence
 * of gathers and releases (collectives start in the same order and the
 * sequence depends only on the arguments), so any number of collectives
 * may be in flight and an early member never satisfies an older wait.
 *
 * Staging chunks (coll_stage[slot], GEXI_COLL_CHUNK bytes, written only by
 * their owner):
 *   - a non-leader writes its chunk, then gathers; the leader reads it
 *     after that gather and releases; the non-leader writes it again only
 *     after seeing that release;
 *   - the leader writes its chunk, then releases; non-leaders read it after
 *     that release and gather; the leader writes it again (or completes
 *     the collective) only after that gather.
 * Hence when a member completes a collective nobody reads its chunk any
 * more, and the next collective (or a later team on the slot) may reuse it.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_am.h"
#include "coll/coll_hier.h"
#include "coll/coll_ops.h"
#include "transport/shm/shm.h"

struct gexi_coll_hier {
  gex_Rank_t nloc;              /* members on this node */
  gex_Rank_t li;                /* my index in loc[] */
  gex_Rank_t *loc;              /* their team ranks, increasing; loc[0] leads */
  struct gexi_shm_ctrl **lctrl; /* their control regions */
  uint64_t *lbase;              /* their arrival counters at team creation */
  gex_Rank_t *lead_of;          /* by team rank: its node's index among the leaders */
  gex_Rank_t nlead;             /* nodes (leaders) of the team */
  bool contig;                  /* every node's members are one block of team ranks */
  struct gexi_team *lt;         /* leaders' team (leaders only) */
  uint64_t gathers, releases;   /* local synchronisations passed so far */
};

enum { P_IN, P_AM, P_OUT, P_DONE };

static gex_Rank_t node_of(const struct gexi_team *t, gex_Rank_t r) {
  return gexi_ctx.nbrhd_of[t->peers[r].jobrank];
}

int gexi_coll_hier_useful(const struct gexi_team *t) {
  for (gex_Rank_t r = 1; r < t->head.size; r++)
    for (gex_Rank_t q = 0; q < r; q++)
      if (node_of(t, q) == node_of(t, r)) return 1;
  return 0;
}

static struct gexi_coll_hier *ensure_hier(struct gexi_team *t) {
  if (t->hier) return t->hier;
  gex_Rank_t n = t->head.size, me = t->head.rank;
  struct gexi_coll_hier *h = calloc(1, sizeof *h);
  gex_Rank_t *leaders = malloc((size_t)n * sizeof *leaders);
  if (!h || !leaders) gexi_fatal("out of memory");
  h->lead_of = malloc((size_t)n * sizeof *h->lead_of);
  h->loc = malloc((size_t)n * sizeof *h->loc);
  if (!h->lead_of || !h->loc) gexi_fatal("out of memory");
  h->contig = true;
  for (gex_Rank_t r = 0; r < n; r++) {
    gex_Rank_t l = 0;
    while (l < h->nlead && node_of(t, leaders[l]) != node_of(t, r)) l++;
    if (l == h->nlead) leaders[h->nlead++] = r;
    h->lead_of[r] = l;
    /* A node seen before, but not at r-1: its block is split. */
    if (r > 0 && leaders[l] != r && h->lead_of[r - 1] != l) h->contig = false;
    if (gexi_ctx.local_index[t->peers[r].jobrank] != GEX_RANK_INVALID) {
      if (r == me) h->li = h->nloc;
      h->loc[h->nloc++] = r;
    }
  }
  h->lctrl = malloc((size_t)h->nloc * sizeof *h->lctrl);
  h->lbase = malloc((size_t)h->nloc * sizeof *h->lbase);
  if (!h->lctrl || !h->lbase) gexi_fatal("out of memory");
  for (gex_Rank_t i = 0; i < h->nloc; i++) {
    h->lctrl[i] = gexi_shm_ctrl_of(t->peers[h->loc[i]].jobrank);
    h->lbase[i] = t->bar_base ? t->bar_base[h->loc[i]] : 0;
  }
  if (h->li == 0) { /* leader: the leaders' team, on the AM engine */
    struct gexi_team *lt = gexi_team_new(h->nlead, h->lead_of[me], false);
    lt->client = t->client;
    lt->ep = t->ep;
    lt->flags = t->flags;
    lt->slot = t->slot; /* its AMs go to the team's inbox, told apart by seq */
    lt->coll_path = GEXI_COLL_PATH_AM;
    for (gex_Rank_t l = 0; l < h->nlead; l++) lt->peers[l] = t->peers[leaders[l]];
    h->lt = lt;
  }
  free(leaders);
  t->hier = h;
  return h;
}

int gexi_coll_hier_ok(struct gexi_Event *e) {
  struct gexi_coll_hier *h = ensure_hier(e->t);
  if (e->ckind == GEXI_COLL_GATHER) return 0;
  if (e->ckind == GEXI_COLL_REDUCE && e->op == GEX_OP_USER_NC && !h->contig) return 0;
  return 1;
}

void gexi_coll_hier_free(struct gexi_team *t) {
  struct gexi_coll_hier *h = t->hier;
  if (!h) return;
  free(h->loc);
  free(h->lctrl);
  free(h->lbase);
  free(h->lead_of);
  if (h->lt) gexi_cam_team_free(h->lt);
  free(h->lt);
  free(h);
  t->hier = NULL;
}

/* ---- node-local synchronisation ------------------------------------------ */
static uint64_t count_of(const struct gexi_coll_hier *h, gex_Rank_t i, uint32_t slot) {
  return atomic_load_explicit(&h->lctrl[i]->team_bar[slot].arrivals, memory_order_acquire) -
         h->lbase[i];
}

static void bump(const struct gexi_coll_hier *h, uint32_t slot) {
  atomic_fetch_add_explicit(&h->lctrl[h->li]->team_bar[slot].arrivals, 1, memory_order_release);
  gexi_shm_ring_all(h->lctrl, h->nloc);
}

/* Returns 1 once this member has passed the next gather (non-leaders at
 * once; the leader when every non-leader has arrived). */
static int gather(struct gexi_team *t) {
  struct gexi_coll_hier *h = t->hier;
  if (h->li != 0) {
    bump(h, t->slot);
  } else {
    for (gex_Rank_t i = 1; i < h->nloc; i++)
      if (count_of(h, i, t->slot) < h->gathers + 1) return 0;
  }
  h->gathers++;
  return 1;
}

/* Returns 1 once this member has passed the next release (the leader at
 * once; a non-leader when the leader has released). */
static int release(struct gexi_team *t) {
  struct gexi_coll_hier *h = t->hier;
  if (h->li == 0)
    bump(h, t->slot);
  else if (count_of(h, 0, t->slot) < h->releases + 1)
    return 0;
  h->releases++;
  return 1;
}

static unsigned char *stage_of(const struct gexi_team *t, gex_Rank_t i) {
  return t->hier->lctrl[i]->coll_stage[t->slot];
}

/* Local index of team rank r, or GEX_RANK_INVALID if r is on another node. */
static gex_Rank_t local_of(const struct gexi_coll_hier *h, gex_Rank_t r) {
  for (gex_Rank_t i = 0; i < h->nloc; i++)
    if (h->loc[i] == r) return i;
  return GEX_RANK_INVALID;
}

static size_t round_len(size_t total, size_t round) {
  size_t off = round * GEXI_COLL_CHUNK;
  return total - off < GEXI_COLL_CHUNK ? total - off : GEXI_COLL_CHUNK;
}

static void next_phase(struct gexi_Event *e) {
  e->phase++;
  e->round = 0;
  e->hsub = 0;
}

/* ---- phase 1: into the leader ---------------------------------------------
 * Broadcast whose root is a non-leader of this node: per chunk, the root
 * stages, gather, the leader copies into its dst, release.
 * Reduce: per round of elements, non-leaders stage theirs, gather, the
 * leader folds every local contribution in team-rank order into e->tmp,
 * release. */
static int step_in(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  struct gexi_coll_hier *h = t->hier;
  bool leader = h->li == 0;
  size_t rounds;
  if (e->ckind == GEXI_COLL_BARRIER) {
    if (!gather(t)) return 0;
    next_phase(e);
    return 1;
  }
  gex_Rank_t rl = GEX_RANK_INVALID; /* bcast: the root's local index */
  if (e->ckind == GEXI_COLL_BCAST) {
    rl = local_of(h, e->root);
    if (rl == GEX_RANK_INVALID || rl == 0) { /* root elsewhere or leads: nothing to do */
      next_phase(e);
      return 1;
    }
    rounds = (e->nbytes + GEXI_COLL_CHUNK - 1) / GEXI_COLL_CHUNK;
  } else {
    if (h->nloc == 1) { /* the leader alone: its src goes to the leaders' reduce */
      next_phase(e);
      return 1;
    }
    if (leader && !e->tmp) {
      e->tmp = malloc(e->dt_cnt * e->dt_sz + 1);
      if (!e->tmp) gexi_fatal("out of memory");
    }
    rounds = e->nrounds;
  }
  int moved = 0;
  while (e->round < rounds) {
    size_t r = e->round;
    size_t first = r * e->per_round;
    size_t cnt = e->ckind == GEXI_COLL_REDUCE
                     ? (e->dt_cnt - first < e->per_round ? e->dt_cnt - first : e->per_round)
                     : 0;
    switch (e->hsub) {
      case 0: /* stage my part (my own chunk: no one reads it now, see top) */
        if (e->ckind == GEXI_COLL_BCAST && h->li == rl)
          memcpy(stage_of(t, rl), (const char *)e->src + r * GEXI_COLL_CHUNK,
                 round_len(e->nbytes, r));
        else if (e->ckind == GEXI_COLL_REDUCE && !leader)
          memcpy(stage_of(t, h->li), (const char *)e->src + first * e->dt_sz, cnt * e->dt_sz);
        e->hsub = 1;
        moved = 1;
        /* fall through */
      case 1:
        if (!gather(t)) return moved;
        e->hsub = 2;
        moved = 1;
        /* fall through */
      default:
        if (leader && e->hsub == 2) { /* every local part is visible (gather) */
          if (e->ckind == GEXI_COLL_BCAST) {
            memcpy((char *)e->dst + r * GEXI_COLL_CHUNK, stage_of(t, rl),
                   round_len(e->nbytes, r));
          } else {
            /* Right fold in team-rank order over the node's members (the
             * leader has the lowest rank): x0 op (x1 op (... op x[m-1])). */
            unsigned char *d = e->tmp + first * e->dt_sz;
            memcpy(d, stage_of(t, h->nloc - 1), cnt * e->dt_sz);
            for (gex_Rank_t i = h->nloc - 1; i-- > 1;) gexi_coll_combine(e, stage_of(t, i), d, cnt);
            gexi_coll_combine(e, (const char *)e->src + first * e->dt_sz, d, cnt);
          }
          e->hsub = 3;
        }
        if (!release(t)) return moved; /* non-leaders: my chunk is free again after this */
        e->round++;
        e->hsub = 0;
        moved = 1;
    }
  }
  next_phase(e);
  return 1;
}

/* ---- phase 2: among the leaders (AM engine on the leaders' team) ----------- */
static int step_am(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  struct gexi_coll_hier *h = t->hier;
  gex_Rank_t me = t->head.rank;
  if (h->li != 0) {
    next_phase(e);
    return 1;
  }
  if (!e->sub) {
    struct gexi_Event *s = calloc(1, sizeof *s);
    if (!s) gexi_fatal("out of memory");
    s->kind = GEXI_EV_COLL;
    s->ckind = e->ckind;
    s->t = h->lt;
    s->am = true;
    s->seq = e->seq; /* the team's number: equal in every leader */
    s->root = GEX_RANK_INVALID;
    if (e->ckind == GEXI_COLL_BCAST) {
      s->root = h->lead_of[e->root];
      /* The root's leader has the data in dst (phase 1) unless it is the root. */
      s->src = me == e->root ? e->src : e->dst;
      s->dst = e->dst;
      s->nbytes = e->nbytes;
    } else if (e->ckind == GEXI_COLL_REDUCE) {
      bool all = e->root == GEX_RANK_INVALID;
      const void *mine = e->tmp ? e->tmp : e->src;
      s->root = all ? GEX_RANK_INVALID : h->lead_of[e->root];
      s->src = mine;
      /* ReduceToOne: the root's leader, if not the root, keeps the result
       * in tmp (in place: each round's src is read before its result is
       * written) and hands it over in phase 3. */
      s->dst = all || me == e->root || !e->tmp ? e->dst : e->tmp;
      s->dt = e->dt;
      s->dt_sz = e->dt_sz;
      s->dt_cnt = e->dt_cnt;
      s->op = e->op;
      s->user_op = e->user_op;
      s->user_cdata = e->user_cdata;
    }
    e->sub = s;
  }
  int moved = gexi_cam_step(e->sub);
  if (!e->sub->done) return moved;
  free(e->sub);
  e->sub = NULL;
  next_phase(e);
  return 1;
}

/* ---- phase 3: out of the leader --------------------------------------------
 * Barrier: release.  Broadcast and ReduceToAll: per chunk, the leader
 * stages its dst, release, non-leaders copy into their dst, gather.
 * ReduceToOne with a non-leader root on this node: the same from e->tmp,
 * only the root copies. */
static int step_out(struct gexi_Event *e) {
  struct gexi_team *t = e->t;
  struct gexi_coll_hier *h = t->hier;
  bool leader = h->li == 0;
  if (e->ckind == GEXI_COLL_BARRIER) {
    if (!release(t)) return 0;
    next_phase(e);
    return 1;
  }
  const unsigned char *from = e->dst; /* at the leader */
  gex_Rank_t only = GEX_RANK_INVALID;  /* single receiver (local index) */
  size_t total = e->ckind == GEXI_COLL_BCAST ? e->nbytes : e->dt_cnt * e->dt_sz;
  if (e->ckind == GEXI_COLL_REDUCE && e->root != GEX_RANK_INVALID) {
    only = local_of(h, e->root);
    if (only == GEX_RANK_INVALID || only == 0) total = 0; /* nothing to hand over */
    from = e->tmp;
  }
  if (h->nloc == 1) total = 0;
  size_t rounds = (total + GEXI_COLL_CHUNK - 1) / GEXI_COLL_CHUNK;
  int moved = 0;
  while (e->round < rounds) {
    size_t r = e->round, off = r * GEXI_COLL_CHUNK, len = round_len(total, r);
    switch (e->hsub) {
      case 0: /* non-leaders finished reading my chunk (last gather) */
        if (leader) memcpy(stage_of(t, 0), from + off, len);
        e->hsub = 1;
        moved = 1;
        /* fall through */
      case 1:
        if (!release(t)) return moved;
        e->hsub = 2;
        moved = 1;
        /* fall through */
      default:
        if (!leader && e->hsub == 2 && (only == GEX_RANK_INVALID || only == h->li))
          memcpy((char *)e->dst + off, stage_of(t, 0), len);
        e->hsub = 3;
        if (!gather(t)) return moved; /* leader: my chunk may be rewritten after this */
        e->round++;
        e->hsub = 0;
        moved = 1;
    }
  }
  next_phase(e);
  return 1;
}

int gexi_hier_step(struct gexi_Event *e) {
  ensure_hier(e->t);
  int moved = 0;
  for (;;) {
    int m;
    switch (e->phase) {
      case P_IN: m = step_in(e); break;
      case P_AM: m = step_am(e); break;
      case P_OUT: m = step_out(e); break;
      default:
        free(e->tmp);
        e->tmp = NULL;
        e->done = 1;
        return 1;
    }
    if (!m) return moved;
    moved = 1;
  }
}

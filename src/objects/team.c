/* objects/team.c -- team (gex_TM_t) queries and rank translation, the list
 * of the client's teams whose peer tables follow the job's (TM-pairs:
 * core/ep_pair.c). */
#include <stdlib.h>

#include "core/context.h"

struct gexi_team *gexi_team_new(gex_Rank_t size, gex_Rank_t rank, bool is_pair) {
  struct gexi_team *t = calloc(1, sizeof *t + (size_t)size * sizeof(gexi_Peer_t));
  if (!t) gexi_fatal("out of memory");
  t->head.put_nbi = gexi_rma_put_nbi_entry();
  t->head.size = size;
  t->head.rank = rank;
  t->is_pair = is_pair;
  return t;
}

gex_Client_t gex_TM_QueryClient(gex_TM_t tm) { return gexi_tm(tm)->client; }
gex_EP_t gex_TM_QueryEP(gex_TM_t tm) { return gexi_tm(tm)->ep; }
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm) { return gexi_tm(tm)->flags; }
gex_Rank_t gex_TM_QueryRank(gex_TM_t tm) { return gexi_tm(tm)->head.rank; }
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm) { return gexi_tm(tm)->head.size; }
void gex_TM_SetCData(gex_TM_t tm, const void *val) { gexi_tm(tm)->cdata = (void *)val; }
void *gex_TM_QueryCData(gex_TM_t tm) { return gexi_tm(tm)->cdata; }

void gexi_team_link(struct gexi_team *t, const gex_Rank_t *jobranks) {
  pthread_mutex_lock(&gexi_ctx.teams_lock);
  /* Copy under the lock: a segment published meanwhile is either in the
   * copy or written into this table by gexi_peers_sync_locked. */
  for (gex_Rank_t i = 0; i < t->head.size; i++) t->peers[i] = gexi_ctx.peers[jobranks[i]];
  t->live_next = gexi_ctx.live_teams;
  gexi_ctx.live_teams = t;
  pthread_mutex_unlock(&gexi_ctx.teams_lock);
}

void gexi_team_unlink(struct gexi_team *t) {
  pthread_mutex_lock(&gexi_ctx.teams_lock);
  for (struct gexi_team **pp = &gexi_ctx.live_teams; *pp; pp = &(*pp)->live_next)
    if (*pp == t) {
      *pp = t->live_next;
      break;
    }
  pthread_mutex_unlock(&gexi_ctx.teams_lock);
}

gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank) {
  if (rank >= GEXI_TM_SIZE(tm))
    gexi_fatal("gex_TM_TranslateRankToJobrank: rank %u out of range (team size %u)",
               (unsigned)rank, (unsigned)GEXI_TM_SIZE(tm));
  return gexi_tm_jobrank(tm, rank);
}

gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank) {
  if (jobrank >= gexi_ctx.size)
    gexi_fatal("gex_TM_TranslateJobrankToRank: jobrank %u out of range (job size %u)",
               (unsigned)jobrank, (unsigned)gexi_ctx.size);
  for (gex_Rank_t r = 0; r < GEXI_TM_SIZE(tm); r++)
    if (GEXI_TM_PEERS(tm)[r].jobrank == jobrank) return r;
  return GEX_RANK_INVALID;
}

gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags) {
  GEXI_CHECK_FLAGS("gex_TM_TranslateRankToEP", flags, 0); /* reserved */
  /* A TM-pair's members are endpoints of its remote index. */
  gex_EP_Location_t loc = {gex_TM_TranslateRankToJobrank(tm, rank), gexi_tm(tm)->remote_index};
  return loc;
}

/* ---- team construction (gex_TM_Split, gex_TM_Create) and destruction ------
 *
 * Every caller contributes a record (color, key, scratch size, flags, the
 * team slots it uses, a hash of the Create arguments) and gets every parent
 * member's record:
 *  - parent on the shared-memory engine (all members on this node): the
 *    record goes into its control region at xchg[parent slot], then a
 *    barrier over the parent, then members read each other's records there;
 *  - parent on the AM engine: an allgather of the records over the parent
 *    (coll/coll_am.c), which works across hosts.
 * Each member of a new team then checks consistency, sorts, picks the
 * lowest team slot free in every member, (shared-memory teams) records
 * every member's arrival counter of that slot as its base, and a closing
 * parent barrier ends the call (nobody rewrites its record or uses the new
 * team before everyone has read).
 */
#include <gasnet_coll.h>

#include "coll/coll_am.h"
#include "coll/coll_hier.h"
#include "core/event.h"
#include "transport/shm/shm.h"

_Static_assert(GEXI_COLL_SLOTS == GEXI_SHM_TEAM_SLOTS, "one team slot space for both engines");

#define GEXI_SCRATCH_RECOMMENDED ((size_t)4096)

static struct gexi_team *parent_team(const char *fn, gex_TM_t parent_tm) {
  gexi_check_can_communicate(fn);
  if (parent_tm == GEX_TM_INVALID || gexi_tm(parent_tm)->is_pair)
    gexi_fatal("%s: the parent is a TM-pair (or GEX_TM_INVALID), not a team", fn);
  return gexi_tm(parent_tm);
}

static void parent_barrier(struct gexi_team *p) {
  gex_Event_Wait(gex_Coll_BarrierNB(gexi_tm_handle(p), 0));
}

/* The parent members' records of one construction call. */
struct xchg_view {
  struct gexi_team *p;
  struct gexi_shm_xchg *all; /* AM engine: gathered copy (owned); NULL: shared memory */
};

/* Publish my record and make every parent member's record readable. */
static void exchange(struct gexi_team *p, const struct gexi_shm_xchg *mine,
                     struct xchg_view *v) {
  v->p = p;
  v->all = NULL;
  if (gexi_coll_team_am(p)) {
    v->all = malloc((size_t)p->head.size * sizeof *v->all);
    if (!v->all) gexi_fatal("out of memory");
    gexi_coll_allgather(p, mine, v->all, sizeof *mine);
  } else {
    gexi_shm_ctrl_of(gexi_ctx.rank)->xchg[p->slot] = *mine;
    parent_barrier(p);
  }
}

/* Parent rank r's record. */
static const struct gexi_shm_xchg *rec_of(const struct xchg_view *v, gex_Rank_t r) {
  if (v->all) return &v->all[r];
  return &gexi_shm_ctrl_of(v->p->peers[r].jobrank)->xchg[v->p->slot];
}

static void check_scratch(const char *fn, void *addr, size_t size) {
#if GEX_CHECKS
  const struct gexi_Segment *s = gexi_ctx.ep.segment; /* attached or bound */
  uintptr_t b = s ? (uintptr_t)s->addr : 0, a = (uintptr_t)addr;
  if (!s || a < b || size > s->size || a - b > s->size - size)
    gexi_fatal("%s: scratch [%p,+%zu) outside the bound segment [%p,+%zu)", fn, addr, size,
               s ? s->addr : NULL, s ? (size_t)s->size : (size_t)0);
#else
  (void)fn;
  (void)addr;
  (void)size;
#endif
}

/* Build my team from the sorted member jobranks. */
static struct gexi_team *build_team(struct gexi_team *p, const gex_Rank_t *jr, gex_Rank_t n,
                                    gex_Rank_t me, uint64_t used, gex_Flags_t flags,
                                    const char *fn) {
  if (~used == 0)
    gexi_fatal("%s: no free team slot (at most %d teams may exist at once in a process)", fn,
               GEXI_SHM_TEAM_SLOTS);
  uint32_t slot = (uint32_t)__builtin_ctzll(~used);
  struct gexi_team *t = gexi_team_new(n, me, false);
  t->client = p->client;
  t->ep = p->ep;
  t->flags = flags;
  t->slot = slot;
  gexi_team_link(t, jr); /* copies the job's entries; later publications reach it too */
  /* Bases of the members on this node (both the shared-memory engine and
   * the hierarchical path count arrivals there; others: 0, unused). */
  t->bar_base = calloc(n, sizeof *t->bar_base);
  if (!t->bar_base) gexi_fatal("out of memory");
  for (gex_Rank_t i = 0; i < n; i++)
    if (gexi_ctx.local_index[jr[i]] != GEX_RANK_INVALID)
      t->bar_base[i] = atomic_load_explicit(&gexi_shm_ctrl_of(jr[i])->team_bar[slot].arrivals,
                                            memory_order_acquire);
  (void)gexi_coll_team_am(t); /* decide the engine now */
  atomic_fetch_or(&gexi_ctx.used_slots, (uint64_t)1 << slot);
  return t;
}

struct split_member {
  int64_t key;
  gex_Rank_t prank, jobrank;
};
static int cmp_member(const void *a, const void *b) {
  const struct split_member *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->prank < y->prank ? -1 : x->prank > y->prank;
}

size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                    void *scratch_addr, size_t scratch_size, gex_Flags_t flags) {
  const char *fn = "gex_TM_Split";
  GEXI_CHECK_FLAGS(fn, flags, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED | GEX_FLAG_TM_SCRATCH_SIZE_MIN |
                                  GEX_FLAG_TM_NO_SCRATCH);
  struct gexi_team *p = parent_team(fn, parent_tm);
  if (flags & (GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED | GEX_FLAG_TM_SCRATCH_SIZE_MIN))
    return new_tm_p ? GEXI_SCRATCH_RECOMMENDED : 0;
  int noscratch = (flags & GEX_FLAG_TM_NO_SCRATCH) != 0;
  if (new_tm_p) {
    if (color < 0) gexi_fatal("%s: color %d is negative", fn, color);
    if (!noscratch) {
      if (scratch_size == 0)
        gexi_fatal("%s: scratch_size 0 without GEX_FLAG_TM_NO_SCRATCH", fn);
      check_scratch(fn, scratch_addr, scratch_size);
    }
  }
  struct gexi_shm_xchg mine = {0}, *x = &mine;
  x->color = new_tm_p ? color : -1;
  x->key = key;
  x->scratch_size = noscratch ? 0 : scratch_size;
  x->flags = noscratch;
  x->used_slots = atomic_load(&gexi_ctx.used_slots);
  x->args_hash = 0;
  struct xchg_view view;
  exchange(p, x, &view);
  struct gexi_team *t = NULL;
  if (new_tm_p) {
    gex_Rank_t pn = p->head.size, n = 0, me = GEX_RANK_INVALID;
    struct split_member *m = malloc((size_t)pn * sizeof *m);
    if (!m) gexi_fatal("out of memory");
    uint64_t used = 0;
    int reporter = 1;
    (void)reporter;
    for (gex_Rank_t r = 0; r < pn; r++) {
      gex_Rank_t j = p->peers[r].jobrank;
      const struct gexi_shm_xchg *y = rec_of(&view, r);
      if (y->color != color) continue;
#if GEX_CHECKS
      /* Only the new team's first member (in parent order) reports, so a
       * mismatch gives exactly one diagnostic; the others wait in the
       * closing barrier until the job ends. */
      if (n == 0 && r != p->head.rank) reporter = 0;
      if (reporter && y->flags != x->flags)
        gexi_fatal("%s: GEX_FLAG_TM_NO_SCRATCH %s at parent rank %u but %s here (parent rank "
                   "%u, color %d)",
                   fn, y->flags ? "given" : "absent", (unsigned)r, x->flags ? "given" : "absent",
                   (unsigned)p->head.rank, color);
      if (reporter && y->scratch_size != x->scratch_size)
        gexi_fatal("%s: scratch_size %llu at parent rank %u differs from %llu at parent rank %u "
                   "(color %d)",
                   fn, (unsigned long long)y->scratch_size, (unsigned)r,
                   (unsigned long long)x->scratch_size, (unsigned)p->head.rank, color);
#endif
      used |= y->used_slots;
      m[n].key = y->key;
      m[n].prank = r;
      m[n].jobrank = j;
      n++;
    }
    qsort(m, n, sizeof *m, cmp_member);
    gex_Rank_t *jr = malloc((size_t)n * sizeof *jr);
    if (!jr) gexi_fatal("out of memory");
    for (gex_Rank_t i = 0; i < n; i++) {
      jr[i] = m[i].jobrank;
      if (m[i].prank == p->head.rank) me = i;
    }
    t = build_team(p, jr, n, me, used, flags & GEX_FLAG_TM_NO_SCRATCH, fn);
    if (!noscratch) {
      t->scratch_addr = scratch_addr;
      t->scratch_size = scratch_size;
    }
    free(jr);
    free(m);
  }
  parent_barrier(p);
  free(view.all);
  if (new_tm_p) *new_tm_p = gexi_tm_handle(t);
  return 0;
}

size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                     gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                     size_t scratch_size, gex_Flags_t flags) {
  const char *fn = "gex_TM_Create";
  GEXI_CHECK_FLAGS(fn, flags,
                   GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED | GEX_FLAG_TM_SCRATCH_SIZE_MIN |
                       GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH |
                       GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_NO_SCRATCH |
                       GEX_FLAG_SCRATCH_SEG_OFFSET | GEX_FLAG_RANK_IS_JOBRANK);
  struct gexi_team *p = parent_team(fn, parent_tm);
  if (flags & (GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED | GEX_FLAG_TM_SCRATCH_SIZE_MIN))
    return numargs ? GEXI_SCRATCH_RECOMMENDED : 0;
  const gex_Flags_t modes = GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH |
                            GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_NO_SCRATCH;
  gex_Flags_t mode = flags & modes;
  gex_Rank_t *jr = NULL, *pr = NULL; /* members' jobranks and parent ranks */
  gex_Rank_t me = GEX_RANK_INVALID;
  uint64_t hash = 0;
  if (numargs) {
    if (mode == 0 || (mode & (mode - 1)))
      gexi_fatal("%s: flags 0x%x must contain exactly one of GEX_FLAG_TM_{SYMMETRIC,LOCAL,GLOBAL,"
                 "NO}_SCRATCH",
                 fn, (unsigned)flags);
    if (numargs > p->head.size)
      gexi_fatal("%s: numargs %zu exceeds the parent team size %u", fn, numargs,
                 (unsigned)p->head.size);
    jr = malloc(2 * numargs * sizeof *jr);
    if (!jr) gexi_fatal("out of memory");
    pr = jr + numargs;
    hash = 1469598103934665603ull ^ numargs;
    for (size_t i = 0; i < numargs; i++) {
      gex_Rank_t r = args[i].gex_rank;
      if (args[i].gex_ep_index != 0)
        gexi_fatal("%s: args[%zu] names endpoint index %u: only primordial endpoints (index 0) "
                   "are team members, as in the reference",
                   fn, i, (unsigned)args[i].gex_ep_index);
      if (flags & GEX_FLAG_RANK_IS_JOBRANK) {
        if (r >= gexi_ctx.size)
          gexi_fatal("%s: args[%zu] jobrank %u out of range (job size %u)", fn, i, (unsigned)r,
                     (unsigned)gexi_ctx.size);
        pr[i] = gex_TM_TranslateJobrankToRank(parent_tm, r);
        if (pr[i] == GEX_RANK_INVALID)
          gexi_fatal("%s: args[%zu] jobrank %u is not a member of the parent team", fn, i,
                     (unsigned)r);
        jr[i] = r;
      } else {
        if (r >= p->head.size)
          gexi_fatal("%s: args[%zu] rank %u out of range (parent team size %u)", fn, i,
                     (unsigned)r, (unsigned)p->head.size);
        jr[i] = p->peers[r].jobrank;
        pr[i] = r;
      }
#if GEX_CHECKS
      for (size_t k = 0; k < i; k++)
        if (jr[k] == jr[i])
          gexi_fatal("%s: args[%zu] and args[%zu] name the same process (jobrank %u)", fn, k, i,
                     (unsigned)jr[i]);
#endif
      if (jr[i] == gexi_ctx.rank) me = (gex_Rank_t)i;
      hash = (hash ^ jr[i]) * 1099511628211ull;
    }
    if (num_new_tms != (me != GEX_RANK_INVALID))
      gexi_fatal("%s: num_new_tms %zu but this process appears %u times in args[]", fn,
                 num_new_tms, (unsigned)(me != GEX_RANK_INVALID));
  }
  void *my_scratch = NULL;
  if (me != GEX_RANK_INVALID && mode != GEX_FLAG_TM_NO_SCRATCH) {
    if (scratch_size == 0) gexi_fatal("%s: scratch_size 0 without GEX_FLAG_TM_NO_SCRATCH", fn);
    gex_Addr_t a = mode == GEX_FLAG_TM_GLOBAL_SCRATCH ? scratch_addrs[me] : scratch_addrs[0];
    if (flags & GEX_FLAG_SCRATCH_SEG_OFFSET && gexi_ctx.ep.segment)
      a = (char *)gexi_ctx.ep.segment->addr + (uintptr_t)a;
    check_scratch(fn, a, scratch_size);
    my_scratch = a;
  }
  struct gexi_shm_xchg mine = {0}, *x = &mine;
  x->color = me != GEX_RANK_INVALID ? 0 : -1;
  x->key = 0;
  x->scratch_size = mode == GEX_FLAG_TM_NO_SCRATCH ? 0 : scratch_size;
  x->flags = flags & (modes | GEX_FLAG_SCRATCH_SEG_OFFSET | GEX_FLAG_RANK_IS_JOBRANK);
  x->used_slots = atomic_load(&gexi_ctx.used_slots);
  x->args_hash = hash;
  struct xchg_view view;
  exchange(p, x, &view);
  struct gexi_team *t = NULL;
  if (me != GEX_RANK_INVALID) {
    uint64_t used = 0;
    for (size_t i = 0; i < numargs; i++) {
      const struct gexi_shm_xchg *y = rec_of(&view, pr[i]);
#if GEX_CHECKS
      /* Only team rank 0 reports a mismatch (one diagnostic line). */
      if (me == 0 && (y->color != 0 || y->args_hash != x->args_hash))
        gexi_fatal("%s: numargs/args[] differ between this process (team rank %u) and team "
                   "rank %zu (jobrank %u)",
                   fn, (unsigned)me, i, (unsigned)jr[i]);
      if (me == 0 && y->flags != x->flags)
        gexi_fatal("%s: flags 0x%llx at team rank %zu differ from 0x%llx at team rank %u", fn,
                   (unsigned long long)y->flags, i, (unsigned long long)x->flags, (unsigned)me);
      if (me == 0 && y->scratch_size != x->scratch_size)
        gexi_fatal("%s: scratch_size %llu at team rank %zu differs from %llu at team rank %u", fn,
                   (unsigned long long)y->scratch_size, i, (unsigned long long)x->scratch_size,
                   (unsigned)me);
#endif
      used |= y->used_slots;
    }
    t = build_team(p, jr, (gex_Rank_t)numargs, me, used, mode, fn);
    if (my_scratch) {
      t->scratch_addr = my_scratch;
      t->scratch_size = scratch_size;
    }
  }
  parent_barrier(p);
  free(view.all);
  free(jr);
  if (t) new_tms[0] = gexi_tm_handle(t);
  return 0;
}

int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags) {
  gexi_check_can_communicate("gex_TM_Destroy");
  GEXI_CHECK_FLAGS("gex_TM_Destroy", flags, GEX_FLAG_GLOBALLY_QUIESCED | GEX_FLAG_SCRATCH_SEG_OFFSET);
  if (tm == GEX_TM_INVALID || gexi_tm(tm)->is_pair)
    gexi_fatal("gex_TM_Destroy: a TM-pair (or GEX_TM_INVALID) is not a team");
  struct gexi_team *t = gexi_tm(tm);
  if (t == gexi_ctx.tm) gexi_fatal("gex_TM_Destroy: the primordial team cannot be destroyed");
  if (!gexi_coll_idle_team(t))
    gexi_fatal("gex_TM_Destroy: the team has collectives in flight (not quiesced)");
  /* No barrier is needed.  Shared memory: each of my collectives on this
   * team completed only after every member finished reading my staging
   * chunk, and the arrival counters are monotonic (a later team on this
   * slot records them as its bases).  AM engine: every message sent to me
   * for this team was consumed by one of my (complete) collectives, so the
   * slot's inbox is empty (checked). */
  if (gexi_coll_team_am(t)) gexi_cam_slot_release(t->slot);
  gexi_cam_team_free(t);
  atomic_fetch_and(&gexi_ctx.used_slots, ~((uint64_t)1 << t->slot));
  int ret = 0;
  if (scratch_p && t->scratch_addr) {
    scratch_p->gex_addr = t->scratch_addr;
    scratch_p->gex_len = t->scratch_size;
    ret = 1;
  }
  gexi_team_unlink(t);
  gexi_coll_hier_free(t);
  free(t->bar_base);
  free(t->mctrl);
  free(t);
  return ret;
}

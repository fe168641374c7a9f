/* src/shmem/shmem_team.c -- teams (the world, the shared team, splits) and
 * contexts.
 *
 * A team is a libgex team made by gex_TM_Split of its parent, with the
 * world PE of each member kept for translating PE numbers.  A context
 * records the team whose PE numbers its operations use; every context
 * completes through the calling thread's implicit operations (quiet waits
 * for all of them).
 */
#include "shmem/shmem_internal.h"

#include <stdlib.h>

/* Split 'parent' into the teams of 'color' (< 0: no team for this PE),
 * ordered by key; fills *t, or leaves t->tm GEX_TM_INVALID. */
static int split(struct gexs_team *parent, int color, int key, struct gexs_team *t) {
  memset(t, 0, sizeof *t);
  t->tm = GEX_TM_INVALID;
  void *scratch = NULL;
  size_t ssize = 0;
  gex_TM_t tm = GEX_TM_INVALID;
  if (color >= 0) {
    scratch = gexs_scratch_take();
    if (!scratch) return -1; /* the caller reports it */
    ssize = gexs_scratch_size();
  }
  gex_TM_Split(color >= 0 ? &tm : NULL, parent->tm, color >= 0 ? color : 0, key, scratch,
               ssize, 0);
  if (color < 0) return 0;
  t->tm = tm;
  t->scratch = scratch;
  t->my_pe = (int)gex_TM_QueryRank(tm);
  t->n_pes = (int)gex_TM_QuerySize(tm);
  t->world_pe = malloc((size_t)t->n_pes * sizeof *t->world_pe);
  if (!t->world_pe) gexs_fatal("shmem team", "out of memory");
  for (int i = 0; i < t->n_pes; i++)
    t->world_pe[i] = (int)gex_TM_TranslateRankToJobrank(tm, (gex_Rank_t)i);
  return 0;
}

void gexs_teams_init(void) {
  struct gexs_team *w = &gexs.world_team;
  *w = (struct gexs_team){.tm = gexs.world, .my_pe = gexs.me, .n_pes = gexs.npes,
                          .predefined = 1};
  gex_RankInfo_t *info;
  gex_Rank_t count, mine;
  gex_System_QueryNbrhdInfo(&info, &count, &mine);
  /* The shared team: the PEs whose heaps are mapped here, that is this
   * neighbourhood; its lowest job rank names it. */
  gex_Rank_t low = info[0].gex_jobrank;
  for (gex_Rank_t i = 1; i < count; i++)
    if (info[i].gex_jobrank < low) low = info[i].gex_jobrank;
  if (split(w, (int)low, gexs.me, &gexs.shared_team) != 0)
    gexs_fatal("shmem_init", "no scratch for the shared team");
  gexs.shared_team.predefined = 1;
}

static void team_free(struct gexs_team *t) {
  if (t->tm == GEX_TM_INVALID || t->tm == gexs.world) return;
  gex_Memvec_t sc;
  gex_TM_Destroy(t->tm, &sc, 0);
  gexs_scratch_give(t->scratch);
  free(t->world_pe);
  t->tm = GEX_TM_INVALID;
}

void gexs_teams_fini(void) { team_free(&gexs.shared_team); }

void gexs_team_barrier(struct gexs_team *t) {
  gex_Event_Wait(gex_Coll_BarrierNB(t->tm, 0));
}

/* ---- queries ---- */
GEXS_PROFILED(shmem_team_my_pe)
int shmem_team_my_pe(shmem_team_t team) {
  GEXS_NEED_INIT("shmem_team_my_pe");
  return team == SHMEM_TEAM_INVALID ? -1 : gexs_team_of(team)->my_pe;
}
GEXS_PROFILED(shmem_team_n_pes)
int shmem_team_n_pes(shmem_team_t team) {
  GEXS_NEED_INIT("shmem_team_n_pes");
  return team == SHMEM_TEAM_INVALID ? -1 : gexs_team_of(team)->n_pes;
}
GEXS_PROFILED(shmem_team_get_config)
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config) {
  GEXS_NEED_INIT("shmem_team_get_config");
  if (team == SHMEM_TEAM_INVALID || !config) return -1;
  if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
    config->num_contexts = gexs_team_of(team)->config.num_contexts;
  return 0;
}
GEXS_PROFILED(shmem_team_translate_pe)
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
  GEXS_NEED_INIT("shmem_team_translate_pe");
  if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID) return -1;
  struct gexs_team *s = gexs_team_of(src_team), *d = gexs_team_of(dest_team);
  if (src_pe < 0 || src_pe >= s->n_pes) return -1;
  int world = s->world_pe ? s->world_pe[src_pe] : src_pe;
  if (!d->world_pe) return world;
  for (int i = 0; i < d->n_pes; i++)
    if (d->world_pe[i] == world) return i;
  return -1;
}

/* ---- splits ---- */
/* At most this many teams made by splits live in a PE at once (libgex
 * gives a process 64 teams, the world and the shared team among them). */
#define GEXS_MAX_TEAMS 60

/* The members of 'parent' agree whether each of them can hold one more
 * team: a full PE makes the split fail everywhere with -1 (the
 * specification's error return), not end the job. */
static int room_for_team(struct gexs_team *parent) {
  int32_t ok = gexs.live_teams < GEXS_MAX_TEAMS, all = 0;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(parent->tm, &all, &ok, GEX_DT_I32, sizeof ok, 1,
                                        GEX_OP_MIN, NULL, NULL, 0));
  return all;
}

static int new_team(const char *call, struct gexs_team *parent, int color, int key,
                    const shmem_team_config_t *config, long mask, shmem_team_t *out) {
  struct gexs_team t;
  *out = SHMEM_TEAM_INVALID;
  if (!room_for_team(parent)) return -1;
  if (split(parent, color, key, &t) != 0)
    gexs_fatal(call, "no scratch for a team (at most %d teams)", GEXS_MAX_TEAMS);
  if (color < 0) {
    *out = SHMEM_TEAM_INVALID;
    return 0;
  }
  struct gexs_team *p = malloc(sizeof *p);
  if (!p) gexs_fatal(call, "out of memory");
  *p = t;
  gexs.live_teams++;
  if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS)) p->config = *config;
  *out = (shmem_team_t)p;
  return 0;
}

/* The split's color: the triplet itself.  The specification has every PE
 * of the parent pass the same triplet; programs that give each PE its own
 * (SOS's self_collectives: start = the PE, size 1) then get a team per
 * triplet, as other implementations give them, not one team of everyone
 * who named a triplet.  (Two different triplets may share a color only if
 * they differ where it folds, a program error either way.) */
static int triplet_color(int start, int stride, int size) {
  uint64_t h = (uint64_t)(uint32_t)start * 0x9E3779B97F4A7C15u;
  h = (h ^ (uint32_t)stride) * 0xC2B2AE3D27D4EB4Fu;
  h = (h ^ (uint32_t)size) * 0x165667B19E3779F9u;
  return (int)((h >> 33) & 0x3fffffff);
}

GEXS_PROFILED(shmem_team_split_strided)
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team_p) {
  const char *call = "shmem_team_split_strided";
  GEXS_NEED_INIT(call);
  if (!new_team_p) return -1;
  *new_team_p = SHMEM_TEAM_INVALID;
  if (parent_team == SHMEM_TEAM_INVALID) return -1;
  struct gexs_team *p = gexs_team_of(parent_team);
  long last = (long)start + (long)(size - 1) * stride;
  if (size < 1 || start < 0 || start >= p->n_pes || last < 0 || last >= p->n_pes ||
      (stride < 1 && size > 1))
    return -1;
  if (size == 1) stride = 1; /* (any stride names the same one PE) */
  int me = p->my_pe, color = -1, key = 0;
  if (me >= start && (me - start) % stride == 0 && (me - start) / stride < size) {
    color = triplet_color(start, stride, size);
    key = (me - start) / stride;
  }
  return new_team(call, p, color, key, config, config_mask, new_team_p);
}

GEXS_PROFILED(shmem_team_split_2d)
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team) {
  const char *call = "shmem_team_split_2d";
  GEXS_NEED_INIT(call);
  if (!xaxis_team || !yaxis_team) return -1;
  *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
  if (parent_team == SHMEM_TEAM_INVALID || xrange < 1) return -1;
  struct gexs_team *p = gexs_team_of(parent_team);
  if (xrange > p->n_pes) xrange = p->n_pes;
  int me = p->my_pe;
  if (new_team(call, p, me / xrange, me % xrange, xaxis_config, xaxis_mask, xaxis_team))
    return -1;
  if (new_team(call, p, me % xrange, me / xrange, yaxis_config, yaxis_mask, yaxis_team)) {
    pshmem_team_destroy(*xaxis_team); /* both or neither */
    *xaxis_team = SHMEM_TEAM_INVALID;
    return -1;
  }
  return 0;
}

GEXS_PROFILED(shmem_team_destroy)
void shmem_team_destroy(shmem_team_t team) {
  GEXS_NEED_INIT("shmem_team_destroy");
  if (team == SHMEM_TEAM_INVALID || team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
    return;
  struct gexs_team *t = gexs_team_of(team);
  gexs_quiet_all();
  team_free(t);
  free(t);
  gexs.live_teams--;
}

/* ---- contexts ---- */
GEXS_PROFILED(shmem_team_create_ctx)
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx) {
  GEXS_NEED_INIT("shmem_team_create_ctx");
  if (!ctx) return -1;
  *ctx = SHMEM_CTX_INVALID;
  if (team == SHMEM_TEAM_INVALID) return -1;
  struct gexs_ctx *c = malloc(sizeof *c);
  if (!c) return -1;
  c->team = gexs_team_of(team);
  c->options = options;
  *ctx = (shmem_ctx_t)c;
  return 0;
}

GEXS_PROFILED(shmem_ctx_create)
int shmem_ctx_create(long options, shmem_ctx_t *ctx) {
  return pshmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

GEXS_PROFILED(shmem_ctx_destroy)
void shmem_ctx_destroy(shmem_ctx_t ctx) {
  GEXS_NEED_INIT("shmem_ctx_destroy");
  if (ctx == SHMEM_CTX_INVALID || ctx == SHMEM_CTX_DEFAULT) return;
  gexs_quiet_all();
  free(gexs_ctx_of(ctx));
}

GEXS_PROFILED(shmem_ctx_get_team)
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team) {
  GEXS_NEED_INIT("shmem_ctx_get_team");
  if (!team) return -1;
  if (ctx == SHMEM_CTX_INVALID) {
    *team = SHMEM_TEAM_INVALID;
    return -1;
  }
  struct gexs_team *t = gexs_ctx_of(ctx)->team;
  *team = t == &gexs.world_team    ? SHMEM_TEAM_WORLD
          : t == &gexs.shared_team ? SHMEM_TEAM_SHARED
                                   : (shmem_team_t)t;
  return 0;
}

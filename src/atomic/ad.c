/* atomic/ad.c -- atomic domains: creation (where the implementation of each
 * kind of target is chosen), destruction, queries, and the out-of-line parts
 * of the operations (misuse reports, jobrank translation, off-node targets).
 * The operations themselves are in atomic/ad_ops.c. */
#include <stdio.h>
#include <stdlib.h>
#include <gasnet_coll.h>
#include <string.h>

#include "atomic/ad.h"
#include "core/op_names.h"
#include "transport/transport.h"

static int single_bit(uint32_t v) { return v && !(v & (v - 1)); }

/* "GEX_OP_ADD|GEX_OP_FADD|0x1000" (unknown bits in hex). */
static void ops_string(gex_OP_t ops, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  uint32_t unknown = 0;
  for (int b = 0; b < 32; b++) {
    uint32_t bit = 1u << b;
    if (!(ops & bit)) continue;
    const char *name = gexi_op_name(bit);
    if (!name) {
      unknown |= bit;
      continue;
    }
    int w = snprintf(buf + n, len - n, "%s%s", n ? "|" : "", name);
    if (w < 0 || (size_t)w >= len - n) return;
    n += (size_t)w;
  }
  if (unknown) snprintf(buf + n, len - n, "%s0x%x", n ? "|" : "", (unsigned)unknown);
  if (!ops) snprintf(buf, len, "0");
}

/* ---- creation ---------------------------------------------------------------- */
#if GEX_CHECKS
static void dt_string(gex_DT_t dt, char *buf, size_t len) {
  const char *s = gexi_dt_name(dt);
  if (s)
    snprintf(buf, len, "%s", s);
  else
    snprintf(buf, len, "0x%x", (unsigned)dt);
}

static void check_create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
                         gex_Flags_t flags) {
  static const char fn[] = "gex_AD_Create";
  char b1[512];
  if (!ad_p) gexi_fatal("%s: ad_p is NULL", fn);
  if (tm == GEX_TM_INVALID) gexi_fatal("%s: invalid team (GEX_TM_INVALID)", fn);
  if (gexi_tm(tm)->is_pair) gexi_fatal("%s: a TM-pair is not a team", fn);
  if (!single_bit(dt) || !(dt & GEXI_AD_ALL_DTS)) {
    dt_string(dt, b1, sizeof b1);
    gexi_fatal(
        "%s: data type %s is not valid for remote atomics (one of GEX_DT_I32, "
        "GEX_DT_U32, GEX_DT_I64, GEX_DT_U64, GEX_DT_FLT, GEX_DT_DBL)",
        fn, b1);
  }
  if (ops == 0) gexi_fatal("%s: no operations (ops is 0)", fn);
  if (ops & ~GEXI_AD_ALL_OPS) {
    ops_string(ops & ~GEXI_AD_ALL_OPS, b1, sizeof b1);
    gexi_fatal("%s: %s not valid for remote atomics", fn, b1);
  }
  if (!(dt & GEXI_AD_INT_DTS) && (ops & GEXI_AD_BITWISE_OPS)) {
    ops_string(ops & GEXI_AD_BITWISE_OPS, b1, sizeof b1);
    gexi_fatal("%s: %s not valid for data type %s (bit-wise operations need an integer type)", fn,
               b1, gexi_dt_name(dt));
  }
  const gex_Flags_t favor =
      GEX_FLAG_AD_FAVOR_MY_RANK | GEX_FLAG_AD_FAVOR_MY_NBRHD | GEX_FLAG_AD_FAVOR_REMOTE;
  /* The segment-disposition hints (GEX_FLAG_SELF_SEG_*, GEX_FLAG_PEER_SEG_*)
   * are accepted and ignored, as the reference does (its testgasnet passes
   * GEX_FLAG_PEER_SEG_OFFSET). */
  const gex_Flags_t seg_hints = GEX_FLAG_SELF_SEG_UNKNOWN | GEX_FLAG_SELF_SEG_SOME |
                                GEX_FLAG_SELF_SEG_BOUND | GEX_FLAG_SELF_SEG_OFFSET |
                                GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_PEER_SEG_SOME |
                                GEX_FLAG_PEER_SEG_BOUND | GEX_FLAG_PEER_SEG_OFFSET;
  if (flags & ~(favor | seg_hints))
    gexi_fatal("%s: flags 0x%x not valid (only one GEX_FLAG_AD_FAVOR_* flag may be given)", fn,
               (unsigned)(flags & ~(favor | seg_hints)));
  if ((flags & favor) & ((flags & favor) - 1))
    gexi_fatal("%s: flags 0x%x: the GEX_FLAG_AD_FAVOR_* flags are mutually exclusive", fn,
               (unsigned)flags);
}
#endif

/* GEX_AD_FORCE_AM=1 (a testing switch, docs/atomics.md): serve every
 * target, on-node ones and this process too, through Active Messages. */
static bool force_am(void) { return gexi_ctx.env.ad_force_am; }

/* GEX_AD_NATIVE (docs/atomics.md): -1 "auto" (default), 0 never, 1 whenever
 * the provider supports the domain's data type and operations. */
static int native_mode(void) { return gexi_ctx.env.ad_native; }

/* This rank's vote for provider-native atomics; *why: the reason if not. */
static bool want_native(const struct gexi_AD *ad, const char **why) {
  const struct gexi_net_ops *net = gexi_ctx.net;
  const int mode = native_mode();
  if (force_am()) return *why = "GEX_AD_FORCE_AM", false;
  if (!net || !net->atomic_valid) return *why = "no network atomics", false;
  if (mode == 0) return *why = "GEX_AD_NATIVE=0", false;
  if (mode < 0 && !net->atomic_in_hw()) return *why = "the provider's atomics are software", false;
  if (!net->atomic_valid(ad->dt, ad->ops))
    return *why = "the provider lacks the data type or an operation", false;
  if (mode == 1) return true;
  if (ad->flags & (GEX_FLAG_AD_FAVOR_MY_RANK | GEX_FLAG_AD_FAVOR_MY_NBRHD))
    return *why = "GEX_FLAG_AD_FAVOR_MY_RANK/MY_NBRHD", false;
  return true;
}

/* Choose how targets on this node and on other nodes are served (see ad.h).
 * Local: no communication.
 *
 * CPU (on-node) and AM (off-node) both end in CPU atomics in the target's
 * process, so they mix freely and need no agreement.  Provider-native
 * atomics are in general not atomic with respect to the target's CPU
 * atomics, so a NET domain sends every operation through the provider,
 * on-node targets and this process included, and every member must decide
 * alike.  They do without exchanging a word: the choice depends only on the
 * team's composition, the single-valued dt, ops and flags, the provider
 * (the same in every rank, checked at gex_Client_Init) and the GEX_AD_*
 * settings, which must be the same in every rank.  gex_AD_Create thus does
 * not synchronize, as the reference's does not (UPC++ relies on it: a
 * member may create a domain while another waits for it elsewhere). */
static void select_impl(struct gexi_AD *ad) {
  /* all_local: every member in this neighbourhood -- the same answer in
   * every member, as the reduction below needs.  A neighbour whose segment
   * is client memory (not mapped here: peer entry 'local' clear) is served
   * by impl_remote, so that is AM even then: the target's CPU performs it. */
  bool all_local = true;
  for (gex_Rank_t r = 0; r < ad->size; r++)
    if (gexi_ctx.local_index[ad->peers[r].jobrank] == GEX_RANK_INVALID) all_local = false;
  ad->impl_local = GEXI_AD_IMPL_CPU;
  ad->impl_remote = GEXI_AD_IMPL_AM;
  const char *why = "the team is on this node";
  if (!all_local && want_native(ad, &why)) ad->impl_local = ad->impl_remote = GEXI_AD_IMPL_NET;
  if (force_am()) ad->impl_local = ad->impl_remote = GEXI_AD_IMPL_AM;
  ad->cpu_local = ad->impl_local == GEXI_AD_IMPL_CPU;
  if (gexi_ctx.env.ad_verbose && ad->rank == 0) {
    char b[512];
    ops_string(ad->ops, b, sizeof b);
    if (ad->impl_remote == GEXI_AD_IMPL_NET)
      fprintf(stderr, "libgex: atomic domain %s %s: provider-native atomics (%s) for every target\n",
              gexi_dt_name(ad->dt), b, gexi_ctx.net->atomic_provider());
    else
      fprintf(stderr, "libgex: atomic domain %s %s: %s path (%s)\n", gexi_dt_name(ad->dt), b,
              ad->impl_local == GEXI_AD_IMPL_AM ? "AM" : all_local ? "CPU" : "CPU on-node, AM off-node",
              why);
  }
}

void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags) {
  gexi_check_can_communicate("gex_AD_Create");
#if GEX_CHECKS
  check_create(ad_p, tm, dt, ops, flags);
#endif
  struct gexi_AD *ad = calloc(1, sizeof *ad);
  if (!ad) gexi_fatal("gex_AD_Create: out of memory");
  ad->tm = tm;
  ad->peers = GEXI_TM_PEERS(tm);
  ad->size = GEXI_TM_SIZE(tm);
  ad->rank = gex_TM_QueryRank(tm);
  ad->dt = dt;
  ad->ops = ops;
  ad->flags = flags;
  ad->jobrank_is_rank = ad->size == gexi_ctx.size;
  for (gex_Rank_t r = 0; r < ad->size && ad->jobrank_is_rank; r++)
    if (ad->peers[r].jobrank != r) ad->jobrank_is_rank = false;
  /* Nothing to exchange or register: a member's operations may reach a
   * target that has not created its domain yet (CPU and AM need nothing of
   * it, the provider's atomics reach the segment). */
  select_impl(ad);
  *ad_p = ad;
}

void gex_AD_Destroy(gex_AD_t ad) {
#if GEX_CHECKS
  if (ad == GEX_AD_INVALID) gexi_fatal("gex_AD_Destroy: invalid atomic domain (GEX_AD_INVALID)");
#endif
  /* Nothing is registered anywhere and every operation is complete (the
   * caller guarantees it), so no communication is needed. */
  free(ad);
}

gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad) { return ad->flags; }
gex_TM_t gex_AD_QueryTM(gex_AD_t ad) { return ad->tm; }
gex_DT_t gex_AD_QueryDT(gex_AD_t ad) { return ad->dt; }
gex_OP_t gex_AD_QueryOps(gex_AD_t ad) { return ad->ops; }
void gex_AD_SetCData(gex_AD_t ad, const void *val) { ad->cdata = (void *)val; }
void *gex_AD_QueryCData(gex_AD_t ad) { return ad->cdata; }

/* ---- out-of-line parts of the operations --------------------------------------- */
void gexi_ad_bad(const char *fn, gex_AD_t ad, gex_DT_t dt, size_t size, const void *result_p,
                 gex_Rank_t rank, const void *addr, gex_OP_t op, gex_Flags_t flags) {
  char b1[512], b2[512];
  if (!gexi_ctx.initialized) gexi_fatal("%s: called before gex_Client_Init", fn);
  if (ad == GEX_AD_INVALID) gexi_fatal("%s: invalid atomic domain (GEX_AD_INVALID)", fn);
  if (ad->dt != dt)
    gexi_fatal("%s: data type mismatch: the atomic domain was created for %s", fn,
               gexi_dt_name(ad->dt));
  if (!single_bit(op)) {
    ops_string(op, b1, sizeof b1);
    gexi_fatal("%s: opcode %s is not a single GEX_OP_* value", fn, b1);
  }
  if (!(op & ad->ops)) {
    ops_string(op, b1, sizeof b1);
    ops_string(ad->ops, b2, sizeof b2);
    gexi_fatal("%s: opcode %s is not one of the operations of the atomic domain (%s)", fn, b1, b2);
  }
  if (flags & ~GEXI_AD_OP_FLAGS) {
    const gex_Flags_t bad = flags & ~GEXI_AD_OP_FLAGS;
    if (bad & (GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET))
      gexi_fatal(
          "%s: flags 0x%x: GEX_FLAG_SELF_SEG_OFFSET and GEX_FLAG_PEER_SEG_OFFSET are not "
          "supported",
          fn, (unsigned)flags);
    gexi_fatal("%s: flags 0x%x: 0x%x not valid for an atomic operation", fn, (unsigned)flags,
               (unsigned)bad);
  }
  if (result_p == NULL && (op & GEXI_FETCHING_OPS))
    gexi_fatal("%s: result_p is NULL for the fetching operation %s", fn, gexi_op_name(op));
  if (rank >= ad->size)
    gexi_fatal("%s: rank %u out of range (team size %u)", fn, (unsigned)rank, (unsigned)ad->size);
  if ((uintptr_t)addr & (size - 1))
    gexi_fatal("%s: target address %p of rank %u is not aligned to %zu bytes", fn, addr,
               (unsigned)rank, size);
  const gexi_Peer_t *p = ad->peers + rank;
  uintptr_t off = (uintptr_t)addr - p->seg_base;
  if (off > p->seg_size || size > p->seg_size - off) gexi_bad_range(fn, ad->tm, rank, addr, size);
  if ((flags & GEX_FLAG_AD_MY_RANK) && (flags & GEX_FLAG_AD_MY_NBRHD))
    gexi_fatal("%s: GEX_FLAG_AD_MY_RANK and GEX_FLAG_AD_MY_NBRHD are mutually exclusive", fn);
  if ((flags & GEX_FLAG_AD_MY_RANK) && rank != ad->rank)
    gexi_fatal("%s: GEX_FLAG_AD_MY_RANK, but rank %u is not this rank (%u)", fn, (unsigned)rank,
               (unsigned)ad->rank);
  if ((flags & GEX_FLAG_AD_MY_NBRHD) && gexi_ctx.local_index[p->jobrank] == GEX_RANK_INVALID)
    gexi_fatal("%s: GEX_FLAG_AD_MY_NBRHD, but rank %u is not in this neighbourhood", fn,
               (unsigned)rank);
  gexi_fatal("%s: invalid arguments", fn); /* not reached */
}

gex_Rank_t gexi_ad_jobrank_to_rank(const char *fn, gex_AD_t ad, gex_Rank_t jobrank) {
#if GEX_CHECKS
  if (ad == GEX_AD_INVALID) gexi_fatal("%s: invalid atomic domain (GEX_AD_INVALID)", fn);
  if (jobrank >= gexi_ctx.size)
    gexi_fatal("%s: GEX_FLAG_RANK_IS_JOBRANK: jobrank %u out of range (job size %u)", fn,
               (unsigned)jobrank, (unsigned)gexi_ctx.size);
#endif
  if (ad->jobrank_is_rank) return jobrank;
  for (gex_Rank_t r = 0; r < ad->size; r++)
    if (ad->peers[r].jobrank == jobrank) return r;
  gexi_fatal(
      "%s: GEX_FLAG_RANK_IS_JOBRANK: jobrank %u is not a member of the atomic domain's "
      "team",
      fn, (unsigned)jobrank);
}

gex_Event_t gexi_ad_remote(const char *fn, int mode, gex_AD_t ad, gex_DT_t dt, void *result_p,
                           gex_Rank_t rank, void *addr, gex_OP_t op, uint64_t operand1,
                           uint64_t operand2, gex_Flags_t flags) {
  const gexi_Peer_t *p = ad->peers + rank;
  const uint8_t impl = p->local ? ad->impl_local : ad->impl_remote;
  switch (impl) {
    case GEXI_AD_IMPL_AM:
      return gexi_ad_am_op(mode, ad, dt, result_p, rank, addr, op, operand1, operand2, flags);
    case GEXI_AD_IMPL_NET:
      return gexi_ctx.net->atomic(fn, p->jobrank, dt, op, addr, operand1, operand2, result_p,
                                  flags, mode);
    default: gexi_fatal("%s: rank %u is not reachable (no network transport)", fn, (unsigned)rank);
  }
}

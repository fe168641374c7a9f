/* t_team.c -- gex_TM_Split / gex_TM_Create / gex_TM_Destroy: queries and
 * translations on new teams, RMA by new-team rank, nested splits, barriers
 * on subset teams interleaved with the primordial team's (several in
 * flight), every scratch mode, gex_AD_Create on a subset team, Destroy
 * returning the scratch space, and team slot reuse. */
#include "test_util.h"
#include "t_coll_samenode.h"

#include <gasnet_coll.h>
#include <gasnet_ratomic.h>

#define SCR 4096 /* scratch bytes per team */

static void wait_barrier(gex_TM_t tm) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

/* Check size/rank/translations of tm whose members are the jobranks jr[]. */
static void check_team(gex_TM_t tm, const gex_Rank_t *jr, gex_Rank_t n) {
  CHECK(gex_TM_QuerySize(tm) == n);
  gex_Rank_t me = gex_TM_QueryRank(tm);
  CHECK(me < n && jr[me] == T.rank);
  CHECK(gex_TM_QueryEP(tm) == T.ep);
  CHECK(gex_TM_QueryClient(tm) == T.client);
  for (gex_Rank_t r = 0; r < n; r++) {
    CHECK(gex_TM_TranslateRankToJobrank(tm, r) == jr[r]);
    CHECK(gex_TM_TranslateJobrankToRank(tm, jr[r]) == r);
    gex_EP_Location_t loc = gex_TM_TranslateRankToEP(tm, r, 0);
    CHECK(loc.gex_rank == jr[r] && loc.gex_ep_index == 0);
  }
  for (gex_Rank_t j = 0; j < T.size; j++) {
    int in = 0;
    for (gex_Rank_t r = 0; r < n; r++) in |= jr[r] == j;
    if (!in) CHECK(gex_TM_TranslateJobrankToRank(tm, j) == GEX_RANK_INVALID);
  }
  /* RMA by new-team rank: put my jobrank into the next member's slot. */
  uint64_t *slot = (uint64_t *)(void *)(T.seg_base + 65536);
  *slot = UINT64_MAX;
  wait_barrier(tm);
  gex_Rank_t next = (me + 1) % n;
  gex_RMA_PutBlockingVal(tm, next, T.peer_seg[jr[next]] + 65536, T.rank, 8, 0);
  wait_barrier(tm);
  gex_Rank_t prev = (me + n - 1) % n;
  CHECKF(*slot == jr[prev], "slot %" PRIu64 " want %u", *slot, (unsigned)jr[prev]);
  uint64_t v = gex_RMA_GetBlockingVal(tm, prev, T.peer_seg[jr[prev]] + 65536, 8, 0);
  CHECK(v == jr[(prev + n - 1) % n]);
  wait_barrier(tm);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_TEAM", 1 << 20, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size;
  gex_Rank_t jr[64];

  /* Scratch size query. */
  size_t rec = gex_TM_Split(NULL, T.tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
  CHECK(rec == 0);
  gex_TM_t dummy = GEX_TM_INVALID;
  rec = gex_TM_Split(&dummy, T.tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
  CHECK(rec > 0 && rec <= SCR && dummy == GEX_TM_INVALID);

  /* Odd/even split, key = jobrank. */
  gex_TM_t par;
  gex_TM_Split(&par, T.tm, (int)(me % 2), (int)me, T.seg_base, SCR, 0);
  gex_Rank_t pn = 0;
  for (gex_Rank_t j = me % 2; j < n; j += 2) jr[pn++] = j;
  check_team(par, jr, pn);

  /* Reversed keys over the whole job, no scratch. */
  gex_TM_t rev;
  gex_TM_Split(&rev, T.tm, 7, -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  for (gex_Rank_t r = 0; r < n; r++) jr[r] = n - 1 - r;
  check_team(rev, jr, n);

  /* Equal keys keep the parent's order; nested split of a split. */
  gex_TM_t half;
  gex_Rank_t prank = gex_TM_QueryRank(par);
  gex_TM_Split(&half, par, (int)(prank < (pn + 1) / 2), 3, T.seg_base + SCR, SCR, 0);
  {
    gex_Rank_t hn = 0, lo = prank < (pn + 1) / 2;
    for (gex_Rank_t r = 0; r < pn; r++)
      if ((r < (pn + 1) / 2) == lo) jr[hn++] = gex_TM_TranslateRankToJobrank(par, r);
    check_team(half, jr, hn);
  }

  /* A split in which only some callers take part (NULL new_tm_p). */
  gex_TM_t some = GEX_TM_INVALID;
  gex_TM_Split(me % 3 == 0 ? &some : NULL, T.tm, 1, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  CHECK((me % 3 == 0) == (some != GEX_TM_INVALID));

  /* Barriers in flight on several teams at once, in varying orders. */
  long iters = test_iters(200, 20);
  for (long i = 0; i < iters; i++) {
    gex_Event_t ev[8];
    int k = 0;
    ev[k++] = gex_Coll_BarrierNB(par, 0);
    ev[k++] = gex_Coll_BarrierNB(T.tm, 0);
    ev[k++] = gex_Coll_BarrierNB(half, 0);
    ev[k++] = gex_Coll_BarrierNB(par, 0);
    ev[k++] = gex_Coll_BarrierNB(rev, 0);
    if (some != GEX_TM_INVALID) ev[k++] = gex_Coll_BarrierNB(some, 0);
    ev[k++] = gex_Coll_BarrierNB(T.tm, 0);
    if (i % 2)
      gex_Event_WaitAll(ev, (size_t)k, 0);
    else
      for (int j = k; j-- > 0;) gex_Event_Wait(ev[j]);
  }
  /* A barrier really synchronises a subset team: a counter written before
   * the barrier by every member is seen by every member after it. */
  {
    uint64_t *cnt = (uint64_t *)(void *)(T.seg_base + 65536 + 64);
    for (long i = 0; i < 20; i++) {
      *cnt = 0;
      wait_barrier(T.tm);
      gex_Rank_t hn = gex_TM_QuerySize(half);
      for (gex_Rank_t r = 0; r < hn; r++) {
        gex_Rank_t j = gex_TM_TranslateRankToJobrank(half, r);
        if (j == me) continue;
        gex_RMA_PutBlockingVal(half, r, T.peer_seg[j] + 65536 + 64 + 8 + 8 * me, 1, 8, 0);
      }
      wait_barrier(half);
      for (gex_Rank_t r = 0; r < hn; r++) {
        gex_Rank_t j = gex_TM_TranslateRankToJobrank(half, r);
        if (j != me) CHECK(((uint64_t *)(void *)(T.seg_base + 65536 + 72))[j] == 1);
      }
      wait_barrier(half);
      for (gex_Rank_t j = 0; j < n; j++) ((uint64_t *)(void *)(T.seg_base + 65536 + 72))[j] = 0;
      wait_barrier(T.tm);
    }
  }

  /* Atomic domain on a subset team. */
  {
    gex_AD_t ad;
    gex_AD_Create(&ad, par, GEX_DT_U64, GEX_OP_ADD | GEX_OP_GET, 0);
    uint64_t *ctr = (uint64_t *)(void *)(T.seg_base + 65536 + 1024);
    if (prank == 0) *ctr = 0;
    wait_barrier(par);
    gex_Rank_t r0j = gex_TM_TranslateRankToJobrank(par, 0);
    for (int i = 0; i < 10; i++)
      gex_AD_OpNBI_U64(ad, NULL, 0, T.peer_seg[r0j] + 65536 + 1024, GEX_OP_ADD, 1, 0, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    wait_barrier(par);
    uint64_t got;
    gex_Event_Wait(
        gex_AD_OpNB_U64(ad, &got, 0, T.peer_seg[r0j] + 65536 + 1024, GEX_OP_GET, 0, 0, 0));
    CHECKF(got == 10u * pn, "counter %" PRIu64 " want %u", got, 10u * pn);
    wait_barrier(par);
    gex_AD_Destroy(ad);
  }

  /* Destroy returns the scratch space (and only when one was given). */
  gex_Memvec_t mv = {NULL, 0};
  CHECK(gex_TM_Destroy(half, &mv, 0) == 1 && mv.gex_addr == T.seg_base + SCR && mv.gex_len == SCR);
  CHECK(gex_TM_Destroy(par, &mv, 0) == 1 && mv.gex_addr == T.seg_base && mv.gex_len == SCR);
  CHECK(gex_TM_Destroy(rev, &mv, 0) == 0);
  if (some != GEX_TM_INVALID) CHECK(gex_TM_Destroy(some, NULL, 0) == 0);

  /* gex_TM_Create: every scratch mode; two disjoint teams (low/high half),
   * members listed in reverse order. */
  {
    gex_Rank_t h = (n + 1) / 2, lo = me < h;
    gex_Rank_t first = lo ? 0 : h, cnt = lo ? h : n - h;
    gex_EP_Location_t args[64];
    for (gex_Rank_t i = 0; i < cnt; i++) {
      args[i].gex_rank = first + cnt - 1 - i;
      args[i].gex_ep_index = 0;
      jr[i] = first + cnt - 1 - i;
    }
    CHECK(gex_TM_Create(NULL, 0, T.tm, args, cnt, NULL, 0,
                        GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) > 0);
    const gex_Flags_t modes[4] = {GEX_FLAG_TM_SYMMETRIC_SCRATCH, GEX_FLAG_TM_LOCAL_SCRATCH,
                                  GEX_FLAG_TM_GLOBAL_SCRATCH, GEX_FLAG_TM_NO_SCRATCH};
    for (int m = 0; m < 4; m++) {
      for (int byjob = 0; byjob < 2; byjob++) {
        gex_Addr_t addrs[64];
        for (gex_Rank_t i = 0; i < cnt; i++) addrs[i] = T.seg_base + 8192;
        gex_Flags_t fl = modes[m] | (byjob ? GEX_FLAG_RANK_IS_JOBRANK : 0);
        if (m == 0 && byjob) { /* symmetric, as a segment offset */
          addrs[0] = (gex_Addr_t)(uintptr_t)8192;
          fl |= GEX_FLAG_SCRATCH_SEG_OFFSET;
        }
        gex_TM_t nt = GEX_TM_INVALID;
        gex_TM_Create(&nt, 1, T.tm, args, cnt, addrs, SCR, fl);
        check_team(nt, jr, cnt);
        int want = m != 3;
        mv.gex_addr = NULL;
        CHECK(gex_TM_Destroy(nt, &mv, 0) == want);
        if (want) CHECK(mv.gex_addr == T.seg_base + 8192 && mv.gex_len == SCR);
      }
    }
    /* A caller outside every created team (numargs == 0). */
    gex_TM_t nt = GEX_TM_INVALID;
    if (me == 0)
      gex_TM_Create(NULL, 0, T.tm, NULL, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    else {
      for (gex_Rank_t i = 1; i < n; i++) {
        args[i - 1].gex_rank = i;
        args[i - 1].gex_ep_index = 0;
        jr[i - 1] = i;
      }
      gex_TM_Create(&nt, 1, T.tm, args, n - 1, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
      check_team(nt, jr, n - 1);
      gex_TM_Destroy(nt, NULL, 0);
    }
  }

  /* Team slots are reused: create and destroy many more teams than slots,
   * keeping a few alive. */
  {
    gex_TM_t keep[3];
    for (int i = 0; i < 3; i++)
      gex_TM_Split(&keep[i], T.tm, (int)((me + (gex_Rank_t)i) % 2), 0, NULL, 0,
                   GEX_FLAG_TM_NO_SCRATCH);
    for (int i = 0; i < 70; i++) { /* > GEXI_SHM_TEAM_SLOTS */
      gex_TM_t t;
      gex_TM_Split(&t, keep[i % 3], 0, -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
      wait_barrier(t);
      gex_Event_t e1 = gex_Coll_BarrierNB(t, 0), e2 = gex_Coll_BarrierNB(keep[(i + 1) % 3], 0);
      gex_Event_Wait(e2);
      gex_Event_Wait(e1);
      gex_TM_Destroy(t, NULL, 0);
    }
    for (int i = 0; i < 3; i++) gex_TM_Destroy(keep[i], NULL, 0);
  }
  check_same_node_ams();
  check_rdv_frags();
  test_finish();
}

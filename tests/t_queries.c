/* t_queries.c -- the query calls: client, endpoint, team, segment, bound
 * segments of every peer (also with GEX_FLAG_IMMEDIATE), job/neighbourhood/
 * host information, GASNet-1 names, client data, rank translations, TM-pair,
 * error names, verbose-error switch and the AM limit queries (incl. their
 * documented symmetry and monotonicity).
 */
#include <stdlib.h>

#include "test_util.h"

#include <stdalign.h>

#define MAXR 64

/* Segment address/size of every rank, as announced by that rank itself in an
 * AM (independent of gex_EP_QueryBoundSegmentNB). */
static void *announced_addr[MAXR];
static uintptr_t announced_size[MAXR];
static atomic_int announced;
static atomic_int pair_am_seen;

static void h_announce(gex_Token_t t, gex_AM_Arg_t ahi, gex_AM_Arg_t alo, gex_AM_Arg_t shi,
                       gex_AM_Arg_t slo) {
  gex_Token_Info_t info;
  gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  CHECK(got & GEX_TI_SRCRANK);
  CHECK(info.gex_srcrank < T.size && info.gex_srcrank < MAXR);
  announced_addr[info.gex_srcrank] = test_ptr_join(ahi, alo);
  announced_size[info.gex_srcrank] = (uintptr_t)test_ptr_join(shi, slo);
  atomic_fetch_add(&announced, 1);
}

static void h_pair(gex_Token_t t, gex_AM_Arg_t a0) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  CHECK((gex_Rank_t)a0 == info.gex_srcrank);
  atomic_fetch_add(&pair_am_seen, 1);
}

static gex_AM_Entry_t handlers[] = {
    {0, (gex_AM_Fn_t)h_announce, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 4, NULL, "announce"},
    {0, (gex_AM_Fn_t)h_pair, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "pair"},
};

/* Layout of my segment (each rank's may differ in size: 8 + rank pages). */
#define OFF_LIMITS 0               /* limits reported by every rank about me */
#define OFF_LOCALWR 16384          /* written by peers through their local mapping */
#define OFF_PAIR 20480             /* written by peers through a TM-pair Put */
#define NLIM 8                     /* limit values exchanged per (src, dst) */

static uintptr_t seg_pages_of(gex_Rank_t r, gex_Rank_t n) {
  (void)n;
  return (8 + r % 8) * GASNET_PAGESIZE; }

static void check_limits_basic(void) {
  CHECK(gex_AM_MaxArgs() == 16);
  CHECK(gex_AM_MaxArgs() >= 2 * sizeof(void *) / sizeof(gex_AM_Arg_t));
  size_t lub[4] = {gex_AM_LUBRequestMedium(), gex_AM_LUBReplyMedium(), gex_AM_LUBRequestLong(),
                   gex_AM_LUBReplyLong()};
  for (int i = 0; i < 4; i++) CHECKF(lub[i] >= 512, "LUB[%d] = %zu", i, lub[i]);

  gex_Event_t ev;
  const gex_Event_t *lcs[4] = {GEX_EVENT_NOW, GEX_EVENT_GROUP, &ev, NULL};
  for (gex_Rank_t r = 0; r <= T.size; r++) {
    gex_Rank_t other = r == T.size ? GEX_RANK_INVALID : r;
    for (int l = 0; l < 4; l++) {
      size_t prev[4] = {SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};
      for (unsigned na = 0; na <= gex_AM_MaxArgs(); na++) {
        size_t m[4];
        m[0] = gex_AM_MaxRequestMedium(T.tm, other, lcs[l], 0, na);
        m[1] = gex_AM_MaxRequestLong(T.tm, other, lcs[l], 0, na);
        /* GEX_EVENT_GROUP is not valid for Replies */
        const gex_Event_t *rl = lcs[l] == GEX_EVENT_GROUP ? GEX_EVENT_NOW : lcs[l];
        m[2] = gex_AM_MaxReplyMedium(T.tm, other, rl, 0, na);
        m[3] = gex_AM_MaxReplyLong(T.tm, other, rl, 0, na);
        for (int k = 0; k < 4; k++) {
          CHECKF(m[k] >= 512, "limit %d for rank %u nargs %u = %zu", k, other, na, m[k]);
          CHECKF(m[k] <= prev[k], "limit %d not monotonic in numargs at %u", k, na);
          prev[k] = m[k];
        }
        /* LUB <= every Max */
        CHECK(gex_AM_LUBRequestMedium() <= m[0]);
        CHECK(gex_AM_LUBRequestLong() <= m[1]);
        CHECK(gex_AM_LUBReplyMedium() <= m[2]);
        CHECK(gex_AM_LUBReplyLong() <= m[3]);
        /* the TM-pair names the same endpoints: same result */
        if (other != GEX_RANK_INVALID) {
          gex_TM_t pair = gex_TM_Pair(T.ep, 0);
          CHECK(gex_AM_MaxRequestMedium(pair, other, lcs[l], 0, na) == m[0]);
          CHECK(gex_AM_MaxRequestLong(pair, other, lcs[l], 0, na) == m[1]);
          CHECK(gex_AM_MaxReplyMedium(pair, other, rl, 0, na) == m[2]);
          CHECK(gex_AM_MaxReplyLong(pair, other, rl, 0, na) == m[3]);
        }
      }
    }
    /* stable: same inputs, same answer */
    CHECK(gex_AM_MaxRequestMedium(T.tm, other, GEX_EVENT_NOW, 0, 3) ==
          gex_AM_MaxRequestMedium(T.tm, other, GEX_EVENT_NOW, 0, 3));
    /* the PREPARE_LEAST queries are at least 512 too */
    CHECK(gex_AM_MaxRequestMedium(T.tm, other, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 0) >= 512);
    CHECK(gex_AM_MaxRequestMedium(T.tm, other, GEX_EVENT_NOW, GEX_FLAG_AM_PREPARE_LEAST_CLIENT,
                                  0) >= 512);
    CHECK(gex_AM_MaxRequestLong(T.tm, other, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 0) >= 512);
    CHECK(gex_AM_MaxReplyLong(T.tm, other, GEX_EVENT_NOW, GEX_FLAG_AM_PREPARE_LEAST_CLIENT, 16) >=
          512);
  }
  /* RANK_INVALID is the minimum over all peers */
  for (unsigned na = 0; na <= 16; na += 8) {
    size_t all = gex_AM_MaxRequestMedium(T.tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, na);
    size_t mn = SIZE_MAX;
    for (gex_Rank_t r = 0; r < T.size; r++) {
      size_t v = gex_AM_MaxRequestMedium(T.tm, r, GEX_EVENT_NOW, 0, na);
      if (v < mn) mn = v;
    }
    CHECKF(all == mn, "MaxRequestMedium(RANK_INVALID) %zu != min over peers %zu", all, mn);
  }
}

static void my_limits(gex_Rank_t other, uint64_t out[NLIM]) {
  out[0] = gex_AM_MaxRequestMedium(T.tm, other, GEX_EVENT_NOW, 0, 0);
  out[1] = gex_AM_MaxRequestMedium(T.tm, other, GEX_EVENT_NOW, 0, 16);
  out[2] = gex_AM_MaxReplyMedium(T.tm, other, GEX_EVENT_NOW, 0, 0);
  out[3] = gex_AM_MaxReplyMedium(T.tm, other, GEX_EVENT_NOW, 0, 16);
  out[4] = gex_AM_MaxRequestLong(T.tm, other, GEX_EVENT_NOW, 0, 0);
  out[5] = gex_AM_MaxRequestLong(T.tm, other, GEX_EVENT_NOW, 0, 16);
  out[6] = gex_AM_MaxReplyLong(T.tm, other, GEX_EVENT_NOW, 0, 0);
  out[7] = gex_AM_MaxReplyLong(T.tm, other, GEX_EVENT_NOW, 0, 16);
}

int main(int argc, char **argv) {
  /* Each rank attaches a segment of a different size, to catch mix-ups. */
  test_seg_size_fn = seg_pages_of;
  test_init_flags(&argc, &argv, "realm-gex t_queries", 0, handlers, 2, GEX_FLAG_USES_GASNET1);
  const uintptr_t my_pages = 8 + T.rank % 8;
  CHECK(T.size <= MAXR);
  const gex_Rank_t me = T.rank, n = T.size;

  /* ---- handler registration assigned the highest free indices ---- */
  CHECK(handlers[0].gex_index == 255);
  CHECK(handlers[1].gex_index == 254);

  /* ---- client ---- */
  CHECK(strcmp(gex_Client_QueryName(T.client), "realm-gex t_queries") == 0);
  CHECK(gex_Client_QueryFlags(T.client) & GEX_FLAG_USES_GASNET1);

  /* ---- endpoint ---- */
  CHECK(gex_EP_QueryClient(T.ep) == T.client);
  CHECK(gex_EP_QueryIndex(T.ep) == 0);
  CHECK(gex_EP_QuerySegment(T.ep) == T.seg);
  (void)gex_EP_QueryFlags(T.ep);

  /* ---- team ---- */
  CHECK(gex_TM_QueryClient(T.tm) == T.client);
  CHECK(gex_TM_QueryEP(T.tm) == T.ep);
  (void)gex_TM_QueryFlags(T.tm);
  CHECK(gex_TM_QueryRank(T.tm) == me);
  CHECK(gex_TM_QuerySize(T.tm) == n);

  /* ---- segment ---- */
  CHECK(gex_Segment_QueryClient(T.seg) == T.client);
  (void)gex_Segment_QueryFlags(T.seg);
  CHECK(gex_Segment_QueryAddr(T.seg) == T.seg_base);
  CHECKF(gex_Segment_QuerySize(T.seg) == my_pages * GASNET_PAGESIZE, "size %zu, attached %zu",
         (size_t)gex_Segment_QuerySize(T.seg), (size_t)(my_pages * GASNET_PAGESIZE));
  CHECK((uintptr_t)T.seg_base % GASNET_PAGESIZE == 0);
  CHECK(gasnet_getMaxLocalSegmentSize() >= T.seg_size);
  CHECK(gasnet_getMaxGlobalSegmentSize() >= GASNET_PAGESIZE);
  CHECK(gasnet_getMaxGlobalSegmentSize() <= gasnet_getMaxLocalSegmentSize());
  /* the whole segment is usable memory */
  memset(T.seg_base, 0, T.seg_size);

  /* ---- job ---- */
  CHECK(gex_System_QueryJobRank() == me);
  CHECK(gex_System_QueryJobSize() == n);
  CHECK(gasnet_mynode() == me);
  CHECK(gasnet_nodes() == n);
  CHECK(gex_System_QueryMaxThreads() >= 1);
  CHECK(gex_System_QueryHiddenAMConcurrencyLevel() >= 0);
  {
    unsigned int cnt = 99;
    const gex_ProgressThreadInfo_t *info = NULL;
    /* without GEX_FLAG_DEFER_THREADS the query is erroneous: GASNET_ERR_RESOURCE */
    CHECK(gex_System_QueryProgressThreads(T.client, &cnt, &info, 0) == GASNET_ERR_RESOURCE);
  }

  /* ---- neighbourhood and host ----
   * Ranks are placed on hosts in blocks of GEX_TEST_RANKS_PER_HOST (set by
   * the multi-host runs; default: every rank on this host), and a host's
   * ranks share memory in blocks of GEX_SUPERNODE_MAXSIZE (default: all). */
  {
    const char *e = getenv("GEX_TEST_RANKS_PER_HOST");
    gex_Rank_t per_host = e && atoi(e) > 0 ? (gex_Rank_t)atoi(e) : n;
    e = getenv("GEX_SUPERNODE_MAXSIZE");
    gex_Rank_t per_nb = e && atoi(e) > 0 ? (gex_Rank_t)atoi(e) : per_host;
    if (per_nb > per_host) per_nb = per_host;
    gex_Rank_t h0 = me / per_host * per_host;                      /* my host's first */
    gex_Rank_t hsz = (h0 + per_host <= n ? per_host : n - h0);
    gex_Rank_t b0 = h0 + (me - h0) / per_nb * per_nb;             /* my nbrhd's first */
    gex_Rank_t bsz = (b0 + per_nb <= h0 + hsz ? per_nb : h0 + hsz - b0);
    gex_Rank_t hosts = (n + per_host - 1) / per_host, nbs = 0, my_nb = 0;
    for (gex_Rank_t h = 0; h < hosts; h++) {
      gex_Rank_t sz = (h + 1) * per_host <= n ? per_host : n - h * per_host;
      if (h == me / per_host) my_nb = nbs + (me - h0) / per_nb;
      nbs += (sz + per_nb - 1) / per_nb;
    }

    gex_RankInfo_t *info = NULL;
    gex_Rank_t count = 0, idx = 99999;
    gex_System_QueryNbrhdInfo(&info, &count, &idx);
    CHECK(info != NULL);
    CHECKF(count == bsz, "nbrhd size %u, expected %u", (unsigned)count, (unsigned)bsz);
    CHECK(idx == me - b0);
    CHECK(info[idx].gex_jobrank == gex_System_QueryJobRank());
    for (gex_Rank_t i = 0; i < count; i++) CHECK(info[i].gex_jobrank == b0 + i);
    gex_System_QueryNbrhdInfo(NULL, NULL, NULL); /* all outputs optional */
    gex_System_QueryNbrhdInfo(NULL, &count, NULL);
    CHECK(count == bsz);

    info = NULL;
    count = 0;
    idx = 99999;
    gex_System_QueryHostInfo(&info, &count, &idx);
    CHECK(info != NULL);
    CHECKF(count == hsz, "host size %u, expected %u", (unsigned)count, (unsigned)hsz);
    CHECK(idx == me - h0);
    for (gex_Rank_t i = 0; i < count; i++) CHECK(info[i].gex_jobrank == h0 + i);
    gex_System_QueryHostInfo(NULL, NULL, NULL);

    gex_Rank_t nss = 9, nsr = 9, hss = 9, hsr = 9;
    gex_System_QueryMyPosition(&nss, &nsr, &hss, &hsr);
    CHECKF(nss == nbs && nsr == my_nb && hss == hosts && hsr == me / per_host,
           "position %u/%u %u/%u, expected %u/%u %u/%u", (unsigned)nsr, (unsigned)nss,
           (unsigned)hsr, (unsigned)hss, (unsigned)my_nb, (unsigned)nbs,
           (unsigned)(me / per_host), (unsigned)hosts);
    gex_System_QueryMyPosition(NULL, NULL, NULL, NULL);
  }

  /* ---- GASNet-1 object query ---- */
  {
    gex_Client_t c = 0;
    gex_EP_t e = 0;
    gex_TM_t t = 0;
    gex_Segment_t s = 0;
    gasnet_QueryGexObjects(&c, &e, &t, &s);
    CHECK(c == T.client && e == T.ep && t == T.tm && s == T.seg);
    gasnet_QueryGexObjects(NULL, NULL, NULL, NULL);
    gasnet_QueryGexObjects(NULL, NULL, &t, NULL);
    CHECK(t == T.tm);
  }

  /* ---- client data ---- */
  {
    static int a, b, c, d;
    CHECK(gex_Client_QueryCData(T.client) == NULL);
    CHECK(gex_Segment_QueryCData(T.seg) == NULL);
    CHECK(gex_TM_QueryCData(T.tm) == NULL);
    CHECK(gex_EP_QueryCData(T.ep) == NULL);
    gex_Client_SetCData(T.client, &a);
    gex_Segment_SetCData(T.seg, &b);
    gex_TM_SetCData(T.tm, &c);
    gex_EP_SetCData(T.ep, &d);
    CHECK(gex_Client_QueryCData(T.client) == &a);
    CHECK(gex_Segment_QueryCData(T.seg) == &b);
    CHECK(gex_TM_QueryCData(T.tm) == &c);
    CHECK(gex_EP_QueryCData(T.ep) == &d);
    gex_TM_SetCData(T.tm, NULL);
    CHECK(gex_TM_QueryCData(T.tm) == NULL);
    CHECK(gex_Client_QueryCData(T.client) == &a);
  }

  /* ---- rank translation ---- */
  for (gex_Rank_t r = 0; r < n; r++) {
    CHECK(gex_TM_TranslateRankToJobrank(T.tm, r) == r);
    CHECK(gex_TM_TranslateJobrankToRank(T.tm, r) == r);
    gex_EP_Location_t loc = gex_TM_TranslateRankToEP(T.tm, r, 0);
    CHECK(loc.gex_rank == r);
    CHECK(loc.gex_ep_index == 0);
  }

  /* ---- error names ---- */
  {
    static const int codes[] = {GASNET_OK, GASNET_ERR_NOT_INIT, GASNET_ERR_RESOURCE,
                                GASNET_ERR_BAD_ARG, GASNET_ERR_NOT_READY,
                                GASNET_ERR_BARRIER_MISMATCH};
    static const char *names[] = {"GASNET_OK", "GASNET_ERR_NOT_INIT", "GASNET_ERR_RESOURCE",
                                  "GASNET_ERR_BAD_ARG", "GASNET_ERR_NOT_READY",
                                  "GASNET_ERR_BARRIER_MISMATCH"};
    for (int i = 0; i < 6; i++) {
      const char *nm = gasnet_ErrorName(codes[i]);
      const char *ds = gasnet_ErrorDesc(codes[i]);
      CHECK(nm != NULL && ds != NULL);
      CHECKF(strcmp(nm, names[i]) == 0, "gasnet_ErrorName(%d) = \"%s\"", codes[i], nm);
      CHECK(strlen(ds) > 0);
      for (int j = 0; j < i; j++) CHECK(strcmp(ds, gasnet_ErrorDesc(codes[j])) != 0);
    }
    CHECK(gasnet_ErrorName(424242) != NULL);
    CHECK(gasnet_ErrorDesc(424242) != NULL);
  }

  /* ---- verbose errors switch ---- */
  {
    int old = gex_System_GetVerboseErrors();
    gex_System_SetVerboseErrors(0);
    CHECK(gex_System_GetVerboseErrors() == 0);
    gex_System_SetVerboseErrors(1);
    CHECK(gex_System_GetVerboseErrors() != 0);
    gex_System_SetVerboseErrors(old ? 1 : 0);
    CHECK((gex_System_GetVerboseErrors() != 0) == (old != 0));
  }

  /* ---- AM limit queries ---- */
  check_limits_basic();

  /* ---- every rank announces its own segment by AM ---- */
  for (gex_Rank_t r = 0; r < n; r++) {
    uintptr_t sz = T.seg_size;
    int rc = gex_AM_RequestShort4(T.tm, r, handlers[0].gex_index, 0, test_ptr_hi(T.seg_base),
                                  test_ptr_lo(T.seg_base), test_ptr_hi((void *)sz),
                                  test_ptr_lo((void *)sz));
    CHECK(rc == 0);
  }
  GASNET_BLOCKUNTIL(atomic_load(&announced) == (int)n);
  test_barrier();

  /* ---- bound segments of every peer, blocking-style and IMMEDIATE ---- */
  for (gex_Rank_t r = 0; r < n; r++) {
    void *owner = NULL, *local = NULL;
    uintptr_t sz = 0;
    gex_Event_t ev = gex_EP_QueryBoundSegmentNB(T.tm, r, &owner, &local, &sz, 0);
    CHECK(ev != GEX_EVENT_NO_OP);
    gex_Event_Wait(ev);
    CHECKF(owner == announced_addr[r], "rank %u: owneraddr %p, owner says %p", r, owner,
           announced_addr[r]);
    CHECKF(sz == announced_size[r], "rank %u: size %zu, owner says %zu", r, (size_t)sz,
           (size_t)announced_size[r]);
    CHECKF(sz == (8 + r % 8) * GASNET_PAGESIZE, "rank %u: size %zu", r, (size_t)sz);
    /* mapped here exactly when the owner shares memory with us */
    gex_RankInfo_t *nb = NULL;
    gex_Rank_t nbn = 0, same = 0;
    gex_System_QueryNbrhdInfo(&nb, &nbn, NULL);
    for (gex_Rank_t i = 0; i < nbn; i++) same |= nb[i].gex_jobrank == r;
    CHECKF((local != NULL) == (same != 0), "rank %u: localaddr %p, shares memory: %d", r, local,
           (int)same);
    if (r == me) CHECK(local == T.seg_base && owner == T.seg_base);

    /* only some outputs */
    uintptr_t sz2 = 0;
    test_wait(gex_EP_QueryBoundSegmentNB(T.tm, r, NULL, NULL, &sz2, 0));
    CHECK(sz2 == sz);
    void *owner2 = NULL;
    test_wait(gex_EP_QueryBoundSegmentNB(T.tm, r, &owner2, NULL, NULL, 0));
    CHECK(owner2 == owner);

    /* IMMEDIATE: INVALID (answered) or NO_OP (would communicate); self: INVALID */
    void *o3 = NULL, *l3 = NULL;
    uintptr_t s3 = 0;
    ev = gex_EP_QueryBoundSegmentNB(T.tm, r, &o3, &l3, &s3, GEX_FLAG_IMMEDIATE);
    if (r == me) CHECK(ev == GEX_EVENT_INVALID);
    CHECK(ev == GEX_EVENT_INVALID || ev == GEX_EVENT_NO_OP);
    if (ev == GEX_EVENT_INVALID) CHECK(o3 == owner && l3 == local && s3 == sz);

    /* deprecated blocking form */
    void *o4 = NULL, *l4 = NULL;
    uintptr_t s4 = 0;
    CHECK(gex_Segment_QueryBound(T.tm, r, &o4, &l4, &s4) == 0);
    CHECK(o4 == owner && l4 == local && s4 == sz);

    /* TM-pair names the same endpoints by jobrank */
    gex_TM_t pair = gex_TM_Pair(T.ep, 0);
    void *o5 = NULL, *l5 = NULL;
    uintptr_t s5 = 0;
    test_wait(gex_EP_QueryBoundSegmentNB(pair, r, &o5, &l5, &s5, 0));
    CHECK(o5 == owner && s5 == sz && l5 == local);

    /* the local mapping really is the peer's memory: write my stamp into it */
    uint64_t stamp = test_seed(me, r, 77, 0);
    if (local)
      memcpy((char *)local + OFF_LOCALWR + 8 * me, &stamp, 8);
    else /* not mapped here: write it with a Put instead */
      CHECK(gex_RMA_PutBlocking(T.tm, r, (char *)owner + OFF_LOCALWR + 8 * me, &stamp, 8, 0) == 0);
  }

  /* ---- TM-pair: equality, RMA and AM by jobrank ---- */
  {
    gex_TM_t p1 = gex_TM_Pair(T.ep, 0), p2 = gex_TM_Pair(T.ep, 0);
    CHECK(p1 == p2);
    CHECK(p1 != T.tm);
    CHECK(p1 != GEX_TM_INVALID);
    for (gex_Rank_t r = 0; r < n; r++) {
      uint64_t v = test_seed(me, r, 88, 0);
      CHECK(gex_RMA_PutBlocking(p1, r, T.peer_seg[r] + OFF_PAIR + 8 * me, &v, 8, 0) == 0);
      uint64_t back = 0;
      CHECK(gex_RMA_GetBlocking(p1, &back, r, T.peer_seg[r] + OFF_PAIR + 8 * me, 8, 0) == 0);
      CHECK(back == v);
      CHECK(gex_AM_RequestShort1(p1, r, handlers[1].gex_index, 0, (gex_AM_Arg_t)me) == 0);
    }
    GASNET_BLOCKUNTIL(atomic_load(&pair_am_seen) == (int)n);
  }

  /* ---- limit symmetry: what rank r computes about me equals what I compute about r ---- */
  for (gex_Rank_t r = 0; r < n; r++) {
    uint64_t lim[NLIM];
    my_limits(r, lim);
    CHECK(gex_RMA_PutBlocking(T.tm, r, T.peer_seg[r] + OFF_LIMITS + me * NLIM * 8, lim,
                              sizeof lim, 0) == 0);
  }
  test_barrier();
  for (gex_Rank_t r = 0; r < n; r++) {
    uint64_t mine[NLIM], theirs[NLIM];
    my_limits(r, mine);
    memcpy(theirs, T.seg_base + OFF_LIMITS + r * NLIM * 8, sizeof theirs);
    for (int k = 0; k < NLIM; k++)
      CHECKF(mine[k] == theirs[k], "limit %d: mine about %u = %" PRIu64 ", %u's about me = %" PRIu64,
             k, r, mine[k], r, theirs[k]);
    uint64_t stamp;
    memcpy(&stamp, T.seg_base + OFF_LOCALWR + 8 * r, 8);
    CHECK(stamp == test_seed(r, me, 77, 0));
    memcpy(&stamp, T.seg_base + OFF_PAIR + 8 * r, 8);
    CHECK(stamp == test_seed(r, me, 88, 0));
  }
  /* RANK_INVALID answers are the same on every rank */
  {
    uint64_t v = gex_AM_MaxRequestMedium(T.tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 5);
    CHECK(gex_RMA_PutBlocking(T.tm, 0, T.peer_seg[0] + OFF_LIMITS + (MAXR * NLIM + me) * 8, &v,
                              8, 0) == 0);
    test_barrier();
    if (me == 0)
      for (gex_Rank_t r = 0; r < n; r++) {
        uint64_t o;
        memcpy(&o, T.seg_base + OFF_LIMITS + (MAXR * NLIM + r) * 8, 8);
        CHECK(o == v);
      }
  }
  test_finish();
}

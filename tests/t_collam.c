/* t_collam.c -- collectives and team construction in the situations the AM
 * collectives engine must get right (run with GEX_COLL_FORCE_AM=1 to use
 * it on one host; without it the same checks run on the shared-memory
 * engine): many collectives in flight on several teams at once, completed
 * by Wait, WaitAll and bare Test loops (no explicit poll: Test must poll);
 * early arrivals (one rank initiates long after the others); payloads of
 * many AM fragments, including user elements larger than one fragment;
 * GEX_OP_USER and GEX_OP_USER_NC at every root; singleton teams; team
 * construction churn with collectives on each new team at once.  Every
 * result is checked against a serial computation. */
#include "test_util.h"
#include "t_coll_samenode.h"

#include <gasnet_coll.h>

/* Busy work without library calls: this rank initiates late. */
static void spin(long n) {
  volatile unsigned x = 0;
  for (long i = 0; i < n; i++) x += (unsigned)i;
}

/* Team member r's contribution at element i (sums of 64 of them are exact). */
static uint64_t contrib(gex_Rank_t r, size_t i, uint64_t salt) {
  return test_seed(r, i, salt, 5) & 0xffffff;
}

/* A team seen from this rank, plus a tag equal in all members. */
struct team {
  gex_TM_t tm;
  gex_Rank_t n, me;
  uint64_t id;
};
static struct team mk(gex_TM_t tm, uint64_t id) {
  struct team t = {tm, gex_TM_QuerySize(tm), gex_TM_QueryRank(tm), id};
  return t;
}

/* ---- A: many collectives in flight on several teams ------------------------- */
#define NT_MAX 5
#define PER 6 /* collectives per team per iteration */
struct inflight {
  uint64_t x[3], all[3], one[3];
  unsigned char src[300], dst[300];
};

static void complete(gex_Event_t *ev, size_t k, long how) {
  switch (how % 3) {
    case 0: gex_Event_WaitAll(ev, k, 0); break;
    case 1:
      for (size_t i = k; i-- > 0;) gex_Event_Wait(ev[i]);
      break;
    default: /* no gasnet_AMPoll: TestAll itself must make progress */
      while (gex_Event_TestAll(ev, k, 0) != GASNET_OK) {
      }
  }
}

static void section_inflight(struct team *tt, int nt) {
  long iters = test_iters(60, 6);
  static struct inflight st[NT_MAX];
  for (long it = 0; it < iters; it++) {
    gex_Event_t ev[NT_MAX * PER];
    size_t k = 0;
    for (int t = 0; t < nt; t++) {
      struct inflight *s = &st[t];
      gex_Rank_t broot = (gex_Rank_t)(it % tt[t].n);
      for (int i = 0; i < 3; i++) s->x[i] = contrib(tt[t].me, (size_t)i, (uint64_t)it);
      test_fill(s->src, sizeof s->src, test_seed(tt[t].id, (uint64_t)it, broot, 1));
      memset(s->dst, 0, sizeof s->dst);
      memset(s->one, 0, sizeof s->one);
    }
    /* Interleave the teams: op j of every team, then op j+1. */
    for (int j = 0; j < PER; j++) {
      for (int t = 0; t < nt; t++) {
        struct inflight *s = &st[t];
        gex_TM_t tm = tt[t].tm;
        gex_Rank_t broot = (gex_Rank_t)(it % tt[t].n), rroot = (gex_Rank_t)((it + 1) % tt[t].n);
        switch (j) {
          case 0:
          case 5: ev[k++] = gex_Coll_BarrierNB(tm, 0); break;
          case 1: ev[k++] = gex_Coll_BroadcastNB(tm, broot, s->dst, s->src, sizeof s->src, 0); break;
          case 2:
            ev[k++] = gex_Coll_ReduceToAllNB(tm, s->all, s->x, GEX_DT_U64, 8, 3, GEX_OP_ADD, NULL,
                                             NULL, 0);
            break;
          case 3:
            ev[k++] = gex_Coll_ReduceToOneNB(tm, rroot, s->one, s->x, GEX_DT_U64, 8, 3, GEX_OP_MAX,
                                             NULL, NULL, 0);
            break;
          default: ev[k++] = gex_Coll_BarrierNB(tm, 0); break;
        }
      }
    }
    complete(ev, k, it);
    for (int t = 0; t < nt; t++) {
      struct inflight *s = &st[t];
      gex_Rank_t broot = (gex_Rank_t)(it % tt[t].n), rroot = (gex_Rank_t)((it + 1) % tt[t].n);
      CHECK_PATTERN(s->dst, sizeof s->dst, test_seed(tt[t].id, (uint64_t)it, broot, 1));
      for (int i = 0; i < 3; i++) {
        uint64_t sum = 0, mx = 0;
        for (gex_Rank_t r = 0; r < tt[t].n; r++) {
          uint64_t v = contrib(r, (size_t)i, (uint64_t)it);
          sum += v;
          mx = v > mx ? v : mx;
        }
        CHECKF(s->all[i] == sum, "team %d iter %ld elem %d: sum %" PRIu64 " want %" PRIu64, t,
               it, i, s->all[i], sum);
        CHECK(tt[t].me == rroot ? s->one[i] == mx : s->one[i] == 0);
      }
    }
  }
}

/* ---- B: early arrivals --------------------------------------------------------- */
static void section_early(struct team *w) {
  size_t nb = 50000;
  unsigned char *src = malloc(nb), *dst = malloc(nb), *dst2 = malloc(nb);
  CHECK(src && dst && dst2);
  for (gex_Rank_t d = 0; d < w->n; d++) {
    if (test_reduced() && d != 0 && d != w->n - 1) continue;
    gex_Rank_t r1 = (d + 1) % w->n;
    uint64_t s1 = test_seed(d, 11, w->id, 0), s2 = test_seed(d, 12, w->id, 0);
    if (w->me == r1) test_fill(src, nb, s1);
    memset(dst, 0, nb);
    memset(dst2, 0, nb);
    uint64_t x = contrib(w->me, 0, d), all = 0;
    if (w->me == d) spin(3000000); /* everyone else's messages arrive first */
    gex_Event_t ev[4];
    ev[0] = gex_Coll_BroadcastNB(w->tm, r1, dst, src, nb, 0);
    ev[1] = gex_Coll_ReduceToAllNB(w->tm, &all, &x, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    ev[2] = gex_Coll_BarrierNB(w->tm, 0);
    if (w->me == d) test_fill(dst2, nb, s2);
    ev[3] = gex_Coll_BroadcastNB(w->tm, d, dst2, dst2, nb, 0); /* in place at the root */
    if (w->me != d) spin(100000); /* now the late rank's messages wait here */
    complete(ev, 4, d);
    CHECK_PATTERN(dst, nb, s1);
    CHECK_PATTERN(dst2, nb, s2);
    uint64_t sum = 0;
    for (gex_Rank_t r = 0; r < w->n; r++) sum += contrib(r, 0, d);
    CHECK(all == sum);
  }
  free(src);
  free(dst);
  free(dst2);
}

/* ---- C: big payloads ------------------------------------------------------------ */
/* Commutative user op on 20000-byte elements (more than one AM fragment):
 * byte-wise sum. */
#define BIG_DT 20000
static void bigsum(const void *a1, void *a2, size_t count, const void *cdata) {
  CHECK(cdata == (const void *)&bigsum);
  const unsigned char *a = a1;
  unsigned char *b = a2;
  for (size_t i = 0; i < count * BIG_DT; i++) b[i] = (unsigned char)(a[i] + b[i]);
}

static void section_big(struct team *w) {
  size_t nb = test_reduced() ? (300 << 10) : (1 << 20);
  unsigned char *src = malloc(nb), *dst = malloc(nb);
  CHECK(src && dst);
  for (gex_Rank_t root = 0; root < w->n; root += (w->n > 2 ? w->n - 1 : 1)) {
    uint64_t seed = test_seed(root, nb, w->id, 3);
    if (w->me == root) test_fill(src, nb, seed);
    memset(dst, 0, nb);
    gex_Event_Wait(gex_Coll_BroadcastNB(w->tm, root, dst, src, nb, 0));
    CHECK_PATTERN(dst, nb, seed);
  }
  /* Between half the rendezvous threshold and the threshold (64 and 128 KiB
   * by default): by rendezvous in a team of two, in fragments otherwise. */
  for (size_t mb = (96 << 10) + 1, r = 0; r < 2 && r < w->n; r++) {
    gex_Rank_t root = (gex_Rank_t)r * (w->n - 1);
    uint64_t seed = test_seed(root, mb, w->id, 4);
    if (w->me == root) test_fill(src, mb, seed);
    memset(dst, 0, nb);
    gex_Event_Wait(gex_Coll_BroadcastNB(w->tm, root, dst, src, mb, 0));
    CHECK_PATTERN(dst, mb, seed);
    for (size_t i = mb; i < nb; i++) CHECK(dst[i] == 0);
  }
  /* DBL ADD of many elements (exact: small integers). */
  size_t cnt = test_reduced() ? 30000 : 100000;
  double *ds = malloc(cnt * 8), *dd = malloc(cnt * 8);
  int64_t *is = malloc(cnt * 8), *id = malloc(cnt * 8);
  CHECK(ds && dd && is && id);
  for (size_t i = 0; i < cnt; i++) {
    ds[i] = (double)(contrib(w->me, i, 7) & 0xfff);
    is[i] = (int64_t)contrib(w->me, i, 8) - 0x800000;
    id[i] = 42;
  }
  gex_Event_t ev[2];
  ev[0] = gex_Coll_ReduceToAllNB(w->tm, dd, ds, GEX_DT_DBL, 8, cnt, GEX_OP_ADD, NULL, NULL, 0);
  ev[1] = gex_Coll_ReduceToOneNB(w->tm, w->n / 2, id, is, GEX_DT_I64, 8, cnt, GEX_OP_ADD, NULL,
                                 NULL, 0);
  gex_Event_WaitAll(ev, 2, 0);
  for (size_t i = 0; i < cnt; i++) {
    double s = 0;
    int64_t si = 0;
    for (gex_Rank_t r = 0; r < w->n; r++) {
      s += (double)(contrib(r, i, 7) & 0xfff);
      si += (int64_t)contrib(r, i, 8) - 0x800000;
    }
    CHECKF(dd[i] == s, "DBL elem %zu: %g want %g", i, dd[i], s);
    CHECK(w->me == w->n / 2 ? id[i] == si : id[i] == 42);
  }
  /* User elements larger than one fragment. */
  size_t ucnt = 5;
  unsigned char *us = malloc(ucnt * BIG_DT), *ud = malloc(ucnt * BIG_DT);
  CHECK(us && ud);
  for (size_t i = 0; i < ucnt * BIG_DT; i++) us[i] = (unsigned char)(i * 7 + w->me);
  for (int all = 0; all < 2; all++) {
    gex_Rank_t root = w->n - 1;
    memset(ud, 0xaa, ucnt * BIG_DT);
    if (all)
      gex_Event_Wait(gex_Coll_ReduceToAllNB(w->tm, ud, us, GEX_DT_USER, BIG_DT, ucnt, GEX_OP_USER,
                                            bigsum, (void *)&bigsum, 0));
    else
      gex_Event_Wait(gex_Coll_ReduceToOneNB(w->tm, root, ud, us, GEX_DT_USER, BIG_DT, ucnt,
                                            GEX_OP_USER, bigsum, (void *)&bigsum, 0));
    if (all || w->me == root) {
      for (size_t i = 0; i < ucnt * BIG_DT; i++)
        CHECKF(ud[i] == (unsigned char)(w->n * (i * 7) + (size_t)w->n * (w->n - 1) / 2),
               "big user elem byte %zu", i);
    } else {
      CHECK_BYTES(ud, ucnt * BIG_DT, 0xaa);
    }
  }
  free(us);
  free(ud);
  free(ds);
  free(dd);
  free(is);
  free(id);
  free(src);
  free(dst);
}

/* ---- D: user operations at every root ------------------------------------------------ */
typedef struct { int64_t m[4]; } mat_t;
static void matmul(const void *a1, void *a2, size_t count, const void *cdata) {
  (void)cdata;
  const mat_t *a = a1;
  mat_t *b = a2;
  for (size_t i = 0; i < count; i++) {
    mat_t r;
    r.m[0] = a[i].m[0] * b[i].m[0] + a[i].m[1] * b[i].m[2];
    r.m[1] = a[i].m[0] * b[i].m[1] + a[i].m[1] * b[i].m[3];
    r.m[2] = a[i].m[2] * b[i].m[0] + a[i].m[3] * b[i].m[2];
    r.m[3] = a[i].m[2] * b[i].m[1] + a[i].m[3] * b[i].m[3];
    b[i] = r;
  }
}
static mat_t mat_of(gex_Rank_t r, size_t i) {
  mat_t x = {{1, (int64_t)(r + 1 + i % 2), (int64_t)(i % 3), 1 + (int64_t)(r % 2)}};
  return x;
}
static void xorsum(const void *a1, void *a2, size_t count, const void *cdata) {
  (void)cdata;
  const uint32_t *a = a1;
  uint32_t *b = a2;
  for (size_t i = 0; i < count; i++) b[i] = (a[i] ^ b[i]) + 0; /* commutative */
}

static void section_userops(struct team *w) {
  size_t cnt = 1500; /* 48 KB: several fragments */
  mat_t *s = malloc(cnt * sizeof *s), *d = malloc(cnt * sizeof *d), *ref = malloc(cnt * sizeof *ref);
  CHECK(s && d && ref);
  for (size_t i = 0; i < cnt; i++) {
    s[i] = mat_of(w->me, i);
    ref[i] = mat_of(w->n - 1, i);
    for (gex_Rank_t r = w->n - 1; r-- > 0;) {
      mat_t a = mat_of(r, i);
      matmul(&a, &ref[i], 1, NULL);
    }
  }
  for (gex_Rank_t root = 0; root < w->n; root++) {
    memset(d, 0x5a, cnt * sizeof *d);
    gex_Event_Wait(gex_Coll_ReduceToOneNB(w->tm, root, d, s, GEX_DT_USER, sizeof(mat_t), cnt,
                                          GEX_OP_USER_NC, matmul, NULL, 0));
    if (w->me == root)
      for (size_t i = 0; i < cnt; i++)
        CHECKF(!memcmp(&d[i], &ref[i], sizeof(mat_t)), "USER_NC root %u elem %zu", root, i);
    else
      CHECK_BYTES(d, cnt * sizeof *d, 0x5a);
    uint32_t xs[5], xd[5] = {0}, want[5] = {0};
    for (int i = 0; i < 5; i++) {
      xs[i] = (uint32_t)contrib(w->me, (size_t)i, root);
      for (gex_Rank_t r = 0; r < w->n; r++) want[i] ^= (uint32_t)contrib(r, (size_t)i, root);
    }
    gex_Event_Wait(gex_Coll_ReduceToOneNB(w->tm, root, xd, xs, GEX_DT_U32, 4, 5, GEX_OP_USER,
                                          xorsum, NULL, 0));
    if (w->me == root) CHECK(!memcmp(xd, want, sizeof want));
  }
  memset(d, 0, cnt * sizeof *d);
  gex_Event_Wait(gex_Coll_ReduceToAllNB(w->tm, d, s, GEX_DT_USER, sizeof(mat_t), cnt,
                                        GEX_OP_USER_NC, matmul, NULL, 0));
  for (size_t i = 0; i < cnt; i++) CHECKF(!memcmp(&d[i], &ref[i], sizeof(mat_t)), "elem %zu", i);
  free(s);
  free(d);
  free(ref);
}

/* ---- E: singleton teams ------------------------------------------------------------ */
static void section_single(gex_TM_t single) {
  CHECK(gex_TM_QuerySize(single) == 1 && gex_TM_QueryRank(single) == 0);
  unsigned char src[40000], dst[40000];
  test_fill(src, sizeof src, test_seed(T.rank, 99, 0, 0));
  gex_Event_t ev[4];
  ev[0] = gex_Coll_BarrierNB(single, 0);
  ev[1] = gex_Coll_BroadcastNB(single, 0, dst, src, sizeof src, 0);
  uint64_t x[3] = {1, 2, T.rank}, y[3] = {0}, z[3] = {0};
  ev[2] = gex_Coll_ReduceToAllNB(single, y, x, GEX_DT_U64, 8, 3, GEX_OP_ADD, NULL, NULL, 0);
  ev[3] = gex_Coll_ReduceToOneNB(single, 0, z, x, GEX_DT_U64, 8, 3, GEX_OP_USER_NC, xorsum, NULL,
                                 0);
  gex_Event_WaitAll(ev, 4, 0);
  CHECK_PATTERN(dst, sizeof dst, test_seed(T.rank, 99, 0, 0));
  CHECK(!memcmp(y, x, sizeof x) && !memcmp(z, x, sizeof x));
  /* A split of a singleton, and a Create listing only myself. */
  gex_TM_t sub, self;
  gex_TM_Split(&sub, single, 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  CHECK(gex_TM_QuerySize(sub) == 1 && gex_TM_TranslateRankToJobrank(sub, 0) == T.rank);
  gex_Event_Wait(gex_Coll_BarrierNB(sub, 0));
  gex_EP_Location_t me = {T.rank, 0};
  gex_TM_Create(&self, 1, T.tm, &me, 1, NULL, 0,
                GEX_FLAG_TM_NO_SCRATCH | GEX_FLAG_RANK_IS_JOBRANK);
  CHECK(gex_TM_QuerySize(self) == 1 && gex_TM_TranslateRankToJobrank(self, 0) == T.rank);
  gex_Event_Wait(gex_Coll_BroadcastNB(self, 0, dst, src, 100, 0));
  gex_TM_Destroy(sub, NULL, 0);
  gex_TM_Destroy(self, NULL, 0);
}

/* ---- F: team construction churn -------------------------------------------------- */
static void section_churn(gex_TM_t par) {
  long iters = test_iters(80, 10); /* more than the 64 team slots */
  for (long i = 0; i < iters; i++) {
    gex_TM_t t;
    gex_Rank_t pn = gex_TM_QuerySize(par), pr = gex_TM_QueryRank(par);
    int color = (int)(pr % 2 == 0 || i % 3 == 0);
    gex_TM_Split(&t, par, color, (int)(i % 2 ? pr : pn - pr), NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_Rank_t n = gex_TM_QuerySize(t), me = gex_TM_QueryRank(t);
    /* Right away: a reduction and a broadcast on the new team. */
    uint64_t x = gex_TM_TranslateRankToJobrank(t, me), sum = 0, want = 0, b = me == 0 ? 7 + (uint64_t)i : 0;
    gex_Event_t ev[2];
    ev[0] = gex_Coll_ReduceToAllNB(t, &sum, &x, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    ev[1] = gex_Coll_BroadcastNB(t, 0, &b, &b, 8, 0);
    gex_Event_WaitAll(ev, 2, 0);
    for (gex_Rank_t r = 0; r < n; r++) want += gex_TM_TranslateRankToJobrank(t, r);
    CHECK(sum == want && b == 7 + (uint64_t)i);
    gex_TM_Destroy(t, NULL, 0);
  }
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_COLLAM", 1 << 16, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size;
  gex_TM_t par, rev, single, trio = GEX_TM_INVALID;
  gex_TM_Split(&par, T.tm, (int)(me % 2), (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  gex_TM_Split(&rev, T.tm, 0, -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  gex_TM_Split(&single, T.tm, (int)me, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  {
    gex_Rank_t tn = n < 3 ? n : 3;
    gex_EP_Location_t args[3];
    for (gex_Rank_t i = 0; i < tn; i++) {
      args[i].gex_rank = tn - 1 - i;
      args[i].gex_ep_index = 0;
    }
    if (me < tn)
      gex_TM_Create(&trio, 1, T.tm, args, tn, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    else
      gex_TM_Create(NULL, 0, T.tm, NULL, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    CHECK((me < tn) == (trio != GEX_TM_INVALID));
  }
  struct team tt[NT_MAX];
  int nt = 0;
  tt[nt++] = mk(T.tm, 1);
  tt[nt++] = mk(par, 2 + me % 2);
  tt[nt++] = mk(rev, 4);
  tt[nt++] = mk(single, 5 + (uint64_t)me * 8);
  if (trio != GEX_TM_INVALID) tt[nt++] = mk(trio, 6);

  section_inflight(tt, nt);
  test_barrier();
  section_early(&tt[0]);
  section_early(&tt[2]);
  test_barrier();
  section_big(&tt[0]);
  section_big(&tt[1]);
  section_userops(&tt[0]);
  section_userops(&tt[2]);
  section_single(single);
  test_barrier();
  section_churn(par);
  section_churn(T.tm);

  gex_TM_Destroy(par, NULL, 0);
  gex_TM_Destroy(rev, NULL, 0);
  gex_TM_Destroy(single, NULL, 0);
  if (trio != GEX_TM_INVALID) gex_TM_Destroy(trio, NULL, 0);
  check_same_node_ams();
  check_rdv_frags();
  test_finish();
}

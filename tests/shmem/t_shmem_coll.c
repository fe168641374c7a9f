/* t_shmem_coll.c -- the collectives: on the world team, on split teams
 * (strided, 2-D, the shared team), and the deprecated active-set forms
 * with pSync; every element of every result is checked. */
#include "shmem_test.h"

#include <complex.h>
#include <string.h>

#define NE 37
static long pSync[SHMEM_BCAST_SYNC_SIZE];
static long pSync2[SHMEM_REDUCE_SYNC_SIZE];
static long pWrk[NE + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long s_src[NE], s_dst[NE * 64];

/* The team's members as world PEs, checked against translate_pe. */
static void check_team(shmem_team_t team, int n_expected, int (*world_of)(int, int), int arg) {
  CHECK(shmem_team_n_pes(team) == n_expected, "team size %d, expected %d",
        shmem_team_n_pes(team), n_expected);
  for (int i = 0; i < n_expected; i++)
    CHECK(shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD) == world_of(i, arg),
          "team PE %d is world %d", i, shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD));
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, shmem_my_pe(), team) == shmem_team_my_pe(team),
        "translate back");
}
static int even_world(int i, int arg) { (void)arg; return 2 * i; }

/* Symmetric buffers for run_team, allocated once by every PE (shmem_malloc
 * is collective over the world, and a team's members call run_team alone). */
static struct {
  long *src, *dst, *a2a, *a2b, *s3, *d2, *lsrc, *ldst;
  short *ss, *sd;
  unsigned char *uc, *ud;
  int *xi, *xo;
  double *dd, *de;
  long double *qd, *qe;
} B;
static void pool(int n) {
  size_t w = (size_t)n;
  B.src = shmem_malloc(NE * sizeof(long) * 2);
  B.dst = shmem_malloc(NE * sizeof(long) * w * 2);
  B.a2a = shmem_malloc(sizeof(long) * 3 * w);
  B.a2b = shmem_malloc(sizeof(long) * 3 * w);
  B.s3 = shmem_malloc(sizeof(long) * 3 * w);
  B.d2 = shmem_malloc(sizeof(long) * 2 * w);
  B.lsrc = shmem_malloc(NE * sizeof(long));
  B.ldst = shmem_malloc(NE * sizeof(long));
  B.ss = shmem_malloc(4 * sizeof(short));
  B.sd = shmem_malloc(4 * sizeof(short));
  B.uc = shmem_malloc(2);
  B.ud = shmem_malloc(2);
  B.xi = shmem_malloc(sizeof(int));
  B.xo = shmem_malloc(sizeof(int));
  B.dd = shmem_malloc(sizeof(double));
  B.de = shmem_malloc(sizeof(double));
  B.qd = shmem_malloc(sizeof(long double));
  B.qe = shmem_malloc(sizeof(long double));
  CHECK(B.src && B.dst && B.qe, "pool");
}

/* The collectives on 'team'. */
static void run_team(shmem_team_t team, const char *what) {
  int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
  long *src = B.src, *dst = B.dst;
  for (int round = 0; round < 2; round++) {
    /* broadcast from each root */
    for (int root = 0; root < n; root++) {
      for (int i = 0; i < NE; i++) src[i] = pat(me, i, round);
      memset(dst, 0, NE * sizeof(long));
      CHECK(shmem_long_broadcast(team, dst, src, NE, root) == 0, "broadcast");
      for (int i = 0; i < NE; i++)
        CHECK(dst[i] == pat(root, i, round), "%s broadcast root %d [%d] = %ld", what, root, i,
              dst[i]);
    }
    /* fcollect and collect (PE j gives j%3+1 elements) */
    for (int i = 0; i < NE; i++) src[i] = pat(me, i, round);
    CHECK(shmem_long_fcollect(team, dst, src, NE) == 0, "fcollect");
    for (int j = 0; j < n; j++)
      for (int i = 0; i < NE; i++)
        CHECK(dst[j * NE + i] == pat(j, i, round), "%s fcollect [%d][%d]", what, j, i);
    shmem_team_sync(team);
    CHECK(shmem_long_collect(team, dst, src, (size_t)(me % 3 + 1)) == 0, "collect");
    int k = 0;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < j % 3 + 1; i++, k++)
        CHECK(dst[k] == pat(j, i, round), "%s collect PE %d elem %d", what, j, i);
    /* alltoall: block j of PE me is pat(me, j), lands as block me at j */
    long *a2a = B.a2a, *a2b = B.a2b;
    for (int j = 0; j < n; j++)
      for (int e = 0; e < 3; e++) a2a[j * 3 + e] = pat(me, j * 3 + e, round);
    CHECK(shmem_long_alltoall(team, a2b, a2a, 3) == 0, "alltoall");
    for (int j = 0; j < n; j++)
      for (int e = 0; e < 3; e++)
        CHECK(a2b[j * 3 + e] == pat(j, me * 3 + e, round), "%s alltoall from %d", what, j);
    /* alltoalls with strides 2 (dest) and 3 (source), 1 element each */
    long *s3 = B.s3, *d2 = B.d2;
    memset(s3, 0, sizeof(long) * 3 * (size_t)n);
    memset(d2, 0, sizeof(long) * 2 * (size_t)n);
    shmem_team_sync(team);
    for (int j = 0; j < n; j++) s3[3 * j] = pat(me, j, round + 5);
    CHECK(shmem_long_alltoalls(team, d2, s3, 2, 3, 1) == 0, "alltoalls");
    for (int j = 0; j < n; j++)
      CHECK(d2[2 * j] == pat(j, me, round + 5), "%s alltoalls from %d: %ld", what, j, d2[2 * j]);
    /* reductions: sum, prod, min, max, and, or, xor, on several types */
    long ls[NE];
    for (int i = 0; i < NE; i++) ls[i] = me + i;
    long *lsrc = B.lsrc, *ldst = B.ldst;
    memcpy(lsrc, ls, sizeof ls);
    CHECK(shmem_long_sum_reduce(team, ldst, lsrc, NE) == 0, "sum_reduce");
    for (int i = 0; i < NE; i++)
      CHECK(ldst[i] == (long)n * (n - 1) / 2 + (long)n * i, "%s sum [%d]=%ld", what, i, ldst[i]);
    CHECK(shmem_long_max_reduce(team, ldst, lsrc, NE) == 0, "max");
    for (int i = 0; i < NE; i++) CHECK(ldst[i] == n - 1 + i, "%s max", what);
    CHECK(shmem_long_min_reduce(team, lsrc, lsrc, NE) == 0, "min in place");
    for (int i = 0; i < NE; i++) CHECK(lsrc[i] == i, "%s min in place [%d]=%ld", what, i, lsrc[i]);
    short *ss = B.ss, *sd = B.sd;
    for (int i = 0; i < 4; i++) ss[i] = (short)(me + 1);
    CHECK(shmem_short_prod_reduce(team, sd, ss, 4) == 0, "short prod");
    short fact = 1;
    for (int j = 1; j <= n; j++) fact = (short)(fact * j);
    CHECK(sd[3] == fact, "%s short prod %d != %d", what, sd[3], fact);
    unsigned char *uc = B.uc, *ud = B.ud;
    uc[0] = (unsigned char)(1u << (me % 8));
    uc[1] = (unsigned char)(0xff & ~(1u << (me % 8)));
    CHECK(shmem_uchar_or_reduce(team, ud, uc, 1) == 0 && shmem_uchar_and_reduce(team, ud + 1, uc + 1, 1) == 0, "uchar");
    unsigned char all = 0;
    for (int j = 0; j < n; j++) all = (unsigned char)(all | (1u << (j % 8)));
    CHECK(ud[0] == all && ud[1] == (unsigned char)~all, "%s uchar or/and %x %x", what, ud[0], ud[1]);
    int *xi = B.xi, *xo = B.xo;
    *xi = 1 << me;
    CHECK(shmem_int32_xor_reduce(team, xo, xi, 1) == 0, "xor");
    CHECK(*xo == (1 << n) - 1, "%s xor %x", what, *xo);
    double *dd = B.dd, *de = B.de;
    long double *qd = B.qd, *qe = B.qe;
    *dd = 0.5 * me;
    *qd = 0.25L * me;
    CHECK(shmem_double_sum_reduce(team, de, dd, 1) == 0, "double sum");
    CHECK(shmem_longdouble_max_reduce(team, qe, qd, 1) == 0, "long double max");
    CHECK(*de == 0.25 * n * (n - 1) && *qe == 0.25L * (n - 1), "%s double %g", what, *de);
    shmem_team_sync(team); /* no member still reads this round's buffers */
  }
}

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) pSync[i] = SHMEM_SYNC_VALUE;
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) pSync2[i] = SHMEM_SYNC_VALUE;
  pool(n);
  shmem_barrier_all();

  run_team(SHMEM_TEAM_WORLD, "world");
  run_team(SHMEM_TEAM_SHARED, "shared");

  /* the even PEs, a team of ceil(n/2) */
  long *v = shmem_malloc(sizeof(long));
  shmem_team_t even;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even) == 0,
        "split_strided");
  CHECK((even != SHMEM_TEAM_INVALID) == (me % 2 == 0), "membership of the even team");
  if (even != SHMEM_TEAM_INVALID) {
    check_team(even, (n + 1) / 2, even_world, 0);
    run_team(even, "even");
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(even, 0, &ctx) == 0, "team ctx");
    *v = -1;
    shmem_team_sync(even);
    int tn = shmem_team_n_pes(even), tme = shmem_team_my_pe(even);
    shmem_ctx_long_p(ctx, v, 100 + me, (tme + 1) % tn); /* team PE numbering */
    shmem_ctx_quiet(ctx);
    shmem_team_sync(even);
    int prev_world = shmem_team_translate_pe(even, (tme + tn - 1) % tn, SHMEM_TEAM_WORLD);
    CHECK(*v == 100 + prev_world, "ctx put by team PE: %ld", *v);
    shmem_team_t got;
    CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == even, "ctx_get_team");
    shmem_ctx_destroy(ctx);
  }
  shmem_team_destroy(even);
  shmem_free(v);

  /* every PE its own triplet (start = the PE, size 1), as SOS's
   * self_collectives splits, though the specification asks one triplet of
   * all: a team of one each, whose reductions give the PE's own values */
  shmem_team_t self;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, me, 1, 1, NULL, 0, &self) == 0 &&
            self != SHMEM_TEAM_INVALID, "split to a team of this PE alone");
  CHECK(shmem_team_n_pes(self) == 1 && shmem_team_my_pe(self) == 0, "own team: %d PEs, PE %d",
        shmem_team_n_pes(self), shmem_team_my_pe(self));
  static int own_in, own_out;
  static unsigned own_uin, own_uout;
  own_in = me + 5, own_out = -1, own_uin = (unsigned)me, own_uout = ~0u;
  CHECK(shmem_int_sum_reduce(self, &own_out, &own_in, 1) == 0 && own_out == me + 5,
        "sum over its own team: %d", own_out);
  CHECK(shmem_uint_xor_reduce(self, &own_uout, &own_uin, 1) == 0 && own_uout == (unsigned)me,
        "xor over its own team: %u", own_uout);
  shmem_team_destroy(self);

  /* the C11 shmem_sync(team), and sum/prod on the complex types */
  CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(team)");
  static double _Complex zc, zs;
  zc = (double)me + 1.0 * _Complex_I;
  CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, &zs, &zc, 1) == 0, "complexd sum");
  CHECK(creal(zs) == (double)n * (n - 1) / 2 && cimag(zs) == (double)n, "complexd sum value");
  static float _Complex fc, fp;
  fc = 1.0f * _Complex_I;
  CHECK(shmem_prod_reduce(SHMEM_TEAM_WORLD, &fp, &fc, 1) == 0, "complexf prod (generic)");
  {
    float _Complex want = 1.0f;
    for (int j = 0; j < n; j++) want *= 1.0f * _Complex_I;
    CHECK(crealf(fp) == crealf(want) && cimagf(fp) == cimagf(want), "complexf prod value");
  }
  CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, B.src, me) == B.src, "shmem_team_ptr to this PE");
  shmem_pcontrol(1);

  /* more teams than a PE may hold: a split returns -1 on every PE, the
   * job goes on, and once they are destroyed a split works again */
  shmem_team_t many[100];
  int made = 0, rc = 0;
  while (made < 100 && (rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0,
                                                      &many[made])) == 0)
    made++;
  CHECK(rc != 0 && made >= 32 && made < 100, "team limit: %d teams made, last rc %d", made, rc);
  CHECK(many[made] == SHMEM_TEAM_INVALID, "a failed split gives SHMEM_TEAM_INVALID");
  for (int i = 0; i < made; i++) shmem_team_destroy(many[i]);
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &many[0]) == 0 &&
        shmem_team_n_pes(many[0]) == n, "a split after the destroys");
  shmem_team_destroy(many[0]);

  /* a 2-D grid of rows of 2 */
  shmem_team_t xt, yt;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt) == 0, "split_2d");
  CHECK(shmem_team_my_pe(xt) == me % 2 && shmem_team_my_pe(yt) == me / 2, "2-D positions");
  int xs = (me / 2 == (n - 1) / 2 && n % 2) ? 1 : 2;
  CHECK(shmem_team_n_pes(xt) == xs, "row size %d", shmem_team_n_pes(xt));
  run_team(yt, "column");
  shmem_team_destroy(xt);
  shmem_team_destroy(yt);

  /* the active-set forms: the odd PEs (start 1, stride 2), or all */
  int start = n > 1 ? 1 : 0, lg = n > 1 ? 1 : 0, size = n > 1 ? n / 2 : 1;
  int in_set = me >= start && (me - start) % (1 << lg) == 0 && (me - start) / (1 << lg) < size;
  for (int round = 0; round < 3; round++) {
    if (in_set) {
      int idx = (me - start) >> lg;
      for (int i = 0; i < NE; i++) s_src[i] = pat(me, i, round);
      shmem_barrier(start, lg, size, pSync);
      shmem_broadcast64(s_dst, s_src, NE, 0, start, lg, size, pSync);
      if (idx != 0)
        for (int i = 0; i < NE; i++) CHECK(s_dst[i] == pat(start, i, round), "broadcast64");
      shmem_fcollect64(s_dst, s_src, NE, start, lg, size, pSync);
      for (int j = 0; j < size; j++)
        for (int i = 0; i < NE; i++)
          CHECK(s_dst[j * NE + i] == pat(start + (j << lg), i, round), "fcollect64 %d %d", j, i);
      shmem_collect64(s_dst, s_src, (size_t)(idx + 1), start, lg, size, pSync);
      int k = 0;
      for (int j = 0; j < size; j++)
        for (int i = 0; i <= j; i++, k++)
          CHECK(s_dst[k] == pat(start + (j << lg), i, round), "collect64 %d %d", j, i);
      shmem_long_sum_to_all(s_dst, s_src, NE, start, lg, size, pWrk, pSync2);
      for (int i = 0; i < NE; i++) {
        long want = 0;
        for (int j = 0; j < size; j++) want += pat(start + (j << lg), i, round);
        CHECK(s_dst[i] == want, "sum_to_all [%d] %ld != %ld", i, s_dst[i], want);
      }
      shmem_long_max_to_all(s_src, s_src, NE, start, lg, size, pWrk, pSync2);
      CHECK(s_src[0] == pat(start + ((size - 1) << lg), 0, round), "max_to_all in place");
      for (int j = 0; j < size; j++) s_src[j] = pat(me, j, round);
      shmem_alltoall64(s_dst, s_src, 1, start, lg, size, pSync);
      for (int j = 0; j < size; j++)
        CHECK(s_dst[j] == pat(start + (j << lg), idx, round), "alltoall64 from %d", j);
      for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        CHECK(pSync[i] == SHMEM_SYNC_VALUE, "pSync[%d] = %ld after the calls", i, pSync[i]);
    }
    shmem_barrier_all();
  }
  pass("t_shmem_coll");
  shmem_finalize();
  return 0;
}

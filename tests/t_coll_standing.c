/* t_coll_standing.c -- ReduceToAll by exchange into standing landing
 * buffers (src/coll/coll_am.c, "Standing landing buffers"): at each doubling
 * step the partner writes the next collective's vector into a buffer
 * granted during this one, without an RTR.  The sequences here change, from
 * one ReduceToAll to the next, what the grant may be used for:
 *   - sizes that grow past the granted buffer, shrink again, go above
 *     GEX_COLL_RDV_STANDING and below the rendezvous threshold;
 *   - other collectives (broadcast, barrier, ReduceToOne) in between, so
 *     that a grant is left unused;
 *   - in place and not; U64 ADD (operands commute), DBL ADD, and a
 *     non-commutative GEX_OP_USER_NC whose result shows any fold out of
 *     rank order;
 *   - the whole job, its halves (3 members of 7: folded in and out) and a
 *     team split and destroyed every round while it holds grants;
 *   - several ReduceToAlls in flight at once, completed together.
 * Every result is checked against a serial computation.  Run over the
 * network (GEX_SUPERNODE_MAXSIZE=1); GEX_TEST_STANDING=+ fails the run if
 * no step landed in a standing buffer (t_coll_samenode.h). */
#include "test_util.h"
#include "t_coll_samenode.h"

#include <gasnet_coll.h>

/* x -> a*x + b, composed left after right: associative, not commutative. */
typedef struct {
  uint64_t a, b;
} affine_t;

static void compose(const void *left, void *out, size_t n, const void *cdata) {
  (void)cdata;
  const affine_t *l = left;
  affine_t *o = out;
  for (size_t i = 0; i < n; i++) {
    affine_t r = {l[i].a * o[i].a, l[i].a * o[i].b + l[i].b};
    o[i] = r;
  }
}

static uint64_t contrib(gex_Rank_t jobrank, size_t i, uint64_t salt) {
  return test_seed(jobrank, i, salt, 11) & 0xffffff;
}

struct team {
  gex_TM_t tm;
  gex_Rank_t n, me;
};

static gex_Rank_t jobrank_of(const struct team *t, gex_Rank_t r) {
  return gex_TM_TranslateRankToJobrank(t->tm, r);
}

/* Bytes of the round-th ReduceToAll on a team (the sequence repeats). */
static size_t size_of(long round) {
  static const size_t sz[] = {32768, 65536, 49152, 262144, 8, 131072, 300000,
                              65536, 24,    196608, 40960, 262144};
  return sz[round % (long)(sizeof sz / sizeof sz[0])];
}

/* One U64 ADD ReduceToAll of nbytes (in place when asked), checked. */
static void sum_u64(const struct team *t, size_t nbytes, uint64_t salt, int in_place,
                    uint64_t *src, uint64_t *dst) {
  size_t cnt = nbytes / 8 ? nbytes / 8 : 1;
  for (size_t i = 0; i < cnt; i++) src[i] = contrib(T.rank, i, salt);
  uint64_t *d = in_place ? src : dst;
  if (!in_place) memset(dst, 0x5a, cnt * 8);
  gex_Event_Wait(gex_Coll_ReduceToAllNB(t->tm, d, src, GEX_DT_U64, 8, cnt, GEX_OP_ADD, NULL,
                                        NULL, 0));
  for (size_t i = 0; i < cnt; i++) {
    uint64_t want = 0;
    for (gex_Rank_t r = 0; r < t->n; r++) want += contrib(jobrank_of(t, r), i, salt);
    CHECKF(d[i] == want, "U64 %zu bytes, element %zu of %zu: %" PRIu64 " != %" PRIu64, nbytes,
           i, cnt, d[i], want);
  }
}

static void sum_dbl(const struct team *t, size_t nbytes, uint64_t salt, double *src,
                    double *dst) {
  size_t cnt = nbytes / 8 ? nbytes / 8 : 1;
  for (size_t i = 0; i < cnt; i++) src[i] = (double)contrib(T.rank, i, salt);
  gex_Event_Wait(gex_Coll_ReduceToAllNB(t->tm, dst, src, GEX_DT_DBL, 8, cnt, GEX_OP_ADD, NULL,
                                        NULL, 0));
  for (size_t i = 0; i < cnt; i++) {
    double want = 0; /* integers below 2^53: exact in any order */
    for (gex_Rank_t r = 0; r < t->n; r++) want += (double)contrib(jobrank_of(t, r), i, salt);
    CHECKF(dst[i] == want, "DBL %zu bytes, element %zu: %g != %g", nbytes, i, dst[i], want);
  }
}

static void chain(const struct team *t, size_t nbytes, uint64_t salt, affine_t *src,
                  affine_t *dst) {
  size_t cnt = nbytes / sizeof(affine_t) ? nbytes / sizeof(affine_t) : 1;
  for (size_t i = 0; i < cnt; i++)
    src[i] = (affine_t){contrib(T.rank, i, salt) | 1, contrib(T.rank, i, salt + 1)};
  gex_Event_Wait(gex_Coll_ReduceToAllNB(t->tm, dst, src, GEX_DT_USER, sizeof(affine_t), cnt,
                                        GEX_OP_USER_NC, compose, NULL, 0));
  for (size_t i = 0; i < cnt; i++) {
    affine_t want = {1, 0};
    for (gex_Rank_t r = t->n; r-- > 0;) { /* rank 0 leftmost */
      gex_Rank_t j = jobrank_of(t, r);
      affine_t e = {contrib(j, i, salt) | 1, contrib(j, i, salt + 1)};
      compose(&e, &want, 1, NULL);
    }
    CHECKF(dst[i].a == want.a && dst[i].b == want.b, "USER_NC %zu bytes, element %zu", nbytes,
           i);
  }
}

/* Something other than a ReduceToAll by exchange between two of them. */
static void interlude(const struct team *t, long round, unsigned char *buf, size_t nbytes) {
  switch (round % 4) {
    case 0: { /* broadcast from a rotating root */
      gex_Rank_t root = (gex_Rank_t)(round % t->n);
      for (size_t i = 0; i < nbytes; i++) buf[i] = (unsigned char)(root + i * 7 + (size_t)round);
      unsigned char *d = buf + nbytes;
      gex_Event_Wait(gex_Coll_BroadcastNB(t->tm, root, d, buf, nbytes, 0));
      for (size_t i = 0; i < nbytes; i++)
        CHECKF(d[i] == (unsigned char)(root + i * 7 + (size_t)round), "broadcast byte %zu", i);
      break;
    }
    case 1: gex_Event_Wait(gex_Coll_BarrierNB(t->tm, 0)); break;
    case 2: { /* ReduceToOne: a tree, not the exchange */
      uint64_t x = contrib(T.rank, 0, (uint64_t)round), y = 0, want = 0;
      gex_Rank_t root = (gex_Rank_t)((round / 4) % t->n);
      gex_Event_Wait(gex_Coll_ReduceToOneNB(t->tm, root, &y, &x, GEX_DT_U64, 8, 1, GEX_OP_ADD,
                                            NULL, NULL, 0));
      for (gex_Rank_t r = 0; r < t->n; r++) want += contrib(jobrank_of(t, r), 0, (uint64_t)round);
      if (t->me == root) CHECKF(y == want, "ReduceToOne at %u", (unsigned)root);
      break;
    }
    default: break; /* two ReduceToAlls back to back */
  }
}

#define MAXB 300000
#define INFLIGHT 4

/* Several ReduceToAlls of different sizes in flight at once. */
static void inflight(const struct team *t, uint64_t salt, uint64_t *bufs) {
  gex_Event_t ev[INFLIGHT];
  size_t cnt[INFLIGHT];
  for (int k = 0; k < INFLIGHT; k++) {
    cnt[k] = size_of(k * 3 + (long)salt) / 8;
    uint64_t *s = bufs + (size_t)k * 2 * (MAXB / 8), *d = s + MAXB / 8;
    for (size_t i = 0; i < cnt[k]; i++) s[i] = contrib(T.rank, i, salt + (uint64_t)k);
    ev[k] = gex_Coll_ReduceToAllNB(t->tm, d, s, GEX_DT_U64, 8, cnt[k], GEX_OP_ADD, NULL, NULL, 0);
  }
  gex_Event_WaitAll(ev, INFLIGHT, 0);
  for (int k = 0; k < INFLIGHT; k++) {
    const uint64_t *d = bufs + (size_t)k * 2 * (MAXB / 8) + MAXB / 8;
    for (size_t i = 0; i < cnt[k]; i++) {
      uint64_t want = 0;
      for (gex_Rank_t r = 0; r < t->n; r++)
        want += contrib(jobrank_of(t, r), i, salt + (uint64_t)k);
      CHECKF(d[i] == want, "in flight %d, element %zu", k, i);
    }
  }
}

static void rounds(const struct team *t, long iters, uint64_t salt, void *a, void *b,
                   uint64_t *many) {
  for (long r = 0; r < iters; r++) {
    size_t nb = size_of(r);
    uint64_t s = salt + (uint64_t)r * 16;
    switch (r % 3) {
      case 0: sum_u64(t, nb, s, (int)(r % 2), a, b); break;
      case 1: sum_dbl(t, nb, s, a, b); break;
      default: chain(t, nb, s, a, b); break;
    }
    sum_u64(t, size_of(r + 1), s + 1, 0, a, b);
    interlude(t, r, a, 4096 + (size_t)r);
    if (r % 5 == 4) inflight(t, s + 2, many);
  }
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_COLL_STANDING", 4096, NULL, 0);
  void *a = malloc(2 * MAXB), *b = malloc(2 * MAXB);
  uint64_t *many = malloc((size_t)INFLIGHT * 2 * MAXB);
  CHECK(a && b && many);
  long iters = test_iters(24, 6);
  struct team all = {T.tm, T.size, T.rank};
  rounds(&all, iters, 1000, a, b, many);

  gex_TM_t half;
  gex_TM_Split(&half, T.tm, (int)(T.rank % 2), (int)T.rank, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  struct team h = {half, gex_TM_QuerySize(half), gex_TM_QueryRank(half)};
  rounds(&h, iters / 2 + 1, 2000, a, b, many);

  /* A team destroyed while it holds grants, and a new one in its slot. */
  for (long k = 0; k < 4; k++) {
    gex_TM_t tmp;
    gex_TM_Split(&tmp, T.tm, 0, (int)((T.rank + (gex_Rank_t)k) % T.size), NULL, 0,
                 GEX_FLAG_TM_NO_SCRATCH);
    struct team x = {tmp, gex_TM_QuerySize(tmp), gex_TM_QueryRank(tmp)};
    sum_u64(&x, 65536, 3000 + (uint64_t)k, 0, a, b);
    sum_u64(&x, 32768, 3100 + (uint64_t)k, (int)(k % 2), a, b);
    gex_TM_Destroy(tmp, NULL, 0);
  }
  rounds(&h, 3, 4000, a, b, many);
  gex_TM_Destroy(half, NULL, 0);
  free(a);
  free(b);
  free(many);
  check_same_node_ams();
  check_rdv_frags();
  test_finish();
}

/* t_coll.c -- gex_Coll_BroadcastNB / ReduceToOneNB / ReduceToAllNB on the
 * primordial team and on subset teams: every built-in type and operation
 * against a serial reference, user operations (USER_NC order checked with
 * a non-commutative operator), sizes spanning several staging rounds,
 * several collectives in flight on one team and on different teams, and
 * src == dst. */
#include "test_util.h"
#include "t_coll_samenode.h"

#include <gasnet_coll.h>

static void wait_ev(gex_Event_t e) { gex_Event_Wait(e); }

/* Value that member r contributes at element i (small, so that sums and
 * products of up to 7 members are exact in float as well). */
static int64_t val(gex_Rank_t r, size_t i, gex_OP_t op) {
  if (op == GEX_OP_MULT) return (int64_t)((r + i) % 3) - 1 + ((i % 5) == 0 ? 2 : 0);
  return (int64_t)((r * 7 + i * 13) % 29) - 9;
}

#define BUILTIN_CASE(T, DT, ISINT)                                                              \
  do {                                                                                          \
    const gex_OP_t ops[7] = {GEX_OP_ADD, GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX,                   \
                             GEX_OP_AND, GEX_OP_OR,   GEX_OP_XOR};                              \
    if (c == 2 && DT != GEX_DT_I32 && DT != GEX_DT_DBL) break; /* big: two types suffice */      \
    for (int o = 0; o < ((ISINT) ? 7 : 4); o++) {                                               \
      gex_OP_t op = ops[o];                                                                     \
      T *src = malloc(cnt * sizeof(T)), *dst = malloc(cnt * sizeof(T)),                         \
        *ref = malloc(cnt * sizeof(T));                                                         \
      for (size_t i = 0; i < cnt; i++) {                                                        \
        src[i] = (T)val(me, i, op);                                                             \
        dst[i] = (T)77;                                                                         \
        T acc = (T)val(members[tn - 1], i, op);                                                 \
        for (gex_Rank_t r = tn - 1; r-- > 0;) {                                                 \
          T a = (T)val(members[r], i, op);                                                      \
          switch (op) {                                                                         \
            case GEX_OP_ADD: acc = (T)(a + acc); break;                                         \
            case GEX_OP_MULT: acc = (T)(a * acc); break;                                        \
            case GEX_OP_MIN: acc = a < acc ? a : acc; break;                                    \
            case GEX_OP_MAX: acc = a > acc ? a : acc; break;                                    \
            default: acc = INTOP(T, op, a, acc); break;                                         \
          }                                                                                     \
        }                                                                                       \
        ref[i] = acc;                                                                           \
      }                                                                                         \
      gex_Rank_t root = (gex_Rank_t)(o % tn);                                                   \
      wait_ev(gex_Coll_ReduceToOneNB(tm, root, dst, src, DT, sizeof(T), cnt, op, NULL, NULL, 0)); \
      for (size_t i = 0; i < cnt; i++)                                                          \
        CHECKF(tr == root ? dst[i] == ref[i] : dst[i] == (T)77, "%s op %d elem %zu", #DT, o, i); \
      wait_ev(gex_Coll_ReduceToAllNB(tm, src, src, DT, sizeof(T), cnt, op, NULL, NULL, 0));     \
      for (size_t i = 0; i < cnt; i++) CHECKF(src[i] == ref[i], "%s op %d elem %zu", #DT, o, i); \
      free(src);                                                                                \
      free(dst);                                                                                \
      free(ref);                                                                                \
    }                                                                                           \
  } while (0)
#define INTOP(T, op, a, b) \
  ((op) == GEX_OP_AND ? (T)((a) & (b)) : (op) == GEX_OP_OR ? (T)((a) | (b)) : (T)((a) ^ (b)))
#define FPOP(T, op, a, b) (b)

/* Non-commutative user op on 8-byte "strings" of rank digits packed as
 * 2x2 integer matrices: product in order. */
typedef struct { int64_t m[4]; } mat_t;
static void matmul(const void *a1, void *a2, size_t count, const void *cdata) {
  CHECK(cdata == (const void *)&matmul);
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
  mat_t x = {{1, (int64_t)(r + 1), (int64_t)(i % 3), 1 + (int64_t)(r % 2)}};
  return x;
}

/* Big user type (dt_sz 1000): element-wise byte sum. */
static void bytesum(const void *a1, void *a2, size_t count, const void *cdata) {
  (void)cdata;
  const unsigned char *a = a1;
  unsigned char *b = a2;
  for (size_t i = 0; i < count * 1000; i++) b[i] = (unsigned char)(a[i] + b[i]);
}

static void run_team(gex_TM_t tm, int full) {
  gex_Rank_t tn = gex_TM_QuerySize(tm), tr = gex_TM_QueryRank(tm);
  gex_Rank_t me = T.rank, members[64];
  for (gex_Rank_t r = 0; r < tn; r++) members[r] = gex_TM_TranslateRankToJobrank(tm, r);
  (void)me;
  const size_t cnts[3] = {1, 37, test_reduced() ? 5000 : 20000}; /* x 8 bytes: several rounds */
  /* Heavy runs (sanitizers, oversubscription) skip the 1-element case. */
  for (int c = test_reduced() ? 1 : 0; c < (full ? 3 : 0); c++) {
    size_t cnt = cnts[c];
    BUILTIN_CASE(int32_t, GEX_DT_I32, 1);
    BUILTIN_CASE(uint32_t, GEX_DT_U32, 1);
    BUILTIN_CASE(int64_t, GEX_DT_I64, 1);
    BUILTIN_CASE(uint64_t, GEX_DT_U64, 1);
#undef INTOP
#define INTOP FPOP
    BUILTIN_CASE(float, GEX_DT_FLT, 0);
    BUILTIN_CASE(double, GEX_DT_DBL, 0);
#undef INTOP
#define INTOP(T, op, a, b) \
  ((op) == GEX_OP_AND ? (T)((a) & (b)) : (op) == GEX_OP_OR ? (T)((a) | (b)) : (T)((a) ^ (b)))
  }

  /* Broadcast: sizes 0, 1, odd, several rounds; every root; src == dst at the root. */
  const size_t sizes[5] = {0, 1, 4097, 32768, 100001};
  unsigned char *buf = malloc(100001), *src = malloc(100001);
  for (int s = 0; s < 5; s++) {
    for (gex_Rank_t root = 0; root < tn; root++) {
      if (test_reduced() && root != 0 && root != tn - 1 && root != (gex_Rank_t)s % tn) continue;
      uint64_t seed = test_seed(s, root, members[0], 1);
      test_fill(src, sizes[s], seed);
      memset(buf, 0xee, 100001);
      int same = (s + root) % 2;
      if (same && tr == root) memcpy(buf, src, sizes[s]);
      wait_ev(gex_Coll_BroadcastNB(tm, root, buf, same && tr == root ? buf : src, sizes[s], 0));
      CHECK_PATTERN(buf, sizes[s], seed);
      CHECK_BYTES(buf + sizes[s], 100001 - sizes[s], 0xee);
    }
  }
  /* Several in flight on one team, completed in reverse order. */
  {
    gex_Event_t ev[6];
    unsigned char b[6][64];
    uint64_t x[3], y[3];
    for (int i = 0; i < 3; i++) {
      if (tr == (gex_Rank_t)i % tn) test_fill(src + 64 * i, 64, test_seed(9, i, members[0], 2));
      ev[2 * i] = gex_Coll_BroadcastNB(tm, (gex_Rank_t)i % tn, b[i], src + 64 * i, 64, 0);
      x[i] = (uint64_t)tr + (uint64_t)i;
      ev[2 * i + 1] =
          gex_Coll_ReduceToAllNB(tm, &y[i], &x[i], GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    }
    CHECK(gex_Event_TestAll(ev, 6, 0) == GASNET_OK || 1);
    for (int i = 6; i-- > 0;) gex_Event_Wait(ev[i]);
    for (int i = 0; i < 3; i++) {
      CHECK_PATTERN(b[i], 64, test_seed(9, i, members[0], 2));
      CHECK(y[i] == (uint64_t)tn * (tn - 1) / 2 + (uint64_t)tn * i);
    }
  }
  /* USER_NC: matrix product in rank order; also multi-round (3000 x 32 B). */
  {
    size_t cnt = 3000;
    mat_t *s = malloc(cnt * sizeof *s), *d = malloc(cnt * sizeof *d);
    for (size_t i = 0; i < cnt; i++) s[i] = mat_of(tr, i);
    wait_ev(gex_Coll_ReduceToAllNB(tm, d, s, GEX_DT_USER, sizeof(mat_t), cnt, GEX_OP_USER_NC,
                                   matmul, (void *)&matmul, 0));
    for (size_t i = 0; i < cnt; i++) {
      mat_t acc = mat_of(tn - 1, i);
      for (gex_Rank_t r = tn - 1; r-- > 0;) {
        mat_t a = mat_of(r, i);
        matmul(&a, &acc, 1, (const void *)&matmul);
      }
      CHECKF(!memcmp(&acc, &d[i], sizeof acc), "USER_NC elem %zu", i);
    }
    wait_ev(gex_Coll_ReduceToOneNB(tm, tn - 1, d, s, GEX_DT_USER, sizeof(mat_t), 1, GEX_OP_USER,
                                   matmul, (void *)&matmul, 0));
    free(s);
    free(d);
  }
  /* GEX_OP_USER with a 1000-byte type, 70 elements (several rounds). */
  {
    size_t cnt = 70;
    unsigned char *s = malloc(cnt * 1000), *d = malloc(cnt * 1000);
    for (size_t i = 0; i < cnt * 1000; i++) s[i] = (unsigned char)(i * 3 + tr);
    wait_ev(gex_Coll_ReduceToOneNB(tm, 0, d, s, GEX_DT_USER, 1000, cnt, GEX_OP_USER, bytesum,
                                   NULL, 0));
    if (tr == 0)
      for (size_t i = 0; i < cnt * 1000; i++)
        CHECK(d[i] == (unsigned char)(tn * (i * 3) + (size_t)tn * (tn - 1) / 2));
    free(s);
    free(d);
  }
  free(buf);
  free(src);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_COLL", 1 << 16, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size;
  run_team(T.tm, 1);
  gex_TM_t par, rev;
  gex_TM_Split(&par, T.tm, (int)(me % 2), (int)me, T.seg_base, 4096, 0);
  gex_TM_Split(&rev, T.tm, 0, -(int)me, T.seg_base + 4096, 4096, 0);
  run_team(par, 1);
  run_team(rev, 0); /* same members as T.tm, reordered: skip the type/op matrix */
  /* Evens then odds: with two ranks per node, each node's members are split
   * in team-rank order, so USER_NC takes the flat AM engine while the other
   * collectives of the same team run hierarchically. */
  gex_TM_t inter;
  gex_TM_Split(&inter, T.tm, 0, (int)((me % 2) * n + me), T.seg_base + 8192, 4096, 0);
  run_team(inter, 0);
  /* Collectives in flight on different teams at once. */
  {
    uint64_t x = me, a = 0, b = 0, c = 0;
    gex_Event_t ev[3];
    ev[0] = gex_Coll_ReduceToAllNB(par, &a, &x, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    ev[1] = gex_Coll_ReduceToAllNB(rev, &b, &x, GEX_DT_U64, 8, 1, GEX_OP_MAX, NULL, NULL, 0);
    ev[2] = gex_Coll_ReduceToAllNB(T.tm, &c, &x, GEX_DT_U64, 8, 1, GEX_OP_MIN, NULL, NULL, 0);
    gex_Event_WaitAll(ev, 3, 0);
    uint64_t s = 0;
    for (gex_Rank_t j = me % 2; j < n; j += 2) s += j;
    CHECK(a == s && b == n - 1 && c == 0);
  }
  gex_TM_Destroy(par, NULL, 0);
  gex_TM_Destroy(rev, NULL, 0);
  gex_TM_Destroy(inter, NULL, 0);
  check_same_node_ams();
  check_rdv_frags();
  test_finish();
}

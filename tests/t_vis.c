/* t_vis.c -- Vector/Indexed/Strided Put and Get (gasnet_vis.h) to every peer
 * including self, in the Blocking, NB and NBI forms, with many shapes.
 *
 * Each rank's segment holds one SLOT per writer.  A shape is two chunk lists
 * in stream order (remote side, local side; for strided, the elements in
 * index order) generated deterministically from (round, initiator, target),
 * so the target can recompute what it should have received.  Every byte of
 * the slot (Put) or of the local buffer (Get) is verified: chunk bytes carry
 * the stream pattern, everything else must still hold its guard byte.
 */
#include "test_util.h"

#include <gasnet_vis.h>

#define SLOT 4096
#define LBUF 8192
#define MAXCH 1024
#define GUARD_SEG 0xEE
#define GUARD_LOC 0x5A

enum { K_VECTOR, K_INDEXED, K_STRIDED, K_NKINDS };
enum { F_BLOCKING, F_NB, F_NBI, F_NFORMS };
static const char *kname[] = {"vector", "indexed", "strided"};
static const char *fname[] = {"Blocking", "NB", "NBI"};

typedef struct {
  size_t off, len;
} ch_t;

typedef struct {
  int kind;
  size_t nr, nl;    /* chunks, remote and local, in stream order */
  ch_t r[MAXCH], l[MAXCH];
  size_t rlen, llen; /* indexed: common chunk lengths */
  /* strided */
  size_t elemsz, levels, count[4];
  ptrdiff_t rstride[4], lstride[4];
  size_t rcorner, lcorner;
} shape_t;

static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state = test_mix(rng_state + 0x9E3779B97F4A7C15ULL);
  return rng_state;
}
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static void shuffle(ch_t *c, size_t n) {
  for (size_t i = n; i > 1; i--) {
    size_t j = rndn(i);
    ch_t t = c[i - 1];
    c[i - 1] = c[j];
    c[j] = t;
  }
}

/* Place n chunks of the given lengths one after another with random gaps
 * (no overlap), then optionally shuffle the list order. */
static size_t place(ch_t *c, size_t n, size_t maxgap, size_t start) {
  size_t pos = start;
  for (size_t i = 0; i < n; i++) {
    pos += rndn(maxgap + 1);
    c[i].off = pos;
    pos += c[i].len;
  }
  return pos;
}

static void gen_vector(shape_t *s, int variant) {
  size_t total = 0;
  if (variant == 0) { /* empty lists */
    s->nr = s->nl = 0;
    return;
  }
  s->nr = 1 + rndn(40);
  for (size_t i = 0; i < s->nr; i++) {
    s->r[i].len = rndn(5) == 0 ? 0 : 1 + rndn(64);
    total += s->r[i].len;
  }
  place(s->r, s->nr, 32, 0);
  if (variant & 1) shuffle(s->r, s->nr);
  /* a different chunking of the same total on the local side */
  size_t left = total;
  s->nl = 0;
  while (left || (s->nl < 2 && rndn(2))) {
    size_t len = rndn(6) == 0 ? 0 : 1 + rndn(96);
    if (len > left) len = left;
    s->l[s->nl++].len = len;
    left -= len;
  }
  place(s->l, s->nl, 16, 0);
  if (variant & 2) shuffle(s->l, s->nl);
}

static void gen_indexed(shape_t *s, int variant) {
  if (variant == 0) { /* zero-length chunks */
    s->rlen = s->llen = 0;
    s->nr = 3;
    s->nl = 5;
    for (size_t i = 0; i < 3; i++) s->r[i] = (ch_t){i * 8, 0};
    for (size_t i = 0; i < 5; i++) s->l[i] = (ch_t){i * 8, 0};
    return;
  }
  size_t u = 1 + rndn(8), a = 1 + rndn(4), b = 1 + rndn(4), c = 1 + rndn(6);
  s->rlen = u * a;
  s->nr = b * c;
  s->llen = u * b;
  s->nl = a * c;
  for (size_t i = 0; i < s->nr; i++) s->r[i].len = s->rlen;
  for (size_t i = 0; i < s->nl; i++) s->l[i].len = s->llen;
  place(s->r, s->nr, 24, 0);
  place(s->l, s->nl, 24, 0);
  if (variant & 1) shuffle(s->r, s->nr);
  if (variant & 2) shuffle(s->l, s->nl);
}

/* Strides of a padded, permuted (transposed), partly reflected layout.
 * Returns the footprint; *corner is the offset of element (0,...,0). */
static size_t layout(const shape_t *s, int packed, ptrdiff_t *stride, size_t *corner) {
  size_t perm[4] = {0, 1, 2, 3};
  if (!packed)
    for (size_t i = s->levels; i > 1; i--) {
      size_t j = rndn(i), t = perm[i - 1];
      perm[i - 1] = perm[j];
      perm[j] = t;
    }
  size_t st = s->elemsz + (packed ? 0 : rndn(9));
  for (size_t j = 0; j < s->levels; j++) {
    size_t d = perm[j];
    stride[d] = (ptrdiff_t)st;
    st = st * s->count[d] + (packed ? 0 : rndn(9));
  }
  *corner = 0;
  if (!packed)
    for (size_t d = 0; d < s->levels; d++)
      if (s->count[d] && rndn(3) == 0) {
        *corner += (s->count[d] - 1) * (size_t)stride[d];
        stride[d] = -stride[d];
      }
  return s->levels ? st : s->elemsz;
}

static void gen_strided(shape_t *s, int variant) {
  for (;;) {
    s->levels = variant == 0 ? 0 : 1 + rndn(4);
    s->elemsz = variant == 1 ? 0 : 1 + rndn(16);
    size_t n = 1;
    for (size_t d = 0; d < 4; d++) {
      s->count[d] = 1 + rndn(5);
      if (d < s->levels) n *= s->count[d];
    }
    if (variant == 2 && s->levels) s->count[rndn(s->levels)] = 0; /* no-op */
    if (n > MAXCH) continue;
    /* variant 3: both sides packed (one memcpy); 4: remote packed only */
    size_t rf = layout(s, variant == 3 || variant == 4, s->rstride, &s->rcorner);
    size_t lf = layout(s, variant == 3, s->lstride, &s->lcorner);
    if (rf <= SLOT && lf <= LBUF) break;
  }
  /* the elements in stream order (level 0 fastest) */
  size_t n = s->elemsz ? 1 : 0;
  for (size_t d = 0; d < s->levels; d++) n *= s->count[d];
  s->nr = s->nl = n;
  for (size_t e = 0; e < n; e++) {
    size_t rest = e;
    ptrdiff_t ro = (ptrdiff_t)s->rcorner, lo = (ptrdiff_t)s->lcorner;
    for (size_t d = 0; d < s->levels; d++) {
      size_t i = rest % s->count[d];
      rest /= s->count[d];
      ro += (ptrdiff_t)i * s->rstride[d];
      lo += (ptrdiff_t)i * s->lstride[d];
    }
    s->r[e] = (ch_t){(size_t)ro, s->elemsz};
    s->l[e] = (ch_t){(size_t)lo, s->elemsz};
  }
}

static void gen(shape_t *s, int kind, int variant, uint64_t seed) {
  memset(s, 0, sizeof *s);
  rng_state = seed;
  s->kind = kind;
  if (kind == K_VECTOR) gen_vector(s, variant);
  if (kind == K_INDEXED) gen_indexed(s, variant);
  if (kind == K_STRIDED) gen_strided(s, variant);
  size_t rt = 0, lt = 0;
  for (size_t i = 0; i < s->nr; i++) {
    rt += s->r[i].len;
    CHECK(s->r[i].off + s->r[i].len <= SLOT);
  }
  for (size_t i = 0; i < s->nl; i++) {
    lt += s->l[i].len;
    CHECK(s->l[i].off + s->l[i].len <= LBUF);
  }
  CHECK(rt == lt);
}

/* Scatter the stream into buf along the chunks. */
static void scatter(unsigned char *buf, const ch_t *c, size_t n, uint64_t seed) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < c[i].len; j++) buf[c[i].off + j] = test_pattern_byte(seed, k++);
}

static void check_image(const unsigned char *got, const unsigned char *want, size_t n,
                        const char *what, int kind, int form, int variant, gex_Rank_t peer) {
  for (size_t i = 0; i < n; i++)
    CHECKF(got[i] == want[i],
           "%s %s %s variant %d peer %u: byte %zu got 0x%02x want 0x%02x", kname[kind], what,
           fname[form], variant, (unsigned)peer, i, got[i], want[i]);
}

static int force_am; /* GEX_VIS_FORCE_AM=1: the "visam" runs */
static int off_node; /* some rank is on another host */

static int issue(int put, int form, gex_Rank_t peer, shape_t *s, unsigned char *lbuf,
                 unsigned char *rbase, gex_Flags_t flags) {
  gex_Memvec_t rv[MAXCH], lv[MAXCH];
  void *ri[MAXCH], *li[MAXCH];
  for (size_t i = 0; i < s->nr; i++) {
    rv[i] = (gex_Memvec_t){rbase + s->r[i].off, s->r[i].len};
    ri[i] = rbase + s->r[i].off;
  }
  for (size_t i = 0; i < s->nl; i++) {
    lv[i] = (gex_Memvec_t){lbuf + s->l[i].off, s->l[i].len};
    li[i] = lbuf + s->l[i].off;
  }
  gex_TM_t tm = T.tm;
  void *rc = rbase + s->rcorner, *lc = lbuf + s->lcorner;
  gex_Event_t ev = GEX_EVENT_INVALID;
  int rcode = 0;
#define FORMS(PUTCALL, GETCALL)                                                        \
  if (put) {                                                                           \
    if (form == F_NB) ev = PUTCALL(NB);                                      \
    if (form == F_NBI) rcode = PUTCALL(NBI);                                 \
    if (form == F_BLOCKING) rcode = PUTCALL(Blocking);                       \
  } else {                                                                             \
    if (form == F_NB) ev = GETCALL(NB);                                      \
    if (form == F_NBI) rcode = GETCALL(NBI);                                 \
    if (form == F_BLOCKING) rcode = GETCALL(Blocking);                       \
  }
#define VP(F) gex_VIS_VectorPut##F(tm, peer, s->nr, rv, s->nl, lv, flags)
#define VG(F) gex_VIS_VectorGet##F(tm, s->nl, lv, peer, s->nr, rv, flags)
#define IP(F) gex_VIS_IndexedPut##F(tm, peer, s->nr, ri, s->rlen, s->nl, li, s->llen, flags)
#define IG(F) gex_VIS_IndexedGet##F(tm, s->nl, li, s->llen, peer, s->nr, ri, s->rlen, flags)
#define SP(F)                                                                           \
  gex_VIS_StridedPut##F(tm, peer, rc, s->rstride, lc, s->lstride, s->elemsz, s->count, \
                        s->levels, flags)
#define SG(F)                                                                           \
  gex_VIS_StridedGet##F(tm, lc, s->lstride, peer, rc, s->rstride, s->elemsz, s->count, \
                        s->levels, flags)
  if (s->kind == K_VECTOR) { FORMS(VP, VG) }
  if (s->kind == K_INDEXED) { FORMS(IP, IG) }
  if (s->kind == K_STRIDED) { FORMS(SP, SG) }
  if (form == F_NB) {
    /* on-node: complete at initiation (docs/vis.md), unless GEX_VIS_FORCE_AM
     * sends it through Active Messages */
    size_t bytes = 0;
    for (size_t i = 0; i < s->nr; i++) bytes += s->r[i].len;
    if (s->kind == K_STRIDED) {
      bytes = s->elemsz;
      for (size_t i = 0; i < s->levels; i++) bytes *= s->count[i];
    }
    /* (with peers on other hosts, either answer is right) */
    if (!off_node)
    CHECKF(force_am ? (bytes == 0 || ev != GEX_EVENT_INVALID) : ev == GEX_EVENT_INVALID,
           "NB %s of %zu bytes returned %s", kname[s->kind], bytes,
           ev == GEX_EVENT_INVALID ? "GEX_EVENT_INVALID" : "an event");
    if (put && (flags & GEX_FLAG_ENABLE_LEAF_LC)) test_wait(gex_Event_QueryLeaf(ev, GEX_EC_LC));
    test_wait(ev);
  } else {
    CHECK(rcode == 0);
    if (form == F_NBI) gex_NBI_Wait(put ? GEX_EC_PUT : GEX_EC_GET, 0);
  }
  return rcode;
}

#define NVARIANTS 6

static uintptr_t seg_size(gex_Rank_t rank, gex_Rank_t size) {
  (void)rank;
  return (uintptr_t)size * SLOT + 4096; /* + a tail that must stay untouched */
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_seg_size_fn = seg_size;
  test_init(&argc, &argv, "T_VIS", 0, NULL, 0);
  const char *fa = getenv("GEX_VIS_FORCE_AM");
  force_am = fa && *fa && strcmp(fa, "0") != 0;
  gex_Rank_t nb_size = 0;
  gex_System_QueryNbrhdInfo(NULL, &nb_size, NULL);
  off_node = nb_size != gex_System_QueryJobSize();
  (void)argc;
  const gex_Rank_t me = T.rank, n = T.size;
  CHECK(T.seg_size >= (uintptr_t)n * SLOT);
  static shape_t s;
  unsigned char *lbuf = malloc(LBUF), *want = malloc(LBUF > SLOT ? LBUF : SLOT);
  CHECK(lbuf && want);
  long reps = test_reduced() ? 1 : 2;
  unsigned long ops = 0;

  for (long rep = 0; rep < reps; rep++)
    for (int kind = 0; kind < K_NKINDS; kind++)
      for (int form = 0; form < F_NFORMS; form++)
        for (int variant = 0; variant < NVARIANTS; variant++) {
          /* heavy runs (sanitizers, oversubscription): the NB and NBI forms
           * only with the variants that also pass flags */
          if (test_reduced() && form != F_BLOCKING && !(variant & 1)) continue;
          uint64_t round =
              (uint64_t)((rep * K_NKINDS + kind) * F_NFORMS + form) * 64 + (uint64_t)variant;
          gex_Flags_t pflags = (variant & 1) ? GEX_FLAG_ENABLE_LEAF_LC : 0;
          if (variant == 5) pflags |= GEX_FLAG_IMMEDIATE;
          gex_Flags_t gflags = variant == 5 ? GEX_FLAG_IMMEDIATE : 0;

          /* ---- Put: I write slot 'me' of every peer ---- */
          memset(T.seg_base, GUARD_SEG, T.seg_size);
          test_barrier();
          for (gex_Rank_t k = 0; k < n; k++) {
            gex_Rank_t p = (me + k) % n;
            gen(&s, kind, variant, test_seed(round, me, p, 1));
            memset(lbuf, GUARD_LOC, LBUF);
            scatter(lbuf, s.l, s.nl, test_seed(round, me, p, 2));
            issue(1, form, p, &s, lbuf, test_peer_addr(p, (uintptr_t)me * SLOT), pflags);
            ops++;
          }
          test_barrier();
          for (gex_Rank_t w = 0; w < n; w++) {
            gen(&s, kind, variant, test_seed(round, w, me, 1));
            memset(want, GUARD_SEG, SLOT);
            scatter(want, s.r, s.nr, test_seed(round, w, me, 2));
            check_image(T.seg_base + (size_t)w * SLOT, want, SLOT, "Put", kind, form, variant, w);
          }
          CHECK_BYTES(T.seg_base + (size_t)n * SLOT, T.seg_size - (size_t)n * SLOT, GUARD_SEG);
          test_barrier();

          /* ---- Get: I read from slot 'me' of every peer ---- */
          uint64_t segseed = test_seed(round, me, 0, 3);
          test_fill(T.seg_base, T.seg_size, segseed);
          test_barrier();
          for (gex_Rank_t k = 0; k < n; k++) {
            gex_Rank_t p = (me + n - k) % n;
            gen(&s, kind, variant, test_seed(round, me, p, 4));
            memset(lbuf, GUARD_LOC, LBUF);
            issue(0, form, p, &s, lbuf, test_peer_addr(p, (uintptr_t)me * SLOT), gflags);
            ops++;
            /* expected: the stream is p's segment bytes along the remote chunks */
            memset(want, GUARD_LOC, LBUF);
            uint64_t pseed = test_seed(round, p, 0, 3);
            size_t sk = 0, li = 0, lo = 0;
            for (size_t i = 0; i < s.nr; i++)
              for (size_t j = 0; j < s.r[i].len; j++, sk++) {
                while (lo == s.l[li].len) li++, lo = 0;
                want[s.l[li].off + lo++] =
                    test_pattern_byte(pseed, (size_t)me * SLOT + s.r[i].off + j);
              }
            check_image(lbuf, want, LBUF, "Get", kind, form, variant, p);
          }
          /* Gets leave the source untouched */
          CHECK_PATTERN(T.seg_base, T.seg_size, segseed);
          test_barrier();
        }

  /* Disarming with nothing armed is accepted. */
  gex_VIS_SetPeerCompletionHandler(0, NULL, 0, 0);
  CHECK(GEX_VIS_MAX_PEERCOMPLETION >= 127);
  test_log0("%lu VIS operations per rank verified", ops);
  free(lbuf);
  free(want);
  test_finish();
}

/* t_segment_create.c -- segments made by the client instead of
 * gex_Segment_Attach: gex_Segment_Create (memory allocated by libgex or given
 * by the client), gex_EP_BindSegment, gex_EP_PublishBoundSegment, then every
 * kind of communication into the published segments, verified byte by byte:
 * Put and Get (Blocking, NB, NBI, value forms, through the primordial team,
 * a team made before the publication and the TM-pair), AM Long Requests and
 * Replies (large and small payloads), remote atomics and VIS.  Also the
 * error codes of these calls, gex_EP_Create's refusal of invalid arguments
 * and gex_Coll_BarrierBlocking (every barrier here).
 *
 * usage: t_segment_create [mixed|library|client]   (or GEX_TEST_SEGMENT_MODE=...)
 *   mixed (default): even ranks let libgex allocate their segment, odd ranks
 *   give their own memory, so neighbours meet both a mapped segment and one
 *   reached through the kernel; library / client: every rank the same.
 * Segment lengths differ by rank and client segments start and end at
 * unaligned addresses.
 */
#include "test_util.h"

#include <gasnet_coll.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>

#define SLOT 24576 /* > the Medium maximum: large Longs are not packed */
#define SMALL 77
#define HDR 64
#define VSLOT 8192

enum { M_MIXED, M_LIBRARY, M_CLIENT };
static int mode = M_MIXED;

/* Segment layout (offsets from the base), n = job size:
 *   [0,HDR)                 header: u64 owner's rank + 1000, then an atomic
 *                           counter at the first 8-aligned address after it
 *   PUT  + i*SLOT           Put from rank i
 *   LONG + i*SLOT           AM Long Request from rank i
 *   REP  + i*SLOT           AM Long Reply from rank i
 *   SRC                     SLOT bytes of the owner's pattern, read by Gets
 *   VIS  + i*VSLOT          VIS Put from rank i
 */
static gex_Rank_t n, me;
static size_t off_put(gex_Rank_t i) { return HDR + (size_t)i * SLOT; }
static size_t off_long(gex_Rank_t i) { return HDR + ((size_t)n + i) * SLOT; }
static size_t off_rep(gex_Rank_t i) { return HDR + (2 * (size_t)n + i) * SLOT; }
static size_t off_src(void) { return HDR + 3 * (size_t)n * SLOT; }
static size_t off_vis(gex_Rank_t i) { return off_src() + SLOT + (size_t)i * VSLOT; }
static size_t seg_need(void) { return off_vis(n); }

static int uses_client_memory(gex_Rank_t r) {
  return mode == M_CLIENT || (mode == M_MIXED && (r & 1));
}
/* Length each rank asks for: not a multiple of the page size. */
static uintptr_t asked_len(gex_Rank_t r) { return seg_need() + 13 + 8 * (uintptr_t)r; }
static uintptr_t expected_size(gex_Rank_t r) {
  uintptr_t l = asked_len(r);
  return uses_client_memory(r) ? l : (l + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
}

static unsigned char *base;    /* my bound segment */
static unsigned char **peer;   /* every rank's segment, owner's address */
static unsigned char *buf;     /* local source/destination */
static atomic_int long_reqs, long_reps;

static const gex_AM_Index_t H_LREQ = GEX_AM_INDEX_BASE + 10, H_LREP = GEX_AM_INDEX_BASE + 11;

static size_t long_len(int round) { return round ? SMALL : SLOT; }
static size_t long_skew(int round) { return round ? 5 : 0; }

static void h_lreq(gex_Token_t t, void *p, size_t nbytes, gex_AM_Arg_t a_round) {
  int round = (int)a_round;
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  gex_Rank_t src = info.gex_srcrank;
  CHECKF(p == base + off_long(src) + long_skew(round) && nbytes == long_len(round),
         "Long Request from %u round %d: %p+%zu, want %p+%zu", src, round, p, nbytes,
         (void *)(base + off_long(src) + long_skew(round)), long_len(round));
  CHECK_PATTERN(p, nbytes, test_seed(src, me, 3, (uint64_t)round));
  /* Reply into the requester's segment: from the handler's own buffer. */
  static _Thread_local unsigned char rbuf[SLOT];
  test_fill(rbuf, nbytes, test_seed(me, src, 4, (uint64_t)round));
  CHECK(gex_AM_ReplyLong1(t, H_LREP, rbuf, nbytes, peer[src] + off_rep(me) + long_skew(round),
                          GEX_EVENT_NOW, 0, a_round) == 0);
  atomic_fetch_add(&long_reqs, 1);
}

static void h_lrep(gex_Token_t t, void *p, size_t nbytes, gex_AM_Arg_t a_round) {
  int round = (int)a_round;
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  gex_Rank_t src = info.gex_srcrank;
  CHECKF(p == base + off_rep(src) + long_skew(round) && nbytes == long_len(round),
         "Long Reply from %u round %d: %p+%zu", src, round, p, nbytes);
  CHECK_PATTERN(p, nbytes, test_seed(src, me, 4, (uint64_t)round));
  atomic_fetch_add(&long_reps, 1);
}

/* The atomic counter of rank r: 8-aligned (client segments start anywhere). */
static void *counter(gex_Rank_t r) {
  return (void *)(((uintptr_t)peer[r] + 8 + 7) & ~(uintptr_t)7);
}

static void barrier(void) { CHECK(gex_Coll_BarrierBlocking(T.tm, 0) == GASNET_OK); }

/* ---- before any segment: refusals and error codes ---------------------------- */
static void check_errors_before_bind(void) {
  gex_System_SetVerboseErrors(0);
  gex_EP_t ep2 = GEX_EP_INVALID;
  CHECK(gex_EP_Create(&ep2, T.client, 0, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_EP_Create(&ep2, T.client, 1u << 7, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_EP_Create(&ep2, T.client, GEX_EP_CAPABILITY_RMA, 1u << 9) == GASNET_ERR_BAD_ARG);
  CHECK(gex_EP_Create(NULL, T.client, GEX_EP_CAPABILITY_RMA, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_EP_Create(&ep2, GEX_CLIENT_INVALID, GEX_EP_CAPABILITY_RMA, 0) == GASNET_ERR_BAD_ARG);
  CHECK(ep2 == GEX_EP_INVALID);

  gex_Segment_t s = GEX_SEGMENT_INVALID;
  CHECK(gex_Segment_Create(NULL, T.client, NULL, 4096, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, GEX_CLIENT_INVALID, NULL, 4096, GEX_MK_HOST, 0) ==
        GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, T.client, NULL, 0, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, T.client, NULL, 4096, GEX_MK_INVALID, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, T.client, NULL, 4096, GEX_MK_HOST, 1u << 8) ==
        GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, T.client, (void *)(uintptr_t)-4096, 8192, GEX_MK_HOST, 0) ==
        GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, T.client, NULL, UINTPTR_MAX - 100, GEX_MK_HOST, 0) ==
        GASNET_ERR_RESOURCE);
  CHECK(s == GEX_SEGMENT_INVALID);
  /* hints are accepted */
  CHECK(gex_Segment_Create(&s, T.client, NULL, 100, GEX_MK_HOST, GEX_FLAG_HINT_ACCEL_ALL) ==
        GASNET_OK);
  CHECK(s != GEX_SEGMENT_INVALID && gex_Segment_QuerySize(s) == GASNET_PAGESIZE);
  CHECK(gex_Segment_QueryFlags(s) == GEX_FLAG_HINT_ACCEL_ALL);
  gex_Segment_Destroy(s, 0);
  gex_System_SetVerboseErrors(1);
}

static void set_mode(const char *m) {
  if (!strcmp(m, "library")) mode = M_LIBRARY;
  if (!strcmp(m, "client")) mode = M_CLIENT;
  if (!strcmp(m, "mixed")) mode = M_MIXED;
}

int main(int argc, char **argv) {
  const char *env = getenv("GEX_TEST_SEGMENT_MODE");
  if (env) set_mode(env);
  for (int i = 1; i < argc; i++) set_mode(argv[i]);
  test_init_client(&argc, &argv, "t_segment_create", 0);
  n = T.size;
  me = T.rank;
  peer = calloc(n, sizeof *peer);
  buf = malloc(SLOT);
  CHECK(peer && buf);
  gex_AM_Entry_t tab[] = {
      {H_LREQ, (gex_AM_Fn_t)h_lreq, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "lreq"},
      {H_LREP, (gex_AM_Fn_t)h_lrep, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 1, NULL, "lrep"},
  };
  CHECK(gex_EP_RegisterHandlers(T.ep, tab, 2) == GASNET_OK);

  /* ---- no segment yet ---- */
  CHECK(gex_EP_QuerySegment(T.ep) == GEX_SEGMENT_INVALID);
  CHECK(gex_EP_QueryIndex(T.ep) == 0);
  {
    uintptr_t sz = 1;
    test_wait(gex_EP_QueryBoundSegmentNB(T.tm, me, NULL, NULL, &sz, 0));
    CHECK(sz == 0);
  }
  check_errors_before_bind();

  /* ---- create both kinds of segment ---- */
  gex_Segment_t lib = GEX_SEGMENT_INVALID, cli = GEX_SEGMENT_INVALID;
  uintptr_t len = asked_len(me);
  CHECK(gex_Segment_Create(&lib, T.client, NULL, len, GEX_MK_HOST, 0) == GASNET_OK);
  CHECK(lib != GEX_SEGMENT_INVALID);
  CHECK(gex_Segment_QueryAddr(lib) != NULL);
  CHECK((uintptr_t)gex_Segment_QueryAddr(lib) % GASNET_PAGESIZE == 0);
  CHECKF(gex_Segment_QuerySize(lib) == (len + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE,
         "library segment of %zu bytes has size %zu", (size_t)len, (size_t)gex_Segment_QuerySize(lib));
  CHECK(gex_Segment_QueryClient(lib) == T.client);
  CHECK(gex_Segment_QueryFlags(lib) == 0);
  unsigned char *cmem = malloc(len + 64);
  CHECK(cmem);
  unsigned char *caddr = cmem + 16 + 3; /* deliberately unaligned */
  CHECK(gex_Segment_Create(&cli, T.client, caddr, len, GEX_MK_HOST, 0) == GASNET_OK);
  CHECK(gex_Segment_QueryAddr(cli) == caddr && gex_Segment_QuerySize(cli) == len);
  gex_Segment_SetCData(cli, &mode);
  CHECK(gex_Segment_QueryCData(cli) == &mode && gex_Segment_QueryCData(lib) == NULL);

  /* publishing an endpoint that has no segment yet is harmless */
  CHECK(gex_EP_PublishBoundSegment(T.tm, &T.ep, 1, 0) == GASNET_OK);
  CHECK(gex_EP_PublishBoundSegment(T.tm, NULL, 0, 0) == GASNET_OK);

  /* ---- bind ---- */
  gex_Segment_t seg = uses_client_memory(me) ? cli : lib, other = seg == cli ? lib : cli;
  gex_System_SetVerboseErrors(0);
  CHECK(gex_EP_BindSegment(GEX_EP_INVALID, seg, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_EP_BindSegment(T.ep, GEX_SEGMENT_INVALID, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_EP_BindSegment(T.ep, seg, 1) == GASNET_ERR_BAD_ARG);
  gex_System_SetVerboseErrors(1);
  CHECK(gex_EP_BindSegment(T.ep, seg, 0) == GASNET_OK);
  gex_System_SetVerboseErrors(0);
  CHECK(gex_EP_BindSegment(T.ep, other, 0) == GASNET_ERR_BAD_ARG); /* double bind */
  CHECK(gex_EP_BindSegment(T.ep, seg, 0) == GASNET_ERR_BAD_ARG);
  {
    gex_Segment_t att = GEX_SEGMENT_INVALID;
    CHECK(gex_Segment_Attach(&att, T.tm, GASNET_PAGESIZE) == GASNET_ERR_RESOURCE);
  }
  gex_System_SetVerboseErrors(1);
  gex_Segment_Destroy(other, 0);
  CHECK(gex_EP_QuerySegment(T.ep) == seg);
  base = gex_Segment_QueryAddr(seg);
  CHECK(gex_Segment_QuerySize(seg) == expected_size(me));
  {
    void *owner = NULL, *local = NULL;
    uintptr_t sz = 0;
    test_wait(gex_EP_QueryBoundSegmentNB(T.tm, me, &owner, &local, &sz, GEX_FLAG_IMMEDIATE));
    CHECK(owner == base && local == base && sz == expected_size(me));
    gex_Segment_t q = GEX_SEGMENT_INVALID;
    gasnet_QueryGexObjects(NULL, NULL, NULL, &q);
    CHECK(q == seg);
  }

  /* ---- fill before publishing; teams made before the publication ---- */
  memset(base, 0, seg_need());
  uint64_t magic = 1000 + me;
  memcpy(base, &magic, 8);
  test_fill(base + off_src(), SLOT, test_seed(me, 0, 2, 0));
  /* odds in reverse order, then evens in reverse order (as the reference's
   * segment test does); 'rev' lives on, 'tmp' only carries the publication */
  int key = (int)((me & 1 ? 0 : n) + (n - me));
  gex_TM_t tmp = GEX_TM_INVALID, rev = GEX_TM_INVALID;
  gex_TM_Split(&tmp, T.tm, 0, key, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  gex_TM_Split(&rev, T.tm, 0, -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  CHECK(tmp != GEX_TM_INVALID && rev != GEX_TM_INVALID);
  CHECK(gex_TM_QuerySize(tmp) == n && gex_TM_QueryRank(rev) == n - 1 - me);
  barrier(); /* every rank filled its segment */

  /* ---- publish: two calls over the permuted team, each rank in one ---- */
  int first = (int)(me % 2);
  CHECK(gex_EP_PublishBoundSegment(tmp, &T.ep, (size_t)first, 0) == GASNET_OK);
  CHECK(gex_EP_PublishBoundSegment(tmp, &T.ep, (size_t)!first, 0) == GASNET_OK);
  CHECK(gex_TM_Destroy(tmp, NULL, 0) == 0);
  barrier();

  /* ---- every rank's segment as each view reports it ---- */
  for (gex_Rank_t r = 0; r < n; r++) {
    void *owner = NULL, *local = (void *)1;
    uintptr_t sz = 0;
    test_wait(gex_EP_QueryBoundSegmentNB(T.tm, r, &owner, &local, &sz, 0));
    CHECKF(sz == expected_size(r), "rank %u: size %zu, expected %zu", r, (size_t)sz,
           (size_t)expected_size(r));
    CHECK(owner != NULL);
    peer[r] = owner;
    int mapped = r == me || (test_in_nbrhd(r) && !uses_client_memory(r));
    CHECKF(mapped ? local != NULL : local == NULL, "rank %u: local address %p (mapped: %d)", r,
           local, mapped);
    if (local) {
      uint64_t m;
      memcpy(&m, local, 8);
      CHECKF(m == 1000 + r, "rank %u's segment mapped here holds %llu", r, (unsigned long long)m);
    }
    /* the team made before the publication and the TM-pair agree */
    void *o2 = NULL;
    uintptr_t s2 = 0;
    gex_Rank_t rr = n - 1 - r;
    CHECK(gex_TM_TranslateRankToJobrank(rev, rr) == r);
    CHECK(gex_Segment_QueryBound(rev, rr, &o2, NULL, &s2) == GASNET_OK);
    CHECK(o2 == owner && s2 == sz);
    CHECK(gex_Segment_QueryBound(gex_TM_Pair(T.ep, 0), r, &o2, NULL, &s2) == GASNET_OK);
    CHECK(o2 == owner && s2 == sz);
  }

  /* ---- RMA ---- */
  for (gex_Rank_t r = 0; r < n; r++) {
    /* Every form, each to some ranks; with two ranks per "node" (0 and 1,
     * 2 and 3) the lower one puts to its neighbour by NBI. */
    int form = (int)((me + r + (r > me)) % 4);
    test_fill(buf, SLOT, test_seed(me, r, 1, 0));
    void *dst = peer[r] + off_put(me);
    switch (form) {
      case 0: CHECK(gex_RMA_PutBlocking(T.tm, r, dst, buf, SLOT, 0) == 0); break;
      case 1: {
        gex_Event_t lc = (gex_Event_t)(uintptr_t)0x77;
        gex_Event_t ev = gex_RMA_PutNB(rev, n - 1 - r, dst, buf, SLOT, &lc, 0);
        gex_Event_Wait(lc);
        test_wait(ev);
        break;
      }
      case 2:
        CHECK(gex_RMA_PutNBI(gex_TM_Pair(T.ep, 0), r, dst, buf, SLOT, GEX_EVENT_NOW, 0) == 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
      default:
        gex_NBI_BeginAccessRegion(0);
        CHECK(gex_RMA_PutNBI(T.tm, r, dst, buf, SLOT / 2, GEX_EVENT_NOW, 0) == 0);
        CHECK(gex_RMA_PutNBI(T.tm, r, (char *)dst + SLOT / 2, buf + SLOT / 2, SLOT / 2,
                             GEX_EVENT_NOW, 0) == 0);
        test_wait(gex_NBI_EndAccessRegion(0));
        break;
    }
    /* Get the owner's pattern in a form that differs from the Put's */
    memset(buf, 0, SLOT);
    void *src = peer[r] + off_src();
    switch (form) {
      case 0: test_wait(gex_RMA_GetNB(rev, buf, n - 1 - r, src, SLOT, 0)); break;
      case 1:
        CHECK(gex_RMA_GetNBI(T.tm, buf, r, src, SLOT, 0) == 0);
        gex_NBI_Wait(GEX_EC_GET, 0);
        break;
      default: CHECK(gex_RMA_GetBlocking(gex_TM_Pair(T.ep, 0), buf, r, src, SLOT, 0) == 0);
    }
    CHECK_PATTERN(buf, SLOT, test_seed(r, 0, 2, 0));
    CHECK(gex_RMA_GetBlockingVal(T.tm, r, peer[r], 8, 0) == 1000 + r);
    CHECK(gex_RMA_GetBlockingVal(T.tm, r, peer[r] + off_src() + 1, 1, 0) ==
          test_pattern_byte(test_seed(r, 0, 2, 0), 1));
  }
  barrier();
  for (gex_Rank_t i = 0; i < n; i++) CHECK_PATTERN(base + off_put(i), SLOT, test_seed(i, me, 1, 0));
  test_log0("RMA into published segments: ok");

  /* ---- AM Long: a large and a small payload, Request and Reply ---- */
  for (int round = 0; round < 2; round++) {
    atomic_store(&long_reqs, 0);
    atomic_store(&long_reps, 0);
    barrier();
    for (gex_Rank_t r = 0; r < n; r++) {
      test_fill(buf, long_len(round), test_seed(me, r, 3, (uint64_t)round));
      CHECK(gex_AM_RequestLong1(T.tm, r, H_LREQ, buf, long_len(round),
                                peer[r] + off_long(me) + long_skew(round), GEX_EVENT_NOW, 0,
                                (gex_AM_Arg_t)round) == 0);
    }
    GASNET_BLOCKUNTIL(atomic_load(&long_reps) == (int)n);
    barrier();
    CHECK(atomic_load(&long_reqs) == (int)n);
  }
  test_log0("AM Long into published segments: ok");

  /* ---- remote atomics: a counter in every rank's segment ---- */
  {
    gex_AD_t ad;
    gex_AD_Create(&ad, rev, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET, 0);
    for (gex_Rank_t r = 0; r < n; r++) {
      uint64_t old = 0;
      gex_Rank_t rr = n - 1 - r;
      test_wait(gex_AD_OpNB_U64(ad, &old, rr, counter(r), GEX_OP_FADD, me + 1, 0, 0));
    }
    barrier();
    for (gex_Rank_t r = 0; r < n; r++) {
      uint64_t v = 0;
      test_wait(gex_AD_OpNB_U64(ad, &v, n - 1 - r, counter(r), GEX_OP_GET, 0, 0, 0));
      CHECKF(v == (uint64_t)n * (n + 1) / 2, "counter of rank %u: %llu", r, (unsigned long long)v);
    }
    barrier();
    gex_AD_Destroy(ad);
  }
  test_log0("atomics on published segments: ok");

  /* ---- VIS: a small piece (packed into an AM) and a large one (by RMA) ---- */
  {
    for (gex_Rank_t r = 0; r < n; r++) {
      test_fill(buf, 5100, test_seed(me, r, 5, 0));
      gex_Memvec_t dst[2] = {{peer[r] + off_vis(me), 100}, {peer[r] + off_vis(me) + 200, 5000}};
      gex_Memvec_t src[1] = {{buf, 5100}};
      CHECK(gex_VIS_VectorPutBlocking(T.tm, r, 2, dst, 1, src, 0) == 0);
      unsigned char got[300];
      gex_Memvec_t gsrc[1] = {{peer[r] + off_src() + 1000, 300}};
      gex_Memvec_t gdst[2] = {{got, 120}, {got + 120, 180}};
      CHECK(gex_VIS_VectorGetBlocking(T.tm, 2, gdst, r, 1, gsrc, 0) == 0);
      unsigned char want[SLOT];
      test_fill(want, SLOT, test_seed(r, 0, 2, 0));
      CHECK(memcmp(got, want + 1000, 300) == 0);
    }
    barrier();
    for (gex_Rank_t i = 0; i < n; i++) {
      unsigned char want[5100];
      test_fill(want, 5100, test_seed(i, me, 5, 0));
      CHECK(memcmp(base + off_vis(i), want, 100) == 0);
      CHECK(memcmp(base + off_vis(i) + 200, want + 100, 5000) == 0);
      CHECK_BYTES(base + off_vis(i) + 100, 100, 0);
    }
  }
  test_log0("VIS into published segments: ok");

  /* a redundant publication changes nothing */
  CHECK(gex_EP_PublishBoundSegment(T.tm, &T.ep, 1, 0) == GASNET_OK);
  for (gex_Rank_t r = 0; r < n; r++) {
    void *owner = NULL;
    uintptr_t sz = 0;
    test_wait(gex_EP_QueryBoundSegmentNB(T.tm, r, &owner, NULL, &sz, 0));
    CHECK(owner == peer[r] && sz == expected_size(r));
  }
  CHECK(gex_TM_Destroy(rev, NULL, 0) == 0);
  test_finish();
}

/* t_ep_multi -- several endpoints per process (GASNET_MAXEPS > 1), as
 * Legion/Realm and UPC++ use them: gex_EP_Create(GEX_EP_CAPABILITY_RMA),
 * gex_Segment_Create + gex_EP_BindSegment + gex_EP_PublishBoundSegment of
 * host memory, then RMA through gex_TM_Pair(ep, index) into every rank's
 * endpoint of that index, every byte checked.
 *
 * Each rank makes NEP endpoints (indices 1..NEP) whose segments differ in
 * kind: client memory (malloc, odd offset), memory libgex allocates (mapped
 * by neighbours), client memory of an odd length.  Odd ranks add one more
 * endpoint, published by a second call in which even ranks publish
 * nothing.  Then, through each pair:
 *   - the segment queries answer each rank's segment of that index;
 *   - every rank writes its own region of every peer's segment (blocking,
 *     NB and NBI Puts of several sizes, from the primordial endpoint and
 *     from a created one), and every owner checks every byte;
 *   - every rank reads back a region written by another rank (Get forms);
 *   - many NBI Puts, then many NB Gets, in flight at once through a pair;
 *   - a VIS vector Put lands where it should;
 *   - an AM Long Request through the pair lands its payload in the
 *     target's segment of that index (as Legion/Realm sends them);
 *   - an AM through a pair reaches the target's handler;
 *   - gex_TM_TranslateRankToEP names the pair's index;
 *   - past GASNET_MAXEPS, gex_EP_Create answers GASNET_ERR_RESOURCE.
 */
#include <gasnet_vis.h>

#include "test_util.h"

enum { NEP = 3, SLOT = 3 * 4096 + 64 };

static gex_EP_t ep[NEP + 2];         /* [k]: endpoint of index k (k >= 1) */
static void *mem[NEP + 2];           /* its segment's memory */
static uintptr_t len[NEP + 2];       /* ... and length */
static _Atomic int am_hits, long_hits;

/* The segment length of index k at rank r: distinct per rank and index. */
static uintptr_t seg_len(gex_Rank_t n, gex_Rank_t r, unsigned k) {
  return (uintptr_t)n * SLOT + 8 * r + (k == 3 ? 13 : 0);
}
/* Where writer w's region starts in a segment of index k. */
static uintptr_t region(gex_Rank_t w) { return (uintptr_t)w * SLOT; }
static uint64_t seed(gex_Rank_t writer, gex_Rank_t owner, unsigned k, int part) {
  return test_seed(writer, owner, k, (uint64_t)part);
}

static void am_hit(gex_Token_t t, gex_AM_Arg_t a0) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  CHECKF((gex_Rank_t)a0 == info.gex_srcrank, "AM argument %d from rank %u", (int)a0,
         (unsigned)info.gex_srcrank);
  atomic_fetch_add(&am_hits, 1);
}
static void *peer_addr(gex_TM_t pair, gex_Rank_t r) {
  void *owner = NULL;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(pair, r, &owner, NULL, NULL, 0));
  return owner;
}

/* Where writer w's AM Long payload lands in a segment of index k. */
enum { LONG_OFF = SLOT - 200, LONG_LEN = 100 };

static void am_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t k, gex_AM_Arg_t w) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  CHECK((gex_Rank_t)w == info.gex_srcrank && k >= 1 && k <= NEP);
  CHECKF(buf == (unsigned char *)mem[k] + region((gex_Rank_t)w) + LONG_OFF,
         "AM Long from rank %d to index %d: payload at %p", (int)w, (int)k, buf);
  CHECK(nbytes == LONG_LEN);
  CHECK_PATTERN(buf, LONG_LEN, seed((gex_Rank_t)w, T.rank, (unsigned)k, 20));
  atomic_fetch_add(&long_hits, 1);
}

static gex_AM_Entry_t handlers[] = {
    {0, (gex_AM_Fn_t)am_hit, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "am_hit"},
    {0, (gex_AM_Fn_t)am_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "am_long"}};

/* An AM Long Request to my right neighbour's endpoint k, through the pair. */
static void am_long_send(unsigned k, gex_TM_t pair) {
  gex_Rank_t r = (T.rank + 1) % T.size;
  unsigned char src[LONG_LEN];
  test_fill(src, sizeof src, seed(T.rank, r, k, 20));
  void *dest = (unsigned char *)peer_addr(pair, r) + region(T.rank) + LONG_OFF;
  CHECK(gex_AM_RequestLong2(pair, r, handlers[1].gex_index, src, sizeof src, dest, GEX_EVENT_NOW,
                            0, (gex_AM_Arg_t)k, (gex_AM_Arg_t)T.rank) == 0);
}

static void make_endpoint(unsigned k) {
  gex_EP_t e = GEX_EP_INVALID;
  CHECK(gex_EP_Create(&e, T.client, GEX_EP_CAPABILITY_RMA, 0) == GASNET_OK);
  CHECKF(gex_EP_QueryIndex(e) == k, "index %u, want %u", (unsigned)gex_EP_QueryIndex(e), k);
  CHECK(gex_EP_QueryClient(e) == T.client);
  CHECK(gex_EP_QuerySegment(e) == GEX_SEGMENT_INVALID);
  ep[k] = e;
  len[k] = seg_len(T.size, T.rank, k);
  gex_Segment_t s = GEX_SEGMENT_INVALID;
  if (k == 2) { /* memory libgex allocates: neighbours map it */
    CHECK(gex_Segment_Create(&s, T.client, NULL, len[k], GEX_MK_HOST, 0) == GASNET_OK);
    mem[k] = gex_Segment_QueryAddr(s);
    len[k] = gex_Segment_QuerySize(s);
  } else { /* client memory, at an odd address */
    unsigned char *m = malloc(len[k] + 16);
    CHECK(m);
    mem[k] = m + 3;
    CHECK(gex_Segment_Create(&s, T.client, mem[k], len[k], GEX_MK_HOST, 0) == GASNET_OK);
  }
  memset(mem[k], 0xEE, len[k]);
  CHECK(gex_EP_BindSegment(e, s, 0) == GASNET_OK);
  CHECK(gex_EP_QuerySegment(e) == s);
  gex_System_SetVerboseErrors(0);
  gex_Segment_t s2 = GEX_SEGMENT_INVALID;
  CHECK(gex_Segment_Create(&s2, T.client, NULL, 4096, GEX_MK_HOST, 0) == GASNET_OK);
  CHECK(gex_EP_BindSegment(e, s2, 0) == GASNET_ERR_BAD_ARG); /* a second binding */
  gex_Segment_Destroy(s2, 0);
  gex_System_SetVerboseErrors(1);
}

/* The segment queries through the pair to index k. */
static void check_queries(unsigned k, gex_TM_t pair) {
  CHECK(gex_TM_QuerySize(pair) == T.size);
  CHECK(gex_TM_QueryRank(pair) == T.rank);
  for (gex_Rank_t r = 0; r < T.size; r++) {
    void *owner = NULL, *local = NULL;
    uintptr_t sz = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(pair, r, &owner, &local, &sz, 0));
    uintptr_t want = seg_len(T.size, r, k);
    if (k == 2) want = (want + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1);
    CHECKF(sz == want, "index %u rank %u: size %zu, want %zu", k, (unsigned)r, (size_t)sz,
           (size_t)want);
    if (r == T.rank) CHECK(owner == mem[k] && local == mem[k]);
    gex_EP_Location_t loc = gex_TM_TranslateRankToEP(pair, r, 0);
    CHECK(loc.gex_rank == r && loc.gex_ep_index == k);
  }
}

/* Rank me writes three parts of its region of every peer's segment k: 8
 * bytes (NBI), 1000 bytes (NB, with a local-completion event), 2 pages + 5
 * (blocking), from the primordial endpoint or from endpoint 1. */
static const size_t part_off[3] = {0, 64, 1100}, part_len[3] = {8, 1000, 2 * 4096 + 5};

static void put_all(unsigned k, gex_TM_t pair) {
  unsigned char *src = malloc(SLOT);
  CHECK(src);
  for (gex_Rank_t i = 0; i < T.size; i++) {
    gex_Rank_t r = (T.rank + i) % T.size;
    unsigned char *base = (unsigned char *)peer_addr(pair, r) + region(T.rank);
    for (int part = 0; part < 3; part++) {
      unsigned char *s = src + part_off[part];
      test_fill(s, part_len[part], seed(T.rank, r, k, part));
      void *d = base + part_off[part];
      if (part == 0) {
        CHECK(gex_RMA_PutNBI(pair, r, d, s, part_len[0], GEX_EVENT_NOW, 0) == 0);
      } else if (part == 1) {
        gex_Event_t lc = GEX_EVENT_INVALID;
        gex_Event_t e = gex_RMA_PutNB(pair, r, d, s, part_len[1], &lc, 0);
        gex_Event_Wait(lc);
        memset(s, 0, part_len[1]); /* reusable once locally complete */
        gex_Event_Wait(e);
      } else {
        CHECK(gex_RMA_PutBlocking(pair, r, d, s, part_len[2], 0) == 0);
      }
    }
  }
  gex_NBI_Wait(GEX_EC_ALL, 0);
  free(src);
}

static void check_mine(unsigned k) {
  for (gex_Rank_t w = 0; w < T.size; w++) {
    unsigned char *base = (unsigned char *)mem[k] + region(w);
    for (int part = 0; part < 3; part++)
      CHECK_PATTERN(base + part_off[part], part_len[part], seed(w, T.rank, k, part));
    CHECK(test_verify_byte(base + 8, part_off[1] - 8, 0xEE) < 0); /* nothing between */
  }
}

/* Read back, from rank r, the region rank (r+1)%n wrote there. */
static void get_all(unsigned k, gex_TM_t pair) {
  unsigned char *dst = malloc(SLOT);
  CHECK(dst);
  for (gex_Rank_t i = 0; i < T.size; i++) {
    gex_Rank_t r = (T.rank + i) % T.size, w = (r + 1) % T.size;
    unsigned char *base = (unsigned char *)peer_addr(pair, r) + region(w);
    memset(dst, 0, SLOT);
    CHECK(gex_RMA_GetNBI(pair, dst, r, base, part_len[0], 0) == 0);
    gex_NBI_Wait(GEX_EC_GET, 0);
    gex_Event_Wait(gex_RMA_GetNB(pair, dst + part_off[1], r, base + part_off[1], part_len[1], 0));
    CHECK(gex_RMA_GetBlocking(pair, dst + part_off[2], r, base + part_off[2], part_len[2], 0) ==
          0);
    for (int part = 0; part < 3; part++)
      CHECK_PATTERN(dst + part_off[part], part_len[part], seed(w, r, k, part));
  }
  free(dst);
}

/* PIPE NBI Puts in flight at once into my region at my right neighbour,
 * one wait, then PIPE NB Gets of the same in flight at once, one wait for
 * all: every byte lands and comes back (over the network they travel as
 * the primordial endpoint's do, not one at a time).  Then the owner
 * checks its memory. */
enum { PIPE = 16, PIPE_LEN = 512 };
static void pipelined(unsigned k, gex_TM_t pair) {
  gex_Rank_t r = (T.rank + 1) % T.size;
  unsigned char *base = (unsigned char *)peer_addr(pair, r) + region(T.rank);
  unsigned char *src = malloc(PIPE * PIPE_LEN), *back = calloc(PIPE, PIPE_LEN);
  CHECK(src && back);
  for (int i = 0; i < PIPE; i++) test_fill(src + i * PIPE_LEN, PIPE_LEN, seed(T.rank, r, k, 20 + i));
  for (int i = 0; i < PIPE; i++)
    CHECK(gex_RMA_PutNBI(pair, r, base + i * PIPE_LEN, src + i * PIPE_LEN, PIPE_LEN, GEX_EVENT_NOW,
                         0) == 0);
  gex_NBI_Wait(GEX_EC_PUT, 0);
  gex_Event_t ev[PIPE];
  for (int i = 0; i < PIPE; i++)
    ev[i] = gex_RMA_GetNB(pair, back + i * PIPE_LEN, r, base + i * PIPE_LEN, PIPE_LEN, 0);
  gex_Event_WaitAll(ev, PIPE, 0);
  CHECK(memcmp(back, src, PIPE * PIPE_LEN) == 0);
  test_barrier();
  gex_Rank_t w = (T.rank + T.size - 1) % T.size;
  for (int i = 0; i < PIPE; i++)
    CHECK_PATTERN((unsigned char *)mem[k] + region(w) + i * PIPE_LEN, PIPE_LEN, seed(w, T.rank, k, 20 + i));
  free(src);
  free(back);
}

/* A vector Put of two pieces into the last 64 bytes of my region at my
 * right neighbour. */
static void vis_put(unsigned k, gex_TM_t pair) {
  gex_Rank_t r = (T.rank + 1) % T.size;
  unsigned char *tail = (unsigned char *)peer_addr(pair, r) + region(T.rank) + SLOT - 64;
  unsigned char a[20], b[30];
  test_fill(a, sizeof a, seed(T.rank, r, k, 10));
  test_fill(b, sizeof b, seed(T.rank, r, k, 11));
  gex_Memvec_t dst[2] = {{tail, sizeof a}, {tail + 32, sizeof b}};
  gex_Memvec_t src[2] = {{a, sizeof a}, {b, sizeof b}};
  CHECK(gex_VIS_VectorPutBlocking(pair, r, 2, dst, 2, src, 0) == 0);
}

static void check_vis(unsigned k) {
  gex_Rank_t w = (T.rank + T.size - 1) % T.size;
  unsigned char *tail = (unsigned char *)mem[k] + region(w) + SLOT - 64;
  CHECK_PATTERN(tail, 20, seed(w, T.rank, k, 10));
  CHECK_PATTERN(tail + 32, 30, seed(w, T.rank, k, 11));
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "t_ep_multi", 65536, handlers, 2);
  CHECK(gex_EP_QueryIndex(T.ep) == 0);
  for (unsigned k = 1; k <= NEP; k++) make_endpoint(k);
  CHECK(gex_EP_PublishBoundSegment(T.tm, &ep[1], NEP, 0) == GASNET_OK);
  /* Odd ranks publish one more endpoint, even ranks none, in one call. */
  const int odd = T.rank % 2;
  if (odd) make_endpoint(NEP + 1);
  CHECK(gex_EP_PublishBoundSegment(T.tm, odd ? &ep[NEP + 1] : NULL, (size_t)odd, 0) ==
        GASNET_OK);
  test_barrier();

  for (unsigned k = 1; k <= NEP; k++) {
    gex_TM_t pair = gex_TM_Pair(T.ep, (gex_EP_Index_t)k);
    CHECK(pair == gex_TM_Pair(T.ep, (gex_EP_Index_t)k));
    CHECK(gex_TM_QueryEP(pair) == T.ep);
    check_queries(k, pair);
    /* Puts from endpoint 1 into index 2: the local endpoint does not matter. */
    gex_TM_t from = k == 2 ? gex_TM_Pair(ep[1], 2) : pair;
    CHECK(gex_TM_QueryEP(from) == (k == 2 ? ep[1] : T.ep));
    put_all(k, from);
    vis_put(k, pair);
    am_long_send(k, pair);
    GASNET_BLOCKUNTIL(atomic_load(&long_hits) == (int)k);
    test_barrier();
    check_mine(k);
    check_vis(k);
    get_all(k, pair);
    test_barrier();
    pipelined(k, pair);
  }
  /* The extra endpoint: known only for odd ranks. */
  gex_TM_t extra = gex_TM_Pair(T.ep, NEP + 1);
  for (gex_Rank_t r = 0; r < T.size; r++) {
    uintptr_t sz = 1;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(extra, r, NULL, NULL, &sz, 0));
    CHECKF((sz != 0) == (r % 2 == 1), "rank %u: index %d size %zu", (unsigned)r, NEP + 1,
           (size_t)sz);
  }
  if (T.size > 1) { /* rank 0 writes 8 bytes to rank 1's extra endpoint */
    if (T.rank == 0) {
      uint64_t v = 0x5eed0000 + NEP;
      CHECK(gex_RMA_PutBlocking(extra, 1, peer_addr(extra, 1), &v, 8, 0) == 0);
    }
    test_barrier();
    if (T.rank == 1) {
      uint64_t v;
      memcpy(&v, mem[NEP + 1], 8);
      CHECKF(v == 0x5eed0000 + NEP, "extra endpoint got 0x%llx", (unsigned long long)v);
    }
  }
  /* The primordial segment is still reached through the index-0 pairs. */
  gex_Rank_t right = (T.rank + 1) % T.size;
  uint64_t v = 0xA0 + T.rank;
  CHECK(gex_RMA_PutBlocking(gex_TM_Pair(ep[2], 0), right, T.peer_seg[right], &v, 8, 0) == 0);
  /* An AM through a pair to index 1 reaches the target process's handler. */
  CHECK(gex_AM_RequestShort1(gex_TM_Pair(ep[1], 1), right, handlers[0].gex_index, 0,
                             (gex_AM_Arg_t)T.rank) == 0);
  GASNET_BLOCKUNTIL(atomic_load(&am_hits) == 1);
  test_barrier();
  memcpy(&v, T.seg_base, 8);
  CHECK(v == 0xA0 + (T.rank + T.size - 1) % T.size);

  /* One segment bound to a second endpoint too, as the reference allows
   * (its testsegment does it): published, reached through that index. */
  gex_EP_t again, spare;
  if (!odd) /* even ranks lack the extra endpoint: 'again' gets one index everywhere */
    CHECK(gex_EP_Create(&spare, T.client, GEX_EP_CAPABILITY_RMA, 0) == GASNET_OK);
  CHECK(gex_EP_Create(&again, T.client, GEX_EP_CAPABILITY_RMA, 0) == GASNET_OK);
  CHECK(gex_EP_QueryIndex(again) == NEP + 2);
  CHECK(gex_EP_BindSegment(again, gex_EP_QuerySegment(ep[1]), 0) == GASNET_OK);
  CHECK(gex_EP_PublishBoundSegment(T.tm, &again, 1, 0) == GASNET_OK);
  {
    gex_EP_Index_t ka = gex_EP_QueryIndex(again);
    gex_TM_t pair = gex_TM_Pair(T.ep, ka);
    uint64_t w = 0xB0 + T.rank, got = 0;
    unsigned char *there = (unsigned char *)peer_addr(pair, right) + region(T.rank) + SLOT - 8;
    CHECK(there == (unsigned char *)peer_addr(gex_TM_Pair(T.ep, 1), right) + region(T.rank) + SLOT - 8);
    CHECK(gex_RMA_PutBlocking(pair, right, there, &w, 8, 0) == 0);
    CHECK(gex_RMA_GetBlocking(gex_TM_Pair(T.ep, 1), &got, right, there, 8, 0) == 0);
    CHECK(got == w);
  }
  test_barrier();

  /* Up to GASNET_MAXEPS endpoints, then GASNET_ERR_RESOURCE. */
  unsigned have = 3 + NEP;
  for (; have < GASNET_MAXEPS; have++) {
    gex_EP_t e;
    CHECK(gex_EP_Create(&e, T.client, GEX_EP_CAPABILITY_RMA, 0) == GASNET_OK);
    CHECK(gex_EP_QueryIndex(e) == have);
  }
  gex_System_SetVerboseErrors(0);
  gex_EP_t e = GEX_EP_INVALID;
  CHECK(gex_EP_Create(&e, T.client, GEX_EP_CAPABILITY_RMA, 0) == GASNET_ERR_RESOURCE);
  CHECK(e == GEX_EP_INVALID);
  test_finish();
}

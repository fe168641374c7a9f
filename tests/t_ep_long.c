/* t_ep_long -- AM Longs into the segments of endpoints of index k > 0, as
 * the reference's testtmpair sends them: through gex_TM_Pair(ep[k], k),
 * the Request's payload lands in the target's segment of index k, and the
 * handler's Reply Long lands in the requester's segment of index k.
 *
 * Each rank makes two endpoints: index 1 with a segment of client memory
 * (a neighbour reaches it through the kernel), index 2 with one libgex
 * allocates (neighbours map it); both are published.  For each index and
 * for payloads of 8 bytes, a few KiB and 40000 bytes (past the network
 * transports' in-buffer and packed sizes), each rank sends its right
 * neighbour, through the pair:
 *   part 0: a fixed-payload Long Request; its handler answers with a
 *           fixed-payload Long Reply (part 2);
 *   part 1: a negotiated-payload Long Request (GASNet's buffer, dest given
 *           at Commit); its handler answers with a negotiated-payload Long
 *           Reply (part 3).
 * Every handler checks where its payload landed and every byte of it; at
 * the end each rank checks every region of its own segments again.  A
 * Reply Long into the requester's primordial segment, from a handler of a
 * Request that came through a pair, is checked too.
 */
#include "test_util.h"

enum { NEP = 2, NSIZE = 3, PART = 40000, SLOT = 4 * PART + 64 };
static const size_t sizes[NSIZE] = {8, 3000, PART};

static gex_EP_t ep[NEP + 1];
static unsigned char *mem[NEP + 1];          /* [k]: my segment of index k */
static unsigned char **base[NEP + 1];        /* [k][r]: rank r's segment of index k */
static _Atomic int req_hits, rep_hits;
static _Alignas(8) unsigned char reply_src[PART];

/* Where writer w's part p lands in an owner's segment of index k. */
static uintptr_t where(gex_Rank_t w, int part) { return (uintptr_t)w * SLOT + (uintptr_t)part * PART; }
static uint64_t seed(gex_Rank_t writer, gex_Rank_t owner, unsigned k, int part, size_t n) {
  return test_seed(writer, owner, k * 16 + (unsigned)part, n);
}

static gex_AM_Index_t h_req, h_rep, h_rep0;

/* A Request of part 0 or 1 from rank w: check it, reply with part 2 or 3
 * into w's segment of the same index (or, k = 0 in the arguments, into
 * w's primordial segment). */
static void req_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t k, gex_AM_Arg_t part) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  const gex_Rank_t w = info.gex_srcrank;
  CHECK(k >= 1 && k <= NEP && (part == 0 || part == 1));
  CHECKF(buf == mem[k] + where(w, part), "index %d part %d from rank %u: payload at %p, want %p",
         (int)k, (int)part, (unsigned)w, buf, (void *)(mem[k] + where(w, part)));
  CHECK_PATTERN(buf, nbytes, seed(w, T.rank, (unsigned)k, part, nbytes));
  atomic_fetch_add(&req_hits, 1);
  const int rpart = part + 2;
  unsigned char *dest = base[k][w] + where(T.rank, rpart);
  if (part == 0) {
    test_fill(reply_src, nbytes, seed(T.rank, w, (unsigned)k, rpart, nbytes));
    CHECK(gex_AM_ReplyLong2(t, h_rep, reply_src, nbytes, dest, GEX_EVENT_NOW, 0, k, rpart) == 0);
  } else {
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyLong(t, NULL, nbytes, nbytes, NULL, NULL, 0, 2);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) >= nbytes);
    test_fill(gex_AM_SrcDescAddr(sd), nbytes, seed(T.rank, w, (unsigned)k, rpart, nbytes));
    gex_AM_CommitReplyLong2(sd, h_rep, nbytes, dest, k, rpart);
  }
}

/* A Reply of part 2 or 3 from rank o into my segment of index k. */
static void rep_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t k, gex_AM_Arg_t part) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  const gex_Rank_t o = info.gex_srcrank;
  CHECKF(buf == mem[k] + where(o, part), "index %d part %d reply from rank %u: payload at %p",
         (int)k, (int)part, (unsigned)o, buf);
  CHECK_PATTERN(buf, nbytes, seed(o, T.rank, (unsigned)k, part, nbytes));
  atomic_fetch_add(&rep_hits, 1);
}

/* A Short Request through a pair whose handler replies into my primordial
 * segment. */
static void req_to_seg0(gex_Token_t t, gex_AM_Arg_t unused) {
  (void)unused;
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  unsigned char v[64];
  test_fill(v, sizeof v, seed(T.rank, info.gex_srcrank, 0, 9, sizeof v));
  CHECK(gex_AM_ReplyLong0(t, h_rep0, v, sizeof v, test_peer_addr(info.gex_srcrank, 0),
                          GEX_EVENT_NOW, 0) == 0);
}
static void rep_to_seg0(gex_Token_t t, void *buf, size_t nbytes) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  CHECK(buf == T.seg_base && nbytes == 64);
  CHECK_PATTERN(buf, nbytes, seed(info.gex_srcrank, T.rank, 0, 9, nbytes));
  atomic_fetch_add(&rep_hits, 1);
}

static gex_AM_Entry_t handlers[] = {
    {0, (gex_AM_Fn_t)req_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "req_long"},
    {0, (gex_AM_Fn_t)rep_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, NULL, "rep_long"},
    {0, (gex_AM_Fn_t)req_to_seg0, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "req_to_seg0"},
    {0, (gex_AM_Fn_t)rep_to_seg0, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 0, NULL, "rep_to_seg0"}};

static void make_endpoint(unsigned k) {
  CHECK(gex_EP_Create(&ep[k], T.client, GEX_EP_CAPABILITY_ALL, 0) == GASNET_OK);
  CHECK(gex_EP_QueryIndex(ep[k]) == k);
  const uintptr_t len = (uintptr_t)T.size * SLOT;
  gex_Segment_t s = GEX_SEGMENT_INVALID;
  if (k == 2) { /* memory libgex allocates: neighbours map it */
    CHECK(gex_Segment_Create(&s, T.client, NULL, len, GEX_MK_HOST, 0) == GASNET_OK);
    mem[k] = gex_Segment_QueryAddr(s);
  } else { /* client memory */
    mem[k] = malloc(len);
    CHECK(mem[k]);
    CHECK(gex_Segment_Create(&s, T.client, mem[k], len, GEX_MK_HOST, 0) == GASNET_OK);
  }
  memset(mem[k], 0xEE, len);
  CHECK(gex_EP_BindSegment(ep[k], s, 0) == GASNET_OK);
}

static void send_long(unsigned k, gex_TM_t pair, gex_Rank_t r, int part, size_t n) {
  unsigned char *dest = base[k][r] + where(T.rank, part);
  const uint64_t s = seed(T.rank, r, k, part, n);
  if (part == 0) {
    static unsigned char src[PART];
    test_fill(src, n, s);
    CHECK(gex_AM_RequestLong2(pair, r, h_req, src, n, dest, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)k,
                              part) == 0);
    return;
  }
  gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestLong(pair, r, NULL, n, n, NULL, NULL, 0, 2);
  CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) >= n);
  test_fill(gex_AM_SrcDescAddr(sd), n, s);
  gex_AM_CommitRequestLong2(sd, h_req, n, dest, (gex_AM_Arg_t)k, part);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "t_ep_long", 65536, handlers, 4);
  h_req = handlers[0].gex_index;
  h_rep = handlers[1].gex_index;
  h_rep0 = handlers[3].gex_index;
  for (unsigned k = 1; k <= NEP; k++) make_endpoint(k);
  CHECK(gex_EP_PublishBoundSegment(T.tm, &ep[1], NEP, 0) == GASNET_OK);
  for (unsigned k = 1; k <= NEP; k++) {
    base[k] = calloc(T.size, sizeof *base[k]);
    CHECK(base[k]);
    for (gex_Rank_t r = 0; r < T.size; r++) {
      void *a = NULL;
      gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(ep[k], (gex_EP_Index_t)k), r, &a,
                                                NULL, NULL, 0));
      CHECK(a);
      base[k][r] = a;
    }
  }
  test_barrier();

  const gex_Rank_t right = (T.rank + 1) % T.size, left = (T.rank + T.size - 1) % T.size;
  int sent = 0;
  for (unsigned k = 1; k <= NEP; k++) {
    gex_TM_t pair = gex_TM_Pair(ep[k], (gex_EP_Index_t)k);
    for (int i = 0; i < NSIZE; i++) {
      for (int part = 0; part < 2; part++) {
        send_long(k, pair, right, part, sizes[i]);
        sent++;
        GASNET_BLOCKUNTIL(atomic_load(&rep_hits) == sent); /* (the replies reuse the regions) */
      }
      test_barrier();
    }
    /* What stays after the largest size: every byte of every region. */
    for (int part = 0; part < 4; part++) {
      const gex_Rank_t w = part < 2 ? left : right;
      CHECK_PATTERN(mem[k] + where(w, part), PART, seed(w, T.rank, k, part, PART));
    }
  }
  CHECK(atomic_load(&req_hits) == sent);
  /* A Reply Long into the primordial segment, for a Request through a pair. */
  CHECK(gex_AM_RequestShort1(gex_TM_Pair(ep[1], 1), right, handlers[2].gex_index, 0, 0) == 0);
  GASNET_BLOCKUNTIL(atomic_load(&rep_hits) == sent + 1);
  test_barrier();
  test_finish();
}

/* t_flags.c -- every flag the specification allows for a call is accepted
 * by it, and the call works (checked builds reject the bits a call does not
 * define; this test guards against rejecting one a client may pass).
 *
 *   gex_Client_Init      GEX_FLAG_USES_GASNET1
 *   RMA Put/Get (Blocking, NB, NBI, Val), AM Request/Reply Short, Medium,
 *   Long: each of IMMEDIATE, LC_COPY_{YES,NO}, {SELF,PEER}_SEG_{UNKNOWN,SOME,
 *   BOUND}, PEER_NEVER_SELF (to other ranks), PEER_NEVER_NBRHD (to ranks
 *   outside the neighbourhood); an IMMEDIATE call that declines is retried
 *   without the flag
 *   AM Max* queries: AM_PREPARE_LEAST_{CLIENT,ALLOC}; Prepare with them,
 *   Commit_v2 with IMMEDIATE
 *   gex_EP_QueryBoundSegmentNB: IMMEDIATE
 *   gex_Coll_BroadcastNB / ReduceToAllNB: the segment disposition flags
 *   gex_TM_Split: TM_SCRATCH_SIZE_RECOMMENDED (a query), TM_NO_SCRATCH;
 *   gex_TM_Destroy: GLOBALLY_QUIESCED
 * Every byte moved is checked; every AM is counted at its target.
 */
#include "test_util.h"

#include <gasnet_coll.h>

enum { H_SHORT = GEX_AM_INDEX_BASE + 1, H_MEDIUM, H_LONG, H_REPLY };
enum { SLOT = 8, MAXF = 16 };

static atomic_uint got_short, got_medium, got_long, got_reply;

static void h_short(gex_Token_t t, gex_AM_Arg_t f) {
  atomic_fetch_add(&got_short, 1);
  gex_Flags_t fl = (gex_Flags_t)f;
  while (gex_AM_ReplyShort1(t, H_REPLY, fl, f)) fl &= ~GEX_FLAG_IMMEDIATE; /* declined: again */
}
static void h_medium(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed) {
  (void)t;
  CHECKF(test_verify(buf, n, (uint32_t)seed) < 0, "Medium payload wrong");
  atomic_fetch_add(&got_medium, 1);
}
static void h_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed) {
  (void)t;
  CHECKF(test_verify(buf, n, (uint32_t)seed) < 0, "Long payload wrong");
  atomic_fetch_add(&got_long, 1);
}
static void h_reply(gex_Token_t t, gex_AM_Arg_t f) {
  (void)t;
  (void)f;
  atomic_fetch_add(&got_reply, 1);
}

/* The point-to-point flags that make a true statement about peer p. */
static size_t p2p_flags(gex_Rank_t p, int in_nbrhd, gex_Flags_t *out) {
  static const gex_Flags_t any[] = {
      0, GEX_FLAG_IMMEDIATE, GEX_FLAG_LC_COPY_YES, GEX_FLAG_LC_COPY_NO,
      GEX_FLAG_SELF_SEG_UNKNOWN, GEX_FLAG_SELF_SEG_SOME, GEX_FLAG_PEER_SEG_UNKNOWN,
      GEX_FLAG_PEER_SEG_SOME, GEX_FLAG_PEER_SEG_BOUND,
      GEX_FLAG_IMMEDIATE | GEX_FLAG_LC_COPY_NO | GEX_FLAG_PEER_SEG_BOUND};
  size_t n = 0;
  for (size_t i = 0; i < sizeof any / sizeof any[0]; i++) out[n++] = any[i];
  if (p != T.rank) out[n++] = GEX_FLAG_PEER_NEVER_SELF;
  if (!in_nbrhd) out[n++] = GEX_FLAG_PEER_NEVER_NBRHD | GEX_FLAG_PEER_NEVER_SELF;
  return n;
}

int main(int argc, char **argv) {
  gex_AM_Entry_t tab[] = {
      {H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "short"},
      {H_MEDIUM, (gex_AM_Fn_t)h_medium, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "med"},
      {H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "long"},
      {H_REPLY, (gex_AM_Fn_t)h_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "reply"}};
  const size_t per_rank = (size_t)MAXF * 4 * SLOT; /* each source rank's area */
  const size_t long_area = (size_t)MAXF * 512; /* a Long destination per flag */
  test_init_flags(&argc, &argv, "T_FLAGS", 256 * per_rank + 256 * long_area + 4096, tab, 4,
                  GEX_FLAG_USES_GASNET1);
  CHECK(gex_Client_QueryFlags(T.client) & GEX_FLAG_USES_GASNET1);
  const gex_Rank_t me = T.rank, n = T.size;
  CHECK(n <= 256);
  gex_RankInfo_t *nb = NULL;
  gex_Rank_t nb_n = 0;
  gex_System_QueryNbrhdInfo(&nb, &nb_n, NULL);

  unsigned sent_short = 0, sent_medium = 0, sent_long = 0;
  unsigned char src[SLOT], back[SLOT], med[512];
  for (gex_Rank_t i = 0; i < n; i++) {
    const gex_Rank_t p = (me + i) % n;
    int in_nbrhd = 0;
    for (gex_Rank_t k = 0; k < nb_n; k++) in_nbrhd |= nb[k].gex_jobrank == p;
    gex_Flags_t fl[MAXF];
    const size_t nf = p2p_flags(p, in_nbrhd, fl);
    unsigned char *area = T.peer_seg[p] + (size_t)me * per_rank;
    for (size_t k = 0; k < nf; k++) {
      const gex_Flags_t f = fl[k], nof = f & ~GEX_FLAG_IMMEDIATE;
      const uint32_t seed = ((uint32_t)me << 20) ^ ((uint32_t)p << 8) ^ (uint32_t)k; /* an AM argument */
      unsigned char *d = area + k * 4 * SLOT;
      /* Blocking */
      test_fill(src, SLOT, seed);
      if (gex_RMA_PutBlocking(T.tm, p, d, src, SLOT, f)) CHECK(!gex_RMA_PutBlocking(T.tm, p, d, src, SLOT, nof));
      memset(back, 0, SLOT);
      if (gex_RMA_GetBlocking(T.tm, back, p, d, SLOT, f)) CHECK(!gex_RMA_GetBlocking(T.tm, back, p, d, SLOT, nof));
      CHECKF(!memcmp(back, src, SLOT), "Blocking Put/Get to rank %u, flags 0x%x", p, f);
      /* NB with an lc event */
      test_fill(src, SLOT, seed + 1);
      gex_Event_t lc = GEX_EVENT_NO_OP;
      gex_Event_t e = gex_RMA_PutNB(T.tm, p, d + SLOT, src, SLOT, &lc, f);
      if (e == GEX_EVENT_NO_OP) e = gex_RMA_PutNB(T.tm, p, d + SLOT, src, SLOT, &lc, nof);
      gex_Event_Wait(lc);
      gex_Event_Wait(e);
      memset(back, 0, SLOT);
      e = gex_RMA_GetNB(T.tm, back, p, d + SLOT, SLOT, f);
      if (e == GEX_EVENT_NO_OP) e = gex_RMA_GetNB(T.tm, back, p, d + SLOT, SLOT, nof);
      gex_Event_Wait(e);
      CHECKF(!memcmp(back, src, SLOT), "NB Put/Get to rank %u, flags 0x%x", p, f);
      /* NBI and Val */
      test_fill(src, SLOT, seed + 2);
      if (gex_RMA_PutNBI(T.tm, p, d + 2 * SLOT, src, SLOT, GEX_EVENT_NOW, f))
        CHECK(!gex_RMA_PutNBI(T.tm, p, d + 2 * SLOT, src, SLOT, GEX_EVENT_NOW, nof));
      gex_NBI_Wait(GEX_EC_PUT, 0);
      memset(back, 0, SLOT);
      if (gex_RMA_GetNBI(T.tm, back, p, d + 2 * SLOT, SLOT, f))
        CHECK(!gex_RMA_GetNBI(T.tm, back, p, d + 2 * SLOT, SLOT, nof));
      gex_NBI_Wait(GEX_EC_GET, 0);
      CHECKF(!memcmp(back, src, SLOT), "NBI Put/Get to rank %u, flags 0x%x", p, f);
      const gex_RMA_Value_t v = (gex_RMA_Value_t)seed * 2654435761u;
      if (gex_RMA_PutBlockingVal(T.tm, p, d + 3 * SLOT, v, 8, f))
        CHECK(!gex_RMA_PutBlockingVal(T.tm, p, d + 3 * SLOT, v, 8, nof));
      CHECKF(gex_RMA_GetBlockingVal(T.tm, p, d + 3 * SLOT, 8, nof) == v, "Val to rank %u, flags 0x%x", p, f);
      /* AMs */
      while (gex_AM_RequestShort1(T.tm, p, H_SHORT, f, (gex_AM_Arg_t)f)) gasnet_AMPoll();
      sent_short++;
      test_fill(med, sizeof med, seed + 3);
      while (gex_AM_RequestMedium1(T.tm, p, H_MEDIUM, med, sizeof med, GEX_EVENT_NOW, f,
                                   (gex_AM_Arg_t)(seed + 3)))
        gasnet_AMPoll();
      sent_medium++;
      unsigned char *ld = T.peer_seg[p] + 256 * per_rank + (size_t)me * long_area + k * sizeof med;
      while (gex_AM_RequestLong1(T.tm, p, H_LONG, med, sizeof med, ld, GEX_EVENT_NOW, f,
                                 (gex_AM_Arg_t)(seed + 3)))
        gasnet_AMPoll();
      sent_long++;
    }
    /* Queries and negotiated payloads: the LEAST_* flags. */
    const gex_Flags_t least[] = {GEX_FLAG_AM_PREPARE_LEAST_CLIENT, GEX_FLAG_AM_PREPARE_LEAST_ALLOC};
    for (int k = 0; k < 2; k++) {
      CHECK(gex_AM_MaxRequestMedium(T.tm, p, GEX_EVENT_NOW, least[k], 1) >= sizeof med);
      CHECK(gex_AM_MaxRequestLong(T.tm, p, GEX_EVENT_NOW, least[k], 1) >= sizeof med);
      CHECK(gex_AM_MaxReplyMedium(T.tm, p, GEX_EVENT_NOW, least[k], 1) >= 1);
      CHECK(gex_AM_MaxReplyLong(T.tm, p, GEX_EVENT_NOW, least[k], 1) >= 1);
      const uint32_t seed = ((uint32_t)me << 20) ^ ((uint32_t)p << 8) ^ (uint32_t)(100 + k);
      gex_AM_SrcDesc_t sd =
          gex_AM_PrepareRequestMedium(T.tm, p, NULL, sizeof med, sizeof med, NULL, least[k], 1);
      CHECK(sd != GEX_AM_SRCDESC_NO_OP);
      test_fill(gex_AM_SrcDescAddr(sd), sizeof med, seed);
      while (gex_AM_CommitRequestMedium1_v2(sd, H_MEDIUM, sizeof med, GEX_FLAG_IMMEDIATE,
                                            (gex_AM_Arg_t)seed))
        gasnet_AMPoll();
      sent_medium++;
    }
    void *owner = NULL;
    uintptr_t size = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(T.tm, p, &owner, NULL, &size, GEX_FLAG_IMMEDIATE));
    CHECK(owner == T.peer_seg[p] && size == T.peer_size[p]);
  }

  /* Every AM of every rank arrived: count them all (sum over the job). */
  uint64_t mine[3] = {sent_short, sent_medium, sent_long}, sum[3] = {0, 0, 0};
  gex_Event_Wait(gex_Coll_ReduceToAllNB(T.tm, sum, mine, GEX_DT_U64, 8, 3, GEX_OP_ADD, NULL, NULL,
                                        GEX_FLAG_SELF_SEG_SOME));
  uint64_t got[3] = {0, 0, 0};
  GASNET_BLOCKUNTIL(atomic_load(&got_reply) == sent_short);
  test_barrier();
  uint64_t have[3] = {atomic_load(&got_short), atomic_load(&got_medium), atomic_load(&got_long)};
  gex_Event_Wait(gex_Coll_ReduceToAllNB(T.tm, got, have, GEX_DT_U64, 8, 3, GEX_OP_ADD, NULL, NULL,
                                        GEX_FLAG_PEER_SEG_BOUND | GEX_FLAG_SELF_SEG_BOUND));
  CHECKF(!memcmp(got, sum, sizeof got), "AMs sent %llu/%llu/%llu, received %llu/%llu/%llu",
         (unsigned long long)sum[0], (unsigned long long)sum[1], (unsigned long long)sum[2],
         (unsigned long long)got[0], (unsigned long long)got[1], (unsigned long long)got[2]);

  /* Collectives and teams. */
  uint64_t word = me == 0 ? 0x5eed5eedULL : 0;
  gex_Event_Wait(gex_Coll_BroadcastNB(T.tm, 0, &word, &word, 8, GEX_FLAG_PEER_SEG_UNKNOWN));
  CHECK(word == 0x5eed5eedULL);
  const size_t rec = gex_TM_Split(NULL, T.tm, 0, (int)me, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
  (void)rec;
  gex_TM_t half;
  gex_TM_Split(&half, T.tm, (int)(me % 2), (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  gex_Event_Wait(gex_Coll_BarrierNB(half, 0));
  gex_Memvec_t scratch;
  CHECK(gex_TM_Destroy(half, &scratch, GEX_FLAG_GLOBALLY_QUIESCED) == 0); /* no scratch */
  test_finish();
}

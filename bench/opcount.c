/* opcount.c -- the program behind bench/opcount.sh: loops whose instruction
 * counts tell the cost of one libgex operation.
 *
 * Run as a 2-rank job.  Rank 0 runs each measured loop once, each in its own
 * non-inlined function named loop_* so that callgrind can count the
 * instructions executed inside it (--toggle-collect='loop_*'); rank 1 sits in
 * a polling loop serving the AMs until rank 0 tells it to stop.  The script
 * runs the job twice with different iteration counts and divides the
 * difference by the difference in iterations, which cancels everything that
 * happens once per loop.
 *
 *   opcount [--iters N]   run every loop N times (default 1000)
 *   opcount --smoke       run every loop a few times, check the data and the
 *                         AM count, print PASS (a quick test without valgrind)
 *
 * The operations (peer = the other rank, on the same node):
 *   putnbi   gex_RMA_PutNBI, 8 bytes, to the peer's segment
 *   getnbi   gex_RMA_GetNBI, 8 bytes, from the peer's segment
 *   amshort  gex_AM_RequestShort0 to the peer (an empty handler)
 *   amburst  the same in bursts of AMBURST, each followed (outside the
 *            measured function) by a round trip to the peer that waits until
 *            it has handled the burst and returned the flow-control credit:
 *            the send path alone, without the polls a sender makes while a
 *            long flood waits for credit (see bench/opcount.sh)
 *   legput   gasnet_put_nbi (GASNet-1, gasnet.h), 8 bytes, to the peer's segment
 *   nbiwait  gex_NBI_Wait(GEX_EC_ALL, 0) with nothing outstanding
 *   ampoll   gasnet_AMPoll with nothing arrived
 *   empty    nothing: the loop's own overhead, included in every figure
 */
#include <gasnet.h>
#include <gasnet_ratomic.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keep each loop a separate, uncloned function with its plain name, so that
 * the name callgrind sees is exactly loop_<op>. */
#if defined(__clang__)
#define MEASURED __attribute__((noinline, used))
#else
#define MEASURED __attribute__((noipa, used))
#endif

enum { H_NOOP = GEX_AM_INDEX_BASE, H_STOP, H_PING, H_PONG };
/* AMs per burst: within the smallest flow-control window of the network
 * transport (16 messages per peer and channel, transport/ofi/ofi_am.c). */
#define AMBURST 16

static volatile uint32_t noops_seen, stop_at = UINT32_MAX, pongs;

static void noop_handler(gex_Token_t token) {
  (void)token;
  noops_seen++;
}
static void stop_handler(gex_Token_t token, gex_AM_Arg_t expected) {
  (void)token;
  stop_at = (uint32_t)expected;
}

static void ping_handler(gex_Token_t token) { gex_AM_ReplyShort0(token, H_PONG, 0); }
static void pong_handler(gex_Token_t token) {
  (void)token;
  pongs++;
}

static gex_AM_Entry_t handlers[] = {
    {H_NOOP, (gex_AM_Fn_t)noop_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "noop"},
    {H_STOP, (gex_AM_Fn_t)stop_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "stop"},
    {H_PING, (gex_AM_Fn_t)ping_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "ping"},
    {H_PONG, (gex_AM_Fn_t)pong_handler, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "pong"},
};

/* ---- the measured loops --------------------------------------------------------- */
MEASURED void loop_putnbi(gex_TM_t tm, gex_Rank_t peer, void *dst, const void *src, long iters) {
  for (long i = 0; i < iters; i++) gex_RMA_PutNBI(tm, peer, dst, src, 8, GEX_EVENT_DEFER, 0);
}

/* The GASNet-1 form: the team comes from the GASNet-1 layer's context (one
 * load) instead of an argument. */
MEASURED void loop_legput(gex_Rank_t peer, void *dst, const void *src, long iters) {
  for (long i = 0; i < iters; i++) gasnet_put_nbi(peer, dst, src, 8);
}

MEASURED void loop_getnbi(gex_TM_t tm, gex_Rank_t peer, void *dst, void *src, long iters) {
  for (long i = 0; i < iters; i++) gex_RMA_GetNBI(tm, dst, peer, src, 8, 0);
}

MEASURED void loop_amshort(gex_TM_t tm, gex_Rank_t peer, long iters) {
  for (long i = 0; i < iters; i++) gex_AM_RequestShort0(tm, peer, H_NOOP, 0);
}

MEASURED void loop_amburst(gex_TM_t tm, gex_Rank_t peer, long iters) {
  for (long i = 0; i < iters; i++) gex_AM_RequestShort0(tm, peer, H_NOOP, 0);
}

/* iters / AMBURST bursts; returns the AMs sent. */
static long run_amburst(gex_TM_t tm, gex_Rank_t peer, long iters) {
  long bursts = iters / AMBURST;
  if (bursts < 1) bursts = 1;
  for (long b = 0; b < bursts; b++) {
    loop_amburst(tm, peer, AMBURST);
    uint32_t want = pongs + 1;
    gex_AM_RequestShort0(tm, peer, H_PING, 0);
    GASNET_BLOCKUNTIL(pongs == want);
  }
  return bursts * AMBURST;
}

/* A remote atomic add to the neighbour, relaxed: by team rank, and with
 * GEX_FLAG_RANK_IS_JOBRANK as UPC++ makes every one (the operation and the
 * flags reach the library as values, as they do from UPC++'s code). */
MEASURED void loop_adadd(gex_AD_t ad, gex_Rank_t peer, int64_t *dst, gex_OP_t op,
                         gex_Flags_t flags, long iters) {
  for (long i = 0; i < iters; i++) gex_AD_OpNBI_I64(ad, NULL, peer, dst, op, 1, 0, flags);
}
MEASURED void loop_adjob(gex_AD_t ad, gex_Rank_t peer, int64_t *dst, gex_OP_t op,
                         gex_Flags_t flags, long iters) {
  for (long i = 0; i < iters; i++) gex_AD_OpNBI_I64(ad, NULL, peer, dst, op, 1, 0, flags);
}

MEASURED void loop_nbiwait(long iters) {
  for (long i = 0; i < iters; i++) gex_NBI_Wait(GEX_EC_ALL, 0);
}

/* An empty poll: what a runtime's progress call costs when nothing has
 * arrived (UPC++'s upcxx::progress is mostly this). */
MEASURED void loop_ampoll(long iters) {
  for (long i = 0; i < iters; i++) gasnet_AMPoll();
}

/* The same loop doing nothing: the counter, compare and branch that every
 * figure above includes. */
MEASURED void loop_empty(long iters) {
  for (long i = 0; i < iters; i++) __asm__ volatile("" ::: "memory");
}

static void usage(void) {
  fprintf(stderr, "usage: opcount [--iters N | --smoke]   (run with gexrun -n 2)\n");
  gasnet_exit(2);
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  long iters = 1000;
  int smoke = 0;

  if (gex_Client_Init(&client, &ep, &tm, "OPCOUNT", &argc, &argv, GEX_FLAG_USES_GASNET1) != GASNET_OK) {
    fprintf(stderr, "opcount: gex_Client_Init failed\n");
    return 1;
  }
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--smoke")) {
      smoke = 1;
      iters = 5;
    } else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
      char *end;
      iters = strtol(argv[++i], &end, 10);
      if (*end || iters < 1 || iters > 100000000) usage();
    } else {
      usage();
    }
  }

  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  if (n != 2) {
    if (me == 0) fprintf(stderr, "opcount: run it as a 2-rank job (gexrun -n 2 opcount)\n");
    gasnet_exit(2);
  }
  if (gex_Segment_Attach(&seg, tm, 65536) != GASNET_OK) {
    fprintf(stderr, "opcount: gex_Segment_Attach failed\n");
    gasnet_exit(1);
  }
  if (gex_EP_RegisterHandlers(ep, handlers, sizeof handlers / sizeof handlers[0]) != GASNET_OK) {
    fprintf(stderr, "opcount: gex_EP_RegisterHandlers failed\n");
    gasnet_exit(1);
  }
  gex_Rank_t peer = 1 - me;
  void *peer_seg = NULL;
  uintptr_t peer_size = 0;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, peer, &peer_seg, NULL, &peer_size, 0));
  if (!peer_seg || peer_size < 64) {
    fprintf(stderr, "opcount: rank %u cannot see the peer's segment\n", (unsigned)me);
    gasnet_exit(1);
  }
  uint64_t *mine = gex_Segment_QueryAddr(seg);
  mine[0] = 0x1111111111111111u * (me + 1); /* what the peer's Get reads */
  mine[1] = 0;                                /* where the peer's Put lands */
  mine[2] = 0;                                /* ... and its gasnet_put_nbi */
  mine[3] = 0;                                /* ... and its atomic adds */
  gex_AD_t ad;
  gex_AD_Create(&ad, tm, GEX_DT_I64, GEX_OP_ADD | GEX_OP_GET, 0);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

  int failed = 0;
  if (me == 0) {
    uint64_t src = 0xfeedfacecafebeefu, got = 0;
    loop_putnbi(tm, peer, (uint64_t *)peer_seg + 1, &src, iters);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    loop_legput(peer, (uint64_t *)peer_seg + 2, &src, iters);
    gasnet_wait_syncnbi_puts();
    loop_getnbi(tm, peer, &got, peer_seg, iters);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    loop_amshort(tm, peer, iters);
    long sent = iters + run_amburst(tm, peer, iters);
    loop_adadd(ad, peer, (int64_t *)peer_seg + 3, GEX_OP_ADD, 0, iters);
    loop_adjob(ad, peer, (int64_t *)peer_seg + 3, GEX_OP_ADD, GEX_FLAG_RANK_IS_JOBRANK, iters);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    loop_nbiwait(iters);
    loop_ampoll(iters);
    loop_empty(iters);
    if (got != 0x2222222222222222u) {
      fprintf(stderr, "opcount: GetNBI read %#" PRIx64 "\n", got);
      failed = 1;
    }
    gex_AM_RequestShort1(tm, peer, H_STOP, 0, (gex_AM_Arg_t)sent);
  } else {
    /* Serve rank 0's AMs until it says how many there were and all came. */
    GASNET_BLOCKUNTIL(stop_at != UINT32_MAX && noops_seen >= stop_at);
    if (noops_seen != stop_at) {
      fprintf(stderr, "opcount: rank 1 got %u AMs, expected %u\n", (unsigned)noops_seen,
              (unsigned)stop_at);
      failed = 1;
    }
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (me == 1 && mine[1] != 0xfeedfacecafebeefu) {
    fprintf(stderr, "opcount: PutNBI left %#" PRIx64 " in rank 1's segment\n", mine[1]);
    failed = 1;
  }
  if (me == 1 && mine[2] != 0xfeedfacecafebeefu) {
    fprintf(stderr, "opcount: gasnet_put_nbi left %#" PRIx64 " in rank 1's segment\n", mine[2]);
    failed = 1;
  }
  if (me == 1 && mine[3] != (uint64_t)(2 * iters)) {
    fprintf(stderr, "opcount: %ld atomic adds left %" PRIu64 " in rank 1's segment\n", 2 * iters,
            mine[3]);
    failed = 1;
  }
  if (failed) gasnet_exit(1);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gex_AD_Destroy(ad);
  if (me == 0) {
    if (smoke)
      printf("opcount smoke: putnbi legput getnbi amshort amburst adadd adjob nbiwait empty ran %ld times each: PASS\n", iters);
    else
      printf("opcount: ran every loop %ld times\n", iters);
    fflush(stdout);
  }
  gasnet_exit(0);
}

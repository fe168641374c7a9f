/* t_poll_sleep.c -- where a waiting thread may sleep on the network
 * (core/progress.c, docs/design.md "Waiting without starving others").
 *
 * The process runs in block mode (gasnet_set_waitmode(GASNET_WAIT_BLOCK)),
 * in which a wait that may sleep does so at its first idle moment where the
 * network has a descriptor to sleep on.
 *
 *  1. A lock passed around the ranks, as the reference's testacc does: each
 *     rank spins on blocking Gets of the lock word at rank 0, with
 *     gasnet_AMPoll between them; the holder reads the accumulator at the
 *     last rank, checks it, writes it plus its own share, and Puts the next
 *     rank's number into the lock word.  At the end the last rank checks
 *     the accumulator's total.
 *  2. gasnet_AMPoll never sleeps: the caller may be about to make the
 *     progress itself (the next Get of the spin above).  This thread's count
 *     of network sleeps (an internal hook) must not move across any of the
 *     ring's gasnet_AMPoll calls, nor across 2000 idle ones.
 *  3. GEX_TEST_SLEEPS=+ (where every peer is over the network, which has a
 *     descriptor): GASNET_BLOCKUNTIL may sleep.  Rank 1 waits there for a
 *     flag that rank 0's AM sets after a run of polls; rounds repeat, each
 *     with a longer run, until rank 1 has slept in one (at most 12).
 *
 *   t_poll_sleep [ITERS]   (lock handoffs per rank, default 300, scaled)
 */
#include <gasnet_coll.h>

#include "test_util.h"

uint64_t gexi_net_sleeps(void); /* this thread's sleeps (core/progress.c) */

#define H_FLAG (GEX_AM_INDEX_BASE + 0)

static volatile uint32_t flag;

static void flag_handler(gex_Token_t tok, gex_AM_Arg_t v) {
  (void)tok;
  flag = (uint32_t)v;
}

static gex_AM_Entry_t handlers[] = {
  {H_FLAG, (gex_AM_Fn_t)flag_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "flag"},
};

static uint64_t ampoll_sleeps; /* sleeps counted inside gasnet_AMPoll */

static void ampoll(void) {
  uint64_t s = gexi_net_sleeps();
  gasnet_AMPoll();
  ampoll_sleeps += gexi_net_sleeps() - s;
}

static void lock_ring(long iters) {
  const gex_Rank_t lock_rank = 0, data_rank = T.size - 1;
  uint32_t *lock = (uint32_t *)test_peer_addr(lock_rank, 0);
  uint64_t *data = (uint64_t *)test_peer_addr(data_rank, 64);
  const gex_Rank_t next = (T.rank + 1) % T.size;
  /* Before this rank's i-th turn, ranks 0..size-1 have each added their
   * (rank + 1) i times, and ranks below this one once more. */
  const uint64_t round_sum = (uint64_t)T.size * (T.size + 1) / 2;
  for (long i = 0; i < iters; i++) {
    while (gex_RMA_GetBlockingVal(T.tm, lock_rank, lock, sizeof(*lock), 0) != T.rank) ampoll();
    uint64_t want = round_sum * (uint64_t)i + (uint64_t)T.rank * (T.rank + 1) / 2;
    uint64_t cur = gex_RMA_GetBlockingVal(T.tm, data_rank, data, sizeof(*data), 0);
    CHECKF(cur == want, "handoff %ld: accumulator %" PRIu64 ", want %" PRIu64, i, cur, want);
    gex_RMA_PutBlockingVal(T.tm, data_rank, data, cur + T.rank + 1, sizeof(*data), 0);
    gex_RMA_PutBlockingVal(T.tm, lock_rank, lock, next, sizeof(*lock), 0);
  }
  test_barrier();
  if (T.rank == data_rank) {
    uint64_t total = *(volatile uint64_t *)(T.seg_base + 64);
    CHECKF(total == round_sum * (uint64_t)iters, "accumulator %" PRIu64 ", want %" PRIu64, total,
           round_sum * (uint64_t)iters);
  }
}

/* Part 3: returns whether rank 1 slept in GASNET_BLOCKUNTIL this round. */
static int blockuntil_round(uint32_t round) {
  int slept = 0;
  test_barrier();
  if (T.rank == 0) {
    for (long k = 0; k < (1000L << round); k++) ampoll();
    gex_AM_RequestShort1(T.tm, 1, H_FLAG, 0, (gex_AM_Arg_t)round);
  } else if (T.rank == 1) {
    uint64_t s = gexi_net_sleeps();
    GASNET_BLOCKUNTIL(flag == round);
    slept = gexi_net_sleeps() != s;
  }
  int all = 0;
  test_wait(gex_Coll_BroadcastNB(T.tm, 1, &all, &slept, sizeof(int), 0));
  return all;
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "t_poll_sleep", 4096, handlers, 1);
  long iters = test_iters(test_arg_count(argc, argv, 300), 20);
  gasnet_set_waitmode(GASNET_WAIT_BLOCK);
  if (T.rank == 0) *(volatile uint32_t *)T.seg_base = 0;
  if (T.rank == T.size - 1) *(volatile uint64_t *)(T.seg_base + 64) = 0;
  test_barrier();
  if (T.size >= 2) lock_ring(iters);

  for (int k = 0; k < 2000; k++) ampoll();
  CHECKF(ampoll_sleeps == 0, "gasnet_AMPoll slept on the network %" PRIu64 " times", ampoll_sleeps);

  const char *want_sleep = getenv("GEX_TEST_SLEEPS");
  if (want_sleep && strcmp(want_sleep, "+") == 0 && T.size >= 2) {
    int slept = 0;
    uint32_t round = 1;
    for (; round <= 12 && !slept; round++) slept = blockuntil_round(round);
    CHECKF(slept, "GASNET_BLOCKUNTIL never slept on the network in %u rounds", round - 1);
    test_log0("GASNET_BLOCKUNTIL slept in round %u", round - 1);
  }
  test_log0("%ld lock handoffs per rank, gasnet_AMPoll never slept", iters);
  test_finish();
}

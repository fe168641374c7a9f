/* t_atomic_order.c -- GEX_FLAG_AD_REL / GEX_FLAG_AD_ACQ in message passing.
 *
 * ring     each rank Puts a block into the next rank's segment (completed with
 *          gex_NBI_Wait), then raises a flag there with a releasing atomic
 *          (SET, SWAP or FADD); the next rank polls the flag with acquiring
 *          atomics (GET or FCAS) and then reads the block with plain loads;
 *          it acknowledges with a releasing SET that the writer acquires
 *          before it overwrites the block.
 * threads  the same pattern between two threads of one rank, once on the
 *          rank's own segment (plain stores and loads on the data, flags
 *          with GEX_FLAG_AD_MY_RANK), once on the next rank's segment (data
 *          by gex_RMA_PutBlocking / GetBlocking).  Data are plain memory, so
 *          under ThreadSanitizer a missing acquire or release is a report.
 */
#include "test_util.h"

#include <gasnet_ratomic.h>
#include <pthread.h>

#define DBYTES 512
#define X_DATA 0     /* ring: block from the previous rank */
#define X_FLAG 4096  /* ring: flag raised by the previous rank (U64) */
#define X_ACK 4160   /* ring: ack from the next rank (U64) */
#define L_DATA 8192  /* threads, own segment */
#define L_FLAG 9216  /* (I32) */
#define L_ACK 9280   /* (I32) */
#define N_DATA 12288 /* threads, on the next rank's segment (written by the previous rank) */
#define N_FLAG 13312 /* (DBL) */
#define N_ACK 13376  /* (DBL) */
#define SEG 16384

static gex_AD_t ad_u64, ad_i32, ad_dbl;
static long rounds;

static void poll_once(void) { gasnet_AMPoll(); }

/* ---- ring between processes -------------------------------------------------- */
static void ring(void) {
  const gex_Rank_t me = T.rank, n = T.size;
  const gex_Rank_t next = (me + 1) % n, prev = (me + n - 1) % n;
  unsigned char *myblock = T.seg_base + X_DATA;
  uint64_t *myflag = (uint64_t *)(void *)(T.peer_seg[me] + X_FLAG);
  uint64_t *myack = (uint64_t *)(void *)(T.peer_seg[me] + X_ACK);
  void *nextblock = T.peer_seg[next] + X_DATA;
  uint64_t *nextflag = (uint64_t *)(void *)(T.peer_seg[next] + X_FLAG);
  uint64_t *prevack = (uint64_t *)(void *)(T.peer_seg[prev] + X_ACK);
  static unsigned char src[DBYTES];

  for (long k = 1; k <= rounds; k++) {
    /* writer: the next rank has read round k-1's block */
    for (;;) {
      uint64_t a = 0;
      gex_Event_Wait(gex_AD_OpNB_U64(ad_u64, &a, me, myack, GEX_OP_GET, 0, 0,
                                     GEX_FLAG_AD_ACQ | GEX_FLAG_AD_MY_RANK));
      CHECK(a <= (uint64_t)k - 1);
      if (a == (uint64_t)k - 1) break;
      poll_once();
    }
    test_fill(src, DBYTES, test_seed(me, (uint64_t)k, 1, 2));
    CHECK(gex_RMA_PutNBI(T.tm, next, nextblock, src, DBYTES, GEX_EVENT_DEFER, 0) == 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    uint64_t old = ~0ULL;
    switch (k % 3) {
      case 0:
        CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, next, nextflag, GEX_OP_SET, (uint64_t)k, 0,
                               GEX_FLAG_AD_REL) == 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
      case 1:
        gex_Event_Wait(gex_AD_OpNB_U64(ad_u64, &old, next, nextflag, GEX_OP_SWAP, (uint64_t)k, 0,
                                       GEX_FLAG_AD_REL));
        CHECK(old == (uint64_t)k - 1);
        break;
      default:
        CHECK(gex_AD_OpNBI_U64(ad_u64, &old, next, nextflag, GEX_OP_FADD, 1, 0,
                               GEX_FLAG_AD_REL | GEX_FLAG_AD_ACQ) == 0);
        gex_NBI_Wait(GEX_EC_RMW, 0);
        CHECK(old == (uint64_t)k - 1);
        break;
    }

    /* reader: wait for the previous rank's round-k flag, then read plain */
    for (;;) {
      uint64_t f = 0;
      if (k & 1)
        gex_Event_Wait(gex_AD_OpNB_U64(ad_u64, &f, me, myflag, GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ));
      else
        gex_Event_Wait(gex_AD_OpNB_U64(ad_u64, &f, me, myflag, GEX_OP_FCAS, (uint64_t)k,
                                       (uint64_t)k, GEX_FLAG_AD_ACQ));
      CHECK(f <= (uint64_t)k);
      if (f == (uint64_t)k) break;
      poll_once();
    }
    CHECK_PATTERN(myblock, DBYTES, test_seed(prev, (uint64_t)k, 1, 2));
    CHECK(gex_AD_OpNBI_U64(ad_u64, NULL, prev, prevack, GEX_OP_SET, (uint64_t)k, 0,
                           GEX_FLAG_AD_REL) == 0);
  }
}

/* ---- two threads of one rank ------------------------------------------------------ */
struct pair {
  int remote;          /* 0: own segment, plain data; 1: the next rank's segment, RMA data */
  gex_Rank_t tgt;      /* rank whose segment holds data and flags */
  unsigned char *data; /* owner's address of the data */
};

static void flag_set(const struct pair *pp, size_t off, long k) {
  void *addr = T.peer_seg[pp->tgt] + off;
  if (!pp->remote) {
    CHECK(gex_AD_OpNBI_I32(ad_i32, NULL, pp->tgt, addr, GEX_OP_SET, (int32_t)k, 0,
                           GEX_FLAG_AD_REL | GEX_FLAG_AD_MY_RANK) == 0);
  } else {
    double old = -1;
    gex_Event_Wait(gex_AD_OpNB_DBL(ad_dbl, &old, pp->tgt, addr, GEX_OP_SWAP, (double)k, 0,
                                   GEX_FLAG_AD_REL | (test_in_nbrhd(pp->tgt) ? GEX_FLAG_AD_MY_NBRHD : 0)));
    CHECK(old == (double)(k - 1));
  }
}

static void flag_wait(const struct pair *pp, size_t off, long k) {
  void *addr = T.peer_seg[pp->tgt] + off;
  for (;;) {
    long v;
    if (!pp->remote) {
      int32_t x = -1;
      gex_Event_Wait(gex_AD_OpNB_I32(ad_i32, &x, pp->tgt, addr, GEX_OP_GET, 0, 0,
                                     GEX_FLAG_AD_ACQ | GEX_FLAG_AD_MY_RANK));
      v = x;
    } else {
      double x = -1;
      CHECK(gex_AD_OpNBI_DBL(ad_dbl, &x, pp->tgt, addr, GEX_OP_FMAX, -1.0, 0, GEX_FLAG_AD_ACQ) ==
            0); /* MAX with -1: a read */
      gex_NBI_Wait(GEX_EC_RMW, 0);
      v = (long)x;
    }
    CHECK(v <= k);
    if (v == k) return;
    poll_once();
  }
}

static void *producer(void *arg) {
  const struct pair *pp = arg;
  unsigned char src[DBYTES];
  for (long k = 1; k <= rounds; k++) {
    flag_wait(pp, pp->remote ? N_ACK : L_ACK, k - 1);
    const uint64_t seed = test_seed(T.rank, (uint64_t)k, (uint64_t)pp->remote, 7);
    if (!pp->remote) {
      test_fill(pp->data, DBYTES, seed); /* plain stores into the segment */
    } else {
      test_fill(src, DBYTES, seed);
      CHECK(gex_RMA_PutBlocking(T.tm, pp->tgt, pp->data, src, DBYTES, 0) == 0);
    }
    flag_set(pp, pp->remote ? N_FLAG : L_FLAG, k);
  }
  return NULL;
}

static void consumer(const struct pair *pp) {
  unsigned char dst[DBYTES];
  for (long k = 1; k <= rounds; k++) {
    flag_wait(pp, pp->remote ? N_FLAG : L_FLAG, k);
    const uint64_t seed = test_seed(T.rank, (uint64_t)k, (uint64_t)pp->remote, 7);
    if (!pp->remote) {
      CHECK_PATTERN(pp->data, DBYTES, seed); /* plain loads */
    } else {
      CHECK(gex_RMA_GetBlocking(T.tm, dst, pp->tgt, pp->data, DBYTES, 0) == 0);
      CHECK_PATTERN(dst, DBYTES, seed);
    }
    flag_set(pp, pp->remote ? N_ACK : L_ACK, k);
  }
}

static void threads(int remote) {
  const gex_Rank_t next = (T.rank + 1) % T.size;
  /* the next rank's N_* area is used by this rank only (one previous rank) */
  struct pair pp = {remote, remote ? next : T.rank,
                    remote ? T.peer_seg[next] + N_DATA : T.seg_base + L_DATA};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, producer, &pp) == 0);
  consumer(&pp);
  CHECK(pthread_join(th, NULL) == 0);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_ATOMIC_ORDER", SEG, NULL, 0);
  memset(T.seg_base, 0, SEG); /* (the barrier after gex_AD_Create publishes it) */
  rounds = test_iters(600, 30);
  gex_AD_Create(&ad_u64, T.tm, GEX_DT_U64,
                GEX_OP_GET | GEX_OP_SET | GEX_OP_SWAP | GEX_OP_FADD | GEX_OP_FCAS, 0);
  gex_AD_Create(&ad_i32, T.tm, GEX_DT_I32, GEX_OP_GET | GEX_OP_SET, GEX_FLAG_AD_FAVOR_MY_RANK);
  gex_AD_Create(&ad_dbl, T.tm, GEX_DT_DBL, GEX_OP_SWAP | GEX_OP_FMAX, 0);
  test_barrier(); /* gex_AD_Create does not synchronize */
  test_log0("%ld rounds", rounds);

  ring();
  test_barrier();
  threads(0);
  threads(1);
  test_barrier();
  gex_AD_Destroy(ad_u64);
  gex_AD_Destroy(ad_i32);
  gex_AD_Destroy(ad_dbl);
  test_finish();
}

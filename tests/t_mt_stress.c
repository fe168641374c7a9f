/* t_mt_stress.c -- several threads per rank communicating at once: Short,
 * Medium and Long Requests with Replies of the same category to every rank, Puts and Gets (blocking,
 * NB, NBI) to per-thread slots of every rank, all concurrently; handlers
 * count under a gex_HSL_t.  Every reply payload and every Get is verified
 * as it arrives, and the totals (Requests handled per source, final slot
 * contents) are verified after the threads are joined.
 */
#include "test_util.h"

#include <pthread.h>
#include <sched.h>

#define NT 4
#define MAXR 64
#define SLOT 1024 /* per (src rank, thread) in every segment */
#define MEDLEN 700
#define LSLOTS 4     /* Long slots per (rank, thread), reused once their Reply arrived */
#define LSLOT 2048
#define LONG_AREA(n) ((size_t)(n) * NT * LSLOTS * LSLOT)

static const gex_AM_Index_t H_SREQ = GEX_AM_INDEX_BASE + 46, H_SREP = H_SREQ + 1, H_MREQ = H_SREQ + 2, H_MREP = H_SREQ + 3,
                            H_LREQ = H_SREQ + 4, H_LREP = H_SREQ + 5;
static gex_HSL_t lock = GEX_HSL_INITIALIZER;
static long req_from[MAXR]; /* plain, under lock */
static atomic_long rep_to_thread[NT];
static atomic_int long_busy[NT][MAXR][LSLOTS]; /* Long Request in flight in that slot */
/* Replier side: the iteration whose Long Reply last used each reply slot of
 * each requester.  Consecutive uses of one slot may come from different
 * threads of this process; they are ordered through the requester (another
 * process), which ThreadSanitizer cannot see, so the release/acquire on this
 * epoch makes the order visible -- and checks that uses are sequential. */
static atomic_long rep_epoch[MAXR][NT][LSLOTS];
static long iters;

static gex_Rank_t src_of(gex_Token_t t) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  return info.gex_srcrank;
}

static void count_req(gex_Rank_t s) {
  gex_HSL_Lock(&lock);
  req_from[s]++;
  gex_HSL_Unlock(&lock);
}

/* Short: args thread, iter */
static void h_sreq(gex_Token_t t, gex_AM_Arg_t th, gex_AM_Arg_t it) {
  count_req(src_of(t));
  CHECK(gex_AM_ReplyShort2(t, H_SREP, 0, th, it + 1) == 0);
}
static void h_srep(gex_Token_t t, gex_AM_Arg_t th, gex_AM_Arg_t it) {
  (void)t;
  (void)it;
  CHECK(th >= 0 && th < NT);
  atomic_fetch_add(&rep_to_thread[th], 1);
}
static void h_mreq(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t th, gex_AM_Arg_t it) {
  gex_Rank_t s = src_of(t);
  CHECK(nb == MEDLEN);
  long bad = test_verify(buf, nb, test_seed(s, T.rank, (uint64_t)th, (uint64_t)it));
  CHECKF(bad < 0, "Medium from rank %u thread %d iter %d: byte %ld wrong", s, th, it, bad);
  count_req(s);
  unsigned char rep[MEDLEN];
  test_fill(rep, MEDLEN, test_seed(T.rank, s, (uint64_t)th + 100, (uint64_t)it));
  CHECK(gex_AM_ReplyMedium2(t, H_MREP, rep, MEDLEN, GEX_EVENT_NOW, 0, th, it) == 0);
}
static void h_mrep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t th, gex_AM_Arg_t it) {
  gex_Rank_t s = src_of(t);
  CHECK(nb == MEDLEN);
  long bad = test_verify(buf, nb, test_seed(s, T.rank, (uint64_t)th + 100, (uint64_t)it));
  CHECKF(bad < 0, "Medium Reply from rank %u: byte %ld wrong", s, bad);
  CHECK(th >= 0 && th < NT);
  atomic_fetch_add(&rep_to_thread[th], 1);
}

static unsigned char *slot(gex_Rank_t owner, gex_Rank_t src, int th) {
  return T.peer_seg[owner] + ((size_t)src * NT + (size_t)th) * SLOT;
}
/* Long destinations: requests to 'owner' from (src, th), then replies */
static unsigned char *lslot(gex_Rank_t owner, gex_Rank_t src, int th, long it, int is_rep) {
  return T.peer_seg[owner] + (size_t)T.size * NT * SLOT + (is_rep ? LONG_AREA(T.size) : 0) +
         (((size_t)src * NT + (size_t)th) * LSLOTS + (size_t)(it % LSLOTS)) * LSLOT;
}
static size_t long_len(long it, gex_Rank_t a, gex_Rank_t b) { return (size_t)(it * 131 + a * 7 + b) % LSLOT; }

static void h_lreq(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t th, gex_AM_Arg_t it) {
  gex_Rank_t s = src_of(t);
  CHECK(th >= 0 && th < NT);
  CHECK(buf == lslot(T.rank, s, th, it, 0));
  CHECK(nb == long_len(it, s, T.rank));
  long bad = test_verify(buf, nb, test_seed(s, T.rank, (uint64_t)th + 200, (uint64_t)it));
  CHECKF(bad < 0, "Long from rank %u thread %d iter %d: byte %ld wrong", s, th, it, bad);
  count_req(s);
  unsigned char rep[LSLOT];
  size_t rl = long_len(it, T.rank, s);
  test_fill(rep, rl, test_seed(T.rank, s, (uint64_t)th + 300, (uint64_t)it));
  atomic_long *ep = &rep_epoch[s][th][it % LSLOTS];
  /* the previous user of this slot (iteration it - LSLOTS) has replied, but
   * its thread may not have recorded that yet: wait for it (bounded) */
  long prev, want = it < LSLOTS ? -1 : it - LSLOTS;
  double t0 = test_now();
  while ((prev = atomic_load_explicit(ep, memory_order_acquire)) != want) {
    CHECKF(test_now() - t0 < 10.0 && prev < want,
           "reply slot of rank %u thread %d: iteration %d follows %ld", s, th, it, prev);
    sched_yield();
  }
  CHECK(gex_AM_ReplyLong2(t, H_LREP, rep, rl, lslot(s, T.rank, th, it, 1), GEX_EVENT_NOW, 0, th,
                          it) == 0);
  atomic_store_explicit(ep, it, memory_order_release);
}
static void h_lrep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t th, gex_AM_Arg_t it) {
  gex_Rank_t s = src_of(t);
  CHECK(th >= 0 && th < NT);
  CHECK(buf == lslot(T.rank, s, th, it, 1));
  CHECK(nb == long_len(it, s, T.rank));
  long bad = test_verify(buf, nb, test_seed(s, T.rank, (uint64_t)th + 300, (uint64_t)it));
  CHECKF(bad < 0, "Long Reply from rank %u: byte %ld wrong", s, bad);
  CHECK(atomic_exchange(&long_busy[th][s][it % LSLOTS], 0) == 1);
  atomic_fetch_add(&rep_to_thread[th], 1);
}
static size_t rma_len(long it) { return 1 + (size_t)(it * 37) % (SLOT - 1); }

static void *worker(void *arg) {
  int th = (int)(intptr_t)arg;
  const gex_Rank_t me = T.rank, n = T.size;
  unsigned char *src = malloc(SLOT), *back = malloc(SLOT), *med = malloc(MEDLEN),
                *lbuf = malloc(LSLOT);
  CHECK(src && back && med && lbuf);
  long expect_rep = 0;
  for (long it = 0; it < iters; it++) {
    for (gex_Rank_t i = 0; i < n; i++) {
      gex_Rank_t p = (me + i + (gex_Rank_t)th) % n;
      /* AMs */
      CHECK(gex_AM_RequestShort2(T.tm, p, H_SREQ, 0, th, (gex_AM_Arg_t)it) == 0);
      test_fill(med, MEDLEN, test_seed(me, p, (uint64_t)th, (uint64_t)it));
      CHECK(gex_AM_RequestMedium2(T.tm, p, H_MREQ, med, MEDLEN, GEX_EVENT_NOW, 0, th,
                                  (gex_AM_Arg_t)it) == 0);
      /* the slot's previous Long has been handled (its Reply arrived) */
      GASNET_BLOCKUNTIL(atomic_load(&long_busy[th][p][it % LSLOTS]) == 0);
      atomic_store(&long_busy[th][p][it % LSLOTS], 1);
      size_t ll = long_len(it, me, p);
      test_fill(lbuf, ll, test_seed(me, p, (uint64_t)th + 200, (uint64_t)it));
      CHECK(gex_AM_RequestLong2(T.tm, p, H_LREQ, lbuf, ll, lslot(p, me, th, it, 0), GEX_EVENT_NOW, 0,
                                th, (gex_AM_Arg_t)it) == 0);
      expect_rep += 3;
      /* RMA to my own slot at p: Put, then Get it back */
      size_t len = rma_len(it);
      uint64_t seed = test_seed(me, p, (uint64_t)th + 1000, (uint64_t)it);
      test_fill(src, len, seed);
      unsigned char *dst = slot(p, me, th);
      switch (it % 3) {
        case 0:
          CHECK(gex_RMA_PutBlocking(T.tm, p, dst, src, len, 0) == 0);
          CHECK(gex_RMA_GetBlocking(T.tm, back, p, dst, len, 0) == 0);
          break;
        case 1:
          gex_Event_Wait(gex_RMA_PutNB(T.tm, p, dst, src, len, GEX_EVENT_DEFER, 0));
          gex_Event_Wait(gex_RMA_GetNB(T.tm, back, p, dst, len, 0));
          break;
        default:
          CHECK(gex_RMA_PutNBI(T.tm, p, dst, src, len, GEX_EVENT_DEFER, 0) == 0);
          gex_NBI_Wait(GEX_EC_PUT, 0);
          CHECK(gex_RMA_GetNBI(T.tm, back, p, dst, len, 0) == 0);
          gex_NBI_Wait(GEX_EC_GET, 0);
      }
      long bad = test_verify(back, len, seed);
      CHECKF(bad < 0, "thread %d: Get-after-Put (form %d) at rank %u, %zu bytes: byte %ld wrong", th, (int)(it % 3), p, len,
             bad);
    }
  }
  GASNET_BLOCKUNTIL(atomic_load(&rep_to_thread[th]) == expect_rep);
  free(src);
  free(back);
  free(med);
  free(lbuf);
  return NULL;
}

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return (uintptr_t)n * NT * SLOT + 2 * LONG_AREA(n);
}

int main(int argc, char **argv) {
  gex_AM_Entry_t tab[] = {
      {H_SREQ, (gex_AM_Fn_t)h_sreq, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "sreq"},
      {H_SREP, (gex_AM_Fn_t)h_srep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "srep"},
      {H_MREQ, (gex_AM_Fn_t)h_mreq, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "mreq"},
      {H_MREP, (gex_AM_Fn_t)h_mrep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2, NULL, "mrep"},
      {H_LREQ, (gex_AM_Fn_t)h_lreq, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "lreq"},
      {H_LREP, (gex_AM_Fn_t)h_lrep, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, NULL, "lrep"},
  };
  for (int s = 0; s < MAXR; s++)
    for (int t = 0; t < NT; t++)
      for (int k = 0; k < LSLOTS; k++) atomic_store(&rep_epoch[s][t][k], -1);
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_MT_STRESS", 0, tab, 6);
  CHECK(T.size <= MAXR);
  iters = test_iters(2000, 8);
  pthread_t th[NT];
  for (int i = 0; i < NT; i++) CHECK(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) == 0);
  for (int i = 0; i < NT; i++) CHECK(pthread_join(th[i], NULL) == 0);
  test_barrier();
  /* every rank's every thread sent 3 Requests per iteration to me */
  gex_HSL_Lock(&lock);
  for (gex_Rank_t s = 0; s < T.size; s++)
    CHECKF(req_from[s] == 3 * NT * iters, "%ld Requests from rank %u, want %ld", req_from[s], s,
           3 * NT * iters);
  gex_HSL_Unlock(&lock);
  /* final slot contents: the last iteration's Put of every (rank, thread) */
  for (gex_Rank_t s = 0; s < T.size; s++)
    for (int t = 0; t < NT; t++) {
      long it = iters - 1;
      long bad = test_verify(slot(T.rank, s, t), rma_len(it),
                             test_seed(s, T.rank, (uint64_t)t + 1000, (uint64_t)it));
      CHECKF(bad < 0, "slot of rank %u thread %d: byte %ld wrong", s, t, bad);
    }
  test_finish();
}

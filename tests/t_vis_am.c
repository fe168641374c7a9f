/* t_vis_am.c -- VIS through the AM-packing path (run with GEX_VIS_FORCE_AM=1
 * by ctest; without it the same checks run on the on-node copy path).
 *
 * NT threads per rank, to every peer including self, all three forms
 * (Blocking, NB, NBI), each thread in its own block of the target's segment:
 *   big      one 20000-byte piece, larger than an AM Medium: Put, then Get
 *            back into another buffer (pieces split across packets)
 *   tiny     3000 one-byte chunks at stride 3 (indexed Put: several packets),
 *            then one contiguous vector Get of the footprint: chunk bytes
 *            carry the data, the gaps still hold the guard byte
 *   strided  7 x 40 elements of 5 bytes, every 8 / 64 bytes remotely: Put,
 *            then Get back with another local layout
 * NB completion alternates gex_Event_Wait with spinning on gex_Event_Test
 * alone, NBI alternates gex_NBI_Wait with spinning on gex_NBI_Test (both
 * must make progress by themselves), and some rounds put the NBI Put inside
 * an access region whose event is then waited on.
 */
#include "test_util.h"

#include <sched.h>
#include <gasnet_vis.h>
#include <pthread.h>

#define NT 3
#define TREG 32768 /* per (writer, thread), in every segment */
#define BIG 20000
#define B_OFF 20480
#define NTINY 3000
#define C_OFF 29696
#define ELEM 5
#define GUARD 0xEE

enum { F_BLOCKING, F_NB, F_NBI };
static long rounds;

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return (uintptr_t)n * NT * TREG;
}

/* Complete one operation of form 'form'; 'spin': by Test calls alone. */
static void finish(int form, gex_Event_t ev, int rc, gex_EC_t ec, int spin) {
  CHECK(rc == 0);
  if (form == F_NB) {
    if (spin)
      while (gex_Event_Test(ev) != GASNET_OK) {
        sched_yield(); /* Test alone polls: no AMPoll here */
      }
    else
      gex_Event_Wait(ev);
  } else if (form == F_NBI) {
    if (spin)
      while (gex_NBI_Test(ec, 0) != GASNET_OK) {
        sched_yield(); /* Test alone polls: no AMPoll here */
      }
    gex_NBI_Wait(ec, 0);
  } else {
    CHECK(ev == GEX_EVENT_INVALID);
  }
}

static void *worker(void *arg) {
  const int t = (int)(intptr_t)arg;
  const gex_Rank_t me = T.rank, n = T.size;
  unsigned char *src = malloc(BIG), *dst = malloc(BIG);
  void **ri = malloc(NTINY * sizeof *ri), **li = malloc(NTINY * sizeof *li);
  CHECK(src && dst && ri && li);
  for (long round = 0; round < rounds; round++)
    for (gex_Rank_t k = 0; k < n; k++) {
      const gex_Rank_t p = (me + k + (gex_Rank_t)t) % n;
      unsigned char *blk = test_peer_addr(p, ((uintptr_t)me * NT + (uintptr_t)t) * TREG);
      const int form = (int)((round + k + (gex_Rank_t)t) % 3);
      const int spin = (int)(round & 1);
      const uint64_t seed = test_seed(me, p, (uint64_t)t, (uint64_t)round);
      gex_Event_t ev = GEX_EVENT_INVALID;
      int rc = 0;

      /* ---- big ---- */
      test_fill(src, BIG, seed);
      gex_Memvec_t rv = {blk, BIG}, lv = {src, BIG};
      const int region = form == F_NBI && (round % 4) < 2;
      if (region) gex_NBI_BeginAccessRegion(0);
      if (form == F_BLOCKING) rc = gex_VIS_VectorPutBlocking(T.tm, p, 1, &rv, 1, &lv, 0);
      if (form == F_NB) ev = gex_VIS_VectorPutNB(T.tm, p, 1, &rv, 1, &lv, 0);
      if (form == F_NBI) rc = gex_VIS_VectorPutNBI(T.tm, p, 1, &rv, 1, &lv, 0);
      if (region) {
        CHECK(rc == 0);
        gex_Event_t rev = gex_NBI_EndAccessRegion(0);
        CHECK(gex_NBI_Test(GEX_EC_PUT, 0) == GASNET_OK); /* not in the NBI set */
        if (spin)
          while (gex_Event_Test(rev) != GASNET_OK) {
            sched_yield(); /* Test alone polls: no AMPoll here */
          }
        else
          test_wait(rev);
      } else {
        finish(form, ev, rc, GEX_EC_PUT, spin);
      }
      memset(dst, 0, BIG);
      gex_Memvec_t dv = {dst, BIG};
      ev = GEX_EVENT_INVALID;
      if (form == F_BLOCKING) rc = gex_VIS_VectorGetBlocking(T.tm, 1, &dv, p, 1, &rv, 0);
      if (form == F_NB) ev = gex_VIS_VectorGetNB(T.tm, 1, &dv, p, 1, &rv, 0);
      if (form == F_NBI) rc = gex_VIS_VectorGetNBI(T.tm, 1, &dv, p, 1, &rv, 0);
      finish(form, ev, rc, GEX_EC_GET, !spin);
      CHECK_PATTERN(dst, BIG, seed);

      /* ---- tiny ---- */
      test_fill(src, NTINY, seed + 1);
      for (size_t i = 0; i < NTINY; i++) {
        ri[i] = blk + B_OFF + 3 * i;
        li[i] = src + i;
      }
      ev = GEX_EVENT_INVALID;
      if (form == F_BLOCKING)
        rc = gex_VIS_IndexedPutBlocking(T.tm, p, NTINY, ri, 1, NTINY, li, 1, 0);
      if (form == F_NB) ev = gex_VIS_IndexedPutNB(T.tm, p, NTINY, ri, 1, NTINY, li, 1, 0);
      if (form == F_NBI) rc = gex_VIS_IndexedPutNBI(T.tm, p, NTINY, ri, 1, NTINY, li, 1, 0);
      finish(form, ev, rc, GEX_EC_PUT, spin);
      memset(dst, 0, 3 * NTINY);
      gex_Memvec_t fv = {blk + B_OFF, 3 * NTINY}, fl = {dst, 3 * NTINY};
      CHECK(gex_VIS_VectorGetBlocking(T.tm, 1, &fl, p, 1, &fv, 0) == 0);
      for (size_t i = 0; i < NTINY; i++) {
        CHECKF(dst[3 * i] == test_pattern_byte(seed + 1, i), "tiny chunk %zu on rank %u", i, p);
        CHECKF(dst[3 * i + 1] == GUARD && dst[3 * i + 2] == GUARD, "tiny gap %zu on rank %u", i,
               p);
      }

      /* ---- strided ---- */
      const size_t cnt[2] = {7, 40};
      const ptrdiff_t rs[2] = {8, 64}, ls[2] = {ELEM, 7 * ELEM}, ls2[2] = {40 * ELEM, ELEM};
      test_fill(src, 7 * 40 * ELEM, seed + 2);
      ev = GEX_EVENT_INVALID;
      unsigned char *c = blk + C_OFF;
      if (form == F_BLOCKING)
        rc = gex_VIS_StridedPutBlocking(T.tm, p, c, rs, src, ls, ELEM, cnt, 2, 0);
      if (form == F_NB) ev = gex_VIS_StridedPutNB(T.tm, p, c, rs, src, ls, ELEM, cnt, 2, 0);
      if (form == F_NBI) rc = gex_VIS_StridedPutNBI(T.tm, p, c, rs, src, ls, ELEM, cnt, 2, 0);
      finish(form, ev, rc, GEX_EC_PUT, spin);
      memset(dst, 0, 7 * 40 * ELEM);
      ev = GEX_EVENT_INVALID;
      /* back transposed: element (i, j) to dst + i * 40 * ELEM + j * ELEM */
      if (form == F_BLOCKING)
        rc = gex_VIS_StridedGetBlocking(T.tm, dst, ls2, p, c, rs, ELEM, cnt, 2, 0);
      if (form == F_NB) ev = gex_VIS_StridedGetNB(T.tm, dst, ls2, p, c, rs, ELEM, cnt, 2, 0);
      if (form == F_NBI) rc = gex_VIS_StridedGetNBI(T.tm, dst, ls2, p, c, rs, ELEM, cnt, 2, 0);
      finish(form, ev, rc, GEX_EC_GET, spin);
      for (size_t i = 0; i < 7; i++)
        for (size_t j = 0; j < 40; j++)
          for (size_t b = 0; b < ELEM; b++)
            CHECKF(dst[(i * 40 + j) * ELEM + b] ==
                       test_pattern_byte(seed + 2, (j * 7 + i) * ELEM + b),
                   "strided element (%zu,%zu) byte %zu from rank %u", i, j, b, p);
    }
  free(src);
  free(dst);
  free(ri);
  free(li);
  return NULL;
}

int main(int argc, char **argv) {
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_VIS_AM", 0, NULL, 0);
  rounds = test_iters(8, 3);
  memset(T.seg_base, GUARD, T.seg_size);
  test_barrier();
  pthread_t th[NT];
  for (int t = 1; t < NT; t++)
    CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
  worker((void *)(intptr_t)0);
  for (int t = 1; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0);
  test_log0("%d threads, %ld rounds to every peer", NT, rounds);
  test_finish();
}

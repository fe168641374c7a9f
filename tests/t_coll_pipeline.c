/* t_coll_pipeline -- broadcasts back to back, with nothing between them:
 * the shared-memory engine lets a small broadcast's root run ahead of its
 * readers (coll/coll.c: slots of the root's staging chunk taken in turn),
 * so the data of one broadcast must never be overwritten before every
 * member has read it, whatever the roots, sizes and interleaving.
 *
 * Each rank initiates ITERS broadcasts (one root for 100 in a row, so that
 * it can run ahead of readers that are not scheduled; sizes cycling over
 * small ones, one-chunk ones above the small limit and several-chunk ones)
 * with a reduce every 7th operation and a barrier every 50th, keeps up to
 * WINDOW of them in flight before waiting for the oldest, and checks every
 * byte of every result.  The reduces take turns over the forms (reduce.n):
 * to all and to one root (whose members other than the root run ahead:
 * they read nothing), small ones that share the broadcasts' slots and
 * larger ones that use the whole chunk.  Also over the network (the AM
 * engine).
 */
#include <gasnet_coll.h>

#include "test_util.h"

enum { WINDOW = 40, RED_MAX = 5000 };
static const size_t sizes[] = {1, 8, 64, 1000, 1024, 1025, 4096, 32768, 40000, 200};
/* The reduces, in turn: elements (U64) and root (-1: to all).  128
 * elements are the largest small reduce (1 KiB); 5000 take two chunks. */
static const struct { size_t n; int to_one; } reduce[] = {{1, 0}, {3, 1}, {128, 0}, {200, 1}, {5000, 0}, {1, 1}};
#define NRED (sizeof reduce / sizeof reduce[0])
static uint64_t red_elem(uint64_t r, long i, size_t e) { return r * 1000 + (uint64_t)i + e * 7; }

int main(int argc, char **argv) {
  test_init(&argc, &argv, "t_coll_pipeline", 4096, NULL, 0);
  const long iters = test_iters(3000, 200);
  const size_t nsz = sizeof sizes / sizeof sizes[0];
  size_t maxsz = 0;
  for (size_t s = 0; s < nsz; s++) maxsz = sizes[s] > maxsz ? sizes[s] : maxsz;
  unsigned char *src = malloc(maxsz), *dst[WINDOW];
  uint64_t *red_in[WINDOW], *red_out[WINDOW];
  gex_Event_t ev[WINDOW];
  long op_of[WINDOW];
  CHECK(src);
  for (int w = 0; w < WINDOW; w++) {
    CHECK((dst[w] = malloc(maxsz)));
    CHECK((red_in[w] = malloc(RED_MAX * sizeof(uint64_t))));
    CHECK((red_out[w] = malloc(RED_MAX * sizeof(uint64_t))));
    ev[w] = GEX_EVENT_INVALID;
    op_of[w] = -1;
  }
  const uint64_t n = T.size;
  /* Check operation i's result in window slot w. */
#define CHECK_OP(w)                                                                      \
  do {                                                                                   \
    long i_ = op_of[w];                                                                  \
    if (i_ < 0) break;                                                                   \
    if (i_ % 7 == 6) {                                                                   \
      size_t k_ = (size_t)(i_ / 7) % NRED;                                               \
      gex_Rank_t root_ = (gex_Rank_t)((i_ / 100) % (long)n);                             \
      size_t have_ = reduce[k_].to_one && T.rank != root_ ? 0 : reduce[k_].n; /* result here? */ \
      for (size_t e_ = 0; e_ < have_; e_++) {                                            \
        uint64_t want = 0;                                                               \
        for (uint64_t r = 0; r < n; r++) want += red_elem(r, i_, e_);                    \
        CHECKF(red_out[w][e_] == want, "op %ld: reduce of %zu (%s), element %zu: %llu, want %llu", \
               i_, reduce[k_].n, reduce[k_].to_one ? "to one" : "to all", e_,            \
               (unsigned long long)red_out[w][e_], (unsigned long long)want);            \
      }                                                                                  \
    } else {                                                                             \
      size_t sz_ = sizes[i_ % nsz];                                                      \
      gex_Rank_t root_ = (gex_Rank_t)((i_ / 100) % (long)n);                                     \
      long bad_ = test_verify(dst[w], sz_, test_seed(1, (uint64_t)i_, root_, sz_));      \
      CHECKF(bad_ < 0, "op %ld: broadcast of %zu bytes from %u: byte %ld wrong", i_, sz_, \
             (unsigned)root_, bad_);                                                     \
    }                                                                                    \
    op_of[w] = -1;                                                                       \
  } while (0)
  for (long i = 0; i < iters; i++) {
    int w = (int)(i % WINDOW);
    if (op_of[w] >= 0) { /* the oldest in flight */
      gex_Event_Wait(ev[w]);
      CHECK_OP(w);
    }
    if (i % 50 == 49) { /* a barrier now and then, with operations in flight */
      gex_Event_Wait(gex_Coll_BarrierNB(T.tm, 0));
    }
    op_of[w] = i;
    if (i % 7 == 6) {
      size_t k = (size_t)(i / 7) % NRED, cnt = reduce[k].n;
      gex_Rank_t root = (gex_Rank_t)((i / 100) % (long)n);
      for (size_t e = 0; e < cnt; e++) red_in[w][e] = red_elem(T.rank, i, e);
      memset(red_out[w], 0xEE, cnt * sizeof(uint64_t));
      if (reduce[k].to_one)
        ev[w] = gex_Coll_ReduceToOneNB(T.tm, root, red_out[w], red_in[w], GEX_DT_U64, 8, cnt,
                                       GEX_OP_ADD, NULL, NULL, 0);
      else
        ev[w] = gex_Coll_ReduceToAllNB(T.tm, red_out[w], red_in[w], GEX_DT_U64, 8, cnt, GEX_OP_ADD,
                                       NULL, NULL, 0);
    } else {
      size_t sz = sizes[i % nsz];
      gex_Rank_t root = (gex_Rank_t)((i / 100) % (long)n);
      memset(dst[w], 0xEE, sz);
      if (T.rank == root) test_fill(src, sz, test_seed(1, (uint64_t)i, root, sz));
      /* The root's source may be reused at once (the data is staged). */
      ev[w] = gex_Coll_BroadcastNB(T.tm, root, dst[w], src, sz, 0);
      if (T.rank == root) {
        gex_Event_Wait(ev[w]); /* the source is reused by the next operation */
        ev[w] = GEX_EVENT_INVALID;
      }
    }
  }
  for (long k = 0; k < WINDOW; k++) {
    int w = (int)((iters + k) % WINDOW);
    if (op_of[w] < 0) continue;
    gex_Event_Wait(ev[w]);
    CHECK_OP(w);
  }
  for (int w = 0; w < WINDOW; w++) {
    free(dst[w]);
    free(red_in[w]);
    free(red_out[w]);
  }
  free(src);
  test_finish();
}

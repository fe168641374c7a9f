/* tests/legacy_util.h -- start a test program as a GASNet-1 client.
 *
 * legacy_init() runs gasnet_init and gasnet_attach (with the given handler
 * table) and fills the shared test context T (test_util.h) from the GASNet-1
 * queries, so CHECK, test_finish and the pattern helpers work as in the
 * GASNet-EX tests.  T.peer_seg comes from gasnet_getSegmentInfo.
 */
#ifndef GEX_TEST_LEGACY_UTIL_H
#define GEX_TEST_LEGACY_UTIL_H

#include <gasnet.h>

#include "test_util.h"

static inline void legacy_init(int *argc, char ***argv, const char *name, uintptr_t segsize,
                               gasnet_handlerentry_t *table, int numentries) {
  T.name = name;
  test_start_watchdog();
  int rc = gasnet_init(argc, argv);
  if (rc != GASNET_OK) {
    fprintf(stderr, "FAIL %s: gasnet_init returned %s\n", name, gasnet_ErrorName(rc));
    exit(1);
  }
  gasnet_QueryGexObjects(&T.client, &T.ep, &T.tm, NULL);
  T.rank = gasnet_mynode();
  T.size = gasnet_nodes();
  T.initialized = 1;
  const char *exp = getenv("GEX_TEST_EXPECT_RANKS");
  if (exp && *exp) CHECKF((long)T.size == atol(exp), "job size %u, expected %s", T.size, exp);
  rc = gasnet_attach(table, numentries, segsize, 0);
  CHECKF(rc == GASNET_OK, "gasnet_attach returned %s", gasnet_ErrorName(rc));
  gasnet_QueryGexObjects(NULL, NULL, NULL, &T.seg);
  CHECK(T.seg != GEX_SEGMENT_INVALID);
  T.seg_base = gex_Segment_QueryAddr(T.seg);
  T.seg_size = gex_Segment_QuerySize(T.seg);
  gasnet_seginfo_t *si = calloc(T.size, sizeof *si);
  T.peer_seg = calloc(T.size, sizeof *T.peer_seg);
  T.peer_size = calloc(T.size, sizeof *T.peer_size);
  CHECK(si && T.peer_seg && T.peer_size);
  CHECK(gasnet_getSegmentInfo(si, (int)T.size) == GASNET_OK);
  for (gex_Rank_t r = 0; r < T.size; r++) {
    T.peer_seg[r] = si[r].addr;
    T.peer_size[r] = si[r].size;
  }
  free(si);
  CHECK(T.peer_seg[T.rank] == T.seg_base);
  CHECK(T.peer_size[T.rank] == T.seg_size);
}

#endif

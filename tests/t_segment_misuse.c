/* t_segment_misuse.c -- misuse of segments and memory kinds; run by
 * misuse.sh like misuse_prog (see there).  These are detected whatever
 * GEX_CHECKS says: a destroyed bound segment or kind would leave dangling
 * mappings, network keys or counts behind.
 *
 * usage: t_segment_misuse <mode>
 *   destroy_attached   gex_Segment_Destroy of the gex_Segment_Attach segment
 *   destroy_bound      gex_Segment_Destroy of a created segment bound to the
 *                      primordial endpoint
 *   mk_destroy_host    gex_MK_Destroy(GEX_MK_HOST)
 *   mk_destroy_in_use  gex_MK_Destroy of a kind that still has a segment
 */
#include "test_util.h"
#include "misuse_util.h"

#include <gasnet_mk.h>

int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "";
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!strcmp(mode, "destroy_attached"))
    test_init(&argc, &argv, "MISUSE", GASNET_PAGESIZE, NULL, 0);
  else
    test_init_client(&argc, &argv, "MISUSE", 0);
  const gex_Rank_t me = T.rank, last = T.size - 1;
  test_barrier();

  if (!strcmp(mode, "destroy_attached")) {
    if (me == last) {
      expect("^libgex: rank %u: gex_Segment_Destroy: .*cannot be destroyed: .*gex_Segment_Attach",
             me);
      gex_Segment_Destroy(T.seg, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "destroy_bound")) {
    gex_Segment_t s;
    CHECK(gex_Segment_Create(&s, T.client, NULL, GASNET_PAGESIZE, GEX_MK_HOST, 0) == GASNET_OK);
    CHECK(gex_EP_BindSegment(T.ep, s, 0) == GASNET_OK);
    CHECK(gex_EP_PublishBoundSegment(T.tm, &T.ep, 1, 0) == GASNET_OK);
    if (me == 0) {
      expect("^libgex: rank 0: gex_Segment_Destroy: .*%p.*bound to the primordial endpoint",
             gex_Segment_QueryAddr(s));
      gex_Segment_Destroy(s, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "mk_destroy_host")) {
    if (me == last) {
      expect("^libgex: rank %u: gex_MK_Destroy: GEX_MK_HOST", me);
      gex_MK_Destroy(GEX_MK_HOST, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "mk_destroy_in_use")) {
    if (me == 0) {
      gex_MK_Create_args_t args;
      memset(&args, 0, sizeof args);
      args.gex_class = GEX_MK_CLASS_HOST;
      gex_MK_t k;
      gex_Segment_t s;
      CHECK(gex_MK_Create(&k, T.client, &args, 0) == GASNET_OK);
      CHECK(gex_Segment_Create(&s, T.client, NULL, 100, k, 0) == GASNET_OK);
      expect("^libgex: rank 0: gex_MK_Destroy: 1 segment");
      gex_MK_Destroy(k, 0);
      not_detected();
    }
    wait_forever();
  }
  fprintf(stderr, "t_segment_misuse: unknown mode '%s'\n", mode);
  gasnet_exit(2);
}

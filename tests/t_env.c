/* t_env.c -- what the environment means once it parses (tests/env_check.sh
 * runs it with the variables set; the bad values are checked there).
 *
 *   t_env maxseg bytes N           gasnet_getMaxLocalSegmentSize() is N
 *                                  rounded down to a page (GASNET_MAX_SEGSIZE
 *                                  gave N bytes per process)
 *   t_env maxseg fraction F host   ... is F of physical memory shared by the
 *                                  processes of this host ("F/H")
 *   t_env maxseg fraction F proc   ... is F of physical memory ("F" or "F/P")
 *   t_env nbrhd K                  every neighbourhood has at most K ranks
 *                                  (GEX_SUPERNODE_MAXSIZE=K), in jobrank order
 */
#include "test_util.h"

#include <unistd.h>

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  test_init(&argc, &argv, "T_ENV", 4096, NULL, 0);
  const uint64_t page = GASNET_PAGESIZE;
  if (!strcmp(what, "maxseg") && argc > 3) {
    uint64_t want;
    if (!strcmp(argv[2], "bytes")) {
      want = strtoull(argv[3], NULL, 10);
    } else {
      const uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
      want = (uint64_t)(strtod(argv[3], NULL) * (double)phys);
      if (argc > 4 && !strcmp(argv[4], "host")) {
        gex_Rank_t host_size = 0;
        gex_System_QueryHostInfo(NULL, &host_size, NULL);
        want /= host_size;
      }
    }
    want &= ~(page - 1);
    const uint64_t got = gasnet_getMaxLocalSegmentSize();
    CHECKF(got == want, "gasnet_getMaxLocalSegmentSize() = %" PRIu64 ", expected %" PRIu64, got,
           want);
  } else if (!strcmp(what, "nbrhd") && argc > 2) {
    const gex_Rank_t k = (gex_Rank_t)atoi(argv[2]);
    gex_RankInfo_t *info = NULL;
    gex_Rank_t count = 0, me = 0;
    gex_System_QueryNbrhdInfo(&info, &count, &me);
    const gex_Rank_t first = T.rank / k * k;
    const gex_Rank_t want = T.size - first < k ? T.size - first : k;
    CHECKF(count == want, "neighbourhood of %u ranks, expected %u", count, want);
    for (gex_Rank_t i = 0; i < count; i++) CHECK(info[i].gex_jobrank == first + i);
  } else {
    CHECKF(0, "usage: t_env maxseg bytes N | maxseg fraction F host|proc | nbrhd K (got '%s')",
           what);
  }
  test_finish();
}

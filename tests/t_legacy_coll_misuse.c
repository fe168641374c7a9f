/* t_legacy_coll_misuse.c -- misuse of the GASNet-1 prototype collectives;
 * run by misuse.sh (see t_atomic_misuse.c for the protocol: EXPECT lines,
 * NOT DETECTED).  Every mode first runs one valid collective everywhere
 * (the collective set-up), then the last rank commits the misuse. */
#include "test_util.h"
#include "misuse_util.h"

#include <gasnet_coll.h>

#define MYMY (GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC)

int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "";
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_init(&argc, &argv, "T_LEGACY_COLL_MISUSE", 1 << 16, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size, last = n - 1;
  uint64_t x = 1, y[64] = {0};
  CHECK(n <= 64);
  gasnet_coll_broadcast(GASNET_TEAM_ALL, &y[0], 0, &x, 8, MYMY | GASNET_COLL_LOCAL);
  CHECK(y[0] == 1);

  if (!strcmp(mode, "bad_team")) {
    gex_TM_t all2;
    gex_TM_Split(&all2, T.tm, 0, (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    if (me == last) {
      expect("^libgex: rank %u: gasnet_coll_broadcast_nb: team 0x[0-9a-f]+ is not "
             "GASNET_TEAM_ALL", me);
      gasnet_coll_broadcast_nb(all2, &y[0], 0, &x, 8, MYMY | GASNET_COLL_LOCAL);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "in_flags")) {
    if (me == last) {
      expect("^libgex: rank %u: gasnet_coll_gather_all: flags 0x%x must name exactly one of "
             "GASNET_COLL_IN_NOSYNC", me,
             (unsigned)(GASNET_COLL_IN_NOSYNC | MYMY | GASNET_COLL_LOCAL));
      gasnet_coll_gather_all(GASNET_TEAM_ALL, y, &x, 8,
                             GASNET_COLL_IN_NOSYNC | MYMY | GASNET_COLL_LOCAL);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "out_flags")) {
    if (me == last) {
      expect("^libgex: rank %u: gasnet_coll_exchange_nb: flags 0x%x must name exactly one of "
             "GASNET_COLL_OUT_NOSYNC", me, (unsigned)(GASNET_COLL_IN_MYSYNC | GASNET_COLL_LOCAL));
      gasnet_coll_exchange_nb(GASNET_TEAM_ALL, y, y, 1, GASNET_COLL_IN_MYSYNC | GASNET_COLL_LOCAL);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "addr_flags")) {
    if (me == last) {
      expect("^libgex: rank %u: gasnet_coll_scatterM: flags 0x%x must name exactly one of "
             "GASNET_COLL_SINGLE, GASNET_COLL_LOCAL", me,
             (unsigned)(MYMY | GASNET_COLL_LOCAL | GASNET_COLL_SINGLE));
      void *list[1] = {y};
      gasnet_coll_scatterM(GASNET_TEAM_ALL, list, 0, y, 8,
                           MYMY | GASNET_COLL_LOCAL | GASNET_COLL_SINGLE);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "root_oob")) {
    if (me == last) {
      expect("^libgex: rank %u: gasnet_coll_gather: image %u out of range \\(%u images\\)", me,
             n, n);
      gasnet_coll_gather(GASNET_TEAM_ALL, n, y, &x, 8, MYMY | GASNET_COLL_SINGLE);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "null_dst")) {
    if (me == last) {
      expect("^libgex: rank %u: gasnet_coll_gather_all_nb: dst is NULL", me);
      gasnet_coll_gather_all_nb(GASNET_TEAM_ALL, NULL, &x, 8, MYMY | GASNET_COLL_LOCAL);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "bad_handle")) {
    if (me == last) {
      expect("^libgex: rank %u: gasnet_coll_wait_sync: .* is not the handle of a collective in "
             "flight", me);
      gasnet_coll_wait_sync((gasnet_coll_handle_t)(void *)y);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "notify_twice")) {
    if (me == last) {
      expect("^libgex: rank %u: gasnet_coll_barrier_notify: called twice", me);
      gasnet_coll_barrier_notify(GASNET_TEAM_ALL, 1, 0);
      gasnet_coll_barrier_notify(GASNET_TEAM_ALL, 1, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "wait_no_notify")) {
    if (me == last) {
      expect("^libgex: rank %u: gasnet_coll_barrier_wait: no gasnet_coll_barrier_notify", me);
      gasnet_coll_barrier_wait(GASNET_TEAM_ALL, 1, 0);
      not_detected();
    }
    wait_forever();
  }
  printf("unknown mode '%s'\n", mode);
  return 2;
}

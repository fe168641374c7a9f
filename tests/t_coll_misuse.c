/* t_coll_misuse.c -- misuse of teams and collectives; run by misuse.sh
 * (see t_atomic_misuse.c for the protocol: EXPECT lines, NOT DETECTED). */
#include "test_util.h"
#include "misuse_util.h"

#include <gasnet_coll.h>



int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "";
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_init(&argc, &argv, "T_COLL_MISUSE", 1 << 16, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size, last = n - 1;
  uint64_t x = 1, y = 0;

  if (!strcmp(mode, "tm_pair")) {
    if (me == last) {
      expect("^libgex: rank %u: gex_Coll_BroadcastNB: .*TM-pair", me);
      gex_Coll_BroadcastNB(gex_TM_Pair(T.ep, 0), 0, &y, &x, 8, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "root_oob")) {
    expect("^libgex: rank %u: gex_Coll_ReduceToOneNB: root %u out of range \\(team size %u\\)",
           last, n, n);
    if (me == last)
      gex_Coll_ReduceToOneNB(T.tm, n, &y, &x, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    if (me == last) not_detected();
    wait_forever();
  }
  if (!strcmp(mode, "bad_op")) {
    if (me == 0) {
      expect("^libgex: rank 0: gex_Coll_ReduceToAllNB: op 0x%x is not a reduction operator for "
             "data type 0x%x", (unsigned)GEX_OP_AND, (unsigned)GEX_DT_DBL);
      gex_Coll_ReduceToAllNB(T.tm, &y, &x, GEX_DT_DBL, 8, 1, GEX_OP_AND, NULL, NULL, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "dt_sz")) {
    if (me == 0) {
      expect("^libgex: rank 0: gex_Coll_ReduceToAllNB: dt_sz 4 does not match data type 0x8");
      gex_Coll_ReduceToAllNB(T.tm, &y, &x, GEX_DT_U64, 4, 1, GEX_OP_ADD, NULL, NULL, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "user_null")) {
    if (me == 0) {
      expect("^libgex: rank 0: gex_Coll_ReduceToAllNB: .*NULL user_op");
      gex_Coll_ReduceToAllNB(T.tm, &y, &x, GEX_DT_USER, 8, 1, GEX_OP_USER, NULL, NULL, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "split_scratch")) {
    /* rank 0 is the first member of the new team and reports */
    expect("^libgex: rank 0: gex_TM_Split: scratch_size %u at parent rank 1 differs from 4096 "
           "at parent rank 0",
           8192u);
    gex_TM_t t;
    gex_TM_Split(&t, T.tm, 0, 0, T.seg_base, me == 1 ? 8192 : 4096, 0);
    not_detected();
  }
  if (!strcmp(mode, "split_noscratch")) {
    expect("^libgex: rank 0: gex_TM_Split: GEX_FLAG_TM_NO_SCRATCH given at parent rank 1 but "
           "absent here");
    gex_TM_t t;
    gex_TM_Split(&t, T.tm, 0, 0, T.seg_base, 4096, me == 1 ? GEX_FLAG_TM_NO_SCRATCH : 0);
    not_detected();
  }
  if (!strcmp(mode, "split_scratch_oob")) {
    if (me == last) {
      expect("^libgex: rank %u: gex_TM_Split: scratch \\[.*\\) outside the bound segment", me);
      gex_TM_t t;
      gex_TM_Split(&t, T.tm, 0, 0, &x, 8, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "create_rank_oob")) {
    if (me == last) {
      expect("^libgex: rank %u: gex_TM_Create: args\\[0\\] rank %u out of range \\(parent team "
             "size %u\\)",
             me, n + 3, n);
      gex_EP_Location_t a = {n + 3, 0};
      gex_TM_t t;
      gex_TM_Create(&t, 1, T.tm, &a, 1, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "create_args_differ")) {
    /* (3 ranks) rank 0 lists {0,1}; ranks 1 and 2 list {0,1,2}: only rank 0
     * is team rank 0, and it sees rank 1 disagree. */
    expect("^libgex: rank 0: gex_TM_Create: numargs/args\\[\\] differ");
    gex_EP_Location_t a[3] = {{0, 0}, {1, 0}, {2, 0}};
    gex_TM_t t;
    gex_TM_Create(me < 3 ? &t : NULL, me < 3, T.tm, a, me == 0 ? 2 : me < 3 ? 3 : 0, NULL, 0,
                  GEX_FLAG_TM_NO_SCRATCH);
    not_detected();
  }
  if (!strcmp(mode, "create_scratch_differ")) {
    expect("^libgex: rank 0: gex_TM_Create: scratch_size 8192 at team rank 1 differs from 4096 "
           "at team rank 0");
    gex_EP_Location_t a[2] = {{0, 0}, {1, 0}};
    gex_Addr_t addr = T.seg_base;
    gex_TM_t t;
    gex_TM_Create(me < 2 ? &t : NULL, me < 2, T.tm, a, me < 2 ? 2 : 0, &addr,
                  me == 1 ? 8192 : 4096, GEX_FLAG_TM_SYMMETRIC_SCRATCH);
    not_detected();
  }
  if (!strcmp(mode, "destroy_primordial")) {
    if (me == 0) {
      expect("^libgex: rank 0: gex_TM_Destroy: the primordial team cannot be destroyed");
      gex_TM_Destroy(T.tm, NULL, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "translate_oob")) {
    if (me == 0) {
      gex_TM_t t;
      expect("^libgex: rank 0: gex_TM_TranslateRankToJobrank: rank 1 out of range \\(team size "
             "1\\)");
      gex_TM_Split(&t, T.tm, (int)me, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
      gex_TM_TranslateRankToJobrank(t, 1);
      not_detected();
    }
    gex_TM_t t;
    gex_TM_Split(&t, T.tm, (int)me, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    wait_forever();
  }
  printf("unknown mode '%s'\n", mode);
  return 2;
}

/* t_atomic_misuse.c -- misuse of the remote atomics API; run by misuse.sh.
 *
 * usage: t_atomic_misuse <mode>
 * One rank commits the misuse after printing "EXPECT <regex>" lines that the
 * libgex diagnostic must match (the call and the offending value); the other
 * ranks poll until the job is ended.  If libgex accepts the misuse the
 * program prints "NOT DETECTED" and exits 0, which misuse.sh reports as a
 * failure.
 */
#include "test_util.h"
#include "misuse_util.h"

#include <gasnet_ratomic.h>



int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "";
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_init(&argc, &argv, "T_ATOMIC_MISUSE", 8192, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size, last = n - 1;

  /* ---- gex_AD_Create (checked at once: one rank suffices) ---- */
  if (!strcmp(mode, "bad_pair")) {
    if (me == last) {
      gex_AD_t ad;
      expect("^libgex: rank %u: gex_AD_Create: .*GEX_OP_AND.*GEX_DT_DBL", me);
      gex_AD_Create(&ad, T.tm, GEX_DT_DBL, GEX_OP_FADD | GEX_OP_AND, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "bad_dt")) {
    gex_AD_t ad;
    expect("^libgex: rank 0: gex_AD_Create: data type GEX_DT_USER ");
    gex_AD_Create(&ad, T.tm, GEX_DT_USER, GEX_OP_ADD, 0);
    not_detected();
  }
  if (!strcmp(mode, "bad_ops")) {
    if (me == 0) {
      gex_AD_t ad;
      expect("^libgex: rank 0: gex_AD_Create: GEX_OP_USER not valid");
      gex_AD_Create(&ad, T.tm, GEX_DT_I32, GEX_OP_ADD | GEX_OP_USER, 0);
      not_detected();
    }
    wait_forever();
  }
  if (!strcmp(mode, "tm_pair")) {
    if (me == last) {
      gex_AD_t ad;
      expect("^libgex: rank %u: gex_AD_Create: .*TM-pair", me);
      gex_AD_Create(&ad, gex_TM_Pair(T.ep, 0), GEX_DT_I64, GEX_OP_ADD, 0);
      not_detected();
    }
    wait_forever();
  }

  /* ---- operations on valid domains (created collectively) ---- */
  gex_AD_t ad64, ad32;
  gex_AD_Create(&ad64, T.tm, GEX_DT_I64, GEX_OP_FADD | GEX_OP_GET | GEX_OP_SET, 0);
  gex_AD_Create(&ad32, T.tm, GEX_DT_U32, GEX_OP_FADD, 0);
  int64_t r64 = 0;
  void *seg0 = T.peer_seg[0];

  if (!strcmp(mode, "ad_invalid")) {
    expect("^libgex: rank 0: gex_AD_OpNB_I64: invalid atomic domain");
    gex_AD_OpNB_I64(GEX_AD_INVALID, &r64, 0, seg0, GEX_OP_FADD, 1, 0, 0);
    not_detected();
  }
  if (me == last) {
    if (!strcmp(mode, "op_not_in_domain")) {
      expect(
          "^libgex: rank %u: gex_AD_OpNB_I64: opcode GEX_OP_FSUB is not one of the "
          "operations of the atomic domain \\(GEX_OP_SET\\|GEX_OP_FADD\\|GEX_OP_GET\\)",
          me);
      gex_AD_OpNB_I64(ad64, &r64, 0, seg0, GEX_OP_FSUB, 1, 0, 0);
      not_detected();
    }
    if (!strcmp(mode, "multi_op")) {
      expect(
          "^libgex: rank %u: gex_AD_OpNBI_I64: opcode GEX_OP_FADD\\|GEX_OP_GET is not a "
          "single GEX_OP_\\* value",
          me);
      gex_AD_OpNBI_I64(ad64, &r64, 0, seg0, GEX_OP_FADD | GEX_OP_GET, 1, 0, 0);
      not_detected();
    }
    if (!strcmp(mode, "misaligned")) {
      void *a = (char *)seg0 + 4;
      expect(
          "^libgex: rank %u: gex_AD_OpNBI_I64: target address %p of rank 0 is not aligned "
          "to 8 bytes",
          me, a);
      gex_AD_OpNBI_I64(ad64, &r64, 0, a, GEX_OP_FADD, 1, 0, 0);
      not_detected();
    }
    if (!strcmp(mode, "rank_oob")) {
      expect("^libgex: rank %u: gex_AD_OpNB_I64: rank %u out of range \\(team size %u\\)", me,
             n + 3, n);
      gex_AD_OpNB_I64(ad64, &r64, n + 3, seg0, GEX_OP_FADD, 1, 0, 0);
      not_detected();
    }
    if (!strcmp(mode, "jobrank_oob")) {
      expect(
          "^libgex: rank %u: gex_AD_OpNB_I64: GEX_FLAG_RANK_IS_JOBRANK: jobrank %u out of "
          "range",
          me, n);
      gex_AD_OpNB_I64(ad64, &r64, n, seg0, GEX_OP_FADD, 1, 0, GEX_FLAG_RANK_IS_JOBRANK);
      not_detected();
    }
    if (!strcmp(mode, "oob_range")) { /* just past the end of rank 0's segment */
      void *a = T.peer_seg[0] + T.peer_size[0];
      expect(
          "^libgex: rank %u: gex_AD_OpNB_U32: address range \\[%p,\\+4\\) outside the "
          "bound segment of rank 0",
          me, a);
      uint32_t r32;
      gex_AD_OpNB_U32(ad32, &r32, 0, a, GEX_OP_FADD, 1, 0, 0);
      not_detected();
    }
    if (!strcmp(mode, "oob_below")) { /* just below rank 0's segment */
      void *a = T.peer_seg[0] - 8;
      expect("^libgex: rank %u: gex_AD_OpNBI_I64: .*%p", me, a);
      gex_AD_OpNBI_I64(ad64, &r64, 0, a, GEX_OP_SET, 1, 0, GEX_FLAG_AD_REL);
      not_detected();
    }
    if (!strcmp(mode, "null_result")) {
      expect(
          "^libgex: rank %u: gex_AD_OpNB_I64: result_p is NULL for the fetching operation "
          "GEX_OP_FADD",
          me);
      gex_AD_OpNB_I64(ad64, NULL, 0, seg0, GEX_OP_FADD, 1, 0, 0);
      not_detected();
    }
    if (!strcmp(mode, "dt_mismatch")) { /* an I64 call on a U32 domain */
      expect("^libgex: rank %u: gex_AD_OpNB_I64: data type mismatch: .*GEX_DT_U32", me);
      gex_AD_OpNB_I64(ad32, &r64, 0, seg0, GEX_OP_FADD, 1, 0, 0);
      not_detected();
    }
    if (!strcmp(mode, "my_rank_wrong")) {
      gex_Rank_t other = (me + 1) % n;
      expect(
          "^libgex: rank %u: gex_AD_OpNBI_I64: GEX_FLAG_AD_MY_RANK, but rank %u is not this "
          "rank \\(%u\\)",
          me, other, me);
      gex_AD_OpNBI_I64(ad64, &r64, other, T.peer_seg[other], GEX_OP_GET, 0, 0, GEX_FLAG_AD_MY_RANK);
      not_detected();
    }
    if (!strcmp(mode, "bad_flags")) {
      expect("^libgex: rank %u: gex_AD_OpNB_I64: flags 0x%x: .*PEER_SEG_OFFSET", me,
             (unsigned)GEX_FLAG_PEER_SEG_OFFSET);
      gex_AD_OpNB_I64(ad64, &r64, 0, 0, GEX_OP_FADD, 1, 0, GEX_FLAG_PEER_SEG_OFFSET);
      not_detected();
    }
  }
  if (me != last) wait_forever();
  fprintf(stderr, "t_atomic_misuse: unknown mode '%s'\n", mode);
  gasnet_exit(2);
}

/* t_vis_misuse.c -- misuse of the VIS API (gasnet_vis.h); run by misuse.sh.
 *
 * usage: t_vis_misuse <mode>
 * The last rank commits the misuse (towards rank (last+1) % n, itself in a
 * job of one rank) after printing "EXPECT <regex>" lines that the libgex
 * diagnostic must match; the other ranks poll until the job is ended.  If
 * libgex accepts the misuse the program prints "NOT DETECTED" and exits 0,
 * which misuse.sh reports as a failure.
 */
#include "test_util.h"
#include "misuse_util.h"

#include <gasnet_vis.h>



#define M(name) if (!strcmp(mode, name))

int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "";
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_init(&argc, &argv, "T_VIS_MISUSE", 8192, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size, last = n - 1;
  if (me != last) wait_forever();
  const gex_Rank_t p = (me + 1) % n;
  unsigned char *rs = T.peer_seg[p];
  const size_t rsz = T.peer_size[p];
  static unsigned char buf[256];
  gex_TM_t tm = T.tm;
  const char *pre = "^libgex: rank [0-9]+: ";

  M("rank_oob") {
    gex_Memvec_t v = {rs, 8}, l = {buf, 8};
    expect("%sgex_VIS_VectorPutBlocking: rank %u out of range \\(team size %u\\)", pre, n, n);
    gex_VIS_VectorPutBlocking(tm, n, 1, &v, 1, &l, 0);
  }
  M("vec_put_oob") {
    gex_Memvec_t v[3] = {{rs, 8}, {rs + 64, 0}, {rs + rsz - 4, 8}}, l = {buf, 16};
    expect("%sgex_VIS_VectorPutNB: destination chunk 2: address range \\[0x[0-9a-f]+,\\+8\\) "
           "outside the bound segment of rank %u \\[",
           pre, p);
    gex_VIS_VectorPutNB(tm, p, 3, v, 1, &l, 0);
  }
  M("vec_get_below") {
    gex_Memvec_t v[2] = {{rs, 8}, {rs - 16, 8}}, l = {buf, 16};
    expect("%sgex_VIS_VectorGetBlocking: source chunk 1: address range .* outside the bound "
           "segment of rank %u",
           pre, p);
    gex_VIS_VectorGetBlocking(tm, 1, &l, p, 2, v, 0);
  }
  M("idx_get_oob") {
    void *r[2] = {rs, rs + rsz}, *l[1] = {buf};
    expect("%sgex_VIS_IndexedGetNBI: source chunk 1: address range \\[0x[0-9a-f]+,\\+8\\) "
           "outside",
           pre);
    gex_VIS_IndexedGetNBI(tm, 1, l, 16, p, 2, r, 8, 0);
  }
  M("idx_put_oob") {
    void *r[2] = {rs + rsz, rs}, *l[1] = {buf};
    expect("%sgex_VIS_IndexedPutBlocking: destination chunk 0: address range .*\\+4\\) outside",
           pre);
    gex_VIS_IndexedPutBlocking(tm, p, 2, r, 4, 1, l, 8, 0);
  }
  M("vec_total") {
    gex_Memvec_t v[2] = {{rs, 8}, {rs + 16, 8}}, l[2] = {{buf, 8}, {buf + 32, 16}};
    expect("%sgex_VIS_VectorPutBlocking: source total 24 bytes != destination total 16 bytes",
           pre);
    gex_VIS_VectorPutBlocking(tm, p, 2, v, 2, l, 0);
  }
  M("idx_total") {
    void *r[3] = {rs, rs + 8, rs + 16}, *l[2] = {buf, buf + 64};
    expect("%sgex_VIS_IndexedGetNB: source total 24 bytes != destination total 16 bytes", pre);
    gex_VIS_IndexedGetNB(tm, 2, l, 8, p, 3, r, 8, 0);
  }
  M("vec_dst_overlap") {
    gex_Memvec_t v[3] = {{rs, 8}, {rs + 32, 8}, {rs + 4, 8}}, l = {buf, 24};
    expect("%sgex_VIS_VectorPutNBI: destination chunks 0 and 2 overlap", pre);
    gex_VIS_VectorPutNBI(tm, p, 3, v, 1, &l, 0);
  }
  M("idx_dst_overlap") {
    void *r[1] = {rs}, *l[3] = {buf, buf + 16, buf + 8};
    expect("%sgex_VIS_IndexedGetBlocking: destination chunks 0 and 2 overlap", pre);
    gex_VIS_IndexedGetBlocking(tm, 3, l, 10, p, 1, r, 30, 0);
  }
  M("str_put_oob") {
    ptrdiff_t ds[2] = {8, 4096}, ss[2] = {8, 32};
    size_t cnt[2] = {4, 4};
    expect("%sgex_VIS_StridedPutBlocking: destination footprint: address range "
           "\\[0x[0-9a-f]+,\\+12320\\) outside the bound segment of rank %u",
           pre, p);
    gex_VIS_StridedPutBlocking(tm, p, rs, ds, buf, ss, 8, cnt, 2, 0);
  }
  M("str_get_oob_reflect") {
    ptrdiff_t ds[1] = {8}, ss[1] = {-8};
    size_t cnt[1] = {4};
    expect("%sgex_VIS_StridedGetNB: source footprint: address range \\[0x[0-9a-f]+,\\+32\\) "
           "outside",
           pre);
    gex_VIS_StridedGetNB(tm, buf, ds, p, rs + 8, ss, 8, cnt, 1, 0);
  }
  M("str_dst_overlap") {
    ptrdiff_t ds[2] = {8, 4}, ss[2] = {8, 16};
    size_t cnt[2] = {2, 3};
    expect("%sgex_VIS_StridedPutNBI: dststrides\\[1\\] = 4 with count\\[1\\] = 3 and elemsz 8: "
           "destination elements overlap",
           pre);
    gex_VIS_StridedPutNBI(tm, p, rs, ds, buf, ss, 8, cnt, 2, 0);
  }
  M("str_zero_stride") {
    ptrdiff_t ds[1] = {0}, ss[1] = {8};
    size_t cnt[1] = {2};
    expect("%sgex_VIS_StridedGetBlocking: dststrides\\[0\\] = 0 with count\\[0\\] = 2 and "
           "elemsz 8: destination elements overlap",
           pre);
    gex_VIS_StridedGetBlocking(tm, buf, ds, p, rs, ss, 8, cnt, 1, 0);
  }
  M("str_overflow") {
    ptrdiff_t ds[2] = {8, 8}, ss[2] = {8, 8};
    size_t cnt[2] = {SIZE_MAX / 2, 4};
    expect("%sgex_VIS_StridedPutBlocking: elemsz 8 x count\\[0\\.\\.0\\] overflows", pre);
    gex_VIS_StridedPutBlocking(tm, p, rs, ds, buf, ss, 8, cnt, 2, 0);
  }
  M("str_null_count") {
    ptrdiff_t ds[2] = {8, 64}, ss[2] = {8, 64};
    expect("%sgex_VIS_StridedPutBlocking: stridelevels 2 with a NULL count array", pre);
    gex_VIS_StridedPutBlocking(tm, p, rs, ds, buf, ss, 8, NULL, 2, 0);
  }
  M("get_leaf_lc") {
    gex_Memvec_t v = {rs, 8}, l = {buf, 8};
    expect("%sgex_VIS_VectorGetNBI: invalid flags 0x%x \\(allowed: GEX_FLAG_IMMEDIATE\\)", pre,
           (unsigned)GEX_FLAG_ENABLE_LEAF_LC);
    gex_VIS_VectorGetNBI(tm, 1, &l, p, 1, &v, GEX_FLAG_ENABLE_LEAF_LC);
  }
  M("bad_flags") {
    ptrdiff_t st[1] = {8};
    size_t cnt[1] = {2};
    expect("%sgex_VIS_StridedPutNB: invalid flags 0x%x \\(allowed: GEX_FLAG_IMMEDIATE, "
           "GEX_FLAG_ENABLE_LEAF_LC\\)",
           pre, (unsigned)GEX_FLAG_RANK_IS_JOBRANK);
    gex_VIS_StridedPutNB(tm, p, rs, st, buf, st, 8, cnt, 1, GEX_FLAG_RANK_IS_JOBRANK);
  }
  M("pc_too_big") {
    expect("%sgex_VIS_SetPeerCompletionHandler: nbytes 128 exceeds the maximum 127", pre);
    gex_VIS_SetPeerCompletionHandler(200, buf, 128, 0);
  }
  M("pc_get") {
    gex_Memvec_t v = {rs, 8}, l = {buf, 8};
    gex_VIS_SetPeerCompletionHandler(200, buf, 8, 0);
    expect("%sgex_VIS_VectorGetNB: a peer completion handler is armed, but peer completion is "
           "supported for Puts only",
           pre);
    gex_VIS_VectorGetNB(tm, 1, &l, p, 1, &v, 0);
  }
  M("pc_immediate") {
    ptrdiff_t st[1] = {8};
    size_t cnt[1] = {2};
    gex_VIS_SetPeerCompletionHandler(200, NULL, 0, 0);
    expect("%sgex_VIS_StridedPutNBI: GEX_FLAG_IMMEDIATE with an armed peer completion handler",
           pre);
    gex_VIS_StridedPutNBI(tm, p, rs, st, buf, st, 8, cnt, 1, GEX_FLAG_IMMEDIATE);
  }
  not_detected();
}

/* t_vis_pc.c -- VIS peer completion (gex_VIS_SetPeerCompletionHandler).
 *
 * Every rank, for every peer p including itself and ITERS rounds, arms a
 * 0-argument AM Medium Reply handler with a payload naming (initiator,
 * round, payload length), then issues one vector, indexed or strided Put
 * (Blocking / NB / NBI in turn) into a block of p's segment reserved for
 * (initiator, round).  The handler, run at p, checks the payload, that the
 * token names the initiator, and that the Put's data is already visible;
 * then counts.  Every rank polls until it has counted one completion per
 * (initiator, round).  Also: disarming (handler 0) cancels the notification;
 * a no-op strided Put still notifies.
 */
#include "test_util.h"

#include <gasnet_vis.h>

#define H_PC 201
#define ITERS 12
#define BLK 96
#define ELEM 8 /* strided: 4 elements of 8 bytes every 16 bytes */

static uint64_t received;          /* completions counted by the handler */
static uint64_t noop_received;     /* completions of no-op strided Puts */

static size_t blk_off(gex_Rank_t initiator, int it) {
  return ((size_t)initiator * (ITERS + 1) + (size_t)it) * BLK;
}
static uint64_t data_seed(gex_Rank_t initiator, gex_Rank_t target, int it) {
  return test_seed(initiator, target, (uint64_t)it, 77);
}

struct pc_msg {
  uint32_t initiator, iter, magic;
  unsigned char fill[100];
};

static void h_pc(gex_Token_t t, void *buf, size_t nbytes) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  struct pc_msg m;
  CHECKF(nbytes >= 12 && nbytes <= sizeof m, "payload %zu bytes", nbytes);
  memcpy(&m, buf, nbytes);
  CHECK(m.magic == 0xC0FFEEu);
  CHECK(m.initiator == info.gex_srcrank);
  if (m.iter == ITERS) { /* no-op Put: nothing to look at */
    CHECK(nbytes == 12);
    __atomic_add_fetch(&noop_received, 1, __ATOMIC_RELEASE);
    return;
  }
  CHECK(m.iter < ITERS);
  /* the payload's length encodes the round: 12 + iter * 7 (<= 89) */
  CHECKF(nbytes == 12 + (size_t)m.iter * 7, "payload %zu bytes, round %u", nbytes, m.iter);
  for (size_t i = 0; i < nbytes - 12; i++) CHECK(m.fill[i] == (unsigned char)(m.iter + i));
  /* The data has landed: the block holds the pattern (strided rounds: only
   * the elements, the gaps keep the guard byte 0). */
  const unsigned char *b = T.seg_base + blk_off(m.initiator, (int)m.iter);
  uint64_t seed = data_seed(m.initiator, T.rank, (int)m.iter);
  if (m.iter % 3 == 2) {
    for (size_t e = 0; e < 4; e++) {
      CHECK_PATTERN(b + e * 16, ELEM, seed + e);
      CHECK_BYTES(b + e * 16 + ELEM, 16 - ELEM, 0);
    }
  } else {
    CHECK_PATTERN(b, 64, seed);
  }
  __atomic_add_fetch(&received, 1, __ATOMIC_RELEASE);
}

static uintptr_t seg_size(gex_Rank_t rank, gex_Rank_t size) {
  (void)rank;
  return (uintptr_t)size * (ITERS + 1) * BLK;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  gex_AM_Entry_t tab[] = {
      {H_PC, (gex_AM_Fn_t)h_pc, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "vis_pc"}};
  test_seg_size_fn = seg_size;
  test_init(&argc, &argv, "T_VIS_PC", 0, tab, 1);
  const gex_Rank_t me = T.rank, n = T.size;
  memset(T.seg_base, 0, T.seg_size);
  test_barrier();

  unsigned char src[4 * 16];
  for (int it = 0; it < ITERS; it++) {
    for (gex_Rank_t k = 0; k < n; k++) {
      gex_Rank_t p = (me + k) % n;
      unsigned char *dst = test_peer_addr(p, blk_off(me, it));
      uint64_t seed = data_seed(me, p, it);
      struct pc_msg m = {me, (uint32_t)it, 0xC0FFEEu, {0}};
      size_t plen = 12 + (size_t)it * 7;
      for (size_t i = 0; i < plen - 12; i++) m.fill[i] = (unsigned char)(it + (int)i);
      /* a decoy armed first and disarmed: must never be delivered */
      gex_VIS_SetPeerCompletionHandler(H_PC + 1, &m, 4, 0);
      gex_VIS_SetPeerCompletionHandler(0, NULL, 0, 0);
      gex_VIS_SetPeerCompletionHandler(H_PC, &m, plen, 0);
      int form = (it / 3) % 3, rc = 0;
      gex_Event_t ev = GEX_EVENT_INVALID;
      gex_Flags_t fl = (it & 1) ? GEX_FLAG_ENABLE_LEAF_LC : 0;
      if (it % 3 == 0) { /* vector: 64 bytes from two local chunks into three remote ones */
        test_fill(src, 64, seed);
        gex_Memvec_t d[3] = {{dst, 10}, {dst + 10, 0}, {dst + 10, 54}};
        gex_Memvec_t s[2] = {{src, 40}, {src + 40, 24}};
        if (form == 0) rc = gex_VIS_VectorPutBlocking(T.tm, p, 3, d, 2, s, fl);
        if (form == 1) ev = gex_VIS_VectorPutNB(T.tm, p, 3, d, 2, s, fl);
        if (form == 2) rc = gex_VIS_VectorPutNBI(T.tm, p, 3, d, 2, s, fl);
      } else if (it % 3 == 1) { /* indexed: 4 x 16 remote, 2 x 32 local */
        test_fill(src, 64, seed);
        void *d[4] = {dst + 48, dst, dst + 16, dst + 32}, *s[2] = {src + 32, src};
        /* stream: src[32..64) then src[0..32) -> dst+48, dst, dst+16, dst+32 */
        unsigned char tmp[64];
        memcpy(tmp, src, 64);
        memcpy(src + 32, tmp + 48, 16); /* so that dst ends up holding the pattern */
        memcpy(src + 48, tmp, 16);
        memcpy(src, tmp + 16, 32);
        if (form == 0) rc = gex_VIS_IndexedPutBlocking(T.tm, p, 4, d, 16, 2, s, 32, fl);
        if (form == 1) ev = gex_VIS_IndexedPutNB(T.tm, p, 4, d, 16, 2, s, 32, fl);
        if (form == 2) rc = gex_VIS_IndexedPutNBI(T.tm, p, 4, d, 16, 2, s, 32, fl);
      } else { /* strided: 4 elements, packed locally, every 16 bytes remotely */
        for (size_t e = 0; e < 4; e++) test_fill(src + e * ELEM, ELEM, seed + e);
        ptrdiff_t ds[1] = {16}, ss[1] = {ELEM};
        size_t cnt[1] = {4};
        if (form == 0)
          rc = gex_VIS_StridedPutBlocking(T.tm, p, dst, ds, src, ss, ELEM, cnt, 1, fl);
        if (form == 1) ev = gex_VIS_StridedPutNB(T.tm, p, dst, ds, src, ss, ELEM, cnt, 1, fl);
        if (form == 2) rc = gex_VIS_StridedPutNBI(T.tm, p, dst, ds, src, ss, ELEM, cnt, 1, fl);
      }
      CHECK(rc == 0);
      test_wait(ev);
      gex_NBI_Wait(GEX_EC_PUT, 0);
      /* the payload is reusable on return (on-node completion) */
      memset(&m, 0xFF, sizeof m);
    }
  }
  /* a strided Put with a zero count is a no-op but still notifies */
  for (gex_Rank_t k = 0; k < n; k++) {
    struct pc_msg m = {me, ITERS, 0xC0FFEEu, {0}};
    ptrdiff_t st[2] = {8, 64};
    size_t cnt[2] = {3, 0};
    gex_VIS_SetPeerCompletionHandler(H_PC, &m, 12, 0);
    CHECK(gex_VIS_StridedPutBlocking(T.tm, (me + k) % n, NULL, st, NULL, st, 8, cnt, 2, 0) == 0);
  }
  GASNET_BLOCKUNTIL(__atomic_load_n(&received, __ATOMIC_ACQUIRE) >= (uint64_t)n * ITERS &&
                    __atomic_load_n(&noop_received, __ATOMIC_ACQUIRE) >= n);
  test_barrier();
  for (int i = 0; i < 100; i++) gasnet_AMPoll();
  CHECK(received == (uint64_t)n * ITERS);
  CHECK(noop_received == n);
  test_finish();
}

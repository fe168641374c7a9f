/* t_rma.c -- contiguous RMA: PutBlocking, PutNB, PutNBI, GetBlocking, GetNB
 * and GetNBI between every pair of ranks (self included), sizes 1 byte to
 * several KiB plus 1 MiB, at unaligned source and destination addresses.
 * Every transferred byte is verified at its destination, and the bytes
 * around each transfer must be untouched (no overrun, no underrun).
 *
 * Target segment layout: one region per source rank; inside it one slot per
 * size: [guard | data at unaligned shift | guard].
 */
#include "test_util.h"

static const size_t sizes[] = {1,    2,    3,    4,    5,    6,    7,    8,    9,    10,   11,
                               12,   13,   14,   15,   16,   17,   31,   32,   33,   63,   64,
                               65,   127,  128,  129,  255,  256,  257,  511,  512,  513,  1000,
                               1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192,
                               8193, 12345, 16384, 16385, (size_t)1 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define SLOT_PAD 32 /* guard before (incl. shift room) and after each slot */

enum { PUT_BLOCKING, PUT_NB, PUT_NBI, GET_BLOCKING, GET_NB, GET_NBI, NFORMS };
static const char *form_name[NFORMS] = {"PutBlocking", "PutNB", "PutNBI",
                                        "GetBlocking", "GetNB", "GetNBI"};

static size_t slot_off[NSIZES];
static size_t region_size;

#define GUARD_TGT 0xA5
#define GUARD_LOC 0x5A

static size_t shift_of(size_t k, gex_Rank_t a, gex_Rank_t b) { return (k * 5 + a * 3 + b) % 8; }

static uintptr_t layout(void) {
  size_t off = 0;
  for (size_t k = 0; k < NSIZES; k++) {
    slot_off[k] = off;
    off += SLOT_PAD + sizes[k] + SLOT_PAD;
  }
  region_size = (off + 63) / 64 * 64;
  return region_size;
}

static unsigned char *region_of(gex_Rank_t src) { return T.seg_base + src * region_size; }

/* data address of slot k in the region of src, in the segment of 'owner' */
static unsigned char *remote_slot(gex_Rank_t owner, gex_Rank_t src, size_t k) {
  return T.peer_seg[owner] + src * region_size + slot_off[k] + SLOT_PAD +
         shift_of(k, src, owner);
}

static void verify_region(gex_Rank_t src, uint64_t salt) {
  unsigned char *reg = region_of(src);
  for (size_t k = 0; k < NSIZES; k++) {
    size_t sh = shift_of(k, src, T.rank);
    unsigned char *slot = reg + slot_off[k];
    unsigned char *data = slot + SLOT_PAD + sh;
    CHECK_BYTES(slot, SLOT_PAD + sh, GUARD_TGT);
    long bad = test_verify(data, sizes[k], test_seed(src, T.rank, k, salt));
    CHECKF(bad < 0, "%s from rank %u, %zu bytes: byte %ld wrong",
           form_name[salt < NFORMS ? salt : 0], src, sizes[k], bad);
    CHECK_BYTES(data + sizes[k], SLOT_PAD - sh, GUARD_TGT);
  }
}

static void put_round(int form, unsigned char *srcbuf) {
  const gex_Rank_t me = T.rank, n = T.size;
  memset(T.seg_base, GUARD_TGT, region_size * n);
  test_barrier();
  gex_Event_t *evs = calloc(NSIZES, sizeof *evs);
  CHECK(evs);
  for (gex_Rank_t i = 0; i < n; i++) {
    gex_Rank_t p = (me + i) % n; /* self first, then the others in turn */
    for (size_t k = 0; k < NSIZES; k++) {
      /* each source at its own unaligned offset in srcbuf */
      unsigned char *src = srcbuf + slot_off[k] + SLOT_PAD + (k + p) % 8;
      test_fill(src, sizes[k], test_seed(me, p, k, (uint64_t)form));
      void *dst = remote_slot(p, me, k);
      evs[k] = GEX_EVENT_INVALID;
      switch (form) {
        case PUT_BLOCKING:
          CHECK(gex_RMA_PutBlocking(T.tm, p, dst, src, sizes[k], 0) == 0);
          break;
        case PUT_NB: {
          gex_Event_t lc = GEX_EVENT_NO_OP;
          gex_Event_t *lcp = (k % 3 == 0) ? GEX_EVENT_DEFER : (k % 3 == 1) ? GEX_EVENT_NOW : &lc;
          evs[k] = gex_RMA_PutNB(T.tm, p, dst, src, sizes[k], lcp, 0);
          CHECK(evs[k] != GEX_EVENT_NO_OP);
          if (lcp == &lc) {
            CHECK(lc != GEX_EVENT_NO_OP);
            gex_Event_Wait(lc);
          }
          if (k % 4 == 0) { /* some waited at once, the rest all together */
            gex_Event_Wait(evs[k]);
            evs[k] = GEX_EVENT_INVALID;
          }
          break;
        }
        case PUT_NBI: {
          gex_Event_t *lcp = (k % 2) ? GEX_EVENT_DEFER : GEX_EVENT_NOW;
          CHECK(gex_RMA_PutNBI(T.tm, p, dst, src, sizes[k], lcp, 0) == 0);
          break;
        }
      }
    }
    /* sources are refilled for the next peer: complete this peer's first */
    if (form == PUT_NB) {
      gex_Event_WaitAll(evs, NSIZES, 0);
      for (size_t k = 0; k < NSIZES; k++) CHECK(evs[k] == GEX_EVENT_INVALID);
    }
    if (form == PUT_NBI) gex_NBI_Wait(GEX_EC_PUT, 0);
  }
  free(evs);
  test_barrier();
  for (gex_Rank_t s = 0; s < n; s++) verify_region(s, (uint64_t)form);
  test_barrier();
}

static void get_round(int form, unsigned char *dstbuf_priv) {
  const gex_Rank_t me = T.rank, n = T.size;
  /* publish in my segment the data every rank s will Get from me */
  memset(T.seg_base, GUARD_TGT, region_size * n);
  for (gex_Rank_t s = 0; s < n; s++)
    for (size_t k = 0; k < NSIZES; k++)
      test_fill(region_of(s) + slot_off[k] + SLOT_PAD + shift_of(k, s, me), sizes[k],
                test_seed(me, s, k, (uint64_t)form));
  test_barrier();
  gex_Event_t *evs = calloc(NSIZES, sizeof *evs);
  CHECK(evs);
  /* destination: private memory for odd peers, my own segment's scratch area for even */
  unsigned char *seg_scratch = T.seg_base + region_size * n;
  for (gex_Rank_t i = 0; i < n; i++) {
    gex_Rank_t p = (me + n - i) % n;
    unsigned char *dbuf = (p % 2) ? dstbuf_priv : seg_scratch;
    memset(dbuf, GUARD_LOC, region_size);
    for (size_t k = 0; k < NSIZES; k++) {
      unsigned char *dst = dbuf + slot_off[k] + SLOT_PAD + (k + 3 * p) % 8;
      void *src = (void *)(T.peer_seg[p] + me * region_size + slot_off[k] + SLOT_PAD +
                           shift_of(k, me, p));
      evs[k] = GEX_EVENT_INVALID;
      switch (form) {
        case GET_BLOCKING:
          CHECK(gex_RMA_GetBlocking(T.tm, dst, p, src, sizes[k], 0) == 0);
          break;
        case GET_NB:
          evs[k] = gex_RMA_GetNB(T.tm, dst, p, src, sizes[k], 0);
          CHECK(evs[k] != GEX_EVENT_NO_OP);
          if (k % 4 == 1) {
            gex_Event_Wait(evs[k]);
            evs[k] = GEX_EVENT_INVALID;
          }
          break;
        case GET_NBI:
          CHECK(gex_RMA_GetNBI(T.tm, dst, p, src, sizes[k], 0) == 0);
          break;
      }
    }
    if (form == GET_NB) {
      gex_Event_WaitAll(evs, NSIZES, 0);
      for (size_t k = 0; k < NSIZES; k++) CHECK(evs[k] == GEX_EVENT_INVALID);
    }
    if (form == GET_NBI) gex_NBI_Wait(GEX_EC_GET, 0);
    for (size_t k = 0; k < NSIZES; k++) {
      size_t sh = (k + 3 * p) % 8;
      unsigned char *slot = dbuf + slot_off[k];
      CHECK_BYTES(slot, SLOT_PAD + sh, GUARD_LOC);
      long bad = test_verify(slot + SLOT_PAD + sh, sizes[k], test_seed(p, me, k, (uint64_t)form));
      CHECKF(bad < 0, "%s from rank %u, %zu bytes: byte %ld wrong", form_name[form], p,
             sizes[k], bad);
      CHECK_BYTES(slot + SLOT_PAD + sh + sizes[k], SLOT_PAD - sh, GUARD_LOC);
    }
  }
  free(evs);
  test_barrier();
}

static uintptr_t seg_size_for(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return region_size * (n + 1); /* a region per source rank, plus scratch */
}

int main(int argc, char **argv) {
  layout();
  test_seg_size_fn = seg_size_for;
  test_init(&argc, &argv, "T_RMA", 0, NULL, 0);
  CHECKF(T.seg_size >= region_size * (T.size + 1), "segment too small for %u ranks", T.size);

  unsigned char *srcbuf = malloc(region_size);
  unsigned char *dstbuf = malloc(region_size);
  CHECK(srcbuf && dstbuf);
  for (int f = PUT_BLOCKING; f <= PUT_NBI; f++) {
    put_round(f, srcbuf);
    test_log0("%s ok", form_name[f]);
  }
  for (int f = GET_BLOCKING; f <= GET_NBI; f++) {
    get_round(f, dstbuf);
    test_log0("%s ok", form_name[f]);
  }
  free(srcbuf);
  free(dstbuf);
  test_finish();
}

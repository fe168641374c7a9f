/* t_rma_val.c -- value-based RMA: gex_RMA_PutBlockingVal, PutNBIVal, PutNBVal
 * and GetBlockingVal with nbytes 1, 2, 4 and 8, aligned and unaligned, to
 * every rank including self.  A value of nbytes lands in memory as an object
 * of that size would (its low-order bytes); bytes around it are untouched.
 */
#include "test_util.h"

static const size_t widths[] = {1, 2, 4, 8};
#define NW 4
#define NFORM 3 /* PutBlockingVal, PutNBIVal, PutNBVal */
#define SLOT 32 /* [8 guard][value at offset 8 + shift][rest guard] */
#define NSHIFT 4
#define REGION (NFORM * NW * NSHIFT * SLOT)
#define GUARD 0xC3

static size_t shift_val(int s) { return (size_t)(s == 0 ? 0 : s == 1 ? 1 : s == 2 ? 3 : 5); }

static size_t slot_of(int form, int w, int s) { return (size_t)((form * NW + w) * NSHIFT + s) * SLOT; }

static gex_RMA_Value_t value_for(gex_Rank_t src, gex_Rank_t dst, int form, int w, int s) {
  return (gex_RMA_Value_t)test_seed(src, dst, (uint64_t)(form * 100 + w * 10 + s), 5);
}

/* the bytes an object of width nbytes holding v has in memory */
static void value_bytes(gex_RMA_Value_t v, size_t nbytes, unsigned char *out) {
  switch (nbytes) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(out, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(out, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(out, &x, 4); break; }
    default: { uint64_t x = (uint64_t)v; memcpy(out, &x, 8); break; }
  }
}

static gex_RMA_Value_t truncate_to(gex_RMA_Value_t v, size_t nbytes) {
  return nbytes == 8 ? v : (v & (((gex_RMA_Value_t)1 << (8 * nbytes)) - 1));
}

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  return (uintptr_t)REGION * n;
}

int main(int argc, char **argv) {
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_RMA_VAL", 0, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size;
  memset(T.seg_base, GUARD, (size_t)REGION * n);
  test_barrier();

  /* ---- Puts ---- */
  for (gex_Rank_t i = 0; i < n; i++) {
    gex_Rank_t p = (me + i) % n;
    gex_Event_t evs[NW * NSHIFT];
    int nev = 0;
    for (int form = 0; form < NFORM; form++)
      for (int w = 0; w < NW; w++)
        for (int s = 0; s < NSHIFT; s++) {
          void *dst = T.peer_seg[p] + (size_t)REGION * me + slot_of(form, w, s) + 8 + shift_val(s);
          gex_RMA_Value_t v = value_for(me, p, form, w, s);
          if (form == 0) {
            CHECK(gex_RMA_PutBlockingVal(T.tm, p, dst, v, widths[w], 0) == 0);
          } else if (form == 1) {
            CHECK(gex_RMA_PutNBIVal(T.tm, p, dst, v, widths[w], 0) == 0);
          } else {
            gex_Event_t ev = gex_RMA_PutNBVal(T.tm, p, dst, v, widths[w], 0);
            CHECK(ev != GEX_EVENT_NO_OP);
            evs[nev++] = ev;
          }
        }
    gex_Event_WaitAll(evs, (size_t)nev, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
  }
  test_barrier();
  for (gex_Rank_t src = 0; src < n; src++)
    for (int form = 0; form < NFORM; form++)
      for (int w = 0; w < NW; w++)
        for (int s = 0; s < NSHIFT; s++) {
          unsigned char *slot = T.seg_base + (size_t)REGION * src + slot_of(form, w, s);
          size_t off = 8 + shift_val(s);
          unsigned char want[8];
          value_bytes(value_for(src, me, form, w, s), widths[w], want);
          CHECK_BYTES(slot, off, GUARD);
          CHECKF(memcmp(slot + off, want, widths[w]) == 0,
                 "Val form %d width %zu shift %d from rank %u: wrong bytes", form, widths[w], s,
                 src);
          CHECK_BYTES(slot + off + widths[w], SLOT - off - widths[w], GUARD);
        }
  test_barrier();

  /* ---- GetBlockingVal: read values the owner stored as objects ---- */
  for (gex_Rank_t src = 0; src < n; src++)
    for (int w = 0; w < NW; w++)
      for (int s = 0; s < NSHIFT; s++) {
        unsigned char *slot = T.seg_base + (size_t)REGION * src + slot_of(0, w, s);
        value_bytes(value_for(me, src, 7, w, s), widths[w], slot + 8 + shift_val(s));
      }
  test_barrier();
  for (gex_Rank_t i = 0; i < n; i++) {
    gex_Rank_t p = (me + n - i) % n;
    for (int w = 0; w < NW; w++)
      for (int s = 0; s < NSHIFT; s++) {
        void *src = T.peer_seg[p] + (size_t)REGION * me + slot_of(0, w, s) + 8 + shift_val(s);
        gex_RMA_Value_t got = gex_RMA_GetBlockingVal(T.tm, p, src, widths[w], 0);
        gex_RMA_Value_t want = truncate_to(value_for(p, me, 7, w, s), widths[w]);
        CHECKF(got == want, "GetBlockingVal width %zu from rank %u: got 0x%" PRIx64
               " want 0x%" PRIx64, widths[w], p, (uint64_t)got, (uint64_t)want);
      }
  }
  test_finish();
}

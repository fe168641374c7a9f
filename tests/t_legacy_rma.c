/* t_legacy_rma.c -- the GASNet-1 initialisation and RMA calls (gasnet.h).
 *
 * A GASNet-1 client (gasnet_init, gasnet_attach) checks the segment and node
 * queries against the GASNet-EX ones, then moves bytes with every Put, Get,
 * value, memset and prototype VIS form, synchronising with every sync call,
 * and verifies each byte (through gex_RMA_GetBlocking / PutBlocking, so a
 * legacy call is never checked only by another legacy call).
 *
 * Each rank writes into the segment of its right neighbour (region IN) and
 * reads from the region SRC that every rank fills with its own pattern.
 */
#include <gasnet.h>
#include <gasnet_vis.h>

#include "legacy_util.h"

/* The core's wait policy (src/core/hooks.h; libgex is linked in statically). */
int gexi_wait_mode(void);
void gexi_set_wait_mode(int mode);

enum { IN_OFF = 0, IN_SIZE = 1 << 17, SRC_OFF = IN_SIZE, SRC_SIZE = 1 << 17,
       SEG = IN_SIZE + SRC_SIZE };

static const size_t sizes[] = {1, 2, 3, 7, 8, 9, 64, 4099, 40000, IN_SIZE / 2};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static gex_Rank_t right, left;
static unsigned char *dst_in;  /* right neighbour's IN region (its address space) */
static unsigned char *src_of(gex_Rank_t r) { return T.peer_seg[r] + SRC_OFF; }
static uint64_t seed_src(gex_Rank_t r) { return test_seed(r, 77, 0, 0); }

/* Read back n bytes of the right neighbour's IN region and compare. */
static void check_remote(size_t off, size_t n, uint64_t seed) {
  unsigned char *buf = malloc(n);
  CHECK(buf);
  gex_RMA_GetBlocking(T.tm, buf, right, dst_in + off, n, 0);
  CHECK_PATTERN(buf, n, seed);
  free(buf);
}

/* Read back n bytes of the right neighbour's IN region and compare with want. */
static void check_remote_mem(size_t off, const void *want, size_t n) {
  unsigned char *buf = malloc(n);
  CHECK(buf);
  gex_RMA_GetBlocking(T.tm, buf, right, dst_in + off, n, 0);
  CHECKF(memcmp(buf, want, n) == 0, "%zu bytes at offset %zu of rank %u", n, off, (unsigned)right);
  free(buf);
}

/* The n-byte integer at 'off' of the right neighbour's IN region. */
static uint64_t remote_int(size_t off, size_t n) {
  unsigned char b[8];
  uint64_t v = 0;
  gex_RMA_GetBlocking(T.tm, b, right, dst_in + off, n, 0);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  memcpy((char *)&v + 8 - n, b, n);
#else
  memcpy(&v, b, n);
#endif
  return v;
}

static void check_remote_byte(size_t off, size_t n, unsigned char c) {
  unsigned char *buf = malloc(n);
  CHECK(buf);
  gex_RMA_GetBlocking(T.tm, buf, right, dst_in + off, n, 0);
  CHECK_BYTES(buf, n, c);
  free(buf);
}

static void test_queries(void) {
  CHECK(gasnet_mynode() == gex_System_QueryJobRank());
  CHECK(gasnet_nodes() == gex_System_QueryJobSize());
  CHECK(gasneti_mynode == gasnet_mynode());
  CHECK(gasnet_getMaxLocalSegmentSize() >= gasnet_getMaxGlobalSegmentSize());
  /* A second gasnet_init or gasnet_attach is refused. */
  int argc = 0;
  char **argv = NULL;
  CHECK(gasnet_init(&argc, &argv) == GASNET_ERR_NOT_INIT);
  CHECK(gasnet_attach(NULL, 0, GASNET_PAGESIZE, 0) == GASNET_ERR_NOT_INIT);

  gasnet_seginfo_t *si = calloc(T.size, sizeof *si);
  CHECK(si);
  CHECK(gasnet_getSegmentInfo(si, (int)T.size) == GASNET_OK);
  for (gex_Rank_t r = 0; r < T.size; r++) {
    void *owner = NULL;
    uintptr_t size = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(T.tm, r, &owner, NULL, &size, 0));
    CHECK(si[r].addr == owner);
    CHECK(si[r].size == size);
    CHECK(si[r].size >= SEG && si[r].size % GASNET_PAGESIZE == 0);
  }
  /* A short table gets only its entries. */
  memset(si, 0xA5, T.size * sizeof *si);
  CHECK(gasnet_getSegmentInfo(si, 1) == GASNET_OK);
  CHECK(si[0].addr == T.peer_seg[0]);
  if (T.size > 1) CHECK_BYTES(&si[1], sizeof *si, 0xA5);
  free(si);

  gasnet_nodeinfo_t *ni = calloc(T.size, sizeof *ni);
  CHECK(ni);
  CHECK(gasnet_getNodeInfo(ni, (int)T.size) == GASNET_OK);
  gex_Rank_t nb_count, nb_rank, host_count, host_rank;
  gex_System_QueryMyPosition(&nb_count, &nb_rank, &host_count, &host_rank);
  CHECK(ni[T.rank].supernode == nb_rank);
  CHECK(ni[T.rank].host == host_rank);
  gex_RankInfo_t *nbrs;
  gex_Rank_t nbr_size;
  gex_System_QueryNbrhdInfo(&nbrs, &nbr_size, NULL);
  gex_Rank_t same_nbrhd = 0, same_host = 0;
  for (gex_Rank_t r = 0; r < T.size; r++) {
    CHECK(ni[r].supernode < nb_count && ni[r].host < host_count);
    same_nbrhd += ni[r].supernode == nb_rank;
    same_host += ni[r].host == host_rank;
    void *owner = NULL, *local = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(T.tm, r, &owner, &local, NULL, 0));
    if (local) {
      CHECK(ni[r].supernode == nb_rank);
      CHECK((void *)((uintptr_t)owner + ni[r].offset) == local);
    } else {
      CHECK(ni[r].offset == 0);
    }
  }
  CHECK(same_nbrhd == nbr_size);
  gex_System_QueryHostInfo(NULL, &nbr_size, NULL);
  CHECK(same_host == nbr_size);
  for (gex_Rank_t i = 0; i < same_nbrhd; i++) CHECK(ni[nbrs[i].gex_jobrank].supernode == nb_rank);
  free(ni);

  /* The GEX objects are the ones the GASNet-1 calls use. */
  gex_Client_t c;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  gasnet_QueryGexObjects(&c, &ep, &tm, &seg);
  CHECK(gex_TM_QueryEP(tm) == ep && gex_EP_QueryClient(ep) == c);
  CHECK(gex_Client_QueryFlags(c) & GEX_FLAG_USES_GASNET1);
  CHECK(gex_Segment_QueryAddr(seg) == T.seg_base);
}

static void test_misc(void) {
  /* Each mode is libgex's wait policy from then on (core/hooks.h: 0 yield,
   * 1 block, 2 spin); a bad one changes nothing.  The job's waits go on
   * in each (a barrier, with every rank in the mode). */
  const int start = gexi_wait_mode();
  CHECK(gasnet_set_waitmode(GASNET_WAIT_BLOCK) == GASNET_OK);
  CHECK(gexi_wait_mode() == 1);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK);
  CHECK(gasnet_set_waitmode(GASNET_WAIT_SPINBLOCK) == GASNET_OK);
  CHECK(gexi_wait_mode() == 0);
  CHECK(gasnet_set_waitmode(GASNET_WAIT_SPIN) == GASNET_OK);
  CHECK(gexi_wait_mode() == 2);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK);
  CHECK(gasnet_set_waitmode(17) == GASNET_ERR_BAD_ARG);
  CHECK(gexi_wait_mode() == 2);
  gexi_set_wait_mode(start); /* GEX_WAIT_MODE's, for the rest of the test */
  const char *scale = getenv("GEX_TEST_SCALE");
  const char *via = gasnet_getenv("GEX_TEST_SCALE");
  CHECK((scale == NULL) == (via == NULL));
  if (scale) CHECK(strcmp(scale, via) == 0);
  CHECK(gasnet_getenv("GEX_TEST_SURELY_UNSET_VARIABLE") == NULL);
  gasnet_threadinfo_t ti;
  {
    GASNET_BEGIN_FUNCTION();
    ti = GASNET_GET_THREADINFO();
  }
  GASNET_POST_THREADINFO(ti);
  CHECK(GASNET_GET_THREADINFO() == ti);
  gasnet_hold_interrupts();
  gasnet_resume_interrupts();
  CHECK(gasnet_AMMaxArgs() == 16);
  CHECK(gasnet_AMMaxMedium() >= 512);
  CHECK(gasnet_AMMaxLongRequest() >= 512 && gasnet_AMMaxLongReply() >= 512);
  CHECK(GASNET_VERSION == 1);
}

/* ---- Puts ---------------------------------------------------------------------- */
enum { PUT_BLOCKING, PUT_BULK, PUT_NB, PUT_NB_BULK, PUT_NBI, PUT_NBI_BULK, NPUTFORMS };
static const char *const put_name[] = {"put", "put_bulk", "put_nb", "put_nb_bulk", "put_nbi",
                                       "put_nbi_bulk"};

static void test_puts(void) {
  unsigned char *src = malloc(IN_SIZE);
  CHECK(src);
  for (int form = 0; form < NPUTFORMS; form++) {
    for (size_t k = 0; k < NSIZES; k++) {
      size_t n = sizes[k], off = (k * 613) % (IN_SIZE - n + 1);
      uint64_t seed = test_seed(T.rank, form, k, 1);
      test_fill(src, n, seed);
      void *dest = dst_in + off;
      gasnet_handle_t h = GASNET_INVALID_HANDLE;
      switch (form) {
        case PUT_BLOCKING: gasnet_put(right, dest, src, n); break;
        case PUT_BULK: gasnet_put_bulk(right, dest, src, n); break;
        case PUT_NB:
          h = gasnet_put_nb(right, dest, src, n);
          memset(src, 0xEE, n); /* non-bulk: the source is free on return */
          gasnet_wait_syncnb(h);
          break;
        case PUT_NB_BULK:
          h = gasnet_put_nb_bulk(right, dest, src, n);
          while (gasnet_try_syncnb(h) != GASNET_OK) {
          }
          break;
        case PUT_NBI:
          gasnet_put_nbi(right, dest, src, n);
          memset(src, 0xEE, n);
          gasnet_wait_syncnbi_puts();
          break;
        case PUT_NBI_BULK:
          gasnet_put_nbi_bulk(right, dest, src, n);
          while (gasnet_try_syncnbi_puts() != GASNET_OK) {
          }
          break;
      }
      (void)put_name;
      check_remote(off, n, seed);
    }
  }
  /* Many handles at once: wait_syncnb_all, try_syncnb_all, *_some. */
  enum { NH = 40, CH = 512 };
  gasnet_handle_t hs[NH];
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < NH; i++) {
      test_fill(src + i * CH, CH, test_seed(T.rank, round, i, 2));
      hs[i] = gasnet_put_nb_bulk(right, dst_in + i * CH, src + i * CH, CH);
    }
    if (round == 0) {
      gasnet_wait_syncnb_all(hs, NH);
    } else if (round == 1) {
      while (gasnet_try_syncnb_all(hs, NH) != GASNET_OK) {
      }
    } else {
      for (;;) {
        int live = 0;
        for (int i = 0; i < NH; i++) live += hs[i] != GASNET_INVALID_HANDLE;
        if (!live) break;
        if (round == 2)
          gasnet_wait_syncnb_some(hs, NH);
        else
          (void)gasnet_try_syncnb_some(hs, NH);
      }
    }
    for (int i = 0; i < NH; i++) CHECK(hs[i] == GASNET_INVALID_HANDLE);
    for (int i = 0; i < NH; i++) check_remote(i * CH, CH, test_seed(T.rank, round, i, 2));
  }
  /* An NBI access region turns NBI Puts into one handle. */
  gasnet_begin_nbi_accessregion();
  for (int i = 0; i < NH; i++) {
    test_fill(src + i * CH, CH, test_seed(T.rank, 9, i, 3));
    gasnet_put_nbi_bulk(right, dst_in + i * CH, src + i * CH, CH);
  }
  gasnet_handle_t region = gasnet_end_nbi_accessregion();
  gasnet_wait_syncnb(region);
  for (int i = 0; i < NH; i++) check_remote(i * CH, CH, test_seed(T.rank, 9, i, 3));
  free(src);
}

/* ---- Gets ------------------------------------------------------------------------ */
enum { GET_BLOCKING, GET_BULK, GET_NB, GET_NB_BULK, GET_NBI, GET_NBI_BULK, NGETFORMS };

static void test_gets(void) {
  unsigned char *buf = malloc(SRC_SIZE);
  CHECK(buf);
  for (gex_Rank_t r = 0; r < T.size; r++) {
    for (int form = 0; form < NGETFORMS; form++) {
      for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k] < SRC_SIZE ? sizes[k] : SRC_SIZE, off = (k * 389) % (SRC_SIZE - n + 1);
        memset(buf, 0, n);
        void *src = src_of(r) + off;
        switch (form) {
          case GET_BLOCKING: gasnet_get(buf, r, src, n); break;
          case GET_BULK: gasnet_get_bulk(buf, r, src, n); break;
          case GET_NB: gasnet_wait_syncnb(gasnet_get_nb(buf, r, src, n)); break;
          case GET_NB_BULK: {
            gasnet_handle_t h = gasnet_get_nb_bulk(buf, r, src, n);
            while (gasnet_try_syncnb(h) != GASNET_OK) {
            }
            break;
          }
          case GET_NBI: gasnet_get_nbi(buf, r, src, n); gasnet_wait_syncnbi_gets(); break;
          case GET_NBI_BULK:
            gasnet_get_nbi_bulk(buf, r, src, n);
            while (gasnet_try_syncnbi_all() != GASNET_OK) {
            }
            break;
        }
        /* The pattern of the SRC region, from byte 'off'. */
        unsigned char *want = malloc(off + n);
        CHECK(want);
        test_fill(want, off + n, seed_src(r));
        CHECKF(memcmp(buf, want + off, n) == 0, "get form %d size %zu from rank %u", form, n,
               (unsigned)r);
        free(want);
      }
    }
  }
  free(buf);
  gasnet_wait_syncnbi_all();
}

/* ---- value forms -------------------------------------------------------------------- */
static uint64_t low_bytes(uint64_t v, size_t n) {
  return n == 8 ? v : v & (((uint64_t)1 << (8 * n)) - 1);
}

static void test_values(void) {
  static const size_t vsizes[] = {1, 2, 4, 8, 3, 5, 6, 7};
  for (size_t k = 0; k < sizeof vsizes / sizeof vsizes[0]; k++) {
    size_t n = vsizes[k];
    uint64_t v = test_mix(T.rank * 100 + k);
    size_t off0 = 64 * k, off1 = off0 + 1024, off2 = off0 + 2048;
    gasnet_put_val(right, dst_in + off0, v, n);
    gasnet_wait_syncnb(gasnet_put_nb_val(right, dst_in + off1, v + 1, n));
    gasnet_put_nbi_val(right, dst_in + off2, v + 2, n);
    gasnet_wait_syncnbi_puts();
    /* The value lands as the integer of that size would sit in memory. */
    for (int j = 0; j < 3; j++) {
      size_t off = j == 0 ? off0 : j == 1 ? off1 : off2;
      uint64_t got = remote_int(off, n);
      CHECKF(got == low_bytes(v + (uint64_t)j, n), "put value form %d size %zu", j, n);
      CHECK(gasnet_get_val(right, dst_in + off, n) == low_bytes(v + (uint64_t)j, n));
    }
    gasnet_valget_handle_t h[3];
    h[0] = gasnet_get_nb_val(right, dst_in + off0, n);
    h[1] = gasnet_get_nb_val(right, dst_in + off1, n);
    h[2] = gasnet_get_nb_val(right, dst_in + off2, n);
    for (int j = 2; j >= 0; j--) /* completed out of order */
      CHECK(gasnet_wait_syncnb_valget(h[j]) == low_bytes(v + (uint64_t)j, n));
  }
}

/* ---- memset --------------------------------------------------------------------------- */
static void test_memset(void) {
  for (size_t k = 0; k < NSIZES; k++) {
    size_t n = sizes[k], off = (k * 101) % (IN_SIZE - n + 1);
    unsigned char c = (unsigned char)(0x30 + k + T.rank);
    gasnet_memset(right, dst_in + off, c, n);
    check_remote_byte(off, n, c);
    gasnet_wait_syncnb(gasnet_memset_nb(right, dst_in + off, c + 1, n));
    check_remote_byte(off, n, (unsigned char)(c + 1));
    gasnet_memset_nbi(right, dst_in + off, c + 2, n);
    gasnet_wait_syncnbi_puts();
    check_remote_byte(off, n, (unsigned char)(c + 2));
  }
  gasnet_memset(right, dst_in, 0, 0); /* empty: no effect */
}

/* ---- prototype VIS ---------------------------------------------------------------------- */
enum { PIECES = 16, PIECE = 100, STRIDE = 256 };

/* Every form moves PIECES pieces of PIECE bytes, STRIDE apart on both sides,
 * to the right neighbour and back; 'expect' is what the IN region must hold. */
static void check_vis(const unsigned char *src, const unsigned char *back, const char *what) {
  for (int i = 0; i < PIECES; i++) {
    CHECKF(memcmp(back + i * STRIDE, src + i * STRIDE, PIECE) == 0, "%s: piece %d read back", what, i);
    check_remote_mem((size_t)i * STRIDE, src + i * STRIDE, PIECE);
  }
}

static void test_vis(void) {
  unsigned char *src = malloc(PIECES * STRIDE), *back = malloc(PIECES * STRIDE);
  CHECK(src && back);
  for (int form = 0; form < 3; form++) {
    /* vector */
    gasnet_memvec_t dv[PIECES], sv[PIECES], bv[PIECES];
    test_fill(src, PIECES * STRIDE, test_seed(T.rank, form, 5, 0));
    for (int i = 0; i < PIECES; i++) {
      dv[i].addr = dst_in + i * STRIDE;
      dv[i].len = PIECE;
      sv[i].addr = src + i * STRIDE;
      sv[i].len = PIECE;
      bv[i].addr = back + i * STRIDE;
      bv[i].len = PIECE;
    }
    memset(back, 0, PIECES * STRIDE);
    if (form == 0) {
      gasnet_putv_bulk(right, PIECES, dv, PIECES, sv);
      gasnet_getv_bulk(PIECES, bv, right, PIECES, dv);
    } else if (form == 1) {
      gasnet_wait_syncnb(gasnet_putv_nb_bulk(right, PIECES, dv, PIECES, sv));
      gasnet_wait_syncnb(gasnet_getv_nb_bulk(PIECES, bv, right, PIECES, dv));
    } else {
      gasnet_putv_nbi_bulk(right, PIECES, dv, PIECES, sv);
      gasnet_wait_syncnbi_puts();
      gasnet_getv_nbi_bulk(PIECES, bv, right, PIECES, dv);
      gasnet_wait_syncnbi_gets();
    }
    check_vis(src, back, "vector");

    /* indexed */
    void *di[PIECES], *si[PIECES], *bi[PIECES];
    test_fill(src, PIECES * STRIDE, test_seed(T.rank, form, 6, 0));
    for (int i = 0; i < PIECES; i++) {
      di[i] = dst_in + i * STRIDE;
      si[i] = src + i * STRIDE;
      bi[i] = back + i * STRIDE;
    }
    memset(back, 0, PIECES * STRIDE);
    if (form == 0) {
      gasnet_puti_bulk(right, PIECES, di, PIECE, PIECES, si, PIECE);
      gasnet_geti_bulk(PIECES, bi, PIECE, right, PIECES, di, PIECE);
    } else if (form == 1) {
      gasnet_wait_syncnb(gasnet_puti_nb_bulk(right, PIECES, di, PIECE, PIECES, si, PIECE));
      gasnet_wait_syncnb(gasnet_geti_nb_bulk(PIECES, bi, PIECE, right, PIECES, di, PIECE));
    } else {
      gasnet_puti_nbi_bulk(right, PIECES, di, PIECE, PIECES, si, PIECE);
      gasnet_wait_syncnbi_all();
      gasnet_geti_nbi_bulk(PIECES, bi, PIECE, right, PIECES, di, PIECE);
      gasnet_wait_syncnbi_all();
    }
    check_vis(src, back, "indexed");

    /* strided, GASNet-1 metadata: count[0] bytes contiguous, count[1] rows */
    size_t strides[1] = {STRIDE}, count[2] = {PIECE, PIECES};
    test_fill(src, PIECES * STRIDE, test_seed(T.rank, form, 7, 0));
    memset(back, 0, PIECES * STRIDE);
    if (form == 0) {
      gasnet_puts_bulk(right, dst_in, strides, src, strides, count, 1);
      gasnet_gets_bulk(back, strides, right, dst_in, strides, count, 1);
    } else if (form == 1) {
      gasnet_wait_syncnb(gasnet_puts_nb_bulk(right, dst_in, strides, src, strides, count, 1));
      gasnet_wait_syncnb(gasnet_gets_nb_bulk(back, strides, right, dst_in, strides, count, 1));
    } else {
      gasnet_puts_nbi_bulk(right, dst_in, strides, src, strides, count, 1);
      gasnet_wait_syncnbi_puts();
      gasnet_gets_nbi_bulk(back, strides, right, dst_in, strides, count, 1);
      gasnet_wait_syncnbi_gets();
    }
    check_vis(src, back, "strided");
  }
  free(src);
  free(back);
}

int main(int argc, char **argv) {
  legacy_init(&argc, &argv, "t_legacy_rma", SEG, NULL, 0);
  right = (T.rank + 1) % T.size;
  left = (T.rank + T.size - 1) % T.size;
  (void)left;
  dst_in = T.peer_seg[right] + IN_OFF;
  test_fill(T.seg_base + SRC_OFF, SRC_SIZE, seed_src(T.rank));
  CHECK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK);
  test_queries();
  test_misc();
  test_puts();
  test_gets();
  test_values();
  test_memset();
  test_vis();
  test_finish();
}

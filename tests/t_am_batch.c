/* t_am_batch.c -- floods of small AMs, which leave in batches over the
 * network (transport/ofi/ofi_am_batch.c; transport/sock: frames written
 * together), mixed with AMs that do not join
 * a batch and must not overtake or lose it.
 *
 * Every rank sends every other rank (and itself), in turn, K Requests back
 * to back without polling in between:
 *   - Shorts with 1 to 16 arguments, each a function of (source, sequence,
 *     argument index);
 *   - Mediums of 0 to 200 bytes (batched) and now and then of 8 KiB (sent on
 *     their own, from a bounce buffer), with a pattern of (source, sequence);
 *   - now and then a Long of 512 bytes (packed) or 96 KiB (written by RMA),
 *     each into a slot of its own in the target's segment;
 *   - now and then a Short with GEX_FLAG_IMMEDIATE (sent again without the
 *     flag when refused).
 * Each Request handler checks its message, marks (source, sequence) seen --
 * twice is an error -- and Replies with a Short or small Medium that
 * echoes the sequence, which the sender checks and counts.  The sender
 * waits for all K Replies of a target before the next; at the end every
 * rank checks it saw exactly the K Requests of every source.
 *
 * GEX_TEST_BATCHED=+: some AM of the job must have left in a batch (the
 * count is an internal hook of the static library); =0: none may have.
 *
 *   t_am_batch [K]      (default 1500, scaled by GEX_TEST_SCALE and
 *                        oversubscription, at least 200)
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#if GEX_TEST_HAVE_OFI
uint64_t gexi_ofi_batched(void);
#else
static uint64_t gexi_ofi_batched(void) { return 0; } /* no libfabric transport: no batches */
#endif
uint64_t gexi_sock_batched(void); /* the sock transport's (transport/sock/sock_send.c) */

enum { H_MED = 200, H_LONG, H_RSHORT, H_RMED, H_SHORT }; /* H_SHORT .. H_SHORT + 5 */
#define SMALL_LONG 512
#define BIG_LONG (96 << 10)
#define BIG_MED 8192
#define MAX_SMALL_MED 200

static long K;
static long nsmall, nbig; /* Long slots per source */
static unsigned char *seen; /* [src * K + seq] */
static atomic_long replies;
static unsigned char rbuf[MAX_SMALL_MED];

/* Argument k of Request seq from src to dst (also the seed of its payload,
 * k = 0): nothing two messages could share, not even stale bytes of a
 * reused buffer. */
static gex_AM_Arg_t arg_of(gex_Rank_t src, gex_Rank_t dst, long seq, unsigned k) {
  return (gex_AM_Arg_t)test_seed(src, dst, (uint64_t)seq, k);
}
static uint64_t seed_of(gex_Rank_t src, gex_Rank_t dst, long seq) {
  return test_seed(src, dst, (uint64_t)seq, 99);
}

/* What message 'seq' to any target is: the same on both ends. */
enum { M_SHORT, M_IMM, M_MED, M_BIGMED, M_LONG, M_BIGLONG };
static int kind_of(long seq) {
  if (seq % 211 == 100) return M_BIGLONG;
  if (seq % 37 == 5) return M_LONG;
  if (seq % 53 == 7) return M_BIGMED;
  if (seq % 29 == 3) return M_IMM;
  return seq % 3 == 0 ? M_MED : M_SHORT;
}
static size_t medlen_of(long seq) { return (size_t)((seq * 7) % (MAX_SMALL_MED + 1)); }
static long small_slot(long seq) { return seq / 37; }
static long big_slot(long seq) { return seq / 211; }

static void mark(gex_Token_t t, long seq, gex_Rank_t *src) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  *src = info.gex_srcrank;
  CHECKF(seq >= 0 && seq < K, "sequence %ld out of range", seq);
  unsigned char *s = &seen[(size_t)*src * (size_t)K + (size_t)seq];
  CHECKF(*s == 0, "Request %ld from rank %u delivered twice", seq, (unsigned)*src);
  *s = 1;
}

/* Reply to Request seq: a Short echoing it, or (every other one) a small
 * Medium carrying a pattern. */
static void reply(gex_Token_t t, gex_Rank_t src, long seq) {
  if (seq & 1) {
    CHECK(gex_AM_ReplyShort1(t, H_RSHORT, 0, (gex_AM_Arg_t)seq) == 0);
  } else {
    size_t n = (size_t)(seq % 97);
    test_fill(rbuf, n, seed_of(T.rank, src, seq) ^ 1);
    CHECK(gex_AM_ReplyMedium1(t, H_RMED, rbuf, n, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)seq) == 0);
  }
}

/* Shorts: argument 0 is the sequence, the others a function of it; one
 * handler per argument count used (odd and even: the padding). */
static const unsigned short_nargs[] = {1, 2, 3, 8, 15, 16};
#define NSHORT (sizeof short_nargs / sizeof short_nargs[0])
static unsigned nargs_of(long seq) { return short_nargs[seq % NSHORT]; }

static void short_check(gex_Token_t t, const gex_AM_Arg_t *a, unsigned n) {
  long seq = (long)(uint32_t)a[0];
  gex_Rank_t src;
  mark(t, seq, &src);
  CHECKF(kind_of(seq) == M_SHORT || kind_of(seq) == M_IMM, "Short %ld is not a Short", seq);
  CHECKF(n == nargs_of(seq), "Short %ld: %u arguments, want %u", seq, n, nargs_of(seq));
  for (unsigned k = 1; k < n; k++)
    CHECKF(a[k] == arg_of(src, T.rank, seq, k), "Short %ld from rank %u: argument %u wrong", seq,
           (unsigned)src, k);
  reply(t, src, seq);
}
#define AG gex_AM_Arg_t
static void h_s1(gex_Token_t t, AG a0) { short_check(t, (AG[]){a0}, 1); }
static void h_s2(gex_Token_t t, AG a0, AG a1) { short_check(t, (AG[]){a0, a1}, 2); }
static void h_s3(gex_Token_t t, AG a0, AG a1, AG a2) { short_check(t, (AG[]){a0, a1, a2}, 3); }
static void h_s8(gex_Token_t t, AG a0, AG a1, AG a2, AG a3, AG a4, AG a5, AG a6, AG a7) {
  short_check(t, (AG[]){a0, a1, a2, a3, a4, a5, a6, a7}, 8);
}
static void h_s15(gex_Token_t t, AG a0, AG a1, AG a2, AG a3, AG a4, AG a5, AG a6, AG a7, AG a8,
                  AG a9, AG a10, AG a11, AG a12, AG a13, AG a14) {
  short_check(t, (AG[]){a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14}, 15);
}
static void h_s16(gex_Token_t t, AG a0, AG a1, AG a2, AG a3, AG a4, AG a5, AG a6, AG a7, AG a8,
                  AG a9, AG a10, AG a11, AG a12, AG a13, AG a14, AG a15) {
  short_check(t, (AG[]){a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15},
              16);
}
static const gex_AM_Fn_t short_fn[NSHORT] = {(gex_AM_Fn_t)h_s1,  (gex_AM_Fn_t)h_s2,
                                             (gex_AM_Fn_t)h_s3,  (gex_AM_Fn_t)h_s8,
                                             (gex_AM_Fn_t)h_s15, (gex_AM_Fn_t)h_s16};

/* A Short with n arguments a[0..n-1] to handler H_SHORT + index of n. */
static int send_short(gex_Rank_t d, unsigned n, const AG *a, gex_Flags_t f) {
  switch (n) {
    case 1: return gex_AM_RequestShort1(T.tm, d, H_SHORT + 0, f, a[0]);
    case 2: return gex_AM_RequestShort2(T.tm, d, H_SHORT + 1, f, a[0], a[1]);
    case 3: return gex_AM_RequestShort3(T.tm, d, H_SHORT + 2, f, a[0], a[1], a[2]);
    case 8:
      return gex_AM_RequestShort8(T.tm, d, H_SHORT + 3, f, a[0], a[1], a[2], a[3], a[4], a[5],
                                  a[6], a[7]);
    case 15:
      return gex_AM_RequestShort15(T.tm, d, H_SHORT + 4, f, a[0], a[1], a[2], a[3], a[4], a[5],
                                   a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14]);
    default:
      return gex_AM_RequestShort16(T.tm, d, H_SHORT + 5, f, a[0], a[1], a[2], a[3], a[4], a[5],
                                   a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14],
                                   a[15]);
  }
}

static void h_med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0, gex_AM_Arg_t a1) {
  long seq = (long)(uint32_t)a0;
  gex_Rank_t src;
  mark(t, seq, &src);
  CHECK(a1 == arg_of(src, T.rank, seq, 1));
  size_t want = kind_of(seq) == M_BIGMED ? BIG_MED : medlen_of(seq);
  CHECKF(n == want, "Medium %ld: %zu bytes, want %zu", seq, n, want);
  long bad = test_verify(buf, n, seed_of(src, T.rank, seq));
  CHECKF(bad < 0, "Medium %ld from rank %u: byte %ld wrong", seq, (unsigned)src, bad);
  reply(t, src, seq);
}

static void h_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0) {
  long seq = (long)(uint32_t)a0;
  gex_Rank_t src;
  mark(t, seq, &src);
  int big = kind_of(seq) == M_BIGLONG;
  CHECKF(n == (big ? (size_t)BIG_LONG : (size_t)SMALL_LONG), "Long %ld: %zu bytes", seq, n);
  long bad = test_verify(buf, n, seed_of(src, T.rank, seq));
  CHECKF(bad < 0, "Long %ld from rank %u: byte %ld wrong", seq, (unsigned)src, bad);
  reply(t, src, seq);
}

static void h_rshort(gex_Token_t t, gex_AM_Arg_t a0) {
  (void)t;
  CHECK((a0 & 1) == 1);
  atomic_fetch_add(&replies, 1);
}

static void h_rmed(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0) {
  gex_Token_Info_t info;
  CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
  long seq = (long)(uint32_t)a0;
  CHECKF(n == (size_t)(seq % 97), "Reply Medium %ld: %zu bytes", seq, n);
  long bad = test_verify(buf, n, seed_of(info.gex_srcrank, T.rank, seq) ^ 1);
  CHECKF(bad < 0, "Reply Medium %ld: byte %ld wrong", seq, bad);
  atomic_fetch_add(&replies, 1);
}

/* Where Long 'seq' from rank 'src' lands in the target's segment. */
static uintptr_t long_off(gex_Rank_t src, long seq) {
  if (kind_of(seq) == M_BIGLONG)
    return (uintptr_t)((src * nbig + big_slot(seq)) * (long)BIG_LONG);
  return (uintptr_t)(T.size * nbig * (long)BIG_LONG) +
         (uintptr_t)((src * nsmall + small_slot(seq)) * SMALL_LONG);
}

static uintptr_t seg_size(gex_Rank_t rank, gex_Rank_t size) {
  (void)rank;
  return (uintptr_t)size * (uintptr_t)(nbig * BIG_LONG + nsmall * SMALL_LONG);
}

static void send_one(gex_Rank_t d, long seq, unsigned char *buf) {
  gex_Rank_t me = T.rank;
  int kind = kind_of(seq);
  gex_AM_Arg_t a[16];
  a[0] = (gex_AM_Arg_t)seq;
  for (unsigned k = 1; k < 16; k++) a[k] = arg_of(me, d, seq, k);
  switch (kind) {
    case M_SHORT:
    case M_IMM: {
      int rc = send_short(d, nargs_of(seq), a, kind == M_IMM ? GEX_FLAG_IMMEDIATE : 0);
      if (rc == 1 && kind == M_IMM) rc = send_short(d, nargs_of(seq), a, 0); /* refused */
      CHECKF(rc == 0, "Short %ld: %d", seq, rc);
      break;
    }
    case M_MED:
    case M_BIGMED: {
      size_t n = kind == M_BIGMED ? BIG_MED : medlen_of(seq);
      test_fill(buf, n, seed_of(me, d, seq));
      CHECK(gex_AM_RequestMedium2(T.tm, d, H_MED, buf, n, GEX_EVENT_NOW, 0, a[0], a[1]) == 0);
      break;
    }
    default: {
      size_t n = kind == M_BIGLONG ? BIG_LONG : SMALL_LONG;
      test_fill(buf, n, seed_of(me, d, seq));
      CHECK(gex_AM_RequestLong1(T.tm, d, H_LONG, buf, n, test_peer_addr(d, long_off(me, seq)),
                                GEX_EVENT_NOW, 0, a[0]) == 0);
    }
  }
}

int main(int argc, char **argv) {
  long base = test_arg_count(argc, argv, 1500);
  /* The Long slots are sized before the job size is known (for the scale
   * only); oversubscription lowers K after that. */
  K = base * test_scale_pct() / 100;
  if (K < 200) K = 200;
  nsmall = K / 37 + 1;
  nbig = K / 211 + 1;
  test_seg_size_fn = seg_size;
  gex_AM_Entry_t tab[4 + NSHORT] = {
      {H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "med"},
      {H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "long"},
      {H_RSHORT, (gex_AM_Fn_t)h_rshort, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "rshort"},
      {H_RMED, (gex_AM_Fn_t)h_rmed, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "rmed"},
  };
  int nt = 4;
  for (unsigned i = 0; i < NSHORT; i++)
    tab[nt++] = (gex_AM_Entry_t){(gex_AM_Index_t)(H_SHORT + i), short_fn[i],
                                 GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, short_nargs[i], NULL,
                                 "short"};
  test_init(&argc, &argv, "T_AM_BATCH", 0, tab, (size_t)nt);
  K = test_iters(base, 200);
  const gex_Rank_t me = T.rank, n = T.size;
  seen = calloc((size_t)n * (size_t)K, 1);
  unsigned char *buf = malloc(BIG_LONG);
  CHECK(seen && buf);
  test_barrier();

  for (gex_Rank_t i = 0; i < n; i++) {
    gex_Rank_t d = (me + i) % n;
    atomic_store(&replies, 0);
    for (long seq = 0; seq < K; seq++) send_one(d, seq, buf);
    GASNET_BLOCKUNTIL(atomic_load(&replies) == K);
  }
  test_barrier(); /* every Request of every source has been replied to */
  for (gex_Rank_t s = 0; s < n; s++)
    for (long seq = 0; seq < K; seq++)
      CHECKF(seen[(size_t)s * (size_t)K + (size_t)seq] == 1,
             "Request %ld from rank %u never delivered", seq, (unsigned)s);
  test_log0("%ld AMs from each rank to each rank, each delivered once and replied to", K);
  test_check_job_count("GEX_TEST_BATCHED", gexi_ofi_batched() + gexi_sock_batched(),
                       "AMs sent in batches");
  free(buf);
  test_finish();
}

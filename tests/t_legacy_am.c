/* t_legacy_am.c -- the GASNet-1 Active Message calls (gasnet.h).
 *
 * A GASNet-1 client registers, through gasnet_attach, Short, Medium and Long
 * Request and Reply handlers for every argument count 0..16 (Requests at
 * fixed indices from 128, Replies at index 0, which gasnet_attach assigns
 * and writes back).  Every rank sends every Request form to every rank
 * (itself included): gasnet_AMRequestShortM, MediumM, LongM and
 * LongAsyncM; each handler checks its arguments, its payload bytes, the
 * Long destination and gasnet_AMGetMsgSource, then answers with the Reply
 * of the same form, which is checked the same way.
 */
#include <stdatomic.h>

#include "legacy_util.h"

#define NARGS 17 /* argument counts 0..16 */
enum { CAT_SHORT, CAT_MEDIUM, CAT_LONG, NCAT };
enum { SLOT = 1024, MAX_RANKS = 64 };

static uintptr_t req_off, rep_off; /* Long landing regions in every segment */
static atomic_long requests_seen, replies_seen;

static gasnet_handler_t rep_index[NCAT][NARGS]; /* assigned by gasnet_attach */

static gasnet_handlerarg_t arg_value(gex_Rank_t from, int m, int i, int is_reply) {
  return (gasnet_handlerarg_t)(0x5a000000u ^ (from << 16) ^ ((unsigned)m << 8) ^ (unsigned)i ^
                               (is_reply ? 0x800000u : 0));
}
static size_t payload_size(int m, int cat, int async) {
  return cat == CAT_MEDIUM ? (size_t)(m * 97 % 700) + (m == 16 ? gasnet_AMMaxMedium() - 700 : 0)
                           : (size_t)(m * 61 % SLOT) + (size_t)async;
}
static uint64_t payload_seed(gex_Rank_t from, int m, int cat, int is_reply) {
  return test_seed(from, (uint64_t)m, (uint64_t)cat, (uint64_t)is_reply);
}
/* Long landing slot of (sender, m, async) in a segment's region. */
static uintptr_t slot_of(gex_Rank_t from, int m, int async) {
  return ((uintptr_t)from * NARGS + (uintptr_t)m) * 2 * SLOT + (uintptr_t)async * SLOT;
}

static void check_args(const gasnet_handlerarg_t *a, int m, gex_Rank_t from, int is_reply) {
  for (int i = 0; i < m; i++)
    CHECKF(a[i] == arg_value(from, m, i, is_reply), "%s with %d args: arg %d is %#x",
           is_reply ? "Reply" : "Request", m, i, (unsigned)a[i]);
}

static gex_Rank_t source_of(gasnet_token_t token) {
  gasnet_node_t src = GEX_RANK_INVALID;
  CHECK(gasnet_AMGetMsgSource(token, &src) == GASNET_OK);
  CHECK(src < T.size);
  return src;
}

/* The common body of every handler. */
static void handle(gasnet_token_t token, int cat, int m, int is_reply, void *buf, size_t nbytes,
                   const gasnet_handlerarg_t *a);

/* ---- one handler function per (category, argument count, direction) ------------------ */
#define AP0
#define AP1 AP0, gasnet_handlerarg_t a0
#define AP2 AP1, gasnet_handlerarg_t a1
#define AP3 AP2, gasnet_handlerarg_t a2
#define AP4 AP3, gasnet_handlerarg_t a3
#define AP5 AP4, gasnet_handlerarg_t a4
#define AP6 AP5, gasnet_handlerarg_t a5
#define AP7 AP6, gasnet_handlerarg_t a6
#define AP8 AP7, gasnet_handlerarg_t a7
#define AP9 AP8, gasnet_handlerarg_t a8
#define AP10 AP9, gasnet_handlerarg_t a9
#define AP11 AP10, gasnet_handlerarg_t a10
#define AP12 AP11, gasnet_handlerarg_t a11
#define AP13 AP12, gasnet_handlerarg_t a12
#define AP14 AP13, gasnet_handlerarg_t a13
#define AP15 AP14, gasnet_handlerarg_t a14
#define AP16 AP15, gasnet_handlerarg_t a15
#define AV0
#define AV1 AV0, a0
#define AV2 AV1, a1
#define AV3 AV2, a2
#define AV4 AV3, a3
#define AV5 AV4, a4
#define AV6 AV5, a5
#define AV7 AV6, a6
#define AV8 AV7, a7
#define AV9 AV8, a8
#define AV10 AV9, a9
#define AV11 AV10, a10
#define AV12 AV11, a11
#define AV13 AV12, a12
#define AV14 AV13, a13
#define AV15 AV14, a14
#define AV16 AV15, a15

#define HANDLERS(M)                                                                           \
  static void short_req_##M(gasnet_token_t t AP##M) {                                         \
    const gasnet_handlerarg_t a[] = {0 AV##M};                                                \
    handle(t, CAT_SHORT, M, 0, NULL, 0, a + 1);                                               \
  }                                                                                           \
  static void short_rep_##M(gasnet_token_t t AP##M) {                                         \
    const gasnet_handlerarg_t a[] = {0 AV##M};                                                \
    handle(t, CAT_SHORT, M, 1, NULL, 0, a + 1);                                               \
  }                                                                                           \
  static void medium_req_##M(gasnet_token_t t, void *buf, size_t nbytes AP##M) {              \
    const gasnet_handlerarg_t a[] = {0 AV##M};                                                \
    handle(t, CAT_MEDIUM, M, 0, buf, nbytes, a + 1);                                          \
  }                                                                                           \
  static void medium_rep_##M(gasnet_token_t t, void *buf, size_t nbytes AP##M) {              \
    const gasnet_handlerarg_t a[] = {0 AV##M};                                                \
    handle(t, CAT_MEDIUM, M, 1, buf, nbytes, a + 1);                                          \
  }                                                                                           \
  static void long_req_##M(gasnet_token_t t, void *buf, size_t nbytes AP##M) {                \
    const gasnet_handlerarg_t a[] = {0 AV##M};                                                \
    handle(t, CAT_LONG, M, 0, buf, nbytes, a + 1);                                            \
  }                                                                                           \
  static void long_rep_##M(gasnet_token_t t, void *buf, size_t nbytes AP##M) {                \
    const gasnet_handlerarg_t a[] = {0 AV##M};                                                \
    handle(t, CAT_LONG, M, 1, buf, nbytes, a + 1);                                            \
  }                                                                                           \
  static void send_reply_##M(gasnet_token_t t, int cat, const gasnet_handlerarg_t *v,         \
                             void *src, size_t n, void *dest) {                               \
    gasnet_handlerarg_t a0 = v[0], a1 = v[1], a2 = v[2], a3 = v[3], a4 = v[4], a5 = v[5],     \
                        a6 = v[6], a7 = v[7], a8 = v[8], a9 = v[9], a10 = v[10], a11 = v[11], \
                        a12 = v[12], a13 = v[13], a14 = v[14], a15 = v[15];                   \
    (void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5; (void)a6; (void)a7;           \
    (void)a8; (void)a9; (void)a10; (void)a11; (void)a12; (void)a13; (void)a14; (void)a15;     \
    int rc = cat == CAT_SHORT ? gasnet_AMReplyShort##M(t, rep_index[cat][M] AV##M)            \
           : cat == CAT_MEDIUM ? gasnet_AMReplyMedium##M(t, rep_index[cat][M], src, n AV##M)  \
                               : gasnet_AMReplyLong##M(t, rep_index[cat][M], src, n, dest AV##M); \
    CHECK(rc == GASNET_OK);                                                                   \
  }                                                                                           \
  static void send_request_##M(gex_Rank_t to, int cat, int async, const gasnet_handlerarg_t *v, \
                               void *src, size_t n, void *dest) {                             \
    gasnet_handlerarg_t a0 = v[0], a1 = v[1], a2 = v[2], a3 = v[3], a4 = v[4], a5 = v[5],     \
                        a6 = v[6], a7 = v[7], a8 = v[8], a9 = v[9], a10 = v[10], a11 = v[11], \
                        a12 = v[12], a13 = v[13], a14 = v[14], a15 = v[15];                   \
    (void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5; (void)a6; (void)a7;           \
    (void)a8; (void)a9; (void)a10; (void)a11; (void)a12; (void)a13; (void)a14; (void)a15;     \
    gasnet_handler_t h = (gasnet_handler_t)(GEX_AM_INDEX_BASE + cat * NARGS + M);             \
    int rc = cat == CAT_SHORT    ? gasnet_AMRequestShort##M(to, h AV##M)                      \
             : cat == CAT_MEDIUM ? gasnet_AMRequestMedium##M(to, h, src, n AV##M)             \
             : async             ? gasnet_AMRequestLongAsync##M(to, h, src, n, dest AV##M)    \
                                 : gasnet_AMRequestLong##M(to, h, src, n, dest AV##M);        \
    CHECK(rc == GASNET_OK);                                                                   \
  }

HANDLERS(0) HANDLERS(1) HANDLERS(2) HANDLERS(3) HANDLERS(4) HANDLERS(5) HANDLERS(6)
HANDLERS(7) HANDLERS(8) HANDLERS(9) HANDLERS(10) HANDLERS(11) HANDLERS(12) HANDLERS(13)
HANDLERS(14) HANDLERS(15) HANDLERS(16)

#define FOR_ALL_M(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
  X(14) X(15) X(16)

typedef void (*reply_fn)(gasnet_token_t, int, const gasnet_handlerarg_t *, void *, size_t, void *);
typedef void (*request_fn)(gex_Rank_t, int, int, const gasnet_handlerarg_t *, void *, size_t,
                           void *);
#define REPLY_FN(M) send_reply_##M,
#define REQUEST_FN(M) send_request_##M,
static const reply_fn reply_fns[NARGS] = {FOR_ALL_M(REPLY_FN)};
static const request_fn request_fns[NARGS] = {FOR_ALL_M(REQUEST_FN)};

static void fill_args(gasnet_handlerarg_t *v, gex_Rank_t from, int m, int is_reply) {
  for (int i = 0; i < 16; i++) v[i] = i < m ? arg_value(from, m, i, is_reply) : 0;
}

static void handle(gasnet_token_t token, int cat, int m, int is_reply, void *buf, size_t nbytes,
                   const gasnet_handlerarg_t *a) {
  gex_Rank_t from = source_of(token);
  /* Requests carry the sender's rank in their arguments, Replies the replier's. */
  check_args(a, m, from, is_reply);
  int async = 0;
  if (cat != CAT_SHORT) {
    async = cat == CAT_LONG && nbytes == payload_size(m, cat, 1);
    CHECKF(nbytes == payload_size(m, cat, async), "form %d/%d: nbytes %zu", cat, m, nbytes);
    CHECK_PATTERN(buf, nbytes, payload_seed(from, m, cat, is_reply));
  }
  if (cat == CAT_LONG) {
    uintptr_t region = is_reply ? rep_off : req_off;
    CHECKF(buf == T.seg_base + region + slot_of(from, m, async), "Long landed at %p", buf);
  }
  if (is_reply) {
    atomic_fetch_add(&replies_seen, 1);
    return;
  }
  atomic_fetch_add(&requests_seen, 1);
  /* Answer with the same form; the payload is built on the stack. */
  unsigned char payload[16384];
  CHECK(nbytes <= sizeof payload);
  test_fill(payload, nbytes, payload_seed(T.rank, m, cat, 1));
  gasnet_handlerarg_t v[16];
  fill_args(v, T.rank, m, 1);
  void *dest = T.peer_seg[from] + rep_off + slot_of(T.rank, m, async);
  reply_fns[m](token, cat, v, payload, nbytes, dest);
}

#define ENTRIES(M)                                                          \
  {(gasnet_handler_t)(GEX_AM_INDEX_BASE + CAT_SHORT * NARGS + M), (gex_AM_Fn_t)short_req_##M},   \
  {(gasnet_handler_t)(GEX_AM_INDEX_BASE + CAT_MEDIUM * NARGS + M), (gex_AM_Fn_t)medium_req_##M}, \
  {(gasnet_handler_t)(GEX_AM_INDEX_BASE + CAT_LONG * NARGS + M), (gex_AM_Fn_t)long_req_##M},     \
  {0, (gex_AM_Fn_t)short_rep_##M}, {0, (gex_AM_Fn_t)medium_rep_##M}, {0, (gex_AM_Fn_t)long_rep_##M},

static gasnet_handlerentry_t table[] = {FOR_ALL_M(ENTRIES)};
#define NENTRIES ((int)(sizeof table / sizeof table[0]))

int main(int argc, char **argv) {
  /* Two Long regions (Requests, Replies), each with a slot per (rank, m, async). */
  uintptr_t region = (uintptr_t)MAX_RANKS * NARGS * 2 * SLOT;
  req_off = 0;
  rep_off = region;
  legacy_init(&argc, &argv, "t_legacy_am", 2 * region, table, NENTRIES);
  CHECK(T.size <= MAX_RANKS);
  /* gasnet_attach wrote back the indices it assigned: all distinct, >= 128. */
  unsigned char used[256] = {0};
  for (int i = 0; i < NENTRIES; i++) {
    CHECK(table[i].index >= GEX_AM_INDEX_BASE);
    CHECK(!used[table[i].index]);
    used[table[i].index] = 1;
  }
  for (int m = 0; m < NARGS; m++)
    for (int cat = 0; cat < NCAT; cat++) rep_index[cat][m] = table[m * 6 + 3 + cat].index;
  CHECK(gasnet_AMMaxArgs() == 16);
  /* Handlers read T.peer_seg, filled after gasnet_attach returned: no rank
   * sends before every rank has it. */
  CHECK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK);

  const long rounds = test_iters(3, 1);
  unsigned char payload[16384];
  for (long round = 0; round < rounds; round++) {
    long expected = (round + 1) * (long)T.size * NARGS * 4;
    for (gex_Rank_t to = 0; to < T.size; to++) {
      gex_Rank_t dst = (T.rank + to) % T.size;
      for (int m = 0; m < NARGS; m++) {
        gasnet_handlerarg_t v[16];
        fill_args(v, T.rank, m, 0);
        for (int cat = 0; cat < NCAT; cat++) {
          for (int async = 0; async <= (cat == CAT_LONG); async++) {
            size_t n = cat == CAT_SHORT ? 0 : payload_size(m, cat, async);
            test_fill(payload, n, payload_seed(T.rank, m, cat, 0));
            void *dest = T.peer_seg[dst] + req_off + slot_of(T.rank, m, async);
            request_fns[m](dst, cat, async, v, payload, n, dest);
            memset(payload, 0xEE, n); /* the payload is free once the call returns */
          }
        }
      }
    }
    GASNET_BLOCKUNTIL(atomic_load(&replies_seen) == expected);
    /* Every rank's Requests have been served before the next round reuses
     * slots (a faster rank's next round may already be arriving). */
    CHECK(gasnet_barrier((int)round, 0) == GASNET_OK);
    CHECK(atomic_load(&requests_seen) >= expected);
  }
  CHECK(atomic_load(&requests_seen) == rounds * (long)T.size * NARGS * 4);
  test_finish();
}

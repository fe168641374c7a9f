/* t_sec_fuzz.c -- fuzz the network receive path (label security).
 *
 * A 2-rank job whose ranks reach each other through the network.  After a
 * real exchange has admitted the peers, rank 0 feeds its receive path
 * (gexi_ofi_handle_msg, exactly where the provider's completions go) with
 *   - seed messages in the transport's wire format, as the sender builds
 *     them: a Short, a Medium, a packed Long, a large Long's header, a
 *     Reply, a credit return, a batch of four Requests -- all from rank 1
 *     with its session token;
 *     each must be delivered (the handlers count them);
 *   - mutations of the seeds (1-8 random bytes changed, truncated,
 *     extended), which must be dropped or, when still well formed, be
 *     delivered with consistent fields (each handler checks its own);
 *   - random bytes, the seeds with a wrong token, from an unknown source
 *     and from this rank itself: never delivered.
 * It must not crash (run it in the ASan build too), and the job must still
 * work afterwards.  Includes the library's internal headers.
 *
 *   t_sec_fuzz [ITERATIONS]      (default 20000, scaled by GEX_TEST_SCALE)
 */
#include "test_util.h"
#include "transport/ofi/ofi.h"

enum { H_SHORT = GEX_AM_INDEX_BASE, H_MEDIUM, H_LONG, H_REP, H_PING };
#define SEG (1u << 20)

static long delivered;

static void in_segment(const void *p, size_t n) {
  const unsigned char *c = p;
  CHECKF(c >= T.seg_base && n <= T.seg_size && (size_t)(c - T.seg_base) <= T.seg_size - n,
         "a Long handler got [%p,+%zu) outside the segment", p, n);
}
static void h_short(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1) {
  (void)t, (void)a0, (void)a1;
  delivered++;
}
static void h_medium(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0) {
  (void)t, (void)a0;
  CHECKF(n <= gex_AM_LUBRequestMedium(), "a Medium of %zu bytes was delivered", n);
  volatile unsigned char s = 0;
  for (size_t i = 0; i < n; i++) s ^= ((unsigned char *)buf)[i]; /* every byte is readable */
  delivered++;
}
static void h_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0) {
  (void)t, (void)a0;
  if (n) in_segment(buf, n);
  delivered++;
}
static void h_rep(gex_Token_t t, gex_AM_Arg_t a0) {
  (void)t, (void)a0;
  delivered++;
}
static volatile int pings;
static void h_ping(gex_Token_t t) {
  (void)t;
  pings++;
}

static gex_AM_Entry_t handlers[] = {
    {H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 2, NULL, "short"},
    {H_MEDIUM, (gex_AM_Fn_t)h_medium, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, "medium"},
    {H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 1, NULL, "long"},
    {H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1, NULL, "reply"},
    {H_PING, (gex_AM_Fn_t)h_ping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "ping"},
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

#define MAXMSG (OFI_LONG_PACK_MAX + 512)
struct seed {
  size_t len;
  uint64_t m[MAXMSG / 8];
};
#define NSEEDS 7
static struct seed seeds[NSEEDS];
enum { BATCH_SEED = 6, BATCH_DELIVERS = 4 };

/* Append to a batch at m (*len bytes so far) the record of an AM message
 * built like a seed: its bytes from the AM header on. */
static void batch_append(uint64_t *m, size_t *len, const struct gexi_am_hdr *h, size_t body) {
  size_t hl = OFI_WIRE_HDR_LEN(h->nargs) - OFI_WIRE_PREFIX; /* the record's header */
  size_t rl = OFI_ROUND8(hl + body);
  unsigned char *r = (unsigned char *)m + *len;
  memset(r, 0, rl);
  memcpy(r, h, hl);
  for (size_t i = 0; i < body; i++) r[hl + i] = (unsigned char)i;
  *len += rl;
}

static void make_seeds(gex_Rank_t from) {
  struct gexi_ofi *o = gexi_ctx.ofi;
  for (int s = 0; s < NSEEDS; s++) {
    struct ofi_wire *w = (struct ofi_wire *)seeds[s].m;
    memset(seeds[s].m, 0, sizeof seeds[s].m);
    w->token = o->peers[from].tok_rx;
    w->type = OFI_WIRE_AM;
    struct gexi_am_hdr *h = &w->h;
    h->src = from;
    h->is_req = 1;
    size_t body = 0;
    switch (s) {
      case 0: h->category = GEXI_AM_SHORT, h->handler = H_SHORT, h->nargs = 2; break;
      case 1: h->category = GEXI_AM_MEDIUM, h->handler = H_MEDIUM, h->nargs = 1, body = h->nbytes = 3000; break;
      case 2:
        h->category = GEXI_AM_LONG, h->handler = H_LONG, h->nargs = 1, body = h->nbytes = 2000;
        h->dest = (uint64_t)(uintptr_t)(T.seg_base + 4096);
        w->type = OFI_WIRE_LONG_PACKED;
        break;
      case 3:
        h->category = GEXI_AM_LONG, h->handler = H_LONG, h->nargs = 1, h->nbytes = 100000;
        h->dest = (uint64_t)(uintptr_t)(T.seg_base + 8192);
        break;
      case 4: h->category = GEXI_AM_SHORT, h->handler = H_REP, h->nargs = 1, h->is_req = 0; break;
      case 5: w->type = OFI_WIRE_CREDIT; break;
      default: { /* a batch of Requests (ofi_am_batch.c): Short, Medium, Medium, Short */
        struct gexi_am_hdr r[BATCH_DELIVERS] = {
            {.category = GEXI_AM_SHORT, .is_req = 1, .nargs = 2, .handler = H_SHORT, .src = from},
            {.category = GEXI_AM_MEDIUM, .is_req = 1, .nargs = 1, .handler = H_MEDIUM, .src = from,
             .nbytes = 100},
            {.category = GEXI_AM_MEDIUM, .is_req = 1, .nargs = 1, .handler = H_MEDIUM, .src = from,
             .nbytes = 0},
            {.category = GEXI_AM_SHORT, .is_req = 1, .nargs = 2, .handler = H_SHORT, .src = from,
             .args = {7, 8}},
        };
        w->type = OFI_WIRE_BATCH;
        size_t len = OFI_WIRE_PREFIX;
        for (int i = 0; i < BATCH_DELIVERS; i++)
          batch_append(seeds[s].m, &len, &r[i], r[i].category == GEXI_AM_MEDIUM ? r[i].nbytes : 0);
        seeds[s].len = len;
        continue;
      }
    }
    size_t hl = OFI_WIRE_HDR_LEN(h->nargs);
    if (w->type == OFI_WIRE_CREDIT) hl = OFI_WIRE_HDR_LEN(0);
    for (size_t i = 0; i < body; i++) ((unsigned char *)w)[hl + i] = (unsigned char)i;
    seeds[s].len = OFI_ROUND8(hl + body);
  }
}

static void feed(const void *msg, size_t len, fi_addr_t src) {
  /* A copy in a buffer of exactly len bytes, so that ASan sees any read
   * past the message. */
  void *copy = malloc(len ? len : 1);
  CHECK(copy);
  memcpy(copy, msg, len);
  gexi_ofi_handle_msg(copy, len, src, NULL, GEXI_POLL_ALL);
  free(copy);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_SEC_FUZZ", SEG, handlers, sizeof handlers / sizeof handlers[0]);
  CHECKF(gexi_ctx.ofi, "the ranks must reach each other through the network");
  CHECK(T.size == 2);
  long iters = test_iters(test_arg_count(argc, argv, 20000), 500);
  /* A real exchange: the peers admit each other. */
  gex_AM_RequestShort0(T.tm, 1 - T.rank, H_PING, 0);
  GASNET_BLOCKUNTIL(pings == 1);
  test_barrier();
  if (T.rank == 0) {
    gex_Rank_t from = 1;
    make_seeds(from);
    /* Seeds are delivered (the credit seed delivers nothing, the batch 4). */
    long before = delivered;
    for (int s = 0; s < NSEEDS; s++) feed(seeds[s].m, seeds[s].len, from);
    CHECKF(delivered == before + 5 + BATCH_DELIVERS, "seeds: %ld delivered, expected %d",
           delivered - before, 5 + BATCH_DELIVERS);
    /* A batch with one bad record delivers none of its records: a Long, a
     * record longer than what is left, a Reply among Requests, a partial
     * record at the end. */
    static uint64_t bad[MAXMSG / 8];
    struct seed *b = &seeds[BATCH_SEED];
    size_t second = OFI_WIRE_HDR_LEN(2); /* after the batch header and a Short */
    size_t last = b->len - (OFI_WIRE_HDR_LEN(2) - OFI_WIRE_PREFIX); /* the final Short */
    before = delivered;
    memcpy(bad, b->m, b->len);
    ((struct gexi_am_hdr *)((char *)bad + second))->category = GEXI_AM_LONG;
    feed(bad, b->len, from);
    memcpy(bad, b->m, b->len);
    ((struct gexi_am_hdr *)((char *)bad + second))->nbytes = 1000;
    feed(bad, b->len, from);
    memcpy(bad, b->m, b->len);
    struct gexi_am_hdr *h4 = (struct gexi_am_hdr *)((char *)bad + last);
    h4->is_req = 0, h4->handler = H_REP, h4->nargs = 1; /* a valid Reply, same length */
    feed(bad, b->len, from);
    memcpy(bad, b->m, b->len);
    feed(bad, b->len + 8, from); /* 8 zero bytes: a record shorter than a header */
    feed(bad, OFI_WIRE_PREFIX, from); /* no record */
    CHECKF(delivered == before, "%ld records of bad batches delivered", delivered - before);
    /* Never delivered: random bytes, wrong token, unknown source, ourselves. */
    static unsigned char junk[MAXMSG];
    before = delivered;
    for (long i = 0; i < iters / 4; i++) {
      size_t len = next() % MAXMSG;
      for (size_t k = 0; k < len; k++) junk[k] = (unsigned char)next();
      feed(junk, len, from);
      struct seed *s = &seeds[next() % NSEEDS];
      memcpy(junk, s->m, s->len);
      ((struct ofi_wire *)junk)->token ^= 1 + next() % 0xffff;
      feed(junk, s->len, from);
      if (gexi_ctx.ofi->have_source) { /* else the claimed sender is all there is */
        feed(s->m, s->len, FI_ADDR_NOTAVAIL);
        feed(s->m, s->len, T.rank);
        feed(s->m, s->len, 7 + next() % 1000);
      }
    }
    CHECKF(delivered == before, "%ld junk messages were delivered", delivered - before);
    /* Mutations: dropped, or delivered consistently (the handlers check). */
    long mutated_ok = 0;
    for (long i = 0; i < iters; i++) {
      struct seed *s = &seeds[next() % NSEEDS];
      size_t len = s->len;
      memcpy(junk, s->m, len);
      int nflip = 1 + (int)(next() % 8);
      for (int f = 0; f < nflip; f++) {
        /* Mostly the header (where the fields are), sometimes anywhere. */
        size_t at = next() % 4 ? next() % (len < 128 ? len : 128) : next() % len;
        junk[at] ^= (unsigned char)(1 + next() % 255);
      }
      ((struct ofi_wire *)junk)->token = gexi_ctx.ofi->peers[from].tok_rx;
      ((struct ofi_wire *)junk)->credit[0] = ((struct ofi_wire *)junk)->credit[1] = 0;
      switch (next() % 8) {
        case 0: len = next() % len; break;                       /* truncated */
        case 1: len = len + 8 * (1 + next() % 8); if (len > MAXMSG) len = MAXMSG; break; /* longer */
        default: break;
      }
      long d = delivered;
      feed(junk, len, from);
      mutated_ok += delivered - d;
    }
    /* The delivered fakes made us owe rank 1 credit it never spent; a real
     * return of it would be refused (and the message carrying it dropped). */
    atomic_store(&gexi_ctx.ofi->peers[from].owed[0], 0);
    atomic_store(&gexi_ctx.ofi->peers[from].owed[1], 0);
    test_log("fuzz: %ld random, %ld wrong-token and %ld foreign-source messages dropped; %ld "
             "mutations, %ld of them still well formed and delivered",
             iters / 4, iters / 4, 3 * (iters / 4), iters, mutated_ok);
  }
  test_barrier();
  /* The job still works. */
  gex_AM_RequestShort0(T.tm, 1 - T.rank, H_PING, 0);
  GASNET_BLOCKUNTIL(pings == 2);
  test_finish();
  return 0;
}

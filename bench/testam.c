/* testam.c -- gex-testam: Active Message latency and rate.
 *
 *   gexrun -n 2 gex-testam [-m] [-in|-out] [-minsz N] [-budget B] [ITERS [MAXSZ [SECTIONS]]]
 *
 * Every even rank (the sender) exchanges AMs with the next odd rank (the
 * responder), for each category (Short, Medium, Long) in four patterns:
 *
 *   ping-pong Req/Rep  the sender sends a Request and waits for the Reply the
 *                      responder's handler sends back (same category and
 *                      size); us/op = one round trip
 *   ping-pong Req/Req  the same, but the responder answers from its main
 *                      loop with a Request of its own; us/op = one round trip
 *   flood Req          ITERS Requests back to back, the responder counts them
 *                      and sends one Short Request back after the last;
 *                      us/op = elapsed / ITERS (the inverse of the one-way
 *                      message rate)
 *   flood Req/Rep      ITERS Requests back to back, each answered by a Reply
 *                      of the same category and size from the handler;
 *                      us/op = elapsed / ITERS
 *
 * MiB/s is the payload delivered per second counting both directions
 * (ping-pong: 2 x size / round trip; flood Req: size x ITERS / elapsed; flood
 * Req/Rep: 2 x size x ITERS / elapsed), in 2^20 bytes per second; Short AMs
 * carry no payload and print '-'.
 *
 *   sections  A-D  Short:  A ping-pong Req/Rep, B ping-pong Req/Req,
 *                          C flood Req, D flood Req/Rep
 *             E-H  Medium: the same four
 *             I-L  Long:   the same four
 *
 * Sizes: Short 0 bytes; Medium and Long 1, 2, 4, ... (with -m) up to
 * MAXSZ, clipped to the category's maximum (gex_AM_MaxRequestMedium /
 * gex_AM_MaxReplyMedium, ...Long, whichever is smaller); without -m the
 * clipped MAXSZ only.  Defaults: ITERS 1000, MAXSZ the largest Long.
 * -in / -out: the source buffer of Medium and Long payloads is inside /
 * outside (default) the segment.  Long payloads land in the receiver's
 * segment.
 *
 * One line per size and section:
 *   E:   0 - Medium      16384 byte :    1000 iters,     12.345 us/op,       2530.123 MiB/s (ping-pong Req/Rep)
 * Lines starting with '#' are comments.
 *
 * The first message of every size (a warm-up message) asks its handler to
 * check the whole payload, and so does its Reply; the handlers check every
 * message's size.  A wrong payload ends the job with status 1.
 */
#include "gex_bench.h"

enum { H_REQ_SHORT = GEX_AM_INDEX_BASE, H_REQ_MEDIUM, H_REQ_LONG, H_REP_SHORT, H_REP_MEDIUM,
       H_REP_LONG, H_ACK };

/* Request argument bits */
#define F_REPLY 1 /* the handler replies with the same category and size */
#define F_CHECK 2 /* check the payload against the pattern */

static gex_bench_t b = {
    .prog = "gex-testam",
    .usage = "[-m] [-in|-out] [-minsz N] [-budget BYTES] [ITERS [MAXSZ [SECTIONS: A-D Short, "
             "E-H Medium, I-L Long]]]",
    .o = {.iters = 1000, .maxsz = 0, .minsz = 1},
};

static unsigned char *src;        /* payload source (both ranks) */
static unsigned char *land;       /* where Long payloads land: my segment */
static unsigned char *peer_land;  /* the same place in the peer's segment (owner's address) */
static size_t cur_size;           /* expected payload size, set before the barrier */
static int cur_section;

/* Written by handlers, read by the main thread; handlers run in this
 * thread's polls (libgex has no progress threads), so volatile suffices. */
static volatile uint32_t reqs_in, reps_in, acks_in, errors;

static void check_payload(const void *buf, size_t nbytes, gex_AM_Arg_t flags) {
  if (nbytes != cur_size) {
    errors++;
    return;
  }
  if ((flags & F_CHECK) && bench_check(buf, nbytes, cur_size, cur_section) != (size_t)-1) errors++;
}

static void req_short(gex_Token_t t, gex_AM_Arg_t flags) {
  reqs_in++;
  if (flags & F_REPLY) gex_AM_ReplyShort1(t, H_REP_SHORT, 0, flags);
}
static void req_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t flags) {
  reqs_in++;
  check_payload(buf, nbytes, flags);
  if (flags & F_REPLY) gex_AM_ReplyMedium1(t, H_REP_MEDIUM, src, nbytes, GEX_EVENT_NOW, 0, flags);
}
static void req_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t flags) {
  reqs_in++;
  check_payload(buf, nbytes, flags);
  if (flags & F_REPLY)
    gex_AM_ReplyLong1(t, H_REP_LONG, src, nbytes, peer_land, GEX_EVENT_NOW, 0, flags);
}
static void rep_short(gex_Token_t t, gex_AM_Arg_t flags) {
  (void)t;
  (void)flags;
  reps_in++;
}
static void rep_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t flags) {
  (void)t;
  check_payload(buf, nbytes, flags);
  reps_in++;
}
static void rep_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t flags) {
  (void)t;
  check_payload(buf, nbytes, flags);
  reps_in++;
}
static void ack(gex_Token_t t) {
  (void)t;
  acks_in++;
}

#define REQ (GEX_FLAG_AM_REQUEST)
#define REP (GEX_FLAG_AM_REPLY)
static gex_AM_Entry_t handlers[] = {
    {H_REQ_SHORT, (gex_AM_Fn_t)req_short, REQ | GEX_FLAG_AM_SHORT, 1, NULL, "req_short"},
    {H_REQ_MEDIUM, (gex_AM_Fn_t)req_medium, REQ | GEX_FLAG_AM_MEDIUM, 1, NULL, "req_medium"},
    {H_REQ_LONG, (gex_AM_Fn_t)req_long, REQ | GEX_FLAG_AM_LONG, 1, NULL, "req_long"},
    {H_REP_SHORT, (gex_AM_Fn_t)rep_short, REP | GEX_FLAG_AM_SHORT, 1, NULL, "rep_short"},
    {H_REP_MEDIUM, (gex_AM_Fn_t)rep_medium, REP | GEX_FLAG_AM_MEDIUM, 1, NULL, "rep_medium"},
    {H_REP_LONG, (gex_AM_Fn_t)rep_long, REP | GEX_FLAG_AM_LONG, 1, NULL, "rep_long"},
    {H_ACK, (gex_AM_Fn_t)ack, REQ | GEX_FLAG_AM_SHORT, 0, NULL, "ack"},
};

enum { SHORT = 0, MEDIUM = 1, LONG = 2 };
enum { PP_REQREP = 0, PP_REQREQ = 1, FLOOD_REQ = 2, FLOOD_REQREP = 3 };
static const char *cat_name[] = {"Short", "Medium", "Long"};
static const char *pat_name[] = {"ping-pong Req/Rep", "ping-pong Req/Req", "flood Req",
                                 "flood Req/Rep"};

static void send_req(int cat, size_t sz, gex_AM_Arg_t flags) {
  switch (cat) {
    case SHORT: gex_AM_RequestShort1(b.tm, b.peer, H_REQ_SHORT, 0, flags); break;
    case MEDIUM:
      gex_AM_RequestMedium1(b.tm, b.peer, H_REQ_MEDIUM, src, sz, GEX_EVENT_NOW, 0, flags);
      break;
    default:
      gex_AM_RequestLong1(b.tm, b.peer, H_REQ_LONG, src, sz, peer_land, GEX_EVENT_NOW, 0, flags);
      break;
  }
}

/* The sender's side of n exchanges of one pattern; the first carries
 * F_CHECK when 'check'. */
static void sender(int cat, int pat, size_t sz, long n, int check) {
  gex_AM_Arg_t f0 = check ? F_CHECK : 0;
  switch (pat) {
    case PP_REQREP:
      for (long i = 0; i < n; i++) {
        uint32_t before = reps_in;
        send_req(cat, sz, F_REPLY | (i == 0 ? f0 : 0));
        GASNET_BLOCKUNTIL(reps_in != before);
      }
      break;
    case PP_REQREQ:
      for (long i = 0; i < n; i++) {
        uint32_t before = reqs_in;
        send_req(cat, sz, i == 0 ? f0 : 0);
        GASNET_BLOCKUNTIL(reqs_in != before);
      }
      break;
    case FLOOD_REQ: {
      uint32_t acks = acks_in, reqs = reqs_in;
      for (long i = 0; i < n; i++) send_req(cat, sz, i == 0 ? f0 : 0);
      if (b.peer == b.me) /* loopback: this rank is its own responder */
        GASNET_BLOCKUNTIL(reqs_in - reqs >= (uint32_t)n);
      else
        GASNET_BLOCKUNTIL(acks_in != acks);
      break;
    }
    default: {
      uint32_t target = reps_in + (uint32_t)n;
      for (long i = 0; i < n; i++) send_req(cat, sz, F_REPLY | (i == 0 ? f0 : 0));
      GASNET_BLOCKUNTIL(reps_in == target);
      break;
    }
  }
}

/* The responder's side of the same n exchanges.  *count is how many
 * Requests of this size have arrived before these n (taken before the
 * barrier that starts the size, so none of them can be missed). */
static void responder(int cat, int pat, size_t sz, long n, int check, uint32_t *count) {
  uint32_t base = *count;
  switch (pat) {
    case PP_REQREQ:
      for (long i = 0; i < n; i++) {
        GASNET_BLOCKUNTIL(reqs_in - base > (uint32_t)i);
        send_req(cat, sz, (i == 0 && check) ? F_CHECK : 0);
      }
      break;
    case FLOOD_REQ:
      GASNET_BLOCKUNTIL(reqs_in - base >= (uint32_t)n);
      gex_AM_RequestShort0(b.tm, b.peer, H_ACK, 0);
      break;
    default: /* the handlers reply */
      GASNET_BLOCKUNTIL(reqs_in - base >= (uint32_t)n);
      break;
  }
  *count = base + (uint32_t)n;
}

static void run(char s) {
  int idx = s - 'A', cat = idx / 4, pat = idx % 4;
  size_t cap;
  if (cat == SHORT) {
    cap = 0;
  } else if (cat == MEDIUM) {
    size_t rq = gex_AM_MaxRequestMedium(b.tm, b.peer, GEX_EVENT_NOW, 0, 1);
    size_t rp = gex_AM_MaxReplyMedium(b.tm, b.peer, GEX_EVENT_NOW, 0, 1);
    cap = rq < rp ? rq : rp;
  } else {
    size_t rq = gex_AM_MaxRequestLong(b.tm, b.peer, GEX_EVENT_NOW, 0, 1);
    size_t rp = gex_AM_MaxReplyLong(b.tm, b.peer, GEX_EVENT_NOW, 0, 1);
    cap = rq < rp ? rq : rp;
  }
  size_t first = cat == SHORT ? 0 : bench_first_size(&b.o, cap);
  for (size_t sz = first;; sz = bench_next_size(&b.o, cap, sz)) {
    long iters = bench_iters_at(&b.o, sz), warm = bench_warmup(iters);
    cur_size = sz;
    cur_section = s;
    bench_fill(src, sz, sz, s);
    uint32_t count = reqs_in; /* every Request of the previous size has arrived */
    gb_barrier(&b);
    double us = 0;
    if (b.role == BENCH_SENDER) {
      sender(cat, pat, sz, warm, 1);
      double t0 = bench_now_us();
      sender(cat, pat, sz, iters, 0);
      us = bench_now_us() - t0;
    } else if (b.role == BENCH_RECEIVER) {
      responder(cat, pat, sz, warm, 1, &count);
      responder(cat, pat, sz, iters, 0, &count);
    }
    gb_barrier(&b); /* also drains the handlers still to run here */
    if (errors) gb_die(&b, "%s AM payload check failed at size %zu (%s)", cat_name[cat], sz, pat_name[pat]);
    if (b.role == BENCH_SENDER) {
      if (us <= 0) us = 0.001;
      double per = us / (double)iters;
      double bytes = (double)sz * (pat == FLOOD_REQ ? 1.0 : 2.0);
      double mibs = (pat <= PP_REQREQ ? bytes / per : bytes * (double)iters / us) * 1e6 / 1048576.0;
      char bw[32];
      if (sz == 0)
        snprintf(bw, sizeof bw, "%14s", "-");
      else
        snprintf(bw, sizeof bw, "%14.3f", mibs);
      printf("%c: %3u - %-6s %10zu byte : %7ld iters, %12.5f us/op, %s MiB/s (%s)\n", s,
             (unsigned)b.me, cat_name[cat], sz, iters, per, bw, pat_name[pat]);
    }
    if (cat == SHORT) break;
    if (bench_next_size(&b.o, cap, sz) == 0) break;
  }
}

int main(int argc, char **argv) {
  gb_init(&b, &argc, &argv, "ABCDEFGHIJKL");
  size_t maxlong = gex_AM_LUBRequestLong();
  if (gex_AM_LUBReplyLong() < maxlong) maxlong = gex_AM_LUBReplyLong();
  if (b.o.maxsz == 0) b.o.maxsz = maxlong; /* default: the largest Long */
  size_t land_size = bench_round_page(b.o.maxsz < maxlong ? b.o.maxsz : maxlong);
  gb_attach(&b, b.o.in_seg ? land_size + bench_round_page(b.o.maxsz) : land_size);
  if (gex_EP_RegisterHandlers(b.ep, handlers, sizeof handlers / sizeof handlers[0]) != GASNET_OK)
    gb_die(&b, "gex_EP_RegisterHandlers failed");
  land = b.myseg;
  peer_land = b.peerseg;
  src = gb_local_buffer(&b, land_size, b.o.maxsz < maxlong ? b.o.maxsz : maxlong);
  gb_header(&b, "Active Message round trip and flood rate, MiB/s = 2^20 bytes/s");
  gb_barrier(&b);
  for (const char *s = b.o.sections; *s; s++) run(*s);
  gb_barrier(&b);
  gb_free_local(&b, src);
  gasnet_exit(0);
}

/* hello.c -- the libgex demo job.
 *
 * Run it with any number of ranks:   gexrun -n 4 hello
 *
 * What it does, on every rank:
 *   1. starts libgex, attaches a segment and registers a few AM handlers;
 *   2. Puts a greeting into its right neighbour's segment, then Gets the
 *      greeting its left neighbour received, and checks both;
 *   3. plays AM ping-pong (Short request, Short reply) with its right
 *      neighbour and sends it a Medium AM whose payload the handler checks;
 *   4. reports success to rank 0 with an AM.
 * Then rank 0 times a few operations against its right neighbour while the
 * others wait in a barrier (which keeps them polling), prints a short
 * summary and the job exits.
 */
#include <gasnetex.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- handler indices ------------------------------------------------------- */
enum {
  H_PING = GEX_AM_INDEX_BASE, /* Short request: (seq)                  */
  H_PONG,                     /* Short reply:   (seq)                  */
  H_MEDIUM,                   /* Medium request: (total, seed) + bytes */
  H_MEDIUM_DONE,              /* Short reply:   (count, errors)        */
  H_REPORT,                   /* Short request: (rank, ok)             */
};

#define SEG_SIZE ((uintptr_t)4 << 20)
#define GREETING_LEN 64              /* slot at offset 0 of every segment */
#define BULK_OFFSET ((uintptr_t)4096) /* bandwidth target area            */
#define BULK_MAX ((size_t)65536)

static gex_TM_t tm;
static gex_Rank_t me, nranks;

/* Written by handlers, read by the main thread: volatile is enough because
 * handlers run inside this thread's polls (no progress threads here). */
static volatile uint32_t pong_count, pong_last_seq;
static volatile uint32_t medium_seen, medium_errors, medium_done;
static volatile uint32_t medium_done_count, medium_done_errors;
static volatile uint32_t reports, reports_ok;

static void die(const char *what) {
  fprintf(stderr, "hello: rank %u: %s\n", (unsigned)me, what);
  gasnet_exit(1);
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static uint8_t pattern_byte(uint32_t seed, size_t i) {
  return (uint8_t)((seed * 131u) ^ (uint32_t)(i * 7u));
}

/* ---- handlers ----------------------------------------------------------------- */
static void ping_handler(gex_Token_t token, gex_AM_Arg_t seq) {
  gex_AM_ReplyShort1(token, H_PONG, 0, seq);
}

static void pong_handler(gex_Token_t token, gex_AM_Arg_t seq) {
  (void)token;
  pong_last_seq = (uint32_t)seq;
  pong_count++;
}

/* Checks the payload; after 'total' messages replies with the tally. */
static void medium_handler(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t total,
                           gex_AM_Arg_t seed) {
  const uint8_t *p = buf;
  for (size_t i = 0; i < nbytes; i++) {
    if (p[i] != pattern_byte((uint32_t)seed, i)) {
      medium_errors++;
      break;
    }
  }
  if (++medium_seen == (uint32_t)total) {
    uint32_t errs = medium_errors;
    gex_AM_ReplyShort2(token, H_MEDIUM_DONE, 0, (gex_AM_Arg_t)medium_seen, (gex_AM_Arg_t)errs);
    medium_seen = 0;
    medium_errors = 0;
  }
}

static void medium_done_handler(gex_Token_t token, gex_AM_Arg_t count, gex_AM_Arg_t errors) {
  (void)token;
  medium_done_count = (uint32_t)count;
  medium_done_errors = (uint32_t)errors;
  medium_done++;
}

static void report_handler(gex_Token_t token, gex_AM_Arg_t rank, gex_AM_Arg_t ok) {
  (void)token;
  (void)rank;
  if (ok) reports_ok++;
  reports++;
}

static gex_AM_Entry_t handlers[] = {
    {H_PING, (gex_AM_Fn_t)ping_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL,
     "ping"},
    {H_PONG, (gex_AM_Fn_t)pong_handler, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1, NULL, "pong"},
    {H_MEDIUM, (gex_AM_Fn_t)medium_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 2, NULL,
     "medium"},
    {H_MEDIUM_DONE, (gex_AM_Fn_t)medium_done_handler, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 2,
     NULL, "medium_done"},
    {H_REPORT, (gex_AM_Fn_t)report_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 2, NULL,
     "report"},
};

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

/* One AM ping-pong: returns once the reply for 'seq' has arrived. */
static void ping(gex_Rank_t peer, uint32_t seq) {
  uint32_t before = pong_count;
  gex_AM_RequestShort1(tm, peer, H_PING, 0, (gex_AM_Arg_t)seq);
  GASNET_BLOCKUNTIL(pong_count != before);
}

/* Sends 'count' Medium AMs of 'len' bytes and waits for the tally reply. */
static void medium_round(gex_Rank_t peer, const uint8_t *buf, size_t len, uint32_t count,
                         uint32_t seed) {
  uint32_t before = medium_done;
  for (uint32_t i = 0; i < count; i++)
    gex_AM_RequestMedium2(tm, peer, H_MEDIUM, buf, len, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)count,
                          (gex_AM_Arg_t)seed);
  GASNET_BLOCKUNTIL(medium_done != before);
  if (medium_done_count != count || medium_done_errors != 0) die("Medium AM payload corrupted");
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t seg;

  if (gex_Client_Init(&client, &ep, &tm, "HELLO", &argc, &argv, 0) != GASNET_OK) {
    fprintf(stderr, "hello: gex_Client_Init failed\n");
    return 1;
  }
  me = gex_TM_QueryRank(tm);
  nranks = gex_TM_QuerySize(tm);
  if (gex_Segment_Attach(&seg, tm, SEG_SIZE) != GASNET_OK) die("gex_Segment_Attach failed");
  if (gex_EP_RegisterHandlers(ep, handlers, sizeof handlers / sizeof handlers[0]) != GASNET_OK)
    die("gex_EP_RegisterHandlers failed");

  const gex_Rank_t right = (me + 1) % nranks, left = (me + nranks - 1) % nranks;
  char *mine = gex_Segment_QueryAddr(seg);
  void *right_seg = NULL, *left_seg = NULL;
  uintptr_t right_size = 0, left_size = 0;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, right, &right_seg, NULL, &right_size, 0));
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, left, &left_seg, NULL, &left_size, 0));
  if (right_size < SEG_SIZE || left_size < SEG_SIZE) die("neighbour segment not found");
  memset(mine, 0, GREETING_LEN);
  barrier(); /* every slot is cleared before anyone writes into it */

  /* ---- 1. Put a greeting to the right, Get what the left one received ---- */
  char greeting[GREETING_LEN] = {0};
  snprintf(greeting, sizeof greeting, "hello from rank %u", (unsigned)me);
  gex_RMA_PutBlocking(tm, right, right_seg, greeting, GREETING_LEN, 0);
  barrier();

  char expect[GREETING_LEN] = {0}, fetched[GREETING_LEN] = {0};
  snprintf(expect, sizeof expect, "hello from rank %u", (unsigned)left);
  if (memcmp(mine, expect, GREETING_LEN) != 0) die("greeting Put from the left neighbour is wrong");
  gex_RMA_GetBlocking(tm, fetched, left, left_seg, GREETING_LEN, 0);
  snprintf(expect, sizeof expect, "hello from rank %u", (unsigned)((left + nranks - 1) % nranks));
  if (memcmp(fetched, expect, GREETING_LEN) != 0) die("greeting Got from the left neighbour is wrong");
  char received[GREETING_LEN];
  memcpy(received, mine, GREETING_LEN);
  received[GREETING_LEN - 1] = '\0';

  /* ---- 2. AM ping-pong and a Medium round with the right neighbour ---- */
  for (uint32_t seq = 1; seq <= 10; seq++) {
    ping(right, seq);
    if (pong_last_seq != seq) die("AM Short reply carried the wrong argument");
  }
  size_t max_medium = gex_AM_MaxRequestMedium(tm, right, GEX_EVENT_NOW, 0, 2);
  size_t bulk = max_medium < BULK_MAX ? max_medium : BULK_MAX;
  uint8_t *buf = malloc(BULK_MAX);
  if (!buf) die("out of memory");
  for (size_t i = 0; i < bulk; i++) buf[i] = pattern_byte(me, i);
  medium_round(right, buf, bulk, 16, me);

  /* ---- 3. tell rank 0 this rank passed every check ---- */
  gex_AM_RequestShort2(tm, 0, H_REPORT, 0, (gex_AM_Arg_t)me, 1);
  if (me == 0) GASNET_BLOCKUNTIL(reports == nranks);
  barrier();

  /* ---- 4. rank 0 measures; everyone else polls inside the barrier ---- */
  if (me == 0) {
    uint64_t v = 0x0123456789abcdefu, r = 0;
    char *dst = (char *)right_seg + BULK_OFFSET;
    const int lat_iters = 20000, am_iters = 5000, bw_iters = 2000;
    double t;

    for (int i = 0; i < 100; i++) gex_RMA_PutBlocking(tm, right, dst, &v, 8, 0); /* warm up */
    t = now_us();
    for (int i = 0; i < lat_iters; i++) gex_RMA_PutBlocking(tm, right, dst, &v, 8, 0);
    double put_us = (now_us() - t) / lat_iters;

    t = now_us();
    for (int i = 0; i < lat_iters; i++) gex_RMA_GetBlocking(tm, &r, right, dst, 8, 0);
    double get_us = (now_us() - t) / lat_iters;
    if (r != v) die("8-byte Get returned the wrong value");

    for (uint32_t i = 0; i < 1000; i++) ping(right, i); /* warm up */
    t = now_us();
    for (int i = 0; i < am_iters; i++) ping(right, (uint32_t)i);
    double am_us = (now_us() - t) / am_iters;

    medium_round(right, buf, bulk, 50, me);
    t = now_us();
    medium_round(right, buf, bulk, (uint32_t)bw_iters, me);
    double med_mibs = (double)bulk * bw_iters / (1024.0 * 1024.0) / ((now_us() - t) / 1e6);

    for (int i = 0; i < 50; i++)
      gex_RMA_PutNBI(tm, right, dst, buf, BULK_MAX, GEX_EVENT_DEFER, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    t = now_us();
    for (int i = 0; i < bw_iters; i++)
      gex_RMA_PutNBI(tm, right, dst, buf, BULK_MAX, GEX_EVENT_DEFER, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    double put_mibs = (double)BULK_MAX * bw_iters / (1024.0 * 1024.0) / ((now_us() - t) / 1e6);

    printf("libgex hello: %u rank%s, all %u passed the Put/Get/AM checks\n", (unsigned)nranks,
           nranks == 1 ? "" : "s", (unsigned)reports_ok);
    printf("  rank 0 received \"%s\" and fetched \"%s\"\n", received, fetched);
    printf("  timings from rank 0 to rank %u:\n", (unsigned)right);
    printf("    blocking Put, 8 bytes      %9.4f us\n", put_us);
    printf("    blocking Get, 8 bytes      %9.4f us\n", get_us);
    printf("    AM Short round trip        %9.4f us\n", am_us);
    printf("    AM Medium bandwidth        %9.1f MiB/s  (%zu-byte messages)\n", med_mibs, bulk);
    printf("    PutNBI flood bandwidth     %9.1f MiB/s  (%zu-byte puts, one buffer: in cache)\n",
           put_mibs, BULK_MAX);
    fflush(stdout);
    if (reports_ok != nranks) die("some rank failed its checks");
  }
  barrier();
  free(buf);
  gasnet_exit(0);
}

/* scale.c -- gex-scale: start-up time, an all-to-all, collective latency and
 * memory per rank, for a job of any size.
 *
 *   gexrun -n N gex-scale [-launch NS] [-iters K] [-fault put|am]
 *
 * Uses only the public GASNet-EX API, so the same source builds against
 * libgex and against the reference GASNet-EX (bench/scale/run does both).
 *
 * Each rank:
 *   1. takes a CLOCK_REALTIME stamp first thing in main, initializes the
 *      client, attaches a segment, registers its handlers and waits in the
 *      first barrier; a second stamp after it.  With -launch NS (the
 *      launcher's CLOCK_REALTIME in nanoseconds, taken by the script just
 *      before it starts the job) rank 0 reports how long after the launch
 *      the slowest rank reached main and left the first barrier.
 *   2. all-to-all: to every other rank, in the order me+1, me+2, ..., an
 *      8-byte gex_RMA_PutNBI of a word that names the source and the target,
 *      into slot [source] of the target's segment, and an AM Short request
 *      carrying the same; the handler counts it per source and replies; the
 *      rank waits for its Puts (gex_NBI_Wait) and for every reply, then a
 *      barrier.  The all-to-all time is the slowest rank's time from the
 *      first Put to the end of that barrier.
 *   3. checks every slot of its segment (slot [me] must be untouched) and
 *      that exactly one request came from every other rank, with the right
 *      arguments; each mismatch is counted, and the first few are printed
 *      as "FAIL rank R: ..." lines on stderr.
 *   4. K barriers (gex_Coll_BarrierNB + wait) and K 8-byte broadcasts from
 *      rank 0 (gex_Coll_BroadcastNB + wait, every payload checked), after
 *      K/10 (at most 10) warm-up ones each; each rank's mean per operation.
 *   5. its peak RSS (getrusage ru_maxrss) and its open descriptors (the
 *      entries of /proc/self/fd, less the one that reads it), its CPU time,
 *      and its stamps: one record Put into rank 0's segment.
 * Rank 0 prints "# gex-scale: stage NAME SECONDS" after the first barrier,
 * the all-to-all and step 4 (its own view, so that a run that fails shows
 * how far it got), and at the end one JSON line (the only line of stdout
 * starting with '{'):
 * maxima over the ranks for times, maximum and median for RSS and
 * descriptors.  If any check failed anywhere, it also prints
 * "FAIL: ..." and every rank exits with status 1 (gasnet_exit(1)).
 *
 * -fault put: rank 1 Puts a wrong word to rank 0; -fault am: rank 1 sends
 * no request to rank 0.  Both must make the run fail (a check of the check).
 */
#include <gasnetex.h>
#include <gasnet.h>
#include <gasnet_coll.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#ifdef LIBGEX
#define IMPL "libgex"
#else
#define IMPL "reference"
#endif

enum { H_REQ = GEX_AM_INDEX_BASE, H_REP };
enum { MAX_PRINTED = 5 };

/* One rank's record in rank 0's segment (16 words). */
enum {
  R_T_MAIN, R_T_BAR1, R_T_A0, R_T_A1, R_BAR_NS, R_BCAST_NS, R_RSS_KB, R_FDS, R_ERRORS, R_NBRHD,
  R_CPU_US, R_VALID, R_WORDS = 16
};
#define RECORD_VALID UINT64_C(0x5ca1ab1e5ca1ab1e)

static gex_TM_t tm;
static gex_Rank_t me, nranks;
static volatile uint32_t *am_count; /* requests received, per source */
static volatile uint32_t am_bad;    /* requests with wrong arguments */
static volatile uint32_t replies;   /* replies received */
static unsigned long errors;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The word source s writes into target t's slot s. */
static uint64_t word(gex_Rank_t s, gex_Rank_t t) {
  return UINT64_C(0x9e37000000000000) ^ ((uint64_t)s << 24) ^ (uint64_t)t;
}

/* The request's second argument, from s to t. */
static gex_AM_Arg_t am_tag(gex_Rank_t s, gex_Rank_t t) { return (gex_AM_Arg_t)(((s * 7919u) ^ t) & 0x7fffffff); }

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
  if (errors++ < MAX_PRINTED) {
    va_list ap;
    fprintf(stderr, "FAIL rank %u: ", (unsigned)me);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
  }
}

static void req_handler(gex_Token_t t, gex_AM_Arg_t src, gex_AM_Arg_t tag) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  if ((gex_Rank_t)src == info.gex_srcrank && (gex_Rank_t)src < nranks && tag == am_tag((gex_Rank_t)src, me))
    am_count[src]++;
  else
    am_bad++;
  gex_AM_ReplyShort0(t, H_REP, 0);
}

static void rep_handler(gex_Token_t t) {
  (void)t;
  replies++;
}

static gex_AM_Entry_t handlers[] = {
    {H_REQ, (gex_AM_Fn_t)req_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 2, NULL, "scale_req"},
    {H_REP, (gex_AM_Fn_t)rep_handler, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "scale_rep"},
};

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

static long count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  long n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n - 1; /* the directory stream's own descriptor */
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static double median(uint64_t *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_u64);
  return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/* Rank 0's progress, so that a run that fails later shows how far it got:
 * "# gex-scale: stage NAME S" with S the seconds of that stage on rank 0
 * (first-barrier: since the launch, or since main without -launch). */
static void stage(const char *name, int64_t ns) {
  if (me != 0) return;
  printf("# gex-scale: stage %s %.6f\n", name, (double)ns / 1e9);
  fflush(stdout);
}

static void usage(const char *why) {
  if (me == 0) fprintf(stderr, "gex-scale: %s\nusage: gex-scale [-launch NS] [-iters K] [-fault put|am]\n", why);
  gasnet_exit(2);
}

int main(int argc, char **argv) {
  int64_t t_main = now_ns();
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t seg;
  if (gex_Client_Init(&client, &ep, &tm, "gex-scale", &argc, &argv, 0) != GASNET_OK) {
    fprintf(stderr, "gex-scale: gex_Client_Init failed\n");
    return 1;
  }
  me = gex_TM_QueryRank(tm);
  nranks = gex_TM_QuerySize(tm);

  int64_t launch = 0;
  long iters = 100;
  int fault = 0; /* 1 put, 2 am */
  for (int i = 1; i < argc; i++) {
    char *end;
    if (!strcmp(argv[i], "-launch") && i + 1 < argc) {
      launch = strtoll(argv[++i], &end, 10);
      if (*end || launch <= 0) usage("-launch wants nanoseconds since the epoch");
    } else if (!strcmp(argv[i], "-iters") && i + 1 < argc) {
      iters = strtol(argv[++i], &end, 10);
      if (*end || iters < 1 || iters > 100000000) usage("-iters wants a positive integer");
    } else if (!strcmp(argv[i], "-fault") && i + 1 < argc) {
      i++;
      if (!strcmp(argv[i], "put")) fault = 1;
      else if (!strcmp(argv[i], "am")) fault = 2;
      else usage("-fault wants put or am");
    } else {
      usage("unknown argument");
    }
  }

  /* The segment: nranks words, then nranks records (rank 0's are read). */
  size_t words_bytes = (size_t)nranks * 8;
  size_t rec_off = (words_bytes + 127) & ~(size_t)127;
  size_t segsize = rec_off + (size_t)nranks * R_WORDS * 8;
  segsize = (segsize + 65535) & ~(size_t)65535;
  if (gex_Segment_Attach(&seg, tm, segsize) != GASNET_OK) {
    fprintf(stderr, "gex-scale: rank %u: gex_Segment_Attach(%zu) failed\n", (unsigned)me, segsize);
    gasnet_exit(1);
  }
  if (gex_EP_RegisterHandlers(ep, handlers, sizeof handlers / sizeof handlers[0]) != GASNET_OK) {
    fprintf(stderr, "gex-scale: rank %u: gex_EP_RegisterHandlers failed\n", (unsigned)me);
    gasnet_exit(1);
  }
  uint64_t *slots = (uint64_t *)gex_Segment_QueryAddr(seg);
  memset(slots, 0, segsize);
  am_count = calloc(nranks, sizeof *am_count);
  uint64_t *src = malloc((size_t)nranks * sizeof *src);
  void **peer = malloc((size_t)nranks * sizeof *peer);
  if (!am_count || !src || !peer) {
    fprintf(stderr, "gex-scale: rank %u: out of memory\n", (unsigned)me);
    gasnet_exit(1);
  }

  barrier();
  int64_t t_bar1 = now_ns();
  stage("first-barrier", launch ? t_bar1 - launch : t_bar1 - t_main);

  /* ---- all-to-all ---- */
  for (gex_Rank_t r = 0; r < nranks; r++)
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, r, &peer[r], NULL, NULL, 0));
  barrier();
  int64_t t_a0 = now_ns();
  uint32_t expect_replies = 0;
  for (gex_Rank_t i = 1; i < nranks; i++) {
    gex_Rank_t t = (gex_Rank_t)((me + i) % nranks);
    src[t] = word(me, t);
    if (fault == 1 && me == 1 && t == 0) src[t] ^= 1;
    gex_RMA_PutNBI(tm, t, (uint64_t *)peer[t] + me, &src[t], 8, GEX_EVENT_DEFER, 0);
    if (fault == 2 && me == 1 && t == 0) continue;
    gex_AM_RequestShort2(tm, t, H_REQ, 0, (gex_AM_Arg_t)me, am_tag(me, t));
    expect_replies++;
  }
  gex_NBI_Wait(GEX_EC_PUT, 0);
  GASNET_BLOCKUNTIL(replies == expect_replies);
  barrier();
  int64_t t_a1 = now_ns();
  stage("all-to-all", t_a1 - t_a0);

  for (gex_Rank_t s = 0; s < nranks; s++) {
    uint64_t want = s == me ? 0 : word(s, me);
    if (slots[s] != want)
      fail("slot %u holds 0x%016" PRIx64 ", expected 0x%016" PRIx64 " (the Put from rank %u)", (unsigned)s,
           slots[s], want, (unsigned)s);
    uint32_t want_am = s == me ? 0 : 1;
    if (am_count[s] != want_am)
      fail("%u AM request(s) from rank %u, expected %u", (unsigned)am_count[s], (unsigned)s, (unsigned)want_am);
  }
  if (am_bad) fail("%u AM request(s) with wrong arguments", (unsigned)am_bad);

  /* ---- barrier and broadcast latency ---- */
  long warm = iters / 10 < 10 ? iters / 10 : 10;
  for (long i = 0; i < warm; i++) barrier();
  int64_t b0 = now_ns();
  for (long i = 0; i < iters; i++) barrier();
  int64_t bar_ns = now_ns() - b0;

  uint64_t bsrc = 0, bdst = 0;
  int64_t bc_ns = 0;
  for (long i = -warm; i < iters; i++) {
    uint64_t v = UINT64_C(0xb0ad000000000000) + (uint64_t)(i + warm);
    bsrc = v;
    bdst = 0;
    int64_t c0 = now_ns();
    gex_Event_Wait(gex_Coll_BroadcastNB(tm, 0, me == 0 ? &bsrc : &bdst, &bsrc, 8, 0));
    if (i >= 0) bc_ns += now_ns() - c0;
    if (me != 0 && bdst != v)
      fail("broadcast %ld delivered 0x%016" PRIx64 ", expected 0x%016" PRIx64, i + warm, bdst, v);
  }

  stage("collectives", now_ns() - b0);

  /* ---- the records, to rank 0 ---- */
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  gex_Rank_t nbrhd = 0, nbrhd_rank = 0;
  gex_System_QueryNbrhdInfo(NULL, &nbrhd, &nbrhd_rank);
  uint64_t rec[R_WORDS] = {0};
  rec[R_T_MAIN] = (uint64_t)t_main;
  rec[R_T_BAR1] = (uint64_t)t_bar1;
  rec[R_T_A0] = (uint64_t)t_a0;
  rec[R_T_A1] = (uint64_t)t_a1;
  rec[R_BAR_NS] = (uint64_t)bar_ns;
  rec[R_BCAST_NS] = (uint64_t)bc_ns;
  rec[R_RSS_KB] = (uint64_t)ru.ru_maxrss;
  rec[R_FDS] = (uint64_t)count_fds();
  rec[R_ERRORS] = errors;
  rec[R_NBRHD] = nbrhd;
  rec[R_CPU_US] = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
                  (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  rec[R_VALID] = RECORD_VALID;
  gex_RMA_PutBlocking(tm, 0, (char *)peer[0] + rec_off + (size_t)me * R_WORDS * 8, rec, sizeof rec, 0);
  barrier();

  int64_t verdict = 0;
  if (me == 0) {
    const uint64_t *all = (const uint64_t *)(void *)((char *)slots + rec_off);
    uint64_t *rss = malloc((size_t)nranks * 8), *fds = malloc((size_t)nranks * 8);
    if (!rss || !fds) {
      fprintf(stderr, "gex-scale: out of memory\n");
      gasnet_exit(1);
    }
    int64_t main_max = 0, bar1_max = 0, a0_min = INT64_MAX, a1_max = 0, init_max = 0, a2a_max = 0;
    uint64_t bar_max = 0, bc_max = 0, err_sum = 0, err_ranks = 0, nb_max = 0, cpu_sum = 0, cpu_max = 0;
    unsigned long missing = 0;
    for (gex_Rank_t r = 0; r < nranks; r++) {
      const uint64_t *x = all + (size_t)r * R_WORDS;
      if (x[R_VALID] != RECORD_VALID) {
        missing++;
        rss[r] = fds[r] = 0;
        continue;
      }
      int64_t tm0 = (int64_t)x[R_T_MAIN], tb1 = (int64_t)x[R_T_BAR1];
      if (launch && tm0 - launch > main_max) main_max = tm0 - launch;
      if (launch && tb1 - launch > bar1_max) bar1_max = tb1 - launch;
      if (tb1 - tm0 > init_max) init_max = tb1 - tm0;
      if ((int64_t)x[R_T_A0] < a0_min) a0_min = (int64_t)x[R_T_A0];
      if ((int64_t)x[R_T_A1] > a1_max) a1_max = (int64_t)x[R_T_A1];
      if ((int64_t)(x[R_T_A1] - x[R_T_A0]) > a2a_max) a2a_max = (int64_t)(x[R_T_A1] - x[R_T_A0]);
      if (x[R_BAR_NS] > bar_max) bar_max = x[R_BAR_NS];
      if (x[R_BCAST_NS] > bc_max) bc_max = x[R_BCAST_NS];
      if (x[R_ERRORS]) err_ranks++;
      err_sum += x[R_ERRORS];
      if (x[R_NBRHD] > nb_max) nb_max = x[R_NBRHD];
      cpu_sum += x[R_CPU_US];
      if (x[R_CPU_US] > cpu_max) cpu_max = x[R_CPU_US];
      rss[r] = x[R_RSS_KB];
      fds[r] = x[R_FDS];
    }
    uint64_t rss_max = 0, fds_max = 0;
    for (gex_Rank_t r = 0; r < nranks; r++) {
      if (rss[r] > rss_max) rss_max = rss[r];
      if (fds[r] > fds_max) fds_max = fds[r];
    }
    double rss_med = median(rss, nranks), fds_med = median(fds, nranks);
    char l_main[32] = "null", l_bar1[32] = "null";
    if (launch) {
      snprintf(l_main, sizeof l_main, "%.6f", (double)main_max / 1e9);
      snprintf(l_bar1, sizeof l_bar1, "%.6f", (double)bar1_max / 1e9);
    }
    printf("{\"bench\": \"gex-scale\", \"impl\": \"%s\", \"conduit\": \"%s\", \"ranks\": %u, "
           "\"nbrhd_max\": %" PRIu64 ", \"iters\": %ld, "
           "\"launch_to_main_max_s\": %s, \"launch_to_barrier_max_s\": %s, \"init_max_s\": %.6f, "
           "\"alltoall_s\": %.6f, \"alltoall_span_s\": %.6f, \"barrier_us\": %.3f, \"bcast8_us\": %.3f, "
           "\"rss_kb_max\": %" PRIu64 ", \"rss_kb_median\": %.1f, \"fds_max\": %" PRIu64 ", \"fds_median\": %.1f, "
           "\"cpu_s_sum\": %.3f, \"cpu_s_max\": %.3f, \"errors\": %" PRIu64 ", \"missing_records\": %lu}\n",
           IMPL, GASNET_CONDUIT_NAME_STR, (unsigned)nranks, nb_max, iters, l_main, l_bar1,
           (double)init_max / 1e9, (double)a2a_max / 1e9, (double)(a1_max - a0_min) / 1e9,
           (double)bar_max / 1e3 / (double)iters, (double)bc_max / 1e3 / (double)iters, rss_max, rss_med, fds_max,
           fds_med, (double)cpu_sum / 1e6, (double)cpu_max / 1e6, err_sum, missing);
    if (err_sum || missing) {
      printf("FAIL: %" PRIu64 " mismatch(es) on %" PRIu64 " rank(s), %lu record(s) missing\n", err_sum, err_ranks,
             missing);
      verdict = 1;
    }
    fflush(stdout);
    free(rss);
    free(fds);
  }
  /* every rank leaves with rank 0's verdict */
  int64_t v = verdict;
  gex_Event_Wait(gex_Coll_BroadcastNB(tm, 0, &v, &verdict, sizeof v, 0));
  gasnet_exit((int)v);
  return (int)v;
}

/* tests/test_util.c -- shared helpers for the libgex test programs. */
#include "test_util.h"

#include <gasnet_coll.h>

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

test_ctx_t T;
uintptr_t (*test_seg_size_fn)(gex_Rank_t rank, gex_Rank_t size);

/* ---- failure reporting ------------------------------------------------ */
void test_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
  char msg[512] = "";
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
  }
  fflush(stdout);
  fprintf(stderr, "FAIL %s rank %ld: %s:%d: CHECK(%s) failed%s%s\n", T.name ? T.name : "?",
          T.initialized ? (long)T.rank : -1L, file, line, cond, fmt ? ": " : "", msg);
  fflush(stderr);
  if (T.initialized) gasnet_exit(1);
  exit(1);
}

static void vlog(const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  /* one write per line, so lines of different ranks do not interleave */
  printf("rank %ld: %s\n", T.initialized ? (long)T.rank : -1L, msg);
  fflush(stdout);
}

void test_log(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

void test_log0(const char *fmt, ...) {
  if (T.initialized && T.rank != 0) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

/* ---- watchdog ------------------------------------------------------------- */
/* A hung test should say so before ctest's TIMEOUT kills it silently.  The
 * limit is in fair-share seconds (tests/load_scale.sh): a thread adds up
 * wall time divided by the load factor max(1, load1 / CPUs), once a
 * second, so that a slow run on a busy machine is not taken for a hang;
 * ten times the limit in wall time ends it whatever the load. */
static double load_factor(void) {
  static long ncpu;
  if (!ncpu && (ncpu = sysconf(_SC_NPROCESSORS_ONLN)) < 1) ncpu = 1;
  double l1 = 0;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l1) != 1) l1 = 0;
    fclose(f);
  }
  return l1 > (double)ncpu ? l1 / (double)ncpu : 1.0;
}

static void *watchdog(void *arg) {
  const double limit = (double)(intptr_t)arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  double fair = 0, t = test_now();
  const double t0 = t;
  while (fair < limit && t - t0 < 10 * limit) {
    struct timespec one = {1, 0};
    nanosleep(&one, NULL);
    double now = test_now();
    fair += (now - t) / load_factor();
    t = now;
  }
  static const char msg[] =
      "FAIL: test watchdog expired (GEX_TEST_WATCHDOG fair-share seconds); hung?\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  signal(SIGALRM, SIG_DFL);
  sigset_t alrm;
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
  raise(SIGALRM); /* ends the process as the alarm it replaces did */
  return NULL;
}

void test_start_watchdog(void) {
  const char *s = getenv("GEX_TEST_WATCHDOG");
  long secs = s ? atol(s) : 100;
  if (secs <= 0) return;
  pthread_t t;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&t, &a, watchdog, (void *)(intptr_t)secs) != 0) alarm((unsigned)secs);
  pthread_attr_destroy(&a);
}

/* ---- start and end ---------------------------------------------------------- */
void test_init_client(int *argc, char ***argv, const char *name, gex_Flags_t init_flags) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  T.name = name;
  test_start_watchdog();

  int rc = gex_Client_Init(&T.client, &T.ep, &T.tm, name, argc, argv, init_flags);
  if (rc != GASNET_OK) {
    fprintf(stderr, "FAIL %s: gex_Client_Init returned %d\n", name, rc);
    exit(1);
  }
  T.initialized = 1;
  CHECK(T.client != GEX_CLIENT_INVALID);
  CHECK(T.ep != GEX_EP_INVALID);
  CHECK(T.tm != GEX_TM_INVALID);
  T.rank = gex_TM_QueryRank(T.tm);
  T.size = gex_TM_QuerySize(T.tm);
  CHECK(T.size >= 1);
  CHECK(T.rank < T.size);

  const char *exp = getenv("GEX_TEST_EXPECT_RANKS");
  if (exp && *exp) CHECKF((long)T.size == atol(exp), "job size %u, expected %s", T.size, exp);
}

void test_init_flags(int *argc, char ***argv, const char *name, uintptr_t seg_size,
                     gex_AM_Entry_t *handlers, size_t nhandlers, gex_Flags_t init_flags) {
  test_init_client(argc, argv, name, init_flags);
  int rc;
  uintptr_t page = GASNET_PAGESIZE;
  if (test_seg_size_fn) seg_size = test_seg_size_fn(T.rank, T.size);
  if (seg_size == 0) seg_size = page;
  seg_size = (seg_size + page - 1) / page * page;
  rc = gex_Segment_Attach(&T.seg, T.tm, seg_size);
  CHECKF(rc == GASNET_OK, "gex_Segment_Attach(%zu) returned %d", (size_t)seg_size, rc);
  CHECK(T.seg != GEX_SEGMENT_INVALID);
  T.seg_base = gex_Segment_QueryAddr(T.seg);
  T.seg_size = gex_Segment_QuerySize(T.seg);
  CHECK(T.seg_base != NULL);
  CHECKF(T.seg_size >= seg_size, "segment size %zu < requested %zu", (size_t)T.seg_size,
         (size_t)seg_size);

  T.peer_seg = calloc(T.size, sizeof *T.peer_seg);
  T.peer_size = calloc(T.size, sizeof *T.peer_size);
  CHECK(T.peer_seg && T.peer_size);
  for (gex_Rank_t r = 0; r < T.size; r++) {
    void *owner = NULL, *local = NULL;
    uintptr_t sz = 0;
    gex_Event_t ev = gex_EP_QueryBoundSegmentNB(T.tm, r, &owner, &local, &sz, 0);
    test_wait(ev);
    CHECKF(sz > 0 && owner != NULL, "no bound segment reported for rank %u", r);
    T.peer_seg[r] = owner;
    T.peer_size[r] = sz;
  }
  CHECK(T.peer_seg[T.rank] == T.seg_base);
  CHECK(T.peer_size[T.rank] == T.seg_size);

  if (handlers && nhandlers) {
    rc = gex_EP_RegisterHandlers(T.ep, handlers, nhandlers);
    CHECKF(rc == GASNET_OK, "gex_EP_RegisterHandlers returned %d", rc);
  }
  test_barrier();
}

int test_in_nbrhd(gex_Rank_t r) {
  gex_RankInfo_t *info = NULL;
  gex_Rank_t count = 0;
  gex_System_QueryNbrhdInfo(&info, &count, NULL);
  for (gex_Rank_t i = 0; i < count; i++)
    if (info[i].gex_jobrank == r) return 1;
  return 0;
}

void test_barrier(void) {
  gex_Event_t ev = gex_Coll_BarrierNB(T.tm, 0);
  CHECK(ev != GEX_EVENT_NO_OP);
  gex_Event_Wait(ev);
}

void test_finish(void) {
  test_barrier();
  if (T.rank == 0) {
    printf("PASS %s (%u ranks)\n", T.name, (unsigned)T.size);
    fflush(stdout);
  }
  /* A barrier does not complete everywhere at the same instant (over AMs,
   * rank 0 may still be receiving its last round when the others are
   * done): this second barrier puts rank 0's PASS line before any rank's
   * gasnet_exit, so that the line does not depend on the exit timeout the
   * others give it (t_exit's lastline mode tests that). */
  test_barrier();
  gasnet_exit(0);
}

/* ---- scaling ------------------------------------------------------------------ */
int test_scale_pct(void) {
  const char *s = getenv("GEX_TEST_SCALE");
  int v = s ? atoi(s) : 100;
  return v > 0 ? v : 100;
}

static long oversubscription(void) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 1) cpus = 1;
  long n = T.initialized ? (long)T.size : 1;
  return (n + cpus - 1) / cpus;
}

long test_iters(long base, long min) {
  long v = base * test_scale_pct() / 100 / oversubscription();
  return v < min ? min : v;
}

long test_arg_count(int argc, char **argv, long dflt) {
  if (argc < 2) return dflt;
  char *end;
  long v = strtol(argv[1], &end, 10);
  return end != argv[1] && *end == '\0' && v > 0 ? v : dflt;
}

int test_reduced(void) { return test_scale_pct() < 100 || oversubscription() > 1; }

/* ---- patterns ------------------------------------------------------------------ */
uint64_t test_mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

static inline uint64_t word_of(uint64_t seed, size_t w) {
  return test_mix(seed + 0x9E3779B97F4A7C15ULL * (uint64_t)(w + 1));
}

unsigned char test_pattern_byte(uint64_t seed, size_t i) {
  return (unsigned char)(word_of(seed, i / 8) >> (8 * (i % 8)));
}

/* Word k of a stream holds bytes 8k..8k+7, least significant byte first, so
 * the byte sequence is the same on any host.  Whole words are moved with
 * 8-byte memcpy (one access each, cheap under sanitizers). */
static inline uint64_t word_bytes_le(uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return __builtin_bswap64(w);
#else
  return w;
#endif
}

void test_fill(void *buf, size_t n, uint64_t seed) {
  unsigned char *p = buf;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w = word_bytes_le(word_of(seed, i / 8));
    memcpy(p + i, &w, 8);
  }
  for (; i < n; i++) p[i] = test_pattern_byte(seed, i);
}

long test_verify(const void *buf, size_t n, uint64_t seed) {
  const unsigned char *p = buf;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t got, want = word_bytes_le(word_of(seed, i / 8));
    memcpy(&got, p + i, 8);
    if (got != want) {
      for (int k = 0; k < 8; k++)
        if (p[i + k] != test_pattern_byte(seed, i + k)) return (long)(i + k);
    }
  }
  for (; i < n; i++)
    if (p[i] != test_pattern_byte(seed, i)) return (long)i;
  return -1;
}

long test_verify_byte(const void *buf, size_t n, unsigned char c) {
  const unsigned char *p = buf;
  size_t i = 0;
  uint64_t want;
  memset(&want, c, 8);
  for (; i + 8 <= n; i += 8) {
    uint64_t got;
    memcpy(&got, p + i, 8);
    if (got != want) break;
  }
  for (; i < n; i++)
    if (p[i] != c) return (long)i;
  return -1;
}

double test_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void test_check_job_count(const char *var, uint64_t mine, const char *what) {
  const char *want = getenv(var);
  if (!want || !*want) return;
  uint64_t total = 0;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(T.tm, &total, &mine, GEX_DT_U64, 8, 1, GEX_OP_ADD,
                                        NULL, NULL, 0));
  int none = strcmp(want, "0") == 0;
  if (none)
    CHECKF(total == 0, "%llu %s (%llu from this rank)", (unsigned long long)total, what,
           (unsigned long long)mine);
  else
    CHECKF(total > 0, "no %s counted", what);
  if (T.rank == 0)
    printf("%s: %llu (expected %s)\n", what, (unsigned long long)total, none ? "0" : "> 0");
}

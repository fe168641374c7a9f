/* t_rcv_thread.c -- the receive thread (GASNET_RCV_THREAD=1) does the
 * network's work for a rank that spins outside the library.
 *
 * Rank 0 sends every other rank a go, then leaves the library and spins
 * on plain loads.  On its go, every other rank sends it NMSG AM Mediums
 * carrying its index and a pattern, a blocking Put of PUTLEN pattern bytes
 * into its own slot of rank 0's segment, and then an AM Short saying it is
 * done.
 *
 *   GEX_TEST_RCV=1: rank 0 spins, with no call of the library, until every
 *   done has arrived (the test's watchdog catches a thread that never does
 *   it), and checks there, still outside the library, the AMs' order,
 *   payloads and count, the Puts' bytes, and that the last done ran on
 *   another thread (the last sender starts only once rank 0 has left).
 *   GEX_TEST_RCV=0 (the control: no receive thread): rank 0 spins
 *   GEX_TEST_SPIN_MS (default 300) and requires that nothing arrived
 *   meanwhile -- only its own polls can deliver here -- then waits in the
 *   library and checks the same.
 *
 * GEX_TEST_DEFER=1: the client passes GEX_FLAG_DEFER_THREADS and starts
 * what gex_System_QueryProgressThreads describes: one receive thread where
 * GEX_TEST_RCV=1, none otherwise. */
#include <pthread.h>
#include <time.h>

#include "test_util.h"

enum { H_MED = GEX_AM_INDEX_BASE, H_DONE, H_GO };
#define NMSG 200
#define MSGLEN 512
#define PUTLEN 4096
#define MAXRANKS 256

/* Next index expected from each rank: atomic, since the handlers of one
 * rank's AMs may run on two threads (rank 0's main thread while it sends
 * the gos, then the receive thread). */
static _Atomic uint32_t *next;
static atomic_uint bad;          /* out of order or wrong payload */
static atomic_uint got, done;    /* AMs handled, senders done */
static atomic_uint done_off_main; /* dones handled on another thread */
static atomic_uint go;
static pthread_t main_thread;

static void med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t idx) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  gex_Rank_t from = info.gex_srcrank;
  uint8_t want[MSGLEN];
  test_fill(want, sizeof want, test_seed(from, (uint64_t)idx, 11, 0));
  if (n != MSGLEN || (uint32_t)idx != atomic_load(&next[from]) || memcmp(buf, want, MSGLEN) != 0)
    atomic_fetch_add(&bad, 1);
  atomic_store(&next[from], (uint32_t)idx + 1);
  atomic_fetch_add(&got, 1);
}

static void fin(gex_Token_t t) {
  (void)t;
  if (!pthread_equal(pthread_self(), main_thread)) atomic_fetch_add(&done_off_main, 1);
  atomic_fetch_add(&done, 1);
}

static void on_go(gex_Token_t t) {
  (void)t;
  atomic_store(&go, 1);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int env_on(const char *name) {
  const char *e = getenv(name);
  return e && atoi(e) == 1;
}

/* Everything rank 0 should hold once every sender is done. */
static void check_all(void) {
  CHECKF(atomic_load(&bad) == 0, "%u AMs out of order or with a wrong payload", atomic_load(&bad));
  for (gex_Rank_t r = 1; r < T.size; r++) {
    CHECKF(atomic_load(&next[r]) == NMSG, "%u AMs from rank %u, expected %u",
           atomic_load(&next[r]), (unsigned)r, NMSG);
    CHECK_PATTERN(T.seg_base + (size_t)r * PUTLEN, PUTLEN, test_seed(r, 99, 11, 0));
  }
}

int main(int argc, char **argv) {
  main_thread = pthread_self();
  /* (before gex_Client_Init, which may start the thread that reads it) */
  next = calloc(MAXRANKS, sizeof *next);
  CHECK(next);
  const int rcv = env_on("GEX_TEST_RCV"), defer = env_on("GEX_TEST_DEFER");
  gex_AM_Entry_t h[] = {
      {H_MED, (gex_AM_Fn_t)med, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, "med"},
      {H_DONE, (gex_AM_Fn_t)fin, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "done"},
      {H_GO, (gex_AM_Fn_t)on_go, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "go"}};
  test_init_flags(&argc, &argv, "t_rcv_thread", 1 << 20, h, 3, defer ? GEX_FLAG_DEFER_THREADS : 0);
  if (T.size < 2) {
    test_log0("SKIP: t_rcv_thread: needs 2 or more ranks");
    gasnet_exit(77);
  }
  CHECKF((size_t)T.size * PUTLEN <= T.seg_size, "%u ranks need a larger segment", (unsigned)T.size);
  if (defer) {
    unsigned n = 99;
    const gex_ProgressThreadInfo_t *info = NULL;
    CHECK(gex_System_QueryProgressThreads(T.client, &n, &info, 0) == GASNET_OK);
    CHECKF(n == (unsigned)rcv, "%u deferred progress threads, expected %d", n, rcv);
    for (unsigned i = 0; i < n; i++) {
      CHECK(info[i].gex_device_list && info[i].gex_device_list[0]);
      CHECK(info[i].gex_thread_roles == GEX_THREAD_ROLE_RCV);
      pthread_t th;
      CHECK(pthread_create(&th, NULL, info[i].gex_progress_fn, info[i].gex_progress_arg) == 0);
    }
  }
  CHECKF(T.size <= MAXRANKS, "at most %d ranks", MAXRANKS);
  const unsigned senders = T.size - 1;
  test_barrier();
  if (T.rank == 0) {
    for (gex_Rank_t r = 1; r < T.size; r++) gex_AM_RequestShort0(T.tm, r, H_GO, 0);
    if (rcv) {
      /* (no call of the library until every sender is done) */
      while (atomic_load(&done) < senders) {
      }
      check_all();
      CHECKF(atomic_load(&done_off_main) > 0, "every done ran on the spinning thread");
    } else {
      const unsigned got0 = atomic_load(&got), done0 = atomic_load(&done);
      CHECKF(done0 < senders, "every sender was done before rank 0 left the library");
      const char *e = getenv("GEX_TEST_SPIN_MS");
      const double until = now_s() + (e && atoi(e) > 0 ? atoi(e) : 300) / 1e3;
      while (now_s() < until) {
      }
      CHECKF(atomic_load(&got) == got0 && atomic_load(&done) == done0,
             "%u AMs and %u dones arrived with nobody polling", atomic_load(&got) - got0,
             atomic_load(&done) - done0);
      GASNET_BLOCKUNTIL(atomic_load(&done) == senders);
      check_all();
    }
    test_log0("%u AMs and %u Puts of %d bytes arrived%s", atomic_load(&got), senders,
              PUTLEN, rcv ? " while it spun outside the library" : " once it polled");
  } else {
    GASNET_BLOCKUNTIL(atomic_load(&go));
    uint8_t buf[MSGLEN];
    for (uint32_t i = 0; i < NMSG; i++) {
      test_fill(buf, sizeof buf, test_seed(T.rank, i, 11, 0));
      gex_AM_RequestMedium1(T.tm, 0, H_MED, buf, sizeof buf, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)i);
    }
    uint8_t *src = malloc(PUTLEN);
    CHECK(src);
    test_fill(src, PUTLEN, test_seed(T.rank, 99, 11, 0));
    gex_RMA_PutBlocking(T.tm, 0, test_peer_addr(0, (size_t)T.rank * PUTLEN), src, PUTLEN, 0);
    free(src);
    gex_AM_RequestShort0(T.tm, 0, H_DONE, 0);
  }
  test_barrier();
  test_finish();
}

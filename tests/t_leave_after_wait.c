/* t_leave_after_wait.c -- a rank whose wait has completed may stop calling
 * the library at once: what it sent before is on its way without it.
 *
 * Over a network transport a frame to a peer whose connection is still
 * being made waits in the sender's process (docs/network.md, "Connection
 * setup"); a blocking wait that completes lets it go first.  Here every
 * rank, on fresh connections (nothing has crossed the network before):
 *
 *   1. enters a barrier, the job's first traffic over the network;
 *   2. once its barrier wait returns, leaves the library: it appends one
 *      byte to a file shared by the job (named by GEX_JOBID) and blocks,
 *      in the kernel (inotify), until every rank has appended its own;
 *   3. back in the library, sends an AM Short to every other rank (most
 *      of them over connections not made yet), enters a second barrier and
 *      meets the others outside the library again as in step 2;
 *   4. waits for the AMs of every other rank, checks their arguments, and
 *      ends with a barrier.
 *
 * A rank that kept the last messages of its barrier to itself while it was
 * outside the library would leave a peer in its barrier forever: every
 * rank waits outside at most GEX_TEST_LEAVE_S seconds (default 60), then
 * fails naming the count it saw.  Run with the network forced
 * (GEX_SUPERNODE_MAXSIZE=1). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

enum { H_HELLO = GEX_AM_INDEX_BASE };

static atomic_uint *seen; /* AMs from each rank */
static atomic_uint bad;   /* AMs with a wrong argument */

static void hello(gex_Token_t t, gex_AM_Arg_t from) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  if ((gex_Rank_t)from != info.gex_srcrank || (gex_Rank_t)from >= T.size)
    atomic_fetch_add(&bad, 1);
  else
    atomic_fetch_add(&seen[from], 1);
}

static int all_seen(void) {
  for (gex_Rank_t r = 0; r < T.size; r++)
    if (r != T.rank && atomic_load(&seen[r]) == 0) return 0;
  return 1;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Outside the library, meet every rank in the file 'path': 'round'
 * bytes from each (the file grows by one byte per rank and round). */
static void meet(const char *path, int round, int limit_s) {
  int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  CHECKF(fd >= 0, "open %s: %s", path, strerror(errno));
  int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  CHECKF(in >= 0, "inotify_init1: %s", strerror(errno));
  CHECKF(inotify_add_watch(in, path, IN_MODIFY | IN_DELETE_SELF) >= 0, "inotify_add_watch: %s",
         strerror(errno));
  CHECK(write(fd, "x", 1) == 1);
  const double until = now_s() + limit_s;
  struct stat st;
  for (;;) {
    CHECK(fstat(fd, &st) == 0);
    if (st.st_size >= (off_t)T.size * round) break;
    double left = until - now_s();
    if (left <= 0) {
      fprintf(stderr, "FAIL rank %u: only %lld of %u ranks left barrier %d within %d s (a rank "
                      "that had left the library held a barrier message)\n",
              (unsigned)T.rank, (long long)st.st_size - (long long)T.size * (round - 1),
              (unsigned)T.size, round, limit_s);
      gasnet_exit(1);
    }
    struct pollfd p = {in, POLLIN, 0};
    (void)poll(&p, 1, (int)(left * 1000) + 1);
    char ev[4096];
    while (read(in, ev, sizeof ev) > 0) {
    }
  }
  close(in);
  close(fd);
}

int main(int argc, char **argv) {
  gex_AM_Entry_t h[] = {{H_HELLO, (gex_AM_Fn_t)hello, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1,
                         NULL, "hello"}};
  /* No test_init: its barrier would make the connections of step 1. */
  test_init_client(&argc, &argv, "t_leave_after_wait", 0);
  CHECK(gex_EP_RegisterHandlers(T.ep, h, 1) == GASNET_OK);
  const char *job = getenv("GEX_JOBID");
  if (T.size < 2 || !job) {
    test_log0("SKIP: t_leave_after_wait: needs a job of 2 or more ranks started by gexrun");
    gasnet_exit(77);
  }
  const char *e = getenv("GEX_TEST_LEAVE_S");
  int limit = e ? atoi(e) : 60;
  seen = calloc(T.size, sizeof *seen);
  CHECK(seen);
  char path[256];
  const char *tmp = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/gex_leave.%s", tmp && *tmp ? tmp : "/tmp", job);

  gex_Event_Wait(gex_Coll_BarrierNB(T.tm, 0)); /* (the handlers are registered everywhere) */
  meet(path, 1, limit);
  for (gex_Rank_t k = 1; k < T.size; k++)
    gex_AM_RequestShort1(T.tm, (T.rank + k) % T.size, H_HELLO, 0, (gex_AM_Arg_t)T.rank);
  gex_Event_Wait(gex_Coll_BarrierNB(T.tm, 0));
  meet(path, 2, limit);

  GASNET_BLOCKUNTIL(all_seen());
  test_barrier();
  if (T.rank == 0) unlink(path); /* every rank has met there: none opens it again */
  for (gex_Rank_t r = 0; r < T.size; r++)
    if (r != T.rank)
      CHECKF(atomic_load(&seen[r]) == 1, "%u AMs from rank %u", atomic_load(&seen[r]), (unsigned)r);
  CHECKF(atomic_load(&bad) == 0, "%u AMs with a wrong argument", atomic_load(&bad));
  test_finish();
}

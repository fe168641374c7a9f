/* bootstrap/pmix.c -- start a job through the PMIx client API, so that a
 * PMIx launcher (Open MPI's mpirun, Slurm's srun --mpi=pmix, prterun) can
 * start libgex programs without gexrun.
 *
 * rank/size   PMIx_Init's process id and the job's PMIX_JOB_SIZE.
 * allgather   every rank puts its bytes under a key unique to the round
 *             ("gex.ag.<seq>"), commits, fences with data collection, then
 *             reads every rank's value from its local store.  A round of
 *             length 0 (barrier) is a fence without data.
 * abort       PMIx_Abort: the launcher ends every process of the job.  A
 *             failed network operation with a peer (which may have died)
 *             waits a few seconds first: the launcher's report of a death
 *             is the job's end then, not this rank's abort.
 * exit        gasnet_exit(code) must end the whole job with 'code':
 *             - code != 0: PMIx_Abort(code); the launcher kills the others
 *               and reports the code (mpirun exits with it).
 *             - code == 0: a fence bounded by the exit timeout
 *               (GASNET_EXITTIMEOUT and its formula, core/env_parse.h).  When
 *               every rank is exiting (the usual collective exit after a
 *               barrier) the fence completes, each rank PMIx_Finalize()s and
 *               exits 0, and the launcher sees a clean end.  When this rank
 *               exits alone the fence times out and the rank calls
 *               PMIx_Abort(0): the launcher ends the others (Open MPI's
 *               mpirun then exits 0).
 *             PMIx event notification would let the other ranks leave at
 *             their next poll instead, but Open MPI 4.1's runtime does not
 *             deliver a client's namespace-range event to its peers (and
 *             was seen to hang afterwards), so it is not relied upon.
 *
 * launcher  the launcher's daemon that started this process (mpirun itself
 *             for the ranks on its host, orted/prted or slurmstepd
 *             elsewhere) is its parent and holds the PMIx server.  A thread
 *             waits for the parent's end (a pidfd; where the kernel has
 *             none, a check of getppid() four times a second) and ends the
 *             rank with one line: a killed mpirun would otherwise leave
 *             ranks waiting for ever, since nothing else tells them.
 *
 * Fences are bounded by GEX_BOOTSTRAP_TIMEOUT seconds (default 60): a rank
 * that never arrives (it was not started as a libgex program, or it hangs
 * before gex_Client_Init) ends the job with one line instead of a hang.
 *
 * Without PMIx at build time (GEXI_HAVE_PMIX unset) this file provides a
 * stub that refuses to run under a PMIx launcher (see bootstrap.c).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "core/context.h"
#include "sec/random.h"

#if GEXI_HAVE_PMIX
#include <pmix.h>

#define GEXI_PMIX_DEFAULT_TIMEOUT 60

struct pmix_boot {
  gexi_bootstrap_t pub;
  pmix_proc_t me;
  pmix_proc_t all; /* the whole namespace (PMIX_RANK_WILDCARD) */
  int timeout;     /* seconds per fence; 0: none */
  int exit_timeout; /* seconds a rank calling gasnet_exit(0) waits in the exit fence for the
                     * others (the exit timeout, rounded up; at least 1) */
  unsigned long seq;
  pid_t parent;    /* the launcher's daemon (watch_parent) */
};

/* Print "libgex: rank R: <msg>" as one line.  gexi_fatal cannot be used
 * before gex_Client_Init has finished (it would not print the rank), and
 * the PMIx calls here run during it. */
static void pmix_say(const struct pmix_boot *p, const char *msg, pmix_status_t rc) {
  char buf[512];
  int n = snprintf(buf, sizeof buf, "libgex: rank %u: %s (%s)\n", (unsigned)p->pub.rank, msg,
                   PMIx_Error_string(rc));
  if (n > (int)sizeof buf - 1) n = (int)sizeof buf - 1;
  fflush(stdout);
  ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
  (void)w;
}

static GEXI_NORETURN void pmix_die(struct pmix_boot *p, const char *msg, pmix_status_t rc) {
  pmix_say(p, msg, rc);
  fflush(stderr);
  PMIx_Abort(1, msg, NULL, 0);
  gexi_end_process(1);
}

static pmix_status_t fence(struct pmix_boot *p, int collect, int timeout) {
  pmix_info_t info[2];
  size_t ninfo = 0;
  bool yes = true;
  if (collect) PMIX_INFO_LOAD(&info[ninfo++], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  if (timeout > 0) PMIX_INFO_LOAD(&info[ninfo++], PMIX_TIMEOUT, &timeout, PMIX_INT);
  pmix_status_t rc = PMIx_Fence(&p->all, 1, ninfo ? info : NULL, ninfo);
  for (size_t i = 0; i < ninfo; i++) PMIX_INFO_DESTRUCT(&info[i]);
  return rc;
}

static void bootstrap_fence(struct pmix_boot *p, int collect) {
  pmix_status_t rc = fence(p, collect, p->timeout);
  if (rc == PMIX_SUCCESS) return;
  char msg[256];
  if (rc == PMIX_ERR_TIMEOUT)
    snprintf(msg, sizeof msg,
             "bootstrap (PMIx fence) timed out after %d s (GEX_BOOTSTRAP_TIMEOUT): a rank of the "
             "job did not reach it",
             p->timeout);
  else
    snprintf(msg, sizeof msg, "bootstrap (PMIx fence) failed");
  pmix_die(p, msg, rc);
}

static void pmix_allgather(gexi_bootstrap_t *b, const void *mine, void *out, size_t len) {
  struct pmix_boot *p = (struct pmix_boot *)b;
  if (len == 0) {
    bootstrap_fence(p, 0);
    return;
  }
  char key[PMIX_MAX_KEYLEN + 1];
  snprintf(key, sizeof key, "gex.ag.%lu", p->seq++);
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_BYTE_OBJECT;
  v.data.bo.bytes = (char *)mine; /* PMIx_Put copies it */
  v.data.bo.size = len;
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
  if (rc != PMIX_SUCCESS) pmix_die(p, "bootstrap: PMIx_Put failed", rc);
  rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) pmix_die(p, "bootstrap: PMIx_Commit failed", rc);
  bootstrap_fence(p, 1);

  /* The fence collected every value: read them from the local store only. */
  pmix_info_t opt;
  bool yes = true;
  PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
  pmix_proc_t peer;
  for (uint32_t r = 0; r < b->size; r++) {
    PMIX_LOAD_PROCID(&peer, p->me.nspace, r);
    pmix_value_t *got = NULL;
    rc = PMIx_Get(&peer, key, &opt, 1, &got);
    if (rc != PMIX_SUCCESS) /* not in the local store after all: ask the server */
      rc = PMIx_Get(&peer, key, NULL, 0, &got);
    if (rc != PMIX_SUCCESS || !got) pmix_die(p, "bootstrap: PMIx_Get of a rank's data failed", rc);
    if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size != len) {
      char msg[160];
      snprintf(msg, sizeof msg, "bootstrap: rank %u contributed %zu bytes, expected %zu",
               (unsigned)r, got->type == PMIX_BYTE_OBJECT ? got->data.bo.size : (size_t)0, len);
      pmix_die(p, msg, PMIX_ERR_BAD_PARAM);
    }
    memcpy((char *)out + (size_t)r * len, got->data.bo.bytes, len);
    PMIX_VALUE_RELEASE(got);
  }
  PMIX_INFO_DESTRUCT(&opt);
}

/* An operation with a peer failed (the peer may have died).  The launcher
 * learns of a death on its own (mpirun within about a second) and then
 * ends the job as that death, with its status (137 for SIGKILL): this rank
 * waits that long before it reports the failure and aborts the job itself,
 * so that its abort (status 1) does not hide the death.  Nothing tells a
 * PMIx rank of the verdict: the wait is a timed wait that the launcher's
 * SIGKILL cuts short. */
#define GEXI_PMIX_PEER_VERDICT_MS 5000
static void pmix_notify_peer_failed(gexi_bootstrap_t *b, int code, uint32_t peer) {
  (void)b;
  (void)code;
  (void)peer;
  fflush(stdout);
  fflush(stderr);
  pthread_condattr_t ca;
  pthread_cond_t never;
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&never, &ca);
  pthread_condattr_destroy(&ca);
  const uint64_t t = gexi_now_ns() + GEXI_PMIX_PEER_VERDICT_MS * 1000000ull;
  const struct timespec deadline = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};
  pthread_mutex_lock(&m);
  while (pthread_cond_timedwait(&never, &m, &deadline) != ETIMEDOUT) {
  }
  pthread_mutex_unlock(&m);
  pthread_cond_destroy(&never);
}

static void pmix_notify_abort(gexi_bootstrap_t *b, int code) {
  (void)b;
  fflush(stdout);
  fflush(stderr);
  PMIx_Abort(code ? code : 1, "libgex: fatal error", NULL, 0);
}

/* MPI interoperability: a client that also uses MPI (under the same
 * mpirun) may leave MPI initialized when it calls gasnet_exit(0).  The MPI
 * library's own PMIx session must then end too, or mpirun reports that the
 * ranks exited "improperly".  The MPI symbols are weak: they are non-NULL
 * only in a program linked with MPI. */
#pragma weak MPI_Initialized
#pragma weak MPI_Finalized
#pragma weak MPI_Finalize
extern int MPI_Initialized(int *flag);
extern int MPI_Finalized(int *flag);
extern int MPI_Finalize(void);
static void finalize_client_mpi(void) {
  int init = 0, fini = 0;
  if (!MPI_Initialized || !MPI_Finalized || !MPI_Finalize) return;
  if (MPI_Initialized(&init) != 0 || !init) return;
  if (MPI_Finalized(&fini) != 0 || fini) return;
  MPI_Finalize(); /* collective: every rank passed the exit fence */
}

static void pmix_notify_exit(gexi_bootstrap_t *b, int code) {
  struct pmix_boot *p = (struct pmix_boot *)b;
  /* Whatever happens next, this rank's output must be out first: the
   * launcher may end this process as soon as it hears of the abort. */
  fflush(stdout);
  fflush(stderr);
  if (code == 0 && fence(p, 0, p->exit_timeout) == PMIX_SUCCESS) {
    finalize_client_mpi();
    PMIx_Finalize(NULL, 0); /* every rank is exiting: a clean end */
    return;
  }
  PMIx_Abort(code, "gasnet_exit", NULL, 0);
}

/* exit() with GASNET_CATCH_EXIT=0: finalize, so that the launcher counts a
 * collective exit() as a clean end (a lone one still ends the job). */
static void pmix_notify_leave(gexi_bootstrap_t *b, int code) {
  (void)b;
  (void)code;
  fflush(stdout);
  fflush(stderr);
  PMIx_Finalize(NULL, 0);
}

/* The job's secret: rank 0 draws it and stores it in the PMIx key-value
 * store of the job's namespace (PMIX_GLOBAL: the only scope that reaches
 * ranks on other hosts); the others read it after a fence.  PMIx gives no
 * more private channel: the store is readable by the processes of the
 * namespace and by the PMIx servers, and between hosts the value travels on
 * the launcher's own daemon network, which Open MPI and Slurm do not
 * encrypt (docs/security.md; secret_exposure below). */
static void pmix_secret(gexi_bootstrap_t *b, unsigned char out[GEXI_SECRET_LEN]) {
  struct pmix_boot *p = (struct pmix_boot *)b;
  pmix_status_t rc;
  if (b->rank == 0) {
    gexi_random_bytes(out, GEXI_SECRET_LEN);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)out;
    v.data.bo.size = GEXI_SECRET_LEN;
    rc = PMIx_Put(PMIX_GLOBAL, "gex.secret", &v);
    if (rc != PMIX_SUCCESS) pmix_die(p, "bootstrap: PMIx_Put of the job secret failed", rc);
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) pmix_die(p, "bootstrap: PMIx_Commit failed", rc);
  }
  bootstrap_fence(p, 1);
  if (b->rank == 0) return;
  pmix_proc_t root;
  PMIX_LOAD_PROCID(&root, p->me.nspace, 0);
  pmix_value_t *got = NULL;
  rc = PMIx_Get(&root, "gex.secret", NULL, 0, &got);
  if (rc != PMIX_SUCCESS || !got || got->type != PMIX_BYTE_OBJECT ||
      got->data.bo.size != GEXI_SECRET_LEN)
    pmix_die(p, "bootstrap: cannot get the job secret from rank 0", rc);
  memcpy(out, got->data.bo.bytes, GEXI_SECRET_LEN);
  memset(got->data.bo.bytes, 0, GEXI_SECRET_LEN);
  PMIX_VALUE_RELEASE(got);
}

/* GEX_BOOTSTRAP_TIMEOUT: seconds, 0..1000000 (0: none); a bad value is
 * fatal, as for every variable (core/env.h). */
static int bootstrap_timeout(void) {
  return (int)gexi_env_count("GEX_BOOTSTRAP_TIMEOUT", GEXI_PMIX_DEFAULT_TIMEOUT, 0, 1000000);
}

/* The launcher's end: see "launcher" at the top.  'parent' is read once,
 * before the thread starts. */
static void *parent_watch(void *arg) {
  struct pmix_boot *p = arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals belong to the client's threads */
  int fd = -1;
#ifdef SYS_pidfd_open
  fd = (int)syscall(SYS_pidfd_open, p->parent, 0);
#endif
  while (getppid() == p->parent) {
    struct pollfd pfd = {fd, POLLIN, 0};
    /* fd < 0: poll() only sleeps (a negative fd is ignored) */
    if (poll(&pfd, 1, fd >= 0 ? -1 : 250) < 0 && errno != EINTR) break;
    if (fd >= 0 && (pfd.revents & (POLLIN | POLLHUP))) break;
  }
  char buf[256];
  int n = snprintf(buf, sizeof buf,
                   "libgex: rank %u: the launcher (process %ld, the PMIx server) is gone; "
                   "ending\n",
                   (unsigned)p->pub.rank, (long)p->parent);
  fflush(stdout);
  ssize_t w = write(STDERR_FILENO, buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1));
  (void)w;
  gexi_end_process(1);
  return NULL;
}

static void watch_parent(struct pmix_boot *p) {
  p->parent = getppid();
  if (p->parent == 1) pmix_die(p, "bootstrap: the launcher that started this process is gone",
                               PMIX_ERR_UNREACH);
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  int rc = pthread_create(&t, &attr, parent_watch, p);
  pthread_attr_destroy(&attr);
  if (rc) pmix_die(p, "bootstrap: cannot start the thread that watches the launcher",
                   PMIX_ERR_OUT_OF_RESOURCE);
}

gexi_bootstrap_t *gexi_bootstrap_pmix_start(void) {
  struct pmix_boot *p = calloc(1, sizeof *p);
  if (!p) abort();
  pmix_status_t rc = PMIx_Init(&p->me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "libgex: PMIx_Init failed (%s): was this process started by a PMIx "
                    "launcher (mpirun, srun --mpi=pmix)?\n",
            PMIx_Error_string(rc));
    exit(1);
  }
  p->pub.name = "pmix";
  p->pub.rank = p->me.rank;
  p->pub.allgather = pmix_allgather;
  p->pub.notify_exit = pmix_notify_exit;
  p->pub.notify_abort = pmix_notify_abort;
  p->pub.notify_leave = pmix_notify_leave;
  p->pub.notify_peer_failed = pmix_notify_peer_failed;
  p->pub.secret = pmix_secret;
  p->pub.secret_exposure =
      "under a PMIx launcher the job secret travels between hosts on the launcher's daemon "
      "network, which is not encrypted";
  p->pub.impl = p;
  p->timeout = bootstrap_timeout();
  PMIX_LOAD_PROCID(&p->all, p->me.nspace, PMIX_RANK_WILDCARD);
  watch_parent(p);

  pmix_value_t *v = NULL;
  rc = PMIx_Get(&p->all, PMIX_JOB_SIZE, NULL, 0, &v);
  if (rc != PMIX_SUCCESS || !v) pmix_die(p, "bootstrap: cannot get the job size (PMIX_JOB_SIZE)", rc);
  uint32_t size = 0;
  switch (v->type) {
    case PMIX_UINT32: size = v->data.uint32; break;
    case PMIX_UINT64: size = (uint32_t)v->data.uint64; break;
    case PMIX_INT: size = (uint32_t)v->data.integer; break;
    case PMIX_UINT: size = (uint32_t)v->data.uint; break;
    default: break;
  }
  PMIX_VALUE_RELEASE(v);
  if (size == 0 || p->me.rank >= size)
    pmix_die(p, "bootstrap: PMIx reports no usable job size", PMIX_ERR_BAD_PARAM);
  p->pub.size = size;
  const uint64_t ms = gexi_env_exit_timeout_ms(size);
  p->exit_timeout = ms < 1000 ? 1 : ms > 1000000000ull ? 1000000 : (int)((ms + 999) / 1000);
  return &p->pub;
}

#else /* !GEXI_HAVE_PMIX */

gexi_bootstrap_t *gexi_bootstrap_pmix_start(void) {
  fprintf(stderr,
          "libgex: this process was started by a PMIx launcher (mpirun, srun --mpi=pmix), but "
          "this libgex was built without PMIx support; rebuild it with libpmix-dev installed, "
          "start the job with gexrun, or set GEX_BOOTSTRAP=singleton\n");
  exit(1);
}

#endif

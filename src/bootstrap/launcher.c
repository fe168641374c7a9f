/* bootstrap/launcher.c -- the rank side of gexrun's socket (see wire.h).
 *
 * A watchdog thread is the only reader of the socket.  It hands all-gather
 * results to the waiting caller and ends this process when the launcher
 * reports that the job is over: at once for a failed or dead rank or the
 * launcher itself gone; for gasnet_exit on another rank, after the exit
 * timeout (GASNET_EXITTIMEOUT), unless the process reaches gasnet_exit
 * first or its polls find it waiting for nothing (core/progress.c).  It
 * blocks in read(), so it costs no CPU while the job runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/wire.h"
#include "core/context.h"

struct launcher {
  gexi_bootstrap_t pub;
  int fd;
  pthread_mutex_t write_lock; /* one frame at a time on the socket */
  pthread_mutex_t lock;       /* guards the fields below */
  pthread_cond_t cond;
  void *result;               /* last all-gather result (malloc'ed) */
  size_t result_len;
  int have_result;
  unsigned char secret[GEXI_SECRET_LEN]; /* the job's secret (SECRET frame) */
  int have_secret;
  /* gexrun's answer to this rank's ABORT_PEER: no death was seen, so this
   * rank's report ends the job (an ABORT frame naming this rank). */
  int own_abort;
  uint64_t exit_timeout_ms; /* GASNET_EXITTIMEOUT and its formula */
};

static int read_full(int fd, void *buf, size_t len) {
  char *p = buf;
  while (len) {
    ssize_t r = read(fd, p, len);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r;
    len -= (size_t)r;
  }
  return 0;
}

static void write_frame_to(struct launcher *l, uint32_t type, int32_t arg0, int32_t arg1,
                           const void *payload, size_t len) {
  struct gexi_wire_hdr h = {type, (uint32_t)len, arg0, arg1};
  pthread_mutex_lock(&l->write_lock);
  const char *parts[2] = {(const char *)&h, payload};
  size_t lens[2] = {sizeof h, len};
  for (int i = 0; i < 2; i++) {
    const char *p = parts[i];
    size_t n = lens[i];
    while (n) {
      ssize_t w = send(l->fd, p, n, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        pthread_mutex_unlock(&l->write_lock);
        fprintf(stderr, "libgex: rank %u: lost contact with gexrun; ending\n", l->pub.rank);
        gexi_end_process(1);
      }
      p += w;
      n -= (size_t)w;
    }
  }
  pthread_mutex_unlock(&l->write_lock);
}

static void write_frame(struct launcher *l, uint32_t type, int32_t arg0, const void *payload,
                        size_t len) {
  write_frame_to(l, type, arg0, (int32_t)l->pub.rank, payload, len);
}

/* Wait on l->cond, l->lock held, until done(l) holds or the monotonic
 * clock reaches 'deadline_ns' (NULL 'done': until the deadline). */
static void wait_until(struct launcher *l, int (*done)(const struct launcher *),
                       uint64_t deadline_ns) {
  const struct timespec ts = {(time_t)(deadline_ns / 1000000000ull),
                              (long)(deadline_ns % 1000000000ull)};
  while (!(done && done(l)) && pthread_cond_timedwait(&l->cond, &l->lock, &ts) != ETIMEDOUT) {
  }
}

static int exit_was_requested(void) {
  return atomic_load_explicit(&gexi_ctx.exit_requested, memory_order_acquire);
}
static int verdict_came(const struct launcher *l) { return l->own_abort || exit_was_requested(); }

/* Rank 'from' called gasnet_exit(code).  This process has the exit timeout
 * to reach gasnet_exit by itself, after whatever output it writes on the
 * way; a wait in libgex that finds nothing more to do ends it earlier
 * (core/progress.c), and so does a wait in this bootstrap (an all-gather
 * can no longer complete).  A process that does neither is ended here when
 * the timeout expires, with a line that names it. */
static GEXI_NORETURN void exit_requested(struct launcher *l, int code, int from) {
  const uint64_t t0 = gexi_now_ns();
  atomic_store_explicit(&gexi_ctx.exit_code, code, memory_order_relaxed);
  atomic_store_explicit(&gexi_ctx.exit_quiet_since, t0, memory_order_relaxed);
  atomic_store_explicit(&gexi_ctx.exit_requested, 1, memory_order_release);
  pthread_mutex_lock(&l->lock);
  pthread_cond_broadcast(&l->cond); /* all-gathers and verdicts waited for end */
  /* Nothing else comes from gexrun once the job ends: the socket can wait. */
  wait_until(l, NULL, t0 + l->exit_timeout_ms * 1000000ull);
  pthread_mutex_unlock(&l->lock);
  char msg[256];
  int n = snprintf(msg, sizeof msg,
                   "libgex: rank %u: ending: rank %d called gasnet_exit(%d) %llu.%03llu s ago "
                   "and this rank has not reached gasnet_exit (GASNET_EXITTIMEOUT)\n",
                   l->pub.rank, from, code, (unsigned long long)(l->exit_timeout_ms / 1000),
                   (unsigned long long)(l->exit_timeout_ms % 1000));
  fflush(stdout);
  ssize_t w = write(STDERR_FILENO, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1));
  (void)w;
  write_frame(l, GEXI_WIRE_EXIT, code, NULL, 0);
  gexi_end_process(code);
}

static void *watchdog(void *arg) {
  struct launcher *l = arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals belong to the client's threads */
  for (;;) {
    struct gexi_wire_hdr h;
    if (read_full(l->fd, &h, sizeof h) != 0) {
      fprintf(stderr, "libgex: rank %u: lost contact with gexrun; ending\n", l->pub.rank);
      gexi_end_process(1);
    }
    if (h.len > GEXI_WIRE_MAX_PAYLOAD) {
      fprintf(stderr, "libgex: rank %u: bad frame from gexrun; ending\n", l->pub.rank);
      gexi_end_process(1);
    }
    char *payload = malloc(h.len + 1);
    if (!payload || read_full(l->fd, payload, h.len) != 0) {
      fprintf(stderr, "libgex: rank %u: lost contact with gexrun; ending\n", l->pub.rank);
      gexi_end_process(1);
    }
    payload[h.len] = 0;
    switch (h.type) {
      case GEXI_WIRE_ALLGATHER:
        pthread_mutex_lock(&l->lock);
        l->result = payload;
        l->result_len = h.len;
        l->have_result = 1;
        pthread_cond_broadcast(&l->cond);
        pthread_mutex_unlock(&l->lock);
        continue;
      case GEXI_WIRE_SECRET:
        if (h.len != GEXI_SECRET_LEN) {
          fprintf(stderr, "libgex: rank %u: bad secret frame from gexrun; ending\n", l->pub.rank);
          gexi_end_process(1);
        }
        pthread_mutex_lock(&l->lock);
        memcpy(l->secret, payload, GEXI_SECRET_LEN);
        l->have_secret = 1;
        pthread_cond_broadcast(&l->cond);
        pthread_mutex_unlock(&l->lock);
        memset(payload, 0, h.len);
        free(payload);
        continue;
      case GEXI_WIRE_EXIT:
        exit_requested(l, h.arg0, h.arg1);
      case GEXI_WIRE_ABORT:
        if (h.arg1 == (int32_t)l->pub.rank) { /* the verdict on this rank's ABORT_PEER */
          free(payload);
          pthread_mutex_lock(&l->lock);
          l->own_abort = 1;
          pthread_cond_broadcast(&l->cond);
          pthread_mutex_unlock(&l->lock);
          continue;
        }
        fprintf(stderr, "libgex: rank %u: ending: rank %d failed\n", l->pub.rank, h.arg1);
        gexi_end_process(h.arg0 ? h.arg0 : 1);
      case GEXI_WIRE_DIED:
        fprintf(stderr, "libgex: rank %u: ending: rank %d %s\n", l->pub.rank, h.arg1, payload);
        gexi_end_process(1);
      default:
        fprintf(stderr, "libgex: rank %u: unknown frame %u from gexrun; ending\n", l->pub.rank,
                h.type);
        gexi_end_process(1);
    }
  }
  return NULL;
}

static void launcher_allgather(gexi_bootstrap_t *b, const void *mine, void *out, size_t len) {
  struct launcher *l = (struct launcher *)b;
  write_frame(l, GEXI_WIRE_ALLGATHER, 0, mine, len);
  pthread_mutex_lock(&l->lock);
  while (!l->have_result && !exit_was_requested()) pthread_cond_wait(&l->cond, &l->lock);
  if (!l->have_result) { /* gexrun completes no round once the job's exit has begun */
    pthread_mutex_unlock(&l->lock);
    gasnet_exit(atomic_load_explicit(&gexi_ctx.exit_code, memory_order_relaxed));
  }
  void *res = l->result;
  size_t res_len = l->result_len;
  l->have_result = 0;
  l->result = NULL;
  pthread_mutex_unlock(&l->lock);
  if (res_len != len * b->size)
    gexi_fatal("bootstrap: all-gather returned %zu bytes, expected %zu", res_len, len * b->size);
  if (len) memcpy(out, res, res_len);
  free(res);
}

static void launcher_notify_exit(gexi_bootstrap_t *b, int code) {
  write_frame((struct launcher *)b, GEXI_WIRE_EXIT, code, NULL, 0);
}
static void launcher_notify_abort(gexi_bootstrap_t *b, int code) {
  write_frame((struct launcher *)b, GEXI_WIRE_ABORT, code, NULL, 0);
}
static void launcher_notify_leave(gexi_bootstrap_t *b, int code) {
  write_frame((struct launcher *)b, GEXI_WIRE_LEAVE, code, NULL, 0);
}
/* An operation with 'peer' failed (GEX_RANK_INVALID: a peer this rank
 * cannot name).  gexrun waits a moment for a rank's death before it blames
 * this one; this rank waits a little longer for that verdict, which ends
 * it through the watchdog when a rank died (the watchdog prints which one),
 * comes back as an ABORT naming this rank when none did, or is the job's
 * exit. */
#define GEXI_PEER_VERDICT_MS 3000
static void launcher_notify_peer_failed(gexi_bootstrap_t *b, int code, uint32_t peer) {
  struct launcher *l = (struct launcher *)b;
  write_frame_to(l, GEXI_WIRE_ABORT_PEER, code, (int32_t)peer, NULL, 0);
  pthread_mutex_lock(&l->lock);
  wait_until(l, verdict_came, gexi_now_ns() + GEXI_PEER_VERDICT_MS * 1000000ull);
  pthread_mutex_unlock(&l->lock);
}

/* gexrun sends the secret in answer to HELLO, before anything else. */
static void launcher_secret(gexi_bootstrap_t *b, unsigned char out[GEXI_SECRET_LEN]) {
  struct launcher *l = (struct launcher *)b;
  pthread_mutex_lock(&l->lock);
  while (!l->have_secret && !exit_was_requested()) pthread_cond_wait(&l->cond, &l->lock);
  if (!l->have_secret) {
    pthread_mutex_unlock(&l->lock);
    gasnet_exit(atomic_load_explicit(&gexi_ctx.exit_code, memory_order_relaxed));
  }
  memcpy(out, l->secret, GEXI_SECRET_LEN);
  pthread_mutex_unlock(&l->lock);
}

/* A lone EXIT or ABORT frame, before gex_Client_Init (no HELLO). */
void gexi_bootstrap_launcher_end_early(int fd, uint32_t type, int code) {
  struct gexi_wire_hdr h = {type, 0, code, -1};
  const char *p = (const char *)&h;
  size_t n = sizeof h;
  while (n) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return; /* gexrun is gone: nobody to tell */
    p += w;
    n -= (size_t)w;
  }
}

gexi_bootstrap_t *gexi_bootstrap_launcher_start(int fd) {
  if (!gexi_env_string("GEX_RANK") || !gexi_env_string("GEX_SIZE")) {
    fprintf(stderr, "libgex: GEX_BOOT_FD is set but GEX_RANK/GEX_SIZE are not\n");
    exit(1);
  }
  const uint32_t size = (uint32_t)gexi_env_count("GEX_SIZE", 1, 1, INT32_MAX);
  const uint32_t rank = (uint32_t)gexi_env_count("GEX_RANK", 0, 0, size - 1);
  struct launcher *l = calloc(1, sizeof *l);
  if (!l) abort();
  l->pub.name = "gexrun";
  l->pub.rank = rank;
  l->pub.size = size;
  l->pub.allgather = launcher_allgather;
  l->pub.notify_exit = launcher_notify_exit;
  l->pub.notify_abort = launcher_notify_abort;
  l->pub.notify_leave = launcher_notify_leave;
  l->pub.notify_peer_failed = launcher_notify_peer_failed;
  l->pub.secret = launcher_secret;
  l->fd = fd;
  fcntl(fd, F_SETFD, FD_CLOEXEC); /* not inherited by programs the rank starts */
  pthread_mutex_init(&l->write_lock, NULL);
  l->exit_timeout_ms = gexi_env_exit_timeout_ms(size);
  pthread_mutex_init(&l->lock, NULL);
  pthread_condattr_t ca; /* timed waits on the monotonic clock */
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&l->cond, &ca);
  pthread_condattr_destroy(&ca);
  write_frame(l, GEXI_WIRE_HELLO, (int32_t)l->pub.rank, NULL, 0);
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  /* Default stack size: glibc carves the client's static TLS out of every
   * thread's stack, so a small explicit size fails for TLS-heavy programs
   * (the stack is only reserved address space until touched). */
  int rc = pthread_create(&t, &attr, watchdog, l);
  if (rc != 0) {
    fprintf(stderr, "libgex: cannot start the watchdog thread: %s\n", strerror(rc));
    exit(1);
  }
  pthread_attr_destroy(&attr);
  return &l->pub;
}

/* gexrun -- start an N-rank libgex job on this host or on several hosts and
 * supervise it.
 *
 * Every local rank is a child process connected to gexrun by one AF_UNIX
 * stream socket; the frames exchanged on it are described in
 * bootstrap/wire.h.  Ranks on other hosts are children of a proxy ("gexrun
 * --proxy", proxy.c) that gexrun starts there through the remote shell
 * (GEX_RSH, default ssh); the proxy's stdin/stdout are the link, and it
 * relays the bytes of its ranks' sockets and output, so every rank frame is
 * parsed here, whichever host the rank is on.  gexrun serves the ranks'
 * all-gathers, forwards gasnet_exit and aborts to the other ranks, notices
 * ranks and hosts that die and ends the job, and forwards SIGINT/SIGTERM/
 * SIGHUP.  Everything happens in one poll() loop: rank sockets, output pipes,
 * proxy links and a signalfd for SIGCHLD and the terminating signals.  All
 * I/O is non-blocking except writing rank output to our own stdout/stderr.
 * Timers are poll timeouts on the monotonic clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "common.h"
#include "core/env_parse.h"
#include "proxy.h"

#ifndef GEXRUN_VERSION
#define GEXRUN_VERSION "unknown"
#endif

#define EXIT_GRACE_MS 5000 /* after an abort: time for ranks to end */
/* After the first gasnet_exit the ranks have the exit timeout (GASNET_EXITTIMEOUT,
 * job.exit_timeout_ms) to reach theirs; one that does not is ended by its own
 * watchdog then, with a line naming it, and killed here this much later. */
#define EXIT_KILL_MARGIN_MS 2000
#define KILL_GRACE_MS 2000 /* after a death, an error or a signal */
#define RSH_GRACE_MS 2000  /* after SIGKILL to the ranks: time for the proxies to report */
#define EOF_GRACE_MS 1000  /* a link closed: time for its remote shell's exit status */
#define LINE_MAX_BYTES 65536 /* longer output lines are split */
#define PEER_FAIL_GRACE_MS 2000 /* ABORT_PEER: time for the named peer's death to show */

/* A rank's all-gather contribution, queued until its round is complete. */
struct contrib {
  struct contrib *next;
  uint32_t len;
  char data[];
};

/* Output of one rank on one stream, assembled into whole lines. */
struct linebuf {
  char *buf;
  size_t len, cap;
};

struct rank {
  int host;       /* index into job.hosts */
  pid_t pid;      /* on its host; 0 until known */
  struct gx_link link; /* local ranks: the socket (rfd == wfd), -1 once closed */
  int out_fd[2];  /* local ranks with --label: our ends of its stdout/stderr pipes */
  int alive;      /* not known to have ended */
  int broken;     /* its frame stream is out of step: ignore it */
  int hello;      /* sent HELLO: a libgex process */
  int said_exit;  /* sent EXIT or ABORT */
  int left;       /* sent LEAVE: its end is not a death */
  int quiet_exit; /* exited 0 without HELLO while no rank had sent HELLO */
  int status;     /* wait status, once it ended */
  int64_t stopped_since; /* --stall: when it was first seen stopped (0: running) */
  int stall_reported;
  struct gexi_wire_hdr hdr; /* frame being parsed */
  size_t hdr_got, in_got;
  struct contrib *in;       /* its payload (ALLGATHER frames only) */
  struct contrib *ag_head, *ag_tail;
  struct linebuf lb[2];
};

struct host {
  char *name;
  int slots, first, count;
  int local;      /* started directly by gexrun, without the remote shell */
  pid_t pid;      /* the remote shell process */
  int alive;      /* that process is not reaped yet */
  int status;     /* its wait status, once reaped */
  struct gx_link link; /* rfd: its stdout, wfd: its stdin */
  int hello;      /* the proxy answered */
  int lost;       /* handled as lost (or its link is closed) */
  int64_t eof_deadline; /* link closed early: when to give up waiting for the status */
};

/* The whole state of the job: one structure, one instance. */
static struct job {
  struct rank *ranks;
  struct host *hosts;
  int nranks, nhosts, nalive, verbose, label;
  int any_hello;           /* some rank sent HELLO */
  int nhello;              /* ranks that sent HELLO */
  int ending;              /* the job is over: exits are no longer deaths */
  int have_code, job_code; /* set by the EXIT/ABORT that ended the job */
  int failed;              /* a death, a lost host or a protocol error ended the job */
  int got_signal;          /* the first SIGINT/SIGTERM/SIGHUP received */
  int max_status;          /* highest exit status of the ranks */
  int death_code;          /* the job's status when a rank's death ended it (0: none) */
  int64_t deadline;        /* when to SIGKILL the survivors (ms), 0 = never */
  int64_t exit_timeout_ms; /* GASNET_EXITTIMEOUT (and its formula), as the ranks read it */
  int kill_stage;          /* 0, 1 = ranks killed, 2 = remote shells killed */
  int64_t boot_deadline;   /* bootstrap timeout (ms), 0 = none */
  int boot_timeout;        /* seconds */
  int ag_ready;            /* ranks with a queued all-gather contribution */
  unsigned long long ag_round;
  /* ABORT_PEER from rank peer_fail_from (code peer_fail_code) named rank
   * peer_fail_rank (-1: unknown): until peer_fail_deadline, a death (of that
   * rank, or of any for -1) ends the
   * job as the cause; afterwards the abort does.  0 deadline: none pending. */
  int64_t peer_fail_deadline;
  int peer_fail_from, peer_fail_rank, peer_fail_code;
  /* --stall SECS (GEXRUN_STALL): a rank of this host stopped that long is
   * reported (and, with --stall-end, killed: its death ends the job).
   * 0: off.  stall_next: when the ranks are looked at next (ms). */
  int stall_secs, stall_end;
  int64_t stall_next;
  unsigned char secret[GEXI_SECRET_LEN]; /* the job's secret (SECRET frames) */
  /* The current round's length, set by the first contribution header that
   * arrives; every other contribution must match it (checked at its header,
   * before its payload is buffered). */
  int ag_len_known, ag_first;
  uint32_t ag_len;
  /* Starting the ranks, a batch per turn of the event loop: the next host
   * whose remote shell to start, then the next rank to start here. */
  int next_host, next_rank;
  const char *cwd, *self;  /* for the remote shells */
  struct rlimit old_nofile; /* the descriptor limit to give back to the ranks */
  int have_old_nofile;
  const char *jobid;
  char **prog;
  char **xvars; int nxvars; /* -x NAME[=VALUE] */
  struct sigaction old_pipe, old_chld; /* dispositions to restore in the children */
} job;

static int is_remote(int r) { return !job.hosts[job.ranks[r].host].local; }

static void set_deadline(int64_t ms) {
  int64_t t = gx_now_ms() + ms;
  if (!job.deadline || t < job.deadline) job.deadline = t;
}

/* "2,3" or "4-7": the ranks of a list, compressed into ranges. */
static void rank_list(const int *rs, int n, char *buf, size_t len) {
  size_t o = 0;
  buf[0] = 0;
  for (int i = 0; i < n; i++) {
    if (o + 28 >= len) { /* no room for another entry */
      snprintf(buf + o, len - o, ",...");
      return;
    }
    int j = i;
    while (j + 1 < n && rs[j + 1] == rs[j] + 1) j++;
    if (j >= i + 2) o += (size_t)snprintf(buf + o, len - o, "%s%d-%d", i ? "," : "", rs[i], rs[j]);
    else {
      o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? "," : "", rs[i]);
      if (j == i + 1) o += (size_t)snprintf(buf + o, len - o, ",%d", rs[j]);
    }
    i = j;
  }
}

/* ---- output of the ranks (--label, and all remote ranks) ---- */

static void emit(int r, int stream, const char *p, size_t n, int add_nl) {
  char pre[32] = "";
  size_t pl = job.label ? (size_t)snprintf(pre, sizeof pre, "[%d] ", r) : 0;
  size_t lines = 1;
  for (size_t i = 0; i < n; i++) lines += p[i] == '\n';
  char *out = gx_xmalloc(n + lines * pl + 1);
  size_t o = 0, start = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && p[i] != '\n') continue;
    if (i == n && start == n) break;
    memcpy(out + o, pre, pl);
    o += pl;
    size_t l = i - start + (i < n);
    memcpy(out + o, p + start, l);
    o += l;
    start = i + 1;
  }
  if (add_nl && (o == 0 || out[o - 1] != '\n')) out[o++] = '\n';
  gx_write_all(stream + 1, out, o);
  free(out);
}

/* Bytes from rank r's stdout (stream 0) or stderr (1): write out whole lines. */
static void out_bytes(int r, int stream, const char *p, size_t n) {
  struct linebuf *b = &job.ranks[r].lb[stream];
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) cap *= 2;
    char *nb = realloc(b->buf, cap);
    if (!nb) gx_xmalloc(SIZE_MAX); /* ends the process */
    b->buf = nb;
    b->cap = cap;
  }
  memcpy(b->buf + b->len, p, n);
  b->len += n;
  size_t end = b->len;
  while (end > 0 && b->buf[end - 1] != '\n') end--;
  if (end == 0 && b->len >= LINE_MAX_BYTES) end = b->len; /* split a huge line */
  if (!end) return;
  emit(r, stream, b->buf, end, job.label);
  memmove(b->buf, b->buf + end, b->len - end);
  b->len -= end;
}

static void out_flush(int r) {
  for (int s = 0; s < 2; s++) {
    struct linebuf *b = &job.ranks[r].lb[s];
    if (b->len) emit(r, s, b->buf, b->len, job.label);
    b->len = 0;
  }
}

/* Read a local rank's output pipe; at EOF close it. */
static void read_out(int r, int s) {
  struct rank *k = &job.ranks[r];
  char buf[65536];
  while (k->out_fd[s] >= 0) {
    ssize_t n = read(k->out_fd[s], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      close(k->out_fd[s]);
      k->out_fd[s] = -1;
      return;
    }
    out_bytes(r, s, buf, (size_t)n);
  }
}

/* ---- sending to ranks ---- */

static int host_usable(const struct host *h) {
  return !h->local && !h->lost && h->link.wfd >= 0 && !h->link.wr_dead;
}

static void host_send(struct host *h, struct gx_msg *m) {
  if (host_usable(h)) gx_link_send(&h->link, m);
}

/* Queue m to every rank still connected except 'except'; consumes m. */
static void broadcast(struct gx_msg *m, int except) {
  for (int r = 0; r < job.nranks; r++)
    if (r != except && !is_remote(r)) gx_link_send(&job.ranks[r].link, m);
  for (int i = 0; i < job.nhosts; i++) {
    struct host *h = &job.hosts[i];
    if (!h->count || !host_usable(h)) continue;
    struct gx_msg *w = gx_msg_new2(GEXI_PX_TO_RANK, -1, except, m->data, m->len, NULL, 0);
    gx_link_send(&h->link, w);
    gx_msg_unref(w);
  }
  gx_msg_unref(m);
}

/* Queue m to rank r alone (through its proxy if it is remote); consumes m. */
static void send_to_rank(int r, struct gx_msg *m) {
  if (!is_remote(r)) {
    gx_link_send(&job.ranks[r].link, m);
  } else {
    struct gx_msg *w = gx_msg_new2(GEXI_PX_TO_RANK, r, 0, m->data, m->len, NULL, 0);
    host_send(&job.hosts[job.ranks[r].host], w);
    gx_msg_unref(w);
  }
  gx_msg_unref(m);
}

static void kill_all(int sig) {
  for (int r = 0; r < job.nranks; r++)
    if (job.ranks[r].alive && !is_remote(r) && job.ranks[r].pid > 0) kill(job.ranks[r].pid, sig);
  for (int i = 0; i < job.nhosts; i++) {
    struct gx_msg *m = gx_msg_new(GEXI_PX_SIGNAL, sig, 0, NULL, 0);
    host_send(&job.hosts[i], m);
    gx_msg_unref(m);
  }
}

/* Last resort (poll failure): kill and reap everything. */
static void emergency(const char *what) {
  fprintf(stderr, "gexrun: %s: %s; killing the job\n", what, strerror(errno));
  for (int r = 0; r < job.nranks; r++)
    if (job.ranks[r].alive && !is_remote(r) && job.ranks[r].pid > 0) kill(job.ranks[r].pid, SIGKILL);
  for (int i = 0; i < job.nhosts; i++)
    if (job.hosts[i].alive) kill(job.hosts[i].pid, SIGKILL);
  while (wait(NULL) > 0 || errno == EINTR) {
  }
  exit(1);
}

/* ---- ending the job ---- */

/* A death or a protocol error: tell every rank, kill survivors after a grace. */
static void fail_job(int r, const char *why) {
  job.failed = 1;
  if (job.ending) return;
  job.ending = 1;
  job.boot_deadline = 0;
  broadcast(gx_msg_new(GEXI_WIRE_DIED, 1, r, why, strlen(why)), -1);
  set_deadline(KILL_GRACE_MS);
}

static void describe_exit(int st, char *buf, size_t n, int death) {
  if (WIFSIGNALED(st))
    snprintf(buf, n, "was killed by signal %d (%s)", WTERMSIG(st), gx_signame(WTERMSIG(st)));
  else
    snprintf(buf, n, "exited with status %d%s", WEXITSTATUS(st),
             death ? " without calling gasnet_exit" : "");
}

/* "(pid P)" for local ranks, "(pid P on host H)" for remote ones. */
static void where(int r, char *buf, size_t n) {
  if (is_remote(r))
    snprintf(buf, n, "(pid %d on host %s)", (int)job.ranks[r].pid, job.hosts[job.ranks[r].host].name);
  else
    snprintf(buf, n, "(pid %d)", (int)job.ranks[r].pid);
}

static void report_death(int r) {
  char why[128], at[160];
  int st = job.ranks[r].status;
  /* The job's status, as the reference's spawners give it: 128 + the
   * signal that killed the rank, or the status it exited with. */
  if (!job.death_code && !job.ending)
    job.death_code = WIFSIGNALED(st)                          ? 128 + WTERMSIG(st)
                     : WIFEXITED(st) && WEXITSTATUS(st) != 0 ? WEXITSTATUS(st)
                                                             : 1;
  describe_exit(st, why, sizeof why, 1);
  where(r, at, sizeof at);
  fprintf(stderr, "gexrun: rank %d %s %s; ending the job\n", r, at, why);
  fail_job(r, why);
}

static void protocol_error(int r, const char *what) {
  fprintf(stderr, "gexrun: rank %d: protocol error: %s; ending the job\n", r, what);
  fail_job(r, "broke the protocol with gexrun");
  job.ranks[r].broken = 1; /* the stream is out of step: read nothing more */
  if (!is_remote(r)) gx_link_close(&job.ranks[r].link);
}

/* EXIT or ABORT from rank r: the first one decides the job's exit code. */
static void job_exit(int r, uint32_t type, int32_t code) {
  job.ranks[r].said_exit = 1;
  if (job.ending) return;
  job.ending = 1;
  job.boot_deadline = 0;
  job.have_code = 1;
  job.job_code = type == GEXI_WIRE_ABORT && code == 0 ? 1 : code;
  broadcast(gx_msg_new(type, code, r, NULL, 0), r);
  set_deadline(type == GEXI_WIRE_EXIT ? job.exit_timeout_ms + EXIT_KILL_MARGIN_MS : EXIT_GRACE_MS);
}

/* Rank r's ABORT_PEER ends the job as its abort (no death was seen): r is
 * told too (an ABORT naming itself), so that it reports its failure at
 * once instead of waiting out its own bound for a verdict. */
static void peer_report_ends_job(int r, int32_t code) {
  job_exit(r, GEXI_WIRE_ABORT, code);
  if (job.ranks[r].alive) send_to_rank(r, gx_msg_new(GEXI_WIRE_ABORT, code, r, NULL, 0));
}

/* ABORT_PEER: rank r ends the job because an operation with rank peer
 * failed (peer -1: with a rank it could not name, as for an NBI operation
 * in flight).  When a rank dies, its peers' network operations fail at
 * about the time the launcher learns of the death, and whichever report
 * arrives first used to name the job's culprit.  So if the peer is still
 * thought alive (or is unknown), wait a short grace for a death (which
 * then ends the job as a death, the cause); if none comes, the abort ends
 * the job as usual. */
static void peer_failed(int r, int32_t code, int32_t peer) {
  job.ranks[r].said_exit = 1;
  if (job.ending) return;
  if (job.peer_fail_deadline) return; /* a grace runs: it decides (several survivors report) */
  if (peer != -1 && (peer < 0 || peer >= job.nranks || peer == r || !job.ranks[peer].alive ||
                     job.ranks[peer].said_exit)) {
    peer_report_ends_job(r, code);
    return;
  }
  job.peer_fail_from = r;
  job.peer_fail_rank = peer;
  job.peer_fail_code = code;
  job.peer_fail_deadline = gx_now_ms() + PEER_FAIL_GRACE_MS;
}

/* The grace of an ABORT_PEER ran out (or a death ended the job meanwhile). */
static void peer_fail_expired(void) {
  job.peer_fail_deadline = 0;
  if (!job.ending) peer_report_ends_job(job.peer_fail_from, job.peer_fail_code);
}

/* ---- all-gather ---- */

static struct contrib *ag_pop(struct rank *k) {
  struct contrib *c = k->ag_head;
  k->ag_head = c->next;
  if (!k->ag_head) {
    k->ag_tail = NULL;
    job.ag_ready--;
  }
  return c;
}

/* Complete every round for which all ranks have contributed.  ag_check let
 * only contributions of the round's length through, and that length times
 * the rank count is within the frame limit. */
static void ag_progress(void) {
  while (!job.ending && job.ag_ready == job.nranks) {
    const uint32_t len = job.ranks[0].ag_head->len;
    const uint64_t total = (uint64_t)len * (uint64_t)job.nranks;
    struct gx_msg *m = gx_msg_new(GEXI_WIRE_ALLGATHER, 0, 0, NULL, (size_t)total);
    char *out = m->data + sizeof(struct gexi_wire_hdr);
    for (int r = 0; r < job.nranks; r++) {
      struct contrib *c = ag_pop(&job.ranks[r]);
      if (len) memcpy(out + (size_t)r * len, c->data, len);
      free(c);
    }
    job.ag_round++;
    job.ag_len_known = 0;
    broadcast(m, -1);
  }
}

/* The header of rank r's contribution to the current round arrived: check
 * its length before its payload is buffered (a bad one ends the job, and
 * then no payload is kept), so that gexrun never holds more than one frame
 * limit of contributions. */
static void ag_check(int r, uint32_t len) {
  if (job.ending) return;
  const uint64_t total = (uint64_t)len * (uint64_t)job.nranks;
  if (total > GEXI_WIRE_MAX_PAYLOAD) {
    fprintf(stderr, "gexrun: all-gather round %llu: rank %d contributes %u bytes, a result of "
            "%llu bytes for %d ranks, above the limit of %u; ending the job\n", job.ag_round, r,
            len, (unsigned long long)total, job.nranks, (unsigned)GEXI_WIRE_MAX_PAYLOAD);
    fail_job(r, "started an all-gather that is too large");
  } else if (job.ag_len_known && len != job.ag_len) {
    fprintf(stderr, "gexrun: all-gather round %llu: rank %d contributed %u bytes but rank %d "
            "contributes %u; ending the job\n", job.ag_round, job.ag_first, job.ag_len, r, len);
    fail_job(r, "made an all-gather contribution of the wrong length");
  } else if (!job.ag_len_known) {
    job.ag_len_known = 1;
    job.ag_len = len;
    job.ag_first = r;
  }
}

/* ---- frames from the ranks ---- */

static void dispatch(int r) {
  struct rank *k = &job.ranks[r];
  struct gexi_wire_hdr h = k->hdr;
  struct contrib *c = k->in;
  k->in = NULL;
  k->hdr_got = k->in_got = 0;
  /* EXIT and ABORT may come first: gasnet_exit, or a fatal error, before
   * gex_Client_Init (the rank's code is the job's). */
  if (h.type != GEXI_WIRE_HELLO && h.type != GEXI_WIRE_EXIT && h.type != GEXI_WIRE_ABORT &&
      !k->hello) {
    free(c);
    protocol_error(r, "frame before HELLO");
    return;
  }
  switch (h.type) {
    case GEXI_WIRE_HELLO:
      if (k->hello || h.arg0 != r) {
        protocol_error(r, k->hello ? "second HELLO" : "HELLO with the wrong rank");
        return;
      }
      k->hello = job.any_hello = 1;
      if (++job.nhello == job.nranks) job.boot_deadline = 0;
      send_to_rank(r, gx_msg_new(GEXI_WIRE_SECRET, 0, r, job.secret, sizeof job.secret));
      /* Ranks that ended quietly earlier were not plain programs after all:
       * their peers would wait for them forever. */
      for (int q = 0; q < job.nranks; q++) {
        if (!job.ranks[q].quiet_exit) continue;
        job.ranks[q].quiet_exit = 0;
        if (!job.ending) report_death(q);
      }
      return;
    case GEXI_WIRE_ALLGATHER:
      if (job.ending) {
        free(c);
        return;
      }
      c->next = NULL;
      if (k->ag_tail) k->ag_tail->next = c;
      else {
        k->ag_head = c;
        job.ag_ready++;
      }
      k->ag_tail = c;
      ag_progress();
      return;
    case GEXI_WIRE_LEAVE: /* exit(code) with GASNET_CATCH_EXIT=0 */
      k->left = 1;
      return;
    case GEXI_WIRE_ABORT_PEER:
      peer_failed(r, h.arg0, h.arg1);
      return;
    default: /* EXIT, ABORT (check_header let nothing else through) */
      job_exit(r, h.type, h.arg0);
      return;
  }
}

static int check_header(int r) {
  const struct gexi_wire_hdr *h = &job.ranks[r].hdr;
  char what[96];
  if (h->type < GEXI_WIRE_HELLO || h->type == GEXI_WIRE_DIED || h->type == GEXI_WIRE_SECRET ||
      h->type > GEXI_WIRE_LEAVE)
    snprintf(what, sizeof what, "unknown frame type %u", h->type);
  else if (h->len > GEXI_WIRE_MAX_PAYLOAD)
    snprintf(what, sizeof what, "frame length %u exceeds the limit", h->len);
  else if (h->len && h->type != GEXI_WIRE_ALLGATHER)
    snprintf(what, sizeof what, "frame type %u with a %u-byte payload", h->type, h->len);
  else if (h->type == GEXI_WIRE_ALLGATHER && job.ranks[r].ag_head)
    snprintf(what, sizeof what, "a second all-gather contribution before round %llu completed",
             job.ag_round);
  else
    return 1;
  protocol_error(r, what);
  return 0;
}

/* Bytes rank r wrote on its socket (read here, or relayed by its proxy). */
static void feed_rank(int r, const char *p, size_t n) {
  struct rank *k = &job.ranks[r];
  while (n && !k->broken) {
    if (k->hdr_got < sizeof k->hdr) {
      size_t c = sizeof k->hdr - k->hdr_got;
      if (c > n) c = n;
      memcpy((char *)&k->hdr + k->hdr_got, p, c);
      k->hdr_got += c;
      p += c;
      n -= c;
      if (k->hdr_got < sizeof k->hdr) return;
      if (!check_header(r)) return;
      if (k->hdr.type == GEXI_WIRE_ALLGATHER) {
        ag_check(r, k->hdr.len);
        if (!job.ending) { /* else its payload is read and dropped */
          k->in = gx_xmalloc(sizeof *k->in + k->hdr.len);
          k->in->len = k->hdr.len;
        }
      }
    } else {
      size_t c = k->hdr.len - k->in_got;
      if (c > n) c = n;
      if (k->in) memcpy(k->in->data + k->in_got, p, c);
      k->in_got += c;
      p += c;
      n -= c;
    }
    if (k->in_got == k->hdr.len) dispatch(r);
  }
}

/* Read everything local rank r has sent so far. */
static void read_rank(int r) {
  struct rank *k = &job.ranks[r];
  char buf[65536];
  while (k->link.rfd >= 0) {
    ssize_t n = read(k->link.rfd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) { /* EOF or error: stop listening; the exit comes via SIGCHLD */
      gx_link_close(&k->link);
      return;
    }
    feed_rank(r, buf, (size_t)n);
  }
}

/* ---- ends of ranks ---- */

static void rank_ended(int r, int st) {
  struct rank *k = &job.ranks[r];
  if (!k->alive) return;
  k->alive = 0;
  k->status = st;
  job.nalive--;
  if (job.verbose) {
    char how[128], at[160];
    describe_exit(st, how, sizeof how, 0);
    where(r, at, sizeof at);
    fprintf(stderr, "gexrun: rank %d %s %s\n", r, at, how);
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) > job.max_status) job.max_status = WEXITSTATUS(st);
  if (k->said_exit || k->left || job.ending) return;
  if (!k->hello && !job.any_hello && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
    k->quiet_exit = 1; /* a plain program, so far */
    return;
  }
  report_death(r);
}

static void local_rank_exited(int r, int st) {
  struct rank *k = &job.ranks[r];
  if (k->link.rfd >= 0) { /* it may have written EXIT just before ending */
    read_rank(r);
    gx_link_close(&k->link);
  }
  for (int s = 0; s < 2; s++) { /* its last output, as far as it is there */
    read_out(r, s);
    if (k->out_fd[s] >= 0) close(k->out_fd[s]);
    k->out_fd[s] = -1;
  }
  out_flush(r);
  rank_ended(r, st);
}

/* ---- hosts ---- */

static void host_ranks(const struct host *h, char *buf, size_t len, int only_alive) {
  int *rs = gx_xmalloc(((size_t)h->count + 1) * sizeof *rs), n = 0;
  for (int r = h->first; r < h->first + h->count; r++)
    if (!only_alive || job.ranks[r].alive) rs[n++] = r;
  rank_list(rs, n, buf, len);
  free(rs);
}

/* The link to a host is gone (or useless) before all of its ranks ended. */
static void host_lost(int i, const char *why) {
  struct host *h = &job.hosts[i];
  if (h->lost) return;
  h->lost = 1;
  h->eof_deadline = 0;
  char list[256];
  host_ranks(h, list, sizeof list, 1);
  gx_link_close(&h->link);
  if (h->alive) kill(h->pid, SIGKILL);
  int first = -1, n = 0;
  for (int r = h->first; r < h->first + h->count; r++) {
    struct rank *k = &job.ranks[r];
    if (!k->alive) continue;
    out_flush(r);
    k->alive = 0;
    k->status = 1 << 8;
    job.nalive--;
    n++;
    if (first < 0) first = r;
  }
  if (!n || job.ending) return;
  if (!h->hello)
    fprintf(stderr, "gexrun: cannot start rank%s %s on host %s: %s; ending the job\n",
            n > 1 ? "s" : "", list, h->name, why);
  else
    fprintf(stderr, "gexrun: lost host %s with rank%s %s: %s; ending the job\n", h->name,
            n > 1 ? "s" : "", list, why);
  char died[300];
  snprintf(died, sizeof died, "was lost with host %s", h->name);
  fail_job(first, died);
}

static void host_lost_status(int i) {
  struct host *h = &job.hosts[i];
  char why[300];
  if (h->alive)
    snprintf(why, sizeof why, "the connection to its proxy closed");
  else if (WIFSIGNALED(h->status))
    snprintf(why, sizeof why, "the remote shell was killed by signal %d (%s)",
             WTERMSIG(h->status), gx_signame(WTERMSIG(h->status)));
  else
    snprintf(why, sizeof why, "the remote shell exited with status %d%s", WEXITSTATUS(h->status),
             WEXITSTATUS(h->status) == 127 && !h->hello
                 ? " (is gexrun at the same path there? see GEX_REMOTE_GEXRUN)" : "");
  host_lost(i, why);
}

static int host_rank(const struct host *h, int r) {
  return r >= h->first && r < h->first + h->count;
}

static void on_host_frame(void *ctx, const struct gexi_wire_hdr *f, char *payload) {
  int i = (int)(intptr_t)ctx;
  struct host *h = &job.hosts[i];
  int r = f->arg0;
  if (!h->hello) {
    if (f->type == GEXI_PX_HELLO && f->arg0 == GX_PX_MAGIC && f->arg1 == GX_PX_VERSION) {
      h->hello = 1;
      return;
    }
    host_lost(i, "the remote command did not answer like a gexrun proxy (same version of "
                 "gexrun there? see GEX_REMOTE_GEXRUN)");
    return;
  }
  switch (f->type) {
    case GEXI_PX_STARTED:
      if (!host_rank(h, r)) break;
      job.ranks[r].pid = (pid_t)f->arg1;
      if (job.verbose)
        fprintf(stderr, "gexrun: rank %d started (pid %d on host %s)\n", r, f->arg1, h->name);
      return;
    case GEXI_PX_FROM_RANK:
      if (!host_rank(h, r)) break;
      if (job.ranks[r].alive) feed_rank(r, payload, f->len);
      return;
    case GEXI_PX_OUTPUT:
      if (!host_rank(h, r) || (f->arg1 != 1 && f->arg1 != 2)) break;
      out_bytes(r, f->arg1 - 1, payload, f->len);
      return;
    case GEXI_PX_EXITED:
      if (!host_rank(h, r)) break;
      out_flush(r);
      rank_ended(r, f->arg1);
      return;
    default:
      break;
  }
  char why[96];
  snprintf(why, sizeof why, "protocol error on the link (frame type %u, rank %d)", f->type, r);
  host_lost(i, why);
}

static int host_has_alive(const struct host *h) {
  for (int r = h->first; r < h->first + h->count; r++)
    if (job.ranks[r].alive) return 1;
  return 0;
}

static void read_host(int i) {
  struct host *h = &job.hosts[i];
  if (h->link.rfd < 0) return;
  int rc = gx_link_read(&h->link, GEXI_PX_MAX_PAYLOAD, on_host_frame, (void *)(intptr_t)i);
  if (rc == 0 || h->lost) return;
  if (rc == -2) {
    host_lost(i, h->hello ? "oversized frame on the link"
                          : "the remote command did not answer like a gexrun proxy");
    return;
  }
  /* EOF.  Normal once every rank of the host has been reported. */
  if (h->link.rfd >= 0) close(h->link.rfd);
  h->link.rfd = -1;
  if (!host_has_alive(h)) return;
  if (!h->alive) host_lost_status(i);
  else h->eof_deadline = gx_now_ms() + EOF_GRACE_MS; /* wait for its exit status */
}

/* Remote shell (or proxy) process of host i ended. */
static void host_exited(int i, int st) {
  struct host *h = &job.hosts[i];
  h->alive = 0;
  h->status = st;
  if (job.verbose) {
    char how[128];
    describe_exit(st, how, sizeof how, 0);
    fprintf(stderr, "gexrun: remote shell for host %s (pid %d) %s\n", h->name, (int)h->pid, how);
  }
  read_host(i); /* whatever it wrote before it ended */
  if (host_has_alive(h)) host_lost_status(i);
  else gx_link_close(&h->link);
}

/* ---- children ---- */

static void reap(void) {
  for (;;) {
    int st;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid < 0 && errno == EINTR) continue;
    if (pid <= 0) return;
    int found = 0;
    for (int r = 0; r < job.nranks && !found; r++)
      if (job.ranks[r].alive && !is_remote(r) && job.ranks[r].pid == pid) {
        local_rank_exited(r, st);
        found = 1;
      }
    for (int i = 0; i < job.nhosts && !found; i++)
      if (job.hosts[i].alive && job.hosts[i].pid == pid) {
        host_exited(i, st);
        found = 1;
      }
  }
}

/* SIGINT, SIGTERM or SIGHUP to gexrun: terminate the ranks, then kill them. */
static void on_signal(int sig) {
  if (job.got_signal) { /* a second one: stop waiting */
    kill_all(SIGKILL);
    return;
  }
  job.got_signal = sig;
  job.ending = 1;
  job.boot_deadline = 0;
  if (job.verbose) fprintf(stderr, "gexrun: got %s; terminating the ranks\n", gx_signame(sig));
  kill_all(SIGTERM);
  set_deadline(KILL_GRACE_MS);
}

static void handle_signals(int sfd) {
  struct signalfd_siginfo si[16];
  int chld = 0;
  for (;;) {
    ssize_t n = read(sfd, si, sizeof si);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    /* Terminating signals first, so that exits they cause are not deaths. */
    for (size_t i = 0; i < (size_t)n / sizeof *si; i++) {
      if (si[i].ssi_signo == SIGCHLD) chld = 1;
      else on_signal((int)si[i].ssi_signo);
    }
  }
  if (chld) reap();
}

static int spawn_local(int r) {
  struct rank *k = &job.ranks[r];
  int po[2] = {-1, -1}, pe[2] = {-1, -1};
  if (job.label && (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0)) {
    fprintf(stderr, "gexrun: cannot create the output pipes of rank %d: %s\n", r, strerror(errno));
    return -1;
  }
  struct gx_rank_spec s = {.rank = r, .size = job.nranks, .jobid = job.jobid, .argv = job.prog,
                           .in_fd = -1, .out_fd = {po[1], pe[1]},
                           .old_pipe = &job.old_pipe, .old_chld = &job.old_chld,
                           .old_nofile = job.have_old_nofile ? &job.old_nofile : NULL};
  int bfd = -1;
  pid_t pid = gx_spawn_rank(&s, &bfd);
  if (job.label) {
    close(po[1]);
    close(pe[1]);
    if (pid < 0) {
      close(po[0]);
      close(pe[0]);
    }
  }
  if (pid < 0) return -1;
  gx_set_nonblock(bfd);
  gx_link_init(&k->link, bfd, bfd);
  if (job.label) {
    gx_set_nonblock(po[0]);
    gx_set_nonblock(pe[0]);
    k->out_fd[0] = po[0];
    k->out_fd[1] = pe[0];
  }
  k->pid = pid;
  k->alive = 1;
  job.nalive++;
  if (job.verbose) fprintf(stderr, "gexrun: rank %d started (pid %d)\n", r, (int)pid);
  return 0;
}

/* ---- starting a remote host ---- */

struct strbuf {
  char *p;
  size_t len, cap;
};
static void sb_add(struct strbuf *b, const char *s) {
  size_t n = strlen(s) + 1;
  if (b->len + n > b->cap) {
    b->cap = (b->len + n) * 2;
    char *np = realloc(b->p, b->cap);
    if (!np) gx_xmalloc(SIZE_MAX);
    b->p = np;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
}

static int forwarded(const char *e) {
  static const char *const prefixes[] = {"GEX_", "GASNET_", "FI_"};
  static const char *const never[] = {"GEX_RANK=", "GEX_SIZE=", "GEX_BOOT_FD=", "GEX_JOBID="};
  for (size_t i = 0; i < sizeof never / sizeof *never; i++)
    if (!strncmp(e, never[i], strlen(never[i]))) return 0;
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (!strncmp(e, prefixes[i], strlen(prefixes[i]))) return 1;
  return 0;
}

/* The job description for host i's proxy (PX_SETUP). */
static struct gx_msg *setup_msg(const struct host *h, const char *cwd) {
  extern char **environ;
  struct strbuf b = {0};
  char num[32];
  sb_add(&b, h->name);
  sb_add(&b, job.jobid);
  snprintf(num, sizeof num, "%d", job.nranks);
  sb_add(&b, num);
  sb_add(&b, cwd);
  /* Environment: GEX_*, GASNET_*, FI_*, and -x names (-x NAME=VALUE as given). */
  struct strbuf env = {0};
  int nenv = 0;
  for (char **e = environ; *e; e++)
    if (forwarded(*e)) {
      sb_add(&env, *e);
      nenv++;
    }
  for (int x = 0; x < job.nxvars; x++) {
    const char *v = job.xvars[x];
    if (strchr(v, '=')) {
      sb_add(&env, v);
      nenv++;
      continue;
    }
    const char *val = getenv(v); /* forwarded as it is, even empty: no grammar */
    if (!val) continue;
    char *kv = gx_xmalloc(strlen(v) + strlen(val) + 2);
    sprintf(kv, "%s=%s", v, val);
    sb_add(&env, kv);
    free(kv);
    nenv++;
  }
  snprintf(num, sizeof num, "%d", nenv);
  sb_add(&b, num);
  struct gx_msg *m0 = NULL;
  for (char **a = job.prog; *a; a++) sb_add(&env, *a);
  m0 = gx_msg_new2(GEXI_PX_SETUP, h->first, h->count, b.p, b.len, env.p, env.len);
  free(b.p);
  free(env.p);
  return m0;
}

static char **split_words(const char *s, int *n) {
  char *copy = strdup(s);
  if (!copy) gx_xmalloc(SIZE_MAX);
  int cap = 8, k = 0;
  char **w = gx_xmalloc((size_t)cap * sizeof *w);
  for (char *t = strtok(copy, " \t\n"); t; t = strtok(NULL, " \t\n")) {
    if (k + 1 >= cap) {
      cap *= 2;
      char **nw = realloc(w, (size_t)cap * sizeof *w);
      if (!nw) gx_xmalloc(SIZE_MAX);
      w = nw;
    }
    w[k++] = strdup(t);
  }
  w[k] = NULL;
  free(copy);
  *n = k;
  return w;
}

static int spawn_host(int i, const char *cwd, const char *self) {
  struct host *h = &job.hosts[i];
  const char *rsh = gx_env_string("GEX_RSH");
  if (!rsh) rsh = "ssh";
  int nw;
  char **words = split_words(rsh, &nw);
  if (nw == 0) {
    free(words);
    words = split_words("ssh", &nw);
  }
  char **argv = gx_xmalloc(((size_t)nw + 4) * sizeof *argv);
  for (int w = 0; w < nw; w++) argv[w] = words[w];
  argv[nw] = h->name;
  argv[nw + 1] = (char *)self;
  argv[nw + 2] = "--proxy";
  argv[nw + 3] = NULL;
  int to[2], from[2];
  int rc = -1;
  if (pipe2(to, O_CLOEXEC) != 0) {
    fprintf(stderr, "gexrun: host %s: pipe: %s\n", h->name, strerror(errno));
    goto out;
  }
  if (pipe2(from, O_CLOEXEC) != 0) {
    fprintf(stderr, "gexrun: host %s: pipe: %s\n", h->name, strerror(errno));
    close(to[0]);
    close(to[1]);
    goto out;
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "gexrun: cannot start the remote shell for host %s: %s\n", h->name,
            strerror(errno));
    close(to[0]), close(to[1]), close(from[0]), close(from[1]);
    goto out;
  }
  if (pid == 0) {
    if (dup2(to[0], 0) < 0 || dup2(from[1], 1) < 0) _exit(127);
    setpgid(0, 0); /* terminal signals reach gexrun only; it tells the proxies */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
    sigaction(SIGPIPE, &job.old_pipe, NULL);
    sigaction(SIGCHLD, &job.old_chld, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvp(argv[0], argv);
    fprintf(stderr, "gexrun: cannot execute the remote shell '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  gx_set_nonblock(to[1]);
  gx_set_nonblock(from[0]);
  gx_link_init(&h->link, from[0], to[1]);
  h->pid = pid;
  h->alive = 1;
  if (job.verbose) {
    fprintf(stderr, "gexrun: host %s: ranks %d-%d through '", h->name, h->first,
            h->first + h->count - 1);
    for (char **a = argv; *a; a++) fprintf(stderr, "%s%s", a == argv ? "" : " ", *a);
    fprintf(stderr, "' (pid %d)\n", (int)pid);
  }
  struct gx_msg *m = setup_msg(h, cwd);
  gx_link_send(&h->link, m);
  gx_msg_unref(m);
  for (int r = h->first; r < h->first + h->count; r++) {
    job.ranks[r].alive = 1; /* until its proxy reports otherwise */
    job.nalive++;
  }
  rc = 0;
out:
  for (int w = 0; w < nw; w++) free(words[w]);
  free(words);
  free(argv);
  return rc;
}

/* ---- starting the job ---- */

/* Could not start every rank: end what was started. */
static void start_failed(void) {
  job.failed = job.ending = 1;
  job.boot_deadline = 0;
  kill_all(SIGKILL);
  for (int h = 0; h < job.nhosts; h++)
    if (job.hosts[h].alive) kill(job.hosts[h].pid, SIGKILL);
}

/* Start up to 'budget' more: the remote shells first (they take longer to
 * come up), then the local ranks.  Nothing more once the job is ending (a
 * signal, a death).  Returns whether some are still to be started. */
static int spawn_more(int budget) {
  while (budget > 0 && !job.ending) {
    if (job.next_host < job.nhosts) {
      const int h = job.next_host++;
      if (job.hosts[h].local || !job.hosts[h].count) continue;
      if (spawn_host(h, job.cwd, job.self) != 0) break;
    } else if (job.next_rank < job.nranks) {
      const int r = job.next_rank++;
      if (is_remote(r)) continue;
      if (spawn_local(r) != 0) break;
    } else {
      return 0;
    }
    budget--;
  }
  if (budget > 0 && !job.ending) start_failed(); /* left the loop by a failure */
  return !job.ending && (job.next_host < job.nhosts || job.next_rank < job.nranks);
}

/* ---- bootstrap timeout ---- */

static void boot_timeout(void) {
  job.boot_deadline = 0;
  if (job.ending) return;
  char msg[1024];
  size_t o = 0;
  int first = -1;
  int *rs = gx_xmalloc((size_t)job.nranks * sizeof *rs);
  for (int i = 0; i < job.nhosts; i++) {
    const struct host *h = &job.hosts[i];
    for (int pass = 0; pass < 2; pass++) { /* 0: never started, 1: never initialised */
      int n = 0;
      for (int r = h->first; r < h->first + h->count; r++) {
        const struct rank *k = &job.ranks[r];
        if (!k->alive || k->hello) continue;
        int started = k->pid > 0;
        if (pass == 0 && !started) rs[n++] = r;
        if (pass == 1 && started && job.any_hello) rs[n++] = r;
      }
      if (!n) continue;
      if (first < 0) first = rs[0];
      char list[256];
      rank_list(rs, n, list, sizeof list);
      if (o < sizeof msg)
        o += (size_t)snprintf(msg + o, sizeof msg - o, "%srank%s %s (host %s) %s", o ? ", " : "",
                              n > 1 ? "s" : "", list, h->name,
                              pass == 0 ? "never started" : "never called gex_Client_Init");
    }
  }
  free(rs);
  if (first < 0) return;
  fprintf(stderr, "gexrun: bootstrap timed out after %d s: %s; ending the job\n", job.boot_timeout,
          msg);
  fail_job(first, "did not start in time (bootstrap timeout)");
  /* A remote shell whose proxy never answered will not pass anything on. */
  for (int i = 0; i < job.nhosts; i++)
    if (job.hosts[i].alive && !job.hosts[i].hello) kill(job.hosts[i].pid, SIGKILL);
}

/* ---- main ---- */

/* --stall: look at the ranks of this host once a second.  A rank stopped
 * (SIGSTOP, a debugger) keeps every other rank waiting for it without any
 * error; after stall_secs of it gexrun says which rank and which wait. */
static void stall_check(int64_t now) {
  job.stall_next = now + 1000;
  for (int r = 0; r < job.nranks; r++) {
    struct rank *k = &job.ranks[r];
    if (!k->alive || k->pid <= 0 || !job.hosts[k->host].local) continue;
    char st = gx_proc_state(k->pid);
    if (st != 'T' && st != 't') {
      k->stopped_since = 0;
      k->stall_reported = 0;
      continue;
    }
    if (!k->stopped_since) k->stopped_since = now;
    if (k->stall_reported || now - k->stopped_since < (int64_t)job.stall_secs * 1000) continue;
    k->stall_reported = 1;
    int waiting = 0;
    for (int q = 0; q < job.nranks; q++) waiting += q != r && job.ranks[q].alive;
    fprintf(stderr,
            "gexrun: rank %d (pid %ld) has been stopped (state %c: %s) for %lld s; %d other "
            "rank(s) of the job may be waiting for it%s\n",
            r, (long)k->pid, st, st == 'T' ? "a stop signal" : "a tracer",
            (long long)((now - k->stopped_since) / 1000), waiting,
            job.stall_end ? "; ending the job" : "");
    if (job.stall_end) kill(k->pid, SIGKILL); /* its death ends the job */
  }
}

static void usage(void) {
  fprintf(stderr, "usage: gexrun -n N [--hosts h1[:slots],h2...] [-l] [-x NAME]... [--] "
                  "program [args...]\n");
  exit(2);
}

/* A count of ranks or slots: an integer in [1, GX_MAX_RANKS].  A larger
 * one ends gexrun with a line that says the limit. */
static int parse_n(const char *s, const char *what) {
  if (!s || *s < '0' || *s > '9') return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || v < 1) return -1;
  if (errno == ERANGE || v > GX_MAX_RANKS) {
    fprintf(stderr, "gexrun: %s %s: at most %d ranks per job\n", what, s, GX_MAX_RANKS);
    exit(2);
  }
  return (int)v;
}

static int parse_hosts(const char *spec) {
  char *copy = strdup(spec);
  if (!copy) return -1;
  int n = 1;
  for (const char *c = spec; *c; c++) n += *c == ',';
  job.hosts = calloc((size_t)n, sizeof *job.hosts);
  if (!job.hosts) return -1;
  job.nhosts = 0;
  char *save = NULL;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    struct host *h = &job.hosts[job.nhosts++];
    char *colon = strrchr(t, ':');
    h->slots = 0;
    if (colon) {
      *colon = 0;
      if ((h->slots = parse_n(colon + 1, "--hosts: slot count")) < 0) {
        fprintf(stderr, "gexrun: --hosts: bad slot count in '%s:%s'\n", t, colon + 1);
        free(copy);
        return -1;
      }
    }
    if (!*t) {
      fprintf(stderr, "gexrun: --hosts: empty host name\n");
      free(copy);
      return -1;
    }
    h->name = strdup(t);
  }
  free(copy);
  if (job.nhosts == 0) {
    fprintf(stderr, "gexrun: --hosts: no host given\n");
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--proxy")) return gx_proxy_main();
  int n = -1, i = 1;
  const char *hosts = NULL;
  job.xvars = calloc((size_t)argc, sizeof *job.xvars);
  if (!job.xvars) return 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) {
      i++;
      break;
    } else if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--np")) {
      if (++i >= argc || (n = parse_n(argv[i], "-n")) < 0) usage();
    } else if (!strncmp(a, "--np=", 5)) {
      if ((n = parse_n(a + 5, "-n")) < 0) usage();
    } else if (!strncmp(a, "-n", 2) && a[2] >= '0' && a[2] <= '9') {
      if ((n = parse_n(a + 2, "-n")) < 0) usage();
    } else if (!strcmp(a, "--hosts") || !strcmp(a, "-H")) {
      if (++i >= argc) usage();
      hosts = argv[i];
    } else if (!strncmp(a, "--hosts=", 8)) {
      hosts = a + 8;
    } else if (!strcmp(a, "-l") || !strcmp(a, "--label")) {
      job.label = 1;
    } else if (!strcmp(a, "-x")) {
      if (++i >= argc || !argv[i][0] || argv[i][0] == '=') usage();
      job.xvars[job.nxvars++] = argv[i];
    } else if (!strcmp(a, "--stall")) {
      uint64_t secs;
      char why[160];
      if (++i >= argc || gexi_parse_count(argv[i], 1, 1000000, &secs, why, sizeof why) != 0)
        usage();
      job.stall_secs = (int)secs;
    } else if (!strcmp(a, "--stall-end")) {
      job.stall_end = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      printf("usage: gexrun -n N [options] [--] program [args...]\n"
             "Run N copies of program as the ranks of one libgex job.\n"
             "  -n, -np, --np N        number of ranks (1 <= N <= 65536)\n"
             "  -H, --hosts LIST       hosts to run on: h1[:slots],h2[:slots],... (ranks fill\n"
             "                         each host in order; default slots ceil(N/hosts))\n"
             "  -l, --label            prefix every output line with [rank]\n"
             "  -x NAME[=VALUE]        also pass this variable to ranks on other hosts\n"
             "  --stall SECS           report a rank of this host stopped for SECS seconds\n"
             "  --stall-end            ... and end the job (kill that rank)\n"
             "  -h, --help             show this help\n"
             "  --version              show the version\n"
             "Remote shell: GEX_RSH (default ssh).  See docs/gexrun.md.\n"
             "Set GEXRUN_VERBOSE=1 to log each rank's start and exit.\n");
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("gexrun (libgex) %s\n", GEXRUN_VERSION);
      return 0;
    } else {
      fprintf(stderr, "gexrun: unknown option '%s'\n", a);
      usage();
    }
  }
  if (n < 1 || i >= argc) usage();
  job.prog = argv + i;
  job.verbose = gx_env_switch("GEXRUN_VERBOSE", 0);
  if (!job.stall_secs) job.stall_secs = (int)gx_env_count("GEXRUN_STALL", 0, 0, 1000000);
  if (!job.stall_end) job.stall_end = gx_env_switch("GEXRUN_STALL_END", 0);
  job.boot_timeout = (int)gx_env_count("GEX_BOOTSTRAP_TIMEOUT", 60, 0, 1000000);
  job.exit_timeout_ms = (int64_t)gx_env_exit_timeout_ms((uint64_t)n);

  /* Hosts and placement. */
  if (hosts) {
    if (parse_hosts(hosts) != 0) usage();
  } else {
    job.hosts = calloc(1, sizeof *job.hosts);
    if (!job.hosts) return 1;
    job.nhosts = 1;
    job.hosts[0].name = strdup("localhost");
    job.hosts[0].slots = n;
  }
  char myname[256] = "";
  gethostname(myname, sizeof myname - 1);
  int per = (n + job.nhosts - 1) / job.nhosts, placed = 0, any_remote = 0;
  for (int h = 0; h < job.nhosts; h++) {
    struct host *hp = &job.hosts[h];
    if (!hp->slots) hp->slots = per;
    hp->first = placed;
    hp->count = n - placed < hp->slots ? n - placed : hp->slots;
    placed += hp->count;
    hp->local = !strcmp(hp->name, "localhost") || !strcmp(hp->name, myname);
    gx_link_init(&hp->link, -1, -1);
    if (!hp->local && hp->count) any_remote = 1;
  }
  if (placed < n) {
    fprintf(stderr, "gexrun: the hosts have %d slot(s) for %d ranks\n", placed, n);
    usage();
  }

  /* Can this host take its ranks?  (A proxy checks its own host.) */
  int nlocal = 0;
  for (int h = 0; h < job.nhosts; h++)
    if (job.hosts[h].local) nlocal += job.hosts[h].count;
  if (nlocal) {
    char why[512];
    if (gx_check_capacity(nlocal, job.label ? 3 : 1, &job.old_nofile, why, sizeof why) != 0) {
      fprintf(stderr, "gexrun: cannot start %d rank(s) on this host: %s\n", nlocal, why);
      return 1;
    }
    job.have_old_nofile = 1;
  }

  /* Descriptors 0-2 must exist, or a socket could land there. */
  for (int fd = 0; fd < 3; fd++)
    if (fcntl(fd, F_GETFD) < 0) open("/dev/null", O_RDWR);

  int sfd = gx_signals_setup(&job.old_pipe, &job.old_chld);
  if (sfd < 0) return 1;

  uint32_t rnd;
  if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
    rnd = (uint32_t)gx_now_ms() ^ ((uint32_t)getpid() << 16);
  /* The job's secret (docs/security.md): from the kernel's random source
   * only; without it no job starts. */
  for (size_t got = 0; got < sizeof job.secret;) {
    ssize_t g = getrandom(job.secret + got, sizeof job.secret - got, 0);
    if (g < 0 && errno == EINTR) continue;
    if (g <= 0) {
      fprintf(stderr, "gexrun: cannot draw the job secret (getrandom): %s\n", strerror(errno));
      return 1;
    }
    got += (size_t)g;
  }
  char jobid[64];
  snprintf(jobid, sizeof jobid, "gex-%d-%08x", (int)getpid(), rnd);
  job.jobid = jobid;

  char cwd[PATH_MAX], self[PATH_MAX];
  if (any_remote) {
    if (!getcwd(cwd, sizeof cwd)) {
      fprintf(stderr, "gexrun: cannot determine the working directory: %s\n", strerror(errno));
      return 1;
    }
    const char *rg = gx_env_string("GEX_REMOTE_GEXRUN");
    if (rg) snprintf(self, sizeof self, "%s", rg);
    else {
      ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
      if (l <= 0) {
        fprintf(stderr, "gexrun: cannot find my own path (/proc/self/exe): %s\n", strerror(errno));
        return 1;
      }
      self[l] = 0;
    }
  }

  job.nranks = n;
  job.ranks = calloc((size_t)n, sizeof *job.ranks);
  size_t npfd = 1 + 3 * (size_t)n + 2 * (size_t)job.nhosts;
  struct pollfd *pfd = calloc(npfd, sizeof *pfd);
  int *who = calloc(npfd, sizeof *who);
  if (!job.ranks || !pfd || !who) {
    fprintf(stderr, "gexrun: out of memory for %d ranks\n", n);
    return 1;
  }
  for (int r = 0; r < n; r++) {
    gx_link_init(&job.ranks[r].link, -1, -1);
    job.ranks[r].out_fd[0] = job.ranks[r].out_fd[1] = -1;
  }
  for (int h = 0; h < job.nhosts; h++)
    for (int r = job.hosts[h].first; r < job.hosts[h].first + job.hosts[h].count; r++)
      job.ranks[r].host = h;
  if (job.verbose) fprintf(stderr, "gexrun: job %s: %d rank(s) of %s\n", jobid, n, job.prog[0]);
  if (job.boot_timeout > 0) job.boot_deadline = gx_now_ms() + (int64_t)job.boot_timeout * 1000;
  job.cwd = cwd;
  job.self = self;

  /* The ranks are started by the loop, a batch per turn, so that signals,
   * deaths and frames are handled while a large job starts. */
  int spawning = 1;
  for (;;) {
    if (spawning) spawning = spawn_more(GX_SPAWN_BATCH);
    int hosts_alive = 0;
    for (int h = 0; h < job.nhosts; h++) hosts_alive += job.hosts[h].alive;
    if (!spawning && job.nalive <= 0 && !hosts_alive) break;
    int np = 0;
    pfd[np++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    int64_t wake = job.deadline;
    if (job.boot_deadline && (!wake || job.boot_deadline < wake)) wake = job.boot_deadline;
    if (job.peer_fail_deadline && (!wake || job.peer_fail_deadline < wake))
      wake = job.peer_fail_deadline;
    if (job.stall_secs && (!wake || job.stall_next < wake)) wake = job.stall_next;
    for (int r = 0; r < n; r++) {
      struct rank *k = &job.ranks[r];
      if (k->link.rfd >= 0) {
        pfd[np] = (struct pollfd){.fd = k->link.rfd, .events = POLLIN};
        if (gx_link_pending(&k->link)) pfd[np].events |= POLLOUT;
        who[np++] = 3 * r;
      }
      for (int s = 0; s < 2; s++)
        if (k->out_fd[s] >= 0) {
          pfd[np] = (struct pollfd){.fd = k->out_fd[s], .events = POLLIN};
          who[np++] = 3 * r + 1 + s;
        }
    }
    for (int h = 0; h < job.nhosts; h++) {
      struct host *hp = &job.hosts[h];
      if (hp->link.rfd >= 0) {
        pfd[np] = (struct pollfd){.fd = hp->link.rfd, .events = POLLIN};
        who[np++] = -1 - 2 * h;
      }
      if (gx_link_pending(&hp->link)) {
        pfd[np] = (struct pollfd){.fd = hp->link.wfd, .events = POLLOUT};
        who[np++] = -2 - 2 * h;
      }
      if (hp->eof_deadline && (!wake || hp->eof_deadline < wake)) wake = hp->eof_deadline;
    }
    int timeout = -1;
    if (wake) {
      int64_t left = wake - gx_now_ms();
      timeout = left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
    }
    if (spawning) timeout = 0; /* look, then start the next batch */
    if (poll(pfd, (nfds_t)np, timeout) < 0) {
      if (errno == EINTR) continue;
      emergency("poll");
    }
    /* Signals first: exits that a terminating signal causes are not deaths. */
    if (pfd[0].revents) handle_signals(sfd);
    for (int p = 1; p < np; p++) {
      if (!pfd[p].revents) continue;
      if (who[p] >= 0) {
        int r = who[p] / 3, w = who[p] % 3;
        struct rank *k = &job.ranks[r];
        if (w == 0) {
          if (k->link.rfd != pfd[p].fd) continue; /* closed meanwhile */
          if (pfd[p].revents & POLLOUT) gx_link_flush(&k->link);
          if (pfd[p].revents & (POLLIN | POLLHUP | POLLERR)) read_rank(r);
        } else if (k->out_fd[w - 1] == pfd[p].fd) {
          read_out(r, w - 1);
        }
      } else {
        int h = (-who[p] - 1) / 2, wr = (-who[p] - 1) % 2;
        struct host *hp = &job.hosts[h];
        if (wr) {
          if (hp->link.wfd == pfd[p].fd) gx_link_flush(&hp->link);
        } else if (hp->link.rfd == pfd[p].fd) {
          read_host(h);
        }
      }
    }
    int64_t now = gx_now_ms();
    for (int h = 0; h < job.nhosts; h++)
      if (job.hosts[h].eof_deadline && now >= job.hosts[h].eof_deadline) host_lost_status(h);
    if (job.boot_deadline && now >= job.boot_deadline) boot_timeout();
    if (job.stall_secs && now >= job.stall_next && !job.ending) stall_check(now);
    if (job.peer_fail_deadline && (job.ending || now >= job.peer_fail_deadline))
      peer_fail_expired();
    if (job.deadline && now >= job.deadline) {
      job.deadline = 0;
      if (job.kill_stage == 0) {
        job.kill_stage = 1;
        int *late = gx_xmalloc((size_t)n * sizeof *late), left = 0;
        for (int r = 0; r < n; r++)
          if (job.ranks[r].alive) late[left++] = r;
        if (left) {
          char list[256];
          rank_list(late, left, list, sizeof list);
          fprintf(stderr, "gexrun: killing rank%s %s: %s not end in time\n", left > 1 ? "s" : "",
                  list, left > 1 ? "they did" : "it did");
          kill_all(SIGKILL);
        }
        free(late);
        for (int h = 0; h < job.nhosts; h++)
          if (job.hosts[h].alive) set_deadline(RSH_GRACE_MS);
      } else {
        job.kill_stage = 2;
        for (int h = 0; h < job.nhosts; h++)
          if (job.hosts[h].alive) {
            fprintf(stderr, "gexrun: host %s did not end in time; killing its remote shell\n",
                    job.hosts[h].name);
            kill(job.hosts[h].pid, SIGKILL);
          }
      }
    }
  }

  /* Free everything, so that leak checkers (ASan builds) stay quiet. */
  for (int r = 0; r < n; r++) {
    struct rank *k = &job.ranks[r];
    out_flush(r);
    gx_link_close(&k->link);
    for (int s = 0; s < 2; s++) {
      if (k->out_fd[s] >= 0) close(k->out_fd[s]);
      free(k->lb[s].buf);
    }
    free(k->in);
    while (k->ag_head) free(ag_pop(k));
  }
  for (int h = 0; h < job.nhosts; h++) {
    gx_link_close(&job.hosts[h].link);
    free(job.hosts[h].name);
  }
  free(job.hosts);
  free(job.ranks);
  free(job.xvars);
  free(pfd);
  free(who);
  close(sfd);
  int left = gx_remove_job_shm(job.jobid);
  if (left && job.verbose)
    fprintf(stderr, "gexrun: removed %d shared-memory object(s) /dev/shm/%s.* of ranks that did not "
                    "end normally\n", left, job.jobid);

  if (job.got_signal) return 128 + job.got_signal;
  if (job.have_code) return job.job_code;
  if (job.death_code) return job.death_code;
  if (job.failed) return 1;
  return job.max_status;
}

/* gexrun -- start an N-rank libgex job on this host and supervise it.
 *
 * Every rank is a child process connected to gexrun by one AF_UNIX stream
 * socket; the frames exchanged on it are described in bootstrap/wire.h.
 * gexrun serves the ranks' all-gathers, forwards gasnet_exit and aborts to
 * the other ranks, notices ranks that die and ends the job, and forwards
 * SIGINT/SIGTERM/SIGHUP.  Everything happens in one poll() loop: one entry
 * per rank socket plus a signalfd for SIGCHLD and the terminating signals.
 * All socket I/O is non-blocking (partial frames are buffered per rank,
 * pending output is queued per rank), so a slow or dead rank cannot stall
 * the loop.  Timers are poll timeouts on the monotonic clock.
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
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/wire.h"

#ifndef GEXRUN_VERSION
#define GEXRUN_VERSION "unknown"
#endif

#define EXIT_GRACE_MS 5000 /* after gasnet_exit or an abort: time for ranks to end */
#define KILL_GRACE_MS 2000 /* after a death, an error or a signal */
#define MAX_RANKS (1 << 20)

/* A frame to send (header + payload), shared by all the ranks it goes to. */
struct msg {
  size_t refs, len;
  char data[];
};
struct outq {
  struct msg *m;
  struct outq *next;
};
/* A rank's all-gather contribution, queued until its round is complete. */
struct contrib {
  struct contrib *next;
  uint32_t len;
  char data[];
};

struct rank {
  pid_t pid;
  int fd;         /* our end of the socket, -1 once closed */
  int wr_dead;    /* sending failed: the peer is gone, drop further output */
  int alive;      /* forked and not reaped yet */
  int hello;      /* sent HELLO: a libgex process */
  int said_exit;  /* sent EXIT or ABORT */
  int quiet_exit; /* exited 0 without HELLO while no rank had sent HELLO */
  int status;     /* wait status, once reaped */
  struct gexi_wire_hdr hdr; /* frame being read */
  size_t hdr_got, in_got;
  struct contrib *in;       /* its payload (ALLGATHER frames only) */
  struct contrib *ag_head, *ag_tail;
  struct outq *out_head, *out_tail;
  size_t out_off; /* bytes of out_head already sent */
};

/* The whole state of the job: one structure, one instance. */
static struct job {
  struct rank *ranks;
  int nranks, nalive, verbose;
  int any_hello;           /* some rank sent HELLO */
  int ending;              /* the job is over: exits are no longer deaths */
  int have_code, job_code; /* set by the EXIT/ABORT that ended the job */
  int failed;              /* a death or a protocol error ended the job */
  int got_signal;          /* the first SIGINT/SIGTERM/SIGHUP received */
  int max_status;          /* highest exit status of the ranks */
  int64_t deadline;        /* when to SIGKILL the survivors (ms), 0 = never */
  int ag_ready;            /* ranks with a queued all-gather contribution */
  unsigned long long ag_round;
  struct sigaction old_pipe, old_chld; /* dispositions to restore in the ranks */
} job;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *signame(int sig) {
#define S(s) [s] = #s
  static const char *const names[] = {
      S(SIGHUP),  S(SIGINT),  S(SIGQUIT), S(SIGILL),    S(SIGTRAP), S(SIGABRT), S(SIGBUS),
      S(SIGFPE),  S(SIGKILL), S(SIGUSR1), S(SIGSEGV),   S(SIGUSR2), S(SIGPIPE), S(SIGALRM),
      S(SIGTERM), S(SIGCHLD), S(SIGCONT), S(SIGSTOP),   S(SIGTSTP), S(SIGTTIN), S(SIGTTOU),
      S(SIGURG),  S(SIGXCPU), S(SIGXFSZ), S(SIGVTALRM), S(SIGPROF), S(SIGWINCH), S(SIGIO),
      S(SIGSYS),
  };
#undef S
  if (sig > 0 && sig < (int)(sizeof names / sizeof *names) && names[sig]) return names[sig];
  return sig >= SIGRTMIN && sig <= SIGRTMAX ? "real-time signal" : "unknown signal";
}

static void kill_all(int sig) {
  for (int r = 0; r < job.nranks; r++)
    if (job.ranks[r].alive) kill(job.ranks[r].pid, sig);
}

/* Last resort (out of memory, poll failure): kill and reap everything. */
static void emergency(const char *what) {
  fprintf(stderr, "gexrun: %s: %s; killing the job\n", what, strerror(errno));
  kill_all(SIGKILL);
  for (int r = 0; r < job.nranks; r++)
    while (job.ranks[r].alive && waitpid(job.ranks[r].pid, NULL, 0) < 0 && errno == EINTR) {
    }
  exit(1);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) emergency("out of memory");
  return p;
}

static void set_deadline(int ms) {
  int64_t t = now_ms() + ms;
  if (!job.deadline || t < job.deadline) job.deadline = t;
}

/* ---- output ---- */

static struct msg *msg_new(uint32_t type, int32_t arg0, int32_t arg1, const void *payload,
                           size_t len) {
  struct gexi_wire_hdr h = {type, (uint32_t)len, arg0, arg1};
  struct msg *m = xmalloc(sizeof *m + sizeof h + len);
  m->refs = 1;
  m->len = sizeof h + len;
  memcpy(m->data, &h, sizeof h);
  if (len && payload) memcpy(m->data + sizeof h, payload, len);
  return m;
}

static void msg_unref(struct msg *m) {
  if (--m->refs == 0) free(m);
}

static void drop_output(struct rank *k) {
  while (k->out_head) {
    struct outq *q = k->out_head;
    k->out_head = q->next;
    msg_unref(q->m);
    free(q);
  }
  k->out_tail = NULL;
  k->out_off = 0;
}

/* Send as much queued output as the socket takes without blocking. */
static void flush(struct rank *k) {
  while (k->fd >= 0 && !k->wr_dead && k->out_head) {
    struct msg *m = k->out_head->m;
    ssize_t n = send(k->fd, m->data + k->out_off, m->len - k->out_off, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0) {
      /* The rank is gone.  Keep reading: its last frames may still be queued
       * for us, and its exit is reported through SIGCHLD. */
      k->wr_dead = 1;
      drop_output(k);
      return;
    }
    k->out_off += (size_t)n;
    if (k->out_off == m->len) {
      struct outq *q = k->out_head;
      k->out_head = q->next;
      if (!k->out_head) k->out_tail = NULL;
      k->out_off = 0;
      msg_unref(m);
      free(q);
    }
  }
}

static void enqueue(struct rank *k, struct msg *m) {
  if (k->fd < 0 || k->wr_dead) return;
  struct outq *q = xmalloc(sizeof *q);
  q->m = m;
  q->next = NULL;
  m->refs++;
  if (k->out_tail) k->out_tail->next = q;
  else k->out_head = q;
  k->out_tail = q;
  flush(k);
}

/* Queue m to every rank still connected except 'except'; consumes m. */
static void broadcast(struct msg *m, int except) {
  for (int r = 0; r < job.nranks; r++)
    if (r != except) enqueue(&job.ranks[r], m);
  msg_unref(m);
}

static void close_rank(struct rank *k) {
  if (k->fd >= 0) close(k->fd);
  k->fd = -1;
  drop_output(k);
  free(k->in);
  k->in = NULL;
  k->hdr_got = k->in_got = 0;
}

/* ---- ending the job ---- */

/* A death or a protocol error: tell every rank, kill survivors after a grace. */
static void fail_job(int r, const char *why) {
  job.failed = 1;
  if (job.ending) return;
  job.ending = 1;
  broadcast(msg_new(GEXI_WIRE_DIED, 1, r, why, strlen(why)), -1);
  set_deadline(KILL_GRACE_MS);
}

static void describe_exit(int st, char *buf, size_t n, int death) {
  if (WIFSIGNALED(st))
    snprintf(buf, n, "was killed by signal %d (%s)", WTERMSIG(st), signame(WTERMSIG(st)));
  else
    snprintf(buf, n, "exited with status %d%s", WEXITSTATUS(st),
             death ? " without calling gasnet_exit" : "");
}

static void report_death(int r) {
  char why[128];
  describe_exit(job.ranks[r].status, why, sizeof why, 1);
  fprintf(stderr, "gexrun: rank %d (pid %d) %s; ending the job\n", r, (int)job.ranks[r].pid, why);
  fail_job(r, why);
}

static void protocol_error(int r, const char *what) {
  fprintf(stderr, "gexrun: rank %d: protocol error: %s; ending the job\n", r, what);
  fail_job(r, "broke the protocol with gexrun");
  close_rank(&job.ranks[r]); /* the stream is out of step: read nothing more */
}

/* EXIT or ABORT from rank r: the first one decides the job's exit code. */
static void job_exit(int r, uint32_t type, int32_t code) {
  job.ranks[r].said_exit = 1;
  if (job.ending) return;
  job.ending = 1;
  job.have_code = 1;
  job.job_code = type == GEXI_WIRE_ABORT && code == 0 ? 1 : code;
  broadcast(msg_new(type, code, r, NULL, 0), r);
  set_deadline(EXIT_GRACE_MS);
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

/* Complete every round for which all ranks have contributed. */
static void ag_progress(void) {
  while (!job.ending && job.ag_ready == job.nranks) {
    uint32_t len = job.ranks[0].ag_head->len;
    for (int r = 1; r < job.nranks; r++) {
      if (job.ranks[r].ag_head->len != len) {
        fprintf(stderr,
                "gexrun: all-gather round %llu: rank 0 contributed %u bytes but rank %d "
                "contributed %u; ending the job\n",
                job.ag_round, len, r, job.ranks[r].ag_head->len);
        fail_job(r, "made an all-gather contribution of the wrong length");
        return;
      }
    }
    uint64_t total = (uint64_t)len * (uint64_t)job.nranks;
    if (total > GEXI_WIRE_MAX_PAYLOAD) {
      fprintf(stderr, "gexrun: all-gather round %llu: result of %llu bytes is too large; ending "
              "the job\n", job.ag_round, (unsigned long long)total);
      fail_job(0, "started an all-gather that is too large");
      return;
    }
    struct msg *m = msg_new(GEXI_WIRE_ALLGATHER, 0, 0, NULL, (size_t)total);
    char *out = m->data + sizeof(struct gexi_wire_hdr);
    for (int r = 0; r < job.nranks; r++) {
      struct contrib *c = ag_pop(&job.ranks[r]);
      if (len) memcpy(out + (size_t)r * len, c->data, len);
      free(c);
    }
    job.ag_round++;
    broadcast(m, -1);
  }
}

/* ---- input ---- */

static void dispatch(int r) {
  struct rank *k = &job.ranks[r];
  struct gexi_wire_hdr h = k->hdr;
  struct contrib *c = k->in;
  k->in = NULL;
  k->hdr_got = k->in_got = 0;
  if (h.type != GEXI_WIRE_HELLO && !k->hello) {
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
    default: /* EXIT, ABORT (check_header let nothing else through) */
      job_exit(r, h.type, h.arg0);
      return;
  }
}

static int check_header(int r) {
  const struct gexi_wire_hdr *h = &job.ranks[r].hdr;
  char what[96];
  if (h->type < GEXI_WIRE_HELLO || h->type > GEXI_WIRE_ABORT)
    snprintf(what, sizeof what, "unknown frame type %u", h->type);
  else if (h->len > GEXI_WIRE_MAX_PAYLOAD)
    snprintf(what, sizeof what, "frame length %u exceeds the limit", h->len);
  else if (h->len && h->type != GEXI_WIRE_ALLGATHER)
    snprintf(what, sizeof what, "frame type %u with a %u-byte payload", h->type, h->len);
  else
    return 1;
  protocol_error(r, what);
  return 0;
}

/* Read and handle everything rank r has sent so far. */
static void read_rank(int r) {
  struct rank *k = &job.ranks[r];
  while (k->fd >= 0) {
    char *p;
    size_t want;
    if (k->hdr_got < sizeof k->hdr) {
      p = (char *)&k->hdr + k->hdr_got;
      want = sizeof k->hdr - k->hdr_got;
    } else {
      p = k->in->data + k->in_got;
      want = k->hdr.len - k->in_got;
    }
    ssize_t n = recv(k->fd, p, want, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) { /* EOF or error: stop listening; the exit comes via SIGCHLD */
      close_rank(k);
      return;
    }
    if (k->hdr_got < sizeof k->hdr) {
      k->hdr_got += (size_t)n;
      if (k->hdr_got < sizeof k->hdr) continue;
      if (!check_header(r)) return;
      if (k->hdr.type == GEXI_WIRE_ALLGATHER) {
        k->in = xmalloc(sizeof *k->in + k->hdr.len);
        k->in->len = k->hdr.len;
      }
    } else {
      k->in_got += (size_t)n;
    }
    if (k->in_got == k->hdr.len) dispatch(r);
  }
}

/* ---- children ---- */

static void rank_exited(int r, int st) {
  struct rank *k = &job.ranks[r];
  k->alive = 0;
  k->status = st;
  job.nalive--;
  if (k->fd >= 0) { /* it may have written EXIT just before ending */
    read_rank(r);
    close_rank(k);
  }
  if (job.verbose) {
    char how[128];
    describe_exit(st, how, sizeof how, 0);
    fprintf(stderr, "gexrun: rank %d (pid %d) %s\n", r, (int)k->pid, how);
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) > job.max_status) job.max_status = WEXITSTATUS(st);
  if (k->said_exit || job.ending) return;
  if (!k->hello && !job.any_hello && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
    k->quiet_exit = 1; /* a plain program, so far */
    return;
  }
  report_death(r);
}

static void reap(void) {
  for (;;) {
    int st;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid < 0 && errno == EINTR) continue;
    if (pid <= 0) return;
    for (int r = 0; r < job.nranks; r++)
      if (job.ranks[r].alive && job.ranks[r].pid == pid) {
        rank_exited(r, st);
        break;
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
  if (job.verbose) fprintf(stderr, "gexrun: got %s; terminating the ranks\n", signame(sig));
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


static void child(int r, int fd, pid_t parent, const char *jobid, char **argv) {
  int bfd = fcntl(fd, F_DUPFD, 3); /* the copy has no FD_CLOEXEC */
  if (bfd < 0) {
    fprintf(stderr, "gexrun: rank %d: %s\n", r, strerror(errno));
    _exit(127);
  }
  close(fd);
  char buf[32];
  snprintf(buf, sizeof buf, "%d", r);
  setenv("GEX_RANK", buf, 1);
  snprintf(buf, sizeof buf, "%d", job.nranks);
  setenv("GEX_SIZE", buf, 1);
  snprintf(buf, sizeof buf, "%d", bfd);
  setenv("GEX_BOOT_FD", buf, 1);
  setenv("GEX_JOBID", jobid, 1);
  /* Die with gexrun; if it is already gone, the death signal was missed. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
  /* Undo what gexrun changed: SIGPIPE/SIGCHLD dispositions and the mask. */
  sigaction(SIGPIPE, &job.old_pipe, NULL);
  sigaction(SIGCHLD, &job.old_chld, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  execvp(argv[0], argv);
  fprintf(stderr, "gexrun: cannot execute '%s': %s\n", argv[0], strerror(errno));
  _exit(127);
}

static int spawn(int r, const char *jobid, char **argv) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    fprintf(stderr, "gexrun: cannot create the socket for rank %d: %s\n", r, strerror(errno));
    return -1;
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "gexrun: cannot start rank %d: %s\n", r, strerror(errno));
    close(sv[0]);
    close(sv[1]);
    return -1;
  }
  if (pid == 0) child(r, sv[1], parent, jobid, argv);
  close(sv[1]);
  job.ranks[r].fd = sv[0];
  job.ranks[r].pid = pid;
  job.ranks[r].alive = 1;
  job.nalive++;
  if (job.verbose) fprintf(stderr, "gexrun: rank %d started (pid %d)\n", r, (int)pid);
  return 0;
}

/* ---- main ---- */

static void usage(void) {
  fprintf(stderr, "usage: gexrun -n N [--] program [args...]\n");
  exit(2);
}

static int parse_n(const char *s) {
  if (!s || *s < '0' || *s > '9') return -1;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  return errno || *end || v < 1 || v > MAX_RANKS ? -1 : (int)v;
}

int main(int argc, char **argv) {
  int n = -1, i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) {
      i++;
      break;
    } else if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--np")) {
      if (++i >= argc || (n = parse_n(argv[i])) < 0) usage();
    } else if (!strncmp(a, "--np=", 5)) {
      if ((n = parse_n(a + 5)) < 0) usage();
    } else if (!strncmp(a, "-n", 2) && a[2] >= '0' && a[2] <= '9') {
      if ((n = parse_n(a + 2)) < 0) usage();
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      printf("usage: gexrun -n N [--] program [args...]\n"
             "Run N copies of program on this host as the ranks of one libgex \n"
             "  -n, -np, --np N  number of ranks (N >= 1)\n"
             "  -h, --help       show this help\n"
             "  --version        show the version\n"
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
  char **prog = argv + i;
  const char *v = getenv("GEXRUN_VERBOSE");
  job.verbose = v && *v && strcmp(v, "0") != 0;

  /* Descriptors 0-2 must exist, or a socket could land there. */
  for (int fd = 0; fd < 3; fd++)
    if (fcntl(fd, F_GETFD) < 0) open("/dev/null", O_RDWR);

  /* Signals: a rank that died must not kill us through SIGPIPE; SIGCHLD must
   * not be ignored (children would be reaped behind our back).  Terminating
   * signals that we inherited as ignored (nohup) stay ignored. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, &job.old_pipe);
  sa.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &sa, &job.old_chld);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  const int term_sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t s = 0; s < sizeof term_sigs / sizeof *term_sigs; s++) {
    struct sigaction cur;
    sigaction(term_sigs[s], NULL, &cur);
    if (cur.sa_handler != SIG_IGN) sigaddset(&set, term_sigs[s]);
  }
  sigprocmask(SIG_BLOCK, &set, NULL);
  int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sfd < 0) {
    fprintf(stderr, "gexrun: signalfd: %s\n", strerror(errno));
    return 1;
  }

  uint32_t rnd;
  if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
    rnd = (uint32_t)now_ms() ^ ((uint32_t)getpid() << 16);
  char jobid[64];
  snprintf(jobid, sizeof jobid, "gex-%d-%08x", (int)getpid(), rnd);

  job.nranks = n;
  job.ranks = calloc((size_t)n, sizeof *job.ranks);
  struct pollfd *pfd = calloc((size_t)n + 1, sizeof *pfd);
  int *who = calloc((size_t)n + 1, sizeof *who);
  if (!job.ranks || !pfd || !who) {
    fprintf(stderr, "gexrun: out of memory for %d ranks\n", n);
    return 1;
  }
  for (int r = 0; r < n; r++) job.ranks[r].fd = -1;
  if (job.verbose) fprintf(stderr, "gexrun: job %s: %d rank(s) of %s\n", jobid, n, prog[0]);
  for (int r = 0; r < n; r++) {
    if (spawn(r, jobid, prog) != 0) { /* could not start them all: undo */
      job.failed = job.ending = 1;
      kill_all(SIGKILL);
      break;
    }
  }

  while (job.nalive > 0) {
    int np = 0;
    pfd[np++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    for (int r = 0; r < n; r++) {
      struct rank *k = &job.ranks[r];
      if (k->fd < 0) continue;
      pfd[np] = (struct pollfd){.fd = k->fd, .events = POLLIN};
      if (k->out_head && !k->wr_dead) pfd[np].events |= POLLOUT;
      who[np++] = r;
    }
    int timeout = -1;
    if (job.deadline) {
      int64_t left = job.deadline - now_ms();
      timeout = left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
    }
    if (poll(pfd, (nfds_t)np, timeout) < 0) {
      if (errno == EINTR) continue;
      emergency("poll");
    }
    for (int p = 1; p < np; p++) {
      struct rank *k = &job.ranks[who[p]];
      if (k->fd != pfd[p].fd) continue; /* closed meanwhile */
      if (pfd[p].revents & POLLOUT) flush(k);
      if (pfd[p].revents & (POLLIN | POLLHUP | POLLERR)) read_rank(who[p]);
    }
    if (pfd[0].revents) handle_signals(sfd);
    if (job.deadline && now_ms() >= job.deadline) {
      job.deadline = 0;
      int left = 0;
      for (int r = 0; r < n; r++) left += job.ranks[r].alive;
      if (left) {
        fprintf(stderr, "gexrun: killing %d rank(s) that did not end in time\n", left);
        kill_all(SIGKILL);
      }
    }
  }

  /* Free everything, so that leak checkers (ASan builds) stay quiet. */
  for (int r = 0; r < n; r++) {
    close_rank(&job.ranks[r]);
    while (job.ranks[r].ag_head) free(ag_pop(&job.ranks[r]));
  }
  free(job.ranks);
  free(pfd);
  free(who);
  close(sfd);

  if (job.got_signal) return 128 + job.got_signal;
  if (job.have_code) return job.job_code;
  if (job.failed) return 1;
  return job.max_status;
}

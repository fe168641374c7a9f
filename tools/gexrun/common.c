/* common.c -- see common.h. */
#include "common.h"
#include "core/env_parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int64_t gx_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *gx_signame(int sig) {
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

void *gx_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "gexrun: out of memory; ending\n");
    _exit(1);
  }
  return p;
}

int gx_remove_job_shm(const char *jobid) {
  size_t n = strlen(jobid);
  int removed = 0;
  DIR *d = opendir("/dev/shm");
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, jobid, n) != 0 || e->d_name[n] != '.') continue;
    if (unlinkat(dirfd(d), e->d_name, 0) == 0) removed++;
  }
  closedir(d);
  return removed;
}

char gx_proc_state(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  const char *p = strrchr(buf, ')'); /* the command name may hold anything but ends at ')' */
  return p && p[1] == ' ' ? p[2] : 0;
}

void gx_set_nonblock(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int gx_write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd pf = {.fd = fd, .events = POLLOUT};
      poll(&pf, 1, 1000);
      continue;
    }
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* ---- environment ---- */

const char *gx_env_string(const char *name) {
  const char *s = getenv(name);
  return s && *s ? s : NULL;
}

int gx_env_switch(const char *name, int dflt) {
  const char *s = gx_env_string(name);
  char why[160];
  int v;
  if (!s) return dflt;
  if (gexi_parse_switch(s, &v, why, sizeof why) != 0) {
    fprintf(stderr, "gexrun: %s='%s': %s\n", name, s, why);
    exit(2);
  }
  return v;
}

uint64_t gx_env_count(const char *name, uint64_t dflt, uint64_t min, uint64_t max) {
  const char *s = gx_env_string(name);
  char why[160];
  uint64_t v;
  if (!s) return dflt;
  if (gexi_parse_count(s, min, max, &v, why, sizeof why) != 0) {
    fprintf(stderr, "gexrun: %s='%s': %s\n", name, s, why);
    exit(2);
  }
  return v;
}

uint64_t gx_env_exit_timeout_ms(uint64_t ranks) {
  const char *val[4];
  for (int i = 0; i < 4; i++) val[i] = gx_env_string(gexi_exit_timeout_vars[i]);
  char why[160];
  uint64_t ms;
  int bad;
  if (gexi_exit_timeout(val, ranks, &ms, &bad, why, sizeof why) != 0) {
    fprintf(stderr, "gexrun: %s='%s': %s\n", gexi_exit_timeout_vars[bad], val[bad], why);
    exit(2);
  }
  return ms;
}

/* ---- frames and links ---- */

struct gx_msg *gx_msg_new2(uint32_t type, int32_t arg0, int32_t arg1, const void *p1, size_t l1,
                           const void *p2, size_t l2) {
  struct gexi_wire_hdr h = {type, (uint32_t)(l1 + l2), arg0, arg1};
  struct gx_msg *m = gx_xmalloc(sizeof *m + sizeof h + l1 + l2);
  m->refs = 1;
  m->len = sizeof h + l1 + l2;
  memcpy(m->data, &h, sizeof h);
  if (l1 && p1) memcpy(m->data + sizeof h, p1, l1);
  if (l2 && p2) memcpy(m->data + sizeof h + l1, p2, l2);
  return m;
}

struct gx_msg *gx_msg_new(uint32_t type, int32_t arg0, int32_t arg1, const void *payload,
                          size_t len) {
  return gx_msg_new2(type, arg0, arg1, payload, len, NULL, 0);
}

void gx_msg_unref(struct gx_msg *m) {
  if (--m->refs == 0) free(m);
}

void gx_link_init(struct gx_link *l, int rfd, int wfd) {
  memset(l, 0, sizeof *l);
  l->rfd = rfd;
  l->wfd = wfd;
}

static void drop_output(struct gx_link *l) {
  while (l->head) {
    struct gx_outq *q = l->head;
    l->head = q->next;
    gx_msg_unref(q->m);
    free(q);
  }
  l->tail = NULL;
  l->off = 0;
}

void gx_link_flush(struct gx_link *l) {
  while (l->wfd >= 0 && !l->wr_dead && l->head) {
    struct gx_msg *m = l->head->m;
    ssize_t n = write(l->wfd, m->data + l->off, m->len - l->off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      /* The peer is gone.  Keep reading: its last frames may still be
       * waiting for us; its end is noticed through EOF or SIGCHLD. */
      l->wr_dead = 1;
      drop_output(l);
      return;
    }
    l->off += (size_t)n;
    if (l->off == m->len) {
      struct gx_outq *q = l->head;
      l->head = q->next;
      if (!l->head) l->tail = NULL;
      l->off = 0;
      gx_msg_unref(m);
      free(q);
    }
  }
}

void gx_link_send(struct gx_link *l, struct gx_msg *m) {
  if (l->wfd < 0 || l->wr_dead) return;
  struct gx_outq *q = gx_xmalloc(sizeof *q);
  q->m = m;
  q->next = NULL;
  m->refs++;
  if (l->tail) l->tail->next = q;
  else l->head = q;
  l->tail = q;
  gx_link_flush(l);
}

int gx_link_pending(const struct gx_link *l) {
  return l->wfd >= 0 && !l->wr_dead && l->head != NULL;
}

void gx_link_close(struct gx_link *l) {
  if (l->rfd >= 0) close(l->rfd);
  if (l->wfd >= 0 && l->wfd != l->rfd) close(l->wfd);
  l->rfd = l->wfd = -1;
  drop_output(l);
  free(l->in);
  l->in = NULL;
  l->hdr_got = l->in_got = 0;
}

int gx_link_read(struct gx_link *l, uint32_t max, gx_frame_cb *cb, void *ctx) {
  while (l->rfd >= 0) {
    char *p;
    size_t want;
    if (l->hdr_got < sizeof l->hdr) {
      p = (char *)&l->hdr + l->hdr_got;
      want = sizeof l->hdr - l->hdr_got;
    } else {
      p = l->in + l->in_got;
      want = l->hdr.len - l->in_got;
    }
    ssize_t n = want ? read(l->rfd, p, want) : 0;
    if (want) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
      if (n <= 0) return -1;
    }
    if (l->hdr_got < sizeof l->hdr) {
      l->hdr_got += (size_t)n;
      if (l->hdr_got < sizeof l->hdr) continue;
      if (l->hdr.len > max) {
        gx_link_close(l);
        return -2;
      }
      l->in = gx_xmalloc((size_t)l->hdr.len + 1);
      l->in_got = 0;
    } else {
      l->in_got += (size_t)n;
    }
    if (l->in_got == l->hdr.len) {
      struct gexi_wire_hdr h = l->hdr;
      char *payload = l->in;
      payload[h.len] = 0;
      l->in = NULL;
      l->hdr_got = l->in_got = 0;
      cb(ctx, &h, payload);
      free(payload);
    }
  }
  return -1;
}

/* ---- ranks ---- */

pid_t gx_spawn_rank(const struct gx_rank_spec *s, int *boot_fd) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    fprintf(stderr, "gexrun: cannot create the socket for rank %d: %s\n", s->rank,
            strerror(errno));
    return -1;
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "gexrun: cannot start rank %d: %s\n", s->rank, strerror(errno));
    close(sv[0]);
    close(sv[1]);
    return -1;
  }
  if (pid > 0) {
    close(sv[1]);
    *boot_fd = sv[0];
    return pid;
  }
  /* The child. */
  if (s->in_fd >= 0 && dup2(s->in_fd, 0) < 0) _exit(127);
  for (int i = 0; i < 2; i++)
    if (s->out_fd[i] >= 0 && dup2(s->out_fd[i], i + 1) < 0) _exit(127);
  int bfd = fcntl(sv[1], F_DUPFD, 3); /* the copy has no FD_CLOEXEC */
  if (bfd < 0) {
    fprintf(stderr, "gexrun: rank %d: %s\n", s->rank, strerror(errno));
    _exit(127);
  }
  char buf[32];
  snprintf(buf, sizeof buf, "%d", s->rank);
  setenv("GEX_RANK", buf, 1);
  snprintf(buf, sizeof buf, "%d", s->size);
  setenv("GEX_SIZE", buf, 1);
  snprintf(buf, sizeof buf, "%d", bfd);
  setenv("GEX_BOOT_FD", buf, 1);
  setenv("GEX_JOBID", s->jobid, 1);
  if (s->old_nofile) setrlimit(RLIMIT_NOFILE, s->old_nofile); /* as the user set it */
  /* Die with the parent; if it is already gone, the death signal was missed. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
  /* Undo what gexrun changed: SIGPIPE/SIGCHLD dispositions and the mask. */
  sigaction(SIGPIPE, s->old_pipe, NULL);
  sigaction(SIGCHLD, s->old_chld, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  execvp(s->argv[0], s->argv);
  /* A shell's statuses: 127 when there is no such program, 126 when it
   * cannot be run (docs/gexrun.md, "Exit status"). */
  const int e = errno;
  fprintf(stderr, "gexrun: cannot execute '%s': %s\n", s->argv[0], strerror(e));
  _exit(e == ENOENT || e == ENOTDIR ? 127 : 126);
}

/* ---- capacity of this host ---- */

/* The first number in a file ("max" reads as -1), or -2 if unreadable. */
static long long file_number(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -2;
  char buf[64] = "";
  long long v = -2;
  if (fgets(buf, sizeof buf, f)) v = strncmp(buf, "max", 3) == 0 ? -1 : strtoll(buf, NULL, 10);
  fclose(f);
  return v;
}

/* Tasks (threads of every process) whose real user is uid: what the kernel
 * counts against RLIMIT_NPROC. */
static long long user_tasks(uid_t uid) {
  DIR *d = opendir("/proc");
  if (!d) return -1;
  long long n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    char path[300], line[256];
    snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue; /* gone meanwhile */
    long long who = -1, threads = 1;
    while (fgets(line, sizeof line, f)) {
      if (!strncmp(line, "Uid:", 4)) who = strtoll(line + 4, NULL, 10);
      else if (!strncmp(line, "Threads:", 8)) {
        threads = strtoll(line + 8, NULL, 10);
        break; /* Uid: comes first */
      }
    }
    fclose(f);
    if (who == (long long)uid) n += threads;
  }
  closedir(d);
  return n;
}

/* Tasks on the system: the "running/total" field of /proc/loadavg. */
static long long system_tasks(void) {
  FILE *f = fopen("/proc/loadavg", "r");
  if (!f) return -1;
  char buf[128] = "";
  long long n = -1;
  if (fgets(buf, sizeof buf, f)) {
    char *slash = strchr(buf, '/');
    if (slash) n = strtoll(slash + 1, NULL, 10);
  }
  fclose(f);
  return n;
}

/* The fewest tasks the pids controller lets our cgroup (and its ancestors)
 * add, or -1 for no limit.  *where: the cgroup directory that limits. */
static long long cgroup_room(char *where, size_t len) {
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (!f) return -1;
  long long room = -1;
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2) continue;
    *c2 = 0;
    const char *ctrls = c1 + 1, *path = c2 + 1;
    const char *root;
    if (!*ctrls) { /* cgroup v2 */
      if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) root = "/sys/fs/cgroup";
      else root = "/sys/fs/cgroup/unified";
    } else {
      int has_pids = 0;
      char tmp[256];
      snprintf(tmp, sizeof tmp, "%s", ctrls);
      for (char *sv = NULL, *t = strtok_r(tmp, ",", &sv); t; t = strtok_r(NULL, ",", &sv))
        if (!strcmp(t, "pids")) has_pids = 1;
      if (!has_pids) continue;
      root = "/sys/fs/cgroup/pids";
    }
    char dir[4400];
    snprintf(dir, sizeof dir, "%s%s", root, path);
    for (;;) { /* this cgroup, then each ancestor up to the root */
      char p[4500];
      snprintf(p, sizeof p, "%s/pids.max", dir);
      long long max = file_number(p);
      snprintf(p, sizeof p, "%s/pids.current", dir);
      long long cur = file_number(p);
      if (max >= 0 && cur >= 0 && (room < 0 || max - cur < room)) {
        room = max > cur ? max - cur : 0;
        snprintf(where, len, "%.*s", (int)len - 1, dir);
      }
      char *slash = strrchr(dir, '/');
      if (!slash || (size_t)(slash - dir) < strlen(root)) break;
      *slash = 0;
    }
  }
  fclose(f);
  return room;
}

int gx_check_capacity(int nranks, int fds_per_rank, struct rlimit *old_nofile, char *why,
                      size_t len) {
  const long long need = (long long)nranks * GX_TASKS_PER_RANK;
  char each[96];
  snprintf(each, sizeof each, "%d rank(s) need at least %lld (%d each)", nranks, need,
           GX_TASKS_PER_RANK);
  struct rlimit rl;
  if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    long long have = user_tasks(getuid());
    if (have >= 0 && need > (long long)rl.rlim_cur - have) {
      snprintf(why, len, "this user may run %llu tasks (ulimit -u) and already runs %lld; %s",
               (unsigned long long)rl.rlim_cur, have, each);
      return -1;
    }
  }
  long long pid_max = file_number("/proc/sys/kernel/pid_max");
  long long threads_max = file_number("/proc/sys/kernel/threads-max");
  long long total = system_tasks();
  long long sys_max = pid_max > 0 && (threads_max <= 0 || pid_max < threads_max) ? pid_max
                                                                                  : threads_max;
  if (sys_max > 0 && total >= 0 && need > sys_max - total) {
    snprintf(why, len, "the system runs %lld tasks of at most %lld (kernel.pid_max %lld, "
             "kernel.threads-max %lld); %s", total, sys_max, pid_max, threads_max, each);
    return -1;
  }
  char cg[256] = "";
  long long room = cgroup_room(cg, sizeof cg);
  if (room >= 0 && need > room) {
    snprintf(why, len, "the pids controller of cgroup %s allows %lld more tasks; %s", cg, room,
             each);
    return -1;
  }
  /* Descriptors: ours to each rank, plus a margin for everything else. */
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    *old_nofile = rl;
    const rlim_t fds = (rlim_t)nranks * (rlim_t)fds_per_rank + 64;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < fds) {
      if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < fds) {
        snprintf(why, len, "gexrun needs %llu file descriptors for them and may open at most "
                 "%llu (ulimit -Hn)", (unsigned long long)fds, (unsigned long long)rl.rlim_max);
        return -1;
      }
      struct rlimit more = {fds, rl.rlim_max};
      if (setrlimit(RLIMIT_NOFILE, &more) != 0) {
        snprintf(why, len, "gexrun needs %llu file descriptors for them and cannot raise its "
                 "limit of %llu (ulimit -n): %s", (unsigned long long)fds,
                 (unsigned long long)rl.rlim_cur, strerror(errno));
        return -1;
      }
    }
  }
  return 0;
}

int gx_signals_setup(struct sigaction *old_pipe, struct sigaction *old_chld) {
  /* A peer that died must not kill us through SIGPIPE; SIGCHLD must not be
   * ignored (children would be reaped behind our back).  Terminating signals
   * that we inherited as ignored (nohup) stay ignored. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, old_pipe);
  sa.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &sa, old_chld);
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
  if (sfd < 0) fprintf(stderr, "gexrun: signalfd: %s\n", strerror(errno));
  return sfd;
}

int gx_drain_signals(int sfd, void (*on)(int sig, void *arg), void *arg) {
  struct signalfd_siginfo si[16];
  int chld = 0;
  for (;;) {
    ssize_t n = read(sfd, si, sizeof si);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (size_t i = 0; i < (size_t)n / sizeof *si; i++) {
      if (si[i].ssi_signo == SIGCHLD) chld = 1;
      else on((int)si[i].ssi_signo, arg);
    }
  }
  return chld;
}

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
 * Timers are poll timeouts on the monotonic clock.  This file holds the
 * options, the placement and that loop; the job_*.c files hold one concern
 * each, around the one job structure of job.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/env_parse.h"
#include "job.h"
#include "proxy.h"

#ifndef GEXRUN_VERSION
#define GEXRUN_VERSION "unknown"
#endif

struct job job;

void set_deadline(int64_t ms) {
  int64_t t = gx_now_ms() + ms;
  if (!job.deadline || t < job.deadline) job.deadline = t;
}

/* "2,3" or "4-7": the ranks of a list, compressed into ranges. */
void rank_list(const int *rs, int n, char *buf, size_t len) {
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

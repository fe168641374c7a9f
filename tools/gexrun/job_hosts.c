/* job_hosts.c -- gexrun: the other hosts of a job: starting each one's
 * proxy through the remote shell, the frames its link relays, and a host
 * lost. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "job.h"

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

void host_lost_status(int i) {
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

void read_host(int i) {
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
void host_exited(int i, int st) {
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

int spawn_host(int i, const char *cwd, const char *self) {
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

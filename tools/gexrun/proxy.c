/* proxy.c -- "gexrun --proxy": the part of a job that runs on another host.
 *
 * gexrun starts it through the remote shell ($GEX_RSH host gexrun --proxy);
 * its stdin and stdout are the link to gexrun (frames GEXI_PX_*, see
 * bootstrap/wire.h).  The proxy receives the job description (PX_SETUP),
 * starts its share of the ranks exactly like gexrun starts local ranks, and
 * then only relays bytes: what a rank writes on its bootstrap socket, stdout
 * or stderr goes up to gexrun, what gexrun sends for a rank goes down to its
 * socket.  It never interprets the rank frames; gexrun does.  When a rank
 * ends, everything it wrote is relayed first, then its wait status.  EOF from
 * gexrun, or a terminating signal, kills every rank.  One poll() loop, all
 * descriptors non-blocking; the whole state is one struct proxy on main's
 * stack.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "proxy.h"

struct px_rank {
  int rank;
  pid_t pid;
  int alive;
  struct gx_link sock; /* the rank's bootstrap socket (rfd == wfd) */
  int out[2];          /* our ends of its stdout and stderr pipes, -1 once closed */
};

struct proxy {
  struct gx_link up; /* to gexrun: rfd from our stdin, wfd to our stdout */
  const char *host;
  const char *jobid;
  int size;     /* of the job */
  int first, count, nalive, started;
  int next;     /* index of the next rank to start (they start a batch per turn) */
  int devnull;  /* stdin of the ranks */
  int orphaned; /* gexrun is gone, or we were told to die by a signal */
  struct px_rank *ranks;
  char *setup;  /* the PX_SETUP payload; the strings below point into it */
  char **str;   /* its strings, NULL-terminated */
  char **argv;  /* the program and its arguments: the tail of str */
  struct sigaction old_pipe, old_chld;
  struct rlimit old_nofile; /* the descriptor limit to give back to the ranks */
};

static void up_send(struct proxy *p, uint32_t type, int32_t a0, int32_t a1, const void *d,
                    size_t n) {
  struct gx_msg *m = gx_msg_new(type, a0, a1, d, n);
  gx_link_send(&p->up, m);
  gx_msg_unref(m);
}

static void kill_ranks(struct proxy *p, int sig) {
  for (int i = 0; i < p->count; i++)
    if (p->ranks[i].alive) kill(p->ranks[i].pid, sig);
}

static void lost_gexrun(struct proxy *p) {
  if (p->orphaned) return;
  p->orphaned = 1;
  kill_ranks(p, SIGKILL);
}

static void on_signal_lost(int sig, void *arg) {
  (void)sig;
  lost_gexrun(arg);
}

/* Relay what rank i wrote on its socket (0) or stdout/stderr (1, 2). */
static void relay(struct proxy *p, int i, int what) {
  struct px_rank *k = &p->ranks[i];
  int *fdp = what == 0 ? &k->sock.rfd : &k->out[what - 1];
  char buf[65536];
  while (*fdp >= 0) {
    ssize_t n = read(*fdp, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      if (what == 0) gx_link_close(&k->sock);
      else {
        close(*fdp);
        *fdp = -1;
      }
      return;
    }
    if (what == 0) up_send(p, GEXI_PX_FROM_RANK, k->rank, 0, buf, (size_t)n);
    else up_send(p, GEXI_PX_OUTPUT, k->rank, what, buf, (size_t)n);
  }
}

static void reap(struct proxy *p) {
  for (;;) {
    int st;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid < 0 && errno == EINTR) continue;
    if (pid <= 0) return;
    for (int i = 0; i < p->count; i++) {
      struct px_rank *k = &p->ranks[i];
      if (!k->alive || k->pid != pid) continue;
      k->alive = 0;
      p->nalive--;
      for (int w = 0; w < 3; w++) relay(p, i, w); /* its last words first */
      gx_link_close(&k->sock);
      for (int s = 0; s < 2; s++)
        if (k->out[s] >= 0) {
          close(k->out[s]);
          k->out[s] = -1;
        }
      up_send(p, GEXI_PX_EXITED, k->rank, st, NULL, 0);
      break;
    }
  }
}

/* PX_SETUP: check it and get ready to start the ranks. */
static int setup(struct proxy *p, const struct gexi_wire_hdr *h, char *payload) {
  p->setup = gx_xmalloc((size_t)h->len + 1);
  memcpy(p->setup, payload, (size_t)h->len + 1);
  /* Split into strings. */
  size_t nstr = 0;
  for (uint32_t i = 0; i < h->len; i++) nstr += p->setup[i] == 0;
  char **str = gx_xmalloc((nstr + 1) * sizeof *str);
  size_t k = 0;
  for (uint32_t i = 0; i < h->len; i += (uint32_t)strlen(p->setup + i) + 1) str[k++] = p->setup + i;
  str[k] = NULL;
  p->str = str;
  long nenv = nstr >= 5 ? strtol(str[4], NULL, 10) : -1;
  if (nstr < 6 || nenv < 0 || (size_t)nenv + 6 > nstr || h->arg1 < 1 || h->arg0 < 0) {
    fprintf(stderr, "gexrun --proxy: malformed job description from gexrun\n");
    return -1;
  }
  p->host = str[0];
  p->jobid = str[1];
  const char *cwd = str[3];
  p->size = (int)strtol(str[2], NULL, 10);
  if (chdir(cwd) != 0) {
    fprintf(stderr, "gexrun: host %s: cannot change to the working directory '%s': %s\n",
            p->host, cwd, strerror(errno));
    return -1;
  }
  for (long e = 0; e < nenv; e++) {
    char *eq = strchr(str[5 + e], '=');
    if (!eq || eq == str[5 + e]) continue;
    *eq = 0; /* the setup copy is ours */
    setenv(str[5 + e], eq + 1, 1);
    *eq = '=';
  }
  p->argv = str + 5 + nenv; /* NULL-terminated */
  p->first = h->arg0;
  p->count = h->arg1;
  char why[512];
  if (gx_check_capacity(p->count, 3, &p->old_nofile, why, sizeof why) != 0) {
    fprintf(stderr, "gexrun: host %s: cannot start %d rank(s): %s\n", p->host, p->count, why);
    return -1;
  }
  p->ranks = calloc((size_t)p->count, sizeof *p->ranks);
  if (!p->ranks) {
    fprintf(stderr, "gexrun: host %s: out of memory\n", p->host);
    return -1;
  }
  for (int i = 0; i < p->count; i++) {
    p->ranks[i].rank = p->first + i;
    gx_link_init(&p->ranks[i].sock, -1, -1);
    p->ranks[i].out[0] = p->ranks[i].out[1] = -1;
  }
  p->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  p->started = 1;
  return 0;
}

/* Start rank i of this host. */
static int spawn_one(struct proxy *p, int i) {
  struct px_rank *r = &p->ranks[i];
  int po[2], pe[2];
  if (pipe2(po, O_CLOEXEC) != 0) return -1;
  if (pipe2(pe, O_CLOEXEC) != 0) {
    close(po[0]);
    close(po[1]);
    return -1;
  }
  struct gx_rank_spec s = {.rank = r->rank, .size = p->size, .jobid = p->jobid, .argv = p->argv,
                           .in_fd = p->devnull, .out_fd = {po[1], pe[1]},
                           .old_pipe = &p->old_pipe, .old_chld = &p->old_chld,
                           .old_nofile = &p->old_nofile};
  int bfd = -1;
  pid_t pid = gx_spawn_rank(&s, &bfd);
  close(po[1]);
  close(pe[1]);
  if (pid < 0) {
    close(po[0]);
    close(pe[0]);
    return -1;
  }
  gx_set_nonblock(bfd);
  gx_set_nonblock(po[0]);
  gx_set_nonblock(pe[0]);
  gx_link_init(&r->sock, bfd, bfd);
  r->out[0] = po[0];
  r->out[1] = pe[0];
  r->pid = pid;
  r->alive = 1;
  p->nalive++;
  up_send(p, GEXI_PX_STARTED, r->rank, (int32_t)pid, NULL, 0);
  return 0;
}

/* Start the next batch of ranks; nothing more once the proxy is ending.
 * Returns whether some are still to be started. */
static int spawn_more(struct proxy *p) {
  for (int b = 0; b < GX_SPAWN_BATCH && !p->orphaned && p->next < p->count; b++) {
    if (spawn_one(p, p->next) != 0) { /* gexrun sees the host fail */
      lost_gexrun(p);
      gx_link_close(&p->up);
      break;
    }
    p->next++;
  }
  int more = !p->orphaned && p->next < p->count;
  if (!more && p->devnull >= 0) {
    close(p->devnull);
    p->devnull = -1;
  }
  return more;
}

static void on_frame(void *ctx, const struct gexi_wire_hdr *h, char *payload) {
  struct proxy *p = ctx;
  switch (h->type) {
    case GEXI_PX_SETUP:
      if (p->started || setup(p, h, payload) != 0) {
        lost_gexrun(p); /* nothing more to do here: end */
        gx_link_close(&p->up);
      }
      return;
    case GEXI_PX_TO_RANK: {
      struct gx_msg *m = gx_xmalloc(sizeof *m + h->len);
      m->refs = 1;
      m->len = h->len;
      memcpy(m->data, payload, h->len);
      for (int i = 0; i < p->count; i++) {
        int r = p->ranks[i].rank;
        if (h->arg0 == r || (h->arg0 == -1 && h->arg1 != r)) gx_link_send(&p->ranks[i].sock, m);
      }
      gx_msg_unref(m);
      return;
    }
    case GEXI_PX_SIGNAL:
      if (h->arg0 > 0 && h->arg0 < 65) kill_ranks(p, h->arg0);
      return;
    default:
      fprintf(stderr, "gexrun --proxy: unknown frame %u from gexrun\n", h->type);
      lost_gexrun(p);
      gx_link_close(&p->up);
  }
}

int gx_proxy_main(void) {
  struct proxy px;
  memset(&px, 0, sizeof px);
  struct proxy *p = &px;
  p->devnull = -1;
  /* Keep the link on private descriptors; 0 and 1 become /dev/null, so
   * nothing written to stdout by accident can corrupt the stream. */
  int rfd = fcntl(0, F_DUPFD_CLOEXEC, 3), wfd = fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (rfd < 0 || wfd < 0) {
    fprintf(stderr, "gexrun --proxy: no link to gexrun on stdin/stdout\n");
    return 1;
  }
  int nul = open("/dev/null", O_RDWR);
  if (nul >= 0) {
    dup2(nul, 0);
    dup2(nul, 1);
    if (nul > 2) close(nul);
  }
  int sfd = gx_signals_setup(&p->old_pipe, &p->old_chld);
  if (sfd < 0) return 1;
  gx_set_nonblock(rfd);
  gx_set_nonblock(wfd);
  gx_link_init(&p->up, rfd, wfd);
  up_send(p, GEXI_PX_HELLO, GX_PX_MAGIC, GX_PX_VERSION, NULL, 0);

  struct pollfd *pfd = NULL;
  int *who = NULL;
  size_t cap = 0;
  /* Run until every rank is reported and the reports are written (when
   * gexrun is gone, only until every rank is reaped). */
  int spawning = 0;
  for (;;) {
    if (p->started && (spawning || p->next == 0)) spawning = spawn_more(p);
    if (!((!p->started && p->up.rfd >= 0) || spawning || p->nalive > 0 ||
          (!p->orphaned && gx_link_pending(&p->up))))
      break;
    size_t need = 3 + 3 * (size_t)p->count; /* signals, link in and out, 3 per rank */
    if (need > cap) {
      free(pfd);
      free(who);
      cap = need;
      pfd = gx_xmalloc(cap * sizeof *pfd);
      who = gx_xmalloc(cap * sizeof *who);
    }
    int np = 0;
    pfd[np++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    pfd[np] = (struct pollfd){.fd = p->up.rfd, .events = POLLIN}; /* -1: ignored */
    who[np++] = -1;
    if (gx_link_pending(&p->up)) { /* the write side is a different descriptor */
      pfd[np] = (struct pollfd){.fd = p->up.wfd, .events = POLLOUT};
      who[np++] = -2;
    }
    for (int i = 0; i < p->count; i++) {
      struct px_rank *k = &p->ranks[i];
      if (k->sock.rfd >= 0) {
        pfd[np] = (struct pollfd){.fd = k->sock.rfd, .events = POLLIN};
        if (gx_link_pending(&k->sock)) pfd[np].events |= POLLOUT;
        who[np++] = 3 * i;
      }
      for (int s = 0; s < 2; s++)
        if (k->out[s] >= 0) {
          pfd[np] = (struct pollfd){.fd = k->out[s], .events = POLLIN};
          who[np++] = 3 * i + 1 + s;
        }
    }
    /* Between two batches of ranks only look (signals, gexrun, the ranks). */
    if (poll(pfd, (nfds_t)np, spawning ? 0 : -1) < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "gexrun --proxy: poll: %s\n", strerror(errno));
      kill_ranks(p, SIGKILL);
      return 1;
    }
    /* A terminating signal: the remote session ends, and so do the ranks. */
    if (pfd[0].revents && gx_drain_signals(sfd, on_signal_lost, p)) reap(p);
    for (int q = 1; q < np; q++) {
      if (!pfd[q].revents) continue;
      if (who[q] == -1) {
        if (pfd[q].fd != p->up.rfd) continue;
        int rc = gx_link_read(&p->up, GEXI_PX_MAX_PAYLOAD, on_frame, p);
        if (rc < 0) { /* gexrun is gone */
          if (rc == -2) fprintf(stderr, "gexrun --proxy: oversized frame from gexrun\n");
          lost_gexrun(p);
          if (p->up.rfd >= 0) close(p->up.rfd);
          p->up.rfd = -1;
        }
      } else if (who[q] == -2) {
        gx_link_flush(&p->up);
      } else {
        int i = who[q] / 3, w = who[q] % 3;
        struct px_rank *k = &p->ranks[i];
        if (w == 0) {
          if (pfd[q].fd != k->sock.rfd) continue;
          if (pfd[q].revents & POLLOUT) gx_link_flush(&k->sock);
          if (pfd[q].revents & (POLLIN | POLLHUP | POLLERR)) relay(p, i, 0);
        } else {
          if (pfd[q].fd != k->out[w - 1]) continue;
          relay(p, i, w);
        }
      }
    }
  }
  free(pfd);
  free(who);
  if (p->jobid) gx_remove_job_shm(p->jobid);
  int rc = p->orphaned ? 1 : 0;
  gx_link_close(&p->up);
  if (p->ranks) {
    for (int i = 0; i < p->count; i++) gx_link_close(&p->ranks[i].sock);
    free(p->ranks);
  }
  free(p->str);
  free(p->setup);
  close(sfd);
  return rc;
}

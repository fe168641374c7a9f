/* job_start.c -- gexrun: starting the ranks of this host a batch per turn
 * of the event loop, reaping them, the signals gexrun forwards, and the
 * bootstrap timeout. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job.h"

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

static void on_signal_cb(int sig, void *arg) {
  (void)arg;
  on_signal(sig);
}

void handle_signals(int sfd) {
  /* Terminating signals first, so that exits they cause are not deaths. */
  if (gx_drain_signals(sfd, on_signal_cb, NULL)) reap();
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
int spawn_more(int budget) {
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

void boot_timeout(void) {
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

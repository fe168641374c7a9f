/* job_end.c -- gexrun: frames to the ranks, and how the job ends: an exit
 * or abort forwarded to every rank, a death reported and the survivors
 * killed, a peer's failure weighed against the deaths that follow it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job.h"

/* ---- sending to ranks ---- */

static int host_usable(const struct host *h) {
  return !h->local && !h->lost && h->link.wfd >= 0 && !h->link.wr_dead;
}

static void host_send(struct host *h, struct gx_msg *m) {
  if (host_usable(h)) gx_link_send(&h->link, m);
}

/* Queue m to every rank still connected except 'except'; consumes m. */
void broadcast(struct gx_msg *m, int except) {
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
void send_to_rank(int r, struct gx_msg *m) {
  if (!is_remote(r)) {
    gx_link_send(&job.ranks[r].link, m);
  } else {
    struct gx_msg *w = gx_msg_new2(GEXI_PX_TO_RANK, r, 0, m->data, m->len, NULL, 0);
    host_send(&job.hosts[job.ranks[r].host], w);
    gx_msg_unref(w);
  }
  gx_msg_unref(m);
}

void kill_all(int sig) {
  for (int r = 0; r < job.nranks; r++)
    if (job.ranks[r].alive && !is_remote(r) && job.ranks[r].pid > 0) kill(job.ranks[r].pid, sig);
  for (int i = 0; i < job.nhosts; i++) {
    struct gx_msg *m = gx_msg_new(GEXI_PX_SIGNAL, sig, 0, NULL, 0);
    host_send(&job.hosts[i], m);
    gx_msg_unref(m);
  }
}

/* Last resort (poll failure): kill and reap everything. */
void emergency(const char *what) {
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
void fail_job(int r, const char *why) {
  job.failed = 1;
  if (job.ending) return;
  job.ending = 1;
  job.boot_deadline = 0;
  broadcast(gx_msg_new(GEXI_WIRE_DIED, 1, r, why, strlen(why)), -1);
  set_deadline(KILL_GRACE_MS);
}

void describe_exit(int st, char *buf, size_t n, int death) {
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

void report_death(int r) {
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

void protocol_error(int r, const char *what) {
  fprintf(stderr, "gexrun: rank %d: protocol error: %s; ending the job\n", r, what);
  fail_job(r, "broke the protocol with gexrun");
  job.ranks[r].broken = 1; /* the stream is out of step: read nothing more */
  if (!is_remote(r)) gx_link_close(&job.ranks[r].link);
}

/* EXIT or ABORT from rank r: the first one decides the job's exit code. */
void job_exit(int r, uint32_t type, int32_t code) {
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
void peer_failed(int r, int32_t code, int32_t peer) {
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
void peer_fail_expired(void) {
  job.peer_fail_deadline = 0;
  if (!job.ending) peer_report_ends_job(job.peer_fail_from, job.peer_fail_code);
}

/* ---- ends of ranks ---- */

void rank_ended(int r, int st) {
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

void local_rank_exited(int r, int st) {
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

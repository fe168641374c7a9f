/* common.h -- pieces shared by gexrun and its proxy mode (gexrun --proxy):
 * frames queued for non-blocking descriptors, a frame reader, starting one
 * rank, and small helpers.  Nothing here keeps state of its own: every
 * structure belongs to the caller's job (gexrun) or proxy state.
 */
#ifndef GEXRUN_COMMON_H
#define GEXRUN_COMMON_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "bootstrap/wire.h"

int64_t gx_now_ms(void);
const char *gx_signame(int sig);
/* malloc that ends the process on failure (the ranks follow it through
 * PR_SET_PDEATHSIG or their socket's EOF). */
void *gx_xmalloc(size_t n);
/* Write everything, waiting (poll) while a non-blocking descriptor is full.
 * Returns -1 if the descriptor is broken. */
int gx_write_all(int fd, const void *p, size_t n);
void gx_set_nonblock(int fd);
/* Remove what the job's ranks on this host left in /dev/shm under its
 * name: the libfabric shm provider's objects, "<jobid>.<rank>", which a
 * rank that was killed could not remove (transport/ofi/ofi_init.c names
 * them).  Returns how many were removed. */
int gx_remove_job_shm(const char *jobid);
/* The scheduler state of process pid, as /proc/<pid>/stat gives it ('R',
 * 'S', 'D', 'T' stopped by a signal, 't' stopped by a tracer, ...); 0 when
 * it cannot be read. */
char gx_proc_state(pid_t pid);

/* A frame (header + payload) to send, shared by every queue it is on. */
struct gx_msg {
  size_t refs, len;
  char data[];
};
struct gx_msg *gx_msg_new(uint32_t type, int32_t arg0, int32_t arg1, const void *payload,
                          size_t len);
/* A frame whose payload is two pieces, p1 then p2.  A NULL piece is left
 * uninitialised (for the caller to fill in). */
struct gx_msg *gx_msg_new2(uint32_t type, int32_t arg0, int32_t arg1, const void *p1, size_t l1,
                           const void *p2, size_t l2);
void gx_msg_unref(struct gx_msg *m);

struct gx_outq {
  struct gx_msg *m;
  struct gx_outq *next;
};

/* One stream connection: a socket (rfd == wfd) or a pair of pipes.  Output
 * is queued and written without blocking; input is read frame by frame. */
struct gx_link {
  int rfd, wfd;   /* -1 once closed */
  int wr_dead;    /* writing failed: drop further output */
  struct gx_outq *head, *tail;
  size_t off;     /* bytes of head already written */
  struct gexi_wire_hdr hdr; /* frame being read */
  size_t hdr_got, in_got;
  char *in;
};
void gx_link_init(struct gx_link *l, int rfd, int wfd);
/* Queue m (takes a reference of its own) and write what fits. */
void gx_link_send(struct gx_link *l, struct gx_msg *m);
void gx_link_flush(struct gx_link *l);
int gx_link_pending(const struct gx_link *l);
void gx_link_close(struct gx_link *l);
/* Read every frame available; cb gets each complete one (the payload is
 * freed after cb returns and is NUL-terminated for convenience).  Returns 0
 * when no more input is available now, -1 at EOF or on a read error, -2 for
 * a frame longer than max (the link is then closed).  cb may close the link. */
typedef void gx_frame_cb(void *ctx, const struct gexi_wire_hdr *h, char *payload);
int gx_link_read(struct gx_link *l, uint32_t max, gx_frame_cb *cb, void *ctx);

/* Starting one rank: fork, connect it by a socketpair (GEX_BOOT_FD), set
 * GEX_RANK/GEX_SIZE/GEX_JOBID, PR_SET_PDEATHSIG(SIGKILL), restore the signal
 * dispositions and mask, exec argv.  out_fd[i] >= 0 become its stdout and
 * stderr; in_fd >= 0 its stdin.  Returns the pid (and our end of the socket
 * in *boot_fd), or -1 after printing why. */
struct gx_rank_spec {
  int rank, size;
  const char *jobid;
  char **argv;
  int in_fd, out_fd[2];
  const struct sigaction *old_pipe, *old_chld;
  const struct rlimit *old_nofile; /* the descriptor limit to give back (NULL: as is) */
};
pid_t gx_spawn_rank(const struct gx_rank_spec *s, int *boot_fd);

/* The most ranks one job may have (gexrun -n). */
#define GX_MAX_RANKS 65536
/* Tasks (processes and threads) one rank needs at least: its main thread
 * and libgex's watchdog thread. */
#define GX_TASKS_PER_RANK 2

/* Whether this host can take 'nranks' more ranks of ours, each holding
 * 'fds_per_rank' descriptors in this process: the user's process limit
 * (RLIMIT_NPROC, counted over the user's tasks), the system's pid and task
 * limits (kernel.pid_max, kernel.threads-max), the pids controller of our
 * cgroup, and our descriptor limit (the soft RLIMIT_NOFILE is raised towards
 * the hard one if needed; the old value is saved in *old_nofile for the
 * ranks).  Returns 0, or -1 with a one-line reason (no newline) in why. */
int gx_check_capacity(int nranks, int fds_per_rank, struct rlimit *old_nofile, char *why,
                      size_t len);

/* Ranks started per turn of a launcher's event loop: between two batches
 * it reads its signals and its ranks, so that it answers SIGTERM while it
 * is starting a large job. */
#define GX_SPAWN_BATCH 16

/* Block SIGCHLD and the terminating signals that are not ignored (SIGINT,
 * SIGTERM, SIGHUP), ignore SIGPIPE, and return a signalfd for them.  The old
 * dispositions of SIGPIPE and SIGCHLD are saved for the children. */
int gx_signals_setup(struct sigaction *old_pipe, struct sigaction *old_chld);
/* Read every signal waiting on that signalfd: on(sig, arg) for each but
 * SIGCHLD, in the order they came; returns whether a SIGCHLD was among them
 * (the caller then reaps, after the terminating signals were seen, so that
 * the exits they cause are not taken for deaths). */
int gx_drain_signals(int sfd, void (*on)(int sig, void *arg), void *arg);

/* The value of an environment variable, or NULL when unset or empty. */
const char *gx_env_string(const char *name);
/* GEXRUN_VERBOSE, GEX_BOOTSTRAP_TIMEOUT and the exit timeout, with the library's grammars
 * (core/env_parse.h); a bad value prints one line naming the variable and
 * ends gexrun with status 2, before any rank starts. */
int gx_env_switch(const char *name, int dflt);
uint64_t gx_env_count(const char *name, uint64_t dflt, uint64_t min, uint64_t max);
/* The exit timeout of a job of 'ranks' ranks in milliseconds, as the
 * ranks compute it (GASNET_EXITTIMEOUT and its formula, core/env_parse.h). */
uint64_t gx_env_exit_timeout_ms(uint64_t ranks);

/* Proxy protocol magic (GEXI_PX_HELLO arg0) and version (arg1). */
#define GX_PX_MAGIC 0x67787078 /* "gxpx" */
#define GX_PX_VERSION 1

#endif

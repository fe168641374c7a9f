/* job.h -- gexrun's one job structure (its ranks, its hosts, how it ends),
 * and what the files of the launcher call in each other.  gexrun.c holds
 * the instance and the event loop; job_*.c one concern each. */
#ifndef GEXRUN_JOB_H
#define GEXRUN_JOB_H

#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "bootstrap/bootstrap.h"
#include "common.h"


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
struct job {
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
};
extern struct job job;

static inline int is_remote(int r) { return !job.hosts[job.ranks[r].host].local; }

/* gexrun.c */
void set_deadline(int64_t ms);
void rank_list(const int *rs, int n, char *buf, size_t len);

/* job_output.c */
void out_bytes(int r, int stream, const char *p, size_t n);
void out_flush(int r);
void read_out(int r, int s);

/* job_end.c */
void broadcast(struct gx_msg *m, int except);
void send_to_rank(int r, struct gx_msg *m);
void kill_all(int sig);
void emergency(const char *what);
void fail_job(int r, const char *why);
void describe_exit(int st, char *buf, size_t n, int death);
void report_death(int r);
void protocol_error(int r, const char *what);
void job_exit(int r, uint32_t type, int32_t code);
void peer_failed(int r, int32_t code, int32_t peer);
void peer_fail_expired(void);
void rank_ended(int r, int st);
void local_rank_exited(int r, int st);

/* job_frames.c */
struct contrib *ag_pop(struct rank *k);
void feed_rank(int r, const char *p, size_t n);
void read_rank(int r);

/* job_hosts.c */
void host_lost_status(int i);
void read_host(int i);
void host_exited(int i, int st);
int spawn_host(int i, const char *cwd, const char *self);

/* job_start.c */
void handle_signals(int sfd);
int spawn_more(int budget);
void boot_timeout(void);

#endif

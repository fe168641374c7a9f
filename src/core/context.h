/* core/context.h -- the objects behind the opaque handles, and the one
 * process-wide context structure that holds them.
 *
 * libgex supports one client per process (as the specification's current
 * release does), so the client, its primordial endpoint, team and segment
 * live inside 'gexi_ctx'.  Everything mutable that is process-wide is a
 * field of gexi_ctx; per-thread state is in 'gexi_tls' (thread-local).
 */
#ifndef GEXI_CORE_CONTEXT_H
#define GEXI_CORE_CONTEXT_H

#include <gasnetex.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "core/boot_ops.h"
#include "core/env.h"

struct gexi_shm_node; /* transport/shm: this node's mapped regions */
struct gexi_net_ops;  /* transport: off-node network operations */
struct gexi_ofi;      /* transport/ofi: the libfabric transport's state */
struct gexi_sock;     /* transport/sock: the TCP transport's state */
struct gexi_coll_am;  /* coll/coll_am.c: buffers of the AM collectives engine */
struct gexi_coll_hier; /* coll/coll_hier.c: a team's node layout */

struct gexi_Segment {
  gex_Client_t client;
  void *addr;
  uintptr_t size;
  gex_Flags_t flags;
  void *cdata;
  gex_MK_t kind;      /* GEX_MK_HOST, or a kind of gex_MK_Create (mk/mk.c) */
  uint64_t id;        /* GEXI_SEG_ID_ATTACH, or a number of this process from gex_Segment_Create */
  /* Memory libgex allocated (gex_Segment_Create with a NULL address): an
   * anonymous shared-memory object whose descriptor stays open for the
   * segment's life, so that neighbours can map it whenever it is published.
   * -1: client memory, or the gex_Segment_Attach segment (mapped at attach). */
  int fd;
  bool dev_owned;     /* device memory libgex allocated (its kind's device frees it) */
  gex_EP_t ep;        /* bound to this endpoint, or NULL */
  bool net_registered; /* registered with the network transport (at bind) */
  uint64_t net_key;
  /* Bound to an endpoint of index > 0 (a segment may be bound to several
   * endpoints, as in the reference; only the primordial endpoint's segment
   * is bound to one alone): registered as an exposed region (transport.h),
   * key net_xkey, whose byte 0 peers reach at net_raddr. */
  void *net_exposed;
  uint64_t net_xkey, net_raddr;
};
#define GEXI_SEG_ID_ATTACH 1

/* Team object (also used for TM-pairs).  A gex_TM_t points at peers[0];
 * 'head' sits right before it (see gex/gex_inline.h). */
struct gexi_team {
  gex_Client_t client;
  gex_EP_t ep;
  gex_Flags_t flags;
  bool is_pair;
  /* A TM-pair's remote endpoint index (0 for teams): its peer table holds
   * what this process knows of every rank's endpoint of that index. */
  gex_EP_Index_t remote_index;
  /* A TM-pair whose local endpoint has a segment of device memory bound:
   * none of its peer entries is 'local' (the inline path would read or
   * write that memory with the CPU), so every RMA through it comes to
   * rma/rma_ep.c, whatever the remote index.  Set under teams_lock when
   * the segment is bound, or when the pair is made after that. */
  bool local_dev;
  /* remote_index || local_dev, in one field: the out-of-line RMA entries
   * test it on every call. */
  bool ep_path;
  void *cdata;
  _Atomic uint64_t barriers_started; /* unused (kept for layout stability) */
  /* Collectives (coll/coll.c; all fields below are guarded by its lock).
   * 'slot' indexes the per-process team arrays of the control regions; it
   * is agreed by the members at creation (primordial team: 0).  A zero-
   * initialised team (the primordial one) has slot 0 and zero bases. */
  uint32_t slot;
  uint64_t *bar_base;           /* by team rank: member's counter at creation (NULL: 0) */
  struct gexi_shm_ctrl **mctrl; /* by team rank: member's control region (lazy) */
  uint64_t arrivals;            /* my barrier arrivals on this team */
  /* Arrival counts every member must have reached before this member writes
   * its staging chunk again (0: none; coll/coll.c, one-chunk broadcasts and
   * small reduces): the latest such collective's, a small slot's last
   * user's, and the latest one-chunk broadcast's that was not small;
   * small_seq numbers the small broadcasts and reduces. */
  uint64_t stage_guard;
#define GEXI_COLL_SMALL 1024
#define GEXI_COLL_SMALL_SLOTS 32
  uint64_t small_guard[GEXI_COLL_SMALL_SLOTS];
  uint64_t large_guard;
  uint32_t small_seq;
  uint64_t words_seq; /* barriers with words started (gexi_coll_barrier_max3) */
  _Atomic uint64_t seen_all; /* arrivals every member is known to have made (coll/coll.c) */
  struct gexi_Event *q_head, *q_tail; /* collectives in initiation order */
  struct gexi_team *active_next; /* list of teams with queued collectives */
  bool active;
  /* Engine of this team's collectives (coll/coll_am.h): 0 not decided yet
   * (primordial team until its first collective), GEXI_COLL_PATH_SHM,
   * GEXI_COLL_PATH_AM or GEXI_COLL_PATH_HIER.  am_seq: sequence number of the next collective
   * initiated on the team (AM engine; equal in every member because
   * collectives are initiated in the same order everywhere). */
  uint8_t coll_path;
  uint32_t am_seq;
  struct gexi_coll_hier *hier;  /* hierarchical path: node layout (coll/coll_hier.c; lazy) */
  struct gexi_xland *xland;     /* AM engine: standing landing buffers (coll/coll_am_xchg.c; lazy) */
  void *scratch_addr;           /* client scratch (NULL: none given) */
  size_t scratch_size;
  struct gexi_team *live_next;  /* gexi_ctx.live_teams list (client-visible teams only) */
  struct gexi_TM_head head;
  gexi_Peer_t peers[]; /* by team rank */
};
_Static_assert(offsetof(struct gexi_team, peers) ==
                   offsetof(struct gexi_team, head) + sizeof(struct gexi_TM_head),
               "the team size and rank must sit right before the peer table");

/* Endpoints per process: the primordial one (index 0) and up to 32 made by
 * gex_EP_Create, as the reference's ofi conduit (GASNET_MAXEPS there: 33).
 * The smp identity allows only the primordial one (its GASNET_MAXEPS is 1). */
#define GEXI_MAX_EPS 33
/* Slots of the count of waiting threads (gexi_context.idle_stamp). */
#define GEXI_IDLE_SLOTS 64

struct gexi_EP {
  gex_Client_t client;
  gex_Flags_t flags;
  gex_Segment_t segment;
  /* Its bound segment was destroyed (gex_Segment_Destroy unbinds it): it
   * is never bound again, as peers may still hold that one's entry. */
  bool seg_destroyed;
  void *cdata;
  gex_EP_Index_t index;
  gex_EP_Capabilities_t caps;
  /* Handler table indexed by gex_AM_Index_t; gex_fnptr == NULL: unused.
   * Written under reg_lock; read without it by the AM dispatcher (the client
   * must register before any peer sends, as the specification requires). */
  gex_AM_Entry_t handlers[256];
  pthread_mutex_t reg_lock;
  /* gex_TM_Pair(ep, 0): addresses every process by jobrank (made with the
   * endpoint). */
  struct gexi_team *pair_tm;
  /* gex_TM_Pair(ep, k) for k > 0, made on first use (core/ep_pair.c);
   * written once under teams_lock, read without it (acquire). */
  struct gexi_team *_Atomic pairs[GEXI_MAX_EPS];
};

/* What this process knows of every rank's endpoint of one index k > 0 (the
 * job's peer table, gexi_ctx.peers, is index 0's): the segment entries, by
 * jobrank, that the TM-pairs to index k copy, and for peers on other nodes
 * the network transport's key and remote address of the segment's byte 0
 * (transport.h: expose).  Made when first needed, under teams_lock. */
struct gexi_ep_tab {
  gexi_Peer_t *peers;
  uint64_t *net_key;
  uint64_t *net_raddr;
  /* By jobrank: 1 when its segment at this index is device memory
   * (reached through rma/rma_device.c; its entry's 'local' is clear). */
  uint8_t *device;
  /* By jobrank, made at the first neighbour's device segment (mk/mk.h). */
  struct gexi_dev_peer *dev_peers;
};

struct gexi_Client {
  char *name; /* as given to gex_Client_Init (any non-empty string) */
  gex_Flags_t flags;
  void *cdata;
};

struct gexi_co_kind;
struct gexi_am_upcalls; /* transport/am_wire.h */
struct gexi_context {
  _Atomic int initialized;
  gexi_bootstrap_t *boot; /* the running bootstrap (core/boot_ops.h); NULL before init */
  /* The bootstrap's end before gex_Client_Init, when boot is still NULL:
   * set where gexi_ctx is defined (objects/context_storage.c), so that the
   * link that brings in the context brings in the bootstrap too. */
  gexi_boot_end_early_fn boot_end_early;
  gex_Rank_t rank, size;
  int verbose_errors;

  /* Peers by jobrank (the primordial team's table; the TM-pair has a copy).
   * Written only during init/attach, before the barrier that ends them. */
  gexi_Peer_t *peers;

  /* Neighbourhood (processes sharing memory with us = same host). */
  gex_Rank_t *nbrhd_jobranks; /* sorted; nbrhd_size entries */
  gex_Rank_t nbrhd_size, nbrhd_index;
  gex_Rank_t nbrhd_count, nbrhd_rank; /* set of neighbourhoods in the job */
  gex_Rank_t *local_index;             /* jobrank -> index in nbrhd, or INVALID */
  gex_Rank_t *nbrhd_of;                /* jobrank -> its neighbourhood's ordinal */
  /* Host: same machine and network namespace (a neighbourhood is a host, or
   * a part of one under GEX_SUPERNODE_MAXSIZE). */
  gex_Rank_t *host_jobranks;
  gex_Rank_t host_size, host_index, host_count, host_rank;
  /* More ranks of the job on this machine (in any of its network
   * namespaces) than online processors: every wait loop yields on each
   * empty poll (core/progress.c).  Set once, before attach ends. */
  bool host_oversubscribed;
  /* The job's ranks on this machine and its online processors (sysconf;
   * 0: unknown), for the wait policy's count of waiting threads. */
  uint32_t machine_ranks, cpus;
  /* This rank's place among them (in jobrank order): its home CPU is the
   * one of that place in its affinity mask (core/progress.c, move_home). */
  uint32_t machine_index;
  /* Threads of this process that wait (core/progress.c): each thread
   * stamps its slot with the time of its latest idle moment, and the
   * slots stamped within GEXI_IDLE_FRESH_NS count.  Slots are handed out
   * in order; past GEXI_IDLE_SLOTS threads share them (an undercount). */
  _Atomic uint64_t idle_stamp[GEXI_IDLE_SLOTS];
  _Atomic uint32_t idle_slots;

  struct gexi_Client client;
  struct gexi_EP ep;
  /* Endpoints by index ([0]: &ep); ep_count of them exist.  An entry is
   * written once, under teams_lock, before ep_count covers it. */
  struct gexi_EP *eps[GEXI_MAX_EPS];
  _Atomic uint32_t ep_count;
  /* By endpoint index > 0 ([0] unused): see struct gexi_ep_tab.  Guarded by
   * teams_lock; a table, once made, stays. */
  struct gexi_ep_tab *ep_tabs[GEXI_MAX_EPS];
  struct gexi_team *tm; /* primordial team */
  struct gexi_Segment segment;
  bool segment_attached;
  /* Teams whose peer tables follow the job's (objects/team.c): every team the
   * client made, besides the primordial team and the TM-pair, which are not
   * on the list.  Bind and Publish rewrite the entries of a rank whose
   * segment became known (gexi_peers_sync_locked).  Guarded by teams_lock. */
  struct gexi_team *live_teams;
  pthread_mutex_t teams_lock;
  _Atomic uint64_t next_segment_id; /* gex_Segment_Create numbers (from 2) */

  /* The job's exit, begun by another rank's gasnet_exit (core/progress.c,
   * bootstrap/launcher.c).  The bootstrap's watchdog stores exit_code and
   * exit_quiet_since (the time, gexi_now_ns) before it sets exit_requested
   * (release), then gives this process the exit timeout to reach
   * gasnet_exit by itself.  Meanwhile every poll in the process counts:
   * one that moved something sets exit_quiet_since to now and clears
   * exit_empty_polls, an empty one adds to exit_empty_polls; a poll that
   * finds the process quiet long enough (GEXI_EXIT_QUIET_*) calls
   * gasnet_exit(exit_code): whatever it waits for can no longer come. */
  _Atomic int exit_requested;
  _Atomic int exit_code;
  _Atomic uint64_t exit_quiet_since;
  _Atomic uint32_t exit_empty_polls;
  /* Set by the first thread that ends the process (gexi_end_process): it
   * alone runs the transports' at-exit work; any other waits for its _exit. */
  _Atomic int ending;
  /* The receive thread's state (core/rcv_thread.c); NULL: none.  Set by
   * gex_Client_Init before anything else polls, read by every poll. */
  struct gexi_rcv *rcv;
  /* Where there is a receive thread: polls of the process so far, any
   * thread's (core/progress.c; a relaxed load and store, so two at once
   * may count one), on a line of their own, since every poll writes it;
   * the receive thread acts only while nobody else moves it. */
  struct { /* (anonymous: padded to its line, which nothing else shares) */
    alignas(64) _Atomic uint32_t poll_gen;
    /* Threads of the program asleep in a wait of the library (on the
     * network, or on the shared-memory doorbell): in the library, though
     * their sleep moves no poll_gen. */
    _Atomic uint32_t lib_sleepers;
  };

  /* Device RMA operations that took the staged path, and device copies
   * started for NB and NBI ones (rma/rma_device.c; test hooks:
   * gexi_rma_device_staged, gexi_rma_device_started). */
  _Atomic uint64_t mk_staged, mk_started;
  /* Device copies started by NB and NBI RMA and not known to be done
   * (rma/rma_device.c): how many, and what finishes them (set before the
   * first is counted).  While there are some, every poll calls
   * dev_progress, and a waiting thread does not sleep on the network. */
  _Atomic unsigned dev_inflight;
  int (*dev_progress)(void);
  /* The copies themselves: rma/rma_device.c's list, under dev_lock. */
  pthread_mutex_t dev_lock;
  struct gexi_dev_inflight *dev_ops;
  /* Peers with frames that wait in this process for their connection to
   * be made (kept by the network transport): a wait that completes does
   * not return while there are some (net->settle), so that what a rank
   * sent before it leaves the library -- a barrier's last messages -- is
   * in the kernel's hands, as a frame to a connected peer is. */
  _Atomic unsigned net_unsent;
  /* Shown to ThreadSanitizer as the order between an initiator and the
   * handlers of its AM-carried operations (core/complete.h, gexi_am_sync). */
  _Atomic uint64_t am_sync;
  /* What the transports hand received AMs to (transport/am_wire.h). */
  const struct gexi_am_upcalls *am_up;

  /* GEXI_WAIT_*: GEX_WAIT_MODE's, or gasnet_set_waitmode's since
   * (core/hooks.h); read by every waiting thread (core/progress.c). */
  _Atomic int wait_mode;

  /* Settings from the environment, parsed by gex_Client_Init (core/env.h). */
  struct gexi_env env;

  struct gexi_shm_node *shm;
  /* Shared memory's poll (transport/shm), set by gex_Client_Init before
   * anything polls: the core reaches the substrates through pointers. */
  int (*shm_poll)(int what);
  /* ... and its count of the neighbourhood's waiting threads
   * (gexi_shm_node_waiting). */
  unsigned (*shm_waiting)(unsigned mine, uint64_t now, uint64_t fresh_ns);
  /* ... whether a neighbour shares this thread's CPU
   * (gexi_shm_node_colocated), and a sleep on this process's doorbell
   * (gexi_shm_doze). */
  int (*shm_colocated)(uint64_t now, uint64_t fresh_ns, cpu_set_t *theirs);
  void (*shm_doze)(unsigned timeout_us);
  const struct gexi_net_ops *net; /* NULL: every rank is on this node */
  /* At process exit, what the network transports would leave behind is
   * removed (transport/start/net_start.c; set before one starts, read with
   * __atomic from any thread; NULL: none was started). */
  void (*net_at_exit)(void);
  struct gexi_ofi *ofi;           /* state of the libfabric transport, if started */
  struct gexi_sock *sock;         /* state of the TCP transport, if started */

  /* AM collectives engine: settings and early-arrival buffers (created by
   * gexi_coll_am_init during gex_Client_Init). */
  struct gexi_coll_am *coll_am;

  /* Coalescing of NBI operations (am/am_coalesce.c): the record kinds,
   * registered at client init, and the key whose destructor sends and frees
   * an exiting thread's batches. */
#define GEXI_CO_MAX_KINDS 4
  const struct gexi_co_kind *co_kinds[GEXI_CO_MAX_KINDS];
  pthread_key_t co_key;
  size_t co_put_max; /* NBI Puts off-node of 1..co_put_max bytes are coalesced (0: none) */

  /* One freed event kept for the next (core/event.c, gexi_event_new):
   * a collective waited for before the next is started reuses it instead
   * of a calloc and a free per operation.  NULL: none kept. */
  _Atomic(struct gexi_Event *) spare_event;

  /* Collectives (coll/coll.c): the lock that guards every team's queue,
   * the teams with queued collectives, and their number (written under the
   * lock, read without it, relaxed, only to skip the lock when nothing is
   * queued). */
  pthread_mutex_t coll_lock;
  struct gexi_team *coll_active;
  atomic_int coll_n_active;
  /* Team slots in use in this process (objects/team.c; bit 0: the primordial
   * team).  Team construction calls of one process must not overlap in
   * time (different threads constructing teams at once could pick the same
   * slot). */
  _Atomic uint64_t used_slots;
  /* am/am_npam.c: the key whose destructor frees an exiting thread's
   * staging buffers, created once. */
  pthread_key_t npam_staging_key;
  pthread_once_t npam_staging_once;

  /* Run at the end of gex_Client_Init (core/hooks.h); NULL: none. */
  void (*client_init_hook)(gex_Client_t, gex_EP_t, gex_TM_t, gex_Flags_t);
  /* gasnet_client_attach_hook (gasnetex.h): set by the client, run by
   * gex_Segment_Attach; NULL: none. */
  void (*client_attach_hook)(void *, uintptr_t);
};

/* Hidden (as gexi_tls below): no shared object of libgex exports it, so the
 * library's code reaches it directly, not through a GOT entry. */
extern struct gexi_context gexi_ctx __attribute__((visibility("hidden")));

/* Per-thread state.  Token and Prepare state belong to the thread that is
 * running the handler or holding the source descriptor. */
struct gexi_Token;
struct gexi_SrcDesc;
struct gexi_thread_state {
  int handler_depth;                 /* > 0: inside an AM handler */
  int hsl_depth;                     /* handler-safe locks held (next to handler_depth:
                                      * gexi_in_handler_or_hsl reads both at once) */
  struct gexi_Token *cur_token;      /* innermost running handler's token */
  struct gexi_SrcDesc *open_sd;      /* Prepare without Commit/Cancel yet */
  int in_access_region;
  unsigned idle_polls;               /* consecutive polls that found nothing */
  unsigned idle_yields;              /* ... and the yields they caused */
  uint64_t idle_since;               /* when the first of those yields was (core/progress.c) */
  uint64_t preemptions;              /* 1 + its involuntary switches when it last looked, 0: never */
  uint64_t contended_until;          /* its idle moments sleep until then (progress.c) */
  uint32_t idle_slot;                /* 1 + its slot of gexi_ctx.idle_stamp, 0: none yet */
  uint32_t busy_polls;               /* polls that found work since it last stamped it */
  uint64_t net_sleeps;               /* sleeps on the network (core/progress.c;
                                      * tests read it: gexi_net_sleeps) */
  uint64_t yields;                   /* sched_yield calls of its waits (gexi_wait_yields) */
  uint64_t shm_dozes;                /* sleeps on its process's doorbell (gexi_shm_dozes) */
  uint64_t moved_at;                 /* when it last moved itself off a shared CPU
                                      * (or, every peer off-node, looked: move_home) */
  uint64_t moves;                    /* ... and how often (gexi_cpu_moves) */
  struct gexi_net_nbi *net_nbi;      /* transport/ofi: this thread's NBI operations in flight */
  /* The same tracker's counts by kind (put, get, rmw; NULL: none yet), so
   * that gex_NBI_Wait/Test with nothing in flight return without a call
   * into the transport (core/nbi.c). */
  _Atomic uint64_t *net_nbi_pending;
  /* Set by this thread whenever it initiates an NBI operation that completes
   * later (network or AM-completed); cleared by gex_NBI_Wait/Test once no
   * count of any kind is left.  Only this thread raises the counts, so a
   * clear flag means nothing is in flight: an idle Wait is one load. */
  int nbi_maybe;
  struct gexi_net_nbi *net_region;   /* ... and those of its open access region */
  /* transport/ofi: this thread's tracker (net_nbi) while it posts its small
   * NBI Puts and its NBI Gets on the counted endpoint (ofi_counted.c): in
   * the thread that opened it, outside access regions; else NULL */
  struct gexi_net_nbi *net_counted;
  /* Operations carried by Active Messages (atomics/ad_am.c, vis/vis.c):
   * 'pending' counts this thread's NBI ones whose replies are still due, by
   * category (GEXI_AM_NBI_PUT/GET/RMW in core/complete.h).  Reply handlers,
   * which may run on any thread, decrement it (release); gex_NBI_Test/Wait
   * read it (acquire).  'region': the event that NBI operations join while an
   * access region is open (NULL: none yet).  'vis_cfg': the GEX_VIS_* settings
   * (gexi_ctx.env) cached by this thread on first use (0: not yet). */
  struct {
    _Atomic uint32_t pending[3];
    struct gexi_Event *region;
    uint32_t vis_cfg;
  } am_nbi;
  /* Non-NULL while this thread holds operations it has not sent yet
   * (coalesced NBI operations, am/am_coalesce.c): gexi_poll outside
   * handlers, gex_NBI_Test/Wait and both ends of an access region call it
   * first. */
  void (*flush_deferred)(void);
  struct gexi_co_batches *co_batches; /* this thread's batches (NULL: none yet) */
  struct gexi_co_batch **co_peer;     /* co_batches->peer (one load less on the fast path) */
  /* This thread is ending the process (gexi_end_process): a signal handler
   * that calls gasnet_exit on it again goes straight to _exit. */
  int ending;
};
/* Initial-exec: a fast path reaches it by the thread pointer and an offset
 * (one instruction; no descriptor call, so no stack alignment around it).
 * That puts libgex's thread-local block in static TLS, which a program
 * that links libgex has anyway and a dlopen finds room for while the
 * block stays small: keep large per-thread buffers on the heap. */
extern _Thread_local struct gexi_thread_state gexi_tls
    __attribute__((visibility("hidden"), tls_model("initial-exec")));

/* Whether this thread runs an AM handler or holds a handler-safe lock: both
 * counts in one 8-byte load. */
static inline int gexi_in_handler_or_hsl(void) {
  _Static_assert(offsetof(struct gexi_thread_state, hsl_depth) ==
                     offsetof(struct gexi_thread_state, handler_depth) + sizeof(int) &&
                 sizeof(int) == 4, "handler_depth and hsl_depth: one word");
  uint64_t both;
  memcpy(&both, (const unsigned char *)&gexi_tls + offsetof(struct gexi_thread_state, handler_depth),
         8);
  return both != 0;
}

/* ---- errors (core/errors.c) ---- */
#ifdef __GNUC__
#define GEXI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define GEXI_NORETURN __attribute__((noreturn))
#else
#define GEXI_PRINTF(a, b)
#define GEXI_NORETURN
#endif
/* Print "libgex: rank R: <msg>" as one line and end the job (status 1). */
GEXI_NORETURN void gexi_fatal(const char *fmt, ...) GEXI_PRINTF(1, 2);
/* An operation with jobrank 'peer' failed (a network error; GEX_RANK_INVALID:
 * a peer this rank cannot name, as for an NBI operation in flight): tell the
 * launcher and wait, bounded, for its verdict.  A death it confirms (of that
 * peer, or of any rank) ends this process meanwhile, through the bootstrap's
 * watchdog, which names the dead rank.  Returns 1 when the job's exit was
 * requested before or meanwhile (the peer left with it: no fault), 0 when
 * the failure is this rank's to report (then it ends the job itself). */
int gexi_await_peer_verdict(gex_Rank_t peer);
/* gexi_fatal for such a failure: the message is printed only when the
 * verdict leaves the report to this rank; the job's exit ends the process
 * quietly with the job's code. */
GEXI_NORETURN void gexi_fatal_peer(gex_Rank_t peer, const char *fmt, ...) GEXI_PRINTF(2, 3);
/* Print "libgex: rank R: <msg>" as one line, always (security reports). */
void gexi_say(const char *fmt, ...) GEXI_PRINTF(1, 2);
/* Print a non-fatal diagnostic when verbose errors are on. */
void gexi_warn(const char *fmt, ...) GEXI_PRINTF(1, 2);
/* End this process at once with 'code' after flushing stdio (no atexit). */
GEXI_NORETURN void gexi_end_process(int code);

/* Restricted-context checks for calls that may communicate or poll. */
#if GEX_CHECKS
void gexi_check_can_communicate_slow(const char *fn);
static inline void gexi_check_can_communicate(const char *fn) {
  if (__builtin_expect(gexi_tls.handler_depth | gexi_tls.hsl_depth | !gexi_ctx.initialized, 0))
    gexi_check_can_communicate_slow(fn);
}
void gexi_check_init(const char *fn);
/* gexi_check_can_communicate and the flags (no bits outside 'ok') in one
 * branch, for calls whose idle cost is measured (gex_NBI_Wait). */
void gexi_check_can_communicate_flags_slow(const char *fn, gex_Flags_t flags, gex_Flags_t ok);
static inline void gexi_check_can_communicate_flags(const char *fn, gex_Flags_t flags,
                                                    gex_Flags_t ok) {
  if (__builtin_expect((unsigned)(gexi_tls.handler_depth | gexi_tls.hsl_depth |
                                  !gexi_ctx.initialized) | (flags & ~ok), 0))
    gexi_check_can_communicate_flags_slow(fn, flags, ok);
}
#else
#define gexi_check_can_communicate(fn) ((void)0)
#define gexi_check_init(fn) ((void)0)
#define gexi_check_can_communicate_flags(fn, flags, ok) ((void)(flags))
#endif

/* ---- exit hooks (core/exit_hooks.c) ---- */
/* Register the exit() hook and the SIGINT policy; called by gex_Client_Init. */
void gexi_exit_hooks_install(void);
void gexi_reset_foreign_fatal_handlers(void); /* core/foreign_signals.c */

/* ---- progress (core/progress.c) ---- */
#define GEXI_POLL_ALL 0
#define GEXI_POLL_REPLIES 1
/* Run pending handlers; returns how many messages were processed. */
int gexi_poll(int what);
/* The monotonic clock in nanoseconds. */
uint64_t gexi_now_ns(void);
/* Call when a wait loop made no progress: yields the CPU after a short run
 * of empty polls so oversubscribed nodes keep moving. */
void gexi_idle(void);
/* At the end of a blocking wait: frames that still wait for their
 * connection leave first (gexi_ctx.net_unsent); the slow part polls for at
 * most timeout_ms when that is not negative. */
void gexi_settle_slow(int timeout_ms);
static inline void gexi_settle(void) {
  if (GEXI_UNLIKELY(atomic_load_explicit(&gexi_ctx.net_unsent, memory_order_relaxed)))
    gexi_settle_slow(-1);
}
/* A wait loop's poll found work.  Every GEXI_BUSY_STAMP_POLLS of them the
 * thread also counts as waiting (core/progress.c): a wait whose polls
 * keep finding work -- another thread's replies -- still holds a core. */
#define GEXI_BUSY_STAMP_POLLS 64
void gexi_busy_stamp(void);
static inline void gexi_busy(void) {
  gexi_tls.idle_polls = 0;
  gexi_tls.idle_yields = 0;
  if (GEXI_UNLIKELY(++gexi_tls.busy_polls >= GEXI_BUSY_STAMP_POLLS)) gexi_busy_stamp();
}

/* ---- helpers ---- */
/* Join one of the library's own threads (the receive thread, the UDP
 * lane's keeper) at the end of the process, waiting at most wait_ms: one
 * held up on a lock the ending thread holds is left behind. */
void gexi_join_within(pthread_t th, int wait_ms);
/* The moment 'ns' nanoseconds from now on 'clock', for the timed waits of
 * the library's own threads. */
struct timespec gexi_deadline(clockid_t clock, uint64_t ns);
static inline struct gexi_team *gexi_tm(gex_TM_t tm) {
  return (struct gexi_team *)((char *)tm - offsetof(struct gexi_team, peers));
}
static inline gex_TM_t gexi_tm_handle(struct gexi_team *t) { return (gex_TM_t)(void *)t->peers; }
struct gexi_team *gexi_team_new(gex_Rank_t size, gex_Rank_t rank, bool is_pair);
/* The put_nbi entry of teams made from now on (rma/rma_remote.c): the
 * coalescing one if small Puts are coalesced, else the network transport's
 * own (or, with no network, gexi_rma_put_nbi_general).  Coalescing is
 * decided at the end of gex_Client_Init, which then sets it again in the
 * teams it made before. */
gexi_put_nbi_fn_t gexi_rma_put_nbi_entry(void);
/* What the network's put_nbi entry does not do at once (transport.h). */
int gexi_rma_put_nbi_general(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank,
                             void *dest, uint64_t lc_flags);
/* The same, to jobrank j, for a transport's entry that found the job rank
 * already (so that tm and rank need not stay live): j takes rank's place,
 * tm is not read, the other arguments stay where the entry got them. */
int gexi_rma_put_nbi_to(gex_TM_t unused, const void *src, size_t nbytes, gex_Rank_t j,
                        void *dest, uint64_t lc_flags);
/* RMA through a TM-pair to endpoints of index > 0 whose segment is not
 * mapped here, or through any pair whose local endpoint's segment is
 * device memory (rma/rma_ep.c): complete on return, except NB and NBI ones
 * a device's copy finishes later (rma/rma_device.c; 'mode' as in
 * gex_inline.h).  gexi_rma_ep_put_nbi is such pairs' put_nbi entry. */
gex_Event_t gexi_rma_ep_put(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                            size_t nbytes, gex_Event_t *lc_opt, int mode);
gex_Event_t gexi_rma_ep_get(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                            int mode);
int gexi_rma_ep_put_nbi(gex_TM_t tm, const void *src, size_t nbytes, gex_Rank_t rank, void *dest,
                        uint64_t lc_flags);
/* Host memory here <-> [remote, remote + n) of jobrank j's endpoint k,
 * when that segment is host memory: copied in place where it is mapped
 * here, else through the kernel or the network.  Complete on return when
 * 'mode' is GEXI_MODE_BLOCKING; an NB or NBI one over the network may
 * still be in flight (its event, or the thread's NBI counts), as the
 * primordial endpoint's are; elsewhere it is complete on return
 * (GEX_EVENT_INVALID).  lc_deferred: an NBI Put's source may stay in use
 * until its NBI operations complete (else it is reusable on return). */
gex_Event_t gexi_rma_ep_host(const char *fn, gex_EP_Index_t k, gex_Rank_t j, int is_write,
                             void *local, void *remote, size_t n, int mode, int lc_deferred);
/* What this process knows of jobrank j's endpoint of index k: the entry
 * of the master table (the job's for k == 0, else index k's, which exists
 * once any pair to k does).  A pair's own copy may say 'not local' for
 * its own reasons (struct gexi_team, local_dev). */
static inline const gexi_Peer_t *gexi_master_peer(gex_EP_Index_t k, gex_Rank_t j) {
  return k ? &gexi_ctx.ep_tabs[k]->peers[j] : &gexi_ctx.peers[j];
}
/* RMA through this TM goes by rma/rma_ep.c. */
static inline bool gexi_tm_ep_path(gex_TM_t tm) { return gexi_tm(tm)->ep_path; }
/* ep's pairs, now that a device segment is bound to it: local_dev set
 * (the next gexi_peers_sync_locked clears their entries' 'local'), RMA
 * through them by rma/rma_ep.c.  teams_lock held. */
void gexi_ep_pairs_local_dev_locked(struct gexi_EP *ep);
/* gex_Segment_Destroy of a segment bound to endpoints of index > 0:
 * unbinds it from each (objects/segment_bind.c).  0, or the reason it cannot
 * be (bound to the primordial endpoint). */
const char *gexi_segment_unbind(struct gexi_Segment *seg);
static inline gex_Rank_t gexi_tm_jobrank(gex_TM_t tm, gex_Rank_t rank) {
  return GEXI_TM_PEERS(tm)[rank].jobrank;
}
/* Copy the segment fields (base, size, delta, local) of the job's peer
 * table into the TM-pair's and every client team's table, writing only the
 * entries that differ (objects/team.c).  Called with teams_lock held
 * after the job's table changed (gex_EP_BindSegment, gex_EP_PublishBoundSegment,
 * gex_Segment_Attach). */
void gexi_peers_sync_locked(void);
/* The table of endpoint index k > 0, made if it does not exist yet (called
 * with teams_lock held; core/ep_pair.c). */
struct gexi_ep_tab *gexi_ep_tab_locked(gex_EP_Index_t k);
/* This process's endpoints: GEXI_MAX_EPS, or 1 for the smp identity. */
unsigned gexi_max_eps(void);
/* Whether 'ep' is an endpoint of this process. */
int gexi_ep_valid(gex_EP_t ep);
/* The live-team list (objects/team.c): fill a new client team's table from
 * the job's entries of its members (jobranks[team rank]) and add it; remove
 * a team. */
void gexi_team_link(struct gexi_team *t, const gex_Rank_t *jobranks);
void gexi_team_unlink(struct gexi_team *t);

/* Register the library's internal collective AM handlers and read the
 * collective settings (coll/coll_am.c); called once by gex_Client_Init. */
void gexi_coll_am_init(void);

#endif

/* transport/shm/shm.h -- the on-node transport: shared-memory regions
 * (memfd, mapped by every process of the node) carrying AM queues and the
 * barrier arrival counters; segments are mapped the same way so that RMA to
 * a process of the node is a plain load/store (see gex/gex_inline.h).
 *
 * Regions are anonymous memfds: no name ever exists in /dev/shm, so nothing
 * can be left behind whatever way a process ends.  A peer maps a region by
 * opening /proc/<owner pid>/fd/<fd> while the owner still holds the fd; the
 * owner closes it after the barrier that follows the exchange.
 */
#ifndef GEXI_SHM_H
#define GEXI_SHM_H

#include <sched.h>
#include <stdalign.h>
#include <string.h>
#include <sys/types.h>

#include "transport/am_wire.h"
#include "transport/shm/shm_amq.h"

/* Request and reply queue depths (slots); powers of two. */
#define GEXI_SHM_REQ_SLOTS 128
#define GEXI_SHM_REP_SLOTS 64
/* Team slots per process (teams alive at once in one process, including the
 * primordial team) and the collective staging chunk per slot (bytes). */
#define GEXI_SHM_TEAM_SLOTS 64
#define GEXI_COLL_CHUNK 32768

/* What each process publishes at init. */
struct gexi_proc_info {
  char host[176]; /* host name/boot id/net namespace[#group]: equal = same node */
  int32_t pid;
  int32_t ctrl_fd;
  uint64_t ctrl_bytes;
};

/* Head of each process's control region. */
struct gexi_shm_ctrl {
  uint64_t magic;
  uint64_t req_off, rep_off;
  /* Per team slot (agreed by a team's members at creation; the primordial
   * team is slot 0), one cache line each:
   * - arrivals: the number of barrier arrivals this process has made on the
   *   team that owns the slot here.  Monotonic, never reset: a team records
   *   every member's value at creation as its base.  Only the owner writes
   *   (release increment); peers read (acquire).
   * - words: barrier words (coll/coll.c, gexi_coll_barrier_max3), two
   *   generations of three, written by the owner before its arrival and
   *   read by members once everyone has arrived; in the counter's line, so
   *   a reader that saw the arrival has them at no further transfer. */
  struct gexi_shm_team_bar {
    alignas(64) _Atomic uint64_t arrivals;
    _Atomic uint64_t words[2][3];
  } team_bar[GEXI_SHM_TEAM_SLOTS];
  _Static_assert(sizeof(struct gexi_shm_team_bar) == 64, "a team slot's barrier is one cache line");
  /* Team creation: what this process publishes for a split/create over the
   * parent team whose slot indexes the array (read by the parent's members
   * between the two parent barriers of the creation). */
  struct gexi_shm_xchg {
    int64_t color, key;     /* Split: color (-1: no new team), key */
    uint64_t scratch_size;  /* Split/Create: scratch length */
    uint64_t flags;         /* creation flags */
    uint64_t used_slots;    /* team slots in use in this process */
    uint64_t args_hash;     /* Create: hash of numargs + args[] (0: none) */
  } xchg[GEXI_SHM_TEAM_SLOTS];
  /* Collective staging: one chunk per team slot.  The owner writes its
   * contribution, then arrives at the team's barrier; members read after the
   * barrier and arrive again when done reading. */
  alignas(64) unsigned char coll_stage[GEXI_SHM_TEAM_SLOTS][GEXI_COLL_CHUNK];
  /* The wait policy's count of this process's waiting threads and when it
   * was counted (gexi_now_ns; shm_waiting.c): written by the owner's
   * waiting threads, read by its neighbours. */
  alignas(64) _Atomic uint64_t waiting_at;
  _Atomic uint32_t waiting;
  /* ... and the CPU its thread ran on at that moment (sched_getcpu; -1:
   * unknown), which tells a neighbour that shares that CPU. */
  _Atomic int32_t cpu;
  /* The doorbell (shm_doorbell.c): 'sleepers' counts the owner's threads
   * asleep on the futex word 'bell'; whoever publishes something they may
   * wait for (a message in the owner's queues, a barrier arrival) and then
   * finds sleepers > 0 bumps 'bell' and wakes them.  Both sides look at
   * 'sleepers' with a read-modify-write (seq_cst) after their store, so
   * either the sleeper sees what was published or the publisher sees the
   * sleeper. */
  alignas(64) _Atomic uint32_t bell;
  _Atomic uint32_t sleepers;
};

struct gexi_shm_node {
  gex_Rank_t nlocal, me;          /* processes on this node; my index */
  struct gexi_shm_ctrl **ctrl;    /* by local index */
  struct gexi_amq **req, **rep;   /* by local index */
  struct gexi_amq *my_req, *my_rep; /* req[me], rep[me]: what every poll reads */
  int32_t *pid;                   /* by local index: the process (shm_cma.c) */
  size_t ctrl_bytes;
  int ctrl_fd;                    /* my region's fd until peers mapped it */
};

/* Create this process's control region; fills info->ctrl_fd/ctrl_bytes. */
void gexi_shm_create_ctrl(struct gexi_proc_info *info);
/* Map the control regions of the node's processes (local index order given
 * by gexi_ctx.nbrhd_jobranks).  Must be followed by a job barrier and then
 * gexi_shm_init_done(). */
void gexi_shm_map_node(const struct gexi_proc_info *all);
void gexi_shm_init_done(void);

/* Anonymous shared memory: create (returns fd, maps it at *addr) and map a
 * peer's (by pid and fd number).  gexi_shm_try_create returns -1 (errno
 * set) instead of ending the job. */
int gexi_shm_create(const char *what, size_t bytes, void **addr);
int gexi_shm_try_create(const char *what, size_t bytes, void **addr);
void *gexi_shm_map_peer(const char *what, int32_t pid, int32_t fd, size_t bytes);

/* Sending an AM on the node: reserve a slot in the target's request or
 * reply queue (NULL only when the queue is full and flags has IMMEDIATE;
 * otherwise stalls, polling, until a slot frees up), fill slot->hdr, then
 * gexi_shm_am_finish() copies the payload and publishes the slot. */
struct gexi_amq_slot *gexi_shm_am_reserve_slow(gex_Rank_t local_index, int is_req,
                                               gex_Flags_t flags, uint64_t *pos);
static inline struct gexi_amq_slot *gexi_shm_am_reserve(gex_Rank_t local_index, int is_req,
                                                        gex_Flags_t flags, uint64_t *pos) {
  struct gexi_shm_node *n = gexi_ctx.shm;
  struct gexi_amq_slot *s = gexi_amq_reserve(is_req ? n->req[local_index] : n->rep[local_index], pos);
  if (GEXI_LIKELY(s != NULL)) return s;
  return gexi_shm_am_reserve_slow(local_index, is_req, flags, pos);
}

/* Copies into and out of the memory of a process of this node that is not
 * mapped here -- a segment of client memory (gex_Segment_Create with an
 * address) -- through the kernel (process_vm_writev/readv; shm_cma.c).
 * Complete on return.  'fn' names the call in the message that ends the job
 * when the kernel refuses. */
void gexi_shm_cma_write(const char *fn, gex_Rank_t jobrank, void *remote, const void *local,
                        size_t nbytes);
void gexi_shm_cma_read(const char *fn, gex_Rank_t jobrank, void *local, const void *remote,
                       size_t nbytes);

/* The doorbell of a process of the node (struct gexi_shm_ctrl): after
 * publishing what its threads may wait for, wake those asleep. */
void gexi_shm_ring_slow(struct gexi_shm_ctrl *c);
static inline void gexi_shm_ring(struct gexi_shm_ctrl *c) {
  /* The look is a read-modify-write of the count (adding 0): ordered after
   * the publication, and ordered with a sleeper's increment, so that the
   * sleeper's next look at the queues sees what was published. */
  if (GEXI_UNLIKELY(atomic_fetch_add_explicit(&c->sleepers, 0, memory_order_seq_cst)))
    gexi_shm_ring_slow(c);
}
/* ... of n processes at once (a barrier arrival, which each may wait for). */
static inline void gexi_shm_ring_all(struct gexi_shm_ctrl *const *c, gex_Rank_t n) {
  for (gex_Rank_t i = 0; i < n; i++) gexi_shm_ring(c[i]);
}
/* Sleep the calling thread on its own process's doorbell for at most
 * timeout_us, unless a message is already in its queues. */
void gexi_shm_doze(unsigned timeout_us);

/* Medium: copy into the slot.  Long: write the destination segment (mapped
 * here, or through the kernel when it is client memory) before publishing,
 * so the handler sees the data. */
static inline void gexi_shm_am_finish(gex_Rank_t local_index, struct gexi_amq_slot *s,
                                      uint64_t pos, int category, const void *payload,
                                      size_t nbytes) {
  if (nbytes) {
    if (category == GEXI_AM_MEDIUM) {
      if (payload != s->payload) memcpy(s->payload, payload, nbytes);
    } else if (category == GEXI_AM_LONG) {
      gex_Rank_t j = gexi_ctx.nbrhd_jobranks[local_index];
      const gexi_Peer_t *p = &gexi_ctx.peers[j];
      if (GEXI_LIKELY(p->local))
        memcpy((char *)(uintptr_t)s->hdr.dest + p->delta, payload, nbytes);
      else
        gexi_shm_cma_write("AM Long", j, (void *)(uintptr_t)s->hdr.dest, payload, nbytes);
    }
  }
  gexi_amq_publish(s, pos);
  gexi_shm_ring(gexi_ctx.shm->ctrl[local_index]);
}
int gexi_shm_poll(int what);
/* Publish this process's count of waiting threads ('mine', counted at
 * 'now'); returns the neighbourhood's: every neighbour's published count
 * if it is more recent than fresh_ns, else 1 (a process not seen waiting
 * is taken to run one thread). */
unsigned gexi_shm_node_waiting(unsigned mine, uint64_t now, uint64_t fresh_ns);
/* Whether a neighbour process last ran on the calling thread's CPU (its
 * stamp, published by gexi_shm_node_waiting, newer than fresh_ns): one of
 * the two waits for the CPU while the other holds it.  0: none; 1: only
 * neighbours of a higher local index; 2: one of a lower index (so that of
 * two processes sharing a CPU, one -- the higher -- is the one to move).
 * 'theirs' gets the CPUs of every neighbour so seen. */
int gexi_shm_node_colocated(uint64_t now, uint64_t fresh_ns, cpu_set_t *theirs);

/* The control region of the node process with jobrank j. */
static inline struct gexi_shm_ctrl *gexi_shm_ctrl_of(gex_Rank_t jobrank) {
  return gexi_ctx.shm->ctrl[gexi_ctx.local_index[jobrank]];
}

#endif

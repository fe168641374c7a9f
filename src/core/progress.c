/* core/progress.c -- polling and the yield policy of every wait loop. */
#include <sched.h>
#include <sys/resource.h>
#include <time.h>

#include "core/context.h"
#include "core/complete.h"
#include "core/net_ops.h"

/* Empty polls in a row before a waiting thread first yields the CPU, and
 * between its later yields.  Short enough that an oversubscribed node (7
 * ranks on 2 cores) keeps moving, long enough that a ping-pong between two
 * busy cores never yields.  The count is per thread and survives the end of
 * a wait (a wait that completes through shared memory -- a barrier, a flag
 * written by a Put -- never polls a message), so after the first yield it
 * drops back only to BEFORE - BETWEEN: otherwise every later wait of that
 * thread would yield on its first empty poll (that cost 0.2 us per on-node
 * barrier). */
#define GEXI_SPINS_BEFORE_YIELD 64
#define GEXI_SPINS_BETWEEN_YIELDS 16
/* auto with neighbours and a core for every rank: empty polls between two
 * looks at the neighbourhood (idle_decide: whether the job's waiting
 * threads still fit the cores, whether a neighbour shares this CPU).  A
 * look costs about 270 instructions; every 16 polls that was 17 of the 92
 * of an empty gasnet_AMPoll, which a runtime's progress call is.  64 polls
 * are a few microseconds, against the milliseconds that crowding costs. */
#define GEXI_SPINS_BETWEEN_LOOKS 64
/* Yields in a row after which a thread whose every peer is off-node sleeps
 * on the network (up to GEXI_BLOCK_US) instead of yielding, in the mode
 * yield: all its work then arrives through the network transport, whose
 * wait object wakes it.  With on-node peers it keeps yielding
 * (shared-memory queues have no wait object). */
#define GEXI_YIELDS_BEFORE_BLOCK 3
#define GEXI_BLOCK_US 1000
/* auto, every peer off-node: a yield that comes back within this long,
 * the thread not preempted since it last looked, found no other thread
 * wanting the core, and the wait goes on polling without sleeping; one
 * that was away longer (another thread ran: a time slice is a millisecond
 * or more), or a preemption, makes its idle moments sleep on the network
 * for GEXI_CONTENDED_NS.  So two ranks on free cores spin through a
 * ping-pong, as the reference does -- a sleep's wake-up may move the woken
 * rank onto its peer's core, and a round trip of 6 us took 9 to 13 --
 * while a rank whose core others want sleeps and is woken by its
 * message. */
#define GEXI_YIELD_AWAY_NS 20000
/* ... and for how long after such a sign every idle moment of the thread
 * sleeps, without yielding first. */
#define GEXI_CONTENDED_NS (10ull * 1000000ull)
/* On an oversubscribed host, how long a thread's polls may find nothing
 * before its wait sleeps on the network (it yields until then). */
#define GEXI_EAGER_IDLE_NS (1000ull * 1000ull)
/* auto, with neighbours: a neighbour whose latest stamp (below) says it
 * ran on this thread's CPU within this long shares the CPU with it, and
 * spinning would only keep it off: the wait sleeps on the process's
 * doorbell instead (up to GEXI_DOZE_US; a message for it or a barrier
 * arrival wakes it at once, anything else -- a flag written by a Put --
 * at the timeout).  Other programs' busy loops beside a 2-rank job had
 * the scheduler keep both ranks on one core for seconds, and a round trip
 * took a time slice (0.6 ms to 12 ms instead of 0.6 us) in a third of the
 * runs. */
#define GEXI_COLOCATED_FRESH_NS (20ull * 1000000ull)
#define GEXI_DOZE_US 100
/* ... but first, at most this often, it moves itself to a CPU that no
 * neighbour was seen on (move_off), where it need not sleep at all: the
 * scheduler otherwise tends to keep two ranks that wake each other on one
 * CPU. */
#define GEXI_MOVE_EVERY_NS (10ull * 1000000ull)
/* Every peer through the network, some on this machine: how often a thread
 * about to sleep looks whether it is on its home CPU (move_home).  A look
 * is a system call; with one every 10 ms a crowded round trip took 19 to
 * 25 us, with one every millisecond 17 to 20. */
#define GEXI_HOME_LOOK_NS 1000000ull
/* A thread counts as waiting while its latest idle moment is this recent
 * (it stamps one every GEXI_SPINS_BETWEEN_YIELDS empty polls or yields, or,
 * with neighbours, GEXI_SPINS_BETWEEN_LOOKS). */
#define GEXI_IDLE_FRESH_NS 200000
/* A neighbour's published count of waiting threads is believed this long
 * (then it counts as one running thread). */
#define GEXI_NBRHD_FRESH_NS 1000000

uint64_t gexi_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Once another rank has called gasnet_exit, a process whose polls move
 * nothing for GEXI_EXIT_QUIET_MS, in at least GEXI_EXIT_QUIET_POLLS polls,
 * ends: what its wait loops wait for can no longer come (the rank that
 * exited is gone, and every rank still on its way to its own exit has sent
 * what it owed -- a barrier's last messages -- within that time).  A poll
 * that moves something (a message handled, bytes read or written) starts
 * the quiet time again, so a wait that still makes progress is not cut,
 * and a process busy outside libgex is not ended here at all: the
 * bootstrap's watchdog ends it at the exit timeout.  Both bounds: where a
 * waiting thread polls without pause the time decides; where its empty
 * polls give the CPU away (yields and sleeps on a loaded host, while the
 * ranks it waits for run) the count does. */
#define GEXI_EXIT_QUIET_MS 250
#define GEXI_EXIT_QUIET_POLLS 64

__attribute__((noinline, cold)) static void exit_poll(int moved) {
  const uint64_t now = gexi_now_ns();
  if (moved) {
    atomic_store_explicit(&gexi_ctx.exit_quiet_since, now, memory_order_relaxed);
    atomic_store_explicit(&gexi_ctx.exit_empty_polls, 0, memory_order_relaxed);
    return;
  }
  const uint32_t empty =
      atomic_fetch_add_explicit(&gexi_ctx.exit_empty_polls, 1, memory_order_relaxed) + 1;
  const uint64_t since = atomic_load_explicit(&gexi_ctx.exit_quiet_since, memory_order_relaxed);
  if (empty >= GEXI_EXIT_QUIET_POLLS && now - since >= GEXI_EXIT_QUIET_MS * 1000000ull)
    gasnet_exit(atomic_load_explicit(&gexi_ctx.exit_code, memory_order_relaxed));
}

/* One poll of every source of messages (gexi_poll; inlined into the loops
 * of this file). */
static inline int poll_once(int what) {
  if (GEXI_UNLIKELY(gexi_ctx.rcv != NULL)) /* (only the receive thread reads it) */
    atomic_store_explicit(&gexi_ctx.poll_gen,
                          atomic_load_explicit(&gexi_ctx.poll_gen, memory_order_relaxed) + 1,
                          memory_order_relaxed);
  gexi_am_sync_msg(); /* (ThreadSanitizer only: core/complete.h) */
  /* Coalesced operations leave at the thread's next poll (not from inside a
   * handler or under a handler-safe lock, where no Request may be sent). */
  if (GEXI_UNLIKELY(gexi_tls.flush_deferred != NULL) &&
      !gexi_in_handler_or_hsl())
    gexi_tls.flush_deferred();
  int n = gexi_ctx.shm_poll(what);
  if (gexi_ctx.net) n += gexi_ctx.net->poll(what);
  if (GEXI_UNLIKELY(atomic_load_explicit(&gexi_ctx.dev_inflight, memory_order_acquire)))
    n += gexi_ctx.dev_progress();
  /* (acquire: exit_code and exit_quiet_since were stored before it) */
  if (GEXI_UNLIKELY(atomic_load_explicit(&gexi_ctx.exit_requested, memory_order_acquire)))
    exit_poll(n > 0);
  return n;
}
int gexi_poll(int what) { return poll_once(what); }

/* A sleep in one of the library's waits, counted while it lasts: the
 * receive thread takes such a thread for one in the library, not away
 * from it (core/rcv_thread.c). */
#define AS_LIB_SLEEPER(stmt)                                                    \
  do {                                                                          \
    atomic_fetch_add_explicit(&gexi_ctx.lib_sleepers, 1, memory_order_relaxed); \
    stmt;                                                                       \
    atomic_fetch_sub_explicit(&gexi_ctx.lib_sleepers, 1, memory_order_relaxed); \
  } while (0)

/* On an oversubscribed host a spinning rank holds a core that a rank with
 * work may be waiting for, and a network poll is a system call (tens of
 * microseconds for 64 of them): there every empty poll yields.
 *
 * 'may_sleep': whether this idle moment may sleep on the network.  A wait
 * for what only a poll can bring (an event, an NBI counter, a
 * GASNET_BLOCKUNTIL condition) may.  A bare gasnet_AMPoll may not: its
 * caller may be about to make the progress itself -- send the next Get of a
 * spin lock, run work of its own -- and a sleep there cost each such call up
 * to GEXI_BLOCK_US (a lock passed around four ranks on two cores took 2.5 ms
 * a handoff).  The reference's gasnet_AMPoll never sleeps either. */
/* One sleep of this thread on the network transport's wait object.  It
 * returns at once where another thread of the process polls or sleeps;
 * this one then gives its core away instead of coming straight back (a
 * rank's helper threads would otherwise spin beside the one asleep). */
static inline void net_sleep(void) {
  gexi_tls.net_sleeps++;
  int slept;
  AS_LIB_SLEEPER(slept = gexi_ctx.net->block(GEXI_BLOCK_US));
  if (!slept) {
    gexi_tls.yields++;
    sched_yield();
  }
}

/* Stamp this thread's idle moment at 'now'; returns how many threads of
 * the process are waiting (this one included). */
static unsigned waiting_threads(uint64_t now) {
  if (GEXI_UNLIKELY(gexi_tls.idle_slot == 0))
    gexi_tls.idle_slot =
        1 + atomic_fetch_add_explicit(&gexi_ctx.idle_slots, 1, memory_order_relaxed) %
                GEXI_IDLE_SLOTS;
  atomic_store_explicit(&gexi_ctx.idle_stamp[gexi_tls.idle_slot - 1], now,
                        memory_order_relaxed);
  uint32_t used = atomic_load_explicit(&gexi_ctx.idle_slots, memory_order_relaxed);
  if (used > GEXI_IDLE_SLOTS) used = GEXI_IDLE_SLOTS;
  unsigned n = 0;
  for (uint32_t i = 0; i < used; i++) {
    const uint64_t t = atomic_load_explicit(&gexi_ctx.idle_stamp[i], memory_order_relaxed);
    n += t && (int64_t)(now - t) < GEXI_IDLE_FRESH_NS; /* (a newer stamp counts too) */
  }
  return n;
}

void gexi_busy_stamp(void) {
  gexi_tls.busy_polls = 0;
  if (gexi_ctx.nbrhd_size > 1) {
    const uint64_t now = gexi_now_ns();
    (void)gexi_ctx.shm_waiting(waiting_threads(now), now, GEXI_NBRHD_FRESH_NS);
  }
}

/* Whether the calling thread was preempted (involuntary switches) since
 * its previous look; a first look only records. */
static bool preempted_since_last_look(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_THREAD, &ru) != 0) return false;
  const uint64_t n = (uint64_t)ru.ru_nivcsw + 1;
  const bool preempted = gexi_tls.preemptions && n != gexi_tls.preemptions;
  gexi_tls.preemptions = n;
  return preempted;
}

/* Move the calling thread to CPU 'cpu': pinned to it alone, then given its
 * whole 'mask' back at once (the thread stays where it was moved until the
 * scheduler balances again).  Whether it moved. */
static bool move_to(int cpu, const cpu_set_t *mask) {
  cpu_set_t to;
  CPU_ZERO(&to);
  CPU_SET(cpu, &to);
  if (sched_setaffinity(0, sizeof to, &to) != 0) return false;
  (void)sched_setaffinity(0, sizeof *mask, mask);
  gexi_tls.moves++;
  return true;
}

/* Move the calling thread to a CPU of its affinity mask that no
 * neighbour was seen on, at most once per GEXI_MOVE_EVERY_NS (move_to).
 * False where it
 * did not move: a mask of one CPU (a launcher's binding), every other CPU
 * a neighbour's, a move too recent. */
static bool move_off(uint64_t now, const cpu_set_t *theirs) {
  if (now - gexi_tls.moved_at < GEXI_MOVE_EVERY_NS) return false;
  cpu_set_t mask;
  const int me = sched_getcpu();
  if (me < 0 || sched_getaffinity(0, sizeof mask, &mask) != 0) return false;
  int target = -1;
  for (int c = 0; c < CPU_SETSIZE && target < 0; c++)
    if (c != me && CPU_ISSET(c, &mask) && !CPU_ISSET(c, theirs)) target = c;
  if (target < 0 || !move_to(target, &mask)) return false;
  gexi_tls.moved_at = now; /* (only a move counts: a mask widened later may move at once) */
  return true;
}

/* Every peer through the network, but some on this machine (network
 * namespaces standing for hosts, GEX_SUPERNODE_MAXSIZE=1), and a CPU of the
 * affinity mask for each of the job's ranks here: before a sleep on the
 * network, and every GEXI_SPINS_BEFORE_YIELD empty polls of a wait in the
 * mode spin (which UPC++ sets where the host has a core for each of its
 * ranks), a thread found off its home CPU -- the one at its rank's place
 * among the machine's ranks (machine_index) in its mask -- moves back there
 * (move_to); it looks at most
 * once per GEXI_HOME_LOOK_NS.  The scheduler wakes a sleeping rank on its
 * waker's CPU, so two ranks that wake each other end up on one CPU, and
 * beside other programs' busy loops a round trip then took 44 to 130 us
 * instead of 17 to 26 (Open MPI's mpirun binds each rank to its own core
 * for the same reason); spinning, UPC++'s rput beside three busy loops
 * took 80 to 190 us instead of 58 to 72.  'if_preempted' (spinning): only
 * where the thread was preempted since its last look -- others want its
 * CPU --, so that on a machine with idle CPUs the scheduler's placement
 * stands.  Only where this thread is its process's one waiting thread: a
 * rank's helper threads keep the scheduler's placement. */
static void move_home(uint64_t now, bool if_preempted) {
  if (gexi_ctx.machine_ranks < 2 || now - gexi_tls.moved_at < GEXI_HOME_LOOK_NS) return;
  gexi_tls.moved_at = now; /* (a look counts: the mask is read at most that often) */
  if (if_preempted && !preempted_since_last_look()) return;
  cpu_set_t mask;
  const int me = sched_getcpu();
  if (me < 0 || sched_getaffinity(0, sizeof mask, &mask) != 0) return;
  const int n = CPU_COUNT(&mask);
  if (n < 2 || gexi_ctx.machine_ranks > (uint32_t)n || waiting_threads(now) > 1) return;
  int k = (int)(gexi_ctx.machine_index % (uint32_t)n), home = -1;
  for (int c = 0; c < CPU_SETSIZE && home < 0; c++)
    if (CPU_ISSET(c, &mask) && k-- == 0) home = c;
  if (home >= 0 && home != me) (void)move_to(home, &mask);
}

/* What an idle moment does once it is not only counted (idle, below). */
__attribute__((noinline)) static void idle_decide(bool may_sleep) {
  const bool eager = gexi_ctx.host_oversubscribed;
  const int mode = atomic_load_explicit(&gexi_ctx.wait_mode, memory_order_relaxed);
  if (mode == GEXI_WAIT_SPIN && !eager) {
    gexi_tls.idle_polls = 0; /* (counted inline again) */
    /* (a spin on the CPU of the peer it waits for keeps that peer off) */
    if (gexi_ctx.nbrhd_size == 1) move_home(gexi_now_ns(), true);
    return;
  }
  /* auto, with neighbours in shared memory and a core for every rank of
   * this host: spin, as the reference does.  A yield there hands the core
   * to whatever else runs on the host -- another program's busy loop keeps
   * it for a whole time slice -- and a round trip with a neighbour that
   * stays on its core took milliseconds instead of a microsecond
   * (docs/design.md, "Waiting without starving others").  Without
   * neighbours, every message comes through the network, whose descriptor
   * wakes a sleeping rank: auto then yields, and sleeps where another
   * thread wants the core (GEXI_YIELD_AWAY_NS).
   * 'eager' counts the job's ranks in every namespace of the machine, so
   * ranks in namespaces standing for hosts do not spin against each other
   * (another job's ranks still can). */
  if (mode == GEXI_WAIT_AUTO && !eager && gexi_ctx.nbrhd_size > 1) {
    /* ... unless the job's threads that want a core here outnumber the
     * cores: each process of the neighbourhood publishes how many of its
     * threads wait (a rank's helper threads), and one not seen waiting
     * counts as one running thread.  Spinning then would keep the core
     * from a thread that is waited for, so the wait yields as in the mode
     * yield.  Two ranks of two threads each on two cores, one rank
     * spinning in a barrier while the other's threads passed flags
     * through it, took 4 s for 0.1.  Other programs' threads are not
     * counted: yielding to a busy loop loses the core for a time slice. */
    if (++gexi_tls.idle_polls < GEXI_SPINS_BEFORE_YIELD) return;
    gexi_tls.idle_polls = GEXI_SPINS_BEFORE_YIELD - GEXI_SPINS_BETWEEN_LOOKS;
    const uint64_t now = gexi_now_ns();
    uint64_t w = gexi_ctx.shm_waiting(waiting_threads(now), now, GEXI_NBRHD_FRESH_NS);
    if (gexi_ctx.machine_ranks > gexi_ctx.nbrhd_size)
      w += gexi_ctx.machine_ranks - gexi_ctx.nbrhd_size; /* one thread each */
    if (gexi_ctx.cpus == 0 || w <= gexi_ctx.cpus) {
      cpu_set_t theirs;
      const int shared = gexi_ctx.shm_colocated(now, GEXI_COLOCATED_FRESH_NS, &theirs);
      if (shared && !(shared == 2 && move_off(now, &theirs))) {
        gexi_tls.shm_dozes++;
        AS_LIB_SLEEPER(gexi_ctx.shm_doze(GEXI_DOZE_US));
      }
      return;
    }
    gexi_tls.yields++;
    sched_yield();
    return;
  }
  const unsigned before = eager ? 1 : GEXI_SPINS_BEFORE_YIELD;
  if (++gexi_tls.idle_polls >= before) {
    gexi_tls.idle_polls = eager ? 0 : GEXI_SPINS_BEFORE_YIELD - GEXI_SPINS_BETWEEN_YIELDS;
    const bool can_block = may_sleep && gexi_ctx.net && gexi_ctx.net->block &&
                           gexi_ctx.nbrhd_size == 1 &&
                           !atomic_load_explicit(&gexi_ctx.dev_inflight, memory_order_relaxed);
    if (can_block && eager) {
      /* An oversubscribed host yields, whatever the mode, until the thread
       * has been idle for GEXI_EAGER_IDLE_NS: the ranks with work there
       * are mostly this job's, runnable on this host, and a yield hands
       * them the core sooner than a sleep whose wake-up must be scheduled
       * (the reference's testacc, a lock passed around four ranks on two
       * cores, took 1.4 times the reference's time when each wait slept
       * after three yields, and 0.7 times when it only yielded).  A wait
       * that lasts longer -- a barrier among a thousand ranks -- sleeps,
       * so that the ranks with work get the cores. */
      const uint64_t now = gexi_now_ns();
      if (gexi_tls.idle_yields++ == 0) gexi_tls.idle_since = now;
      if (now - gexi_tls.idle_since >= GEXI_EAGER_IDLE_NS) {
        net_sleep();
      } else {
        gexi_tls.yields++;
        sched_yield();
      }
    } else if (can_block && mode != GEXI_WAIT_AUTO &&
               (mode == GEXI_WAIT_BLOCK || ++gexi_tls.idle_yields >= GEXI_YIELDS_BEFORE_BLOCK)) {
      gexi_tls.idle_yields = 0;
      move_home(gexi_now_ns(), false);
      net_sleep();
    } else if (can_block && mode == GEXI_WAIT_AUTO) {
      const uint64_t t0 = gexi_now_ns();
      if (t0 < gexi_tls.contended_until) { /* others want the core: sleep */
        move_home(t0, false);
        net_sleep();
        return;
      }
      gexi_tls.yields++;
      sched_yield();
      const uint64_t t1 = gexi_now_ns();
      /* A yield may come back at once although others want the core (the
       * scheduler can pick the yielder again); a preemption since the last
       * look says so too. */
      const bool preempted = preempted_since_last_look();
      if (preempted || t1 - t0 >= GEXI_YIELD_AWAY_NS)
        gexi_tls.contended_until = t1 + GEXI_CONTENDED_NS;
    } else {
      gexi_tls.yields++;
      sched_yield();
    }
  }
}

/* Most idle moments of a host with a core for every rank only count
 * (GEXI_SPINS_BEFORE_YIELD of them before any yield; idle_decide then
 * counts on from GEXI_SPINS_BEFORE_YIELD - GEXI_SPINS_BETWEEN_YIELDS):
 * that count stays inline, the rest of the policy out of line.  An
 * oversubscribed host decides at every one. */
static inline void idle(bool may_sleep) {
  if (GEXI_LIKELY(!gexi_ctx.host_oversubscribed &&
                  gexi_tls.idle_polls + 1 < GEXI_SPINS_BEFORE_YIELD)) {
    gexi_tls.idle_polls++;
    return;
  }
  idle_decide(may_sleep);
}

void gexi_idle(void) { idle(true); }

void gexi_settle_slow(int timeout_ms) { gexi_ctx.net->settle(timeout_ms); }

uint64_t gexi_net_sleeps(void) { return gexi_tls.net_sleeps; }
uint64_t gexi_wait_yields(void) { return gexi_tls.yields; }
uint64_t gexi_shm_dozes(void) { return gexi_tls.shm_dozes; }
uint64_t gexi_cpu_moves(void) { return gexi_tls.moves; }

void gexi_set_wait_mode(int mode) {
  atomic_store_explicit(&gexi_ctx.wait_mode, mode, memory_order_relaxed);
}
int gexi_wait_mode(void) { return atomic_load_explicit(&gexi_ctx.wait_mode, memory_order_relaxed); }

/* One poll of a caller's own loop; an empty one idles (may_sleep: see idle). */
static void poll_step(const char *fn, bool may_sleep) {
  (void)fn; /* (the check is compiled out with GEX_CHECKS=OFF) */
  gexi_check_can_communicate(fn);
  if (poll_once(GEXI_POLL_ALL))
    gexi_busy();
  else
    idle(may_sleep);
}

int gasnet_AMPoll(void) {
  poll_step("gasnet_AMPoll", false);
  return GASNET_OK;
}

void gexi_blockuntil_poll(void) { poll_step("GASNET_BLOCKUNTIL", true); }

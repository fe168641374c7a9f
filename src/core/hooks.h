/* core/hooks.h -- the internal hooks the core offers to layers built on
 * its public API (the GASNet-1 layer in src/legacy uses all four).  The core
 * knows nothing about those layers; it only honours these contracts.
 *
 * 1. Client-init hook.  A layer that keeps the primordial objects in its own
 *    context (so that its static inline calls need no lookup) registers one
 *    function, normally from a constructor of the object file that defines
 *    that context.  gex_Client_Init calls it once, after the client is fully
 *    initialised and before it returns, on the thread that called
 *    gex_Client_Init.  At most one hook exists; a second registration
 *    replaces the first.
 *
 * 2. GEXI_FLAG_AM_ANY in gex_AM_Entry_t.gex_flags.  An entry with this bit
 *    is registered without the category and Request/Reply flags and is run
 *    for any category, direction and argument count (the receiver's misuse
 *    checks of those three are skipped for it).  GASNet-1 handler tables
 *    carry no such information.
 *
 * 3. A barrier that also reduces three words with MAX (the GASNet-1 named
 *    barrier's names and mismatch flag), at the cost of a plain barrier, on
 *    a team whose collectives run on shared memory (every member on this
 *    node; coll/coll.c).  gexi_coll_barrier_max3 publishes 'mine' and
 *    initiates what gex_Coll_BarrierNB(tm, 0) initiates (one barrier, in
 *    the team's collective order), returning its generation in *seq; once
 *    *ev is complete, gexi_coll_barrier_max3_result gives the member-wise
 *    maximum of every member's words.  The caller reads each result before
 *    it starts its next such barrier on the team (two generations of words
 *    are kept).  Returns 0, initiating nothing, on a team whose collectives
 *    run over the network: the caller uses a reduction instead.
 */
#ifndef GEXI_CORE_HOOKS_H
#define GEXI_CORE_HOOKS_H

#include <gasnetex.h>

#define GEXI_FLAG_AM_ANY ((gex_Flags_t)1u << 31)

typedef void (*gexi_client_init_hook_t)(gex_Client_t client, gex_EP_t ep, gex_TM_t tm,
                                        gex_Flags_t flags);
void gexi_set_client_init_hook(gexi_client_init_hook_t fn);

int gexi_coll_barrier_max3(gex_TM_t tm, const uint64_t mine[3], gex_Event_t *ev, uint64_t *seq);
void gexi_coll_barrier_max3_result(gex_TM_t tm, uint64_t seq, uint64_t out[3]);

/* 4. The wait policy (core/progress.c, GEX_WAIT_MODE): how every thread of
 *    the process waits once its polls find nothing, from the next wait on.
 *    gex_Client_Init sets it from GEX_WAIT_MODE; gexi_set_wait_mode changes
 *    it later (gasnet_set_waitmode); gexi_wait_mode tells it (tests), and
 *    gexi_net_sleeps how often the calling thread has slept on the network. */
enum { GEXI_WAIT_YIELD = 0, GEXI_WAIT_BLOCK = 1, GEXI_WAIT_SPIN = 2, GEXI_WAIT_AUTO = 3 };
void gexi_set_wait_mode(int mode);
int gexi_wait_mode(void);
uint64_t gexi_net_sleeps(void);
/* How often the calling thread's waits have yielded the CPU. */
uint64_t gexi_wait_yields(void);
/* ... and slept on its process's doorbell (a neighbour on its CPU). */
uint64_t gexi_shm_dozes(void);
/* ... and moved itself off a CPU it shared with a neighbour. */
uint64_t gexi_cpu_moves(void);

#endif

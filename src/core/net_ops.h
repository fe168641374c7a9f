/* core/net_ops.h -- the table of a network transport's operations, as the
 * core and the layers above call them (gexi_ctx.net).  Declared here, below
 * the transports, as UCS declares the callbacks its progress engine runs:
 * the core's progress, events and NBI waits call through it without
 * knowing which transport fills it (transport/transport.h, which every
 * transport is written against, includes this file).
 */
#ifndef GEXI_NET_OPS_H
#define GEXI_NET_OPS_H

#include "core/context.h"

struct gexi_am_hdr; /* transport/am_wire.h */

/* One transfer of get_exposed or put_exposed (below): nbytes between
 * 'local' (any memory of this process) and raddr of the peer's exposed
 * region 'key'. */
struct gexi_exposed_rma {
  void *local;
  uint64_t raddr, key;
  size_t nbytes;
  /* rma_exposed, an NBI Put: its source may stay in use until the NBI
   * operations complete (lc_opt GEX_EVENT_DEFER or GROUP); 0: reusable on
   * return. */
  int lc_deferred;
};

struct gexi_net_ops {
  const char *name;
  /* Run completions and deliver received AMs; returns work done. */
  int (*poll)(int what);
  /* Sleep until the network may have work for this process or timeout_us
   * passes; returns at once when it cannot tell (no wait object, or
   * another thread of the process polls).  Returns whether it slept. */
  int (*block)(int timeout_us);
  /* Poll until no frame waits for its connection to be made (gexi_ctx.
   * net_unsent is 0), or for at most timeout_ms when it is not negative;
   * NULL when frames never wait so. */
  void (*settle)(int timeout_ms);
  /* Send an AM: returns non-zero only for an IMMEDIATE refusal; the payload
   * is reusable on return. */
  int (*am_send)(gex_Rank_t jobrank, const struct gexi_am_hdr *h, const void *payload,
                 gex_Flags_t flags);
  /* The same for a Short, from its fields (the fast path of the commonest
   * AM: no header assembled by the caller).  'ch' is 0 for a Request, 1 for a Reply (the argument order is
   * gex_AM_RequestShort's, so that it passes its own through). */
  int (*am_short)(int ch, gex_Rank_t jobrank, gex_AM_Index_t handler, gex_Flags_t flags,
                  unsigned nargs, const gex_AM_Arg_t *args);
  /* RMA to a peer that is not mapped here; 'mode' as in gex_inline.h. */
  gex_Event_t (*put)(gex_Rank_t jobrank, void *dest, const void *src, size_t nbytes,
                     gex_Event_t *lc_opt, gex_Flags_t flags, int mode);
  gex_Event_t (*get)(gex_Rank_t jobrank, void *dest, void *src, size_t nbytes,
                     gex_Flags_t flags, int mode);
  /* An NBI Put with a team's put_nbi entry's arguments (gex_inline.h): the
   * teams' entry where small Puts are not coalesced, and where the
   * coalescing entry sends those it does not coalesce.  It does what it can
   * do at once (a small Put to a peer on another node, the common case) and
   * hands everything else to gexi_rma_put_nbi_general (rma/rma_remote.c),
   * which reaches neighbours and the put entry above.  Non-zero only for an
   * IMMEDIATE refusal. */
  gexi_put_nbi_fn_t put_nbi;
  /* Non-zero while implicit operations (GEX_EC_* mask) are in flight. */
  int (*nbi_test)(gex_EC_t mask);
  /* Is the transport's event (kind GEXI_EV_NET) complete?  *moved: whether
   * testing it made progress. */
  int (*event_done)(gex_Event_t e, int *moved);
  /* Release a synced event of the transport (a leaf stays until its root is
   * released), and find a root's leaf of one category (GEX_EVENT_INVALID:
   * none, or complete already). */
  void (*event_free)(gex_Event_t e);
  gex_Event_t (*event_leaf)(gex_Event_t root, gex_EC_t category);
  /* An access region begins on this thread; the event completing the NBI
   * operations of the one that just ended (GEX_EVENT_INVALID: nothing in
   * flight). */
  void (*region_begin)(void);
  gex_Event_t (*region_event)(void);
  /* Segment attach: register this process's segment (returns the key to
   * publish), then learn each off-node peer's key. */
  void (*seg_register)(void *base, uintptr_t size, uint64_t *key);
  void (*seg_peer)(gex_Rank_t jobrank, uint64_t key);
  /* Provider-native remote atomics (atomic/ad.c chooses them per domain,
   * docs/atomics.md).  atomic_valid: 1 iff the provider performs data type
   * 'dt' with every opcode in 'ops' natively; atomic_in_hw: 1 iff its atomics
   * are done by the NIC rather than emulated in the target's progress;
   * atomic_provider: its name, for messages.  atomic: one operation on
   * 'addr' (the target's address) of any rank, this process included;
   * operands are bit patterns zero extended to 64 bits; a fetching op
   * writes *result_p before completion is observable.  'mode' is
   * GEXI_MODE_NB (returns the event) or GEXI_MODE_NBI (returns
   * GEX_EVENT_INVALID; tracked for gex_NBI_* and access regions). */
  int (*atomic_valid)(gex_DT_t dt, gex_OP_t ops);
  int (*atomic_in_hw)(void);
  const char *(*atomic_provider)(void);
  gex_Event_t (*atomic)(const char *fn, gex_Rank_t jobrank, gex_DT_t dt, gex_OP_t op, void *addr,
                        uint64_t operand1, uint64_t operand2, void *result_p, gex_Flags_t flags,
                        int mode);
  /* VIS (vis/vis.c): the largest contiguous piece worth packing into AMs
   * rather than moving by an RMA operation of its own.  Small where the
   * NIC does RMA, larger where the provider emulates it in software and
   * every operation costs a message exchange. */
  size_t (*vis_pack_max)(void);
  /* The largest NBI Put worth carrying in a coalesced AM batch
   * (am/am_coalesce.c) rather than by an RMA operation of its own: 0 where
   * the NIC does RMA without the target's CPU. */
  size_t (*coalesce_put_max)(void);
  /* Rendezvous (coll/coll_am_rdv.c): expose opens [buf, buf+len) of this
   * process to remote reads and writes until unexpose(handle), and returns
   * in *key and *raddr what a peer passes to get_exposed or put_exposed to
   * reach byte 0 of it.  get_exposed makes the n reads r[] from regions
   * jobrank exposed (into r[i].local), all in flight at once, and returns
   * once every one is done.  put_exposed, usable where put_ordered() says
   * a send is delivered after the writes posted before it, posts the n
   * writes w[] (from w[i].local) to regions jobrank exposed, calls
   * then(arg, first, k) once writes first..first+k-1 are posted -- a
   * message sent to jobrank from 'then' or later arrives after their bytes
   * have landed -- and returns once every write is locally complete (its
   * source reusable).  A region the peer did not expose, or a transfer past
   * its end, ends the job with the provider's error. */
  void *(*expose)(const void *buf, size_t len, uint64_t *key, uint64_t *raddr);
  void (*unexpose)(void *handle);
  void (*get_exposed)(gex_Rank_t jobrank, size_t n, const struct gexi_exposed_rma *r);
  int (*put_ordered)(void);
  void (*put_exposed)(gex_Rank_t jobrank, size_t n, const struct gexi_exposed_rma *w,
                      void (*then)(void *arg, size_t first, size_t k), void *arg);
  /* One transfer with a region jobrank exposed (the segment of one of its
   * endpoints of index > 0, rma/rma_ep.c), as put/get do with the
   * segment: GEXI_MODE_BLOCKING, complete on return (a write has landed at
   * the peer, a read is in x->local); NB, its event; NBI, counted with the
   * thread's NBI operations (or its access region's).  The source is
   * reusable on return.  A transport may complete an NB or NBI one before
   * it returns (GEX_EVENT_INVALID). */
  gex_Event_t (*rma_exposed)(gex_Rank_t jobrank, int is_write, const struct gexi_exposed_rma *x,
                             int mode);
};

#endif

/* atomic/ad.h -- the object behind a gex_AD_t, and the internal interface
 * between the atomic operations (atomic/ad_ops.c), the domain calls
 * (atomic/ad.c) and, later, an off-node transport.
 *
 * How a target is served is decided once, by gex_AD_Create, and stored in
 * the domain (see docs/atomics.md):
 *
 *   impl_local   targets whose segment is mapped here (peer entry 'local'
 *                != 0: on this node, memory libgex allocated).
 *                GEXI_AD_IMPL_CPU: __atomic operations on the target's
 *                segment, mapped here at address + delta.  GEXI_AD_IMPL_AM
 *                only under the testing switch GEX_AD_FORCE_AM=1.
 *   impl_remote  the other targets: on other nodes, or neighbours whose
 *                segment is client memory (not mapped here).
 *                GEXI_AD_IMPL_AM (atomic/ad_am.c), or GEXI_AD_IMPL_NET (the
 *                provider's atomics, transport/ofi/ofi_atomic.c) when the
 *                members agree on it (GEX_AD_NATIVE policy, and the provider
 *                supports (dt, every op of the domain) natively).  A NET
 *                domain sets impl_local to NET too: the provider's atomics
 *                are not atomic with respect to CPU atomics, so every
 *                operation of the domain goes through the provider.  An AM
 *                domain keeps CPU for on-node targets, since the AM handler
 *                at the target uses the same CPU atomics.
 */
#ifndef GEXI_ATOMIC_AD_H
#define GEXI_ATOMIC_AD_H

#include <gasnet_ratomic.h>
#include <stdbool.h>

#include "core/context.h"
#include "core/op_names.h"

enum gexi_ad_impl {
  GEXI_AD_IMPL_NONE = 0, /* no way to reach the target: fatal */
  GEXI_AD_IMPL_CPU = 1,  /* CPU atomics on the mapped segment */
  GEXI_AD_IMPL_NET = 2,  /* the network provider's atomics (fi_atomic & co.) */
  GEXI_AD_IMPL_AM = 3,   /* an Active Message; the target applies CPU atomics */
};

struct gexi_AD {
  /* Read by every operation. */
  const gexi_Peer_t *peers; /* the team's peer table, by team rank */
  uint32_t cpu_local;       /* 1 iff impl_local == GEXI_AD_IMPL_CPU */
  gex_Rank_t size;          /* team size */
  gex_DT_t dt;
  gex_OP_t ops;
  gex_Rank_t rank; /* this process's rank in the team */
  /* Read by the out-of-line paths and the queries. */
  uint8_t impl_local, impl_remote; /* enum gexi_ad_impl */
  bool jobrank_is_rank;            /* team rank == jobrank for every member */
  gex_TM_t tm;
  gex_Flags_t flags;
  void *cdata;
};

/* Every opcode valid for remote atomics, and the bit-wise subset. */
#define GEXI_AD_ALL_OPS                                                                        \
  (GEX_OP_ADD | GEX_OP_MULT | GEX_OP_MIN | GEX_OP_MAX | GEX_OP_SUB | GEX_OP_INC | GEX_OP_DEC | \
   GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR | GEX_OP_SET | GEX_OP_CAS | GEX_OP_GET | GEX_OP_FADD |  \
   GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FSUB | GEX_OP_FINC | GEX_OP_FDEC |        \
   GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_SWAP | GEX_OP_FCAS)
#define GEXI_AD_BITWISE_OPS \
  (GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR)
#define GEXI_AD_INT_DTS (GEX_DT_I32 | GEX_DT_U32 | GEX_DT_I64 | GEX_DT_U64)
#define GEXI_AD_ALL_DTS (GEXI_AD_INT_DTS | GEX_DT_FLT | GEX_DT_DBL)
/* Flags an operation may carry. */
#define GEXI_AD_OP_FLAGS                                                               \
  (GEX_FLAG_IMMEDIATE | GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD | GEX_FLAG_AD_ACQ | \
   GEX_FLAG_AD_REL | GEX_FLAG_RANK_IS_JOBRANK)
/* Flags that send an operation to the out-of-line path (ordering, jobrank). */
#define GEXI_AD_SLOW_FLAGS (GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL | GEX_FLAG_RANK_IS_JOBRANK)

#if GEX_CHECKS
/* Every misuse check of one operation ('rank' is a team rank).  Branch-light:
 * one combined test for the common case, details only when hints are given. */
static inline bool gexi_ad_ok(gex_AD_t ad, gex_DT_t dt, size_t size, const void *result_p,
                              gex_Rank_t rank, const void *addr, gex_OP_t op, gex_Flags_t flags) {
  if (GEXI_UNLIKELY(ad == GEX_AD_INVALID)) return false;
  uintptr_t bad = (uintptr_t)(ad->dt ^ dt) | (uintptr_t) !(op & ad->ops) |
                  (uintptr_t)(op & (op - 1)) | ((uintptr_t)addr & (size - 1)) |
                  (uintptr_t)(flags & ~GEXI_AD_OP_FLAGS) | (uintptr_t)(rank >= ad->size) |
                  (uintptr_t)((result_p == NULL) & ((op & GEXI_FETCHING_OPS) != 0));
  if (GEXI_UNLIKELY(bad)) return false;
  const gexi_Peer_t *p = ad->peers + rank;
  uintptr_t off = (uintptr_t)addr - p->seg_base;
  if (GEXI_UNLIKELY(off > p->seg_size || size > p->seg_size - off)) return false;
  if (GEXI_UNLIKELY(flags & (GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD))) {
    if ((flags & GEX_FLAG_AD_MY_RANK) && (flags & GEX_FLAG_AD_MY_NBRHD)) return false;
    if ((flags & GEX_FLAG_AD_MY_RANK) && rank != ad->rank) return false;
    if ((flags & GEX_FLAG_AD_MY_NBRHD) && gexi_ctx.local_index[p->jobrank] == GEX_RANK_INVALID)
      return false;
  }
  return true;
}
#endif

/* Report the first failed check of an operation (one line naming the call and
 * the values) and end the job. */
GEXI_COLD void gexi_ad_bad(const char *fn, gex_AD_t ad, gex_DT_t dt, size_t size,
                           const void *result_p, gex_Rank_t rank, const void *addr, gex_OP_t op,
                           gex_Flags_t flags);

/* GEX_FLAG_RANK_IS_JOBRANK: the team rank of 'jobrank' (fatal if the jobrank
 * is not a member of the domain's team). */
gex_Rank_t gexi_ad_jobrank_to_rank(const char *fn, gex_AD_t ad, gex_Rank_t jobrank);

/* A target that the CPU path does not serve (another node, or a domain whose
 * impl_local is not CPU).  Operands are passed as their bit patterns, zero
 * extended to 64 bits; 'mode' is GEXI_MODE_NB or GEXI_MODE_NBI.  Returns the
 * event (NB) or GEX_EVENT_INVALID / GEX_EVENT_NO_OP (NBI). */
gex_Event_t gexi_ad_remote(const char *fn, int mode, gex_AD_t ad, gex_DT_t dt, void *result_p,
                           gex_Rank_t rank, void *addr, gex_OP_t op, uint64_t operand1,
                           uint64_t operand2, gex_Flags_t flags);

/* The CPU operation of atomic/ad_ops.c on 'p' (this process's memory) for
 * callers that have the data type at run time (the AM handler of
 * atomic/ad_am.c): operands and the return value are bit patterns, zero
 * extended to 64 bits; returns the prior value (also for non-fetching
 * opcodes, whose caller ignores it).  'order': GEX_FLAG_AD_ACQ/REL bits. */
uint64_t gexi_ad_cpu_apply(gex_DT_t dt, void *p, gex_OP_t op, uint64_t operand1,
                           uint64_t operand2, gex_Flags_t order);

/* The operation as an Active Message to the target (atomic/ad_am.c); the
 * arguments and result as for gexi_ad_remote (IMMEDIATE refusal: NO_OP). */
gex_Event_t gexi_ad_am_op(int mode, gex_AD_t ad, gex_DT_t dt, void *result_p, gex_Rank_t rank,
                          void *addr, gex_OP_t op, uint64_t operand1, uint64_t operand2,
                          gex_Flags_t flags);


#endif

/* gex/gex_inline.h -- libgex internal: the inline RMA fast path.
 *
 * Not for direct inclusion; gasnetex.h includes it.  Everything named gexi_
 * is internal and may change between releases.
 *
 * The fast path: an RMA to a peer whose segment is mapped into this process
 * (same node) is a rank check, a segment bounds check (both only when the
 * library is built with GEX_CHECKS) and a memcpy through a precomputed
 * address delta.  No locks, no allocation, no function pointers.  Peers that
 * are not mapped here go to an out-of-line transport call.
 */
#ifndef GEX_INLINE_H
#define GEX_INLINE_H

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GEXI_LIKELY(x) __builtin_expect(!!(x), 1)
#define GEXI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define GEXI_INLINE static inline __attribute__((always_inline))
#define GEXI_COLD __attribute__((cold, noinline, noreturn))
#else
#define GEXI_LIKELY(x) (x)
#define GEXI_UNLIKELY(x) (x)
#define GEXI_INLINE static inline
#define GEXI_COLD
#endif

/* One entry per member of a team, indexed by team rank.
 * Invariant: seg_base/seg_size describe the member's bound segment in the
 * owner's address space (seg_size == 0: no segment known).  When 'local'
 * is non-zero the segment is mapped in this process at seg_base + delta;
 * 'local' is clear for members on other nodes and for neighbours whose
 * segment is client memory (gex_Segment_Create with an address), which the
 * out-of-line path reaches.  The segment fields of an entry change only
 * when that member's segment becomes known (gex_Segment_Attach,
 * gex_EP_BindSegment, gex_EP_PublishBoundSegment), and never again after. */
typedef struct gexi_Peer {
  uintptr_t seg_base;
  uintptr_t seg_size;
  intptr_t delta;
  gex_Rank_t jobrank;
  uint32_t local;
} gexi_Peer_t;

/* The library's entry for an NBI Put to a peer not mapped here: tm, src,
 * nbytes, rank, dest and lc_flags (GEXI_LC_FLAGS below), all in registers,
 * src and nbytes where a provider's write call takes its buffer and length
 * (the network's entry passes them on unmoved).  Non-zero:
 * GEX_FLAG_IMMEDIATE refused it. */
typedef int (*gexi_put_nbi_fn_t)(gex_TM_t, const void *, size_t, gex_Rank_t, void *, uint64_t);

/* A gex_TM_t (team or TM-pair) points at entry 0 of the team's peer table,
 * so (tm, rank) names its peer entry with no load.  Right before the table
 * are the entry gex_RMA_PutNBI calls for such peers (chosen by the library
 * once it knows its transports: a call through it costs the caller no more
 * than a direct call), the team size and this process's rank in it; the
 * rest of the team object (before those) is private to the library. */
struct gexi_TM_head {
  gexi_put_nbi_fn_t put_nbi;
  gex_Rank_t size;
  gex_Rank_t rank;
};
#define GEXI_TM_HEAD(tm) (((const struct gexi_TM_head *)(const void *)(tm)) - 1)
#define GEXI_TM_PEERS(tm) ((const gexi_Peer_t *)(const void *)(tm))
#define GEXI_TM_SIZE(tm) (GEXI_TM_HEAD(tm)->size)

/* Out-of-line error reports: print one line naming the call and values, then
 * end the whole job with a non-zero status. */
GEXI_COLD void gexi_bad_rank(const char *fn, gex_TM_t tm, gex_Rank_t rank);
GEXI_COLD void gexi_bad_range(const char *fn, gex_TM_t tm, gex_Rank_t rank, const void *addr,
                              size_t nbytes);
GEXI_COLD void gexi_bad_value_size(const char *fn, size_t nbytes);
/* 'what' (a buffer argument) is NULL while nbytes > 0. */
GEXI_COLD void gexi_bad_null(const char *fn, const char *what, size_t nbytes);
/* lc_opt not allowed for the call (NBI: NOW, DEFER or GROUP; NB: NOW, DEFER
 * or an event pointer). */
GEXI_COLD void gexi_bad_lc_opt(const char *fn, const void *lc_opt, int nbi);
/* flags has bits outside 'allowed', the flags defined for the call. */
GEXI_COLD void gexi_bad_flags(const char *fn, gex_Flags_t flags, gex_Flags_t allowed);

/* The flags a point-to-point call may take (RMA, and the fixed-payload AM
 * calls): IMMEDIATE, the local-completion copy hints, the segment
 * disposition assertions and the PEER_NEVER_* assertions.  Flags of other
 * families share these bits' neighbours (gasnet_fwd.h), so each call checks
 * its own set. */
#define GEXI_FLAGS_P2P                                                                   \
  (GEX_FLAG_IMMEDIATE | GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO |                      \
   GEX_FLAG_SELF_SEG_UNKNOWN | GEX_FLAG_SELF_SEG_SOME | GEX_FLAG_SELF_SEG_BOUND |          \
   GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_PEER_SEG_SOME |         \
   GEX_FLAG_PEER_SEG_BOUND | GEX_FLAG_PEER_SEG_OFFSET | GEX_FLAG_PEER_NEVER_SELF |         \
   GEX_FLAG_PEER_NEVER_NBRHD)

/* The AM_PREPARE_LEAST_* flags: for the AM Max* queries and (ignored) for
 * the Prepare calls, never for the fixed-payload calls. */
#define GEXI_FLAGS_AM_LEAST (GEX_FLAG_AM_PREPARE_LEAST_CLIENT | GEX_FLAG_AM_PREPARE_LEAST_ALLOC)

/* Argument checks of the inline calls (GEX_CHECKS only).  With the
 * arguments constant or loop-invariant, as they usually are, the compiler
 * folds or hoists them out of the caller's loop. */
#if GEX_CHECKS
#define GEXI_CHECK_FLAGS(fn, flags, ok)                                                  \
  do {                                                                                   \
    if (GEXI_UNLIKELY((flags) & ~(gex_Flags_t)(ok))) gexi_bad_flags(fn, flags, ok);      \
  } while (0)
#define GEXI_CHECK_BUF(fn, what, p, nbytes)                                              \
  do {                                                                                   \
    if (GEXI_UNLIKELY(!(p) && (nbytes))) gexi_bad_null(fn, what, nbytes);                \
  } while (0)
#define GEXI_CHECK_LC_NBI(fn, lc)                                                        \
  do {                                                                                   \
    if (GEXI_UNLIKELY((uintptr_t)(lc) - 1u > 2u)) gexi_bad_lc_opt(fn, lc, 1);            \
  } while (0)
#define GEXI_CHECK_LC_NB(fn, lc)                                                         \
  do {                                                                                   \
    if (GEXI_UNLIKELY(!(lc) || (lc) == GEX_EVENT_GROUP)) gexi_bad_lc_opt(fn, lc, 0);     \
  } while (0)
#else
#define GEXI_CHECK_FLAGS(fn, flags, ok) ((void)(flags))
#define GEXI_CHECK_BUF(fn, what, p, nbytes) ((void)(p))
#define GEXI_CHECK_LC_NBI(fn, lc) ((void)(lc))
#define GEXI_CHECK_LC_NB(fn, lc) ((void)(lc))
#endif

/* Slow path for peers that are not mapped here.  'mode' selects the form:
 * 0 blocking, 1 NB (returns the event), 2 NBI (returns NO_OP on failure). */
gex_Event_t gexi_RMA_Put_remote(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags,
                                int mode);
/* An NBI Put to such a peer goes through the team's put_nbi entry (struct
 * gexi_TM_head), whose six arguments are all passed in registers: the
 * flags in the low 32 bits of 'lc_flags', lc_opt (GEX_EVENT_NOW, _DEFER or
 * _GROUP, small constants) in the high ones. */
#define GEXI_LC_FLAGS(lc_opt, flags) \
  ((uint64_t)(uint32_t)(flags) | (uint64_t)(uintptr_t)(lc_opt) << 32)
/* The two halves of such an lc_flags. */
#define GEXI_LC_OF(lc_flags) ((gex_Event_t *)(uintptr_t)((lc_flags) >> 32))
#define GEXI_FLAGS_OF(lc_flags) ((gex_Flags_t)(uint32_t)(lc_flags))
gex_Event_t gexi_RMA_Get_remote(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                size_t nbytes, gex_Flags_t flags, int mode);
#define GEXI_MODE_BLOCKING 0
#define GEXI_MODE_NB 1
#define GEXI_MODE_NBI 2

GEXI_INLINE const gexi_Peer_t *gexi_peer_checked(const char *fn, gex_TM_t tm, gex_Rank_t rank,
                                                 const void *addr, size_t nbytes) {
#if GEX_CHECKS
  if (GEXI_UNLIKELY(tm == GEX_TM_INVALID || rank >= GEXI_TM_SIZE(tm))) gexi_bad_rank(fn, tm, rank);
#endif
  const gexi_Peer_t *p = GEXI_TM_PEERS(tm) + rank;
#if GEX_CHECKS
  uintptr_t off = (uintptr_t)addr - p->seg_base;
  if (GEXI_UNLIKELY(off > p->seg_size || nbytes > p->seg_size - off))
    gexi_bad_range(fn, tm, rank, addr, nbytes);
#else
  (void)fn;
  (void)addr;
  (void)nbytes;
#endif
  return p;
}

/* ---- Put ------------------------------------------------------------------ */
GEXI_INLINE int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                               size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags) {
  const gexi_Peer_t *p = gexi_peer_checked("gex_RMA_PutNBI", tm, rank, dest, nbytes);
  GEXI_CHECK_BUF("gex_RMA_PutNBI", "src", src, nbytes);
  GEXI_CHECK_LC_NBI("gex_RMA_PutNBI", lc_opt);
  GEXI_CHECK_FLAGS("gex_RMA_PutNBI", flags, GEXI_FLAGS_P2P);
  if (GEXI_LIKELY(p->local)) {
    memcpy((char *)dest + p->delta, src, nbytes);
    return 0;
  }
  return GEXI_TM_HEAD(tm)->put_nbi(tm, src, nbytes, rank, dest, GEXI_LC_FLAGS(lc_opt, flags));
}

GEXI_INLINE gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                      const void *src, size_t nbytes, gex_Event_t *lc_opt,
                                      gex_Flags_t flags) {
  const gexi_Peer_t *p = gexi_peer_checked("gex_RMA_PutNB", tm, rank, dest, nbytes);
  GEXI_CHECK_BUF("gex_RMA_PutNB", "src", src, nbytes);
  GEXI_CHECK_LC_NB("gex_RMA_PutNB", lc_opt);
  GEXI_CHECK_FLAGS("gex_RMA_PutNB", flags, GEXI_FLAGS_P2P);
  if (GEXI_LIKELY(p->local)) {
    memcpy((char *)dest + p->delta, src, nbytes);
    if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER && lc_opt != GEX_EVENT_GROUP)
      *lc_opt = GEX_EVENT_INVALID;
    return GEX_EVENT_INVALID;
  }
  return gexi_RMA_Put_remote(tm, rank, dest, src, nbytes, lc_opt, flags, GEXI_MODE_NB);
}

GEXI_INLINE int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                    size_t nbytes, gex_Flags_t flags) {
  const gexi_Peer_t *p = gexi_peer_checked("gex_RMA_PutBlocking", tm, rank, dest, nbytes);
  GEXI_CHECK_BUF("gex_RMA_PutBlocking", "src", src, nbytes);
  GEXI_CHECK_FLAGS("gex_RMA_PutBlocking", flags, GEXI_FLAGS_P2P);
  if (GEXI_LIKELY(p->local)) {
    memcpy((char *)dest + p->delta, src, nbytes);
    return 0;
  }
  return gexi_RMA_Put_remote(tm, rank, dest, src, nbytes, GEX_EVENT_NOW, flags,
                             GEXI_MODE_BLOCKING) != 0;
}

/* ---- Get ------------------------------------------------------------------ */
GEXI_INLINE int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                               size_t nbytes, gex_Flags_t flags) {
  const gexi_Peer_t *p = gexi_peer_checked("gex_RMA_GetNBI", tm, rank, src, nbytes);
  GEXI_CHECK_BUF("gex_RMA_GetNBI", "dest", dest, nbytes);
  GEXI_CHECK_FLAGS("gex_RMA_GetNBI", flags, GEXI_FLAGS_P2P);
  if (GEXI_LIKELY(p->local)) {
    memcpy(dest, (const char *)src + p->delta, nbytes);
    return 0;
  }
  return gexi_RMA_Get_remote(tm, dest, rank, src, nbytes, flags, GEXI_MODE_NBI) != 0;
}

GEXI_INLINE gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                      size_t nbytes, gex_Flags_t flags) {
  const gexi_Peer_t *p = gexi_peer_checked("gex_RMA_GetNB", tm, rank, src, nbytes);
  GEXI_CHECK_BUF("gex_RMA_GetNB", "dest", dest, nbytes);
  GEXI_CHECK_FLAGS("gex_RMA_GetNB", flags, GEXI_FLAGS_P2P);
  if (GEXI_LIKELY(p->local)) {
    memcpy(dest, (const char *)src + p->delta, nbytes);
    return GEX_EVENT_INVALID;
  }
  return gexi_RMA_Get_remote(tm, dest, rank, src, nbytes, flags, GEXI_MODE_NB);
}

GEXI_INLINE int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                    size_t nbytes, gex_Flags_t flags) {
  const gexi_Peer_t *p = gexi_peer_checked("gex_RMA_GetBlocking", tm, rank, src, nbytes);
  GEXI_CHECK_BUF("gex_RMA_GetBlocking", "dest", dest, nbytes);
  GEXI_CHECK_FLAGS("gex_RMA_GetBlocking", flags, GEXI_FLAGS_P2P);
  if (GEXI_LIKELY(p->local)) {
    memcpy(dest, (const char *)src + p->delta, nbytes);
    return 0;
  }
  return gexi_RMA_Get_remote(tm, dest, rank, src, nbytes, flags, GEXI_MODE_BLOCKING) != 0;
}

/* ---- value forms ------------------------------------------------------------ */
/* A value of nbytes (1..8) is the low-order nbytes of 'value', stored in the
 * byte order an object of that size would have in memory. */
GEXI_INLINE void *gexi_value_bytes(gex_RMA_Value_t *value, size_t nbytes) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return (char *)value + (sizeof(*value) - nbytes);
#else
  (void)nbytes;
  return value;
#endif
}

#if GEX_CHECKS
#define GEXI_CHECK_VALUE_SIZE(fn, n) \
  if (GEXI_UNLIKELY((n) == 0 || (n) > sizeof(gex_RMA_Value_t))) gexi_bad_value_size(fn, n)
#else
#define GEXI_CHECK_VALUE_SIZE(fn, n) (void)0
#endif

GEXI_INLINE int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                       gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags) {
  GEXI_CHECK_VALUE_SIZE("gex_RMA_PutBlockingVal", nbytes);
  return gex_RMA_PutBlocking(tm, rank, dest, gexi_value_bytes(&value, nbytes), nbytes, flags);
}

GEXI_INLINE int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                  gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags) {
  GEXI_CHECK_VALUE_SIZE("gex_RMA_PutNBIVal", nbytes);
  /* GEX_EVENT_NOW: the value lives on this stack frame. */
  return gex_RMA_PutNBI(tm, rank, dest, gexi_value_bytes(&value, nbytes), nbytes,
                        GEX_EVENT_NOW, flags);
}

GEXI_INLINE gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                         gex_RMA_Value_t value, size_t nbytes,
                                         gex_Flags_t flags) {
  GEXI_CHECK_VALUE_SIZE("gex_RMA_PutNBVal", nbytes);
  return gex_RMA_PutNB(tm, rank, dest, gexi_value_bytes(&value, nbytes), nbytes,
                       GEX_EVENT_NOW, flags);
}

GEXI_INLINE gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src,
                                                   size_t nbytes, gex_Flags_t flags) {
  GEXI_CHECK_VALUE_SIZE("gex_RMA_GetBlockingVal", nbytes);
  gex_RMA_Value_t value = 0;
  gex_RMA_GetBlocking(tm, gexi_value_bytes(&value, nbytes), rank, src, nbytes, flags);
  return value;
}

/* ---- Events ---------------------------------------------------------------- */
/* GEX_EVENT_INVALID -- what every NB operation complete at initiation
 * returns, an on-node Put or Get among them -- is tested without a call.
 * The library's gex_Event_Test stays the function (its address, and the
 * call written (gex_Event_Test)(e), reach it). */
GEXI_INLINE int gexi_Event_Test_inline(gex_Event_t event) {
  return event == GEX_EVENT_INVALID ? GASNET_OK : (gex_Event_Test)(event);
}
#define gex_Event_Test(event) gexi_Event_Test_inline(event)

#ifdef __cplusplus
}
#endif

#endif /* GEX_INLINE_H */

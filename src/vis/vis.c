/* vis/vis.c -- Vector/Indexed/Strided Put and Get (gasnet_vis.h).
 *
 * Targets mapped here (peer entry 'local'): every contiguous chunk is one memcpy
 * through the peer's address delta, so the operation is complete when the
 * initiation returns (NB: GEX_EVENT_INVALID; NBI: nothing outstanding;
 * GEX_FLAG_ENABLE_LEAF_LC: local completion has happened too).  Off-node
 * targets go to vis_remote(), the single hook a network transport fills in.
 * Peer completion (gex_VIS_SetPeerCompletionHandler): after an on-node Put
 * the armed handler is sent to the target as an AM Medium Reply.
 * See docs/vis.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gasnet_vis.h>

#include "am/am.h"
#include "atomic/ad_am.h"
#include "core/context.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

/* ---- operation descriptor ------------------------------------------------------ */
/* A list of chunks: either a gex_Memvec_t array (vector) or an address array
 * with one common length (indexed). */
typedef struct {
  size_t count;
  const gex_Memvec_t *vec; /* vector form, else NULL */
  void *const *idx;        /* indexed form */
  size_t len;              /* indexed chunk length */
} vis_list_t;

static inline void *li_addr(const vis_list_t *l, size_t i) {
  return l->vec ? l->vec[i].gex_addr : l->idx[i];
}
static inline size_t li_len(const vis_list_t *l, size_t i) {
  return l->vec ? l->vec[i].gex_len : l->len;
}

enum { VIS_VECTOR, VIS_INDEXED, VIS_STRIDED };

/* One dimension of a normalised strided operation (vis_strided). */
typedef struct {
  size_t n;
  ptrdiff_t ds, ss;
} dim_t;

/* Everything an initiation passed, for the AM/RMA path (vis_remote). */
typedef struct {
  int kind;   /* VIS_VECTOR, VIS_INDEXED, VIS_STRIDED */
  int is_put; /* 1 Put (remote destination), 0 Get (remote source) */
  vis_list_t dst, src; /* vector / indexed */
  uintptr_t dstaddr, srcaddr; /* strided: corners */
  const dim_t *dims;          /* strided: normalised dimensions (ndims may be 0) */
  size_t ndims, elem;         /* strided: bytes per contiguous piece */
} vis_op_t;

static gex_Event_t vis_remote(const char *fn, gex_TM_t tm, gex_Rank_t rank, const vis_op_t *op,
                              gex_Flags_t flags, int mode);

/* ---- settings -------------------------------------------------------------------- */
/* GEX_VIS_FORCE_AM=1 (testing switch): every target, on-node ones too, goes
 * through the AM-packing path.  GEX_VIS_PACK_MAX=<bytes>: off-node chunks of
 * at most this many bytes are packed into AM Mediums, larger ones move by
 * RMA (0: never pack; default: the network transport's vis_pack_max(), 256
 * on RDMA hardware, 4096 where RMA is emulated in software).  Parsed by
 * gex_Client_Init (gexi_ctx.env); each thread caches the combination in
 * gexi_tls.am_nbi.vis_cfg: VIS_CFG_READ | VIS_CFG_FORCE? | pack max. */
#define VIS_CFG_READ (1u << 31)
#define VIS_CFG_FORCE (1u << 30)
#define VIS_CFG_MAX ((1u << 30) - 1)
#define VIS_PACK_MAX_DEFAULT 256

__attribute__((noinline)) static uint32_t vis_cfg_read(void) {
  size_t dflt = gexi_ctx.net ? gexi_ctx.net->vis_pack_max() : VIS_PACK_MAX_DEFAULT;
  uint32_t c = VIS_CFG_READ | (uint32_t)(dflt < VIS_CFG_MAX ? dflt : VIS_CFG_MAX);
  if (gexi_ctx.env.vis_force_am) c |= VIS_CFG_FORCE;
  if (gexi_ctx.env.vis_pack_max >= 0) /* at most VIS_CFG_MAX (core/env.c) */
    c = (c & ~VIS_CFG_MAX) | (uint32_t)gexi_ctx.env.vis_pack_max;
  gexi_tls.am_nbi.vis_cfg = c;
  return c;
}
static inline uint32_t vis_cfg(void) {
  uint32_t c = gexi_tls.am_nbi.vis_cfg;
  return GEXI_LIKELY(c) ? c : vis_cfg_read();
}
/* Whether an on-node peer is served by plain copies (not forced to AMs). */
static inline int vis_direct(const gexi_Peer_t *p) {
  return p->local && !(vis_cfg() & VIS_CFG_FORCE);
}

/* ---- peer completion -------------------------------------------------------------- */
/* Armed by gex_VIS_SetPeerCompletionHandler for the next VIS operation of
 * this thread. */
static _Thread_local struct {
  gex_AM_Index_t handler; /* 0: not armed */
  const void *src;
  size_t nbytes;
} vis_pc;

/* The data of a Put to an on-node peer has landed: send the armed handler
 * to the peer as a 0-argument AM Medium Reply.  The slot is published with
 * a release store after the copies, so the handler observes the data. */
static void peer_completion(const char *fn, gex_TM_t tm, gex_Rank_t rank, int is_put,
                            gex_Flags_t flags) {
#if GEX_CHECKS
  if (!is_put)
    gexi_fatal("%s: a peer completion handler is armed, but peer completion is supported for "
               "Puts only",
               fn);
  if (flags & GEX_FLAG_IMMEDIATE)
    gexi_fatal("%s: GEX_FLAG_IMMEDIATE with an armed peer completion handler", fn);
#else
  (void)flags;
  if (!is_put) return;
#endif
  gex_AM_Index_t h = vis_pc.handler;
  vis_pc.handler = 0;
  gex_Rank_t j = gexi_tm_jobrank(tm, rank);
  gex_Rank_t li = gexi_ctx.local_index[j];
  if (li == GEX_RANK_INVALID) {
    /* Off-node: the same 0-argument Medium Reply, through the network
     * transport (which copies the payload before returning). */
    if (!gexi_ctx.net)
      gexi_fatal("%s: rank %u is not reachable (no network transport)", fn, (unsigned)j);
    struct gexi_am_hdr hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.category = GEXI_AM_MEDIUM;
    hdr.handler = h;
    hdr.src = gexi_ctx.rank;
    hdr.nbytes = (uint32_t)vis_pc.nbytes;
    gexi_ctx.net->am_send(j, &hdr, vis_pc.src, 0);
    return;
  }
  uint64_t pos;
  struct gexi_amq_slot *slot = gexi_shm_am_reserve(li, 0, 0, &pos);
  memset(&slot->hdr, 0, offsetof(struct gexi_am_hdr, args));
  slot->hdr.category = GEXI_AM_MEDIUM;
  slot->hdr.is_req = 0;
  slot->hdr.nargs = 0;
  slot->hdr.handler = h;
  slot->hdr.src = gexi_ctx.rank;
  slot->hdr.nbytes = (uint32_t)vis_pc.nbytes;
  gexi_shm_am_finish(li, slot, pos, GEXI_AM_MEDIUM, vis_pc.src, vis_pc.nbytes);
}

/* ---- checks --------------------------------------------------------------------------- */
#if GEX_CHECKS
static void check_flags(const char *fn, gex_Flags_t flags, int is_put) {
  gex_Flags_t ok = GEX_FLAG_IMMEDIATE | (is_put ? GEX_FLAG_ENABLE_LEAF_LC : 0);
  if (flags & ~ok)
    gexi_fatal("%s: invalid flags 0x%x (allowed: GEX_FLAG_IMMEDIATE%s)", fn, (unsigned)flags,
               is_put ? ", GEX_FLAG_ENABLE_LEAF_LC" : "");
}

static void check_rank(const char *fn, gex_TM_t tm, gex_Rank_t rank) {
  if (tm == GEX_TM_INVALID || rank >= GEXI_TM_SIZE(tm)) gexi_bad_rank(fn, tm, rank);
}

static void check_remote_chunk(const char *fn, const gexi_Peer_t *p, gex_Rank_t rank,
                               const char *what, size_t i, const void *addr, size_t len) {
  if (len == 0) return; /* a zero-length chunk touches nothing */
  uintptr_t off = (uintptr_t)addr - p->seg_base;
  if (p->seg_size != 0 && off <= p->seg_size && len <= p->seg_size - off) return;
  char label[96];
  if (i == SIZE_MAX)
    snprintf(label, sizeof label, "%s", what);
  else
    snprintf(label, sizeof label, "%s %zu", what, i);
  if (p->seg_size == 0)
    gexi_fatal("%s: %s: rank %u has no bound segment (address %p, %zu bytes)", fn, label,
               (unsigned)rank, addr, len);
  gexi_fatal("%s: %s: address range [%p,+%zu) outside the bound segment of rank %u [%p,+%zu)", fn,
             label, addr, len, (unsigned)rank, (void *)p->seg_base, (size_t)p->seg_size);
}

static size_t list_total(const char *fn, const char *side, const vis_list_t *l) {
  if (l->count && !(l->vec ? (const void *)l->vec : (const void *)l->idx))
    gexi_fatal("%s: %s list is NULL with count %zu", fn, side, l->count);
  if (!l->vec) {
    size_t t;
    if (__builtin_mul_overflow(l->count, l->len, &t))
      gexi_fatal("%s: %s count %zu x length %zu overflows", fn, side, l->count, l->len);
    return t;
  }
  size_t t = 0;
  for (size_t i = 0; i < l->count; i++)
    if (__builtin_add_overflow(t, l->vec[i].gex_len, &t))
      gexi_fatal("%s: %s total length overflows at chunk %zu", fn, side, i);
  return t;
}

typedef struct {
  uintptr_t a;
  size_t len;
  size_t i;
} span_t;
static int span_cmp(const void *x, const void *y) {
  const span_t *p = x, *q = y;
  return p->a < q->a ? -1 : p->a > q->a;
}

/* Destination chunks must not overlap: sort the non-empty chunks by address
 * and compare each with the furthest end seen so far.  O(n log n); skipped
 * if the scratch array cannot be allocated. */
static void check_dst_overlap(const char *fn, const vis_list_t *d) {
  if (d->count < 2) return;
  span_t *s = malloc(d->count * sizeof *s);
  if (!s) return;
  size_t n = 0;
  for (size_t i = 0; i < d->count; i++) {
    size_t len = li_len(d, i);
    if (len) s[n++] = (span_t){(uintptr_t)li_addr(d, i), len, i};
  }
  qsort(s, n, sizeof *s, span_cmp);
  size_t far = 0; /* index in s of the span reaching furthest so far */
  for (size_t k = 1; k < n; k++) {
    if (s[k].a < s[far].a + s[far].len) {
      size_t a = s[far].i < s[k].i ? s[far].i : s[k].i, b = s[far].i ^ s[k].i ^ a;
      free(s);
      gexi_fatal("%s: destination chunks %zu and %zu overlap", fn, a, b);
    }
    if (s[k].a + s[k].len > s[far].a + s[far].len) far = k;
  }
  free(s);
}

static void check_lists(const char *fn, const gexi_Peer_t *p, gex_Rank_t rank, int is_put,
                        const vis_list_t *d, const vis_list_t *s) {
  size_t dt = list_total(fn, "destination", d), st = list_total(fn, "source", s);
  if (dt != st)
    gexi_fatal("%s: source total %zu bytes != destination total %zu bytes", fn, st, dt);
  const vis_list_t *r = is_put ? d : s;
  const char *what = is_put ? "destination chunk" : "source chunk";
  for (size_t i = 0; i < r->count; i++)
    check_remote_chunk(fn, p, rank, what, i, li_addr(r, i), li_len(r, i));
  check_dst_overlap(fn, d);
}
#endif

/* ---- vector / indexed ------------------------------------------------------------ */
/* Walk both lists at once; each step copies the largest piece that is
 * contiguous on both sides. */
static void copy_lists(const vis_list_t *d, intptr_t ddelta, const vis_list_t *s,
                       intptr_t sdelta) {
  size_t di = 0, si = 0, doff = 0, soff = 0;
  for (;;) {
    while (di < d->count && doff == li_len(d, di)) di++, doff = 0;
    while (si < s->count && soff == li_len(s, si)) si++, soff = 0;
    if (di == d->count || si == s->count) return;
    size_t dl = li_len(d, di) - doff, sl = li_len(s, si) - soff;
    size_t n = dl < sl ? dl : sl;
    memcpy((char *)((uintptr_t)li_addr(d, di) + (uintptr_t)ddelta) + doff,
           (const char *)((uintptr_t)li_addr(s, si) + (uintptr_t)sdelta) + soff, n);
    doff += n;
    soff += n;
  }
}

static gex_Event_t vis_lists(const char *fn, gex_TM_t tm, gex_Rank_t rank, int kind, int is_put,
                             const vis_list_t *d, const vis_list_t *s, gex_Flags_t flags,
                             int mode) {
  gexi_check_init(fn);
#if GEX_CHECKS
  check_flags(fn, flags, is_put);
  check_rank(fn, tm, rank);
#endif
  const gexi_Peer_t *p = GEXI_TM_PEERS(tm) + rank;
#if GEX_CHECKS
  check_lists(fn, p, rank, is_put, d, s);
#endif
  if (GEXI_LIKELY(vis_direct(p))) {
    if (is_put)
      copy_lists(d, p->delta, s, 0);
    else
      copy_lists(d, 0, s, p->delta);
    if (GEXI_UNLIKELY(vis_pc.handler)) peer_completion(fn, tm, rank, is_put, flags);
    return GEX_EVENT_INVALID;
  }
  vis_op_t op = {.kind = kind, .is_put = is_put, .dst = *d, .src = *s};
  return vis_remote(fn, tm, rank, &op, flags, mode);
}

#define VLIST(c, l) (&(vis_list_t){(c), (l), NULL, 0})
#define ILIST(c, l, n) (&(vis_list_t){(c), NULL, (l), (n)})

gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags) {
  return vis_lists("gex_VIS_VectorGetNB", tm, srcrank, VIS_VECTOR, 0, VLIST(dstcount, dstlist),
                   VLIST(srccount, srclist), flags, GEXI_MODE_NB);
}
int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                         gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                         gex_Flags_t flags) {
  return vis_lists("gex_VIS_VectorGetNBI", tm, srcrank, VIS_VECTOR, 0, VLIST(dstcount, dstlist),
                   VLIST(srccount, srclist), flags, GEXI_MODE_NBI) != GEX_EVENT_INVALID;
}
int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                              gex_Rank_t srcrank, size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags) {
  return vis_lists("gex_VIS_VectorGetBlocking", tm, srcrank, VIS_VECTOR, 0,
                   VLIST(dstcount, dstlist), VLIST(srccount, srclist), flags,
                   GEXI_MODE_BLOCKING) != GEX_EVENT_INVALID;
}
gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags) {
  return vis_lists("gex_VIS_VectorPutNB", tm, dstrank, VIS_VECTOR, 1, VLIST(dstcount, dstlist),
                   VLIST(srccount, srclist), flags, GEXI_MODE_NB);
}
int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                         gex_Memvec_t const dstlist[], size_t srccount,
                         gex_Memvec_t const srclist[], gex_Flags_t flags) {
  return vis_lists("gex_VIS_VectorPutNBI", tm, dstrank, VIS_VECTOR, 1, VLIST(dstcount, dstlist),
                   VLIST(srccount, srclist), flags, GEXI_MODE_NBI) != GEX_EVENT_INVALID;
}
int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                              gex_Memvec_t const dstlist[], size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags) {
  return vis_lists("gex_VIS_VectorPutBlocking", tm, dstrank, VIS_VECTOR, 1,
                   VLIST(dstcount, dstlist), VLIST(srccount, srclist), flags,
                   GEXI_MODE_BLOCKING) != GEX_EVENT_INVALID;
}

gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags) {
  return vis_lists("gex_VIS_IndexedGetNB", tm, srcrank, VIS_INDEXED, 0,
                   ILIST(dstcount, dstlist, dstlen), ILIST(srccount, srclist, srclen), flags,
                   GEXI_MODE_NB);
}
int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                          gex_Rank_t srcrank, size_t srccount, void *const srclist[],
                          size_t srclen, gex_Flags_t flags) {
  return vis_lists("gex_VIS_IndexedGetNBI", tm, srcrank, VIS_INDEXED, 0,
                   ILIST(dstcount, dstlist, dstlen), ILIST(srccount, srclist, srclen), flags,
                   GEXI_MODE_NBI) != GEX_EVENT_INVALID;
}
int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                               size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                               void *const srclist[], size_t srclen, gex_Flags_t flags) {
  return vis_lists("gex_VIS_IndexedGetBlocking", tm, srcrank, VIS_INDEXED, 0,
                   ILIST(dstcount, dstlist, dstlen), ILIST(srccount, srclist, srclen), flags,
                   GEXI_MODE_BLOCKING) != GEX_EVENT_INVALID;
}
gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags) {
  return vis_lists("gex_VIS_IndexedPutNB", tm, dstrank, VIS_INDEXED, 1,
                   ILIST(dstcount, dstlist, dstlen), ILIST(srccount, srclist, srclen), flags,
                   GEXI_MODE_NB);
}
int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                          void *const dstlist[], size_t dstlen, size_t srccount,
                          void *const srclist[], size_t srclen, gex_Flags_t flags) {
  return vis_lists("gex_VIS_IndexedPutNBI", tm, dstrank, VIS_INDEXED, 1,
                   ILIST(dstcount, dstlist, dstlen), ILIST(srccount, srclist, srclen), flags,
                   GEXI_MODE_NBI) != GEX_EVENT_INVALID;
}
int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                               void *const dstlist[], size_t dstlen, size_t srccount,
                               void *const srclist[], size_t srclen, gex_Flags_t flags) {
  return vis_lists("gex_VIS_IndexedPutBlocking", tm, dstrank, VIS_INDEXED, 1,
                   ILIST(dstcount, dstlist, dstlen), ILIST(srccount, srclist, srclen), flags,
                   GEXI_MODE_BLOCKING) != GEX_EVENT_INVALID;
}

/* ---- strided ----------------------------------------------------------------------- */
/* Copy dims[0..k) below the given corner, elem bytes per innermost chunk. */
static void strided_copy(uintptr_t d, uintptr_t s, size_t elem, const dim_t *dims, size_t k) {
  const dim_t *t = &dims[k - 1];
  if (k == 1) {
    for (size_t i = 0; i < t->n; i++)
      memcpy((void *)(d + (uintptr_t)((ptrdiff_t)i * t->ds)),
             (const void *)(s + (uintptr_t)((ptrdiff_t)i * t->ss)), elem);
    return;
  }
  for (size_t i = 0; i < t->n; i++)
    strided_copy(d + (uintptr_t)((ptrdiff_t)i * t->ds), s + (uintptr_t)((ptrdiff_t)i * t->ss),
                 elem, dims, k - 1);
}

#if GEX_CHECKS
/* Lowest and highest byte offset (relative to the corner address) that the
 * elements on one side start at; reports overflow of ptrdiff_t. */
static void strided_extent(const char *fn, const char *side, const ptrdiff_t *strides,
                           const size_t *count, size_t levels, ptrdiff_t *lo, ptrdiff_t *hi) {
  ptrdiff_t l = 0, h = 0;
  for (size_t i = 0; i < levels; i++) {
    ptrdiff_t span;
    if (count[i] - 1 > (size_t)PTRDIFF_MAX ||
        __builtin_mul_overflow(strides[i], (ptrdiff_t)(count[i] - 1), &span) ||
        (span < 0 ? __builtin_add_overflow(l, span, &l) : __builtin_add_overflow(h, span, &h)))
      gexi_fatal("%s: %sstrides[%zu] = %td with count[%zu] = %zu: extent overflows", fn, side, i,
                 strides[i], i, count[i]);
  }
  *lo = l;
  *hi = h;
}

static void check_strided(const char *fn, const gexi_Peer_t *p, gex_Rank_t rank, int is_put,
                          void *dstaddr, const ptrdiff_t *dststrides, void *srcaddr,
                          const ptrdiff_t *srcstrides, size_t elemsz, const size_t *count,
                          size_t levels) {
  size_t total = elemsz;
  for (size_t i = 0; i < levels; i++) {
    if (__builtin_mul_overflow(total, count[i], &total))
      gexi_fatal("%s: elemsz %zu x count[0..%zu] overflows size_t", fn, elemsz, i);
    /* Two neighbouring elements along a dimension overlap when its stride
     * is smaller (in magnitude) than the element. */
    if (count[i] > 1 && (size_t)(dststrides[i] < 0 ? -(size_t)dststrides[i]
                                                   : (size_t)dststrides[i]) < elemsz)
      gexi_fatal("%s: dststrides[%zu] = %td with count[%zu] = %zu and elemsz %zu: destination "
                 "elements overlap",
                 fn, i, dststrides[i], i, count[i], elemsz);
  }
  ptrdiff_t lo, hi, llo, lhi;
  const char *side = is_put ? "dst" : "src";
  /* the local side only for the overflow check */
  strided_extent(fn, is_put ? "src" : "dst", is_put ? srcstrides : dststrides, count, levels,
                 &llo, &lhi);
  strided_extent(fn, side, is_put ? dststrides : srcstrides, count, levels, &lo, &hi);
  uintptr_t base = (uintptr_t)(is_put ? dstaddr : srcaddr);
  uintptr_t first = base + (uintptr_t)lo;
  size_t len = (size_t)hi - (size_t)lo;
  if (__builtin_add_overflow(len, elemsz, &len) || (lo < 0 && first > base))
    gexi_fatal("%s: %s region around %p overflows the address space", fn, side, (void *)base);
  check_remote_chunk(fn, p, rank, is_put ? "destination footprint" : "source footprint", SIZE_MAX,
                     (void *)first, len);
}
#endif

static gex_Event_t vis_strided(const char *fn, gex_TM_t tm, gex_Rank_t rank, int is_put,
                               void *dstaddr, const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz,
                               const size_t count[], size_t levels, gex_Flags_t flags,
                               int mode) {
  gexi_check_init(fn);
#if GEX_CHECKS
  check_flags(fn, flags, is_put);
  if (elemsz && levels && (!dststrides || !srcstrides || !count))
    gexi_fatal("%s: stridelevels %zu with a NULL %s array", fn, levels,
               !count ? "count" : !dststrides ? "dststrides" : "srcstrides");
#endif
  /* elemsz == 0: no-op, every other argument ignored; a zero count: no-op,
   * tm, rank and addresses ignored.  (With an armed peer completion handler
   * the peer is still notified, so tm and rank must then be valid.) */
  int noop = elemsz == 0;
  for (size_t i = 0; !noop && i < levels; i++) noop = count[i] == 0;
  if (noop) {
    if (GEXI_UNLIKELY(vis_pc.handler)) {
#if GEX_CHECKS
      check_rank(fn, tm, rank);
#endif
      peer_completion(fn, tm, rank, is_put, flags);
    }
    return GEX_EVENT_INVALID;
  }
#if GEX_CHECKS
  check_rank(fn, tm, rank);
#endif
  const gexi_Peer_t *p = GEXI_TM_PEERS(tm) + rank;
#if GEX_CHECKS
  check_strided(fn, p, rank, is_put, dstaddr, dststrides, srcaddr, srcstrides, elemsz, count,
                levels);
#endif
  /* Normalise: drop dimensions of count 1, fold every leading dimension that
   * is contiguous on both sides into the element, then merge neighbouring
   * dimensions that continue each other on both sides. */
  dim_t stack[16], *dims = levels <= 16 ? stack : malloc(levels * sizeof *dims);
  if (!dims) gexi_fatal("%s: out of memory for %zu stride levels", fn, levels);
  size_t k = 0, elem = elemsz;
  for (size_t i = 0; i < levels; i++) {
    if (count[i] == 1) continue;
    if (k == 0 && dststrides[i] == (ptrdiff_t)elem && srcstrides[i] == (ptrdiff_t)elem) {
      elem *= count[i];
      continue;
    }
    ptrdiff_t dnext, snext;
    if (k > 0 && !__builtin_mul_overflow(dims[k - 1].ds, (ptrdiff_t)dims[k - 1].n, &dnext) &&
        !__builtin_mul_overflow(dims[k - 1].ss, (ptrdiff_t)dims[k - 1].n, &snext) &&
        dststrides[i] == dnext && srcstrides[i] == snext) {
      dims[k - 1].n *= count[i];
      continue;
    }
    dims[k++] = (dim_t){count[i], dststrides[i], srcstrides[i]};
  }
  if (GEXI_UNLIKELY(!vis_direct(p))) {
    /* dims is consumed before vis_remote returns (strided metadata is
     * consumed synchronously, as the specification promises the client) */
    vis_op_t op = {.kind = VIS_STRIDED, .is_put = is_put, .dstaddr = (uintptr_t)dstaddr,
                   .srcaddr = (uintptr_t)srcaddr, .dims = dims, .ndims = k, .elem = elem};
    gex_Event_t ev = vis_remote(fn, tm, rank, &op, flags, mode);
    if (dims != stack) free(dims);
    return ev;
  }
  uintptr_t d = (uintptr_t)dstaddr, s = (uintptr_t)srcaddr;
  if (is_put)
    d += (uintptr_t)p->delta;
  else
    s += (uintptr_t)p->delta;
  if (k == 0)
    memcpy((void *)d, (const void *)s, elem);
  else
    strided_copy(d, s, elem, dims, k);
  if (dims != stack) free(dims);
  if (GEXI_UNLIKELY(vis_pc.handler)) peer_completion(fn, tm, rank, is_put, flags);
  return GEX_EVENT_INVALID;
}

gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags) {
  return vis_strided("gex_VIS_StridedGetNB", tm, srcrank, 0, dstaddr, dststrides, srcaddr,
                     srcstrides, elemsz, count, stridelevels, flags, GEXI_MODE_NB);
}
int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                          gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                          size_t elemsz, const size_t count[], size_t stridelevels,
                          gex_Flags_t flags) {
  return vis_strided("gex_VIS_StridedGetNBI", tm, srcrank, 0, dstaddr, dststrides, srcaddr,
                     srcstrides, elemsz, count, stridelevels, flags,
                     GEXI_MODE_NBI) != GEX_EVENT_INVALID;
}
int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                               gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                               size_t elemsz, const size_t count[], size_t stridelevels,
                               gex_Flags_t flags) {
  return vis_strided("gex_VIS_StridedGetBlocking", tm, srcrank, 0, dstaddr, dststrides, srcaddr,
                     srcstrides, elemsz, count, stridelevels, flags,
                     GEXI_MODE_BLOCKING) != GEX_EVENT_INVALID;
}
gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags) {
  return vis_strided("gex_VIS_StridedPutNB", tm, dstrank, 1, dstaddr, dststrides, srcaddr,
                     srcstrides, elemsz, count, stridelevels, flags, GEXI_MODE_NB);
}
int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                          const ptrdiff_t dststrides[], void *srcaddr,
                          const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                          size_t stridelevels, gex_Flags_t flags) {
  return vis_strided("gex_VIS_StridedPutNBI", tm, dstrank, 1, dstaddr, dststrides, srcaddr,
                     srcstrides, elemsz, count, stridelevels, flags,
                     GEXI_MODE_NBI) != GEX_EVENT_INVALID;
}
int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                               const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz,
                               const size_t count[], size_t stridelevels, gex_Flags_t flags) {
  return vis_strided("gex_VIS_StridedPutBlocking", tm, dstrank, 1, dstaddr, dststrides, srcaddr,
                     srcstrides, elemsz, count, stridelevels, flags,
                     GEXI_MODE_BLOCKING) != GEX_EVENT_INVALID;
}

/* ---- peer completion: arming ------------------------------------------------------ */
void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                      size_t nbytes, gex_Flags_t flags) {
  gexi_check_init("gex_VIS_SetPeerCompletionHandler");
#if GEX_CHECKS
  if (flags)
    gexi_fatal("gex_VIS_SetPeerCompletionHandler: flags 0x%x must be 0", (unsigned)flags);
  if (handler && nbytes > GEX_VIS_MAX_PEERCOMPLETION)
    gexi_fatal("gex_VIS_SetPeerCompletionHandler: nbytes %zu exceeds the maximum %zu", nbytes,
               GEX_VIS_MAX_PEERCOMPLETION);
#else
  (void)flags;
#endif
  vis_pc.handler = handler;
  vis_pc.src = nbytes ? source_addr : NULL;
  vis_pc.nbytes = handler ? nbytes : 0;
}


/* ---- the AM / RMA path ------------------------------------------------------------ */
/* Used for a peer that is not on this node, and for every peer under
 * GEX_VIS_FORCE_AM=1.  The operation is cut into contiguous pieces (the
 * largest runs contiguous on both sides).  A piece of at most the pack
 * threshold (every piece, when forced) is packed with its neighbours into AM
 * Medium Requests of at most one Medium payload each:
 *
 *   Put request   { u64 remote address, u32 length, data } ...
 *                 the target's handler copies each record to its address,
 *                 then Replies PUT_ACK.
 *   Get request   { u64 remote address, u64 local address, u32 length } ...
 *                 the target's handler Replies GET_DATA with
 *                 { u64 local address, u32 length, data } ..., which the
 *                 initiator's reply handler copies to the local addresses.
 *
 * Both carry the address of a completion counter (2 arguments), decremented
 * by the initiator's reply handler after the data are in place.  Larger
 * pieces (off-node only) are one RMA each through gexi_RMA_Put_remote /
 * gexi_RMA_Get_remote.
 *
 * Completion, by form:
 *   NBI       packets count in this thread's NBI set (or the open access
 *             region's event: gexi_am_counter) and the RMAs are NBI RMAs,
 *             so gex_NBI_Wait / the region's event covers the operation.
 *   NB        one GEXI_EV_FLAG event: its counter covers the packets and its
 *             'sub' array holds the NB events of the RMAs.
 *   Blocking  the same event, waited for before returning.
 * An armed peer completion handler turns NB and NBI into the blocking form:
 * the handler must reach the target after the data did, and completion is
 * only known at the initiator (replies can arrive in any order, and no call
 * of the client is certain to come later to send it), so the call waits and
 * then sends the handler; it returns with the operation complete.
 *
 * Local completion: packets are copied at injection and the RMAs of a Put
 * use GEX_EVENT_NOW when GEX_FLAG_ENABLE_LEAF_LC asks for local completion
 * (else GEX_EVENT_DEFER), so the source buffers are reusable when an
 * initiation with that flag returns -- the leaf event is GEX_EVENT_INVALID.
 * GEX_FLAG_IMMEDIATE is accepted and ignored on this path (never refuses).
 *
 * Record fields are written and read with memcpy: records are packed with
 * no alignment. */
#define PUT_REC 12 /* u64 address + u32 length */
#define GET_REQ_REC 20
#define GET_REP_REC 12

typedef struct {
  gex_TM_t tm;
  gex_Rank_t rank;
  int is_put, mode, cat;
  gex_Event_t *lc;         /* lc_opt of the per-piece RMA Puts */
  size_t pack_max, cap;    /* pack threshold; payload bytes of one packet */
  unsigned char *buf;      /* the packet being filled (NULL until first needed) */
  size_t used, rep_used;   /* its bytes; Get: the bytes of its reply */
  struct gexi_Event *ev;   /* NB / blocking: the operation's event */
  gex_Event_t *sub;        /* NB / blocking: RMA events (moved into ev) */
  size_t nsub, subcap;
} vis_send_t;

static void vs_flush(vis_send_t *vs) {
  if (!vs->used) return;
  _Atomic uint32_t *c = gexi_am_counter(vs->mode, vs->cat, &vs->ev, 1);
  /* The Medium payload is copied before the call returns: buf is reusable. */
  gex_AM_RequestMedium2(vs->tm, vs->rank, vs->is_put ? GEXI_AMIDX_VIS_PUT : GEXI_AMIDX_VIS_GET,
                        vs->buf, vs->used, GEX_EVENT_NOW, 0, GEXI_AM_PTRARGS(c));
  vs->used = vs->rep_used = 0;
}

static void vs_pack(vis_send_t *vs, uintptr_t remote, uintptr_t local, size_t len) {
  if (!vs->buf && !(vs->buf = malloc(vs->cap))) gexi_fatal("VIS: out of memory");
  while (len) {
    size_t room = vs->is_put ? vs->cap - vs->used : vs->cap - vs->rep_used;
    int req_full = !vs->is_put && vs->cap - vs->used < GET_REQ_REC;
    /* no room, or room for a fragment of under 64 bytes of a longer piece */
    if (req_full || room <= PUT_REC || (room - PUT_REC < len && room - PUT_REC < 64)) {
      if (!vs->used) gexi_fatal("VIS: AM Medium payload of %zu bytes is too small", vs->cap);
      vs_flush(vs);
      continue;
    }
    size_t n = room - PUT_REC < len ? room - PUT_REC : len;
    uint64_t ra = remote, la = local;
    uint32_t l32 = (uint32_t)n;
    unsigned char *r = vs->buf + vs->used;
    memcpy(r, &ra, 8);
    if (vs->is_put) {
      memcpy(r + 8, &l32, 4);
      memcpy(r + PUT_REC, (const void *)local, n);
      vs->used += PUT_REC + n;
    } else {
      memcpy(r + 8, &la, 8);
      memcpy(r + 16, &l32, 4);
      vs->used += GET_REQ_REC;
      vs->rep_used += GET_REP_REC + n;
    }
    remote += n;
    local += n;
    len -= n;
  }
}

static void vs_rma(vis_send_t *vs, uintptr_t remote, uintptr_t local, size_t len) {
  const int m = vs->mode == GEXI_MODE_NBI ? GEXI_MODE_NBI : GEXI_MODE_NB;
  gex_Event_t e =
      vs->is_put ? gexi_RMA_Put_remote(vs->tm, vs->rank, (void *)remote, (const void *)local, len,
                                       vs->lc, 0, m)
                 : gexi_RMA_Get_remote(vs->tm, (void *)local, vs->rank, (void *)remote, len, 0, m);
  if (m == GEXI_MODE_NBI || e == GEX_EVENT_INVALID) return;
  if (vs->nsub == vs->subcap) {
    vs->subcap = vs->subcap ? 2 * vs->subcap : 16;
    vs->sub = realloc(vs->sub, vs->subcap * sizeof *vs->sub);
    if (!vs->sub) gexi_fatal("VIS: out of memory");
  }
  vs->sub[vs->nsub++] = e;
}

/* One contiguous piece: 'dst' and 'src' as the client gave them. */
static inline void vs_piece(vis_send_t *vs, uintptr_t dst, uintptr_t src, size_t len) {
  if (!len) return;
  const uintptr_t remote = vs->is_put ? dst : src, local = vs->is_put ? src : dst;
  if (len <= vs->pack_max)
    vs_pack(vs, remote, local, len);
  else
    vs_rma(vs, remote, local, len);
}

static void vs_lists(vis_send_t *vs, const vis_list_t *d, const vis_list_t *s) {
  size_t di = 0, si = 0, doff = 0, soff = 0;
  for (;;) {
    while (di < d->count && doff == li_len(d, di)) di++, doff = 0;
    while (si < s->count && soff == li_len(s, si)) si++, soff = 0;
    if (di == d->count || si == s->count) return;
    size_t dl = li_len(d, di) - doff, sl = li_len(s, si) - soff;
    size_t n = dl < sl ? dl : sl;
    vs_piece(vs, (uintptr_t)li_addr(d, di) + doff, (uintptr_t)li_addr(s, si) + soff, n);
    doff += n;
    soff += n;
  }
}

static void vs_strided(vis_send_t *vs, uintptr_t d, uintptr_t s, size_t elem, const dim_t *dims,
                       size_t k) {
  if (k == 0) {
    vs_piece(vs, d, s, elem);
    return;
  }
  const dim_t *t = &dims[k - 1];
  for (size_t i = 0; i < t->n; i++)
    vs_strided(vs, d + (uintptr_t)((ptrdiff_t)i * t->ds), s + (uintptr_t)((ptrdiff_t)i * t->ss),
               elem, dims, k - 1);
}

static gex_Event_t vis_remote(const char *fn, gex_TM_t tm, gex_Rank_t rank, const vis_op_t *op,
                              gex_Flags_t flags, int mode) {
  const gexi_Peer_t *p = GEXI_TM_PEERS(tm) + rank;
  const uint32_t cfg = vis_cfg();
  /* (a neighbour whose segment is client memory, not mapped here, is
   * reached too: pieces by AM, or by RMA through the kernel) */
  if (!p->local && !gexi_ctx.net && gexi_ctx.local_index[p->jobrank] == GEX_RANK_INVALID)
    gexi_fatal("%s: rank %u is not reachable (no network transport)", fn,
               (unsigned)gexi_tm_jobrank(tm, rank));
  const int pc = vis_pc.handler != 0;
  vis_send_t vs = {.tm = tm, .rank = rank, .is_put = op->is_put,
                   .mode = pc ? GEXI_MODE_BLOCKING : mode,
                   .cat = op->is_put ? GEXI_AM_NBI_PUT : GEXI_AM_NBI_GET,
                   .lc = (flags & GEX_FLAG_ENABLE_LEAF_LC) ? GEX_EVENT_NOW : GEX_EVENT_DEFER};
  size_t req = gex_AM_LUBRequestMedium(), rep = gex_AM_LUBReplyMedium();
  vs.cap = req < rep ? req : rep;
  if (vs.cap > UINT32_MAX) vs.cap = UINT32_MAX;
  /* forced (or on-node, which is only reached when forced): pack every piece */
  vs.pack_max = (cfg & VIS_CFG_FORCE) || p->local ? SIZE_MAX : (size_t)(cfg & VIS_CFG_MAX);
  if (op->kind == VIS_STRIDED)
    vs_strided(&vs, op->dstaddr, op->srcaddr, op->elem, op->dims, op->ndims);
  else
    vs_lists(&vs, &op->dst, &op->src);
  vs_flush(&vs);
  free(vs.buf);
  if (vs.nsub) {
    if (!vs.ev) vs.ev = gexi_ev_flag_new(0);
    vs.ev->flag.sub = vs.sub; /* the event owns the array from here */
    vs.ev->flag.nsub = vs.nsub;
  } else {
    free(vs.sub);
  }
  if (vs.mode == GEXI_MODE_NB) return vs.ev ? vs.ev : GEX_EVENT_INVALID;
  if (vs.mode == GEXI_MODE_BLOCKING && vs.ev) gex_Event_Wait(vs.ev);
  if (pc) peer_completion(fn, tm, rank, op->is_put, flags);
  return GEX_EVENT_INVALID;
}

/* ---- handlers ---------------------------------------------------------------------- */
/* Every handler acquires gexi_am_sync() first (core/complete.h): a packed
 * Put's writes and a later Get's reads of the same bytes may run in
 * different threads of the target, ordered by the client through the
 * initiator's process; target-side handlers also release it when done. */

/* Target: scatter a packed Put into this process's memory, then acknowledge. */
static void vis_put_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t c0,
                            gex_AM_Arg_t c1) {
  const unsigned char *r = buf, *end = r + nbytes;
  gexi_am_sync_acquire();
  while (r < end) {
    uint64_t a;
    uint32_t n;
    memcpy(&a, r, 8);
    memcpy(&n, r + 8, 4);
    memcpy((void *)(uintptr_t)a, r + PUT_REC, n);
    r += PUT_REC + n;
  }
  gexi_am_sync_release();
  gex_AM_ReplyShort2(t, GEXI_AMIDX_VIS_PUT_ACK, 0, c0, c1);
}

/* Initiator: a packed Put landed. */
static void vis_put_ack(gex_Token_t t, gex_AM_Arg_t c0, gex_AM_Arg_t c1) {
  (void)t;
  gexi_am_sync_acquire();
  gexi_am_counter_done(gexi_am_ptr(c0, c1), 1); /* last touch of the operation */
}

/* Target: gather the requested pieces into one Medium Reply. */
static void vis_get_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t c0,
                            gex_AM_Arg_t c1) {
  const unsigned char *r = buf, *end = r + nbytes;
  size_t need = 0;
  for (const unsigned char *q = r; q < end; q += GET_REQ_REC) {
    uint32_t n;
    memcpy(&n, q + 16, 4);
    need += GET_REP_REC + n;
  }
  unsigned char *out = malloc(need ? need : 1);
  if (!out) gexi_fatal("VIS: out of memory for a Get reply of %zu bytes", need);
  unsigned char *o = out;
  gexi_am_sync_acquire();
  for (; r < end; r += GET_REQ_REC) {
    uint64_t a;
    uint32_t n;
    memcpy(&a, r, 8);
    memcpy(&n, r + 16, 4);
    memcpy(o, r + 8, 8); /* the initiator's address, echoed */
    memcpy(o + 8, &n, 4);
    memcpy(o + GET_REP_REC, (const void *)(uintptr_t)a, n);
    o += GET_REP_REC + n;
  }
  gexi_am_sync_release();
  gex_AM_ReplyMedium2(t, GEXI_AMIDX_VIS_GET_DATA, out, need, GEX_EVENT_NOW, 0, c0, c1);
  free(out);
}

/* Initiator: copy gathered pieces to their local addresses. */
static void vis_get_data(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t c0,
                         gex_AM_Arg_t c1) {
  (void)t;
  const unsigned char *r = buf, *end = r + nbytes;
  gexi_am_sync_acquire();
  while (r < end) {
    uint64_t a;
    uint32_t n;
    memcpy(&a, r, 8);
    memcpy(&n, r + 8, 4);
    memcpy((void *)(uintptr_t)a, r + GET_REP_REC, n);
    r += GET_REP_REC + n;
  }
  gexi_am_counter_done(gexi_am_ptr(c0, c1), 1); /* after the data: publishes them */
}

size_t gexi_vis_am_entries(gex_AM_Entry_t *e) {
  const gex_Flags_t mreq = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
                    mrep = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY,
                    srep = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY;
  e[0] = (gex_AM_Entry_t){GEXI_AMIDX_VIS_PUT, (gex_AM_Fn_t)vis_put_handler, mreq, 2, NULL,
                          "gexi_vis_put"};
  e[1] = (gex_AM_Entry_t){GEXI_AMIDX_VIS_PUT_ACK, (gex_AM_Fn_t)vis_put_ack, srep, 2, NULL,
                          "gexi_vis_put_ack"};
  e[2] = (gex_AM_Entry_t){GEXI_AMIDX_VIS_GET, (gex_AM_Fn_t)vis_get_handler, mreq, 2, NULL,
                          "gexi_vis_get"};
  e[3] = (gex_AM_Entry_t){GEXI_AMIDX_VIS_GET_DATA, (gex_AM_Fn_t)vis_get_data, mrep, 2, NULL,
                          "gexi_vis_get_data"};
  return 4;
}

/* vis/vis.c -- Vector/Indexed/Strided Put and Get (gasnet_vis.h).
 *
 * Targets mapped here (peer entry 'local'): every contiguous chunk is one memcpy
 * through the peer's address delta, so the operation is complete when the
 * initiation returns (NB: GEX_EVENT_INVALID; NBI: nothing outstanding;
 * GEX_FLAG_ENABLE_LEAF_LC: local completion has happened too).  Off-node
 * targets go to gexi_vis_remote() (vis/vis_remote.c), the AM/RMA path.
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

#include "core/context.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"
#include "vis/vis.h"

/* ---- settings -------------------------------------------------------------------- */
__attribute__((noinline)) uint32_t gexi_vis_cfg_read(void) {
  size_t dflt = gexi_ctx.net ? gexi_ctx.net->vis_pack_max() : VIS_PACK_MAX_DEFAULT;
  uint32_t c = VIS_CFG_READ | (uint32_t)(dflt < VIS_CFG_MAX ? dflt : VIS_CFG_MAX);
  if (gexi_ctx.env.vis_force_am) c |= VIS_CFG_FORCE;
  if (gexi_ctx.env.vis_pack_max >= 0) /* at most VIS_CFG_MAX (core/env.c) */
    c = (c & ~VIS_CFG_MAX) | (uint32_t)gexi_ctx.env.vis_pack_max;
  gexi_tls.am_nbi.vis_cfg = c;
  return c;
}

/* ---- peer completion -------------------------------------------------------------- */
/* Armed by gex_VIS_SetPeerCompletionHandler for the next VIS operation of
 * this thread. */
static _Thread_local struct {
  gex_AM_Index_t handler; /* 0: not armed */
  const void *src;
  size_t nbytes;
} vis_pc;

int gexi_vis_pc_armed(void) { return vis_pc.handler != 0; }

/* The data of a Put to an on-node peer has landed: send the armed handler
 * to the peer as a 0-argument AM Medium Reply.  The slot is published with
 * a release store after the copies, so the handler observes the data. */
void gexi_vis_peer_completion(const char *fn, gex_TM_t tm, gex_Rank_t rank, int is_put,
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
/* One piece of a vector/indexed copy through the mapping (vis_lists_walk):
 * the deltas of the mapped side, destination then source. */
static void copy_piece(void *arg, uintptr_t d, uintptr_t s, size_t n) {
  const intptr_t *delta = arg;
  memcpy((void *)(d + (uintptr_t)delta[0]), (const void *)(s + (uintptr_t)delta[1]), n);
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
      vis_lists_walk(d, s, copy_piece, (intptr_t[2]){p->delta, 0});
    else
      vis_lists_walk(d, s, copy_piece, (intptr_t[2]){0, p->delta});
    if (GEXI_UNLIKELY(vis_pc.handler)) gexi_vis_peer_completion(fn, tm, rank, is_put, flags);
    return GEX_EVENT_INVALID;
  }
  vis_op_t op = {.kind = kind, .is_put = is_put, .dst = *d, .src = *s};
  return gexi_vis_remote(fn, tm, rank, &op, flags, mode);
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
      gexi_vis_peer_completion(fn, tm, rank, is_put, flags);
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
    gex_Event_t ev = gexi_vis_remote(fn, tm, rank, &op, flags, mode);
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
  if (GEXI_UNLIKELY(vis_pc.handler)) gexi_vis_peer_completion(fn, tm, rank, is_put, flags);
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

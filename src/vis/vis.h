/* vis/vis.h -- what the two halves of VIS share: the description of one
 * operation (vis/vis.c builds it at initiation) and the settings that pick
 * a target's path; vis/vis_remote.c is the AM/RMA path.  See docs/vis.md.
 */
#ifndef GEXI_VIS_VIS_H
#define GEXI_VIS_VIS_H

#include <stddef.h>
#include <stdint.h>

#include <gasnet_vis.h>

#include "core/context.h"

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

/* Walk lists d and s at once: each step hands 'piece' the largest run
 * that is contiguous on both sides (destination and source addresses as
 * listed, and its length). */
static inline void vis_lists_walk(const vis_list_t *d, const vis_list_t *s,
                                  void (*piece)(void *arg, uintptr_t dst, uintptr_t src, size_t n),
                                  void *arg) {
  size_t di = 0, si = 0, doff = 0, soff = 0;
  for (;;) {
    while (di < d->count && doff == li_len(d, di)) di++, doff = 0;
    while (si < s->count && soff == li_len(s, si)) si++, soff = 0;
    if (di == d->count || si == s->count) return;
    size_t dl = li_len(d, di) - doff, sl = li_len(s, si) - soff;
    size_t n = dl < sl ? dl : sl;
    piece(arg, (uintptr_t)li_addr(d, di) + doff, (uintptr_t)li_addr(s, si) + soff, n);
    doff += n;
    soff += n;
  }
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

/* The AM/RMA path (vis/vis_remote.c): off-node targets, and every target
 * under GEX_VIS_FORCE_AM=1.  'mode': GEXI_MODE_NB, _NBI or _BLOCKING. */
gex_Event_t gexi_vis_remote(const char *fn, gex_TM_t tm, gex_Rank_t rank, const vis_op_t *op,
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

/* Reads the settings into this thread's cache (vis/vis.c). */
uint32_t gexi_vis_cfg_read(void);
static inline uint32_t vis_cfg(void) {
  uint32_t c = gexi_tls.am_nbi.vis_cfg;
  return GEXI_LIKELY(c) ? c : gexi_vis_cfg_read();
}
/* Whether an on-node peer is served by plain copies (not forced to AMs). */
static inline int vis_direct(const gexi_Peer_t *p) {
  return p->local && !(vis_cfg() & VIS_CFG_FORCE);
}

/* Peer completion (gex_VIS_SetPeerCompletionHandler, vis/vis.c): whether a
 * handler is armed for this thread's next operation, and sending it once
 * the data of a Put to the peer have landed (disarms it). */
int gexi_vis_pc_armed(void);
void gexi_vis_peer_completion(const char *fn, gex_TM_t tm, gex_Rank_t rank, int is_put,
                              gex_Flags_t flags);

#endif

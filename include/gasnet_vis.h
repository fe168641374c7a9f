/* gasnet_vis.h -- libgex: Vector/Indexed/Strided (VIS) Put and Get.
 *
 * Declarations follow the GASNet-EX specification (section "Vector/Indexed/
 * Strided (VIS)").  Each call exists in a Blocking, an NB and an NBI form:
 * NB returns a gex_Event_t; Blocking and NBI return an int that is non-zero
 * only in the GEX_FLAG_IMMEDIATE "no op" case.  See docs/vis.md.
 */
#ifndef GASNET_VIS_H
#define GASNET_VIS_H

#include <stddef.h>

#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Vector ----------------------------------------------------------------- */
gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags);
int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                         gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                         gex_Flags_t flags);
int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                              gex_Rank_t srcrank, size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags);

gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags);
int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                         gex_Memvec_t const dstlist[], size_t srccount,
                         gex_Memvec_t const srclist[], gex_Flags_t flags);
int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                              gex_Memvec_t const dstlist[], size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags);

/* ---- Indexed ---------------------------------------------------------------- */
gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                          gex_Rank_t srcrank, size_t srccount, void *const srclist[],
                          size_t srclen, gex_Flags_t flags);
int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                               size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                               void *const srclist[], size_t srclen, gex_Flags_t flags);

gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                          void *const dstlist[], size_t dstlen, size_t srccount,
                          void *const srclist[], size_t srclen, gex_Flags_t flags);
int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                               void *const dstlist[], size_t dstlen, size_t srccount,
                               void *const srclist[], size_t srclen, gex_Flags_t flags);

/* ---- Strided ---------------------------------------------------------------- */
gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags);
int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                          gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                          size_t elemsz, const size_t count[], size_t stridelevels,
                          gex_Flags_t flags);
int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                               gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                               size_t elemsz, const size_t count[], size_t stridelevels,
                               gex_Flags_t flags);

gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags);
int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                          const ptrdiff_t dststrides[], void *srcaddr,
                          const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                          size_t stridelevels, gex_Flags_t flags);
int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                               const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz,
                               const size_t count[], size_t stridelevels, gex_Flags_t flags);

/* ---- Peer completion [DEPRECATED in the specification] ------------------------- */
/* Arms (handler != 0) or disarms (handler == 0) a 0-argument AM Medium Reply
 * handler run at the target after the data of this thread's next VIS Put has
 * landed there (see docs/vis.md). */
void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                      size_t nbytes, gex_Flags_t flags);

/* The largest client payload of a VIS peer completion handler. */
#define GEX_VIS_MAX_PEERCOMPLETION ((size_t)127)

#ifdef __cplusplus
}
#endif

/* The GASNet-1 prototype forms of these calls (gasnet_putv_bulk, ...). */
#include <gex/gex_legacy_vis.h>

#endif

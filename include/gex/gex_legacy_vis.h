/* gex/gex_legacy_vis.h -- libgex: the GASNet-1 prototype VIS calls.
 *
 * Not for direct inclusion; gasnet_vis.h includes it.  Vector, indexed and
 * strided Put/Get in the GASNet-1 form (gasnet_{put,get}{v,i,s}_bulk and
 * their _nb_bulk / _nbi_bulk forms), as static inline wrappers over the
 * gex_VIS_* calls on the primordial team (gexl_ctx.tm, gex/gex_gasnet1.h).
 *
 * The GASNet-1 strided metadata differs from GASNet-EX's: strides are
 * size_t, and count[0] is the size in bytes of the contiguous piece, with
 * count[1..stridelevels] the counts of each level.  The wrappers pass
 * count[0] as elemsz and count+1 as the EX count array.
 */
#ifndef GEX_LEGACY_VIS_H
#define GEX_LEGACY_VIS_H

#ifdef __cplusplus
extern "C" {
#endif

/* gasnet_memvec_t and gex_Memvec_t have the same layout, and size_t and
 * ptrdiff_t the same size (strides are passed through unchanged). */
#define GEXL_MEMVEC(v) ((gex_Memvec_t const *)(const void *)(v))
#define GEXL_STRIDES(s) ((const ptrdiff_t *)(const void *)(s))
#if defined(__cplusplus) && __cplusplus >= 201103L
static_assert(sizeof(size_t) == sizeof(ptrdiff_t), "size_t and ptrdiff_t differ in size");
static_assert(sizeof(gasnet_memvec_t) == sizeof(gex_Memvec_t), "memvec layouts differ");
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(size_t) == sizeof(ptrdiff_t), "size_t and ptrdiff_t differ in size");
_Static_assert(sizeof(gasnet_memvec_t) == sizeof(gex_Memvec_t), "memvec layouts differ");
#endif

/* ---- vector ------------------------------------------------------------------- */
static inline gasnet_handle_t gasnet_putv_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                                  gasnet_memvec_t const dstlist[],
                                                  size_t srccount,
                                                  gasnet_memvec_t const srclist[]) {
  return gex_VIS_VectorPutNB(gexl_ctx.tm, dstnode, dstcount, GEXL_MEMVEC(dstlist), srccount,
                             GEXL_MEMVEC(srclist), 0);
}
static inline void gasnet_putv_nbi_bulk(gasnet_node_t dstnode, size_t dstcount,
                                        gasnet_memvec_t const dstlist[], size_t srccount,
                                        gasnet_memvec_t const srclist[]) {
  (void)gex_VIS_VectorPutNBI(gexl_ctx.tm, dstnode, dstcount, GEXL_MEMVEC(dstlist), srccount,
                             GEXL_MEMVEC(srclist), 0);
}
static inline void gasnet_putv_bulk(gasnet_node_t dstnode, size_t dstcount,
                                    gasnet_memvec_t const dstlist[], size_t srccount,
                                    gasnet_memvec_t const srclist[]) {
  (void)gex_VIS_VectorPutBlocking(gexl_ctx.tm, dstnode, dstcount, GEXL_MEMVEC(dstlist),
                                  srccount, GEXL_MEMVEC(srclist), 0);
}
static inline gasnet_handle_t gasnet_getv_nb_bulk(size_t dstcount,
                                                  gasnet_memvec_t const dstlist[],
                                                  gasnet_node_t srcnode, size_t srccount,
                                                  gasnet_memvec_t const srclist[]) {
  return gex_VIS_VectorGetNB(gexl_ctx.tm, dstcount, GEXL_MEMVEC(dstlist), srcnode, srccount,
                             GEXL_MEMVEC(srclist), 0);
}
static inline void gasnet_getv_nbi_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                        gasnet_node_t srcnode, size_t srccount,
                                        gasnet_memvec_t const srclist[]) {
  (void)gex_VIS_VectorGetNBI(gexl_ctx.tm, dstcount, GEXL_MEMVEC(dstlist), srcnode, srccount,
                             GEXL_MEMVEC(srclist), 0);
}
static inline void gasnet_getv_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                    gasnet_node_t srcnode, size_t srccount,
                                    gasnet_memvec_t const srclist[]) {
  (void)gex_VIS_VectorGetBlocking(gexl_ctx.tm, dstcount, GEXL_MEMVEC(dstlist), srcnode,
                                  srccount, GEXL_MEMVEC(srclist), 0);
}

/* ---- indexed ---------------------------------------------------------------------- */
static inline gasnet_handle_t gasnet_puti_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                                  void *const dstlist[], size_t dstlen,
                                                  size_t srccount, void *const srclist[],
                                                  size_t srclen) {
  return gex_VIS_IndexedPutNB(gexl_ctx.tm, dstnode, dstcount, dstlist, dstlen, srccount,
                              srclist, srclen, 0);
}
static inline void gasnet_puti_nbi_bulk(gasnet_node_t dstnode, size_t dstcount,
                                        void *const dstlist[], size_t dstlen, size_t srccount,
                                        void *const srclist[], size_t srclen) {
  (void)gex_VIS_IndexedPutNBI(gexl_ctx.tm, dstnode, dstcount, dstlist, dstlen, srccount,
                              srclist, srclen, 0);
}
static inline void gasnet_puti_bulk(gasnet_node_t dstnode, size_t dstcount,
                                    void *const dstlist[], size_t dstlen, size_t srccount,
                                    void *const srclist[], size_t srclen) {
  (void)gex_VIS_IndexedPutBlocking(gexl_ctx.tm, dstnode, dstcount, dstlist, dstlen, srccount,
                                   srclist, srclen, 0);
}
static inline gasnet_handle_t gasnet_geti_nb_bulk(size_t dstcount, void *const dstlist[],
                                                  size_t dstlen, gasnet_node_t srcnode,
                                                  size_t srccount, void *const srclist[],
                                                  size_t srclen) {
  return gex_VIS_IndexedGetNB(gexl_ctx.tm, dstcount, dstlist, dstlen, srcnode, srccount,
                              srclist, srclen, 0);
}
static inline void gasnet_geti_nbi_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                        gasnet_node_t srcnode, size_t srccount,
                                        void *const srclist[], size_t srclen) {
  (void)gex_VIS_IndexedGetNBI(gexl_ctx.tm, dstcount, dstlist, dstlen, srcnode, srccount,
                              srclist, srclen, 0);
}
static inline void gasnet_geti_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                    gasnet_node_t srcnode, size_t srccount,
                                    void *const srclist[], size_t srclen) {
  (void)gex_VIS_IndexedGetBlocking(gexl_ctx.tm, dstcount, dstlist, dstlen, srcnode, srccount,
                                   srclist, srclen, 0);
}

/* ---- strided ------------------------------------------------------------------------ */
static inline gasnet_handle_t gasnet_puts_nb_bulk(gasnet_node_t dstnode, void *dstaddr,
                                                  const size_t dststrides[], void *srcaddr,
                                                  const size_t srcstrides[],
                                                  const size_t count[], size_t stridelevels) {
  return gex_VIS_StridedPutNB(gexl_ctx.tm, dstnode, dstaddr, GEXL_STRIDES(dststrides), srcaddr,
                              GEXL_STRIDES(srcstrides), count[0], count + 1, stridelevels, 0);
}
static inline void gasnet_puts_nbi_bulk(gasnet_node_t dstnode, void *dstaddr,
                                        const size_t dststrides[], void *srcaddr,
                                        const size_t srcstrides[], const size_t count[],
                                        size_t stridelevels) {
  (void)gex_VIS_StridedPutNBI(gexl_ctx.tm, dstnode, dstaddr, GEXL_STRIDES(dststrides), srcaddr,
                              GEXL_STRIDES(srcstrides), count[0], count + 1, stridelevels, 0);
}
static inline void gasnet_puts_bulk(gasnet_node_t dstnode, void *dstaddr,
                                    const size_t dststrides[], void *srcaddr,
                                    const size_t srcstrides[], const size_t count[],
                                    size_t stridelevels) {
  (void)gex_VIS_StridedPutBlocking(gexl_ctx.tm, dstnode, dstaddr, GEXL_STRIDES(dststrides),
                                   srcaddr, GEXL_STRIDES(srcstrides), count[0], count + 1,
                                   stridelevels, 0);
}
static inline gasnet_handle_t gasnet_gets_nb_bulk(void *dstaddr, const size_t dststrides[],
                                                  gasnet_node_t srcnode, void *srcaddr,
                                                  const size_t srcstrides[],
                                                  const size_t count[], size_t stridelevels) {
  return gex_VIS_StridedGetNB(gexl_ctx.tm, dstaddr, GEXL_STRIDES(dststrides), srcnode, srcaddr,
                              GEXL_STRIDES(srcstrides), count[0], count + 1, stridelevels, 0);
}
static inline void gasnet_gets_nbi_bulk(void *dstaddr, const size_t dststrides[],
                                        gasnet_node_t srcnode, void *srcaddr,
                                        const size_t srcstrides[], const size_t count[],
                                        size_t stridelevels) {
  (void)gex_VIS_StridedGetNBI(gexl_ctx.tm, dstaddr, GEXL_STRIDES(dststrides), srcnode, srcaddr,
                              GEXL_STRIDES(srcstrides), count[0], count + 1, stridelevels, 0);
}
static inline void gasnet_gets_bulk(void *dstaddr, const size_t dststrides[],
                                    gasnet_node_t srcnode, void *srcaddr,
                                    const size_t srcstrides[], const size_t count[],
                                    size_t stridelevels) {
  (void)gex_VIS_StridedGetBlocking(gexl_ctx.tm, dstaddr, GEXL_STRIDES(dststrides), srcnode,
                                   srcaddr, GEXL_STRIDES(srcstrides), count[0], count + 1,
                                   stridelevels, 0);
}

#ifdef __cplusplus
}
#endif

#endif /* GEX_LEGACY_VIS_H */

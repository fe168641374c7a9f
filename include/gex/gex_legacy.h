/* gex/gex_legacy.h -- libgex: the GASNet-1 API (initialisation, RMA, AM).
 *
 * Not for direct inclusion; <gasnet.h> includes it.  Every call maps onto the
 * GASNet-EX API of <gasnetex.h>, over the primordial team that the GASNet-1
 * layer keeps in gexl_ctx (gex/gex_gasnet1.h).  The RMA and AM calls are
 * static inline wrappers over the inline GASNet-EX calls, so a GASNet-1 Put
 * costs what gex_RMA_PutNBI costs plus one load.  See docs/legacy.md for the
 * mapping and where it differs from the GASNet-1 specification.
 *
 * GASNet-1 calls other than those of gex/gex_gasnet1.h are legal only after
 * gasnet_init/gasnet_attach, or after gex_Client_Init with
 * GEX_FLAG_USES_GASNET1.
 */
#ifndef GEX_LEGACY_H
#define GEX_LEGACY_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions and types ---------------------------------------------------- */
#define GASNET_VERSION GASNET_SPEC_VERSION_MAJOR

typedef struct {
  gasnet_handler_t index; /* 0: "any index", replaced by the one assigned */
  gex_AM_Fn_t fnptr;
} gasnet_handlerentry_t;

/* host: ordinal of the rank's host; supernode: ordinal of its neighbourhood
 * (the ranks that share memory with it), both numbered as
 * gex_System_QueryMyPosition numbers them.  offset: add it to an address in
 * that rank's segment to get the address of the same byte in this process
 * (0 unless the rank shares memory with this one and segments are attached). */
typedef struct {
  gasnet_node_t host;
  gasnet_node_t supernode;
  uintptr_t offset;
} gasnet_nodeinfo_t;

/* The reference implementation's internal name for the job rank, used by its
 * own GASNet-1 conformance test. */
#define gasneti_mynode (gasnet_mynode())

/* ---- initialisation ------------------------------------------------------------ */
int gasnet_init(int *argc, char ***argv);
int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                  uintptr_t minheapoffset);
int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);

/* ---- no-interrupt sections --------------------------------------------------------
 * libgex runs handlers only inside polling calls, never asynchronously, so
 * there is nothing to hold off. */
#define gasnet_hold_interrupts() ((void)0)
#define gasnet_resume_interrupts() ((void)0)

/* ---- AM limits ---------------------------------------------------------------------- */
static inline size_t gasnet_AMMaxArgs(void) { return gex_AM_MaxArgs(); }
static inline size_t gasnet_AMMaxMedium(void) {
  size_t rq = gex_AM_LUBRequestMedium(), rp = gex_AM_LUBReplyMedium();
  return rq < rp ? rq : rp;
}
static inline size_t gasnet_AMMaxLongRequest(void) { return gex_AM_LUBRequestLong(); }
static inline size_t gasnet_AMMaxLongReply(void) { return gex_AM_LUBReplyLong(); }

/* ---- the on-node fast path of builds without the misuse checks ----------------------
 * With GEX_CHECKS off, an RMA to a rank whose segment is mapped here is one
 * memcpy through gexl_ctx.delta (one load for the table, one for the entry);
 * every other case, and every call of a checks build (where the EX call
 * checks the rank and the range), is the GASNet-EX call.  Same effect as the
 * EX fast path, one load fewer than reaching the team's peer table through
 * gexl_ctx.tm, which the compiler must reload after every store. */
#define GEXL_NOT_MAPPED INTPTR_MIN
/* Out of line, for an entry still GEXL_NOT_MAPPED: fills the table if a
 * segment is attached and it was not filled yet, then returns the entry. */
intptr_t gexl_delta_miss(gasnet_node_t node);
#if GEX_CHECKS
#define GEXL_PUT_LOCAL(node, dest, src, nbytes) 0
#define GEXL_GET_LOCAL(dest, node, src, nbytes) 0
#else
GEXI_INLINE intptr_t gexl_delta(gasnet_node_t node) {
#if defined(__GNUC__)
  intptr_t d = __atomic_load_n(&gexl_ctx.delta[node], __ATOMIC_RELAXED);
#else
  intptr_t d = gexl_ctx.delta[node];
#endif
  return GEXI_LIKELY(d != GEXL_NOT_MAPPED) ? d : gexl_delta_miss(node);
}
GEXI_INLINE int gexl_put_local(gasnet_node_t node, void *dest, const void *src, size_t nbytes) {
  intptr_t d = gexl_delta(node);
  if (GEXI_UNLIKELY(d == GEXL_NOT_MAPPED)) return 0;
  memcpy((char *)dest + d, src, nbytes);
  return 1;
}
GEXI_INLINE int gexl_get_local(void *dest, gasnet_node_t node, const void *src, size_t nbytes) {
  intptr_t d = gexl_delta(node);
  if (GEXI_UNLIKELY(d == GEXL_NOT_MAPPED)) return 0;
  memcpy(dest, (const char *)src + d, nbytes);
  return 1;
}
#define GEXL_PUT_LOCAL(node, dest, src, nbytes) gexl_put_local(node, dest, src, nbytes)
#define GEXL_GET_LOCAL(dest, node, src, nbytes) gexl_get_local(dest, node, src, nbytes)
#endif

/* ---- blocking RMA -----------------------------------------------------------------
 * "Non-bulk" and "bulk" forms are the same call: libgex has no alignment
 * requirement on RMA payloads. */
static inline void gasnet_put(gasnet_node_t node, void *dest, const void *src, size_t nbytes) {
  if (!GEXL_PUT_LOCAL(node, dest, src, nbytes))
    (void)gex_RMA_PutBlocking(gexl_ctx.tm, node, dest, src, nbytes, 0);
}
static inline void gasnet_put_bulk(gasnet_node_t node, void *dest, const void *src,
                                   size_t nbytes) {
  if (!GEXL_PUT_LOCAL(node, dest, src, nbytes))
    (void)gex_RMA_PutBlocking(gexl_ctx.tm, node, dest, src, nbytes, 0);
}
static inline void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  if (!GEXL_GET_LOCAL(dest, node, src, nbytes))
    (void)gex_RMA_GetBlocking(gexl_ctx.tm, dest, node, src, nbytes, 0);
}
static inline void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  if (!GEXL_GET_LOCAL(dest, node, src, nbytes))
    (void)gex_RMA_GetBlocking(gexl_ctx.tm, dest, node, src, nbytes, 0);
}

/* ---- explicit-handle RMA ----------------------------------------------------------------
 * Non-bulk Puts have their source reusable on return (GEX_EVENT_NOW); bulk
 * Puts only once the handle is synchronised (GEX_EVENT_DEFER). */
static inline gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, const void *src,
                                            size_t nbytes) {
  if (GEXL_PUT_LOCAL(node, dest, src, nbytes)) return GASNET_INVALID_HANDLE;
  return gex_RMA_PutNB(gexl_ctx.tm, node, dest, src, nbytes, GEX_EVENT_NOW, 0);
}
static inline gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest,
                                                 const void *src, size_t nbytes) {
  if (GEXL_PUT_LOCAL(node, dest, src, nbytes)) return GASNET_INVALID_HANDLE;
  return gex_RMA_PutNB(gexl_ctx.tm, node, dest, src, nbytes, GEX_EVENT_DEFER, 0);
}
static inline gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src,
                                            size_t nbytes) {
  if (GEXL_GET_LOCAL(dest, node, src, nbytes)) return GASNET_INVALID_HANDLE;
  return gex_RMA_GetNB(gexl_ctx.tm, dest, node, src, nbytes, 0);
}
static inline gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src,
                                                 size_t nbytes) {
  if (GEXL_GET_LOCAL(dest, node, src, nbytes)) return GASNET_INVALID_HANDLE;
  return gex_RMA_GetNB(gexl_ctx.tm, dest, node, src, nbytes, 0);
}

/* ---- implicit-handle RMA ------------------------------------------------------------------ */
static inline void gasnet_put_nbi(gasnet_node_t node, void *dest, const void *src,
                                  size_t nbytes) {
  if (!GEXL_PUT_LOCAL(node, dest, src, nbytes))
    (void)gex_RMA_PutNBI(gexl_ctx.tm, node, dest, src, nbytes, GEX_EVENT_NOW, 0);
}
static inline void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, const void *src,
                                       size_t nbytes) {
  if (!GEXL_PUT_LOCAL(node, dest, src, nbytes))
    (void)gex_RMA_PutNBI(gexl_ctx.tm, node, dest, src, nbytes, GEX_EVENT_DEFER, 0);
}
static inline void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  if (!GEXL_GET_LOCAL(dest, node, src, nbytes))
    (void)gex_RMA_GetNBI(gexl_ctx.tm, dest, node, src, nbytes, 0);
}
static inline void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src,
                                       size_t nbytes) {
  if (!GEXL_GET_LOCAL(dest, node, src, nbytes))
    (void)gex_RMA_GetNBI(gexl_ctx.tm, dest, node, src, nbytes, 0);
}

/* ---- value forms (1 <= nbytes <= SIZEOF_GASNET_REGISTER_VALUE_T) ------------------------ */
static inline void gasnet_put_val(gasnet_node_t node, void *dest,
                                  gasnet_register_value_t value, size_t nbytes) {
  (void)gex_RMA_PutBlockingVal(gexl_ctx.tm, node, dest, value, nbytes, 0);
}
static inline gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                                gasnet_register_value_t value, size_t nbytes) {
  return gex_RMA_PutNBVal(gexl_ctx.tm, node, dest, value, nbytes, 0);
}
static inline void gasnet_put_nbi_val(gasnet_node_t node, void *dest,
                                      gasnet_register_value_t value, size_t nbytes) {
  (void)gex_RMA_PutNBIVal(gexl_ctx.tm, node, dest, value, nbytes, 0);
}
static inline gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src,
                                                     size_t nbytes) {
  return gex_RMA_GetBlockingVal(gexl_ctx.tm, node, src, nbytes, 0);
}

/* Split-phase value Get: the handle owns the landing buffer until
 * gasnet_wait_syncnb_valget returns the value (and frees it). */
typedef struct gexl_valget *gasnet_valget_handle_t;
gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes);
gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle);

/* ---- memset (no GASNet-EX counterpart: src/legacy/rma.c) --------------------------------
 * Complete when the call returns; the _nb form returns GASNET_INVALID_HANDLE
 * and the _nbi form leaves nothing outstanding. */
void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes);
gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes);
void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes);

/* ---- synchronisation ------------------------------------------------------------------------
 * The try forms poll once (running pending handlers) before testing, so a
 * loop over them makes progress and yields the CPU like GASNET_BLOCKUNTIL. */
static inline void gasnet_wait_syncnb(gasnet_handle_t handle) { gex_Event_Wait(handle); }
static inline int gasnet_try_syncnb(gasnet_handle_t handle) {
  (void)gasnet_AMPoll();
  return gex_Event_Test(handle) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline void gasnet_wait_syncnb_all(gasnet_handle_t *phandle, size_t numhandles) {
  gex_Event_WaitAll(phandle, numhandles, 0);
}
static inline void gasnet_wait_syncnb_some(gasnet_handle_t *phandle, size_t numhandles) {
  gex_Event_WaitSome(phandle, numhandles, 0);
}
static inline int gasnet_try_syncnb_all(gasnet_handle_t *phandle, size_t numhandles) {
  (void)gasnet_AMPoll();
  return gex_Event_TestAll(phandle, numhandles, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline int gasnet_try_syncnb_some(gasnet_handle_t *phandle, size_t numhandles) {
  (void)gasnet_AMPoll();
  return gex_Event_TestSome(phandle, numhandles, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline void gasnet_wait_syncnbi_all(void) { gex_NBI_Wait(GEX_EC_ALL, 0); }
static inline void gasnet_wait_syncnbi_puts(void) { gex_NBI_Wait(GEX_EC_PUT, 0); }
static inline void gasnet_wait_syncnbi_gets(void) { gex_NBI_Wait(GEX_EC_GET, 0); }
static inline int gasnet_try_syncnbi_all(void) {
  (void)gasnet_AMPoll();
  return gex_NBI_Test(GEX_EC_ALL, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline int gasnet_try_syncnbi_puts(void) {
  (void)gasnet_AMPoll();
  return gex_NBI_Test(GEX_EC_PUT, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline int gasnet_try_syncnbi_gets(void) {
  (void)gasnet_AMPoll();
  return gex_NBI_Test(GEX_EC_GET, 0) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}
static inline void gasnet_begin_nbi_accessregion(void) { gex_NBI_BeginAccessRegion(0); }
static inline gasnet_handle_t gasnet_end_nbi_accessregion(void) {
  return gex_NBI_EndAccessRegion(0);
}

/* ---- Active Messages ---------------------------------------------------------------------------
 * gasnet_AM{Request,Reply}{Short,Medium,Long}M and gasnet_AMRequestLongAsyncM
 * for M = 0..16 arguments.  Payloads are reusable when the call returns
 * (GEX_EVENT_NOW); LongAsync is therefore the same call as Long.  Each
 * returns GASNET_OK (the GASNet-EX call never fails without
 * GEX_FLAG_IMMEDIATE; misuse ends the job with a message). */
#define GEXL_AM_FORMS(M)                                                                    \
  static inline int gasnet_AMRequestShort##M(gasnet_node_t dest, gasnet_handler_t handler    \
                                                 GEXI_P##M) {                                \
    return gex_AM_RequestShort##M(gexl_ctx.tm, dest, handler, 0 GEXI_A##M);                  \
  }                                                                                          \
  static inline int gasnet_AMRequestMedium##M(gasnet_node_t dest, gasnet_handler_t handler,  \
                                              const void *source_addr, size_t nbytes GEXI_P##M) {   \
    return gex_AM_RequestMedium##M(gexl_ctx.tm, dest, handler, source_addr, nbytes,          \
                                   GEX_EVENT_NOW, 0 GEXI_A##M);                              \
  }                                                                                          \
  static inline int gasnet_AMRequestLong##M(gasnet_node_t dest, gasnet_handler_t handler,    \
                                            const void *source_addr, size_t nbytes,              \
                                            void *dest_addr GEXI_P##M) {                      \
    return gex_AM_RequestLong##M(gexl_ctx.tm, dest, handler, source_addr, nbytes, dest_addr, \
                                 GEX_EVENT_NOW, 0 GEXI_A##M);                                \
  }                                                                                          \
  static inline int gasnet_AMRequestLongAsync##M(gasnet_node_t dest, gasnet_handler_t handler, \
                                                 const void *source_addr, size_t nbytes,         \
                                                 void *dest_addr GEXI_P##M) {                 \
    return gex_AM_RequestLong##M(gexl_ctx.tm, dest, handler, source_addr, nbytes, dest_addr, \
                                 GEX_EVENT_NOW, 0 GEXI_A##M);                                \
  }                                                                                          \
  static inline int gasnet_AMReplyShort##M(gasnet_token_t token, gasnet_handler_t handler    \
                                               GEXI_P##M) {                                  \
    return gex_AM_ReplyShort##M(token, handler, 0 GEXI_A##M);                                \
  }                                                                                          \
  static inline int gasnet_AMReplyMedium##M(gasnet_token_t token, gasnet_handler_t handler,  \
                                            const void *source_addr, size_t nbytes GEXI_P##M) {     \
    return gex_AM_ReplyMedium##M(token, handler, source_addr, nbytes, GEX_EVENT_NOW,         \
                                 0 GEXI_A##M);                                               \
  }                                                                                          \
  static inline int gasnet_AMReplyLong##M(gasnet_token_t token, gasnet_handler_t handler,    \
                                          const void *source_addr, size_t nbytes,                \
                                          void *dest_addr GEXI_P##M) {                        \
    return gex_AM_ReplyLong##M(token, handler, source_addr, nbytes, dest_addr,               \
                               GEX_EVENT_NOW, 0 GEXI_A##M);                                  \
  }

GEXL_AM_FORMS(0)
GEXL_AM_FORMS(1)
GEXL_AM_FORMS(2)
GEXL_AM_FORMS(3)
GEXL_AM_FORMS(4)
GEXL_AM_FORMS(5)
GEXL_AM_FORMS(6)
GEXL_AM_FORMS(7)
GEXL_AM_FORMS(8)
GEXL_AM_FORMS(9)
GEXL_AM_FORMS(10)
GEXL_AM_FORMS(11)
GEXL_AM_FORMS(12)
GEXL_AM_FORMS(13)
GEXL_AM_FORMS(14)
GEXL_AM_FORMS(15)
GEXL_AM_FORMS(16)
#undef GEXL_AM_FORMS

#ifdef __cplusplus
}
#endif

#endif /* GEX_LEGACY_H */

/* gasnetex.h -- libgex: the GASNet-EX communication API.
 *
 * This is the header clients include.  Declarations follow the GASNet-EX
 * specification (spec v0.19); the inline fast paths live in
 * gex/gex_inline.h and the argument-count forms of the AM calls in
 * gex/gex_am_forms.h, both included at the end of this file.
 */
#ifndef GASNETEX_H
#define GASNETEX_H

#include <gasnet_fwd.h>
#include <gex/gex_basic.h>
#include <gex/gex_config.h>
/* The system headers the reference's gasnetex.h brings in: clients use
 * getpid, fprintf, getenv, strlen, ... with only a GASNet header included
 * (docs/compatibility.md, "What clients take from the headers"). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions --------------------------------------------------------- */
#define GASNET_RELEASE_VERSION_MAJOR 2025
#define GASNET_RELEASE_VERSION_MINOR 8
#define GASNET_RELEASE_VERSION_PATCH 0
#define GEX_SPEC_VERSION_MAJOR 0
#define GEX_SPEC_VERSION_MINOR 19
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
#ifndef GASNETT_SPEC_VERSION_MAJOR /* also defined by gasnet_tools.h */
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 20
#endif

/* libgex is always thread-safe: every call may be made from any thread.
 * The thread-model macro a client defines (possibly empty, as Realm's
 * "#define GASNET_PAR") becomes 1, as the reference makes it, so that
 * "#if GASNET_PAR" works; none defined means GASNET_PAR. */
#if !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#define GASNET_PAR 1
#elif defined(GASNET_PAR)
#undef GASNET_PAR
#define GASNET_PAR 1
#elif defined(GASNET_PARSYNC)
#undef GASNET_PARSYNC
#define GASNET_PARSYNC 1
#else
#undef GASNET_SEQ
#define GASNET_SEQ 1
#endif
/* The most threads a process may use with the library (Chapel reads it). */
#define GASNETI_MAX_THREADS 256
#define GASNET_PSHM 1
#define LIBGEX 1

/* ---- build configuration, as the reference reports its own ------------ */
/* Segments are ordinary memory of this process (not at the same address in
 * every process); the whole segment is registered (the "FAST" model).
 * GASNET_NDEBUG: libgex has no slow debug build (its misuse checks are
 * cheap and on by default; see GEX_CHECKS). */
#define GASNET_ALIGNED_SEGMENTS 0
#define GASNET_SEGMENT_FAST 1
#define GASNET_NDEBUG 1
#define GASNET_NULL_ARGV_OK 1

/* ---- conduit identity (GASNET_CONDUIT_*, GASNET_CONFIG_STRING, ident
 * strings): the <gex_conduit.h> of <prefix>/include/<conduit>-conduit when
 * the client has one on its include path, else the ofi identity. */
#if defined(__has_include)
#if __has_include(<gex_conduit.h>)
#include <gex_conduit.h>
#endif
#endif
#ifndef GEX_CONDUIT_H
#include <ofi-conduit/gex_conduit.h>
#endif

/* ---- implementation limits --------------------------------------------- */
#define GASNET_PAGESIZE 4096
#define GASNET_MAXNODES ((gex_Rank_t)0x7FFFFFFF)
/* GASNET_MAXEPS comes with the conduit identity (<conduit>-conduit/gex_conduit.h). */
#define GEX_AM_INDEX_BASE 128
#define GASNET_HIDDEN_AM_CONCURRENCY_LEVEL 0
#define GEX_THREAD_ROLE_RCV 1u
#define GEX_THREAD_ROLE_SND 2u
/* GASNET_RCV_THREAD and GASNET_SND_THREAD are left undefined, as in the
 * reference's udp, ofi and smp conduits; the environment variable
 * GASNET_RCV_THREAD=1 still starts libgex's receive thread
 * (docs/environment.md). */

#define GASNET_SUPPORTS_TI_SRCRANK 1
#define GASNET_SUPPORTS_TI_EP 1
#define GASNET_SUPPORTS_TI_ENTRY 1
#define GASNET_SUPPORTS_TI_IS_REQ 1
#define GASNET_SUPPORTS_TI_IS_LONG 1
#define GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM 1
#define GASNET_NATIVE_NP_ALLOC_REP_MEDIUM 1
#define GASNET_SUPPORTS_AM_COMMIT_V2 20240906L
#define GASNET_SUPPORTS_AM_CANCEL 20240418L

/* ---- error codes (GASNet-1 compatible) --------------------------------- */
#define GASNET_OK 0
#define _GASNET_ERR_BASE 10000
#define GASNET_ERR_NOT_INIT (_GASNET_ERR_BASE + 1)
#define GASNET_ERR_RESOURCE (_GASNET_ERR_BASE + 2)
#define GASNET_ERR_BAD_ARG (_GASNET_ERR_BASE + 3)
#define GASNET_ERR_NOT_READY (_GASNET_ERR_BASE + 4)
#define GASNET_ERR_BARRIER_MISMATCH (_GASNET_ERR_BASE + 5)
const char *gasnet_ErrorName(int errval);
const char *gasnet_ErrorDesc(int errval);

/* ---- opaque handles ----------------------------------------------------- */
typedef struct gexi_Token *gex_Token_t;
typedef uint8_t gex_AM_Index_t;
typedef int32_t gex_AM_Arg_t;
#ifdef __cplusplus
typedef void (*gex_AM_Fn_t)(void);
#else
typedef void (*gex_AM_Fn_t)(); /* any handler signature, cast on registration */
#endif
typedef uint64_t gex_RMA_Value_t;
#define SIZEOF_GEX_RMA_VALUE_T 8

typedef struct {
  void *gex_addr;
  size_t gex_len;
} gex_Memvec_t;

typedef struct gexi_EP *gex_EP_t;
typedef struct gexi_Client *gex_Client_t;
typedef struct gexi_Segment *gex_Segment_t;
typedef struct gexi_TM *gex_TM_t;
typedef struct gexi_SrcDesc *gex_AM_SrcDesc_t;

#define GEX_EP_INVALID ((gex_EP_t)0)
#define GEX_CLIENT_INVALID ((gex_Client_t)0)
#define GEX_SEGMENT_INVALID ((gex_Segment_t)0)
#define GEX_TM_INVALID ((gex_TM_t)0)
#define GEX_AM_SRCDESC_NO_OP ((gex_AM_SrcDesc_t)0)

/* ---- job ----------------------------------------------------------------- */
gex_Rank_t gex_System_QueryJobRank(void);
gex_Rank_t gex_System_QueryJobSize(void);
int gex_System_GetVerboseErrors(void);
void gex_System_SetVerboseErrors(int enable);
uint64_t gex_System_QueryMaxThreads(void);
/* A client compiled with GASNET_SEQ promises to call libgex from one thread
 * only; it sees a limit of 1, as with the reference's seq library (libgex
 * has one thread-safe library for every thread model). */
#if defined(GASNET_SEQ) && !defined(GEXI_BUILDING_LIBRARY)
#define gex_System_QueryMaxThreads() ((uint64_t)1)
#endif
int gex_System_QueryHiddenAMConcurrencyLevel(void);

typedef struct {
  const char *gex_device_list;
  unsigned int gex_thread_roles;
  void *(*gex_progress_fn)(void *);
  void *gex_progress_arg;
} gex_ProgressThreadInfo_t;
int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                    const gex_ProgressThreadInfo_t **info_p,
                                    gex_Flags_t flags);

typedef const struct {
  gex_Rank_t gex_jobrank;
} gex_RankInfo_t;
void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                               gex_Rank_t *my_info_index_p);
void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                              gex_Rank_t *my_info_index_p);
void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size_p, gex_Rank_t *nbrhd_set_rank_p,
                                gex_Rank_t *host_set_size_p, gex_Rank_t *host_set_rank_p);

/* ---- client data ----------------------------------------------------------- */
void gex_Client_SetCData(gex_Client_t client, const void *val);
void *gex_Client_QueryCData(gex_Client_t client);
void gex_Segment_SetCData(gex_Segment_t seg, const void *val);
void *gex_Segment_QueryCData(gex_Segment_t seg);
void gex_TM_SetCData(gex_TM_t tm, const void *val);
void *gex_TM_QueryCData(gex_TM_t tm);
void gex_EP_SetCData(gex_EP_t ep, const void *val);
void *gex_EP_QueryCData(gex_EP_t ep);

/* ---- client -------------------------------------------------------------- */
gex_Flags_t gex_Client_QueryFlags(gex_Client_t client);
const char *gex_Client_QueryName(gex_Client_t client);
int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                    const char *clientName, int *argc, char ***argv, gex_Flags_t flags);

/* ---- segment ------------------------------------------------------------- */
gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg);
gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg);
void *gex_Segment_QueryAddr(gex_Segment_t seg);
uintptr_t gex_Segment_QuerySize(gex_Segment_t seg);
int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size);
/* gasnet_client_attach_hook: a function the client may set before
 * gex_Segment_Attach (or gasnet_attach), called with this process's segment
 * (base, size) once it is mapped and before the network registers it, as
 * the reference does (Chapel touches its heap there).  Assignable like the
 * reference's variable; the pointer itself lives in the library's context. */
void (**gexi_client_attach_hook_p(void))(void *, uintptr_t);
#define gasnet_client_attach_hook (*gexi_client_attach_hook_p())
uintptr_t gasnet_getMaxLocalSegmentSize(void);
uintptr_t gasnet_getMaxGlobalSegmentSize(void);

/* ---- team ------------------------------------------------------------------ */
gex_Client_t gex_TM_QueryClient(gex_TM_t tm);
gex_EP_t gex_TM_QueryEP(gex_TM_t tm);
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm);
gex_Rank_t gex_TM_QueryRank(gex_TM_t tm);
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm);
gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index);
size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                    void *scratch_addr, size_t scratch_size, gex_Flags_t flags);
size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                     gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                     size_t scratch_size, gex_Flags_t flags);
int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags);
gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank);
gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank);
gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags);

/* ---- endpoint --------------------------------------------------------------- */
gex_Client_t gex_EP_QueryClient(gex_EP_t ep);
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep);
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep);
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep);
gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                       void **localaddr_p, uintptr_t *size_p,
                                       gex_Flags_t flags);
int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                           void **localaddr_p, uintptr_t *size_p);
int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags);

/* ---- AM handlers ---------------------------------------------------------- */
typedef struct {
  gex_AM_Index_t gex_index;
  gex_AM_Fn_t gex_fnptr;
  gex_Flags_t gex_flags;
  unsigned int gex_nargs;
  const void *gex_cdata;
  const char *gex_name;
} gex_AM_Entry_t;

int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries);

/* ---- AM limits --------------------------------------------------------------- */
unsigned int gex_AM_MaxArgs(void);
size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs);
size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                           gex_Flags_t flags, unsigned int numargs);
size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                               gex_Flags_t flags, unsigned int numargs);
size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs);
size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags,
                              unsigned int numargs);
size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt,
                                gex_Flags_t flags, unsigned int numargs);
size_t gex_AM_LUBRequestLong(void);
size_t gex_AM_LUBReplyLong(void);
size_t gex_AM_LUBRequestMedium(void);
size_t gex_AM_LUBReplyMedium(void);

/* ---- token info -------------------------------------------------------------- */
typedef struct {
  gex_Rank_t gex_srcrank;
  gex_EP_t gex_ep;
  const gex_AM_Entry_t *gex_entry;
  unsigned int gex_is_req;
  unsigned int gex_is_long;
} gex_Token_Info_t;

typedef uint32_t gex_TI_t;
#define GEX_TI_SRCRANK ((gex_TI_t)1u << 0)
#define GEX_TI_ENTRY ((gex_TI_t)1u << 1)
#define GEX_TI_IS_REQ ((gex_TI_t)1u << 2)
#define GEX_TI_IS_LONG ((gex_TI_t)1u << 3)
#define GEX_TI_EP ((gex_TI_t)1u << 4)
#define GEX_TI_ALL ((gex_TI_t)0x1Fu)
gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask);

/* ---- negotiated-payload AM ---------------------------------------------------- */
void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd);
size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd);
gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank,
                                             const void *client_buf, size_t least_payload,
                                             size_t most_payload, gex_Event_t *lc_opt,
                                             gex_Flags_t flags, unsigned int numargs);
gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs);
gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           void *dest_addr, gex_Event_t *lc_opt,
                                           gex_Flags_t flags, unsigned int numargs);
gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                         size_t least_payload, size_t most_payload,
                                         void *dest_addr, gex_Event_t *lc_opt,
                                         gex_Flags_t flags, unsigned int numargs);
int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);

/* ---- events and NBI ------------------------------------------------------------ */
typedef uint32_t gex_EC_t;
/* The reference's values: GET and RMW are single bits; PUT covers bits 0
 * and 1, and AM and LC are bit 1, so a mask naming AM or LC also selects
 * Puts (whose local completion they share). */
#define GEX_EC_GET ((gex_EC_t)4u)
#define GEX_EC_PUT ((gex_EC_t)3u)
#define GEX_EC_AM ((gex_EC_t)2u)
#define GEX_EC_LC ((gex_EC_t)2u)
#define GEX_EC_RMW ((gex_EC_t)8u)
#define GEX_EC_ALL ((gex_EC_t)0xFFFFFFFFu)

int gex_Event_Test(gex_Event_t event);
void gex_Event_Wait(gex_Event_t event);
int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category);
int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags);
void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags);
void gex_NBI_BeginAccessRegion(gex_Flags_t flags);
gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags);

/* ---- barrier ----------------------------------------------------------------- */
gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags);
/* Blocking form (not in the specification; the reference provides it):
 * gex_Event_Wait(gex_Coll_BarrierNB(tm, flags)); returns GASNET_OK. */
int gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags);

/* ---- handler-safe locks ---------------------------------------------------------- */
typedef struct {
  pthread_mutex_t gexi_mutex;
  uintptr_t gexi_owner; /* checked builds: the holding thread, 0 when free */
} gex_HSL_t;
#define GEX_HSL_INITIALIZER {PTHREAD_MUTEX_INITIALIZER, 0}
void gex_HSL_Init(gex_HSL_t *hsl);
void gex_HSL_Destroy(gex_HSL_t *hsl);
void gex_HSL_Lock(gex_HSL_t *hsl);
void gex_HSL_Unlock(gex_HSL_t *hsl);
int gex_HSL_Trylock(gex_HSL_t *hsl);

/* ---- GASNet-1 calls kept by GASNet-EX ------------------------------------------- */
typedef gex_Rank_t gasnet_node_t;
typedef gex_Event_t gasnet_handle_t;
typedef gex_Token_t gasnet_token_t;
typedef gex_AM_Index_t gasnet_handler_t;
typedef gex_AM_Arg_t gasnet_handlerarg_t;
typedef gex_RMA_Value_t gasnet_register_value_t;
typedef gex_HSL_t gasnet_hsl_t;
#define GASNET_INVALID_HANDLE GEX_EVENT_INVALID
#define GASNET_HSL_INITIALIZER GEX_HSL_INITIALIZER
#define SIZEOF_GASNET_REGISTER_VALUE_T SIZEOF_GEX_RMA_VALUE_T

#ifdef __GNUC__
__attribute__((noreturn))
#endif
void gasnet_exit(int exitcode);
int gasnet_AMPoll(void);
gasnet_node_t gasnet_mynode(void);
gasnet_node_t gasnet_nodes(void);
void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                            gex_Segment_t *segment_p);
int gasnet_AMGetMsgSource(gex_Token_t token, gasnet_node_t *srcindex);
void gasnet_hsl_init(gasnet_hsl_t *hsl);
void gasnet_hsl_destroy(gasnet_hsl_t *hsl);
void gasnet_hsl_lock(gasnet_hsl_t *hsl);
void gasnet_hsl_unlock(gasnet_hsl_t *hsl);
int gasnet_hsl_trylock(gasnet_hsl_t *hsl);

/* Poll until cond holds.  Like gasnet_AMPoll, gexi_blockuntil_poll yields
 * the CPU after a run of empty polls, so this never starves other ranks of an
 * oversubscribed node; unlike it, it may also sleep on the network (the wait
 * policy, GEX_WAIT_MODE), since only a poll can make cond true. */
void gexi_blockuntil_poll(void);
#define GASNET_BLOCKUNTIL(cond) \
  do {                          \
    while (!(cond)) {           \
      gexi_blockuntil_poll();   \
    }                           \
  } while (0)

#ifdef __cplusplus
}
#endif

#include <gex/gex_inline.h>
/* The GASNet-1 names GASNet-EX programs use (barrier, wait mode, ...). */
#include <gex/gex_gasnet1.h>
#include <gex/gex_am_forms.h>
/* Segments and endpoints made by the client, memory kinds' handle. */
#include <gex/gex_segment_ep.h>
/* <gasnet_tools.h> came first: its self-test of a job needs the types above. */
#ifdef GASNET_TOOLS_H
#include <gex/gex_tools_diagnostics.h>
#endif

#endif /* GASNETEX_H */

/* gasnet_coll_legacy.h -- the GASNet-1 prototype collectives (gasnet_coll_*).
 *
 * Included at the end of gasnet_coll.h; do not include it on its own.
 * Data-movement collectives (broadcast, scatter, gather, gather_all,
 * exchange) with their _nb and multi-address (M) forms, their handles, and
 * GASNet-1 style named barriers over a team.  The numeric values of the
 * flags are the reference implementation's.  One image per rank: an image
 * number is a rank of the primordial team.  See docs/legacy-collectives.md
 * for the semantics and the limits.
 */
#ifndef GASNET_COLL_LEGACY_H
#define GASNET_COLL_LEGACY_H

#include <gasnetex.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- types ------------------------------------------------------------- */
typedef gex_TM_t gasnet_team_handle_t;
/* A collective's handle is a gex_Event_t value, so that clients may keep
 * both kinds in one array, but it is synchronised only with
 * gasnet_coll_try_sync* / gasnet_coll_wait_sync*, never gex_Event_*. */
typedef gex_Event_t gasnet_coll_handle_t;
#define GASNET_COLL_INVALID_HANDLE GEX_EVENT_INVALID

/* The team of every rank of the job (the primordial team).  Valid after
 * gex_Client_Init. */
gasnet_team_handle_t gexi_coll_legacy_team_all(void);
#define GASNET_TEAM_ALL (gexi_coll_legacy_team_all())

/* ---- flags (the reference's values) -------------------------------------- */
/* Exactly one IN_ and one OUT_ synchronisation mode per call. */
#define GASNET_COLL_IN_NOSYNC (1 << 0)
#define GASNET_COLL_IN_MYSYNC (1 << 1)
#define GASNET_COLL_IN_ALLSYNC (1 << 2)
#define GASNET_COLL_OUT_NOSYNC (1 << 3)
#define GASNET_COLL_OUT_MYSYNC (1 << 4)
#define GASNET_COLL_OUT_ALLSYNC (1 << 5)
#define GASNET_COLL_SYNC_FLAG_MASK 0x3F
/* Exactly one of SINGLE (every rank passes the same arguments) and LOCAL
 * (each rank passes only the addresses that are its own). */
#define GASNET_COLL_SINGLE (1 << 6)
#define GASNET_COLL_LOCAL (1 << 7)
#define GASNET_COLL_AGGREGATE (1 << 8)
#define GASNET_COLL_FIXED_THREADS_PER_NODE (1 << 9)
#define GASNET_COLL_DST_IN_SEGMENT (1 << 10)
#define GASNET_COLL_SRC_IN_SEGMENT (1 << 11)
#define GASNET_COLL_DISABLE_AUTOTUNE (1 << 18)
#define GASNET_COLL_NO_IMAGES (1 << 19)
/* Properties of a GASNet-1 reduction function (no reduction is provided
 * here: use gex_Coll_ReduceToOneNB / ReduceToAllNB). */
#define GASNET_COLL_AMSAFE (1 << 0)
#define GASNET_COLL_NONCOMM (1 << 1)

/* The GASNet-1 barrier flags, shared with gasnet_barrier_notify & co. */
#ifndef GASNET_BARRIERFLAG_ANONYMOUS
#define GASNET_BARRIERFLAG_ANONYMOUS 1
#endif
#ifndef GASNET_BARRIERFLAG_MISMATCH
#define GASNET_BARRIERFLAG_MISMATCH 2
#endif
#ifndef GASNET_BARRIERFLAG_UNNAMED
#define GASNET_BARRIERFLAG_UNNAMED 9
#endif

/* ---- data movement ------------------------------------------------------------ */
/* broadcast: nbytes from src on image srcimage into dst on every image. */
gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                              gasnet_image_t srcimage, void *src,
                                              size_t nbytes, int flags);
void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                           void *src, size_t nbytes, int flags);
gasnet_coll_handle_t gasnet_coll_broadcastM_nb(gasnet_team_handle_t team,
                                               void *const dstlist[],
                                               gasnet_image_t srcimage, void *src,
                                               size_t nbytes, int flags);
void gasnet_coll_broadcastM(gasnet_team_handle_t team, void *const dstlist[],
                            gasnet_image_t srcimage, void *src, size_t nbytes, int flags);

/* scatter: block i (nbytes at src + i*nbytes on srcimage) into dst of image i. */
gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                            gasnet_image_t srcimage, void *src, size_t nbytes,
                                            int flags);
void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                         void *src, size_t nbytes, int flags);
gasnet_coll_handle_t gasnet_coll_scatterM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                             gasnet_image_t srcimage, void *src,
                                             size_t nbytes, int flags);
void gasnet_coll_scatterM(gasnet_team_handle_t team, void *const dstlist[],
                          gasnet_image_t srcimage, void *src, size_t nbytes, int flags);

/* gather: src (nbytes) of image i into dst + i*nbytes on dstimage. */
gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                           void *dst, void *src, size_t nbytes, int flags);
void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                        void *src, size_t nbytes, int flags);
gasnet_coll_handle_t gasnet_coll_gatherM_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                            void *dst, void *const srclist[], size_t nbytes,
                                            int flags);
void gasnet_coll_gatherM(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                         void *const srclist[], size_t nbytes, int flags);

/* gather_all: src (nbytes) of image i into dst + i*nbytes on every image. */
gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst, void *src,
                                               size_t nbytes, int flags);
void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                            int flags);
gasnet_coll_handle_t gasnet_coll_gather_allM_nb(gasnet_team_handle_t team,
                                                void *const dstlist[], void *const srclist[],
                                                size_t nbytes, int flags);
void gasnet_coll_gather_allM(gasnet_team_handle_t team, void *const dstlist[],
                             void *const srclist[], size_t nbytes, int flags);

/* exchange: block j of image i's src into block i of image j's dst. */
gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst, void *src,
                                             size_t nbytes, int flags);
void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                          int flags);
gasnet_coll_handle_t gasnet_coll_exchangeM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                              void *const srclist[], size_t nbytes, int flags);
void gasnet_coll_exchangeM(gasnet_team_handle_t team, void *const dstlist[],
                           void *const srclist[], size_t nbytes, int flags);

/* ---- handles --------------------------------------------------------------------- */
/* GASNET_OK once complete (the handle is then dead), else
 * GASNET_ERR_NOT_READY.  These poll the network.  The _some/_all forms
 * overwrite completed handles with GASNET_COLL_INVALID_HANDLE and succeed
 * when an array holds only invalid handles. */
int gasnet_coll_try_sync(gasnet_coll_handle_t handle);
int gasnet_coll_try_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles);
int gasnet_coll_try_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles);
void gasnet_coll_wait_sync(gasnet_coll_handle_t handle);
void gasnet_coll_wait_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles);
void gasnet_coll_wait_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles);

/* ---- named barriers over a team (GASNet-1 semantics) ----------------------------------- */
void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags);
int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags);
int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags);
int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags);

/* ---- autotuner and profile (there is neither: these do nothing) --------------------- */
void gasnet_coll_loadTuningState(char *filename, gasnet_team_handle_t team);
void gasnet_coll_dumpTuningState(char *filename, gasnet_team_handle_t team);
void gasnet_coll_dumpProfile(char *filename, gasnet_team_handle_t team);

#ifdef __cplusplus
}
#endif

#endif /* GASNET_COLL_LEGACY_H */

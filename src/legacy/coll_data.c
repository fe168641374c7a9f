/* legacy/coll_data.c -- the data-movement calls of the GASNet-1 prototype
 * collectives: argument checks, and which addresses each rank contributes
 * (docs/legacy-collectives.md).
 *
 * One image per rank, image = rank in the primordial team.  LOCAL: a rank
 * passes only its own addresses (an M list has one entry).  SINGLE: every
 * rank passes the same arguments (an M list has one entry per image, a rank
 * uses its own); segments are not aligned, so an address is read in each
 * rank as its own, exactly as with LOCAL.
 */
#include <stdlib.h>

#include "legacy/coll_legacy.h"

static int one_bit(int v) { return v != 0 && (v & (v - 1)) == 0; }

/* Checks common to every data collective; returns a zeroed operation with
 * the shared fields set. */
static struct gexi_lcoll_op *begin(const char *call, gasnet_team_handle_t team,
                                   enum gexi_lcoll_kind kind, gasnet_image_t root, size_t nbytes,
                                   int flags) {
  gexi_lcoll_setup(call);
  if (team != gexi_lcoll.tm)
    gexi_lcoll_fatal("%s: team %p is not GASNET_TEAM_ALL (the only team of these collectives)",
                     call, (void *)team);
  if (!one_bit(flags & (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC)))
    gexi_lcoll_fatal("%s: flags 0x%x must name exactly one of GASNET_COLL_IN_NOSYNC, "
                     "GASNET_COLL_IN_MYSYNC, GASNET_COLL_IN_ALLSYNC",
                     call, (unsigned)flags);
  if (!one_bit(flags &
               (GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC)))
    gexi_lcoll_fatal("%s: flags 0x%x must name exactly one of GASNET_COLL_OUT_NOSYNC, "
                     "GASNET_COLL_OUT_MYSYNC, GASNET_COLL_OUT_ALLSYNC",
                     call, (unsigned)flags);
  if (!one_bit(flags & (GASNET_COLL_SINGLE | GASNET_COLL_LOCAL)))
    gexi_lcoll_fatal("%s: flags 0x%x must name exactly one of GASNET_COLL_SINGLE, "
                     "GASNET_COLL_LOCAL",
                     call, (unsigned)flags);
  gex_Rank_t n = gexi_lcoll.size;
  if ((kind == GEXI_LCOLL_BROADCAST || kind == GEXI_LCOLL_SCATTER ||
       kind == GEXI_LCOLL_GATHER) &&
      root >= n)
    gexi_lcoll_fatal("%s: image %u out of range (%u images)", call, (unsigned)root, (unsigned)n);
  if (kind != GEXI_LCOLL_BROADCAST && nbytes > SIZE_MAX / n)
    gexi_lcoll_fatal("%s: %zu bytes times %u images overflows", call, nbytes, (unsigned)n);
  struct gexi_lcoll_op *op = calloc(1, sizeof *op);
  if (!op) gexi_lcoll_fatal("%s: out of memory", call);
  op->kind = kind;
  op->flags = flags;
  op->root = (gex_Rank_t)root;
  op->nbytes = nbytes;
  return op;
}

/* The entry of an M list that is this rank's (NULL when the flags name
 * neither or both of SINGLE and LOCAL: begin() then reports them). */
static void *mine(const char *call, void *const list[], int flags) {
  gexi_lcoll_setup(call);
  if (!one_bit(flags & (GASNET_COLL_SINGLE | GASNET_COLL_LOCAL))) return NULL;
  if (!list) gexi_lcoll_fatal("%s: the address list is NULL", call);
  return list[(flags & GASNET_COLL_LOCAL) ? 0 : gexi_lcoll.rank];
}

/* Every rank that receives must name a destination, every rank that sends
 * a source (zero-byte operations move nothing and need neither). */
static void need(const char *call, const void *p, const char *what, size_t nbytes) {
  if (!p && nbytes) gexi_lcoll_fatal("%s: %s is NULL", call, what);
}

/* ---- broadcast and scatter: from one root to every rank ------------------------------------ */
/* The two differ only in what the root sends each rank (all of src, or its
 * nbytes-slice of it); every rank receives nbytes into dst. */
static gasnet_coll_handle_t from_root(const char *call, enum gexi_lcoll_kind kind,
                                      gasnet_team_handle_t team, void *dst,
                                      gasnet_image_t srcimage, void *src, size_t nbytes,
                                      int flags) {
  struct gexi_lcoll_op *op = begin(call, team, kind, srcimage, nbytes, flags);
  int root = gexi_lcoll.rank == op->root;
  need(call, dst, "dst", nbytes);
  if (root) need(call, src, "src", nbytes);
  op->dst = dst;
  op->src = root ? src : NULL;
  op->dst_size = nbytes;
  op->recv_expected = root ? 0 : nbytes;
  return gexi_lcoll_start(op);
}

gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                              gasnet_image_t srcimage, void *src,
                                              size_t nbytes, int flags) {
  return from_root("gasnet_coll_broadcast_nb", GEXI_LCOLL_BROADCAST, team, dst, srcimage, src,
                   nbytes, flags);
}
void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                           void *src, size_t nbytes, int flags) {
  gasnet_coll_wait_sync(
      from_root("gasnet_coll_broadcast", GEXI_LCOLL_BROADCAST, team, dst, srcimage, src, nbytes,
                flags));
}
gasnet_coll_handle_t gasnet_coll_broadcastM_nb(gasnet_team_handle_t team,
                                               void *const dstlist[],
                                               gasnet_image_t srcimage, void *src,
                                               size_t nbytes, int flags) {
  static const char call[] = "gasnet_coll_broadcastM_nb";
  return from_root(call, GEXI_LCOLL_BROADCAST, team, mine(call, dstlist, flags), srcimage, src,
                   nbytes, flags);
}
void gasnet_coll_broadcastM(gasnet_team_handle_t team, void *const dstlist[],
                            gasnet_image_t srcimage, void *src, size_t nbytes, int flags) {
  static const char call[] = "gasnet_coll_broadcastM";
  gasnet_coll_wait_sync(from_root(call, GEXI_LCOLL_BROADCAST, team, mine(call, dstlist, flags),
                                  srcimage, src, nbytes, flags));
}

gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                            gasnet_image_t srcimage, void *src, size_t nbytes,
                                            int flags) {
  return from_root("gasnet_coll_scatter_nb", GEXI_LCOLL_SCATTER, team, dst, srcimage, src, nbytes,
                   flags);
}
void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                         void *src, size_t nbytes, int flags) {
  gasnet_coll_wait_sync(from_root("gasnet_coll_scatter", GEXI_LCOLL_SCATTER, team, dst, srcimage,
                                  src, nbytes, flags));
}
gasnet_coll_handle_t gasnet_coll_scatterM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                             gasnet_image_t srcimage, void *src,
                                             size_t nbytes, int flags) {
  static const char call[] = "gasnet_coll_scatterM_nb";
  return from_root(call, GEXI_LCOLL_SCATTER, team, mine(call, dstlist, flags), srcimage, src,
                   nbytes, flags);
}
void gasnet_coll_scatterM(gasnet_team_handle_t team, void *const dstlist[],
                          gasnet_image_t srcimage, void *src, size_t nbytes, int flags) {
  static const char call[] = "gasnet_coll_scatterM";
  gasnet_coll_wait_sync(from_root(call, GEXI_LCOLL_SCATTER, team, mine(call, dstlist, flags),
                                  srcimage, src, nbytes, flags));
}

/* ---- gather ----------------------------------------------------------------------------------- */
static gasnet_coll_handle_t gather(const char *call, gasnet_team_handle_t team,
                                   gasnet_image_t dstimage, void *dst, void *src, size_t nbytes,
                                   int flags) {
  struct gexi_lcoll_op *op = begin(call, team, GEXI_LCOLL_GATHER, dstimage, nbytes, flags);
  int root = gexi_lcoll.rank == op->root;
  gex_Rank_t n = gexi_lcoll.size;
  if (root) need(call, dst, "dst", nbytes);
  need(call, src, "src", nbytes);
  op->dst = root ? dst : NULL;
  op->src = src;
  op->dst_size = root ? nbytes * n : 0;
  op->recv_expected = root ? nbytes * (n - 1) : 0;
  return gexi_lcoll_start(op);
}

gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                           void *dst, void *src, size_t nbytes, int flags) {
  return gather("gasnet_coll_gather_nb", team, dstimage, dst, src, nbytes, flags);
}
void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                        void *src, size_t nbytes, int flags) {
  gasnet_coll_wait_sync(gather("gasnet_coll_gather", team, dstimage, dst, src, nbytes, flags));
}
gasnet_coll_handle_t gasnet_coll_gatherM_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                            void *dst, void *const srclist[], size_t nbytes,
                                            int flags) {
  static const char call[] = "gasnet_coll_gatherM_nb";
  return gather(call, team, dstimage, dst, mine(call, srclist, flags), nbytes,
                flags);
}
void gasnet_coll_gatherM(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                         void *const srclist[], size_t nbytes, int flags) {
  static const char call[] = "gasnet_coll_gatherM";
  gasnet_coll_wait_sync(gather(call, team, dstimage, dst, mine(call, srclist, flags),
                               nbytes, flags));
}

/* ---- gather_all and exchange: every rank sends to and receives from every other ------------- */
static gasnet_coll_handle_t all_to_all(const char *call, enum gexi_lcoll_kind kind,
                                       gasnet_team_handle_t team, void *dst, void *src,
                                       size_t nbytes, int flags) {
  struct gexi_lcoll_op *op = begin(call, team, kind, 0, nbytes, flags);
  gex_Rank_t n = gexi_lcoll.size;
  need(call, dst, "dst", nbytes);
  need(call, src, "src", nbytes);
  op->dst = dst;
  op->src = src;
  op->dst_size = nbytes * n;
  op->recv_expected = nbytes * (n - 1);
  return gexi_lcoll_start(op);
}

gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst, void *src,
                                               size_t nbytes, int flags) {
  return all_to_all("gasnet_coll_gather_all_nb", GEXI_LCOLL_GATHER_ALL, team, dst, src, nbytes,
                    flags);
}
void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                            int flags) {
  gasnet_coll_wait_sync(all_to_all("gasnet_coll_gather_all", GEXI_LCOLL_GATHER_ALL, team, dst,
                                   src, nbytes, flags));
}
gasnet_coll_handle_t gasnet_coll_gather_allM_nb(gasnet_team_handle_t team,
                                                void *const dstlist[], void *const srclist[],
                                                size_t nbytes, int flags) {
  static const char call[] = "gasnet_coll_gather_allM_nb";
  return all_to_all(call, GEXI_LCOLL_GATHER_ALL, team,
                    mine(call, dstlist, flags), mine(call, srclist, flags), nbytes, flags);
}
void gasnet_coll_gather_allM(gasnet_team_handle_t team, void *const dstlist[],
                             void *const srclist[], size_t nbytes, int flags) {
  static const char call[] = "gasnet_coll_gather_allM";
  gasnet_coll_wait_sync(all_to_all(call, GEXI_LCOLL_GATHER_ALL, team,
                                   mine(call, dstlist, flags), mine(call, srclist, flags), nbytes, flags));
}

gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst, void *src,
                                             size_t nbytes, int flags) {
  return all_to_all("gasnet_coll_exchange_nb", GEXI_LCOLL_EXCHANGE, team, dst, src, nbytes,
                    flags);
}
void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                          int flags) {
  gasnet_coll_wait_sync(all_to_all("gasnet_coll_exchange", GEXI_LCOLL_EXCHANGE, team, dst, src,
                                   nbytes, flags));
}
gasnet_coll_handle_t gasnet_coll_exchangeM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                              void *const srclist[], size_t nbytes, int flags) {
  static const char call[] = "gasnet_coll_exchangeM_nb";
  return all_to_all(call, GEXI_LCOLL_EXCHANGE, team, mine(call, dstlist, flags),
                    mine(call, srclist, flags), nbytes, flags);
}
void gasnet_coll_exchangeM(gasnet_team_handle_t team, void *const dstlist[],
                           void *const srclist[], size_t nbytes, int flags) {
  static const char call[] = "gasnet_coll_exchangeM";
  gasnet_coll_wait_sync(all_to_all(call, GEXI_LCOLL_EXCHANGE, team,
                                   mine(call, dstlist, flags), mine(call, srclist, flags), nbytes, flags));
}

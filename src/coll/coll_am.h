/* coll/coll_am.h -- the transport-agnostic collectives engine (Active
 * Messages only); see docs/collectives.md, "The AM engine".
 *
 * coll/coll.c owns the team queues and the collective lock and calls in
 * here for every flat AM event (team path GEXI_COLL_PATH_AM, or the USER_NC
 * and gather fallbacks of a GEXI_COLL_PATH_HIER team); coll/coll_hier.c
 * calls in for the leaders' part of a hierarchical collective (an event on
 * the internal leaders' team).
 */
#ifndef GEXI_COLL_AM_H
#define GEXI_COLL_AM_H

#include "core/event.h"

/* SHM: every member on this node; AM: the flat AM engine; HIER: members on
 * several nodes, run hierarchically (coll/coll_hier.c: shared memory inside
 * a node, this engine among one leader per node). */
enum { GEXI_COLL_PATH_SHM = 1, GEXI_COLL_PATH_AM = 2, GEXI_COLL_PATH_HIER = 3 };

/* Team slots per process: the slot of a team is agreed by its members at
 * creation and names the team in every AM of the engine. */
#define GEXI_COLL_SLOTS 64

/* Whether t has a member on another node or GEX_COLL_FORCE_AM is set (the
 * AM or the hierarchical path: its slot's AM inbox is in use).  Decides
 * (and records in t->coll_path) on first use: SHM when every member is on
 * this node and GEX_COLL_FORCE_AM is not set; otherwise HIER when
 * GEX_COLL_HIER is not 0 and some node holds two members, else AM. */
int gexi_coll_team_am(struct gexi_team *t);

/* AMs of client collectives sent to a process of this node (counted when
 * the sender is not the deliberate flat fallback of the hierarchical path;
 * see docs/collectives.md).  Internal test hook. */
uint64_t gexi_coll_same_node_ams(void);

/* Fragments this process moved by rendezvous: read, or written by push
 * (internal test hook). */
uint64_t gexi_coll_rdv_frags(void);
/* Of those, the ones written by push. */
uint64_t gexi_coll_rdv_pushed(void);
/* ReduceToAll collectives this process ran by halving (internal test hook). */
uint64_t gexi_coll_halved(void);

/* Advance e, the head of its team's queue (collective lock held); sets
 * e->done at completion.  Returns non-zero if anything moved.  Sends AMs
 * (which may poll when a queue is full) but never holds the engine's
 * buffer lock while doing so. */
int gexi_cam_step(struct gexi_Event *e);

/* Number of exchange steps this process landed in standing buffers
 * (internal test hook). */
uint64_t gexi_coll_standing(void);

/* Release t's standing landing buffers (team destruction; none of its
 * collectives in flight). */
void gexi_cam_team_free(struct gexi_team *t);

/* Team destruction: the slot's buffers must be empty (every message sent to
 * this process for a team is consumed by one of its collectives here). */
void gexi_cam_slot_release(uint32_t slot);

/* Allgather of one rs-byte record per member of an AM-engine team p
 * (coll/coll.c; blocking, collective over p like any collective of p). */
void gexi_coll_allgather(struct gexi_team *p, const void *mine, void *all, size_t rs);

#endif

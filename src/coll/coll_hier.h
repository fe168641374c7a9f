/* coll/coll_hier.h -- hierarchical collectives for teams spanning several
 * nodes: shared memory inside each node, the AM engine among one leader
 * per node (see docs/collectives.md, "Hierarchical collectives").
 *
 * coll/coll.c owns the team queues and the collective lock and calls in
 * here for every event with e->hier set. */
#ifndef GEXI_COLL_HIER_H
#define GEXI_COLL_HIER_H

#include "core/event.h"

/* Whether some node holds two or more members of t (only then is the
 * hierarchy worth it).  Depends only on the team's membership, so every
 * member decides the same. */
int gexi_coll_hier_useful(const struct gexi_team *t);

/* Whether e (a collective on a GEXI_COLL_PATH_HIER team) gives the same
 * result hierarchically as the flat engine: not for team construction's
 * gather, and for GEX_OP_USER_NC only when every node's members form one
 * contiguous block of team ranks (then node-local folds followed by the
 * leaders' rank-ordered tree keep rank order).  Same answer everywhere. */
int gexi_coll_hier_ok(struct gexi_Event *e);

/* Advance e (head of its team's queue; collective lock held); sets e->done
 * at completion.  Returns non-zero if anything moved.  Never blocks. */
int gexi_hier_step(struct gexi_Event *e);

/* Team destruction: free t->hier. */
void gexi_coll_hier_free(struct gexi_team *t);

#endif

/* t_coll_samenode.h -- checks at the end of a collective test.  Were collective
 * Active Messages sent between ranks of one node?  libgex counts, per
 * process, the AMs of client collectives sent to a same-node peer
 * (gexi_coll_same_node_ams, an internal hook of the static library; the
 * flat USER_NC fallback of a hierarchical team is not counted).
 * GEX_TEST_SAME_NODE_AMS=0: no rank may have sent any (hierarchical path);
 * GEX_TEST_SAME_NODE_AMS=+: some rank must have (flat engine with ranks
 * sharing a node -- shows that the count sees them).  Unset: no check. */
#ifndef T_COLL_SAMENODE_H
#define T_COLL_SAMENODE_H

#include <gasnet_coll.h>
#include <stdlib.h>
#include <string.h>

uint64_t gexi_coll_same_node_ams(void);
uint64_t gexi_coll_rdv_frags(void);
uint64_t gexi_coll_rdv_pushed(void);
uint64_t gexi_coll_halved(void);
uint64_t gexi_coll_standing(void);

/* Read before the sum (itself a collective that may add to the counts). */
static void check_same_node_ams(void) {
  test_check_job_count("GEX_TEST_SAME_NODE_AMS", gexi_coll_same_node_ams(),
                       "collective AMs between ranks of one node");
}

/* Rendezvous (coll/coll_am.c): GEX_TEST_RDV=+ -- some rank must have moved
 * a collective fragment by RMA, read or pushed (gexi_coll_rdv_frags, an
 * internal hook);
 * GEX_TEST_RDV=0 -- none may have.  GEX_TEST_RDV_PUSH and GEX_TEST_RDV_READ
 * say the same of the fragments written by push and of those read;
 * GEX_TEST_HALVED of the ReduceToAll collectives run by halving,
 * GEX_TEST_STANDING of the exchange steps that landed in a standing buffer
 * (no RTR). */
static void check_rdv_frags(void) {
  uint64_t all = gexi_coll_rdv_frags(), pushed = gexi_coll_rdv_pushed();
  uint64_t halved = gexi_coll_halved();
  test_check_job_count("GEX_TEST_RDV", all, "collective fragments moved by rendezvous");
  test_check_job_count("GEX_TEST_RDV_PUSH", pushed, "rendezvous fragments pushed");
  test_check_job_count("GEX_TEST_RDV_READ", all - pushed, "rendezvous fragments read");
  test_check_job_count("GEX_TEST_HALVED", halved, "ReduceToAll collectives by halving");
  test_check_job_count("GEX_TEST_STANDING", gexi_coll_standing(),
                       "exchange steps landed in standing buffers");
}

#endif

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

static void check_same_node_ams(void) {
  const char *want = getenv("GEX_TEST_SAME_NODE_AMS");
  if (!want || !*want) return;
  uint64_t mine = gexi_coll_same_node_ams(), total = 0; /* read before the sum below */
  gex_Event_Wait(gex_Coll_ReduceToAllNB(T.tm, &total, &mine, GEX_DT_U64, 8, 1, GEX_OP_ADD,
                                        NULL, NULL, 0));
  if (strcmp(want, "0") == 0)
    CHECKF(total == 0, "%llu collective AMs between ranks of one node (%llu from this rank)",
           (unsigned long long)total, (unsigned long long)mine);
  else
    CHECKF(total > 0, "no collective AM between ranks of one node was counted");
  if (T.rank == 0)
    printf("same-node collective AMs: %llu (expected %s)\n", (unsigned long long)total,
           strcmp(want, "0") == 0 ? "0" : "> 0");
}

/* Rendezvous (coll/coll_am.c): GEX_TEST_RDV=+ -- some rank must have read
 * a collective fragment by RMA (gexi_coll_rdv_reads, an internal hook);
 * GEX_TEST_RDV=0 -- none may have.  Unset: no check. */
uint64_t gexi_coll_rdv_reads(void);

static void check_rdv_reads(void) {
  const char *want = getenv("GEX_TEST_RDV");
  if (!want || !*want) return;
  uint64_t mine = gexi_coll_rdv_reads(), total = 0; /* read before the sum below */
  gex_Event_Wait(gex_Coll_ReduceToAllNB(T.tm, &total, &mine, GEX_DT_U64, 8, 1, GEX_OP_ADD,
                                        NULL, NULL, 0));
  if (strcmp(want, "0") == 0)
    CHECKF(total == 0, "%llu collective fragments moved by rendezvous", (unsigned long long)total);
  else
    CHECKF(total > 0, "no collective fragment moved by rendezvous");
  if (T.rank == 0)
    printf("rendezvous collective fragments: %llu (expected %s)\n", (unsigned long long)total,
           strcmp(want, "0") == 0 ? "0" : "> 0");
}

#endif

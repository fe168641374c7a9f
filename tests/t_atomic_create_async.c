/* t_atomic_create_async -- gex_AD_Create does not synchronize the team
 * (the specification: "it does not guarantee barrier synchronization"; the
 * reference's optimized builds do not, and UPC++ relies on it: a rank may
 * create a domain while another waits for something the first does after
 * its creation).
 *
 * Every rank but 0 creates its domain, then Puts a flag into rank 0's
 * segment; rank 0 creates its domain only once every flag is there.  A
 * gex_AD_Create that waited for the whole team would never return (the
 * watchdog ends the test).  Then every rank adds its rank + 1 to a counter
 * at rank 0 through the domain, and rank 0 checks the sum.
 */
#include <gasnet_ratomic.h>

#include "test_util.h"

int main(int argc, char **argv) {
  test_init(&argc, &argv, "t_atomic_create_async", 4096, NULL, 0);
  volatile uint64_t *flags = (volatile uint64_t *)T.seg_base; /* [rank] at rank 0 */
  uint64_t *counter = (uint64_t *)(T.seg_base + 2048);
  memset(T.seg_base, 0, 4096);
  test_barrier();
  gex_AD_t ad = GEX_AD_INVALID;
  if (T.rank != 0) {
    gex_AD_Create(&ad, T.tm, GEX_DT_U64, GEX_OP_ADD | GEX_OP_GET, 0);
    uint64_t one = 1;
    CHECK(gex_RMA_PutBlocking(T.tm, 0, T.peer_seg[0] + 8 * T.rank, &one, 8, 0) == 0);
  } else {
    for (gex_Rank_t r = 1; r < T.size; r++) GASNET_BLOCKUNTIL(flags[r] == 1);
    gex_AD_Create(&ad, T.tm, GEX_DT_U64, GEX_OP_ADD | GEX_OP_GET, 0);
  }
  gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, 0, T.peer_seg[0] + 2048, GEX_OP_ADD,
                                 (uint64_t)T.rank + 1, 0, 0));
  test_barrier();
  if (T.rank == 0) {
    uint64_t want = (uint64_t)T.size * (T.size + 1) / 2;
    CHECKF(*counter == want, "counter %llu, want %llu", (unsigned long long)*counter,
           (unsigned long long)want);
  }
  test_barrier();
  gex_AD_Destroy(ad);
  test_finish();
}

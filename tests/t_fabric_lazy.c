/* t_fabric_lazy.c -- libgex loads libfabric only when some peer is reached
 * through the network (src/transport/ofi/ofi_lib.c): a job whose ranks all
 * share one neighbourhood must not have it mapped, one with a peer outside
 * it must.  Then every rank puts a pattern to its right-hand neighbour
 * (through whichever path reaches it) and checks what its left-hand one
 * put.
 */
#include "test_util.h"

/* Whether a libfabric shared object is mapped into this process. */
static int fabric_mapped(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL);
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, "/libfabric.so") != NULL;
  fclose(f);
  return found;
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_FABRIC_LAZY", 4096, NULL, 0);
  gex_RankInfo_t *info;
  gex_Rank_t nbrhd, me;
  gex_System_QueryNbrhdInfo(&info, &nbrhd, &me);
  int want = nbrhd != T.size, got = fabric_mapped();
  CHECKF(got == want, "%d of %d ranks in my neighbourhood, but libfabric is %smapped", (int)nbrhd,
         (int)T.size, got ? "" : "not ");
  unsigned char buf[4096];
  gex_Rank_t right = (T.rank + 1) % T.size, left = (T.rank + T.size - 1) % T.size;
  test_fill(buf, sizeof buf, test_seed(T.rank, right, 2, 7));
  CHECK(gex_RMA_PutBlocking(T.tm, right, T.peer_seg[right], buf, sizeof buf, 0) == 0);
  test_barrier();
  CHECK(test_verify(T.seg_base, sizeof buf, test_seed(left, T.rank, 2, 7)) < 0);
  if (T.rank == 0) printf("libfabric %s (%d of %d ranks in rank 0's neighbourhood)\n",
                          got ? "loaded" : "not loaded", (int)nbrhd, (int)T.size);
  test_finish();
}

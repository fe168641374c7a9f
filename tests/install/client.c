/* tests/install/client.c -- a small GASNet-EX client, built by
 * tests/install/install_test.sh from an installed libgex the ways the
 * reference implementation's users build one (a Makefile including
 * <conduit>-<mode>.mak, pkg-config gasnet-<conduit>-<mode>).  Written in
 * the common subset of C and C++, so the same file checks the C++ flags.
 *
 * Every rank Puts a pattern into its right neighbour's segment and Gets it
 * back, checks both, and prints one "moved N bytes, all correct" line.
 * Arguments (others, such as the test's token, are ignored):
 *   segsize  each rank also prints "client: rank R maxseg M phys P" (the
 *            gasnet_getMaxLocalSegmentSize() its GASNET_MAX_SEGSIZE gives,
 *            and the host's physical memory in bytes)
 *   exit=N   after the checks the last rank calls gasnet_exit(N) while the
 *            others wait in a barrier: the job's status must be N */
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the reference's clients assume of the identity (its testlarge asserts
 * it): memory kinds beyond host memory are advertised only where device
 * segments can be bound to a second endpoint, and the smp conduit, with
 * one endpoint, advertises none (as the reference's smp conduit). */
#if defined(GASNET_HAVE_MK_CLASS_MULTIPLE) && GASNET_MAXEPS < 2
#error "GASNET_HAVE_MK_CLASS_MULTIPLE with GASNET_MAXEPS < 2"
#endif
#if defined(GASNET_CONDUIT_SMP) && (defined(GASNET_HAVE_MK_CLASS_MULTIPLE) || defined(GASNET_HAVE_MK_CLASS_CUDA_UVA))
#error "the smp conduit advertises a device memory kind"
#endif

#define NBYTES 4096

static unsigned char pattern(unsigned rank, unsigned i) { return (unsigned char)(rank * 31u + i * 7u + 1u); }

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  if (gex_Client_Init(&client, &ep, &tm, "INSTALL_CLIENT", &argc, &argv, 0) != GASNET_OK) return 1;
  if (gex_Segment_Attach(&seg, tm, 1u << 20) != GASNET_OK) gasnet_exit(1);
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  int exit_code = -1;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "exit=", 5)) exit_code = atoi(argv[i] + 5);
    if (!strcmp(argv[i], "segsize"))
      printf("client: rank %u maxseg %llu phys %llu\n", (unsigned)me,
             (unsigned long long)gasnet_getMaxLocalSegmentSize(),
             (unsigned long long)sysconf(_SC_PHYS_PAGES) * (unsigned long long)sysconf(_SC_PAGESIZE));
  }
  gex_Rank_t right = (me + 1) % n, left = (me + n - 1) % n;
  void *raddr = NULL;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, right, &raddr, NULL, NULL, 0));

  static unsigned char out[NBYTES], back[NBYTES];
  for (unsigned i = 0; i < NBYTES; i++) out[i] = pattern(me, i);
  gex_RMA_PutBlocking(tm, right, raddr, out, NBYTES, 0);
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

  int bad = 0;
  const unsigned char *mine = (const unsigned char *)gex_Segment_QueryAddr(seg);
  for (unsigned i = 0; i < NBYTES; i++) bad += mine[i] != pattern(left, i);
  gex_RMA_GetBlocking(tm, back, right, raddr, NBYTES, 0);
  bad += memcmp(back, out, NBYTES) != 0;
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (bad) {
    printf("client: rank %u of %u: %d wrong bytes\n", (unsigned)me, (unsigned)n, bad);
    gasnet_exit(1);
  }
  printf("client: rank %u of %u moved %d bytes, all correct (conduit %s)\n", (unsigned)me, (unsigned)n,
         2 * NBYTES, GASNET_CONDUIT_NAME_STR);
  fflush(stdout); /* before the first gasnet_exit ends the other ranks */
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (exit_code >= 0) {
    if (me == n - 1) gasnet_exit(exit_code);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); /* never completes: ended by that exit */
  }
  gasnet_exit(0);
  return 0;
}

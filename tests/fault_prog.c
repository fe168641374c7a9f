/* fault_prog.c -- jobs in which a rank dies or the launcher dies; run by
 * fault.sh.  Every rank prints "RANKPID <rank> <pid>" once initialised, then
 * all ranks pass a barrier, then:
 *
 *   sigkill_self        the last rank raise(SIGKILL)s; the others wait in a barrier
 *   sigkill_in_handler  rank 0 sends an AM to the last rank whose handler
 *                       raise(SIGKILL)s; the others wait in a barrier
 *   exit_noexit         the last rank calls exit(3) without gasnet_exit (run
 *                       with GASNET_CATCH_EXIT=0: a failure, not a job exit)
 *   kill_rank           every rank waits (rank 1 in GASNET_BLOCKUNTIL, the
 *                       others in a barrier) for fault.sh to kill -9 rank 1
 *   kill_flooded        rank 1 never polls; the others flood it with Requests
 *                       until they block in the send (its queue is full);
 *                       fault.sh kill -9s rank 1 once everyone flooded
 *   kill_rma            the others Put to and Get from rank 1 without pause
 *                       (run over the network: every error completion of
 *                       an RMA to the dead rank must name it, and the job
 *                       must report rank 1's death, not a survivor's
 *                       failed Put); fault.sh kill -9s rank 1 once
 *                       everyone is moving data
 *   kill_nbi            as kill_rma, with NBI Puts and Gets in flight
 *   kill_alltoall       every rank Puts to, Gets from and sends AMs to every
 *                       other rank without pause (run over the network:
 *                       when rank 1 dies, the survivors' operations with
 *                       it and, as they end, with each other fail; only
 *                       rank 1 may be named); fault.sh kill -9s rank 1
 *                       once everyone is moving data
 *   kill_gexrun         every rank waits (rank 0 polling, the others in a
 *                       barrier) for fault.sh to kill -9 gexrun itself
 *
 * Waits are bounded (60 s): a job that is not ended by the fault says so
 * ("NOT ENDED") and exits 0 from rank 0, which fault.sh reports.
 */
#include "test_util.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

static const gex_AM_Index_t H_DIE = 140;

static void h_die(gex_Token_t t, gex_AM_Arg_t a) {
  (void)t;
  (void)a;
  printf("DYING rank %u in an AM handler\n", T.rank);
  fflush(stdout);
  raise(SIGKILL);
}

/* Wait in a barrier that cannot complete (one rank never joins), bounded. */
static void h_nop(gex_Token_t t, gex_AM_Arg_t a) {
  (void)t;
  (void)a;
}

static void wait_in_barrier(void) {
  gex_Event_t e = gex_Coll_BarrierNB(T.tm, 0);
  double t0 = test_now();
  while (gex_Event_Test(e) != 0) {
    gasnet_AMPoll();
    if (test_now() - t0 > 60.0) break;
  }
  printf("NOT ENDED: rank %u is still running 60 s after the fault\n", T.rank);
  fflush(stdout);
  gasnet_exit(0);
}

static void wait_polling(void) {
  double t0 = test_now();
  GASNET_BLOCKUNTIL(test_now() - t0 > 60.0);
  printf("NOT ENDED: rank %u is still running 60 s after the fault\n", T.rank);
  fflush(stdout);
  gasnet_exit(0);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  gex_AM_Entry_t tab[] = {
      {H_DIE, (gex_AM_Fn_t)h_die, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "die"},
      {H_DIE + 1, (gex_AM_Fn_t)h_nop, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "nop"}};
  test_init(&argc, &argv, "FAULT", 4096, tab, 2);
  const gex_Rank_t me = T.rank, n = T.size, last = n - 1;
  printf("RANKPID %u %ld\n", me, (long)getpid());
  fflush(stdout);
  test_barrier();

  if (!strcmp(mode, "sigkill_self")) {
    if (me == last) {
      printf("DYING rank %u\n", me);
      fflush(stdout);
      raise(SIGKILL);
    }
    wait_in_barrier();
  }
  if (!strcmp(mode, "sigkill_in_handler")) {
    if (me == 0) CHECK(gex_AM_RequestShort1(T.tm, last, H_DIE, 0, 0) == 0);
    if (me == last) wait_polling();
    wait_in_barrier();
  }
  if (!strcmp(mode, "exit_noexit")) {
    if (me == last) {
      printf("DYING rank %u by exit(3)\n", me);
      fflush(stdout);
      exit(3);
    }
    wait_in_barrier();
  }
  if (!strcmp(mode, "kill_rank")) {
    if (me == 1) wait_polling();
    wait_in_barrier();
  }
  if (!strcmp(mode, "kill_flooded")) {
    printf("FLOODING rank %u\n", me);
    fflush(stdout);
    if (me == 1) { /* no library call: its queues fill up */
      double t0 = test_now();
      while (test_now() - t0 < 60.0) sched_yield();
      printf("NOT ENDED: rank %u is still running 60 s after the fault\n", me);
      fflush(stdout);
      gasnet_exit(0);
    }
    for (long i = 0; i < 100000000L; i++) CHECK(gex_AM_RequestShort1(T.tm, 1, H_DIE + 1, 0, 0) == 0);
    wait_polling();
  }
  if (!strcmp(mode, "kill_rma")) {
    printf("MOVING rank %u\n", me);
    fflush(stdout);
    if (me == 1) wait_polling();
    static unsigned char buf[2048]; /* half of rank 1's segment each way */
    double t0 = test_now();
    for (unsigned long i = 0; test_now() - t0 < 60.0; i++) {
      memset(buf, (int)(i & 0xff), sizeof buf);
      gex_RMA_PutBlocking(T.tm, 1, T.peer_seg[1], buf, sizeof buf, 0);
      gex_RMA_GetBlocking(T.tm, buf, 1, T.peer_seg[1] + sizeof buf, sizeof buf, 0);
    }
    printf("NOT ENDED: rank %u is still running 60 s after the fault\n", me);
    fflush(stdout);
    gasnet_exit(0);
  }
  if (!strcmp(mode, "kill_nbi")) { /* NBI Puts and Gets in flight when rank 1 dies */
    printf("MOVING rank %u\n", me);
    fflush(stdout);
    if (me == 1) wait_polling();
    static unsigned char buf[32][64]; /* Puts to the first half of its segment */
    double t0 = test_now();
    for (unsigned long i = 0; test_now() - t0 < 60.0; i++) {
      for (int k = 0; k < 32; k++)
        gex_RMA_PutNBI(T.tm, 1, T.peer_seg[1] + 64 * (size_t)k, buf[k], 64, GEX_EVENT_DEFER, 0);
      gex_RMA_GetNBI(T.tm, buf[i % 32], 1, T.peer_seg[1] + 3072, 64, 0);
      if (i % 16 == 15) gex_NBI_Wait(GEX_EC_ALL, 0);
    }
    printf("NOT ENDED: rank %u is still running 60 s after the fault\n", me);
    fflush(stdout);
    gasnet_exit(0);
  }
  if (!strcmp(mode, "kill_alltoall")) {
    printf("MOVING rank %u\n", me);
    fflush(stdout);
    static unsigned char buf[64], got[64];
    double t0 = test_now();
    for (unsigned long i = 0; test_now() - t0 < 60.0; i++) {
      memset(buf, (int)(i & 0xff), sizeof buf);
      for (gex_Rank_t k = 1; k < n; k++) { /* slot 'me' of every other rank's segment */
        const gex_Rank_t p = (me + k) % n;
        gex_RMA_PutNBI(T.tm, p, T.peer_seg[p] + 64 * (size_t)me, buf, sizeof buf, GEX_EVENT_NOW, 0);
        CHECK(gex_AM_RequestShort1(T.tm, p, H_DIE + 1, 0, 0) == 0);
      }
      const gex_Rank_t p = (me + 1 + (gex_Rank_t)(i % (n - 1))) % n;
      gex_RMA_GetBlocking(T.tm, got, p, T.peer_seg[p] + 64 * (size_t)p, sizeof got, 0);
      gex_NBI_Wait(GEX_EC_ALL, 0);
    }
    printf("NOT ENDED: rank %u is still running 60 s after the fault\n", me);
    fflush(stdout);
    gasnet_exit(0);
  }
  if (!strcmp(mode, "kill_gexrun")) {
    if (me == 0) wait_polling(); /* so that the barrier of the others never ends */
    wait_in_barrier();
  }
  fprintf(stderr, "fault_prog: unknown mode '%s'\n", mode);
  gasnet_exit(2);
}

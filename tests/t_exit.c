/* t_exit.c -- gasnet_exit(code) from one rank ends the whole job with that
 * status, while the other ranks are busy in GASNET_BLOCKUNTIL on a condition
 * that never becomes true.  Run by expect.sh, which checks the status.
 *
 *   t_exit blockuntil   the last rank calls gasnet_exit(7) once every other
 *                       rank has announced it is about to spin      -> 7
 *   t_exit handler      rank 0 sends an AM to the last rank, whose handler
 *                       calls gasnet_exit(5); everybody spins        -> 5
 *   t_exit zero         like blockuntil, with gasnet_exit(0)          -> 0
 *   t_exit all          every rank calls gasnet_exit(9) at once        -> 9
 *   t_exit thread       a second thread of the last rank calls
 *                       gasnet_exit(6) while every main thread waits   -> 6
 */
#include "test_util.h"

#include <pthread.h>

static const gex_AM_Index_t H_EXIT = GEX_AM_INDEX_BASE + 35;

static void h_exit(gex_Token_t t, gex_AM_Arg_t code) {
  (void)t;
  printf("EXITING rank %u code %d (from an AM handler)\n", T.rank, code);
  fflush(stdout);
  gasnet_exit(code);
}

static void *exiter(void *arg) {
  (void)arg;
  printf("EXITING rank %u code 6 (from a second thread)\n", T.rank);
  fflush(stdout);
  gasnet_exit(6);
}

int main(int argc, char **argv) {
  const char *mode = NULL;
  static const char *modes[] = {"blockuntil", "handler", "zero", "all", "thread"};
  for (int i = 1; i < argc; i++)
    for (int k = 0; k < 5; k++)
      if (!strcmp(argv[i], modes[k])) mode = modes[k];
  if (!mode) {
    fprintf(stderr, "usage: t_exit blockuntil|handler|zero|all|thread\n");
    return 2;
  }
  gex_AM_Entry_t tab[] = {
      {H_EXIT, (gex_AM_Fn_t)h_exit, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "exit"}};
  test_init(&argc, &argv, "T_EXIT", 4096, tab, 1);
  const gex_Rank_t me = T.rank, n = T.size, x = n - 1;
  volatile uint64_t *never = (volatile uint64_t *)(T.seg_base + 8 * 64);
  volatile uint64_t *spinning = (volatile uint64_t *)T.seg_base; /* [rank] at x */
  memset(T.seg_base, 0, 4096);
  test_barrier();

  if (!strcmp(mode, "handler")) {
    if (me == 0) CHECK(gex_AM_RequestShort1(T.tm, x, H_EXIT, 0, 5) == 0);
    GASNET_BLOCKUNTIL(*never == 1);
    CHECK(0 && "the job should have ended in the handler");
  }
  if (!strcmp(mode, "all")) {
    printf("EXITING rank %u code 9\n", me);
    fflush(stdout);
    gasnet_exit(9);
  }
  if (!strcmp(mode, "thread")) {
    if (me == x) {
      pthread_t th;
      CHECK(pthread_create(&th, NULL, exiter, NULL) == 0);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(T.tm, 0)); /* completes only if everyone joins */
    GASNET_BLOCKUNTIL(*never == 1);
    CHECK(0 && "the job should have ended by gasnet_exit of the second thread");
  }
  int code = !strcmp(mode, "zero") ? 0 : 7;
  if (me != x) {
    CHECK(gex_RMA_PutBlockingVal(T.tm, x, T.peer_seg[x] + 8 * me, 1, 8, 0) == 0);
    GASNET_BLOCKUNTIL(*never == 1);
    CHECK(0 && "the job should have ended by gasnet_exit of the last rank");
  }
  for (gex_Rank_t r = 0; r < x; r++) GASNET_BLOCKUNTIL(__atomic_load_n(&spinning[r], __ATOMIC_ACQUIRE) == 1);
  printf("EXITING rank %u code %d\n", me, code);
  fflush(stdout);
  gasnet_exit(code);
}

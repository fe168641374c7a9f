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
 *
 * Leaving without gasnet_exit ends the job like gasnet_exit, as in the
 * reference implementation (GASNET_CATCH_EXIT, on by default):
 *   t_exit return       the last rank returns 8 from main while the
 *                       others spin                                   -> 8
 *   t_exit exit_all     every rank calls exit(2) at once               -> 2
 *   t_exit sigint       every rank has a SIGQUIT handler that calls
 *                       gasnet_exit(4); the last rank gets SIGINT while
 *                       the others spin                              -> 4
 *   t_exit sigint_dfl   no SIGQUIT handler: SIGINT kills the last rank,
 *                       a failure                                     -> 1
 *   t_exit leave        (run with GASNET_CATCH_EXIT=0) after a barrier
 *                       every rank calls exit(0); its atexit handler
 *                       runs and prints "ATEXIT rank R"                -> 0
 *
 * After the first gasnet_exit the others have the exit timeout
 * (GASNET_EXITTIMEOUT) to reach theirs, and their output on the way is kept:
 *   t_exit lastline     after a barrier every rank prints "LASTLINE rank R"
 *                       and calls gasnet_exit(0) at once; a rank a moment
 *                       behind the first one to exit still prints      -> 0
 *   t_exit firstbarrier the same with the job's first barrier, right after
 *                       gex_Client_Init: over the network its messages go
 *                       to peers not connected yet, and the first rank to
 *                       exit may still owe one                         -> 0
 *   t_exit late         after a barrier every rank but 0 calls
 *                       gasnet_exit(0); rank 0 first computes for a
 *                       second (no library call), polls once
 *                       (gasnet_AMPoll), prints "LATE rank 0" and exits -> 0
 *   t_exit straggler    the last rank calls gasnet_exit(3); rank 0 computes
 *                       for 60 s and never reaches gasnet_exit: the exit
 *                       timeout ends it (run with GASNET_EXITTIMEOUT=1) -> 3
 *   t_exit nobye        like zero, but the last rank first shuts down the
 *                       sending side of each of its TCP connections: its
 *                       peers see it leave without a BYE (sock transport),
 *                       which is no failure once the job is exiting    -> 0
 *
 * gasnet_exit before gex_Client_Init keeps its code too:
 *   t_exit before_init      every rank calls gasnet_exit(9) before
 *                           gex_Client_Init                           -> 9
 *   t_exit before_init_one  the last rank (GEX_RANK, GEX_SIZE) calls
 *                           gasnet_exit(9) before gex_Client_Init, the
 *                           others wait for it inside gex_Client_Init  -> 9
 */
#include "test_util.h"

#include <dirent.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

static const gex_AM_Index_t H_EXIT = GEX_AM_INDEX_BASE + 35;

static void h_exit(gex_Token_t t, gex_AM_Arg_t code) {
  (void)t;
  printf("EXITING rank %u code %d (from an AM handler)\n", T.rank, code);
  fflush(stdout);
  gasnet_exit(code);
}

static void on_sigquit(int sig) {
  (void)sig;
  static const char msg[] = "EXITING from the SIGQUIT handler with code 4\n";
  ssize_t w = write(STDOUT_FILENO, msg, sizeof msg - 1);
  (void)w;
  gasnet_exit(4);
}

static void at_exit_print(void) {
  printf("ATEXIT rank %u\n", T.rank);
  fflush(stdout);
}

/* A FIN on every connected TCP stream of this process, without anything
 * of the transport's own (what a peer sees when a rank leaves without its
 * BYE); returns how many. */
static int cut_tcp_streams(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));) {
    int fd = atoi(e->d_name), dom = 0, type = 0;
    socklen_t l = sizeof dom;
    struct sockaddr_storage a;
    socklen_t al = sizeof a;
    if (fd <= 2 || fd == dirfd(d)) continue;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) != 0 || dom != AF_INET) continue;
    l = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) != 0 || type != SOCK_STREAM) continue;
    if (getpeername(fd, (struct sockaddr *)&a, &al) != 0) continue; /* the listener */
    if (shutdown(fd, SHUT_WR) == 0) n++;
  }
  closedir(d);
  return n;
}

/* Busy for 'secs' seconds without a library call. */
static void compute(double secs) {
  const double t0 = test_now();
  while (test_now() - t0 < secs) sched_yield();
}

static void *exiter(void *arg) {
  (void)arg;
  printf("EXITING rank %u code 6 (from a second thread)\n", T.rank);
  fflush(stdout);
  gasnet_exit(6);
}

int main(int argc, char **argv) {
  const char *mode = NULL;
  static const char *modes[] = {"blockuntil", "handler", "zero",      "all",
                                "thread",     "return",  "exit_all", "sigint",
                                "sigint_dfl", "leave",   "before_init", "before_init_one",
                                "big",        "big_one",  "lastline", "late",
                                "straggler",  "nobye",    "firstbarrier"};
  const int nmodes = (int)(sizeof modes / sizeof modes[0]);
  for (int i = 1; i < argc; i++)
    for (int k = 0; k < nmodes; k++)
      if (!strcmp(argv[i], modes[k])) mode = modes[k];
  if (!mode) {
    fprintf(stderr, "usage: t_exit blockuntil|handler|zero|all|thread|return|exit_all|sigint|"
                    "sigint_dfl|leave|before_init|before_init_one|big|big_one|lastline|late|\n"
                    "straggler|nobye|firstbarrier\n");
    return 2;
  }
  if (!strncmp(mode, "before_init", 11)) {
    /* Before gex_Client_Init only the launcher's variables tell the rank. */
    const char *r = getenv("GEX_RANK"), *s = getenv("GEX_SIZE");
    const long rank = r ? atol(r) : 0, size = s ? atol(s) : 1;
    if (!strcmp(mode, "before_init") || rank == size - 1) {
      printf("EXITING rank %ld code 9 (before gex_Client_Init)\n", rank);
      fflush(stdout);
      gasnet_exit(9);
    }
  }
  if (!strcmp(mode, "firstbarrier")) { /* no segment, no barrier of test_init's */
    test_init_client(&argc, &argv, "T_EXIT", 0);
    test_barrier();
    printf("LASTLINE rank %u\n", T.rank);
    fflush(stdout);
    gasnet_exit(0);
  }
  gex_AM_Entry_t tab[] = {
      {H_EXIT, (gex_AM_Fn_t)h_exit, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "exit"}};
  test_init(&argc, &argv, "T_EXIT", 4096, tab, 1);
  const gex_Rank_t me = T.rank, n = T.size, x = n - 1;
  volatile uint64_t *never = (volatile uint64_t *)(T.seg_base + 8 * 64);
  volatile uint64_t *spinning = (volatile uint64_t *)T.seg_base; /* [rank] at x */
  memset(T.seg_base, 0, 4096);
  test_barrier();

  CHECK(strcmp(mode, "before_init_one") != 0 && "the job should have ended in gex_Client_Init");
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
  /* A code outside 0..255: the job's status is the code modulo 256, as for
   * the reference's processes (1000 -> 232); every rank, or the last alone. */
  if (!strcmp(mode, "big") || (!strcmp(mode, "big_one") && me == x)) {
    printf("EXITING rank %u code 1000\n", me);
    fflush(stdout);
    gasnet_exit(1000);
  }
  if (!strcmp(mode, "big_one")) GASNET_BLOCKUNTIL(*never == 1);
  if (!strcmp(mode, "exit_all")) {
    printf("EXITING rank %u by exit(2)\n", me);
    fflush(stdout);
    exit(2);
  }
  if (!strcmp(mode, "leave")) {
    atexit(at_exit_print);
    test_barrier();
    printf("EXITING rank %u by exit(0)\n", me);
    fflush(stdout);
    exit(0);
  }
  if (!strcmp(mode, "lastline")) {
    test_barrier();
    printf("LASTLINE rank %u\n", me);
    fflush(stdout);
    gasnet_exit(0);
  }
  if (!strcmp(mode, "late") || !strcmp(mode, "straggler")) {
    const int late = !strcmp(mode, "late");
    if (me == 0 && n > 1) {
      compute(late ? 1.0 : 60.0);
      CHECK(late && "the exit timeout should have ended rank 0");
      gasnet_AMPoll(); /* a library call that polls: not the end yet */
      printf("LATE rank 0\n");
      fflush(stdout);
      gasnet_exit(0);
    }
    if (late || me == x) {
      printf("EXITING rank %u code %d\n", me, late ? 0 : 3);
      fflush(stdout);
      gasnet_exit(late ? 0 : 3);
    }
    GASNET_BLOCKUNTIL(*never == 1);
  }
  if (!strcmp(mode, "sigint")) signal(SIGQUIT, on_sigquit);
  if (!strcmp(mode, "thread")) {
    if (me == x) {
      pthread_t th;
      CHECK(pthread_create(&th, NULL, exiter, NULL) == 0);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(T.tm, 0)); /* completes only if everyone joins */
    GASNET_BLOCKUNTIL(*never == 1);
    CHECK(0 && "the job should have ended by gasnet_exit of the second thread");
  }
  int code = !strcmp(mode, "zero") || !strcmp(mode, "nobye") ? 0 : 7;
  if (me != x) {
    CHECK(gex_RMA_PutBlockingVal(T.tm, x, T.peer_seg[x] + 8 * me, 1, 8, 0) == 0);
    GASNET_BLOCKUNTIL(*never == 1);
    CHECK(0 && "the job should have ended by gasnet_exit of the last rank");
  }
  for (gex_Rank_t r = 0; r < x; r++) GASNET_BLOCKUNTIL(__atomic_load_n(&spinning[r], __ATOMIC_ACQUIRE) == 1);
  if (!strcmp(mode, "return")) {
    printf("EXITING rank %u by returning 8 from main\n", me);
    fflush(stdout);
    return 8;
  }
  if (!strcmp(mode, "sigint") || !strcmp(mode, "sigint_dfl")) {
    printf("EXITING rank %u by SIGINT\n", me);
    fflush(stdout);
    kill(getpid(), SIGINT);
    for (;;) pause(); /* the signal ends this process */
  }
  if (!strcmp(mode, "nobye")) printf("CUT %d TCP stream(s) of rank %u\n", cut_tcp_streams(), me);
  printf("EXITING rank %u code %d\n", me, code);
  fflush(stdout);
  gasnet_exit(code);
}

/* test_cpu.h -- what the two-rank CPU placement tests share (t_shared_cpu,
 * t_machine_cpu): an AM round trip that also tells each side the CPU the
 * other ran on, and gathering both ranks on one CPU.  One translation unit
 * per program includes it (the handler table is defined here). */
#ifndef TEST_CPU_H
#define TEST_CPU_H

#include <gasnet_coll.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "test_util.h"

#define H_PING (GEX_AM_INDEX_BASE + 0)
#define H_PONG (GEX_AM_INDEX_BASE + 1)

/* The latest pong's value, and the CPU the peer ran on when it sent its
 * latest ping or pong. */
static atomic_uint pong, peer_cpu;

static void ping_handler(gex_Token_t tok, gex_AM_Arg_t v, gex_AM_Arg_t cpu) {
  atomic_store(&peer_cpu, (uint32_t)cpu);
  gex_AM_ReplyShort2(tok, H_PONG, 0, v + 1, (gex_AM_Arg_t)sched_getcpu());
}
static void pong_handler(gex_Token_t tok, gex_AM_Arg_t v, gex_AM_Arg_t cpu) {
  (void)tok;
  atomic_store(&peer_cpu, (uint32_t)cpu);
  atomic_store(&pong, (uint32_t)v);
}

static gex_AM_Entry_t handlers[] = {
    {H_PING, (gex_AM_Fn_t)ping_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 2, NULL, "ping"},
    {H_PONG, (gex_AM_Fn_t)pong_handler, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 2, NULL, "pong"},
};

/* One round trip from rank r to its partner r ^ 1, value v: the pong must
 * carry v + 1. */
static inline void round_trip(uint32_t v) {
  gex_AM_RequestShort2(T.tm, T.rank ^ 1, H_PING, 0, (gex_AM_Arg_t)v,
                       (gex_AM_Arg_t)sched_getcpu());
  GASNET_BLOCKUNTIL(atomic_load(&pong) == v + 1);
  CHECKF(atomic_load(&pong) == v + 1, "round trip %u: got %u", v, atomic_load(&pong));
}

/* Starts the test's job of exactly 2 ranks with the handlers above; returns
 * the size of this rank's neighbourhood, and in *cpus the machine's online
 * processors. */
static inline gex_Rank_t test_cpu_init(int *argc, char ***argv, const char *name, long *cpus) {
  test_init(argc, argv, name, 4096, handlers, 2);
  CHECKF(T.size == 2, "needs exactly 2 ranks");
  *cpus = sysconf(_SC_NPROCESSORS_ONLN);
  gex_RankInfo_t *nb;
  gex_Rank_t nbrhd = 0;
  gex_System_QueryNbrhdInfo(&nb, &nbrhd, NULL);
  return nbrhd;
}

/* Collective: saves the caller's affinity mask in *mask and pins it to the
 * first CPU of rank 0's mask (the ranks' masks may differ); returns that
 * CPU. */
static inline int test_pin_to_first_cpu(cpu_set_t *mask) {
  CHECK(sched_getaffinity(0, sizeof *mask, mask) == 0);
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
    if (CPU_ISSET(c, mask)) first = c;
  CHECK(first >= 0);
  test_wait(gex_Coll_BroadcastNB(T.tm, 0, &first, &first, sizeof first, 0));
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
  return first;
}

#endif

/* t_compute_outside.c -- a rank may compute outside the library for longer
 * than the network's patience (GEX_SOCK_CONNECT_TIMEOUT) while its peers
 * send to it and wait for it: nobody is reported dead, and everything
 * they sent arrives once, in order, when it comes back.
 *
 * Rank 0 leaves the library right after a barrier and computes (a busy
 * loop, no call of the library) for GEX_TEST_COMPUTE_S seconds (default
 * 5).  Meanwhile every other rank sends it N AM Mediums of 256 bytes
 * (more than a UDP lane's window and more than its AM credit, so a sender
 * waits inside the library for the whole computation), each carrying its
 * index and a pattern of it, then an 8-byte blocking Put into its own slot
 * of rank 0's segment.  Back in the library, rank 0 waits for every AM and
 * checks their order, payloads and count, and the Puts' words.  Run it with
 * GEX_SOCK_CONNECT_TIMEOUT below GEX_TEST_COMPUTE_S (the job ends with
 * "unreachable" where the transport needs the computing rank's own polls
 * to acknowledge what it received). */
#include <time.h>

#include "test_util.h"

enum { H_MED = GEX_AM_INDEX_BASE };
#define NMSG 600
#define MSGLEN 256

static uint32_t *next;      /* next index expected from each rank */
static atomic_uint bad;     /* out of order or wrong payload */
static atomic_uint got;     /* AMs handled */

static void med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t idx) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  gex_Rank_t from = info.gex_srcrank;
  uint8_t want[MSGLEN];
  test_fill(want, sizeof want, test_seed(from, (uint64_t)idx, 7, 0));
  if (n != MSGLEN || (uint32_t)idx != next[from] || memcmp(buf, want, MSGLEN) != 0) atomic_fetch_add(&bad, 1);
  next[from] = (uint32_t)idx + 1;
  atomic_fetch_add(&got, 1);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  gex_AM_Entry_t h[] = {{H_MED, (gex_AM_Fn_t)med, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, "med"}};
  test_init(&argc, &argv, "t_compute_outside", 1 << 16, h, 1);
  if (T.size < 2) {
    test_log0("SKIP: t_compute_outside: needs 2 or more ranks");
    gasnet_exit(77);
  }
  const char *e = getenv("GEX_TEST_COMPUTE_S");
  const double secs = e && atof(e) > 0 ? atof(e) : 5.0;
  next = calloc(T.size, sizeof *next);
  CHECK(next);
  uint64_t *slots = (uint64_t *)T.seg_base;
  test_barrier();
  if (T.rank == 0) {
    volatile uint64_t spin = 0;
    const double until = now_s() + secs;
    while (now_s() < until) spin++;
    GASNET_BLOCKUNTIL(atomic_load(&got) == (unsigned)(T.size - 1) * NMSG);
  } else {
    uint8_t buf[MSGLEN];
    for (uint32_t i = 0; i < NMSG; i++) {
      test_fill(buf, sizeof buf, test_seed(T.rank, i, 7, 0));
      gex_AM_RequestMedium1(T.tm, 0, H_MED, buf, sizeof buf, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)i);
    }
    uint64_t w = 0xc0de000000000000ull | T.rank;
    gex_RMA_PutBlocking(T.tm, 0, (uint64_t *)test_peer_addr(0, 0) + T.rank, &w, sizeof w, 0);
  }
  test_barrier();
  if (T.rank == 0) {
    CHECKF(atomic_load(&bad) == 0, "%u AMs out of order or with a wrong payload", atomic_load(&bad));
    for (gex_Rank_t r = 1; r < T.size; r++) {
      CHECKF(next[r] == NMSG, "%u AMs from rank %u, expected %u", next[r], (unsigned)r, NMSG);
      CHECKF(slots[r] == (0xc0de000000000000ull | r), "slot %u holds 0x%llx", (unsigned)r,
             (unsigned long long)slots[r]);
    }
  }
  test_finish();
}

/* t_alltoall.c -- every rank talks to every other rank at once: the
 * connection setup of a network transport in a crowd.
 *
 * Each rank Puts one 8-byte word to every other rank (a word that names
 * the source and the target, into a slot of the source's own), blocking and
 * NBI alternately, and sends every other rank an AM Short carrying the
 * same word; the order of the targets starts after the rank itself, so
 * every rank opens its connections in a different order and many pairs
 * connect to each other at the same moment.  Then a barrier, and every
 * rank checks every slot and that it ran exactly one AM from each peer,
 * with the right word.  Run with the network forced
 * (GEX_SUPERNODE_MAXSIZE=1) at tens to hundreds of ranks.
 *
 * GEX_TEST_ROUNDS (default 1): the exchange is repeated, with new words,
 * over the connections the first round made.
 *
 * GEX_TEST_STORM_DIR=DIR (tests/sock_storm.sh): before the exchange each
 * rank writes its sock listener's address to DIR/rank<R>.addr and blocks
 * reading the FIFO DIR/go.<R> until the driver writes to it (a stranger's
 * connection flood has begun by then), so that most of its connections
 * are made during the flood.  Includes the transport's internal header
 * for the address, which the API does not give.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include "test_util.h"
#include "transport/sock/sock.h"

enum { H_WORD = GEX_AM_INDEX_BASE };

static atomic_uint *seen;   /* AMs received from each rank (this round) */
static atomic_uint bad_am;  /* AMs whose word was wrong */
static unsigned round_no;

static uint64_t word(gex_Rank_t from, gex_Rank_t to, unsigned r) {
  return ((uint64_t)from << 40) ^ ((uint64_t)to << 16) ^ (0x5ca1eull + r) ^ 0x9e3779b97f4a7c15ull;
}

static void h_word(gex_Token_t t, gex_AM_Arg_t hi, gex_AM_Arg_t lo) {
  gex_Token_Info_t ti;
  gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
  uint64_t w = ((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo;
  if (w != word(ti.gex_srcrank, T.rank, round_no)) atomic_fetch_add(&bad_am, 1);
  atomic_fetch_add(&seen[ti.gex_srcrank], 1);
}

static gex_AM_Entry_t handlers[] = {
    {H_WORD, (gex_AM_Fn_t)h_word, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 2, NULL, "word"},
};

/* Whether an AM of this round came from every other rank. */
static int all_seen(void) {
  for (gex_Rank_t i = 0; i < T.size; i++)
    if (i != T.rank && !atomic_load(&seen[i])) return 0;
  return 1;
}

/* GEX_TEST_STORM_DIR: publish the address, then wait for the driver. */
static void storm_wait(const char *dir) {
  CHECKF(gexi_ctx.sock, "GEX_TEST_STORM_DIR needs the sock transport");
  char path[4096], tmp[4096];
  snprintf(tmp, sizeof tmp, "%s/rank%u.tmp", dir, (unsigned)T.rank);
  snprintf(path, sizeof path, "%s/rank%u.addr", dir, (unsigned)T.rank);
  FILE *f = fopen(tmp, "w");
  CHECKF(f, "cannot write %s", tmp);
  const struct sockaddr_in *a = &gexi_ctx.sock->me;
  fprintf(f, "%s %u\n", inet_ntoa(a->sin_addr), (unsigned)ntohs(a->sin_port));
  CHECK(fclose(f) == 0 && rename(tmp, path) == 0);
  snprintf(path, sizeof path, "%s/go.%u", dir, (unsigned)T.rank);
  int fd = open(path, O_RDONLY); /* blocks until the driver opens it to write */
  CHECKF(fd >= 0, "cannot open %s", path);
  char c;
  CHECKF(read(fd, &c, 1) == 1, "%s: no go from the driver", path);
  close(fd);
}

int main(int argc, char **argv) {
  /* A slot per source rank (the job size is not known before init: room
   * for 64 Ki ranks). */
  test_init(&argc, &argv, "T_ALLTOALL", (size_t)8 << 16, handlers, 1);
  CHECKF(T.size <= (1u << 16), "at most 65536 ranks");
  const char *e = getenv("GEX_TEST_ROUNDS");
  unsigned rounds = e ? (unsigned)atoi(e) : 1;
  seen = calloc(T.size, sizeof *seen);
  CHECK(seen);
  uint64_t *slots = (uint64_t *)T.seg_base;
  const char *storm = getenv("GEX_TEST_STORM_DIR");
  if (storm) storm_wait(storm);
  for (unsigned r = 0; r < rounds; r++) {
    round_no = r;
    for (gex_Rank_t i = 0; i < T.size; i++) atomic_store(&seen[i], 0);
    test_barrier();
    for (gex_Rank_t k = 1; k < T.size; k++) {
      gex_Rank_t to = (T.rank + k) % T.size;
      uint64_t w = word(T.rank, to, r);
      void *dst = T.peer_seg[to] + 8 * (size_t)T.rank;
      if (k & 1)
        gex_RMA_PutBlocking(T.tm, to, dst, &w, sizeof w, 0);
      else
        gex_RMA_PutNBI(T.tm, to, dst, &w, sizeof w, GEX_EVENT_NOW, 0);
      gex_AM_RequestShort2(T.tm, to, H_WORD, 0, (gex_AM_Arg_t)(w >> 32), (gex_AM_Arg_t)w);
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    GASNET_BLOCKUNTIL(all_seen());
    test_barrier();
    for (gex_Rank_t from = 0; from < T.size; from++) {
      if (from == T.rank) continue;
      CHECKF(slots[from] == word(from, T.rank, r), "round %u: the word from rank %u is %016" PRIx64
             ", not %016" PRIx64, r, (unsigned)from, slots[from], word(from, T.rank, r));
      CHECKF(atomic_load(&seen[from]) == 1, "round %u: %u AMs from rank %u", r,
             atomic_load(&seen[from]), (unsigned)from);
    }
    CHECKF(atomic_load(&bad_am) == 0, "%u AMs carried a wrong word", atomic_load(&bad_am));
  }
  test_log0("all-to-all of %u ranks, %u round(s): every word and every AM right", (unsigned)T.size,
            rounds);
  test_finish();
}

/* t_sock_sndbuf.c -- the send buffer of the sock transport's connections
 * (GEX_SOCK_SNDBUF, transport/sock/sock_recv.c; docs/network.md).
 *
 * Every rank streams large Puts (written from the caller's buffer), a flood
 * of 64 KiB NBI Puts (copied) and large NBI Gets to and from the next
 * rank, and checks every byte.  Then it looks at each connected TCP socket
 * of the process (under gexrun, the sock transport's connections are its
 * only ones: the bootstrap uses Unix sockets) and checks its SO_SNDBUF
 * against GEX_TEST_SNDBUF:
 *   N      GEX_SOCK_SNDBUF=N: N bytes asked for
 *   auto   GEX_SOCK_SNDBUF unset or 0: the kernel's autotuning, which on
 *          loopback (64 KiB segments) grows past 384 KiB, the buffer a
 *          locked 192 KiB would have
 * The kernel caps what is asked for at net.core.wmem_max, then doubles it.
 * At least one connection must be found.
 */
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "test_util.h"

#define BIG ((size_t)3 << 20) /* above the 64 KiB that is copied: written in place */
#define PIECE ((size_t)64 << 10)
#define NPIECE 24
#define REGION (BIG + NPIECE * PIECE)

static uintptr_t segsz(gex_Rank_t r, gex_Rank_t n) {
  (void)r;
  (void)n;
  return 2 * REGION;
}

static long read_long(const char *path, int field) {
  FILE *f = fopen(path, "r");
  long v = -1;
  for (int i = 0; f && i <= field; i++)
    if (fscanf(f, "%ld", &v) != 1) v = -1;
  if (f) fclose(f);
  return v;
}

/* The connected IPv4 stream sockets of this process: how many, and each
 * one's SO_SNDBUF checked by 'want' (bytes, or -1: more than 'floor'). */
static int check_sockets(long want, long floor) {
  struct rlimit rl;
  int maxfd = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
  int found = 0;
  for (int fd = 0; fd < maxfd; fd++) {
    int type;
    socklen_t len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) continue;
    struct sockaddr_storage a;
    socklen_t alen = sizeof a;
    if (getpeername(fd, (struct sockaddr *)&a, &alen) != 0 || a.ss_family != AF_INET) continue;
    int sb = 0;
    len = sizeof sb;
    CHECK(getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sb, &len) == 0);
    if (want >= 0)
      CHECKF(sb == want, "fd %d: SO_SNDBUF %d, expected %ld", fd, sb, want);
    else
      CHECKF(sb > floor, "fd %d: SO_SNDBUF %d, expected the kernel's autotuning (> %ld)", fd, sb,
             floor);
    found++;
  }
  return found;
}

int main(int argc, char **argv) {
  test_seg_size_fn = segsz;
  test_init(&argc, &argv, "T_SOCK_SNDBUF", 0, NULL, 0);
  const gex_Rank_t me = T.rank, n = T.size;
  const gex_Rank_t next = (me + 1) % n, prev = (me + n - 1) % n;
  const char *mode = getenv("GEX_TEST_SNDBUF");
  CHECKF(mode != NULL, "GEX_TEST_SNDBUF (auto or a size) is not set");
  CHECKF(n >= 2, "needs two ranks or more");

  /* Slot 0 of each segment receives the previous rank's Puts; slot 1 is
   * what the next rank Gets. */
  char *in = (char *)T.seg_base, *out = (char *)T.seg_base + REGION;
  test_fill(out, REGION, test_seed(me, 2, 0, 0));
  char *src = malloc(REGION), *dst = malloc(REGION);
  CHECK(src && dst);
  test_fill(src, REGION, test_seed(me, 1, 0, 0));
  memset(dst, 0, REGION);
  test_barrier();

  char *to = (char *)test_peer_addr(next, 0);
  gex_RMA_PutBlocking(T.tm, next, to, src, BIG, 0);
  for (size_t i = 0; i < NPIECE; i++)
    gex_RMA_PutNBI(T.tm, next, to + BIG + i * PIECE, src + BIG + i * PIECE, PIECE, GEX_EVENT_NOW,
                   0);
  gex_NBI_Wait(GEX_EC_PUT, 0);
  char *from = (char *)test_peer_addr(prev, REGION);
  for (size_t off = 0; off < REGION; off += BIG)
    gex_RMA_GetNBI(T.tm, dst + off, prev, from + off, off + BIG <= REGION ? BIG : REGION - off, 0);
  gex_NBI_Wait(GEX_EC_GET, 0);
  test_barrier();
  CHECK_PATTERN(in, REGION, test_seed(prev, 1, 0, 0));
  CHECK_PATTERN(dst, REGION, test_seed(prev, 2, 0, 0));

  long wmem_max = read_long("/proc/sys/net/core/wmem_max", 0);
  long tcp_wmem_max = read_long("/proc/sys/net/ipv4/tcp_wmem", 2);
  CHECKF(wmem_max > 0, "cannot read net.core.wmem_max");
  const long locked = 2 * (wmem_max < (192 << 10) ? wmem_max : (192 << 10));
  long want = -1, floor = locked;
  if (strcmp(mode, "auto") != 0) {
    char *end;
    long asked = strtol(mode, &end, 10);
    CHECKF(*end == '\0' && asked >= 8192, "GEX_TEST_SNDBUF='%s': auto or bytes >= 8192", mode);
    want = 2 * (asked < wmem_max ? asked : wmem_max);
  } else if (tcp_wmem_max <= locked) {
    test_log0("note: net.ipv4.tcp_wmem allows at most %ld bytes: autotuning cannot be told from "
              "the default here, only that the buffer is not empty", tcp_wmem_max);
    floor = 0;
  }
  int found = check_sockets(want, floor);
  CHECKF(found >= 1, "no connected TCP socket: the job did not run over the sock transport");
  test_log("%d connection(s), SO_SNDBUF as expected (%s)", found, mode);
  free(src);
  free(dst);
  test_finish();
}

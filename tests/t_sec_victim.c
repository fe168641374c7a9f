/* t_sec_victim.c -- the job that tests/sec_attack.sh attacks.
 *
 * A job whose ranks reach each other through the network (run with
 * GEX_SUPERNODE_MAXSIZE=1 or on two "hosts").  It fills every segment with
 * a known pattern, makes its peers admit each other with a first exchange,
 * then publishes, for the attacker, every rank's provider address (the
 * bytes fi_getname gives; an attacker finds them with ss(8) or in /dev/shm
 * anyway) and segment base, and keeps polling until the attacker says it is
 * done.  Then it checks that nothing happened: the segments still hold the
 * pattern, no handler ran except for the job's own messages, no rank grew
 * by more than 256 MiB (a flood must not be kept whole), and a last
 * exchange of Puts, Gets and AMs of every category moves correct data.
 *
 *   t_sec_victim DIR     DIR: where rank<R>.addr and 'ready' are written,
 *                        and where 'done' is awaited
 *
 * GEX_TEST_ATTACK_COUNTED=1: the address published is that of the
 * transport's counted endpoint (transport/ofi/ofi_counted.c), which must
 * be open; nothing the attacker sends there may reach the job either.
 *
 * Includes the library's internal header for the transport's endpoint
 * (the address is not part of the API).
 */
#include <sched.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <unistd.h>

#include "test_util.h"
#if GEX_TEST_HAVE_OFI
#include "transport/ofi/ofi.h"
#endif
#include "transport/sock/sock.h"

enum { H_SHORT = GEX_AM_INDEX_BASE, H_MEDIUM, H_LONG, H_REP };
#define SEG (1u << 20)
#define LONG_OFF (SEG / 2)

static atomic_long shorts, mediums, longs, replies;
static gex_Rank_t expected_src;

/* What an attack may cost a rank in resident memory: the providers keep
 * some of a flood in buffers of their own (tcp;ofi_rxm about 30 MiB, the
 * same after 1 or 4 GiB). */
#define RSS_GROWTH_MAX_KIB (256L << 10)

/* This process's resident set, in KiB (0 if /proc cannot say). */
static long rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld", &kib) == 1) break;
  if (f) fclose(f);
  return kib;
}

static void h_short(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1) {
  gex_Token_Info_t ti;
  gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
  CHECKF(a0 == 0x5ec0 + (gex_AM_Arg_t)ti.gex_srcrank && a1 == 7,
         "forged Short ran: args %u %u from %u", (unsigned)a0, (unsigned)a1, (unsigned)ti.gex_srcrank);
  shorts++;
  gex_AM_ReplyShort0(t, H_REP, 0);
}
static void h_medium(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0) {
  CHECKF(n == 1000 && a0 == 0x3ed, "forged Medium ran: %zu bytes, arg %u", n, (unsigned)a0);
  CHECK(test_verify(buf, n, 0xabc) < 0);
  mediums++;
  gex_AM_ReplyShort0(t, H_REP, 0);
}
static void h_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0) {
  CHECKF((n == 100 || n == 40000) && a0 == 0x10e, "forged Long ran: %zu bytes, arg %u", n,
         (unsigned)a0);
  CHECK((unsigned char *)buf == T.seg_base + LONG_OFF + (n == 100 ? 0 : 4096));
  CHECK(test_verify(buf, n, 0xdef + n) < 0);
  longs++;
  gex_AM_ReplyShort0(t, H_REP, 0);
}
static void h_rep(gex_Token_t t) {
  (void)t;
  replies++;
}

static gex_AM_Entry_t handlers[] = {
    {H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 2, NULL, "short"},
    {H_MEDIUM, (gex_AM_Fn_t)h_medium, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, "medium"},
    {H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 1, NULL, "long"},
    {H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "reply"},
};

/* One Short, one Medium and Longs of both sizes to every other rank; waits
 * for the replies. */
static void exchange(void) {
  static unsigned char buf[40000];
  long want = replies;
  for (gex_Rank_t r = 0; r < T.size; r++) {
    if (r == T.rank) continue;
    gex_AM_RequestShort2(T.tm, r, H_SHORT, 0, 0x5ec0 + T.rank, 7);
    test_fill(buf, 1000, 0xabc);
    gex_AM_RequestMedium1(T.tm, r, H_MEDIUM, buf, 1000, GEX_EVENT_NOW, 0, 0x3ed);
    for (size_t n = 100; n <= 40000; n = n == 100 ? 40000 : 40001) {
      test_fill(buf, n, 0xdef + n);
      gex_AM_RequestLong1(T.tm, r, H_LONG, buf, n, T.peer_seg[r] + LONG_OFF + (n == 100 ? 0 : 4096),
                          GEX_EVENT_NOW, 0, 0x10e);
    }
    want += 4;
  }
  GASNET_BLOCKUNTIL(replies >= want);
}

int main(int argc, char **argv) {
  test_init(&argc, &argv, "T_SEC_VICTIM", SEG, handlers, sizeof handlers / sizeof handlers[0]);
  CHECKF(argc >= 2, "usage: t_sec_victim DIR");
  const char *dir = argv[1];
  CHECKF(gexi_ctx.ofi || gexi_ctx.sock, "the ranks must reach each other through the network");
  (void)expected_src;
  /* The pattern, outside the area the Longs use. */
  test_fill(T.seg_base, LONG_OFF, 0x5e6 + T.rank);
  test_barrier();
  exchange(); /* every pair admitted */
  test_barrier();
  long base_s = shorts, base_m = mediums, base_l = longs;
  long rss0 = rss_kib();

  /* Publish the address and the segment for the attacker. */
  char path[4096];
  snprintf(path, sizeof path, "%s/rank%u.addr", dir, (unsigned)T.rank);
  FILE *f = fopen(path, "w");
  CHECKF(f, "cannot write %s", path);
  if (gexi_ctx.sock) { /* the listening address, and the pid (whose descriptors are counted) */
    const struct sockaddr_in *a = &gexi_ctx.sock->me;
    fprintf(f, "sock\n%s:%u\n%" PRIxPTR " %" PRIuPTR "\n%ld\n", inet_ntoa(a->sin_addr),
            (unsigned)ntohs(a->sin_port), (uintptr_t)T.seg_base, (uintptr_t)SEG, (long)getpid());
    if (gexi_ctx.sock->ufd >= 0) { /* the UDP lane's port (GEX_SOCK_UDP) */
      struct sockaddr_in u;
      socklen_t ul = sizeof u;
      CHECK(getsockname(gexi_ctx.sock->ufd, (struct sockaddr *)&u, &ul) == 0);
      fprintf(f, "udp %u\n", (unsigned)ntohs(u.sin_port));
    }
  } else {
#if GEX_TEST_HAVE_OFI
  struct gexi_ofi *o = gexi_ctx.ofi;
  unsigned char addr[256];
  size_t alen = sizeof addr;
  const char *counted = getenv("GEX_TEST_ATTACK_COUNTED");
  struct fid_ep *target = o->ep;
  if (counted && strcmp(counted, "1") == 0) {
    CHECKF(o->rma_ep, "GEX_TEST_ATTACK_COUNTED=1, but the counted endpoint is not open");
    target = o->rma_ep;
  }
  CHECK(fi_getname(&target->fid, addr, &alen) == 0);
  fprintf(f, "%s\n", o->prov_name);
  for (size_t i = 0; i < alen; i++) fprintf(f, "%02x", addr[i]);
  fprintf(f, "\n%" PRIxPTR " %" PRIuPTR "\n", (uintptr_t)T.seg_base, (uintptr_t)SEG);
#endif
  }
  fclose(f);
  test_barrier();
  if (T.rank == 0) {
    snprintf(path, sizeof path, "%s/ready", dir);
    f = fopen(path, "w");
    CHECK(f);
    fclose(f);
  }
  /* Serve the network (and the attacker's messages) until it is done. */
  snprintf(path, sizeof path, "%s/done", dir);
  struct stat st;
  for (unsigned long i = 0; stat(path, &st) != 0; i++) {
    gasnet_AMPoll();
    if (i % 64 == 0) sched_yield();
  }
  test_barrier();

  /* Nothing happened, and what the attacker sent cost bounded memory: a
   * message kept for every one sent would show as a rank grown by the
   * flood's size (sec_attack flood: 1 GiB). */
  long grown = rss_kib() - rss0;
  printf("rank %u: grew by %ld MiB during the attack\n", (unsigned)T.rank, grown >> 10);
  CHECKF(grown < RSS_GROWTH_MAX_KIB, "the rank grew by %ld MiB during the attack", grown >> 10);
  CHECKF(test_verify(T.seg_base, LONG_OFF, 0x5e6 + T.rank) < 0, "the segment was changed");
  CHECKF(shorts == base_s && mediums == base_m && longs == base_l,
         "a forged message ran a handler (%ld %ld %ld, expected %ld %ld %ld)", (long)shorts,
         (long)mediums, (long)longs, base_s, base_m, base_l);
  test_barrier(); /* every rank checked before new messages arrive */
  /* And the job still works: AMs, and Puts and Gets of every rank's segment. */
  exchange();
  test_barrier();
  gex_Rank_t peer = (T.rank + 1) % T.size;
  static unsigned char got[LONG_OFF];
  gex_RMA_GetBlocking(T.tm, got, peer, T.peer_seg[peer], LONG_OFF, 0);
  CHECKF(test_verify(got, LONG_OFF, 0x5e6 + peer) < 0, "Get returned wrong data");
  test_fill(got, 4096, 0x77 + T.rank);
  gex_RMA_PutBlocking(T.tm, peer, T.peer_seg[peer] + LONG_OFF, got, 4096, 0);
  test_barrier();
  gex_Rank_t from = (T.rank + T.size - 1) % T.size;
  CHECK(test_verify(T.seg_base + LONG_OFF, 4096, 0x77 + from) < 0);
  test_finish();
  return 0;
}

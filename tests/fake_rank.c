/* fake_rank.c -- a rank that speaks gexrun's wire protocol by hand
 * (bootstrap/wire.h), to test what gexrun does with frames the library
 * never sends and with signals while it starts a job.  Run by
 * tests/gexrun_limits.sh, under gexrun.
 *
 *   fake_rank ag_big LEN     HELLO, then the header of an all-gather
 *                            contribution of LEN bytes, never its payload
 *   fake_rank ag_mismatch    HELLO, then the header of a contribution of
 *                            8 * (rank + 1) bytes, never its payload
 *   fake_rank ag_twice       rank 0: HELLO and two empty contributions (the
 *                            second before the round can complete); the
 *                            others: HELLO only
 *   fake_rank term_parent    rank 0 sends SIGTERM to gexrun; every rank
 *                            then sleeps
 *   fake_rank sleep          sleep (until a signal ends the process)
 *
 * After that each one waits on its socket: a notice from gexrun (DIED,
 * ABORT, EXIT) or EOF ends it with status 1 (EXIT: its code); the SECRET
 * frame is skipped.  A last
 * argument (the test's token) is ignored.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/wire.h"

static int fd = -1, rank = -1;

static void send_frame(uint32_t type, uint32_t len, int32_t arg0) {
  struct gexi_wire_hdr h = {type, len, arg0, rank};
  if (send(fd, &h, sizeof h, MSG_NOSIGNAL) != (ssize_t)sizeof h) {
    perror("fake_rank: send");
    exit(3);
  }
}

/* Read exactly n bytes of the socket (NULL: discard them); EOF ends the rank. */
static void read_all(void *buf, size_t n) {
  char sink[256];
  size_t got = 0;
  while (got < n) {
    size_t want = n - got;
    if (!buf && want > sizeof sink) want = sizeof sink;
    ssize_t r = read(fd, buf ? (char *)buf + got : sink, want);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) exit(1); /* gexrun closed the socket */
    got += (size_t)r;
  }
}

/* Wait for gexrun's verdict on the socket.  The job secret, which gexrun
 * sends in answer to HELLO, is not a verdict: it is read and ignored. */
static void wait_notice(void) {
  struct gexi_wire_hdr h;
  for (;;) {
    read_all(&h, sizeof h);
    if (h.type != GEXI_WIRE_SECRET) break;
    read_all(NULL, h.len);
  }
  printf("fake_rank %d: got frame %u from gexrun\n", rank, h.type);
  fflush(stdout);
  exit(h.type == GEXI_WIRE_EXIT ? h.arg0 : 1);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  const char *f = getenv("GEX_BOOT_FD"), *r = getenv("GEX_RANK");
  if (!f || !r) {
    fprintf(stderr, "fake_rank: not started by gexrun\n");
    return 2;
  }
  fd = atoi(f);
  rank = atoi(r);
  if (!strcmp(mode, "sleep") || !strcmp(mode, "term_parent")) {
    if (!strcmp(mode, "term_parent") && rank == 0) kill(getppid(), SIGTERM);
    for (;;) pause();
  }
  send_frame(GEXI_WIRE_HELLO, 0, rank);
  if (!strcmp(mode, "ag_big") && argc > 2) {
    send_frame(GEXI_WIRE_ALLGATHER, (uint32_t)strtoul(argv[2], NULL, 10), 0);
  } else if (!strcmp(mode, "ag_mismatch")) {
    send_frame(GEXI_WIRE_ALLGATHER, 8u * (uint32_t)(rank + 1), 0);
  } else if (!strcmp(mode, "ag_twice")) {
    if (rank == 0) {
      send_frame(GEXI_WIRE_ALLGATHER, 0, 0);
      send_frame(GEXI_WIRE_ALLGATHER, 0, 0);
    }
  } else {
    fprintf(stderr, "fake_rank: unknown mode '%s'\n", mode);
    return 2;
  }
  wait_notice();
}

/* sockpingpong.c -- sock-pingpong: the kernel's 8-byte round trip over loopback.
 *
 *   sock-pingpong [-spin] udp|tcp [ITERS]
 *
 * The floor under every network path of bench/report: what the kernel's
 * own sockets take for an 8-byte message there and back on 127.0.0.1, with
 * no communication library in between.  The process binds a socket to
 * 127.0.0.1 on a port the kernel picks (and, for tcp, listens) before it
 * forks, so the client never has to wait for the server to be ready.  The
 * child is the server: it echoes every 8-byte message.  The parent is the
 * client: after a warm-up of ITERS/10 round trips (at least 1, at most
 * 1000) it times ITERS round trips, each a send of 8 bytes and a receive of
 * the 8 bytes echoed back, and checks that every echo carries the number it
 * sent.
 *
 *   udp    SOCK_DGRAM sockets; the client's is connect()ed to the server
 *   tcp    one SOCK_STREAM connection, TCP_NODELAY on both ends
 *   -spin  the client and the server poll with MSG_DONTWAIT instead of
 *          sleeping in recv(), as a polling communication library does
 *          (both processes then keep a core busy)
 *
 * Defaults: ITERS 10000.  Output, one line (clock_gettime(CLOCK_MONOTONIC),
 * elapsed / ITERS):
 *   sock-pingpong udp 8 bytes: 9.234 us round trip (10000 iters)
 * ("udp-spin", "tcp-spin" with -spin).  Every socket call is checked; every
 * socket has a 10 s SO_RCVTIMEO and SO_SNDTIMEO (and -spin gives up after
 * 10 s of empty polls), so a lost message or a dead peer ends the run
 * instead of hanging it.  The parent waits for its child and kills it
 * first if the client failed.  Exit status: 0 on success, 1 on a failure
 * (with a message on stderr), 2 on bad arguments.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG 8
#define TIMEOUT_S 10

static const char *prog = "sock-pingpong";
static int tcp, spin;

static void fail(const char *what) {
  fprintf(stderr, "%s: %s: %s\n", prog, what, errno ? strerror(errno) : "failed");
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int set_timeouts(int fd) {
  struct timeval tv = {.tv_sec = TIMEOUT_S, .tv_usec = 0};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) {
    fail("setsockopt(SO_RCVTIMEO/SO_SNDTIMEO)");
    return -1;
  }
  return 0;
}

static int set_nodelay(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
    fail("setsockopt(TCP_NODELAY)");
    return -1;
  }
  return 0;
}

/* Sends all MSG bytes of buf (a datagram, or a piece of the stream). */
static int send_msg(int fd, const void *buf) {
  size_t done = 0;
  while (done < MSG) {
    ssize_t n = send(fd, (const char *)buf + done, MSG - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      fail("send");
      return -1;
    }
    if (!tcp && n != MSG) {
      errno = 0;
      fail("send: short datagram");
      return -1;
    }
    done += (size_t)n;
  }
  return 0;
}

/* Receives MSG bytes into buf (from the stream, or one datagram whose
 * sender goes to *from if from is not NULL); a datagram of another length
 * is an error, and so is the peer closing the stream.  With -spin, polls. */
static int recv_msg(int fd, void *buf, struct sockaddr_in *from) {
  size_t done = 0;
  double deadline = spin ? now() + TIMEOUT_S : 0;
  unsigned polls = 0;
  while (done < MSG) {
    socklen_t len = sizeof *from;
    ssize_t n = recvfrom(fd, (char *)buf + done, tcp ? MSG - done : MSG + 1, spin ? MSG_DONTWAIT : 0,
                         (struct sockaddr *)from, from ? &len : NULL);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      if (spin && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if ((++polls & 0xfff) == 0 && now() > deadline) {
          errno = 0;
          fail("recv: no message within the timeout (polling)");
          return -1;
        }
        continue;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        errno = 0;
        fail("recv: no message within the timeout");
      } else {
        fail("recv");
      }
      return -1;
    }
    if (n == 0 && tcp) {
      errno = 0;
      fail("recv: the peer closed the connection");
      return -1;
    }
    if (!tcp && n != MSG) {
      errno = 0;
      fail("recv: datagram of the wrong length");
      return -1;
    }
    done += (size_t)n;
  }
  return 0;
}

/* The child: echoes `total` messages (udp: to whoever sent each; tcp: on
 * the accepted connection), then exits. */
static int serve(int lfd, long total) {
  int fd = lfd;
  char buf[MSG + 1];
  if (tcp) {
    fd = accept(lfd, NULL, NULL);
    if (fd < 0) {
      fail("accept");
      return 1;
    }
    if (set_timeouts(fd) != 0 || set_nodelay(fd) != 0)
      return 1;
  }
  for (long i = 0; i < total; i++) {
    struct sockaddr_in from;
    if (recv_msg(fd, buf, tcp ? NULL : &from) != 0)
      return 1;
    if (tcp ? send_msg(fd, buf) != 0
            : sendto(fd, buf, MSG, MSG_NOSIGNAL, (struct sockaddr *)&from, sizeof from) != MSG) {
      if (!tcp)
        fail("sendto");
      return 1;
    }
  }
  if (tcp && close(fd) != 0) {
    fail("close");
    return 1;
  }
  return 0;
}

/* The parent: warm-up, then `iters` timed round trips; *us = mean. */
static int client(const struct sockaddr_in *srv, long warm, long iters, double *us) {
  int fd = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
  if (fd < 0) {
    fail("socket");
    return -1;
  }
  if (set_timeouts(fd) != 0 || (tcp && set_nodelay(fd) != 0))
    goto fail_close;
  if (connect(fd, (const struct sockaddr *)srv, sizeof *srv) != 0) {
    fail("connect");
    goto fail_close;
  }
  double t0 = 0;
  for (long i = 0; i < warm + iters; i++) {
    if (i == warm)
      t0 = now();
    uint64_t out = (uint64_t)i * 0x9E3779B97F4A7C15u, in = 0;
    char buf[MSG + 1];
    memcpy(buf, &out, MSG);
    if (send_msg(fd, buf) != 0 || recv_msg(fd, buf, NULL) != 0)
      goto fail_close;
    memcpy(&in, buf, MSG);
    if (in != out) {
      errno = 0;
      fprintf(stderr, "%s: round trip %ld: sent %llu, received %llu\n", prog, i, (unsigned long long)out,
              (unsigned long long)in);
      goto fail_close;
    }
  }
  *us = (now() - t0) * 1e6 / (double)iters;
  if (close(fd) != 0) {
    fail("close");
    return -1;
  }
  return 0;
fail_close:
  (void)close(fd); /* already failing: its own error adds nothing */
  return -1;
}

static int usage(const char *why) {
  fprintf(stderr, "%s: %s\nusage: %s [-spin] udp|tcp [ITERS]\n", prog, why, prog);
  return 2;
}

int main(int argc, char **argv) {
  int a = 1;
  long iters = 10000;
  if (a < argc && strcmp(argv[a], "-spin") == 0) {
    spin = 1;
    a++;
  }
  if (a >= argc)
    return usage("no mode given");
  if (strcmp(argv[a], "tcp") == 0)
    tcp = 1;
  else if (strcmp(argv[a], "udp") != 0)
    return usage("the mode must be udp or tcp");
  a++;
  if (a < argc) {
    char *end;
    errno = 0;
    iters = strtol(argv[a], &end, 10);
    if (errno || end == argv[a] || *end || iters <= 0 || iters > 1000000000L)
      return usage("ITERS must be a positive integer");
    a++;
  }
  if (a < argc)
    return usage("too many arguments");
  long warm = iters / 10 < 1 ? 1 : iters / 10 > 1000 ? 1000 : iters / 10;

  /* The server's socket exists (and listens) before the fork. */
  int lfd = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
  if (lfd < 0) {
    fail("socket");
    return 1;
  }
  struct sockaddr_in srv;
  socklen_t len = sizeof srv;
  memset(&srv, 0, sizeof srv);
  srv.sin_family = AF_INET;
  srv.sin_port = 0;
  srv.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (set_timeouts(lfd) != 0)
    return 1;
  if (bind(lfd, (struct sockaddr *)&srv, sizeof srv) != 0) {
    fail("bind 127.0.0.1");
    return 1;
  }
  if (getsockname(lfd, (struct sockaddr *)&srv, &len) != 0) {
    fail("getsockname");
    return 1;
  }
  if (tcp && listen(lfd, 1) != 0) {
    fail("listen");
    return 1;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    fail("fork");
    return 1;
  }
  if (pid == 0)
    _exit(serve(lfd, warm + iters));

  double us = 0;
  int rc = -1;
  if (close(lfd) != 0)
    fail("close");
  else
    rc = client(&srv, warm, iters, &us);
  if (rc != 0 && kill(pid, SIGTERM) != 0)
    fail("kill");
  int st;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) {
      fail("waitpid");
      return 1;
    }
  }
  if (rc != 0)
    return 1;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "%s: the server process %s %d\n", prog,
            WIFEXITED(st) ? "exited with status" : "was killed by signal",
            WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    return 1;
  }
  printf("%s %s%s %d bytes: %.3f us round trip (%ld iters)\n", prog, tcp ? "tcp" : "udp", spin ? "-spin" : "",
         MSG, us, iters);
  return 0;
}

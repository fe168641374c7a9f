/* misuse_util.h -- the protocol between a misuse test program and
 * tests/misuse.sh.  The program prints "EXPECT <regex>" for the libgex line
 * the misuse must produce, then commits the misuse; if libgex lets it pass,
 * the program prints "NOT DETECTED" and exits 0, which misuse.sh reports as
 * a failure.  Include after test_util.h; 'mode' is the case being run. */
#ifndef GEX_TEST_MISUSE_UTIL_H
#define GEX_TEST_MISUSE_UTIL_H

#include <stdarg.h>
#include <stdio.h>

static const char *mode;

static void expect(const char *fmt, ...) TEST_PRINTF(1, 2);
static void expect(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  printf("EXPECT %s\n", buf);
  fflush(stdout);
}

TEST_NORETURN static void not_detected(void) {
  printf("NOT DETECTED: misuse '%s' was accepted by libgex\n", mode);
  fflush(stdout);
  gasnet_exit(0);
}

/* Poll (so that handlers run) until the job is ended by the misuse; if that
 * does not happen within 20 s, the misuse went unnoticed. */
TEST_NORETURN static void wait_forever(void) {
  double t0 = test_now();
  while (test_now() - t0 < 20.0) gasnet_AMPoll();
  not_detected();
}

#endif

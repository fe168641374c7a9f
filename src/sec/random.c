/* sec/random.c -- see random.h. */
#include "sec/random.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "core/context.h"

void gexi_random_bytes(void *buf, size_t n) {
  unsigned char *p = buf;
  while (n) {
    ssize_t r = getrandom(p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) gexi_fatal("getrandom: %s (no random source for the job's keys)", strerror(errno));
    p += r;
    n -= (size_t)r;
  }
}

uint64_t gexi_random_u64(void) {
  uint64_t v;
  gexi_random_bytes(&v, sizeof v);
  return v;
}

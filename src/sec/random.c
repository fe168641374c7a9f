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

void gexi_keygen_init(struct gexi_keygen *g) {
  unsigned char k[16];
  gexi_random_bytes(k, sizeof k);
  gexi_sipkey_load(&g->key, k);
  atomic_init(&g->drawn, 0);
}

uint64_t gexi_keygen_next(struct gexi_keygen *g) {
  uint64_t n = atomic_fetch_add_explicit(&g->drawn, 1, memory_order_relaxed);
  return gexi_siphash24(&g->key, &n, sizeof n);
}

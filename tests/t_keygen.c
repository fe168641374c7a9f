/* t_keygen.c -- the registration-key stream (src/sec/random.c): the values
 * of one stream never repeat over many draws, two streams (two processes,
 * two generators) differ, and the stream is SipHash-2-4 of the counter
 * under the generator's key, so a value costs no system call.
 * A plain program: prints PASS, exits 0 (1 on a failure). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "sec/random.h"

#define DRAWS 100000

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

int main(void) {
  static uint64_t v[2 * DRAWS];
  struct gexi_keygen a, b;
  gexi_keygen_init(&a);
  gexi_keygen_init(&b);
  for (uint64_t i = 0; i < DRAWS; i++) {
    v[i] = gexi_keygen_next(&a);
    uint64_t want = gexi_siphash24(&a.key, &i, sizeof i);
    if (v[i] != want) {
      printf("FAIL t_keygen: draw %" PRIu64 " is %016" PRIx64 ", not the keyed hash %016" PRIx64
             "\n", i, v[i], want);
      return 1;
    }
    v[DRAWS + i] = gexi_keygen_next(&b);
  }
  qsort(v, 2 * DRAWS, sizeof v[0], cmp_u64);
  for (size_t i = 1; i < 2 * DRAWS; i++)
    if (v[i] == v[i - 1]) {
      printf("FAIL t_keygen: value %016" PRIx64 " drawn twice\n", v[i]);
      return 1;
    }
  printf("PASS t_keygen (%d draws from each of 2 generators, all distinct)\n", DRAWS);
  return 0;
}

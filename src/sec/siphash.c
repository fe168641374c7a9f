/* sec/siphash.c -- SipHash-2-4 (see siphash.h). */
#include "sec/siphash.h"

static inline uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

static inline uint64_t load_le64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

void gexi_sipkey_load(gexi_sipkey_t *k, const unsigned char bytes[16]) {
  k->k0 = load_le64(bytes);
  k->k1 = load_le64(bytes + 8);
}

/* One SipRound on the state v0..v3. */
#define SIPROUND                                                      \
  do {                                                                \
    v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);         \
    v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;                            \
    v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;                            \
    v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);         \
  } while (0)

uint64_t gexi_siphash24(const gexi_sipkey_t *k, const void *msg, size_t len) {
  const unsigned char *m = msg;
  /* Initialization: the key XORed into the constants "somepseudorandomlygeneratedbytes". */
  uint64_t v0 = k->k0 ^ 0x736f6d6570736575ULL;
  uint64_t v1 = k->k1 ^ 0x646f72616e646f6dULL;
  uint64_t v2 = k->k0 ^ 0x6c7967656e657261ULL;
  uint64_t v3 = k->k1 ^ 0x7465646279746573ULL;
  size_t full = len & ~(size_t)7;
  for (size_t i = 0; i < full; i += 8) {
    uint64_t mi = load_le64(m + i);
    v3 ^= mi;
    SIPROUND;
    SIPROUND;
    v0 ^= mi;
  }
  /* The last block: the remaining 0-7 bytes, and len mod 256 in the top byte. */
  uint64_t b = (uint64_t)(len & 0xff) << 56;
  for (size_t i = 0; i < (len & 7); i++) b |= (uint64_t)m[full + i] << (8 * i);
  v3 ^= b;
  SIPROUND;
  SIPROUND;
  v0 ^= b;
  /* Finalization. */
  v2 ^= 0xff;
  SIPROUND;
  SIPROUND;
  SIPROUND;
  SIPROUND;
  return v0 ^ v1 ^ v2 ^ v3;
}

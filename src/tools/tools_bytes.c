/* src/tools/tools_bytes.c -- checksums and zero-byte counts over memory. */
#include "tools_ctx.h"

#include <string.h>

/* 64-bit FNV-1a over the bytes: cheap, not cryptographic. */
uint64_t gasnett_checksum(const void *p, int numbytes) {
  const unsigned char *b = (const unsigned char *)p;
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (int i = 0; i < numbytes; i++) {
    h ^= b[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

/* Bytes up to an 8-byte boundary one at a time, then whole words. */
size_t gasnett_count0s(const void *p, size_t numbytes) {
  const unsigned char *b = (const unsigned char *)p;
  size_t zeros = 0;
  while (numbytes && ((uintptr_t)b & 7u)) {
    zeros += (*b++ == 0);
    numbytes--;
  }
  for (; numbytes >= 8; numbytes -= 8, b += 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    zeros += (size_t)gexti_count0s_u64(w);
  }
  while (numbytes--) zeros += (*b++ == 0);
  return zeros;
}

size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                            size_t numbytes) {
  memcpy(dst, src, numbytes);
  return gasnett_count0s(dst, numbytes); /* dst is in cache now */
}

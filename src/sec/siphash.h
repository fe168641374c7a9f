/* sec/siphash.h -- SipHash-2-4, the keyed hash (MAC) behind peer admission.
 *
 * Written from the algorithm's published description (Aumasson and
 * Bernstein, "SipHash: a fast short-input PRF", 2012): a 128-bit key, any
 * message length, a 64-bit tag; two compression rounds per 8-byte block and
 * four finalization rounds.  tests/t_siphash.c checks it against the
 * published test vectors.
 */
#ifndef GEXI_SEC_SIPHASH_H
#define GEXI_SEC_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t k0, k1; /* the key's two halves, read little-endian from its 16 bytes */
} gexi_sipkey_t;

/* Load a key from 16 bytes (bytes 0-7 are k0, 8-15 are k1, little-endian). */
void gexi_sipkey_load(gexi_sipkey_t *k, const unsigned char bytes[16]);

/* The 64-bit SipHash-2-4 tag of msg[0..len). */
uint64_t gexi_siphash24(const gexi_sipkey_t *k, const void *msg, size_t len);

#endif

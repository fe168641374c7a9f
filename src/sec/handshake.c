/* sec/handshake.c -- see sec/handshake.h. */
#include <string.h>

#include "sec/handshake.h"

uint64_t gexi_hs_mac(const gexi_sipkey_t *k, uint64_t label, uint32_t a, uint32_t b,
                     const unsigned char n1[16], const unsigned char n2[16]) {
  struct {
    uint64_t label;
    uint32_t a, b;
    unsigned char n1[16], n2[16];
  } in;
  in.label = label;
  in.a = a;
  in.b = b;
  memcpy(in.n1, n1, 16);
  memcpy(in.n2, n2, 16);
  return gexi_siphash24(k, &in, sizeof in);
}

int gexi_tag_equal(uint64_t a, uint64_t b) {
  volatile uint64_t d = a ^ b; /* one compare of the whole difference, never early */
  return d == 0;
}

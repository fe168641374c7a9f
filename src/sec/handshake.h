/* sec/handshake.h -- the pieces of a keyed handshake that the network
 * transports' admission share (transport/ofi/ofi_auth.c,
 * transport/sock/sock_auth.c): the MAC of one step and the constant-time
 * compare of two tags. */
#ifndef GEXI_SEC_HANDSHAKE_H
#define GEXI_SEC_HANDSHAKE_H

#include <stdint.h>

#include "sec/siphash.h"

/* The SipHash-2-4 tag under key k of one handshake step: its label (a
 * constant naming the step and the protocol), the two ranks in the step's
 * direction and the two 16-byte nonces. */
uint64_t gexi_hs_mac(const gexi_sipkey_t *k, uint64_t label, uint32_t a, uint32_t b,
                     const unsigned char n1[16], const unsigned char n2[16]);

/* 1 iff a == b, in time independent of where they differ. */
int gexi_tag_equal(uint64_t a, uint64_t b);

#endif

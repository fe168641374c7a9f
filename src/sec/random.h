/* sec/random.h -- unpredictable bytes from the kernel's random source. */
#ifndef GEXI_SEC_RANDOM_H
#define GEXI_SEC_RANDOM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sec/siphash.h"

/* Fill buf with n bytes from getrandom(2) (blocking until the kernel's pool
 * is initialised, which it is long before any job starts).  Ends the process
 * with one line if the kernel refuses. */
void gexi_random_bytes(void *buf, size_t n);

/* A stream of unpredictable 64-bit values for frequent use (registration
 * keys): SipHash-2-4 of a counter under a key drawn from the kernel once,
 * so a value costs no system call.  Without that key, which never leaves
 * the process, one value tells nothing of the others.  Thread-safe. */
struct gexi_keygen {
  gexi_sipkey_t key;
  _Atomic uint64_t drawn;
};
void gexi_keygen_init(struct gexi_keygen *g);
uint64_t gexi_keygen_next(struct gexi_keygen *g);

#endif

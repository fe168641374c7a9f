/* sec/random.h -- unpredictable bytes from the kernel's random source. */
#ifndef GEXI_SEC_RANDOM_H
#define GEXI_SEC_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/* Fill buf with n bytes from getrandom(2) (blocking until the kernel's pool
 * is initialised, which it is long before any job starts).  Ends the process
 * with one line if the kernel refuses. */
void gexi_random_bytes(void *buf, size_t n);
uint64_t gexi_random_u64(void);

#endif

/* shmemx.h -- OpenSHMEM vendor extensions of libgex's OpenSHMEM library.
 *
 * OpenSHMEM 1.5 asks every library to provide this header, extensions or
 * not.  libgex's OpenSHMEM has none: it declares what shmem.h declares. */
#ifndef GEX_SHMEMX_H
#define GEX_SHMEMX_H
#include <shmem.h>
#endif

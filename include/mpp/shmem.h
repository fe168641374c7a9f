/* mpp/shmem.h -- the header's deprecated location (OpenSHMEM 1.5 Annex):
 * shmem.h. */
#ifndef GEX_MPP_SHMEM_H
#define GEX_MPP_SHMEM_H
#include <shmem.h>
#endif

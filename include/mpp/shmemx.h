/* mpp/shmemx.h -- the extensions header's deprecated location (OpenSHMEM
 * 1.5 Annex): shmemx.h. */
#ifndef GEX_MPP_SHMEMX_H
#define GEX_MPP_SHMEMX_H
#include <shmemx.h>
#endif

/* pshmem.h -- the OpenSHMEM profiling interface of libgexshmem.
 *
 * Every call that <shmem.h> declares is also pshmem_NAME, the same code
 * under a second name (start_pes, _my_pe, shmalloc and the other old names
 * get a "p" in front likewise); the shmem_ names are weak.  A profiling
 * library defines the shmem_ calls it wants to watch and reaches libgex's
 * through pshmem_, linked statically or shared.  The C11 generic
 * selections and the inline forms of shmem_putmem/getmem are macros over
 * the shmem_ names and have no pshmem_ form of their own; a program that
 * wants every putmem seen by a profiling library defines
 * GEX_SHMEM_NO_INLINE before including <shmem.h>.  See docs/openshmem.md,
 * "Profiling". */
#ifndef GEX_PSHMEM_H
#define GEX_PSHMEM_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GEXS_FN(name) p##name
#include <shmem/shmem_api.h>
#undef GEXS_FN

#ifdef __cplusplus
}
#endif

#endif /* GEX_PSHMEM_H */

/* bootstrap/bootstrap.h -- how a rank learns its place in the job.
 *
 * A bootstrap gives the rank its jobrank and job size, an all-gather over
 * every rank (also used as the barrier before attach), and the job-wide exit
 * paths.  Implementations: 'launcher' (started by gexrun, see wire.h),
 * 'pmix' (started by a PMIx launcher such as mpirun or srun --mpi=pmix, see
 * pmix.c) and 'singleton' (started alone: a job of one rank).  Bootstrap.c
 * picks one from the environment.
 */
#ifndef GEXI_BOOTSTRAP_H
#define GEXI_BOOTSTRAP_H

#include "core/boot_ops.h"

/* Pick and start the bootstrap for this process (environment decides). */
gexi_bootstrap_t *gexi_bootstrap_start(void);
gexi_bootstrap_t *gexi_bootstrap_launcher_start(int fd);
/* gasnet_exit (EXIT) or a fatal error (ABORT) before gex_Client_Init: if
 * gexrun started this process, tell it, so that the job ends with 'code'
 * rather than as a death.  Nothing otherwise. */
void gexi_bootstrap_end_before_init(int is_abort, int code);
void gexi_bootstrap_launcher_end_early(int fd, uint32_t type, int code);
gexi_bootstrap_t *gexi_bootstrap_singleton_start(void);
/* PMIx client (mpirun, srun --mpi=pmix); without PMIx at build time it
 * reports that and ends the process. */
gexi_bootstrap_t *gexi_bootstrap_pmix_start(void);
/* A process started alone: with the smp identity and GASNET_PSHM_NODES=N
 * (N > 1) it becomes gexrun -n N running this program (self_spawn.c) and
 * does not return; otherwise it returns (a job of one rank). */
void gexi_bootstrap_self_spawn(void);

#endif

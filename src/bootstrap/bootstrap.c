/* bootstrap/bootstrap.c -- choose the bootstrap from the environment.
 *
 *   GEX_BOOTSTRAP=launcher|pmix|singleton   forces one (an unknown value is
 *                                            an error);
 *   otherwise GEX_BOOT_FD set               -> launcher (started by gexrun);
 *   otherwise a PMIx environment            -> pmix (mpirun, srun --mpi=pmix):
 *             PMIX_RANK and PMIX_NAMESPACE, or a PMIX_SERVER_URI* variable;
 *   otherwise, with the smp identity and GASNET_PSHM_NODES=N (N > 1)
 *                                           -> this process becomes gexrun -n N
 *                                              running this program (self_spawn.c);
 *   otherwise                               -> singleton (a job of one rank).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "identity/identity.h"

extern char **environ;

static int pmix_environment(void) {
  if (getenv("PMIX_RANK") && getenv("PMIX_NAMESPACE")) return 1;
  for (char **e = environ; e && *e; e++)
    if (strncmp(*e, "PMIX_SERVER_URI", 15) == 0) return 1;
  return 0;
}

static gexi_bootstrap_t *launcher_from_env(void) {
  const char *fd = getenv("GEX_BOOT_FD");
  if (!fd || !*fd) {
    fprintf(stderr, "libgex: GEX_BOOTSTRAP=launcher, but GEX_BOOT_FD is not set (start the "
                    "job with gexrun)\n");
    exit(1);
  }
  return gexi_bootstrap_launcher_start(atoi(fd));
}

gexi_bootstrap_t *gexi_bootstrap_start(void) {
  const char *force = getenv("GEX_BOOTSTRAP");
  if (force && *force) {
    if (!strcmp(force, "launcher") || !strcmp(force, "gexrun")) return launcher_from_env();
    if (!strcmp(force, "pmix")) return gexi_bootstrap_pmix_start();
    if (!strcmp(force, "singleton")) return gexi_bootstrap_singleton_start();
    fprintf(stderr, "libgex: GEX_BOOTSTRAP='%s' is not one of launcher, pmix, singleton\n",
            force);
    exit(1);
  }
  const char *fd = getenv("GEX_BOOT_FD");
  if (fd && *fd) return gexi_bootstrap_launcher_start(atoi(fd));
  if (pmix_environment()) return gexi_bootstrap_pmix_start();
  if (gexi_conduit_is_smp()) gexi_bootstrap_self_spawn();
  return gexi_bootstrap_singleton_start();
}

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
#include "bootstrap/wire.h"
#include "core/context.h"
#include "identity/identity.h"

extern char **environ;

static int pmix_environment(void) {
  if (gexi_env_string("PMIX_RANK") && gexi_env_string("PMIX_NAMESPACE")) return 1;
  for (char **e = environ; e && *e; e++)
    if (strncmp(*e, "PMIX_SERVER_URI", 15) == 0) return 1;
  return 0;
}

/* GEX_BOOT_FD: the number of a descriptor (set by gexrun). */
static int boot_fd(void) { return (int)gexi_env_count("GEX_BOOT_FD", 0, 0, INT32_MAX); }

static gexi_bootstrap_t *launcher_from_env(void) {
  if (!gexi_env_string("GEX_BOOT_FD")) {
    fprintf(stderr, "libgex: GEX_BOOTSTRAP=launcher, but GEX_BOOT_FD is not set (start the "
                    "job with gexrun)\n");
    exit(1);
  }
  return gexi_bootstrap_launcher_start(boot_fd());
}

void gexi_bootstrap_end_before_init(int is_abort, int code) {
  const char *force = gexi_env_string("GEX_BOOTSTRAP");
  const char *fd = gexi_env_string("GEX_BOOT_FD");
  if (!fd || (force && strcmp(force, "launcher") && strcmp(force, "gexrun"))) return;
  char why[128];
  uint64_t v;
  if (gexi_parse_count(fd, 0, INT32_MAX, &v, why, sizeof why) != 0) return; /* not ours */
  gexi_bootstrap_launcher_end_early((int)v, is_abort ? GEXI_WIRE_ABORT : GEXI_WIRE_EXIT, code);
}

gexi_bootstrap_t *gexi_bootstrap_start(void) {
  const char *force = gexi_env_string("GEX_BOOTSTRAP");
  if (force) {
    if (!strcmp(force, "launcher") || !strcmp(force, "gexrun")) return launcher_from_env();
    if (!strcmp(force, "pmix")) return gexi_bootstrap_pmix_start();
    if (!strcmp(force, "singleton")) return gexi_bootstrap_singleton_start();
    fprintf(stderr, "libgex: GEX_BOOTSTRAP='%s' is not one of launcher, pmix, singleton\n",
            force);
    exit(1);
  }
  if (gexi_env_string("GEX_BOOT_FD")) return gexi_bootstrap_launcher_start(boot_fd());
  if (pmix_environment()) return gexi_bootstrap_pmix_start();
  if (gexi_conduit_is_smp()) gexi_bootstrap_self_spawn();
  return gexi_bootstrap_singleton_start();
}

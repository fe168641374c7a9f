/* legacy/coll_tuning.c -- the autotuner and profile calls of the GASNet-1
 * prototype collectives.  libgex has one algorithm per collective and
 * keeps no profile, so there is nothing to load or dump. */
#include "legacy/coll_legacy.h"

void gasnet_coll_loadTuningState(char *filename, gasnet_team_handle_t team) {
  (void)filename;
  (void)team;
}

void gasnet_coll_dumpTuningState(char *filename, gasnet_team_handle_t team) {
  (void)filename;
  (void)team;
}

void gasnet_coll_dumpProfile(char *filename, gasnet_team_handle_t team) {
  (void)filename;
  (void)team;
}

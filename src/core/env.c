/* core/env.c -- reading switches from the environment. */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "core/context.h"

/* A boolean switch: 1/0, yes/no, y/n, true/false, on/off (any case).  Unset
 * or empty: 'dflt'.  Anything else: one line naming the variable, then
 * 'dflt'. */
int gexi_env_switch(const char *name, int dflt) {
  const char *s = getenv(name);
  if (!s || !*s) return dflt;
  static const char *const yes[] = {"1", "yes", "y", "true", "on"};
  static const char *const no[] = {"0", "no", "n", "false", "off"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (strcasecmp(s, yes[i]) == 0) return 1;
    if (strcasecmp(s, no[i]) == 0) return 0;
  }
  fprintf(stderr, "libgex: %s='%s' is not a yes/no value (1/0, yes/no, true/false, on/off); "
                  "using %d\n", name, s, dflt);
  return dflt;
}

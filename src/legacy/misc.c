/* legacy/misc.c -- gasnet_set_waitmode and gasnet_getenv. */
#include <stdlib.h>

#include "legacy/legacy.h"

int gasnet_set_waitmode(int wait_mode) {
  if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK &&
      wait_mode != GASNET_WAIT_SPINBLOCK)
    return GASNET_ERR_BAD_ARG;
  /* Remembered only: every wait loop of libgex polls and yields the CPU after
   * a run of empty polls (docs/design.md), which serves all three modes. */
  gexl_ctx.waitmode = wait_mode;
  return GASNET_OK;
}

const char *gasnet_getenv(const char *name) { return name ? getenv(name) : NULL; }

/* legacy/misc.c -- gasnet_set_waitmode and gasnet_getenv. */
#include <stdlib.h>

#include "core/hooks.h"
#include "legacy/legacy.h"

int gasnet_set_waitmode(int wait_mode) {
  if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK &&
      wait_mode != GASNET_WAIT_SPINBLOCK)
    return GASNET_ERR_BAD_ARG;
  /* SPIN and BLOCK are libgex's spin and block (docs/design.md, "Waiting
   * without starving others"); SPINBLOCK, spinning a while and then
   * blocking, is what its yield mode does. */
  gexl_ctx.waitmode = wait_mode;
  gexi_set_wait_mode(wait_mode == GASNET_WAIT_SPIN    ? GEXI_WAIT_SPIN
                     : wait_mode == GASNET_WAIT_BLOCK ? GEXI_WAIT_BLOCK
                                                      : GEXI_WAIT_YIELD);
  return GASNET_OK;
}

const char *gasnet_getenv(const char *name) { return name ? getenv(name) : NULL; }

/* bootstrap/bootstrap.c -- choose the bootstrap from the environment. */
#include <stdlib.h>

#include "bootstrap/bootstrap.h"

gexi_bootstrap_t *gexi_bootstrap_start(void) {
  const char *fd = getenv("GEX_BOOT_FD");
  if (fd && *fd) return gexi_bootstrap_launcher_start(atoi(fd));
  return gexi_bootstrap_singleton_start();
}

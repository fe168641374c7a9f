/* core/exit.c -- gasnet_exit: end every rank of the job with one code. */
#include <stdio.h>

#include "core/context.h"

void gasnet_exit(int exitcode) {
  /* Allowed from any context, including AM handlers and with HSLs held. */
  if (gexi_ctx.boot) gexi_ctx.boot->notify_exit(gexi_ctx.boot, exitcode);
  else gexi_bootstrap_end_before_init(0, exitcode); /* before gex_Client_Init: the code stays */
  gexi_end_process(exitcode);
}

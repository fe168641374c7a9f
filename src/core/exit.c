/* core/exit.c -- gasnet_exit: end every rank of the job with one code. */
#include <stdio.h>

#include "core/context.h"

/* The most gasnet_exit waits for connections still being made, so that
 * what the rank sent to those peers is not dropped (core/context.h,
 * net_unsent): a peer that has left already never answers. */
#define GEXI_EXIT_SETTLE_MS 1000

void gasnet_exit(int exitcode) {
  /* Allowed from any context, including AM handlers and with HSLs held. */
  if (GEXI_UNLIKELY(atomic_load_explicit(&gexi_ctx.net_unsent, memory_order_relaxed)) &&
      !gexi_in_handler_or_hsl())
    gexi_settle_slow(GEXI_EXIT_SETTLE_MS);
  if (gexi_ctx.boot) gexi_ctx.boot->notify_exit(gexi_ctx.boot, exitcode);
  else if (gexi_ctx.boot_end_early) gexi_ctx.boot_end_early(0, exitcode); /* before gex_Client_Init: the code stays */
  gexi_end_process(exitcode);
}

/* core/context.c -- the per-thread state and the client-init hook (the
 * process-wide context itself is defined in objects/context_storage.c). */
#include "core/context.h"
#include "core/hooks.h"

_Thread_local struct gexi_thread_state gexi_tls __attribute__((tls_model("initial-exec")));

void gexi_set_client_init_hook(gexi_client_init_hook_t fn) { gexi_ctx.client_init_hook = fn; }

/* core/context.c -- the process-wide context and the per-thread state. */
#include "core/context.h"
#include "core/hooks.h"

struct gexi_context gexi_ctx = {
    .teams_lock = PTHREAD_MUTEX_INITIALIZER,
    .coll_lock = PTHREAD_MUTEX_INITIALIZER,
    .dev_lock = PTHREAD_MUTEX_INITIALIZER,
    .used_slots = 1,
    .npam_staging_once = PTHREAD_ONCE_INIT,
    .next_segment_id = GEXI_SEG_ID_ATTACH + 1,
};
_Thread_local struct gexi_thread_state gexi_tls __attribute__((tls_model("initial-exec")));

void gexi_set_client_init_hook(gexi_client_init_hook_t fn) { gexi_ctx.client_init_hook = fn; }

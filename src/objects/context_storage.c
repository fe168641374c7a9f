/* objects/context_storage.c -- the one process-wide context, defined at the
 * top of the layers.  Its static initializer wires what the core calls
 * before any layer has started: the bootstrap's end before gex_Client_Init
 * (core/boot_ops.h).  Defined here rather than in the core, every program
 * that links the context links that end with it, statically linked or not,
 * and the core names no room above it.
 */
#include "bootstrap/bootstrap.h"
#include "core/context.h"

struct gexi_context gexi_ctx = {
    .teams_lock = PTHREAD_MUTEX_INITIALIZER,
    .coll_lock = PTHREAD_MUTEX_INITIALIZER,
    .dev_lock = PTHREAD_MUTEX_INITIALIZER,
    .used_slots = 1,
    .npam_staging_once = PTHREAD_ONCE_INIT,
    .next_segment_id = GEXI_SEG_ID_ATTACH + 1,
    .boot_end_early = gexi_bootstrap_end_before_init,
};

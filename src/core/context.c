/* core/context.c -- the per-thread state, the client-init hook and the
 * join of the library's own threads (the process-wide context itself is
 * defined in objects/context_storage.c). */
#include <time.h>

#include "core/context.h"
#include "core/hooks.h"

_Thread_local struct gexi_thread_state gexi_tls __attribute__((tls_model("initial-exec")));

void gexi_set_client_init_hook(gexi_client_init_hook_t fn) { gexi_ctx.client_init_hook = fn; }

void gexi_join_within(pthread_t th, int wait_ms) {
  struct timespec at;
  clock_gettime(CLOCK_REALTIME, &at);
  at.tv_nsec += (long)wait_ms * 1000000L;
  at.tv_sec += at.tv_nsec / 1000000000L;
  at.tv_nsec %= 1000000000L;
  (void)pthread_timedjoin_np(th, NULL, &at);
}

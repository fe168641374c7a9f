/* core/context.c -- the per-thread state, the client-init hook, and the
 * deadlines and the join of the library's own threads (the process-wide
 * context itself is defined in objects/context_storage.c). */
#include <time.h>

#include "core/context.h"
#include "core/hooks.h"

_Thread_local struct gexi_thread_state gexi_tls __attribute__((tls_model("initial-exec")));

void gexi_set_client_init_hook(gexi_client_init_hook_t fn) { gexi_ctx.client_init_hook = fn; }

struct timespec gexi_deadline(clockid_t clock, uint64_t ns) {
  struct timespec at;
  clock_gettime(clock, &at);
  const uint64_t nsec = (uint64_t)at.tv_nsec + ns % 1000000000ull;
  at.tv_sec += (time_t)(ns / 1000000000ull + nsec / 1000000000ull);
  at.tv_nsec = (long)(nsec % 1000000000ull);
  return at;
}

void gexi_join_within(pthread_t th, int wait_ms) {
  const struct timespec at = gexi_deadline(CLOCK_REALTIME, (uint64_t)wait_ms * 1000000ull);
  (void)pthread_timedjoin_np(th, NULL, &at);
}

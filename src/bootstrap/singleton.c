/* bootstrap/singleton.c -- a process started without a launcher is a job of
 * one rank. */
#include <string.h>

#include "bootstrap/bootstrap.h"

static void single_allgather(gexi_bootstrap_t *b, const void *mine, void *out, size_t len) {
  (void)b;
  if (len) memcpy(out, mine, len);
}
static void single_notify(gexi_bootstrap_t *b, int code) {
  (void)b;
  (void)code;
}

static gexi_bootstrap_t singleton = {
    .name = "singleton",
    .rank = 0,
    .size = 1,
    .allgather = single_allgather,
    .notify_exit = single_notify,
    .notify_abort = single_notify,
    .notify_leave = single_notify,
};

gexi_bootstrap_t *gexi_bootstrap_singleton_start(void) { return &singleton; }

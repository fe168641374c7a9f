/* core/exit_hooks.c -- how a job ends when a rank leaves without calling
 * gasnet_exit, as in the reference implementation.
 *
 * exit(code) or a return from main after gex_Client_Init ends the whole job
 * like gasnet_exit(code) (GASNET_CATCH_EXIT, default on).  With
 * GASNET_CATCH_EXIT=0 an exit(0) tells the launcher the rank leaves and the
 * process ends normally (atexit handlers run); the job goes on, and a
 * collective exit(0) ends it with status 0.  exit(code != 0) without
 * gasnet_exit remains a failure of the rank.
 *
 * SIGINT: unless GASNET_NO_CATCH_SIGNAL names it, libgex handles SIGINT (as
 * the reference does): it is passed on as SIGQUIT when the client has a
 * SIGQUIT handler -- the signal GASNet leaves to clients to clean up and call
 * gasnet_exit -- and otherwise kills the rank as it would have.  A client
 * that wants SIGINT installs its handler after gex_Client_Init.
 *
 * Fatal-signal handlers of dependencies are undone first
 * (core/foreign_signals.c), so a crashed rank dies by its signal and is
 * reported as such.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"

/* on_exit handler, registered once by gex_Client_Init. */
static void exit_hook(int status, void *arg) {
  (void)arg;
  if (!atomic_load_explicit(&gexi_ctx.initialized, memory_order_acquire)) return;
  if (gexi_ctx.env.catch_exit) gasnet_exit(status); /* does not return */
  /* exit(0): leaving, not dying.  Any other code stays a failure of the
   * rank, which ends the job (the others could wait for it forever). */
  if (status == 0 && gexi_ctx.boot && gexi_ctx.boot->notify_leave)
    gexi_ctx.boot->notify_leave(gexi_ctx.boot, status);
  /* Leaving, the rank tells its network peers too (a BYE behind what it
   * sent them), so that its end of file is no failure to them; as in
   * gexi_end_process, only the first thread that ends the process does. */
  if (status == 0) {
    gexi_tls.ending = 1;
    void (*net_at_exit)(void) = __atomic_load_n(&gexi_ctx.net_at_exit, __ATOMIC_ACQUIRE);
    if (!atomic_exchange_explicit(&gexi_ctx.ending, 1, memory_order_acq_rel) && net_at_exit) net_at_exit();
  }
}

static int is_handled(const struct sigaction *q) {
  if (q->sa_flags & SA_SIGINFO) return q->sa_sigaction != NULL;
  return q->sa_handler != SIG_DFL && q->sa_handler != SIG_IGN;
}

static void sigint_handler(int sig) {
  (void)sig;
  struct sigaction q;
  if (sigaction(SIGQUIT, NULL, &q) == 0 && is_handled(&q)) {
    raise(SIGQUIT);
    return;
  }
  signal(SIGINT, SIG_DFL);
  raise(SIGINT);
}

void gexi_exit_hooks_install(void) {
  on_exit(exit_hook, NULL);
  gexi_reset_foreign_fatal_handlers();
  if (!gexi_ctx.env.no_catch_sigint) { /* GASNET_NO_CATCH_SIGNAL (core/env.c) */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sigint_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
  }
}

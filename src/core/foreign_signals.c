/* core/foreign_signals.c -- undo the fatal-signal handlers a dependency
 * installs behind the client's back.
 *
 * libinfinipath (loaded with libfabric for its psm provider, whether or not
 * that provider is used) installs, from its constructor, handlers that turn
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTERM into exit(1).  A
 * crash, an assertion or gasnett_fatalerror's abort() would then look like
 * an orderly exit(1) (and, after gex_Client_Init, like gasnet_exit(1)).
 * Those handlers -- and only those: a handler the client installed is kept --
 * are put back to the default.  This runs when libgex is loaded (shared
 * library: after its dependencies' constructors), from gex_Client_Init and
 * before the tools' fatal-error abort (static library).
 */
#include <dlfcn.h>
#include <signal.h>
#include <string.h>

#include "core/context.h"

/* Whether the handler of 'sig' belongs to libinfinipath. */
static int foreign_exit_handler(int sig) {
  struct sigaction q;
  if (sigaction(sig, NULL, &q) != 0) return 0;
  void *fn = (q.sa_flags & SA_SIGINFO) ? (void *)q.sa_sigaction : (void *)q.sa_handler;
  if (fn == (void *)SIG_DFL || fn == (void *)SIG_IGN) return 0;
  Dl_info info;
  return dladdr(fn, &info) && info.dli_fname && strstr(info.dli_fname, "libinfinipath");
}

void gexi_reset_foreign_fatal_handlers(void) {
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM};
  for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
    if (foreign_exit_handler(fatal[i])) signal(fatal[i], SIG_DFL);
}

__attribute__((constructor)) static void reset_at_load(void) { gexi_reset_foreign_fatal_handlers(); }

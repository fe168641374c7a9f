/* src/tools/tools_error.c -- fatal errors, backtraces, freezing for a
 * debugger, ending the process.
 *
 * Backtrace mechanisms, tried in the order GASNET_BACKTRACE_TYPE lists them
 * (comma-separated; default: the client's own, if it defines
 * gasnett_backtrace_user, then EXECINFO):
 *   <gasnett_backtrace_user.name>  the client's function
 *   EXECINFO                       the C library's backtrace() symbols
 * Fatal errors print a backtrace when GASNET_BACKTRACE is true, and wait for
 * a debugger when GASNET_FREEZE_ON_ERROR is true.
 */
#include "tools_ctx.h"

#include <execinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* Optional: defined by clients that add a backtrace mechanism. */
extern gasnett_backtrace_type_t gasnett_backtrace_user __attribute__((__weak__));

static const gasnett_backtrace_type_t *gexti_user_backtrace(void) {
  const gasnett_backtrace_type_t *u = &gasnett_backtrace_user;
  return (u && u->name && u->fnp) ? u : NULL;
}

void gasnett_backtrace_init(const char *exename) {
  GEXTI_TOOLS_LOCK();
  snprintf(gexti_tools.backtrace_exe, sizeof gexti_tools.backtrace_exe, "%s",
           exename ? exename : "");
  GEXTI_TOOLS_UNLOCK();
}

static int gexti_backtrace_execinfo(int fd) {
  void *frames[128];
  int n = backtrace(frames, (int)(sizeof frames / sizeof frames[0]));
  if (n <= 0) return 1;
  dprintf(fd, "backtrace of process %d (%d frames):\n", (int)getpid(), n);
  backtrace_symbols_fd(frames, n, fd);
  return 0;
}

int gasnett_print_backtrace(int fd) {
  const gasnett_backtrace_type_t *user = gexti_user_backtrace();
  char list[256];
  const char *env = getenv("GASNET_BACKTRACE_TYPE");
  if (env && *env)
    snprintf(list, sizeof list, "%s", env);
  else
    snprintf(list, sizeof list, "%s%sEXECINFO", user ? user->name : "", user ? "," : "");

  char *save = NULL;
  for (char *tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    if (user && !strcasecmp(tok, user->name)) {
      if (user->fnp(fd) == 0) return 0;
    } else if (!strcasecmp(tok, "EXECINFO")) {
      if (gexti_backtrace_execinfo(fd) == 0) return 0;
    }
  }
  return 1;
}

int gexti_print_backtrace_if_requested(int fd) {
  const char *s = getenv("GASNET_BACKTRACE");
  if (!s || gexti_parse_yesno(s) != 1) return 1;
  return gasnett_print_backtrace(fd);
}

/* Waits until a debugger clears *flag (a wait on a person: it blocks in
 * short sleeps). */
void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  fflush(NULL);
  fprintf(stderr,
          "process %d on %s is frozen for a debugger: attach (gdb -p %d) and set %s = 0 "
          "to continue\n",
          (int)getpid(), host, (int)getpid(), flagsymname);
  fflush(stderr);
  while (*flag) {
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

void gasnett_freezeForDebuggerErr(void) {
  const char *s = getenv("GASNET_FREEZE_ON_ERROR");
  if (!s || gexti_parse_yesno(s) != 1) return;
  gexti_tools.frozen = 1;
  gasnett_freezeForDebuggerNow(&gexti_tools.frozen, "gexti_tools.frozen");
}

static void gexti_fatal_vprint(const char *func, const char *file, int line, const char *fmt,
                               va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  fflush(NULL);
  if (file)
    fprintf(stderr, "*** FATAL ERROR (process %d): %s\n    at %s (%s:%d)\n", (int)getpid(), msg,
            func && *func ? func : "?", file, line);
  else
    fprintf(stderr, "*** FATAL ERROR (process %d): %s\n", (int)getpid(), msg);
  fflush(stderr);
}

#ifdef GEXI_BUILDING_LIBRARY /* built into libgex: core/foreign_signals.c */
void gexi_reset_foreign_fatal_handlers(void);
#endif

static void gexti_fatal_finish(void) GASNETT_NORETURN;
static void gexti_fatal_finish(void) {
  int (*hook)(int) = gexti_tools.print_backtrace_ifenabled;
  if (hook) hook(STDERR_FILENO);
  gasnett_freezeForDebuggerErr();
  fflush(NULL);
#ifdef GEXI_BUILDING_LIBRARY
  gexi_reset_foreign_fatal_handlers();
#endif
  abort();
}

void gexti_fatalerror_at(const char *func, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gexti_fatal_vprint(func, file, line, fmt, ap);
  va_end(ap);
  gexti_fatal_finish();
}

void gasnett_fatalerror_nopos(const char *msg, ...) {
  va_list ap;
  va_start(ap, msg);
  gexti_fatal_vprint(NULL, NULL, 0, msg, ap);
  va_end(ap);
  gexti_fatal_finish();
}

void gexti_pthread_failed(const char *call, int rc) {
  gasnett_fatalerror_nopos("%s failed: %s (%d)", call, strerror(rc), rc);
}

void gasnett_killmyprocess(int exitcode) { _exit(exitcode); }

char *gexti_current_loc(const char *func, const char *file, int line) {
  size_t n = strlen(func) + strlen(file) + 32;
  char *s = (char *)malloc(n);
  if (s) snprintf(s, n, "%s at %s:%d", func, file, line);
  return s;
}

/* src/tools/tools_ctx.h -- the GASNet tools library's process state.
 *
 * Everything the tools library remembers lives in one structure,
 * gexti_tools.  The tools depend on nothing else in libgex: they are built
 * into libgex and, on their own, into libgasnet_tools-seq.a and
 * libgasnet_tools-par.a (the latter with GASNETT_THREAD_SAFE=1).
 */
#ifndef GEX_TOOLS_CTX_H
#define GEX_TOOLS_CTX_H

#include <gasnet_tools.h>

#include <limits.h>
#include <pthread.h>

/* One variable already reported under GASNET_VERBOSEENV. */
struct gexti_env_seen {
  struct gexti_env_seen *next;
  char key[]; /* NUL-terminated */
};

struct gexti_tools_context {
  /* Guards every field below that is written after start-up (the lazily
   * computed values and the list of reported variables).  A real mutex in
   * the thread-safe build; never contended in the single-threaded one. */
  pthread_mutex_t lock;

  /* GASNET_VERBOSEENV: -1 until first read, then 0 or 1. */
  int verboseenv;
  struct gexti_env_seen *env_seen;

  /* Timer measurements, computed once (timer_measured set last). */
  int timer_measured;
  double tick_granularity_us;
  double tick_overhead_us;

  /* System facts cached on first use ("" when unknown). */
  int exe_name_known;
  char exe_name[PATH_MAX];
  int hostname_known;
  char hostname[256];

  /* Backtraces: the hook fatal errors call, and what gasnett_backtrace_init
   * was told. */
  int (*print_backtrace_ifenabled)(int fd);
  char backtrace_exe[PATH_MAX];
  /* Set while frozen by GASNET_FREEZE_ON_ERROR; a debugger clears it. */
  volatile int frozen;
};

extern struct gexti_tools_context gexti_tools;

/* The lock in the thread-safe build, nothing in the single-threaded one. */
#if GEXTI_THREAD_SAFE
  #define GEXTI_TOOLS_LOCK() pthread_mutex_lock(&gexti_tools.lock)
  #define GEXTI_TOOLS_UNLOCK() pthread_mutex_unlock(&gexti_tools.lock)
#else
  #define GEXTI_TOOLS_LOCK() ((void)0)
  #define GEXTI_TOOLS_UNLOCK() ((void)0)
#endif

/* tools_env.c: a yes/no word (1, 0, or -1 when it is neither). */
int gexti_parse_yesno(const char *s);
/* tools_error.c: print a backtrace if GASNET_BACKTRACE asks for one. */
int gexti_print_backtrace_if_requested(int fd);

#endif /* GEX_TOOLS_CTX_H */

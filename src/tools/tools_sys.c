/* src/tools/tools_sys.c -- facts about the system and the process, and
 * small process-wide actions (affinity, resource limits, signals, streams).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CPU_SET and sched_setaffinity, MAP_ANONYMOUS */
#endif
#include "tools_ctx.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

const char *gasnett_release_version_str(void) {
  return GEXTI_STR(GASNETT_RELEASE_VERSION_MAJOR) "." GEXTI_STR(
      GASNETT_RELEASE_VERSION_MINOR) "." GEXTI_STR(GASNETT_RELEASE_VERSION_PATCH);
}

uint64_t gasnett_release_version(void) {
  return (uint64_t)GASNETT_RELEASE_VERSION_MAJOR * 1000000u +
         (uint64_t)GASNETT_RELEASE_VERSION_MINOR * 10000u + GASNETT_RELEASE_VERSION_PATCH;
}

const char *gasnett_performance_warning_str(void) { return ""; }

const char *gasnett_gethostname(void) {
  GEXTI_TOOLS_LOCK();
  if (!gexti_tools.hostname_known) {
    if (gethostname(gexti_tools.hostname, sizeof gexti_tools.hostname - 1))
      strcpy(gexti_tools.hostname, "");
    gexti_tools.hostname[sizeof gexti_tools.hostname - 1] = '\0';
    gexti_tools.hostname_known = 1;
  }
  GEXTI_TOOLS_UNLOCK();
  return gexti_tools.hostname;
}

const char *gasnett_exe_name(void) {
  GEXTI_TOOLS_LOCK();
  if (!gexti_tools.exe_name_known) {
    ssize_t n = readlink("/proc/self/exe", gexti_tools.exe_name, sizeof gexti_tools.exe_name - 1);
    gexti_tools.exe_name[n > 0 ? n : 0] = '\0';
    gexti_tools.exe_name_known = 1;
  }
  GEXTI_TOOLS_UNLOCK();
  return gexti_tools.exe_name;
}

int gasnett_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 0;
}

uint64_t gasnett_getPhysMemSz(int failureIsFatal) {
  long pages = sysconf(_SC_PHYS_PAGES), pagesz = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pagesz > 0) return (uint64_t)pages * (uint64_t)pagesz;
  if (failureIsFatal) gasnett_fatalerror_nopos("gasnett_getPhysMemSz: cannot find the memory size");
  return 0;
}

int gasnett_isLittleEndian(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

void *gasnett_mmap(uintptr_t size) {
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    gasnett_fatalerror_nopos("gasnett_mmap(%" PRIuPTR "): %s", size, strerror(errno));
  return p;
}

/* Pins the calling thread to processor rank mod (processors online). */
int gasnett_set_affinity(int rank) {
  int ncpu = gasnett_cpu_count();
  if (ncpu <= 0 || ncpu > CPU_SETSIZE) return -1;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET((unsigned)((rank % ncpu + ncpu) % ncpu), &set);
  return sched_setaffinity(0, sizeof set, &set) ? -1 : 0;
}

void gasnett_sched_yield(void) { sched_yield(); }

void gasnett_flush_streams(void) {
  fflush(stdout);
  fflush(stderr);
}

void gasnett_close_streams(void) {
  fclose(stdin);
  fclose(stdout);
  fclose(stderr);
}

gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fp;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (sigaction(sigtocatch, &sa, &old))
    gasnett_fatalerror_nopos("gasnett_reghandler(%d): %s", sigtocatch, strerror(errno));
  return old.sa_handler;
}

/* Raises the soft limit res to its hard limit, unless GASNET_MAXIMIZE_<desc>
 * is false.  Non-zero on success (including when told not to). */
int gasnett_maximize_rlimit(int res, const char *lim_desc) {
  char var[128];
  snprintf(var, sizeof var, "GASNET_MAXIMIZE_%s", lim_desc);
  if (!gasnett_getenv_yesno_withdefault(var, 1)) return 1;
  struct rlimit lim;
  if (getrlimit(res, &lim)) return 0;
  if (lim.rlim_cur == lim.rlim_max) return 1;
  lim.rlim_cur = lim.rlim_max;
  return setrlimit(res, &lim) == 0;
}

int gasnett_maximize_rlimits(void) {
  int ok = 1;
  ok &= gasnett_maximize_rlimit(RLIMIT_CPU, "RLIMIT_CPU");
  ok &= gasnett_maximize_rlimit(RLIMIT_DATA, "RLIMIT_DATA");
  ok &= gasnett_maximize_rlimit(RLIMIT_RSS, "RLIMIT_RSS");
  ok &= gasnett_maximize_rlimit(RLIMIT_STACK, "RLIMIT_STACK");
  ok &= gasnett_maximize_rlimit(RLIMIT_AS, "RLIMIT_AS");
  return ok;
}

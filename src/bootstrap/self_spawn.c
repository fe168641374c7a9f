/* bootstrap/self_spawn.c -- GASNET_PSHM_NODES=N for a process of the smp
 * identity started alone (no gexrun, no PMIx launcher): the process becomes
 * the launcher of an N-rank job on this host, as a program of the
 * reference's smp conduit does.
 *
 * It replaces itself (execv) by
 *
 *     gexrun -n N -- <this executable> <its original arguments>
 *
 * so the job is exactly one started by gexrun (or gasnetrun_smp): the ranks
 * are gexrun's children and are supervised by it, the process the user
 * started (now gexrun, same pid) ends last, and its exit status is the
 * job's.  The ranks find GEX_BOOT_FD and take the launcher bootstrap, so
 * GASNET_PSHM_NODES, still in their environment, is not acted on again.
 *
 * gexrun is looked for, in this order: $GEXRUN; next to the library file
 * this code was loaded from, as installed (<libdir>/GEXI_LIB_TO_BIN/gexrun)
 * and as built (<libdir>/bin/gexrun, the CMake build tree); the configured
 * install directory (GEXI_INSTALL_BINDIR); then PATH.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "core/context.h"

#ifndef GEXI_LIB_TO_BIN
#define GEXI_LIB_TO_BIN "../bin"
#endif

static int executable(const char *path) { return access(path, X_OK) == 0; }

/* out = dir + "/" + rel, without "." and ".." if it exists; whether that
 * is an executable. */
static int candidate(char *out, size_t len, const char *dir, const char *rel) {
  char path[PATH_MAX], real[PATH_MAX];
  int n = snprintf(path, sizeof path, "%s/%s", dir, rel);
  if (n <= 0 || (size_t)n >= sizeof path || !executable(path)) return 0;
  const char *use = realpath(path, real) ? real : path;
  if (strlen(use) >= len) return 0;
  strcpy(out, use);
  return 1;
}

/* The directory of the file (shared library, or the executable for a
 * static link) holding this code: the /proc/self/maps entry whose range
 * contains the address of this function.  Empty if not found. */
static void library_dir(char *out, size_t len) {
  out[0] = 0;
  const uintptr_t here = (uintptr_t)&library_dir;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return;
  char line[PATH_MAX + 256];
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    int at = 0;
    if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &at) < 2 || at == 0) continue;
    if (here < lo || here >= hi || line[at] != '/') continue;
    line[strcspn(line, "\n")] = 0;
    char *slash = strrchr(line + at, '/');
    *slash = 0;
    snprintf(out, len, "%s", line + at);
    break;
  }
  fclose(f);
}

/* Fills 'out' with the gexrun to run, or fails the process. */
static void find_gexrun(char *out, size_t len) {
  const char *env = getenv("GEXRUN");
  if (env && *env) {
    if (!executable(env)) gexi_fatal("GASNET_PSHM_NODES: GEXRUN='%s' is not an executable", env);
    snprintf(out, len, "%s", env);
    return;
  }
  char dir[PATH_MAX];
  library_dir(dir, sizeof dir);
  if (dir[0] && (candidate(out, len, dir, GEXI_LIB_TO_BIN "/gexrun") ||
                 candidate(out, len, dir, "bin/gexrun")))
    return;
#ifdef GEXI_INSTALL_BINDIR
  if (candidate(out, len, GEXI_INSTALL_BINDIR, "gexrun")) return;
#endif
  const char *path = getenv("PATH");
  for (const char *p = path ? path : ""; *p;) {
    size_t n = strcspn(p, ":");
    char entry[PATH_MAX];
    if (n > 0 && n < sizeof entry) {
      memcpy(entry, p, n);
      entry[n] = 0;
      if (candidate(out, len, entry, "gexrun")) return;
    }
    p += n;
    if (*p == ':') p++;
  }
  gexi_fatal("GASNET_PSHM_NODES: cannot find gexrun, which starts the ranks (not next to the "
             "library%s%s, not in PATH); set GEXRUN to its path",
             dir[0] ? " in " : "", dir);
}

/* The original command line, from /proc/self/cmdline (what the client does
 * to argc/argv does not change it); argv[0] is replaced by the path of
 * this executable.  NULL-terminated, after 'skip' empty slots that the
 * caller fills. */
static char **original_args(size_t skip) {
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (!f) gexi_fatal("GASNET_PSHM_NODES: cannot read /proc/self/cmdline");
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  if (!buf) gexi_fatal("out of memory");
  size_t r;
  while ((r = fread(buf + len, 1, cap - len, f)) > 0) {
    len += r;
    if (len == cap) {
      char *more = realloc(buf, cap *= 2);
      if (!more) gexi_fatal("out of memory");
      buf = more;
    }
  }
  fclose(f);
  size_t nargs = 0;
  for (size_t i = 0; i < len; i++) nargs += buf[i] == 0;
  char **argv = calloc(skip + nargs + 2, sizeof *argv);
  char *exe = malloc(PATH_MAX);
  if (!argv || !exe) gexi_fatal("out of memory");
  ssize_t n = readlink("/proc/self/exe", exe, PATH_MAX - 1);
  if (n <= 0) gexi_fatal("GASNET_PSHM_NODES: cannot find the path of this executable");
  exe[n] = 0;
  size_t k = skip;
  argv[k++] = exe;
  size_t start = strlen(buf) + 1; /* skip the original argv[0] */
  for (size_t i = start; i < len; i += strlen(buf + i) + 1) argv[k++] = buf + i;
  argv[k] = NULL;
  return argv;
}

void gexi_bootstrap_self_spawn(void) {
  /* a whole number of ranks; unset, or 1: a job of one rank (this process) */
  unsigned long n = (unsigned long)gexi_env_count("GASNET_PSHM_NODES", 1, 1, GASNET_MAXNODES);
  if (n == 1) return;

  char gexrun[PATH_MAX];
  find_gexrun(gexrun, sizeof gexrun);
  char count[32];
  snprintf(count, sizeof count, "%lu", n);
  char **argv = original_args(4);
  argv[0] = gexrun;
  argv[1] = "-n";
  argv[2] = count;
  argv[3] = "--";

  if (gexi_env_switch("GASNET_SPAWN_VERBOSE", 0)) {
    fprintf(stderr, "libgex: GASNET_PSHM_NODES=%lu: running", n);
    for (char **a = argv; *a; a++) fprintf(stderr, " %s", *a);
    fprintf(stderr, "\n");
    setenv("GEXRUN_VERBOSE", "1", 1);
  }
  /* What the program wrote before gex_Client_Init is written once here;
   * each rank then runs the program from its start. */
  fflush(NULL);
  execv(gexrun, argv);
  gexi_fatal("GASNET_PSHM_NODES: cannot run '%s': %s", gexrun, strerror(errno));
}

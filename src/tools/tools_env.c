/* src/tools/tools_env.c -- environment queries, number parsing and
 * formatting, and the GASNET_VERBOSEENV report.
 *
 * Report format (stderr, once per variable and process):
 *     GASNET_VERBOSEENV: NAME = value (default)
 *     GASNET_VERBOSEENV: NAME = value (set)
 * Under a launcher that numbers processes (GEX_RANK from gexrun, PMIX_RANK
 * from a PMIx launcher) only the process numbered 0 reports, so a job
 * prints each line once.
 */
#include "tools_ctx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *gasnett_getenv(const char *keyname) { return getenv(keyname); }

void gasnett_setenv(const char *key, const char *value) {
  if (setenv(key, value, 1)) gasnett_fatalerror_nopos("gasnett_setenv(%s): cannot set", key);
}

void gasnett_unsetenv(const char *key) {
  if (unsetenv(key)) gasnett_fatalerror_nopos("gasnett_unsetenv(%s): cannot unset", key);
}

int gexti_parse_yesno(const char *s) {
  static const char *const yes[] = {"1", "y", "yes"};
  static const char *const no[] = {"0", "n", "no"};
  while (isspace((unsigned char)*s)) s++;
  size_t len = strlen(s);
  while (len && isspace((unsigned char)s[len - 1])) len--;
  for (size_t i = 0; i < 3; i++) {
    if (len == strlen(yes[i]) && !strncasecmp(s, yes[i], len)) return 1;
    if (len == strlen(no[i]) && !strncasecmp(s, no[i], len)) return 0;
  }
  return -1;
}

/* Is this process the one that reports (see the top of the file)? */
static int gexti_is_reporting_process(void) {
  static const char *const rank_vars[] = {"GEX_RANK", "PMIX_RANK"};
  for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
    const char *r = getenv(rank_vars[i]);
    if (r && *r) return strtol(r, NULL, 10) == 0;
  }
  return 1;
}

int gasnett_verboseenv(void) {
  int v = __atomic_load_n(&gexti_tools.verboseenv, __ATOMIC_ACQUIRE);
  if (v < 0) {
    const char *s = getenv("GASNET_VERBOSEENV");
    v = (s && gexti_parse_yesno(s) == 1 && gexti_is_reporting_process()) ? 1 : 0;
    __atomic_store_n(&gexti_tools.verboseenv, v, __ATOMIC_RELEASE);
  }
  return v;
}

/* Prints one report line unless key was reported before. */
static void gexti_env_report(const char *key, const char *value, int is_dflt) {
  if (!gasnett_verboseenv()) return;
  GEXTI_TOOLS_LOCK();
  struct gexti_env_seen *e = gexti_tools.env_seen;
  while (e && strcmp(e->key, key)) e = e->next;
  if (!e) {
    size_t klen = strlen(key);
    e = (struct gexti_env_seen *)malloc(sizeof *e + klen + 1);
    if (e) {
      memcpy(e->key, key, klen + 1);
      e->next = gexti_tools.env_seen;
      gexti_tools.env_seen = e;
    }
    fflush(stdout);
    fprintf(stderr, "GASNET_VERBOSEENV: %s = %s (%s)\n", key, value, is_dflt ? "default" : "set");
    fflush(stderr);
  }
  GEXTI_TOOLS_UNLOCK();
}

void gasnett_envstr_display(const char *key, const char *val, int is_dflt) {
  gexti_env_report(key, val ? val : "(null)", is_dflt);
}

void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size) {
  char buf[64];
  gexti_env_report(key, gasnett_format_number(val, buf, sizeof buf, is_mem_size), is_dflt);
}

void gasnett_envdbl_display(const char *key, double val, int is_dflt) {
  char buf[64];
  snprintf(buf, sizeof buf, "%g", val);
  gexti_env_report(key, buf, is_dflt);
}

char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval) {
  const char *val = getenv(keyname);
  int is_dflt = (val == NULL);
  if (is_dflt) val = defaultval;
  gasnett_envstr_display(keyname, val, is_dflt);
  return (char *)val;
}

int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval) {
  const char *s = getenv(keyname);
  int val = defaultval ? 1 : 0;
  if (s) {
    val = gexti_parse_yesno(s);
    if (val < 0)
      gasnett_fatalerror_nopos("environment variable %s='%s' is not a yes/no value "
                               "(1, y, yes or 0, n, no, in any case)", keyname, s);
  }
  gexti_env_report(keyname, val ? "YES" : "NO", s == NULL);
  return val;
}

/* ---- numbers --------------------------------------------------------------------- */

/* Units of memory sizes, by their first letter: B and the powers of 1024. */
static int gexti_unit_shift(char c) {
  switch (toupper((unsigned char)c)) {
    case 'B': return 0;
    case 'K': return 10;
    case 'M': return 20;
    case 'G': return 30;
    case 'T': return 40;
    case 'P': return 50;
    case 'E': return 60;
    default: return -1;
  }
}

/* Parses str (grammar in gasnet_tools.h) into *out.  Returns NULL on
 * success, else a short reason. */
static const char *gexti_parse_number(const char *str, uint64_t mem_size_multiplier, int64_t *out) {
  const char *s = str;
  int negative = 0;
  uint64_t whole = 0;
  long double fraction = 0; /* the digits after a decimal point, as a value < 1 */
  int digits = 0;

  while (isspace((unsigned char)*s)) s++;
  if (*s == '+' || *s == '-') negative = (*s++ == '-');
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
    for (s += 2; isxdigit((unsigned char)*s); s++, digits++) {
      int d = isdigit((unsigned char)*s) ? *s - '0' : toupper((unsigned char)*s) - 'A' + 10;
      if (whole > (UINT64_MAX >> 4)) return "value too large";
      whole = (whole << 4) | (uint64_t)d;
    }
  } else {
    for (; isdigit((unsigned char)*s); s++, digits++) {
      if (__builtin_mul_overflow(whole, 10u, &whole) ||
          __builtin_add_overflow(whole, (uint64_t)(*s - '0'), &whole))
        return "value too large";
    }
    if (*s == '.' && mem_size_multiplier) {
      long double scale = 0.1L;
      for (s++; isdigit((unsigned char)*s); s++, digits++, scale /= 10)
        fraction += scale * (*s - '0');
    }
  }
  if (!digits) return "no number";
  while (isspace((unsigned char)*s)) s++;

  uint64_t unit = 1;
  if (mem_size_multiplier) {
    unit = mem_size_multiplier;
    if (*s) {
      int shift = gexti_unit_shift(*s);
      if (shift < 0) return "unknown unit (B, K/KB, M/MB, G/GB, T/TB, P/PB, E/EB)";
      s++;
      if (shift > 0 && (*s == 'b' || *s == 'B')) s++;
      unit = (uint64_t)1 << shift;
    }
    while (isspace((unsigned char)*s)) s++;
  }
  if (*s) return mem_size_multiplier ? "unexpected text after the unit" : "not an integer";

  uint64_t magnitude;
  if (__builtin_mul_overflow(whole, unit, &magnitude)) return "value too large";
  if (fraction > 0) {
    long double extra = fraction * (long double)unit + 0.5L; /* rounded to nearest */
    if (extra >= 18446744073709551616.0L ||
        __builtin_add_overflow(magnitude, (uint64_t)extra, &magnitude))
      return "value too large";
  }
  if (negative) {
    if (magnitude > (uint64_t)INT64_MAX + 1) return "value too large";
    *out = magnitude == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)magnitude;
  } else {
    if (magnitude > (uint64_t)INT64_MAX) return "value too large";
    *out = (int64_t)magnitude;
  }
  return NULL;
}

int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier) {
  int64_t v = 0;
  const char *why = gexti_parse_number(str, mem_size_multiplier, &v);
  if (why)
    gasnett_fatalerror_nopos("gasnett_parse_int: cannot read '%s' as %s: %s", str,
                             mem_size_multiplier ? "a memory size" : "an integer", why);
  return v;
}

int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                       uint64_t mem_size_multiplier) {
  const char *s = getenv(keyname);
  int64_t v = defaultval;
  if (s) {
    const char *why = gexti_parse_number(s, mem_size_multiplier, &v);
    if (why)
      gasnett_fatalerror_nopos("environment variable %s='%s' is not %s: %s", keyname, s,
                               mem_size_multiplier ? "a memory size" : "an integer", why);
  }
  gasnett_envint_display(keyname, v, s == NULL, mem_size_multiplier != 0);
  return v;
}

/* A decimal number (anything strtod reads) or a fraction "a/b". */
double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval) {
  const char *s = getenv(keyname);
  double v = defaultval;
  if (s) {
    char *end;
    v = strtod(s, &end);
    int ok = (end != s);
    while (ok && isspace((unsigned char)*end)) end++;
    if (ok && *end == '/') {
      const char *den_start = end + 1;
      double den = strtod(den_start, &end);
      ok = (end != den_start && den != 0);
      v /= den;
      while (ok && isspace((unsigned char)*end)) end++;
    }
    if (!ok || *end)
      gasnett_fatalerror_nopos("environment variable %s='%s' is not a number or a fraction a/b",
                               keyname, s);
  }
  gasnett_envdbl_display(keyname, v, s == NULL);
  return v;
}

/* Integers in decimal.  Memory sizes in the largest unit not above them:
 * a whole number of it ("4 KB", "3 GB") reads back exactly with
 * gasnett_parse_int; anything else gets two decimals ("1.50 KB" for 1536),
 * readable but rounded. */
char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size) {
  static const char *const units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  if (!is_mem_size) {
    snprintf(buf, bufsz, "%" PRId64, val);
    return buf;
  }
  uint64_t mag = val < 0 ? (uint64_t)0 - (uint64_t)val : (uint64_t)val;
  const char *sign = val < 0 ? "-" : "";
  int k = 0;
  while (k < 6 && mag >= ((uint64_t)1 << (10 * (k + 1)))) k++;
  uint64_t unit = (uint64_t)1 << (10 * k);
  if (mag % unit == 0)
    snprintf(buf, bufsz, "%s%" PRIu64 " %s", sign, mag / unit, units[k]);
  else
    snprintf(buf, bufsz, "%s%.2f %s", sign, (double)mag / (double)unit, units[k]);
  return buf;
}

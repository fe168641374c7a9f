/* core/env_parse.c -- see env_parse.h. */
#include "core/env_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int fail(char *why, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, len, fmt, ap);
  va_end(ap);
  return -1;
}

static int range_fail(char *why, size_t len, uint64_t min, uint64_t max) {
  if (max == UINT64_MAX && min == 0) return fail(why, len, "too large");
  if (max == UINT64_MAX)
    return fail(why, len, "must be at least %llu", (unsigned long long)min);
  return fail(why, len, "must be between %llu and %llu", (unsigned long long)min,
              (unsigned long long)max);
}

/* Leading digits of s into *v; *end after them.  -1 on overflow. */
static int digits(const char *s, uint64_t *v, const char **end) {
  uint64_t x = 0;
  for (; is_digit(*s); s++) {
    const unsigned d = (unsigned)(*s - '0');
    if (x > (UINT64_MAX - d) / 10) return -1;
    x = x * 10 + d;
  }
  *v = x;
  *end = s;
  return 0;
}

int gexi_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                     size_t len) {
  if (*s == '-') return fail(why, len, "negative values are not allowed");
  if (!is_digit(*s)) return fail(why, len, "not a whole number");
  uint64_t v;
  const char *end;
  if (digits(s, &v, &end) != 0) return range_fail(why, len, min, max);
  if (*end) return fail(why, len, "not a whole number: unexpected '%s' after the digits", end);
  if (v < min || v > max) return range_fail(why, len, min, max);
  *out = v;
  return 0;
}

int gexi_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                    size_t len) {
  if (*s == '-') return fail(why, len, "negative values are not allowed");
  if (!is_digit(*s)) return fail(why, len, "not a size (digits with an optional K, M, G or T)");
  uint64_t whole;
  const char *p;
  if (digits(s, &whole, &p) != 0) return range_fail(why, len, min, max);
  /* An optional fraction, kept as digits until the unit is known. */
  const char *frac = NULL;
  size_t nfrac = 0;
  if (*p == '.') {
    frac = ++p;
    while (is_digit(*p)) p++;
    nfrac = (size_t)(p - frac);
    if (!nfrac) return fail(why, len, "no digits after the decimal point");
  }
  uint64_t unit = 1;
  switch (*p) {
    case 'k': case 'K': unit = (uint64_t)1 << 10; p++; break;
    case 'm': case 'M': unit = (uint64_t)1 << 20; p++; break;
    case 'g': case 'G': unit = (uint64_t)1 << 30; p++; break;
    case 't': case 'T': unit = (uint64_t)1 << 40; p++; break;
    default: break;
  }
  if (*p == 'b' || *p == 'B') p++;
  if (*p)
    return fail(why, len, "not a size: unexpected '%s' (digits with an optional K, M, G or T)", p);
  if (frac && unit == 1) return fail(why, len, "a size with a decimal point needs a unit (K, M, G or T)");
  if (whole > UINT64_MAX / unit) return range_fail(why, len, min, max);
  uint64_t v = whole * unit;
  if (frac) { /* rounded down: the fraction of one unit, digit by digit */
    uint64_t part = 0, scale = unit;
    for (size_t i = 0; i < nfrac && scale; i++) {
      part += (uint64_t)(frac[i] - '0') * scale / 10;
      scale /= 10; /* units are at most 2^40: no overflow above */
    }
    if (v > UINT64_MAX - part) return range_fail(why, len, min, max);
    v += part;
  }
  if (v < min || v > max) return range_fail(why, len, min, max);
  *out = v;
  return 0;
}

int gexi_parse_switch(const char *s, int *out, char *why, size_t len) {
  static const char *const yes[] = {"1", "yes", "y", "true", "on"};
  static const char *const no[] = {"0", "no", "n", "false", "off"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (strcasecmp(s, yes[i]) == 0) return *out = 1, 0;
    if (strcasecmp(s, no[i]) == 0) return *out = 0, 0;
  }
  return fail(why, len, "not a yes/no value (1/0, yes/no, y/n, true/false, on/off)");
}

int gexi_parse_segsize(const char *s, struct gexi_segsize *out, char *why, size_t len) {
  char spec[64];
  const char *slash = strchr(s, '/');
  const size_t n = slash ? (size_t)(slash - s) : strlen(s);
  if (n >= sizeof spec) return fail(why, len, "too long");
  memcpy(spec, s, n);
  spec[n] = 0;
  struct gexi_segsize r = {0, 0.0, 0, 0};
  if (slash) {
    const char *sfx = slash + 1;
    if (!strcasecmp(sfx, "H")) r.per_host = 1;
    else if (*sfx && strcasecmp(sfx, "P"))
      return fail(why, len, "unknown suffix '/%s' (expected /P for each process or /H for the "
                  "host)", sfx);
  }
  if (!*spec) return fail(why, len, "no size before the '/'");
  /* Digits around one decimal point and nothing else: a fraction. */
  size_t ndig = strspn(spec, "0123456789");
  if (spec[ndig] == '.' && spec[ndig + 1 + strspn(spec + ndig + 1, "0123456789")] == 0) {
    const char *f = spec + ndig + 1;
    if (!ndig && !*f) return fail(why, len, "not a number");
    double v = 0.0, scale = 1.0;
    for (size_t i = 0; i < ndig; i++) v = v * 10.0 + (spec[i] - '0');
    for (; *f; f++) v += (*f - '0') * (scale /= 10.0);
    if (!(v > 0.0 && v <= 1.0))
      return fail(why, len, "a fraction of physical memory must be above 0 and at most 1");
    r.is_fraction = 1;
    r.fraction = v;
  } else if (gexi_parse_size(spec, 1, UINT64_MAX, &r.bytes, why, len) != 0) {
    return -1;
  }
  *out = r;
  return 0;
}

int gexi_parse_seconds(const char *s, uint64_t max, uint64_t *ms, char *why, size_t len) {
  if (*s == '-') return fail(why, len, "negative values are not allowed");
  uint64_t whole = 0;
  const char *p = s;
  if (is_digit(*p) && (digits(s, &whole, &p) != 0 || whole > max))
    return fail(why, len, "at most %llu seconds", (unsigned long long)max);
  uint64_t frac_ms = 0;
  if (*p == '.') {
    const char *f = ++p;
    for (uint64_t scale = 100; is_digit(*p); p++, scale /= 10) frac_ms += (uint64_t)(*p - '0') * scale;
    if (p == f) return fail(why, len, "no digits after the decimal point");
  } else if (p == s) {
    return fail(why, len, "not a number of seconds (digits with an optional decimal fraction)");
  }
  if (*p)
    return fail(why, len, "not a number of seconds: unexpected '%s' (digits with an optional "
                "decimal fraction)", p);
  if (whole * 1000 + frac_ms > max * 1000)
    return fail(why, len, "at most %llu seconds", (unsigned long long)max);
  *ms = whole * 1000 + frac_ms;
  return 0;
}

const char *const gexi_exit_timeout_vars[4] = {"GASNET_EXITTIMEOUT", "GASNET_EXITTIMEOUT_MIN",
                                                "GASNET_EXITTIMEOUT_MAX",
                                                "GASNET_EXITTIMEOUT_FACTOR"};

int gexi_exit_timeout(const char *const val[4], uint64_t ranks, uint64_t *ms, int *bad, char *why,
                      size_t len) {
  uint64_t v[4] = {0, GEXI_EXIT_TIMEOUT_MIN_MS, GEXI_EXIT_TIMEOUT_MAX_MS,
                   GEXI_EXIT_TIMEOUT_FACTOR_MS};
  for (int i = 0; i < 4; i++)
    if (val[i] && gexi_parse_seconds(val[i], 1000000, &v[i], why, len) != 0) {
      *bad = i;
      return -1;
    }
  if (val[0]) {
    *ms = v[0];
    return 0;
  }
  /* (at most 10^9 ms per second given, times at most 2^32 ranks: no overflow) */
  const uint64_t t = v[1] + ranks * v[3];
  *ms = t < v[2] ? t : v[2];
  return 0;
}

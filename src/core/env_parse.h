/* core/env_parse.h -- the grammar of every value libgex and gexrun read from
 * the environment.
 *
 * Pure functions: they read no variable and keep no state, so the library
 * (core/env.c, which turns a bad value into one fatal line naming the
 * variable) and gexrun (which compiles this file too) parse alike.  Each
 * returns 0 and stores the value, or returns -1 and writes why the text is
 * not acceptable (one clause, no newline) into why[len].  The text is never
 * NULL or empty here: callers treat unset and empty alike, as "not given".
 */
#ifndef GEXI_CORE_ENV_PARSE_H
#define GEXI_CORE_ENV_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A count: decimal digits only (no sign, no blanks, no suffix), in
 * [min, max]. */
int gexi_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                     size_t len);

/* A size in bytes: digits, optionally a decimal fraction, then optionally
 * one of K, M, G, T (powers of 1024, either case) and optionally B; a
 * fraction needs a unit ("1.5G"); the result is rounded down to whole
 * bytes and must lie in [min, max]. */
int gexi_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                    size_t len);

/* A yes/no switch: 1/0, yes/no, y/n, true/false, on/off, in any case. */
int gexi_parse_switch(const char *s, int *out, char *why, size_t len);

/* GASNET_MAX_SEGSIZE, with the reference implementation's grammar
 *   size_spec [ "/" [ "P" | "H" ] ]
 * where size_spec is a size as gexi_parse_size reads it (bytes, "4GB",
 * "512M") or a fraction of the host's physical memory with a decimal point
 * ("0.85", in (0, 1]).  "/P" (also no suffix, or an empty one): the limit
 * of each process; "/H": a limit for the whole host, shared by its
 * processes. */
struct gexi_segsize {
  int is_fraction; /* fraction of physical memory (else: bytes) */
  double fraction;
  uint64_t bytes;
  int per_host;    /* "/H" */
};
int gexi_parse_segsize(const char *s, struct gexi_segsize *out, char *why, size_t len);

/* A duration in seconds: digits with an optional decimal fraction ("2",
 * "0.25", ".5"; no sign, exponent or unit), at most 'max' seconds; stored
 * in whole milliseconds, rounded down. */
int gexi_parse_seconds(const char *s, uint64_t max, uint64_t *ms, char *why, size_t len);

/* The exit timeout (docs/gexrun.md, "How a job ends"): how long, after the
 * first rank of a job called gasnet_exit, every other rank has to reach
 * gasnet_exit before it is ended.  The reference's variables, in this
 * order (gexi_exit_timeout_vars): GASNET_EXITTIMEOUT, given, is the
 * timeout; otherwise it is
 *     min(GASNET_EXITTIMEOUT_MAX, GASNET_EXITTIMEOUT_MIN + ranks * GASNET_EXITTIMEOUT_FACTOR)
 * with the defaults below for those not given.  'val' holds their texts
 * (NULL: not given).  Returns 0 and the timeout in milliseconds, or -1 with
 * *bad set to the index of the variable that does not parse. */
#define GEXI_EXIT_TIMEOUT_MIN_MS 2000
#define GEXI_EXIT_TIMEOUT_MAX_MS 480000
#define GEXI_EXIT_TIMEOUT_FACTOR_MS 250
extern const char *const gexi_exit_timeout_vars[4];
int gexi_exit_timeout(const char *const val[4], uint64_t ranks, uint64_t *ms, int *bad, char *why,
                      size_t len);

#endif

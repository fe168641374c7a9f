/* bench_args.h -- the command line, size sweep and timer shared by the
 * benchmarks gex-testsmall, gex-testlarge, gex-testam and mpi-rma-bench.
 *
 * Plain C11 with no libgex or MPI dependency (the MPI benchmark uses it too);
 * everything is static so each program gets its own copy.
 *
 * Command line (the reference GASNet tests' convention, flags first):
 *
 *   PROG [-m] [-in|-out] [-minsz N] [-budget BYTES] ITERS MAXSZ [SECTIONS]
 *
 *   -m             sweep the sizes: powers of two from the program's first
 *                  size (1 or 16, or -minsz) up to MAXSZ, and MAXSZ itself;
 *                  without -m only MAXSZ is measured
 *   -in / -out     the local buffer is inside / outside (default) the local
 *                  segment (or MPI window)
 *   -minsz N       first size of a sweep (an extension; a power of two)
 *   -budget BYTES  an extension: at sizes where ITERS x size would move more
 *                  than BYTES, run BYTES / size iterations (at least 1)
 *                  instead, so that one command can sweep from 1 byte to
 *                  4 MiB in reasonable time
 *   ITERS          iterations per size (a positive integer)
 *   MAXSZ          the largest size in bytes; a K, M or G suffix multiplies
 *                  by 1024, 1024^2, 1024^3
 *   SECTIONS       letters choosing which parts to run (default: all)
 *
 * Programs without a size (gex-testbarrier, gex-testratomic) set no_size:
 * their command line is PROG [flags] ITERS [SECTIONS].
 *
 * Bad arguments (an unknown flag, a number that does not parse, an unknown
 * section letter, a size above the segment) are a usage error: the program
 * prints its usage line to stderr and exits with status 2.
 */
#ifndef GEX_BENCH_ARGS_H
#define GEX_BENCH_ARGS_H

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* A compiler barrier: on one node a Put or Get is an inline memcpy, and
 * without this the compiler could merge or drop the copies of a timing
 * loop.  It emits no instruction. */
#define BENCH_COMPILER_BARRIER() __asm__ volatile("" ::: "memory")

#define BENCH_MAX_ITERS 1000000000L

typedef struct {
  int sweep;              /* -m */
  int in_seg;             /* -in */
  long iters;             /* ITERS */
  size_t maxsz;           /* MAXSZ */
  size_t minsz;           /* first size of a sweep */
  size_t budget;          /* -budget; 0: none */
  int no_size;            /* the program takes no MAXSZ: ITERS [SECTIONS] */
  char sections[27];      /* the section letters chosen, NUL-terminated */
  const char *error;      /* set by bench_parse on a usage error */
  char error_buf[160];
} bench_opts_t;

/* Parses a size: decimal digits with an optional K/M/G suffix (powers of
 * 1024).  Returns 0 on success, -1 if it does not parse or overflows. */
static inline int bench_parse_size(const char *s, size_t *out) {
  if (!s || !isdigit((unsigned char)*s)) return -1;
  uint64_t v = 0;
  for (; isdigit((unsigned char)*s); s++) {
    if (v > (UINT64_MAX - 9) / 10) return -1;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  unsigned shift = 0;
  switch (*s) {
    case '\0': break;
    case 'k': case 'K': shift = 10; s++; break;
    case 'm': case 'M': shift = 20; s++; break;
    case 'g': case 'G': shift = 30; s++; break;
    default: return -1;
  }
  if (*s != '\0') return -1;
  if (shift && v > (UINT64_MAX >> shift)) return -1;
  v <<= shift;
  if (v > (uint64_t)SIZE_MAX / 4) return -1; /* leave room for buffer arithmetic */
  *out = (size_t)v;
  return 0;
}

/* Parses a positive iteration count (plain decimal). */
static inline int bench_parse_iters(const char *s, long *out) {
  size_t v;
  for (const char *p = s; *p; p++)
    if (!isdigit((unsigned char)*p)) return -1;
  if (bench_parse_size(s, &v) != 0 || v < 1 || v > (size_t)BENCH_MAX_ITERS) return -1;
  *out = (long)v;
  return 0;
}

static inline int bench_fail(bench_opts_t *o, const char *what, const char *arg) {
  snprintf(o->error_buf, sizeof o->error_buf, "%s%s%s%s", what, arg ? " '" : "", arg ? arg : "",
           arg ? "'" : "");
  o->error = o->error_buf;
  return -1;
}

/* Parses argv[1..argc-1] into *o.  'known' lists the program's section
 * letters; defaults come in through *o (iters, maxsz, minsz).  Returns 0, or
 * -1 with o->error set. */
static inline int bench_parse(int argc, char **argv, const char *known, bench_opts_t *o) {
  int pos = 0;
  o->sections[0] = '\0';
  o->error = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] == '-' && pos == 0 && a[1] != '\0' && !isdigit((unsigned char)a[1])) {
      if (!strcmp(a, "-m")) {
        o->sweep = 1;
      } else if (!strcmp(a, "-in")) {
        o->in_seg = 1;
      } else if (!strcmp(a, "-out")) {
        o->in_seg = 0;
      } else if (!strcmp(a, "-minsz") || !strcmp(a, "-budget")) {
        size_t v;
        if (i + 1 >= argc) return bench_fail(o, "missing value after", a);
        if (bench_parse_size(argv[i + 1], &v) != 0) return bench_fail(o, "bad number", argv[i + 1]);
        if (a[1] == 'm') {
          if (v < 1 || (v & (v - 1)) != 0) return bench_fail(o, "-minsz is not a power of two:", argv[i + 1]);
          o->minsz = v;
        } else {
          o->budget = v;
        }
        i++;
      } else {
        return bench_fail(o, "unknown flag", a);
      }
      continue;
    }
    if (pos == 1 && o->no_size) pos = 2; /* no MAXSZ: the second argument is SECTIONS */
    switch (pos++) {
      case 0:
        if (bench_parse_iters(a, &o->iters) != 0) return bench_fail(o, "bad ITERS", a);
        break;
      case 1:
        if (bench_parse_size(a, &o->maxsz) != 0 || o->maxsz < 1) return bench_fail(o, "bad MAXSZ", a);
        break;
      case 2: {
        size_t n = 0;
        for (const char *p = a; *p; p++) {
          char c = (char)toupper((unsigned char)*p);
          if (!strchr(known, c) || n >= sizeof o->sections - 1) return bench_fail(o, "bad SECTIONS", a);
          if (!strchr(o->sections, c)) {
            o->sections[n++] = c;
            o->sections[n] = '\0';
          }
        }
        if (n == 0) return bench_fail(o, "bad SECTIONS", a);
        break;
      }
      default:
        return bench_fail(o, "unexpected argument", a);
    }
  }
  if (o->sections[0] == '\0') {
    strncpy(o->sections, known, sizeof o->sections - 1);
    o->sections[sizeof o->sections - 1] = '\0';
  }
  return 0;
}

static inline int bench_section_on(const bench_opts_t *o, char letter) {
  return strchr(o->sections, letter) != NULL;
}

/* The sizes: with -m, first = minsz (clipped to 'cap'), then doubling up to
 * the smaller of MAXSZ and 'cap', which is always included; without -m only
 * that one size.  bench_next_size returns 0 after the last. */
static inline size_t bench_top_size(const bench_opts_t *o, size_t cap) {
  return o->maxsz < cap ? o->maxsz : cap;
}
static inline size_t bench_first_size(const bench_opts_t *o, size_t cap) {
  size_t top = bench_top_size(o, cap);
  return (o->sweep && o->minsz < top) ? o->minsz : top;
}
static inline size_t bench_next_size(const bench_opts_t *o, size_t cap, size_t sz) {
  size_t top = bench_top_size(o, cap);
  if (sz >= top) return 0;
  return sz * 2 > top ? top : sz * 2;
}

/* Iterations at size sz, after -budget. */
static inline long bench_iters_at(const bench_opts_t *o, size_t sz) {
  if (o->budget && sz > 0 && (size_t)o->iters > o->budget / sz) {
    size_t n = o->budget / sz;
    return n < 1 ? 1 : (long)n;
  }
  return o->iters;
}

/* Warm-up iterations before each timed loop. */
static inline long bench_warmup(long iters) {
  long w = iters / 10;
  if (w < 1) w = 1;
  if (w > 1000) w = 1000;
  return w;
}

static inline double bench_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Pairing of ranks: every even rank measures against the next odd one; a
 * job of one rank measures against itself (loopback); in an odd-sized job
 * the last rank has no partner and only joins the barriers. */
enum { BENCH_IDLE = 0, BENCH_SENDER = 1, BENCH_RECEIVER = 2 };
static inline int bench_pair(unsigned me, unsigned n, unsigned *peer) {
  if (n == 1) {
    *peer = 0;
    return BENCH_SENDER;
  }
  if (me % 2 == 0) {
    if (me + 1 >= n) {
      *peer = me;
      return BENCH_IDLE;
    }
    *peer = me + 1;
    return BENCH_SENDER;
  }
  *peer = me - 1;
  return BENCH_RECEIVER;
}

/* The data pattern for size sz: different for every size and section, so a
 * stale buffer cannot pass the check. */
static inline unsigned char bench_pattern(size_t sz, int section, size_t i) {
  return (unsigned char)((sz * 131u) ^ ((unsigned)section * 29u) ^ (i * 7u) ^ (i >> 8));
}
static inline void bench_fill(unsigned char *p, size_t n, size_t sz, int section) {
  for (size_t i = 0; i < n; i++) p[i] = bench_pattern(sz, section, i);
}
/* Returns the index of the first byte that differs from the pattern, or
 * (size_t)-1 if all match. */
static inline size_t bench_check(const unsigned char *p, size_t n, size_t sz, int section) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != bench_pattern(sz, section, i)) return i;
  return (size_t)-1;
}

/* The result line of the benchmarks without a size sweep of their own
 * (gex-testbarrier, gex-testratomic, gex-testcoll, gex-teststrided,
 * mpi-coll-bench):
 *   A:   0 -          8 byte :    1000 iters,      0.12345 us/op,      8100445.3 op/s,         61.801 MiB/s (what)
 * us/op is the time of one operation (latency, or elapsed / operations for
 * a flood), op/s its inverse, MiB/s = bytes moved per operation / us/op in
 * 2^20 bytes per second ('-' when an operation moves no data). */
static inline void bench_print_op(char section, unsigned rank, size_t bytes, long iters, double us,
                                  const char *what) {
  if (us <= 0) us = 0.001; /* below the clock's resolution */
  double per = us / (double)iters;
  char bw[32];
  if (bytes == 0)
    snprintf(bw, sizeof bw, "%14s", "-");
  else
    snprintf(bw, sizeof bw, "%14.3f", (double)bytes / per * 1e6 / 1048576.0);
  printf("%c: %3u - %10zu byte : %7ld iters, %12.5f us/op, %14.1f op/s, %s MiB/s (%s)\n", section,
         rank, bytes, iters, per, 1e6 / per, bw, what);
}

static inline size_t bench_round_page(size_t n) { return (n + 4095) & ~(size_t)4095; }

#endif /* GEX_BENCH_ARGS_H */

/* tests/tools/t_tools.c -- what the reference testtools does not check:
 * the number grammar of gasnett_parse_int and the getenv queries (exact
 * values), gasnett_format_number, the GASNET_VERBOSEENV report (one line
 * per variable, once, only from the process a launcher numbers 0), fatal
 * errors on malformed values, backtraces, and (built after <gasnetex.h>,
 * T_TOOLS_WITH_GEX) the text forms of GASNet-EX values.
 *
 * Built three ways: with libgasnet_tools-seq, with libgasnet_tools-par
 * (GASNETT_THREAD_SAFE=1), and with libgex.  Prints "PASS t_tools" at the end.
 */
#ifdef T_TOOLS_WITH_GEX
#include <gasnetex.h>
#endif
#include <gasnet_tools.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                     \
  do {                                                       \
    if (!(cond)) {                                           \
      failures++;                                            \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      printf(__VA_ARGS__);                                   \
      printf("\n");                                          \
    }                                                        \
  } while (0)

/* ---- running a piece of code in a child, capturing its stderr ---------------- */

typedef void (*child_fn)(const void *arg);

/* Runs fn(arg) in a child process whose stderr goes to out (bufsz bytes,
 * NUL-terminated); returns the child's wait status. */
static int run_in_child(child_fn fn, const void *arg, char *out, size_t bufsz) {
  int pfd[2];
  fflush(NULL);
  if (pipe(pfd)) abort();
  pid_t pid = fork();
  if (pid < 0) abort();
  if (pid == 0) {
    struct rlimit nocore = {0, 0};
    setrlimit(RLIMIT_CORE, &nocore); /* expected aborts leave no core file */
    close(pfd[0]);
    dup2(pfd[1], STDERR_FILENO);
    close(pfd[1]);
    fn(arg);
    fflush(NULL);
    _exit(0);
  }
  close(pfd[1]);
  size_t len = 0;
  ssize_t n;
  while ((n = read(pfd[0], out + len, bufsz - 1 - len)) > 0) {
    len += (size_t)n;
    if (len == bufsz - 1) break;
  }
  out[len] = '\0';
  close(pfd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return status;
}

/* ---- the number grammar ---------------------------------------------------------- */

struct parse_case {
  const char *text;
  uint64_t multiplier;
  int64_t expect;
};

static const struct parse_case parse_cases[] = {
  /* integers (multiplier 0) */
  {"0", 0, 0},
  {"42", 0, 42},
  {"-17", 0, -17},
  {"+5", 0, 5},
  {"  12  ", 0, 12},
  {"0x1F", 0, 31},
  {"0X10", 0, 16},
  {"-0x10", 0, -16},
  {"9223372036854775807", 0, INT64_MAX},
  {"-9223372036854775808", 0, INT64_MIN},
  /* memory sizes, default unit bytes */
  {"100", 1, 100},
  {"100B", 1, 100},
  {"4K", 1, 4096},
  {"4KB", 1, 4096},
  {"4kb", 1, 4096},
  {"4 k", 1, 4096},
  {"2MB", 1, 2097152},
  {"2m", 1, 2097152},
  {"1G", 1, 1073741824},
  {"3 GB", 1, INT64_C(3221225472)},
  {"1T", 1, INT64_C(1099511627776)},
  {"1TB", 1, INT64_C(1099511627776)},
  {"1P", 1, INT64_C(1125899906842624)},
  {"2E", 1, INT64_C(2305843009213693952)},
  {"1.5K", 1, 1536},
  {"0.5M", 1, 524288},
  {".25K", 1, 256},
  {"1.0009765625K", 1, 1025},
  {"0x10K", 1, 16384},
  {"-1K", 1, -1024},
  {"0B", 1, 0},
  /* memory sizes with another default unit: the number counts that unit */
  {"4", 1024, 4096},
  {"1.5", 1024, 1536},
  {"4K", 1024, 4096},
  {"2B", 1024, 2},
  {"64", 1048576, 67108864},
};

static void test_parse(void) {
  for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
    const struct parse_case *c = &parse_cases[i];
    int64_t got = gasnett_parse_int(c->text, c->multiplier);
    CHECK(got == c->expect, "gasnett_parse_int(\"%s\", %" PRIu64 ") = %" PRId64 ", expected %" PRId64,
          c->text, c->multiplier, got, c->expect);
  }
}

struct format_case {
  int64_t value;
  int is_mem_size;
  const char *expect;
};

static const struct format_case format_cases[] = {
  {0, 0, "0"},         {123, 0, "123"},     {-5, 0, "-5"},
  {0, 1, "0 B"},       {1000, 1, "1000 B"}, {4096, 1, "4 KB"},
  {1536, 1, "1.50 KB"}, {-2048, 1, "-2 KB"}, {INT64_C(1073741824), 1, "1 GB"},
  {INT64_C(3221225472), 1, "3 GB"},
};

static void test_format(void) {
  char buf[64];
  for (size_t i = 0; i < sizeof format_cases / sizeof format_cases[0]; i++) {
    const struct format_case *c = &format_cases[i];
    gasnett_format_number(c->value, buf, sizeof buf, c->is_mem_size);
    CHECK(!strcmp(buf, c->expect), "gasnett_format_number(%" PRId64 ", %d) = \"%s\", expected \"%s\"",
          c->value, c->is_mem_size, buf, c->expect);
  }
  /* Every whole number of a unit reads back exactly. */
  for (int shift = 0; shift < 62; shift++) {
    for (uint64_t k = 1; k <= 7; k += 3) {
      uint64_t uv = k << shift;
      if ((uv >> shift) != k || uv > (uint64_t)INT64_MAX) continue; /* does not fit */
      int64_t v = (int64_t)uv;
      gasnett_format_number(v, buf, sizeof buf, 1);
      CHECK(gasnett_parse_int(buf, 1) == v, "\"%s\" read back as %" PRId64 ", not %" PRId64, buf,
            gasnett_parse_int(buf, 1), v);
      gasnett_format_number(-v, buf, sizeof buf, 0);
      CHECK(gasnett_parse_int(buf, 0) == -v, "\"%s\" read back wrong", buf);
    }
  }
}

/* ---- malformed values are fatal, naming the variable ------------------------------ */

struct bad_case {
  const char *value;
  uint64_t multiplier; /* UINT64_MAX: a yes/no query; UINT64_MAX-1: a double */
};

static void query_bad(const void *arg) {
  const struct bad_case *c = (const struct bad_case *)arg;
  setenv("GASNET_T_BAD", c->value, 1);
  if (c->multiplier == UINT64_MAX)
    (void)gasnett_getenv_yesno_withdefault("GASNET_T_BAD", 0);
  else if (c->multiplier == UINT64_MAX - 1)
    (void)gasnett_getenv_dbl_withdefault("GASNET_T_BAD", 0.0);
  else
    (void)gasnett_getenv_int_withdefault("GASNET_T_BAD", 0, c->multiplier);
}

static void test_bad_values(void) {
  static const struct bad_case bad[] = {
    {"4Q", 1},     {"K", 1},          {"", 1},       {"1.5.5K", 1}, {"4KBB", 1},
    {"12abc", 0},  {"1.5", 0},        {"4K", 0},     {"0x", 0},     {"99999999999999999999", 0},
    {"20E", 1},    {"maybe", UINT64_MAX}, {"yess", UINT64_MAX},
    {"1/0", UINT64_MAX - 1}, {"abc", UINT64_MAX - 1},
  };
  char out[4096];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int status = run_in_child(query_bad, &bad[i], out, sizeof out);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
          "GASNET_T_BAD='%s' did not abort (status 0x%x)", bad[i].value, (unsigned)status);
    CHECK(strstr(out, "FATAL ERROR") && strstr(out, "GASNET_T_BAD"),
          "GASNET_T_BAD='%s': message does not name the variable: %s", bad[i].value, out);
  }
}

/* ---- the getenv queries ------------------------------------------------------------- */

static void test_getenv_values(void) {
  setenv("GASNET_T_V_STR", "hello", 1);
  setenv("GASNET_T_V_YES", "Yes", 1);
  setenv("GASNET_T_V_NO", " n ", 1);
  setenv("GASNET_T_V_SIZE", "2MB", 1);
  setenv("GASNET_T_V_UNITS", "3", 1);
  setenv("GASNET_T_V_HEX", "0x40", 1);
  setenv("GASNET_T_V_FRAC", " 3 / 8 ", 1);
  setenv("GASNET_T_V_DBL", "1.5e3", 1);
  unsetenv("GASNET_T_V_UNSET");

  CHECK(!strcmp(gasnett_getenv("GASNET_T_V_STR"), "hello"), "gasnett_getenv");
  CHECK(gasnett_getenv("GASNET_T_V_UNSET") == NULL, "gasnett_getenv of an unset variable");
  CHECK(!strcmp(gasnett_getenv_withdefault("GASNET_T_V_STR", "x"), "hello"), "string, set");
  CHECK(!strcmp(gasnett_getenv_withdefault("GASNET_T_V_UNSET", "dflt"), "dflt"), "string, unset");
  CHECK(gasnett_getenv_yesno_withdefault("GASNET_T_V_YES", 0) == 1, "yes");
  CHECK(gasnett_getenv_yesno_withdefault("GASNET_T_V_NO", 1) == 0, "no");
  CHECK(gasnett_getenv_yesno_withdefault("GASNET_T_V_UNSET", 7) == 1, "yes/no default");
  CHECK(gasnett_getenv_int_withdefault("GASNET_T_V_SIZE", 0, 1) == 2097152, "size");
  CHECK(gasnett_getenv_int_withdefault("GASNET_T_V_UNITS", 0, 1024) == 3072, "size in KB");
  CHECK(gasnett_getenv_int_withdefault("GASNET_T_V_HEX", 0, 0) == 64, "hex");
  CHECK(gasnett_getenv_int_withdefault("GASNET_T_V_UNSET", -9, 0) == -9, "int default");
  CHECK(gasnett_getenv_dbl_withdefault("GASNET_T_V_FRAC", 0) == 0.375, "fraction");
  CHECK(gasnett_getenv_dbl_withdefault("GASNET_T_V_DBL", 0) == 1500.0, "double");
  CHECK(gasnett_getenv_dbl_withdefault("GASNET_T_V_UNSET", 2.5) == 2.5, "double default");

  gasnett_setenv("GASNET_T_V_SET", "abc");
  CHECK(!strcmp(getenv("GASNET_T_V_SET"), "abc"), "gasnett_setenv");
  gasnett_unsetenv("GASNET_T_V_SET");
  CHECK(getenv("GASNET_T_V_SET") == NULL, "gasnett_unsetenv");
}

/* ---- GASNET_VERBOSEENV ---------------------------------------------------------------- */

/* Queries a fixed set of variables, each twice. */
static void verbose_queries(const void *arg) {
  (void)arg;
  setenv("GASNET_VERBOSEENV", "1", 1);
  setenv("GASNET_T_STR", "hello", 1);
  unsetenv("GASNET_T_STRDEF");
  setenv("GASNET_T_YES", "Yes", 1);
  setenv("GASNET_T_INT", "4K", 1);
  unsetenv("GASNET_T_INTDEF");
  setenv("GASNET_T_DBL", "3/8", 1);
  for (int round = 0; round < 2; round++) {
    (void)gasnett_getenv_withdefault("GASNET_T_STR", "x");
    (void)gasnett_getenv_withdefault("GASNET_T_STRDEF", "dflt");
    (void)gasnett_getenv_yesno_withdefault("GASNET_T_YES", 0);
    (void)gasnett_getenv_int_withdefault("GASNET_T_INT", 0, 1);
    (void)gasnett_getenv_int_withdefault("GASNET_T_INTDEF", 12, 0);
    (void)gasnett_getenv_dbl_withdefault("GASNET_T_DBL", 0);
    (void)gasnett_getenv("GASNET_T_RAW"); /* raw queries are never reported */
  }
  if (!gasnett_verboseenv()) fprintf(stderr, "(verboseenv off)\n");
}

static void verbose_queries_rank1(const void *arg) {
  setenv("GEX_RANK", "1", 1);
  verbose_queries(arg);
}

static void test_verboseenv(void) {
  static const char expect[] =
      "GASNET_VERBOSEENV: GASNET_T_STR = hello (set)\n"
      "GASNET_VERBOSEENV: GASNET_T_STRDEF = dflt (default)\n"
      "GASNET_VERBOSEENV: GASNET_T_YES = YES (set)\n"
      "GASNET_VERBOSEENV: GASNET_T_INT = 4 KB (set)\n"
      "GASNET_VERBOSEENV: GASNET_T_INTDEF = 12 (default)\n"
      "GASNET_VERBOSEENV: GASNET_T_DBL = 0.375 (set)\n";
  char out[4096];
  /* The children start from this process's state: nothing has read
   * GASNET_VERBOSEENV yet (this runs first). */
  int status = run_in_child(verbose_queries, NULL, out, sizeof out);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "verbose child status 0x%x", (unsigned)status);
  CHECK(!strcmp(out, expect), "GASNET_VERBOSEENV report:\n%s---- expected:\n%s", out, expect);
  status = run_in_child(verbose_queries_rank1, NULL, out, sizeof out);
  CHECK(WIFEXITED(status) && !strcmp(out, "(verboseenv off)\n"),
        "a process numbered 1 reported:\n%s", out);
}

/* ---- misc ------------------------------------------------------------------------------ */

static void print_bt(const void *arg) {
  (void)arg;
  unsetenv("GASNET_BACKTRACE_TYPE");
  if (gasnett_print_backtrace(STDERR_FILENO)) fprintf(stderr, "(no backtrace)\n");
}

static void test_misc(void) {
  char out[16384];
  int status = run_in_child(print_bt, NULL, out, sizeof out);
  CHECK(WIFEXITED(status) && strstr(out, "backtrace of process") && !strstr(out, "(no backtrace)"),
        "EXECINFO backtrace: %s", out);

  unsigned char buf[1000];
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)((i * 7) % 5);
  for (size_t off = 0; off < 9; off++) {
    size_t naive = 0;
    for (size_t i = off; i < sizeof buf; i++) naive += (buf[i] == 0);
    CHECK(gasnett_count0s(buf + off, sizeof buf - off) == naive, "count0s at offset %zu", off);
  }
  CHECK(gasnett_checksum(buf, sizeof buf) == gasnett_checksum(buf, sizeof buf), "checksum");
  CHECK(gasnett_checksum(buf, 10) != gasnett_checksum(buf + 1, 10), "checksum of other bytes");
  CHECK(gasnett_atomic_signed((gasnett_atomic_val_t)-3) == -3, "gasnett_atomic_signed");
  CHECK(gasnett_release_version() ==
            GASNETT_RELEASE_VERSION_MAJOR * UINT64_C(1000000) +
                GASNETT_RELEASE_VERSION_MINOR * UINT64_C(10000) + GASNETT_RELEASE_VERSION_PATCH,
        "gasnett_release_version");
  CHECK(gasnett_isLittleEndian() == (PLATFORM_ARCH_LITTLE_ENDIAN + 0), "endianness");
  char *loc = gasnett_current_loc;
  CHECK(loc && strstr(loc, "t_tools.c:"), "gasnett_current_loc = %s", loc ? loc : "(null)");
  free(loc);
  uint64_t t0 = gasnett_ticks_now();
  CHECK(gasnett_nsleep(1000000) == 0, "gasnett_nsleep");
  CHECK(gasnett_ticks_to_ns(gasnett_ticks_now() - t0) >= 1000000, "slept at least 1 ms");
}

#ifdef T_TOOLS_WITH_GEX
static void check_format(size_t (*fn)(char *, uint32_t), uint32_t v, const char *expect) {
  char buf[256];
  size_t need = fn(NULL, v);
  size_t got = fn(buf, v);
  CHECK(need == strlen(expect) + 1 && got == need && !strcmp(buf, expect),
        "format of 0x%x: \"%s\" (size %zu/%zu), expected \"%s\"", v, buf, need, got, expect);
}
static size_t fmt_dt(char *b, uint32_t v) { return gasnett_format_dt(b, (gex_DT_t)v); }
static size_t fmt_op(char *b, uint32_t v) { return gasnett_format_op(b, (gex_OP_t)v); }
static size_t fmt_ti(char *b, uint32_t v) { return gasnett_format_ti(b, (gex_TI_t)v); }

static void test_gex_format(void) {
  check_format(fmt_dt, 0, "0");
  check_format(fmt_dt, GEX_DT_I32 | GEX_DT_DBL, "GEX_DT_I32|GEX_DT_DBL");
  check_format(fmt_op, GEX_OP_FADD, "GEX_OP_FADD");
  check_format(fmt_ti, GEX_TI_SRCRANK | GEX_TI_IS_LONG, "GEX_TI_SRCRANK|GEX_TI_IS_LONG");
  check_format(fmt_ti, GEX_TI_EP | 0x80000000u, "GEX_TI_EP|0x80000000");
  gex_Memvec_t mv[2] = {{(void *)0x1000, 8}, {(void *)0x2000, 16}};
  char *buf = (char *)malloc(gasnett_format_memveclist_bufsz(2));
  gasnett_format_memveclist(buf, 2, mv);
  CHECK(strstr(buf, "2 entries") && strstr(buf, ",16)"), "memvec list: %s", buf);
  free(buf);
}
#endif

int main(void) {
  unsetenv("GEX_RANK");
  unsetenv("PMIX_RANK");
  unsetenv("GASNET_VERBOSEENV");
  test_verboseenv(); /* first: its children must not inherit a cached setting */
  test_parse();
  test_format();
  test_getenv_values();
  test_bad_values();
  test_misc();
#ifdef T_TOOLS_WITH_GEX
  test_gex_format();
#endif
  if (failures) {
    printf("t_tools: %d check(s) failed\n", failures);
    return 1;
  }
  printf("PASS t_tools (%s)\n", GASNETT_CONFIG_STRING);
  return 0;
}

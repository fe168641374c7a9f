/* tests/tools/header_use.c -- compiled (not run) by the header tests, as C
 * and as C++, under -Wall -Wextra -Wundef -Werror, in every mode:
 * tools only (seq, or -DGASNETT_THREAD_SAFE=1) and after <gasnetex.h>
 * (-DWITH_GASNETEX with -DGASNET_SEQ or -DGASNET_PAR).  It uses a little
 * of everything so that the inline code and macros are expanded. */
#ifdef WITH_GASNETEX
#include <gasnetex.h>
#endif
#include <gasnet_tools.h>
#include <gasnet_portable_platform.h>

GASNETT_THREADKEY_DEFINE(header_use_key);
GASNETT_IDENT(header_use_ident, "$HeaderUse: ok $");
static gasnett_mutex_t header_use_lock = GASNETT_MUTEX_INITIALIZER;
static gasnett_cond_t header_use_cond = GASNETT_COND_INITIALIZER;
static gasnett_rwlock_t header_use_rwlock = GASNETT_RWLOCK_INITIALIZER;

GASNETT_INLINE(header_use_inline)
int header_use_inline(int x) { return x + 1; }

GASNETT_NEVER_INLINE(header_use_never, int header_use_never(int x)) { return x * 2; }

GASNETT_FORMAT_PRINTF(header_use_printf, 1, 2, static void header_use_printf(const char *f, ...));
static void header_use_printf(const char *f, ...) { (void)f; }

int header_use_all(void) GASNETT_WARN_UNUSED_RESULT;
int header_use_all(void) {
  gasnett_atomic_t a = gasnett_atomic_init(1);
  gasnett_atomic32_t a32 = gasnett_atomic32_init(2);
  gasnett_atomic64_t a64 = gasnett_atomic64_init(3);
  gasnett_strongatomic_t s = gasnett_strongatomic_init(4);
  int r = 0;
  gasnett_atomic_increment(&a, GASNETT_ATOMIC_REL);
  r += (int)gasnett_atomic_read(&a, GASNETT_ATOMIC_ACQ);
  r += gasnett_atomic_compare_and_swap(&a, 2, 3, GASNETT_ATOMIC_ACQ_IF_TRUE);
  r += (int)gasnett_atomic_add(&a, 1, GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST);
  r += (int)gasnett_atomic_signed(gasnett_atomic_subtract(&a, 10, 0));
  r += (int)gasnett_atomic32_swap(&a32, 5, 0);
  r += gasnett_atomic64_decrement_and_test(&a64, GASNETT_ATOMIC_ACQ_IF_FALSE);
  r += (int)gasnett_strongatomic_swap(&s, 1, 0);
  gasnett_local_wmb();
  gasnett_local_rmb();
  gasnett_local_mb();
  gasnett_weak_mb();
  gasnett_compiler_fence();
  gasnett_spinloop_hint();
  gasnett_mutex_lock(&header_use_lock);
  r += gasnett_mutex_trylock(&header_use_lock) == 0;
  gasnett_cond_signal(&header_use_cond);
  gasnett_mutex_unlock(&header_use_lock);
  gasnett_rwlock_rdlock(&header_use_rwlock);
  gasnett_rwlock_unlock(&header_use_rwlock);
  gasnett_threadkey_set(header_use_key, &r);
  r += gasnett_threadkey_get(header_use_key) != 0;
  if_pf (r < 0) r = 0;
  if_pt (r >= 0) r++;
  switch (r & 1) {
    case 0: r++; GASNETT_FALLTHROUGH
    default: r++;
  }
  gasnett_tick_t t = gasnett_ticks_now();
  r += (int)(gasnett_ticks_to_us(t) % 2) + (int)(gasnett_ticks_to_ns(t) % 2);
  r += gasnett_count0s_uint32_t(r) + gasnett_count0s_uint64_t(r) + gasnett_count0s_uintptr_t(r);
  r += (int)gasnett_getenv_int_withdefault("X_HEADER_USE", 1, 0);
  GASNETT_TRACE_PRINTF("%d", r);
  GASNETT_STATS_DUMP(0);
  r += header_use_inline(r) + header_use_never(r);
  header_use_printf("%d", r);
  (void)GASNETT_UNUSED_ARGS2(r, t);
  r += PLATFORM_COMPILER_VERSION_GE(1, 0, 0) + (int)sizeof(PLATFORM_COMPILER_IDSTR);
#if PLATFORM_ARCH_64 && GASNETT_PAGESIZE && GASNETT_CACHE_LINE_BYTES
  r++;
#endif
  return r;
}

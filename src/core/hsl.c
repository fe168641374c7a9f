/* core/hsl.c -- handler-safe locks.  The per-thread count of held HSLs lets
 * the checks reject communication while a lock is held.
 *
 * Checked builds also record the holder in gexi_owner (the address of its
 * gexi_tls, unique among live threads; 0 when free), so that locking a lock
 * this thread holds (a self-deadlock) and unlocking a lock that is free or
 * held by another thread are each one fatal line.  Only the holder writes
 * the field, while it holds the mutex; reads by others are relaxed and only
 * decide whether the caller is the holder. */
#include "core/context.h"

#if GEX_CHECKS
static inline uintptr_t this_thread(void) { return (uintptr_t)&gexi_tls; }
static inline uintptr_t holder(const gex_HSL_t *hsl) {
  return __atomic_load_n(&hsl->gexi_owner, __ATOMIC_RELAXED);
}
static inline void set_holder(gex_HSL_t *hsl, uintptr_t who) {
  __atomic_store_n(&hsl->gexi_owner, who, __ATOMIC_RELAXED);
}
#endif

void gex_HSL_Init(gex_HSL_t *hsl) {
  pthread_mutex_init(&hsl->gexi_mutex, NULL);
  hsl->gexi_owner = 0;
}
void gex_HSL_Destroy(gex_HSL_t *hsl) { pthread_mutex_destroy(&hsl->gexi_mutex); }

void gex_HSL_Lock(gex_HSL_t *hsl) {
#if GEX_CHECKS
  if (holder(hsl) == this_thread())
    gexi_fatal("gex_HSL_Lock: this thread already holds the handler-safe lock %p", (void *)hsl);
#endif
  pthread_mutex_lock(&hsl->gexi_mutex);
#if GEX_CHECKS
  set_holder(hsl, this_thread());
#endif
  gexi_tls.hsl_depth++;
}

void gex_HSL_Unlock(gex_HSL_t *hsl) {
#if GEX_CHECKS
  const uintptr_t h = holder(hsl);
  if (h != this_thread())
    gexi_fatal("gex_HSL_Unlock: the handler-safe lock %p is %s", (void *)hsl,
               h ? "held by another thread" : "not locked");
  set_holder(hsl, 0);
#endif
  gexi_tls.hsl_depth--;
  pthread_mutex_unlock(&hsl->gexi_mutex);
}

int gex_HSL_Trylock(gex_HSL_t *hsl) {
  if (pthread_mutex_trylock(&hsl->gexi_mutex) != 0) return GASNET_ERR_NOT_READY;
#if GEX_CHECKS
  set_holder(hsl, this_thread());
#endif
  gexi_tls.hsl_depth++;
  return GASNET_OK;
}

void gasnet_hsl_init(gasnet_hsl_t *hsl) { gex_HSL_Init(hsl); }
void gasnet_hsl_destroy(gasnet_hsl_t *hsl) { gex_HSL_Destroy(hsl); }
void gasnet_hsl_lock(gasnet_hsl_t *hsl) { gex_HSL_Lock(hsl); }
void gasnet_hsl_unlock(gasnet_hsl_t *hsl) { gex_HSL_Unlock(hsl); }
int gasnet_hsl_trylock(gasnet_hsl_t *hsl) { return gex_HSL_Trylock(hsl); }

/* core/hsl.c -- handler-safe locks.  The per-thread count of held HSLs lets
 * the checks reject communication while a lock is held. */
#include "core/context.h"

void gex_HSL_Init(gex_HSL_t *hsl) { pthread_mutex_init(&hsl->gexi_mutex, NULL); }
void gex_HSL_Destroy(gex_HSL_t *hsl) { pthread_mutex_destroy(&hsl->gexi_mutex); }

void gex_HSL_Lock(gex_HSL_t *hsl) {
  pthread_mutex_lock(&hsl->gexi_mutex);
  gexi_tls.hsl_depth++;
}

void gex_HSL_Unlock(gex_HSL_t *hsl) {
  gexi_tls.hsl_depth--;
  pthread_mutex_unlock(&hsl->gexi_mutex);
}

int gex_HSL_Trylock(gex_HSL_t *hsl) {
  if (pthread_mutex_trylock(&hsl->gexi_mutex) != 0) return GASNET_ERR_NOT_READY;
  gexi_tls.hsl_depth++;
  return GASNET_OK;
}

void gasnet_hsl_init(gasnet_hsl_t *hsl) { gex_HSL_Init(hsl); }
void gasnet_hsl_destroy(gasnet_hsl_t *hsl) { gex_HSL_Destroy(hsl); }
void gasnet_hsl_lock(gasnet_hsl_t *hsl) { gex_HSL_Lock(hsl); }
void gasnet_hsl_unlock(gasnet_hsl_t *hsl) { gex_HSL_Unlock(hsl); }
int gasnet_hsl_trylock(gasnet_hsl_t *hsl) { return gex_HSL_Trylock(hsl); }

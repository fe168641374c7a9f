/* t_hsl.c -- handler-safe locks: gex_HSL_Init/Lock/Unlock/Trylock/Destroy,
 * GEX_HSL_INITIALIZER and the gasnet_hsl_* names.  Trylock succeeds
 * (GASNET_OK) on a free lock and fails (GASNET_ERR_NOT_READY) while another
 * thread holds it; mutual exclusion between client threads and AM handlers
 * that share a plain counter (which ThreadSanitizer would flag if the lock
 * did not order the accesses).
 */
#include "test_util.h"

#include <pthread.h>

#define NT 4
static gex_HSL_t lock_static = GEX_HSL_INITIALIZER;
static gasnet_hsl_t lock_g1 = GASNET_HSL_INITIALIZER;
static gex_HSL_t lock_dyn;
static long shared_counter; /* plain: only touched under lock_dyn */
static long handler_runs;   /* plain: only touched under lock_dyn */
static atomic_long acks;
static long iters;

static const gex_AM_Index_t H_INC = GEX_AM_INDEX_BASE + 6, H_ACK = GEX_AM_INDEX_BASE + 7;

static void h_inc(gex_Token_t t, gex_AM_Arg_t v) {
  gex_HSL_Lock(&lock_dyn);
  shared_counter += v;
  handler_runs++;
  gex_HSL_Unlock(&lock_dyn);
  CHECK(gex_AM_ReplyShort0(t, H_ACK, 0) == 0); /* not while holding the lock */
}
static void h_ack(gex_Token_t t) {
  (void)t;
  atomic_fetch_add(&acks, 1);
}

/* ---- Trylock against a holder thread ---- */
static atomic_int holder_state; /* 1: holding, 2: asked to release, 3: released */
static void *holder(void *arg) {
  gex_HSL_t *l = arg;
  gex_HSL_Lock(l);
  atomic_store(&holder_state, 1);
  while (atomic_load(&holder_state) != 2) sched_yield();
  gex_HSL_Unlock(l);
  atomic_store(&holder_state, 3);
  return NULL;
}

static void trylock_rules(gex_HSL_t *l, int gasnet1_names) {
  int (*trylock)(gex_HSL_t *) = gasnet1_names ? gasnet_hsl_trylock : gex_HSL_Trylock;
  void (*unlock)(gex_HSL_t *) = gasnet1_names ? gasnet_hsl_unlock : gex_HSL_Unlock;
  CHECK(trylock(l) == GASNET_OK); /* free: acquired */
  unlock(l);
  pthread_t th;
  atomic_store(&holder_state, 0);
  CHECK(pthread_create(&th, NULL, holder, l) == 0);
  while (atomic_load(&holder_state) != 1) sched_yield();
  for (int i = 0; i < 3; i++) CHECK(trylock(l) == GASNET_ERR_NOT_READY); /* held elsewhere */
  atomic_store(&holder_state, 2);
  while (atomic_load(&holder_state) != 3) sched_yield();
  CHECK(trylock(l) == GASNET_OK);
  unlock(l);
  CHECK(pthread_join(th, NULL) == 0);
}

/* ---- threads and handlers incrementing one counter ---- */
static void *worker(void *arg) {
  long id = (long)(intptr_t)arg;
  gex_Rank_t peer = (T.rank + (gex_Rank_t)id) % T.size;
  for (long i = 0; i < iters; i++) {
    if (i % 2 == 0) {
      while (gex_HSL_Trylock(&lock_dyn) != GASNET_OK) sched_yield();
    } else {
      gex_HSL_Lock(&lock_dyn);
    }
    shared_counter += 1;
    gex_HSL_Unlock(&lock_dyn);
    /* an AM whose handler (run by whichever thread polls) takes the lock too */
    CHECK(gex_AM_RequestShort1(T.tm, peer, H_INC, 0, 2) == 0);
  }
  return NULL;
}

int main(int argc, char **argv) {
  gex_AM_Entry_t tab[] = {
      {H_INC, (gex_AM_Fn_t)h_inc, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "inc"},
      {H_ACK, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "ack"},
  };
  test_init(&argc, &argv, "T_HSL", 4096, tab, 2);
  gex_HSL_Init(&lock_dyn);

  trylock_rules(&lock_static, 0);
  trylock_rules(&lock_dyn, 0);
  trylock_rules(&lock_g1, 1);
  {
    gasnet_hsl_t l2;
    gasnet_hsl_init(&l2);
    gasnet_hsl_lock(&l2);
    gasnet_hsl_unlock(&l2);
    trylock_rules(&l2, 1);
    gasnet_hsl_destroy(&l2);
  }
  test_barrier();

  iters = test_iters(5000, 50);
  pthread_t th[NT];
  for (long i = 0; i < NT; i++) CHECK(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) == 0);
  for (int i = 0; i < NT; i++) CHECK(pthread_join(th[i], NULL) == 0);
  GASNET_BLOCKUNTIL(atomic_load(&acks) == NT * iters);
  test_barrier();
  /* everyone sent NT*iters Requests, to peers (me + id) for id = 0..NT-1 */
  long expect_handlers = 0;
  for (long id = 0; id < NT; id++)
    for (gex_Rank_t s = 0; s < T.size; s++)
      if ((s + (gex_Rank_t)id) % T.size == T.rank) expect_handlers += iters;
  gex_HSL_Lock(&lock_dyn);
  long c = shared_counter, h = handler_runs;
  gex_HSL_Unlock(&lock_dyn);
  CHECKF(h == expect_handlers, "handler ran %ld times, want %ld", h, expect_handlers);
  CHECKF(c == NT * iters + 2 * expect_handlers, "counter %ld, want %ld", c,
         NT * iters + 2 * expect_handlers);
  gex_HSL_Destroy(&lock_dyn);
  test_finish();
}

/* diagnostics/diag_locks.c -- sections A (mutex and rwlock) and B
 * (condition variables) of the diagnostics, with the tools' locks and
 * 'threads' threads.
 *
 * A: every thread increments a plain counter under the mutex (sometimes
 *    taken with trylock) 'iters' times, and no two threads are ever inside
 *    at once; readers and writers of a rwlock never meet a writer.  The
 *    counter must come out exact.  Fault: one increment too many.
 * B: the threads take turns in a fixed ring order (broadcast), each seeing
 *    exactly the turn numbers that are its own; then thread 0 hands
 *    numbered items one at a time through a one-item mailbox (signal) to
 *    the others, and every item arrives exactly once.  Fault: one thread
 *    misreads one turn number.
 */
#include <stdlib.h>

#include "diagnostics/diag.h"

/* ---- A -------------------------------------------------------------------------- */
struct mutex_test {
  gasnett_mutex_t lock;
  gasnett_rwlock_t rwlock;
  uint64_t counter;  /* under lock */
  int inside;        /* under lock: a thread is in the critical section */
  uint64_t written;  /* under rwlock (write) */
  int writers;       /* atomic */
  int readers;       /* atomic */
};

static void mutex_thread(void *arg, int t, int n) {
  struct mutex_test *m = (struct mutex_test *)arg;
  long iters = gexdiag_ctx.iters;
  (void)n;
  for (long i = 0; i < iters; i++) {
    if (!((i & 7) == 7 && gasnett_mutex_trylock(&m->lock) == 0)) gasnett_mutex_lock(&m->lock);
    if (m->inside) gexdiag_error("thread %d entered the mutex while another thread held it", t);
    m->inside = 1;
    m->counter++;
    m->inside = 0;
    gasnett_mutex_unlock(&m->lock);

    if (i % 4 == 0) {
      gasnett_rwlock_wrlock(&m->rwlock);
      if (__atomic_load_n(&m->readers, __ATOMIC_RELAXED) || __atomic_load_n(&m->writers, __ATOMIC_RELAXED))
        gexdiag_error("thread %d holds the rwlock for writing beside other holders", t);
      __atomic_store_n(&m->writers, 1, __ATOMIC_RELAXED);
      m->written++;
      __atomic_store_n(&m->writers, 0, __ATOMIC_RELAXED);
      gasnett_rwlock_unlock(&m->rwlock);
    } else {
      gasnett_rwlock_rdlock(&m->rwlock);
      __atomic_fetch_add(&m->readers, 1, __ATOMIC_RELAXED);
      if (__atomic_load_n(&m->writers, __ATOMIC_RELAXED))
        gexdiag_error("thread %d holds the rwlock for reading while a writer does", t);
      __atomic_fetch_sub(&m->readers, 1, __ATOMIC_RELAXED);
      gasnett_rwlock_unlock(&m->rwlock);
    }
  }
  if (t == 0 && gexdiag_fault()) {
    gasnett_mutex_lock(&m->lock);
    m->counter++;
    gasnett_mutex_unlock(&m->lock);
  }
}

void gexdiag_section_mutex(void) {
  struct mutex_test m;
  gasnett_mutex_init(&m.lock);
  gasnett_rwlock_init(&m.rwlock);
  m.counter = m.written = 0;
  m.inside = m.writers = m.readers = 0;
  int n = gexdiag_run_threads(gexdiag_ctx.threads, mutex_thread, &m);
  uint64_t iters = (uint64_t)gexdiag_ctx.iters;
  if (m.counter != (uint64_t)n * iters)
    gexdiag_error("the counter guarded by the mutex is %llu after %d threads x %llu increments",
                  (unsigned long long)m.counter, n, (unsigned long long)iters);
  if (m.written != (uint64_t)n * ((iters + 3) / 4))
    gexdiag_error("the counter guarded by the rwlock is %llu, want %llu",
                  (unsigned long long)m.written, (unsigned long long)n * ((iters + 3) / 4));
  gasnett_rwlock_destroy(&m.rwlock);
  gasnett_mutex_destroy(&m.lock);
}

/* ---- B -------------------------------------------------------------------------- */
struct cond_test {
  gasnett_mutex_t lock;
  gasnett_cond_t turn_cv;  /* broadcast: the turn moved */
  gasnett_cond_t full_cv;  /* signal: the mailbox holds an item */
  gasnett_cond_t empty_cv; /* signal: the mailbox is empty */
  uint64_t turn;           /* under lock */
  int full;                /* under lock */
  uint64_t item;           /* under lock */
  unsigned char *arrived;  /* [v - 1]: times item v was taken (atomic) */
};

static void cond_thread(void *arg, int t, int n) {
  struct cond_test *c = (struct cond_test *)arg;
  uint64_t iters = (uint64_t)gexdiag_ctx.iters;
  /* The ring: thread t owns turns t, t + n, t + 2n, ... */
  for (uint64_t k = 0; k < iters; k++) {
    gasnett_mutex_lock(&c->lock);
    while (c->turn % (uint64_t)n != (uint64_t)t) gasnett_cond_wait(&c->turn_cv, &c->lock);
    uint64_t seen = c->turn;
    if (t == 0 && k == iters / 2 && gexdiag_fault()) seen ^= 1;
    if (seen != k * (uint64_t)n + (uint64_t)t)
      gexdiag_error("thread %d got turn %llu for its turn %llu of the ring (want %llu)", t,
                    (unsigned long long)seen, (unsigned long long)k,
                    (unsigned long long)(k * (uint64_t)n + (uint64_t)t));
    c->turn++;
    gasnett_cond_broadcast(&c->turn_cv);
    gasnett_mutex_unlock(&c->lock);
  }
  if (n < 2) return;
  /* The mailbox: thread 0 produces items 1..(n-1)*iters, the others take
   * iters each. */
  uint64_t items = (uint64_t)(n - 1) * iters;
  if (t == 0) {
    for (uint64_t v = 1; v <= items; v++) {
      gasnett_mutex_lock(&c->lock);
      while (c->full) gasnett_cond_wait(&c->empty_cv, &c->lock);
      c->item = v;
      c->full = 1;
      gasnett_cond_signal(&c->full_cv);
      gasnett_mutex_unlock(&c->lock);
    }
  } else {
    for (uint64_t k = 0; k < iters; k++) {
      gasnett_mutex_lock(&c->lock);
      while (!c->full) gasnett_cond_wait(&c->full_cv, &c->lock);
      uint64_t v = c->item;
      c->full = 0;
      gasnett_cond_signal(&c->empty_cv);
      gasnett_mutex_unlock(&c->lock);
      if (v < 1 || v > items)
        gexdiag_error("thread %d took item %llu from the mailbox (items are 1..%llu)", t,
                      (unsigned long long)v, (unsigned long long)items);
      else
        __atomic_fetch_add(&c->arrived[v - 1], 1, __ATOMIC_RELAXED);
    }
  }
}

void gexdiag_section_cond(void) {
  struct cond_test c;
  gasnett_mutex_init(&c.lock);
  gasnett_cond_init(&c.turn_cv);
  gasnett_cond_init(&c.full_cv);
  gasnett_cond_init(&c.empty_cv);
  c.turn = 0;
  c.full = 0;
  c.item = 0;
  uint64_t iters = (uint64_t)gexdiag_ctx.iters;
  c.arrived = calloc((size_t)(gexdiag_ctx.threads * iters) + 1, 1);
  if (!c.arrived) {
    gexdiag_error("no memory for the mailbox record");
    return;
  }
  int n = gexdiag_run_threads(gexdiag_ctx.threads, cond_thread, &c);
  if (c.turn != (uint64_t)n * iters)
    gexdiag_error("the ring ended at turn %llu, want %llu", (unsigned long long)c.turn,
                  (unsigned long long)n * iters);
  uint64_t items = n < 2 ? 0 : (uint64_t)(n - 1) * iters;
  for (uint64_t v = 0; v < items; v++)
    if (c.arrived[v] != 1)
      gexdiag_error("mailbox item %llu arrived %u times", (unsigned long long)v + 1,
                    (unsigned)c.arrived[v]);
  free(c.arrived);
  gasnett_cond_destroy(&c.empty_cv);
  gasnett_cond_destroy(&c.full_cv);
  gasnett_cond_destroy(&c.turn_cv);
  gasnett_mutex_destroy(&c.lock);
}

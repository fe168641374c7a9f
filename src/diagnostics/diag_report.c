/* diagnostics/diag_report.c -- what every section shares: error reports,
 * the fault switch, deterministic data, the idle step of wait loops and the
 * threads of the tools sections.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnostics/diag.h"

void gexdiag_error(const char *fmt, ...) {
  struct gexdiag_context *c = &gexdiag_ctx;
  __atomic_fetch_add(&c->section_errors, 1, __ATOMIC_RELAXED);
  int n = __atomic_fetch_add(&c->printed, 1, __ATOMIC_RELAXED);
  if (n > GEXDIAG_MAX_PRINTED) return;
  char msg[512];
  if (n == GEXDIAG_MAX_PRINTED) {
    snprintf(msg, sizeof msg, "further errors of this section are counted, not shown");
  } else {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
  }
  /* One write per line, so that lines of several threads do not mix. */
  if (c->section == '-')
    fprintf(stderr, "diagnostics: rank %u: setup: ERROR: %s\n", (unsigned)c->rank, msg);
  else
    fprintf(stderr, "diagnostics: rank %u: section %c (%s): ERROR: %s\n", (unsigned)c->rank,
            c->section, c->section_name, msg);
  fflush(stderr);
}

int gexdiag_fault(void) {
  const struct gexdiag_context *c = &gexdiag_ctx;
  return c->section >= 'A' && c->section <= 'Z' && (c->fault_mask >> (c->section - 'A')) & 1;
}

void gexdiag_fill(void *buf, size_t n, uint64_t key) {
  unsigned char *p = (unsigned char *)buf;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w = gexdiag_mix(key + i / 8);
    for (int b = 0; b < 8; b++) p[i + (size_t)b] = (unsigned char)(w >> (8 * b));
  }
  for (; i < n; i++) p[i] = gexdiag_byte(key, i);
}

long gexdiag_verify(const void *buf, size_t n, uint64_t key) {
  const unsigned char *p = (const unsigned char *)buf;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w = gexdiag_mix(key + i / 8);
    for (int b = 0; b < 8; b++)
      if (p[i + (size_t)b] != (unsigned char)(w >> (8 * b))) return (long)(i + (size_t)b);
  }
  for (; i < n; i++)
    if (p[i] != gexdiag_byte(key, i)) return (long)i;
  return -1;
}

void gexdiag_poll_idle(void) {
  gasnet_AMPoll();
  gasnett_sched_yield();
}

/* ---- threads ---------------------------------------------------------------------- */
/* Threads wait at a gate until every one that could be started exists, so
 * that they all see the final count and really run side by side. */
struct thread_group {
  void (*fn)(void *arg, int t, int n);
  void *arg;
  gasnett_mutex_t lock;
  gasnett_cond_t opened_cv;
  int opened;
  int count; /* final once opened */
};
struct thread_start {
  struct thread_group *g;
  int t;
};

static int gate(struct thread_group *g) {
  gasnett_mutex_lock(&g->lock);
  while (!g->opened) gasnett_cond_wait(&g->opened_cv, &g->lock);
  int n = g->count;
  gasnett_mutex_unlock(&g->lock);
  return n;
}

static void *thread_main(void *p) {
  struct thread_start *s = (struct thread_start *)p;
  int n = gate(s->g);
  s->g->fn(s->g->arg, s->t, n);
  return NULL;
}

int gexdiag_run_threads(int threads, void (*fn)(void *arg, int t, int n), void *arg) {
  struct thread_group g;
  g.fn = fn;
  g.arg = arg;
  gasnett_mutex_init(&g.lock);
  gasnett_cond_init(&g.opened_cv);
  g.opened = 0;
  g.count = 1;
  pthread_t *tid = calloc((size_t)threads, sizeof *tid);
  struct thread_start *st = calloc((size_t)threads, sizeof *st);
  if (!tid || !st) {
    gexdiag_error("no memory for %d threads: running with 1", threads);
    threads = 1;
  }
  for (int t = 1; t < threads; t++) {
    st[t].g = &g;
    st[t].t = t;
    int rc = pthread_create(&tid[t], NULL, thread_main, &st[t]);
    if (rc) {
      gexdiag_error("cannot start thread %d of %d (%s): running with %d", t, threads,
                    strerror(rc), t);
      break;
    }
    g.count = t + 1;
  }
  gasnett_mutex_lock(&g.lock);
  g.opened = 1;
  gasnett_cond_broadcast(&g.opened_cv);
  gasnett_mutex_unlock(&g.lock);
  fn(arg, 0, g.count);
  for (int t = 1; t < g.count; t++) pthread_join(tid[t], NULL);
  gasnett_cond_destroy(&g.opened_cv);
  gasnett_mutex_destroy(&g.lock);
  free(tid);
  free(st);
  return g.count;
}

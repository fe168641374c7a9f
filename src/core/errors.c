/* core/errors.c -- error names, fatal misuse reports and job-ending paths. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gasnet_tools.h>

#include "core/context.h"
#include "core/rcv_thread.h"

/* The most the end of the process waits for the receive thread to stop. */
#define GEXI_RCV_STOP_MS 200

const char *gasnet_ErrorName(int errval) {
  switch (errval) {
    case GASNET_OK: return "GASNET_OK";
    case GASNET_ERR_NOT_INIT: return "GASNET_ERR_NOT_INIT";
    case GASNET_ERR_RESOURCE: return "GASNET_ERR_RESOURCE";
    case GASNET_ERR_BAD_ARG: return "GASNET_ERR_BAD_ARG";
    case GASNET_ERR_NOT_READY: return "GASNET_ERR_NOT_READY";
    case GASNET_ERR_BARRIER_MISMATCH: return "GASNET_ERR_BARRIER_MISMATCH";
    default: return "GASNET_ERR_UNKNOWN";
  }
}

const char *gasnet_ErrorDesc(int errval) {
  switch (errval) {
    case GASNET_OK: return "no error";
    case GASNET_ERR_NOT_INIT: return "the library has not been initialized";
    case GASNET_ERR_RESOURCE: return "a required resource is not available";
    case GASNET_ERR_BAD_ARG: return "an argument is invalid";
    case GASNET_ERR_NOT_READY: return "the operation is not complete yet";
    case GASNET_ERR_BARRIER_MISMATCH: return "barrier names did not match";
    default: return "unknown error code";
  }
}

int gex_System_GetVerboseErrors(void) { return gexi_ctx.verbose_errors; }
void gex_System_SetVerboseErrors(int enable) { gexi_ctx.verbose_errors = enable ? 1 : 0; }

/* Format "libgex: rank R: <msg>\n" (or "libgex: <msg>" before init) and
 * write it with a single write() so lines of different ranks never mix. */
static void emit(const char *fmt, va_list ap) {
  char buf[1024];
  int n;
  if (gexi_ctx.initialized || gexi_ctx.boot) /* the rank is known once the bootstrap runs */
    n = snprintf(buf, sizeof buf, "libgex: rank %u: ", (unsigned)gexi_ctx.rank);
  else
    n = snprintf(buf, sizeof buf, "libgex: ");
  n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
  if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  fflush(stdout);
  ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
  (void)w;
}

void gexi_end_process(int code) {
  /* One thread runs the at-exit work (it tells the network peers that this
   * process leaves, with a bounded effort); a second one -- the watchdog's
   * exit timeout racing a gasnet_exit, two fatal errors at once -- waits
   * for that thread's _exit instead of cutting it short.  The thread that
   * began comes back here only from a signal handler that interrupted it,
   * and then ends at once. */
  if (!gexi_tls.ending) {
    gexi_tls.ending = 1;
    if (atomic_exchange_explicit(&gexi_ctx.ending, 1, memory_order_acq_rel))
      for (;;) pause();
    gexi_rcv_thread_stop(GEXI_RCV_STOP_MS); /* (no handler runs on it from now on) */
    void (*net_at_exit)(void) = __atomic_load_n(&gexi_ctx.net_at_exit, __ATOMIC_ACQUIRE);
    if (net_at_exit) net_at_exit();
  }
  fflush(stdout);
  fflush(stderr);
  _exit(code);
}

/* GASNET_BACKTRACE=1: a fatal error also prints where it happened, through
 * the tools' hook (the client may have replaced it), as the reference does. */
static void backtrace_if_requested(void) { gasnett_print_backtrace_ifenabled(STDERR_FILENO); }

void gexi_fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(fmt, ap);
  va_end(ap);
  backtrace_if_requested();
  if (gexi_ctx.boot) gexi_ctx.boot->notify_abort(gexi_ctx.boot, 1);
  else if (gexi_ctx.boot_end_early) gexi_ctx.boot_end_early(1, 1); /* a job of gexrun still ends as an abort */
  gexi_end_process(1);
}

int gexi_await_peer_verdict(gex_Rank_t peer) {
  if (!atomic_load_explicit(&gexi_ctx.exit_requested, memory_order_acquire) && gexi_ctx.boot &&
      gexi_ctx.boot->notify_peer_failed)
    gexi_ctx.boot->notify_peer_failed(gexi_ctx.boot, 1, peer);
  return atomic_load_explicit(&gexi_ctx.exit_requested, memory_order_acquire);
}

void gexi_fatal_peer(gex_Rank_t peer, const char *fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* Nothing is said before the launcher's verdict: a death it confirms is
   * reported by the bootstrap's watchdog (which ends this process), and the
   * end of the job explains the failure without a word. */
  if (gexi_await_peer_verdict(peer))
    gexi_end_process(atomic_load_explicit(&gexi_ctx.exit_code, memory_order_relaxed));
  gexi_fatal("%s", msg);
}

void gexi_say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(fmt, ap);
  va_end(ap);
}

void gexi_warn(const char *fmt, ...) {
  if (!gexi_ctx.verbose_errors) return;
  va_list ap;
  va_start(ap, fmt);
  emit(fmt, ap);
  va_end(ap);
}

/* ---- reports called from the inline fast path (gex/gex_inline.h) ---- */
void gexi_bad_rank(const char *fn, gex_TM_t tm, gex_Rank_t rank) {
  if (!gexi_ctx.initialized) gexi_fatal("%s: called before gex_Client_Init", fn);
  if (tm == GEX_TM_INVALID) gexi_fatal("%s: invalid team (GEX_TM_INVALID)", fn);
  gexi_fatal("%s: rank %u out of range (team size %u)", fn, (unsigned)rank,
             (unsigned)GEXI_TM_SIZE(tm));
}

void gexi_bad_range(const char *fn, gex_TM_t tm, gex_Rank_t rank, const void *addr,
                    size_t nbytes) {
  const gexi_Peer_t *p = &GEXI_TM_PEERS(tm)[rank];
  if (p->seg_size == 0)
    gexi_fatal("%s: rank %u has no bound segment (address %p, %zu bytes)", fn, (unsigned)rank,
               addr, nbytes);
  gexi_fatal("%s: address range [%p,+%zu) outside the bound segment of rank %u [%p,+%zu)", fn,
             addr, nbytes, (unsigned)rank, (void *)p->seg_base, (size_t)p->seg_size);
}

void gexi_bad_value_size(const char *fn, size_t nbytes) {
  gexi_fatal("%s: nbytes %zu is not in [1,%zu]", fn, nbytes, sizeof(gex_RMA_Value_t));
}

void gexi_bad_null(const char *fn, const char *what, size_t nbytes) {
  gexi_fatal("%s: %s is NULL (nbytes %zu)", fn, what, nbytes);
}

void gexi_bad_lc_opt(const char *fn, const void *lc_opt, int nbi) {
  const char *takes = nbi ? "an NBI call takes GEX_EVENT_NOW, GEX_EVENT_DEFER or GEX_EVENT_GROUP"
                          : "it takes GEX_EVENT_NOW, GEX_EVENT_DEFER or the address of a gex_Event_t";
  if (!lc_opt) gexi_fatal("%s: lc_opt is NULL (%s)", fn, takes);
  gexi_fatal("%s: lc_opt %p is not allowed (%s)", fn, lc_opt, takes);
}

void gexi_bad_flags(const char *fn, gex_Flags_t flags, gex_Flags_t allowed) {
  gexi_fatal("%s: flags 0x%x: bits 0x%x are not defined for this call (it takes 0x%x)", fn,
             (unsigned)flags, (unsigned)(flags & ~allowed), (unsigned)allowed);
}

#if GEX_CHECKS
void gexi_check_init(const char *fn) {
  if (!gexi_ctx.initialized) gexi_fatal("%s: called before gex_Client_Init", fn);
}

void gexi_check_can_communicate_slow(const char *fn) {
  gexi_check_init(fn);
  if (gexi_tls.handler_depth) gexi_fatal("%s: not allowed inside an AM handler", fn);
  if (gexi_tls.hsl_depth) gexi_fatal("%s: not allowed while holding a handler-safe lock", fn);
}

void gexi_check_can_communicate_flags_slow(const char *fn, gex_Flags_t flags, gex_Flags_t ok) {
  gexi_check_can_communicate(fn);
  GEXI_CHECK_FLAGS(fn, flags, ok);
}
#endif

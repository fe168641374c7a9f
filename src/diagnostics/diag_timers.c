/* diagnostics/diag_timers.c -- section D of the diagnostics: the tools'
 * timers.
 *
 *  - 'iters' successive gasnett_ticks_now() never go back;
 *  - the conversions agree: ticks_to_us is ticks_to_ns / 1000, ticks_to_sec
 *    is ticks_to_ns / 1e9;
 *  - the granularity and overhead reports are positive and below a second;
 *  - a few short naps, each timed by the ticks inside a gettimeofday
 *    interval and by gettimeofday inside a ticks interval: the inner length
 *    is never more than the outer one plus a tenth plus 2 ms (generous: the
 *    two clocks may differ in rate by a small slew, and a thread may lose
 *    the processor between two readings, which only widens the outer
 *    interval), and a nap lasts at least what was asked.
 * Fault: one reading of the first check goes back one tick.
 */
#include "diagnostics/diag.h"

#define NAP_NS UINT64_C(300000)
#define NAPS 8

/* Is inner_ns plausible inside an interval of outer_ns? */
static int nested(uint64_t inner_ns, uint64_t outer_ns) {
  return inner_ns <= outer_ns + outer_ns / 10 + UINT64_C(2000000);
}

void gexdiag_section_timers(void) {
  long iters = gexdiag_ctx.iters;
  int fault = gexdiag_fault();

  gasnett_tick_t prev = gasnett_ticks_now();
  for (long i = 0; i < iters; i++) {
    gasnett_tick_t now = gasnett_ticks_now();
    if (fault && i == iters / 2) now = prev - 1;
    if (now < prev) {
      gexdiag_error("gasnett_ticks_now went back from %llu to %llu", (unsigned long long)prev,
                    (unsigned long long)now);
    }
    prev = now;
  }

  gasnett_tick_t t = gasnett_ticks_now();
  uint64_t ns = gasnett_ticks_to_ns(t), us = gasnett_ticks_to_us(t);
  double sec = gasnett_ticks_to_sec(t);
  if (us != ns / 1000)
    gexdiag_error("gasnett_ticks_to_us gives %llu us for %llu ns", (unsigned long long)us,
                  (unsigned long long)ns);
  double sec_ns = (double)ns * 1e-9;
  if (sec < sec_ns * (1 - 1e-9) - 1e-9 || sec > sec_ns * (1 + 1e-9) + 1e-9)
    gexdiag_error("gasnett_ticks_to_sec gives %.9f s for %llu ns", sec, (unsigned long long)ns);

  double gran = gasnett_tick_granularityus(), over = gasnett_tick_overheadus();
  if (!(gran > 0 && gran < 1e6))
    gexdiag_error("gasnett_tick_granularityus() is %g us", gran);
  if (!(over >= 0 && over < 1e6))
    gexdiag_error("gasnett_tick_overheadus() is %g us", over);

  long naps = iters < NAPS ? iters : NAPS;
  for (long i = 0; i < naps; i++) {
    /* The ticks interval [ta, tb] inside the gettimeofday one [va, vb], and
     * the gettimeofday interval [vb', vc] inside the ticks one [tb', tc]. */
    uint64_t va = gasnett_gettimeofday_us();
    gasnett_tick_t ta = gasnett_ticks_now();
    gasnett_nsleep(NAP_NS);
    gasnett_tick_t tb = gasnett_ticks_now();
    uint64_t vb = gasnett_gettimeofday_us();
    uint64_t tick_ns = gasnett_ticks_to_ns(tb) - gasnett_ticks_to_ns(ta);
    uint64_t tod_ns = (vb - va + 1) * 1000; /* +1: microsecond truncation */
    if (vb < va || !nested(tick_ns, tod_ns))
      gexdiag_error("a nap took %llu ns by the ticks but %lld us by gettimeofday around them",
                    (unsigned long long)tick_ns, (long long)(vb - va));
    if (tick_ns < NAP_NS)
      gexdiag_error("gasnett_nsleep(%llu) returned after %llu ns", (unsigned long long)NAP_NS,
                    (unsigned long long)tick_ns);

    gasnett_tick_t tc = gasnett_ticks_now();
    uint64_t vc = gasnett_gettimeofday_us();
    gasnett_nsleep(NAP_NS);
    uint64_t vd = gasnett_gettimeofday_us();
    gasnett_tick_t td = gasnett_ticks_now();
    uint64_t tod2_ns = vd >= vc + 1 ? (vd - vc - 1) * 1000 : 0;
    uint64_t tick2_ns = gasnett_ticks_to_ns(td) - gasnett_ticks_to_ns(tc);
    if (!nested(tod2_ns, tick2_ns))
      gexdiag_error("a nap took %lld us by gettimeofday but %llu ns by the ticks around them",
                    (long long)(vd - vc), (unsigned long long)tick2_ns);
  }
}

/* src/tools/tools_timer.c -- ticks, their calibration, sleeping.
 *
 * A tick is a nanosecond of CLOCK_MONOTONIC.  That clock is slewed by NTP
 * exactly like the wall clock gettimeofday reads, so intervals measured with
 * either agree; unlike the wall clock it never jumps.
 */
#include "tools_ctx.h"

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

gasnett_tick_t gasnett_ticks_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t gasnett_gettimeofday_us(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* Reads the clock back to back: the smallest positive step bounds the
 * granularity from above, and the mean interval is the cost of one read. */
static void gexti_timer_measure(void) {
  enum { READS = 2000 };
  GEXTI_TOOLS_LOCK();
  if (!__atomic_load_n(&gexti_tools.timer_measured, __ATOMIC_ACQUIRE)) {
    uint64_t min_step = UINT64_MAX;
    gasnett_tick_t first = gasnett_ticks_now(), prev = first;
    for (int i = 0; i < READS; i++) {
      gasnett_tick_t t = gasnett_ticks_now();
      if (t > prev && t - prev < min_step) min_step = t - prev;
      prev = t;
    }
    double overhead_ns = (double)(prev - first) / READS;
    if (min_step == UINT64_MAX) min_step = 1000; /* the clock never moved: say 1 us */
    /* Both must be positive (a read always costs something). */
    gexti_tools.tick_overhead_us = overhead_ns > 0.001 ? overhead_ns / 1000.0 : 1.0e-6;
    gexti_tools.tick_granularity_us = (double)min_step / 1000.0;
    __atomic_store_n(&gexti_tools.timer_measured, 1, __ATOMIC_RELEASE);
  }
  GEXTI_TOOLS_UNLOCK();
}

double gasnett_tick_granularityus(void) {
  if (!__atomic_load_n(&gexti_tools.timer_measured, __ATOMIC_ACQUIRE)) gexti_timer_measure();
  return gexti_tools.tick_granularity_us;
}

double gasnett_tick_overheadus(void) {
  if (!__atomic_load_n(&gexti_tools.timer_measured, __ATOMIC_ACQUIRE)) gexti_timer_measure();
  return gexti_tools.tick_overhead_us;
}

int gasnett_nsleep(uint64_t ns_delay) {
  if (ns_delay == 0) return 0;
  struct timespec ts = {.tv_sec = (time_t)(ns_delay / 1000000000u),
                        .tv_nsec = (long)(ns_delay % 1000000000u)};
  int rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
  if (rc) {
    errno = rc;
    return -1;
  }
  return 0;
}

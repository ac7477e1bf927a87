/*
 * The monotonic clock in nanoseconds, for measures the library acts on
 * (a vDSO call, ~20 ns: not for every packet).
 */
#ifndef HC_UTIL_CLOCK_H
#define HC_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t hc_clock_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif

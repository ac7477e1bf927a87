/* Preloaded into mocassin's ranks by tests/relink/mocassin.sh so that two
 * runs on the same number of ranks draw the same photon packets and can be
 * compared byte for byte.  mocassin seeds each rank with gfortran's default
 * seed plus the wall clock's milliseconds plus the rank; gfortran takes that
 * default seed from getentropy().  Here the wall clock has whole seconds
 * (CLOCK_REALTIME only: hcmpi times nothing with it) and getentropy() gives
 * fixed bytes, so a rank's seed is a function of its rank alone.  glibc's own
 * getrandom() is left alone: hcmpi's keys and segment names come from it. */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int clock_gettime(clockid_t clock, struct timespec *ts) {
  long rc = syscall(SYS_clock_gettime, clock, ts);
  if (rc == 0 && clock == CLOCK_REALTIME)
    ts->tv_nsec = 0;
  return (int)rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  struct timespec now;
  (void)tz;
  if (clock_gettime(CLOCK_REALTIME, &now) != 0)
    return -1;
  tv->tv_sec = now.tv_sec;
  tv->tv_usec = 0;
  return 0;
}

int getentropy(void *buf, size_t len) {
  unsigned char *bytes = buf;
  for (size_t i = 0; i < len; i++)
    bytes[i] = (unsigned char)(i * 37 + 11);
  return 0;
}

/*
 * Mutexes that cost a branch, not an atomic, while only one thread can be
 * inside hcmpi: below MPI_THREAD_MULTIPLE and with no progress thread the
 * application may not call in concurrently, so the hot paths (handle
 * tables, request and type references) need no lock.  The engine turns
 * locking on before a second thread can enter, and never off again, so a
 * lock is never released without having been taken.
 */
#ifndef HC_UTIL_LOCK_H
#define HC_UTIL_LOCK_H

#include <pthread.h>

/* Nonzero once two threads may run hcmpi code at once. */
extern int hc_lock_real;

/* Call before a second thread can enter (MPI_THREAD_MULTIPLE granted, a
 * progress thread about to start); idempotent. */
void hc_lock_make_real(void);

static inline void hc_lock(pthread_mutex_t *m) {
  if (hc_lock_real)
    pthread_mutex_lock(m);
}

static inline void hc_unlock(pthread_mutex_t *m) {
  if (hc_lock_real)
    pthread_mutex_unlock(m);
}

#endif /* HC_UTIL_LOCK_H */

/* Conditional mutexes (lock.h). */
#include "util/lock.h"

int hc_lock_real;

void hc_lock_make_real(void) {
  __atomic_store_n(&hc_lock_real, 1, __ATOMIC_SEQ_CST);
}

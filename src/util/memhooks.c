/*
 * Memory-release hooks (contract in memhooks.h): the callbacks and the
 * allocator settings.  The interposed calls that feed hc_memhooks_notify
 * are in memhooks_interpose.c, linked only into the shared libraries.
 */
#include "config.h"

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "util/env.h"
#include "util/memhooks.h"

typedef struct memhooks_slot {
  _Atomic(hc_memhooks_release_cb) cb;
  _Atomic(void *) arg;
  int live; /* counted in memhooks_live (not inert) */
} memhooks_slot_t;

static memhooks_slot_t memhooks_slots[HC_MEMHOOKS_MAX];
/* Callbacks that run: 0 is the fast path of every interposed call. */
static atomic_int memhooks_live;
/* Threads inside hc_memhooks_notify, so that remove can wait them out. */
static atomic_int memhooks_inflight;
/* Serialises add and remove (never taken in the hook path). */
static pthread_mutex_t memhooks_lock = PTHREAD_MUTEX_INITIALIZER;
static int memhooks_allocator_held; /* 0 not tried, 1 held, -1 refused */

/* Defined by memhooks_interpose.c where it is linked in. */
extern const int hc_memhooks_interposed __attribute__((weak));

void hc_memhooks_notify(void *start, size_t len) {
  if (len == 0 ||
      atomic_load_explicit(&memhooks_live, memory_order_acquire) == 0)
    return;
  atomic_fetch_add(&memhooks_inflight, 1);
  for (int i = 0; i < HC_MEMHOOKS_MAX; i++) {
    hc_memhooks_release_cb cb = atomic_load(&memhooks_slots[i].cb);
    if (cb != NULL)
      cb(atomic_load(&memhooks_slots[i].arg), start, len);
  }
  atomic_fetch_sub(&memhooks_inflight, 1);
}

/* 1 when the malloc in use is glibc's own: not replaced by a sanitizer's
 * allocator, jemalloc or tcmalloc, whose releases mallopt cannot stop
 * (and which may accept mallopt on glibc's behalf). */
static int memhooks_malloc_is_glibc(void) {
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  if (libc == NULL)
    return 0;
  void *own = dlsym(libc, "malloc");
  void *used = dlsym(RTLD_DEFAULT, "malloc");
  dlclose(libc);
  return own != NULL && own == used;
}

/* glibc's free() unmaps blocks above the mmap threshold, trims the top
 * of its heaps (sbrk, or madvise in threads' arenas) and unmaps a
 * thread arena's heap that became wholly free, all through calls to
 * itself, which no interposition sees: make it do none of them.  The
 * last one ignores the trim threshold, so threads created from now on
 * share the main arena. */
int hc_memhooks_hold_allocator(void) {
  if (&hc_memhooks_interposed == NULL)
    return 0; /* no hooks: holding it would buy nothing */
  if (!hc_env_bool("HCMPI_MEMHOOKS", 1))
    return 1;
  pthread_mutex_lock(&memhooks_lock);
  if (memhooks_allocator_held == 0) {
    int took = memhooks_malloc_is_glibc() && mallopt(M_MMAP_MAX, 0) == 1;
    took &= mallopt(M_TRIM_THRESHOLD, -1) == 1;
    took &= mallopt(M_ARENA_MAX, 1) == 1;
    memhooks_allocator_held = took ? 1 : -1;
  }
  int held = memhooks_allocator_held == 1;
  pthread_mutex_unlock(&memhooks_lock);
  return held;
}

int hc_memhooks_add(hc_memhooks_release_cb cb, void *arg) {
  if (&hc_memhooks_interposed == NULL)
    return -1; /* nothing would ever call back */
  int inert = !hc_env_bool("HCMPI_MEMHOOKS", 1);
  int slot = -1;
  pthread_mutex_lock(&memhooks_lock);
  for (int i = 0; i < HC_MEMHOOKS_MAX && slot < 0; i++) {
    if (atomic_load(&memhooks_slots[i].cb) != NULL)
      continue;
    slot = i;
    /* arg first: a hook that sees the callback finds its argument. */
    atomic_store(&memhooks_slots[i].arg, arg);
    atomic_store(&memhooks_slots[i].cb, cb);
  }
  if (slot >= 0 && !inert) {
    memhooks_slots[slot].live = 1;
    atomic_fetch_add(&memhooks_live, 1);
  }
  pthread_mutex_unlock(&memhooks_lock);
  return slot;
}

void hc_memhooks_remove(int slot) {
  if (slot < 0 || slot >= HC_MEMHOOKS_MAX)
    return;
  pthread_mutex_lock(&memhooks_lock);
  if (memhooks_slots[slot].live)
    atomic_fetch_sub(&memhooks_live, 1);
  memhooks_slots[slot].live = 0;
  atomic_store(&memhooks_slots[slot].cb, NULL);
  /* A hook that loaded the callback before the store may still run it. */
  while (atomic_load(&memhooks_inflight) != 0)
    sched_yield();
  atomic_store(&memhooks_slots[slot].arg, NULL);
  pthread_mutex_unlock(&memhooks_lock);
}

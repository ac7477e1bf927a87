/*
 * Memory-release hooks (contract in memhooks.h).  The interposed calls
 * reach the kernel with syscall(), not through libc's symbol: no dlsym()
 * before main and no recursion while a loader resolves it; sanitizers,
 * whose interceptors come before libhcmpi in the lookup order, still see
 * the call first and reach ours as their "real" function.  brk and sbrk
 * are the exception: glibc remembers the break in a variable of its own,
 * so they go to the next definition (dlsym(RTLD_NEXT)).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

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
/* Threads inside memhooks_notify, so that remove can wait them out. */
static atomic_int memhooks_inflight;
/* Serialises add and remove (never taken in the hook path). */
static pthread_mutex_t memhooks_lock = PTHREAD_MUTEX_INITIALIZER;
static int memhooks_allocator_held; /* 0 not tried, 1 held, -1 refused */

static void memhooks_notify(void *start, size_t len) {
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

/* glibc's free() unmaps blocks above the mmap threshold, trims the top
 * of its heaps (sbrk, or madvise in threads' arenas) and unmaps a
 * thread arena's heap that became wholly free, all through calls to
 * itself, which no interposition sees: make it do none of them.  The
 * last one ignores the trim threshold, so threads created from now on
 * share the main arena. */
int hc_memhooks_hold_allocator(void) {
  if (!hc_env_bool("HCMPI_MEMHOOKS", 1))
    return 1;
  pthread_mutex_lock(&memhooks_lock);
  if (memhooks_allocator_held == 0) {
    int took = mallopt(M_MMAP_MAX, 0) == 1;
    took &= mallopt(M_TRIM_THRESHOLD, -1) == 1;
    took &= mallopt(M_ARENA_MAX, 1) == 1;
    memhooks_allocator_held = took ? 1 : -1;
  }
  int held = memhooks_allocator_held == 1;
  pthread_mutex_unlock(&memhooks_lock);
  return held;
}

int hc_memhooks_add(hc_memhooks_release_cb cb, void *arg) {
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

/* ---- the interposed calls ---------------------------------------------- */

int munmap(void *addr, size_t len) {
  memhooks_notify(addr, len);
  return (int)syscall(SYS_munmap, addr, len);
}

void *mremap(void *old_addr, size_t old_len, size_t new_len, int flags, ...) {
  void *new_addr = NULL;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    new_addr = va_arg(ap, void *);
    va_end(ap);
    memhooks_notify(new_addr, new_len); /* whatever was there is gone */
  }
  /* A mapping that may move leaves its old range (whether it then moves
   * is known only afterwards, too late); one that shrinks in place loses
   * its tail. */
  if (flags & (MREMAP_MAYMOVE | MREMAP_FIXED))
    memhooks_notify(old_addr, old_len);
  else if (new_len < old_len)
    memhooks_notify((char *)old_addr + new_len, old_len - new_len);
  return (void *)syscall(SYS_mremap, old_addr, old_len, new_len, flags,
                         new_addr);
}

/* Advice after which the range reads back as zeros or as the file, that
 * is, from other pages than a pinned registration holds. */
static int memhooks_discards(int advice) {
  switch (advice) {
  case MADV_DONTNEED:
  case MADV_REMOVE:
#ifdef MADV_FREE
  case MADV_FREE:
#endif
#ifdef MADV_DONTNEED_LOCKED
  case MADV_DONTNEED_LOCKED:
#endif
    return 1;
  default:
    return 0;
  }
}

int madvise(void *addr, size_t len, int advice) {
  if (memhooks_discards(advice))
    memhooks_notify(addr, len);
  return (int)syscall(SYS_madvise, addr, len, advice);
}

static void *memhooks_mmap(void *addr, size_t len, int prot, int flags, int fd,
                           off_t offset) {
  if (flags & MAP_FIXED)
    memhooks_notify(addr, len); /* replaces what was mapped there */
  void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, offset);
  /* Fresh pages where glibc may have unmapped a block unseen (one it had
   * mapped before the hooks held it): nothing cached there is valid. */
  if (p != MAP_FAILED && !(flags & MAP_FIXED))
    memhooks_notify(p, len);
  return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset) {
  return memhooks_mmap(addr, len, prot, flags, fd, offset);
}

/* What programs built with _FILE_OFFSET_BITS=64 call. */
void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
             off_t offset) {
  return memhooks_mmap(addr, len, prot, flags, fd, offset);
}

int shmdt(const void *addr) {
  /* The segment's size is known only to /proc/self/maps, which a hook
   * should not parse: everything from addr on is treated as released. */
  memhooks_notify((void *)addr, UINTPTR_MAX - (uintptr_t)addr);
  return (int)syscall(SYS_shmdt, addr);
}

static void *memhooks_next(const char *name) { return dlsym(RTLD_NEXT, name); }

void *sbrk(intptr_t increment) {
  void *(*next)(intptr_t) = (void *(*)(intptr_t))memhooks_next("sbrk");
  if (next == NULL) {
    errno = ENOMEM;
    return (void *)-1;
  }
  if (increment < 0) {
    char *top = next(0);
    memhooks_notify(top + increment, (size_t)-increment);
  }
  return next(increment);
}

int brk(void *addr) {
  int (*next)(void *) = (int (*)(void *))memhooks_next("brk");
  void *(*next_sbrk)(intptr_t) = (void *(*)(intptr_t))memhooks_next("sbrk");
  if (next == NULL || next_sbrk == NULL) {
    errno = ENOMEM;
    return -1;
  }
  char *top = next_sbrk(0);
  if ((char *)addr < top)
    memhooks_notify(addr, (size_t)(top - (char *)addr));
  return next(addr);
}

/*
 * The memory-release hooks' interposed calls (memhooks.h): munmap, mremap,
 * madvise, mmap, mmap64, shmdt, brk and sbrk tell hc_memhooks_notify,
 * then make the real call.  Linked only into the shared libraries
 * (libhcmpi and its MPICH-named copies, whose version script exports
 * these names) and into the hooks' unit test: an executable that holds
 * them itself comes before a sanitizer runtime in the lookup order, and
 * ThreadSanitizer then calls them before it is initialised.
 *
 * They reach the kernel with syscall(), not through libc's symbol: no
 * dlsym() before main and no recursion while a loader resolves it;
 * sanitizers, whose interceptors come before libhcmpi, still see the call
 * first and reach ours as their "real" function.  brk and sbrk are the
 * exception: glibc remembers the break in a variable of its own, so they
 * go to the next definition (dlsym(RTLD_NEXT)).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/memhooks.h"

/* Tells memhooks.c that the calls below are in this program. */
const int hc_memhooks_interposed = 1;

int munmap(void *addr, size_t len) {
  hc_memhooks_notify(addr, len);
  return (int)syscall(SYS_munmap, addr, len);
}

void *mremap(void *old_addr, size_t old_len, size_t new_len, int flags, ...) {
  void *new_addr = NULL;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    new_addr = va_arg(ap, void *);
    va_end(ap);
    hc_memhooks_notify(new_addr, new_len); /* whatever was there is gone */
  }
  /* A mapping that may move leaves its old range (whether it then moves
   * is known only afterwards, too late); one that shrinks in place loses
   * its tail. */
  if (flags & (MREMAP_MAYMOVE | MREMAP_FIXED))
    hc_memhooks_notify(old_addr, old_len);
  else if (new_len < old_len)
    hc_memhooks_notify((char *)old_addr + new_len, old_len - new_len);
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
    hc_memhooks_notify(addr, len);
  return (int)syscall(SYS_madvise, addr, len, advice);
}

static void *memhooks_mmap(void *addr, size_t len, int prot, int flags, int fd,
                           off_t offset) {
  if (flags & MAP_FIXED)
    hc_memhooks_notify(addr, len); /* replaces what was mapped there */
  void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, offset);
  /* Fresh pages where glibc may have unmapped a block unseen (one it had
   * mapped before the hooks held it): nothing cached there is valid. */
  if (p != MAP_FAILED && !(flags & MAP_FIXED))
    hc_memhooks_notify(p, len);
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
  hc_memhooks_notify((void *)addr, UINTPTR_MAX - (uintptr_t)addr);
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
    hc_memhooks_notify(top + increment, (size_t)-increment);
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
    hc_memhooks_notify(addr, (size_t)(top - (char *)addr));
  return next(addr);
}

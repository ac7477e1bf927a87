/*
 * Memory-release hooks: a callback hears of every address range whose
 * pages are about to leave the process (or be replaced), so that a cache
 * of pinned memory registrations can forget them.  libhcmpi defines, and
 * exports, munmap, mremap, madvise, mmap, shmdt, brk and sbrk
 * (memhooks_interpose.c): each tells the callbacks, then makes the real
 * call (docs/verbs.md, "Memory-release hooks").  A program that links the
 * engine statically (libhccore) has no such calls: hc_memhooks_add then
 * refuses.
 *
 * Those definitions are safe at any time (before MPI_Init, in any thread,
 * inside the allocator): with no callback registered they cost one atomic
 * load; with one, no lock of this module is taken and nothing is
 * allocated.  A callback therefore runs in whatever thread releases the
 * memory, possibly inside malloc or free: it must neither allocate nor
 * release memory nor block for long.
 *
 * What the hooks cannot see: calls libc makes to itself (glibc's malloc
 * unmaps large blocks and trims its heaps that way) and raw system calls.
 * hc_memhooks_hold_allocator therefore tells glibc's allocator to keep
 * what it has.
 */
#ifndef HC_MEMHOOKS_H
#define HC_MEMHOOKS_H

#include <stddef.h>

/* [start, start + len) is about to be unmapped, moved, discarded or
 * mapped over (or has just been mapped anew); len > 0. */
typedef void (*hc_memhooks_release_cb)(void *arg, void *start, size_t len);

#define HC_MEMHOOKS_MAX 4

/* Registers cb(arg, ...) for every later release; returns a slot to pass
 * to hc_memhooks_remove, or -1 when HC_MEMHOOKS_MAX are registered or the
 * interposed calls are not in this program.
 * HCMPI_MEMHOOKS=0 (for tests only) makes the hooks inert: the slot is
 * granted but the callback never runs, as if the library had no hooks. */
int hc_memhooks_add(hc_memhooks_release_cb cb, void *arg);
/* Keeps glibc's malloc from handing memory back to the kernel behind the
 * hooks: M_MMAP_MAX 0, M_TRIM_THRESHOLD at its maximum, M_ARENA_MAX 1.
 * Freed memory then stays in the process for its lifetime, and threads
 * share one arena.  1 when the allocator took every setting; 0 when
 * malloc is not glibc's (a sanitizer's, jemalloc, tcmalloc) or refused
 * them, and free() may then still release memory unseen, or when the
 * interposed calls are not in this program (nothing is changed then).  Under HCMPI_MEMHOOKS=0 it
 * changes nothing and says 1. */
int hc_memhooks_hold_allocator(void);
/* Unregisters a slot; once it returns no thread is inside that callback.
 * Safe on -1. */
void hc_memhooks_remove(int slot);

/* For memhooks_interpose.c: [start, start + len) is leaving; runs the
 * callbacks.  Async-signal-safe as long as the callbacks are. */
void hc_memhooks_notify(void *start, size_t len);

#endif /* HC_MEMHOOKS_H */

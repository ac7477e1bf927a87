/*
 * TEST DOUBLE of libibverbs.so.1: frames of pinned regions (fv_pinned.h).
 * pagemap: one 64-bit entry per page; bit 63 "present", bits 0-54 the
 * frame number, which the kernel shows as 0 to processes without
 * CAP_SYS_ADMIN.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fv_pinned.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define FV_PM_PRESENT (1ull << 63)
#define FV_PM_FRAME ((1ull << 55) - 1)

static uintptr_t fv_page(void) { return (uintptr_t)sysconf(_SC_PAGESIZE); }

/* The frames of n pages from the page holding addr in process pid (0 for
 * pages not present); 0 on success. */
static int fv_frames(pid_t pid, uintptr_t addr, size_t n, uint64_t *out) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/pagemap", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t want = n * sizeof *out;
  off_t at = (off_t)(addr / fv_page() * sizeof *out);
  ssize_t got = pread(fd, out, want, at);
  close(fd);
  if (got != (ssize_t)want)
    return -1;
  for (size_t i = 0; i < n; i++)
    out[i] = (out[i] & FV_PM_PRESENT) ? out[i] & FV_PM_FRAME : 0;
  return 0;
}

int fv_pinned_enabled(void) {
  static int enabled = -1;
  if (enabled >= 0)
    return enabled;
  const char *env = getenv("FAKE_VERBS_CHECK_PINNED");
  if (env != NULL && env[0] == '0') {
    enabled = 0;
    return enabled;
  }
  volatile uint64_t probe = 1; /* a present page of our own */
  uint64_t frame = 0;
  int readable =
      fv_frames(getpid(), (uintptr_t)&probe, 1, &frame) == 0 && frame != 0;
  if (env != NULL && env[0] == '1' && !readable)
    fprintf(stderr, "fake-verbs: FAKE_VERBS_CHECK_PINNED=1 but "
                    "/proc/self/pagemap shows no frame numbers (not root?)\n");
  enabled = readable;
  return enabled;
}

/* Pinning faults every page in; a writable region gets private copies of
 * shared (copy-on-write, zero) pages first, which POPULATE_WRITE gives
 * without changing a byte.  Older kernels and read-only mappings: read. */
static void fv_fault_in(uintptr_t start, size_t len) {
  if (madvise((void *)start, len, MADV_POPULATE_WRITE) == 0 ||
      madvise((void *)start, len, MADV_POPULATE_READ) == 0)
    return;
  for (uintptr_t p = start; p < start + len; p += fv_page())
    (void)*(volatile const char *)p;
}

uint64_t *fv_pinned_record(void *addr, size_t len, size_t *npages) {
  uintptr_t page = fv_page();
  uintptr_t start = (uintptr_t)addr & ~(page - 1);
  uintptr_t end = ((uintptr_t)addr + len + page - 1) & ~(page - 1);
  size_t n = (end - start) / page;
  if (n == 0)
    return NULL;
  fv_fault_in(start, end - start);
  uint64_t *frames = malloc(n * sizeof *frames);
  if (frames == NULL)
    return NULL;
  if (fv_frames(getpid(), start, n, frames) != 0) {
    free(frames);
    return NULL;
  }
  *npages = n;
  return frames;
}

int fv_pinned_stale(pid_t pid, uintptr_t base, const uint64_t *frames,
                    uintptr_t addr, size_t len, const char *who, uint32_t key) {
  uintptr_t page = fv_page();
  if (len == 0)
    return 0;
  uintptr_t first = addr / page, last = (addr + len - 1) / page;
  size_t n = last - first + 1;
  uint64_t *now = malloc(n * sizeof *now);
  if (now == NULL || fv_frames(pid, addr, n, now) != 0) {
    free(now);
    return 0; /* cannot tell: the transfer itself will say */
  }
  const uint64_t *then = frames + (first - base / page);
  int stale = 0;
  for (size_t i = 0; i < n && !stale; i++) {
    if (then[i] == 0 || now[i] == then[i])
      continue;
    stale = 1;
    fprintf(stderr,
            "fake-verbs: stale pinned MR (%s key 0x%x): page 0x%lx of pid %d "
            "is on frame 0x%llx, registered on 0x%llx (memory freed or "
            "remapped under a registration)\n",
            who, key, (unsigned long)((first + i) * page), (int)pid,
            (unsigned long long)now[i], (unsigned long long)then[i]);
  }
  free(now);
  return stale;
}

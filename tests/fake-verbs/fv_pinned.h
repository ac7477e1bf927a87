/*
 * Part of the TEST DOUBLE of libibverbs.so.1 (README.md): the page frames
 * a pinned (non-ODP) memory region holds.  Real pinning keeps the pages a
 * region had at registration, whatever happens to the mapping later; the
 * double reads by address, so without this a registration gone stale
 * (memory freed, unmapped, mapped anew) would still move the right bytes
 * and no test could fail.  ibv_reg_mr records each page's frame number
 * from /proc/self/pagemap; every RDMA READ/WRITE compares the frames of
 * the pages it touches with the recorded ones.
 */
#ifndef FV_PINNED_H
#define FV_PINNED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 1 when regions are checked: FAKE_VERBS_CHECK_PINNED=1/0, by default
 * when /proc/self/pagemap shows frame numbers (root). */
int fv_pinned_enabled(void);
/* Faults [addr, addr + len) in (for writing where the mapping allows, as
 * pinning a writable region does) and returns the frame of each of its
 * pages, first page first (0: none), *npages of them; NULL on failure.
 * The caller frees it. */
uint64_t *fv_pinned_record(void *addr, size_t len, size_t *npages);
/* 1 when a page of [addr, addr + len) in process pid sits on another
 * frame than frames[], the frames recorded for the pages from the one
 * holding base on; then prints one line on stderr naming key and who
 * (local or remote) and the address. */
int fv_pinned_stale(pid_t pid, uintptr_t base, const uint64_t *frames,
                    uintptr_t addr, size_t len, const char *who, uint32_t key);

#endif /* FV_PINNED_H */

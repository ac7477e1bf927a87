/*
 * Shared segments of a node's ranks, made one way for everyone who needs
 * one (the shm transport's segment, the collectives' per-communicator
 * segments): an anonymous memfd that the others reopen through
 * /proc/<pid>/fd/<n> (nothing named, so nothing can leak whoever dies
 * when), or with HCMPI_SHM_MEMFD=0 a POSIX segment with an unguessable
 * name, which its creator unlinks once every rank mapped it.  Mode 0600
 * either way.  Which one was made travels as its name: "memfd-<pid>-<fd>"
 * or "/hcmpi-<16 hex digits>".  A named segment's creator may die before
 * it unlinks: under a launcher that exports HCMPI_SHM_TAG (hcmpirun) the
 * name is "/hcmpi-<tag>-<16 hex digits>", and the launcher sweeps its
 * job's tag away when the job ends.
 */
#ifndef HC_UTIL_SHMSEG_H
#define HC_UTIL_SHMSEG_H

#include <stddef.h>

#include "hcomm.h"

#define HC_SHMSEG_NAME_MAX 40
/* The most hex digits of HCMPI_SHM_TAG (the name must fit the above). */
#define HC_SHMSEG_TAG_MAX 8

/* A new segment's descriptor (the caller closes it), its name in name[len]
 * and whether it is a memfd (*memfd 1: keep the descriptor open until
 * every rank opened it; 0: shm_unlink the name once they did).  -1 on
 * failure, logged. */
int hc_shmseg_create(char *name, size_t len, int *memfd);
/* Sizes a new segment to size bytes and reserves its pages, so that a
 * full /dev/shm is an error now rather than a SIGBUS at some first touch. */
hc_status_t hc_shmseg_reserve(int fd, const char *name, size_t size);
/* As hc_shmseg_reserve, reserving only the first reserved bytes: the rest
 * reads as zeros and takes pages at its first touch (the caller reserves
 * them before, with MADV_POPULATE_WRITE on its mapping). */
hc_status_t hc_shmseg_reserve_part(int fd, const char *name, size_t size,
                                   size_t reserved);
/* Opens the segment another local rank made, by its name; -1 (errno set)
 * on failure. */
int hc_shmseg_open(const char *name);
/* Unlinks every named segment of tag (1 to HC_SHMSEG_TAG_MAX hex digits)
 * in /dev/shm; how many it removed. */
int hc_shmseg_sweep(const char *tag);

#endif /* HC_UTIL_SHMSEG_H */

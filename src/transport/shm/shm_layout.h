/*
 * Where the parts of a node's shared segment lie (shm.c describes what they
 * do): the header, one slot per local rank, the pair rings, the pair fast
 * boxes, the pools.  A module of its own so that a unit test checks that no
 * two parts overlap.
 */
#ifndef HC_SHM_LAYOUT_H
#define HC_SHM_LAYOUT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/shm/shm_ring.h" /* HC_SHM_RING_ALIGN */

/* At offset 0, written by local rank 0 before any other rank maps the
 * segment; magic last. */
struct hc_shm_seg_hdr {
  uint64_t magic;
  uint32_t version;
  uint32_t local_size;
  uint64_t seg_size;
  uint64_t ring_offset;
  uint64_t ring_bytes;
  uint64_t pool_offset;
  uint64_t pool_bytes;
  uint64_t cell_size; /* pool cell payload: the largest packet */
  uint32_t ncells;    /* cells per pool */
  uint32_t ring_slots;
  uint64_t box_offset;
  uint64_t box_bytes; /* one fast box, header included */
  /* Local rank 0's HCMPI_SHM_LIGHT_FENCE (and the node not crowded): 1
   * when every sleeper of the node runs membarrier, so that sends may
   * fence against the compiler only (shm.c). */
  uint32_t light_fences;
};

/* One per local rank, a cache line each, from HC_SHM_SLOTS_OFFSET. */
struct hc_shm_slot {
  _Alignas(HC_SHM_RING_ALIGN) _Atomic int32_t pid;
  _Atomic uint32_t doorbell; /* futex word, bumped by wakers */
  /* Threads of the owner in (or entering) FUTEX_WAIT: a count, since an
   * async progress thread may sleep beside the application thread. */
  _Atomic uint32_t sleeping;
  /* The pollable doorbell (shm.c): the owner's eventfd as its own
   * descriptor number (-1: none), how many local peers hold a copy of it,
   * and the owner's threads in (or entering) a poll on it. */
  _Atomic int32_t bell_fd;
  _Atomic uint32_t bell_holders;
  _Atomic uint32_t polling;
  /* 1 while the owner has lately waited for a core more than
   * HCMPI_SHM_STREAM_RUNQ_MAX allows (shm.c: shm_sample_runq). */
  _Atomic uint32_t runq_contended;
  /* On a node of two ranks whose large rendezvous follow their measured
   * rates (shm_placement.c): 1 + whether the owner now takes its peer's
   * cores for far apart (it reads them), 0 while it measured nothing; the
   * peer's cell fills follow it (shm.c: shm_fills_follow). */
  _Atomic uint32_t far_now;
  /* Crowded nodes only (shm.c: shm_mark_sent): bit (p mod 64) set by
   * local rank p after it published a packet for the owner, cleared by
   * the owner as it takes them, so its empty poll reads this line, not
   * every peer's box and ring. */
  _Atomic uint64_t sent_mask;
  /* A CMA read the owner shares with the peer it reads from (shm_cma.c:
   * shm_read_shared), on a line of its own since both write it: the
   * chunks claimed (generation, next from the front, end of those left
   * from the back), how many the peer has written, and whether a write of
   * the peer's failed. */
  _Alignas(HC_SHM_RING_ALIGN) _Atomic uint64_t help_claims;
  _Atomic uint32_t help_done;
  _Atomic uint32_t help_failed;
  /* Written by a local peer about to read the owner's memory with CMA
   * (shm_cma.c: shm_cma): until this CLOCK_MONOTONIC time (ns) the owner polls
   * for that peer's answer rather than sleep before it.  On a line of its
   * own, which the owner reads only about to sleep: on the first, every
   * read made the owner's next look at its own runq_contended (once a
   * message) pull that line back from the reader's core. */
  _Alignas(HC_SHM_RING_ALIGN) _Atomic uint64_t read_until_ns;
  /* Local rank 0's only, on a node of two ranks: the start-up ping-pong
   * that tells how far apart the two cores are (shm_placement.c:
   * shm_probe_placement), then its verdict. */
  _Alignas(HC_SHM_RING_ALIGN) _Atomic uint64_t placement_probe;
};

/* The first cache line after the header. */
#define HC_SHM_SLOTS_OFFSET                                                    \
  ((sizeof(struct hc_shm_seg_hdr) + HC_SHM_RING_ALIGN - 1) /                   \
   HC_SHM_RING_ALIGN * HC_SHM_RING_ALIGN)

typedef struct hc_shm_layout {
  size_t ring_offset; /* local_size x (local_size - 1) rings */
  size_t ring_bytes;
  size_t box_offset; /* local_size x (local_size - 1) fast boxes */
  size_t box_bytes;
  size_t pool_offset; /* local_size pools */
  size_t pool_bytes;
  size_t seg_size;
} hc_shm_layout_t;

/* Places the rings (ring_bytes each), the fast boxes (box_bytes each) and
 * the pools (pool_bytes each) of n local ranks after the header and the
 * slots, each area page aligned; fills *out.  Sizes that do not fit a
 * size_t give seg_size 0. */
void hc_shm_layout_plan(int n, size_t ring_bytes, size_t box_bytes,
                        size_t pool_bytes, hc_shm_layout_t *out);

#endif /* HC_SHM_LAYOUT_H */

/*
 * A single-producer/single-consumer ring of fixed-size cells living in a
 * caller-supplied memory region (a shared segment, or any mapping in tests).
 *
 * The region holds only offsets-free state (indices and cells), so two
 * processes that map it at different addresses each attach their own
 * hc_shm_ring_t view.  Exactly one process pushes and exactly one pops.
 * Indices are 64-bit counters that never wrap in practice; the cell count is
 * a power of two.  No locks: the producer publishes a cell with a release
 * store of the tail, the consumer frees it with a release store of the head.
 */
#ifndef HC_SHM_RING_H
#define HC_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "hcomm_status.h"
#include "util/copy.h"
#include "util/fence.h" /* hc_prefetch_write */

#define HC_SHM_RING_ALIGN 64

struct hc_shm_ring_shared;

/* One process's view of a ring.  The cached index is private to the side
 * that owns the view, which spares a read of the other side's cache line on
 * most operations. */
typedef struct hc_shm_ring {
  struct hc_shm_ring_shared *shared;
  /* The two indices inside shared, for the inline look below. */
  _Atomic uint64_t *head_word;
  _Atomic uint64_t *tail_word;
  unsigned char *cells;
  size_t cell_size;     /* payload bytes per cell */
  size_t stride;        /* bytes from one cell to the next */
  uint64_t mask;        /* cell count - 1 */
  uint64_t cached_head; /* producer: last head seen */
  uint64_t cached_tail; /* consumer: last tail seen */
  /* Producer: 1 to ask, after each push, for the next cell's first line
   * for writing (hc_prefetch_write); attach leaves it 0. */
  int prefetch_next;
  /* Consumer: 1 to learn of a cell from its published word before reading
   * the tail (hc_shm_ring_beyond); attach leaves 0. */
  int read_published;
} hc_shm_ring_t;

/* Asks the CPU to move the cache line holding p out of this core's caches
 * to the level the cores share (CLDEMOTE), so the receiver's read of a
 * packet just put is served there instead of snooped out of this core, a
 * line at a time, behind its sequence word: in a fast box 64 B one way
 * 0.29 -> 0.24 us (bench/NOTES.md, box18), through a pool cell 4 KiB 1.27
 * -> 1.10 (mid18).  The encoding lies in the hint-NOP space, so a CPU
 * without CLDEMOTE runs it as a NOP. */
__attribute__((always_inline)) static inline void
hc_shm_demote_line(const void *p) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ volatile(".byte 0x0f, 0x1c, 0x00" /* cldemote (%eax/%rax) */
                   :
                   : "a"(p)
                   : "memory");
#else
  (void)p;
#endif
}

/* Copies the iov pieces one after another to dst (which has room); the
 * gather of every shm queue. */
void hc_shm_iov_gather(unsigned char *dst, const struct iovec *iov, int iovcnt);

/* hc_shm_iov_gather inlined, for the ring push: called, it cost a frame
 * on every send. */
__attribute__((always_inline)) static inline void
hc_shm_iov_gather_inline(unsigned char *dst, const struct iovec *iov,
                         int iovcnt) {
  for (int i = 0; i < iovcnt; i++) {
    hc_copy_payload(dst, iov[i].iov_base, iov[i].iov_len);
    dst += iov[i].iov_len;
  }
}

/* Bytes a ring of ncells cells of cell_size payload bytes occupies; a
 * multiple of HC_SHM_RING_ALIGN.  0 when the shape is invalid (cell_size 0,
 * ncells not a power of two of at least 2). */
size_t hc_shm_ring_bytes(size_t cell_size, uint32_t ncells);

/* Formats an empty ring at region (HC_SHM_RING_ALIGN-aligned, at least
 * hc_shm_ring_bytes long).  Done once, by one process, before either side
 * attaches. */
hc_status_t hc_shm_ring_format(void *region, size_t cell_size, uint32_t ncells);

/* Fills ring with a view of a formatted region; HC_ERR_ARG when the region
 * does not hold a ring. */
hc_status_t hc_shm_ring_attach(hc_shm_ring_t *ring, void *region);

/* Producer: copies the iov pieces into the next cell and publishes it.
 * HC_ERR_ARG when they exceed cell_size, HC_ERR_AGAIN when every cell is
 * in use.  Never blocks. */
hc_status_t hc_shm_ring_push(hc_shm_ring_t *ring, const struct iovec *iov,
                             int iovcnt);

/* What hc_shm_ring_peek leaves in *len for a corrupt ring. */
#define HC_SHM_RING_CORRUPT SIZE_MAX

/* Producer: as hc_shm_ring_push, and the consumer's peek_tagged reports
 * tag with the bytes. */
hc_status_t hc_shm_ring_push_tagged(hc_shm_ring_t *ring, uint32_t tag,
                                    const struct iovec *iov, int iovcnt);

/* The payload starts 16 bytes into a cell so the engine may read its packet
 * header with any natural alignment. */
#define HC_SHM_RING_CELL_HDR 16

/* A cell's header, in the shared region. */
struct hc_shm_ring_cell {
  uint32_t len;
  uint32_t tag; /* the producer's word about the bytes; 0 for plain push */
  /* The low 32 bits of the cell's index + 1, stored (release) once the
   * bytes are in: the consumer that caught up with the tail it knew finds
   * a new cell here, on the line it reads next anyway, instead of reading
   * the tail's line as well.  A cell last written a ring ago holds its
   * index + 1 - ncells, which never matches. */
  _Atomic uint32_t published;
  uint32_t pad;
};

/* The cell that holds index (either side). */
static inline struct hc_shm_ring_cell *hc_shm_ring_cell_at(hc_shm_ring_t *ring,
                                                           uint64_t index) {
  return (struct hc_shm_ring_cell *)(ring->cells +
                                     (index & ring->mask) * ring->stride);
}

/* Producer: hc_shm_ring_push_tagged for a caller that has summed the
 * pieces already (total, at most the ring's cell_size: not checked).
 * Inline: it is the shm send's path, where the call cost a frame and a
 * second sum of the pieces (~25 instructions of every small send). */
__attribute__((always_inline)) static inline hc_status_t
hc_shm_ring_push_sized(hc_shm_ring_t *ring, uint32_t tag,
                       const struct iovec *iov, int iovcnt, size_t total) {
  uint64_t tail = atomic_load_explicit(ring->tail_word, memory_order_relaxed);
  if (tail - ring->cached_head > ring->mask) {
    ring->cached_head =
        atomic_load_explicit(ring->head_word, memory_order_acquire);
    if (tail - ring->cached_head > ring->mask)
      return HC_ERR_AGAIN;
  }
  struct hc_shm_ring_cell *cell = hc_shm_ring_cell_at(ring, tail);
  hc_shm_iov_gather_inline((unsigned char *)cell + HC_SHM_RING_CELL_HDR, iov,
                           iovcnt);
  cell->len = (uint32_t)total;
  cell->tag = tag;
  atomic_store_explicit(&cell->published, (uint32_t)(tail + 1),
                        memory_order_release);
  atomic_store_explicit(ring->tail_word, tail + 1, memory_order_release);
  /* Only a cell the consumer released by the last head seen: a cell it
   * may still be reading stays where it is. */
  if (ring->prefetch_next && tail + 1 - ring->cached_head <= ring->mask)
    hc_prefetch_write(hc_shm_ring_cell_at(ring, tail + 1));
  return HC_OK;
}

/* Consumer: the oldest published cell's bytes (valid until
 * hc_shm_ring_release) and their length, or NULL when the ring is empty.
 * NULL with *len == HC_SHM_RING_CORRUPT when the shared state is impossible
 * (a cell longer than cell_size, a tail more than the ring ahead): the
 * producer wrote garbage and nothing in the ring can be trusted. */
const void *hc_shm_ring_peek(hc_shm_ring_t *ring, size_t *len);

/* Consumer: as hc_shm_ring_peek, with the tag the cell was pushed with. */
const void *hc_shm_ring_peek_tagged(hc_shm_ring_t *ring, size_t *len,
                                    uint32_t *tag);

/* Consumer: frees the cell returned by the last hc_shm_ring_peek. */
void hc_shm_ring_release(hc_shm_ring_t *ring);

/* Consumer: nonzero when a cell is published.  Reads the shared tail, so
 * it sees pushes ordered before the caller's last fence. */
int hc_shm_ring_readable(hc_shm_ring_t *ring);
/* Consumer: 1 when a cell at or past head is published, else 0; head is
 * the shared head.  When the tail it knew is used up it looks first at
 * the head cell's published word and reads the tail only when that says
 * no: in a stream the consumer reaches the tail it knew again and again,
 * and each read of the tail moved the producer's line here besides the
 * cell's (AMD EPYC, 8 B stream, bench/NOTES.md amdrecv23).  Learning a
 * cell from its word is as safe as from the tail: the word is stored
 * after the bytes, with release, and read with acquire.  The sleep
 * protocol does not rest on it: hc_shm_ring_readable reads the tail. */
static inline int hc_shm_ring_beyond(hc_shm_ring_t *ring, uint64_t head) {
  if (head != ring->cached_tail)
    return 1;
  if (ring->read_published &&
      atomic_load_explicit(&hc_shm_ring_cell_at(ring, head)->published,
                           memory_order_acquire) == (uint32_t)(head + 1)) {
    ring->cached_tail = head + 1;
    return 1;
  }
  /* With read_published, cells learned from their words may be ahead of
   * the tail read here (the producer stores the word, then the tail): a
   * tail behind head says nothing new, and taken as known it would make
   * the ring look corrupt (head past the tail). */
  uint64_t tail = atomic_load_explicit(ring->tail_word, memory_order_acquire);
  if (tail == head || (ring->read_published && (int64_t)(tail - head) < 0))
    return 0;
  ring->cached_tail = tail;
  return 1;
}

/* Consumer: 0 when the ring is empty, 1 when peek may find a cell.
 * Inline and one load of the producer's index at most, since every poll
 * asks it of every ring. */
static inline int hc_shm_ring_may_hold(hc_shm_ring_t *ring) {
  uint64_t head = atomic_load_explicit(ring->head_word, memory_order_relaxed);
  return hc_shm_ring_beyond(ring, head);
}

/* Producer: nonzero when at least one cell is free (reads the shared
 * head). */
int hc_shm_ring_writable(hc_shm_ring_t *ring);

/* Producer: nonzero when the consumer released every cell pushed so far.
 * Reads the consumer's index only when a push happened since it last
 * found the ring empty.  Inline: every small send asks it. */
static inline int hc_shm_ring_drained(hc_shm_ring_t *ring) {
  uint64_t tail = atomic_load_explicit(ring->tail_word, memory_order_relaxed);
  if (tail == ring->cached_head)
    return 1;
  ring->cached_head =
      atomic_load_explicit(ring->head_word, memory_order_acquire);
  return tail == ring->cached_head;
}

/* Consumer: 1 when the ring holds at most one packet unread (the one at
 * its head, which may be the one being handled). */
int hc_shm_ring_holds_at_most_one(hc_shm_ring_t *ring);

/* Producer: records that it found the ring full and waits for space. */
void hc_shm_ring_set_waiting(hc_shm_ring_t *ring);

/* Consumer: clears the producer-waiting flag; nonzero when it was set. */
int hc_shm_ring_take_waiting(hc_shm_ring_t *ring);

#endif /* HC_SHM_RING_H */

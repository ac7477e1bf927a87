/*
 * A pool of fixed-size cells owned by one sending process, living in a
 * caller-supplied region of the node's shared segment.
 *
 * The owner fills a free cell for one destination and passes its index to
 * that destination through their pair's ring; the destination reads the
 * cell and hands it back by clearing its state word.  So the bulk memory of
 * eager messages grows with the number of senders, not with the number of
 * pairs: a per-pair ring only carries small packets and cell indices.
 *
 * No locks: each cell has one state word.  Only the owner turns a free
 * cell busy (a relaxed store: nobody else may touch a free cell); only
 * the cell's destination turns it free again, with a release store after
 * it has read the bytes, which the owner's acquire load pairs with before
 * it reuses the cell.
 */
#ifndef HC_SHM_POOL_H
#define HC_SHM_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "hcomm_status.h"

struct hc_shm_pool_shared;

/* One process's view of a pool; next is the owner's private cursor. */
typedef struct hc_shm_pool {
  struct hc_shm_pool_shared *shared;
  unsigned char *cells;
  size_t cell_size; /* payload bytes per cell */
  size_t stride;    /* bytes from one cell to the next */
  uint32_t ncells;
  uint32_t next; /* owner: first cell the next take looks at */
  /* Owner: fills of at least this many bytes go past this core's cache
   * (hc_shm_pool_set_stream_min); 0, as attach leaves it: none. */
  size_t stream_min;
} hc_shm_pool_t;

/* Bytes a pool of ncells cells of cell_size payload bytes occupies, a
 * multiple of 64; 0 when the shape is invalid (no cells, size 0). */
size_t hc_shm_pool_bytes(size_t cell_size, uint32_t ncells);

/* Formats an empty pool at region (64-byte aligned, hc_shm_pool_bytes
 * long).  Once, by one process, before anyone attaches. */
hc_status_t hc_shm_pool_format(void *region, size_t cell_size, uint32_t ncells);

/* Fills pool with a view of a formatted region; HC_ERR_ARG when the region
 * does not hold a pool. */
hc_status_t hc_shm_pool_attach(hc_shm_pool_t *pool, void *region);

/* Owner: copies the iov pieces into a free cell reserved for dest and
 * stores its index in *index.  HC_ERR_ARG when they exceed cell_size,
 * HC_ERR_AGAIN when every cell is in flight.  Never blocks.  A fill of
 * stream_min bytes or more is written with non-temporal stores, all
 * visible to other cores once this returns (so before the caller
 * publishes the index). */
hc_status_t hc_shm_pool_fill(hc_shm_pool_t *pool, uint32_t dest,
                             const struct iovec *iov, int iovcnt,
                             uint32_t *index);

/* Owner: from now on fills of at least min bytes (0: none) bypass this
 * core's cache, where the CPU has non-temporal stores (x86-64 with SSE2;
 * elsewhere this does nothing): for a destination on a core a cache line
 * crosses to slowly, which then reads the bytes from memory instead of
 * from this core's cache, and the next fill of the cell takes no line
 * back from the destination's core (bench/NOTES.md, far28, nt29). */
void hc_shm_pool_set_stream_min(hc_shm_pool_t *pool, size_t min);

/* After the cell's index went out: moves the lines of the cell's header
 * and its first len bytes to the cache level the cores share
 * (hc_shm_demote_line), so the destination's copy out reads them there
 * instead of snooping each out of this core. */
void hc_shm_pool_demote(const hc_shm_pool_t *pool, uint32_t index, size_t len);

/* Owner, between sends: asks for the lines of the header and first len
 * bytes of the cell the next fill looks at first, for writing
 * (hc_prefetch_write), so that fill copies into lines this core holds
 * instead of taking each from the core that last read it.  Nothing where
 * a fill of len bytes would bypass the cache: the lines asked for would
 * only be thrown out again by its stores. */
void hc_shm_pool_prefetch_next(const hc_shm_pool_t *pool, size_t len);

/* Destination: the payload of cell index, or NULL when the index, the
 * length or the cell's owner-written header do not describe a busy cell
 * sent to dest with len bytes (the bytes come from another process and are
 * checked before use). */
const void *hc_shm_pool_data(const hc_shm_pool_t *pool, uint32_t index,
                             uint32_t dest, size_t len);

/* Destination: hands cell index back to its owner. */
void hc_shm_pool_release(hc_shm_pool_t *pool, uint32_t index);

/* Owner: nonzero when at least one cell is free. */
int hc_shm_pool_has_free(const hc_shm_pool_t *pool);

/* Owner: how many cells are in flight (a scan, for the tool interface). */
uint32_t hc_shm_pool_in_use(const hc_shm_pool_t *pool);

/* Owner, after dest died: frees the cells it never handed back; returns
 * how many. */
uint32_t hc_shm_pool_reclaim(hc_shm_pool_t *pool, uint32_t dest);

/* Owner: records that it found the pool full and waits for a cell. */
void hc_shm_pool_set_waiting(hc_shm_pool_t *pool);

/* Destination, after a release: clears the owner-waiting flag; nonzero
 * when it was set. */
int hc_shm_pool_take_waiting(hc_shm_pool_t *pool);

#endif /* HC_SHM_POOL_H */

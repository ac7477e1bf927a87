#include "transport/shm/shm_pool.h"
#include "transport/shm/shm_ring.h" /* hc_shm_iov_gather */

#include <stdatomic.h>
#include <string.h>

#include "util/copy.h"
#include "util/fence.h"

#define SHM_POOL_MAGIC 0x68636d70706f6f6cULL /* "hcmppool" */
#define SHM_POOL_ALIGN 64
/* The payload starts 16 bytes into a cell, as in a ring cell, so the
 * engine may read its packet header with any natural alignment. */
#define SHM_POOL_CELL_HDR 16

enum { SHM_CELL_FREE = 0, SHM_CELL_BUSY = 1 };

/* The waiting flag is written by every destination: a line of its own
 * keeps it off the owner's header line. */
struct hc_shm_pool_shared {
  _Alignas(SHM_POOL_ALIGN) uint64_t magic;
  uint64_t cell_size;
  uint64_t ncells;
  _Alignas(SHM_POOL_ALIGN) _Atomic uint32_t owner_waiting;
};

struct shm_pool_cell {
  _Atomic uint32_t state;
  uint32_t dest;
  uint32_t len;
  uint32_t pad;
};

static size_t shm_pool_align(size_t n) {
  return (n + SHM_POOL_ALIGN - 1) & ~(size_t)(SHM_POOL_ALIGN - 1);
}

static size_t shm_pool_stride(size_t cell_size) {
  return shm_pool_align(SHM_POOL_CELL_HDR + cell_size);
}

size_t hc_shm_pool_bytes(size_t cell_size, uint32_t ncells) {
  if (cell_size == 0 || cell_size > UINT32_MAX - SHM_POOL_CELL_HDR ||
      ncells == 0)
    return 0;
  return sizeof(struct hc_shm_pool_shared) +
         (size_t)ncells * shm_pool_stride(cell_size);
}

static struct shm_pool_cell *shm_pool_cell_at(const hc_shm_pool_t *pool,
                                              uint32_t index) {
  return (struct shm_pool_cell *)(pool->cells + (size_t)index * pool->stride);
}

hc_status_t hc_shm_pool_format(void *region, size_t cell_size,
                               uint32_t ncells) {
  if (hc_shm_pool_bytes(cell_size, ncells) == 0 ||
      ((uintptr_t)region & (SHM_POOL_ALIGN - 1)) != 0)
    return HC_ERR_ARG;
  struct hc_shm_pool_shared *s = region;
  s->cell_size = cell_size;
  s->ncells = ncells;
  atomic_init(&s->owner_waiting, 0);
  unsigned char *cells = (unsigned char *)region + sizeof *s;
  for (uint32_t i = 0; i < ncells; i++) {
    struct shm_pool_cell *c =
        (struct shm_pool_cell *)(cells + (size_t)i * shm_pool_stride(cell_size));
    atomic_init(&c->state, SHM_CELL_FREE);
  }
  atomic_thread_fence(memory_order_release);
  s->magic = SHM_POOL_MAGIC;
  return HC_OK;
}

hc_status_t hc_shm_pool_attach(hc_shm_pool_t *pool, void *region) {
  struct hc_shm_pool_shared *s = region;
  if (s->magic != SHM_POOL_MAGIC || s->ncells > UINT32_MAX ||
      hc_shm_pool_bytes(s->cell_size, (uint32_t)s->ncells) == 0)
    return HC_ERR_ARG;
  atomic_thread_fence(memory_order_acquire);
  pool->shared = s;
  pool->cells = (unsigned char *)region + sizeof *s;
  pool->cell_size = s->cell_size;
  pool->stride = shm_pool_stride(s->cell_size);
  pool->ncells = (uint32_t)s->ncells;
  pool->next = 0;
  pool->stream_min = 0;
  return HC_OK;
}

void hc_shm_pool_set_stream_min(hc_shm_pool_t *pool, size_t min) {
  pool->stream_min = HC_COPY_STREAMS ? min : 0;
}

/* Whether a fill of len bytes bypasses the cache. */
static int shm_pool_streams(const hc_shm_pool_t *pool, size_t len) {
  return pool->stream_min != 0 && len >= pool->stream_min;
}

/* hc_shm_iov_gather with non-temporal stores, all visible to other cores
 * when it returns: the release store that later publishes the cell's
 * index orders plain stores before it, not these (hc_copy_stream_fence). */
static void shm_pool_gather_stream(unsigned char *dst, const struct iovec *iov,
                                   int iovcnt) {
  for (int i = 0; i < iovcnt; i++) {
    hc_copy_stream(dst, iov[i].iov_base, iov[i].iov_len);
    dst += iov[i].iov_len;
  }
  hc_copy_stream_fence();
}

/* The owner's next free cell, looking from its cursor: destinations hand
 * cells back roughly in the order they were sent, so the first look
 * almost always succeeds. */
static int64_t shm_pool_find_free(hc_shm_pool_t *pool) {
  uint32_t i = pool->next;
  for (uint32_t k = 0; k < pool->ncells; k++) {
    struct shm_pool_cell *c = shm_pool_cell_at(pool, i);
    if (atomic_load_explicit(&c->state, memory_order_acquire) ==
        SHM_CELL_FREE)
      return i;
    i = i + 1 == pool->ncells ? 0 : i + 1;
  }
  return -1;
}

hc_status_t hc_shm_pool_fill(hc_shm_pool_t *pool, uint32_t dest,
                             const struct iovec *iov, int iovcnt,
                             uint32_t *index) {
  size_t total = 0;
  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;
  if (total > pool->cell_size)
    return HC_ERR_ARG;
  int64_t found = shm_pool_find_free(pool);
  if (found < 0)
    return HC_ERR_AGAIN;
  struct shm_pool_cell *c = shm_pool_cell_at(pool, (uint32_t)found);
  atomic_store_explicit(&c->state, SHM_CELL_BUSY, memory_order_relaxed);
  c->dest = dest;
  c->len = (uint32_t)total;
  unsigned char *payload = (unsigned char *)c + SHM_POOL_CELL_HDR;
  if (shm_pool_streams(pool, total))
    shm_pool_gather_stream(payload, iov, iovcnt);
  else
    hc_shm_iov_gather(payload, iov, iovcnt);
  pool->next = (uint32_t)found + 1 == pool->ncells ? 0 : (uint32_t)found + 1;
  *index = (uint32_t)found;
  return HC_OK;
}

void hc_shm_pool_demote(const hc_shm_pool_t *pool, uint32_t index, size_t len) {
  if (index >= pool->ncells || len > pool->cell_size)
    return;
  const unsigned char *c = (const unsigned char *)shm_pool_cell_at(pool, index);
  for (size_t off = 0; off < SHM_POOL_CELL_HDR + len; off += SHM_POOL_ALIGN)
    hc_shm_demote_line(c + off);
}

void hc_shm_pool_prefetch_next(const hc_shm_pool_t *pool, size_t len) {
  if (len > pool->cell_size || shm_pool_streams(pool, len))
    return;
  const unsigned char *c =
      (const unsigned char *)shm_pool_cell_at(pool, pool->next);
  for (size_t off = 0; off < SHM_POOL_CELL_HDR + len; off += SHM_POOL_ALIGN)
    hc_prefetch_write(c + off);
}

const void *hc_shm_pool_data(const hc_shm_pool_t *pool, uint32_t index,
                             uint32_t dest, size_t len) {
  if (index >= pool->ncells || len > pool->cell_size)
    return NULL;
  struct shm_pool_cell *c = shm_pool_cell_at(pool, index);
  if (atomic_load_explicit(&c->state, memory_order_relaxed) != SHM_CELL_BUSY ||
      c->dest != dest || c->len != len)
    return NULL;
  return (const unsigned char *)c + SHM_POOL_CELL_HDR;
}

void hc_shm_pool_release(hc_shm_pool_t *pool, uint32_t index) {
  if (index < pool->ncells)
    atomic_store_explicit(&shm_pool_cell_at(pool, index)->state, SHM_CELL_FREE,
                          memory_order_release);
}

int hc_shm_pool_has_free(const hc_shm_pool_t *pool) {
  for (uint32_t i = 0; i < pool->ncells; i++)
    if (atomic_load_explicit(&shm_pool_cell_at(pool, i)->state,
                             memory_order_seq_cst) == SHM_CELL_FREE)
      return 1;
  return 0;
}

uint32_t hc_shm_pool_in_use(const hc_shm_pool_t *pool) {
  uint32_t busy = 0;
  for (uint32_t i = 0; i < pool->ncells; i++)
    busy += atomic_load_explicit(&shm_pool_cell_at(pool, i)->state,
                                 memory_order_relaxed) != SHM_CELL_FREE;
  return busy;
}

uint32_t hc_shm_pool_reclaim(hc_shm_pool_t *pool, uint32_t dest) {
  uint32_t freed = 0;
  for (uint32_t i = 0; i < pool->ncells; i++) {
    struct shm_pool_cell *c = shm_pool_cell_at(pool, i);
    if (atomic_load_explicit(&c->state, memory_order_acquire) ==
            SHM_CELL_BUSY &&
        c->dest == dest) {
      atomic_store_explicit(&c->state, SHM_CELL_FREE, memory_order_relaxed);
      freed++;
    }
  }
  return freed;
}

void hc_shm_pool_set_waiting(hc_shm_pool_t *pool) {
  atomic_store_explicit(&pool->shared->owner_waiting, 1, memory_order_seq_cst);
}

int hc_shm_pool_take_waiting(hc_shm_pool_t *pool) {
  struct hc_shm_pool_shared *s = pool->shared;
  /* A plain load first: the flag is almost always clear, and reading it
   * keeps the line shared. */
  if (atomic_load_explicit(&s->owner_waiting, memory_order_seq_cst) == 0)
    return 0;
  return atomic_exchange_explicit(&s->owner_waiting, 0,
                                  memory_order_seq_cst) != 0;
}

#include "transport/shm/shm_ring.h"

#include <stdatomic.h>
#include <string.h>

#include "util/smallmem.h"

#define SHM_RING_MAGIC 0x68636d7072696e67ULL /* "hcmpring" */

/* Each index sits alone on its cache line so the producer's and the
 * consumer's writes never share one. */
struct hc_shm_ring_shared {
  _Alignas(HC_SHM_RING_ALIGN) uint64_t magic;
  uint64_t cell_size;
  uint64_t ncells;
  _Alignas(HC_SHM_RING_ALIGN) _Atomic uint64_t tail; /* producer writes */
  _Alignas(HC_SHM_RING_ALIGN) _Atomic uint64_t head; /* consumer writes */
  _Alignas(HC_SHM_RING_ALIGN) _Atomic uint32_t producer_waiting;
};

static size_t shm_ring_align(size_t n) {
  return (n + HC_SHM_RING_ALIGN - 1) & ~(size_t)(HC_SHM_RING_ALIGN - 1);
}

static size_t shm_ring_stride(size_t cell_size) {
  return shm_ring_align(HC_SHM_RING_CELL_HDR + cell_size);
}

void hc_shm_iov_gather(unsigned char *dst, const struct iovec *iov,
                       int iovcnt) {
  hc_shm_iov_gather_inline(dst, iov, iovcnt);
}

size_t hc_shm_ring_bytes(size_t cell_size, uint32_t ncells) {
  if (cell_size == 0 || cell_size > UINT32_MAX - HC_SHM_RING_CELL_HDR ||
      ncells < 2 || (ncells & (ncells - 1)) != 0)
    return 0;
  return sizeof(struct hc_shm_ring_shared) +
         (size_t)ncells * shm_ring_stride(cell_size);
}

hc_status_t hc_shm_ring_format(void *region, size_t cell_size,
                               uint32_t ncells) {
  if (hc_shm_ring_bytes(cell_size, ncells) == 0 ||
      ((uintptr_t)region & (HC_SHM_RING_ALIGN - 1)) != 0)
    return HC_ERR_ARG;
  struct hc_shm_ring_shared *s = region;
  s->cell_size = cell_size;
  s->ncells = ncells;
  atomic_init(&s->tail, 0);
  atomic_init(&s->head, 0);
  atomic_init(&s->producer_waiting, 0);
  /* The region may hold anything (a reused mapping): a stray published
   * word equal to 1 would show cell 0 before any push. */
  unsigned char *cells = (unsigned char *)region + sizeof *s;
  for (uint32_t i = 0; i < ncells; i++)
    atomic_init(&((struct hc_shm_ring_cell *)(cells + (size_t)i *
                                              shm_ring_stride(cell_size)))
                     ->published,
                0);
  atomic_thread_fence(memory_order_release);
  s->magic = SHM_RING_MAGIC;
  return HC_OK;
}

hc_status_t hc_shm_ring_attach(hc_shm_ring_t *ring, void *region) {
  struct hc_shm_ring_shared *s = region;
  if (s->magic != SHM_RING_MAGIC ||
      hc_shm_ring_bytes(s->cell_size, (uint32_t)s->ncells) == 0)
    return HC_ERR_ARG;
  atomic_thread_fence(memory_order_acquire);
  ring->shared = s;
  ring->head_word = &s->head;
  ring->tail_word = &s->tail;
  ring->cells = (unsigned char *)region + sizeof *s;
  ring->cell_size = s->cell_size;
  ring->stride = shm_ring_stride(s->cell_size);
  ring->mask = s->ncells - 1;
  ring->cached_head = atomic_load_explicit(&s->head, memory_order_acquire);
  ring->cached_tail = atomic_load_explicit(&s->tail, memory_order_acquire);
  ring->prefetch_next = 0;
  ring->read_published = 0;
  return HC_OK;
}

hc_status_t hc_shm_ring_push(hc_shm_ring_t *ring, const struct iovec *iov,
                             int iovcnt) {
  return hc_shm_ring_push_tagged(ring, 0, iov, iovcnt);
}

hc_status_t hc_shm_ring_push_tagged(hc_shm_ring_t *ring, uint32_t tag,
                                    const struct iovec *iov, int iovcnt) {
  size_t total = 0;
  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;
  if (total > ring->cell_size)
    return HC_ERR_ARG;
  return hc_shm_ring_push_sized(ring, tag, iov, iovcnt, total);
}

const void *hc_shm_ring_peek(hc_shm_ring_t *ring, size_t *len) {
  uint32_t tag;
  return hc_shm_ring_peek_tagged(ring, len, &tag);
}

const void *hc_shm_ring_peek_tagged(hc_shm_ring_t *ring, size_t *len,
                                    uint32_t *tag) {
  struct hc_shm_ring_shared *s = ring->shared;
  uint64_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
  if (!hc_shm_ring_beyond(ring, head))
    return NULL;
  /* The indices and the length live in memory the producer writes: a
   * length past the cell or a tail more than a ring ahead would make the
   * consumer read beyond the cell (or the ring), so they end the ring. */
  struct hc_shm_ring_cell *cell = hc_shm_ring_cell_at(ring, head);
  uint32_t cell_len = cell->len;
  if (ring->cached_tail - head > ring->mask + 1 || cell_len > ring->cell_size) {
    *len = HC_SHM_RING_CORRUPT;
    return NULL;
  }
  *len = cell_len;
  *tag = cell->tag;
  return (unsigned char *)cell + HC_SHM_RING_CELL_HDR;
}

void hc_shm_ring_release(hc_shm_ring_t *ring) {
  struct hc_shm_ring_shared *s = ring->shared;
  uint64_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
  atomic_store_explicit(&s->head, head + 1, memory_order_release);
}

int hc_shm_ring_readable(hc_shm_ring_t *ring) {
  struct hc_shm_ring_shared *s = ring->shared;
  return atomic_load_explicit(&s->head, memory_order_relaxed) !=
         atomic_load_explicit(&s->tail, memory_order_seq_cst);
}

int hc_shm_ring_writable(hc_shm_ring_t *ring) {
  struct hc_shm_ring_shared *s = ring->shared;
  uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
  return tail - atomic_load_explicit(&s->head, memory_order_seq_cst) <=
         ring->mask;
}

int hc_shm_ring_holds_at_most_one(hc_shm_ring_t *ring) {
  struct hc_shm_ring_shared *s = ring->shared;
  uint64_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
  return atomic_load_explicit(&s->tail, memory_order_acquire) - head <= 1;
}

void hc_shm_ring_set_waiting(hc_shm_ring_t *ring) {
  atomic_store_explicit(&ring->shared->producer_waiting, 1,
                        memory_order_seq_cst);
}

int hc_shm_ring_take_waiting(hc_shm_ring_t *ring) {
  struct hc_shm_ring_shared *s = ring->shared;
  /* A plain load first: the flag is almost always clear, and reading it
   * keeps the line shared instead of pulling it exclusive every time. */
  if (atomic_load_explicit(&s->producer_waiting, memory_order_seq_cst) == 0)
    return 0;
  return atomic_exchange_explicit(&s->producer_waiting, 0,
                                  memory_order_seq_cst) != 0;
}

#include "transport/shm/shm_layout.h"

#define SHM_LAYOUT_PAGE ((size_t)4096)

/* a + b, rounded up to a page; 0 on overflow. */
static size_t shm_layout_end(size_t a, size_t b) {
  if (a == 0 || b > SIZE_MAX - a - SHM_LAYOUT_PAGE)
    return 0;
  return (a + b + SHM_LAYOUT_PAGE - 1) & ~(SHM_LAYOUT_PAGE - 1);
}

/* count x each; SIZE_MAX on overflow (shm_layout_end then gives 0). */
static size_t shm_layout_times(size_t count, size_t each) {
  return each != 0 && count > SIZE_MAX / each ? SIZE_MAX : count * each;
}

void hc_shm_layout_plan(int n, size_t ring_bytes, size_t box_bytes,
                        size_t pool_bytes, hc_shm_layout_t *out) {
  size_t ranks = n > 0 ? (size_t)n : 0;
  size_t pairs = ranks > 0 ? ranks * (ranks - 1) : 0;
  out->ring_bytes = ring_bytes;
  out->box_bytes = box_bytes;
  out->pool_bytes = pool_bytes;
  out->ring_offset = shm_layout_end(
      HC_SHM_SLOTS_OFFSET, shm_layout_times(ranks, sizeof(struct hc_shm_slot)));
  out->box_offset =
      shm_layout_end(out->ring_offset, shm_layout_times(pairs, ring_bytes));
  out->pool_offset = shm_layout_end(
      out->box_offset, shm_layout_times(pairs, box_bytes));
  size_t pools = shm_layout_times(ranks, pool_bytes);
  out->seg_size = out->pool_offset == 0 || pools > SIZE_MAX - out->pool_offset
                      ? 0
                      : out->pool_offset + pools;
}

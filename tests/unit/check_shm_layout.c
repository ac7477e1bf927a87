/*
 * The shared segment's layout: the header, the per-rank slots, the rings,
 * the fast boxes and the pools never overlap, whatever the number of local
 * ranks; each part is aligned as its users need; and writing every field of
 * every slot of a segment laid out in memory leaves every header field as
 * written (the slots once began inside the header, over its cell and ring-slot
 * counts).
 */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transport/shm/shm_fastbox.h"
#include "transport/shm/shm_layout.h"
#include "transport/shm/shm_pool.h"
#include "transport/shm/shm_ring.h"

static const int rank_counts[] = {1, 2, 3, 7, 64, 513};
#define NCOUNTS (sizeof rank_counts / sizeof rank_counts[0])

START_TEST(test_slots_follow_the_header) {
  ck_assert_uint_ge(HC_SHM_SLOTS_OFFSET, sizeof(struct hc_shm_seg_hdr));
  ck_assert_uint_eq(HC_SHM_SLOTS_OFFSET % HC_SHM_RING_ALIGN, 0);
  /* Whole cache lines per slot, so that no two ranks' slots share one:
   * the first holds what wakers touch, the second the shared CMA read's
   * claims, which the reader and its helper both write, the third the
   * reader's read_until_ns, which the owner reads only before sleeping,
   * the fourth the start-up placement ping-pong, which nothing else may
   * share while it times line crossings. */
  ck_assert_uint_eq(sizeof(struct hc_shm_slot) % HC_SHM_RING_ALIGN, 0);
  ck_assert_uint_lt(offsetof(struct hc_shm_slot, runq_contended),
                    HC_SHM_RING_ALIGN);
  ck_assert_uint_eq(offsetof(struct hc_shm_slot, help_claims),
                    HC_SHM_RING_ALIGN);
  ck_assert_uint_eq(offsetof(struct hc_shm_slot, read_until_ns),
                    2 * HC_SHM_RING_ALIGN);
  ck_assert_uint_eq(offsetof(struct hc_shm_slot, placement_probe),
                    3 * HC_SHM_RING_ALIGN);
  ck_assert_uint_eq(sizeof(struct hc_shm_slot), 4 * HC_SHM_RING_ALIGN);
}
END_TEST

/* [slots, rings, boxes, pools] follow one another in that order, page
 * aligned, and the segment ends where the last pool does. */
START_TEST(test_parts_do_not_overlap) {
  int n = rank_counts[_i];
  size_t ring_bytes = hc_shm_ring_bytes(240, 16);
  size_t pool_bytes = hc_shm_pool_bytes(4096, 8);
  size_t box_bytes = HC_SHM_FASTBOX_BYTES_MAX;
  hc_shm_layout_t at;
  hc_shm_layout_plan(n, ring_bytes, box_bytes, pool_bytes, &at);
  size_t slots_end =
      HC_SHM_SLOTS_OFFSET + (size_t)n * sizeof(struct hc_shm_slot);
  size_t rings_end =
      at.ring_offset + (size_t)n * (size_t)(n - 1) * at.ring_bytes;
  size_t boxes_end =
      at.box_offset + (size_t)n * (size_t)(n - 1) * at.box_bytes;
  ck_assert_uint_ge(at.ring_offset, slots_end);
  ck_assert_uint_ge(at.box_offset, rings_end);
  ck_assert_uint_ge(at.pool_offset, boxes_end);
  ck_assert_uint_eq(at.box_offset % 4096, 0);
  /* A box is whole cache lines: two boxes never share one. */
  ck_assert_uint_eq(at.box_bytes, box_bytes);
  ck_assert(hc_shm_fastbox_size_ok(at.box_bytes));
  ck_assert_uint_eq(at.seg_size, at.pool_offset + (size_t)n * at.pool_bytes);
  ck_assert_uint_eq(at.ring_offset % 4096, 0);
  ck_assert_uint_eq(at.pool_offset % 4096, 0);
  ck_assert_uint_eq(at.ring_bytes, ring_bytes);
  ck_assert_uint_eq(at.pool_bytes, pool_bytes);
}
END_TEST

START_TEST(test_overflow_gives_no_segment) {
  hc_shm_layout_t at;
  hc_shm_layout_plan(1 << 20, SIZE_MAX / 4, HC_SHM_FASTBOX_BYTES_MIN, 4096,
                     &at);
  ck_assert_uint_eq(at.seg_size, 0);
  hc_shm_layout_plan(4, 4096, HC_SHM_FASTBOX_BYTES_MIN, SIZE_MAX / 2, &at);
  ck_assert_uint_eq(at.seg_size, 0);
}
END_TEST

/* A segment of n ranks in memory: the header as local rank 0 formats it,
 * then every rank's slot written as a live rank does (pid, doorbell,
 * sleeping), with values no header field holds. */
START_TEST(test_slot_writes_leave_the_header_alone) {
  int n = rank_counts[_i];
  hc_shm_layout_t at;
  hc_shm_layout_plan(n, hc_shm_ring_bytes(240, 8), HC_SHM_FASTBOX_BYTES_MIN,
                     hc_shm_pool_bytes(256, 2), &at);
  /* aligned_alloc wants a multiple of the alignment. */
  unsigned char *seg = aligned_alloc(4096, (at.seg_size + 4095) & ~4095ul);
  ck_assert_ptr_nonnull(seg);
  memset(seg, 0, at.seg_size);
  struct hc_shm_seg_hdr want = {
      .magic = 0x1122334455667788ull,
      .version = 0xa1a2a3a4u,
      .local_size = (uint32_t)n,
      .seg_size = at.seg_size,
      .ring_offset = at.ring_offset,
      .ring_bytes = at.ring_bytes,
      .pool_offset = at.pool_offset,
      .pool_bytes = at.pool_bytes,
      .cell_size = 256,
      .ncells = 0xb1b2b3b4u,
      .ring_slots = 0xc1c2c3c4u,
      .box_offset = at.box_offset,
      .box_bytes = at.box_bytes,
  };
  memcpy(seg, &want, sizeof want);
  struct hc_shm_slot *slots = (struct hc_shm_slot *)(seg + HC_SHM_SLOTS_OFFSET);
  for (int r = 0; r < n; r++) {
    atomic_store(&slots[r].pid, -1 - r);
    atomic_store(&slots[r].doorbell, 0xdddddddd);
    atomic_store(&slots[r].sleeping, 0xeeeeeeee);
  }
  ck_assert_mem_eq(seg, &want, sizeof want);
  free(seg);
}
END_TEST

int main(void) {
  Suite *s = suite_create("shm_layout");
  TCase *tc = tcase_create("layout");
  tcase_add_test(tc, test_slots_follow_the_header);
  tcase_add_loop_test(tc, test_parts_do_not_overlap, 0, (int)NCOUNTS);
  tcase_add_test(tc, test_overflow_gives_no_segment);
  /* Up to 64 ranks: 513 would take half a gigabyte of rings. */
  tcase_add_loop_test(tc, test_slot_writes_leave_the_header_alone, 0,
                      (int)NCOUNTS - 1);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

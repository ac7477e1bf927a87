/*
 * The shm fast box alone, in ordinary memory (both ends in one process):
 * a box holds one packet, so a second put must wait for the receiver to
 * hand it back; sequence numbers cross the 32-bit wrap without a packet
 * lost or seen twice; impossible words from the sender are reported as
 * corruption, never read past.  Order between the box and the ring is
 * shm.c's and is checked in check_shm.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transport/shm/shm_fastbox.h"

/* Room for the largest box; box_setup_sized uses its first bytes. */
static _Alignas(HC_SHM_RING_ALIGN) unsigned char
    box_storage[HC_SHM_FASTBOX_BYTES_MAX];
static struct hc_shm_fastbox *const box =
    (struct hc_shm_fastbox *)box_storage;
static hc_shm_fastbox_end_t sender, receiver;

static void box_setup_sized(uint32_t first, size_t bytes) {
  memset(box_storage, 0xa5, sizeof box_storage);
  hc_shm_fastbox_format(box, first);
  hc_shm_fastbox_attach(&sender, box, bytes);
  hc_shm_fastbox_attach(&receiver, box, bytes);
}

static void box_setup(uint32_t first) {
  box_setup_sized(first, HC_SHM_FASTBOX_BYTES_MAX);
}

static void put_bytes(unsigned char first_byte, size_t len) {
  unsigned char buf[HC_SHM_FASTBOX_MAX];
  for (size_t i = 0; i < len; i++)
    buf[i] = (unsigned char)(first_byte + i);
  /* Two pieces, as the engine sends header and payload. */
  struct iovec iov[2] = {{buf, len / 2}, {buf + len / 2, len - len / 2}};
  hc_shm_fastbox_put(&sender, iov, 2, len);
}

static void take_and_check(unsigned char first_byte, size_t want_len) {
  ck_assert(hc_shm_fastbox_holds(&receiver));
  size_t len = 0;
  const unsigned char *data = hc_shm_fastbox_peek(&receiver, &len);
  ck_assert_ptr_nonnull(data);
  ck_assert_uint_eq(len, want_len);
  for (size_t i = 0; i < len; i++)
    ck_assert_uint_eq(data[i], (unsigned char)(first_byte + i));
  hc_shm_fastbox_release(&receiver);
}

START_TEST(test_fastbox_empty_after_format) {
  box_setup(0);
  ck_assert(hc_shm_fastbox_free(&sender));
  ck_assert(!hc_shm_fastbox_holds(&receiver));
  size_t len = 1;
  ck_assert_ptr_null(hc_shm_fastbox_peek(&receiver, &len));
  ck_assert_uint_eq(len, 0);
}
END_TEST

START_TEST(test_fastbox_is_full_until_the_receiver_releases) {
  box_setup(0);
  ck_assert(!hc_shm_fastbox_readable(box));
  put_bytes(7, HC_SHM_FASTBOX_MAX);
  ck_assert(!hc_shm_fastbox_free(&sender));
  ck_assert(hc_shm_fastbox_readable(box));
  /* A peek alone does not hand the box back. */
  size_t len;
  ck_assert_ptr_nonnull(hc_shm_fastbox_peek(&receiver, &len));
  ck_assert(!hc_shm_fastbox_free(&sender));
  take_and_check(7, HC_SHM_FASTBOX_MAX);
  ck_assert(hc_shm_fastbox_free(&sender));
  ck_assert(!hc_shm_fastbox_readable(box));
  ck_assert(!hc_shm_fastbox_holds(&receiver));
}
END_TEST

/* Numbers starting a few before 2^32: every packet arrives once, in
 * order, with its own bytes, across the wrap. */
START_TEST(test_fastbox_sequence_wraps_around) {
  box_setup(UINT32_MAX - 4);
  for (unsigned k = 0; k < 12; k++) {
    ck_assert(hc_shm_fastbox_free(&sender));
    ck_assert(!hc_shm_fastbox_holds(&receiver));
    put_bytes((unsigned char)(k * 17), k + 1);
    take_and_check((unsigned char)(k * 17), k + 1);
  }
  /* UINT32_MAX - 5, plus 12, modulo 2^32. */
  ck_assert_uint_eq(sender.last, 6);
  ck_assert_uint_eq(receiver.last, 6);
}
END_TEST

START_TEST(test_fastbox_zero_length_packet) {
  box_setup(3);
  struct iovec none = {NULL, 0};
  hc_shm_fastbox_put(&sender, &none, 1, 0);
  size_t len = 1;
  ck_assert_ptr_nonnull(hc_shm_fastbox_peek(&receiver, &len));
  ck_assert_uint_eq(len, 0);
  hc_shm_fastbox_release(&receiver);
  ck_assert(hc_shm_fastbox_free(&sender));
}
END_TEST

START_TEST(test_fastbox_skipped_number_is_corrupt) {
  box_setup(0);
  atomic_store(&box->seq, 2); /* 1 never came */
  size_t len = 0;
  ck_assert(hc_shm_fastbox_holds(&receiver));
  ck_assert_ptr_null(hc_shm_fastbox_peek(&receiver, &len));
  ck_assert_uint_eq(len, HC_SHM_FASTBOX_CORRUPT);
}
END_TEST

START_TEST(test_fastbox_length_past_the_box_is_corrupt) {
  box_setup(0);
  put_bytes(1, 4);
  box->len = HC_SHM_FASTBOX_MAX + 1;
  size_t len = 0;
  ck_assert_ptr_null(hc_shm_fastbox_peek(&receiver, &len));
  ck_assert_uint_eq(len, HC_SHM_FASTBOX_CORRUPT);
}
END_TEST

/* A box of the smallest size takes a packet that fills it, and reports as
 * corrupt a length that would fit the largest box but not this one: the
 * receiver bounds a length by the size it was given, not by the largest. */
START_TEST(test_fastbox_small_box_bounds_length_by_its_own_size) {
  size_t small_max = HC_SHM_FASTBOX_BYTES_MIN - HC_SHM_FASTBOX_HDR;
  box_setup_sized(0, HC_SHM_FASTBOX_BYTES_MIN);
  ck_assert_uint_eq(sender.max, small_max);
  put_bytes(9, small_max);
  take_and_check(9, small_max);
  put_bytes(1, 4);
  box->len = (uint32_t)small_max + 1;
  size_t len = 0;
  ck_assert_ptr_null(hc_shm_fastbox_peek(&receiver, &len));
  ck_assert_uint_eq(len, HC_SHM_FASTBOX_CORRUPT);
}
END_TEST

/* Every length from 0 to the largest box's capacity arrives whole, with
 * the sender pushing its lines to the shared cache and without (shm.c
 * turns that off where ranks outnumber processors), and the receiver
 * asking for the lines past the first ahead of the copy. */
START_TEST(test_fastbox_every_length_arrives_whole) {
  for (int demote = 0; demote <= 1; demote++) {
    box_setup((uint32_t)demote * 1000u);
    sender.demote = demote;
    for (size_t len = 0; len <= HC_SHM_FASTBOX_MAX; len++) {
      ck_assert(hc_shm_fastbox_free(&sender));
      put_bytes((unsigned char)(len * 3), len);
      ck_assert(!hc_shm_fastbox_free(&sender));
      take_and_check((unsigned char)(len * 3), len);
    }
  }
}
END_TEST

/* Sizes are whole cache lines from the smallest to the largest box. */
START_TEST(test_fastbox_sizes_accepted) {
  ck_assert(hc_shm_fastbox_size_ok(HC_SHM_FASTBOX_BYTES_MIN));
  ck_assert(hc_shm_fastbox_size_ok(HC_SHM_FASTBOX_BYTES_MAX));
  ck_assert(hc_shm_fastbox_size_ok(5 * HC_SHM_RING_ALIGN));
  ck_assert(!hc_shm_fastbox_size_ok(0));
  ck_assert(!hc_shm_fastbox_size_ok(HC_SHM_FASTBOX_BYTES_MIN - HC_SHM_RING_ALIGN));
  ck_assert(!hc_shm_fastbox_size_ok(HC_SHM_FASTBOX_BYTES_MAX + HC_SHM_RING_ALIGN));
  ck_assert(!hc_shm_fastbox_size_ok(HC_SHM_FASTBOX_BYTES_MIN + 1));
}
END_TEST

/* The polls ask for the lines past the sequence word's that the last
 * packet covered (so a ping-pong's two lines cross together), at most
 * HC_SHM_FASTBOX_POLL_AHEAD of them, and none after a one-line packet. */
START_TEST(test_fastbox_polls_ask_for_the_last_packets_lines) {
  static const struct {
    size_t len;
    int spill;
  } cases[] = {{0, 0},   {48, 0},  {49, 1},  {112, 1}, {113, 2},
               {176, 2}, {177, 3}, {1000, 3}, {8, 0}};
  box_setup(0);
  ck_assert_int_eq(receiver.spill, 0);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    put_bytes((unsigned char)i, cases[i].len);
    take_and_check((unsigned char)i, cases[i].len);
    ck_assert_int_eq(receiver.spill, cases[i].spill);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("shm_fastbox");
  TCase *tc = tcase_create("fastbox");
  /* Check's default 4 s: the every-length case (~2 s of forks and page
   * faults on an idle 2-vCPU machine) ran past it at load 20-37. */
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_fastbox_empty_after_format);
  tcase_add_test(tc, test_fastbox_is_full_until_the_receiver_releases);
  tcase_add_test(tc, test_fastbox_sequence_wraps_around);
  tcase_add_test(tc, test_fastbox_zero_length_packet);
  tcase_add_test(tc, test_fastbox_skipped_number_is_corrupt);
  tcase_add_test(tc, test_fastbox_length_past_the_box_is_corrupt);
  tcase_add_test(tc, test_fastbox_small_box_bounds_length_by_its_own_size);
  tcase_add_test(tc, test_fastbox_sizes_accepted);
  tcase_add_test(tc, test_fastbox_every_length_arrives_whole);
  tcase_add_test(tc, test_fastbox_polls_ask_for_the_last_packets_lines);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

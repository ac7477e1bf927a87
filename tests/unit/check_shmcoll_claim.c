/*
 * The switch word of a lane given back (src/hcomm/shmcoll_lanes.c), seen
 * from rank 0 of a three-rank lane whose other ranks' lines the test
 * writes: a claim that waits behind an earlier one runs its starts as the
 * schedule; the rank that closes the word moves the claim in at the
 * largest count; a word left closed by a rank (killed between closing and
 * setting it) is set by the waiter from the counts as they stand, and a
 * rank that released the claim meanwhile keeps it out for good.
 */
#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/shmcoll_impl.h"

#define RANKS 3

static shmcoll_line_t *lines;
static hc_shmcoll_t lane;
static hc_shmcoll_claim_t claim;

static uint64_t word(uint32_t gen, uint32_t n) {
  return (uint64_t)gen << 32 | n;
}

/* Rank 0's claim number gen of the lane, with starts already decided. */
static void setup_claim(uint32_t gen, uint32_t starts) {
  lines = aligned_alloc(SHMCOLL_LINE, RANKS * sizeof *lines);
  ck_assert_ptr_nonnull(lines);
  memset(lines, 0, RANKS * sizeof *lines);
  memset(&lane, 0, sizeof lane);
  lane.rank = 0;
  lane.size = RANKS;
  lane.lines = lines;
  lane.claims = gen + 1;
  claim = (hc_shmcoll_claim_t){.lane = &lane, .gen = gen, .starts = starts};
  lane.held = lane.held_last = &claim;
  hc_shmcoll_lane_publish(&lane);
}

static void front(int rank, uint32_t gen, uint32_t count) {
  atomic_store(&lines[rank].lane_front, word(gen, count));
}

static uint64_t switch_word(void) { return atomic_load(&lines[0].lane_switch); }

START_TEST(test_waits_behind_an_earlier_claim) {
  setup_claim(1, 0);
  front(1, 0, 7); /* rank 1 still holds claim 0 */
  front(2, 1, 0);
  for (int s = 0; s < 3; s++)
    ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 0);
  ck_assert_uint_eq(switch_word(), 0); /* never closed */
  ck_assert_uint_eq(atomic_load(&lines[0].lane_front), word(1, 3));
  ck_assert_int_eq(claim.in_lane, 0);
  free(lines);
}
END_TEST

START_TEST(test_closer_moves_in_at_the_largest_count) {
  setup_claim(1, 2);
  front(1, 1, 5); /* rank 1 ran starts 0-4 as the schedule */
  front(2, 1, 3);
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 0); /* start 2 */
  ck_assert_uint_eq(switch_word(), word(1, 5));
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 0); /* start 3 */
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 0); /* start 4 */
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 1); /* start 5 */
  ck_assert_int_eq(claim.in_lane, 1);
  free(lines);
}
END_TEST

START_TEST(test_closer_own_start_when_first) {
  setup_claim(1, 4);
  front(1, 1, 2);
  front(2, 1, 4);
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 1); /* start 4 */
  ck_assert_uint_eq(switch_word(), word(1, 4));
  free(lines);
}
END_TEST

START_TEST(test_word_left_closed_is_set_by_the_waiter) {
  setup_claim(1, 2);
  /* Rank 2 closed the word at its start 4 (count 5) and died there. */
  front(2, 1, 5);
  front(1, 1, 3);
  atomic_store(&lines[0].lane_switch, word(1, SHMCOLL_CLAIM_CLOSING(2)));
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 0); /* start 2 */
  /* Rank 2's own start 4 was to be decided by it: the switch is at 4. */
  ck_assert_uint_eq(switch_word(), word(1, 4));
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 0); /* start 3 */
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 1); /* start 4 */
  free(lines);
}
END_TEST

START_TEST(test_word_left_closed_counts_later_waiters) {
  setup_claim(1, 6);
  /* Rank 1 closed at its start 2; rank 2 published count 7 after that
   * and waits for the word, as rank 0 does with its start 6. */
  front(1, 1, 3);
  front(2, 1, 7);
  atomic_store(&lines[0].lane_switch, word(1, SHMCOLL_CLAIM_CLOSING(1)));
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 0); /* start 6 */
  ck_assert_uint_eq(switch_word(), word(1, 7));
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 1); /* start 7 */
  free(lines);
}
END_TEST

START_TEST(test_released_meanwhile_never_moves) {
  setup_claim(1, 0);
  front(1, 1, 3);
  front(2, 2, 0); /* rank 2 released claim 1: its starts all ran as the
                     schedule */
  atomic_store(&lines[0].lane_switch, word(1, SHMCOLL_CLAIM_CLOSING(1)));
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 0);
  ck_assert_uint_eq(switch_word(), word(1, SHMCOLL_CLAIM_NEVER));
  for (int s = 0; s < 4; s++)
    ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 0);
  ck_assert_int_eq(claim.in_lane, 0);
  free(lines);
}
END_TEST

START_TEST(test_release_publishes_the_next_claim) {
  setup_claim(1, 3);
  hc_shmcoll_claim_release(&claim);
  ck_assert_ptr_null(lane.held);
  ck_assert_ptr_null(claim.lane);
  ck_assert_uint_eq(atomic_load(&lines[0].lane_front), word(2, 0));
  /* Released: a start of it decides nothing and publishes nothing. */
  ck_assert_int_eq(hc_shmcoll_claim_start(&claim), 0);
  ck_assert_uint_eq(atomic_load(&lines[0].lane_front), word(2, 0));
  free(lines);
}
END_TEST

int main(void) {
  Suite *s = suite_create("shmcoll_claim");
  TCase *tc = tcase_create("switch");
  tcase_add_test(tc, test_waits_behind_an_earlier_claim);
  tcase_add_test(tc, test_closer_moves_in_at_the_largest_count);
  tcase_add_test(tc, test_closer_own_start_when_first);
  tcase_add_test(tc, test_word_left_closed_is_set_by_the_waiter);
  tcase_add_test(tc, test_word_left_closed_counts_later_waiters);
  tcase_add_test(tc, test_released_meanwhile_never_moves);
  tcase_add_test(tc, test_release_publishes_the_next_claim);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Tag matching: ordering, wildcards, queues, cancel, many contexts. */
#include <check.h>
#include <stdlib.h>

#include "hcomm.h"
#include "hcomm/match.h"

enum { NCTX = 64 };

static hc_match_context_t ctxs[NCTX];

static void setup(void) {
  for (int i = 0; i < NCTX; i++)
    hc_match_context_init(&ctxs[i]);
}

START_TEST(posted_first_fifo_same_source_tag) {
  hc_match_entry_t r[3];
  for (int i = 0; i < 3; i++)
    hc_match_post(&ctxs[0], &r[i], 1, 7);
  for (int i = 0; i < 3; i++)
    ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 1, 7), &r[i]);
  ck_assert_ptr_null(hc_match_take_posted(&ctxs[0], 1, 7));
  ck_assert_uint_eq(ctxs[0].posted.length, 0);
}
END_TEST

/* A lone posted receive (the newest is the oldest, checked first): a
 * message it does not accept leaves it posted, one it accepts empties the
 * queue, and the queue then takes new posts as before. */
START_TEST(lone_posted_receive_taken_or_left) {
  hc_match_entry_t r, s;
  hc_match_post(&ctxs[0], &r, 3, HCOMM_ANY_TAG);
  ck_assert_ptr_null(hc_match_take_posted(&ctxs[0], 4, 1));
  ck_assert_uint_eq(ctxs[0].posted.length, 1);
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 3, 9), &r);
  ck_assert_uint_eq(ctxs[0].posted.length, 0);
  ck_assert_ptr_null(ctxs[0].posted.head);
  ck_assert_ptr_null(ctxs[0].posted.tail);
  ck_assert_ptr_null(hc_match_take_posted(&ctxs[0], 3, 9));
  hc_match_post(&ctxs[0], &s, HCOMM_ANY_SOURCE, 2);
  hc_match_post(&ctxs[0], &r, 3, 2);
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 3, 2), &s);
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 3, 2), &r);
  ck_assert_uint_eq(ctxs[0].posted.length, 0);
}
END_TEST

/* The newest posted receive accepts the message, but an older one does
 * too: the older one is taken (MPI's order), the newer stays. */
START_TEST(newest_posted_does_not_overtake_older) {
  hc_match_entry_t older, newer, other;
  hc_match_post(&ctxs[0], &older, HCOMM_ANY_SOURCE, HCOMM_ANY_TAG);
  hc_match_post(&ctxs[0], &other, 8, 8);
  hc_match_post(&ctxs[0], &newer, 1, 7);
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 1, 7), &older);
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 1, 7), &newer);
  ck_assert_ptr_eq(ctxs[0].posted.head, &other);
  ck_assert_ptr_eq(ctxs[0].posted.tail, &other);
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 8, 8), &other);
}
END_TEST

START_TEST(unexpected_first_fifo_same_source_tag) {
  hc_match_entry_t m[4];
  for (int i = 0; i < 4; i++)
    hc_match_add_unexpected(&ctxs[0], &m[i], 2, 5);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], 2, 5, 0), &m[0]);
  for (int i = 0; i < 4; i++)
    ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], 2, 5, 1), &m[i]);
  ck_assert_ptr_null(hc_match_find_unexpected(&ctxs[0], 2, 5, 1));
}
END_TEST

START_TEST(any_source_takes_oldest_of_all_sources) {
  hc_match_entry_t m[3];
  hc_match_add_unexpected(&ctxs[0], &m[0], 3, 1);
  hc_match_add_unexpected(&ctxs[0], &m[1], 1, 1);
  hc_match_add_unexpected(&ctxs[0], &m[2], 2, 1);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], HCOMM_ANY_SOURCE, 1, 1),
                   &m[0]);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], 2, 1, 1), &m[2]);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], HCOMM_ANY_SOURCE, 1, 1),
                   &m[1]);
}
END_TEST

START_TEST(any_tag_and_any_source_posted) {
  hc_match_entry_t r[3];
  hc_match_post(&ctxs[0], &r[0], 4, HCOMM_ANY_TAG);
  hc_match_post(&ctxs[0], &r[1], HCOMM_ANY_SOURCE, 9);
  hc_match_post(&ctxs[0], &r[2], HCOMM_ANY_SOURCE, HCOMM_ANY_TAG);
  /* (5, 9): r[0] wants source 4, so r[1] is the oldest that accepts. */
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 5, 9), &r[1]);
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 4, 100), &r[0]);
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 0, 0), &r[2]);
  ck_assert_ptr_null(hc_match_take_posted(&ctxs[0], 0, 0));
}
END_TEST

START_TEST(mixed_sources_tags_do_not_overtake) {
  hc_match_entry_t m[6];
  int src[6] = {0, 1, 0, 1, 0, 1};
  int tag[6] = {1, 1, 2, 2, 1, 2};
  for (int i = 0; i < 6; i++)
    hc_match_add_unexpected(&ctxs[0], &m[i], src[i], tag[i]);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], 0, 1, 1), &m[0]);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], 0, 1, 1), &m[4]);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], 1, HCOMM_ANY_TAG, 1),
                   &m[1]);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], 1, 2, 1), &m[3]);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], HCOMM_ANY_SOURCE, 2, 1),
                   &m[2]);
  ck_assert_ptr_eq(
      hc_match_find_unexpected(&ctxs[0], HCOMM_ANY_SOURCE, HCOMM_ANY_TAG, 1),
      &m[5]);
  ck_assert_uint_eq(ctxs[0].unexpected.length, 0);
}
END_TEST

START_TEST(cancel_removes_posted_entry) {
  hc_match_entry_t r[3];
  for (int i = 0; i < 3; i++)
    hc_match_post(&ctxs[0], &r[i], 1, 1);
  ck_assert(hc_match_contains(&ctxs[0].posted, &r[1]));
  hc_match_remove(&ctxs[0].posted, &r[1]);
  ck_assert(!hc_match_contains(&ctxs[0].posted, &r[1]));
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 1, 1), &r[0]);
  ck_assert_ptr_eq(hc_match_take_posted(&ctxs[0], 1, 1), &r[2]);
  /* Removing head and tail keeps the queue consistent. */
  hc_match_post(&ctxs[0], &r[0], 1, 1);
  hc_match_post(&ctxs[0], &r[1], 1, 1);
  hc_match_remove(&ctxs[0].posted, &r[1]);
  hc_match_remove(&ctxs[0].posted, &r[0]);
  ck_assert_ptr_null(ctxs[0].posted.head);
  ck_assert_ptr_null(ctxs[0].posted.tail);
}
END_TEST

START_TEST(probe_does_not_remove) {
  hc_match_entry_t m;
  hc_match_add_unexpected(&ctxs[0], &m, 0, 0);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], 0, 0, 0), &m);
  ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[0], 0, 0, 0), &m);
  ck_assert_uint_eq(ctxs[0].unexpected.length, 1);
}
END_TEST

START_TEST(contexts_are_isolated) {
  hc_match_entry_t m[NCTX], r[NCTX];
  for (int c = 0; c < NCTX; c++)
    hc_match_add_unexpected(&ctxs[c], &m[c], 0, 3);
  for (int c = NCTX - 1; c >= 0; c--) {
    ck_assert_ptr_eq(hc_match_find_unexpected(&ctxs[c], 0, 3, 1), &m[c]);
    ck_assert_ptr_null(hc_match_find_unexpected(&ctxs[c], 0, 3, 1));
  }
  for (int c = 0; c < NCTX; c++)
    hc_match_post(&ctxs[c], &r[c], HCOMM_ANY_SOURCE, HCOMM_ANY_TAG);
  for (int c = 0; c < NCTX; c++)
    ck_assert_ptr_eq(hc_match_take_posted(&ctxs[c], 1, 1), &r[c]);
}
END_TEST

START_TEST(many_entries_stay_in_order) {
  enum { N = 10000 };
  hc_match_entry_t *e = calloc(N, sizeof *e);
  ck_assert_ptr_nonnull(e);
  for (int i = 0; i < N; i++)
    hc_match_add_unexpected(&ctxs[1], &e[i], i % 7, i % 3);
  for (int i = 0; i < N; i++)
    ck_assert_ptr_eq(
        hc_match_find_unexpected(&ctxs[1], HCOMM_ANY_SOURCE, HCOMM_ANY_TAG, 1),
        &e[i]);
  free(e);
}
END_TEST

static Suite *match_suite(void) {
  Suite *s = suite_create("match");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, posted_first_fifo_same_source_tag);
  tcase_add_test(tc, unexpected_first_fifo_same_source_tag);
  tcase_add_test(tc, any_source_takes_oldest_of_all_sources);
  tcase_add_test(tc, any_tag_and_any_source_posted);
  tcase_add_test(tc, mixed_sources_tags_do_not_overtake);
  tcase_add_test(tc, cancel_removes_posted_entry);
  tcase_add_test(tc, probe_does_not_remove);
  tcase_add_test(tc, contexts_are_isolated);
  tcase_add_test(tc, many_entries_stay_in_order);
  tcase_add_test(tc, lone_posted_receive_taken_or_left);
  tcase_add_test(tc, newest_posted_does_not_overtake_older);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(match_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

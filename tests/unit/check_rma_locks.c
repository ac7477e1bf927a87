/*
 * The lock areas of shared windows (src/hcomm/rma_locks.h) at any member
 * count, past the 448 members whose holder bits once fitted the first 64
 * bytes: every member's holder byte lies inside its target's area before
 * the PSCW words, every member's post word after them inside it, areas
 * of consecutive targets do not overlap, and of shared holders spread
 * over all the holder bytes the dead ones' holds are freed (count and
 * marks),
 * the live ones' kept; a dead holder of the atomic word or the exclusive
 * lock is freed, a live one is not.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/rma_locks.h"

static const int member_counts[] = {1,   2,   31,  33,   56,  57,
                                    447, 448, 449, 1000, 4099};
#define NCOUNTS (sizeof member_counts / sizeof member_counts[0])

START_TEST(test_area_holds_every_member) {
  int n = member_counts[_i];
  size_t bytes = hc_winlock_bytes(n);
  size_t sync = hc_winlock_sync_offset(n);
  ck_assert_uint_eq(bytes % HC_WINLOCK_ALIGN, 0);
  ck_assert_uint_eq(sync % HC_WINLOCK_ALIGN, 0);
  /* 56 members and fewer: the locks in one cache line. */
  if (n <= 56)
    ck_assert_uint_eq(sync, 64);
  hc_winlock_t *area = NULL;
  size_t last = (size_t)((char *)hc_winlock_holder(area, n - 1) - (char *)area);
  ck_assert_uint_lt(last, sync);
  /* The PSCW words after the locks, every member's post word inside. */
  size_t done =
      (size_t)((char *)hc_winlock_completions(area, n) - (char *)area);
  size_t first = (size_t)((char *)hc_winlock_posts(area, n, 0) - (char *)area);
  last = (size_t)((char *)hc_winlock_posts(area, n, n - 1) - (char *)area);
  ck_assert_uint_eq(done, sync);
  ck_assert_uint_eq(first, sync + sizeof(uint32_t));
  ck_assert_uint_le(last + sizeof(uint32_t), bytes);
}
END_TEST

/* dead(ctx, rank): rank is in the ctx list ending at -1. */
static int in_list(void *ctx, int rank) {
  for (const int *r = ctx; *r >= 0; r++)
    if (*r == rank)
      return 1;
  return 0;
}

START_TEST(test_dead_shared_holders_freed) {
  int n = member_counts[_i];
  size_t bytes = hc_winlock_bytes(n);
  /* Two targets' areas side by side: the second must stay untouched. */
  unsigned char *mem = calloc(2, bytes);
  ck_assert_ptr_nonnull(mem);
  hc_winlock_t *area = (hc_winlock_t *)(void *)mem;
  hc_winlock_t *next = (hc_winlock_t *)(void *)(mem + bytes);
  /* Distinct holders below n, spread over all the holder bytes. */
  const int wanted[] = {0, 31, 32, 56, 447, 448, 449, 999, n / 2, n - 1};
  int holders[sizeof wanted / sizeof wanted[0] + 1], held = 0;
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
    holders[held] = -1;
    if (wanted[i] < n && !in_list(holders, wanted[i])) {
      ck_assert(hc_winlock_epoch_try(area, 0, wanted[i]));
      holders[held++] = wanted[i];
    }
  }
  holders[held] = -1;
  ck_assert_uint_eq(atomic_load(&area[1]), (uint32_t)held);
  /* Not exclusive while shared holders are in. */
  ck_assert(!hc_winlock_epoch_try(area, 1, n - 1));
  /* Of them, those past 448, the middle and the last die. */
  int dead[] = {n - 1, 448, 449, 999, n / 2, -1};
  int killed = 0;
  for (int i = 0; i < held; i++)
    killed += in_list(dead, holders[i]);
  ck_assert_int_eq(hc_winlock_free_dead(area, n, in_list, dead), killed);
  ck_assert_uint_eq(atomic_load(&area[1]), (uint32_t)(held - killed));
  /* Nothing left to free a second time. */
  ck_assert_int_eq(hc_winlock_free_dead(area, n, in_list, dead), 0);
  for (int r = 0; r < n; r++) {
    int want = in_list(holders, r) && !in_list(dead, r);
    ck_assert_int_eq(atomic_load(hc_winlock_holder(area, r)), want);
  }
  /* The live holders release; then an exclusive lock is granted. */
  for (int r = 0; r < n; r++)
    if (atomic_load(hc_winlock_holder(area, r)))
      hc_winlock_epoch_release(area, 0, r);
  ck_assert_uint_eq(atomic_load(&area[1]), 0);
  ck_assert(hc_winlock_epoch_try(area, 1, n - 1));
  for (size_t i = 0; i < bytes / sizeof(uint32_t); i++)
    ck_assert_uint_eq(atomic_load(&next[i]), 0);
  free(mem);
}
END_TEST

START_TEST(test_dead_word_holders_freed) {
  int n = member_counts[_i];
  hc_winlock_t *area = calloc(1, hc_winlock_bytes(n));
  ck_assert_ptr_nonnull(area);
  int me = n - 1, other = n / 2;
  int dead_me[] = {me, -1}, nobody[] = {-1};
  ck_assert(hc_winlock_atomic_try(area, me));
  ck_assert_int_eq(hc_winlock_atomic_holder(area), me);
  ck_assert(n == 1 || !hc_winlock_atomic_try(area, other));
  ck_assert(hc_winlock_epoch_try(area, 1, me));
  ck_assert(!hc_winlock_epoch_try(area, 0, other));
  ck_assert_int_eq(hc_winlock_free_dead(area, n, in_list, nobody), 0);
  ck_assert_int_eq(hc_winlock_atomic_holder(area), me);
  ck_assert_int_eq(hc_winlock_free_dead(area, n, in_list, dead_me), 2);
  ck_assert_int_eq(hc_winlock_atomic_holder(area), -1);
  ck_assert(hc_winlock_atomic_try(area, other));
  ck_assert(hc_winlock_epoch_try(area, 0, other));
  free(area);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rma_locks");
  TCase *tc = tcase_create("lock areas");
  tcase_add_loop_test(tc, test_area_holds_every_member, 0, (int)NCOUNTS);
  tcase_add_loop_test(tc, test_dead_shared_holders_freed, 0, (int)NCOUNTS);
  tcase_add_loop_test(tc, test_dead_word_holders_freed, 0, (int)NCOUNTS);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

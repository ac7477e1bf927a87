/*
 * src/util/memhooks: a registered callback hears the exact range that
 * munmap, mremap (moving, shrinking), madvise (discarding advice only),
 * mmap MAP_FIXED and sbrk (shrinking) release; nothing once it is
 * removed, nothing when none was registered, nothing under
 * HCMPI_MEMHOOKS=0; and once the allocator is held glibc's malloc stops
 * mapping large blocks of their own and serves new threads from the main
 * arena (whose heap it no longer trims).
 */
#include "config.h"

#include <check.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/memhooks.h"

#define SEEN_MAX 16

static struct {
  void *start;
  size_t len;
} seen[SEEN_MAX];
static int nseen;
static size_t page;

static void record_cb(void *arg, void *start, size_t len) {
  ck_assert_ptr_eq(arg, &nseen);
  if (nseen < SEEN_MAX) {
    seen[nseen].start = start;
    seen[nseen].len = len;
  }
  nseen++;
}

/* 1 when the callback heard exactly [start, start + len). */
static int heard(void *start, size_t len) {
  for (int i = 0; i < nseen && i < SEEN_MAX; i++)
    if (seen[i].start == start && seen[i].len == len)
      return 1;
  return 0;
}

static char *map_pages(int n) {
  char *p = mmap(NULL, (size_t)n * page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(p, MAP_FAILED);
  return p;
}

static int slot;

static void setup(void) {
  page = (size_t)sysconf(_SC_PAGESIZE);
  slot = hc_memhooks_add(record_cb, &nseen);
  ck_assert_int_ge(slot, 0);
  nseen = 0;
}

static void teardown(void) { hc_memhooks_remove(slot); }

START_TEST(test_munmap_range) {
  char *p = map_pages(3);
  nseen = 0;
  ck_assert_int_eq(munmap(p + page, page), 0);
  ck_assert_int_eq(nseen, 1);
  ck_assert(heard(p + page, page));
  munmap(p, 3 * page);
}
END_TEST

START_TEST(test_mremap_shrink_in_place) {
  char *p = map_pages(4);
  nseen = 0;
  ck_assert_ptr_eq(mremap(p, 4 * page, page, 0), p);
  ck_assert_int_eq(nseen, 1);
  ck_assert(heard(p + page, 3 * page));
  munmap(p, page);
}
END_TEST

START_TEST(test_mremap_may_move) {
  char *p = map_pages(2);
  nseen = 0;
  char *q = mremap(p, 2 * page, 64 * page, MREMAP_MAYMOVE);
  ck_assert_ptr_ne(q, MAP_FAILED);
  ck_assert(heard(p, 2 * page));
  munmap(q, 64 * page);
}
END_TEST

START_TEST(test_mremap_fixed) {
  char *p = map_pages(2), *target = map_pages(2);
  nseen = 0;
  char *q =
      mremap(p, 2 * page, 2 * page, MREMAP_MAYMOVE | MREMAP_FIXED, target);
  ck_assert_ptr_eq(q, target);
  ck_assert(heard(p, 2 * page));
  ck_assert(heard(target, 2 * page));
  munmap(q, 2 * page);
}
END_TEST

START_TEST(test_madvise_discarding_only) {
  char *p = map_pages(4);
  nseen = 0;
  ck_assert_int_eq(madvise(p, 2 * page, MADV_WILLNEED), 0);
  ck_assert_int_eq(madvise(p, 4 * page, MADV_NORMAL), 0);
  ck_assert_int_eq(nseen, 0);
  ck_assert_int_eq(madvise(p + 2 * page, 2 * page, MADV_DONTNEED), 0);
  ck_assert_int_eq(nseen, 1);
  ck_assert(heard(p + 2 * page, 2 * page));
#ifdef MADV_FREE
  ck_assert_int_eq(madvise(p, page, MADV_FREE), 0);
  ck_assert(heard(p, page));
#endif
  munmap(p, 4 * page);
}
END_TEST

START_TEST(test_mmap_fixed_replaces) {
  char *p = map_pages(2);
  nseen = 0;
  char *q = mmap(p, 2 * page, PROT_READ,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  ck_assert_ptr_eq(q, p);
  ck_assert(heard(p, 2 * page));
  munmap(p, 2 * page);
}
END_TEST

START_TEST(test_sbrk_shrink) {
  char *before = sbrk(0);
  ck_assert_ptr_ne(sbrk((intptr_t)page), (void *)-1);
  nseen = 0;
  ck_assert_ptr_ne(sbrk(-(intptr_t)page), (void *)-1);
  ck_assert_int_eq(nseen, 1);
  ck_assert(heard(before, page));
}
END_TEST

START_TEST(test_silent_after_remove) {
  char *p = map_pages(2);
  hc_memhooks_remove(slot);
  slot = -1;
  nseen = 0;
  ck_assert_int_eq(munmap(p, 2 * page), 0);
  ck_assert_int_eq(nseen, 0);
}
END_TEST

START_TEST(test_silent_without_callback) {
  hc_memhooks_remove(slot);
  slot = -1;
  char *p = map_pages(2);
  ck_assert_int_eq(madvise(p, 2 * page, MADV_DONTNEED), 0);
  ck_assert_int_eq(munmap(p, 2 * page), 0);
  ck_assert_int_eq(nseen, 0);
}
END_TEST

START_TEST(test_inert_knob) {
  hc_memhooks_remove(slot);
  setenv("HCMPI_MEMHOOKS", "0", 1);
  slot = hc_memhooks_add(record_cb, &nseen);
  ck_assert_int_ge(slot, 0);
  char *p = map_pages(2);
  ck_assert_int_eq(munmap(p, 2 * page), 0);
  ck_assert_int_eq(nseen, 0);
  unsetenv("HCMPI_MEMHOOKS");
}
END_TEST

/* Not under AddressSanitizer, whose allocator ignores mallopt. */
#ifndef __SANITIZE_ADDRESS__
START_TEST(test_malloc_keeps_large_blocks) {
  ck_assert_int_eq(hc_memhooks_hold_allocator(), 1);
  struct mallinfo2 before = mallinfo2();
  void *big = malloc((size_t)64 << 20);
  ck_assert_ptr_nonnull(big);
  struct mallinfo2 after = mallinfo2();
  ck_assert_uint_eq(after.hblks, before.hblks);
  nseen = 0;
  free(big);
  ck_assert_int_eq(nseen, 0);
}
END_TEST

static void *malloc_in_thread(void *arg) {
  (void)arg;
  return malloc((size_t)1 << 20);
}

START_TEST(test_threads_share_main_arena) {
  pthread_t t;
  void *p = NULL;
  ck_assert_int_eq(hc_memhooks_hold_allocator(), 1);
  ck_assert_int_eq(pthread_create(&t, NULL, malloc_in_thread, NULL), 0);
  ck_assert_int_eq(pthread_join(t, &p), 0);
  ck_assert_ptr_nonnull(p);
  /* The main arena's heap lies below the program break; threads' arenas
   * are mappings far above it. */
  ck_assert((char *)p < (char *)sbrk(0));
  free(p);
}
END_TEST
#endif

int main(void) {
  Suite *s = suite_create("memhooks");
  TCase *tc = tcase_create("release");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_munmap_range);
  tcase_add_test(tc, test_mremap_shrink_in_place);
  tcase_add_test(tc, test_mremap_may_move);
  tcase_add_test(tc, test_mremap_fixed);
  tcase_add_test(tc, test_madvise_discarding_only);
  tcase_add_test(tc, test_mmap_fixed_replaces);
  tcase_add_test(tc, test_sbrk_shrink);
  tcase_add_test(tc, test_silent_after_remove);
  tcase_add_test(tc, test_silent_without_callback);
  tcase_add_test(tc, test_inert_knob);
#ifndef __SANITIZE_ADDRESS__
  tcase_add_test(tc, test_malloc_keeps_large_blocks);
  tcase_add_test(tc, test_threads_share_main_arena);
#endif
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * src/transport/verbs/regcache with counting stand-ins for ibv_reg_mr and
 * ibv_dereg_mr (no verbs library): a region put back is found again; a
 * watching cache forgets it when the memory under it is unmapped (at
 * once when unused, when put back when in use, and when released while
 * it was being registered); a cache that does not watch (on-demand
 * paging) keeps it; capacity 0 deregisters on every put.  Exits 77 where
 * infiniband/verbs.h was missing at build time.
 */
#include "config.h"

#include <stdlib.h>


#include <check.h>
#include <sys/mman.h>
#include <unistd.h>

#include "transport/verbs/regcache.h"

#define REGION ((size_t)1 << 20)

static int registered, deregistered;
/* When set, the next registration releases this range first, as another
 * thread's munmap racing the registration would. */
static void *release_during_reg;

static struct ibv_mr *count_reg(struct ibv_pd *pd, void *addr, size_t len,
                                int access) {
  (void)pd;
  (void)access;
  if (release_during_reg != NULL) {
    madvise(release_during_reg, REGION, MADV_DONTNEED);
    release_during_reg = NULL;
  }
  struct ibv_mr *mr = calloc(1, sizeof *mr);
  mr->addr = addr;
  mr->length = len;
  mr->lkey = (uint32_t)++registered;
  return mr;
}

static int count_dereg(struct ibv_mr *mr) {
  deregistered++;
  free(mr);
  return 0;
}

static char *buf;

static void setup(void) {
  registered = deregistered = 0;
  buf = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
  ck_assert_ptr_ne(buf, MAP_FAILED);
}

static void teardown(void) { munmap(buf, REGION); }

static hc_vb_rcache_t *watching(void) {
  hc_vb_rcache_t *c = hc_vb_rcache_new(NULL, count_reg, count_dereg, 0, 8, 1);
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(hc_vb_rcache_capacity(c), 8);
  return c;
}

/* get then put; returns the region's lkey. */
static uint32_t use(hc_vb_rcache_t *c, void *addr, size_t len) {
  hc_vb_rentry_t *ref = NULL;
  struct ibv_mr *mr =
      hc_vb_rcache_get(c, addr, len, IBV_ACCESS_LOCAL_WRITE, &ref);
  ck_assert_ptr_nonnull(mr);
  uint32_t key = mr->lkey;
  hc_vb_rcache_put(c, ref);
  return key;
}

START_TEST(test_reuse_after_put) {
  hc_vb_rcache_t *c = watching();
  uint32_t first = use(c, buf, REGION);
  ck_assert_uint_eq(use(c, buf + 4096, 4096), first);
  hc_vb_rcache_stats_t st = hc_vb_rcache_stats(c);
  ck_assert_int_eq(st.hits, 1);
  ck_assert_int_eq(st.misses, 1);
  ck_assert_int_eq(deregistered, 0);
  hc_vb_rcache_free(c);
  ck_assert_int_eq(deregistered, 1);
}
END_TEST

START_TEST(test_unmap_forgets_unused) {
  hc_vb_rcache_t *c = watching();
  uint32_t first = use(c, buf, REGION);
  munmap(buf + REGION / 2, 4096);
  ck_assert_int_eq(hc_vb_rcache_stats(c).invalidated, 1);
  char *again = mmap(buf + REGION / 2, 4096, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  ck_assert_ptr_eq(again, buf + REGION / 2);
  ck_assert_uint_ne(use(c, buf, REGION), first);
  ck_assert_int_eq(deregistered, 1); /* the stale one, at the next get */
  ck_assert_int_eq(hc_vb_rcache_stats(c).hits, 0);
  hc_vb_rcache_free(c);
}
END_TEST

START_TEST(test_unmap_under_use) {
  hc_vb_rcache_t *c = watching();
  hc_vb_rentry_t *ref = NULL;
  ck_assert_ptr_nonnull(
      hc_vb_rcache_get(c, buf, REGION, IBV_ACCESS_LOCAL_WRITE, &ref));
  ck_assert_int_eq(madvise(buf, 4096, MADV_DONTNEED), 0);
  ck_assert_int_eq(hc_vb_rcache_stats(c).invalidated, 1);
  ck_assert_int_eq(deregistered, 0); /* still in use */
  hc_vb_rcache_put(c, ref);
  ck_assert_int_eq(deregistered, 1);
  use(c, buf, REGION);
  ck_assert_int_eq(hc_vb_rcache_stats(c).hits, 0);
  hc_vb_rcache_free(c);
}
END_TEST

START_TEST(test_release_while_registering) {
  hc_vb_rcache_t *c = watching();
  release_during_reg = buf;
  uint32_t first = use(c, buf, REGION);
  ck_assert_int_eq(hc_vb_rcache_stats(c).invalidated, 1);
  ck_assert_int_eq(deregistered, 1);
  ck_assert_uint_ne(use(c, buf, REGION), first);
  hc_vb_rcache_free(c);
}
END_TEST

START_TEST(test_odp_cache_does_not_watch) {
  hc_vb_rcache_t *c = hc_vb_rcache_new(NULL, count_reg, count_dereg,
                                       IBV_ACCESS_ON_DEMAND, 8, 0);
  uint32_t first = use(c, buf, REGION);
  ck_assert_int_eq(madvise(buf, REGION, MADV_DONTNEED), 0);
  ck_assert_uint_eq(use(c, buf, REGION), first);
  ck_assert_int_eq(hc_vb_rcache_stats(c).invalidated, 0);
  hc_vb_rcache_free(c);
}
END_TEST

START_TEST(test_capacity_zero_keeps_nothing) {
  hc_vb_rcache_t *c = hc_vb_rcache_new(NULL, count_reg, count_dereg, 0, 0, 1);
  ck_assert_int_eq(hc_vb_rcache_capacity(c), 0);
  use(c, buf, REGION);
  use(c, buf, REGION);
  hc_vb_rcache_stats_t st = hc_vb_rcache_stats(c);
  ck_assert_int_eq(st.hits, 0);
  ck_assert_int_eq(st.released, 2);
  ck_assert_int_eq(deregistered, 2);
  hc_vb_rcache_free(c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("regcache");
  TCase *tc = tcase_create("invalidation");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_reuse_after_put);
  tcase_add_test(tc, test_unmap_forgets_unused);
  tcase_add_test(tc, test_unmap_under_use);
  tcase_add_test(tc, test_release_while_registering);
  tcase_add_test(tc, test_odp_cache_does_not_watch);
  tcase_add_test(tc, test_capacity_zero_keeps_nothing);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

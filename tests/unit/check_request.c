/* Engine requests: what an allocation clears and what it keeps.  An
 * allocation zeroes only the per-operation fields; the rare ones (device
 * state, accessor, joins, schedules, channels) must come back zero because
 * hc_request_release cleared them, whether the request lives in the pool
 * or in a caller's home. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/request.h"

static void pack_nothing(void *ctx, size_t off, void *dst, size_t len) {
  (void)ctx;
  (void)off;
  (void)dst;
  (void)len;
}

static void drop_count(hcomm_request_home_t *home) {
  (void)home;
}

/* Sets every rare field a send or receive can carry (dev stays NULL: its
 * release needs the device layer) and the per-operation ones. */
static void dirty(hcomm_request_t *r, hcomm_request_t *parent) {
  hc_request_mark_rare(r);
  r->acc.pack = pack_nothing;
  r->acc.ctx = r;
  r->acc_buf = malloc(16); /* freed by the release */
  r->join_parent = parent;
  r->join_reports = 1;
  r->join_pending = 3;
  r->join_error = HC_ERR_TRUNCATE;
  r->peer = 5;
  r->tag = 9;
  r->bytes = 77;
  r->status.error = HC_ERR_TRUNCATE;
  r->posted = 1;
}

static void assert_clean(const hcomm_request_t *r, hc_request_kind_t kind) {
  ck_assert_int_eq(r->kind, kind);
  ck_assert_int_eq(atomic_load(&r->done), 0);
  ck_assert_int_eq(r->released, 0);
  ck_assert_int_eq(r->posted, 0);
  ck_assert_int_eq(r->peer, 0);
  ck_assert_int_eq(r->tag, 0);
  ck_assert_uint_eq(r->bytes, 0);
  ck_assert_int_eq(r->status.error, HC_OK);
  ck_assert_ptr_null(r->dev);
  ck_assert_ptr_null(r->acc.pack);
  ck_assert_ptr_null(r->acc.unpack);
  ck_assert_ptr_null(r->acc.ctx);
  ck_assert_ptr_null(r->acc_buf);
  ck_assert_ptr_null(r->join_parent);
  ck_assert_int_eq(r->join_reports, 0);
  ck_assert_int_eq(r->join_pending, 0);
  ck_assert_int_eq(r->join_error, HC_OK);
  ck_assert_ptr_null(r->join_done_fn);
  ck_assert_ptr_null(r->plan);
  ck_assert_ptr_null(r->part);
  /* A user request is marked at allocation; a send or receive is not. */
  ck_assert_int_eq(r->rare, kind == HC_REQ_USER);
}

START_TEST(pool_request_reused_clean) {
  hcomm_request_t *parent = hc_request_alloc(HC_REQ_USER);
  ck_assert_ptr_nonnull(parent);
  hcomm_request_t *r = hc_request_alloc(HC_REQ_SEND);
  ck_assert_ptr_nonnull(r);
  assert_clean(r, HC_REQ_SEND);
  uint64_t id = hc_request_id(r);
  dirty(r, parent);
  hc_request_release(r);
  hcomm_request_t *again = hc_request_alloc(HC_REQ_RECV);
  ck_assert_ptr_eq(again, r); /* the freelist hands the same object back */
  assert_clean(again, HC_REQ_RECV);
  ck_assert_uint_ne(hc_request_id(again), id); /* a new generation */
  ck_assert_ptr_null(hc_request_lookup(id));
  ck_assert_ptr_eq(hc_request_lookup(hc_request_id(again)), again);
  hc_request_release(again);
  hc_request_release(parent);
}
END_TEST

/* A request used unmarked (a plain send) keeps rare at 0 and still comes
 * back with every per-operation field cleared. */
START_TEST(unmarked_request_reused_clean) {
  hcomm_request_t *r = hc_request_alloc(HC_REQ_SEND);
  ck_assert_ptr_nonnull(r);
  r->peer = 3;
  r->bytes = 8;
  r->total = 8;
  r->remote_id = 42;
  r->status.bytes = 8;
  hc_request_release(r);
  hcomm_request_t *again = hc_request_alloc(HC_REQ_SEND);
  ck_assert_ptr_eq(again, r);
  assert_clean(again, HC_REQ_SEND);
  ck_assert_uint_eq(again->total, 0);
  ck_assert_uint_eq(again->remote_id, 0);
  ck_assert_uint_eq(again->status.bytes, 0);
  hc_request_release(again);
}
END_TEST

/* The same in a home: index, epoch and drop survive the reuse, the rare
 * fields do not. */
START_TEST(home_request_reused_clean) {
  hcomm_request_home_t *home = malloc(sizeof *home);
  ck_assert_ptr_nonnull(home);
  hcomm_request_home_init(home, drop_count);
  hcomm_request_t *r = hc_request_alloc_at(home, HC_REQ_RECV);
  ck_assert_ptr_eq(r, (hcomm_request_t *)(void *)home);
  assert_clean(r, HC_REQ_RECV);
  uint32_t index = r->index;
  uint64_t id = hc_request_id(r);
  dirty(r, NULL);
  hc_request_release(r);
  ck_assert_int_eq(r->released, 1);
  r = hc_request_alloc_at(home, HC_REQ_SEND);
  assert_clean(r, HC_REQ_SEND);
  ck_assert_uint_eq(r->index, index);
  ck_assert_ptr_eq(r->home_drop, drop_count);
  ck_assert_ptr_null(hc_request_lookup(id));
  ck_assert_ptr_eq(hc_request_lookup(hc_request_id(r)), r);
  hc_request_release(r);
  hc_request_pool_fini();
  free(home);
}
END_TEST

static Suite *request_suite(void) {
  Suite *s = suite_create("request");
  TCase *tc = tcase_create("reuse");
  tcase_add_test(tc, pool_request_reused_clean);
  tcase_add_test(tc, unmarked_request_reused_clean);
  tcase_add_test(tc, home_request_reused_clean);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(request_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

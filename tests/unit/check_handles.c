/* Unit tests of the MPI face's handle tables (src/mpi/handle.c). */
#include "mpi/handle.h"

#include <check.h>
#include <stdlib.h>

static int objs[16];

START_TEST(alloc_gives_direct_handle_of_its_object_type) {
  hc_handle_table_t t = HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_COMM, 0);
  int h = 0;
  ck_assert_int_eq(hc_handle_alloc(&t, &objs[0], &h), 0);
  ck_assert_uint_eq((unsigned)h, 0x84000000u);
  ck_assert_uint_eq(hc_handle_kind(h), HC_HANDLE_KIND_DIRECT);
  ck_assert_uint_eq(hc_handle_object(h), HC_OBJ_COMM);
  ck_assert_ptr_eq(hc_handle_get(&t, h), &objs[0]);
  ck_assert_int_eq(hc_handle_live(&t), 1);
  hc_handle_table_fini(&t);
}
END_TEST

START_TEST(request_handles_use_request_object_bits) {
  hc_handle_table_t t = HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_REQUEST, 0);
  int h1, h2;
  ck_assert_int_eq(hc_handle_alloc(&t, &objs[0], &h1), 0);
  ck_assert_int_eq(hc_handle_alloc(&t, &objs[1], &h2), 0);
  ck_assert_uint_eq((unsigned)h1, 0xac000000u);
  ck_assert_uint_eq((unsigned)h2, 0xac000001u);
  ck_assert_int_eq(hc_handle_null(HC_OBJ_REQUEST), 0x2c000000);
  hc_handle_table_fini(&t);
}
END_TEST

START_TEST(free_returns_object_and_invalidates_handle) {
  hc_handle_table_t t = HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_ERRHANDLER, 0);
  int h;
  ck_assert_int_eq(hc_handle_alloc(&t, &objs[2], &h), 0);
  ck_assert_uint_eq((unsigned)h, 0x94000000u);
  ck_assert_ptr_eq(hc_handle_free(&t, h), &objs[2]);
  ck_assert_ptr_null(hc_handle_get(&t, h));
  ck_assert_ptr_null(hc_handle_free(&t, h)); /* double free rejected */
  ck_assert_int_eq(hc_handle_live(&t), 0);
  hc_handle_table_fini(&t);
}
END_TEST

START_TEST(freed_index_is_reused) {
  hc_handle_table_t t = HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_COMM, 0);
  int a, b, c;
  ck_assert_int_eq(hc_handle_alloc(&t, &objs[0], &a), 0);
  ck_assert_int_eq(hc_handle_alloc(&t, &objs[1], &b), 0);
  ck_assert_ptr_eq(hc_handle_free(&t, a), &objs[0]);
  ck_assert_int_eq(hc_handle_alloc(&t, &objs[3], &c), 0);
  ck_assert_int_eq(c, a);
  ck_assert_ptr_eq(hc_handle_get(&t, c), &objs[3]);
  ck_assert_ptr_eq(hc_handle_get(&t, b), &objs[1]);
  hc_handle_table_fini(&t);
}
END_TEST

START_TEST(wrong_kind_object_or_index_rejected) {
  hc_handle_table_t t = HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_COMM, 0);
  int h;
  ck_assert_int_eq(hc_handle_alloc(&t, &objs[0], &h), 0);
  ck_assert_ptr_null(hc_handle_get(&t, 0x04000000));       /* null kind */
  ck_assert_ptr_null(hc_handle_get(&t, (int)0xc4000000u)); /* indirect */
  ck_assert_ptr_null(hc_handle_get(&t, (int)0x88000000u)); /* group */
  ck_assert_ptr_null(hc_handle_get(&t, (int)0xac000000u)); /* request */
  ck_assert_ptr_null(hc_handle_get(&t, (int)0x84000001u)); /* unused slot */
  ck_assert_ptr_null(hc_handle_get(&t, (int)0x84fffff0u)); /* beyond */
  ck_assert_ptr_null(hc_handle_get(&t, 0x44000000));       /* builtin unset */
  ck_assert_ptr_null(hc_handle_get(&t, 0));
  ck_assert_ptr_null(hc_handle_get(&t, -1));
  ck_assert_ptr_null(hc_handle_free(&t, (int)0x88000000u));
  ck_assert_ptr_eq(hc_handle_get(&t, h), &objs[0]);
  hc_handle_table_fini(&t);
}
END_TEST

START_TEST(reserved_direct_indices_are_skipped) {
  hc_handle_table_t t = HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_DATATYPE, 5);
  int h;
  ck_assert_int_eq(hc_handle_alloc(&t, &objs[0], &h), 0);
  ck_assert_uint_eq((unsigned)h, 0x8c000005u);
  ck_assert_ptr_null(hc_handle_get(&t, (int)0x8c000000u));
  hc_handle_table_fini(&t);
}
END_TEST

START_TEST(builtin_handles_map_to_registered_objects) {
  hc_handle_table_t t = HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_COMM, 0);
  ck_assert_int_eq(hc_handle_set_builtin(&t, 0x44000000, &objs[0]), 0);
  ck_assert_int_eq(hc_handle_set_builtin(&t, 0x44000001, &objs[1]), 0);
  ck_assert_int_ne(hc_handle_set_builtin(&t, 0x54000000, &objs[2]), 0);
  ck_assert_ptr_eq(hc_handle_get(&t, 0x44000000), &objs[0]);
  ck_assert_ptr_eq(hc_handle_get(&t, 0x44000001), &objs[1]);
  ck_assert_ptr_null(hc_handle_get(&t, 0x44000002));
  ck_assert_ptr_null(hc_handle_get(&t, 0x44001000));
  ck_assert_ptr_null(hc_handle_free(&t, 0x44000000)); /* never freed */
  ck_assert_ptr_eq(hc_handle_get(&t, 0x44000000), &objs[0]);
  hc_handle_table_fini(&t);
}
END_TEST

START_TEST(ten_thousand_live_handles) {
  enum { N = 10000 };
  hc_handle_table_t t = HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_REQUEST, 0);
  int *h = malloc(N * sizeof(*h));
  char *mem = malloc(N);
  ck_assert_ptr_nonnull(h);
  ck_assert_ptr_nonnull(mem);
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(hc_handle_alloc(&t, &mem[i], &h[i]), 0);
  ck_assert_int_eq(hc_handle_live(&t), N);
  for (int i = 0; i < N; i++) {
    ck_assert_ptr_eq(hc_handle_get(&t, h[i]), &mem[i]);
    for (int j = i + 1; j < i + 3 && j < N; j++)
      ck_assert_int_ne(h[i], h[j]);
  }
  for (int i = 0; i < N; i += 2)
    ck_assert_ptr_eq(hc_handle_free(&t, h[i]), &mem[i]);
  ck_assert_int_eq(hc_handle_live(&t), N / 2);
  for (int i = 1; i < N; i += 2)
    ck_assert_ptr_eq(hc_handle_get(&t, h[i]), &mem[i]);
  for (int i = 0; i < N; i += 2)
    ck_assert_ptr_null(hc_handle_get(&t, h[i]));
  hc_handle_table_fini(&t);
  free(h);
  free(mem);
}
END_TEST

static Suite *handles_suite(void) {
  Suite *s = suite_create("handles");
  TCase *tc = tcase_create("table");
  tcase_add_test(tc, alloc_gives_direct_handle_of_its_object_type);
  tcase_add_test(tc, request_handles_use_request_object_bits);
  tcase_add_test(tc, free_returns_object_and_invalidates_handle);
  tcase_add_test(tc, freed_index_is_reused);
  tcase_add_test(tc, wrong_kind_object_or_index_rejected);
  tcase_add_test(tc, reserved_direct_indices_are_skipped);
  tcase_add_test(tc, builtin_handles_map_to_registered_objects);
  tcase_add_test(tc, ten_thousand_live_handles);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(handles_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Unit tests of the datatype engine (src/mpi/datatype.c, typebuild.c,
 * pack.c): flattening and block merging, pack/unpack of nested types,
 * windows of the packed stream, element counting, external32 swapping and
 * the lifetime of a freed type still referenced elsewhere.  Type
 * constructors are local calls, legal without MPI_Init. */
#include "mpi/mpi_impl.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const hc_mpi_type_t *cd_get(MPI_Datatype t) {
  const hc_mpi_type_t *o = hc_mpi_type_get(t);
  ck_assert_ptr_nonnull(o);
  return o;
}

START_TEST(vector_of_touching_blocks_is_one_block) {
  MPI_Datatype c, v, h;
  ck_assert_int_eq(MPI_Type_contiguous(4, MPI_INT, &c), MPI_SUCCESS);
  ck_assert_int_eq(MPI_Type_vector(10, 2, 2, MPI_INT, &v), MPI_SUCCESS);
  ck_assert_int_eq(MPI_Type_create_hvector(3, 1, 16, c, &h), MPI_SUCCESS);
  ck_assert_uint_eq(cd_get(c)->nitems, 1);
  ck_assert_uint_eq(cd_get(v)->nitems, 1);
  ck_assert_int_eq(cd_get(v)->items[0].len, 80);
  ck_assert_uint_eq(cd_get(h)->nitems, 1);
  ck_assert(hc_mpi_type_dense(cd_get(h)));
  ck_assert_int_eq(cd_get(h)->elements, 12);
  MPI_Type_free(&c);
  MPI_Type_free(&v);
  MPI_Type_free(&h);
}
END_TEST

START_TEST(vector_of_contiguous_is_one_strided_run) {
  MPI_Datatype c, v;
  MPI_Type_contiguous(4, MPI_INT, &c);
  MPI_Type_vector(10, 1, 2, c, &v);
  const hc_mpi_type_t *t = cd_get(v);
  ck_assert_uint_eq(t->nitems, 1);
  ck_assert_ptr_null(t->items[0].child);
  ck_assert_int_eq(t->items[0].off, 0);
  ck_assert_int_eq(t->items[0].count, 10);
  ck_assert_int_eq(t->items[0].stride, 32);
  ck_assert_int_eq(t->items[0].len, 16);
  ck_assert(!hc_mpi_type_dense(t));
  ck_assert_int_eq(t->size, 160);
  ck_assert_int_eq(t->extent, (9 * 2 + 1) * 16);
  ck_assert_uint_eq(t->wire_size, 160); /* packed on the wire */
  MPI_Type_free(&c);
  MPI_Type_free(&v);
}
END_TEST

START_TEST(different_element_sizes_do_not_merge) {
  MPI_Datatype s, same;
  MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 4},
                         (MPI_Datatype[]){MPI_INT, MPI_FLOAT}, &same);
  MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8},
                         (MPI_Datatype[]){MPI_DOUBLE, MPI_INT}, &s);
  ck_assert_uint_eq(cd_get(same)->nitems, 1); /* both 4-byte units */
  ck_assert_uint_eq(cd_get(s)->nitems, 2);
  ck_assert_int_eq(cd_get(s)->extent, 16); /* padded like the C struct */
  ck_assert_int_eq(cd_get(s)->elements, 2);
  MPI_Type_free(&s);
  MPI_Type_free(&same);
}
END_TEST

/* A nested type: 2 copies of {char at 0, short at 2} 8 bytes apart,
 * repeated 3 times with a stride of 20 bytes. */
static MPI_Datatype cd_nested(void) {
  MPI_Datatype cs, inner, rs, outer;
  MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 2},
                         (MPI_Datatype[]){MPI_CHAR, MPI_SHORT}, &cs);
  MPI_Type_create_resized(cs, 0, 8, &rs);
  MPI_Type_contiguous(2, rs, &inner);
  MPI_Type_create_hvector(3, 1, 20, inner, &outer);
  MPI_Type_free(&cs);
  MPI_Type_free(&rs);
  MPI_Type_free(&inner);
  MPI_Type_commit(&outer);
  return outer;
}

START_TEST(pack_and_unpack_nested_type) {
  MPI_Datatype t = cd_nested();
  const hc_mpi_type_t *o = cd_get(t);
  ck_assert_int_eq(o->size, 18);
  ck_assert_int_eq(o->extent, 56);
  unsigned char buf[128], out[64], back[128];
  for (int i = 0; i < 128; i++)
    buf[i] = (unsigned char)i;
  hc_mpi_type_pack(o, buf, 2, out);
  /* Element e at 56e; copy k of 3 at 20k; pair j at 8j: bytes +0, +2, +3. */
  size_t n = 0;
  for (int e = 0; e < 2; e++)
    for (int k = 0; k < 3; k++)
      for (int j = 0; j < 2; j++) {
        int base = 56 * e + 20 * k + 8 * j;
        ck_assert_uint_eq(out[n++], base);
        ck_assert_uint_eq(out[n++], base + 2);
        ck_assert_uint_eq(out[n++], base + 3);
      }
  ck_assert_uint_eq(n, 36);
  memset(back, 0xee, sizeof(back));
  hc_mpi_type_unpack(o, out, 2, back);
  int touched = 0;
  for (int i = 0; i < 128; i++)
    if (back[i] != 0xee) {
      ck_assert_uint_eq(back[i], i);
      touched++;
    }
  ck_assert_int_eq(touched, 36);
  MPI_Type_free(&t);
}
END_TEST

START_TEST(every_window_of_the_stream_matches_the_whole) {
  MPI_Datatype t = cd_nested();
  const hc_mpi_type_t *o = cd_get(t);
  unsigned char buf[256], whole[64], part[64], back[256];
  for (int i = 0; i < 256; i++)
    buf[i] = (unsigned char)(i * 7 + 1);
  hc_mpi_type_pack(o, buf, 3, whole);
  for (int first = 0; first < 54; first++)
    for (int len = 0; first + len <= 54; len += 5) {
      memset(part, 0, sizeof(part));
      hc_mpi_type_pack_range(o, buf, first, len, part);
      ck_assert_mem_eq(part, whole + first, (size_t)len);
    }
  /* Unpacking in uneven chunks rebuilds what one unpack writes. */
  memset(back, 0, sizeof(back));
  for (int first = 0; first < 54; first += 7) {
    int len = first + 7 <= 54 ? 7 : 54 - first;
    hc_mpi_type_unpack_range(o, whole + first, first, len, back);
  }
  unsigned char ref[256];
  memset(ref, 0, sizeof(ref));
  hc_mpi_type_unpack(o, whole, 3, ref);
  ck_assert_mem_eq(back, ref, sizeof(ref));
  MPI_Type_free(&t);
}
END_TEST

/* Slices taken in order, with gaps and backwards give the bytes of the
 * whole stream: every slice seeks on its own. */
START_TEST(slices_in_any_order_match_the_whole) {
  MPI_Datatype t = cd_nested();
  const hc_mpi_type_t *o = cd_get(t);
  unsigned char buf[256], whole[64], part[64], back[256], ref[256];
  for (int i = 0; i < 256; i++)
    buf[i] = (unsigned char)(i * 5 + 3);
  hc_mpi_type_pack(o, buf, 3, whole);
  static const int starts[] = {0, 3, 4, 11, 30, 31, 2, 40, 17, 53};
  for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
    int first = starts[k], len = first + 6 <= 54 ? 6 : 54 - first;
    memset(part, 0, sizeof(part));
    hc_mpi_type_pack_range(o, buf, first, len, part);
    ck_assert_mem_eq(part, whole + first, (size_t)len);
  }
  memset(back, 0, sizeof(back));
  for (int first = 50; first >= 0; first -= 5) {
    int len = first + 5 <= 54 ? 5 : 54 - first;
    hc_mpi_type_unpack_range(o, whole + first, first, len, back);
  }
  memset(ref, 0, sizeof(ref));
  hc_mpi_type_unpack(o, whole, 3, ref);
  ck_assert_mem_eq(back, ref, sizeof(ref));
  MPI_Type_free(&t);
}
END_TEST

START_TEST(elements_of_a_partial_stream) {
  MPI_Datatype s;
  MPI_Type_create_struct(3, (int[]){1, 2, 1}, (MPI_Aint[]){0, 8, 24},
                         (MPI_Datatype[]){MPI_INT, MPI_DOUBLE, MPI_SHORT}, &s);
  const hc_mpi_type_t *o = cd_get(s);
  ck_assert_int_eq(o->size, 22);
  ck_assert_int_eq(hc_mpi_type_elements_in(o, 0), 0);
  ck_assert_int_eq(hc_mpi_type_elements_in(o, 4), 1);
  ck_assert_int_eq(hc_mpi_type_elements_in(o, 11), 1);
  ck_assert_int_eq(hc_mpi_type_elements_in(o, 12), 2);
  ck_assert_int_eq(hc_mpi_type_elements_in(o, 22), 4);
  ck_assert_int_eq(hc_mpi_type_elements_in(o, 22 + 20), 4 + 3);
  MPI_Type_free(&s);
}
END_TEST

START_TEST(external32_swaps_each_unit) {
  MPI_Datatype s;
  MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 4},
                         (MPI_Datatype[]){MPI_SHORT, MPI_C_FLOAT_COMPLEX}, &s);
  const hc_mpi_type_t *o = cd_get(s);
  unsigned char p[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  hc_mpi_type_swap_packed(o, p, 1);
  unsigned char want[10] = {2, 1, 6, 5, 4, 3, 10, 9, 8, 7};
  ck_assert_mem_eq(p, want, 10);
  MPI_Type_free(&s);
}
END_TEST

START_TEST(freed_type_lives_while_referenced) {
  MPI_Datatype v;
  MPI_Type_vector(4, 1, 3, MPI_INT, &v);
  MPI_Type_commit(&v);
  hc_mpi_type_t *o = hc_mpi_type_retain(cd_get(v));
  MPI_Datatype h = v;
  ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
  ck_assert_ptr_null(hc_mpi_type_get(h)); /* the handle is gone */
  int buf[12], out[4];
  for (int i = 0; i < 12; i++)
    buf[i] = i;
  hc_mpi_type_pack(o, buf, 1, out); /* the object is not */
  ck_assert_int_eq(out[3], 9);
  hc_mpi_type_release(o);
}
END_TEST

START_TEST(darray_block_cyclic_owned_ranges) {
  MPI_Datatype d;
  int gs[1] = {10}, ds[1] = {MPI_DISTRIBUTE_CYCLIC}, da[1] = {2}, ps[1] = {2};
  MPI_Type_create_darray(2, 1, 1, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &d);
  const hc_mpi_type_t *o = cd_get(d);
  /* Rank 1 owns [2,4) and [6,8): two runs of 8 bytes, 16 bytes apart. */
  ck_assert_uint_eq(o->nitems, 1);
  ck_assert_int_eq(o->items[0].off, 8);
  ck_assert_int_eq(o->items[0].count, 2);
  ck_assert_int_eq(o->items[0].stride, 16);
  ck_assert_int_eq(o->items[0].len, 8);
  ck_assert_int_eq(o->extent, 40);
  MPI_Type_free(&d);
}
END_TEST

/* 10^8 copies of a two-int strided pair: one item that references the
 * pair, whatever the count. */
static MPI_Datatype cd_huge_nested(MPI_Datatype *pair) {
  MPI_Datatype v;
  ck_assert_int_eq(MPI_Type_vector(2, 1, 2, MPI_INT, pair), MPI_SUCCESS);
  ck_assert_int_eq(MPI_Type_vector(100000000, 1, 3, *pair, &v), MPI_SUCCESS);
  return v;
}

START_TEST(huge_vectors_are_one_item) {
  MPI_Datatype v, pair, nested = cd_huge_nested(&pair);
  ck_assert_int_eq(MPI_Type_vector(100000000, 1, 2, MPI_INT, &v), MPI_SUCCESS);
  const hc_mpi_type_t *t = cd_get(v);
  ck_assert_uint_eq(t->nitems, 1);
  ck_assert_int_eq(t->items[0].count, 100000000);
  ck_assert_int_eq(t->size, 400000000);
  ck_assert_int_eq(t->extent, (100000000 - 1) * 8 + 4);
  const hc_mpi_type_t *n = cd_get(nested);
  ck_assert_uint_eq(n->nitems, 1);
  ck_assert_ptr_eq(n->items[0].child, cd_get(pair));
  ck_assert_int_eq(n->items[0].stride, 36); /* 3 extents of 12 bytes */
  ck_assert_int_eq(n->size, 800000000);
  ck_assert_int_eq(n->elements, 200000000);
  ck_assert_int_eq(n->true_extent, (MPI_Aint)(100000000 - 1) * 36 + 12);
  MPI_Datatype d; /* a dup shares the reference, and frees it */
  ck_assert_int_eq(MPI_Type_dup(nested, &d), MPI_SUCCESS);
  ck_assert_uint_eq(cd_get(d)->nitems, 1);
  ck_assert_ptr_eq(cd_get(d)->items[0].child, cd_get(pair));
  ck_assert_int_eq(cd_get(d)->size, n->size);
  MPI_Type_free(&d);
  MPI_Type_free(&v);
  MPI_Type_free(&pair);
  MPI_Type_free(&nested);
}
END_TEST

/* A slice near the end of a 10^8-copy type: the walk seeks there without
 * touching the elements before it (buf is placed so that only the last
 * copies land in the array). */
START_TEST(slice_near_the_end_of_a_huge_type) {
  MPI_Datatype pair, v = cd_huge_nested(&pair);
  const hc_mpi_type_t *t = cd_get(v);
  int mem[18];
  for (int i = 0; i < 18; i++)
    mem[i] = i;
  MPI_Count last = 100000000 - 2; /* the copies in mem: last, last + 1 */
  uintptr_t base = (uintptr_t)mem - (uintptr_t)(last * 36);
  int out[3] = {0, 0, 0};
  /* Stream bytes of copy `last` start at last * 8: skip one int. */
  hc_mpi_type_pack_range(t, (const void *)base, last * 8 + 4, 12, out);
  ck_assert_int_eq(out[0], 2);  /* copy last, second int (8 bytes on) */
  ck_assert_int_eq(out[1], 9);  /* copy last + 1 at 36 bytes, first int */
  ck_assert_int_eq(out[2], 11); /* its second int */
  int in[2] = {-1, -2};
  hc_mpi_type_unpack_range(t, in, last * 8 + 8, 8, (void *)base);
  ck_assert_int_eq(mem[9], -1);
  ck_assert_int_eq(mem[11], -2);
  ck_assert_int_eq(mem[10], 10); /* the gap keeps its value */
  ck_assert_int_eq(hc_mpi_type_elements_in(t, last * 8 + 4), last * 2 + 1);
  ck_assert_int_eq(hc_mpi_type_bytes_for(t, last * 2 + 1), last * 8 + 4);
  MPI_Type_free(&v);
  MPI_Type_free(&pair);
}
END_TEST

static Suite *datatype_suite(void) {
  Suite *s = suite_create("datatype");
  TCase *tc = tcase_create("engine");
  tcase_add_test(tc, vector_of_touching_blocks_is_one_block);
  tcase_add_test(tc, vector_of_contiguous_is_one_strided_run);
  tcase_add_test(tc, different_element_sizes_do_not_merge);
  tcase_add_test(tc, pack_and_unpack_nested_type);
  tcase_add_test(tc, every_window_of_the_stream_matches_the_whole);
  tcase_add_test(tc, slices_in_any_order_match_the_whole);
  tcase_add_test(tc, elements_of_a_partial_stream);
  tcase_add_test(tc, external32_swaps_each_unit);
  tcase_add_test(tc, freed_type_lives_while_referenced);
  tcase_add_test(tc, darray_block_cyclic_owned_ranges);
  tcase_add_test(tc, huge_vectors_are_one_item);
  tcase_add_test(tc, slice_near_the_end_of_a_huge_type);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(datatype_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * MPI reduction operations (src/mpi/op.c): every predefined op on every
 * predefined datatype, each result compared with a scalar reference computed
 * here; which (op, type) pairs are valid, per the standard's type groups;
 * MINLOC/MAXLOC ties; user ops through MPI_Op_create / MPI_Reduce_local.
 */
#include <check.h>
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mpi/op.h"

#define N 97

/* ---- the standard's type groups, written out independently of op.c ---- */

enum {
  G_CINT = 1,
  G_FINT = 2,
  G_FLOAT = 4,
  G_LOGICAL = 8,
  G_COMPLEX = 16,
  G_BYTE = 32,
  G_MULTI = 64,
  G_PAIR = 128,
  G_OTHER = 256
};

/* kind: 'i' integer (size, sign), 'f' real, 'c' complex, 'l' logical,
 * 'p' pair, 'o' none of those. */
typedef struct {
  MPI_Datatype type;
  const char *name;
  unsigned group;
  char kind;
  int size;
  int is_signed;
} tcase_type_t;

static const tcase_type_t types[] = {
    {MPI_CHAR, "MPI_CHAR", G_CINT, 'i', 1, 1},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", G_CINT, 'i', 1, 1},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", G_CINT, 'i', 1, 0},
    {MPI_WCHAR, "MPI_WCHAR", G_CINT, 'i', 4, 1},
    {MPI_SHORT, "MPI_SHORT", G_CINT, 'i', 2, 1},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", G_CINT, 'i', 2, 0},
    {MPI_INT, "MPI_INT", G_CINT, 'i', 4, 1},
    {MPI_UNSIGNED, "MPI_UNSIGNED", G_CINT, 'i', 4, 0},
    {MPI_LONG, "MPI_LONG", G_CINT, 'i', 8, 1},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", G_CINT, 'i', 8, 0},
    {MPI_LONG_LONG, "MPI_LONG_LONG", G_CINT, 'i', 8, 1},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", G_CINT, 'i', 8, 0},
    {MPI_INT8_T, "MPI_INT8_T", G_CINT, 'i', 1, 1},
    {MPI_INT16_T, "MPI_INT16_T", G_CINT, 'i', 2, 1},
    {MPI_INT32_T, "MPI_INT32_T", G_CINT, 'i', 4, 1},
    {MPI_INT64_T, "MPI_INT64_T", G_CINT, 'i', 8, 1},
    {MPI_UINT8_T, "MPI_UINT8_T", G_CINT, 'i', 1, 0},
    {MPI_UINT16_T, "MPI_UINT16_T", G_CINT, 'i', 2, 0},
    {MPI_UINT32_T, "MPI_UINT32_T", G_CINT, 'i', 4, 0},
    {MPI_UINT64_T, "MPI_UINT64_T", G_CINT, 'i', 8, 0},
    {MPI_AINT, "MPI_AINT", G_MULTI, 'i', 8, 1},
    {MPI_OFFSET, "MPI_OFFSET", G_MULTI, 'i', 8, 1},
    {MPI_COUNT, "MPI_COUNT", G_MULTI, 'i', 8, 1},
    {MPI_INTEGER, "MPI_INTEGER", G_FINT, 'i', 4, 1},
    {MPI_INTEGER1, "MPI_INTEGER1", G_FINT, 'i', 1, 1},
    {MPI_INTEGER2, "MPI_INTEGER2", G_FINT, 'i', 2, 1},
    {MPI_INTEGER4, "MPI_INTEGER4", G_FINT, 'i', 4, 1},
    {MPI_INTEGER8, "MPI_INTEGER8", G_FINT, 'i', 8, 1},
    {MPI_BYTE, "MPI_BYTE", G_BYTE, 'i', 1, 0},
    {MPI_FLOAT, "MPI_FLOAT", G_FLOAT, 'f', 4, 1},
    {MPI_DOUBLE, "MPI_DOUBLE", G_FLOAT, 'f', 8, 1},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", G_FLOAT, 'f', 16, 1},
    {MPI_REAL, "MPI_REAL", G_FLOAT, 'f', 4, 1},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", G_FLOAT, 'f', 8, 1},
    {MPI_REAL4, "MPI_REAL4", G_FLOAT, 'f', 4, 1},
    {MPI_REAL8, "MPI_REAL8", G_FLOAT, 'f', 8, 1},
#ifdef HC_HAVE_FLOAT128
    {MPI_REAL16, "MPI_REAL16", G_FLOAT, 'q', 16, 1},
    {MPI_COMPLEX32, "MPI_COMPLEX32", G_COMPLEX, 'Q', 32, 1},
#endif
#ifdef __FLT16_MAX__
    {MPIX_C_FLOAT16, "MPIX_C_FLOAT16", G_FLOAT, 'h', 2, 1},
#endif
    {MPI_C_BOOL, "MPI_C_BOOL", G_LOGICAL, 'l', 1, 0},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL", G_LOGICAL, 'l', 1, 0},
    {MPI_LOGICAL, "MPI_LOGICAL", G_LOGICAL, 'l', 4, 0},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", G_COMPLEX, 'c', 8, 1},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", G_COMPLEX, 'c', 16, 1},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", G_COMPLEX, 'c', 32,
     1},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", G_COMPLEX, 'c', 8, 1},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", G_COMPLEX, 'c', 16, 1},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", G_COMPLEX, 'c',
     32, 1},
    {MPI_COMPLEX, "MPI_COMPLEX", G_COMPLEX, 'c', 8, 1},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", G_COMPLEX, 'c', 16, 1},
    {MPI_COMPLEX8, "MPI_COMPLEX8", G_COMPLEX, 'c', 8, 1},
    {MPI_COMPLEX16, "MPI_COMPLEX16", G_COMPLEX, 'c', 16, 1},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT", G_PAIR, 'p', 8, 1},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", G_PAIR, 'p', 16, 1},
    {MPI_LONG_INT, "MPI_LONG_INT", G_PAIR, 'p', 16, 1},
    {MPI_2INT, "MPI_2INT", G_PAIR, 'p', 8, 1},
    {MPI_SHORT_INT, "MPI_SHORT_INT", G_PAIR, 'p', 8, 1},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", G_PAIR, 'p', 32, 1},
    {MPI_2REAL, "MPI_2REAL", G_PAIR, 'p', 8, 1},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", G_PAIR, 'p', 16, 1},
    {MPI_2INTEGER, "MPI_2INTEGER", G_PAIR, 'p', 8, 1},
    {MPI_CHARACTER, "MPI_CHARACTER", G_OTHER, 'o', 1, 0},
    {MPI_PACKED, "MPI_PACKED", G_OTHER, 'o', 1, 0},
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

typedef struct {
  MPI_Op op;
  const char *name;
  unsigned groups;
} tcase_op_t;

static const tcase_op_t ops[] = {
    {MPI_MAX, "MPI_MAX", G_CINT | G_FINT | G_FLOAT | G_MULTI},
    {MPI_MIN, "MPI_MIN", G_CINT | G_FINT | G_FLOAT | G_MULTI},
    {MPI_SUM, "MPI_SUM", G_CINT | G_FINT | G_FLOAT | G_COMPLEX | G_MULTI},
    {MPI_PROD, "MPI_PROD", G_CINT | G_FINT | G_FLOAT | G_COMPLEX | G_MULTI},
    /* The standard's C integers and logicals, and what MPICH adds (reals,
     * the multi-language types). */
    {MPI_LAND, "MPI_LAND", G_CINT | G_LOGICAL | G_FLOAT | G_MULTI},
    {MPI_LOR, "MPI_LOR", G_CINT | G_LOGICAL | G_FLOAT | G_MULTI},
    {MPI_LXOR, "MPI_LXOR", G_CINT | G_LOGICAL | G_FLOAT | G_MULTI},
    {MPI_BAND, "MPI_BAND", G_CINT | G_FINT | G_BYTE | G_MULTI},
    {MPI_BOR, "MPI_BOR", G_CINT | G_FINT | G_BYTE | G_MULTI},
    {MPI_BXOR, "MPI_BXOR", G_CINT | G_FINT | G_BYTE | G_MULTI},
    {MPI_MINLOC, "MPI_MINLOC", G_PAIR},
    {MPI_MAXLOC, "MPI_MAXLOC", G_PAIR},
    {MPI_REPLACE, "MPI_REPLACE", ~0u},
    {MPI_NO_OP, "MPI_NO_OP", ~0u},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

/* ---- deterministic inputs ------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rng(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return rng_state >> 11 ^ rng_state << 29;
}

/* Integers: full-range bit patterns, with zeros and equal pairs mixed in. */
static void fill_int(unsigned char *a, unsigned char *b, int size) {
  for (int i = 0; i < N; i++) {
    uint64_t x = rng(), y = rng();
    if (i % 7 == 0)
      x = 0;
    if (i % 11 == 0)
      y = 0;
    if (i % 13 == 0)
      y = x;
    memcpy(a + i * size, &x, (size_t)size);
    memcpy(b + i * size, &y, (size_t)size);
  }
}

static uint64_t load_u(const unsigned char *p, int size) {
  uint64_t v = 0;
  memcpy(&v, p, (size_t)size);
  return v;
}

static int64_t load_s(const unsigned char *p, int size) {
  uint64_t v = load_u(p, size);
  int shift = 64 - 8 * size;
  return shift ? (int64_t)(v << shift) >> shift : (int64_t)v;
}

static uint64_t ref_int(MPI_Op op, const unsigned char *pa,
                        const unsigned char *pb, int size, int sgn) {
  uint64_t a = load_u(pa, size), b = load_u(pb, size);
  int64_t sa = load_s(pa, size), sb = load_s(pb, size);
  int a_gt_b = sgn ? sa > sb : a > b;
  if (op == MPI_MAX)
    return a_gt_b ? a : b;
  if (op == MPI_MIN)
    return (sgn ? sa < sb : a < b) ? a : b;
  if (op == MPI_SUM)
    return a + b;
  if (op == MPI_PROD)
    return a * b;
  if (op == MPI_LAND)
    return a && b;
  if (op == MPI_LOR)
    return a || b;
  if (op == MPI_LXOR)
    return !a != !b;
  if (op == MPI_BAND)
    return a & b;
  if (op == MPI_BOR)
    return a | b;
  return a ^ b;
}

static void check_int(const tcase_type_t *t, const tcase_op_t *o,
                      const hcomm_reduce_op_t *r) {
  unsigned char a[N * 8], b[N * 8], ref[N * 8];
  fill_int(a, b, t->size);
  for (int i = 0; i < N; i++) {
    uint64_t v =
        ref_int(o->op, a + i * t->size, b + i * t->size, t->size, t->is_signed);
    memcpy(ref + i * t->size, &v, (size_t)t->size);
  }
  r->fn(a, b, N, r->ctx);
  ck_assert_msg(memcmp(b, ref, (size_t)(N * t->size)) == 0, "%s on %s", o->name,
                t->name);
}

/* ---- reals and complexes: small integers and halves, exact in every
 * precision, so the reference is exact too. ---- */

static long double small_value(void) {
  return (long double)((int)(rng() % 33) - 16) / 2.0L;
}

static long double ref_real(MPI_Op op, long double a, long double b) {
  if (op == MPI_MAX)
    return a > b ? a : b;
  if (op == MPI_MIN)
    return a < b ? a : b;
  if (op == MPI_SUM)
    return a + b;
  if (op == MPI_LAND)
    return a != 0 && b != 0;
  if (op == MPI_LOR)
    return a != 0 || b != 0;
  if (op == MPI_LXOR)
    return (a != 0) != (b != 0);
  return a * b;
}

/* Stores / loads v as the real type of t (kind f: by size; h, q). */
static void put_real(const tcase_type_t *t, void *p, long double v) {
  if (t->kind == 'f' && t->size == 4)
    *(float *)p = (float)v;
  else if (t->kind == 'f' && t->size == 8)
    *(double *)p = (double)v;
  else if (t->kind == 'f')
    *(long double *)p = v;
#ifdef __FLT16_MAX__
  else if (t->kind == 'h')
    *(_Float16 *)p = (_Float16)v;
#endif
#ifdef HC_HAVE_FLOAT128
  else if (t->kind == 'q')
    *(_Float128 *)p = (_Float128)v;
#endif
}

static long double get_real(const tcase_type_t *t, const void *p) {
  if (t->kind == 'f' && t->size == 4)
    return *(const float *)p;
  if (t->kind == 'f' && t->size == 8)
    return *(const double *)p;
#ifdef __FLT16_MAX__
  if (t->kind == 'h')
    return *(const _Float16 *)p;
#endif
#ifdef HC_HAVE_FLOAT128
  if (t->kind == 'q')
    return (long double)*(const _Float128 *)p;
#endif
  return *(const long double *)p;
}

static int real_size(const tcase_type_t *t) {
  return t->kind == 'h' ? 2 : t->size;
}

static void check_real(const tcase_type_t *t, const tcase_op_t *o,
                       const hcomm_reduce_op_t *r) {
  _Alignas(16) unsigned char a[N * 16], b[N * 16];
  long double ref[N];
  int sz = real_size(t);
  for (int i = 0; i < N; i++) {
    long double x = small_value(), y = small_value();
    put_real(t, a + i * sz, x);
    put_real(t, b + i * sz, y);
    ref[i] = ref_real(o->op, x, y);
  }
  r->fn(a, b, N, r->ctx);
  for (int i = 0; i < N; i++)
    ck_assert_msg(get_real(t, b + i * sz) == ref[i], "%s on %s [%d]", o->name,
                  t->name, i);
}

/* Complex values are pairs of reals of half the size. */
static void check_complex(const tcase_type_t *t, const tcase_op_t *o,
                          const hcomm_reduce_op_t *r) {
  _Alignas(16) unsigned char a[N * 32], b[N * 32];
  long double ref_re[N], ref_im[N];
  tcase_type_t part = *t;
  part.kind = t->kind == 'Q' ? 'q' : 'f';
  part.size = t->size / 2;
  for (int i = 0; i < N; i++) {
    long double ar = small_value(), ai = small_value();
    long double br = small_value(), bi = small_value();
    put_real(&part, a + i * t->size, ar);
    put_real(&part, a + i * t->size + part.size, ai);
    put_real(&part, b + i * t->size, br);
    put_real(&part, b + i * t->size + part.size, bi);
    ref_re[i] = o->op == MPI_SUM ? ar + br : ar * br - ai * bi;
    ref_im[i] = o->op == MPI_SUM ? ai + bi : ar * bi + ai * br;
  }
  r->fn(a, b, N, r->ctx);
  for (int i = 0; i < N; i++) {
    ck_assert_msg(get_real(&part, b + i * t->size) == ref_re[i],
                  "%s on %s [%d] real", o->name, t->name, i);
    ck_assert_msg(get_real(&part, b + i * t->size + part.size) == ref_im[i],
                  "%s on %s [%d] imag", o->name, t->name, i);
  }
}

/* Logicals: any non-zero is true, results are 0 or 1. */
static void check_logical(const tcase_type_t *t, const tcase_op_t *o,
                          const hcomm_reduce_op_t *r) {
  unsigned char a[N * 4], b[N * 4];
  uint32_t ref[N];
  for (int i = 0; i < N; i++) {
    /* _Bool objects may only hold 0 or 1; LOGICAL any integer. */
    uint32_t x = (uint32_t)(rng() % 3), y = (uint32_t)(rng() % 3);
    if (t->size == 1) {
      x = x != 0;
      y = y != 0;
    }
    memcpy(a + i * t->size, &x, (size_t)t->size);
    memcpy(b + i * t->size, &y, (size_t)t->size);
    ref[i] = (uint32_t)ref_int(o->op, (unsigned char *)&x, (unsigned char *)&y,
                               4, 0);
  }
  r->fn(a, b, N, r->ctx);
  for (int i = 0; i < N; i++)
    ck_assert_msg(load_u(b + i * t->size, t->size) == ref[i], "%s on %s [%d]",
                  o->name, t->name, i);
}

/* ---- pairs --------------------------------------------------------------- */

typedef struct {
  float v;
  int k;
} p_float_int;
typedef struct {
  double v;
  int k;
} p_double_int;
typedef struct {
  long v;
  int k;
} p_long_int;
typedef struct {
  int v;
  int k;
} p_2int;
typedef struct {
  short v;
  int k;
} p_short_int;
typedef struct {
  long double v;
  int k;
} p_long_double_int;
typedef struct {
  float v;
  float k;
} p_2real;
typedef struct {
  double v;
  double k;
} p_2double;

/* Values from a small range so that ties are frequent. */
#define PAIR_FILL(T, arr_a, arr_b)                                             \
  for (int i = 0; i < N; i++) {                                                \
    ((T *)arr_a)[i].v = (int)(rng() % 5) - 2;                                  \
    ((T *)arr_a)[i].k = (int)(rng() % 50);                                     \
    ((T *)arr_b)[i].v = (int)(rng() % 5) - 2;                                  \
    ((T *)arr_b)[i].k = (int)(rng() % 50);                                     \
  }

/* Reference on (value, index) read as long doubles. */
static void ref_pair(MPI_Op op, long double av, long double ak, long double bv,
                     long double bk, long double *v, long double *k) {
  int a_better = op == MPI_MAXLOC ? av > bv : av < bv;
  if (a_better) {
    *v = av;
    *k = ak;
  } else if (av == bv) {
    *v = av;
    *k = ak < bk ? ak : bk;
  } else {
    *v = bv;
    *k = bk;
  }
}

#define PAIR_CHECK(T, o, r, tname)                                             \
  do {                                                                         \
    _Alignas(16) T a[N], b[N];                                                 \
    long double rv[N], rk[N];                                                  \
    PAIR_FILL(T, a, b);                                                        \
    for (int i = 0; i < N; i++)                                                \
      ref_pair((o)->op, a[i].v, a[i].k, b[i].v, b[i].k, &rv[i], &rk[i]);       \
    (r)->fn(a, b, N, (r)->ctx);                                                \
    for (int i = 0; i < N; i++)                                                \
      ck_assert_msg(b[i].v == rv[i] && b[i].k == rk[i], "%s on %s [%d]",       \
                    (o)->name, tname, i);                                      \
  } while (0)

static void check_pair(const tcase_type_t *t, const tcase_op_t *o,
                       const hcomm_reduce_op_t *r) {
  if (t->type == MPI_FLOAT_INT)
    PAIR_CHECK(p_float_int, o, r, t->name);
  else if (t->type == MPI_DOUBLE_INT)
    PAIR_CHECK(p_double_int, o, r, t->name);
  else if (t->type == MPI_LONG_INT)
    PAIR_CHECK(p_long_int, o, r, t->name);
  else if (t->type == MPI_2INT || t->type == MPI_2INTEGER)
    PAIR_CHECK(p_2int, o, r, t->name);
  else if (t->type == MPI_SHORT_INT)
    PAIR_CHECK(p_short_int, o, r, t->name);
  else if (t->type == MPI_LONG_DOUBLE_INT)
    PAIR_CHECK(p_long_double_int, o, r, t->name);
  else if (t->type == MPI_2REAL)
    PAIR_CHECK(p_2real, o, r, t->name);
  else
    PAIR_CHECK(p_2double, o, r, t->name);
}

/* REPLACE copies in over inout; NO_OP leaves inout alone. */
static void check_replace_noop(const tcase_type_t *t, const tcase_op_t *o,
                               const hcomm_reduce_op_t *r) {
  unsigned char a[N * 32] = {0}, b[N * 32] = {0}, before[N * 32] = {0};
  size_t bytes = (size_t)N * r->elem_size;
  for (size_t i = 0; i < bytes; i++) {
    a[i] = (unsigned char)rng();
    b[i] = before[i] = (unsigned char)rng();
  }
  r->fn(a, b, N, r->ctx);
  ck_assert_msg(memcmp(b, o->op == MPI_REPLACE ? a : before, bytes) == 0,
                "%s on %s", o->name, t->name);
}

/* ---- whole vectors against the kernel one element at a time ------------ */

/* Finite reals with fractional parts (so sums and products round), of
 * either sign; complexes are two of them. */
static void fill_rounding(const tcase_type_t *t, unsigned char *p, int count) {
  tcase_type_t part = *t;
  int parts = 1;
  if (t->kind == 'c' || t->kind == 'Q') {
    part.kind = t->kind == 'Q' ? 'q' : 'f';
    part.size = t->size / 2;
    parts = 2;
  }
  int sz = real_size(&part);
  for (int i = 0; i < count * parts; i++) {
    /* p may be off the type's alignment: store through an aligned one. */
    _Alignas(16) unsigned char one[16];
    put_real(&part, one, (long double)((int)(rng() % 20001) - 10000) / 7.0L);
    memcpy(p + i * sz, one, (size_t)sz);
  }
}

static void fill_for(const tcase_type_t *t, unsigned char *p, int count) {
  if (t->kind == 'i') {
    for (int i = 0; i < count * t->size; i++)
      p[i] = (unsigned char)rng();
  } else if (t->kind == 'l') {
    /* _Bool objects may only hold 0 or 1. */
    memset(p, 0, (size_t)(count * t->size));
    for (int i = 0; i < count; i++)
      p[i * t->size] = (unsigned char)(rng() % 2);
  } else {
    fill_rounding(t, p, count);
  }
}

/* The C alignment of one element (a complex's: its parts'). */
static int elem_align(const tcase_type_t *t) {
  if (t->kind == 'c' || t->kind == 'Q')
    return t->size / 2;
  return real_size(t);
}

/* Every element-wise kernel (all but the pairs' MINLOC/MAXLOC), on every
 * length from 1 to 67 (each vector width's tail) and at offsets that
 * leave in and inout off any vector alignment (multiples of the
 * element's own alignment, which C requires), gives exactly the bytes of
 * the same kernel run on one element at a time: a vectorised build adds
 * nothing up in another order. */
START_TEST(every_kernel_over_a_vector_gives_the_serial_loops_bits) {
  enum { LEN_MAX = 67, ELEM_MAX = 32 };
  /* in units of the element's alignment */
  static const int offsets[][2] = {{0, 0}, {1, 3}, {4, 2}, {2, 1}, {3, 5}};
  _Alignas(64) unsigned char in[LEN_MAX * ELEM_MAX + 128];
  _Alignas(64) unsigned char inout[LEN_MAX * ELEM_MAX + 128];
  _Alignas(64) unsigned char serial[LEN_MAX * ELEM_MAX + 128];
  int checked = 0;
  rng_state = 777;
  for (int o = 0; o < NOPS; o++)
    for (int t = 0; t < NTYPES; t++) {
      const tcase_type_t *ty = &types[t];
      hcomm_reduce_op_t r;
      size_t packed;
      if (ty->kind == 'p' || ty->kind == 'o' ||
          hc_mpi_op_resolve(ops[o].op, ty->type, &r, &packed) != MPI_SUCCESS)
        continue;
      size_t esize = r.elem_size;
      for (int len = 1; len <= LEN_MAX; len++)
        for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
          int align = elem_align(ty);
          unsigned char *a = in + offsets[k][0] * align;
          unsigned char *b = inout + offsets[k][1] * align;
          unsigned char *ref = serial + offsets[k][1] * align;
          fill_for(ty, a, len);
          fill_for(ty, b, len);
          memcpy(ref, b, (size_t)len * esize);
          for (int i = 0; i < len; i++)
            r.fn(a + (size_t)i * esize, ref + (size_t)i * esize, 1, r.ctx);
          r.fn(a, b, (size_t)len, r.ctx);
          ck_assert_msg(memcmp(b, ref, (size_t)len * esize) == 0,
                        "%s on %s, %d elements at offsets %d/%d",
                        ops[o].name, ty->name, len, offsets[k][0] * align,
                        offsets[k][1] * align);
          checked++;
        }
    }
  ck_assert_int_ge(checked, 100 * 67 * 5);
}
END_TEST

/* MPI_SUM and MPI_PROD on float and double against a loop written here,
 * with values whose results round. */
#define SERIAL_CHECK(type, mpi_type, op, expr)                                 \
  do {                                                                         \
    hcomm_reduce_op_t r;                                                       \
    size_t packed;                                                             \
    ck_assert_int_eq(hc_mpi_op_resolve(op, mpi_type, &r, &packed),             \
                     MPI_SUCCESS);                                             \
    for (int len = 1; len <= 67; len++) {                                      \
      type a[68], b[68], want[68];                                             \
      for (int i = 0; i < len; i++) {                                          \
        a[i] = (type)((int)(rng() % 20001) - 10000) / (type)7;                 \
        b[i] = (type)((int)(rng() % 20001) - 10000) / (type)3;                 \
        want[i] = (type)(expr);                                                \
      }                                                                        \
      r.fn(a + 1, b + 1, (size_t)len - 1, r.ctx);                              \
      r.fn(a, b, 1, r.ctx);                                                    \
      ck_assert_msg(memcmp(b, want, (size_t)len * sizeof(type)) == 0,          \
                    "%s %s, %d elements", #type, #op, len);                    \
    }                                                                          \
  } while (0)

START_TEST(float_and_double_sums_and_products_match_a_plain_loop) {
  rng_state = 99;
  SERIAL_CHECK(float, MPI_FLOAT, MPI_SUM, a[i] + b[i]);
  SERIAL_CHECK(float, MPI_FLOAT, MPI_PROD, a[i] * b[i]);
  SERIAL_CHECK(double, MPI_DOUBLE, MPI_SUM, a[i] + b[i]);
  SERIAL_CHECK(double, MPI_DOUBLE, MPI_PROD, a[i] * b[i]);
}
END_TEST

/* ---- tests --------------------------------------------------------------- */

START_TEST(every_pair_validity_follows_the_type_groups) {
  for (int o = 0; o < NOPS; o++)
    for (int t = 0; t < NTYPES; t++) {
      hcomm_reduce_op_t r;
      size_t packed = 9;
      memset(&r, 0, sizeof r);
      int want = (ops[o].groups & types[t].group) ? MPI_SUCCESS : MPI_ERR_OP;
      int rc = hc_mpi_op_resolve(ops[o].op, types[t].type, &r, &packed);
      ck_assert_msg(rc == want, "%s on %s: got %d, want %d", ops[o].name,
                    types[t].name, rc, want);
      if (rc != MPI_SUCCESS)
        continue;
      ck_assert_uint_eq(packed, 0);
      ck_assert_ptr_nonnull(r.fn);
      ck_assert_int_eq(r.commutative, 1);
      int esize = types[t].kind == 'h' ? 2 : types[t].size;
      ck_assert_msg(r.elem_size == (size_t)esize, "%s elem_size %zu",
                    types[t].name, r.elem_size);
    }
}
END_TEST

START_TEST(every_valid_pair_matches_the_scalar_reference) {
  int checked = 0;
  rng_state = 12345;
  for (int o = 0; o < NOPS; o++)
    for (int t = 0; t < NTYPES; t++) {
      hcomm_reduce_op_t r;
  size_t packed;
      const tcase_type_t *ty = &types[t];
      const tcase_op_t *op = &ops[o];
      if (hc_mpi_op_resolve(op->op, ty->type, &r, &packed) != MPI_SUCCESS)
        continue;
      checked++;
      if (op->op == MPI_REPLACE || op->op == MPI_NO_OP)
        check_replace_noop(ty, op, &r);
      else if (ty->kind == 'i')
        check_int(ty, op, &r);
      else if (ty->kind == 'f' || ty->kind == 'h' || ty->kind == 'q')
        check_real(ty, op, &r);
      else if (ty->kind == 'c' || ty->kind == 'Q')
        check_complex(ty, op, &r);
      else if (ty->kind == 'l')
        check_logical(ty, op, &r);
      else if (ty->kind == 'p')
        check_pair(ty, op, &r);
      else
        ck_abort_msg("%s on %s has no reference", op->name, ty->name);
    }
  /* 20 C integer types (10 ops), 5 Fortran integers (7), 3
   * multi-language types (10), MPI_BYTE (3), 7+ reals (7), 10+ complexes
   * (2), 3 logicals (3), 9 pairs (2), REPLACE/NO_OP on all. */
  ck_assert_int_ge(checked, 20 * 10 + 5 * 7 + 3 * 10 + 3 + 7 * 7 + 10 * 2 +
                                3 * 3 + 9 * 2 + 2 * NTYPES);
}
END_TEST

START_TEST(minloc_maxloc_tie_keeps_lower_index) {
  hcomm_reduce_op_t r;
  size_t packed;
  p_2int a[3] = {{5, 7}, {5, 2}, {4, 1}}, b[3] = {{5, 3}, {5, 9}, {4, 1}};
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_MAXLOC, MPI_2INT, &r, &packed), MPI_SUCCESS);
  r.fn(a, b, 3, r.ctx);
  ck_assert_int_eq(b[0].k, 3);
  ck_assert_int_eq(b[1].k, 2);
  ck_assert_int_eq(b[2].k, 1);
  p_double_int c[2] = {{-1.5, 9}, {2.0, 4}}, d[2] = {{-1.5, 10}, {2.0, 0}};
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_MINLOC, MPI_DOUBLE_INT, &r, &packed),
                   MPI_SUCCESS);
  r.fn(c, d, 2, r.ctx);
  ck_assert_int_eq(d[0].k, 9);
  ck_assert_int_eq(d[1].k, 0);
  ck_assert(d[0].v == -1.5 && d[1].v == 2.0);
}
END_TEST

START_TEST(invalid_ops_and_types_are_rejected) {
  hcomm_reduce_op_t r;
  size_t packed;
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_SUM, MPI_FLOAT_INT, &r, &packed), MPI_ERR_OP);
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_BAND, MPI_DOUBLE, &r, &packed), MPI_ERR_OP);
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_MAX, MPI_C_DOUBLE_COMPLEX, &r, &packed),
                   MPI_ERR_OP);
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_LAND, MPI_INTEGER, &r, &packed), MPI_ERR_OP);
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_MAXLOC, MPI_INT, &r, &packed), MPI_ERR_OP);
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_OP_NULL, MPI_INT, &r, &packed), MPI_ERR_OP);
  ck_assert_int_eq(hc_mpi_op_resolve((MPI_Op)0x58000000, MPI_INT, &r, &packed),
                   MPI_ERR_OP);
  ck_assert_int_eq(hc_mpi_op_resolve((MPI_Op)0x5800000f, MPI_INT, &r, &packed),
                   MPI_ERR_OP);
  ck_assert_int_eq(hc_mpi_op_resolve((MPI_Op)0x98000123, MPI_INT, &r, &packed),
                   MPI_ERR_OP);
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_SUM, MPI_DATATYPE_NULL, &r, &packed),
                   MPI_ERR_TYPE);
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_SUM, (MPI_Datatype)0x12345, &r, &packed),
                   MPI_ERR_TYPE);
  ck_assert(hc_mpi_op_is_predefined(MPI_MAX));
  ck_assert(hc_mpi_op_is_predefined(MPI_NO_OP));
  ck_assert(!hc_mpi_op_is_predefined(MPI_OP_NULL));
}
END_TEST

/* ---- user ops ------------------------------------------------------------ */

static MPI_Datatype user_seen_type;
static int user_calls;

/* inout = in - inout: not commutative, and the order is visible. */
static void user_sub(void *in, void *inout, int *len, MPI_Datatype *type) {
  const int *a = in;
  int *b = inout;
  user_seen_type = *type;
  user_calls++;
  for (int i = 0; i < *len; i++)
    b[i] = a[i] - b[i];
}

START_TEST(user_op_calls_function_with_datatype) {
  MPI_Op op = MPI_OP_NULL;
  hcomm_reduce_op_t r;
  size_t packed;
  int commute = -1;
  ck_assert_int_eq(MPI_Op_create(user_sub, 0, &op), MPI_SUCCESS);
  ck_assert_int_eq((unsigned)op & 0xfc000000u, 0x98000000u);
  ck_assert_int_eq(MPI_Op_commutative(op, &commute), MPI_SUCCESS);
  ck_assert_int_eq(commute, 0);
  ck_assert_int_eq(hc_mpi_op_resolve(op, MPI_INT, &r, &packed), MPI_SUCCESS);
  ck_assert_int_eq(r.commutative, 0);
  ck_assert_uint_eq(r.elem_size, sizeof(int));

  int a[4] = {10, 20, 30, 40}, b[4] = {1, 2, 3, 4};
  user_calls = 0;
  r.fn(a, b, 4, r.ctx);
  ck_assert_int_eq(user_calls, 1);
  ck_assert_int_eq(user_seen_type, MPI_INT);
  ck_assert_int_eq(b[0], 9);
  ck_assert_int_eq(b[3], 36);

  ck_assert_int_eq(MPI_Reduce_local(a, b, 4, MPI_INT, op), MPI_SUCCESS);
  ck_assert_int_eq(b[0], 1);
  ck_assert_int_eq(b[3], 4);
  ck_assert_int_eq(MPI_Op_free(&op), MPI_SUCCESS);
  ck_assert_int_eq(op, MPI_OP_NULL);
}
END_TEST

START_TEST(freed_user_op_is_invalid) {
  MPI_Op op, op2;
  hcomm_reduce_op_t r;
  size_t packed;
  ck_assert_int_eq(MPI_Op_create(user_sub, 1, &op), MPI_SUCCESS);
  MPI_Op saved = op;
  ck_assert_int_eq(MPI_Op_free(&op), MPI_SUCCESS);
  ck_assert_int_eq(hc_mpi_op_resolve(saved, MPI_INT, &r, &packed), MPI_ERR_OP);
  ck_assert_int_eq(MPI_Op_create(user_sub, 1, &op2), MPI_SUCCESS);
  ck_assert_int_eq(hc_mpi_op_resolve(op2, MPI_INT, &r, &packed), MPI_SUCCESS);
  ck_assert_int_eq(r.commutative, 1);
  ck_assert_int_eq(MPI_Op_free(&op2), MPI_SUCCESS);
}
END_TEST

START_TEST(reduce_local_with_predefined_op) {
  double a[3] = {1.5, -2, 4}, b[3] = {0.5, 8, -4};
  ck_assert_int_eq(MPI_Reduce_local(a, b, 3, MPI_DOUBLE, MPI_SUM), MPI_SUCCESS);
  ck_assert(b[0] == 2.0 && b[1] == 6.0 && b[2] == 0.0);
  int commute = 0;
  ck_assert_int_eq(MPI_Op_commutative(MPI_PROD, &commute), MPI_SUCCESS);
  ck_assert_int_eq(commute, 1);
  ck_assert_int_eq(PMPI_Reduce_local(a, b, 0, MPI_INT, MPI_MAX), MPI_SUCCESS);
}
END_TEST


/* ---- predefined ops on derived types ------------------------------------- */

START_TEST(predefined_op_on_contiguous_double_reduces_basic_elements) {
  MPI_Datatype t3;
  hcomm_reduce_op_t r;
  size_t packed = 0;
  ck_assert_int_eq(MPI_Type_contiguous(3, MPI_DOUBLE, &t3), MPI_SUCCESS);
  ck_assert_int_eq(MPI_Type_commit(&t3), MPI_SUCCESS);
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_SUM, t3, &r, &packed), MPI_SUCCESS);
  ck_assert_uint_eq(packed, 3);
  ck_assert_uint_eq(r.elem_size, sizeof(double));
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_BAND, t3, &r, &packed), MPI_ERR_OP);
  double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
  ck_assert_int_eq(MPI_Reduce_local(a, b, 2, t3, MPI_MAX), MPI_SUCCESS);
  ck_assert(b[0] == 10 && b[5] == 60);
  ck_assert_int_eq(MPI_Reduce_local(a, b, 2, t3, MPI_SUM), MPI_SUCCESS);
  ck_assert(b[0] == 11 && b[2] == 33 && b[5] == 66);
  ck_assert_int_eq(MPI_Type_free(&t3), MPI_SUCCESS);
}
END_TEST

START_TEST(predefined_op_on_vector_leaves_the_gaps) {
  MPI_Datatype v;
  /* Two blocks of two ints, stride 3: ints 2 and 5 are gaps. */
  ck_assert_int_eq(MPI_Type_vector(2, 2, 3, MPI_INT, &v), MPI_SUCCESS);
  ck_assert_int_eq(MPI_Type_commit(&v), MPI_SUCCESS);
  int a[5] = {1, 2, 99, 3, 4}, b[5] = {10, 20, -7, 30, 40};
  ck_assert_int_eq(MPI_Reduce_local(a, b, 1, v, MPI_PROD), MPI_SUCCESS);
  ck_assert_int_eq(b[0], 10);
  ck_assert_int_eq(b[1], 40);
  ck_assert_int_eq(b[2], -7);
  ck_assert_int_eq(b[3], 90);
  ck_assert_int_eq(b[4], 160);
  ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
}
END_TEST

START_TEST(minloc_on_struct_of_double_int_pairs) {
  MPI_Datatype st;
  int lens[2] = {1, 1};
  MPI_Aint disps[2] = {0, (MPI_Aint)sizeof(p_double_int)};
  MPI_Datatype parts[2] = {MPI_DOUBLE_INT, MPI_DOUBLE_INT};
  ck_assert_int_eq(MPI_Type_create_struct(2, lens, disps, parts, &st),
                   MPI_SUCCESS);
  ck_assert_int_eq(MPI_Type_commit(&st), MPI_SUCCESS);
  p_double_int a[4] = {{1.0, 1}, {5.0, 1}, {-3.0, 1}, {2.0, 1}};
  p_double_int b[4] = {{2.0, 2}, {5.0, 0}, {-3.0, 4}, {1.0, 2}};
  ck_assert_int_eq(MPI_Reduce_local(a, b, 2, st, MPI_MINLOC), MPI_SUCCESS);
  ck_assert(b[0].v == 1.0 && b[0].k == 1);
  ck_assert(b[1].v == 5.0 && b[1].k == 0);
  ck_assert(b[2].v == -3.0 && b[2].k == 1);
  ck_assert(b[3].v == 1.0 && b[3].k == 2);
  ck_assert_int_eq(MPI_Reduce_local(a, b, 2, st, MPI_MAXLOC), MPI_SUCCESS);
  ck_assert(b[3].v == 2.0 && b[3].k == 1);
  hcomm_reduce_op_t r;
  size_t packed = 0;
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_SUM, st, &r, &packed), MPI_ERR_OP);
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_MAXLOC, st, &r, &packed),
                   MPI_SUCCESS);
  ck_assert_uint_eq(packed, 2);
  ck_assert_uint_eq(r.elem_size, sizeof(double) + sizeof(int));
  ck_assert_int_eq(MPI_Type_free(&st), MPI_SUCCESS);
}
END_TEST

START_TEST(predefined_op_on_mixed_struct_is_refused) {
  MPI_Datatype st;
  int lens[2] = {1, 1};
  MPI_Aint disps[2] = {0, 8};
  MPI_Datatype parts[2] = {MPI_DOUBLE, MPI_LONG};
  hcomm_reduce_op_t r;
  size_t packed = 7;
  ck_assert_int_eq(MPI_Type_create_struct(2, lens, disps, parts, &st),
                   MPI_SUCCESS);
  ck_assert_int_eq(MPI_Type_commit(&st), MPI_SUCCESS);
  ck_assert_int_eq(hc_mpi_op_resolve(MPI_SUM, st, &r, &packed), MPI_ERR_OP);
  ck_assert_uint_eq(packed, 7);
  ck_assert_int_eq(MPI_Type_free(&st), MPI_SUCCESS);
}
END_TEST

static Suite *op_suite(void) {
  Suite *s = suite_create("op");
  TCase *t = tcase_create("predefined");
  tcase_add_test(t, every_pair_validity_follows_the_type_groups);
  tcase_add_test(t, every_valid_pair_matches_the_scalar_reference);
  tcase_add_test(t, minloc_maxloc_tie_keeps_lower_index);
  tcase_add_test(t, invalid_ops_and_types_are_rejected);
  tcase_add_test(t, every_kernel_over_a_vector_gives_the_serial_loops_bits);
  tcase_add_test(t, float_and_double_sums_and_products_match_a_plain_loop);
  suite_add_tcase(s, t);
  TCase *u = tcase_create("user");
  tcase_add_test(u, user_op_calls_function_with_datatype);
  tcase_add_test(u, freed_user_op_is_invalid);
  tcase_add_test(u, reduce_local_with_predefined_op);
  tcase_add_test(u, predefined_op_on_contiguous_double_reduces_basic_elements);
  tcase_add_test(u, predefined_op_on_vector_leaves_the_gaps);
  tcase_add_test(u, minloc_on_struct_of_double_int_pairs);
  tcase_add_test(u, predefined_op_on_mixed_struct_is_refused);
  suite_add_tcase(s, u);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(op_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

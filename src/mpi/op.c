/*
 * MPI reduction operations: the predefined kernels, the (op, datatype)
 * resolver used by the face's collectives, and user operations
 * (MPI_Op_create / MPI_Op_free / MPI_Op_commutative / MPI_Reduce_local).
 *
 * Kernels follow the engine's contract inout[i] = in[i] op inout[i].  Each
 * is stamped out by a generator macro that takes the function's full name,
 * so every kernel name appears literally below.  Signed integer sums and
 * products are computed in the matching unsigned type: wrap-around, as
 * every MPI implementation gives in practice, without undefined behaviour.
 */
#include "mpi/op.h"

#include <complex.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/coll_impl.h"
#include "mpi/datatype.h"
#include "mpi/errors.h"
#include "mpi/handle.h"

/* ---- kernel generators --------------------------------------------------- */

/* The element-wise kernels are built twice on x86-64 (glibc picks one at
 * load through an ifunc): with AVX2 a vector holds 4 doubles rather than
 * SSE2's 2, so a 1 KiB MPI_SUM on doubles takes half the instructions.
 * Each element is still one IEEE operation on in[i] and inout[i], so
 * either build gives the serial loop's bits (tests/unit/check_op.c). */
/* Not under ThreadSanitizer or AddressSanitizer: the ifunc resolvers run
 * while the dynamic loader relocates the library, before the sanitizer's
 * runtime is up, and their instrumented entry crashes there (every MPI
 * program of `make tsan-check` died in _dl_relocate_object). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&        \
    defined(__GLIBC__) && defined(__ELF__) &&                                  \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define OP_KERNEL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define OP_KERNEL_CLONES
#endif

/* b[i] = expr, where expr reads a[i] (in) and b[i] (inout). */
#define OP_KERNEL(name, type, expr)                                            \
  OP_KERNEL_CLONES static void name(const void *in, void *inout, size_t count, \
                                    void *ctx) {                               \
    const type *a = in;                                                        \
    type *b = inout;                                                           \
    (void)ctx;                                                                 \
    for (size_t i = 0; i < count; i++)                                         \
      b[i] = (type)(expr);                                                     \
  }

#define OP_MAX_KERNEL(name, type)                                              \
  OP_KERNEL(name, type, a[i] > b[i] ? a[i] : b[i])
#define OP_MIN_KERNEL(name, type)                                              \
  OP_KERNEL(name, type, a[i] < b[i] ? a[i] : b[i])
/* wide: the unsigned type the sum or product is computed in. */
#define OP_SUM_KERNEL(name, type, wide)                                        \
  OP_KERNEL(name, type, (wide)a[i] + (wide)b[i])
#define OP_PROD_KERNEL(name, type, wide)                                       \
  OP_KERNEL(name, type, (wide)a[i] * (wide)b[i])
#define OP_LAND_KERNEL(name, type) OP_KERNEL(name, type, a[i] && b[i])
#define OP_LOR_KERNEL(name, type) OP_KERNEL(name, type, a[i] || b[i])
#define OP_LXOR_KERNEL(name, type) OP_KERNEL(name, type, !a[i] != !b[i])
#define OP_BAND_KERNEL(name, type) OP_KERNEL(name, type, a[i] & b[i])
#define OP_BOR_KERNEL(name, type) OP_KERNEL(name, type, a[i] | b[i])
#define OP_BXOR_KERNEL(name, type) OP_KERNEL(name, type, a[i] ^ b[i])

/* (value, index) pairs: the better value wins, a tie keeps the lower index. */
#define OP_MAXLOC_KERNEL(name, type)                                           \
  static void name(const void *in, void *inout, size_t count, void *ctx) {     \
    const type *a = in;                                                        \
    type *b = inout;                                                           \
    (void)ctx;                                                                 \
    for (size_t i = 0; i < count; i++)                                         \
      if (a[i].v > b[i].v || (a[i].v == b[i].v && a[i].k < b[i].k))            \
        b[i] = a[i];                                                           \
  }
#define OP_MINLOC_KERNEL(name, type)                                           \
  static void name(const void *in, void *inout, size_t count, void *ctx) {     \
    const type *a = in;                                                        \
    type *b = inout;                                                           \
    (void)ctx;                                                                 \
    for (size_t i = 0; i < count; i++)                                         \
      if (a[i].v < b[i].v || (a[i].v == b[i].v && a[i].k < b[i].k))            \
        b[i] = a[i];                                                           \
  }

/* All ten integer kernels of one C integer type. */
#define OP_INTEGER_KERNELS(max, min, sum, prod, land, lor, lxor, band, bor,    \
                           bxor, type, wide)                                   \
  OP_MAX_KERNEL(max, type)                                                     \
  OP_MIN_KERNEL(min, type)                                                     \
  OP_SUM_KERNEL(sum, type, wide)                                               \
  OP_PROD_KERNEL(prod, type, wide)                                             \
  OP_LAND_KERNEL(land, type)                                                   \
  OP_LOR_KERNEL(lor, type)                                                     \
  OP_LXOR_KERNEL(lxor, type)                                                   \
  OP_BAND_KERNEL(band, type)                                                   \
  OP_BOR_KERNEL(bor, type)                                                     \
  OP_BXOR_KERNEL(bxor, type)

/* ---- kernels ------------------------------------------------------------- */

/* GCC's -O2 vectorizes only loops whose trip count it knows, so these
 * element-wise loops ran one element per iteration (a byte MPI_SUM at
 * ~1 B/cycle was most of a large accumulate's cost at the target).  The
 * "cheap" model adds the runtime trip-count and overlap checks; element-
 * wise results are the same bits (no reassociation).  Clang vectorizes
 * them at -O2 already. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("tree-vectorize", "vect-cost-model=cheap")
#endif

OP_INTEGER_KERNELS(op_max_i8, op_min_i8, op_sum_i8, op_prod_i8, op_land_i8,
                   op_lor_i8, op_lxor_i8, op_band_i8, op_bor_i8, op_bxor_i8,
                   int8_t, unsigned)
OP_INTEGER_KERNELS(op_max_u8, op_min_u8, op_sum_u8, op_prod_u8, op_land_u8,
                   op_lor_u8, op_lxor_u8, op_band_u8, op_bor_u8, op_bxor_u8,
                   uint8_t, unsigned)
OP_INTEGER_KERNELS(op_max_i16, op_min_i16, op_sum_i16, op_prod_i16, op_land_i16,
                   op_lor_i16, op_lxor_i16, op_band_i16, op_bor_i16,
                   op_bxor_i16, int16_t, unsigned)
OP_INTEGER_KERNELS(op_max_u16, op_min_u16, op_sum_u16, op_prod_u16, op_land_u16,
                   op_lor_u16, op_lxor_u16, op_band_u16, op_bor_u16,
                   op_bxor_u16, uint16_t, unsigned)
OP_INTEGER_KERNELS(op_max_i32, op_min_i32, op_sum_i32, op_prod_i32, op_land_i32,
                   op_lor_i32, op_lxor_i32, op_band_i32, op_bor_i32,
                   op_bxor_i32, int32_t, uint32_t)
OP_INTEGER_KERNELS(op_max_u32, op_min_u32, op_sum_u32, op_prod_u32, op_land_u32,
                   op_lor_u32, op_lxor_u32, op_band_u32, op_bor_u32,
                   op_bxor_u32, uint32_t, uint32_t)
OP_INTEGER_KERNELS(op_max_i64, op_min_i64, op_sum_i64, op_prod_i64, op_land_i64,
                   op_lor_i64, op_lxor_i64, op_band_i64, op_bor_i64,
                   op_bxor_i64, int64_t, uint64_t)
OP_INTEGER_KERNELS(op_max_u64, op_min_u64, op_sum_u64, op_prod_u64, op_land_u64,
                   op_lor_u64, op_lxor_u64, op_band_u64, op_bor_u64,
                   op_bxor_u64, uint64_t, uint64_t)

/* All seven kernels of one floating type. */
#define OP_FLOAT_KERNELS(max, min, sum, prod, land, lor, lxor, type)           \
  OP_MAX_KERNEL(max, type)                                                     \
  OP_MIN_KERNEL(min, type)                                                     \
  OP_SUM_KERNEL(sum, type, type)                                               \
  OP_PROD_KERNEL(prod, type, type)                                             \
  OP_LAND_KERNEL(land, type)                                                   \
  OP_LOR_KERNEL(lor, type)                                                     \
  OP_LXOR_KERNEL(lxor, type)

OP_FLOAT_KERNELS(op_max_f32, op_min_f32, op_sum_f32, op_prod_f32, op_land_f32,
                 op_lor_f32, op_lxor_f32, float)
OP_FLOAT_KERNELS(op_max_f64, op_min_f64, op_sum_f64, op_prod_f64, op_land_f64,
                 op_lor_f64, op_lxor_f64, double)
OP_FLOAT_KERNELS(op_max_ldbl, op_min_ldbl, op_sum_ldbl, op_prod_ldbl,
                 op_land_ldbl, op_lor_ldbl, op_lxor_ldbl, long double)
#ifdef __FLT16_MAX__
OP_FLOAT_KERNELS(op_max_f16, op_min_f16, op_sum_f16, op_prod_f16, op_land_f16,
                 op_lor_f16, op_lxor_f16, _Float16)
#endif
/* Fortran REAL*16 is IEEE binary128, not the x87 long double. */
#ifdef HC_HAVE_FLOAT128
OP_FLOAT_KERNELS(op_max_f128, op_min_f128, op_sum_f128, op_prod_f128,
                 op_land_f128, op_lor_f128, op_lxor_f128, _Float128)
typedef _Complex _Float128 op_c128_t;
OP_SUM_KERNEL(op_sum_c128, op_c128_t, op_c128_t)
OP_PROD_KERNEL(op_prod_c128, op_c128_t, op_c128_t)
#endif

OP_SUM_KERNEL(op_sum_cf, float _Complex, float _Complex)
OP_PROD_KERNEL(op_prod_cf, float _Complex, float _Complex)
OP_SUM_KERNEL(op_sum_cd, double _Complex, double _Complex)
OP_PROD_KERNEL(op_prod_cd, double _Complex, double _Complex)
OP_SUM_KERNEL(op_sum_cld, long double _Complex, long double _Complex)
OP_PROD_KERNEL(op_prod_cld, long double _Complex, long double _Complex)

OP_LAND_KERNEL(op_land_bool, bool)
OP_LOR_KERNEL(op_lor_bool, bool)
OP_LXOR_KERNEL(op_lxor_bool, bool)

/* The layouts of MPI's pair types (value v, index k). */
typedef struct {
  float v;
  int k;
} op_float_int_t;
typedef struct {
  double v;
  int k;
} op_double_int_t;
typedef struct {
  long v;
  int k;
} op_long_int_t;
typedef struct {
  int v;
  int k;
} op_2int_t;
typedef struct {
  short v;
  int k;
} op_short_int_t;
typedef struct {
  long double v;
  int k;
} op_long_double_int_t;
typedef struct {
  float v;
  float k;
} op_2real_t;
typedef struct {
  double v;
  double k;
} op_2double_t;

OP_MAXLOC_KERNEL(op_maxloc_float_int, op_float_int_t)
OP_MINLOC_KERNEL(op_minloc_float_int, op_float_int_t)
OP_MAXLOC_KERNEL(op_maxloc_double_int, op_double_int_t)
OP_MINLOC_KERNEL(op_minloc_double_int, op_double_int_t)
OP_MAXLOC_KERNEL(op_maxloc_long_int, op_long_int_t)
OP_MINLOC_KERNEL(op_minloc_long_int, op_long_int_t)
OP_MAXLOC_KERNEL(op_maxloc_2int, op_2int_t)
OP_MINLOC_KERNEL(op_minloc_2int, op_2int_t)
OP_MAXLOC_KERNEL(op_maxloc_short_int, op_short_int_t)
OP_MINLOC_KERNEL(op_minloc_short_int, op_short_int_t)
OP_MAXLOC_KERNEL(op_maxloc_long_double_int, op_long_double_int_t)
OP_MINLOC_KERNEL(op_minloc_long_double_int, op_long_double_int_t)
OP_MAXLOC_KERNEL(op_maxloc_2real, op_2real_t)
OP_MINLOC_KERNEL(op_minloc_2real, op_2real_t)
OP_MAXLOC_KERNEL(op_maxloc_2double, op_2double_t)
OP_MINLOC_KERNEL(op_minloc_2double, op_2double_t)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* MPI_REPLACE (accumulate): ctx carries the element size. */
static void op_replace(const void *in, void *inout, size_t count, void *ctx) {
  size_t elem = (size_t)(uintptr_t)ctx;
  if (count > 0)
    memmove(inout, in, count * elem);
}

static void op_no_op(const void *in, void *inout, size_t count, void *ctx) {
  (void)in;
  (void)inout;
  (void)count;
  (void)ctx;
}

/* ---- tables -------------------------------------------------------------- */

/* Index of a predefined op: the low byte of its handle (MPI_MAX 1 ...). */
enum op_index {
  OP_MAX = 1,
  OP_MIN,
  OP_SUM,
  OP_PROD,
  OP_LAND,
  OP_BAND,
  OP_LOR,
  OP_BOR,
  OP_LXOR,
  OP_BXOR,
  OP_MINLOC,
  OP_MAXLOC,
  OP_REPLACE,
  OP_NO_OP,
  OP_NPREDEF
};

/* The storage kinds kernels exist for. */
enum op_kind {
  OPK_I8,
  OPK_U8,
  OPK_I16,
  OPK_U16,
  OPK_I32,
  OPK_U32,
  OPK_I64,
  OPK_U64,
  OPK_F16,
  OPK_F32,
  OPK_F64,
  OPK_LDBL,
  OPK_F128,
  OPK_CF,
  OPK_CD,
  OPK_CLD,
  OPK_C128,
  OPK_BOOL,
  OPK_FLOAT_INT,
  OPK_DOUBLE_INT,
  OPK_LONG_INT,
  OPK_2INT,
  OPK_SHORT_INT,
  OPK_LONG_DOUBLE_INT,
  OPK_2REAL,
  OPK_2DOUBLE,
  OPK_NONE, /* predefined, but only MPI_REPLACE / MPI_NO_OP apply */
  OPK_COUNT
};

/* The standard's type groups (MPI 4.0 section 6.9.2). */
enum op_group {
  OPG_CINT = 1u << 0,
  OPG_FINT = 1u << 1,
  OPG_FLOAT = 1u << 2,
  OPG_LOGICAL = 1u << 3,
  OPG_COMPLEX = 1u << 4,
  OPG_BYTE = 1u << 5,
  OPG_MULTI = 1u << 6, /* MPI_AINT, MPI_OFFSET, MPI_COUNT */
  OPG_PAIR = 1u << 7,
  OPG_OTHER = 1u << 8
};

static const unsigned op_allowed[OP_NPREDEF] = {
    [OP_MAX] = OPG_CINT | OPG_FINT | OPG_FLOAT | OPG_MULTI,
    [OP_MIN] = OPG_CINT | OPG_FINT | OPG_FLOAT | OPG_MULTI,
    [OP_SUM] = OPG_CINT | OPG_FINT | OPG_FLOAT | OPG_COMPLEX | OPG_MULTI,
    [OP_PROD] = OPG_CINT | OPG_FINT | OPG_FLOAT | OPG_COMPLEX | OPG_MULTI,
    /* The standard stops the logical ops at C integers and logicals;
     * MPICH also takes floating point and MPI_AINT / MPI_OFFSET /
     * MPI_COUNT (zero is false), and programs built against it may rely
     * on that, so they work here too. */
    [OP_LAND] = OPG_CINT | OPG_LOGICAL | OPG_FLOAT | OPG_MULTI,
    [OP_LOR] = OPG_CINT | OPG_LOGICAL | OPG_FLOAT | OPG_MULTI,
    [OP_LXOR] = OPG_CINT | OPG_LOGICAL | OPG_FLOAT | OPG_MULTI,
    [OP_BAND] = OPG_CINT | OPG_FINT | OPG_BYTE | OPG_MULTI,
    [OP_BOR] = OPG_CINT | OPG_FINT | OPG_BYTE | OPG_MULTI,
    [OP_BXOR] = OPG_CINT | OPG_FINT | OPG_BYTE | OPG_MULTI,
    [OP_MINLOC] = OPG_PAIR,
    [OP_MAXLOC] = OPG_PAIR,
    [OP_REPLACE] = ~0u,
    [OP_NO_OP] = ~0u,
};

typedef struct op_type_info {
  MPI_Datatype type;
  enum op_kind kind;
  unsigned group;
  size_t size;
} op_type_info_t;

/* Every predefined datatype.  MPI_CHAR and MPI_WCHAR count as C integers,
 * as MPICH accepts them; MPI_LOGICAL is stored as a 4-byte integer whose
 * non-zero values are true. */
static const op_type_info_t op_types[] = {
    {MPI_CHAR, OPK_I8, OPG_CINT, 1},
    {MPI_SIGNED_CHAR, OPK_I8, OPG_CINT, 1},
    {MPI_UNSIGNED_CHAR, OPK_U8, OPG_CINT, 1},
    {MPI_WCHAR, OPK_I32, OPG_CINT, 4},
    {MPI_SHORT, OPK_I16, OPG_CINT, 2},
    {MPI_UNSIGNED_SHORT, OPK_U16, OPG_CINT, 2},
    {MPI_INT, OPK_I32, OPG_CINT, 4},
    {MPI_UNSIGNED, OPK_U32, OPG_CINT, 4},
    {MPI_LONG, OPK_I64, OPG_CINT, 8},
    {MPI_UNSIGNED_LONG, OPK_U64, OPG_CINT, 8},
    {MPI_LONG_LONG_INT, OPK_I64, OPG_CINT, 8},
    {MPI_UNSIGNED_LONG_LONG, OPK_U64, OPG_CINT, 8},
    {MPI_INT8_T, OPK_I8, OPG_CINT, 1},
    {MPI_INT16_T, OPK_I16, OPG_CINT, 2},
    {MPI_INT32_T, OPK_I32, OPG_CINT, 4},
    {MPI_INT64_T, OPK_I64, OPG_CINT, 8},
    {MPI_UINT8_T, OPK_U8, OPG_CINT, 1},
    {MPI_UINT16_T, OPK_U16, OPG_CINT, 2},
    {MPI_UINT32_T, OPK_U32, OPG_CINT, 4},
    {MPI_UINT64_T, OPK_U64, OPG_CINT, 8},
    {MPI_AINT, OPK_I64, OPG_MULTI, 8},
    {MPI_OFFSET, OPK_I64, OPG_MULTI, 8},
    {MPI_COUNT, OPK_I64, OPG_MULTI, 8},
    {MPI_INTEGER, OPK_I32, OPG_FINT, 4},
    {MPI_INTEGER1, OPK_I8, OPG_FINT, 1},
    {MPI_INTEGER2, OPK_I16, OPG_FINT, 2},
    {MPI_INTEGER4, OPK_I32, OPG_FINT, 4},
    {MPI_INTEGER8, OPK_I64, OPG_FINT, 8},
    {MPI_FLOAT, OPK_F32, OPG_FLOAT, 4},
    {MPI_DOUBLE, OPK_F64, OPG_FLOAT, 8},
    {MPI_LONG_DOUBLE, OPK_LDBL, OPG_FLOAT, sizeof(long double)},
    {MPI_REAL, OPK_F32, OPG_FLOAT, 4},
    {MPI_DOUBLE_PRECISION, OPK_F64, OPG_FLOAT, 8},
    {MPI_REAL4, OPK_F32, OPG_FLOAT, 4},
    {MPI_REAL8, OPK_F64, OPG_FLOAT, 8},
#ifdef HC_HAVE_FLOAT128
    {MPI_REAL16, OPK_F128, OPG_FLOAT, 16},
    {MPI_COMPLEX32, OPK_C128, OPG_COMPLEX, 32},
#else
    {MPI_REAL16, OPK_NONE, OPG_OTHER, 16},
    {MPI_COMPLEX32, OPK_NONE, OPG_OTHER, 32},
#endif
#ifdef __FLT16_MAX__
    {MPIX_C_FLOAT16, OPK_F16, OPG_FLOAT, 2},
#else
    {MPIX_C_FLOAT16, OPK_NONE, OPG_OTHER, 2},
#endif
    {MPI_C_BOOL, OPK_BOOL, OPG_LOGICAL, 1},
    {MPI_CXX_BOOL, OPK_BOOL, OPG_LOGICAL, 1},
    {MPI_LOGICAL, OPK_I32, OPG_LOGICAL, 4},
    {MPI_C_FLOAT_COMPLEX, OPK_CF, OPG_COMPLEX, 8},
    {MPI_C_DOUBLE_COMPLEX, OPK_CD, OPG_COMPLEX, 16},
    {MPI_C_LONG_DOUBLE_COMPLEX, OPK_CLD, OPG_COMPLEX, 32},
    {MPI_CXX_FLOAT_COMPLEX, OPK_CF, OPG_COMPLEX, 8},
    {MPI_CXX_DOUBLE_COMPLEX, OPK_CD, OPG_COMPLEX, 16},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, OPK_CLD, OPG_COMPLEX, 32},
    {MPI_COMPLEX, OPK_CF, OPG_COMPLEX, 8},
    {MPI_DOUBLE_COMPLEX, OPK_CD, OPG_COMPLEX, 16},
    {MPI_COMPLEX8, OPK_CF, OPG_COMPLEX, 8},
    {MPI_COMPLEX16, OPK_CD, OPG_COMPLEX, 16},
    {MPI_BYTE, OPK_U8, OPG_BYTE, 1},
    {MPI_FLOAT_INT, OPK_FLOAT_INT, OPG_PAIR, sizeof(op_float_int_t)},
    {MPI_DOUBLE_INT, OPK_DOUBLE_INT, OPG_PAIR, sizeof(op_double_int_t)},
    {MPI_LONG_INT, OPK_LONG_INT, OPG_PAIR, sizeof(op_long_int_t)},
    {MPI_2INT, OPK_2INT, OPG_PAIR, sizeof(op_2int_t)},
    {MPI_SHORT_INT, OPK_SHORT_INT, OPG_PAIR, sizeof(op_short_int_t)},
    {MPI_LONG_DOUBLE_INT, OPK_LONG_DOUBLE_INT, OPG_PAIR,
     sizeof(op_long_double_int_t)},
    {MPI_2REAL, OPK_2REAL, OPG_PAIR, sizeof(op_2real_t)},
    {MPI_2DOUBLE_PRECISION, OPK_2DOUBLE, OPG_PAIR, sizeof(op_2double_t)},
    {MPI_2INTEGER, OPK_2INT, OPG_PAIR, sizeof(op_2int_t)},
    {MPI_CHARACTER, OPK_NONE, OPG_OTHER, 1},
    {MPI_PACKED, OPK_NONE, OPG_OTHER, 1},
};

/* Kernels per storage kind, indexed by enum op_index; REPLACE and NO_OP
 * apply to every kind and are handled apart. */
static const hcomm_reduce_fn op_kernels[OPK_COUNT][OP_NPREDEF] = {
    [OPK_I8] = {[OP_MAX] = op_max_i8,
                [OP_MIN] = op_min_i8,
                [OP_SUM] = op_sum_i8,
                [OP_PROD] = op_prod_i8,
                [OP_LAND] = op_land_i8,
                [OP_BAND] = op_band_i8,
                [OP_LOR] = op_lor_i8,
                [OP_BOR] = op_bor_i8,
                [OP_LXOR] = op_lxor_i8,
                [OP_BXOR] = op_bxor_i8},
    [OPK_U8] = {[OP_MAX] = op_max_u8,
                [OP_MIN] = op_min_u8,
                [OP_SUM] = op_sum_u8,
                [OP_PROD] = op_prod_u8,
                [OP_LAND] = op_land_u8,
                [OP_BAND] = op_band_u8,
                [OP_LOR] = op_lor_u8,
                [OP_BOR] = op_bor_u8,
                [OP_LXOR] = op_lxor_u8,
                [OP_BXOR] = op_bxor_u8},
    [OPK_I16] = {[OP_MAX] = op_max_i16,
                 [OP_MIN] = op_min_i16,
                 [OP_SUM] = op_sum_i16,
                 [OP_PROD] = op_prod_i16,
                 [OP_LAND] = op_land_i16,
                 [OP_BAND] = op_band_i16,
                 [OP_LOR] = op_lor_i16,
                 [OP_BOR] = op_bor_i16,
                 [OP_LXOR] = op_lxor_i16,
                 [OP_BXOR] = op_bxor_i16},
    [OPK_U16] = {[OP_MAX] = op_max_u16,
                 [OP_MIN] = op_min_u16,
                 [OP_SUM] = op_sum_u16,
                 [OP_PROD] = op_prod_u16,
                 [OP_LAND] = op_land_u16,
                 [OP_BAND] = op_band_u16,
                 [OP_LOR] = op_lor_u16,
                 [OP_BOR] = op_bor_u16,
                 [OP_LXOR] = op_lxor_u16,
                 [OP_BXOR] = op_bxor_u16},
    [OPK_I32] = {[OP_MAX] = op_max_i32,
                 [OP_MIN] = op_min_i32,
                 [OP_SUM] = op_sum_i32,
                 [OP_PROD] = op_prod_i32,
                 [OP_LAND] = op_land_i32,
                 [OP_BAND] = op_band_i32,
                 [OP_LOR] = op_lor_i32,
                 [OP_BOR] = op_bor_i32,
                 [OP_LXOR] = op_lxor_i32,
                 [OP_BXOR] = op_bxor_i32},
    [OPK_U32] = {[OP_MAX] = op_max_u32,
                 [OP_MIN] = op_min_u32,
                 [OP_SUM] = op_sum_u32,
                 [OP_PROD] = op_prod_u32,
                 [OP_LAND] = op_land_u32,
                 [OP_BAND] = op_band_u32,
                 [OP_LOR] = op_lor_u32,
                 [OP_BOR] = op_bor_u32,
                 [OP_LXOR] = op_lxor_u32,
                 [OP_BXOR] = op_bxor_u32},
    [OPK_I64] = {[OP_MAX] = op_max_i64,
                 [OP_MIN] = op_min_i64,
                 [OP_SUM] = op_sum_i64,
                 [OP_PROD] = op_prod_i64,
                 [OP_LAND] = op_land_i64,
                 [OP_BAND] = op_band_i64,
                 [OP_LOR] = op_lor_i64,
                 [OP_BOR] = op_bor_i64,
                 [OP_LXOR] = op_lxor_i64,
                 [OP_BXOR] = op_bxor_i64},
    [OPK_U64] = {[OP_MAX] = op_max_u64,
                 [OP_MIN] = op_min_u64,
                 [OP_SUM] = op_sum_u64,
                 [OP_PROD] = op_prod_u64,
                 [OP_LAND] = op_land_u64,
                 [OP_BAND] = op_band_u64,
                 [OP_LOR] = op_lor_u64,
                 [OP_BOR] = op_bor_u64,
                 [OP_LXOR] = op_lxor_u64,
                 [OP_BXOR] = op_bxor_u64},
#ifdef __FLT16_MAX__
    [OPK_F16] = {[OP_MAX] = op_max_f16,
                 [OP_MIN] = op_min_f16,
                 [OP_SUM] = op_sum_f16,
                 [OP_PROD] = op_prod_f16,
                 [OP_LAND] = op_land_f16,
                 [OP_LOR] = op_lor_f16,
                 [OP_LXOR] = op_lxor_f16},
#endif
    [OPK_F32] = {[OP_MAX] = op_max_f32,
                 [OP_MIN] = op_min_f32,
                 [OP_SUM] = op_sum_f32,
                 [OP_PROD] = op_prod_f32,
                 [OP_LAND] = op_land_f32,
                 [OP_LOR] = op_lor_f32,
                 [OP_LXOR] = op_lxor_f32},
    [OPK_F64] = {[OP_MAX] = op_max_f64,
                 [OP_MIN] = op_min_f64,
                 [OP_SUM] = op_sum_f64,
                 [OP_PROD] = op_prod_f64,
                 [OP_LAND] = op_land_f64,
                 [OP_LOR] = op_lor_f64,
                 [OP_LXOR] = op_lxor_f64},
    [OPK_LDBL] = {[OP_MAX] = op_max_ldbl,
                  [OP_MIN] = op_min_ldbl,
                  [OP_SUM] = op_sum_ldbl,
                  [OP_PROD] = op_prod_ldbl,
                 [OP_LAND] = op_land_ldbl,
                 [OP_LOR] = op_lor_ldbl,
                 [OP_LXOR] = op_lxor_ldbl},
#ifdef HC_HAVE_FLOAT128
    [OPK_F128] = {[OP_MAX] = op_max_f128,
                  [OP_MIN] = op_min_f128,
                  [OP_SUM] = op_sum_f128,
                  [OP_PROD] = op_prod_f128,
                 [OP_LAND] = op_land_f128,
                 [OP_LOR] = op_lor_f128,
                 [OP_LXOR] = op_lxor_f128},
    [OPK_C128] = {[OP_SUM] = op_sum_c128, [OP_PROD] = op_prod_c128},
#endif
    [OPK_CF] = {[OP_SUM] = op_sum_cf, [OP_PROD] = op_prod_cf},
    [OPK_CD] = {[OP_SUM] = op_sum_cd, [OP_PROD] = op_prod_cd},
    [OPK_CLD] = {[OP_SUM] = op_sum_cld, [OP_PROD] = op_prod_cld},
    [OPK_BOOL] = {[OP_LAND] = op_land_bool,
                  [OP_LOR] = op_lor_bool,
                  [OP_LXOR] = op_lxor_bool},
    [OPK_FLOAT_INT] =
        {[OP_MINLOC] = op_minloc_float_int, [OP_MAXLOC] = op_maxloc_float_int},
    [OPK_DOUBLE_INT] = {[OP_MINLOC] = op_minloc_double_int,
                        [OP_MAXLOC] = op_maxloc_double_int},
    [OPK_LONG_INT] =
        {[OP_MINLOC] = op_minloc_long_int, [OP_MAXLOC] = op_maxloc_long_int},
    [OPK_2INT] = {[OP_MINLOC] = op_minloc_2int, [OP_MAXLOC] = op_maxloc_2int},
    [OPK_SHORT_INT] =
        {[OP_MINLOC] = op_minloc_short_int, [OP_MAXLOC] = op_maxloc_short_int},
    [OPK_LONG_DOUBLE_INT] = {[OP_MINLOC] = op_minloc_long_double_int,
                             [OP_MAXLOC] = op_maxloc_long_double_int},
    [OPK_2REAL] =
        {[OP_MINLOC] = op_minloc_2real, [OP_MAXLOC] = op_maxloc_2real},
    [OPK_2DOUBLE] =
        {[OP_MINLOC] = op_minloc_2double, [OP_MAXLOC] = op_maxloc_2double},
};

/* op_types by handle, open addressing: a scan of the table cost a
 * reduction of doubles some 200 instructions. */
enum { OP_TYPE_SLOTS = 256 };
_Static_assert(sizeof op_types / sizeof op_types[0] < OP_TYPE_SLOTS / 2,
               "op_type_slot must stay sparse");
static uint8_t op_type_slot[OP_TYPE_SLOTS]; /* index in op_types + 1 */
static pthread_once_t op_type_slot_once = PTHREAD_ONCE_INIT;

static unsigned op_type_hash(MPI_Datatype type) {
  return ((uint32_t)type * 2654435761u) >> 24; /* Fibonacci hashing */
}

static void op_type_slot_build(void) {
  for (size_t i = 0; i < sizeof op_types / sizeof op_types[0]; i++) {
    unsigned h = op_type_hash(op_types[i].type);
    while (op_type_slot[h] != 0)
      h = (h + 1) % OP_TYPE_SLOTS;
    op_type_slot[h] = (uint8_t)(i + 1);
  }
}

static const op_type_info_t *op_type_find(MPI_Datatype type) {
  pthread_once(&op_type_slot_once, op_type_slot_build);
  for (unsigned h = op_type_hash(type);; h = (h + 1) % OP_TYPE_SLOTS) {
    unsigned at = op_type_slot[h];
    if (at == 0)
      return NULL;
    if (op_types[at - 1].type == type)
      return &op_types[at - 1];
  }
}

/* ---- user operations ----------------------------------------------------- */

/* What a user op's engine kernel needs: the function, the datatype it is
 * called with, and that type's extent (the engine's element stride). */
typedef struct op_user op_user_t;

typedef struct op_binding {
  MPI_User_function *fn;
  MPI_User_function_c *fn_c; /* MPI_Op_create_c: instead of fn */
  MPI_Datatype type;
  size_t extent;
  op_user_t *owner; /* what a pending reduction keeps alive */
  struct op_binding *next;
} op_binding_t;

/* A user op lives while its handle or a pending reduction holds it:
 * MPI_Op_free during an MPI_Ireduce must not free the function's binding
 * that the engine will still call. */
struct op_user {
  MPI_User_function *fn;
  MPI_User_function_c *fn_c;
  int commute;
  int refs;               /* the handle plus pending reductions; op_lock */
  op_binding_t *bindings; /* one per datatype used so far, under op_lock */
};

/* User op handles: direct handles 0x98000000|idx, as MPICH hands out. */
static hc_handle_table_t op_table = HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_OP, 0);
static pthread_mutex_t op_lock = PTHREAD_MUTEX_INITIALIZER;

/* A large-count function takes the whole run; the int one takes it in
 * int-sized parts. */
static void op_user_call(const void *in, void *inout, size_t count, void *ctx) {
  const op_binding_t *b = ctx;
  if (b->fn_c != NULL) {
    MPI_Count n = (MPI_Count)count;
    MPI_Datatype type = b->type;
    b->fn_c((void *)in, inout, &n, &type);
    return;
  }
  const char *src = in;
  char *dst = inout;
  while (count > 0) {
    int n = count > (size_t)INT_MAX ? INT_MAX : (int)count;
    MPI_Datatype type = b->type;
    b->fn((void *)src, dst, &n, &type);
    src += (size_t)n * b->extent;
    dst += (size_t)n * b->extent;
    count -= (size_t)n;
  }
}

static op_binding_t *op_user_bind(op_user_t *u, MPI_Datatype type,
                                  size_t extent) {
  pthread_mutex_lock(&op_lock);
  op_binding_t *b = u->bindings;
  while (b != NULL && b->type != type)
    b = b->next;
  if (b == NULL && (b = malloc(sizeof *b)) != NULL) {
    *b = (op_binding_t){u->fn, u->fn_c, type, extent, u, u->bindings};
    u->bindings = b;
  }
  pthread_mutex_unlock(&op_lock);
  return b;
}

static int op_resolve_user(op_user_t *u, MPI_Datatype type,
                           hcomm_reduce_op_t *out) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  if (t == NULL || t->extent <= 0)
    return MPI_ERR_TYPE;
  op_binding_t *b = op_user_bind(u, type, (size_t)t->extent);
  if (b == NULL)
    return MPI_ERR_NO_MEM;
  *out = (hcomm_reduce_op_t){op_user_call, b, (size_t)t->extent, u->commute};
  return MPI_SUCCESS;
}

static void op_user_destroy(op_user_t *u) {
  for (op_binding_t *b = u->bindings, *next; b != NULL; b = next) {
    next = b->next;
    free(b);
  }
  free(u);
}

/* The user op behind a resolved kernel; NULL for a predefined one. */
static op_user_t *op_user_of(const hcomm_reduce_op_t *op) {
  if (op->fn != op_user_call)
    return NULL;
  return ((const op_binding_t *)op->ctx)->owner;
}

int hc_mpi_op_retain(const hcomm_reduce_op_t *op) {
  op_user_t *u = op_user_of(op);
  if (u == NULL)
    return 0;
  pthread_mutex_lock(&op_lock);
  u->refs++;
  pthread_mutex_unlock(&op_lock);
  return 1;
}

static void op_user_release(op_user_t *u) {
  pthread_mutex_lock(&op_lock);
  int last = --u->refs == 0;
  pthread_mutex_unlock(&op_lock);
  if (last)
    op_user_destroy(u);
}

void hc_mpi_op_release(const hcomm_reduce_op_t *op) {
  op_user_t *u = op_user_of(op);
  if (u != NULL)
    op_user_release(u);
}

/* ---- resolver ------------------------------------------------------------ */

int hc_mpi_op_is_predefined(MPI_Op op) {
  unsigned idx = (unsigned)op & 0xffu;
  return ((unsigned)op & ~0xffu) == ((unsigned)MPI_MAX & ~0xffu) &&
         idx >= OP_MAX && idx < OP_NPREDEF;
}

static int op_resolve_predefined(MPI_Op op, const op_type_info_t *ti,
                                 hcomm_reduce_op_t *out) {
  unsigned idx = (unsigned)op & 0xffu;
  if ((op_allowed[idx] & ti->group) == 0)
    return MPI_ERR_OP;
  hcomm_reduce_op_t r = {NULL, NULL, ti->size, 1};
  if (idx == OP_REPLACE) {
    r.fn = op_replace;
    r.ctx = (void *)(uintptr_t)ti->size;
  } else if (idx == OP_NO_OP) {
    r.fn = op_no_op;
  } else {
    r.fn = op_kernels[ti->kind][idx];
  }
  if (r.fn == NULL)
    return MPI_ERR_OP;
  *out = r;
  return MPI_SUCCESS;
}

/* ---- predefined ops on derived types --------------------------------------
 * The standard lets a predefined op combine a derived type whose basic
 * elements are all one predefined type the op applies to.  The face then
 * reduces the type's packed stream (data only, in type-map order), which
 * is an array of that basic type, except that a padded pair (DOUBLE_INT:
 * 12 bytes of data in a 16-byte struct) packs without its padding: those
 * go through op_packed_pair, which widens each packed pair into the
 * struct the kernel expects. */

/* Where a pair's int lies in its C struct and in its packed form. */
typedef struct op_pair_layout {
  enum op_kind kind;
  size_t vsize; /* bytes of the value; the int follows it when packed */
  size_t koff;  /* offset of the int in the struct */
} op_pair_layout_t;

static const op_pair_layout_t op_pair_layouts[] = {
    {OPK_DOUBLE_INT, sizeof(double), offsetof(op_double_int_t, k)},
    {OPK_LONG_INT, sizeof(long), offsetof(op_long_int_t, k)},
    {OPK_SHORT_INT, sizeof(short), offsetof(op_short_int_t, k)},
    {OPK_LONG_DOUBLE_INT, sizeof(long double),
     offsetof(op_long_double_int_t, k)},
};
#define OP_NPAIR_LAYOUTS (sizeof op_pair_layouts / sizeof op_pair_layouts[0])

/* A kernel on packed pairs: the layout and the struct kernel (MINLOC or
 * MAXLOC); static, one per (padded pair, op), so ctx outlives any call. */
typedef struct op_packed_pair {
  const op_pair_layout_t *layout;
  hcomm_reduce_fn fn;
} op_packed_pair_t;

static op_packed_pair_t op_packed_pairs[OP_NPAIR_LAYOUTS][2];
static pthread_once_t op_packed_once = PTHREAD_ONCE_INIT;

static void op_packed_init(void) {
  for (size_t i = 0; i < OP_NPAIR_LAYOUTS; i++) {
    const op_pair_layout_t *l = &op_pair_layouts[i];
    op_packed_pairs[i][0] =
        (op_packed_pair_t){l, op_kernels[l->kind][OP_MINLOC]};
    op_packed_pairs[i][1] =
        (op_packed_pair_t){l, op_kernels[l->kind][OP_MAXLOC]};
  }
}

/* Scratch aligned for any pair struct. */
typedef union op_pair_scratch {
  op_long_double_int_t widest;
  unsigned char bytes[sizeof(op_long_double_int_t)];
} op_pair_scratch_t;

static void op_pair_widen(const op_pair_layout_t *l, const unsigned char *p,
                          op_pair_scratch_t *s) {
  memcpy(s->bytes, p, l->vsize);
  memcpy(s->bytes + l->koff, p + l->vsize, sizeof(int));
}

static void op_packed_pair(const void *in, void *inout, size_t count,
                           void *ctx) {
  const op_packed_pair_t *pp = ctx;
  const op_pair_layout_t *l = pp->layout;
  size_t packed = l->vsize + sizeof(int);
  const unsigned char *a = in;
  unsigned char *b = inout;
  for (size_t i = 0; i < count; i++, a += packed, b += packed) {
    op_pair_scratch_t sa, sb;
    op_pair_widen(l, a, &sa);
    op_pair_widen(l, b, &sb);
    pp->fn(sa.bytes, sb.bytes, 1, NULL);
    memcpy(b, sb.bytes, l->vsize);
    memcpy(b + l->vsize, sb.bytes + l->koff, sizeof(int));
  }
}

/* *base: the one predefined type of every basic element of t (types of no
 * data, MPI_LB/MPI_UB markers included, are ignored).  -1 when two differ;
 * *base stays NULL for a type without data. */
static int op_base_type(const hc_mpi_type_t *t, const hc_mpi_type_t **base,
                        int depth) {
  if (t->size == 0)
    return 0;
  if (t->predefined) {
    const hc_mpi_type_t *named = hc_mpi_type_named(t);
    if (*base != NULL && (*base)->handle != named->handle)
      return -1;
    *base = named;
    return 0;
  }
  if (depth > 64 || t->ntypes == 0)
    return -1;
  for (int i = 0; i < t->ntypes; i++)
    if (op_base_type(t->types[i], base, depth + 1) != 0)
      return -1;
  return 0;
}

/* Turns r, the kernel of op on padded pairs in their C structs, into one
 * on packed pairs of size bytes (MINLOC/MAXLOC widen each pair). */
static int op_packed_pair_op(unsigned idx, const op_type_info_t *ti,
                             size_t size, hcomm_reduce_op_t *r) {
  r->elem_size = size;
  if (idx == OP_REPLACE)
    r->ctx = (void *)(uintptr_t)size;
  if (idx == OP_REPLACE || idx == OP_NO_OP)
    return MPI_SUCCESS;
  pthread_once(&op_packed_once, op_packed_init);
  for (size_t i = 0; i < OP_NPAIR_LAYOUTS; i++)
    if (op_pair_layouts[i].kind == ti->kind) {
      r->fn = op_packed_pair;
      r->ctx = &op_packed_pairs[i][idx == OP_MAXLOC];
      return MPI_SUCCESS;
    }
  return MPI_ERR_OP;
}

/* The kernel of op on the packed stream of basic type base (ti). */
static int op_resolve_packed(MPI_Op op, const op_type_info_t *ti,
                             const hc_mpi_type_t *base,
                             hcomm_reduce_op_t *out) {
  hcomm_reduce_op_t r;
  int rc = op_resolve_predefined(op, ti, &r);
  if (rc == MPI_SUCCESS && (MPI_Aint)base->size != base->extent)
    rc = op_packed_pair_op((unsigned)op & 0xffu, ti, (size_t)base->size, &r);
  if (rc == MPI_SUCCESS)
    *out = r;
  return rc;
}

/* *per: kernel elements per element of t. */
static int op_resolve_derived(MPI_Op op, const hc_mpi_type_t *t,
                              hcomm_reduce_op_t *out, size_t *per) {
  const hc_mpi_type_t *base = NULL;
  if (op_base_type(t, &base, 0) != 0 || base == NULL)
    return MPI_ERR_OP;
  const op_type_info_t *ti = op_type_find(base->handle);
  if (ti == NULL)
    return MPI_ERR_OP;
  *per = (size_t)(t->size / base->size);
  return op_resolve_packed(op, ti, base, out);
}

int hc_mpi_op_basic_type(MPI_Datatype type, MPI_Datatype *base) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type), *b = NULL;
  if (t == NULL || op_base_type(t, &b, 0) != 0 || b == NULL)
    return MPI_ERR_TYPE;
  *base = b->handle;
  return MPI_SUCCESS;
}

int hc_mpi_op_cas_type(MPI_Datatype type) {
  const op_type_info_t *ti = op_type_find(type);
  return ti != NULL && (ti->group & (OPG_CINT | OPG_FINT | OPG_LOGICAL |
                                     OPG_MULTI | OPG_BYTE)) != 0;
}

int hc_mpi_op_resolve_stream(MPI_Op op, MPI_Datatype base,
                             hcomm_reduce_op_t *out) {
  const op_type_info_t *ti = op_type_find(base);
  const hc_mpi_type_t *t = hc_mpi_type_get(base);
  if (!hc_mpi_op_is_predefined(op))
    return MPI_ERR_OP;
  if (ti == NULL || t == NULL)
    return MPI_ERR_TYPE;
  return op_resolve_packed(op, ti, t, out);
}

static int op_resolve_any(MPI_Op op, MPI_Datatype type, hcomm_reduce_op_t *out,
                          size_t *per) {
  if (!hc_mpi_op_is_predefined(op)) {
    op_user_t *u = hc_handle_get(&op_table, op);
    return u != NULL ? op_resolve_user(u, type, out) : MPI_ERR_OP;
  }
  const op_type_info_t *ti = op_type_find(type);
  if (ti != NULL)
    return op_resolve_predefined(op, ti, out);
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  return t != NULL ? op_resolve_derived(op, t, out, per) : MPI_ERR_TYPE;
}

int hc_mpi_op_resolve(MPI_Op op, MPI_Datatype type, hcomm_reduce_op_t *out,
                      size_t *packed) {
  size_t per = 0;
  int rc = op_resolve_any(op, type, out, &per);
  if (rc == MPI_SUCCESS)
    *packed = per;
  return rc;
}

/* ---- MPI functions ------------------------------------------------------- */

/* One of user_fn (int counts) and user_fn_c (MPI_Count counts) is set. */
static int op_create(const char *fn, MPI_User_function *user_fn,
                     MPI_User_function_c *user_fn_c, int commute, MPI_Op *op) {
  int rc = hc_mpi_check_ptr(
      fn, NULL, user_fn ? (const void *)user_fn : (const void *)user_fn_c,
      "user_fn");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, op, "op");
  if (rc != MPI_SUCCESS)
    return rc;
  op_user_t *u = calloc(1, sizeof *u);
  int handle;
  if (u == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  u->fn = user_fn;
  u->fn_c = user_fn_c;
  u->commute = commute != 0;
  u->refs = 1;
  if (hc_handle_alloc(&op_table, u, &handle) != 0) {
    free(u);
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  *op = handle;
  return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op) {
  return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}
HC_WEAK_ALIAS(MPI_Op_create, PMPI_Op_create);

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op) {
  return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}
HC_WEAK_ALIAS(MPI_Op_create_c, PMPI_Op_create_c);

int PMPI_Op_free(MPI_Op *op) {
  static const char fn[] = "MPI_Op_free";
  int rc = hc_mpi_check_ptr(fn, NULL, op, "op");
  if (rc != MPI_SUCCESS)
    return rc;
  if (hc_mpi_op_is_predefined(*op))
    return hc_mpi_raise(NULL, fn, MPI_ERR_OP, "cannot free predefined op");
  op_user_t *u = hc_handle_free(&op_table, *op);
  if (u == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_OP, "invalid op 0x%x", *op);
  op_user_release(u); /* pending reductions may still hold it */
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Op_free, PMPI_Op_free);

int PMPI_Op_commutative(MPI_Op op, int *commute) {
  static const char fn[] = "MPI_Op_commutative";
  int rc = hc_mpi_check_ptr(fn, NULL, commute, "commute");
  if (rc != MPI_SUCCESS)
    return rc;
  if (hc_mpi_op_is_predefined(op)) {
    *commute = 1;
    return MPI_SUCCESS;
  }
  op_user_t *u = hc_handle_get(&op_table, op);
  if (u == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_OP, "invalid op 0x%x", op);
  *commute = u->commute;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Op_commutative, PMPI_Op_commutative);

const char *hc_mpi_op_name(MPI_Op op, char buf[HC_MPI_OP_NAME_MAX]) {
  static const char *const names[] = {
      "MPI_MAX",    "MPI_MIN",    "MPI_SUM",     "MPI_PROD", "MPI_LAND",
      "MPI_BAND",   "MPI_LOR",    "MPI_BOR",     "MPI_LXOR", "MPI_BXOR",
      "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};
  if (op == MPI_OP_NULL)
    return "MPI_OP_NULL";
  if (hc_mpi_op_is_predefined(op))
    return names[((unsigned)op & 0xffu) - OP_MAX];
  snprintf(buf, HC_MPI_OP_NAME_MAX, "0x%x", (unsigned)op);
  return buf;
}

static int op_reduce_local(const char *fn, const void *inbuf, void *inoutbuf,
                           MPI_Count count, MPI_Datatype datatype, MPI_Op op) {
  hc_mpi_red_t red = {.type = hc_mpi_type_get(datatype)};
  int rc = hc_mpi_check_count(fn, NULL, count);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = hc_mpi_op_resolve(op, datatype, &red.op, &red.packed);
  if (rc != MPI_SUCCESS) {
    char name[HC_MPI_OP_NAME_MAX];
    return hc_mpi_raise(NULL, fn, rc, "op %s on datatype 0x%x",
                        hc_mpi_op_name(op, name), (unsigned)datatype);
  }
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
    return hc_mpi_raise(NULL, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE is not a buffer of MPI_Reduce_local");
  if (count > 0 && (inbuf == NULL || inoutbuf == NULL))
    return hc_mpi_raise(NULL, fn, MPI_ERR_BUFFER, "NULL buffer");
  if (count == 0)
    return MPI_SUCCESS;
  if (inbuf == inoutbuf)
    return hc_mpi_raise(NULL, fn, MPI_ERR_BUFFER,
                        "inbuf and inoutbuf are the same buffer");
  /* Device buffers and derived types are reduced in host copies (packed
   * views; coll_ctx.c). */
  size_t n = (size_t)count;
  hc_mpi_coll_t *cx = hc_mpi_coll_new();
  void *in = (void *)inbuf, *io = inoutbuf;
  if (cx == NULL || hc_mpi_coll_red_buf(cx, &red, &in, n, n, 0) != 0 ||
      hc_mpi_coll_red_buf(cx, &red, &io, n, n, n) != 0)
    return hc_mpi_coll_nomem(fn, NULL, cx);
  red.op.fn(in, io, hc_mpi_red_elems(&red, n), red.op.ctx);
  return hc_mpi_raise_status(NULL, fn, hc_mpi_coll_end(cx, HC_OK));
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                      MPI_Datatype datatype, MPI_Op op) {
  return op_reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype,
                         op);
}
HC_WEAK_ALIAS(MPI_Reduce_local, PMPI_Reduce_local);

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op) {
  return op_reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype,
                         op);
}
HC_WEAK_ALIAS(MPI_Reduce_local_c, PMPI_Reduce_local_c);

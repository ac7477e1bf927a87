/*
 * Predefined datatypes: builtin handles carry their size in bits 8-15; the
 * five pair types (MPI_FLOAT_INT ...) are direct handles described by a
 * table.  Also MPI_Type_size(_x) and MPI_Type_get_(true_)extent(_x).
 */
#include <pthread.h>
#include <stddef.h>

#include "mpi/handle.h"
#include "mpi/mpi_impl.h"

/* Every builtin datatype of the MPICH 4.0 ABI; a handle not listed here is
 * not a datatype even when its bits look like one. */
static const MPI_Datatype type_builtins[] = {MPI_CHAR,
                                             MPI_SIGNED_CHAR,
                                             MPI_UNSIGNED_CHAR,
                                             MPI_BYTE,
                                             MPI_WCHAR,
                                             MPI_SHORT,
                                             MPI_UNSIGNED_SHORT,
                                             MPI_INT,
                                             MPI_UNSIGNED,
                                             MPI_LONG,
                                             MPI_UNSIGNED_LONG,
                                             MPI_FLOAT,
                                             MPI_DOUBLE,
                                             MPI_LONG_DOUBLE,
                                             MPI_LONG_LONG_INT,
                                             MPI_UNSIGNED_LONG_LONG,
                                             MPI_PACKED,
                                             MPI_LB,
                                             MPI_UB,
                                             MPI_2INT,
                                             MPI_COMPLEX,
                                             MPI_DOUBLE_COMPLEX,
                                             MPI_LOGICAL,
                                             MPI_REAL,
                                             MPI_DOUBLE_PRECISION,
                                             MPI_INTEGER,
                                             MPI_2INTEGER,
                                             MPI_2REAL,
                                             MPI_2DOUBLE_PRECISION,
                                             MPI_CHARACTER,
                                             MPI_REAL4,
                                             MPI_REAL8,
                                             MPI_REAL16,
                                             MPI_COMPLEX8,
                                             MPI_COMPLEX16,
                                             MPI_COMPLEX32,
                                             MPI_INTEGER1,
                                             MPI_INTEGER2,
                                             MPI_INTEGER4,
                                             MPI_INTEGER8,
                                             MPI_INT8_T,
                                             MPI_INT16_T,
                                             MPI_INT32_T,
                                             MPI_INT64_T,
                                             MPI_UINT8_T,
                                             MPI_UINT16_T,
                                             MPI_UINT32_T,
                                             MPI_UINT64_T,
                                             MPI_C_BOOL,
                                             MPI_C_FLOAT_COMPLEX,
                                             MPI_C_DOUBLE_COMPLEX,
                                             MPI_C_LONG_DOUBLE_COMPLEX,
                                             MPIX_C_FLOAT16,
                                             MPI_AINT,
                                             MPI_OFFSET,
                                             MPI_COUNT,
                                             MPI_CXX_BOOL,
                                             MPI_CXX_FLOAT_COMPLEX,
                                             MPI_CXX_DOUBLE_COMPLEX,
                                             MPI_CXX_LONG_DOUBLE_COMPLEX};

/* Two-element "pair" types with their first member's size; the struct
 * layouts follow the C ABI (an int after the value, padded to alignment). */
struct type_pair {
  MPI_Datatype handle;
  MPI_Count size;       /* sum of member sizes */
  MPI_Aint extent;      /* sizeof the C struct */
  MPI_Aint true_extent; /* offset of the int + sizeof(int) */
};

static const struct type_pair type_pairs[] = {
    {MPI_FLOAT_INT, 8, 8, 8},          {MPI_DOUBLE_INT, 12, 16, 12},
    {MPI_LONG_INT, 12, 16, 12},        {MPI_SHORT_INT, 6, 8, 8},
    {MPI_LONG_DOUBLE_INT, 20, 32, 20},
};

#define TYPE_NPAIRS (sizeof(type_pairs) / sizeof(type_pairs[0]))

static hc_mpi_type_t type_builtin_table[256]; /* by bits 0-7 of the handle */
static hc_mpi_type_t type_pair_table[TYPE_NPAIRS];
static pthread_once_t type_once = PTHREAD_ONCE_INIT;

static void type_describe(hc_mpi_type_t *t, MPI_Datatype handle, MPI_Count size,
                          MPI_Aint extent, MPI_Count elements) {
  t->handle = handle;
  t->size = size;
  t->lb = 0;
  t->extent = extent;
  t->true_lb = 0;
  t->true_extent = extent;
  t->wire_size = (size_t)extent;
  t->contiguous = 1;
  t->elements = elements;
  t->predefined = 1;
  t->committed = 1;
}

static void type_init_tables(void) {
  size_t n = sizeof(type_builtins) / sizeof(type_builtins[0]);
  for (size_t i = 0; i < n; i++) {
    unsigned h = (unsigned)type_builtins[i];
    MPI_Count size = (h >> 8) & 0xffu;
    /* The 2-element Fortran/C pair builtins count as two elements. */
    int pair = type_builtins[i] == MPI_2INT ||
               type_builtins[i] == MPI_2INTEGER ||
               type_builtins[i] == MPI_2REAL ||
               type_builtins[i] == MPI_2DOUBLE_PRECISION;
    type_describe(&type_builtin_table[h & 0xffu], type_builtins[i], size,
                  (MPI_Aint)size, pair ? 2 : 1);
  }
  for (size_t i = 0; i < TYPE_NPAIRS; i++) {
    type_describe(&type_pair_table[i], type_pairs[i].handle, type_pairs[i].size,
                  type_pairs[i].extent, 2);
    /* The padding after the int is not data, but it lies inside the
     * extent, so a contiguous array of pairs still moves as one span. */
    type_pair_table[i].true_extent = type_pairs[i].true_extent;
  }
}

const hc_mpi_type_t *hc_mpi_type_get(MPI_Datatype type) {
  pthread_once(&type_once, type_init_tables);
  unsigned h = (unsigned)type;
  if (hc_handle_object(type) != HC_OBJ_DATATYPE)
    return NULL;
  if (hc_handle_kind(type) == HC_HANDLE_KIND_BUILTIN) {
    const hc_mpi_type_t *t = &type_builtin_table[h & 0xffu];
    return t->handle == type ? t : NULL;
  }
  for (size_t i = 0; i < TYPE_NPAIRS; i++)
    if (type_pair_table[i].handle == type)
      return &type_pair_table[i];
  return NULL;
}

size_t hc_mpi_type_wire_bytes(const hc_mpi_type_t *type, int count) {
  return (size_t)count * type->wire_size;
}

/* Type queries are local and legal before MPI_Init, so no ready check. */
static int type_lookup(const char *fn, MPI_Datatype type, const void *out,
                       const hc_mpi_type_t **t) {
  int rc = hc_mpi_check_type(fn, NULL, type, t);
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_check_ptr(fn, NULL, out, "output argument");
}

int PMPI_Type_size(MPI_Datatype datatype, int *size) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup("MPI_Type_size", datatype, size, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  *size = t->size > 0x7fffffff ? MPI_UNDEFINED : (int)t->size;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_size = PMPI_Type_size

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup("MPI_Type_size_x", datatype, size, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  *size = t->size;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_size_x = PMPI_Type_size_x

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb,
                         MPI_Aint *extent) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup("MPI_Type_get_extent", datatype, lb, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr("MPI_Type_get_extent", NULL, extent, "extent");
  if (rc != MPI_SUCCESS)
    return rc;
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
                           MPI_Count *extent) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup("MPI_Type_get_extent_x", datatype, lb, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr("MPI_Type_get_extent_x", NULL, extent, "extent");
  if (rc != MPI_SUCCESS)
    return rc;
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                              MPI_Aint *true_extent) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup("MPI_Type_get_true_extent", datatype, true_lb, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr("MPI_Type_get_true_extent", NULL, true_extent,
                          "true_extent");
  if (rc != MPI_SUCCESS)
    return rc;
  *true_lb = t->true_lb;
  *true_extent = t->true_extent;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent

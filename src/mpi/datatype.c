/*
 * Datatype objects: the predefined types (builtin handles carry their size
 * in bits 8-15; the five pair types MPI_FLOAT_INT ... are direct handles
 * 0..4 described by a table), the handle table of derived types, their
 * reference counts, and the queries: size, extents, envelope, contents,
 * names, Type_commit / Type_free / Type_dup, Type_match_size.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/handle.h"
#include "mpi/mpi_impl.h"
#include "util/lock.h"

/* Every builtin datatype of the MPICH 4.0 ABI with its name and the
 * number of basic elements it splits into (the pair builtins and the
 * complex types keep their halves' alignment); a handle not listed here is
 * not a datatype even when its bits look like one. */
struct type_builtin {
  MPI_Datatype handle;
  const char *name;
  int halves; /* two basic elements (2INT...) */
  int cplx;   /* aligned like one half */
};

static const struct type_builtin type_builtins[] = {
    {MPI_CHAR, "MPI_CHAR", 0, 0},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 0, 0},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 0, 0},
    {MPI_BYTE, "MPI_BYTE", 0, 0},
    {MPI_WCHAR, "MPI_WCHAR", 0, 0},
    {MPI_SHORT, "MPI_SHORT", 0, 0},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 0, 0},
    {MPI_INT, "MPI_INT", 0, 0},
    {MPI_UNSIGNED, "MPI_UNSIGNED", 0, 0},
    {MPI_LONG, "MPI_LONG", 0, 0},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 0, 0},
    {MPI_FLOAT, "MPI_FLOAT", 0, 0},
    {MPI_DOUBLE, "MPI_DOUBLE", 0, 0},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 0, 0},
    {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", 0, 0},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 0, 0},
    {MPI_PACKED, "MPI_PACKED", 0, 0},
    {MPI_LB, "MPI_LB", 0, 0},
    {MPI_UB, "MPI_UB", 0, 0},
    {MPI_2INT, "MPI_2INT", 1, 0},
    {MPI_COMPLEX, "MPI_COMPLEX", 0, 1},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 0, 1},
    {MPI_LOGICAL, "MPI_LOGICAL", 0, 0},
    {MPI_REAL, "MPI_REAL", 0, 0},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 0, 0},
    {MPI_INTEGER, "MPI_INTEGER", 0, 0},
    {MPI_2INTEGER, "MPI_2INTEGER", 1, 0},
    {MPI_2REAL, "MPI_2REAL", 1, 0},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 1, 0},
    {MPI_CHARACTER, "MPI_CHARACTER", 0, 0},
    {MPI_REAL4, "MPI_REAL4", 0, 0},
    {MPI_REAL8, "MPI_REAL8", 0, 0},
    {MPI_REAL16, "MPI_REAL16", 0, 0},
    {MPI_COMPLEX8, "MPI_COMPLEX8", 0, 1},
    {MPI_COMPLEX16, "MPI_COMPLEX16", 0, 1},
    {MPI_COMPLEX32, "MPI_COMPLEX32", 0, 1},
    {MPI_INTEGER1, "MPI_INTEGER1", 0, 0},
    {MPI_INTEGER2, "MPI_INTEGER2", 0, 0},
    {MPI_INTEGER4, "MPI_INTEGER4", 0, 0},
    {MPI_INTEGER8, "MPI_INTEGER8", 0, 0},
    {MPI_INT8_T, "MPI_INT8_T", 0, 0},
    {MPI_INT16_T, "MPI_INT16_T", 0, 0},
    {MPI_INT32_T, "MPI_INT32_T", 0, 0},
    {MPI_INT64_T, "MPI_INT64_T", 0, 0},
    {MPI_UINT8_T, "MPI_UINT8_T", 0, 0},
    {MPI_UINT16_T, "MPI_UINT16_T", 0, 0},
    {MPI_UINT32_T, "MPI_UINT32_T", 0, 0},
    {MPI_UINT64_T, "MPI_UINT64_T", 0, 0},
    {MPI_C_BOOL, "MPI_C_BOOL", 0, 0},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", 0, 1},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 0, 1},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 0, 1},
    {MPIX_C_FLOAT16, "MPIX_C_FLOAT16", 0, 0},
    {MPI_AINT, "MPI_AINT", 0, 0},
    {MPI_OFFSET, "MPI_OFFSET", 0, 0},
    {MPI_COUNT, "MPI_COUNT", 0, 0},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL", 0, 0},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", 0, 1},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 0, 1},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", 0, 1},
};

/* Two-element "pair" types; the struct layouts follow the C ABI (an int
 * after the value, padded to the value's alignment). */
struct type_pair {
  MPI_Datatype handle;
  const char *name;
  MPI_Aint first;  /* size of the value */
  MPI_Aint ioff;   /* offset of the int */
  MPI_Aint extent; /* sizeof the C struct */
  MPI_Aint align;
};

static const struct type_pair type_pairs[] = {
    {MPI_FLOAT_INT, "MPI_FLOAT_INT", 4, 4, 8, 4},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 8, 8, 16, 8},
    {MPI_LONG_INT, "MPI_LONG_INT", 8, 8, 16, 8},
    {MPI_SHORT_INT, "MPI_SHORT_INT", 2, 4, 8, 4},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", 16, 16, 32, 16},
};

#define TYPE_NPAIRS (sizeof(type_pairs) / sizeof(type_pairs[0]))
#define TYPE_NBUILTINS (sizeof(type_builtins) / sizeof(type_builtins[0]))

hc_mpi_type_t hc_mpi_type_builtin_table[256];
static hc_mpi_titem_t type_builtin_items[256];
static hc_mpi_type_t type_pair_table[TYPE_NPAIRS];
static hc_mpi_titem_t type_pair_items[TYPE_NPAIRS][2];
static pthread_once_t type_once = PTHREAD_ONCE_INIT;
int hc_mpi_type_tables_ready;

/* Derived types; direct indices 0..4 are the pair types. */
static hc_handle_table_t type_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_DATATYPE, (int)TYPE_NPAIRS);
/* Guards refs and handle_refs of derived types. */
static pthread_mutex_t type_ref_lock = PTHREAD_MUTEX_INITIALIZER;

static void type_describe(hc_mpi_type_t *t, MPI_Datatype handle,
                          const char *name, MPI_Count size, MPI_Aint extent) {
  t->handle = handle;
  t->size = size;
  t->lb = 0;
  t->extent = extent;
  t->true_lb = 0;
  t->true_extent = extent;
  t->wire_size = (size_t)extent;
  t->contiguous = 1;
  t->flat = 1;
  t->predefined = 1;
  t->committed = 1;
  t->combiner = MPI_COMBINER_NAMED;
  t->align = extent > 0 ? extent : 1;
  snprintf(t->name, sizeof(t->name), "%s", name);
}

static void type_init_builtin(const struct type_builtin *b) {
  unsigned h = (unsigned)b->handle;
  hc_mpi_type_t *t = &hc_mpi_type_builtin_table[h & 0xffu];
  hc_mpi_titem_t *run = &type_builtin_items[h & 0xffu];
  MPI_Count size = (h >> 8) & 0xffu;
  type_describe(t, b->handle, b->name, size, (MPI_Aint)size);
  t->items = run;
  t->elements = b->halves ? 2 : 1;
  if (b->halves || b->cplx)
    t->align = size / 2;
  if (size > 0) {
    t->nitems = 1;
    int esz = b->halves ? (int)size / 2 : (int)size;
    *run = (hc_mpi_titem_t){.off = 0,
                            .count = 1,
                            .len = size,
                            .esz = esz,
                            .unit = b->cplx ? esz / 2 : esz};
  } else {
    t->elements = 0;
    t->align = 1;
    t->lb_marked = b->handle == MPI_LB;
    t->ub_marked = b->handle == MPI_UB;
  }
  hc_mpi_type_set_element_mask(t);
}

static void type_init_pair(size_t i) {
  const struct type_pair *p = &type_pairs[i];
  hc_mpi_type_t *t = &type_pair_table[i];
  hc_mpi_titem_t *run = type_pair_items[i];
  MPI_Aint isz = (MPI_Aint)sizeof(int);
  type_describe(t, p->handle, p->name, p->first + isz, p->extent);
  /* The padding after the int is not data, but it lies inside the
   * extent, so a contiguous array of pairs still moves as one span in
   * collectives; point-to-point packs them (see hc_mpi_type_dense). */
  t->true_extent = p->ioff + isz;
  t->elements = 2;
  t->align = p->align;
  t->items = run;
  run[0] = (hc_mpi_titem_t){.off = 0,
                            .count = 1,
                            .len = p->first,
                            .esz = (int)p->first,
                            .unit = (int)p->first};
  run[1] = (hc_mpi_titem_t){.off = p->ioff,
                            .count = 1,
                            .len = isz,
                            .before = p->first,
                            .esz = (int)isz,
                            .unit = (int)isz};
  t->nitems = 2;
  if (p->ioff == p->first && p->first == isz) {
    run[0].len = p->first + isz; /* FLOAT_INT: one run of 4-byte units */
    t->nitems = 1;
  }
  hc_mpi_type_set_element_mask(t);
}

static void type_init_tables(void) {
  for (size_t i = 0; i < TYPE_NBUILTINS; i++)
    type_init_builtin(&type_builtins[i]);
  for (size_t i = 0; i < TYPE_NPAIRS; i++)
    type_init_pair(i);
}

/* Any datatype object behind a handle, committed or not. */
/* The object of a builtin (kind) datatype handle, NULL for one that names
 * no type; the tables must be ready. */
static hc_mpi_type_t *type_object(MPI_Datatype type) {
  /* The flag spares every lookup the pthread_once call. */
  if (!__atomic_load_n(&hc_mpi_type_tables_ready, __ATOMIC_ACQUIRE)) {
    pthread_once(&type_once, type_init_tables);
    __atomic_store_n(&hc_mpi_type_tables_ready, 1, __ATOMIC_RELEASE);
  }
  if (hc_handle_object(type) != HC_OBJ_DATATYPE)
    return NULL;
  if (hc_handle_kind(type) == HC_HANDLE_KIND_BUILTIN)
    return hc_mpi_type_builtin_object(type);
  for (size_t i = 0; i < TYPE_NPAIRS; i++)
    if (type_pair_table[i].handle == type)
      return &type_pair_table[i];
  return hc_handle_get(&type_table, type);
}

const hc_mpi_type_t *hc_mpi_type_lookup(MPI_Datatype type) {
  return type_object(type);
}

static int type_dense_items(const hc_mpi_type_t *t) {
  if (t->nitems == 0)
    return t->size == 0;
  const hc_mpi_titem_t *it = &t->items[0];
  return t->nitems == 1 && !it->child && it->count == 1 && it->off == 0 &&
         it->len == t->extent;
}

int hc_mpi_type_dense_layout(const hc_mpi_type_t *t) {
  int dense = type_dense_items(t);
  if (t->committed) /* its layout is final: remember (dense_memo) */
    atomic_store_explicit(&((hc_mpi_type_t *)t)->dense_memo, dense ? 1 : 2,
                          memory_order_relaxed);
  return dense;
}

/* ---- lifetime ----------------------------------------------------------- */

hc_mpi_type_t *hc_mpi_type_new(void) {
  hc_mpi_type_t *t = calloc(1, sizeof(*t));
  if (!t)
    return NULL;
  t->refs = 1;
  t->align = 1;
  t->combiner = MPI_COMBINER_NAMED;
  return t;
}

hc_mpi_type_t *hc_mpi_type_retain(const hc_mpi_type_t *type) {
  hc_mpi_type_t *t = (hc_mpi_type_t *)type;
  if (t->predefined)
    return t;
  hc_lock(&type_ref_lock);
  t->refs++;
  hc_unlock(&type_ref_lock);
  return t;
}

static void type_destroy(hc_mpi_type_t *t) {
  for (int i = 0; i < t->ntypes; i++)
    hc_mpi_type_release(t->types[i]);
  free(t->types);
  free(t->ints);
  free(t->aints);
  free(t->large);
  hc_mpi_type_clear_items(t);
  free(t);
}

void hc_mpi_type_release(const hc_mpi_type_t *type) {
  hc_mpi_type_t *t = (hc_mpi_type_t *)type;
  if (!t || t->predefined)
    return;
  hc_lock(&type_ref_lock);
  int last = --t->refs == 0;
  hc_unlock(&type_ref_lock);
  if (last)
    type_destroy(t);
}

int hc_mpi_type_publish(hc_mpi_type_t *t, MPI_Datatype *out) {
  int h = 0;
  if (hc_handle_alloc(&type_table, t, &h) != 0)
    return -1;
  hc_lock(&type_ref_lock);
  t->handle = h;
  t->handle_refs = 1;
  hc_unlock(&type_ref_lock);
  *out = h;
  return 0;
}

/* One more user reference to t's handle (MPI_Type_get_contents hands out
 * constituents); a constituent whose handle was freed gets a new one, which
 * also takes an object reference again. */
static int type_handle_ref(hc_mpi_type_t *t, MPI_Datatype *out) {
  if (t->predefined) {
    *out = t->handle;
    return 0;
  }
  hc_lock(&type_ref_lock);
  int live = t->handle_refs > 0;
  if (live)
    t->handle_refs++;
  hc_unlock(&type_ref_lock);
  if (live) {
    *out = t->handle;
    return 0;
  }
  hc_mpi_type_retain(t);
  if (hc_mpi_type_publish(t, out) != 0) {
    hc_mpi_type_release(t);
    return -1;
  }
  return 0;
}

/* Drops one user reference to the handle; the last one frees the handle
 * and the handle's object reference. */
static void type_handle_unref(hc_mpi_type_t *t) {
  hc_lock(&type_ref_lock);
  int last = --t->handle_refs == 0;
  hc_unlock(&type_ref_lock);
  if (!last)
    return;
  hc_handle_free(&type_table, t->handle);
  t->handle = 0;
  hc_mpi_type_release(t);
}

int hc_mpi_type_set_contents(hc_mpi_type_t *t, int combiner, int ni,
                             const int *ints, int na, const MPI_Aint *aints,
                             int nt, const hc_mpi_type_t *const *types) {
  t->combiner = combiner;
  t->ints = ni ? malloc((size_t)ni * sizeof(int)) : NULL;
  t->aints = na ? malloc((size_t)na * sizeof(MPI_Aint)) : NULL;
  t->types = nt ? malloc((size_t)nt * sizeof(*t->types)) : NULL;
  if ((ni && !t->ints) || (na && !t->aints) || (nt && !t->types))
    return -1;
  if (ni)
    memcpy(t->ints, ints, (size_t)ni * sizeof(int));
  if (na)
    memcpy(t->aints, aints, (size_t)na * sizeof(MPI_Aint));
  for (int i = 0; i < nt; i++)
    t->types[i] = hc_mpi_type_retain(types[i]);
  t->nints = ni;
  t->naints = na;
  t->ntypes = nt;
  return 0;
}

int hc_mpi_type_set_large(hc_mpi_type_t *t, int nc, const MPI_Count *large) {
  t->large = nc ? malloc((size_t)nc * sizeof(MPI_Count)) : NULL;
  if (nc && !t->large)
    return -1;
  if (nc)
    memcpy(t->large, large, (size_t)nc * sizeof(MPI_Count));
  t->nlarge = nc;
  return 0;
}

MPI_Count hc_mpi_type_struct_blocklen(const hc_mpi_type_t *t, int j) {
  return t->large ? t->large[j + 1] : t->ints[j + 1];
}

/* ---- queries ------------------------------------------------------------ */

/* Type queries are local and legal before MPI_Init, so no ready check. */
static int type_lookup(const char *fn, MPI_Datatype type, const void *out,
                       const hc_mpi_type_t **t) {
  *t = type_object(type);
  if (!*t)
    return hc_mpi_raise(NULL, fn, MPI_ERR_TYPE, "invalid datatype 0x%x",
                        (unsigned)type);
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
HC_WEAK_ALIAS(MPI_Type_size, PMPI_Type_size);

/* The exact size, for the _x and _c forms. */
static int type_size_count(const char *fn, MPI_Datatype datatype,
                           MPI_Count *size) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup(fn, datatype, size, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  *size = t->size;
  return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) {
  return type_size_count("MPI_Type_size_x", datatype, size);
}
HC_WEAK_ALIAS(MPI_Type_size_x, PMPI_Type_size_x);

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size) {
  return type_size_count("MPI_Type_size_c", datatype, size);
}
HC_WEAK_ALIAS(MPI_Type_size_c, PMPI_Type_size_c);

/* The lb and extent of a type (is_true: the true ones) for the MPI_Aint
 * and MPI_Count forms; out_lb and out_ext, the caller's output arguments,
 * are only checked. */
static int type_extent_of(const char *fn, MPI_Datatype datatype, int is_true,
                          const void *out_lb, const void *out_ext, MPI_Aint *lb,
                          MPI_Aint *ext) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup(fn, datatype, out_lb, &t);
  if (rc == MPI_SUCCESS)
    rc =
        hc_mpi_check_ptr(fn, NULL, out_ext, is_true ? "true_extent" : "extent");
  if (rc != MPI_SUCCESS)
    return rc;
  *lb = is_true ? t->true_lb : t->lb;
  *ext = is_true ? t->true_extent : t->extent;
  return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb,
                         MPI_Aint *extent) {
  return type_extent_of("MPI_Type_get_extent", datatype, 0, lb, extent, lb,
                        extent);
}
HC_WEAK_ALIAS(MPI_Type_get_extent, PMPI_Type_get_extent);

/* The MPI_Count forms (_x and _c) of the extent queries. */
static int type_extent_count(const char *fn, MPI_Datatype datatype, int is_true,
                             MPI_Count *lb, MPI_Count *extent) {
  MPI_Aint l = 0, e = 0;
  int rc = type_extent_of(fn, datatype, is_true, lb, extent, &l, &e);
  if (rc == MPI_SUCCESS) {
    *lb = l;
    *extent = e;
  }
  return rc;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
                           MPI_Count *extent) {
  return type_extent_count("MPI_Type_get_extent_x", datatype, 0, lb, extent);
}
HC_WEAK_ALIAS(MPI_Type_get_extent_x, PMPI_Type_get_extent_x);

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb,
                           MPI_Count *extent) {
  return type_extent_count("MPI_Type_get_extent_c", datatype, 0, lb, extent);
}
HC_WEAK_ALIAS(MPI_Type_get_extent_c, PMPI_Type_get_extent_c);

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                              MPI_Aint *true_extent) {
  return type_extent_of("MPI_Type_get_true_extent", datatype, 1, true_lb,
                        true_extent, true_lb, true_extent);
}
HC_WEAK_ALIAS(MPI_Type_get_true_extent, PMPI_Type_get_true_extent);

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                MPI_Count *true_extent) {
  return type_extent_count("MPI_Type_get_true_extent_x", datatype, 1, true_lb,
                           true_extent);
}
HC_WEAK_ALIAS(MPI_Type_get_true_extent_x, PMPI_Type_get_true_extent_x);

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,
                                MPI_Count *true_extent) {
  return type_extent_count("MPI_Type_get_true_extent_c", datatype, 1, true_lb,
                           true_extent);
}
HC_WEAK_ALIAS(MPI_Type_get_true_extent_c, PMPI_Type_get_true_extent_c);

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup("MPI_Type_extent", datatype, extent, &t);
  if (rc == MPI_SUCCESS)
    *extent = t->extent;
  return rc;
}
HC_WEAK_ALIAS(MPI_Type_extent, PMPI_Type_extent);

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup("MPI_Type_lb", datatype, displacement, &t);
  if (rc == MPI_SUCCESS)
    *displacement = t->lb;
  return rc;
}
HC_WEAK_ALIAS(MPI_Type_lb, PMPI_Type_lb);

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup("MPI_Type_ub", datatype, displacement, &t);
  if (rc == MPI_SUCCESS)
    *displacement = t->lb + t->extent;
  return rc;
}
HC_WEAK_ALIAS(MPI_Type_ub, PMPI_Type_ub);

/* ---- commit, free, dup -------------------------------------------------- */

int PMPI_Type_commit(MPI_Datatype *datatype) {
  static const char fn[] = "MPI_Type_commit";
  int rc = hc_mpi_check_ptr(fn, NULL, datatype, "datatype");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_type_t *t = type_object(*datatype);
  if (!t)
    return hc_mpi_raise(NULL, fn, MPI_ERR_TYPE, "invalid datatype 0x%x",
                        (unsigned)*datatype);
  t->committed = 1;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Type_commit, PMPI_Type_commit);

int PMPI_Type_free(MPI_Datatype *datatype) {
  static const char fn[] = "MPI_Type_free";
  int rc = hc_mpi_check_ptr(fn, NULL, datatype, "datatype");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_type_t *t = type_object(*datatype);
  if (!t)
    return hc_mpi_raise(NULL, fn, MPI_ERR_TYPE, "invalid datatype 0x%x",
                        (unsigned)*datatype);
  if (t->predefined)
    return hc_mpi_raise(NULL, fn, MPI_ERR_TYPE,
                        "cannot free predefined datatype %s", t->name);
  /* The handle's last user reference goes: its attributes go first, and a
   * delete callback that fails leaves the type alive. */
  hc_lock(&type_ref_lock);
  int last = t->handle_refs == 1;
  hc_unlock(&type_ref_lock);
  if (last && (rc = hc_mpi_type_attr_delete_all(fn, t)) != MPI_SUCCESS)
    return rc;
  type_handle_unref(t);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Type_free, PMPI_Type_free);

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) {
  static const char fn[] = "MPI_Type_dup";
  const hc_mpi_type_t *o = NULL;
  int rc = type_lookup(fn, oldtype, newtype, &o);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_type_t *t = hc_mpi_type_new();
  if (!t || hc_mpi_type_append(t, o, 0, 1, o->extent) != HC_MPI_TYPE_OK ||
      hc_mpi_type_set_contents(t, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &o) !=
          0)
    goto oom;
  t->lb = o->lb;
  t->extent = o->extent;
  t->lb_marked = o->lb_marked;
  t->ub_marked = o->ub_marked;
  t->align = o->align;
  /* o's own bounds fitted, so its copy's do. */
  (void)hc_mpi_type_finish(t);
  t->committed = o->committed;
  /* A dup of a predefined pair type keeps moving like it. */
  t->contiguous = o->contiguous;
  t->wire_size = o->wire_size;
  if (hc_mpi_type_publish(t, newtype) != 0)
    goto oom;
  rc = hc_mpi_type_attr_copy_all(fn, (hc_mpi_type_t *)o, t);
  if (rc != MPI_SUCCESS) {
    hc_mpi_type_attr_delete_all(fn, t);
    type_handle_unref(t);
    *newtype = MPI_DATATYPE_NULL;
  }
  return rc;
oom:
  hc_mpi_type_release(t);
  return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
}
HC_WEAK_ALIAS(MPI_Type_dup, PMPI_Type_dup);

/* ---- envelope and contents ---------------------------------------------- */

/* The envelope of datatype; the int forms below narrow it. */
static int type_envelope(const char *fn, MPI_Datatype datatype,
                         MPI_Count *num_integers, MPI_Count *num_addresses,
                         MPI_Count *num_large_counts, MPI_Count *num_datatypes,
                         int *combiner) {
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup(fn, datatype, num_integers, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, num_addresses, "num_addresses");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, num_large_counts, "num_large_counts");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, num_datatypes, "num_datatypes");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, combiner, "combiner");
  if (rc != MPI_SUCCESS)
    return rc;
  *num_integers = t->nints;
  *num_addresses = t->naints;
  *num_large_counts = t->nlarge;
  *num_datatypes = t->ntypes;
  *combiner = t->combiner;
  return MPI_SUCCESS;
}

/* A type a _c constructor built has large counts, which the int forms
 * cannot describe. */
static int type_no_large(const char *fn, MPI_Count nlarge) {
  if (nlarge == 0)
    return MPI_SUCCESS;
  return hc_mpi_raise(NULL, fn, MPI_ERR_TYPE,
                      "the datatype was built by a large-count constructor: "
                      "its contents need the _c form");
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
                           int *num_addresses, int *num_datatypes,
                           int *combiner) {
  static const char fn[] = "MPI_Type_get_envelope";
  MPI_Count ni = 0, na = 0, nc = 0, nd = 0;
  int rc = hc_mpi_check_ptr(fn, NULL, num_integers, "num_integers");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, num_addresses, "num_addresses");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, num_datatypes, "num_datatypes");
  if (rc == MPI_SUCCESS)
    rc = type_envelope(fn, datatype, &ni, &na, &nc, &nd, combiner);
  if (rc == MPI_SUCCESS)
    rc = type_no_large(fn, nc);
  if (rc != MPI_SUCCESS)
    return rc;
  *num_integers = (int)ni;
  *num_addresses = (int)na;
  *num_datatypes = (int)nd;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Type_get_envelope, PMPI_Type_get_envelope);

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses,
                             MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner) {
  return type_envelope("MPI_Type_get_envelope_c", datatype, num_integers,
                       num_addresses, num_large_counts, num_datatypes,
                       combiner);
}
HC_WEAK_ALIAS(MPI_Type_get_envelope_c, PMPI_Type_get_envelope_c);

/* The room the caller gave for each kind of argument. */
typedef struct type_room {
  MPI_Count ints, aints, large, types;
} type_room_t;

static int type_contents(const char *fn, MPI_Datatype datatype,
                         const type_room_t *room, int array_of_integers[],
                         MPI_Aint array_of_addresses[],
                         MPI_Count array_of_large_counts[],
                         MPI_Datatype array_of_datatypes[]) {
  const hc_mpi_type_t *t = type_object(datatype);
  if (!t)
    return hc_mpi_raise(NULL, fn, MPI_ERR_TYPE, "invalid datatype 0x%x",
                        (unsigned)datatype);
  if (t->combiner == MPI_COMBINER_NAMED)
    return hc_mpi_raise(NULL, fn, MPI_ERR_TYPE,
                        "%s is predefined: it has no contents", t->name);
  if (room->ints < t->nints || room->aints < t->naints ||
      room->large < t->nlarge || room->types < t->ntypes)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "arrays too small for %d integers, %d addresses, %d "
                        "large counts, %d datatypes",
                        t->nints, t->naints, t->nlarge, t->ntypes);
  if ((t->nints && !array_of_integers) || (t->naints && !array_of_addresses) ||
      (t->nlarge && !array_of_large_counts) ||
      (t->ntypes && !array_of_datatypes))
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "NULL output array");
  if (t->nints)
    memcpy(array_of_integers, t->ints, (size_t)t->nints * sizeof(int));
  if (t->naints)
    memcpy(array_of_addresses, t->aints, (size_t)t->naints * sizeof(MPI_Aint));
  if (t->nlarge)
    memcpy(array_of_large_counts, t->large,
           (size_t)t->nlarge * sizeof(MPI_Count));
  for (int i = 0; i < t->ntypes; i++)
    if (type_handle_ref(t->types[i], &array_of_datatypes[i]) != 0)
      return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
                           int max_addresses, int max_datatypes,
                           int array_of_integers[],
                           MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[]) {
  static const char fn[] = "MPI_Type_get_contents";
  const hc_mpi_type_t *t = type_object(datatype);
  int rc = type_no_large(fn, t ? t->nlarge : 0);
  if (rc != MPI_SUCCESS)
    return rc;
  type_room_t room = {max_integers, max_addresses, 0, max_datatypes};
  return type_contents(fn, datatype, &room, array_of_integers,
                       array_of_addresses, NULL, array_of_datatypes);
}
HC_WEAK_ALIAS(MPI_Type_get_contents, PMPI_Type_get_contents);

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                             MPI_Count max_addresses,
                             MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[]) {
  type_room_t room = {max_integers, max_addresses, max_large_counts,
                      max_datatypes};
  return type_contents("MPI_Type_get_contents_c", datatype, &room,
                       array_of_integers, array_of_addresses,
                       array_of_large_counts, array_of_datatypes);
}
HC_WEAK_ALIAS(MPI_Type_get_contents_c, PMPI_Type_get_contents_c);

/* ---- names -------------------------------------------------------------- */

/* MPI-4.1 lets MPI_DATATYPE_NULL be asked its name (Annex B.1.2, item 18),
 * not given one. */
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) {
  static const char fn[] = "MPI_Type_get_name";
  const hc_mpi_type_t *t = NULL;
  int rc = datatype == MPI_DATATYPE_NULL
               ? hc_mpi_check_ptr(fn, NULL, type_name, "type_name")
               : type_lookup(fn, datatype, type_name, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, resultlen, "resultlen");
  if (rc != MPI_SUCCESS)
    return rc;
  if (t == NULL) {
    snprintf(type_name, MPI_MAX_OBJECT_NAME, "MPI_DATATYPE_NULL");
  } else {
    hc_lock(&type_ref_lock);
    snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", t->name);
    hc_unlock(&type_ref_lock);
  }
  *resultlen = (int)strlen(type_name);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Type_get_name, PMPI_Type_get_name);

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name) {
  static const char fn[] = "MPI_Type_set_name";
  const hc_mpi_type_t *t = NULL;
  int rc = type_lookup(fn, datatype, type_name, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_type_t *w = (hc_mpi_type_t *)t;
  hc_lock(&type_ref_lock);
  snprintf(w->name, sizeof(w->name), "%s", type_name);
  hc_unlock(&type_ref_lock);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Type_set_name, PMPI_Type_set_name);

/* ---- Type_match_size ---------------------------------------------------- */

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype) {
  static const char fn[] = "MPI_Type_match_size";
  static const MPI_Datatype reals[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16};
  static const MPI_Datatype ints[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4,
                                      MPI_INTEGER8};
  static const MPI_Datatype cplx[] = {MPI_COMPLEX8, MPI_COMPLEX16,
                                      MPI_COMPLEX32};
  int rc = hc_mpi_check_ptr(fn, NULL, datatype, "datatype");
  if (rc != MPI_SUCCESS)
    return rc;
  const MPI_Datatype *list = NULL;
  size_t n = 0;
  if (typeclass == MPI_TYPECLASS_REAL) {
    list = reals;
    n = 3;
  } else if (typeclass == MPI_TYPECLASS_INTEGER) {
    list = ints;
    n = 4;
  } else if (typeclass == MPI_TYPECLASS_COMPLEX) {
    list = cplx;
    n = 3;
  } else {
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid type class %d",
                        typeclass);
  }
  for (size_t i = 0; i < n; i++)
    if (hc_mpi_type_get(list[i])->size == size) {
      *datatype = list[i];
      return MPI_SUCCESS;
    }
  return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "no type of class %d has size %d",
                      typeclass, size);
}
HC_WEAK_ALIAS(MPI_Type_match_size, PMPI_Type_match_size);

/* ---- Type_get_value_index (MPI-4.1) ------------------------------------- */

/* The predefined pair types MPI_MINLOC and MPI_MAXLOC reduce: a value of
 * value_type followed by an index of index_type.  C pairs take an MPI_INT
 * index, the Fortran ones an index of the value's own type. */
static const struct value_index_pair {
  MPI_Datatype value, index, pair;
} value_index_pairs[] = {
    {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
    {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
    {MPI_LONG, MPI_INT, MPI_LONG_INT},
    {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
    {MPI_INT, MPI_INT, MPI_2INT},
    {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
    {MPI_REAL, MPI_REAL, MPI_2REAL},
    {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
    {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
};

/* Any other valid pair of types gives MPI_DATATYPE_NULL, as the standard
 * asks when no predefined type fits. */
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type) {
  static const char fn[] = "MPI_Type_get_value_index";
  const hc_mpi_type_t *t = NULL;
  int rc = hc_mpi_check_type(fn, NULL, value_type, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, NULL, index_type, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, pair_type, "pair_type");
  if (rc != MPI_SUCCESS)
    return rc;
  *pair_type = MPI_DATATYPE_NULL;
  size_t n = sizeof value_index_pairs / sizeof value_index_pairs[0];
  for (size_t i = 0; i < n; i++)
    if (value_index_pairs[i].value == value_type &&
        value_index_pairs[i].index == index_type)
      *pair_type = value_index_pairs[i].pair;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Type_get_value_index, PMPI_Type_get_value_index);

/*
 * MPI_Type_create_f90_integer, _real and _complex (MPI-4.0 section
 * 19.1.9): the predefined type of the Fortran KIND that
 * SELECTED_INT_KIND(r) or SELECTED_REAL_KIND(p, r) would pick, as gfortran
 * picks it.  Each distinct argument list gets one type, made at its first
 * call and returned again by every later one; it has a handle of its own,
 * so MPI_Type_get_envelope reports MPI_COMBINER_F90_* and
 * MPI_Type_get_contents the arguments, but it moves, reduces and refuses
 * MPI_Type_free as the named type of that kind (MPI_INTEGER4, MPI_REAL8,
 * ...).  The types live until the process ends.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpi/mpi_impl.h"
#include "util/lock.h"

typedef struct f90_entry {
  int combiner;
  int p, r;
  MPI_Datatype handle;
} f90_entry_t;

static f90_entry_t *f90_made;
static int f90_nmade;
static pthread_mutex_t f90_lock = PTHREAD_MUTEX_INITIALIZER;

const hc_mpi_type_t *hc_mpi_type_named(const hc_mpi_type_t *type) {
  return type->f90_named ? type->f90_named : type;
}

/* The predefined stand-in for named, with its envelope (lock held). */
static hc_mpi_type_t *f90_make(const hc_mpi_type_t *named, int combiner, int ni,
                               const int *ints, MPI_Datatype *out) {
  hc_mpi_type_t *t = hc_mpi_type_new();
  if (!t)
    return NULL;
  if (hc_mpi_type_append(t, named, 0, 1, named->extent) != HC_MPI_TYPE_OK ||
      hc_mpi_type_set_contents(t, combiner, ni, ints, 0, NULL, 0, NULL) != 0) {
    hc_mpi_type_release(t);
    return NULL;
  }
  t->lb = named->lb;
  t->extent = named->extent;
  t->align = named->align;
  (void)hc_mpi_type_finish(t); /* named's bounds fitted */
  t->committed = 1;
  t->contiguous = named->contiguous;
  t->wire_size = named->wire_size;
  t->f90_named = named;
  snprintf(t->name, sizeof t->name, "%s", named->name);
  if (hc_mpi_type_publish(t, out) != 0) {
    hc_mpi_type_release(t);
    return NULL;
  }
  t->predefined = 1; /* from now on never freed */
  return t;
}

/* The one type of (combiner, p, r), made at its first request. */
static int f90_lookup(const char *fn, MPI_Datatype named, int combiner, int p,
                      int r, MPI_Datatype *newtype) {
  int rc = MPI_SUCCESS;
  hc_lock(&f90_lock);
  for (int i = 0; i < f90_nmade; i++)
    if (f90_made[i].combiner == combiner && f90_made[i].p == p &&
        f90_made[i].r == r) {
      *newtype = f90_made[i].handle;
      hc_unlock(&f90_lock);
      return MPI_SUCCESS;
    }
  f90_entry_t *grown =
      realloc(f90_made, (size_t)(f90_nmade + 1) * sizeof *grown);
  int ints[2] = {p, r};
  int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
  MPI_Datatype h = MPI_DATATYPE_NULL;
  if (grown != NULL) {
    f90_made = grown;
    if (f90_make(hc_mpi_type_get(named), combiner, ni,
                 ni == 1 ? &ints[1] : ints, &h) == NULL)
      rc = MPI_ERR_NO_MEM;
  } else {
    rc = MPI_ERR_NO_MEM;
  }
  if (rc == MPI_SUCCESS) {
    f90_made[f90_nmade++] = (f90_entry_t){combiner, p, r, h};
    *newtype = h;
  }
  hc_unlock(&f90_lock);
  return hc_mpi_raise(NULL, fn, rc, "out of memory");
}

/* The kind SELECTED_REAL_KIND(p, r) picks: 0 (4 bytes), 1 (8), 2 (16), or
 * -1 when none has that precision and range.  MPI_UNDEFINED: no demand. */
static int f90_real_kind(int p, int r) {
  static const int max_p[] = {6, 15, 33};
  static const int max_r[] = {37, 307, 4931};
  if (p == MPI_UNDEFINED)
    p = 0;
  if (r == MPI_UNDEFINED)
    r = 0;
  for (int k = 0; k < 3; k++)
    if (p <= max_p[k] && r <= max_r[k])
      return k;
  return -1;
}

static int f90_check(const char *fn, int p, int r, MPI_Datatype *newtype) {
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, newtype, "newtype");
  if (rc == MPI_SUCCESS && p == MPI_UNDEFINED && r == MPI_UNDEFINED)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                      "p and r cannot both be MPI_UNDEFINED");
  return rc;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype) {
  static const char fn[] = "MPI_Type_create_f90_integer";
  static const MPI_Datatype kinds[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4,
                                       MPI_INTEGER8};
  static const int max_r[] = {2, 4, 9, 18};
  int rc = f90_check(fn, 0, r, newtype);
  if (rc == MPI_SUCCESS && r == MPI_UNDEFINED)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "r cannot be MPI_UNDEFINED");
  if (rc != MPI_SUCCESS)
    return rc;
  for (int k = 0; k < 4; k++)
    if (r <= max_r[k])
      return f90_lookup(fn, kinds[k], MPI_COMBINER_F90_INTEGER, 0, r, newtype);
  return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                      "no integer kind has a range of 10^%d", r);
}
HC_WEAK_ALIAS(MPI_Type_create_f90_integer, PMPI_Type_create_f90_integer);

/* _real and _complex: kinds holds the type of each real kind. */
static int f90_float(const char *fn, int combiner, const MPI_Datatype *kinds,
                     int p, int r, MPI_Datatype *newtype) {
  int rc = f90_check(fn, p, r, newtype);
  if (rc != MPI_SUCCESS)
    return rc;
  int k = f90_real_kind(p, r);
  if (k < 0 || hc_mpi_type_get(kinds[k]) == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "no real kind has precision %d and range 10^%d", p, r);
  return f90_lookup(fn, kinds[k], combiner, p, r, newtype);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype) {
  static const MPI_Datatype kinds[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16};
  return f90_float("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, kinds, p,
                   r, newtype);
}
HC_WEAK_ALIAS(MPI_Type_create_f90_real, PMPI_Type_create_f90_real);

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype) {
  static const MPI_Datatype kinds[] = {MPI_COMPLEX8, MPI_COMPLEX16,
                                       MPI_COMPLEX32};
  return f90_float("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX,
                   kinds, p, r, newtype);
}
HC_WEAK_ALIAS(MPI_Type_create_f90_complex, PMPI_Type_create_f90_complex);

/*
 * Argument conversion for the Fortran bindings, and the COMMON blocks that
 * hold the Fortran sentinels.
 */
#include <stdlib.h>
#include <string.h>

#include "fortran/fort_impl.h"

/* Defined here so programs built by hcmpifort and by MPICH's mpif90 (whose
 * executables carry their own copies, which then take precedence) share
 * one address for each sentinel with this library. */
hc_f_priv1_t mpipriv1_ __attribute__((aligned(32)));
hc_f_priv2_t mpipriv2_ __attribute__((aligned(32)));
hc_f_privc_t mpiprivc_ __attribute__((aligned(32)));
MPI_Fint mpifcmb5_ __attribute__((aligned(32)));
MPI_Fint mpifcmb9_ __attribute__((aligned(32)));
/* MPI_BUFFER_AUTOMATIC of mpif.h, `use mpi` and mpi_f08 (MPI-4.1). */
MPI_Fint mpifcmba_ __attribute__((aligned(32)));
/* mpi_f08's MPI_ARGV_NULL, MPI_ARGVS_NULL and MPI_ERRCODES_IGNORE: a module
 * variable binds to a whole C object, not to a field of a COMMON block. */
char hc_f08_argv_null[1];
char hc_f08_argvs_null[1];
MPI_Fint hc_f08_errcodes_ignore[1];

void *hc_f_buf(void *buf) {
  if (buf == (void *)&mpipriv1_.bottom || buf == (void *)&MPIR_F08_MPI_BOTTOM)
    return MPI_BOTTOM;
  if (buf == (void *)&mpipriv1_.in_place ||
      buf == (void *)&MPIR_F08_MPI_IN_PLACE)
    return MPI_IN_PLACE;
  if (buf == (void *)&mpifcmba_ ||
      buf == (void *)__mpi_f08_link_constants_MOD_mpi_buffer_automatic)
    return MPI_BUFFER_AUTOMATIC;
  return buf;
}

void *hc_f_f08ts_buf(const hc_f_gfc_desc_t *d) { return d->base_addr; }

int hc_f_f08ts_contiguous(const hc_f_gfc_desc_t *d) {
  if (d->dtype.rank < 0 || d->dtype.rank > 15)
    return 0;
  ptrdiff_t run = 1; /* elements a contiguous array has before dim i */
  int strided = 0;
  for (int i = 0; i < d->dtype.rank; i++) {
    ptrdiff_t extent = d->dim[i].upper_bound - d->dim[i].lower_bound + 1;
    if (extent <= 0)
      return 1; /* no element at all */
    if (extent > 1 && d->dim[i].stride != run)
      strided = 1;
    run *= extent;
  }
  /* A component of an array of derived type is laid out span bytes apart. */
  if (run > 1 && d->span != (ptrdiff_t)d->dtype.elem_len)
    strided = 1;
  return !strided;
}

int *hc_f_errcodes(MPI_Fint *errcodes) {
  if (errcodes == mpipriv2_.errcodes_ignore ||
      errcodes == hc_f08_errcodes_ignore ||
      errcodes == __mpi_f08_link_constants_MOD_mpi_errcodes_ignore)
    return MPI_ERRCODES_IGNORE;
  return (int *)errcodes;
}

int *hc_f_weights(MPI_Fint *weights) {
  if (weights == &mpifcmb5_ ||
      weights == __mpi_f08_link_constants_MOD_mpi_unweighted)
    return MPI_UNWEIGHTED;
  if (weights == &mpifcmb9_ ||
      weights == __mpi_f08_link_constants_MOD_mpi_weights_empty)
    return MPI_WEIGHTS_EMPTY;
  return (int *)weights;
}

MPI_Status *hc_f_status(MPI_Fint *status) {
  if (status == mpipriv1_.status_ignore ||
      status == (MPI_Fint *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ)
    return MPI_STATUS_IGNORE;
  return (MPI_Status *)status;
}

MPI_Status *hc_f_statuses(MPI_Fint *statuses) {
  if (statuses == mpipriv2_.statuses_ignore ||
      statuses == (MPI_Fint *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ)
    return MPI_STATUSES_IGNORE;
  return (MPI_Status *)statuses;
}

MPI_Fint hc_f_logical(int c_flag) { return c_flag ? 1 : 0; }

MPI_Fint hc_f_index(int c_index) {
  return c_index == MPI_UNDEFINED ? c_index : c_index + 1;
}

void hc_f_indices(MPI_Fint *indices, int n) {
  for (int i = 0; i < n; i++) /* n == MPI_UNDEFINED (< 0) leaves all */
    indices[i]++;
}

void hc_f_err(MPI_Fint *ierr, int rc) {
  if (ierr)
    *ierr = rc;
}

void hc_f_raise(MPI_Fint *ierr, const char *fn, int kind, MPI_Fint handle,
                int errclass, const char *what) {
  hc_f_err(ierr, hc_mpi_raise_binding(kind, handle, fn, errclass, what));
}

char *hc_f_str_in(const char *s, size_t len) {
  while (len > 0 && s[len - 1] == ' ')
    len--;
  while (len > 0 && s[0] == ' ') {
    s++;
    len--;
  }
  char *c = malloc(len + 1);
  if (!c)
    return NULL;
  memcpy(c, s, len);
  c[len] = '\0';
  return c;
}

char *hc_f_str_buf(size_t size) { return calloc(size + 1, 1); }

void hc_f_str_out(char *f, size_t len, const char *c) {
  size_t n = strlen(c);
  if (n > len)
    n = len;
  memcpy(f, c, n);
  memset(f + n, ' ', len - n);
}

/*
 * Attributes across languages (MPI-4.0 section 19.3.7).  A value set from
 * Fortran is an integer (INTEGER with MPI_ATTR_PUT, address-sized with
 * MPI_*_SET_ATTR); a C caller of MPI_*_get_attr gets a pointer to that
 * integer, a Fortran caller the integer itself.  A value set from C is a
 * pointer, which Fortran gets as an address-sized integer.  The Fortran
 * library sets and reads through these, so that attr.c knows each value's
 * language; exported from libhcmpi for it.
 */
#ifndef HC_MPI_BINDING_ATTR_H
#define HC_MPI_BINDING_ATTR_H

#include <mpi.h>

/* The object an attribute call names. */
enum {
  HC_MPI_ATTR_ON_COMM = 0,
  HC_MPI_ATTR_ON_TYPE = 1,
  HC_MPI_ATTR_ON_WIN = 2
};

/* Sets keyval's attribute on the object (on, Fortran handle) to value, as
 * MPI_Attr_put (mpi1: an INTEGER) or MPI_*_set_attr from Fortran; fn is
 * the C name of the call, for errors. */
int hc_mpi_attr_set_fortran(const char *fn, int on, MPI_Fint handle,
                            int keyval, MPI_Aint value, int mpi1);
/* Reads a user keyval's attribute as Fortran sees it: the integer a
 * Fortran caller set, or the address a C caller set.  Predefined keys are
 * the caller's to read through the C call. */
int hc_mpi_attr_get_fortran(const char *fn, int on, MPI_Fint handle,
                            int keyval, MPI_Aint *value, int *flag);

#endif /* HC_MPI_BINDING_ATTR_H */

/*
 * Errors a language binding finds before it can make the C call (a Fortran
 * wrapper out of memory for a string copy, an array section it cannot
 * pass): raised on the object the call names, through that object's error
 * handler, as the C call's own checks are, so that MPI_ERRORS_RETURN, user
 * handlers and the fatal line ("MPI_Comm_get_name: ... (MPI_ERR_NO_MEM)")
 * behave the same whichever binding the program uses.  Exported from
 * libhcmpi for the Fortran library, which sits on the C calls.
 */
#ifndef HC_MPI_BINDING_ERROR_H
#define HC_MPI_BINDING_ERROR_H

#include <mpi.h>

/* What kind of handle the call names first. */
enum {
  HC_MPI_BIND_NONE = 0, /* none: MPI_COMM_WORLD's handler, as the C face */
  HC_MPI_BIND_COMM,
  HC_MPI_BIND_WIN,
  HC_MPI_BIND_FILE,
  HC_MPI_BIND_SESSION
};

/* Raises errclass from call fn (its C name) on the object (kind, Fortran
 * handle); what says which argument and why.  Returns errclass when the
 * handler returns. */
int hc_mpi_raise_binding(int kind, MPI_Fint handle, const char *fn,
                         int errclass, const char *what);

#endif /* HC_MPI_BINDING_ERROR_H */

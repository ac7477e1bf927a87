/* Errors found by a language binding, raised as the C face raises them
 * (see binding_error.h). */
#include "mpi/binding_error.h"

#include "io/io.h"
#include "mpi/errors.h"
#include "mpi/mpi_impl.h"
#include "mpi/win.h"

int hc_mpi_raise_binding(int kind, MPI_Fint handle, const char *fn,
                         int errclass, const char *what) {
  if (errclass == MPI_SUCCESS)
    return MPI_SUCCESS;
  if (kind == HC_MPI_BIND_FILE)
    return hc_io_raise(MPI_File_f2c(handle), fn, errclass, "%s", what);
  if (kind == HC_MPI_BIND_SESSION)
    return hc_mpi_session_raise((MPI_Session)handle, fn, errclass, what);
  hc_mpi_comm_t *on = NULL; /* MPI_COMM_WORLD's handler */
  if (kind == HC_MPI_BIND_COMM)
    on = hc_mpi_comm_get((MPI_Comm)handle);
  else if (kind == HC_MPI_BIND_WIN)
    on = hc_mpi_win_errcomm((MPI_Win)handle);
  return hc_mpi_raise(on, fn, errclass, "%s", what);
}

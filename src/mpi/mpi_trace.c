#include "mpi/mpi_trace.h"

size_t hc_mpi_trace_bytes(int count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL ||
      PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
    return 0;
  return (size_t)count * (size_t)size;
}

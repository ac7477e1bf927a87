/* The MPI face's side of HCMPI_TRACE (src/hcomm/trace.h). */
#ifndef HC_MPI_TRACE_H
#define HC_MPI_TRACE_H

#include <stddef.h>

#include "hcomm/trace.h"
#include "mpi.h"

/* count elements of type in bytes; 0 for an invalid type (the call itself
 * reports that). */
size_t hc_mpi_trace_bytes(int count, MPI_Datatype type);

#endif /* HC_MPI_TRACE_H */

/* The MPI face's side of HCMPI_TRACE (src/hcomm/trace.h).  A traced entry
 * point reads
 *   uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
 *   int rc = <the call>;
 *   return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_X, t0, peer, tag, bytes)
 *             : rc;
 * so tracing off costs two tests of a plain int and no call.  The calls of
 * the small-message path (MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv,
 * MPI_Wait, MPI_Waitall) cost one: they test hc_trace_on once and, when it
 * is set, go to an out-of-line traced copy of the call (pt2pt_send.c
 * pt_isend_traced, request.c req_waitall_traced). */
#ifndef HC_MPI_TRACE_H
#define HC_MPI_TRACE_H

#include <stddef.h>

#include "hcomm/trace.h"
#include "mpi/mpi_impl.h"

/* count elements of type in bytes; 0 for an invalid type or count (the
 * call itself reports those; this never raises an error). */
size_t hc_mpi_trace_bytes(MPI_Count count, MPI_Datatype type);
/* The sum over comm's ranks (the remote group of an intercommunicator) of
 * counts[i] elements of types[i], or of type when types is NULL: the bytes
 * of a v- or w-collective.  0 when comm or a type is invalid. */
size_t hc_mpi_trace_bytes_v(hc_mpi_vec_t counts, MPI_Datatype type,
                            const MPI_Datatype types[], MPI_Comm comm);
/* The same over the local group's ranks (reduce_scatter's recvcounts). */
size_t hc_mpi_trace_bytes_local(hc_mpi_vec_t counts, MPI_Datatype type,
                                MPI_Comm comm);
/* Records a call that began at t0 and ends now; returns rc unchanged. */
int hc_mpi_trace_end(int rc, hc_trace_call_t call, uint64_t t0, int peer,
                     int tag, size_t bytes);

#endif /* HC_MPI_TRACE_H */

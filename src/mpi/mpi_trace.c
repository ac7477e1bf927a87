#include "mpi/mpi_trace.h"

#include "mpi/mpi_impl.h"

/* Face-internal lookups that never raise: a traced call with a bad
 * argument has already reported it, and tracing must not report it twice
 * (or abort under MPI_ERRORS_ARE_FATAL). */
size_t hc_mpi_trace_bytes(MPI_Count count, MPI_Datatype type) {
  const hc_mpi_type_t *t = count > 0 ? hc_mpi_type_get(type) : NULL;
  return t != NULL ? (size_t)count * t->size : 0;
}

/* The bytes of counts, one per rank of the remote group (peers) or of the
 * local group of comm. */
static size_t trace_sum(hc_mpi_vec_t counts, MPI_Datatype type,
                        const MPI_Datatype types[], MPI_Comm comm, int peers) {
  const hc_mpi_comm_t *c = hc_mpi_comm_get(comm);
  if (c == NULL || c->engine == NULL || hc_mpi_vec_ptr(counts) == NULL)
    return 0;
  int n = peers ? hcomm_comm_peer_size(c->engine) : hcomm_comm_size(c->engine);
  size_t sum = 0;
  for (int i = 0; i < n; i++)
    sum += hc_mpi_trace_bytes(hc_mpi_vec_at(counts, i), types != NULL ? types[i] : type);
  return sum;
}

size_t hc_mpi_trace_bytes_v(hc_mpi_vec_t counts, MPI_Datatype type,
                            const MPI_Datatype types[], MPI_Comm comm) {
  return trace_sum(counts, type, types, comm, 1);
}

size_t hc_mpi_trace_bytes_local(hc_mpi_vec_t counts, MPI_Datatype type,
                                MPI_Comm comm) {
  return trace_sum(counts, type, NULL, comm, 0);
}

int hc_mpi_trace_end(int rc, hc_trace_call_t call, uint64_t t0, int peer,
                     int tag, size_t bytes) {
  hc_trace_call(call, t0, peer, tag, bytes);
  return rc;
}

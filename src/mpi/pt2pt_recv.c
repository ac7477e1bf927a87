/*
 * The receives, blocking (MPI_Recv) and non-blocking (MPI_Irecv), with
 * their _c forms: the small-message path's other half, one test of the
 * arguments, a message taken at once when it is here already, tracing
 * out of line.  The matched receives (MPI_Mrecv, MPI_Imrecv) are
 * pt2pt_probe.c's, MPI_Recv_init pt2pt_persistent.c's.
 */
#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"
#include "mpi/pt2pt_impl.h"

/* The checks of MPI_(I)recv (out: the status or request pointer).
 * Inlined: out of line, its twelve arguments went through the stack, and
 * with the checks one call each it cost ~55 instructions more of every
 * MPI_Irecv (bench/NOTES.md, rate17e). */
__attribute__((always_inline)) static inline int
pt_irecv_checked(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,
                 int source, int tag, MPI_Comm comm, const void *out,
                 const char *out_name, hc_mpi_comm_t **cp,
                 const hc_mpi_type_t **t, size_t *bytes) {
  int rc = hc_mpi_comm_enter(fn, comm, cp);
  if (rc != MPI_SUCCESS)
    return rc;
  if (pt_args_usual(*cp, buf, count, type, source, 2u, tag, 1u, out, t, bytes))
    return MPI_SUCCESS;
  rc =
      hc_mpi_check_recv_typed(fn, *cp, buf, count, type, source, tag, t, bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *cp, out, out_name);
  return rc;
}

/* Inlined into both MPI_Recv and MPI_Recv_c, as it was into MPI_Recv
 * alone before the _c form shared it: the int form's receive path stays
 * one call deep. */
__attribute__((always_inline)) static inline int
pt_recv_body(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
             int source, int tag, MPI_Comm comm, MPI_Status *status) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  size_t bytes = 0;
  int rc = pt_irecv_checked(fn, buf, count, datatype, source, tag, comm, status,
                            "status", &c, &t, &bytes);
  if (rc != MPI_SUCCESS)
    return rc;
  return pt_recv_post(fn, c, buf, count, datatype, t, bytes, source, tag,
                      status);
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
static __attribute__((noinline, cold)) int
pt_recv_traced(const char *fn, void *buf, MPI_Count count,
               MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Status *status) {
  uint64_t t0 = hc_trace_now();
  int rc = pt_recv_body(fn, buf, count, datatype, source, tag, comm, status);
  hc_trace_call(HC_TRACE_MPI_RECV, t0, source, tag,
                hc_mpi_trace_bytes(count, datatype));
  return rc;
}

/* One test of hc_trace_on when tracing is off (pt_recv_traced). */
static int pt_recv(const char *fn, void *buf, MPI_Count count,
                   MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Status *status) {
  if (__builtin_expect(hc_trace_on, 0))
    return pt_recv_traced(fn, buf, count, datatype, source, tag, comm, status);
  return pt_recv_body(fn, buf, count, datatype, source, tag, comm, status);
}

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Status *status) {
  return pt_recv("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}
HC_WEAK_ALIAS(MPI_Recv, PMPI_Recv);

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source,
                int tag, MPI_Comm comm, MPI_Status *status) {
  return pt_recv("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}
HC_WEAK_ALIAS(MPI_Recv_c, PMPI_Recv_c);

/* Inlined into both forms, as pt_recv_body. */
__attribute__((always_inline)) static inline int
pt_irecv_body(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
              int source, int tag, MPI_Comm comm, MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  size_t bytes = 0;
  int rc = pt_irecv_checked(fn, buf, count, datatype, source, tag, comm,
                            request, "request", &c, &t, &bytes);
  if (rc != MPI_SUCCESS)
    return rc;
  return pt_irecv_post(fn, c, buf, count, datatype, t, source, tag, request);
}

/* MPI_Irecv while tracing, out of line as pt_isend_traced (pt2pt_send.c). */
static __attribute__((noinline, cold)) int
pt_irecv_traced(const char *fn, void *buf, MPI_Count count,
                MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Request *request) {
  uint64_t t0 = hc_trace_now();
  int rc = pt_irecv_body(fn, buf, count, datatype, source, tag, comm, request);
  hc_trace_call(HC_TRACE_MPI_IRECV, t0, source, tag,
                hc_mpi_trace_bytes(count, datatype));
  return rc;
}

/* The entry of both forms: one test of hc_trace_on when tracing is off.
 * Inlined into PMPI_Irecv and PMPI_Irecv_c, as pt_isend. */
__attribute__((always_inline)) static inline int
pt_irecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
         int source, int tag, MPI_Comm comm, MPI_Request *request) {
  if (__builtin_expect(hc_trace_on, 0))
    return pt_irecv_traced(fn, buf, count, datatype, source, tag, comm,
                           request);
  return pt_irecv_body(fn, buf, count, datatype, source, tag, comm, request);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
               MPI_Comm comm, MPI_Request *request) {
  return pt_irecv("MPI_Irecv", buf, count, datatype, source, tag, comm,
                  request);
}
HC_WEAK_ALIAS(MPI_Irecv, PMPI_Irecv);

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source,
                 int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_irecv("MPI_Irecv_c", buf, count, datatype, source, tag, comm,
                  request);
}
HC_WEAK_ALIAS(MPI_Irecv_c, PMPI_Irecv_c);

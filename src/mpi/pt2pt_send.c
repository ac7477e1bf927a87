/*
 * The sends of the standard, synchronous and ready modes, blocking
 * (MPI_Send, MPI_Ssend, MPI_Rsend) and non-blocking (MPI_Isend,
 * MPI_Issend, MPI_Irsend), with their _c forms.  MPI_Send and MPI_Isend
 * are the small-message path: one test of the arguments, a message that
 * leaves at once with no request, tracing out of line.  Buffered mode is
 * buffer.c's, sendrecv pt2pt_sendrecv.c's, the persistent forms
 * pt2pt_persistent.c's.
 */
#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"
#include "mpi/pt2pt_impl.h"
#include "mpi/reqpool.h"

/* The checks of a send, as pt_irecv_checked's (pt2pt_recv.c) for a
 * receive: the good case in pt_args_usual's one branch, then each check in
 * turn.  out is the request pointer (out_name "request"); a blocking send
 * has none and passes out_name NULL with fn as out, a pointer never NULL,
 * so that the fold's test of out always passes. */
__attribute__((always_inline)) static inline int
pt_send_checked(const char *fn, hc_mpi_comm_t *c, const void *buf,
                MPI_Count count, MPI_Datatype type, int dest, int tag,
                const void *out, const char *out_name, const hc_mpi_type_t **t,
                size_t *bytes) {
  if (pt_args_usual(c, buf, count, type, dest, 1u, tag, 0u, out, t, bytes))
    return MPI_SUCCESS;
  int rc =
      hc_mpi_check_send_typed(fn, c, buf, count, type, dest, tag, t, bytes);
  if (rc == MPI_SUCCESS && out_name != NULL)
    rc = hc_mpi_check_ptr(fn, c, out, out_name);
  return rc;
}

/* Blocking send in an engine mode: start it and wait for it. */
static int pt_send_body(const char *fn, const void *buf, MPI_Count count,
                        MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                        int mode) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = pt_send_checked(fn, c, buf, count, type, dest, tag, fn, NULL, &t,
                         &bytes);
  if (rc != MPI_SUCCESS)
    return rc;
  if (dest == MPI_PROC_NULL)
    return MPI_SUCCESS;
  int dense = hc_mpi_type_dense(t); /* once: both tests below need it */
  if (pt_sent_now(buf, dense, bytes, dest, tag, c, mode))
    return MPI_SUCCESS;
  hc_mpi_xfer_t x;
  rc = pt_xfer_checked(fn, c, buf, count, type, t, dense, 0, &x);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_request_t *req = NULL;
  hc_status_t st = hc_mpi_xfer_isend(&x, dest, tag, c->engine, mode, &req);
  if (st == HC_OK)
    st = hcomm_wait_free(req, NULL);
  hc_mpi_xfer_fini(&x);
  return hc_mpi_raise_status(c, fn, st);
}

/* The name a send of mode is traced under (nonblocking: its I-form). */
static hc_trace_call_t pt_trace_send_call(int mode, int nonblocking) {
  if (mode == HCOMM_SEND_SYNC)
    return nonblocking ? HC_TRACE_MPI_ISSEND : HC_TRACE_MPI_SSEND;
  if (mode == HCOMM_SEND_READY)
    return nonblocking ? HC_TRACE_MPI_IRSEND : HC_TRACE_MPI_RSEND;
  return nonblocking ? HC_TRACE_MPI_ISEND : HC_TRACE_MPI_SEND;
}

/* pt_send while tracing, out of line as pt_isend_traced. */
static __attribute__((noinline, cold)) int
pt_send_traced(const char *fn, const void *buf, MPI_Count count,
               MPI_Datatype type, int dest, int tag, MPI_Comm comm, int mode) {
  uint64_t t0 = hc_trace_now();
  int rc = pt_send_body(fn, buf, count, type, dest, tag, comm, mode);
  hc_trace_call(pt_trace_send_call(mode, 0), t0, dest, tag,
                hc_mpi_trace_bytes(count, type));
  return rc;
}

/* Every blocking send mode but buffered enters here: one test of
 * hc_trace_on when tracing is off (pt_send_traced). */
static int pt_send(const char *fn, const void *buf, MPI_Count count,
                   MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   int mode) {
  if (__builtin_expect(hc_trace_on, 0))
    return pt_send_traced(fn, buf, count, type, dest, tag, comm, mode);
  return pt_send_body(fn, buf, count, type, dest, tag, comm, mode);
}

/* Inlined into pt_isend, as pt_irecv_body is: an out-of-line body took
 * its nine arguments through the stack on every MPI_Isend. */
__attribute__((always_inline)) static inline int
pt_isend_body(const char *fn, const void *buf, MPI_Count count,
              MPI_Datatype type, int dest, int tag, MPI_Comm comm, int mode,
              MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = pt_send_checked(fn, c, buf, count, type, dest, tag, request, "request",
                         &t, &bytes);
  if (rc != MPI_SUCCESS)
    return rc;
  if (dest == MPI_PROC_NULL)
    return hc_mpi_request_new_done(fn, c, &pt_proc_null_status, request);
  int dense = hc_mpi_type_dense(t);
  if (pt_sent_now(buf, dense, bytes, dest, tag, c, mode)) {
    *request = hc_mpi_request_sent();
    return MPI_SUCCESS;
  }
  return pt_start(fn, c, buf, count, type, t, dense, 0, dest, tag, mode,
                  request);
}

/* pt_isend while tracing: out of line, so that the untraced call pays
 * one test of hc_trace_on. */
static __attribute__((noinline, cold)) int
pt_isend_traced(const char *fn, const void *buf, MPI_Count count,
                MPI_Datatype type, int dest, int tag, MPI_Comm comm, int mode,
                MPI_Request *request) {
  uint64_t t0 = hc_trace_now();
  int rc = pt_isend_body(fn, buf, count, type, dest, tag, comm, mode, request);
  hc_trace_call(pt_trace_send_call(mode, 1), t0, dest, tag,
                hc_mpi_trace_bytes(count, type));
  return rc;
}

/* Inlined into each PMPI_I*send: called, its nine arguments went through
 * the stack on every call. */
__attribute__((always_inline)) static inline int
pt_isend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type,
         int dest, int tag, MPI_Comm comm, int mode, MPI_Request *request) {
  if (__builtin_expect(hc_trace_on, 0))
    return pt_isend_traced(fn, buf, count, type, dest, tag, comm, mode,
                           request);
  return pt_isend_body(fn, buf, count, type, dest, tag, comm, mode, request);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm) {
  return pt_send("MPI_Send", buf, count, datatype, dest, tag, comm,
                 HCOMM_SEND_STANDARD);
}
HC_WEAK_ALIAS(MPI_Send, PMPI_Send);

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                int dest, int tag, MPI_Comm comm) {
  return pt_send("MPI_Send_c", buf, count, datatype, dest, tag, comm,
                 HCOMM_SEND_STANDARD);
}
HC_WEAK_ALIAS(MPI_Send_c, PMPI_Send_c);

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm) {
  return pt_send("MPI_Ssend", buf, count, datatype, dest, tag, comm,
                 HCOMM_SEND_SYNC);
}
HC_WEAK_ALIAS(MPI_Ssend, PMPI_Ssend);

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm) {
  return pt_send("MPI_Ssend_c", buf, count, datatype, dest, tag, comm,
                 HCOMM_SEND_SYNC);
}
HC_WEAK_ALIAS(MPI_Ssend_c, PMPI_Ssend_c);

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm) {
  return pt_send("MPI_Rsend", buf, count, datatype, dest, tag, comm,
                 HCOMM_SEND_READY);
}
HC_WEAK_ALIAS(MPI_Rsend, PMPI_Rsend);

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm) {
  return pt_send("MPI_Rsend_c", buf, count, datatype, dest, tag, comm,
                 HCOMM_SEND_READY);
}
HC_WEAK_ALIAS(MPI_Rsend_c, PMPI_Rsend_c);

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_isend("MPI_Isend", buf, count, datatype, dest, tag, comm,
                  HCOMM_SEND_STANDARD, request);
}
HC_WEAK_ALIAS(MPI_Isend, PMPI_Isend);

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_isend("MPI_Isend_c", buf, count, datatype, dest, tag, comm,
                  HCOMM_SEND_STANDARD, request);
}
HC_WEAK_ALIAS(MPI_Isend_c, PMPI_Isend_c);

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_isend("MPI_Issend", buf, count, datatype, dest, tag, comm,
                  HCOMM_SEND_SYNC, request);
}
HC_WEAK_ALIAS(MPI_Issend, PMPI_Issend);

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_isend("MPI_Issend_c", buf, count, datatype, dest, tag, comm,
                  HCOMM_SEND_SYNC, request);
}
HC_WEAK_ALIAS(MPI_Issend_c, PMPI_Issend_c);

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_isend("MPI_Irsend", buf, count, datatype, dest, tag, comm,
                  HCOMM_SEND_READY, request);
}
HC_WEAK_ALIAS(MPI_Irsend, PMPI_Irsend);

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_isend("MPI_Irsend_c", buf, count, datatype, dest, tag, comm,
                  HCOMM_SEND_READY, request);
}
HC_WEAK_ALIAS(MPI_Irsend_c, PMPI_Irsend_c);

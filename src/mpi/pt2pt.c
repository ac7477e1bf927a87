/*
 * Point-to-point calls: blocking, non-blocking and persistent sends and
 * receives in every mode, sendrecv, probes and matched probes.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/devstage.h"
#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"
#include "mpi/reqpool.h"

/* hc_mpi_check_send that also hands out the type object. */
static int pt_check_send(const char *fn, hc_mpi_comm_t *c, const void *buf,
                         MPI_Count count, MPI_Datatype type, int dest, int tag,
                         const hc_mpi_type_t **t, size_t *bytes) {
  int rc = hc_mpi_check_data_typed(fn, c, buf, count, type, t, bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_dest(fn, c, dest);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send_tag(fn, c, tag);
  return rc;
}

int hc_mpi_check_send(const char *fn, hc_mpi_comm_t *c, const void *buf,
                      MPI_Count count, MPI_Datatype type, int dest, int tag,
                      size_t *bytes) {
  const hc_mpi_type_t *t = NULL;
  return pt_check_send(fn, c, buf, count, type, dest, tag, &t, bytes);
}

/* A point-to-point call's arguments in the good case, with one branch for
 * all the rarely true conditions (a negative count, a type not committed,
 * a buffer that cannot hold the data, a rank or tag out of range, a NULL
 * out): each is one bit of bad.  Ranks may also be the ranks_below values
 * just under 0 (a send: MPI_PROC_NULL, -1; a receive: MPI_ANY_SOURCE, -2,
 * too), tags the tags_below values under 0 (a receive: MPI_ANY_TAG, -1):
 * shifted up by as many, each range is one unsigned compare.  1 with *tp
 * and *bytes set when all are fine; 0 sends the caller to the checks one
 * by one, which name the first thing wrong. */
static inline int pt_args_usual(const hc_mpi_comm_t *c, const void *buf,
                                MPI_Count count, MPI_Datatype type, int rank,
                                unsigned ranks_below, int tag,
                                unsigned tags_below, const void *out,
                                const hc_mpi_type_t **tp, size_t *bytes) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  if (t == NULL)
    return 0;
  size_t n = hc_mpi_type_wire_bytes(t, count);
  unsigned ranks = (unsigned)c->peer_size + ranks_below;
  int bad = (count < 0) | !t->committed | (buf == MPI_IN_PLACE) |
            ((buf == NULL) & (n != 0) & (t->true_lb == 0)) |
            ((unsigned)rank + ranks_below >= ranks) |
            ((unsigned)tag + tags_below > (unsigned)HCOMM_TAG_UB + tags_below) |
            (out == NULL);
  if (bad)
    return 0;
  *tp = t;
  *bytes = n;
  return 1;
}

/* The checks of a send, as pt_irecv_checked's for a receive: the good
 * case in pt_args_usual's one branch, then each check in turn.  out is the
 * request pointer (out_name "request"); a blocking send has none and
 * passes out_name NULL with fn as out, a pointer never NULL, so that the
 * fold's test of out always passes. */
__attribute__((always_inline)) static inline int
pt_send_checked(const char *fn, hc_mpi_comm_t *c, const void *buf,
                MPI_Count count, MPI_Datatype type, int dest, int tag,
                const void *out, const char *out_name,
                const hc_mpi_type_t **t, size_t *bytes) {
  if (pt_args_usual(c, buf, count, type, dest, 1u, tag, 0u, out, t, bytes))
    return MPI_SUCCESS;
  int rc = pt_check_send(fn, c, buf, count, type, dest, tag, t, bytes);
  if (rc == MPI_SUCCESS && out_name != NULL)
    rc = hc_mpi_check_ptr(fn, c, out, out_name);
  return rc;
}

/* A send that needs no request: dense data in a standard or ready mode
 * send that the engine could put on the wire at once (small, host memory,
 * nothing queued ahead).  1 when it left. */
static int pt_sent_now(const void *buf, int dense, size_t bytes, int dest,
                       int tag, hc_mpi_comm_t *c, int mode) {
  return mode != HCOMM_SEND_SYNC && dense &&
         hcomm_send_now(buf, bytes, dest, tag, c->engine) == HC_OK;
}

/* hc_mpi_check_recv that also hands out the type object. */
static int pt_check_recv(const char *fn, hc_mpi_comm_t *c, const void *buf,
                         MPI_Count count, MPI_Datatype type, int source,
                         int tag, const hc_mpi_type_t **t, size_t *bytes) {
  int rc = hc_mpi_check_data_typed(fn, c, buf, count, type, t, bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_source(fn, c, source);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_recv_tag(fn, c, tag);
  return rc;
}

int hc_mpi_check_recv(const char *fn, hc_mpi_comm_t *c, const void *buf,
                      MPI_Count count, MPI_Datatype type, int source, int tag,
                      size_t *bytes) {
  const hc_mpi_type_t *t = NULL;
  return pt_check_recv(fn, c, buf, count, type, source, tag, &t, bytes);
}

static const hcomm_status_t pt_proc_null_status = {MPI_PROC_NULL, MPI_ANY_TAG,
                                                   0, 0, HC_OK};

/* Describes and stages the data of an operation whose arguments passed
 * the checks (so the type is valid). */
static int pt_xfer(const char *fn, hc_mpi_comm_t *c, const void *buf,
                   MPI_Count count, MPI_Datatype type, int is_recv,
                   hc_mpi_xfer_t *x) {
  hc_mpi_xfer_init(x, buf, count,
                   hc_mpi_type_get(hc_mpi_message_type(type, count)), is_recv);
  int rc = hc_mpi_xfer_begin(fn, c, x);
  if (rc != MPI_SUCCESS)
    hc_mpi_xfer_fini(x);
  return rc;
}

/* pt_xfer for operations started by hc_mpi_xfer_isend / irecv: large
 * non-contiguous data is pipelined by the engine, not staged whole. */
static int pt_xfer_stream(const char *fn, hc_mpi_comm_t *c, const void *buf,
                          MPI_Count count, MPI_Datatype type, int is_recv,
                          hc_mpi_xfer_t *x) {
  hc_mpi_xfer_init(x, buf, count,
                   hc_mpi_type_get(hc_mpi_message_type(type, count)), is_recv);
  int rc = hc_mpi_xfer_begin_stream(fn, c, x);
  if (rc != MPI_SUCCESS)
    hc_mpi_xfer_fini(x);
  return rc;
}

/* pt_xfer_stream when the checks already found the type object t: a
 * dense one needs no staging decision at all.  Inlined: with more callers
 * GCC made it a call on every MPI_Recv and MPI_Send (+25 instructions). */
__attribute__((always_inline)) static inline int
pt_xfer_checked(const char *fn, hc_mpi_comm_t *c, const void *buf,
                MPI_Count count, MPI_Datatype type, const hc_mpi_type_t *t,
                int dense, int is_recv, hc_mpi_xfer_t *x) {
  if (!dense)
    return pt_xfer_stream(fn, c, buf, count, type, is_recv, x);
  hc_mpi_xfer_init_dense(x, buf, count, t, is_recv);
  return MPI_SUCCESS;
}

/* A new MPI_Request for an operation on (buf, count, type) with peer:
 * its data described in the request itself (pt_xfer_checked), its engine
 * request kept there too (hc_mpi_request_issue): one object for both
 * layers, one allocation.  Inlined into its two callers, which are
 * inlined themselves: out of line, its twelve arguments went through the
 * stack on every MPI_Irecv (~35 instructions). */
__attribute__((always_inline)) static inline int
pt_start(const char *fn, hc_mpi_comm_t *c, const void *buf, MPI_Count count,
         MPI_Datatype type, const hc_mpi_type_t *t, int dense, int is_recv,
         int peer, int tag, int mode, MPI_Request *out) {
  hc_mpi_request_t *r = hc_mpi_request_new(HC_REQ_PLAIN, c);
  if (!r)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  r->is_recv = is_recv;
  int rc =
      pt_xfer_checked(fn, c, buf, count, type, t, dense, is_recv, &r->xfer);
  if (rc != MPI_SUCCESS) {
    hc_mpi_request_destroy(r);
    return rc;
  }
  hc_status_t st = hc_mpi_request_issue(r, peer, tag, mode, is_recv && dense);
  if (st != HC_OK) {
    hc_mpi_request_destroy(r);
    return hc_mpi_raise_status(c, fn, st);
  }
  *out = r->handle;
  return MPI_SUCCESS;
}

/* ---- sends -------------------------------------------------------------- */

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
    rc = pt_send_checked(fn, c, buf, count, type, dest, tag, request,
                         "request", &t, &bytes);
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

static int pt_bsend_body(const char *fn, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm) {
  hc_mpi_comm_t *c = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send(fn, c, buf, count, datatype, dest, tag, &bytes);
  if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
    return rc;
  return hc_mpi_bsend_typed(
      fn, c, buf, count, hc_mpi_type_get(hc_mpi_message_type(datatype, count)),
      dest, tag);
}

/* Traced entry (mpi_trace.h). */
static int pt_bsend_traced(const char *fn, const void *buf, MPI_Count count,
                           MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = pt_bsend_body(fn, buf, count, datatype, dest, tag, comm);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_BSEND, t0, dest, tag,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm) {
  return pt_bsend_traced("MPI_Bsend", buf, count, datatype, dest, tag, comm);
}
HC_WEAK_ALIAS(MPI_Bsend, PMPI_Bsend);

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm) {
  return pt_bsend_traced("MPI_Bsend_c", buf, count, datatype, dest, tag, comm);
}
HC_WEAK_ALIAS(MPI_Bsend_c, PMPI_Bsend_c);

static int pt_ibsend_body(const char *fn, const void *buf, MPI_Count count,
                          MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send(fn, c, buf, count, datatype, dest, tag, &bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, request, "request");
  if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)
    rc = hc_mpi_bsend_typed(
        fn, c, buf, count,
        hc_mpi_type_get(hc_mpi_message_type(datatype, count)), dest, tag);
  if (rc != MPI_SUCCESS)
    return rc;
  /* The data now sits in the attached buffer: the send is complete. */
  hcomm_status_t st = {MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0, HC_OK};
  return hc_mpi_request_new_done(fn, c, &st, request);
}

/* Traced entry (mpi_trace.h). */
static int pt_ibsend_traced(const char *fn, const void *buf, MPI_Count count,
                            MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = pt_ibsend_body(fn, buf, count, datatype, dest, tag, comm, request);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IBSEND, t0, dest, tag,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_ibsend_traced("MPI_Ibsend", buf, count, datatype, dest, tag, comm,
                          request);
}
HC_WEAK_ALIAS(MPI_Ibsend, PMPI_Ibsend);

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_ibsend_traced("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm,
                          request);
}
HC_WEAK_ALIAS(MPI_Ibsend_c, PMPI_Ibsend_c);

/* ---- receives ----------------------------------------------------------- */

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
  rc = pt_check_recv(fn, *cp, buf, count, type, source, tag, t, bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *cp, out, out_name);
  return rc;
}

/* A receive that needs no request: dense data whose message has already
 * arrived whole (hcomm_recv_now).  1 and *st filled when it was taken. */
static int pt_received_now(void *buf, int dense, size_t bytes, int source,
                           int tag, hc_mpi_comm_t *c, hcomm_status_t *st) {
  return dense &&
         hcomm_recv_now(buf, bytes, source, tag, c->engine, st) == HC_OK;
}

/* A blocking receive whose arguments passed the checks (MPI_Recv, and
 * MPI_Sendrecv(_replace) once its send is over): taken at once when the
 * message comes from MPI_PROC_NULL or is here already, else posted and
 * waited for.  Inlined, as pt_recv_body. */
__attribute__((always_inline)) static inline int
pt_recv_post(const char *fn, hc_mpi_comm_t *c, void *buf, MPI_Count count,
             MPI_Datatype type, const hc_mpi_type_t *t, size_t bytes,
             int source, int tag, MPI_Status *status) {
  if (source == MPI_PROC_NULL) {
    hc_mpi_status_proc_null(status);
    return MPI_SUCCESS;
  }
  hcomm_status_t st;
  int dense = hc_mpi_type_dense(t);
  if (pt_received_now(buf, dense, bytes, source, tag, c, &st)) {
    hc_status_t err = hc_mpi_check_whole(&st, HC_OK, t->element_mask);
    hc_mpi_status_fill(status, &st);
    return err == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(c, fn, err);
  }
  hc_mpi_xfer_t x;
  int rc = pt_xfer_checked(fn, c, buf, count, type, t, dense, 1, &x);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_request_t *req = NULL;
  hc_status_t err = hc_mpi_xfer_irecv(&x, source, tag, c->engine, &req);
  if (err == HC_OK) {
    err = hcomm_wait_free(req, &st);
    hc_mpi_xfer_end(&x, st.bytes);
    err = hc_mpi_check_whole(&st, err, x.element_mask);
    hc_mpi_status_fill(status, &st);
  }
  hc_mpi_xfer_fini(&x);
  return hc_mpi_raise_status(c, fn, err);
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

/* The request of a receive whose arguments passed the checks (MPI_Irecv,
 * and MPI_Isendrecv(_replace) once its send is over): a completed one when
 * the message comes from MPI_PROC_NULL or, for dense data, is here already
 * (pt_start asks the engine for both at once), else one pooled object for
 * the face and the engine.  Inlined, as pt_irecv_body. */
__attribute__((always_inline)) static inline int
pt_irecv_post(const char *fn, hc_mpi_comm_t *c, void *buf, MPI_Count count,
              MPI_Datatype type, const hc_mpi_type_t *t, int source, int tag,
              MPI_Request *request) {
  if (source == MPI_PROC_NULL)
    return hc_mpi_request_new_done(fn, c, &pt_proc_null_status, request);
  return pt_start(fn, c, buf, count, type, t, hc_mpi_type_dense(t), 1, source,
                  tag, HCOMM_SEND_STANDARD, request);
}

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

/* MPI_Irecv while tracing, out of line as pt_isend_traced. */
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

/* ---- sendrecv ----------------------------------------------------------- */

/* An MPI_(I)sendrecv(_replace)'s send that needs nothing more: to
 * MPI_PROC_NULL, or dense data that left at once (pt_sent_now).  1 then:
 * the operation is its receive alone (pt_recv_post, pt_irecv_post: no
 * join, no parts, no second request), and its send buffer is free. */
static int pt_send_over(const void *buf, const hc_mpi_type_t *t, size_t bytes,
                        int dest, int tag, hc_mpi_comm_t *c) {
  return dest == MPI_PROC_NULL ||
         pt_sent_now(buf, hc_mpi_type_dense(t), bytes, dest, tag, c,
                     HCOMM_SEND_STANDARD);
}

/* Runs a receive and a send together; the receive's status is reported. */
static hc_status_t pt_exchange(hc_mpi_comm_t *c, hc_mpi_xfer_t *sx, int dest,
                               int stag, hc_mpi_xfer_t *rx, int source,
                               int rtag, hcomm_status_t *rst) {
  hcomm_request_t *reqs[2] = {NULL, NULL};
  hc_status_t err = HC_OK;
  *rst = pt_proc_null_status;
  if (source != MPI_PROC_NULL)
    err = hc_mpi_xfer_irecv(rx, source, rtag, c->engine, &reqs[0]);
  if (err == HC_OK && dest != MPI_PROC_NULL)
    err = hc_mpi_xfer_isend(sx, dest, stag, c->engine, HCOMM_SEND_STANDARD,
                            &reqs[1]);
  if (err != HC_OK && reqs[0]) {
    hcomm_cancel(reqs[0]);
  }
  hc_status_t serr = HC_OK;
  if (reqs[1])
    serr = hcomm_wait_free(reqs[1], NULL);
  if (reqs[0]) {
    hc_status_t rerr = hcomm_wait_free(reqs[0], rst);
    if (err == HC_OK)
      err = rerr;
  }
  return err != HC_OK ? err : serr;
}

/* The checks of MPI_(I)sendrecv (out: the status or request pointer),
 * which hand out the send's and the receive's type objects and sizes. */
static int pt_sendrecv_check(const char *fn, const void *sendbuf,
                             MPI_Count sendcount, MPI_Datatype sendtype,
                             int dest, int sendtag, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype,
                             int source, int recvtag, MPI_Comm comm,
                             const void *out, const char *out_name,
                             hc_mpi_comm_t **c, const hc_mpi_type_t **st,
                             size_t *sbytes, const hc_mpi_type_t **rt,
                             size_t *rbytes) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = pt_check_send(fn, *c, sendbuf, sendcount, sendtype, dest, sendtag, st,
                       sbytes);
  if (rc == MPI_SUCCESS)
    rc = pt_check_recv(fn, *c, recvbuf, recvcount, recvtype, source, recvtag,
                       rt, rbytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *c, out, out_name);
  return rc;
}

/* The xfers of an MPI_(I)sendrecv whose send did not leave at once (dest
 * is not MPI_PROC_NULL). */
static int pt_sendrecv_xfers(const char *fn, hc_mpi_comm_t *c,
                             const void *sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, const hc_mpi_type_t *st,
                             void *recvbuf, MPI_Count recvcount,
                             MPI_Datatype recvtype, const hc_mpi_type_t *rt,
                             int source, hc_mpi_xfer_t *sx, hc_mpi_xfer_t *rx) {
  int rc = pt_xfer_checked(fn, c, sendbuf, sendcount, sendtype, st,
                           hc_mpi_type_dense(st), 0, sx);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = pt_xfer_checked(fn, c, recvbuf, source == MPI_PROC_NULL ? 0 : recvcount,
                       recvtype, rt, hc_mpi_type_dense(rt), 1, rx);
  if (rc != MPI_SUCCESS)
    hc_mpi_xfer_fini(sx);
  return rc;
}

static int pt_sendrecv_body(const char *fn, const void *sendbuf,
                            MPI_Count sendcount, MPI_Datatype sendtype,
                            int dest, int sendtag, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype,
                            int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *stype = NULL, *rtype = NULL;
  size_t sbytes = 0, rbytes = 0;
  int rc =
      pt_sendrecv_check(fn, sendbuf, sendcount, sendtype, dest, sendtag,
                        recvbuf, recvcount, recvtype, source, recvtag, comm,
                        status, "status", &c, &stype, &sbytes, &rtype, &rbytes);
  if (rc != MPI_SUCCESS)
    return rc;
  if (pt_send_over(sendbuf, stype, sbytes, dest, sendtag, c))
    return pt_recv_post(fn, c, recvbuf, recvcount, recvtype, rtype, rbytes,
                        source, recvtag, status);
  hc_mpi_xfer_t sx, rx;
  rc = pt_sendrecv_xfers(fn, c, sendbuf, sendcount, sendtype, stype, recvbuf,
                         recvcount, recvtype, rtype, source, &sx, &rx);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_status_t st;
  hc_status_t err =
      pt_exchange(c, &sx, dest, sendtag, &rx, source, recvtag, &st);
  hc_mpi_xfer_end(&rx, st.bytes);
  err = hc_mpi_check_whole(&st, err, rx.element_mask);
  hc_mpi_xfer_fini(&rx);
  hc_mpi_xfer_fini(&sx);
  hc_mpi_status_fill(status, &st);
  return hc_mpi_raise_status(c, fn, err);
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
static int pt_sendrecv_traced(const char *fn, const void *sendbuf,
                              MPI_Count sendcount, MPI_Datatype sendtype,
                              int dest, int sendtag, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype,
                              int source, int recvtag, MPI_Comm comm,
                              MPI_Status *status) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc =
      pt_sendrecv_body(fn, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, comm, status);
  if (hc_trace_on)
    hc_trace_call(HC_TRACE_MPI_SENDRECV, t0, dest, sendtag,
                  hc_mpi_trace_bytes(sendcount, sendtype));
  return rc;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  int dest, int sendtag, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Status *status) {
  return pt_sendrecv_traced("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest,
                            sendtag, recvbuf, recvcount, recvtype, source,
                            recvtag, comm, status);
}
HC_WEAK_ALIAS(MPI_Sendrecv, PMPI_Sendrecv);

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source,
                    int recvtag, MPI_Comm comm, MPI_Status *status) {
  return pt_sendrecv_traced("MPI_Sendrecv_c", sendbuf, sendcount, sendtype,
                            dest, sendtag, recvbuf, recvcount, recvtype, source,
                            recvtag, comm, status);
}
HC_WEAK_ALIAS(MPI_Sendrecv_c, PMPI_Sendrecv_c);

/* The checks of MPI_(I)sendrecv_replace (out: the status or request
 * pointer). */
static int pt_replace_enter(const char *fn, void *buf, MPI_Count count,
                            MPI_Datatype datatype, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm,
                            const void *out, const char *out_name,
                            hc_mpi_comm_t **c, const hc_mpi_type_t **t,
                            size_t *bytes) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = pt_check_send(fn, *c, buf, count, datatype, dest, sendtag, t, bytes);
  if (rc == MPI_SUCCESS)
    rc = pt_check_recv(fn, *c, buf, count, datatype, source, recvtag, t, bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *c, out, out_name);
  return rc;
}

static int pt_sendrecv_replace_body(const char *fn, void *buf, MPI_Count count,
                                    MPI_Datatype datatype, int dest,
                                    int sendtag, int source, int recvtag,
                                    MPI_Comm comm, MPI_Status *status) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  size_t bytes = 0;
  int rc = pt_replace_enter(fn, buf, count, datatype, dest, sendtag, source,
                            recvtag, comm, status, "status", &c, &t, &bytes);
  if (rc != MPI_SUCCESS)
    return rc;
  /* A send that is over has read buf: receive into it directly. */
  if (pt_send_over(buf, t, bytes, dest, sendtag, c))
    return pt_recv_post(fn, c, buf, count, datatype, t, bytes, source, recvtag,
                        status);
  /* The send reads buf (or its packed copy) while the receive lands in a
   * packed staging buffer, unpacked into buf afterwards. */
  hc_mpi_xfer_t sx;
  rc = pt_xfer_stream(fn, c, buf, dest == MPI_PROC_NULL ? 0 : count, datatype,
                      0, &sx);
  if (rc != MPI_SUCCESS)
    return rc;
  bytes = sx.type ? (size_t)count * (size_t)sx.type->size : 0;
  void *tmp = bytes ? malloc(bytes) : NULL;
  if (bytes && !tmp) {
    hc_mpi_xfer_fini(&sx);
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM,
                        "no memory for a %zu-byte staging buffer", bytes);
  }
  hc_mpi_xfer_t rx; /* the packed staging buffer, as plain bytes */
  hc_mpi_xfer_init(&rx, tmp, (MPI_Count)bytes, hc_mpi_type_get(MPI_BYTE), 1);
  hcomm_status_t st;
  hc_status_t err =
      pt_exchange(c, &sx, dest, sendtag, &rx, source, recvtag, &st);
  err = hc_mpi_check_whole(&st, err, t->element_mask); /* the user's type */
  hc_mpi_xfer_fini(&rx);
  /* buf may be device memory: unpack_any never dereferences it. */
  hc_status_t unp = HC_OK;
  if (source != MPI_PROC_NULL && st.bytes > 0)
    unp = hc_mpi_unpack_any(sx.type, tmp,
                            (MPI_Count)(st.bytes <= bytes ? st.bytes : bytes),
                            count, buf);
  if (err == HC_OK)
    err = unp;
  hc_mpi_xfer_fini(&sx);
  free(tmp);
  hc_mpi_status_fill(status, &st);
  return hc_mpi_raise_status(c, fn, err);
}

/* Traced entry (mpi_trace.h). */
static int pt_sendrecv_replace_traced(const char *fn, void *buf,
                                      MPI_Count count, MPI_Datatype datatype,
                                      int dest, int sendtag, int source,
                                      int recvtag, MPI_Comm comm,
                                      MPI_Status *status) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = pt_sendrecv_replace_body(fn, buf, count, datatype, dest, sendtag,
                                    source, recvtag, comm, status);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_SENDRECV_REPLACE, t0, dest,
                               sendtag, hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                          int sendtag, int source, int recvtag, MPI_Comm comm,
                          MPI_Status *status) {
  return pt_sendrecv_replace_traced("MPI_Sendrecv_replace", buf, count,
                                    datatype, dest, sendtag, source, recvtag,
                                    comm, status);
}
HC_WEAK_ALIAS(MPI_Sendrecv_replace, PMPI_Sendrecv_replace);

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                            int dest, int sendtag, int source, int recvtag,
                            MPI_Comm comm, MPI_Status *status) {
  return pt_sendrecv_replace_traced("MPI_Sendrecv_replace_c", buf, count,
                                    datatype, dest, sendtag, source, recvtag,
                                    comm, status);
}
HC_WEAK_ALIAS(MPI_Sendrecv_replace_c, PMPI_Sendrecv_replace_c);

/* ---- non-blocking sendrecv ---------------------------------------------- */

/* The send's staging (a packed copy or a streaming context) lives until the
 * joined request completes; the engine then calls this, under its lock. */
static void pt_send_staging_free(void *arg) {
  hc_mpi_xfer_t *sx = arg;
  hc_mpi_xfer_fini(sx);
  free(sx);
}

/* Starts the receive and the send of an MPI_Isendrecv(_replace) whose
 * send could not leave at once (rendezvous, non-contiguous, a backlog) as
 * one engine request (hcomm_request_join_at) kept in the face request that
 * *request names, as an MPI_Isend's is; the two parts come from the
 * engine's pool.  The receive's xfer stays with the face request, which
 * unpacks it at completion; the send's, when it holds anything, goes to
 * the engine.  Takes sx and rx on success and failure. */
static int pt_isendrecv_start(const char *fn, hc_mpi_comm_t *c,
                              hc_mpi_xfer_t *sx, int dest, int stag,
                              hc_mpi_xfer_t *rx, int source, int rtag,
                              MPI_Request *request) {
  /* Dense data owns nothing (hc_mpi_xfer_fini): no record to keep. */
  int staged = sx->type != NULL || sx->tmp != NULL || sx->acc != NULL;
  hc_mpi_xfer_t *owned = staged ? malloc(sizeof *owned) : NULL;
  hc_mpi_request_t *r =
      owned || !staged ? hc_mpi_request_new(HC_REQ_PLAIN, c) : NULL;
  hcomm_request_t *rreq = NULL, *sreq = NULL, *joined = NULL;
  hc_status_t err = r ? HC_OK : HC_ERR_NOMEM;
  if (err == HC_OK && source != MPI_PROC_NULL)
    err = hc_mpi_xfer_irecv(rx, source, rtag, c->engine, &rreq);
  if (err == HC_OK && dest != MPI_PROC_NULL)
    err = hc_mpi_xfer_isend(sx, dest, stag, c->engine, HCOMM_SEND_STANDARD,
                            &sreq);
  if (err == HC_OK) {
    if (owned)
      *owned = *sx;
    err = hcomm_request_join_at(hc_reqpool_home_take(r), sreq, rreq,
                                owned ? pt_send_staging_free : NULL, owned,
                                &joined);
    if (err != HC_OK)
      hc_reqpool_home_unused(r);
  }
  if (err == HC_OK) {
    r->engine = joined;
    r->xfer = *rx;
    r->is_recv = rx->is_recv;
    *request = r->handle;
    return MPI_SUCCESS;
  }
  /* Nothing was joined: undo what started, then drop the staging. */
  if (r)
    hc_mpi_request_destroy(r);
  if (rreq) {
    hcomm_cancel(rreq);
    hcomm_wait(rreq, NULL);
    hcomm_request_free(rreq);
  }
  if (sreq) {
    hcomm_wait(sreq, NULL);
    hcomm_request_free(sreq);
  }
  free(owned);
  hc_mpi_xfer_fini(sx);
  hc_mpi_xfer_fini(rx);
  return hc_mpi_raise_status(c, fn, err);
}

static int pt_isendrecv(const char *fn, const void *sendbuf,
                        MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                        int sendtag, void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int source, int recvtag,
                        MPI_Comm comm, MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *st = NULL, *rt = NULL;
  size_t sbytes = 0, rbytes = 0;
  int rc =
      pt_sendrecv_check(fn, sendbuf, sendcount, sendtype, dest, sendtag,
                        recvbuf, recvcount, recvtype, source, recvtag, comm,
                        request, "request", &c, &st, &sbytes, &rt, &rbytes);
  if (rc != MPI_SUCCESS)
    return rc;
  if (pt_send_over(sendbuf, st, sbytes, dest, sendtag, c))
    return pt_irecv_post(fn, c, recvbuf, recvcount, recvtype, rt, source,
                         recvtag, request);
  hc_mpi_xfer_t sx, rx;
  rc = pt_sendrecv_xfers(fn, c, sendbuf, sendcount, sendtype, st, recvbuf,
                         recvcount, recvtype, rt, source, &sx, &rx);
  if (rc != MPI_SUCCESS)
    return rc;
  return pt_isendrecv_start(fn, c, &sx, dest, sendtag, &rx, source, recvtag,
                            request);
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   int dest, int sendtag, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request) {
  return pt_isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest,
                      sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                      comm, request);
}
HC_WEAK_ALIAS(MPI_Isendrecv, PMPI_Isendrecv);

int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, int dest, int sendtag,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm,
                     MPI_Request *request) {
  return pt_isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest,
                      sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                      comm, request);
}
HC_WEAK_ALIAS(MPI_Isendrecv_c, PMPI_Isendrecv_c);

/* The receive of an MPI_Isendrecv_replace lands in a staging buffer of the
 * packed message, unpacked into buf when the request completes (after the
 * send, which reads buf or its packed copy, has finished). */
static int pt_replace_staging(const char *fn, hc_mpi_comm_t *c, void *buf,
                              MPI_Count count, MPI_Datatype type,
                              hc_mpi_xfer_t *rx) {
  hc_mpi_xfer_init(rx, buf, count,
                   hc_mpi_type_get(hc_mpi_message_type(type, count)), 1);
  if (rx->bytes == 0)
    return MPI_SUCCESS;
  rx->tmp = malloc(rx->bytes);
  if (rx->tmp)
    return MPI_SUCCESS;
  hc_mpi_xfer_fini(rx);
  return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM,
                      "no memory for a %zu-byte staging buffer", rx->bytes);
}

static int pt_isendrecv_replace(const char *fn, void *buf, MPI_Count count,
                                MPI_Datatype datatype, int dest, int sendtag,
                                int source, int recvtag, MPI_Comm comm,
                                MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  size_t bytes = 0;
  int rc = pt_replace_enter(fn, buf, count, datatype, dest, sendtag, source,
                            recvtag, comm, request, "request", &c, &t, &bytes);
  if (rc != MPI_SUCCESS)
    return rc;
  /* A send that is over has read buf: the receive lands there directly,
   * with no staging buffer. */
  if (pt_send_over(buf, t, bytes, dest, sendtag, c))
    return pt_irecv_post(fn, c, buf, count, datatype, t, source, recvtag,
                         request);
  hc_mpi_xfer_t sx, rx;
  rc = pt_xfer_stream(fn, c, buf, dest == MPI_PROC_NULL ? 0 : count, datatype,
                      0, &sx);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = pt_replace_staging(fn, c, buf, source == MPI_PROC_NULL ? 0 : count,
                          datatype, &rx);
  if (rc != MPI_SUCCESS) {
    hc_mpi_xfer_fini(&sx);
    return rc;
  }
  return pt_isendrecv_start(fn, c, &sx, dest, sendtag, &rx, source, recvtag,
                            request);
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype,
                           int dest, int sendtag, int source, int recvtag,
                           MPI_Comm comm, MPI_Request *request) {
  return pt_isendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype,
                              dest, sendtag, source, recvtag, comm, request);
}
HC_WEAK_ALIAS(MPI_Isendrecv_replace, PMPI_Isendrecv_replace);

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                             int dest, int sendtag, int source, int recvtag,
                             MPI_Comm comm, MPI_Request *request) {
  return pt_isendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype,
                              dest, sendtag, source, recvtag, comm, request);
}
HC_WEAK_ALIAS(MPI_Isendrecv_replace_c, PMPI_Isendrecv_replace_c);

/* ---- probes ------------------------------------------------------------- */

static int pt_probe_args(const char *fn, int source, int tag, MPI_Comm comm,
                         const MPI_Status *status, hc_mpi_comm_t **cp) {
  int rc = hc_mpi_comm_enter(fn, comm, cp);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_source(fn, *cp, source);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_recv_tag(fn, *cp, tag);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *cp, status, "status");
  return rc;
}

static int pt_probe_body(int source, int tag, MPI_Comm comm,
                         MPI_Status *status) {
  static const char fn[] = "MPI_Probe";
  hc_mpi_comm_t *c = NULL;
  int rc = pt_probe_args(fn, source, tag, comm, status, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  if (source == MPI_PROC_NULL) {
    hc_mpi_status_proc_null(status);
    return MPI_SUCCESS;
  }
  hcomm_status_t st;
  hc_status_t err = hcomm_probe(source, tag, c->engine, &st);
  if (err == HC_OK)
    hc_mpi_status_fill(status, &st);
  return hc_mpi_raise_status(c, fn, err);
}

/* Traced entry (mpi_trace.h). */
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = pt_probe_body(source, tag, comm, status);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_PROBE, t0, source, tag, 0) : rc;
}
HC_WEAK_ALIAS(MPI_Probe, PMPI_Probe);

static int pt_iprobe_body(int source, int tag, MPI_Comm comm, int *flag,
                          MPI_Status *status) {
  static const char fn[] = "MPI_Iprobe";
  hc_mpi_comm_t *c = NULL;
  int rc = pt_probe_args(fn, source, tag, comm, status, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    hc_mpi_status_proc_null(status);
    return MPI_SUCCESS;
  }
  hcomm_status_t st;
  int found = 0;
  hc_status_t err = hcomm_iprobe(source, tag, c->engine, &found, &st);
  if (err == HC_OK) {
    *flag = found;
    if (found)
      hc_mpi_status_fill(status, &st);
  }
  return hc_mpi_raise_status(c, fn, err);
}

/* Traced entry (mpi_trace.h). */
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                MPI_Status *status) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = pt_iprobe_body(source, tag, comm, flag, status);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IPROBE, t0, source, tag, 0)
            : rc;
}
HC_WEAK_ALIAS(MPI_Iprobe, PMPI_Iprobe);

/* Hands a matched message out as an MPI_Message handle. */
static int pt_message_wrap(const char *fn, hc_mpi_comm_t *c,
                           hcomm_message_t *msg, MPI_Message *message) {
  hc_mpi_request_t *r = hc_mpi_request_new(HC_REQ_MESSAGE, c);
  if (!r)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM,
                        "out of memory for a message handle");
  r->msg = msg;
  *message = r->handle;
  return MPI_SUCCESS;
}

static int pt_mprobe_body(int source, int tag, MPI_Comm comm,
                          MPI_Message *message, MPI_Status *status) {
  static const char fn[] = "MPI_Mprobe";
  hc_mpi_comm_t *c = NULL;
  int rc = pt_probe_args(fn, source, tag, comm, status, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, message, "message");
  if (rc != MPI_SUCCESS)
    return rc;
  if (source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    hc_mpi_status_proc_null(status);
    return MPI_SUCCESS;
  }
  hcomm_message_t *msg = NULL;
  hcomm_status_t st;
  hc_status_t err = hcomm_mprobe(source, tag, c->engine, &msg, &st);
  if (err != HC_OK)
    return hc_mpi_raise_status(c, fn, err);
  hc_mpi_status_fill(status, &st);
  return pt_message_wrap(fn, c, msg, message);
}

/* Traced entry (mpi_trace.h). */
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                MPI_Status *status) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = pt_mprobe_body(source, tag, comm, message, status);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_MPROBE, t0, source, tag, 0)
            : rc;
}
HC_WEAK_ALIAS(MPI_Mprobe, PMPI_Mprobe);

static int pt_improbe_body(int source, int tag, MPI_Comm comm, int *flag,
                           MPI_Message *message, MPI_Status *status) {
  static const char fn[] = "MPI_Improbe";
  hc_mpi_comm_t *c = NULL;
  int rc = pt_probe_args(fn, source, tag, comm, status, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, message, "message");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    *message = MPI_MESSAGE_NO_PROC;
    hc_mpi_status_proc_null(status);
    return MPI_SUCCESS;
  }
  hcomm_message_t *msg = NULL;
  hcomm_status_t st;
  int found = 0;
  hc_status_t err = hcomm_improbe(source, tag, c->engine, &found, &msg, &st);
  if (err != HC_OK)
    return hc_mpi_raise_status(c, fn, err);
  *flag = found;
  if (!found)
    return MPI_SUCCESS;
  hc_mpi_status_fill(status, &st);
  return pt_message_wrap(fn, c, msg, message);
}

/* Traced entry (mpi_trace.h). */
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Message *message, MPI_Status *status) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = pt_improbe_body(source, tag, comm, flag, message, status);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IMPROBE, t0, source, tag, 0)
            : rc;
}
HC_WEAK_ALIAS(MPI_Improbe, PMPI_Improbe);

/* Starts receiving a matched message in the message's own object, as an
 * MPI_Irecv's receive runs in its request's: the engine request in its
 * home (hcomm_imrecv_at), the data described in its xfer, so a matched
 * receive makes no object of its own.  The message handle is consumed and
 * set to MPI_MESSAGE_NULL; the object comes back in *mp with engine the
 * running receive (NULL for MPI_MESSAGE_NO_PROC, which receives nothing),
 * and keeps the communicator alive until the caller destroys it or hands
 * it out as the receive's request. */
static int pt_mrecv_start(const char *fn, void *buf, MPI_Count count,
                          MPI_Datatype type, MPI_Message *message,
                          hc_mpi_request_t **mp) {
  size_t bytes = 0;
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, message, "message");
  if (rc != MPI_SUCCESS)
    return rc;
  *mp = NULL;
  if (*message == MPI_MESSAGE_NO_PROC) {
    rc = hc_mpi_check_data(fn, NULL, buf, count, type, &bytes);
    if (rc == MPI_SUCCESS)
      *message = MPI_MESSAGE_NULL;
    return rc;
  }
  hc_mpi_request_t *m = hc_mpi_request_get(*message);
  if (!m || m->kind != HC_REQ_MESSAGE)
    return hc_mpi_raise(NULL, fn, MPI_ERR_REQUEST, "invalid message 0x%x",
                        (unsigned)*message);
  const hc_mpi_type_t *t = NULL;
  rc = hc_mpi_check_data_typed(fn, m->comm, buf, count, type, &t, &bytes);
  hc_mpi_xfer_t *x = &m->xfer;
  if (rc == MPI_SUCCESS && hc_mpi_type_dense(t))
    hc_mpi_xfer_init_dense(x, buf, count, t, 1);
  else if (rc == MPI_SUCCESS)
    rc = pt_xfer(fn, m->comm, buf, count, type, 1, x);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t err = hcomm_imrecv_at(hc_reqpool_home_take(m), hc_mpi_xfer_buf(x),
                                    x->bytes, m->msg, &m->engine);
  if (err != HC_OK) {
    hc_reqpool_home_unused(m);
    hc_mpi_xfer_fini(x);
    return hc_mpi_raise_status(m->comm, fn, err);
  }
  m->msg = NULL; /* the engine's from now */
  m->is_recv = 1;
  *mp = m;
  *message = MPI_MESSAGE_NULL;
  return MPI_SUCCESS;
}

static int pt_mrecv_body(const char *fn, void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Message *message,
                         MPI_Status *status) {
  hc_mpi_request_t *m = NULL;
  int rc = hc_mpi_check_ptr(fn, NULL, status, "status");
  if (rc == MPI_SUCCESS)
    rc = pt_mrecv_start(fn, buf, count, datatype, message, &m);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!m) {
    hc_mpi_status_proc_null(status);
    return MPI_SUCCESS;
  }
  hcomm_status_t st;
  hc_status_t err = hcomm_wait_free(m->engine, &st);
  m->engine = NULL;
  hc_mpi_xfer_end(&m->xfer, st.bytes);
  err = hc_mpi_check_whole(&st, err, m->xfer.element_mask);
  hc_mpi_status_fill(status, &st);
  rc = hc_mpi_raise_status(m->comm, fn, err);
  hc_mpi_request_destroy(m);
  return rc;
}

/* Traced entry (mpi_trace.h). */
static int pt_mrecv_traced(const char *fn, void *buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Message *message,
                           MPI_Status *status) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = pt_mrecv_body(fn, buf, count, datatype, message, status);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_MRECV, t0, -1, -1,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype,
               MPI_Message *message, MPI_Status *status) {
  return pt_mrecv_traced("MPI_Mrecv", buf, count, datatype, message, status);
}
HC_WEAK_ALIAS(MPI_Mrecv, PMPI_Mrecv);

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Message *message, MPI_Status *status) {
  return pt_mrecv_traced("MPI_Mrecv_c", buf, count, datatype, message, status);
}
HC_WEAK_ALIAS(MPI_Mrecv_c, PMPI_Mrecv_c);

static int pt_imrecv_body(const char *fn, void *buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Message *message,
                          MPI_Request *request) {
  hc_mpi_request_t *m = NULL;
  int rc = hc_mpi_check_ptr(fn, NULL, request, "request");
  if (rc == MPI_SUCCESS)
    rc = pt_mrecv_start(fn, buf, count, datatype, message, &m);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!m)
    return hc_mpi_request_new_done(fn, hc_mpi_comm_world(),
                                   &pt_proc_null_status, request);
  /* The message's object becomes the receive's request, a plain one like
   * MPI_Irecv's (its one rare field, msg, is clear again), under a fresh
   * handle: the message handle it had reads as stale. */
  m->kind = HC_REQ_PLAIN;
  *request = hc_reqpool_renew(m);
  return MPI_SUCCESS;
}

/* Traced entry (mpi_trace.h). */
static int pt_imrecv_traced(const char *fn, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Message *message,
                            MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = pt_imrecv_body(fn, buf, count, datatype, message, request);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IMRECV, t0, -1, -1,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype,
                MPI_Message *message, MPI_Request *request) {
  return pt_imrecv_traced("MPI_Imrecv", buf, count, datatype, message, request);
}
HC_WEAK_ALIAS(MPI_Imrecv, PMPI_Imrecv);

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Message *message, MPI_Request *request) {
  return pt_imrecv_traced("MPI_Imrecv_c", buf, count, datatype, message,
                          request);
}
HC_WEAK_ALIAS(MPI_Imrecv_c, PMPI_Imrecv_c);

/* ---- persistent requests ------------------------------------------------ */

static int pt_persistent(const char *fn, void *buf, MPI_Count count,
                         MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                         int is_recv, int mode, MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = is_recv
             ? hc_mpi_check_recv(fn, c, buf, count, type, peer, tag, &bytes)
             : hc_mpi_check_send(fn, c, buf, count, type, peer, tag, &bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, request, "request");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_request_t *r = hc_mpi_request_new(HC_REQ_PERSISTENT, c);
  if (!r)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  r->active = 0;
  r->is_recv = is_recv;
  r->buf = buf;
  r->bytes = bytes;
  hc_mpi_xfer_init(&r->xfer, buf, count,
                   hc_mpi_type_get(hc_mpi_message_type(type, count)), is_recv);
  r->peer = peer;
  r->tag = tag;
  r->mode = mode;
  *request = r->handle;
  return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                   int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Send_init", (void *)buf, count, datatype, dest, tag,
                       comm, 0, HCOMM_SEND_STANDARD, request);
}
HC_WEAK_ALIAS(MPI_Send_init, PMPI_Send_init);

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                     int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Send_init_c", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HCOMM_SEND_STANDARD, request);
}
HC_WEAK_ALIAS(MPI_Send_init_c, PMPI_Send_init_c);

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Ssend_init", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HCOMM_SEND_SYNC, request);
}
HC_WEAK_ALIAS(MPI_Ssend_init, PMPI_Ssend_init);

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Ssend_init_c", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HCOMM_SEND_SYNC, request);
}
HC_WEAK_ALIAS(MPI_Ssend_init_c, PMPI_Ssend_init_c);

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Rsend_init", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HCOMM_SEND_READY, request);
}
HC_WEAK_ALIAS(MPI_Rsend_init, PMPI_Rsend_init);

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Rsend_init_c", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HCOMM_SEND_READY, request);
}
HC_WEAK_ALIAS(MPI_Rsend_init_c, PMPI_Rsend_init_c);

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Bsend_init", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HC_MPI_SEND_BUFFERED, request);
}
HC_WEAK_ALIAS(MPI_Bsend_init, PMPI_Bsend_init);

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Bsend_init_c", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HC_MPI_SEND_BUFFERED, request);
}
HC_WEAK_ALIAS(MPI_Bsend_init_c, PMPI_Bsend_init_c);

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Recv_init", buf, count, datatype, source, tag, comm,
                       1, 0, request);
}
HC_WEAK_ALIAS(MPI_Recv_init, PMPI_Recv_init);

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                     int source, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Recv_init_c", buf, count, datatype, source, tag,
                       comm, 1, 0, request);
}
HC_WEAK_ALIAS(MPI_Recv_init_c, PMPI_Recv_init_c);

/*
 * A send and a receive in one call: MPI_Sendrecv, MPI_Sendrecv_replace
 * and their non-blocking forms MPI_Isendrecv(_replace), with the _c
 * forms.  When the send leaves at once the call is its receive alone (the
 * receives' inline paths, pt2pt_impl.h); otherwise both run together, the
 * non-blocking forms as one joined engine request, and the _replace forms
 * receive into a staging copy unpacked into the buffer once the send has
 * read it.
 */
#include <stdlib.h>

#include "mpi/devstage.h"
#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"
#include "mpi/pt2pt_impl.h"
#include "mpi/reqpool.h"

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
    rc = hc_mpi_check_send_typed(fn, *c, sendbuf, sendcount, sendtype, dest,
                                 sendtag, st, sbytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_recv_typed(fn, *c, recvbuf, recvcount, recvtype, source,
                                 recvtag, rt, rbytes);
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
    rc = hc_mpi_check_send_typed(fn, *c, buf, count, datatype, dest, sendtag, t,
                                 bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_recv_typed(fn, *c, buf, count, datatype, source, recvtag,
                                 t, bytes);
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
  rc = hc_mpi_pt_xfer_stream(fn, c, buf, dest == MPI_PROC_NULL ? 0 : count,
                             datatype, 0, &sx);
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
  rc = hc_mpi_pt_xfer_stream(fn, c, buf, dest == MPI_PROC_NULL ? 0 : count,
                             datatype, 0, &sx);
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

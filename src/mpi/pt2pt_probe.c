/*
 * Probes and matched probes (MPI_Probe, MPI_Iprobe, MPI_Mprobe,
 * MPI_Improbe) and the receives of a matched message (MPI_Mrecv,
 * MPI_Imrecv, with their _c forms): the message a matched probe takes out
 * of the queue travels as an MPI_Message handle on a face request object,
 * which its receive then runs in.  Apart from pt2pt_recv.c because none
 * of it is on the small-message path: each call checks its arguments one
 * by one and asks the engine once.
 */
#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"
#include "mpi/pt2pt_impl.h"
#include "mpi/reqpool.h"

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

/*
 * What the face's point-to-point files share.  pt2pt_args.c defines the
 * functions declared here: the checks that name a call's first bad
 * argument, and the staging of a message's non-dense data.  The static
 * inline helpers below are the small-message path's, used by pt2pt_send.c,
 * pt2pt_recv.c and pt2pt_sendrecv.c: each was inlined into MPI_Send,
 * MPI_Recv, MPI_Isend and MPI_Irecv while those were one file, and defined
 * here each file still inlines them when it is compiled, not only when
 * link-time optimisation might.
 */
#ifndef HC_MPI_PT2PT_IMPL_H
#define HC_MPI_PT2PT_IMPL_H

#include "mpi/mpi_impl.h"

/* hc_mpi_check_send that also hands out the type object. */
int hc_mpi_check_send_typed(const char *fn, hc_mpi_comm_t *c, const void *buf,
                            MPI_Count count, MPI_Datatype type, int dest,
                            int tag, const hc_mpi_type_t **t, size_t *bytes);
/* hc_mpi_check_recv that also hands out the type object. */
int hc_mpi_check_recv_typed(const char *fn, hc_mpi_comm_t *c, const void *buf,
                            MPI_Count count, MPI_Datatype type, int source,
                            int tag, const hc_mpi_type_t **t, size_t *bytes);

/* The status of a receive from MPI_PROC_NULL.  A copy in each file that
 * uses it, as when they were one file: GCC gives a local object 16-byte
 * alignment and copies it with aligned moves, an extern one with
 * unaligned moves. */
static const hcomm_status_t pt_proc_null_status = {MPI_PROC_NULL, MPI_ANY_TAG,
                                                   0, 0, HC_OK};

/* Describes and stages the data of an operation whose arguments passed
 * the checks (so the type is valid), started by hc_mpi_xfer_isend /
 * irecv: large non-contiguous data is pipelined by the engine, not staged
 * whole.  On failure x is left finished. */
int hc_mpi_pt_xfer_stream(const char *fn, hc_mpi_comm_t *c, const void *buf,
                          MPI_Count count, MPI_Datatype type, int is_recv,
                          hc_mpi_xfer_t *x);

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

/* A send that needs no request: dense data in a standard or ready mode
 * send that the engine could put on the wire at once (small, host memory,
 * nothing queued ahead).  1 when it left. */
static inline int pt_sent_now(const void *buf, int dense, size_t bytes,
                              int dest, int tag, hc_mpi_comm_t *c, int mode) {
  return mode != HCOMM_SEND_SYNC && dense &&
         hcomm_send_now(buf, bytes, dest, tag, c->engine) == HC_OK;
}

/* A receive that needs no request: dense data whose message has already
 * arrived whole (hcomm_recv_now).  1 and *st filled when it was taken. */
static inline int pt_received_now(void *buf, int dense, size_t bytes,
                                  int source, int tag, hc_mpi_comm_t *c,
                                  hcomm_status_t *st) {
  return dense &&
         hcomm_recv_now(buf, bytes, source, tag, c->engine, st) == HC_OK;
}

/* hc_mpi_pt_xfer_stream when the checks already found the type object t: a
 * dense one needs no staging decision at all.  Inlined: with more callers
 * GCC made it a call on every MPI_Recv and MPI_Send (+25 instructions). */
__attribute__((always_inline)) static inline int
pt_xfer_checked(const char *fn, hc_mpi_comm_t *c, const void *buf,
                MPI_Count count, MPI_Datatype type, const hc_mpi_type_t *t,
                int dense, int is_recv, hc_mpi_xfer_t *x) {
  if (!dense)
    return hc_mpi_pt_xfer_stream(fn, c, buf, count, type, is_recv, x);
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

#endif /* HC_MPI_PT2PT_IMPL_H */

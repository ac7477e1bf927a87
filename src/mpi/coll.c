/*
 * MPI_Barrier, MPI_Ibarrier and MPI_Barrier_init, and the argument checks
 * that the reductions (coll_reduce.c) and the data-moving collectives
 * (coll_rooted.c, coll_allgather.c) share.
 */
#include "mpi/coll_impl.h"
#include "mpi/mpi_impl.h"
#include "mpi/op.h"
#include "mpi/mpi_trace.h"

static int coll_barrier_body(MPI_Comm comm) {
  static const char fn[] = "MPI_Barrier";
  /* The fast path (hc_mpi_coll_fast): a good intracommunicator. */
  hc_mpi_comm_t *c = hc_mpi_comm_try(comm);
  if (c != NULL && hc_mpi_coll_fast(c) != NULL)
    return hc_mpi_raise_status(c, fn, hcomm_barrier(c->engine));
  int rc = hc_mpi_coll_enter(fn, comm, 0, NULL, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!hc_mpi_coll_inter(c))
    return hc_mpi_raise_status(c, fn, hcomm_barrier(c->engine));
  hcomm_request_t *eng = NULL;
  hc_mpi_coll_t *cx = hc_mpi_coll_new();
  if (cx == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  hc_status_t st = hcomm_inter_barrier(c->engine, 0, &eng);
  return hc_mpi_coll_finish(fn, c, cx, st, eng, NULL);
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
int PMPI_Barrier(MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = coll_barrier_body(comm);
  if (hc_trace_on)
    hc_trace_call(HC_TRACE_MPI_BARRIER, t0, -1, -1, 0);
  return rc;
}
HC_WEAK_ALIAS(MPI_Barrier, PMPI_Barrier);

/* persist: MPI_Barrier_init (the request is kept, inactive). */
static int coll_ibarrier_body(const char *fn, MPI_Comm comm,
                              MPI_Request *request, int persist) {
  hc_mpi_comm_t *c = NULL;
  hcomm_request_t *eng = NULL;
  int rc = hc_mpi_coll_enter(fn, comm, 1, request, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  if (cx == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  hc_status_t st = hc_mpi_coll_inter(c)
                       ? hcomm_inter_barrier(c->engine, persist, &eng)
                   : persist ? hcomm_barrier_init(c->engine, &eng)
                             : hcomm_ibarrier(c->engine, &eng);
  return hc_mpi_coll_finish(fn, c, cx, st, eng, request);
}

/* Traced entry (mpi_trace.h). */
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = coll_ibarrier_body("MPI_Ibarrier", comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IBARRIER, t0, -1, -1, 0) : rc;
}
HC_WEAK_ALIAS(MPI_Ibarrier, PMPI_Ibarrier);

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  static const char fn[] = "MPI_Barrier_init";
  int rc = hc_mpi_coll_info(fn, comm, info);
  return rc != MPI_SUCCESS ? rc : coll_ibarrier_body(fn, comm, request, 1);
}
HC_WEAK_ALIAS(MPI_Barrier_init, PMPI_Barrier_init);

/* Count, datatype and op of a reduction; *red ready for the engine. */
int hc_mpi_coll_reduce_args(const char *fn, hc_mpi_comm_t *c, MPI_Count count,
                            MPI_Datatype type, MPI_Op mpi_op,
                            hc_mpi_red_t *red) {
  const hc_mpi_type_t *t = NULL;
  int rc = hc_mpi_coll_type(fn, c, count, type, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  red->type = t;
  rc = hc_mpi_op_resolve(mpi_op, type, &red->op, &red->packed);
  char name[HC_MPI_OP_NAME_MAX];
  if (rc == MPI_ERR_TYPE)
    return hc_mpi_raise(c, fn, rc,
                        "operation %s is not defined for "
                        "datatype 0x%x",
                        hc_mpi_op_name(mpi_op, name), (unsigned)type);
  if (rc != MPI_SUCCESS)
    return hc_mpi_raise(c, fn, rc, "invalid operation %s",
                        hc_mpi_op_name(mpi_op, name));
  return MPI_SUCCESS;
}

/* Buffers of a reduction: data needed where count > 0, no aliasing.
 * MPI_BOTTOM (NULL) is a buffer for a type of absolute addresses. */
int hc_mpi_coll_reduce_bufs(const char *fn, hc_mpi_comm_t *c,
                            const void *sendbuf, const void *recvbuf, MPI_Count count,
                            int need_recv, const hc_mpi_type_t *t) {
  if (count == 0)
    return MPI_SUCCESS;
  int bottom_ok = t->true_lb != 0;
  /* Callers pass recvbuf as sendbuf when the send side is MPI_IN_PLACE. */
  if (sendbuf == MPI_IN_PLACE || (need_recv && recvbuf == MPI_IN_PLACE))
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE is not a receive buffer");
  if (!sendbuf && !bottom_ok)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "sendbuf is NULL");
  if (need_recv && !recvbuf && !bottom_ok)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "recvbuf is NULL");
  if (need_recv && sendbuf == recvbuf)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "sendbuf and recvbuf are the same buffer "
                        "(use MPI_IN_PLACE)");
  return MPI_SUCCESS;
}

size_t hc_mpi_coll_span(const size_t *sizes, const size_t *offs, int n,
                        size_t *lo) {
  size_t low = SIZE_MAX, high = 0;
  for (int i = 0; i < n; i++) {
    if (sizes[i] == 0)
      continue;
    low = offs[i] < low ? offs[i] : low;
    high = offs[i] + sizes[i] > high ? offs[i] + sizes[i] : high;
  }
  *lo = high > 0 ? low : 0;
  return high > 0 ? high - low : 0;
}

int hc_mpi_coll_alias(const char *fn, hc_mpi_comm_t *c, const void *one,
                      const hc_mpi_type_t *ot, MPI_Count count,
                      const void *many, const hc_mpi_type_t *mt, int size,
                      hc_mpi_vec_t counts, hc_mpi_vec_t displs, int vform) {
  if (count <= 0 || one == NULL || many == NULL)
    return MPI_SUCCESS;
  int aliased = one == many && hc_mpi_coll_any(counts, vform ? size : 1);
  if (!aliased && hc_mpi_coll_dense(ot) && hc_mpi_coll_dense(mt)) {
    /* Dense blocks: element i of the many side lies at i * size bytes. */
    MPI_Count low = -1, high = 0;
    for (int r = 0; r < size; r++) {
      MPI_Count n = hc_mpi_vec_at(counts, vform ? r : 0);
      MPI_Count d = vform ? hc_mpi_vec_at(displs, r) : (MPI_Count)r * n;
      if (n <= 0 || d < 0)
        continue;
      low = low < 0 || d < low ? d : low;
      high = d + n > high ? d + n : high;
    }
    aliased = low >= 0 &&
              hc_mpi_coll_overlap(one, hc_mpi_coll_bytes(ot, count),
                                  (const char *)many + low * mt->size,
                                  hc_mpi_coll_bytes(mt, high - low));
  }
  if (!aliased)
    return MPI_SUCCESS;
  return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                      "the send and receive buffers overlap (use "
                      "MPI_IN_PLACE)");
}

/* What a rank sends must be what the receiver expects. */
int hc_mpi_coll_match(const char *fn, hc_mpi_comm_t *c, size_t sbytes,
                      size_t rbytes) {
  if (sbytes == rbytes)
    return MPI_SUCCESS;
  if (sbytes > rbytes)
    return hc_mpi_raise(c, fn, MPI_ERR_TRUNCATE,
                        "%zu bytes sent but only %zu received", sbytes, rbytes);
  return hc_mpi_raise(c, fn, MPI_ERR_COUNT, "%zu bytes sent but %zu expected",
                      sbytes, rbytes);
}

/* This rank's one block: MPI_IN_PLACE only where in_place_ok. */
int hc_mpi_coll_one_side(const char *fn, hc_mpi_comm_t *c, int in_place_ok,
                         const void *buf, MPI_Count count, MPI_Datatype type,
                         const hc_mpi_type_t **t) {
  if (buf == MPI_IN_PLACE && !in_place_ok)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE is allowed only at the root");
  if (buf == MPI_IN_PLACE)
    return MPI_SUCCESS;
  int rc = hc_mpi_coll_type(fn, c, count, type, t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_coll_buf_check(fn, c, buf, count > 0, *t, "the buffer");
  return rc;
}

/* The side with a block per rank: counts and displs in the v-forms. */
int hc_mpi_coll_per_rank(const char *fn, hc_mpi_comm_t *c, int size,
                         hc_mpi_vec_t counts, hc_mpi_vec_t displs, int vform,
                         MPI_Datatype type, const char *what,
                         const hc_mpi_type_t **t) {
  int rc = MPI_SUCCESS;
  if (vform)
    rc = hc_mpi_coll_counts(fn, c, counts, size, what);
  if (rc == MPI_SUCCESS && vform)
    rc = hc_mpi_check_ptr(fn, c, hc_mpi_vec_ptr(displs), "displs");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_coll_type(fn, c, vform ? 0 : hc_mpi_vec_at(counts, 0), type, t);
  return rc;
}

/*
 * Allgather and allgatherv in their blocking, I- and persistent
 * (MPI_*_init) forms, int and large-count: one function serves each
 * collective's three forms.  Beside the general way through coll_ctx.c's
 * byte views: blocking calls of dense types in host memory hand the
 * engine the user's buffers as they are, and HCCL may run the fixed form
 * (coll_hccl.c).
 */
#include "mpi/coll_impl.h"
#include "mpi/mpi_trace.h"

#include <stdint.h>

/* A blocking allgatherv, its arguments checked, of dense types in host
 * memory on a small communicator: the engine takes the user's buffers as
 * they are, the blocks' sizes and offsets on the stack (no views, nothing
 * allocated).  0: not such a call (a negative displacement, a packed type,
 * device memory), nothing done; 1: done, *rc its result. */
static int move_allgatherv_direct(const char *fn, hc_mpi_comm_t *c, int rank,
                                  int size, const void *sendbuf,
                                  const hc_mpi_type_t *st, void *recvbuf,
                                  const hc_mpi_type_t *rt,
                                  hc_mpi_vec_t recvcounts, hc_mpi_vec_t displs,
                                  int *rc) {
  size_t bytes[HC_MPI_COLL_STACK_RANKS], offs[HC_MPI_COLL_STACK_RANKS];
  int in_place = sendbuf == MPI_IN_PLACE;
  if (!hc_mpi_coll_direct(recvbuf, rt) ||
      (!in_place && !hc_mpi_coll_direct(sendbuf, st)))
    return 0;
  for (int i = 0; i < size; i++) {
    MPI_Count d = hc_mpi_vec_at(displs, i);
    if (d < 0)
      return 0;
    bytes[i] = hc_mpi_coll_bytes(rt, hc_mpi_vec_at(recvcounts, i));
    offs[i] = (size_t)(d * rt->extent);
  }
  *rc = hc_mpi_raise_status(
      c, fn,
      hcomm_allgatherv(in_place ? HCOMM_IN_PLACE : sendbuf, bytes[rank],
                       recvbuf, bytes, offs, c->engine));
  return 1;
}

/* The fast path of a blocking Allgatherv on an intracommunicator
 * (hc_mpi_coll_fast), as coll_rooted.c's move_rooted_fast: both sides of
 * predefined dense types in host memory, the table on the stack.  Its
 * result, or -1 when the call goes the general way. */
static int move_allgatherv_fast(const char *fn, const void *sendbuf,
                                MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, hc_mpi_vec_t recvcounts,
                                hc_mpi_vec_t displs, MPI_Datatype recvtype,
                                MPI_Comm comm) {
  hc_mpi_comm_t *c = hc_mpi_comm_try(comm);
  hc_mpi_coll_fast_t *f = c != NULL ? hc_mpi_coll_fast(c) : NULL;
  if (f == NULL || f->size > HC_MPI_COLL_STACK_RANKS)
    return -1;
  size_t sizes[HC_MPI_COLL_STACK_RANKS], offs[HC_MPI_COLL_STACK_RANKS];
  long long bytes = hc_mpi_coll_fast_side(f, sendbuf, sendcount, sendtype, 1);
  int in_place = sendbuf == MPI_IN_PLACE;
  if (bytes < 0 || recvbuf == MPI_IN_PLACE ||
      hc_mpi_coll_fast_table(f, recvbuf, recvcounts, displs, recvtype, sizes,
                             offs) != 0 ||
      (!in_place && (size_t)bytes != sizes[f->rank]) ||
      !hc_mpi_coll_host(in_place ? NULL : sendbuf, recvbuf))
    return -1;
  size_t lo = 0, span = hc_mpi_coll_span(sizes, offs, f->size, &lo);
  if (!in_place && hc_mpi_coll_overlap(sendbuf, (size_t)bytes,
                                       (const char *)recvbuf + lo, span))
    return -1; /* the general way refuses it */
  return hc_mpi_raise_status(
      c, fn,
      hcomm_allgatherv(in_place ? HCOMM_IN_PLACE : sendbuf, sizes[f->rank],
                       recvbuf, sizes, offs, c->engine));
}

static int move_allgather(const char *fn, const void *sendbuf,
                          MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, hc_mpi_vec_t recvcounts,
                          hc_mpi_vec_t displs, int vform, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *request, int persist) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *st = NULL, *rt = NULL;
  hcomm_request_t *eng = NULL;
  int rc = hc_mpi_coll_enter(fn, comm, request != NULL, request, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  /* size: the blocks received, one per rank of the other group on an
   * intercommunicator (where MPI_IN_PLACE is not allowed). */
  int rank = hcomm_comm_rank(c->engine), inter = hc_mpi_coll_inter(c);
  int size = hcomm_comm_peer_size(c->engine);
  int in_place = sendbuf == MPI_IN_PLACE;
  rc = hc_mpi_coll_one_side(fn, c, !inter, sendbuf, sendcount, sendtype, &st);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_coll_per_rank(fn, c, size, recvcounts, displs, vform, recvtype,
                              "recvcounts", &rt);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_coll_buf_check(fn, c, recvbuf,
                               hc_mpi_coll_any(recvcounts, vform ? size : 1),
                               rt, "recvbuf");
  if (rc == MPI_SUCCESS && !in_place && !inter)
    rc = hc_mpi_coll_match(
        fn, c, hc_mpi_coll_bytes(st, sendcount),
        hc_mpi_coll_bytes(rt, hc_mpi_vec_at(recvcounts, vform ? rank : 0)));
  if (rc == MPI_SUCCESS && !in_place && !inter)
    rc = hc_mpi_coll_alias(fn, c, sendbuf, st, sendcount, recvbuf, rt, size,
                           recvcounts, displs, vform);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_hccl_t hx = {.request = request, .persist = persist};
  if (!vform && !inter &&
      hc_mpi_hccl_allgather(fn, c, sendbuf, sendcount, st, recvbuf,
                            hc_mpi_vec_at(recvcounts, 0), rt, &hx, &rc))
    return rc;
  if (request == NULL && !persist && vform && !inter &&
      size <= HC_MPI_COLL_STACK_RANKS &&
      move_allgatherv_direct(fn, c, rank, size, sendbuf, st, recvbuf, rt,
                             recvcounts, displs, &rc))
    return rc;
  size_t rbytes = hc_mpi_coll_bytes(rt, hc_mpi_vec_at(recvcounts, 0));
  if (request == NULL && !persist && !vform && !inter && rbytes > 0 &&
      (in_place || hc_mpi_coll_direct(sendbuf, st)) &&
      hc_mpi_coll_direct(recvbuf, rt)) /* no view, nothing allocated */
    return hc_mpi_raise_status(
        c, fn,
        hcomm_allgather(in_place ? HCOMM_IN_PLACE : sendbuf, rbytes, recvbuf,
                        c->engine));

  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  if (cx == NULL || (hx.defer && hc_mpi_coll_hccl_defer(cx, &hx) != 0))
    return hc_mpi_coll_nomem(fn, c, cx);
  size_t sbytes = 0, soff, *sz = hc_mpi_coll_sizes(cx, size);
  const void *sview = HCOMM_IN_PLACE;
  void *rview = NULL;
  hc_mpi_coll_block_t sb = {st, sendcount, 0};
  if (!in_place)
    sview = hc_mpi_coll_send_view(cx, sendbuf, 1, &sb, &sbytes, &soff);
  hc_mpi_coll_block_t *rb =
      sz != NULL ? hc_mpi_coll_blocks(cx, rt, size, recvcounts, displs) : NULL;
  if (rb != NULL)
    rview =
        hc_mpi_coll_recv_view(cx, recvbuf, size, rb, in_place, sz, sz + size);
  if (sview == NULL || rview == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  if (inter && vform)
    rc = hcomm_inter_allgatherv(sview, sbytes, rview, sz, sz + size, c->engine,
                                persist, &eng);
  else if (inter)
    rc = hcomm_inter_allgather(sview, sbytes, rview, sz[0], c->engine, persist,
                               &eng);
  else if (request == NULL && !persist && vform) /* blocking: may use shm */
    return hc_mpi_raise_status(
        c, fn,
        hc_mpi_coll_end(cx, hcomm_allgatherv(sview, sz[rank], rview, sz,
                                             sz + size, c->engine)));
  else if (request == NULL && !persist)
    return hc_mpi_raise_status(
        c, fn,
        hc_mpi_coll_end(cx, hcomm_allgather(sview, sz[0], rview, c->engine)));
  else if (vform && persist)
    rc = hcomm_allgatherv_init(sview, sz[rank], rview, sz, sz + size, c->engine,
                               &eng);
  else if (vform)
    rc = hcomm_iallgatherv(sview, sz[rank], rview, sz, sz + size, c->engine,
                           &eng);
  else if (persist || hx.defer) {
    hc_mpi_coll_hccl_plan_next(cx, c);
    rc = hcomm_allgather_init(sview, sz[0], rview, c->engine, &eng);
  } else
    rc = hcomm_iallgather(sview, sz[0], rview, c->engine, &eng);
  return hc_mpi_coll_finish(fn, c, cx, rc, eng, request);
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
static int move_allgather_entry(const char *fn, const void *sendbuf,
                                MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = hc_mpi_coll_fast_exchange(fn, 0, sendbuf, sendcount, sendtype,
                                     recvbuf, recvcount, recvtype, comm);
  if (rc < 0)
    rc = move_allgather(fn, sendbuf, sendcount, sendtype, recvbuf,
                        hc_mpi_vec_wide(&recvcount), hc_mpi_vec_int(NULL), 0,
                        recvtype, comm, NULL, 0);
  if (hc_trace_on)
    hc_trace_call(HC_TRACE_MPI_ALLGATHER, t0, -1, -1,
                  hc_mpi_trace_bytes(sendcount, sendtype));
  return rc;
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm) {
  return move_allgather_entry("MPI_Allgather", sendbuf, sendcount, sendtype,
                              recvbuf, recvcount, recvtype, comm);
}
HC_WEAK_ALIAS(MPI_Allgather, PMPI_Allgather);

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm) {
  return move_allgather_entry("MPI_Allgather_c", sendbuf, sendcount, sendtype,
                              recvbuf, recvcount, recvtype, comm);
}
HC_WEAK_ALIAS(MPI_Allgather_c, PMPI_Allgather_c);

static int move_iallgather_entry(const char *fn, const void *sendbuf,
                                 MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_allgather(fn, sendbuf, sendcount, sendtype, recvbuf,
                          hc_mpi_vec_wide(&recvcount), hc_mpi_vec_int(NULL), 0,
                          recvtype, comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IALLGATHER, t0, -1, -1,
                               hc_mpi_trace_bytes(sendcount, sendtype))
            : rc;
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request) {
  return move_iallgather_entry("MPI_Iallgather", sendbuf, sendcount, sendtype,
                               recvbuf, recvcount, recvtype, comm, request);
}
HC_WEAK_ALIAS(MPI_Iallgather, PMPI_Iallgather);

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request) {
  return move_iallgather_entry("MPI_Iallgather_c", sendbuf, sendcount, sendtype,
                               recvbuf, recvcount, recvtype, comm, request);
}
HC_WEAK_ALIAS(MPI_Iallgather_c, PMPI_Iallgather_c);

static int move_allgatherv_entry(const char *fn, const void *sendbuf,
                                 MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, hc_mpi_vec_t recvcounts,
                                 hc_mpi_vec_t displs, MPI_Datatype recvtype,
                                 MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_allgatherv_fast(fn, sendbuf, sendcount, sendtype, recvbuf,
                                recvcounts, displs, recvtype, comm);
  if (rc < 0)
    rc = move_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                        displs, 1, recvtype, comm, NULL, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_ALLGATHERV, t0, -1, -1,
                               hc_mpi_trace_bytes(sendcount, sendtype))
            : rc;
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm) {
  return move_allgatherv_entry("MPI_Allgatherv", sendbuf, sendcount, sendtype,
                               recvbuf, hc_mpi_vec_int(recvcounts),
                               hc_mpi_vec_int(displs), recvtype, comm);
}
HC_WEAK_ALIAS(MPI_Allgatherv, PMPI_Allgatherv);

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm) {
  return move_allgatherv_entry("MPI_Allgatherv_c", sendbuf, sendcount, sendtype,
                               recvbuf, hc_mpi_vec_wide(recvcounts),
                               hc_mpi_vec_wide(displs), recvtype, comm);
}
HC_WEAK_ALIAS(MPI_Allgatherv_c, PMPI_Allgatherv_c);

static int move_iallgatherv_entry(const char *fn, const void *sendbuf,
                                  MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, hc_mpi_vec_t recvcounts,
                                  hc_mpi_vec_t displs, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                          displs, 1, recvtype, comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IALLGATHERV, t0, -1, -1,
                               hc_mpi_trace_bytes(sendcount, sendtype))
            : rc;
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request) {
  return move_iallgatherv_entry("MPI_Iallgatherv", sendbuf, sendcount, sendtype,
                                recvbuf, hc_mpi_vec_int(recvcounts),
                                hc_mpi_vec_int(displs), recvtype, comm,
                                request);
}
HC_WEAK_ALIAS(MPI_Iallgatherv, PMPI_Iallgatherv);

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request) {
  return move_iallgatherv_entry("MPI_Iallgatherv_c", sendbuf, sendcount,
                                sendtype, recvbuf, hc_mpi_vec_wide(recvcounts),
                                hc_mpi_vec_wide(displs), recvtype, comm,
                                request);
}
HC_WEAK_ALIAS(MPI_Iallgatherv_c, PMPI_Iallgatherv_c);

static int move_allgather_init_entry(const char *fn, const void *sendbuf,
                                     MPI_Count sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm,
                                     MPI_Info info, MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return move_allgather(fn, sendbuf, sendcount, sendtype, recvbuf,
                        hc_mpi_vec_wide(&recvcount), hc_mpi_vec_int(NULL), 0,
                        recvtype, comm, request, 1);
}

int PMPI_Allgather_init(const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request) {
  return move_allgather_init_entry("MPI_Allgather_init", sendbuf, sendcount,
                                   sendtype, recvbuf, recvcount, recvtype, comm,
                                   info, request);
}
HC_WEAK_ALIAS(MPI_Allgather_init, PMPI_Allgather_init);

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return move_allgather_init_entry("MPI_Allgather_init_c", sendbuf, sendcount,
                                   sendtype, recvbuf, recvcount, recvtype, comm,
                                   info, request);
}
HC_WEAK_ALIAS(MPI_Allgather_init_c, PMPI_Allgather_init_c);

static int move_allgatherv_init_entry(const char *fn, const void *sendbuf,
                                      MPI_Count sendcount,
                                      MPI_Datatype sendtype, void *recvbuf,
                                      hc_mpi_vec_t recvcounts,
                                      hc_mpi_vec_t displs,
                                      MPI_Datatype recvtype, MPI_Comm comm,
                                      MPI_Info info, MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return move_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                        displs, 1, recvtype, comm, request, 1);
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request) {
  return move_allgatherv_init_entry(
      "MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
      hc_mpi_vec_int(recvcounts), hc_mpi_vec_int(displs), recvtype, comm, info,
      request);
}
HC_WEAK_ALIAS(MPI_Allgatherv_init, PMPI_Allgatherv_init);

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           const MPI_Count recvcounts[],
                           const MPI_Aint displs[], MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return move_allgatherv_init_entry(
      "MPI_Allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf,
      hc_mpi_vec_wide(recvcounts), hc_mpi_vec_wide(displs), recvtype, comm,
      info, request);
}
HC_WEAK_ALIAS(MPI_Allgatherv_init_c, PMPI_Allgatherv_init_c);

/*
 * Reducing collectives: Reduce, Allreduce, Scan, Exscan,
 * Reduce_scatter(_block) and their I-forms.  The engine reduces the user's
 * buffers directly for predefined types and user ops, and packed views of
 * them for a predefined op on a derived type (hc_mpi_op_resolve); device
 * memory is staged through host copies by coll_ctx.c.
 * request NULL: the blocking form (start and wait); persist: the _init
 * form (MPI-4 persistent collectives: the request is kept, inactive, and
 * each MPI_Start replays the one schedule).
 */
#include "mpi/coll_impl.h"
#include "mpi/devstage.h"
#include "mpi/mpi_trace.h"
#include "mpi/op.h"

/* A reduction's state, buffers staged (device memory: coll_ctx.c), the
 * plan of a non-blocking call HCCL may run where hx->defer; NULL when
 * memory ran out or a staging copy failed (then *rc is raised). */
static hc_mpi_coll_t *red_state(const char *fn, hc_mpi_comm_t *c,
                                const hc_mpi_red_t *red, const void **send,
                                void **recv, size_t in, size_t out,
                                int significant, int persist, hc_mpi_hccl_t *hx,
                                int *rc) {
  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  if (cx != NULL && hx != NULL && hx->defer &&
      hc_mpi_coll_hccl_defer(cx, hx) != 0) {
    *rc = hc_mpi_coll_nomem(fn, c, cx);
    return NULL;
  }
  if (cx != NULL &&
      hc_mpi_coll_red_stage(cx, red, send, recv, in, out, significant) == 0)
    return cx;
  *rc = hc_mpi_coll_nomem(fn, c, cx);
  return NULL;
}

/* A blocking reduction whose buffers the engine reads and writes as they
 * are (a predefined op on a predefined type, host memory) needs no state
 * of the face: nothing to stage, hold or unpack. */
static int red_direct(const hc_mpi_red_t *red, MPI_Op op, const void *send,
                      const void *recv) {
  return red->packed == 0 && red->type->predefined &&
         hc_mpi_op_is_predefined(op) && hc_mpi_coll_host(send, recv);
}

/* The fast path's test of a reduction's buffers where recv is a result
 * (send is HCOMM_IN_PLACE for MPI_IN_PLACE): what hc_mpi_coll_reduce_bufs
 * accepts, taken only when nothing is NULL (a NULL buffer of no elements
 * goes the general way, which accepts it too). */
static int red_fast_bufs(const void *send, const void *recv) {
  return send != NULL && recv != NULL && recv != MPI_IN_PLACE && send != recv;
}

/* The fast path of a blocking Reduce (hc_mpi_coll_fast): its result, or
 * -1 when the call goes the general way (which checks and raises). */
static int red_reduce_fast(const char *fn, const void *sendbuf, void *recvbuf,
                           MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                           int root, MPI_Comm comm) {
  hc_mpi_comm_t *c = hc_mpi_comm_try(comm);
  hc_mpi_coll_fast_t *f = c != NULL ? hc_mpi_coll_fast(c) : NULL;
  const hcomm_reduce_op_t *kernel =
      f != NULL ? hc_mpi_coll_fast_red(f, datatype, op) : NULL;
  if (kernel == NULL || count < 0 || root < 0 || root >= f->size)
    return -1;
  const void *send = sendbuf == MPI_IN_PLACE ? HCOMM_IN_PLACE : sendbuf;
  /* recvbuf means nothing but at the root. */
  int bufs_ok = f->rank == root ? red_fast_bufs(send, recvbuf)
                                : sendbuf != NULL && sendbuf != MPI_IN_PLACE;
  if (!bufs_ok || !hc_mpi_coll_host(send, recvbuf))
    return -1;
  return hc_mpi_raise_status(c, fn,
                             hcomm_reduce(send, recvbuf, (size_t)count, kernel,
                                          root, c->engine));
}

/* The fast path of a blocking Allreduce, as red_reduce_fast. */
static int red_allreduce_fast(const char *fn, const void *sendbuf,
                              void *recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
  hc_mpi_comm_t *c = hc_mpi_comm_try(comm);
  hc_mpi_coll_fast_t *f = c != NULL ? hc_mpi_coll_fast(c) : NULL;
  const hcomm_reduce_op_t *kernel =
      f != NULL ? hc_mpi_coll_fast_red(f, datatype, op) : NULL;
  const void *send = sendbuf == MPI_IN_PLACE ? HCOMM_IN_PLACE : sendbuf;
  if (kernel == NULL || count < 0 || !red_fast_bufs(send, recvbuf) ||
      !hc_mpi_coll_host(send, recvbuf))
    return -1;
  return hc_mpi_raise_status(
      c, fn, hcomm_allreduce(send, recvbuf, (size_t)count, kernel, c->engine));
}

/* Reduce on an intercommunicator: the root (MPI_ROOT) receives the other
 * group's combination and sends nothing, MPI_PROC_NULL ranks take no part,
 * and the other group sends without receiving. */
static int red_rooted_inter(const char *fn, hc_mpi_comm_t *c, hc_mpi_red_t *red,
                            const void *sendbuf, void *recvbuf, MPI_Count count,
                            int root, MPI_Request *request, int persist) {
  hcomm_request_t *eng = NULL;
  int is_root = root == MPI_ROOT, rc = MPI_SUCCESS;
  if (root == MPI_PROC_NULL)
    sendbuf = recvbuf = NULL;
  else if (is_root)
    rc = hc_mpi_coll_reduce_bufs(fn, c, recvbuf, NULL, count, 0, red->type);
  else
    rc = hc_mpi_coll_reduce_bufs(fn, c, sendbuf, NULL, count, 0, red->type);
  if (rc != MPI_SUCCESS)
    return rc;
  /* Only the buffer this rank uses is staged. */
  const void *send =
      is_root || root == MPI_PROC_NULL ? HCOMM_IN_PLACE : sendbuf;
  size_t n = (size_t)count, in = root >= 0 ? n : 0;
  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  if (cx == NULL ||
      (root != MPI_PROC_NULL &&
       hc_mpi_coll_red_stage(cx, red, &send, &recvbuf, in, n, is_root) != 0))
    return hc_mpi_coll_nomem(fn, c, cx);
  hc_status_t st = hcomm_inter_reduce(send, recvbuf, hc_mpi_red_elems(red, n),
                                       &red->op, root, c->engine, persist, &eng);
  return hc_mpi_coll_finish(fn, c, cx, st, eng, request);
}

static int red_rooted(const char *fn, const void *sendbuf, void *recvbuf,
                      MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                      int root, MPI_Comm comm, MPI_Request *request,
                      int persist) {
  hc_mpi_comm_t *c = NULL;
  hc_mpi_red_t red;
  hcomm_request_t *eng = NULL;
  int rc =
      hc_mpi_coll_enter_rooted(fn, comm, root, count, datatype, request, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_coll_reduce_args(fn, c, count, datatype, op, &red);
  if (rc != MPI_SUCCESS)
    return rc;
  if (hc_mpi_coll_inter(c))
    return red_rooted_inter(fn, c, &red, sendbuf, recvbuf, count, root,
                            request, persist);
  int is_root = hcomm_comm_rank(c->engine) == root;
  if (sendbuf == MPI_IN_PLACE && !is_root)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE is allowed only at the root");
  const void *src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  rc = hc_mpi_coll_reduce_bufs(fn, c, src, recvbuf, count,
                               is_root && sendbuf != MPI_IN_PLACE, red.type);
  if (rc == MPI_SUCCESS && is_root && count > 0 && !recvbuf &&
      red.type->true_lb == 0)
    rc = hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "recvbuf is NULL at the root");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_hccl_t hx = {.request = request, .persist = persist};
  if (hc_mpi_hccl_reduce(fn, c, HCOMM_HCCL_REDUCE, sendbuf, recvbuf, count,
                         red.type, op, root, &hx, &rc))
    return rc;
  const void *send = sendbuf == MPI_IN_PLACE ? HCOMM_IN_PLACE : sendbuf;
  size_t n = (size_t)count;
  if (request == NULL && red_direct(&red, op, send, recvbuf))
    return hc_mpi_raise_status(
        c, fn, hcomm_reduce(send, recvbuf, n, &red.op, root, c->engine));
  hc_mpi_coll_t *cx = red_state(fn, c, &red, &send, &recvbuf, n, n, is_root,
                                persist || hx.defer, &hx, &rc);
  if (cx == NULL)
    return rc;
  size_t elems = hc_mpi_red_elems(&red, n);
  if (request == NULL) /* the engine's blocking form may use shared memory */
    return hc_mpi_raise_status(
        c, fn,
        hc_mpi_coll_end(cx, hcomm_reduce(send, recvbuf, elems, &red.op, root,
                                         c->engine)));
  hc_mpi_coll_hccl_plan_next(cx, c);
  hc_status_t st =
      persist || hx.defer
          ? hcomm_reduce_init(send, recvbuf, elems, &red.op, root, c->engine,
                              &eng)
          : hcomm_ireduce(send, recvbuf, elems, &red.op, root, c->engine, &eng);
  return hc_mpi_coll_finish(fn, c, cx, st, eng, request);
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
static int red_reduce_entry(const char *fn, const void *sendbuf, void *recvbuf,
                            MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                            int root, MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc =
      red_reduce_fast(fn, sendbuf, recvbuf, count, datatype, op, root, comm);
  if (rc < 0)
    rc = red_rooted(fn, sendbuf, recvbuf, count, datatype, op, root, comm,
                    NULL, 0);
  if (hc_trace_on)
    hc_trace_call(HC_TRACE_MPI_REDUCE, t0, root, -1,
                  hc_mpi_trace_bytes(count, datatype));
  return rc;
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  return red_reduce_entry("MPI_Reduce", sendbuf, recvbuf, count, datatype, op,
                          root, comm);
}
HC_WEAK_ALIAS(MPI_Reduce, PMPI_Reduce);

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  return red_reduce_entry("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op,
                          root, comm);
}
HC_WEAK_ALIAS(MPI_Reduce_c, PMPI_Reduce_c);

static int red_ireduce_entry(const char *fn, const void *sendbuf, void *recvbuf,
                             MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                             int root, MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_rooted(fn, sendbuf, recvbuf, count, datatype, op, root, comm,
                      request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IREDUCE, t0, root, -1,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                 MPI_Request *request) {
  return red_ireduce_entry("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op,
                           root, comm, request);
}
HC_WEAK_ALIAS(MPI_Ireduce, PMPI_Ireduce);

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                   MPI_Request *request) {
  return red_ireduce_entry("MPI_Ireduce_c", sendbuf, recvbuf, count, datatype,
                           op, root, comm, request);
}
HC_WEAK_ALIAS(MPI_Ireduce_c, PMPI_Ireduce_c);

static int red_reduce_init_entry(const char *fn, const void *sendbuf,
                                 void *recvbuf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Op op, int root,
                                 MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return red_rooted(fn, sendbuf, recvbuf, count, datatype, op, root, comm,
                    request, 1);
}

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request) {
  return red_reduce_init_entry("MPI_Reduce_init", sendbuf, recvbuf, count,
                               datatype, op, root, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Reduce_init, PMPI_Reduce_init);

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return red_reduce_init_entry("MPI_Reduce_init_c", sendbuf, recvbuf, count,
                               datatype, op, root, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Reduce_init_c, PMPI_Reduce_init_c);

enum red_kind { RED_ALLREDUCE, RED_SCAN, RED_EXSCAN };

/* MPI_IN_PLACE is not defined on an intercommunicator. */
static int red_no_in_place(const char *fn, hc_mpi_comm_t *c,
                           const void *sendbuf) {
  if (sendbuf != MPI_IN_PLACE || !hc_mpi_coll_inter(c))
    return MPI_SUCCESS;
  return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                      "MPI_IN_PLACE is not allowed on an intercommunicator");
}

/* Allreduce, scan and exscan share their arguments and MPI_IN_PLACE rule. */
static int red_all(const char *fn, int kind, const void *sendbuf, void *recvbuf,
                   MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request, int persist) {
  hc_mpi_comm_t *c = NULL;
  hc_mpi_red_t red;
  hcomm_request_t *eng = NULL;
  int rc = hc_mpi_coll_enter(fn, comm, request != NULL, request, &c);
  if (rc == MPI_SUCCESS && kind != RED_ALLREDUCE)
    rc = hc_mpi_coll_intra_only(fn, c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_coll_reduce_args(fn, c, count, datatype, op, &red);
  if (rc == MPI_SUCCESS)
    rc = red_no_in_place(fn, c, sendbuf);
  if (rc != MPI_SUCCESS)
    return rc;
  const void *src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  rc = hc_mpi_coll_reduce_bufs(fn, c, src, recvbuf, count,
                               sendbuf != MPI_IN_PLACE, red.type);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_hccl_t hx = {.request = request, .persist = persist};
  if (kind == RED_ALLREDUCE &&
      hc_mpi_hccl_reduce(fn, c, HCOMM_HCCL_ALLREDUCE, sendbuf, recvbuf, count,
                         red.type, op, 0, &hx, &rc))
    return rc;
  const void *send = sendbuf == MPI_IN_PLACE ? HCOMM_IN_PLACE : sendbuf;
  size_t n = (size_t)count;
  /* Exscan leaves rank 0's recvbuf untouched: no view to unpack there. */
  int significant = kind != RED_EXSCAN || hcomm_comm_rank(c->engine) > 0 ||
                    send == HCOMM_IN_PLACE;
  if (request == NULL && kind == RED_ALLREDUCE && !hc_mpi_coll_inter(c) &&
      red_direct(&red, op, send, recvbuf))
    return hc_mpi_raise_status(
        c, fn, hcomm_allreduce(send, recvbuf, n, &red.op, c->engine));
  hc_mpi_coll_t *cx = red_state(fn, c, &red, &send, &recvbuf, n, n, significant,
                                persist || hx.defer, &hx, &rc);
  if (cx == NULL)
    return rc;
  hc_status_t st;
  size_t elems = hc_mpi_red_elems(&red, n);
  hc_mpi_coll_hccl_plan_next(cx, c);
  if (hx.defer) /* the plan of the non-blocking allreduce */
    st = hcomm_allreduce_init(send, recvbuf, elems, &red.op, c->engine, &eng);
  else if (hc_mpi_coll_inter(
               c)) /* allreduce: scans are intracommunicator only */
    st = hcomm_inter_allreduce(send, recvbuf, elems, &red.op, c->engine,
                               persist, &eng);
  else if (persist && kind == RED_SCAN)
    st = hcomm_scan_init(send, recvbuf, elems, &red.op, c->engine, &eng);
  else if (persist && kind == RED_EXSCAN)
    st = hcomm_exscan_init(send, recvbuf, elems, &red.op, c->engine, &eng);
  else if (persist)
    st = hcomm_allreduce_init(send, recvbuf, elems, &red.op, c->engine, &eng);
  else if (kind == RED_SCAN)
    st = hcomm_iscan(send, recvbuf, elems, &red.op, c->engine, &eng);
  else if (kind == RED_EXSCAN)
    st = hcomm_iexscan(send, recvbuf, elems, &red.op, c->engine, &eng);
  else if (request == NULL) /* the blocking form may use shared memory */
    return hc_mpi_raise_status(
        c, fn,
        hc_mpi_coll_end(cx, hcomm_allreduce(send, recvbuf, elems, &red.op,
                                            c->engine)));
  else
    st = hcomm_iallreduce(send, recvbuf, elems, &red.op, c->engine, &eng);
  return hc_mpi_coll_finish(fn, c, cx, st, eng, request);
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
static int red_allreduce_entry(const char *fn, const void *sendbuf,
                               void *recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_allreduce_fast(fn, sendbuf, recvbuf, count, datatype, op, comm);
  if (rc < 0)
    rc = red_all(fn, RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op,
                 comm, NULL, 0);
  if (hc_trace_on)
    hc_trace_call(HC_TRACE_MPI_ALLREDUCE, t0, -1, -1,
                  hc_mpi_trace_bytes(count, datatype));
  return rc;
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return red_allreduce_entry("MPI_Allreduce", sendbuf, recvbuf, count, datatype,
                             op, comm);
}
HC_WEAK_ALIAS(MPI_Allreduce, PMPI_Allreduce);

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return red_allreduce_entry("MPI_Allreduce_c", sendbuf, recvbuf, count,
                             datatype, op, comm);
}
HC_WEAK_ALIAS(MPI_Allreduce_c, PMPI_Allreduce_c);

static int red_iallreduce_entry(const char *fn, const void *sendbuf,
                                void *recvbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_all(fn, RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op,
                   comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IALLREDUCE, t0, -1, -1,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request) {
  return red_iallreduce_entry("MPI_Iallreduce", sendbuf, recvbuf, count,
                              datatype, op, comm, request);
}
HC_WEAK_ALIAS(MPI_Iallreduce, PMPI_Iallreduce);

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                      MPI_Request *request) {
  return red_iallreduce_entry("MPI_Iallreduce_c", sendbuf, recvbuf, count,
                              datatype, op, comm, request);
}
HC_WEAK_ALIAS(MPI_Iallreduce_c, PMPI_Iallreduce_c);

static int red_scan_entry(const char *fn, const void *sendbuf, void *recvbuf,
                          MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_all(fn, RED_SCAN, sendbuf, recvbuf, count, datatype, op, comm,
                   NULL, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_SCAN, t0, -1, -1,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return red_scan_entry("MPI_Scan", sendbuf, recvbuf, count, datatype, op,
                        comm);
}
HC_WEAK_ALIAS(MPI_Scan, PMPI_Scan);

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return red_scan_entry("MPI_Scan_c", sendbuf, recvbuf, count, datatype, op,
                        comm);
}
HC_WEAK_ALIAS(MPI_Scan_c, PMPI_Scan_c);

static int red_iscan_entry(const char *fn, const void *sendbuf, void *recvbuf,
                           MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_all(fn, RED_SCAN, sendbuf, recvbuf, count, datatype, op, comm,
                   request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_ISCAN, t0, -1, -1,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request *request) {
  return red_iscan_entry("MPI_Iscan", sendbuf, recvbuf, count, datatype, op,
                         comm, request);
}
HC_WEAK_ALIAS(MPI_Iscan, PMPI_Iscan);

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request *request) {
  return red_iscan_entry("MPI_Iscan_c", sendbuf, recvbuf, count, datatype, op,
                         comm, request);
}
HC_WEAK_ALIAS(MPI_Iscan_c, PMPI_Iscan_c);

static int red_exscan_entry(const char *fn, const void *sendbuf, void *recvbuf,
                            MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_all(fn, RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm,
                   NULL, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_EXSCAN, t0, -1, -1,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return red_exscan_entry("MPI_Exscan", sendbuf, recvbuf, count, datatype, op,
                          comm);
}
HC_WEAK_ALIAS(MPI_Exscan, PMPI_Exscan);

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return red_exscan_entry("MPI_Exscan_c", sendbuf, recvbuf, count, datatype, op,
                          comm);
}
HC_WEAK_ALIAS(MPI_Exscan_c, PMPI_Exscan_c);

static int red_iexscan_entry(const char *fn, const void *sendbuf, void *recvbuf,
                             MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_all(fn, RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm,
                   request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IEXSCAN, t0, -1, -1,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request *request) {
  return red_iexscan_entry("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op,
                           comm, request);
}
HC_WEAK_ALIAS(MPI_Iexscan, PMPI_Iexscan);

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request) {
  return red_iexscan_entry("MPI_Iexscan_c", sendbuf, recvbuf, count, datatype,
                           op, comm, request);
}
HC_WEAK_ALIAS(MPI_Iexscan_c, PMPI_Iexscan_c);

/* The persistent forms of red_all's three (MPI_*_init). */
static int red_all_init(const char *fn, int kind, const void *sendbuf,
                        void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return red_all(fn, kind, sendbuf, recvbuf, count, datatype, op, comm, request,
                 1);
}

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request) {
  return red_all_init("MPI_Allreduce_init", RED_ALLREDUCE, sendbuf, recvbuf,
                      count, datatype, op, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Allreduce_init, PMPI_Allreduce_init);

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request) {
  return red_all_init("MPI_Allreduce_init_c", RED_ALLREDUCE, sendbuf, recvbuf,
                      count, datatype, op, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Allreduce_init_c, PMPI_Allreduce_init_c);

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request) {
  return red_all_init("MPI_Scan_init", RED_SCAN, sendbuf, recvbuf, count,
                      datatype, op, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Scan_init, PMPI_Scan_init);

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request) {
  return red_all_init("MPI_Scan_init_c", RED_SCAN, sendbuf, recvbuf, count,
                      datatype, op, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Scan_init_c, PMPI_Scan_init_c);

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request) {
  return red_all_init("MPI_Exscan_init", RED_EXSCAN, sendbuf, recvbuf, count,
                      datatype, op, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Exscan_init, PMPI_Exscan_init);

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request) {
  return red_all_init("MPI_Exscan_init_c", RED_EXSCAN, sendbuf, recvbuf, count,
                      datatype, op, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Exscan_init_c, PMPI_Exscan_init_c);

/* vform 0: every block is block elements (the _block forms). */
static int red_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                       hc_mpi_vec_t recvcounts, int vform, MPI_Count block,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Request *request, int persist) {
  hc_mpi_comm_t *c = NULL;
  hc_mpi_red_t red;
  hcomm_request_t *eng = NULL;
  int rc = hc_mpi_coll_enter(fn, comm, request != NULL, request, &c);
  if (rc == MPI_SUCCESS)
    rc = red_no_in_place(fn, c, sendbuf);
  if (rc != MPI_SUCCESS)
    return rc;
  /* recvcounts: one per rank of the local group, on an intercommunicator
   * too. */
  int size = hcomm_comm_size(c->engine), rank = hcomm_comm_rank(c->engine);
  if (vform)
    rc = hc_mpi_coll_counts(fn, c, recvcounts, size, "recvcounts");
  MPI_Count total = 0, mine = 0;
  for (int r = 0; rc == MPI_SUCCESS && r < size; r++)
    total += vform ? hc_mpi_vec_at(recvcounts, r) : block;
  if (rc == MPI_SUCCESS)
    mine = vform ? hc_mpi_vec_at(recvcounts, rank) : block;
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_coll_reduce_args(fn, c, vform ? 0 : block, datatype, op, &red);
  if (rc != MPI_SUCCESS)
    return rc;
  if (sendbuf != MPI_IN_PLACE)
    rc = hc_mpi_coll_reduce_bufs(fn, c, sendbuf, recvbuf, total, 0, red.type);
  if (rc == MPI_SUCCESS && mine > 0 && recvbuf == NULL &&
      red.type->true_lb == 0)
    rc = hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "recvbuf is NULL");
  if (rc == MPI_SUCCESS && mine > 0 && recvbuf == MPI_IN_PLACE)
    rc = hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                      "MPI_IN_PLACE is not a receive buffer");
  if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE && sendbuf == recvbuf &&
      total > 0)
    rc = hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                      "sendbuf and recvbuf are the same buffer "
                      "(use MPI_IN_PLACE)");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_hccl_t hx = {.request = request, .persist = persist};
  if (!vform && hc_mpi_hccl_reduce(fn, c, HCOMM_HCCL_REDUCE_SCATTER, sendbuf,
                                   recvbuf, block, red.type, op, 0, &hx, &rc))
    return rc;
  const void *in = sendbuf == MPI_IN_PLACE ? HCOMM_IN_PLACE : sendbuf;
  if (request == NULL && !persist && !hc_mpi_coll_inter(c) &&
      (!vform || size <= HC_MPI_COLL_STACK_RANKS) &&
      red_direct(&red, op, in, recvbuf)) { /* no view, nothing allocated */
    if (!vform)
      return hc_mpi_raise_status(
          c, fn,
          hcomm_reduce_scatter_block(in, recvbuf, (size_t)block, &red.op,
                                     c->engine));
    size_t elems[HC_MPI_COLL_STACK_RANKS]; /* the counts, checked above */
    for (int r = 0; r < size; r++)
      elems[r] = (size_t)hc_mpi_vec_at(recvcounts, r);
    return hc_mpi_raise_status(
        c, fn,
        hcomm_reduce_scatter(in, recvbuf, elems, &red.op, c->engine));
  }
  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  if (cx != NULL && hx.defer && hc_mpi_coll_hccl_defer(cx, &hx) != 0)
    return hc_mpi_coll_nomem(fn, c, cx);
  size_t *counts = cx ? hc_mpi_coll_tmp(cx, (size_t)size * sizeof *counts) : 0;
  if (counts == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  for (int r = 0; r < size; r++)
    counts[r] = hc_mpi_red_elems(
        &red, (size_t)(vform ? hc_mpi_vec_at(recvcounts, r) : block));
  const void *send = sendbuf == MPI_IN_PLACE ? HCOMM_IN_PLACE : sendbuf;
  if (hc_mpi_coll_red_stage(cx, &red, &send, &recvbuf, (size_t)total,
                            (size_t)mine, 1) != 0)
    return hc_mpi_coll_nomem(fn, c, cx);
  if (request == NULL && !persist && !hc_mpi_coll_inter(c))
    return hc_mpi_raise_status(/* blocking: may use shared memory */
                               c, fn,
                               hc_mpi_coll_end(cx, hcomm_reduce_scatter(
                                                       send, recvbuf, counts,
                                                       &red.op, c->engine)));
  hc_mpi_coll_hccl_plan_next(cx, c);
  hc_status_t st =
      hc_mpi_coll_inter(c)
          ? hcomm_inter_reduce_scatter(send, recvbuf, counts, &red.op,
                                       c->engine, persist, &eng)
      : persist || hx.defer
          ? hcomm_reduce_scatter_init(send, recvbuf, counts, &red.op, c->engine,
                                      &eng)
          : hcomm_ireduce_scatter(send, recvbuf, counts, &red.op, c->engine,
                                  &eng);
  return hc_mpi_coll_finish(fn, c, cx, st, eng, request);
}

static int red_reduce_scatter_entry(const char *fn, const void *sendbuf,
                                    void *recvbuf, hc_mpi_vec_t recvcounts,
                                    MPI_Datatype datatype, MPI_Op op,
                                    MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_scatter(fn, sendbuf, recvbuf, recvcounts, 1, 0, datatype, op,
                       comm, NULL, 0);
  return t0 ? hc_mpi_trace_end(
                  rc, HC_TRACE_MPI_REDUCE_SCATTER, t0, -1, -1,
                  hc_mpi_trace_bytes_local(recvcounts, datatype, comm))
            : rc;
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm) {
  return red_reduce_scatter_entry("MPI_Reduce_scatter", sendbuf, recvbuf,
                                  hc_mpi_vec_int(recvcounts), datatype, op,
                                  comm);
}
HC_WEAK_ALIAS(MPI_Reduce_scatter, PMPI_Reduce_scatter);

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
                          const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm) {
  return red_reduce_scatter_entry("MPI_Reduce_scatter_c", sendbuf, recvbuf,
                                  hc_mpi_vec_wide(recvcounts), datatype, op,
                                  comm);
}
HC_WEAK_ALIAS(MPI_Reduce_scatter_c, PMPI_Reduce_scatter_c);

static int red_ireduce_scatter_entry(const char *fn, const void *sendbuf,
                                     void *recvbuf, hc_mpi_vec_t recvcounts,
                                     MPI_Datatype datatype, MPI_Op op,
                                     MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_scatter(fn, sendbuf, recvbuf, recvcounts, 1, 0, datatype, op,
                       comm, request, 0);
  return t0 ? hc_mpi_trace_end(
                  rc, HC_TRACE_MPI_IREDUCE_SCATTER, t0, -1, -1,
                  hc_mpi_trace_bytes_local(recvcounts, datatype, comm))
            : rc;
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                         const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  return red_ireduce_scatter_entry("MPI_Ireduce_scatter", sendbuf, recvbuf,
                                   hc_mpi_vec_int(recvcounts), datatype, op,
                                   comm, request);
}
HC_WEAK_ALIAS(MPI_Ireduce_scatter, PMPI_Ireduce_scatter);

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf,
                           const MPI_Count recvcounts[], MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  return red_ireduce_scatter_entry("MPI_Ireduce_scatter_c", sendbuf, recvbuf,
                                   hc_mpi_vec_wide(recvcounts), datatype, op,
                                   comm, request);
}
HC_WEAK_ALIAS(MPI_Ireduce_scatter_c, PMPI_Ireduce_scatter_c);

static int red_reduce_scatter_block_entry(const char *fn, const void *sendbuf,
                                          void *recvbuf, MPI_Count recvcount,
                                          MPI_Datatype datatype, MPI_Op op,
                                          MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_scatter(fn, sendbuf, recvbuf, hc_mpi_vec_int(NULL), 0, recvcount,
                       datatype, op, comm, NULL, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_REDUCE_SCATTER_BLOCK, t0, -1,
                               -1, hc_mpi_trace_bytes(recvcount, datatype))
            : rc;
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return red_reduce_scatter_block_entry("MPI_Reduce_scatter_block", sendbuf,
                                        recvbuf, recvcount, datatype, op, comm);
}
HC_WEAK_ALIAS(MPI_Reduce_scatter_block, PMPI_Reduce_scatter_block);

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm) {
  return red_reduce_scatter_block_entry("MPI_Reduce_scatter_block_c", sendbuf,
                                        recvbuf, recvcount, datatype, op, comm);
}
HC_WEAK_ALIAS(MPI_Reduce_scatter_block_c, PMPI_Reduce_scatter_block_c);

static int red_ireduce_scatter_block_entry(const char *fn, const void *sendbuf,
                                           void *recvbuf, MPI_Count recvcount,
                                           MPI_Datatype datatype, MPI_Op op,
                                           MPI_Comm comm,
                                           MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = red_scatter(fn, sendbuf, recvbuf, hc_mpi_vec_int(NULL), 0, recvcount,
                       datatype, op, comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IREDUCE_SCATTER_BLOCK, t0, -1,
                               -1, hc_mpi_trace_bytes(recvcount, datatype))
            : rc;
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                               int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request *request) {
  return red_ireduce_scatter_block_entry("MPI_Ireduce_scatter_block", sendbuf,
                                         recvbuf, recvcount, datatype, op, comm,
                                         request);
}
HC_WEAK_ALIAS(MPI_Ireduce_scatter_block, PMPI_Ireduce_scatter_block);

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                                 MPI_Count recvcount, MPI_Datatype datatype,
                                 MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request) {
  return red_ireduce_scatter_block_entry("MPI_Ireduce_scatter_block_c", sendbuf,
                                         recvbuf, recvcount, datatype, op, comm,
                                         request);
}
HC_WEAK_ALIAS(MPI_Ireduce_scatter_block_c, PMPI_Ireduce_scatter_block_c);

static int red_reduce_scatter_init_entry(const char *fn, const void *sendbuf,
                                         void *recvbuf, hc_mpi_vec_t recvcounts,
                                         MPI_Datatype datatype, MPI_Op op,
                                         MPI_Comm comm, MPI_Info info,
                                         MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return red_scatter(fn, sendbuf, recvbuf, recvcounts, 1, 0, datatype, op, comm,
                     request, 1);
}

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
                             const int recvcounts[], MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request) {
  return red_reduce_scatter_init_entry("MPI_Reduce_scatter_init", sendbuf,
                                       recvbuf, hc_mpi_vec_int(recvcounts),
                                       datatype, op, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Reduce_scatter_init, PMPI_Reduce_scatter_init);

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf,
                               const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request) {
  return red_reduce_scatter_init_entry("MPI_Reduce_scatter_init_c", sendbuf,
                                       recvbuf, hc_mpi_vec_wide(recvcounts),
                                       datatype, op, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Reduce_scatter_init_c, PMPI_Reduce_scatter_init_c);

static int red_reduce_scatter_block_init_entry(
    const char *fn, const void *sendbuf, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
    MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return red_scatter(fn, sendbuf, recvbuf, hc_mpi_vec_int(NULL), 0, recvcount,
                     datatype, op, comm, request, 1);
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf,
                                   int recvcount, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request) {
  return red_reduce_scatter_block_init_entry("MPI_Reduce_scatter_block_init",
                                             sendbuf, recvbuf, recvcount,
                                             datatype, op, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Reduce_scatter_block_init, PMPI_Reduce_scatter_block_init);

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf,
                                     MPI_Count recvcount, MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request) {
  return red_reduce_scatter_block_init_entry("MPI_Reduce_scatter_block_init_c",
                                             sendbuf, recvbuf, recvcount,
                                             datatype, op, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Reduce_scatter_block_init_c,
              PMPI_Reduce_scatter_block_init_c);

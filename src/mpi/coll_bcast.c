/*
 * Bcast in its blocking, I- and persistent (MPI_Bcast_init) forms, int and
 * large-count: one function serves the three (request NULL: start and
 * wait; persist: the request kept inactive for MPI_Start).  Beside the
 * general way through coll_ctx.c's byte views: the blocking fast path (a
 * predefined dense type in host memory), chunks for a large blocking one,
 * a stream for a large derived type in the other forms, and HCCL where it
 * may run the call (coll_hccl.c).
 */
#include "mpi/coll_impl.h"
#include "mpi/devstage.h"
#include "mpi/mpi_trace.h"

#include <stdint.h>

/* One block of count elements at the buffer's start. */
static hc_mpi_coll_block_t move_one(const hc_mpi_type_t *t, MPI_Count count) {
  hc_mpi_coll_block_t b = {t, count, 0};
  return b;
}

/* A blocking Bcast of more than this many bytes moves in chunks of it, so
 * a non-contiguous type costs a chunk-sized temporary, not one of the
 * whole message.  Every rank chunks alike: the byte count (the type
 * signature's size) is the same at all of them. */
#define MOVE_BCAST_CHUNK ((size_t)4 << 20)

/* Each chunk is the packed stream [at, at + len): packed from, or unpacked
 * into, buffer around its own engine broadcast (host memory of a
 * non-contiguous type), or a slice of the whole view (a dense buffer used
 * as it is, or a device buffer staged whole). */
static int move_bcast_chunked(const char *fn, hc_mpi_comm_t *c, void *buffer,
                              const hc_mpi_type_t *t, MPI_Count count,
                              int root) {
  int is_root = hcomm_comm_rank(c->engine) == root;
  size_t bytes = (size_t)count * (size_t)t->size, vb, off;
  hcomm_mem_info_t info;
  int stream =
      !hc_mpi_dev_classify(buffer, &info) &&
      !(t->contiguous && (MPI_Aint)t->size == t->extent && t->true_lb == 0);
  hc_mpi_coll_t *cx = hc_mpi_coll_new();
  hc_mpi_coll_block_t b = move_one(t, count);
  char *view = NULL;
  if (cx != NULL && stream)
    view = hc_mpi_coll_tmp(cx, MOVE_BCAST_CHUNK);
  else if (cx != NULL && is_root)
    view = (char *)hc_mpi_coll_send_view(cx, buffer, 1, &b, &vb, &off);
  else if (cx != NULL)
    view = hc_mpi_coll_recv_view(cx, buffer, 1, &b, 0, &vb, &off);
  if (view == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  hc_status_t st = HC_OK;
  for (size_t at = 0; st == HC_OK && at < bytes; at += MOVE_BCAST_CHUNK) {
    size_t len = bytes - at < MOVE_BCAST_CHUNK ? bytes - at : MOVE_BCAST_CHUNK;
    char *p = stream ? view : view + at;
    if (stream && is_root)
      hc_mpi_type_pack_range(t, buffer, (MPI_Count)at, (MPI_Count)len, p);
    st = hcomm_bcast(p, len, root, c->engine);
    if (st == HC_OK && stream && !is_root)
      hc_mpi_type_unpack_range(t, p, (MPI_Count)at, (MPI_Count)len, buffer);
  }
  return hc_mpi_raise_status(c, fn, hc_mpi_coll_end(cx, st));
}

/* Above HC_MPI_COLL_STREAM_MIN packed bytes an I- or persistent Bcast of
 * a derived type in host memory streams it through the engine
 * (hcomm_ibcast_acc). */
static int move_bcast_stream(const char *fn, hc_mpi_comm_t *c, void *buffer,
                             const hc_mpi_type_t *t, size_t bytes, int root,
                             MPI_Request *request, int persist) {
  hcomm_request_t *eng = NULL;
  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  const hcomm_accessor_t *acc =
      cx != NULL ? hc_mpi_coll_stream(cx, buffer, t) : NULL;
  if (acc == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  hc_status_t st = persist
                       ? hcomm_bcast_acc_init(acc, bytes, root, c->engine, &eng)
                       : hcomm_ibcast_acc(acc, bytes, root, c->engine, &eng);
  return hc_mpi_coll_finish(fn, c, cx, st, eng, request);
}

/* The fast path of a blocking Bcast (hc_mpi_coll_fast): its result, or -1
 * when the call goes the general way (which checks and raises). */
static int move_bcast_fast(const char *fn, void *buffer, MPI_Count count,
                           MPI_Datatype datatype, int root, MPI_Comm comm) {
  hc_mpi_comm_t *c = hc_mpi_comm_try(comm);
  hc_mpi_coll_fast_t *f = c != NULL ? hc_mpi_coll_fast(c) : NULL;
  const hc_mpi_type_t *t =
      f != NULL ? hc_mpi_coll_fast_move(f, datatype) : NULL;
  /* A message above one chunk is chunked by the general path; below it
   * count * size cannot overflow. */
  if (t == NULL || count < 0 || (uint64_t)count > MOVE_BCAST_CHUNK ||
      root < 0 || root >= f->size || buffer == NULL || buffer == MPI_IN_PLACE)
    return -1;
  size_t bytes = (size_t)count * (size_t)t->size;
  if (bytes > MOVE_BCAST_CHUNK || !hc_mpi_coll_host(buffer, NULL))
    return -1;
  return hc_mpi_raise_status(c, fn,
                             hcomm_bcast(buffer, bytes, root, c->engine));
}

/* request NULL: the blocking form (start and wait); persist: the _init
 * form (request kept, inactive). */
static int move_bcast(const char *fn, void *buffer, MPI_Count count,
                      MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Request *request, int persist) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *t = NULL;
  hcomm_request_t *eng = NULL;
  size_t bytes = 0, off;
  int rc =
      hc_mpi_coll_enter_rooted(fn, comm, root, count, datatype, request, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  /* MPI_PROC_NULL in an intercommunicator's root group: no buffer. */
  int idle = hc_mpi_coll_idle(c, root), inter = hc_mpi_coll_inter(c);
  if (!idle)
    rc = hc_mpi_coll_type(fn, c, count, datatype, &t);
  if (rc == MPI_SUCCESS && !idle)
    rc = hc_mpi_coll_buf_check(fn, c, buffer, count > 0, t, "buffer");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_hccl_t hx = {.request = request, .persist = persist};
  if (!inter && hc_mpi_hccl_bcast(fn, c, buffer, count, t, root, &hx, &rc))
    return rc;
  if (request == NULL && !inter &&
      (size_t)count * (size_t)t->size > MOVE_BCAST_CHUNK)
    return move_bcast_chunked(fn, c, buffer, t, count, root);
  hcomm_mem_info_t info;
  size_t total = idle ? 0 : (size_t)count * (size_t)t->size;
  if (request != NULL && !inter && !hx.defer && !hc_mpi_type_dense(t) &&
      total > HC_MPI_COLL_STREAM_MIN && !hc_mpi_dev_classify(buffer, &info))
    return move_bcast_stream(fn, c, buffer, t, total, root, request, persist);
  /* Blocking, dense and in host memory: the engine takes the buffer as it
   * is (and may broadcast it in shared memory); no state to make. */
  if (request == NULL && !inter && hc_mpi_type_dense(t) &&
      !hc_mpi_dev_classify(buffer, &info))
    return hc_mpi_raise_status(c, fn,
                               hcomm_bcast(count > 0 ? buffer : NULL,
                                           (size_t)count * (size_t)t->size,
                                           root, c->engine));
  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  if (cx != NULL && hx.defer && hc_mpi_coll_hccl_defer(cx, &hx) != 0)
    return hc_mpi_coll_nomem(fn, c, cx);
  hc_mpi_coll_block_t b = move_one(t, count);
  void *view = NULL;
  if (cx != NULL && idle)
    view = buffer;
  else if (cx != NULL && hc_mpi_coll_is_root(c, root))
    view = (void *)hc_mpi_coll_send_view(cx, buffer, 1, &b, &bytes, &off);
  else if (cx != NULL)
    view = hc_mpi_coll_recv_view(cx, buffer, 1, &b, 0, &bytes, &off);
  if (cx == NULL || (view == NULL && !idle))
    return hc_mpi_coll_nomem(fn, c, cx);
  if (request == NULL && !inter) /* may use shared memory */
    return hc_mpi_raise_status(
        c, fn, hc_mpi_coll_end(cx, hcomm_bcast(view, bytes, root, c->engine)));
  hc_mpi_coll_hccl_plan_next(cx, c);
  hc_status_t st =
      inter ? hcomm_inter_bcast(view, bytes, root, c->engine, persist, &eng)
      : persist || hx.defer
          ? hcomm_bcast_init(view, bytes, root, c->engine, &eng)
          : hcomm_ibcast(view, bytes, root, c->engine, &eng);
  return hc_mpi_coll_finish(fn, c, cx, st, eng, request);
}

static int move_bcast_body(const char *fn, void *buffer, MPI_Count count,
                           MPI_Datatype datatype, int root, MPI_Comm comm) {
  int rc = move_bcast_fast(fn, buffer, count, datatype, root, comm);
  return rc >= 0 ? rc
                 : move_bcast(fn, buffer, count, datatype, root, comm, NULL, 0);
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
static int move_bcast_entry(const char *fn, void *buffer, MPI_Count count,
                            MPI_Datatype datatype, int root, MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_bcast_body(fn, buffer, count, datatype, root, comm);
  if (hc_trace_on)
    hc_trace_call(HC_TRACE_MPI_BCAST, t0, root, -1,
                  hc_mpi_trace_bytes(count, datatype));
  return rc;
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm) {
  return move_bcast_entry("MPI_Bcast", buffer, count, datatype, root, comm);
}
HC_WEAK_ALIAS(MPI_Bcast, PMPI_Bcast);

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                 MPI_Comm comm) {
  return move_bcast_entry("MPI_Bcast_c", buffer, count, datatype, root, comm);
}
HC_WEAK_ALIAS(MPI_Bcast_c, PMPI_Bcast_c);

static int move_ibcast_entry(const char *fn, void *buffer, MPI_Count count,
                             MPI_Datatype datatype, int root, MPI_Comm comm,
                             MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_bcast(fn, buffer, count, datatype, root, comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IBCAST, t0, root, -1,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                MPI_Comm comm, MPI_Request *request) {
  return move_ibcast_entry("MPI_Ibcast", buffer, count, datatype, root, comm,
                           request);
}
HC_WEAK_ALIAS(MPI_Ibcast, PMPI_Ibcast);

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype,
                  int root, MPI_Comm comm, MPI_Request *request) {
  return move_ibcast_entry("MPI_Ibcast_c", buffer, count, datatype, root, comm,
                           request);
}
HC_WEAK_ALIAS(MPI_Ibcast_c, PMPI_Ibcast_c);

static int move_bcast_init_entry(const char *fn, void *buffer, MPI_Count count,
                                 MPI_Datatype datatype, int root, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return move_bcast(fn, buffer, count, datatype, root, comm, request, 1);
}

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return move_bcast_init_entry("MPI_Bcast_init", buffer, count, datatype, root,
                               comm, info, request);
}
HC_WEAK_ALIAS(MPI_Bcast_init, PMPI_Bcast_init);

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype,
                      int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request) {
  return move_bcast_init_entry("MPI_Bcast_init_c", buffer, count, datatype,
                               root, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Bcast_init_c, PMPI_Bcast_init_c);

/*
 * Collectives on Ascend device buffers handed to HCCL's own collectives
 * (the engine's hcomm_hccl_coll and its non-blocking and persistent forms,
 * src/hcomm/coll_hccl.c).
 * Whether a call may go is decided in two steps that come out alike at
 * every rank: what MPI makes the same everywhere (HCCL enabled, an
 * intracommunicator of several ranks, and for reductions the op, the
 * datatype and the count) decides whether the ranks ask at all; what is
 * this rank's own (its buffers are device memory of one device, its
 * datatypes contiguous) is agreed by the engine.  Data that only moves
 * goes as HCCL bytes (UINT8), so any dense datatype fits; reductions need
 * a predefined op and type that HCCL reduces on every product.  Everything else
 * (user ops, MPI_MINLOC and the like, derived or non-contiguous types,
 * MPI_IN_PLACE alltoalls) stays on the staged path of the callers.
 */
#include "mpi/coll_impl.h"

#include <stdlib.h>

#include "mpi/devstage.h"

/* HCCL's codes (HcclDataType, HcclReduceOp). */
enum { HCCL_INT8 = 0, HCCL_INT16 = 1, HCCL_INT32 = 2, HCCL_FP32 = 4 };
enum { HCCL_INT64 = 5, HCCL_UINT8 = 7 };
enum { HCCL_SUM = 0, HCCL_MAX = 2, HCCL_MIN = 3 };

/* The reductions every Atlas A2, A3 and 950 product's HCCL documents
 * (hicann/hccl docs/api, HcclAllReduce, HcclReduce, HcclReduceScatter):
 * SUM, MAX and MIN of signed integers and float.  PROD, unsigned types
 * and double are missing on some of them, so they stage everywhere. */
static const struct {
  MPI_Datatype mpi;
  int hccl;
} hccl_types[] = {
    {MPI_SIGNED_CHAR, HCCL_INT8},
    {MPI_INT8_T, HCCL_INT8},
    {MPI_SHORT, HCCL_INT16},
    {MPI_INT16_T, HCCL_INT16},
    {MPI_INT, HCCL_INT32},
    {MPI_INT32_T, HCCL_INT32},
    {MPI_LONG, sizeof(long) == 8 ? HCCL_INT64 : HCCL_INT32},
    {MPI_LONG_LONG_INT, HCCL_INT64},
    {MPI_INT64_T, HCCL_INT64},
    {MPI_FLOAT, HCCL_FP32},
};

/* Whether the ranks ask at all: the same answer everywhere.  A
 * non-blocking form needs the communicator's HcclComm made already (by an
 * earlier blocking or persistent one): making it would block. */
static int hccl_gate(const hc_mpi_comm_t *c, const hc_mpi_hccl_t *hx) {
  return hcomm_hccl_coll_enabled() && !hc_mpi_coll_inter(c) &&
         hcomm_comm_size(c->engine) > 1 &&
         (hx->request == NULL || hx->persist ||
          hcomm_hccl_coll_ready(c->engine));
}

/* HCCL's type and op for a reduction of t by op; 0 when HCCL has none. */
static int hccl_reduction(const hc_mpi_type_t *t, MPI_Op op, int *dtype,
                          int *hop) {
  if (op == MPI_SUM)
    *hop = HCCL_SUM;
  else if (op == MPI_MAX)
    *hop = HCCL_MAX;
  else if (op == MPI_MIN)
    *hop = HCCL_MIN;
  else
    return 0;
  if (!t->predefined)
    return 0;
  MPI_Datatype h = t->f90_named != NULL ? t->f90_named->handle : t->handle;
  for (size_t i = 0; i < sizeof hccl_types / sizeof hccl_types[0]; i++)
    if (hccl_types[i].mpi == h) {
      *dtype = hccl_types[i].hccl;
      return 1;
    }
  return 0;
}

/* Whether buf is ACL device memory on *device (-1: any, then set). */
static int hccl_on_device(const void *buf, int *device) {
  hcomm_mem_info_t info;
  if (!hc_mpi_dev_classify(buf, &info) || info.kind != HCOMM_MEM_ACL)
    return 0;
  if (*device < 0)
    *device = info.device;
  return info.device == *device;
}

/* Hands a to the engine in hx's form; 1 when the call is over (*rc its
 * MPI result).  vec: a's alltoallv vectors (malloc'ed), taken. */
static int hccl_hand(const char *fn, hc_mpi_comm_t *c,
                     const hcomm_hccl_coll_t *a, int usable, int device,
                     uint64_t *vec, hc_mpi_hccl_t *hx, int *rc) {
  int taken = 0;
  hc_status_t st = HC_OK;
  hcomm_request_t *eng = NULL;
  if (hx->request != NULL && !hx->persist) {
    /* The ranks choose while it runs (hc_mpi_coll_finish). */
    hx->defer = 1;
    hx->a = *a;
    hx->usable = usable;
    hx->device = device;
    hx->vec = vec;
    return 0;
  }
  if (hx->persist)
    st = hcomm_hccl_coll_init(c->engine, a, usable, device, &taken, &eng);
  else
    st = hcomm_hccl_coll(c->engine, a, usable, device, &taken);
  free(vec);
  if (!taken && st == HC_OK)
    return 0;
  if (st != HC_OK || !hx->persist) {
    *rc = hc_mpi_raise_status(c, fn, st);
    return 1;
  }
  /* The persistent form: no state of the face to load or unpack. */
  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(1);
  if (cx == NULL) {
    hcomm_request_free(eng);
    *rc = hc_mpi_coll_nomem(fn, c, NULL);
  } else {
    *rc = hc_mpi_coll_finish(fn, c, cx, HC_OK, eng, hx->request);
  }
  return 1;
}

int hc_mpi_hccl_reduce(const char *fn, hc_mpi_comm_t *c, int kind,
                       const void *sendbuf, void *recvbuf, MPI_Count count,
                       const hc_mpi_type_t *t, MPI_Op op, int root,
                       hc_mpi_hccl_t *hx, int *rc) {
  if (!hccl_gate(c, hx) || count <= 0)
    return 0;
  hcomm_hccl_coll_t a = {0};
  if (!hccl_reduction(t, op, &a.dtype, &a.op))
    return 0;
  int device = -1, rank = hcomm_comm_rank(c->engine);
  a.kind = (hcomm_hccl_kind_t)kind;
  a.count = (uint64_t)count;
  a.send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  a.recv = recvbuf;
  int usable = hccl_on_device(a.send, &device);
  if (kind == HCOMM_HCCL_REDUCE && rank != root) {
    /* recvbuf means nothing here (NULL, often): HCCL gets the input,
     * which a Reduce writes only at its root. */
    a.recv = (void *)(uintptr_t)a.send;
  } else {
    usable = usable && hccl_on_device(a.recv, &device);
  }
  a.root = root >= 0 ? (uint32_t)root : 0;
  return hccl_hand(fn, c, &a, usable, device, NULL, hx, rc);
}

int hc_mpi_hccl_bcast(const char *fn, hc_mpi_comm_t *c, void *buf,
                      MPI_Count count, const hc_mpi_type_t *t, int root,
                      hc_mpi_hccl_t *hx, int *rc) {
  if (!hccl_gate(c, hx))
    return 0;
  int device = -1;
  hcomm_hccl_coll_t a = {.kind = HCOMM_HCCL_BCAST,
                         .recv = buf,
                         .count = (uint64_t)count * (uint64_t)t->size,
                         .dtype = HCCL_UINT8,
                         .root = (uint32_t)root};
  int usable =
      a.count > 0 && hc_mpi_type_dense(t) && hccl_on_device(buf, &device);
  return hccl_hand(fn, c, &a, usable, device, NULL, hx, rc);
}

int hc_mpi_hccl_allgather(const char *fn, hc_mpi_comm_t *c, const void *sendbuf,
                          MPI_Count sendcount, const hc_mpi_type_t *st,
                          void *recvbuf, MPI_Count recvcount,
                          const hc_mpi_type_t *rt, hc_mpi_hccl_t *hx, int *rc) {
  if (!hccl_gate(c, hx))
    return 0;
  int device = -1, rank = hcomm_comm_rank(c->engine);
  uint64_t bytes = (uint64_t)recvcount * (uint64_t)rt->size;
  hcomm_hccl_coll_t a = {.kind = HCOMM_HCCL_ALLGATHER,
                         .send = sendbuf,
                         .recv = recvbuf,
                         .count = bytes,
                         .dtype = HCCL_UINT8};
  int usable = bytes > 0 && hc_mpi_type_dense(rt) &&
               hccl_on_device(recvbuf, &device);
  if (sendbuf == MPI_IN_PLACE)
    a.send = (char *)recvbuf + (size_t)rank * bytes;
  else
    usable = usable && hc_mpi_type_dense(st) &&
             (uint64_t)sendcount * (uint64_t)st->size == bytes &&
             hccl_on_device(sendbuf, &device);
  return hccl_hand(fn, c, &a, usable, device, NULL, hx, rc);
}

/* One side of an alltoall as HCCL's byte counts and displacements; 0 when
 * a block is not dense. */
static int hccl_side(const hc_mpi_coll_block_t *b, int n, uint64_t *counts,
                     uint64_t *displs) {
  for (int i = 0; i < n; i++) {
    if (b[i].count > 0 && (!hc_mpi_type_dense(b[i].type) || b[i].disp < 0))
      return 0;
    counts[i] = (uint64_t)b[i].count * (uint64_t)b[i].type->size;
    displs[i] = (uint64_t)b[i].disp;
  }
  return 1;
}

int hc_mpi_hccl_alltoallv(const char *fn, hc_mpi_comm_t *c, const void *sendbuf,
                          const hc_mpi_coll_block_t *sb, void *recvbuf,
                          const hc_mpi_coll_block_t *rb, hc_mpi_hccl_t *hx,
                          int *rc) {
  if (!hccl_gate(c, hx))
    return 0;
  int n = hcomm_comm_size(c->engine), device = -1;
  uint64_t *v = calloc(4 * (size_t)n, sizeof *v);
  hcomm_hccl_coll_t a = {.kind = HCOMM_HCCL_ALLTOALLV,
                         .send = sendbuf,
                         .recv = recvbuf,
                         .dtype = HCCL_UINT8};
  int usable = v != NULL;
  if (usable) {
    a.scounts = v;
    a.sdispls = v + n;
    a.rcounts = v + 2 * n;
    a.rdispls = v + 3 * n;
    usable = hccl_side(sb, n, v, v + n) && hccl_side(rb, n, v + 2 * n, v + 3 * n);
  }
  /* Empty sides need no buffer; a side with data must be on the device. */
  uint64_t sent = 0, received = 0;
  for (int i = 0; usable && i < n; i++) {
    sent += a.scounts[i];
    received += a.rcounts[i];
  }
  usable = usable && (sent > 0 || received > 0) &&
           (sent == 0 || hccl_on_device(sendbuf, &device)) &&
           (received == 0 || hccl_on_device(recvbuf, &device));
  return hccl_hand(fn, c, &a, usable, device, v, hx, rc);
}

/*
 * The choice of algorithm for each collective, and the blocking forms of
 * the engine's collectives.  The algorithms themselves are schedules, each
 * written once in nbc.c: a blocking collective starts its schedule
 * (hcomm_i*) and waits for it.  No engine lock is held here.
 */
#include "hcomm/coll.h"

#include <stdlib.h>

#include "hcomm.h"
#include "hcomm/comm.h"
#include "hcomm/engine.h"
#include "hcomm/shmcoll.h"
#include "util/env.h"

static void coll_max_int32(const void *in, void *inout, size_t count,
                           void *ctx) {
  (void)ctx;
  const int32_t *a = in;
  int32_t *b = inout;
  for (size_t i = 0; i < count; i++)
    b[i] = a[i] > b[i] ? a[i] : b[i];
}

const hcomm_reduce_op_t hc_coll_max_int32 = {coll_max_int32, NULL,
                                             sizeof(int32_t), 1};

hc_coll_tuning_t hc_coll_tuning = {.bcast_large = HC_COLL_BCAST_LARGE,
                                   .allreduce_large = HC_COLL_ALLREDUCE_LARGE,
                                   .allgather_large = HC_COLL_ALLGATHER_LARGE,
                                   .alltoall_linear = HC_COLL_ALLTOALL_LINEAR,
                                   .alltoall_bruck = HC_COLL_ALLTOALL_BRUCK,
                                   .gather_linear_max =
                                       HC_COLL_GATHER_LINEAR_MAX,
                                   .gather_recv_first_max =
                                       HC_COLL_GATHER_RECV_FIRST_MAX};

void hc_coll_tuning_load(void) {
  hc_coll_tuning_t *t = &hc_coll_tuning;
  t->bcast_large = hc_env_size("HCMPI_COLL_BCAST_LARGE", HC_COLL_BCAST_LARGE);
  t->allreduce_large =
      hc_env_size("HCMPI_COLL_ALLREDUCE_LARGE", HC_COLL_ALLREDUCE_LARGE);
  t->allgather_large =
      hc_env_size("HCMPI_COLL_ALLGATHER_LARGE", HC_COLL_ALLGATHER_LARGE);
  t->alltoall_linear =
      hc_env_size("HCMPI_COLL_ALLTOALL_LINEAR", HC_COLL_ALLTOALL_LINEAR);
  t->alltoall_bruck =
      hc_env_size("HCMPI_COLL_ALLTOALL_BRUCK", HC_COLL_ALLTOALL_BRUCK);
  t->gather_linear_max = (int)hc_env_long("HCMPI_COLL_GATHER_LINEAR_MAX",
                                          HC_COLL_GATHER_LINEAR_MAX);
  t->gather_recv_first_max = hc_env_size("HCMPI_COLL_GATHER_RECV_FIRST_MAX",
                                         HC_COLL_GATHER_RECV_FIRST_MAX);
}

/* ---- helpers exposed for unit tests (coll.h) ----------------------------- */

void hc_coll_block(size_t total, int n, int i, size_t *off, size_t *len) {
  size_t base = total / (size_t)n, extra = total % (size_t)n;
  size_t ui = (size_t)i;
  *off = ui * base + (ui < extra ? ui : extra);
  *len = base + (ui < extra ? 1 : 0);
}

void hc_coll_span(size_t total, size_t blk, int first, int nblocks, size_t *lo,
                  size_t *hi) {
  size_t a = (size_t)first * blk, b = a + (size_t)nblocks * blk;
  *lo = a < total ? a : total;
  *hi = b < total ? b : total;
}

int hc_coll_pof2_floor(int n) {
  int p = 1;
  while (p <= n / 2)
    p <<= 1;
  return p;
}

int hc_coll_real(int v, int base, int size) { return (v + base) % size; }

int hc_coll_virtual(int rank, int base, int size) {
  return (rank - base + size) % size;
}

int hc_coll_lowbit(int v, int size) {
  if (v != 0)
    return v & -v;
  int p = 1;
  while (p < size)
    p <<= 1;
  return p;
}

enum hc_coll_alg hc_coll_bcast_alg(size_t bytes, int size) {
  if (size <= 1 || bytes == 0)
    return HC_COLL_ALG_TRIVIAL;
  /* Large: the tree would send the whole buffer log p times from the root;
   * scatter + ring moves about 2x the buffer per rank whatever p is.  With
   * two ranks the tree already sends the buffer once. */
  if (bytes > hc_coll_tuning.bcast_large && size > 2)
    return HC_COLL_ALG_SCATTER_RING;
  return HC_COLL_ALG_BINOMIAL;
}

enum hc_coll_alg hc_coll_allreduce_alg(size_t count, size_t elem_size,
                                       int commutative, int size) {
  size_t bytes = count * elem_size;
  if (size <= 1 || bytes == 0)
    return HC_COLL_ALG_TRIVIAL;
  /* Small: log p latency-bound rounds beat anything bandwidth-optimal. */
  if (bytes <= hc_coll_tuning.allreduce_large)
    return HC_COLL_ALG_RECURSIVE_DOUBLING;
  /* Large commutative: reduce-scatter + allgather moves 2(p-1)/p of the
   * buffer per rank; it combines out of rank order, hence commutative only.
   * On a power of two, halving and doubling do it in 2 log p rounds, the
   * ring in 2(p-1). */
  if (commutative && count >= (size_t)size)
    return hc_coll_pof2_floor(size) == size ? HC_COLL_ALG_RABENSEIFNER
                                            : HC_COLL_ALG_RING;
  return HC_COLL_ALG_REDUCE_BCAST;
}

enum hc_coll_alg hc_coll_gather_alg(size_t bytes, int size) {
  if (size <= 1 || bytes == 0)
    return HC_COLL_ALG_TRIVIAL;
  /* A handful of ranks: a tree only adds hops and copies. */
  if (size <= hc_coll_tuning.gather_linear_max)
    return HC_COLL_ALG_LINEAR;
  return HC_COLL_ALG_BINOMIAL;
}

enum hc_coll_alg hc_coll_allgather_alg(size_t bytes, int size) {
  if (size <= 1 || bytes == 0)
    return HC_COLL_ALG_TRIVIAL;
  /* Recursive doubling needs a power of two and pays off while latency
   * dominates; the ring is bandwidth-optimal and works for any p. */
  if (hc_coll_pof2_floor(size) == size &&
      bytes * (size_t)size <= hc_coll_tuning.allgather_large)
    return HC_COLL_ALG_RECURSIVE_DOUBLING;
  return HC_COLL_ALG_RING;
}

enum hc_coll_alg hc_coll_alltoall_alg(size_t most, int size, int equal) {
  if (size <= 1)
    return HC_COLL_ALG_TRIVIAL;
  /* Tiny equal blocks on many ranks: log p rounds of packed blocks beat
   * p - 1 messages each way. */
  if (equal && size > 4 && most > 0 && most <= hc_coll_tuning.alltoall_bruck)
    return HC_COLL_ALG_BRUCK;
  /* Small blocks are latency-bound: every message in flight at once.
   * Large ones: one partner per round bounds the rendezvous transfers in
   * flight per rank. */
  if (most <= hc_coll_tuning.alltoall_linear)
    return HC_COLL_ALG_LINEAR;
  return HC_COLL_ALG_PAIRWISE;
}

/* ---- blocking forms: start the schedule and wait ------------------------ */

/* rc: how starting *req went.  A pointer, as the call that sets *req is
 * the other argument and C leaves the order of their evaluation open. */
static hc_status_t coll_wait(hc_status_t rc, hcomm_request_t *const *req) {
  if (rc != HC_OK)
    return rc;
  rc = hcomm_wait(*req, NULL);
  hcomm_request_free(*req);
  return rc;
}

/* Each blocking collective below first offers itself to the shared-memory
 * algorithms (shmcoll.h), which take it or leave it alike on every rank. */
static hc_status_t coll_barrier(hcomm_comm_t *comm) {
  hc_status_t rc = hc_shmcoll_barrier(comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_ibarrier(comm, &req), &req);
}

/* A rank that reaches a barrier in a loop first (one that only serves a
 * passive-target window, say) waits through the others' whole step;
 * steps tend to repeat, so the wait policy judges how long by the last
 * one, as for a window's fence (which brings its own). */
hc_status_t hcomm_barrier(hcomm_comm_t *comm) {
  if (comm == NULL)
    return coll_barrier(comm); /* its checks name the error */
  hc_engine_lock();
  int judged = hc_engine.recurring == NULL;
  if (judged)
    hc_progress_recurring_begin(&comm->barrier_wait);
  hc_engine_unlock();
  hc_status_t rc = coll_barrier(comm);
  if (judged) {
    hc_engine_lock();
    hc_progress_recurring_end(&comm->barrier_wait);
    hc_engine_unlock();
  }
  return rc;
}

hc_status_t hcomm_bcast(void *buf, size_t bytes, int root, hcomm_comm_t *comm) {
  hc_status_t rc = hc_shmcoll_bcast(buf, bytes, root, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_ibcast(buf, bytes, root, comm, &req), &req);
}

hc_status_t hcomm_reduce(const void *sendbuf, void *recvbuf, size_t count,
                         const hcomm_reduce_op_t *op, int root,
                         hcomm_comm_t *comm) {
  hc_status_t rc = hc_shmcoll_reduce(sendbuf, recvbuf, count, op, root, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_ireduce(sendbuf, recvbuf, count, op, root, comm, &req),
                   &req);
}

hc_status_t hcomm_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                            const hcomm_reduce_op_t *op, hcomm_comm_t *comm) {
  hc_status_t rc = hc_shmcoll_allreduce(sendbuf, recvbuf, count, op, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_iallreduce(sendbuf, recvbuf, count, op, comm, &req),
                   &req);
}

hc_status_t hcomm_gather(const void *sendbuf, size_t bytes, void *recvbuf,
                         int root, hcomm_comm_t *comm) {
  hc_status_t rc =
      hc_shmcoll_gather(0, sendbuf, bytes, recvbuf, NULL, NULL, root, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_igather(sendbuf, bytes, recvbuf, root, comm, &req),
                   &req);
}

hc_status_t hcomm_gatherv(const void *sendbuf, size_t sbytes, void *recvbuf,
                          const size_t *rbytes, const size_t *rdispls,
                          int root, hcomm_comm_t *comm) {
  hc_status_t rc = hc_shmcoll_gather(1, sendbuf, sbytes, recvbuf, rbytes,
                                     rdispls, root, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_igatherv(sendbuf, sbytes, recvbuf, rbytes, rdispls,
                                  root, comm, &req),
                   &req);
}

hc_status_t hcomm_scatter(const void *sendbuf, size_t bytes, void *recvbuf,
                          int root, hcomm_comm_t *comm) {
  hc_status_t rc =
      hc_shmcoll_scatter(0, sendbuf, NULL, NULL, recvbuf, bytes, root, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_iscatter(sendbuf, bytes, recvbuf, root, comm, &req),
                   &req);
}

hc_status_t hcomm_scatterv(const void *sendbuf, const size_t *sbytes,
                           const size_t *sdispls, void *recvbuf, size_t rbytes,
                           int root, hcomm_comm_t *comm) {
  hc_status_t rc = hc_shmcoll_scatter(1, sendbuf, sbytes, sdispls, recvbuf,
                                      rbytes, root, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_iscatterv(sendbuf, sbytes, sdispls, recvbuf, rbytes,
                                   root, comm, &req),
                   &req);
}

hc_status_t hcomm_gatherv_stream(const hcomm_accessor_t *sacc, size_t sbytes,
                                 const hcomm_accessor_t *racc,
                                 const size_t *rbytes, const size_t *roffs,
                                 int root, hcomm_comm_t *comm) {
  hc_status_t rc =
      hc_shmcoll_gatherv_acc(sacc, sbytes, racc, rbytes, roffs, root, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_gatherv_acc(sacc, sbytes, racc, 1, rbytes, roffs, root,
                                     comm, 0, &req),
                   &req);
}

hc_status_t hcomm_scatterv_stream(const hcomm_accessor_t *sacc,
                                  const size_t *sbytes, const size_t *soffs,
                                  const hcomm_accessor_t *racc, size_t rbytes,
                                  int root, hcomm_comm_t *comm) {
  hc_status_t rc =
      hc_shmcoll_scatterv_acc(sacc, sbytes, soffs, racc, rbytes, root, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_scatterv_acc(sacc, 1, sbytes, soffs, racc, rbytes,
                                      root, comm, 0, &req),
                   &req);
}

int hcomm_rooted_in_segment(hcomm_comm_t *comm, int vform, size_t bytes) {
  return hc_shmcoll_rooted_takes(comm, vform, bytes);
}

hc_status_t hcomm_allgather(const void *sendbuf, size_t bytes, void *recvbuf,
                            hcomm_comm_t *comm) {
  hc_status_t rc =
      hc_shmcoll_allgather(sendbuf, bytes, recvbuf, NULL, NULL, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_iallgather(sendbuf, bytes, recvbuf, comm, &req), &req);
}

hc_status_t hcomm_allgatherv(const void *sendbuf, size_t sbytes, void *recvbuf,
                             const size_t *rbytes, const size_t *rdispls,
                             hcomm_comm_t *comm) {
  hc_status_t rc = HC_ERR_NOT_SUPPORTED;
  if (rbytes != NULL && rdispls != NULL) /* else the schedule reports it */
    rc = hc_shmcoll_allgather(sendbuf, sbytes, recvbuf, rbytes, rdispls, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(
      hcomm_iallgatherv(sendbuf, sbytes, recvbuf, rbytes, rdispls, comm, &req),
      &req);
}

hc_status_t hcomm_alltoall(const void *sendbuf, size_t bytes, void *recvbuf,
                           hcomm_comm_t *comm) {
  hc_status_t rc = hc_shmcoll_alltoall(sendbuf, NULL, NULL, recvbuf, NULL, NULL,
                                       bytes, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_ialltoall(sendbuf, bytes, recvbuf, comm, &req), &req);
}

/* A rank with a block too large for the segment runs the I-form, which
 * moves the small blocks through the segment too, in the same turn. */
hc_status_t hcomm_alltoallv(const void *sendbuf, const size_t *sbytes,
                            const size_t *sdispls, void *recvbuf,
                            const size_t *rbytes, const size_t *rdispls,
                            hcomm_comm_t *comm) {
  hc_status_t rc = HC_ERR_NOT_SUPPORTED;
  if (rbytes != NULL && rdispls != NULL &&
      (sendbuf == HCOMM_IN_PLACE || (sbytes != NULL && sdispls != NULL)))
    rc = hc_shmcoll_alltoall(sendbuf, sbytes, sdispls, recvbuf, rbytes, rdispls,
                             0, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(hcomm_ialltoallv(sendbuf, sbytes, sdispls, recvbuf, rbytes,
                                    rdispls, comm, &req),
                   &req);
}

hc_status_t hcomm_reduce_scatter(const void *sendbuf, void *recvbuf,
                                 const size_t *counts,
                                 const hcomm_reduce_op_t *op,
                                 hcomm_comm_t *comm) {
  hc_status_t rc = HC_ERR_NOT_SUPPORTED;
  if (counts != NULL) /* else the schedule reports it */
    rc = hc_shmcoll_reduce_scatter(sendbuf, recvbuf, counts, 0, op, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  hcomm_request_t *req = NULL;
  return coll_wait(
      hcomm_ireduce_scatter(sendbuf, recvbuf, counts, op, comm, &req), &req);
}

hc_status_t hcomm_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                       size_t count,
                                       const hcomm_reduce_op_t *op,
                                       hcomm_comm_t *comm) {
  hc_status_t rc =
      hc_shmcoll_reduce_scatter(sendbuf, recvbuf, NULL, count, op, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  int size = comm != NULL ? comm->size : 0;
  size_t *counts = size > 0 ? malloc((size_t)size * sizeof *counts) : NULL;
  if (size > 0 && counts == NULL)
    return HC_ERR_NOMEM;
  for (int r = 0; r < size; r++)
    counts[r] = count;
  /* counts NULL (no communicator): the schedule's checks report it */
  rc = hcomm_reduce_scatter(sendbuf, recvbuf, counts, op, comm);
  free(counts);
  return rc;
}

/*
 * Gather and scatter (their v-forms too) through one node's segment
 * (shmcoll_impl.h): every block of at most a small buffer moves through
 * its sender's or receiver's small buffer in one chunk (the steps,
 * shmcoll.c), the larger ones as messages between their rank and the root
 * once that chunk is done, on the tag the collective took.
 */
#include <stdlib.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/nbc.h"
#include "hcomm/shmcoll_impl.h"

/* After a rooted op: the blocks larger than a small buffer move as
 * messages between their rank and the root (each end knows the block's
 * size: the sender's count matches the root's), on the tag the op took. */
static hc_status_t shmcoll_rooted_messages(const hc_shmcoll_op_t *op) {
  hc_shmcoll_t *sc = op->sc;
  hcomm_comm_t *comm = op->comm;
  int me = sc->rank, gather = op->what == SHMCOLL_OP_GATHER;
  int tag = HC_NBC_TAG_BASE + (int)((comm->coll_seq - 1) % HC_NBC_SEQS);
  hc_status_t rc = HC_OK;
  if (me != op->root) {
    if (op->size <= sc->small)
      return HC_OK;
    hcomm_request_t *req = NULL;
    hc_engine_lock();
    rc = gather
             ? hc_isend_locked(op->in, op->size, op->root, tag, comm,
                               HCOMM_SEND_STANDARD, 1, &req)
             : hc_irecv_locked(op->out, op->size, op->root, tag, comm, 1, &req);
    hc_engine_unlock();
    return rc == HC_OK ? hcomm_wait_free(req, NULL) : rc;
  }
  hcomm_request_t **reqs = NULL;
  int n = 0;
  for (int r = 0; r < sc->size && rc == HC_OK; r++) {
    size_t len = hc_shmcoll_block_len(op->counts, op->each, r);
    if (r == me || len <= sc->small)
      continue;
    if (reqs == NULL && (reqs = calloc((size_t)sc->size, sizeof *reqs)) == NULL)
      return HC_ERR_NOMEM;
    size_t at = hc_shmcoll_block_at(op->displs, op->each, r);
    hc_engine_lock();
    rc = gather ? hc_irecv_locked(op->out + at, len, r, tag, comm, 1, &reqs[n])
                : hc_isend_locked(op->in + at, len, r, tag, comm,
                                  HCOMM_SEND_STANDARD, 1, &reqs[n]);
    hc_engine_unlock();
    n += rc == HC_OK;
  }
  for (int i = 0; i < n; i++) {
    hc_status_t got = hcomm_wait_free(reqs[i], NULL);
    rc = rc == HC_OK ? got : rc;
  }
  free(reqs);
  return rc;
}

/* The fixed forms' blocks of all the ranks together, at most: the MPI
 * face streams a derived type's blocks above 64 KiB (at the root: all of
 * them) as messages, and no rank may do so while the others run here. */
#define SHMCOLL_ROOTED_TOTAL_MAX ((size_t)64 << 10)

/* Whether a gather or scatter on comm runs here: the v-forms always (each
 * block's size is known to both its ends), the others where a block fits
 * a small buffer and all of them SHMCOLL_ROOTED_TOTAL_MAX (the same on
 * every rank); where comm has a segment of its own, made now if not yet. */
int hc_shmcoll_rooted_takes(hcomm_comm_t *comm, int vform, size_t bytes) {
  hc_status_t rc;
  return comm != NULL &&
         (vform || (bytes <= SHMCOLL_SMALL &&
                    bytes * (size_t)comm->size <= SHMCOLL_ROOTED_TOTAL_MAX)) &&
         hc_shmcoll_enter(comm, 0, &rc) != NULL;
}

static hc_status_t shmcoll_rooted(int what, int vform, const void *in,
                                  size_t mine, void *out, const size_t *counts,
                                  const size_t *displs, int root,
                                  hcomm_comm_t *comm) {
  if (comm == NULL || root < 0 || root >= comm->size ||
      (vform && comm->rank == root && (counts == NULL || displs == NULL)) ||
      !hc_shmcoll_rooted_takes(comm, vform, mine))
    return HC_ERR_NOT_SUPPORTED;
  hc_shmcoll_op_t op;
  hc_shmcoll_op_init(&op, comm->shmcoll, comm, what, 1);
  op.root = root;
  op.in = in;
  op.out = out;
  op.counts = comm->rank == root ? counts : NULL;
  op.displs = comm->rank == root ? displs : NULL;
  op.each = mine;
  op.size = mine;
  hc_status_t rc = hc_shmcoll_run(&op);
  return rc == HC_OK ? shmcoll_rooted_messages(&op) : rc;
}

hc_status_t hc_shmcoll_gather(int vform, const void *sendbuf, size_t sbytes,
                              void *recvbuf, const size_t *rbytes,
                              const size_t *rdispls, int root,
                              hcomm_comm_t *comm) {
  const void *in = sendbuf == HCOMM_IN_PLACE ? NULL : sendbuf;
  return shmcoll_rooted(SHMCOLL_OP_GATHER, vform, in, sbytes, recvbuf, rbytes,
                        rdispls, root, comm);
}

hc_status_t hc_shmcoll_scatter(int vform, const void *sendbuf,
                               const size_t *sbytes, const size_t *sdispls,
                               void *recvbuf, size_t rbytes, int root,
                               hcomm_comm_t *comm) {
  void *out = recvbuf == HCOMM_IN_PLACE ? NULL : recvbuf;
  return shmcoll_rooted(SHMCOLL_OP_SCATTER, vform, sendbuf, rbytes, out, sbytes,
                        sdispls, root, comm);
}

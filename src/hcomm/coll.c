/*
 * Engine collectives, built on the collective context's point-to-point
 * (hc_coll_isend / hc_coll_irecv).  Every algorithm works for any
 * communicator size.  No engine lock is held here: each call below takes
 * and drops it on its own.
 */
#include "hcomm/coll.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm.h"
#include "hcomm/engine.h"

/* One tag per collective kind (and phase), so that a message can only ever
 * match the receive of the same step; successive calls of the same kind are
 * kept apart by the non-overtaking order. */
enum coll_tag {
  COLL_TAG_BARRIER = 1,
  COLL_TAG_BCAST = 2,
  COLL_TAG_BCAST_SCATTER = 3,
  COLL_TAG_BCAST_RING = 4,
  COLL_TAG_REDUCE = 5,
  COLL_TAG_REDUCE_ROOT = 6,
  COLL_TAG_ALLREDUCE = 7,
  COLL_TAG_ALLREDUCE_RS = 8,
  COLL_TAG_ALLREDUCE_AG = 9,
  COLL_TAG_ALLREDUCE_BCAST = 10,
  COLL_TAG_GATHER = 11,
  COLL_TAG_ALLGATHER = 12
};

/* Children of a binomial tree node never exceed the bits of an int. */
#define COLL_MAX_CHILDREN 32

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

enum hc_coll_alg hc_coll_bcast_alg(size_t bytes, int size) {
  if (size <= 1 || bytes == 0)
    return HC_COLL_ALG_TRIVIAL;
  /* Large: the tree would send the whole buffer log p times from the root;
   * scatter + ring moves about 2x the buffer per rank whatever p is.  With
   * two ranks the tree already sends the buffer once. */
  if (bytes > HC_COLL_BCAST_LARGE && size > 2)
    return HC_COLL_ALG_SCATTER_RING;
  return HC_COLL_ALG_BINOMIAL;
}

enum hc_coll_alg hc_coll_allreduce_alg(size_t count, size_t elem_size,
                                       int commutative, int size) {
  size_t bytes = count * elem_size;
  if (size <= 1 || bytes == 0)
    return HC_COLL_ALG_TRIVIAL;
  /* Small: log p latency-bound rounds beat anything bandwidth-optimal. */
  if (bytes <= HC_COLL_ALLREDUCE_LARGE)
    return HC_COLL_ALG_RECURSIVE_DOUBLING;
  /* Large commutative: ring reduce-scatter + allgather moves 2(p-1)/p of the
   * buffer per rank; it combines out of rank order, hence commutative only. */
  if (commutative && count >= (size_t)size)
    return HC_COLL_ALG_RING;
  return HC_COLL_ALG_REDUCE_BCAST;
}

enum hc_coll_alg hc_coll_gather_alg(size_t bytes, int size) {
  if (size <= 1 || bytes == 0)
    return HC_COLL_ALG_TRIVIAL;
  /* A handful of ranks: a tree only adds hops and copies. */
  if (size <= HC_COLL_GATHER_LINEAR_MAX)
    return HC_COLL_ALG_LINEAR;
  return HC_COLL_ALG_BINOMIAL;
}

enum hc_coll_alg hc_coll_allgather_alg(size_t bytes, int size) {
  if (size <= 1 || bytes == 0)
    return HC_COLL_ALG_TRIVIAL;
  /* Recursive doubling needs a power of two and pays off while latency
   * dominates; the ring is bandwidth-optimal and works for any p. */
  if (hc_coll_pof2_floor(size) == size &&
      bytes * (size_t)size <= HC_COLL_ALLGATHER_LARGE)
    return HC_COLL_ALG_RECURSIVE_DOUBLING;
  return HC_COLL_ALG_RING;
}

/* ---- point-to-point plumbing --------------------------------------------- */

/* Waits for and releases reqs[0..n) (NULL entries skipped).  rc is the
 * status of posting them: on an error the posted ones are cancelled first,
 * so that nothing lands in a buffer the caller is about to free.  Returns
 * rc, else the first request error. */
static hc_status_t coll_finish(hcomm_request_t **reqs, int n, hc_status_t rc) {
  for (int i = 0; i < n; i++) {
    hcomm_status_t st;
    if (reqs[i] == NULL)
      continue;
    if (rc != HC_OK)
      (void)hcomm_cancel(reqs[i]);
    hc_status_t w = hcomm_wait(reqs[i], &st);
    if (rc == HC_OK)
      rc = w;
    hcomm_request_free(reqs[i]);
    reqs[i] = NULL;
  }
  return rc;
}

static hc_status_t coll_send(const void *buf, size_t bytes, int dest, int tag,
                             hcomm_comm_t *comm) {
  hcomm_request_t *req = NULL;
  hc_status_t rc = hc_coll_isend(buf, bytes, dest, tag, comm, &req);
  return coll_finish(&req, 1, rc);
}

static hc_status_t coll_recv(void *buf, size_t bytes, int source, int tag,
                             hcomm_comm_t *comm) {
  hcomm_request_t *req = NULL;
  hc_status_t rc = hc_coll_irecv(buf, bytes, source, tag, comm, &req);
  return coll_finish(&req, 1, rc);
}

/* Receive posted before the send so that neither side relies on buffering. */
static hc_status_t coll_sendrecv(const void *sbuf, size_t sbytes, int dest,
                                 void *rbuf, size_t rbytes, int source, int tag,
                                 hcomm_comm_t *comm) {
  hcomm_request_t *reqs[2] = {NULL, NULL};
  hc_status_t rc = hc_coll_irecv(rbuf, rbytes, source, tag, comm, &reqs[0]);
  if (rc == HC_OK)
    rc = hc_coll_isend(sbuf, sbytes, dest, tag, comm, &reqs[1]);
  return coll_finish(reqs, 2, rc);
}

/* Rank of virtual rank v in a numbering that starts at base. */
static int coll_real(int v, int base, int size) { return (v + base) % size; }

static int coll_virtual(int rank, int base, int size) {
  return (rank - base + size) % size;
}

/* Smallest power of two >= n. */
static int coll_pof2_ceil(int n) {
  int p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

static hc_status_t coll_check(hcomm_comm_t *comm, int root) {
  if (comm == NULL)
    return HC_ERR_COMM;
  if (root < 0 || root >= hcomm_comm_size(comm))
    return HC_ERR_RANK;
  return HC_OK;
}

static hc_status_t coll_check_op(const hcomm_reduce_op_t *op) {
  if (op == NULL || op->fn == NULL || op->elem_size == 0)
    return HC_ERR_ARG;
  return HC_OK;
}

/* ---- barrier ------------------------------------------------------------- */

hc_status_t hcomm_barrier(hcomm_comm_t *comm) {
  char dummy = 0;
  if (comm == NULL)
    return HC_ERR_COMM;
  int size = hcomm_comm_size(comm), rank = hcomm_comm_rank(comm);
  /* Dissemination: ceil(log2 p) rounds for any p, no power-of-two fold-in. */
  for (int dist = 1; dist < size; dist <<= 1) {
    hc_status_t rc =
        coll_sendrecv(&dummy, 0, (rank + dist) % size, &dummy, 0,
                      (rank - dist + size) % size, COLL_TAG_BARRIER, comm);
    if (rc != HC_OK)
      return rc;
  }
  return HC_OK;
}

/* ---- bcast --------------------------------------------------------------- */

/* Virtual rank vrank's binomial parent is vrank minus its lowest set bit.
 * Returns that bit (a power of two >= size at the root). */
static int coll_lowbit(int vrank, int size) {
  return vrank == 0 ? coll_pof2_ceil(size) : (vrank & -vrank);
}

static hc_status_t coll_bcast_binomial(void *buf, size_t bytes, int root,
                                       hcomm_comm_t *comm, int tag) {
  hcomm_request_t *reqs[COLL_MAX_CHILDREN] = {NULL};
  int size = hcomm_comm_size(comm);
  int vrank = coll_virtual(hcomm_comm_rank(comm), root, size);
  int low = coll_lowbit(vrank, size), n = 0;
  hc_status_t rc = HC_OK;

  if (vrank != 0)
    rc = coll_recv(buf, bytes, coll_real(vrank - low, root, size), tag, comm);
  for (int mask = low >> 1; mask > 0 && rc == HC_OK; mask >>= 1)
    if (vrank + mask < size)
      rc = hc_coll_isend(buf, bytes, coll_real(vrank + mask, root, size), tag,
                         comm, &reqs[n++]);
  return coll_finish(reqs, n, rc);
}

/* Binomial scatter of blk-byte blocks: virtual rank v ends up with blocks
 * [v, v + its subtree size), block i being bytes [i*blk, (i+1)*blk). */
static hc_status_t coll_scatter_blocks(char *buf, size_t bytes, size_t blk,
                                       int root, hcomm_comm_t *comm) {
  hcomm_request_t *reqs[COLL_MAX_CHILDREN] = {NULL};
  int size = hcomm_comm_size(comm);
  int vrank = coll_virtual(hcomm_comm_rank(comm), root, size);
  int low = coll_lowbit(vrank, size), n = 0;
  size_t lo, hi;
  hc_status_t rc = HC_OK;

  if (vrank != 0) {
    hc_coll_span(bytes, blk, vrank, low, &lo, &hi);
    rc = coll_recv(buf + lo, hi - lo, coll_real(vrank - low, root, size),
                   COLL_TAG_BCAST_SCATTER, comm);
  }
  for (int mask = low >> 1; mask > 0 && rc == HC_OK; mask >>= 1) {
    if (vrank + mask >= size)
      continue;
    hc_coll_span(bytes, blk, vrank + mask, mask, &lo, &hi);
    rc = hc_coll_isend(buf + lo, hi - lo, coll_real(vrank + mask, root, size),
                       COLL_TAG_BCAST_SCATTER, comm, &reqs[n++]);
  }
  return coll_finish(reqs, n, rc);
}

/* Ring allgather of the blocks in virtual-rank order: at step s virtual
 * rank v passes block v-s to its right and gets block v-s-1 from its left. */
static hc_status_t coll_ring_blocks(char *buf, size_t bytes, size_t blk,
                                    int root, hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm);
  int vrank = coll_virtual(hcomm_comm_rank(comm), root, size);
  int right = coll_real(vrank + 1, root, size);
  int left = coll_real(vrank - 1 + size, root, size);

  for (int s = 0; s < size - 1; s++) {
    size_t slo, shi, rlo, rhi;
    hc_coll_span(bytes, blk, (vrank - s + size) % size, 1, &slo, &shi);
    hc_coll_span(bytes, blk, (vrank - s - 1 + 2 * size) % size, 1, &rlo, &rhi);
    hc_status_t rc = coll_sendrecv(buf + slo, shi - slo, right, buf + rlo,
                                   rhi - rlo, left, COLL_TAG_BCAST_RING, comm);
    if (rc != HC_OK)
      return rc;
  }
  return HC_OK;
}

static hc_status_t coll_bcast_scatter_ring(void *buf, size_t bytes, int root,
                                           hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm);
  size_t blk = (bytes + (size_t)size - 1) / (size_t)size;
  hc_status_t rc = coll_scatter_blocks(buf, bytes, blk, root, comm);
  if (rc != HC_OK)
    return rc;
  return coll_ring_blocks(buf, bytes, blk, root, comm);
}

static hc_status_t coll_bcast(void *buf, size_t bytes, int root,
                              hcomm_comm_t *comm, int tag) {
  switch (hc_coll_bcast_alg(bytes, hcomm_comm_size(comm))) {
  case HC_COLL_ALG_TRIVIAL:
    return HC_OK;
  case HC_COLL_ALG_SCATTER_RING:
    return coll_bcast_scatter_ring(buf, bytes, root, comm);
  default:
    return coll_bcast_binomial(buf, bytes, root, comm, tag);
  }
}

hc_status_t hcomm_bcast(void *buf, size_t bytes, int root, hcomm_comm_t *comm) {
  hc_status_t rc = coll_check(comm, root);
  if (rc != HC_OK)
    return rc;
  if (buf == NULL && bytes > 0)
    return HC_ERR_ARG;
  return coll_bcast(buf, bytes, root, comm, COLL_TAG_BCAST);
}

/* ---- reduce -------------------------------------------------------------- */

/*
 * Binomial reduction towards virtual rank 0 of a numbering starting at base.
 * Virtual rank v always holds the combination of ranks [v, v + k) in order
 * and receives [v + k, v + 2k), which it appends on the right: fn(in = own,
 * inout = received).  With base 0 the result is therefore in rank order,
 * which a non-commutative op needs.  On return *out is the malloc'd result
 * at virtual rank 0, NULL elsewhere.
 */
static hc_status_t coll_reduce_tree(const void *mine, size_t count,
                                    const hcomm_reduce_op_t *op, int base,
                                    hcomm_comm_t *comm, int tag, void **out) {
  size_t bytes = count * op->elem_size;
  int size = hcomm_comm_size(comm);
  int vrank = coll_virtual(hcomm_comm_rank(comm), base, size);
  const void *cur = mine;
  void *acc = NULL, *tmp = NULL;
  hc_status_t rc = HC_OK;

  *out = NULL;
  for (int mask = 1; mask < size; mask <<= 1) {
    if (vrank & mask) {
      rc =
          coll_send(cur, bytes, coll_real(vrank - mask, base, size), tag, comm);
      break;
    }
    if (vrank + mask >= size)
      continue;
    if (tmp == NULL) {
      acc = malloc(bytes);
      tmp = malloc(bytes);
      if (acc == NULL || tmp == NULL) {
        rc = HC_ERR_NOMEM;
        break;
      }
      memcpy(acc, mine, bytes);
      cur = acc;
    }
    rc = coll_recv(tmp, bytes, coll_real(vrank + mask, base, size), tag, comm);
    if (rc != HC_OK)
      break;
    op->fn(acc, tmp, count, op->ctx);
    void *swap = acc;
    acc = tmp;
    tmp = swap;
    cur = acc;
  }
  free(tmp);
  if (vrank == 0 && rc == HC_OK)
    *out = acc;
  else
    free(acc);
  return rc;
}

static hc_status_t coll_reduce(const void *sendbuf, void *recvbuf, size_t count,
                               const hcomm_reduce_op_t *op, int root,
                               hcomm_comm_t *comm, int tag) {
  size_t bytes = count * op->elem_size;
  int size = hcomm_comm_size(comm), rank = hcomm_comm_rank(comm);
  const void *mine = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  void *result = NULL;

  if (size == 1 || bytes == 0) {
    if (size == 1 && bytes > 0 && mine != recvbuf)
      memcpy(recvbuf, mine, bytes);
    return HC_OK;
  }
  /* Commutative ops reduce straight to the root; the others on a tree rooted
   * at rank 0 that keeps rank order, then rank 0 hands the result over. */
  int base = op->commutative ? root : 0;
  hc_status_t rc = coll_reduce_tree(mine, count, op, base, comm, tag, &result);
  if (rc == HC_OK && base == root && rank == root)
    memcpy(recvbuf, result, bytes);
  else if (rc == HC_OK && rank == base)
    rc = coll_send(result, bytes, root, COLL_TAG_REDUCE_ROOT, comm);
  else if (rc == HC_OK && rank == root)
    rc = coll_recv(recvbuf, bytes, base, COLL_TAG_REDUCE_ROOT, comm);
  free(result);
  return rc;
}

hc_status_t hcomm_reduce(const void *sendbuf, void *recvbuf, size_t count,
                         const hcomm_reduce_op_t *op, int root,
                         hcomm_comm_t *comm) {
  hc_status_t rc = coll_check(comm, root);
  if (rc == HC_OK)
    rc = coll_check_op(op);
  if (rc != HC_OK)
    return rc;
  if (sendbuf == HCOMM_IN_PLACE && hcomm_comm_rank(comm) != root)
    return HC_ERR_ARG;
  return coll_reduce(sendbuf, recvbuf, count, op, root, comm, COLL_TAG_REDUCE);
}

/* ---- allreduce ----------------------------------------------------------- */

/* Fold-in for a non-power-of-two size: among the first 2*rem ranks each even
 * rank hands its data to the odd rank above it (lower rank first, so order
 * holds) and sits out.  Returns the rank's number among the pof2 survivors,
 * -1 for one that sat out. */
static hc_status_t coll_rd_fold_in(void *buf, void *tmp, size_t count,
                                   const hcomm_reduce_op_t *op, int rem,
                                   hcomm_comm_t *comm, int *newrank) {
  size_t bytes = count * op->elem_size;
  int rank = hcomm_comm_rank(comm);
  hc_status_t rc = HC_OK;

  if (rank >= 2 * rem) {
    *newrank = rank - rem;
  } else if (rank % 2 == 0) {
    rc = coll_send(buf, bytes, rank + 1, COLL_TAG_ALLREDUCE, comm);
    *newrank = -1;
  } else {
    rc = coll_recv(tmp, bytes, rank - 1, COLL_TAG_ALLREDUCE, comm);
    if (rc == HC_OK)
      op->fn(tmp, buf, count, op->ctx);
    *newrank = rank / 2;
  }
  return rc;
}

/* Recursive doubling: at step k each survivor holds a contiguous, ordered
 * range of ranks and swaps it with the adjacent range; the lower range goes
 * first in the combination. */
static hc_status_t coll_allreduce_rd(void *buf, size_t count,
                                     const hcomm_reduce_op_t *op,
                                     hcomm_comm_t *comm) {
  size_t bytes = count * op->elem_size;
  int size = hcomm_comm_size(comm), rank = hcomm_comm_rank(comm);
  int pof2 = hc_coll_pof2_floor(size), rem = size - pof2, newrank;
  void *tmp = malloc(bytes);
  if (tmp == NULL)
    return HC_ERR_NOMEM;

  hc_status_t rc = coll_rd_fold_in(buf, tmp, count, op, rem, comm, &newrank);
  for (int mask = 1; rc == HC_OK && newrank >= 0 && mask < pof2; mask <<= 1) {
    int pnew = newrank ^ mask;
    int peer = pnew < rem ? 2 * pnew + 1 : pnew + rem;
    rc = coll_sendrecv(buf, bytes, peer, tmp, bytes, peer, COLL_TAG_ALLREDUCE,
                       comm);
    if (rc != HC_OK)
      break;
    if (pnew < newrank) {
      op->fn(tmp, buf, count, op->ctx);
    } else {
      op->fn(buf, tmp, count, op->ctx);
      memcpy(buf, tmp, bytes);
    }
  }
  /* Fold-out: the odd ranks return the result to the ranks that sat out. */
  if (rc == HC_OK && rank < 2 * rem) {
    if (rank % 2 == 0)
      rc = coll_recv(buf, bytes, rank + 1, COLL_TAG_ALLREDUCE, comm);
    else
      rc = coll_send(buf, bytes, rank - 1, COLL_TAG_ALLREDUCE, comm);
  }
  free(tmp);
  return rc;
}

/* Ring reduce-scatter, leaving rank r with the sum of block r+1, then ring
 * allgather of the reduced blocks.  Commutative ops only. */
static hc_status_t coll_allreduce_ring(void *buf, size_t count,
                                       const hcomm_reduce_op_t *op,
                                       hcomm_comm_t *comm) {
  size_t es = op->elem_size, soff, slen, roff, rlen;
  int size = hcomm_comm_size(comm), rank = hcomm_comm_rank(comm);
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  char *b = buf;
  hc_status_t rc = HC_OK;
  void *tmp = malloc((count / (size_t)size + 1) * es);
  if (tmp == NULL)
    return HC_ERR_NOMEM;

  for (int s = 0; s < size - 1 && rc == HC_OK; s++) {
    hc_coll_block(count, size, (rank - s + size) % size, &soff, &slen);
    hc_coll_block(count, size, (rank - s - 1 + 2 * size) % size, &roff, &rlen);
    rc = coll_sendrecv(b + soff * es, slen * es, right, tmp, rlen * es, left,
                       COLL_TAG_ALLREDUCE_RS, comm);
    if (rc == HC_OK)
      op->fn(tmp, b + roff * es, rlen, op->ctx);
  }
  for (int s = 0; s < size - 1 && rc == HC_OK; s++) {
    hc_coll_block(count, size, (rank + 1 - s + size) % size, &soff, &slen);
    hc_coll_block(count, size, (rank - s + size) % size, &roff, &rlen);
    rc = coll_sendrecv(b + soff * es, slen * es, right, b + roff * es,
                       rlen * es, left, COLL_TAG_ALLREDUCE_AG, comm);
  }
  free(tmp);
  return rc;
}

hc_status_t hcomm_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                            const hcomm_reduce_op_t *op, hcomm_comm_t *comm) {
  if (comm == NULL)
    return HC_ERR_COMM;
  hc_status_t rc = coll_check_op(op);
  if (rc != HC_OK)
    return rc;
  size_t bytes = count * op->elem_size;
  int size = hcomm_comm_size(comm);
  if (sendbuf != HCOMM_IN_PLACE && bytes > 0)
    memcpy(recvbuf, sendbuf, bytes);

  switch (hc_coll_allreduce_alg(count, op->elem_size, op->commutative, size)) {
  case HC_COLL_ALG_TRIVIAL:
    return HC_OK;
  case HC_COLL_ALG_RECURSIVE_DOUBLING:
    return coll_allreduce_rd(recvbuf, count, op, comm);
  case HC_COLL_ALG_RING:
    return coll_allreduce_ring(recvbuf, count, op, comm);
  default:
    rc = coll_reduce(hcomm_comm_rank(comm) == 0 ? HCOMM_IN_PLACE : recvbuf,
                     recvbuf, count, op, 0, comm, COLL_TAG_ALLREDUCE);
    if (rc != HC_OK)
      return rc;
    return coll_bcast(recvbuf, bytes, 0, comm, COLL_TAG_ALLREDUCE_BCAST);
  }
}

/* ---- gather -------------------------------------------------------------- */

static hc_status_t coll_gather_linear(const void *mine, size_t bytes,
                                      char *recvbuf, int root,
                                      hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm), rank = hcomm_comm_rank(comm), n = 0;
  hc_status_t rc = HC_OK;
  if (rank != root)
    return coll_send(mine, bytes, root, COLL_TAG_GATHER, comm);

  hcomm_request_t **reqs = calloc((size_t)size, sizeof *reqs);
  if (reqs == NULL)
    return HC_ERR_NOMEM;
  if (mine != recvbuf + (size_t)rank * bytes)
    memcpy(recvbuf + (size_t)rank * bytes, mine, bytes);
  for (int r = 0; r < size && rc == HC_OK; r++)
    if (r != root)
      rc = hc_coll_irecv(recvbuf + (size_t)r * bytes, bytes, r, COLL_TAG_GATHER,
                         comm, &reqs[n++]);
  rc = coll_finish(reqs, n, rc);
  free(reqs);
  return rc;
}

/* Receives the blocks of virtual ranks [vrank + 1, vrank + extent) from the
 * children into col (block i of col is virtual rank vrank + i). */
static hc_status_t coll_gather_children(char *col, size_t bytes, int vrank,
                                        int extent, int root,
                                        hcomm_comm_t *comm) {
  hcomm_request_t *reqs[COLL_MAX_CHILDREN] = {NULL};
  int size = hcomm_comm_size(comm), n = 0;
  hc_status_t rc = HC_OK;
  for (int mask = 1; mask < extent && rc == HC_OK; mask <<= 1) {
    int nblk = extent - mask < mask ? extent - mask : mask;
    rc = hc_coll_irecv(col + (size_t)mask * bytes, (size_t)nblk * bytes,
                       coll_real(vrank + mask, root, size), COLL_TAG_GATHER,
                       comm, &reqs[n++]);
  }
  return coll_finish(reqs, n, rc);
}

/* Binomial gather: each virtual rank collects its subtree's blocks in
 * virtual order and passes them up in one message. */
static hc_status_t coll_gather_binomial(const void *mine, size_t bytes,
                                        char *recvbuf, int root,
                                        hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm);
  int vrank = coll_virtual(hcomm_comm_rank(comm), root, size);
  int low = coll_lowbit(vrank, size);
  int extent = low < size - vrank ? low : size - vrank;
  int parent = coll_real(vrank - low, root, size);
  if (extent == 1)
    return coll_send(mine, bytes, parent, COLL_TAG_GATHER, comm);

  /* Rooted at rank 0 the virtual order is the rank order: gather in place. */
  char *col =
      (vrank == 0 && root == 0) ? recvbuf : malloc((size_t)extent * bytes);
  if (col == NULL)
    return HC_ERR_NOMEM;
  if (col != mine)
    memcpy(col, mine, bytes);
  hc_status_t rc = coll_gather_children(col, bytes, vrank, extent, root, comm);
  if (rc == HC_OK && vrank != 0)
    rc = coll_send(col, (size_t)extent * bytes, parent, COLL_TAG_GATHER, comm);
  if (rc == HC_OK && vrank == 0 && col != recvbuf)
    for (int v = 0; v < size; v++)
      memcpy(recvbuf + (size_t)coll_real(v, root, size) * bytes,
             col + (size_t)v * bytes, bytes);
  if (col != recvbuf)
    free(col);
  return rc;
}

hc_status_t hcomm_gather(const void *sendbuf, size_t bytes, void *recvbuf,
                         int root, hcomm_comm_t *comm) {
  hc_status_t rc = coll_check(comm, root);
  if (rc != HC_OK)
    return rc;
  int size = hcomm_comm_size(comm), rank = hcomm_comm_rank(comm);
  if (sendbuf == HCOMM_IN_PLACE && rank != root)
    return HC_ERR_ARG;
  const void *mine = sendbuf == HCOMM_IN_PLACE
                         ? (const char *)recvbuf + (size_t)rank * bytes
                         : sendbuf;

  switch (hc_coll_gather_alg(bytes, size)) {
  case HC_COLL_ALG_TRIVIAL:
    if (bytes > 0 && mine != recvbuf)
      memcpy(recvbuf, mine, bytes);
    return HC_OK;
  case HC_COLL_ALG_LINEAR:
    return coll_gather_linear(mine, bytes, recvbuf, root, comm);
  default:
    return coll_gather_binomial(mine, bytes, recvbuf, root, comm);
  }
}

/* ---- allgather ----------------------------------------------------------- */

/* Power-of-two sizes: at step k swap the 2^k blocks gathered so far with the
 * partner rank ^ 2^k; both runs are contiguous in recvbuf. */
static hc_status_t coll_allgather_rd(char *recvbuf, size_t bytes,
                                     hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm), rank = hcomm_comm_rank(comm);
  for (int mask = 1; mask < size; mask <<= 1) {
    int peer = rank ^ mask;
    size_t mine = (size_t)(rank & ~(mask - 1)) * bytes;
    size_t theirs = (size_t)(peer & ~(mask - 1)) * bytes;
    hc_status_t rc = coll_sendrecv(recvbuf + mine, (size_t)mask * bytes, peer,
                                   recvbuf + theirs, (size_t)mask * bytes, peer,
                                   COLL_TAG_ALLGATHER, comm);
    if (rc != HC_OK)
      return rc;
  }
  return HC_OK;
}

static hc_status_t coll_allgather_ring(char *recvbuf, size_t bytes,
                                       hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm), rank = hcomm_comm_rank(comm);
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  for (int s = 0; s < size - 1; s++) {
    size_t sblk = (size_t)((rank - s + size) % size);
    size_t rblk = (size_t)((rank - s - 1 + 2 * size) % size);
    hc_status_t rc = coll_sendrecv(recvbuf + sblk * bytes, bytes, right,
                                   recvbuf + rblk * bytes, bytes, left,
                                   COLL_TAG_ALLGATHER, comm);
    if (rc != HC_OK)
      return rc;
  }
  return HC_OK;
}

hc_status_t hcomm_allgather(const void *sendbuf, size_t bytes, void *recvbuf,
                            hcomm_comm_t *comm) {
  if (comm == NULL)
    return HC_ERR_COMM;
  int size = hcomm_comm_size(comm), rank = hcomm_comm_rank(comm);
  char *own = (char *)recvbuf + (size_t)rank * bytes;
  if (sendbuf != HCOMM_IN_PLACE && bytes > 0)
    memcpy(own, sendbuf, bytes);

  switch (hc_coll_allgather_alg(bytes, size)) {
  case HC_COLL_ALG_TRIVIAL:
    return HC_OK;
  case HC_COLL_ALG_RECURSIVE_DOUBLING:
    return coll_allgather_rd(recvbuf, bytes, comm);
  default:
    return coll_allgather_ring(recvbuf, bytes, comm);
  }
}

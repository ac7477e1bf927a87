/*
 * The schedules of Bcast, Reduce, Allreduce and Reduce_scatter, and their
 * I- and persistent forms (hcomm_i*, hcomm_*_init).
 * Each builder appends its rounds to a schedule of nbc.c (nbc_impl.h);
 * the builders pick pointers at build time, e.g. swapping two temporaries
 * instead of copying one into the other.  Everything here runs with the
 * engine lock held, or on a schedule no other thread sees yet.
 */
#include "hcomm/nbc.h"

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/nbc_impl.h"

/* ---- bcast --------------------------------------------------------------- */

/* A bcast buffer: bytes at p, or (p NULL) the packed stream of a derived
 * type reached through acc, which the messages then move fragment by
 * fragment with no whole-message copy. */
typedef struct nbc_bytes {
  char *p;
  const hcomm_accessor_t *acc;
} nbc_bytes_t;

/* Bytes [off, off + len) of b to or from peer. */
static void nbc_bytes_send(hc_nbc_sched_t *s, const nbc_bytes_t *b, size_t off,
                           size_t len, int peer) {
  if (b->p != NULL)
    hc_nbc_add_send(s, b->p + off, len, peer);
  else
    hc_nbc_add_send_acc(s, b->acc, off, len, peer);
}

static void nbc_bytes_recv(hc_nbc_sched_t *s, const nbc_bytes_t *b, size_t off,
                           size_t len, int peer) {
  if (b->p != NULL)
    hc_nbc_add_recv(s, b->p + off, len, peer);
  else
    hc_nbc_add_recv_acc(s, b->acc, off, len, peer);
}

static void nbc_build_bcast_binomial(hc_nbc_sched_t *s, const nbc_bytes_t *b,
                                     size_t bytes, int root) {
  int v = hc_coll_virtual(s->rank, root, s->size),
      low = hc_coll_lowbit(v, s->size);
  if (v != 0) {
    nbc_bytes_recv(s, b, 0, bytes, hc_coll_real(v - low, root, s->size));
    hc_nbc_end_round(s);
  }
  for (int mask = low >> 1; mask > 0; mask >>= 1)
    if (v + mask < s->size)
      nbc_bytes_send(s, b, 0, bytes, hc_coll_real(v + mask, root, s->size));
  hc_nbc_end_round(s);
}

/* Binomial scatter of blk-byte blocks (virtual rank v gets its subtree's
 * blocks), then a ring allgather of the blocks in virtual order. */
static void nbc_build_bcast_scatter_ring(hc_nbc_sched_t *s,
                                         const nbc_bytes_t *b, size_t bytes,
                                         int root) {
  int size = s->size, v = hc_coll_virtual(s->rank, root, size);
  int low = hc_coll_lowbit(v, size);
  size_t blk = (bytes + (size_t)size - 1) / (size_t)size, lo, hi;
  if (v != 0) {
    hc_coll_span(bytes, blk, v, low, &lo, &hi);
    nbc_bytes_recv(s, b, lo, hi - lo, hc_coll_real(v - low, root, size));
    hc_nbc_end_round(s);
  }
  for (int mask = low >> 1; mask > 0; mask >>= 1) {
    if (v + mask >= size)
      continue;
    hc_coll_span(bytes, blk, v + mask, mask, &lo, &hi);
    nbc_bytes_send(s, b, lo, hi - lo, hc_coll_real(v + mask, root, size));
  }
  hc_nbc_end_round(s);
  int right = hc_coll_real(v + 1, root, size),
      left = hc_coll_real(v - 1 + size, root, size);
  for (int st = 0; st < size - 1; st++) {
    size_t slo, shi, rlo, rhi;
    hc_coll_span(bytes, blk, (v - st + size) % size, 1, &slo, &shi);
    hc_coll_span(bytes, blk, (v - st - 1 + 2 * size) % size, 1, &rlo, &rhi);
    nbc_bytes_recv(s, b, rlo, rhi - rlo, left);
    nbc_bytes_send(s, b, slo, shi - slo, right);
    hc_nbc_end_round(s);
  }
}

static void nbc_build_bcast_of(hc_nbc_sched_t *s, const nbc_bytes_t *b,
                               size_t bytes, int root) {
  switch (hc_coll_bcast_alg(bytes, s->size)) {
  case HC_COLL_ALG_TRIVIAL:
    return;
  case HC_COLL_ALG_SCATTER_RING:
    nbc_build_bcast_scatter_ring(s, b, bytes, root);
    return;
  default:
    nbc_build_bcast_binomial(s, b, bytes, root);
  }
}

static void nbc_build_bcast(hc_nbc_sched_t *s, void *buf, size_t bytes,
                            int root) {
  nbc_bytes_t b = {buf, NULL};
  nbc_build_bcast_of(s, &b, bytes, root);
}

static hc_status_t nbc_coll_bcast(void *buf, size_t bytes, int root,
                                  hcomm_comm_t *comm, hcomm_request_t **req,
                                  enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check_root(comm, root, req);
  if (rc == HC_OK && buf == NULL && bytes > 0)
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  hc_shmcoll_op_t shm;
  if (!hc_nbc_use_shmcoll(
          s, &shm, hc_shmcoll_ibcast_prepare(&shm, buf, bytes, root, comm),
          mode))
    nbc_build_bcast(s, buf, bytes, root);
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* The root packs, every other rank unpacks (and packs again to forward);
 * in shared memory where a plain buffer would be (a rank of a dense type
 * takes that path for the same bytes), chunks packed into the segment. */
static hc_status_t nbc_coll_bcast_acc(const hcomm_accessor_t *acc, size_t bytes,
                                      int root, hcomm_comm_t *comm,
                                      hcomm_request_t **req,
                                      enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check_root(comm, root, req);
  if (rc == HC_OK && bytes > 0 &&
      (acc == NULL || acc->pack == NULL ||
       (comm->rank != root && acc->unpack == NULL)))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  hcomm_accessor_t *mine = hc_nbc_tmp(s, sizeof *mine);
  hc_shmcoll_op_t shm;
  nbc_bytes_t b = {NULL, mine};
  if (mine != NULL && bytes > 0) { /* NULL: the launch reports it */
    *mine = *acc;
    if (!hc_nbc_use_shmcoll(
            s, &shm,
            hc_shmcoll_ibcast_acc_prepare(&shm, mine, bytes, root, comm), mode))
      nbc_build_bcast_of(s, &b, bytes, root);
  }
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* ---- reduce -------------------------------------------------------------- */

/*
 * Binomial reduction of mine (count elements) into out at root.  Virtual
 * rank v holds the combination of ranks [v, v + k) and appends the received
 * [v + k, v + 2k) on the right, so a tree based at rank 0 keeps rank order:
 * commutative ops reduce straight to the root, the others to rank 0 which
 * then sends the result to the root.
 */
static void nbc_build_reduce(hc_nbc_sched_t *s, const void *mine, void *out,
                             size_t count, int root) {
  size_t bytes = count * s->op.elem_size;
  int size = s->size, base = s->op.commutative ? root : 0;
  int v = hc_coll_virtual(s->rank, base, size);
  const void *cur = mine;
  void *acc = NULL, *tmp = NULL;
  if (size == 1) {
    hc_nbc_add_copy(s, mine, out, bytes);
    return;
  }
  for (int mask = 1; mask < size; mask <<= 1) {
    if (v & mask) {
      hc_nbc_add_send(s, cur, bytes, hc_coll_real(v - mask, base, size));
      hc_nbc_end_round(s);
      break;
    }
    if (v + mask >= size)
      continue;
    if (acc == NULL) {
      acc = hc_nbc_tmp(s, bytes);
      tmp = hc_nbc_tmp(s, bytes);
      if (tmp == NULL)
        return;
      hc_nbc_add_copy(s, mine, acc, bytes);
    }
    hc_nbc_add_recv(s, tmp, bytes, hc_coll_real(v + mask, base, size));
    hc_nbc_end_round(s);
    hc_nbc_add_combine(s, acc, tmp, count);
    void *swap = acc; /* the combination is now in tmp */
    acc = tmp;
    tmp = swap;
    cur = acc;
  }
  if (v == 0 && base == root) {
    hc_nbc_add_copy(s, acc, out, bytes);
  } else if (v == 0) {
    hc_nbc_add_send(s, acc, bytes, root);
    hc_nbc_end_round(s);
  } else if (s->rank == root) {
    hc_nbc_add_recv(s, out, bytes, base);
    hc_nbc_end_round(s);
  }
}

static hc_status_t nbc_coll_reduce(const void *sendbuf, void *recvbuf,
                                   size_t count, const hcomm_reduce_op_t *op,
                                   int root, hcomm_comm_t *comm,
                                   hcomm_request_t **req,
                                   enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check_root(comm, root, req);
  if (rc == HC_OK)
    rc = hc_nbc_check_op(comm, op, req);
  if (rc == HC_OK && sendbuf == HCOMM_IN_PLACE && comm->rank != root)
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, op, &s);
  if (rc != HC_OK)
    return rc;
  const void *mine = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  hc_shmcoll_op_t shm;
  if (count > 0 &&
      !hc_nbc_use_shmcoll(s, &shm,
                          hc_shmcoll_ireduce_prepare(&shm, sendbuf, recvbuf,
                                                     count, op, root, comm),
                          mode))
    nbc_build_reduce(s, mine, recvbuf, count, root);
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* ---- allreduce ----------------------------------------------------------- */

/* Fold-in for a non-power-of-two size (rem = size - pof2): among the first
 * 2*rem ranks each even rank hands its vector to the odd rank above (the
 * lower rank first in the combination, so rank order holds) and gets the
 * result back at the end (nbc_fold_out).  Returns the rank's number among
 * the pof2 survivors, -1 for one that sat out. */
static int nbc_fold_in(hc_nbc_sched_t *s, void *buf, void *tmp, size_t count,
                       int rem) {
  size_t bytes = count * s->op.elem_size;
  int rank = s->rank;
  if (rank >= 2 * rem)
    return rank - rem;
  if (rank % 2 == 0) {
    hc_nbc_add_send(s, buf, bytes, rank + 1);
    hc_nbc_end_round(s);
    hc_nbc_add_recv(s, buf, bytes, rank + 1);
    hc_nbc_end_round(s);
    return -1;
  }
  hc_nbc_add_recv(s, tmp, bytes, rank - 1);
  hc_nbc_end_round(s);
  hc_nbc_add_combine(s, tmp, buf, count);
  return rank / 2;
}

static void nbc_fold_out(hc_nbc_sched_t *s, void *buf, size_t bytes, int rem) {
  if (s->rank < 2 * rem && s->rank % 2 == 1) {
    hc_nbc_add_send(s, buf, bytes, s->rank - 1);
    hc_nbc_end_round(s);
  }
}

/* The rank of survivor number v after the fold-in. */
static int nbc_survivor(int v, int rem) {
  return v < rem ? 2 * v + 1 : v + rem;
}

/* Recursive doubling after the fold-in: survivors swap ordered, adjacent
 * ranges, the lower range first in each combination, so rank order
 * holds. */
static void nbc_build_allreduce_rd(hc_nbc_sched_t *s, void *buf, size_t count) {
  size_t bytes = count * s->op.elem_size;
  int pof2 = hc_coll_pof2_floor(s->size), rem = s->size - pof2;
  void *tmp = hc_nbc_tmp(s, bytes), *acc = buf;
  if (tmp == NULL)
    return;
  int newrank = nbc_fold_in(s, buf, tmp, count, rem);
  if (newrank < 0)
    return;
  for (int mask = 1; mask < pof2; mask <<= 1) {
    int pnew = newrank ^ mask, peer = nbc_survivor(pnew, rem);
    hc_nbc_add_recv(s, tmp, bytes, peer);
    hc_nbc_add_send(s, acc, bytes, peer);
    hc_nbc_end_round(s);
    if (pnew < newrank) {
      hc_nbc_add_combine(s, tmp, acc, count);
    } else {
      hc_nbc_add_combine(s, acc, tmp, count);
      void *swap = acc;
      acc = tmp;
      tmp = swap;
    }
  }
  hc_nbc_add_copy(s, acc, buf, bytes);
  nbc_fold_out(s, buf, bytes, rem);
}

/* Elements [*off, *off + *len) of blocks [first, first + n) of the pof2
 * near-equal blocks of count elements. */
static void nbc_blocks(size_t count, int pof2, int first, int n, size_t *off,
                       size_t *len) {
  size_t last_off, last_len;
  hc_coll_block(count, pof2, first, off, len);
  hc_coll_block(count, pof2, first + n - 1, &last_off, &last_len);
  *len = last_off + last_len - *off;
}

/* Rabenseifner on a power-of-two size p: a reduce-scatter by recursive
 * halving (each round keeps the half of its share that its bit names and
 * sends the partner the other half) leaves rank v with block v combined;
 * an allgather by recursive doubling retraces the halving.  2 log p
 * rounds, 2(p-1)/p of the vector per rank.  Halves combine out of rank
 * order: commutative ops only. */
static void nbc_build_allreduce_rsag(hc_nbc_sched_t *s, char *buf,
                                     size_t count) {
  size_t es = s->op.elem_size, off, len, poff, plen;
  int p = s->size, v = s->rank, first = 0;
  char *tmp = hc_nbc_tmp(s, (count / 2 + (size_t)p) * es); /* a kept half */
  if (tmp == NULL)
    return;
  for (int n = p / 2; n >= 1; n /= 2) {
    int peer = v ^ n;
    int keep = (v & n) ? first + n : first, give = (v & n) ? first : first + n;
    nbc_blocks(count, p, keep, n, &off, &len);
    nbc_blocks(count, p, give, n, &poff, &plen);
    hc_nbc_add_recv(s, tmp, len * es, peer);
    hc_nbc_add_send(s, buf + poff * es, plen * es, peer);
    hc_nbc_end_round(s);
    hc_nbc_add_combine(s, tmp, buf + off * es, len);
    first = keep;
  }
  for (int n = 1; n < p; n <<= 1) {
    int peer = v ^ n;
    nbc_blocks(count, p, v & ~(n - 1), n, &off, &len);
    nbc_blocks(count, p, peer & ~(n - 1), n, &poff, &plen);
    hc_nbc_add_recv(s, buf + poff * es, plen * es, peer);
    hc_nbc_add_send(s, buf + off * es, len * es, peer);
    hc_nbc_end_round(s);
  }
}

/* Ring reduce-scatter, leaving rank r with block r+1 reduced, then a ring
 * allgather of the blocks.  Combines out of rank order: commutative only. */
static void nbc_build_allreduce_ring(hc_nbc_sched_t *s, char *b, size_t count) {
  size_t es = s->op.elem_size, soff, slen, roff, rlen;
  int size = s->size, rank = s->rank;
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  char *tmp = hc_nbc_tmp(s, (count / (size_t)size + 1) * es);
  if (tmp == NULL)
    return;
  for (int st = 0; st < size - 1; st++) {
    hc_coll_block(count, size, (rank - st + size) % size, &soff, &slen);
    hc_coll_block(count, size, (rank - st - 1 + 2 * size) % size, &roff, &rlen);
    hc_nbc_add_recv(s, tmp, rlen * es, left);
    hc_nbc_add_send(s, b + soff * es, slen * es, right);
    hc_nbc_end_round(s);
    hc_nbc_add_combine(s, tmp, b + roff * es, rlen);
  }
  for (int st = 0; st < size - 1; st++) {
    hc_coll_block(count, size, (rank + 1 - st + size) % size, &soff, &slen);
    hc_coll_block(count, size, (rank - st + size) % size, &roff, &rlen);
    hc_nbc_add_recv(s, b + roff * es, rlen * es, left);
    hc_nbc_add_send(s, b + soff * es, slen * es, right);
    hc_nbc_end_round(s);
  }
}

/* Point-to-point, by size and commutativity (hc_coll_allreduce_alg). */
static void nbc_build_allreduce(hc_nbc_sched_t *s, const void *sendbuf,
                                void *recvbuf, size_t count) {
  const hcomm_reduce_op_t *op = &s->op;
  size_t bytes = count * op->elem_size;
  if (sendbuf != HCOMM_IN_PLACE)
    hc_nbc_add_copy(s, sendbuf, recvbuf, bytes);
  switch (
      hc_coll_allreduce_alg(count, op->elem_size, op->commutative, s->size)) {
  case HC_COLL_ALG_TRIVIAL:
    break;
  case HC_COLL_ALG_RING:
    nbc_build_allreduce_ring(s, recvbuf, count);
    break;
  case HC_COLL_ALG_RABENSEIFNER:
    nbc_build_allreduce_rsag(s, recvbuf, count);
    break;
  case HC_COLL_ALG_REDUCE_BCAST:
    nbc_build_reduce(s, recvbuf, recvbuf, count, 0);
    nbc_build_bcast(s, recvbuf, bytes, 0);
    break;
  default:
    nbc_build_allreduce_rd(s, recvbuf, count);
  }
}

static hc_status_t nbc_coll_allreduce(const void *sendbuf, void *recvbuf,
                                      size_t count, const hcomm_reduce_op_t *op,
                                      hcomm_comm_t *comm, hcomm_request_t **req,
                                      enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check_op(comm, op, req);
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, op, &s);
  if (rc != HC_OK)
    return rc;
  hc_shmcoll_op_t shm;
  if (!hc_nbc_use_shmcoll(s, &shm,
                          hc_shmcoll_ireduce_prepare(&shm, sendbuf, recvbuf,
                                                     count, op, -1, comm),
                          mode))
    nbc_build_allreduce(s, sendbuf, recvbuf, count);
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* ---- reduce_scatter ------------------------------------------------------ */

/* Commutative: ring reduce-scatter over the caller's blocks (each rank
 * sends (p-1)/p of the vector).  Block r of the ring at step st is sent by
 * rank r+st+1 and ends fully combined at rank r. */
static void nbc_build_reduce_scatter_ring(hc_nbc_sched_t *s, const void *mine,
                                          void *recvbuf, const size_t *counts,
                                          const size_t *displs, size_t total) {
  size_t es = s->op.elem_size, most = 0;
  int size = s->size, rank = s->rank;
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  for (int r = 0; r < size; r++)
    most = counts[r] > most ? counts[r] : most;
  char *acc = hc_nbc_tmp(s, total * es), *tmp = hc_nbc_tmp(s, most * es);
  if (tmp == NULL)
    return;
  hc_nbc_add_copy(s, mine, acc, total * es);
  for (int st = 0; st < size - 1; st++) {
    int sb = (rank - st - 1 + 2 * size) % size;
    int rb = (rank - st - 2 + 2 * size) % size;
    hc_nbc_add_recv(s, tmp, counts[rb] * es, left);
    hc_nbc_add_send(s, acc + displs[sb] * es, counts[sb] * es, right);
    hc_nbc_end_round(s);
    hc_nbc_add_combine(s, tmp, acc + displs[rb] * es, counts[rb]);
  }
  hc_nbc_add_copy(s, acc + displs[rank] * es, recvbuf, counts[rank] * es);
}

static hc_status_t nbc_coll_reduce_scatter(const void *sendbuf, void *recvbuf,
                                           const size_t *counts,
                                           const hcomm_reduce_op_t *op,
                                           hcomm_comm_t *comm,
                                           hcomm_request_t **req,
                                           enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check_op(comm, op, req);
  if (rc == HC_OK && counts == NULL)
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, op, &s);
  if (rc != HC_OK)
    return rc;
  int size = comm->size;
  size_t es = op->elem_size, total = 0;
  size_t *arr = hc_nbc_tmp(s, 3 * (size_t)size * sizeof(size_t));
  if (arr == NULL)
    return hc_nbc_launch(s, mode == HC_NBC_PLAN, req); /* reports the failure */
  for (int r = 0; r < size; r++) {
    arr[r] = counts[r];
    arr[size + r] = total; /* element displacement */
    arr[2 * size + r] = counts[r] * es;
    total += counts[r];
  }
  const void *mine = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  hc_shmcoll_op_t shm;
  if (total == 0) {
    /* nothing to combine */
  } else if (hc_nbc_use_shmcoll(s, &shm,
                                hc_shmcoll_ireduce_scatter_prepare(
                                    &shm, sendbuf, recvbuf, arr, op, comm),
                                mode)) {
    /* the segment's step (it reads no table as it runs) */
  } else if (size == 1) {
    hc_nbc_add_copy(s, mine, recvbuf, total * es);
  } else if (op->commutative) {
    nbc_build_reduce_scatter_ring(s, mine, recvbuf, arr, arr + size, total);
  } else {
    /* Rank order: reduce the whole vector at rank 0, then scatter it. */
    char *full = hc_nbc_tmp(s, total * es);
    size_t *bdispls = hc_nbc_tmp(s, (size_t)size * sizeof(size_t));
    if (bdispls != NULL) {
      for (int r = 0; r < size; r++)
        bdispls[r] = arr[size + r] * es;
      nbc_build_reduce(s, mine, full, total, 0);
      hc_nbc_build_scatterv(s, full, arr + 2 * size, bdispls, recvbuf,
                            counts[comm->rank] * es, 0);
    }
  }
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* ---- the public forms: started now (hcomm_i*) or kept (hcomm_*_init) ---- */

hc_status_t hcomm_ibcast(void *buf, size_t bytes, int root, hcomm_comm_t *comm,
                         hcomm_request_t **req) {
  return nbc_coll_bcast(buf, bytes, root, comm, req, HC_NBC_START);
}

hc_status_t hcomm_ibcast_acc(const hcomm_accessor_t *acc, size_t bytes,
                             int root, hcomm_comm_t *comm,
                             hcomm_request_t **req) {
  return nbc_coll_bcast_acc(acc, bytes, root, comm, req, HC_NBC_START);
}

hc_status_t hcomm_bcast_acc_init(const hcomm_accessor_t *acc, size_t bytes,
                                 int root, hcomm_comm_t *comm,
                                 hcomm_request_t **req) {
  return nbc_coll_bcast_acc(acc, bytes, root, comm, req, HC_NBC_PLAN);
}

hc_status_t hcomm_bcast_init(void *buf, size_t bytes, int root,
                             hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_bcast(buf, bytes, root, comm, req, HC_NBC_PLAN);
}

hc_status_t hcomm_ireduce(const void *sendbuf, void *recvbuf, size_t count,
                          const hcomm_reduce_op_t *op, int root,
                          hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_reduce(sendbuf, recvbuf, count, op, root, comm, req,
                         HC_NBC_START);
}

hc_status_t hcomm_reduce_init(const void *sendbuf, void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *op, int root,
                              hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_reduce(sendbuf, recvbuf, count, op, root, comm, req,
                         HC_NBC_PLAN);
}

hc_status_t hcomm_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
                             const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                             hcomm_request_t **req) {
  return nbc_coll_allreduce(sendbuf, recvbuf, count, op, comm, req,
                            HC_NBC_START);
}

hc_status_t hcomm_allreduce_init(const void *sendbuf, void *recvbuf,
                                 size_t count, const hcomm_reduce_op_t *op,
                                 hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_allreduce(sendbuf, recvbuf, count, op, comm, req,
                            HC_NBC_PLAN);
}

hc_status_t hcomm_ireduce_scatter(const void *sendbuf, void *recvbuf,
                                  const size_t *counts,
                                  const hcomm_reduce_op_t *op,
                                  hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_reduce_scatter(sendbuf, recvbuf, counts, op, comm, req,
                                 HC_NBC_START);
}

hc_status_t hcomm_reduce_scatter_init(const void *sendbuf, void *recvbuf,
                                      const size_t *counts,
                                      const hcomm_reduce_op_t *op,
                                      hcomm_comm_t *comm,
                                      hcomm_request_t **req) {
  return nbc_coll_reduce_scatter(sendbuf, recvbuf, counts, op, comm, req,
                                 HC_NBC_PLAN);
}

/* ---- building blocks of other schedules (nbc.h) ------------------------- */

void hc_nbc_add_bcast(hc_nbc_sched_t *s, void *buf, size_t bytes, int root) {
  hc_nbc_end_round(s);
  nbc_build_bcast(s, buf, bytes, root);
  hc_nbc_end_round(s);
}

void hc_nbc_add_reduce(hc_nbc_sched_t *s, const void *mine, void *out,
                       size_t count, int root) {
  hc_nbc_end_round(s);
  if (count > 0)
    nbc_build_reduce(s, mine, out, count, root);
  hc_nbc_end_round(s);
}

void hc_nbc_add_allreduce(hc_nbc_sched_t *s, void *buf, size_t count) {
  hc_nbc_end_round(s);
  if (s->size > 1)
    nbc_build_allreduce_rd(s, buf, count);
  hc_nbc_end_round(s);
}

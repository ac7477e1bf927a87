/*
 * The schedules of Alltoall(v) and of the neighbourhood exchanges, and
 * their I- and persistent forms (hcomm_i*, hcomm_*_init).
 * Each builder appends its rounds to a schedule of nbc.c (nbc_impl.h);
 * the builders pick pointers at build time, e.g. swapping two temporaries
 * instead of copying one into the other.  Everything here runs with the
 * engine lock held, or on a schedule no other thread sees yet.
 */
#include "hcomm/nbc.h"

#include <string.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/nbc_impl.h"
#include "hcomm/proto.h"

/* ---- alltoall ------------------------------------------------------------ */

/*
 * Linear (hc_coll_alltoall_alg): every message in flight at once in one
 * round; pairwise: one partner per round (rank +- i).
 */
static void nbc_build_alltoallv(hc_nbc_sched_t *s, const char *sendbuf,
                                const size_t *sbytes, const size_t *sdispls,
                                char *recvbuf, const size_t *rbytes,
                                const size_t *rdispls) {
  int size = s->size, rank = s->rank;
  size_t most = 0;
  for (int r = 0; r < size; r++)
    most = rbytes[r] > most ? rbytes[r] : most;
  if (sendbuf == HCOMM_IN_PLACE) {
    size_t span = 0;
    for (int r = 0; r < size; r++)
      if (rdispls[r] + rbytes[r] > span)
        span = rdispls[r] + rbytes[r];
    char *copy = hc_nbc_tmp(s, span);
    if (copy == NULL)
      return;
    hc_nbc_add_copy(s, recvbuf, copy,
                    span); /* first step: the input of this run */
    sendbuf = copy;
    sbytes = rbytes;
    sdispls = rdispls;
  }
  hc_nbc_add_copy(s, sendbuf + sdispls[rank], recvbuf + rdispls[rank],
                  sbytes[rank]);
  int linear = hc_coll_alltoall_alg(most, size, 0) != HC_COLL_ALG_PAIRWISE;
  for (int i = 1; i < size; i++) {
    int to = (rank + i) % size, from = (rank - i + size) % size;
    /* An empty block is no message: both of its ends know it is empty. */
    if (rbytes[from] > 0)
      hc_nbc_add_recv(s, recvbuf + rdispls[from], rbytes[from], from);
    if (sbytes[to] > 0)
      hc_nbc_add_send(s, sendbuf + sdispls[to], sbytes[to], to);
    if (!linear)
      hc_nbc_end_round(s);
  }
  hc_nbc_end_round(s);
}

/* Sizes and displacements of both sides, in the schedule's memory (the
 * segment's step reads them as it runs); the send side is the receive
 * side's in place.  NULL as for hc_nbc_tmp. */
static size_t *nbc_alltoallv_tables(hc_nbc_sched_t *s, const void *sendbuf,
                                    const size_t *sbytes, const size_t *sdispls,
                                    const size_t *rbytes,
                                    const size_t *rdispls) {
  size_t n = (size_t)s->size, each = n * sizeof(size_t);
  size_t *t = hc_nbc_tmp(s, 4 * each);
  if (t == NULL)
    return NULL;
  memcpy(t, rbytes, each);
  memcpy(t + n, rdispls, each);
  memcpy(t + 2 * n, sendbuf == HCOMM_IN_PLACE ? rbytes : sbytes, each);
  memcpy(t + 3 * n, sendbuf == HCOMM_IN_PLACE ? rdispls : sdispls, each);
  return t;
}

/* After the segment's step (shm) moved the blocks of at most shm->step
 * bytes: the larger ones as messages, each pair of ranks agreeing on
 * which, since both ends of a block know its size. */
static void nbc_build_alltoallv_rest(hc_nbc_sched_t *s,
                                     const hc_shmcoll_op_t *shm,
                                     const void *sendbuf, const size_t *t,
                                     void *recvbuf) {
  size_t n = (size_t)s->size;
  size_t *big = hc_nbc_tmp(s, 2 * n * sizeof *big);
  if (big == NULL)
    return;
  int any = 0;
  for (int r = 0; r < s->size; r++) {
    big[r] = r != s->rank && t[r] > shm->step ? t[r] : 0;
    big[n + r] = r != s->rank && t[2 * n + r] > shm->step ? t[2 * n + r] : 0;
    any |= big[r] > 0 || big[n + r] > 0;
  }
  if (any)
    nbc_build_alltoallv(s, sendbuf, big + n, t + 3 * n, recvbuf, big, t + n);
}

static hc_status_t nbc_coll_alltoallv(const void *sendbuf, const size_t *sbytes,
                                      const size_t *sdispls, void *recvbuf,
                                      const size_t *rbytes,
                                      const size_t *rdispls, hcomm_comm_t *comm,
                                      hcomm_request_t **req,
                                      enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check(comm, req);
  if (rc == HC_OK &&
      (rbytes == NULL || rdispls == NULL ||
       (sendbuf != HCOMM_IN_PLACE && (sbytes == NULL || sdispls == NULL))))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  size_t *t =
      nbc_alltoallv_tables(s, sendbuf, sbytes, sdispls, rbytes, rdispls);
  hc_shmcoll_op_t shm;
  if (t != NULL &&
      hc_nbc_use_shmcoll(s, &shm,
                         hc_shmcoll_ialltoall_prepare(
                             &shm, sendbuf, t + 2 * s->size, t + 3 * s->size,
                             recvbuf, t, t + s->size, 0, comm),
                         mode))
    nbc_build_alltoallv_rest(s, &shm, sendbuf, t, recvbuf);
  else
    nbc_build_alltoallv(s, sendbuf, sbytes, sdispls, recvbuf, rbytes, rdispls);
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* Bruck, for small blocks on many ranks: log p rounds instead of p - 1
 * messages.  The blocks are rotated so that block i is bound for rank
 * rank + i; round k sends every block whose index has bit k set to rank + k
 * (packed into one message) and takes the same positions from rank - k;
 * after the last round block i came from rank - i.  Reads all of in before
 * writing out, so in may be out (in place). */
static void nbc_build_alltoall_bruck(hc_nbc_sched_t *s, const char *in,
                                     size_t bytes, char *out) {
  int size = s->size, rank = s->rank, half = (size + 1) / 2;
  char *rot = hc_nbc_tmp(s, (size_t)size * bytes);
  char *pack = hc_nbc_tmp(s, (size_t)half * bytes);
  char *got = hc_nbc_tmp(s, (size_t)half * bytes);
  if (got == NULL)
    return;
  hc_nbc_add_rotate(s, in, rot, bytes, rank);
  for (int k = 1; k < size; k <<= 1) {
    size_t n = 0;
    for (int i = 1; i < size; i++)
      if (i & k)
        hc_nbc_add_copy(s, rot + (size_t)i * bytes, pack + n++ * bytes, bytes);
    hc_nbc_add_recv(s, got, n * bytes, (rank - k + size) % size);
    hc_nbc_add_send(s, pack, n * bytes, (rank + k) % size);
    hc_nbc_end_round(s);
    n = 0;
    for (int i = 1; i < size; i++)
      if (i & k)
        hc_nbc_add_copy(s, got + n++ * bytes, rot + (size_t)i * bytes, bytes);
  }
  for (int i = 0; i < size; i++)
    hc_nbc_add_copy(s, rot + (size_t)i * bytes,
                    out + (size_t)((rank - i + size) % size) * bytes, bytes);
}

/* The messages that repair a read exchange's failed reads (below): the
 * segment's step that read, and its requests, kept for every start. */
typedef struct nbc_read_repair {
  const hc_shmcoll_op_t *op;
  int posted;
  hcomm_request_t **reqs; /* 2 per rank: a send, a receive; NULL: none */
} nbc_read_repair_t;

/* A poll step after an alltoall's reads: at its first pass each block
 * whose read failed moves as a message between its two ranks (both ends
 * see the same failures in the segment's tables); 1 once they all
 * arrived. */
static int nbc_alltoall_repair(hc_nbc_sched_t *s, void *arg) {
  nbc_read_repair_t *fix = arg;
  const hc_shmcoll_op_t *op = fix->op;
  int n = s->size;
  if (!fix->posted) {
    fix->posted = 1;
    for (int j = 0; j < n && s->error == HC_OK; j++) {
      hc_status_t rc = HC_OK;
      if (j != s->rank && hc_shmcoll_alltoall_unread(op, j, 1))
        rc = hc_isend_locked(op->in + op->sdispls[j], op->scounts[j], j,
                             s->tag, s->comm, HCOMM_SEND_STANDARD, 1,
                             &fix->reqs[2 * j]);
      if (rc == HC_OK && j != s->rank && hc_shmcoll_alltoall_unread(op, j, 0))
        rc = hc_irecv_locked(op->out + op->displs[j], op->counts[j], j, s->tag,
                             s->comm, 1, &fix->reqs[2 * j + 1]);
      hc_nbc_fail(s, rc);
    }
  }
  for (int i = 0; i < 2 * n; i++)
    if (fix->reqs[i] != NULL && !atomic_load(&fix->reqs[i]->done) &&
        s->error == HC_OK)
      return 0;
  for (int i = 0; i < 2 * n; i++) {
    if (fix->reqs[i] == NULL)
      continue;
    if (!atomic_load(&fix->reqs[i]->done))
      hc_proto_cancel(fix->reqs[i]);
    else
      hc_nbc_fail(s, fix->reqs[i]->status.error);
    hc_request_release(fix->reqs[i]);
    fix->reqs[i] = NULL;
  }
  fix->posted = 0;
  return 1;
}

/* The repair (above) of the lane's collective op behind its step. */
static void nbc_alltoall_add_repair(hc_nbc_sched_t *s,
                                    const hc_shmcoll_op_t *op) {
  nbc_read_repair_t *fix = hc_nbc_tmp(s, sizeof *fix);
  hcomm_request_t **reqs = hc_nbc_tmp(s, 2 * (size_t)s->size * sizeof *reqs);
  if (fix == NULL || reqs == NULL)
    return; /* the schedule failed */
  memset(reqs, 0, 2 * (size_t)s->size * sizeof *reqs);
  *fix = (nbc_read_repair_t){.op = op, .reqs = reqs};
  hc_nbc_add_poll(s, nbc_alltoall_repair, fix);
}

/* A persistent Alltoall of blocks above the segment's part: as the
 * blocking Alltoallv, each rank reads every block from its sender's
 * buffer at each start (shmcoll.c), the failed reads repaired by messages
 * after; a point-to-point schedule at every start was 1.2-2.5x the
 * blocking form (bench/NOTES.md, pcoll16l).  1: it runs so now; 2: its
 * claim of a lane waits (build the schedule, then hc_nbc_lane_begin and
 * the repair); 0: it does not read here (two ranks, in place, reads off,
 * no lane): the schedule. */
static int nbc_alltoall_reads(hc_nbc_sched_t *s, const void *sendbuf,
                              size_t bytes, void *recvbuf,
                              hcomm_comm_t *comm) {
  size_t *arr = hc_nbc_even_blocks(s, bytes);
  hc_shmcoll_op_t shm;
  if (arr == NULL || s->shm_first_taken ||
      hc_shmcoll_ialltoall_prepare(&shm, sendbuf, arr, arr + s->size, recvbuf,
                                   arr, arr + s->size, 0, comm) != HC_OK ||
      !hc_shmcoll_alltoall_reads(&shm, sendbuf))
    return 0;
  if (!hc_nbc_use_shmcoll(s, &shm, HC_OK, HC_NBC_PLAN))
    return s->lane_claim != NULL ? 2 : 0;
  nbc_alltoall_add_repair(s, &s->shm_first);
  return 1;
}

static hc_status_t nbc_coll_alltoall(const void *sendbuf, size_t bytes,
                                     void *recvbuf, hcomm_comm_t *comm,
                                     hcomm_request_t **req,
                                     enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check(comm, req);
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  int size = comm->size;
  size_t *arr = NULL;
  hc_shmcoll_op_t shm;
  if (hc_nbc_use_shmcoll(s, &shm,
                         hc_shmcoll_ialltoall_prepare(&shm, sendbuf, NULL, NULL,
                                                      recvbuf, NULL, NULL,
                                                      bytes, comm),
                         mode))
    return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
  int reads =
      mode == HC_NBC_PLAN ? nbc_alltoall_reads(s, sendbuf, bytes, recvbuf, comm)
                          : 0;
  if (reads == 1)
    return hc_nbc_launch(s, 1, req);
  if (hc_coll_alltoall_alg(bytes, size, 1) == HC_COLL_ALG_BRUCK)
    nbc_build_alltoall_bruck(s, sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf,
                             bytes, recvbuf);
  else if ((arr = hc_nbc_even_blocks(s, bytes)) != NULL)
    nbc_build_alltoallv(s, sendbuf, arr, arr + size, recvbuf, arr, arr + size);
  if (reads == 2) /* the read and its repair, once the lane is given back */
    nbc_alltoall_add_repair(s, hc_nbc_lane_begin(s));
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* ---- neighbourhood exchange --------------------------------------------- */

/*
 * One round: every receive posted, then every send, each list in the order
 * the caller gave it, so the messages between one pair of ranks (a rank may
 * be a neighbour twice) match in that order; HCOMM_PROC_NULL entries move
 * nothing.
 */
static void nbc_build_neighbor(hc_nbc_sched_t *s, const char *sendbuf,
                               const hcomm_neighbors_t *send, char *recvbuf,
                               const hcomm_neighbors_t *recv) {
  for (int i = 0; i < recv->n; i++)
    if (recv->peers[i] != HCOMM_PROC_NULL)
      hc_nbc_add_recv(s, recvbuf + recv->offs[i], recv->bytes[i],
                      recv->peers[i]);
  for (int i = 0; i < send->n; i++)
    if (send->peers[i] != HCOMM_PROC_NULL)
      hc_nbc_add_send(s, sendbuf + send->offs[i], send->bytes[i],
                      send->peers[i]);
  hc_nbc_end_round(s);
}

static int nbc_neighbors_ok(const hcomm_neighbors_t *side, int size) {
  if (side == NULL || side->n < 0 ||
      (side->n > 0 &&
       (side->peers == NULL || side->bytes == NULL || side->offs == NULL)))
    return 0;
  for (int i = 0; i < side->n; i++)
    if (side->peers[i] != HCOMM_PROC_NULL &&
        (side->peers[i] < 0 || side->peers[i] >= size))
      return 0;
  return 1;
}

static hc_status_t nbc_coll_neighbor(const void *sendbuf,
                                     const hcomm_neighbors_t *send,
                                     void *recvbuf,
                                     const hcomm_neighbors_t *recv,
                                     hcomm_comm_t *comm, hcomm_request_t **req,
                                     enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check(comm, req);
  if (rc == HC_OK && (!nbc_neighbors_ok(send, comm->size) ||
                      !nbc_neighbors_ok(recv, comm->size)))
    rc = HC_ERR_ARG;
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  nbc_build_neighbor(s, sendbuf, send, recvbuf, recv);
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* ---- the public forms: started now (hcomm_i*) or kept (hcomm_*_init) ---- */

hc_status_t hcomm_ialltoallv(const void *sendbuf, const size_t *sbytes,
                             const size_t *sdispls, void *recvbuf,
                             const size_t *rbytes, const size_t *rdispls,
                             hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_alltoallv(sendbuf, sbytes, sdispls, recvbuf, rbytes, rdispls,
                            comm, req, HC_NBC_START);
}

hc_status_t hcomm_alltoallv_init(const void *sendbuf, const size_t *sbytes,
                                 const size_t *sdispls, void *recvbuf,
                                 const size_t *rbytes, const size_t *rdispls,
                                 hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_alltoallv(sendbuf, sbytes, sdispls, recvbuf, rbytes, rdispls,
                            comm, req, HC_NBC_PLAN);
}

hc_status_t hcomm_ialltoall(const void *sendbuf, size_t bytes, void *recvbuf,
                            hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_alltoall(sendbuf, bytes, recvbuf, comm, req, HC_NBC_START);
}

hc_status_t hcomm_alltoall_init(const void *sendbuf, size_t bytes,
                                void *recvbuf, hcomm_comm_t *comm,
                                hcomm_request_t **req) {
  return nbc_coll_alltoall(sendbuf, bytes, recvbuf, comm, req, HC_NBC_PLAN);
}

hc_status_t hcomm_ineighbor(const void *sendbuf, const hcomm_neighbors_t *send,
                            void *recvbuf, const hcomm_neighbors_t *recv,
                            hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_neighbor(sendbuf, send, recvbuf, recv, comm, req,
                           HC_NBC_START);
}

hc_status_t hcomm_neighbor_init(const void *sendbuf,
                                const hcomm_neighbors_t *send, void *recvbuf,
                                const hcomm_neighbors_t *recv,
                                hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_neighbor(sendbuf, send, recvbuf, recv, comm, req,
                           HC_NBC_PLAN);
}

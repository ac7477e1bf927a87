/*
 * Collectives on intercommunicators (MPI 4.0 section 6.2.2), as schedules
 * of nbc.c: the non-blocking call starts the schedule, the blocking one
 * starts it and waits, the persistent one (MPI_*_init) keeps it inactive
 * for hcomm_start.  Each group talks to the other only through its
 * leader (local rank 0) wherever the data allows it: the group that
 * contributes combines or collects its data at its leader with the
 * collectives of nbc.c over the local group (which has a context of its
 * own), the leaders exchange one message, and the receiving leader spreads
 * the result over its group.  Only the forms whose blocks differ per peer
 * (gatherv, scatterv, allgatherv, alltoall(v,w)) send directly between
 * the two groups, one message per pair.
 *
 * Rooted collectives name the root as MPI does: in the root's group the
 * root passes HCOMM_ROOT and the others HCOMM_PROC_NULL (they take no
 * part); in the other group root is the root's rank in the remote group.
 * Every step runs with the engine lock held (nbc.c).
 */
#include <stdlib.h>

#include "hcomm/comm.h"
#include "hcomm/nbc.h"

/* A reduction's op; the others pass none. */
static const hcomm_reduce_op_t ic_no_op;

/* Checks comm, req and op (&ic_no_op: a collective without one) and makes
 * the schedule. */
static hc_status_t ic_begin(hcomm_comm_t *comm, const hcomm_reduce_op_t *op,
                            hcomm_request_t **req, hc_nbc_sched_t **s) {
  if (comm == NULL || comm->local == NULL)
    return HC_ERR_COMM;
  if (req == NULL || op == NULL)
    return HC_ERR_ARG;
  if (op != &ic_no_op && (op->fn == NULL || op->elem_size == 0))
    return HC_ERR_ARG;
  return hc_nbc_new(comm, op != &ic_no_op ? op : NULL, s);
}

static hc_status_t ic_begin_rooted(hcomm_comm_t *comm,
                                   const hcomm_reduce_op_t *op, int root,
                                   hcomm_request_t **req, hc_nbc_sched_t **s) {
  if (comm != NULL && comm->local != NULL && root != HCOMM_ROOT &&
      root != HCOMM_PROC_NULL && (root < 0 || root >= comm->size))
    return HC_ERR_RANK;
  return ic_begin(comm, op, req, s);
}

static int ic_leader(const hcomm_comm_t *comm) { return comm->rank == 0; }

/* n blocks of bytes each, back to back: sizes then displacements (n each)
 * in the schedule's memory; NULL when memory ran out. */
static size_t *ic_even_blocks(hc_nbc_sched_t *s, int n, size_t bytes) {
  size_t *arr = hc_nbc_tmp(s, 2 * (size_t)n * sizeof *arr);
  for (int r = 0; arr != NULL && r < n; r++) {
    arr[r] = bytes;
    arr[n + r] = (size_t)r * bytes;
  }
  return arr;
}

/* The leaders swap: out (out_bytes) goes to the remote leader, whose
 * in_bytes land in in.  A no-op at the other members. */
static void ic_leaders_swap(hc_nbc_sched_t *s, hcomm_comm_t *comm,
                            const void *out, size_t out_bytes, void *in,
                            size_t in_bytes) {
  hc_nbc_set_comm(s, comm);
  hc_nbc_end_round(s);
  if (ic_leader(comm)) {
    hc_nbc_add_recv(s, in, in_bytes, 0);
    hc_nbc_add_send(s, out, out_bytes, 0);
  }
  hc_nbc_end_round(s);
}

/* The local group's combination of mine (count elements of the schedule's
 * op, in local rank order) at its leader: returned there (a temporary),
 * NULL elsewhere or when memory ran out. */
static void *ic_reduce_to_leader(hc_nbc_sched_t *s, hcomm_comm_t *comm,
                                 const void *mine, size_t bytes, size_t count) {
  void *acc = ic_leader(comm) ? hc_nbc_tmp(s, bytes) : NULL;
  hc_nbc_set_comm(s, comm->local);
  hc_nbc_add_reduce(s, mine, acc, count, 0);
  return acc;
}

/* The local group's blocks of bytes each, in local rank order, at its
 * leader: returned there (a temporary), NULL elsewhere. */
static void *ic_gather_to_leader(hc_nbc_sched_t *s, hcomm_comm_t *comm,
                                 const void *mine, size_t bytes) {
  int n = comm->local->size;
  size_t *arr = ic_even_blocks(s, n, bytes);
  void *all = ic_leader(comm) ? hc_nbc_tmp(s, (size_t)n * bytes) : NULL;
  if (arr == NULL)
    return NULL;
  hc_nbc_set_comm(s, comm->local);
  hc_nbc_add_gatherv(s, mine, bytes, all, arr, arr + n, 0);
  return all;
}

/* Spreads bytes at the leader's buf over the local group. */
static void ic_bcast_from_leader(hc_nbc_sched_t *s, hcomm_comm_t *comm,
                                 void *buf, size_t bytes) {
  hc_nbc_set_comm(s, comm->local);
  hc_nbc_add_bcast(s, buf, bytes, 0);
}

/* ---- barrier, bcast ------------------------------------------------------ */

/* Each leader knows its group has entered (a local barrier), the leaders
 * swap a message, and each tells its group the other one has entered. */
hc_status_t hcomm_inter_barrier(hcomm_comm_t *comm, int persistent, hcomm_request_t **req) {
  hc_nbc_sched_t *s;
  hc_status_t rc = ic_begin(comm, &ic_no_op, req, &s);
  if (rc != HC_OK)
    return rc;
  char *token = hc_nbc_tmp(s, 2);
  if (token != NULL)
    token[0] = 1;
  hc_nbc_set_comm(s, comm->local);
  hc_nbc_add_barrier(s);
  if (token != NULL) {
    ic_leaders_swap(s, comm, token, 1, token + 1, 1);
    ic_bcast_from_leader(s, comm, token + 1, 1);
  }
  return hc_nbc_launch(s, persistent, req);
}

hc_status_t hcomm_inter_bcast(void *buf, size_t bytes, int root,
                               hcomm_comm_t *comm, int persistent, hcomm_request_t **req) {
  hc_nbc_sched_t *s;
  hc_status_t rc = ic_begin_rooted(comm, &ic_no_op, root, req, &s);
  if (rc != HC_OK)
    return rc;
  if (root == HCOMM_ROOT) {
    hc_nbc_add_send(s, buf, bytes, 0);
  } else if (root >= 0) {
    if (ic_leader(comm))
      hc_nbc_add_recv(s, buf, bytes, root);
    ic_bcast_from_leader(s, comm, buf, bytes);
  }
  return hc_nbc_launch(s, persistent, req);
}

/* ---- reductions ---------------------------------------------------------- */

hc_status_t hcomm_inter_reduce(const void *sendbuf, void *recvbuf,
                                size_t count, const hcomm_reduce_op_t *op,
                                int root, hcomm_comm_t *comm,
                                int persistent, hcomm_request_t **req) {
  hc_nbc_sched_t *s;
  hc_status_t rc = ic_begin_rooted(comm, op, root, req, &s);
  if (rc != HC_OK)
    return rc;
  size_t bytes = count * op->elem_size;
  if (root == HCOMM_ROOT) {
    hc_nbc_add_recv(s, recvbuf, bytes, 0);
  } else if (root >= 0) {
    void *acc = ic_reduce_to_leader(s, comm, sendbuf, bytes, count);
    hc_nbc_set_comm(s, comm);
    hc_nbc_end_round(s);
    if (ic_leader(comm))
      hc_nbc_add_send(s, acc, bytes, root);
  }
  return hc_nbc_launch(s, persistent, req);
}

/* Each group receives the combination of the other group's data. */
hc_status_t hcomm_inter_allreduce(const void *sendbuf, void *recvbuf,
                                   size_t count, const hcomm_reduce_op_t *op,
                                   hcomm_comm_t *comm, int persistent, hcomm_request_t **req) {
  hc_nbc_sched_t *s;
  hc_status_t rc = ic_begin(comm, op, req, &s);
  if (rc != HC_OK)
    return rc;
  size_t bytes = count * op->elem_size;
  void *acc = ic_reduce_to_leader(s, comm, sendbuf, bytes, count);
  ic_leaders_swap(s, comm, acc, bytes, recvbuf, bytes);
  ic_bcast_from_leader(s, comm, recvbuf, bytes);
  return hc_nbc_launch(s, persistent, req);
}

/* counts: the blocks of the local group (sum(counts) elements in all,
 * the same sum in both groups); local rank r receives block r of the
 * other group's combination. */
hc_status_t hcomm_inter_reduce_scatter(const void *sendbuf, void *recvbuf,
                                        const size_t *counts,
                                        const hcomm_reduce_op_t *op,
                                        hcomm_comm_t *comm,
                                        int persistent, hcomm_request_t **req) {
  hc_nbc_sched_t *s;
  hc_status_t rc = ic_begin(comm, op, req, &s);
  if (rc == HC_OK && counts == NULL)
    rc = HC_ERR_ARG;
  if (rc != HC_OK)
    return rc;
  int n = comm->local->size;
  size_t es = op->elem_size, total = 0;
  size_t *arr = hc_nbc_tmp(s, 2 * (size_t)n * sizeof *arr);
  for (int r = 0; arr != NULL && r < n; r++) {
    arr[r] = counts[r] * es;
    arr[n + r] = total * es;
    total += counts[r];
  }
  void *full = ic_leader(comm) ? hc_nbc_tmp(s, total * es) : NULL;
  void *acc = ic_reduce_to_leader(s, comm, sendbuf, total * es, total);
  ic_leaders_swap(s, comm, acc, total * es, full, total * es);
  if (arr != NULL) {
    hc_nbc_set_comm(s, comm->local);
    hc_nbc_add_scatterv(s, full, arr, arr + n, recvbuf, arr[comm->rank], 0);
  }
  return hc_nbc_launch(s, persistent, req);
}

/* ---- gather, scatter ----------------------------------------------------- */

/* The v-forms: the root exchanges one message with each member of the
 * other group, receiving them into (gather) or sending them from its
 * blocks of bytes[r] at displs[r] of buf; each member sends mine or
 * receives into it (own bytes). */
static hc_status_t ic_rooted_v(int gather, char *buf, const size_t *bytes,
                               const size_t *displs, void *mine, size_t own,
                               int root, hcomm_comm_t *comm,
                               int persistent, hcomm_request_t **req) {
  hc_nbc_sched_t *s;
  hc_status_t rc = ic_begin_rooted(comm, &ic_no_op, root, req, &s);
  if (rc == HC_OK && root == HCOMM_ROOT && (bytes == NULL || displs == NULL))
    rc = HC_ERR_ARG;
  if (rc != HC_OK)
    return rc;
  for (int r = 0; root == HCOMM_ROOT && r < comm->size; r++) {
    if (gather)
      hc_nbc_add_recv(s, buf + displs[r], bytes[r], r);
    else
      hc_nbc_add_send(s, buf + displs[r], bytes[r], r);
  }
  if (root >= 0 && gather)
    hc_nbc_add_send(s, mine, own, root);
  else if (root >= 0)
    hc_nbc_add_recv(s, mine, own, root);
  return hc_nbc_launch(s, persistent, req);
}

/* rbytes, rdispls at the root: per remote rank. */
hc_status_t hcomm_inter_gatherv(const void *sendbuf, size_t sbytes,
                                 void *recvbuf, const size_t *rbytes,
                                 const size_t *rdispls, int root,
                                 hcomm_comm_t *comm, int persistent, hcomm_request_t **req) {
  return ic_rooted_v(1, recvbuf, rbytes, rdispls, (void *)sendbuf, sbytes, root,
                     comm, persistent, req);
}

/* The regular forms: the other group's blocks of bytes (its rank order)
 * are collected at its leader and sent to the root in one message
 * (gather), or come from the root in one message to the leader, which
 * scatters them (scatter).  buf: the root's blocks. */
static hc_status_t ic_rooted_even(int gather, char *buf, size_t bytes,
                                  void *mine, int root, hcomm_comm_t *comm,
                                  int persistent, hcomm_request_t **req) {
  hc_nbc_sched_t *s;
  hc_status_t rc = ic_begin_rooted(comm, &ic_no_op, root, req, &s);
  if (rc != HC_OK)
    return rc;
  int n = comm->local->size;
  size_t theirs = (size_t)comm->size * bytes, ours = (size_t)n * bytes;
  if (root == HCOMM_ROOT && gather) {
    hc_nbc_add_recv(s, buf, theirs, 0);
  } else if (root == HCOMM_ROOT) {
    hc_nbc_add_send(s, buf, theirs, 0);
  } else if (root >= 0 && gather) {
    void *all = ic_gather_to_leader(s, comm, mine, bytes);
    hc_nbc_set_comm(s, comm);
    if (all != NULL)
      hc_nbc_add_send(s, all, ours, root);
  } else if (root >= 0) {
    size_t *arr = ic_even_blocks(s, n, bytes);
    void *all = ic_leader(comm) ? hc_nbc_tmp(s, ours) : NULL;
    if (all != NULL)
      hc_nbc_add_recv(s, all, ours, root);
    hc_nbc_set_comm(s, comm->local);
    if (arr != NULL)
      hc_nbc_add_scatterv(s, all, arr, arr + n, mine, bytes, 0);
  }
  return hc_nbc_launch(s, persistent, req);
}

/* recvbuf at the root: the remote group's blocks of bytes in rank order. */
hc_status_t hcomm_inter_gather(const void *sendbuf, size_t bytes,
                                void *recvbuf, int root, hcomm_comm_t *comm,
                                int persistent, hcomm_request_t **req) {
  return ic_rooted_even(1, recvbuf, bytes, (void *)sendbuf, root, comm,
                        persistent, req);
}

/* sendbuf at the root: the remote group's blocks of bytes in rank order. */
hc_status_t hcomm_inter_scatter(const void *sendbuf, size_t bytes,
                                 void *recvbuf, int root, hcomm_comm_t *comm,
                                 int persistent, hcomm_request_t **req) {
  return ic_rooted_even(0, (char *)sendbuf, bytes, recvbuf, root, comm,
                        persistent, req);
}

hc_status_t hcomm_inter_scatterv(const void *sendbuf, const size_t *sbytes,
                                  const size_t *sdispls, void *recvbuf,
                                  size_t rbytes, int root, hcomm_comm_t *comm,
                                  int persistent, hcomm_request_t **req) {
  return ic_rooted_v(0, (char *)sendbuf, sbytes, sdispls, recvbuf, rbytes, root,
                     comm, persistent, req);
}

/* ---- allgather, alltoall ------------------------------------------------- */

/* sbytes from each member; recvbuf: the remote group's blocks of rbytes
 * in rank order. */
hc_status_t hcomm_inter_allgather(const void *sendbuf, size_t sbytes,
                                   void *recvbuf, size_t rbytes,
                                   hcomm_comm_t *comm, int persistent, hcomm_request_t **req) {
  hc_nbc_sched_t *s;
  hc_status_t rc = ic_begin(comm, &ic_no_op, req, &s);
  if (rc != HC_OK)
    return rc;
  size_t theirs = (size_t)comm->size * rbytes;
  void *all = ic_gather_to_leader(s, comm, sendbuf, sbytes);
  ic_leaders_swap(s, comm, all, (size_t)comm->local->size * sbytes, recvbuf,
                  theirs);
  ic_bcast_from_leader(s, comm, recvbuf, theirs);
  return hc_nbc_launch(s, persistent, req);
}

/* Every member sends sendbuf to every remote rank r, whose block lands at
 * recvbuf + rdispls[r]. */
hc_status_t hcomm_inter_allgatherv(const void *sendbuf, size_t sbytes,
                                    void *recvbuf, const size_t *rbytes,
                                    const size_t *rdispls, hcomm_comm_t *comm,
                                    int persistent, hcomm_request_t **req) {
  hc_nbc_sched_t *s;
  hc_status_t rc = ic_begin(comm, &ic_no_op, req, &s);
  if (rc == HC_OK && (rbytes == NULL || rdispls == NULL))
    rc = HC_ERR_ARG;
  if (rc != HC_OK)
    return rc;
  for (int r = 0; r < comm->size; r++) {
    hc_nbc_add_recv(s, (char *)recvbuf + rdispls[r], rbytes[r], r);
    hc_nbc_add_send(s, sendbuf, sbytes, r);
  }
  return hc_nbc_launch(s, persistent, req);
}

/* Block r of the send side goes to remote rank r, whose block for this
 * rank lands in block r of the receive side. */
hc_status_t hcomm_inter_alltoallv(const void *sendbuf, const size_t *sbytes,
                                   const size_t *sdispls, void *recvbuf,
                                   const size_t *rbytes, const size_t *rdispls,
                                   hcomm_comm_t *comm, int persistent, hcomm_request_t **req) {
  hc_nbc_sched_t *s;
  hc_status_t rc = ic_begin(comm, &ic_no_op, req, &s);
  if (rc == HC_OK &&
      (sbytes == NULL || sdispls == NULL || rbytes == NULL || rdispls == NULL))
    rc = HC_ERR_ARG;
  if (rc != HC_OK)
    return rc;
  for (int r = 0; r < comm->size; r++) {
    hc_nbc_add_recv(s, (char *)recvbuf + rdispls[r], rbytes[r], r);
    hc_nbc_add_send(s, (const char *)sendbuf + sdispls[r], sbytes[r], r);
  }
  return hc_nbc_launch(s, persistent, req);
}

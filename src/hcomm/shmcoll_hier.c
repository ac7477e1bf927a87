/*
 * Shared memory in communicators that span nodes (hierarchical): the
 * members of each node form a node communicator, whose blocking
 * collectives run in its shared segment (shmcoll.c), and the node leaders
 * (each node's lowest rank) a communicator of their own, whose collectives
 * are the network schedules.
 *   barrier:   node barrier, leaders' barrier, node barrier;
 *   bcast:     to the root's leader over the root's node, across the
 *              leaders, then out over every other node;
 *   allreduce: node reduce to the leader, leaders' allreduce, node bcast;
 *   reduce:    node reduce to the leader, leaders' reduce to the root,
 *              when the root leads its node.
 * Combining node by node changes the order of the ranks, so the
 * reductions take only commutative ops; a reduce to a rank that leads no
 * node, and everything else, is left to the schedules.  The two
 * communicators are made at the first collective that may use them
 * (every member learns there that the communicator spans nodes) and
 * released with it.
 */
#include <stdlib.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/shmcoll_impl.h"

struct hc_shmcoll_hier {
  hcomm_comm_t *node;    /* this node's members, in the order of comm */
  hcomm_comm_t *leaders; /* the node leaders, in the order of comm; NULL
                            where this rank leads no node */
  int *leader_of;        /* comm rank -> comm rank of its node's leader */
  int *leader_rank;      /* comm rank of a leader -> its rank in leaders */
  int nnodes;
};

void hc_shmcoll_hier_free(hc_shmcoll_hier_t *h) {
  if (h == NULL)
    return;
  if (h->node != NULL)
    hc_comm_release_locked(h->node);
  if (h->leaders != NULL)
    hc_comm_release_locked(h->leaders);
  free(h->leader_of);
  free(h->leader_rank);
  free(h);
}

/* Every rank's leader, from every rank's word (a schedule allgather). */
static hc_status_t hier_leaders(hcomm_comm_t *comm, hc_shmcoll_hier_t *h) {
  int mine = hc_comm_rank_of_world(comm, h->node->world_ranks[0]);
  hcomm_request_t *req = NULL;
  hc_status_t rc =
      hcomm_iallgather(&mine, sizeof mine, h->leader_of, comm, &req);
  if (rc == HC_OK) {
    rc = hcomm_wait(req, NULL);
    hcomm_request_free(req);
  }
  for (int r = 0; r < comm->size; r++)
    h->leader_rank[r] = h->leader_of[r] == r ? h->nnodes++ : -1;
  return rc;
}

hc_shmcoll_t *hc_shmcoll_hier_setup(hcomm_comm_t *comm, hc_status_t *rc) {
  hc_shmcoll_t *sc = calloc(1, sizeof *sc);
  hc_shmcoll_hier_t *h = calloc(1, sizeof *h);
  /* The setup makes communicators inside a collective.  Where several
   * threads may run collectives at once (a real engine lock), two setups
   * on different communicators can each wait in the other's context-id
   * agreement across processes, so the vote keeps such jobs on the
   * schedules. */
  int32_t failed = sc == NULL || h == NULL || hc_engine.locking;
  if (h != NULL) {
    h->leader_of = calloc((size_t)comm->size, sizeof(int));
    h->leader_rank = calloc((size_t)comm->size, sizeof(int));
    failed |= h->leader_of == NULL || h->leader_rank == NULL;
  }
  *rc = hc_shmcoll_vote(comm, &failed);
  if (*rc == HC_OK && !failed)
    *rc = hcomm_comm_split_shared(comm, 1, comm->rank, &h->node);
  if (*rc == HC_OK && !failed)
    *rc = hcomm_comm_split(comm, h->node->rank == 0 ? 0 : HCOMM_UNDEFINED,
                           comm->rank, &h->leaders);
  if (*rc == HC_OK && !failed)
    *rc = hier_leaders(comm, h);
  /* Worth it only where some node holds two members or more, and the
   * members are on more than one node (on one, its peers are reached by a
   * network transport, and the node communicator would be this one
   * again). */
  if (*rc == HC_OK && !failed && h->nnodes > 1 && h->nnodes < comm->size) {
    h->node->fails_with = comm;
    hc_shmcoll_wanted_now(h->node); /* it serves every collective of comm */
    if (h->leaders != NULL)
      h->leaders->fails_with = comm;
    sc->hier = h;
    return sc;
  }
  free(sc);
  if (h != NULL && h->node != NULL)
    hcomm_comm_free(h->node);
  if (h != NULL && h->leaders != NULL)
    hcomm_comm_free(h->leaders);
  if (h != NULL)
    h->node = h->leaders = NULL;
  hc_engine_lock();
  hc_shmcoll_hier_free(h);
  hc_engine_unlock();
  return NULL;
}

/* comm's hierarchy for a collective of bytes, or NULL (the schedule). */
static hc_shmcoll_hier_t *hier_of(hcomm_comm_t *comm, size_t bytes) {
  hc_shmcoll_t *sc = comm != NULL ? comm->shmcoll : NULL;
  if (sc == NULL || bytes > hc_shmcoll_tuning.max)
    return NULL;
  return sc->hier;
}

hc_status_t hc_shmcoll_hier_barrier(hcomm_comm_t *comm) {
  hc_shmcoll_hier_t *h = hier_of(comm, 0);
  if (h == NULL)
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc = hcomm_barrier(h->node);
  if (rc == HC_OK && h->leaders != NULL)
    rc = hcomm_barrier(h->leaders);
  if (rc == HC_OK)
    rc = hcomm_barrier(h->node);
  return rc;
}

hc_status_t hc_shmcoll_hier_bcast(void *buf, size_t bytes, int root,
                                  hcomm_comm_t *comm) {
  hc_shmcoll_hier_t *h = hier_of(comm, bytes);
  if (h == NULL || root < 0 || root >= comm->size)
    return HC_ERR_NOT_SUPPORTED;
  int lead = h->leader_of[root], here = h->leader_of[comm->rank] == lead;
  hc_status_t rc = HC_OK;
  if (here && lead != root)
    rc = hcomm_bcast(buf, bytes,
                     hc_comm_rank_of_world(h->node, comm->world_ranks[root]),
                     h->node);
  if (rc == HC_OK && h->leaders != NULL)
    rc = hcomm_bcast(buf, bytes, h->leader_rank[lead], h->leaders);
  if (rc == HC_OK && (!here || lead == root))
    rc = hcomm_bcast(buf, bytes, 0, h->node);
  return rc;
}

/* root -1: allreduce. */
hc_status_t hc_shmcoll_hier_reduce(const void *sendbuf, void *recvbuf,
                                   size_t count, const hcomm_reduce_op_t *op,
                                   int root, hcomm_comm_t *comm) {
  size_t bytes = op != NULL ? count * op->elem_size : 0;
  hc_shmcoll_hier_t *h = hier_of(comm, bytes);
  if (h == NULL || op == NULL || !op->commutative || root >= comm->size ||
      (root >= 0 && h->leader_of[root] != root))
    return HC_ERR_NOT_SUPPORTED;
  int lead = h->leaders != NULL;
  const void *in = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  void *acc = lead && root < 0 ? recvbuf : NULL;
  if (lead && root >= 0)
    acc = root == comm->rank ? recvbuf : malloc(bytes > 0 ? bytes : 1);
  if (lead && acc == NULL) /* as any rank out of memory at a collective */
    return HC_ERR_NOMEM;
  /* In place at the leader only when its input is already there. */
  hc_status_t rc = hcomm_reduce(lead && acc == recvbuf ? sendbuf : in,
                                lead ? acc : NULL, count, op, 0, h->node);
  if (rc == HC_OK && lead && root < 0)
    rc = hcomm_allreduce(HCOMM_IN_PLACE, acc, count, op, h->leaders);
  if (rc == HC_OK && lead && root >= 0)
    rc = hcomm_reduce(comm->rank == root ? HCOMM_IN_PLACE : acc,
                      comm->rank == root ? acc : NULL, count, op,
                      h->leader_rank[root], h->leaders);
  if (rc == HC_OK && root < 0)
    rc = hcomm_bcast(recvbuf, bytes, 0, h->node);
  if (acc != recvbuf)
    free(acc);
  return rc;
}

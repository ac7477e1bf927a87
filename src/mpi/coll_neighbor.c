/*
 * Neighbourhood collectives (MPI_Neighbor_allgather(v), _alltoall(v,w),
 * their I- and _init forms) on a communicator's process topology.  One
 * function serves all fifteen: it turns the topology's ordered neighbour
 * lists and the call's blocks into the engine's one neighbourhood schedule
 * (hcomm_ineighbor / hcomm_neighbor_init), with the datatypes packed or
 * staged by coll_ctx.c as for every other collective.
 */
#include "mpi/coll_impl.h"
#include "mpi/topo.h"

/* One side of a call: block i is counts[i] elements (counts[0] for all
 * when !vform) of types[i] (or of type) at byte_displs[i] bytes, or
 * displs[i] extents, or i blocks along when both are NULL.  single: one
 * block sent to every neighbour (the allgathers' send side). */
typedef struct nbr_side {
  hc_mpi_vec_t counts;
  hc_mpi_vec_t displs;
  const MPI_Aint *byte_displs;
  const MPI_Datatype *types;
  MPI_Datatype type;
  int vform;
  int single;
} nbr_side_t;

/* The engine's lists for one side: n entries in posting order. */
typedef struct nbr_lists {
  hcomm_neighbors_t eng;
  hc_mpi_coll_block_t *blocks;
  size_t *bytes, *offs;
} nbr_lists_t;

static int nbr_block(const char *fn, hc_mpi_comm_t *c, const nbr_side_t *sd,
                     int i, hc_mpi_coll_block_t *b) {
  MPI_Count n = hc_mpi_vec_at(sd->counts, sd->vform ? i : 0);
  MPI_Datatype h = sd->types != NULL ? sd->types[i] : sd->type;
  const hc_mpi_type_t *t = NULL;
  int rc = hc_mpi_coll_type(fn, c, n, h, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  b->type = t;
  b->count = n;
  if (sd->byte_displs != NULL)
    b->disp = sd->byte_displs[i];
  else
    b->disp = (hc_mpi_vec_ptr(sd->displs) != NULL ? hc_mpi_vec_at(sd->displs, i)
                                                  : i * n) *
              t->extent;
  return MPI_SUCCESS;
}

/* Checks one side's arguments and fills its blocks: nblocks of them, for
 * peers (MPI_PROC_NULL: an empty block, so the buffer there is never
 * read or written). */
static int nbr_blocks(const char *fn, hc_mpi_comm_t *c, const nbr_side_t *sd,
                      int nblocks, const int *peers, const char *what,
                      hc_mpi_coll_block_t *b) {
  if (nblocks == 0)
    return MPI_SUCCESS; /* no neighbours: the arrays may be NULL */
  int rc = hc_mpi_coll_counts(fn, c, sd->counts, sd->vform ? nblocks : 1, what);
  if (rc == MPI_SUCCESS && sd->vform && sd->types == NULL)
    rc = hc_mpi_check_ptr(fn, c, hc_mpi_vec_ptr(sd->displs), "displs");
  if (rc == MPI_SUCCESS && sd->types != NULL) {
    rc = hc_mpi_check_ptr(fn, c, sd->byte_displs, "displs");
    if (rc == MPI_SUCCESS)
      rc = hc_mpi_check_ptr(fn, c, sd->types, "datatypes");
  }
  for (int i = 0; rc == MPI_SUCCESS && i < nblocks; i++) {
    rc = nbr_block(fn, c, sd, i, &b[i]);
    if (!sd->single && peers[i] == MPI_PROC_NULL)
      b[i].count = 0;
  }
  return rc;
}

static int nbr_lists_new(hc_mpi_coll_t *cx, int n, nbr_lists_t *l) {
  size_t m = n > 0 ? (size_t)n : 1;
  l->blocks = hc_mpi_coll_tmp(cx, m * sizeof *l->blocks);
  l->bytes = hc_mpi_coll_tmp(cx, 2 * m * sizeof(size_t));
  l->offs = l->bytes != NULL ? l->bytes + m : NULL;
  int *peers = hc_mpi_coll_tmp(cx, m * sizeof(int));
  size_t *eng = hc_mpi_coll_tmp(cx, 2 * m * sizeof(size_t));
  if (l->blocks == NULL || l->bytes == NULL || peers == NULL || eng == NULL)
    return -1;
  l->eng.n = n;
  l->eng.peers = peers;
  l->eng.bytes = eng;
  l->eng.offs = eng + m;
  return 0;
}

/*
 * The engine's posting order.  Receives follow the neighbour order.  On a
 * Cartesian grid the sends of each dimension go +1 first, then -1: when
 * one rank is both neighbours (a periodic dimension of size 1 or 2), the
 * first message it takes from us is the one for its -1 side, which is
 * what we sent in the +1 direction.  Graphs keep the edge order, which the
 * standard makes the matching order of repeated edges.
 */
static void nbr_order(nbr_lists_t *l, const int *peers, int single,
                      int cart_send) {
  int *p = (int *)l->eng.peers;
  size_t *bytes = (size_t *)l->eng.bytes, *offs = (size_t *)l->eng.offs;
  for (int i = 0; i < l->eng.n; i++) {
    int j = cart_send ? (i ^ 1) : i, b = single ? 0 : j;
    p[i] = peers[j];
    bytes[i] = l->bytes[b];
    offs[i] = l->offs[b];
  }
}

static int nbr_buf_check(const char *fn, hc_mpi_comm_t *c, const void *buf,
                         const char *what) {
  if (buf != MPI_IN_PLACE)
    return MPI_SUCCESS;
  return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                      "MPI_IN_PLACE is not allowed as %s of a neighborhood "
                      "collective",
                      what);
}

/* request NULL: blocking; persist: MPI_*_init (the request kept, inactive,
 * for MPI_Start). */
static int nbr_run(const char *fn, const void *sendbuf, const nbr_side_t *ss,
                   void *recvbuf, const nbr_side_t *rs, MPI_Comm comm,
                   MPI_Request *request, int persist) {
  hc_mpi_comm_t *c = NULL;
  hcomm_request_t *eng = NULL;
  int indeg, outdeg;
  const int *srcs, *dsts, *sw, *dw;
  int rc = hc_mpi_coll_enter(fn, comm, request != NULL, request, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  if (hc_mpi_topo_neighbors(c, &indeg, &srcs, &sw, &outdeg, &dsts, &dw))
    return hc_mpi_raise(c, fn, MPI_ERR_TOPOLOGY,
                        "the communicator has no process topology");
  rc = nbr_buf_check(fn, c, sendbuf, "sendbuf");
  if (rc == MPI_SUCCESS)
    rc = nbr_buf_check(fn, c, recvbuf, "recvbuf");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  nbr_lists_t sl, rl;
  int nsblocks = ss->single ? 1 : outdeg;
  if (cx == NULL || nbr_lists_new(cx, outdeg, &sl) ||
      nbr_lists_new(cx, indeg, &rl))
    return hc_mpi_coll_nomem(fn, c, cx);
  rc = nbr_blocks(fn, c, ss, nsblocks, dsts, "sendcounts", sl.blocks);
  if (rc == MPI_SUCCESS)
    rc = nbr_blocks(fn, c, rs, indeg, srcs, "recvcounts", rl.blocks);
  if (rc != MPI_SUCCESS) {
    hc_mpi_coll_free(cx);
    return rc;
  }
  const void *sview = hc_mpi_coll_send_view(cx, sendbuf, nsblocks, sl.blocks,
                                            sl.bytes, sl.offs);
  void *rview = hc_mpi_coll_recv_view(cx, recvbuf, indeg, rl.blocks, 0,
                                      rl.bytes, rl.offs);
  if (sview == NULL || rview == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  nbr_order(&sl, dsts, ss->single, c->topo->kind == MPI_CART);
  nbr_order(&rl, srcs, 0, 0);
  if (persist)
    rc = hcomm_neighbor_init(sview, &sl.eng, rview, &rl.eng, c->engine, &eng);
  else
    rc = hcomm_ineighbor(sview, &sl.eng, rview, &rl.eng, c->engine, &eng);
  return hc_mpi_coll_finish(fn, c, cx, rc, eng, request);
}

/* ---- the five shapes ------------------------------------------------------
 */

static int nbr_allgather(const char *fn, const void *sendbuf,
                         MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Request *request, int persist) {
  nbr_side_t ss = {
      hc_mpi_vec_wide(&sendcount), {NULL, NULL}, NULL, NULL, sendtype, 0, 1};
  nbr_side_t rs = {
      hc_mpi_vec_wide(&recvcount), {NULL, NULL}, NULL, NULL, recvtype, 0, 0};
  return nbr_run(fn, sendbuf, &ss, recvbuf, &rs, comm, request, persist);
}

static int nbr_allgatherv(const char *fn, const void *sendbuf,
                          MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, hc_mpi_vec_t recvcounts,
                          hc_mpi_vec_t displs, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *request, int persist) {
  nbr_side_t ss = {
      hc_mpi_vec_wide(&sendcount), {NULL, NULL}, NULL, NULL, sendtype, 0, 1};
  nbr_side_t rs = {recvcounts, displs, NULL, NULL, recvtype, 1, 0};
  return nbr_run(fn, sendbuf, &ss, recvbuf, &rs, comm, request, persist);
}

static int nbr_alltoall(const char *fn, const void *sendbuf,
                        MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request *request, int persist) {
  nbr_side_t ss = {
      hc_mpi_vec_wide(&sendcount), {NULL, NULL}, NULL, NULL, sendtype, 0, 0};
  nbr_side_t rs = {
      hc_mpi_vec_wide(&recvcount), {NULL, NULL}, NULL, NULL, recvtype, 0, 0};
  return nbr_run(fn, sendbuf, &ss, recvbuf, &rs, comm, request, persist);
}

static int nbr_alltoallv(const char *fn, const void *sendbuf,
                         hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                         MPI_Datatype sendtype, void *recvbuf,
                         hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                         MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Request *request, int persist) {
  nbr_side_t ss = {sendcounts, sdispls, NULL, NULL, sendtype, 1, 0};
  nbr_side_t rs = {recvcounts, rdispls, NULL, NULL, recvtype, 1, 0};
  return nbr_run(fn, sendbuf, &ss, recvbuf, &rs, comm, request, persist);
}

static int nbr_alltoallw(const char *fn, const void *sendbuf,
                         hc_mpi_vec_t sendcounts, const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf,
                         hc_mpi_vec_t recvcounts, const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm,
                         MPI_Request *request, int persist) {
  nbr_side_t ss = {
      sendcounts, {NULL, NULL}, sdispls, sendtypes, MPI_DATATYPE_NULL, 1, 0};
  nbr_side_t rs = {
      recvcounts, {NULL, NULL}, rdispls, recvtypes, MPI_DATATYPE_NULL, 1, 0};
  return nbr_run(fn, sendbuf, &ss, recvbuf, &rs, comm, request, persist);
}

/* ---- entry points ----------------------------------------------------------
 * Blocking: the schedule started and waited for; I-form: its request;
 * _init: built once, replayed by MPI_Start. */

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  return nbr_allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype,
                       recvbuf, recvcount, recvtype, comm, NULL, 0);
}
HC_WEAK_ALIAS(MPI_Neighbor_allgather, PMPI_Neighbor_allgather);

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm) {
  return nbr_allgather("MPI_Neighbor_allgather_c", sendbuf, sendcount, sendtype,
                       recvbuf, recvcount, recvtype, comm, NULL, 0);
}
HC_WEAK_ALIAS(MPI_Neighbor_allgather_c, PMPI_Neighbor_allgather_c);

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request) {
  return nbr_allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype,
                       recvbuf, recvcount, recvtype, comm, request, 0);
}
HC_WEAK_ALIAS(MPI_Ineighbor_allgather, PMPI_Ineighbor_allgather);

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request) {
  return nbr_allgather("MPI_Ineighbor_allgather_c", sendbuf, sendcount,
                       sendtype, recvbuf, recvcount, recvtype, comm, request,
                       0);
}
HC_WEAK_ALIAS(MPI_Ineighbor_allgather_c, PMPI_Ineighbor_allgather_c);

static int nbr_neighbor_allgather_init_entry(
    const char *fn, const void *sendbuf, MPI_Count sendcount,
    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  return rc != MPI_SUCCESS
             ? rc
             : nbr_allgather(fn, sendbuf, sendcount, sendtype, recvbuf,
                             recvcount, recvtype, comm, request, 1);
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request) {
  return nbr_neighbor_allgather_init_entry(
      "MPI_Neighbor_allgather_init", sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Neighbor_allgather_init, PMPI_Neighbor_allgather_init);

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, void *recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request) {
  return nbr_neighbor_allgather_init_entry(
      "MPI_Neighbor_allgather_init_c", sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Neighbor_allgather_init_c, PMPI_Neighbor_allgather_init_c);

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm) {
  return nbr_allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype,
                        recvbuf, hc_mpi_vec_int(recvcounts),
                        hc_mpi_vec_int(displs), recvtype, comm, NULL, 0);
}
HC_WEAK_ALIAS(MPI_Neighbor_allgatherv, PMPI_Neighbor_allgatherv);

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[],
                               const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm) {
  return nbr_allgatherv("MPI_Neighbor_allgatherv_c", sendbuf, sendcount,
                        sendtype, recvbuf, hc_mpi_vec_wide(recvcounts),
                        hc_mpi_vec_wide(displs), recvtype, comm, NULL, 0);
}
HC_WEAK_ALIAS(MPI_Neighbor_allgatherv_c, PMPI_Neighbor_allgatherv_c);

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request) {
  return nbr_allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount,
                        sendtype, recvbuf, hc_mpi_vec_int(recvcounts),
                        hc_mpi_vec_int(displs), recvtype, comm, request, 0);
}
HC_WEAK_ALIAS(MPI_Ineighbor_allgatherv, PMPI_Ineighbor_allgatherv);

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request *request) {
  return nbr_allgatherv("MPI_Ineighbor_allgatherv_c", sendbuf, sendcount,
                        sendtype, recvbuf, hc_mpi_vec_wide(recvcounts),
                        hc_mpi_vec_wide(displs), recvtype, comm, request, 0);
}
HC_WEAK_ALIAS(MPI_Ineighbor_allgatherv_c, PMPI_Ineighbor_allgatherv_c);

static int nbr_neighbor_allgatherv_init_entry(
    const char *fn, const void *sendbuf, MPI_Count sendcount,
    MPI_Datatype sendtype, void *recvbuf, hc_mpi_vec_t recvcounts,
    hc_mpi_vec_t displs, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
    MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  return rc != MPI_SUCCESS
             ? rc
             : nbr_allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf,
                              recvcounts, displs, recvtype, comm, request, 1);
}

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *request) {
  return nbr_neighbor_allgatherv_init_entry(
      "MPI_Neighbor_allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
      hc_mpi_vec_int(recvcounts), hc_mpi_vec_int(displs), recvtype, comm, info,
      request);
}
HC_WEAK_ALIAS(MPI_Neighbor_allgatherv_init, PMPI_Neighbor_allgatherv_init);

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf,
                                    const MPI_Count recvcounts[],
                                    const MPI_Aint displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request) {
  return nbr_neighbor_allgatherv_init_entry(
      "MPI_Neighbor_allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf,
      hc_mpi_vec_wide(recvcounts), hc_mpi_vec_wide(displs), recvtype, comm,
      info, request);
}
HC_WEAK_ALIAS(MPI_Neighbor_allgatherv_init_c, PMPI_Neighbor_allgatherv_init_c);

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  return nbr_alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype,
                      recvbuf, recvcount, recvtype, comm, NULL, 0);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoall, PMPI_Neighbor_alltoall);

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm) {
  return nbr_alltoall("MPI_Neighbor_alltoall_c", sendbuf, sendcount, sendtype,
                      recvbuf, recvcount, recvtype, comm, NULL, 0);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoall_c, PMPI_Neighbor_alltoall_c);

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request) {
  return nbr_alltoall("MPI_Ineighbor_alltoall", sendbuf, sendcount, sendtype,
                      recvbuf, recvcount, recvtype, comm, request, 0);
}
HC_WEAK_ALIAS(MPI_Ineighbor_alltoall, PMPI_Ineighbor_alltoall);

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request) {
  return nbr_alltoall("MPI_Ineighbor_alltoall_c", sendbuf, sendcount, sendtype,
                      recvbuf, recvcount, recvtype, comm, request, 0);
}
HC_WEAK_ALIAS(MPI_Ineighbor_alltoall_c, PMPI_Ineighbor_alltoall_c);

static int nbr_neighbor_alltoall_init_entry(
    const char *fn, const void *sendbuf, MPI_Count sendcount,
    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  return rc != MPI_SUCCESS
             ? rc
             : nbr_alltoall(fn, sendbuf, sendcount, sendtype, recvbuf,
                            recvcount, recvtype, comm, request, 1);
}

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info,
                                MPI_Request *request) {
  return nbr_neighbor_alltoall_init_entry(
      "MPI_Neighbor_alltoall_init", sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoall_init, PMPI_Neighbor_alltoall_init);

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                                  MPI_Datatype sendtype, void *recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request) {
  return nbr_neighbor_alltoall_init_entry(
      "MPI_Neighbor_alltoall_init_c", sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoall_init_c, PMPI_Neighbor_alltoall_init_c);

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm) {
  return nbr_alltoallv("MPI_Neighbor_alltoallv", sendbuf,
                       hc_mpi_vec_int(sendcounts), hc_mpi_vec_int(sdispls),
                       sendtype, recvbuf, hc_mpi_vec_int(recvcounts),
                       hc_mpi_vec_int(rdispls), recvtype, comm, NULL, 0);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoallv, PMPI_Neighbor_alltoallv);

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm) {
  return nbr_alltoallv("MPI_Neighbor_alltoallv_c", sendbuf,
                       hc_mpi_vec_wide(sendcounts), hc_mpi_vec_wide(sdispls),
                       sendtype, recvbuf, hc_mpi_vec_wide(recvcounts),
                       hc_mpi_vec_wide(rdispls), recvtype, comm, NULL, 0);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoallv_c, PMPI_Neighbor_alltoallv_c);

static int nbr_ineighbor_alltoallv_entry(
    const char *fn, const void *sendbuf, hc_mpi_vec_t sendcounts,
    hc_mpi_vec_t sdispls, MPI_Datatype sendtype, void *recvbuf,
    hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Request *request) {
  return nbr_alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                       recvcounts, rdispls, recvtype, comm, request, 0);
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                             const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request) {
  return nbr_ineighbor_alltoallv_entry(
      "MPI_Ineighbor_alltoallv", sendbuf, hc_mpi_vec_int(sendcounts),
      hc_mpi_vec_int(sdispls), sendtype, recvbuf, hc_mpi_vec_int(recvcounts),
      hc_mpi_vec_int(rdispls), recvtype, comm, request);
}
HC_WEAK_ALIAS(MPI_Ineighbor_alltoallv, PMPI_Ineighbor_alltoallv);

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf,
                               const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request) {
  return nbr_ineighbor_alltoallv_entry(
      "MPI_Ineighbor_alltoallv_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      hc_mpi_vec_wide(sdispls), sendtype, recvbuf, hc_mpi_vec_wide(recvcounts),
      hc_mpi_vec_wide(rdispls), recvtype, comm, request);
}
HC_WEAK_ALIAS(MPI_Ineighbor_alltoallv_c, PMPI_Ineighbor_alltoallv_c);

static int nbr_neighbor_alltoallv_init_entry(
    const char *fn, const void *sendbuf, hc_mpi_vec_t sendcounts,
    hc_mpi_vec_t sdispls, MPI_Datatype sendtype, void *recvbuf,
    hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  return rc != MPI_SUCCESS ? rc
                           : nbr_alltoallv(fn, sendbuf, sendcounts, sdispls,
                                           sendtype, recvbuf, recvcounts,
                                           rdispls, recvtype, comm, request, 1);
}

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                 const int sdispls[], MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request) {
  return nbr_neighbor_alltoallv_init_entry(
      "MPI_Neighbor_alltoallv_init", sendbuf, hc_mpi_vec_int(sendcounts),
      hc_mpi_vec_int(sdispls), sendtype, recvbuf, hc_mpi_vec_int(recvcounts),
      hc_mpi_vec_int(rdispls), recvtype, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoallv_init, PMPI_Neighbor_alltoallv_init);

int PMPI_Neighbor_alltoallv_init_c(
    const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
    MPI_Info info, MPI_Request *request) {
  return nbr_neighbor_alltoallv_init_entry(
      "MPI_Neighbor_alltoallv_init_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      hc_mpi_vec_wide(sdispls), sendtype, recvbuf, hc_mpi_vec_wide(recvcounts),
      hc_mpi_vec_wide(rdispls), recvtype, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoallv_init_c, PMPI_Neighbor_alltoallv_init_c);

static int
nbr_neighbor_alltoallw_entry(const char *fn, const void *sendbuf,
                             hc_mpi_vec_t sendcounts, const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf,
                             hc_mpi_vec_t recvcounts, const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return nbr_alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                       recvcounts, rdispls, recvtypes, comm, NULL, 0);
}

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf,
                            const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return nbr_neighbor_alltoallw_entry(
      "MPI_Neighbor_alltoallw", sendbuf, hc_mpi_vec_int(sendcounts), sdispls,
      sendtypes, recvbuf, hc_mpi_vec_int(recvcounts), rdispls, recvtypes, comm);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoallw, PMPI_Neighbor_alltoallw);

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf,
                              const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return nbr_neighbor_alltoallw_entry(
      "MPI_Neighbor_alltoallw_c", sendbuf, hc_mpi_vec_wide(sendcounts), sdispls,
      sendtypes, recvbuf, hc_mpi_vec_wide(recvcounts), rdispls, recvtypes,
      comm);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoallw_c, PMPI_Neighbor_alltoallw_c);

static int nbr_ineighbor_alltoallw_entry(
    const char *fn, const void *sendbuf, hc_mpi_vec_t sendcounts,
    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
    hc_mpi_vec_t recvcounts, const MPI_Aint rdispls[],
    const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request) {
  return nbr_alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                       recvcounts, rdispls, recvtypes, comm, request, 0);
}

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf,
                             const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request) {
  return nbr_ineighbor_alltoallw_entry(
      "MPI_Ineighbor_alltoallw", sendbuf, hc_mpi_vec_int(sendcounts), sdispls,
      sendtypes, recvbuf, hc_mpi_vec_int(recvcounts), rdispls, recvtypes, comm,
      request);
}
HC_WEAK_ALIAS(MPI_Ineighbor_alltoallw, PMPI_Ineighbor_alltoallw);

int PMPI_Ineighbor_alltoallw_c(
    const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
    MPI_Request *request) {
  return nbr_ineighbor_alltoallw_entry(
      "MPI_Ineighbor_alltoallw_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      sdispls, sendtypes, recvbuf, hc_mpi_vec_wide(recvcounts), rdispls,
      recvtypes, comm, request);
}
HC_WEAK_ALIAS(MPI_Ineighbor_alltoallw_c, PMPI_Ineighbor_alltoallw_c);

static int nbr_neighbor_alltoallw_init_entry(
    const char *fn, const void *sendbuf, hc_mpi_vec_t sendcounts,
    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
    hc_mpi_vec_t recvcounts, const MPI_Aint rdispls[],
    const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
    MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  return rc != MPI_SUCCESS
             ? rc
             : nbr_alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes,
                             recvbuf, recvcounts, rdispls, recvtypes, comm,
                             request, 1);
}

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void *recvbuf,
                                 const int recvcounts[],
                                 const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request) {
  return nbr_neighbor_alltoallw_init_entry(
      "MPI_Neighbor_alltoallw_init", sendbuf, hc_mpi_vec_int(sendcounts),
      sdispls, sendtypes, recvbuf, hc_mpi_vec_int(recvcounts), rdispls,
      recvtypes, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoallw_init, PMPI_Neighbor_alltoallw_init);

int PMPI_Neighbor_alltoallw_init_c(
    const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
    MPI_Info info, MPI_Request *request) {
  return nbr_neighbor_alltoallw_init_entry(
      "MPI_Neighbor_alltoallw_init_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      sdispls, sendtypes, recvbuf, hc_mpi_vec_wide(recvcounts), rdispls,
      recvtypes, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Neighbor_alltoallw_init_c, PMPI_Neighbor_alltoallw_init_c);

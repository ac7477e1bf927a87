/*
 * Process topologies inside the MPI face (topo.c, topo_graph.c): the
 * object a communicator carries, and the helpers both files share.
 * Nothing here is exported from the library.
 */
#ifndef HC_MPI_TOPO_H
#define HC_MPI_TOPO_H

#include "mpi/mpi_impl.h"

/* A topology never changes once attached; MPI_Comm_dup copies it. */
struct hc_mpi_topo {
  int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
  /* MPI_CART: the grid, row-major (the last dimension varies fastest). */
  int ndims;
  int *dims;
  int *periods;
  /* MPI_GRAPH: the whole graph as MPI_Graph_create got it. */
  int nnodes;
  int nedges;
  int *index;
  int *edges;
  /* Every kind: this rank's ordered neighbour lists
   * (hc_mpi_topo_neighbors); weights only for a weighted MPI_DIST_GRAPH. */
  int indegree;
  int outdegree;
  int *sources;
  int *destinations;
  int weighted;
  int *sourceweights;
  int *destweights;
};

/* A zeroed topology of kind; NULL when memory runs out. */
hc_mpi_topo_t *hc_mpi_topo_new(int kind);
/* *dst = a copy of n ints of src (NULL src: NULL); 0 when memory ran
 * out. */
int hc_mpi_topo_ints(int **dst, const int *src, int n);
/* Entry of a call that reads comm's topology, which must be of kind. */
int hc_mpi_topo_enter(const char *fn, MPI_Comm comm, int kind,
                      hc_mpi_comm_t **c, const hc_mpi_topo_t **t);
/* Entry of a call that builds a topology on comm (an intracommunicator)
 * into *newcomm. */
int hc_mpi_topo_enter_create(const char *fn, MPI_Comm comm, MPI_Comm *newcomm,
                             hc_mpi_comm_t **c);
/* The communicator of a new topology: ranks 0..nodes-1 of c in the same
 * order (reorder keeps the identity, docs/topologies.md); the others get
 * MPI_COMM_NULL. */
int hc_mpi_topo_split(const char *fn, hc_mpi_comm_t *c, int nodes,
                      MPI_Comm *newcomm);
/* Gives *newcomm the topology t (which it then owns).  t NULL means its
 * construction ran out of memory: *newcomm is freed and MPI_ERR_NO_MEM
 * raised on parent. */
int hc_mpi_topo_attach(const char *fn, hc_mpi_comm_t *parent, MPI_Comm *newcomm,
                       hc_mpi_topo_t *t);

#endif /* HC_MPI_TOPO_H */

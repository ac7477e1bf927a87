/*
 * Graph and distributed graph topologies (MPI 4.0 sections 8.5.3-8.5.5).
 * A graph topology keeps the whole graph as given; a distributed graph
 * keeps only this rank's sources and destinations, learnt from the other
 * ranks by one exchange on the new communicator in the non-adjacent form.
 * As for grids (topo.c), reorder keeps the identity.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/topo.h"

/* ---- graphs ---------------------------------------------------------------
 */

/* Checks a graph description against a communicator of size ranks. */
static int graph_check(const char *fn, hc_mpi_comm_t *c, int nnodes,
                       const int *index, const int *edges) {
  int size = hcomm_comm_size(c->engine);
  if (nnodes < 0 || nnodes > size)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                        "invalid nnodes %d (communicator of size %d)", nnodes,
                        size);
  int rc = MPI_SUCCESS;
  if (nnodes > 0)
    rc = hc_mpi_check_ptr(fn, c, index, "index");
  if (rc != MPI_SUCCESS || nnodes == 0)
    return rc;
  for (int i = 0; i < nnodes; i++)
    if (index[i] < (i ? index[i - 1] : 0))
      return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                          "index[%d] = %d is below the entry before it", i,
                          index[i]);
  if (index[nnodes - 1] > 0)
    rc = hc_mpi_check_ptr(fn, c, edges, "edges");
  for (int j = 0; rc == MPI_SUCCESS && j < index[nnodes - 1]; j++)
    if (edges[j] < 0 || edges[j] >= nnodes)
      return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                          "edges[%d] = %d is not a node (0..%d)", j, edges[j],
                          nnodes - 1);
  return rc;
}

/* The graph's topology for node rank, its neighbours being its edges. */
static hc_mpi_topo_t *graph_topo_new(int nnodes, const int *index,
                                     const int *edges, int rank) {
  hc_mpi_topo_t *t = hc_mpi_topo_new(MPI_GRAPH);
  if (!t)
    return NULL;
  t->nnodes = nnodes;
  t->nedges = index[nnodes - 1];
  int first = rank ? index[rank - 1] : 0;
  t->indegree = t->outdegree = index[rank] - first;
  if (!hc_mpi_topo_ints(&t->index, index, nnodes) ||
      !hc_mpi_topo_ints(&t->edges, edges ? edges : index, t->nedges) ||
      !hc_mpi_topo_ints(&t->sources, t->edges + first, t->indegree) ||
      !hc_mpi_topo_ints(&t->destinations, t->edges + first, t->outdegree)) {
    hc_mpi_topo_destroy(t);
    return NULL;
  }
  return t;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[],
                      const int edges[], int reorder, MPI_Comm *comm_graph) {
  static const char fn[] = "MPI_Graph_create";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_topo_enter_create(fn, comm_old, comm_graph, &c);
  if (rc == MPI_SUCCESS)
    rc = graph_check(fn, c, nnodes, indx, edges);
  if (rc != MPI_SUCCESS)
    return rc;
  (void)reorder; /* identity: see docs/topologies.md */
  rc = hc_mpi_topo_split(fn, c, nnodes, comm_graph);
  if (rc != MPI_SUCCESS || *comm_graph == MPI_COMM_NULL)
    return rc;
  return hc_mpi_topo_attach(
      fn, c, comm_graph,
      graph_topo_new(nnodes, indx, edges, hcomm_comm_rank(c->engine)));
}
HC_WEAK_ALIAS(MPI_Graph_create, PMPI_Graph_create);

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[],
                   const int edges[], int *newrank) {
  static const char fn[] = "MPI_Graph_map";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, newrank, "newrank");
  if (rc == MPI_SUCCESS)
    rc = graph_check(fn, c, nnodes, indx, edges);
  if (rc != MPI_SUCCESS)
    return rc;
  int rank = hcomm_comm_rank(c->engine);
  *newrank = rank < nnodes ? rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Graph_map, PMPI_Graph_map);

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges) {
  static const char fn[] = "MPI_Graphdims_get";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int rc = hc_mpi_topo_enter(fn, comm, MPI_GRAPH, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, nnodes, "nnodes");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, nedges, "nedges");
  if (rc != MPI_SUCCESS)
    return rc;
  *nnodes = t->nnodes;
  *nedges = t->nedges;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Graphdims_get, PMPI_Graphdims_get);

/* Copies the first min(n, max) of src to dst (an array of max entries). */
static int topo_copy_out(const char *fn, hc_mpi_comm_t *c, int *dst, int max,
                         const int *src, int n, const char *name) {
  if (max < 0)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG, "invalid max%s %d (< 0)", name,
                        max);
  int m = n < max ? n : max;
  if (m == 0)
    return MPI_SUCCESS;
  int rc = hc_mpi_check_ptr(fn, c, dst, name);
  if (rc == MPI_SUCCESS)
    memcpy(dst, src, (size_t)m * sizeof(int));
  return rc;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[],
                   int edges[]) {
  static const char fn[] = "MPI_Graph_get";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int rc = hc_mpi_topo_enter(fn, comm, MPI_GRAPH, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = topo_copy_out(fn, c, indx, maxindex, t->index, t->nnodes, "index");
  if (rc == MPI_SUCCESS)
    rc = topo_copy_out(fn, c, edges, maxedges, t->edges, t->nedges, "edges");
  return rc;
}
HC_WEAK_ALIAS(MPI_Graph_get, PMPI_Graph_get);

/* Entry of the calls that ask about one node of a graph. */
static int graph_node_enter(const char *fn, MPI_Comm comm, int rank,
                            hc_mpi_comm_t **c, const hc_mpi_topo_t **t,
                            int *first, int *count) {
  int rc = hc_mpi_topo_enter(fn, comm, MPI_GRAPH, c, t);
  if (rc != MPI_SUCCESS)
    return rc;
  if (rank < 0 || rank >= (*t)->nnodes)
    return hc_mpi_raise(*c, fn, MPI_ERR_RANK,
                        "invalid rank %d (the graph has %d nodes)", rank,
                        (*t)->nnodes);
  *first = rank ? (*t)->index[rank - 1] : 0;
  *count = (*t)->index[rank] - *first;
  return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors) {
  static const char fn[] = "MPI_Graph_neighbors_count";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int first = 0, count = 0;
  int rc = graph_node_enter(fn, comm, rank, &c, &t, &first, &count);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, nneighbors, "nneighbors");
  if (rc == MPI_SUCCESS)
    *nneighbors = count;
  return rc;
}
HC_WEAK_ALIAS(MPI_Graph_neighbors_count, PMPI_Graph_neighbors_count);

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
                         int neighbors[]) {
  static const char fn[] = "MPI_Graph_neighbors";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int first = 0, count = 0;
  int rc = graph_node_enter(fn, comm, rank, &c, &t, &first, &count);
  if (rc == MPI_SUCCESS)
    rc = topo_copy_out(fn, c, neighbors, maxneighbors, t->edges + first, count,
                       "neighbors");
  return rc;
}
HC_WEAK_ALIAS(MPI_Graph_neighbors, PMPI_Graph_neighbors);

/* ---- distributed graphs: checks ------------------------------------------ */

/* Checks degree neighbour ranks of a communicator of size ranks. */
static int dist_check_ranks(const char *fn, hc_mpi_comm_t *c, const int *ranks,
                            int degree, const char *name) {
  int size = hcomm_comm_size(c->engine);
  if (degree < 0)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG, "invalid %s count %d (< 0)", name,
                        degree);
  int rc = degree > 0 ? hc_mpi_check_ptr(fn, c, ranks, name) : MPI_SUCCESS;
  for (int i = 0; rc == MPI_SUCCESS && i < degree; i++)
    if (ranks[i] < 0 || ranks[i] >= size)
      return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                          "%s[%d] = %d is not a rank (communicator of size "
                          "%d)",
                          name, i, ranks[i], size);
  return rc;
}

/* Checks degree weights; MPI_UNWEIGHTED is checked by the caller, and
 * MPI_WEIGHTS_EMPTY stands for an empty array only. */
static int dist_check_weights(const char *fn, hc_mpi_comm_t *c,
                              const int *weights, int degree,
                              const char *name) {
  if (degree == 0)
    return MPI_SUCCESS;
  if (weights == MPI_WEIGHTS_EMPTY)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                        "%s is MPI_WEIGHTS_EMPTY for %d edges", name, degree);
  int rc = hc_mpi_check_ptr(fn, c, weights, name);
  for (int i = 0; rc == MPI_SUCCESS && i < degree; i++)
    if (weights[i] < 0)
      return hc_mpi_raise(c, fn, MPI_ERR_ARG, "%s[%d] = %d is negative", name,
                          i, weights[i]);
  return rc;
}

static int dist_check_info(const char *fn, hc_mpi_comm_t *c, MPI_Info info) {
  if (info == MPI_INFO_NULL || hc_mpi_info_get(info))
    return MPI_SUCCESS;
  return hc_mpi_raise(c, fn, MPI_ERR_INFO, "invalid info 0x%x", (unsigned)info);
}

/* The distributed graph topology of these lists; the weights are read
 * only when weighted (empty lists may come as NULL).  NULL when memory
 * runs out. */
static hc_mpi_topo_t *dist_topo_new(int indegree, const int *sources,
                                    const int *sourceweights, int outdegree,
                                    const int *destinations,
                                    const int *destweights, int weighted) {
  static const int none[1];
  hc_mpi_topo_t *t = hc_mpi_topo_new(MPI_DIST_GRAPH);
  if (!t)
    return NULL;
  t->indegree = indegree;
  t->outdegree = outdegree;
  t->weighted = weighted;
  const int *sw = !weighted ? NULL : indegree ? sourceweights : none;
  const int *dw = !weighted ? NULL : outdegree ? destweights : none;
  if (!hc_mpi_topo_ints(&t->sources, indegree ? sources : none, indegree) ||
      !hc_mpi_topo_ints(&t->destinations, outdegree ? destinations : none,
                        outdegree) ||
      !hc_mpi_topo_ints(&t->sourceweights, sw, indegree) ||
      !hc_mpi_topo_ints(&t->destweights, dw, outdegree)) {
    hc_mpi_topo_destroy(t);
    return NULL;
  }
  return t;
}

/* ---- distributed graphs: the adjacent form ---------------------------------
 */

static int dist_adjacent_check(const char *fn, hc_mpi_comm_t *c, int indegree,
                               const int *sources, const int *sourceweights,
                               int outdegree, const int *destinations,
                               const int *destweights, MPI_Info info) {
  int rc = dist_check_ranks(fn, c, sources, indegree, "sources");
  if (rc == MPI_SUCCESS)
    rc = dist_check_ranks(fn, c, destinations, outdegree, "destinations");
  if (rc == MPI_SUCCESS &&
      (sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED))
    rc = hc_mpi_raise(c, fn, MPI_ERR_ARG,
                      "sourceweights and destweights must both be "
                      "MPI_UNWEIGHTED or both not");
  if (rc == MPI_SUCCESS && sourceweights != MPI_UNWEIGHTED)
    rc = dist_check_weights(fn, c, sourceweights, indegree, "sourceweights");
  if (rc == MPI_SUCCESS && destweights != MPI_UNWEIGHTED)
    rc = dist_check_weights(fn, c, destweights, outdegree, "destweights");
  if (rc == MPI_SUCCESS)
    rc = dist_check_info(fn, c, info);
  return rc;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
                                    const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[],
                                    const int destweights[], MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph) {
  static const char fn[] = "MPI_Dist_graph_create_adjacent";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_topo_enter_create(fn, comm_old, comm_dist_graph, &c);
  if (rc == MPI_SUCCESS)
    rc = dist_adjacent_check(fn, c, indegree, sources, sourceweights, outdegree,
                             destinations, destweights, info);
  if (rc != MPI_SUCCESS)
    return rc;
  (void)reorder; /* identity: see docs/topologies.md */
  rc = hc_mpi_topo_split(fn, c, hcomm_comm_size(c->engine), comm_dist_graph);
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_topo_attach(fn, c, comm_dist_graph,
                            dist_topo_new(indegree, sources, sourceweights,
                                          outdegree, destinations, destweights,
                                          sourceweights != MPI_UNWEIGHTED));
}
HC_WEAK_ALIAS(MPI_Dist_graph_create_adjacent, PMPI_Dist_graph_create_adjacent);

/* ---- distributed graphs: the general form ----------------------------------
 * * Each rank names some edges s -> d of the graph; rank s must learn d as a
 * destination and rank d must learn s as a source.  One exchange on the
 * new communicator does it: first a header per pair of ranks (how many
 * records follow, and flags that make a bad argument or a weighted /
 * unweighted mismatch on any rank an error on every rank instead of a
 * hang), then the records (direction, peer, weight), kept in the order they
 * arrive: by sending rank, then as that rank listed them. */

enum { DIST_BAD = 1, DIST_UNWEIGHTED = 2 };
enum { DIST_IN = 0, DIST_OUT = 1 };
#define DIST_RECORD 3 /* ints per record */

typedef struct dist_edges {
  int size;
  int *count;  /* records to each rank */
  int *displ;  /* their offsets, in records */
  int *record; /* DIST_RECORD ints each */
} dist_edges_t;

static int dist_check_general(const char *fn, hc_mpi_comm_t *c, int n,
                              const int *sources, const int *degrees,
                              const int *destinations, const int *weights,
                              MPI_Info info) {
  int rc = dist_check_ranks(fn, c, sources, n, "sources");
  if (rc == MPI_SUCCESS && n > 0)
    rc = hc_mpi_check_ptr(fn, c, degrees, "degrees");
  long long edges = 0;
  for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
    if (degrees[i] < 0)
      return hc_mpi_raise(c, fn, MPI_ERR_ARG, "degrees[%d] = %d is negative", i,
                          degrees[i]);
    edges += degrees[i];
  }
  if (rc == MPI_SUCCESS && edges > (1 << 28))
    rc = hc_mpi_raise(c, fn, MPI_ERR_ARG, "too many edges (%lld)", edges);
  if (rc == MPI_SUCCESS)
    rc = dist_check_ranks(fn, c, destinations, (int)edges, "destinations");
  if (rc == MPI_SUCCESS && weights != MPI_UNWEIGHTED)
    rc = dist_check_weights(fn, c, weights, (int)edges, "weights");
  if (rc == MPI_SUCCESS)
    rc = dist_check_info(fn, c, info);
  return rc;
}

/* Calls fn(e, rank, direction, peer, weight) for the two records of every
 * edge this rank gave. */
static void dist_each_record(dist_edges_t *e, int n, const int *sources,
                             const int *degrees, const int *destinations,
                             const int *weights,
                             void (*fn)(dist_edges_t *, int, const int *)) {
  for (int i = 0, k = 0; i < n; i++) {
    for (int j = 0; j < degrees[i]; j++, k++) {
      int w = weights == MPI_UNWEIGHTED ? 1 : weights[k];
      int out[DIST_RECORD] = {DIST_OUT, destinations[k], w};
      int in[DIST_RECORD] = {DIST_IN, sources[i], w};
      fn(e, sources[i], out);
      fn(e, destinations[k], in);
    }
  }
}

static void dist_count_record(dist_edges_t *e, int to, const int *rec) {
  (void)rec;
  e->count[to]++;
}

static void dist_put_record(dist_edges_t *e, int to, const int *rec) {
  memcpy(e->record + (size_t)DIST_RECORD * (size_t)e->displ[to]++, rec,
         DIST_RECORD * sizeof(int));
}

static void dist_edges_free(dist_edges_t *e) {
  free(e->count);
  free(e->displ);
  free(e->record);
}

/* Lays out this rank's records by destination rank; 0 when out of memory. */
static int dist_edges_build(dist_edges_t *e, int size, int n,
                            const int *sources, const int *degrees,
                            const int *destinations, const int *weights) {
  e->size = size;
  e->count = calloc((size_t)size, sizeof(int));
  e->displ = calloc((size_t)size + 1, sizeof(int));
  e->record = NULL;
  if (!e->count || !e->displ)
    return 0;
  dist_each_record(e, n, sources, degrees, destinations, weights,
                   dist_count_record);
  for (int r = 0; r < size; r++)
    e->displ[r + 1] = e->displ[r] + e->count[r];
  e->record = malloc(((size_t)e->displ[size] + 1) * DIST_RECORD * sizeof(int));
  if (!e->record)
    return 0;
  dist_each_record(e, n, sources, degrees, destinations, weights,
                   dist_put_record);
  for (int r = size; r > 0; r--) /* dist_put_record advanced each start */
    e->displ[r] = e->displ[r - 1];
  e->displ[0] = 0;
  return 1;
}

/* Splits the received records into the topology's lists; NULL when
 * memory runs out. */
static hc_mpi_topo_t *dist_topo_from(const int *rec, int nrec, int weighted) {
  int nin = 0, nout = 0;
  for (int i = 0; i < nrec; i++)
    nin += rec[DIST_RECORD * i] == DIST_IN;
  nout = nrec - nin;
  int *lists = malloc((size_t)(2 * nrec + 1) * sizeof(int));
  if (!lists)
    return NULL;
  int *peers = lists, *weights = lists + nrec;
  /* Sources first, then destinations, each in arrival order. */
  for (int i = 0, a = 0, b = nin; i < nrec; i++) {
    int k = rec[DIST_RECORD * i] == DIST_IN ? a++ : b++;
    peers[k] = rec[DIST_RECORD * i + 1];
    weights[k] = rec[DIST_RECORD * i + 2];
  }
  hc_mpi_topo_t *t = dist_topo_new(nin, peers, weights, nout, peers + nin,
                                   weights + nin, weighted);
  free(lists);
  return t;
}

/* The header exchange: *flags_or and *flags_and of every rank's flags. */
static int dist_exchange_headers(MPI_Comm comm, const dist_edges_t *e,
                                 int flags, int *rcount, int *flags_or,
                                 int *flags_and) {
  int size = e->size;
  int *hdr = malloc((size_t)size * 4 * sizeof(int));
  if (!hdr)
    return MPI_ERR_NO_MEM;
  for (int r = 0; r < size; r++) {
    hdr[2 * r] = e->count ? e->count[r] : 0; /* NULL: out of memory */
    hdr[2 * r + 1] = flags;
  }
  int rc = PMPI_Alltoall(hdr, 2, MPI_INT, hdr + 2 * size, 2, MPI_INT, comm);
  *flags_or = 0;
  *flags_and = ~0;
  for (int r = 0; rc == MPI_SUCCESS && r < size; r++) {
    rcount[r] = hdr[2 * size + 2 * r];
    *flags_or |= hdr[2 * size + 2 * r + 1];
    *flags_and &= hdr[2 * size + 2 * r + 1];
  }
  free(hdr);
  return rc;
}

/* The record exchange; *got (malloc'd) holds *ngot records. */
static int dist_exchange_records(MPI_Comm comm, const dist_edges_t *e,
                                 const int *rcount, int **got, int *ngot) {
  int size = e->size;
  int *v = malloc((size_t)size * 4 * sizeof(int));
  long long total = 0;
  for (int r = 0; r < size; r++)
    total += rcount[r];
  *got = malloc(((size_t)total + 1) * DIST_RECORD * sizeof(int));
  if (!v || !*got || total * DIST_RECORD > 0x7fffffff) {
    free(v);
    free(*got);
    *got = NULL;
    return MPI_ERR_NO_MEM;
  }
  int *scount = v, *sdispl = v + size, *rc3 = v + 2 * size,
      *rdispl = v + 3 * size;
  for (int r = 0, off = 0; r < size; r++) {
    scount[r] = DIST_RECORD * e->count[r];
    sdispl[r] = DIST_RECORD * e->displ[r];
    rc3[r] = DIST_RECORD * rcount[r];
    rdispl[r] = off;
    off += rc3[r];
  }
  int rc = PMPI_Alltoallv(e->record, scount, sdispl, MPI_INT, *got, rc3, rdispl,
                          MPI_INT, comm);
  free(v);
  *ngot = (int)total;
  return rc;
}

/* Both exchanges and the topology they give; local_rc is this rank's own
 * argument check (its error was raised already). */
static int dist_general_build(const char *fn, hc_mpi_comm_t *c, MPI_Comm comm,
                              dist_edges_t *e, int flags, int local_rc,
                              hc_mpi_topo_t **t) {
  int *rcount = calloc((size_t)e->size, sizeof(int));
  int flags_or = 0, flags_and = 0, *got = NULL, ngot = 0;
  int rc = rcount ? dist_exchange_headers(comm, e, flags, rcount, &flags_or,
                                          &flags_and)
                  : MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS && (flags_or & DIST_BAD))
    rc = local_rc != MPI_SUCCESS
             ? local_rc
             : hc_mpi_raise(c, fn, MPI_ERR_ARG,
                            "another rank gave invalid graph input");
  else if (rc == MPI_SUCCESS &&
           (flags_or & DIST_UNWEIGHTED) != (flags_and & DIST_UNWEIGHTED))
    rc = hc_mpi_raise(c, fn, MPI_ERR_TOPOLOGY,
                      "weights are MPI_UNWEIGHTED on some ranks only");
  else if (rc == MPI_SUCCESS)
    rc = dist_exchange_records(comm, e, rcount, &got, &ngot);
  if (rc == MPI_SUCCESS)
    *t = dist_topo_from(got, ngot, !(flags_or & DIST_UNWEIGHTED));
  if (rc == MPI_ERR_NO_MEM)
    rc = hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  free(rcount);
  free(got);
  return rc;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                           const int degrees[], const int destinations[],
                           const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph) {
  static const char fn[] = "MPI_Dist_graph_create";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_topo_enter_create(fn, comm_old, comm_dist_graph, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  /* A bad argument still takes part in the exchange (as no edges), so
   * every rank returns instead of waiting for it. */
  int local_rc = dist_check_general(fn, c, n, sources, degrees, destinations,
                                    weights, info);
  int flags = local_rc != MPI_SUCCESS ? DIST_BAD : 0;
  if (weights == MPI_UNWEIGHTED)
    flags |= DIST_UNWEIGHTED;
  (void)reorder; /* identity: see docs/topologies.md */
  rc = hc_mpi_topo_split(fn, c, hcomm_comm_size(c->engine), comm_dist_graph);
  if (rc != MPI_SUCCESS)
    return rc;
  dist_edges_t e;
  hc_mpi_topo_t *t = NULL;
  if (!dist_edges_build(&e, hcomm_comm_size(c->engine),
                        (flags & DIST_BAD) ? 0 : n, sources, degrees,
                        destinations, weights)) {
    flags |= DIST_BAD; /* the others must not wait for this rank */
    local_rc = hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  rc = dist_general_build(fn, c, *comm_dist_graph, &e, flags, local_rc, &t);
  dist_edges_free(&e);
  if (rc != MPI_SUCCESS) {
    PMPI_Comm_free(comm_dist_graph);
    return rc;
  }
  return hc_mpi_topo_attach(fn, c, comm_dist_graph, t);
}
HC_WEAK_ALIAS(MPI_Dist_graph_create, PMPI_Dist_graph_create);

/* ---- distributed graphs: queries ------------------------------------------
 */

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree,
                                    int *outdegree, int *weighted) {
  static const char fn[] = "MPI_Dist_graph_neighbors_count";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int rc = hc_mpi_topo_enter(fn, comm, MPI_DIST_GRAPH, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, indegree, "indegree");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, outdegree, "outdegree");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, weighted, "weighted");
  if (rc != MPI_SUCCESS)
    return rc;
  *indegree = t->indegree;
  *outdegree = t->outdegree;
  *weighted = t->weighted;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Dist_graph_neighbors_count, PMPI_Dist_graph_neighbors_count);

/* Weights go out only for a weighted graph and a real array. */
static int dist_weights_out(const char *fn, hc_mpi_comm_t *c, int *dst, int max,
                            const int *src, int n, const char *name) {
  if (!src || dst == MPI_UNWEIGHTED || dst == MPI_WEIGHTS_EMPTY)
    return MPI_SUCCESS;
  return topo_copy_out(fn, c, dst, max, src, n, name);
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                              int sourceweights[], int maxoutdegree,
                              int destinations[], int destweights[]) {
  static const char fn[] = "MPI_Dist_graph_neighbors";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int rc = hc_mpi_topo_enter(fn, comm, MPI_DIST_GRAPH, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = topo_copy_out(fn, c, sources, maxindegree, t->sources, t->indegree,
                       "sources");
  if (rc == MPI_SUCCESS)
    rc = topo_copy_out(fn, c, destinations, maxoutdegree, t->destinations,
                       t->outdegree, "destinations");
  if (rc == MPI_SUCCESS)
    rc = dist_weights_out(fn, c, sourceweights, maxindegree, t->sourceweights,
                          t->indegree, "sourceweights");
  if (rc == MPI_SUCCESS)
    rc = dist_weights_out(fn, c, destweights, maxoutdegree, t->destweights,
                          t->outdegree, "destweights");
  return rc;
}
HC_WEAK_ALIAS(MPI_Dist_graph_neighbors, PMPI_Dist_graph_neighbors);

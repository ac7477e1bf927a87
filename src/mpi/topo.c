/*
 * Process topologies (MPI 4.0 chapter 8): the topology object every
 * communicator may carry, MPI_Topo_test, Cartesian grids and
 * MPI_Dims_create.  Graphs and distributed graphs are in topo_graph.c.
 *
 * A topology is an attribute of the face's communicator (comm->topo): the
 * engine never sees it.  A new topology communicator is an MPI_Comm_split
 * of the old one that keeps every rank's order (reorder is accepted and
 * keeps the identity, see docs/topologies.md), so rank r of the topology
 * is rank r of comm_old.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/topo.h"

/* ---- the object ---------------------------------------------------------- */

hc_mpi_topo_t *hc_mpi_topo_new(int kind) {
  hc_mpi_topo_t *t = calloc(1, sizeof *t);
  if (t)
    t->kind = kind;
  return t;
}

int hc_mpi_topo_ints(int **dst, const int *src, int n) {
  *dst = NULL;
  if (!src)
    return 1;
  *dst = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  if (!*dst)
    return 0;
  if (n > 0)
    memcpy(*dst, src, (size_t)n * sizeof(int));
  return 1;
}

void hc_mpi_topo_destroy(hc_mpi_topo_t *t) {
  if (!t)
    return;
  free(t->dims);
  free(t->periods);
  free(t->index);
  free(t->edges);
  free(t->sources);
  free(t->destinations);
  free(t->sourceweights);
  free(t->destweights);
  free(t);
}

int hc_mpi_topo_copy(const hc_mpi_topo_t *t, hc_mpi_topo_t **copy) {
  *copy = NULL;
  if (!t)
    return MPI_SUCCESS;
  hc_mpi_topo_t *n = malloc(sizeof *n);
  if (!n)
    return MPI_ERR_NO_MEM;
  *n = *t;
  int ok = hc_mpi_topo_ints(&n->dims, t->dims, t->ndims);
  ok &= hc_mpi_topo_ints(&n->periods, t->periods, t->ndims);
  ok &= hc_mpi_topo_ints(&n->index, t->index, t->nnodes);
  ok &= hc_mpi_topo_ints(&n->edges, t->edges, t->nedges);
  ok &= hc_mpi_topo_ints(&n->sources, t->sources, t->indegree);
  ok &= hc_mpi_topo_ints(&n->destinations, t->destinations, t->outdegree);
  ok &= hc_mpi_topo_ints(&n->sourceweights, t->sourceweights, t->indegree);
  ok &= hc_mpi_topo_ints(&n->destweights, t->destweights, t->outdegree);
  if (!ok) {
    hc_mpi_topo_destroy(n);
    return MPI_ERR_NO_MEM;
  }
  *copy = n;
  return MPI_SUCCESS;
}

int hc_mpi_topo_neighbors(const hc_mpi_comm_t *comm, int *indegree,
                          const int **sources, const int **sourceweights,
                          int *outdegree, const int **destinations,
                          const int **destweights) {
  const hc_mpi_topo_t *t = comm->topo;
  if (!t)
    return MPI_ERR_TOPOLOGY;
  *indegree = t->indegree;
  *sources = t->sources;
  *sourceweights = t->sourceweights;
  *outdegree = t->outdegree;
  *destinations = t->destinations;
  *destweights = t->destweights;
  return MPI_SUCCESS;
}

/* ---- shared entry checks --------------------------------------------------
 */

static const char *topo_kind_name(int kind) {
  switch (kind) {
  case MPI_CART:
    return "Cartesian";
  case MPI_GRAPH:
    return "graph";
  default:
    return "distributed graph";
  }
}

int hc_mpi_topo_enter(const char *fn, MPI_Comm comm, int kind,
                      hc_mpi_comm_t **c, const hc_mpi_topo_t **t) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc != MPI_SUCCESS)
    return rc;
  *t = (*c)->topo;
  if (*t && (*t)->kind == kind)
    return MPI_SUCCESS;
  return hc_mpi_raise(*c, fn, MPI_ERR_TOPOLOGY,
                      "the communicator has no %s topology%s",
                      topo_kind_name(kind), *t ? " (it has another kind)" : "");
}

int hc_mpi_topo_enter_create(const char *fn, MPI_Comm comm, MPI_Comm *newcomm,
                             hc_mpi_comm_t **c) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *c, newcomm, "newcomm");
  /* A call that fails from here on leaves no handle behind: the caller
   * may test the output against MPI_COMM_NULL as well as the code. */
  if (rc == MPI_SUCCESS)
    *newcomm = MPI_COMM_NULL;
  if (rc == MPI_SUCCESS && hcomm_comm_is_inter((*c)->engine))
    rc = hc_mpi_raise(*c, fn, MPI_ERR_COMM,
                      "topologies need an intracommunicator");
  return rc;
}

int hc_mpi_topo_split(const char *fn, hc_mpi_comm_t *c, int nodes,
                      MPI_Comm *newcomm) {
  int rank = hcomm_comm_rank(c->engine);
  return hc_mpi_comm_split_make(fn, c, rank < nodes ? 0 : MPI_UNDEFINED, rank,
                                newcomm);
}

int hc_mpi_topo_attach(const char *fn, hc_mpi_comm_t *parent, MPI_Comm *newcomm,
                       hc_mpi_topo_t *t) {
  if (!t) {
    PMPI_Comm_free(newcomm);
    return hc_mpi_raise(parent, fn, MPI_ERR_NO_MEM,
                        "out of memory for a topology");
  }
  hc_mpi_comm_get(*newcomm)->topo = t;
  return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status) {
  static const char fn[] = "MPI_Topo_test";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, status, "status");
  if (rc != MPI_SUCCESS)
    return rc;
  *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Topo_test, PMPI_Topo_test);

/* ---- Cartesian grids: arithmetic ----------------------------------------- */

/* The rank at displacement disp along dimension dim from rank, or
 * MPI_PROC_NULL past the edge of a non-periodic dimension. */
static int cart_neighbor(const hc_mpi_topo_t *t, int rank, int dim, int disp) {
  long long stride = 1;
  for (int i = t->ndims - 1; i > dim; i--)
    stride *= t->dims[i];
  long long size = t->dims[dim];
  long long at = (rank / stride) % size;
  long long to = at + disp;
  if (to < 0 || to >= size) {
    if (!t->periods[dim])
      return MPI_PROC_NULL;
    to = ((to % size) + size) % size;
  }
  return (int)(rank + (to - at) * stride);
}

static void cart_coords_of(const hc_mpi_topo_t *t, int rank, int *coords) {
  for (int i = t->ndims - 1; i >= 0; i--) {
    coords[i] = rank % t->dims[i];
    rank /= t->dims[i];
  }
}

/* The grid's topology for the process at rank, with its neighbour lists
 * (per dimension, -1 then +1); NULL when memory runs out. */
static hc_mpi_topo_t *cart_topo_new(int ndims, const int *dims,
                                    const int *periods, int rank) {
  hc_mpi_topo_t *t = hc_mpi_topo_new(MPI_CART);
  if (!t)
    return NULL;
  t->ndims = ndims;
  int ok = hc_mpi_topo_ints(&t->dims, dims, ndims) &&
           hc_mpi_topo_ints(&t->periods, periods, ndims);
  t->indegree = t->outdegree = 2 * ndims;
  t->sources = malloc((size_t)(2 * ndims + 1) * sizeof(int));
  t->destinations = malloc((size_t)(2 * ndims + 1) * sizeof(int));
  if (!ok || !t->sources || !t->destinations) {
    hc_mpi_topo_destroy(t);
    return NULL;
  }
  for (int d = 0; d < ndims; d++) {
    t->periods[d] = periods[d] != 0;
    for (int k = 0; k < 2; k++) {
      int nb = cart_neighbor(t, rank, d, k ? 1 : -1);
      t->sources[2 * d + k] = t->destinations[2 * d + k] = nb;
    }
  }
  return t;
}

/* Checks a grid description; *nodes: the number of processes it has. */
static int cart_check(const char *fn, hc_mpi_comm_t *c, int ndims,
                      const int *dims, const int *periods, int *nodes) {
  if (ndims < 0)
    return hc_mpi_raise(c, fn, MPI_ERR_DIMS, "invalid ndims %d (< 0)", ndims);
  int rc = MPI_SUCCESS;
  if (ndims > 0)
    rc = hc_mpi_check_ptr(fn, c, dims, "dims");
  if (rc == MPI_SUCCESS && ndims > 0)
    rc = hc_mpi_check_ptr(fn, c, periods, "periods");
  if (rc != MPI_SUCCESS)
    return rc;
  long long product = 1;
  for (int i = 0; i < ndims; i++) {
    if (dims[i] <= 0)
      return hc_mpi_raise(c, fn, MPI_ERR_DIMS,
                          "invalid dims[%d] = %d (must be > 0)", i, dims[i]);
    product *= dims[i];
    if (product > hcomm_comm_size(c->engine))
      break;
  }
  if (product > hcomm_comm_size(c->engine))
    return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                        "the grid has more processes than the communicator "
                        "(%d)",
                        hcomm_comm_size(c->engine));
  *nodes = (int)product;
  return MPI_SUCCESS;
}

/* ---- Cartesian grids: the calls ------------------------------------------ */

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *comm_cart) {
  static const char fn[] = "MPI_Cart_create";
  hc_mpi_comm_t *c = NULL;
  int nodes = 0;
  int rc = hc_mpi_topo_enter_create(fn, comm_old, comm_cart, &c);
  if (rc == MPI_SUCCESS)
    rc = cart_check(fn, c, ndims, dims, periods, &nodes);
  if (rc != MPI_SUCCESS)
    return rc;
  (void)reorder; /* identity: see the file's comment */
  rc = hc_mpi_topo_split(fn, c, nodes, comm_cart);
  if (rc != MPI_SUCCESS || *comm_cart == MPI_COMM_NULL)
    return rc;
  return hc_mpi_topo_attach(
      fn, c, comm_cart,
      cart_topo_new(ndims, dims, periods, hcomm_comm_rank(c->engine)));
}
HC_WEAK_ALIAS(MPI_Cart_create, PMPI_Cart_create);

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[],
                  const int periods[], int *newrank) {
  static const char fn[] = "MPI_Cart_map";
  hc_mpi_comm_t *c = NULL;
  int nodes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, newrank, "newrank");
  if (rc == MPI_SUCCESS)
    rc = cart_check(fn, c, ndims, dims, periods, &nodes);
  if (rc != MPI_SUCCESS)
    return rc;
  int rank = hcomm_comm_rank(c->engine);
  *newrank = rank < nodes ? rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Cart_map, PMPI_Cart_map);

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims) {
  static const char fn[] = "MPI_Cartdim_get";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int rc = hc_mpi_topo_enter(fn, comm, MPI_CART, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, ndims, "ndims");
  if (rc == MPI_SUCCESS)
    *ndims = t->ndims;
  return rc;
}
HC_WEAK_ALIAS(MPI_Cartdim_get, PMPI_Cartdim_get);

/* Checks an output array of maxdims entries that must hold ndims. */
static int cart_check_out(const char *fn, hc_mpi_comm_t *c,
                          const hc_mpi_topo_t *t, int maxdims, const void *arr,
                          const char *name) {
  if (maxdims < t->ndims)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                        "maxdims %d is less than the grid's %d dimensions",
                        maxdims, t->ndims);
  return t->ndims > 0 ? hc_mpi_check_ptr(fn, c, arr, name) : MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
                  int coords[]) {
  static const char fn[] = "MPI_Cart_get";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int rc = hc_mpi_topo_enter(fn, comm, MPI_CART, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = cart_check_out(fn, c, t, maxdims, dims, "dims");
  if (rc == MPI_SUCCESS)
    rc = cart_check_out(fn, c, t, maxdims, periods, "periods");
  if (rc == MPI_SUCCESS)
    rc = cart_check_out(fn, c, t, maxdims, coords, "coords");
  if (rc != MPI_SUCCESS)
    return rc;
  for (int i = 0; i < t->ndims; i++) {
    dims[i] = t->dims[i];
    periods[i] = t->periods[i];
  }
  cart_coords_of(t, hcomm_comm_rank(c->engine), coords);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Cart_get, PMPI_Cart_get);

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank) {
  static const char fn[] = "MPI_Cart_rank";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int rc = hc_mpi_topo_enter(fn, comm, MPI_CART, &c, &t);
  if (rc == MPI_SUCCESS && t->ndims > 0)
    rc = hc_mpi_check_ptr(fn, c, coords, "coords");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, rank, "rank");
  if (rc != MPI_SUCCESS)
    return rc;
  int r = 0;
  for (int i = 0; i < t->ndims; i++) {
    int at = coords[i], size = t->dims[i];
    if ((at < 0 || at >= size) && !t->periods[i])
      return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                          "coords[%d] = %d is outside the non-periodic "
                          "dimension of size %d",
                          i, at, size);
    at = ((at % size) + size) % size;
    r = r * size + at;
  }
  *rank = r;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Cart_rank, PMPI_Cart_rank);

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  static const char fn[] = "MPI_Cart_coords";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int rc = hc_mpi_topo_enter(fn, comm, MPI_CART, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = cart_check_out(fn, c, t, maxdims, coords, "coords");
  if (rc != MPI_SUCCESS)
    return rc;
  if (rank < 0 || rank >= hcomm_comm_size(c->engine))
    return hc_mpi_raise(c, fn, MPI_ERR_RANK,
                        "invalid rank %d (communicator of size %d)", rank,
                        hcomm_comm_size(c->engine));
  cart_coords_of(t, rank, coords);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Cart_coords, PMPI_Cart_coords);

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                    int *rank_dest) {
  static const char fn[] = "MPI_Cart_shift";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int rc = hc_mpi_topo_enter(fn, comm, MPI_CART, &c, &t);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, rank_source, "rank_source");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, rank_dest, "rank_dest");
  if (rc != MPI_SUCCESS)
    return rc;
  if (direction < 0 || direction >= t->ndims)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                        "invalid direction %d (the grid has %d dimensions)",
                        direction, t->ndims);
  int rank = hcomm_comm_rank(c->engine);
  *rank_source = cart_neighbor(t, rank, direction, -disp);
  *rank_dest = cart_neighbor(t, rank, direction, disp);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Cart_shift, PMPI_Cart_shift);

/* Cart_sub's split: processes that agree on every dropped coordinate form
 * one sub-grid (color: those coordinates, row-major); rank order within it
 * is row-major in the kept ones, which the parent's order already is. */
static int cart_sub_color(const hc_mpi_topo_t *t, const int *remain, int rank) {
  int color = 0;
  for (int i = 0, at = rank; i < t->ndims; i++) {
    long long stride = 1;
    for (int j = i + 1; j < t->ndims; j++)
      stride *= t->dims[j];
    int coord = (int)((at / stride) % t->dims[i]);
    if (!remain[i])
      color = color * t->dims[i] + coord;
  }
  return color;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
  static const char fn[] = "MPI_Cart_sub";
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_topo_t *t = NULL;
  int rc = hc_mpi_topo_enter(fn, comm, MPI_CART, &c, &t);
  if (rc == MPI_SUCCESS && t->ndims > 0)
    rc = hc_mpi_check_ptr(fn, c, remain_dims, "remain_dims");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, newcomm, "newcomm");
  if (rc != MPI_SUCCESS)
    return rc;
  int *dims = malloc((size_t)(t->ndims + 1) * sizeof(int));
  int *periods = malloc((size_t)(t->ndims + 1) * sizeof(int));
  int kept = 0;
  for (int i = 0; dims && periods && i < t->ndims; i++) {
    if (remain_dims[i]) {
      dims[kept] = t->dims[i];
      periods[kept++] = t->periods[i];
    }
  }
  int rank = hcomm_comm_rank(c->engine);
  /* Keeping no dimension gives a zero-dimensional grid, which has one
   * process (as MPI_Cart_create with ndims 0): rank 0; the others get
   * MPI_COMM_NULL. */
  int color = kept ? cart_sub_color(t, remain_dims, rank)
                   : (rank == 0 ? 0 : MPI_UNDEFINED);
  if (dims && periods)
    rc = hc_mpi_comm_split_make(fn, c, color, rank, newcomm);
  else
    rc = hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) {
    int subrank = hcomm_comm_rank(hc_mpi_comm_get(*newcomm)->engine);
    rc = hc_mpi_topo_attach(fn, c, newcomm,
                            cart_topo_new(kept, dims, periods, subrank));
  }
  free(dims);
  free(periods);
  return rc;
}
HC_WEAK_ALIAS(MPI_Cart_sub, PMPI_Cart_sub);

/* ---- MPI_Dims_create ------------------------------------------------------
 */

/* The search for the factors of n into k dimensions that are closest to
 * each other: the smallest spread (largest minus smallest), then, among
 * equal spreads, the largest smallest factor, then the largest next one,
 * and so on up (the choice MPICH makes: every case of its test suite's
 * table).  Factors are tried in non-increasing order and a branch stops
 * as soon as its spread exceeds the best one. */
typedef struct dims_search {
  int k;
  int *cur;  /* the factors chosen so far */
  int *best; /* the best complete choice */
  long long best_spread;
} dims_search_t;

/* f^e, or cap + 1 when that is larger (no overflow). */
static long long dims_pow_capped(long long f, int e, long long cap) {
  long long p = 1;
  for (int i = 0; i < e; i++) {
    if (p > cap / f)
      return cap + 1;
    p *= f;
  }
  return p;
}

/* 1 when f^levels >= r: the levels left can fit r with factors <= f. */
static int dims_fits(long long f, int levels, long long r) {
  return dims_pow_capped(f, levels, r) >= r;
}

/* 1 when the complete choice in s->cur, of spread spread, beats the best:
 * a smaller spread, or the same and larger factors from the smallest up. */
static int dims_better(const dims_search_t *s, long long spread) {
  if (spread != s->best_spread)
    return spread < s->best_spread;
  for (int i = s->k - 1; i >= 0; i--)
    if (s->cur[i] != s->best[i])
      return s->cur[i] > s->best[i];
  return 0;
}

static void dims_try(dims_search_t *s, int level, long long r) {
  int left = s->k - level;
  long long top = s->cur[0];
  long long hi = level == 0 ? r : s->cur[level - 1];
  if (left == 1) { /* the last factor is what remains */
    if (r > hi)
      return;
    s->cur[level] = (int)r;
    if (dims_better(s, level == 0 ? 0 : top - r)) {
      s->best_spread = level == 0 ? 0 : top - r;
      memcpy(s->best, s->cur, (size_t)s->k * sizeof(int));
    }
    return;
  }
  if (hi > r)
    hi = r;
  for (long long f = hi; f >= 1 && dims_fits(f, left, r); f--) {
    if (r % f != 0)
      continue;
    if (level > 0 && top - f > s->best_spread)
      break; /* smaller f only spreads more */
    s->cur[level] = (int)f;
    dims_try(s, level + 1, r / f);
  }
}

/* The first level ascends from the k-th root, so the first complete
 * choices are already balanced and prune the rest. */
static void dims_search(dims_search_t *s, long long n) {
  long long lo = 1;
  while (!dims_fits(lo, s->k, n))
    lo++;
  for (long long f = lo; f <= n; f++) {
    /* Matching the best spread needs the other factors >= m, whose product
     * cannot exceed n / f; larger f only makes that harder. */
    long long m = f - s->best_spread;
    if (m > 1 && dims_pow_capped(m, s->k - 1, n / f) > n / f)
      break;
    if (n % f != 0)
      continue;
    s->cur[0] = (int)f;
    dims_try(s, 1, n / f);
  }
}

/* Fills the k free entries of dims (those 0) with the factors of free. */
static int dims_fill(int ndims, int dims[], int k, int free_nodes) {
  dims_search_t s = {k, malloc((size_t)k * sizeof(int)),
                     malloc((size_t)k * sizeof(int)), (long long)free_nodes};
  if (!s.cur || !s.best) {
    free(s.cur);
    free(s.best);
    return 0;
  }
  for (int i = 0; i < k; i++)
    s.best[i] = i == 0 ? free_nodes : 1; /* always valid: n x 1 x ... */
  if (k == 1)
    s.best[0] = free_nodes;
  else
    dims_search(&s, free_nodes);
  for (int i = 0, j = 0; i < ndims; i++)
    if (dims[i] == 0)
      dims[i] = s.best[j++];
  free(s.cur);
  free(s.best);
  return 1;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  static const char fn[] = "MPI_Dims_create";
  if (nnodes <= 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "invalid nnodes %d (must be > 0)", nnodes);
  if (ndims < 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_DIMS, "invalid ndims %d (< 0)",
                        ndims);
  if (ndims > 0 && !dims)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "dims is NULL");
  long long fixed = 1;
  int k = 0;
  for (int i = 0; i < ndims; i++) {
    if (dims[i] < 0)
      return hc_mpi_raise(NULL, fn, MPI_ERR_DIMS,
                          "invalid dims[%d] = %d (must be >= 0)", i, dims[i]);
    if (dims[i] == 0)
      k++;
    else if ((fixed *= dims[i]) > nnodes)
      fixed = (long long)nnodes + 1; /* cannot divide; avoid overflow */
  }
  if (nnodes % fixed != 0 || (k == 0 && fixed != nnodes))
    return hc_mpi_raise(NULL, fn, MPI_ERR_DIMS,
                        "the product of the given dimensions does not %s %d",
                        k ? "divide" : "equal", nnodes);
  if (k > 0 && !dims_fill(ndims, dims, k, (int)(nnodes / fixed)))
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Dims_create, PMPI_Dims_create);

/* Graph and distributed graph topologies: a ring graph's neighbour lists
 * and MPI_Graph_get; the same ring as a distributed graph in the adjacent
 * form (weighted and unweighted) and in the general form (each edge given
 * by one rank only, weighted), whose lists every rank checks against the
 * edges it must have learnt; messages between graph neighbours arrive;
 * MPI_Topo_test names each kind, and the kind survives MPI_Comm_dup; bad
 * input gets its error class. */
#include "mpitest.h"

static int rank, size;

static int left(void) { return (rank + size - 1) % size; }
static int right(void) { return (rank + 1) % size; }

/* A ring as an MPI graph: node i's edges are i-1 then i+1. */
static void graph_ring(void) {
  int *index = malloc(sizeof(int) * (size_t)size);
  int *edges = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < size; i++) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i + size - 1) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  MPI_Comm g;
  CHECK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g) ==
            MPI_SUCCESS,
        "graph_create");
  int kind = -1, nn = -1, ne = -1, cnt = -1, nb[2] = {-1, -1};
  MPI_Topo_test(g, &kind);
  CHECK(kind == MPI_GRAPH, "topo_test %d", kind);
  MPI_Graphdims_get(g, &nn, &ne);
  CHECK(nn == size && ne == 2 * size, "graphdims %d %d", nn, ne);
  for (int r = 0; r < size; r++) {
    MPI_Graph_neighbors_count(g, r, &cnt);
    MPI_Graph_neighbors(g, r, 2, nb);
    CHECK(cnt == 2 && nb[0] == (r + size - 1) % size && nb[1] == (r + 1) % size,
          "node %d: %d neighbours %d %d", r, cnt, nb[0], nb[1]);
  }
  int *gi = calloc((size_t)size, sizeof(int));
  int *ge = calloc(2 * (size_t)size, sizeof(int));
  MPI_Graph_get(g, size, 2 * size, gi, ge);
  CHECK(!memcmp(gi, index, sizeof(int) * (size_t)size) &&
            !memcmp(ge, edges, 2 * sizeof(int) * (size_t)size),
        "graph_get differs");
  /* A message to each neighbour arrives from that neighbour. */
  int got = -1;
  MPI_Status st;
  MPI_Graph_neighbors(g, rank, 2, nb);
  MPI_Sendrecv(&rank, 1, MPI_INT, nb[1], 5, &got, 1, MPI_INT, nb[0], 5, g, &st);
  CHECK(got == left() && st.MPI_SOURCE == left(), "from left: %d", got);
  int newrank = -2;
  MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank);
  CHECK(newrank == rank, "graph_map %d", newrank);
  MPI_Comm dup;
  MPI_Comm_dup(g, &dup);
  MPI_Comm_free(&g);
  MPI_Topo_test(dup, &kind);
  MPI_Graph_neighbors(dup, rank, 2, nb);
  CHECK(kind == MPI_GRAPH && nb[0] == left() && nb[1] == right(),
        "dup's graph: %d %d %d", kind, nb[0], nb[1]);
  MPI_Comm_free(&dup);
  free(gi);
  free(ge);
  free(index);
  free(edges);
}

/* A rank of the directed ring i -> i + 1 has one source (left) and one
 * destination (right); a weighted edge s -> d weighs 100 + s. */
static void check_dist(MPI_Comm g, int weighted, const char *what) {
  int kind = -1, in = -1, out = -1, w = -1;
  MPI_Topo_test(g, &kind);
  CHECK(kind == MPI_DIST_GRAPH, "%s: topo_test %d", what, kind);
  MPI_Dist_graph_neighbors_count(g, &in, &out, &w);
  CHECK(in == 1 && out == 1 && w == weighted, "%s: in %d out %d weighted %d",
        what, in, out, w);
  int src = -1, dst = -1, sw = -1, dw = -1;
  MPI_Dist_graph_neighbors(g, 1, &src, weighted ? &sw : MPI_UNWEIGHTED, 1, &dst,
                           weighted ? &dw : MPI_UNWEIGHTED);
  CHECK(src == left() && dst == right(), "%s: source %d dest %d", what, src,
        dst);
  if (weighted)
    CHECK(sw == 100 + left() && dw == 100 + rank,
          "%s: weights %d %d (edge s->d weighs 100 + s)", what, sw, dw);
  /* One message along the edge. */
  int got = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, dst, 6, &got, 1, MPI_INT, src, 6, g,
               MPI_STATUS_IGNORE);
  CHECK(got == left(), "%s: got %d", what, got);
}

/* The directed ring i -> i+1, edge weight 100 + i. */
static void dist_ring(void) {
  int src = left(), dst = right();
  int sw = 100 + left(), dw = 100 + rank;
  MPI_Comm g;
  int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &sw, 1, &dst,
                                          &dw, MPI_INFO_NULL, 0, &g);
  CHECK(rc == MPI_SUCCESS, "adjacent weighted: %s", mt_errstr(rc));
  check_dist(g, 1, "adjacent weighted");
  MPI_Comm dup;
  MPI_Comm_dup(g, &dup);
  MPI_Comm_free(&g);
  check_dist(dup, 1, "dup of adjacent weighted");
  MPI_Comm_free(&dup);

  rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED,
                                      1, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 1,
                                      &g);
  CHECK(rc == MPI_SUCCESS, "adjacent unweighted: %s", mt_errstr(rc));
  check_dist(g, 0, "adjacent unweighted");
  MPI_Comm_free(&g);

  /* General form: rank r names the edge (r+1) -> (r+2), which neither end
   * of it gave, so only the exchange can tell them. */
  int s = (rank + 1) % size, deg = 1, d = (rank + 2) % size, w = 100 + s;
  rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &s, &deg, &d, &w, MPI_INFO_NULL,
                             0, &g);
  CHECK(rc == MPI_SUCCESS, "general weighted: %s", mt_errstr(rc));
  check_dist(g, 1, "general weighted");
  MPI_Comm_free(&g);
  rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &s, &deg, &d, MPI_UNWEIGHTED,
                             MPI_INFO_NULL, 0, &g);
  CHECK(rc == MPI_SUCCESS, "general unweighted: %s", mt_errstr(rc));
  check_dist(g, 0, "general unweighted");
  MPI_Comm_free(&g);
}

/* Rank 0 gives every edge 0 -> r of a star; the others give none and pass
 * MPI_WEIGHTS_EMPTY. */
static void dist_star(void) {
  int n = rank == 0 ? 1 : 0, s = 0, deg = size;
  int *d = malloc(sizeof(int) * (size_t)size);
  int *w = malloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; r++) {
    d[r] = r;
    w[r] = 7 * r;
  }
  MPI_Comm g;
  int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, n, &s, &deg, d,
                                 rank == 0 ? w : MPI_WEIGHTS_EMPTY,
                                 MPI_INFO_NULL, 0, &g);
  CHECK(rc == MPI_SUCCESS, "star: %s", mt_errstr(rc));
  int in, out, wt;
  MPI_Dist_graph_neighbors_count(g, &in, &out, &wt);
  CHECK(in == 1 && out == (rank == 0 ? size : 0) && wt == 1,
        "star: in %d out %d weighted %d", in, out, wt);
  int src = -1, sw = -1;
  int *dst = malloc(sizeof(int) * (size_t)size),
      *dw = malloc(sizeof(int) * (size_t)size);
  MPI_Dist_graph_neighbors(g, 1, &src, &sw, size, dst, dw);
  CHECK(src == 0 && sw == 7 * rank, "star: source %d weight %d", src, sw);
  for (int r = 0; rank == 0 && r < size; r++)
    CHECK(dst[r] == r && dw[r] == 7 * r, "star: dest %d = %d weight %d", r,
          dst[r], dw[r]);
  MPI_Comm_free(&g);
  free(d);
  free(w);
  free(dst);
  free(dw);
}

/* No edges: NULL arrays and MPI_WEIGHTS_EMPTY mean weighted, only
 * MPI_UNWEIGHTED means unweighted. */
static void dist_empty(void) {
  const int *weights[3] = {NULL, MPI_WEIGHTS_EMPTY, MPI_UNWEIGHTED};
  for (int k = 0; k < 3; k++) {
    MPI_Comm g;
    int in = -1, out = -1, w = -1;
    int rc =
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, weights[k], 0,
                                       NULL, weights[k], MPI_INFO_NULL, 0, &g);
    CHECK(rc == MPI_SUCCESS, "empty adjacent %d: %s", k, mt_errstr(rc));
    MPI_Dist_graph_neighbors_count(g, &in, &out, &w);
    CHECK(in == 0 && out == 0 && w == (k < 2), "empty adjacent %d: %d %d %d", k,
          in, out, w);
    MPI_Comm_free(&g);
    rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, weights[k],
                               MPI_INFO_NULL, 1, &g);
    CHECK(rc == MPI_SUCCESS, "empty general %d: %s", k, mt_errstr(rc));
    MPI_Dist_graph_neighbors_count(g, &in, &out, &w);
    CHECK(in == 0 && out == 0 && w == (k < 2), "empty general %d: %d %d %d", k,
          in, out, w);
    MPI_Comm_free(&g);
  }
}

static void bad_input(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int nn, ne, cnt, in, out, w;
  int rc = MPI_Graphdims_get(MPI_COMM_WORLD, &nn, &ne);
  CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "graphdims on world: %s",
        mt_errstr(rc));
  rc = MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &cnt);
  CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "graph_neighbors_count on world: %s",
        mt_errstr(rc));
  rc = MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out, &w);
  CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "dist neighbours on world: %s",
        mt_errstr(rc));
  MPI_Comm g = MPI_COMM_NULL;
  int index[2] = {1, 0}, edges[2] = {0, 0};
  rc = MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &g);
  CHECK(rc == MPI_SUCCESS, "one-node graph: %s", mt_errstr(rc));
  if (g != MPI_COMM_NULL) {
    rc = MPI_Cart_shift(g, 0, 1, &in, &out);
    CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "cart_shift on a graph: %s",
          mt_errstr(rc));
    MPI_Comm_free(&g);
  }
  int dec[2] = {2, 1};
  if (size >= 2) {
    rc = MPI_Graph_create(MPI_COMM_WORLD, 2, dec, edges, 0, &g);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "decreasing index: %s", mt_errstr(rc));
  }
  int far[1] = {size};
  index[0] = 1;
  rc = MPI_Graph_create(MPI_COMM_WORLD, 1, index, far, 0, &g);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "edge to no node: %s", mt_errstr(rc));
  rc = MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &g);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "more nodes than ranks: %s",
        mt_errstr(rc));
  int src = size, dst = 0, wt = 1;
  rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED,
                                      1, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                      &g);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "source out of range: %s", mt_errstr(rc));
  src = 0;
  rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED,
                                      1, &dst, &wt, MPI_INFO_NULL, 0, &g);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "half weighted: %s", mt_errstr(rc));
  rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, &src, MPI_UNWEIGHTED,
                                      1, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                      &g);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "negative indegree: %s", mt_errstr(rc));
  /* General form: one rank's bad input fails the call on every rank (and
   * nobody hangs); weights on some ranks only is a topology error. */
  int s = 0, deg = rank == size - 1 ? -1 : 1, d = 0;
  rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &s, &deg, &d, MPI_UNWEIGHTED,
                             MPI_INFO_NULL, 0, &g);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "a negative degree somewhere: %s",
        mt_errstr(rc));
  if (size >= 2) {
    deg = 1;
    rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &s, &deg, &d,
                               rank == 0 ? &wt : MPI_UNWEIGHTED, MPI_INFO_NULL,
                               0, &g);
    CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "mixed weights: %s", mt_errstr(rc));
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  graph_ring();
  dist_ring();
  dist_star();
  dist_empty();
  bad_input();
  MPI_Finalize();
  return 0;
}

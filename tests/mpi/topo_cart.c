/* Cartesian topologies: a 2-D and a 3-D periodic grid exchange halos with
 * MPI_Cart_shift and MPI_Sendrecv, and every ghost cell must hold the value
 * its neighbour computed for it; MPI_Cart_coords and MPI_Cart_rank invert
 * each other on every rank; MPI_Cart_sub gives rows and columns whose
 * members agree on the dropped coordinate; a non-periodic grid shifts to
 * MPI_PROC_NULL at its edges; MPI_Dims_create balances its factors; the
 * grid survives MPI_Comm_dup; bad input gets its error class. */
#include "mpitest.h"

static int rank, size;

/* The value cell (x, y, z) of the whole grid holds: unique per cell. */
static int cell_value(const int *g) {
  return 1 + g[0] * 10000 + g[1] * 100 + g[2];
}

#define N 4 /* local cells per dimension */

/* A local block of N^ndims cells plus one ghost layer on each side,
 * indexed with i in [-1, N] per dimension (unused dimensions are 0). */
typedef struct block {
  int ndims;
  int ext[3]; /* N + 2 or 1 */
  int *v;
} block_t;

static int *at(block_t *b, const int *i) {
  int idx = 0;
  for (int d = 0; d < 3; d++) {
    int off = b->ext[d] > 1 ? i[d] + 1 : 0;
    idx = idx * b->ext[d] + off;
  }
  return &b->v[idx];
}

/* The face of b at index `layer` along dimension dim, packed or unpacked. */
static void face(block_t *b, int dim, int layer, int *buf, int unpack) {
  int n = 0, i[3] = {0, 0, 0};
  int lo[3], hi[3];
  for (int d = 0; d < 3; d++) {
    lo[d] = 0;
    hi[d] = d < b->ndims ? N : 1;
  }
  lo[dim] = layer;
  hi[dim] = layer + 1;
  for (i[0] = lo[0]; i[0] < hi[0]; i[0]++)
    for (i[1] = lo[1]; i[1] < hi[1]; i[1]++)
      for (i[2] = lo[2]; i[2] < hi[2]; i[2]++) {
        if (unpack)
          *at(b, i) = buf[n++];
        else
          buf[n++] = *at(b, i);
      }
}

/* Global coordinates of local index i on the process at coords, wrapped. */
static void global_of(int ndims, const int *dims, const int *coords,
                      const int *i, int *g) {
  for (int d = 0; d < 3; d++) {
    if (d >= ndims) {
      g[d] = 0;
      continue;
    }
    int ext = dims[d] * N;
    g[d] = ((coords[d] * N + i[d]) % ext + ext) % ext;
  }
}

static void halo_grid(int ndims) {
  int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, coords[3] = {0, 0, 0};
  CHECK(MPI_Dims_create(size, ndims, dims) == MPI_SUCCESS, "dims_create");
  MPI_Comm grid;
  CHECK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &grid) ==
            MPI_SUCCESS,
        "cart_create %dD", ndims);
  CHECK(grid != MPI_COMM_NULL, "every rank is in a full grid");
  int grank;
  MPI_Comm_rank(grid, &grank);
  MPI_Cart_coords(grid, grank, ndims, coords);
  block_t b = {ndims, {1, 1, 1}, NULL};
  for (int d = 0; d < ndims; d++)
    b.ext[d] = N + 2;
  b.v = calloc((size_t)(b.ext[0] * b.ext[1] * b.ext[2]), sizeof(int));
  int i[3] = {0, 0, 0}, g[3];
  for (i[0] = 0; i[0] < N; i[0]++)
    for (i[1] = 0; i[1] < (ndims > 1 ? N : 1); i[1]++)
      for (i[2] = 0; i[2] < (ndims > 2 ? N : 1); i[2]++) {
        global_of(ndims, dims, coords, i, g);
        *at(&b, i) = cell_value(g);
      }
  int sendbuf[N * N], recvbuf[N * N];
  for (int d = 0; d < ndims; d++) {
    int lo, hi;
    CHECK(MPI_Cart_shift(grid, d, 1, &lo, &hi) == MPI_SUCCESS, "shift");
    int nface = 1;
    for (int e = 0; e < ndims; e++)
      nface *= e == d ? 1 : N;
    /* Upwards: my top layer to hi, lo's top layer into my low ghosts. */
    for (int dir = 0; dir < 2; dir++) {
      int to = dir ? lo : hi, from = dir ? hi : lo;
      face(&b, d, dir ? 0 : N - 1, sendbuf, 0);
      MPI_Status st;
      memset(recvbuf, 0xff, sizeof recvbuf);
      MPI_Sendrecv(sendbuf, nface, MPI_INT, to, 10 + d, recvbuf, nface, MPI_INT,
                   from, 10 + d, grid, &st);
      CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 10 + d,
            "status source %d tag %d, want %d %d", st.MPI_SOURCE, st.MPI_TAG,
            from, 10 + d);
      face(&b, d, dir ? N : -1, recvbuf, 1);
    }
  }
  /* Every ghost cell that is a face neighbour must hold the cell value of
   * the global cell it shadows. */
  int checked = 0;
  for (int d = 0; d < ndims; d++) {
    for (int side = 0; side < 2; side++) {
      int lo3[3] = {0, 0, 0}, hi3[3] = {1, 1, 1};
      for (int e = 0; e < ndims; e++)
        hi3[e] = N;
      lo3[d] = side ? N : -1;
      hi3[d] = lo3[d] + 1;
      for (i[0] = lo3[0]; i[0] < hi3[0]; i[0]++)
        for (i[1] = lo3[1]; i[1] < hi3[1]; i[1]++)
          for (i[2] = lo3[2]; i[2] < hi3[2]; i[2]++) {
            global_of(ndims, dims, coords, i, g);
            CHECK(*at(&b, i) == cell_value(g),
                  "%dD ghost (%d,%d,%d) holds %d, want %d", ndims, i[0], i[1],
                  i[2], *at(&b, i), cell_value(g));
            checked++;
          }
    }
  }
  CHECK(checked == 2 * ndims *
                       (ndims == 1   ? 1
                        : ndims == 2 ? N
                                     : N * N),
        "checked %d ghosts", checked);
  free(b.v);
  MPI_Comm_free(&grid);
}

/* Coordinates and ranks invert each other, and Cart_get agrees. */
static void round_trips(void) {
  int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
  MPI_Dims_create(size, 3, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &grid);
  int nd = -1;
  MPI_Cartdim_get(grid, &nd);
  CHECK(nd == 3, "cartdim %d", nd);
  for (int r = 0; r < size; r++) {
    int c[3], back = -1;
    MPI_Cart_coords(grid, r, 3, c);
    CHECK(c[0] * dims[1] * dims[2] + c[1] * dims[2] + c[2] == r,
          "rank %d coords (%d,%d,%d) are not row-major", r, c[0], c[1], c[2]);
    MPI_Cart_rank(grid, c, &back);
    CHECK(back == r, "rank %d -> coords -> rank %d", r, back);
    /* Periodic dimensions wrap: one whole period away is the same rank. */
    c[0] += dims[0];
    c[2] -= dims[2];
    MPI_Cart_rank(grid, c, &back);
    CHECK(back == r, "wrapped coords give rank %d, want %d", back, r);
  }
  int gd[3], gp[3], gc[3], grank;
  MPI_Comm_rank(grid, &grank);
  MPI_Cart_get(grid, 3, gd, gp, gc);
  int mc[3];
  MPI_Cart_coords(grid, grank, 3, mc);
  for (int d = 0; d < 3; d++)
    CHECK(gd[d] == dims[d] && gp[d] == periods[d] && gc[d] == mc[d],
          "cart_get dim %d: %d %d %d", d, gd[d], gp[d], gc[d]);
  /* The non-periodic dimension 1 ends in MPI_PROC_NULL. */
  int src, dst;
  MPI_Cart_shift(grid, 1, 1, &src, &dst);
  CHECK((mc[1] == 0) == (src == MPI_PROC_NULL), "low edge source %d", src);
  CHECK((mc[1] == dims[1] - 1) == (dst == MPI_PROC_NULL), "high edge dest %d",
        dst);
  /* The grid travels with a dup. */
  MPI_Comm dup;
  MPI_Comm_dup(grid, &dup);
  int kind = -1;
  MPI_Topo_test(dup, &kind);
  CHECK(kind == MPI_CART, "dup's topology %d", kind);
  int dd[3], dp[3], dc[3];
  MPI_Cart_get(dup, 3, dd, dp, dc);
  CHECK(!memcmp(dd, gd, sizeof dd) && !memcmp(dp, gp, sizeof dp) &&
            !memcmp(dc, gc, sizeof dc),
        "dup's grid differs");
  MPI_Comm idup;
  MPI_Request req;
  MPI_Comm_idup(grid, &idup, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Topo_test(idup, &kind);
  MPI_Cart_get(idup, 3, dd, dp, dc);
  CHECK(kind == MPI_CART && !memcmp(dd, gd, sizeof dd) &&
            !memcmp(dc, gc, sizeof dc),
        "idup's grid differs (kind %d)", kind);
  MPI_Comm_free(&idup);
  MPI_Comm_free(&grid);
  MPI_Cart_shift(dup, 0, 1, &src, &dst); /* the copy outlives the original */
  MPI_Comm_free(&dup);
}

/* Rows of a 2-D grid: members share the row coordinate, rank by column. */
static void sub_grids(void) {
  int dims[2] = {0, 0}, periods[2] = {0, 0}, keep_col[2] = {0, 1};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid, row;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  int grank, c[2];
  MPI_Comm_rank(grid, &grank);
  MPI_Cart_coords(grid, grank, 2, c);
  CHECK(MPI_Cart_sub(grid, keep_col, &row) == MPI_SUCCESS, "cart_sub");
  int rsize, rrank, nd = -1, rd, rp, rc;
  MPI_Comm_size(row, &rsize);
  MPI_Comm_rank(row, &rrank);
  CHECK(rsize == dims[1] && rrank == c[1], "row size %d rank %d", rsize, rrank);
  MPI_Cartdim_get(row, &nd);
  MPI_Cart_get(row, 1, &rd, &rp, &rc);
  CHECK(nd == 1 && rd == dims[1] && rc == c[1], "row grid %d %d %d", nd, rd,
        rc);
  int mine = c[0], sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, row);
  CHECK(sum == c[0] * dims[1], "row members disagree on the row: %d", sum);
  /* Dropping every dimension gives a zero-dimensional grid: one process
   * (rank 0), MPI_COMM_NULL elsewhere. */
  int none[2] = {0, 0};
  MPI_Comm zero;
  MPI_Cart_sub(grid, none, &zero);
  if (grank == 0) {
    int cmp = -1;
    MPI_Comm_compare(MPI_COMM_SELF, zero, &cmp);
    MPI_Cartdim_get(zero, &nd);
    CHECK(cmp == MPI_CONGRUENT && nd == 0, "0-D sub: compare %d ndims %d", cmp,
          nd);
    MPI_Comm_free(&zero);
  } else {
    CHECK(zero == MPI_COMM_NULL, "0-D sub on rank %d is not MPI_COMM_NULL",
          grank);
  }
  MPI_Comm_free(&row);
  MPI_Comm_free(&grid);
}

/* A grid smaller than the communicator leaves the rest out. */
static void partial_grid(void) {
  int dims[1] = {size > 1 ? size - 1 : 1}, periods[1] = {0};
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &grid);
  int newrank = -2;
  MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank);
  if (rank < dims[0]) {
    CHECK(grid != MPI_COMM_NULL && newrank == rank, "member %d", newrank);
    MPI_Comm_free(&grid);
  } else {
    CHECK(grid == MPI_COMM_NULL && newrank == MPI_UNDEFINED,
          "rank %d outside the grid", rank);
  }
}

static void dims_cases(void) {
  struct {
    int nnodes, ndims, in[5], want[5];
  } cases[] = {
      {1, 1, {0}, {1}},
      {12, 2, {0, 0}, {4, 3}},
      {16, 2, {0, 0}, {4, 4}},
      {7, 2, {0, 0}, {7, 1}},
      {24, 3, {0, 0, 0}, {4, 3, 2}},
      {72, 2, {0, 0}, {9, 8}},
      {12, 3, {0, 3, 0}, {2, 3, 2}},
      {12, 2, {3, 4}, {3, 4}},
      {64, 3, {0, 0, 0}, {4, 4, 4}},
      {30, 4, {0, 0, 0, 0}, {5, 3, 2, 1}},
      /* Ties of spread: the largest smallest factor, then the next. */
      {5616, 4, {0, 0, 0, 0}, {13, 9, 8, 6}},
      {98784, 5, {0, 0, 0, 0, 0}, {14, 14, 9, 8, 7}},
      {5040, 3, {0, 0, 0}, {21, 16, 15}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int d[5];
    memcpy(d, cases[k].in, sizeof d);
    int rc = MPI_Dims_create(cases[k].nnodes, cases[k].ndims, d);
    CHECK(rc == MPI_SUCCESS, "case %zu: %s", k, mt_errstr(rc));
    for (int i = 0; i < cases[k].ndims; i++)
      CHECK(d[i] == cases[k].want[i], "case %zu: dims[%d] = %d, want %d", k, i,
            d[i], cases[k].want[i]);
  }
}

static void bad_input(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int d2[2] = {-1, 0};
  int rc = MPI_Dims_create(4, 2, d2);
  CHECK(mt_class(rc) == MPI_ERR_DIMS, "negative dim: %s", mt_errstr(rc));
  int d3[2] = {3, 0};
  rc = MPI_Dims_create(8, 2, d3);
  CHECK(mt_class(rc) == MPI_ERR_DIMS, "non-dividing dim: %s", mt_errstr(rc));
  rc = MPI_Dims_create(8, -1, d3);
  CHECK(mt_class(rc) == MPI_ERR_DIMS, "negative ndims: %s", mt_errstr(rc));

  int c[1] = {0}, r = -1, src, dst, nd;
  rc = MPI_Cart_rank(MPI_COMM_WORLD, c, &r);
  CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "cart_rank on world: %s",
        mt_errstr(rc));
  rc = MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst);
  CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "cart_shift on world: %s",
        mt_errstr(rc));
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  rc = MPI_Cartdim_get(MPI_COMM_SELF, &nd);
  CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "cartdim on self: %s", mt_errstr(rc));
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  CHECK(len > 0, "empty error string");

  int dims[1] = {size}, periods[1] = {0};
  MPI_Comm line;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
  MPI_Comm_set_errhandler(line, MPI_ERRORS_RETURN);
  int out[1] = {size};
  rc = MPI_Cart_rank(line, out, &r);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "cart_rank past the edge: %s",
        mt_errstr(rc));
  out[0] = -1;
  rc = MPI_Cart_rank(line, out, &r);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "cart_rank below the edge: %s",
        mt_errstr(rc));
  rc = MPI_Cart_shift(line, 1, 1, &src, &dst);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "shift in a missing dimension: %s",
        mt_errstr(rc));
  MPI_Comm_free(&line);
  int big[1] = {size + 1};
  rc = MPI_Cart_create(MPI_COMM_WORLD, 1, big, periods, 0, &line);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "grid larger than the comm: %s",
        mt_errstr(rc));
  /* A failed create leaves MPI_COMM_NULL, not the handle freed above. */
  CHECK(line == MPI_COMM_NULL, "a failed cart_create left 0x%x",
        (unsigned)line);
  int zero[1] = {0};
  rc = MPI_Cart_create(MPI_COMM_WORLD, 1, zero, periods, 0, &line);
  CHECK(mt_class(rc) == MPI_ERR_DIMS, "zero dimension: %s", mt_errstr(rc));
  rc = MPI_Cart_create(MPI_COMM_WORLD, -1, zero, periods, 0, &line);
  CHECK(mt_class(rc) == MPI_ERR_DIMS, "negative ndims: %s", mt_errstr(rc));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int kind = -1;
  MPI_Topo_test(MPI_COMM_WORLD, &kind);
  CHECK(kind == MPI_UNDEFINED, "world's topology %d", kind);
  halo_grid(2);
  halo_grid(3);
  round_trips();
  sub_grids();
  partial_grid();
  dims_cases();
  bad_input();
  MPI_Finalize();
  return 0;
}

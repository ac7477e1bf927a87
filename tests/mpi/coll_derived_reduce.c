/* Predefined ops on derived datatypes through every reducing collective:
 * Reduce, Allreduce, Scan, Exscan, Reduce_scatter(_block), their I-forms
 * and MPI_IN_PLACE, on a contiguous type (reduced in place), a vector and
 * an indexed type with gaps (packed around the kernel), and MINLOC on a
 * struct of MPI_DOUBLE_INT pairs.  Every result is compared with a serial
 * reference computed here, and every gap must keep its sentinel. */
#include "mpitest.h"

#define GAP -7.25
#define MAXPER 4

/* A derived type of doubles: ext doubles per element, data at pos[]. */
typedef struct dtype {
  const char *name;
  MPI_Datatype type;
  int ext, per;
  int pos[MAXPER];
} dtype_t;

static int rank, size;

/* Integer values, so every sum is exact in any order. */
static double value_of(int r, long g) {
  return (double)((r * 31 + g * 17) % 23 - 11);
}

static double fold(MPI_Op op, double a, double b) {
  if (op == MPI_SUM)
    return a + b;
  return a > b ? a : b; /* MPI_MAX */
}

/* op over ranks [lo, hi) of basic element g. */
static double reference(MPI_Op op, int lo, int hi, long g) {
  double acc = value_of(lo, g);
  for (int r = lo + 1; r < hi; r++)
    acc = fold(op, value_of(r, g), acc);
  return acc;
}

/* count elements of d, values of rank r from element first on. */
static double *alloc_filled(const dtype_t *d, int count, int r, int first) {
  double *buf = mt_malloc(sizeof(double) * (size_t)(count * d->ext + 1));
  for (int i = 0; i < count * d->ext; i++)
    buf[i] = GAP;
  for (int e = 0; e < count; e++)
    for (int k = 0; k < d->per; k++)
      buf[e * d->ext + d->pos[k]] = value_of(r, (long)(first + e) * d->per + k);
  return buf;
}

/* buf holds count elements of the reduction over ranks [lo, hi) of the
 * elements from first on, and GAP in every gap. */
static void expect(const double *buf, const dtype_t *d, int count, int first,
                   MPI_Op op, int lo, int hi, const char *what) {
  for (int e = 0; e < count; e++) {
    int k = 0;
    for (int i = 0; i < d->ext; i++) {
      double got = buf[e * d->ext + i], want = GAP;
      if (k < d->per && d->pos[k] == i)
        want = reference(op, lo, hi, (long)(first + e) * d->per + k++);
      CHECK(got == want, "%s on %s: element %d double %d is %g, want %g", what,
            d->name, e, i, got, want);
    }
  }
}

static void done(int rc, MPI_Request *req, const char *what, const dtype_t *d) {
  if (rc == MPI_SUCCESS && req != NULL)
    rc = MPI_Wait(req, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS, "%s on %s: %s", what, d->name, mt_errstr(rc));
}

static void test_allreduce(const dtype_t *d, MPI_Op op, int count, int nb,
                           int in_place) {
  MPI_Request req, *rq = nb ? &req : NULL;
  double *send = alloc_filled(d, count, rank, 0);
  double *recv = in_place ? send : alloc_filled(d, count, size + 5, 0);
  const void *s = in_place ? MPI_IN_PLACE : send;
  int rc = nb ? MPI_Iallreduce(s, recv, count, d->type, op, MPI_COMM_WORLD, rq)
              : MPI_Allreduce(s, recv, count, d->type, op, MPI_COMM_WORLD);
  done(rc, rq, "allreduce", d);
  expect(recv, d, count, 0, op, 0, size, "allreduce");
  if (!in_place)
    free(recv);
  free(send);
}

static void test_reduce(const dtype_t *d, MPI_Op op, int count, int nb,
                        int in_place) {
  MPI_Request req, *rq = nb ? &req : NULL;
  int root = size - 1;
  in_place = in_place && rank == root;
  double *send = alloc_filled(d, count, rank, 0);
  double *recv = in_place ? send : alloc_filled(d, count, size + 5, 0);
  const void *s = in_place ? MPI_IN_PLACE : send;
  int rc =
      nb ? MPI_Ireduce(s, recv, count, d->type, op, root, MPI_COMM_WORLD, rq)
         : MPI_Reduce(s, recv, count, d->type, op, root, MPI_COMM_WORLD);
  done(rc, rq, "reduce", d);
  if (rank == root)
    expect(recv, d, count, 0, op, 0, size, "reduce");
  else /* not significant: untouched */
    expect(recv, d, count, 0, op, size + 5, size + 6, "reduce non-root");
  if (!in_place)
    free(recv);
  free(send);
}

static void test_scan(const dtype_t *d, MPI_Op op, int count, int nb,
                      int exclusive) {
  MPI_Request req, *rq = nb ? &req : NULL;
  double *send = alloc_filled(d, count, rank, 0);
  double *recv = alloc_filled(d, count, size + 5, 0);
  int rc;
  if (exclusive)
    rc = nb ? MPI_Iexscan(send, recv, count, d->type, op, MPI_COMM_WORLD, rq)
            : MPI_Exscan(send, recv, count, d->type, op, MPI_COMM_WORLD);
  else
    rc = nb ? MPI_Iscan(send, recv, count, d->type, op, MPI_COMM_WORLD, rq)
            : MPI_Scan(send, recv, count, d->type, op, MPI_COMM_WORLD);
  done(rc, rq, exclusive ? "exscan" : "scan", d);
  if (!exclusive)
    expect(recv, d, count, 0, op, 0, rank + 1, "scan");
  else if (rank > 0)
    expect(recv, d, count, 0, op, 0, rank, "exscan");
  else /* rank 0's recvbuf is left as it was */
    expect(recv, d, count, 0, op, size + 5, size + 6, "exscan rank 0");
  free(recv);
  free(send);
}

/* counts[r] elements to rank r: block forms when vform is 0. */
static void test_reduce_scatter(const dtype_t *d, MPI_Op op, int block,
                                int vform, int nb, int in_place) {
  MPI_Request req, *rq = nb ? &req : NULL;
  int *counts = mt_malloc(sizeof(int) * (size_t)size);
  int total = 0, first = 0;
  for (int r = 0; r < size; r++) {
    counts[r] = vform ? (r * 5 + block) % 7 : block;
    if (r < rank)
      first += counts[r];
    total += counts[r];
  }
  double *send = alloc_filled(d, total, rank, 0);
  double *recv = in_place ? send : alloc_filled(d, counts[rank], size + 5, 0);
  const void *s = in_place ? MPI_IN_PLACE : send;
  MPI_Comm w = MPI_COMM_WORLD;
  int rc;
  if (vform)
    rc = nb ? MPI_Ireduce_scatter(s, recv, counts, d->type, op, w, rq)
            : MPI_Reduce_scatter(s, recv, counts, d->type, op, w);
  else
    rc = nb ? MPI_Ireduce_scatter_block(s, recv, block, d->type, op, w, rq)
            : MPI_Reduce_scatter_block(s, recv, block, d->type, op, w);
  done(rc, rq, vform ? "reduce_scatter" : "reduce_scatter_block", d);
  expect(recv, d, counts[rank], first, op, 0, size,
         vform ? "reduce_scatter" : "reduce_scatter_block");
  if (!in_place)
    free(recv);
  free(send);
  free(counts);
}

static void test_reduce_local(const dtype_t *d, MPI_Op op, int count) {
  double *in = alloc_filled(d, count, 0, 0);
  double *io = alloc_filled(d, count, 1, 0);
  int rc = MPI_Reduce_local(in, io, count, d->type, op);
  CHECK(rc == MPI_SUCCESS, "reduce_local on %s: %s", d->name, mt_errstr(rc));
  expect(io, d, count, 0, op, 0, 2, "reduce_local");
  free(io);
  free(in);
}

static void test_type(const dtype_t *d, int count) {
  MPI_Op ops[2] = {MPI_SUM, MPI_MAX};
  for (int o = 0; o < 2; o++)
    for (int nb = 0; nb < 2; nb++) {
      test_allreduce(d, ops[o], count, nb, 0);
      test_allreduce(d, ops[o], count, nb, 1);
      test_reduce(d, ops[o], count, nb, 0);
      test_reduce(d, ops[o], count, nb, 1);
      test_scan(d, ops[o], count, nb, 0);
      test_scan(d, ops[o], count, nb, 1);
      test_reduce_scatter(d, ops[o], count % 9 + 1, 0, nb, 0);
      test_reduce_scatter(d, ops[o], count % 9 + 1, 1, nb, 0);
      test_reduce_scatter(d, ops[o], 3, 1, nb, 1);
    }
  test_reduce_local(d, MPI_SUM, count);
}

/* MINLOC over a struct of two MPI_DOUBLE_INT pairs with a pair-sized gap:
 * pair values tie across ranks now and then, so the lower rank must win. */
typedef struct {
  double v;
  int k;
} pair_t;

static void test_minloc_pairs(int count) {
  MPI_Datatype st;
  int lens[2] = {1, 1};
  MPI_Aint disps[2] = {0, 2 * (MPI_Aint)sizeof(pair_t)};
  MPI_Datatype types[2] = {MPI_DOUBLE_INT, MPI_DOUBLE_INT};
  MPI_Type_create_struct(2, lens, disps, types, &st);
  MPI_Type_commit(&st);
  int n = 3 * count;
  pair_t *in = mt_malloc(sizeof(pair_t) * (size_t)n);
  pair_t *out = mt_malloc(sizeof(pair_t) * (size_t)n);
  for (int i = 0; i < n; i++) {
    in[i] = (pair_t){(double)((rank * 7 + i * 3) % 5), rank};
    out[i] = (pair_t){GAP, -1};
  }
  int rc = MPI_Allreduce(in, out, count, st, MPI_MINLOC, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "allreduce minloc: %s", mt_errstr(rc));
  for (int i = 0; i < n; i++) {
    pair_t want = {GAP, -1};
    for (int r = 0; i % 3 != 1 && r < size; r++) {
      double v = (double)((r * 7 + i * 3) % 5);
      if (r == 0 || v < want.v)
        want = (pair_t){v, r};
    }
    CHECK(out[i].v == want.v && out[i].k == want.k,
          "minloc pair %d: (%g, %d), want (%g, %d)", i, out[i].v, out[i].k,
          want.v, want.k);
  }
  free(out);
  free(in);
  MPI_Type_free(&st);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (mt_mpich_quirks()) { /* MPICH 4.0 refuses these (MPI_ERR_OP): skip */
    MPI_Finalize();
    return 77;
  }
  dtype_t types[3] = {{"contiguous(3, double)", 0, 3, 3, {0, 1, 2}},
                      {"vector(2, 1, 2, double)", 0, 3, 2, {0, 2}},
                      {"indexed({2, 1}, {0, 4}, double)", 0, 5, 3, {0, 1, 4}}};
  int lens[2] = {2, 1}, displs[2] = {0, 4};
  MPI_Type_contiguous(3, MPI_DOUBLE, &types[0].type);
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &types[1].type);
  MPI_Type_indexed(2, lens, displs, MPI_DOUBLE, &types[2].type);
  int counts[3] = {0, 5, 3000}; /* 3000: past the eager sizes */
  for (int t = 0; t < 3; t++) {
    MPI_Type_commit(&types[t].type);
    for (int c = 0; c < 3; c++)
      test_type(&types[t], counts[c]);
    MPI_Type_free(&types[t].type);
  }
  test_minloc_pairs(4);
  test_minloc_pairs(1000);
  MPI_Finalize();
  return 0;
}

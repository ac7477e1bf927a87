/* Collective latency: MPI_Allreduce (MPI_SUM over doubles, size = bytes of
 * the vector), MPI_Alltoallv (size = bytes each rank sends to every
 * other rank; displacements packed) and MPI_Bcast from rank 0 (size
 * bytes).  Time per call, the maximum over the
 * ranks of each rank's mean, median over the repetitions.
 *
 * Output, one line per size:
 *   bench=allreduce ranks=N size=B median_us=.. min_us=.. p90_us=.. reps=R
 *   iters=K
 *   bench=alltoallv ranks=N size=B median_us=.. ...
 *   bench=bcast ranks=N size=B median_us=.. ... */
#include "common.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const char co_usage[] =
    "  -b         MPI_Alltoallv instead of MPI_Allreduce\n"
    "  -d         MPI_Bcast (from rank 0) instead of MPI_Allreduce\n";

enum co_kind { CO_ALLREDUCE, CO_ALLTOALLV, CO_BCAST };
static const char *const co_names[] = {"allreduce", "alltoallv", "bcast"};

typedef struct co_bufs {
  char *sbuf;
  char *rbuf;
  int *counts;
  int *displs;
} co_bufs_t;

static void co_call(int kind, const co_bufs_t *b, size_t size, int nranks) {
  if (kind == CO_BCAST) {
    bench_check(MPI_Bcast(b->sbuf, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD),
                "MPI_Bcast");
    return;
  }
  if (kind == CO_ALLREDUCE) {
    int n = (int)(size / sizeof(double));
    bench_check(MPI_Allreduce(b->sbuf, b->rbuf, n > 0 ? n : 1, MPI_DOUBLE,
                              MPI_SUM, MPI_COMM_WORLD),
                "MPI_Allreduce");
    return;
  }
  for (int r = 0; r < nranks; r++) {
    b->counts[r] = (int)size;
    b->displs[r] = (int)(size * (size_t)r);
  }
  bench_check(MPI_Alltoallv(b->sbuf, b->counts, b->displs, MPI_BYTE, b->rbuf,
                            b->counts, b->displs, MPI_BYTE, MPI_COMM_WORLD),
              "MPI_Alltoallv");
}

static void co_size(int kind, const bench_opts_t *o, const co_bufs_t *b,
                    size_t size, int rank, int nranks, double *vals,
                    double *gathered) {
  int iters = bench_iters(o, size, 2);
  for (int i = 0; i < o->warmup; i++)
    co_call(kind, b, size, nranks);
  for (int r = 0; r < o->reps; r++) {
    bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    double t0 = bench_now_us();
    for (int i = 0; i < iters; i++)
      co_call(kind, b, size, nranks);
    double mine = (bench_now_us() - t0) / iters;
    bench_gather_double(mine, gathered, rank, nranks);
    double worst = 0.0;
    for (int k = 0; rank == 0 && k < nranks; k++)
      worst = gathered[k] > worst ? gathered[k] : worst;
    vals[r] = worst;
  }
  if (rank != 0)
    return;
  bench_stats_t st;
  bench_stats(vals, o->reps, &st);
  printf("bench=%s ranks=%d size=%zu median_us=%.3f min_us=%.3f p90_us=%.3f "
         "reps=%d iters=%d\n",
         co_names[kind], nranks, size, st.median, st.min, st.p90, o->reps,
         iters);
  fflush(stdout);
}

int main(int argc, char **argv) {
  bench_opts_t o = {.reps = 11, .iters = 1000, .warmup = 10, .window = 1};
  int rank, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  bench_size_range(&o, 8, 1u << 20);
  int rc = bench_parse(argc, argv, &o, co_usage);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  /* -b and -d are bench_parse's "bidirectional" and "distinct" flags;
   * here they pick Alltoallv and Bcast. */
  int kind = o.bidir ? CO_ALLTOALLV : o.distinct ? CO_BCAST : CO_ALLREDUCE;
  int alltoallv = kind == CO_ALLTOALLV;
  size_t max = bench_max_size(&o);
  size_t per = alltoallv ? max * (size_t)nranks : max;
  co_bufs_t b = {bench_alloc(per), bench_alloc(per),
                 calloc((size_t)nranks, sizeof(int)),
                 calloc((size_t)nranks, sizeof(int))};
  double *vals = calloc((size_t)o.reps, sizeof(double));
  double *gathered = calloc((size_t)nranks, sizeof(double));
  if (rank == 0)
    bench_print_header(co_names[kind], &o, nranks);
  for (int i = 0; i < o.nsizes; i++)
    co_size(kind, &o, &b, o.sizes[i], rank, nranks, vals, gathered);
  free(gathered);
  free(vals);
  free(b.displs);
  free(b.counts);
  free(b.rbuf);
  free(b.sbuf);
  MPI_Finalize();
  return 0;
}

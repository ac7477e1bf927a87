/* Small-message rate: the window pattern of bandwidth.c (window 64, one
 * zero-byte ack per window) with small messages, reported as messages per
 * second.  With N ranks every pair (i, i + N/2) runs at once and the pairs'
 * rates are summed.
 *
 * Output, one line per size:
 *   bench=msgrate ranks=N pairs=P size=B median_msgs=.. min_msgs=..
 *   max_msgs=.. reps=R iters=K window=W */
#include "common.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const char mr_usage[] =
    "  -W N       messages per window (default 64)\n";

/* One repetition; returns the summed messages/s over the pairs on rank 0. */
static double mr_rep(const bench_opts_t *o, enum bench_role role, int peer,
                     char *sbuf, char *rbuf, size_t size, int iters, int rank,
                     int nranks, double *gathered) {
  double us, rate = -1.0, sum = 0.0;

  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  us = bench_window_rep(o, role, peer, sbuf, rbuf, size, iters);
  if (role == BENCH_INITIATOR)
    rate = (double)o->window * iters / us * 1e6;
  bench_gather_double(rate, gathered, rank, nranks);
  if (rank != 0)
    return 0.0;
  for (int r = 0; r < nranks; r++)
    if (gathered[r] >= 0.0)
      sum += gathered[r];
  return sum;
}

static void mr_size(const bench_opts_t *o, size_t size, char *sbuf, char *rbuf,
                    int rank, int nranks, double *vals, double *gathered) {
  int peer;
  enum bench_role role = bench_pair(rank, nranks, &peer);
  int iters = bench_iters(o, size, 1);
  int warm = o->warmup < iters ? o->warmup : iters;
  bench_stats_t st;

  if (warm > 0)
    bench_window_rep(o, role, peer, sbuf, rbuf, size, warm);
  for (int r = 0; r < o->reps; r++)
    vals[r] =
        mr_rep(o, role, peer, sbuf, rbuf, size, iters, rank, nranks, gathered);
  if (rank != 0)
    return;
  bench_stats(vals, o->reps, &st);
  printf("bench=msgrate ranks=%d pairs=%d size=%zu median_msgs=%.0f "
         "min_msgs=%.0f max_msgs=%.0f reps=%d iters=%d window=%d\n",
         nranks, nranks / 2, size, st.median, st.min, st.max, o->reps, iters,
         o->window);
  fflush(stdout);
}

int main(int argc, char **argv) {
  bench_opts_t o = {.reps = 11, .iters = 500, .warmup = 50, .window = 64};
  int rank, nranks, rc;
  double *vals, *gathered;
  char *sbuf, *rbuf;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  bench_size_range(&o, 1, 1024);
  rc = bench_parse(argc, argv, &o, mr_usage);
  if (rc != 0 || nranks < 2) {
    if (rank == 0 && nranks < 2)
      fprintf(stderr, "msgrate: needs at least 2 ranks\n");
    MPI_Finalize();
    return rc < 0 || nranks < 2 ? 1 : 0;
  }
  o.bidir = 0; /* a rate is counted in one direction */
  vals = calloc((size_t)o.reps, sizeof(*vals));
  gathered = calloc((size_t)nranks, sizeof(*gathered));
  sbuf = bench_alloc(bench_max_size(&o));
  rbuf = bench_alloc(bench_max_size(&o) * (o.distinct ? (size_t)o.window : 1));
  if (rank == 0)
    bench_print_header("msgrate", &o, nranks);
  for (int i = 0; i < o.nsizes; i++)
    mr_size(&o, o.sizes[i], sbuf, rbuf, rank, nranks, vals, gathered);
  free(rbuf);
  free(sbuf);
  free(gathered);
  free(vals);
  MPI_Finalize();
  return 0;
}

/* Window bandwidth: the initiator of each pair posts a window of
 * MPI_Isend (64 by default), waits for all and waits for a zero-byte ack
 * from the responder; -b makes both sides send and receive a window at
 * once (bidirectional, no ack).  Bandwidth is bytes moved / time in MB/s
 * with MB = 10^6 B; with N ranks the pairs' rates are summed.
 *
 * Output, one line per size:
 *   bench=bandwidth mode=uni|bi ranks=N size=B median_MBps=.. min_MBps=..
 *   max_MBps=.. reps=R iters=K window=W */
#include "common.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const char bw_usage[] =
    "  -W N       messages per window (default 64)\n"
    "  -b         bidirectional: both ranks send a window at once\n"
    "  -d         one receive buffer per window slot (default: all the\n"
    "             receives of a window share one buffer, as OSU does)\n";

/* One repetition; returns the summed MB/s over the pairs on rank 0. */
static double bw_rep(const bench_opts_t *o, enum bench_role role, int peer,
                     char *sbuf, char *rbuf, size_t size, int iters, int rank,
                     int nranks, double *gathered) {
  double us, mbps = -1.0, sum = 0.0;
  double bytes = (double)size * o->window * iters * (o->bidir ? 2.0 : 1.0);

  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  us = bench_window_rep(o, role, peer, sbuf, rbuf, size, iters);
  if (role == BENCH_INITIATOR)
    mbps = bytes / us; /* bytes per microsecond == 10^6 B/s */
  bench_gather_double(mbps, gathered, rank, nranks);
  if (rank != 0)
    return 0.0;
  for (int r = 0; r < nranks; r++)
    if (gathered[r] >= 0.0)
      sum += gathered[r];
  return sum;
}

static void bw_size(const bench_opts_t *o, size_t size, char *sbuf, char *rbuf,
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
        bw_rep(o, role, peer, sbuf, rbuf, size, iters, rank, nranks, gathered);
  if (rank != 0)
    return;
  bench_stats(vals, o->reps, &st);
  printf("bench=bandwidth mode=%s ranks=%d size=%zu median_MBps=%.2f "
         "min_MBps=%.2f max_MBps=%.2f reps=%d iters=%d window=%d\n",
         o->bidir ? "bi" : "uni", nranks, size, st.median, st.min, st.max,
         o->reps, iters, o->window);
  fflush(stdout);
}

int main(int argc, char **argv) {
  bench_opts_t o = {.reps = 11, .iters = 100, .warmup = 10, .window = 64};
  int rank, nranks, rc;
  double *vals, *gathered;
  char *sbuf, *rbuf;
  size_t maxsz;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  bench_size_range(&o, 1, 16u << 20);
  rc = bench_parse(argc, argv, &o, bw_usage);
  if (rc != 0 || nranks < 2) {
    if (rank == 0 && nranks < 2)
      fprintf(stderr, "bandwidth: needs at least 2 ranks\n");
    MPI_Finalize();
    return rc < 0 || nranks < 2 ? 1 : 0;
  }
  maxsz = bench_max_size(&o);
  vals = calloc((size_t)o.reps, sizeof(*vals));
  gathered = calloc((size_t)nranks, sizeof(*gathered));
  sbuf = bench_alloc(maxsz);
  rbuf = bench_alloc(o.distinct ? maxsz * (size_t)o.window : maxsz);
  if (rank == 0)
    bench_print_header("bandwidth", &o, nranks);
  for (int i = 0; i < o.nsizes; i++)
    bw_size(&o, o.sizes[i], sbuf, rbuf, rank, nranks, vals, gathered);
  free(rbuf);
  free(sbuf);
  free(gathered);
  free(vals);
  MPI_Finalize();
  return 0;
}

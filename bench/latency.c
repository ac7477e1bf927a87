/* Ping-pong latency: one-way time (round trip / 2) with blocking
 * MPI_Send/MPI_Recv.  With N ranks every pair (i, i + N/2) ping-pongs at
 * the same time and a repetition's value is the mean over the pairs.
 *
 * Output, one line per size:
 *   bench=latency ranks=N size=B median_us=.. min_us=.. p90_us=.. reps=R
 *   iters=K */
#include "common.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define LAT_TAG 1

/* Sends come from sbuf and receives land in rbuf, as in OSU: the echo
 * never writes the buffer that is being sent, so its cache lines stay
 * clean. */
typedef struct lat_bufs {
  char *sbuf;
  char *rbuf;
} lat_bufs_t;

static void lat_loop(enum bench_role role, int peer, const lat_bufs_t *b,
                     size_t size, int iters) {
  int n = (int)size;
  for (int i = 0; i < iters; i++) {
    if (role == BENCH_INITIATOR) {
      bench_check(MPI_Send(b->sbuf, n, MPI_BYTE, peer, LAT_TAG, MPI_COMM_WORLD),
                  "MPI_Send");
      bench_check(MPI_Recv(b->rbuf, n, MPI_BYTE, peer, LAT_TAG, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE),
                  "MPI_Recv");
    } else if (role == BENCH_RESPONDER) {
      bench_check(MPI_Recv(b->rbuf, n, MPI_BYTE, peer, LAT_TAG, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE),
                  "MPI_Recv");
      bench_check(MPI_Send(b->sbuf, n, MPI_BYTE, peer, LAT_TAG, MPI_COMM_WORLD),
                  "MPI_Send");
    }
  }
}

/* One timed repetition; returns the mean one-way latency over the pairs on
 * rank 0 (other ranks return 0). */
static double lat_rep(enum bench_role role, int peer, const lat_bufs_t *buf,
                      size_t size, int iters, int rank, int nranks,
                      double *gathered) {
  double t0, mine = -1.0, sum = 0.0;
  int pairs = 0;

  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  t0 = bench_now_us();
  lat_loop(role, peer, buf, size, iters);
  if (role == BENCH_INITIATOR)
    mine = (bench_now_us() - t0) / (2.0 * iters);
  bench_gather_double(mine, gathered, rank, nranks);
  if (rank != 0)
    return 0.0;
  for (int r = 0; r < nranks; r++) {
    if (gathered[r] >= 0.0) {
      sum += gathered[r];
      pairs++;
    }
  }
  return sum / pairs;
}

static void lat_size(const bench_opts_t *o, size_t size, const lat_bufs_t *buf,
                     int rank, int nranks, double *vals, double *gathered) {
  int peer;
  enum bench_role role = bench_pair(rank, nranks, &peer);
  int iters = bench_iters(o, size, 4);
  int warm = o->warmup < iters ? o->warmup : iters;
  bench_stats_t st;

  lat_loop(role, peer, buf, size, warm);
  for (int r = 0; r < o->reps; r++)
    vals[r] = lat_rep(role, peer, buf, size, iters, rank, nranks, gathered);
  if (rank != 0)
    return;
  bench_stats(vals, o->reps, &st);
  printf("bench=latency ranks=%d size=%zu median_us=%.3f min_us=%.3f "
         "p90_us=%.3f reps=%d iters=%d\n",
         nranks, size, st.median, st.min, st.p90, o->reps, iters);
  fflush(stdout);
}

int main(int argc, char **argv) {
  bench_opts_t o = {.reps = 11, .iters = 1000, .warmup = 100, .window = 1};
  int rank, nranks, rc;
  double *vals, *gathered;
  lat_bufs_t buf;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  bench_size_range(&o, 1, 16u << 20);
  rc = bench_parse(argc, argv, &o, NULL);
  if (rc != 0 || nranks < 2) {
    if (rank == 0 && nranks < 2)
      fprintf(stderr, "latency: needs at least 2 ranks\n");
    MPI_Finalize();
    return rc < 0 || nranks < 2 ? 1 : 0;
  }
  vals = calloc((size_t)o.reps, sizeof(*vals));
  gathered = calloc((size_t)nranks, sizeof(*gathered));
  buf.sbuf = bench_alloc(bench_max_size(&o));
  buf.rbuf = bench_alloc(bench_max_size(&o));
  if (rank == 0)
    bench_print_header("latency", &o, nranks);
  for (int i = 0; i < o.nsizes; i++)
    lat_size(&o, o.sizes[i], &buf, rank, nranks, vals, gathered);
  free(buf.rbuf);
  free(buf.sbuf);
  free(gathered);
  free(vals);
  MPI_Finalize();
  return 0;
}

/* Communication/computation overlap for large non-blocking transfers.
 *
 * Each pair exchanges one message in each direction (MPI_Irecv + MPI_Isend,
 * then MPI_Waitall).  First the exchange alone is timed: t_comm, the median
 * over the repetitions.  Then each iteration posts the exchange, computes
 * for t_comm without calling MPI, and waits: t_total.  The part of the
 * transfer that did not hide behind the computation is
 * t_total - t_compute, so
 *   overlap% = 100 * (1 - (t_total - t_compute) / t_comm), clamped to
 * [0, 100].  100 % means the library moved the data while the ranks
 * computed; 0 % means nothing moved until MPI_Waitall.
 *
 * Output, one line per size:
 *   bench=overlap ranks=N size=B median_pct=.. min_pct=.. max_pct=..
 *   comm_us=.. total_us=.. reps=R iters=K */
#include "common.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define OV_TAG 5

typedef struct ov_ctx {
  enum bench_role role;
  int peer;
  char *sbuf;
  char *rbuf;
  size_t size;
  int iters;
} ov_ctx_t;

/* Computes for about us microseconds.  The loop does arithmetic the
 * compiler cannot drop; the clock, not an iteration count, decides when to
 * stop, so no calibration is needed. */
static double ov_compute(double us) {
  volatile double acc = 1.0;
  double t0 = bench_now_us(), t;
  do {
    for (int i = 0; i < 64; i++)
      acc = acc * 1.0000001 + 1e-9;
    t = bench_now_us();
  } while (t - t0 < us);
  return t - t0;
}

static void ov_post(const ov_ctx_t *c, MPI_Request req[2]) {
  bench_check(MPI_Irecv(c->rbuf, (int)c->size, MPI_BYTE, c->peer, OV_TAG,
                        MPI_COMM_WORLD, &req[0]),
              "MPI_Irecv");
  bench_check(MPI_Isend(c->sbuf, (int)c->size, MPI_BYTE, c->peer, OV_TAG,
                        MPI_COMM_WORLD, &req[1]),
              "MPI_Isend");
}

/* Mean microseconds per iteration of exchange (+ compute when work_us > 0);
 * *compute_us receives the mean measured compute time. */
static double ov_iterations(const ov_ctx_t *c, double work_us,
                            double *compute_us) {
  MPI_Request req[2];
  double t0, spent = 0.0;

  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  if (c->role == BENCH_IDLE)
    return 0.0;
  t0 = bench_now_us();
  for (int i = 0; i < c->iters; i++) {
    ov_post(c, req);
    if (work_us > 0.0)
      spent += ov_compute(work_us);
    bench_check(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
  }
  *compute_us = spent / c->iters;
  return (bench_now_us() - t0) / c->iters;
}

/* Median pure-communication time, agreed between the two ranks of a pair
 * (the initiator's value) so both compute for the same time. */
static double ov_comm_time(const ov_ctx_t *c, int reps, double *vals) {
  double unused, t;
  bench_stats_t st;

  for (int r = 0; r < reps; r++)
    vals[r] = ov_iterations(c, 0.0, &unused);
  bench_stats(vals, reps, &st);
  t = st.median;
  if (c->role == BENCH_INITIATOR)
    bench_check(
        MPI_Send(&t, 1, MPI_DOUBLE, c->peer, OV_TAG + 1, MPI_COMM_WORLD),
        "MPI_Send(t_comm)");
  else if (c->role == BENCH_RESPONDER)
    bench_check(MPI_Recv(&t, 1, MPI_DOUBLE, c->peer, OV_TAG + 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE),
                "MPI_Recv(t_comm)");
  return t;
}

static double ov_pct(double total, double compute, double comm) {
  double pct = 100.0 * (1.0 - (total - compute) / comm);
  if (pct < 0.0)
    return 0.0;
  return pct > 100.0 ? 100.0 : pct;
}

/* Mean over the pairs of one per-initiator value, on rank 0. */
static double ov_pair_mean(double v, int rank, int nranks, double *gathered) {
  double sum = 0.0;
  int n = 0;
  bench_gather_double(v, gathered, rank, nranks);
  if (rank != 0)
    return 0.0;
  for (int r = 0; r < nranks; r++) {
    if (gathered[r] >= 0.0) {
      sum += gathered[r];
      n++;
    }
  }
  return sum / n;
}

static void ov_size(const bench_opts_t *o, ov_ctx_t *c, int rank, int nranks,
                    double *vals, double *totals, double *gathered) {
  double comm, compute, total, pct;
  bench_stats_t st, tt;

  c->iters = bench_iters(o, c->size, 2);
  if (o->warmup > 0)
    ov_iterations(c, 0.0, &compute);
  comm = ov_comm_time(c, o->reps, vals);
  for (int r = 0; r < o->reps; r++) {
    total = ov_iterations(c, comm, &compute);
    pct = c->role == BENCH_INITIATOR ? ov_pct(total, compute, comm) : -1.0;
    vals[r] = ov_pair_mean(pct, rank, nranks, gathered);
    totals[r] = ov_pair_mean(c->role == BENCH_INITIATOR ? total : -1.0, rank,
                             nranks, gathered);
  }
  comm = ov_pair_mean(c->role == BENCH_INITIATOR ? comm : -1.0, rank, nranks,
                      gathered);
  if (rank != 0)
    return;
  bench_stats(vals, o->reps, &st);
  bench_stats(totals, o->reps, &tt);
  printf("bench=overlap ranks=%d size=%zu median_pct=%.1f min_pct=%.1f "
         "max_pct=%.1f comm_us=%.2f total_us=%.2f reps=%d iters=%d\n",
         nranks, c->size, st.median, st.min, st.max, comm, tt.median, o->reps,
         c->iters);
  fflush(stdout);
}

int main(int argc, char **argv) {
  bench_opts_t o = {.reps = 11, .iters = 200, .warmup = 1, .window = 1};
  int rank, nranks, rc;
  double *vals, *totals, *gathered;
  ov_ctx_t c;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  bench_size_range(&o, 64u << 10, 16u << 20);
  rc = bench_parse(argc, argv, &o, NULL);
  if (rc != 0 || nranks < 2) {
    if (rank == 0 && nranks < 2)
      fprintf(stderr, "overlap: needs at least 2 ranks\n");
    MPI_Finalize();
    return rc < 0 || nranks < 2 ? 1 : 0;
  }
  c.role = bench_pair(rank, nranks, &c.peer);
  c.sbuf = bench_alloc(bench_max_size(&o));
  c.rbuf = bench_alloc(bench_max_size(&o));
  vals = calloc((size_t)o.reps, sizeof(*vals));
  totals = calloc((size_t)o.reps, sizeof(*totals));
  gathered = calloc((size_t)nranks, sizeof(*gathered));
  if (rank == 0)
    bench_print_header("overlap", &o, nranks);
  for (int i = 0; i < o.nsizes; i++) {
    c.size = o.sizes[i];
    ov_size(&o, &c, rank, nranks, vals, totals, gathered);
  }
  free(gathered);
  free(totals);
  free(vals);
  free(c.rbuf);
  free(c.sbuf);
  MPI_Finalize();
  return 0;
}

/* Collective latency: one MPI call (-c NAME, default allreduce) timed per
 * call, the maximum over the ranks of each rank's mean, median over the
 * repetitions.  The size is the message each rank contributes:
 *   allreduce, reduce, reduce_scatter_block, allreduce_init: bytes of the
 *     doubles summed (reduce to rank 0; reduce_scatter_block: bytes each
 *     rank keeps; allreduce_init: MPI-4 persistent, built once per size
 *     and started per call);
 *   bcast: bytes from rank 0; allgather: bytes from each rank;
 *   alltoall, alltoallv: bytes to each rank (alltoallv with displacements
 *     packed);
 *   barrier: no data (give -s 0); barrier_init: its persistent form;
 *   iallreduce, ibcast: the I-form started and waited for at once, as
 *     allreduce and bcast (what starting a schedule costs);
 *   bcast_init: MPI-4 persistent bcast from rank 0, as allreduce_init;
 *   reduce_init, allgather_init, alltoall_init, reduce_scatter_block_init:
 *     the persistent forms of reduce, allgather, alltoall and
 *     reduce_scatter_block, alike;
 *   gather, scatter: bytes from (to) each rank, root 0;
 *   gatherv, scatterv, allgatherv: the same with every count equal and the
 *     displacements packed, so that every rank does the fixed forms' work;
 *   reduce_scatter: as reduce_scatter_block, every count equal;
 *   dup_allreduce: MPI_Comm_dup of MPI_COMM_WORLD, one allreduce on the
 *     duplicate, MPI_Comm_free: what a library that makes a communicator
 *     for a call or two pays.
 *
 * Output, one line per size:
 *   bench=NAME ranks=N size=B median_us=.. min_us=.. p90_us=.. reps=R
 *   iters=K */
#include "common.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char co_usage[] =
    "  -c NAME    the call: allreduce (default), bcast, reduce, allgather,\n"
    "             alltoall, alltoallv, reduce_scatter_block, barrier,\n"
    "             allreduce_init, iallreduce, ibcast, bcast_init,\n"
    "             reduce_init, allgather_init, alltoall_init,\n"
    "             reduce_scatter_block_init, gather, scatter, gatherv,\n"
    "             scatterv, allgatherv, reduce_scatter, barrier_init,\n"
    "             dup_allreduce\n";

enum co_call {
  CO_ALLREDUCE,
  CO_BCAST,
  CO_REDUCE,
  CO_ALLGATHER,
  CO_ALLTOALL,
  CO_ALLTOALLV,
  CO_REDUCE_SCATTER_BLOCK,
  CO_BARRIER,
  CO_ALLREDUCE_INIT,
  CO_IALLREDUCE,
  CO_IBCAST,
  CO_BCAST_INIT,
  CO_REDUCE_INIT,
  CO_ALLGATHER_INIT,
  CO_ALLTOALL_INIT,
  CO_REDUCE_SCATTER_BLOCK_INIT,
  CO_GATHER,
  CO_SCATTER,
  CO_GATHERV,
  CO_SCATTERV,
  CO_ALLGATHERV,
  CO_REDUCE_SCATTER,
  CO_BARRIER_INIT,
  CO_DUP_ALLREDUCE
};

static const char *const co_names[] = {
    "allreduce", "bcast",    "reduce",  "allgather",     "alltoall",
    "alltoallv", "reduce_scatter_block", "barrier", "allreduce_init", "iallreduce", "ibcast", "bcast_init",
    "reduce_init", "allgather_init", "alltoall_init",
    "reduce_scatter_block_init", "gather", "scatter", "gatherv", "scatterv",
    "allgatherv", "reduce_scatter", "barrier_init", "dup_allreduce"};

typedef struct co_bench {
  enum co_call call;
  int nranks;
  char *sbuf;
  char *rbuf;
  int *counts;
  int *displs;
  int *dcounts; /* reduce_scatter: doubles each rank keeps */
  MPI_Request persistent; /* the _init calls: this size's */
} co_bench_t;

static int co_persistent(enum co_call call) {
  return call == CO_ALLREDUCE_INIT || call == CO_BARRIER_INIT ||
         (call >= CO_BCAST_INIT && call <= CO_REDUCE_SCATTER_BLOCK_INIT);
}

/* Doubles in size bytes (at least one, so that 8 B means one double). */
static int co_doubles(size_t size) {
  int n = (int)(size / sizeof(double));
  return n > 0 ? n : 1;
}

static void co_call(co_bench_t *b, size_t size) {
  int n = co_doubles(size), bytes = (int)size;
  MPI_Request req;
  MPI_Comm dup;
  switch (b->call) {
  case CO_ALLREDUCE:
    bench_check(MPI_Allreduce(b->sbuf, b->rbuf, n, MPI_DOUBLE, MPI_SUM,
                              MPI_COMM_WORLD),
                "MPI_Allreduce");
    return;
  case CO_BCAST:
    bench_check(MPI_Bcast(b->sbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD),
                "MPI_Bcast");
    return;
  case CO_REDUCE:
    bench_check(MPI_Reduce(b->sbuf, b->rbuf, n, MPI_DOUBLE, MPI_SUM, 0,
                           MPI_COMM_WORLD),
                "MPI_Reduce");
    return;
  case CO_ALLGATHER:
    bench_check(MPI_Allgather(b->sbuf, bytes, MPI_BYTE, b->rbuf, bytes,
                              MPI_BYTE, MPI_COMM_WORLD),
                "MPI_Allgather");
    return;
  case CO_ALLTOALL:
    bench_check(MPI_Alltoall(b->sbuf, bytes, MPI_BYTE, b->rbuf, bytes,
                             MPI_BYTE, MPI_COMM_WORLD),
                "MPI_Alltoall");
    return;
  case CO_ALLTOALLV:
    bench_check(MPI_Alltoallv(b->sbuf, b->counts, b->displs, MPI_BYTE,
                              b->rbuf, b->counts, b->displs, MPI_BYTE,
                              MPI_COMM_WORLD),
                "MPI_Alltoallv");
    return;
  case CO_REDUCE_SCATTER_BLOCK:
    bench_check(MPI_Reduce_scatter_block(b->sbuf, b->rbuf, n, MPI_DOUBLE,
                                         MPI_SUM, MPI_COMM_WORLD),
                "MPI_Reduce_scatter_block");
    return;
  case CO_BARRIER:
    bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    return;
  case CO_ALLREDUCE_INIT:
  case CO_BCAST_INIT:
  case CO_REDUCE_INIT:
  case CO_ALLGATHER_INIT:
  case CO_ALLTOALL_INIT:
  case CO_REDUCE_SCATTER_BLOCK_INIT:
  case CO_BARRIER_INIT:
    bench_check(MPI_Start(&b->persistent), "MPI_Start");
    bench_check(MPI_Wait(&b->persistent, MPI_STATUS_IGNORE), "MPI_Wait");
    return;
  case CO_GATHER:
    bench_check(MPI_Gather(b->sbuf, bytes, MPI_BYTE, b->rbuf, bytes, MPI_BYTE,
                           0, MPI_COMM_WORLD),
                "MPI_Gather");
    return;
  case CO_SCATTER:
    bench_check(MPI_Scatter(b->sbuf, bytes, MPI_BYTE, b->rbuf, bytes,
                            MPI_BYTE, 0, MPI_COMM_WORLD),
                "MPI_Scatter");
    return;
  case CO_GATHERV:
    bench_check(MPI_Gatherv(b->sbuf, bytes, MPI_BYTE, b->rbuf, b->counts,
                            b->displs, MPI_BYTE, 0, MPI_COMM_WORLD),
                "MPI_Gatherv");
    return;
  case CO_SCATTERV:
    bench_check(MPI_Scatterv(b->sbuf, b->counts, b->displs, MPI_BYTE, b->rbuf,
                             bytes, MPI_BYTE, 0, MPI_COMM_WORLD),
                "MPI_Scatterv");
    return;
  case CO_ALLGATHERV:
    bench_check(MPI_Allgatherv(b->sbuf, bytes, MPI_BYTE, b->rbuf, b->counts,
                               b->displs, MPI_BYTE, MPI_COMM_WORLD),
                "MPI_Allgatherv");
    return;
  case CO_REDUCE_SCATTER:
    bench_check(MPI_Reduce_scatter(b->sbuf, b->rbuf, b->dcounts, MPI_DOUBLE,
                                   MPI_SUM, MPI_COMM_WORLD),
                "MPI_Reduce_scatter");
    return;
  case CO_IALLREDUCE:
    bench_check(MPI_Iallreduce(b->sbuf, b->rbuf, n, MPI_DOUBLE, MPI_SUM,
                               MPI_COMM_WORLD, &req),
                "MPI_Iallreduce");
    bench_check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
    return;
  case CO_IBCAST:
    bench_check(MPI_Ibcast(b->sbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &req),
                "MPI_Ibcast");
    bench_check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
    return;
  case CO_DUP_ALLREDUCE:
    bench_check(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
    bench_check(
        MPI_Allreduce(b->sbuf, b->rbuf, n, MPI_DOUBLE, MPI_SUM, dup),
        "MPI_Allreduce");
    bench_check(MPI_Comm_free(&dup), "MPI_Comm_free");
    return;
  }
}

/* Per-size set-up: the v-forms' counts, the persistent request. */
static int co_prepare(co_bench_t *b, size_t size) {
  for (int r = 0; r < b->nranks; r++) {
    b->counts[r] = (int)size;
    b->displs[r] = (int)(size * (size_t)r);
    b->dcounts[r] = co_doubles(size);
  }
  if (!co_persistent(b->call))
    return 0;
#if MPI_VERSION >= 4
  int n = co_doubles(size), bytes = (int)size;
  MPI_Request *req = &b->persistent;
  switch (b->call) {
  case CO_BCAST_INIT:
    bench_check(MPI_Bcast_init(b->sbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD,
                               MPI_INFO_NULL, req),
                "MPI_Bcast_init");
    break;
  case CO_REDUCE_INIT:
    bench_check(MPI_Reduce_init(b->sbuf, b->rbuf, n, MPI_DOUBLE, MPI_SUM, 0,
                                MPI_COMM_WORLD, MPI_INFO_NULL, req),
                "MPI_Reduce_init");
    break;
  case CO_ALLGATHER_INIT:
  case CO_ALLTOALL_INIT: {
    /* the same arguments: bytes from (to) each rank */
    int gather = b->call == CO_ALLGATHER_INIT;
    bench_check((gather ? MPI_Allgather_init : MPI_Alltoall_init)(
                    b->sbuf, bytes, MPI_BYTE, b->rbuf, bytes, MPI_BYTE,
                    MPI_COMM_WORLD, MPI_INFO_NULL, req),
                gather ? "MPI_Allgather_init" : "MPI_Alltoall_init");
    break;
  }
  case CO_BARRIER_INIT:
    bench_check(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, req),
                "MPI_Barrier_init");
    break;
  case CO_REDUCE_SCATTER_BLOCK_INIT:
    bench_check(MPI_Reduce_scatter_block_init(b->sbuf, b->rbuf, n, MPI_DOUBLE,
                                              MPI_SUM, MPI_COMM_WORLD,
                                              MPI_INFO_NULL, req),
                "MPI_Reduce_scatter_block_init");
    break;
  default:
    bench_check(MPI_Allreduce_init(b->sbuf, b->rbuf, n, MPI_DOUBLE, MPI_SUM,
                                   MPI_COMM_WORLD, MPI_INFO_NULL, req),
                "MPI_Allreduce_init");
  }
  return 0;
#else
  return -1; /* an MPI before 4.0 has no persistent collectives */
#endif
}

static void co_size(co_bench_t *b, const bench_opts_t *o, size_t size,
                    int rank, double *vals, double *gathered) {
  if (co_prepare(b, size) != 0) {
    if (rank == 0)
      printf("# %s: not in this MPI (MPI_VERSION %d)\n", co_names[b->call],
             MPI_VERSION);
    return;
  }
  int iters = bench_iters(o, size, 2);
  for (int i = 0; i < o->warmup; i++)
    co_call(b, size);
  for (int r = 0; r < o->reps; r++) {
    bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    double t0 = bench_now_us();
    for (int i = 0; i < iters; i++)
      co_call(b, size);
    double mine = (bench_now_us() - t0) / iters;
    bench_gather_double(mine, gathered, rank, b->nranks);
    double worst = 0.0;
    for (int k = 0; rank == 0 && k < b->nranks; k++)
      worst = gathered[k] > worst ? gathered[k] : worst;
    vals[r] = worst;
  }
  if (co_persistent(b->call))
    bench_check(MPI_Request_free(&b->persistent), "MPI_Request_free");
  if (rank != 0)
    return;
  bench_stats_t st;
  bench_stats(vals, o->reps, &st);
  printf("bench=%s ranks=%d size=%zu median_us=%.3f min_us=%.3f p90_us=%.3f "
         "reps=%d iters=%d\n",
         co_names[b->call], b->nranks, size, st.median, st.min, st.p90,
         o->reps, iters);
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
  int ncalls = (int)(sizeof co_names / sizeof co_names[0]);
  int call = o.call != NULL ? bench_lookup(co_names, ncalls, o.call)
                            : CO_ALLREDUCE;
  if (rc == 0 && call < 0) {
    if (rank == 0)
      fprintf(stderr, "%s: unknown call -c %s\n%s", argv[0], o.call, co_usage);
    rc = -1;
  }
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  /* Every call's buffers fit in size bytes per rank of the communicator. */
  size_t per = bench_max_size(&o) * (size_t)nranks;
  co_bench_t b = {(enum co_call)call,
                  nranks,
                  bench_alloc(per > 0 ? per : 1),
                  bench_alloc(per > 0 ? per : 1),
                  calloc((size_t)nranks, sizeof(int)),
                  calloc((size_t)nranks, sizeof(int)),
                  calloc((size_t)nranks, sizeof(int)),
                  MPI_REQUEST_NULL};
  double *vals = calloc((size_t)o.reps, sizeof(double));
  double *gathered = calloc((size_t)nranks, sizeof(double));
  if (rank == 0)
    bench_print_header(co_names[call], &o, nranks);
  for (int i = 0; i < o.nsizes; i++)
    co_size(&b, &o, o.sizes[i], rank, vals, gathered);
  free(gathered);
  free(vals);
  free(b.dcounts);
  free(b.displs);
  free(b.counts);
  free(b.rbuf);
  free(b.sbuf);
  MPI_Finalize();
  return 0;
}

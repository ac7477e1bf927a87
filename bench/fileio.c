/* MPI-IO throughput: the same file accesses under each MPI's own MPI-IO
 * (hcmpi's src/io, MPICH's ROMIO, Open MPI's OMPIO).
 *
 *   -c cwrite  every rank writes size bytes as its column block of a
 *              matrix of 4 KiB-wide blocks (an interleaved subarray view),
 *              with MPI_File_write_all: the collective-buffering case;
 *   -c cread   the same view read back with MPI_File_read_all;
 *   -c write   every rank writes size contiguous bytes at rank * size with
 *              MPI_File_write_at (independent; the file system's rate);
 *   -c read    the same read back with MPI_File_read_at.
 *
 * One repetition opens the file, sets the view, moves the bytes and
 * closes it (close is part of the cost: it may flush); its time is the
 * slowest rank's between two barriers.  Files go to $TMPDIR (default
 * /tmp), are written once before reads and removed at the end; the page
 * cache is left as it is, so this measures the libraries' data movement
 * over one local file system, not a disk.
 *
 * Output, one line per size (bytes per rank):
 *   bench=io_cwrite ranks=N size=B median_MBps=.. min_MBps=.. max_MBps=..
 *   reps=R  (MB = 10^6 bytes of all ranks together per second) */
#include "common.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIO_BLOCK 4096 /* width of one rank's column block, bytes */

typedef enum fio_call { FIO_CWRITE, FIO_CREAD, FIO_WRITE, FIO_READ } fio_call_t;

static const char *const fio_names[] = {"io_cwrite", "io_cread", "io_write",
                                        "io_read"};
static const char *const fio_calls[] = {"cwrite", "cread", "write", "read"};
static const char fio_usage[] =
    "  -c CALL   cwrite (default), cread, write or read\n";

/* The subarray view: rows of nranks blocks, this rank's block in each. */
static MPI_Datatype fio_view(size_t size, int rank, int nranks) {
  int gsizes[2] = {(int)(size / FIO_BLOCK), nranks * FIO_BLOCK};
  int lsizes[2] = {(int)(size / FIO_BLOCK), FIO_BLOCK};
  int starts[2] = {0, rank * FIO_BLOCK};
  MPI_Datatype t;
  bench_check(MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C,
                                       MPI_BYTE, &t),
              "MPI_Type_create_subarray");
  bench_check(MPI_Type_commit(&t), "MPI_Type_commit");
  return t;
}

/* One repetition; returns this rank's microseconds. */
static double fio_rep(fio_call_t call, const char *path, char *buf,
                      size_t size, MPI_Datatype view, int rank) {
  int write = call == FIO_CWRITE || call == FIO_WRITE;
  int amode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
  MPI_File fh;
  MPI_Status st;
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  double t0 = bench_now_us();
  bench_check(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh),
              "MPI_File_open");
  MPI_Offset at = (MPI_Offset)rank * (MPI_Offset)size;
  switch (call) {
  case FIO_CWRITE:
  case FIO_CREAD:
    bench_check(MPI_File_set_view(fh, 0, MPI_BYTE, view, "native",
                                  MPI_INFO_NULL),
                "MPI_File_set_view");
    bench_check(write ? MPI_File_write_all(fh, buf, (int)size, MPI_BYTE, &st)
                      : MPI_File_read_all(fh, buf, (int)size, MPI_BYTE, &st),
                write ? "MPI_File_write_all" : "MPI_File_read_all");
    break;
  case FIO_WRITE:
    bench_check(MPI_File_write_at(fh, at, buf, (int)size, MPI_BYTE, &st),
                "MPI_File_write_at");
    break;
  case FIO_READ:
    bench_check(MPI_File_read_at(fh, at, buf, (int)size, MPI_BYTE, &st),
                "MPI_File_read_at");
    break;
  }
  bench_check(MPI_File_close(&fh), "MPI_File_close");
  return bench_now_us() - t0;
}

static void fio_size(fio_call_t call, const bench_opts_t *o, const char *path,
                     char *buf, size_t size, int rank, int nranks,
                     double *vals, double *gathered) {
  MPI_Datatype view = fio_view(size, rank, nranks);
  if (call == FIO_CREAD || call == FIO_READ) /* something to read */
    fio_rep(call == FIO_CREAD ? FIO_CWRITE : FIO_WRITE, path, buf, size, view,
            rank);
  for (int i = 0; i < o->warmup; i++)
    fio_rep(call, path, buf, size, view, rank);
  for (int r = 0; r < o->reps; r++) {
    double mine = fio_rep(call, path, buf, size, view, rank);
    bench_gather_double(mine, gathered, rank, nranks);
    double worst = 0.0;
    for (int k = 0; rank == 0 && k < nranks; k++)
      worst = gathered[k] > worst ? gathered[k] : worst;
    vals[r] = worst > 0 ? (double)size * nranks / worst : 0.0; /* MB/s */
  }
  MPI_Type_free(&view);
  if (rank == 0) {
    bench_stats_t st;
    bench_stats(vals, o->reps, &st);
    printf("bench=%s ranks=%d size=%zu median_MBps=%.1f min_MBps=%.1f "
           "max_MBps=%.1f reps=%d\n",
           fio_names[call], nranks, size, st.median, st.min, st.max, o->reps);
    fflush(stdout);
  }
}

int main(int argc, char **argv) {
  bench_opts_t o = {.reps = 5, .iters = 1, .warmup = 1, .window = 1};
  int rank, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  o.sizes[0] = 16u << 20;
  o.nsizes = 1;
  int rc = bench_parse(argc, argv, &o, fio_usage);
  int call = o.call != NULL ? bench_lookup(fio_calls, 4, o.call) : FIO_CWRITE;
  if (rc == 0 && call < 0) {
    if (rank == 0)
      fprintf(stderr, "%s: unknown call -c %s\n%s", argv[0], o.call,
              fio_usage);
    rc = -1;
  }
  for (int i = 0; rc == 0 && i < o.nsizes; i++)
    if (o.sizes[i] < FIO_BLOCK || o.sizes[i] % FIO_BLOCK ||
        o.sizes[i] > (size_t)1 << 30) {
      if (rank == 0)
        fprintf(stderr, "%s: sizes are multiples of %d up to 1 GiB\n",
                argv[0], FIO_BLOCK);
      rc = -1;
    }
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  char path[512];
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  long id = (long)getpid();
  bench_check(MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
  snprintf(path, sizeof path, "%s/bench_fileio.%ld", dir, id);
  char *buf = bench_alloc(bench_max_size(&o));
  memset(buf, rank + 1, bench_max_size(&o));
  double *vals = calloc((size_t)o.reps, sizeof(double));
  double *gathered = calloc((size_t)nranks, sizeof(double));
  if (rank == 0)
    bench_print_header(fio_names[call], &o, nranks);
  for (int i = 0; i < o.nsizes; i++)
    fio_size((fio_call_t)call, &o, path, buf, o.sizes[i], rank, nranks, vals,
             gathered);
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  if (rank == 0)
    unlink(path);
  free(vals);
  free(gathered);
  free(buf);
  MPI_Finalize();
  return 0;
}

/* An ADIOS 1 writer and reader for tests/relink/adios.sh, compiled there
 * with mpicc.mpich against Debian's MPICH-flavoured libadios.a.
 *
 *   adios_rw write METHOD PARAMS FILE STEPS
 *       every rank writes its block of a global 2-D array of doubles (rank r
 *       owns BLOCK_ROWS * (r + 1) rows, so the blocks differ in size and
 *       offset), a 1-D global array with one element per rank and a few
 *       scalars, STEPS times (the first opening creates FILE, the others
 *       append a step), through the ADIOS write method METHOD ("MPI",
 *       "MPI_AGGREGATE", "POSIX", ...) with its PARAMS.
 *   adios_rw read FILE STEPS
 *       every rank reads back, through ADIOS's BP read method, a band of
 *       rows that cuts across the writers' blocks for all steps at once, its
 *       own written block, the per-rank array and the attributes, and checks
 *       each value; rank 0 prints the totals.
 *
 * Every value is a function of its global position and step, so a reader
 * on any number of ranks knows what it should find. */
#include <adios.h>
#include <adios_read.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_library_name.h"

enum { ROW_WIDTH = 64, BLOCK_ROWS = 16 };

static const char DESCRIPTION[] = "hcmpi relink test field";

static int rows_of(int rank) { return BLOCK_ROWS * (rank + 1); }

static int first_row_of(int rank) { return BLOCK_ROWS * rank * (rank + 1) / 2; }

static double field_value(int step, uint64_t row, uint64_t col) {
  return step * 1.0e6 + (double)(row * ROW_WIDTH + col) + 0.25;
}

static int rank_marker(int step, int rank) {
  return 1000 * step + 7 * rank + 3;
}

static void die(const char *what) {
  fprintf(stderr, "adios_rw: %s: %s\n", what, adios_errmsg());
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static void define_group(int64_t *group, const char *method,
                         const char *params) {
  if (adios_declare_group(group, "relink", "", adios_stat_default) != 0)
    die("adios_declare_group");
  if (adios_select_method(*group, method, params, "") != 0)
    die("adios_select_method");
  adios_define_var(*group, "width", "", adios_integer, "", "", "");
  adios_define_var(*group, "total_rows", "", adios_integer, "", "", "");
  adios_define_var(*group, "rows", "", adios_integer, "", "", "");
  adios_define_var(*group, "first_row", "", adios_integer, "", "", "");
  adios_define_var(*group, "nranks", "", adios_integer, "", "", "");
  adios_define_var(*group, "rank", "", adios_integer, "", "", "");
  adios_define_var(*group, "field", "", adios_double, "rows,width",
                   "total_rows,width", "first_row,0");
  adios_define_var(*group, "marker", "", adios_integer, "1", "nranks", "rank");
  adios_define_attribute(*group, "description", "", adios_string, DESCRIPTION,
                         "");
  adios_define_attribute(*group, "row_width", "", adios_integer, "64", "");
}

static int write_file(const char *method, const char *params, const char *file,
                      int steps) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int width = ROW_WIDTH, rows = rows_of(rank), first_row = first_row_of(rank);
  int total_rows = first_row_of(size);
  double *block = malloc(sizeof(double) * (size_t)rows * ROW_WIDTH);
  if (block == NULL)
    die("malloc");

  if (adios_init_noxml(MPI_COMM_WORLD) != 0)
    die("adios_init_noxml");
  adios_set_max_buffer_size(16);
  int64_t group;
  define_group(&group, method, params);
  for (int step = 0; step < steps; step++) {
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < ROW_WIDTH; c++)
        block[r * ROW_WIDTH + c] =
            field_value(step, (uint64_t)(first_row + r), (uint64_t)c);
    int marker = rank_marker(step, rank);
    int64_t fd;
    if (adios_open(&fd, "relink", file, step == 0 ? "w" : "a",
                   MPI_COMM_WORLD) != 0)
      die("adios_open");
    uint64_t group_bytes =
        7 * sizeof(int) + sizeof(double) * (uint64_t)rows * ROW_WIDTH;
    uint64_t total_bytes;
    adios_group_size(fd, group_bytes, &total_bytes);
    adios_write(fd, "width", &width);
    adios_write(fd, "total_rows", &total_rows);
    adios_write(fd, "rows", &rows);
    adios_write(fd, "first_row", &first_row);
    adios_write(fd, "nranks", &size);
    adios_write(fd, "rank", &rank);
    adios_write(fd, "field", block);
    adios_write(fd, "marker", &marker);
    if (adios_close(fd) != 0)
      die("adios_close");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  adios_finalize(rank);
  free(block);
  if (rank == 0) {
    print_mpi_library_name("adios_rw: MPI library ");
    printf("adios_rw: wrote %d steps of %d x %d doubles with %s on %d ranks\n",
           steps, total_rows, ROW_WIDTH, method, size);
  }
  return 0;
}

/* read_now: NSTEPS steps of VARIABLE from FROM_STEP within SELECTION into
 * DATA, read at once; the selection is deleted. */
static void read_now(ADIOS_FILE *fp, ADIOS_SELECTION *selection,
                     const char *variable, int from_step, int nsteps,
                     void *data) {
  if (selection == NULL || data == NULL)
    die(variable);
  if (adios_schedule_read(fp, selection, variable, from_step, nsteps, data) !=
      0)
    die("adios_schedule_read");
  if (adios_perform_reads(fp, 1) != 0)
    die("adios_perform_reads");
  adios_selection_delete(selection);
}

/* read_rows: rows [first, first + count) of every step, checked; returns
 * the number of wrong values. */
static long read_rows(ADIOS_FILE *fp, int steps, uint64_t first, uint64_t count,
                      long *checked) {
  long wrong = 0;
  double *band =
      malloc(sizeof(double) * (size_t)(count * ROW_WIDTH * (uint64_t)steps));
  uint64_t start[2] = {first, 0}, extent[2] = {count, ROW_WIDTH};
  ADIOS_SELECTION *box = adios_selection_boundingbox(2, start, extent);
  read_now(fp, box, "field", 0, steps, band);
  for (int step = 0; step < steps; step++)
    for (uint64_t r = 0; r < count; r++)
      for (uint64_t c = 0; c < ROW_WIDTH; c++) {
        double got = band[((uint64_t)step * count + r) * ROW_WIDTH + c];
        double want = field_value(step, first + r, c);
        if (got != want && wrong++ < 5)
          fprintf(stderr,
                  "field step %d [%" PRIu64 "][%" PRIu64 "]: %.2f, not %.2f\n",
                  step, first + r, c, got, want);
        (*checked)++;
      }
  free(band);
  return wrong;
}

/* read_own_block: the block rank WRITER wrote at its last step, read by its
 * writeblock index (the BP method numbers blocks by writer rank). */
static long read_own_block(ADIOS_FILE *fp, int steps, int writer,
                           long *checked) {
  long wrong = 0;
  int rows = rows_of(writer);
  double *block = malloc(sizeof(double) * (size_t)rows * ROW_WIDTH);
  ADIOS_SELECTION *sel = adios_selection_writeblock(writer);
  read_now(fp, sel, "field", steps - 1, 1, block);
  for (int i = 0; i < rows * ROW_WIDTH; i++) {
    double want =
        field_value(steps - 1, (uint64_t)(first_row_of(writer) + i / ROW_WIDTH),
                    (uint64_t)(i % ROW_WIDTH));
    if (block[i] != want && wrong++ < 5)
      fprintf(stderr, "block %d [%d]: %.2f, not %.2f\n", writer, i, block[i],
              want);
    (*checked)++;
  }
  free(block);
  return wrong;
}

static long read_markers(ADIOS_FILE *fp, int steps, int writers,
                         long *checked) {
  long wrong = 0;
  int *markers = malloc(sizeof(int) * (size_t)writers * (size_t)steps);
  uint64_t start = 0, count = (uint64_t)writers;
  ADIOS_SELECTION *all = adios_selection_boundingbox(1, &start, &count);
  read_now(fp, all, "marker", 0, steps, markers);
  for (int step = 0; step < steps; step++)
    for (int w = 0; w < writers; w++) {
      if (markers[step * writers + w] != rank_marker(step, w) && wrong++ < 5)
        fprintf(stderr, "marker step %d rank %d: %d\n", step, w,
                markers[step * writers + w]);
      (*checked)++;
    }
  free(markers);
  return wrong;
}

static long check_attributes(ADIOS_FILE *fp) {
  enum ADIOS_DATATYPES type;
  int bytes;
  void *value;
  long wrong = 0;
  if (adios_get_attr(fp, "description", &type, &bytes, &value) != 0)
    die("adios_get_attr description");
  if (type != adios_string || strcmp(value, DESCRIPTION) != 0) {
    fprintf(stderr, "attribute description: type %d, '%s'\n", (int)type,
            (char *)value);
    wrong++;
  }
  free(value);
  if (adios_get_attr(fp, "row_width", &type, &bytes, &value) != 0)
    die("adios_get_attr row_width");
  if (type != adios_integer || *(int *)value != ROW_WIDTH) {
    fprintf(stderr, "attribute row_width: type %d, %d\n", (int)type,
            *(int *)value);
    wrong++;
  }
  free(value);
  return wrong;
}

static int read_file(const char *file, int steps) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ADIOS_FILE *fp =
      adios_read_open_file(file, ADIOS_READ_METHOD_BP, MPI_COMM_WORLD);
  if (fp == NULL)
    die("adios_read_open_file");
  ADIOS_VARINFO *field = adios_inq_var(fp, "field");
  ADIOS_VARINFO *marker = adios_inq_var(fp, "marker");
  if (field == NULL || marker == NULL)
    die("adios_inq_var");
  int writers = (int)marker->dims[0];
  long wrong = 0, checked = 0;
  if (field->ndim != 2 || field->dims[1] != ROW_WIDTH ||
      field->dims[0] != (uint64_t)first_row_of(writers) ||
      field->nsteps != steps || fp->last_step != steps - 1) {
    fprintf(stderr,
            "field: %d dims, %" PRIu64 " x %" PRIu64 ", %d steps (file %d)\n",
            field->ndim, field->dims[0], field->ndim > 1 ? field->dims[1] : 0,
            field->nsteps, fp->last_step + 1);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* A band per reader, cut without regard to the writers' blocks. */
  uint64_t total_rows = field->dims[0];
  uint64_t first = total_rows * (uint64_t)rank / (uint64_t)size;
  uint64_t end = total_rows * (uint64_t)(rank + 1) / (uint64_t)size;
  wrong += read_rows(fp, steps, first, end - first, &checked);
  for (int writer = rank; writer < writers; writer += size)
    wrong += read_own_block(fp, steps, writer, &checked);
  wrong += read_markers(fp, steps, writers, &checked);
  wrong += check_attributes(fp);
  adios_free_varinfo(field);
  adios_free_varinfo(marker);
  adios_read_close(fp);

  long totals[2] = {checked, wrong}, sums[2];
  MPI_Reduce(totals, sums, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("adios_rw: read %d steps written by %d ranks on %d ranks: %ld "
           "values, %ld wrong\n",
           steps, writers, size, sums[0], sums[1]);
  return wrong != 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc = 2;
  if (argc == 6 && strcmp(argv[1], "write") == 0)
    rc = write_file(argv[2], argv[3], argv[4], atoi(argv[5]));
  else if (argc == 4 && strcmp(argv[1], "read") == 0)
    rc = read_file(argv[2], atoi(argv[3]));
  else
    fprintf(
        stderr,
        "usage: adios_rw write METHOD PARAMS FILE STEPS | read FILE STEPS\n");
  MPI_Finalize();
  return rc;
}

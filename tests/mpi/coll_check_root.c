/* HCMPI_CHECK_COLL=1 (set by coll_check_root.sh): rooted collectives with
 * mismatched roots return MPI_ERR_ROOT on every rank, and Bcast/Reduce
 * with mismatched data sizes MPI_ERR_TRUNCATE, under MPI_ERRORS_RETURN;
 * matching calls (also with different but equivalent count/type pairs)
 * still move the right bytes, and the communicator keeps working after a
 * refused call.  Without the variable only the matching calls run. */
#include "mpitest.h"

static int rank, size;

static void expect_class(int rc, int want, const char *what) {
  CHECK(mt_class(rc) == want, "%s: got class %d (%s), want %d", what,
        mt_class(rc), mt_errstr(rc), want);
}

/* Every rooted collective with the root rank % 2 (two roots). */
static void mismatched_roots(void) {
  int root = rank % 2, buf[8] = {0}, all[64] = {0};
  int counts[8] = {1, 1, 1, 1, 1, 1, 1, 1},
      displs[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Request req = MPI_REQUEST_NULL;
  expect_class(MPI_Bcast(buf, 4, MPI_INT, root, w), MPI_ERR_ROOT, "bcast");
  expect_class(MPI_Reduce(buf, all, 4, MPI_INT, MPI_SUM, root, w), MPI_ERR_ROOT,
               "reduce");
  expect_class(MPI_Gather(buf, 1, MPI_INT, all, 1, MPI_INT, root, w),
               MPI_ERR_ROOT, "gather");
  expect_class(MPI_Scatter(all, 1, MPI_INT, buf, 1, MPI_INT, root, w),
               MPI_ERR_ROOT, "scatter");
  expect_class(
      MPI_Gatherv(buf, 1, MPI_INT, all, counts, displs, MPI_INT, root, w),
      MPI_ERR_ROOT, "gatherv");
  expect_class(
      MPI_Scatterv(all, counts, displs, MPI_INT, buf, 1, MPI_INT, root, w),
      MPI_ERR_ROOT, "scatterv");
  expect_class(MPI_Ibcast(buf, 4, MPI_INT, root, w, &req), MPI_ERR_ROOT,
               "ibcast");
  expect_class(MPI_Ireduce(buf, all, 4, MPI_INT, MPI_MAX, root, w, &req),
               MPI_ERR_ROOT, "ireduce");
  expect_class(MPI_Igather(buf, 1, MPI_INT, all, 1, MPI_INT, root, w, &req),
               MPI_ERR_ROOT, "igather");
  CHECK(req == MPI_REQUEST_NULL, "a refused I-form returned a request");
  /* One rank names a root out of range: the others learn it too. */
  int bad = rank == size - 1 ? size : 0;
  expect_class(MPI_Bcast(buf, 4, MPI_INT, bad, w), MPI_ERR_ROOT,
               "bcast with one root out of range");
}

static void mismatched_sizes(void) {
  int buf[8] = {0}, out[8] = {0};
  int n = rank == 0 ? 4 : 3;
  expect_class(MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_TRUNCATE,
               "bcast sizes");
  expect_class(MPI_Reduce(buf, out, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
               MPI_ERR_TRUNCATE, "reduce sizes");
}

/* Same signature, different count/type pairs: allowed, bytes checked. */
static void matching_calls(void) {
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int root = size - 1, buf[4];
  for (int i = 0; i < 4; i++)
    buf[i] = rank == root ? 10 * i + 3 : -1;
  int rc = rank % 2 ? MPI_Bcast(buf, 2, pair, root, MPI_COMM_WORLD)
                    : MPI_Bcast(buf, 4, MPI_INT, root, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "bcast: %s", mt_errstr(rc));
  for (int i = 0; i < 4; i++)
    CHECK(buf[i] == 10 * i + 3, "bcast buf[%d] = %d", i, buf[i]);
  int mine = rank + 1, sum = 0;
  MPI_Request req;
  rc =
      MPI_Ireduce(&mine, &sum, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req);
  CHECK(rc == MPI_SUCCESS, "ireduce: %s", mt_errstr(rc));
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (rank == root)
    CHECK(sum == size * (size + 1) / 2, "ireduce sum %d", sum);
  int *all = mt_malloc(sizeof(int) * (size_t)size);
  rc = MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "gather: %s", mt_errstr(rc));
  for (int r = 0; rank == 0 && r < size; r++)
    CHECK(all[r] == r + 1, "gather all[%d] = %d", r, all[r]);
  free(all);
  MPI_Type_free(&pair);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char *on = getenv("HCMPI_CHECK_COLL");
  matching_calls();
  if (on != NULL && strcmp(on, "1") == 0 && size > 1) {
    mismatched_roots();
    mismatched_sizes();
    matching_calls(); /* the communicator still works */
  }
  if (rank == 0)
    printf("coll_check_root: OK on %d ranks (check %s)\n", size,
           on != NULL ? on : "unset");
  MPI_Finalize();
  return 0;
}

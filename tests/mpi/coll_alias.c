/* Aliased buffers of the data-moving collectives, under MPI_ERRORS_RETURN:
 * a send block that overlaps the receive blocks (instead of MPI_IN_PLACE)
 * is MPI_ERR_BUFFER, returned before any data moves.  Gather(v) and
 * Scatter(v) are called at the root alone (the root must refuse on its
 * own, or it would wait for ranks that never call); Allgather(v) with this
 * rank's block inside the receive buffer, and Alltoall(v) with one buffer
 * on both sides, are called everywhere, each blocking, non-blocking and
 * persistent.  Then the same calls with separate buffers and with
 * MPI_IN_PLACE run and move the right data, and a zero-count Alltoallv
 * with one buffer on both sides is accepted. */
#include "mpitest.h"

#define N 2
#define MAXP 16

static int rank, size;
static int buf[MAXP * N], other[MAXP * N], counts[MAXP], displs[MAXP];

static void expect_buffer(int rc, const char *what) {
  CHECK(mt_class(rc) == MPI_ERR_BUFFER, "%s: got %s, want MPI_ERR_BUFFER",
        what, mt_errstr(rc));
}

/* rc of a blocking call, or of starting the request of an I- or _init form
 * (a request that was made anyway is completed and freed). */
static int settle(int rc, MPI_Request *req, int persistent) {
  if (rc == MPI_SUCCESS && *req != MPI_REQUEST_NULL) {
    if (persistent) {
      MPI_Start(req);
      MPI_Wait(req, MPI_STATUS_IGNORE);
      MPI_Request_free(req);
    } else {
      MPI_Wait(req, MPI_STATUS_IGNORE);
    }
  }
  return rc;
}

static void rooted_alone(void) {
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Request req = MPI_REQUEST_NULL;
  if (rank != 0)
    return;
  expect_buffer(MPI_Gather(buf, N, MPI_INT, buf, N, MPI_INT, 0, w), "gather");
  expect_buffer(MPI_Gatherv(buf, N, MPI_INT, buf, counts, displs, MPI_INT, 0, w),
                "gatherv");
  expect_buffer(MPI_Scatter(buf, N, MPI_INT, buf, N, MPI_INT, 0, w), "scatter");
  expect_buffer(
      MPI_Scatterv(buf, counts, displs, MPI_INT, buf, N, MPI_INT, 0, w),
      "scatterv");
  /* The root's block anywhere inside its receive blocks, not at the start. */
  if (size > 1)
    expect_buffer(
        MPI_Gather(buf + N, N, MPI_INT, buf, N, MPI_INT, 0, w),
        "gather, send block inside the receive blocks");
  expect_buffer(settle(MPI_Igather(buf, N, MPI_INT, buf, N, MPI_INT, 0, w, &req),
                       &req, 0),
                "igather");
  expect_buffer(
      settle(MPI_Iscatterv(buf, counts, displs, MPI_INT, buf, N, MPI_INT, 0, w,
                           &req),
             &req, 0),
      "iscatterv");
  expect_buffer(settle(MPI_Gather_init(buf, N, MPI_INT, buf, N, MPI_INT, 0, w,
                                       MPI_INFO_NULL, &req),
                       &req, 1),
                "gather_init");
}

static void everywhere(void) {
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Request req = MPI_REQUEST_NULL;
  int *mine = buf + rank * N;
  expect_buffer(MPI_Allgather(mine, N, MPI_INT, buf, N, MPI_INT, w), "allgather");
  expect_buffer(
      MPI_Allgatherv(mine, N, MPI_INT, buf, counts, displs, MPI_INT, w),
      "allgatherv");
  expect_buffer(
      settle(MPI_Iallgather(mine, N, MPI_INT, buf, N, MPI_INT, w, &req), &req, 0),
      "iallgather");
  expect_buffer(settle(MPI_Allgatherv_init(mine, N, MPI_INT, buf, counts,
                                           displs, MPI_INT, w, MPI_INFO_NULL,
                                           &req),
                       &req, 1),
                "allgatherv_init");
  expect_buffer(MPI_Alltoall(buf, N, MPI_INT, buf, N, MPI_INT, w), "alltoall");
  expect_buffer(MPI_Alltoallv(buf, counts, displs, MPI_INT, buf, counts, displs,
                              MPI_INT, w),
                "alltoallv");
  expect_buffer(
      settle(MPI_Ialltoall(buf, N, MPI_INT, buf, N, MPI_INT, w, &req), &req, 0),
      "ialltoall");
}

/* The same shapes done right move the right data. */
static void done_right(void) {
  MPI_Comm w = MPI_COMM_WORLD;
  int zeros[MAXP] = {0};
  for (int i = 0; i < size * N; i++)
    buf[i] = -1;
  for (int k = 0; k < N; k++)
    buf[rank * N + k] = 100 * rank + k;
  CHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, N, MPI_INT, w) ==
            MPI_SUCCESS,
        "allgather in place");
  for (int r = 0; r < size; r++)
    for (int k = 0; k < N; k++)
      CHECK(buf[r * N + k] == 100 * r + k, "allgather in place: [%d] = %d",
            r * N + k, buf[r * N + k]);
  for (int k = 0; k < N; k++)
    other[k] = 7 * rank + k;
  CHECK(MPI_Gather(other, N, MPI_INT, buf, N, MPI_INT, 0, w) == MPI_SUCCESS,
        "gather with separate buffers");
  if (rank == 0)
    for (int r = 0; r < size; r++)
      for (int k = 0; k < N; k++)
        CHECK(buf[r * N + k] == 7 * r + k, "gather: [%d] = %d", r * N + k,
              buf[r * N + k]);
  CHECK(MPI_Alltoallv(buf, zeros, displs, MPI_INT, buf, zeros, displs, MPI_INT,
                      w) == MPI_SUCCESS,
        "alltoallv with nothing to move and one buffer");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= MAXP, "at most %d ranks", MAXP);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int r = 0; r < size; r++) {
    counts[r] = N;
    displs[r] = r * N;
  }
  rooted_alone();
  MPI_Barrier(MPI_COMM_WORLD);
  everywhere();
  done_right();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0)
    printf("coll_alias: ok\n");
  return 0;
}

/* Errors of file requests completed by the array completion calls go to
 * the file's error handler, never MPI_COMM_WORLD's (MPI-4.0 14.7).
 *
 * Writes past RLIMIT_FSIZE fail with EFBIG (MPI_ERR_NO_SPACE) when their
 * bytes move, so a failing iwrite_at starts fine and fails at completion.
 *  - MPI_COMM_WORLD keeps MPI_ERRORS_ARE_FATAL, the file the default
 *    MPI_ERRORS_RETURN: Waitall, Testall, Waitsome, Testsome of a failing
 *    and a good iwrite return MPI_ERR_IN_STATUS (no abort) with
 *    MPI_ERR_NO_SPACE in the failed one's MPI_ERROR and MPI_SUCCESS and
 *    the full count in the good one's; Waitany and Testany return
 *    MPI_ERR_NO_SPACE itself for the failed one;
 *  - counting handlers on both: an array of file requests alone calls the
 *    file's handler once per failed request (with its class) and
 *    MPI_COMM_WORLD's never; a mixed array (a failing iwrite, a truncated
 *    irecv, a good isend) calls the file's handler once with
 *    MPI_ERR_NO_SPACE and MPI_COMM_WORLD's once with MPI_ERR_IN_STATUS,
 *    and every status holds its own class. */
#include <signal.h>
#include <sys/resource.h>

#include "iotest.h"

enum { N = 256 };

static int rank;
static MPI_Offset far_off, good_off; /* bytes: past the limit, and below */
static int wbuf[N];

static int file_calls, file_last, world_calls, world_last;

static void count_file_error(MPI_File *fh, int *code, ...) {
  (void)fh;
  file_calls++;
  file_last = mt_class(*code);
}

static void count_world_error(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  world_calls++;
  world_last = mt_class(*code);
}

/* A failing and a good iwrite_at, in reqs[0] and reqs[1]. */
static void start_pair(MPI_File fh, MPI_Request reqs[2]) {
  CHECK(MPI_File_iwrite_at(fh, far_off, wbuf, N, MPI_INT, &reqs[0]) ==
            MPI_SUCCESS,
        "iwrite_at past the size limit failed at the start");
  CHECK(MPI_File_iwrite_at(fh, good_off, wbuf, N, MPI_INT, &reqs[1]) ==
            MPI_SUCCESS,
        "iwrite_at below the size limit failed at the start");
}

/* The statuses of the pair after an array completion returned rc. */
static void check_pair(const char *call, int rc, MPI_Status st[2]) {
  CHECK(mt_class(rc) == MPI_ERR_IN_STATUS, "%s gave %s, not MPI_ERR_IN_STATUS",
        call, mt_errstr(rc));
  CHECK(mt_class(st[0].MPI_ERROR) == MPI_ERR_NO_SPACE,
        "%s: the failed write's status holds %s", call,
        mt_errstr(st[0].MPI_ERROR));
  CHECK(st[1].MPI_ERROR == MPI_SUCCESS, "%s: the good write's status holds %s",
        call, mt_errstr(st[1].MPI_ERROR));
  int count = -1;
  MPI_Get_count(&st[1], MPI_INT, &count);
  CHECK(count == N, "%s: the good write counts %d ints", call, count);
}

static void under_fatal_world(MPI_File fh) {
  MPI_Request reqs[2];
  MPI_Status st[2];
  start_pair(fh, reqs);
  check_pair("Waitall", MPI_Waitall(2, reqs, st), st);
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL,
        "Waitall left a request");

  start_pair(fh, reqs);
  int flag = 0, rc;
  do
    rc = MPI_Testall(2, reqs, &flag, st);
  while (!flag && rc == MPI_SUCCESS);
  check_pair("Testall", rc, st);

  /* Waitsome / Testsome: the failed one's call returns MPI_ERR_IN_STATUS,
   * whichever call completes it. */
  for (int blocking = 1; blocking >= 0; blocking--) {
    const char *call = blocking ? "Waitsome" : "Testsome";
    start_pair(fh, reqs);
    int left = 2, failed_seen = 0;
    while (left > 0) {
      int outcount = 0, idx[2];
      rc = blocking ? MPI_Waitsome(2, reqs, &outcount, idx, st)
                    : MPI_Testsome(2, reqs, &outcount, idx, st);
      CHECK(outcount != MPI_UNDEFINED, "%s: no active request", call);
      int failed_here = 0;
      for (int k = 0; k < outcount; k++) {
        int want = idx[k] == 0 ? MPI_ERR_NO_SPACE : MPI_SUCCESS;
        CHECK(mt_class(st[k].MPI_ERROR) == want,
              "%s: request %d's status holds %s", call, idx[k],
              mt_errstr(st[k].MPI_ERROR));
        failed_here |= idx[k] == 0;
      }
      CHECK(mt_class(rc) == (failed_here ? MPI_ERR_IN_STATUS : MPI_SUCCESS),
            "%s gave %s", call, mt_errstr(rc));
      failed_seen |= failed_here;
      left -= outcount;
    }
    CHECK(failed_seen, "%s never completed the failed write", call);
  }

  /* Waitany / Testany return the class itself. */
  for (int blocking = 1; blocking >= 0; blocking--) {
    const char *call = blocking ? "Waitany" : "Testany";
    start_pair(fh, reqs);
    int failed_seen = 0;
    for (int left = 2; left > 0;) {
      int indx = MPI_UNDEFINED;
      MPI_Status one;
      flag = 1;
      rc = blocking ? MPI_Waitany(2, reqs, &indx, &one)
                    : MPI_Testany(2, reqs, &indx, &flag, &one);
      if (!flag)
        continue;
      CHECK(indx == 0 || indx == 1, "%s gave index %d", call, indx);
      int want = indx == 0 ? MPI_ERR_NO_SPACE : MPI_SUCCESS;
      CHECK(mt_class(rc) == want, "%s of request %d gave %s", call, indx,
            mt_errstr(rc));
      failed_seen |= indx == 0;
      left--;
    }
    CHECK(failed_seen, "%s never completed the failed write", call);
  }
}

static void with_counting_handlers(MPI_File fh) {
  MPI_Errhandler feh, weh;
  MPI_File_create_errhandler(count_file_error, &feh);
  MPI_Comm_create_errhandler(count_world_error, &weh);
  MPI_File_set_errhandler(fh, feh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, weh);

  MPI_Request reqs[3];
  MPI_Status st[3];
  start_pair(fh, reqs);
  check_pair("Waitall (counting)", MPI_Waitall(2, reqs, st), st);
  CHECK(file_calls == 1 && file_last == MPI_ERR_NO_SPACE,
        "the file's handler ran %d times, last with class %d", file_calls,
        file_last);
  CHECK(world_calls == 0, "MPI_COMM_WORLD's handler ran %d times", world_calls);

  /* Mixed: a failing file write, a truncated receive, a good send. */
  file_calls = world_calls = 0;
  int two[2] = {1, 2}, one = 0;
  CHECK(MPI_File_iwrite_at(fh, far_off, wbuf, N, MPI_INT, &reqs[0]) ==
            MPI_SUCCESS,
        "iwrite_at past the size limit failed at the start");
  MPI_Irecv(&one, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &reqs[1]);
  MPI_Isend(two, 2, MPI_INT, rank, 7, MPI_COMM_WORLD, &reqs[2]);
  int rc = MPI_Waitall(3, reqs, st);
  CHECK(mt_class(rc) == MPI_ERR_IN_STATUS, "mixed Waitall gave %s",
        mt_errstr(rc));
  CHECK(mt_class(st[0].MPI_ERROR) == MPI_ERR_NO_SPACE,
        "mixed: the file write's status holds %s", mt_errstr(st[0].MPI_ERROR));
  CHECK(mt_class(st[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
        "mixed: the receive's status holds %s", mt_errstr(st[1].MPI_ERROR));
  CHECK(st[2].MPI_ERROR == MPI_SUCCESS, "mixed: the send's status holds %s",
        mt_errstr(st[2].MPI_ERROR));
  CHECK(file_calls == 1 && file_last == MPI_ERR_NO_SPACE,
        "mixed: the file's handler ran %d times, last with class %d",
        file_calls, file_last);
  CHECK(world_calls == 1 && world_last == MPI_ERR_IN_STATUS,
        "mixed: MPI_COMM_WORLD's handler ran %d times, last with class %d",
        world_calls, world_last);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&feh);
  MPI_Errhandler_free(&weh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[512];
  io_test_path("hcmpi_io_request_errors", path, sizeof path);
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh);
  CHECK(rc == MPI_SUCCESS, "open: %s", mt_errstr(rc));
  for (int k = 0; k < N; k++)
    wbuf[k] = rank * N + k;
  rlim_t limit = (rlim_t)1 << 20;
  far_off = (MPI_Offset)limit * 2 + rank * (MPI_Offset)sizeof wbuf;
  good_off = rank * (MPI_Offset)sizeof wbuf;

  struct rlimit old, lim;
  CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit");
  if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < limit) {
    printf("io_request_errors: RLIMIT_FSIZE is already below 1 MiB: skip\n");
    MPI_File_close(&fh);
    MPI_Finalize();
    return 77;
  }
  lim = old;
  lim.rlim_cur = limit;
  signal(SIGXFSZ, SIG_IGN);
  CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
  under_fatal_world(fh);
  with_counting_handlers(fh);
  CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0, "restoring RLIMIT_FSIZE");

  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    MPI_File_delete(path, MPI_INFO_NULL);
  int nprocs;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0)
    printf("io_request_errors on %d ranks: ok\n", nprocs);
  MPI_Finalize();
  return 0;
}

/* Collective non-blocking and split collective accesses, which move their
 * bytes on the file's own thread after the call that starts them:
 *  - K iwrite_all / iwrite_at_all in flight at once through collective
 *    buffering (romio_cb_* = enable, small cb_buffer_size: many rounds),
 *    the individual pointer moved by all of them before any completes,
 *    then K iread_all / iread_at_all in flight at once; every status
 *    counts its ints and every int read back is checked;
 *  - the start returns before the access is done: the ranks start an
 *    iwrite_at_all one after the other, each passing a token on
 *    MPI_COMM_WORLD to the next only after its start returned, so no
 *    rank's access can have finished before the last rank started; MPI_Test
 *    on every rank but the last must say "not complete" (a start that
 *    does the access itself never returns, and the test hangs); the same
 *    for iread_at_all;
 *  - split collectives begun the same way, with an Allreduce and a token
 *    ring on MPI_COMM_WORLD between begin and end; write_at_all, read_all
 *    (the pointer moves at begin), write_ordered, read_ordered;
 *  - a blocking write_at_all started while an iwrite_at_all is in flight;
 *  - rank 0 checks the whole file byte for byte through the default view;
 *  - errors come at completion: under RLIMIT_FSIZE an iwrite_at_all and a
 *    write_at_all_begin past the limit start with MPI_SUCCESS, and the Wait
 *    and the _end give MPI_ERR_NO_SPACE (EFBIG) on every rank, returned
 *    through the file's handler (MPI_COMM_WORLD's, fatal, is not called).
 */
#include <signal.h>
#include <sys/resource.h>

#include "iotest.h"

enum { K = 6, N = 1024, B = 16, ORD = 100 };

static int rank, nprocs;

/* Regions of N ints per rank in the interleaved view: 0..K-1 the many
 * in flight, then one per part below. */
enum { R_TOKEN = K, R_SPLIT, R_BEHIND, R_BLOCKING, NREGIONS };

static int value(int r, int k, int i) { return r * 1000000 + k * 10000 + i; }

static void fill(int *buf, int k) {
  for (int i = 0; i < N; i++)
    buf[i] = value(rank, k, i);
}

static void check_ints(const int *buf, int k, const char *what) {
  for (int i = 0; i < N; i++)
    CHECK(buf[i] == value(rank, k, i), "%s: int %d of region %d is %d, not %d",
          what, i, k, buf[i], value(rank, k, i));
}

static void check_count(const MPI_Status *st, int want, const char *what) {
  CHECK(mt_status_count(st, MPI_INT) == want, "%s counted %d ints, not %d",
        what, mt_status_count(st, MPI_INT), want);
}

/* Each rank owns B ints of every stripe of nprocs * B. */
static void set_interleaved(MPI_File fh, MPI_Datatype *ft) {
  MPI_Datatype blk;
  MPI_Type_contiguous(B, MPI_INT, &blk);
  MPI_Type_create_resized(blk, 0, (MPI_Aint)sizeof(int) * B * nprocs, ft);
  MPI_Type_commit(ft);
  MPI_Type_free(&blk);
  CHECK(MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * B * rank, MPI_INT, *ft,
                          "native", MPI_INFO_NULL) == MPI_SUCCESS,
        "set_view");
}

/* Waits for the token of the rank before (none for rank 0). */
static void token_wait(void) {
  int t;
  if (rank > 0)
    MPI_Recv(&t, 1, MPI_INT, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void token_pass(void) {
  int t = rank;
  if (rank < nprocs - 1)
    MPI_Send(&t, 1, MPI_INT, rank + 1, 7, MPI_COMM_WORLD);
}

/* Every rank but the last started its part before the last could: its
 * request cannot be complete. */
static void check_pending(MPI_Request *req, const char *what) {
  if (rank == nprocs - 1)
    return;
  int flag = 1;
  CHECK(MPI_Test(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Test of %s",
        what);
  CHECK(!flag, "%s was complete before rank %d had started it", what,
        nprocs - 1);
}

static void many_in_flight(MPI_File fh, int *wbuf[K], int *rbuf[K]) {
  MPI_Request reqs[K];
  MPI_Status sts[K];
  for (int k = 0; k < K; k++) {
    fill(wbuf[k], k);
    int rc = k < K / 2 ? MPI_File_iwrite_all(fh, wbuf[k], N, MPI_INT, &reqs[k])
                       : MPI_File_iwrite_at_all(fh, (MPI_Offset)k * N, wbuf[k],
                                                N, MPI_INT, &reqs[k]);
    CHECK(rc == MPI_SUCCESS, "iwrite %d: %s", k, mt_errstr(rc));
  }
  MPI_Offset pos = -1;
  MPI_File_get_position(fh, &pos);
  CHECK(pos == (MPI_Offset)(K / 2) * N,
        "pointer at %lld after the iwrite_all calls", (long long)pos);
  CHECK(MPI_Waitall(K, reqs, sts) == MPI_SUCCESS, "Waitall of the writes");
  for (int k = 0; k < K; k++)
    check_count(&sts[k], N, "iwrite");

  MPI_File_seek(fh, 0, MPI_SEEK_SET);
  for (int k = 0; k < K; k++) {
    memset(rbuf[k], 0xff, sizeof(int) * N);
    int rc = k < K / 2 ? MPI_File_iread_all(fh, rbuf[k], N, MPI_INT, &reqs[k])
                       : MPI_File_iread_at_all(fh, (MPI_Offset)k * N, rbuf[k],
                                               N, MPI_INT, &reqs[k]);
    CHECK(rc == MPI_SUCCESS, "iread %d: %s", k, mt_errstr(rc));
  }
  MPI_File_get_position(fh, &pos);
  CHECK(pos == (MPI_Offset)(K / 2) * N,
        "pointer at %lld after the iread_all calls", (long long)pos);
  CHECK(MPI_Waitall(K, reqs, sts) == MPI_SUCCESS, "Waitall of the reads");
  for (int k = 0; k < K; k++) {
    check_count(&sts[k], N, "iread");
    check_ints(rbuf[k], k, "iread");
  }
}

static void not_done_at_start(MPI_File fh, int *wbuf, int *rbuf) {
  MPI_Request req;
  MPI_Status st;
  fill(wbuf, R_TOKEN);
  token_wait();
  CHECK(MPI_File_iwrite_at_all(fh, (MPI_Offset)R_TOKEN * N, wbuf, N, MPI_INT,
                               &req) == MPI_SUCCESS,
        "iwrite_at_all");
  check_pending(&req, "iwrite_at_all");
  token_pass();
  CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "Wait of iwrite_at_all");
  check_count(&st, N, "iwrite_at_all");

  memset(rbuf, 0xff, sizeof(int) * N);
  token_wait();
  CHECK(MPI_File_iread_at_all(fh, (MPI_Offset)R_TOKEN * N, rbuf, N, MPI_INT,
                              &req) == MPI_SUCCESS,
        "iread_at_all");
  check_pending(&req, "iread_at_all");
  token_pass();
  CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "Wait of iread_at_all");
  check_count(&st, N, "iread_at_all");
  check_ints(rbuf, R_TOKEN, "iread_at_all");
}

/* Communication on the application's communicator between begin and end. */
static void work_between(void) {
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == nprocs * (nprocs - 1) / 2,
        "Allreduce between begin and end gave %d", sum);
  int next = (rank + 1) % nprocs, prev = (rank + nprocs - 1) % nprocs, got = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, next, 8, &got, 1, MPI_INT, prev, 8,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(got == prev, "ring between begin and end got %d, not %d", got, prev);
}

static void split(MPI_File fh, int *wbuf, int *rbuf) {
  MPI_Status st;
  fill(wbuf, R_SPLIT);
  token_wait();
  CHECK(MPI_File_write_at_all_begin(fh, (MPI_Offset)R_SPLIT * N, wbuf, N,
                                    MPI_INT) == MPI_SUCCESS,
        "write_at_all_begin");
  token_pass();
  work_between();
  CHECK(MPI_File_write_at_all_end(fh, wbuf, &st) == MPI_SUCCESS,
        "write_at_all_end");
  check_count(&st, N, "write_at_all_end");

  memset(rbuf, 0xff, sizeof(int) * N);
  MPI_File_seek(fh, (MPI_Offset)R_SPLIT * N, MPI_SEEK_SET);
  token_wait();
  CHECK(MPI_File_read_all_begin(fh, rbuf, N, MPI_INT) == MPI_SUCCESS,
        "read_all_begin");
  token_pass();
  MPI_Offset pos = -1;
  MPI_File_get_position(fh, &pos);
  CHECK(pos == (MPI_Offset)(R_SPLIT + 1) * N,
        "pointer at %lld after read_all_begin", (long long)pos);
  work_between();
  CHECK(MPI_File_read_all_end(fh, rbuf, &st) == MPI_SUCCESS, "read_all_end");
  check_count(&st, N, "read_all_end");
  check_ints(rbuf, R_SPLIT, "read_all_end");
}

static void blocking_behind(MPI_File fh, int *wbuf, int *wbuf2) {
  MPI_Request req;
  MPI_Status st;
  fill(wbuf, R_BEHIND);
  fill(wbuf2, R_BLOCKING);
  CHECK(MPI_File_iwrite_at_all(fh, (MPI_Offset)R_BEHIND * N, wbuf, N, MPI_INT,
                               &req) == MPI_SUCCESS,
        "iwrite_at_all before a blocking one");
  CHECK(MPI_File_write_at_all(fh, (MPI_Offset)R_BLOCKING * N, wbuf2, N, MPI_INT,
                              &st) == MPI_SUCCESS,
        "write_at_all behind an iwrite_at_all");
  check_count(&st, N, "write_at_all");
  CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "Wait of the iwrite_at_all");
  check_count(&st, N, "iwrite_at_all");
}

/* Rank 0 reads the whole file and maps every int back to its writer. */
static void check_file(MPI_File fh) {
  CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) ==
            MPI_SUCCESS,
        "default view");
  if (rank != 0)
    return;
  size_t total = (size_t)NREGIONS * N * nprocs;
  int *all = mt_malloc(sizeof(int) * total);
  MPI_Status st;
  CHECK(MPI_File_read_at(fh, 0, all, (int)total, MPI_INT, &st) == MPI_SUCCESS,
        "reading the file");
  check_count(&st, (int)total, "the file");
  for (size_t j = 0; j < total; j++) {
    size_t stripe = j / ((size_t)B * nprocs), w = j % ((size_t)B * nprocs);
    int r = (int)(w / B);
    size_t idx = stripe * B + w % B;
    int want = value(r, (int)(idx / N), (int)(idx % N));
    CHECK(all[j] == want, "file int %zu is %d, not %d", j, all[j], want);
  }
  free(all);
}

/* Ordered split collectives over the default view at byte 0 on. */
static void ordered(MPI_File fh) {
  char out[ORD], in[ORD];
  memset(out, 'a' + rank % 26, ORD);
  MPI_Status st;
  CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS,
        "seek_shared");
  CHECK(MPI_File_write_ordered_begin(fh, out, ORD, MPI_CHAR) == MPI_SUCCESS,
        "write_ordered_begin");
  work_between();
  CHECK(MPI_File_write_ordered_end(fh, out, &st) == MPI_SUCCESS,
        "write_ordered_end");
  CHECK(mt_status_count(&st, MPI_CHAR) == ORD,
        "write_ordered_end counted %d chars", mt_status_count(&st, MPI_CHAR));
  CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS,
        "seek_shared");
  memset(in, 0, ORD);
  CHECK(MPI_File_read_ordered_begin(fh, in, ORD, MPI_CHAR) == MPI_SUCCESS,
        "read_ordered_begin");
  work_between();
  CHECK(MPI_File_read_ordered_end(fh, in, &st) == MPI_SUCCESS,
        "read_ordered_end");
  CHECK(memcmp(in, out, ORD) == 0,
        "read_ordered_end read another rank's bytes");
}

/* Writes past RLIMIT_FSIZE fail with EFBIG in the file's thread; the
 * class reaches every rank at completion, through the file's handler
 * (MPI_ERRORS_RETURN) while MPI_COMM_WORLD keeps MPI_ERRORS_ARE_FATAL. */
static void error_at_completion(MPI_File fh, int *wbuf) {
  struct rlimit old, lim;
  CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit");
  lim = old;
  lim.rlim_cur = (rlim_t)1 << 20;
  signal(SIGXFSZ, SIG_IGN);
  CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
  MPI_Offset far = (MPI_Offset)1 << 20; /* ints: far past 1 MiB of file */
  MPI_Request req;
  MPI_Status st;
  fill(wbuf, 0);
  CHECK(MPI_File_iwrite_at_all(fh, far, wbuf, N, MPI_INT, &req) == MPI_SUCCESS,
        "iwrite_at_all past the size limit failed at the start");
  int rc = MPI_Wait(&req, &st);
  CHECK(mt_class(rc) == MPI_ERR_NO_SPACE,
        "Wait of a write past the limit gave %s", mt_errstr(rc));
  CHECK(MPI_File_write_at_all_begin(fh, far, wbuf, N, MPI_INT) == MPI_SUCCESS,
        "write_at_all_begin past the size limit failed at the begin");
  rc = MPI_File_write_at_all_end(fh, wbuf, &st);
  CHECK(mt_class(rc) == MPI_ERR_NO_SPACE,
        "write_at_all_end past the limit gave %s", mt_errstr(rc));
  CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0, "restoring RLIMIT_FSIZE");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  char path[512];
  io_test_path("hcmpi_io_coll_overlap", path, sizeof path);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  MPI_Info_set(info, "cb_buffer_size", "8192");
  MPI_Info_set(info, "cb_nodes", nprocs > 1 ? "2" : "1");
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                         info, &fh);
  CHECK(rc == MPI_SUCCESS, "open %s: %s", path, mt_errstr(rc));
  MPI_Info_free(&info);
  MPI_Datatype ft, ft2;
  set_interleaved(fh, &ft);

  int *wbuf[K], *rbuf[K];
  for (int k = 0; k < K; k++) {
    wbuf[k] = mt_malloc(sizeof(int) * N);
    rbuf[k] = mt_malloc(sizeof(int) * N);
  }
  many_in_flight(fh, wbuf, rbuf);
  not_done_at_start(fh, wbuf[0], rbuf[0]);
  split(fh, wbuf[1], rbuf[1]);
  blocking_behind(fh, wbuf[2], wbuf[3]);
  check_file(fh);
  ordered(fh);
  set_interleaved(fh, &ft2);
  error_at_completion(fh, wbuf[0]);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
  if (rank == 0)
    MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Type_free(&ft);
  MPI_Type_free(&ft2);
  for (int k = 0; k < K; k++) {
    free(wbuf[k]);
    free(rbuf[k]);
  }
  if (rank == 0)
    printf("io_coll_overlap: %d ranks OK\n", nprocs);
  MPI_Finalize();
  return 0;
}

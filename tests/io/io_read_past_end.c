/* A collective read that runs past the end of the file fills only the
 * bytes that the file has and leaves the rest of the buffer as it was;
 * its status counts the bytes read.
 *   io_read_past_end same FILE    rank 0 writes HEAD bytes, every rank
 *                                 reads the first HEAD + TAIL with
 *                                 read_all (the ranges overlap: two-phase);
 *   io_read_past_end stripes FILE every rank owns BLOCK bytes of each
 *                                 stripe of nprocs * BLOCK; the file ends
 *                                 inside a stripe and read_all asks for
 *                                 whole stripes on 2 aggregators with a
 *                                 small cb_buffer_size (many rounds).
 * Both modes run with romio_cb_read = enable and with no hints. */
#include "iotest.h"

enum { HEAD = 5, TAIL = 5, BLOCK = 16, STRIPES = 8, SENTINEL = 0xA5 };

static int rank, nprocs;

static unsigned char file_byte(long off) {
  return (unsigned char)(off * 13 + 1);
}

static MPI_File open_file(const char *path, int cb_enable) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (cb_enable) {
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_nodes", "2");
    MPI_Info_set(info, "cb_buffer_size", "64");
  }
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                         info, &fh);
  CHECK(rc == MPI_SUCCESS, "open %s: %s", path, mt_errstr(rc));
  MPI_Info_free(&info);
  return fh;
}

/* Rank 0 writes the first len bytes of the file through the default view;
 * everybody then sees them. */
static void write_head(MPI_File fh, long len) {
  if (rank == 0) {
    unsigned char *img = mt_malloc((size_t)len);
    for (long i = 0; i < len; i++)
      img[i] = file_byte(i);
    MPI_Status st;
    int rc = MPI_File_write_at(fh, 0, img, (int)len, MPI_BYTE, &st);
    CHECK(rc == MPI_SUCCESS, "write_at: %s", mt_errstr(rc));
    free(img);
  }
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
}

/* Reads want bytes with read_all into a buffer of sentinels; the first
 * expect_count must be file_offset_of(i), the rest untouched. */
static void read_and_check(MPI_File fh, int want, int expect_count,
                           long (*file_offset_of)(int), const char *what) {
  unsigned char *buf = mt_malloc((size_t)want);
  memset(buf, SENTINEL, (size_t)want);
  MPI_Status st;
  int rc = MPI_File_read_at_all(fh, 0, buf, want, MPI_BYTE, &st);
  CHECK(rc == MPI_SUCCESS, "%s: read_at_all: %s", what, mt_errstr(rc));
  CHECK(mt_status_count(&st, MPI_BYTE) == expect_count,
        "%s: read %d bytes, not %d", what, mt_status_count(&st, MPI_BYTE),
        expect_count);
  for (int i = 0; i < expect_count; i++)
    CHECK(buf[i] == file_byte(file_offset_of(i)),
          "%s: byte %d is %u, not the file's %u", what, i, buf[i],
          file_byte(file_offset_of(i)));
  for (int i = expect_count; i < want; i++)
    CHECK(buf[i] == SENTINEL,
          "%s: byte %d past the end of the file was overwritten with %u", what,
          i, buf[i]);
  free(buf);
}

static long same_offset(int i) { return i; }

static void read_same_range(const char *path, int cb_enable) {
  MPI_File fh = open_file(path, cb_enable);
  write_head(fh, HEAD);
  read_and_check(fh, HEAD + TAIL, HEAD, same_offset,
                 cb_enable ? "same range, cb" : "same range, no hints");
  MPI_File_close(&fh);
}

/* The file offset of byte i of this rank's stream in the striped view. */
static long stripe_offset(int i) {
  return (long)(i / BLOCK) * nprocs * BLOCK + (long)rank * BLOCK + i % BLOCK;
}

static void read_stripes(const char *path, int cb_enable) {
  MPI_File fh = open_file(path, cb_enable);
  /* The file ends in the middle of the second-to-last stripe, inside the
   * block of rank nprocs / 2. */
  long len = (long)(STRIPES - 2) * nprocs * BLOCK + (long)(nprocs / 2) * BLOCK +
             BLOCK / 2;
  write_head(fh, len);
  MPI_Datatype blk, ft;
  MPI_Type_contiguous(BLOCK, MPI_BYTE, &blk);
  MPI_Type_create_resized(blk, 0, (MPI_Aint)nprocs * BLOCK, &ft);
  MPI_Type_commit(&ft);
  MPI_Type_free(&blk);
  int rc = MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK, MPI_BYTE, ft,
                             "native", MPI_INFO_NULL);
  CHECK(rc == MPI_SUCCESS, "set_view: %s", mt_errstr(rc));
  int expect = 0;
  while (expect < STRIPES * BLOCK && stripe_offset(expect) < len)
    expect++;
  read_and_check(fh, STRIPES * BLOCK, expect, stripe_offset,
                 cb_enable ? "stripes, cb" : "stripes, no hints");
  MPI_File_close(&fh);
  MPI_Type_free(&ft);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  CHECK(argc == 3, "usage: io_read_past_end same|stripes FILE");
  const char *mode = argv[1], *path = argv[2];
  for (int cb_enable = 1; cb_enable >= 0; cb_enable--) {
    if (rank == 0)
      MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "same") == 0)
      read_same_range(path, cb_enable);
    else
      read_stripes(path, cb_enable);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_File_delete(path, MPI_INFO_NULL);
    printf("io_read_past_end %s on %d ranks: ok\n", mode, nprocs);
  }
  MPI_Finalize();
  return 0;
}

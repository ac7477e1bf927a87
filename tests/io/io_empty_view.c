/* A view whose filetype holds no data: the last rank has no part in the
 * file (an indexed type of zero blocks, resized to the stripe), the
 * others own PER ints of every stripe.
 *  - MPI_File_set_view takes the empty filetype on the last rank (it used
 *    to refuse it with MPI_ERR_TYPE and skip the view's barriers, so the
 *    other ranks hung in their next collective);
 *  - two write_all calls, the last rank with count 0; its individual
 *    pointer stays at 0 and MPI_File_get_byte_offset gives the view's
 *    displacement; rank 0 checks the file byte for byte;
 *  - read_all on the empty view with count > 0 reads nothing: the status
 *    counts 0 ints and the buffer is left as it was; the others read back
 *    what they wrote;
 *  - an independent write of data into the empty view fails with
 *    MPI_ERR_ARG (the file's handler returns it) and writes nothing. */
#include <fcntl.h>
#include <sys/stat.h>

#include "iotest.h"

enum { PER = 2, STRIPES = 2, SENTINEL = -7 };

static int value(int stripe, int r, int j) {
  return 1000 * stripe + 10 * r + j + 1;
}

int main(int argc, char **argv) {
  int rank, nprocs;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  CHECK(nprocs >= 2, "needs 2 ranks or more, not %d", nprocs);
  char path[256];
  io_test_path("hcmpi_io_empty_view", path, sizeof path);
  int owners = nprocs - 1, mine = rank < owners ? PER : 0;
  int disp[PER];
  for (int j = 0; j < PER; j++)
    disp[j] = rank * PER + j;
  MPI_Datatype blocks, ft;
  MPI_Type_create_indexed_block(mine, 1, disp, MPI_INT, &blocks);
  MPI_Type_create_resized(blocks, 0, (MPI_Aint)sizeof(int) * PER * owners, &ft);
  MPI_Type_commit(&ft);
  MPI_Type_free(&blocks);

  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh);
  CHECK(rc == MPI_SUCCESS, "open: %s", mt_errstr(rc));
  rc = MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL);
  CHECK(rc == MPI_SUCCESS, "set_view with %d ints per stripe: %s", mine,
        mt_errstr(rc));

  for (int s = 0; s < STRIPES; s++) {
    int out[PER];
    for (int j = 0; j < PER; j++)
      out[j] = value(s, rank, j);
    MPI_Status st;
    rc = MPI_File_write_all(fh, out, mine, MPI_INT, &st);
    CHECK(rc == MPI_SUCCESS && mt_status_count(&st, MPI_INT) == mine,
          "write_all of stripe %d: %s, %d ints", s, mt_errstr(rc),
          mt_status_count(&st, MPI_INT));
  }
  MPI_Offset pos = -1, byte = -1;
  MPI_File_get_position(fh, &pos);
  CHECK(pos == (MPI_Offset)mine * STRIPES, "position %ld, not %d", (long)pos,
        mine * STRIPES);
  MPI_File_get_byte_offset(fh, pos, &byte);
  if (rank == owners)
    CHECK(byte == 0, "byte offset of the empty view is %ld, not 0", (long)byte);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);

  if (rank == 0) {
    int img[PER * 8 * STRIPES + 1];
    int total = PER * owners * STRIPES;
    CHECK(total <= PER * 8 * STRIPES, "too many ranks for the image");
    int fd = open(path, O_RDONLY);
    ssize_t got = read(fd, img, sizeof img);
    close(fd);
    CHECK(got == (ssize_t)sizeof(int) * total, "file has %zd bytes, not %zu",
          got, sizeof(int) * total);
    for (int s = 0; s < STRIPES; s++)
      for (int r = 0; r < owners; r++)
        for (int j = 0; j < PER; j++) {
          int at = (s * owners + r) * PER + j;
          CHECK(img[at] == value(s, r, j), "file int %d is %d, not %d", at,
                img[at], value(s, r, j));
        }
  }

  int back[PER * STRIPES];
  for (int i = 0; i < PER * STRIPES; i++)
    back[i] = SENTINEL;
  MPI_Status st;
  rc = MPI_File_read_at_all(fh, 0, back, PER * STRIPES, MPI_INT, &st);
  CHECK(rc == MPI_SUCCESS, "read_at_all: %s", mt_errstr(rc));
  CHECK(mt_status_count(&st, MPI_INT) == mine * STRIPES,
        "read_at_all counted %d ints, not %d", mt_status_count(&st, MPI_INT),
        mine * STRIPES);
  for (int i = 0; i < PER * STRIPES; i++) {
    int want = rank < owners ? value(i / PER, rank, i % PER) : SENTINEL;
    CHECK(back[i] == want, "read int %d is %d, not %d", i, back[i], want);
  }

  if (rank == owners) {
    int one = 42;
    rc = MPI_File_write_at(fh, 0, &one, 1, MPI_INT, &st);
    CHECK(mt_class(rc) == MPI_ERR_ARG,
          "a write into the empty view gave %s, not MPI_ERR_ARG",
          mt_errstr(rc));
  }
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    struct stat sb;
    CHECK(stat(path, &sb) == 0 &&
              sb.st_size == (off_t)(sizeof(int) * PER * owners * STRIPES),
          "the refused write changed the file's size");
    MPI_File_delete(path, MPI_INFO_NULL);
    printf("io_empty_view on %d ranks: ok\n", nprocs);
  }
  MPI_Type_free(&ft);
  MPI_Finalize();
  return 0;
}

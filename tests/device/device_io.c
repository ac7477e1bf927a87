/*
 * MPI-IO with device buffers from the CANN test double, or the CUDA one
 * with DEVICE_P2P_ALLOC=cuda (device memory faults on any host access, so
 * a host dereference would crash): on 2 ranks, a
 * contiguous and a strided (vector) memory type on the device, written
 * independently (write_at), collectively (write_at_all) and by a
 * non-blocking collective (iwrite_at_all, moved on the file's thread)
 * through an interleaved view, and read back into device memory the same
 * way (read_at, read_at_all, iread_at_all).  Rank 0 checks the file byte for
 * byte with POSIX read(); every rank copies what it read to the host and checks
 * it, the gaps of the vector included (they keep their old values).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_api.h"
#include "mpi_check.h"

enum { N = 4900, B = 7 }; /* ints per rank (whole blocks), ints per block */

static int rank, size;
static fake_api_t fa;

static int value(int r, int k, int pass) { return r * 1000003 + k * 3 + pass; }

enum { INDEPENDENT, COLLECTIVE, NONBLOCKING_COLLECTIVE, NKINDS };

/* One access of count elements of mt at dev, of the given kind. */
static int access_at(MPI_File fh, int write, int kind, void *dev, int count,
                     MPI_Datatype mt, MPI_Status *st) {
  if (kind == NONBLOCKING_COLLECTIVE) {
    MPI_Request req;
    int rc = write ? MPI_File_iwrite_at_all(fh, 0, dev, count, mt, &req)
                   : MPI_File_iread_at_all(fh, 0, dev, count, mt, &req);
    return rc == MPI_SUCCESS ? MPI_Wait(&req, st) : rc;
  }
  if (kind == COLLECTIVE)
    return write ? MPI_File_write_at_all(fh, 0, dev, count, mt, st)
                 : MPI_File_read_at_all(fh, 0, dev, count, mt, st);
  return write ? MPI_File_write_at(fh, 0, dev, count, mt, st)
               : MPI_File_read_at(fh, 0, dev, count, mt, st);
}

static void io_case(const char *path, int strided_mem, int coll) {
  int stride = strided_mem ? 2 : 1, pass = strided_mem * NKINDS + coll;
  size_t n = (size_t)N * stride;
  int *host = malloc(n * sizeof(int)), *dev = NULL;
  CHECK(host != NULL);
  CHECK(fa.malloc_dev((void **)&dev, n * sizeof(int),
                      ACL_MEM_MALLOC_HUGE_FIRST) == 0);
  for (size_t k = 0; k < n; k++)
    host[k] = -1;
  for (int k = 0; k < N; k++)
    host[k * stride] = value(rank, k, pass);
  CHECK(fa.memcpy_sync(dev, n * sizeof(int), host, n * sizeof(int),
                       ACL_MEMCPY_HOST_TO_DEVICE) == 0);
  MPI_Datatype mt = MPI_INT, blk, ft;
  int count = N;
  if (strided_mem) {
    MPI_Type_vector(N, 1, 2, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    count = 1;
  }
  MPI_Type_contiguous(B, MPI_INT, &blk);
  MPI_Type_create_resized(blk, 0, (MPI_Aint)B * size * 4, &ft);
  MPI_Type_commit(&ft);
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                      MPI_INFO_NULL, &fh) == MPI_SUCCESS);
  MPI_File_set_view(fh, (MPI_Offset)rank * B * 4, MPI_INT, ft, "native",
                    MPI_INFO_NULL);
  MPI_Status st;
  int rc = access_at(fh, 1, coll, dev, count, mt, &st);
  CHECK(rc == MPI_SUCCESS);
  MPI_File_sync(fh);
  if (rank == 0) {
    size_t total = (size_t)N * size;
    int *img = malloc(total * sizeof(int));
    int fd = open(path, O_RDONLY);
    CHECK(img && fd >= 0 &&
          read(fd, img, total * sizeof(int)) == (ssize_t)(total * sizeof(int)));
    close(fd);
    for (int r = 0; r < size; r++)
      for (int k = 0; k < N; k++) {
        size_t at = ((size_t)(k / B) * size + r) * B + k % B;
        if (img[at] != value(r, k, pass))
          fprintf(stderr, "case %d: rank %d int %d at %zu: %d, want %d\n", pass,
                  r, k, at, img[at], value(r, k, pass));
        CHECK(img[at] == value(r, k, pass));
      }
    free(img);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (size_t k = 0; k < n; k++)
    host[k] = -7;
  CHECK(fa.memcpy_sync(dev, n * sizeof(int), host, n * sizeof(int),
                       ACL_MEMCPY_HOST_TO_DEVICE) == 0);
  rc = access_at(fh, 0, coll, dev, count, mt, &st);
  CHECK(rc == MPI_SUCCESS);
  int got = -1;
  MPI_Get_count(&st, MPI_INT, &got);
  CHECK(got == N);
  CHECK(fa.memcpy_sync(host, n * sizeof(int), dev, n * sizeof(int),
                       ACL_MEMCPY_DEVICE_TO_HOST) == 0);
  for (int k = 0; k < N; k++)
    CHECK(host[k * stride] == value(rank, k, pass));
  for (int k = 0; strided_mem && k < N; k++)
    CHECK(host[2 * k + 1] == -7);
  MPI_File_close(&fh);
  if (rank == 0)
    MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  if (strided_mem)
    MPI_Type_free(&mt);
  MPI_Type_free(&blk);
  MPI_Type_free(&ft);
  fa.free_dev(dev);
  free(host);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* DEVICE_P2P_ALLOC=cuda: CUDA memory (the CUDA double or a real GPU). */
  const char *alloc = getenv("DEVICE_P2P_ALLOC");
  int loaded = alloc && !strcmp(alloc, "cuda") ? fake_api_load_cuda(0, &fa)
                                               : fake_api_load(NULL, 0, &fa);
  if (loaded != 0) {
    if (rank == 0)
      fprintf(stderr, "device_io: needs the CANN or CUDA double\n");
    MPI_Finalize();
    return 77;
  }
  char path[256];
  snprintf(path, sizeof path, "%s/hcmpi_device_io.%d",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getppid());
  for (int sm = 0; sm < 2; sm++)
    for (int coll = 0; coll < NKINDS; coll++)
      io_case(path, sm, coll);
  if (rank == 0)
    printf("device_io: %d ranks OK\n", size);
  MPI_Finalize();
  return 0;
}

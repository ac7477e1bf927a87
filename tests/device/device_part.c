/*
 * Partitioned point-to-point (MPI_Psend_init / MPI_Precv_init) on device
 * buffers from the CANN test double (or, with DEVICE_P2P_ALLOC=cuda, the
 * CUDA double), through the standard API only, on 2 ranks: rank 0 sends,
 * rank 1 receives.  Device->device, device->host and host->device; bytes
 * (rendezvous partitions of 300,000 B) with 4 send and 3 receive
 * partitions; partitions readied one at a time, each seen by MPI_Parrived
 * before the next is readied while those not ready have not arrived; a
 * non-contiguous vector type on device memory on both sides (gaps kept);
 * two rounds of each request pair.  Every byte is checked by copying it
 * back through the runtime.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_api.h"
#include "mpi_check.h"

static int rank;
static fake_api_t fa;

static unsigned char byte_at(size_t i, int salt) {
  return (unsigned char)((i * 29u + (unsigned)salt * 11u + 3u) & 0xff);
}

/* n bytes of host memory h copied to the device (dev) or kept. */
static unsigned char *dp_place(int dev, unsigned char *h, size_t n) {
  if (!dev)
    return h;
  unsigned char *p = NULL;
  CHECK(fa.malloc_dev((void **)&p, n, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
  CHECK(fa.memcpy_sync(p, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
  free(h);
  return p;
}

/* A host copy of n bytes at p (device or host); free it after. */
static unsigned char *dp_read(int dev, const unsigned char *p, size_t n) {
  unsigned char *h = malloc(n);
  CHECK(h != NULL);
  if (dev)
    CHECK(fa.memcpy_sync(h, n, p, n, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
  else
    memcpy(h, p, n);
  return h;
}

static void dp_free(int dev, unsigned char *p) {
  if (dev)
    CHECK(fa.free_dev(p) == 0);
  else
    free(p);
}

/* Bytes: 4 send partitions, 3 receive partitions, two rounds; the sender
 * readies them last to first. */
static void dp_bytes(int sdev, int rdev, int salt) {
  enum { N = 4 * 300000 };
  int dev = rank == 0 ? sdev : rdev;
  unsigned char *h = malloc(N);
  CHECK(h != NULL);
  memset(h, 0, N);
  unsigned char *b = dp_place(dev, h, N);
  MPI_Request req;
  if (rank == 0)
    CHECK(MPI_Psend_init(b, 4, N / 4, MPI_BYTE, 1, salt, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req) == MPI_SUCCESS);
  else
    CHECK(MPI_Precv_init(b, 3, N / 3, MPI_BYTE, 0, salt, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req) == MPI_SUCCESS);
  for (int round = 0; round < 2; round++) {
    if (rank == 0) {
      unsigned char *src = malloc(N);
      CHECK(src != NULL);
      for (size_t i = 0; i < N; i++)
        src[i] = byte_at(i, salt + round);
      if (dev)
        CHECK(fa.memcpy_sync(b, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
      else
        memcpy(b, src, N);
      free(src);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the send buffer is filled */
    CHECK(MPI_Start(&req) == MPI_SUCCESS);
    MPI_Status st;
    if (rank == 0) {
      for (int i = 3; i >= 0; i--)
        CHECK(MPI_Pready(i, req) == MPI_SUCCESS);
      CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    } else {
      for (int j = 2; j >= 0; j--) {
        int flag = 0;
        while (!flag)
          CHECK(MPI_Parrived(req, j, &flag) == MPI_SUCCESS);
      }
      CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
      int count = -1;
      MPI_Get_count(&st, MPI_BYTE, &count);
      CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == salt && count == N);
      unsigned char *got = dp_read(dev, b, N);
      for (size_t i = 0; i < N; i++)
        if (got[i] != byte_at(i, salt + round)) {
          fprintf(stderr, "rank 1: round %d byte %zu wrong\n", round, i);
          CHECK(0);
        }
      free(got);
    }
  }
  CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
  dp_free(dev, b);
}

/* One partition at a time: the receiver sees each arrive before the
 * sender readies the next, and none of those not yet ready. */
static void dp_ready_order(int salt) {
  enum { P = 4, PER = 200000 };
  static const int order[P] = {2, 0, 3, 1};
  unsigned char *h = malloc(P * PER);
  CHECK(h != NULL);
  for (size_t i = 0; i < P * PER; i++)
    h[i] = rank == 0 ? byte_at(i, salt) : 0;
  unsigned char *b = dp_place(1, h, P * PER);
  MPI_Request req;
  if (rank == 0)
    CHECK(MPI_Psend_init(b, P, PER, MPI_BYTE, 1, salt, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req) == 0);
  else
    CHECK(MPI_Precv_init(b, P, PER, MPI_BYTE, 0, salt, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req) == 0);
  CHECK(MPI_Start(&req) == 0);
  int ready[P] = {0};
  for (int s = 0; s < P; s++) {
    int i = order[s], ack = -1;
    if (rank == 0) {
      CHECK(MPI_Pready(i, req) == 0);
      CHECK(MPI_Recv(&ack, 1, MPI_INT, 1, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) == 0 &&
            ack == i);
      continue;
    }
    ready[i] = 1;
    for (int j = 0; j < P; j++) {
      int flag = 0;
      if (!ready[j]) {
        CHECK(MPI_Parrived(req, j, &flag) == 0 && !flag);
        continue;
      }
      while (!flag)
        CHECK(MPI_Parrived(req, j, &flag) == 0);
    }
    unsigned char *got = dp_read(1, b + (size_t)i * PER, PER);
    for (size_t k = 0; k < PER; k++)
      CHECK(got[k] == byte_at((size_t)i * PER + k, salt));
    free(got);
    CHECK(MPI_Send(&i, 1, MPI_INT, 0, 1, MPI_COMM_WORLD) == 0);
  }
  CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == 0);
  CHECK(MPI_Request_free(&req) == 0);
  dp_free(1, b);
}

/* A vector of ints (every other one) on device memory, 2 send and 4
 * receive partitions; the receiver's gaps keep their values. */
static void dp_vector(int salt) {
  enum { SP = 2, RP = 4, N = 4000 }; /* N ints of data */
  MPI_Datatype vec;
  int parts = rank == 0 ? SP : RP;
  CHECK(MPI_Type_vector(N / parts, 1, 2, MPI_INT, &vec) == 0);
  CHECK(MPI_Type_commit(&vec) == 0);
  MPI_Aint lb, ext;
  MPI_Type_get_extent(vec, &lb, &ext);
  size_t ints = (size_t)ext / sizeof(int) * (size_t)parts;
  size_t bytes = ints * sizeof(int);
  int *h = malloc(bytes);
  CHECK(h != NULL);
  size_t per = (size_t)ext / sizeof(int);
  for (size_t k = 0; k < ints; k++)
    h[k] = -9;
  for (int e = 0; e < N; e++) { /* data int e of the stream */
    size_t at = (size_t)(e / (N / parts)) * per + 2 * (size_t)(e % (N / parts));
    if (rank == 0)
      h[at] = salt * 100000 + e;
  }
  unsigned char *b = dp_place(1, (unsigned char *)h, bytes);
  MPI_Request req;
  if (rank == 0)
    CHECK(MPI_Psend_init(b, SP, 1, vec, 1, salt, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req) == 0);
  else
    CHECK(MPI_Precv_init(b, RP, 1, vec, 0, salt, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req) == 0);
  CHECK(MPI_Type_free(&vec) == 0);
  CHECK(MPI_Start(&req) == 0);
  if (rank == 0)
    CHECK(MPI_Pready_range(0, SP - 1, req) == 0);
  if (rank == 1) {
    int flag = 0;
    while (!flag) /* unpacked from staging as it is seen */
      CHECK(MPI_Parrived(req, 1, &flag) == 0);
  }
  CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == 0);
  if (rank == 1) {
    int *got = (int *)dp_read(1, b, bytes);
    size_t data = 0;
    for (int e = 0; e < N; e++) {
      size_t at = (size_t)(e / (N / RP)) * per + 2 * (size_t)(e % (N / RP));
      CHECK(got[at] == salt * 100000 + e);
    }
    for (size_t k = 0; k < ints; k++)
      data += got[k] != -9;
    CHECK(data == N);
    free(got);
  }
  CHECK(MPI_Request_free(&req) == 0);
  dp_free(1, b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || fake_api_load_env(rank, &fa) != 0) {
    MPI_Finalize();
    return 77;
  }
  dp_bytes(1, 1, 10);
  dp_bytes(1, 0, 20);
  dp_bytes(0, 1, 30);
  dp_ready_order(40);
  dp_vector(50);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("device_part: ok\n");
  MPI_Finalize();
  return 0;
}

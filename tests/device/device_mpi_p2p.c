/*
 * MPI point-to-point on device buffers from the CANN test double
 * (HCMPI_ACL_LIB), through the standard API only: MPI_Send/MPI_Recv,
 * MPI_Isend/MPI_Irecv, MPI_Sendrecv, and MPI_Probe / MPI_Iprobe with
 * MPI_ANY_SOURCE and MPI_ANY_TAG followed by a receive of what was probed,
 * for device->device, device->host and host->device, at 1 B, 100,000 B and
 * 3 MiB + 5 B (several staging chunks); and the large-count forms
 * MPI_Send_c/MPI_Recv_c (MPI_Get_count_c) and MPI_Bcast_c on the same
 * buffers.  Every status (source, tag,
 * MPI_Get_count) and every byte is checked; the data path is whatever
 * HCMPI_DEVICE_PATH forces (device_mpi_p2p.sh runs each).  With
 * DEVICE_MPI_P2P_FAIL=1 (and the double's FAKE_CANN_FAIL_H2D=1) it checks
 * instead that a failed copy into a device receive buffer is reported as
 * MPI_ERR_OTHER under MPI_ERRORS_RETURN.  DEVICE_P2P_ALLOC=cuda takes the
 * buffers from the CUDA driver ($HCMPI_CUDA_LIB) instead.  2 ranks.
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
  return (unsigned char)((i * 13u + (unsigned)salt * 7u + 1u) & 0xff);
}

/* n bytes on the device (dev) or the host holding byte_at(., salt). */
static unsigned char *mp_buf(int dev, size_t n, int salt) {
  unsigned char *h = malloc(n), *p = h;
  CHECK(h != NULL);
  for (size_t i = 0; i < n; i++)
    h[i] = byte_at(i, salt);
  if (dev) {
    CHECK(fa.malloc_dev((void **)&p, n, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    CHECK(fa.memcpy_sync(p, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    free(h);
  }
  return p;
}

static void mp_expect(int dev, const unsigned char *p, size_t n, int salt) {
  unsigned char *h = (unsigned char *)p;
  if (dev) {
    CHECK((h = malloc(n)) != NULL);
    CHECK(fa.memcpy_sync(h, n, p, n, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
  }
  for (size_t i = 0; i < n; i++)
    if (h[i] != byte_at(i, salt)) {
      fprintf(stderr, "rank %d: byte %zu of %zu wrong\n", rank, i, n);
      CHECK(0);
    }
  if (dev)
    free(h);
}

static void mp_free(int dev, unsigned char *p) {
  if (dev)
    CHECK(fa.free_dev(p) == 0);
  else
    free(p);
}

static void mp_status(const MPI_Status *st, int source, int tag, size_t n) {
  int count = -1;
  CHECK(MPI_Get_count(st, MPI_BYTE, &count) == MPI_SUCCESS);
  CHECK(st->MPI_SOURCE == source && st->MPI_TAG == tag && count == (int)n);
}

/* Rank 0 sends (buffer kind sdev), rank 1 receives (rdev), four ways. */
static void mp_round(int sdev, int rdev, size_t n, int salt) {
  MPI_Status st;
  MPI_Request rq;
  int peer = 1 - rank, dev = rank == 0 ? sdev : rdev;
  unsigned char *b = mp_buf(dev, n, rank == 0 ? salt : 0);
  if (rank == 0) {
    CHECK(MPI_Send(b, (int)n, MPI_BYTE, peer, salt, MPI_COMM_WORLD) == 0);
    CHECK(MPI_Isend(b, (int)n, MPI_BYTE, peer, salt + 1, MPI_COMM_WORLD, &rq) ==
          0);
    CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE) == 0);
    CHECK(MPI_Send(b, (int)n, MPI_BYTE, peer, salt + 2, MPI_COMM_WORLD) == 0);
    CHECK(MPI_Send(b, (int)n, MPI_BYTE, peer, salt + 3, MPI_COMM_WORLD) == 0);
  } else {
    CHECK(MPI_Recv(b, (int)n, MPI_BYTE, peer, salt, MPI_COMM_WORLD, &st) == 0);
    mp_status(&st, peer, salt, n);
    mp_expect(rdev, b, n, salt);
    mp_free(rdev, b);
    b = mp_buf(rdev, n, 0);
    CHECK(MPI_Irecv(b, (int)n, MPI_BYTE, MPI_ANY_SOURCE, salt + 1,
                    MPI_COMM_WORLD, &rq) == 0);
    CHECK(MPI_Wait(&rq, &st) == 0);
    mp_status(&st, peer, salt + 1, n);
    mp_expect(rdev, b, n, salt);
    /* Probed with wildcards, then received from what the status says. */
    CHECK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st) == 0);
    mp_status(&st, peer, salt + 2, n);
    mp_free(rdev, b);
    b = mp_buf(rdev, n, 0);
    CHECK(MPI_Recv(b, (int)n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG,
                   MPI_COMM_WORLD, &st) == 0);
    mp_status(&st, peer, salt + 2, n);
    mp_expect(rdev, b, n, salt);
    int flag = 0;
    while (!flag)
      CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                       &st) == 0);
    mp_status(&st, peer, salt + 3, n);
    CHECK(MPI_Recv(b, (int)n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                   MPI_COMM_WORLD, &st) == 0);
    mp_status(&st, peer, salt + 3, n);
    mp_expect(rdev, b, n, salt);
  }
  mp_free(dev, b);
}

/* Both ranks at once, each sending its own kind and receiving the other. */
static void mp_sendrecv(int sdev, int rdev, size_t n, int salt) {
  MPI_Status st;
  int peer = 1 - rank;
  unsigned char *s = mp_buf(sdev, n, salt + rank), *r = mp_buf(rdev, n, 0);
  CHECK(MPI_Sendrecv(s, (int)n, MPI_BYTE, peer, salt, r, (int)n, MPI_BYTE, peer,
                     salt, MPI_COMM_WORLD, &st) == 0);
  mp_status(&st, peer, salt, n);
  mp_expect(rdev, r, n, salt + peer);
  mp_free(sdev, s);
  mp_free(rdev, r);
}

/* The large-count forms move device buffers as the int forms do. */
static void mp_large_count(int sdev, int rdev, size_t n, int salt) {
  MPI_Status st;
  MPI_Count got = -1;
  int peer = 1 - rank;
  unsigned char *b = mp_buf(rank == 0 ? sdev : rdev, n, rank == 0 ? salt : 0);
  if (rank == 0) {
    CHECK(MPI_Send_c(b, (MPI_Count)n, MPI_BYTE, peer, salt, MPI_COMM_WORLD) ==
          0);
  } else {
    CHECK(MPI_Recv_c(b, (MPI_Count)n, MPI_BYTE, peer, salt, MPI_COMM_WORLD,
                     &st) == 0);
    CHECK(MPI_Get_count_c(&st, MPI_BYTE, &got) == 0 && got == (MPI_Count)n);
    mp_expect(rdev, b, n, salt);
  }
  mp_free(rank == 0 ? sdev : rdev, b);
  /* Bcast from rank 0: the root's kind is sdev, the other's rdev. */
  b = mp_buf(rank == 0 ? sdev : rdev, n, rank == 0 ? salt + 1 : 0);
  CHECK(MPI_Bcast_c(b, (MPI_Count)n, MPI_BYTE, 0, MPI_COMM_WORLD) == 0);
  mp_expect(rank == 0 ? sdev : rdev, b, n, salt + 1);
  mp_free(rank == 0 ? sdev : rdev, b);
}

/* The receive's first host-to-device copy fails (FAKE_CANN_FAIL_H2D=1). */
static void mp_copy_fails(void) {
  const size_t n = 100000;
  unsigned char *b = mp_buf(rank == 1, n, 4);
  if (rank == 0) {
    CHECK(MPI_Send(b, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD) == 0);
  } else {
    int cls = -1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc =
        MPI_Recv(b, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(rc != MPI_SUCCESS);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER);
  }
  mp_free(rank == 1, b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* DEVICE_P2P_ALLOC=cuda: CUDA memory (tests/device/cuda_double.sh). */
  if (size != 2 || fake_api_load_env(rank, &fa) != 0) {
    MPI_Finalize();
    return 77;
  }
  if (getenv("DEVICE_MPI_P2P_FAIL") != NULL) {
    mp_copy_fails();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
      printf("device_mpi_p2p: copy failure reported: ok\n");
    MPI_Finalize();
    return 0;
  }
  static const size_t sizes[] = {1, 100000, (3u << 20) + 5};
  static const int kinds[][2] = {{1, 1}, {1, 0}, {0, 1}};
  int salt = 10;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++, salt += 10) {
      mp_round(kinds[k][0], kinds[k][1], sizes[i], salt);
      mp_sendrecv(kinds[k][0], kinds[k][1], sizes[i], salt + 5);
    }
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++, salt += 10)
    mp_large_count(kinds[k][0], kinds[k][1], (3u << 20) + 5, salt);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("device_mpi_p2p: ok\n");
  MPI_Finalize();
  return 0;
}

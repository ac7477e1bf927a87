/*
 * Point-to-point with a non-contiguous datatype (a vector) on device
 * buffers from the CANN test double: device->device, device->host,
 * host->device and host->host (the control), small (eager) and large
 * (rendezvous), blocking and non-blocking, plus a vector sent from the
 * device into a contiguous device receive.  The receiver checks every int
 * of its buffer, the gaps between the vector's blocks included (they must
 * keep their old values); MPI_Pack / MPI_Unpack and MPI_Sendrecv_replace
 * on device memory.  The double maps device memory PROT_NONE, so a
 * face that packed straight from a device pointer would crash.  2 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_api.h"
#include "mpi_check.h"

static int rank;
static fake_api_t fa;

static int *dt_alloc(int dev, size_t n) {
  int *p = fake_api_buf_alloc(&fa, dev, n * sizeof(int));
  CHECK(p != NULL);
  return p;
}

static void dt_free(int dev, int *p) { fake_api_buf_free(&fa, dev, p); }

static void dt_put(int dev, int *dst, const int *src, size_t n) {
  CHECK(fake_api_buf_store(&fa, dev, dst, src, n * sizeof(int)) == 0);
}

static void dt_get(int dev, int *dst, const int *src, size_t n) {
  CHECK(fake_api_buf_load(&fa, dev, dst, src, n * sizeof(int)) == 0);
}

/* Rank 0 sends count vectors of blocks x blen ints, stride ints apart,
 * from sdev memory; rank 1 receives them into the same layout (rtype
 * vec) or contiguously (contig) in rdev memory. */
static void dt_case(int sdev, int rdev, int blocks, int blen, int stride,
                    int count, int contig, int nb) {
  MPI_Datatype vec;
  MPI_Type_vector(blocks, blen, stride, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Aint lb, ext;
  MPI_Type_get_extent(vec, &lb, &ext);
  size_t span = (size_t)ext / sizeof(int) * (size_t)count;
  size_t data = (size_t)blocks * blen * count;
  int *h = malloc(span * sizeof *h), *want = malloc(span * sizeof *want);
  for (size_t i = 0; i < span; i++) {
    h[i] = rank == 0 ? (int)(i * 7 + 1) : -(int)i - 5;
    want[i] = h[i];
  }
  int dev = rank == 0 ? sdev : rdev;
  int *b = dt_alloc(dev, span);
  dt_put(dev, b, h, span);
  MPI_Request req;
  if (rank == 0 && nb) {
    CHECK(MPI_Isend(b, count, vec, 1, 7, MPI_COMM_WORLD, &req) == 0);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == 0);
  } else if (rank == 0) {
    CHECK(MPI_Send(b, count, vec, 1, 7, MPI_COMM_WORLD) == 0);
  } else {
    MPI_Status st;
    MPI_Datatype rt = contig ? MPI_INT : vec;
    int rc = contig ? (int)data : count;
    if (nb) {
      CHECK(MPI_Irecv(b, rc, rt, 0, 7, MPI_COMM_WORLD, &req) == 0);
      CHECK(MPI_Wait(&req, &st) == 0);
    } else {
      CHECK(MPI_Recv(b, rc, rt, 0, 7, MPI_COMM_WORLD, &st) == 0);
    }
    int got = -1;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == (int)data);
    /* What rank 0 sent: its h at the vector's positions, in order. */
    size_t k = 0, el = (size_t)ext / sizeof(int);
    for (int c = 0; c < count; c++)
      for (int bl = 0; bl < blocks; bl++)
        for (int j = 0; j < blen; j++) {
          size_t at = (size_t)c * el + (size_t)bl * stride + j;
          want[contig ? k : at] = (int)(at * 7 + 1);
          k++;
        }
    dt_get(dev, h, b, span);
    for (size_t i = 0; i < span; i++)
      if (h[i] != want[i]) {
        fprintf(stderr,
                "rank 1: sdev %d rdev %d blocks %d contig %d nb %d: [%zu] = "
                "%d, want %d\n",
                sdev, rdev, blocks, contig, nb, i, h[i], want[i]);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
  }
  dt_free(dev, b);
  free(h);
  free(want);
  MPI_Type_free(&vec);
}

/* MPI_Pack from and MPI_Unpack into device memory agree with the same
 * calls on a host copy (a vector: the gaps keep their values). */
static void dt_pack(void) {
  MPI_Datatype vec;
  MPI_Type_vector(10, 3, 5, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  enum { SPAN = 2 * 48, DATA = 60 };
  int h[SPAN], h2[SPAN], got[SPAN], packed[DATA], want[DATA];
  for (int i = 0; i < SPAN; i++) {
    h[i] = i * 3 + rank;
    h2[i] = -i;
  }
  int *d = dt_alloc(1, SPAN);
  dt_put(1, d, h, SPAN);
  int pos = 0, hpos = 0;
  CHECK(MPI_Pack(d, 2, vec, packed, sizeof packed, &pos, MPI_COMM_WORLD) == 0);
  CHECK(MPI_Pack(h, 2, vec, want, sizeof want, &hpos, MPI_COMM_WORLD) == 0);
  CHECK(pos == hpos && memcmp(packed, want, sizeof want) == 0);
  dt_put(1, d, h2, SPAN);
  pos = hpos = 0;
  CHECK(MPI_Unpack(packed, sizeof packed, &pos, d, 2, vec, MPI_COMM_WORLD) ==
        0);
  CHECK(MPI_Unpack(want, sizeof want, &hpos, h2, 2, vec, MPI_COMM_WORLD) == 0);
  dt_get(1, got, d, SPAN);
  CHECK(pos == hpos && memcmp(got, h2, sizeof got) == 0);
  dt_free(1, d);
  MPI_Type_free(&vec);
}

/* MPI_Sendrecv_replace on a device buffer, vector and plain ints. */
static void dt_replace(void) {
  MPI_Datatype vec;
  MPI_Type_vector(1000, 2, 3, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  enum { SPAN = 3000 };
  int *h = malloc(SPAN * sizeof *h), *got = malloc(SPAN * sizeof *got);
  int peer = 1 - rank;
  for (int i = 0; i < SPAN; i++)
    h[i] = rank * 100000 + i;
  int *d = dt_alloc(1, SPAN);
  dt_put(1, d, h, SPAN);
  CHECK(MPI_Sendrecv_replace(d, 1, vec, peer, 3, peer, 3, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE) == 0);
  dt_get(1, got, d, SPAN);
  for (int i = 0; i < SPAN; i++)
    CHECK(got[i] == (i % 3 < 2 ? peer * 100000 + i : h[i]));
  CHECK(MPI_Sendrecv_replace(d, SPAN, MPI_INT, peer, 4, peer, 4,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE) == 0);
  dt_get(1, got, d, SPAN);
  for (int i = 0; i < SPAN; i++)
    CHECK(got[i] == (i % 3 < 2 ? h[i] : peer * 100000 + i));
  dt_free(1, d);
  free(h);
  free(got);
  MPI_Type_free(&vec);
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* DEVICE_P2P_ALLOC=cuda: real GPU memory (tests/device/cuda.sh). */
  const char *alloc = getenv("DEVICE_P2P_ALLOC");
  int loaded = alloc != NULL && strcmp(alloc, "cuda") == 0
                   ? fake_api_load_cuda(0, &fa)
                   : fake_api_load(NULL, 0, &fa);
  if (size != 2 || loaded != 0) {
    if (rank == 0)
      fprintf(stderr, "device_dtype: needs 2 ranks and the CANN double\n");
    MPI_Finalize();
    return 77;
  }
  for (int mode = 0; mode < 4; mode++) {
    int sdev = mode & 1, rdev = (mode >> 1) & 1;
    for (int nb = 0; nb < 2; nb++) {
      dt_case(sdev, rdev, 10, 3, 5, 2, 0, nb);      /* eager */
      dt_case(sdev, rdev, 40000, 2, 3, 2, 0, nb);   /* rendezvous */
      dt_case(sdev, rdev, 40000, 2, 3, 1, 1, nb);   /* into contiguous */
    }
  }
  dt_pack();
  dt_replace();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("device_dtype: 2 ranks OK\n");
  MPI_Finalize();
  return 0;
}

/*
 * hcmpi on real CUDA memory (tests/device/cuda.sh), 2 ranks on one node:
 *  1. host-only traffic first: afterwards the GPU's primary context must
 *     still be inactive (hcmpi's cuda backend classified host pointers
 *     without retaining a context);
 *  2. rank 0 sends a 64 MiB cuMemAlloc buffer to rank 1's 20 times through
 *     hcmpi (the data path HCMPI_DEVICE_PATH forces), rank 1 checks the
 *     bytes, and rank 0 prints the rate next to cuMemcpyDtoD's and
 *     cuMemcpyHtoD's measured in the same process.
 * The driver API is reached through dlopen("libcuda.so.1"), so no CUDA
 * toolkit is needed to build it; without a GPU it exits 77.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

typedef unsigned long long cu_ptr_t;
static struct {
  int (*init)(unsigned);
  int (*device_get)(int *, int);
  int (*ctx_state)(int, unsigned *, int *);
  int (*retain)(void **, int);
  int (*set_current)(void *);
  int (*alloc)(cu_ptr_t *, size_t);
  int (*free_)(cu_ptr_t);
  int (*htod)(cu_ptr_t, const void *, size_t);
  int (*dtoh)(void *, cu_ptr_t, size_t);
  int (*dtod)(cu_ptr_t, cu_ptr_t, size_t);
  int (*sync)(void);
} cu;

static int rank;

static int bw_load(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    return -1;
  struct {
    void *slot;
    const char *name;
  } syms[] = {{&cu.init, "cuInit"},
              {&cu.device_get, "cuDeviceGet"},
              {&cu.ctx_state, "cuDevicePrimaryCtxGetState"},
              {&cu.retain, "cuDevicePrimaryCtxRetain"},
              {&cu.set_current, "cuCtxSetCurrent"},
              {&cu.alloc, "cuMemAlloc_v2"},
              {&cu.free_, "cuMemFree_v2"},
              {&cu.htod, "cuMemcpyHtoD_v2"},
              {&cu.dtoh, "cuMemcpyDtoH_v2"},
              {&cu.dtod, "cuMemcpyDtoD_v2"},
              {&cu.sync, "cuCtxSynchronize"}};
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
    if ((*(void **)syms[i].slot = dlsym(lib, syms[i].name)) == NULL)
      return -1;
  return cu.init(0) == 0 ? 0 : -1;
}

/* Phase 1: host buffers only; hcmpi must not have made a context. */
static void bw_host_only(int dev) {
  char buf[4096];
  memset(buf, rank, sizeof buf);
  if (rank == 0)
    CHECK(MPI_Send(buf, sizeof buf, MPI_BYTE, 1, 1, MPI_COMM_WORLD) == 0);
  else
    CHECK(MPI_Recv(buf, sizeof buf, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE) == 0);
  unsigned flags = 0;
  int active = -1;
  CHECK(cu.ctx_state(dev, &flags, &active) == 0);
  CHECK(active == 0);
}

static double bw_rate(size_t bytes, int iters, double seconds) {
  return (double)bytes * iters / seconds / 1e9;
}

/* cuMemcpy's own rates in this process: device to device, host to device. */
static void bw_reference(cu_ptr_t a, size_t n, double *d2d, double *h2d) {
  cu_ptr_t b;
  unsigned char *h = malloc(n);
  CHECK(h != NULL && cu.alloc(&b, n) == 0);
  memset(h, 1, n);
  const int iters = 20;
  double t = MPI_Wtime();
  for (int i = 0; i < iters; i++)
    CHECK(cu.dtod(b, a, n) == 0);
  CHECK(cu.sync() == 0);
  *d2d = bw_rate(n, iters, MPI_Wtime() - t);
  t = MPI_Wtime();
  for (int i = 0; i < iters; i++)
    CHECK(cu.htod(b, h, n) == 0);
  CHECK(cu.sync() == 0);
  *h2d = bw_rate(n, iters, MPI_Wtime() - t);
  CHECK(cu.free_(b) == 0);
  free(h);
}

static void bw_fill(cu_ptr_t d, size_t n, int salt) {
  unsigned char *h = malloc(n);
  CHECK(h != NULL);
  for (size_t i = 0; i < n; i++)
    h[i] = (unsigned char)((i * 7 + (size_t)salt) & 0xff);
  /* From pageable memory cuMemcpyHtoD returns before the bytes landed;
   * MPI reads them from another stream or process next. */
  CHECK(cu.htod(d, h, n) == 0 && cu.sync() == 0);
  free(h);
}

static void bw_expect(cu_ptr_t d, size_t n, int salt) {
  unsigned char *h = malloc(n);
  CHECK(h != NULL && cu.dtoh(h, d, n) == 0);
  for (size_t i = 0; i < n; i++)
    CHECK(h[i] == (unsigned char)((i * 7 + (size_t)salt) & 0xff));
  free(h);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, dev;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || bw_load() != 0 || cu.device_get(&dev, 0) != 0) {
    MPI_Finalize();
    return 77;
  }
  bw_host_only(dev);
  void *ctx;
  CHECK(cu.retain(&ctx, dev) == 0 && cu.set_current(ctx) == 0);
  const size_t n = 64u << 20;
  const int iters = 20;
  cu_ptr_t d;
  CHECK(cu.alloc(&d, n) == 0);
  bw_fill(d, n, rank == 0 ? 3 : 0);
  char ack = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (int i = 0; i < iters; i++)
    CHECK((rank == 0 ? MPI_Send((void *)(uintptr_t)d, (int)n, MPI_BYTE, 1, 2,
                                MPI_COMM_WORLD)
                     : MPI_Recv((void *)(uintptr_t)d, (int)n, MPI_BYTE, 0, 2,
                                MPI_COMM_WORLD, MPI_STATUS_IGNORE)) == 0);
  if (rank == 1)
    CHECK(MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD) == 0);
  else
    CHECK(MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE) == 0);
  double hc = bw_rate(n, iters, MPI_Wtime() - t);
  if (rank == 1)
    bw_expect(d, n, 3);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    double d2d, h2d;
    bw_reference(d, n, &d2d, &h2d);
    const char *path = getenv("HCMPI_DEVICE_PATH");
    printf("cuda_bw: path %s: %.2f GB/s; cuMemcpyDtoD %.2f GB/s, "
           "cuMemcpyHtoD %.2f GB/s (64 MiB x %d)\n",
           path ? path : "auto", hc, d2d, h2d, iters);
  }
  CHECK(cu.free_(d) == 0);
  MPI_Finalize();
  return 0;
}

/*
 * MPI collectives on device buffers from the CANN test double
 * (HCMPI_ACL_LIB): Bcast (contiguous and a vector type), Reduce, Allreduce
 * (SUM on int, MAX on float, MPI_IN_PLACE), persistent Allreduce and
 * Alltoall (MPI_*_init, restarted with new device inputs), Gather,
 * Allgather, Alltoall,
 * Reduce_scatter_block, Scan, Iallreduce and Reduce_local at 777 ints a
 * block; then Scatter, Gatherv, Scatterv, Allgatherv, Alltoallv, Exscan and
 * Reduce_scatter, each blocking and as its I-form, at 777 ints and at
 * 300,000 ints (1.2 MB, past the 1 MiB staging chunk) a block; each with the
 * send and the receive buffer on the host or the device in every combination;
 * then Neighbor_alltoall and a restarted Neighbor_allgather_init on a ring.
 * Results are copied back to the host with aclrtMemcpy and compared with values
 * computed on the host.  The double maps device memory PROT_NONE, so a
 * library that dereferenced a device pointer would crash this test.
 * Any number of ranks; prints "device_coll: N ranks OK" at rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_api.h"

#define N 777 /* elements per block: not a power of two */

static int rank, size;
static fake_api_t fa;

static void check_at(int ok, const char *what, int mode, int line) {
  if (ok)
    return;
  fprintf(stderr, "rank %d: FAILED %s (mode %d, line %d)\n", rank, what, mode,
          line);
  MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond, mode) check_at((cond), #cond, (mode), __LINE__)

/* mode bit 0: send buffer on the device; bit 1: receive buffer. */
static int on_dev(int mode, int bit) { return (mode >> bit) & 1; }

static void *dc_alloc(int dev, size_t n) {
  void *p = NULL;
  if (dev)
    CHECK(fa.malloc_dev(&p, n ? n : 1, ACL_MEM_MALLOC_HUGE_FIRST) == 0, dev);
  else
    CHECK((p = malloc(n ? n : 1)) != NULL, dev);
  return p;
}

static void dc_free(int dev, void *p) {
  if (dev)
    fa.free_dev(p);
  else
    free(p);
}

static void dc_put(int dev, void *dst, const void *src, size_t n) {
  if (dev)
    CHECK(fa.memcpy_sync(dst, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE) == 0, dev);
  else
    memcpy(dst, src, n);
}

static void dc_get(int dev, void *dst, const void *src, size_t n) {
  if (dev)
    CHECK(fa.memcpy_sync(dst, n, src, n, ACL_MEMCPY_DEVICE_TO_HOST) == 0, dev);
  else
    memcpy(dst, src, n);
}

/* A buffer of n ints on the host or the device, filled from host. */
static int *dc_ints(int dev, const int *host, size_t n) {
  int *p = dc_alloc(dev, n * sizeof *p);
  dc_put(dev, p, host, n * sizeof *p);
  return p;
}

static int ival(int r, int i) { return r * 1000 + i % 997 - 300; }
static float fval(int r, int i) { return (float)((r * 7 + i) % 23) * 0.5f; }

static void fill_ints(int *h, size_t n, int r, int salt) {
  for (size_t i = 0; i < n; i++)
    h[i] = ival(r, (int)i + salt);
}

/* Every element of the device/host buffer p equals want[]. */
static void expect_ints(int dev, const int *p, const int *want, size_t n,
                        int mode, const char *what) {
  int *h = malloc(n * sizeof *h + 1);
  dc_get(dev, h, p, n * sizeof *h);
  for (size_t i = 0; i < n; i++)
    if (h[i] != want[i]) {
      fprintf(stderr, "rank %d: %s mode %d: [%zu] = %d, want %d\n", rank, what,
              mode, i, h[i], want[i]);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  free(h);
}

static void t_bcast(int mode) {
  int dev = on_dev(mode, 0) | on_dev(mode, 1);
  int root = size - 1, want[N], h[N];
  fill_ints(want, N, root, 1);
  fill_ints(h, N, rank, 2);
  int *b = dc_ints(dev, rank == root ? want : h, N);
  CHECK(MPI_Bcast(b, N, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS, mode);
  expect_ints(dev, b, want, N, mode, "Bcast");
  /* A vector type: every other int moves, the holes keep their bytes. */
  MPI_Datatype vec;
  MPI_Type_vector(N / 2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  fill_ints(h, N, rank, 3);
  dc_put(dev, b, rank == root ? want : h, sizeof h);
  CHECK(MPI_Bcast(b, 1, vec, root, MPI_COMM_WORLD) == MPI_SUCCESS, mode);
  for (int i = 0; i < N; i++)
    if (i % 2 == 0 && i / 2 < N / 2)
      h[i] = want[i];
  expect_ints(dev, b, rank == root ? want : h, N, mode, "Bcast vector");
  MPI_Type_free(&vec);
  dc_free(dev, b);
}

static void t_reduce(int mode) {
  int sdev = on_dev(mode, 0), rdev = on_dev(mode, 1), root = 0;
  int h[N], want[N];
  fill_ints(h, N, rank, 0);
  for (int i = 0; i < N; i++) {
    want[i] = 0;
    for (int r = 0; r < size; r++)
      want[i] += ival(r, i);
  }
  int *s = dc_ints(sdev, h, N), *d = dc_ints(rdev, h, N);
  CHECK(MPI_Reduce(s, d, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        mode);
  if (rank == root)
    expect_ints(rdev, d, want, N, mode, "Reduce SUM");
  /* MAX on float at another root, recvbuf NULL away from it. */
  float fh[N], fwant[N], fgot[N];
  root = 1 % size;
  for (int i = 0; i < N; i++) {
    fh[i] = fval(rank, i);
    fwant[i] = fval(0, i);
    for (int r = 1; r < size; r++)
      fwant[i] = fval(r, i) > fwant[i] ? fval(r, i) : fwant[i];
  }
  dc_put(sdev, s, fh, sizeof fh);
  CHECK(MPI_Reduce(s, rank == root ? d : NULL, N, MPI_FLOAT, MPI_MAX, root,
                   MPI_COMM_WORLD) == MPI_SUCCESS,
        mode);
  if (rank == root) {
    dc_get(rdev, fgot, d, sizeof fgot);
    CHECK(memcmp(fgot, fwant, sizeof fgot) == 0, mode);
  }
  dc_free(sdev, s);
  dc_free(rdev, d);
}

static void t_allreduce(int mode) {
  int sdev = on_dev(mode, 0), rdev = on_dev(mode, 1);
  int h[N], want[N];
  fill_ints(h, N, rank, 5);
  for (int i = 0; i < N; i++) {
    want[i] = 0;
    for (int r = 0; r < size; r++)
      want[i] += ival(r, i + 5);
  }
  int *s = dc_ints(sdev, h, N), *d = dc_ints(rdev, h, N);
  CHECK(MPI_Allreduce(s, d, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
        mode);
  expect_ints(rdev, d, want, N, mode, "Allreduce SUM");
  dc_put(rdev, d, h, sizeof h);
  CHECK(MPI_Allreduce(MPI_IN_PLACE, d, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        mode);
  expect_ints(rdev, d, want, N, mode, "Allreduce SUM in place");
  float fh[N], fwant[N], fgot[N];
  for (int i = 0; i < N; i++) {
    fh[i] = fval(rank, i);
    fwant[i] = fval(0, i);
    for (int r = 1; r < size; r++)
      fwant[i] = fval(r, i) > fwant[i] ? fval(r, i) : fwant[i];
  }
  dc_put(sdev, s, fh, sizeof fh);
  CHECK(MPI_Allreduce(s, d, N, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        mode);
  dc_get(rdev, fgot, d, sizeof fgot);
  CHECK(memcmp(fgot, fwant, sizeof fgot) == 0, mode);
  /* Non-blocking: the copy back happens when the request completes. */
  MPI_Request req;
  float fsum[N];
  for (int i = 0; i < N; i++) {
    fsum[i] = 0;
    for (int r = 0; r < size; r++)
      fsum[i] += fval(r, i);
  }
  CHECK(MPI_Iallreduce(s, d, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req) ==
            MPI_SUCCESS,
        mode);
  CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, mode);
  dc_get(rdev, fgot, d, sizeof fgot);
  CHECK(memcmp(fgot, fsum, sizeof fgot) == 0, mode);
  dc_free(sdev, s);
  dc_free(rdev, d);
}

/* Persistent Allreduce (plain and in place) and Alltoall: the device
 * inputs are staged in again at every MPI_Start and the results copied
 * back at every completion; 5 starts, new inputs each time. */
static void t_persistent(int mode) {
  int sdev = on_dev(mode, 0), rdev = on_dev(mode, 1);
  int h[N], want[N], *ah = malloc((size_t)size * N * sizeof *ah);
  int *awant = malloc((size_t)size * N * sizeof *awant);
  int *s = dc_alloc(sdev, sizeof h), *d = dc_alloc(rdev, sizeof h);
  int *ip = dc_alloc(rdev, sizeof h);
  int *as = dc_alloc(sdev, (size_t)size * sizeof h);
  int *ad = dc_alloc(rdev, (size_t)size * sizeof h);
  MPI_Request r[3];
  MPI_Allreduce_init(s, d, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                     &r[0]);
  MPI_Allreduce_init(MPI_IN_PLACE, ip, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                     MPI_INFO_NULL, &r[1]);
  MPI_Alltoall_init(as, N, MPI_INT, ad, N, MPI_INT, MPI_COMM_WORLD,
                    MPI_INFO_NULL, &r[2]);
  for (int it = 0; it < 5; it++) {
    fill_ints(h, N, rank, it);
    for (int i = 0; i < N; i++) {
      want[i] = 0;
      for (int q = 0; q < size; q++)
        want[i] += ival(q, i + it);
    }
    for (int q = 0; q < size; q++) {
      fill_ints(ah + (size_t)q * N, N, rank * 64 + q, it);
      fill_ints(awant + (size_t)q * N, N, q * 64 + rank, it);
    }
    dc_put(sdev, s, h, sizeof h);
    dc_put(rdev, ip, h, sizeof h);
    dc_put(sdev, as, ah, (size_t)size * sizeof h);
    CHECK(MPI_Startall(3, r) == MPI_SUCCESS, mode);
    CHECK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, mode);
    expect_ints(rdev, d, want, N, mode, "Allreduce_init");
    expect_ints(rdev, ip, want, N, mode, "Allreduce_init in place");
    expect_ints(rdev, ad, awant, (size_t)size * N, mode, "Alltoall_init");
  }
  for (int k = 0; k < 3; k++)
    CHECK(MPI_Request_free(&r[k]) == MPI_SUCCESS, mode);
  dc_free(sdev, s);
  dc_free(rdev, d);
  dc_free(rdev, ip);
  dc_free(sdev, as);
  dc_free(rdev, ad);
  free(ah);
  free(awant);
}

/* Gather (root 0), Allgather and Alltoall of N ints per rank. */
static void t_move(int mode) {
  int sdev = on_dev(mode, 0), rdev = on_dev(mode, 1);
  size_t all = (size_t)N * size;
  int *h = malloc(all * sizeof *h), *want = malloc(all * sizeof *want);
  fill_ints(h, all, rank, 0);
  int *s = dc_ints(sdev, h, all), *d = dc_ints(rdev, h, all);
  for (int r = 0; r < size; r++)
    fill_ints(want + (size_t)r * N, N, r, 0);
  CHECK(MPI_Gather(s, N, MPI_INT, d, N, MPI_INT, 0, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        mode);
  if (rank == 0)
    expect_ints(rdev, d, want, all, mode, "Gather");
  CHECK(MPI_Allgather(s, N, MPI_INT, d, N, MPI_INT, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        mode);
  expect_ints(rdev, d, want, all, mode, "Allgather");
  /* Alltoall: block j of rank r is fill(r, j * N); rank gets block rank. */
  for (int r = 0; r < size; r++)
    for (int i = 0; i < N; i++)
      want[(size_t)r * N + i] = ival(r, rank * N + i);
  CHECK(MPI_Alltoall(s, N, MPI_INT, d, N, MPI_INT, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        mode);
  expect_ints(rdev, d, want, all, mode, "Alltoall");
  dc_free(sdev, s);
  dc_free(rdev, d);
  free(h);
  free(want);
}

/* Reduce_scatter_block (SUM) and Scan (SUM) on ints. */
static void t_scatter_scan(int mode) {
  int sdev = on_dev(mode, 0), rdev = on_dev(mode, 1);
  size_t all = (size_t)N * size;
  int *h = malloc(all * sizeof *h), want[N];
  fill_ints(h, all, rank, 0);
  int *s = dc_ints(sdev, h, all), *d = dc_ints(rdev, h, N);
  for (int i = 0; i < N; i++) {
    want[i] = 0;
    for (int r = 0; r < size; r++)
      want[i] += ival(r, rank * N + i);
  }
  CHECK(MPI_Reduce_scatter_block(s, d, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        mode);
  expect_ints(rdev, d, want, N, mode, "Reduce_scatter_block");
  for (int i = 0; i < N; i++) {
    want[i] = 0;
    for (int r = 0; r <= rank; r++)
      want[i] += ival(r, i);
  }
  CHECK(MPI_Scan(s, d, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
        mode);
  expect_ints(rdev, d, want, N, mode, "Scan");
  /* MPI_Reduce_local: d += s on this rank alone. */
  for (int i = 0; i < N; i++)
    want[i] += h[i];
  CHECK(MPI_Reduce_local(s, d, N, MPI_INT, MPI_SUM) == MPI_SUCCESS, mode);
  expect_ints(rdev, d, want, N, mode, "Reduce_local");
  dc_free(sdev, s);
  dc_free(rdev, d);
  free(h);
}

/* ---- the second set, heap buffers of n ints a block ---------------------
 * c(a, b): the v-forms' count between ranks a and b (n, n-1 or n-2), so
 * blocks differ in length and leave gaps the collective must not touch. */
static int vcount(size_t n, int a, int b) { return (int)n - (a + b) % 3; }

typedef struct more {
  int mode, sdev, rdev, nb; /* nb: the I-form, then MPI_Wait */
  size_t n, all;
  int *h, *want, *s, *d;
  int *counts, *displs, *scounts, *sdispls, *rcounts;
} more_t;

static void more_done(more_t *m, int rc, MPI_Request *req) {
  CHECK(rc == MPI_SUCCESS, m->mode);
  if (m->nb)
    CHECK(MPI_Wait(req, MPI_STATUS_IGNORE) == MPI_SUCCESS, m->mode);
}

/* Receive buffer back to the host pattern h, and want = h, before an op. */
static void more_reset(more_t *m) {
  dc_put(m->rdev, m->d, m->h, m->all * sizeof *m->h);
  memcpy(m->want, m->h, m->all * sizeof *m->h);
}

static void more_scatter(more_t *m) {
  int root = size - 1;
  size_t n = m->n;
  MPI_Request req;
  more_reset(m);
  for (size_t i = 0; i < n; i++)
    m->want[i] = ival(root, (int)(rank * n + i));
  more_done(m,
            m->nb ? MPI_Iscatter(m->s, (int)n, MPI_INT, m->d, (int)n, MPI_INT,
                                 root, MPI_COMM_WORLD, &req)
                  : MPI_Scatter(m->s, (int)n, MPI_INT, m->d, (int)n, MPI_INT,
                                root, MPI_COMM_WORLD),
            &req);
  expect_ints(m->rdev, m->d, m->want, m->all, m->mode, "Scatter");
  more_reset(m); /* Scatterv: rank gets c(rank, 0) ints at rank * n */
  for (int i = 0; i < vcount(n, rank, 0); i++)
    m->want[i] = ival(root, (int)(rank * n) + i);
  more_done(m,
            m->nb ? MPI_Iscatterv(m->s, m->counts, m->displs, MPI_INT, m->d,
                                  vcount(n, rank, 0), MPI_INT, root,
                                  MPI_COMM_WORLD, &req)
                  : MPI_Scatterv(m->s, m->counts, m->displs, MPI_INT, m->d,
                                 vcount(n, rank, 0), MPI_INT, root,
                                 MPI_COMM_WORLD),
            &req);
  expect_ints(m->rdev, m->d, m->want, m->all, m->mode, "Scatterv");
}

/* Gatherv (root 0) and Allgatherv: block r holds c(r, 0) ints of rank r. */
static void more_gathers(more_t *m) {
  MPI_Request req;
  for (int all = 0; all < 2; all++) {
    more_reset(m);
    for (int r = 0; r < size; r++)
      for (int i = 0; i < vcount(m->n, r, 0); i++)
        m->want[(size_t)r * m->n + i] = ival(r, i);
    int c = vcount(m->n, rank, 0), rc;
    if (all)
      rc = m->nb ? MPI_Iallgatherv(m->s, c, MPI_INT, m->d, m->counts, m->displs,
                                   MPI_INT, MPI_COMM_WORLD, &req)
                 : MPI_Allgatherv(m->s, c, MPI_INT, m->d, m->counts, m->displs,
                                  MPI_INT, MPI_COMM_WORLD);
    else
      rc = m->nb ? MPI_Igatherv(m->s, c, MPI_INT, m->d, m->counts, m->displs,
                                MPI_INT, 0, MPI_COMM_WORLD, &req)
                 : MPI_Gatherv(m->s, c, MPI_INT, m->d, m->counts, m->displs,
                               MPI_INT, 0, MPI_COMM_WORLD);
    more_done(m, rc, &req);
    if (all || rank == 0)
      expect_ints(m->rdev, m->d, m->want, m->all, m->mode,
                  all ? "Allgatherv" : "Gatherv");
  }
}

/* Alltoallv: c(rank, j) ints to rank j, c(r, rank) from rank r. */
static void more_alltoallv(more_t *m) {
  MPI_Request req;
  more_reset(m);
  for (int r = 0; r < size; r++) {
    m->scounts[r] = vcount(m->n, rank, r);
    m->rcounts[r] = vcount(m->n, r, rank);
    for (int i = 0; i < m->rcounts[r]; i++)
      m->want[(size_t)r * m->n + i] = ival(r, (int)(rank * m->n) + i);
  }
  more_done(m,
            m->nb
                ? MPI_Ialltoallv(m->s, m->scounts, m->displs, MPI_INT, m->d,
                                 m->rcounts, m->displs, MPI_INT, MPI_COMM_WORLD,
                                 &req)
                : MPI_Alltoallv(m->s, m->scounts, m->displs, MPI_INT, m->d,
                                m->rcounts, m->displs, MPI_INT, MPI_COMM_WORLD),
            &req);
  expect_ints(m->rdev, m->d, m->want, m->all, m->mode, "Alltoallv");
}

/* Exscan (SUM; rank 0's result is undefined) and Reduce_scatter with
 * counts c(r, 0), whose blocks lie back to back in the send buffer. */
static void more_reductions(more_t *m) {
  MPI_Request req;
  more_reset(m);
  for (size_t i = 0; i < m->n; i++) {
    m->want[i] = 0;
    for (int r = 0; r < rank; r++)
      m->want[i] += ival(r, (int)i);
  }
  more_done(m,
            m->nb ? MPI_Iexscan(m->s, m->d, (int)m->n, MPI_INT, MPI_SUM,
                                MPI_COMM_WORLD, &req)
                  : MPI_Exscan(m->s, m->d, (int)m->n, MPI_INT, MPI_SUM,
                               MPI_COMM_WORLD),
            &req);
  if (rank > 0)
    expect_ints(m->rdev, m->d, m->want, m->n, m->mode, "Exscan");
  more_reset(m);
  int off = 0;
  for (int r = 0; r < rank; r++)
    off += m->counts[r];
  for (int i = 0; i < m->counts[rank]; i++) {
    m->want[i] = 0;
    for (int r = 0; r < size; r++)
      m->want[i] += ival(r, off + i);
  }
  more_done(m,
            m->nb ? MPI_Ireduce_scatter(m->s, m->d, m->counts, MPI_INT, MPI_SUM,
                                        MPI_COMM_WORLD, &req)
                  : MPI_Reduce_scatter(m->s, m->d, m->counts, MPI_INT, MPI_SUM,
                                       MPI_COMM_WORLD),
            &req);
  expect_ints(m->rdev, m->d, m->want, m->all, m->mode, "Reduce_scatter");
}

static void t_more(int mode, size_t n) {
  more_t m = {.mode = mode, .n = n, .all = n * (size_t)size};
  m.sdev = on_dev(mode, 0);
  m.rdev = on_dev(mode, 1);
  m.h = malloc(m.all * sizeof *m.h);
  m.want = malloc(m.all * sizeof *m.want);
  int *v = malloc(5 * (size_t)size * sizeof *v);
  CHECK(m.h != NULL && m.want != NULL && v != NULL, mode);
  m.counts = v, m.displs = v + size, m.scounts = v + 2 * size;
  m.rcounts = v + 3 * size;
  for (int r = 0; r < size; r++) {
    m.counts[r] = vcount(n, r, 0);
    m.displs[r] = (int)(r * n);
  }
  fill_ints(m.h, m.all, rank, 0);
  m.s = dc_ints(m.sdev, m.h, m.all);
  m.d = dc_ints(m.rdev, m.h, m.all);
  for (m.nb = 0; m.nb < 2; m.nb++) {
    more_scatter(&m);
    more_gathers(&m);
    more_alltoallv(&m);
    more_reductions(&m);
  }
  dc_free(m.sdev, m.s);
  dc_free(m.rdev, m.d);
  free(m.h);
  free(m.want);
  free(v);
}

/* Neighbourhood collectives on a periodic ring (a 1-D Cartesian grid, so
 * on 1 and 2 ranks both neighbours are one rank): Neighbor_alltoall
 * blocking, and Neighbor_allgather_init started twice with new device
 * input.  Block 0 comes from the left neighbour (what it sent right, its
 * block 1), block 1 from the right one (its block 0). */
static void t_neighbor(int mode) {
  int sdev = on_dev(mode, 0), rdev = on_dev(mode, 1);
  int dims[1] = {size}, periods[1] = {1}, h[2 * N], want[2 * N];
  int left = (rank - 1 + size) % size, right = (rank + 1) % size;
  MPI_Comm ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  fill_ints(h, 2 * N, rank, 0);
  int *s = dc_ints(sdev, h, 2 * N), *d = dc_ints(rdev, h, 2 * N);
  for (int i = 0; i < N; i++) {
    want[i] = ival(left, N + i);
    want[N + i] = ival(right, i);
  }
  CHECK(MPI_Neighbor_alltoall(s, N, MPI_INT, d, N, MPI_INT, ring) ==
            MPI_SUCCESS,
        mode);
  expect_ints(rdev, d, want, 2 * N, mode, "Neighbor_alltoall");
  MPI_Request req;
  CHECK(MPI_Neighbor_allgather_init(s, N, MPI_INT, d, N, MPI_INT, ring,
                                    MPI_INFO_NULL, &req) == MPI_SUCCESS,
        mode);
  for (int salt = 1; salt <= 2; salt++) {
    fill_ints(h, N, rank, salt);
    dc_put(sdev, s, h, N * sizeof *h);
    CHECK(MPI_Start(&req) == MPI_SUCCESS, mode);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, mode);
    fill_ints(want, N, left, salt);
    fill_ints(want + N, N, right, salt);
    expect_ints(rdev, d, want, 2 * N, mode, "Neighbor_allgather_init");
  }
  MPI_Request_free(&req);
  MPI_Comm_free(&ring);
  dc_free(sdev, s);
  dc_free(rdev, d);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* DEVICE_P2P_ALLOC=cuda: real GPU memory (tests/device/cuda.sh). */
  const char *alloc = getenv("DEVICE_P2P_ALLOC");
  int loaded = alloc != NULL && strcmp(alloc, "cuda") == 0
                   ? fake_api_load_cuda(0, &fa)
                   : fake_api_load(NULL, 0, &fa);
  if (loaded != 0) {
    MPI_Finalize();
    return 77;
  }
  for (int mode = 0; mode < 4; mode++) {
    t_bcast(mode);
    t_reduce(mode);
    t_allreduce(mode);
    t_persistent(mode);
    t_move(mode);
    t_scatter_scan(mode);
    t_more(mode, N);
    t_more(mode, 300000);
    t_neighbor(mode);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("device_coll: %d ranks OK\n", size);
  MPI_Finalize();
  return 0;
}

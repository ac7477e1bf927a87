/*
 * Blocking collectives on device buffers of the CANN test double run as
 * HCCL's own collectives: Allreduce (SUM on int, MAX on float in place),
 * Bcast (bytes), Allgather (and in place), Reduce_scatter_block (MIN on
 * float), Alltoall, Alltoallv (uneven blocks), Reduce (SUM on long, recvbuf
 * NULL off the root), and an Allreduce on a split communicator (its own
 * HcclComm, freed with it).  Each is checked byte for byte (copied back
 * with aclrtMemcpy) and by the HCCL double's count of collectives issued
 * (fakehccl_collectives): one more per call.  Then the cases HCCL cannot
 * take, which must give the same results through host staging and issue
 * no HCCL call: MPI_MINLOC, MPI_PROD, a user op, a vector datatype, and a
 * rank whose buffer is host memory while the others' are on the device.  With
 * HCMPI_COLL_HCCL=0 nothing goes to HCCL.  Prints "device_hccl_coll: N
 * ranks OK" at rank 0.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_api.h"

#define N 1000

static int rank, size, hccl_on;
static fake_api_t fa;
static unsigned long (*hccl_calls)(void);
static unsigned long calls_seen;

static void check_at(int ok, const char *what, int line) {
  if (ok)
    return;
  fprintf(stderr, "rank %d: FAILED %s (line %d)\n", rank, what, line);
  MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(cond) check_at((cond), #cond, __LINE__)

/* The double's count went up by expect since the last look. */
static void calls_at(unsigned long expect, int line) {
  unsigned long now = hccl_calls();
  check_at(now - calls_seen == expect, "HCCL collectives issued", line);
  calls_seen = now;
}
#define HCCL_CALLS(n) calls_at(hccl_on ? (n) : 0, __LINE__)
#define NO_HCCL_CALLS() calls_at(0, __LINE__)

static void *dev_put(const void *host, size_t n) {
  void *d = NULL;
  CHECK(fa.malloc_dev(&d, n, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
  if (host != NULL)
    CHECK(fa.memcpy_sync(d, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
  return d;
}

static void *dev_get(const void *dev, size_t n) {
  void *h = malloc(n);
  CHECK(h != NULL);
  CHECK(fa.memcpy_sync(h, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
  return h;
}

static int ival(int r, int i) { return r * 100 + i % 91 - 40; }

/* dev holds, for every i < N, the sum over the ranks q of ival(q, i). */
static void check_int_sums(const void *dev) {
  int *out = dev_get(dev, N * sizeof *out);
  for (int i = 0; i < N; i++) {
    int want = 0;
    for (int q = 0; q < size; q++)
      want += ival(q, i);
    CHECK(out[i] == want);
  }
  free(out);
}

static void t_allreduce(void) {
  int in[N];
  for (int i = 0; i < N; i++)
    in[i] = ival(rank, i);
  void *s = dev_put(in, sizeof in), *r = dev_put(NULL, sizeof in);
  CHECK(MPI_Allreduce(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  HCCL_CALLS(1);
  check_int_sums(r);
  /* MAX on float, in place. */
  float d[N], *dout;
  for (int i = 0; i < N; i++)
    d[i] = (float)((rank * 37 + i * 11) % 101) * 0.25f;
  void *dd = dev_put(d, sizeof d);
  CHECK(MPI_Allreduce(MPI_IN_PLACE, dd, N, MPI_FLOAT, MPI_MAX,
                      MPI_COMM_WORLD) == MPI_SUCCESS);
  HCCL_CALLS(1);
  dout = dev_get(dd, sizeof d);
  for (int i = 0; i < N; i++) {
    float want = 0;
    for (int q = 0; q < size; q++) {
      float v = (float)((q * 37 + i * 11) % 101) * 0.25f;
      want = v > want ? v : want;
    }
    CHECK(dout[i] == want);
  }
  free(dout);
  fa.free_dev(dd);
  fa.free_dev(s);
  fa.free_dev(r);
}

static void t_bcast(void) {
  unsigned char b[4000], *out;
  int root = size - 1;
  for (int i = 0; i < (int)sizeof b; i++)
    b[i] = rank == root ? (unsigned char)(i * 7 + 3) : 0xee;
  void *d = dev_put(b, sizeof b);
  CHECK(MPI_Bcast(d, sizeof b, MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS);
  HCCL_CALLS(1);
  out = dev_get(d, sizeof b);
  for (int i = 0; i < (int)sizeof b; i++)
    CHECK(out[i] == (unsigned char)(i * 7 + 3));
  free(out);
  fa.free_dev(d);
}

static void t_allgather(void) {
  int in[N], *out;
  size_t all = (size_t)size * N * sizeof(int);
  for (int i = 0; i < N; i++)
    in[i] = ival(rank, i);
  void *s = dev_put(in, sizeof in), *r = dev_put(NULL, all);
  CHECK(MPI_Allgather(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  HCCL_CALLS(1);
  out = dev_get(r, all);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < N; i++)
      CHECK(out[q * N + i] == ival(q, i));
  free(out);
  /* In place: each rank's block already in recvbuf. */
  int *h = calloc((size_t)size * N, sizeof *h);
  for (int i = 0; i < N; i++)
    h[rank * N + i] = ival(rank, i) + 1;
  CHECK(fa.memcpy_sync(r, all, h, all, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
  CHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, N, MPI_INT,
                      MPI_COMM_WORLD) == MPI_SUCCESS);
  HCCL_CALLS(1);
  out = dev_get(r, all);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < N; i++)
      CHECK(out[q * N + i] == ival(q, i) + 1);
  free(out);
  free(h);
  fa.free_dev(s);
  fa.free_dev(r);
}

static float fv(int r, int i) { return (float)((r * 13 + i * 5) % 31) - 7.5f; }

static void t_reduce_scatter(void) {
  size_t n = (size_t)size * N;
  float *in = malloc(n * sizeof *in), *out;
  for (size_t i = 0; i < n; i++)
    in[i] = fv(rank, (int)i);
  void *s = dev_put(in, n * sizeof *in), *r = dev_put(NULL, N * sizeof *in);
  CHECK(MPI_Reduce_scatter_block(s, r, N, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  HCCL_CALLS(1);
  out = dev_get(r, N * sizeof *out);
  for (int i = 0; i < N; i++) {
    float want = fv(0, rank * N + i);
    for (int q = 1; q < size; q++)
      want = fv(q, rank * N + i) < want ? fv(q, rank * N + i) : want;
    CHECK(out[i] == want);
  }
  free(out);
  free(in);
  fa.free_dev(s);
  fa.free_dev(r);
}

/* Alltoallv: rank p sends count(p, q) ints to rank q, the blocks packed
 * back to back in rank order on both sides; Alltoall: N / 10 ints each. */
static int a2a_count(int p, int q) { return (p * 3 + q * 5) % 7 + (p == q); }
static int a2a_val(int p, int q, int i) { return p * 10000 + q * 100 + i; }

static void t_alltoall(void) {
  int sc[64], sd[64], rc[64], rd[64], st = 0, rt = 0;
  for (int q = 0; q < size; q++) {
    sc[q] = a2a_count(rank, q);
    rc[q] = a2a_count(q, rank);
    sd[q] = st;
    rd[q] = rt;
    st += sc[q];
    rt += rc[q];
  }
  int *in = malloc((size_t)st * sizeof *in), *out;
  for (int q = 0; q < size; q++)
    for (int i = 0; i < sc[q]; i++)
      in[sd[q] + i] = a2a_val(rank, q, i);
  void *s = dev_put(in, (size_t)st * sizeof *in);
  void *r = dev_put(NULL, (size_t)rt * sizeof *in);
  CHECK(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  HCCL_CALLS(1);
  out = dev_get(r, (size_t)rt * sizeof *out);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < rc[q]; i++)
      CHECK(out[rd[q] + i] == a2a_val(q, rank, i));
  free(out);
  free(in);
  fa.free_dev(s);
  fa.free_dev(r);
  /* Alltoall */
  int b = N / 10;
  size_t all = (size_t)size * b * sizeof(int);
  in = malloc(all);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < b; i++)
      in[q * b + i] = a2a_val(rank, q, i);
  s = dev_put(in, all);
  r = dev_put(NULL, all);
  CHECK(MPI_Alltoall(s, b, MPI_INT, r, b, MPI_INT, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  HCCL_CALLS(1);
  out = dev_get(r, all);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < b; i++)
      CHECK(out[q * b + i] == a2a_val(q, rank, i));
  free(out);
  free(in);
  fa.free_dev(s);
  fa.free_dev(r);
}

static void t_reduce(void) {
  long in[N], *out;
  int root = 1 % size;
  for (int i = 0; i < N; i++)
    in[i] = (long)ival(rank, i) * 100000L;
  void *s = dev_put(in, sizeof in);
  void *r = rank == root ? dev_put(NULL, sizeof in) : NULL;
  CHECK(MPI_Reduce(s, r, N, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  HCCL_CALLS(1);
  if (rank == root) {
    out = dev_get(r, sizeof in);
    for (int i = 0; i < N; i++) {
      long want = 0;
      for (int q = 0; q < size; q++)
        want += (long)ival(q, i) * 100000L;
      CHECK(out[i] == want);
    }
    free(out);
    fa.free_dev(r);
  }
  /* The input is left as it was everywhere. */
  out = dev_get(s, sizeof in);
  CHECK(memcmp(out, in, sizeof in) == 0);
  free(out);
  fa.free_dev(s);
}

/* A communicator of its own: its own HcclComm, made at its first device
 * collective and destroyed by MPI_Comm_free.  A one-rank half stages. */
static void t_split(void) {
  MPI_Comm half;
  CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half) == MPI_SUCCESS);
  int hrank, hsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  for (int round = 0; round < 2; round++) {
    int in[N], *out;
    for (int i = 0; i < N; i++)
      in[i] = ival(rank, i) + round;
    void *s = dev_put(in, sizeof in), *r = dev_put(NULL, sizeof in);
    CHECK(MPI_Allreduce(s, r, N, MPI_INT, MPI_SUM, half) == MPI_SUCCESS);
    HCCL_CALLS(hsize > 1 ? 1 : 0);
    out = dev_get(r, sizeof in);
    for (int i = 0; i < N; i++) {
      int want = 0;
      for (int q = rank % 2; q < size; q += 2)
        want += ival(q, i) + round;
      CHECK(out[i] == want);
    }
    free(out);
    fa.free_dev(s);
    fa.free_dev(r);
  }
  CHECK(MPI_Comm_free(&half) == MPI_SUCCESS);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  for (int i = 0; i < *len; i++)
    ((int *)inout)[i] += ((int *)in)[i];
}

/* What HCCL cannot run stages, with the same results and no HCCL call. */
static void t_fallbacks(void) {
  struct {
    int v, at;
  } pin[N], *pout;
  for (int i = 0; i < N; i++) {
    pin[i].v = (rank * 7 + i) % 5;
    pin[i].at = rank;
  }
  void *s = dev_put(pin, sizeof pin), *r = dev_put(NULL, sizeof pin);
  CHECK(MPI_Allreduce(s, r, N, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  NO_HCCL_CALLS();
  pout = dev_get(r, sizeof pin);
  for (int i = 0; i < N; i++) {
    int v = i % 5, at = 0; /* rank 0's; later ranks win only below it */
    for (int q = 1; q < size; q++)
      if ((q * 7 + i) % 5 < v) {
        v = (q * 7 + i) % 5;
        at = q;
      }
    CHECK(pout[i].v == v && pout[i].at == at);
  }
  free(pout);
  fa.free_dev(s);
  fa.free_dev(r);

  MPI_Op op;
  CHECK(MPI_Op_create(user_sum, 1, &op) == MPI_SUCCESS);
  int in[N], *out;
  for (int i = 0; i < N; i++)
    in[i] = ival(rank, i);
  s = dev_put(in, sizeof in);
  r = dev_put(NULL, sizeof in);
  CHECK(MPI_Allreduce(s, r, N, MPI_INT, op, MPI_COMM_WORLD) == MPI_SUCCESS);
  NO_HCCL_CALLS();
  check_int_sums(r);
  MPI_Op_free(&op);

  /* MPI_PROD: not on every product's HCCL. */
  int two[N], *prod;
  for (int i = 0; i < N; i++)
    two[i] = i % 3 == 0 ? -1 : 1;
  void *t2 = dev_put(two, sizeof two);
  CHECK(MPI_Allreduce(MPI_IN_PLACE, t2, N, MPI_INT, MPI_PROD, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  NO_HCCL_CALLS();
  prod = dev_get(t2, sizeof two);
  for (int i = 0; i < N; i++)
    CHECK(prod[i] == (i % 3 == 0 && size % 2 == 1 ? -1 : 1));
  free(prod);
  fa.free_dev(t2);

  /* A strided datatype: every other int of 2 N. */
  MPI_Datatype vec;
  MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int *wide = calloc(2 * N, sizeof *wide);
  for (int i = 0; i < 2 * N; i++)
    wide[i] = rank == 0 ? i : -1;
  void *w = dev_put(wide, 2 * N * sizeof *wide);
  CHECK(MPI_Bcast(w, 1, vec, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  NO_HCCL_CALLS();
  out = dev_get(w, 2 * N * sizeof *wide);
  for (int i = 0; i < 2 * N; i++)
    CHECK(out[i] == (i % 2 == 0 || rank == 0 ? i : -1));
  free(out);
  free(wide);
  fa.free_dev(w);
  MPI_Type_free(&vec);

  /* Rank 0's send buffer on the host, the others' on the device: every
   * rank stages, agreed. */
  void *hs = rank == 0 ? (void *)in : s;
  CHECK(MPI_Allreduce(hs, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
        MPI_SUCCESS);
  NO_HCCL_CALLS();
  check_int_sums(r);
  fa.free_dev(s);
  fa.free_dev(r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *lib = getenv("HCMPI_HCCL_LIB"), *knob = getenv("HCMPI_COLL_HCCL");
  void *h = lib != NULL ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
  if (h != NULL)
    *(void **)&hccl_calls = dlsym(h, "fakehccl_collectives");
  if (size > 64 || hccl_calls == NULL || fake_api_load(NULL, 0, &fa) != 0) {
    MPI_Finalize();
    return 77;
  }
  /* One rank has no one to agree with: it always stages. */
  hccl_on = (knob == NULL || strcmp(knob, "0") != 0) && size > 1;
  calls_seen = hccl_calls();
  t_allreduce();
  t_bcast();
  t_allgather();
  t_reduce_scatter();
  t_alltoall();
  t_reduce();
  t_split();
  t_fallbacks();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("device_hccl_coll: %d ranks OK\n", size);
  MPI_Finalize();
  return 0;
}

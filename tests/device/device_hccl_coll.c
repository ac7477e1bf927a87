/*
 * Collectives on device buffers of the CANN test double run as HCCL's own
 * collectives.  Blocking: Allreduce (SUM on int, MAX on float in place),
 * Bcast (bytes), Allgather (and in place), Reduce_scatter_block (MIN on
 * float), Alltoall, Alltoallv (uneven blocks), Reduce (SUM on long, recvbuf
 * NULL off the root), and an Allreduce on a split communicator (its own
 * HcclComm, freed with it).  Non-blocking and persistent: the I-form of
 * Allreduce, Reduce, Reduce_scatter_block, Bcast, Allgather, Alltoall and
 * Alltoallv completed once by MPI_Wait and once by an MPI_Test loop, and
 * the same seven as persistent requests started three times with new
 * input each time; two persistent requests started in opposite orders on
 * even and odd ranks; an Iallreduce and an Ibcast outstanding together.
 * Each is checked byte for byte (copied back with aclrtMemcpy) and by the
 * HCCL double's count of collectives issued (fakehccl_collectives): one
 * more per call or start, none at a persistent init.  Then the cases HCCL
 * cannot take, which must give the same results through host staging and
 * issue no HCCL call: MPI_MINLOC, MPI_PROD (blocking, I-form and
 * persistent), a user op, a vector datatype (Bcast and Ibcast), a rank
 * whose buffer is host memory while the others' are on the device
 * (blocking, I-form and persistent), and an I-form on a communicator that
 * has no HcclComm yet (only a blocking call, or a persistent init, which
 * the last case checks, makes one).
 * With HCMPI_COLL_HCCL=0 nothing goes to HCCL.  Prints "device_hccl_coll:
 * N ranks OK" at rank 0.
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

/* Bcast (or Ibcast) of a strided datatype, every other int of 2 N, from
 * rank 0: it stages, with no HCCL call. */
static void vector_bcast(int nonblocking) {
  MPI_Datatype vec;
  MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int *wide = calloc(2 * N, sizeof *wide), *out;
  for (int i = 0; i < 2 * N; i++)
    wide[i] = rank == 0 ? i : -1;
  void *w = dev_put(wide, 2 * N * sizeof *wide);
  MPI_Request req;
  if (nonblocking) {
    CHECK(MPI_Ibcast(w, 1, vec, 0, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  } else {
    CHECK(MPI_Bcast(w, 1, vec, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  }
  NO_HCCL_CALLS();
  out = dev_get(w, 2 * N * sizeof *wide);
  for (int i = 0; i < 2 * N; i++)
    CHECK(out[i] == (i % 2 == 0 || rank == 0 ? i : -1));
  free(out);
  free(wide);
  fa.free_dev(w);
  MPI_Type_free(&vec);
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
  int in[N];
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

  vector_bcast(0);

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

/* ---- the non-blocking and persistent forms -------------------------------
 * Each case's rounds k take new input (ivalk, fvk): rounds 0 and 1 as
 * I-forms, 2 to 4 as starts of one persistent request. */
static void *dev_alloc(size_t n) {
  void *d = NULL;
  CHECK(fa.malloc_dev(&d, n > 0 ? n : 1, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
  return d;
}

static void dev_set(void *dev, const void *host, size_t n) {
  CHECK(fa.memcpy_sync(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
}

static int ivalk(int r, int i, int k) { return ival(r, i) + 7 * k; }
static float fvk(int r, int i, int k) { return fv(r, i + k); }

/* One collective: its device buffers, how to fill them for round k, how
 * to start it (I-form or persistent init) and how to check round k. */
typedef struct coll_case {
  const char *name;
  void *s, *r;
  size_t sbytes, rbytes;
  int sc[64], sd[64], rc[64], rd[64]; /* alltoallv */
  int floats;                         /* fill_ints gives floats */
  void (*fill)(struct coll_case *c, int k);
  int (*start)(struct coll_case *c, int persist, MPI_Request *req);
  void (*check)(struct coll_case *c, int k);
} coll_case_t;

/* ---- allreduce: SUM on int ---- */
/* Round k's input: ints, or floats (4 bytes too) where c->floats. */
static void fill_ints(coll_case_t *c, int k) {
  size_t n = c->sbytes / sizeof(int);
  int *in = malloc(c->sbytes);
  float *fin = (float *)in;
  for (size_t i = 0; i < n; i++) {
    if (c->floats)
      fin[i] = fvk(rank, (int)i, k);
    else
      in[i] = ivalk(rank, (int)i, k);
  }
  dev_set(c->s, in, c->sbytes);
  free(in);
}
static int start_allreduce(coll_case_t *c, int persist, MPI_Request *req) {
  return persist ? MPI_Allreduce_init(c->s, c->r, N, MPI_INT, MPI_SUM,
                                      MPI_COMM_WORLD, MPI_INFO_NULL, req)
                 : MPI_Iallreduce(c->s, c->r, N, MPI_INT, MPI_SUM,
                                  MPI_COMM_WORLD, req);
}
static void check_int_sums_k(const void *dev, int k) {
  int *out = dev_get(dev, N * sizeof *out);
  for (int i = 0; i < N; i++) {
    int want = 0;
    for (int q = 0; q < size; q++)
      want += ivalk(q, i, k);
    CHECK(out[i] == want);
  }
  free(out);
}
static void check_allreduce(coll_case_t *c, int k) {
  check_int_sums_k(c->r, k);
}

/* ---- reduce: SUM on long at root 1 % size ---- */
static void fill_longs(coll_case_t *c, int k) {
  long in[N];
  for (int i = 0; i < N; i++)
    in[i] = (long)ivalk(rank, i, k) * 100000L;
  dev_set(c->s, in, sizeof in);
}
static int start_reduce(coll_case_t *c, int persist, MPI_Request *req) {
  int root = 1 % size;
  return persist ? MPI_Reduce_init(c->s, c->r, N, MPI_LONG, MPI_SUM, root,
                                   MPI_COMM_WORLD, MPI_INFO_NULL, req)
                 : MPI_Ireduce(c->s, c->r, N, MPI_LONG, MPI_SUM, root,
                               MPI_COMM_WORLD, req);
}
static void check_reduce(coll_case_t *c, int k) {
  if (rank != 1 % size)
    return;
  long *out = dev_get(c->r, N * sizeof *out);
  for (int i = 0; i < N; i++) {
    long want = 0;
    for (int q = 0; q < size; q++)
      want += (long)ivalk(q, i, k) * 100000L;
    CHECK(out[i] == want);
  }
  free(out);
}

/* ---- reduce_scatter_block: MIN on float ---- */
static int start_rsb(coll_case_t *c, int persist, MPI_Request *req) {
  return persist
             ? MPI_Reduce_scatter_block_init(c->s, c->r, N, MPI_FLOAT, MPI_MIN,
                                             MPI_COMM_WORLD, MPI_INFO_NULL, req)
             : MPI_Ireduce_scatter_block(c->s, c->r, N, MPI_FLOAT, MPI_MIN,
                                         MPI_COMM_WORLD, req);
}
static void check_rsb(coll_case_t *c, int k) {
  float *out = dev_get(c->r, N * sizeof *out);
  for (int i = 0; i < N; i++) {
    float want = fvk(0, rank * N + i, k);
    for (int q = 1; q < size; q++)
      if (fvk(q, rank * N + i, k) < want)
        want = fvk(q, rank * N + i, k);
    CHECK(out[i] == want);
  }
  free(out);
}

/* ---- bcast: bytes from the last rank ---- */
static void fill_bytes(coll_case_t *c, int k) {
  unsigned char *b = malloc(c->rbytes);
  for (size_t i = 0; i < c->rbytes; i++)
    b[i] = rank == size - 1 ? (unsigned char)(i * 7 + 3 + k) : 0xee;
  dev_set(c->r, b, c->rbytes);
  free(b);
}
static int start_bcast(coll_case_t *c, int persist, MPI_Request *req) {
  int n = (int)c->rbytes;
  return persist ? MPI_Bcast_init(c->r, n, MPI_BYTE, size - 1, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, req)
                 : MPI_Ibcast(c->r, n, MPI_BYTE, size - 1, MPI_COMM_WORLD, req);
}
static void check_bcast(coll_case_t *c, int k) {
  unsigned char *out = dev_get(c->r, c->rbytes);
  for (size_t i = 0; i < c->rbytes; i++)
    CHECK(out[i] == (unsigned char)(i * 7 + 3 + k));
  free(out);
}

/* ---- allgather: N ints a rank ---- */
static int start_allgather(coll_case_t *c, int persist, MPI_Request *req) {
  return persist ? MPI_Allgather_init(c->s, N, MPI_INT, c->r, N, MPI_INT,
                                      MPI_COMM_WORLD, MPI_INFO_NULL, req)
                 : MPI_Iallgather(c->s, N, MPI_INT, c->r, N, MPI_INT,
                                  MPI_COMM_WORLD, req);
}
static void check_allgather(coll_case_t *c, int k) {
  int *out = dev_get(c->r, c->rbytes);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < N; i++)
      CHECK(out[q * N + i] == ivalk(q, i, k));
  free(out);
}

/* ---- alltoall: N / 10 ints to each rank; input i of block q ---- */
static void fill_a2a(coll_case_t *c, int k) {
  int b = N / 10, *in = malloc(c->sbytes);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < b; i++)
      in[q * b + i] = ivalk(rank, q * 1000 + i, k);
  dev_set(c->s, in, c->sbytes);
  free(in);
}
static int start_alltoall(coll_case_t *c, int persist, MPI_Request *req) {
  int b = N / 10;
  return persist ? MPI_Alltoall_init(c->s, b, MPI_INT, c->r, b, MPI_INT,
                                     MPI_COMM_WORLD, MPI_INFO_NULL, req)
                 : MPI_Ialltoall(c->s, b, MPI_INT, c->r, b, MPI_INT,
                                 MPI_COMM_WORLD, req);
}
static void check_alltoall(coll_case_t *c, int k) {
  int b = N / 10, *out = dev_get(c->r, c->rbytes);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < b; i++)
      CHECK(out[q * b + i] == ivalk(q, rank * 1000 + i, k));
  free(out);
}

/* ---- alltoallv: a2a_count(p, q) ints from p to q, packed in rank order */
static void fill_a2av(coll_case_t *c, int k) {
  int *in = malloc(c->sbytes);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < c->sc[q]; i++)
      in[c->sd[q] + i] = ivalk(rank, q * 1000 + i, k);
  dev_set(c->s, in, c->sbytes);
  free(in);
}
static int start_alltoallv(coll_case_t *c, int persist, MPI_Request *req) {
  return persist ? MPI_Alltoallv_init(c->s, c->sc, c->sd, MPI_INT, c->r, c->rc,
                                      c->rd, MPI_INT, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, req)
                 : MPI_Ialltoallv(c->s, c->sc, c->sd, MPI_INT, c->r, c->rc,
                                  c->rd, MPI_INT, MPI_COMM_WORLD, req);
}
static void check_alltoallv(coll_case_t *c, int k) {
  int *out = dev_get(c->r, c->rbytes);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < c->rc[q]; i++)
      CHECK(out[c->rd[q] + i] == ivalk(q, rank * 1000 + i, k));
  free(out);
}

static void case_bufs(coll_case_t *c, size_t sbytes, size_t rbytes) {
  c->sbytes = sbytes;
  c->rbytes = rbytes;
  c->s = sbytes > 0 ? dev_alloc(sbytes) : NULL;
  c->r = rbytes > 0 ? dev_alloc(rbytes) : NULL;
}

static void case_free(coll_case_t *c) {
  if (c->s != NULL)
    fa.free_dev(c->s);
  if (c->r != NULL)
    fa.free_dev(c->r);
}

/* Completes req by MPI_Wait, or by polling MPI_Test. */
static void finish(MPI_Request *req, int by_test) {
  MPI_Status st;
  if (!by_test) {
    CHECK(MPI_Wait(req, &st) == MPI_SUCCESS);
    return;
  }
  int done = 0;
  while (!done)
    CHECK(MPI_Test(req, &done, &st) == MPI_SUCCESS);
}

/* Rounds 0 and 1 as I-forms, 2 to 4 as starts of one persistent request. */
static void run_case(coll_case_t *c) {
  MPI_Request req;
  for (int k = 0; k < 2; k++) {
    c->fill(c, k);
    CHECK(c->start(c, 0, &req) == MPI_SUCCESS);
    finish(&req, k == 1);
    CHECK(req == MPI_REQUEST_NULL);
    HCCL_CALLS(1);
    c->check(c, k);
  }
  CHECK(c->start(c, 1, &req) == MPI_SUCCESS);
  NO_HCCL_CALLS(); /* the init agrees, runs nothing */
  for (int k = 2; k < 5; k++) {
    c->fill(c, k);
    CHECK(MPI_Start(&req) == MPI_SUCCESS);
    finish(&req, k == 3);
    CHECK(req != MPI_REQUEST_NULL);
    HCCL_CALLS(1);
    c->check(c, k);
  }
  CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
}

/* c as one collective's case (buffers set by case_bufs). */
static void case_set(coll_case_t *c, const char *name,
                     void (*fill)(coll_case_t *, int),
                     int (*start)(coll_case_t *, int, MPI_Request *),
                     void (*check)(coll_case_t *, int)) {
  memset(c, 0, sizeof *c);
  c->name = name;
  c->fill = fill;
  c->start = start;
  c->check = check;
}

static void t_cases(void) {
  coll_case_t c[7];
  size_t ints = N * sizeof(int), all = (size_t)size * ints;
  size_t longs = N * sizeof(long), floats = N * sizeof(float);
  size_t blocks = (size_t)size * (N / 10) * sizeof(int);
  case_set(&c[0], "allreduce", fill_ints, start_allreduce, check_allreduce);
  case_bufs(&c[0], ints, ints);
  case_set(&c[1], "reduce", fill_longs, start_reduce, check_reduce);
  case_bufs(&c[1], longs, rank == 1 % size ? longs : 0);
  case_set(&c[2], "reduce_scatter_block", fill_ints, start_rsb, check_rsb);
  c[2].floats = 1;
  case_bufs(&c[2], (size_t)size * floats, floats);
  case_set(&c[3], "bcast", fill_bytes, start_bcast, check_bcast);
  case_bufs(&c[3], 0, 3000);
  case_set(&c[4], "allgather", fill_ints, start_allgather, check_allgather);
  case_bufs(&c[4], ints, all);
  case_set(&c[5], "alltoall", fill_a2a, start_alltoall, check_alltoall);
  case_bufs(&c[5], blocks, blocks);
  case_set(&c[6], "alltoallv", fill_a2av, start_alltoallv, check_alltoallv);
  int st = 0, rt = 0;
  for (int q = 0; q < size; q++) {
    c[6].sc[q] = a2a_count(rank, q);
    c[6].rc[q] = a2a_count(q, rank);
    c[6].sd[q] = st;
    c[6].rd[q] = rt;
    st += c[6].sc[q];
    rt += c[6].rc[q];
  }
  case_bufs(&c[6], (size_t)st * sizeof(int), (size_t)rt * sizeof(int));
  for (int i = 0; i < 7; i++) {
    run_case(&c[i]);
    case_free(&c[i]);
  }
}

/* Two persistent requests started in opposite orders on even and odd
 * ranks, and two I-forms outstanding together. */
static void t_orders(void) {
  coll_case_t a, b;
  case_set(&a, "allreduce", fill_ints, start_allreduce, check_allreduce);
  case_set(&b, "bcast", fill_bytes, start_bcast, check_bcast);
  case_bufs(&a, N * sizeof(int), N * sizeof(int));
  case_bufs(&b, 0, 2000);
  MPI_Request req[2];
  CHECK(a.start(&a, 1, &req[0]) == MPI_SUCCESS);
  CHECK(b.start(&b, 1, &req[1]) == MPI_SUCCESS);
  for (int k = 0; k < 3; k++) {
    a.fill(&a, k);
    b.fill(&b, k);
    CHECK(MPI_Start(&req[rank % 2]) == MPI_SUCCESS);
    CHECK(MPI_Start(&req[1 - rank % 2]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    HCCL_CALLS(2);
    a.check(&a, k);
    b.check(&b, k);
  }
  CHECK(MPI_Request_free(&req[0]) == MPI_SUCCESS);
  CHECK(MPI_Request_free(&req[1]) == MPI_SUCCESS);
  a.fill(&a, 5);
  b.fill(&b, 5);
  CHECK(a.start(&a, 0, &req[0]) == MPI_SUCCESS);
  CHECK(b.start(&b, 0, &req[1]) == MPI_SUCCESS);
  CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  HCCL_CALLS(2);
  a.check(&a, 5);
  b.check(&b, 5);
  case_free(&a);
  case_free(&b);
}

/* What HCCL cannot run stages, with the same results and no HCCL call. */
static void t_staged(void) {
  MPI_Request req;
  /* MPI_PROD, as I-form and as persistent request. */
  int two[N], *prod;
  void *t2 = dev_alloc(sizeof two);
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < N; i++)
      two[i] = (i + k) % 3 == 0 ? -1 : 1;
    dev_set(t2, two, sizeof two);
    if (k == 0)
      CHECK(MPI_Iallreduce(MPI_IN_PLACE, t2, N, MPI_INT, MPI_PROD,
                           MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    else if (k == 1)
      CHECK(MPI_Allreduce_init(MPI_IN_PLACE, t2, N, MPI_INT, MPI_PROD,
                               MPI_COMM_WORLD, MPI_INFO_NULL,
                               &req) == MPI_SUCCESS);
    if (k > 0)
      CHECK(MPI_Start(&req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    NO_HCCL_CALLS();
    prod = dev_get(t2, sizeof two);
    for (int i = 0; i < N; i++)
      CHECK(prod[i] == ((i + k) % 3 == 0 && size % 2 == 1 ? -1 : 1));
    free(prod);
  }
  CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
  fa.free_dev(t2);

  vector_bcast(1);

  /* Rank 0's send buffer on the host, the others' on the device: every
   * rank stages, agreed while the I-form runs, or at the init. */
  int in[N];
  void *s = dev_alloc(sizeof in), *r = dev_alloc(sizeof in);
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < N; i++)
      in[i] = ivalk(rank, i, k);
    dev_set(s, in, sizeof in);
    void *hs = rank == 0 ? (void *)in : s;
    if (k == 0)
      CHECK(MPI_Iallreduce(hs, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) ==
            MPI_SUCCESS);
    else if (k == 1)
      CHECK(MPI_Allreduce_init(hs, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req) == MPI_SUCCESS);
    if (k > 0)
      CHECK(MPI_Start(&req) == MPI_SUCCESS);
    finish(&req, k == 0);
    NO_HCCL_CALLS();
    check_int_sums_k(r, k);
  }
  CHECK(MPI_Request_free(&req) == MPI_SUCCESS);

  /* A communicator without its HcclComm: the I-form stages (making one
   * would block); a blocking call makes it, and the next I-form goes. */
  MPI_Comm dup;
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < N; i++)
      in[i] = ivalk(rank, i, k);
    dev_set(s, in, sizeof in);
    if (k == 1) {
      CHECK(MPI_Allreduce(s, r, N, MPI_INT, MPI_SUM, dup) == MPI_SUCCESS);
    } else {
      CHECK(MPI_Iallreduce(s, r, N, MPI_INT, MPI_SUM, dup, &req) ==
            MPI_SUCCESS);
      CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    HCCL_CALLS(k > 0 ? 1 : 0);
    check_int_sums_k(r, k);
  }
  CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
  /* A persistent init may block: it makes a fresh communicator's. */
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
  CHECK(MPI_Allreduce_init(s, r, N, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL,
                           &req) == MPI_SUCCESS);
  NO_HCCL_CALLS();
  for (int k = 3; k < 5; k++) {
    for (int i = 0; i < N; i++)
      in[i] = ivalk(rank, i, k);
    dev_set(s, in, sizeof in);
    CHECK(MPI_Start(&req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    HCCL_CALLS(1);
    check_int_sums_k(r, k);
  }
  CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
  CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
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
  t_cases();
  t_orders();
  t_staged();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("device_hccl_coll: %d ranks OK\n", size);
  MPI_Finalize();
  return 0;
}

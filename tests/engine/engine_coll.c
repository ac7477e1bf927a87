/*
 * Engine collectives over hcomm.h only: barrier, bcast, reduce, allreduce,
 * gather and allgather on the world, on a split communicator whose ranks run
 * in reverse world order, and on self; counts 0, 1, 7, 1000, 100000 and
 * 1 Mi + 3 elements; every root kind; HCOMM_IN_PLACE; a commutative sum and
 * a non-commutative 2x2 matrix product whose result proves rank order.
 * Every result is compared with a serial reference computed here.  Any rank
 * count works, 1 included.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hcomm.h"

static int world_rank;

static void require(int ok, const char *what, const char *where) {
  if (ok)
    return;
  fprintf(stderr, "rank %d: FAILED %s (%s)\n", world_rank, what, where);
  hcomm_abort(1, what);
}

static void require_ok(hc_status_t rc, const char *what) {
  if (rc == HC_OK)
    return;
  fprintf(stderr, "rank %d: %s: %s\n", world_rank, what, hcomm_strerror(rc));
  hcomm_abort(1, what);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  require(p != NULL, "malloc", "xmalloc");
  return p;
}

static const size_t counts[] = {0, 1, 7, 1000, 100000, ((size_t)1 << 20) + 3};
#define NCOUNTS (sizeof counts / sizeof counts[0])

/* ---- data and ops -------------------------------------------------------- */

static int32_t value32(int rank, size_t i, int salt) {
  return (int32_t)((uint32_t)rank * 2654435761u + (uint32_t)i * 40503u +
                   (uint32_t)salt * 97u);
}

static int64_t value64(int rank, size_t i) {
  return (int64_t)(rank + 1) * 1000003 + (int64_t)(i % 65521) - 30000;
}

static void op_sum_i64(const void *in, void *inout, size_t count, void *ctx) {
  const int64_t *a = in;
  int64_t *b = inout;
  (void)ctx;
  for (size_t i = 0; i < count; i++)
    b[i] = a[i] + b[i];
}

typedef struct {
  uint32_t m[4];
} mat2_t;

static void mat2_mul(const mat2_t *a, const mat2_t *b, mat2_t *out) {
  mat2_t r;
  r.m[0] = a->m[0] * b->m[0] + a->m[1] * b->m[2];
  r.m[1] = a->m[0] * b->m[1] + a->m[1] * b->m[3];
  r.m[2] = a->m[2] * b->m[0] + a->m[3] * b->m[2];
  r.m[3] = a->m[2] * b->m[1] + a->m[3] * b->m[3];
  *out = r;
}

/* inout = in x inout: the engine passes the lower ranks' part as in. */
static void op_mat2(const void *in, void *inout, size_t count, void *ctx) {
  const mat2_t *a = in;
  mat2_t *b = inout;
  (void)ctx;
  for (size_t i = 0; i < count; i++)
    mat2_mul(&a[i], &b[i], &b[i]);
}

static mat2_t mat2_of(int rank, size_t i) {
  mat2_t x = {{(uint32_t)rank + 2, (uint32_t)(i % 5) + 1,
               (uint32_t)(rank * 3 + 1), (uint32_t)(i % 3)}};
  return x;
}

static const hcomm_reduce_op_t sum_op = {op_sum_i64, NULL, sizeof(int64_t), 1};
static const hcomm_reduce_op_t mat_op = {op_mat2, NULL, sizeof(mat2_t), 0};

static void check_sum(const int64_t *v, size_t n, int size, const char *what) {
  for (size_t i = 0; i < n; i++) {
    int64_t want = 0;
    for (int r = 0; r < size; r++)
      want += value64(r, i);
    require(v[i] == want, "sum matches the serial reference", what);
  }
}

/* M0 x M1 x ... x M(p-1), element by element. */
static void check_mat(const mat2_t *v, size_t n, int size, const char *what) {
  for (size_t i = 0; i < n; i++) {
    mat2_t want = mat2_of(0, i);
    for (int r = 1; r < size; r++) {
      mat2_t m = mat2_of(r, i);
      mat2_mul(&want, &m, &want);
    }
    require(memcmp(&want, &v[i], sizeof want) == 0,
            "matrix product in rank order", what);
  }
}

/* ---- collectives --------------------------------------------------------- */

/* Roots worth trying: first, last, middle. */
static int roots_of(int size, int *roots) {
  int n = 0;
  roots[n++] = 0;
  if (size > 1)
    roots[n++] = size - 1;
  if (size > 2)
    roots[n++] = size / 2;
  return n;
}

static void test_bcast(hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm), me = hcomm_comm_rank(comm), roots[3];
  int nroots = roots_of(size, roots);
  for (size_t k = 0; k < NCOUNTS; k++) {
    size_t n = counts[k];
    int32_t *buf = xmalloc(n * sizeof *buf);
    for (int j = 0; j < nroots; j++) {
      int root = roots[j];
      for (size_t i = 0; i < n; i++)
        buf[i] = me == root ? value32(root, i, 1) : -1;
      require_ok(hcomm_bcast(buf, n * sizeof *buf, root, comm), "bcast");
      for (size_t i = 0; i < n; i++)
        require(buf[i] == value32(root, i, 1), "bcast data", "bcast");
    }
    free(buf);
  }
}

static void fill_contrib(int64_t *s, mat2_t *m, int me, size_t n) {
  for (size_t i = 0; i < n; i++) {
    s[i] = value64(me, i);
    m[i] = mat2_of(me, i);
  }
}

static void test_reduce(hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm), me = hcomm_comm_rank(comm), roots[3];
  int nroots = roots_of(size, roots);
  for (size_t k = 0; k < NCOUNTS; k++) {
    size_t n = counts[k];
    int64_t *s = xmalloc(n * sizeof *s), *r = xmalloc(n * sizeof *r);
    mat2_t *ms = xmalloc(n * sizeof *ms), *mr = xmalloc(n * sizeof *mr);
    for (int j = 0; j < nroots; j++) {
      int root = roots[j], in_place = me == root && j % 2 == 1;
      fill_contrib(in_place ? r : s, in_place ? mr : ms, me, n);
      require_ok(hcomm_reduce(in_place ? HCOMM_IN_PLACE : s, r, n, &sum_op,
                              root, comm),
                 "reduce sum");
      require_ok(hcomm_reduce(in_place ? HCOMM_IN_PLACE : ms, mr, n, &mat_op,
                              root, comm),
                 "reduce matrix");
      if (me == root) {
        check_sum(r, n, size, "reduce");
        check_mat(mr, n, size, "reduce");
      }
    }
    free(s);
    free(r);
    free(ms);
    free(mr);
  }
}

static void test_allreduce(hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm), me = hcomm_comm_rank(comm);
  for (size_t k = 0; k < NCOUNTS; k++) {
    size_t n = counts[k];
    int in_place = k % 2;
    int64_t *s = xmalloc(n * sizeof *s), *r = xmalloc(n * sizeof *r);
    mat2_t *ms = xmalloc(n * sizeof *ms), *mr = xmalloc(n * sizeof *mr);
    fill_contrib(in_place ? r : s, in_place ? mr : ms, me, n);
    require_ok(
        hcomm_allreduce(in_place ? HCOMM_IN_PLACE : s, r, n, &sum_op, comm),
        "allreduce sum");
    require_ok(
        hcomm_allreduce(in_place ? HCOMM_IN_PLACE : ms, mr, n, &mat_op, comm),
        "allreduce matrix");
    check_sum(r, n, size, "allreduce");
    check_mat(mr, n, size, "allreduce");
    free(s);
    free(r);
    free(ms);
    free(mr);
  }
}

static void check_blocks(const int32_t *buf, size_t n, int size, int salt,
                         const char *what) {
  for (int r = 0; r < size; r++)
    for (size_t i = 0; i < n; i++)
      require(buf[(size_t)r * n + i] == value32(r, i, salt),
              "block of each rank in rank order", what);
}

static void test_gather(hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm), me = hcomm_comm_rank(comm), roots[3];
  int nroots = roots_of(size, roots);
  for (size_t k = 0; k < NCOUNTS; k++) {
    size_t n = counts[k], bytes = n * sizeof(int32_t);
    int32_t *s = xmalloc(bytes);
    for (int j = 0; j < nroots; j++) {
      int root = roots[j], in_place = me == root && j % 2 == 1;
      int32_t *r = me == root ? xmalloc(bytes * (size_t)size) : NULL;
      int32_t *mine = in_place ? r + (size_t)me * n : s;
      for (size_t i = 0; i < n; i++)
        mine[i] = value32(me, i, root);
      require_ok(
          hcomm_gather(in_place ? HCOMM_IN_PLACE : s, bytes, r, root, comm),
          "gather");
      if (me == root)
        check_blocks(r, n, size, root, "gather");
      free(r);
    }
    free(s);
  }
}

static void test_allgather(hcomm_comm_t *comm) {
  int size = hcomm_comm_size(comm), me = hcomm_comm_rank(comm);
  for (size_t k = 0; k < NCOUNTS; k++) {
    size_t n = counts[k], bytes = n * sizeof(int32_t);
    int in_place = k % 2;
    int32_t *s = xmalloc(bytes), *r = xmalloc(bytes * (size_t)size);
    int32_t *mine = in_place ? r + (size_t)me * n : s;
    for (size_t i = 0; i < n; i++)
      mine[i] = value32(me, i, 5);
    require_ok(hcomm_allgather(in_place ? HCOMM_IN_PLACE : s, bytes, r, comm),
               "allgather");
    check_blocks(r, n, size, 5, "allgather");
    free(s);
    free(r);
  }
}

/* ---- barrier: proven with files, not timings ----------------------------- */

/* Each member creates a file before the barrier; after it every member must
 * see the files of all members. */
static void test_barrier(hcomm_comm_t *comm, const char *dir, const char *tag) {
  int size = hcomm_comm_size(comm), me = hcomm_comm_rank(comm);
  char path[512];
  for (int round = 0; round < 3; round++) {
    snprintf(path, sizeof path, "%s/%s-%d-%d", dir, tag, round, me);
    FILE *f = fopen(path, "w");
    require(f != NULL, "create barrier file", path);
    fclose(f);
    require_ok(hcomm_barrier(comm), "barrier");
    for (int r = 0; r < size; r++) {
      snprintf(path, sizeof path, "%s/%s-%d-%d", dir, tag, round, r);
      require(access(path, F_OK) == 0, "every member arrived first", path);
    }
  }
  /* Nobody removes a file another member may still look for. */
  require_ok(hcomm_barrier(comm), "barrier");
  for (int round = 0; round < 3; round++) {
    snprintf(path, sizeof path, "%s/%s-%d-%d", dir, tag, round, me);
    unlink(path);
  }
}

static void test_bad_root(hcomm_comm_t *comm) {
  int64_t v = 0;
  int size = hcomm_comm_size(comm);
  require(hcomm_bcast(&v, sizeof v, size, comm) == HC_ERR_RANK,
          "root out of range is HC_ERR_RANK", "bcast");
  require(hcomm_reduce(&v, &v, 1, &sum_op, -1, comm) == HC_ERR_RANK,
          "root out of range is HC_ERR_RANK", "reduce");
}

static void run_all(hcomm_comm_t *comm, const char *dir, const char *tag) {
  test_barrier(comm, dir, tag);
  test_bcast(comm);
  test_reduce(comm);
  test_allreduce(comm);
  test_gather(comm);
  test_allgather(comm);
  test_bad_root(comm);
  require_ok(hcomm_barrier(comm), "final barrier");
}

/* Rank 0 makes a scratch directory and tells the others its name. */
static void make_scratch(hcomm_comm_t *world, char *dir, size_t len) {
  memset(dir, 0, len);
  if (hcomm_comm_rank(world) == 0) {
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, len, "%s/hcmpi-coll-XXXXXX", base);
    require(mkdtemp(dir) != NULL, "mkdtemp", dir);
  }
  require_ok(hcomm_bcast(dir, len, 0, world), "bcast scratch name");
}

int main(void) {
  int provided;
  char dir[256];
  require_ok(hcomm_init(HCOMM_THREAD_SINGLE, &provided), "init");
  hcomm_comm_t *world = hcomm_comm_world(), *sub = NULL;
  world_rank = hcomm_comm_rank(world);
  int size = hcomm_comm_size(world);
  make_scratch(world, dir, sizeof dir);

  /* Halves by parity, in reverse world order: comm rank != world rank. */
  require_ok(hcomm_comm_split(world, world_rank % 2, size - world_rank, &sub),
             "split");
  require(sub != NULL, "split gives a communicator", "split");
  require(hcomm_comm_size(sub) == (size + 1 - world_rank % 2) / 2, "split size",
          "split");

  run_all(world, dir, "world");
  char tag[32];
  snprintf(tag, sizeof tag, "sub%d", world_rank % 2);
  run_all(sub, dir, tag);
  snprintf(tag, sizeof tag, "self%d", world_rank);
  run_all(hcomm_comm_self(), dir, tag);

  require_ok(hcomm_comm_free(sub), "comm_free");
  require_ok(hcomm_barrier(world), "barrier before cleanup");
  if (world_rank == 0)
    require(rmdir(dir) == 0 || errno == ENOENT, "scratch dir empty", dir);
  if (world_rank == 0)
    printf("engine_coll: %d ranks OK\n", size);
  require_ok(hcomm_finalize(), "finalize");
  return 0;
}

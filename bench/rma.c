/* One-sided communication between pairs (-c NAME): rank i < N/2 is the
 * origin, rank i + N/2 the target, over one MPI_Win_allocate window.
 *   put_lock, get_lock        latency: lock (exclusive), one operation,
 *                             unlock, per iteration
 *   put_lock_shared           the same as put_lock with a shared lock
 *   put_fence, get_fence      latency: one operation, then MPI_Win_fence
 *                             on every rank, per iteration
 *   put_bw_lock, get_bw_lock  bandwidth: lock, a window of operations
 *                             (-W, default 32) on the same target bytes,
 *                             unlock
 *   put_bw_fence, get_bw_fence  the same between two fences
 *   put_pscw, get_pscw        latency: the target posts, the origin starts,
 *                             does one operation and completes, the target
 *                             waits, per iteration
 *   put_bw_pscw, get_bw_pscw  the same with a window of operations
 *   acc_bw_flush_local        bandwidth: lock_all, a window of MPI_SUM
 *                             accumulates of signed chars each followed by
 *                             MPI_Win_flush_local, unlock_all, over an
 *                             MPI_Win_create window (the pattern of MPICH's
 *                             rma/large_acc_flush_local; docs/rma.md)
 *   fetch_and_op, cas, accumulate  latency of one 8-byte MPI_Fetch_and_op
 *                             (MPI_SUM of a long), MPI_Compare_and_swap or
 *                             MPI_Accumulate (MPI_SUM), each followed by
 *                             MPI_Win_flush, inside one lock_all epoch
 * BENCH_RMA_WINDOW=create makes a host window an MPI_Win_create one
 * (over verbs: accumulates as active messages), and =create_nic one whose
 * info declares hcmpi's NIC atomics contract (docs/rma.md: over verbs,
 * device atomics); by default MPI_Win_allocate.
 * Latencies are per operation (us), medians over repetitions of each
 * origin's mean; bandwidths are MB/s (10^6 B/s) of the origin.
 *
 * Device memory (examples/devbuf.c: aclrtMalloc or cuMemAlloc of the
 * runtime named, dlopen()ed like hcmpi does, never touched on the host):
 *   --device npu|cuda   the window and the origin buffers (atomics'
 *                       operands and results included) in device memory;
 *                       the window is MPI_Win_create over it
 *   --host-origin       origin buffers in host memory all the same
 *   --win-alloc         the window from MPI_Win_allocate with the MPI-4.1
 *                       info key mpi_memory_alloc_kinds (ascend:device or
 *                       cuda:device), which only an MPI allocating device
 *                       memory for it honours
 * Device runs name their cases NAME_dev (device origins) or NAME_h2dev
 * (host origins) and add mem=ORIGIN/WINDOW to each line.
 *
 * Output, one line per size:
 *   bench=NAME ranks=N size=B median_us=.. min_us=.. p90_us=.. reps iters
 *   bench=NAME ranks=N size=B median_MBps=.. min_MBps=.. ... */
#include "common.h"
#include "devbuf.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char rma_usage[] =
    "  -c NAME    put_lock, get_lock, put_fence, get_fence, put_bw_lock,\n"
    "             get_bw_lock, put_bw_fence, get_bw_fence, fetch_and_op,\n"
    "             cas, accumulate, acc_bw_flush_local, put_lock_shared,\n"
    "             put_pscw, get_pscw, put_bw_pscw, get_bw_pscw\n"
    "  --device npu|cuda  device window and origin buffers\n"
    "  --host-origin      with --device: origin buffers in host memory\n"
    "  --win-alloc        with --device: MPI_Win_allocate with\n"
    "                     mpi_memory_alloc_kinds, not MPI_Win_create\n";

enum rma_case {
  RMA_PUT_LOCK,
  RMA_GET_LOCK,
  RMA_PUT_FENCE,
  RMA_GET_FENCE,
  RMA_PUT_BW_LOCK,
  RMA_GET_BW_LOCK,
  RMA_PUT_BW_FENCE,
  RMA_GET_BW_FENCE,
  RMA_FETCH_AND_OP,
  RMA_CAS,
  RMA_ACCUMULATE,
  RMA_ACC_BW_FLUSH_LOCAL,
  RMA_PUT_LOCK_SHARED,
  RMA_PUT_PSCW,
  RMA_GET_PSCW,
  RMA_PUT_BW_PSCW,
  RMA_GET_BW_PSCW
};

static const char *const rma_names[] = {
    "put_lock",       "get_lock",    "put_fence",    "get_fence",
    "put_bw_lock",    "get_bw_lock", "put_bw_fence", "get_bw_fence",
    "fetch_and_op",   "cas",         "accumulate",   "acc_bw_flush_local",
    "put_lock_shared", "put_pscw",    "get_pscw",     "put_bw_pscw",
    "get_bw_pscw"};

typedef struct rma_bench {
  enum rma_case which;
  enum bench_role role;
  int peer, nranks, window;
  MPI_Group peer_group; /* the peer alone, for post and start */
  char *buf; /* origin data or get destination */
  /* The atomics' operand, compare value and result: host variables, or
   * device memory with --device (without --host-origin). */
  long *one, *expect, *old;
  MPI_Win win;
} rma_bench_t;

/* Where the memory lives (--device, --host-origin, --win-alloc). */
typedef struct rma_memory {
  const char *device; /* NULL: host memory only */
  int origin_device, win_alloc;
  char name[64]; /* the case name printed */
} rma_memory_t;

/* Takes the device flags out of argv (before bench_parse sees it). */
static int rma_memory_options(int *argc, char **argv, rma_memory_t *m) {
  m->device = devbuf_option(argc, argv);
  int out = 1;
  for (int i = 1; i < *argc; i++) {
    if (strcmp(argv[i], "--host-origin") == 0)
      m->origin_device = -1;
    else if (strcmp(argv[i], "--win-alloc") == 0)
      m->win_alloc = 1;
    else
      argv[out++] = argv[i];
  }
  *argc = out;
  argv[out] = NULL;
  if (m->device != NULL && strcmp(m->device, "host") == 0)
    m->device = NULL;
  m->origin_device = m->device != NULL && m->origin_device == 0;
  return m->device == NULL || devbuf_init(m->device, 0) == 0 ? 0 : -1;
}

/* Origin memory: device memory with --device, else a host buffer. */
static void *rma_origin_alloc(const rma_memory_t *m, size_t bytes) {
  return m->origin_device ? devbuf_alloc(bytes) : bench_alloc(bytes);
}

static void rma_origin_free(const rma_memory_t *m, void *p) {
  if (m->origin_device)
    devbuf_free(p);
  else
    free(p);
}

/* Stores v in an origin long, wherever it lives. */
static void rma_origin_set(const rma_memory_t *m, long *at, long v) {
  if (m->origin_device)
    devbuf_put(at, &v, sizeof v);
  else
    *at = v;
}

static int rma_is_get(enum rma_case c) {
  return c == RMA_GET_LOCK || c == RMA_GET_FENCE || c == RMA_GET_BW_LOCK ||
         c == RMA_GET_BW_FENCE || c == RMA_GET_PSCW || c == RMA_GET_BW_PSCW;
}

static int rma_is_pscw(enum rma_case c) {
  return c == RMA_PUT_PSCW || c == RMA_GET_PSCW || c == RMA_PUT_BW_PSCW ||
         c == RMA_GET_BW_PSCW;
}

static int rma_is_fence(enum rma_case c) {
  return c == RMA_PUT_FENCE || c == RMA_GET_FENCE || c == RMA_PUT_BW_FENCE ||
         c == RMA_GET_BW_FENCE;
}

static int rma_is_bw(enum rma_case c) {
  return c == RMA_PUT_BW_LOCK || c == RMA_GET_BW_LOCK ||
         c == RMA_PUT_BW_FENCE || c == RMA_GET_BW_FENCE ||
         c == RMA_PUT_BW_PSCW || c == RMA_GET_BW_PSCW ||
         c == RMA_ACC_BW_FLUSH_LOCAL;
}

static int rma_is_atomic(enum rma_case c) {
  return c == RMA_FETCH_AND_OP || c == RMA_CAS || c == RMA_ACCUMULATE;
}

static void rma_transfer(rma_bench_t *b, size_t size) {
  int n = (int)size;
  if (b->which == RMA_ACC_BW_FLUSH_LOCAL) {
    bench_check(MPI_Accumulate(b->buf, n, MPI_SIGNED_CHAR, b->peer, 0, n,
                               MPI_SIGNED_CHAR, MPI_SUM, b->win),
                "MPI_Accumulate");
    bench_check(MPI_Win_flush_local(b->peer, b->win), "MPI_Win_flush_local");
  } else if (rma_is_get(b->which))
    bench_check(MPI_Get(b->buf, n, MPI_BYTE, b->peer, 0, n, MPI_BYTE, b->win),
                "MPI_Get");
  else
    bench_check(MPI_Put(b->buf, n, MPI_BYTE, b->peer, 0, n, MPI_BYTE, b->win),
                "MPI_Put");
}

static void rma_atomic(rma_bench_t *b) {
  switch (b->which) {
  case RMA_FETCH_AND_OP:
    bench_check(
        MPI_Fetch_and_op(b->one, b->old, MPI_LONG, b->peer, 0, MPI_SUM, b->win),
        "MPI_Fetch_and_op");
    break;
  case RMA_CAS:
    bench_check(MPI_Compare_and_swap(b->one, b->expect, b->old, MPI_LONG,
                                     b->peer, 0, b->win),
                "MPI_Compare_and_swap");
    break;
  default:
    bench_check(MPI_Accumulate(b->one, 1, MPI_LONG, b->peer, 0, 1, MPI_LONG,
                               MPI_SUM, b->win),
                "MPI_Accumulate");
  }
  bench_check(MPI_Win_flush(b->peer, b->win), "MPI_Win_flush");
}

/* One iteration: ops operations inside their synchronisation.  Fence
 * cases involve every rank; the others only the origin. */
static void rma_iteration(rma_bench_t *b, size_t size, int ops) {
  int origin = b->role == BENCH_INITIATOR;
  if (rma_is_fence(b->which)) {
    for (int k = 0; origin && k < ops; k++)
      rma_transfer(b, size);
    bench_check(MPI_Win_fence(0, b->win), "MPI_Win_fence");
    return;
  }
  if (rma_is_pscw(b->which)) {
    if (!origin) {
      bench_check(MPI_Win_post(b->peer_group, 0, b->win), "MPI_Win_post");
      bench_check(MPI_Win_wait(b->win), "MPI_Win_wait");
      return;
    }
    bench_check(MPI_Win_start(b->peer_group, 0, b->win), "MPI_Win_start");
    for (int k = 0; k < ops; k++)
      rma_transfer(b, size);
    bench_check(MPI_Win_complete(b->win), "MPI_Win_complete");
    return;
  }
  if (!origin)
    return;
  if (rma_is_atomic(b->which)) {
    rma_atomic(b);
    return;
  }
  if (b->which == RMA_ACC_BW_FLUSH_LOCAL) {
    bench_check(MPI_Win_lock_all(0, b->win), "MPI_Win_lock_all");
    for (int k = 0; k < ops; k++)
      rma_transfer(b, size);
    bench_check(MPI_Win_unlock_all(b->win), "MPI_Win_unlock_all");
    return;
  }
  int type =
      b->which == RMA_PUT_LOCK_SHARED ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE;
  bench_check(MPI_Win_lock(type, b->peer, 0, b->win), "MPI_Win_lock");
  for (int k = 0; k < ops; k++)
    rma_transfer(b, size);
  bench_check(MPI_Win_unlock(b->peer, b->win), "MPI_Win_unlock");
}

/* One timed repetition; returns this rank's microseconds. */
static double rma_rep(rma_bench_t *b, size_t size, int iters, int ops) {
  int atomic = rma_is_atomic(b->which) && b->role == BENCH_INITIATOR;
  if (atomic)
    bench_check(MPI_Win_lock_all(0, b->win), "MPI_Win_lock_all");
  double t0 = bench_now_us();
  for (int i = 0; i < iters; i++)
    rma_iteration(b, size, ops);
  double t = bench_now_us() - t0;
  if (atomic)
    bench_check(MPI_Win_unlock_all(b->win), "MPI_Win_unlock_all");
  return t;
}

static void rma_size(rma_bench_t *b, const bench_opts_t *o,
                     const rma_memory_t *m, size_t size, int rank, double *vals,
                     double *gathered) {
  int bw = rma_is_bw(b->which);
  int ops = bw ? b->window : 1;
  int iters = bench_iters(o, size, 2);
  if (o->warmup > 0)
    rma_rep(b, size, o->warmup, ops);
  for (int r = 0; r < o->reps; r++) {
    bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    double us = rma_rep(b, size, iters, ops);
    /* Origins report; rank 0 is always one. */
    double mine = b->role == BENCH_INITIATOR
                      ? (bw ? (double)size * ops * iters / us
                            : us / ((double)iters * ops))
                      : 0.0;
    bench_gather_double(mine, gathered, rank, b->nranks);
    vals[r] = gathered[0];
  }
  if (rank != 0)
    return;
  bench_stats_t st;
  bench_stats(vals, o->reps, &st);
  if (bw)
    printf("bench=%s ranks=%d size=%zu median_MBps=%.2f min_MBps=%.2f "
           "max_MBps=%.2f reps=%d iters=%d window=%d",
           m->name, b->nranks, size, st.median, st.min, st.max, o->reps, iters,
           ops);
  else
    printf("bench=%s ranks=%d size=%zu median_us=%.3f min_us=%.3f "
           "p90_us=%.3f reps=%d iters=%d",
           m->name, b->nranks, size, st.median, st.min, st.p90, o->reps, iters);
  if (m->device != NULL)
    printf(" mem=%s/%s-%s", m->origin_device ? m->device : "host", m->device,
           m->win_alloc ? "alloc" : "create");
  printf("\n");
  fflush(stdout);
}

/* The window over max bytes: host memory from MPI_Win_allocate (or
 * MPI_Win_create for acc_bw_flush_local), or device memory; *own is what
 * to free after MPI_Win_free. */
/* BENCH_RMA_WINDOW=create or create_nic: a host window from
 * MPI_Win_create, for create_nic with the NIC atomics contract in *info
 * (docs/rma.md; free it after the window's creation). */
static int rma_env_create(MPI_Info *info) {
  const char *kind = getenv("BENCH_RMA_WINDOW");
  *info = MPI_INFO_NULL;
  if (kind != NULL && strcmp(kind, "create_nic") == 0) {
    MPI_Info_create(info);
    MPI_Info_set(*info, "hcmpi_accumulate_types", "int64");
    MPI_Info_set(*info, "which_accumulate_ops", "sum,replace,no_op,cswap");
  }
  return *info != MPI_INFO_NULL ||
         (kind != NULL && strcmp(kind, "create") == 0);
}

static void rma_window(rma_bench_t *b, const rma_memory_t *m, size_t max,
                       void **own) {
  void *mem = NULL;
  MPI_Info host_info = MPI_INFO_NULL;
  int created = 0;
  *own = NULL;
  if (m->device != NULL && m->win_alloc) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_memory_alloc_kinds",
                 strcmp(m->device, "cuda") == 0 ? "cuda:device"
                                                : "ascend:device");
    bench_check(
        MPI_Win_allocate((MPI_Aint)max, 1, info, MPI_COMM_WORLD, &mem, &b->win),
        "MPI_Win_allocate");
    MPI_Info_free(&info);
  } else if (m->device != NULL)
    bench_check(MPI_Win_create(mem = devbuf_alloc(max), (MPI_Aint)max, 1,
                               MPI_INFO_NULL, MPI_COMM_WORLD, &b->win),
                "MPI_Win_create");
  else if ((created = b->which == RMA_ACC_BW_FLUSH_LOCAL || /* not a mapping */
                      rma_env_create(&host_info)))
    bench_check(MPI_Win_create(mem = bench_alloc(max), (MPI_Aint)max, 1,
                               host_info, MPI_COMM_WORLD, &b->win),
                "MPI_Win_create");
  else
    bench_check(MPI_Win_allocate((MPI_Aint)max, 1, MPI_INFO_NULL,
                                 MPI_COMM_WORLD, &mem, &b->win),
                "MPI_Win_allocate");
  if (host_info != MPI_INFO_NULL)
    MPI_Info_free(&host_info);
  if (m->device == NULL) {
    memset(mem, 0, max);
    *own = created ? mem : NULL;
    return;
  }
  char *zeros = calloc(1, max);
  devbuf_put(mem, zeros, max);
  free(zeros);
  *own = m->win_alloc ? NULL : mem;
}

int main(int argc, char **argv) {
  bench_opts_t o = {.reps = 11, .iters = 1000, .warmup = 10, .window = 32};
  int rank, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  bench_size_range(&o, 8, 8);
  rma_memory_t m = {0};
  if (rma_memory_options(&argc, argv, &m) != 0) {
    if (rank == 0)
      fprintf(stderr, "%s: no %s runtime\n", argv[0], m.device);
    MPI_Finalize();
    return 77;
  }
  int rc = bench_parse(argc, argv, &o, rma_usage);
  int ncalls = (int)(sizeof rma_names / sizeof rma_names[0]);
  int which =
      o.call != NULL ? bench_lookup(rma_names, ncalls, o.call) : RMA_PUT_LOCK;
  if (rc == 0 && (which < 0 || nranks < 2)) {
    if (rank == 0)
      fprintf(stderr, "%s: needs 2 ranks and one of -c\n%s", argv[0],
              rma_usage);
    rc = -1;
  }
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  rma_bench_t b = {.which = (enum rma_case)which,
                   .nranks = nranks,
                   .window = o.window > 0 ? o.window : 1};
  b.role = bench_pair(rank, nranks, &b.peer);
  MPI_Group world_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Group_incl(world_group, 1, &b.peer, &b.peer_group);
  MPI_Group_free(&world_group);
  snprintf(m.name, sizeof m.name, "%s%s", rma_names[which],
           m.device == NULL  ? ""
           : m.origin_device ? "_dev"
                             : "_h2dev");
  size_t max = bench_max_size(&o);
  if (max < sizeof(long))
    max = sizeof(long);
  b.buf = rma_origin_alloc(&m, max);
  long *atomics = rma_origin_alloc(&m, 3 * sizeof(long));
  b.one = atomics;
  b.expect = atomics + 1;
  b.old = atomics + 2;
  rma_origin_set(&m, b.one, 1);
  rma_origin_set(&m, b.expect, 0);
  rma_origin_set(&m, b.old, 0);
  void *own = NULL;
  rma_window(&b, &m, max, &own);
  bench_check(MPI_Win_fence(0, b.win), "MPI_Win_fence");
  double *vals = calloc((size_t)o.reps, sizeof(double));
  double *gathered = calloc((size_t)nranks, sizeof(double));
  if (rank == 0)
    bench_print_header(m.name, &o, nranks);
  for (int i = 0; i < o.nsizes; i++)
    rma_size(&b, &o, &m, o.sizes[i], rank, vals, gathered);
  bench_check(MPI_Win_fence(0, b.win), "MPI_Win_fence");
  bench_check(MPI_Win_free(&b.win), "MPI_Win_free");
  MPI_Group_free(&b.peer_group);
  if (own != NULL && m.device != NULL)
    devbuf_free(own);
  else
    free(own);
  free(gathered);
  free(vals);
  rma_origin_free(&m, atomics);
  rma_origin_free(&m, b.buf);
  MPI_Finalize();
  return 0;
}

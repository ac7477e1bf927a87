/*
 * One-sided communication with device memory: windows over device memory
 * (MPI_Win_create, and MPI_Win_create_dynamic with MPI_Win_attach) and
 * origin, compare and result buffers in device memory, from the CANN or
 * CUDA test double (DEVICE_P2P_ALLOC=cuda), whose device memory is
 * PROT_NONE to the process: any host load or store of it crashes.
 *
 * Every rank is the origin of put (contiguous, and a vector at both
 * ends), get, accumulate, get_accumulate, fetch_and_op and
 * compare_and_swap towards itself and towards the next rank, in a fence
 * epoch, a lock epoch and a PSCW epoch, for every combination of window
 * memory (host, device, attached device; host from MPI_Win_allocate,
 * a shared mapping on one node, with device origins) and origin memory
 * (host, device), plus a put and a get larger than an eager packet.
 * Device window memory also comes from MPI itself: MPI_Win_allocate and
 * MPI_Win_allocate_shared with mpi_memory_alloc_kinds "ascend:device" (or
 * "cuda:device"); MPI_WIN_BASE and MPI_Win_shared_query hand out device
 * pointers (a peer's segment read back through the device API from this
 * process's import), and MPI_Win_free frees the memory (a copy into it
 * fails afterwards).  Where the shared window cannot be whole (imports
 * off: DEVICE_RMA_PATHS message or rdma) allocate_shared must fail with
 * MPI_ERR_RMA_SHARED.  Each
 * target copies its window back to the host with the device API and
 * checks every int, the gaps of the vector included; each origin checks
 * what it fetched.  Any ranks >= 1.  Operations towards another local
 * rank's device window go by IPC where the double offers it (the script
 * checks the debug log says so).
 *
 * DEVICE_RMA_PATHS says which way operations must go, read from the
 * performance variables rma_direct_messages and rma_active_messages
 * around each origin's operations: "ipc": every operation towards the
 * next rank's device window (MPI_Win_create), from host and device
 * origins, accumulates included, moves directly; "rdma": its puts and
 * gets move directly (RDMA into the window's dma-buf registration) and
 * the rest are active messages; "message": every operation is an active
 * message.  Unset: not checked.
 *
 * Atomicity: every rank, the target included, adds into rank 0's device
 * window at once, ITERS times each, under MPI_Win_lock_all:
 * MPI_Accumulate(MPI_SUM) into one int, MPI_Fetch_and_op(MPI_SUM) into a
 * second, MPI_Get_accumulate(MPI_SUM) into a third, and a read and
 * MPI_Compare_and_swap loop incrementing a fourth.  Each must end at
 * exactly nranks * ITERS (read back with the device API), and the values
 * the fetch-and-adds returned, across all ranks, must all differ.
 *
 * Queued device copies: in a fence, a lock, a lock_all and a PSCW epoch
 * every rank puts QOPS single ints from device memory into the next
 * rank's device window, gets QOPS more into device memory and
 * accumulates QOPS host operands between them; in the lock modes a
 * flush_local is followed at once by a check of the gets, then puts,
 * a flush, accumulates into the same words, a flush and gets of them.
 * The gets are checked right after the closing call, the window with a
 * host Get in a new epoch and by the target itself.  MPI_Rget requests
 * complete with their bytes there, MPI_Rput ones once the origin buffer
 * may be overwritten, and puts right before MPI_Win_free land.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_api.h"
#include "mpi_check.h"

static int rank, nranks;
static fake_api_t fa;

/* ---- which way operations went ------------------------------------------ */

enum { PATHS_ANY, PATHS_IPC, PATHS_RDMA, PATHS_MESSAGE };
static int want_paths;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle h_direct, h_active;

typedef struct counts {
  unsigned long long direct, active;
} counts_t;

static int pvar_index(const char *name) {
  int index = -1;
  CHECK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index) ==
        MPI_SUCCESS);
  return index;
}

static void paths_open(void) {
  const char *p = getenv("DEVICE_RMA_PATHS");
  want_paths = p == NULL                   ? PATHS_ANY
               : strcmp(p, "ipc") == 0     ? PATHS_IPC
               : strcmp(p, "rdma") == 0    ? PATHS_RDMA
               : strcmp(p, "message") == 0 ? PATHS_MESSAGE
                                           : PATHS_ANY;
  if (want_paths == PATHS_ANY)
    return;
  int provided, count = 0;
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_handle_alloc(session, pvar_index("rma_direct_messages"),
                                NULL, &h_direct, &count) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_handle_alloc(session, pvar_index("rma_active_messages"),
                                NULL, &h_active, &count) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
}

static void paths_close(void) {
  if (want_paths == PATHS_ANY)
    return;
  MPI_T_pvar_session_free(&session);
  MPI_T_finalize();
}

static counts_t paths_read(void) {
  counts_t c = {0, 0};
  if (want_paths == PATHS_ANY)
    return c;
  CHECK(MPI_T_pvar_read(session, h_direct, &c.direct) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_read(session, h_active, &c.active) == MPI_SUCCESS);
  return c;
}

/* Since before, of the operations this rank issued, want_direct moved
 * directly and want_active as active messages. */
static void paths_expect(counts_t before, unsigned long long want_direct,
                         unsigned long long want_active, const char *what) {
  if (want_paths == PATHS_ANY)
    return;
  counts_t now = paths_read();
  unsigned long long direct = now.direct - before.direct;
  unsigned long long active = now.active - before.active;
  int ok = direct == want_direct && active == want_active;
  if (!ok)
    fprintf(stderr,
            "rank %d: %llu direct, %llu active, not %llu and %llu (%s)\n", rank,
            direct, active, want_direct, want_active, what);
  CHECK(ok);
}

/* One origin's part of a window, in ints. */
enum {
  PUT = 0,      /* 16 ints put */
  GET = 16,     /* 16 ints fetched by get */
  ACC = 32,     /* 16 ints MPI_SUM */
  GACC = 48,    /* 8 ints get_accumulate MPI_SUM */
  FOP = 56,     /* fetch_and_op MPI_SUM */
  CAS = 57,     /* compare_and_swap */
  VEC = 58,     /* a vector of 3 ints, stride 2: 58, 60, 62 */
  COMPARE = 70, /* origin buffer only: the compare value */
  BLOCK = 80,   /* ints of one origin's part */
  BIG = 16384   /* ints of the put and the get beyond an eager packet */
};

/* Window memory: malloc, device memory, device memory attached to a
 * dynamic window, MPI_Win_allocate (a shared mapping on one node), and
 * device memory from MPI_Win_allocate and MPI_Win_allocate_shared. */
enum {
  MEM_HOST,
  MEM_DEVICE,
  MEM_ATTACHED,
  MEM_ALLOCATED,
  MEM_DEV_ALLOCATED,
  MEM_DEV_SHARED,
  MEM_KINDS
};
enum { SYNC_FENCE, SYNC_LOCK, SYNC_PSCW, SYNCS };

static int *rma_alloc(int dev, size_t n) {
  int *p = fake_api_buf_alloc(&fa, dev, n * sizeof(int));
  CHECK(p != NULL);
  return p;
}

static void rma_free(int dev, int *p) { fake_api_buf_free(&fa, dev, p); }

static void rma_store(int dev, int *dst, const int *src, size_t n) {
  CHECK(fake_api_buf_store(&fa, dev, dst, src, n * sizeof(int)) == 0);
}

static void rma_load(int dev, int *dst, const int *src, size_t n) {
  CHECK(fake_api_buf_load(&fa, dev, dst, src, n * sizeof(int)) == 0);
}

/* A window's int i at target t before any operation. */
static int initial(int t, size_t i) { return t * 1000003 + (int)i; }
/* What origin o writes: put data, accumulate operands, the swap value. */
static int put_value(int o, int j) { return 50000 + o * 100 + j; }
static int acc_value(int o, int j) { return o + j + 1; }
static int gacc_value(int o, int j) { return o * 7 + j + 1; }
static int fop_value(int o) { return o + 3; }
static int swap_value(int o) { return -(o + 1); }
static int vec_value(int o, int k) { return 70000 + o * 10 + k; }
static int big_value(int o, int j) { return o * 3000017 + j * 3; }

static size_t window_ints(void) { return (size_t)nranks * (BLOCK + 2 * BIG); }
static size_t block_of(int o) { return (size_t)o * BLOCK; }
/* Origin o's big put, and the big region its get reads. */
static size_t big_put_of(int o) {
  return (size_t)nranks * BLOCK + (size_t)o * 2 * BIG;
}
static size_t big_get_of(int o) { return big_put_of(o) + BIG; }

/* The origin's data: in host memory (host) and where the case wants it
 * (buf); results land in res. */
typedef struct origin {
  int dev;
  int *buf, *res, *big, *big_res;
} origin_t;

static void origin_fill(origin_t *o, int target) {
  int host[BLOCK];
  for (int i = 0; i < BLOCK; i++)
    host[i] = -7;
  for (int j = 0; j < 16; j++) {
    host[PUT + j] = put_value(rank, j);
    host[ACC + j] = acc_value(rank, j);
  }
  for (int j = 0; j < 8; j++)
    host[GACC + j] = gacc_value(rank, j);
  host[FOP] = fop_value(rank);
  host[CAS] = swap_value(rank);
  host[COMPARE] = initial(target, block_of(rank) + CAS);
  for (int k = 0; k < 3; k++)
    host[VEC + 2 * k] = vec_value(rank, k);
  rma_store(o->dev, o->buf, host, BLOCK);
  for (int i = 0; i < BLOCK; i++)
    host[i] = -9;
  rma_store(o->dev, o->res, host, BLOCK);
  int *big = malloc(BIG * sizeof *big);
  CHECK(big != NULL);
  for (int j = 0; j < BIG; j++)
    big[j] = big_value(rank, j);
  rma_store(o->dev, o->big, big, BIG);
  free(big);
}

/* Every operation of this rank towards target t (an epoch is open).
 * Windows have displacement unit 1; base is where t's window starts (0,
 * or the attached memory's address in a dynamic window). */
static void origin_ops(origin_t *o, int t, MPI_Win win, MPI_Aint base,
                       MPI_Datatype vec, int big) {
#define DISP(i) (base + (MPI_Aint)((i) * sizeof(int)))
  size_t at = block_of(rank);
  CHECK(MPI_Put(o->buf + PUT, 16, MPI_INT, t, DISP(at + PUT), 16, MPI_INT,
                win) == 0);
  CHECK(MPI_Get(o->res + GET, 16, MPI_INT, t, DISP(at + GET), 16, MPI_INT,
                win) == 0);
  CHECK(MPI_Accumulate(o->buf + ACC, 16, MPI_INT, t, DISP(at + ACC), 16,
                       MPI_INT, MPI_SUM, win) == 0);
  CHECK(MPI_Get_accumulate(o->buf + GACC, 8, MPI_INT, o->res + GACC, 8, MPI_INT,
                           t, DISP(at + GACC), 8, MPI_INT, MPI_SUM, win) == 0);
  CHECK(MPI_Fetch_and_op(o->buf + FOP, o->res + FOP, MPI_INT, t, DISP(at + FOP),
                         MPI_SUM, win) == 0);
  CHECK(MPI_Compare_and_swap(o->buf + CAS, o->buf + COMPARE, o->res + CAS,
                             MPI_INT, t, DISP(at + CAS), win) == 0);
  CHECK(MPI_Put(o->buf + VEC, 1, vec, t, DISP(at + VEC), 1, vec, win) == 0);
  if (big) {
    CHECK(MPI_Put(o->big, BIG, MPI_INT, t, DISP(big_put_of(rank)), BIG, MPI_INT,
                  win) == 0);
    CHECK(MPI_Get(o->big_res, BIG, MPI_INT, t, DISP(big_get_of(rank)), BIG,
                  MPI_INT, win) == 0);
  }
#undef DISP
}

/* What this rank fetched from target t. */
static void origin_check(origin_t *o, int t, int big, const char *what) {
  int res[BLOCK];
  rma_load(o->dev, res, o->res, BLOCK);
  size_t b = block_of(rank);
  int bad = 0;
  for (int j = 0; j < 16; j++)
    bad += res[GET + j] != initial(t, b + GET + j);
  for (int j = 0; j < 8; j++)
    bad += res[GACC + j] != initial(t, b + GACC + j);
  bad += res[FOP] != initial(t, b + FOP);
  bad += res[CAS] != initial(t, b + CAS);
  if (big) {
    int *r = malloc(BIG * sizeof *r);
    CHECK(r != NULL);
    rma_load(o->dev, r, o->big_res, BIG);
    for (int j = 0; j < BIG; j++)
      bad += r[j] != initial(t, big_get_of(rank) + (size_t)j);
    free(r);
  }
  if (bad)
    fprintf(stderr, "rank %d: %d fetched ints wrong from %d (%s)\n", rank, bad,
            t, what);
  CHECK(bad == 0);
}

/* The window's ints as every origin's operations left them. */
static void target_check(const int *got, int big, const char *what) {
  size_t n = window_ints();
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    int want = initial(rank, i);
    int o = (int)(i / BLOCK), j = (int)(i % BLOCK);
    int wrote = o == rank || o == (rank + nranks - 1) % nranks;
    if (i < (size_t)nranks * BLOCK && wrote) {
      if (j >= PUT && j < PUT + 16)
        want = put_value(o, j - PUT);
      else if (j >= ACC && j < ACC + 16)
        want += acc_value(o, j - ACC);
      else if (j >= GACC && j < GACC + 8)
        want += gacc_value(o, j - GACC);
      else if (j == FOP)
        want += fop_value(o);
      else if (j == CAS)
        want = swap_value(o);
      else if (j >= VEC && j < VEC + 5 && (j - VEC) % 2 == 0)
        want = vec_value(o, (j - VEC) / 2);
    } else if (i >= (size_t)nranks * BLOCK && big) {
      size_t rel = i - (size_t)nranks * BLOCK;
      o = (int)(rel / (2 * BIG));
      if ((o == rank || o == (rank + nranks - 1) % nranks) &&
          rel % (2 * BIG) < BIG)
        want = big_value(o, (int)(rel % (2 * BIG)));
    }
    if (got[i] != want && bad++ < 5)
      fprintf(stderr, "rank %d: window int %zu is %d, not %d (%s)\n", rank, i,
              got[i], want, what);
  }
  CHECK(bad == 0);
}

/* ---- windows of device memory MPI allocates ------------------------------ */

/* The memory kind of the loaded double, as mpi_memory_alloc_kinds names it. */
static const char *device_kind(void) {
  const char *alloc = getenv("DEVICE_P2P_ALLOC");
  return alloc != NULL && strcmp(alloc, "cuda") == 0 ? "cuda:device"
                                                     : "ascend:device";
}

static MPI_Info kind_info(const char *kinds) {
  MPI_Info info;
  CHECK(MPI_Info_create(&info) == 0);
  CHECK(MPI_Info_set(info, "mpi_memory_alloc_kinds", kinds) == 0);
  return info;
}

/* MPI_Win_allocate(_shared) of bytes of device memory; returns the error
 * class (the window and *mem only on success). */
static int device_window(int shared, size_t bytes, int **mem, MPI_Win *win) {
  MPI_Info info = kind_info(device_kind());
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = shared ? MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info,
                                            MPI_COMM_WORLD, mem, win)
                  : MPI_Win_allocate((MPI_Aint)bytes, 1, info, MPI_COMM_WORLD,
                                     mem, win);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Info_free(&info);
  int cls = rc;
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &cls);
  return cls;
}

/* MPI_WIN_BASE is the device memory, the size, unit and flavour are the
 * call's, and the info says the memory's kind. */
static void device_window_attrs(MPI_Win win, const int *mem, size_t bytes,
                                int flavor) {
  void *base = NULL;
  MPI_Aint *size = NULL;
  int *unit = NULL, *how = NULL, flag = 0;
  CHECK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag) == 0 && flag);
  CHECK(base == mem);
  CHECK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag) == 0 && flag);
  CHECK(*size == (MPI_Aint)bytes);
  CHECK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag) == 0 && flag);
  CHECK(*unit == 1);
  CHECK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &how, &flag) == 0 && flag);
  CHECK(*how == flavor);
  MPI_Info used;
  char value[64];
  CHECK(MPI_Win_get_info(win, &used) == 0);
  CHECK(MPI_Info_get(used, "mpi_memory_alloc_kinds", sizeof value - 1, value,
                     &flag) == 0 &&
        flag);
  CHECK(strcmp(value, device_kind()) == 0);
  MPI_Info_free(&used);
}

/* Every member's segment of a shared device window through
 * MPI_Win_shared_query: this rank's own memory, the others' as imported
 * here, holding their initial ints (copied device to device into memory
 * of this rank's, then to the host: the import is never dereferenced). */
static void check_shared_query(MPI_Win win, const int *mem, size_t n) {
  int *scratch = rma_alloc(1, n), *host = malloc(n * sizeof *host);
  CHECK(host != NULL);
  void *lowest = NULL;
  for (int r = 0; r < nranks; r++) {
    MPI_Aint size = 0;
    int unit = 0;
    void *at = NULL;
    CHECK(MPI_Win_shared_query(win, r, &size, &unit, &at) == 0);
    CHECK(size == (MPI_Aint)(n * sizeof(int)) && unit == 1 && at != NULL);
    if (r == 0)
      lowest = at;
    if (r == rank) {
      CHECK(at == mem);
      continue;
    }
    CHECK(fa.copy_d2d(scratch, at, n * sizeof(int)) == 0);
    rma_load(1, host, scratch, n);
    int bad = 0;
    for (size_t i = 0; i < n; i++)
      bad += host[i] != initial(r, i);
    if (bad)
      fprintf(stderr, "rank %d: %d ints of rank %d's shared segment wrong\n",
              rank, bad, r);
    CHECK(bad == 0);
  }
  MPI_Aint size = 0;
  int unit = 0;
  void *at = NULL;
  CHECK(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &at) == 0);
  CHECK(at == lowest);
  rma_free(1, scratch);
  free(host);
}

/* Imports of peers' windows are on unless the paths say otherwise. */
static int shared_device_whole(void) {
  return nranks == 1 || want_paths == PATHS_ANY || want_paths == PATHS_IPC;
}

static void one_case(int wmem, int odev, int sync, MPI_Datatype vec) {
  char what[64];
  snprintf(what, sizeof what, "window %d, origin %s, sync %d", wmem,
           odev ? "device" : "host", sync);
  size_t n = window_ints();
  int by_mpi = wmem == MEM_DEV_ALLOCATED || wmem == MEM_DEV_SHARED;
  int wdev = wmem == MEM_DEVICE || wmem == MEM_ATTACHED || by_mpi;
  int *mem = NULL, *host = malloc(n * sizeof *host);
  CHECK(host != NULL);
  for (size_t i = 0; i < n; i++)
    host[i] = initial(rank, i);
  MPI_Win win;
  if (wmem == MEM_DEV_SHARED && !shared_device_whole()) {
    /* Nothing maps the others' device memory here: refused, everywhere. */
    CHECK(device_window(1, n * sizeof(int), &mem, &win) == MPI_ERR_RMA_SHARED);
    free(host);
    return;
  }
  if (by_mpi) {
    CHECK(device_window(wmem == MEM_DEV_SHARED, n * sizeof(int), &mem, &win) ==
          MPI_SUCCESS);
    device_window_attrs(win, mem, n * sizeof(int),
                        wmem == MEM_DEV_SHARED ? MPI_WIN_FLAVOR_SHARED
                                               : MPI_WIN_FLAVOR_ALLOCATE);
  } else if (wmem == MEM_ALLOCATED)
    CHECK(MPI_Win_allocate((MPI_Aint)(n * sizeof(int)), 1, MPI_INFO_NULL,
                           MPI_COMM_WORLD, &mem, &win) == 0);
  else
    mem = rma_alloc(wdev, n);
  /* Before the allgather below, which no rank leaves before all came. */
  rma_store(wdev, mem, host, n);
  MPI_Aint base = 0, *bases = calloc((size_t)nranks, sizeof *bases);
  CHECK(bases != NULL);
  if (wmem == MEM_ATTACHED) {
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == 0);
    CHECK(MPI_Win_attach(win, mem, (MPI_Aint)(n * sizeof(int))) == 0);
    MPI_Get_address(mem, &base);
  } else if (wmem != MEM_ALLOCATED && !by_mpi) {
    CHECK(MPI_Win_create(mem, (MPI_Aint)(n * sizeof(int)), 1, MPI_INFO_NULL,
                         MPI_COMM_WORLD, &win) == 0);
  }
  CHECK(MPI_Allgather(&base, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD) ==
        0);
  if (wmem == MEM_DEV_SHARED) { /* before anyone writes a segment */
    check_shared_query(win, mem, n);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int next = (rank + 1) % nranks;
  int targets[2] = {rank, next};
  int ntargets = next == rank ? 1 : 2;
  origin_t o = {.dev = odev};
  o.buf = rma_alloc(odev, BLOCK);
  o.res = rma_alloc(odev, BLOCK);
  o.big = rma_alloc(odev, BIG);
  o.big_res = rma_alloc(odev, BIG);
  MPI_Group world, peers;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int prev = (rank + nranks - 1) % nranks;
  int exposed[2] = {rank, prev};
  MPI_Group_incl(world, ntargets, exposed, &peers);
  MPI_Group access;
  MPI_Group_incl(world, ntargets, targets, &access);
  int big = sync == SYNC_FENCE;
  for (int k = 0; k < ntargets; k++) {
    int t = targets[k];
    origin_fill(&o, t);
    if (sync == SYNC_FENCE)
      CHECK(MPI_Win_fence(0, win) == 0);
    else if (sync == SYNC_LOCK)
      CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win) == 0);
    else {
      CHECK(MPI_Win_post(peers, 0, win) == 0);
      CHECK(MPI_Win_start(access, 0, win) == 0);
    }
    counts_t before = paths_read();
    origin_ops(&o, t, win, bases[t], vec, big);
    /* Seven operations, two more with big: towards another rank's device
     * window all by IPC, or the puts and gets by RDMA and the other four
     * as messages; or everything as messages. */
    int others = (wmem == MEM_DEVICE || by_mpi) && t != rank;
    int moves = big ? 5 : 3;
    if (want_paths == PATHS_MESSAGE)
      paths_expect(before, 0, moves + 4, what);
    else if (want_paths == PATHS_IPC && others)
      paths_expect(before, moves + 4, 0, what);
    else if (want_paths == PATHS_RDMA && others)
      paths_expect(before, moves, 4, what);
    if (sync == SYNC_FENCE)
      CHECK(MPI_Win_fence(0, win) == 0);
    else if (sync == SYNC_LOCK)
      CHECK(MPI_Win_unlock(t, win) == 0);
    else {
      CHECK(MPI_Win_complete(win) == 0);
      CHECK(MPI_Win_wait(win) == 0);
    }
    origin_check(&o, t, big, what);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rma_load(wdev, host, mem, n);
  target_check(host, big, what);
  MPI_Barrier(MPI_COMM_WORLD);
  if (wmem == MEM_ATTACHED)
    CHECK(MPI_Win_detach(win, mem) == 0);
  CHECK(MPI_Win_free(&win) == 0);
  MPI_Group_free(&peers);
  MPI_Group_free(&access);
  MPI_Group_free(&world);
  rma_free(odev, o.buf);
  rma_free(odev, o.res);
  rma_free(odev, o.big);
  rma_free(odev, o.big_res);
  /* The CANN double refuses to free memory another process still
   * imports: MPI_Win_free must have closed every import of it. */
  if (wdev && !by_mpi)
    CHECK(fa.free_dev(mem) == 0);
  else if (!wdev && wmem != MEM_ALLOCATED)
    free(mem);
  /* MPI_Win_free freed the device memory it allocated (the CANN double
   * only once every import of it closed): no copy reaches it now. */
  if (by_mpi)
    CHECK(fa.memcpy_sync(mem, sizeof(int), host, sizeof(int),
                         ACL_MEMCPY_HOST_TO_DEVICE) != 0);
  free(host);
  free(bases);
}

/* What every rank gets for mpi_memory_alloc_kinds it cannot have: an
 * unknown kind is MPI_ERR_INFO_VALUE, a known kind hcmpi does not
 * allocate or whose runtime is not loaded MPI_ERR_UNSUPPORTED_OPERATION;
 * a list naming host memory gives host memory. */
static void kind_errors(void) {
  const char *other =
      strcmp(device_kind(), "cuda:device") == 0
          ? (MPIX_Query_ascend_support() ? NULL : "ascend:device")
      : MPIX_Query_cuda_support() ? NULL
                                  : "cuda:device";
  struct {
    const char *kinds;
    int cls;
  } cases[] = {{"npu:device", MPI_ERR_INFO_VALUE},
               {"rocm:device", MPI_ERR_UNSUPPORTED_OPERATION},
               {"cuda:managed", MPI_ERR_UNSUPPORTED_OPERATION},
               {other, MPI_ERR_UNSUPPORTED_OPERATION}};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (cases[i].kinds == NULL)
      continue;
    MPI_Info info = kind_info(cases[i].kinds);
    for (int shared = 0; shared < 2; shared++) {
      int *mem = NULL, cls = MPI_SUCCESS;
      MPI_Win win = MPI_WIN_NULL;
      int rc =
          shared
              ? MPI_Win_allocate_shared(64, 1, info, MPI_COMM_WORLD, &mem, &win)
              : MPI_Win_allocate(64, 1, info, MPI_COMM_WORLD, &mem, &win);
      MPI_Error_class(rc, &cls);
      if (cls != cases[i].cls)
        fprintf(stderr, "rank %d: %s gave class %d, not %d\n", rank,
                cases[i].kinds, cls, cases[i].cls);
      CHECK(cls == cases[i].cls && win == MPI_WIN_NULL);
    }
    MPI_Info_free(&info);
  }
  /* Host memory listed first or last: ordinary host memory. */
  MPI_Info info = kind_info("ascend:device, system");
  int *mem = NULL;
  MPI_Win win;
  CHECK(MPI_Win_allocate(64, 1, info, MPI_COMM_WORLD, &mem, &win) == 0);
  mem[0] = rank; /* a host store: device memory would fault */
  CHECK(MPI_Win_free(&win) == 0);
  MPI_Info_free(&info);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- several ranks on one device word at once ---------------------------- */

#define ITERS 100

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* What every rank's fetch-and-adds returned: all distinct, all below
 * nranks * ITERS. */
static void check_fetched(const int *mine) {
  int *all = malloc((size_t)nranks * ITERS * sizeof *all);
  CHECK(all != NULL);
  CHECK(MPI_Allgather(mine, ITERS, MPI_INT, all, ITERS, MPI_INT,
                      MPI_COMM_WORLD) == 0);
  qsort(all, (size_t)nranks * ITERS, sizeof *all, cmp_int);
  for (int i = 0; i < nranks * ITERS; i++) {
    if (all[i] != i)
      fprintf(stderr, "rank %d: fetch-and-add %d returned %d\n", rank, i,
              all[i]);
    CHECK(all[i] == i);
  }
  free(all);
}

/* Rank 0's device window words: [0] accumulate, [1] fetch_and_op, [2]
 * get_accumulate, [3] compare-and-swap increments. */
static void atomic_case(void) {
  enum { WORDS = 16 };
  int zero[WORDS] = {0};
  int *mem = rma_alloc(1, WORDS);
  rma_store(1, mem, zero, WORDS);
  MPI_Win win;
  CHECK(MPI_Win_create(mem, WORDS * sizeof(int), sizeof(int), MPI_INFO_NULL,
                       MPI_COMM_WORLD, &win) == 0);
  int one = 1, fetched[ITERS], old = 0, unused = 0;
  long cas_tries = 0;
  counts_t before = paths_read();
  CHECK(MPI_Win_lock_all(0, win) == 0);
  for (int i = 0; i < ITERS; i++) {
    CHECK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win) ==
          0);
    CHECK(MPI_Fetch_and_op(&one, &fetched[i], MPI_INT, 0, 1, MPI_SUM, win) ==
          0);
    CHECK(MPI_Get_accumulate(&one, 1, MPI_INT, &unused, 1, MPI_INT, 0, 2, 1,
                             MPI_INT, MPI_SUM, win) == 0);
    CHECK(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 3, MPI_NO_OP, win) == 0);
    CHECK(MPI_Win_flush(0, win) == 0);
    for (;;) {
      int next = old + 1, seen = 0;
      CHECK(MPI_Compare_and_swap(&next, &old, &seen, MPI_INT, 0, 3, win) == 0);
      CHECK(MPI_Win_flush(0, win) == 0);
      cas_tries++;
      if (seen == old)
        break;
      old = seen;
    }
  }
  CHECK(MPI_Win_unlock_all(win) == 0);
  /* Rank 0's own operations are messages to itself, applied by its
   * progress under its atomic word beside the others' by IPC. */
  unsigned long long ops = 4 * ITERS + (unsigned long long)cas_tries;
  if (want_paths == PATHS_MESSAGE || (want_paths == PATHS_RDMA && rank != 0))
    paths_expect(before, 0, ops, "atomic");
  else if (want_paths == PATHS_IPC && rank != 0)
    paths_expect(before, ops, 0, "atomic");
  CHECK(MPI_Barrier(MPI_COMM_WORLD) == 0);
  if (rank == 0) {
    int got[WORDS];
    rma_load(1, got, mem, WORDS);
    for (int k = 0; k < 4; k++) {
      if (got[k] != nranks * ITERS)
        fprintf(stderr, "rank 0: atomic word %d is %d, not %d\n", k, got[k],
                nranks * ITERS);
      CHECK(got[k] == nranks * ITERS);
    }
  }
  check_fetched(fetched);
  CHECK(MPI_Win_free(&win) == 0);
  CHECK(fa.free_dev(mem) == 0);
}

/* ---- many small operations in one epoch --------------------------------
 *
 * Puts and gets of device origin buffers towards a peer's device window
 * are queued on the device and completed by the epoch's closing call (and
 * by flushes), so each of these checks reads the bytes right after the
 * call that must have completed them, before any other MPI call: the
 * doubles' streams run copies on a worker thread of their own, so a call
 * that forgot to wait would leave some of them unlanded.  The target's
 * window, in ints: QOPS puts, QOPS read by gets, QOPS accumulates (host
 * operands, each issued between a put and a get), and QOPS that the lock
 * modes put, flush, accumulate into, flush and get back. */
enum {
  QOPS = 64,
  Q_PUT = 0,
  Q_GET = QOPS,
  Q_ACC = 2 * QOPS,
  Q_AGAIN = 3 * QOPS,
  Q_INTS = 4 * QOPS
};
enum { Q_FENCE, Q_LOCK, Q_LOCK_ALL, Q_PSCW, Q_MODES };
static const char *const q_names[Q_MODES] = {"fence", "lock", "lock_all",
                                             "pscw"};

static void q_group_of(int r, MPI_Group *g) {
  MPI_Group world;
  CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world) == 0);
  CHECK(MPI_Group_incl(world, 1, &r, g) == 0);
  MPI_Group_free(&world);
}

/* Opens mode's epoch towards t (from: the rank whose epoch targets this
 * one, for PSCW's exposure). */
static void q_open(int mode, MPI_Win win, int t, int from) {
  MPI_Group g;
  switch (mode) {
  case Q_FENCE:
    CHECK(MPI_Win_fence(0, win) == 0);
    break;
  case Q_LOCK:
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win) == 0);
    break;
  case Q_LOCK_ALL:
    CHECK(MPI_Win_lock_all(0, win) == 0);
    break;
  default:
    q_group_of(from, &g);
    CHECK(MPI_Win_post(g, 0, win) == 0);
    MPI_Group_free(&g);
    q_group_of(t, &g);
    CHECK(MPI_Win_start(g, 0, win) == 0);
    MPI_Group_free(&g);
  }
}

static void q_close(int mode, MPI_Win win, int t) {
  switch (mode) {
  case Q_FENCE:
    CHECK(MPI_Win_fence(0, win) == 0);
    break;
  case Q_LOCK:
    CHECK(MPI_Win_unlock(t, win) == 0);
    break;
  case Q_LOCK_ALL:
    CHECK(MPI_Win_unlock_all(win) == 0);
    break;
  default:
    CHECK(MPI_Win_complete(win) == 0);
    CHECK(MPI_Win_wait(win) == 0);
  }
}

/* Remote completion of everything towards t in a lock mode. */
static void q_flush(int mode, MPI_Win win, int t) {
  CHECK((mode == Q_LOCK ? MPI_Win_flush(t, win) : MPI_Win_flush_all(win)) == 0);
}

static int q_again_value(int o, int j) { return put_value(o, j) + 7; }

/* What origin o leaves in word i of its target's window in mode. */
static int q_expected(int mode, int t, int o, int i) {
  if (i < Q_GET)
    return put_value(o, i - Q_PUT);
  if (i < Q_ACC)
    return initial(t, (size_t)i);
  if (i < Q_AGAIN)
    return initial(t, (size_t)i) + acc_value(o, i - Q_ACC);
  if (mode == Q_LOCK || mode == Q_LOCK_ALL)
    return q_again_value(o, i - Q_AGAIN) + 1;
  return initial(t, (size_t)i);
}

/* n device ints at dev compared with want (n host ints). */
static void q_check_device(const int *dev, const int *want, int n,
                           const char *what) {
  int got[2 * QOPS];
  rma_load(1, got, dev, (size_t)n);
  for (int j = 0; j < n; j++) {
    if (got[j] != want[j])
      fprintf(stderr, "rank %d: %s: int %d is %d, not %d\n", rank, what, j,
              got[j], want[j]);
    CHECK(got[j] == want[j]);
  }
}

/* The whole of t's window, read with a host Get in a new epoch of mode
 * (a copy the queued ones must have preceded), against what this rank
 * did to it. */
static void q_check_remote(int mode, MPI_Win win, int t, int from,
                           const char *what) {
  int got[Q_INTS];
  q_open(mode, win, t, from);
  CHECK(MPI_Get(got, Q_INTS, MPI_INT, t, 0, Q_INTS, MPI_INT, win) == 0);
  q_close(mode, win, t);
  for (int i = 0; i < Q_INTS; i++) {
    int want = q_expected(mode, t, rank, i);
    if (got[i] != want)
      fprintf(stderr, "rank %d: %s: rank %d's int %d is %d, not %d\n", rank,
              what, t, i, got[i], want);
    CHECK(got[i] == want);
  }
}

/* This rank's own window against what from did to it. */
static void q_check_mine(int mode, const int *mem, int from, const char *what) {
  int got[Q_INTS];
  rma_load(1, got, mem, Q_INTS);
  for (int i = 0; i < Q_INTS; i++) {
    int want = q_expected(mode, rank, from, i);
    if (got[i] != want)
      fprintf(stderr, "rank %d: %s: own int %d is %d, not %d\n", rank, what, i,
              got[i], want);
    CHECK(got[i] == want);
  }
}

/* A device window of Q_INTS and its initial values. */
static int *q_window(MPI_Win *win) {
  int host[Q_INTS];
  for (int i = 0; i < Q_INTS; i++)
    host[i] = initial(rank, (size_t)i);
  int *mem = rma_alloc(1, Q_INTS);
  rma_store(1, mem, host, Q_INTS);
  CHECK(MPI_Win_create(mem, Q_INTS * sizeof(int), sizeof(int), MPI_INFO_NULL,
                       MPI_COMM_WORLD, win) == 0);
  return mem;
}

/* Device origin data: QOPS put values, then QOPS for the second round. */
static int *q_origin(void) {
  int host[2 * QOPS];
  for (int j = 0; j < QOPS; j++) {
    host[j] = put_value(rank, j);
    host[QOPS + j] = q_again_value(rank, j);
  }
  int *src = rma_alloc(1, 2 * QOPS);
  rma_store(1, src, host, 2 * QOPS);
  return src;
}

static void queued_case(int mode) {
  const char *what = q_names[mode];
  int t = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
  int lock = mode == Q_LOCK || mode == Q_LOCK_ALL;
  MPI_Win win;
  int *mem = q_window(&win), *src = q_origin();
  int *res = rma_alloc(1, 2 * QOPS), want[2 * QOPS];
  int unset[2 * QOPS];
  for (int j = 0; j < 2 * QOPS; j++)
    unset[j] = -1;
  rma_store(1, res, unset, 2 * QOPS);
  for (int j = 0; j < QOPS; j++) {
    want[j] = initial(t, (size_t)(Q_GET + j));
    want[QOPS + j] = q_again_value(rank, j) + 1;
  }
  counts_t before = paths_read();
  q_open(mode, win, t, from);
  for (int j = 0; j < QOPS; j++) {
    int operand = acc_value(rank, j);
    CHECK(MPI_Put(src + j, 1, MPI_INT, t, Q_PUT + j, 1, MPI_INT, win) == 0);
    CHECK(MPI_Accumulate(&operand, 1, MPI_INT, t, Q_ACC + j, 1, MPI_INT,
                         MPI_SUM, win) == 0);
    CHECK(MPI_Get(res + j, 1, MPI_INT, t, Q_GET + j, 1, MPI_INT, win) == 0);
  }
  if (lock) {
    /* The gets are in res once a local flush returns. */
    CHECK((mode == Q_LOCK ? MPI_Win_flush_local(t, win)
                          : MPI_Win_flush_local_all(win)) == 0);
    q_check_device(res, want, QOPS, "gets after flush_local");
    /* Put, flush, accumulate into the same words, flush, get them back. */
    int one = 1;
    for (int j = 0; j < QOPS; j++)
      CHECK(MPI_Put(src + QOPS + j, 1, MPI_INT, t, Q_AGAIN + j, 1, MPI_INT,
                    win) == 0);
    q_flush(mode, win, t);
    for (int j = 0; j < QOPS; j++)
      CHECK(MPI_Accumulate(&one, 1, MPI_INT, t, Q_AGAIN + j, 1, MPI_INT,
                           MPI_SUM, win) == 0);
    q_flush(mode, win, t);
    for (int j = 0; j < QOPS; j++)
      CHECK(MPI_Get(res + QOPS + j, 1, MPI_INT, t, Q_AGAIN + j, 1, MPI_INT,
                    win) == 0);
  }
  q_close(mode, win, t);
  q_check_device(res, want, lock ? 2 * QOPS : QOPS, what);
  if (want_paths == PATHS_IPC && t != rank)
    paths_expect(before, (unsigned long long)(lock ? 6 : 3) * QOPS, 0, what);
  q_check_remote(mode, win, t, from, what);
  CHECK(MPI_Barrier(MPI_COMM_WORLD) == 0);
  q_check_mine(mode, mem, from, what);
  CHECK(MPI_Win_free(&win) == 0);
  rma_free(1, res);
  rma_free(1, src);
  rma_free(1, mem);
}

/* MPI_Rput and MPI_Rget of device buffers: an Rget's request completes
 * with its bytes in the buffer, an Rput's once its buffer may change (the
 * bytes put are those it held at the call); then puts the window's free
 * right after an unlock must have completed. */
static void queued_requests_case(void) {
  int t = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
  MPI_Win win;
  int *mem = q_window(&win), *src = q_origin();
  int *res = rma_alloc(1, QOPS), want[QOPS], garbage[2 * QOPS];
  MPI_Request gets[QOPS], puts[QOPS];
  for (int j = 0; j < QOPS; j++)
    want[j] = initial(t, (size_t)(Q_GET + j));
  for (int j = 0; j < 2 * QOPS; j++)
    garbage[j] = -7;
  CHECK(MPI_Win_lock_all(0, win) == 0);
  for (int j = 0; j < QOPS; j++) {
    CHECK(MPI_Rput(src + j, 1, MPI_INT, t, Q_PUT + j, 1, MPI_INT, win,
                   &puts[j]) == 0);
    CHECK(MPI_Rget(res + j, 1, MPI_INT, t, Q_GET + j, 1, MPI_INT, win,
                   &gets[j]) == 0);
  }
  int done = 0;
  while (!done)
    CHECK(MPI_Testall(QOPS, gets, &done, MPI_STATUSES_IGNORE) == 0);
  q_check_device(res, want, QOPS, "rget");
  CHECK(MPI_Waitall(QOPS, puts, MPI_STATUSES_IGNORE) == 0);
  rma_store(1, src, garbage, 2 * QOPS);
  CHECK(MPI_Win_unlock_all(win) == 0);
  /* Accumulates and the second round were not asked for here. */
  int got[Q_INTS];
  CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win) == 0);
  CHECK(MPI_Get(got, QOPS, MPI_INT, t, Q_PUT, QOPS, MPI_INT, win) == 0);
  CHECK(MPI_Win_unlock(t, win) == 0);
  for (int j = 0; j < QOPS; j++) {
    if (got[j] != put_value(rank, j))
      fprintf(stderr, "rank %d: rput: rank %d's int %d is %d, not %d\n", rank,
              t, j, got[j], put_value(rank, j));
    CHECK(got[j] == put_value(rank, j));
  }
  /* Puts of fresh data, the window freed right after the unlock. */
  rma_free(1, src);
  src = q_origin();
  CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win) == 0);
  for (int j = 0; j < QOPS; j++)
    CHECK(MPI_Put(src + QOPS + j, 1, MPI_INT, t, Q_AGAIN + j, 1, MPI_INT,
                  win) == 0);
  CHECK(MPI_Win_unlock(t, win) == 0);
  CHECK(MPI_Win_free(&win) == 0);
  CHECK(MPI_Barrier(MPI_COMM_WORLD) == 0);
  rma_load(1, got, mem, Q_INTS);
  for (int j = 0; j < QOPS; j++) {
    CHECK(got[Q_PUT + j] == put_value(from, j));
    if (got[Q_AGAIN + j] != q_again_value(from, j))
      fprintf(stderr, "rank %d: put before free: own int %d is %d, not %d\n",
              rank, Q_AGAIN + j, got[Q_AGAIN + j], q_again_value(from, j));
    CHECK(got[Q_AGAIN + j] == q_again_value(from, j));
  }
  rma_free(1, res);
  rma_free(1, src);
  rma_free(1, mem);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (fake_api_load_env(0, &fa) != 0) {
    if (rank == 0)
      fprintf(stderr, "device_rma: no device double\n");
    MPI_Finalize();
    return 77;
  }
  paths_open();
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  for (int wmem = MEM_HOST; wmem < MEM_KINDS; wmem++)
    for (int odev = 0; odev < 2; odev++)
      for (int sync = 0; sync < SYNCS; sync++)
        if ((wmem != MEM_HOST && wmem != MEM_ALLOCATED) || odev)
          one_case(wmem, odev, sync, vec);
  kind_errors();
  MPI_Type_free(&vec);
  atomic_case();
  for (int mode = 0; mode < Q_MODES; mode++)
    queued_case(mode);
  queued_requests_case();
  paths_close();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("device_rma: %d ranks OK\n", nranks);
  MPI_Finalize();
  return 0;
}

/*
 * MPI windows: creation (MPI_Win_create, _allocate, _allocate_shared,
 * _create_dynamic), shared mappings, attach/detach, free, and what hangs
 * on a window (group, name, info, error handler, predefined attributes).
 *
 * Every window gets a communicator of its own (an engine dup of the one
 * given), so its active messages never meet the user's traffic.
 *
 * MPI_Win_allocate_shared maps one anonymous memory file (memfd) on the
 * node: rank 0 of the communicator creates it, the others open it through
 * /proc/<pid>/fd/<fd> (same user only, like the shm transport's segment)
 * and rank 0 closes its descriptor once everyone mapped it.  The file has
 * no name, so nothing is left in /dev/shm when a rank crashes; the memory
 * goes with the last mapping.
 */
#define _GNU_SOURCE
#include "mpi/win.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi/handle.h"

/* Alignment of MPI_Win_allocate(_shared) memory unless a larger
 * mpi_minimum_memory_alignment hint asks for more. */
#define WIN_ALIGN 64

static hc_handle_table_t win_table = HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_WIN, 0);

/* The window this thread entered last, so a loop of one-sided calls on one
 * window skips the table.  win_frees counts MPI_Win_free calls: an entry
 * older than the last free is looked up again, since its handle may name
 * another window by now (or none). */
typedef struct win_last {
  MPI_Win handle;
  unsigned long frees;
  hc_mpi_win_t *w;
} win_last_t;

static __thread win_last_t win_last __attribute__((tls_model("initial-exec")));
static _Atomic unsigned long win_frees;

hc_mpi_win_t *hc_mpi_win_lookup(MPI_Win win) {
  unsigned long frees = atomic_load_explicit(&win_frees, memory_order_acquire);
  if (win_last.w != NULL && win_last.handle == win && win_last.frees == frees)
    return win_last.w;
  hc_mpi_win_t *w = hc_handle_get(&win_table, win);
  if (w != NULL)
    win_last = (win_last_t){win, frees, w};
  return w;
}

int hc_mpi_win_enter(const char *fn, MPI_Win win, hc_mpi_win_t **out) {
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_win_t *w = hc_mpi_win_lookup(win);
  if (w != NULL) {
    *out = w;
    return MPI_SUCCESS;
  }
  if (win == MPI_WIN_NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_WIN, "invalid window MPI_WIN_NULL");
  return hc_mpi_raise(NULL, fn, MPI_ERR_WIN, "invalid window 0x%x",
                      (unsigned)win);
}

hc_mpi_comm_t *hc_mpi_win_errcomm(MPI_Win win) {
  hc_mpi_win_t *w = hc_handle_get(&win_table, win);
  return w != NULL ? w->errcomm : NULL;
}

/* ---- creation ------------------------------------------------------------ */

/* The window's private communicator object (see win.h). */
static hc_mpi_comm_t *win_private_comm(hcomm_comm_t *engine) {
  hc_mpi_comm_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  hc_mpi_comm_set_engine(c, engine);
  c->refs = 1;
  hc_mpi_comm_set_errhandler(c, hc_mpi_errhandler_get(MPI_ERRORS_ARE_FATAL));
  return c;
}

static void win_destroy(hc_mpi_win_t *w) {
  if (w->errcomm != NULL)
    hc_mpi_comm_release(w->errcomm); /* frees the engine communicator */
  if (w->map != NULL)
    munmap(w->map, w->map_len);
  free(w->allocated);
  if (w->device_mem != NULL)
    hcomm_mem_free(w->mem_kind, w->device_mem);
  free(w->shm_off);
  free(w->shm_size);
  free(w->shm_disp);
  if (w->info != MPI_INFO_NULL)
    PMPI_Info_free(&w->info);
  free(w);
}

/* Entry checks of the creating calls; need_ptr: baseptr must be given. */
static int win_enter_new(const char *fn, MPI_Comm comm, MPI_Aint size,
                         MPI_Aint disp_unit, MPI_Info info, const void *baseptr,
                         int need_ptr, MPI_Win *win, hc_mpi_comm_t **out) {
  int rc = hc_mpi_comm_enter(fn, comm, out);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_comm_t *c = *out;
  rc = hc_mpi_check_ptr(fn, c, win, "win");
  if (rc == MPI_SUCCESS && need_ptr)
    rc = hc_mpi_check_ptr(fn, c, baseptr, "baseptr");
  if (rc == MPI_SUCCESS && size < 0)
    rc = hc_mpi_raise(c, fn, MPI_ERR_SIZE, "negative window size %ld",
                      (long)size);
  if (rc == MPI_SUCCESS && (disp_unit <= 0 || disp_unit > INT_MAX))
    rc = hc_mpi_raise(c, fn, MPI_ERR_DISP,
                      "displacement unit %ld (must be 1 to %d)",
                      (long)disp_unit, INT_MAX);
  if (rc == MPI_SUCCESS && info != MPI_INFO_NULL && !hc_mpi_info_get(info))
    rc = hc_mpi_raise(c, fn, MPI_ERR_INFO, "invalid info 0x%x", (unsigned)info);
  if (rc == MPI_SUCCESS && hcomm_comm_is_inter(c->engine))
    rc = hc_mpi_raise(c, fn, MPI_ERR_COMM, "windows need an intracommunicator");
  return rc;
}

/* The new window's object with its own communicator (collective). */
static int win_begin(const char *fn, hc_mpi_comm_t *c, MPI_Info info,
                     int flavor, hc_mpi_win_t **out) {
  hc_mpi_win_t *w = calloc(1, sizeof *w);
  if (w == NULL)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  w->flavor = flavor;
  w->model = MPI_WIN_UNIFIED;
  w->info = MPI_INFO_NULL;
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_comm_dup(c->engine, &engine);
  if (st != HC_OK) {
    free(w);
    return hc_mpi_raise_status(c, fn, st);
  }
  /* Its creation and its free run a few small collectives; a
   * shared-memory segment for them cost more than the window (BAGEL makes
   * and frees 1,600 windows in a CASPT2 of water: 26 ms each on 2 ranks
   * with segments, 40 us without).  MPI_Win_fence lifts this. */
  hcomm_coll_shm_defer(engine, 1);
  w->errcomm = win_private_comm(engine);
  if (w->errcomm == NULL) {
    hcomm_comm_free(engine);
    free(w);
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  if (info != MPI_INFO_NULL && PMPI_Info_dup(info, &w->info) != MPI_SUCCESS)
    w->info = MPI_INFO_NULL;
  *out = w;
  return MPI_SUCCESS;
}

/* Tells the engine where every member's piece of the node's mapping lies
 * here (collective; a rank out of memory keeps the window on messages). */
static hc_status_t win_share(hc_mpi_win_t *w) {
  int n = hcomm_comm_size(w->errcomm->engine);
  char **bases = n > 0 ? malloc((size_t)n * sizeof *bases) : NULL;
  for (int i = 0; bases != NULL && i < n; i++)
    bases[i] = w->map + w->shm_off[i];
  hc_status_t st = hcomm_win_share(w->engine, bases, w->map + w->lock_off);
  free(bases);
  return st;
}

/* 1 when the info value is a comma-separated list of names each found
 * in allowed (names between spaces, a space at both ends). */
static int win_list_within(const char *value, const char *allowed) {
  char name[32];
  while (*value != '\0') {
    size_t n = strcspn(value, ",");
    if (n == 0 || n > sizeof name - 3)
      return 0;
    snprintf(name, sizeof name, " %.*s ", (int)n, value);
    if (strstr(allowed, name) == NULL)
      return 0;
    value += n + (value[n] == ',');
  }
  return 1;
}

/* The NIC atomics contract (docs/rma.md): hcmpi_accumulate_types=int64
 * and either MPICH's which_accumulate_ops naming only operations the
 * device does, or Open MPI's acc_single_intrinsic=true. */
static int win_nic_declared(MPI_Info info) {
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  if (info == MPI_INFO_NULL ||
      PMPI_Info_get(info, "hcmpi_accumulate_types", MPI_MAX_INFO_VAL, value,
                    &flag) != MPI_SUCCESS ||
      !flag || strcmp(value, "int64") != 0)
    return 0;
  if (PMPI_Info_get(info, "which_accumulate_ops", MPI_MAX_INFO_VAL, value,
                    &flag) == MPI_SUCCESS &&
      flag && win_list_within(value, " sum replace no_op cswap "))
    return 1;
  return PMPI_Info_get(info, "acc_single_intrinsic", MPI_MAX_INFO_VAL, value,
                       &flag) == MPI_SUCCESS &&
         flag && strcmp(value, "true") == 0;
}

/* Starts the engine's window over memory already in w and hands out the
 * handle (collective). */
static int win_finish(const char *fn, hc_mpi_comm_t *c, hc_mpi_win_t *w,
                      MPI_Win *win) {
  unsigned flags = 0;
  if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
    flags |= HCOMM_WIN_DYNAMIC;
  if (win_nic_declared(w->info))
    flags |= HCOMM_WIN_NIC_ATOMICS;
  hc_status_t st =
      hcomm_win_create(w->errcomm->engine, w->base, (size_t)w->size,
                       w->disp_unit, flags, hc_mpi_win_combine, &w->engine);
  if (st == HC_OK && w->map != NULL)
    st = win_share(w);
  if (st == HC_OK)
    st = hcomm_win_nic_atomics(w->engine, &w->nic_atomics);
  if (st != HC_OK) {
    if (w->engine != NULL)
      hcomm_win_free(w->engine);
    win_destroy(w);
    return hc_mpi_raise_status(c, fn, st);
  }
  if (hc_handle_alloc(&win_table, w, &w->handle) != 0) {
    hcomm_win_free(w->engine);
    win_destroy(w);
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  w->errcomm->handle = w->handle;
  w->nranks = hcomm_comm_size(w->errcomm->engine);
  *win = w->handle;
  return MPI_SUCCESS;
}

/* Undoes win_finish for a window nobody was given yet (collective, as
 * the engine's free is). */
static void win_unmake(hc_mpi_win_t *w) {
  hcomm_win_free(w->engine);
  atomic_fetch_add_explicit(&win_frees, 1, memory_order_acq_rel);
  hc_handle_free(&win_table, w->handle);
  win_destroy(w);
}

/* MPI_Win_create and its large-count form. */
static int win_create(const char *fn, void *base, MPI_Aint size,
                      MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win *win) {
  hc_mpi_comm_t *c = NULL;
  hc_mpi_win_t *w = NULL;
  int rc = win_enter_new(fn, comm, size, disp_unit, info, NULL, 0, win, &c);
  if (rc == MPI_SUCCESS && size > 0 && base == NULL)
    rc =
        hc_mpi_raise(c, fn, MPI_ERR_ARG, "NULL base for %ld bytes", (long)size);
  if (rc == MPI_SUCCESS)
    rc = win_begin(fn, c, info, MPI_WIN_FLAVOR_CREATE, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  w->base = base;
  w->size = size;
  w->disp_unit = (int)disp_unit;
  return win_finish(fn, c, w, win);
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                    MPI_Comm comm, MPI_Win *win) {
  return win_create("MPI_Win_create", base, size, disp_unit, info, comm, win);
}
HC_WEAK_ALIAS(MPI_Win_create, PMPI_Win_create);

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit,
                      MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  return win_create("MPI_Win_create_c", base, size, disp_unit, info, comm, win);
}
HC_WEAK_ALIAS(MPI_Win_create_c, PMPI_Win_create_c);

/* mpi_minimum_memory_alignment, at least WIN_ALIGN. */
static size_t win_alignment(MPI_Info info) {
  size_t align = WIN_ALIGN;
  char value[32];
  int flag = 0;
  if (info != MPI_INFO_NULL &&
      PMPI_Info_get(info, "mpi_minimum_memory_alignment", sizeof value - 1,
                    value, &flag) == MPI_SUCCESS &&
      flag) {
    unsigned long want = strtoul(value, NULL, 10);
    while (align < want && align < ((size_t)1 << 30))
      align *= 2;
  }
  return align;
}

/* ---- shared windows ------------------------------------------------------ */

/* Every member's piece of the mapping, each aligned. */
static int win_shm_layout(hc_mpi_win_t *w, MPI_Aint size, int disp_unit,
                          size_t align) {
  hcomm_comm_t *e = w->errcomm->engine;
  int n = hcomm_comm_size(e);
  int64_t mine[2] = {size, disp_unit};
  int64_t *all = malloc((size_t)n * sizeof mine);
  w->shm_off = calloc((size_t)n, sizeof *w->shm_off);
  w->shm_size = calloc((size_t)n, sizeof *w->shm_size);
  w->shm_disp = calloc((size_t)n, sizeof *w->shm_disp);
  if (all == NULL || !w->shm_off || !w->shm_size || !w->shm_disp) {
    free(all);
    return MPI_ERR_NO_MEM; /* every rank allocates alike */
  }
  hc_status_t st = hcomm_allgather(mine, sizeof mine, all, e);
  size_t off = 0;
  for (int i = 0; st == HC_OK && i < n; i++) {
    w->shm_off[i] = (MPI_Aint)off;
    w->shm_size[i] = (MPI_Aint)all[2 * i];
    w->shm_disp[i] = (int)all[2 * i + 1];
    off += ((size_t)all[2 * i] + align - 1) / align * align;
  }
  w->lock_off = off;
  w->map_len = off + (size_t)n * hcomm_win_lock_bytes(n);
  free(all);
  return st == HC_OK ? MPI_SUCCESS : hc_mpi_class_of_status(st);
}

/* inout[i] = min(in[i], inout[i]): "did every rank succeed". */
static void win_min_int(const void *in, void *inout, size_t count, void *ctx) {
  const int *a = in;
  int *b = inout;
  (void)ctx;
  for (size_t i = 0; i < count; i++)
    b[i] = a[i] < b[i] ? a[i] : b[i];
}
static const hcomm_reduce_op_t win_all_ok = {win_min_int, NULL, sizeof(int), 1};

/* Rank 0's memfd, sized; -1 on failure (errno set). */
static int win_shm_create(size_t len) {
  int fd = memfd_create("hcmpi-win", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  int err = fchmod(fd, 0600) != 0 ? errno : 0;
  if (err == 0 && ftruncate(fd, (off_t)len) != 0)
    err = errno;
  if (err == 0)
    err = posix_fallocate(fd, 0, (off_t)len);
  if (err != 0) {
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

/* Maps the node's file on every member (collective).  Returns an MPI
 * class, the same on every rank. */
static int win_shm_map(hc_mpi_win_t *w) {
  hcomm_comm_t *e = w->errcomm->engine;
  int64_t where[2] = {-1, -1}; /* rank 0's pid and fd */
  int fd = -1;
  if (hcomm_comm_rank(e) == 0 && (fd = win_shm_create(w->map_len)) >= 0) {
    where[0] = getpid();
    where[1] = fd;
  }
  hc_status_t st = hcomm_bcast(where, sizeof where, 0, e);
  if (st == HC_OK && where[1] < 0)
    st = HC_ERR_SYSTEM;
  int mine = fd;
  if (st == HC_OK && mine < 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%lld/fd/%lld", (long long)where[0],
             (long long)where[1]);
    mine = open(path, O_RDWR | O_CLOEXEC);
  }
  void *map = MAP_FAILED;
  if (mine >= 0)
    map = mmap(NULL, w->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, mine, 0);
  int ok = map != MAP_FAILED, all_ok = 0;
  if (st == HC_OK)
    st = hcomm_allreduce(&ok, &all_ok, 1, &win_all_ok, e);
  if (mine >= 0)
    close(mine); /* the mappings keep the memory */
  if (ok)
    w->map = map;
  if (st != HC_OK)
    return hc_mpi_class_of_status(st);
  return all_ok ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* *all: 1 when every member runs on this node (collective). */
static hc_status_t win_on_one_node(hc_mpi_comm_t *c, int *all) {
  hcomm_comm_t *node = NULL;
  hc_status_t st = hcomm_comm_split_shared(c->engine, 1, 0, &node);
  if (st != HC_OK)
    return st;
  int whole = hcomm_comm_size(node) == hcomm_comm_size(c->engine);
  hcomm_comm_free(node);
  *all = 0;
  return hcomm_allreduce(&whole, all, 1, &win_all_ok, c->engine);
}

/* MPI_ERR_RMA_SHARED unless every member runs on this node (collective). */
static int win_shm_check_node(const char *fn, hc_mpi_comm_t *c) {
  int all = 0;
  hc_status_t st = win_on_one_node(c, &all);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  if (!all)
    return hc_mpi_raise(c, fn, MPI_ERR_RMA_SHARED,
                        "the communicator spans more than one node");
  return MPI_SUCCESS;
}

/* Lays out and maps the node's file for w (collective). */
static int win_shm_setup(hc_mpi_win_t *w, MPI_Aint size, MPI_Aint disp_unit,
                         MPI_Info info) {
  w->size = size;
  int rc = win_shm_layout(w, size, (int)disp_unit, win_alignment(info));
  if (rc == MPI_SUCCESS)
    rc = win_shm_map(w);
  if (rc == MPI_SUCCESS) {
    int me = hcomm_comm_rank(w->errcomm->engine);
    w->base = size > 0 ? w->map + w->shm_off[me] : NULL;
    w->disp_unit = (int)disp_unit;
  }
  return rc;
}

/* Ends MPI_Win_allocate(_shared) once its memory was set up (rc): the
 * window, and its base in *baseptr. */
static int win_finish_memory(const char *fn, hc_mpi_comm_t *c, hc_mpi_win_t *w,
                             int rc, void *baseptr, MPI_Win *win) {
  if (rc != MPI_SUCCESS) {
    long size = (long)w->size;
    win_destroy(w);
    return hc_mpi_raise(c, fn, rc, "cannot set up a window of %ld bytes", size);
  }
  rc = win_finish(fn, c, w, win);
  if (rc == MPI_SUCCESS)
    *(void **)baseptr = w->base;
  return rc;
}

/* ---- device memory (mpi_memory_alloc_kinds) ------------------------------ */

/* inout[i] = max(in[i], inout[i]). */
static void win_max_int(const void *in, void *inout, size_t count, void *ctx) {
  const int *a = in;
  int *b = inout;
  (void)ctx;
  for (size_t i = 0; i < count; i++)
    b[i] = a[i] > b[i] ? a[i] : b[i];
}
static const hcomm_reduce_op_t win_max = {win_max_int, NULL, sizeof(int), 1};

/* The memory kind every member of w asks for (collective): MPI_SUCCESS
 * and *kind when all asked for the same one, else the worst class any
 * member found (why says it where it was found here). */
static int win_agree_kind(hc_mpi_win_t *w, MPI_Info info, int *kind, char *why,
                          size_t why_len) {
  snprintf(why, why_len, "another member's mpi_memory_alloc_kinds was refused");
  int mine = hc_mpi_memory_kind(info, kind, why, why_len);
  /* max(class), max(kind), max(-kind): agreement when the last two
   * describe one kind. */
  int in[3] = {mine, *kind, -*kind}, all[3] = {0, 0, 0};
  hc_status_t st = hcomm_allreduce(in, all, 3, &win_max, w->errcomm->engine);
  if (st != HC_OK) {
    snprintf(why, why_len, "%s", hcomm_strerror(st));
    return hc_mpi_class_of_status(st);
  }
  if (all[0] != MPI_SUCCESS)
    return all[0];
  if (all[1] != -all[2]) {
    snprintf(why, why_len,
             "the members ask for different memory kinds "
             "(mpi_memory_alloc_kinds)");
    return MPI_ERR_INFO_VALUE;
  }
  return MPI_SUCCESS;
}

/* win_agree_kind for an allocating call: a refusal is raised and ends
 * the window begun (w). */
static int win_kind_agreed(const char *fn, hc_mpi_comm_t *c, hc_mpi_win_t *w,
                           MPI_Info info, int *kind) {
  char why[200];
  int rc = win_agree_kind(w, info, kind, why, sizeof why);
  if (rc == MPI_SUCCESS)
    return rc;
  win_destroy(w);
  return hc_mpi_raise(c, fn, rc, "%s", why);
}

/* This rank's piece of a device window: kind memory through the engine,
 * then whether every member got its piece (collective). */
static int win_device_memory(hc_mpi_win_t *w, int kind, MPI_Aint size,
                             MPI_Aint disp_unit) {
  int ok = 1, all_ok = 0;
  w->mem_kind = kind;
  w->size = size;
  w->disp_unit = (int)disp_unit;
  if (size > 0)
    ok = hcomm_mem_alloc(kind, (size_t)size, &w->device_mem) == HC_OK;
  w->base = w->device_mem;
  hc_status_t st =
      hcomm_allreduce(&ok, &all_ok, 1, &win_all_ok, w->errcomm->engine);
  if (st != HC_OK)
    return hc_mpi_class_of_status(st);
  return all_ok ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* A shared window of device memory is whole when every other member's
 * memory is imported here (collective, after win_finish). */
static int win_device_shared_whole(hc_mpi_win_t *w) {
  int me = hcomm_comm_rank(w->errcomm->engine), ok = 1, all_ok = 0;
  for (int r = 0; r < w->nranks; r++)
    if (r != me && w->shm_size[r] > 0 &&
        hcomm_win_device_import(w->engine, r) == NULL)
      ok = 0;
  hc_status_t st =
      hcomm_allreduce(&ok, &all_ok, 1, &win_all_ok, w->errcomm->engine);
  return st == HC_OK && all_ok;
}

/* MPI_Win_allocate's memory of this process only. */
static int win_private_memory(hc_mpi_win_t *w, MPI_Aint size,
                              MPI_Aint disp_unit, MPI_Info info) {
  void *mem = NULL;
  w->size = size;
  if (posix_memalign(&mem, win_alignment(info), size > 0 ? (size_t)size : 1))
    return MPI_ERR_NO_MEM;
  w->allocated = mem;
  w->base = size > 0 ? mem : NULL;
  w->disp_unit = (int)disp_unit;
  return MPI_SUCCESS;
}

static int win_allocate(const char *fn, MPI_Aint size, MPI_Aint disp_unit,
                        MPI_Info info, MPI_Comm comm, void *baseptr,
                        MPI_Win *win) {
  hc_mpi_comm_t *c = NULL;
  hc_mpi_win_t *w = NULL;
  int rc = win_enter_new(fn, comm, size, disp_unit, info, baseptr, 1, win, &c);
  if (rc == MPI_SUCCESS)
    rc = win_begin(fn, c, info, MPI_WIN_FLAVOR_ALLOCATE, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  int kind = HCOMM_MEM_HOST;
  rc = win_kind_agreed(fn, c, w, info, &kind);
  if (rc != MPI_SUCCESS)
    return rc;
  /* Device memory: each rank's own allocation, which local members
   * reach by IPC like a window of MPI_Win_create. */
  if (kind != HCOMM_MEM_HOST) {
    rc = win_device_memory(w, kind, size, disp_unit);
    return win_finish_memory(fn, c, w, rc, baseptr, win);
  }
  /* On one node the memory is a shared mapping, so that every operation
   * moves by loads and stores (rma_direct.c). */
  int one_node = 0;
  hc_status_t st = win_on_one_node(c, &one_node);
  if (st != HC_OK) {
    win_destroy(w);
    return hc_mpi_raise_status(c, fn, st);
  }
  if (one_node)
    rc = win_shm_setup(w, size, disp_unit, info);
  else
    rc = win_private_memory(w, size, disp_unit, info);
  return win_finish_memory(fn, c, w, rc, baseptr, win);
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
                      MPI_Comm comm, void *baseptr, MPI_Win *win) {
  return win_allocate("MPI_Win_allocate", size, disp_unit, info, comm, baseptr,
                      win);
}
HC_WEAK_ALIAS(MPI_Win_allocate, PMPI_Win_allocate);

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                        MPI_Comm comm, void *baseptr, MPI_Win *win) {
  return win_allocate("MPI_Win_allocate_c", size, disp_unit, info, comm,
                      baseptr, win);
}
HC_WEAK_ALIAS(MPI_Win_allocate_c, PMPI_Win_allocate_c);

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  static const char fn[] = "MPI_Win_create_dynamic";
  hc_mpi_comm_t *c = NULL;
  hc_mpi_win_t *w = NULL;
  int rc = win_enter_new(fn, comm, 0, 1, info, NULL, 0, win, &c);
  if (rc == MPI_SUCCESS)
    rc = win_begin(fn, c, info, MPI_WIN_FLAVOR_DYNAMIC, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  w->base = MPI_BOTTOM;
  w->disp_unit = 1;
  return win_finish(fn, c, w, win);
}
HC_WEAK_ALIAS(MPI_Win_create_dynamic, PMPI_Win_create_dynamic);

static int win_allocate_shared(const char *fn, MPI_Aint size,
                               MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win) {
  hc_mpi_comm_t *c = NULL;
  hc_mpi_win_t *w = NULL;
  int rc = win_enter_new(fn, comm, size, disp_unit, info, baseptr, 1, win, &c);
  if (rc == MPI_SUCCESS)
    rc = win_shm_check_node(fn, c);
  if (rc == MPI_SUCCESS)
    rc = win_begin(fn, c, info, MPI_WIN_FLAVOR_SHARED, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  int kind = HCOMM_MEM_HOST;
  rc = win_kind_agreed(fn, c, w, info, &kind);
  if (rc != MPI_SUCCESS)
    return rc;
  if (kind == HCOMM_MEM_HOST) {
    rc = win_shm_setup(w, size, disp_unit, info);
    return win_finish_memory(fn, c, w, rc, baseptr, win);
  }
  /* Device memory: every member's own allocation (the layout only
   * records sizes and units), the others' mapped by the engine's IPC
   * imports, which MPI_Win_shared_query hands out. */
  rc = win_shm_layout(w, size, (int)disp_unit, WIN_ALIGN);
  if (rc == MPI_SUCCESS)
    rc = win_device_memory(w, kind, size, disp_unit);
  rc = win_finish_memory(fn, c, w, rc, baseptr, win);
  if (rc != MPI_SUCCESS || win_device_shared_whole(w))
    return rc;
  win_unmake(w);
  *win = MPI_WIN_NULL;
  return hc_mpi_raise(c, fn, MPI_ERR_RMA_SHARED,
                      "a member's device memory cannot be mapped here (IPC "
                      "refused, or HCMPI_RMA_DIRECT=0 or HCMPI_DEVICE_PATH "
                      "forbids it)");
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                             MPI_Comm comm, void *baseptr, MPI_Win *win) {
  return win_allocate_shared("MPI_Win_allocate_shared", size, disp_unit, info,
                             comm, baseptr, win);
}
HC_WEAK_ALIAS(MPI_Win_allocate_shared, PMPI_Win_allocate_shared);

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                               MPI_Comm comm, void *baseptr, MPI_Win *win) {
  return win_allocate_shared("MPI_Win_allocate_shared_c", size, disp_unit, info,
                             comm, baseptr, win);
}
HC_WEAK_ALIAS(MPI_Win_allocate_shared_c, PMPI_Win_allocate_shared_c);

/* MPI_Win_shared_query and its large-count form. */
static int win_shared_query(const char *fn, MPI_Win win, int rank,
                            MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr) {
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  int n = hcomm_comm_size(w->errcomm->engine);
  if (!size || !disp_unit || !baseptr)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_ARG, "NULL output argument");
  if (rank != MPI_PROC_NULL && (rank < 0 || rank >= n))
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_RANK,
                        "invalid rank %d for a window of %d", rank, n);
  /* MPI-4.1 lets any window be asked.  One whose members' memory is not
   * all in one mapping here (MPI_Win_create's, a dynamic window's, an
   * MPI_Win_allocate across nodes or of device memory) shows this rank's
   * own memory, and nothing of the others': size 0, NULL.  An
   * MPI_Win_allocate on one node shares its mapping as a shared window. */
  int me = hcomm_comm_rank(w->errcomm->engine);
  int mapped = w->flavor == MPI_WIN_FLAVOR_SHARED ||
               (w->flavor == MPI_WIN_FLAVOR_ALLOCATE && w->map != NULL &&
                w->mem_kind == HCOMM_MEM_HOST);
  if (!mapped) {
    int own = rank == me || (rank == MPI_PROC_NULL && n == 1);
    int memory = own && w->flavor != MPI_WIN_FLAVOR_DYNAMIC && w->size > 0;
    *size = memory ? w->size : 0;
    *disp_unit = own ? w->disp_unit : 0;
    *(void **)baseptr = memory ? w->base : NULL;
    return MPI_SUCCESS;
  }
  int r = rank;
  if (rank == MPI_PROC_NULL) /* the lowest rank with memory */
    for (r = 0; r < n - 1 && w->shm_size[r] == 0; r++)
      ;
  *size = w->shm_size[r];
  *disp_unit = w->shm_disp[r];
  void *at = NULL;
  if (w->shm_size[r] > 0 && w->mem_kind == HCOMM_MEM_HOST)
    at = w->map + w->shm_off[r];
  else if (w->shm_size[r] > 0 && r == me)
    at = w->base;
  else if (w->shm_size[r] > 0) /* device memory: this process's import */
    at = hcomm_win_device_import(w->engine, r);
  *(void **)baseptr = at;
  return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                          void *baseptr) {
  MPI_Aint unit = 0;
  int rc = win_shared_query("MPI_Win_shared_query", win, rank, size,
                            disp_unit != NULL ? &unit : NULL, baseptr);
  if (rc == MPI_SUCCESS)
    *disp_unit = (int)unit;
  return rc;
}
HC_WEAK_ALIAS(MPI_Win_shared_query, PMPI_Win_shared_query);

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size,
                            MPI_Aint *disp_unit, void *baseptr) {
  return win_shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit,
                          baseptr);
}
HC_WEAK_ALIAS(MPI_Win_shared_query_c, PMPI_Win_shared_query_c);

/* ---- dynamic windows, free ------------------------------------------------
 */

static int win_enter_dynamic(const char *fn, MPI_Win win, hc_mpi_win_t **w) {
  int rc = hc_mpi_win_enter(fn, win, w);
  if (rc == MPI_SUCCESS && (*w)->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    rc = hc_mpi_raise((*w)->errcomm, fn, MPI_ERR_RMA_FLAVOR,
                      "not a window of MPI_Win_create_dynamic");
  return rc;
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) {
  static const char fn[] = "MPI_Win_attach";
  hc_mpi_win_t *w = NULL;
  int rc = win_enter_dynamic(fn, win, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  if (size < 0)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_SIZE, "negative size %ld",
                        (long)size);
  if (base == NULL && size > 0)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_RMA_ATTACH,
                        "NULL base for %ld bytes", (long)size);
  return hc_mpi_raise_status(w->errcomm, fn,
                             hcomm_win_attach(w->engine, base, (size_t)size));
}
HC_WEAK_ALIAS(MPI_Win_attach, PMPI_Win_attach);

int PMPI_Win_detach(MPI_Win win, const void *base) {
  static const char fn[] = "MPI_Win_detach";
  hc_mpi_win_t *w = NULL;
  int rc = win_enter_dynamic(fn, win, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  if (hcomm_win_detach(w->engine, base) != HC_OK)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_RMA_ATTACH,
                        "%p is not attached to the window", base);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Win_detach, PMPI_Win_detach);

int PMPI_Win_free(MPI_Win *win) {
  static const char fn[] = "MPI_Win_free";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_check_ptr(fn, NULL, win, "win");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_win_enter(fn, *win, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = hcomm_win_free(w->engine);
  if (st == HC_ERR_RMA_SYNC)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_RMA_SYNC,
                        "an access or exposure epoch is still open");
  rc = hc_mpi_win_attr_delete_all(fn, w);
  atomic_fetch_add_explicit(&win_frees, 1, memory_order_acq_rel);
  hc_handle_free(&win_table, w->handle);
  win_destroy(w);
  *win = MPI_WIN_NULL;
  if (rc == MPI_SUCCESS && st != HC_OK)
    rc = hc_mpi_raise_status(NULL, fn, st);
  return rc;
}
HC_WEAK_ALIAS(MPI_Win_free, PMPI_Win_free);

/* ---- group, name, info ------------------------------------------------------
 */

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group) {
  static const char fn[] = "MPI_Win_get_group";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, w->errcomm, group, "group");
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_comm_t *e = w->errcomm->engine;
  int n = hcomm_comm_size(e);
  if (n < 1) /* a window's communicator has its members */
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_WIN, "window without a group");
  int *world = malloc((size_t)n * sizeof *world);
  if (world == NULL)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < n; i++)
    world[i] = hcomm_comm_world_rank(e, i);
  rc = hc_mpi_group_make(fn, w->errcomm, n, world, group);
  free(world);
  return rc;
}
HC_WEAK_ALIAS(MPI_Win_get_group, PMPI_Win_get_group);

int PMPI_Win_set_name(MPI_Win win, const char *win_name) {
  static const char fn[] = "MPI_Win_set_name";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, w->errcomm, win_name, "win_name");
  if (rc != MPI_SUCCESS)
    return rc;
  snprintf(w->name, sizeof w->name, "%s", win_name);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Win_set_name, PMPI_Win_set_name);

/* MPI-4.1 lets MPI_WIN_NULL be asked its name (Annex B.1.2, item 18), not
 * given one. */
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen) {
  static const char fn[] = "MPI_Win_get_name";
  hc_mpi_win_t *w = NULL;
  int rc = win == MPI_WIN_NULL ? hc_mpi_check_ready(fn)
                               : hc_mpi_win_enter(fn, win, &w);
  hc_mpi_comm_t *errcomm = w != NULL ? w->errcomm : NULL;
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, errcomm, win_name, "win_name");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, errcomm, resultlen, "resultlen");
  if (rc != MPI_SUCCESS)
    return rc;
  snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s",
           w != NULL ? w->name : "MPI_WIN_NULL");
  *resultlen = (int)strlen(win_name);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Win_get_name, PMPI_Win_get_name);

/* The hints a window reports, with the value each has by default (the
 * implementation honours every default; a given value replaces it). */
static const char *const win_hint_defaults[][2] = {
    {"no_locks", "false"},
    {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"},
    {"same_size", "false"},
    {"same_disp_unit", "false"},
    {"mpi_minimum_memory_alignment", "64"}};

int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  static const char fn[] = "MPI_Win_set_info";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  if (info == MPI_INFO_NULL || !hc_mpi_info_get(info))
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_INFO, "invalid info 0x%x",
                        (unsigned)info);
  MPI_Info copy = MPI_INFO_NULL;
  if (PMPI_Info_dup(info, &copy) != MPI_SUCCESS)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_NO_MEM, "out of memory");
  if (w->info != MPI_INFO_NULL)
    PMPI_Info_free(&w->info);
  w->info = copy;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Win_set_info, PMPI_Win_set_info);

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used) {
  static const char fn[] = "MPI_Win_get_info";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, w->errcomm, info_used, "info_used");
  if (rc != MPI_SUCCESS)
    return rc;
  MPI_Info out = MPI_INFO_NULL;
  rc = PMPI_Info_create(&out);
  size_t nhints = sizeof win_hint_defaults / sizeof win_hint_defaults[0];
  for (size_t i = 0; rc == MPI_SUCCESS && i < nhints; i++) {
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    const char *key = win_hint_defaults[i][0];
    if (w->info != MPI_INFO_NULL)
      PMPI_Info_get(w->info, key, MPI_MAX_INFO_VAL, value, &flag);
    rc = PMPI_Info_set(out, key, flag ? value : win_hint_defaults[i][1]);
  }
  /* Hints without a default appear when they were given: the shared
   * mapping is contiguous either way, which is allowed, the memory kinds
   * are what the window's memory was allocated from, and the NIC atomics
   * contract's keys stand beside what was chosen. */
  static const char *const given_only[] = {
      "alloc_shared_noncontig", "mpi_memory_alloc_kinds",
      "hcmpi_accumulate_types", "which_accumulate_ops", "acc_single_intrinsic"};
  for (size_t i = 0; i < sizeof given_only / sizeof given_only[0] &&
                     rc == MPI_SUCCESS && w->info != MPI_INFO_NULL;
       i++) {
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (PMPI_Info_get(w->info, given_only[i], MPI_MAX_INFO_VAL, value, &flag) ==
            MPI_SUCCESS &&
        flag)
      rc = PMPI_Info_set(out, given_only[i], value);
  }
  if (rc == MPI_SUCCESS)
    rc = PMPI_Info_set(out, "hcmpi_nic_atomics",
                       w->nic_atomics ? "true" : "false");
  if (rc != MPI_SUCCESS) {
    if (out != MPI_INFO_NULL)
      PMPI_Info_free(&out);
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  *info_used = out;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Win_get_info, PMPI_Win_get_info);

/* ---- error handlers -------------------------------------------------------
 */

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *function,
                               MPI_Errhandler *errhandler) {
  /* The same object as a communicator's: both are called with a pointer
   * to the handle and the code. */
  return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)function,
                                     errhandler);
}
HC_WEAK_ALIAS(MPI_Win_create_errhandler, PMPI_Win_create_errhandler);

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  static const char fn[] = "MPI_Win_set_errhandler";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_errhandler_t *e = hc_mpi_errhandler_get(errhandler);
  if (e == NULL)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_ERRHANDLER,
                        "invalid errhandler 0x%x", (unsigned)errhandler);
  /* A file's or a session's handler has no function a window can call. */
  if (e->kind == HC_ERRH_USER && !e->fn)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_ERRHANDLER,
                        "errhandler 0x%x was made for %s, not windows",
                        (unsigned)errhandler,
                        e->session_fn ? "sessions" : "files");
  hc_mpi_comm_set_errhandler(w->errcomm, e);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Win_set_errhandler, PMPI_Win_set_errhandler);

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler) {
  static const char fn[] = "MPI_Win_get_errhandler";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, w->errcomm, errhandler, "errhandler");
  if (rc != MPI_SUCCESS)
    return rc;
  /* The caller's reference (MPI_Errhandler_free drops it). */
  hc_mpi_errhandler_t *e = hc_mpi_comm_errhandler(w->errcomm);
  *errhandler = e->handle;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Win_get_errhandler, PMPI_Win_get_errhandler);

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  static const char fn[] = "MPI_Win_call_errhandler";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_raise(w->errcomm, fn, errorcode, "called by the application");
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Win_call_errhandler, PMPI_Win_call_errhandler);

/* ---- predefined attributes ------------------------------------------------
 */

int hc_mpi_win_is_predefined_key(int keyval) {
  return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE ||
         keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR ||
         keyval == MPI_WIN_MODEL;
}

int hc_mpi_win_predefined_attr(int win, int keyval, void **value) {
  hc_mpi_win_t *w = hc_handle_get(&win_table, win);
  if (w == NULL || !hc_mpi_win_is_predefined_key(keyval))
    return 0;
  switch (keyval) {
  case MPI_WIN_BASE:
    *value = w->base;
    break;
  case MPI_WIN_SIZE:
    *value = &w->size;
    break;
  case MPI_WIN_DISP_UNIT:
    *value = &w->disp_unit;
    break;
  case MPI_WIN_CREATE_FLAVOR:
    *value = &w->flavor;
    break;
  default:
    *value = &w->model;
  }
  return 1;
}

/*
 * One collective call's state: temporaries (engine size arrays, packed
 * buffers) and the unpack jobs that finish a receive into a non-contiguous
 * datatype.  A non-blocking collective hands the state to the engine
 * (hcomm_icoll_on_complete), which runs the jobs before anyone can see the
 * request complete.
 *
 * Device memory: the engine's collectives read and write their buffers on
 * the host, so a user buffer the device layer classifies as device memory
 * is staged here, the one place every collective passes through: its
 * bytes are copied into a host temporary before the engine starts (send
 * side, or in-place input) and the temporary is copied back by a job when
 * the collective succeeds.  The face itself never dereferences such a
 * buffer: non-contiguous types are packed from, or unpacked into, a host
 * copy of the blocks' true extent.
 *
 * Persistent collectives (MPI_*_init) keep the state for the request's
 * life: what a call would pack or copy in at once is recorded as a load
 * job instead, and the loads run at every MPI_Start, the unpack jobs at
 * every completion.
 */
#include "mpi/coll_impl.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/devstage.h"
#include "mpi/op.h"
#include "util/log.h"

/* type NULL: count raw bytes.  dev.kind HCOMM_MEM_HOST: to is host memory. */
typedef struct coll_job {
  const hc_mpi_type_t *type;
  const void *from;
  MPI_Count count;
  void *to;
  hcomm_mem_info_t dev;
} coll_job_t;

/* A list of jobs: unpacks after completion, loads before a start. */
typedef struct coll_jobs {
  coll_job_t *job;
  int n, cap;
} coll_jobs_t;

/* Bytes of temporaries a collective's state holds in itself: the tables
 * of a few dozen ranks, so that a small collective allocates once. */
#define COLL_ARENA 2048

struct hc_mpi_coll {
  void **tmps; /* those beyond the arena */
  int ntmps, tmpcap;
  size_t arena_used;
  coll_jobs_t jobs;  /* from the views into the user's buffers */
  coll_jobs_t loads; /* persistent: from the user's buffers into the views */
  int persistent;
  hc_status_t err; /* a device copy that failed while staging */
  /* A reduction's op and datatype, held until the collective completes so
   * MPI_Op_free / MPI_Type_free meanwhile free nothing in use. */
  hc_mpi_red_t red;
  int holds_red;
  const hc_mpi_type_t *streamed[2]; /* hc_mpi_coll_stream's, held likewise */
  hc_mpi_hccl_t *hccl; /* hc_mpi_coll_hccl_defer's: a plan for HCCL's call */
  _Alignas(16) unsigned char arena[COLL_ARENA]; /* last: not zeroed at new */
};

/* The packed stream of a derived type in the user's buffer. */
typedef struct coll_stream {
  hcomm_accessor_t acc;
  const hc_mpi_type_t *type;
  void *user;
} coll_stream_t;

/* The last context freed, for the next collective: most contexts of
 * non-blocking collectives of a few bytes live from their call to its
 * return, and a malloc and free of one cost more than the rest of the
 * face.  One slot, by atomic exchange: any thread may free one. */
static _Atomic(hc_mpi_coll_t *) coll_spare;

hc_mpi_coll_t *hc_mpi_coll_new_mode(int persistent) {
  hc_mpi_coll_t *cx = atomic_exchange(&coll_spare, NULL);
  if (cx == NULL)
    cx = malloc(sizeof(hc_mpi_coll_t));
  if (cx != NULL) {
    memset(cx, 0, offsetof(hc_mpi_coll_t, arena));
    cx->persistent = persistent;
  }
  return cx;
}

hc_mpi_coll_t *hc_mpi_coll_new(void) { return hc_mpi_coll_new_mode(0); }

void hc_mpi_coll_free(hc_mpi_coll_t *cx) {
  if (cx == NULL)
    return;
  for (int i = 0; i < cx->ntmps; i++)
    free(cx->tmps[i]);
  for (int i = 0; i < cx->jobs.n; i++)
    hc_mpi_type_release(cx->jobs.job[i].type);
  for (int i = 0; i < cx->loads.n; i++)
    hc_mpi_type_release(cx->loads.job[i].type);
  hc_mpi_type_release(cx->streamed[0]);
  hc_mpi_type_release(cx->streamed[1]);
  if (cx->holds_red) {
    hc_mpi_op_release(&cx->red.op);
    hc_mpi_type_release(cx->red.type);
  }
  if (cx->hccl != NULL)
    free(cx->hccl->vec);
  free(cx->hccl);
  free(cx->tmps);
  free(cx->jobs.job);
  free(cx->loads.job);
  free(atomic_exchange(&coll_spare, cx));
}

static void coll_stream_pack(void *ctx, size_t off, void *dst, size_t len) {
  const coll_stream_t *st = ctx;
  hc_mpi_type_pack_range(st->type, st->user, (MPI_Count)off, (MPI_Count)len,
                         dst);
}

static void coll_stream_unpack(void *ctx, size_t off, const void *src,
                               size_t len) {
  const coll_stream_t *st = ctx;
  hc_mpi_type_unpack_range(st->type, src, (MPI_Count)off, (MPI_Count)len,
                           st->user);
}

const hcomm_accessor_t *hc_mpi_coll_stream(hc_mpi_coll_t *cx, void *buf,
                                           const hc_mpi_type_t *type) {
  int slot = cx->streamed[0] != NULL;
  if (cx->streamed[slot] != NULL)
    return NULL; /* a send and a receive side at most */
  coll_stream_t *st = hc_mpi_coll_tmp(cx, sizeof *st);
  if (st == NULL)
    return NULL;
  cx->streamed[slot] = hc_mpi_type_retain(type);
  *st = (coll_stream_t){{coll_stream_pack, coll_stream_unpack, st}, type, buf};
  return &st->acc;
}

void *hc_mpi_coll_tmp(hc_mpi_coll_t *cx, size_t bytes) {
  size_t rounded = (bytes + 15) / 16 * 16;
  if (bytes <= COLL_ARENA && rounded <= COLL_ARENA - cx->arena_used) {
    void *p = cx->arena + cx->arena_used;
    cx->arena_used += rounded;
    memset(p, 0, bytes);
    return p;
  }
  if (cx->ntmps == cx->tmpcap) {
    int cap = cx->tmpcap ? 2 * cx->tmpcap : 8;
    void **t = realloc(cx->tmps, (size_t)cap * sizeof *t);
    if (t == NULL)
      return NULL;
    cx->tmps = t;
    cx->tmpcap = cap;
  }
  void *p = calloc(1, bytes > 0 ? bytes : 1);
  if (p != NULL)
    cx->tmps[cx->ntmps++] = p;
  return p;
}

static int coll_job_add(coll_jobs_t *list, const coll_job_t *job) {
  if (list->n == list->cap) {
    int cap = list->cap ? 2 * list->cap : 8;
    coll_job_t *j = realloc(list->job, (size_t)cap * sizeof *j);
    if (j == NULL)
      return -1;
    list->job = j;
    list->cap = cap;
  }
  list->job[list->n] = *job;
  if (job->type !=
      NULL) /* used at completion or restart, after any Type_free */
    list->job[list->n].type = hc_mpi_type_retain(job->type);
  list->n++;
  return 0;
}

int hc_mpi_coll_dense(const hc_mpi_type_t *t) {
  return t->contiguous && (MPI_Aint)t->size == t->extent &&
         t->wire_size == (size_t)t->size && t->true_lb == 0;
}

/* Sizes and offsets of the blocks; 1 when buf can be used as it is. */
static int coll_layout(int n, const hc_mpi_coll_block_t *blocks, size_t *bytes,
                       size_t *offs, size_t *total, int device) {
  int dense = !device;
  *total = 0;
  for (int i = 0; i < n; i++) {
    dense = dense && hc_mpi_coll_dense(blocks[i].type) && blocks[i].disp >= 0;
    bytes[i] = (size_t)blocks[i].count * (size_t)blocks[i].type->size;
    offs[i] = *total;
    *total += bytes[i];
  }
  if (dense)
    for (int i = 0; i < n; i++)
      offs[i] = (size_t)blocks[i].disp;
  return dense;
}

static int coll_failed(hc_mpi_coll_t *cx, hc_status_t rc) {
  if (rc == HC_OK)
    return 0;
  if (cx != NULL)
    cx->err = rc;
  return -1;
}

static int coll_copy(hc_mpi_coll_t *cx, void *dst,
                     const hcomm_mem_info_t *dinfo, const void *src,
                     const hcomm_mem_info_t *sinfo, size_t len) {
  hc_status_t rc =
      len > 0 ? hcomm_mem_copy(dst, dinfo, src, sinfo, len) : HC_OK;
  if (rc != HC_OK)
    hc_log(HC_LOG_WARN, "mpi",
           "collective: device copy of %zu bytes failed: %s", len,
           hcomm_strerror(rc));
  return coll_failed(cx, rc);
}

/* A load job: packs count elements of type at from (host or device memory
 * as dev says) into the host view to; type NULL: copies count bytes. */
static int coll_load_run(hc_mpi_coll_t *cx, const coll_job_t *j) {
  hcomm_mem_info_t host = {HCOMM_MEM_HOST, -1, 0, 0};
  if (j->type == NULL)
    return coll_copy(cx, j->to, &host, j->from, &j->dev, (size_t)j->count);
  if (j->dev.kind != HCOMM_MEM_HOST)
    return coll_failed(
        cx, hc_mpi_dev_pack(j->type, j->from, &j->dev, j->count, j->to));
  hc_mpi_type_pack(j->type, j->from, j->count, j->to);
  return 0;
}

/* Runs a load now, or keeps it for every start of a persistent one. */
static int coll_load(hc_mpi_coll_t *cx, const coll_job_t *j) {
  if (cx->persistent)
    return coll_job_add(&cx->loads, j);
  return coll_load_run(cx, j);
}

/* Packs block b of buf (host or device memory) into out. */
static int coll_pack_block(hc_mpi_coll_t *cx, const void *buf,
                           const hcomm_mem_info_t *info,
                           const hc_mpi_coll_block_t *b, char *out) {
  coll_job_t job = {b->type, (const char *)buf + b->disp, b->count, out, *info};
  return coll_load(cx, &job);
}

const void *hc_mpi_coll_send_view(hc_mpi_coll_t *cx, const void *buf, int n,
                                  const hc_mpi_coll_block_t *blocks,
                                  size_t *bytes, size_t *offs) {
  size_t total;
  hcomm_mem_info_t info = {HCOMM_MEM_HOST, -1, 0, 0};
  int device = n > 0 && hc_mpi_dev_classify(buf, &info);
  if (coll_layout(n, blocks, bytes, offs, &total, device))
    return buf != NULL ? buf : (const void *)"";
  char *view = hc_mpi_coll_tmp(cx, total);
  if (view == NULL)
    return NULL;
  for (int i = 0; i < n; i++)
    if (coll_pack_block(cx, buf, &info, &blocks[i], view + offs[i]) != 0)
      return NULL;
  return view;
}

void *hc_mpi_coll_recv_view(hc_mpi_coll_t *cx, void *buf, int n,
                            const hc_mpi_coll_block_t *blocks, int load,
                            size_t *bytes, size_t *offs) {
  size_t total;
  hcomm_mem_info_t info = {HCOMM_MEM_HOST, -1, 0, 0};
  int device = n > 0 && hc_mpi_dev_classify(buf, &info);
  if (coll_layout(n, blocks, bytes, offs, &total, device))
    return buf != NULL ? buf : (void *)"";
  char *view = hc_mpi_coll_tmp(cx, total);
  if (view == NULL)
    return NULL;
  for (int i = 0; i < n; i++) {
    char *user = (char *)buf + blocks[i].disp;
    coll_job_t job = {blocks[i].type, view + offs[i], blocks[i].count, user,
                      info};
    if (load && coll_pack_block(cx, buf, &info, &blocks[i], view + offs[i]))
      return NULL;
    if (coll_job_add(&cx->jobs, &job) != 0)
      return NULL;
  }
  return view;
}

int hc_mpi_coll_stage(hc_mpi_coll_t *cx, void **buf, size_t bytes, size_t load,
                      size_t back) {
  hcomm_mem_info_t info = {HCOMM_MEM_HOST, -1, 0, 0};
  if (!hc_mpi_dev_classify(*buf, &info))
    return 0;
  char *view = hc_mpi_coll_tmp(cx, bytes);
  coll_job_t in = {NULL, *buf, (MPI_Count)load, view, info};
  if (view == NULL || (load > 0 && coll_load(cx, &in) != 0))
    return -1;
  coll_job_t job = {NULL, view, (MPI_Count)back, *buf, info};
  if (back > 0 && coll_job_add(&cx->jobs, &job) != 0)
    return -1;
  *buf = view;
  return 0;
}

size_t hc_mpi_red_elems(const hc_mpi_red_t *red, size_t n) {
  return red->packed > 0 ? n * red->packed : n;
}

int hc_mpi_coll_red_buf(hc_mpi_coll_t *cx, const hc_mpi_red_t *red, void **buf,
                        size_t n, size_t load, size_t back) {
  if (red->packed == 0) {
    size_t e = red->op.elem_size;
    return hc_mpi_coll_stage(cx, buf, n * e, load * e, back * e);
  }
  if (load == 0 && back == 0)
    return 0;
  hc_mpi_coll_block_t blk = {red->type, (MPI_Count)n, 0};
  size_t bytes, off;
  void *view =
      back > 0
          ? hc_mpi_coll_recv_view(cx, *buf, 1, &blk, load > 0, &bytes, &off)
          : (void *)hc_mpi_coll_send_view(cx, *buf, 1, &blk, &bytes, &off);
  if (view == NULL)
    return -1;
  *buf = view;
  return 0;
}

int hc_mpi_coll_red_stage(hc_mpi_coll_t *cx, const hc_mpi_red_t *red,
                          const void **send, void **recv, size_t in, size_t out,
                          int significant) {
  /* Predefined ops and types need no hold (nor a completion callback). */
  if (!cx->holds_red &&
      (hc_mpi_op_retain(&red->op) || !red->type->predefined)) {
    cx->red = *red;
    cx->holds_red = 1;
    hc_mpi_type_retain(red->type);
  }
  int in_place = *send == HCOMM_IN_PLACE;
  void *s = (void *)*send;
  if (!in_place && hc_mpi_coll_red_buf(cx, red, &s, in, in, 0) != 0)
    return -1;
  *send = s;
  size_t n = in_place && in > out ? in : out;
  return hc_mpi_coll_red_buf(cx, red, recv, n, in_place ? in : 0,
                             significant ? out : 0);
}

static hc_status_t coll_unpack_all(hc_mpi_coll_t *cx) {
  hcomm_mem_info_t host = {HCOMM_MEM_HOST, -1, 0, 0};
  int bad = 0;
  for (int i = 0; i < cx->jobs.n; i++) {
    const coll_job_t *j = &cx->jobs.job[i];
    if (j->dev.kind == HCOMM_MEM_HOST)
      hc_mpi_type_unpack(j->type, j->from, j->count, j->to);
    else if (j->type == NULL)
      bad |= coll_copy(cx, j->to, &j->dev, j->from, &host, (size_t)j->count);
    else
      bad |= coll_failed(cx, hc_mpi_dev_unpack(j->type, j->from,
                                               j->count * j->type->size,
                                               j->count, j->to, &j->dev));
  }
  return bad ? cx->err : HC_OK;
}

/* Runs in the engine, lock held: only local work (device copies too). */
static void coll_done_cb(void *arg, hc_status_t status) {
  hc_mpi_coll_t *cx = arg;
  if (status == HC_OK)
    (void)coll_unpack_all(cx); /* a failure was logged; nowhere to report */
  hc_mpi_coll_free(cx);
}

/* ---- persistent collectives ---------------------------------------------- */

/* After every run of a persistent collective (engine lock held). */
static void coll_run_done_cb(void *arg, hc_status_t status) {
  if (status == HC_OK)
    (void)coll_unpack_all(arg); /* a failure was logged; nowhere to report */
}

static void coll_release_cb(void *arg) { hc_mpi_coll_free(arg); }

/* *request: an inactive persistent request that owns eng, and through the
 * engine's release hook, cx. */
static int coll_persistent_wrap(const char *fn, hc_mpi_comm_t *c,
                                hc_mpi_coll_t *cx, hcomm_request_t *eng,
                                MPI_Request *request) {
  hc_mpi_request_t *r = hc_mpi_request_new(HC_REQ_PERSISTENT, c);
  /* The unpacks after each run are all known now: none (the engine works
   * in the user's buffers), no hook to call at every run. */
  hcomm_coll_done_fn run_done = cx->jobs.n > 0 ? coll_run_done_cb : NULL;
  if (r == NULL ||
      hcomm_coll_init_hooks(eng, run_done, coll_release_cb, cx) != HC_OK) {
    if (r != NULL)
      hc_mpi_request_destroy(r);
    hcomm_request_free(eng);
    hc_mpi_coll_free(cx);
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  r->engine = eng;
  r->coll = cx;
  r->coll_loads = cx->loads.n > 0;
  r->active = 0;
  *request = r->handle;
  return MPI_SUCCESS;
}

/* ---- non-blocking collectives HCCL may run (coll_hccl.c) ---------------- */

int hc_mpi_coll_hccl_defer(hc_mpi_coll_t *cx, hc_mpi_hccl_t *hx) {
  hc_mpi_hccl_t *mine = malloc(sizeof *mine);
  if (mine == NULL) {
    free(hx->vec);
    hx->vec = NULL;
    return -1;
  }
  *mine = *hx;
  hx->vec = NULL;
  cx->hccl = mine;
  cx->persistent = 1; /* loads recorded, run only if the plan runs */
  return 0;
}

void hc_mpi_coll_hccl_plan_next(const hc_mpi_coll_t *cx, hc_mpi_comm_t *c) {
  if (cx->hccl != NULL)
    (void)hcomm_hccl_plan_next(c->engine, 1);
}

/* Before a run of a persistent collective, or of the plan the ranks
 * chose over HCCL (then with the engine lock held): loads its inputs.
 * Never inline: inlined into hc_mpi_coll_start, its loop made every
 * MPI_Start save and restore six registers (bench/NOTES.md, face18). */
static __attribute__((noinline)) hc_status_t coll_load_all(void *arg) {
  hc_mpi_coll_t *cx = arg;
  int bad = 0;
  for (int i = 0; i < cx->loads.n; i++)
    bad |= coll_load_run(cx, &cx->loads.job[i]);
  return bad ? cx->err : HC_OK;
}

/* *request: the engine's choice between HCCL and the plan eng, which owns
 * cx from now on (unpacks after its run, frees it with itself). */
static int coll_hccl_hand(const char *fn, hc_mpi_comm_t *c, hc_mpi_coll_t *cx,
                          hcomm_request_t *eng, MPI_Request *request) {
  hc_mpi_hccl_t hx = *cx->hccl; /* the vectors stay cx's */
  if (hcomm_coll_init_hooks(eng, coll_run_done_cb, coll_release_cb, cx) !=
      HC_OK) {
    hcomm_request_free(eng);
    hc_mpi_coll_free(cx);
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  hcomm_request_t *w = NULL;
  hc_status_t st = hcomm_hccl_icoll(c->engine, &hx.a, hx.usable, hx.device, eng,
                                    coll_load_all, cx, &w);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return hc_mpi_request_wrap(fn, c, w, request);
}

hc_status_t hc_mpi_coll_load(hc_mpi_coll_t *cx) { return coll_load_all(cx); }

hc_status_t hc_mpi_coll_end(hc_mpi_coll_t *cx, hc_status_t rc) {
  if (rc == HC_OK)
    rc = coll_unpack_all(cx);
  hc_mpi_coll_free(cx);
  return rc;
}

int hc_mpi_coll_finish(const char *fn, hc_mpi_comm_t *c, hc_mpi_coll_t *cx,
                       hc_status_t rc, hcomm_request_t *eng,
                       MPI_Request *request) {
  if (cx->hccl != NULL) /* an _init that failed early left it on */
    (void)hcomm_hccl_plan_next(c->engine, 0);
  if (rc != HC_OK) {
    hc_mpi_coll_free(cx);
    return hc_mpi_raise_status(c, fn, rc);
  }
  if (cx->hccl != NULL)
    return coll_hccl_hand(fn, c, cx, eng, request);
  if (request == NULL) {
    rc = hcomm_wait(eng, NULL);
    hcomm_request_free(eng);
    return hc_mpi_raise_status(c, fn, hc_mpi_coll_end(cx, rc));
  }
  if (cx->persistent)
    return coll_persistent_wrap(fn, c, cx, eng, request);
  if (cx->jobs.n == 0 && cx->ntmps == 0 && cx->arena_used == 0 &&
      !cx->holds_red)
    hc_mpi_coll_free(cx);
  else if (hcomm_icoll_on_complete(eng, coll_done_cb, cx) != HC_OK)
    hc_mpi_coll_free(cx); /* cannot happen for a fresh collective */
  return hc_mpi_request_wrap(fn, c, eng, request);
}

int hc_mpi_coll_enter(const char *fn, MPI_Comm comm, int nb,
                      MPI_Request *request, hc_mpi_comm_t **c) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS && nb)
    rc = hc_mpi_check_ptr(fn, *c, request, "request");
  return rc;
}

int hc_mpi_coll_type(const char *fn, hc_mpi_comm_t *c, MPI_Count count,
                     MPI_Datatype type, const hc_mpi_type_t **t) {
  /* The good case in one lookup and three tests (every collective checks
   * one or two types per call); anything else takes the checks one by one,
   * which name what is wrong. */
  const hc_mpi_type_t *found = hc_mpi_type_get(type);
  if (count >= 0 && found != NULL && found->committed) {
    *t = found;
    return MPI_SUCCESS;
  }
  int rc = hc_mpi_check_count(fn, c, count);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, c, type, t);
  return rc;
}

int hc_mpi_coll_counts(const char *fn, hc_mpi_comm_t *c, hc_mpi_vec_t counts,
                       int n, const char *what) {
  int rc = hc_mpi_check_ptr(fn, c, hc_mpi_vec_ptr(counts), what);
  for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
    if (hc_mpi_vec_at(counts, i) < 0)
      rc = hc_mpi_raise(c, fn, MPI_ERR_COUNT, "invalid count %s[%d] = %lld",
                        what, i, (long long)hc_mpi_vec_at(counts, i));
  return rc;
}

int hc_mpi_coll_info(const char *fn, MPI_Comm comm, MPI_Info info) {
  if (info == MPI_INFO_NULL || hc_mpi_info_get(info) != NULL)
    return MPI_SUCCESS;
  return hc_mpi_raise(hc_mpi_comm_get(comm), fn, MPI_ERR_INFO,
                      "invalid info 0x%x", (unsigned)info);
}

int hc_mpi_coll_nomem(const char *fn, hc_mpi_comm_t *c, hc_mpi_coll_t *cx) {
  hc_status_t err = cx != NULL ? cx->err : HC_OK;
  hc_mpi_coll_free(cx);
  if (err != HC_OK)
    return hc_mpi_raise_status(c, fn, err);
  return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
}

/* The engine takes MPI's names of an intercommunicator root as they are. */
_Static_assert(MPI_ROOT == HCOMM_ROOT && MPI_PROC_NULL == HCOMM_PROC_NULL,
               "root names of intercommunicator collectives");

int hc_mpi_coll_inter(const hc_mpi_comm_t *c) {
  return hcomm_comm_is_inter(c->engine);
}

int hc_mpi_coll_is_root(const hc_mpi_comm_t *c, int root) {
  if (hcomm_comm_is_inter(c->engine))
    return root == MPI_ROOT;
  return hcomm_comm_rank(c->engine) == root;
}

int hc_mpi_coll_idle(const hc_mpi_comm_t *c, int root) {
  return root == MPI_PROC_NULL && hcomm_comm_is_inter(c->engine);
}

int hc_mpi_coll_intra_only(const char *fn, hc_mpi_comm_t *c) {
  if (!hcomm_comm_is_inter(c->engine))
    return MPI_SUCCESS;
  return hc_mpi_raise(c, fn, MPI_ERR_COMM,
                      "not defined on an intercommunicator");
}

int hc_mpi_coll_buf_check(const char *fn, hc_mpi_comm_t *c, const void *buf,
                          int moves_data, const hc_mpi_type_t *t,
                          const char *what) {
  if (buf == MPI_IN_PLACE)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE is not allowed as %s", what);
  if (buf == NULL && moves_data && (t == NULL || t->true_lb == 0))
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "%s is NULL", what);
  return MPI_SUCCESS;
}

int hc_mpi_coll_direct(const void *buf, const hc_mpi_type_t *type) {
  hcomm_mem_info_t info;
  return hc_mpi_coll_dense(type) && !hc_mpi_dev_classify(buf, &info);
}

int hc_mpi_coll_host_classify(const void *a, const void *b) {
  hcomm_mem_info_t info;
  return !hc_mpi_dev_classify(a, &info) && !hc_mpi_dev_classify(b, &info);
}

/* 0 not asked yet, 1 every collective takes the general path, 2 the
 * blocking ones of intracommunicators may take the fast path. */
static atomic_int coll_fast_state;

/* Whether any blocking collective may skip the general path: not when
 * HCCL's collectives are on (every rank of a reduction or Bcast takes part
 * in the engine's agreement whether HCCL runs it, whatever its own buffers
 * are) nor under HCMPI_CHECK_COLL=1 (the rooted ones agree their arguments
 * first).  Both are decided once per process. */
static int coll_fast_allowed(void) {
  int s = atomic_load_explicit(&coll_fast_state, memory_order_relaxed);
  if (s == 0) {
    s = hcomm_hccl_coll_enabled() || hc_mpi_coll_check_on() ? 1 : 2;
    atomic_store_explicit(&coll_fast_state, s, memory_order_relaxed);
  }
  return s == 2;
}

hc_mpi_coll_fast_t *hc_mpi_coll_fast_decide(hc_mpi_comm_t *c) {
  if (!coll_fast_allowed() || hcomm_comm_is_inter(c->engine))
    return NULL;
  hc_mpi_coll_fast_t *f = &c->coll_fast;
  f->rank = hcomm_comm_rank(c->engine);
  f->size = hcomm_comm_size(c->engine);
  f->ready = 1;
  return f;
}

const hc_mpi_type_t *hc_mpi_coll_fast_move_decide(hc_mpi_coll_fast_t *f,
                                                  MPI_Datatype type) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  /* Predefined types are never freed, so remembering the object is safe. */
  if (t == NULL || !t->committed || !t->predefined || !hc_mpi_coll_dense(t))
    return NULL;
  f->move_handle = type;
  f->move_type = t;
  return t;
}

const hcomm_reduce_op_t *hc_mpi_coll_fast_red_decide(hc_mpi_coll_fast_t *f,
                                                     MPI_Datatype type,
                                                     MPI_Op op) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  hcomm_reduce_op_t kernel;
  size_t packed = 1;
  if (t == NULL || !t->committed || !t->predefined ||
      !hc_mpi_op_is_predefined(op) ||
      hc_mpi_op_resolve(op, type, &kernel, &packed) != MPI_SUCCESS ||
      packed != 0)
    return NULL;
  f->red_handle = type;
  f->red_op = op;
  f->red_type = t;
  f->red_kernel = kernel;
  return &f->red_kernel;
}

/* The bytes of a block when sendcount elements of sendtype (unless sendbuf
 * is MPI_IN_PLACE) and recvcount of recvtype are the same positive number
 * of bytes of predefined dense types, in host buffers that are there, on
 * an intracommunicator comm (*c its object); 0: the general path. */
static size_t coll_fast_blocks(MPI_Comm comm, const void *sendbuf,
                               MPI_Count sendcount, MPI_Datatype sendtype,
                               const void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype recvtype, hc_mpi_comm_t **c) {
  int in_place = sendbuf == MPI_IN_PLACE;
  *c = hc_mpi_comm_try(comm);
  hc_mpi_coll_fast_t *f = *c != NULL ? hc_mpi_coll_fast(*c) : NULL;
  const hc_mpi_type_t *rt = f != NULL ? hc_mpi_coll_fast_move(f, recvtype) : NULL;
  /* Above one block of HC_MPI_COLL_FAST_BLOCK_MAX elements the general
   * path decides; below it count * size cannot overflow. */
  if (rt == NULL || recvcount <= 0 || recvcount > HC_MPI_COLL_FAST_BLOCK_MAX ||
      recvbuf == NULL || recvbuf == MPI_IN_PLACE || sendbuf == NULL)
    return 0;
  size_t bytes = (size_t)recvcount * (size_t)rt->size;
  if (!in_place) {
    const hc_mpi_type_t *st = hc_mpi_coll_fast_move(f, sendtype);
    /* (an overlap of the two sides goes the general way, which refuses
     * it) */
    if (st == NULL || sendcount < 0 || sendcount > HC_MPI_COLL_FAST_BLOCK_MAX ||
        (size_t)sendcount * (size_t)st->size != bytes ||
        hc_mpi_coll_overlap(sendbuf, bytes, recvbuf, bytes * (size_t)f->size))
      return 0;
  }
  return hc_mpi_coll_host(in_place ? NULL : sendbuf, recvbuf) ? bytes : 0;
}

int hc_mpi_coll_fast_exchange(const char *fn, int alltoall,
                              const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm) {
  hc_mpi_comm_t *c = NULL;
  size_t bytes = coll_fast_blocks(comm, sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, recvtype, &c);
  if (bytes == 0)
    return -1;
  const void *send = sendbuf == MPI_IN_PLACE ? HCOMM_IN_PLACE : sendbuf;
  hc_status_t st = alltoall
                       ? hcomm_alltoall(send, bytes, recvbuf, c->engine)
                       : hcomm_allgather(send, bytes, recvbuf, c->engine);
  return hc_mpi_raise_status(c, fn, st);
}

int hc_mpi_coll_fast_table(hc_mpi_coll_fast_t *f, const void *buf,
                           hc_mpi_vec_t counts, hc_mpi_vec_t displs,
                           MPI_Datatype type, size_t *sizes, size_t *offs) {
  const hc_mpi_type_t *t = hc_mpi_coll_fast_move(f, type);
  if (t == NULL || buf == MPI_IN_PLACE || hc_mpi_vec_ptr(counts) == NULL ||
      hc_mpi_vec_ptr(displs) == NULL)
    return -1;
  /* Each entry as hc_mpi_coll_fast_side's count, the type looked up once. */
  MPI_Count any = 0;
  for (int r = 0; r < f->size; r++) {
    MPI_Count n = hc_mpi_vec_at(counts, r), d = hc_mpi_vec_at(displs, r);
    if (n < 0 || n > HC_MPI_COLL_FAST_BLOCK_MAX || d < 0 ||
        d > HC_MPI_COLL_FAST_BLOCK_MAX)
      return -1; /* (no overflow below it) */
    any |= n;
    sizes[r] = (size_t)n * t->size;
    offs[r] = (size_t)d * t->size;
  }
  return buf == NULL && any != 0 ? -1 : 0;
}

int hc_mpi_coll_any(hc_mpi_vec_t counts, int n) {
  for (int i = 0; i < n; i++)
    if (hc_mpi_vec_at(counts, i) > 0)
      return 1;
  return 0;
}

size_t *hc_mpi_coll_sizes(hc_mpi_coll_t *cx, int n) {
  return hc_mpi_coll_tmp(cx, 2 * (size_t)n * sizeof(size_t));
}

hc_mpi_coll_block_t *hc_mpi_coll_blocks(hc_mpi_coll_t *cx,
                                        const hc_mpi_type_t *t, int n,
                                        hc_mpi_vec_t counts,
                                        hc_mpi_vec_t displs) {
  hc_mpi_coll_block_t *b = hc_mpi_coll_tmp(cx, (size_t)n * sizeof *b);
  int vform = hc_mpi_vec_ptr(displs) != NULL;
  for (int i = 0; b != NULL && i < n; i++) {
    b[i].type = t;
    b[i].count = hc_mpi_vec_at(counts, vform ? i : 0);
    b[i].disp =
        (vform ? hc_mpi_vec_at(displs, i) : i * hc_mpi_vec_at(counts, 0)) *
        t->extent;
  }
  return b;
}

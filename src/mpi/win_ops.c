/*
 * One-sided operations: MPI_Put, MPI_Get, MPI_Accumulate,
 * MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap and the
 * request forms.
 *
 * The face turns each into the engine's hcomm_rma_op_t: the origin data
 * as a packed stream (hc_mpi_type_pack), and the target datatype as the
 * list of contiguous pieces the type walker (hc_mpi_type_visit) finds in
 * target_count elements, so the target needs no copy of the type.  The
 * range check happens here, against the target's window size every rank
 * learnt at creation.  Accumulates name the op and the one predefined
 * type of their elements; the target combines through hc_mpi_win_combine.
 * Origin, compare and result buffers in device memory are staged here
 * (devstage.c), so the engine only ever sees host memory on the origin's
 * side; a window over device memory is the engine's to stage (rma.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/devstage.h"
#include "mpi/handle.h"
#include "mpi/op.h"
#include "mpi/win.h"

/* ---- the target's shape ----------------------------------------------------
 */

typedef struct win_shape {
  hcomm_rma_seg_t *segs; /* &first until a second piece comes */
  hcomm_rma_seg_t first;
  size_t n, cap;
  MPI_Aint lo, hi; /* bounds of the pieces, from the target address */
  int nomem;
} win_shape_t;

/* The type walker computes piece addresses from this made-up base (never
 * dereferenced), so offsets below zero stay representable. */
#define WIN_SHAPE_BASE ((uintptr_t)1 << 46)

static void win_shape_visit(void *ctx, char *mem, MPI_Count pos, MPI_Aint len,
                            int unit) {
  win_shape_t *s = ctx;
  (void)pos;
  (void)unit;
  MPI_Aint off = (MPI_Aint)((uintptr_t)mem - WIN_SHAPE_BASE);
  if (s->n == 0 || off < s->lo)
    s->lo = off;
  if (s->n == 0 || off + len > s->hi)
    s->hi = off + len;
  hcomm_rma_seg_t *last = s->n > 0 ? &s->segs[s->n - 1] : NULL;
  if (last != NULL && (MPI_Aint)(last->off + last->len) == off) {
    last->len += (size_t)len;
    return;
  }
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 8;
    int inline_first = s->segs == &s->first;
    hcomm_rma_seg_t *segs = inline_first ? malloc(cap * sizeof *segs)
                                         : realloc(s->segs, cap * sizeof *segs);
    if (segs == NULL) {
      s->nomem = 1;
      return;
    }
    if (inline_first)
      segs[0] = s->first;
    s->segs = segs;
    s->cap = cap;
  }
  s->segs[s->n++] = (hcomm_rma_seg_t){(size_t)off, (size_t)len};
}

static void win_shape_free(win_shape_t *s) {
  if (s->segs != &s->first)
    free(s->segs);
}

/* The pieces of count elements of t, offsets made relative to s->lo. */
static int win_shape_build(const hc_mpi_type_t *t, MPI_Count count,
                           win_shape_t *s) {
  memset(s, 0, sizeof *s);
  s->segs = &s->first; /* most shapes are one piece: no allocation */
  s->cap = 1;
  MPI_Count total = count * t->size;     /* win_typed checked it */
  if (total > 0 && hc_mpi_type_dense(t)) /* one piece; no walk per element */
    win_shape_visit(s, (char *)(WIN_SHAPE_BASE + (uintptr_t)t->true_lb), 0,
                    (MPI_Aint)total, 1);
  else if (total > 0)
    hc_mpi_type_visit(t, (void *)WIN_SHAPE_BASE, 0, total, win_shape_visit, s);
  if (s->nomem)
    return MPI_ERR_NO_MEM;
  for (size_t i = 0; i < s->n; i++)
    s->segs[i].off = (size_t)((MPI_Aint)s->segs[i].off - s->lo);
  return MPI_SUCCESS;
}

/* ---- results --------------------------------------------------------------
 */

/* A result that lands packed and is unpacked into the user's buffer. */
typedef struct win_result {
  void *stream;
  void *buf;
  MPI_Count count;
  const hc_mpi_type_t *type;
  size_t bytes;
} win_result_t;

/* Runs under the engine lock once the result landed (or the operation
 * failed: nothing landed, the user's buffer stays as it was): nothing
 * that takes it (the device layer's copy into a device buffer does not; a
 * failed one is logged there). */
static void win_result_done(void *arg, hc_status_t status) {
  win_result_t *r = arg;
  if (status == HC_OK)
    hc_mpi_unpack_any(r->type, r->stream, (MPI_Count)r->bytes, r->count,
                      r->buf);
  hc_mpi_type_release(r->type);
  free(r->stream);
  free(r);
}

/* Points op's result at the user's buffer when the type is dense there in
 * host memory, else at a packed copy unpacked at completion. */
static int win_result_setup(hcomm_rma_op_t *op, void *buf, MPI_Count count,
                            const hc_mpi_type_t *t, size_t bytes, int device) {
  op->result_bytes = bytes;
  if (hc_mpi_type_dense(t) && !device) {
    op->result = (char *)buf + t->true_lb;
    return MPI_SUCCESS;
  }
  win_result_t *r = calloc(1, sizeof *r);
  void *stream = malloc(bytes ? bytes : 1);
  if (r == NULL || stream == NULL) {
    free(r);
    free(stream);
    return MPI_ERR_NO_MEM;
  }
  *r = (win_result_t){stream, buf, count, hc_mpi_type_retain(t), bytes};
  op->result = stream;
  op->done = win_result_done;
  op->arg = r;
  return MPI_SUCCESS;
}

static void win_result_drop(hcomm_rma_op_t *op) {
  win_result_t *r = op->arg;
  if (r == NULL)
    return;
  hc_mpi_type_release(r->type);
  free(r->stream);
  free(r);
}

/* ---- one operation ----------------------------------------------------------
 */

/* A buffer with its count and type, as the calls give them. */
typedef struct win_data {
  const void *buf;
  MPI_Count count; /* the plain calls' int counts widened */
  MPI_Datatype type;
} win_data_t;

/* What a call asks for. */
typedef struct win_call {
  const char *fn;
  hc_mpi_win_t *w;
  int kind; /* hcomm_rma_kind */
  win_data_t origin;
  win_data_t result;
  const void *compare; /* MPI_Compare_and_swap */
  int target;
  MPI_Aint disp;
  win_data_t tdata; /* buf unused */
  MPI_Op op;
  MPI_Request *request; /* NULL: no request form */
  int origin_device;    /* origin or compare buffer in device memory */
  int result_device;    /* result buffer in device memory */
  hcomm_mem_info_t local_mem; /* what a put's origin or a get's result is */
} win_call_t;

static int win_typed(const win_call_t *c, const win_data_t *d,
                     const hc_mpi_type_t **t, size_t *bytes) {
  MPI_Count total = 0;
  if (d->count < 0)
    return hc_mpi_raise(c->w->errcomm, c->fn, MPI_ERR_COUNT,
                        "invalid count %lld", (long long)d->count);
  int rc = hc_mpi_check_type(c->fn, c->w->errcomm, d->type, t);
  if (rc == MPI_SUCCESS &&
      (__builtin_mul_overflow(d->count, (*t)->size, &total) ||
       (unsigned long long)total > SIZE_MAX))
    rc = hc_mpi_raise(c->w->errcomm, c->fn, MPI_ERR_COUNT,
                      "%lld elements of %lld bytes overflow",
                      (long long)d->count, (long long)(*t)->size);
  if (rc == MPI_SUCCESS)
    *bytes = (size_t)total;
  return rc;
}

/* Accumulate kinds: a predefined op, both sides of one predefined type. */
static int win_check_accumulate(const win_call_t *c, int *base) {
  MPI_Datatype tb = MPI_DATATYPE_NULL, ob = MPI_DATATYPE_NULL;
  hcomm_reduce_op_t kernel;
  hc_mpi_comm_t *e = c->w->errcomm;
  if (!hc_mpi_op_is_predefined(c->op))
    return hc_mpi_raise(e, c->fn, MPI_ERR_OP,
                        "one-sided accumulates take predefined ops only");
  if (c->kind == HCOMM_RMA_ACC && c->op == MPI_NO_OP)
    return hc_mpi_raise(e, c->fn, MPI_ERR_OP,
                        "MPI_NO_OP applies only to MPI_Get_accumulate, "
                        "MPI_Rget_accumulate and MPI_Fetch_and_op");
  if (hc_mpi_op_basic_type(c->tdata.type, &tb) != MPI_SUCCESS ||
      (c->op != MPI_NO_OP &&
       hc_mpi_op_basic_type(c->origin.type, &ob) != MPI_SUCCESS) ||
      (c->op != MPI_NO_OP && ob != tb))
    return hc_mpi_raise(e, c->fn, MPI_ERR_TYPE,
                        "origin and target must consist of one and the same "
                        "predefined type");
  int rc = hc_mpi_op_resolve_stream(c->op, tb, &kernel);
  if (rc != MPI_SUCCESS)
    return hc_mpi_raise(e, c->fn, rc, "op 0x%x is not defined on type 0x%x",
                        (unsigned)c->op, (unsigned)tb);
  *base = tb;
  return MPI_SUCCESS;
}

/* The origin stream (packed origin data; for compare-and-swap the compare
 * value follows): HC_OK, HC_ERR_NOMEM or a failed device copy's status. */
static hc_status_t win_origin_stream(const win_call_t *c,
                                     const hc_mpi_type_t *ot, size_t bytes,
                                     void **out, int *owned) {
  /* Dense origin data in host memory is its own stream: the engine
   * copies or moves it before hcomm_rma_issue returns. */
  *owned =
      c->kind == HCOMM_RMA_CAS || !hc_mpi_type_dense(ot) || c->origin_device;
  if (!*owned) {
    *out = (char *)(uintptr_t)c->origin.buf + ot->true_lb;
    return HC_OK;
  }
  size_t total = c->kind == HCOMM_RMA_CAS ? 2 * bytes : bytes;
  unsigned char *s = malloc(total ? total : 1);
  if (s == NULL)
    return HC_ERR_NOMEM;
  hc_status_t st = HC_OK;
  if (c->origin_device)
    st = hc_mpi_pack_any(ot, c->origin.buf, c->origin.count, s);
  else if (hc_mpi_type_dense(ot))
    memcpy(s, (const char *)c->origin.buf + ot->true_lb, bytes);
  else
    hc_mpi_type_pack(ot, c->origin.buf, c->origin.count, s);
  if (st == HC_OK && c->kind == HCOMM_RMA_CAS)
    st = hc_mpi_pack_any(ot, c->compare, 1, s + bytes);
  if (st != HC_OK)
    free(s);
  else
    *out = s;
  return st;
}

static int win_raise_issue(const win_call_t *c, hc_status_t st) {
  if (st == HC_ERR_ARG && c->w->nic_atomics)
    return hc_mpi_raise(c->w->errcomm, c->fn, MPI_ERR_OP,
                        "this window accumulates by NIC atomics, which take "
                        "only whole 8-byte aligned words of rank %d's window",
                        c->target);
  if (st == HC_ERR_RMA_SYNC)
    return hc_mpi_raise(c->w->errcomm, c->fn, MPI_ERR_RMA_SYNC,
                        "no access epoch to rank %d is open", c->target);
  return hc_mpi_raise_status(c->w->errcomm, c->fn, st);
}

/* Bounds of the access against the target's window. */
static int win_check_range(const win_call_t *c, const win_shape_t *s,
                           size_t *disp) {
  hcomm_win_t *e = c->w->engine;
  if (hcomm_win_is_dynamic(e)) {
    *disp = (size_t)(c->disp + s->lo);
    return MPI_SUCCESS;
  }
  MPI_Aint unit = hcomm_win_target_disp_unit(e, c->target);
  MPI_Aint size = (MPI_Aint)hcomm_win_target_size(e, c->target);
  MPI_Aint at;
  if (s->n > 0 && (c->disp < 0 || __builtin_mul_overflow(c->disp, unit, &at) ||
                   at + s->lo < 0 || at + s->hi > size))
    return hc_mpi_raise(c->w->errcomm, c->fn, MPI_ERR_RMA_RANGE,
                        "displacement %ld (unit %ld) and %ld bytes of data "
                        "fall outside rank %d's window of %ld bytes",
                        (long)c->disp, (long)unit, (long)(s->hi - s->lo),
                        c->target, (long)size);
  *disp = s->n > 0 ? (size_t)(at + s->lo) : 0;
  return MPI_SUCCESS;
}

/* 1 for a predefined integer type of 8 bytes. */
static int win_is_int64(MPI_Datatype type) {
  static const MPI_Datatype int64s[] = {MPI_INT64_T,
                                        MPI_UINT64_T,
                                        MPI_LONG,
                                        MPI_LONG_LONG,
                                        MPI_UNSIGNED_LONG_LONG,
                                        MPI_UNSIGNED_LONG,
                                        MPI_AINT,
                                        MPI_OFFSET,
                                        MPI_COUNT};
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  if (t == NULL || t->size != 8)
    return 0;
  for (size_t i = 0; i < sizeof int64s / sizeof int64s[0]; i++)
    if (type == int64s[i])
      return 1;
  return 0;
}

/* On a window with NIC atomics (win.c: its info promised them), the
 * device operation of an accumulate kind; an operation outside the
 * contract is MPI_ERR_OP, never applied another way, since the device's
 * atomics are not atomic against anything else. */
static int win_nic_contract(const win_call_t *c, hcomm_rma_op_t *op) {
  if (!win_is_int64((MPI_Datatype)op->type))
    return hc_mpi_raise(c->w->errcomm, c->fn, MPI_ERR_OP,
                        "this window accumulates by NIC atomics, which take "
                        "only 8-byte integers (MPI_INT64_T, MPI_UINT64_T "
                        "and C types of that size), not type 0x%x",
                        (unsigned)op->type);
  if (c->kind == HCOMM_RMA_CAS)
    op->nic = HCOMM_RMA_NIC_CAS;
  else if (c->op == MPI_SUM || c->op == MPI_NO_OP)
    op->nic = HCOMM_RMA_NIC_ADD;
  else if (c->op == MPI_REPLACE)
    op->nic = HCOMM_RMA_NIC_REPLACE;
  else
    return hc_mpi_raise(c->w->errcomm, c->fn, MPI_ERR_OP,
                        "this window accumulates by NIC atomics, which do "
                        "only MPI_SUM, MPI_REPLACE, MPI_NO_OP and "
                        "compare-and-swap, not op 0x%x",
                        (unsigned)c->op);
  return MPI_SUCCESS;
}

/* Checks and sizes of every side; *done when nothing is to move. */
static int win_prepare(const win_call_t *c, hcomm_rma_op_t *op,
                       const hc_mpi_type_t **ot, const hc_mpi_type_t **rt,
                       win_shape_t *shape) {
  const hc_mpi_type_t *tt = NULL;
  size_t tbytes = 0, obytes = 0, rbytes = 0;
  hc_mpi_comm_t *e = c->w->errcomm;
  int has_origin = c->kind != HCOMM_RMA_GET && c->op != MPI_NO_OP;
  int has_result = c->kind == HCOMM_RMA_GET || c->kind == HCOMM_RMA_GET_ACC ||
                   c->kind == HCOMM_RMA_CAS;
  int rc = win_typed(c, &c->tdata, &tt, &tbytes);
  if (rc == MPI_SUCCESS && has_origin)
    rc = win_typed(c, &c->origin, ot, &obytes);
  if (rc == MPI_SUCCESS && has_result)
    rc = win_typed(c, &c->result, rt, &rbytes);
  if (rc == MPI_SUCCESS &&
      ((has_origin && obytes != tbytes) || (has_result && rbytes != tbytes)))
    rc = hc_mpi_raise(e, c->fn, MPI_ERR_TYPE,
                      "origin, result and target data sizes differ (%zu, "
                      "%zu, %zu bytes)",
                      obytes, rbytes, tbytes);
  if (rc == MPI_SUCCESS && c->kind == HCOMM_RMA_CAS &&
      !hc_mpi_op_cas_type(c->tdata.type))
    rc = hc_mpi_raise(e, c->fn, MPI_ERR_TYPE,
                      "compare-and-swap takes one predefined integer, "
                      "logical or byte type, not 0x%x",
                      (unsigned)c->tdata.type);
  if (rc == MPI_SUCCESS && tbytes > 0 && c->kind != HCOMM_RMA_PUT &&
      c->kind != HCOMM_RMA_GET)
    rc = win_check_accumulate(c, &op->type);
  if (rc == MPI_SUCCESS && tbytes > 0 && c->w->nic_atomics &&
      c->kind != HCOMM_RMA_PUT && c->kind != HCOMM_RMA_GET)
    rc = win_nic_contract(c, op);
  if (rc == MPI_SUCCESS && (rc = win_shape_build(tt, c->tdata.count, shape)))
    rc = hc_mpi_raise(e, c->fn, rc, "out of memory");
  if (rc == MPI_SUCCESS)
    rc = win_check_range(c, shape, &op->disp);
  op->bytes = has_origin ? obytes : 0;
  op->result_bytes = has_result ? rbytes : 0;
  return rc;
}

static int win_issue(const win_call_t *c, hcomm_rma_op_t *op,
                     const hc_mpi_type_t *ot, const hc_mpi_type_t *rt) {
  void *stream = NULL;
  int owned = 0;
  hcomm_request_t *eng = NULL;
  int rc = MPI_SUCCESS;
  if (op->bytes > 0) {
    hc_status_t staged = win_origin_stream(c, ot, op->bytes, &stream, &owned);
    if (staged != HC_OK)
      return hc_mpi_raise_status(c->w->errcomm, c->fn, staged);
  }
  size_t rbytes = op->result_bytes;
  if (rt != NULL)
    rc = win_result_setup(op, (void *)c->result.buf, c->result.count, rt,
                          rbytes, c->result_device);
  if (rc != MPI_SUCCESS) {
    if (owned)
      free(stream);
    return hc_mpi_raise(c->w->errcomm, c->fn, rc, "out of memory");
  }
  if (c->kind == HCOMM_RMA_CAS)
    op->bytes *= 2;
  op->data = stream;
  hc_status_t st =
      hcomm_rma_issue(c->w->engine, op, c->request != NULL ? &eng : NULL);
  if (owned)
    free(stream); /* the engine copied it */
  if (st != HC_OK) {
    win_result_drop(op);
    return win_raise_issue(c, st);
  }
  if (c->request != NULL)
    return hc_mpi_request_wrap(c->fn, c->w->errcomm, eng, c->request);
  return MPI_SUCCESS;
}

/* ---- one element of a predefined type --------------------------------------
 */

/* The kernel this thread last resolved for the fast path, by (op, type),
 * and whether compare-and-swap takes that type (looked up once with the
 * kernel, not on every call). */
typedef struct win_memo {
  int valid;
  int cas_type;
  MPI_Op op;
  MPI_Datatype type;
  hcomm_reduce_op_t kernel;
} win_memo_t;

static __thread win_memo_t win_memo __attribute__((tls_model("initial-exec")));

/* The kernel of op on one element of type, when type is predefined and
 * its element is its own packed stream (no gap, at most 16 bytes); else
 * NULL.  Resolves and remembers it; out of line, as a thread's calls
 * mostly repeat the (op, type) of the one before. */
static __attribute__((noinline)) const hcomm_reduce_op_t *
win_memo_resolve(MPI_Op op, MPI_Datatype type) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  hcomm_reduce_op_t k;
  if (t == NULL || !t->predefined || t->size <= 0 || t->size > 16 ||
      t->size != t->extent || t->true_lb != 0 ||
      hc_mpi_op_resolve_stream(op, type, &k) != MPI_SUCCESS ||
      k.elem_size != (size_t)t->size)
    return NULL;
  win_memo = (win_memo_t){1, hc_mpi_op_cas_type(type), op, type, k};
  return &win_memo.kernel;
}

static inline const hcomm_reduce_op_t *win_memo_kernel(MPI_Op op,
                                                       MPI_Datatype type) {
  int hit = win_memo.valid && win_memo.op == op && win_memo.type == type;
  if (__builtin_expect(hit, 1))
    return &win_memo.kernel;
  return win_memo_resolve(op, type);
}

/* One element of type at both ends of an accumulate kind (kernel of op;
 * for HCOMM_RMA_CAS, a compare and swap), without a request, on host
 * buffers: straight to the engine's single-element path.  MPI_SUCCESS
 * when done there; -1 to take the general path, which also finds and
 * raises every error. */
__attribute__((always_inline)) static inline int
win_atomic_direct(hc_mpi_win_t *w, int kind, MPI_Op op, MPI_Datatype type,
                  const void *in, const void *compare, void *old, int target,
                  MPI_Aint disp) {
  if (w->nic_atomics || target < 0 || target >= w->nranks || disp < 0 ||
      (kind == HCOMM_RMA_ACC && op == MPI_NO_OP))
    return -1;
  const hcomm_reduce_op_t *k = win_memo_kernel(op, type);
  if (k == NULL || (kind == HCOMM_RMA_CAS && !win_memo.cas_type))
    return -1;
  hcomm_rma_atomic_t a = {.target = target,
                          .disp = (size_t)disp,
                          .elem = k->elem_size,
                          .kernel = kind == HCOMM_RMA_CAS ? NULL : k,
                          .in = in,
                          .compare = compare,
                          .old = old};
  return hcomm_rma_atomic(w->engine, &a) == HC_OK ? MPI_SUCCESS : -1;
}

/* The window of a call that may take win_atomic_direct before the face
 * gathers anything: host memory only, on a window this thread used last;
 * NULL to take the general path. */
static hc_mpi_win_t *win_atomic_window(MPI_Win win) {
  if (!hc_mpi_is_ready() || hcomm_mem_any_device())
    return NULL;
  return hc_mpi_win_lookup(win);
}

/* win_atomic_direct for MPI_Fetch_and_op, MPI_Compare_and_swap and
 * accumulates of one element of one predefined type at both ends, from
 * inside win_call (after the device classification). */
static int win_atomic_fast(const win_call_t *c) {
  MPI_Datatype type = c->tdata.type;
  int reads = c->kind == HCOMM_RMA_GET_ACC || c->kind == HCOMM_RMA_CAS;
  int writes = c->kind == HCOMM_RMA_CAS || c->op != MPI_NO_OP;
  if (c->request != NULL || c->tdata.count != 1 ||
      (c->kind != HCOMM_RMA_ACC && !reads) ||
      (reads && (c->result.count != 1 || c->result.type != type)) ||
      (writes && (c->origin.count != 1 || c->origin.type != type)))
    return -1;
  return win_atomic_direct(c->w, c->kind, c->op, type, c->origin.buf,
                           c->compare, reads ? (void *)c->result.buf : NULL,
                           c->target, c->disp);
}

/* ---- dense puts and gets ----------------------------------------------------
 */

/* What the copy path needs of a type: its element's bytes and where they
 * start, when count elements are one contiguous piece (size 0: not so). */
typedef struct win_dense {
  MPI_Datatype type;
  MPI_Count size;
  MPI_Aint true_lb;
} win_dense_t;

/* The predefined type this thread last asked about: its handle is a
 * builtin one, which never names another type, so the answer keeps. */
static __thread win_dense_t win_dense_memo
    __attribute__((tls_model("initial-exec")));

static __attribute__((noinline)) win_dense_t
win_dense_resolve(MPI_Datatype type) {
  const hc_mpi_type_t *t = hc_mpi_type_get(type);
  win_dense_t d = {type, 0, 0};
  if (t != NULL && t->committed && t->size > 0 && t->true_lb >= 0 &&
      hc_mpi_type_dense(t)) {
    d.size = t->size;
    d.true_lb = t->true_lb;
  }
  if (d.size > 0 && hc_handle_kind(type) == HC_HANDLE_KIND_BUILTIN)
    win_dense_memo = d;
  return d;
}

static inline win_dense_t win_dense_of(MPI_Datatype type) {
  int hit = win_dense_memo.size > 0 && win_dense_memo.type == type;
  if (__builtin_expect(hit, 1))
    return win_dense_memo;
  return win_dense_resolve(type);
}

/* A put (put 1) or get of count elements of type at buf, with as many of
 * the same type at disp of target's window, where type is dense and
 * committed: one contiguous piece at both ends, straight to the engine's
 * copy (local_mem: what buf is; NULL, host memory; eng: where the
 * engine's request goes, NULL for none).  MPI_SUCCESS when done or queued
 * there; -1 to take the general path, which also finds and raises every
 * error. */
__attribute__((always_inline)) static inline int
win_copy_dense(hc_mpi_win_t *w, int put, const void *buf, MPI_Count count,
               MPI_Datatype type, int target, MPI_Aint disp, MPI_Count tcount,
               MPI_Datatype ttype, const hcomm_mem_info_t *local_mem,
               hcomm_request_t **eng) {
  if (type != ttype || count != tcount || count <= 0 || disp < 0 ||
      target < 0 || target >= w->nranks)
    return -1;
  win_dense_t t = win_dense_of(type);
  hcomm_win_t *e = w->engine;
  MPI_Count bytes;
  MPI_Aint at;
  if (t.size <= 0 || __builtin_mul_overflow(count, t.size, &bytes) ||
      (unsigned long long)bytes > SIZE_MAX ||
      __builtin_mul_overflow(
          disp, (MPI_Aint)hcomm_win_target_disp_unit(e, target), &at) ||
      __builtin_add_overflow(at, t.true_lb, &at))
    return -1;
  void *local = (char *)(uintptr_t)buf + t.true_lb;
  return hcomm_rma_copy(e, target, (size_t)at, local, local_mem, (size_t)bytes,
                        put, eng) == HC_OK
             ? MPI_SUCCESS
             : -1;
}

/* win_copy_dense from inside win_call: a call without a request, or
 * MPI_Rput and MPI_Rget of device buffers, whose request completes when
 * the engine's queued device copy is done.  -1: take the general path;
 * else what the call returns. */
static int win_copy_fast(const win_call_t *c) {
  int put = c->kind == HCOMM_RMA_PUT;
  const win_data_t *d = put ? &c->origin : &c->result;
  int device = put ? c->origin_device : c->result_device;
  hcomm_request_t *eng = NULL;
  if (c->request != NULL && !device)
    return -1;
  if (win_copy_dense(c->w, put, d->buf, d->count, d->type, c->target, c->disp,
                     c->tdata.count, c->tdata.type,
                     device ? &c->local_mem : NULL,
                     c->request != NULL ? &eng : NULL) != MPI_SUCCESS)
    return -1;
  if (c->request == NULL)
    return MPI_SUCCESS;
  return hc_mpi_request_wrap(c->fn, c->w->errcomm, eng, c->request);
}

static int win_call(win_call_t *c, MPI_Win win) {
  int rc = hc_mpi_win_enter(c->fn, win, &c->w);
  if (rc == MPI_SUCCESS && c->request != NULL)
    rc = hc_mpi_check_ptr(c->fn, c->w->errcomm, c->request, "request");
  if (rc != MPI_SUCCESS)
    return rc;
  int n = c->w->nranks;
  if (c->target == MPI_PROC_NULL) {
    if (c->request == NULL)
      return MPI_SUCCESS;
    hcomm_status_t none = {.source = MPI_PROC_NULL, .tag = MPI_ANY_TAG};
    return hc_mpi_request_new_done(c->fn, c->w->errcomm, &none, c->request);
  }
  if (c->target < 0 || c->target >= n)
    return hc_mpi_raise(c->w->errcomm, c->fn, MPI_ERR_RANK,
                        "invalid target rank %d for a window of %d", c->target,
                        n);
  if (hcomm_mem_any_device()) {
    hcomm_mem_info_t info;
    c->origin_device = hc_mpi_dev_classify(c->origin.buf, &c->local_mem) ||
                       hc_mpi_dev_classify(c->compare, &info);
    c->result_device = hc_mpi_dev_classify(c->result.buf, &info);
    if (c->result_device)
      c->local_mem = info;
  }
  /* The copy path moves device memory too; other device buffers are
   * staged on the general path. */
  if (c->kind == HCOMM_RMA_PUT || c->kind == HCOMM_RMA_GET) {
    int fast = win_copy_fast(c); /* done, or the request's failure */
    if (fast != -1)
      return fast;
  } else if (!c->origin_device && !c->result_device && !c->w->nic_atomics &&
             win_atomic_fast(c) == MPI_SUCCESS)
    return MPI_SUCCESS;
  hcomm_rma_op_t op = {.kind = c->kind, .target = c->target, .op = c->op};
  const hc_mpi_type_t *ot = NULL, *rt = NULL;
  win_shape_t shape = {0};
  rc = win_prepare(c, &op, &ot, &rt, &shape);
  if (rc == MPI_SUCCESS && shape.n == 0) {
    win_shape_free(&shape); /* no data */
    hcomm_status_t none = {.source = c->target};
    return c->request == NULL ? MPI_SUCCESS
                              : hc_mpi_request_new_done(c->fn, c->w->errcomm,
                                                        &none, c->request);
  }
  if (rc == MPI_SUCCESS) {
    op.segs = shape.segs;
    op.nsegs = shape.n;
    if (c->kind == HCOMM_RMA_GET_ACC && c->op == MPI_NO_OP) {
      op.kind = HCOMM_RMA_GET; /* an atomic read is all it asks */
      op.atomic_read = 1;
    }
    rc = win_issue(c, &op, ot, rt);
  }
  win_shape_free(&shape);
  return rc;
}

/* ---- the target's combine --------------------------------------------------
 */

hc_status_t hc_mpi_win_combine(int op, int type, const void *in, void *inout,
                               size_t bytes) {
  hcomm_reduce_op_t kernel;
  if (hc_mpi_op_resolve_stream(op, type, &kernel) != MPI_SUCCESS ||
      kernel.elem_size == 0)
    return HC_ERR_ARG;
  kernel.fn(in, inout, bytes / kernel.elem_size, kernel.ctx);
  return HC_OK;
}

/* ---- MPI functions
 * ----------------------------------------------------------- */

/* Put and get through win_call: with a request, device buffers, derived
 * types, and every call that fails (win_call raises the error). */
static __attribute__((noinline)) int
win_put_get_general(const char *fn, int kind, const void *buf, MPI_Count count,
                    MPI_Datatype type, int target, MPI_Aint disp,
                    MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
                    MPI_Request *request) {
  win_data_t d = {buf, count, type};
  win_call_t c = {.fn = fn,
                  .kind = kind,
                  .target = target,
                  .disp = disp,
                  .tdata = {NULL, tcount, ttype},
                  .op = kind == HCOMM_RMA_PUT ? MPI_REPLACE : MPI_NO_OP,
                  .request = request};
  if (kind == HCOMM_RMA_PUT)
    c.origin = d;
  else
    c.result = d;
  return win_call(&c, win);
}

/* Put and get, with or without a request: the common call first, host
 * buffers on a window this thread used last, before anything is
 * classified or gathered, in the entry's own frame; the general path
 * repeats every check and raises what fails. */
__attribute__((always_inline)) static inline int
win_put_get(const char *fn, int kind, const void *buf, MPI_Count count,
            MPI_Datatype type, int target, MPI_Aint disp, MPI_Count tcount,
            MPI_Datatype ttype, MPI_Win win, MPI_Request *request) {
  hc_mpi_win_t *w;
  if (request == NULL && hc_mpi_is_ready() && !hcomm_mem_any_device() &&
      (w = hc_mpi_win_lookup(win)) != NULL &&
      win_copy_dense(w, kind == HCOMM_RMA_PUT, buf, count, type, target, disp,
                     tcount, ttype, NULL, NULL) == MPI_SUCCESS)
    return MPI_SUCCESS;
  return win_put_get_general(fn, kind, buf, count, type, target, disp, tcount,
                             ttype, win, request);
}

/* The accumulate family: kind HCOMM_RMA_ACC has no result. */
static int win_accumulate(const char *fn, int kind, win_data_t origin,
                          win_data_t result, int target, MPI_Aint disp,
                          win_data_t tdata, MPI_Op op, MPI_Win win,
                          MPI_Request *request) {
  win_call_t c = {.fn = fn,
                  .kind = kind,
                  .origin = origin,
                  .result = result,
                  .target = target,
                  .disp = disp,
                  .tdata = tdata,
                  .op = op,
                  .request = request};
  return win_call(&c, win);
}

static const win_data_t win_no_result = {NULL, 0, MPI_DATATYPE_NULL};

int PMPI_Put(const void *origin_addr, int origin_count,
             MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win) {
  return win_put_get("MPI_Put", HCOMM_RMA_PUT, origin_addr, origin_count,
                     origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, NULL);
}
HC_WEAK_ALIAS(MPI_Put, PMPI_Put);

int PMPI_Rput(const void *origin_addr, int origin_count,
              MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) {
  return win_put_get("MPI_Rput", HCOMM_RMA_PUT, origin_addr, origin_count,
                     origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, request);
}
HC_WEAK_ALIAS(MPI_Rput, PMPI_Rput);

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win) {
  return win_put_get("MPI_Get", HCOMM_RMA_GET, origin_addr, origin_count,
                     origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, NULL);
}
HC_WEAK_ALIAS(MPI_Get, PMPI_Get);

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) {
  return win_put_get("MPI_Rget", HCOMM_RMA_GET, origin_addr, origin_count,
                     origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, request);
}
HC_WEAK_ALIAS(MPI_Rget, PMPI_Rget);

int PMPI_Accumulate(const void *origin_addr, int origin_count,
                    MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  hc_mpi_win_t *w;
  if (origin_count == 1 && target_count == 1 &&
      origin_datatype == target_datatype &&
      (w = win_atomic_window(win)) != NULL &&
      win_atomic_direct(w, HCOMM_RMA_ACC, op, target_datatype, origin_addr,
                        NULL, NULL, target_rank, target_disp) == MPI_SUCCESS)
    return MPI_SUCCESS;
  win_data_t o = {origin_addr, origin_count, origin_datatype};
  win_data_t t = {NULL, target_count, target_datatype};
  return win_accumulate("MPI_Accumulate", HCOMM_RMA_ACC, o, win_no_result,
                        target_rank, target_disp, t, op, win, NULL);
}
HC_WEAK_ALIAS(MPI_Accumulate, PMPI_Accumulate);

int PMPI_Raccumulate(const void *origin_addr, int origin_count,
                     MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request) {
  win_data_t o = {origin_addr, origin_count, origin_datatype};
  win_data_t t = {NULL, target_count, target_datatype};
  return win_accumulate("MPI_Raccumulate", HCOMM_RMA_ACC, o, win_no_result,
                        target_rank, target_disp, t, op, win, request);
}
HC_WEAK_ALIAS(MPI_Raccumulate, PMPI_Raccumulate);

int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, void *result_addr,
                        int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  win_data_t o = {origin_addr, origin_count, origin_datatype};
  win_data_t r = {result_addr, result_count, result_datatype};
  win_data_t t = {NULL, target_count, target_datatype};
  return win_accumulate("MPI_Get_accumulate", HCOMM_RMA_GET_ACC, o, r,
                        target_rank, target_disp, t, op, win, NULL);
}
HC_WEAK_ALIAS(MPI_Get_accumulate, PMPI_Get_accumulate);

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr,
                         int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype,
                         MPI_Op op, MPI_Win win, MPI_Request *request) {
  win_data_t o = {origin_addr, origin_count, origin_datatype};
  win_data_t r = {result_addr, result_count, result_datatype};
  win_data_t t = {NULL, target_count, target_datatype};
  return win_accumulate("MPI_Rget_accumulate", HCOMM_RMA_GET_ACC, o, r,
                        target_rank, target_disp, t, op, win, request);
}
HC_WEAK_ALIAS(MPI_Rget_accumulate, PMPI_Rget_accumulate);

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr,
                      MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  hc_mpi_win_t *w = win_atomic_window(win);
  if (w != NULL &&
      win_atomic_direct(w, HCOMM_RMA_GET_ACC, op, datatype, origin_addr, NULL,
                        result_addr, target_rank, target_disp) == MPI_SUCCESS)
    return MPI_SUCCESS;
  win_data_t o = {origin_addr, 1, datatype};
  win_data_t r = {result_addr, 1, datatype};
  win_data_t t = {NULL, 1, datatype};
  return win_accumulate("MPI_Fetch_and_op", HCOMM_RMA_GET_ACC, o, r,
                        target_rank, target_disp, t, op, win, NULL);
}
HC_WEAK_ALIAS(MPI_Fetch_and_op, PMPI_Fetch_and_op);

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                          void *result_addr, MPI_Datatype datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Win win) {
  hc_mpi_win_t *w = win_atomic_window(win);
  if (w != NULL && win_atomic_direct(w, HCOMM_RMA_CAS, MPI_REPLACE, datatype,
                                     origin_addr, compare_addr, result_addr,
                                     target_rank, target_disp) == MPI_SUCCESS)
    return MPI_SUCCESS;
  win_call_t c = {.fn = "MPI_Compare_and_swap",
                  .kind = HCOMM_RMA_CAS,
                  .origin = {origin_addr, 1, datatype},
                  .result = {result_addr, 1, datatype},
                  .compare = compare_addr,
                  .target = target_rank,
                  .disp = target_disp,
                  .tdata = {NULL, 1, datatype},
                  .op = MPI_REPLACE};
  return win_call(&c, win);
}
HC_WEAK_ALIAS(MPI_Compare_and_swap, PMPI_Compare_and_swap);

/* ---- large-count forms ----------------------------------------------------
 */

int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count,
               MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win) {
  return win_put_get("MPI_Put_c", HCOMM_RMA_PUT, origin_addr, origin_count,
                     origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, NULL);
}
HC_WEAK_ALIAS(MPI_Put_c, PMPI_Put_c);

int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count,
                MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request) {
  return win_put_get("MPI_Rput_c", HCOMM_RMA_PUT, origin_addr, origin_count,
                     origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, request);
}
HC_WEAK_ALIAS(MPI_Rput_c, PMPI_Rput_c);

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count,
               MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win) {
  return win_put_get("MPI_Get_c", HCOMM_RMA_GET, origin_addr, origin_count,
                     origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, NULL);
}
HC_WEAK_ALIAS(MPI_Get_c, PMPI_Get_c);

int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count,
                MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request) {
  return win_put_get("MPI_Rget_c", HCOMM_RMA_GET, origin_addr, origin_count,
                     origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, request);
}
HC_WEAK_ALIAS(MPI_Rget_c, PMPI_Rget_c);

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  win_data_t o = {origin_addr, origin_count, origin_datatype};
  win_data_t t = {NULL, target_count, target_datatype};
  return win_accumulate("MPI_Accumulate_c", HCOMM_RMA_ACC, o, win_no_result,
                        target_rank, target_disp, t, op, win, NULL);
}
HC_WEAK_ALIAS(MPI_Accumulate_c, PMPI_Accumulate_c);

int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, MPI_Count target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                       MPI_Request *request) {
  win_data_t o = {origin_addr, origin_count, origin_datatype};
  win_data_t t = {NULL, target_count, target_datatype};
  return win_accumulate("MPI_Raccumulate_c", HCOMM_RMA_ACC, o, win_no_result,
                        target_rank, target_disp, t, op, win, request);
}
HC_WEAK_ALIAS(MPI_Raccumulate_c, PMPI_Raccumulate_c);

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr,
                          MPI_Count result_count, MPI_Datatype result_datatype,
                          int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype,
                          MPI_Op op, MPI_Win win) {
  win_data_t o = {origin_addr, origin_count, origin_datatype};
  win_data_t r = {result_addr, result_count, result_datatype};
  win_data_t t = {NULL, target_count, target_datatype};
  return win_accumulate("MPI_Get_accumulate_c", HCOMM_RMA_GET_ACC, o, r,
                        target_rank, target_disp, t, op, win, NULL);
}
HC_WEAK_ALIAS(MPI_Get_accumulate_c, PMPI_Get_accumulate_c);

int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr,
                           MPI_Count result_count, MPI_Datatype result_datatype,
                           int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype,
                           MPI_Op op, MPI_Win win, MPI_Request *request) {
  win_data_t o = {origin_addr, origin_count, origin_datatype};
  win_data_t r = {result_addr, result_count, result_datatype};
  win_data_t t = {NULL, target_count, target_datatype};
  return win_accumulate("MPI_Rget_accumulate_c", HCOMM_RMA_GET_ACC, o, r,
                        target_rank, target_disp, t, op, win, request);
}
HC_WEAK_ALIAS(MPI_Rget_accumulate_c, PMPI_Rget_accumulate_c);

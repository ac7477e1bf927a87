/*
 * Datatypes in point-to-point: a send of a non-dense type packs into a
 * staging buffer, a receive lands in one and is unpacked at completion;
 * above XFER_STREAM_MIN (host buffers, operations started through
 * hc_mpi_xfer_isend / irecv) the engine packs and unpacks fragment by
 * fragment instead, so no whole-message copy exists.
 * Device buffers are packed and unpacked through host copies (devstage.c).
 * The type is retained meanwhile, so MPI_Type_free during the operation
 * is safe.  Orphans are operations whose request the user freed while
 * they ran: their staging lives until the engine finishes with it.
 */
#include <pthread.h>
#include <stdlib.h>

#include "mpi/devstage.h"
#include "mpi/mpi_impl.h"
#include "util/lock.h"

void hc_mpi_xfer_init(hc_mpi_xfer_t *x, const void *buf, MPI_Count count,
                      const hc_mpi_type_t *type, int is_recv) {
  hc_mpi_xfer_init_dense(x, buf, count, type, is_recv);
  x->type = hc_mpi_type_retain(type); /* staging may need it later */
}

static int xfer_staged(const hc_mpi_xfer_t *x) {
  return x->type && !hc_mpi_type_dense(x->type) && x->bytes > 0;
}

int hc_mpi_xfer_begin(const char *fn, hc_mpi_comm_t *c, hc_mpi_xfer_t *x) {
  if (!xfer_staged(x))
    return MPI_SUCCESS;
  x->tmp = malloc(x->bytes);
  if (!x->tmp)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM,
                        "no memory to stage %zu bytes of a derived datatype",
                        x->bytes);
  if (x->is_recv)
    return MPI_SUCCESS;
  hc_status_t rc = hc_mpi_pack_any(x->type, x->user, x->count, x->tmp);
  if (rc != HC_OK) {
    free(x->tmp);
    x->tmp = NULL;
  }
  return hc_mpi_raise_status(c, fn, rc);
}

/* ---- pipelined (accessor) transfers ------------------------------------ */

/* Below this many packed bytes one temporary is cheaper than per-fragment
 * callbacks; above it the temporary would double the message's memory. */
#define XFER_STREAM_MIN (64 * 1024)

typedef struct xfer_stream {
  const hc_mpi_type_t *type; /* the xfer's reference keeps it alive */
  void *user;
} xfer_stream_t;

static void xfer_pack(void *ctx, size_t off, void *dst, size_t len) {
  xfer_stream_t *s = ctx;
  hc_mpi_type_pack_range(s->type, s->user, (MPI_Count)off, (MPI_Count)len, dst);
}

static void xfer_unpack(void *ctx, size_t off, const void *src, size_t len) {
  xfer_stream_t *s = ctx;
  hc_mpi_type_unpack_range(s->type, src, (MPI_Count)off, (MPI_Count)len,
                           s->user);
}

int hc_mpi_xfer_begin_stream(const char *fn, hc_mpi_comm_t *c,
                             hc_mpi_xfer_t *x) {
  hcomm_mem_info_t info;
  /* Device buffers keep the devstage temporary (never dereferenced). */
  if (!xfer_staged(x) || x->bytes <= XFER_STREAM_MIN ||
      hc_mpi_dev_classify(x->user, &info))
    return hc_mpi_xfer_begin(fn, c, x);
  xfer_stream_t *s = calloc(1, sizeof *s);
  if (!s)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  s->type = x->type;
  s->user = x->user;
  x->acc = s;
  return MPI_SUCCESS;
}

hc_status_t hc_mpi_xfer_isend(hc_mpi_xfer_t *x, int dest, int tag,
                              hcomm_comm_t *comm, int mode,
                              hcomm_request_t **req) {
  if (!x->acc)
    return hcomm_isend(hc_mpi_xfer_buf(x), x->bytes, dest, tag, comm, mode,
                       req);
  hcomm_accessor_t a = {xfer_pack, NULL, x->acc};
  return hcomm_isend_acc(&a, x->bytes, dest, tag, comm, mode, req);
}

hc_status_t hc_mpi_xfer_irecv(hc_mpi_xfer_t *x, int source, int tag,
                              hcomm_comm_t *comm, hcomm_request_t **req) {
  if (!x->acc)
    return hcomm_irecv(hc_mpi_xfer_buf(x), x->bytes, source, tag, comm, req);
  hcomm_accessor_t a = {NULL, xfer_unpack, x->acc};
  return hcomm_irecv_acc(&a, x->bytes, source, tag, comm, req);
}

void *hc_mpi_xfer_buf(const hc_mpi_xfer_t *x) {
  return x->tmp ? x->tmp : x->user;
}

void hc_mpi_xfer_end_owned(hc_mpi_xfer_t *x, size_t received) {
  if (x->acc) { /* the engine is done with it; a persistent start makes anew */
    free(x->acc);
    x->acc = NULL;
  }
  if (!x->tmp)
    return;
  if (x->is_recv) {
    size_t n = received < x->bytes ? received : x->bytes;
    /* A failed device copy was logged; the receive has completed. */
    (void)hc_mpi_unpack_any(x->type, x->tmp, (MPI_Count)n, x->count, x->user);
  }
  free(x->tmp);
  x->tmp = NULL;
}

void hc_mpi_xfer_fini_owned(hc_mpi_xfer_t *x) {
  free(x->tmp);
  x->tmp = NULL;
  free(x->acc);
  x->acc = NULL;
  hc_mpi_type_release(x->type);
  x->type = NULL;
}

/* ---- orphans ------------------------------------------------------------ */

typedef struct xfer_orphan {
  hcomm_request_t *eng;
  hc_mpi_xfer_t x;
  struct xfer_orphan *next;
} xfer_orphan_t;

static pthread_mutex_t xfer_lock = PTHREAD_MUTEX_INITIALIZER;
static xfer_orphan_t *xfer_orphans;
int hc_mpi_xfer_orphan_count; /* read without the lock */

void hc_mpi_xfer_orphan(hcomm_request_t *eng, hc_mpi_xfer_t *x) {
  xfer_orphan_t *o = malloc(sizeof(*o));
  if (!o) {
    /* Cannot track it: wait here rather than free a buffer in use. */
    hcomm_wait(eng, NULL);
    hcomm_request_free(eng);
    hc_mpi_xfer_fini(x);
    return;
  }
  o->eng = eng;
  o->x = *x;
  x->tmp = NULL;
  x->acc = NULL;
  x->type = NULL;
  hc_lock(&xfer_lock);
  o->next = xfer_orphans;
  xfer_orphans = o;
  __atomic_add_fetch(&hc_mpi_xfer_orphan_count, 1, __ATOMIC_RELAXED);
  hc_unlock(&xfer_lock);
}

void hc_mpi_xfer_sweep_orphans(void) {
  hc_lock(&xfer_lock);
  xfer_orphan_t **pp = &xfer_orphans;
  xfer_orphan_t *done = NULL;
  while (*pp) {
    xfer_orphan_t *o = *pp;
    if (hcomm_request_done(o->eng)) {
      *pp = o->next;
      o->next = done;
      done = o;
      __atomic_sub_fetch(&hc_mpi_xfer_orphan_count, 1, __ATOMIC_RELAXED);
    } else {
      pp = &o->next;
    }
  }
  hc_unlock(&xfer_lock);
  while (done) {
    xfer_orphan_t *o = done;
    done = o->next;
    hcomm_status_t st = {0};
    hcomm_wait(o->eng, &st); /* done: only collects the status */
    hcomm_request_free(o->eng);
    hc_mpi_xfer_end(&o->x, st.error == HC_OK ? st.bytes : 0);
    hc_mpi_xfer_fini(&o->x);
    free(o);
  }
}

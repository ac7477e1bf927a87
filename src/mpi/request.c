/*
 * Face requests: the objects behind MPI_Request handles, and the calls that
 * complete, test, free, cancel and start them.  Blocking goes through
 * hcomm_wait / hcomm_wait_some, which sleep instead of spinning forever.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"
#include "mpi/reqpool.h"

/* What every send that left at once (hcomm_send_now) hands back: one
 * builtin request, complete, shared, never destroyed.  Its status is a
 * buffered send's: a send's status carries nothing else.  Its
 * communicator is MPI_COMM_WORLD (builtin: no reference counting), whose
 * error handler it never invokes since it cannot fail. */
#define REQ_SENT_HANDLE ((MPI_Request)0x6c000001)
static hc_mpi_request_t req_sent = {
    .kind = HC_REQ_DONE,
    .handle = REQ_SENT_HANDLE,
    .local = {MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0, HC_OK}};

/* Set by MPI_Init: before it, the shared request is no request. */
static hc_mpi_request_t *req_sent_bound;

void hc_mpi_request_bind_builtins(void) {
  req_sent.comm = hc_mpi_comm_get(MPI_COMM_WORLD);
  req_sent_bound = &req_sent;
}

/* Inline for the array calls, which look up every handle they are given. */
static inline hc_mpi_request_t *req_get(MPI_Request handle) {
  if (handle == REQ_SENT_HANDLE)
    return req_sent_bound;
  return hc_reqpool_get(handle);
}

hc_mpi_request_t *hc_mpi_request_get(MPI_Request handle) {
  return req_get(handle);
}

MPI_Request hc_mpi_request_sent(void) { return REQ_SENT_HANDLE; }

/* hc_mpi_request_destroy of a request that is not the shared sent one.
 * Inline: an array wait's loop destroys each request it finishes. */
static inline void req_destroy_own(hc_mpi_request_t *r) {
  hc_mpi_xfer_fini(&r->xfer);
  hc_mpi_comm_release(r->comm);
  if (r->part != NULL)
    hc_mpi_part_destroy(r->part);
  hc_reqpool_free(r);
}

void hc_mpi_request_destroy(hc_mpi_request_t *r) {
  if (r != &req_sent)
    req_destroy_own(r);
}

int hc_mpi_request_new_done(const char *fn, hc_mpi_comm_t *comm,
                            const hcomm_status_t *st, MPI_Request *out) {
  hc_mpi_request_t *r = hc_mpi_request_new(HC_REQ_DONE, comm);
  if (!r)
    return hc_mpi_raise(comm, fn, MPI_ERR_NO_MEM, "out of memory");
  r->local = *st;
  *out = r->handle;
  return MPI_SUCCESS;
}

int hc_mpi_request_wrap(const char *fn, hc_mpi_comm_t *comm,
                        hcomm_request_t *eng, MPI_Request *out) {
  hc_mpi_request_t *r = hc_mpi_request_new(HC_REQ_PLAIN, comm);
  if (!r) {
    hcomm_request_free(eng); /* released by the engine when it completes */
    return hc_mpi_raise(comm, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  r->engine = eng;
  *out = r->handle;
  return MPI_SUCCESS;
}

/* ---- completion --------------------------------------------------------- */

/* Non-null and not an inactive persistent request. */
static inline int req_is_active(const hc_mpi_request_t *r) {
  return r && (r->kind != HC_REQ_PERSISTENT || r->active);
}

/* Completing it would not block: done, or a wildcard receive whose wait
 * returns MPIX_ERR_PROC_FAILED_PENDING (ULFM). */
static inline int req_is_ready(const hc_mpi_request_t *r) {
  return !req_is_active(r) || !r->engine || hcomm_request_done(r->engine) ||
         hcomm_request_failure_pending(r->engine);
}

/* req_finish of the shared sent request, which cannot fail.  Shared by
 * every thread: read, never written. */
static void req_finish_sent(MPI_Request *handle, MPI_Status *status) {
  hc_mpi_status_fill(status, &req_sent.local);
  *handle = MPI_REQUEST_NULL;
}

/* The end of req_finish once the operation's status st is known (its
 * engine request, if it had one to free, freed).  Inlined into its two
 * callers: as a call it saved and restored six registers for every
 * request an array wait finished. */
__attribute__((always_inline)) static inline hc_status_t
req_finished(hc_mpi_request_t *r, MPI_Request *handle, MPI_Status *status,
             hcomm_status_t *st) {
  hc_mpi_xfer_end(&r->xfer, st->bytes);
  hc_status_t error = hc_mpi_check_whole(st, st->error, r->xfer.element_mask);
  if (r->part)
    hc_mpi_part_land(r->part, st->bytes);
  hc_mpi_status_fill(status, st);
  if (r->kind == HC_REQ_PERSISTENT) {
    r->active = 0;
  } else {
    hc_mpi_request_destroy(r);
    *handle = MPI_REQUEST_NULL;
  }
  return error;
}

/* Completes a ready request: status written (unless ignored), a persistent
 * one made inactive, any other freed and its handle set to
 * MPI_REQUEST_NULL.  Returns the operation's own status, raising nothing. */
static hc_status_t req_finish(hc_mpi_request_t *r, MPI_Request *handle,
                              MPI_Status *status) {
  if (!req_is_active(r)) {
    hc_mpi_status_empty(status);
    return HC_OK;
  }
  if (r == &req_sent) {
    req_finish_sent(handle, status);
    return HC_OK;
  }
  /* ULFM: the request stays active (a live sender may still match it, or
   * MPI_Cancel end it); only the error tells. */
  if (r->engine && hcomm_request_failure_pending(r->engine))
    return HC_ERR_PEER_DEAD_PENDING;
  hcomm_status_t st = r->local;
  /* A persistent collective keeps its schedule, a partitioned request its
   * channel: their engine requests stay. */
  if (r->engine && r->coll == NULL && r->part == NULL) {
    st.error = hcomm_wait_free(r->engine, &st);
    r->engine = NULL;
  } else if (r->engine) {
    st.error = hcomm_wait(r->engine, &st);
  }
  return req_finished(r, handle, status, &st);
}

/* req_finish as an MPI error code: a generalized request's callbacks
 * return codes of their own. */
static int req_finish_code(hc_mpi_request_t *r, MPI_Request *handle,
                           MPI_Status *status) {
  if (r && r->greq && req_is_active(r)) {
    *handle = MPI_REQUEST_NULL;
    return hc_mpi_greq_finish(r, status);
  }
  return hc_mpi_code_of_status(req_finish(r, handle, status));
}

/* req_finish, then raises its error on the request's communicator, which
 * is held across the call since finishing may drop the last reference. */
static int req_finish_raise(const char *fn, hc_mpi_request_t *r,
                            MPI_Request *handle, MPI_Status *status) {
  if (r && r->greq && req_is_active(r)) {
    int owned = hc_mpi_greq_raises_own(r);
    int code = req_finish_code(r, handle, status);
    if (owned)
      return code; /* raised by query_fn through its object's handler */
    return hc_mpi_raise(NULL, fn, code,
                        "a callback of the generalized request returned %d",
                        code);
  }
  hc_mpi_comm_t *comm = r ? r->comm : NULL;
  if (comm)
    hc_mpi_comm_retain(comm);
  int rc = hc_mpi_raise_status(comm, fn, req_finish(r, handle, status));
  if (comm)
    hc_mpi_comm_release(comm);
  return rc;
}

/* A generalized request's poll_fn or wait_fn failed with code. */
static int req_callback_failed(const char *fn, int code) {
  return hc_mpi_raise(NULL, fn, code,
                      "a callback of the generalized request returned %d",
                      code);
}

/* A status pointer argument: MPI_STATUS_IGNORE or a real one. */
static int req_check_status(const char *fn, const void *status,
                            const char *what) {
  return hc_mpi_check_ptr(fn, NULL, status, what);
}

/* Inline: the array calls look up every handle they are given. */
static inline int req_lookup(const char *fn, MPI_Request handle, int index,
                             hc_mpi_request_t **out) {
  if (handle == MPI_REQUEST_NULL) {
    *out = NULL;
    return MPI_SUCCESS;
  }
  hc_mpi_request_t *r = req_get(handle);
  if (r && r->kind != HC_REQ_MESSAGE) {
    *out = r;
    return MPI_SUCCESS;
  }
  if (index < 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_REQUEST, "invalid request 0x%x",
                        (unsigned)handle);
  return hc_mpi_raise(NULL, fn, MPI_ERR_REQUEST,
                      "invalid request 0x%x at index %d", (unsigned)handle,
                      index);
}

/* The persistent collective behind *request while MPI runs, if it is
 * active (1: started) or inactive (0) as asked; NULL for anything else,
 * which the general paths check one by one.  One pool lookup and two
 * tests: a collective's face request is always persistent
 * (coll_persistent_wrap), never the shared sent one. */
static inline hc_mpi_request_t *req_coll_at(const MPI_Request *request,
                                            int active) {
  if (request == NULL || !hc_mpi_is_ready())
    return NULL;
  hc_mpi_request_t *r = hc_reqpool_get(*request);
  if (r == NULL || r->coll == NULL || r->active != active)
    return NULL;
  return r;
}

/* MPI_Wait or MPI_Test of an active persistent collective whose run is
 * done (its MPI_Start mostly finishes it), good arguments: req_finish's
 * outcome in a few loads (no engine lock; nothing to unpack or free: a persistent
 * collective's own unpacks ran in the engine's hook).  -1: any other case,
 * which the general path checks and finishes.  Inline: in its own frame
 * and req_wait_body's it cost every MPI_Wait ~25 instructions
 * (bench/NOTES.md, face18). */
__attribute__((always_inline)) static inline int
req_wait_coll_done(const char *fn, MPI_Request *request, MPI_Status *status) {
  hcomm_status_t st;
  hc_status_t error;
  if (status == NULL)
    return -1;
  hc_mpi_request_t *r = req_coll_at(request, 1);
  if (r == NULL)
    return -1;
  if (status == MPI_STATUS_IGNORE) { /* the error alone: no status copy */
    if (r->coll_finished) { /* done with HC_OK inside its start */
      r->active = 0;
      return MPI_SUCCESS;
    }
    if (!hcomm_request_done_error(r->engine, &error))
      return -1;
  } else {
    if (!hcomm_request_done_status(r->engine, &st))
      return -1;
    hc_mpi_status_fill(status, &st);
    error = st.error;
  }
  r->active = 0;
  return error == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(r->comm, fn, error);
}

static int req_wait_body(MPI_Request *request, MPI_Status *status) {
  static const char fn[] = "MPI_Wait";
  hc_mpi_request_t *r = NULL;
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, request, "request");
  if (rc == MPI_SUCCESS)
    rc = req_check_status(fn, status, "status");
  if (rc == MPI_SUCCESS)
    rc = req_lookup(fn, *request, -1, &r);
  if (rc != MPI_SUCCESS)
    return rc;
  if (req_is_active(r) && r->greq) {
    rc = hc_mpi_greq_block(r);
    if (rc != MPI_SUCCESS)
      return req_callback_failed(fn, rc);
  }
  /* Done already (a persistent collective's MPI_Start mostly finishes the
   * exchange): no engine wait, whose lock and scan cost more than the
   * load. */
  if (req_is_active(r) && r->engine && !hcomm_request_done(r->engine))
    hcomm_wait_some(1, &r->engine, 1); /* or failure-pending: req_finish */
  return req_finish_raise(fn, r, request, status);
}

/* MPI_Wait while tracing, out of line as req_waitall_traced. */
static __attribute__((noinline, cold)) int req_wait_traced(MPI_Request *request,
                                                           MPI_Status *status) {
  uint64_t t0 = hc_trace_now();
  int rc = req_wait_body(request, status);
  hc_trace_call(HC_TRACE_MPI_WAIT, t0, -1, -1, 0);
  return rc;
}

/* MPI_Wait past its first test, in a frame of its own. */
static __attribute__((noinline)) int req_wait_rest(MPI_Request *request,
                                                   MPI_Status *status) {
  int fast = req_wait_coll_done("MPI_Wait", request, status);
  if (fast >= 0)
    return fast;
  return req_wait_body(request, status);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (__builtin_expect(hc_trace_on, 0))
    return req_wait_traced(request, status);
  /* A persistent collective that its MPI_Start finished, no status: a few
   * loads and one store, in no frame: the status copy's and the general
   * path's saved registers cost it ~12 instructions (bench/NOTES.md,
   * start26).  Any other case looks the handle up again in req_wait_rest. */
  hc_mpi_request_t *r =
      status == MPI_STATUS_IGNORE ? req_coll_at(request, 1) : NULL;
  if (r != NULL && r->coll_finished) {
    r->active = 0;
    return MPI_SUCCESS;
  }
  return req_wait_rest(request, status);
}
HC_WEAK_ALIAS(MPI_Wait, PMPI_Wait);

static int req_test_body(MPI_Request *request, int *flag, MPI_Status *status) {
  static const char fn[] = "MPI_Test";
  hc_mpi_request_t *r = NULL;
  int fast = flag != NULL ? req_wait_coll_done(fn, request, status) : -1;
  if (fast >= 0) {
    *flag = 1;
    return fast;
  }
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, request, "request");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, flag, "flag");
  if (rc == MPI_SUCCESS)
    rc = req_check_status(fn, status, "status");
  if (rc == MPI_SUCCESS)
    rc = req_lookup(fn, *request, -1, &r);
  if (rc != MPI_SUCCESS)
    return rc;
  if (req_is_active(r) && r->greq) {
    rc = hc_mpi_greq_poll(r);
    if (rc != MPI_SUCCESS)
      return req_callback_failed(fn, rc);
  }
  int done = 1;
  hc_status_t st = HC_OK;
  if (req_is_active(r) && r->engine)
    st = hcomm_test(r->engine, &done, NULL);
  *flag = done;
  if (!done) /* HC_OK, or failure-pending: the request stays */
    return hc_mpi_raise_status(r->comm, fn, st);
  return req_finish_raise(fn, r, request, status);
}

/* Traced entry (mpi_trace.h). */
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = req_test_body(request, flag, status);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_TEST, t0, -1, -1, 0) : rc;
}
HC_WEAK_ALIAS(MPI_Test, PMPI_Test);

/* ---- arrays of requests ------------------------------------------------- */

/* Arrays up to this many requests stay on the stack (~3 KiB): a window of
 * 64 is a common Waitall, and a block of that size costs malloc several
 * hundred instructions once past its small-size caches. */
#define REQ_SMALL 64

/* The face objects of an array of handles plus an engine-request view of
 * them for hcomm_wait_some and room for the statuses of
 * hcomm_requests_reap; small arrays stay on the stack, larger ones share
 * one allocation. */
typedef struct req_vec {
  int n;
  int greqs; /* active generalized requests among them (mostly none) */
  int engines; /* active ones with an engine request (none: all sent) */
  hc_mpi_request_t **reqs;
  hcomm_request_t **eng;
  hcomm_status_t *st;
  hc_mpi_request_t *small_reqs[REQ_SMALL];
  hcomm_request_t *small_eng[REQ_SMALL];
  hcomm_status_t small_st[REQ_SMALL];
} req_vec_t;

static void req_vec_fini(req_vec_t *v) {
  if (v->st != v->small_st)
    free(v->st); /* the block that holds all three arrays */
}

/* Large arrays: one block for statuses, engine and face requests. */
static int req_vec_alloc(req_vec_t *v, int n) {
  size_t each = sizeof(hcomm_status_t) + sizeof(hcomm_request_t *) +
                sizeof(hc_mpi_request_t *);
  char *block = malloc((size_t)n * each);
  if (block == NULL)
    return -1;
  v->st = (hcomm_status_t *)(void *)block;
  v->eng = (hcomm_request_t **)(void *)(block + (size_t)n * sizeof(*v->st));
  v->reqs =
      (hc_mpi_request_t **)(void *)(block + (size_t)n * (sizeof(*v->st) +
                                                         sizeof(*v->eng)));
  return 0;
}

/* Checks count, the arrays and every handle; fills v, its engine view
 * as req_vec_pending does before it asks the engine (so that a wait
 * needs no second pass while no generalized request is among them). */
static int req_vec_init(const char *fn, req_vec_t *v, int n,
                        MPI_Request *handles) {
  v->n = n;
  v->reqs = v->small_reqs;
  v->eng = v->small_eng;
  v->st = v->small_st;
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_count(fn, NULL, n);
  if (rc == MPI_SUCCESS && n > 0)
    rc = hc_mpi_check_ptr(fn, NULL, handles, "array_of_requests");
  if (rc != MPI_SUCCESS)
    return rc;
  if (n > REQ_SMALL && req_vec_alloc(v, n) != 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  v->greqs = 0;
  v->engines = 0;
  for (int i = 0; i < n; i++) {
    hc_mpi_request_t *r = NULL;
    rc = req_lookup(fn, handles[i], i, &r);
    if (rc != MPI_SUCCESS) {
      req_vec_fini(v);
      return rc;
    }
    v->reqs[i] = r;
    int active = req_is_active(r);
    v->eng[i] = active ? r->engine : NULL;
    v->engines += v->eng[i] != NULL;
    if (active && r->greq)
      v->greqs++;
  }
  return MPI_SUCCESS;
}

/* Engine requests still running (those of requests not req_is_ready),
 * left in v->eng; returns how many.  Pending MPIX generalized requests get
 * their poll_fn first (its errors show when the request completes). */
static int req_vec_pending(req_vec_t *v) {
  for (int i = 0; i < v->n; i++) {
    hc_mpi_request_t *r = v->reqs[i];
    if (v->greqs && req_is_active(r) && r->greq)
      (void)hc_mpi_greq_poll(r);
    v->eng[i] = req_is_active(r) ? r->engine : NULL;
  }
  return hcomm_requests_keep_pending(v->n, v->eng);
}

static int req_vec_any_failure_pending(const req_vec_t *v) {
  for (int i = 0; i < v->n; i++)
    if (req_is_active(v->reqs[i]) && v->reqs[i]->engine &&
        hcomm_request_failure_pending(v->reqs[i]->engine))
      return 1;
  return 0;
}

static int req_vec_any_active(const req_vec_t *v) {
  for (int i = 0; i < v->n; i++)
    if (req_is_active(v->reqs[i]))
      return 1;
  return 0;
}

/* Waits until min_done of the engine requests req_vec_pending left in v
 * are complete (or failure-pending); while an MPIX generalized request is
 * among them the wait polls (one turn) instead of sleeping, since only its
 * callbacks move it.  1 when it waited as asked: with min_done all of
 * them, every request of v is then ready (req_is_ready). */
static int req_vec_wait_some(req_vec_t *v, int min_done) {
  for (int i = 0; i < v->n && v->greqs; i++)
    if (v->eng[i] != NULL && hc_mpi_greq_polled(v->reqs[i])) {
      hcomm_progress();
      return 0;
    }
  return hcomm_wait_some(v->n, v->eng, min_done) == HC_OK;
}

static MPI_Status *req_status_at(MPI_Status *statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* The failures of an array completion.  Each failed request's error goes
 * to the handler of the object it belongs to: a request of the library's
 * own (a file's, hc_mpi_greq_raises_own) has raised its class through
 * that object's handler when it completed, so only the first failed
 * communicator request raises MPI_ERR_IN_STATUS, on its communicator; with
 * none the call returns MPI_ERR_IN_STATUS and raises nothing more
 * (MPI-4.0 14.7: errors of file operations go to the file's handler). */
typedef struct req_failures {
  int failed;
  int first_class;
  int comm_failed;
  hc_mpi_comm_t *comm; /* the first failed communicator request's, held */
} req_failures_t;

/* Completes r (ready) into status, with its class in status->MPI_ERROR,
 * noting a failure in fails; returns the class. */
static int req_note(req_failures_t *fails, int cls, hc_mpi_comm_t *comm,
                    int owned, MPI_Status *status);

static int req_finish_noted_any(req_failures_t *fails, hc_mpi_request_t *r,
                                MPI_Request *handle, MPI_Status *status) {
  /* Finishing may drop the last reference to r and its communicator. */
  int owned = r && r->greq && req_is_active(r) && hc_mpi_greq_raises_own(r);
  hc_mpi_comm_t *comm = r && !owned ? r->comm : NULL;
  if (comm)
    hc_mpi_comm_retain(comm);
  int cls = req_finish_code(r, handle, status);
  return req_note(fails, cls, comm, owned, status);
}

/* The note of req_finish_noted_any: class cls of a request finished into
 * status, comm its communicator held (NULL: none), owned whether it raised
 * its error itself. */
static int req_note(req_failures_t *fails, int cls, hc_mpi_comm_t *comm,
                    int owned, MPI_Status *status) {
  if (status != MPI_STATUS_IGNORE)
    status->MPI_ERROR = cls;
  if (cls != MPI_SUCCESS && !fails->failed) {
    fails->failed = 1;
    fails->first_class = cls;
  }
  if (cls != MPI_SUCCESS && !owned && !fails->comm_failed) {
    fails->comm_failed = 1;
    fails->comm = comm; /* keeps the reference taken above */
  } else if (comm) {
    hc_mpi_comm_release(comm);
  }
  return cls;
}

/* A plain operation with an engine request (most of what a wait
 * finishes): once that is complete, taking it back from the engine
 * (hcomm_request_reap, hcomm_requests_reap) is all its completion asks of
 * the engine, without req_finish's failure check and hcomm_wait_free. */
static inline int req_is_reapable(const hc_mpi_request_t *r) {
  return r != NULL && r->kind == HC_REQ_PLAIN && r->engine != NULL &&
         r->greq == NULL && r->coll == NULL && r->part == NULL;
}

/* Completes r (req_is_reapable), whose engine request was taken back with
 * status st, as req_finish_noted_any would. */
static int req_finish_reaped(req_failures_t *fails, hc_mpi_request_t *r,
                             MPI_Request *handle, MPI_Status *status,
                             hcomm_status_t *st) {
  hc_mpi_comm_t *comm = r->comm; /* held: finishing may drop it */
  hc_mpi_comm_retain(comm);
  /* A reap releases the engine request without the home's drop (hcomm.h):
   * this thread owns the home, and no other can free r meanwhile, so
   * the drop's ordering against a racing free (a sequentially consistent
   * store, an xchg on x86, on every receive) is not needed here. */
  hc_reqpool_home_unused(r);
  r->engine = NULL;
  int cls = hc_mpi_code_of_status(req_finished(r, handle, status, st));
  return req_note(fails, cls, comm, 0, status);
}

/* req_finish_reaped of a request that succeeded, as nearly all do:
 * nothing to note, so no hold on the communicator across the finish and
 * no class to convert.  Inlined into req_finish_all's loop. */
static inline void req_finish_reaped_ok(hc_mpi_request_t *r,
                                        MPI_Request *handle, MPI_Status *status,
                                        const hcomm_status_t *st) {
  hc_reqpool_home_unused(r); /* as req_finish_reaped: no drop needed */
  r->engine = NULL;
  hc_mpi_xfer_end(&r->xfer, st->bytes);
  if (status != MPI_STATUS_IGNORE) { /* tested here: no call when ignored */
    hc_mpi_status_fill(status, st);
    status->MPI_ERROR = MPI_SUCCESS;
  }
  req_destroy_own(r); /* plain (never kept), not the shared sent one */
  *handle = MPI_REQUEST_NULL;
}

/* req_finish_noted_any, and at once for the shared sent request (nothing
 * can fail: no error, no handler to hold), which every send that left at
 * once hands out: inline, so that a Waitall over a window of them costs a
 * few instructions per request. */
static inline int req_finish_noted(req_failures_t *fails, hc_mpi_request_t *r,
                                   MPI_Request *handle, MPI_Status *status) {
  if (r == &req_sent) {
    req_finish_sent(handle, status);
    if (status != MPI_STATUS_IGNORE)
      status->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
  }
  hcomm_status_t st;
  if (req_is_reapable(r) && hcomm_request_reap(r->engine, &st))
    return req_finish_reaped(fails, r, handle, status, &st);
  return req_finish_noted_any(fails, r, handle, status);
}

/* MPI_SUCCESS, or MPI_ERR_IN_STATUS raised as req_failures_t says. */
static int req_failures_raise(const char *fn, req_failures_t *fails) {
  if (!fails->failed)
    return MPI_SUCCESS;
  if (!fails->comm_failed)
    return MPI_ERR_IN_STATUS;
  int rc =
      hc_mpi_raise(fails->comm, fn, MPI_ERR_IN_STATUS,
                   "a request failed with %s; see the statuses",
                   hc_mpi_class_name(hc_mpi_class_of_code(fails->first_class)));
  if (fails->comm)
    hc_mpi_comm_release(fails->comm);
  return rc;
}

/* What the status of a request req_finish_all did not take back holds:
 * no hc_status_t is positive. */
#define REQ_NOT_REAPED ((hc_status_t)1)

/* Completes every request of v (all ready) into statuses; on any failure
 * every status gets its MPI_ERROR and MPI_ERR_IN_STATUS is returned.  The
 * engine requests of the reapable ones are taken back first, all in one
 * engine call (v->eng then holds NULL for each taken back, its status in
 * v->st); the rest, and a reapable one that is failure-pending (ULFM),
 * finish one by one. */
static int req_finish_all(const char *fn, req_vec_t *v, MPI_Request *handles,
                          MPI_Status *statuses) {
  req_failures_t fails = {0, MPI_SUCCESS, 0, NULL};
  int reapable = 0;
  for (int i = 0; i < v->n && v->engines > 0; i++) {
    hc_mpi_request_t *r = v->reqs[i];
    v->eng[i] = req_is_reapable(r) ? r->engine : NULL;
    v->st[i].error = REQ_NOT_REAPED; /* hcomm_requests_reap overwrites */
    reapable |= v->eng[i] != NULL;
  }
  if (reapable)
    (void)hcomm_requests_reap(v->n, v->eng, v->st);
  for (int i = 0; i < v->n; i++) {
    MPI_Status *status = req_status_at(statuses, i);
    if (reapable && v->st[i].error == HC_OK &&
        hc_mpi_check_whole(&v->st[i], HC_OK, v->reqs[i]->xfer.element_mask) ==
            HC_OK)
      req_finish_reaped_ok(v->reqs[i], &handles[i], status, &v->st[i]);
    else if (reapable && v->st[i].error != REQ_NOT_REAPED)
      (void)req_finish_reaped(&fails, v->reqs[i], &handles[i], status,
                              &v->st[i]);
    else
      (void)req_finish_noted(&fails, v->reqs[i], &handles[i], status);
  }
  return req_failures_raise(fn, &fails);
}

static int req_waitall_body(int count, MPI_Request array_of_requests[],
                            MPI_Status array_of_statuses[]) {
  static const char fn[] = "MPI_Waitall";
  req_vec_t v;
  int rc = req_vec_init(fn, &v, count, array_of_requests);
  if (rc != MPI_SUCCESS)
    return rc;
  if (count > 0 && !array_of_statuses) {
    req_vec_fini(&v);
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "array_of_statuses is NULL");
  }
  for (int i = 0; i < count && v.greqs; i++) /* wait_fn of MPIX ones first */
    if (req_is_active(v.reqs[i]) && v.reqs[i]->greq)
      (void)hc_mpi_greq_block(v.reqs[i]);
  /* The engine view req_vec_init filled is what req_vec_pending would
   * fill, but for MPIX generalized requests, which it polls, and for
   * requests already complete, which the wait passes over as it looks
   * for the first still running: without generalized requests the wait
   * starts at once, with no pass of its own over the array (and no
   * taking of the engine's lock) to set those aside first. */
  int pending = v.greqs ? req_vec_pending(&v) : v.engines;
  /* min_done n: all of them, which hcomm_wait_some waits for without a
   * first count of the array. */
  while (pending > 0 && !req_vec_wait_some(&v, v.n))
    pending = req_vec_pending(&v);
  /* all ready: no need to ask each again */
  rc = req_finish_all(fn, &v, array_of_requests, array_of_statuses);
  req_vec_fini(&v);
  return rc;
}

/* MPI_Waitall while tracing: out of line, so that the untraced call pays
 * one test of hc_trace_on. */
static __attribute__((noinline, cold)) int
req_waitall_traced(int count, MPI_Request array_of_requests[],
                   MPI_Status array_of_statuses[]) {
  uint64_t t0 = hc_trace_now();
  int rc = req_waitall_body(count, array_of_requests, array_of_statuses);
  hc_trace_call(HC_TRACE_MPI_WAITALL, t0, -1, -1, 0);
  return rc;
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[],
                 MPI_Status array_of_statuses[]) {
  if (__builtin_expect(hc_trace_on, 0))
    return req_waitall_traced(count, array_of_requests, array_of_statuses);
  return req_waitall_body(count, array_of_requests, array_of_statuses);
}
HC_WEAK_ALIAS(MPI_Waitall, PMPI_Waitall);

static int req_testall_body(int count, MPI_Request array_of_requests[],
                            int *flag, MPI_Status array_of_statuses[]) {
  static const char fn[] = "MPI_Testall";
  req_vec_t v;
  int rc = req_vec_init(fn, &v, count, array_of_requests);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!flag || (count > 0 && !array_of_statuses)) {
    req_vec_fini(&v);
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "%s is NULL",
                        flag ? "array_of_statuses" : "flag");
  }
  hcomm_progress();
  int ready = req_vec_pending(&v) == 0;
  *flag = ready && !req_vec_any_failure_pending(&v);
  /* Failure-pending ones stay with MPIX_ERR_PROC_FAILED_PENDING in their
   * status; the others complete (MPI_ERR_IN_STATUS). */
  if (ready)
    rc = req_finish_all(fn, &v, array_of_requests, array_of_statuses);
  req_vec_fini(&v);
  return rc;
}

/* Traced entry (mpi_trace.h). */
int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[]) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = req_testall_body(count, array_of_requests, flag, array_of_statuses);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_TESTALL, t0, -1, -1, 0) : rc;
}
HC_WEAK_ALIAS(MPI_Testall, PMPI_Testall);

/* Index of an active, ready request (a complete one before one that is
 * only failure-pending), -1 if none is ready, -2 if no request is active
 * at all. */
static int req_vec_find_ready(const req_vec_t *v) {
  if (!req_vec_any_active(v))
    return -2;
  int pending = -1;
  for (int i = 0; i < v->n; i++) {
    const hc_mpi_request_t *r = v->reqs[i];
    if (!req_is_active(r) || !req_is_ready(r))
      continue;
    if (!r->engine || hcomm_request_done(r->engine))
      return i;
    pending = pending < 0 ? i : pending;
  }
  return pending;
}

/* Blocks until a request of v is ready; see req_vec_find_ready.  When
 * only failure-pending ones are, one more turn of progress lets a request
 * that is about to complete (a message already there) go first. */
static int req_vec_wait_ready(req_vec_t *v) {
  for (int turn = 0;; turn++) {
    int i;
    while ((i = req_vec_find_ready(v)) == -1) {
      req_vec_pending(v);
      req_vec_wait_some(v, 1);
    }
    const hc_mpi_request_t *r = i >= 0 ? v->reqs[i] : NULL;
    if (turn > 0 || r == NULL || !r->engine || hcomm_request_done(r->engine))
      return i;
    hcomm_progress();
  }
}

/* Completes one request of v and reports it through *indx. */
static int req_finish_one(const char *fn, req_vec_t *v, int i,
                          MPI_Request *handles, int *indx, MPI_Status *status) {
  *indx = i;
  return req_finish_raise(fn, v->reqs[i], &handles[i], status);
}

static int req_any_args(const char *fn, req_vec_t *v, int count,
                        MPI_Request *handles, const int *indx,
                        const MPI_Status *status) {
  int rc = req_vec_init(fn, v, count, handles);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!indx || !status) {
    req_vec_fini(v);
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "%s is NULL",
                        indx ? "status" : "indx");
  }
  return MPI_SUCCESS;
}

static int req_waitany_body(int count, MPI_Request array_of_requests[],
                            int *indx, MPI_Status *status) {
  static const char fn[] = "MPI_Waitany";
  req_vec_t v;
  int rc = req_any_args(fn, &v, count, array_of_requests, indx, status);
  if (rc != MPI_SUCCESS)
    return rc;
  int i = req_vec_wait_ready(&v);
  if (i == -2) {
    *indx = MPI_UNDEFINED;
    hc_mpi_status_empty(status);
  } else {
    rc = req_finish_one(fn, &v, i, array_of_requests, indx, status);
  }
  req_vec_fini(&v);
  return rc;
}

/* Traced entry (mpi_trace.h). */
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *indx,
                 MPI_Status *status) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = req_waitany_body(count, array_of_requests, indx, status);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_WAITANY, t0, -1, -1, 0) : rc;
}
HC_WEAK_ALIAS(MPI_Waitany, PMPI_Waitany);

static int req_testany_body(int count, MPI_Request array_of_requests[],
                            int *indx, int *flag, MPI_Status *status) {
  static const char fn[] = "MPI_Testany";
  req_vec_t v;
  int rc = req_any_args(fn, &v, count, array_of_requests, indx, status);
  if (rc == MPI_SUCCESS && !flag) {
    req_vec_fini(&v);
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "flag is NULL");
  }
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_progress();
  req_vec_pending(&v); /* polls MPIX generalized requests */
  int i = req_vec_find_ready(&v);
  *flag = i != -1;
  *indx = MPI_UNDEFINED;
  if (i == -2)
    hc_mpi_status_empty(status);
  else if (i >= 0)
    rc = req_finish_one(fn, &v, i, array_of_requests, indx, status);
  req_vec_fini(&v);
  return rc;
}

/* Traced entry (mpi_trace.h). */
int PMPI_Testany(int count, MPI_Request array_of_requests[], int *indx,
                 int *flag, MPI_Status *status) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = req_testany_body(count, array_of_requests, indx, flag, status);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_TESTANY, t0, -1, -1, 0) : rc;
}
HC_WEAK_ALIAS(MPI_Testany, PMPI_Testany);

/* Completes every active, ready request; the core of Waitsome/Testsome. */
static int req_finish_ready(const char *fn, req_vec_t *v, MPI_Request *handles,
                            int *outcount, int *indices, MPI_Status *statuses) {
  req_failures_t fails = {0, MPI_SUCCESS, 0, NULL};
  int n = 0;
  for (int i = 0; i < v->n; i++) {
    hc_mpi_request_t *r = v->reqs[i];
    if (!req_is_active(r) || !req_is_ready(r))
      continue;
    (void)req_finish_noted(&fails, r, &handles[i], req_status_at(statuses, n));
    indices[n++] = i;
  }
  *outcount = n;
  return req_failures_raise(fn, &fails);
}

static int req_some(const char *fn, int incount, MPI_Request *handles,
                    int *outcount, int *indices, MPI_Status *statuses,
                    int block) {
  req_vec_t v;
  int rc = req_vec_init(fn, &v, incount, handles);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!outcount || (incount > 0 && (!indices || !statuses))) {
    req_vec_fini(&v);
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "%s is NULL",
                        !outcount  ? "outcount"
                        : !indices ? "array_of_indices"
                                   : "array_of_statuses");
  }
  if (block) {
    req_vec_wait_ready(&v);
  } else {
    hcomm_progress();
    req_vec_pending(&v); /* polls MPIX generalized requests */
  }
  if (!req_vec_any_active(&v))
    *outcount = MPI_UNDEFINED;
  else
    rc = req_finish_ready(fn, &v, handles, outcount, indices, statuses);
  req_vec_fini(&v);
  return rc;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[]) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = req_some("MPI_Waitsome", incount, array_of_requests, outcount,
                    array_of_indices, array_of_statuses, 1);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_WAITSOME, t0, -1, -1, 0) : rc;
}
HC_WEAK_ALIAS(MPI_Waitsome, PMPI_Waitsome);

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[]) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = req_some("MPI_Testsome", incount, array_of_requests, outcount,
                    array_of_indices, array_of_statuses, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_TESTSOME, t0, -1, -1, 0) : rc;
}
HC_WEAK_ALIAS(MPI_Testsome, PMPI_Testsome);

/* ---- single-request management ------------------------------------------ */

/* Whether active request r is complete, without completing it: r stays
 * as it is (MPI_Request_get_status and its array forms).  When done, its
 * status goes to status and the outcome's MPI error code is returned,
 * raised nowhere; *poll_failed tells a generalized request's poll_fn
 * failure (its code returned) apart. */
static int req_peek(hc_mpi_request_t *r, int *done, MPI_Status *status,
                    int *poll_failed) {
  *poll_failed = 0;
  if (r->greq) {
    int rc = hc_mpi_greq_poll(r);
    if (rc != MPI_SUCCESS) {
      *poll_failed = 1;
      *done = 0;
      return rc;
    }
    hcomm_progress();
    *done = hcomm_request_done(r->engine);
    return *done ? hc_mpi_greq_query(r, status) : MPI_SUCCESS;
  }
  hcomm_status_t st = r->local;
  *done = 1;
  if (r->engine) {
    hcomm_test(r->engine, done, &st);
    st.error = *done ? st.error : HC_OK;
  }
  if (!*done)
    return MPI_SUCCESS;
  if (r->engine)
    hc_mpi_xfer_end(&r->xfer, st.bytes); /* the data is visible now */
  if (r->part)
    hc_mpi_part_land(r->part, st.bytes);
  hc_status_t error = hc_mpi_check_whole(&st, st.error, r->xfer.element_mask);
  hc_mpi_status_fill(status, &st);
  return hc_mpi_code_of_status(error);
}

/* Raises code, the outcome req_peek gave for r, on r's handler. */
static int req_peek_raise(const char *fn, hc_mpi_request_t *r, int code) {
  if (code == MPI_SUCCESS)
    return MPI_SUCCESS;
  if (r->greq && hc_mpi_greq_raises_own(r))
    return code; /* raised by query_fn through its object's handler */
  if (r->greq)
    return hc_mpi_raise(NULL, fn, code, "query_fn returned %d", code);
  return hc_mpi_raise(r->comm, fn, code, "the request failed with %s",
                      hc_mpi_class_name(hc_mpi_class_of_code(code)));
}

int PMPI_Request_get_status(MPI_Request request, int *flag,
                            MPI_Status *status) {
  static const char fn[] = "MPI_Request_get_status";
  hc_mpi_request_t *r = NULL;
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, flag, "flag");
  if (rc == MPI_SUCCESS)
    rc = req_check_status(fn, status, "status");
  if (rc == MPI_SUCCESS)
    rc = req_lookup(fn, request, -1, &r);
  if (rc != MPI_SUCCESS)
    return rc;
  if (!req_is_active(r)) {
    *flag = 1;
    hc_mpi_status_empty(status);
    return MPI_SUCCESS;
  }
  int poll_failed = 0;
  rc = req_peek(r, flag, status, &poll_failed);
  if (poll_failed)
    return req_callback_failed(fn, rc);
  return req_peek_raise(fn, r, rc);
}
HC_WEAK_ALIAS(MPI_Request_get_status, PMPI_Request_get_status);

/* ---- MPI-4.1: statuses of arrays of requests, none freed ---------------- */

/* The checks of the array forms: count, the array, every handle (into v,
 * whose requests the caller then only reads). */
static int req_peek_args(const char *fn, req_vec_t *v, int count,
                         const MPI_Request *handles) {
  /* req_vec_init reads the handles and writes none of them. */
  return req_vec_init(fn, v, count, (MPI_Request *)(uintptr_t)handles);
}

/* req_peek of a ready request for an array call: when it tells an
 * outcome (complete, or a poll_fn failure), that goes into status and is
 * noted in fails (req_note, which raises on the request's communicator
 * later); returns whether it told one. */
static int req_peek_noted(req_failures_t *fails, hc_mpi_request_t *r,
                          MPI_Status *status) {
  int done = 0, poll_failed = 0;
  int code = req_peek(r, &done, status, &poll_failed);
  if (!done && !poll_failed)
    return 0;
  int owned = r->greq && hc_mpi_greq_raises_own(r);
  hc_mpi_comm_t *comm = owned || r->greq ? NULL : r->comm;
  if (comm)
    hc_mpi_comm_retain(comm);
  (void)req_note(fails, code, comm, owned, status);
  return 1;
}

/* Complete: every active request of v, each status (of all count) filled;
 * a null or inactive request gets the empty status.  Incomplete: flag 0
 * and no status written. */
int PMPI_Request_get_status_all(int count,
                                const MPI_Request array_of_requests[],
                                int *flag, MPI_Status *array_of_statuses) {
  static const char fn[] = "MPI_Request_get_status_all";
  req_vec_t v;
  int rc = hc_mpi_check_ptr(fn, NULL, flag, "flag");
  if (rc == MPI_SUCCESS && count > 0)
    rc = req_check_status(fn, array_of_statuses, "array_of_statuses");
  if (rc == MPI_SUCCESS)
    rc = req_peek_args(fn, &v, count, array_of_requests);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_progress();
  req_vec_pending(&v); /* polls MPIX generalized requests */
  *flag = 1;
  for (int i = 0; i < count && *flag; i++)
    if (req_is_active(v.reqs[i]) && !req_is_ready(v.reqs[i]))
      *flag = 0;
  req_failures_t fails = {0, MPI_SUCCESS, 0, NULL};
  for (int i = 0; i < count && *flag; i++) {
    hc_mpi_request_t *r = v.reqs[i];
    MPI_Status *status = req_status_at(array_of_statuses, i);
    if (!req_is_active(r))
      hc_mpi_status_empty(status);
    else
      (void)req_peek_noted(&fails, r, status);
  }
  req_vec_fini(&v);
  return req_failures_raise(fn, &fails);
}
HC_WEAK_ALIAS(MPI_Request_get_status_all, PMPI_Request_get_status_all);

int PMPI_Request_get_status_any(int count,
                                const MPI_Request array_of_requests[],
                                int *index, int *flag, MPI_Status *status) {
  static const char fn[] = "MPI_Request_get_status_any";
  req_vec_t v;
  int rc = hc_mpi_check_ptr(fn, NULL, flag, "flag");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, index, "index");
  if (rc == MPI_SUCCESS)
    rc = req_check_status(fn, status, "status");
  if (rc == MPI_SUCCESS)
    rc = req_peek_args(fn, &v, count, array_of_requests);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_progress();
  req_vec_pending(&v);
  *index = MPI_UNDEFINED;
  *flag = !req_vec_any_active(&v); /* none active: true, and empty */
  if (*flag)
    hc_mpi_status_empty(status);
  for (int i = 0; i < count && !*flag; i++) {
    hc_mpi_request_t *r = v.reqs[i];
    if (!req_is_active(r) || !req_is_ready(r))
      continue;
    int poll_failed = 0;
    rc = req_peek(r, flag, status, &poll_failed);
    if (poll_failed) {
      req_vec_fini(&v);
      return req_callback_failed(fn, rc);
    }
    if (*flag) {
      *index = i;
      rc = req_peek_raise(fn, r, rc);
    }
  }
  req_vec_fini(&v);
  return rc;
}
HC_WEAK_ALIAS(MPI_Request_get_status_any, PMPI_Request_get_status_any);

int PMPI_Request_get_status_some(int incount,
                                 const MPI_Request array_of_requests[],
                                 int *outcount, int array_of_indices[],
                                 MPI_Status *array_of_statuses) {
  static const char fn[] = "MPI_Request_get_status_some";
  req_vec_t v;
  int rc = hc_mpi_check_ptr(fn, NULL, outcount, "outcount");
  if (rc == MPI_SUCCESS && incount > 0)
    rc = hc_mpi_check_ptr(fn, NULL, array_of_indices, "array_of_indices");
  if (rc == MPI_SUCCESS && incount > 0)
    rc = req_check_status(fn, array_of_statuses, "array_of_statuses");
  if (rc == MPI_SUCCESS)
    rc = req_peek_args(fn, &v, incount, array_of_requests);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_progress();
  req_vec_pending(&v);
  req_failures_t fails = {0, MPI_SUCCESS, 0, NULL};
  int n = 0;
  for (int i = 0; i < incount; i++) {
    hc_mpi_request_t *r = v.reqs[i];
    if (!req_is_active(r) || !req_is_ready(r))
      continue;
    if (req_peek_noted(&fails, r, req_status_at(array_of_statuses, n)))
      array_of_indices[n++] = i;
  }
  *outcount = req_vec_any_active(&v) ? n : MPI_UNDEFINED;
  req_vec_fini(&v);
  return req_failures_raise(fn, &fails);
}
HC_WEAK_ALIAS(MPI_Request_get_status_some, PMPI_Request_get_status_some);

/* The request *request names for a call that needs one (Request_free,
 * Cancel: verb, for the message), never MPI_REQUEST_NULL. */
static int req_lookup_named(const char *fn, MPI_Request *request,
                            const char *verb, hc_mpi_request_t **r) {
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, request, "request");
  if (rc == MPI_SUCCESS)
    rc = req_lookup(fn, *request, -1, r);
  if (rc == MPI_SUCCESS && !*r)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_REQUEST, "cannot %s MPI_REQUEST_NULL",
                      verb);
  return rc;
}

int PMPI_Request_free(MPI_Request *request) {
  static const char fn[] = "MPI_Request_free";
  hc_mpi_request_t *r = NULL;
  int rc = req_lookup_named(fn, request, "free", &r);
  if (rc != MPI_SUCCESS)
    return rc;
  *request = MPI_REQUEST_NULL;
  if (r->greq) {
    rc = hc_mpi_greq_free(r);
    return hc_mpi_raise(NULL, fn, rc, "free_fn returned %d", rc);
  }
  /* A running operation goes on; the engine drops it when it completes,
   * and staged data (a temporary, or the accessor the engine packs or
   * unpacks each fragment through, with its datatype) stays until then.
   * The face object goes first: an engine request kept in it
   * (hc_mpi_request_issue) takes the slot over, and may give it back as
   * soon as it is freed. */
  hcomm_request_t *eng = r->engine;
  if (!eng) { /* nothing running; the shared sent request is never written */
    hc_mpi_request_destroy(r);
    return MPI_SUCCESS;
  }
  hc_mpi_xfer_t staged = r->xfer;
  r->xfer = (hc_mpi_xfer_t){0};
  hc_mpi_request_destroy(r);
  if (staged.tmp || staged.acc) {
    hc_mpi_xfer_orphan(eng, &staged);
  } else {
    hc_mpi_xfer_fini(&staged);
    hcomm_request_free(eng);
  }
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Request_free, PMPI_Request_free);

int PMPI_Cancel(MPI_Request *request) {
  static const char fn[] = "MPI_Cancel";
  hc_mpi_request_t *r = NULL;
  int rc = req_lookup_named(fn, request, "cancel", &r);
  if (rc != MPI_SUCCESS)
    return rc;
  if (r->greq) {
    rc = hc_mpi_greq_cancel(r);
    return hc_mpi_raise(NULL, fn, rc, "cancel_fn returned %d", rc);
  }
  if (!req_is_active(r) || !r->engine)
    return MPI_SUCCESS; /* already complete: nothing to cancel */
  return hc_mpi_raise_status(r->comm, fn, hcomm_cancel(r->engine));
}
HC_WEAK_ALIAS(MPI_Cancel, PMPI_Cancel);

/* ---- persistent requests ------------------------------------------------ */

int hc_mpi_request_start(const char *fn, hc_mpi_request_t *r) {
  hcomm_status_t done = {MPI_PROC_NULL, MPI_ANY_TAG, 0, 0, HC_OK};
  hc_status_t st = HC_OK;
  if (r->coll != NULL)
    return hc_mpi_coll_start(fn, r);
  if (r->part != NULL)
    return hc_mpi_part_start(fn, r);
  r->active = 1;
  r->engine = NULL;
  if (r->peer == MPI_PROC_NULL) {
    r->local = done;
    return MPI_SUCCESS;
  }
  if (r->mode == HC_MPI_SEND_BUFFERED && !r->is_recv) {
    done.source = MPI_ANY_SOURCE;
    r->local = done;
    int rc = hc_mpi_bsend_typed(fn, r->comm, r->xfer.user, r->xfer.count,
                                r->xfer.type, r->peer, r->tag);
    if (rc != MPI_SUCCESS)
      r->active = 0;
    return rc;
  }
  int rc = hc_mpi_xfer_begin_stream(fn, r->comm, &r->xfer);
  if (rc != MPI_SUCCESS) {
    r->active = 0;
    return rc;
  }
  st = hc_mpi_request_issue(r, r->peer, r->tag, r->mode, 0);
  if (st != HC_OK) {
    r->active = 0;
    r->engine = NULL;
    hc_mpi_xfer_end(&r->xfer, 0);
  }
  return hc_mpi_raise_status(r->comm, fn, st);
}

static int req_start_lookup(const char *fn, MPI_Request handle, int index,
                            hc_mpi_request_t **out) {
  int rc = req_lookup(fn, handle, index, out);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_request_t *r = *out;
  if (r && r->kind == HC_REQ_PERSISTENT && !r->active)
    return MPI_SUCCESS;
  return hc_mpi_raise(r ? r->comm : NULL, fn, MPI_ERR_REQUEST,
                      "request 0x%x is not an inactive persistent request",
                      (unsigned)handle);
}

static int req_start_body(MPI_Request *request) {
  static const char fn[] = "MPI_Start";
  hc_mpi_request_t *r = NULL;
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, request, "request");
  if (rc == MPI_SUCCESS)
    rc = req_start_lookup(fn, *request, -1, &r);
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_request_start(fn, r);
}

/* MPI_Start while tracing (mpi_trace.h), out of line as req_wait_traced. */
static __attribute__((noinline, cold)) int
req_start_traced(MPI_Request *request) {
  uint64_t t0 = hc_trace_now();
  int rc = req_start_body(request);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_START, t0, -1, -1, 0) : rc;
}

int PMPI_Start(MPI_Request *request) {
  if (__builtin_expect(hc_trace_on, 0))
    return req_start_traced(request);
  /* An inactive persistent collective, good arguments: straight to its
   * run; anything else is checked one by one in req_start_body. */
  hc_mpi_request_t *r = req_coll_at(request, 0);
  if (r != NULL)
    return hc_mpi_coll_start("MPI_Start", r);
  return req_start_body(request);
}
HC_WEAK_ALIAS(MPI_Start, PMPI_Start);

static int req_startall_body(int count, MPI_Request array_of_requests[]) {
  static const char fn[] = "MPI_Startall";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_count(fn, NULL, count);
  if (rc == MPI_SUCCESS && count > 0)
    rc = hc_mpi_check_ptr(fn, NULL, array_of_requests, "array_of_requests");
  if (rc != MPI_SUCCESS)
    return rc;
  /* Check them all before starting any, so an error starts nothing. */
  for (int i = 0; i < count; i++) {
    hc_mpi_request_t *r = NULL;
    rc = req_start_lookup(fn, array_of_requests[i], i, &r);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  for (int i = 0; i < count; i++) {
    rc = hc_mpi_request_start(fn, hc_mpi_request_get(array_of_requests[i]));
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

/* Traced entry (mpi_trace.h). */
int PMPI_Startall(int count, MPI_Request array_of_requests[]) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = req_startall_body(count, array_of_requests);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_STARTALL, t0, -1, -1, 0) : rc;
}
HC_WEAK_ALIAS(MPI_Startall, PMPI_Startall);

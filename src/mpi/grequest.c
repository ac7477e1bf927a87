/*
 * Generalized requests (MPI 4.0 section 13.2): operations the application
 * runs itself and reports through MPI_Grequest_complete.  The face request
 * wraps an engine request that stays pending until then
 * (hcomm_request_new_pending), so every wait and test (Wait, Test, the
 * -all/-any/-some forms) treats it like any other request.  The callbacks
 * run as the standard says:
 *   query_fn  when a wait or test completes it (with a scratch status when
 *             the caller ignores it), and in MPI_Request_get_status;
 *   free_fn   once the request is both complete and freed: after query_fn
 *             in a wait or test, or at MPI_Request_free of a complete
 *             request, or at MPI_Grequest_complete of one already freed;
 *   cancel_fn in MPI_Cancel, told whether MPI_Grequest_complete was called.
 * MPICH's extension (MPIX_Grequest_start, and classes of callbacks shared
 * by many requests: MPIX_Grequest_class_create / _allocate) adds two that
 * let the waiting thread drive the work itself:
 *   poll_fn   in every test of the request and in each turn of a wait's
 *             loop, while it is pending (it may call MPI_Grequest_complete);
 *   wait_fn   once in a blocking wait, with that request's state alone and
 *             timeout 0 (no limit), to block until the work is done.
 * A wait on such a request polls instead of sleeping in the engine.
 */
#include <stdlib.h>

#include "util/lock.h"

#include "mpi/mpi_impl.h"

struct hc_mpi_greq {
  MPI_Grequest_query_function *query_fn;
  MPI_Grequest_free_function *free_fn;
  MPI_Grequest_cancel_function *cancel_fn;
  MPIX_Grequest_poll_function *poll_fn;
  MPIX_Grequest_wait_function *wait_fn;
  void *extra_state;
  /* A request of the library's own whose query_fn raises a failure
   * through the handler of the object it belongs to (a file's). */
  int raises_own;
};

/* A new generalized request with these callbacks (NULL poll_fn and
 * wait_fn: a standard one). */
static int greq_start(const char *fn, const struct hc_mpi_greq *fns,
                      MPI_Request *request) {
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, request, "request");
  if (rc != MPI_SUCCESS)
    return rc;
  struct hc_mpi_greq *g = malloc(sizeof *g);
  hc_mpi_request_t *r =
      g ? hc_mpi_request_new(HC_REQ_PLAIN, hc_mpi_comm_world()) : NULL;
  hc_status_t st = r ? hcomm_request_new_pending(&r->engine) : HC_ERR_NOMEM;
  if (st != HC_OK) {
    if (r)
      hc_mpi_request_destroy(r);
    free(g);
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  *g = *fns;
  r->greq = g;
  *request = r->handle;
  return MPI_SUCCESS;
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn,
                        void *extra_state, MPI_Request *request) {
  struct hc_mpi_greq fns = {query_fn, free_fn,     cancel_fn, NULL,
                            NULL,     extra_state, 0};
  return greq_start("MPI_Grequest_start", &fns, request);
}
HC_WEAK_ALIAS(MPI_Grequest_start, PMPI_Grequest_start);

void hc_mpi_greq_set_raises_own(MPI_Request request) {
  hc_mpi_request_t *r = hc_mpi_request_get(request);
  if (r && r->greq)
    r->greq->raises_own = 1;
}

int hc_mpi_greq_raises_own(const hc_mpi_request_t *r) {
  return r->greq && r->greq->raises_own;
}

int PMPIX_Grequest_start(MPI_Grequest_query_function *query_fn,
                         MPI_Grequest_free_function *free_fn,
                         MPI_Grequest_cancel_function *cancel_fn,
                         MPIX_Grequest_poll_function *poll_fn,
                         MPIX_Grequest_wait_function *wait_fn,
                         void *extra_state, MPI_Request *request) {
  struct hc_mpi_greq fns = {query_fn, free_fn,     cancel_fn, poll_fn,
                            wait_fn,  extra_state, 0};
  return greq_start("MPIX_Grequest_start", &fns, request);
}
HC_WEAK_ALIAS(MPIX_Grequest_start, PMPIX_Grequest_start);

/* ---- classes ------------------------------------------------------------ */

/* Classes live until the process ends (MPICH has no call that frees one);
 * a handle is a direct handle of MPICH's generalized-request-class object
 * type over an index into this array. */
#define GREQ_CLASS_HANDLE_BASE 0xb4000000u
#define GREQ_CLASS_INDEX_MASK 0x03ffffffu

static struct hc_mpi_greq *greq_classes;
static int greq_nclasses;
static pthread_mutex_t greq_class_lock = PTHREAD_MUTEX_INITIALIZER;

int PMPIX_Grequest_class_create(MPI_Grequest_query_function *query_fn,
                                MPI_Grequest_free_function *free_fn,
                                MPI_Grequest_cancel_function *cancel_fn,
                                MPIX_Grequest_poll_function *poll_fn,
                                MPIX_Grequest_wait_function *wait_fn,
                                MPIX_Grequest_class *greq_class) {
  static const char fn[] = "MPIX_Grequest_class_create";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, greq_class, "greq_class");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_lock(&greq_class_lock);
  struct hc_mpi_greq *grown = NULL;
  if (greq_nclasses < (int)GREQ_CLASS_INDEX_MASK)
    grown = realloc(greq_classes, (size_t)(greq_nclasses + 1) * sizeof *grown);
  if (grown != NULL) {
    greq_classes = grown;
    grown[greq_nclasses] = (struct hc_mpi_greq){
        query_fn, free_fn, cancel_fn, poll_fn, wait_fn, NULL, 0};
    *greq_class = (MPIX_Grequest_class)(GREQ_CLASS_HANDLE_BASE |
                                        (unsigned)greq_nclasses++);
  }
  hc_unlock(&greq_class_lock);
  if (grown == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPIX_Grequest_class_create, PMPIX_Grequest_class_create);

int PMPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class,
                                  void *extra_state, MPI_Request *request) {
  static const char fn[] = "MPIX_Grequest_class_allocate";
  unsigned h = (unsigned)greq_class;
  int index = (int)(h & GREQ_CLASS_INDEX_MASK);
  struct hc_mpi_greq fns = {0};
  hc_lock(&greq_class_lock);
  int valid = (h & ~GREQ_CLASS_INDEX_MASK) == GREQ_CLASS_HANDLE_BASE &&
              index < greq_nclasses;
  if (valid)
    fns = greq_classes[index];
  hc_unlock(&greq_class_lock);
  if (!valid)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "0x%x is not a generalized request class", h);
  fns.extra_state = extra_state;
  return greq_start(fn, &fns, request);
}
HC_WEAK_ALIAS(MPIX_Grequest_class_allocate, PMPIX_Grequest_class_allocate);

/* free_fn, then the request and its handle go (the engine's request is
 * released already). */
static int greq_destroy(hc_mpi_request_t *r) {
  struct hc_mpi_greq *g = r->greq;
  int rc = g->free_fn ? g->free_fn(g->extra_state) : MPI_SUCCESS;
  r->engine = NULL;
  r->greq = NULL;
  free(g);
  hc_mpi_request_destroy(r);
  return rc;
}

int PMPI_Grequest_complete(MPI_Request request) {
  static const char fn[] = "MPI_Grequest_complete";
  hc_mpi_request_t *r = hc_mpi_request_get(request);
  if (!r || !r->greq)
    return hc_mpi_raise(NULL, fn, MPI_ERR_REQUEST,
                        "request 0x%x is not a generalized request",
                        (unsigned)request);
  /* The engine says, under its lock, whether MPI_Request_free came first
   * (then this call finishes the request), so that a free in another
   * thread cannot slip between the look and the completion.  Once
   * complete and not freed, a wait in another thread may destroy r. */
  int freed = 0;
  if (hcomm_request_user_complete(r->engine, NULL, &freed) != HC_OK)
    return hc_mpi_raise(NULL, fn, MPI_ERR_REQUEST,
                        "generalized request 0x%x is already complete",
                        (unsigned)request);
  if (!freed)
    return MPI_SUCCESS;
  int rc = greq_destroy(r);
  return hc_mpi_raise(NULL, fn, rc, "free_fn returned %d", rc);
}
HC_WEAK_ALIAS(MPI_Grequest_complete, PMPI_Grequest_complete);

int hc_mpi_greq_query(hc_mpi_request_t *r, MPI_Status *status) {
  MPI_Status scratch = {0};
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &scratch : status;
  /* What a query_fn that sets nothing leaves: an empty status. */
  hc_mpi_status_empty(st);
  struct hc_mpi_greq *g = r->greq;
  return g->query_fn ? g->query_fn(g->extra_state, st) : MPI_SUCCESS;
}

int hc_mpi_greq_finish(hc_mpi_request_t *r, MPI_Status *status) {
  int rc = hc_mpi_greq_query(r, status);
  hcomm_request_free(r->engine); /* complete: released now */
  int frc = greq_destroy(r);
  return rc != MPI_SUCCESS ? rc : frc;
}

int hc_mpi_greq_cancel(hc_mpi_request_t *r) {
  struct hc_mpi_greq *g = r->greq;
  int complete = hcomm_request_done(r->engine);
  return g->cancel_fn ? g->cancel_fn(g->extra_state, complete) : MPI_SUCCESS;
}

/* Still pending, the request lives until MPI_Grequest_complete, which
 * then runs free_fn and drops it (MPI 4.0 13.2: the request may be freed
 * before it completes); another thread may do so at once, so r is not
 * touched after. */
int hc_mpi_greq_free(hc_mpi_request_t *r) {
  if (!hcomm_request_free(r->engine))
    return MPI_SUCCESS;
  return greq_destroy(r);
}

/* ---- poll and wait (request.c) ------------------------------------------ */

int hc_mpi_greq_polled(const hc_mpi_request_t *r) {
  return r->greq && (r->greq->poll_fn || r->greq->wait_fn) &&
         !hcomm_request_done(r->engine);
}

int hc_mpi_greq_poll(hc_mpi_request_t *r) {
  if (!r->greq || !r->greq->poll_fn || hcomm_request_done(r->engine))
    return MPI_SUCCESS;
  MPI_Status scratch;
  hc_mpi_status_empty(&scratch);
  return r->greq->poll_fn(r->greq->extra_state, &scratch);
}

int hc_mpi_greq_block(hc_mpi_request_t *r) {
  if (!hc_mpi_greq_polled(r))
    return MPI_SUCCESS;
  int rc = MPI_SUCCESS;
  if (r->greq->wait_fn) {
    MPI_Status scratch;
    hc_mpi_status_empty(&scratch);
    void *state = r->greq->extra_state;
    rc = r->greq->wait_fn(1, &state, 0.0, &scratch);
  }
  while (rc == MPI_SUCCESS && !hcomm_request_done(r->engine)) {
    rc = hc_mpi_greq_poll(r);
    hcomm_progress();
  }
  return rc;
}

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
 */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

struct hc_mpi_greq {
  MPI_Grequest_query_function *query_fn;
  MPI_Grequest_free_function *free_fn;
  MPI_Grequest_cancel_function *cancel_fn;
  void *extra_state;
  /* MPI_Request_free came first: the handle lives until
   * MPI_Grequest_complete, which then runs free_fn and drops it. */
  int user_freed;
};

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn,
                        void *extra_state, MPI_Request *request) {
  static const char fn[] = "MPI_Grequest_start";
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
  *g = (struct hc_mpi_greq){query_fn, free_fn, cancel_fn, extra_state, 0};
  r->greq = g;
  *request = r->handle;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Grequest_start, PMPI_Grequest_start);

/* free_fn, then the request and its handle go. */
static int greq_destroy(hc_mpi_request_t *r) {
  struct hc_mpi_greq *g = r->greq;
  int rc = g->free_fn ? g->free_fn(g->extra_state) : MPI_SUCCESS;
  hcomm_request_free(r->engine);
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
  /* Read before completing: once complete, a wait in another thread may
   * destroy the request (a freed request has no waiter). */
  int freed = r->greq->user_freed;
  if (hcomm_request_user_complete(r->engine, NULL) != HC_OK)
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
  int frc = greq_destroy(r);
  return rc != MPI_SUCCESS ? rc : frc;
}

int hc_mpi_greq_cancel(hc_mpi_request_t *r) {
  struct hc_mpi_greq *g = r->greq;
  int complete = hcomm_request_done(r->engine);
  return g->cancel_fn ? g->cancel_fn(g->extra_state, complete) : MPI_SUCCESS;
}

int hc_mpi_greq_free(hc_mpi_request_t *r) {
  if (hcomm_request_done(r->engine))
    return greq_destroy(r);
  r->greq->user_freed = 1;
  return MPI_SUCCESS;
}

/*
 * User-Level Failure Mitigation (MPICH's MPIX_ names, with the MPI
 * Forum's later ones): revoke, shrink, agree and the acknowledgement of
 * failures, over the engine's src/hcomm/ft.c.  Only the checks and the
 * handle work live here.  docs/ft.md says how to use them.
 */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

int PMPIX_Comm_revoke(MPI_Comm comm) {
  static const char fn[] = "MPIX_Comm_revoke";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_raise_status(c, fn, hcomm_comm_revoke(c->engine));
}
HC_WEAK_ALIAS(MPIX_Comm_revoke, PMPIX_Comm_revoke);

int PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag) {
  static const char fn[] = "MPIX_Comm_is_revoked";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  *flag = hcomm_comm_is_revoked(c->engine);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPIX_Comm_is_revoked, PMPIX_Comm_is_revoked);

/* Entry of agree and shrink: a communicator and an output. */
static int ulfm_enter(const char *fn, MPI_Comm comm, const void *out,
                      const char *what, hc_mpi_comm_t **c) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *c, out, what);
  return rc;
}

/* Waits for an engine request of this file (when it started) and frees
 * it. */
static hc_status_t ulfm_wait(hc_status_t started, hcomm_request_t *req) {
  if (started != HC_OK)
    return started;
  hc_status_t rc = hcomm_wait(req, NULL);
  hcomm_request_free(req);
  return rc;
}

int PMPIX_Comm_agree(MPI_Comm comm, int *flag) {
  static const char fn[] = "MPIX_Comm_agree";
  hc_mpi_comm_t *c = NULL;
  int rc = ulfm_enter(fn, comm, flag, "flag", &c);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_request_t *req = NULL;
  uint32_t bits = (uint32_t)*flag;
  hc_status_t st = hcomm_comm_iagree(c->engine, &bits, &req);
  st = ulfm_wait(st, req);
  /* The agreed value is defined even when failures are reported. */
  if (st == HC_OK || st == HC_ERR_PEER_DEAD)
    *flag = (int)bits;
  return hc_mpi_raise_status(c, fn, st);
}
HC_WEAK_ALIAS(MPIX_Comm_agree, PMPIX_Comm_agree);

int PMPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request) {
  static const char fn[] = "MPIX_Comm_iagree";
  hc_mpi_comm_t *c = NULL;
  int rc = ulfm_enter(fn, comm, flag, "flag", &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, request, "request");
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_request_t *req = NULL;
  /* int and unsigned int may alias; the engine writes it at completion. */
  hc_status_t st = hcomm_comm_iagree(c->engine, (uint32_t *)flag, &req);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return hc_mpi_request_wrap(fn, c, req, request);
}
HC_WEAK_ALIAS(MPIX_Comm_iagree, PMPIX_Comm_iagree);

/* A handle for the shrunken communicator with c's error handler; engine
 * NULL: ishrink fills it in before its request completes. */
static int ulfm_adopt(const char *fn, hc_mpi_comm_t *c, hcomm_comm_t *engine,
                      MPI_Comm *newcomm) {
  hc_mpi_errhandler_t *e = hc_mpi_comm_errhandler(c);
  int rc = hc_mpi_comm_adopt(fn, engine, e, c->handle, newcomm);
  hc_mpi_errhandler_release(e);
  if (rc == MPI_SUCCESS) /* derived from c's session, if any */
    hc_mpi_comm_get(*newcomm)->session = c->session;
  return rc;
}

int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm) {
  static const char fn[] = "MPIX_Comm_shrink";
  hc_mpi_comm_t *c = NULL;
  int rc = ulfm_enter(fn, comm, newcomm, "newcomm", &c);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_request_t *req = NULL;
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_comm_ishrink(c->engine, &engine, &req);
  st = ulfm_wait(st, req);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return ulfm_adopt(fn, c, engine, newcomm);
}
HC_WEAK_ALIAS(MPIX_Comm_shrink, PMPIX_Comm_shrink);

int PMPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) {
  static const char fn[] = "MPIX_Comm_ishrink";
  hc_mpi_comm_t *c = NULL;
  int rc = ulfm_enter(fn, comm, newcomm, "newcomm", &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, request, "request");
  if (rc == MPI_SUCCESS)
    rc = ulfm_adopt(fn, c, NULL, newcomm);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_comm_t *n = hc_mpi_comm_get(*newcomm);
  hcomm_request_t *req = NULL;
  hc_status_t st = hcomm_comm_ishrink(c->engine, &n->engine, &req);
  if (st == HC_OK)
    return hc_mpi_request_wrap(fn, c, req, request);
  PMPI_Comm_free(newcomm);
  return hc_mpi_raise_status(c, fn, st);
}
HC_WEAK_ALIAS(MPIX_Comm_ishrink, PMPIX_Comm_ishrink);

/* ---- failures and their acknowledgement --------------------------------- */

/* A group of the first n (< 0: all) failed members of c (of both groups of
 * an intercommunicator), as this process learnt of them. */
static int ulfm_failed_group(const char *fn, hc_mpi_comm_t *c, int n,
                             MPI_Group *group) {
  int total = hcomm_comm_failed(c->engine, NULL, 0);
  if (n < 0 || n > total)
    n = total;
  int *world = malloc((size_t)(n > 0 ? n : 1) * sizeof *world);
  if (world == NULL)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  hcomm_comm_failed(c->engine, world, n);
  int rc = hc_mpi_group_make(fn, c, n, world, group);
  free(world);
  return rc;
}

static int ulfm_enter_group(const char *fn, MPI_Comm comm, MPI_Group *group,
                            hc_mpi_comm_t **c) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *c, group, "failedgrp");
  return rc;
}

int PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp) {
  static const char fn[] = "MPIX_Comm_get_failed";
  hc_mpi_comm_t *c = NULL;
  int rc = ulfm_enter_group(fn, comm, failedgrp, &c);
  return rc == MPI_SUCCESS ? ulfm_failed_group(fn, c, -1, failedgrp) : rc;
}
HC_WEAK_ALIAS(MPIX_Comm_get_failed, PMPIX_Comm_get_failed);

int PMPIX_Comm_failure_ack(MPI_Comm comm) {
  static const char fn[] = "MPIX_Comm_failure_ack";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    hcomm_comm_ack_failed(c->engine, -1);
  return rc;
}
HC_WEAK_ALIAS(MPIX_Comm_failure_ack, PMPIX_Comm_failure_ack);

int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp) {
  static const char fn[] = "MPIX_Comm_failure_get_acked";
  hc_mpi_comm_t *c = NULL;
  int rc = ulfm_enter_group(fn, comm, failedgrp, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  /* Acknowledging none more reads how many are. */
  return ulfm_failed_group(fn, c, hcomm_comm_ack_failed(c->engine, 0),
                           failedgrp);
}
HC_WEAK_ALIAS(MPIX_Comm_failure_get_acked, PMPIX_Comm_failure_get_acked);

int PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked) {
  static const char fn[] = "MPIX_Comm_ack_failed";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, num_acked, "num_acked");
  if (rc == MPI_SUCCESS && num_to_ack < 0)
    rc = hc_mpi_raise(c, fn, MPI_ERR_ARG, "num_to_ack %d is negative",
                      num_to_ack);
  if (rc == MPI_SUCCESS)
    *num_acked = hcomm_comm_ack_failed(c->engine, num_to_ack);
  return rc;
}
HC_WEAK_ALIAS(MPIX_Comm_ack_failed, PMPIX_Comm_ack_failed);

/*
 * The dynamic-process chapter (MPI-4.0 11.10): for now MPI_Comm_disconnect,
 * which needs no second job.  Ports, accept/connect, join and spawn need
 * peers outside the launcher's world, which the engine does not have yet.
 */
#include "mpi/mpi_impl.h"

/* MPI-4.0 11.10.4: collective over comm; waits for the communication
 * pending on it to complete internally (the requests stay the caller's,
 * already complete), then frees it as MPI_Comm_free does. */
int PMPI_Comm_disconnect(MPI_Comm *comm) {
  static const char fn[] = "MPI_Comm_disconnect";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_check_ptr(fn, NULL, comm, "comm");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_comm_enter(fn, *comm, &c);
  if (rc == MPI_SUCCESS && c->builtin)
    rc = hc_mpi_raise(c, fn, MPI_ERR_COMM, "cannot disconnect %s", c->name);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = hcomm_comm_quiesce(c->engine);
  hcomm_request_t *req = NULL;
  if (st == HC_OK && hcomm_comm_is_inter(c->engine)) {
    st = hcomm_inter_barrier(c->engine, 0, &req);
    if (st == HC_OK) {
      st = hcomm_wait(req, NULL);
      hcomm_request_free(req);
    }
  } else if (st == HC_OK) {
    st = hcomm_barrier(c->engine);
  }
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return PMPI_Comm_free(comm);
}
HC_WEAK_ALIAS(MPI_Comm_disconnect, PMPI_Comm_disconnect);

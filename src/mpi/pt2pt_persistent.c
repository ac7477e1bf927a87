/*
 * Persistent point-to-point requests (MPI_Send_init, MPI_Ssend_init,
 * MPI_Rsend_init, MPI_Bsend_init, MPI_Recv_init, with their _c forms):
 * each checks its arguments once and records them in an inactive request;
 * MPI_Start (request.c) starts the operation each time.  Nothing here
 * moves data, so none of the send and receive paths is needed.
 */
#include "mpi/mpi_impl.h"

static int pt_persistent(const char *fn, void *buf, MPI_Count count,
                         MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                         int is_recv, int mode, MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = is_recv
             ? hc_mpi_check_recv(fn, c, buf, count, type, peer, tag, &bytes)
             : hc_mpi_check_send(fn, c, buf, count, type, peer, tag, &bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, request, "request");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_request_t *r = hc_mpi_request_new(HC_REQ_PERSISTENT, c);
  if (!r)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  r->active = 0;
  r->is_recv = is_recv;
  r->buf = buf;
  r->bytes = bytes;
  hc_mpi_xfer_init(&r->xfer, buf, count,
                   hc_mpi_type_get(hc_mpi_message_type(type, count)), is_recv);
  r->peer = peer;
  r->tag = tag;
  r->mode = mode;
  *request = r->handle;
  return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                   int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Send_init", (void *)buf, count, datatype, dest, tag,
                       comm, 0, HCOMM_SEND_STANDARD, request);
}
HC_WEAK_ALIAS(MPI_Send_init, PMPI_Send_init);

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                     int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Send_init_c", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HCOMM_SEND_STANDARD, request);
}
HC_WEAK_ALIAS(MPI_Send_init_c, PMPI_Send_init_c);

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Ssend_init", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HCOMM_SEND_SYNC, request);
}
HC_WEAK_ALIAS(MPI_Ssend_init, PMPI_Ssend_init);

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Ssend_init_c", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HCOMM_SEND_SYNC, request);
}
HC_WEAK_ALIAS(MPI_Ssend_init_c, PMPI_Ssend_init_c);

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Rsend_init", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HCOMM_SEND_READY, request);
}
HC_WEAK_ALIAS(MPI_Rsend_init, PMPI_Rsend_init);

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Rsend_init_c", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HCOMM_SEND_READY, request);
}
HC_WEAK_ALIAS(MPI_Rsend_init_c, PMPI_Rsend_init_c);

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Bsend_init", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HC_MPI_SEND_BUFFERED, request);
}
HC_WEAK_ALIAS(MPI_Bsend_init, PMPI_Bsend_init);

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Bsend_init_c", (void *)buf, count, datatype, dest,
                       tag, comm, 0, HC_MPI_SEND_BUFFERED, request);
}
HC_WEAK_ALIAS(MPI_Bsend_init_c, PMPI_Bsend_init_c);

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Recv_init", buf, count, datatype, source, tag, comm,
                       1, 0, request);
}
HC_WEAK_ALIAS(MPI_Recv_init, PMPI_Recv_init);

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                     int source, int tag, MPI_Comm comm, MPI_Request *request) {
  return pt_persistent("MPI_Recv_init_c", buf, count, datatype, source, tag,
                       comm, 1, 0, request);
}
HC_WEAK_ALIAS(MPI_Recv_init_c, PMPI_Recv_init_c);

/*
 * A point-to-point call's arguments past the good case: the checks one by
 * one, which name the first thing wrong once pt_args_usual's single test
 * (pt2pt_impl.h) failed, for the point-to-point files and, as
 * hc_mpi_check_send / hc_mpi_check_recv, for every other call that takes
 * a send's or a receive's arguments; the staged description of non-dense
 * data that passed them.  Out of line: the small-message path comes here
 * only when a check fails or the data are not dense.
 */
#include "mpi/mpi_impl.h"
#include "mpi/pt2pt_impl.h"

int hc_mpi_check_send_typed(const char *fn, hc_mpi_comm_t *c, const void *buf,
                            MPI_Count count, MPI_Datatype type, int dest,
                            int tag, const hc_mpi_type_t **t, size_t *bytes) {
  int rc = hc_mpi_check_data_typed(fn, c, buf, count, type, t, bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_dest(fn, c, dest);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send_tag(fn, c, tag);
  return rc;
}

int hc_mpi_check_send(const char *fn, hc_mpi_comm_t *c, const void *buf,
                      MPI_Count count, MPI_Datatype type, int dest, int tag,
                      size_t *bytes) {
  const hc_mpi_type_t *t = NULL;
  return hc_mpi_check_send_typed(fn, c, buf, count, type, dest, tag, &t, bytes);
}

int hc_mpi_check_recv_typed(const char *fn, hc_mpi_comm_t *c, const void *buf,
                            MPI_Count count, MPI_Datatype type, int source,
                            int tag, const hc_mpi_type_t **t, size_t *bytes) {
  int rc = hc_mpi_check_data_typed(fn, c, buf, count, type, t, bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_source(fn, c, source);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_recv_tag(fn, c, tag);
  return rc;
}

int hc_mpi_check_recv(const char *fn, hc_mpi_comm_t *c, const void *buf,
                      MPI_Count count, MPI_Datatype type, int source, int tag,
                      size_t *bytes) {
  const hc_mpi_type_t *t = NULL;
  return hc_mpi_check_recv_typed(fn, c, buf, count, type, source, tag, &t,
                                 bytes);
}

int hc_mpi_pt_xfer_stream(const char *fn, hc_mpi_comm_t *c, const void *buf,
                          MPI_Count count, MPI_Datatype type, int is_recv,
                          hc_mpi_xfer_t *x) {
  hc_mpi_xfer_init(x, buf, count,
                   hc_mpi_type_get(hc_mpi_message_type(type, count)), is_recv);
  int rc = hc_mpi_xfer_begin_stream(fn, c, x);
  if (rc != MPI_SUCCESS)
    hc_mpi_xfer_fini(x);
  return rc;
}

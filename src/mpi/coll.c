/*
 * Thin collective bindings: argument checks, datatype counts to bytes,
 * MPI_Op to the engine's reduction, then one engine call.
 */
#include "mpi/coll_impl.h"
#include "mpi/mpi_impl.h"
#include "mpi/op.h"

int PMPI_Barrier(MPI_Comm comm) {
  static const char fn[] = "MPI_Barrier";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_raise_status(c, fn, hcomm_barrier(c->engine));
}
#pragma weak MPI_Barrier = PMPI_Barrier

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm) {
  static const char fn[] = "MPI_Bcast";
  hc_mpi_comm_t *c = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_data(fn, c, buffer, count, datatype, &bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_root(fn, c, root);
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_raise_status(c, fn,
                             hcomm_bcast(buffer, bytes, root, c->engine));
}
#pragma weak MPI_Bcast = PMPI_Bcast

/* Count, datatype and op of a reduction; *op ready for the engine. */
int hc_mpi_coll_reduce_args(const char *fn, hc_mpi_comm_t *c, int count,
                            MPI_Datatype type, MPI_Op mpi_op,
                            hcomm_reduce_op_t *op) {
  const hc_mpi_type_t *t = NULL;
  int rc = hc_mpi_check_count(fn, c, count);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_type(fn, c, type, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = hc_mpi_op_resolve(mpi_op, type, op);
  if (rc == MPI_ERR_TYPE)
    return hc_mpi_raise(c, fn, rc,
                        "operation 0x%x is not defined for "
                        "datatype 0x%x",
                        (unsigned)mpi_op, (unsigned)type);
  if (rc != MPI_SUCCESS)
    return hc_mpi_raise(c, fn, rc, "invalid operation 0x%x", (unsigned)mpi_op);
  return MPI_SUCCESS;
}

/* Buffers of a reduction: data needed where count > 0, no aliasing. */
int hc_mpi_coll_reduce_bufs(const char *fn, hc_mpi_comm_t *c,
                            const void *sendbuf, const void *recvbuf, int count,
                            int need_recv) {
  if (count == 0)
    return MPI_SUCCESS;
  if (!sendbuf)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "sendbuf is NULL");
  if (need_recv && !recvbuf)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "recvbuf is NULL");
  if (need_recv && sendbuf == recvbuf)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "sendbuf and recvbuf are the same buffer "
                        "(use MPI_IN_PLACE)");
  return MPI_SUCCESS;
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  static const char fn[] = "MPI_Reduce";
  hc_mpi_comm_t *c = NULL;
  hcomm_reduce_op_t rop;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_root(fn, c, root);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_coll_reduce_args(fn, c, count, datatype, op, &rop);
  if (rc != MPI_SUCCESS)
    return rc;
  int is_root = hcomm_comm_rank(c->engine) == root;
  if (sendbuf == MPI_IN_PLACE && !is_root)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE is allowed only at the root");
  const void *src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  rc = hc_mpi_coll_reduce_bufs(fn, c, src, recvbuf, count,
                               is_root && sendbuf != MPI_IN_PLACE);
  if (rc == MPI_SUCCESS && is_root && count > 0 && !recvbuf)
    rc = hc_mpi_raise(c, fn, MPI_ERR_BUFFER, "recvbuf is NULL at the root");
  if (rc != MPI_SUCCESS)
    return rc;
  const void *send = sendbuf == MPI_IN_PLACE ? HCOMM_IN_PLACE : sendbuf;
  return hc_mpi_raise_status(
      c, fn, hcomm_reduce(send, recvbuf, (size_t)count, &rop, root, c->engine));
}
#pragma weak MPI_Reduce = PMPI_Reduce

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static const char fn[] = "MPI_Allreduce";
  hc_mpi_comm_t *c = NULL;
  hcomm_reduce_op_t rop;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_coll_reduce_args(fn, c, count, datatype, op, &rop);
  if (rc != MPI_SUCCESS)
    return rc;
  const void *src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  rc = hc_mpi_coll_reduce_bufs(fn, c, src, recvbuf, count,
                               sendbuf != MPI_IN_PLACE);
  if (rc != MPI_SUCCESS)
    return rc;
  const void *send = sendbuf == MPI_IN_PLACE ? HCOMM_IN_PLACE : sendbuf;
  return hc_mpi_raise_status(
      c, fn, hcomm_allreduce(send, recvbuf, (size_t)count, &rop, c->engine));
}
#pragma weak MPI_Allreduce = PMPI_Allreduce

/* The per-rank block of a gather: what this rank sends must be what the
 * receiver expects per rank, since the engine moves equal blocks. */
static int coll_block_match(const char *fn, hc_mpi_comm_t *c, size_t sbytes,
                            size_t rbytes) {
  if (sbytes == rbytes)
    return MPI_SUCCESS;
  if (sbytes > rbytes)
    return hc_mpi_raise(c, fn, MPI_ERR_TRUNCATE,
                        "%zu bytes sent per rank but only %zu received", sbytes,
                        rbytes);
  return hc_mpi_raise(c, fn, MPI_ERR_COUNT,
                      "%zu bytes sent per rank but %zu expected", sbytes,
                      rbytes);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  static const char fn[] = "MPI_Gather";
  hc_mpi_comm_t *c = NULL;
  size_t sbytes = 0, rbytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_root(fn, c, root);
  if (rc != MPI_SUCCESS)
    return rc;
  int is_root = hcomm_comm_rank(c->engine) == root;
  int in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE is allowed only at the root");
  if (!in_place)
    rc = hc_mpi_check_data(fn, c, sendbuf, sendcount, sendtype, &sbytes);
  if (rc == MPI_SUCCESS && is_root)
    rc = hc_mpi_check_data(fn, c, recvbuf, recvcount, recvtype, &rbytes);
  if (rc == MPI_SUCCESS && is_root && !in_place)
    rc = coll_block_match(fn, c, sbytes, rbytes);
  if (rc != MPI_SUCCESS)
    return rc;
  size_t bytes = is_root ? rbytes : sbytes;
  const void *send = in_place ? HCOMM_IN_PLACE : sendbuf;
  return hc_mpi_raise_status(
      c, fn, hcomm_gather(send, bytes, recvbuf, root, c->engine));
}
#pragma weak MPI_Gather = PMPI_Gather

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm) {
  static const char fn[] = "MPI_Allgather";
  hc_mpi_comm_t *c = NULL;
  size_t sbytes = 0, rbytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  int in_place = sendbuf == MPI_IN_PLACE;
  if (rc == MPI_SUCCESS && !in_place)
    rc = hc_mpi_check_data(fn, c, sendbuf, sendcount, sendtype, &sbytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_data(fn, c, recvbuf, recvcount, recvtype, &rbytes);
  if (rc == MPI_SUCCESS && !in_place)
    rc = coll_block_match(fn, c, sbytes, rbytes);
  if (rc != MPI_SUCCESS)
    return rc;
  const void *send = in_place ? HCOMM_IN_PLACE : sendbuf;
  return hc_mpi_raise_status(c, fn,
                             hcomm_allgather(send, rbytes, recvbuf, c->engine));
}
#pragma weak MPI_Allgather = PMPI_Allgather

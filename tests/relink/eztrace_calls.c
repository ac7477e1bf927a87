/* The MPI calls tests/relink/eztrace.sh traces with EZTrace's MPI module:
 * a blocking send and receive with a status, collectives on MPI_COMM_WORLD
 * and on a split communicator, nonblocking point-to-point completed by
 * MPI_Wait and MPI_Waitall, and a nonblocking barrier; then the vector,
 * nonblocking and persistent forms and the communicator constructors the
 * module records.  Compiled with mpicc.mpich; needs an even number of
 * ranks, at most MAX_RANKS.  Each rank prints what it received, rank 0
 * also the MPI library's name. */
#include <mpi.h>
#include <stdio.h>

#include "mpi_library_name.h"

enum { MAX_RANKS = 8 };

/* sum_of: a checksum of what the calls below received. */
static int sum_of(const int *values, int n) {
  int sum = 0;
  for (int i = 0; i < n; i++)
    sum = 3 * sum + values[i];
  return sum;
}

static int vector_and_persistent_calls(int rank, int size) {
  int partner = rank ^ 1, mine[2 * MAX_RANKS], got[2 * MAX_RANKS] = {0};
  int counts[MAX_RANKS], displs[MAX_RANKS], checksum = 0;
  for (int i = 0; i < 2 * MAX_RANKS; i++)
    mine[i] = 100 * rank + i;
  for (int i = 0; i < size; i++) {
    counts[i] = 2;
    displs[i] = 2 * i;
  }
  MPI_Sendrecv(mine, 2, MPI_INT, partner, 1, got, 2, MPI_INT, partner, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  checksum += sum_of(got, 2);
  MPI_Gatherv(mine, 2, MPI_INT, got, counts, displs, MPI_INT, 1,
              MPI_COMM_WORLD);
  checksum += rank == 1 ? sum_of(got, 2 * size) : 0;
  MPI_Scatter(mine, 2, MPI_INT, got, 2, MPI_INT, 2 % size, MPI_COMM_WORLD);
  checksum += sum_of(got, 2);
  MPI_Alltoallv(mine, counts, displs, MPI_INT, got, counts, displs, MPI_INT,
                MPI_COMM_WORLD);
  checksum += sum_of(got, 2 * size);
  MPI_Reduce_scatter(mine, got, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  checksum += sum_of(got, 2);
  MPI_Scan(mine, got, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  checksum += sum_of(got, 2);

  /* Statuses, not MPI_STATUSES_IGNORE: GCC takes MPICH's (MPI_Status *)1
   * for an empty array (-Wstringop-overflow). */
  MPI_Request requests[2];
  MPI_Status statuses[2];
  MPI_Iallreduce(mine, got, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &requests[0]);
  MPI_Ibcast(got + 2, 2, MPI_INT, 1, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, statuses);
  checksum += sum_of(got, 4);

  MPI_Send_init(mine, 2, MPI_INT, partner, 3, MPI_COMM_WORLD, &requests[0]);
  MPI_Recv_init(got, 2, MPI_INT, partner, 3, MPI_COMM_WORLD, &requests[1]);
  for (int round = 0; round < 2; round++) {
    MPI_Startall(2, requests);
    MPI_Waitall(2, requests, statuses);
    checksum += sum_of(got, 2);
  }
  MPI_Request_free(&requests[0]);
  MPI_Request_free(&requests[1]);
  return checksum;
}

/* communicator_calls: a duplicate, a periodic ring and its 1-D sub-grid,
 * an intercommunicator between even and odd ranks and its merge. */
static int communicator_calls(int rank, int size) {
  MPI_Comm dup, ring, line, half, inter, merged;
  int dims[1] = {size}, periodic[1] = {1}, keep[1] = {1};
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Cart_create(dup, 1, dims, periodic, 0, &ring);
  MPI_Cart_sub(ring, keep, &line);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 11, &inter);
  MPI_Intercomm_merge(inter, rank % 2, &merged);
  int merged_rank, sum = 0;
  MPI_Comm_rank(merged, &merged_rank);
  MPI_Allreduce(&merged_rank, &sum, 1, MPI_INT, MPI_SUM, line);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Comm_free(&line);
  MPI_Comm_free(&ring);
  MPI_Comm_free(&dup);
  return sum;
}

int main(int argc, char **argv) {
  int rank, size, count = -1, recv_source = -1, recv_tag = -1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2 != 0 || size > MAX_RANKS) {
    fprintf(stderr,
            "eztrace_calls: needs an even number of ranks, at most %d\n",
            MAX_RANKS);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int partner = rank ^ 1;
  int mine[3] = {10 * rank + 1, 10 * rank + 2, 10 * rank + 3};
  int blocking[3] = {0}, waited[3] = {0}, waited_all[3] = {0};
  MPI_Status status, statuses[2];

  if (rank % 2 == 0)
    MPI_Send(mine, 3, MPI_INT, partner, 5, MPI_COMM_WORLD);
  else
    MPI_Recv(blocking, 3, MPI_INT, partner, 5, MPI_COMM_WORLD, &status);
  if (rank % 2 == 1) {
    MPI_Get_count(&status, MPI_INT, &count);
    recv_source = status.MPI_SOURCE;
    recv_tag = status.MPI_TAG;
  }

  int sum = 0, product = 0;
  MPI_Allreduce(&mine[0], &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(&mine[0], &product, 1, MPI_INT, MPI_PROD, 0, MPI_COMM_WORLD);

  MPI_Request requests[2];
  MPI_Irecv(waited, 3, MPI_INT, partner, 6, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(mine, 2, MPI_INT, partner, 6, MPI_COMM_WORLD, &requests[1]);
  MPI_Wait(&requests[0], &status);
  int waited_count = -1;
  MPI_Get_count(&status, MPI_INT, &waited_count);
  MPI_Wait(&requests[1], MPI_STATUS_IGNORE);

  MPI_Irecv(waited_all, 3, MPI_INT, partner, 7, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(mine, 3, MPI_INT, partner, 7, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, statuses);

  /* Even and odd ranks, in reverse order: rank 0 of each half is its
   * highest world rank. */
  MPI_Comm half;
  int from_half_root = rank;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  MPI_Bcast(&from_half_root, 1, MPI_INT, 0, half);
  MPI_Comm_free(&half);

  MPI_Request barrier;
  MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
  MPI_Wait(&barrier, MPI_STATUS_IGNORE);

  int vector_checksum = vector_and_persistent_calls(rank, size);
  int communicator_sum = communicator_calls(rank, size);

  if (rank == 0)
    print_mpi_library_name("library ");
  printf(
      "rank %d: recv %d %d %d count %d source %d tag %d; wait %d %d count %d;"
      " waitall %d %d %d source %d tag %d; sum %d product %d; half root %d;"
      " vector checksum %d; merged ranks %d\n",
      rank, blocking[0], blocking[1], blocking[2], count, recv_source, recv_tag,
      waited[0], waited[1], waited_count, waited_all[0], waited_all[1],
      waited_all[2], statuses[0].MPI_SOURCE, statuses[0].MPI_TAG, sum,
      rank == 0 ? product : 0, from_half_root, vector_checksum,
      communicator_sum);
  MPI_Finalize();
  return 0;
}

/*
 * A program whose point-to-point counts are known, for tests/tools/trace.sh:
 * every rank sends K messages to its right neighbour with MPI_Send and
 * receives K from its left with MPI_Recv, then posts M Isend/Irecv pairs
 * with every other rank, and ends with one MPI_Barrier.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { K = 5, M = 3 };

int main(int argc, char **argv) {
  int rank, size, buf[64] = {0}, in[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int i = 0; i < K; i++) {
    /* Even ranks send first, odd ranks receive first: no cycle waits. */
    if (rank % 2 == 0) {
      MPI_Send(buf, 64, MPI_INT, right, i, MPI_COMM_WORLD);
      MPI_Recv(in, 64, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, 64, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 64, MPI_INT, right, i, MPI_COMM_WORLD);
    }
  }
  MPI_Request *req = malloc(sizeof *req * 2 * M * (size_t)size);
  int *rbuf = malloc(sizeof(int) * 1024 * M * (size_t)size);
  int *sbuf = calloc(1024, sizeof(int));
  int n = 0;
  for (int p = 0; p < size; p++)
    for (int j = 0; p != rank && j < M; j++) {
      MPI_Irecv(rbuf + 1024 * (p * M + j), 1024, MPI_INT, p, 100 + j,
                MPI_COMM_WORLD, &req[n++]);
      MPI_Isend(sbuf, 1024, MPI_INT, p, 100 + j, MPI_COMM_WORLD, &req[n++]);
    }
  MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  free(req), free(rbuf), free(sbuf);
  MPI_Finalize();
  return 0;
}

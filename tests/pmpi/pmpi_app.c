/*
 * Makes a known number of calls to the six functions tests/pmpi/counter.c
 * counts, between many other MPI calls (collectives, communicator
 * creation, Sendrecv, Ssend, Irecv/Waitall, Iprobe) whose implementation must
 * not reach the user-visible MPI_ names.  Prints what it called itself; the
 * test compares that with what the tool counted.  Needs 2 or more ranks.
 */
#include <mpi.h>
#include <stdio.h>

enum { AP_SEND, AP_RECV, AP_ISEND, AP_WAIT, AP_ALLREDUCE, AP_SPLIT, AP_N };

static const char *const ap_names[AP_N] = {"MPI_Send",      "MPI_Recv",
                                           "MPI_Isend",     "MPI_Wait",
                                           "MPI_Allreduce", "MPI_Comm_split"};
static long ap_calls[AP_N];

/* Two rounds around the ring: even ranks send first, odd ranks receive
 * first, so it works for any size >= 2. */
static void ap_ring(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int round = 0; round < 2; round++) {
    int out = rank * 100 + round, in = -1;
    if (rank % 2 == 0) {
      MPI_Send(&out, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
      ap_calls[AP_SEND]++;
      MPI_Recv(&in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ap_calls[AP_RECV]++;
    } else {
      MPI_Recv(&in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ap_calls[AP_RECV]++;
      MPI_Send(&out, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
      ap_calls[AP_SEND]++;
    }
    if (in != left * 100 + round)
      printf("rank %d: ring got %d\n", rank, in);
  }
}

/* Three Isends, each completed by MPI_Wait; their receives go through
 * Irecv and Waitall, which the tool does not count, plus one Irecv ended
 * by MPI_Wait. */
static void ap_nonblocking(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[3] = {rank, rank + 1, rank + 2}, in[3], extra = -1;
  MPI_Request rreq[3], sreq, xreq;
  MPI_Status rst[3];
  for (int i = 0; i < 3; i++)
    MPI_Irecv(&in[i], 1, MPI_INT, left, 10 + i, MPI_COMM_WORLD, &rreq[i]);
  for (int i = 0; i < 3; i++) {
    MPI_Isend(&out[i], 1, MPI_INT, right, 10 + i, MPI_COMM_WORLD, &sreq);
    ap_calls[AP_ISEND]++;
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    ap_calls[AP_WAIT]++;
  }
  MPI_Waitall(3, rreq, rst);
  MPI_Irecv(&extra, 1, MPI_INT, left, 20, MPI_COMM_WORLD, &xreq);
  MPI_Sendrecv(&rank, 1, MPI_INT, right, 21, &in[0], 1, MPI_INT, left, 21,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* The right neighbour posted its tag-20 receive before its Sendrecv. */
  MPI_Ssend(&rank, 1, MPI_INT, right, 20, MPI_COMM_WORLD);
  MPI_Wait(&xreq, MPI_STATUS_IGNORE);
  ap_calls[AP_WAIT]++;
}

/* Collectives and communicator management that hcmpi builds from
 * point-to-point messages and reductions internally. */
static void ap_collectives(int rank, int size) {
  MPI_Comm half, dup;
  int one = 1, sum = 0, all[64], root_val = rank == 0 ? 7 : 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(&root_val, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (size <= 64)
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(dup, rank % 2, rank, &half);
  ap_calls[AP_SPLIT]++;
  for (int i = 0; i < 3; i++) {
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ap_calls[AP_ALLREDUCE]++;
  }
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half);
  ap_calls[AP_ALLREDUCE]++;
  MPI_Barrier(half);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
}

int main(int argc, char **argv) {
  int rank, size, flag;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    printf("pmpi_app needs 2 or more ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  ap_ring(rank, size);
  ap_nonblocking(rank, size);
  ap_collectives(rank, size);
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
             MPI_STATUS_IGNORE);
  MPI_Pcontrol(2);
  printf("called rank %d:", rank);
  for (int i = 0; i < AP_N; i++)
    printf(" %s=%ld", ap_names[i], ap_calls[i]);
  printf("\n");
  fflush(stdout);
  MPI_Finalize();
  return 0;
}

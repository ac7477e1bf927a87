/* A fixed workload for counting instructions per call with callgrind
 * (not a timing benchmark: compare.py does not run it).  Two ranks, 8-byte
 * messages, N iterations (default 2000) of one pattern:
 *   m  ping-pong, each side receiving with MPI_Mprobe + MPI_Mrecv and
 *      sending with MPI_Send;
 *   i  the same receiving with an MPI_Improbe loop + MPI_Imrecv + MPI_Wait;
 *   s  an exchange, each side MPI_Isendrecv + MPI_Wait;
 *   b  an exchange, each side MPI_Sendrecv;
 *   p  ping-pong with MPI_Send and MPI_Recv (MPI_STATUS_IGNORE), as
 *      bench/latency.c;
 *   w  an exchange, each side MPI_Irecv + MPI_Send + MPI_Wait.
 * Usage: callcount MODE [N], e.g.
 *   HCMPI_SPIN=0 tools/hcmpirun -n 2 valgrind --tool=callgrind callcount m
 * then callgrind_annotate --inclusive=yes on each rank's file: PMPI_Mrecv
 * (etc.) divided by N is the cost per call.  Built also with hcmpicc -abi,
 * p and w give the standard-ABI layer's cost: the instructions of the
 * functions in src/abi/ divided by N. */
#include <mpi.h>
#include <stdlib.h>

static void cc_matched_recv(char mode, char *rb, int peer) {
  MPI_Message m;
  if (mode == 'm') {
    MPI_Status st;
    MPI_Mprobe(peer, 1, MPI_COMM_WORLD, &m, &st);
    MPI_Mrecv(rb, 8, MPI_BYTE, &m, &st);
    return;
  }
  MPI_Request r;
  int flag = 0;
  while (!flag)
    MPI_Improbe(peer, 1, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE);
  MPI_Imrecv(rb, 8, MPI_BYTE, &m, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n = argc > 2 ? atoi(argv[2]) : 2000;
  char mode = argc > 1 ? argv[1][0] : 'm';
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int peer = 1 - rank;
  char sb[8] = {0}, rb[8];
  for (int i = 0; i < n && rank < 2; i++) {
    if (mode == 'b') {
      MPI_Sendrecv(sb, 8, MPI_BYTE, peer, 1, rb, 8, MPI_BYTE, peer, 1,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      continue;
    }
    if (mode == 's') {
      MPI_Request r;
      MPI_Isendrecv(sb, 8, MPI_BYTE, peer, 1, rb, 8, MPI_BYTE, peer, 1,
                    MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      continue;
    }
    if (mode == 'w') {
      MPI_Request r;
      MPI_Irecv(rb, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r);
      MPI_Send(sb, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      continue;
    }
    for (int turn = 0; turn < 2; turn++) {
      if (turn == rank)
        MPI_Send(sb, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      else if (mode == 'p')
        MPI_Recv(rb, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else
        cc_matched_recv(mode, rb, peer);
    }
  }
  MPI_Finalize();
  return 0;
}

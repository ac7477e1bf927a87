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
 *   w  an exchange, each side MPI_Irecv + MPI_Send + MPI_Wait;
 * and collectives of 8 bytes on MPI_COMM_WORLD (the reductions: one double,
 * MPI_SUM; root 0), blocking or persistent (built once, then MPI_Start +
 * MPI_Wait per iteration):
 *   A / a  MPI_Allreduce / MPI_Allreduce_init;
 *   B / c  MPI_Bcast / MPI_Bcast_init;
 *   R / r  MPI_Reduce / MPI_Reduce_init;
 *   Y / y  MPI_Barrier / MPI_Barrier_init;
 *   G      MPI_Allgather, X  MPI_Alltoall (8 bytes per rank).
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

/* The persistent form of a collective mode, or MPI_REQUEST_NULL. */
static MPI_Request cc_coll_init(char mode, double *in, double *out) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (mode == 'a')
    MPI_Allreduce_init(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &r);
  else if (mode == 'c')
    MPI_Bcast_init(in, 8, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  else if (mode == 'r')
    MPI_Reduce_init(in, out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD,
                    MPI_INFO_NULL, &r);
  else if (mode == 'y')
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  return r;
}

/* Allgather's and Alltoall's blocks (two ranks of 8 bytes a side). */
static char cc_blocks[32];

/* One blocking collective of a collective mode; 0 for other modes. */
static int cc_coll(char mode, double *in, double *out) {
  if (mode == 'A')
    MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  else if (mode == 'B')
    MPI_Bcast(in, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
  else if (mode == 'R')
    MPI_Reduce(in, out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  else if (mode == 'Y')
    MPI_Barrier(MPI_COMM_WORLD);
  else if (mode == 'G')
    MPI_Allgather(in, 8, MPI_BYTE, cc_blocks, 8, MPI_BYTE, MPI_COMM_WORLD);
  else if (mode == 'X')
    MPI_Alltoall(cc_blocks, 8, MPI_BYTE, cc_blocks + 16, 8, MPI_BYTE,
                 MPI_COMM_WORLD);
  else
    return 0;
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n = argc > 2 ? atoi(argv[2]) : 2000;
  char mode = argc > 1 ? argv[1][0] : 'm';
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int peer = 1 - rank;
  char sb[8] = {0}, rb[8];
  double in = 1.0, out = 0.0;
  MPI_Request pr = cc_coll_init(mode, &in, &out);
  for (int i = 0; i < n && rank < 2; i++) {
    if (pr != MPI_REQUEST_NULL) {
      MPI_Start(&pr);
      MPI_Wait(&pr, MPI_STATUS_IGNORE);
      continue;
    }
    if (cc_coll(mode, &in, &out))
      continue;
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
  if (pr != MPI_REQUEST_NULL)
    MPI_Request_free(&pr);
  MPI_Finalize();
  return 0;
}

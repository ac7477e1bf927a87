/* An RDMA READ refused by the peer's HCA (the double corrupts every rkey,
 * or shifts every read past its region) fails the one request that needed
 * it, with an error class, on both sides of that pair, while traffic
 * between the others goes on.  3 ranks, MPI_ERRORS_RETURN:
 *   rank 1 sends 1 MiB to rank 0 (rendezvous: rank 0 reads), which must
 *   fail on rank 0 (Recv) and on rank 1 (Send); rank 2 exchanges eager
 *   messages (no read) with ranks 0 and 1 before and after, bytes checked.
 * Each rank prints "PASS rank R". */
#include "../mpi/mpitest.h"

#define BIG (1 << 20)

static int rank;

static void eager_pair(int peer, int tag) {
  int out[16], in[16];
  for (int i = 0; i < 16; i++)
    out[i] = rank * 1000 + tag * 16 + i;
  MPI_Status st;
  int rc = MPI_Sendrecv(out, 16, MPI_INT, peer, tag, in, 16, MPI_INT, peer, tag,
                        MPI_COMM_WORLD, &st);
  CHECK(rc == MPI_SUCCESS, "eager exchange with %d: %s", peer, mt_errstr(rc));
  for (int i = 0; i < 16; i++)
    CHECK(in[i] == peer * 1000 + tag * 16 + i, "word %d from %d", i, peer);
}

int main(int argc, char **argv) {
  static char big[BIG];
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 3, "needs 3 ranks, got %d", size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (rank == 2) {
    eager_pair(0, 1);
    eager_pair(1, 2);
  } else {
    eager_pair(2, rank + 1);
  }
  if (rank == 0) {
    int rc =
        MPI_Recv(big, BIG, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(rc != MPI_SUCCESS, "a refused RDMA READ delivered the message");
    printf("rank 0: Recv failed with class %d (%s)\n", mt_class(rc),
           mt_errstr(rc));
  } else if (rank == 1) {
    memset(big, 0x5a, sizeof big);
    int rc = MPI_Send(big, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS, "the send whose read was refused succeeded");
    printf("rank 1: Send failed with class %d (%s)\n", mt_class(rc),
           mt_errstr(rc));
  }
  /* The others still talk (rank 2 waits for both failures to happen). */
  if (rank == 2) {
    eager_pair(0, 3);
    eager_pair(1, 4);
  } else {
    eager_pair(2, rank + 3);
  }
  printf("PASS rank %d\n", rank);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}

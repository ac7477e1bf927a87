/* Ranks 0 and 1 each wait in MPI_Recv for the other: a deadlock that
 * HCMPI_HANG_TIMEOUT must report (the pending receive: peer, tag, size,
 * context) and end (hang_timeout.sh). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size, x[3] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    MPI_Recv(x, 3, MPI_INT, 1 - rank, 40 + rank, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "FAIL rank %d: the deadlocked Recv returned\n", rank);
    MPI_Finalize();
    return 1;
}

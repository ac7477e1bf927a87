/* Rank 1 kills itself with SIGKILL while rank 0 waits in MPI_Recv from it.
 * The driver (killed_rank.sh) expects the launcher to end the job with a
 * non-zero exit and report "rank 1 (pid N) killed by signal 9"; rank 0
 * returning from the Recv is the failure. */
#include "mpitest.h"
#include <signal.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        fflush(stdout);
        raise(SIGKILL);
    }
    if (rank == 0) {
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fprintf(stderr, "FAIL rank 0: Recv from the killed rank 1 returned\n");
        return 1;
    }
    /* Other ranks wait for their own end: the launcher must end them too. */
    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}

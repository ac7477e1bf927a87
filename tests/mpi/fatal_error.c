/* Under the default MPI_ERRORS_ARE_FATAL, MPI_Send to rank == size must
 * abort the job with a message naming MPI_Send and the rank.  The driver
 * (fatal_error.sh) checks the non-zero exit and the stderr line; reaching
 * the end of main is the failure. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "FAIL rank %d: MPI_Send to rank %d returned instead of aborting\n", rank, size);
    MPI_Finalize();
    return 0;
}

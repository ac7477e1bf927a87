/* Under the default MPI_ERRORS_ARE_FATAL, a bad argument to an MPI call on
 * rank 0 must abort the whole job with one message that names the call, the
 * argument and its value.  argv[1] picks the mistake:
 *   rank   MPI_Send to rank == size (MPI_ERR_RANK)
 *   count  MPI_Isend of count -3 (MPI_ERR_COUNT)
 *   type   MPI_Recv of MPI_DATATYPE_NULL (MPI_ERR_TYPE)
 *   uncommitted  MPI_Send of a datatype never committed (MPI_ERR_TYPE)
 *   op     MPI_Reduce_local with MPI_OP_NULL (MPI_ERR_OP)
 *   group  MPI_Group_size of MPI_GROUP_NULL (MPI_ERR_GROUP)
 *   too_large  MPI_Type_vector whose extent overflows MPI_Aint (MPI_ERR_ARG)
 * The driver (fatal_error.sh) checks the exit status and the message;
 * reaching the end of main is the failure. */
#include <limits.h>

#include "mpitest.h"

static void fatal_uncommitted_send(int *x, int dest)
{
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Send(x, 0, pair, dest, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    const char *what = argc > 1 ? argv[1] : "rank";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request req;
        if (strcmp(what, "count") == 0)
            MPI_Isend(&x, -3, MPI_INT, 1 % size, 0, MPI_COMM_WORLD, &req);
        else if (strcmp(what, "type") == 0)
            MPI_Recv(&x, 1, MPI_DATATYPE_NULL, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        else if (strcmp(what, "uncommitted") == 0)
            fatal_uncommitted_send(&x, 1 % size);
        else if (strcmp(what, "op") == 0)
            MPI_Reduce_local(&x, &size, 1, MPI_INT, MPI_OP_NULL);
        else if (strcmp(what, "group") == 0)
            MPI_Group_size(MPI_GROUP_NULL, &size);
        else if (strcmp(what, "too_large") == 0)
            MPI_Type_vector(INT_MAX, INT_MAX, INT_MAX, MPI_DOUBLE, &(MPI_Datatype){0});
        else
            MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    fprintf(stderr, "FAIL rank %d: the bad %s argument returned instead of aborting\n", rank,
            what);
    MPI_Finalize();
    return 0;
}

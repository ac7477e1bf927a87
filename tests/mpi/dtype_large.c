/* A large (> 4 MiB of data) non-contiguous message: every other double of
 * a 2N-double buffer, N = 600000 (4.8 MB of data), around a ring.  Checks a
 * typed send received as contiguous doubles, contiguous doubles received
 * through the type (the gaps untouched), and typed to typed with
 * non-blocking calls, where the type is freed before completion. */
#include "mpitest.h"

#define DG_N 600000

static double dg_value(int rank, long i) { return rank * 1e7 + (double)i; }

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double *sparse = malloc(2 * DG_N * sizeof(double));
    double *dense = malloc(DG_N * sizeof(double));
    CHECK(sparse && dense, "out of memory");
    MPI_Datatype t;
    MPI_Type_vector(DG_N, 1, 2, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    for (long i = 0; i < 2 * DG_N; i++)
        sparse[i] = i % 2 ? -1.0 : dg_value(rank, i / 2);
    MPI_Status st;
    MPI_Sendrecv(sparse, 1, t, next, 1, dense, DG_N, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &st);
    CHECK(mt_status_count(&st, MPI_DOUBLE) == DG_N, "got %d doubles",
          mt_status_count(&st, MPI_DOUBLE));
    for (long i = 0; i < DG_N; i++)
        CHECK(dense[i] == dg_value(prev, i), "dense[%ld] = %g", i, dense[i]);
    for (long i = 0; i < DG_N; i++)
        dense[i] = dg_value(rank, i) + 0.5;
    for (long i = 0; i < 2 * DG_N; i++)
        sparse[i] = -2.0;
    MPI_Sendrecv(dense, DG_N, MPI_DOUBLE, next, 2, sparse, 1, t, prev, 2, MPI_COMM_WORLD, &st);
    for (long i = 0; i < 2 * DG_N; i++)
        CHECK(sparse[i] == (i % 2 ? -2.0 : dg_value(prev, i / 2) + 0.5), "sparse[%ld] = %g", i,
              sparse[i]);
    double *rsparse = malloc(2 * DG_N * sizeof(double));
    CHECK(rsparse != NULL, "out of memory");
    for (long i = 0; i < 2 * DG_N; i++) {
        sparse[i] = i % 2 ? -3.0 : dg_value(rank, i / 2) + 0.25;
        rsparse[i] = -4.0;
    }
    MPI_Request r[2];
    MPI_Irecv(rsparse, 1, t, prev, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(sparse, 1, t, next, 3, MPI_COMM_WORLD, &r[1]);
    MPI_Type_free(&t);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    for (long i = 0; i < 2 * DG_N; i++)
        CHECK(rsparse[i] == (i % 2 ? -4.0 : dg_value(prev, i / 2) + 0.25), "rsparse[%ld] = %g", i,
              rsparse[i]);
    free(rsparse);
    free(sparse);
    free(dense);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dtype_large: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}

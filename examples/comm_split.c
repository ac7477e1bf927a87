/* A 2-D process grid split into row and column communicators: each rank
 * holds value = rank; a row-sum over the row communicator and a column-sum
 * over the column communicator are checked against the formula.
 *   comm_split [columns]    default: the largest divisor of size <= sqrt */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cs_default_cols(int size)
{
    int c = 1;
    for (int d = 1; d * d <= size; d++)
        if (size % d == 0)
            c = d;
    return c;
}

int main(int argc, char **argv)
{
    int rank, size, ok = 1, all_ok = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int cols = argc > 1 ? atoi(argv[1]) : cs_default_cols(size);
    if (cols < 1 || size % cols) {
        if (rank == 0)
            fprintf(stderr, "comm_split: %d ranks do not fill rows of %d\n", size, cols);
        MPI_Finalize();
        return 1;
    }
    int rows = size / cols, row = rank / cols, col = rank % cols;
    MPI_Comm row_comm, col_comm;
    MPI_Comm_split(MPI_COMM_WORLD, row, col, &row_comm);
    MPI_Comm_split(MPI_COMM_WORLD, col, row, &col_comm);
    int rrank, crank, rsize, csize, rsum = 0, csum = 0;
    MPI_Comm_rank(row_comm, &rrank);
    MPI_Comm_rank(col_comm, &crank);
    MPI_Comm_size(row_comm, &rsize);
    MPI_Comm_size(col_comm, &csize);
    ok &= rrank == col && crank == row && rsize == cols && csize == rows;
    MPI_Allreduce(&rank, &rsum, 1, MPI_INT, MPI_SUM, row_comm);
    MPI_Allreduce(&rank, &csum, 1, MPI_INT, MPI_SUM, col_comm);
    /* Row r holds r*cols .. r*cols+cols-1; column c holds c, c+cols, ... */
    int want_row = row * cols * cols + cols * (cols - 1) / 2;
    int want_col = col * rows + cols * rows * (rows - 1) / 2;
    ok &= rsum == want_row && csum == want_col;
    if (!ok)
        fprintf(stderr, "comm_split: rank %d (row %d col %d): row sum %d want %d, col sum %d want %d\n",
                rank, row, col, rsum, want_row, csum, want_col);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_split: %d x %d grid, row and column sums: %s\n", rows, cols,
               all_ok ? "OK" : "WRONG");
    MPI_Comm_free(&row_comm);
    MPI_Comm_free(&col_comm);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}

/* Ring all-gather with plain Send/Recv: each rank contributes a block of
 * BLOCK doubles; in size-1 steps every rank passes the block it received
 * last to its right neighbour.  Even ranks send first and odd ranks receive
 * first, so blocking calls cannot deadlock at any size.  The gathered array
 * is checked against what every rank contributed.
 *   ring_allgather [block_doubles]   default 100000 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double ra_value(int owner, int i) { return owner * 1e6 + i * 0.25; }

static void ra_step(double *out, double *in, int n, int right, int left, int rank)
{
    if (rank % 2 == 0) {
        MPI_Send(out, n, MPI_DOUBLE, right, 0, MPI_COMM_WORLD);
        MPI_Recv(in, n, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, n, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, n, MPI_DOUBLE, right, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0, total_bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    double *all = malloc(sizeof(double) * (size_t)n * (size_t)size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < n; i++)
        all[(size_t)rank * n + i] = ra_value(rank, i);
    double t0 = MPI_Wtime();
    /* Odd-sized rings: the last rank and rank 0 are both even; rank 0 then
     * receives first so the pair cannot both block in Send. */
    int order_rank = (size % 2 == 1 && rank == 0) ? 1 : rank;
    for (int step = 0; step < size - 1; step++) {
        int send_block = (rank - step + size) % size;
        int recv_block = (rank - step - 1 + size) % size;
        ra_step(&all[(size_t)send_block * n], &all[(size_t)recv_block * n], n, right, left,
                order_rank);
    }
    double t = MPI_Wtime() - t0;
    for (int b = 0; b < size; b++)
        for (int i = 0; i < n; i++)
            if (all[(size_t)b * n + i] != ra_value(b, i))
                bad++;
    MPI_Reduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring_allgather: %d ranks x %d doubles in %.3f ms: %s\n", size, n, t * 1e3,
               total_bad ? "WRONG" : "OK");
    free(all);
    MPI_Finalize();
    return total_bad ? 1 : 0;
}

/* More ranks than cores (the driver runs 8 ranks on 2 cores): rounds of an
 * all-to-all exchange with Isend/Irecv/Waitall, small and 64 KiB messages,
 * separated by Barriers.  It must finish (no livelock when ranks spin on
 * shared cores) and every block must carry its sender, round and position. */
#include "mpitest.h"

#define OS_ROUNDS 30

static void os_round(int rank, int size, int round, int n)
{
    int *sbuf = mt_malloc(sizeof(int) * (size_t)(n * size));
    int *rbuf = mt_malloc(sizeof(int) * (size_t)(n * size));
    MPI_Request *req = mt_malloc(sizeof(MPI_Request) * (size_t)(2 * size));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < n; i++) {
            sbuf[p * n + i] = ((rank * 64 + p) * 1000 + round) * 7 + i;
            rbuf[p * n + i] = -1;
        }
    for (int p = 0; p < size; p++)
        MPI_Irecv(&rbuf[p * n], n, MPI_INT, p, round, MPI_COMM_WORLD, &req[p]);
    for (int k = 0; k < size; k++) {
        int p = (rank + k) % size;
        MPI_Isend(&sbuf[p * n], n, MPI_INT, p, round, MPI_COMM_WORLD, &req[size + p]);
    }
    MPI_Waitall(2 * size, req, MPI_STATUSES_IGNORE);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < n; i++)
            CHECK(rbuf[p * n + i] == ((p * 64 + rank) * 1000 + round) * 7 + i,
                  "round %d: block from %d element %d is %d", round, p, i, rbuf[p * n + i]);
    free(sbuf);
    free(rbuf);
    free(req);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    for (int round = 0; round < OS_ROUNDS; round++) {
        os_round(rank, size, round, round % 3 == 2 ? 16384 : 4);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("oversubscribed: %d ranks, %d all-to-all rounds: OK\n", size, OS_ROUNDS);
    MPI_Finalize();
    return 0;
}

/* More ranks than cores (the driver runs 8 ranks on 2 cores): rounds of an
 * all-to-all exchange with Isend/Irecv/Waitall, small and 64 KiB messages,
 * separated by Barriers, then every pair (i, i + size/2) ping-pongs many
 * 8-byte messages at once, as bench/latency does, which has each rank wait
 * for messages thousands of times (yielding, then sleeping on the
 * doorbell).  It must finish (no livelock when ranks spin on shared
 * cores, no lost wake-up) and every block and message must carry its
 * sender, round and position. */
#include "mpitest.h"

#define OS_ROUNDS 30
#define OS_PINGPONGS 3000

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

/* Round trips of two longs (sender, sequence number) with the pair's
 * other rank; the upper half of the ranks answers. */
static void os_pingpong(int rank, int size)
{
    int half = size / 2;
    if (rank >= 2 * half)
        return; /* an odd rank out has no partner */
    int initiator = rank < half;
    int peer = initiator ? rank + half : rank - half;
    for (long i = 0; i < OS_PINGPONGS; i++) {
        long out[2] = {rank, i}, in[2] = {-1, -1};
        if (initiator)
            MPI_Send(out, 2, MPI_LONG, peer, 7, MPI_COMM_WORLD);
        MPI_Recv(in, 2, MPI_LONG, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(in[0] == peer && in[1] == i,
              "ping-pong %ld: got (%ld, %ld) from %d", i, in[0], in[1], peer);
        if (!initiator)
            MPI_Send(out, 2, MPI_LONG, peer, 7, MPI_COMM_WORLD);
    }
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
    os_pingpong(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("oversubscribed: %d ranks, %d all-to-all rounds, %d 8-byte round trips per pair: OK\n",
               size, OS_ROUNDS, OS_PINGPONGS);
    MPI_Finalize();
    return 0;
}

/* More ranks than cores (the driver runs 8 ranks on 2 cores): rounds of an
 * all-to-all exchange with Isend/Irecv/Waitall, small and 64 KiB messages,
 * separated by Barriers, then every pair (i, i + size/2) ping-pongs many
 * 8-byte messages at once, as bench/latency does, which has each rank wait
 * for messages thousands of times (yielding, then sleeping on the
 * doorbell), and every rank streams small messages to rank 0, more from
 * each than one poll takes from a peer (on a crowded node a receiver reads
 * only the peers that marked it, and marks again those it left packets
 * of).  It must finish (no livelock when ranks spin on shared
 * cores, no lost wake-up) and every block and message must carry its
 * sender, round and position. */
#include "mpitest.h"

#define OS_ROUNDS 30
#define OS_PINGPONGS 3000
#define OS_FANIN 200

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

/* Every rank but 0 sends OS_FANIN numbered longs to rank 0 at once; rank
 * 0 takes them from any source and checks each sender's order. */
static void os_fanin(int rank, int size)
{
    if (rank != 0) {
        long *out = mt_malloc(sizeof(long) * OS_FANIN);
        MPI_Request *req = mt_malloc(sizeof(MPI_Request) * OS_FANIN);
        for (int i = 0; i < OS_FANIN; i++) {
            out[i] = (long)rank * 100000 + i;
            MPI_Isend(&out[i], 1, MPI_LONG, 0, 9, MPI_COMM_WORLD, &req[i]);
        }
        MPI_Waitall(OS_FANIN, req, MPI_STATUSES_IGNORE);
        free(out);
        free(req);
        return;
    }
    int *next = mt_malloc(sizeof(int) * (size_t)size);
    for (int p = 0; p < size; p++)
        next[p] = 0;
    for (long k = 0; k < (long)(size - 1) * OS_FANIN; k++) {
        long in = -1;
        MPI_Status st;
        MPI_Recv(&in, 1, MPI_LONG, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
        int p = st.MPI_SOURCE;
        CHECK(p > 0 && p < size && in == (long)p * 100000 + next[p],
              "fan-in: got %ld from %d, expected its number %d", in, p, p > 0 && p < size ? next[p] : -1);
        next[p]++;
    }
    for (int p = 1; p < size; p++)
        CHECK(next[p] == OS_FANIN, "fan-in: %d of %d from %d", next[p], OS_FANIN, p);
    free(next);
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
    os_fanin(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("oversubscribed: %d ranks, %d all-to-all rounds, %d 8-byte round trips per pair, %d messages from each to rank 0: OK\n",
               size, OS_ROUNDS, OS_PINGPONGS, OS_FANIN);
    MPI_Finalize();
    return 0;
}

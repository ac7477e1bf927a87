/* Ping-pong between ranks 0 and 1: prints one-way latency (small messages)
 * and bandwidth (large ones), and checks every reply.
 *   pingpong [iterations] [max_bytes]      defaults: 1000, 4 MiB
 * Other ranks, if any, wait at the final barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pp_check(const unsigned char *buf, int n, int iter)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != (unsigned char)(i + iter))
            return 0;
    return 1;
}

/* Rank 0's time: only its send and receive are timed, so the figures are
 * the library's and not those of the fill and check loops between them. */
static double pp_run(int rank, unsigned char *buf, int n, int iters)
{
    int peer = 1 - rank;
    double busy = 0;
    for (int it = -2; it < iters; it++) {
        if (rank == 0) {
            for (int i = 0; i < n; i++)
                buf[i] = (unsigned char)(i + it);
            double t0 = MPI_Wtime();
            MPI_Send(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (it >= 0)
                busy += MPI_Wtime() - t0;
            if (!pp_check(buf, n, it)) {
                fprintf(stderr, "pingpong: wrong data at %d bytes\n", n);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else {
            MPI_Recv(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        }
    }
    return busy / (2.0 * iters);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    int maxn = argc > 2 ? atoi(argv[2]) : 4 << 20;
    if (size < 2 || iters < 1 || maxn < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: pingpong [iterations] [max_bytes], on 2 or more ranks\n");
        MPI_Finalize();
        return 1;
    }
    unsigned char *buf = malloc((size_t)maxn + 1);
    if (rank == 0)
        printf("%10s %14s %12s\n", "bytes", "latency(us)", "MB/s");
    for (int n = 0; n <= maxn; n = n ? n * 4 : 1) {
        if (rank < 2) {
            int it = n >= (1 << 20) ? (iters + 9) / 10 : iters;
            double t = pp_run(rank, buf, n, it);
            if (rank == 0)
                printf("%10d %14.2f %12.1f\n", n, t * 1e6, t > 0 ? n / t / 1e6 : 0.0);
        }
        if (n > maxn / 4)
            break;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return 0;
}

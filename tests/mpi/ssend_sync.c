/* Synchronous sends complete only after the matching receive has started.
 * The receiver proves it has not posted yet by protocol, not by timing:
 *  - Issend: rank 0 Issends (tag 1), checks with MPI_Test that it is not
 *    complete, and only then sends "go" (tag 2).  Rank 1 posts its tag-1
 *    receive only after it has received "go" (and after sleeping 200 ms), so
 *    an Issend reported complete before "go" is a protocol violation.
 *  - Ssend: rank 0 Ssends (tag 3), then sends "after" (tag 4).  Rank 1 polls
 *    Iprobe for "after" for 200 ms before posting the tag-3 receive; seeing
 *    it means Ssend returned before its match.
 *  - Issend to self: not complete until the receive is posted.
 * Each runs for an eager and a rendezvous size. */
#include "mpitest.h"
#include <time.h>

static void ss_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void ss_issend(int rank, size_t n)
{
    unsigned char *buf = mt_malloc(n);
    int go = 1, flag = 0;
    if (rank == 0) {
        MPI_Request req;
        mt_fill(buf, n, 11);
        MPI_Issend(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 20; i++) {
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag, "Issend of %zu bytes complete before the receive was posted", n);
            ss_sleep_ms(1);
        }
        MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Status st;
        MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ss_sleep_ms(200);
        MPI_Recv(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
        CHECK(mt_verify(buf, n, 11) == MT_OK, "Issend data of %zu bytes wrong", n);
        CHECK(mt_status_count(&st, MPI_BYTE) == (int)n, "count %d", mt_status_count(&st, MPI_BYTE));
    }
    free(buf);
}

static void ss_ssend(int rank, size_t n)
{
    unsigned char *buf = mt_malloc(n);
    int after = 7, flag = 0;
    if (rank == 0) {
        mt_fill(buf, n, 12);
        MPI_Ssend(buf, (int)n, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
        MPI_Send(&after, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    } else {
        for (int i = 0; i < 200; i++) {
            MPI_Iprobe(0, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag, "Ssend of %zu bytes returned before its receive was posted", n);
            ss_sleep_ms(1);
        }
        MPI_Recv(buf, (int)n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(mt_verify(buf, n, 12) == MT_OK, "Ssend data of %zu bytes wrong", n);
        MPI_Recv(&after, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(after == 7, "after message %d", after);
    }
    free(buf);
}

static void ss_self(size_t n)
{
    unsigned char *sbuf = mt_malloc(n), *rbuf = mt_malloc(n);
    MPI_Request req;
    int flag = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mt_fill(sbuf, n, 13);
    MPI_Issend(sbuf, (int)n, MPI_BYTE, rank, 5, MPI_COMM_WORLD, &req);
    for (int i = 0; i < 10; i++) {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "Issend to self of %zu bytes complete with no receive posted", n);
    }
    MPI_Recv(rbuf, (int)n, MPI_BYTE, rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(mt_verify(rbuf, n, 13) == MT_OK, "self Issend data of %zu bytes wrong", n);
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {0, 8, 1000, 1 << 20};
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    for (int i = 0; i < 4; i++) {
        ss_self(sizes[i]);
        if (rank < 2) {
            ss_issend(rank, sizes[i]);
            ss_ssend(rank, sizes[i]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ssend_sync: Issend/Ssend/self at 0..1 MiB: OK\n");
    MPI_Finalize();
    return 0;
}

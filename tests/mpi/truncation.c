/* A message longer than the receive buffer: the receive returns class
 * MPI_ERR_TRUNCATE (under MPI_ERRORS_RETURN), the bytes that fitted are the
 * first bytes of the message, nothing past the buffer is written, and the
 * pair keeps working afterwards.  Eager and rendezvous sizes, through Recv,
 * Irecv+Wait (status.MPI_ERROR) and Waitall (MPI_ERR_IN_STATUS). */
#include "mpitest.h"

#define TR_GUARD 32

static void tr_check_data(const unsigned char *buf, size_t fit, unsigned seed, const char *how)
{
    /* MPI leaves the fitted bytes unspecified and MPICH 4.0.2 (ch4:ucx)
     * delivers none; hcmpi promises them. */
    size_t bad = mt_mpich_quirks() ? MT_OK : mt_verify(buf, fit, seed);
    CHECK(bad == MT_OK, "%s: byte %zu of the fitted %zu is wrong", how, bad, fit);
    for (size_t i = fit; i < fit + TR_GUARD; i++)
        CHECK(buf[i] == 0x5A, "%s: wrote past the buffer (offset %zu)", how, i);
}

static void tr_one(int rank, size_t n, int how)
{
    static const char *names[] = {"Recv", "Irecv+Wait", "Waitall"};
    size_t fit = n / 2;
    unsigned seed = (unsigned)(n + (size_t)how);
    unsigned char *buf = mt_malloc(n + TR_GUARD);
    int tag = 40 + how;
    if (rank == 0) {
        mt_fill(buf, n, seed);
        MPI_Send(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
        /* A follow-up message proves the pair still works. */
        MPI_Send(&seed, 1, MPI_UNSIGNED, 1, tag + 10, MPI_COMM_WORLD);
        free(buf);
        return;
    }
    MPI_Status st;
    MPI_Request req;
    memset(buf, 0x5A, n + TR_GUARD);
    int rc;
    if (how == 0) {
        rc = MPI_Recv(buf, (int)fit, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st);
    } else {
        MPI_Irecv(buf, (int)fit, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &req);
        rc = how == 1 ? MPI_Wait(&req, &st) : MPI_Waitall(1, &req, &st);
    }
    if (how == 2) {
        CHECK(mt_class(rc) == MPI_ERR_IN_STATUS, "%s %zu: class %d (%s)", names[how], n,
              mt_class(rc), mt_errstr(rc));
        CHECK(mt_class(st.MPI_ERROR) == MPI_ERR_TRUNCATE, "%s %zu: status error class %d", names[how],
              n, mt_class(st.MPI_ERROR));
    } else {
        CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "%s %zu: class %d (%s)", names[how], n, mt_class(rc),
              mt_errstr(rc));
    }
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == tag, "%s %zu: status %d/%d", names[how], n,
          st.MPI_SOURCE, st.MPI_TAG);
    tr_check_data(buf, fit, seed, names[how]);
    unsigned got = 0;
    rc = MPI_Recv(&got, 1, MPI_UNSIGNED, 0, tag + 10, MPI_COMM_WORLD, &st);
    CHECK(rc == MPI_SUCCESS && got == seed, "follow-up after truncation: rc %d value %u", rc, got);
    free(buf);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {2, 64, 1000, 70000, 1 << 20, 5 << 20};
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank < 2)
        for (int i = 0; i < 6; i++)
            for (int how = 0; how < 3; how++)
                tr_one(rank, sizes[i], how);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("truncation: MPI_ERR_TRUNCATE with fitted data, 2 B..5 MiB: OK\n");
    MPI_Finalize();
    return 0;
}

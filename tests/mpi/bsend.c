/* Buffered sends: Buffer_attach with room for a few messages, Bsend and
 * Ibsend complete locally even though the receiver has not posted yet (it
 * waits on a barrier first), data arrives intact, Buffer_detach returns the
 * attached address and size after the messages left.  Under
 * MPI_ERRORS_RETURN, a Bsend larger than the buffer, and one with no buffer
 * attached, return class MPI_ERR_BUFFER. */
#include "mpitest.h"

#define BS_MSGS 4
#define BS_N 10000 /* bytes per message */

static void bs_exchange(int rank)
{
    int psize;
    MPI_Pack_size(BS_N, MPI_BYTE, MPI_COMM_WORLD, &psize);
    int bsize = BS_MSGS * (psize + MPI_BSEND_OVERHEAD);
    char *bbuf = mt_malloc((size_t)bsize);
    unsigned char *msg = mt_malloc(BS_N);
    CHECK(MPI_Buffer_attach(bbuf, bsize) == MPI_SUCCESS, "Buffer_attach");
    if (rank == 0) {
        MPI_Request req[BS_MSGS];
        for (int i = 0; i < BS_MSGS; i++) {
            /* The message is copied out: reusing msg at once must be safe. */
            mt_fill(msg, BS_N, (unsigned)(500 + i));
            if (i % 2)
                MPI_Bsend(msg, BS_N, MPI_BYTE, 1, 20 + i, MPI_COMM_WORLD);
            else
                MPI_Ibsend(msg, BS_N, MPI_BYTE, 1, 20 + i, MPI_COMM_WORLD, &req[i]);
            if (i % 2 == 0)
                MPI_Wait(&req[i], MPI_STATUS_IGNORE);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        for (int i = BS_MSGS - 1; i >= 0; i--) {
            MPI_Status st;
            MPI_Recv(msg, BS_N, MPI_BYTE, 0, 20 + i, MPI_COMM_WORLD, &st);
            CHECK(mt_verify(msg, BS_N, (unsigned)(500 + i)) == MT_OK, "Bsend message %d wrong", i);
            CHECK(mt_status_count(&st, MPI_BYTE) == BS_N, "count %d", mt_status_count(&st, MPI_BYTE));
        }
    }
    void *det = NULL;
    int dsize = 0;
    MPI_Buffer_detach(&det, &dsize);
    CHECK(det == bbuf && dsize == bsize, "detach gave %p/%d, attached %p/%d", det, dsize,
          (void *)bbuf, bsize);
    free(bbuf);
    free(msg);
}

static void bs_errors(int rank)
{
    static char small[200 + MPI_BSEND_OVERHEAD];
    unsigned char *big = mt_malloc(100000);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    memset(big, 1, 100000);
    int rc = MPI_Bsend(big, 100000, MPI_BYTE, 1 - rank, 30, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_BUFFER, "Bsend with no buffer: class %d (%s)", mt_class(rc),
          mt_errstr(rc));
    MPI_Buffer_attach(small, (int)sizeof small);
    rc = MPI_Bsend(big, 100000, MPI_BYTE, 1 - rank, 31, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_BUFFER, "Bsend larger than buffer: class %d (%s)", mt_class(rc),
          mt_errstr(rc));
    void *det;
    int dsize;
    MPI_Buffer_detach(&det, &dsize);
    CHECK(det == (void *)small, "detach returned another buffer");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(big);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    if (rank < 2)
        bs_errors(rank);
    for (int round = 0; round < 3; round++)
        bs_exchange(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("bsend: attach/Bsend/Ibsend/detach, MPI_ERR_BUFFER: OK\n");
    MPI_Finalize();
    return 0;
}

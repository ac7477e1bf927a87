/* Cancelling receives: MPI_Cancel on a posted receive that nothing matches,
 * then Wait gives a status with MPI_Test_cancelled true; a cancelled receive
 * does not steal a later message (rank 1 then sends on that tag and a new
 * receive gets it); a receive that already completed is not cancelled. */
#include "mpitest.h"

static void ca_cancel_posted(int src, int tag, int use_test)
{
    int buf = -1, flag = 0;
    MPI_Request req;
    MPI_Status st;
    MPI_Irecv(&buf, 1, MPI_INT, src, tag, MPI_COMM_WORLD, &req);
    int rc = MPI_Cancel(&req);
    CHECK(rc == MPI_SUCCESS, "Cancel: %s", mt_errstr(rc));
    CHECK(req != MPI_REQUEST_NULL, "Cancel freed the request");
    if (use_test) {
        while (!flag)
            MPI_Test(&req, &flag, &st);
    } else {
        MPI_Wait(&req, &st);
    }
    CHECK(req == MPI_REQUEST_NULL, "request not freed after completion");
    flag = 0;
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "Test_cancelled false for a cancelled receive (src %d tag %d)", src, tag);
    CHECK(buf == -1, "cancelled receive wrote the buffer");
}

/* The receive is matched before the cancel: an Issend to self completes
 * only once its receive has matched it, so after its Wait the posted
 * receive is matched and MPI_Cancel must not cancel it. */
static void ca_completed_not_cancelled(int rank)
{
    int x = 100 + rank, y = -1, flag = 1;
    MPI_Request req, sreq;
    MPI_Status st;
    MPI_Irecv(&y, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &req);
    MPI_Issend(&x, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &sreq);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag, "a matched receive reports cancelled");
    CHECK(y == x, "matched receive got %d, want %d", y, x);
    CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 9, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    ca_completed_not_cancelled(rank);
    if (rank == 0) {
        ca_cancel_posted(1, 77, 0);
        ca_cancel_posted(MPI_ANY_SOURCE, 77, 1);
        ca_cancel_posted(MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
        ca_cancel_posted(1, MPI_ANY_TAG, 1);
    }
    /* Only now rank 1 sends on tag 77: the cancelled receives must not take it. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        int v = 4242;
        MPI_Send(&v, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int v = 0, flag = 1;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &st);
        CHECK(v == 4242, "message after cancel: got %d", v);
        MPI_Test_cancelled(&st, &flag);
        CHECK(!flag, "normal receive reports cancelled");
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 77, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("cancel: receive cancel, Test_cancelled, later message delivered: OK\n");
    MPI_Finalize();
    return 0;
}

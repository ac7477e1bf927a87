/* A target killed during a lock epoch fails the origin instead of hanging:
 * rank 0 locks rank 1's window, puts and flushes (fine), then tells rank 1
 * to die (SIGKILL) and, once the death is known, gets from it and unlocks:
 * the unlock returns MPIX_ERR_PROC_FAILED under MPI_ERRORS_RETURN.  A new
 * lock on the dead rank fails the same way.  Run under hcmpirun
 * --no-kill-on-failure (rma_killed.sh). */
#include "mpitest.h"
#include <signal.h>

int main(int argc, char **argv)
{
    int rank, size, buf[4] = {0}, v = 7, got = -1, go = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 1) {
        MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fflush(stdout);
        raise(SIGKILL);
    }
    if (rank == 0) {
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win) == MPI_SUCCESS, "lock");
        CHECK(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win) == MPI_SUCCESS, "put");
        CHECK(MPI_Win_flush(1, win) == MPI_SUCCESS, "flush while alive");
        MPI_Send(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        /* Wait until the death is known: a receive from rank 1 fails. */
        int x, rc = MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED, "recv from the dead rank: class %d",
              mt_class(rc));
        MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        rc = MPI_Win_unlock(1, win);
        CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED, "unlock of the dead target: class %d",
              mt_class(rc));
        rc = MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED, "lock of the dead target: class %d",
              mt_class(rc));
        printf("rma_killed: the dead target failed unlock and lock\n");
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}

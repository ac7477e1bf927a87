/* A rank killed between two post/start/complete/wait epochs fails its
 * survivors' waits for it instead of hanging: in the first epoch rank 1
 * accesses rank 0's window and exposes its own to rank 2 (all fine), then
 * kills itself (SIGKILL).  In the second, rank 0 posts to rank 1 and its
 * MPI_Win_wait returns MPIX_ERR_PROC_FAILED (the completion never comes;
 * or the post itself does, where its message finds rank 1 known dead),
 * and rank 2's MPI_Win_start towards rank 1 does too (the post never
 * comes), under MPI_ERRORS_RETURN.  Run under hcmpirun
 * --no-kill-on-failure (rma_pscw_killed.sh).
 *
 * argv[1]: "allocate" (MPI_Win_allocate: on one node post and complete
 * are counters in the shared mapping) or "create" (MPI_Win_create). */
#include "mpitest.h"
#include <signal.h>

static MPI_Group group_of(MPI_Group world, int rank)
{
    MPI_Group g;
    MPI_Group_incl(world, 1, &rank, &g);
    return g;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 3, "needs 3 ranks");
    CHECK(argc == 2, "usage: rma_pscw_killed allocate|create");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *mem = NULL;
    MPI_Win win;
    if (strcmp(argv[1], "allocate") == 0) {
        MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    } else {
        CHECK(strcmp(argv[1], "create") == 0, "unknown window kind %s", argv[1]);
        MPI_Alloc_mem(4 * sizeof(int), MPI_INFO_NULL, &mem);
        MPI_Win_create(mem, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Group world, g0, g1, g2;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    g0 = group_of(world, 0);
    g1 = group_of(world, 1);
    g2 = group_of(world, 2);
    int v = 40 + rank;
    /* The first epoch, everyone alive. */
    if (rank == 0) {
        CHECK(MPI_Win_post(g1, 0, win) == MPI_SUCCESS, "post to rank 1");
        CHECK(MPI_Win_wait(win) == MPI_SUCCESS, "wait for rank 1");
        CHECK(mem[1] == 41, "rank 1's put: %d", mem[1]);
    } else if (rank == 1) {
        CHECK(MPI_Win_post(g2, 0, win) == MPI_SUCCESS, "post to rank 2");
        CHECK(MPI_Win_start(g0, 0, win) == MPI_SUCCESS, "start towards rank 0");
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        CHECK(MPI_Win_complete(win) == MPI_SUCCESS, "complete towards rank 0");
        CHECK(MPI_Win_wait(win) == MPI_SUCCESS, "wait for rank 2");
        CHECK(mem[2] == 42, "rank 2's put: %d", mem[2]);
        fflush(stdout);
        raise(SIGKILL);
    } else {
        CHECK(MPI_Win_start(g1, 0, win) == MPI_SUCCESS, "start towards rank 1");
        MPI_Put(&v, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
        CHECK(MPI_Win_complete(win) == MPI_SUCCESS, "complete towards rank 1");
    }
    /* The second: rank 1 is dead or dying. */
    if (rank == 0) {
        /* A post whose message goes to a rank already known dead (tcp
         * sees the socket close) fails there; else the wait does. */
        int rc = MPI_Win_post(g1, 0, win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_wait(win);
        CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED, "post or wait for the dead origin: class %d",
              mt_class(rc));
        printf("rma_pscw_killed: rank 0's wait for the dead origin failed\n");
    } else {
        int rc = MPI_Win_start(g1, 0, win);
        CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED, "start towards the dead target: class %d",
              mt_class(rc));
        printf("rma_pscw_killed: rank 2's start towards the dead target failed\n");
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}

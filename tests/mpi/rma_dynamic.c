/* A dynamic window: memory attached after creation is reachable at its
 * address (MPI_Get_address, sent to the others), detached memory no
 * longer is, and other regions stay reachable while one comes and goes.
 * Each round every rank attaches a fresh region, publishes its address,
 * and its left neighbour puts into it and into the long-lived region and
 * gets both back; then the region is detached.  A put may straddle two
 * regions attached side by side. */
#include "mpitest.h"

#define INTS 16
#define ROUNDS 6

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win win;
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS,
          "Win_create_dynamic");
    int *flavor = NULL, flag = 0;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor attribute");
    int keep[INTS] = {0};
    CHECK(MPI_Win_attach(win, keep, sizeof keep) == MPI_SUCCESS, "attach");
    MPI_Aint addr[2], *all = malloc(2 * (size_t)size * sizeof(MPI_Aint));
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    for (int round = 0; round < ROUNDS; round++) {
        int *fresh = calloc(INTS, sizeof(int));
        CHECK(MPI_Win_attach(win, fresh, INTS * sizeof(int)) == MPI_SUCCESS, "attach");
        MPI_Get_address(keep, &addr[0]);
        MPI_Get_address(fresh, &addr[1]);
        MPI_Allgather(addr, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
        int vals[INTS], back[2 * INTS];
        for (int i = 0; i < INTS; i++)
            vals[i] = 10000 * round + 100 * rank + i;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
        MPI_Put(vals, INTS, MPI_INT, right, all[2 * right], INTS, MPI_INT, win);
        MPI_Put(vals, INTS, MPI_INT, right, all[2 * right + 1], INTS, MPI_INT, win);
        MPI_Get(back, INTS, MPI_INT, right, all[2 * right], INTS, MPI_INT, win);
        MPI_Get(back + INTS, INTS, MPI_INT, right, all[2 * right + 1], INTS, MPI_INT, win);
        MPI_Win_unlock(right, win);
        for (int i = 0; i < 2 * INTS; i++)
            CHECK(back[i] == vals[i % INTS], "round %d: read back [%d] = %d", round, i,
                  back[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < INTS; i++) {
            int want = 10000 * round + 100 * left + i;
            CHECK(keep[i] == want && fresh[i] == want,
                  "round %d: [%d] holds %d and %d, want %d", round, i, keep[i], fresh[i],
                  want);
        }
        CHECK(MPI_Win_detach(win, fresh) == MPI_SUCCESS, "detach");
        free(fresh);
    }
    /* One access may run from one attached region into the next (MPICH
     * rma/win_dynamic_rma_flush_get): two halves of one array, attached
     * apart, take a put that straddles them. */
    int halves[2 * INTS] = {0}, vals[INTS];
    MPI_Win_attach(win, halves, INTS * sizeof(int));
    MPI_Win_attach(win, halves + INTS, INTS * sizeof(int));
    MPI_Get_address(halves + INTS / 2, &addr[0]);
    MPI_Allgather(addr, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    for (int i = 0; i < INTS; i++)
        vals[i] = 500 + rank * 50 + i;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(vals, INTS, MPI_INT, right, all[right], INTS, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 2 * INTS; i++) {
        int k = i - INTS / 2, want = k >= 0 && k < INTS ? 500 + left * 50 + k : 0;
        CHECK(halves[i] == want, "straddling put: [%d] = %d, want %d", i, halves[i], want);
    }
    MPI_Win_detach(win, halves);
    MPI_Win_detach(win, halves + INTS);

    /* Detaching what is not attached is MPI_ERR_RMA_ATTACH. */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int dummy, rc = MPI_Win_detach(win, &dummy);
    CHECK(mt_class(rc) == MPI_ERR_RMA_ATTACH, "detach of unattached memory: class %d",
          mt_class(rc));
    CHECK(MPI_Win_detach(win, keep) == MPI_SUCCESS, "detach");
    MPI_Win_free(&win);
    free(all);
    if (rank == 0)
        printf("rma_dynamic: %d rounds of attach, access, detach passed\n", ROUNDS);
    MPI_Finalize();
    return 0;
}

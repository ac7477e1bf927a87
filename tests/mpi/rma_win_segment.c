/* A window's own communicator makes no shared-memory collective segment
 * for the collectives of MPI_Win_allocate, MPI_Win_create and
 * MPI_Win_free: the process maps no more segments while the windows exist
 * than before them (BAGEL creates and frees 1,600 windows in one CASPT2,
 * and a 2.5 MB segment each made them 26 ms apiece).  The windows work:
 * under MPI_Win_lock_all every rank puts its pattern into its right
 * neighbour's window and gets it back from there.  A window synchronised
 * by MPI_Win_fence still fences right (the fence may make its segment),
 * and after every MPI_Win_free the count is back where it started. */
#include "mpitest.h"

#include <stdio.h>
#include <string.h>

#define INTS 64

static int rank, size;

static int pattern(int owner, int i) { return owner * 1000 + i; }

/* Every rank puts its pattern at its right neighbour under lock_all and
 * reads it back from there with a get. */
static void exchange_locked(MPI_Win win, const char *what)
{
    int right = (rank + 1) % size;
    int out[INTS], back[INTS];
    for (int i = 0; i < INTS; i++)
        out[i] = pattern(rank, i);
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS, "%s: lock_all", what);
    CHECK(MPI_Put(out, INTS, MPI_INT, right, 0, INTS, MPI_INT, win) == MPI_SUCCESS,
          "%s: put", what);
    CHECK(MPI_Win_flush_all(win) == MPI_SUCCESS, "%s: flush_all", what);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Get(back, INTS, MPI_INT, right, 0, INTS, MPI_INT, win) == MPI_SUCCESS,
          "%s: get", what);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS, "%s: unlock_all", what);
    for (int i = 0; i < INTS; i++)
        CHECK(back[i] == pattern(rank, i), "%s: element %d read back from rank %d is %d",
              what, i, right, back[i]);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* The world's segment exists once a blocking collective ran. */
    MPI_Barrier(MPI_COMM_WORLD);
    int before = mt_segments_mapped();

    int *base = NULL;
    MPI_Win allocated, created;
    CHECK(MPI_Win_allocate(INTS * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &base, &allocated) == MPI_SUCCESS,
          "Win_allocate");
    int own[INTS];
    CHECK(MPI_Win_create(own, sizeof own, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &created) == MPI_SUCCESS,
          "Win_create");
    int with_windows = mt_segments_mapped();
    CHECK(with_windows == before, "two windows mapped %d more segments", with_windows - before);
    exchange_locked(allocated, "Win_allocate");
    exchange_locked(created, "Win_create");
    CHECK(MPI_Win_free(&created) == MPI_SUCCESS && created == MPI_WIN_NULL, "free created");
    CHECK(MPI_Win_free(&allocated) == MPI_SUCCESS && allocated == MPI_WIN_NULL,
          "free allocated");
    int freed = mt_segments_mapped();
    CHECK(freed == before, "after Win_free %d more segments than before", freed - before);

    /* Fences: each rank puts its pattern into its right neighbour's
     * memory and finds its left neighbour's in its own after the fence. */
    CHECK(MPI_Win_allocate(INTS * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &base, &allocated) == MPI_SUCCESS,
          "Win_allocate for fences");
    int left = (rank + size - 1) % size, out[INTS];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < INTS; i++)
            out[i] = pattern(rank, i) + round;
        CHECK(MPI_Win_fence(0, allocated) == MPI_SUCCESS, "fence before round %d", round);
        CHECK(MPI_Put(out, INTS, MPI_INT, (rank + 1) % size, 0, INTS, MPI_INT, allocated) ==
                  MPI_SUCCESS,
              "put of round %d", round);
        CHECK(MPI_Win_fence(0, allocated) == MPI_SUCCESS, "fence after round %d", round);
        for (int i = 0; i < INTS; i++)
            CHECK(base[i] == pattern(left, i) + round,
                  "round %d: element %d from rank %d is %d", round, i, left, base[i]);
    }
    CHECK(MPI_Win_free(&allocated) == MPI_SUCCESS, "free the fenced window");
    freed = mt_segments_mapped();
    CHECK(freed == before, "after the fenced window %d more segments than before",
          freed - before);
    MPI_Finalize();
    if (rank == 0)
        printf("windows made no collective segment on %d ranks\n", size);
    return 0;
}

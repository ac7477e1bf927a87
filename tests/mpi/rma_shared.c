/* MPI_Win_allocate_shared gives one mapping of the node: each rank writes
 * its own piece with plain stores, MPI_Win_sync and a barrier publish
 * them, and every rank reads every other rank's piece with plain loads
 * through the pointer MPI_Win_shared_query returns (and MPI_PROC_NULL's,
 * the first piece with memory).  One-sided operations on the same window
 * land in the same memory: an MPI_Put to the right neighbour is read back
 * by a load there, and a store is read by an MPI_Get.  Sizes differ per
 * rank (rank 1 has none), each piece is aligned, the flavor attribute
 * says shared, the alloc_shared_noncontig hint given is reported, and freeing the window leaves nothing in /dev/shm.
 * MPI-4.1 lets MPI_Win_shared_query ask windows of the other flavors: an
 * MPI_Win_allocate window on one node shows every rank's memory, whose
 * stores the others load; an MPI_Win_create window shows this rank's own
 * memory and size 0 with NULL for the others; a dynamic window none. */
#include "mpitest.h"

#include <dirent.h>
#include <stdint.h>

static int rank, size;

static int ints_of(int r) { return r == 1 ? 0 : 16 + r; }

/* MPI_Win_shared_query on windows that MPI_Win_allocate_shared did not
 * make (MPI-4.1). */
static void query_other_flavors(void)
{
    int *mine = NULL;
    MPI_Win win;
    int rc = MPI_Win_allocate(ints_of(rank) * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &mine, &win);
    CHECK(rc == MPI_SUCCESS, "Win_allocate returned %d", rc);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int i = 0; i < ints_of(rank); i++)
        mine[i] = 3000 * rank + i;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int r = 0; r < size; r++) {
        MPI_Aint bytes = -1;
        int unit = -1, *theirs = NULL;
        rc = MPI_Win_shared_query(win, r, &bytes, &unit, &theirs);
        CHECK(rc == MPI_SUCCESS, "query of an allocated window returned %d", rc);
        CHECK(bytes == ints_of(r) * (MPI_Aint)sizeof(int) && unit == sizeof(int),
              "allocated window, rank %d: %ld bytes, unit %d", r, (long)bytes, unit);
        CHECK(r != rank || theirs == (ints_of(r) > 0 ? mine : NULL), "own piece at %p",
              (void *)theirs);
        for (int i = 0; i < ints_of(r); i++)
            CHECK(theirs[i] == 3000 * r + i, "allocated window, rank %d's [%d] reads %d", r, i,
                  theirs[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);

    int local[4] = {1, 2, 3, 4};
    MPI_Win_create(local, sizeof local, 2, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (int r = 0; r < size; r++) {
        MPI_Aint bytes = -1;
        int unit = -1, *theirs = local;
        rc = MPI_Win_shared_query(win, r, &bytes, &unit, &theirs);
        CHECK(rc == MPI_SUCCESS, "query of a created window returned %d", rc);
        if (r == rank)
            CHECK(bytes == sizeof local && unit == 2 && theirs == local,
                  "created window, own memory: %ld bytes, unit %d", (long)bytes, unit);
        else
            CHECK(bytes == 0 && theirs == NULL, "created window, rank %d: %ld bytes at %p", r,
                  (long)bytes, (void *)theirs);
    }
    MPI_Win_free(&win);

    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Aint bytes = -1;
    int unit = -1, *theirs = local;
    rc = MPI_Win_shared_query(win, rank, &bytes, &unit, &theirs);
    CHECK(rc == MPI_SUCCESS && bytes == 0 && theirs == NULL,
          "dynamic window: rc %d, %ld bytes at %p", rc, (long)bytes, (void *)theirs);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mine = NULL;
    MPI_Win win;
    MPI_Info hints, used;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "alloc_shared_noncontig", "true");
    int rc = MPI_Win_allocate_shared(ints_of(rank) * (MPI_Aint)sizeof(int), sizeof(int),
                                     hints, MPI_COMM_WORLD, &mine, &win);
    MPI_Info_free(&hints);
    CHECK(rc == MPI_SUCCESS, "Win_allocate_shared returned %d", rc);
    CHECK(ints_of(rank) == 0 || ((uintptr_t)mine % 64) == 0, "piece %p not aligned",
          (void *)mine);
    int *flavor = NULL, flag = 0;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor attribute");
    char value[MPI_MAX_INFO_VAL];
    MPI_Win_get_info(win, &used);
    MPI_Info_get(used, "alloc_shared_noncontig", MPI_MAX_INFO_VAL - 1, value, &flag);
    CHECK(flag && strcmp(value, "true") == 0, "alloc_shared_noncontig hint not reported");
    MPI_Info_free(&used);

    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int i = 0; i < ints_of(rank); i++)
        mine[i] = 1000 * rank + i; /* plain stores */
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int r = 0; r < size; r++) {
        MPI_Aint bytes;
        int unit, *theirs = NULL;
        MPI_Win_shared_query(win, r, &bytes, &unit, &theirs);
        CHECK(bytes == ints_of(r) * (MPI_Aint)sizeof(int) && unit == sizeof(int),
              "rank %d's piece: %ld bytes, unit %d", r, (long)bytes, unit);
        for (int i = 0; i < ints_of(r); i++) /* plain loads */
            CHECK(theirs[i] == 1000 * r + i, "rank %d's [%d] reads %d", r, i, theirs[i]);
    }
    MPI_Aint bytes;
    int unit, *first = NULL;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &bytes, &unit, &first);
    CHECK(first != NULL && first[0] == 0 && bytes == ints_of(0) * (MPI_Aint)sizeof(int),
          "MPI_PROC_NULL names rank 0's piece");
    MPI_Barrier(MPI_COMM_WORLD); /* every read done before the next writes */

    /* An MPI_Put lands where the neighbour's loads see it. */
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int val = 5000 + rank;
    if (ints_of(right) > 0) {
        MPI_Put(&val, 1, MPI_INT, right, 2, 1, MPI_INT, win);
        MPI_Win_flush(right, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    if (ints_of(rank) > 0)
        CHECK(mine[2] == 5000 + left, "put from rank %d reads %d", left, mine[2]);
    /* And a store is what an MPI_Get brings back. */
    if (ints_of(rank) > 0)
        mine[3] = 7000 + rank;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (ints_of(right) > 0) {
        int got = -1;
        MPI_Get(&got, 1, MPI_INT, right, 3, 1, MPI_INT, win);
        MPI_Win_flush(right, win);
        CHECK(got == 7000 + right, "get of rank %d's store read %d", right, got);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);

    /* The mapping was an anonymous memory file: no name in /dev/shm. */
    DIR *d = opendir("/dev/shm");
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        CHECK(strstr(e->d_name, "hcmpi-win") == NULL, "/dev/shm/%s left behind", e->d_name);
    if (d != NULL)
        closedir(d);
    query_other_flavors();
    if (rank == 0)
        printf("rma_shared: %d ranks load and store each other's pieces\n", size);
    MPI_Finalize();
    return 0;
}

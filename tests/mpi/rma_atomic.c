/* Accumulates are atomic per element: every rank at once adds 1 to one
 * word of rank 0's window with MPI_Accumulate(MPI_SUM) and fetches-and-adds
 * 1 to the next word with MPI_Fetch_and_op, ITERS times, under shared
 * locks, then under lock_all with flushes.  The totals must be exactly
 * size * ITERS per phase, and the values MPI_Fetch_and_op returned across
 * all ranks must be every number from 0 to the total once (no two ranks
 * ever read the same old value).  A third phase uses
 * MPI_Compare_and_swap as a spin lock around a plain read-modify-write of
 * a counter through MPI_Get and MPI_Put, which stays exact only if the
 * swap is atomic. */
#include "mpitest.h"

#define ITERS 200

static int rank, size;

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Every fetched value of all ranks, sorted, must be 0 .. size*ITERS-1. */
static void check_fetched(const int *mine, const char *phase)
{
    int *all = rank == 0 ? malloc((size_t)size * ITERS * sizeof(int)) : NULL;
    MPI_Gather(mine, ITERS, MPI_INT, all, ITERS, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    qsort(all, (size_t)size * ITERS, sizeof(int), cmp_int);
    for (int i = 0; i < size * ITERS; i++)
        CHECK(all[i] == i, "%s: sorted fetched value #%d is %d", phase, i, all[i]);
    free(all);
}

static void check_totals(const int *words, int first, const char *phase)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(words[first] == size * ITERS, "%s: accumulated %d, want %d", phase,
              words[first], size * ITERS);
        CHECK(words[first + 1] == size * ITERS, "%s: fetch-and-op total %d, want %d",
              phase, words[first + 1], size * ITERS);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *words = NULL, one = 1, fetched[ITERS];
    MPI_Win win;
    CHECK(MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &words, &win) == MPI_SUCCESS, "Win_allocate");
    memset(words, 0, 8 * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);

    for (int i = 0; i < ITERS; i++) { /* phase 1: a shared lock per pair */
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Fetch_and_op(&one, &fetched[i], MPI_INT, 0, 1, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    check_totals(words, 0, "shared locks");
    check_fetched(fetched, "shared locks");

    MPI_Win_lock_all(0, win); /* phase 2: one epoch, a flush per pair */
    for (int i = 0; i < ITERS; i++) {
        MPI_Accumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win);
        MPI_Fetch_and_op(&one, &fetched[i], MPI_INT, 0, 3, MPI_SUM, win);
        MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    check_totals(words, 2, "lock_all");
    check_fetched(fetched, "lock_all");

    /* phase 3: word 4 a spin lock taken by compare-and-swap, word 5 a
     * counter updated by a non-atomic get, add, put under it */
    int me = rank + 1, zero = 0, old, counter;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < ITERS / 4; i++) {
        do {
            MPI_Compare_and_swap(&me, &zero, &old, MPI_INT, 0, 4, win);
            MPI_Win_flush(0, win);
        } while (old != 0);
        MPI_Get(&counter, 1, MPI_INT, 0, 5, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        counter++;
        MPI_Put(&counter, 1, MPI_INT, 0, 5, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Compare_and_swap(&zero, &me, &old, MPI_INT, 0, 4, win);
        MPI_Win_flush(0, win);
        CHECK(old == me, "the spin lock held %d, not this rank's %d", old, me);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(words[5] == size * (ITERS / 4), "counter under the CAS lock is %d, want %d",
              words[5], size * (ITERS / 4));
    MPI_Win_free(&win);
    if (rank == 0)
        printf("rma_atomic: %d ranks x %d accumulates and fetch-and-ops exact\n", size, ITERS);
    MPI_Finalize();
    return 0;
}

/* One-sided operations reach a target that waits in a blocking
 * collective: rank 0 locks, accumulates into and unlocks every other
 * rank's window (MPI_Win_create memory, which the target's progress
 * serves) while they all wait in MPI_Barrier, then joins it.  Every
 * target's words must hold the sum of what rank 0 added.
 *
 * Run by rma_target_waits.sh with a very long engine sleep
 * (HCMPI_WAIT_MS): a target asleep in the barrier that only a collective's
 * publication could wake would serve nothing until it timed out, and the
 * launcher's timeout would fail the run. */
#include "mpitest.h"

enum { ROUNDS = 200, WORDS = 4 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *mem = NULL;
    MPI_Alloc_mem(WORDS * sizeof(long), MPI_INFO_NULL, &mem);
    for (int i = 0; i < WORDS; i++)
        mem[i] = 0;
    MPI_Win win;
    MPI_Win_create(mem, WORDS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    if (rank == 0) {
        long add[WORDS];
        for (int round = 1; round <= ROUNDS; round++) {
            for (int t = 1; t < size; t++) {
                for (int i = 0; i < WORDS; i++)
                    add[i] = (long)round * (i + 1) + t;
                CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win) == MPI_SUCCESS, "lock %d", t);
                CHECK(MPI_Accumulate(add, WORDS, MPI_LONG, t, 0, WORDS, MPI_LONG, MPI_SUM, win) ==
                          MPI_SUCCESS,
                      "accumulate to %d", t);
                CHECK(MPI_Win_unlock(t, win) == MPI_SUCCESS, "unlock %d", t);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        long rounds_sum = (long)ROUNDS * (ROUNDS + 1) / 2;
        for (int i = 0; i < WORDS; i++) {
            long want = rounds_sum * (i + 1) + (long)ROUNDS * rank;
            CHECK(mem[i] == want, "word %d holds %ld, %ld expected", i, mem[i], want);
        }
        MPI_Win_unlock(rank, win);
    }
    MPI_Win_free(&win);
    MPI_Free_mem(mem);
    if (rank == 0)
        printf("rma_target_waits: %d rounds to %d targets waiting in a barrier\n", ROUNDS,
               size - 1);
    MPI_Finalize();
    return 0;
}

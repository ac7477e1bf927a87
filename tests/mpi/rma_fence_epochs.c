/* Fence epochs whose length changes from one to the next move the right
 * bytes, however each rank waits in the fence.  Rank 0 gets every other
 * rank's block and puts a block of its own into it in each epoch, one
 * fence apart; the others issue nothing and only wait in the fences, then
 * check what arrived and write the block for the epoch after next (rank 0
 * reads the other one meanwhile).  Rank 0 keeps its core busy
 * for a listed time inside some epochs (short ones, then one longer than
 * the engine polls through a fence, then short again), and in others a
 * target does, so rank 0 is the one waiting.  What is checked is bytes:
 * whether a rank polled or slept is not asserted.
 *
 * argv[1]: "allocate" (MPI_Win_allocate: on one node operations copy
 * through the shared mapping) or "create" (MPI_Win_create over
 * MPI_Alloc_mem: the target's progress serves them).
 * argv[2]: "fence" (the default) or "pscw": each epoch an access epoch
 * of rank 0 (MPI_Win_start ... MPI_Win_complete) to every other rank's
 * exposure epoch (MPI_Win_post ... MPI_Win_wait), whose waits recur the
 * same way (rma_sync.c). */
#include "mpitest.h"

enum { BLOCK = 64 * 1024, EPOCHS = 14 };

/* Microseconds rank 0 (origin) or the last rank (target) computes inside
 * each epoch. */
static const int origin_busy_us[EPOCHS] = {0,    1000, 1000, 1000, 1000, 9000, 1000,
                                           1000, 0,    0,    2000, 1000, 0,    1000};
static const int target_busy_us[EPOCHS] = {0, 0, 0, 0, 0, 0, 0, 0, 3000, 1000, 0, 0, 0, 0};

static int pscw;
static MPI_Group others; /* rank 0: every other rank; the others: rank 0 */

/* Opens epoch e's exposure (targets) or access (rank 0); fences open each
 * epoch with the one closing the last. */
static void epoch_open(MPI_Win win, int rank, int e)
{
    if (!pscw)
        return;
    if (rank == 0)
        CHECK(MPI_Win_start(others, 0, win) == MPI_SUCCESS, "start of epoch %d", e);
    else
        CHECK(MPI_Win_post(others, 0, win) == MPI_SUCCESS, "post of epoch %d", e);
}

static void epoch_close(MPI_Win win, int rank, int e)
{
    if (!pscw)
        CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS, "fence closing epoch %d", e);
    else if (rank == 0)
        CHECK(MPI_Win_complete(win) == MPI_SUCCESS, "complete of epoch %d", e);
    else
        CHECK(MPI_Win_wait(win) == MPI_SUCCESS, "wait of epoch %d", e);
}

static void busy_for(int us)
{
    double until = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < until)
        ;
}

/* The byte at i of what rank offers rank 0's get in epoch e (half 0), or
 * of what rank 0 puts into rank's window in epoch e (half 1). */
static unsigned char pattern(int half, int e, int rank, size_t i)
{
    return (unsigned char)(half * 131 + e * 31 + rank * 17 + i * 7 + (i >> 9));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc == 2 || argc == 3, "usage: rma_fence_epochs allocate|create [fence|pscw]");
    int allocate = strcmp(argv[1], "allocate") == 0;
    CHECK(allocate || strcmp(argv[1], "create") == 0, "unknown window kind %s", argv[1]);
    pscw = argc == 3 && strcmp(argv[2], "pscw") == 0;
    CHECK(argc == 2 || pscw || strcmp(argv[2], "fence") == 0, "unknown synchronisation %s",
          argv[2]);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int zero = 0;
    if (rank == 0)
        MPI_Group_excl(world, 1, &zero, &others);
    else
        MPI_Group_incl(world, 1, &zero, &others);
    MPI_Group_free(&world);

    /* Blocks 0 and 1 are what rank 0 gets in even and odd epochs, 2 and 3
     * what it puts: one fence per epoch, as in a loop of epochs, so each
     * side touches the other parity's blocks meanwhile. */
    unsigned char *mem = NULL;
    MPI_Win win;
    if (allocate) {
        CHECK(MPI_Win_allocate(4 * BLOCK, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win) ==
                  MPI_SUCCESS,
              "MPI_Win_allocate");
    } else {
        CHECK(MPI_Alloc_mem(4 * BLOCK, MPI_INFO_NULL, &mem) == MPI_SUCCESS, "MPI_Alloc_mem");
        CHECK(MPI_Win_create(mem, 4 * BLOCK, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
                  MPI_SUCCESS,
              "MPI_Win_create");
    }
    unsigned char *got = malloc((size_t)size * BLOCK);
    unsigned char *put = malloc((size_t)size * BLOCK);
    CHECK(got != NULL && put != NULL, "malloc");
    for (size_t i = 0; i < BLOCK; i++) {
        mem[i] = pattern(0, 0, rank, i);
        mem[BLOCK + i] = pattern(0, 1, rank, i);
    }

    /* (With PSCW each target's post orders its stores above before rank
     * 0's reads.) */
    if (!pscw)
        CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS, "first fence");
    for (int e = 0; e < EPOCHS; e++) {
        MPI_Aint get_at = (MPI_Aint)(e % 2) * BLOCK, put_at = (MPI_Aint)(2 + e % 2) * BLOCK;
        epoch_open(win, rank, e);
        if (rank == 0) {
            for (int t = 1; t < size; t++) {
                unsigned char *out = put + (size_t)t * BLOCK;
                for (size_t i = 0; i < BLOCK; i++)
                    out[i] = pattern(1, e, t, i);
                CHECK(MPI_Get(got + (size_t)t * BLOCK, BLOCK, MPI_BYTE, t, get_at, BLOCK,
                              MPI_BYTE, win) == MPI_SUCCESS,
                      "get from %d", t);
                CHECK(MPI_Put(out, BLOCK, MPI_BYTE, t, put_at, BLOCK, MPI_BYTE, win) ==
                          MPI_SUCCESS,
                      "put to %d", t);
            }
            busy_for(origin_busy_us[e]);
        } else if (rank == size - 1) {
            busy_for(target_busy_us[e]);
        }
        epoch_close(win, rank, e);
        if (rank == 0) {
            for (int t = 1; t < size; t++)
                for (size_t i = 0; i < BLOCK; i++)
                    CHECK(got[(size_t)t * BLOCK + i] == pattern(0, e, t, i),
                          "epoch %d: byte %zu got from %d is %u, %u expected", e, i, t,
                          got[(size_t)t * BLOCK + i], pattern(0, e, t, i));
        } else {
            for (size_t i = 0; i < BLOCK; i++)
                CHECK(mem[put_at + i] == pattern(1, e, rank, i),
                      "epoch %d: byte %zu put here is %u, %u expected", e, i, mem[put_at + i],
                      pattern(1, e, rank, i));
            /* For epoch e + 2; rank 0 reads the other block in e + 1. */
            for (size_t i = 0; i < BLOCK; i++)
                mem[get_at + i] = pattern(0, e + 2, rank, i);
        }
    }
    if (!pscw)
        CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS, "last fence");
    MPI_Group_free(&others);
    MPI_Win_free(&win);
    if (!allocate)
        MPI_Free_mem(mem);
    free(got);
    free(put);
    if (rank == 0)
        printf("rma_fence_epochs %s %s: %d epochs to %d targets\n", argv[1],
               pscw ? "pscw" : "fence", EPOCHS, size - 1);
    MPI_Finalize();
    return 0;
}

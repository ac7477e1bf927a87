/* Ranks 0 and 1 lose each other for three different reasons, and the
 * fatal error handler's abort line must name the reason, not a death that
 * did not happen.  Run by abort_cause.sh on 2 ranks:
 *
 *   abort_cause secret   (tcp; the script gives rank 1 another job
 *                        secret) both ranks send to each other: the
 *                        connection fails authentication
 *   abort_cause corrupt  (shm) rank 1 scribbles an impossible index into
 *                        its ring to rank 0, then waits; rank 0's receive
 *                        finds the ring corrupt
 *   abort_cause dead     (--no-kill-on-failure) rank 1 dies; rank 0's
 *                        receive fails with the death
 *
 * Every rank runs under MPI_ERRORS_ARE_FATAL: a call that returns is the
 * failure ("FAIL rank" on stderr). */
#include "mpitest.h"
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

static int rank;

/* The shared segment as shm.c lays it out (its header comment): magic at
 * 0, ring_offset and ring_bytes at 24 and 32; pair rings i -> j at
 * ring_offset + (i * (local_size - 1) + (j < i ? j : j - 1)) * ring_bytes;
 * in each ring (shm_ring.c) the producer's tail at 64, the consumer's head
 * at 128.  Found by its mapping's name in /proc/self/maps. */
#define SEG_MAGIC 0x68636d7069736567ULL /* "hcmpiseg" */
#define RING_TAIL 64
#define RING_HEAD 128

static unsigned char *find_segment(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL, "open /proc/self/maps");
    char line[512];
    unsigned char *found = NULL;
    while (found == NULL && fgets(line, sizeof line, maps) != NULL) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[1] != 'w' ||
            strstr(line, "hcmpi") == NULL)
            continue;
        uint64_t magic;
        memcpy(&magic, (void *)lo, sizeof magic);
        if (magic == SEG_MAGIC)
            found = (unsigned char *)lo;
    }
    fclose(maps);
    CHECK(found != NULL, "no mapping of the shared segment in /proc/self/maps");
    return found;
}

/* Rank 1 -> rank 0 ring of a 2-rank node: index 1 * (2 - 1) + 0 = 1.  Its
 * tail moves far past the head, which no producer can do. */
static void corrupt_ring_to_rank0(void)
{
    unsigned char *seg = find_segment();
    uint64_t ring_offset, ring_bytes, head;
    memcpy(&ring_offset, seg + 24, sizeof ring_offset);
    memcpy(&ring_bytes, seg + 32, sizeof ring_bytes);
    CHECK(ring_offset > 0 && ring_bytes > RING_HEAD, "segment header unreadable");
    unsigned char *ring = seg + ring_offset + ring_bytes;
    memcpy(&head, ring + RING_HEAD, sizeof head);
    uint64_t tail = head + ((uint64_t)1 << 40);
    __atomic_store_n((uint64_t *)(void *)(ring + RING_TAIL), tail, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    CHECK(argc == 2, "usage: abort_cause secret|corrupt|dead");
    const char *mode = argv[1];
    int out = 7, in = 0;
    if (strcmp(mode, "secret") == 0) {
        /* Both directions, so whichever rank connects first fails. */
        MPI_Sendrecv(&out, 1, MPI_INT, 1 - rank, 1, &in, 1, MPI_INT, 1 - rank, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "corrupt") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            corrupt_ring_to_rank0();
            /* Alive until the launcher ends the job. */
            for (;;)
                pause();
        }
        MPI_Recv(&in, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        CHECK(strcmp(mode, "dead") == 0, "unknown mode %s", mode);
        if (rank == 1) {
            fflush(stdout);
            raise(SIGKILL);
        }
        MPI_Recv(&in, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    fprintf(stderr, "FAIL rank %d: %s: the call returned under MPI_ERRORS_ARE_FATAL\n", rank,
            mode);
    return 1;
}

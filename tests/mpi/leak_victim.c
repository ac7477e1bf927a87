/* A job that fails in a chosen way, for no_leaks.sh, which then checks that
 * nothing of it survives: no file in /dev/shm, no process.
 *
 *   leak_victim before-init R   rank R dies (SIGKILL) before MPI_Init while
 *                               the others are inside it
 *   leak_victim mid R           rank R dies in the middle of a transfer
 *   leak_victim abort R         rank R calls MPI_Abort
 *   leak_victim hang            every rank initialises, prints "ready",
 *                               then waits forever (the script kills the
 *                               launcher)
 * The last argument is a token the script finds the processes by. */
#include "mpitest.h"
#include <signal.h>
#include <unistd.h>

static int env_rank(void)
{
    const char *r = getenv("PMI_RANK");
    return r != NULL ? atoi(r) : -1;
}

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    const char *mode = argc > 1 ? argv[1] : "hang";
    int victim = argc > 2 ? atoi(argv[2]) : 1;
    if (strcmp(mode, "before-init") == 0 && env_rank() == victim)
        raise(SIGKILL);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "mid") == 0) {
        size_t len = (size_t)8 << 20;
        unsigned char *buf = mt_malloc(2 * len);
        int peer = rank ^ 1;
        for (int round = 0; peer < size; round++) {
            if (rank == victim && round == 3)
                raise(SIGKILL);
            MPI_Sendrecv(buf, (int)len, MPI_BYTE, peer, 0, buf + len, (int)len, MPI_BYTE, peer,
                         0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (strcmp(mode, "abort") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == victim)
            MPI_Abort(MPI_COMM_WORLD, 3);
    } else if (strcmp(mode, "hang") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        printf("rank %d ready\n", rank);
        fflush(stdout);
    }
    /* Waits for a message nobody sends: the launcher must end this rank. */
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}

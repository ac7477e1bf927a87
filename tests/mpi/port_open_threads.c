/* A runtime transport added while another thread sleeps in a wait: on
 * every rank one thread blocks in MPI_Recv from its partner (it spins, then
 * sleeps without the engine lock) while the main thread opens and closes
 * a port (MPI_Open_port starts the runtime transport), and only then sends
 * what the partner's receiver waits for.  The sleeper must end only the
 * transports it readied before it slept, not read the engine's transport
 * count while the opener grows it (ThreadSanitizer reported that race from
 * MPICH's threads/spawn tests with HCMPI_ASYNC_PROGRESS=1).
 *   port_open_threads [ROUNDS]   (default 5) */
#include "mpitest.h"
#include <pthread.h>
#include <time.h>

#define POT_TAG 7
#define POT_SLEEPER_HEAD_START_MS 50

struct pot_arg {
    int peer, round, got;
};

static void *pot_receive(void *p)
{
    struct pot_arg *a = p;
    MPI_Status st;
    CHECK(MPI_Recv(&a->got, 1, MPI_INT, a->peer, POT_TAG, MPI_COMM_WORLD, &st) == MPI_SUCCESS,
          "round %d: Recv failed", a->round);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int peer = rank ^ 1;
    for (int r = 0; r < rounds && peer < size; r++) {
        struct pot_arg arg = {peer, r, -1};
        pthread_t receiver;
        CHECK(pthread_create(&receiver, NULL, pot_receive, &arg) == 0, "pthread_create");
        /* Long enough for the receiver to pass its spin and sleep. */
        struct timespec head_start = {0, POT_SLEEPER_HEAD_START_MS * 1000000L};
        nanosleep(&head_start, NULL);
        char port[MPI_MAX_PORT_NAME];
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "round %d: Open_port", r);
        CHECK(MPI_Close_port(port) == MPI_SUCCESS, "round %d: Close_port", r);
        int value = 1000 * rank + r;
        CHECK(MPI_Send(&value, 1, MPI_INT, peer, POT_TAG, MPI_COMM_WORLD) == MPI_SUCCESS,
              "round %d: Send failed", r);
        pthread_join(receiver, NULL);
        CHECK(arg.got == 1000 * peer + r, "round %d: got %d want %d", r, arg.got,
              1000 * peer + r);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("port_open_threads: %d rounds OK\n", rounds);
    MPI_Finalize();
    return 0;
}

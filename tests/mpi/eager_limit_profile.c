/* The eager limit between two ranks of a node, on 2 ranks: argv[1] is the
 * limit L the script expects (the processor profile's shm eager_max, or a
 * set HCMPI_EAGER_LIMIT).  Rank 0 sends L-1, L and L+1 bytes, each three
 * times; rank 1 receives them
 *   - from MPI_ANY_SOURCE, bytes and status checked;
 *   - after MPI_Probe, whose status gives the size;
 *   - into a buffer one byte short: MPI_ERR_TRUNCATE;
 * and its MPI_T counters say each arrived eager up to L bytes and by
 * rendezvous above. */
#include "mpitest.h"

enum { TAG_GO = 1, TAG_DATA = 2 };
static const char *const counter_names[2] = {"eager_received_messages",
                                             "rndv_received_messages"};
static MPI_T_pvar_session session;
static MPI_T_pvar_handle handles[2];

/* Rank 1: one message of size bytes, received the way named by way. */
static void receive_one(int size, int way, int limit, unsigned char *buf)
{
    unsigned long long eager = mt_counters_sum(session, 1, &handles[0]);
    unsigned long long rndv = mt_counters_sum(session, 1, &handles[1]);
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
    mt_recv_way(size, way, TAG_DATA, buf);
    unsigned long long eager_now = size <= limit;
    eager = mt_counters_sum(session, 1, &handles[0]) - eager;
    rndv = mt_counters_sum(session, 1, &handles[1]) - rndv;
    CHECK(eager == eager_now && rndv == !eager_now,
          "%d bytes with eager limit %d: eager +%llu, rendezvous +%llu", size, limit, eager,
          rndv);
}

int main(int argc, char **argv)
{
    int provided, rank, nranks;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "T_init_thread");
    MPI_Init(&argc, &argv);
    int limit = argc == 2 ? atoi(argv[1]) : 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    CHECK(nranks == 2 && limit > 1, "run on 2 ranks with the expected limit");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *buf = malloc((size_t)limit + 1);
    CHECK(buf != NULL, "malloc");
    mt_counters_open(&session, 2, counter_names, handles);
    for (int size = limit - 1; size <= limit + 1; size++) {
        for (int way = 0; way < MT_WAYS; way++) {
            if (rank == 1) {
                receive_one(size, way, limit, buf);
                continue;
            }
            mt_fill(buf, (size_t)size, (unsigned)size);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(MPI_Send(buf, size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD) == MPI_SUCCESS,
                  "send %d", size);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    mt_counters_finalize(&session);
    if (rank == 0)
        printf("PASS: eager_limit_profile\n");
    return 0;
}

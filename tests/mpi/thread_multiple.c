/* MPI_THREAD_MULTIPLE: two threads per rank exchange with the partner rank
 * at the same time, thread t on tag t, 300 rounds each with eager and
 * rendezvous sizes; every message carries (rank, thread, round) and must
 * reach the matching thread of the peer.  Is_thread_main is false in the
 * helper thread.  Ranks pair up (0,1), (2,3), ... */
#include "mpitest.h"
#include <pthread.h>

#define TM_ROUNDS 300
#define TM_BIG 40000

struct tm_arg {
    int rank, peer, thread;
};

static void *tm_worker(void *p)
{
    const struct tm_arg *a = p;
    int *sbuf = mt_malloc(sizeof(int) * TM_BIG), *rbuf = mt_malloc(sizeof(int) * TM_BIG);
    if (a->thread == 1) {
        int flag = 1;
        MPI_Is_thread_main(&flag);
        CHECK(!flag, "Is_thread_main true in a helper thread");
    }
    for (int r = 0; r < TM_ROUNDS; r++) {
        int n = r % 10 == 9 ? TM_BIG : 1 + r % 7;
        MPI_Request req[2];
        MPI_Status st;
        for (int i = 0; i < n; i++)
            sbuf[i] = ((a->rank * 2 + a->thread) * TM_ROUNDS + r) * 3 + i;
        MPI_Irecv(rbuf, n, MPI_INT, a->peer, a->thread, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(sbuf, n, MPI_INT, a->peer, a->thread, MPI_COMM_WORLD, &req[1]);
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        MPI_Wait(&req[0], &st);
        CHECK(st.MPI_TAG == a->thread && st.MPI_SOURCE == a->peer, "thread %d: status %d/%d",
              a->thread, st.MPI_SOURCE, st.MPI_TAG);
        CHECK(mt_status_count(&st, MPI_INT) == n, "thread %d round %d: count %d want %d",
              a->thread, r, mt_status_count(&st, MPI_INT), n);
        for (int i = 0; i < n; i++)
            CHECK(rbuf[i] == ((a->peer * 2 + a->thread) * TM_ROUNDS + r) * 3 + i,
                  "thread %d round %d: [%d] = %d", a->thread, r, i, rbuf[i]);
    }
    free(sbuf);
    free(rbuf);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    if ((rank ^ 1) < size) {
        struct tm_arg a[2] = {{rank, rank ^ 1, 0}, {rank, rank ^ 1, 1}};
        pthread_t th;
        CHECK(pthread_create(&th, NULL, tm_worker, &a[1]) == 0, "pthread_create");
        tm_worker(&a[0]);
        pthread_join(th, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("thread_multiple: 2 threads x %d rounds per rank: OK\n", TM_ROUNDS);
    MPI_Finalize();
    return 0;
}

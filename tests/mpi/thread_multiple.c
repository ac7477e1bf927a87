/* MPI_THREAD_MULTIPLE stress: 4 threads per rank at once, each on its own
 * duplicate of MPI_COMM_WORLD (made before the threads start) and on
 * MPI_COMM_WORLD itself with its own tag:
 *   - Irecv/Isend/Wait with the partner rank (eager and rendezvous sizes),
 *     every message carrying (rank, thread, round) so one delivered to the
 *     wrong thread or round shows;
 *   - Probe of a message of varying size, then a Recv of exactly the size
 *     the probe reported;
 *   - collectives on the thread's communicator (Allreduce, Bcast from a
 *     moving root, Barrier), which only that thread uses on each rank, so
 *     their order agrees across ranks.
 * Is_thread_main is false in the helper threads.  Ranks pair up (0,1),
 * (2,3), ...; an odd last rank only does the collectives.
 *   thread_multiple [ROUNDS]   (default 200; the TSan pass runs fewer) */
#include "mpitest.h"
#include <pthread.h>

#define TM_THREADS 4
#define TM_BIG 40000 /* ints: rendezvous on every transport */

struct tm_arg {
    int rank, size, peer, thread, rounds;
    MPI_Comm comm;
};

static int tm_value(int rank, int thread, int round, int i)
{
    return ((rank * TM_THREADS + thread) * 1000 + round % 1000) * 7 + i;
}

static void tm_verify(const struct tm_arg *a, const int *buf, int n, int r, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == tm_value(a->peer, a->thread, r, i), "thread %d round %d %s: [%d] = %d",
              a->thread, r, what, i, buf[i]);
}

/* One exchange with the partner on the thread's communicator, and a small
 * one on MPI_COMM_WORLD under the thread's tag. */
static void tm_pt2pt(const struct tm_arg *a, int r, int *sbuf, int *rbuf)
{
    int n = r % 10 == 9 ? TM_BIG : 1 + r % 7, w_out = tm_value(a->rank, a->thread, r, 0), w_in;
    MPI_Request req[4];
    MPI_Status st;
    for (int i = 0; i < n; i++)
        sbuf[i] = tm_value(a->rank, a->thread, r, i);
    MPI_Irecv(rbuf, n, MPI_INT, a->peer, r % 50, a->comm, &req[0]);
    MPI_Irecv(&w_in, 1, MPI_INT, a->peer, 100 + a->thread, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(sbuf, n, MPI_INT, a->peer, r % 50, a->comm, &req[2]);
    MPI_Isend(&w_out, 1, MPI_INT, a->peer, 100 + a->thread, MPI_COMM_WORLD, &req[3]);
    MPI_Wait(&req[2], MPI_STATUS_IGNORE);
    MPI_Wait(&req[3], MPI_STATUS_IGNORE);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    MPI_Wait(&req[0], &st);
    CHECK(st.MPI_TAG == r % 50 && st.MPI_SOURCE == a->peer, "thread %d: status %d/%d",
          a->thread, st.MPI_SOURCE, st.MPI_TAG);
    CHECK(mt_status_count(&st, MPI_INT) == n, "thread %d round %d: count %d want %d",
          a->thread, r, mt_status_count(&st, MPI_INT), n);
    tm_verify(a, rbuf, n, r, "Irecv");
    CHECK(w_in == tm_value(a->peer, a->thread, r, 0), "thread %d round %d: world message %d",
          a->thread, r, w_in);
}

/* A message whose size only the probe tells. */
static void tm_probe(const struct tm_arg *a, int r, int *sbuf, int *rbuf)
{
    int n = (r * 37) % TM_BIG + 1, count = -1;
    MPI_Request req;
    MPI_Status st;
    for (int i = 0; i < n; i++)
        sbuf[i] = tm_value(a->rank, a->thread, r, i);
    MPI_Isend(sbuf, n, MPI_INT, a->peer, 60, a->comm, &req);
    MPI_Probe(a->peer, 60, a->comm, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == n && st.MPI_SOURCE == a->peer, "thread %d round %d: Probe saw %d from %d",
          a->thread, r, count, st.MPI_SOURCE);
    MPI_Recv(rbuf, count, MPI_INT, a->peer, 60, a->comm, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    tm_verify(a, rbuf, n, r, "Probe+Recv");
}

static void tm_collectives(const struct tm_arg *a, int r)
{
    int in = a->rank * TM_THREADS + a->thread + r, sum = -1, root = r % a->size;
    MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, a->comm);
    int want = a->size * (a->thread + r) + TM_THREADS * a->size * (a->size - 1) / 2;
    CHECK(sum == want, "thread %d round %d: Allreduce %d want %d", a->thread, r, sum, want);
    int b[3] = {-1, -1, -1};
    if (a->rank == root)
        b[0] = root, b[1] = a->thread, b[2] = r;
    MPI_Bcast(b, 3, MPI_INT, root, a->comm);
    CHECK(b[0] == root && b[1] == a->thread && b[2] == r, "thread %d round %d: Bcast %d/%d/%d",
          a->thread, r, b[0], b[1], b[2]);
    if (r % 4 == 0)
        MPI_Barrier(a->comm);
}

static void *tm_worker(void *p)
{
    const struct tm_arg *a = p;
    int *sbuf = mt_malloc(sizeof(int) * TM_BIG), *rbuf = mt_malloc(sizeof(int) * TM_BIG);
    if (a->thread != 0) {
        int flag = 1;
        MPI_Is_thread_main(&flag);
        CHECK(!flag, "Is_thread_main true in a helper thread");
    }
    for (int r = 0; r < a->rounds; r++) {
        if (a->peer < a->size) {
            tm_pt2pt(a, r, sbuf, rbuf);
            if (r % 5 == 0)
                tm_probe(a, r, sbuf, rbuf);
        }
        if (r % 3 == 0)
            tm_collectives(a, r);
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
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    CHECK(rounds > 0, "usage: thread_multiple [ROUNDS]");
    struct tm_arg a[TM_THREADS];
    pthread_t th[TM_THREADS];
    for (int t = 0; t < TM_THREADS; t++) {
        a[t] = (struct tm_arg){rank, size, rank ^ 1, t, rounds, MPI_COMM_NULL};
        MPI_Comm_dup(MPI_COMM_WORLD, &a[t].comm);
    }
    for (int t = 1; t < TM_THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, tm_worker, &a[t]) == 0, "pthread_create");
    tm_worker(&a[0]);
    for (int t = 1; t < TM_THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < TM_THREADS; t++)
        MPI_Comm_free(&a[t].comm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("thread_multiple: %d ranks x %d threads x %d rounds: OK\n", size, TM_THREADS,
               rounds);
    MPI_Finalize();
    return 0;
}

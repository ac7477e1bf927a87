/* Request objects under MPI_THREAD_MULTIPLE: 4 threads per rank, each with
 * its own duplicate of MPI_COMM_WORLD, exchange rounds with the same
 * thread on the partner rank (ranks pair up (0,1), (2,3), ...).  A round:
 *   - Irecv of every message of the round, two Irecvs that are cancelled;
 *   - Isend of KS messages (sizes from 0 B to rendezvous) and one Isend
 *     released at once with MPI_Request_free (its buffer is never written
 *     again, so the partner can check its bytes);
 *   - the KS send requests go to the next thread of the rank, which
 *     completes them (Waitall or a Testall loop): requests made on one
 *     thread are freed on another;
 *   - the receives complete by Waitall, a Test loop or Waitany in turn;
 *     every status (source, tag, count) and every byte is checked, the
 *     cancelled receives read as cancelled, and the handle of a completed
 *     request is rejected with MPI_ERR_REQUEST, also while a newer request
 *     (likely on the same object) is live.
 *   request_threads [ROUNDS]   (default 100) */
#include "mpitest.h"
#include <pthread.h>

#define RT_THREADS 4
#define RT_KS 6 /* messages per round and thread, freed-at-once one aside */
#define RT_FREED_TAG 500
#define RT_CANCEL_TAG 999
#define RT_FREED_BYTES 3000

static const int rt_sizes[RT_KS] = {0, 8, 120, 1500, 16384, 70000};

struct rt_shared {
    pthread_barrier_t barrier;
    MPI_Request mailbox[RT_THREADS][RT_KS]; /* sends to complete, per thread */
};

struct rt_arg {
    struct rt_shared *sh;
    int rank, peer, thread, rounds;
    MPI_Comm comm;
};

static unsigned rt_seed(int rank, int thread, int round, int k)
{
    return (unsigned)(((rank * RT_THREADS + thread) * 100000 + round) * (RT_KS + 1) + k);
}

static int rt_size(int round, int k)
{
    return rt_sizes[(round + k) % RT_KS];
}

/* Status and bytes of receive k of round r. */
static void rt_check_recv(const struct rt_arg *a, int r, int k, const MPI_Status *st,
                          const unsigned char *buf)
{
    int want = rt_size(r, k);
    CHECK(st->MPI_SOURCE == a->peer && st->MPI_TAG == k, "thread %d round %d recv %d: status %d/%d",
          a->thread, r, k, st->MPI_SOURCE, st->MPI_TAG);
    CHECK(mt_status_count(st, MPI_BYTE) == want, "thread %d round %d recv %d: count %d want %d",
          a->thread, r, k, mt_status_count(st, MPI_BYTE), want);
    size_t bad = mt_verify(buf, (size_t)want, rt_seed(a->peer, a->thread, r, k));
    CHECK(bad == MT_OK, "thread %d round %d recv %d: byte %zu wrong", a->thread, r, k, bad);
}

/* Completes the KS receives of round r, by a different call each round. */
static void rt_complete_recvs(const struct rt_arg *a, int r, MPI_Request *req,
                              unsigned char **rbuf)
{
    MPI_Status st[RT_KS];
    if (r % 3 == 0) {
        CHECK(MPI_Waitall(RT_KS, req, st) == MPI_SUCCESS, "Waitall failed");
        for (int k = 0; k < RT_KS; k++)
            rt_check_recv(a, r, k, &st[k], rbuf[k]);
    } else if (r % 3 == 1) {
        for (int k = 0; k < RT_KS; k++) {
            int flag = 0;
            while (!flag)
                CHECK(MPI_Test(&req[k], &flag, &st[k]) == MPI_SUCCESS, "Test failed");
            rt_check_recv(a, r, k, &st[k], rbuf[k]);
        }
    } else {
        for (int n = 0; n < RT_KS; n++) {
            int k = -1;
            MPI_Status one;
            CHECK(MPI_Waitany(RT_KS, req, &k, &one) == MPI_SUCCESS && k >= 0 && k < RT_KS,
                  "Waitany gave %d", k);
            rt_check_recv(a, r, k, &one, rbuf[k]);
        }
    }
    for (int k = 0; k < RT_KS; k++)
        CHECK(req[k] == MPI_REQUEST_NULL, "thread %d round %d: recv %d handle left", a->thread, r,
              k);
}

/* Completes the sends another thread of this rank left in our mailbox. */
static void rt_complete_mailbox(const struct rt_arg *a, int r)
{
    MPI_Request *box = a->sh->mailbox[a->thread];
    if (r % 2 == 0) {
        CHECK(MPI_Waitall(RT_KS, box, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall sends");
    } else {
        int flag = 0;
        while (!flag)
            CHECK(MPI_Testall(RT_KS, box, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
                  "Testall sends");
    }
    for (int k = 0; k < RT_KS; k++)
        CHECK(box[k] == MPI_REQUEST_NULL, "thread %d round %d: send %d handle left", a->thread, r,
              k);
}

/* An Irecv that nothing matches, cancelled; *handle keeps its handle. */
static void rt_cancelled_recv(const struct rt_arg *a, int r, MPI_Request *handle)
{
    char dummy[8];
    MPI_Request req;
    MPI_Status st;
    int cancelled = 0;
    MPI_Irecv(dummy, sizeof dummy, MPI_BYTE, a->peer, RT_CANCEL_TAG, a->comm, &req);
    *handle = req;
    CHECK(MPI_Cancel(&req) == MPI_SUCCESS, "Cancel failed");
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "Wait on cancelled failed");
    CHECK(req == MPI_REQUEST_NULL, "cancelled request's handle left");
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled, "thread %d round %d: receive not cancelled", a->thread, r);
}

/* A handle whose request completed names nothing any more. */
static void rt_check_stale(const struct rt_arg *a, int r, MPI_Request stale)
{
    int flag = -1;
    int rc = MPI_Test(&stale, &flag, MPI_STATUS_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "thread %d round %d: stale handle 0x%x gave %s",
          a->thread, r, (unsigned)stale, mt_errstr(rc));
}

/* Two cancelled receives in a row: the second likely reuses the first's
 * object, and the first's handle must still be rejected while the second
 * is live (a recycled handle would name the wrong request). */
static void rt_cancel_and_reuse(const struct rt_arg *a, int r)
{
    MPI_Request first, second, live;
    MPI_Status st;
    int cancelled = 0;
    rt_cancelled_recv(a, r, &first);
    char dummy[8];
    MPI_Irecv(dummy, sizeof dummy, MPI_BYTE, a->peer, RT_CANCEL_TAG, a->comm, &live);
    rt_check_stale(a, r, first);
    second = live;
    CHECK(MPI_Cancel(&live) == MPI_SUCCESS && MPI_Wait(&live, &st) == MPI_SUCCESS,
          "cancel of the second receive");
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled, "thread %d round %d: second receive not cancelled", a->thread, r);
    rt_check_stale(a, r, second);
}

static void rt_round(const struct rt_arg *a, int r, unsigned char **sbuf, unsigned char **rbuf,
                     const unsigned char *freed_out, unsigned char *freed_in)
{
    MPI_Request rreq[RT_KS], sreq[RT_KS], freed_rreq, freed_sreq;
    MPI_Status st;
    for (int k = 0; k < RT_KS; k++)
        MPI_Irecv(rbuf[k], rt_size(r, k), MPI_BYTE, a->peer, k, a->comm, &rreq[k]);
    MPI_Irecv(freed_in, RT_FREED_BYTES, MPI_BYTE, a->peer, RT_FREED_TAG, a->comm, &freed_rreq);
    rt_cancel_and_reuse(a, r);
    for (int k = 0; k < RT_KS; k++) {
        mt_fill(sbuf[k], (size_t)rt_size(r, k), rt_seed(a->rank, a->thread, r, k));
        MPI_Isend(sbuf[k], rt_size(r, k), MPI_BYTE, a->peer, k, a->comm, &sreq[k]);
    }
    MPI_Isend(freed_out, RT_FREED_BYTES, MPI_BYTE, a->peer, RT_FREED_TAG, a->comm, &freed_sreq);
    CHECK(MPI_Request_free(&freed_sreq) == MPI_SUCCESS && freed_sreq == MPI_REQUEST_NULL,
          "Request_free of an active send");
    memcpy(a->sh->mailbox[(a->thread + 1) % RT_THREADS], sreq, sizeof sreq);
    pthread_barrier_wait(&a->sh->barrier);

    rt_complete_mailbox(a, r);
    MPI_Request stale = rreq[0];
    rt_complete_recvs(a, r, rreq, rbuf);
    rt_check_stale(a, r, stale);
    CHECK(MPI_Wait(&freed_rreq, &st) == MPI_SUCCESS, "Wait freed-send receive");
    CHECK(st.MPI_SOURCE == a->peer && mt_status_count(&st, MPI_BYTE) == RT_FREED_BYTES,
          "thread %d round %d: freed send arrived as %d bytes from %d", a->thread, r,
          mt_status_count(&st, MPI_BYTE), st.MPI_SOURCE);
    CHECK(mt_verify(freed_in, RT_FREED_BYTES, rt_seed(a->peer, a->thread, 0, RT_KS)) == MT_OK,
          "thread %d round %d: freed send's bytes wrong", a->thread, r);
    pthread_barrier_wait(&a->sh->barrier); /* mailboxes empty again */
}

static void *rt_thread(void *p)
{
    struct rt_arg *a = p;
    unsigned char *sbuf[RT_KS], *rbuf[RT_KS];
    for (int k = 0; k < RT_KS; k++) {
        sbuf[k] = mt_malloc(rt_sizes[RT_KS - 1]);
        rbuf[k] = mt_malloc(rt_sizes[RT_KS - 1]);
    }
    /* Written once: the sends released with MPI_Request_free read it. */
    unsigned char *freed_out = mt_malloc(RT_FREED_BYTES), *freed_in = mt_malloc(RT_FREED_BYTES);
    mt_fill(freed_out, RT_FREED_BYTES, rt_seed(a->rank, a->thread, 0, RT_KS));
    for (int r = 0; r < a->rounds; r++)
        rt_round(a, r, sbuf, rbuf, freed_out, freed_in);
    /* Every released send has been received, so its buffer is free. */
    MPI_Barrier(a->comm);
    for (int k = 0; k < RT_KS; k++) {
        free(sbuf[k]);
        free(rbuf[k]);
    }
    free(freed_out);
    free(freed_in);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rounds = argc > 1 ? atoi(argv[1]) : 100;
    int peer = rank ^ 1;
    static struct rt_shared sh;
    struct rt_arg args[RT_THREADS];
    pthread_t tid[RT_THREADS];
    MPI_Comm comms[RT_THREADS];
    for (int t = 0; t < RT_THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    if (peer < size) {
        pthread_barrier_init(&sh.barrier, NULL, RT_THREADS);
        for (int t = 0; t < RT_THREADS; t++) {
            args[t] = (struct rt_arg){&sh, rank, peer, t, rounds, comms[t]};
            CHECK(pthread_create(&tid[t], NULL, rt_thread, &args[t]) == 0, "pthread_create");
        }
        for (int t = 0; t < RT_THREADS; t++)
            pthread_join(tid[t], NULL);
        pthread_barrier_destroy(&sh.barrier);
    }
    for (int t = 0; t < RT_THREADS; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("request_threads: %d rounds x %d threads OK\n", rounds, RT_THREADS);
    MPI_Finalize();
    return 0;
}

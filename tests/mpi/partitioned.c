/*
 * Partitioned point-to-point (MPI-4.0 chapter 4) on a ring: each rank sends
 * to rank+1 and receives from rank-1 (itself on one rank).  Proves:
 * - every byte and the status (source, tag, count) of several rounds of
 *   one request pair, restarted with MPI_Start / MPI_Startall and completed
 *   with MPI_Wait / MPI_Waitall / MPI_Test, eager and rendezvous sizes;
 * - a partition leaves as soon as it is ready: the sender readies one
 *   partition at a time and waits until the receiver has seen it with
 *   MPI_Parrived (which it could not if partitions waited for each other),
 *   while partitions not yet ready are not arrived;
 * - send and receive sides cut into different partition counts: a receive
 *   partition arrives exactly when the send partitions it overlaps did;
 * - non-contiguous datatypes (a vector with gaps the receiver keeps);
 * - MPI_Pready_range and MPI_Pready_list;
 * - matching in init order per (source, tag), whatever order rounds start
 *   in, and never with plain point-to-point of the same tag;
 * - threads (MPI_THREAD_MULTIPLE) each filling and readying their own
 *   partitions of one request while the main thread watches arrivals;
 * - MPI_PROC_NULL, zero partitions, truncation (MPI_ERR_TRUNCATE);
 * - bad input gets its class: MPI_Pready on an inactive or receive request
 *   (MPI_ERR_REQUEST), a partition out of range or readied twice
 *   (MPI_ERR_ARG), wildcards at MPI_Precv_init (MPI_ERR_RANK / _TAG).
 */
#include <pthread.h>

#include "mpitest.h"

#define TAG_PART 7
#define TAG_ACK 8

static int rank, size, next, prev;

/* Value of element k of round r sent by rank s. */
static int part_value(int s, int r, long k) { return s * 1000003 + r * 7919 + (int)k; }

/* Sender splits n elements into sparts, receiver into rparts; the sender
 * readies partitions last to first; bytes and statuses of each round are
 * checked. */
static void pt_exchange(int sparts, int rparts, long n, int rounds, int use_startall)
{
    int *sbuf = mt_malloc((size_t)n * sizeof(int));
    int *rbuf = mt_malloc((size_t)n * sizeof(int));
    MPI_Request req[2];
    CHECK(MPI_Psend_init(sbuf, sparts, n / sparts, MPI_INT, next, TAG_PART, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[0]) == MPI_SUCCESS, "psend_init");
    CHECK(MPI_Precv_init(rbuf, rparts, n / rparts, MPI_INT, prev, TAG_PART, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[1]) == MPI_SUCCESS, "precv_init");
    for (int r = 0; r < rounds; r++) {
        for (long k = 0; k < n; k++) {
            sbuf[k] = part_value(rank, r, k);
            rbuf[k] = -1;
        }
        if (use_startall) {
            CHECK(MPI_Startall(2, req) == MPI_SUCCESS, "startall");
        } else {
            CHECK(MPI_Start(&req[1]) == MPI_SUCCESS, "start recv");
            CHECK(MPI_Start(&req[0]) == MPI_SUCCESS, "start send");
        }
        for (int i = sparts - 1; i >= 0; i--)
            CHECK(MPI_Pready(i, req[0]) == MPI_SUCCESS, "pready %d", i);
        MPI_Status st[2];
        if (r % 2 == 0) {
            CHECK(MPI_Waitall(2, req, st) == MPI_SUCCESS, "waitall");
        } else {
            int flag = 0;
            while (!flag)
                CHECK(MPI_Test(&req[1], &flag, &st[1]) == MPI_SUCCESS, "test");
            CHECK(MPI_Wait(&req[0], &st[0]) == MPI_SUCCESS, "wait send");
        }
        CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL, "persistent");
        CHECK(st[1].MPI_SOURCE == prev && st[1].MPI_TAG == TAG_PART,
              "status source %d tag %d", st[1].MPI_SOURCE, st[1].MPI_TAG);
        CHECK(mt_status_count(&st[1], MPI_INT) == (int)n, "count %d of %ld",
              mt_status_count(&st[1], MPI_INT), n);
        for (long k = 0; k < n; k++)
            CHECK(rbuf[k] == part_value(prev, r, k), "round %d element %ld: %d", r, k, rbuf[k]);
        for (int j = 0; j < rparts; j++) {
            int flag = 0;
            CHECK(MPI_Parrived(req[1], j, &flag) == MPI_SUCCESS && flag, "inactive arrived");
        }
    }
    CHECK(MPI_Request_free(&req[0]) == MPI_SUCCESS && req[0] == MPI_REQUEST_NULL, "free");
    CHECK(MPI_Request_free(&req[1]) == MPI_SUCCESS, "free recv");
    free(sbuf);
    free(rbuf);
}

/* Receiver partition j of rparts covers send partitions [lo, hi]. */
static int covered(int j, int sparts, int rparts, const int *ready)
{
    long n = (long)sparts * rparts; /* elements, in units that divide both */
    long first = j * (n / rparts), last = (j + 1) * (n / rparts) - 1;
    for (long s = first / (n / sparts); s <= last / (n / sparts); s++)
        if (!ready[s])
            return 0;
    return 1;
}

/* One partition at a time, in a scrambled order: the sender readies it and
 * waits for the receiver's word that MPI_Parrived saw every receive
 * partition it completes, and no other. */
static void pt_ready_order(int sparts, int rparts, long unit)
{
    long n = (long)sparts * rparts * unit;
    int *sbuf = mt_malloc((size_t)n * sizeof(int));
    int *rbuf = mt_malloc((size_t)n * sizeof(int));
    int ready[64] = {0};
    MPI_Request sreq, rreq;
    for (long k = 0; k < n; k++) {
        sbuf[k] = part_value(rank, 99, k);
        rbuf[k] = -1;
    }
    CHECK(MPI_Psend_init(sbuf, sparts, n / sparts, MPI_INT, next, TAG_PART, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &sreq) == MPI_SUCCESS, "psend_init");
    CHECK(MPI_Precv_init(rbuf, rparts, n / rparts, MPI_INT, prev, TAG_PART, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &rreq) == MPI_SUCCESS, "precv_init");
    CHECK(MPI_Start(&sreq) == MPI_SUCCESS && MPI_Start(&rreq) == MPI_SUCCESS, "start");
    for (int step = 0; step < sparts; step++) {
        int i = (step * 5 + 3) % sparts; /* 5 is prime to every count used */
        CHECK(MPI_Pready(i, sreq) == MPI_SUCCESS, "pready %d", i);
        /* As receiver, this rank waits until the partitions its sender
         * (prev) has readied so far arrived and checks the others have
         * not; prev readies no more until this rank says so. */
        ready[i] = 1;
        for (int j = 0; j < rparts; j++) {
            int flag = 0;
            if (covered(j, sparts, rparts, ready)) {
                while (!flag)
                    CHECK(MPI_Parrived(rreq, j, &flag) == MPI_SUCCESS, "parrived");
                long per = n / rparts;
                for (long k = j * per; k < (j + 1) * per; k++)
                    CHECK(rbuf[k] == part_value(prev, 99, k), "partition %d element %ld", j, k);
            } else {
                CHECK(MPI_Parrived(rreq, j, &flag) == MPI_SUCCESS, "parrived");
                CHECK(!flag, "receive partition %d arrived before its data was ready", j);
            }
        }
        CHECK(MPI_Send(&i, 1, MPI_INT, prev, TAG_ACK, MPI_COMM_WORLD) == MPI_SUCCESS, "ack");
        int got = -1;
        CHECK(MPI_Recv(&got, 1, MPI_INT, next, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                      MPI_SUCCESS && got == i, "ack %d for step %d", got, i);
    }
    MPI_Status st;
    CHECK(MPI_Wait(&rreq, &st) == MPI_SUCCESS && MPI_Wait(&sreq, MPI_STATUS_IGNORE) == 0, "wait");
    CHECK(mt_status_count(&st, MPI_INT) == (int)n, "count");
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
    free(sbuf);
    free(rbuf);
}

/* A vector with gaps on the sender (every other int) and on the receiver
 * (ints in pairs, one gap int after each pair), in different partition
 * counts: the data lands in the receiver's layout, its gaps untouched. */
enum { NC_SPARTS = 3, NC_RPARTS = 2, NC_N = 480 }; /* NC_N ints of data */
#define NC_SPER (NC_N / NC_SPARTS) /* ints per send partition */
#define NC_RPER (NC_N / NC_RPARTS)
#define NC_SEXT (2 * NC_SPER - 1)      /* ints of one send partition's extent */
#define NC_REXT (3 * NC_RPER / 2 - 1)  /* and of a receive partition's */

/* Where stream int e lives in the send and in the receive buffer. */
static int nc_send_at(int e) { return e / NC_SPER * NC_SEXT + 2 * (e % NC_SPER); }
static int nc_recv_at(int e)
{
    int w = e % NC_RPER;
    return e / NC_RPER * NC_REXT + 3 * (w / 2) + w % 2;
}

static void nc_check_recv(const int *rbuf, int round, int j_lo, int j_hi)
{
    for (int e = j_lo * NC_RPER; e < (j_hi + 1) * NC_RPER; e++)
        CHECK(rbuf[nc_recv_at(e)] == part_value(prev, round, e), "round %d int %d", round, e);
}

static void pt_noncontig(void)
{
    MPI_Datatype every_other, pairs;
    CHECK(MPI_Type_vector(NC_SPER, 1, 2, MPI_INT, &every_other) == 0, "vector");
    CHECK(MPI_Type_commit(&every_other) == MPI_SUCCESS, "commit");
    CHECK(MPI_Type_vector(NC_RPER / 2, 2, 3, MPI_INT, &pairs) == 0, "vector");
    CHECK(MPI_Type_commit(&pairs) == MPI_SUCCESS, "commit");
    MPI_Aint lb, ext;
    MPI_Type_get_extent(every_other, &lb, &ext);
    CHECK(ext == NC_SEXT * (MPI_Aint)sizeof(int), "send extent %ld", (long)ext);
    MPI_Type_get_extent(pairs, &lb, &ext);
    CHECK(ext == NC_REXT * (MPI_Aint)sizeof(int), "recv extent %ld", (long)ext);
    int ns = NC_SEXT * NC_SPARTS, nr = NC_REXT * NC_RPARTS;
    int *sbuf = mt_malloc((size_t)ns * sizeof(int));
    int *rbuf = mt_malloc((size_t)nr * sizeof(int));
    MPI_Request req[2];
    CHECK(MPI_Psend_init(sbuf, NC_SPARTS, 1, every_other, next, TAG_PART, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[0]) == 0, "psend_init");
    CHECK(MPI_Precv_init(rbuf, NC_RPARTS, 1, pairs, prev, TAG_PART, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[1]) == 0, "precv_init");
    /* The types can go: the requests keep what they need. */
    MPI_Type_free(&every_other);
    MPI_Type_free(&pairs);
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < ns; k++)
            sbuf[k] = -7;
        for (int e = 0; e < NC_N; e++)
            sbuf[nc_send_at(e)] = part_value(rank, round, e);
        for (int k = 0; k < nr; k++)
            rbuf[k] = -5;
        CHECK(MPI_Startall(2, req) == MPI_SUCCESS, "startall");
        CHECK(MPI_Pready(1, req[0]) == MPI_SUCCESS, "pready");
        CHECK(MPI_Pready_range(0, 0, req[0]) == MPI_SUCCESS, "pready_range");
        /* Send partitions 0 and 1 cover receive partition 0 (ints 0..239
         * of 0..319): MPI_Parrived sees it and unpacks it at once. */
        int flag = 0;
        while (!flag)
            CHECK(MPI_Parrived(req[1], 0, &flag) == MPI_SUCCESS, "parrived");
        nc_check_recv(rbuf, round, 0, 0);
        CHECK(MPI_Pready(2, req[0]) == MPI_SUCCESS, "pready");
        MPI_Status st[2];
        CHECK(MPI_Waitall(2, req, st) == MPI_SUCCESS, "waitall");
        nc_check_recv(rbuf, round, 0, NC_RPARTS - 1);
        int data = 0;
        for (int k = 0; k < nr; k++)
            data += rbuf[k] != -5;
        CHECK(data == NC_N, "round %d: %d ints written, %d of data", round, data, NC_N);
        int count = -1;
        MPI_Get_count(&st[1], MPI_INT, &count);
        CHECK(count == NC_N, "count %d", count);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    free(sbuf);
    free(rbuf);
}

/* MPI_Pready_list readies what it lists, in its order. */
static void pt_ready_list(void)
{
    enum { PARTS = 6, PER = 3000 }; /* 12 KB partitions */
    int *sbuf = mt_malloc(PARTS * PER * sizeof(int));
    int *rbuf = mt_malloc(PARTS * PER * sizeof(int));
    for (int k = 0; k < PARTS * PER; k++) {
        sbuf[k] = part_value(rank, 5, k);
        rbuf[k] = -1;
    }
    MPI_Request req[2];
    CHECK(MPI_Precv_init(rbuf, PARTS, PER, MPI_INT, prev, TAG_PART, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[1]) == 0, "precv_init");
    CHECK(MPI_Psend_init(sbuf, PARTS, PER, MPI_INT, next, TAG_PART, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[0]) == 0, "psend_init");
    CHECK(MPI_Startall(2, req) == MPI_SUCCESS, "startall");
    int first[] = {4, 1, 5};
    int rest[] = {0, 3, 2};
    CHECK(MPI_Pready_list(3, first, req[0]) == MPI_SUCCESS, "pready_list");
    for (int j = 0; j < 3; j++) {
        int flag = 0;
        while (!flag)
            CHECK(MPI_Parrived(req[1], first[j], &flag) == MPI_SUCCESS, "parrived");
    }
    CHECK(MPI_Pready_list(3, rest, req[0]) == MPI_SUCCESS, "pready_list");
    CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall");
    for (int k = 0; k < PARTS * PER; k++)
        CHECK(rbuf[k] == part_value(prev, 5, k), "element %d", k);
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    free(sbuf);
    free(rbuf);
}

/* Two channels with one (peer, tag) pair match in init order even when
 * the receiver starts the second first; a plain receive of any tag posted
 * all along gets only the plain message sent after them. */
static void pt_init_order(void)
{
    int sa[4], sb[4], ra[4], rb[4], plain_in = -1, plain_out = rank + 500;
    MPI_Request sreq[2], rreq[2], plain;
    CHECK(MPI_Irecv(&plain_in, 1, MPI_INT, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &plain) == 0,
          "irecv");
    for (int k = 0; k < 4; k++) {
        sa[k] = part_value(rank, 1, k);
        sb[k] = part_value(rank, 2, k);
        ra[k] = rb[k] = -1;
    }
    CHECK(MPI_Psend_init(sa, 2, 2, MPI_INT, next, TAG_PART, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &sreq[0]) == 0, "psend a");
    CHECK(MPI_Psend_init(sb, 4, 1, MPI_INT, next, TAG_PART, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &sreq[1]) == 0, "psend b");
    CHECK(MPI_Precv_init(ra, 1, 4, MPI_INT, prev, TAG_PART, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &rreq[0]) == 0, "precv a");
    CHECK(MPI_Precv_init(rb, 2, 2, MPI_INT, prev, TAG_PART, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &rreq[1]) == 0, "precv b");
    CHECK(MPI_Start(&rreq[1]) == 0 && MPI_Start(&sreq[1]) == 0, "start b");
    CHECK(MPI_Pready_range(0, 3, sreq[1]) == 0, "pready b");
    CHECK(MPI_Wait(&rreq[1], MPI_STATUS_IGNORE) == 0, "wait b");
    CHECK(MPI_Start(&sreq[0]) == 0 && MPI_Start(&rreq[0]) == 0, "start a");
    CHECK(MPI_Pready_range(0, 1, sreq[0]) == 0, "pready a");
    CHECK(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE) == 0, "wait sends");
    CHECK(MPI_Wait(&rreq[0], MPI_STATUS_IGNORE) == 0, "wait a");
    for (int k = 0; k < 4; k++)
        CHECK(ra[k] == part_value(prev, 1, k) && rb[k] == part_value(prev, 2, k),
              "element %d: a %d b %d", k, ra[k], rb[k]);
    /* Had the plain receive matched an announcement or a partition, it
     * would hold other bytes, or fail truncated. */
    MPI_Status st;
    CHECK(MPI_Send(&plain_out, 1, MPI_INT, next, TAG_PART, MPI_COMM_WORLD) == 0, "send");
    CHECK(MPI_Wait(&plain, &st) == 0 && plain_in == prev + 500, "plain %d", plain_in);
    CHECK(st.MPI_TAG == TAG_PART && mt_status_count(&st, MPI_INT) == 1, "plain status");
    for (int k = 0; k < 2; k++) {
        MPI_Request_free(&sreq[k]);
        MPI_Request_free(&rreq[k]);
    }
}

/* MPI_PROC_NULL and zero partitions complete at once; a receiver too
 * small gets MPI_ERR_TRUNCATE and the bytes that fit. */
static void pt_edges(void)
{
    MPI_Request req[2];
    MPI_Status st;
    int x[4] = {0};
    CHECK(MPI_Psend_init(x, 4, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req[0]) == 0, "psend null");
    CHECK(MPI_Precv_init(x, 2, 2, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req[1]) == 0, "precv null");
    CHECK(MPI_Startall(2, req) == 0 && MPI_Pready_range(0, 3, req[0]) == 0, "start null");
    CHECK(MPI_Wait(&req[1], &st) == 0 && st.MPI_SOURCE == MPI_PROC_NULL &&
              mt_status_count(&st, MPI_INT) == 0,
          "proc_null status");
    CHECK(MPI_Wait(&req[0], MPI_STATUS_IGNORE) == 0, "wait null send");
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);

    CHECK(MPI_Psend_init(NULL, 0, 5, MPI_INT, next, TAG_PART, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req[0]) == 0, "psend zero");
    CHECK(MPI_Precv_init(NULL, 0, 5, MPI_INT, prev, TAG_PART, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req[1]) == 0, "precv zero");
    CHECK(MPI_Startall(2, req) == 0, "start zero");
    CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == 0, "wait zero");
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);

    int s[8], r[6];
    for (int k = 0; k < 8; k++)
        s[k] = part_value(rank, 3, k);
    CHECK(MPI_Psend_init(s, 4, 2, MPI_INT, next, TAG_PART, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req[0]) == 0, "psend");
    CHECK(MPI_Precv_init(r, 3, 2, MPI_INT, prev, TAG_PART, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req[1]) == 0, "precv");
    CHECK(MPI_Startall(2, req) == 0 && MPI_Pready_range(0, 3, req[0]) == 0, "start");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Wait(&req[1], &st);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "truncation gave %s", mt_errstr(rc));
    for (int k = 0; k < 6; k++)
        CHECK(r[k] == part_value(prev, 3, k), "element %d", k);
    CHECK(MPI_Wait(&req[0], MPI_STATUS_IGNORE) == 0, "send of the truncated");
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
}

/* Threads that fill and ready their own partitions (every NTHREADS-th). */
enum { NTHREADS = 4, TPARTS = 16, TPER = 2048 };
typedef struct ready_thread {
    pthread_t id;
    int first;
    int *sbuf;
    MPI_Request req;
} ready_thread_t;

static void *ready_main(void *arg)
{
    ready_thread_t *t = arg;
    for (int i = t->first; i < TPARTS; i += NTHREADS) {
        for (int k = i * TPER; k < (i + 1) * TPER; k++)
            t->sbuf[k] = part_value(rank, 77, k);
        CHECK(MPI_Pready(i, t->req) == MPI_SUCCESS, "thread pready %d", i);
    }
    return NULL;
}

static void pt_threads(void)
{
    int *sbuf = mt_malloc(TPARTS * TPER * sizeof(int));
    int *rbuf = mt_malloc(TPARTS * TPER * sizeof(int));
    for (int k = 0; k < TPARTS * TPER; k++)
        rbuf[k] = -1;
    MPI_Request req[2];
    CHECK(MPI_Psend_init(sbuf, TPARTS, TPER, MPI_INT, next, TAG_PART, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[0]) == 0, "psend_init");
    CHECK(MPI_Precv_init(rbuf, TPARTS / 2, 2 * TPER, MPI_INT, prev, TAG_PART,
                         MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]) == 0, "precv_init");
    CHECK(MPI_Startall(2, req) == 0, "startall");
    ready_thread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        th[t] = (ready_thread_t){.first = t, .sbuf = sbuf, .req = req[0]};
        CHECK(pthread_create(&th[t].id, NULL, ready_main, &th[t]) == 0, "thread");
    }
    int left = TPARTS / 2;
    char seen[TPARTS / 2] = {0};
    while (left > 0)
        for (int j = 0; j < TPARTS / 2; j++) {
            int flag = 0;
            if (seen[j])
                continue;
            CHECK(MPI_Parrived(req[1], j, &flag) == MPI_SUCCESS, "parrived");
            if (!flag)
                continue;
            seen[j] = 1;
            left--;
            for (int k = j * 2 * TPER; k < (j + 1) * 2 * TPER; k++)
                CHECK(rbuf[k] == part_value(prev, 77, k), "partition %d element %d", j, k);
        }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t].id, NULL);
    CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == 0, "waitall");
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    free(sbuf);
    free(rbuf);
}

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(mt_class(rc) == cls, "%s: got %s", what, mt_errstr(rc));
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK(MPI_Error_string(rc, text, &len) == MPI_SUCCESS && len > 0, "%s: no text", what);
}

static void pt_bad_input(void)
{
    int buf[8] = {0}, flag = 0;
    MPI_Request sreq, rreq, dummy = MPI_REQUEST_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_class(MPI_Precv_init(buf, 2, 4, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &dummy), MPI_ERR_RANK, "any source");
    expect_class(MPI_Precv_init(buf, 2, 4, MPI_INT, prev, MPI_ANY_TAG, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &dummy), MPI_ERR_TAG, "any tag");
    expect_class(MPI_Psend_init(buf, -1, 4, MPI_INT, next, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &dummy), MPI_ERR_ARG, "negative partitions");
    expect_class(MPI_Psend_init(buf, 2, -4, MPI_INT, next, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &dummy), MPI_ERR_COUNT, "negative count");
    expect_class(MPI_Psend_init(buf, 2, 4, MPI_INT, size, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &dummy), MPI_ERR_RANK, "rank out of range");
    expect_class(MPI_Psend_init(buf, 2, 4, MPI_DATATYPE_NULL, next, 1, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &dummy), MPI_ERR_TYPE, "null type");
    CHECK(dummy == MPI_REQUEST_NULL, "a failed init made a request");

    CHECK(MPI_Psend_init(buf, 2, 4, MPI_INT, next, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &sreq) == 0, "psend");
    CHECK(MPI_Precv_init(buf, 2, 4, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &rreq) == 0, "precv");
    expect_class(MPI_Pready(0, sreq), MPI_ERR_REQUEST, "pready before start");
    expect_class(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST, "pready on null");
    CHECK(MPI_Parrived(rreq, 0, &flag) == 0 && flag, "parrived inactive");
    CHECK(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag) == 0 && flag, "parrived null");
    CHECK(MPI_Start(&sreq) == 0 && MPI_Start(&rreq) == 0, "start");
    expect_class(MPI_Start(&sreq), MPI_ERR_REQUEST, "start twice");
    expect_class(MPI_Pready(2, sreq), MPI_ERR_ARG, "partition 2 of 2");
    expect_class(MPI_Pready(-1, sreq), MPI_ERR_ARG, "partition -1");
    expect_class(MPI_Pready(0, rreq), MPI_ERR_REQUEST, "pready on a receive");
    expect_class(MPI_Pready_range(1, 0, sreq), MPI_ERR_ARG, "range low > high");
    expect_class(MPI_Pready_range(0, 2, sreq), MPI_ERR_ARG, "range past the end");
    int dup[] = {1, 1};
    expect_class(MPI_Pready_list(2, dup, sreq), MPI_ERR_ARG, "listed twice");
    CHECK(MPI_Pready(1, sreq) == 0, "a failed Pready_list readied a partition");
    expect_class(MPI_Pready(1, sreq), MPI_ERR_ARG, "readied twice");
    int past[] = {0, 2};
    expect_class(MPI_Pready_list(2, past, sreq), MPI_ERR_ARG, "listed out of range");
    expect_class(MPI_Parrived(rreq, 2, &flag), MPI_ERR_ARG, "parrived out of range");
    expect_class(MPI_Parrived(sreq, 0, &flag), MPI_ERR_REQUEST, "parrived on a send");
    CHECK(MPI_Pready(0, sreq) == 0, "pready");
    CHECK(MPI_Wait(&sreq, MPI_STATUS_IGNORE) == 0 && MPI_Wait(&rreq, MPI_STATUS_IGNORE) == 0,
          "wait");
    expect_class(MPI_Pready(0, sreq), MPI_ERR_REQUEST, "pready after completion");
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    pt_exchange(8, 8, 8 * 1000, 3, 0);      /* eager partitions */
    pt_exchange(4, 4, 4 * 65536, 2, 1);     /* 256 KiB: rendezvous */
    pt_exchange(4, 6, 12 * 1000, 2, 1);     /* more receive partitions */
    pt_exchange(6, 3, 6 * 20000, 2, 0);     /* fewer, rendezvous */
    pt_exchange(1, 5, 5 * 3, 2, 0);
    pt_ready_order(8, 8, 256);
    pt_ready_order(4, 6, 100);
    pt_ready_order(6, 4, 5000);
    pt_noncontig();
    pt_ready_list();
    pt_init_order();
    if (provided == MPI_THREAD_MULTIPLE)
        pt_threads();
    pt_edges();
    pt_bad_input();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("partitioned: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}

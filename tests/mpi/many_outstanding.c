/* 10,000 outstanding Isend and Irecv per rank pair completed by one Waitall,
 * then the other completion calls: Waitany, Waitsome, Testany, Testsome and
 * Testall, each checked for indices returned exactly once, the data and the
 * statuses, and for their answers on arrays of MPI_REQUEST_NULL.  Ranks pair
 * up (0,1), (2,3), ...; an odd last rank only checks the null-array cases. */
#include "mpitest.h"

#define MO_N 10000
#define MO_K 200

static void mo_check_status(const MPI_Status *st, int peer, int tag, int got, int want)
{
    CHECK(st->MPI_SOURCE == peer, "MPI_SOURCE %d, want %d", st->MPI_SOURCE, peer);
    CHECK(st->MPI_TAG == tag, "MPI_TAG %d, want %d", st->MPI_TAG, tag);
    CHECK(mt_status_count(st, MPI_INT) == 1, "count %d", mt_status_count(st, MPI_INT));
    CHECK(got == want, "payload %d, want %d", got, want);
}

/* Payload i travels with tag i % 100: the k-th receive of a tag must match
 * the k-th send of that tag, so rbuf[i] must be i. */
static void mo_waitall(int peer)
{
    int *sbuf = mt_malloc(sizeof(int) * MO_N);
    int *rbuf = mt_malloc(sizeof(int) * MO_N);
    MPI_Request *req = mt_malloc(sizeof(MPI_Request) * 2 * MO_N);
    MPI_Status *st = mt_malloc(sizeof(MPI_Status) * 2 * MO_N);
    for (int i = 0; i < MO_N; i++) {
        rbuf[i] = -1;
        MPI_Irecv(&rbuf[i], 1, MPI_INT, peer, i % 100, MPI_COMM_WORLD, &req[i]);
    }
    for (int i = 0; i < MO_N; i++) {
        sbuf[i] = i;
        MPI_Isend(&sbuf[i], 1, MPI_INT, peer, i % 100, MPI_COMM_WORLD, &req[MO_N + i]);
    }
    int rc = MPI_Waitall(2 * MO_N, req, st);
    CHECK(rc == MPI_SUCCESS, "Waitall: %s", mt_errstr(rc));
    for (int i = 0; i < MO_N; i++) {
        mo_check_status(&st[i], peer, i % 100, rbuf[i], i);
        CHECK(req[i] == MPI_REQUEST_NULL && req[MO_N + i] == MPI_REQUEST_NULL,
              "request %d not set to MPI_REQUEST_NULL", i);
    }
    free(sbuf);
    free(rbuf);
    free(req);
    free(st);
}

/* Posts MO_K receives with distinct tags and MO_K sends; the peer does the
 * same, so the receives complete in any order. */
static void mo_post(int peer, int *sbuf, int *rbuf, MPI_Request *rreq, MPI_Request *sreq, int base)
{
    for (int i = 0; i < MO_K; i++) {
        rbuf[i] = -1;
        MPI_Irecv(&rbuf[i], 1, MPI_INT, peer, base + i, MPI_COMM_WORLD, &rreq[i]);
    }
    for (int i = MO_K - 1; i >= 0; i--) {
        sbuf[i] = base * 1000 + i;
        MPI_Isend(&sbuf[i], 1, MPI_INT, peer, base + i, MPI_COMM_WORLD, &sreq[i]);
    }
}

static void mo_mark(int *seen, int idx, const MPI_Status *st, const int *rbuf, int peer, int base,
                    const char *fn)
{
    CHECK(idx >= 0 && idx < MO_K, "%s returned index %d", fn, idx);
    CHECK(!seen[idx], "%s returned index %d twice", fn, idx);
    seen[idx] = 1;
    mo_check_status(st, peer, base + idx, rbuf[idx], base * 1000 + idx);
}

/* mode 0 Waitany, 1 Testany, 2 Waitsome, 3 Testsome, 4 Testall. */
static void mo_one_mode(int peer, int mode)
{
    static const char *names[] = {"Waitany", "Testany", "Waitsome", "Testsome", "Testall"};
    int sbuf[MO_K], rbuf[MO_K], seen[MO_K] = {0}, idx[MO_K], done = 0, base = 100 + mode * 300;
    MPI_Request rreq[MO_K], sreq[MO_K];
    MPI_Status st[MO_K];
    mo_post(peer, sbuf, rbuf, rreq, sreq, base);
    while (done < MO_K) {
        int one, flag = 1, n = 0;
        if (mode == 0 || mode == 1) {
            if (mode == 0)
                MPI_Waitany(MO_K, rreq, &one, &st[0]);
            else
                MPI_Testany(MO_K, rreq, &one, &flag, &st[0]);
            if (!flag)
                continue;
            CHECK(one != MPI_UNDEFINED, "%s: MPI_UNDEFINED with %d left", names[mode], MO_K - done);
            CHECK(rreq[one] == MPI_REQUEST_NULL, "%s: request %d not freed", names[mode], one);
            mo_mark(seen, one, &st[0], rbuf, peer, base, names[mode]);
            done++;
            continue;
        }
        if (mode == 4) {
            MPI_Testall(MO_K, rreq, &flag, st);
            if (!flag)
                continue;
            for (int i = 0; i < MO_K; i++)
                mo_mark(seen, i, &st[i], rbuf, peer, base, names[mode]);
            done = MO_K;
            continue;
        }
        if (mode == 2)
            MPI_Waitsome(MO_K, rreq, &n, idx, st);
        else
            MPI_Testsome(MO_K, rreq, &n, idx, st);
        CHECK(n != MPI_UNDEFINED && n >= (mode == 2 ? 1 : 0), "%s: outcount %d", names[mode], n);
        for (int j = 0; j < n; j++)
            mo_mark(seen, idx[j], &st[j], rbuf, peer, base, names[mode]);
        done += n;
    }
    MPI_Waitall(MO_K, sreq, MPI_STATUSES_IGNORE);
}

/* All-null arrays: Waitany/Testany give MPI_UNDEFINED (Testany flag true),
 * Waitsome/Testsome outcount MPI_UNDEFINED, Testall flag true. */
static void mo_null_arrays(void)
{
    MPI_Request req[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[4];
    int idx = 0, flag = 0, n = 0, ids[4];
    MPI_Waitany(4, req, &idx, &st[0]);
    CHECK(idx == MPI_UNDEFINED, "Waitany on nulls gave index %d", idx);
    MPI_Testany(4, req, &idx, &flag, &st[0]);
    CHECK(idx == MPI_UNDEFINED && flag, "Testany on nulls: index %d flag %d", idx, flag);
    MPI_Waitsome(4, req, &n, ids, st);
    CHECK(n == MPI_UNDEFINED, "Waitsome on nulls: outcount %d", n);
    MPI_Testsome(4, req, &n, ids, st);
    CHECK(n == MPI_UNDEFINED, "Testsome on nulls: outcount %d", n);
    flag = 0;
    MPI_Testall(4, req, &flag, st);
    CHECK(flag, "Testall on nulls: flag 0");
    MPI_Waitall(4, req, st);
    MPI_Waitany(0, req, &idx, &st[0]);
    CHECK(idx == MPI_UNDEFINED, "Waitany(count 0) gave %d", idx);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    mo_null_arrays();
    if (peer < size) {
        mo_waitall(peer);
        for (int mode = 0; mode < 5; mode++)
            mo_one_mode(peer, mode);
        mo_waitall(peer);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("many_outstanding: %d outstanding pairs + any/some/all: OK\n", MO_N);
    MPI_Finalize();
    return 0;
}

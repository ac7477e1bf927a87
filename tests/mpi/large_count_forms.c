/* Every large-count (_c) point-to-point and collective call against its
 * int form: each case runs once with the int calls and once with the _c
 * calls on the same small counts, and what arrived (buffers, statuses'
 * counts, sources and tags) must be byte for byte the same, and must have
 * arrived at all (the output differs from its fill).  Collectives run in
 * their blocking, I- and persistent (_init) forms; the neighbourhood ones
 * on a periodic ring. */
#include "mpitest.h"

#define OUT_BYTES 8192
#define FILL 0xEE

static int rank, size, left, right;
static MPI_Comm ring;

/* Ends an operation of mode 1 (I-form) or 2 (_init: start, wait, free). */
static void done(int mode, MPI_Request *r)
{
    if (mode == 2)
        CHECK(MPI_Start(r) == MPI_SUCCESS, "MPI_Start");
    if (mode >= 1)
        CHECK(MPI_Wait(r, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait");
    if (mode == 2)
        MPI_Request_free(r);
}

static void fill(int *v, int n, int base)
{
    for (int i = 0; i < n; i++)
        v[i] = base + i;
}

/* Appends what a status says to out at *at (ints). */
static void note_status(int *out, int *at, const MPI_Status *st)
{
    MPI_Count n = -1;
    MPI_Get_count_c(st, MPI_INT, &n);
    out[(*at)++] = (int)n;
    out[(*at)++] = st->MPI_SOURCE;
    out[(*at)++] = st->MPI_TAG;
}

/* ---- point-to-point (ring: to the right, from the left) ----------------- */

static void p_basic(int w, int mode, int *out)
{
    (void)mode;
    int s[8], at = 16;
    fill(s, 8, rank * 100);
    MPI_Request r;
    MPI_Status st;
    if (w) {
        MPI_Irecv_c(out, 8, MPI_INT, left, 1, MPI_COMM_WORLD, &r);
        MPI_Send_c(s, 5, MPI_INT, right, 1, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(out, 8, MPI_INT, left, 1, MPI_COMM_WORLD, &r);
        MPI_Send(s, 5, MPI_INT, right, 1, MPI_COMM_WORLD);
    }
    MPI_Wait(&r, &st);
    note_status(out, &at, &st);
    if (w) {
        MPI_Isend_c(s, 6, MPI_INT, right, 2, MPI_COMM_WORLD, &r);
        MPI_Recv_c(out + 8, 8, MPI_INT, left, 2, MPI_COMM_WORLD, &st);
    } else {
        MPI_Isend(s, 6, MPI_INT, right, 2, MPI_COMM_WORLD, &r);
        MPI_Recv(out + 8, 8, MPI_INT, left, 2, MPI_COMM_WORLD, &st);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    note_status(out, &at, &st);
}

/* Synchronous and ready modes, blocking and not: the receives are posted
 * (and a barrier passed) before any send starts. */
static void p_modes(int w, int mode, int *out)
{
    (void)mode;
    int s[8], at = 32;
    fill(s, 8, rank * 10 + 1);
    MPI_Request rr[4], sr[2];
    MPI_Status st[4];
    for (int k = 0; k < 4; k++)
        MPI_Irecv(out + 8 * k, 8, MPI_INT, left, 10 + k, MPI_COMM_WORLD, &rr[k]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (w) {
        MPI_Issend_c(s, 3, MPI_INT, right, 12, MPI_COMM_WORLD, &sr[0]);
        MPI_Irsend_c(s, 4, MPI_INT, right, 13, MPI_COMM_WORLD, &sr[1]);
        MPI_Rsend_c(s + 1, 2, MPI_INT, right, 11, MPI_COMM_WORLD);
        MPI_Ssend_c(s + 2, 5, MPI_INT, right, 10, MPI_COMM_WORLD);
    } else {
        MPI_Issend(s, 3, MPI_INT, right, 12, MPI_COMM_WORLD, &sr[0]);
        MPI_Irsend(s, 4, MPI_INT, right, 13, MPI_COMM_WORLD, &sr[1]);
        MPI_Rsend(s + 1, 2, MPI_INT, right, 11, MPI_COMM_WORLD);
        MPI_Ssend(s + 2, 5, MPI_INT, right, 10, MPI_COMM_WORLD);
    }
    MPI_Waitall(2, sr, MPI_STATUSES_IGNORE);
    MPI_Waitall(4, rr, st);
    for (int k = 0; k < 4; k++)
        note_status(out, &at, &st[k]);
}

static void p_buffered(int w, int mode, int *out)
{
    (void)mode;
    int s[8], at = 16;
    fill(s, 8, rank * 7);
    int bytes = 2 * (8 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *buf = mt_malloc((size_t)bytes), *back = NULL;
    MPI_Request r;
    MPI_Status st;
    if (w) {
        MPI_Buffer_attach_c(buf, bytes);
        MPI_Bsend_c(s, 4, MPI_INT, right, 20, MPI_COMM_WORLD);
        MPI_Ibsend_c(s + 1, 5, MPI_INT, right, 21, MPI_COMM_WORLD, &r);
    } else {
        MPI_Buffer_attach(buf, bytes);
        MPI_Bsend(s, 4, MPI_INT, right, 20, MPI_COMM_WORLD);
        MPI_Ibsend(s + 1, 5, MPI_INT, right, 21, MPI_COMM_WORLD, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Recv(out, 8, MPI_INT, left, 20, MPI_COMM_WORLD, &st);
    note_status(out, &at, &st);
    MPI_Recv(out + 8, 8, MPI_INT, left, 21, MPI_COMM_WORLD, &st);
    note_status(out, &at, &st);
    if (w) {
        MPI_Count n = 0;
        MPI_Buffer_detach_c(&back, &n);
        out[at++] = (int)n;
    } else {
        int n = 0;
        MPI_Buffer_detach(&back, &n);
        out[at++] = n;
    }
    CHECK(back == buf, "Buffer_detach gave another buffer");
    free(buf);
}

static void p_persistent(int w, int mode, int *out)
{
    (void)mode;
    int s[8], at = 40;
    fill(s, 8, rank * 3 + 5);
    MPI_Request rr[4], sr[4];
    MPI_Status st[4];
    for (int k = 0; k < 4; k++) {
        if (w)
            MPI_Recv_init_c(out + 8 * k, 8, MPI_INT, left, 30 + k, MPI_COMM_WORLD, &rr[k]);
        else
            MPI_Recv_init(out + 8 * k, 8, MPI_INT, left, 30 + k, MPI_COMM_WORLD, &rr[k]);
    }
    int bytes = 8 * (int)sizeof(int) + MPI_BSEND_OVERHEAD, n;
    void *buf = mt_malloc((size_t)bytes), *back;
    MPI_Buffer_attach(buf, bytes);
    if (w) {
        MPI_Send_init_c(s, 2, MPI_INT, right, 30, MPI_COMM_WORLD, &sr[0]);
        MPI_Ssend_init_c(s, 3, MPI_INT, right, 31, MPI_COMM_WORLD, &sr[1]);
        MPI_Rsend_init_c(s, 4, MPI_INT, right, 32, MPI_COMM_WORLD, &sr[2]);
        MPI_Bsend_init_c(s, 5, MPI_INT, right, 33, MPI_COMM_WORLD, &sr[3]);
    } else {
        MPI_Send_init(s, 2, MPI_INT, right, 30, MPI_COMM_WORLD, &sr[0]);
        MPI_Ssend_init(s, 3, MPI_INT, right, 31, MPI_COMM_WORLD, &sr[1]);
        MPI_Rsend_init(s, 4, MPI_INT, right, 32, MPI_COMM_WORLD, &sr[2]);
        MPI_Bsend_init(s, 5, MPI_INT, right, 33, MPI_COMM_WORLD, &sr[3]);
    }
    MPI_Startall(4, rr);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Startall(4, sr);
    MPI_Waitall(4, sr, MPI_STATUSES_IGNORE);
    MPI_Waitall(4, rr, st);
    for (int k = 0; k < 4; k++) {
        note_status(out, &at, &st[k]);
        MPI_Request_free(&rr[k]);
        MPI_Request_free(&sr[k]);
    }
    MPI_Buffer_detach(&back, &n);
    free(buf);
}

static void p_sendrecv(int w, int mode, int *out)
{
    (void)mode;
    int s[8], at = 32;
    fill(s, 8, rank * 11);
    MPI_Status st[4];
    MPI_Request r[2];
    int *rep = out + 16, *irep = out + 24;
    fill(rep, 6, rank * 13);
    fill(irep, 6, rank * 17);
    if (w) {
        MPI_Sendrecv_c(s, 4, MPI_INT, right, 40, out, 8, MPI_INT, left, 40, MPI_COMM_WORLD,
                       &st[0]);
        MPI_Isendrecv_c(s, 5, MPI_INT, right, 41, out + 8, 8, MPI_INT, left, 41,
                        MPI_COMM_WORLD, &r[0]);
        MPI_Sendrecv_replace_c(rep, 6, MPI_INT, right, 42, left, 42, MPI_COMM_WORLD, &st[2]);
        MPI_Isendrecv_replace_c(irep, 6, MPI_INT, right, 43, left, 43, MPI_COMM_WORLD, &r[1]);
    } else {
        MPI_Sendrecv(s, 4, MPI_INT, right, 40, out, 8, MPI_INT, left, 40, MPI_COMM_WORLD,
                     &st[0]);
        MPI_Isendrecv(s, 5, MPI_INT, right, 41, out + 8, 8, MPI_INT, left, 41, MPI_COMM_WORLD,
                      &r[0]);
        MPI_Sendrecv_replace(rep, 6, MPI_INT, right, 42, left, 42, MPI_COMM_WORLD, &st[2]);
        MPI_Isendrecv_replace(irep, 6, MPI_INT, right, 43, left, 43, MPI_COMM_WORLD, &r[1]);
    }
    MPI_Wait(&r[0], &st[1]);
    MPI_Wait(&r[1], &st[3]);
    for (int k = 0; k < 4; k++)
        note_status(out, &at, &st[k]);
}

static void p_matched(int w, int mode, int *out)
{
    (void)mode;
    int s[8], at = 16, flag = 0;
    fill(s, 8, rank * 19);
    MPI_Request sr[2], r;
    MPI_Message m;
    MPI_Status st;
    MPI_Isend(s, 3, MPI_INT, right, 50, MPI_COMM_WORLD, &sr[0]);
    MPI_Isend(s + 2, 4, MPI_INT, right, 51, MPI_COMM_WORLD, &sr[1]);
    MPI_Mprobe(left, 50, MPI_COMM_WORLD, &m, &st);
    if (w)
        MPI_Mrecv_c(out, 8, MPI_INT, &m, &st);
    else
        MPI_Mrecv(out, 8, MPI_INT, &m, &st);
    note_status(out, &at, &st);
    while (!flag)
        MPI_Improbe(left, 51, MPI_COMM_WORLD, &flag, &m, &st);
    if (w)
        MPI_Imrecv_c(out + 8, 8, MPI_INT, &m, &r);
    else
        MPI_Imrecv(out + 8, 8, MPI_INT, &m, &r);
    MPI_Wait(&r, &st);
    note_status(out, &at, &st);
    MPI_Waitall(2, sr, MPI_STATUSES_IGNORE);
}

/* ---- collectives: mode 0 blocking, 1 I-form, 2 _init ------------------- */

#define W MPI_COMM_WORLD
#define NI MPI_INFO_NULL

static void c_bcast(int w, int m, int *out)
{
    MPI_Request r;
    if (rank == 1 % size)
        fill(out, 7, 500);
    if (w)
        m == 0 ? MPI_Bcast_c(out, 7, MPI_INT, 1 % size, W)
        : m == 1 ? MPI_Ibcast_c(out, 7, MPI_INT, 1 % size, W, &r)
                 : MPI_Bcast_init_c(out, 7, MPI_INT, 1 % size, W, NI, &r);
    else
        m == 0 ? MPI_Bcast(out, 7, MPI_INT, 1 % size, W)
        : m == 1 ? MPI_Ibcast(out, 7, MPI_INT, 1 % size, W, &r)
                 : MPI_Bcast_init(out, 7, MPI_INT, 1 % size, W, NI, &r);
    if (m)
        done(m, &r);
}

/* The counts of a v-collective: rank i's block is i + 2 elements at
 * displacement 10 * i, as ints and as MPI_Count / MPI_Aint. */
static int vc[64], vd[64];
static MPI_Count wc[64];
static MPI_Aint wd[64];

static void c_gather(int w, int m, int *out)
{
    MPI_Request r;
    int s[16];
    fill(s, 16, rank * 100);
    int *v = out + 64;
    if (w) {
        m == 0 ? MPI_Gather_c(s, 3, MPI_INT, out, 3, MPI_INT, 0, W)
        : m == 1 ? MPI_Igather_c(s, 3, MPI_INT, out, 3, MPI_INT, 0, W, &r)
                 : MPI_Gather_init_c(s, 3, MPI_INT, out, 3, MPI_INT, 0, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Gatherv_c(s, rank + 2, MPI_INT, v, wc, wd, MPI_INT, 0, W)
        : m == 1 ? MPI_Igatherv_c(s, rank + 2, MPI_INT, v, wc, wd, MPI_INT, 0, W, &r)
                 : MPI_Gatherv_init_c(s, rank + 2, MPI_INT, v, wc, wd, MPI_INT, 0, W, NI, &r);
    } else {
        m == 0 ? MPI_Gather(s, 3, MPI_INT, out, 3, MPI_INT, 0, W)
        : m == 1 ? MPI_Igather(s, 3, MPI_INT, out, 3, MPI_INT, 0, W, &r)
                 : MPI_Gather_init(s, 3, MPI_INT, out, 3, MPI_INT, 0, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Gatherv(s, rank + 2, MPI_INT, v, vc, vd, MPI_INT, 0, W)
        : m == 1 ? MPI_Igatherv(s, rank + 2, MPI_INT, v, vc, vd, MPI_INT, 0, W, &r)
                 : MPI_Gatherv_init(s, rank + 2, MPI_INT, v, vc, vd, MPI_INT, 0, W, NI, &r);
    }
    done(m, &r);
    if (rank != 0)
        fill(out, 3, 1); /* not significant off the root: make it arrive */
}

static void c_scatter(int w, int m, int *out)
{
    MPI_Request r;
    int s[640];
    fill(s, 640, 7000);
    int *v = out + 64;
    if (w) {
        m == 0 ? MPI_Scatter_c(s, 4, MPI_INT, out, 4, MPI_INT, 0, W)
        : m == 1 ? MPI_Iscatter_c(s, 4, MPI_INT, out, 4, MPI_INT, 0, W, &r)
                 : MPI_Scatter_init_c(s, 4, MPI_INT, out, 4, MPI_INT, 0, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Scatterv_c(s, wc, wd, MPI_INT, v, rank + 2, MPI_INT, 0, W)
        : m == 1 ? MPI_Iscatterv_c(s, wc, wd, MPI_INT, v, rank + 2, MPI_INT, 0, W, &r)
                 : MPI_Scatterv_init_c(s, wc, wd, MPI_INT, v, rank + 2, MPI_INT, 0, W, NI, &r);
    } else {
        m == 0 ? MPI_Scatter(s, 4, MPI_INT, out, 4, MPI_INT, 0, W)
        : m == 1 ? MPI_Iscatter(s, 4, MPI_INT, out, 4, MPI_INT, 0, W, &r)
                 : MPI_Scatter_init(s, 4, MPI_INT, out, 4, MPI_INT, 0, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Scatterv(s, vc, vd, MPI_INT, v, rank + 2, MPI_INT, 0, W)
        : m == 1 ? MPI_Iscatterv(s, vc, vd, MPI_INT, v, rank + 2, MPI_INT, 0, W, &r)
                 : MPI_Scatterv_init(s, vc, vd, MPI_INT, v, rank + 2, MPI_INT, 0, W, NI, &r);
    }
    done(m, &r);
}

static void c_allgather(int w, int m, int *out)
{
    MPI_Request r;
    int s[16];
    fill(s, 16, rank * 100 + 3);
    int *v = out + 64;
    if (w) {
        m == 0 ? MPI_Allgather_c(s, 3, MPI_INT, out, 3, MPI_INT, W)
        : m == 1 ? MPI_Iallgather_c(s, 3, MPI_INT, out, 3, MPI_INT, W, &r)
                 : MPI_Allgather_init_c(s, 3, MPI_INT, out, 3, MPI_INT, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Allgatherv_c(s, rank + 2, MPI_INT, v, wc, wd, MPI_INT, W)
        : m == 1 ? MPI_Iallgatherv_c(s, rank + 2, MPI_INT, v, wc, wd, MPI_INT, W, &r)
                 : MPI_Allgatherv_init_c(s, rank + 2, MPI_INT, v, wc, wd, MPI_INT, W, NI, &r);
    } else {
        m == 0 ? MPI_Allgather(s, 3, MPI_INT, out, 3, MPI_INT, W)
        : m == 1 ? MPI_Iallgather(s, 3, MPI_INT, out, 3, MPI_INT, W, &r)
                 : MPI_Allgather_init(s, 3, MPI_INT, out, 3, MPI_INT, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Allgatherv(s, rank + 2, MPI_INT, v, vc, vd, MPI_INT, W)
        : m == 1 ? MPI_Iallgatherv(s, rank + 2, MPI_INT, v, vc, vd, MPI_INT, W, &r)
                 : MPI_Allgatherv_init(s, rank + 2, MPI_INT, v, vc, vd, MPI_INT, W, NI, &r);
    }
    done(m, &r);
}

/* Alltoall(v,w): to rank j, j + 2 elements from displacement 10 * j. */
static void c_alltoall(int w, int m, int *out)
{
    MPI_Request r;
    int s[640];
    fill(s, 640, rank * 1000);
    int *v = out + 64, *x = out + 64 + 640;
    int bd[64];
    MPI_Aint wbd[64];
    MPI_Datatype ty[64];
    /* What rank j sends here is rank + 2 elements. */
    int rcv[64];
    MPI_Count wrcv[64];
    for (int j = 0; j < size; j++) {
        rcv[j] = rank + 2;
        wrcv[j] = rank + 2;
        bd[j] = 10 * j * (int)sizeof(int);
        wbd[j] = bd[j];
        ty[j] = MPI_INT;
    }
    if (w) {
        m == 0 ? MPI_Alltoall_c(s, 2, MPI_INT, out, 2, MPI_INT, W)
        : m == 1 ? MPI_Ialltoall_c(s, 2, MPI_INT, out, 2, MPI_INT, W, &r)
                 : MPI_Alltoall_init_c(s, 2, MPI_INT, out, 2, MPI_INT, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Alltoallv_c(s, wc, wd, MPI_INT, v, wrcv, wd, MPI_INT, W)
        : m == 1 ? MPI_Ialltoallv_c(s, wc, wd, MPI_INT, v, wrcv, wd, MPI_INT, W, &r)
                 : MPI_Alltoallv_init_c(s, wc, wd, MPI_INT, v, wrcv, wd, MPI_INT, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Alltoallw_c(s, wc, wbd, ty, x, wrcv, wbd, ty, W)
        : m == 1 ? MPI_Ialltoallw_c(s, wc, wbd, ty, x, wrcv, wbd, ty, W, &r)
                 : MPI_Alltoallw_init_c(s, wc, wbd, ty, x, wrcv, wbd, ty, W, NI, &r);
    } else {
        m == 0 ? MPI_Alltoall(s, 2, MPI_INT, out, 2, MPI_INT, W)
        : m == 1 ? MPI_Ialltoall(s, 2, MPI_INT, out, 2, MPI_INT, W, &r)
                 : MPI_Alltoall_init(s, 2, MPI_INT, out, 2, MPI_INT, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Alltoallv(s, vc, vd, MPI_INT, v, rcv, vd, MPI_INT, W)
        : m == 1 ? MPI_Ialltoallv(s, vc, vd, MPI_INT, v, rcv, vd, MPI_INT, W, &r)
                 : MPI_Alltoallv_init(s, vc, vd, MPI_INT, v, rcv, vd, MPI_INT, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Alltoallw(s, vc, bd, ty, x, rcv, bd, ty, W)
        : m == 1 ? MPI_Ialltoallw(s, vc, bd, ty, x, rcv, bd, ty, W, &r)
                 : MPI_Alltoallw_init(s, vc, bd, ty, x, rcv, bd, ty, W, NI, &r);
    }
    done(m, &r);
}

static void c_reduce(int w, int m, int *out)
{
    MPI_Request r;
    int s[64];
    fill(s, 64, rank * 3 + 1);
    int *a = out + 16, *sc = out + 32, *ex = out + 48, *rs = out + 64, *rb = out + 128;
    if (rank != 0)
        fill(out, 6, 1); /* not significant off the root */
    if (w) {
        m == 0 ? MPI_Reduce_c(s, out, 6, MPI_INT, MPI_SUM, 0, W)
        : m == 1 ? MPI_Ireduce_c(s, out, 6, MPI_INT, MPI_SUM, 0, W, &r)
                 : MPI_Reduce_init_c(s, out, 6, MPI_INT, MPI_SUM, 0, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Allreduce_c(s, a, 7, MPI_INT, MPI_MAX, W)
        : m == 1 ? MPI_Iallreduce_c(s, a, 7, MPI_INT, MPI_MAX, W, &r)
                 : MPI_Allreduce_init_c(s, a, 7, MPI_INT, MPI_MAX, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Scan_c(s, sc, 5, MPI_INT, MPI_SUM, W)
        : m == 1 ? MPI_Iscan_c(s, sc, 5, MPI_INT, MPI_SUM, W, &r)
                 : MPI_Scan_init_c(s, sc, 5, MPI_INT, MPI_SUM, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Exscan_c(s, ex, 5, MPI_INT, MPI_SUM, W)
        : m == 1 ? MPI_Iexscan_c(s, ex, 5, MPI_INT, MPI_SUM, W, &r)
                 : MPI_Exscan_init_c(s, ex, 5, MPI_INT, MPI_SUM, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Reduce_scatter_c(s, rs, wc, MPI_INT, MPI_SUM, W)
        : m == 1 ? MPI_Ireduce_scatter_c(s, rs, wc, MPI_INT, MPI_SUM, W, &r)
                 : MPI_Reduce_scatter_init_c(s, rs, wc, MPI_INT, MPI_SUM, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Reduce_scatter_block_c(s, rb, 3, MPI_INT, MPI_SUM, W)
        : m == 1 ? MPI_Ireduce_scatter_block_c(s, rb, 3, MPI_INT, MPI_SUM, W, &r)
                 : MPI_Reduce_scatter_block_init_c(s, rb, 3, MPI_INT, MPI_SUM, W, NI, &r);
    } else {
        m == 0 ? MPI_Reduce(s, out, 6, MPI_INT, MPI_SUM, 0, W)
        : m == 1 ? MPI_Ireduce(s, out, 6, MPI_INT, MPI_SUM, 0, W, &r)
                 : MPI_Reduce_init(s, out, 6, MPI_INT, MPI_SUM, 0, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Allreduce(s, a, 7, MPI_INT, MPI_MAX, W)
        : m == 1 ? MPI_Iallreduce(s, a, 7, MPI_INT, MPI_MAX, W, &r)
                 : MPI_Allreduce_init(s, a, 7, MPI_INT, MPI_MAX, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Scan(s, sc, 5, MPI_INT, MPI_SUM, W)
        : m == 1 ? MPI_Iscan(s, sc, 5, MPI_INT, MPI_SUM, W, &r)
                 : MPI_Scan_init(s, sc, 5, MPI_INT, MPI_SUM, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Exscan(s, ex, 5, MPI_INT, MPI_SUM, W)
        : m == 1 ? MPI_Iexscan(s, ex, 5, MPI_INT, MPI_SUM, W, &r)
                 : MPI_Exscan_init(s, ex, 5, MPI_INT, MPI_SUM, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Reduce_scatter(s, rs, vc, MPI_INT, MPI_SUM, W)
        : m == 1 ? MPI_Ireduce_scatter(s, rs, vc, MPI_INT, MPI_SUM, W, &r)
                 : MPI_Reduce_scatter_init(s, rs, vc, MPI_INT, MPI_SUM, W, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Reduce_scatter_block(s, rb, 3, MPI_INT, MPI_SUM, W)
        : m == 1 ? MPI_Ireduce_scatter_block(s, rb, 3, MPI_INT, MPI_SUM, W, &r)
                 : MPI_Reduce_scatter_block_init(s, rb, 3, MPI_INT, MPI_SUM, W, NI, &r);
    }
    done(m, &r);
    if (rank == 0)
        fill(ex, 5, 9); /* exscan leaves rank 0's buffer undefined */
}

/* Neighbours on the ring: two of them (left, right), so blocks are
 * indexed 0 and 1 like the first two ranks of a v-collective. */
static void c_neighbor(int w, int m, int *out)
{
    MPI_Request r;
    int s[64];
    fill(s, 64, rank * 50);
    int *ag = out, *agv = out + 32, *a2a = out + 64, *a2v = out + 96, *a2w = out + 128;
    int bd[2] = {0, 10 * (int)sizeof(int)};
    MPI_Aint abd[2] = {0, 10 * (MPI_Aint)sizeof(int)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
    /* Block 0 goes left and arrives as the left rank's block 1: the two
     * counts must agree. */
    int nc[2] = {3, 3}, nd[2] = {0, 10};
    MPI_Count nwc[2] = {3, 3};
    MPI_Aint nwd[2] = {0, 10};
    (void)bd;
    if (w) {
        m == 0 ? MPI_Neighbor_allgather_c(s, 3, MPI_INT, ag, 3, MPI_INT, ring)
        : m == 1 ? MPI_Ineighbor_allgather_c(s, 3, MPI_INT, ag, 3, MPI_INT, ring, &r)
                 : MPI_Neighbor_allgather_init_c(s, 3, MPI_INT, ag, 3, MPI_INT, ring, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Neighbor_allgatherv_c(s, 3, MPI_INT, agv, nwc, nwd, MPI_INT, ring)
        : m == 1 ? MPI_Ineighbor_allgatherv_c(s, 3, MPI_INT, agv, nwc, nwd, MPI_INT, ring, &r)
                 : MPI_Neighbor_allgatherv_init_c(s, 3, MPI_INT, agv, nwc, nwd, MPI_INT, ring, NI,
                                                  &r);
        done(m, &r);
        m == 0 ? MPI_Neighbor_alltoall_c(s, 4, MPI_INT, a2a, 4, MPI_INT, ring)
        : m == 1 ? MPI_Ineighbor_alltoall_c(s, 4, MPI_INT, a2a, 4, MPI_INT, ring, &r)
                 : MPI_Neighbor_alltoall_init_c(s, 4, MPI_INT, a2a, 4, MPI_INT, ring, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Neighbor_alltoallv_c(s, nwc, nwd, MPI_INT, a2v, nwc, nwd, MPI_INT, ring)
        : m == 1 ? MPI_Ineighbor_alltoallv_c(s, nwc, nwd, MPI_INT, a2v, nwc, nwd, MPI_INT, ring, &r)
                 : MPI_Neighbor_alltoallv_init_c(s, nwc, nwd, MPI_INT, a2v, nwc, nwd, MPI_INT, ring,
                                                 NI, &r);
        done(m, &r);
        m == 0 ? MPI_Neighbor_alltoallw_c(s, nwc, abd, ty, a2w, nwc, abd, ty, ring)
        : m == 1 ? MPI_Ineighbor_alltoallw_c(s, nwc, abd, ty, a2w, nwc, abd, ty, ring, &r)
                 : MPI_Neighbor_alltoallw_init_c(s, nwc, abd, ty, a2w, nwc, abd, ty, ring, NI, &r);
    } else {
        m == 0 ? MPI_Neighbor_allgather(s, 3, MPI_INT, ag, 3, MPI_INT, ring)
        : m == 1 ? MPI_Ineighbor_allgather(s, 3, MPI_INT, ag, 3, MPI_INT, ring, &r)
                 : MPI_Neighbor_allgather_init(s, 3, MPI_INT, ag, 3, MPI_INT, ring, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Neighbor_allgatherv(s, 3, MPI_INT, agv, nc, nd, MPI_INT, ring)
        : m == 1 ? MPI_Ineighbor_allgatherv(s, 3, MPI_INT, agv, nc, nd, MPI_INT, ring, &r)
                 : MPI_Neighbor_allgatherv_init(s, 3, MPI_INT, agv, nc, nd, MPI_INT, ring, NI,
                                                &r);
        done(m, &r);
        m == 0 ? MPI_Neighbor_alltoall(s, 4, MPI_INT, a2a, 4, MPI_INT, ring)
        : m == 1 ? MPI_Ineighbor_alltoall(s, 4, MPI_INT, a2a, 4, MPI_INT, ring, &r)
                 : MPI_Neighbor_alltoall_init(s, 4, MPI_INT, a2a, 4, MPI_INT, ring, NI, &r);
        done(m, &r);
        m == 0 ? MPI_Neighbor_alltoallv(s, nc, nd, MPI_INT, a2v, nc, nd, MPI_INT, ring)
        : m == 1 ? MPI_Ineighbor_alltoallv(s, nc, nd, MPI_INT, a2v, nc, nd, MPI_INT, ring, &r)
                 : MPI_Neighbor_alltoallv_init(s, nc, nd, MPI_INT, a2v, nc, nd, MPI_INT, ring, NI,
                                               &r);
        done(m, &r);
        m == 0 ? MPI_Neighbor_alltoallw(s, nc, abd, ty, a2w, nc, abd, ty, ring)
        : m == 1 ? MPI_Ineighbor_alltoallw(s, nc, abd, ty, a2w, nc, abd, ty, ring, &r)
                 : MPI_Neighbor_alltoallw_init(s, nc, abd, ty, a2w, nc, abd, ty, ring, NI, &r);
    }
    done(m, &r);
}

typedef void (*case_fn)(int wide, int mode, int *out);
static const struct {
    const char *name;
    case_fn fn;
    int modes; /* how many of blocking, I-form, _init */
} cases[] = {
    {"send/recv", p_basic, 1},       {"sync and ready modes", p_modes, 1},
    {"buffered", p_buffered, 1},     {"persistent point-to-point", p_persistent, 1},
    {"sendrecv", p_sendrecv, 1},     {"matched probe", p_matched, 1},
    {"bcast", c_bcast, 3},           {"gather(v)", c_gather, 3},
    {"scatter(v)", c_scatter, 3},    {"allgather(v)", c_allgather, 3},
    {"alltoall(v,w)", c_alltoall, 3}, {"reductions", c_reduce, 3},
    {"neighborhood", c_neighbor, 3},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    for (int i = 0; i < 64; i++) {
        vc[i] = i + 2;
        vd[i] = 10 * i;
        wc[i] = vc[i];
        wd[i] = vd[i];
    }
    int *a = mt_malloc(OUT_BYTES), *b = mt_malloc(OUT_BYTES), *fresh = mt_malloc(OUT_BYTES);
    memset(fresh, FILL, OUT_BYTES);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int m = 0; m < cases[k].modes; m++) {
            memset(a, FILL, OUT_BYTES);
            memset(b, FILL, OUT_BYTES);
            cases[k].fn(0, m, a);
            cases[k].fn(1, m, b);
            CHECK(memcmp(a, fresh, OUT_BYTES) != 0, "%s (mode %d): nothing arrived", cases[k].name,
                  m);
            for (int i = 0; i < OUT_BYTES / (int)sizeof(int); i++)
                CHECK(a[i] == b[i], "%s (mode %d): int %d is %d by the int form, %d by _c",
                      cases[k].name, m, i, a[i], b[i]);
        }
    free(a);
    free(b);
    free(fresh);
    MPI_Comm_free(&ring);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_count_forms: %zu cases on %d ranks ok\n", sizeof cases / sizeof cases[0],
               size);
    MPI_Finalize();
    return 0;
}

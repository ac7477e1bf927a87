/* Every collective on an intercommunicator, blocking, non-blocking (the
 * I-form and MPI_Wait, whose status must be empty) and persistent (the
 * MPI_*_init form started twice, its receive buffer reset in between),
 * between the groups
 * A = world ranks [0, h) and B = [h, size), for h = 2 and h = 1 (2+3 and
 * 1+4 at 5 ranks).  Each result is compared element by element with what a
 * serial computation over the remote group's world ranks gives: each group
 * receives what the other contributes.  Rooted collectives run with the
 * root in A (its rank 0) and in B (its last rank); the buffers that the
 * standard makes insignificant (MPI_PROC_NULL ranks, the root's send side,
 * the senders' receive side) must come back untouched.  Also: a vector
 * datatype in Bcast, a non-commutative user op in Reduce and Allreduce,
 * three non-blocking collectives outstanding at once, and a barrier that
 * lets no rank out before the other group has entered.  Needs 2 ranks. */
#include <unistd.h>

#include "mpitest.h"

#define SENTINEL (-7)
#define NMAX 64

typedef struct ic {
    MPI_Comm comm;
    int in_a, lrank, lsize, rsize;
    int lbase, rbase; /* world rank of local / remote rank 0 */
} ic_t;

static int val(int world, int i) { return world * 1000 + i; }

static void fill(int *buf, int n, int v)
{
    for (int i = 0; i < n; i++)
        buf[i] = v;
}

static void check_untouched(const int *buf, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == SENTINEL, "%s[%d] = %d, must be untouched", what, i, buf[i]);
}

/* Waits for a collective's request: success, the request freed, and
 * hcmpi's empty status (the standard defines no other field than
 * MPI_ERROR there; MPICH 4.0.2 leaves its last message's source and tag,
 * so MT_MPICH_QUIRKS skips that part). */
static void ic_wait(MPI_Request *req)
{
    MPI_Status st;
    st.MPI_SOURCE = -5;
    st.MPI_TAG = -5;
    int rc = MPI_Wait(req, &st);
    CHECK(rc == MPI_SUCCESS, "MPI_Wait: %s", mt_errstr(rc));
    CHECK(*req == MPI_REQUEST_NULL, "request not freed");
    if (mt_mpich_quirks())
        return;
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
          "status source %d tag %d, want an empty status", st.MPI_SOURCE, st.MPI_TAG);
    CHECK(mt_status_count(&st, MPI_BYTE) == 0, "status count %d",
          mt_status_count(&st, MPI_BYTE));
}

/* A persistent collective (MPI_*_init): started twice, the receive buffer
 * (recv, n ints; NULL: none) reset to SENTINEL in between, so the checks
 * after it see what the second start delivered; then freed. */
static void ic_persist(MPI_Request *req, int *recv, int n)
{
    for (int round = 0; round < 2; round++) {
        if (round == 1 && recv != NULL)
            fill(recv, n, SENTINEL);
        int rc = MPI_Start(req);
        CHECK(rc == MPI_SUCCESS, "MPI_Start: %s", mt_errstr(rc));
        rc = MPI_Wait(req, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "MPI_Wait: %s", mt_errstr(rc));
        CHECK(*req != MPI_REQUEST_NULL, "MPI_Wait freed a persistent request");
    }
    MPI_Request_free(req);
}

/* "left": the lower ranks' operand wins (associative, not commutative). */
static void op_left(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

static MPI_Op left_op;

/* The root argument of this rank, the root in group A (root_in_a) or B at
 * local rank root_lrank; *is_root, *idle: MPI_ROOT, MPI_PROC_NULL. */
static int ic_root(const ic_t *g, int root_in_a, int root_lrank, int *is_root, int *idle)
{
    int mine = root_in_a == g->in_a;
    *is_root = mine && g->lrank == root_lrank;
    *idle = mine && !*is_root;
    if (!mine)
        return root_lrank;
    return *is_root ? MPI_ROOT : MPI_PROC_NULL;
}

/* ---- barrier, bcast ------------------------------------------------------ */

/* The last rank of each group is late; before entering it must see no
 * message that the other group sends once out of the barrier. */
static void t_barrier(const ic_t *g, MPI_Comm side, int nb)
{
    int flag = 0, token = g->lbase + g->lrank, got;
    MPI_Request req, sreq[NMAX];
    if (g->lrank == g->lsize - 1)
        usleep(20000);
    MPI_Iprobe(MPI_ANY_SOURCE, 7, side, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "a remote rank left the barrier before this rank entered");
    if (nb == 2) {
        MPI_Barrier_init(g->comm, MPI_INFO_NULL, &req);
        ic_persist(&req, NULL, 0);
    } else if (nb) {
        MPI_Ibarrier(g->comm, &req);
        ic_wait(&req);
    } else {
        MPI_Barrier(g->comm);
    }
    for (int r = 0; r < g->rsize; r++)
        MPI_Isend(&token, 1, MPI_INT, r, 7, side, &sreq[r]);
    for (int r = 0; r < g->rsize; r++) {
        MPI_Recv(&got, 1, MPI_INT, r, 7, side, MPI_STATUS_IGNORE);
        CHECK(got == g->rbase + r, "token %d from remote %d", got, r);
    }
    MPI_Waitall(g->rsize, sreq, MPI_STATUSES_IGNORE);
}

/* 5 ints every other int (a vector type): the gaps stay untouched. */
static void t_bcast(const ic_t *g, int nb, int root_in_a, int root_lrank)
{
    int is_root, idle, buf[10], me = g->lbase + g->lrank;
    int root = ic_root(g, root_in_a, root_lrank, &is_root, &idle);
    int rworld = g->rbase + root_lrank;
    MPI_Datatype vec;
    MPI_Type_vector(5, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    fill(buf, 10, SENTINEL);
    for (int i = 0; is_root && i < 5; i++)
        buf[2 * i] = val(me, i);
    MPI_Request req;
    if (nb == 2) {
        MPI_Bcast_init(buf, 1, vec, root, g->comm, MPI_INFO_NULL, &req);
        ic_persist(&req, is_root ? NULL : buf, 10);
    } else if (nb) {
        MPI_Ibcast(buf, 1, vec, root, g->comm, &req);
        ic_wait(&req);
    } else {
        MPI_Bcast(buf, 1, vec, root, g->comm);
    }
    /* MPICH 4.0.2's Ibcast roots the receiving group's local broadcast at
     * the remote root's rank instead of its rank 0 (ibcast_inter_sched_flat.c):
     * a remote root other than rank 0 loses the data there. */
    if (nb == 1 && root_lrank != 0 && !is_root && !idle && mt_mpich_quirks()) {
        MPI_Type_free(&vec);
        return;
    }
    for (int i = 0; i < 5; i++) {
        int want = is_root ? val(me, i) : idle ? SENTINEL : val(rworld, i);
        CHECK(buf[2 * i] == want, "bcast[%d] = %d, want %d", i, buf[2 * i], want);
        CHECK(buf[2 * i + 1] == SENTINEL, "bcast gap %d written", i);
    }
    MPI_Type_free(&vec);
}

/* ---- reductions ---------------------------------------------------------- */

/* Element i of the remote group's combination: the sum, or remote rank
 * 0's value under the "left" op. */
static int want_reduced(const ic_t *g, MPI_Op op, int i)
{
    if (op == left_op)
        return val(g->rbase, i);
    int sum = 0;
    for (int r = 0; r < g->rsize; r++)
        sum += val(g->rbase + r, i);
    return sum;
}

static void t_reduce(const ic_t *g, int nb, int root_in_a, int root_lrank, MPI_Op op)
{
    int is_root, idle, send[4], recv[4], me = g->lbase + g->lrank;
    int root = ic_root(g, root_in_a, root_lrank, &is_root, &idle);
    for (int i = 0; i < 4; i++)
        send[i] = val(me, i);
    fill(recv, 4, SENTINEL);
    MPI_Request req;
    if (nb == 2) {
        MPI_Reduce_init(send, recv, 4, MPI_INT, op, root, g->comm, MPI_INFO_NULL, &req);
        ic_persist(&req, recv, 4);
    } else if (nb) {
        MPI_Ireduce(send, recv, 4, MPI_INT, op, root, g->comm, &req);
        ic_wait(&req);
    } else {
        MPI_Reduce(send, recv, 4, MPI_INT, op, root, g->comm);
    }
    if (!is_root) {
        check_untouched(recv, 4, "reduce recvbuf off the root");
        return;
    }
    for (int i = 0; i < 4; i++)
        CHECK(recv[i] == want_reduced(g, op, i), "reduce[%d] = %d, want %d", i, recv[i],
              want_reduced(g, op, i));
}

static void t_allreduce(const ic_t *g, int nb, MPI_Op op)
{
    int send[4], recv[4], me = g->lbase + g->lrank;
    for (int i = 0; i < 4; i++)
        send[i] = val(me, i);
    fill(recv, 4, SENTINEL);
    MPI_Request req;
    if (nb == 2) {
        MPI_Allreduce_init(send, recv, 4, MPI_INT, op, g->comm, MPI_INFO_NULL, &req);
        ic_persist(&req, recv, 4);
    } else if (nb) {
        MPI_Iallreduce(send, recv, 4, MPI_INT, op, g->comm, &req);
        ic_wait(&req);
    } else {
        MPI_Allreduce(send, recv, 4, MPI_INT, op, g->comm);
    }
    for (int i = 0; i < 4; i++)
        CHECK(recv[i] == want_reduced(g, op, i), "allreduce[%d] = %d, want %d", i, recv[i],
              want_reduced(g, op, i));
}

/* Both groups reduce vectors of the same length: block: lsize * rsize
 * elements, rsize per local rank; v-form: 6 elements spread over the local
 * ranks as evenly as possible. */
static void t_reduce_scatter(const ic_t *g, int nb, int block)
{
    int counts[NMAX], displs[NMAX], total = 0, me = g->lbase + g->lrank;
    for (int r = 0; r < g->lsize; r++) {
        counts[r] = block ? g->rsize : 6 / g->lsize + (r < 6 % g->lsize);
        displs[r] = total;
        total += counts[r];
    }
    int send[NMAX], recv[NMAX];
    for (int i = 0; i < total; i++)
        send[i] = val(me, i);
    fill(recv, NMAX, SENTINEL);
    MPI_Request req;
    if (block && nb == 2)
        MPI_Reduce_scatter_block_init(send, recv, counts[0], MPI_INT, MPI_SUM, g->comm,
                                      MPI_INFO_NULL, &req);
    else if (nb == 2)
        MPI_Reduce_scatter_init(send, recv, counts, MPI_INT, MPI_SUM, g->comm, MPI_INFO_NULL,
                                &req);
    else if (block && nb)
        MPI_Ireduce_scatter_block(send, recv, counts[0], MPI_INT, MPI_SUM, g->comm, &req);
    else if (block)
        MPI_Reduce_scatter_block(send, recv, counts[0], MPI_INT, MPI_SUM, g->comm);
    else if (nb)
        MPI_Ireduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, g->comm, &req);
    else
        MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, g->comm);
    if (nb == 2)
        ic_persist(&req, recv, NMAX);
    else if (nb)
        ic_wait(&req);
    int mine = counts[g->lrank], at = displs[g->lrank];
    for (int i = 0; i < mine; i++)
        CHECK(recv[i] == want_reduced(g, MPI_SUM, at + i), "reduce_scatter%s[%d] = %d, want %d",
              block ? "_block" : "", i, recv[i], want_reduced(g, MPI_SUM, at + i));
    check_untouched(recv + mine, NMAX - mine, "reduce_scatter beyond the block");
}

/* ---- gather, scatter ----------------------------------------------------- */

/* Block r per remote rank r: n ints back to back (regular form), or
 * r + 1 ints every vstride ints (v-form). */
static void ic_layout(const ic_t *g, int vform, int n, int vstride, int *counts, int *displs)
{
    for (int r = 0; r < g->rsize; r++) {
        counts[r] = vform ? r + 1 : n;
        displs[r] = vform ? r * vstride : r * n;
    }
}

/* Remote rank r's block: 3 ints (regular form), or r + 1 ints at r * 5 (v). */
static void t_gather(const ic_t *g, int nb, int root_in_a, int root_lrank, int vform)
{
    int is_root, idle, me = g->lbase + g->lrank;
    int root = ic_root(g, root_in_a, root_lrank, &is_root, &idle);
    int send[8], recv[NMAX * 5], counts[NMAX], displs[NMAX];
    int scount = vform ? g->lrank + 1 : 3;
    ic_layout(g, vform, 3, 5, counts, displs);
    for (int i = 0; i < scount; i++)
        send[i] = val(me, i);
    fill(recv, NMAX * 5, SENTINEL);
    MPI_Request req;
    if (vform && nb == 2)
        MPI_Gatherv_init(send, scount, MPI_INT, recv, counts, displs, MPI_INT, root, g->comm,
                         MPI_INFO_NULL, &req);
    else if (nb == 2)
        MPI_Gather_init(send, scount, MPI_INT, recv, 3, MPI_INT, root, g->comm, MPI_INFO_NULL,
                        &req);
    else if (vform && nb)
        MPI_Igatherv(send, scount, MPI_INT, recv, counts, displs, MPI_INT, root, g->comm, &req);
    else if (vform)
        MPI_Gatherv(send, scount, MPI_INT, recv, counts, displs, MPI_INT, root, g->comm);
    else if (nb)
        MPI_Igather(send, scount, MPI_INT, recv, 3, MPI_INT, root, g->comm, &req);
    else
        MPI_Gather(send, scount, MPI_INT, recv, 3, MPI_INT, root, g->comm);
    if (nb == 2)
        ic_persist(&req, recv, NMAX * 5);
    else if (nb)
        ic_wait(&req);
    if (!is_root) {
        check_untouched(recv, NMAX * 5, "gather recvbuf off the root");
        return;
    }
    int next = 0;
    for (int r = 0; r < g->rsize; r++) {
        check_untouched(recv + next, displs[r] - next, "gather gap");
        for (int i = 0; i < counts[r]; i++)
            CHECK(recv[displs[r] + i] == val(g->rbase + r, i), "gather block %d [%d] = %d", r,
                  i, recv[displs[r] + i]);
        next = displs[r] + counts[r];
    }
}

static void t_scatter(const ic_t *g, int nb, int root_in_a, int root_lrank, int vform)
{
    int is_root, idle, me = g->lbase + g->lrank;
    int root = ic_root(g, root_in_a, root_lrank, &is_root, &idle);
    int send[NMAX * 5], recv[8], counts[NMAX], displs[NMAX];
    int rcount = vform ? g->lrank + 1 : 3;
    ic_layout(g, vform, 3, 5, counts, displs);
    for (int i = 0; i < NMAX * 5; i++)
        send[i] = val(me, i);
    fill(recv, 8, SENTINEL);
    MPI_Request req;
    if (vform && nb == 2)
        MPI_Scatterv_init(send, counts, displs, MPI_INT, recv, rcount, MPI_INT, root, g->comm,
                          MPI_INFO_NULL, &req);
    else if (nb == 2)
        MPI_Scatter_init(send, 3, MPI_INT, recv, rcount, MPI_INT, root, g->comm, MPI_INFO_NULL,
                         &req);
    else if (vform && nb)
        MPI_Iscatterv(send, counts, displs, MPI_INT, recv, rcount, MPI_INT, root, g->comm, &req);
    else if (vform)
        MPI_Scatterv(send, counts, displs, MPI_INT, recv, rcount, MPI_INT, root, g->comm);
    else if (nb)
        MPI_Iscatter(send, 3, MPI_INT, recv, rcount, MPI_INT, root, g->comm, &req);
    else
        MPI_Scatter(send, 3, MPI_INT, recv, rcount, MPI_INT, root, g->comm);
    if (nb == 2)
        ic_persist(&req, recv, 8);
    else if (nb)
        ic_wait(&req);
    if (is_root || idle) {
        check_untouched(recv, 8, "scatter recvbuf in the root's group");
        return;
    }
    int rworld = g->rbase + root_lrank, at = vform ? g->lrank * 5 : g->lrank * 3;
    for (int i = 0; i < rcount; i++)
        CHECK(recv[i] == val(rworld, at + i), "scatter[%d] = %d, want %d", i, recv[i],
              val(rworld, at + i));
    check_untouched(recv + rcount, 8 - rcount, "scatter beyond the block");
}

/* ---- allgather, alltoall ------------------------------------------------- */

/* Regular: 2 ints each; v-form: remote rank r sends r + 1 ints, placed at
 * r * 4. */
static void t_allgather(const ic_t *g, int nb, int vform)
{
    int me = g->lbase + g->lrank, send[8], recv[NMAX * 4], counts[NMAX], displs[NMAX];
    int scount = vform ? g->lrank + 1 : 2;
    ic_layout(g, vform, 2, 4, counts, displs);
    for (int i = 0; i < scount; i++)
        send[i] = val(me, i);
    fill(recv, NMAX * 4, SENTINEL);
    MPI_Request req;
    if (vform && nb == 2)
        MPI_Allgatherv_init(send, scount, MPI_INT, recv, counts, displs, MPI_INT, g->comm,
                            MPI_INFO_NULL, &req);
    else if (nb == 2)
        MPI_Allgather_init(send, scount, MPI_INT, recv, 2, MPI_INT, g->comm, MPI_INFO_NULL, &req);
    else if (vform && nb)
        MPI_Iallgatherv(send, scount, MPI_INT, recv, counts, displs, MPI_INT, g->comm, &req);
    else if (vform)
        MPI_Allgatherv(send, scount, MPI_INT, recv, counts, displs, MPI_INT, g->comm);
    else if (nb)
        MPI_Iallgather(send, scount, MPI_INT, recv, 2, MPI_INT, g->comm, &req);
    else
        MPI_Allgather(send, scount, MPI_INT, recv, 2, MPI_INT, g->comm);
    if (nb == 2)
        ic_persist(&req, recv, NMAX * 4);
    else if (nb)
        ic_wait(&req);
    for (int r = 0; r < g->rsize; r++) {
        for (int i = 0; i < counts[r]; i++)
            CHECK(recv[displs[r] + i] == val(g->rbase + r, i), "allgather block %d [%d] = %d",
                  r, i, recv[displs[r] + i]);
        for (int i = counts[r]; vform && i < 4; i++)
            CHECK(recv[displs[r] + i] == SENTINEL, "allgatherv gap after block %d", r);
    }
}

/* kind 0: alltoall (2 ints per pair), 1: alltoallv, 2: alltoallw; in the
 * v-forms the pair (local i, remote j) exchanges (i + j) % 3 + 1 ints in
 * blocks 4 ints apart. */
static void t_alltoall(const ic_t *g, int nb, int kind)
{
    int me = g->lbase + g->lrank, send[NMAX * 4], recv[NMAX * 4];
    int sc[NMAX], sd[NMAX], rc[NMAX], rd[NMAX], sdb[NMAX], rdb[NMAX];
    MPI_Datatype types[NMAX];
    for (int r = 0; r < g->rsize; r++) {
        sc[r] = rc[r] = kind ? (g->lrank + r) % 3 + 1 : 2;
        sd[r] = rd[r] = kind ? r * 4 : r * 2;
        sdb[r] = rdb[r] = sd[r] * (int)sizeof(int);
        types[r] = MPI_INT;
    }
    for (int i = 0; i < NMAX * 4; i++)
        send[i] = val(me, i);
    fill(recv, NMAX * 4, SENTINEL);
    MPI_Request req;
    MPI_Request *rp = nb == 1 ? &req : NULL;
    if (kind == 0 && nb == 2)
        MPI_Alltoall_init(send, 2, MPI_INT, recv, 2, MPI_INT, g->comm, MPI_INFO_NULL, &req);
    else if (kind == 1 && nb == 2)
        MPI_Alltoallv_init(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, g->comm, MPI_INFO_NULL,
                           &req);
    else if (nb == 2)
        MPI_Alltoallw_init(send, sc, sdb, types, recv, rc, rdb, types, g->comm, MPI_INFO_NULL,
                           &req);
    else if (kind == 0 && rp)
        MPI_Ialltoall(send, 2, MPI_INT, recv, 2, MPI_INT, g->comm, rp);
    else if (kind == 0)
        MPI_Alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, g->comm);
    else if (kind == 1 && rp)
        MPI_Ialltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, g->comm, rp);
    else if (kind == 1)
        MPI_Alltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, g->comm);
    else if (rp)
        MPI_Ialltoallw(send, sc, sdb, types, recv, rc, rdb, types, g->comm, rp);
    else
        MPI_Alltoallw(send, sc, sdb, types, recv, rc, rdb, types, g->comm);
    if (nb == 2)
        ic_persist(&req, recv, NMAX * 4);
    else if (nb)
        ic_wait(&req);
    for (int r = 0; r < g->rsize; r++) {
        /* remote r sent its block for local rank lrank: from its offset
         * lrank * 4 (v-forms) or lrank * 2. */
        int from = kind ? g->lrank * 4 : g->lrank * 2;
        for (int i = 0; i < rc[r]; i++)
            CHECK(recv[rd[r] + i] == val(g->rbase + r, from + i),
                  "alltoall kind %d block %d [%d] = %d, want %d", kind, r, i, recv[rd[r] + i],
                  val(g->rbase + r, from + i));
        for (int i = rc[r]; kind && i < 4; i++)
            CHECK(recv[rd[r] + i] == SENTINEL, "alltoall kind %d gap after block %d", kind, r);
    }
}

/* ---- several at once ----------------------------------------------------- */

static void t_outstanding(const ic_t *g)
{
    int me = g->lbase + g->lrank, send[4], sum[4], bc[4], ag[NMAX * 2];
    MPI_Request reqs[3];
    int is_root, idle, root = ic_root(g, 1, 0, &is_root, &idle);
    for (int i = 0; i < 4; i++) {
        send[i] = val(me, i);
        bc[i] = is_root ? val(me, i) : SENTINEL;
    }
    MPI_Iallreduce(send, sum, 4, MPI_INT, MPI_SUM, g->comm, &reqs[0]);
    MPI_Ibcast(bc, 4, MPI_INT, root, g->comm, &reqs[1]);
    MPI_Iallgather(send, 2, MPI_INT, ag, 2, MPI_INT, g->comm, &reqs[2]);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 4; i++) {
        CHECK(sum[i] == want_reduced(g, MPI_SUM, i), "outstanding allreduce[%d] = %d", i,
              sum[i]);
        int want = is_root ? val(me, i) : idle ? SENTINEL : val(g->rbase, i);
        CHECK(bc[i] == want, "outstanding bcast[%d] = %d, want %d", i, bc[i], want);
    }
    for (int r = 0; r < g->rsize; r++)
        for (int i = 0; i < 2; i++)
            CHECK(ag[2 * r + i] == val(g->rbase + r, i), "outstanding allgather %d %d", r, i);
}

/* ---- driver -------------------------------------------------------------- */

static void ic_all(const ic_t *g, MPI_Comm side)
{
    /* nb: 0 blocking, 1 non-blocking, 2 persistent (MPI_*_init). */
    for (int nb = 0; nb < 3; nb++) {
        t_barrier(g, side, nb);
        for (int in_a = 1; in_a >= 0; in_a--) {
            int last = (in_a == g->in_a ? g->lsize : g->rsize) - 1;
            for (int which = 0; which < 2; which++) {
                int lr = which ? last : 0;
                t_bcast(g, nb, in_a, lr);
                t_reduce(g, nb, in_a, lr, MPI_SUM);
                t_reduce(g, nb, in_a, lr, left_op);
                for (int vform = 0; vform < 2; vform++) {
                    t_gather(g, nb, in_a, lr, vform);
                    t_scatter(g, nb, in_a, lr, vform);
                }
            }
        }
        t_allreduce(g, nb, MPI_SUM);
        t_allreduce(g, nb, left_op);
        t_reduce_scatter(g, nb, 0);
        t_reduce_scatter(g, nb, 1);
        for (int vform = 0; vform < 2; vform++)
            t_allgather(g, nb, vform);
        for (int kind = 0; kind < 3; kind++)
            t_alltoall(g, nb, kind);
    }
    t_outstanding(g);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op_create(op_left, 0, &left_op);
    for (int h = 2; h >= 1 && size >= 2 && size <= NMAX; h--) {
        if (h >= size)
            continue;
        ic_t g;
        MPI_Comm local, side;
        g.in_a = rank < h;
        MPI_Comm_split(MPI_COMM_WORLD, g.in_a, rank, &local);
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, g.in_a ? h : 0, 5, &g.comm);
        MPI_Comm_dup(g.comm, &side);
        MPI_Comm_rank(g.comm, &g.lrank);
        MPI_Comm_size(g.comm, &g.lsize);
        MPI_Comm_remote_size(g.comm, &g.rsize);
        g.lbase = g.in_a ? 0 : h;
        g.rbase = g.in_a ? h : 0;
        ic_all(&g, side);
        MPI_Comm_free(&side);
        MPI_Comm_free(&g.comm);
        MPI_Comm_free(&local);
    }
    MPI_Op_free(&left_op);
    MPI_Finalize();
    if (rank == 0)
        printf("intercomm_coll: ok\n");
    return 0;
}

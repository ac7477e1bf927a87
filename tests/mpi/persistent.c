/* Persistent requests: Send_init, Ssend_init, Bsend_init and Rsend_init
 * against Recv_init on the peer, each started 20 times (Start and Startall)
 * with the send buffer refilled between starts, so every start must send the
 * buffer's current contents.  Waiting on an inactive persistent request
 * returns at once with an empty status (error MPI_SUCCESS included), as
 * MPI_Request_get_status of MPI_REQUEST_NULL does; Request_free releases
 * them. */
#include "mpitest.h"

#define PE_ITERS 20
#define PE_N 3000 /* ints: 12000 bytes, above a typical eager limit for one case */

enum { PE_STD, PE_SYNC, PE_BUF, PE_READY, PE_KINDS };

static void pe_make_send(int kind, int *buf, int n, int peer, MPI_Request *req)
{
    int tag = 10 + kind;
    if (kind == PE_STD)
        MPI_Send_init(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, req);
    else if (kind == PE_SYNC)
        MPI_Ssend_init(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, req);
    else if (kind == PE_BUF)
        MPI_Bsend_init(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, req);
    else
        MPI_Rsend_init(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, req);
}

static void pe_fill(int *buf, int n, int kind, int it)
{
    for (int i = 0; i < n; i++)
        buf[i] = kind * 1000000 + it * 10000 + i;
}

/* Rank 0 sends, rank 1 receives.  For ready mode rank 1 starts its receive
 * and then tells rank 0 (tag 99) before rank 0 starts the Rsend. */
static void pe_kind(int rank, int kind, int n)
{
    int *buf = mt_malloc(sizeof(int) * (size_t)n), ready = 0;
    memset(buf, 0, sizeof(int) * (size_t)n);
    MPI_Request req;
    MPI_Status st;
    if (rank == 0)
        pe_make_send(kind, buf, n, 1, &req);
    else
        MPI_Recv_init(buf, n, MPI_INT, 0, 10 + kind, MPI_COMM_WORLD, &req);
    for (int it = 0; it < PE_ITERS; it++) {
        if (rank == 0) {
            pe_fill(buf, n, kind, it);
            if (kind == PE_READY)
                MPI_Recv(&ready, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (it % 2)
                MPI_Start(&req);
            else
                MPI_Startall(1, &req);
            MPI_Wait(&req, &st);
            CHECK(req != MPI_REQUEST_NULL, "Wait freed a persistent send request");
            continue;
        }
        memset(buf, 0xff, sizeof(int) * (size_t)n);
        MPI_Start(&req);
        if (kind == PE_READY)
            MPI_Send(&ready, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        CHECK(req != MPI_REQUEST_NULL, "Wait freed a persistent receive request");
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 10 + kind, "kind %d it %d: status %d/%d", kind,
              it, st.MPI_SOURCE, st.MPI_TAG);
        CHECK(mt_status_count(&st, MPI_INT) == n, "kind %d: count %d", kind,
              mt_status_count(&st, MPI_INT));
        for (int i = 0; i < n; i++)
            CHECK(buf[i] == kind * 1000000 + it * 10000 + i, "kind %d it %d n %d: buf[%d] = %d",
                  kind, it, n, i, buf[i]);
    }
    /* Inactive persistent request: Wait returns at once, empty status
     * (MPI-4.0 3.7.3: any source, any tag, error MPI_SUCCESS, count 0);
     * the fields start as garbage so that each must be written. */
    st.MPI_SOURCE = st.MPI_TAG = st.MPI_ERROR = 12345;
    MPI_Wait(&req, &st);
    CHECK(req != MPI_REQUEST_NULL, "Wait on an inactive request freed it");
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG &&
              st.MPI_ERROR == MPI_SUCCESS && mt_status_count(&st, MPI_INT) == 0,
          "inactive Wait status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    /* So does MPI_Request_get_status of MPI_REQUEST_NULL (MPICH
     * pt2pt/rqstatus). */
    int flag = 0;
    st.MPI_SOURCE = st.MPI_TAG = st.MPI_ERROR = 12345;
    MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
    CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG &&
              st.MPI_ERROR == MPI_SUCCESS,
          "get_status of MPI_REQUEST_NULL: flag %d, %d/%d/%d", flag, st.MPI_SOURCE,
          st.MPI_TAG, st.MPI_ERROR);
    MPI_Request_free(&req);
    CHECK(req == MPI_REQUEST_NULL, "Request_free did not null the handle");
    free(buf);
}

/* Several persistent requests started together with Startall, both ways. */
static void pe_startall(int rank)
{
    int peer = 1 - rank, sbuf[4][8], rbuf[4][8];
    MPI_Request req[8];
    for (int k = 0; k < 4; k++) {
        MPI_Send_init(sbuf[k], 8, MPI_INT, peer, 50 + k, MPI_COMM_WORLD, &req[k]);
        MPI_Recv_init(rbuf[k], 8, MPI_INT, peer, 50 + k, MPI_COMM_WORLD, &req[4 + k]);
    }
    for (int it = 0; it < PE_ITERS; it++) {
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 8; i++) {
                sbuf[k][i] = rank * 100000 + it * 100 + k * 10 + i;
                rbuf[k][i] = -1;
            }
        MPI_Startall(8, req);
        MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 8; i++)
                CHECK(rbuf[k][i] == peer * 100000 + it * 100 + k * 10 + i,
                      "Startall it %d: rbuf[%d][%d] = %d", it, k, i, rbuf[k][i]);
    }
    for (int k = 0; k < 8; k++)
        MPI_Request_free(&req[k]);
}

int main(int argc, char **argv)
{
    int rank, size, bsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    /* Room for every start of both sizes: a buffered send occupies the
     * buffer until it is delivered, and the sender may run ahead. */
    int psmall;
    MPI_Pack_size(PE_N, MPI_INT, MPI_COMM_WORLD, &bsize);
    MPI_Pack_size(4, MPI_INT, MPI_COMM_WORLD, &psmall);
    bsize = PE_ITERS * (bsize + psmall + 2 * MPI_BSEND_OVERHEAD);
    void *bbuf = mt_malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    if (rank < 2) {
        for (int kind = 0; kind < PE_KINDS; kind++) {
            pe_kind(rank, kind, 4);
            pe_kind(rank, kind, PE_N);
        }
        pe_startall(rank);
    }
    void *det;
    MPI_Buffer_detach(&det, &bsize);
    free(bbuf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("persistent: Send/Ssend/Bsend/Rsend_init x Recv_init, Start/Startall: OK\n");
    MPI_Finalize();
    return 0;
}

/* Neighbourhood collectives: MPI_Neighbor_allgather(v), _alltoall(v,w),
 * each blocking, as MPI_Ineighbor_* and as MPI_Neighbor_*_init (built once,
 * started ITERS times, argv[1], default 100, the send buffers rewritten and
 * the receive buffers reset before every start), on 2-D Cartesian grids
 * (periodic, non-periodic and mixed; MPI_Dims_create's shape and 1 x n, so
 * dimensions of size 1 and 2 occur), a symmetric graph with repeated edges
 * (two ranks), a distributed graph whose in- and out-lists differ in length
 * and order, and a weighted one from MPI_Dist_graph_create.  Every receive
 * buffer is compared whole, block by block and gap by gap, with a serial
 * reference: block k holds what source k sent to this rank (on a grid, the
 * block its neighbour sent in the opposite direction; on graphs, repeated
 * edges match in list order), and blocks of MPI_PROC_NULL neighbours stay
 * untouched.  Alltoallw sends and receives odd blocks through a strided
 * datatype (packed by the library).  A one-edge graph passes NULL arrays
 * where a rank has no neighbours.  Then the errors: no topology is
 * MPI_ERR_TOPOLOGY, MPI_IN_PLACE is MPI_ERR_BUFFER. */
#include "mpitest.h"

#define MAXD 8       /* most neighbours on any topology here */
#define N 3          /* elements per allgather/alltoall block */
#define SLOT 5       /* ints reserved per v-form block (counts <= 3) */
#define GAP (-777)   /* never written */
#define BUF (2 * MAXD * SLOT + 2)

enum form { BLOCKING, NONBLOCKING, PERSISTENT };
static const char *form_name[] = {"blocking", "I-form", "persistent"};

/* The topology under test, seen from this rank. */
static struct {
    MPI_Comm comm;
    const char *name;
    int cart;
    int me, size;
    int indeg, outdeg;
    int in[MAXD], out[MAXD];
    int allout[64][MAXD], alloutdeg[64]; /* every rank's out-list */
} T;

static int iters = 100;

static int val(int sender, int block, int it, int i)
{
    return (sender + 1) * 1000000 + block * 10000 + (it % 97) * 100 + i;
}

/* The v-forms' element count of sender's send block. */
static int cnt(int sender, int block)
{
    return 1 + (sender + block) % 3;
}

/* Who fills receive block k, and from which of its send blocks (*m);
 * MPI_PROC_NULL when nobody does. */
static int origin(int k, int *m)
{
    int j = T.in[k];
    if (j == MPI_PROC_NULL)
        return j;
    if (T.cart) { /* from the -1 side: what it sent to its +1 side */
        *m = k ^ 1;
        return j;
    }
    int occ = 0;
    for (int t = 0; t < k; t++)
        occ += T.in[t] == j;
    for (int mm = 0; mm < T.alloutdeg[j]; mm++)
        if (T.allout[j][mm] == T.me && occ-- == 0) {
            *m = mm;
            return j;
        }
    CHECK(0, "%s: rank %d lists %d as a source but %d never sends to it", T.name, T.me, j, j);
    return MPI_PROC_NULL;
}

static void reset(int *buf)
{
    for (int i = 0; i < BUF; i++)
        buf[i] = GAP;
}

static void compare(const int *got, const int *want, const char *op, int form, int it)
{
    for (int i = 0; i < BUF; i++)
        CHECK(got[i] == want[i], "%s %s %s iteration %d: element %d is %d, expected %d",
              T.name, op, form_name[form], it, i, got[i], want[i]);
}

/* v-forms: blocks in reverse order, odd ones one element further in. */
static int rdispl(int k)
{
    return (T.indeg - 1 - k) * SLOT + (k % 2);
}

static int dense_pos(int k, int i)
{
    return k * N + i;
}

static int v_pos(int k, int i)
{
    return rdispl(k) + i;
}

/* Where element i of block b lies in an alltoallw buffer (in ints): odd
 * blocks go through a type that places each int two apart. */
static int w_pos(int b, int i)
{
    return b * 2 * (SLOT - 1) + (b % 2 ? 2 * i : i);
}

/* The reference: GAP everywhere but at pos(k, i) for the counts[k] (NULL:
 * N) elements receive block k's origin sent (gather: its one block). */
static void expect(int *want, int it, const int *counts, int (*pos)(int, int), int gather)
{
    reset(want);
    for (int k = 0, m = 0; k < T.indeg; k++)
        for (int i = 0, j = origin(k, &m); j != MPI_PROC_NULL && i < (counts ? counts[k] : N);
             i++)
            want[pos(k, i)] = val(j, gather ? 0 : m, it, i);
}

static void finish(int form, MPI_Request *req, int rc, const char *op)
{
    CHECK(rc == MPI_SUCCESS, "%s %s %s: %s", T.name, op, form_name[form], mt_errstr(rc));
    if (form == PERSISTENT)
        CHECK(MPI_Start(req) == MPI_SUCCESS, "%s %s Start", T.name, op);
    if (form != BLOCKING) {
        CHECK(MPI_Wait(req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "%s %s Wait", T.name, op);
        CHECK((*req != MPI_REQUEST_NULL) == (form == PERSISTENT), "%s %s request after Wait",
              T.name, op);
    }
}

static void t_allgather(int form, int n)
{
    static int sbuf[BUF], rbuf[BUF], want[BUF];
    MPI_Request req = MPI_REQUEST_NULL;
    for (int it = 0; it < n; it++) {
        int rc = MPI_SUCCESS;
        for (int i = 0; i < N; i++)
            sbuf[i] = val(T.me, 0, it, i);
        reset(rbuf);
        expect(want, it, NULL, dense_pos, 1);
        if (form == BLOCKING)
            rc = MPI_Neighbor_allgather(sbuf, N, MPI_INT, rbuf, N, MPI_INT, T.comm);
        else if (form == NONBLOCKING)
            rc = MPI_Ineighbor_allgather(sbuf, N, MPI_INT, rbuf, N, MPI_INT, T.comm, &req);
        else if (it == 0)
            rc = MPI_Neighbor_allgather_init(sbuf, N, MPI_INT, rbuf, N, MPI_INT, T.comm,
                                             MPI_INFO_NULL, &req);
        finish(form, &req, rc, "allgather");
        compare(rbuf, want, "allgather", form, it);
    }
    if (req != MPI_REQUEST_NULL)
        MPI_Request_free(&req);
}

static void t_allgatherv(int form, int n)
{
    static int sbuf[BUF], rbuf[BUF], want[BUF];
    int counts[MAXD] = {0}, displs[MAXD] = {0}, mine = cnt(T.me, 0);
    MPI_Request req = MPI_REQUEST_NULL;
    for (int k = 0, m; k < T.indeg; k++) {
        int j = origin(k, &m);
        counts[k] = j == MPI_PROC_NULL ? SLOT - 1 : cnt(j, 0);
        displs[k] = rdispl(k);
    }
    for (int it = 0; it < n; it++) {
        int rc = MPI_SUCCESS;
        for (int i = 0; i < mine; i++)
            sbuf[i] = val(T.me, 0, it, i);
        reset(rbuf);
        expect(want, it, counts, v_pos, 1);
        if (form == BLOCKING)
            rc = MPI_Neighbor_allgatherv(sbuf, mine, MPI_INT, rbuf, counts, displs, MPI_INT,
                                         T.comm);
        else if (form == NONBLOCKING)
            rc = MPI_Ineighbor_allgatherv(sbuf, mine, MPI_INT, rbuf, counts, displs, MPI_INT,
                                          T.comm, &req);
        else if (it == 0)
            rc = MPI_Neighbor_allgatherv_init(sbuf, mine, MPI_INT, rbuf, counts, displs,
                                              MPI_INT, T.comm, MPI_INFO_NULL, &req);
        finish(form, &req, rc, "allgatherv");
        compare(rbuf, want, "allgatherv", form, it);
    }
    if (req != MPI_REQUEST_NULL)
        MPI_Request_free(&req);
}

static void t_alltoall(int form, int n)
{
    static int sbuf[BUF], rbuf[BUF], want[BUF];
    MPI_Request req = MPI_REQUEST_NULL;
    for (int it = 0; it < n; it++) {
        int rc = MPI_SUCCESS;
        for (int m = 0; m < T.outdeg; m++)
            for (int i = 0; i < N; i++)
                sbuf[m * N + i] = val(T.me, m, it, i);
        reset(rbuf);
        expect(want, it, NULL, dense_pos, 0);
        if (form == BLOCKING)
            rc = MPI_Neighbor_alltoall(sbuf, N, MPI_INT, rbuf, N, MPI_INT, T.comm);
        else if (form == NONBLOCKING)
            rc = MPI_Ineighbor_alltoall(sbuf, N, MPI_INT, rbuf, N, MPI_INT, T.comm, &req);
        else if (it == 0)
            rc = MPI_Neighbor_alltoall_init(sbuf, N, MPI_INT, rbuf, N, MPI_INT, T.comm,
                                            MPI_INFO_NULL, &req);
        finish(form, &req, rc, "alltoall");
        compare(rbuf, want, "alltoall", form, it);
    }
    if (req != MPI_REQUEST_NULL)
        MPI_Request_free(&req);
}

/* The receive counts of the v/w-forms (what each origin sends). */
static void recv_counts(int *counts)
{
    for (int k = 0, m; k < T.indeg; k++) {
        int j = origin(k, &m);
        counts[k] = j == MPI_PROC_NULL ? SLOT - 1 : cnt(j, m);
    }
}

static void fill_v(int *sbuf, int *scounts, int *sdispls, int it)
{
    for (int m = 0; m < T.outdeg; m++) {
        scounts[m] = cnt(T.me, m);
        sdispls[m] = m * SLOT + 1;
        for (int i = 0; i < scounts[m]; i++)
            sbuf[sdispls[m] + i] = val(T.me, m, it, i);
    }
}

static void t_alltoallv(int form, int n)
{
    static int sbuf[BUF], rbuf[BUF], want[BUF];
    int sc[MAXD] = {0}, sd[MAXD] = {0}, rc_[MAXD] = {0}, rd[MAXD] = {0};
    MPI_Request req = MPI_REQUEST_NULL;
    recv_counts(rc_);
    for (int k = 0; k < T.indeg; k++)
        rd[k] = rdispl(k);
    for (int it = 0; it < n; it++) {
        int rc = MPI_SUCCESS;
        fill_v(sbuf, sc, sd, it);
        reset(rbuf);
        expect(want, it, rc_, v_pos, 0);
        if (form == BLOCKING)
            rc = MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc_, rd, MPI_INT, T.comm);
        else if (form == NONBLOCKING)
            rc = MPI_Ineighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc_, rd, MPI_INT, T.comm,
                                         &req);
        else if (it == 0)
            rc = MPI_Neighbor_alltoallv_init(sbuf, sc, sd, MPI_INT, rbuf, rc_, rd, MPI_INT,
                                             T.comm, MPI_INFO_NULL, &req);
        finish(form, &req, rc, "alltoallv");
        compare(rbuf, want, "alltoallv", form, it);
    }
    if (req != MPI_REQUEST_NULL)
        MPI_Request_free(&req);
}

/* Alltoallw: on both sides odd blocks through the strided type (packed
 * and unpacked by the library), even ones as plain ints; byte
 * displacements.  The send buffer's holes hold a poison value. */
static void t_alltoallw(int form, int n, MPI_Datatype strided)
{
    static int sbuf[BUF], rbuf[BUF], want[BUF];
    int sc[MAXD] = {0}, rcnt[MAXD] = {0};
    MPI_Aint sdb[MAXD] = {0}, rdb[MAXD] = {0};
    MPI_Datatype st[MAXD], rt[MAXD];
    MPI_Request req = MPI_REQUEST_NULL;
    recv_counts(rcnt);
    for (int b = 0; b < MAXD; b++) {
        st[b] = rt[b] = b % 2 ? strided : MPI_INT;
        sdb[b] = rdb[b] = (MPI_Aint)w_pos(b, 0) * (MPI_Aint)sizeof(int);
    }
    for (int it = 0; it < n; it++) {
        int rc = MPI_SUCCESS;
        for (int i = 0; i < BUF; i++)
            sbuf[i] = -1 - it;
        for (int m = 0; m < T.outdeg; m++) {
            sc[m] = cnt(T.me, m);
            for (int i = 0; i < sc[m]; i++)
                sbuf[w_pos(m, i)] = val(T.me, m, it, i);
        }
        reset(rbuf);
        expect(want, it, rcnt, w_pos, 0);
        if (form == BLOCKING)
            rc = MPI_Neighbor_alltoallw(sbuf, sc, sdb, st, rbuf, rcnt, rdb, rt, T.comm);
        else if (form == NONBLOCKING)
            rc = MPI_Ineighbor_alltoallw(sbuf, sc, sdb, st, rbuf, rcnt, rdb, rt, T.comm, &req);
        else if (it == 0)
            rc = MPI_Neighbor_alltoallw_init(sbuf, sc, sdb, st, rbuf, rcnt, rdb, rt, T.comm,
                                             MPI_INFO_NULL, &req);
        finish(form, &req, rc, "alltoallw");
        compare(rbuf, want, "alltoallw", form, it);
    }
    if (req != MPI_REQUEST_NULL)
        MPI_Request_free(&req);
}

/* Every call in every form on T.comm (then freed). */
static void run_all(MPI_Datatype strided)
{
    MPI_Comm_rank(T.comm, &T.me);
    MPI_Comm_size(T.comm, &T.size);
    int row[MAXD + 1];
    row[0] = T.outdeg;
    for (int m = 0; m < MAXD; m++)
        row[m + 1] = m < T.outdeg ? T.out[m] : MPI_PROC_NULL;
    int all[64 * (MAXD + 1)];
    MPI_Allgather(row, MAXD + 1, MPI_INT, all, MAXD + 1, MPI_INT, T.comm);
    for (int r = 0; r < T.size; r++) {
        T.alloutdeg[r] = all[r * (MAXD + 1)];
        memcpy(T.allout[r], &all[r * (MAXD + 1) + 1], MAXD * sizeof(int));
    }
    for (int form = BLOCKING; form <= PERSISTENT; form++) {
        int n = form == PERSISTENT ? iters : 3;
        t_allgather(form, n);
        t_allgatherv(form, n);
        t_alltoall(form, n);
        t_alltoallv(form, n);
        t_alltoallw(form, n, strided);
    }
    MPI_Comm_free(&T.comm);
}

static MPI_Datatype strided_int;

static void cart_case(const int dims[2], const int periods[2], const char *name)
{
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &T.comm) == MPI_SUCCESS,
          "Cart_create %s", name);
    T.name = name;
    T.cart = 1;
    T.indeg = T.outdeg = 4;
    for (int d = 0; d < 2; d++) {
        int lo, hi;
        MPI_Cart_shift(T.comm, d, 1, &lo, &hi);
        T.in[2 * d] = T.out[2 * d] = lo;
        T.in[2 * d + 1] = T.out[2 * d + 1] = hi;
    }
    run_all(strided_int);
}

/* Each rank's neighbours: rank - 1 and rank + 1 (mod n), symmetric; on two
 * ranks the same rank twice, on one rank this rank twice. */
static void graph_case(int n)
{
    int index[64], edges[128];
    for (int r = 0; r < n; r++) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = (r - 1 + n) % n;
        edges[2 * r + 1] = (r + 1) % n;
    }
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &T.comm) == MPI_SUCCESS,
          "Graph_create");
    T.name = "graph";
    T.cart = 0;
    MPI_Comm_rank(T.comm, &T.me);
    CHECK(MPI_Graph_neighbors_count(T.comm, T.me, &T.indeg) == MPI_SUCCESS, "count");
    CHECK(T.indeg == 2, "graph degree %d", T.indeg);
    T.outdeg = T.indeg;
    MPI_Graph_neighbors(T.comm, T.me, MAXD, T.in);
    memcpy(T.out, T.in, sizeof T.in);
    run_all(strided_int);
}

/* Rank r sends to r+1 and r+3, and even ranks to r+2 as well; it hears
 * from r-3 then r-1 (the other order), and from r-2 when that is even. */
static void dist_graph_case(int r, int n)
{
    int in[3], out[3], indeg = 2, outdeg = 2;
    out[0] = (r + 1) % n;
    out[1] = (r + 3) % n;
    if (r % 2 == 0)
        out[outdeg++] = (r + 2) % n;
    in[0] = ((r - 3) % n + n) % n;
    in[1] = (r - 1 + n) % n;
    if ((((r - 2) % n + n) % n) % 2 == 0)
        in[indeg++] = ((r - 2) % n + n) % n;
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, in, MPI_UNWEIGHTED, outdeg,
                                         out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                         &T.comm) == MPI_SUCCESS,
          "Dist_graph_create_adjacent");
    T.name = "dist graph";
    T.cart = 0;
    int wi, wo, weighted;
    MPI_Dist_graph_neighbors_count(T.comm, &wi, &wo, &weighted);
    CHECK(wi == indeg && wo == outdeg, "dist graph degrees %d %d", wi, wo);
    T.indeg = indeg;
    T.outdeg = outdeg;
    MPI_Dist_graph_neighbors(T.comm, MAXD, T.in, MPI_UNWEIGHTED, MAXD, T.out,
                             MPI_UNWEIGHTED);
    for (int k = 0; k < indeg; k++)
        CHECK(T.in[k] == in[k], "source %d is %d, not %d", k, T.in[k], in[k]);
    run_all(strided_int);
}

/* MPI_Dist_graph_create (every rank names some edges of the graph, here
 * r -> r+1 and r -> r+2, weighted), the lists as the library reports them. */
static void dist_graph_general_case(int r, int n)
{
    int sources[1] = {r}, degrees[1] = {2}, dests[2] = {(r + 1) % n, (r + 2) % n};
    int weights[2] = {1, 2};
    CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, sources, degrees, dests, weights,
                                MPI_INFO_NULL, 0, &T.comm) == MPI_SUCCESS,
          "Dist_graph_create");
    T.name = "general dist graph";
    T.cart = 0;
    int weighted, sw[MAXD], dw[MAXD];
    MPI_Dist_graph_neighbors_count(T.comm, &T.indeg, &T.outdeg, &weighted);
    CHECK(T.indeg == 2 && T.outdeg == 2 && weighted, "degrees %d %d, weighted %d", T.indeg,
          T.outdeg, weighted);
    MPI_Dist_graph_neighbors(T.comm, MAXD, T.in, sw, MAXD, T.out, dw);
    run_all(strided_int);
}

/* A one-edge graph, 0 -> n-1: every other rank has no sources or no
 * destinations (or neither) and passes NULL for those arrays. */
static void sparse_case(int r, int n)
{
    int to = n - 1, from = 0, sendv[2] = {val(r, 0, 0, 0), val(r, 0, 0, 1)};
    int recvv[2] = {GAP, GAP}, two = 2, zero = 0;
    int has_out = r == 0, has_in = r == n - 1;
    MPI_Comm g;
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, has_in, has_in ? &from : NULL,
                                         MPI_UNWEIGHTED, has_out, has_out ? &to : NULL,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                         &g) == MPI_SUCCESS,
          "one-edge graph");
    int e = MPI_Neighbor_alltoallv(sendv, has_out ? &two : NULL, has_out ? &zero : NULL,
                                   MPI_INT, recvv, has_in ? &two : NULL,
                                   has_in ? &zero : NULL, MPI_INT, g);
    CHECK(e == MPI_SUCCESS, "one-edge alltoallv: %s", mt_errstr(e));
    CHECK(recvv[0] == (has_in ? val(0, 0, 0, 0) : GAP) &&
              recvv[1] == (has_in ? val(0, 0, 0, 1) : GAP),
          "one-edge alltoallv got %d %d", recvv[0], recvv[1]);
    MPI_Comm_free(&g);
}

/* Without a topology every neighbourhood call is MPI_ERR_TOPOLOGY; with
 * one, MPI_IN_PLACE is MPI_ERR_BUFFER.  Errors return (MPI_ERRORS_RETURN). */
static void errors(void)
{
    int s[MAXD] = {0}, r[MAXD] = {0}, counts[MAXD] = {0}, displs[MAXD] = {0};
    MPI_Aint bd[MAXD] = {0};
    MPI_Datatype types[MAXD];
    MPI_Request req = MPI_REQUEST_NULL;
    for (int i = 0; i < MAXD; i++)
        types[i] = MPI_INT;
    MPI_Comm plain;
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    MPI_Comm_set_errhandler(plain, MPI_ERRORS_RETURN);
    int rc[15];
    rc[0] = MPI_Neighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, plain);
    rc[1] = MPI_Neighbor_allgatherv(s, 1, MPI_INT, r, counts, displs, MPI_INT, plain);
    rc[2] = MPI_Neighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, plain);
    rc[3] = MPI_Neighbor_alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT,
                                   plain);
    rc[4] = MPI_Neighbor_alltoallw(s, counts, bd, types, r, counts, bd, types, plain);
    rc[5] = MPI_Ineighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, plain, &req);
    rc[6] = MPI_Ineighbor_allgatherv(s, 1, MPI_INT, r, counts, displs, MPI_INT, plain, &req);
    rc[7] = MPI_Ineighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, plain, &req);
    rc[8] = MPI_Ineighbor_alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT,
                                    plain, &req);
    rc[9] = MPI_Ineighbor_alltoallw(s, counts, bd, types, r, counts, bd, types, plain, &req);
    rc[10] = MPI_Neighbor_allgather_init(s, 1, MPI_INT, r, 1, MPI_INT, plain, MPI_INFO_NULL,
                                         &req);
    rc[11] = MPI_Neighbor_allgatherv_init(s, 1, MPI_INT, r, counts, displs, MPI_INT, plain,
                                          MPI_INFO_NULL, &req);
    rc[12] = MPI_Neighbor_alltoall_init(s, 1, MPI_INT, r, 1, MPI_INT, plain, MPI_INFO_NULL,
                                        &req);
    rc[13] = MPI_Neighbor_alltoallv_init(s, counts, displs, MPI_INT, r, counts, displs,
                                         MPI_INT, plain, MPI_INFO_NULL, &req);
    rc[14] = MPI_Neighbor_alltoallw_init(s, counts, bd, types, r, counts, bd, types, plain,
                                         MPI_INFO_NULL, &req);
    for (int i = 0; i < 15; i++)
        CHECK(mt_class(rc[i]) == MPI_ERR_TOPOLOGY, "call %d without topology: %s", i,
              mt_errstr(rc[i]));
    CHECK(req == MPI_REQUEST_NULL, "a failed call set a request");
    MPI_Comm_free(&plain);

    int n, dims[1] = {0}, periods[1] = {1};
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    dims[0] = n;
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    int e = MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, r, 1, MPI_INT, ring);
    CHECK(mt_class(e) == MPI_ERR_BUFFER, "MPI_IN_PLACE: %s", mt_errstr(e));
    MPI_Comm_free(&ring);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1)
        iters = atoi(argv[1]);
    int wsize, wrank;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    CHECK(wsize <= 64, "at most 64 ranks");
    MPI_Datatype one;
    MPI_Type_vector(1, 1, 2, MPI_INT, &one);
    MPI_Type_create_resized(one, 0, 2 * (MPI_Aint)sizeof(int), &strided_int);
    MPI_Type_commit(&strided_int);
    MPI_Type_free(&one);

    int shape[2] = {0, 0}, line[2] = {1, wsize};
    MPI_Dims_create(wsize, 2, shape);
    static const int periodic[2] = {1, 1}, open[2] = {0, 0}, mixed[2] = {1, 0};
    cart_case(shape, periodic, "periodic grid");
    cart_case(shape, open, "non-periodic grid");
    cart_case(shape, mixed, "half-periodic grid");
    cart_case(line, periodic, "periodic 1 x n grid");
    cart_case(line, open, "non-periodic 1 x n grid");
    graph_case(wsize);
    dist_graph_case(wrank, wsize);
    dist_graph_general_case(wrank, wsize);
    sparse_case(wrank, wsize);
    errors();

    MPI_Type_free(&strided_int);
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_neighbor: %d ranks ok\n", wsize);
    return 0;
}

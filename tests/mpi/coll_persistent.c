/* MPI-4 persistent collectives: every MPI_*_init (Barrier, Bcast,
 * Gather(v), Scatter(v), Allgather(v), Alltoall(v,w), Reduce, Allreduce,
 * Reduce_scatter(_block), Scan, Exscan) is built once and started ITERS
 * times (argv[1], default 1000), alternately by MPI_Start and by
 * MPI_Startall, with the input buffers rewritten before every start; each
 * result is checked against a serial reference computed here.  The
 * MPI_IN_PLACE forms run beside the plain ones (both started together),
 * and a derived-type case packs a strided type at every start (the types
 * freed right after the _init calls).  Then the
 * errors: MPI_Start of an active persistent collective is MPI_ERR_REQUEST,
 * MPI_Request_free of an inactive one frees it, and MPI_Startall mixes
 * persistent point-to-point and collective requests.  Last, two active at
 * once finished one by one (MPI_Test, MPI_Wait) between collectives of
 * other kinds, and a start that cannot finish inside MPI_Start after one
 * that did (MPI_Wait and MPI_Test must wait for the peers), and a
 * non-commutative user op's product through the straight start. */
#include "mpitest.h"

#define N 4        /* elements per block */
#define GAP (-777) /* never written: the gaps between v-form blocks */

static int rank, size, iters = 1000;

/* Rank r's element i of its block for peer j at iteration it. */
static int val(int r, int j, int it, int i)
{
    return (r + 1) * 100000 + j * 1000 + (it % 97) * 10 + i;
}

/* Starts n persistent requests (MPI_Start one by one, or MPI_Startall),
 * completes them, and checks they stay allocated. */
static void run(MPI_Request *reqs, int n, int it)
{
    if (it % 2) {
        CHECK(MPI_Startall(n, reqs) == MPI_SUCCESS, "Startall");
    } else {
        for (int k = 0; k < n; k++)
            CHECK(MPI_Start(&reqs[k]) == MPI_SUCCESS, "Start %d", k);
    }
    CHECK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall");
    for (int k = 0; k < n; k++)
        CHECK(reqs[k] != MPI_REQUEST_NULL, "persistent request %d freed by Wait", k);
}

static void free_all(MPI_Request *reqs, int n)
{
    for (int k = 0; k < n; k++) {
        CHECK(MPI_Request_free(&reqs[k]) == MPI_SUCCESS, "Request_free");
        CHECK(reqs[k] == MPI_REQUEST_NULL, "handle not reset by Request_free");
    }
}

static void test_barrier_bcast(void)
{
    int b[N], root = size - 1;
    MPI_Request r[2];
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Bcast_init(b, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < N; i++)
            b[i] = rank == root ? val(root, 0, it, i) : -1;
        run(r, 2, it);
        for (int i = 0; i < N; i++)
            CHECK(b[i] == val(root, 0, it, i), "bcast it %d [%d] = %d", it, i, b[i]);
    }
    free_all(r, 2);
}

/* Gather and Gatherv (rank r's block: r+1 elements at displacement
 * r*(N+2)), plain at root 0 and in place at root size-1. */
static void test_gather(void)
{
    int s[N] = {0}, g[2][64 * N], gv[2][64 * (N + 2)], cnt[64], dis[64];
    int roots[2] = {0, size - 1};
    MPI_Request r[4];
    for (int q = 0; q < size; q++) {
        cnt[q] = q % N + 1;
        dis[q] = q * (N + 2);
    }
    for (int k = 0; k < 2; k++) {
        int ip = k == 1 && rank == roots[k];
        MPI_Gather_init(ip ? MPI_IN_PLACE : s, N, MPI_INT, g[k], N, MPI_INT, roots[k],
                        MPI_COMM_WORLD, MPI_INFO_NULL, &r[k]);
        MPI_Gatherv_init(ip ? MPI_IN_PLACE : s, cnt[rank], MPI_INT, gv[k], cnt, dis, MPI_INT,
                         roots[k], MPI_COMM_WORLD, MPI_INFO_NULL, &r[2 + k]);
    }
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < N; i++)
            s[i] = val(rank, 0, it, i);
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < size * N; i++)
                g[k][i] = -1;
            for (int i = 0; i < size * (N + 2); i++)
                gv[k][i] = GAP;
            if (k == 1 && rank == roots[k]) { /* in place: own block already there */
                for (int i = 0; i < N; i++)
                    g[k][rank * N + i] = val(rank, 0, it, i);
                for (int i = 0; i < cnt[rank]; i++)
                    gv[k][dis[rank] + i] = val(rank, 0, it, i);
            }
        }
        run(r, 4, it);
        for (int k = 0; k < 2; k++) {
            if (rank != roots[k])
                continue;
            for (int q = 0; q < size; q++)
                for (int i = 0; i < N; i++) {
                    CHECK(g[k][q * N + i] == val(q, 0, it, i), "gather %d it %d", k, it);
                    int want = i < cnt[q] ? val(q, 0, it, i) : GAP;
                    CHECK(gv[k][dis[q] + i] == want, "gatherv %d it %d q %d i %d", k, it, q, i);
                }
        }
    }
    free_all(r, 4);
}

/* Scatter and Scatterv (as gather), plain at root 0 and in place at root
 * size-1 (the root's block stays in sendbuf). */
static void test_scatter(void)
{
    int s[2][64 * N] = {{0}}, sv[2][64 * (N + 2)] = {{0}}, d[2][N], dv[2][N];
    int cnt[64], dis[64];
    int roots[2] = {0, size - 1};
    MPI_Request r[4];
    for (int q = 0; q < size; q++) {
        cnt[q] = q % N + 1;
        dis[q] = q * (N + 2);
    }
    for (int k = 0; k < 2; k++) {
        int ip = k == 1 && rank == roots[k];
        MPI_Scatter_init(s[k], N, MPI_INT, ip ? MPI_IN_PLACE : d[k], N, MPI_INT, roots[k],
                         MPI_COMM_WORLD, MPI_INFO_NULL, &r[k]);
        MPI_Scatterv_init(sv[k], cnt, dis, MPI_INT, ip ? MPI_IN_PLACE : dv[k], cnt[rank],
                          MPI_INT, roots[k], MPI_COMM_WORLD, MPI_INFO_NULL, &r[2 + k]);
    }
    for (int it = 0; it < iters; it++) {
        for (int k = 0; k < 2; k++) {
            for (int q = 0; q < size; q++)
                for (int i = 0; i < N; i++)
                    s[k][q * N + i] = sv[k][dis[q] + i] = val(roots[k], q, it, i);
            for (int i = 0; i < N; i++)
                d[k][i] = dv[k][i] = GAP;
        }
        run(r, 4, it);
        for (int k = 0; k < 2; k++) {
            if (k == 1 && rank == roots[k])
                continue; /* in place: nothing received */
            for (int i = 0; i < N; i++) {
                CHECK(d[k][i] == val(roots[k], rank, it, i), "scatter %d it %d", k, it);
                int want = i < cnt[rank] ? val(roots[k], rank, it, i) : GAP;
                CHECK(dv[k][i] == want, "scatterv %d it %d i %d", k, it, i);
            }
        }
    }
    free_all(r, 4);
}

/* Allgather and Allgatherv, plain (k 0) and in place (k 1). */
static void test_allgather(void)
{
    int s[N] = {0}, g[2][64 * N], gv[2][64 * (N + 2)], cnt[64], dis[64];
    MPI_Request r[4];
    for (int q = 0; q < size; q++) {
        cnt[q] = q % N + 1;
        dis[q] = q * (N + 2);
    }
    for (int k = 0; k < 2; k++) {
        MPI_Allgather_init(k ? MPI_IN_PLACE : s, N, MPI_INT, g[k], N, MPI_INT, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &r[k]);
        MPI_Allgatherv_init(k ? MPI_IN_PLACE : s, cnt[rank], MPI_INT, gv[k], cnt, dis, MPI_INT,
                            MPI_COMM_WORLD, MPI_INFO_NULL, &r[2 + k]);
    }
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < N; i++)
            s[i] = val(rank, 0, it, i);
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < size * N; i++)
                g[k][i] = -1;
            for (int i = 0; i < size * (N + 2); i++)
                gv[k][i] = GAP;
        }
        for (int i = 0; i < N; i++)
            g[1][rank * N + i] = val(rank, 0, it, i);
        for (int i = 0; i < cnt[rank]; i++)
            gv[1][dis[rank] + i] = val(rank, 0, it, i);
        run(r, 4, it);
        for (int k = 0; k < 2; k++)
            for (int q = 0; q < size; q++)
                for (int i = 0; i < N; i++) {
                    CHECK(g[k][q * N + i] == val(q, 0, it, i), "allgather %d it %d", k, it);
                    int want = i < cnt[q] ? val(q, 0, it, i) : GAP;
                    CHECK(gv[k][dis[q] + i] == want, "allgatherv %d it %d", k, it);
                }
    }
    free_all(r, 4);
}

/* Elements rank a sends rank b in the v/w forms (symmetric). */
static int a2a_count(int a, int b) { return (a + b) % N + 1; }

/* Alltoall (plain, in place), Alltoallv (plain, in place), Alltoallw. */
static void test_alltoall(void)
{
    int s[64 * N] = {0}, d[3][64 * N], v[2][64 * N], sc[64], sd[64], bd[64];
    MPI_Datatype ty[64];
    MPI_Request r[5];
    for (int q = 0; q < size; q++) {
        sc[q] = a2a_count(rank, q);
        sd[q] = q * N;
        bd[q] = q * N * (int)sizeof(int);
        ty[q] = MPI_INT;
    }
    MPI_Alltoall_init(s, N, MPI_INT, d[0], N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Alltoall_init(MPI_IN_PLACE, N, MPI_INT, d[1], N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                      &r[1]);
    MPI_Alltoallv_init(s, sc, sd, MPI_INT, v[0], sc, sd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &r[2]);
    MPI_Alltoallv_init(MPI_IN_PLACE, sc, sd, MPI_INT, v[1], sc, sd, MPI_INT, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &r[3]);
    MPI_Alltoallw_init(s, sc, bd, ty, d[2], sc, bd, ty, MPI_COMM_WORLD, MPI_INFO_NULL, &r[4]);
    for (int it = 0; it < iters; it++) {
        for (int q = 0; q < size; q++)
            for (int i = 0; i < N; i++) {
                s[q * N + i] = d[1][q * N + i] = v[1][q * N + i] = val(rank, q, it, i);
                d[0][q * N + i] = d[2][q * N + i] = v[0][q * N + i] = GAP;
            }
        for (int q = 0; q < size; q++) /* in place: beyond the counts stays */
            for (int i = a2a_count(rank, q); i < N; i++)
                v[1][q * N + i] = GAP;
        run(r, 5, it);
        for (int q = 0; q < size; q++)
            for (int i = 0; i < N; i++) {
                int want = val(q, rank, it, i), wantv = i < sc[q] ? want : GAP;
                CHECK(d[0][q * N + i] == want, "alltoall it %d", it);
                CHECK(d[1][q * N + i] == want, "alltoall in place it %d", it);
                CHECK(v[0][q * N + i] == wantv, "alltoallv it %d q %d i %d", it, q, i);
                CHECK(v[1][q * N + i] == wantv, "alltoallv in place it %d", it);
                CHECK(d[2][q * N + i] == wantv, "alltoallw it %d", it);
            }
    }
    free_all(r, 5);
}

/* Sum over ranks [lo, hi) of element i of their input at iteration it. */
static int sum_of(int lo, int hi, int it, int i)
{
    int t = 0;
    for (int q = lo; q < hi; q++)
        t += val(q, 0, it, i);
    return t;
}

/* Reduce (root 0 plain, root size-1 in place), Allreduce (sum plain, max
 * in place), Scan and Exscan (plain and in place). */
static void test_reductions(void)
{
    int s[N] = {0}, d[8][N];
    MPI_Request r[8];
    int top = size - 1, iptop = rank == top;
    MPI_Reduce_init(s, d[0], N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Reduce_init(iptop ? MPI_IN_PLACE : s, d[1], N, MPI_INT, MPI_SUM, top, MPI_COMM_WORLD,
                    MPI_INFO_NULL, &r[1]);
    MPI_Allreduce_init(s, d[2], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    MPI_Allreduce_init(MPI_IN_PLACE, d[3], N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &r[3]);
    MPI_Scan_init(s, d[4], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[4]);
    MPI_Scan_init(MPI_IN_PLACE, d[5], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[5]);
    MPI_Exscan_init(s, d[6], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[6]);
    MPI_Exscan_init(MPI_IN_PLACE, d[7], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                    &r[7]);
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < N; i++) {
            s[i] = val(rank, 0, it, i);
            for (int k = 0; k < 8; k++)
                d[k][i] = -1;
            d[1][i] = iptop ? s[i] : -1;
            d[3][i] = d[5][i] = d[7][i] = s[i];
        }
        run(r, 8, it);
        for (int i = 0; i < N; i++) {
            int all = sum_of(0, size, it, i);
            if (rank == 0)
                CHECK(d[0][i] == all, "reduce it %d", it);
            if (rank == top)
                CHECK(d[1][i] == all, "reduce in place it %d", it);
            CHECK(d[2][i] == all, "allreduce it %d", it);
            CHECK(d[3][i] == val(size - 1, 0, it, i), "allreduce max in place it %d", it);
            CHECK(d[4][i] == sum_of(0, rank + 1, it, i), "scan it %d", it);
            CHECK(d[5][i] == sum_of(0, rank + 1, it, i), "scan in place it %d", it);
            if (rank > 0) {
                CHECK(d[6][i] == sum_of(0, rank, it, i), "exscan it %d", it);
                CHECK(d[7][i] == sum_of(0, rank, it, i), "exscan in place it %d", it);
            }
        }
    }
    free_all(r, 8);
}

/* Reduce_scatter (block q: q%N+1 elements) and Reduce_scatter_block,
 * plain and in place. */
static void test_reduce_scatter(void)
{
    int s[64 * N] = {0}, d[4][64 * N], cnt[64], off[64], total = 0;
    MPI_Request r[4];
    for (int q = 0; q < size; q++) {
        cnt[q] = q % N + 1;
        off[q] = total;
        total += cnt[q];
    }
    MPI_Reduce_scatter_init(s, d[0], cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Reduce_scatter_init(MPI_IN_PLACE, d[1], cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &r[1]);
    MPI_Reduce_scatter_block_init(s, d[2], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                  &r[2]);
    MPI_Reduce_scatter_block_init(MPI_IN_PLACE, d[3], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &r[3]);
    for (int it = 0; it < iters; it++) {
        /* Element e of the whole vector: val(rank, 0, it, e). */
        for (int e = 0; e < size * N; e++) {
            s[e] = d[1][e] = d[3][e] = val(rank, 0, it, e);
            d[0][e] = d[2][e] = -1;
        }
        run(r, 4, it);
        for (int i = 0; i < cnt[rank]; i++) {
            int want = sum_of(0, size, it, off[rank] + i);
            CHECK(d[0][i] == want, "reduce_scatter it %d i %d", it, i);
            CHECK(d[1][i] == want, "reduce_scatter in place it %d", it);
        }
        for (int i = 0; i < N; i++) {
            int want = sum_of(0, size, it, rank * N + i);
            CHECK(d[2][i] == want, "reduce_scatter_block it %d", it);
            CHECK(d[3][i] == want, "reduce_scatter_block in place it %d", it);
        }
    }
    free_all(r, 4);
}

/* Derived types: a Bcast of a strided vector (every other int) and an
 * Allreduce of 2-int contiguous elements, both packed at every start. */
static void test_derived(void)
{
    int b[2 * N], s[2 * N] = {0}, d[2 * N], root = 0;
    MPI_Datatype vec, pair;
    MPI_Request r[2];
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Bcast_init(b, 1, vec, root, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Allreduce_init(s, d, N, pair, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    /* Freed at once: the persistent requests keep what they use. */
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < 2 * N; i++) {
            b[i] = rank == root || i % 2 ? val(root, 1, it, i) : -1;
            s[i] = val(rank, 2, it, i);
            d[i] = -1;
        }
        run(r, 2, it);
        for (int i = 0; i < 2 * N; i++) {
            /* odd slots are not in the type: each rank keeps its own */
            CHECK(b[i] == val(root, 1, it, i), "derived bcast it %d [%d]", it, i);
            int want = 0;
            for (int q = 0; q < size; q++)
                want += val(q, 2, it, i);
            CHECK(d[i] == want, "derived allreduce it %d [%d]", it, i);
        }
    }
    free_all(r, 2);
}

/* MPI_Start of an active persistent collective: rank 0 starts its barrier
 * twice before telling rank 1 to start, so the first run is still active
 * (and on one rank, complete but not yet waited for: still active). */
static void test_start_active(void)
{
    MPI_Request b;
    int token = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &b);
    if (rank == 0) {
        CHECK(MPI_Start(&b) == MPI_SUCCESS, "first start");
        int rc = MPI_Start(&b);
        CHECK(mt_class(rc) == MPI_ERR_REQUEST, "second start: %s", mt_errstr(rc));
        if (size > 1)
            MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else {
        if (rank == 1)
            MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(MPI_Start(&b) == MPI_SUCCESS, "start");
    }
    CHECK(MPI_Wait(&b, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait");
    /* Inactive again: it starts once more. */
    CHECK(MPI_Start(&b) == MPI_SUCCESS, "restart");
    CHECK(MPI_Wait(&b, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait");
    /* A bad info is refused. */
    MPI_Request bad = MPI_REQUEST_NULL;
    int rc = MPI_Barrier_init(MPI_COMM_WORLD, (MPI_Info)0x1c0fffff, &bad);
    CHECK(mt_class(rc) == MPI_ERR_INFO, "bad info: %s", mt_errstr(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free_all(&b, 1);
}

/* MPI_Startall over persistent sends, receives and collectives at once. */
static void test_startall_mixed(void)
{
    int out = 0, in, sum, all[64];
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_Request r[4];
    MPI_Send_init(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &r[0]);
    MPI_Allreduce_init(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Recv_init(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r[2]);
    MPI_Allgather_init(&out, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]);
    for (int it = 0; it < iters; it++) {
        out = val(rank, 0, it, 0);
        in = sum = -1;
        CHECK(MPI_Startall(4, r) == MPI_SUCCESS, "Startall");
        CHECK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall");
        CHECK(in == val(left, 0, it, 0), "ring receive it %d", it);
        CHECK(sum == sum_of(0, size, it, 0), "allreduce it %d", it);
        for (int q = 0; q < size; q++)
            CHECK(all[q] == val(q, 0, it, 0), "allgather it %d", it);
    }
    free_all(r, 4);
}

/* Initialised in one order everywhere, started in rank-dependent orders
 * (MPI-4.0 allows it): each start must still meet its own kind. */
static void test_start_order(void)
{
    int x = 0, sum = 0, all[64], root_val = 0;
    MPI_Request r[3];
    MPI_Allreduce_init(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Allgather_init(&x, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Bcast_init(&root_val, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    for (int it = 0; it < iters / 10 + 1; it++) {
        x = val(rank, 0, it, 0);
        sum = -1;
        root_val = rank == 0 ? val(0, 1, it, 0) : -1;
        for (int k = 0; k < 3; k++) {
            int which = (rank + it + k) % 3; /* differs from rank to rank */
            CHECK(MPI_Start(&r[which]) == MPI_SUCCESS, "Start %d", which);
        }
        CHECK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall");
        CHECK(sum == sum_of(0, size, it, 0), "allreduce started out of order, it %d", it);
        for (int q = 0; q < size; q++)
            CHECK(all[q] == val(q, 0, it, 0), "allgather started out of order, it %d", it);
        CHECK(root_val == val(0, 1, it, 0), "bcast started out of order, it %d", it);
        /* A plain collective between the rounds keeps its own sequence. */
        int one = 1, n = 0;
        CHECK(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
              "blocking allreduce");
        CHECK(n == size, "blocking allreduce between rounds: %d", n);
    }
    free_all(r, 3);
}

/* Two persistent collectives active at once on one communicator, finished
 * one at a time by MPI_Test (polled) and MPI_Wait in the order opposite to
 * their starts, with a blocking collective of another kind and a
 * non-blocking one (finished by MPI_Wait) on the same communicator between
 * rounds: each single-request completion finishes its own collective and
 * no other, with its own result. */
static void test_single_completions(void) {
  int x = 0, sum = -1, root_val = 0, maxv = -1, ib = 0;
  MPI_Request r[2];
  MPI_Allreduce_init(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                     MPI_INFO_NULL, &r[0]);
  MPI_Bcast_init(&root_val, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                 &r[1]);
  for (int it = 0; it < iters; it++) {
    x = val(rank, 0, it, 0);
    sum = -1;
    root_val = rank == 0 ? val(0, 2, it, 0) : -1;
    CHECK(MPI_Start(&r[0]) == MPI_SUCCESS, "Start allreduce");
    CHECK(MPI_Start(&r[1]) == MPI_SUCCESS, "Start bcast");
    int done = 0;
    while (!done)
      CHECK(MPI_Test(&r[1], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS,
            "Test bcast");
    CHECK(r[1] != MPI_REQUEST_NULL, "persistent bcast freed by Test");
    CHECK(root_val == val(0, 2, it, 0), "bcast by Test, it %d", it);
    CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait allreduce");
    CHECK(r[0] != MPI_REQUEST_NULL, "persistent allreduce freed by Wait");
    CHECK(sum == sum_of(0, size, it, 0), "allreduce by Wait, it %d", it);
    /* Inactive now: a Wait or Test returns at once with an empty status. */
    done = 0;
    CHECK(MPI_Test(&r[0], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done,
          "Test of an inactive request");
    /* Another kind of collective on the communicator's segment between
     * the rounds, blocking and non-blocking. */
    CHECK(MPI_Reduce(&x, &maxv, 1, MPI_INT, MPI_MAX, size - 1,
                     MPI_COMM_WORLD) == MPI_SUCCESS,
          "blocking reduce");
    if (rank == size - 1)
      CHECK(maxv == val(size - 1, 0, it, 0),
            "blocking reduce between rounds, it %d", it);
    MPI_Request nb;
    ib = rank == 0 ? it : -1;
    CHECK(MPI_Ibcast(&ib, 1, MPI_INT, 0, MPI_COMM_WORLD, &nb) == MPI_SUCCESS,
          "Ibcast");
    CHECK(MPI_Wait(&nb, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait ibcast");
    CHECK(nb == MPI_REQUEST_NULL && ib == it, "ibcast between rounds, it %d",
          it);
  }
  free_all(r, 2);
}

/* MPI_Wait of a persistent collective whose run is done, as MPI_Start's
 * and MPI_Wait's fast paths take it, beside the cases they leave to the
 * general path: a status written (the request stays, inactive: a Wait or
 * Test of it again is immediate, with an empty status), MPI_Test until
 * done, a NULL status
 * (MPI_ERR_ARG, the run still active: a Start is MPI_ERR_REQUEST), a
 * request handle that is not one (MPI_ERR_REQUEST). */
static void test_wait_done(void)
{
    MPI_Request r;
    double in = 0, out = 0, want = 0;
    for (int q = 0; q < size; q++)
        want += q + 0.5;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Allreduce_init(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &r);
    for (int round = 0; round < 3; round++) {
        in = rank + 0.5;
        out = -1;
        MPI_Status st;
        st.MPI_SOURCE = -77;
        CHECK(MPI_Start(&r) == MPI_SUCCESS, "start");
        CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS, "wait with a status");
        CHECK(r != MPI_REQUEST_NULL && out == want, "round %d: %g, want %g",
              round, out, want);
        CHECK(st.MPI_SOURCE != -77, "status not written");
        int flag = 0;
        st.MPI_SOURCE = -77;
        CHECK(MPI_Test(&r, &flag, &st) == MPI_SUCCESS && flag &&
                  st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
              "test of the inactive request: flag %d source %d", flag,
              st.MPI_SOURCE);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
                  r != MPI_REQUEST_NULL,
              "wait of the inactive request");
    }
    /* Finished by MPI_Test: inactive after, so it starts again. */
    for (int round = 0; round < 3; round++) {
        int flag = 0;
        in = rank + 0.5;
        out = -1;
        CHECK(MPI_Start(&r) == MPI_SUCCESS, "start before tests");
        while (!flag)
            CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS,
                  "test");
        CHECK(r != MPI_REQUEST_NULL && out == want, "tested: %g, want %g",
              out, want);
    }
    in = rank + 0.5;
    out = -1; /* before the start, which may finish the run */
    CHECK(MPI_Start(&r) == MPI_SUCCESS, "start");
    int rc = MPI_Wait(&r, NULL);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "wait, NULL status: %s", mt_errstr(rc));
    rc = MPI_Start(&r);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "start of the active request: %s",
          mt_errstr(rc));
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && out == want,
          "wait after the errors: %g", out);
    MPI_Request bogus = (MPI_Request)0x7abc0001;
    rc = MPI_Wait(&bogus, MPI_STATUS_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "wait, bad handle: %s",
          mt_errstr(rc));
    rc = MPI_Start(&bogus);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "start, bad handle: %s",
          mt_errstr(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free_all(&r, 1);
}

/* A start that finishes its run inside MPI_Start, then one that cannot,
 * on the same requests: the second's MPI_Wait or MPI_Test must wait for
 * the peers' data, never take the first start's straight finish for its
 * own (the face request's coll_finished is written at every start;
 * bench/NOTES.md, start26 and coll27).  Every round has two phases.  In
 * the first, rank 0 starts last (after a message from every other rank,
 * each sent after its own start), so its run finishes inside its start;
 * in the second, rank 0 starts first and the others hold back until it
 * tells them, so its run cannot finish before they start.  The rank that
 * starts held back checks, where the round completes by MPI_Test, that
 * every test says "not done" and leaves the output untouched, then
 * releases the others and checks the sum of this phase's inputs (each
 * start's inputs differ).  The rounds take turns: MPI_Start with
 * MPI_Wait, with MPI_Test, MPI_Startall of two with MPI_Wait and with
 * MPI_Test, MPI_Start with MPI_Wait filling a status.  On a duplicate
 * communicator, whose segment's lanes are all fresh: a persistent
 * collective holds a lane of its own (and may finish inside its start)
 * only while the lanes last, and the tests above claim them all; its
 * segment is made by its first blocking collective (the Barrier), which
 * an _init does not do. */
enum straight_completion {
    STRAIGHT_WAIT,        /* MPI_Start, MPI_Wait without a status */
    STRAIGHT_TEST,        /* MPI_Start, MPI_Test without a status */
    STRAIGHT_ALL_WAIT,    /* MPI_Startall of both, MPI_Wait each */
    STRAIGHT_ALL_TEST,    /* MPI_Startall of both, MPI_Test each */
    STRAIGHT_WAIT_STATUS, /* MPI_Start, MPI_Wait with a status */
    STRAIGHT_KINDS
};

#define STRAIGHT_TESTS 50 /* MPI_Test calls that must say "not done" */

/* Rank q's input of phase `phase` (0: rank 0 last, 1: rank 0 first) of
 * round `round` to request k (0: the double sum, 1: the int max). */
static double straight_in(int q, int round, int phase, int k)
{
    return (q + 1) * 1000.0 + round * 10 + phase * 4 + k + 0.25;
}

static void straight_tell(MPI_Comm c, int tag)
{
    int token = tag;
    for (int q = rank == 0 ? 1 : 0; q < (rank == 0 ? size : 1); q++)
        MPI_Send(&token, 1, MPI_INT, q, tag, c);
}

static void straight_hear(MPI_Comm c, int tag)
{
    int token = -1;
    for (int q = rank == 0 ? 1 : 0; q < (rank == 0 ? size : 1); q++) {
        MPI_Recv(&token, 1, MPI_INT, q, tag, c, MPI_STATUS_IGNORE);
        CHECK(token == tag, "token %d from %d, want %d", token, q, tag);
    }
}

/* One rank's start of one phase: held (its peers start after it, once it
 * tells them) or last (after every peer told it). */
static void straight_phase(MPI_Comm c, MPI_Request *r, double *in,
                           double *sum, int *imax, int *iin, int round,
                           int phase, int held, enum straight_completion how)
{
    int n = how == STRAIGHT_ALL_WAIT || how == STRAIGHT_ALL_TEST ? 2 : 1;
    int by_test = how == STRAIGHT_TEST || how == STRAIGHT_ALL_TEST;
    double want_sum = 0;
    for (int q = 0; q < size; q++)
        want_sum += straight_in(q, round, phase, 0);
    int want_max = (int)straight_in(size - 1, round, phase, 1);
    if (!held)
        straight_hear(c, 100 + phase);
    *in = straight_in(rank, round, phase, 0);
    *iin = (int)straight_in(rank, round, phase, 1);
    *sum = -1;
    *imax = -1;
    if (n == 2)
        CHECK(MPI_Startall(2, r) == MPI_SUCCESS, "startall");
    else
        CHECK(MPI_Start(&r[0]) == MPI_SUCCESS, "start");
    if (held && by_test) {
        /* Its peers are not there: no test may finish it. */
        for (int t = 0; t < STRAIGHT_TESTS; t++)
            for (int k = 0; k < n; k++) {
                int flag = -1;
                CHECK(MPI_Test(&r[k], &flag, MPI_STATUS_IGNORE) ==
                              MPI_SUCCESS &&
                          flag == 0,
                      "round %d phase %d kind %d: request %d done (flag %d) "
                      "before the peers started",
                      round, phase, (int)how, k, flag);
            }
    }
    if (held)
        straight_tell(c, 100 + phase);
    for (int k = 0; k < n; k++) {
        if (by_test) {
            int flag = 0;
            while (!flag)
                CHECK(MPI_Test(&r[k], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS,
                      "test");
        } else if (how == STRAIGHT_WAIT_STATUS) {
            MPI_Status st;
            st.MPI_SOURCE = -77;
            st.MPI_TAG = -77;
            st.MPI_ERROR = -77;
            CHECK(MPI_Wait(&r[k], &st) == MPI_SUCCESS, "wait with a status");
            int count = -1;
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE &&
                      st.MPI_TAG == MPI_ANY_TAG && count == 0,
                  "round %d phase %d: status source %d tag %d count %d", round,
                  phase, st.MPI_SOURCE, st.MPI_TAG, count);
        } else {
            CHECK(MPI_Wait(&r[k], MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait");
        }
        CHECK(r[k] != MPI_REQUEST_NULL, "persistent request freed");
    }
    CHECK(*sum == want_sum, "round %d phase %d kind %d (%s): sum %g, want %g",
          round, phase, (int)how, held ? "held back" : "started last", *sum,
          want_sum);
    if (n == 2)
        CHECK(*imax == want_max, "round %d phase %d kind %d: max %d, want %d",
              round, phase, (int)how, *imax, want_max);
}

static void test_wait_after_straight(void)
{
    if (size < 2)
        return;
    MPI_Comm c;
    MPI_Request r[2];
    double in = 0, sum = 0;
    int iin = 0, imax = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Barrier(c);
    MPI_Allreduce_init(&in, &sum, 1, MPI_DOUBLE, MPI_SUM, c, MPI_INFO_NULL,
                       &r[0]);
    MPI_Allreduce_init(&iin, &imax, 1, MPI_INT, MPI_MAX, c, MPI_INFO_NULL,
                       &r[1]);
    for (int round = 0; round < 4 * STRAIGHT_KINDS; round++) {
        enum straight_completion how = round % STRAIGHT_KINDS;
        straight_phase(c, r, &in, &sum, &imax, &iin, round, 0, rank != 0, how);
        straight_phase(c, r, &in, &sum, &imax, &iin, round, 1, rank == 0, how);
    }
    free_all(r, 2);
    MPI_Comm_free(&c);
}

/* A 2x2 matrix of unsigned (wrapping) entries: the product, in rank
 * order, is a reduction whose operands must not be swapped. */
typedef struct { unsigned m[4]; } mat2_t;

static mat2_t mat2_mul(mat2_t a, mat2_t b)
{
    mat2_t c;
    c.m[0] = a.m[0] * b.m[0] + a.m[1] * b.m[2];
    c.m[1] = a.m[0] * b.m[1] + a.m[1] * b.m[3];
    c.m[2] = a.m[2] * b.m[0] + a.m[3] * b.m[2];
    c.m[3] = a.m[2] * b.m[1] + a.m[3] * b.m[3];
    return c;
}

/* MPI's order: inout = in op inout, in the earlier rank's. */
static void mat2_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    mat2_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = mat2_mul(a[i], b[i]);
}

static mat2_t mat2_of(int r, int it)
{
    mat2_t x = {{(unsigned)r + 2, (unsigned)(it % 7) + 1, (unsigned)(r % 3),
                 (unsigned)(it % 5) + 1}};
    return x;
}

/* A non-commutative user op's Allreduce_init of one 16-byte element, in
 * place, on a duplicate made fresh by a Barrier, so that its starts take
 * the lane's straight step (two ranks: its pair combine, which must
 * combine rank 0's operand into rank 1's, not the other way). */
static void test_noncommutative_straight(void)
{
    MPI_Comm c;
    MPI_Datatype t;
    MPI_Op op;
    MPI_Request r;
    mat2_t x;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Barrier(c);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &t);
    MPI_Type_commit(&t);
    MPI_Op_create(mat2_op, 0, &op);
    MPI_Allreduce_init(MPI_IN_PLACE, &x, 1, t, op, c, MPI_INFO_NULL, &r);
    for (int it = 0; it < iters; it++) {
        x = mat2_of(rank, it);
        mat2_t want = mat2_of(0, it);
        for (int q = 1; q < size; q++)
            want = mat2_mul(want, mat2_of(q, it));
        CHECK(MPI_Start(&r) == MPI_SUCCESS, "Start");
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
        for (int i = 0; i < 4; i++)
            CHECK(x.m[i] == want.m[i], "start %d: product entry %d %u, want %u",
                  it, i, x.m[i], want.m[i]);
    }
    MPI_Request_free(&r);
    MPI_Op_free(&op);
    MPI_Type_free(&t);
    MPI_Comm_free(&c);
}

/* What MPI_Start's and MPI_Wait's fast paths for persistent collectives
 * must leave to the checks one by one: MPI_REQUEST_NULL (Start:
 * MPI_ERR_REQUEST; Wait: at once, an empty status), a NULL request
 * pointer (MPI_ERR_ARG), a request that is not persistent
 * (MPI_ERR_REQUEST), a persistent collective's handle after its
 * MPI_Request_free (MPI_ERR_REQUEST); a good start after each. */
static void test_start_bad_handles(void)
{
    MPI_Request r, null = MPI_REQUEST_NULL;
    MPI_Status st;
    int in = rank + 1, out = -1, want = size * (size + 1) / 2;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &r);
    int rc = MPI_Start(&null);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "start of MPI_REQUEST_NULL: %s",
          mt_errstr(rc));
    st.MPI_SOURCE = -77;
    CHECK(MPI_Wait(&null, &st) == MPI_SUCCESS &&
              st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
          "wait of MPI_REQUEST_NULL: source %d", st.MPI_SOURCE);
    rc = MPI_Start(NULL);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "start of NULL: %s", mt_errstr(rc));
    rc = MPI_Wait(NULL, MPI_STATUS_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "wait of NULL: %s", mt_errstr(rc));
    MPI_Request plain;
    int self = 0;
    MPI_Irecv(&self, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &plain);
    rc = MPI_Start(&plain);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "start of an Irecv: %s",
          mt_errstr(rc));
    CHECK(MPI_Wait(&plain, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
              plain == MPI_REQUEST_NULL, "wait of the Irecv");
    CHECK(MPI_Start(&r) == MPI_SUCCESS, "good start");
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && out == want,
          "good wait: %d, want %d", out, want);
    MPI_Request stale = r;
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL,
          "free");
    rc = MPI_Start(&stale);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "start of a freed request: %s",
          mt_errstr(rc));
    rc = MPI_Wait(&stale, MPI_STATUS_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "wait of a freed request: %s",
          mt_errstr(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    if (argc > 1)
        iters = atoi(argv[1]);
    test_barrier_bcast();
    test_gather();
    test_scatter();
    test_allgather();
    test_alltoall();
    test_reductions();
    test_reduce_scatter();
    test_derived();
    test_start_active();
    test_startall_mixed();
    test_start_order();
    test_single_completions();
    test_wait_done();
    test_wait_after_straight();
    test_noncommutative_straight();
    test_start_bad_handles();
    MPI_Finalize();
    if (rank == 0)
        printf("coll_persistent: %d ranks, %d starts each: ok\n", size, iters);
    return 0;
}

/* Ibcast and Bcast_init of a large strided datatype stream it: the engine
 * packs and unpacks each message fragment by fragment
 * (hcomm_ibcast_acc), with no packed copy of the whole buffer.
 *
 *   coll_stream         a vector type of every third double (NELEM of
 *                       them, 2.4 MB packed; and a smaller one of 100,000)
 *                       broadcast by Ibcast from rank 0 and from the last
 *                       rank, and by a Bcast_init started REPLAYS times
 *                       with the data changed in between; every element
 *                       checked, and the gaps between them untouched.  The
 *                       rendezvous counters (MPI_T) of every receiving
 *                       rank: its large messages arrived as pipelined
 *                       fragments, none by a single-copy read of a packed
 *                       buffer (which a whole-message temporary would
 *                       have allowed).
 *                       Then, after a blocking Barrier (which makes the
 *                       shared-memory segment), Ibcasts whose root uses
 *                       the strided type while the others receive plain
 *                       doubles, and the other way round: one signature,
 *                       two layouts, so every rank must take the same path
 *                       (the segment or messages) whichever it has.
 *                       Then Gather, Igather, Gatherv (blocks of other
 *                       sizes, in reverse rank order), Gather_init and
 *                       Gather with MPI_IN_PLACE at the root, and their
 *                       Scatter mirrors, of blocks of NBLK doubles every
 *                       third (a resized type), with the root, the others or
 *                       everyone using the strided type and the rest plain
 *                       doubles: every element and gap checked, and again
 *                       no large message read whole from a packed buffer
 *                       (the linear pattern streams; on more ranks than
 *                       HCMPI_COLL_GATHER_LINEAR_MAX a tree packs, and the
 *                       .sh runs that with plain).
 *   coll_stream plain   the data checks only (no counters).
 */
#include "mpitest.h"

enum { NELEM = 300000, NSMALL = 100000, STRIDE = 3, REPLAYS = 20 };

static int wrank, wsize;

static double value(int it, int i) { return (double)it * 1e6 + (double)i; }

/* buf holds n elements at stride STRIDE; the gaps hold -1. */
static void fill(double *buf, int n, int it, int is_root)
{
    for (int i = 0; i < n * STRIDE; i++)
        buf[i] = -1.0;
    for (int i = 0; i < n; i++)
        buf[i * STRIDE] = is_root ? value(it, i) : -2.0;
}

static void verify(const double *buf, int n, int it, const char *what)
{
    for (int i = 0; i < n; i++) {
        CHECK(buf[i * STRIDE] == value(it, i), "%s, round %d: element %d = %g", what, it, i,
              buf[i * STRIDE]);
        for (int g = 1; g < STRIDE; g++)
            CHECK(buf[i * STRIDE + g] == -1.0, "%s, round %d: gap after %d written", what,
                  it, i);
    }
}

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handles[2];
static const char *const names[2] = {"rndv_get_messages", "rndv_pipelined_messages"};

static void ibcast_round(double *buf, int n, MPI_Datatype t, int root, int it)
{
    MPI_Request r;
    fill(buf, n, it, wrank == root);
    CHECK(MPI_Ibcast(buf, 1, t, root, MPI_COMM_WORLD, &r) == MPI_SUCCESS, "Ibcast");
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
    verify(buf, n, it, root == 0 ? "Ibcast from rank 0" : "Ibcast from the last rank");
}

/* ---- gather and scatter ------------------------------------------------- */

enum { NBLK = 40000 };

/* Rank r's element i in round it (rank -1: the root's own for scatter). */
static double gval(int it, int r, int i) { return (double)it * 1e7 + (double)r * 1e5 + i; }

/* The block count of rank r in the v-forms, and where its block goes (in
 * elements of the root's buffer): reverse rank order. */
static int vcount(int r) { return NBLK - 7 * r; }

static int vdispl(int r)
{
    int at = 0;
    for (int q = wsize - 1; q > r; q--)
        at += vcount(q);
    return at;
}

/* Blocks of the kind's rounds: the v-form's, or NBLK each in rank order. */
static void gs_tables(int kind, int *counts, int *displs)
{
    for (int r = 0; r < wsize; r++) {
        counts[r] = kind == 2 ? vcount(r) : NBLK;
        displs[r] = kind == 2 ? vdispl(r) : r * NBLK;
    }
}

/* n elements at stride (1: plain doubles, STRIDE: the strided type); the
 * gaps of a strided buffer hold -1, the elements fill(i). */
static void gs_fill(double *buf, int n, int stride, double (*f)(int, int, int), int it, int r)
{
    for (int i = 0; i < n * stride; i++)
        buf[i] = -1.0;
    for (int i = 0; i < n; i++)
        buf[i * stride] = f != NULL ? f(it, r, i) : -2.0;
}

static void gs_check(const double *buf, int n, int stride, int it, int r, int first,
                     const char *what)
{
    for (int i = 0; i < n; i++) {
        CHECK(buf[(first + i) * stride] == gval(it, r, i), "%s, round %d: rank %d's element %d = %g",
              what, it, r, i, buf[(first + i) * stride]);
        for (int g = 1; g < stride; g++)
            CHECK(buf[(first + i) * stride + g] == -1.0, "%s, round %d: gap written", what, it);
    }
}

/* kind: 0 Igather, 1 Gather, 2 Gatherv, 3 Gather_init (started 3 times),
 * 4 Gather in place; layout: 0 strided everywhere, 1 strided at the root
 * only, 2 strided off the root only. */
static int gather_round(double *big, double *mine, MPI_Datatype every3, int kind, int layout,
                        int root, int it)
{
    int is_root = wrank == root;
    int rstride = layout == 2 ? 1 : STRIDE, sstride = layout == 1 ? 1 : STRIDE;
    if (kind == 4) /* the root's own block is in place: one layout, strided */
        sstride = rstride = STRIDE;
    MPI_Datatype rt = rstride == 1 ? MPI_DOUBLE : every3, stype = sstride == 1 ? MPI_DOUBLE : every3;
    int counts[64], displs[64];
    gs_tables(kind, counts, displs);
    int starts = kind == 3 ? 3 : 1;
    MPI_Request req = MPI_REQUEST_NULL;
    if (kind == 3)
        CHECK(MPI_Gather_init(mine, NBLK, stype, big, NBLK, rt, root, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &req) == MPI_SUCCESS,
              "Gather_init");
    for (int k = 0; k < starts; k++, it++) {
        gs_fill(mine, counts[wrank], sstride, gval, it, wrank);
        if (is_root) {
            gs_fill(big, wsize * NBLK, rstride, NULL, it, 0);
            if (kind == 4) /* the root's contribution, where it lands */
                for (int i = 0; i < NBLK; i++)
                    big[(root * NBLK + i) * rstride] = gval(it, root, i);
        }
        int rc;
        if (kind == 0) {
            CHECK(MPI_Igather(mine, NBLK, stype, big, NBLK, rt, root, MPI_COMM_WORLD, &req) ==
                      MPI_SUCCESS,
                  "Igather");
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (kind == 1) {
            rc = MPI_Gather(mine, NBLK, stype, big, NBLK, rt, root, MPI_COMM_WORLD);
        } else if (kind == 2) {
            rc = MPI_Gatherv(mine, counts[wrank], stype, big, counts, displs, rt, root,
                             MPI_COMM_WORLD);
        } else if (kind == 3) {
            CHECK(MPI_Start(&req) == MPI_SUCCESS, "Start");
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Gather(is_root ? MPI_IN_PLACE : mine, NBLK, stype, big, NBLK, rt, root,
                            MPI_COMM_WORLD);
        }
        CHECK(rc == MPI_SUCCESS, "gather kind %d layout %d: %s", kind, layout, mt_errstr(rc));
        for (int r = 0; is_root && r < wsize; r++)
            gs_check(big, counts[r], rstride, it, r, displs[r], "gather");
    }
    if (kind == 3)
        CHECK(MPI_Request_free(&req) == MPI_SUCCESS, "Request_free");
    return it;
}

/* The mirror: kind 4 is Scatter with MPI_IN_PLACE at the root; layout 1
 * strided at the root only, 2 off the root only. */
static int scatter_round(double *big, double *mine, MPI_Datatype every3, int kind, int layout,
                         int root, int it)
{
    int is_root = wrank == root;
    int sstride = layout == 2 ? 1 : STRIDE, rstride = layout == 1 ? 1 : STRIDE;
    MPI_Datatype st = sstride == 1 ? MPI_DOUBLE : every3, rtype = rstride == 1 ? MPI_DOUBLE : every3;
    int counts[64], displs[64];
    gs_tables(kind, counts, displs);
    int starts = kind == 3 ? 3 : 1;
    MPI_Request req = MPI_REQUEST_NULL;
    if (kind == 3)
        CHECK(MPI_Scatter_init(big, NBLK, st, mine, NBLK, rtype, root, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req) == MPI_SUCCESS,
              "Scatter_init");
    for (int k = 0; k < starts; k++, it++) {
        if (is_root) {
            gs_fill(big, wsize * NBLK, sstride, NULL, it, 0);
            for (int r = 0; r < wsize; r++)
                for (int i = 0; i < counts[r]; i++)
                    big[(displs[r] + i) * sstride] = gval(it, r, i);
        }
        gs_fill(mine, counts[wrank], rstride, NULL, it, wrank);
        int rc;
        if (kind == 0) {
            CHECK(MPI_Iscatter(big, NBLK, st, mine, NBLK, rtype, root, MPI_COMM_WORLD, &req) ==
                      MPI_SUCCESS,
                  "Iscatter");
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (kind == 1) {
            rc = MPI_Scatter(big, NBLK, st, mine, NBLK, rtype, root, MPI_COMM_WORLD);
        } else if (kind == 2) {
            rc = MPI_Scatterv(big, counts, displs, st, mine, counts[wrank], rtype, root,
                              MPI_COMM_WORLD);
        } else if (kind == 3) {
            CHECK(MPI_Start(&req) == MPI_SUCCESS, "Start");
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Scatter(big, NBLK, st, is_root ? MPI_IN_PLACE : mine, NBLK, rtype, root,
                             MPI_COMM_WORLD);
        }
        CHECK(rc == MPI_SUCCESS, "scatter kind %d layout %d: %s", kind, layout, mt_errstr(rc));
        if (kind == 4 && is_root)
            gs_check(big, NBLK, sstride, it, root, root * NBLK, "scatter in place, root's block");
        else
            gs_check(mine, counts[wrank], rstride, it, wrank, 0, "scatter");
    }
    if (kind == 3)
        CHECK(MPI_Request_free(&req) == MPI_SUCCESS, "Request_free");
    return it;
}

static int gather_scatter(int it)
{
    double *big = malloc((size_t)wsize * NBLK * STRIDE * sizeof *big);
    double *mine = malloc((size_t)NBLK * STRIDE * sizeof *mine);
    CHECK(big != NULL && mine != NULL, "malloc");
    MPI_Datatype every3;
    MPI_Type_create_resized(MPI_DOUBLE, 0, STRIDE * (MPI_Aint)sizeof(double), &every3);
    MPI_Type_commit(&every3);
    for (int kind = 0; kind < 5; kind++)
        for (int layout = 0; layout < 3; layout++) {
            int root = (kind + layout) % wsize;
            it = gather_round(big, mine, every3, kind, layout, root, it);
            it = scatter_round(big, mine, every3, kind, layout, root, it);
        }
    MPI_Type_free(&every3);
    free(big);
    free(mine);
    return it;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int counted = !(argc > 1 && strcmp(argv[1], "plain") == 0);
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init");
    if (counted)
        mt_counters_open(&session, 2, names, handles);
    double *buf = malloc((size_t)NELEM * STRIDE * sizeof *buf);
    CHECK(buf != NULL, "malloc");
    MPI_Datatype big, small;
    MPI_Type_vector(NELEM, 1, STRIDE, MPI_DOUBLE, &big);
    MPI_Type_vector(NSMALL, 1, STRIDE, MPI_DOUBLE, &small);
    MPI_Type_commit(&big);
    MPI_Type_commit(&small);
    unsigned long long got0 = 0, piped0 = 0;
    if (counted) {
        got0 = mt_counters_sum(session, 1, &handles[0]);
        piped0 = mt_counters_sum(session, 1, &handles[1]);
    }
    int it = 0;
    for (int k = 0; k < 3; k++) {
        ibcast_round(buf, NELEM, big, 0, it++);
        ibcast_round(buf, NELEM, big, wsize - 1, it++);
        ibcast_round(buf, NSMALL, small, wsize / 2, it++);
    }
    MPI_Request pr;
    CHECK(MPI_Bcast_init(buf, 1, big, wsize - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &pr) ==
              MPI_SUCCESS,
          "Bcast_init");
    /* The type may go while the persistent request holds it. */
    MPI_Type_free(&big);
    for (int k = 0; k < REPLAYS; k++, it++) {
        fill(buf, NELEM, it, wrank == wsize - 1);
        CHECK(MPI_Start(&pr) == MPI_SUCCESS, "Start");
        CHECK(MPI_Wait(&pr, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
        verify(buf, NELEM, it, "Bcast_init");
    }
    CHECK(MPI_Request_free(&pr) == MPI_SUCCESS, "Request_free");
    if (counted && wsize > 1) {
        unsigned long long got = mt_counters_sum(session, 1, &handles[0]) - got0;
        unsigned long long piped = mt_counters_sum(session, 1, &handles[1]) - piped0;
        /* Every rank receives in every round but the one where it is the
         * root of every message; each receives at least once overall. */
        CHECK(piped > 0, "no pipelined rendezvous arrived (%llu single-copy reads)", got);
        CHECK(got == 0, "%llu large messages were read whole from a packed buffer", got);
    }
    /* Mixed layouts, in the segment where there is one. */
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "Barrier");
    MPI_Datatype strided;
    MPI_Type_vector(NELEM, 1, STRIDE, MPI_DOUBLE, &strided);
    MPI_Type_commit(&strided);
    for (int k = 0; k < 4; k++, it++) {
        int root = k % wsize, root_strided = k % 2 == 0;
        int mine_strided = wrank == root ? root_strided : !root_strided;
        MPI_Request r;
        if (mine_strided) {
            fill(buf, NELEM, it, wrank == root);
        } else {
            for (int i = 0; i < NELEM; i++)
                buf[i] = wrank == root ? value(it, i) : -2.0;
        }
        CHECK(MPI_Ibcast(buf, mine_strided ? 1 : NELEM, mine_strided ? strided : MPI_DOUBLE,
                         root, MPI_COMM_WORLD, &r) == MPI_SUCCESS,
              "Ibcast, mixed layouts");
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
        if (mine_strided)
            verify(buf, NELEM, it, "Ibcast, mixed layouts, strided here");
        for (int i = 0; !mine_strided && i < NELEM; i++)
            CHECK(buf[i] == value(it, i), "Ibcast, mixed layouts, plain here: [%d] = %g", i,
                  buf[i]);
    }
    MPI_Type_free(&strided);
    MPI_Type_free(&small);
    if (counted) {
        got0 = mt_counters_sum(session, 1, &handles[0]);
        piped0 = mt_counters_sum(session, 1, &handles[1]);
    }
    it = gather_scatter(it);
    if (counted && wsize > 1) {
        unsigned long long got = mt_counters_sum(session, 1, &handles[0]) - got0;
        unsigned long long piped = mt_counters_sum(session, 1, &handles[1]) - piped0;
        CHECK(piped > 0, "gather/scatter: no pipelined rendezvous arrived (%llu single-copy reads)",
              got);
        CHECK(got == 0, "gather/scatter: %llu large messages were read whole from a packed buffer",
              got);
    }
    free(buf);
    if (counted)
        MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_stream: %d broadcasts, gathers and scatters of strided types on %d ranks passed\n", it, wsize);
    return 0;
}

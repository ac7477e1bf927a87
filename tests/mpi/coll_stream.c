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
    free(buf);
    if (counted)
        MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_stream: %d broadcasts of strided types on %d ranks passed\n", it, wsize);
    return 0;
}

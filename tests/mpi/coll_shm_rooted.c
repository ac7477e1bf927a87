/* Gather(v) and Scatter(v) on a communicator of one node: the blocking
 * Gather and Scatter of blocks of at most a small buffer (512 bytes, 64
 * KiB in all) run in its shared-memory segment (src/hcomm/shmcoll.c), the
 * rest by the schedules; checked byte by byte against a serial reference.
 *
 *   coll_shm_rooted          every root of MPI_COMM_WORLD and of a split
 *                            whose order is reversed: Gatherv and Scatterv
 *                            with uneven counts (zeros among them, blocks
 *                            on both sides of the small buffer's 512
 *                            bytes), displacements in reverse order with
 *                            gaps (the gaps must stay untouched), in
 *                            place at the root and not; the same with a
 *                            strided type at the root and at the senders
 *                            (packed views); Gather and Scatter of 1 to
 *                            300 ints.  Gather and Scatter of blocks of at
 *                            most 512 bytes (in place and not) move no
 *                            transport message on 2 or more ranks (MPI_T
 *                            counters).
 *   coll_shm_rooted plain    results only (segments off, tcp, another MPI).
 */
#include "mpitest.h"

static int wrank, wsize;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle sent[2];
static const char *const sent_names[2] = {"eager_sent_messages", "rndv_sent_messages"};
static int counted;

#define GAP (-7)

static unsigned long long messages_sent(void)
{
    return counted ? mt_counters_sum(session, 2, sent) : 0;
}

/* Element i of rank r's block in iteration it, for root root. */
static int elem(int r, int root, int it, int i)
{
    return r * 100003 + root * 1009 + it * 31 + i;
}

/* Uneven counts: zeros for every third rank, the others about the small
 * buffer's 128 ints (small: all of them at most 128). */
static void layout(int n, int it, int small, int *counts, int *displs, int *total)
{
    int at = 0;
    for (int r = 0; r < n; r++)
        counts[r] = r % 3 == 1 ? 0 : small ? (r * 37 + it * 11) % 129 : (r * 97 + it * 61) % 300;
    for (int r = n - 1; r >= 0; r--) { /* reverse order, a gap of 2 after each */
        displs[r] = at;
        at += counts[r] + 2;
    }
    *total = at;
}

/* stride: 1 plain ints, 2 a type of one int every two (root side: rtype). */
static void gatherv_case(MPI_Comm comm, int it, int small, int inplace, int stride)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *counts = mt_malloc(sizeof(int) * (size_t)n), *displs = mt_malloc(sizeof(int) * (size_t)n);
    int total;
    layout(n, it, small, counts, displs, &total);
    MPI_Datatype every_other;
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &every_other);
    MPI_Type_commit(&every_other);
    MPI_Datatype t = stride == 2 ? every_other : MPI_INT;
    for (int root = 0; root < n; root++) {
        size_t cells = (size_t)total * (size_t)stride + 1;
        int *all = mt_malloc(sizeof(int) * cells), *mine = mt_malloc(sizeof(int) * (300 * 2 + 1));
        for (size_t k = 0; k < cells; k++)
            all[k] = GAP;
        for (int i = 0; i < counts[rank]; i++)
            mine[i * stride] = elem(rank, root, it, i);
        int self = rank == root && inplace;
        if (self)
            for (int i = 0; i < counts[rank]; i++)
                all[(size_t)(displs[rank] + i) * (size_t)stride] = elem(rank, root, it, i);
        /* gather: the root's side of type t; the senders' too */
        CHECK(MPI_Gatherv(self ? MPI_IN_PLACE : mine, counts[rank], t, all, counts, displs, t,
                          root, comm) == MPI_SUCCESS,
              "gatherv");
        for (int r = 0; rank == root && r < n; r++) {
            for (int i = 0; i < counts[r]; i++)
                CHECK(all[(size_t)(displs[r] + i) * (size_t)stride] == elem(r, root, it, i),
                      "gatherv it %d root %d stride %d: rank %d's [%d] is %d", it, root, stride,
                      r, i, all[(size_t)(displs[r] + i) * (size_t)stride]);
            for (int g = 0; g < 2; g++)
                CHECK(all[(size_t)(displs[r] + counts[r] + g) * (size_t)stride] == GAP,
                      "gatherv wrote a gap");
        }
        /* scatter back what the root holds (the senders' elements + 1) */
        for (int r = 0; rank == root && r < n; r++)
            for (int i = 0; i < counts[r]; i++)
                all[(size_t)(displs[r] + i) * (size_t)stride] += 1;
        for (int i = 0; i < counts[rank]; i++)
            mine[i * stride] = GAP;
        CHECK(MPI_Scatterv(all, counts, displs, t, self ? MPI_IN_PLACE : mine, counts[rank], t,
                           root, comm) == MPI_SUCCESS,
              "scatterv");
        const int *got = self ? all + (size_t)displs[rank] * (size_t)stride : mine;
        for (int i = 0; i < counts[rank]; i++)
            CHECK(got[i * stride] == elem(rank, root, it, i) + 1,
                  "scatterv it %d root %d stride %d: [%d] is %d", it, root, stride, i,
                  got[i * stride]);
        free(all);
        free(mine);
    }
    MPI_Type_free(&every_other);
    free(counts);
    free(displs);
}

static void fixed_case(MPI_Comm comm, int it, int each, int inplace)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    for (int root = 0; root < n; root++) {
        int *all = mt_malloc(sizeof(int) * (size_t)(n * each)), *mine = mt_malloc(sizeof(int) * (size_t)each);
        int self = rank == root && inplace;
        for (int i = 0; i < each; i++)
            mine[i] = elem(rank, root, it, i);
        for (int k = 0; k < n * each; k++)
            all[k] = GAP;
        if (self)
            memcpy(all + rank * each, mine, sizeof(int) * (size_t)each);
        CHECK(MPI_Gather(self ? MPI_IN_PLACE : mine, each, MPI_INT, all, each, MPI_INT, root,
                         comm) == MPI_SUCCESS,
              "gather");
        for (int k = 0; rank == root && k < n * each; k++)
            CHECK(all[k] == elem(k / each, root, it, k % each), "gather it %d root %d each %d: [%d]",
                  it, root, each, k);
        for (int k = 0; rank == root && k < n * each; k++)
            all[k] -= 5;
        for (int i = 0; i < each; i++)
            mine[i] = GAP;
        CHECK(MPI_Scatter(all, each, MPI_INT, self ? MPI_IN_PLACE : mine, each, MPI_INT, root,
                          comm) == MPI_SUCCESS,
              "scatter");
        const int *got = self ? all + rank * each : mine;
        for (int i = 0; i < each; i++)
            CHECK(got[i] == elem(rank, root, it, i) - 5, "scatter it %d root %d each %d: [%d]", it,
                  root, each, i);
        free(all);
        free(mine);
    }
}

/* Gather and Scatter of blocks of at most the small buffer: no message
 * moves; the v-forms' small blocks (the schedule). */
static void small_round(MPI_Comm comm, int it)
{
    unsigned long long before = messages_sent();
    for (int inplace = 0; inplace < 2; inplace++) {
        fixed_case(comm, it, 1, inplace);
        fixed_case(comm, it, 128, inplace);
    }
    if (counted)
        CHECK(messages_sent() == before, "small gathers and scatters sent %llu messages",
              messages_sent() - before);
    for (int inplace = 0; inplace < 2; inplace++)
        gatherv_case(comm, it, 1, inplace, 1);
}

static void any_round(MPI_Comm comm, int it)
{
    for (int inplace = 0; inplace < 2; inplace++)
        for (int stride = 1; stride <= 2; stride++)
            gatherv_case(comm, it, 0, inplace, stride);
    fixed_case(comm, it, 129, 0);
    fixed_case(comm, it, 300, 1);
}

int main(int argc, char **argv)
{
    int plain = argc > 1 && strcmp(argv[1], "plain") == 0;
    int provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (!plain && wsize >= 2) {
        CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "T_init");
        mt_counters_open(&session, 2, sent_names, sent);
        counted = 1;
    }
    MPI_Comm split;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &split);
    MPI_Comm comms[2] = {MPI_COMM_WORLD, split};
    for (int k = 0; k < 2; k++) /* makes the segments (messages) */
        CHECK(MPI_Barrier(comms[k]) == MPI_SUCCESS, "barrier");
    for (int it = 0; it < 3; it++) {
        for (int k = 0; k < 2; k++) {
            small_round(comms[k], it);
            any_round(comms[k], it);
        }
    }
    MPI_Comm_free(&split);
    if (wrank == 0)
        printf("coll_shm_rooted: PASS on %d ranks\n", wsize);
    if (counted)
        mt_counters_finalize(&session);
    else
        MPI_Finalize();
    return 0;
}

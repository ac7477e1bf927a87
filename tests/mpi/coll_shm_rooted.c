/* Gather(v) and Scatter(v) on a communicator of one node: the blocking
 * Gather and Scatter of blocks of at most 512 bytes (small buffers), or 2
 * KiB (large buffers, or on a crowded node spans of small ones; 64 KiB in
 * all), or of
 * 16 KiB and more, and every
 * blocking Gatherv and Scatterv run in its shared-memory segment (src/hcomm/shmcoll_rooted.c), the rest by the
 * schedules; checked byte by byte against a serial reference.
 *
 *   coll_shm_rooted          every root of MPI_COMM_WORLD and of a split
 *                            whose order is reversed: Gatherv and Scatterv
 *                            with uneven counts (zeros among them, blocks
 *                            on both sides of the small buffer's 512
 *                            bytes and of the 2 KiB of a block through a
 *                            buffer), displacements in reverse order with
 *                            gaps (the gaps must stay untouched), in
 *                            place at the root and not; the same with a
 *                            strided type at the root and at the senders
 *                            (packed views); Gather and Scatter of 1 to
 *                            300, 512 and 513 ints; Gatherv and Scatterv of blocks of
 *                            20000 strided ints (above 64 KiB, where a
 *                            derived type would stream) at the root and
 *                            one other rank beside others' 100 plain ints
 *                            and empty blocks.  Gather(v) and Scatter(v)
 *                            of blocks of at most 512 bytes, Gather and
 *                            Scatter of up to 2 KiB (129, 256, 300 and 512
 *                            ints: spans of 2, 2, 3 and 4 small buffers
 *                            on a crowded node), and Gatherv and Scatterv
 *                            of up to 2 KiB (large buffers, or medium ones
 *                            where the node is crowded: more ranks, up to
 *                            16, than HCMPI_COLL_SHM_CPUS, else those
 *                            online), in
 *                            place and not, plain and strided, move no
 *                            transport message on 2 or more ranks (MPI_T
 *                            counters);
 *                            nor do the gathers' blocks of 16 KiB and more
 *                            of plain ints at the root, read in place
 *                            (fixed forms of 16 KiB blocks, v-forms of
 *                            4096 ints and more beside 128 and fewer).
 *                            First, on a duplicate of MPI_COMM_WORLD whose
 *                            segment a small Scatter makes, 600 rounds
 *                            (past a small buffer's ring) of Scatter,
 *                            Scatterv, Bcast, Gather and Reduce of 2 ints
 *                            and Gather and Scatter of 300 ints (spans of
 *                            three small buffers where crowded, some
 *                            across the ring's end), and Gatherv and
 *                            Scatterv of 2, 300 and 512 ints (medium
 *                            buffers where crowded, 64 deep), every root,
 *                            in place at the root on odd ones.  Then 1,500
 *                            Scatters and Scatterv of 2, 14, 15, 100 and
 *                            300 ints (56 bytes the last in a post line;
 *                            Scatterv of 14 ints gives odd ranks 15) back
 *                            to back, a slow root every 7th, an
 *                            Iscatterv every 11th, a Bcast every 13th.
 *                            Then stretches of 150 Gatherv, then of 150
 *                            Scatterv, back to back, of 2 to 512 ints, the
 *                            side that would run ahead held back by a slow
 *                            rank (past the medium buffers' ring).
 *   coll_shm_rooted noreads  the same, larger blocks by messages allowed
 *                            (reads refused: no CMA).
 *   coll_shm_rooted plain    results only (segments off, tcp, another MPI).
 */
#include "mpitest.h"

#include <unistd.h>

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

/* Messages this rank sent in the Gather(v) calls so far. */
static unsigned long long gather_messages;

/* Element i of rank r's block in iteration it, for root root. */
static int elem(int r, int root, int it, int i)
{
    return r * 100003 + root * 1009 + it * 31 + i;
}

/* Block sizes of a layout: all within the small buffer's 128 ints, about
 * them, buffered (up to 512 ints = 2 KiB: through the small buffers up to
 * 128, the large ones above; both edges among them), wide (128 ints or
 * fewer through the small buffers, 4096 ints = 16 KiB and more read in
 * place; each threshold's edge among them), or between (513 to 4095
 * ints: messages). */
enum { SIZES_SMALL = 1, SIZES_ABOUT = 0, SIZES_WIDE = 2, SIZES_MID = 3, SIZES_BUFFERED = 4 };

static int block_count(int r, int it, int sizes)
{
    if (r % 3 == 1)
        return 0;
    if (sizes == SIZES_SMALL)
        return (r * 37 + it * 11) % 129;
    if (sizes == SIZES_ABOUT)
        return (r * 97 + it * 61) % 300;
    int spread = (r * 997 + it * 613) % 1024;
    if (sizes == SIZES_BUFFERED && r % 3 == 2)
        return (r / 3 + it) % 2 ? 512 : 129;
    if (sizes == SIZES_BUFFERED)
        return 1 + spread / 2;
    if (sizes == SIZES_MID)
        return 513 + spread * 3;
    if (r % 3 == 2)
        return (r / 3 + it) % 2 ? 128 : 4096;
    return (r / 3 + it) % 2 ? 1 + spread % 128 : 4097 + spread * 2;
}

/* Uneven counts: zeros for every third rank, the others as sizes says. */
static void layout(int n, int it, int sizes, int *counts, int *displs, int *total)
{
    int at = 0;
    for (int r = 0; r < n; r++)
        counts[r] = block_count(r, it, sizes);
    for (int r = n - 1; r >= 0; r--) { /* reverse order, a gap of 2 after each */
        displs[r] = at;
        at += counts[r] + 2;
    }
    *total = at;
}

/* A side of a v-form: its type, and the ints it spans per element (1
 * plain ints, 2 a type of one int every two). */
typedef struct side {
    MPI_Datatype type;
    int stride;
} side_t;

/* Gatherv to root of counts[r] ints of every rank r at displs (total
 * elements in all, gaps included), checked with its gaps, then Scatterv
 * of them back (plus one), checked: at the root through side many, at
 * each rank's own block through side one (in place at the root where
 * inplace). */
static void gatherv_scatterv(MPI_Comm comm, int it, int root, const int *counts,
                             const int *displs, int total, side_t many, side_t one,
                             int inplace)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    size_t cells = (size_t)total * (size_t)many.stride + 1, ms = (size_t)many.stride;
    int *all = mt_malloc(sizeof(int) * cells);
    int *mine = mt_malloc(sizeof(int) * ((size_t)counts[rank] * (size_t)one.stride + 1));
    for (size_t k = 0; k < cells; k++)
        all[k] = GAP;
    for (int i = 0; i < counts[rank]; i++)
        mine[i * one.stride] = elem(rank, root, it, i);
    int self = rank == root && inplace;
    if (self)
        for (int i = 0; i < counts[rank]; i++)
            all[(size_t)(displs[rank] + i) * ms] = elem(rank, root, it, i);
    unsigned long long before = messages_sent();
    CHECK(MPI_Gatherv(self ? MPI_IN_PLACE : mine, counts[rank], one.type, all, counts, displs,
                      many.type, root, comm) == MPI_SUCCESS,
          "gatherv");
    gather_messages += messages_sent() - before;
    for (int r = 0; rank == root && r < n; r++) {
        for (int i = 0; i < counts[r]; i++)
            CHECK(all[(size_t)(displs[r] + i) * ms] == elem(r, root, it, i),
                  "gatherv it %d root %d stride %d: rank %d's [%d] is %d", it, root, many.stride,
                  r, i, all[(size_t)(displs[r] + i) * ms]);
        for (int g = 0; g < 2; g++)
            CHECK(all[(size_t)(displs[r] + counts[r] + g) * ms] == GAP, "gatherv wrote a gap");
    }
    /* scatter back what the root holds (the senders' elements + 1) */
    for (int r = 0; rank == root && r < n; r++)
        for (int i = 0; i < counts[r]; i++)
            all[(size_t)(displs[r] + i) * ms] += 1;
    for (int i = 0; i < counts[rank]; i++)
        mine[i * one.stride] = GAP;
    CHECK(MPI_Scatterv(all, counts, displs, many.type, self ? MPI_IN_PLACE : mine, counts[rank],
                       one.type, root, comm) == MPI_SUCCESS,
          "scatterv");
    for (int i = 0; i < counts[rank]; i++) {
        int got = self ? all[(size_t)(displs[rank] + i) * ms] : mine[i * one.stride];
        CHECK(got == elem(rank, root, it, i) + 1, "scatterv it %d root %d stride %d: [%d] is %d",
              it, root, one.stride, i, got);
    }
    free(all);
    free(mine);
}

static MPI_Datatype every_other_int(void)
{
    MPI_Datatype t;
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &t);
    MPI_Type_commit(&t);
    return t;
}

/* stride: 1 plain ints, 2 one int every two, at every side. */
static void gatherv_case(MPI_Comm comm, int it, int sizes, int inplace, int stride)
{
    int n;
    MPI_Comm_size(comm, &n);
    int *counts = mt_malloc(sizeof(int) * (size_t)n), *displs = mt_malloc(sizeof(int) * (size_t)n);
    int total;
    layout(n, it, sizes, counts, displs, &total);
    MPI_Datatype every_other = every_other_int();
    side_t both = {stride == 2 ? every_other : MPI_INT, stride};
    for (int root = 0; root < n; root++)
        gatherv_scatterv(comm, it, root, counts, displs, total, both, both, inplace);
    MPI_Type_free(&every_other);
    free(counts);
    free(displs);
}

/* Large and small blocks of derived and plain types together: the root's
 * own block and one other rank's are 20000 ints (above 64 KiB, the size
 * from which a derived type would stream its blocks as messages), sent
 * and received one int every two; every third rank's is empty, the
 * others' 100 plain ints (a small buffer's).  The root's side is strided
 * throughout, so the root alone would stream; every rank must still take
 * the same path. */
static void mixed_case(MPI_Comm comm, int it, int inplace)
{
    enum { BIG = 20000, SMALL = 100 };
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *counts = mt_malloc(sizeof(int) * (size_t)n), *displs = mt_malloc(sizeof(int) * (size_t)n);
    MPI_Datatype every_other = every_other_int();
    side_t strided = {every_other, 2}, plain = {MPI_INT, 1};
    for (int root = 0; root < n; root++) {
        int total = 0;
        for (int r = 0; r < n; r++)
            counts[r] = r == root || r == (root + 1) % n ? BIG : r % 3 == 1 ? 0 : SMALL;
        for (int r = n - 1; r >= 0; r--) { /* reverse order, a gap of 2 after each */
            displs[r] = total;
            total += counts[r] + 2;
        }
        gatherv_scatterv(comm, it, root, counts, displs, total, strided,
                         counts[rank] == BIG ? strided : plain, inplace);
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
        unsigned long long before = messages_sent();
        CHECK(MPI_Gather(self ? MPI_IN_PLACE : mine, each, MPI_INT, all, each, MPI_INT, root,
                         comm) == MPI_SUCCESS,
              "gather");
        gather_messages += messages_sent() - before;
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

/* The CPUs the segments count (HCMPI_COLL_SHM_CPUS, else those online):
 * on more ranks the node is crowded, and blocks above a small buffer are
 * messages. */
static long segment_cpus(void)
{
    const char *set = getenv("HCMPI_COLL_SHM_CPUS");
    long cpus = set != NULL ? atol(set) : 0;
    return cpus > 0 ? cpus : sysconf(_SC_NPROCESSORS_ONLN);
}

/* Gather(v) and Scatter(v) of blocks of at most the small buffer, then
 * Gather and Scatter of up to 2 KiB (through the large buffers, or where
 * the node is crowded spans of small ones), then Gatherv and Scatterv of
 * up to 2 KiB (through the large buffers, or where the node is crowded
 * the medium ones), plain and strided: no message moves. */
static void small_round(MPI_Comm comm, int it)
{
    int n;
    MPI_Comm_size(comm, &n);
    unsigned long long before = messages_sent();
    for (int inplace = 0; inplace < 2; inplace++) {
        fixed_case(comm, it, 1, inplace);
        fixed_case(comm, it, 128, inplace);
        for (int stride = 1; stride <= 2; stride++)
            gatherv_case(comm, it, SIZES_SMALL, inplace, stride);
    }
    if (counted)
        CHECK(messages_sent() == before, "small gathers and scatters sent %llu messages",
              messages_sent() - before);
    before = messages_sent();
    for (int inplace = 0; inplace < 2; inplace++) {
        fixed_case(comm, it, 129, inplace);
        fixed_case(comm, it, 256, inplace);
        fixed_case(comm, it, 300, inplace);
        fixed_case(comm, it, 512, inplace);
    }
    if (counted)
        CHECK(messages_sent() == before,
              "Gather and Scatter of up to 2 KiB sent %llu messages on %d ranks",
              messages_sent() - before, n);
    before = messages_sent();
    for (int inplace = 0; inplace < 2; inplace++)
        for (int stride = 1; stride <= 2; stride++)
            gatherv_case(comm, it, SIZES_BUFFERED, inplace, stride);
    /* (A crowded node's segment has medium buffers up to 16 ranks.) */
    if (counted && (n <= 16 || n <= segment_cpus()))
        CHECK(messages_sent() == before,
              "Gatherv and Scatterv of up to 2 KiB sent %llu messages on %d ranks (%ld CPUs)",
              messages_sent() - before, n, segment_cpus());
}

/* Blocks of 16 KiB and more, of plain ints at the root (fixed forms where
 * 64 KiB hold them all; the wide layout, beside small blocks): a gather's
 * read in place where reads work (reads), so no transport message either
 * (scatters' blocks are messages); then
 * strided at both sides (packed views, or at the root beyond 64 KiB its
 * streams), blocks between 2 and 16 KiB (messages), and fixed forms of
 * 513 ints (the schedule). */
static void read_round(MPI_Comm comm, int it, int reads)
{
    int n;
    MPI_Comm_size(comm, &n);
    unsigned long long before = gather_messages;
    for (int inplace = 0; inplace < 2; inplace++) {
        if (n <= 4)
            fixed_case(comm, it, 4096, inplace);
        gatherv_case(comm, it, SIZES_WIDE, inplace, 1);
    }
    if (counted && reads)
        CHECK(gather_messages == before, "gathers read in place sent %llu messages",
              gather_messages - before);
    for (int inplace = 0; inplace < 2; inplace++) {
        gatherv_case(comm, it, SIZES_WIDE, inplace, 2);
        gatherv_case(comm, it, SIZES_MID, inplace, 1);
        fixed_case(comm, it, 513, inplace);
    }
}

static void any_round(MPI_Comm comm, int it)
{
    for (int inplace = 0; inplace < 2; inplace++)
        for (int stride = 1; stride <= 2; stride++)
            gatherv_case(comm, it, SIZES_ABOUT, inplace, stride);
    fixed_case(comm, it, 129, 0);
    fixed_case(comm, it, 300, 1);
    for (int inplace = 0; inplace < 2; inplace++)
        mixed_case(comm, it, inplace);
}

/* A duplicate of comm (a segment of its own, made by its first
 * collective), with this rank's rank and the size. */
static MPI_Comm dup_of(MPI_Comm comm, int *rank, int *n)
{
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(comm, &dup) == MPI_SUCCESS, "dup");
    MPI_Comm_rank(dup, rank);
    MPI_Comm_size(dup, n);
    return dup;
}

/* Blocks of 2, 300 or 512 ints by rank r and round it (on a crowded node
 * the wider ones through the medium buffers, beside small ones), in
 * reverse order with a gap of one int after each: their total ints. */
static int medium_layout(int n, int it, int *counts, int *displs)
{
    int total = 0;
    for (int r = n - 1; r >= 0; r--) {
        int kind = (r + it) % 3;
        counts[r] = kind == 0 ? 2 : kind == 1 ? 300 : 512;
        displs[r] = total;
        total += counts[r] + 1;
    }
    return total;
}

/* One round of ring_case's v-forms: Gatherv to root, then Scatterv from
 * it, of medium_layout's blocks (the gaps untouched), in place at the
 * root where self; every result checked. */
static void ring_vforms(MPI_Comm comm, int it, int root, int self)
{
    enum { WIDEST = 512 };
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *counts = mt_malloc(sizeof(int) * (size_t)n), *displs = mt_malloc(sizeof(int) * (size_t)n);
    int total = medium_layout(n, it, counts, displs);
    int *all = mt_malloc(sizeof(int) * (size_t)total), *mine = mt_malloc(sizeof(int) * WIDEST);
    int at_root = rank == root, count = counts[rank];
    for (int i = 0; i < count; i++)
        mine[i] = elem(rank, root, it + 5, i);
    for (int k = 0; at_root && k < total; k++)
        all[k] = GAP;
    if (self)
        memcpy(all + displs[rank], mine, sizeof(int) * (size_t)count);
    CHECK(MPI_Gatherv(self ? MPI_IN_PLACE : mine, count, MPI_INT, all, counts, displs, MPI_INT,
                      root, comm) == MPI_SUCCESS,
          "ring gatherv");
    for (int r = 0; at_root && r < n; r++) {
        for (int i = 0; i < counts[r]; i++)
            CHECK(all[displs[r] + i] == elem(r, root, it + 5, i),
                  "ring gatherv it %d root %d: rank %d [%d] %d", it, root, r, i,
                  all[displs[r] + i]);
        CHECK(all[displs[r] + counts[r]] == GAP, "ring gatherv it %d: gap after rank %d", it, r);
    }
    for (int r = 0; at_root && r < n; r++)
        for (int i = 0; i < counts[r]; i++)
            all[displs[r] + i] = elem(r, root, it + 6, i);
    for (int i = 0; i < WIDEST; i++)
        mine[i] = GAP;
    CHECK(MPI_Scatterv(all, counts, displs, MPI_INT, self ? MPI_IN_PLACE : mine, count, MPI_INT,
                       root, comm) == MPI_SUCCESS,
          "ring scatterv");
    const int *got = self ? all + displs[rank] : mine;
    for (int i = 0; i < count; i++)
        CHECK(got[i] == elem(rank, root, it + 6, i), "ring wide scatterv it %d root %d: [%d] %d",
              it, root, i, got[i]);
    CHECK(self || count == WIDEST || mine[count] == GAP, "ring scatterv it %d: past the block",
          it);
    free(all);
    free(mine);
    free(counts);
    free(displs);
}

/* Calls past a small buffer's ring (256 deep): on a duplicate of comm,
 * whose first collective (the one that makes its segment) is a small
 * Scatter, 600 rounds of Scatter, Scatterv (in place at the root on odd
 * rounds), Bcast, Gather and Reduce of 2 ints, then Gather and Scatter of
 * WIDE ints (on a crowded node spans of three small buffers, which the
 * rounds carry across the ring's end), then Gatherv and Scatterv of 2 to
 * 512 ints (ring_vforms), the root moving each round; every result
 * checked. */
static void ring_case(MPI_Comm comm)
{
    enum { ROUNDS = 600, EACH = 2, WIDE = 300 };
    int rank, n;
    MPI_Comm dup = dup_of(comm, &rank, &n);
    int *all = mt_malloc(sizeof(int) * (size_t)(n * EACH));
    int *wide_all = mt_malloc(sizeof(int) * (size_t)(n * WIDE));
    int *wide = mt_malloc(sizeof(int) * WIDE);
    int *counts = mt_malloc(sizeof(int) * (size_t)n), *displs = mt_malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++) {
        counts[r] = EACH;
        displs[r] = (n - 1 - r) * EACH; /* reverse order */
    }
    int mine[EACH], sum[EACH], word[EACH];
    for (int it = 0; it < ROUNDS; it++) {
        int root = it % n, at_root = rank == root, self = at_root && it % 2 == 1;
        for (int k = 0; k < n * EACH; k++)
            all[k] = elem(k / EACH, root, it, k % EACH);
        mine[0] = mine[1] = GAP;
        CHECK(MPI_Scatter(all, EACH, MPI_INT, self ? MPI_IN_PLACE : mine, EACH, MPI_INT, root,
                          dup) == MPI_SUCCESS,
              "scatter");
        const int *got = self ? all + rank * EACH : mine;
        for (int i = 0; i < EACH; i++)
            CHECK(got[i] == elem(rank, root, it, i), "ring scatter it %d root %d: [%d] %d", it,
                  root, i, got[i]);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < EACH; i++)
                all[displs[r] + i] = elem(r, root, it + 1, i);
        mine[0] = mine[1] = GAP;
        CHECK(MPI_Scatterv(all, counts, displs, MPI_INT, self ? MPI_IN_PLACE : mine, EACH,
                           MPI_INT, root, dup) == MPI_SUCCESS,
              "scatterv");
        got = self ? all + displs[rank] : mine;
        for (int i = 0; i < EACH; i++)
            CHECK(got[i] == elem(rank, root, it + 1, i), "ring scatterv it %d root %d: [%d] %d",
                  it, root, i, got[i]);
        word[0] = at_root ? it : GAP;
        word[1] = at_root ? -it : GAP;
        CHECK(MPI_Bcast(word, EACH, MPI_INT, root, dup) == MPI_SUCCESS, "bcast");
        CHECK(word[0] == it && word[1] == -it, "ring bcast it %d: %d %d", it, word[0], word[1]);
        for (int i = 0; i < EACH; i++)
            mine[i] = elem(rank, root, it + 2, i);
        for (int k = 0; at_root && k < n * EACH; k++)
            all[k] = GAP;
        CHECK(MPI_Gather(mine, EACH, MPI_INT, all, EACH, MPI_INT, root, dup) == MPI_SUCCESS,
              "gather");
        for (int k = 0; at_root && k < n * EACH; k++)
            CHECK(all[k] == elem(k / EACH, root, it + 2, k % EACH), "ring gather it %d: [%d]",
                  it, k);
        CHECK(MPI_Reduce(mine, sum, EACH, MPI_INT, MPI_SUM, root, dup) == MPI_SUCCESS, "reduce");
        for (int i = 0; at_root && i < EACH; i++) {
            int want = 0;
            for (int r = 0; r < n; r++)
                want += elem(r, root, it + 2, i);
            CHECK(sum[i] == want, "ring reduce it %d: [%d] %d, not %d", it, i, sum[i], want);
        }
        for (int i = 0; i < WIDE; i++)
            wide[i] = elem(rank, root, it + 3, i);
        for (int k = 0; at_root && k < n * WIDE; k++)
            wide_all[k] = GAP;
        if (self) /* in place: the root's own block where it belongs */
            memcpy(wide_all + rank * WIDE, wide, sizeof(int) * WIDE);
        CHECK(MPI_Gather(self ? MPI_IN_PLACE : wide, WIDE, MPI_INT, wide_all, WIDE, MPI_INT, root,
                         dup) == MPI_SUCCESS,
              "wide gather");
        for (int k = 0; at_root && k < n * WIDE; k++)
            CHECK(wide_all[k] == elem(k / WIDE, root, it + 3, k % WIDE),
                  "ring wide gather it %d: [%d]", it, k);
        for (int k = 0; k < n * WIDE; k++)
            wide_all[k] = elem(k / WIDE, root, it + 4, k % WIDE);
        for (int i = 0; i < WIDE; i++)
            wide[i] = GAP;
        CHECK(MPI_Scatter(wide_all, WIDE, MPI_INT, self ? MPI_IN_PLACE : wide, WIDE, MPI_INT, root,
                          dup) == MPI_SUCCESS,
              "wide scatter");
        got = self ? wide_all + rank * WIDE : wide;
        for (int i = 0; i < WIDE; i++)
            CHECK(got[i] == elem(rank, root, it + 4, i), "ring wide scatter it %d root %d: [%d] %d",
                  it, root, i, got[i]);
        ring_vforms(dup, it, root, self);
    }
    free(wide_all);
    free(wide);
    free(all);
    free(counts);
    free(displs);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS, "free");
}

/* Scatters back to back past the ring several times (a reader waits at
 * its post word, shmcoll_impl.h): 1,500 rounds on a duplicate of comm of
 * Scatter or Scatterv (every other round) of 2, 14, 15, 100 or 300 ints (up
 * to 56 bytes in the reader's post line, then a small buffer; a large one,
 * or a span on a crowded node; a Scatterv of 14 ints gives odd ranks 15, so
 * that one call's blocks lie in post lines and buffers), the root moving every
 * 50 rounds, slow (a 30 us sleep) every 7th round so that readers reach
 * the op's waits, an Iscatter (the op's path) every 11th and a Bcast
 * every 13th; every block checked, the gaps untouched. */
static void posts_case(MPI_Comm comm)
{
    enum { ROUNDS = 1500, WIDEST = 300 };
    static const int each_of[5] = {2, 14, 15, 100, 300};
    int rank, n;
    MPI_Comm dup = dup_of(comm, &rank, &n);
    int *all = mt_malloc(sizeof(int) * (size_t)(n * (WIDEST + 2)));
    int *mine = mt_malloc(sizeof(int) * (WIDEST + 2));
    int *counts = mt_malloc(sizeof(int) * (size_t)n), *displs = mt_malloc(sizeof(int) * (size_t)n);
    for (int it = 0; it < ROUNDS; it++) {
        int root = (it / 50) % n, each = each_of[it % 5];
        int vform = it % 11 == 0 || it % 2 == 0;
        for (int r = 0; r < n; r++) {
            counts[r] = each + (vform && each == 14 && r % 2 == 1);
            displs[r] = (n - 1 - r) * (each + 2); /* reverse, a gap after each */
        }
        for (int r = 0; r < n; r++)
            for (int i = 0; i < counts[r]; i++)
                all[displs[r] + i] = elem(r, root, it, i);
        int got = counts[rank];
        for (int i = 0; i <= got; i++)
            mine[i] = GAP;
        if (rank == root && it % 7 == 0)
            usleep(30);
        if (it % 11 == 0) {
            MPI_Request req;
            CHECK(MPI_Iscatterv(all, counts, displs, MPI_INT, mine, got, MPI_INT, root, dup,
                                &req) == MPI_SUCCESS,
                  "iscatterv");
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait");
        } else if (it % 2 == 0) {
            CHECK(MPI_Scatterv(all, counts, displs, MPI_INT, mine, got, MPI_INT, root, dup) ==
                      MPI_SUCCESS,
                  "scatterv");
        } else {
            for (int r = 0; r < n; r++) /* the fixed form's layout */
                for (int i = 0; i < each; i++)
                    all[r * each + i] = elem(r, root, it, i);
            CHECK(MPI_Scatter(all, each, MPI_INT, mine, each, MPI_INT, root, dup) == MPI_SUCCESS,
                  "scatter");
        }
        for (int i = 0; i < got; i++)
            CHECK(mine[i] == elem(rank, root, it, i), "posts it %d root %d each %d: [%d] %d", it,
                  root, got, i, mine[i]);
        CHECK(mine[got] == GAP, "posts it %d: past the block %d", it, mine[got]);
        if (it % 13 == 0) {
            int word = rank == root ? it : GAP;
            CHECK(MPI_Bcast(&word, 1, MPI_INT, root, dup) == MPI_SUCCESS, "bcast");
            CHECK(word == it, "posts bcast it %d: %d", it, word);
        }
    }
    free(all);
    free(mine);
    free(counts);
    free(displs);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS, "free");
}

/* Medium buffers run ahead of: on a duplicate of comm, 6 stretches of 150
 * Gatherv then 150 Scatterv back to back, of medium_layout's blocks, the
 * root moving each stretch; the side that would run
 * ahead (a gather's senders, a scatter's root) past the 64-deep ring held
 * back by the other's slow rank (a 30 us sleep every 5th round: the root
 * of a gather, a reader of a scatter); every block checked, the gaps
 * untouched. */
static void medium_case(MPI_Comm comm)
{
    enum { STRETCHES = 6, ROUNDS = 150, WIDEST = 512 };
    int rank, n;
    MPI_Comm dup = dup_of(comm, &rank, &n);
    int *all = mt_malloc(sizeof(int) * (size_t)(n * (WIDEST + 1)));
    int *mine = mt_malloc(sizeof(int) * (WIDEST + 1));
    int *counts = mt_malloc(sizeof(int) * (size_t)n), *displs = mt_malloc(sizeof(int) * (size_t)n);
    for (int st = 0; st < 2 * STRETCHES; st++) {
        int gather = st % 2 == 0, root = (st / 2) % n, slow = gather ? root : (root + 1) % n;
        for (int it = st * ROUNDS; it < (st + 1) * ROUNDS; it++) {
            int total = medium_layout(n, it, counts, displs), count = counts[rank];
            if (rank == slow && it % 5 == 0)
                usleep(30);
            if (gather) {
                for (int i = 0; i < count; i++)
                    mine[i] = elem(rank, root, it, i);
                for (int k = 0; rank == root && k < total; k++)
                    all[k] = GAP;
                CHECK(MPI_Gatherv(mine, count, MPI_INT, all, counts, displs, MPI_INT, root,
                                  dup) == MPI_SUCCESS,
                      "gatherv");
                for (int r = 0; rank == root && r < n; r++) {
                    for (int i = 0; i < counts[r]; i++)
                        CHECK(all[displs[r] + i] == elem(r, root, it, i),
                              "medium gatherv it %d root %d: rank %d [%d] %d", it, root, r, i,
                              all[displs[r] + i]);
                    CHECK(all[displs[r] + counts[r]] == GAP, "medium gatherv it %d: gap", it);
                }
                continue;
            }
            for (int r = 0; rank == root && r < n; r++)
                for (int i = 0; i < counts[r]; i++)
                    all[displs[r] + i] = elem(r, root, it, i);
            for (int i = 0; i <= count; i++)
                mine[i] = GAP;
            CHECK(MPI_Scatterv(all, counts, displs, MPI_INT, mine, count, MPI_INT, root, dup) ==
                      MPI_SUCCESS,
                  "scatterv");
            for (int i = 0; i < count; i++)
                CHECK(mine[i] == elem(rank, root, it, i), "medium scatterv it %d root %d: [%d] %d",
                      it, root, i, mine[i]);
            CHECK(mine[count] == GAP, "medium scatterv it %d: past the block", it);
        }
    }
    free(all);
    free(mine);
    free(counts);
    free(displs);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS, "free");
}

int main(int argc, char **argv)
{
    int plain = argc > 1 && strcmp(argv[1], "plain") == 0;
    int reads = !(argc > 1 && strcmp(argv[1], "noreads") == 0);
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
    ring_case(MPI_COMM_WORLD);
    posts_case(MPI_COMM_WORLD);
    medium_case(MPI_COMM_WORLD);
    for (int k = 0; k < 2; k++) /* makes the segments (messages) */
        CHECK(MPI_Barrier(comms[k]) == MPI_SUCCESS, "barrier");
    for (int it = 0; it < 3; it++) {
        for (int k = 0; k < 2; k++) {
            small_round(comms[k], it);
            any_round(comms[k], it);
            read_round(comms[k], it, reads);
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

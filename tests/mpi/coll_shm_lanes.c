/* Persistent Barrier, Bcast, Reduce and Allreduce of 1, 4 and 16 KiB on a
 * communicator of one node run in lanes of its shared-memory segment
 * (src/hcomm/shmcoll.c, hc_shmcoll_op_own_lane), each in chunks of its
 * lane's buffers, checked against a serial reference.
 *
 *   coll_shm_lanes        on a dup, 16 persistent collectives (the lanes of
 *                         a segment): for each of 1, 4 and 16 KiB an
 *                         Allreduce, an Allreduce in place (MPI_MAX), a
 *                         Bcast, a Reduce and a Reduce in place at the
 *                         root (roots differ), and a Barrier.  They are
 *                         started together ROUNDS times by an MPI_Startall
 *                         whose order is rotated by rank, with every input
 *                         changed and every output scribbled over in
 *                         between; every byte is checked (a non-root's
 *                         Reduce output untouched), and the transport
 *                         message counters (MPI_T) must not move on 2 or
 *                         more ranks: all of them ran in lanes.  Then two
 *                         more (a 1 KiB Allreduce, a 4 KiB Bcast) take the
 *                         two lanes that the wide lanes left (the first
 *                         two above a lane buffer took those; no message
 *                         either), and two of 16 KiB find none left: all
 *                         20 started together are still right, and those
 *                         two send messages.  Then the wide
 *                         lanes (below).
 *   coll_shm_lanes p2p    the same under HCMPI_COLL_SHM=0 (or lanes off):
 *                         results alike, and the counters move.
 *   coll_shm_lanes plain  results only, no counters (another MPI, another
 *                         launcher).
 *
 * Wide lanes (hc_shmcoll_op_own_lane): persistent collectives above the
 * lanes, on a dup: an Allreduce of 300004 bytes and one in place (MPI_MAX)
 * with a 1 KiB Allreduce, started together (rotated Startall) WIDE_ROUNDS
 * times with new inputs: no transport message on 3 or more ranks (two
 * read in lanes); then those and a Reduce in place at the root, an
 * Allgather of 160000 bytes a rank, one of a contiguous derived type, a
 * Reduce_scatter_block of 80000 bytes a rank, an Alltoall of 16000-byte
 * blocks and a Bcast, all active at once, results checked: those beyond
 * the wide lanes (HCMPI_COLL_SHM_WIDE_LANES) run as schedules beside
 * them, which the counters then see.
 */
#include "mpitest.h"

enum {
    ROUNDS = 100,
    NSIZES = 3,
    PER_SIZE = 5,
    NLANED = NSIZES * PER_SIZE + 1,
    NWIDE_DEFAULT = 2, /* HCMPI_COLL_SHM_WIDE_LANES' default */
    NALL = NLANED + NWIDE_DEFAULT + 2,
    WIDE_ROUNDS = 1000
};

/* Elements (ints) of each size: 1, 4 and 16 KiB. */
static const int counts[NSIZES] = {256, 1024, 4096};

enum kind {
    ALLREDUCE,
    ALLREDUCE_IN_PLACE,
    BCAST,
    REDUCE,
    REDUCE_IN_PLACE,
    BARRIER,
    ALLGATHER,         /* count ints a rank */
    ALLGATHER_TYPED,   /* the same, as count / 2 pairs of a contiguous type */
    REDUCE_SCATTER,    /* Reduce_scatter_block, count ints a rank keeps */
    ALLTOALL           /* count ints a block */
};

typedef struct pers {
    enum kind kind;
    int count, root;
    int nin, nout; /* ints of in and out */
    int *in, *out;
    MPI_Request req;
} pers_t;

static int rank, size;

/* Element i of rank r's input to collective k in round it (sums of 8
 * ranks exact). */
static int val(int r, int k, int it, int i)
{
    return (int)((unsigned)(r * 131 + k * 37 + it * 17) + (unsigned)i * 7u) % 1000 - 500;
}

static long long want_of(const pers_t *p, int k, int it, int i)
{
    switch (p->kind) {
    case BCAST:
        return val(p->root, k, it, i);
    case ALLGATHER:
    case ALLGATHER_TYPED:
        return val(i / p->count, k, it, i % p->count);
    case ALLTOALL: /* rank i / count's block for this rank */
        return val(i / p->count, k, it, rank * p->count + i % p->count);
    case REDUCE_SCATTER:
        i += rank * p->count;
        break;
    default:
        break;
    }
    long long s = p->kind == ALLREDUCE_IN_PLACE ? val(0, k, it, i) : 0;
    for (int r = 0; r < size; r++) {
        int v = val(r, k, it, i);
        if (p->kind == ALLREDUCE_IN_PLACE)
            s = v > s ? v : s;
        else
            s += v;
    }
    return s;
}

/* ---- transport messages sent, through MPI_T ------------------------------ */

static MPI_T_pvar_session session;
static MPI_T_pvar_handle sent[2];
static const char *const sent_names[2] = {"eager_sent_messages", "rndv_sent_messages"};
static int counted;

static unsigned long long messages_sent(void)
{
    return counted ? mt_counters_sum(session, 2, sent) : 0;
}

/* ---- the persistent collectives ----------------------------------------- */

static void pers_init(pers_t *p, enum kind kind, int count, int root, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    int spread = kind == ALLGATHER || kind == ALLGATHER_TYPED || kind == ALLTOALL;
    int gathered = kind == REDUCE_SCATTER || kind == ALLTOALL;
    *p = (pers_t){kind, count, root % size, gathered ? count * size : count,
                  spread ? count * size : count, NULL, NULL, MPI_REQUEST_NULL};
    p->in = calloc((size_t)(p->nin > 0 ? p->nin : 1), sizeof(int));
    p->out = calloc((size_t)(p->nout > 0 ? p->nout : 1), sizeof(int));
    CHECK(p->in != NULL && p->out != NULL, "calloc");
    int at_root = rank == p->root;
    switch (kind) {
    case ALLREDUCE:
        rc = MPI_Allreduce_init(p->in, p->out, count, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                                &p->req);
        break;
    case ALLREDUCE_IN_PLACE:
        rc = MPI_Allreduce_init(MPI_IN_PLACE, p->out, count, MPI_INT, MPI_MAX, comm,
                                MPI_INFO_NULL, &p->req);
        break;
    case BCAST:
        rc = MPI_Bcast_init(p->out, count, MPI_INT, p->root, comm, MPI_INFO_NULL, &p->req);
        break;
    case REDUCE:
        rc = MPI_Reduce_init(p->in, p->out, count, MPI_INT, MPI_SUM, p->root, comm,
                             MPI_INFO_NULL, &p->req);
        break;
    case REDUCE_IN_PLACE:
        rc = MPI_Reduce_init(at_root ? MPI_IN_PLACE : p->in, at_root ? p->out : NULL, count,
                             MPI_INT, MPI_SUM, p->root, comm, MPI_INFO_NULL, &p->req);
        break;
    case BARRIER:
        rc = MPI_Barrier_init(comm, MPI_INFO_NULL, &p->req);
        break;
    case ALLGATHER:
        rc = MPI_Allgather_init(p->in, count, MPI_INT, p->out, count, MPI_INT, comm,
                                MPI_INFO_NULL, &p->req);
        break;
    case ALLGATHER_TYPED: {
        MPI_Datatype pair;
        CHECK(MPI_Type_contiguous(2, MPI_INT, &pair) == MPI_SUCCESS, "Type_contiguous");
        CHECK(MPI_Type_commit(&pair) == MPI_SUCCESS, "Type_commit");
        rc = MPI_Allgather_init(p->in, count / 2, pair, p->out, count / 2, pair, comm,
                                MPI_INFO_NULL, &p->req);
        MPI_Type_free(&pair); /* the request keeps what it needs */
        break;
    }
    case REDUCE_SCATTER:
        rc = MPI_Reduce_scatter_block_init(p->in, p->out, count, MPI_INT, MPI_SUM, comm,
                                           MPI_INFO_NULL, &p->req);
        break;
    case ALLTOALL:
        rc = MPI_Alltoall_init(p->in, count, MPI_INT, p->out, count, MPI_INT, comm,
                               MPI_INFO_NULL, &p->req);
        break;
    }
    CHECK(rc == MPI_SUCCESS, "persistent init of kind %d, %d ints", (int)kind, count);
}

/* New inputs for round it; outputs scribbled over (in place: the input). */
static void pers_fill(pers_t *p, int k, int it)
{
    for (int i = 0; i < p->nout; i++)
        p->out[i] = -7777;
    for (int i = 0; i < p->nin; i++)
        p->in[i] = val(rank, k, it, i);
    for (int i = 0; i < p->count && p->nin == p->nout; i++) {
        int mine = val(rank, k, it, i);
        switch (p->kind) {
        case ALLREDUCE_IN_PLACE:
            p->out[i] = mine;
            break;
        case BCAST:
            p->out[i] = rank == p->root ? mine : -7777;
            break;
        case REDUCE_IN_PLACE:
            p->out[i] = rank == p->root ? mine : -7777;
            break;
        default:
            p->out[i] = -7777;
        }
    }
}

/* Outputs above CHECK_WHOLE_MAX ints are checked whole in every
 * CHECK_WHOLE_EVERY-th round, and in the others at every CHECK_STRIDE-th
 * element and the last (a prime stride, so every chunk of every pipeline
 * is sampled at many offsets): the serial reference of a 300 KB sum on 8
 * ranks, 1,000 rounds, cost more than the collectives themselves and ran
 * the test past its time limit on a loaded machine. */
enum { CHECK_WHOLE_MAX = 4096, CHECK_WHOLE_EVERY = 50, CHECK_STRIDE = 61 };

/* The element checked after i (n when none is left). */
static int next_checked(int i, int step, int n)
{
    if (i == n - 1)
        return n;
    return i + step < n ? i + step : n - 1;
}

static void pers_check(const pers_t *p, int k, int it)
{
    int gets = (p->kind != REDUCE && p->kind != REDUCE_IN_PLACE) || rank == p->root;
    int step = p->nout > CHECK_WHOLE_MAX && it % CHECK_WHOLE_EVERY != 0 ? CHECK_STRIDE : 1;
    for (int i = 0; i < p->nout; i = next_checked(i, step, p->nout)) {
        long long want = gets ? want_of(p, k, it, i) : -7777;
        if (p->out[i] != want) {
            CHECK(0, "round %d: collective %d (kind %d, %d ints, root %d) [%d] = %d, want %lld",
                  it, k, (int)p->kind, p->count, p->root, i, p->out[i], want);
            return;
        }
    }
}

/* Starts ps[0..n) together in an order rotated by this rank (MPI_Startall
 * may start them in any order), waits, checks. */
static void round_of(pers_t *ps, int n, int it)
{
    MPI_Request order[NALL];
    for (int k = 0; k < n; k++)
        pers_fill(&ps[k], k, it);
    for (int j = 0; j < n; j++)
        order[j] = ps[(j + rank) % n].req;
    CHECK(MPI_Startall(n, order) == MPI_SUCCESS, "Startall of %d", n);
    if (it % 2 == 0) {
        CHECK(MPI_Waitall(n, order, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall of %d", n);
    } else {
        for (int j = n - 1; j >= 0; j--)
            CHECK(MPI_Wait(&order[j], MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait %d", j);
    }
    for (int j = 0; j < n; j++)
        ps[(j + rank) % n].req = order[j];
    for (int k = 0; k < n; k++)
        pers_check(&ps[k], k, it);
}

/* ROUNDS rounds of ps[0..n); the transport messages this rank sent. */
static unsigned long long rounds_sending(pers_t *ps, int n)
{
    unsigned long long before = messages_sent();
    for (int it = 0; it < ROUNDS; it++)
        round_of(ps, n, it);
    return messages_sent() - before;
}

static void pers_free_all(pers_t *ps, int n)
{
    for (int k = 0; k < n; k++) {
        CHECK(MPI_Request_free(&ps[k].req) == MPI_SUCCESS, "Request_free %d", k);
        free(ps[k].in);
        free(ps[k].out);
    }
}

/* Ints of an Allreduce and a Bcast above the lanes' HCMPI_COLL_SHM_LANE_MAX
 * (16 KiB), and above HCMPI_COLL_SHM_BCAST_READ_MIN (64 KiB). */
enum { LARGE_COUNT = 65536 / 4 + 3 };

/* On two ranks an Allreduce of 64 KiB, which reads the other rank's input
 * as the blocking one does (its pipeline cut to the lane's buffers where a
 * read fails), and a Bcast of 64 KiB, read from the root's buffer, run in
 * lanes at any size: no transport message, beside a 1 KiB Allreduce
 * started with them (MPI_Startall), inputs changed between starts.  On
 * other sizes (the Allreduce a schedule) and settings, results alone. */
static void large_allreduce(int check_counters)
{
    MPI_Comm comm;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS, "dup");
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "Barrier");
    pers_t ps[3];
    pers_init(&ps[0], ALLREDUCE, LARGE_COUNT, 0, comm);
    pers_init(&ps[1], BCAST, LARGE_COUNT, 1, comm);
    pers_init(&ps[2], ALLREDUCE, counts[0], 0, comm);
    unsigned long long moved = rounds_sending(ps, 3);
    if (check_counters && size == 2)
        CHECK(moved == 0, "%llu transport messages in %d rounds of 64 KiB persistent collectives",
              moved, ROUNDS);
    pers_free_all(ps, 3);
    MPI_Comm_free(&comm);
}

/* Ints of the wide lanes' collectives (above): 300004 bytes, across the
 * segment's chunk (256 KiB, 128 KiB on 8 ranks); 160000 bytes a rank;
 * 80000 bytes a rank; 16000-byte blocks, within an alltoall's part of the
 * chunk on 8 ranks. */
enum { WIDE_COUNT = 75001, GATHER_COUNT = 40000, SCATTER_COUNT = 20000, ALLTOALL_COUNT = 4000 };
enum { NWIDE_ALL = 9 };

/* The wide lanes (above), on a dup of MPI_COMM_WORLD. */
static void wide_lanes(int check_counters)
{
    MPI_Comm comm;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS, "dup");
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "Barrier");
    pers_t ps[NWIDE_ALL];
    pers_init(&ps[0], ALLREDUCE, WIDE_COUNT, 0, comm);
    pers_init(&ps[1], ALLREDUCE_IN_PLACE, WIDE_COUNT, 0, comm);
    pers_init(&ps[2], ALLREDUCE, counts[0], 0, comm);
    pers_init(&ps[3], REDUCE_IN_PLACE, WIDE_COUNT, 1, comm);
    pers_init(&ps[4], ALLGATHER, GATHER_COUNT, 0, comm);
    pers_init(&ps[5], ALLGATHER_TYPED, GATHER_COUNT, 0, comm);
    pers_init(&ps[6], REDUCE_SCATTER, SCATTER_COUNT, 0, comm);
    pers_init(&ps[7], ALLTOALL, ALLTOALL_COUNT, 0, comm);
    pers_init(&ps[8], BCAST, WIDE_COUNT, size - 1, comm);
    unsigned long long before = messages_sent();
    for (int it = 0; it < WIDE_ROUNDS; it++)
        round_of(ps, 3, it);
    unsigned long long moved = messages_sent() - before;
    if (check_counters && size > 2)
        CHECK(moved == 0, "%llu transport messages in %d rounds of persistent collectives in "
                          "wide lanes", moved, WIDE_ROUNDS);
    for (int it = 0; it < ROUNDS / 4; it++)
        round_of(ps, NWIDE_ALL, WIDE_ROUNDS + it);
    pers_free_all(ps, NWIDE_ALL);
    MPI_Comm_free(&comm);
}

/* A rank without CMA (run_mpi_ok_no_cma_on_rank1) fails its reads. */
static int without_cma(void)
{
    const char *cma = getenv("HCMPI_SHM_CMA");
    return cma != NULL && strcmp(cma, "0") == 0;
}

static int any_without_cma(MPI_Comm comm)
{
    int mine = without_cma(), any = 0;
    CHECK(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm) == MPI_SUCCESS, "Allreduce");
    return any;
}

/* An Alltoall_init of blocks above the segment's part (16 KiB on 4 and 8
 * ranks) reads each block from its sender at every start, as the
 * blocking Alltoallv: ROUNDS starts, new inputs, every byte checked, no
 * transport message on 3 or more ranks where reads work (check_counters);
 * where a rank cannot read (no CMA on rank 1) the blocks it reads move as
 * messages after the reads (every other rank sends it one at every
 * start), results alike. */
enum { READ_ALLTOALL_COUNT = 10001 };

static void alltoall_reads(int check_counters)
{
    MPI_Comm comm;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS, "dup");
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "Barrier");
    int no_cma = without_cma(), any_no_cma = any_without_cma(comm);
    pers_t ps[2];
    pers_init(&ps[0], ALLTOALL, READ_ALLTOALL_COUNT, 0, comm);
    pers_init(&ps[1], ALLREDUCE, counts[0], 0, comm);
    unsigned long long moved = rounds_sending(ps, 2);
    if (check_counters && size > 2 && !any_no_cma)
        CHECK(moved == 0, "%llu transport messages in %d rounds of a persistent Alltoall that "
                          "reads", moved, ROUNDS);
    /* Every other rank sends rank 1 its block, which rank 1 cannot read. */
    if (check_counters && size > 2 && any_no_cma && !no_cma)
        CHECK(moved >= ROUNDS, "%llu transport messages in %d rounds of a persistent Alltoall "
                               "whose reads by rank 1 fail", moved, ROUNDS);
    pers_free_all(ps, 2);
    MPI_Comm_free(&comm);
}

/* Lanes given back: CYCLES times a pair of persistent collectives above a
 * lane buffer (sizes from 20 KB to 1 MiB, a kind and size of their own
 * each cycle, among them an Alltoall that reads) and a 512-byte Allreduce are made, started STARTS times
 * together (rotated Startall, new inputs, every byte checked) and freed.
 * Odd ranks make the next three before they free these and free them in
 * the other order, so a rank makes its next claim of a lane while
 * another still holds the last.  Each cycle's three claim the lanes the
 * cycle before held (two wide lanes, and the 16 lanes over and over):
 * on 3 or more ranks no transport message from the third start of each
 * cycle on, so the freed lanes were taken again. */
enum { CYCLES = 48, STARTS = 5, CYCLE_OPS = 3 };
/* HCMPI_COLL_SHM_LANE_BUF's least: the small one fits a lane buffer on
 * every setting, so it claims the lanes, not the wide lanes. */
enum { SMALLEST_LANE_BUF = 512 };

static void cycle_make(pers_t *ps, int c, MPI_Comm comm)
{
    static const int big[4] = {5000, 16387, 75001, 262147};
    static const enum kind kinds[6] = {ALLREDUCE,          ALLGATHER,       REDUCE_SCATTER,
                                       ALLREDUCE_IN_PLACE, ALLGATHER_TYPED, ALLTOALL};
    for (int j = 0; j < 2; j++) {
        enum kind kind = kinds[(c + 3 * j) % 6];
        int count = big[(c + j) % 4];
        if (kind == ALLTOALL)
            count = READ_ALLTOALL_COUNT; /* read, above the segment's part */
        else if (kind != ALLREDUCE && kind != ALLREDUCE_IN_PLACE)
            count = (count / size + 1) & ~1; /* a block a rank, pairs whole */
        pers_init(&ps[j], kind, count, 0, comm);
    }
    pers_init(&ps[2], ALLREDUCE, SMALLEST_LANE_BUF / 4, 0, comm);
}

static void cycle_free(pers_t *ps)
{
    for (int j = 0; j < CYCLE_OPS; j++) {
        pers_t *p = &ps[rank % 2 ? CYCLE_OPS - 1 - j : j];
        CHECK(MPI_Request_free(&p->req) == MPI_SUCCESS, "Request_free");
        free(p->in);
        free(p->out);
    }
}

static void lanes_given_back(int check_counters)
{
    MPI_Comm comm;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS, "dup");
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "Barrier");
    /* Where a rank cannot read, the Alltoalls' failed reads are messages. */
    check_counters = check_counters && !any_without_cma(comm);
    pers_t ps[2][CYCLE_OPS];
    unsigned long long late = 0;
    cycle_make(ps[0], 0, comm);
    for (int c = 0; c < CYCLES; c++) {
        pers_t *now = ps[c % 2], *next = ps[(c + 1) % 2];
        for (int it = 0; it < STARTS; it++) {
            unsigned long long before = messages_sent();
            round_of(now, CYCLE_OPS, c * STARTS + it);
            if (it >= 2)
                late += messages_sent() - before;
        }
        int last = c == CYCLES - 1;
        if (rank % 2 && !last)
            cycle_make(next, c + 1, comm);
        cycle_free(now);
        if (rank % 2 == 0 && !last)
            cycle_make(next, c + 1, comm);
    }
    if (check_counters && size > 2)
        CHECK(late == 0, "%llu transport messages after the second start of %d cycles of "
                         "persistent collectives made and freed", late, CYCLES);
    MPI_Comm_free(&comm);
}

/* Deep lanes (shmcoll_impl.h): persistent collectives of at most 64
 * bytes, on a dup: a Bcast of 2 ints, a Reduce of 2 ints in place at the
 * root, an Allreduce of 16 ints in place (MPI_MAX), an Alltoall of 1 int a
 * block, an Allgather of 1 int a rank, an Allreduce of 1 int, a Barrier
 * and an Allgather of a derived type (1 pair a rank), started together (rotated
 * Startall) with new inputs, every byte checked at each start; between
 * starts a blocking Allreduce and an Ibcast left in flight across the
 * next Startall on the same communicator.  ROUNDS of them without a
 * transport message on 2 or more ranks (check_counters), then
 * DEEP_ROUNDS more with a message around the ring in each. */
enum { DEEP_ROUNDS = 1000, NDEEP = 8 };

static void deep_between(MPI_Comm comm, int it, MPI_Request *ibcast, int *shared, int ring)
{
    int mine = rank + it, sum = -1;
    CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS, "Allreduce");
    CHECK(sum == size * (size - 1) / 2 + size * it, "round %d: Allreduce %d", it, sum);
    if (*ibcast != MPI_REQUEST_NULL) {
        CHECK(MPI_Wait(ibcast, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait of Ibcast");
        CHECK(*shared == 1000 + it - 1, "round %d: Ibcast %d", it, *shared);
    }
    *shared = rank == it % size ? 1000 + it : -1;
    CHECK(MPI_Ibcast(shared, 1, MPI_INT, it % size, comm, ibcast) == MPI_SUCCESS, "Ibcast");
    if (ring && size > 1) {
        int got = -1;
        CHECK(MPI_Sendrecv(&it, 1, MPI_INT, (rank + 1) % size, 7, &got, 1, MPI_INT,
                           (rank + size - 1) % size, 7, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS,
              "Sendrecv");
        CHECK(got == it, "round %d: ring %d", it, got);
    }
}

static void deep_lanes(int check_counters)
{
    MPI_Comm comm;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS, "dup");
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "Barrier");
    pers_t ps[NDEEP];
    pers_init(&ps[0], BCAST, 2, 1, comm);
    pers_init(&ps[1], REDUCE_IN_PLACE, 2, size - 1, comm);
    pers_init(&ps[2], ALLREDUCE_IN_PLACE, 16, 0, comm);
    /* The last deep lane; the rest in ordinary lanes.  Every one of them
     * starts as the blocking form's straight step where its flags allow. */
    pers_init(&ps[3], ALLTOALL, 1, 0, comm);
    pers_init(&ps[4], ALLGATHER, 1, 0, comm);
    pers_init(&ps[5], ALLREDUCE, 1, 0, comm);
    pers_init(&ps[6], BARRIER, 0, 0, comm);
    pers_init(&ps[7], ALLGATHER_TYPED, 2, 0, comm);
    MPI_Request ibcast = MPI_REQUEST_NULL;
    int shared = -1, it = 0;
    unsigned long long before = messages_sent();
    for (; it < ROUNDS; it++) {
        round_of(ps, NDEEP, it);
        deep_between(comm, it, &ibcast, &shared, 0);
    }
    unsigned long long moved = messages_sent() - before;
    if (check_counters && size > 1)
        CHECK(moved == 0, "%llu transport messages in %d rounds of persistent collectives in "
                          "deep lanes", moved, ROUNDS);
    for (; it < ROUNDS + DEEP_ROUNDS; it++) {
        round_of(ps, NDEEP, it);
        deep_between(comm, it, &ibcast, &shared, 1);
    }
    CHECK(MPI_Wait(&ibcast, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait of Ibcast");
    CHECK(shared == 1000 + it - 1, "last Ibcast %d", shared);
    pers_free_all(ps, NDEEP);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int p2p = argc > 1 && strcmp(argv[1], "p2p") == 0;
    counted = argc < 2 || p2p;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init");
    if (counted)
        mt_counters_open(&session, 2, sent_names, sent);
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS, "dup");
    /* A blocking collective makes the dup's segment (messages). */
    CHECK(MPI_Barrier(dup) == MPI_SUCCESS, "Barrier");
    pers_t ps[NALL];
    int k = 0;
    for (int s = 0; s < NSIZES; s++)
        for (int kind = ALLREDUCE; kind <= REDUCE_IN_PLACE; kind++)
            pers_init(&ps[k++], (enum kind)kind, counts[s], s + kind, dup);
    pers_init(&ps[k++], BARRIER, 0, 0, dup);
    /* The lanes that the wide lanes left, then none. */
    pers_init(&ps[k++], ALLREDUCE, counts[0], 0, dup);
    pers_init(&ps[k++], BCAST, counts[1], 1, dup);
    pers_init(&ps[k++], ALLREDUCE, counts[2], 2, dup);
    pers_init(&ps[k++], BCAST, counts[2], 0, dup);

    unsigned long long before = messages_sent();
    for (int it = 0; it < ROUNDS; it++)
        round_of(ps, NLANED, it);
    unsigned long long moved = messages_sent() - before;
    if (counted && !p2p && size > 1)
        CHECK(moved == 0, "%llu transport messages in %d rounds of laned persistent collectives",
              moved, ROUNDS);
    if (counted && p2p && size > 1)
        CHECK(moved > 0, "point to point: the persistent collectives sent no message");

    before = messages_sent();
    for (int it = 0; it < ROUNDS / 4; it++)
        round_of(ps, NLANED + NWIDE_DEFAULT, ROUNDS + it);
    moved = messages_sent() - before;
    if (counted && !p2p && size > 1 && getenv("HCMPI_COLL_SHM_WIDE_LANES") == NULL)
        CHECK(moved == 0, "%llu transport messages in rounds with the wide lanes", moved);

    before = messages_sent();
    for (int it = 0; it < ROUNDS / 4; it++)
        round_of(ps, NALL, ROUNDS + ROUNDS / 4 + it);
    if (counted && size > 1 && getenv("HCMPI_COLL_SHM_WIDE_LANES") == NULL)
        CHECK(messages_sent() > before, "the persistent collectives beyond the lanes sent no "
                                        "message");
    pers_free_all(ps, NALL);
    MPI_Comm_free(&dup);
    /* Reads off (a minimum of 0): the 64 KiB one is a schedule. */
    const char *read_min = getenv("HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN");
    large_allreduce(counted && !p2p && (read_min == NULL || strcmp(read_min, "0") != 0));
    wide_lanes(counted && !p2p && getenv("HCMPI_COLL_SHM_WIDE_LANES") == NULL);
    alltoall_reads(counted && !p2p && getenv("HCMPI_COLL_SHM_WIDE_LANES") == NULL);
    lanes_given_back(counted && !p2p && getenv("HCMPI_COLL_SHM_WIDE_LANES") == NULL);
    deep_lanes(counted && !p2p);
    if (counted)
        MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Finalize();
    if (rank == 0)
        printf("coll_shm_lanes: %d ranks passed (%s)\n", size,
               p2p ? "point to point" : counted ? "lanes" : "results only");
    return 0;
}

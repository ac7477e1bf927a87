/* The I-forms of Barrier, Bcast, Reduce and Allreduce on a communicator
 * with a shared-memory segment run the segment's algorithms as a step of
 * their schedule (src/hcomm/shmcoll.c, hc_nbc_add_shmcoll).
 *
 *   coll_shm_nbc        after a blocking Barrier made the segments, every
 *                       iteration starts seven I-collectives at once on
 *                       MPI_COMM_WORLD (small and multi-chunk vectors, the
 *                       whole-vector and the sliced reduction, roots that
 *                       move, in place and not) and one on a dup, runs a
 *                       blocking Allreduce and Bcast behind them, then
 *                       completes them in an order that changes (Waitall,
 *                       reverse Waits, a Test loop) and checks every byte
 *                       against a serial reference.  The transport message
 *                       counters (MPI_T) must not move across an even
 *                       iteration on 2 or more ranks: all its collectives
 *                       went through the segments.  In the odd ones a
 *                       persistent Allreduce and Bcast (each in a lane
 *                       of the segment of its own, started 30 times with
 *                       inputs changed in between, by an MPI_Startall
 *                       whose order differs between even and odd ranks)
 *                       run beside them, and the counters must not move
 *                       either.  Then 20 persistent Allreduces on the
 *                       dup: the first 16 get lanes (started in an order
 *                       rotated by rank, no message), the last 4 are
 *                       point-to-point schedules (they send messages),
 *                       all 20 started together and every sum checked.
 *   coll_shm_nbc p2p    the same under HCMPI_COLL_SHM=0: results alike,
 *                       and the counters must move (what the first mode's
 *                       check would see if the I-forms took messages).
 *   coll_shm_nbc plain  results only, no counters (another MPI, another
 *                       launcher).
 *   coll_shm_nbc kill [large]
 *                       rank 1 dies (SIGKILL) in its 6th round of an
 *                       Iallreduce and an Ibcast (large: of 200000 bytes,
 *                       read from the root's buffer); the survivors must
 *                       get MPIX_ERR_PROC_FAILED from a Wait within a few
 *                       rounds, never hang.  Run under hcmpirun
 *                       --no-kill-on-failure.
 *   coll_shm_nbc read-ibcast
 *                       Ibcasts about the thresholds of reading the root's
 *                       buffer (HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN,
 *                       HCMPI_COLL_SHM_BCAST_READ_MIN) up to 1 MiB + 13,
 *                       from every root, two at a time in flight with an
 *                       Iallreduce of as many bytes of ints between them
 *                       (on two ranks read between the buffers too, from
 *                       HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN), checked byte
 *                       by byte and element by element; then
 *                       ones whose odd ranks give a strided type (the same
 *                       signature: those ranks cannot be read, and every
 *                       rank takes the segment alike); no transport message
 *                       where the segment takes every one of them.
 */
#include "mpitest.h"
#include <signal.h>
#include <unistd.h>

enum { ITERS = 60, NSMALL = 16, NWHOLE = 600, NSLICED = 6000, NBIG = 90000 };

static int wrank, wsize;

/* Element i of rank r's input in iteration it (sums of 8 ranks exact). */
static int val(int r, int it, int i)
{
    return (int)((unsigned)(r * 131 + it * 17) + (unsigned)i * 7u) % 1000 - 500;
}

static long long sum_of(int it, int i)
{
    long long s = 0;
    for (int r = 0; r < wsize; r++)
        s += val(r, it, i);
    return s;
}

static int max_of(int it, int i)
{
    int m = val(0, it, i);
    for (int r = 1; r < wsize; r++)
        m = val(r, it, i) > m ? val(r, it, i) : m;
    return m;
}

/* ---- transport messages sent, through MPI_T ------------------------------ */

static MPI_T_pvar_session session;
static MPI_T_pvar_handle sent[2];
static const char *const sent_names[2] = {"eager_sent_messages", "rndv_sent_messages"};

static unsigned long long messages_sent(void)
{
    return mt_counters_sum(session, 2, sent);
}

/* ---- one iteration ------------------------------------------------------- */

typedef struct bufs {
    int small[NSMALL], small_out[NSMALL];
    int bc[NSMALL];
    int whole[NWHOLE], whole_out[NWHOLE];
    int sliced[NSLICED], sliced_out[NSLICED];
    int big[NBIG];     /* in place, MPI_MAX */
    char *bcast_big;   /* several pipeline chunks where the segment takes it */
    int dup_in[NSMALL], dup_out[NSMALL];
    int block_in[NSMALL], block_out[NSMALL];
    int block_bc[NSMALL];
    int pers_in[NSMALL], pers_out[NSMALL];
    int pers_bc[NSMALL];
} bufs_t;

/* Bytes of the large Bcast: two ranks broadcast above 32 KiB point to
 * point (one CMA read), so there it stays at 32 KiB. */
static size_t big_bcast_bytes(void)
{
    return wsize == 2 ? (size_t)32 << 10 : (size_t)200000;
}

static char bcast_byte(int it, size_t i)
{
    return (char)((size_t)it * 31u + i * 13u);
}

static void fill(bufs_t *b, int it)
{
    for (int i = 0; i < NSMALL; i++) {
        b->small[i] = val(wrank, it, i);
        b->bc[i] = wrank == it % wsize ? val(99, it, i) : -1;
        b->dup_in[i] = val(wrank, it + 5, i);
        b->block_in[i] = val(wrank, it + 9, i);
        b->block_bc[i] = wrank == (it + 1) % wsize ? val(98, it, i) : -1;
        b->pers_in[i] = val(wrank, it + 3, i);
        b->pers_bc[i] = wrank == 0 ? val(97, it, i) : -1;
    }
    for (int i = 0; i < NWHOLE; i++)
        b->whole[i] = val(wrank, it + 1, i);
    for (int i = 0; i < NSLICED; i++)
        b->sliced[i] = val(wrank, it + 2, i);
    for (int i = 0; i < NBIG; i++)
        b->big[i] = val(wrank, it + 4, i);
    size_t nb = big_bcast_bytes();
    for (size_t i = 0; i < nb; i++)
        b->bcast_big[i] = wrank == (it + 2) % wsize ? bcast_byte(it, i) : 0;
    memset(b->small_out, 0, sizeof b->small_out);
    memset(b->whole_out, 0, sizeof b->whole_out);
    memset(b->sliced_out, 0, sizeof b->sliced_out);
}

static void verify(const bufs_t *b, int it)
{
    for (int i = 0; i < NSMALL; i++) {
        CHECK(b->small_out[i] == sum_of(it, i), "it %d: Iallreduce small [%d] = %d", it, i,
              b->small_out[i]);
        CHECK(b->bc[i] == val(99, it, i), "it %d: Ibcast small [%d] = %d", it, i, b->bc[i]);
        long long d = 0, k = 0;
        for (int r = 0; r < wsize; r++) {
            d += val(r, it + 5, i);
            k += val(r, it + 9, i);
        }
        CHECK(b->dup_out[i] == d, "it %d: Iallreduce on the dup [%d] = %d", it, i,
              b->dup_out[i]);
        CHECK(b->block_out[i] == k, "it %d: blocking Allreduce [%d] = %d", it, i,
              b->block_out[i]);
        CHECK(b->block_bc[i] == val(98, it, i), "it %d: blocking Bcast [%d]", it, i);
    }
    int wroot = (it + 1) % wsize, sroot = (it + 3) % wsize;
    for (int i = 0; i < NWHOLE && wrank == wroot; i++)
        CHECK(b->whole_out[i] == sum_of(it + 1, i), "it %d: Ireduce whole [%d] = %d", it, i,
              b->whole_out[i]);
    for (int i = 0; i < NWHOLE && wrank != wroot; i++)
        CHECK(b->whole_out[i] == 0, "it %d: Ireduce wrote a non-root's recvbuf", it);
    for (int i = 0; i < NSLICED && wrank == sroot; i++)
        CHECK(b->sliced_out[i] == sum_of(it + 2, i), "it %d: Ireduce sliced [%d] = %d", it,
              i, b->sliced_out[i]);
    for (int i = 0; i < NBIG; i++)
        CHECK(b->big[i] == max_of(it + 4, i), "it %d: Iallreduce in place [%d] = %d", it, i,
              b->big[i]);
    size_t nb = big_bcast_bytes();
    for (size_t i = 0; i < nb; i++)
        CHECK(b->bcast_big[i] == bcast_byte(it, i), "it %d: Ibcast large byte %zu", it, i);
}

/* Persistent requests, built once: [0] Allreduce, [1] Bcast. */
static void check_persistent(const bufs_t *b, int it)
{
    for (int i = 0; i < NSMALL; i++) {
        long long s = 0;
        for (int r = 0; r < wsize; r++)
            s += val(r, it + 3, i);
        CHECK(b->pers_out[i] == s, "it %d: persistent Allreduce [%d] = %d", it, i,
              b->pers_out[i]);
        CHECK(b->pers_bc[i] == val(97, it, i), "it %d: persistent Bcast [%d]", it, i);
    }
}

static void complete(MPI_Request *reqs, int n, int it)
{
    if (it % 3 == 0) {
        MPI_Status st[16];
        CHECK(MPI_Waitall(n, reqs, st) == MPI_SUCCESS, "Waitall");
    } else if (it % 3 == 1) {
        for (int k = n - 1; k >= 0; k--)
            CHECK(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait %d", k);
    } else {
        int done = 0;
        while (!done)
            CHECK(MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
                  "Testall");
    }
    for (int k = 0; k < n; k++)
        CHECK(reqs[k] == MPI_REQUEST_NULL, "request %d not freed", k);
}

static void iteration(bufs_t *b, int it, MPI_Comm dup, MPI_Request *pers)
{
    MPI_Request r[12];
    int n = 0;
    fill(b, it);
    if (pers != NULL) {
        /* Each rank its own order: a lane must not care. */
        MPI_Request order[2] = {pers[wrank % 2], pers[1 - wrank % 2]};
        CHECK(MPI_Startall(2, order) == MPI_SUCCESS, "Startall");
        pers[wrank % 2] = order[0];
        pers[1 - wrank % 2] = order[1];
    }
    CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &r[n++]) == MPI_SUCCESS, "Ibarrier");
    CHECK(MPI_Ibcast(b->bc, NSMALL, MPI_INT, it % wsize, MPI_COMM_WORLD, &r[n++]) ==
              MPI_SUCCESS,
          "Ibcast");
    CHECK(MPI_Iallreduce(b->small, b->small_out, NSMALL, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                         &r[n++]) == MPI_SUCCESS,
          "Iallreduce");
    CHECK(MPI_Ireduce(b->whole, b->whole_out, NWHOLE, MPI_INT, MPI_SUM, (it + 1) % wsize,
                      MPI_COMM_WORLD, &r[n++]) == MPI_SUCCESS,
          "Ireduce whole");
    CHECK(MPI_Ibcast(b->bcast_big, (int)big_bcast_bytes(), MPI_BYTE, (it + 2) % wsize,
                     MPI_COMM_WORLD, &r[n++]) == MPI_SUCCESS,
          "Ibcast large");
    CHECK(MPI_Ireduce(b->sliced, b->sliced_out, NSLICED, MPI_INT, MPI_SUM, (it + 3) % wsize,
                      MPI_COMM_WORLD, &r[n++]) == MPI_SUCCESS,
          "Ireduce sliced");
    CHECK(MPI_Iallreduce(MPI_IN_PLACE, b->big, NBIG, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                         &r[n++]) == MPI_SUCCESS,
          "Iallreduce in place");
    CHECK(MPI_Iallreduce(b->dup_in, b->dup_out, NSMALL, MPI_INT, MPI_SUM, dup, &r[n++]) ==
              MPI_SUCCESS,
          "Iallreduce on the dup");
    /* Blocking ones behind the I-forms still under way. */
    CHECK(MPI_Allreduce(b->block_in, b->block_out, NSMALL, MPI_INT, MPI_SUM,
                        MPI_COMM_WORLD) == MPI_SUCCESS,
          "Allreduce");
    CHECK(MPI_Bcast(b->block_bc, NSMALL, MPI_INT, (it + 1) % wsize, MPI_COMM_WORLD) ==
              MPI_SUCCESS,
          "Bcast");
    complete(r, n, it);
    verify(b, it);
    if (pers == NULL)
        return;
    CHECK(MPI_Waitall(2, pers, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "persistent Waitall");
    check_persistent(b, it);
}

/* ---- more persistent collectives than lanes ------------------------------ */

/* SHMCOLL_LANES and SHMCOLL_DEEP_LANES (src/hcomm/shmcoll_impl.h): lanes
 * of a small communicator that an Allreduce of NSMALL ints (64 bytes, a
 * deep lane's cell) claims. */
enum { LANES = 16 + 4, NPERS = LANES + 4, PERS_ROUNDS = 20 };

/* Starts reqs[first..first+n) in an order rotated by this rank, waits for
 * them and checks sums of val(r, it + k, i). */
static void lanes_round(MPI_Request *reqs, int first, int n, int (*in)[NSMALL],
                        int (*out)[NSMALL], int it)
{
    MPI_Request order[NPERS];
    for (int k = first; k < first + n; k++)
        for (int i = 0; i < NSMALL; i++) {
            in[k][i] = val(wrank, it + k, i);
            out[k][i] = 0;
        }
    for (int j = 0; j < n; j++)
        order[j] = reqs[first + (j + wrank) % n];
    CHECK(MPI_Startall(n, order) == MPI_SUCCESS, "Startall of %d", n);
    CHECK(MPI_Waitall(n, order, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall of %d", n);
    for (int k = first; k < first + n; k++)
        for (int i = 0; i < NSMALL; i++)
            CHECK(out[k][i] == sum_of(it + k, i), "it %d: persistent Allreduce %d [%d] = %d",
                  it, k, i, out[k][i]);
}

static void lanes_check(MPI_Comm dup, int counted)
{
    static int in[NPERS][NSMALL], out[NPERS][NSMALL];
    MPI_Request reqs[NPERS];
    for (int k = 0; k < NPERS; k++)
        CHECK(MPI_Allreduce_init(in[k], out[k], NSMALL, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL,
                                 &reqs[k]) == MPI_SUCCESS,
              "Allreduce_init %d", k);
    unsigned long long before = counted ? messages_sent() : 0;
    for (int it = 0; it < PERS_ROUNDS; it++)
        lanes_round(reqs, 0, LANES, in, out, it);
    if (counted && wsize > 1)
        CHECK(messages_sent() == before, "%llu messages in persistent collectives with lanes",
              messages_sent() - before);
    before = counted ? messages_sent() : 0;
    for (int it = 0; it < PERS_ROUNDS; it++)
        lanes_round(reqs, 0, NPERS, in, out, it + 100);
    if (counted && wsize > 1)
        CHECK(messages_sent() > before, "the persistent collectives beyond the lanes sent "
                                        "no message");
    for (int k = 0; k < NPERS; k++)
        CHECK(MPI_Request_free(&reqs[k]) == MPI_SUCCESS, "Request_free %d", k);
}

/* ---- a rank killed inside a shared-memory I-form ------------------------ */

#define VICTIM 1
#define VICTIM_ROUND 5
/* How far a survivor may run on before it must see the death: a bcast
 * root needs nothing of the others while a small buffer is free (see
 * coll_shm.c), but each round's Iallreduce needs every rank. */
#define ROUNDS_AHEAD 17

static int kill_round(int round, int large)
{
    static char large_bc[200000];
    int in[4] = {wrank, round, 1, 2}, out[4] = {0};
    MPI_Request r;
    int rc = MPI_Iallreduce(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && large)
        rc = MPI_Ibcast(large_bc, (int)sizeof large_bc, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
    else if (rc == MPI_SUCCESS)
        rc = MPI_Ibcast(in, 4, MPI_INT, 0, MPI_COMM_WORLD, &r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    return rc;
}

static void run_kill(int large)
{
    CHECK(wsize >= 3, "needs 3 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "Barrier"); /* the segment */
    int round, rc = MPI_SUCCESS;
    for (round = 0; round < VICTIM_ROUND + 3 * ROUNDS_AHEAD; round++) {
        if (wrank == VICTIM && round == VICTIM_ROUND) {
            fflush(stdout);
            raise(SIGKILL);
        }
        rc = kill_round(round, large);
        if (rc != MPI_SUCCESS)
            break;
    }
    CHECK(rc != MPI_SUCCESS, "still succeeding %d rounds after the death", round);
    CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED, "round %d: class %d (%s), want MPIX_ERR_PROC_FAILED",
          round, mt_class(rc), mt_errstr(rc));
    CHECK(round <= VICTIM_ROUND + ROUNDS_AHEAD, "failed only in round %d", round);
    /* No survivor leaves before all failed: one that only ends when another
     * exits would pass by that exit, not by its own detection. */
    int x = round;
    for (int r = 1; wrank == 0 && r < wsize; r++)
        if (r != VICTIM)
            CHECK(MPI_Recv(&x, 1, MPI_INT, r, 55, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                      MPI_SUCCESS,
                  "survivor %d's report", r);
    if (wrank != 0)
        CHECK(MPI_Send(&x, 1, MPI_INT, 0, 55, MPI_COMM_WORLD) == MPI_SUCCESS, "report to 0");
    printf("rank %d: PASS kill (round %d)\n", wrank, round);
    fflush(stdout);
    /* Exit without MPI_Finalize: its barrier would need the dead rank. */
    _exit(0);
}

/* ---- Ibcasts read from the root's buffer ---------------------------------- */

static void ibcast_fill(char *buf, size_t n, int root, int it)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = wrank == root ? bcast_byte(it + root, i) : (char)-1;
}

static void ibcast_verify(const char *buf, size_t n, int root, int it)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != bcast_byte(it + root, i)) {
            CHECK(0, "it %d: Ibcast of %zu bytes from %d wrong at byte %zu", it, n, root, i);
            return;
        }
}

/* An Ibcast of count blocks of 3 ints from root: a strided type (every 5
 * ints) on odd ranks, contiguous ints on even ones; checked on every rank,
 * the strided gaps left alone. */
static void ibcast_mixed_types(size_t count, int root, int it)
{
    MPI_Datatype vec;
    MPI_Type_vector((int)count, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int strided = wrank % 2;
    size_t n = strided ? 5 * count : 3 * count;
    int *buf = malloc(n * sizeof(int));
    CHECK(buf != NULL, "malloc");
    for (size_t i = 0; i < n; i++) /* ints of the message, and gaps */
        buf[i] = wrank == root && (!strided || i % 5 < 3) ? val(root, it, (int)i) : -7;
    if (wrank == root && strided) /* the message's k-th int */
        for (size_t k = 0; k < 3 * count; k++)
            buf[k / 3 * 5 + k % 3] = val(root, it, (int)k);
    else if (wrank == root)
        for (size_t k = 0; k < 3 * count; k++)
            buf[k] = val(root, it, (int)k);
    MPI_Request r;
    int rc = strided ? MPI_Ibcast(buf, 1, vec, root, MPI_COMM_WORLD, &r)
                     : MPI_Ibcast(buf, (int)(3 * count), MPI_INT, root, MPI_COMM_WORLD, &r);
    CHECK(rc == MPI_SUCCESS && MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "mixed-type Ibcast");
    for (size_t k = 0; k < 3 * count; k++) {
        int got = strided ? buf[k / 3 * 5 + k % 3] : buf[k];
        if (got != val(root, it, (int)k)) {
            CHECK(0, "it %d: mixed-type Ibcast from %d wrong at int %zu: %d", it, root, k, got);
            break;
        }
    }
    for (size_t i = 0; strided && i < n; i++)
        if (i % 5 >= 3 && buf[i] != -7) {
            CHECK(0, "it %d: mixed-type Ibcast wrote the gap at int %zu", it, i);
            break;
        }
    free(buf);
    MPI_Type_free(&vec);
}

static void run_read_ibcasts(void)
{
    size_t min = wsize == 2 ? mt_env_bytes("HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN", 16384)
                            : mt_env_bytes("HCMPI_COLL_SHM_BCAST_READ_MIN", 65536);
    const size_t sizes[] = {min > 1 ? min - 1 : 1, min > 0 ? min : 1, min + 1, 65536,
                            200003, (1u << 20) + 13};
    char *a = malloc(sizes[5]), *b = malloc(sizes[5]);
    int *vin = malloc(sizes[5]), *vout = malloc(sizes[5]);
    CHECK(a != NULL && b != NULL && vin != NULL && vout != NULL, "malloc");
    int provided = 0;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init");
    mt_counters_open(&session, 2, sent_names, sent);
    /* A blocking collective makes the segment (an I-form never does). */
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "Barrier");
    unsigned long long before = messages_sent();
    for (int it = 0; it < 3; it++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (int root = 0; root < wsize; root++) {
                int other = (root + 1) % wsize;
                size_t n = sizes[k], ints = n / sizeof(int);
                ibcast_fill(a, n, root, it);
                ibcast_fill(b, n, other, it + 1);
                for (size_t i = 0; i < ints; i++) {
                    vin[i] = val(wrank, it + root, (int)i);
                    vout[i] = -1;
                }
                MPI_Request r[3];
                CHECK(MPI_Ibcast(a, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS &&
                          MPI_Iallreduce(vin, vout, (int)ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                         &r[1]) == MPI_SUCCESS &&
                          MPI_Ibcast(b, (int)n, MPI_BYTE, other, MPI_COMM_WORLD, &r[2]) ==
                              MPI_SUCCESS,
                      "start");
                /* Completed in an order of each rank's own. */
                for (int j = 0; j < 3; j++)
                    CHECK(MPI_Wait(&r[(j + wrank) % 3], MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
                ibcast_verify(a, n, root, it);
                ibcast_verify(b, n, other, it + 1);
                for (size_t i = 0; i < ints; i++)
                    if (vout[i] != sum_of(it + root, (int)i)) {
                        CHECK(0, "it %d: Iallreduce of %zu ints between the Ibcasts wrong at %zu",
                              it, ints, i);
                        break;
                    }
            }
    /* 48000 bytes on two ranks, where larger ones whose reads are off are
     * one message (HCMPI_COLL_SHM_PAIR_BCAST_MAX), 360000 on more. */
    for (int root = 0; root < wsize; root++)
        ibcast_mixed_types(wsize == 2 ? 4000 : 30000, root, root);
    /* Every one read or in the segment on more than two ranks (on two,
     * one message where HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN is off). */
    unsigned long long moved = messages_sent() - before;
    CHECK(wsize <= 2 || moved == 0, "%llu transport messages in the Ibcasts", moved);
    free(a);
    free(b);
    free(vin);
    free(vout);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (argc > 1 && strcmp(argv[1], "kill") == 0)
        run_kill(argc > 2 && strcmp(argv[2], "large") == 0);
    if (argc > 1 && strcmp(argv[1], "read-ibcast") == 0) {
        run_read_ibcasts();
        MPI_Finalize();
        if (wrank == 0)
            printf("coll_shm_nbc: read-ibcast on %d ranks OK\n", wsize);
        return 0;
    }
    int p2p = argc > 1 && strcmp(argv[1], "p2p") == 0;
    int counted = argc < 2 || p2p;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init");
    if (counted)
        mt_counters_open(&session, 2, sent_names, sent);
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS, "dup");
    /* Blocking collectives make the segments (an I-form never does). */
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "Barrier");
    CHECK(MPI_Barrier(dup) == MPI_SUCCESS, "Barrier on the dup");
    bufs_t *b = calloc(1, sizeof *b);
    CHECK(b != NULL, "calloc");
    b->bcast_big = malloc(big_bcast_bytes());
    CHECK(b->bcast_big != NULL, "malloc");
    MPI_Request pers[2];
    CHECK(MPI_Allreduce_init(b->pers_in, b->pers_out, NSMALL, MPI_INT, MPI_SUM,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &pers[0]) == MPI_SUCCESS,
          "Allreduce_init");
    CHECK(MPI_Bcast_init(b->pers_bc, NSMALL, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &pers[1]) == MPI_SUCCESS,
          "Bcast_init");
    unsigned long long moved = 0;
    for (int it = 0; it < ITERS; it++) {
        unsigned long long before = counted ? messages_sent() : 0;
        iteration(b, it, dup, it % 2 ? pers : NULL);
        if (counted)
            moved += messages_sent() - before;
    }
    if (wsize > 1 && counted && !p2p)
        CHECK(moved == 0, "%llu transport messages in the collectives of %d iterations",
              moved, ITERS);
    if (wsize > 1 && p2p)
        CHECK(moved > 0, "HCMPI_COLL_SHM=0: the I-collectives sent no message");
    for (int k = 0; k < 2; k++)
        CHECK(MPI_Request_free(&pers[k]) == MPI_SUCCESS, "Request_free");
    lanes_check(dup, counted && !p2p);
    free(b->bcast_big);
    free(b);
    MPI_Comm_free(&dup);
    if (counted)
        MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_shm_nbc: %d iterations on %d ranks passed (%s)\n", ITERS, wsize,
               p2p ? "point to point" : counted ? "shared memory" : "results only");
    return 0;
}

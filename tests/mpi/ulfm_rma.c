/* ULFM and one-sided communication (ulfm.sh runs each mode on 4 ranks
 * under hcmpirun --no-kill-on-failure, over shm and over tcp).
 *
 *   ulfm_rma revoke  a window over a duplicate of world carries rounds of
 *                    fence, lock/unlock and post/start/complete/wait
 *                    epochs with puts and accumulates, and an Ibarrier on
 *                    the duplicate per round; in round 3 the last rank
 *                    revokes the duplicate inside its fence epoch instead
 *                    of starting that Ibarrier.  The window is not the
 *                    communicator (ULFM revokes communicators only; hcmpi
 *                    has no window revoke): every epoch of every round
 *                    still completes with the right bytes everywhere,
 *                    the Ibarriers before the revoke succeed and those
 *                    from round 3 on fail with MPIX_ERR_REVOKED, as do
 *                    Barrier and MPI_Win_create on the revoked duplicate;
 *                    the window is freed without error
 *   ulfm_rma kill    rank 1 dies inside epochs of three windows over world
 *                    (a fence epoch, a shared lock the survivors hold on
 *                    it, an exclusive lock it holds on rank 0, a
 *                    post/start epoch with everyone): the survivors' puts
 *                    and accumulates then fail or not, but the closing
 *                    fence, the flush and unlock of rank 1, MPI_Win_wait
 *                    for its completion and MPI_Win_complete towards it
 *                    give MPIX_ERR_PROC_FAILED, nobody hangs, and the
 *                    locks rank 1 held (exclusive on rank 0, shared on
 *                    rank 3) are granted again, in a shared-mapping window
 *                    (MPI_Win_allocate) and one locked by messages
 *                    (MPI_Win_create): rank 2 locks ranks 0 and 3
 *                    exclusively and puts, they read the bytes
 *   ulfm_rma atomic_kill  (hcmpi only) in a window in a shared mapping
 *                    (MPI_Win_allocate, one node), under lock_all, every
 *                    rank adds 1 to rank 0's counter ADDS times; then rank
 *                    1 dies (HCMPI_TEST_RMA_DIE_HOLDING) inside its next
 *                    add, holding rank 0's atomic word.  Rank 2 adds at
 *                    once (it may spin on the word the dead rank holds),
 *                    rank 3 first learns of the death (a receive from it
 *                    fails), rank 0 does both halves; each adds ADDS more
 *                    (MPI_Accumulate and MPI_Fetch_and_op).  Nobody hangs,
 *                    and the counter holds every add of the survivors and
 *                    the dead rank's first ADDS, no more
 */
#include "mpitest.h"
#include <signal.h>
#include <unistd.h>

#define N 16      /* ints per rank's slot */
#define ROUNDS 6  /* of the revoke mode */
#define REVOKE_AT 3

static int rank, size;

static void expect_class(int rc, int want, const char *what)
{
    CHECK(mt_class(rc) == want, "%s: class %d (%s), want %d", what, mt_class(rc),
          mt_errstr(rc), want);
}

static int value(int round, int origin, int i) { return round * 100000 + origin * 1000 + i; }

/* Checks a window of size slots of N ints plus a counter after a round
 * where every origin put value(round, origin, .) into its slot and added
 * 1 to the counter `adds` times in all. */
static void check_slots(const int *mem, int round, int from, int adds, const char *epoch)
{
    for (int i = 0; i < N; i++)
        CHECK(mem[from * N + i] == value(round, from, i), "%s round %d: slot of %d [%d] = %d",
              epoch, round, from, i, mem[from * N + i]);
    CHECK(mem[size * N] == adds, "%s round %d: counter %d, want %d", epoch, round,
          mem[size * N], adds);
}

static void test_revoke(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int *mem;
    MPI_Win win;
    MPI_Aint bytes = (MPI_Aint)(size * N + 1) * sizeof(int);
    int rc = MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, comm, &mem, &win);
    CHECK(rc == MPI_SUCCESS, "Win_allocate: %s", mt_errstr(rc));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[N], one = 1, adds = 0;
    MPI_Group wgroup, nextg, prevg;
    MPI_Win_get_group(win, &wgroup);
    MPI_Group_incl(wgroup, 1, &next, &nextg);
    MPI_Group_incl(wgroup, 1, &prev, &prevg);
    for (int round = 0; round < ROUNDS; round++) {
        int revoker = rank == size - 1 && round == REVOKE_AT;
        MPI_Request ib = MPI_REQUEST_NULL;
        if (!revoker) {
            rc = MPI_Ibarrier(comm, &ib);
            CHECK(rc == MPI_SUCCESS || (round >= REVOKE_AT && mt_class(rc) == MPIX_ERR_REVOKED),
                  "round %d Ibarrier: %s", round, mt_errstr(rc));
            if (rc != MPI_SUCCESS)
                ib = MPI_REQUEST_NULL;
        }
        for (int i = 0; i < N; i++)
            out[i] = value(round, rank, i);
        /* Fence: my slot at the next rank, +1 at everyone. */
        memset(mem, 0, (size_t)bytes);
        rc = MPI_Win_fence(0, win);
        CHECK(rc == MPI_SUCCESS, "round %d fence open: %s", round, mt_errstr(rc));
        rc = MPI_Put(out, N, MPI_INT, next, rank * N, N, MPI_INT, win);
        CHECK(rc == MPI_SUCCESS, "round %d put: %s", round, mt_errstr(rc));
        for (int t = 0; t < size; t++) {
            rc = MPI_Accumulate(&one, 1, MPI_INT, t, size * N, 1, MPI_INT, MPI_SUM, win);
            CHECK(rc == MPI_SUCCESS, "round %d accumulate: %s", round, mt_errstr(rc));
        }
        if (revoker) {
            rc = MPIX_Comm_revoke(comm);
            CHECK(rc == MPI_SUCCESS, "revoke: %s", mt_errstr(rc));
        }
        rc = MPI_Win_fence(0, win);
        CHECK(rc == MPI_SUCCESS, "round %d fence close: %s", round, mt_errstr(rc));
        check_slots(mem, round, prev, size, "fence");
        /* Lock/unlock: the same at the next rank, +1 there, then a fence
         * so that each target may look. */
        memset(mem, 0, (size_t)bytes);
        MPI_Win_fence(0, win);
        rc = MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
        CHECK(rc == MPI_SUCCESS, "round %d lock: %s", round, mt_errstr(rc));
        MPI_Put(out, N, MPI_INT, next, rank * N, N, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, next, size * N, 1, MPI_INT, MPI_SUM, win);
        rc = MPI_Win_flush(next, win);
        CHECK(rc == MPI_SUCCESS, "round %d flush: %s", round, mt_errstr(rc));
        rc = MPI_Win_unlock(next, win);
        CHECK(rc == MPI_SUCCESS, "round %d unlock: %s", round, mt_errstr(rc));
        rc = MPI_Win_fence(0, win);
        CHECK(rc == MPI_SUCCESS, "round %d fence after lock: %s", round, mt_errstr(rc));
        check_slots(mem, round, prev, 1, "lock");
        /* Post/start/complete/wait: my predecessor writes to me. */
        memset(mem, 0, (size_t)bytes);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        rc = MPI_Win_post(prevg, 0, win);
        CHECK(rc == MPI_SUCCESS, "round %d post: %s", round, mt_errstr(rc));
        rc = MPI_Win_start(nextg, 0, win);
        CHECK(rc == MPI_SUCCESS, "round %d start: %s", round, mt_errstr(rc));
        MPI_Put(out, N, MPI_INT, next, rank * N, N, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, next, size * N, 1, MPI_INT, MPI_SUM, win);
        rc = MPI_Win_complete(win);
        CHECK(rc == MPI_SUCCESS, "round %d complete: %s", round, mt_errstr(rc));
        rc = MPI_Win_wait(win);
        CHECK(rc == MPI_SUCCESS, "round %d wait: %s", round, mt_errstr(rc));
        check_slots(mem, round, prev, 1, "pscw");
        if (!revoker && ib != MPI_REQUEST_NULL) {
            rc = MPI_Wait(&ib, MPI_STATUS_IGNORE);
            if (round < REVOKE_AT)
                CHECK(rc == MPI_SUCCESS, "round %d Ibarrier before the revoke: %s", round,
                      mt_errstr(rc));
            else
                expect_class(rc, MPIX_ERR_REVOKED, "Ibarrier from the revoke's round on");
        }
        adds++;
    }
    expect_class(MPI_Barrier(comm), MPIX_ERR_REVOKED, "Barrier on the revoked duplicate");
    MPI_Win other;
    int *omem;
    expect_class(MPI_Win_allocate(64, 1, MPI_INFO_NULL, comm, &omem, &other), MPIX_ERR_REVOKED,
                 "Win_allocate on the revoked duplicate");
    MPI_Group_free(&nextg);
    MPI_Group_free(&prevg);
    MPI_Group_free(&wgroup);
    rc = MPI_Win_free(&win);
    CHECK(rc == MPI_SUCCESS, "Win_free: %s", mt_errstr(rc));
    MPI_Comm_free(&comm);
    printf("rank %d: %d rounds of fence, lock and PSCW epochs across the revoke\n", rank, adds);
    printf("rank %d: PASS revoke\n", rank);
}

static void test_kill(void)
{
    const int victim = 1;
    MPI_Win wf, wl, wp, wc;
    int *mf, *ml, *mp;
    MPI_Aint bytes = (MPI_Aint)(size * N + 1) * sizeof(int);
    int rc = MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mf, &wf);
    CHECK(rc == MPI_SUCCESS, "Win_allocate: %s", mt_errstr(rc));
    rc = MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &ml, &wl);
    CHECK(rc == MPI_SUCCESS, "Win_allocate: %s", mt_errstr(rc));
    rc = MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mp, &wp);
    CHECK(rc == MPI_SUCCESS, "Win_allocate: %s", mt_errstr(rc));
    /* wl's locks are words in a shared mapping when all ranks share a
     * node; wc (memory of our own) takes them by messages. */
    int *mc = calloc((size_t)bytes, 1);
    rc = MPI_Win_create(mc, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wc);
    CHECK(rc == MPI_SUCCESS, "Win_create: %s", mt_errstr(rc));
    MPI_Win_set_errhandler(wc, MPI_ERRORS_RETURN);
    memset(ml, 0, (size_t)bytes);
    MPI_Win_set_errhandler(wf, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(wl, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(wp, MPI_ERRORS_RETURN);
    MPI_Group wgroup, others;
    MPI_Win_get_group(wp, &wgroup);
    MPI_Group_excl(wgroup, 1, &rank, &others);
    int out[N], one = 1;
    for (int i = 0; i < N; i++)
        out[i] = value(0, rank, i);
    /* Open every epoch while all live. */
    rc = MPI_Win_fence(0, wf);
    CHECK(rc == MPI_SUCCESS, "fence open: %s", mt_errstr(rc));
    if (rank == victim) {
        rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wl);
        CHECK(rc == MPI_SUCCESS, "victim's lock of 0: %s", mt_errstr(rc));
        rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wc);
        CHECK(rc == MPI_SUCCESS, "victim's lock of 0 (created window): %s", mt_errstr(rc));
        rc = MPI_Win_lock(MPI_LOCK_SHARED, 3, 0, wl);
        CHECK(rc == MPI_SUCCESS, "victim's shared lock of 3: %s", mt_errstr(rc));
        rc = MPI_Win_lock(MPI_LOCK_SHARED, 3, 0, wc);
        CHECK(rc == MPI_SUCCESS, "victim's shared lock of 3 (created): %s", mt_errstr(rc));
    } else {
        rc = MPI_Win_lock(MPI_LOCK_SHARED, victim, 0, wl);
        CHECK(rc == MPI_SUCCESS, "lock of the victim: %s", mt_errstr(rc));
        MPI_Put(out, N, MPI_INT, victim, rank * N, N, MPI_INT, wl);
        rc = MPI_Win_flush(victim, wl);
        CHECK(rc == MPI_SUCCESS, "flush of the live victim: %s", mt_errstr(rc));
    }
    rc = MPI_Win_post(others, 0, wp);
    CHECK(rc == MPI_SUCCESS, "post: %s", mt_errstr(rc));
    rc = MPI_Win_start(others, 0, wp);
    CHECK(rc == MPI_SUCCESS, "start: %s", mt_errstr(rc));
    rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "Barrier before the death: %s", mt_errstr(rc));
    /* The victim dies once every survivor has left the barrier. */
    if (rank == victim) {
        for (int r = 0; r < size - 1; r++)
            MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fflush(stdout);
        raise(SIGKILL);
    }
    MPI_Send(NULL, 0, MPI_INT, victim, 5, MPI_COMM_WORLD);
    /* Fence epoch: operations towards everyone, the closing fence fails. */
    for (int t = 0; t < size; t++) {
        MPI_Put(out, N, MPI_INT, t, rank * N, N, MPI_INT, wf);
        MPI_Accumulate(&one, 1, MPI_INT, t, size * N, 1, MPI_INT, MPI_SUM, wf);
    }
    expect_class(MPI_Win_fence(0, wf), MPIX_ERR_PROC_FAILED, "fence with a dead member");
    /* Lock epoch on the dead rank. */
    MPI_Put(out, N, MPI_INT, victim, rank * N, N, MPI_INT, wl);
    MPI_Accumulate(&one, 1, MPI_INT, victim, size * N, 1, MPI_INT, MPI_SUM, wl);
    expect_class(MPI_Win_flush(victim, wl), MPIX_ERR_PROC_FAILED, "flush of the dead rank");
    expect_class(MPI_Win_unlock(victim, wl), MPIX_ERR_PROC_FAILED, "unlock of the dead rank");
    /* PSCW with the dead rank in both groups. */
    for (int t = 0; t < size; t++)
        if (t != rank)
            MPI_Put(out, N, MPI_INT, t, rank * N, N, MPI_INT, wp);
    expect_class(MPI_Win_complete(wp), MPIX_ERR_PROC_FAILED, "complete towards the dead rank");
    expect_class(MPI_Win_wait(wp), MPIX_ERR_PROC_FAILED, "wait for the dead rank's complete");
    /* The exclusive lock the dead rank held on rank 0 is free again. */
    MPI_Comm live;
    rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &live);
    CHECK(rc == MPI_SUCCESS, "shrink: %s", mt_errstr(rc));
    MPI_Comm_set_errhandler(live, MPI_ERRORS_RETURN);
    if (rank == 2) {
        for (int i = 0; i < N; i++)
            out[i] = value(7, rank, i);
        MPI_Win wins[2] = {wl, wc};
        for (int k = 0; k < 2; k++)
            for (int t = 0; t < size; t += 3) {
                rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, wins[k]);
                CHECK(rc == MPI_SUCCESS, "lock %d of %d after its holder died: %s", k, t,
                      mt_errstr(rc));
                MPI_Put(out, N, MPI_INT, t, rank * N, N, MPI_INT, wins[k]);
                rc = MPI_Win_unlock(t, wins[k]);
                CHECK(rc == MPI_SUCCESS, "unlock %d of %d: %s", k, t, mt_errstr(rc));
            }
    }
    rc = MPI_Barrier(live);
    CHECK(rc == MPI_SUCCESS, "Barrier of the survivors: %s", mt_errstr(rc));
    if (rank % 3 == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, wl); /* sync my view of my memory */
        for (int i = 0; i < N; i++)
            CHECK(ml[2 * N + i] == value(7, 2, i), "rank 2's put at %d [%d] = %d", rank, i,
                  ml[2 * N + i]);
        MPI_Win_unlock(rank, wl);
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, wc);
        for (int i = 0; i < N; i++)
            CHECK(mc[2 * N + i] == value(7, 2, i), "rank 2's put at %d (created) [%d] = %d",
                  rank, i, mc[2 * N + i]);
        MPI_Win_unlock(rank, wc);
    }
    MPI_Comm_free(&live);
    MPI_Group_free(&others);
    MPI_Group_free(&wgroup);
    printf("rank %d: PASS kill\n", rank);
}

#ifdef HCMPI
#define ADDS 50

static void test_atomic_kill(void)
{
    const int victim = 1, target = 0;
    /* The victim dies inside the add after its first ADDS ones. */
    if (rank == victim) {
        char knob[16];
        snprintf(knob, sizeof knob, "%d", ADDS + 1);
        setenv("HCMPI_TEST_RMA_DIE_HOLDING", knob, 1);
    }
    int *mem;
    MPI_Win win;
    int rc = MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    CHECK(rc == MPI_SUCCESS, "Win_allocate: %s", mt_errstr(rc));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    *mem = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    rc = MPI_Win_lock_all(0, win);
    CHECK(rc == MPI_SUCCESS, "lock_all: %s", mt_errstr(rc));
    int one = 1, old;
    for (int i = 0; i < ADDS; i++) {
        rc = MPI_Accumulate(&one, 1, MPI_INT, target, 0, 1, MPI_INT, MPI_SUM, win);
        CHECK(rc == MPI_SUCCESS, "add %d before the death: %s", i, mt_errstr(rc));
    }
    rc = MPI_Win_flush(target, win);
    CHECK(rc == MPI_SUCCESS, "flush before the death: %s", mt_errstr(rc));
    rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "Barrier before the death: %s", mt_errstr(rc));
    /* The victim dies once every survivor has left the barrier: a rank
     * still inside it when the victim dies may rightly see the death
     * there (CI once saw MPIX_ERR_PROC_FAILED from it over tcp). */
    if (rank == victim) {
        for (int r = 0; r < size - 1; r++)
            MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fflush(stdout);
        for (int r = 0; r < size; r++)
            if (r != victim)
                MPI_Send(NULL, 0, MPI_INT, r, 6, MPI_COMM_WORLD);
        MPI_Accumulate(&one, 1, MPI_INT, target, 0, 1, MPI_INT, MPI_SUM, win);
        CHECK(0, "the victim lived through HCMPI_TEST_RMA_DIE_HOLDING");
    }
    MPI_Send(NULL, 0, MPI_INT, victim, 5, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_INT, victim, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* Half of the adds at once, racing the victim's hold of the word. */
    int now = rank == 2 ? ADDS : rank == 0 ? ADDS / 2 : 0;
    for (int i = 0; i < ADDS; i++) {
        if (i == now) {
            rc = MPI_Recv(NULL, 0, MPI_INT, victim, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            expect_class(rc, MPIX_ERR_PROC_FAILED, "receive from the dead rank");
        }
        rc = i % 2 ? MPI_Fetch_and_op(&one, &old, MPI_INT, target, 0, MPI_SUM, win)
                   : MPI_Accumulate(&one, 1, MPI_INT, target, 0, 1, MPI_INT, MPI_SUM, win);
        CHECK(rc == MPI_SUCCESS, "add %d after the death: %s", i, mt_errstr(rc));
    }
    rc = MPI_Win_flush(target, win);
    CHECK(rc == MPI_SUCCESS, "flush after the death: %s", mt_errstr(rc));
    MPI_Comm live;
    rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &live);
    CHECK(rc == MPI_SUCCESS, "shrink: %s", mt_errstr(rc));
    rc = MPI_Barrier(live);
    CHECK(rc == MPI_SUCCESS, "Barrier of the survivors: %s", mt_errstr(rc));
    if (rank == target) {
        MPI_Win_sync(win);
        int want = ADDS * size + ADDS * (size - 1);
        CHECK(*mem == want, "counter %d, want %d (%d adds of %d ranks, %d of %d survivors)",
              *mem, want, ADDS, size, ADDS, size - 1);
        printf("rank %d: counter %d after a death holding the atomic word\n", rank, *mem);
    }
    MPI_Win_unlock_all(win);
    MPI_Comm_free(&live);
    printf("rank %d: PASS atomic_kill\n", rank);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc > 1, "usage: ulfm_rma revoke|kill");
    CHECK(size >= 4 && size <= 30, "needs 4 to 30 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (strcmp(argv[1], "revoke") == 0)
        test_revoke();
    else if (strcmp(argv[1], "kill") == 0)
        test_kill();
#ifdef HCMPI
    else if (strcmp(argv[1], "atomic_kill") == 0)
        test_atomic_kill();
#endif
    else
        CHECK(0, "unknown mode %s", argv[1]);
    MPI_Finalize();
    return 0;
}

/* User-Level Failure Mitigation: revoke, agree, shrink (ulfm.sh runs each
 * mode under hcmpirun --no-kill-on-failure, over shm and over tcp).
 *
 *   ulfm revoke_p2p   a ring of point-to-point messages on a duplicate of
 *                     world; the last rank revokes it mid-ring: every
 *                     rank's blocked or later operation on it fails with
 *                     MPIX_ERR_REVOKED, an ANY_SOURCE Irecv posted before
 *                     too; all see MPIX_Comm_is_revoked; agree and shrink
 *                     still work on it, and the shrunken one carries data
 *   ulfm revoke_coll  Allreduce on a duplicate; rank 0 revokes instead of
 *                     its 6th Ibarrier + Allreduce: the others' Allreduce
 *                     and pending Ibarrier fail with MPIX_ERR_REVOKED
 *   ulfm agree        AND of flags; then rank 1 dies: agree returns
 *                     MPIX_ERR_PROC_FAILED with the survivors' AND until
 *                     the failure is acknowledged, then succeeds;
 *                     get_failed / failure_get_acked / ack_failed name
 *                     rank 1; ANY_SOURCE receives are failure-pending
 *                     before the acknowledgement and match after it
 *   ulfm pending      rank 1 dies while an ANY_SOURCE Irecv is posted on
 *                     every survivor: Wait, Test, Waitall, Waitany on it
 *                     give MPIX_ERR_PROC_FAILED_PENDING and leave it
 *                     valid (Waitany completes a complete request beside
 *                     it first), a blocking ANY_SOURCE Recv or Probe and a
 *                     Probe of the dead rank give MPIX_ERR_PROC_FAILED;
 *                     then on rank 2 a live sender
 *                     matches it before any acknowledgement, rank 3
 *                     cancels it, rank 0 acknowledges (its Test no longer
 *                     fails) and a live sender matches it: bytes, source,
 *                     tag and count checked
 *   ulfm inter        an intercommunicator of the even and the odd world
 *                     ranks: agree ANDs over both groups; world rank 3
 *                     dies: agree returns MPIX_ERR_PROC_FAILED until the
 *                     acknowledgement (get_acked names rank 3), then
 *                     succeeds; shrink gives an intercommunicator of each
 *                     group's survivors (sizes, remote members) that
 *                     carries an Allreduce
 *   ulfm agree_kill   200 agreements in a row; a thread of rank VICTIM
 *                     (argv[2]; 0 is the coordinator) SIGKILLs it after a
 *                     random delay, inside one of them: every survivor
 *                     finishes all 200, and their results agree, each
 *                     holding every survivor's vote
 *   ulfm shrink_loop  a rank dies, the others shrink, check the new
 *                     communicator (members, Allreduce) and repeat until
 *                     one rank is left
 *   ulfm bad          shrink of MPI_COMM_NULL (MPI_ERR_COMM), agree with a
 *                     NULL flag (MPI_ERR_ARG), ack_failed of a negative
 *                     count (MPI_ERR_ARG), each with a readable string
 *
 * Built against MPICH's mpi.h (tests/relink/mpich_suite.sh) the checks of
 * the MPI Forum's names MPICH 4.0 lacks (is_revoked, iagree, ishrink,
 * get_failed, ack_failed) are left out: HCMPI is defined by our mpi.h only.
 */
#include "mpitest.h"
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 200

static int rank, size;

/* ULFM_DEATH=exit: an exit with status 9 instead of SIGKILL (Hydra's
 * -disable-auto-cleanup keeps the others only after a plain exit). */
static void die(void)
{
    fflush(stdout);
    fflush(stderr);
    const char *how = getenv("ULFM_DEATH");
    if (how != NULL && strcmp(how, "exit") == 0)
        _exit(9);
    raise(SIGKILL);
}

static void expect_class(int rc, int want, const char *what)
{
    CHECK(mt_class(rc) == want, "%s: class %d (%s), want %d", what, mt_class(rc),
          mt_errstr(rc), want);
}

/* Shrinks comm (no failure) and checks that the result has everyone and
 * carries an Allreduce. */
static void shrink_works(MPI_Comm comm, int expect_size)
{
    MPI_Comm small;
    int rc = MPIX_Comm_shrink(comm, &small);
    CHECK(rc == MPI_SUCCESS, "shrink: %s", mt_errstr(rc));
    int n, sum = -1, one = 1;
    MPI_Comm_size(small, &n);
    CHECK(n == expect_size, "shrunken size %d, want %d", n, expect_size);
    MPI_Comm_set_errhandler(small, MPI_ERRORS_RETURN);
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, small);
    CHECK(rc == MPI_SUCCESS && sum == n, "Allreduce on the shrunken: %s sum %d",
          mt_errstr(rc), sum);
    MPI_Comm_free(&small);
}

static void test_revoke_p2p(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, x = 0, rc;
    MPI_Request any;
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, comm, &any);
    int round = 0;
    for (;; round++) {
        if (rank == size - 1 && round == 10) {
            rc = MPIX_Comm_revoke(comm);
            CHECK(rc == MPI_SUCCESS, "revoke: %s", mt_errstr(rc));
            break;
        }
        int out = round * 100 + rank, in = -1;
        rc = MPI_Sendrecv(&out, 1, MPI_INT, next, 1, &in, 1, MPI_INT, prev, 1, comm,
                          MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            break;
        CHECK(in == round * 100 + prev, "ring round %d got %d", round, in);
    }
    if (rank != size - 1)
        expect_class(rc, MPIX_ERR_REVOKED, "ring operation cut by the revoke");
    /* Rank 0 needs the revoker's round 10; each rank after it may finish
     * one round more than its predecessor with the message sent before
     * the predecessor's receive failed. */
    CHECK(round <= 10 + rank, "rank %d failed at round %d, after a revoke at round 10", rank,
          round);
    expect_class(MPI_Wait(&any, MPI_STATUS_IGNORE), MPIX_ERR_REVOKED,
                 "ANY_SOURCE Irecv posted before the revoke");
    expect_class(MPI_Send(&x, 1, MPI_INT, next, 2, comm), MPIX_ERR_REVOKED,
                 "Send after the revoke");
    expect_class(MPI_Recv(&x, 1, MPI_INT, prev, 2, comm, MPI_STATUS_IGNORE),
                 MPIX_ERR_REVOKED, "Recv after the revoke");
    expect_class(MPI_Barrier(comm), MPIX_ERR_REVOKED, "Barrier after the revoke");
    int flag = 0;
#ifdef HCMPI /* the MPI Forum's names; MPICH 4.0 has only its own */
    MPIX_Comm_is_revoked(comm, &flag);
    CHECK(flag == 1, "is_revoked says %d", flag);
#endif
    flag = rank == 0 ? 0x6 : 0x7;
    rc = MPIX_Comm_agree(comm, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 0x6, "agree on the revoked: %s flag %#x",
          mt_errstr(rc), flag);
    shrink_works(comm, size);
    MPI_Comm_free(&comm);
    /* A fresh duplicate is not revoked. */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
#ifdef HCMPI
    MPIX_Comm_is_revoked(comm, &flag);
    CHECK(flag == 0, "a new communicator reads revoked");
#endif
    MPI_Comm_free(&comm);
    printf("rank %d: PASS revoke_p2p\n", rank);
}

static void test_revoke_coll(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Request ib = MPI_REQUEST_NULL, plan;
    int rc = MPI_SUCCESS, round;
    /* A persistent Allreduce, started straight in its lane before the
     * revoke: its starts after it fail too (nbc.c's start leaves the
     * revocation test to the lane's straight step). */
    int pin = rank + 1, pout = -1;
    MPI_Allreduce_init(&pin, &pout, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &plan);
    for (int i = 0; i < 3; i++) {
        pin = rank + 1 + i;
        rc = MPI_Start(&plan);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&plan, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "persistent Allreduce %d: %s", i, mt_errstr(rc));
        CHECK(pout == size * (size + 1) / 2 + size * i, "persistent Allreduce %d: %d", i,
              pout);
    }
    for (round = 0;; round++) {
        if (rank == 0 && round == 5) {
            rc = MPIX_Comm_revoke(comm);
            CHECK(rc == MPI_SUCCESS, "revoke: %s", mt_errstr(rc));
            break;
        }
        if (round == 5)
            MPI_Ibarrier(comm, &ib); /* rank 0 revokes instead */
        int one = 1, sum = -1;
        rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
        if (rc != MPI_SUCCESS)
            break;
        CHECK(sum == size, "Allreduce round %d: %d", round, sum);
    }
    if (rank != 0) {
        expect_class(rc, MPIX_ERR_REVOKED, "Allreduce cut by the revoke");
        /* Rank 0 finished round 4 before revoking: others still in it
         * (waiting for their part of the result) may see the revoke there. */
        CHECK(round == 4 || round == 5, "rank %d: Allreduce failed at round %d, not 4 or 5",
              rank, round);
        if (round == 5)
            expect_class(MPI_Wait(&ib, MPI_STATUS_IGNORE), MPIX_ERR_REVOKED,
                         "Ibarrier pending at the revoke");
    }
    int one = 1, sum;
    expect_class(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm), MPIX_ERR_REVOKED,
                 "Allreduce after the revoke");
    pout = -1;
    rc = MPI_Start(&plan);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&plan, MPI_STATUS_IGNORE);
    expect_class(rc, MPIX_ERR_REVOKED, "persistent Allreduce after the revoke");
    CHECK(pout == -1, "persistent Allreduce after the revoke wrote %d", pout);
    MPI_Request_free(&plan);
    shrink_works(comm, size);
    MPI_Comm_free(&comm);
    printf("rank %d: PASS revoke_coll\n", rank);
}

static void test_agree(void)
{
    int flag = ~(1 << rank), rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    CHECK(rc == MPI_SUCCESS && flag == ~((1 << size) - 1), "agree: %s flag %#x",
          mt_errstr(rc), flag);
    if (rank == 1)
        die();
    /* Rank 1 is gone: wait until this rank knows (a receive from it). */
    int x;
    expect_class(MPI_Recv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPIX_ERR_PROC_FAILED, "Recv from the dead rank");
    MPI_Request rq;
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &rq);
    expect_class(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING,
                 "ANY_SOURCE before the acknowledgement");
    CHECK(rq != MPI_REQUEST_NULL, "a failure-pending request was freed");
    MPI_Cancel(&rq);
    CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait after the cancel");
    flag = ~(1 << rank);
    rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    expect_class(rc, MPIX_ERR_PROC_FAILED, "agree with an unacknowledged failure");
    int want = ~((1 << size) - 1) | (1 << 1);
    CHECK(flag == want, "agree flag %#x, want %#x", flag, want);
    MPI_Group acked;
    int n = -1;
#ifdef HCMPI
    MPI_Group failed;
    int r1 = 1, rr = -1;
    MPIX_Comm_get_failed(MPI_COMM_WORLD, &failed);
    MPI_Group_size(failed, &n);
    CHECK(n == 1, "get_failed has %d members", n);
    MPI_Group world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_translate_ranks(failed, 1, (int[]){0}, world_group, &rr);
    CHECK(rr == r1, "the failed member is world rank %d", rr);
    MPI_Group_free(&failed);
    MPI_Group_free(&world_group);
#endif
    MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &acked);
    MPI_Group_size(acked, &n);
    CHECK(n == 0, "acked before the acknowledgement: %d", n);
    MPI_Group_free(&acked);
#ifdef HCMPI
    rc = MPIX_Comm_ack_failed(MPI_COMM_WORLD, 5, &n);
    CHECK(rc == MPI_SUCCESS && n == 1, "ack_failed: %s acked %d", mt_errstr(rc), n);
#endif
    MPIX_Comm_failure_ack(MPI_COMM_WORLD);
    MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &acked);
    MPI_Group_size(acked, &n);
    CHECK(n == 1, "acked after the acknowledgement: %d", n);
    MPI_Group_free(&acked);
    flag = ~(1 << rank);
    rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    CHECK(rc == MPI_SUCCESS && flag == want, "agree after the acknowledgement: %s %#x",
          mt_errstr(rc), flag);
    /* Acknowledged: an ANY_SOURCE receive waits for (and gets) a live sender. */
    int src = rank == 0 ? 2 : 0;
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &rq);
    if (rank == 0 || rank == 2) {
        int v = 70 + rank;
        MPI_Send(&v, 1, MPI_INT, rank == 0 ? 2 : 0, 7, MPI_COMM_WORLD);
    }
    if (rank == 0 || rank == 2) {
        MPI_Status st;
        rc = MPI_Wait(&rq, &st);
        CHECK(rc == MPI_SUCCESS && x == 70 + src && st.MPI_SOURCE == src,
              "acknowledged ANY_SOURCE: %s x %d from %d", mt_errstr(rc), x, st.MPI_SOURCE);
    } else {
        MPI_Cancel(&rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    printf("rank %d: PASS agree\n", rank);
}

#define PD_TAG 30
#define PD_N 1000

/* Waits on the failure-pending request until a live sender matches it;
 * checks what arrived. */
static void pending_matched(MPI_Request *rq, const int *buf, int from, const char *what)
{
    MPI_Status st;
    int rc;
    do
        rc = MPI_Wait(rq, &st);
    while (mt_class(rc) == MPIX_ERR_PROC_FAILED_PENDING);
    CHECK(rc == MPI_SUCCESS && *rq == MPI_REQUEST_NULL, "%s: %s", what, mt_errstr(rc));
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == PD_TAG && count == PD_N,
          "%s: source %d tag %d count %d", what, st.MPI_SOURCE, st.MPI_TAG, count);
    CHECK(mt_verify(buf, sizeof(int) * PD_N, (unsigned)from) == MT_OK, "%s: wrong bytes", what);
}

static void pending_send(int to)
{
    static int out[PD_N];
    mt_fill(out, sizeof out, (unsigned)rank);
    int rc = MPI_Send(out, PD_N, MPI_INT, to, PD_TAG, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "send to %d: %s", to, mt_errstr(rc));
}

/* Wait, Test, Waitall and Waitany on the failure-pending request. */
static void pending_checks(MPI_Request *any)
{
    int flag = 1, idx = -1, x, y = 7, z = 0;
    expect_class(MPI_Wait(any, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING, "Wait");
    CHECK(*any != MPI_REQUEST_NULL, "Wait freed the failure-pending request");
    CHECK(strlen(mt_errstr(MPIX_ERR_PROC_FAILED_PENDING)) > 10, "no readable string");
    expect_class(MPI_Test(any, &flag, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING, "Test");
    CHECK(flag == 0 && *any != MPI_REQUEST_NULL, "Test: flag %d", flag);
    expect_class(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, PD_TAG + 1, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE),
                 MPIX_ERR_PROC_FAILED, "blocking ANY_SOURCE Recv");
    expect_class(MPI_Probe(MPI_ANY_SOURCE, PD_TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPIX_ERR_PROC_FAILED, "blocking ANY_SOURCE Probe");
    expect_class(MPI_Probe(1, PD_TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPIX_ERR_PROC_FAILED, "blocking Probe of the dead rank");
    MPI_Request rq[2] = {*any, MPI_REQUEST_NULL};
    MPI_Status st[2];
    MPI_Irecv(&z, 1, MPI_INT, rank, PD_TAG + 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Send(&y, 1, MPI_INT, rank, PD_TAG + 2, MPI_COMM_WORLD);
    expect_class(MPI_Waitall(2, rq, st), MPI_ERR_IN_STATUS, "Waitall");
    CHECK(rq[0] == *any && st[0].MPI_ERROR == MPIX_ERR_PROC_FAILED_PENDING,
          "Waitall: failure-pending request %s, error %d",
          rq[0] == *any ? "kept" : "freed", st[0].MPI_ERROR);
    CHECK(rq[1] == MPI_REQUEST_NULL && st[1].MPI_ERROR == MPI_SUCCESS && z == 7 &&
              st[1].MPI_SOURCE == rank,
          "Waitall: the live request: error %d z %d", st[1].MPI_ERROR, z);
    expect_class(MPI_Waitany(1, any, &idx, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING,
                 "Waitany");
    CHECK(idx == 0 && *any != MPI_REQUEST_NULL, "Waitany: index %d", idx);
    /* Beside a complete request, Waitany completes that one. */
    rq[0] = *any;
    z = 0;
    MPI_Irecv(&z, 1, MPI_INT, rank, PD_TAG + 4, MPI_COMM_WORLD, &rq[1]);
    MPI_Send(&y, 1, MPI_INT, rank, PD_TAG + 4, MPI_COMM_WORLD);
    int rc = MPI_Waitany(2, rq, &idx, &st[1]);
    CHECK(rc == MPI_SUCCESS && idx == 1 && z == 7 && rq[0] == *any,
          "Waitany beside a complete request: %s index %d z %d", mt_errstr(rc), idx, z);
}

static void test_pending(void)
{
    static int in[PD_N];
    MPI_Request any = MPI_REQUEST_NULL;
    CHECK(size >= 4, "pending needs 4 ranks");
    if (rank != 1)
        MPI_Irecv(in, PD_N, MPI_INT, MPI_ANY_SOURCE, PD_TAG, MPI_COMM_WORLD, &any);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        die();
    int x;
    expect_class(MPI_Recv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPIX_ERR_PROC_FAILED, "Recv from the dead rank");
    pending_checks(&any);
    /* Who sends to a failure-pending request waits until its owner has
     * checked it (a match would end it before): a message tagged go. */
    int go = 0;
    if (rank == 0) {
        MPI_Recv(&go, 1, MPI_INT, 2, PD_TAG + 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pending_send(2); /* matches rank 2's, which acknowledged nothing */
        MPIX_Comm_failure_ack(MPI_COMM_WORLD);
        int flag = 1, rc = MPI_Test(&any, &flag, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS && flag == 0, "Test after the acknowledgement: %s flag %d",
              mt_errstr(rc), flag);
        MPI_Send(&go, 1, MPI_INT, 3, PD_TAG + 3, MPI_COMM_WORLD);
        pending_matched(&any, in, 3, "matched after the acknowledgement");
    } else if (rank == 2) {
        MPI_Send(&go, 1, MPI_INT, 0, PD_TAG + 3, MPI_COMM_WORLD);
        pending_matched(&any, in, 0, "matched before any acknowledgement");
    } else if (rank == 3) {
        MPI_Status st;
        int cancelled = 0;
        MPI_Cancel(&any);
        int rc = MPI_Wait(&any, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(rc == MPI_SUCCESS && cancelled && any == MPI_REQUEST_NULL,
              "cancelled: %s cancelled %d", mt_errstr(rc), cancelled);
        MPI_Recv(&go, 1, MPI_INT, 0, PD_TAG + 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pending_send(0);
    } else {
        MPI_Cancel(&any);
        MPI_Wait(&any, MPI_STATUS_IGNORE);
    }
    printf("rank %d: PASS pending\n", rank);
}

static void group_world_ranks(MPI_Group g, int n, int *world);

/* The shrunken intercommunicator: each group's survivors (world rank 3
 * is gone), and an Allreduce across it (each side gets the sum of the
 * other side's world ranks). */
static void inter_check_shrunk(MPI_Comm small, int color)
{
    int inter = 0, n = -1, rn = -1, world[64];
    MPI_Comm_test_inter(small, &inter);
    MPI_Comm_size(small, &n);
    MPI_Comm_remote_size(small, &rn);
    int want_n = color == 0 ? (size + 1) / 2 : size / 2 - 1;
    int want_rn = color == 0 ? size / 2 - 1 : (size + 1) / 2;
    CHECK(inter && n == want_n && rn == want_rn, "shrunken: inter %d sizes %d/%d, want %d/%d",
          inter, n, rn, want_n, want_rn);
    MPI_Group remote;
    MPI_Comm_remote_group(small, &remote);
    group_world_ranks(remote, rn, world);
    MPI_Group_free(&remote);
    int want_sum = 0;
    for (int i = 0; i < rn; i++) {
        CHECK(world[i] % 2 != color && world[i] != 3 && (i == 0 || world[i] > world[i - 1]),
              "shrunken: remote member %d is world rank %d", i, world[i]);
        want_sum += world[i];
    }
    MPI_Comm_set_errhandler(small, MPI_ERRORS_RETURN);
    int sum = -1, rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, small);
    CHECK(rc == MPI_SUCCESS && sum == want_sum, "Allreduce on the shrunken: %s sum %d, want %d",
          mt_errstr(rc), sum, want_sum);
}

static void test_inter(void)
{
    CHECK(size >= 4, "inter needs 4 ranks");
    MPI_Comm half, inter;
    int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 40, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int flag = ~(1 << rank), all = ~((1 << size) - 1);
    int rc = MPIX_Comm_agree(inter, &flag);
    CHECK(rc == MPI_SUCCESS && flag == all, "agree over both groups: %s flag %#x, want %#x",
          mt_errstr(rc), flag, all);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 3)
        die();
    int x;
    expect_class(MPI_Recv(&x, 1, MPI_INT, 3, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPIX_ERR_PROC_FAILED, "Recv from the dead rank");
    flag = ~(1 << rank);
    rc = MPIX_Comm_agree(inter, &flag);
    expect_class(rc, MPIX_ERR_PROC_FAILED, "agree with an unacknowledged failure");
    CHECK(flag == (all | (1 << 3)), "agree flag %#x, want %#x", flag, all | (1 << 3));
    MPIX_Comm_failure_ack(inter);
    MPI_Group acked, wg;
    int n = -1, w = -1;
    MPIX_Comm_failure_get_acked(inter, &acked);
    MPI_Group_size(acked, &n);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (n == 1)
        MPI_Group_translate_ranks(acked, 1, (int[]){0}, wg, &w);
    CHECK(n == 1 && w == 3, "acked: %d members, the first world rank %d", n, w);
    MPI_Group_free(&acked);
    MPI_Group_free(&wg);
    flag = ~(1 << rank);
    rc = MPIX_Comm_agree(inter, &flag);
    CHECK(rc == MPI_SUCCESS && flag == (all | (1 << 3)), "agree after the acknowledgement: %s %#x",
          mt_errstr(rc), flag);
    MPI_Comm small;
    rc = MPIX_Comm_shrink(inter, &small);
    CHECK(rc == MPI_SUCCESS, "shrink: %s", mt_errstr(rc));
    inter_check_shrunk(small, color);
    MPI_Comm_free(&small);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    printf("rank %d: PASS inter\n", rank);
}

/* The spawned children's part of test_spawn (mode "spawnchild"): over
 * the parent intercommunicator, whose 4 parents and 2 children are
 * members 0-3 and 4-5 of the agreement's flags. */
#define SPAWN_PARENTS 4

/* Learns locally that child 1 died: a receive from it fails. */
static void spawn_learn_death(MPI_Comm comm, int child1)
{
    int x;
    expect_class(MPI_Recv(&x, 1, MPI_INT, child1, 5, comm, MPI_STATUS_IGNORE),
                 MPIX_ERR_PROC_FAILED, "Recv from the dead child");
}

/* Both jobs: agree across them; child 0 revokes, the others' receive
 * fails; shrink of the revoked one; child 1 dies: agree fails until the
 * acknowledgement (which names it), then shrink leaves each job's
 * survivors, and an Allreduce across them is checked. */
static void spawn_family(MPI_Comm inter, int is_parent)
{
    int id = is_parent ? rank : SPAWN_PARENTS + rank;
    int nchildren = 2, all = ~((1 << (SPAWN_PARENTS + nchildren)) - 1);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int flag = ~(1 << id);
    int rc = MPIX_Comm_agree(inter, &flag);
    CHECK(rc == MPI_SUCCESS && flag == all, "agree across the jobs: %s flag %#x, want %#x",
          mt_errstr(rc), flag, all);

    int x = 0;
    if (!is_parent && rank == 0) {
        CHECK(MPIX_Comm_revoke(inter) == MPI_SUCCESS, "revoke");
    } else {
        expect_class(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 9, inter, MPI_STATUS_IGNORE),
                     MPIX_ERR_REVOKED, "Recv on the intercommunicator child 0 revoked");
    }
#ifdef HCMPI /* MPICH 4.0 has no MPIX_Comm_is_revoked */
    int revoked = 0;
    MPIX_Comm_is_revoked(inter, &revoked);
    CHECK(revoked, "not revoked");
#endif
    MPI_Comm live;
    rc = MPIX_Comm_shrink(inter, &live);
    CHECK(rc == MPI_SUCCESS, "shrink of the revoked: %s", mt_errstr(rc));
    MPI_Comm_set_errhandler(live, MPI_ERRORS_RETURN);
    int n = -1, rn = -1, sum = -1;
    MPI_Comm_size(live, &n);
    MPI_Comm_remote_size(live, &rn);
    CHECK(n == (is_parent ? SPAWN_PARENTS : nchildren) &&
              rn == (is_parent ? nchildren : SPAWN_PARENTS),
          "shrunk without failure: sizes %d/%d", n, rn);

    if (!is_parent && rank == 1)
        die();
    spawn_learn_death(is_parent ? live : MPI_COMM_WORLD, 1);
    flag = ~(1 << id);
    rc = MPIX_Comm_agree(live, &flag);
    expect_class(rc, MPIX_ERR_PROC_FAILED, "agree with an unacknowledged failure");
    MPIX_Comm_failure_ack(live);
    MPI_Group acked, where;
    int w = -1;
    MPIX_Comm_failure_get_acked(live, &acked);
    MPI_Group_size(acked, &n);
    if (is_parent)
        MPI_Comm_remote_group(live, &where);
    else
        MPI_Comm_group(MPI_COMM_WORLD, &where);
    if (n == 1)
        MPI_Group_translate_ranks(acked, 1, (int[]){0}, where, &w);
    CHECK(n == 1 && w == 1, "acked: %d members, the first child %d", n, w);
    MPI_Group_free(&acked);
    MPI_Group_free(&where);
    flag = ~(1 << id);
    rc = MPIX_Comm_agree(live, &flag);
    CHECK(rc == MPI_SUCCESS && flag == (all | (1 << (SPAWN_PARENTS + 1))),
          "agree after the acknowledgement: %s %#x", mt_errstr(rc), flag);
    MPI_Comm small;
    rc = MPIX_Comm_shrink(live, &small);
    CHECK(rc == MPI_SUCCESS, "shrink: %s", mt_errstr(rc));
    MPI_Comm_size(small, &n);
    MPI_Comm_remote_size(small, &rn);
    CHECK(n == (is_parent ? SPAWN_PARENTS : 1) && rn == (is_parent ? 1 : SPAWN_PARENTS),
          "shrunk: sizes %d/%d", n, rn);
    int mine = is_parent ? 10 + rank : 100, want = is_parent ? 100 : 10 * 4 + 0 + 1 + 2 + 3;
    rc = MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, small);
    CHECK(rc == MPI_SUCCESS && sum == want, "Allreduce across the shrunk: %s %d, want %d",
          mt_errstr(rc), sum, want);
    MPI_Comm_free(&small);
    MPI_Comm_free(&live);
    MPI_Comm_free(&inter);
    printf("%s %d: PASS spawn\n", is_parent ? "rank" : "child", rank);
}

/* 4 parents spawn 2 children of this program: ULFM across two jobs. */
static void test_spawn(const char *self)
{
    CHECK(size == SPAWN_PARENTS, "spawn needs %d ranks", SPAWN_PARENTS);
    MPI_Comm inter;
    char *args[] = {"spawnchild", NULL};
    int rc = MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            MPI_ERRCODES_IGNORE);
    CHECK(rc == MPI_SUCCESS, "spawn: %s", mt_errstr(rc));
    spawn_family(inter, 1);
}

static int victim;

static unsigned seed;

/* Kills the process from beside its main thread, which is inside (or
 * about to enter) an agreement. */
static void *killer(void *arg)
{
    (void)arg;
    usleep((useconds_t)(rand_r(&seed) % 50));
    die();
    return NULL;
}

static void test_agree_kill(void)
{
    static int results[ROUNDS];
    seed = (unsigned)getpid() ^ (unsigned)time(NULL);
    int doom_round = 10 + (int)(rand_r(&seed) % (ROUNDS / 2));
    MPI_Barrier(MPI_COMM_WORLD);
    int failures = 0;
    /* The victim goes on until killed: its killer thread starts at round
     * doom_round (< ROUNDS / 2 + 10) and kills it within 50 us of being
     * scheduled, during one of the next agreements.  On a loaded machine
     * that thread may wait for a core long after, so the victim stops at
     * round doom_round + 8 and waits to die there (the others' agreement
     * waits for it while it lives). */
    pthread_t kt;
    for (int i = 0; i < ROUNDS || rank == victim; i++) {
        if (rank == victim && i == doom_round)
            pthread_create(&kt, NULL, killer, NULL);
        if (rank == victim && i == doom_round + 8)
            pthread_join(kt, NULL); /* never returns: the killer kills */
        int flag = ~(1 << rank);
        int rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        if (mt_class(rc) == MPIX_ERR_PROC_FAILED) {
            failures++;
            MPIX_Comm_failure_ack(MPI_COMM_WORLD);
        } else {
            CHECK(rc == MPI_SUCCESS, "agree %d: %s", i, mt_errstr(rc));
        }
        for (int r = 0; r < size; r++)
            CHECK(r == victim || !(flag & (1 << r)), "agree %d lacks survivor %d's vote: %#x",
                  i, r, flag);
        if (i < ROUNDS)
            results[i] = flag;
    }
    CHECK(results[ROUNDS - 1] & (1 << victim), "the victim voted in the last agreement");
    /* Compare with the lowest survivor over a communicator of survivors. */
    MPI_Comm live;
    int rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &live);
    CHECK(rc == MPI_SUCCESS, "shrink: %s", mt_errstr(rc));
    static int first[ROUNDS];
    memcpy(first, results, sizeof first);
    rc = MPI_Bcast(first, ROUNDS, MPI_INT, 0, live);
    CHECK(rc == MPI_SUCCESS, "Bcast: %s", mt_errstr(rc));
    for (int i = 0; i < ROUNDS; i++)
        CHECK(first[i] == results[i], "agreement %d differs: %#x here, %#x at the first", i,
              results[i], first[i]);
    int with = 0;
    for (int i = 0; i < ROUNDS; i++)
        with += !(results[i] & (1 << victim));
    printf("rank %d: victim %d voted in %d of %d agreements, %d reported the failure\n",
           rank, victim, with, ROUNDS, failures);
    MPI_Comm_free(&live);
    printf("rank %d: PASS agree_kill\n", rank);
}

/* The world ranks of the first n members of g. */
static void group_world_ranks(MPI_Group g, int n, int *world)
{
    MPI_Group wg;
    int idx[64];
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(g, n, idx, wg, world);
    MPI_Group_free(&wg);
}

/* The world ranks of comm's members. */
static void members(MPI_Comm comm, int n, int *world)
{
    MPI_Group g;
    MPI_Comm_group(comm, &g);
    group_world_ranks(g, n, world);
    MPI_Group_free(&g);
}

static void test_shrink_loop(void)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int dead[64] = {0};
    for (int it = 0;; it++) {
        int n, me;
        MPI_Comm_size(comm, &n);
        MPI_Comm_rank(comm, &me);
        if (n == 1)
            break;
        int doomed = (it * 3 + 1) % n;
        int world[64];
        members(comm, n, world);
        dead[world[doomed]] = 1;
        MPI_Barrier(comm);
        if (me == doomed)
            die();
        MPI_Comm next;
        int rc = MPIX_Comm_shrink(comm, &next);
        CHECK(rc == MPI_SUCCESS, "shrink %d: %s", it, mt_errstr(rc));
        int m;
        MPI_Comm_size(next, &m);
        CHECK(m == n - 1, "shrink %d: %d members, want %d", it, m, n - 1);
        int nw[64];
        members(next, m, nw);
        for (int i = 0; i < m; i++)
            CHECK(!dead[nw[i]] && (i == 0 || nw[i] > nw[i - 1]),
                  "shrink %d: member %d is world rank %d", it, i, nw[i]);
        MPI_Comm_set_errhandler(next, MPI_ERRORS_RETURN);
        int sum = -1;
        rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, next);
        int want = 0;
        for (int i = 0; i < m; i++)
            want += nw[i];
        CHECK(rc == MPI_SUCCESS && sum == want, "shrink %d: Allreduce %s sum %d want %d", it,
              mt_errstr(rc), sum, want);
        if (comm != MPI_COMM_WORLD)
            MPI_Comm_free(&comm);
        comm = next;
        printf("rank %d: shrink %d left %d ranks\n", rank, it, m);
    }
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
    printf("rank %d: PASS shrink_loop\n", rank);
}

static void test_bad(void)
{
    MPI_Comm out;
    int rc = MPIX_Comm_shrink(MPI_COMM_NULL, &out);
    expect_class(rc, MPI_ERR_COMM, "shrink of MPI_COMM_NULL");
    CHECK(strlen(mt_errstr(rc)) > 10, "no readable string: '%s'", mt_errstr(rc));
    rc = MPIX_Comm_agree(MPI_COMM_WORLD, NULL);
    expect_class(rc, MPI_ERR_ARG, "agree with a NULL flag");
    CHECK(strlen(mt_errstr(rc)) > 10, "no readable string: '%s'", mt_errstr(rc));
    expect_class(MPIX_Comm_revoke(MPI_COMM_NULL), MPI_ERR_COMM, "revoke of MPI_COMM_NULL");
#ifdef HCMPI /* the non-blocking and acknowledgement calls MPICH 4.0 lacks */
    MPI_Request rq;
    expect_class(MPIX_Comm_iagree(MPI_COMM_WORLD, NULL, &rq), MPI_ERR_ARG,
                 "iagree with a NULL flag");
    int n;
    expect_class(MPIX_Comm_ack_failed(MPI_COMM_WORLD, -1, &n), MPI_ERR_ARG,
                 "ack_failed of -1");
    /* Nothing failed: a non-blocking agreement and shrink just work. */
    int flag = rank + 1 == size ? 1 : 3;
    rc = MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &rq);
    CHECK(rc == MPI_SUCCESS, "iagree: %s", mt_errstr(rc));
    rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && flag == (size > 1 ? 1 : 3), "iagree: %s flag %d",
          mt_errstr(rc), flag);
    rc = MPIX_Comm_ishrink(MPI_COMM_WORLD, &out, &rq);
    CHECK(rc == MPI_SUCCESS, "ishrink: %s", mt_errstr(rc));
    rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "ishrink wait: %s", mt_errstr(rc));
    MPI_Comm_size(out, &n);
    CHECK(n == size, "ishrink size %d", n);
    MPI_Comm_free(&out);
#endif
    printf("rank %d: PASS bad\n", rank);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc > 1, "usage: ulfm revoke_p2p|revoke_coll|agree|pending|inter|agree_kill V|"
                    "shrink_loop|bad|spawn");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (strcmp(argv[1], "spawnchild") == 0) {
        MPI_Comm parent;
        MPI_Comm_get_parent(&parent);
        CHECK(parent != MPI_COMM_NULL && size == 2, "spawnchild: parent %d, size %d",
              parent != MPI_COMM_NULL, size);
        spawn_family(parent, 0);
        MPI_Finalize();
        return 0;
    }
    CHECK(size >= 3 && size <= 30, "needs 3 to 30 ranks");
    victim = argc > 2 ? atoi(argv[2]) : 1;
    if (strcmp(argv[1], "revoke_p2p") == 0)
        test_revoke_p2p();
    else if (strcmp(argv[1], "revoke_coll") == 0)
        test_revoke_coll();
    else if (strcmp(argv[1], "agree") == 0)
        test_agree();
    else if (strcmp(argv[1], "pending") == 0)
        test_pending();
    else if (strcmp(argv[1], "inter") == 0)
        test_inter();
    else if (strcmp(argv[1], "agree_kill") == 0)
        test_agree_kill();
    else if (strcmp(argv[1], "shrink_loop") == 0)
        test_shrink_loop();
    else if (strcmp(argv[1], "bad") == 0)
        test_bad();
    else if (strcmp(argv[1], "spawn") == 0)
        test_spawn(argv[0]);
    else
        CHECK(0, "unknown mode %s", argv[1]);
    /* Survivors finalize among themselves: a dead member is no error of
     * MPI_Finalize (ULFM; MPICH's test/mpi/ft expects the same). */
    int frc = MPI_Finalize();
    if (frc != MPI_SUCCESS) {
        printf("FAIL rank %d: MPI_Finalize returned %d after the failure\n", rank, frc);
        return 1;
    }
    return 0;
}

/* A rank dies (SIGKILL) and the survivors see MPIX_ERR_PROC_FAILED under
 * MPI_ERRORS_RETURN instead of hanging, while operations among live ranks
 * keep working.  Run under hcmpirun --no-kill-on-failure (proc_failed.sh).
 *
 *   proc_failed p2p        blocking, non-blocking, ANY_SOURCE (a blocking
 *                          Recv fails, an Irecv is failure-pending),
 *                          Waitall (MPI_ERR_IN_STATUS), eager data that
 *                          arrived before the death, a rendezvous from the
 *                          dead rank
 *   proc_failed midstream  the victim dies in the middle of a large
 *                          pipelined send (run with HCMPI_SHM_CMA=0)
 *   proc_failed helping    the victim dies while it helps rank 0 read its
 *                          message (run with HCMPI_SHM_CMA_MIN=0,
 *                          HCMPI_SHM_STREAM_RUNQ_MAX=100 and
 *                          HCMPI_TEST_SHM_HELP_DIE=1 on hcmpi): the
 *                          reader, waiting for the chunk the victim
 *                          claimed, gets MPIX_ERR_PROC_FAILED
 *   proc_failed loneread WHO BYTES
 *                          a lone rendezvous of BYTES (8-32 KiB) between
 *                          rank 0 and the victim, read with one CMA read
 *                          and cut half-way (run with
 *                          HCMPI_TEST_SHM_READ_DIE=WHO on hcmpi): WHO
 *                          "owner", the victim sends and dies while rank 0
 *                          reads its buffer, whose receive fails; WHO
 *                          "reader", the victim receives and dies while
 *                          rank 0 waits for its FIN, whose send fails
 *   proc_failed coll       Barrier and Allreduce with a dead member
 *   proc_failed pending    Irecv/Isend (eager and rendezvous) already
 *                          pending at the death, finished by MPI_Wait on
 *                          rank 0 and by MPI_Test loops on the other
 *                          survivors; an ANY_SOURCE Irecv pending then is
 *                          failure-pending there, and cancelled
 *   proc_failed inflight   Iallreduce and Barrier on MPI_COMM_WORLD entered
 *                          before the victim dies (it never joins them)
 *   proc_failed fatal      MPI_ERRORS_ARE_FATAL: the job ends naming the rank
 *   proc_failed early      the victim dies right after MPI_Init, before its
 *                          first message (over tcp no connection to it ever
 *                          existed): receives from it fail, the survivors'
 *                          ring on MPI_COMM_WORLD still works
 *
 * After each failure mode the survivors run a ring on MPI_COMM_WORLD and a
 * Barrier and an Allreduce on a communicator of themselves only.  Detection
 * times are printed, never asserted. Rank 1 is the victim; it needs 4 ranks. */
#include "mpitest.h"
#include <signal.h>
#include <unistd.h>

#define VICTIM 1
#define BIG (1 << 20)

static int rank, size;

static void die(void)
{
    fflush(stdout);
    fflush(stderr);
    raise(SIGKILL);
}

/* Expects MPIX_ERR_PROC_FAILED (101) from a call. */
static void expect_failed(int rc, const char *what)
{
    CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED, "%s: got class %d (%s), want MPIX_ERR_PROC_FAILED",
          what, mt_class(rc), mt_errstr(rc));
}

/* Expects MPIX_ERR_PROC_FAILED_PENDING from MPI_Wait on a wildcard
 * receive, which must stay valid; then cancels it. */
static void expect_failure_pending(MPI_Request *req, const char *what)
{
    int rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED_PENDING && *req != MPI_REQUEST_NULL,
          "%s: got class %d (%s), want MPIX_ERR_PROC_FAILED_PENDING and the request kept", what,
          mt_class(rc), mt_errstr(rc));
    MPI_Status st;
    int cancelled = 0;
    MPI_Cancel(req);
    rc = MPI_Wait(req, &st);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(rc == MPI_SUCCESS && cancelled, "%s: Wait after Cancel: %s cancelled %d", what,
          mt_errstr(rc), cancelled);
}

/* Blocks until this rank noticed the victim's death; returns the seconds it
 * took (printed, never asserted). */
static double wait_for_death(void)
{
    int x;
    double t0 = MPI_Wtime();
    int rc = MPI_Recv(&x, 1, MPI_INT, VICTIM, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect_failed(rc, "Recv from the dead rank");
    return MPI_Wtime() - t0;
}

/* The survivors' communicator, split off before the death (the victim
 * takes MPI_UNDEFINED).  Made after it, by MPI_Comm_create_group over the
 * survivors alone, it fails today with MPIX_ERR_PROC_FAILED: the context id
 * is agreed on the parent's collective context, whose dead member fails
 * every operation there. */
static MPI_Comm live_comm = MPI_COMM_NULL;
/* Ring among the live ranks (all but the victim) on MPI_COMM_WORLD, a
 * small and a large message each way, bytes checked. */
static void world_ring(void)
{
    int live[64], n = 0, me = -1;
    for (int r = 0; r < size; r++)
        if (r != VICTIM) {
            if (r == rank)
                me = n;
            live[n++] = r;
        }
    int next = live[(me + 1) % n], prev = live[(me + n - 1) % n];
    static unsigned char out[BIG], in[BIG];
    static const int lens[] = {8, BIG};
    for (int k = 0; k < 2; k++) {
        int len = lens[k];
        mt_fill(out, (size_t)len, (unsigned)(rank * 7 + len));
        memset(in, 0, (size_t)len);
        int rc = MPI_Sendrecv(out, len, MPI_BYTE, next, 5, in, len, MPI_BYTE, prev, 5,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "live Sendrecv of %d bytes: %s", len, mt_errstr(rc));
        CHECK(mt_verify(in, (size_t)len, (unsigned)(prev * 7 + len)) == MT_OK,
              "live ring data of %d bytes wrong", len);
    }
}

/* The ring, then collectives on a communicator of the live ranks only,
 * which must still work. */
static void live_ring(void)
{
    world_ring();
    MPI_Comm comm = live_comm;
    int csize, sum = -1, rc = MPI_Barrier(comm);
    CHECK(rc == MPI_SUCCESS, "Barrier of the survivors: %s", mt_errstr(rc));
    MPI_Comm_size(comm, &csize);
    CHECK(csize == size - 1, "survivors' communicator has %d ranks", csize);
    rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    CHECK(rc == MPI_SUCCESS && sum == size * (size - 1) / 2 - VICTIM,
          "Allreduce of the survivors: rc %s sum %d", mt_errstr(rc), sum);
}

static void test_p2p(void)
{
    static unsigned char big[BIG];
    int x = 0;
    if (rank == VICTIM) {
        int v = 42;
        MPI_Request rq;
        MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Isend(big, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq);
        MPI_Barrier(MPI_COMM_WORLD);
        die();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: death noticed after %.3f s\n", rank, wait_for_death());
    if (rank == 0) {
        /* Arrived before the death: still delivered. */
        int rc = MPI_Recv(&x, 1, MPI_INT, VICTIM, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS && x == 42, "eager message sent before the death: rc %d x %d", rc,
              x);
        /* Its rendezvous cannot be fetched from a dead process. */
        expect_failed(MPI_Recv(big, BIG, MPI_BYTE, VICTIM, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                      "rendezvous Recv");
    }
    expect_failed(MPI_Send(&x, 1, MPI_INT, VICTIM, 3, MPI_COMM_WORLD), "eager Send");
    expect_failed(MPI_Send(big, BIG, MPI_BYTE, VICTIM, 3, MPI_COMM_WORLD), "rendezvous Send");
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Isend(big, BIG, MPI_BYTE, VICTIM, 4, MPI_COMM_WORLD, &rq[0]);
    expect_failed(MPI_Wait(&rq[0], &st[0]), "Isend + Wait");
    MPI_Irecv(&x, 1, MPI_INT, VICTIM, 4, MPI_COMM_WORLD, &rq[0]);
    expect_failed(MPI_Wait(&rq[0], &st[0]), "Irecv + Wait");
    expect_failed(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &st[0]),
                  "ANY_SOURCE Recv");
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 78, MPI_COMM_WORLD, &rq[0]);
    expect_failure_pending(&rq[0], "ANY_SOURCE Irecv + Wait");
    /* Waitall: one request with a live peer (self), one with the dead. */
    int y = 9, z = 0;
    MPI_Irecv(&z, 1, MPI_INT, rank, 6, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&x, 1, MPI_INT, VICTIM, 6, MPI_COMM_WORLD, &rq[1]);
    MPI_Send(&y, 1, MPI_INT, rank, 6, MPI_COMM_WORLD);
    int rc = MPI_Waitall(2, rq, st);
    CHECK(mt_class(rc) == MPI_ERR_IN_STATUS, "Waitall: class %d, want MPI_ERR_IN_STATUS",
          mt_class(rc));
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS && z == 9, "Waitall: live request error %d z %d",
          st[0].MPI_ERROR, z);
    expect_failed(st[1].MPI_ERROR, "Waitall status of the dead peer's request");
    live_ring();
    printf("rank %d: PASS p2p\n", rank);
}

static void test_midstream(void)
{
    size_t len = (size_t)256 << 20;
    unsigned char *buf = malloc(len);
    CHECK(buf != NULL, "no memory");
    memset(buf, 1, len);
    MPI_Request rq;
    if (rank == 0)
        MPI_Irecv(buf, (int)len, MPI_BYTE, VICTIM, 1, MPI_COMM_WORLD, &rq);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == VICTIM) {
        int flag;
        MPI_Isend(buf, (int)len, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq);
        /* Pipelined through a small ring: one Test moves a small part. */
        for (int i = 0; i < 3; i++)
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "256 MiB went through in three Tests");
        die();
    }
    if (rank == 0) {
        double t0 = MPI_Wtime();
        expect_failed(MPI_Wait(&rq, MPI_STATUS_IGNORE), "Wait on a receive cut mid-stream");
        printf("rank 0: mid-stream death noticed after %.3f s\n", MPI_Wtime() - t0);
    } else {
        wait_for_death();
    }
    free(buf);
    live_ring();
    printf("rank %d: PASS midstream\n", rank);
}

static void test_helping(void) {
  size_t first = (size_t)2 << 20, len = (size_t)256 << 20;
  unsigned char *buf = malloc(len);
  CHECK(buf != NULL, "no memory");
  memset(buf, 1, len);
  /* A first message read whole: a pair shares reads once one worked. */
  if (rank == 0)
    CHECK(MPI_Recv(buf, (int)first, MPI_BYTE, VICTIM, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "first Recv from the victim");
  else if (rank == VICTIM)
    CHECK(MPI_Send(buf, (int)first, MPI_BYTE, 0, 1, MPI_COMM_WORLD) ==
              MPI_SUCCESS,
          "first Send");
  if (rank == VICTIM) {
    MPI_Send(buf, (int)len, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    CHECK(0, "the victim lived through HCMPI_TEST_SHM_HELP_DIE");
  }
  if (rank == 0) {
    double t0 = MPI_Wtime();
    expect_failed(MPI_Recv(buf, (int)len, MPI_BYTE, VICTIM, 2, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE),
                  "Recv whose helper died");
    printf("rank 0: death while helping noticed after %.3f s\n",
           MPI_Wtime() - t0);
  } else {
    wait_for_death();
  }
  free(buf);
  live_ring();
  printf("rank %d: PASS helping\n", rank);
}

static void test_lone_read(const char *who, size_t len)
{
    int victim_reads = strcmp(who, "reader") == 0;
    CHECK(victim_reads || strcmp(who, "owner") == 0, "loneread: who is %s", who);
    unsigned char *buf = malloc(len);
    CHECK(buf != NULL, "no memory");
    mt_fill(buf, len, (unsigned)rank);
    MPI_Request rq = MPI_REQUEST_NULL;
    /* The receive is posted first, so the RTS is matched as it arrives,
     * with nothing behind it: a lone rendezvous. */
    if (rank == (victim_reads ? VICTIM : 0))
        MPI_Irecv(buf, (int)len, MPI_BYTE, victim_reads ? 0 : VICTIM, 3, MPI_COMM_WORLD, &rq);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == VICTIM) {
        if (victim_reads)
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        else
            MPI_Send(buf, (int)len, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        CHECK(0, "the victim lived through HCMPI_TEST_SHM_READ_DIE=%s", who);
    }
    if (rank == 0) {
        double t0 = MPI_Wtime();
        if (victim_reads)
            expect_failed(MPI_Send(buf, (int)len, MPI_BYTE, VICTIM, 3, MPI_COMM_WORLD),
                          "Send whose reader died before its FIN");
        else
            expect_failed(MPI_Wait(&rq, MPI_STATUS_IGNORE),
                          "Recv whose sender died half-way through the read");
        printf("rank 0: death mid-read (%s, %zu B) noticed after %.3f s\n", who, len,
               MPI_Wtime() - t0);
    } else {
        wait_for_death();
    }
    free(buf);
    live_ring();
    printf("rank %d: PASS loneread\n", rank);
}

static void test_coll(void)
{
    if (rank == VICTIM) {
        MPI_Barrier(MPI_COMM_WORLD);
        die();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Everyone notices first, so that no Barrier below can complete with
     * the dead rank's earlier contribution (there is none: it died). */
    wait_for_death();
    expect_failed(MPI_Barrier(MPI_COMM_WORLD), "Barrier");
    int in = rank, out = -1;
    expect_failed(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Allreduce");
    live_ring();
    printf("rank %d: PASS coll\n", rank);
}

/* Survivor side of the pending case: everything below is posted before
 * the victim dies (it passes one Barrier with them, then dies without
 * answering any of it). */
enum { PD_RECV_EAGER, PD_RECV_RNDV, PD_SSEND_EAGER, PD_SEND_RNDV, PD_RECV_ANY, PD_N };
static const char *const pd_names[PD_N] = {"eager Irecv", "rendezvous Irecv",
                                           "eager Issend", "rendezvous Isend",
                                           "ANY_SOURCE Irecv"};

static void pending_post(MPI_Request rq[PD_N], int *small, unsigned char *big)
{
    MPI_Irecv(&small[0], 1, MPI_INT, VICTIM, 20, MPI_COMM_WORLD, &rq[PD_RECV_EAGER]);
    MPI_Irecv(big, BIG, MPI_BYTE, VICTIM, 21, MPI_COMM_WORLD, &rq[PD_RECV_RNDV]);
    /* Synchronous, so it stays pending until the (never) matching receive. */
    MPI_Issend(&small[1], 1, MPI_INT, VICTIM, 22, MPI_COMM_WORLD, &rq[PD_SSEND_EAGER]);
    MPI_Isend(big + BIG, BIG, MPI_BYTE, VICTIM, 23, MPI_COMM_WORLD, &rq[PD_SEND_RNDV]);
    MPI_Irecv(&small[2], 1, MPI_INT, MPI_ANY_SOURCE, 24, MPI_COMM_WORLD, &rq[PD_RECV_ANY]);
}

/* Finishes req with MPI_Wait (use_test 0) or a loop of MPI_Test, expecting
 * MPIX_ERR_PROC_FAILED; a wildcard receive (any) stays, failure-pending,
 * and is cancelled. */
static void pending_finish(MPI_Request *req, int use_test, int any, const char *what,
                           double t0)
{
    MPI_Status st;
    int rc, flag = 0;
    if (!use_test) {
        rc = MPI_Wait(req, &st);
    } else {
        do
            rc = MPI_Test(req, &flag, &st);
        while (rc == MPI_SUCCESS && !flag);
    }
    char msg[96];
    snprintf(msg, sizeof msg, "pending %s at MPI_%s", what, use_test ? "Test" : "Wait");
    if (any) {
        CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED_PENDING && !flag, "%s: class %d (%s) flag %d",
              msg, mt_class(rc), mt_errstr(rc), flag);
        expect_failure_pending(req, msg);
        return;
    }
    /* Single-completion calls return the error; MPI_ERROR in the status
     * is only defined for the multiple-completion ones (MPI 3.2.5). */
    expect_failed(rc, msg);
    CHECK(*req == MPI_REQUEST_NULL, "%s: request not freed", msg);
    printf("rank %d: %s failed after %.3f s\n", rank, msg, MPI_Wtime() - t0);
}

static void test_pending(void)
{
    static unsigned char big[2 * BIG];
    int small[3] = {0, 5, 0};
    MPI_Request rq[PD_N];
    if (rank != VICTIM)
        pending_post(rq, small, big);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == VICTIM)
        die();
    double t0 = MPI_Wtime();
    for (int k = 0; k < PD_N; k++)
        pending_finish(&rq[k], rank != 0, k == PD_RECV_ANY, pd_names[k], t0);
    live_ring();
    printf("rank %d: PASS pending\n", rank);
}

/* The survivors are inside collectives that need the victim when it dies;
 * it passed the Barrier before them and never joins these. */
static void test_inflight(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == VICTIM) {
        usleep(300 * 1000); /* let the survivors enter and wait */
        die();
    }
    MPI_Request rq;
    int in = rank, out = -1;
    double t0 = MPI_Wtime();
    int rc = MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    CHECK(rc == MPI_SUCCESS, "Iallreduce start: %s", mt_errstr(rc));
    expect_failed(MPI_Barrier(MPI_COMM_WORLD), "Barrier in flight at the death");
    printf("rank %d: in-flight Barrier failed after %.3f s\n", rank, MPI_Wtime() - t0);
    expect_failed(MPI_Wait(&rq, MPI_STATUS_IGNORE), "Iallreduce in flight at the death");
    live_ring();
    printf("rank %d: PASS inflight\n", rank);
}

/* Runs before any other communication: the victim never sent a byte. */
static void test_early(void)
{
    if (rank == VICTIM)
        die();
    int x = 0;
    MPI_Request rq;
    /* First a receive from anyone, which no one answers: the dead rank
     * might be the sender, so its wait returns failure-pending instead of
     * waiting for ever (over tcp the receive has the transport watch
     * every member). */
    double t0 = MPI_Wtime();
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &rq);
    expect_failure_pending(&rq, "ANY_SOURCE Irecv + Wait");
    printf("rank %d: ANY_SOURCE failure-pending after %.3f s\n", rank, MPI_Wtime() - t0);
    printf("rank %d: death noticed after %.3f s\n", rank, wait_for_death());
    MPI_Irecv(&x, 1, MPI_INT, VICTIM, 2, MPI_COMM_WORLD, &rq);
    expect_failed(MPI_Wait(&rq, MPI_STATUS_IGNORE), "Irecv + Wait");
    expect_failed(MPI_Send(&x, 1, MPI_INT, VICTIM, 3, MPI_COMM_WORLD), "eager Send");
    /* No collective: every communicator made now would hold the dead. */
    world_ring();
    printf("rank %d: PASS early\n", rank);
}

static void test_fatal(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == VICTIM)
        die();
    int x;
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_INT, VICTIM, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "FAIL rank %d: Recv returned under MPI_ERRORS_ARE_FATAL\n", rank);
    exit(1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 4 && size <= 64, "needs 4 to 64 ranks");
    CHECK(argc > 1, "usage: proc_failed "
                    "p2p|midstream|helping|loneread WHO BYTES|coll|pending|inflight|fatal|early");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (strcmp(argv[1], "early") == 0) {
        test_early();
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank == VICTIM ? MPI_UNDEFINED : 0, rank, &live_comm);
    if (live_comm != MPI_COMM_NULL)
        MPI_Comm_set_errhandler(live_comm, MPI_ERRORS_RETURN);
    if (strcmp(argv[1], "p2p") == 0)
        test_p2p();
    else if (strcmp(argv[1], "midstream") == 0)
        test_midstream();
    else if (strcmp(argv[1], "helping") == 0)
      test_helping();
    else if (strcmp(argv[1], "loneread") == 0 && argc > 3)
        test_lone_read(argv[2], (size_t)strtoul(argv[3], NULL, 10));
    else if (strcmp(argv[1], "coll") == 0)
        test_coll();
    else if (strcmp(argv[1], "pending") == 0)
        test_pending();
    else if (strcmp(argv[1], "inflight") == 0)
        test_inflight();
    else
        test_fatal();
    /* Finalize's own barrier includes the dead rank: it reports the
     * failure, which is not this test's business. */
    MPI_Finalize();
    return 0;
}

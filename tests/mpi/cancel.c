/* Cancelling receives: MPI_Cancel on a posted receive that nothing matches,
 * then Wait gives a status with MPI_Test_cancelled true; a cancelled receive
 * does not steal a later message (rank 1 then sends on that tag and a new
 * receive gets it); a receive that already completed is not cancelled.
 *
 * Cancelling sends (argument: a directory both ranks see): a send that
 * already went is not cancelled and arrives; a send queued behind a full
 * channel (rank 1 sits outside MPI, waiting for a file, so nothing drains)
 * may be cancelled.  Either way the receiver's view must agree with
 * MPI_Test_cancelled: a cancelled send never arrives, one not cancelled
 * arrives once, before a later message on the same tag. */
#include "mpitest.h"
#include <time.h>
#include <unistd.h>

static void ca_cancel_posted(int src, int tag, int use_test)
{
    int buf = -1, flag = 0;
    MPI_Request req;
    MPI_Status st;
    MPI_Irecv(&buf, 1, MPI_INT, src, tag, MPI_COMM_WORLD, &req);
    int rc = MPI_Cancel(&req);
    CHECK(rc == MPI_SUCCESS, "Cancel: %s", mt_errstr(rc));
    CHECK(req != MPI_REQUEST_NULL, "Cancel freed the request");
    if (use_test) {
        while (!flag)
            MPI_Test(&req, &flag, &st);
    } else {
        MPI_Wait(&req, &st);
    }
    CHECK(req == MPI_REQUEST_NULL, "request not freed after completion");
    flag = 0;
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "Test_cancelled false for a cancelled receive (src %d tag %d)", src, tag);
    CHECK(buf == -1, "cancelled receive wrote the buffer");
}

/* The receive is matched before the cancel: an Issend to self completes
 * only once its receive has matched it, so after its Wait the posted
 * receive is matched and MPI_Cancel must not cancel it. */
static void ca_completed_not_cancelled(int rank)
{
    int x = 100 + rank, y = -1, flag = 1;
    MPI_Request req, sreq;
    MPI_Status st;
    MPI_Irecv(&y, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &req);
    MPI_Issend(&x, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &sreq);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag, "a matched receive reports cancelled");
    CHECK(y == x, "matched receive got %d, want %d", y, x);
    CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 9, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
}

enum { CA_FLOOD_MAX = 4096, CA_FLOOD_BYTES = 1024 };
enum { CA_TAG_FLOOD = 30, CA_TAG_TARGET = 31, CA_TAG_INFO = 32 };

/* A send the receiver already has: too late to cancel, and the message
 * stays delivered. */
static void ca_send_done_not_cancelled(int rank)
{
    int flag = 1, v = 0;
    MPI_Status st;
    if (rank == 0) {
        MPI_Request req;
        v = 515;
        MPI_Isend(&v, 1, MPI_INT, 1, 41, MPI_COMM_WORLD, &req);
        MPI_Recv(&flag, 1, MPI_INT, 1, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(MPI_Cancel(&req) == MPI_SUCCESS, "Cancel of a delivered send");
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(!flag, "a send already received reports cancelled");
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 41, MPI_COMM_WORLD, &st);
        MPI_Send(&v, 1, MPI_INT, 0, 42, MPI_COMM_WORLD);
        CHECK(v == 515, "send before the cancel: got %d", v);
        MPI_Test_cancelled(&st, &flag);
        CHECK(!flag, "a received message reports cancelled");
    }
}

static void ca_wait_for_file(const char *path)
{
    struct timespec pause = {0, 2000000};
    while (access(path, F_OK) != 0)
        nanosleep(&pause, NULL);
}

/* Rank 0: eager sends to rank 1 (which drains nothing) until one stays
 * pending, so the channel is full and later sends queue; then the target
 * send, its cancel, the file that releases rank 1, and a sentinel on the
 * target's tag; then it tells rank 1 how many flood messages went and
 * whether the target was cancelled. */
static void ca_flood_and_cancel(unsigned char *flood, const char *go)
{
    int info[2];
    MPI_Request *reqs = mt_malloc(CA_FLOOD_MAX * sizeof *reqs);
    int n = 0, pending = 0;
    while (n < CA_FLOOD_MAX && !pending) {
        unsigned char *buf = flood + (size_t)n * CA_FLOOD_BYTES;
        mt_fill(buf, CA_FLOOD_BYTES, (unsigned)n);
        MPI_Isend(buf, CA_FLOOD_BYTES, MPI_BYTE, 1, CA_TAG_FLOOD, MPI_COMM_WORLD, &reqs[n]);
        int done = 0;
        MPI_Request_get_status(reqs[n], &done, MPI_STATUS_IGNORE);
        pending = !done;
        n++;
    }
    int target = 7007, sentinel = -1, flag = 0;
    MPI_Request req;
    MPI_Status st;
    MPI_Isend(&target, 1, MPI_INT, 1, CA_TAG_TARGET, MPI_COMM_WORLD, &req);
    CHECK(MPI_Cancel(&req) == MPI_SUCCESS, "Cancel of a send");
    CHECK(req != MPI_REQUEST_NULL, "Cancel freed the send request");
    /* Rank 1 drains from now on: a send that was not cancelled (and the
     * blocking sends below) can complete. */
    FILE *f = fopen(go, "w");
    CHECK(f != NULL, "cannot create %s", go);
    fclose(f);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    MPI_Send(&sentinel, 1, MPI_INT, 1, CA_TAG_TARGET, MPI_COMM_WORLD);
    info[0] = n;
    info[1] = flag;
    printf("cancel: %d flood sends (channel %s), queued send %s\n", n,
           pending ? "full" : "never full", flag ? "cancelled" : "not cancelled");
    MPI_Send(info, 2, MPI_INT, 1, CA_TAG_INFO, MPI_COMM_WORLD);
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
}

/* Rank 1: every flood message in order, then on the target's tag the
 * target only if it was not cancelled, then the sentinel. */
static void ca_check_flood(unsigned char *flood)
{
    int info[2], v = 0;
    MPI_Status st;
    MPI_Recv(info, 2, MPI_INT, 0, CA_TAG_INFO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < info[0]; i++) {
        MPI_Recv(flood, CA_FLOOD_BYTES, MPI_BYTE, 0, CA_TAG_FLOOD, MPI_COMM_WORLD, &st);
        size_t bad = mt_verify(flood, CA_FLOOD_BYTES, (unsigned)i);
        CHECK(bad == MT_OK, "flood message %d: byte %zu wrong", i, bad);
    }
    MPI_Recv(&v, 1, MPI_INT, 0, CA_TAG_TARGET, MPI_COMM_WORLD, &st);
    if (info[1]) {
        CHECK(v == -1, "send reported cancelled but arrived (got %d)", v);
    } else {
        CHECK(v == 7007, "send not cancelled but did not arrive first (got %d)", v);
        MPI_Recv(&v, 1, MPI_INT, 0, CA_TAG_TARGET, MPI_COMM_WORLD, &st);
        CHECK(v == -1, "sentinel after the uncancelled send: got %d", v);
    }
    int flag = 1;
    MPI_Iprobe(0, CA_TAG_TARGET, MPI_COMM_WORLD, &flag, &st);
    CHECK(!flag, "a further message on the target's tag");
}

static void ca_send_cancel(int rank, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/cancel-go", dir);
    unsigned char *flood = mt_malloc((size_t)CA_FLOOD_MAX * CA_FLOOD_BYTES);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        ca_flood_and_cancel(flood, path);
    } else if (rank == 1) {
        ca_wait_for_file(path);
        ca_check_flood(flood);
    }
    free(flood);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    ca_completed_not_cancelled(rank);
    if (rank == 0) {
        ca_cancel_posted(1, 77, 0);
        ca_cancel_posted(MPI_ANY_SOURCE, 77, 1);
        ca_cancel_posted(MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
        ca_cancel_posted(1, MPI_ANY_TAG, 1);
    }
    /* Only now rank 1 sends on tag 77: the cancelled receives must not take it. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        int v = 4242;
        MPI_Send(&v, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int v = 0, flag = 1;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &st);
        CHECK(v == 4242, "message after cancel: got %d", v);
        MPI_Test_cancelled(&st, &flag);
        CHECK(!flag, "normal receive reports cancelled");
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 77, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ca_send_done_not_cancelled(rank);
    if (argc > 1)
        ca_send_cancel(rank, argv[1]);
    if (rank == 0)
        printf("cancel: receive and send cancel, Test_cancelled, later messages delivered: OK\n");
    MPI_Finalize();
    return 0;
}

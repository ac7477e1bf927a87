/* MPI-4.1's buffered-send buffers, on 2 ranks.
 * - A communicator's buffer (MPI_Comm_attach_buffer) carries its buffered
 *   sends, before the process's (which is too small for them here), and a
 *   send on another communicator still uses the process's; the data
 *   arrives intact and detach gives back the address and size attached
 *   (the _c forms too).
 * - MPI_BUFFER_AUTOMATIC: many sends of any size with no region at all;
 *   detach gives MPI_BUFFER_AUTOMATIC and size 0.
 * - Flushes: MPI_Comm_iflush_buffer stays incomplete while a rendezvous-
 *   sized buffered message waits for its receive (the receiver is held
 *   back by a barrier) and completes after; a flush of an empty buffer
 *   completes at once.
 * - A session's buffer (MPI_Session_attach_buffer) carries the sends of a
 *   communicator made from the session's process set and of its dup;
 *   after the session's detach such a send has no buffer (MPI_ERR_BUFFER).
 * - A communicator made from a group derived from the session's process
 *   set group (MPI_Group_incl, in reverse order, and MPI_Group_union)
 *   derives from the session too: its buffered send goes through the
 *   session's buffer when no process buffer is attached, and fails with
 *   MPI_ERR_BUFFER when the session's buffer is too small even though the
 *   process's would hold it.
 * - Errors: a second attach (MPI_ERR_BUFFER), a negative size
 *   (MPI_ERR_ARG), MPI_COMM_NULL (MPI_ERR_COMM), MPI_SESSION_NULL
 *   (MPI_ERR_SESSION). */
/* mt-needs: MPI-4.1 (built against an older MPICH, e.g. by tests/relink/mpich_suite.sh, it is skipped) */
#include "mpitest.h"

#define BB_SMALL 4000     /* bytes of an eager message */
#define BB_LARGE (1 << 20) /* bytes of one that waits for its receive */

static int bb_peer;

static void bb_recv_check(MPI_Comm comm, int n, int tag, unsigned seed)
{
    unsigned char *msg = mt_malloc((size_t)n);
    MPI_Status st;
    MPI_Recv(msg, n, MPI_BYTE, bb_peer, tag, comm, &st);
    CHECK(mt_verify(msg, (size_t)n, seed) == MT_OK, "message tag %d wrong", tag);
    CHECK(mt_status_count(&st, MPI_BYTE) == n, "count %d, want %d",
          mt_status_count(&st, MPI_BYTE), n);
    free(msg);
}

static void bb_bsend(MPI_Comm comm, int n, int tag, unsigned seed)
{
    unsigned char *msg = mt_malloc((size_t)n);
    mt_fill(msg, (size_t)n, seed);
    int rc = MPI_Bsend(msg, n, MPI_BYTE, bb_peer, tag, comm);
    CHECK(rc == MPI_SUCCESS, "Bsend of %d bytes: %s", n, mt_errstr(rc));
    free(msg);
}

/* The communicator's buffer before the process's. */
static void bb_comm_buffer(int rank)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    static char tiny[64 + MPI_BSEND_OVERHEAD];
    int big = 4 * (BB_SMALL + MPI_BSEND_OVERHEAD);
    char *cbuf = mt_malloc((size_t)big);
    CHECK(MPI_Buffer_attach(tiny, (int)sizeof tiny) == MPI_SUCCESS, "Buffer_attach");
    CHECK(MPI_Comm_attach_buffer(comm, cbuf, big) == MPI_SUCCESS, "Comm_attach_buffer");
    if (rank == 0) {
        for (int i = 0; i < 4; i++)
            bb_bsend(comm, BB_SMALL, 10 + i, 100u + (unsigned)i);
        bb_bsend(MPI_COMM_WORLD, 32, 9, 99u); /* fits the process's only */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        for (int i = 3; i >= 0; i--)
            bb_recv_check(comm, BB_SMALL, 10 + i, 100u + (unsigned)i);
        bb_recv_check(MPI_COMM_WORLD, 32, 9, 99u);
    }
    void *det = NULL;
    int size = -1;
    CHECK(MPI_Comm_detach_buffer(comm, &det, &size) == MPI_SUCCESS, "Comm_detach_buffer");
    CHECK(det == cbuf && size == big, "comm detach gave %p/%d, attached %p/%d", det, size,
          (void *)cbuf, big);
    MPI_Count csize = -1;
    CHECK(MPI_Comm_attach_buffer_c(comm, cbuf, (MPI_Count)big) == MPI_SUCCESS, "attach_c");
    CHECK(MPI_Comm_detach_buffer_c(comm, &det, &csize) == MPI_SUCCESS, "detach_c");
    CHECK(det == cbuf && csize == big, "detach_c gave %p/%lld", det, (long long)csize);
    /* Nothing attached: a detach gives nothing back. */
    CHECK(MPI_Comm_detach_buffer(comm, &det, &size) == MPI_SUCCESS, "empty detach");
    CHECK(det == NULL && size == 0, "empty detach gave %p/%d", det, size);
    MPI_Buffer_detach(&det, &size);
    CHECK(det == tiny && size == (int)sizeof tiny, "process detach gave %p/%d", det, size);
    MPI_Comm_free(&comm);
    free(cbuf);
}

/* MPI_BUFFER_AUTOMATIC on the process: sizes no region was made for. */
static void bb_automatic(int rank)
{
    CHECK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS, "attach automatic");
    int sizes[] = {1, 100, BB_SMALL, 3 * BB_SMALL, 200000};
    int n = (int)(sizeof sizes / sizeof sizes[0]);
    if (rank == 0)
        for (int i = 0; i < n; i++)
            bb_bsend(MPI_COMM_WORLD, sizes[i], 40 + i, 400u + (unsigned)i);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        for (int i = 0; i < n; i++)
            bb_recv_check(MPI_COMM_WORLD, sizes[i], 40 + i, 400u + (unsigned)i);
    void *det = NULL;
    int size = -1;
    CHECK(MPI_Buffer_detach(&det, &size) == MPI_SUCCESS, "detach automatic");
    CHECK(det == MPI_BUFFER_AUTOMATIC && size == 0, "automatic detach gave %p/%d", det, size);
}

/* A flush completes only once the buffered messages have left. */
static void bb_flush(int rank)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    CHECK(MPI_Comm_attach_buffer(comm, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS, "attach");
    MPI_Request req;
    int flag = -1;
    /* Nothing sent yet: complete at once. */
    CHECK(MPI_Comm_iflush_buffer(comm, &req) == MPI_SUCCESS, "iflush");
    CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag, "empty iflush");
    if (rank == 0) {
        bb_bsend(comm, BB_LARGE, 50, 500u);
        CHECK(MPI_Comm_iflush_buffer(comm, &req) == MPI_SUCCESS, "iflush");
        for (int i = 0; i < 20; i++) {
            CHECK(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS,
                  "get_status");
            CHECK(!flag, "iflush complete before the receive was posted");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        bb_recv_check(comm, BB_LARGE, 50, 500u);
    if (rank == 0) {
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait iflush");
        CHECK(req == MPI_REQUEST_NULL, "iflush request not freed");
        /* A blocking flush after another message, then the process's. */
        bb_bsend(comm, BB_SMALL, 51, 510u);
        CHECK(MPI_Comm_flush_buffer(comm) == MPI_SUCCESS, "Comm_flush_buffer");
    }
    if (rank == 1)
        bb_recv_check(comm, BB_SMALL, 51, 510u);
    CHECK(MPI_Buffer_flush() == MPI_SUCCESS, "Buffer_flush with nothing attached");
    CHECK(MPI_Buffer_iflush(&req) == MPI_SUCCESS, "Buffer_iflush");
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait Buffer_iflush");
    void *det = NULL;
    int size = -1;
    MPI_Comm_detach_buffer(comm, &det, &size);
    CHECK(det == MPI_BUFFER_AUTOMATIC && size == 0, "detach gave %p/%d", det, size);
    MPI_Comm_free(&comm);
}

/* A session's buffer serves the communicators derived from it. */
static void bb_session(int rank)
{
    MPI_Session session;
    MPI_Group group;
    MPI_Comm scomm, sdup;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) == MPI_SUCCESS,
          "Session_init");
    MPI_Group_from_session_pset(session, "mpi://WORLD", &group);
    CHECK(MPI_Comm_create_from_group(group, "org.hcmpi.test.bsend_buffers", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &scomm) == MPI_SUCCESS,
          "Comm_create_from_group");
    MPI_Group_free(&group);
    MPI_Comm_dup(scomm, &sdup);
    int srank = -1;
    MPI_Comm_rank(scomm, &srank);
    int speer = 1 - srank, big = 2 * (BB_SMALL + MPI_BSEND_OVERHEAD);
    char *sbuf = mt_malloc((size_t)big);
    CHECK(MPI_Session_attach_buffer(session, sbuf, big) == MPI_SUCCESS, "Session_attach");
    int rc = MPI_Session_attach_buffer(session, sbuf, big);
    CHECK(mt_class(rc) == MPI_ERR_BUFFER, "second session attach: %s", mt_errstr(rc));
    bb_peer = speer;
    if (srank == 0) {
        bb_bsend(scomm, BB_SMALL, 60, 600u);
        bb_bsend(sdup, BB_SMALL, 61, 610u);
        MPI_Request req;
        CHECK(MPI_Session_iflush_buffer(session, &req) == MPI_SUCCESS, "Session_iflush");
        MPI_Send(NULL, 0, MPI_BYTE, speer, 62, scomm); /* receiver may go on */
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait Session_iflush");
    } else {
        MPI_Recv(NULL, 0, MPI_BYTE, speer, 62, scomm, MPI_STATUS_IGNORE);
        bb_recv_check(sdup, BB_SMALL, 61, 610u);
        bb_recv_check(scomm, BB_SMALL, 60, 600u);
    }
    CHECK(MPI_Session_flush_buffer(session) == MPI_SUCCESS, "Session_flush_buffer");
    void *det = NULL;
    MPI_Count csize = -1;
    CHECK(MPI_Session_detach_buffer_c(session, &det, &csize) == MPI_SUCCESS, "detach_c");
    CHECK(det == sbuf && csize == big, "session detach gave %p/%lld", det, (long long)csize);
    char one = 1;
    rc = MPI_Bsend(&one, 1, MPI_BYTE, speer, 63, scomm);
    CHECK(mt_class(rc) == MPI_ERR_BUFFER, "Bsend after the session's detach: %s",
          mt_errstr(rc));
    bb_peer = 1 - rank;
    MPI_Comm_free(&sdup);
    MPI_Comm_free(&scomm);
    MPI_Session_finalize(&session);
    free(sbuf);
}

/* Creates a communicator from group, which derives from a session. */
static MPI_Comm bb_comm_of_group(MPI_Group group, const char *tag)
{
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = MPI_Comm_create_from_group(group, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm);
    CHECK(rc == MPI_SUCCESS, "Comm_create_from_group %s: %s", tag, mt_errstr(rc));
    return comm;
}

/* Groups made from a session's group carry the session to communicators. */
static void bb_session_derived_group(int rank)
{
    MPI_Session session;
    MPI_Group pset, reversed, joined;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) == MPI_SUCCESS,
          "Session_init");
    MPI_Group_from_session_pset(session, "mpi://WORLD", &pset);
    const int backwards[2] = {1, 0};
    MPI_Group_incl(pset, 2, backwards, &reversed);
    MPI_Group_union(reversed, pset, &joined);
    MPI_Group_free(&pset);
    MPI_Comm icomm = bb_comm_of_group(reversed, "org.hcmpi.test.bsend_buffers.incl");
    MPI_Comm ucomm = bb_comm_of_group(joined, "org.hcmpi.test.bsend_buffers.union");
    MPI_Group_free(&reversed);
    MPI_Group_free(&joined);
    int irank = -1;
    MPI_Comm_rank(icomm, &irank);
    CHECK(irank == 1 - rank, "rank %d in the reversed group, want %d", irank, 1 - rank);

    /* Only the session has a buffer: without it these sends would fail. */
    int big = 2 * (BB_SMALL + MPI_BSEND_OVERHEAD);
    char *sbuf = mt_malloc((size_t)big);
    CHECK(MPI_Session_attach_buffer(session, sbuf, big) == MPI_SUCCESS, "Session_attach");
    bb_peer = 1 - irank;
    if (irank == 0) {
        bb_bsend(icomm, BB_SMALL, 70, 700u);
        bb_bsend(ucomm, BB_SMALL, 71, 710u);
    } else {
        bb_recv_check(icomm, BB_SMALL, 70, 700u);
        bb_recv_check(ucomm, BB_SMALL, 71, 710u);
    }
    CHECK(MPI_Session_flush_buffer(session) == MPI_SUCCESS, "Session_flush_buffer");
    void *det = NULL;
    int size = -1;
    MPI_Session_detach_buffer(session, &det, &size);

    /* The session's too-small buffer is chosen over the process's roomy one. */
    static char tiny[64 + MPI_BSEND_OVERHEAD];
    CHECK(MPI_Session_attach_buffer(session, tiny, (int)sizeof tiny) == MPI_SUCCESS,
          "Session_attach tiny");
    CHECK(MPI_Buffer_attach(sbuf, big) == MPI_SUCCESS, "Buffer_attach");
    if (irank == 0) {
        unsigned char *msg = mt_malloc(BB_SMALL);
        mt_fill(msg, BB_SMALL, 720u);
        int rc = MPI_Bsend(msg, BB_SMALL, MPI_BYTE, bb_peer, 72, icomm);
        CHECK(mt_class(rc) == MPI_ERR_BUFFER, "Bsend beyond the session's buffer: %s",
              mt_errstr(rc));
        free(msg);
    }
    MPI_Buffer_detach(&det, &size);
    CHECK(det == sbuf && size == big, "process detach gave %p/%d", det, size);
    MPI_Session_detach_buffer(session, &det, &size);
    CHECK(det == tiny, "session detach gave %p", det);
    bb_peer = 1 - rank;
    MPI_Comm_free(&ucomm);
    MPI_Comm_free(&icomm);
    MPI_Session_finalize(&session);
    free(sbuf);
}

static void bb_errors(void)
{
    static char buf[1000];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_attach_buffer(MPI_COMM_WORLD, buf, 500) == MPI_SUCCESS, "attach");
    int rc = MPI_Comm_attach_buffer(MPI_COMM_WORLD, buf + 500, 500);
    CHECK(mt_class(rc) == MPI_ERR_BUFFER, "second attach: %s", mt_errstr(rc));
    rc = MPI_Comm_attach_buffer(MPI_COMM_SELF, buf, -1);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "negative size: %s", mt_errstr(rc));
    rc = MPI_Comm_attach_buffer(MPI_COMM_NULL, buf, 10);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "MPI_COMM_NULL: %s", mt_errstr(rc));
    rc = MPI_Comm_flush_buffer(MPI_COMM_NULL);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "flush MPI_COMM_NULL: %s", mt_errstr(rc));
    rc = MPI_Session_attach_buffer(MPI_SESSION_NULL, buf, 10);
    CHECK(mt_class(rc) == MPI_ERR_SESSION, "MPI_SESSION_NULL: %s", mt_errstr(rc));
    void *det = NULL;
    int size = 0;
    rc = MPI_Session_detach_buffer(MPI_SESSION_NULL, &det, &size);
    CHECK(mt_class(rc) == MPI_ERR_SESSION, "detach MPI_SESSION_NULL: %s", mt_errstr(rc));
    CHECK(MPI_Comm_detach_buffer(MPI_COMM_WORLD, &det, &size) == MPI_SUCCESS, "detach");
    CHECK(det == buf && size == 500, "detach gave %p/%d", det, size);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks, got %d", size);
    bb_peer = 1 - rank;
    bb_comm_buffer(rank);
    bb_automatic(rank);
    bb_flush(rank);
    bb_session(rank);
    bb_session_derived_group(rank);
    bb_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("bsend_buffers: OK\n");
    MPI_Finalize();
    return 0;
}

/* Probe, Iprobe, Mprobe, Improbe, Mrecv and Imrecv.  Rank 0 sends messages
 * of several sizes (eager and rendezvous); rank 1 learns source, tag and size
 * from the probe's status, allocates exactly that and receives.  Also: a
 * probe does not consume the message, Iprobe on an absent tag says no, a
 * matched message (Mprobe) cannot be seen by a later probe, and probes of
 * MPI_PROC_NULL return MPI_MESSAGE_NO_PROC with the null status; matched
 * receives into a derived type, after their handle was consumed, and
 * truncated. */
#include "mpitest.h"

static const int pr_sizes[] = {0, 1, 7, 100, 4096, 65537, 1 << 20};
#define PR_NSIZES ((int)(sizeof pr_sizes / sizeof pr_sizes[0]))
#define PR_MODES 4

static int pr_tag(int mode, int i) { return 10 + mode * 100 + i; }

static void pr_sender(void)
{
    for (int mode = 0; mode < PR_MODES; mode++) {
        for (int i = 0; i < PR_NSIZES; i++) {
            size_t n = (size_t)pr_sizes[i];
            unsigned char *buf = mt_malloc(n);
            mt_fill(buf, n, (unsigned)pr_tag(mode, i));
            MPI_Send(buf, (int)n, MPI_BYTE, 1, pr_tag(mode, i), MPI_COMM_WORLD);
            free(buf);
        }
    }
}

static void pr_check(const unsigned char *buf, const MPI_Status *st, int tag, size_t n,
                     const char *how)
{
    size_t bad = mt_verify(buf, n, (unsigned)tag);
    CHECK(bad == MT_OK, "%s: size %zu byte %zu wrong", how, n, bad);
    CHECK(st->MPI_SOURCE == 0 && st->MPI_TAG == tag, "%s: status source %d tag %d, want 0/%d",
          how, st->MPI_SOURCE, st->MPI_TAG, tag);
    CHECK(mt_status_count(st, MPI_BYTE) == (int)n, "%s: count %d want %zu", how,
          mt_status_count(st, MPI_BYTE), n);
}

/* Probes (ANY_SOURCE, ANY_TAG) and checks the status names the message the
 * sender sent next, then returns its size. */
static int pr_probe_status(const MPI_Status *st, int tag, int i, const char *how)
{
    int count = mt_status_count(st, MPI_BYTE);
    CHECK(st->MPI_SOURCE == 0, "%s: probe source %d", how, st->MPI_SOURCE);
    CHECK(st->MPI_TAG == tag, "%s: probe tag %d, want %d", how, st->MPI_TAG, tag);
    CHECK(count == pr_sizes[i], "%s: probe count %d, want %d", how, count, pr_sizes[i]);
    return count;
}

static void pr_recv_one(int mode, int i)
{
    static const char *names[] = {"Probe", "Iprobe", "Mprobe", "Improbe"};
    int tag = pr_tag(mode, i), flag = 0;
    MPI_Status st, st2;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request req;
    if (mode == 0)
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    else if (mode == 1)
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    else if (mode == 2)
        MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
    else
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    int n = pr_probe_status(&st, tag, i, names[mode]);
    unsigned char *buf = mt_malloc((size_t)n);
    if (mode < 2) {
        /* Probing again finds the same message: a probe does not consume. */
        MPI_Probe(0, tag, MPI_COMM_WORLD, &st2);
        pr_probe_status(&st2, tag, i, "second Probe");
        MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2);
    } else {
        CHECK(msg != MPI_MESSAGE_NULL, "%s: message handle is MPI_MESSAGE_NULL", names[mode]);
        /* A matched message is gone from the queue. */
        MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "%s: Iprobe still sees a matched message (tag %d)", names[mode], tag);
        if (i % 2 == 0) {
            MPI_Mrecv(buf, n, MPI_BYTE, &msg, &st2);
        } else {
            MPI_Imrecv(buf, n, MPI_BYTE, &msg, &req);
            MPI_Wait(&req, &st2);
        }
        CHECK(msg == MPI_MESSAGE_NULL, "%s: Mrecv did not reset the handle", names[mode]);
    }
    pr_check(buf, &st2, tag, (size_t)n, names[mode]);
    free(buf);
}

static void pr_null_status(const MPI_Status *st, const char *how)
{
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL, "%s: source %d", how, st->MPI_SOURCE);
    CHECK(st->MPI_TAG == MPI_ANY_TAG, "%s: tag %d", how, st->MPI_TAG);
    CHECK(mt_status_count(st, MPI_BYTE) == 0, "%s: count %d", how, mt_status_count(st, MPI_BYTE));
}

static void pr_proc_null(void)
{
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    MPI_Request req;
    int flag = 0, x = 42;
    MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &msg, &st);
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) gave message %ld", (long)msg);
    pr_null_status(&st, "Mprobe(PROC_NULL)");
    MPI_Mrecv(&x, 1, MPI_INT, &msg, &st);
    CHECK(msg == MPI_MESSAGE_NULL, "Mrecv(NO_PROC) left handle %ld", (long)msg);
    CHECK(x == 42, "Mrecv(NO_PROC) wrote the buffer");
    pr_null_status(&st, "Mrecv(NO_PROC)");
    MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL): flag %d", flag);
    MPI_Imrecv(&x, 1, MPI_INT, &msg, &req);
    MPI_Wait(&req, &st);
    pr_null_status(&st, "Imrecv(NO_PROC)");
    MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
    pr_null_status(&st, "Probe(PROC_NULL)");
    flag = 0;
    MPI_Iprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &st);
    CHECK(flag, "Iprobe(PROC_NULL) flag 0");
    pr_null_status(&st, "Iprobe(PROC_NULL)");
}

/* Matched receives into a non-contiguous type (staged, then unpacked
 * when the receive ends) by MPI_Imrecv, rendezvous-sized; a message
 * handle that MPI_Imrecv consumed names nothing afterwards (a copy of it
 * is MPI_ERR_REQUEST), while the request works; truncation by MPI_Mrecv
 * and MPI_Imrecv: what fits lands, MPI_ERR_TRUNCATE. */
enum { PR_K = 20000 };

static void pr_more_sender(void)
{
    int *v = mt_malloc(sizeof(int) * PR_K);
    for (int i = 0; i < PR_K; i++)
        v[i] = 3 * i + 1;
    MPI_Send(v, PR_K, MPI_INT, 1, 900, MPI_COMM_WORLD);
    MPI_Send(v, 10, MPI_INT, 1, 901, MPI_COMM_WORLD);
    MPI_Send(v, 10, MPI_INT, 1, 902, MPI_COMM_WORLD);
    free(v);
}

static void pr_more_receiver(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Datatype vec;
    MPI_Type_vector(PR_K, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *b = mt_malloc(sizeof(int) * 2 * PR_K);
    for (int i = 0; i < 2 * PR_K; i++)
        b[i] = -7;
    MPI_Message msg, copy;
    MPI_Request req;
    MPI_Status st;
    MPI_Mprobe(0, 900, MPI_COMM_WORLD, &msg, &st);
    copy = msg;
    int rc = MPI_Imrecv(b, 1, vec, &msg, &req);
    CHECK(rc == MPI_SUCCESS && msg == MPI_MESSAGE_NULL, "Imrecv vector: %s", mt_errstr(rc));
    int x = 5;
    rc = MPI_Mrecv(&x, 1, MPI_INT, &copy, MPI_STATUS_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST && x == 5,
          "Mrecv of a consumed message handle: %s, x %d", mt_errstr(rc), x);
    rc = MPI_Wait(&req, &st);
    CHECK(rc == MPI_SUCCESS && req == MPI_REQUEST_NULL, "Wait on Imrecv vector: %s",
          mt_errstr(rc));
    for (int i = 0; i < 2 * PR_K; i++)
        CHECK(b[i] == (i % 2 ? -7 : 3 * (i / 2) + 1), "Imrecv vector: [%d] = %d", i, b[i]);
    int count = -1;
    MPI_Get_count(&st, vec, &count);
    CHECK(count == 1 && st.MPI_SOURCE == 0 && st.MPI_TAG == 900,
          "Imrecv vector: count %d source %d tag %d", count, st.MPI_SOURCE, st.MPI_TAG);
    MPI_Type_free(&vec);

    int small[6] = {-1, -1, -1, -1, -1, -1};
    MPI_Mprobe(0, 901, MPI_COMM_WORLD, &msg, &st);
    rc = MPI_Mrecv(small, 4, MPI_INT, &msg, &st);
    CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "Mrecv of 10 ints into 4: %s", mt_errstr(rc));
    CHECK(small[0] == 1 && small[3] == 10 && small[4] == -1, "Mrecv truncated: %d %d %d",
          small[0], small[3], small[4]);
    for (int i = 0; i < 6; i++)
        small[i] = -1;
    int flag = 0;
    while (!flag)
        MPI_Improbe(0, 902, MPI_COMM_WORLD, &flag, &msg, MPI_STATUS_IGNORE);
    rc = MPI_Imrecv(small, 4, MPI_INT, &msg, &req);
    CHECK(rc == MPI_SUCCESS, "Imrecv of 10 ints into 4: %s", mt_errstr(rc));
    rc = MPI_Wait(&req, &st);
    CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "Imrecv truncated wait: %s", mt_errstr(rc));
    CHECK(small[0] == 1 && small[3] == 10 && small[4] == -1, "Imrecv truncated: %d %d %d",
          small[0], small[3], small[4]);
    free(b);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int rank, size, flag = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    pr_proc_null();
    MPI_Iprobe(MPI_ANY_SOURCE, 9999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "Iprobe found a message with a tag nobody sends");
    if (rank == 0)
        pr_sender();
    else if (rank == 1)
        for (int mode = 0; mode < PR_MODES; mode++)
            for (int i = 0; i < PR_NSIZES; i++)
                pr_recv_one(mode, i);
    if (rank == 0)
        pr_more_sender();
    else if (rank == 1)
        pr_more_receiver();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("probe: %d sizes x 4 probe kinds + PROC_NULL: OK\n", PR_NSIZES);
    MPI_Finalize();
    return 0;
}

/*
 * MPICH's generalized request extension: MPIX_Grequest_start and classes
 * (MPIX_Grequest_class_create / _allocate).  Proves that the waiting
 * thread drives such requests through their callbacks: poll_fn in every
 * MPI_Test and in the loops of MPI_Wait(all, any, some) and
 * MPI_Test(all, any, some), until the poll_fn completes the request;
 * wait_fn once in a blocking wait, with the request's own state and
 * timeout 0; query_fn's status comes back and free_fn runs once; these
 * requests sit beside a real receive from the ring neighbour (bytes and
 * status checked); a failing callback's code comes back; a bad class gets
 * MPI_ERR_ARG.
 */
#include "mpitest.h"

typedef struct work {
    int polls_left;  /* poll_fn completes the request when this reaches 0 */
    int polls;       /* poll_fn calls */
    int waits;       /* wait_fn calls */
    int queries;     /* query_fn calls */
    int frees;       /* free_fn calls */
    int fail;        /* poll_fn returns MPI_ERR_OTHER */
    int tag;         /* reported by query_fn */
    MPI_Request req;
} work_t;

static int query_fn(void *state, MPI_Status *st)
{
    work_t *w = state;
    w->queries++;
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 0;
    st->MPI_TAG = w->tag;
    return MPI_SUCCESS;
}

static int free_fn(void *state)
{
    ((work_t *)state)->frees++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *state, int complete)
{
    (void)state;
    (void)complete;
    return MPI_SUCCESS;
}

static int poll_fn(void *state, MPI_Status *st)
{
    work_t *w = state;
    (void)st;
    w->polls++;
    if (w->fail)
        return MPI_ERR_OTHER;
    if (w->polls_left > 0 && --w->polls_left == 0)
        CHECK(MPI_Grequest_complete(w->req) == MPI_SUCCESS, "complete in poll_fn");
    return MPI_SUCCESS;
}

static int wait_fn(int count, void **states, double timeout, MPI_Status *st)
{
    (void)st;
    CHECK(count == 1 && timeout == 0.0, "wait_fn(%d, %g)", count, timeout);
    work_t *w = states[0];
    w->waits++;
    w->polls_left = 0;
    return MPI_Grequest_complete(w->req);
}

static void start_polled(work_t *w, int polls, int tag)
{
    memset(w, 0, sizeof *w);
    w->polls_left = polls;
    w->tag = tag;
    CHECK(MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, NULL, w, &w->req) ==
              MPI_SUCCESS, "MPIX_Grequest_start");
}

static void check_done(const work_t *w, const MPI_Status *st, const char *how)
{
    CHECK(w->queries == 1 && w->frees == 1, "%s: %d queries, %d frees", how, w->queries,
          w->frees);
    CHECK(st->MPI_TAG == w->tag && mt_status_count(st, MPI_INT) == 3, "%s: status tag %d",
          how, st->MPI_TAG);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Status st;
    work_t a, b, c;

    /* MPI_Wait polls until poll_fn completes it. */
    start_polled(&a, 5, 11);
    CHECK(MPI_Wait(&a.req, &st) == MPI_SUCCESS && a.req == MPI_REQUEST_NULL, "wait");
    CHECK(a.polls == 5, "%d polls", a.polls);
    check_done(&a, &st, "wait");

    /* Each MPI_Test polls once. */
    start_polled(&a, 3, 12);
    int flag = 0, tests = 0;
    while (!flag) {
        CHECK(MPI_Test(&a.req, &flag, &st) == MPI_SUCCESS, "test");
        tests++;
        CHECK(a.polls == tests, "test %d: %d polls", tests, a.polls);
    }
    CHECK(tests == 3, "%d tests", tests);
    check_done(&a, &st, "test");

    /* wait_fn: called once by a blocking wait, and it completes it. */
    memset(&a, 0, sizeof a);
    a.tag = 13;
    CHECK(MPIX_Grequest_start(query_fn, free_fn, cancel_fn, NULL, wait_fn, &a, &a.req) == 0,
          "start with wait_fn");
    CHECK(MPI_Wait(&a.req, &st) == MPI_SUCCESS, "wait");
    CHECK(a.waits == 1, "%d waits", a.waits);
    check_done(&a, &st, "wait_fn");

    /* A class: three requests beside a real receive in MPI_Waitall. */
    MPIX_Grequest_class cls;
    CHECK(MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, poll_fn, NULL, &cls) == 0,
          "class_create");
    work_t *ws[3] = {&a, &b, &c};
    MPI_Request reqs[4];
    MPI_Status sts[4];
    int in = -1, out = rank * 10 + 1;
    for (int k = 0; k < 3; k++) {
        memset(ws[k], 0, sizeof *ws[k]);
        ws[k]->polls_left = 2 + k;
        ws[k]->tag = 20 + k;
        CHECK(MPIX_Grequest_class_allocate(cls, ws[k], &ws[k]->req) == 0, "allocate");
        reqs[k] = ws[k]->req;
    }
    CHECK(MPI_Irecv(&in, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &reqs[3]) == 0, "irecv");
    CHECK(MPI_Send(&out, 1, MPI_INT, next, 5, MPI_COMM_WORLD) == 0, "send");
    CHECK(MPI_Waitall(4, reqs, sts) == MPI_SUCCESS, "waitall");
    for (int k = 0; k < 3; k++) {
        CHECK(ws[k]->polls >= 2 + k, "request %d: %d polls", k, ws[k]->polls);
        check_done(ws[k], &sts[k], "waitall");
    }
    CHECK(in == prev * 10 + 1 && sts[3].MPI_SOURCE == prev && sts[3].MPI_TAG == 5,
          "received %d from %d", in, sts[3].MPI_SOURCE);

    /* MPI_Waitany and MPI_Waitsome, MPI_Testall. */
    for (int k = 0; k < 2; k++) {
        memset(ws[k], 0, sizeof *ws[k]);
        ws[k]->polls_left = 3;
        ws[k]->tag = 30 + k;
        CHECK(MPIX_Grequest_class_allocate(cls, ws[k], &ws[k]->req) == 0, "allocate");
        reqs[k] = ws[k]->req;
    }
    int idx = -1;
    CHECK(MPI_Waitany(2, reqs, &idx, &st) == MPI_SUCCESS && idx >= 0, "waitany");
    check_done(ws[idx], &st, "waitany");
    int outcount = 0, indices[2];
    CHECK(MPI_Waitsome(2, reqs, &outcount, indices, sts) == MPI_SUCCESS && outcount == 1 &&
              indices[0] == 1 - idx,
          "waitsome: %d", outcount);
    check_done(ws[1 - idx], &sts[0], "waitsome");
    start_polled(&a, 4, 40);
    flag = 0;
    while (!flag)
        CHECK(MPI_Testall(1, &a.req, &flag, &st) == MPI_SUCCESS, "testall");
    check_done(&a, &st, "testall");

    /* Errors: a failing poll_fn, a bad class. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    start_polled(&a, 0, 50);
    a.fail = 1;
    int rc = MPI_Test(&a.req, &flag, &st);
    CHECK(mt_class(rc) == MPI_ERR_OTHER, "failing poll_fn: %s", mt_errstr(rc));
    a.fail = 0;
    CHECK(MPI_Grequest_complete(a.req) == 0 && MPI_Wait(&a.req, &st) == 0, "finish");
    MPI_Request dummy = MPI_REQUEST_NULL;
    rc = MPIX_Grequest_class_allocate((MPIX_Grequest_class)0x12345, &a, &dummy);
    CHECK(mt_class(rc) == MPI_ERR_ARG && dummy == MPI_REQUEST_NULL, "bad class: %s",
          mt_errstr(rc));

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("grequest_x: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}

/* Success paths of calls that other tests reach only with bad input:
 * - MPI_Request_get_status on pending and completed requests (a receive and
 *   a synchronous send that cannot complete before rank 1 acts): flag 0
 *   while pending, then flag 1 with the full status, repeatably, and the
 *   request is not freed (MPI_Wait still completes it); MPI_REQUEST_NULL and
 *   an inactive persistent request give flag 1 and the empty status.
 * - MPI_Comm_get_errhandler / MPI_Errhandler_free: the default is
 *   MPI_ERRORS_ARE_FATAL and freeing the handle got for it changes nothing;
 *   a user handler freed right after being set stays in force, its handle
 *   from Comm_get_errhandler installs it on another communicator, a dup
 *   inherits it, and every raise calls it once with the right class.
 * - MPI_Rsend, MPI_Irsend and MPI_Rsend_init with real transfers (eager and
 *   rendezvous sizes): rank 1 posts its receives first, then says it is
 *   ready; bytes, source, tag and count are checked.
 * - MPI_Type_size_x, MPI_Type_get_extent_x, MPI_Type_get_true_extent_x on a
 *   predefined type, a vector, a resized vector, an hindexed type with a
 *   negative displacement, and a 4 GiB type whose size does not fit in an
 *   int (MPI_Type_size then gives MPI_UNDEFINED). */
#include "mpitest.h"

enum { SP_BIG = 2 << 20 };

/* The empty status: any source, any tag, count 0, not cancelled.  Its
 * MPI_ERROR is not checked: the standard's definition says MPI_SUCCESS,
 * its rule for single completions says the field is left alone, and
 * hcmpi, like MPICH, follows the latter. */
static void sp_check_empty(const MPI_Status *st, const char *what)
{
    int cancelled = 1;
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG,
          "%s: status %d/%d is not the empty status", what, st->MPI_SOURCE, st->MPI_TAG);
    CHECK(mt_status_count(st, MPI_BYTE) == 0, "%s: count %d", what,
          mt_status_count(st, MPI_BYTE));
    MPI_Test_cancelled(st, &cancelled);
    CHECK(!cancelled, "%s: empty status reports cancelled", what);
}

/* Polls with Request_get_status until the request completes; a second
 * call reports it complete again, with the same status for a receive (a
 * send's source and tag are undefined). */
static void sp_poll_status(MPI_Request req, MPI_Status *st, int is_recv)
{
    int flag = 0;
    while (!flag)
        CHECK(MPI_Request_get_status(req, &flag, st) == MPI_SUCCESS, "Request_get_status");
    MPI_Status again;
    flag = 0;
    MPI_Request_get_status(req, &flag, &again);
    CHECK(flag, "a second Request_get_status reports the request pending");
    if (is_recv)
        CHECK(again.MPI_SOURCE == st->MPI_SOURCE && again.MPI_TAG == st->MPI_TAG &&
                  mt_status_count(&again, MPI_BYTE) == mt_status_count(st, MPI_BYTE),
              "a second Request_get_status differs");
}

static void sp_get_status_rank0(void)
{
    int x = -1, flag = 1;
    unsigned char *big = mt_malloc(SP_BIG);
    mt_fill(big, SP_BIG, 5);
    MPI_Request rreq, sreq;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, &rreq);
    MPI_Issend(big, SP_BIG, MPI_BYTE, 1, 51, MPI_COMM_WORLD, &sreq);
    MPI_Request_get_status(rreq, &flag, &st);
    CHECK(!flag, "receive reported complete before its message was sent");
    flag = 1;
    MPI_Request_get_status(sreq, &flag, &st);
    CHECK(!flag, "synchronous send reported complete before its receive was posted");
    CHECK(rreq != MPI_REQUEST_NULL && sreq != MPI_REQUEST_NULL, "get_status freed a request");
    MPI_Send(&x, 0, MPI_INT, 1, 52, MPI_COMM_WORLD); /* rank 1 may go on */
    sp_poll_status(rreq, &st, 1);
    CHECK(x == 4711, "received %d", x);
    CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 50 && mt_status_count(&st, MPI_INT) == 1,
          "receive status %d/%d count %d", st.MPI_SOURCE, st.MPI_TAG,
          mt_status_count(&st, MPI_INT));
    CHECK(rreq != MPI_REQUEST_NULL, "get_status freed the completed receive");
    MPI_Wait(&rreq, &st);
    CHECK(rreq == MPI_REQUEST_NULL && st.MPI_SOURCE == 1 && st.MPI_TAG == 50,
          "Wait after get_status: status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    sp_poll_status(sreq, &st, 0);
    CHECK(sreq != MPI_REQUEST_NULL, "get_status freed the completed send");
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    CHECK(sreq == MPI_REQUEST_NULL, "Wait did not free the send");
    free(big);
}

static void sp_get_status_rank1(void)
{
    int x = 4711;
    unsigned char *big = mt_malloc(SP_BIG);
    MPI_Recv(NULL, 0, MPI_INT, 0, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, 0, 50, MPI_COMM_WORLD);
    MPI_Recv(big, SP_BIG, MPI_BYTE, 0, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    size_t bad = mt_verify(big, SP_BIG, 5);
    CHECK(bad == MT_OK, "synchronous send: byte %zu wrong", bad);
    free(big);
}

static void sp_get_status(int rank)
{
    int flag = 0, x;
    MPI_Status st;
    MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
    CHECK(flag, "get_status(MPI_REQUEST_NULL): flag 0");
    sp_check_empty(&st, "get_status(MPI_REQUEST_NULL)");
    MPI_Request p;
    MPI_Recv_init(&x, 1, MPI_INT, 0, 53, MPI_COMM_WORLD, &p);
    flag = 0;
    MPI_Request_get_status(p, &flag, &st);
    CHECK(flag && p != MPI_REQUEST_NULL, "inactive persistent request: flag %d", flag);
    sp_check_empty(&st, "inactive persistent request");
    MPI_Request_free(&p);
    if (rank == 0)
        sp_get_status_rank0();
    else if (rank == 1)
        sp_get_status_rank1();
}

static int sp_calls, sp_last_class;
static MPI_Comm sp_last_comm;

static void sp_count_errors(MPI_Comm *comm, int *code, ...)
{
    sp_calls++;
    sp_last_comm = *comm;
    sp_last_class = mt_class(*code);
}

/* A bad rank on comm: the handler runs once, with comm and MPI_ERR_RANK. */
static void sp_raise(MPI_Comm comm, int calls_before, const char *what)
{
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, -9, 0, comm);
    CHECK(mt_class(rc) == MPI_ERR_RANK, "%s: Send returned class %d", what, mt_class(rc));
    CHECK(sp_calls == calls_before + 1, "%s: handler ran %d times, want 1", what,
          sp_calls - calls_before);
    CHECK(sp_last_comm == comm && sp_last_class == MPI_ERR_RANK, "%s: handler got class %d",
          what, sp_last_class);
}

static void sp_errhandlers(void)
{
    MPI_Errhandler g = MPI_ERRHANDLER_NULL, eh, g2, g3;
    CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &g) == MPI_SUCCESS, "get_errhandler");
    CHECK(g == MPI_ERRORS_ARE_FATAL, "default errhandler 0x%x", (unsigned)g);
    CHECK(MPI_Errhandler_free(&g) == MPI_SUCCESS && g == MPI_ERRHANDLER_NULL, "free predefined");
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &g);
    CHECK(g == MPI_ERRORS_ARE_FATAL, "after freeing its handle the world has 0x%x",
          (unsigned)g);
    MPI_Errhandler_free(&g);

    MPI_Comm a, b, c;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    CHECK(MPI_Comm_create_errhandler(sp_count_errors, &eh) == MPI_SUCCESS, "create_errhandler");
    MPI_Comm_set_errhandler(a, eh);
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL, "free user");
    sp_raise(a, 0, "handler freed while installed");
    CHECK(MPI_Comm_get_errhandler(a, &g) == MPI_SUCCESS, "get_errhandler of a");
    CHECK(g != MPI_ERRHANDLER_NULL && g != MPI_ERRORS_ARE_FATAL && g != MPI_ERRORS_RETURN,
          "get_errhandler gave 0x%x for a user handler", (unsigned)g);
    MPI_Comm_set_errhandler(b, g);
    MPI_Errhandler_free(&g);
    sp_raise(b, 1, "handle from get_errhandler set on another comm");
    sp_raise(a, 2, "first comm after the second handle was freed");
    MPI_Comm_dup(a, &c);
    sp_raise(c, 3, "dup of a comm with a user handler");
    MPI_Comm_get_errhandler(a, &g2);
    MPI_Comm_get_errhandler(c, &g3);
    CHECK(g2 == g3, "dup has handler 0x%x, parent 0x%x", (unsigned)g3, (unsigned)g2);
    MPI_Errhandler_free(&g2);
    MPI_Errhandler_free(&g3);
    MPI_Comm_free(&c);
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
}

static void sp_ready_rank1(void)
{
    int small[16], one = -1;
    unsigned char *big = mt_malloc(SP_BIG);
    MPI_Request r[3];
    MPI_Status st[3];
    memset(small, 0, sizeof small);
    MPI_Irecv(small, 16, MPI_INT, 0, 60, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(big, SP_BIG, MPI_BYTE, 0, 61, MPI_COMM_WORLD, &r[1]);
    MPI_Recv_init(&one, 1, MPI_INT, 0, 62, MPI_COMM_WORLD, &r[2]);
    MPI_Start(&r[2]);
    MPI_Send(NULL, 0, MPI_INT, 0, 63, MPI_COMM_WORLD); /* every receive is posted */
    MPI_Waitall(3, r, st);
    for (int i = 0; i < 16; i++)
        CHECK(small[i] == 100 + i, "Rsend: element %d is %d", i, small[i]);
    size_t bad = mt_verify(big, SP_BIG, 61);
    CHECK(bad == MT_OK, "Irsend: byte %zu wrong", bad);
    CHECK(one == 62, "Rsend_init: got %d", one);
    static const int tags[3] = {60, 61, 62}, counts[3] = {16 * 4, SP_BIG, 4};
    for (int i = 0; i < 3; i++)
        CHECK(st[i].MPI_SOURCE == 0 && st[i].MPI_TAG == tags[i] &&
                  mt_status_count(&st[i], MPI_BYTE) == counts[i],
              "ready send %d: status %d/%d count %d", i, st[i].MPI_SOURCE, st[i].MPI_TAG,
              mt_status_count(&st[i], MPI_BYTE));
    MPI_Request_free(&r[2]);
    free(big);
}

static void sp_ready_rank0(void)
{
    int small[16], one = 62;
    unsigned char *big = mt_malloc(SP_BIG);
    for (int i = 0; i < 16; i++)
        small[i] = 100 + i;
    mt_fill(big, SP_BIG, 61);
    MPI_Recv(NULL, 0, MPI_INT, 1, 63, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(MPI_Rsend(small, 16, MPI_INT, 1, 60, MPI_COMM_WORLD) == MPI_SUCCESS, "Rsend");
    MPI_Request r, p;
    CHECK(MPI_Irsend(big, SP_BIG, MPI_BYTE, 1, 61, MPI_COMM_WORLD, &r) == MPI_SUCCESS, "Irsend");
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Rsend_init(&one, 1, MPI_INT, 1, 62, MPI_COMM_WORLD, &p);
    MPI_Start(&p);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    CHECK(p != MPI_REQUEST_NULL, "Wait freed a persistent request");
    MPI_Request_free(&p);
    free(big);
}

static void sp_check_type(MPI_Datatype t, MPI_Count size, MPI_Count lb, MPI_Count extent,
                          MPI_Count true_lb, MPI_Count true_extent, const char *what)
{
    MPI_Count s = -1, l = -1, e = -1, tl = -1, te = -1;
    CHECK(MPI_Type_size_x(t, &s) == MPI_SUCCESS, "%s: Type_size_x", what);
    CHECK(MPI_Type_get_extent_x(t, &l, &e) == MPI_SUCCESS, "%s: Type_get_extent_x", what);
    CHECK(MPI_Type_get_true_extent_x(t, &tl, &te) == MPI_SUCCESS, "%s: true_extent_x", what);
    CHECK(s == size, "%s: size %lld, want %lld", what, (long long)s, (long long)size);
    CHECK(l == lb && e == extent, "%s: lb %lld extent %lld, want %lld %lld", what, (long long)l,
          (long long)e, (long long)lb, (long long)extent);
    CHECK(tl == true_lb && te == true_extent, "%s: true lb %lld extent %lld, want %lld %lld",
          what, (long long)tl, (long long)te, (long long)true_lb, (long long)true_extent);
}

static void sp_types_x(void)
{
    sp_check_type(MPI_DOUBLE, 8, 0, 8, 0, 8, "MPI_DOUBLE");
    MPI_Datatype vec, resized, hidx, chunk, huge;
    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
    sp_check_type(vec, 24, 0, 48, 0, 48, "vector(3,2,5,int)");
    MPI_Type_create_resized(vec, -8, 64, &resized);
    sp_check_type(resized, 24, -8, 64, 0, 48, "resized vector");
    int lens[2] = {1, 1};
    MPI_Aint displs[2] = {-16, 8};
    MPI_Type_create_hindexed(2, lens, displs, MPI_INT, &hidx);
    sp_check_type(hidx, 8, -16, 28, -16, 28, "hindexed at -16 and 8");
    MPI_Type_contiguous(1 << 20, MPI_DOUBLE, &chunk);
    MPI_Type_contiguous(512, chunk, &huge);
    MPI_Count four_gib = (MPI_Count)1 << 32;
    sp_check_type(huge, four_gib, 0, four_gib, 0, four_gib, "4 GiB contiguous");
    int isize = 0;
    MPI_Type_size(huge, &isize);
    CHECK(isize == MPI_UNDEFINED, "Type_size of 4 GiB gave %d, want MPI_UNDEFINED", isize);
    MPI_Type_free(&huge);
    MPI_Type_free(&chunk);
    MPI_Type_free(&hidx);
    MPI_Type_free(&resized);
    MPI_Type_free(&vec);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    sp_get_status(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    sp_errhandlers();
    if (rank == 0)
        sp_ready_rank0();
    else if (rank == 1)
        sp_ready_rank1();
    sp_types_x();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("success_paths: Request_get_status, errhandlers, ready sends, _x extents: OK\n");
    MPI_Finalize();
    return 0;
}

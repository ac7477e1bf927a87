/* A message that ends inside a basic element of the receive type (3 bytes
 * into MPI_INT, MPICH's errors/pt2pt/truncmsg2): the receive fails with
 * class MPI_ERR_TYPE under MPI_ERRORS_RETURN, its status still names the
 * sender, the tag and the bytes that came, MPI_Get_count gives
 * MPI_UNDEFINED, and MPI_Error_string tells the bytes and the element
 * size.  Every receive form: Recv (message already here, and posted
 * first), Irecv+Wait, Irecv+Test, Waitall (MPI_ERR_IN_STATUS, the class in
 * the failed status only), Mprobe+Mrecv, Recv_init+Start, Sendrecv and
 * Sendrecv_replace through the paths where their send does not leave at
 * once, a rendezvous-sized message.  Whole elements still pass: 8 bytes
 * into MPI_INT, 12 bytes into a contiguous type of 2 ints (3 ints: count
 * MPI_UNDEFINED, elements 3), MPI_BYTE of any length.
 * Under MT_MPICH_QUIRKS (validate-mpich.sh) only the receives that MPICH
 * 4.0.2 fails too are expected to fail: it checks non-contiguous types
 * alone, with MPI_ERR_TRUNCATE and a count of 0. */
#include "mpitest.h"

#define PE_BIG 100002 /* bytes: a rendezvous message, not a multiple of 4 */

static unsigned char pe_src[PE_BIG], pe_dst[PE_BIG + 64];

/* The receive that returned rc with status st took n bytes of a message
 * ending inside an element of elem bytes; how names it. */
static void pe_expect_partial(int rc, const MPI_Status *st, int n, int elem, int tag,
                              const char *how)
{
    if (mt_mpich_quirks())
        return;
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "%s: class %d (%s), want MPI_ERR_TYPE", how, mt_class(rc),
          mt_errstr(rc));
    char want_bytes[64], want_elem[64];
    snprintf(want_bytes, sizeof want_bytes, "%d bytes", n);
    snprintf(want_elem, sizeof want_elem, "%d bytes each", elem);
    const char *text = mt_errstr(rc);
    CHECK(strstr(text, want_bytes) && strstr(text, want_elem), "%s: error string \"%s\"", how,
          text);
    if (st == MPI_STATUS_IGNORE)
        return;
    CHECK(st->MPI_SOURCE == 1 && st->MPI_TAG == tag, "%s: status source %d tag %d", how,
          st->MPI_SOURCE, st->MPI_TAG);
    CHECK(mt_status_count(st, MPI_BYTE) == n, "%s: status counts %d bytes, want %d", how,
          mt_status_count(st, MPI_BYTE), n);
    CHECK(mt_status_count(st, MPI_INT) == MPI_UNDEFINED, "%s: MPI_Get_count(MPI_INT) %d", how,
          mt_status_count(st, MPI_INT));
    /* MPI-4.0 5.1.11: with basic types MPI_Get_elements gives what
     * MPI_Get_count does, in every form. */
    int elements = 0;
    MPI_Count elements_x = 0, elements_c = 0;
    MPI_Get_elements(st, MPI_INT, &elements);
    MPI_Get_elements_x(st, MPI_INT, &elements_x);
    MPI_Get_elements_c(st, MPI_INT, &elements_c);
    CHECK(elements == MPI_UNDEFINED && elements_x == MPI_UNDEFINED &&
              elements_c == MPI_UNDEFINED,
          "%s: MPI_Get_elements(MPI_INT) %d, _x %lld, _c %lld", how, elements,
          (long long)elements_x, (long long)elements_c);
}

static void pe_expect_ok(int rc, const MPI_Status *st, int n, const char *how)
{
    CHECK(rc == MPI_SUCCESS, "%s: %s", how, mt_errstr(rc));
    CHECK(mt_status_count(st, MPI_BYTE) == n, "%s: status counts %d bytes, want %d", how,
          mt_status_count(st, MPI_BYTE), n);
}

/* MPICH's truncmsg2: a struct of 3 chars into an indexed type of ints. */
static void pe_truncmsg2(int rank)
{
    int sbl[] = {1, 1, 1}, ibl[] = {1, 2, 1}, idx[] = {4, 8, 16};
    MPI_Aint disp[] = {0, 2, 4};
    MPI_Datatype chars[] = {MPI_CHAR, MPI_CHAR, MPI_CHAR}, stype, itype;
    MPI_Type_create_struct(3, sbl, disp, chars, &stype);
    MPI_Type_commit(&stype);
    MPI_Type_indexed(3, ibl, idx, MPI_INT, &itype);
    MPI_Type_commit(&itype);
    if (rank == 1) {
        MPI_Send(pe_src, 1, stype, 0, 1, MPI_COMM_WORLD);
    } else {
        MPI_Status st;
        int rc = MPI_Recv(pe_dst, 1, itype, 1, 1, MPI_COMM_WORLD, &st);
        CHECK(rc != MPI_SUCCESS, "truncmsg2: the receive succeeded");
        pe_expect_partial(rc, &st, 3, 4, 1, "truncmsg2");
    }
    MPI_Type_free(&stype);
    MPI_Type_free(&itype);
}

/* How pe_recv's receive meets its message. */
enum { PE_PLAIN, PE_HERE_FIRST, PE_POSTED_FIRST };

/* n bytes into MPI_INTs (room for n + 16 bytes): PE_PLAIN a blocking
 * MPI_Recv as it comes; PE_HERE_FIRST an MPI_Recv of a message that
 * arrived before it (eager sizes only: the request-less path);
 * PE_POSTED_FIRST MPI_Irecv + MPI_Wait, posted before the message left. */
static void pe_recv(int rank, int n, int order, int tag)
{
    static const char *const names[] = {"Recv", "Recv, message here first",
                                        "Irecv+Wait, posted first"};
    char how[96];
    snprintf(how, sizeof how, "%s of %d bytes", names[order], n);
    if (rank == 1) {
        if (order == PE_POSTED_FIRST)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(pe_src, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
        if (order == PE_HERE_FIRST)
            MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    MPI_Status st;
    MPI_Request req;
    int rc, room = n / 4 + 4;
    if (order == PE_POSTED_FIRST) {
        MPI_Irecv(pe_dst, room, MPI_INT, 1, tag, MPI_COMM_WORLD, &req);
        MPI_Barrier(MPI_COMM_WORLD);
        rc = MPI_Wait(&req, &st);
    } else {
        if (order == PE_HERE_FIRST)
            MPI_Barrier(MPI_COMM_WORLD);
        rc = MPI_Recv(pe_dst, room, MPI_INT, 1, tag, MPI_COMM_WORLD, &st);
    }
    if (n % 4 == 0) {
        pe_expect_ok(rc, &st, n, how);
        CHECK(mt_status_count(&st, MPI_INT) == n / 4, "%s: count %d", how,
              mt_status_count(&st, MPI_INT));
    } else {
        pe_expect_partial(rc, &st, n, 4, tag, how);
    }
}

/* 6 bytes into MPI_INT through MPI_Irecv + MPI_Test until done. */
static void pe_test(int rank)
{
    if (rank == 1) {
        MPI_Send(pe_src, 6, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        return;
    }
    MPI_Request req;
    MPI_Status st;
    int flag = 0, rc = MPI_SUCCESS;
    MPI_Irecv(pe_dst, 4, MPI_INT, 1, 3, MPI_COMM_WORLD, &req);
    while (!flag && rc == MPI_SUCCESS)
        rc = MPI_Test(&req, &flag, &st);
    pe_expect_partial(rc, &st, 6, 4, 3, "Irecv+Test");
}

/* Rank 1's side of a case of two messages: n1 bytes with tag1, then n2
 * bytes with tag2. */
static void pe_send_two(int n1, int tag1, int n2, int tag2)
{
    MPI_Send(pe_src, n1, MPI_BYTE, 0, tag1, MPI_COMM_WORLD);
    MPI_Send(pe_src, n2, MPI_BYTE, 0, tag2, MPI_COMM_WORLD);
}

/* Two receives in one MPI_Waitall: 6 bytes into MPI_INT fails, 8 pass. */
static void pe_waitall(int rank)
{
    if (rank == 1) {
        pe_send_two(6, 4, 8, 5);
        return;
    }
    MPI_Request req[2];
    MPI_Status st[2];
    MPI_Irecv(pe_dst, 4, MPI_INT, 1, 4, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(pe_dst + 32, 4, MPI_INT, 1, 5, MPI_COMM_WORLD, &req[1]);
    int rc = MPI_Waitall(2, req, st);
    if (mt_mpich_quirks()) {
        CHECK(rc == MPI_SUCCESS, "Waitall: %s", mt_errstr(rc));
        return;
    }
    CHECK(mt_class(rc) == MPI_ERR_IN_STATUS, "Waitall: class %d (%s)", mt_class(rc),
          mt_errstr(rc));
    pe_expect_partial(st[0].MPI_ERROR, &st[0], 6, 4, 4, "Waitall's failed receive");
    CHECK(st[1].MPI_ERROR == MPI_SUCCESS, "Waitall: the whole receive has error %s",
          mt_errstr(st[1].MPI_ERROR));
    CHECK(mt_status_count(&st[1], MPI_INT) == 2, "Waitall: the whole receive counts %d",
          mt_status_count(&st[1], MPI_INT));
}

/* 10 bytes into MPI_INT through MPI_Mprobe + MPI_Mrecv and MPI_Improbe +
 * MPI_Imrecv + MPI_Wait. */
static void pe_matched(int rank)
{
    if (rank == 1) {
        pe_send_two(10, 6, 10, 7);
        return;
    }
    MPI_Message msg;
    MPI_Status st;
    MPI_Mprobe(1, 6, MPI_COMM_WORLD, &msg, &st);
    int rc = MPI_Mrecv(pe_dst, 4, MPI_INT, &msg, &st);
    pe_expect_partial(rc, &st, 10, 4, 6, "Mprobe+Mrecv");
    int flag = 0;
    while (!flag)
        MPI_Improbe(1, 7, MPI_COMM_WORLD, &flag, &msg, &st);
    MPI_Request req;
    MPI_Imrecv(pe_dst, 4, MPI_INT, &msg, &req);
    rc = MPI_Wait(&req, &st);
    pe_expect_partial(rc, &st, 10, 4, 7, "Improbe+Imrecv+Wait");
}

/* A persistent receive of MPI_SHORT started twice: 3 bytes fail, 4 pass. */
static void pe_persistent(int rank)
{
    if (rank == 1) {
        pe_send_two(3, 8, 4, 8);
        return;
    }
    MPI_Request req;
    MPI_Status st;
    MPI_Recv_init(pe_dst, 8, MPI_SHORT, 1, 8, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    int rc = MPI_Wait(&req, &st);
    pe_expect_partial(rc, &st, 3, 2, 8, "Recv_init+Start");
    MPI_Start(&req);
    rc = MPI_Wait(&req, &st);
    pe_expect_ok(rc, &st, 4, "Recv_init+Start, whole shorts");
    MPI_Request_free(&req);
}

/* MPI_Sendrecv whose send is a rendezvous (not over at once), and
 * MPI_Sendrecv_replace whose send is non-contiguous (staged). */
static void pe_sendrecv(int rank)
{
    MPI_Status st;
    int rc;
    if (rank == 1) {
        MPI_Sendrecv(pe_src, 6, MPI_BYTE, 0, 9, pe_dst, PE_BIG, MPI_BYTE, 0, 9, MPI_COMM_WORLD,
                     &st);
        MPI_Sendrecv(pe_src, 5, MPI_BYTE, 0, 10, pe_dst, 64, MPI_BYTE, 0, 10, MPI_COMM_WORLD,
                     &st);
        return;
    }
    rc = MPI_Sendrecv(pe_src, PE_BIG, MPI_BYTE, 1, 9, pe_dst, 4, MPI_INT, 1, 9, MPI_COMM_WORLD,
                      &st);
    pe_expect_partial(rc, &st, 6, 4, 9, "Sendrecv");
    MPI_Datatype gaps;
    MPI_Type_vector(2, 1, 2, MPI_INT, &gaps);
    MPI_Type_commit(&gaps);
    rc = MPI_Sendrecv_replace(pe_dst, 2, gaps, 1, 10, 1, 10, MPI_COMM_WORLD, &st);
    CHECK(rc != MPI_SUCCESS, "Sendrecv_replace of 5 bytes into ints succeeded");
    pe_expect_partial(rc, &st, 5, 4, 10, "Sendrecv_replace");
    MPI_Type_free(&gaps);
}

/* Whole elements pass: 12 bytes into a contiguous type of 2 ints is 3
 * ints (count MPI_UNDEFINED, elements 3); MPI_BYTE of any length. */
static void pe_whole(int rank)
{
    if (rank == 1) {
        MPI_Send(pe_src, 12, MPI_BYTE, 0, 11, MPI_COMM_WORLD);
        for (int n = 0; n < 10; n++)
            MPI_Send(pe_src, n, MPI_BYTE, 0, 12, MPI_COMM_WORLD);
        return;
    }
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    MPI_Status st;
    int rc = MPI_Recv(pe_dst, 4, two, 1, 11, MPI_COMM_WORLD, &st);
    pe_expect_ok(rc, &st, 12, "12 bytes into pairs of ints");
    int elements = -1;
    MPI_Get_elements(&st, two, &elements);
    CHECK(elements == 3 && mt_status_count(&st, two) == MPI_UNDEFINED,
          "12 bytes into pairs of ints: elements %d count %d", elements,
          mt_status_count(&st, two));
    MPI_Type_free(&two);
    for (int n = 0; n < 10; n++) {
        rc = MPI_Recv(pe_dst, 16, MPI_BYTE, 1, 12, MPI_COMM_WORLD, &st);
        pe_expect_ok(rc, &st, n, "MPI_BYTE");
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mt_fill(pe_src, sizeof pe_src, 7);
    pe_truncmsg2(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!mt_mpich_quirks()) { /* MPICH checks no contiguous receive */
        pe_recv(rank, 6, PE_PLAIN, 2);
        pe_recv(rank, 6, PE_HERE_FIRST, 2);
        pe_recv(rank, 6, PE_POSTED_FIRST, 2);
        pe_recv(rank, PE_BIG, PE_PLAIN, 2);
        pe_recv(rank, PE_BIG, PE_POSTED_FIRST, 2);
        pe_test(rank);
        pe_matched(rank);
        pe_persistent(rank);
        pe_sendrecv(rank);
    }
    pe_recv(rank, 8, PE_PLAIN, 2);
    pe_recv(rank, 8, PE_HERE_FIRST, 2);
    pe_recv(rank, 8, PE_POSTED_FIRST, 2);
    pe_recv(rank, PE_BIG - 2, PE_POSTED_FIRST, 2);
    pe_waitall(rank);
    pe_whole(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("partial_element: MPI_ERR_TYPE for a message ending inside an element: OK\n");
    MPI_Finalize();
    return 0;
}

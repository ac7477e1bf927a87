/* Argument checking under MPI_ERRORS_RETURN: every bad input returns its
 * error class and sends nothing - invalid communicator (MPI_COMM_NULL and a
 * garbage handle), MPI_DATATYPE_NULL, rank (size, -5), tag (-3 on a send,
 * TAG_UB + 1), count -1, root out of range, a garbage request to MPI_Wait,
 * a NULL buffer with count > 0.  MPI_Error_string gives a non-empty string
 * for every class 0..78.  A valid exchange afterwards still works. */
#include "mpitest.h"
#include <limits.h>

#define BI_GARBAGE 0x12345678

static void bi_expect(int rc, int cls, const char *what)
{
    CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS, want class %d", what, cls);
    CHECK(mt_class(rc) == cls, "%s: class %d (%s), want %d", what, mt_class(rc), mt_errstr(rc),
          cls);
}

static void bi_pt2pt(int rank, int size)
{
    int buf[4] = {0}, tag_ub_ok = 0, *tag_ub = NULL;
    MPI_Request req;
    MPI_Status st;
    MPI_Comm garbage_comm = (MPI_Comm)BI_GARBAGE;
    bi_expect(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "Send on COMM_NULL");
    bi_expect(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM,
              "Recv on COMM_NULL");
    bi_expect(MPI_Send(buf, 1, MPI_INT, 0, 0, garbage_comm), MPI_ERR_COMM, "Send on garbage comm");
    bi_expect(MPI_Comm_rank(garbage_comm, buf), MPI_ERR_COMM, "Comm_rank on garbage comm");
    bi_expect(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
              "Send with DATATYPE_NULL");
    bi_expect(MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE,
              "Irecv with DATATYPE_NULL");
    bi_expect(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "Send to rank size");
    bi_expect(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "Send to rank -5");
    bi_expect(MPI_Recv(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK,
              "Recv from rank size");
    bi_expect(MPI_Send(buf, 1, MPI_INT, rank, -3, MPI_COMM_WORLD), MPI_ERR_TAG, "Send with tag -3");
    bi_expect(MPI_Isend(buf, 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD, &req), MPI_ERR_TAG,
              "Isend with MPI_ANY_TAG");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &tag_ub_ok);
    CHECK(tag_ub_ok && tag_ub, "no MPI_TAG_UB attribute");
    if (*tag_ub < INT_MAX)
        bi_expect(MPI_Send(buf, 1, MPI_INT, rank, *tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG,
                  "Send with tag TAG_UB + 1");
    bi_expect(MPI_Send(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "Send count -1");
    bi_expect(MPI_Recv(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT,
              "Recv count -1");
    bi_expect(MPI_Send(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
              "Send NULL buffer count 4");
    /* The request pointer is the last bit of the sends' and receives'
     * one-branch argument check: NULL must still name MPI_ERR_ARG. */
    bi_expect(MPI_Isend(buf, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
              "Isend with a NULL request");
    bi_expect(MPI_Irecv(buf, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
              "Irecv with a NULL request");
    /* MPI_PROC_NULL is the one negative rank a send takes. */
    CHECK(MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS,
          "Send to MPI_PROC_NULL failed");
    bi_expect(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK,
              "Send to MPI_ANY_SOURCE");
    req = (MPI_Request)BI_GARBAGE;
    bi_expect(MPI_Wait(&req, &st), MPI_ERR_REQUEST, "Wait on a garbage request");
}

static void bi_coll(int size)
{
    int x = 1, y = 0;
    bi_expect(MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT, "Bcast root size");
    bi_expect(MPI_Bcast(&x, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT, "Bcast root -1");
    bi_expect(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, size + 3, MPI_COMM_WORLD), MPI_ERR_ROOT,
              "Reduce root size+3");
    bi_expect(MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, "Bcast on COMM_NULL");
    bi_expect(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "Barrier on COMM_NULL");
}

static void bi_error_strings(void)
{
    for (int cls = 0; cls <= 78; cls++) {
        char s[MPI_MAX_ERROR_STRING];
        int len = -1;
        s[0] = '\0';
        int rc = MPI_Error_string(cls, s, &len);
        CHECK(rc == MPI_SUCCESS, "Error_string(%d) failed", cls);
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && s[0] != '\0' && (int)strlen(s) == len,
              "Error_string(%d): len %d \"%s\"", cls, len, s);
        /* 54 is a gap in MPICH's numbering, not a class. */
        int c2 = -1;
        MPI_Error_class(cls, &c2);
        CHECK(c2 == cls || cls == 54, "Error_class(%d) = %d", cls, c2);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Errors on an invalid communicator go to COMM_WORLD's or COMM_SELF's
     * handler depending on the MPI version: set both. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    bi_pt2pt(rank, size);
    bi_coll(size);
    bi_error_strings();
    /* Nothing was sent by the failed calls: a probe finds nothing. */
    int flag = 1, a = rank, b = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "a failed call left a message behind");
    MPI_Barrier(MPI_COMM_WORLD); /* nobody sends before everyone has probed */
    int rc = MPI_Sendrecv(&a, 1, MPI_INT, (rank + 1) % size, 1, &b, 1, MPI_INT,
                          (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && b == (rank + size - 1) % size, "exchange after errors: rc %d b %d", rc,
          b);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("bad_input: every bad argument returned its class; 79 error strings: OK\n");
    MPI_Finalize();
    return 0;
}

/* MPI_Comm_free with operations still pending is safe: the communicator
 * goes away when they complete, and the freed handle is MPI_ERR_COMM at
 * once.  Ranks pair up (even A, odd B = A + 1) on a duplicate of
 * MPI_COMM_WORLD:
 *   A posts an eager and a rendezvous Irecv, an eager and a rendezvous
 *     Isend and an Ibarrier, frees the communicator, then tells B;
 *   B starts its side only after that (so A's receives were unmatched at
 *     the free), having first sent on a new duplicate that reuses the
 *     same tags (a recycled context id would hand that message to A's
 *     pending receive);
 *   both complete everything with MPI_Waitall and check every byte. */
#include "mpitest.h"

#define CFP_BIG (1 << 20) /* rendezvous on every transport */
#define CFP_SMALL 8

static int rank, size, partner;

struct cfp_bufs {
    unsigned char small_in[CFP_SMALL], small_out[CFP_SMALL];
    unsigned char big_in[CFP_BIG], big_out[CFP_BIG];
};

static void cfp_post(MPI_Comm comm, struct cfp_bufs *b, MPI_Request rq[5])
{
    mt_fill(b->small_out, CFP_SMALL, (unsigned)(100 + rank));
    mt_fill(b->big_out, CFP_BIG, (unsigned)(200 + rank));
    memset(b->small_in, 0, CFP_SMALL);
    memset(b->big_in, 0, CFP_BIG);
    MPI_Irecv(b->small_in, CFP_SMALL, MPI_BYTE, partner, 1, comm, &rq[0]);
    MPI_Irecv(b->big_in, CFP_BIG, MPI_BYTE, partner, 2, comm, &rq[1]);
    MPI_Isend(b->small_out, CFP_SMALL, MPI_BYTE, partner, 1, comm, &rq[2]);
    MPI_Isend(b->big_out, CFP_BIG, MPI_BYTE, partner, 2, comm, &rq[3]);
    MPI_Ibarrier(comm, &rq[4]);
}

static void cfp_check(struct cfp_bufs *b, MPI_Request rq[5])
{
    MPI_Status st[5];
    int rc = MPI_Waitall(5, rq, st);
    CHECK(rc == MPI_SUCCESS, "Waitall after Comm_free: %s", mt_errstr(rc));
    CHECK(mt_verify(b->small_in, CFP_SMALL, (unsigned)(100 + partner)) == MT_OK,
          "eager message on the freed communicator wrong");
    CHECK(mt_verify(b->big_in, CFP_BIG, (unsigned)(200 + partner)) == MT_OK,
          "rendezvous message on the freed communicator wrong");
    CHECK(st[0].MPI_SOURCE == partner && st[0].MPI_TAG == 1 &&
              mt_status_count(&st[0], MPI_BYTE) == CFP_SMALL,
          "eager status %d/%d/%d", st[0].MPI_SOURCE, st[0].MPI_TAG,
          mt_status_count(&st[0], MPI_BYTE));
    CHECK(st[1].MPI_SOURCE == partner && mt_status_count(&st[1], MPI_BYTE) == CFP_BIG,
          "rendezvous status %d/%d", st[1].MPI_SOURCE, mt_status_count(&st[1], MPI_BYTE));
}

/* Every use of a freed handle is MPI_ERR_COMM (under MPI_ERRORS_RETURN,
 * the handler of MPI_COMM_WORLD).  MPICH 4.0.2 answers MPI_SUCCESS for a
 * freed handle whose requests are still pending, so under MT_MPICH_QUIRKS
 * this check is hcmpi's alone. */
static void cfp_stale(MPI_Comm stale, const char *when)
{
    if (mt_mpich_quirks())
        return;
    int n = -1, x = 0;
    int rc = MPI_Comm_size(stale, &n);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "%s: Comm_size on a freed handle: class %d", when,
          mt_class(rc));
    rc = MPI_Send(&x, 1, MPI_INT, partner, 1, stale);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "%s: Send on a freed handle: class %d", when,
          mt_class(rc));
    MPI_Comm again = stale;
    rc = MPI_Comm_free(&again);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "%s: second Comm_free: class %d", when, mt_class(rc));
}

int main(int argc, char **argv)
{
    static struct cfp_bufs b;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size % 2 == 0, "needs an even number of ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    partner = rank ^ 1;
    int is_a = rank % 2 == 0, token = 7, fresh_val = -1;
    MPI_Comm comm, fresh, stale;
    MPI_Request rq[5];
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    stale = comm;
    if (is_a) {
        cfp_post(comm, &b, rq);
        CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS && comm == MPI_COMM_NULL,
              "Comm_free with five requests pending");
        cfp_stale(stale, "with requests pending");
        MPI_Send(&token, 1, MPI_INT, partner, 9, MPI_COMM_WORLD);
        MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
        MPI_Recv(&fresh_val, 1, MPI_INT, partner, 1, fresh, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&token, 1, MPI_INT, partner, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
        fresh_val = 999;
        MPI_Send(&fresh_val, 1, MPI_INT, partner, 1, fresh);
        cfp_post(comm, &b, rq);
        CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS, "Comm_free with requests pending");
        cfp_stale(stale, "with requests pending");
    }
    CHECK(fresh_val == 999, "the new communicator's message went astray: %d", fresh_val);
    cfp_check(&b, rq);
    if (stale != fresh) /* a handle number may be reused by the new dup */
        cfp_stale(stale, "after the requests completed");
    MPI_Comm_free(&fresh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_free_pending: %d ranks: PASS\n", size);
    MPI_Finalize();
    return 0;
}

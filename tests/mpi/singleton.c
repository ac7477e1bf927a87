/* Singleton start: run with no launcher and no PMI variable (singleton.sh),
 * MPI_Init makes this process rank 0 of a world of 1.  Asserts the size and
 * rank of MPI_COMM_WORLD and MPI_COMM_SELF, self messages below and above
 * the rendezvous threshold (bytes, source, tag, count), that rank 1 does
 * not exist (MPI_ERR_RANK), collectives on one rank (result = own input),
 * Comm_split/Comm_dup of the world, MPI_UNIVERSE_SIZE 1, and that
 * MPI_Finalize returns normally. */
#include "mpitest.h"

#define SG_BIG (4u << 20)

static void sg_self_message(size_t n, int tag)
{
    unsigned char *sbuf = mt_malloc(n), *rbuf = mt_malloc(n);
    MPI_Request req;
    MPI_Status st;
    mt_fill(sbuf, n, (unsigned)tag);
    memset(rbuf, 0, n);
    MPI_Isend(sbuf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &req);
    MPI_Recv(rbuf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    size_t bad = mt_verify(rbuf, n, (unsigned)tag);
    CHECK(bad == MT_OK, "self message of %zu bytes: byte %zu wrong", n, bad);
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == tag, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK(mt_status_count(&st, MPI_BYTE) == (int)n, "count %d, want %zu",
          mt_status_count(&st, MPI_BYTE), n);
    free(sbuf);
    free(rbuf);
}

static void sg_no_rank_one(void)
{
    int x = 1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_RANK, "Send to rank 1 of 1: class %d", mt_class(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void sg_collectives(void)
{
    int in[3] = {5, -7, 11}, out[3] = {0, 0, 0};
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(in, out, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(out[0] == 5 && out[1] == -7 && out[2] == 11, "Allreduce %d %d %d", out[0], out[1],
          out[2]);
    memset(out, 0, sizeof out);
    MPI_Reduce(in, out, 3, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    CHECK(out[0] == 5 && out[1] == -7 && out[2] == 11, "Reduce %d %d %d", out[0], out[1], out[2]);
    double d = 2.5;
    MPI_Bcast(&d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    CHECK(d == 2.5, "Bcast changed the root's value to %g", d);
    memset(out, 0, sizeof out);
    MPI_Allgather(in, 3, MPI_INT, out, 3, MPI_INT, MPI_COMM_WORLD);
    CHECK(out[0] == 5 && out[1] == -7 && out[2] == 11, "Allgather %d %d %d", out[0], out[1],
          out[2]);
    memset(out, 0, sizeof out);
    MPI_Gather(in, 3, MPI_INT, out, 3, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(out[0] == 5 && out[1] == -7 && out[2] == 11, "Gather %d %d %d", out[0], out[1], out[2]);
}

static void sg_comms(void)
{
    int size = -1, rank = -1, cmp = -1;
    MPI_Comm_size(MPI_COMM_SELF, &size);
    MPI_Comm_rank(MPI_COMM_SELF, &rank);
    CHECK(size == 1 && rank == 0, "MPI_COMM_SELF: rank %d of %d", rank, size);
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "WORLD vs SELF: %d, want MPI_CONGRUENT", cmp);
    MPI_Comm split, dup;
    MPI_Comm_split(MPI_COMM_WORLD, 3, 0, &split);
    MPI_Comm_size(split, &size);
    MPI_Comm_rank(split, &rank);
    CHECK(size == 1 && rank == 0, "split: rank %d of %d", rank, size);
    MPI_Comm_dup(split, &dup);
    int v = 42, got = 0;
    MPI_Sendrecv(&v, 1, MPI_INT, 0, 8, &got, 1, MPI_INT, 0, 8, dup, MPI_STATUS_IGNORE);
    CHECK(got == 42, "Sendrecv on a dup of the split: %d", got);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
}

static void sg_universe(void)
{
    int *v = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
    CHECK(flag && *v == 1, "MPI_UNIVERSE_SIZE: flag %d value %d", flag, flag ? *v : -1);
}

int main(int argc, char **argv)
{
    int flag = 1, rank = -1, size = -1;
    CHECK(getenv("PMI_FD") == NULL && getenv("PMI_PORT") == NULL && getenv("PMI_RANK") == NULL,
          "a PMI variable is set: this test is for a start without a launcher");
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized true before MPI_Init");
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(size == 1 && rank == 0, "singleton is rank %d of %d", rank, size);
    sg_self_message(0, 1);
    sg_self_message(100, 2);
    sg_self_message(SG_BIG, 3);
    sg_no_rank_one();
    sg_collectives();
    sg_comms();
    sg_universe();
    CHECK(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize");
    MPI_Finalized(&flag);
    if (!flag) {
        fprintf(stderr, "FAIL: MPI_Finalized false after MPI_Finalize\n");
        return 1;
    }
    printf("singleton: rank 0 of 1, self messages, collectives, split/dup: OK\n");
    return 0;
}

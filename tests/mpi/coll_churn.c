/* Communicators that come and go make no shared-memory segment each.  On
 * a fresh process the first duplicate of MPI_COMM_WORLD makes one at its
 * first collective (the usual rule: mapped while it lives).  After two
 * such communicators freed after a collective each, the next ones run
 * their collectives by the schedules and map nothing, with every sum
 * right.  A communicator that then lives on makes its segment after
 * HCMPI_COLL_SHM_AFTER (8, the default) collectives, which ends the churn:
 * the next duplicate makes its segment at its first collective again.
 * Every Allreduce is checked, and MPI_IN_PLACE Bcasts on the long-lived
 * one carry a round's number from a rotating root. */
#include "mpitest.h"

static int rank, size;

/* One 8-byte Allreduce on comm, checked: the ranks' sum plus 3 x round. */
static void sum_on(MPI_Comm comm, int round, const char *what)
{
    long in = rank + round, out = -1;
    CHECK(MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, comm) == MPI_SUCCESS, "%s: allreduce",
          what);
    long want = (long)size * (size - 1) / 2 + (long)size * round;
    CHECK(out == want, "%s: round %d sum %ld, want %ld", what, round, out, want);
}

/* A duplicate of MPI_COMM_WORLD for one collective: how many more
 * segments it mapped while it lived. */
static int short_lived(int round)
{
    int before = mt_segments_mapped();
    MPI_Comm c;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS, "dup, round %d", round);
    sum_on(c, round, "short-lived");
    int more = mt_segments_mapped() - before;
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS, "free, round %d", round);
    return more;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* The first two make their segments as any communicator does. */
    CHECK(short_lived(0) == 1, "the first duplicate mapped no segment");
    CHECK(short_lived(1) == 1, "the second duplicate mapped no segment");
    /* Then none: two in a row served one collective each. */
    for (int round = 2; round < 12; round++) {
        int more = short_lived(round);
        CHECK(more == 0, "round %d: a short-lived communicator mapped %d segments", round,
              more);
    }
    /* A communicator that lives on: its first 8 collectives by the
     * schedules, its segment at the 9th. */
    int before = mt_segments_mapped();
    MPI_Comm lasting;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &lasting) == MPI_SUCCESS, "dup (lasting)");
    for (int round = 0; round < 20; round++) {
        if (round % 2) {
            int value = rank == round % size ? 1000 + round : -1;
            CHECK(MPI_Bcast(&value, 1, MPI_INT, round % size, lasting) == MPI_SUCCESS,
                  "bcast, round %d", round);
            CHECK(value == 1000 + round, "bcast, round %d: got %d from root %d", round, value,
                  round % size);
        } else {
            sum_on(lasting, round, "lasting");
        }
        int more = mt_segments_mapped() - before;
        CHECK(more == (round >= 8), "lasting, after collective %d: %d more segments mapped",
              round + 1, more);
    }
    CHECK(MPI_Comm_free(&lasting) == MPI_SUCCESS, "free (lasting)");
    /* It served more than 8: the next duplicate makes its segment at once. */
    CHECK(short_lived(30) == 1, "after a lasting communicator, a duplicate mapped no segment");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_churn: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}

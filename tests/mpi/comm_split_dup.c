/* Communicator creation: Comm_split by color (rank % 3) with reversed keys
 * gives the expected sizes and ranks, and a ring inside each new
 * communicator carries the expected world ranks; MPI_UNDEFINED gives
 * MPI_COMM_NULL; Comm_dup isolates traffic (the same tag on the dup and the
 * parent does not cross); Comm_compare answers IDENT, CONGRUENT, SIMILAR and
 * UNEQUAL; Comm_free nulls the handle; MPI_TAG_UB is at least 32767. */
#include "mpitest.h"

static void cs_split(int rank, int size)
{
    MPI_Comm sub;
    int color = rank % 3, srank, ssize, members[256], m = 0;
    MPI_Comm_split(MPI_COMM_WORLD, color, size - rank, &sub);
    for (int r = color; r < size; r += 3)
        members[m++] = r;
    MPI_Comm_size(sub, &ssize);
    MPI_Comm_rank(sub, &srank);
    /* Keys reverse the world order: sub rank s is members[m - 1 - s]. */
    CHECK(ssize == m, "split color %d: size %d, want %d", color, ssize, m);
    CHECK(members[m - 1 - srank] == rank, "split color %d: world rank %d got sub rank %d", color,
          rank, srank);
    int right = (srank + 1) % ssize, left = (srank + ssize - 1) % ssize, got = -1;
    MPI_Status st;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, sub, &st);
    CHECK(got == members[m - 1 - left], "ring in color %d: sub rank %d got world rank %d, want %d",
          color, srank, got, members[m - 1 - left]);
    CHECK(st.MPI_SOURCE == left, "ring status source %d, want %d", st.MPI_SOURCE, left);
    int result;
    MPI_Comm_compare(MPI_COMM_WORLD, sub, &result);
    CHECK(result == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(world, color split) = %d",
          result);
    MPI_Comm_free(&sub);
    CHECK(sub == MPI_COMM_NULL, "Comm_free did not null the handle");
}

static void cs_undefined(int rank)
{
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &sub);
    if (rank == 0) {
        CHECK(sub == MPI_COMM_NULL, "MPI_UNDEFINED color gave a communicator");
        return;
    }
    int srank;
    MPI_Comm_rank(sub, &srank);
    CHECK(srank == rank - 1, "split without rank 0: rank %d, want %d", srank, rank - 1);
    MPI_Comm_free(&sub);
}

static void cs_compare(int rank, int size)
{
    MPI_Comm dup, same, rev;
    int result;
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result);
    CHECK(result == MPI_IDENT, "compare(world, world) = %d", result);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
    CHECK(result == MPI_CONGRUENT, "compare(world, dup) = %d", result);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &same);
    MPI_Comm_compare(MPI_COMM_WORLD, same, &result);
    CHECK(result == MPI_CONGRUENT, "compare(world, split same order) = %d", result);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev);
    MPI_Comm_compare(MPI_COMM_WORLD, rev, &result);
    CHECK(result == (size > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "compare(world, reversed) = %d",
          result);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&same);
    MPI_Comm_free(&dup);
}

/* Rank 0 sends tag 5 on the dup first, then tag 5 on world; rank 1 receives
 * on world first: it must get the world message, not the earlier dup one. */
static void cs_isolation(int rank)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        int a = 111, b = 222;
        MPI_Request req[2];
        MPI_Isend(&a, 1, MPI_INT, 1, 5, dup, &req[0]);
        MPI_Isend(&b, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        int x = 0, flag = 0;
        MPI_Status st;
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(x == 222, "world receive got %d (the dup message crossed)", x);
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "world probe sees the dup's message");
        MPI_Recv(&x, 1, MPI_INT, 0, 5, dup, &st);
        CHECK(x == 111, "dup receive got %d", x);
    }
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    int rank, size, flag = 0;
    int *tag_ub = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 256, "at most 256 ranks");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    CHECK(flag && tag_ub && *tag_ub >= 32767, "MPI_TAG_UB flag %d value %d", flag,
          tag_ub ? *tag_ub : -1);
    for (int round = 0; round < 3; round++) {
        cs_split(rank, size);
        if (size > 1)
            cs_undefined(rank);
        cs_compare(rank, size);
        if (size > 1)
            cs_isolation(rank);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_split_dup: split/undefined/dup/compare/free on %d ranks: OK\n", size);
    MPI_Finalize();
    return 0;
}

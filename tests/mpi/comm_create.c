/* Communicator construction from groups: Comm_create with the even ranks
 * (odd ranks get MPI_COMM_NULL), with two disjoint groups at once and with
 * the empty group (MPI_COMM_NULL everywhere);
 * Comm_create_group called only by the odd (then the even) ranks, the
 * others not calling at all; Comm_split_type(MPI_COMM_TYPE_SHARED) puts
 * every rank of this one-node job together, ordered by key, and
 * MPI_UNDEFINED gives MPI_COMM_NULL; Comm_idup completes; names default to
 * "MPI_COMM_WORLD"/"MPI_COMM_SELF"/"" and set_name sticks; Comm_test_inter
 * is 0 on an intracommunicator.  A ring on every new communicator checks
 * that its ranks reach the right processes. */
#include "mpitest.h"

/* Ring over comm: each rank gets its left neighbour's world rank. */
static void ring(MPI_Comm comm, const int *world_of, const char *what)
{
    int r, n, me = mt_world_rank(), got = -1;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    CHECK(world_of[r] == me, "%s: rank %d is world %d, want %d", what, r, me, world_of[r]);
    int left = (r + n - 1) % n;
    MPI_Sendrecv(&me, 1, MPI_INT, (r + 1) % n, 11, &got, 1, MPI_INT, left, 11, comm,
                 MPI_STATUS_IGNORE);
    CHECK(got == world_of[left], "%s: ring got %d, want %d", what, got, world_of[left]);
}

static void cc_create(int rank, int size)
{
    MPI_Group world, evens;
    int ranks[8], n = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int r = 0; r < size; r += 2)
        ranks[n++] = r;
    MPI_Group_incl(world, n, ranks, &evens);
    MPI_Comm c;
    MPI_Comm_create(MPI_COMM_WORLD, evens, &c);
    if (rank % 2) {
        CHECK(c == MPI_COMM_NULL, "odd rank got a communicator from Comm_create");
    } else {
        ring(c, ranks, "Comm_create(evens)");
        MPI_Comm_free(&c);
    }
    /* Disjoint groups in one call (MPI-2.2): lower half reversed, upper half. */
    int lo[8], nlo = 0, hi[8], nhi = 0;
    for (int r = size / 2 - 1; r >= 0; r--)
        lo[nlo++] = r;
    for (int r = size / 2; r < size; r++)
        hi[nhi++] = r;
    MPI_Group mine;
    int in_lo = rank < size / 2;
    MPI_Group_incl(world, in_lo ? nlo : nhi, in_lo ? lo : hi, &mine);
    MPI_Comm_create(MPI_COMM_WORLD, mine, &c);
    ring(c, in_lo ? lo : hi, "Comm_create(two groups)");
    MPI_Comm_free(&c);
    /* The empty group: every rank gets MPI_COMM_NULL (under ASan this also
     * checks that no member's rank is read from an empty list). */
    c = MPI_COMM_WORLD;
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c) == MPI_SUCCESS,
          "Comm_create(MPI_GROUP_EMPTY) failed");
    CHECK(c == MPI_COMM_NULL, "Comm_create(MPI_GROUP_EMPTY) gave a communicator");
    MPI_Group_free(&mine);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
}

static void cc_create_group(int rank, int size)
{
    MPI_Group world, g;
    int ranks[8], n = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int parity = 1; parity >= 0; parity--) {
        n = 0;
        for (int r = size - 1; r >= 0; r--)
            if (r % 2 == parity)
                ranks[n++] = r;
        if (n == 0 || rank % 2 != parity)
            continue; /* only the members call */
        MPI_Group_incl(world, n, ranks, &g);
        MPI_Comm c;
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 7 + parity, &c);
        ring(c, ranks, parity ? "create_group(odds)" : "create_group(evens)");
        MPI_Comm_free(&c);
        MPI_Group_free(&g);
    }
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void cc_split_type(int rank, int size)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &node);
    int world_of[8];
    for (int r = 0; r < size; r++)
        world_of[r] = size - 1 - r;
    ring(node, world_of, "split_type(SHARED), reversed keys");
    MPI_Comm_free(&node);
    MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    if (rank == 0) {
        CHECK(node == MPI_COMM_NULL, "MPI_UNDEFINED split_type gave a communicator");
    } else {
        int n;
        MPI_Comm_size(node, &n);
        CHECK(n == size - 1, "split_type without rank 0: size %d", n);
        MPI_Comm_free(&node);
    }
}

static void cc_names_idup(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, flag;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name \"%s\"", name);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13, "self name \"%s\"", name);
    MPI_Comm dup;
    MPI_Request req;
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(req == MPI_REQUEST_NULL, "Wait did not free the idup request");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(len == 0 && name[0] == '\0', "new communicator named \"%s\"", name);
    MPI_Comm_set_name(dup, "my dup");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "my dup") == 0 && len == 6, "set_name gave \"%s\"", name);
    MPI_Comm_test_inter(dup, &flag);
    CHECK(flag == 0, "test_inter(intracomm) = %d", flag);
    int result;
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
    CHECK(result == MPI_CONGRUENT, "compare(world, idup) = %d", result);
    int sum = 0, one = 1, size;
    MPI_Comm_size(dup, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
    CHECK(sum == size, "allreduce on idup = %d", sum);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 8, "at most 8 ranks");
    cc_create(rank, size);
    cc_create_group(rank, size);
    cc_split_type(rank, size);
    cc_names_idup();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_create: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}

/* MPI_Comm_split_type(MPI_COMM_TYPE_RESOURCE_GUIDED) with the info key
 * mpi_pset_name (MPI-4.1 7.4.2): the ranks that name one process set and
 * are its members form one communicator, ordered by key, then rank.
 *
 *   split_pset one-node   mpi://WORLD gives every rank, in key order, and
 *                         carries a message; mpi://SELF gives each rank
 *                         alone; names compare without case; an unknown or
 *                         empty name, no info and MPI_COMM_TYPE_HW_GUIDED
 *                         (which reads no set name) give MPI_COMM_NULL;
 *                         mixed names and MPI_UNDEFINED on some ranks split
 *                         each name apart; mpi_shared_memory beside
 *                         hcmpi://node in one call gives two communicators
 *                         of the same ranks; a subcommunicator keeps only
 *                         its own members; both keys at once and an invalid
 *                         info are MPI_ERR_INFO.
 *   split_pset two-nodes  run on 4 ranks by split_pset.sh with
 *                         HCMPI_NODE_ID making nodes of ranks 0-1 and 2-3:
 *                         hcmpi://node gives each node its own
 *                         communicator, mpi://WORLD still all four. */
/* mt-needs: MPI-4.1 (MPI_COMM_TYPE_RESOURCE_GUIDED; built against an older MPICH it is skipped) */
#include "mpitest.h"

static int wrank, wsize;

/* comm split by RESOURCE_GUIDED with key=value in the info (no info when
 * key is NULL). */
static MPI_Comm split_by(MPI_Comm comm, int split_type, const char *key, const char *value,
                         int order)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key != NULL) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    MPI_Comm out = MPI_COMM_NULL;
    int rc = MPI_Comm_split_type(comm, split_type, order, info, &out);
    CHECK(rc == MPI_SUCCESS, "split with %s=%s: %s", key ? key : "(no info)",
          value ? value : "", mt_errstr(rc));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return out;
}

static MPI_Comm split_pset(const char *name, int order)
{
    return split_by(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", name,
                    order);
}

/* The world ranks of comm's members, in comm's rank order; frees comm. */
static int members_then_free(MPI_Comm *comm, int *world)
{
    int n = 0;
    MPI_Comm_size(*comm, &n);
    MPI_Allgather(&wrank, 1, MPI_INT, world, 1, MPI_INT, *comm);
    MPI_Comm_free(comm);
    return n;
}

static void check_world_in_key_order(void)
{
    /* Reversed keys: rank i of the result is world rank wsize - 1 - i. */
    MPI_Comm comm = split_pset("mpi://WORLD", wsize - wrank);
    CHECK(comm != MPI_COMM_NULL, "mpi://WORLD gave rank %d MPI_COMM_NULL", wrank);
    int rank = -1, token = -1;
    MPI_Comm_rank(comm, &rank);
    CHECK(rank == wsize - 1 - wrank, "world rank %d is rank %d, not %d", wrank, rank,
          wsize - 1 - wrank);
    /* A message from the last rank to rank 0 of the new communicator. */
    if (wsize > 1 && rank == wsize - 1) {
        token = 4242;
        MPI_Send(&token, 1, MPI_INT, 0, 3, comm);
    } else if (wsize > 1 && rank == 0) {
        MPI_Recv(&token, 1, MPI_INT, wsize - 1, 3, comm, MPI_STATUS_IGNORE);
        CHECK(token == 4242, "the message through mpi://WORLD read %d", token);
    }
    int world[64];
    int n = members_then_free(&comm, world);
    CHECK(n == wsize, "mpi://WORLD has %d ranks, %d expected", n, wsize);
    for (int i = 0; i < n; i++)
        CHECK(world[i] == wsize - 1 - i, "member %d is world rank %d", i, world[i]);
    /* Names compare without case, as the session calls take them. */
    comm = split_pset("MPI://world", 0);
    CHECK(comm != MPI_COMM_NULL, "MPI://world gave MPI_COMM_NULL");
    CHECK(members_then_free(&comm, world) == wsize, "MPI://world is not the world");
}

static void check_self_and_null(void)
{
    int world[64];
    MPI_Comm comm = split_pset("mpi://SELF", 0);
    CHECK(comm != MPI_COMM_NULL, "mpi://SELF gave MPI_COMM_NULL");
    CHECK(members_then_free(&comm, world) == 1 && world[0] == wrank,
          "mpi://SELF is not rank %d alone", wrank);
    comm = split_pset("hcmpi://no_such_set", 0);
    CHECK(comm == MPI_COMM_NULL, "an unknown set gave a communicator");
    comm = split_pset("", 0);
    CHECK(comm == MPI_COMM_NULL, "an empty set name gave a communicator");
    comm = split_by(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, NULL, NULL, 0);
    CHECK(comm == MPI_COMM_NULL, "no info gave a communicator");
    comm = split_by(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, "mpi_pset_name", "mpi://WORLD", 0);
    CHECK(comm == MPI_COMM_NULL, "HW_GUIDED read a process set name");
}

/* Ranks below half name mpi://WORLD, the others mpi://SELF, the last
 * (with 3 ranks or more) MPI_UNDEFINED. */
static void check_mixed_names(void)
{
    int half = wsize / 2, undefined = wsize >= 3 && wrank == wsize - 1;
    MPI_Comm comm;
    if (undefined)
        comm = split_by(MPI_COMM_WORLD, MPI_UNDEFINED, NULL, NULL, 0);
    else
        comm = split_pset(wrank < half ? "mpi://WORLD" : "mpi://SELF", 0);
    if (undefined) {
        CHECK(comm == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
        return;
    }
    CHECK(comm != MPI_COMM_NULL, "rank %d got MPI_COMM_NULL among mixed names", wrank);
    int world[64];
    int n = members_then_free(&comm, world);
    if (wrank < half) {
        CHECK(n == half, "the ranks that named mpi://WORLD are %d, not %d", n, half);
        for (int i = 0; i < n; i++)
            CHECK(world[i] == i, "mpi://WORLD member %d is world rank %d", i, world[i]);
    } else {
        CHECK(n == 1 && world[0] == wrank, "mpi://SELF of rank %d has %d ranks", wrank, n);
    }
}

/* One call in which ranks pass different keys: the node by hardware and
 * the node by process set are two resources, so two communicators. */
static void check_mixed_keys(void)
{
    int node_size = 0;
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    MPI_Comm_size(shared, &node_size);
    MPI_Comm_free(&shared);
    const char *key = wrank % 2 ? "mpi_pset_name" : "mpi_hw_resource_type";
    const char *value = wrank % 2 ? "hcmpi://node" : "mpi_shared_memory";
    MPI_Comm comm = split_by(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, key, value, 0);
    CHECK(comm != MPI_COMM_NULL, "%s=%s gave MPI_COMM_NULL", key, value);
    int world[64];
    int n = members_then_free(&comm, world);
    for (int i = 0; i < n; i++)
        CHECK(world[i] % 2 == wrank % 2, "%s=%s holds world rank %d", key, value, world[i]);
    CHECK(n <= node_size, "%s=%s holds %d ranks, the node %d", key, value, n, node_size);
}

/* A subcommunicator's split holds only its members. */
static void check_subcommunicator(void)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half);
    int half_size = 0, world[64];
    MPI_Comm_size(half, &half_size);
    MPI_Comm comm = split_by(half, MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name",
                             "mpi://WORLD", 0);
    CHECK(comm != MPI_COMM_NULL, "mpi://WORLD over half gave MPI_COMM_NULL");
    int n = members_then_free(&comm, world);
    CHECK(n == half_size, "mpi://WORLD over half has %d ranks, not %d", n, half_size);
    for (int i = 0; i < n; i++)
        CHECK(world[i] % 2 == wrank % 2, "half %d holds world rank %d", wrank % 2, world[i]);
    MPI_Comm_free(&half);
}

static void check_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_pset_name", "mpi://WORLD");
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &comm);
    CHECK(mt_class(rc) == MPI_ERR_INFO && comm == MPI_COMM_NULL,
          "both keys at once: %s", mt_errstr(rc));
    MPI_Info bad = info;
    MPI_Info_free(&info);
    rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, bad, &comm);
    CHECK(mt_class(rc) == MPI_ERR_INFO, "a freed info: %s", mt_errstr(rc));
    rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, MPI_INFO_NULL,
                             NULL);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "a NULL newcomm: %s", mt_errstr(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void check_two_nodes(void)
{
    CHECK(wsize == 4, "the two-nodes case runs on 4 ranks, not %d", wsize);
    int world[64];
    MPI_Comm comm = split_pset("hcmpi://node", -wrank);
    CHECK(comm != MPI_COMM_NULL, "hcmpi://node gave rank %d MPI_COMM_NULL", wrank);
    int n = members_then_free(&comm, world);
    int first = wrank / 2 * 2;
    CHECK(n == 2 && world[0] == first + 1 && world[1] == first,
          "rank %d's node is %d ranks (%d, %d), want %d and %d in key order", wrank, n,
          world[0], n > 1 ? world[1] : -1, first + 1, first);
    comm = split_pset("mpi://WORLD", 0);
    CHECK(comm != MPI_COMM_NULL && members_then_free(&comm, world) == 4,
          "mpi://WORLD across two nodes is not all four ranks");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(argc == 2, "usage: split_pset one-node|two-nodes");
    CHECK(wsize <= 64, "at most 64 ranks");
#ifdef HCMPI
    if (strcmp(argv[1], "two-nodes") == 0) {
        check_two_nodes();
    } else {
        check_world_in_key_order();
        check_self_and_null();
        check_mixed_names();
        check_mixed_keys();
        check_subcommunicator();
        check_errors();
    }
#else
    /* MPICH 4.3 reads mpi_pset_name but splits by no set (MPI_COMM_NULL). */
    (void)check_two_nodes;
    (void)check_world_in_key_order;
    (void)check_self_and_null;
    (void)check_mixed_names;
    (void)check_mixed_keys;
    (void)check_subcommunicator;
    (void)check_errors;
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("split_pset %s: passed on %d ranks\n", argv[1], wsize);
    MPI_Finalize();
    return 0;
}

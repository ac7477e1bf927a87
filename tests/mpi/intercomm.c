/* Intercommunicators between the two halves of MPI_COMM_WORLD (lower half
 * A = ranks [0, h), upper half B = [h, size)), leaders A0 = world 0 and
 * B0 = world h: test_inter, remote size and remote group; point-to-point
 * both ways where ranks name the remote group, received with
 * MPI_ANY_SOURCE (status source is the remote rank); a Comm_dup of the
 * intercommunicator keeps traffic apart from the original; Intercomm_merge
 * with A high (B first) and with equal flags; collectives on the merged
 * communicator.  Needs 2 ranks at least (1 rank: nothing to do). */
#include "mpitest.h"

static int ic_rank, ic_size, ic_h;

static void ic_queries(MPI_Comm inter, int in_a)
{
    int flag, rsize, lsize, lrank;
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "test_inter = 0 on an intercommunicator");
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_rank(inter, &lrank);
    int want_l = in_a ? ic_h : ic_size - ic_h, want_r = in_a ? ic_size - ic_h : ic_h;
    CHECK(rsize == want_r && lsize == want_l, "sizes local %d remote %d, want %d %d", lsize,
          rsize, want_l, want_r);
    CHECK(lrank == (in_a ? ic_rank : ic_rank - ic_h), "local rank %d", lrank);
    MPI_Group rg, wg;
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int idx[8], out[8];
    for (int i = 0; i < rsize; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(rg, rsize, idx, wg, out);
    for (int i = 0; i < rsize; i++)
        CHECK(out[i] == (in_a ? ic_h + i : i), "remote group member %d is world %d", i, out[i]);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
}

/* Every rank sends its world rank to every remote rank with tag = tagbase
 * + its local rank. */
static void ic_send_all(MPI_Comm inter, int tagbase, MPI_Request *reqs)
{
    int rsize, lrank;
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &lrank);
    for (int r = 0; r < rsize; r++)
        MPI_Isend(&ic_rank, 1, MPI_INT, r, tagbase + lrank, inter, &reqs[r]);
}

/* Receives one message from each remote rank with MPI_ANY_SOURCE and
 * MPI_ANY_TAG: a message of another communicator would show a wrong tag. */
static void ic_recv_all(MPI_Comm inter, int in_a, int tagbase)
{
    int rsize, seen[8] = {0};
    MPI_Comm_remote_size(inter, &rsize);
    for (int i = 0; i < rsize; i++) {
        int got = -1;
        MPI_Status st;
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &st);
        int src = st.MPI_SOURCE;
        CHECK(src >= 0 && src < rsize, "source %d outside the remote group", src);
        CHECK(st.MPI_TAG == tagbase + src, "tag %d from remote rank %d", st.MPI_TAG, src);
        CHECK(got == (in_a ? ic_h + src : src), "remote rank %d sent world %d", src, got);
        CHECK(!seen[src], "two messages from remote rank %d", src);
        seen[src] = 1;
    }
}

static void ic_p2p(MPI_Comm inter, int in_a, int tagbase)
{
    MPI_Request reqs[8];
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    ic_send_all(inter, tagbase, reqs);
    ic_recv_all(inter, in_a, tagbase);
    MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE);
}

static void ic_merge(MPI_Comm inter, int in_a, int high, int want_a_first)
{
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, high, &merged);
    int r, n;
    MPI_Comm_rank(merged, &r);
    MPI_Comm_size(merged, &n);
    CHECK(n == ic_size, "merged size %d", n);
    int nb = ic_size - ic_h;
    int want = want_a_first ? ic_rank : (in_a ? nb + ic_rank : ic_rank - ic_h);
    CHECK(r == want, "merge(high=%d): rank %d, want %d", high, r, want);
    int sum = 0;
    MPI_Allreduce(&ic_rank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == ic_size * (ic_size - 1) / 2, "allreduce on merged = %d", sum);
    int root_world = -1, first = want_a_first ? 0 : ic_h;
    if (r == 0)
        root_world = ic_rank;
    MPI_Bcast(&root_world, 1, MPI_INT, 0, merged);
    CHECK(root_world == first, "merged rank 0 is world %d, want %d", root_world, first);
    MPI_Comm_free(&merged);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &ic_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ic_size);
    CHECK(ic_size <= 8, "at most 8 ranks");
    if (ic_size < 2) {
        printf("intercomm: needs 2 ranks, nothing to do\n");
        MPI_Finalize();
        return 0;
    }
    ic_h = ic_size / 2;
    int in_a = ic_rank < ic_h;
    MPI_Comm half, inter, dup;
    MPI_Comm_split(MPI_COMM_WORLD, in_a, ic_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? ic_h : 0, 99, &inter);
    ic_queries(inter, in_a);
    ic_p2p(inter, in_a, 100);
    MPI_Comm_dup(inter, &dup);
    ic_queries(dup, in_a);
    /* Messages on inter (tags 200+) are in flight while dup receives with
     * wildcards: dup must see only its own (tags 100+). */
    MPI_Request reqs[8];
    ic_send_all(inter, 200, reqs);
    MPI_Barrier(MPI_COMM_WORLD);
    ic_p2p(dup, in_a, 100);
    ic_recv_all(inter, in_a, 200);
    MPI_Waitall(in_a ? ic_size - ic_h : ic_h, reqs, MPI_STATUSES_IGNORE);
    MPI_Comm_free(&dup);
    /* Collectives the standard does not define on an intercommunicator
     * fail cleanly: Scan (MPI_ERR_COMM) and MPI_IN_PLACE (MPI_ERR_BUFFER);
     * the others are tests/mpi/intercomm_coll.c's. */
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int one = 1, sum = 0;
    int bad = MPI_Scan(&one, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(mt_class(bad) == MPI_ERR_COMM, "Scan on an intercomm: %s", mt_errstr(bad));
    bad = MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(mt_class(bad) == MPI_ERR_BUFFER, "in-place Allreduce on an intercomm: %s",
          mt_errstr(bad));
    ic_merge(inter, in_a, in_a, 0); /* A high: B first */
    ic_merge(inter, in_a, !in_a, 1); /* B high: A first */
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    if (ic_rank == 0)
        printf("intercomm: OK on %d ranks\n", ic_size);
    MPI_Finalize();
    return 0;
}

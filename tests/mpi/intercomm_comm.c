/* Communicator operations on an intercommunicator between A = world ranks
 * [0, h) and B = [h, size), h = size / 2 (at least 1): MPI_Comm_split
 * (key order, a color found in one group only, MPI_UNDEFINED),
 * MPI_Comm_create (a subgroup on each side, and an empty one on one side),
 * MPI_Comm_split_type, MPI_Comm_dup and MPI_Comm_idup (attributes copied
 * through their callback, and an idup that must not block while a remote
 * leader waits in a receive), names, probe and iprobe, and merge round
 * trips (create, merge, split, create again, merge the other way).  Each
 * new intercommunicator is checked for its local and remote groups (sizes,
 * ranks, MPI_Comm_remote_group) and carries point-to-point both ways.
 * Needs 2 ranks at least. */
#include "mpitest.h"

#define NMAX 64

static int world_rank, world_size, h;

/* Checks inter against the expected groups (world ranks in rank order):
 * sizes, this rank's place, the remote group, and one message from every
 * remote rank (received with MPI_ANY_SOURCE) naming its world rank. */
static void ic_verify(MPI_Comm inter, const int *local, int nl, const int *remote, int nr,
                      const char *what)
{
    int flag, lsize, rsize, lrank;
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "%s: not an intercommunicator", what);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &lrank);
    CHECK(lsize == nl && rsize == nr, "%s: sizes %d/%d, want %d/%d", what, lsize, rsize, nl,
          nr);
    CHECK(lrank >= 0 && lrank < nl && local[lrank] == world_rank, "%s: local rank %d", what,
          lrank);
    MPI_Group rg, wg;
    int idx[NMAX], out[NMAX];
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < nr; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(rg, nr, idx, wg, out);
    for (int i = 0; i < nr; i++)
        CHECK(out[i] == remote[i], "%s: remote %d is world %d, want %d", what, i, out[i],
              remote[i]);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
    MPI_Request reqs[NMAX];
    for (int r = 0; r < nr; r++)
        MPI_Isend(&world_rank, 1, MPI_INT, r, 11, inter, &reqs[r]);
    for (int i = 0; i < nr; i++) {
        int got;
        MPI_Status st;
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 11, inter, &st);
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < nr && got == remote[st.MPI_SOURCE],
              "%s: world %d arrived from remote rank %d", what, got, st.MPI_SOURCE);
    }
    MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE);
}

/* The world ranks of group A (in_a) or B. */
static int group_of(int in_a, int *ranks)
{
    int n = 0;
    for (int w = in_a ? 0 : h; w < (in_a ? h : world_size); w++)
        ranks[n++] = w;
    return n;
}

static MPI_Comm make_inter(MPI_Comm *local)
{
    MPI_Comm inter;
    int in_a = world_rank < h;
    MPI_Comm_split(MPI_COMM_WORLD, in_a, world_rank, local);
    MPI_Intercomm_create(*local, 0, MPI_COMM_WORLD, in_a ? h : 0, 9, &inter);
    return inter;
}

/* The members of one group (in_a) whose color(w) is color, ordered by
 * key(w) = -w (so the reverse of world order). */
static int split_members(int in_a, int (*color)(int), int c, int *out)
{
    int all[NMAX], n = group_of(in_a, all), k = 0;
    for (int i = n - 1; i >= 0; i--)
        if (color(all[i]) == c)
            out[k++] = all[i];
    return k;
}

static int color_parity(int w) { return w % 2; }

/* Color 5 in A and in B's first rank; 6 only in B's second rank (it gets
 * MPI_COMM_NULL, no partner); B's others MPI_UNDEFINED. */
static int color_lopsided(int w)
{
    if (w < h || w == h)
        return 5;
    return w == h + 1 ? 6 : MPI_UNDEFINED;
}

static void t_split(MPI_Comm inter, int (*color)(int), const char *what)
{
    int in_a = world_rank < h, c = color(world_rank);
    MPI_Comm sub;
    MPI_Comm_split(inter, c, -world_rank, &sub);
    int local[NMAX], remote[NMAX], nl = 0, nr = 0;
    if (c != MPI_UNDEFINED) {
        nl = split_members(in_a, color, c, local);
        nr = split_members(!in_a, color, c, remote);
    }
    if (nr == 0) {
        CHECK(sub == MPI_COMM_NULL, "%s: color %d has no remote members, want MPI_COMM_NULL",
              what, c);
        return;
    }
    CHECK(sub != MPI_COMM_NULL, "%s: color %d gave MPI_COMM_NULL", what, c);
    ic_verify(sub, local, nl, remote, nr, what);
    MPI_Comm_free(&sub);
}

/* Each side keeps all but its last member (a group of one keeps it);
 * with empty_b, B passes MPI_GROUP_EMPTY and nobody gets a communicator. */
static void t_create(MPI_Comm inter, int empty_b)
{
    int in_a = world_rank < h, a[NMAX], b[NMAX];
    int na = group_of(1, a), nb = group_of(0, b);
    int keep_a = na > 1 ? na - 1 : na, keep_b = empty_b ? 0 : nb > 1 ? nb - 1 : nb;
    MPI_Group lg, sub;
    MPI_Comm_group(inter, &lg);
    int n = in_a ? keep_a : keep_b, idx[NMAX];
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_Group_incl(lg, n, idx, &sub);
    MPI_Comm made;
    MPI_Comm_create(inter, sub, &made);
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);
    int lrank = world_rank - (in_a ? 0 : h);
    int member = lrank < n && keep_a > 0 && keep_b > 0;
    CHECK((made != MPI_COMM_NULL) == member, "create (empty_b %d): member %d, got %s",
          empty_b, member, made == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (!member)
        return;
    ic_verify(made, in_a ? a : b, in_a ? keep_a : keep_b, in_a ? b : a, in_a ? keep_b : keep_a,
              "create");
    MPI_Comm_free(&made);
}

static void t_split_type(MPI_Comm inter)
{
    int in_a = world_rank < h, mine[NMAX], theirs[NMAX];
    int nl = group_of(in_a, mine), nr = group_of(!in_a, theirs);
    MPI_Comm node, none;
    MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node);
    CHECK(node != MPI_COMM_NULL, "split_type shared gave MPI_COMM_NULL");
    ic_verify(node, mine, nl, theirs, nr, "split_type");
    MPI_Comm_free(&node);
    MPI_Comm_split_type(inter, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none);
    CHECK(none == MPI_COMM_NULL, "split_type MPI_UNDEFINED gave a communicator");
}

/* ---- dup, idup, attributes, names ---------------------------------------- */

static int copies;

static int copy_plus_one(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    copies++;
    *(void **)out = (void *)((char *)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static void check_attr(MPI_Comm comm, int key, long want, const char *what)
{
    void *v = NULL;
    int flag = 0;
    MPI_Comm_get_attr(comm, key, &v, &flag);
    CHECK(flag && (long)(char *)v == want, "%s: attribute %ld (flag %d), want %ld", what,
          (long)(char *)v, flag, want);
}

static void t_dup(MPI_Comm inter)
{
    int in_a = world_rank < h, mine[NMAX], theirs[NMAX], key;
    int nl = group_of(in_a, mine), nr = group_of(!in_a, theirs);
    MPI_Comm_create_keyval(copy_plus_one, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(inter, key, (void *)(char *)40);
    copies = 0;
    MPI_Comm d1, d2;
    MPI_Comm_dup(inter, &d1);
    CHECK(copies == 1, "dup ran the copy callback %d times", copies);
    check_attr(d1, key, 41, "dup");
    ic_verify(d1, mine, nl, theirs, nr, "dup");

    /* Local rank 0 enters its idup only after every other remote rank's
     * message arrived, which those send after starting theirs. */
    int lrank, got;
    MPI_Request req;
    MPI_Comm_rank(inter, &lrank);
    if (lrank == 0) {
        for (int r = 1; r < nr; r++)
            MPI_Recv(&got, 1, MPI_INT, r, 12, d1, MPI_STATUS_IGNORE);
        MPI_Comm_idup(d1, &d2, &req);
    } else {
        MPI_Comm_idup(d1, &d2, &req);
        MPI_Ssend(&world_rank, 1, MPI_INT, 0, 12, d1);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(copies == 2, "idup ran the copy callback %d times in all", copies);
    check_attr(d2, key, 42, "idup");
    ic_verify(d2, mine, nl, theirs, nr, "idup");
    int result;
    MPI_Comm_compare(d2, inter, &result);
    CHECK(result == MPI_CONGRUENT, "compare(idup, original) = %d", result);
    MPI_Comm_free(&d2);
    MPI_Comm_free(&d1);
    MPI_Comm_delete_attr(inter, key);
    MPI_Comm_free_keyval(&key);
}

static void t_name(MPI_Comm inter)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_set_name(inter, "between A and B");
    MPI_Comm_get_name(inter, name, &len);
    CHECK(strcmp(name, "between A and B") == 0 && len == 15, "name '%s' (%d)", name, len);
}

/* Remote rank 0 sends tag 3 carrying 1 + its world rank ints to each
 * rank here; probe and iprobe see source 0 (a remote rank) and the count. */
static void t_probe(MPI_Comm inter)
{
    int lrank, rsize, buf[NMAX], n = world_rank + 1, flag = 0;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Request reqs[NMAX];
    for (int i = 0; i < n; i++)
        buf[i] = world_rank;
    for (int r = 0; lrank == 0 && r < rsize; r++)
        MPI_Isend(buf, n, MPI_INT, r, 3, inter, &reqs[r]);
    int from = world_rank < h ? h : 0, in[NMAX];
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, 3, inter, &st);
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 3 && mt_status_count(&st, MPI_INT) == from + 1,
          "probe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG,
          mt_status_count(&st, MPI_INT));
    while (!flag)
        MPI_Iprobe(0, 3, inter, &flag, &st);
    CHECK(st.MPI_SOURCE == 0 && mt_status_count(&st, MPI_INT) == from + 1,
          "iprobe: source %d count %d", st.MPI_SOURCE, mt_status_count(&st, MPI_INT));
    MPI_Recv(in, NMAX, MPI_INT, 0, 3, inter, &st);
    CHECK(in[0] == from && in[from] == from, "probed message holds %d..%d", in[0], in[from]);
    if (lrank == 0)
        MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE);
}

/* ---- merge round trips --------------------------------------------------- */

/* Merges with A high (B first), checks the order, splits the result back
 * into the two groups, builds an intercommunicator of them again and
 * merges that with B high (A first). */
static void t_merge_round_trip(MPI_Comm inter)
{
    int in_a = world_rank < h, mine[NMAX], theirs[NMAX], r, size;
    int nl = group_of(in_a, mine), nr = group_of(!in_a, theirs);
    MPI_Comm merged, half, again, back;
    MPI_Intercomm_merge(inter, in_a, &merged);
    MPI_Comm_rank(merged, &r);
    MPI_Comm_size(merged, &size);
    int want = in_a ? world_rank + (world_size - h) : world_rank - h;
    CHECK(size == world_size && r == want, "merge (B first): rank %d of %d, want %d", r, size,
          want);
    MPI_Comm_split(merged, in_a, r, &half);
    MPI_Intercomm_create(half, 0, merged, in_a ? 0 : world_size - h, 21, &again);
    ic_verify(again, mine, nl, theirs, nr, "re-created");
    MPI_Intercomm_merge(again, !in_a, &back);
    MPI_Comm_rank(back, &r);
    CHECK(r == world_rank, "merge (A first): rank %d, want %d", r, world_rank);
    int sum = 0;
    MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, back);
    CHECK(sum == world_size * (world_size - 1) / 2, "allreduce on the merged comm: %d", sum);
    MPI_Comm_free(&back);
    MPI_Comm_free(&again);
    MPI_Comm_free(&half);
    MPI_Comm_free(&merged);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    h = world_size / 2 > 0 ? world_size / 2 : 1;
    if (world_size >= 2 && world_size <= NMAX) {
        MPI_Comm local, inter = make_inter(&local);
        t_split(inter, color_parity, "split by parity");
        t_split(inter, color_lopsided, "lopsided split");
        t_create(inter, 0);
        t_create(inter, 1);
        t_split_type(inter);
        t_dup(inter);
        t_name(inter);
        t_probe(inter);
        t_merge_round_trip(inter);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }
    MPI_Finalize();
    if (world_rank == 0)
        printf("intercomm_comm: ok\n");
    return 0;
}

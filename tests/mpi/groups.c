/* Group operations against hand-computed member lists: Comm_group of world
 * and of a split, incl/excl/range_incl/range_excl, union/intersection/
 * difference (order: group 1's, then group 2's), translate_ranks (with
 * MPI_PROC_NULL and MPI_UNDEFINED), compare (IDENT, SIMILAR, UNEQUAL),
 * Group_rank outside the group is MPI_UNDEFINED, empty results are
 * MPI_GROUP_EMPTY, Group_free nulls the handle; bad input (freed group,
 * MPI_GROUP_NULL, out-of-range or repeated ranks, stride 0) gives the right
 * class under MPI_ERRORS_RETURN. */
#include "mpitest.h"

static int g_size;

/* World ranks of g's members, by translating to the world group. */
static void members(MPI_Group g, int *out, int *n)
{
    MPI_Group world;
    int idx[64];
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(g, n);
    for (int i = 0; i < *n; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(g, *n, idx, world, out);
    MPI_Group_free(&world);
}

static void expect(MPI_Group g, const int *want, int n, const char *what)
{
    int got[64], m;
    members(g, got, &m);
    CHECK(m == n, "%s: size %d, want %d", what, m, n);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: member %d is world %d, want %d", what, i, got[i], want[i]);
    int rank, me = mt_world_rank(), pos = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (want[i] == me)
            pos = i;
    MPI_Group_rank(g, &rank);
    CHECK(rank == pos, "%s: Group_rank %d, want %d", what, rank, pos);
}

static void gr_basic(MPI_Group world)
{
    int want[64] = {0}, n = 0, ranks[64] = {0};
    expect(world, (int[]){0, 1, 2, 3, 4, 5, 6, 7}, g_size, "world group");
    /* incl in reverse order */
    for (int i = 0; i < g_size; i++)
        ranks[i] = g_size - 1 - i;
    MPI_Group g;
    MPI_Group_incl(world, g_size, ranks, &g);
    expect(g, ranks, g_size, "incl reversed");
    int result;
    MPI_Group_compare(world, g, &result);
    CHECK(result == (g_size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare(world, reversed) = %d", result);
    MPI_Group_free(&g);
    CHECK(g == MPI_GROUP_NULL, "Group_free did not null the handle");
    /* excl the even ranks */
    n = 0;
    for (int i = 0; i < g_size; i += 2)
        ranks[n++] = i;
    MPI_Group_excl(world, n, ranks, &g);
    int m = 0;
    for (int i = 1; i < g_size; i += 2)
        want[m++] = i;
    if (m == 0) {
        CHECK(g == MPI_GROUP_EMPTY, "empty excl result is not MPI_GROUP_EMPTY");
    }
    expect(g, want, m, "excl evens");
    MPI_Group_compare(world, g, &result);
    CHECK(result == MPI_UNEQUAL, "compare(world, odds) = %d", result);
    MPI_Group_free(&g);
    /* incl of nothing */
    MPI_Group_incl(world, 0, ranks, &g);
    CHECK(g == MPI_GROUP_EMPTY, "incl of 0 ranks is not MPI_GROUP_EMPTY");
    int size = -1;
    MPI_Group_size(MPI_GROUP_EMPTY, &size);
    CHECK(size == 0, "MPI_GROUP_EMPTY size %d", size);
    MPI_Group_compare(world, world, &result);
    CHECK(result == MPI_IDENT, "compare(world, world) = %d", result);
}

static void gr_ranges(MPI_Group world)
{
    int want[64] = {0}, m = 0;
    /* (size-1 down to 0 step -2) then (0, 0, 1) when not already in */
    int ranges[2][3] = {{g_size - 1, 0, -2}, {0, 0, 1}};
    int nr = ((g_size - 1) % 2 == 0) ? 1 : 2; /* 0 is in the first range when size is odd */
    for (int r = g_size - 1; r >= 0; r -= 2)
        want[m++] = r;
    if (nr == 2)
        want[m++] = 0;
    MPI_Group g;
    MPI_Group_range_incl(world, nr, ranges, &g);
    expect(g, want, m, "range_incl");
    MPI_Group_free(&g);
    MPI_Group_range_excl(world, nr, ranges, &g);
    int w2[64] = {0}, m2 = 0;
    for (int r = 0; r < g_size; r++) {
        int in = 0;
        for (int i = 0; i < m; i++)
            in |= want[i] == r;
        if (!in)
            w2[m2++] = r;
    }
    expect(g, w2, m2, "range_excl");
    MPI_Group_free(&g);
}

/* A = ranks [0, 2size/3) in reverse, B = ranks [size/3, size). */
static void gr_setops(MPI_Group world)
{
    int a[64], na = 0, b[64], nb = 0;
    for (int r = (2 * g_size + 2) / 3 - 1; r >= 0; r--)
        a[na++] = r;
    for (int r = g_size / 3; r < g_size; r++)
        b[nb++] = r;
    MPI_Group ga, gb, g;
    MPI_Group_incl(world, na, a, &ga);
    MPI_Group_incl(world, nb, b, &gb);
    int want[64] = {0}, m = 0;
    /* union: A's order, then B's members not in A */
    for (int i = 0; i < na; i++)
        want[m++] = a[i];
    for (int i = 0; i < nb; i++)
        if (b[i] >= na)
            want[m++] = b[i];
    MPI_Group_union(ga, gb, &g);
    expect(g, want, m, "union");
    MPI_Group_free(&g);
    m = 0;
    for (int i = 0; i < na; i++)
        if (a[i] >= g_size / 3)
            want[m++] = a[i];
    MPI_Group_intersection(ga, gb, &g);
    expect(g, want, m, "intersection");
    MPI_Group_free(&g);
    m = 0;
    for (int i = 0; i < na; i++)
        if (a[i] < g_size / 3)
            want[m++] = a[i];
    MPI_Group_difference(ga, gb, &g);
    expect(g, want, m, "difference");
    MPI_Group_free(&g);
    /* translate A -> B: PROC_NULL stays, members outside B are UNDEFINED */
    int in[66], out[66];
    for (int i = 0; i < na; i++)
        in[i] = i;
    in[na] = MPI_PROC_NULL;
    MPI_Group_translate_ranks(ga, na + 1, in, gb, out);
    for (int i = 0; i < na; i++) {
        int w = a[i] >= g_size / 3 ? a[i] - g_size / 3 : MPI_UNDEFINED;
        CHECK(out[i] == w, "translate A[%d] (world %d) -> %d, want %d", i, a[i], out[i], w);
    }
    CHECK(out[na] == MPI_PROC_NULL, "translate of MPI_PROC_NULL gave %d", out[na]);
    MPI_Group_free(&ga);
    MPI_Group_free(&gb);
}

static void gr_comm_group(int rank)
{
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
    MPI_Group g;
    MPI_Comm_group(sub, &g);
    int want[64] = {0}, m = 0;
    for (int r = g_size - 1; r >= 0; r--)
        if (r % 2 == rank % 2)
            want[m++] = r;
    expect(g, want, m, "Comm_group of a split");
    MPI_Group_free(&g);
    MPI_Comm_free(&sub);
}

static void gr_bad(MPI_Group world)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Group g, freed;
    int size, rc;
    int one[1] = {0};
    MPI_Group_incl(world, 1, one, &freed);
    MPI_Group_free(&freed);
    /* keep a stale copy: freed now holds MPI_GROUP_NULL */
    MPI_Group stale;
    MPI_Group_incl(world, 1, one, &stale);
    MPI_Group tmp = stale;
    MPI_Group_free(&tmp);
    /* MPICH does not detect a freed group handle (MT_MPICH_QUIRKS). */
    rc = mt_mpich_quirks() ? MPI_ERR_GROUP : MPI_Group_size(stale, &size);
    CHECK(mt_class(rc) == MPI_ERR_GROUP, "Group_size(freed) class %d", mt_class(rc));
    rc = MPI_Group_size(MPI_GROUP_NULL, &size);
    CHECK(mt_class(rc) == MPI_ERR_GROUP, "Group_size(NULL) class %d", mt_class(rc));
    int bad[2] = {g_size, 0};
    rc = MPI_Group_incl(world, 1, bad, &g);
    CHECK(mt_class(rc) == MPI_ERR_RANK, "incl out of range class %d", mt_class(rc));
    int rep[2] = {0, 0};
    if (g_size >= 2 && !mt_mpich_quirks()) { /* MPICH 4.0.2 accepts repeats */
        rc = MPI_Group_incl(world, 2, rep, &g);
        CHECK(mt_class(rc) == MPI_ERR_RANK, "incl repeated class %d", mt_class(rc));
    }
    int r0[1][3] = {{0, 0, 0}};
    rc = MPI_Group_range_incl(world, 1, r0, &g);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "range stride 0 class %d", mt_class(rc));
    int tin[1] = {g_size}, tout[1];
    rc = MPI_Group_translate_ranks(world, 1, tin, world, tout);
    CHECK(mt_class(rc) == MPI_ERR_RANK, "translate out of range class %d", mt_class(rc));
    MPI_Comm c;
    rc = MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c);
    CHECK(mt_class(rc) == MPI_ERR_GROUP, "Comm_create(GROUP_NULL) class %d", mt_class(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    CHECK(g_size <= 8, "at most 8 ranks");
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    gr_basic(world);
    gr_ranges(world);
    gr_setops(world);
    gr_comm_group(rank);
    gr_bad(world);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("groups: OK on %d ranks\n", g_size);
    MPI_Finalize();
    return 0;
}

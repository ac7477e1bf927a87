/* The checks of a parent-child intercommunicator that tests/mpi/dyn_spawn.c
 * and dyn_spawn_icc.c share. */
#ifndef HCMPI_TESTS_DYN_FAMILY_H
#define HCMPI_TESTS_DYN_FAMILY_H

#include "mpitest.h"

static unsigned dyn_family_seed(int from_parent, int from, int to)
{
    return 500u * (unsigned)from_parent + 31u * (unsigned)from + (unsigned)to;
}

#ifdef HCMPI
/* Splits of merged (parents first) that name a node or a process set keep
 * each job apart: its world ranks, so its nodes and sets, are its own. */
static void dyn_check_split_by_job(MPI_Comm merged, int is_parent, int nparents,
                                   int nchildren)
{
    int own = is_parent ? nparents : nchildren, first = is_parent ? 0 : nparents;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_pset_name", "mpi://WORLD");
    MPI_Comm world = MPI_COMM_NULL, node = MPI_COMM_NULL;
    MPI_Comm_split_type(merged, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &world);
    MPI_Info_free(&info);
    MPI_Comm_split_type(merged, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    CHECK(world != MPI_COMM_NULL && node != MPI_COMM_NULL, "split of merged gave NULL");
    int n = 0, mrank = 0, lowest = -1;
    MPI_Comm_size(world, &n);
    CHECK(n == own, "mpi://WORLD of merged holds %d, its job %d", n, own);
    MPI_Comm_rank(merged, &mrank);
    MPI_Allreduce(&mrank, &lowest, 1, MPI_INT, MPI_MIN, world);
    CHECK(lowest == first, "mpi://WORLD of merged starts at %d, not %d", lowest, first);
    MPI_Comm_size(node, &n);
    CHECK(n <= own, "MPI_COMM_TYPE_SHARED of merged holds %d, its job %d", n, own);
    MPI_Allreduce(&mrank, &lowest, 1, MPI_INT, MPI_MIN, node);
    CHECK(lowest >= first && lowest < first + own, "SHARED of merged joined the jobs");
    MPI_Comm_free(&world);
    MPI_Comm_free(&node);
}
#endif

/* Over inter (parents: nparents, children: nchildren members): the sizes;
 * from every member to every remote member and back a small and a 1 MiB
 * message, bytes and statuses checked; an Allreduce across; a merge with
 * the children high (parents first), its ranks and an Allgather checked,
 * and on hcmpi its splits by process set and node, one per job. */
static void dyn_check_family(MPI_Comm inter, int is_parent, int nparents,
                             int nchildren)
{
    int lsize, rsize, me;
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &me);
    CHECK(lsize == (is_parent ? nparents : nchildren), "local size %d", lsize);
    CHECK(rsize == (is_parent ? nchildren : nparents), "remote size %d", rsize);
    mt_inter_exchange(inter, is_parent, dyn_family_seed);
    int mine = (is_parent ? 1000 : 0) + me, sum = -1, want = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
    for (int r = 0; r < rsize; r++)
        want += (is_parent ? 0 : 1000) + r;
    CHECK(sum == want, "allreduce across: %d, expected %d", sum, want);
    MPI_Comm merged;
    CHECK(MPI_Intercomm_merge(inter, !is_parent, &merged) == MPI_SUCCESS, "merge");
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == nparents + nchildren, "merged size %d", msize);
    CHECK(mrank == (is_parent ? me : nparents + me), "merged rank %d", mrank);
    int *all = mt_malloc((size_t)msize * sizeof *all);
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, merged);
    for (int r = 0; r < msize; r++) {
        int expect = r < nparents ? 1000 + r : r - nparents;
        CHECK(all[r] == expect, "merged allgather[%d] = %d", r, all[r]);
    }
    free(all);
#ifdef HCMPI
    dyn_check_split_by_job(merged, is_parent, nparents, nchildren);
#endif
    MPI_Comm_free(&merged);
}

#endif

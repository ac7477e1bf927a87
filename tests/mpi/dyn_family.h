/* The checks of a parent-child intercommunicator that tests/mpi/dyn_spawn.c
 * and dyn_spawn_icc.c share. */
#ifndef HCMPI_TESTS_DYN_FAMILY_H
#define HCMPI_TESTS_DYN_FAMILY_H

#include "mpitest.h"

static unsigned dyn_family_seed(int from_parent, int from, int to)
{
    return 500u * (unsigned)from_parent + 31u * (unsigned)from + (unsigned)to;
}

/* Over inter (parents: nparents, children: nchildren members): the sizes;
 * from every member to every remote member and back a small and a 1 MiB
 * message, bytes and statuses checked; an Allreduce across; a merge with
 * the children high (parents first), its ranks and an Allgather checked. */
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
    MPI_Comm_free(&merged);
}

#endif

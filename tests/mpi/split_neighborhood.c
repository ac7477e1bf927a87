/* MPI_Comm_split_type(MPIX_COMM_TYPE_NEIGHBORHOOD) with the hint
 * "nbhd_common_dirname": the ranks that reach the same directory form one
 * communicator, ordered by key.
 *
 *   split_neighborhood DIR same    every rank reaches DIR: one communicator
 *                                  of all, in key order (also as split
 *                                  type 5, MPICH 4.2's number); mismatched,
 *                                  missing and unknown hints give
 *                                  MPI_COMM_NULL everywhere; DIR is left
 *                                  as it was.
 *   split_neighborhood DIR mounts  run on 4 ranks by split_neighborhood.sh,
 *                                  ranks 1 and 3 in mount namespaces of
 *                                  their own with a tmpfs over DIR (rank 3's
 *                                  read-only): ranks 0 and 2 share one
 *                                  communicator, rank 1 has one alone,
 *                                  rank 3 gets MPI_COMM_NULL. */
#include <dirent.h>

#include "mpitest.h"

static int wrank, wsize;

static MPI_Comm split_with(const char *key, const char *value, int order)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    MPI_Comm comm = MPI_COMM_NULL;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_NEIGHBORHOOD, order, info,
                              &comm) == MPI_SUCCESS,
          "split with %s=%s failed", key ? key : "(no info)", value ? value : "");
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return comm;
}

/* The world ranks of comm's members, in comm's rank order. */
static void members(MPI_Comm comm, int *world, int *n)
{
    MPI_Comm_size(comm, n);
    MPI_Allgather(&wrank, 1, MPI_INT, world, 1, MPI_INT, comm);
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void check_same(const char *dir)
{
    int before = wrank == 0 ? entries(dir) : 0;
    /* Reversed keys: comm rank i is world rank wsize - 1 - i. */
    MPI_Comm comm = split_with("nbhd_common_dirname", dir, wsize - wrank);
    CHECK(comm != MPI_COMM_NULL, "rank %d got MPI_COMM_NULL for a shared directory", wrank);
    int world[64], n = 0;
    members(comm, world, &n);
    CHECK(n == wsize, "neighborhood of %d ranks, %d expected", n, wsize);
    for (int i = 0; i < n; i++)
        CHECK(world[i] == wsize - 1 - i, "member %d is world rank %d, %d expected", i,
              world[i], wsize - 1 - i);
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
    CHECK(sum == wsize, "allreduce over the neighborhood gave %d", sum);
    MPI_Comm_free(&comm);

    char garbage[64];
    snprintf(garbage, sizeof garbage, "__garbage_%d__", wrank == 1);
    comm = split_with("nbhd_common_dirname", garbage, 0);
    CHECK(wsize == 1 || comm == MPI_COMM_NULL, "mismatched directories gave a communicator");
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
#ifdef HCMPI
    /* MPICH 4.2 and later number the type 5 (4 is MPI-4.1's
     * MPI_COMM_TYPE_RESOURCE_GUIDED there): the same neighborhood. */
    MPI_Info hint;
    MPI_Info_create(&hint);
    MPI_Info_set(hint, "nbhd_common_dirname", dir);
    comm = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, 5, wrank, hint, &comm);
    MPI_Info_free(&hint);
    CHECK(comm != MPI_COMM_NULL, "split type 5 gave rank %d MPI_COMM_NULL", wrank);
    if (comm != MPI_COMM_NULL) {
        members(comm, world, &n);
        CHECK(n == wsize && world[n - 1] == wsize - 1, "split type 5: %d members", n);
        MPI_Comm_free(&comm);
    }
#endif
    comm = split_with("mpix_tooth_fairy", "enable", 0);
    CHECK(comm == MPI_COMM_NULL, "an unknown hint gave a communicator");
    comm = split_with(NULL, NULL, 0);
    CHECK(comm == MPI_COMM_NULL, "no hint gave a communicator");
    MPI_Barrier(MPI_COMM_WORLD);
#ifdef HCMPI
    /* The probe files are gone. */
    if (wrank == 0)
        CHECK(entries(dir) == before, "%s held %d entries before the splits, %d after", dir,
              before, entries(dir));
    /* An intercommunicator has no neighborhood of this kind. */
    if (wsize >= 2) {
        MPI_Comm half, inter, out = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - wrank % 2, 7, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "nbhd_common_dirname", dir);
        int rc = MPI_Comm_split_type(inter, MPIX_COMM_TYPE_NEIGHBORHOOD, 0, info, &out);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_COMM && out == MPI_COMM_NULL,
              "neighborhood split of an intercommunicator: class %d", cls);
        MPI_Info_free(&info);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
#else
    (void)before;
#endif
}

static void check_mounts(const char *dir)
{
    CHECK(wsize == 4, "the mounts case runs on 4 ranks, not %d", wsize);
    MPI_Comm comm = split_with("nbhd_common_dirname", dir, wrank);
    int world[64], n = 0;
    switch (wrank) {
    case 0:
    case 2:
        CHECK(comm != MPI_COMM_NULL, "rank %d got MPI_COMM_NULL", wrank);
        members(comm, world, &n);
        CHECK(n == 2 && world[0] == 0 && world[1] == 2,
              "ranks 0 and 2 share %s, got %d members (%d, %d)", dir, n, world[0],
              n > 1 ? world[1] : -1);
        break;
    case 1:
        CHECK(comm != MPI_COMM_NULL, "rank 1 got MPI_COMM_NULL for its own tmpfs");
        members(comm, world, &n);
        CHECK(n == 1 && world[0] == 1, "rank 1's tmpfs is its own, got %d members", n);
        break;
    default:
        CHECK(comm == MPI_COMM_NULL, "rank 3 cannot write %s and still got a communicator",
              dir);
    }
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(argc == 3, "usage: split_neighborhood DIR same|mounts");
    if (strcmp(argv[2], "mounts") == 0)
        check_mounts(argv[1]);
    else
        check_same(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("split_neighborhood %s: passed on %d ranks\n", argv[2], wsize);
    MPI_Finalize();
    return 0;
}

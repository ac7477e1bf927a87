/* Info objects: set/get/get_valuelen/get_string, nkeys and nthkey in
 * insertion order (an overwrite keeps the key's place), delete, a dup is
 * independent of its source, truncation by valuelen, errors for a missing
 * key (MPI_ERR_INFO_NOKEY), an over-long key (MPI_ERR_INFO_KEY) or value
 * (MPI_ERR_INFO_VALUE), MPI_INFO_NULL and a freed info (MPI_ERR_INFO);
 * MPI_INFO_ENV is readable; Comm_set_info/Comm_get_info and
 * Comm_dup_with_info take and give valid info objects. */
#include "mpitest.h"

static void in_basic(void)
{
    MPI_Info info, dup;
    char value[64], key[MPI_MAX_INFO_KEY + 1];
    int flag, nkeys, len;
    MPI_Info_create(&info);
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 0, "new info has %d keys", nkeys);
    MPI_Info_set(info, "alpha", "1");
    MPI_Info_set(info, "beta", "twenty-two");
    MPI_Info_set(info, "gamma", "3");
    MPI_Info_set(info, "alpha", "one"); /* overwrite keeps the place */
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 3, "nkeys %d", nkeys);
    const char *order[3] = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3; i++) {
        MPI_Info_get_nthkey(info, i, key);
        CHECK(strcmp(key, order[i]) == 0, "nthkey %d = \"%s\", want \"%s\"", i, key, order[i]);
    }
    MPI_Info_get(info, "alpha", sizeof value - 1, value, &flag);
    CHECK(flag && strcmp(value, "one") == 0, "get alpha = \"%s\"", value);
    if (!mt_mpich_quirks()) { /* MPICH 4.0.2 fails instead of truncating */
        MPI_Info_get(info, "beta", 6, value, &flag);
        CHECK(flag && strcmp(value, "twenty") == 0, "get with valuelen 6 = \"%s\"", value);
    }
    MPI_Info_get_valuelen(info, "beta", &len, &flag);
    CHECK(flag && len == 10, "valuelen %d", len);
    MPI_Info_get(info, "delta", sizeof value - 1, value, &flag);
    CHECK(!flag, "missing key found");
    int buflen = 0;
    MPI_Info_get_string(info, "beta", &buflen, value, &flag);
    CHECK(flag && buflen == 11, "get_string length query gave %d", buflen);
    buflen = 4;
    MPI_Info_get_string(info, "beta", &buflen, value, &flag);
    CHECK(flag && buflen == 11 && strcmp(value, "twe") == 0, "get_string(4) = \"%s\" %d", value,
          buflen);
    MPI_Info_dup(info, &dup);
    MPI_Info_delete(info, "beta");
    MPI_Info_set(dup, "gamma", "changed");
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 2, "after delete nkeys %d", nkeys);
    MPI_Info_get_nthkey(info, 1, key);
    CHECK(strcmp(key, "gamma") == 0, "after delete nthkey 1 = \"%s\"", key);
    MPI_Info_get(info, "gamma", sizeof value - 1, value, &flag);
    CHECK(flag && strcmp(value, "3") == 0, "dup changed its source: \"%s\"", value);
    MPI_Info_get_nkeys(dup, &nkeys);
    CHECK(nkeys == 3, "dup nkeys %d", nkeys);
    MPI_Info_get(dup, "beta", sizeof value - 1, value, &flag);
    CHECK(flag && strcmp(value, "twenty-two") == 0, "dup lost beta");
    MPI_Info_free(&dup);
    CHECK(dup == MPI_INFO_NULL, "Info_free did not null the handle");
    MPI_Info_free(&info);
}

static void in_errors(void)
{
    MPI_Info info, stale;
    char big[MPI_MAX_INFO_VAL + 2], value[8];
    int flag, nkeys, rc;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Info_create(&info);
    rc = MPI_Info_delete(info, "nothing");
    CHECK(mt_class(rc) == MPI_ERR_INFO_NOKEY, "delete missing key: class %d", mt_class(rc));
    memset(big, 'k', sizeof big);
    big[MPI_MAX_INFO_KEY + 1] = '\0';
    rc = MPI_Info_set(info, big, "v");
    CHECK(mt_class(rc) == MPI_ERR_INFO_KEY, "long key: class %d", mt_class(rc));
    memset(big, 'v', sizeof big);
    big[MPI_MAX_INFO_VAL + 1] = '\0';
    rc = MPI_Info_set(info, "k", big);
    CHECK(mt_class(rc) == MPI_ERR_INFO_VALUE, "long value: class %d", mt_class(rc));
    rc = MPI_Info_get_nthkey(info, 0, value);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "nthkey out of range: class %d", mt_class(rc));
    rc = MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys);
    /* MPICH 4.0.2 says MPI_ERR_ARG for a null handle. */
    CHECK(mt_class(rc) == MPI_ERR_INFO || (mt_mpich_quirks() && mt_class(rc) == MPI_ERR_ARG),
          "nkeys(INFO_NULL): class %d", mt_class(rc));
    stale = info;
    MPI_Info_free(&info);
    rc = mt_mpich_quirks() ? MPI_ERR_INFO : MPI_Info_get_nkeys(stale, &nkeys);
    CHECK(mt_class(rc) == MPI_ERR_INFO, "nkeys(freed): class %d", mt_class(rc));
    (void)flag;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static void in_env_and_comm(void)
{
    int nkeys;
    MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys);
    CHECK(nkeys >= 0, "MPI_INFO_ENV nkeys %d", nkeys);
    MPI_Info hints, used;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "mpi_assert_no_any_tag", "false");
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, hints, &c);
    MPI_Comm_set_info(c, hints);
    MPI_Comm_get_info(c, &used);
    CHECK(used != MPI_INFO_NULL, "Comm_get_info gave MPI_INFO_NULL");
    MPI_Info_get_nkeys(used, &nkeys);
    CHECK(nkeys >= 0, "info_used nkeys %d", nkeys);
    MPI_Info_free(&used);
    int one = 1, sum = 0, size;
    MPI_Comm_size(c, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == size, "allreduce on dup_with_info = %d", sum);
    MPI_Comm_free(&c);
    MPI_Info_free(&hints);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    in_basic();
    in_errors();
    in_env_and_comm();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("info_objects: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}

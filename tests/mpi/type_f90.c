/*
 * MPI_Type_create_f90_integer, _real and _complex: the size of the kind
 * SELECTED_INT_KIND / SELECTED_REAL_KIND picks, the same handle on every
 * call with the same arguments, an envelope of MPI_COMBINER_F90_* with the
 * arguments as contents, MPI_Type_free refused (MPI_ERR_TYPE), no kind
 * (or both arguments MPI_UNDEFINED) MPI_ERR_ARG; and the types at work:
 * a ring exchange (bytes and MPI_Get_count checked), MPI_Allreduce with
 * MPI_SUM on them, and inside a derived type.  MPI_Type_match_size finds
 * the named types by size.
 */
#include "mpitest.h"

static void check_envelope(MPI_Datatype t, int combiner, int ni, int p, int r)
{
    int nints = -1, naddr = -1, ntypes = -1, comb = -1, ints[2] = {-9, -9};
    CHECK(MPI_Type_get_envelope(t, &nints, &naddr, &ntypes, &comb) == MPI_SUCCESS, "envelope");
    CHECK(comb == combiner && nints == ni && naddr == 0 && ntypes == 0,
          "envelope %d %d %d %d", comb, nints, naddr, ntypes);
    CHECK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL) == MPI_SUCCESS, "contents");
    if (ni == 1)
        CHECK(ints[0] == r, "contents r %d", ints[0]);
    else
        CHECK(ints[0] == p && ints[1] == r, "contents %d %d", ints[0], ints[1]);
}

static int type_size(MPI_Datatype t)
{
    int size = -1;
    CHECK(MPI_Type_size(t, &size) == MPI_SUCCESS, "size");
    return size;
}

static void check_sizes(void)
{
    static const int rs[] = {1, 2, 3, 4, 5, 9, 10, 18};
    static const int isz[] = {1, 1, 2, 2, 4, 4, 8, 8};
    for (int i = 0; i < 8; i++) {
        MPI_Datatype a, b;
        CHECK(MPI_Type_create_f90_integer(rs[i], &a) == MPI_SUCCESS, "f90_integer(%d)", rs[i]);
        CHECK(MPI_Type_create_f90_integer(rs[i], &b) == MPI_SUCCESS && a == b,
              "f90_integer(%d) twice: 0x%x 0x%x", rs[i], (unsigned)a, (unsigned)b);
        CHECK(type_size(a) == isz[i], "f90_integer(%d) size %d", rs[i], type_size(a));
        check_envelope(a, MPI_COMBINER_F90_INTEGER, 1, 0, rs[i]);
    }
    static const int ps[] = {6, 1, MPI_UNDEFINED, 7, 15, MPI_UNDEFINED};
    static const int rr[] = {MPI_UNDEFINED, 30, 37, 10, 307, 300};
    static const int rsz[] = {4, 4, 4, 8, 8, 8};
    for (int i = 0; i < 6; i++) {
        MPI_Datatype a, b, c;
        CHECK(MPI_Type_create_f90_real(ps[i], rr[i], &a) == MPI_SUCCESS, "f90_real");
        CHECK(MPI_Type_create_f90_real(ps[i], rr[i], &b) == MPI_SUCCESS && a == b, "twice");
        CHECK(type_size(a) == rsz[i], "f90_real(%d, %d) size %d", ps[i], rr[i], type_size(a));
        check_envelope(a, MPI_COMBINER_F90_REAL, 2, ps[i], rr[i]);
        CHECK(MPI_Type_create_f90_complex(ps[i], rr[i], &c) == MPI_SUCCESS, "f90_complex");
        CHECK(type_size(c) == 2 * rsz[i], "f90_complex size %d", type_size(c));
        check_envelope(c, MPI_COMBINER_F90_COMPLEX, 2, ps[i], rr[i]);
        CHECK(c != a, "complex and real share a handle");
    }
    MPI_Datatype m;
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m) == 0 && m == MPI_INTEGER4, "match");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m) == 0 && m == MPI_REAL8, "match");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 8, &m) == 0 && m == MPI_COMPLEX8, "match");
}

static void check_errors(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, keep;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Type_create_f90_integer(19, &t);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "r 19: %s", mt_errstr(rc));
    rc = MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "p 34: %s", mt_errstr(rc));
    rc = MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "both undefined: %s", mt_errstr(rc));
    rc = MPI_Type_create_f90_complex(MPI_UNDEFINED, 5000, &t);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "r 5000: %s", mt_errstr(rc));
    rc = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "match size 3: %s", mt_errstr(rc));
    CHECK(t == MPI_DATATYPE_NULL, "a failed call wrote a type");
    CHECK(MPI_Type_create_f90_integer(9, &t) == MPI_SUCCESS, "f90_integer(9)");
    keep = t;
    rc = MPI_Type_free(&t);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "free: %s", mt_errstr(rc));
    CHECK(type_size(keep) == 4, "the type outlived the refused free");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void check_use(int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Datatype i4, r8, c16, pair;
    CHECK(MPI_Type_create_f90_integer(8, &i4) == 0, "i4");
    CHECK(MPI_Type_create_f90_real(12, 200, &r8) == 0, "r8");
    CHECK(MPI_Type_create_f90_complex(12, MPI_UNDEFINED, &c16) == 0, "c16");
    double out[64], in[64];
    for (int k = 0; k < 64; k++) {
        out[k] = rank * 100.0 + k + 0.25;
        in[k] = -1;
    }
    MPI_Status st;
    CHECK(MPI_Sendrecv(out, 64, r8, next, 3, in, 64, r8, prev, 3, MPI_COMM_WORLD, &st) == 0,
          "sendrecv");
    CHECK(mt_status_count(&st, r8) == 64, "count %d", mt_status_count(&st, r8));
    for (int k = 0; k < 64; k++)
        CHECK(in[k] == prev * 100.0 + k + 0.25, "element %d: %g", k, in[k]);
    int mine[3] = {rank, 2 * rank, 1}, sum[3];
    CHECK(MPI_Allreduce(mine, sum, 3, i4, MPI_SUM, MPI_COMM_WORLD) == 0, "allreduce int");
    int all = size * (size - 1) / 2;
    CHECK(sum[0] == all && sum[1] == 2 * all && sum[2] == size, "sum %d %d %d", sum[0],
          sum[1], sum[2]);
    double z[2] = {rank, -rank}, zs[2];
    CHECK(MPI_Allreduce(z, zs, 1, c16, MPI_SUM, MPI_COMM_WORLD) == 0, "allreduce complex");
    CHECK(zs[0] == all && zs[1] == -all, "complex sum %g %g", zs[0], zs[1]);
    CHECK(MPI_Type_contiguous(2, r8, &pair) == 0 && MPI_Type_commit(&pair) == 0, "pair");
    double pm[2] = {rank, rank + 0.5}, px[2];
    CHECK(MPI_Allreduce(pm, px, 1, pair, MPI_MAX, MPI_COMM_WORLD) == 0, "allreduce pair");
    CHECK(px[0] == size - 1 && px[1] == size - 0.5, "max %g %g", px[0], px[1]);
    MPI_Type_free(&pair);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_sizes();
    check_errors();
    check_use(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("type_f90: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}

/* The large-count (_c) forms of the datatype, packing and reduction calls,
 * one rank:
 *  - every _c constructor gives, on small counts, the type its int form
 *    gives (size, extent, true extent, and the packed bytes of a buffer);
 *    its envelope holds large counts, which the int envelope refuses;
 *  - with counts above 2^31 the _c constructors build types whose size
 *    and extent are exact (no data is touched), while the int queries say
 *    MPI_UNDEFINED and MPI_Pack_size says MPI_ERR_VALUE_TOO_LARGE;
 *  - MPI_Pack(_external)(_size)_c and MPI_Unpack(_external)_c match the
 *    int forms byte for byte; MPI_Op_create_c's function gets the whole
 *    run; MPI_Reduce_local_c matches MPI_Reduce_local;
 *  - negative counts are MPI_ERR_COUNT in the _c forms too; a bsend
 *    buffer above 2^31 bytes detaches with size MPI_UNDEFINED in the int
 *    form and its exact size in the _c one. */
#include "mpitest.h"

#include <stdint.h>

#define BIG (((MPI_Count)1 << 31) + 5)

/* Size, extents and the packed image of 2 elements over buf: equal. */
static void same_type(const char *what, MPI_Datatype a, MPI_Datatype b,
                      const void *buf)
{
    MPI_Count sa, sb, la, lb, ea, eb, ta, tb, xa, xb;
    CHECK(MPI_Type_commit(&a) == MPI_SUCCESS && MPI_Type_commit(&b) == MPI_SUCCESS, "%s", what);
    MPI_Type_size_c(a, &sa);
    MPI_Type_size_c(b, &sb);
    MPI_Type_get_extent_c(a, &la, &ea);
    MPI_Type_get_extent_c(b, &lb, &eb);
    MPI_Type_get_true_extent_c(a, &ta, &xa);
    MPI_Type_get_true_extent_c(b, &tb, &xb);
    CHECK(sa == sb && la == lb && ea == eb && ta == tb && xa == xb,
          "%s: size %lld/%lld lb %lld/%lld extent %lld/%lld", what, (long long)sa,
          (long long)sb, (long long)la, (long long)lb, (long long)ea, (long long)eb);
    CHECK(sa > 0, "%s: empty type", what);
    unsigned char pa[4096], pb[4096];
    int pos = 0;
    MPI_Count cpos = 0;
    CHECK(MPI_Pack(buf, 2, a, pa, sizeof pa, &pos, MPI_COMM_SELF) == MPI_SUCCESS, "%s pack", what);
    CHECK(MPI_Pack_c(buf, 2, b, pb, sizeof pb, &cpos, MPI_COMM_SELF) == MPI_SUCCESS, "%s pack_c",
          what);
    CHECK(pos == cpos && pos == 2 * sa && memcmp(pa, pb, (size_t)pos) == 0,
          "%s: packed images differ", what);
    MPI_Type_free(&a);
    MPI_Type_free(&b);
}

/* A _c type: its envelope counts nc large counts, the int form refuses. */
static void large_envelope(const char *what, MPI_Datatype t, MPI_Count want_ni,
                           MPI_Count want_nc, int want_combiner)
{
    MPI_Count ni, na, nc, nd;
    int comb, a, b, c, d;
    CHECK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb) == MPI_SUCCESS, "%s", what);
    CHECK(ni == want_ni && na == 0 && nc == want_nc && comb == want_combiner,
          "%s: envelope ni %lld na %lld nc %lld combiner %d", what, (long long)ni,
          (long long)na, (long long)nc, comb);
    MPI_Count *large = mt_malloc((size_t)nc * sizeof *large);
    int *ints = mt_malloc((size_t)(ni + 1) * sizeof *ints);
    MPI_Datatype *types = mt_malloc((size_t)nd * sizeof *types);
    CHECK(MPI_Type_get_contents_c(t, ni, na, nc, nd, ints, NULL, large, types) == MPI_SUCCESS,
          "%s contents_c", what);
    CHECK(nc == 0 || large[0] != 0 || want_combiner == MPI_COMBINER_RESIZED, "%s", what);
    for (MPI_Count i = 0; i < nd; i++) {
        int ni2, na2, nd2, comb2;
        MPI_Type_get_envelope(types[i], &ni2, &na2, &nd2, &comb2);
        if (comb2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
    free(large);
    free(ints);
    free(types);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Type_get_envelope(t, &a, &b, &c, &d);
    /* MPICH 4.0.2 refuses it too, with MPI_ERR_OTHER. */
    CHECK(mt_class(rc) == MPI_ERR_TYPE || (mt_mpich_quirks() && rc != MPI_SUCCESS),
          "%s: int envelope of a _c type gave %s", what, mt_errstr(rc));
}

static void test_constructors(void)
{
    double buf[512];
    for (int i = 0; i < 512; i++)
        buf[i] = i * 1.5;
    MPI_Datatype a, b;
    MPI_Type_contiguous(3, MPI_DOUBLE, &a);
    MPI_Type_contiguous_c(3, MPI_DOUBLE, &b);
    large_envelope("contiguous_c", b, 0, 1, MPI_COMBINER_CONTIGUOUS);
    same_type("contiguous", a, b, buf);

    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &a);
    MPI_Type_vector_c(3, 2, 4, MPI_DOUBLE, &b);
    large_envelope("vector_c", b, 0, 3, MPI_COMBINER_VECTOR);
    same_type("vector", a, b, buf);

    MPI_Type_create_hvector(3, 2, 40, MPI_DOUBLE, &a);
    MPI_Type_create_hvector_c(3, 2, 40, MPI_DOUBLE, &b);
    large_envelope("hvector_c", b, 0, 3, MPI_COMBINER_HVECTOR);
    same_type("hvector", a, b, buf);

    int ilens[3] = {2, 1, 3}, idisp[3] = {0, 5, 9};
    MPI_Count clens[3] = {2, 1, 3}, cdisp[3] = {0, 5, 9};
    MPI_Aint adisp[3] = {0, 40, 72};
    MPI_Count cadisp[3] = {0, 40, 72};
    MPI_Type_indexed(3, ilens, idisp, MPI_DOUBLE, &a);
    MPI_Type_indexed_c(3, clens, cdisp, MPI_DOUBLE, &b);
    large_envelope("indexed_c", b, 0, 7, MPI_COMBINER_INDEXED);
    same_type("indexed", a, b, buf);

    MPI_Type_create_hindexed(3, ilens, adisp, MPI_DOUBLE, &a);
    MPI_Type_create_hindexed_c(3, clens, cadisp, MPI_DOUBLE, &b);
    large_envelope("hindexed_c", b, 0, 7, MPI_COMBINER_HINDEXED);
    same_type("hindexed", a, b, buf);

    MPI_Type_create_indexed_block(3, 2, idisp, MPI_DOUBLE, &a);
    MPI_Type_create_indexed_block_c(3, 2, cdisp, MPI_DOUBLE, &b);
    large_envelope("indexed_block_c", b, 0, 5, MPI_COMBINER_INDEXED_BLOCK);
    same_type("indexed_block", a, b, buf);

    MPI_Type_create_hindexed_block(3, 2, adisp, MPI_DOUBLE, &a);
    MPI_Type_create_hindexed_block_c(3, 2, cadisp, MPI_DOUBLE, &b);
    large_envelope("hindexed_block_c", b, 0, 5, MPI_COMBINER_HINDEXED_BLOCK);
    same_type("hindexed_block", a, b, buf);

    MPI_Datatype types[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
    MPI_Type_create_struct(3, ilens, adisp, types, &a);
    MPI_Type_create_struct_c(3, clens, cadisp, types, &b);
    large_envelope("struct_c", b, 0, 7, MPI_COMBINER_STRUCT);
    same_type("struct", a, b, buf);

    MPI_Type_create_resized(MPI_DOUBLE, -8, 24, &a);
    MPI_Type_create_resized_c(MPI_DOUBLE, -8, 24, &b);
    large_envelope("resized_c", b, 0, 2, MPI_COMBINER_RESIZED);
    same_type("resized", a, b, buf + 1);

    int isz[2] = {8, 6}, isub[2] = {3, 2}, ist[2] = {1, 2};
    MPI_Count csz[2] = {8, 6}, csub[2] = {3, 2}, cst[2] = {1, 2};
    MPI_Type_create_subarray(2, isz, isub, ist, MPI_ORDER_C, MPI_DOUBLE, &a);
    MPI_Type_create_subarray_c(2, csz, csub, cst, MPI_ORDER_C, MPI_DOUBLE, &b);
    large_envelope("subarray_c", b, 2, 6, MPI_COMBINER_SUBARRAY);
    same_type("subarray", a, b, buf);

    int igs[2] = {8, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
    MPI_Count cgs[2] = {8, 6};
    MPI_Type_create_darray(4, 3, 2, igs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_DOUBLE, &a);
    MPI_Type_create_darray_c(4, 3, 2, cgs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_DOUBLE, &b);
    large_envelope("darray_c", b, 10, 2, MPI_COMBINER_DARRAY);
    same_type("darray", a, b, buf);
}

static void expect_size(const char *what, MPI_Datatype t, MPI_Count size, MPI_Count extent)
{
    MPI_Count s, lb, ext;
    int small = 0;
    CHECK(MPI_Type_size_c(t, &s) == MPI_SUCCESS, "%s", what);
    CHECK(MPI_Type_get_extent_c(t, &lb, &ext) == MPI_SUCCESS, "%s", what);
    CHECK(s == size && ext == extent, "%s: size %lld (want %lld), extent %lld (want %lld)", what,
          (long long)s, (long long)size, (long long)ext, (long long)extent);
    CHECK(MPI_Type_size(t, &small) == MPI_SUCCESS, "%s Type_size", what);
    CHECK(small == (size > INT32_MAX ? MPI_UNDEFINED : (int)size), "%s: Type_size says %d", what,
          small);
    MPI_Datatype tt = t;
    MPI_Type_free(&tt);
}

static void test_big_types(void)
{
    MPI_Datatype t;
    CHECK(MPI_Type_contiguous_c(BIG, MPI_BYTE, &t) == MPI_SUCCESS, "contiguous_c");
    expect_size("contiguous_c 2^31+5", t, BIG, BIG);
    CHECK(MPI_Type_vector_c(BIG, 1, 2, MPI_BYTE, &t) == MPI_SUCCESS, "vector_c");
    expect_size("vector_c 2^31+5 blocks", t, BIG, 2 * BIG - 1);
    CHECK(MPI_Type_create_hvector_c(2, BIG, BIG + 3, MPI_BYTE, &t) == MPI_SUCCESS, "hvector_c");
    expect_size("hvector_c blocklength 2^31+5", t, 2 * BIG, 2 * BIG + 3);
    MPI_Count lens[2] = {BIG, 1}, disps[2] = {0, 3 * BIG};
    CHECK(MPI_Type_indexed_c(2, lens, disps, MPI_INT, &t) == MPI_SUCCESS, "indexed_c");
    expect_size("indexed_c", t, 4 * (BIG + 1), 4 * (3 * BIG + 1));
    CHECK(MPI_Type_create_hindexed_c(2, lens, disps, MPI_BYTE, &t) == MPI_SUCCESS, "hindexed_c");
    expect_size("hindexed_c", t, BIG + 1, 3 * BIG + 1);
    CHECK(MPI_Type_create_indexed_block_c(2, BIG, disps, MPI_BYTE, &t) == MPI_SUCCESS, "ib_c");
    expect_size("indexed_block_c", t, 2 * BIG, 4 * BIG);
    CHECK(MPI_Type_create_hindexed_block_c(2, BIG, disps, MPI_BYTE, &t) == MPI_SUCCESS, "hib_c");
    expect_size("hindexed_block_c", t, 2 * BIG, 4 * BIG);
    MPI_Datatype types[2] = {MPI_BYTE, MPI_BYTE};
    CHECK(MPI_Type_create_struct_c(2, lens, disps, types, &t) == MPI_SUCCESS, "struct_c");
    expect_size("struct_c", t, BIG + 1, 3 * BIG + 1);
    CHECK(MPI_Type_create_resized_c(MPI_BYTE, 0, BIG, &t) == MPI_SUCCESS, "resized_c");
    expect_size("resized_c", t, 1, BIG);
    MPI_Count sz[2] = {BIG, 4}, sub[2] = {BIG - 1, 2}, st[2] = {1, 1};
    CHECK(MPI_Type_create_subarray_c(2, sz, sub, st, MPI_ORDER_C, MPI_BYTE, &t) == MPI_SUCCESS,
          "subarray_c");
    expect_size("subarray_c", t, 2 * (BIG - 1), 4 * BIG);
    MPI_Count gs[1] = {2 * BIG};
    int dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {2};
    CHECK(MPI_Type_create_darray_c(2, 1, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_BYTE, &t) ==
              MPI_SUCCESS,
          "darray_c");
    expect_size("darray_c", t, BIG, 2 * BIG);

    /* A result the int form cannot hold. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Type_contiguous_c(1 << 20, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    int size = 0;
    int rc = MPI_Pack_size(4096, t, MPI_COMM_SELF, &size);
    /* MPICH 4.0.2 answers MPI_SUCCESS with a size that is not 2^32. */
    CHECK(mt_class(rc) == MPI_ERR_VALUE_TOO_LARGE || mt_mpich_quirks(),
          "Pack_size of 2^32 bytes gave %s", mt_errstr(rc));
    MPI_Count csize = 0;
    CHECK(MPI_Pack_size_c(4096, t, MPI_COMM_SELF, &csize) == MPI_SUCCESS, "Pack_size_c");
    CHECK(csize == (MPI_Count)1 << 32, "Pack_size_c says %lld", (long long)csize);
    MPI_Type_free(&t);
    /* Negative counts stay MPI_ERR_COUNT. */
    rc = MPI_Type_contiguous_c(-1, MPI_BYTE, &t);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "contiguous_c(-1) gave %s", mt_errstr(rc));
    rc = MPI_Send_c(NULL, -1, MPI_BYTE, 0, 0, MPI_COMM_SELF);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Send_c(-1) gave %s", mt_errstr(rc));
    rc = MPI_Bcast_c(NULL, -3, MPI_BYTE, 0, MPI_COMM_SELF);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Bcast_c(-3) gave %s", mt_errstr(rc));
    /* A bsend buffer an int cannot size (never touched, so never backed
     * by memory): the int detach says MPI_UNDEFINED, the _c one the size. */
    char *region = malloc((size_t)BIG);
    if (region != NULL) {
        void *back = NULL;
        int small = 0;
        MPI_Count wide = 0;
        CHECK(MPI_Buffer_attach_c(region, BIG) == MPI_SUCCESS, "Buffer_attach_c");
        CHECK(MPI_Buffer_detach(&back, &small) == MPI_SUCCESS, "Buffer_detach");
        CHECK(back == region && small == MPI_UNDEFINED, "Buffer_detach size %d", small);
        CHECK(MPI_Buffer_attach_c(region, BIG) == MPI_SUCCESS, "Buffer_attach_c");
        CHECK(MPI_Buffer_detach_c(&back, &wide) == MPI_SUCCESS, "Buffer_detach_c");
        CHECK(back == region && wide == BIG, "Buffer_detach_c size %lld", (long long)wide);
        free(region);
    }
}

static void test_pack(void)
{
    int data[40];
    for (int i = 0; i < 40; i++)
        data[i] = i * 7 - 3;
    MPI_Datatype v;
    MPI_Type_vector(5, 2, 4, MPI_INT, &v);
    MPI_Type_commit(&v);
    unsigned char a[512], b[512];
    int pos = 0, size = 0;
    MPI_Count cpos = 0, csize = 0;
    MPI_Pack_size(2, v, MPI_COMM_SELF, &size);
    MPI_Pack_size_c(2, v, MPI_COMM_SELF, &csize);
    CHECK(size == csize && size == 80, "Pack_size %d, _c %lld", size, (long long)csize);
    MPI_Pack(data, 2, v, a, sizeof a, &pos, MPI_COMM_SELF);
    MPI_Pack_c(data, 2, v, b, sizeof b, &cpos, MPI_COMM_SELF);
    CHECK(pos == 80 && cpos == 80 && memcmp(a, b, 80) == 0, "Pack_c differs");
    int out_a[40] = {0}, out_b[40] = {0};
    pos = 0;
    cpos = 0;
    MPI_Unpack(a, 80, &pos, out_a, 2, v, MPI_COMM_SELF);
    MPI_Unpack_c(b, 80, &cpos, out_b, 2, v, MPI_COMM_SELF);
    CHECK(pos == 80 && cpos == 80 && memcmp(out_a, out_b, sizeof out_a) == 0, "Unpack_c");
    CHECK(out_b[5] == data[5] && out_b[2] == 0, "Unpack_c placed %d, %d", out_b[5], out_b[2]);
    MPI_Aint esize = 0, apos = 0;
    MPI_Count cesize = 0, cepos = 0;
    MPI_Pack_external_size("external32", 2, v, &esize);
    MPI_Pack_external_size_c("external32", 2, v, &cesize);
    CHECK(esize == cesize && esize == 80, "Pack_external_size %ld, _c %lld", (long)esize,
          (long long)cesize);
    MPI_Pack_external("external32", data, 2, v, a, sizeof a, &apos);
    MPI_Pack_external_c("external32", data, 2, v, b, sizeof b, &cepos);
    CHECK(apos == 80 && cepos == 80 && memcmp(a, b, 80) == 0, "Pack_external_c differs");
    CHECK(b[7] == (unsigned char)data[1] && b[4] == 0, "external32 is big-endian");
    memset(out_a, 0, sizeof out_a);
    memset(out_b, 0, sizeof out_b);
    apos = 0;
    cepos = 0;
    MPI_Unpack_external("external32", a, 80, &apos, out_a, 2, v);
    MPI_Unpack_external_c("external32", b, 80, &cepos, out_b, 2, v);
    CHECK(memcmp(out_a, out_b, sizeof out_a) == 0 && out_b[9] == data[9], "Unpack_external_c");
    MPI_Type_free(&v);
}

static MPI_Count op_seen_len;

/* inout[i] = in[i] * 10 + inout[i]: order-sensitive, so a wrong pairing shows. */
static void op_mix_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type)
{
    op_seen_len = *len;
    const int *a = in;
    int *b = inout;
    CHECK(*type == MPI_INT, "op_mix_c: datatype 0x%x", (unsigned)*type);
    for (MPI_Count i = 0; i < *len; i++)
        b[i] = a[i] * 10 + b[i];
}

static void op_mix(void *in, void *inout, int *len, MPI_Datatype *type)
{
    MPI_Count n = *len;
    op_mix_c(in, inout, &n, type);
}

static void test_ops(void)
{
    enum { N = 100 };
    int in[N], x[N], y[N];
    for (int i = 0; i < N; i++) {
        in[i] = i;
        x[i] = y[i] = 1000 - i;
    }
    MPI_Op op, op_c;
    CHECK(MPI_Op_create(op_mix, 0, &op) == MPI_SUCCESS, "Op_create");
    CHECK(MPI_Op_create_c(op_mix_c, 0, &op_c) == MPI_SUCCESS, "Op_create_c");
    int commute = 1;
    MPI_Op_commutative(op_c, &commute);
    CHECK(commute == 0, "Op_create_c lost commute 0");
    CHECK(MPI_Reduce_local(in, x, N, MPI_INT, op) == MPI_SUCCESS, "Reduce_local");
    CHECK(MPI_Reduce_local_c(in, y, N, MPI_INT, op_c) == MPI_SUCCESS, "Reduce_local_c");
    CHECK(op_seen_len == N, "Op_create_c function got %lld elements", (long long)op_seen_len);
    CHECK(memcmp(x, y, sizeof x) == 0 && y[7] == 70 + 993, "Reduce_local_c: y[7] = %d", y[7]);
    for (int i = 0; i < N; i++)
        x[i] = y[i] = i;
    MPI_Reduce_local(in, x, N, MPI_INT, MPI_SUM);
    MPI_Reduce_local_c(in, y, N, MPI_INT, MPI_SUM);
    CHECK(memcmp(x, y, sizeof x) == 0 && y[9] == 18, "Reduce_local_c MPI_SUM");
    MPI_Op_free(&op);
    MPI_Op_free(&op_c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_constructors();
    test_big_types();
    test_pack();
    test_ops();
    printf("large_count_types: ok\n");
    MPI_Finalize();
    return 0;
}

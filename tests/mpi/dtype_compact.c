/* Derived datatypes cost what they describe, not what they count, and
 * every size and bound is checked:
 * - vectors, hvectors, indexed, struct, subarray and darray types of 10^8
 *   elements are created and committed with a flat heap (mallinfo2 before
 *   and after; under AddressSanitizer mallinfo2 reports nothing and only
 *   the address-space cap below bounds them), their size, extent and
 *   element counts exact;
 * - the same shapes at a size the machine can move (a quarter of a
 *   million nested copies, and a few elements of an indexed-of-struct
 *   type) go around a ring, every byte and every gap checked;
 * - MPI_Type_size, MPI_Get_count and MPI_Get_elements give MPI_UNDEFINED
 *   where the int cannot hold the value, the _x and _c forms the exact one;
 * - types whose size or extent overflows MPI_Aint (the INT_MAX vector of
 *   INT_MAX doubles, nested contiguous types, strides, displacements, a
 *   resize, a subarray) are refused with MPI_ERR_ARG.
 * Before the compact representation the first vector alone took 2.4 GB;
 * the address space is capped at 1 GB above the start so that such a
 * build fails fast (MPI_ERR_NO_MEM) instead of swapping. */
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/resource.h>

#include "mpitest.h"

#define HUGE_N 100000000 /* 10^8 */
#define HEAP_SLACK (64 * 1024)

static size_t heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

static void cap_address_space(void)
{
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    CHECK(f && fscanf(f, "%lu", &pages) == 1, "cannot read /proc/self/statm");
    fclose(f);
    struct rlimit r;
    getrlimit(RLIMIT_AS, &r);
    rlim_t want = (rlim_t)pages * 4096 + ((rlim_t)1 << 30);
    if (r.rlim_max == RLIM_INFINITY || want < r.rlim_max) {
        r.rlim_cur = want;
        setrlimit(RLIMIT_AS, &r);
    }
#endif
}

/* Creates (through make) and commits a type, checking the heap barely
 * moved and its size and extent. */
static MPI_Datatype huge_type(const char *what, int (*make)(MPI_Datatype *),
                              MPI_Count size, MPI_Count extent)
{
    MPI_Datatype t;
    size_t before = heap_in_use();
    int rc = make(&t);
    CHECK(rc == MPI_SUCCESS, "%s: error %d", what, rc);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS, "%s: commit", what);
    size_t after = heap_in_use();
    CHECK(after < before + HEAP_SLACK, "%s: the heap grew by %zu bytes", what,
          after - before);
    MPI_Count s, lb, ext;
    MPI_Type_size_x(t, &s);
    MPI_Type_get_extent_x(t, &lb, &ext);
    CHECK(s == size, "%s: size %lld, want %lld", what, (long long)s,
          (long long)size);
    CHECK(ext == extent, "%s: extent %lld, want %lld", what, (long long)ext,
          (long long)extent);
    return t;
}

static MPI_Datatype pair; /* two ints, one int apart: 12-byte extent */

static int make_vector(MPI_Datatype *t)
{
    return MPI_Type_vector(HUGE_N, 1, 2, MPI_INT, t);
}

static int make_hvector(MPI_Datatype *t)
{
    return MPI_Type_create_hvector(HUGE_N, 1, 36, pair, t);
}

static int make_indexed(MPI_Datatype *t)
{
    int lens[2] = {HUGE_N / 2, HUGE_N / 2}, disps[2] = {0, HUGE_N};
    return MPI_Type_indexed(2, lens, disps, pair, t);
}

static int make_struct(MPI_Datatype *t)
{
    MPI_Datatype wide; /* an int in 8 bytes */
    MPI_Type_create_resized(MPI_INT, 0, 8, &wide);
    int lens[2] = {HUGE_N, 1};
    MPI_Aint disps[2] = {0, (MPI_Aint)HUGE_N * 8};
    MPI_Datatype types[2] = {wide, MPI_DOUBLE};
    int rc = MPI_Type_create_struct(2, lens, disps, types, t);
    MPI_Type_free(&wide);
    return rc;
}

static int make_subarray(MPI_Datatype *t)
{
    int sizes[2] = {20000, 20000}, sub[2] = {10000, 10000}, starts[2] = {5, 7};
    return MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, t);
}

static int make_darray(MPI_Datatype *t)
{
    int gs[2] = {20000, 20000}, ds[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int da[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 2};
    return MPI_Type_create_darray(4, 3, 2, gs, ds, da, ps, MPI_ORDER_FORTRAN, MPI_INT, t);
}

static void check_huge_types(void)
{
    MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
    const MPI_Count n = HUGE_N;
    MPI_Datatype t[6];
    t[0] = huge_type("vector", make_vector, n * 4, (n - 1) * 8 + 4);
    t[1] = huge_type("hvector", make_hvector, n * 8, (n - 1) * 36 + 12);
    t[2] = huge_type("indexed", make_indexed, n * 8, (n + n / 2) * 12);
    t[3] = huge_type("struct", make_struct, n * 4 + 8, n * 8 + 8);
    t[4] = huge_type("subarray", make_subarray, n * 4, (MPI_Count)20000 * 20000 * 4);
    t[5] = huge_type("darray", make_darray, n * 4, (MPI_Count)20000 * 20000 * 4);
    /* Element counts of a received stream, computed without walking it. */
    MPI_Status st;
    MPI_Count elems;
    MPI_Status_set_elements_x(&st, t[1], 2 * n - 1);
    MPI_Get_elements_x(&st, t[1], &elems);
    CHECK(elems == 2 * n - 1, "hvector: %lld elements", (long long)elems);
    int count;
    MPI_Get_count(&st, t[1], &count);
    CHECK(count == MPI_UNDEFINED, "partial element: count %d", count);
    for (int i = 0; i < 6; i++)
        MPI_Type_free(&t[i]);
}

/* ---- moving compact types ---------------------------------------------- */

#define RING_N 250000 /* copies of pair: 2 MB of data in a 9 MB span */

static int ring_value(int rank, long i) { return rank * 10000000 + (int)i; }

static void check_ring_vector(int rank, int next, int prev)
{
    MPI_Datatype v;
    MPI_Type_create_hvector(RING_N, 1, 36, pair, &v);
    MPI_Type_commit(&v);
    long span = (long)RING_N * 9; /* ints */
    int *src = malloc(span * sizeof(int)), *dst = malloc(span * sizeof(int));
    CHECK(src && dst, "out of memory");
    for (long i = 0; i < span; i++) {
        src[i] = ring_value(rank, i);
        dst[i] = -1;
    }
    MPI_Status st;
    MPI_Sendrecv(src, 1, v, next, 5, dst, 1, v, prev, 5, MPI_COMM_WORLD, &st);
    MPI_Count elems;
    MPI_Get_elements_x(&st, MPI_INT, &elems);
    CHECK(elems == 2 * RING_N, "%lld ints arrived", (long long)elems);
    for (long i = 0; i < span; i++) {
        int in_type = i % 9 == 0 || i % 9 == 2;
        int want = in_type ? ring_value(prev, i) : -1;
        CHECK(dst[i] == want, "dst[%ld] = %d, want %d", i, dst[i], want);
    }
    free(src);
    free(dst);
    MPI_Type_free(&v);
}

/* Three elements of indexed-of-struct: the slices cross elements. */
static void check_ring_indexed(int rank, int next, int prev)
{
    MPI_Datatype s, x;
    int slen[2] = {1, 2};
    MPI_Aint sdisp[2] = {0, 8};
    MPI_Datatype stypes[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, slen, sdisp, stypes, &s); /* ints 0, 2, 3 */
    int lens[3] = {2, 1, 3}, disps[3] = {0, 3, 5};
    MPI_Type_indexed(3, lens, disps, s, &x); /* extent 8 structs of 16 B */
    MPI_Type_commit(&x);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(x, &lb, &ext);
    CHECK(lb == 0 && ext == 128, "indexed extent %ld", (long)ext);
    int src[96], dst[96];
    for (int i = 0; i < 96; i++) {
        src[i] = ring_value(rank, i);
        dst[i] = -1;
    }
    MPI_Sendrecv(src, 3, x, next, 6, dst, 3, x, prev, 6, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < 96; i++) {
        int strct = (i % 32) / 4, word = i % 4;
        int used = strct != 2 && strct != 4 && word != 1;
        int want = used ? ring_value(prev, i) : -1;
        CHECK(dst[i] == want, "dst[%d] = %d, want %d", i, dst[i], want);
    }
    MPI_Type_free(&s);
    MPI_Type_free(&x);
}

/* ---- int results that do not fit --------------------------------------- */

static void check_undefined_ints(void)
{
    MPI_Datatype big;
    CHECK(MPI_Type_contiguous(INT_MAX, MPI_DOUBLE, &big) == MPI_SUCCESS, "big");
    int size;
    MPI_Count size_x;
    CHECK(MPI_Type_size(big, &size) == MPI_SUCCESS && size == MPI_UNDEFINED,
          "MPI_Type_size %d", size);
    MPI_Type_size_x(big, &size_x);
    CHECK(size_x == (MPI_Count)INT_MAX * 8, "size_x %lld", (long long)size_x);
    MPI_Count size_c, lb_c, ext_c, tlb_c, text_c;
    MPI_Type_size_c(big, &size_c);
    MPI_Type_get_extent_c(big, &lb_c, &ext_c);
    MPI_Type_get_true_extent_c(big, &tlb_c, &text_c);
    CHECK(size_c == size_x && lb_c == 0 && ext_c == size_x && tlb_c == 0 &&
              text_c == size_x,
          "_c: size %lld, extent %lld %lld, true extent %lld %lld", (long long)size_c,
          (long long)lb_c, (long long)ext_c, (long long)tlb_c, (long long)text_c);
    MPI_Type_free(&big);
    MPI_Status st;
    const MPI_Count three_billion = 3000000000LL;
    MPI_Status_set_elements_x(&st, MPI_INT, three_billion);
    int count = 0, elems = 0;
    MPI_Count elems_x;
    CHECK(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS, "Get_count");
    CHECK(count == MPI_UNDEFINED, "MPI_Get_count %d", count);
    CHECK(MPI_Get_elements(&st, MPI_INT, &elems) == MPI_SUCCESS, "Get_elements");
    CHECK(elems == MPI_UNDEFINED, "MPI_Get_elements %d", elems);
    MPI_Get_elements_x(&st, MPI_INT, &elems_x);
    CHECK(elems_x == three_billion, "MPI_Get_elements_x %lld", (long long)elems_x);
    MPI_Count count_c = 0, elems_c = 0;
    MPI_Get_count_c(&st, MPI_INT, &count_c);
    MPI_Get_elements_c(&st, MPI_INT, &elems_c);
    CHECK(count_c == three_billion && elems_c == three_billion,
          "MPI_Get_count_c %lld, MPI_Get_elements_c %lld", (long long)count_c,
          (long long)elems_c);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == MPI_UNDEFINED, "bytes: MPI_Get_count %d", count);
}

/* ---- overflow refused -------------------------------------------------- */

static void expect_too_large(const char *what, int rc, MPI_Datatype *t)
{
    const char *text = mt_errstr(rc);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "%s: error class %d (%s), want MPI_ERR_ARG",
          what, mt_class(rc), text);
    CHECK(strstr(text, "argument") != NULL, "%s: error string \"%s\"", what, text);
    if (rc == MPI_SUCCESS)
        MPI_Type_free(t);
}

static void check_overflow_refused(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, inner;
    expect_too_large("INT_MAX vector of INT_MAX doubles",
                     MPI_Type_vector(INT_MAX, INT_MAX, INT_MAX, MPI_DOUBLE, &t), &t);
    MPI_Type_contiguous(INT_MAX, MPI_DOUBLE, &inner);
    expect_too_large("contiguous of a 16 GiB contiguous",
                     MPI_Type_contiguous(INT_MAX, inner, &t), &t);
    expect_too_large("vector of a 16 GiB contiguous",
                     MPI_Type_vector(1000000000, 1, 1, inner, &t), &t);
    MPI_Type_free(&inner);
    expect_too_large("hvector stride",
                     MPI_Type_create_hvector(3, 1, LONG_MAX / 2, MPI_INT, &t), &t);
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {0, LONG_MAX - 2};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    expect_too_large("struct displacement",
                     MPI_Type_create_struct(2, lens, disps, types, &t), &t);
    expect_too_large("resized", MPI_Type_create_resized(MPI_INT, LONG_MAX, 10, &t), &t);
    int sizes[3] = {INT_MAX, INT_MAX, INT_MAX}, sub[3] = {1, 1, 1}, starts[3] = {0, 0, 0};
    expect_too_large("subarray", MPI_Type_create_subarray(3, sizes, sub, starts,
                                                          MPI_ORDER_C, MPI_DOUBLE, &t), &t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* Type constructors report to COMM_SELF's or COMM_WORLD's handler. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    cap_address_space();
    check_huge_types();
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    check_ring_vector(rank, next, prev);
    check_ring_indexed(rank, next, prev);
    check_undefined_ints();
    check_overflow_refused();
    MPI_Type_free(&pair);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dtype_compact: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}

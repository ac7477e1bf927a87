/* Data representations.
 *  - external32: ints, shorts, doubles and longs written through an
 *    external32 view land in the file as the standard's big-endian bytes
 *    (compared with literal reference bytes; MPI_LONG is 4 bytes there),
 *    the same bytes MPI_Pack_external gives, and read back through the
 *    view as the values written.
 *  - external32 views whose types change width there (MPI-4.0 14.5): etype
 *    MPI_LONG and a filetype vector of 3 longs with stride 2 lay the longs
 *    4 bytes apart in 8-byte steps, an hvector's byte stride (10) is kept
 *    as given, a struct of a long and an int at byte 4 is 8 bytes, and
 *    MPI_File_get_type_extent gives those file extents; bytes compared.
 *  - MPI_Register_datarep: a representation whose conversion functions
 *    store each int plus 1000 is called on write and read (file bytes and
 *    values checked); registering the name again is MPI_ERR_DUP_DATAREP;
 *    one registered with MPI_CONVERSION_FN_NULL stores the native bytes. */
#include <fcntl.h>
#include <unistd.h>

#include "../mpi/mpitest.h"

static int plus_write(void *user, MPI_Datatype t, int count, void *file, MPI_Offset pos,
                      void *extra)
{
    (void)t;
    (void)pos;
    ++*(int *)extra;
    for (int i = 0; i < count; i++)
        ((int *)file)[i] = ((int *)user)[i] + 1000;
    return MPI_SUCCESS;
}

static int plus_read(void *user, MPI_Datatype t, int count, void *file, MPI_Offset pos,
                     void *extra)
{
    (void)t;
    (void)pos;
    ++*(int *)extra;
    for (int i = 0; i < count; i++)
        ((int *)user)[i] = ((int *)file)[i] - 1000;
    return MPI_SUCCESS;
}

static int plus_extent(MPI_Datatype t, MPI_Aint *ext, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(t, &lb, ext);
}

static void read_raw(const char *path, unsigned char *out, size_t n)
{
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open %s", path);
    ssize_t got = read(fd, out, n + 1);
    close(fd);
    CHECK(got == (ssize_t)n, "file has %zd bytes, want %zu", got, n);
}

static void external32(const char *path)
{
    static const unsigned char want[] = {
        0x01, 0x02, 0x03, 0x04, 0xff, 0xff, 0xff, 0xfe,             /* ints */
        0x12, 0x34, 0xff, 0x80,                                     /* shorts */
        0x3f, 0xf8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* 1.5 */
        0xc0, 0x24, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* -10.0 */
        0x00, 0x00, 0x00, 0x07, 0xff, 0xff, 0xff, 0xf9};            /* longs */
    int ints[2] = {0x01020304, -2};
    short shorts[2] = {0x1234, -128};
    double dbl[2] = {1.5, -10.0};
    long longs[2] = {7, -7};
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                           &fh);
    CHECK(rc == MPI_SUCCESS, "open: %s", mt_errstr(rc));
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS, "external32 view: %s", mt_errstr(rc));
    MPI_File_write(fh, ints, 2, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_write(fh, shorts, 2, MPI_SHORT, MPI_STATUS_IGNORE);
    MPI_File_write(fh, dbl, 2, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_Status st;
    rc = MPI_File_write(fh, longs, 2, MPI_LONG, &st);
    CHECK(rc == MPI_SUCCESS && mt_status_count(&st, MPI_LONG) == 2, "write longs: %s",
          mt_errstr(rc));
    MPI_Aint ext = 0;
    MPI_File_get_type_extent(fh, MPI_LONG, &ext);
    CHECK(ext == 4, "external32 extent of MPI_LONG is %ld", (long)ext);
    MPI_File_sync(fh);
    unsigned char raw[sizeof want];
    read_raw(path, raw, sizeof want);
    for (size_t i = 0; i < sizeof want; i++)
        CHECK(raw[i] == want[i], "external32 byte %zu is 0x%02x, want 0x%02x", i, raw[i], want[i]);
    /* The one encoder: MPI_Pack_external agrees. */
    unsigned char packed[8];
    MPI_Aint pos = 0;
    MPI_Pack_external("external32", dbl, 1, MPI_DOUBLE, packed, sizeof packed, &pos);
    CHECK(pos == 8 && !memcmp(packed, want + 12, 8), "MPI_Pack_external differs");
    /* Read back through the view. */
    int ri[2];
    short rs[2];
    double rd[2];
    long rl[2];
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    MPI_File_read(fh, ri, 2, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_read(fh, rs, 2, MPI_SHORT, MPI_STATUS_IGNORE);
    MPI_File_read(fh, rd, 2, MPI_DOUBLE, MPI_STATUS_IGNORE);
    rc = MPI_File_read(fh, rl, 2, MPI_LONG, &st);
    CHECK(rc == MPI_SUCCESS && mt_status_count(&st, MPI_LONG) == 2, "read longs");
    CHECK(ri[0] == ints[0] && ri[1] == ints[1] && rs[0] == shorts[0] && rs[1] == shorts[1] &&
              rd[0] == dbl[0] && rd[1] == dbl[1] && rl[0] == 7 && rl[1] == -7,
          "external32 values read back differ");
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft;
    MPI_File_get_view(fh, &disp, &et, &ft, rep);
    CHECK(!strcmp(rep, "external32"), "get_view rep %s", rep);
    MPI_File_close(&fh);
    MPI_File_delete(path, MPI_INFO_NULL);
}

/* A view of ft (etype MPI_LONG or the struct's) written with vals:
 * checks the file's extent of ft and its bytes against want. */
static void ext32_view(const char *path, MPI_Datatype etype, MPI_Datatype ft, MPI_Aint want_ext,
                       const void *vals, int n, MPI_Datatype mtype, const unsigned char *want,
                       size_t nwant)
{
    MPI_File fh;
    MPI_File_delete(path, MPI_INFO_NULL);
    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    int rc = MPI_File_set_view(fh, 0, etype, ft, "external32", MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS, "external32 view of longs: %s", mt_errstr(rc));
    MPI_Aint ext = 0;
    MPI_File_get_type_extent(fh, ft, &ext);
    CHECK(ext == want_ext, "file extent %ld, want %ld", (long)ext, (long)want_ext);
    MPI_Status st;
    rc = MPI_File_write(fh, vals, n, mtype, &st);
    CHECK(rc == MPI_SUCCESS && mt_status_count(&st, mtype) == n, "write: %s", mt_errstr(rc));
    MPI_File_sync(fh);
    unsigned char raw[64];
    read_raw(path, raw, nwant);
    for (size_t i = 0; i < nwant; i++)
        CHECK(raw[i] == want[i], "byte %zu is 0x%02x, want 0x%02x", i, raw[i], want[i]);
    long back[8] = {0};
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    rc = MPI_File_read(fh, back, n, mtype, &st);
    CHECK(rc == MPI_SUCCESS && !memcmp(back, vals, (size_t)n * (mtype == MPI_LONG ? sizeof(long) : 16)),
          "read back through the view: %s", mt_errstr(rc));
    MPI_File_close(&fh);
    MPI_File_delete(path, MPI_INFO_NULL);
}

static void external32_widths(const char *path)
{
    long vals[3] = {1, -2, 0x01020304};
    /* vector(3, 1, 2) of MPI_LONG: longs at 0, 8, 16, extent 20. */
    static const unsigned char vec[] = {0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe,
                                        0, 0, 0, 0, 1, 2, 3, 4};
    MPI_Datatype v, hv, st;
    MPI_Type_vector(3, 1, 2, MPI_LONG, &v);
    MPI_Type_commit(&v);
    ext32_view(path, MPI_LONG, v, 20, vals, 3, MPI_LONG, vec, sizeof vec);
    /* hvector(3, 1, 10 bytes) of MPI_LONG: longs at 0, 10, 20. */
    static const unsigned char hvec[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe,
                                         0, 0, 0, 0, 0, 0, 1, 2, 3, 4};
    MPI_Type_create_hvector(3, 1, 10, MPI_LONG, &hv);
    MPI_Type_commit(&hv);
    ext32_view(path, MPI_LONG, hv, 24, vals, 3, MPI_LONG, hvec, sizeof hvec);
    /* struct {long at 0, int at 4}: 8 bytes in the file; two of them. */
    struct { long l; int i; } mem[2];
    memset(mem, 0, sizeof mem); /* the padding too: compared below */
    mem[0].l = 5, mem[0].i = 6, mem[1].l = -5, mem[1].i = -6;
    int bl[2] = {1, 1};
    MPI_Aint fdisp[2] = {0, 4}, mdisp[2] = {offsetof(struct { long l; int i; }, l), sizeof(long)};
    MPI_Datatype types[2] = {MPI_LONG, MPI_INT}, mt;
    MPI_Type_create_struct(2, bl, fdisp, types, &st);
    MPI_Type_commit(&st);
    MPI_Type_create_struct(2, bl, mdisp, types, &mt);
    MPI_Type_commit(&mt);
    static const unsigned char sw[] = {0, 0, 0, 5, 0, 0, 0, 6, 0xff, 0xff, 0xff, 0xfb,
                                       0xff, 0xff, 0xff, 0xfa};
    ext32_view(path, st, st, 8, mem, 2, mt, sw, sizeof sw);
    MPI_Type_free(&v);
    MPI_Type_free(&hv);
    MPI_Type_free(&st);
    MPI_Type_free(&mt);
}

static void registered(const char *path)
{
    int calls = 0;
    int rc = MPI_Register_datarep("hcmpi-plus1000", plus_read, plus_write, plus_extent, &calls);
    CHECK(rc == MPI_SUCCESS, "register: %s", mt_errstr(rc));
    rc = MPI_Register_datarep("hcmpi-plus1000", plus_read, plus_write, plus_extent, &calls);
    CHECK(mt_class(rc) == MPI_ERR_DUP_DATAREP, "second register gave %s", mt_errstr(rc));
    MPI_File fh;
    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "hcmpi-plus1000", MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS, "view: %s", mt_errstr(rc));
    int v[3] = {1, 2, 3}, r[3] = {0, 0, 0};
    MPI_File_write_at(fh, 0, v, 3, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(calls == 1, "write conversion called %d times", calls);
    MPI_File_sync(fh);
    int raw[3];
    read_raw(path, (unsigned char *)raw, sizeof raw);
    CHECK(raw[0] == 1001 && raw[1] == 1002 && raw[2] == 1003, "file holds %d %d %d", raw[0],
          raw[1], raw[2]);
    MPI_File_read_at(fh, 0, r, 3, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(calls == 2 && r[0] == 1 && r[1] == 2 && r[2] == 3, "read back %d %d %d", r[0], r[1],
          r[2]);
    /* MPI_CONVERSION_FN_NULL: the native bytes, the functions unused. */
    rc = MPI_Register_datarep("hcmpi-asis", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                              plus_extent, &calls);
    CHECK(rc == MPI_SUCCESS, "register as-is: %s", mt_errstr(rc));
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "hcmpi-asis", MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS, "as-is view: %s", mt_errstr(rc));
    MPI_File_write_at(fh, 0, v, 3, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    read_raw(path, (unsigned char *)raw, sizeof raw);
    CHECK(raw[0] == 1 && raw[1] == 2 && raw[2] == 3, "as-is file holds %d %d %d", raw[0],
          raw[1], raw[2]);
    MPI_File_read_at(fh, 0, r, 3, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(calls == 2 && r[0] == 1 && r[2] == 3, "as-is read back");
    MPI_File_close(&fh);
    MPI_File_delete(path, MPI_INFO_NULL);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[256];
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, sizeof path, "%s/hcmpi_io_ext32.%d.%d", dir, (int)getpid(), rank);
    external32(path);
    external32_widths(path);
    registered(path);
    if (rank == 0)
        printf("io_ext32: external32 bytes and a registered representation: ok\n");
    MPI_Finalize();
    return 0;
}

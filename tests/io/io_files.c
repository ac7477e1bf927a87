/* Files as objects: open/close/delete, sizes, amode, group, hints kept and
 * returned by get_info, atomicity, byte offsets and type extents, the
 * Fortran handle, file error handlers (MPI_ERRORS_RETURN by default on
 * MPI_FILE_NULL, a user handler called with the class, call_errhandler),
 * and the error classes of bad input: a missing file without CREATE,
 * RDONLY|WRONLY, EXCL on an existing file, writing a read-only file,
 * reading a write-only one, a filetype with a negative, decreasing or (in
 * a file that may be written) overlapping displacement (MPI_ERR_IO, as
 * MPICH's ROMIO gives) or not a whole number of etypes (MPI_ERR_TYPE), a
 * bad datarep, and, when the scenario
 * passes IO_SMALL_FS (a small tmpfs mounted by root), a full disk.  A
 * file's own communicator makes no shared-memory collective segment. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../mpi/mpitest.h"

static int rank, nprocs;
static char path[256];
static int handler_calls, handler_class;

static void on_file_error(MPI_File *fh, int *code, ...)
{
    (void)fh;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

#define EXPECT_CLASS(call, cls)                                                          \
    do {                                                                                 \
        int rc_ = (call);                                                                \
        CHECK(mt_class(rc_) == (cls), "%s gave %s, want class %d", #call, mt_errstr(rc_), \
              (cls));                                                                    \
    } while (0)

static void bad_opens(void)
{
    MPI_File fh = MPI_FILE_NULL;
    char missing[300];
    snprintf(missing, sizeof missing, "%s.missing", path);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                 MPI_ERR_NO_SUCH_FILE);
    CHECK(fh == MPI_FILE_NULL, "failed open set the handle");
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_WRONLY,
                               MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE,
                               MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE);
    /* The file exists (made by main): EXCL must refuse it on every rank. */
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path,
                               MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, MPI_INFO_NULL,
                               &fh),
                 MPI_ERR_FILE_EXISTS);
    int n = 0;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_string(MPI_ERR_NO_SUCH_FILE, msg, &n);
    CHECK(n > 0 && strstr(msg, "MPI_ERR_NO_SUCH_FILE"), "error string: %s", msg);
}

static void bad_access(void)
{
    MPI_File fh;
    int x = 7;
    MPI_Status st;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS,
          "open rdonly");
    EXPECT_CLASS(MPI_File_write_at(fh, 0, &x, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    EXPECT_CLASS(MPI_File_set_size(fh, 0), MPI_ERR_READ_ONLY);
    /* Filetypes: a negative displacement, and 6 bytes of data for 4-byte
     * etypes. */
    MPI_Datatype neg, odd;
    int bl = 1, dneg = -1;
    MPI_Type_indexed(1, &bl, &dneg, MPI_INT, &neg);
    MPI_Type_commit(&neg);
    MPI_Type_contiguous(6, MPI_BYTE, &odd);
    MPI_Type_commit(&odd);
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, neg, "native", MPI_INFO_NULL),
                 MPI_ERR_IO);
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, odd, "native", MPI_INFO_NULL),
                 MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL),
                 MPI_ERR_UNSUPPORTED_DATAREP);
    /* Overlapping runs are fine on a read-only file (MPICH's
     * tst_fileview): ints 0-2 then int 1 again. */
    MPI_Datatype over;
    int obl[2] = {3, 1}, odisp[2] = {0, 1};
    MPI_Type_indexed(2, obl, odisp, MPI_INT, &over);
    MPI_Type_commit(&over);
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, over, "native", MPI_INFO_NULL) == MPI_SUCCESS,
          "overlapping filetype refused on a read-only file");
    int four[4], raw[4];
    memcpy(raw, "0123456789abcdef", 16);
    CHECK(MPI_File_read_at(fh, 0, four, 4, MPI_INT, &st) == MPI_SUCCESS, "overlap read");
    CHECK(four[0] == raw[0] && four[1] == raw[1] && four[2] == raw[2] && four[3] == raw[1],
          "overlapping view read the wrong ints");
    /* Runs that go back are refused even there. */
    int dbl[2] = {1, 1}, ddisp[2] = {3, 0};
    MPI_Datatype back;
    MPI_Type_indexed(2, dbl, ddisp, MPI_INT, &back);
    MPI_Type_commit(&back);
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, back, "native", MPI_INFO_NULL),
                 MPI_ERR_IO);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    EXPECT_CLASS(MPI_File_read_at(fh, 0, &x, -1, MPI_INT, &st), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_File_read_at(fh, 0, &x, 1, MPI_DATATYPE_NULL, &st), MPI_ERR_TYPE);
    MPI_Type_free(&neg);
    MPI_Type_free(&odd);
    MPI_File_close(&fh);
    /* On a file that may be written, overlapping runs are refused. */
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh) == MPI_SUCCESS,
          "open rdwr");
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, over, "native", MPI_INFO_NULL),
                 MPI_ERR_IO);
    /* The same filetype as the etype too (tst_fileview's etype cases). */
    EXPECT_CLASS(MPI_File_set_view(fh, 0, over, over, "native", MPI_INFO_NULL),
                 MPI_ERR_IO);
    MPI_File_close(&fh);
    MPI_Type_free(&over);
    MPI_Type_free(&back);
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS,
          "open wronly");
    EXPECT_CLASS(MPI_File_read_at(fh, 0, &x, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    MPI_File_close(&fh);
    /* A closed or null handle. */
    EXPECT_CLASS(MPI_File_get_size(MPI_FILE_NULL, &(MPI_Offset){0}), MPI_ERR_FILE);
}

static void handlers(void)
{
    MPI_Errhandler eh, got;
    MPI_File fh;
    CHECK(MPI_File_get_errhandler(MPI_FILE_NULL, &got) == MPI_SUCCESS, "get on FILE_NULL");
    CHECK(got == MPI_ERRORS_RETURN, "default file handler is 0x%x, want MPI_ERRORS_RETURN",
          (unsigned)got);
    MPI_File_create_errhandler(on_file_error, &eh);
    /* A file handler on MPI_FILE_NULL catches failed opens. */
    MPI_File_set_errhandler(MPI_FILE_NULL, eh);
    handler_calls = 0;
    char missing[300];
    snprintf(missing, sizeof missing, "%s.missing", path);
    MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_NO_SUCH_FILE,
          "handler on FILE_NULL: %d calls, class %d", handler_calls, handler_class);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    /* A new file gets FILE_NULL's handler; a set one is called. */
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS,
          "open");
    MPI_File_get_errhandler(fh, &got);
    CHECK(got == MPI_ERRORS_RETURN, "new file's handler 0x%x", (unsigned)got);
    MPI_File_set_errhandler(fh, eh);
    handler_calls = 0;
    int x = 0;
    MPI_File_write_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_READ_ONLY,
          "file handler: %d calls, class %d", handler_calls, handler_class);
    MPI_File_call_errhandler(fh, MPI_ERR_IO);
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_IO, "call_errhandler: %d calls, class %d",
          handler_calls, handler_class);
    /* A file handler is not a communicator handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(mt_class(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)) == MT_ERR_ERRHANDLER,
          "file handler accepted on a communicator");
    MPI_File_close(&fh);
    MPI_Errhandler_free(&eh);
}

static void objects(void)
{
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "65536");
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "hcmpi_test_key", "kept");
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info,
                           &fh);
    CHECK(rc == MPI_SUCCESS, "open rdwr: %s", mt_errstr(rc));
    MPI_Info_free(&info);
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_File_get_info(fh, &used);
    MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag && !strcmp(v, "65536"), "cb_buffer_size %s", flag ? v : "(none)");
    MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag && !strcmp(v, "1"), "cb_nodes %s", flag ? v : "(none)");
    MPI_Info_get(used, "hcmpi_test_key", MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag && !strcmp(v, "kept"), "unknown hint not kept");
    MPI_Info_free(&used);

    int amode = 0, flagv = -1;
    MPI_File_get_amode(fh, &amode);
    CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE), "amode 0x%x", (unsigned)amode);
    MPI_Group g, wg;
    int cmp;
    MPI_File_get_group(fh, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "group differs from the communicator's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_File_set_atomicity(fh, 1);
    MPI_File_get_atomicity(fh, &flagv);
    CHECK(flagv == 1, "atomicity %d", flagv);
    MPI_File_set_atomicity(fh, 0);

    /* Each size is read by every rank before any rank changes it again
     * (the barriers): set_size itself only orders the change before its
     * return on each rank. */
    MPI_Offset size = -1;
    CHECK(MPI_File_set_size(fh, 1000) == MPI_SUCCESS, "set_size");
    MPI_File_get_size(fh, &size);
    CHECK(size == 1000, "size %ld after set_size 1000", (long)size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_preallocate(fh, 500); /* never shrinks */
    MPI_File_get_size(fh, &size);
    CHECK(size == 1000, "size %ld after preallocate 500", (long)size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_preallocate(fh, 4096);
    MPI_File_get_size(fh, &size);
    CHECK(size == 4096, "size %ld after preallocate 4096", (long)size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_set_size(fh, 10);
    MPI_File_get_size(fh, &size);
    CHECK(size == 10, "size %ld after shrinking to 10", (long)size);

    /* Byte offsets and extents of a strided view: blocks of 2 doubles
     * every 5 doubles from byte 100. */
    MPI_Datatype two, ft;
    MPI_Type_contiguous(2, MPI_DOUBLE, &two);
    MPI_Type_create_resized(two, 0, 40, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, 100, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_Offset byte = -1;
    MPI_File_get_byte_offset(fh, 3, &byte);
    CHECK(byte == 100 + 40 + 8, "byte offset of etype 3: %ld", (long)byte);
    MPI_Aint ext = 0;
    MPI_File_get_type_extent(fh, ft, &ext);
    CHECK(ext == 40, "file extent %ld", (long)ext);
    MPI_Offset disp;
    MPI_Datatype et, gft;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &et, &gft, rep);
    int s1, s2;
    MPI_Type_size(gft, &s1);
    MPI_Type_size(ft, &s2);
    CHECK(disp == 100 && et == MPI_DOUBLE && s1 == s2 && !strcmp(rep, "native"),
          "get_view: disp %ld rep %s", (long)disp, rep);
    MPI_Type_free(&gft);
    MPI_Type_free(&ft);
    MPI_Type_free(&two);

    MPI_Fint f = MPI_File_c2f(fh);
    CHECK(f != 0 && MPI_File_f2c(f) == fh, "c2f/f2c round trip");
    CHECK(MPI_File_f2c(0) == MPI_FILE_NULL && MPI_File_c2f(MPI_FILE_NULL) == 0,
          "null Fortran handle");
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS && fh == MPI_FILE_NULL, "close");
    MPI_Barrier(MPI_COMM_WORLD);
    struct stat sb;
    CHECK(stat(path, &sb) != 0 && errno == ENOENT, "DELETE_ON_CLOSE left the file");
}

/* ENOSPC from a write that fills a small tmpfs. */
static void full_disk(const char *dir)
{
    char p[300];
    MPI_File fh;
    snprintf(p, sizeof p, "%s/full", dir);
    int rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                           &fh);
    CHECK(rc == MPI_SUCCESS, "open on the small fs: %s", mt_errstr(rc));
    size_t n = 4 << 20; /* more than the file system holds */
    char *buf = mt_malloc(n);
    memset(buf, 1, n);
    rc = MPI_File_write_at(fh, (MPI_Offset)rank * n, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_NO_SPACE, "full disk gave %s", mt_errstr(rc));
    free(buf);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(p, MPI_INFO_NULL);
    if (rank == 0)
        printf("io_files: full disk -> MPI_ERR_NO_SPACE\n");
}

/* A file's own communicator runs its open, view, sync and close as
 * schedules: no shared-memory segment is made for it (one cost
 * milliseconds at every open), and those calls still agree (after the
 * sync every rank sees one size, past what each wrote). */
static void own_comm_segments(void)
{
    char own[300];
    snprintf(own, sizeof own, "%s.own", path);
    int before = mt_segments_mapped();
    for (int round = 0; round < 3; round++) {
        MPI_File f;
        CHECK(MPI_File_open(MPI_COMM_WORLD, own, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &f) == MPI_SUCCESS,
              "open, round %d", round);
        CHECK(MPI_File_set_view(f, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) ==
                  MPI_SUCCESS,
              "set_view, round %d", round);
        int x = round * 100 + rank;
        CHECK(MPI_File_write_at(f, 8 + rank, &x, 1, MPI_INT, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS,
              "write_at, round %d", round);
        CHECK(MPI_File_sync(f) == MPI_SUCCESS, "sync, round %d", round);
        MPI_Offset bytes = -1;
        CHECK(MPI_File_get_size(f, &bytes) == MPI_SUCCESS, "get_size, round %d", round);
        MPI_Offset least = bytes, most = bytes;
        MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_OFFSET, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_OFFSET, MPI_MAX, MPI_COMM_WORLD);
        CHECK(least == most && bytes >= (MPI_Offset)(8 + nprocs) * 4,
              "sizes %lld-%lld after round %d, want one size of at least %lld",
              (long long)least, (long long)most, round, (long long)(8 + nprocs) * 4);
        CHECK(mt_segments_mapped() == before, "an open file mapped %d more segments (round %d)",
              mt_segments_mapped() - before, round);
        CHECK(MPI_File_close(&f) == MPI_SUCCESS, "close, round %d", round);
    }
    CHECK(mt_segments_mapped() == before, "the files left %d more segments mapped",
          mt_segments_mapped() - before);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(MPI_File_delete(own, MPI_INFO_NULL) == MPI_SUCCESS, "deleting %s", own);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    if (rank == 0) {
        snprintf(path, sizeof path, "%s/hcmpi_io_files.%d", dir, (int)getpid());
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        CHECK(fd >= 0 && write(fd, "0123456789abcdef", 16) == 16, "making %s", path);
        close(fd);
    }
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    bad_opens();
    bad_access();
    handlers();
    objects();
    own_comm_segments();
    if (getenv("IO_SMALL_FS"))
        full_disk(getenv("IO_SMALL_FS"));
    char missing[300];
    snprintf(missing, sizeof missing, "%s.missing", path);
    if (rank == 0)
        EXPECT_CLASS(MPI_File_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    if (rank == 0)
        printf("io_files on %d ranks: ok\n", nprocs);
    MPI_Finalize();
    return 0;
}

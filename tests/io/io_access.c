/* Every MPI-IO data access family writes and reads a file through a
 * contiguous view (each rank its own block) and through an interleaved
 * derived filetype (blocks of B ints dealt round-robin to the ranks, with
 * a hole-making resized vector), from a contiguous and a strided memory
 * type.  The shared-pointer families (write_shared in rank order,
 * iwrite_shared, write_ordered, its split form) use one view for all
 * ranks: contiguous, or blocks of B ints with B-int holes left unwritten.  After each write, rank 0 reads the file with plain POSIX read()
 * and compares it byte for byte with the layout the view defines; then
 * the matching read family reads it back and the data and status counts
 * are compared.  Runs on any number of ranks (the scenario uses 1, 2, 4). */
#include <fcntl.h>
#include <unistd.h>

#include "iotest.h"

enum { N = 96, B = 3 }; /* ints per rank, ints per block */

enum family {
    F_AT, F_AT_ALL, F_PTR, F_ALL, F_IAT, F_IPTR, F_IALL, F_IAT_ALL,
    F_ALL_SPLIT, F_AT_ALL_SPLIT,
    /* The shared-pointer families use one view for all ranks. */
    F_SHARED, F_ISHARED, F_ORDERED, F_ORDERED_SPLIT, F_NFAMILIES
};
static const char *family_name[] = {"at", "at_all", "pointer", "all", "iat",
                                    "ipointer", "iall", "iat_all", "all_split",
                                    "at_all_split", "shared", "ishared", "ordered",
                                    "ordered_split"};

static int rank, nprocs;
static char path[256];

static int value(int r, int k, int fam) { return r * 100000 + k * 10 + fam; }

static int is_shared(int fam) { return fam >= F_SHARED; }

/* The file offset (in ints) of int k of rank r under the layout: each
 * rank its view, or (shared families) one view over the ranks' data in
 * rank order, blocks of B ints with a hole of B ints after each. */
static long file_index(int fam, int strided, int r, int k)
{
    long s = (long)r * N + k;
    if (is_shared(fam))
        return strided ? (s / B) * 2 * B + s % B : s;
    if (!strided)
        return s;
    return ((long)(k / B) * nprocs + r) * B + k % B;
}

static void set_view(MPI_File fh, int fam, int strided)
{
    MPI_Offset disp = is_shared(fam) ? 0 : (MPI_Offset)rank * (strided ? B : N) * 4;
    if (!strided) {
        CHECK(MPI_File_set_view(fh, disp, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) ==
                  MPI_SUCCESS,
              "contiguous view");
        return;
    }
    /* One block of B ints then a hole: the other ranks' blocks, or (one
     * shared view) B ints nobody writes. */
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(B, MPI_INT, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)B * (is_shared(fam) ? 2 : nprocs) * 4, &ft);
    MPI_Type_commit(&ft);
    CHECK(MPI_File_set_view(fh, disp, MPI_INT, ft, "native", MPI_INFO_NULL) == MPI_SUCCESS,
          "strided view");
    MPI_Type_free(&blk);
    MPI_Type_free(&ft);
}

/* The memory side: N ints, contiguous or every other int of 2N. */
static MPI_Datatype mem_type(int strided_mem)
{
    MPI_Datatype t = MPI_INT;
    if (strided_mem) {
        MPI_Type_vector(N, 1, 2, MPI_INT, &t);
        MPI_Type_commit(&t);
    }
    return t;
}

static void do_access(MPI_File fh, int fam, int write, int *buf, MPI_Datatype t, MPI_Status *st)
{
    int count = 1;
    MPI_Request req;
    if (t == MPI_INT)
        count = N;
    int rc;
    switch (fam) {
    case F_AT:
        rc = write ? MPI_File_write_at(fh, 0, buf, count, t, st)
                   : MPI_File_read_at(fh, 0, buf, count, t, st);
        break;
    case F_AT_ALL:
        rc = write ? MPI_File_write_at_all(fh, 0, buf, count, t, st)
                   : MPI_File_read_at_all(fh, 0, buf, count, t, st);
        break;
    case F_PTR:
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        rc = write ? MPI_File_write(fh, buf, count, t, st) : MPI_File_read(fh, buf, count, t, st);
        if (rc == MPI_SUCCESS) {
            MPI_Offset pos;
            MPI_File_get_position(fh, &pos);
            CHECK(pos == N, "individual pointer at %ld after %d ints", (long)pos, N);
        }
        break;
    case F_ALL:
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        rc = write ? MPI_File_write_all(fh, buf, count, t, st)
                   : MPI_File_read_all(fh, buf, count, t, st);
        break;
    case F_IAT:
    case F_IPTR:
    case F_IALL:
    case F_IAT_ALL:
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        if (fam == F_IAT)
            rc = write ? MPI_File_iwrite_at(fh, 0, buf, count, t, &req)
                       : MPI_File_iread_at(fh, 0, buf, count, t, &req);
        else if (fam == F_IPTR)
            rc = write ? MPI_File_iwrite(fh, buf, count, t, &req)
                       : MPI_File_iread(fh, buf, count, t, &req);
        else if (fam == F_IALL)
            rc = write ? MPI_File_iwrite_all(fh, buf, count, t, &req)
                       : MPI_File_iread_all(fh, buf, count, t, &req);
        else
            rc = write ? MPI_File_iwrite_at_all(fh, 0, buf, count, t, &req)
                       : MPI_File_iread_at_all(fh, 0, buf, count, t, &req);
        CHECK(rc == MPI_SUCCESS, "%s start: %s", family_name[fam], mt_errstr(rc));
        rc = MPI_Wait(&req, st);
        break;
    case F_ALL_SPLIT:
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        rc = write ? MPI_File_write_all_begin(fh, buf, count, t)
                   : MPI_File_read_all_begin(fh, buf, count, t);
        CHECK(rc == MPI_SUCCESS, "begin: %s", mt_errstr(rc));
        rc = write ? MPI_File_write_all_end(fh, buf, st) : MPI_File_read_all_end(fh, buf, st);
        break;
    case F_SHARED:
    case F_ISHARED:
        /* Rank by rank, so the shared pointer hands out places in rank
         * order. */
        MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
        rc = MPI_SUCCESS;
        for (int r = 0; r < nprocs; r++) {
            if (r == rank && fam == F_SHARED)
                rc = write ? MPI_File_write_shared(fh, buf, count, t, st)
                           : MPI_File_read_shared(fh, buf, count, t, st);
            if (r == rank && fam == F_ISHARED) {
                rc = write ? MPI_File_iwrite_shared(fh, buf, count, t, &req)
                           : MPI_File_iread_shared(fh, buf, count, t, &req);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Wait(&req, st);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        break;
    case F_ORDERED:
        MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
        rc = write ? MPI_File_write_ordered(fh, buf, count, t, st)
                   : MPI_File_read_ordered(fh, buf, count, t, st);
        break;
    case F_ORDERED_SPLIT:
        MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
        rc = write ? MPI_File_write_ordered_begin(fh, buf, count, t)
                   : MPI_File_read_ordered_begin(fh, buf, count, t);
        CHECK(rc == MPI_SUCCESS, "begin: %s", mt_errstr(rc));
        rc = write ? MPI_File_write_ordered_end(fh, buf, st)
                   : MPI_File_read_ordered_end(fh, buf, st);
        break;
    default:
        rc = write ? MPI_File_write_at_all_begin(fh, 0, buf, count, t)
                   : MPI_File_read_at_all_begin(fh, 0, buf, count, t);
        CHECK(rc == MPI_SUCCESS, "begin: %s", mt_errstr(rc));
        rc = write ? MPI_File_write_at_all_end(fh, buf, st) : MPI_File_read_at_all_end(fh, buf, st);
        break;
    }
    CHECK(rc == MPI_SUCCESS, "%s %s: %s", family_name[fam], write ? "write" : "read",
          mt_errstr(rc));
}

/* Rank 0 reads the whole file with POSIX and checks every int: each
 * rank's data where the view puts it, zeros in holes nobody wrote, and
 * nothing past the last int written. */
static void check_file(int fam, int strided)
{
    long total = file_index(fam, strided, nprocs - 1, N - 1) + 1;
    int *img = mt_malloc(sizeof(int) * (size_t)total);
    char *mine = calloc((size_t)total, 1);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && mine, "open %s", path);
    ssize_t got = read(fd, img, sizeof(int) * (size_t)total + 1);
    close(fd);
    const char *view = strided ? "strided" : "contig";
    CHECK(got == (ssize_t)(sizeof(int) * (size_t)total), "%s/%s: file has %zd bytes, want %zu",
          family_name[fam], view, got, sizeof(int) * (size_t)total);
    for (int r = 0; r < nprocs; r++)
        for (int k = 0; k < N; k++) {
            long at = file_index(fam, strided, r, k);
            mine[at] = 1;
            CHECK(img[at] == value(r, k, fam), "%s/%s: rank %d int %d at file int %ld is %d, want %d",
                  family_name[fam], view, r, k, at, img[at], value(r, k, fam));
        }
    for (long i = 0; i < total; i++)
        CHECK(mine[i] || img[i] == 0, "%s/%s: hole int %ld is %d", family_name[fam], view, i,
              img[i]);
    free(mine);
    free(img);
}

static void one_case(int fam, int strided, int strided_mem)
{
    MPI_File fh;
    int *buf = mt_malloc(sizeof(int) * 2 * N);
    MPI_Datatype t = mem_type(strided_mem);
    int stride = strided_mem ? 2 : 1;
    for (int k = 0; k < 2 * N; k++)
        buf[k] = -1;
    for (int k = 0; k < N; k++)
        buf[k * stride] = value(rank, k, fam);
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "open: %s", mt_errstr(rc));
    set_view(fh, fam, strided);
    MPI_Status st;
    do_access(fh, fam, 1, buf, t, &st);
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == N, "%s write status count %d, want %d", family_name[fam], n, N);
    MPI_File_sync(fh);
    if (rank == 0)
        check_file(fam, strided);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 2 * N; k++)
        buf[k] = -7;
    do_access(fh, fam, 0, buf, t, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == N, "%s read status count %d, want %d", family_name[fam], n, N);
    for (int k = 0; k < N; k++)
        CHECK(buf[k * stride] == value(rank, k, fam), "%s read int %d: %d, want %d",
              family_name[fam], k, buf[k * stride], value(rank, k, fam));
    if (strided_mem)
        for (int k = 0; k < N; k++)
            CHECK(buf[2 * k + 1] == -7, "%s read wrote into a memory hole at %d",
                  family_name[fam], 2 * k + 1);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    if (t != MPI_INT)
        MPI_Type_free(&t);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    io_test_path("hcmpi_io_access", path, sizeof path);
    for (int fam = 0; fam < F_NFAMILIES; fam++)
        for (int strided = 0; strided < 2; strided++)
            for (int sm = 0; sm < 2; sm++)
                one_case(fam, strided, sm);
    if (rank == 0)
        unlink(path);
    if (rank == 0)
        printf("io_access: %d families x 2 views x 2 memory types on %d ranks: ok\n",
               F_NFAMILIES, nprocs);
    MPI_Finalize();
    return 0;
}

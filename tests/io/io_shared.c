/* The shared file pointer is one pointer for all ranks of the file:
 *  - K write_shared calls per rank (records {rank, seq}) leave every
 *    record in the file exactly once and nothing else;
 *  - get_position_shared then says nprocs * K records on every rank;
 *  - write_ordered puts rank r's r + 1 records after them in rank order;
 *  - seek_shared back to 0 and read_shared until the end of the file:
 *    the ranks together read every record once (checked by rank 0);
 *  - read_ordered from 0 gives each rank the records at its place;
 *  - iwrite_shared / iread_shared and write/read_ordered_begin/end on an
 *    emptied file: each record once, the ordered ones in rank order;
 *  - with every rank on one node, the pointer's side file has no name in
 *    the directory once the file is open (nothing can be left behind). */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "iotest.h"

enum { K = 20 };

/* Entries of path's directory named ".<base>.hcmpi-shfp.*". */
static int side_files(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[256], prefix[300];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    snprintf(prefix, sizeof prefix, ".%s.hcmpi-shfp.", slash ? slash + 1 : path);
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    char path[256];
    io_test_path("hcmpi_io_shared", path, sizeof path);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path,
                           MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                           MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "open: %s", mt_errstr(rc));
    if (rank == 0)
        CHECK(side_files(path) == 0, "%d shared-pointer side files named beside %s",
              side_files(path), path);
    MPI_Datatype rec;
    MPI_Type_contiguous(2, MPI_INT, &rec);
    MPI_Type_commit(&rec);
    MPI_File_set_view(fh, 0, rec, rec, "native", MPI_INFO_NULL);
    for (int s = 0; s < K; s++) {
        int r[2] = {rank, s};
        rc = MPI_File_write_shared(fh, r, 1, rec, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "write_shared: %s", mt_errstr(rc));
    }
    MPI_File_sync(fh);
    MPI_Offset pos = -1;
    MPI_File_get_position_shared(fh, &pos);
    CHECK(pos == (MPI_Offset)nprocs * K, "shared pointer at %ld, want %d", (long)pos, nprocs * K);
    long total = (long)nprocs * K;
    if (rank == 0) {
        int *img = mt_malloc(sizeof(int) * 2 * (size_t)total);
        char *seen = calloc((size_t)total, 1);
        int fd = open(path, O_RDONLY);
        ssize_t got = read(fd, img, sizeof(int) * 2 * (size_t)total + 1);
        close(fd);
        CHECK(got == (ssize_t)(sizeof(int) * 2 * (size_t)total), "file has %zd bytes", got);
        for (long i = 0; i < total; i++) {
            int r = img[2 * i], s = img[2 * i + 1];
            CHECK(r >= 0 && r < nprocs && s >= 0 && s < K, "record %ld is {%d,%d}", i, r, s);
            CHECK(!seen[r * K + s], "record {%d,%d} twice", r, s);
            seen[r * K + s] = 1;
        }
        free(seen);
        free(img);
    }
    /* Ordered: rank r writes r + 1 records {100 + r, j}. */
    int mine = rank + 1, *out = mt_malloc(sizeof(int) * 2 * (size_t)mine);
    for (int j = 0; j < mine; j++)
        out[2 * j] = 100 + rank, out[2 * j + 1] = j;
    rc = MPI_File_write_ordered(fh, out, mine, rec, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "write_ordered: %s", mt_errstr(rc));
    free(out);
    MPI_File_sync(fh);
    long ordered = (long)nprocs * (nprocs + 1) / 2;
    if (rank == 0) {
        int *img = mt_malloc(sizeof(int) * 2 * (size_t)ordered);
        int fd = open(path, O_RDONLY);
        ssize_t got = pread(fd, img, sizeof(int) * 2 * (size_t)ordered + 1,
                            (off_t)(sizeof(int) * 2 * (size_t)total));
        close(fd);
        CHECK(got == (ssize_t)(sizeof(int) * 2 * (size_t)ordered), "ordered part %zd bytes", got);
        long i = 0;
        for (int r = 0; r < nprocs; r++)
            for (int j = 0; j <= r; j++, i++)
                CHECK(img[2 * i] == 100 + r && img[2 * i + 1] == j,
                      "ordered record %ld is {%d,%d}, want {%d,%d}", i, img[2 * i],
                      img[2 * i + 1], 100 + r, j);
        free(img);
    }
    /* Everyone reads with the shared pointer until the end. */
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    int *got = mt_malloc(sizeof(int) * 2 * (size_t)(total + ordered));
    int n = 0;
    for (;;) {
        MPI_Status st;
        rc = MPI_File_read_shared(fh, got + 2 * n, 1, rec, &st);
        CHECK(rc == MPI_SUCCESS, "read_shared: %s", mt_errstr(rc));
        if (mt_status_count(&st, rec) == 0)
            break;
        n++;
    }
    int *counts = mt_malloc(sizeof(int) * (size_t)nprocs), *displs = NULL, *all = NULL;
    int n2 = 2 * n;
    MPI_Gather(&n2, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        displs = mt_malloc(sizeof(int) * (size_t)nprocs);
        int sum = 0;
        for (int r = 0; r < nprocs; r++)
            displs[r] = sum, sum += counts[r];
        CHECK(sum == 2 * (total + ordered), "read_shared got %d records in all, want %ld",
              sum / 2, total + ordered);
        all = mt_malloc(sizeof(int) * (size_t)sum);
    }
    MPI_Gatherv(got, n2, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        char *seen = calloc((size_t)(total + ordered), 1);
        for (long i = 0; i < total + ordered; i++) {
            int r = all[2 * i], s = all[2 * i + 1];
            long idx = r < 100 ? (long)r * K + s : total + (long)(r - 100) * (r - 100 + 1) / 2 + s;
            CHECK(idx >= 0 && idx < total + ordered && !seen[idx], "record {%d,%d} read twice or bad",
                  r, s);
            seen[idx] = 1;
        }
        free(seen);
        free(all);
        free(displs);
    }
    /* read_ordered from the start: rank r gets its place in rank order. */
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    int two[4];
    rc = MPI_File_read_ordered(fh, two, 2, rec, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "read_ordered: %s", mt_errstr(rc));
    MPI_File_get_position_shared(fh, &pos);
    CHECK(pos == 2L * nprocs, "after read_ordered the pointer is %ld", (long)pos);
    /* Non-blocking shared and split ordered accesses on an emptied file:
     * iwrite_shared puts {200 + r, 0} somewhere in the first nprocs
     * records, write_ordered_begin/end {300 + r, 0} at place nprocs + r. */
    MPI_File_set_size(fh, 0);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_Request req;
    int one[2] = {200 + rank, 0};
    CHECK(MPI_File_iwrite_shared(fh, one, 1, rec, &req) == MPI_SUCCESS, "iwrite_shared");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD); /* every shared write before the ordered ones */
    int ord[2] = {300 + rank, 0};
    CHECK(MPI_File_write_ordered_begin(fh, ord, 1, rec) == MPI_SUCCESS, "write_ordered_begin");
    CHECK(MPI_File_write_ordered_end(fh, ord, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "write_ordered_end");
    MPI_File_sync(fh);
    if (rank == 0) {
        int *img = mt_malloc(sizeof(int) * 4 * (size_t)nprocs);
        char *seen = calloc((size_t)nprocs, 1);
        int fd = open(path, O_RDONLY);
        ssize_t n3 = read(fd, img, sizeof(int) * 4 * (size_t)nprocs + 1);
        close(fd);
        CHECK(n3 == (ssize_t)(sizeof(int) * 4 * (size_t)nprocs), "file has %zd bytes", n3);
        for (int i = 0; i < nprocs; i++) {
            int r = img[2 * i] - 200;
            CHECK(r >= 0 && r < nprocs && !seen[r] && img[2 * i + 1] == 0,
                  "iwrite_shared record %d is {%d,%d}", i, img[2 * i], img[2 * i + 1]);
            seen[r] = 1;
            CHECK(img[2 * (nprocs + i)] == 300 + i, "ordered record %d is %d", i,
                  img[2 * (nprocs + i)]);
        }
        free(seen);
        free(img);
    }
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_Status st2;
    CHECK(MPI_File_iread_shared(fh, one, 1, rec, &req) == MPI_SUCCESS, "iread_shared");
    MPI_Wait(&req, &st2);
    CHECK(mt_status_count(&st2, rec) == 1 && one[0] >= 200 && one[0] < 200 + nprocs,
          "iread_shared got {%d,%d}", one[0], one[1]);
    int *firsts = mt_malloc(sizeof(int) * (size_t)nprocs);
    MPI_Allgather(&one[0], 1, MPI_INT, firsts, 1, MPI_INT, MPI_COMM_WORLD);
    for (int a = 0; a < nprocs; a++)
        for (int b = a + 1; b < nprocs; b++)
            CHECK(firsts[a] != firsts[b], "ranks %d and %d both read record %d", a, b, firsts[a]);
    free(firsts);
    CHECK(MPI_File_read_ordered_begin(fh, ord, 1, rec) == MPI_SUCCESS, "read_ordered_begin");
    CHECK(MPI_File_read_ordered_end(fh, ord, &st2) == MPI_SUCCESS, "read_ordered_end");
    CHECK(ord[0] == 300 + rank && mt_status_count(&st2, rec) == 1,
          "read_ordered_begin/end gave %d", ord[0]);
    free(got);
    free(counts);
    MPI_Type_free(&rec);
    MPI_File_close(&fh);
    if (rank == 0)
        printf("io_shared on %d ranks: every record once: ok\n", nprocs);
    MPI_Finalize();
    return 0;
}

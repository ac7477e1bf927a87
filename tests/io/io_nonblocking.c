/* Independent non-blocking accesses, which move their bytes on the io
 * worker thread:
 *  - 16 iwrite_at requests in flight at once on disjoint blocks, completed
 *    by Waitall: the file is checked byte for byte by rank 0;
 *  - 16 iread_at into a strided memory type, freed before the Waitall
 *    that completes them: every status counts its ints, the data and the
 *    gaps are checked;
 *  - three iwrite calls on the individual pointer without waiting: the
 *    pointer has moved by all three at once, and the data lands in order;
 *  - an iread completed by an MPI_Test loop; an iread past the end of the
 *    file reads 0 ints; iwrite on a read-only file fails at the call with
 *    MPI_ERR_READ_ONLY and MPI_REQUEST_NULL;
 *  - 300 single-int iwrite_at in flight at once (more than the io_uring
 *    ring holds, so some wait in its queue), then 300 iread_at of them;
 *  - the path taken: where the kernel gives this process an io_uring and
 *    HCMPI_IO_URING is not 0, the accesses went on a ring (the process
 *    holds an io_uring descriptor); with HCMPI_IO_URING=0 it holds none. */
#include <dirent.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "iotest.h"

enum { NB = 16, M = 1000 };

static int rank, nprocs;

static int value(int r, int b, int k) { return r * 10000000 + b * 10000 + k; }

/* 1 when the kernel lets this process make an io_uring. */
static int kernel_has_uring(void)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    int fd = (int)syscall(__NR_io_uring_setup, 4, &p);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* Descriptors of this process that are io_uring instances. */
static int uring_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char link[300], target[64];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(link, target, sizeof target - 1);
        if (len > 0) {
            target[len] = 0;
            n += strstr(target, "io_uring") != NULL;
        }
    }
    if (d)
        closedir(d);
    return n;
}

enum { MANY = 300 };

/* MANY one-int accesses in flight at once, at ints base + i. */
static void many_in_flight(MPI_File fh, MPI_Offset base)
{
    int vals[MANY], back[MANY];
    MPI_Request reqs[MANY];
    MPI_Status sts[MANY];
    for (int i = 0; i < MANY; i++) {
        vals[i] = value(rank, 7, i);
        back[i] = -1;
        CHECK(MPI_File_iwrite_at(fh, base + i, &vals[i], 1, MPI_INT, &reqs[i]) == MPI_SUCCESS,
              "iwrite_at %d of many", i);
    }
    CHECK(MPI_Waitall(MANY, reqs, sts) == MPI_SUCCESS, "Waitall of many writes");
    for (int i = 0; i < MANY; i++) {
        CHECK(mt_status_count(&sts[i], MPI_INT) == 1, "many write %d counted %d", i,
              mt_status_count(&sts[i], MPI_INT));
        CHECK(MPI_File_iread_at(fh, base + i, &back[i], 1, MPI_INT, &reqs[i]) == MPI_SUCCESS,
              "iread_at %d of many", i);
    }
    CHECK(MPI_Waitall(MANY, reqs, sts) == MPI_SUCCESS, "Waitall of many reads");
    for (int i = 0; i < MANY; i++)
        CHECK(back[i] == vals[i] && mt_status_count(&sts[i], MPI_INT) == 1,
              "many read %d: %d, want %d", i, back[i], vals[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    char path[256];
    io_test_path("hcmpi_io_nb", path, sizeof path);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path,
                           MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                           MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "open: %s", mt_errstr(rc));
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    /* Block b of rank r is at ints (b * nprocs + r) * M. */
    int *out = mt_malloc(sizeof(int) * NB * M);
    MPI_Request reqs[NB];
    MPI_Status sts[NB];
    for (int b = 0; b < NB; b++) {
        for (int k = 0; k < M; k++)
            out[b * M + k] = value(rank, b, k);
        rc = MPI_File_iwrite_at(fh, (MPI_Offset)(b * nprocs + rank) * M, out + b * M, M, MPI_INT,
                                &reqs[b]);
        CHECK(rc == MPI_SUCCESS, "iwrite_at %d: %s", b, mt_errstr(rc));
    }
    CHECK(MPI_Waitall(NB, reqs, sts) == MPI_SUCCESS, "Waitall of the writes");
    for (int b = 0; b < NB; b++)
        CHECK(mt_status_count(&sts[b], MPI_INT) == M && reqs[b] == MPI_REQUEST_NULL,
              "write %d: count %d", b, mt_status_count(&sts[b], MPI_INT));
    MPI_File_sync(fh);
    if (rank == 0) {
        size_t total = (size_t)NB * M * nprocs;
        int *img = mt_malloc(sizeof(int) * total);
        int fd = open(path, O_RDONLY);
        CHECK(read(fd, img, sizeof(int) * total + 1) == (ssize_t)(sizeof(int) * total),
              "file size");
        close(fd);
        for (int b = 0; b < NB; b++)
            for (int r = 0; r < nprocs; r++)
                for (int k = 0; k < M; k++)
                    CHECK(img[(size_t)(b * nprocs + r) * M + k] == value(r, b, k),
                          "file block %d of rank %d int %d", b, r, k);
        free(img);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Reads into every other int. */
    MPI_Datatype strided;
    MPI_Type_vector(M, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int *in = mt_malloc(sizeof(int) * 2 * NB * M);
    for (int i = 0; i < 2 * NB * M; i++)
        in[i] = -3;
    for (int b = 0; b < NB; b++)
        CHECK(MPI_File_iread_at(fh, (MPI_Offset)(b * nprocs + rank) * M, in + 2 * b * M, 1,
                                strided, &reqs[b]) == MPI_SUCCESS,
              "iread_at %d", b);
    /* Freeing a type that pending accesses use is legal: they hold it. */
    MPI_Type_free(&strided);
    CHECK(MPI_Waitall(NB, reqs, sts) == MPI_SUCCESS, "Waitall of the reads");
    for (int b = 0; b < NB; b++) {
        CHECK(mt_status_count(&sts[b], MPI_INT) == M, "read %d: count %d", b,
              mt_status_count(&sts[b], MPI_INT));
        for (int k = 0; k < M; k++)
            CHECK(in[2 * (b * M + k)] == value(rank, b, k) && in[2 * (b * M + k) + 1] == -3,
                  "read block %d int %d", b, k);
    }
    /* The individual pointer moves at the call. */
    MPI_File_seek(fh, (MPI_Offset)NB * M * nprocs + (MPI_Offset)rank * 3 * M, MPI_SEEK_SET);
    MPI_Offset before, after;
    MPI_File_get_position(fh, &before);
    for (int i = 0; i < 3; i++)
        MPI_File_iwrite(fh, out + i * M, M, MPI_INT, &reqs[i]);
    MPI_File_get_position(fh, &after);
    CHECK(after == before + 3 * M, "pointer moved %ld, want %d before any wait",
          (long)(after - before), 3 * M);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    /* Read them back with an MPI_Test loop. */
    MPI_File_seek(fh, before, MPI_SEEK_SET);
    int *back = mt_malloc(sizeof(int) * 3 * M);
    MPI_Request rq;
    MPI_File_iread(fh, back, 3 * M, MPI_INT, &rq);
    int flag = 0;
    MPI_Status st;
    while (!flag)
        MPI_Test(&rq, &flag, &st);
    CHECK(mt_status_count(&st, MPI_INT) == 3 * M, "iread count");
    CHECK(!memcmp(back, out, sizeof(int) * 3 * M), "iwrite/iread on the pointer");
    /* Past the end. */
    MPI_File_iread_at(fh, (MPI_Offset)1 << 30, back, M, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    CHECK(mt_status_count(&st, MPI_INT) == 0, "read past the end counted %d",
          mt_status_count(&st, MPI_INT));
    many_in_flight(fh, ((MPI_Offset)NB * nprocs + 3 * nprocs) * M + (MPI_Offset)rank * MANY);
    const char *knob = getenv("HCMPI_IO_URING");
    int ring_expected = !(knob && !strcmp(knob, "0")) && kernel_has_uring();
    CHECK((uring_fds() > 0) == ring_expected, "io_uring descriptors %d, ring %sexpected",
          uring_fds(), ring_expected ? "" : "not ");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File ro;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &ro);
    rq = MPI_REQUEST_NULL + 1;
    rc = MPI_File_iwrite_at(ro, 0, out, 1, MPI_INT, &rq);
    CHECK(mt_class(rc) == MPI_ERR_READ_ONLY && rq == MPI_REQUEST_NULL,
          "iwrite on a read-only file gave %s", mt_errstr(rc));
    MPI_File_close(&ro);
    MPI_File_close(&fh);
    free(out);
    free(in);
    free(back);
    if (rank == 0)
        printf("io_nonblocking on %d ranks: ok\n", nprocs);
    MPI_Finalize();
    return 0;
}

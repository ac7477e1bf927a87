/* Collective buffering of an interleaved subarray.  A ROWS x COLS byte
 * matrix is cut into column blocks, one per rank (MPI_Type_create_subarray),
 * so every rank's data is ROWS small runs interleaved with the others'.
 *   io_cb cb FILE    write_all / read_all with cb_nodes=1 and a buffer as
 *                    large as the file: two-phase I/O moves it as one
 *                    contiguous pwrite of the whole matrix (the scenario
 *                    counts the pwrite64 calls with strace when it can);
 *   io_cb small FILE the same with cb_buffer_size = 4096 on two
 *                    aggregators: many rounds;
 *   io_cb nocb FILE  romio_cb_write/read = disable: every rank on its own;
 *   io_cb auto FILE  no hints: on a local file system every rank's runs
 *                    (4 KiB on 4 ranks) go on their own, unsieved.
 * In every mode rank 0 checks the file byte for byte and every rank
 * checks what read_all gives back. */
#include <fcntl.h>
#include <unistd.h>

#include "../mpi/mpitest.h"

enum { ROWS = 64, COLS = 16384 };

static unsigned char byte_at(long i, long j) { return (unsigned char)(i * 31 + j * 7 + (j >> 8)); }

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    CHECK(argc == 3, "usage: io_cb cb|small|nocb|auto FILE");
    CHECK(COLS % nprocs == 0, "%d ranks do not divide %d columns", nprocs, COLS);
    const char *mode = argv[1], *path = argv[2];
    int w = COLS / nprocs;
    int sizes[2] = {ROWS, COLS}, sub[2] = {ROWS, w}, start[2] = {0, rank * w};
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    unsigned char *buf = mt_malloc((size_t)ROWS * w);
    for (long i = 0; i < ROWS; i++)
        for (long j = 0; j < w; j++)
            buf[i * w + j] = byte_at(i, rank * w + j);
    MPI_Info info;
    MPI_Info_create(&info);
    if (!strcmp(mode, "cb")) {
        MPI_Info_set(info, "cb_nodes", "1");
        MPI_Info_set(info, "cb_buffer_size", "1048576");
        MPI_Info_set(info, "romio_cb_write", "enable");
    } else if (!strcmp(mode, "small")) {
        MPI_Info_set(info, "cb_nodes", "2");
        MPI_Info_set(info, "cb_buffer_size", "4096");
    } else if (!strcmp(mode, "nocb")) {
        MPI_Info_set(info, "romio_cb_write", "disable");
        MPI_Info_set(info, "romio_cb_read", "disable");
        MPI_Info_set(info, "romio_ds_write", "disable");
    }
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    CHECK(rc == MPI_SUCCESS, "open: %s", mt_errstr(rc));
    MPI_Info_free(&info);
    MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    MPI_Status st;
    rc = MPI_File_write_all(fh, buf, ROWS * w, MPI_BYTE, &st);
    CHECK(rc == MPI_SUCCESS && mt_status_count(&st, MPI_BYTE) == ROWS * w, "write_all: %s",
          mt_errstr(rc));
    MPI_File_sync(fh);
    if (rank == 0) {
        unsigned char *img = mt_malloc((size_t)ROWS * COLS);
        int fd = open(path, O_RDONLY);
        ssize_t got = read(fd, img, (size_t)ROWS * COLS + 1);
        close(fd);
        CHECK(got == (ssize_t)ROWS * COLS, "file has %zd bytes", got);
        for (long i = 0; i < ROWS; i++)
            for (long j = 0; j < COLS; j++)
                CHECK(img[i * COLS + j] == byte_at(i, j), "%s: file byte (%ld,%ld) is %u", mode,
                      i, j, img[i * COLS + j]);
        free(img);
    }
    memset(buf, 0, (size_t)ROWS * w);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    rc = MPI_File_read_all(fh, buf, ROWS * w, MPI_BYTE, &st);
    CHECK(rc == MPI_SUCCESS && mt_status_count(&st, MPI_BYTE) == ROWS * w, "read_all: %s",
          mt_errstr(rc));
    for (long i = 0; i < ROWS; i++)
        for (long j = 0; j < w; j++)
            CHECK(buf[i * w + j] == byte_at(i, rank * w + j), "%s: read (%ld,%ld)", mode, i,
                  rank * w + j);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    free(buf);
    if (rank == 0)
        printf("io_cb %s on %d ranks: ok\n", mode, nprocs);
    MPI_Finalize();
    return 0;
}

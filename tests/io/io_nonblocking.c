/* Independent non-blocking accesses, which move their bytes on the io
 * worker thread:
 *  - 16 iwrite_at requests in flight at once on disjoint blocks, completed
 *    by Waitall: the file is checked byte for byte by rank 0;
 *  - 16 iread_at into a strided memory type, completed by Waitall: every
 *    status counts its ints, the data and the gaps are checked;
 *  - three iwrite calls on the individual pointer without waiting: the
 *    pointer has moved by all three at once, and the data lands in order;
 *  - an iread completed by an MPI_Test loop; an iread past the end of the
 *    file reads 0 ints; iwrite on a read-only file fails at the call with
 *    MPI_ERR_READ_ONLY and MPI_REQUEST_NULL. */
#include <fcntl.h>
#include <unistd.h>

#include "iotest.h"

enum { NB = 16, M = 1000 };

static int rank, nprocs;

static int value(int r, int b, int k) { return r * 10000000 + b * 10000 + k; }

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
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File ro;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &ro);
    rq = MPI_REQUEST_NULL + 1;
    rc = MPI_File_iwrite_at(ro, 0, out, 1, MPI_INT, &rq);
    CHECK(mt_class(rc) == MPI_ERR_READ_ONLY && rq == MPI_REQUEST_NULL,
          "iwrite on a read-only file gave %s", mt_errstr(rc));
    MPI_File_close(&ro);
    MPI_File_close(&fh);
    MPI_Type_free(&strided);
    free(out);
    free(in);
    free(back);
    if (rank == 0)
        printf("io_nonblocking on %d ranks: ok\n", nprocs);
    MPI_Finalize();
    return 0;
}

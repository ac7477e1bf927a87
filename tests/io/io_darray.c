/* A checkpoint of a 3-D array of doubles written collectively by 8 ranks
 * through a darray view (BLOCK x BLOCK x BLOCK over a 2x2x2 grid) and read
 * back collectively by 3 ranks through another (CYCLIC rows over 3).
 *   io_darray write FILE   (8 ranks): writes; rank 0 checks every byte of
 *                           the file against the array's C order.
 *   io_darray read FILE    (3 ranks): reads and checks every element.
 * Element (i, j, k) holds i * 10000 + j * 100 + k + 0.5. */
#include <fcntl.h>
#include <unistd.h>

#include "../mpi/mpitest.h"

enum { G0 = 12, G1 = 10, G2 = 8 };

static double elem(int i, int j, int k) { return i * 10000.0 + j * 100.0 + k + 0.5; }

static void write_side(const char *path, int rank, int nprocs)
{
    CHECK(nprocs == 8, "the writer runs on 8 ranks, not %d", nprocs);
    int gs[3] = {G0, G1, G2}, dist[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK,
                                           MPI_DISTRIBUTE_BLOCK};
    int darg[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int ps[3] = {2, 2, 2};
    MPI_Datatype ft;
    MPI_Type_create_darray(8, rank, 3, gs, dist, darg, ps, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    int c0 = rank / 4, c1 = (rank / 2) % 2, c2 = rank % 2; /* C order grid */
    int b0 = G0 / 2, b1 = G1 / 2, b2 = G2 / 2, n = 0;
    double *buf = mt_malloc(sizeof(double) * b0 * b1 * b2);
    for (int i = 0; i < b0; i++)
        for (int j = 0; j < b1; j++)
            for (int k = 0; k < b2; k++)
                buf[n++] = elem(c0 * b0 + i, c1 * b1 + j, c2 * b2 + k);
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "2");
    MPI_Info_set(info, "cb_buffer_size", "1024"); /* several rounds */
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
    CHECK(rc == MPI_SUCCESS, "open: %s", mt_errstr(rc));
    MPI_Info_free(&info);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_Status st;
    rc = MPI_File_write_all(fh, buf, n, MPI_DOUBLE, &st);
    CHECK(rc == MPI_SUCCESS, "write_all: %s", mt_errstr(rc));
    CHECK(mt_status_count(&st, MPI_DOUBLE) == n, "status count");
    MPI_File_close(&fh);
    if (rank == 0) {
        double *img = mt_malloc(sizeof(double) * G0 * G1 * G2);
        int fd = open(path, O_RDONLY);
        ssize_t got = read(fd, img, sizeof(double) * G0 * G1 * G2 + 1);
        close(fd);
        CHECK(got == (ssize_t)(sizeof(double) * G0 * G1 * G2), "file has %zd bytes", got);
        for (int i = 0; i < G0; i++)
            for (int j = 0; j < G1; j++)
                for (int k = 0; k < G2; k++)
                    CHECK(img[(i * G1 + j) * G2 + k] == elem(i, j, k),
                          "file element (%d,%d,%d) is %g", i, j, k, img[(i * G1 + j) * G2 + k]);
        free(img);
        printf("io_darray: 8 ranks wrote the %dx%dx%d checkpoint; file checked\n", G0, G1, G2);
    }
    free(buf);
    MPI_Type_free(&ft);
}

static void read_side(const char *path, int rank, int nprocs)
{
    CHECK(nprocs == 3, "the reader runs on 3 ranks, not %d", nprocs);
    int gs[3] = {G0, G1, G2}, dist[3] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE,
                                           MPI_DISTRIBUTE_NONE};
    int darg[3] = {1, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int ps[3] = {3, 1, 1};
    MPI_Datatype ft;
    MPI_Type_create_darray(3, rank, 3, gs, dist, darg, ps, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    int rows = G0 / 3, n = rows * G1 * G2;
    double *buf = mt_malloc(sizeof(double) * n);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "open: %s", mt_errstr(rc));
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_Status st;
    rc = MPI_File_read_all(fh, buf, n, MPI_DOUBLE, &st);
    CHECK(rc == MPI_SUCCESS, "read_all: %s", mt_errstr(rc));
    CHECK(mt_status_count(&st, MPI_DOUBLE) == n, "status count %d", mt_status_count(&st, MPI_DOUBLE));
    int m = 0;
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < G1; j++)
            for (int k = 0; k < G2; k++, m++)
                CHECK(buf[m] == elem(r * 3 + rank, j, k), "element (%d,%d,%d) read as %g",
                      r * 3 + rank, j, k, buf[m]);
    MPI_File_close(&fh);
    free(buf);
    MPI_Type_free(&ft);
    if (rank == 0)
        printf("io_darray: 3 ranks read the checkpoint back: ok\n");
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    CHECK(argc == 3, "usage: io_darray write|read FILE");
    if (!strcmp(argv[1], "write"))
        write_side(argv[2], rank, nprocs);
    else
        read_side(argv[2], rank, nprocs);
    MPI_Finalize();
    return 0;
}

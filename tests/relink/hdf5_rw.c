/* Parallel HDF5 (Debian's libhdf5-mpich, built against MPICH) on hcmpi:
 *   hdf5_rw write FILE  every rank writes its rows of a contiguous 2-D
 *                       dataset "contiguous" and its columns of a chunked
 *                       one "chunked" (4 x 8 chunks), both with collective
 *                       transfers (MPI-IO collective buffering underneath);
 *   hdf5_rw read FILE   every rank reads both back collectively (rows and
 *                       columns split among the readers) and checks every
 *                       element.
 * Element (i, j) of "contiguous" is i * 1000 + j, of "chunked" -(i * 1000 + j). */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 24, NY = 32 };

static int rank, nprocs;

static void die(const char *what)
{
    fprintf(stderr, "FAIL rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Rows [r0, r0 + nr) or columns [c0, c0 + nc) of this rank. */
static void share(int total, int *first, int *count)
{
    *count = total / nprocs;
    *first = rank * *count;
    if (rank == nprocs - 1)
        *count = total - *first;
}

static int value(int chunked, int i, int j) { return (chunked ? -1 : 1) * (i * 1000 + j); }

static void move(hid_t dset, int chunked, int write)
{
    hsize_t start[2], count[2];
    int first, n;
    share(chunked ? NY : NX, &first, &n);
    start[0] = chunked ? 0 : (hsize_t)first;
    start[1] = chunked ? (hsize_t)first : 0;
    count[0] = chunked ? NX : (hsize_t)n;
    count[1] = chunked ? (hsize_t)n : NY;
    int *buf = malloc(sizeof(int) * count[0] * count[1]);
    if (!buf)
        die("malloc");
    for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < count[1]; j++)
            buf[i * count[1] + j] = write ? value(chunked, (int)(start[0] + i), (int)(start[1] + j)) : 0;
    hid_t fspace = H5Dget_space(dset);
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mspace = H5Screate_simple(2, count, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    herr_t rc = write ? H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, buf)
                      : H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, buf);
    if (rc < 0)
        die(write ? "H5Dwrite" : "H5Dread");
    for (hsize_t i = 0; !write && i < count[0]; i++)
        for (hsize_t j = 0; j < count[1]; j++)
            if (buf[i * count[1] + j] != value(chunked, (int)(start[0] + i), (int)(start[1] + j)))
                die("read back a wrong element");
    H5Pclose(dxpl);
    H5Sclose(mspace);
    H5Sclose(fspace);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 3)
        die("usage: hdf5_rw write|read FILE");
    int write = !strcmp(argv[1], "write");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = write ? H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                       : H5Fopen(argv[2], H5F_ACC_RDONLY, fapl);
    if (file < 0)
        die("H5Fcreate/H5Fopen");
    for (int chunked = 0; chunked < 2; chunked++) {
        const char *name = chunked ? "chunked" : "contiguous";
        hid_t dset;
        if (write) {
            hsize_t dims[2] = {NX, NY}, chunk[2] = {4, 8};
            hid_t space = H5Screate_simple(2, dims, NULL);
            hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
            if (chunked)
                H5Pset_chunk(dcpl, 2, chunk);
            dset = H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            H5Pclose(dcpl);
            H5Sclose(space);
        } else {
            dset = H5Dopen2(file, name, H5P_DEFAULT);
        }
        if (dset < 0)
            die("H5Dcreate2/H5Dopen2");
        move(dset, chunked, write);
        H5Dclose(dset);
    }
    H5Fclose(file);
    H5Pclose(fapl);
    if (rank == 0)
        printf("hdf5_rw %s on %d ranks: ok\n", argv[1], nprocs);
    MPI_Finalize();
    return 0;
}

/* Sparse all-gather in a ring: every rank holds ROWS x COLS floats, mostly
 * zero; only the non-zero runs travel.  Each ring step passes on the block
 * received in the step before as (a) a header {runs, values}, (b) the runs
 * as (row-major offset, length) pairs, host ints, and (c) the packed
 * values, in a device buffer handed straight to MPI (--device npu|cuda|host,
 * default host), forwarded device to device.  Every rank then compares its
 * gathered matrix with the dense all-gather computed locally.
 *   sparse_allgather [--device KIND] [rows] [cols]   defaults: 64, 1024 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devbuf.h"

/* Row i of rank r holds up to two runs of non-zeros. */
static float sa_value(int r, int i, int j, int cols)
{
    int a = (i * 37 + r * 11) % cols, len = (i + r) % 4 == 0 ? 0 : 1 + (i * 13 + r) % 48;
    int b = (i * 101 + r * 7 + cols / 2) % cols, len2 = (i % 3 == 0) ? 5 + r : 0;
    if ((j >= a && j < a + len) || (j >= b && j < b + len2))
        return (float)(r * 1000 + i) + (float)j * 0.25f + 1.0f;
    return 0.0f;
}

/* Finds the non-zero runs of block (host copy): offsets/lengths into runs,
 * values packed into vals.  Returns the number of runs; *nvals the values. */
static int sa_pack(const float *block, int n, int *runs, float *vals, int *nvals)
{
    int nr = 0, nv = 0;
    for (int k = 0; k < n;) {
        if (block[k] == 0.0f) {
            k++;
            continue;
        }
        int start = k;
        while (k < n && block[k] != 0.0f)
            vals[nv++] = block[k++];
        runs[2 * nr] = start;
        runs[2 * nr + 1] = k - start;
        nr++;
    }
    *nvals = nv;
    return nr;
}

static void sa_unpack(float *dense, const int *runs, int nr, const float *vals)
{
    for (int k = 0, v = 0; k < nr; v += runs[2 * k + 1], k++)
        memcpy(dense + runs[2 * k], vals + v, sizeof(float) * (size_t)runs[2 * k + 1]);
}

int main(int argc, char **argv)
{
    int rank, size;
    const char *device = devbuf_option(&argc, argv);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (devbuf_init(device, rank) != 0) {
        MPI_Finalize();
        return 77;
    }
    int rows = argc > 1 ? atoi(argv[1]) : 64, cols = argc > 2 ? atoi(argv[2]) : 1024;
    int n = rows * cols, left = (rank + size - 1) % size, right = (rank + 1) % size;
    size_t bytes = sizeof(float) * (size_t)n;
    float *gathered = calloc((size_t)size * (size_t)n, sizeof(float));
    float *block = malloc(bytes), *vals = malloc(bytes);
    int *runs[2] = {malloc(sizeof(int) * (size_t)n), malloc(sizeof(int) * (size_t)n)};
    float *dvals[2] = {devbuf_alloc(bytes), devbuf_alloc(bytes)};
    int hdr[2][2];
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            block[i * cols + j] = sa_value(rank, i, j, cols);
    memcpy(gathered + (size_t)rank * n, block, bytes);
    hdr[0][0] = sa_pack(block, n, runs[0], vals, &hdr[0][1]);
    devbuf_put(dvals[0], vals, sizeof(float) * (size_t)hdr[0][1]);
    long travelled = 0;
    for (int step = 0; step + 1 < size; step++) {
        int cur = step % 2, nxt = 1 - cur, owner = (rank + size - step - 1) % size;
        MPI_Request req[4];
        MPI_Status st[4];
        MPI_Sendrecv(hdr[cur], 2, MPI_INT, right, 0, hdr[nxt], 2, MPI_INT, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Irecv(runs[nxt], 2 * hdr[nxt][0], MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(dvals[nxt], hdr[nxt][1], MPI_FLOAT, left, 2, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(runs[cur], 2 * hdr[cur][0], MPI_INT, right, 1, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(dvals[cur], hdr[cur][1], MPI_FLOAT, right, 2, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, st);
        travelled += hdr[cur][1];
        devbuf_get(vals, dvals[nxt], sizeof(float) * (size_t)hdr[nxt][1]);
        sa_unpack(gathered + (size_t)owner * n, runs[nxt], hdr[nxt][0], vals);
    }
    long bad = 0;
    for (int r = 0; r < size; r++)
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                if (gathered[((size_t)r * rows + i) * cols + j] != sa_value(r, i, j, cols))
                    bad++;
    long total_bad, total_sent;
    MPI_Allreduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&travelled, &total_sent, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sparse_allgather: %d ranks, %dx%d blocks on %s, %ld of %ld values travelled: %s\n",
               size, rows, cols, devbuf_kind(), total_sent, (long)size * (size - 1) * n,
               total_bad ? "WRONG" : "OK");
    for (int k = 0; k < 2; k++) {
        devbuf_free(dvals[k]);
        free(runs[k]);
    }
    free(gathered);
    free(block);
    free(vals);
    MPI_Finalize();
    return total_bad ? 1 : 0;
}

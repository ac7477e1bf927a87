/* Pipeline parallelism: rank s is stage s.  Stage 0 produces MB
 * micro-batches of activations (a tensor of N floats), every stage applies
 * its layer y = x * w_s + b_s elementwise and passes the result on; the last
 * stage checks every element against the composed layers.  Receives for the
 * next micro-batch and sends of the previous one are in flight while the
 * current one is computed (double buffering with Irecv/Isend).
 *   pipeline [microbatches] [elements]    defaults: 16, 65536 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static float pl_w(int s) { return 1.0f + 0.125f * (float)(s % 4); }
static float pl_b(int s) { return (float)(s % 3) - 1.0f; }
static float pl_input(int mb, int i) { return (float)((mb * 31 + i) % 97) * 0.5f; }

static void pl_layer(int s, const float *x, float *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i] * pl_w(s) + pl_b(s);
}

/* What the last stage must see: every layer applied, in float, in order. */
static float pl_expect(int stages, int mb, int i)
{
    float v = pl_input(mb, i);
    for (int s = 0; s < stages; s++)
        v = v * pl_w(s) + pl_b(s);
    return v;
}

int main(int argc, char **argv)
{
    int s, stages;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &s);
    MPI_Comm_size(MPI_COMM_WORLD, &stages);
    int mbs = argc > 1 ? atoi(argv[1]) : 16, n = argc > 2 ? atoi(argv[2]) : 65536;
    float *in[2], *out[2];
    for (int k = 0; k < 2; k++) {
        in[k] = malloc(sizeof(float) * (size_t)n);
        out[k] = malloc(sizeof(float) * (size_t)n);
    }
    MPI_Request rreq = MPI_REQUEST_NULL, sreq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    long bad = 0;
    if (s > 0 && mbs > 0)
        MPI_Irecv(in[0], n, MPI_FLOAT, s - 1, 0, MPI_COMM_WORLD, &rreq);
    double t0 = MPI_Wtime();
    for (int mb = 0; mb < mbs; mb++) {
        int cur = mb % 2;
        if (s == 0) {
            for (int i = 0; i < n; i++)
                in[cur][i] = pl_input(mb, i);
        } else {
            MPI_Wait(&rreq, MPI_STATUS_IGNORE);
            if (mb + 1 < mbs)
                MPI_Irecv(in[1 - cur], n, MPI_FLOAT, s - 1, mb + 1, MPI_COMM_WORLD, &rreq);
        }
        /* out[cur] may still be in flight from micro-batch mb - 2. */
        MPI_Wait(&sreq[cur], MPI_STATUS_IGNORE);
        pl_layer(s, in[cur], out[cur], n);
        if (s + 1 < stages) {
            MPI_Isend(out[cur], n, MPI_FLOAT, s + 1, mb, MPI_COMM_WORLD, &sreq[cur]);
            continue;
        }
        for (int i = 0; i < n; i++)
            if (out[cur][i] != pl_expect(stages, mb, i))
                bad++;
    }
    MPI_Wait(&sreq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&sreq[1], MPI_STATUS_IGNORE);
    double t = MPI_Wtime() - t0;
    MPI_Bcast(&bad, 1, MPI_LONG, stages - 1, MPI_COMM_WORLD);
    if (s == stages - 1)
        printf("pipeline: %d stages, %d micro-batches x %d floats in %.3f ms: %s\n", stages, mbs,
               n, t * 1e3, bad ? "WRONG" : "OK");
    for (int k = 0; k < 2; k++) {
        free(in[k]);
        free(out[k]);
    }
    MPI_Finalize();
    return bad ? 1 : 0;
}

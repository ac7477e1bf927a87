/* Groups for a pipelined mixture-of-experts model: the world is a grid of
 * stages x experts (rank = stage * experts + expert).  MPI_Comm_split
 * builds, per rank,
 *   - its stage group (the experts of one pipeline stage, ranked by
 *     expert): gradients are summed there with MPI_Allreduce and the
 *     members list themselves with MPI_Allgather;
 *   - its expert group (one expert's chain through the stages, ranked by
 *     stage): the expert's parameters are broadcast from stage 0, then
 *     activations flow stage to stage with MPI_Send / MPI_Recv;
 *   - a group of the first stage only (every other rank passes
 *     MPI_UNDEFINED and gets MPI_COMM_NULL).
 * Every result is checked against its formula; the data lives in device
 * buffers with --device npu|cuda (host memory by default).
 *   comm_split [--device KIND] [experts]   default: the largest divisor of
 *                                          size <= sqrt(size) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "devbuf.h"

#define N 4096 /* floats per gradient / activation / parameter vector */

static int cs_default_experts(int size)
{
    int c = 1;
    for (int d = 1; d * d <= size; d++)
        if (size % d == 0)
            c = d;
    return c;
}

/* Small integers: every sum and product below is exact in float. */
static float cs_grad(int rank, int i) { return (float)((rank * 5 + i) % 17); }
static float cs_param(int expert, int i) { return (float)(expert * 100 + i % 50); }
static float cs_act0(int expert, int i) { return (float)((expert + i) % 7); }
static float cs_layer(int stage, float x) { return x * 2.0f + (float)stage; }

/* Counts the elements of the buffer d (N floats) that differ from want. */
static long cs_diff(const float *d, const float *want)
{
    float *h = malloc(sizeof(float) * N);
    long bad = 0;
    devbuf_get(h, d, sizeof(float) * N);
    for (int i = 0; i < N; i++)
        bad += h[i] != want[i];
    free(h);
    return bad;
}

/* Stage group: member list and the experts' gradient sum. */
static long cs_stage(MPI_Comm sc, int rank, int stage, int experts)
{
    long bad = 0;
    int *ids = devbuf_alloc(sizeof(int) * (size_t)experts), *h = malloc(sizeof(int) * (size_t)experts);
    int *me = devbuf_alloc(sizeof(int));
    devbuf_put(me, &rank, sizeof(int));
    MPI_Allgather(me, 1, MPI_INT, ids, 1, MPI_INT, sc);
    devbuf_get(h, ids, sizeof(int) * (size_t)experts);
    for (int e = 0; e < experts; e++)
        bad += h[e] != stage * experts + e;
    float *g = devbuf_alloc(sizeof(float) * N), *sum = devbuf_alloc(sizeof(float) * N);
    float *want = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++)
        want[i] = cs_grad(rank, i);
    devbuf_put(g, want, sizeof(float) * N);
    MPI_Allreduce(g, sum, N, MPI_FLOAT, MPI_SUM, sc);
    for (int i = 0; i < N; i++) {
        want[i] = 0;
        for (int e = 0; e < experts; e++)
            want[i] += cs_grad(stage * experts + e, i);
    }
    bad += cs_diff(sum, want);
    devbuf_free(g);
    devbuf_free(sum);
    devbuf_free(ids);
    devbuf_free(me);
    free(h);
    free(want);
    return bad;
}

/* Expert group: parameters from stage 0, then one forward pass. */
static long cs_expert(MPI_Comm ec, int stage, int stages, int expert)
{
    long bad = 0;
    float *p = devbuf_alloc(sizeof(float) * N), *a = devbuf_alloc(sizeof(float) * N);
    float *h = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++)
        h[i] = stage == 0 ? cs_param(expert, i) : -1.0f;
    devbuf_put(p, h, sizeof(float) * N);
    MPI_Bcast(p, N, MPI_FLOAT, 0, ec);
    for (int i = 0; i < N; i++)
        h[i] = cs_param(expert, i);
    bad += cs_diff(p, h);
    if (stage == 0)
        for (int i = 0; i < N; i++)
            h[i] = cs_act0(expert, i);
    else
        MPI_Recv(a, N, MPI_FLOAT, stage - 1, 0, ec, MPI_STATUS_IGNORE);
    if (stage > 0)
        devbuf_get(h, a, sizeof(float) * N);
    for (int i = 0; i < N; i++)
        h[i] = cs_layer(stage, h[i]);
    devbuf_put(a, h, sizeof(float) * N);
    if (stage + 1 < stages) {
        MPI_Send(a, N, MPI_FLOAT, stage + 1, 0, ec);
    } else {
        for (int i = 0; i < N; i++) {
            h[i] = cs_act0(expert, i);
            for (int s = 0; s < stages; s++)
                h[i] = cs_layer(s, h[i]);
        }
        bad += cs_diff(a, h);
    }
    devbuf_free(p);
    devbuf_free(a);
    free(h);
    return bad;
}

/* Only the first stage is in the group; the others get MPI_COMM_NULL. */
static long cs_first(int stage, int expert, int experts)
{
    MPI_Comm fc;
    MPI_Comm_split(MPI_COMM_WORLD, stage == 0 ? 0 : MPI_UNDEFINED, expert, &fc);
    if (stage != 0)
        return fc != MPI_COMM_NULL;
    int n = 0, r = -1;
    if (fc != MPI_COMM_NULL) {
        MPI_Comm_size(fc, &n);
        MPI_Comm_rank(fc, &r);
        MPI_Comm_free(&fc);
    }
    return n != experts || r != expert;
}

int main(int argc, char **argv)
{
    int rank, size;
    const char *device = devbuf_option(&argc, argv);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int experts = argc > 1 ? atoi(argv[1]) : cs_default_experts(size);
    if (experts < 1 || size % experts) {
        if (rank == 0)
            fprintf(stderr, "comm_split: %d ranks do not fill stages of %d experts\n", size, experts);
        MPI_Finalize();
        return 1;
    }
    if (devbuf_init(device != NULL ? device : "host", rank) != 0) {
        MPI_Finalize();
        return 77;
    }
    int stages = size / experts, stage = rank / experts, expert = rank % experts;
    MPI_Comm sc, ec;
    MPI_Comm_split(MPI_COMM_WORLD, stage, expert, &sc);
    MPI_Comm_split(MPI_COMM_WORLD, expert, stage, &ec);
    int srank, ssize, erank, esize;
    MPI_Comm_rank(sc, &srank);
    MPI_Comm_size(sc, &ssize);
    MPI_Comm_rank(ec, &erank);
    MPI_Comm_size(ec, &esize);
    long bad = srank != expert || ssize != experts || erank != stage || esize != stages;
    bad += cs_stage(sc, rank, stage, experts);
    bad += cs_expert(ec, stage, stages, expert);
    bad += cs_first(stage, expert, experts);
    if (bad)
        fprintf(stderr, "comm_split: rank %d (stage %d expert %d): %ld wrong\n", rank, stage,
                expert, bad);
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_split: %d stages x %d experts on %s, stage and expert groups: %s\n", stages,
               experts, devbuf_kind(), all ? "WRONG" : "OK");
    MPI_Comm_free(&sc);
    MPI_Comm_free(&ec);
    MPI_Finalize();
    return all ? 1 : 0;
}

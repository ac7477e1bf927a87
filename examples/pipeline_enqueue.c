/* pipeline --device npu|cuda --enqueue: the pipeline with its activations
 * passed stream-ordered (MPIX streams, MPICH's API).  Activations are n
 * int32; stage s's "layer kernel" is y = x + (s + 1), run on the stage's
 * device stream (the test doubles' element-wise kernel: the example needs
 * one, and exits 77 without it).  It runs twice and prints the host
 * stream synchronisations per micro-batch of each:
 *   synchronised: MPI_Recv, the kernel, a host wait for the stream, MPI_Send;
 *   enqueued:     MPIX_Recv_enqueue, the kernel, MPIX_Send_enqueue, all
 *                 queued on the stream with no host wait (target: zero);
 *                 one wait at the end, before the last stage checks. */
#include "pipeline_enqueue.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "devbuf.h"

/* MPIX streams are MPICH 4.1's API (and hcmpi's); an MPI without them
 * builds the example with --enqueue answering 77. */
#ifdef MPIX_STREAM_NULL

typedef struct pe_state {
    int s, stages, mbs;
    size_t n;
    void *stream;
    MPI_Comm comm; /* the stream communicator (enqueued run) */
    void *base, *x, *y;
    void **out; /* last stage: the result of every micro-batch */
} pe_state_t;

static void pe_kernel(pe_state_t *p, void *y, const void *x, int add)
{
    if (devbuf_kernel_add(p->stream, y, x, p->n, add) != 0) {
        fprintf(stderr, "pipeline: kernel launch failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* One micro-batch of stage s up to its layer's output in y (or out[mb]). */
static void *pe_layer(pe_state_t *p, int mb)
{
    void *y = p->s + 1 == p->stages ? p->out[mb] : p->y;
    if (p->s == 0)
        pe_kernel(p, p->x, p->base, mb); /* the micro-batch's input */
    pe_kernel(p, y, p->x, p->s + 1);
    return y;
}

static void pe_run_synchronised(pe_state_t *p)
{
    for (int mb = 0; mb < p->mbs; mb++) {
        if (p->s > 0)
            MPI_Recv(p->x, (int)p->n, MPI_INT, p->s - 1, mb, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        void *y = pe_layer(p, mb);
        devbuf_stream_sync(p->stream); /* MPI_Send must see the kernel's y */
        if (p->s + 1 < p->stages)
            MPI_Send(y, (int)p->n, MPI_INT, p->s + 1, mb, MPI_COMM_WORLD);
    }
}

static void pe_run_enqueued(pe_state_t *p)
{
    for (int mb = 0; mb < p->mbs; mb++) {
        if (p->s > 0)
            MPIX_Recv_enqueue(p->x, (int)p->n, MPI_INT, p->s - 1, mb, p->comm, MPI_STATUS_IGNORE);
        void *y = pe_layer(p, mb);
        if (p->s + 1 < p->stages)
            MPIX_Send_enqueue(y, (int)p->n, MPI_INT, p->s + 1, mb, p->comm);
    }
}

/* Elements of the last stage's results that differ from the composed
 * layers; then clears them for the next run. */
static long pe_check(pe_state_t *p)
{
    long bad = 0;
    int32_t *h = malloc(p->n * sizeof *h), *zero = calloc(p->n, sizeof *zero);
    for (int mb = 0; p->s + 1 == p->stages && mb < p->mbs; mb++) {
        devbuf_get(h, p->out[mb], p->n * sizeof *h);
        for (size_t i = 0; i < p->n; i++)
            if (h[i] != (int32_t)(i % 97) + mb + p->stages * (p->stages + 1) / 2)
                bad++;
        devbuf_put(p->out[mb], zero, p->n * sizeof *zero);
    }
    free(h);
    free(zero);
    return bad;
}

/* Runs one form: max over ranks of host syncs per micro-batch in the
 * loop, time per micro-batch (the final wait included), wrong elements. */
static void pe_measure(pe_state_t *p, void (*run)(pe_state_t *), double *syncs, double *us,
                       long *bad)
{
    MPI_Barrier(MPI_COMM_WORLD);
    long before = devbuf_host_syncs();
    double t0 = MPI_Wtime();
    run(p);
    long in_loop = devbuf_host_syncs() - before;
    devbuf_stream_sync(p->stream);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    long worst = 0;
    MPI_Allreduce(&in_loop, &worst, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    *syncs = (double)worst / p->mbs;
    *us = t * 1e6 / p->mbs;
    long mine = pe_check(p);
    MPI_Allreduce(&mine, bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
}

static void pe_setup(pe_state_t *p)
{
    size_t bytes = p->n * sizeof(int32_t);
    int32_t *h = malloc(bytes);
    for (size_t i = 0; i < p->n; i++)
        h[i] = (int32_t)(i % 97);
    p->base = devbuf_alloc(bytes);
    devbuf_put(p->base, h, bytes);
    free(h);
    p->x = devbuf_alloc(bytes);
    p->y = devbuf_alloc(bytes);
    p->out = calloc((size_t)p->mbs, sizeof *p->out);
    for (int mb = 0; p->s + 1 == p->stages && mb < p->mbs; mb++)
        p->out[mb] = devbuf_alloc(bytes);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "type", devbuf_stream_type());
    MPIX_Info_set_hex(info, "value", &p->stream, sizeof p->stream);
    MPIX_Stream stream;
    MPIX_Stream_create(info, &stream);
    MPI_Info_free(&info);
    MPIX_Stream_comm_create(MPI_COMM_WORLD, stream, &p->comm);
}

static void pe_teardown(pe_state_t *p)
{
    MPIX_Stream stream;
    MPIX_Comm_get_stream(p->comm, 0, &stream);
    MPI_Comm_free(&p->comm);
    MPIX_Stream_free(&stream);
    for (int mb = 0; p->s + 1 == p->stages && mb < p->mbs; mb++)
        devbuf_free(p->out[mb]);
    free(p->out);
    devbuf_free(p->base);
    devbuf_free(p->x);
    devbuf_free(p->y);
    devbuf_stream_destroy(p->stream);
}

int pipeline_enqueue(int s, int stages, int mbs, size_t n)
{
    pe_state_t p = {.s = s, .stages = stages, .mbs = mbs > 0 ? mbs : 1, .n = n};
    p.stream = devbuf_stream_create();
    if (p.stream == NULL || !devbuf_has_kernel() || devbuf_host_syncs() < 0) {
        if (s == 0)
            fprintf(stderr, "pipeline --enqueue: needs a device stream, a layer kernel and a "
                            "sync counter (the runtimes' test doubles)\n");
        devbuf_stream_destroy(p.stream);
        return 77;
    }
    pe_setup(&p);
    double sync_a, sync_b, us_a, us_b;
    long bad_a, bad_b;
    pe_measure(&p, pe_run_synchronised, &sync_a, &us_a, &bad_a);
    pe_measure(&p, pe_run_enqueued, &sync_b, &us_b, &bad_b);
    if (s == stages - 1)
        printf("pipeline --enqueue: %d stages, %d micro-batches x %zu int32 on %s\n"
               "  synchronised: %.2f host syncs per micro-batch, %.1f us per micro-batch: %s\n"
               "  enqueued:     %.2f host syncs per micro-batch, %.1f us per micro-batch: %s\n",
               stages, p.mbs, n, devbuf_kind(), sync_a, us_a, bad_a ? "WRONG" : "OK", sync_b,
               us_b, bad_b ? "WRONG" : "OK");
    pe_teardown(&p);
    return bad_a || bad_b ? 1 : 0;
}

#else /* no MPIX streams in this MPI */

int pipeline_enqueue(int s, int stages, int mbs, size_t n)
{
    (void)stages;
    (void)mbs;
    (void)n;
    if (s == 0)
        fprintf(stderr, "pipeline --enqueue: this MPI has no MPIX streams\n");
    return 77;
}

#endif

/* Pipeline parallelism: rank s is stage s.  Stage 0 produces MB
 * micro-batches of activations (a tensor of N floats), every stage applies
 * its layer y = x * w_s + b_s elementwise and passes the result on; the last
 * stage checks every element against the composed layers.  Receives for the
 * next micro-batch and sends of the previous one are in flight while the
 * current one is computed (double buffering with Irecv/Isend).
 *   pipeline [microbatches] [elements]    defaults: 16, 65536
 * With --device npu|cuda|host the activations are fp16 (uint16_t), batch
 * 8 x hidden 4096, in device buffers (devbuf.h) handed straight to MPI;
 * each stage computes on a host copy and uploads its result, and the next
 * stage's receive into device memory overlaps that compute.
 *   pipeline --device npu [microbatches]   default: 8
 * With --enqueue as well, activations are passed stream-ordered (MPIX
 * streams) and the host synchronisations per micro-batch are printed next
 * to the synchronised form's (pipeline_enqueue.c).
 *   pipeline --device npu --enqueue [microbatches] [elements]  16, 65536 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devbuf.h"
#include "pipeline_enqueue.h"

/* Removes "--enqueue" from argv; 1 when it was there. */
static int pl_enqueue_option(int *argc, char **argv)
{
    int found = 0, out = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--enqueue") == 0)
            found = 1;
        else
            argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    return found;
}

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

/* IEEE half precision <-> float, round to nearest even (normal, subnormal
 * and overflow to infinity; no NaN inputs arise here). */
static uint16_t pl_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, mag = x & 0x7fffffffu;
    if (mag >= 0x47800000u) /* >= 65536: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (mag < 0x38800000u) { /* below 2^-14: subnormal half */
        float a;
        memcpy(&a, &mag, sizeof a);
        float scaled = a * 16777216.0f; /* / 2^-24 */
        uint32_t q = (uint32_t)scaled;
        float rem = scaled - (float)q;
        if (rem > 0.5f || (rem == 0.5f && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    uint32_t h = ((mag >> 13) - (112u << 10));
    uint32_t rest = mag & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

static float pl_from_half(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0) {
        float f = (float)m / 16777216.0f;
        return sign ? -f : f;
    }
    x = sign | (e == 31 ? 0x7f800000u : (e + 112u) << 23) | (m << 13);
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

static void pl_layer16(int s, const uint16_t *x, uint16_t *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = pl_to_half(pl_from_half(x[i]) * pl_w(s) + pl_b(s));
}

static uint16_t pl_expect16(int stages, int mb, int i)
{
    uint16_t v = pl_to_half(pl_input(mb, i));
    for (int s = 0; s < stages; s++)
        v = pl_to_half(pl_from_half(v) * pl_w(s) + pl_b(s));
    return v;
}

/* The device-buffer pipeline: d_in/d_out are device memory, h_* host. */
static long pl_run_device(int s, int stages, int mbs)
{
    enum { BATCH = 8, HIDDEN = 4096, N = BATCH * HIDDEN };
    size_t bytes = sizeof(uint16_t) * N;
    uint16_t *d_in[2], *d_out[2], *h_in = malloc(bytes), *h_out = malloc(bytes);
    for (int k = 0; k < 2; k++) {
        d_in[k] = devbuf_alloc(bytes);
        d_out[k] = devbuf_alloc(bytes);
    }
    MPI_Request rreq = MPI_REQUEST_NULL, sreq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    long bad = 0;
    if (s > 0 && mbs > 0)
        MPI_Irecv(d_in[0], N, MPI_UINT16_T, s - 1, 0, MPI_COMM_WORLD, &rreq);
    for (int mb = 0; mb < mbs; mb++) {
        int cur = mb % 2;
        if (s == 0) {
            for (int i = 0; i < N; i++)
                h_in[i] = pl_to_half(pl_input(mb, i));
        } else {
            MPI_Wait(&rreq, MPI_STATUS_IGNORE);
            devbuf_get(h_in, d_in[cur], bytes);
            if (mb + 1 < mbs) /* lands while this micro-batch computes */
                MPI_Irecv(d_in[1 - cur], N, MPI_UINT16_T, s - 1, mb + 1, MPI_COMM_WORLD, &rreq);
        }
        pl_layer16(s, h_in, h_out, N);
        if (s + 1 < stages) {
            MPI_Wait(&sreq[cur], MPI_STATUS_IGNORE); /* d_out[cur] from mb - 2 */
            devbuf_put(d_out[cur], h_out, bytes);
            MPI_Isend(d_out[cur], N, MPI_UINT16_T, s + 1, mb, MPI_COMM_WORLD, &sreq[cur]);
            continue;
        }
        for (int i = 0; i < N; i++)
            if (h_out[i] != pl_expect16(stages, mb, i))
                bad++;
    }
    MPI_Wait(&sreq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&sreq[1], MPI_STATUS_IGNORE);
    for (int k = 0; k < 2; k++) {
        devbuf_free(d_in[k]);
        devbuf_free(d_out[k]);
    }
    free(h_in);
    free(h_out);
    return bad;
}

int main(int argc, char **argv)
{
    int s, stages;
    const char *device = devbuf_option(&argc, argv);
    int enqueue = pl_enqueue_option(&argc, argv);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &s);
    MPI_Comm_size(MPI_COMM_WORLD, &stages);
    if (device != NULL) {
        if (devbuf_init(device, s) != 0) {
            MPI_Finalize();
            return 77;
        }
        if (enqueue) {
            int rc = pipeline_enqueue(s, stages, argc > 1 ? atoi(argv[1]) : 16,
                                      argc > 2 ? (size_t)atol(argv[2]) : 65536);
            MPI_Finalize();
            return rc;
        }
        int mbs = argc > 1 ? atoi(argv[1]) : 8;
        long bad = pl_run_device(s, stages, mbs);
        MPI_Bcast(&bad, 1, MPI_LONG, stages - 1, MPI_COMM_WORLD);
        if (s == stages - 1)
            printf("pipeline: %d stages, %d micro-batches of fp16 8x4096 on %s: %s\n", stages,
                   mbs, devbuf_kind(), bad ? "WRONG" : "OK");
        MPI_Finalize();
        return bad ? 1 : 0;
    }
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

/* Mixture-of-experts dispatch and combine: 8 experts, expert e lives on
 * rank e % size (2 per rank on 4 ranks).  Every rank has TOKENS tokens of
 * HIDDEN floats; top-2 gating picks two experts per token with softmax
 * weights.  Token counts per destination go out with MPI_Alltoall; the
 * token copies (activations in device buffers, --device npu|cuda|host,
 * default host) go one-to-many with Isend/Irecv to the experts' ranks,
 * the experts apply their layer, results come back the same way and are
 * combined.  The result must equal a single-rank reference computed
 * locally with the same arithmetic, bit for bit.
 *   moe_dispatch [--device KIND] [tokens] [hidden]   defaults: 32, 256 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devbuf.h"

#define EXPERTS 8

static float moe_act(int rank, int t, int h) { return (float)((rank * 131 + t * 17 + h * 7) % 23) * 0.125f - 1.0f; }

static float moe_score(int rank, int t, int e) { return (float)((rank * 7 + t * 5 + e * 11 + t * e) % 13); }

/* The two best experts of token t (ties: lower expert first), weights. */
static void moe_gate(int rank, int t, int top[2], float w[2])
{
    top[0] = top[1] = -1;
    for (int e = 0; e < EXPERTS; e++) {
        float s = moe_score(rank, t, e);
        if (top[0] < 0 || s > moe_score(rank, t, top[0])) {
            top[1] = top[0];
            top[0] = e;
        } else if (top[1] < 0 || s > moe_score(rank, t, top[1])) {
            top[1] = e;
        }
    }
    float a = moe_score(rank, t, top[0]), b = moe_score(rank, t, top[1]);
    float eb = expf(b - a);
    w[0] = 1.0f / (1.0f + eb);
    w[1] = eb / (1.0f + eb);
}

/* How many of the n counts are positive: the peers a rank posts to. */
static int moe_peers(const int *count, int n)
{
    int k = 0;
    for (int r = 0; r < n; r++)
        k += count[r] > 0;
    return k;
}

static void moe_expert(int e, const float *x, float *y, int hidden)
{
    for (int h = 0; h < hidden; h++)
        y[h] = x[h] * (0.5f + 0.25f * (float)e) + (float)(e - 3) * 0.0625f;
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
    int tokens = argc > 1 ? atoi(argv[1]) : 32, hidden = argc > 2 ? atoi(argv[2]) : 256;
    size_t row = sizeof(float) * (size_t)hidden;
    int ncopies = 2 * tokens;
    /* Gating; copies ordered by destination rank (counting sort). */
    int *top = malloc(sizeof(int) * (size_t)ncopies), *order = malloc(sizeof(int) * (size_t)ncopies);
    float *w = malloc(sizeof(float) * (size_t)ncopies);
    int *scount = calloc((size_t)size, sizeof(int)), *rcount = malloc(sizeof(int) * (size_t)size);
    int *sdisp = malloc(sizeof(int) * (size_t)size), *rdisp = malloc(sizeof(int) * (size_t)size);
    for (int t = 0; t < tokens; t++) {
        moe_gate(rank, t, &top[2 * t], &w[2 * t]);
        scount[top[2 * t] % size]++;
        scount[top[2 * t + 1] % size]++;
    }
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
    int nrecv = 0;
    for (int r = 0, s = 0; r < size; r++) {
        sdisp[r] = s;
        rdisp[r] = nrecv;
        s += scount[r];
        nrecv += rcount[r];
    }
    int *fill = calloc((size_t)(unsigned)size, sizeof(int));
    for (int c = 0; c < ncopies; c++) {
        int d = top[c] % size;
        order[sdisp[d] + fill[d]++] = c;
    }
    /* Activations on the device; the send buffer packed by destination. */
    float *h_x = malloc(row * (size_t)tokens), *h_send = malloc(row * (size_t)ncopies);
    float *h_recv = malloc(row * (size_t)(nrecv ? nrecv : 1)), *h_y = malloc(row * (size_t)(nrecv ? nrecv : 1));
    int *s_exp = malloc(sizeof(int) * (size_t)ncopies), *r_exp = malloc(sizeof(int) * (size_t)(nrecv ? nrecv : 1));
    for (int t = 0; t < tokens; t++)
        for (int h = 0; h < hidden; h++)
            h_x[t * hidden + h] = moe_act(rank, t, h);
    for (int k = 0; k < ncopies; k++) {
        memcpy(h_send + (size_t)k * hidden, h_x + (size_t)(order[k] / 2) * hidden, row);
        s_exp[k] = top[order[k]];
    }
    float *d_send = devbuf_alloc(row * (size_t)ncopies), *d_recv = devbuf_alloc(row * (size_t)(nrecv ? nrecv : 1));
    devbuf_put(d_send, h_send, row * (size_t)ncopies);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(4 * size));
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)(4 * size));
    int nreq = 0;
    for (int r = 0; r < size; r++) {
        if (rcount[r] > 0) {
            MPI_Irecv(r_exp + rdisp[r], rcount[r], MPI_INT, r, 1, MPI_COMM_WORLD, &req[nreq++]);
            MPI_Irecv(d_recv + (size_t)rdisp[r] * hidden, rcount[r] * hidden, MPI_FLOAT, r, 2,
                      MPI_COMM_WORLD, &req[nreq++]);
        }
        if (scount[r] > 0) {
            MPI_Isend(s_exp + sdisp[r], scount[r], MPI_INT, r, 1, MPI_COMM_WORLD, &req[nreq++]);
            MPI_Isend(d_send + (size_t)sdisp[r] * hidden, scount[r] * hidden, MPI_FLOAT, r, 2,
                      MPI_COMM_WORLD, &req[nreq++]);
        }
    }
    MPI_Waitall(nreq, req, st);
    /* The experts of this rank. */
    devbuf_get(h_recv, d_recv, row * (size_t)nrecv);
    for (int k = 0; k < nrecv; k++)
        moe_expert(r_exp[k], h_recv + (size_t)k * hidden, h_y + (size_t)k * hidden, hidden);
    devbuf_put(d_recv, h_y, row * (size_t)nrecv);
    /* Results back to where the copies came from (same slices reversed). */
    nreq = 0;
    for (int r = 0; r < size; r++) {
        if (scount[r] > 0)
            MPI_Irecv(d_send + (size_t)sdisp[r] * hidden, scount[r] * hidden, MPI_FLOAT, r, 3,
                      MPI_COMM_WORLD, &req[nreq++]);
        if (rcount[r] > 0)
            MPI_Isend(d_recv + (size_t)rdisp[r] * hidden, rcount[r] * hidden, MPI_FLOAT, r, 3,
                      MPI_COMM_WORLD, &req[nreq++]);
    }
    MPI_Waitall(nreq, req, st);
    devbuf_get(h_send, d_send, row * (size_t)ncopies);
    /* Combine: out[t] = w0 * y(top0) + w1 * y(top1); reference alike. */
    float *out = calloc((size_t)tokens * (size_t)hidden, sizeof(float)), *slot[2];
    float *ref = malloc(row), *y0 = malloc(row), *y1 = malloc(row);
    long bad = 0;
    int *where = malloc(sizeof(int) * (size_t)ncopies);
    for (int k = 0; k < ncopies; k++)
        where[order[k]] = k;
    for (int t = 0; t < tokens; t++) {
        slot[0] = h_send + (size_t)where[2 * t] * hidden;
        slot[1] = h_send + (size_t)where[2 * t + 1] * hidden;
        moe_expert(top[2 * t], h_x + (size_t)t * hidden, y0, hidden);
        moe_expert(top[2 * t + 1], h_x + (size_t)t * hidden, y1, hidden);
        for (int h = 0; h < hidden; h++) {
            out[t * hidden + h] = w[2 * t] * slot[0][h] + w[2 * t + 1] * slot[1][h];
            ref[h] = w[2 * t] * y0[h] + w[2 * t + 1] * y1[h];
            if (out[t * hidden + h] != ref[h])
                bad++;
        }
    }
    long total_bad;
    MPI_Allreduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    /* The calls this rank made, for tests/tools/trace.sh to compare with
     * a trace: per peer, dispatch posts 2 Isend/2 Irecv, combine 1 each. */
    int to = moe_peers(scount, size), from = moe_peers(rcount, size);
    printf("moe_dispatch: rank %d calls: MPI_Isend %d MPI_Irecv %d MPI_Waitall 2 "
           "MPI_Alltoall 1 MPI_Allreduce 1\n",
           rank, 2 * to + from, 2 * from + to);
    if (rank == 0)
        printf("moe_dispatch: %d ranks, %d experts, top-2 of %d tokens x %d on %s: %s\n", size,
               EXPERTS, tokens, hidden, devbuf_kind(), total_bad ? "WRONG" : "OK");
    devbuf_free(d_send);
    devbuf_free(d_recv);
    free(top), free(order), free(w), free(scount), free(rcount), free(sdisp), free(rdisp);
    free(fill), free(h_x), free(h_send), free(h_recv), free(h_y), free(s_exp), free(r_exp);
    free(req), free(st), free(out), free(ref), free(y0), free(y1), free(where);
    MPI_Finalize();
    return total_bad ? 1 : 0;
}

/* Every collective of the family in its blocking and its non-blocking form
 * (started, then MPI_Wait), against a serial reference computed here:
 * Bcast, Gather(v), Scatter(v), Allgather(v), Alltoall(v,w), Reduce,
 * Allreduce, Scan, Exscan, Reduce_scatter(_block), Barrier; every root, the
 * MPI_IN_PLACE forms, counts 0, small and above 1 MiB (argv[1] "big" adds
 * the large size).  Then every op x type pair through MPI_Allreduce, and
 * user ops commutative and not (rank order kept). */
#include "mpitest.h"

#include <stdint.h>

static int rank, size, big;

static int val(int r, int i) { return (r * 131 + i * 7) % 1000 - 300; }

/* Completes the collective started as r (nb) or already done (blocking). */
static void fin(int nb, MPI_Request *r)
{
    if (nb)
        CHECK(MPI_Wait(r, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait");
}

static int counts_n(int k) { return k == 0 ? 0 : k == 1 ? 5 : 300000; }

static int *ialloc(size_t n) { return mt_malloc((n ? n : 1) * sizeof(int)); }

static void t_bcast(int nb, int n)
{
    int *b = ialloc((size_t)n);
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < n; i++)
            b[i] = rank == root ? val(root, i) : -1;
        MPI_Request r;
        if (nb)
            MPI_Ibcast(b, n, MPI_INT, root, MPI_COMM_WORLD, &r);
        else
            MPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD);
        fin(nb, &r);
        for (int i = 0; i < n; i++)
            CHECK(b[i] == val(root, i), "bcast nb %d n %d root %d [%d]=%d", nb, n, root, i, b[i]);
    }
    free(b);
}

static void t_gather(int nb, int n, int inplace)
{
    int *s = ialloc((size_t)n), *g = ialloc((size_t)n * size);
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < n; i++)
            s[i] = val(rank, i);
        for (int i = 0; i < n * size; i++)
            g[i] = -1;
        int ip = inplace && rank == root;
        if (ip)
            memcpy(g + (size_t)rank * n, s, (size_t)n * sizeof(int));
        MPI_Request r;
        const void *sb = ip ? MPI_IN_PLACE : s;
        if (nb)
            MPI_Igather(sb, n, MPI_INT, g, n, MPI_INT, root, MPI_COMM_WORLD, &r);
        else
            MPI_Gather(sb, n, MPI_INT, g, n, MPI_INT, root, MPI_COMM_WORLD);
        fin(nb, &r);
        if (rank == root)
            for (int q = 0; q < size; q++)
                for (int i = 0; i < n; i++)
                    CHECK(g[(size_t)q * n + i] == val(q, i), "gather nb %d ip %d n %d root %d", nb,
                          inplace, n, root);
    }
    free(s);
    free(g);
}

/* v-forms: rank q contributes q % 3 + base elements, blocks placed in
 * reverse rank order with a gap of 2. */
static void v_layout(int base, int *cnt, int *dsp, int *total)
{
    int off = 0;
    for (int q = size - 1; q >= 0; q--) {
        cnt[q] = base ? q % 3 + base : 0;
        dsp[q] = off;
        off += cnt[q] + 2;
    }
    *total = off;
}

static void t_gatherv_scatterv(int nb, int base)
{
    int cnt[64], dsp[64], total;
    v_layout(base, cnt, dsp, &total);
    int *s = ialloc((size_t)cnt[rank]), *g = ialloc((size_t)total);
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < cnt[rank]; i++)
            s[i] = val(rank, i);
        for (int i = 0; i < total; i++)
            g[i] = -7;
        MPI_Request r;
        if (nb)
            MPI_Igatherv(s, cnt[rank], MPI_INT, g, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD, &r);
        else
            MPI_Gatherv(s, cnt[rank], MPI_INT, g, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD);
        fin(nb, &r);
        if (rank == root)
            for (int q = 0; q < size; q++) {
                for (int i = 0; i < cnt[q]; i++)
                    CHECK(g[dsp[q] + i] == val(q, i), "gatherv nb %d root %d q %d", nb, root, q);
                CHECK(g[dsp[q] + cnt[q]] == -7, "gatherv wrote into a gap");
            }
        /* scatterv back out of the same layout */
        for (int i = 0; i < cnt[rank]; i++)
            s[i] = -1;
        if (rank == root)
            for (int q = 0; q < size; q++)
                for (int i = 0; i < cnt[q]; i++)
                    g[dsp[q] + i] = val(q + root, i);
        if (nb)
            MPI_Iscatterv(g, cnt, dsp, MPI_INT, s, cnt[rank], MPI_INT, root, MPI_COMM_WORLD, &r);
        else
            MPI_Scatterv(g, cnt, dsp, MPI_INT, s, cnt[rank], MPI_INT, root, MPI_COMM_WORLD);
        fin(nb, &r);
        for (int i = 0; i < cnt[rank]; i++)
            CHECK(s[i] == val(rank + root, i), "scatterv nb %d root %d [%d]=%d", nb, root, i, s[i]);
    }
    free(s);
    free(g);
}

static void t_scatter(int nb, int n, int inplace)
{
    int *s = ialloc((size_t)n * size), *d = ialloc((size_t)n);
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < n * size; i++)
            s[i] = val(i / (n ? n : 1) + 7, i % (n ? n : 1));
        for (int i = 0; i < n; i++)
            d[i] = -1;
        int ip = inplace && rank == root;
        void *rb = ip ? MPI_IN_PLACE : d;
        MPI_Request r;
        if (nb)
            MPI_Iscatter(s, n, MPI_INT, rb, n, MPI_INT, root, MPI_COMM_WORLD, &r);
        else
            MPI_Scatter(s, n, MPI_INT, rb, n, MPI_INT, root, MPI_COMM_WORLD);
        fin(nb, &r);
        const int *got = ip ? s + (size_t)rank * n : d;
        for (int i = 0; i < n; i++)
            CHECK(got[i] == val(rank + 7, i), "scatter nb %d ip %d n %d root %d [%d]=%d", nb, ip, n,
                  root, i, got[i]);
    }
    free(s);
    free(d);
}

static void t_allgather(int nb, int n, int inplace)
{
    int *s = ialloc((size_t)n), *g = ialloc((size_t)n * size);
    for (int i = 0; i < n; i++)
        s[i] = val(rank, i);
    for (int i = 0; i < n * size; i++)
        g[i] = -1;
    if (inplace)
        memcpy(g + (size_t)rank * n, s, (size_t)n * sizeof(int));
    MPI_Request r;
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (nb)
        MPI_Iallgather(sb, n, MPI_INT, g, n, MPI_INT, MPI_COMM_WORLD, &r);
    else
        MPI_Allgather(sb, n, MPI_INT, g, n, MPI_INT, MPI_COMM_WORLD);
    fin(nb, &r);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < n; i++)
            CHECK(g[(size_t)q * n + i] == val(q, i), "allgather nb %d ip %d n %d", nb, inplace, n);
    free(s);
    free(g);
}

static void t_allgatherv(int nb, int base, int inplace)
{
    int cnt[64], dsp[64], total;
    v_layout(base, cnt, dsp, &total);
    int *s = ialloc((size_t)cnt[rank]), *g = ialloc((size_t)total);
    for (int i = 0; i < cnt[rank]; i++)
        s[i] = val(rank, i);
    for (int i = 0; i < total; i++)
        g[i] = -7;
    if (inplace)
        memcpy(g + dsp[rank], s, (size_t)cnt[rank] * sizeof(int));
    MPI_Request r;
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (nb)
        MPI_Iallgatherv(sb, cnt[rank], MPI_INT, g, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &r);
    else
        MPI_Allgatherv(sb, cnt[rank], MPI_INT, g, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    fin(nb, &r);
    for (int q = 0; q < size; q++) {
        for (int i = 0; i < cnt[q]; i++)
            CHECK(g[dsp[q] + i] == val(q, i), "allgatherv nb %d ip %d q %d", nb, inplace, q);
        CHECK(g[dsp[q] + cnt[q]] == -7, "allgatherv wrote into a gap");
    }
    free(s);
    free(g);
}

/* Element i of the block rank a sends to rank b. */
static int a2a(int a, int b, int i) { return val(a * 64 + b, i); }

static void t_alltoall(int nb, int n, int inplace)
{
    size_t tot = (size_t)n * size;
    int *s = ialloc(tot), *d = ialloc(tot);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < n; i++) {
            s[(size_t)q * n + i] = a2a(rank, q, i);
            d[(size_t)q * n + i] = inplace ? a2a(rank, q, i) : -1;
        }
    MPI_Request r;
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (nb)
        MPI_Ialltoall(sb, n, MPI_INT, d, n, MPI_INT, MPI_COMM_WORLD, &r);
    else
        MPI_Alltoall(sb, n, MPI_INT, d, n, MPI_INT, MPI_COMM_WORLD);
    fin(nb, &r);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < n; i++)
            CHECK(d[(size_t)q * n + i] == a2a(q, rank, i), "alltoall nb %d ip %d n %d from %d", nb,
                  inplace, n, q);
    free(s);
    free(d);
}

/* Alltoallv: rank a sends (a + b) % 4 * base elements to b; blocks are
 * stored in reverse order.  Alltoallw: the same with byte displacements. */
static void t_alltoallv(int nb, int base, int w)
{
    int sc[64], sd[64], rc[64], rd[64], so = 0, ro = 0;
    MPI_Datatype ty[64];
    for (int q = size - 1; q >= 0; q--) {
        sc[q] = (rank + q) % 4 * base;
        rc[q] = (q + rank) % 4 * base;
        sd[q] = so;
        rd[q] = ro;
        so += sc[q] + 1;
        ro += rc[q] + 1;
        ty[q] = MPI_INT;
    }
    int *s = ialloc((size_t)so), *d = ialloc((size_t)ro);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < sc[q]; i++)
            s[sd[q] + i] = a2a(rank, q, i);
    for (int i = 0; i < ro; i++)
        d[i] = -1;
    MPI_Request r;
    if (w) {
        int sdb[64], rdb[64];
        for (int q = 0; q < size; q++) {
            sdb[q] = sd[q] * (int)sizeof(int);
            rdb[q] = rd[q] * (int)sizeof(int);
        }
        if (nb)
            MPI_Ialltoallw(s, sc, sdb, ty, d, rc, rdb, ty, MPI_COMM_WORLD, &r);
        else
            MPI_Alltoallw(s, sc, sdb, ty, d, rc, rdb, ty, MPI_COMM_WORLD);
    } else if (nb) {
        MPI_Ialltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, MPI_COMM_WORLD, &r);
    } else {
        MPI_Alltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, MPI_COMM_WORLD);
    }
    fin(nb, &r);
    for (int q = 0; q < size; q++) {
        for (int i = 0; i < rc[q]; i++)
            CHECK(d[rd[q] + i] == a2a(q, rank, i), "alltoallv w %d nb %d from %d [%d]", w, nb, q, i);
        CHECK(d[rd[q] + rc[q]] == -1, "alltoallv wrote into a gap");
    }
    free(s);
    free(d);
}

static long sum_upto(int hi, int i) /* ranks [0, hi) */
{
    long a = 0;
    for (int q = 0; q < hi; q++)
        a += val(q, i);
    return a;
}

static void t_reductions(int nb, int n, int inplace)
{
    int *s = ialloc((size_t)n), *d = ialloc((size_t)n);
    MPI_Request r;
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < n; i++) {
            s[i] = val(rank, i);
            d[i] = s[i];
        }
        int ip = inplace && rank == root;
#ifndef HCMPI /* Debian's MPICH 4.0 crashes on a large in-place MPI_Reduce */
        ip = ip && n < 100000;
#endif
        const void *sb = ip ? MPI_IN_PLACE : s;
        if (nb)
            MPI_Ireduce(sb, d, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &r);
        else
            MPI_Reduce(sb, d, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        fin(nb, &r);
        if (rank == root)
            for (int i = 0; i < n; i++)
                CHECK(d[i] == sum_upto(size, i), "reduce nb %d root %d", nb, root);
    }
    const void *sb = inplace ? MPI_IN_PLACE : s;
    for (int i = 0; i < n; i++)
        d[i] = s[i];
    if (nb)
        MPI_Iallreduce(sb, d, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    else
        MPI_Allreduce(sb, d, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    fin(nb, &r);
    for (int i = 0; i < n; i++)
        CHECK(d[i] == sum_upto(size, i), "allreduce nb %d ip %d n %d", nb, inplace, n);
    for (int i = 0; i < n; i++)
        d[i] = s[i];
    if (nb)
        MPI_Iscan(sb, d, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    else
        MPI_Scan(sb, d, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    fin(nb, &r);
    for (int i = 0; i < n; i++)
        CHECK(d[i] == sum_upto(rank + 1, i), "scan nb %d ip %d [%d]=%d", nb, inplace, i, d[i]);
    for (int i = 0; i < n; i++)
        d[i] = inplace ? s[i] : -99;
    if (nb)
        MPI_Iexscan(sb, d, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    else
        MPI_Exscan(sb, d, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    fin(nb, &r);
    if (rank > 0)
        for (int i = 0; i < n; i++)
            CHECK(d[i] == sum_upto(rank, i), "exscan nb %d ip %d [%d]=%d", nb, inplace, i, d[i]);
    free(s);
    free(d);
}

static void t_reduce_scatter(int nb, int base, int inplace)
{
    int cnt[64], total = 0, off = 0;
    for (int q = 0; q < size; q++) {
        cnt[q] = base ? (q % 3) + base : 0;
        if (q < rank)
            off += cnt[q];
        total += cnt[q];
    }
    int *s = ialloc((size_t)total), *d = ialloc((size_t)total);
    for (int i = 0; i < total; i++)
        s[i] = d[i] = val(rank, i);
    MPI_Request r;
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (nb)
        MPI_Ireduce_scatter(sb, d, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    else
        MPI_Reduce_scatter(sb, d, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    fin(nb, &r);
    for (int i = 0; i < cnt[rank]; i++)
        CHECK(d[i] == sum_upto(size, off + i), "reduce_scatter nb %d ip %d [%d]=%d", nb, inplace,
              i, d[i]);
    /* block form */
    int b = base;
    for (int i = 0; i < total; i++)
        d[i] = s[i];
    if (nb)
        MPI_Ireduce_scatter_block(sb, d, b, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    else
        MPI_Reduce_scatter_block(sb, d, b, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    fin(nb, &r);
    for (int i = 0; i < b; i++)
        CHECK(d[i] == sum_upto(size, rank * b + i), "reduce_scatter_block nb %d ip %d", nb,
              inplace);
    free(s);
    free(d);
}

static void t_barrier(int nb)
{
    MPI_Request r;
    if (nb)
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    fin(nb, &r);
}

/* ---- op x type through MPI_Allreduce ------------------------------------ */

#define OT_N 4

/* Values of rank q at i: small, so every product and sum is exact. */
static int ot_v(int q, int i) { return (q + i) % 3 + (i & 1); }

static long ot_ref(MPI_Op op, int i)
{
    long a = ot_v(0, i);
    for (int q = 1; q < size; q++) {
        long v = ot_v(q, i);
        if (op == MPI_SUM)
            a += v;
        else if (op == MPI_PROD)
            a *= v;
        else if (op == MPI_MAX)
            a = v > a ? v : a;
        else if (op == MPI_MIN)
            a = v < a ? v : a;
        else if (op == MPI_LAND)
            a = a && v;
        else if (op == MPI_LOR)
            a = a || v;
        else if (op == MPI_LXOR)
            a = !a != !v;
        else if (op == MPI_BAND)
            a &= v;
        else if (op == MPI_BOR)
            a |= v;
        else if (op == MPI_BXOR)
            a ^= v;
    }
    return a;
}

#define OT_TYPE(T, H, FLOAT)                                                                   \
    {                                                                                          \
        T in[OT_N], out[OT_N];                                                                 \
        for (int i = 0; i < OT_N; i++)                                                         \
            in[i] = (T)ot_v(rank, i);                                                          \
        for (int o = 0; o < nops; o++) {                                                       \
            if (FLOAT && o >= 4)                                                               \
                break;                                                                         \
            CHECK(MPI_Allreduce(in, out, OT_N, H, ops[o], MPI_COMM_WORLD) == MPI_SUCCESS,      \
                  "allreduce " #H " op %d", o);                                                \
            for (int i = 0; i < OT_N; i++)                                                     \
                CHECK(out[i] == (T)ot_ref(ops[o], i), #H " op %d [%d] = %ld want %ld", o, i,    \
                      (long)out[i], ot_ref(ops[o], i));                                        \
        }                                                                                      \
    }

static void t_op_types(void)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX,  MPI_MIN, MPI_LAND,
                                 MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    const int nops = (int)(sizeof ops / sizeof ops[0]);
    OT_TYPE(signed char, MPI_SIGNED_CHAR, 0)
    OT_TYPE(unsigned char, MPI_UNSIGNED_CHAR, 0)
    OT_TYPE(short, MPI_SHORT, 0)
    OT_TYPE(unsigned short, MPI_UNSIGNED_SHORT, 0)
    OT_TYPE(int, MPI_INT, 0)
    OT_TYPE(unsigned, MPI_UNSIGNED, 0)
    OT_TYPE(long, MPI_LONG, 0)
    OT_TYPE(unsigned long, MPI_UNSIGNED_LONG, 0)
    OT_TYPE(long long, MPI_LONG_LONG, 0)
    OT_TYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG, 0)
    OT_TYPE(int8_t, MPI_INT8_T, 0)
    OT_TYPE(int16_t, MPI_INT16_T, 0)
    OT_TYPE(int32_t, MPI_INT32_T, 0)
    OT_TYPE(int64_t, MPI_INT64_T, 0)
    OT_TYPE(uint8_t, MPI_UINT8_T, 0)
    OT_TYPE(uint16_t, MPI_UINT16_T, 0)
    OT_TYPE(uint32_t, MPI_UINT32_T, 0)
    OT_TYPE(uint64_t, MPI_UINT64_T, 0)
    OT_TYPE(float, MPI_FLOAT, 1)
    OT_TYPE(double, MPI_DOUBLE, 1)
    OT_TYPE(long double, MPI_LONG_DOUBLE, 1)
    /* MAXLOC / MINLOC on a pair type: value ties broken by the lower rank. */
    struct {
        double v;
        int r;
    } in = {(double)(rank % 3), rank}, mx, mn;
    MPI_Allreduce(&in, &mx, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    MPI_Allreduce(&in, &mn, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    int want_mx = size >= 3 ? 2 : size - 1;
    CHECK(mx.v == (double)want_mx && mx.r == want_mx, "maxloc %g@%d", mx.v, mx.r);
    CHECK(mn.v == 0.0 && mn.r == 0, "minloc %g@%d", mn.v, mn.r);
}

/* ---- user ops ------------------------------------------------------------ */

/* Non-commutative: 2x2 integer matrix product, inout = in * inout, on
 * groups of 4 MPI_INTs (counts are multiples of 4 and the reduction of a
 * non-commutative op is never split inside an element group here). */
static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int k = 0; k < *len / 4; k++, a += 4, b += 4) {
        int c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
        int c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
        b[0] = c0;
        b[1] = c1;
        b[2] = c2;
        b[3] = c3;
    }
}

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++)
        ((int *)inout)[k] += ((int *)in)[k];
}

static void mat_of(int q, int *m) /* [[1, q+1], [0, 1]] then scaled rows */
{
    m[0] = 1;
    m[1] = q + 1;
    m[2] = q % 2;
    m[3] = 1;
}

static void mat_ref(int upto, int *m)
{
    int acc[4] = {1, 0, 0, 1}, x[4];
    for (int q = 0; q < upto; q++) {
        mat_of(q, x);
        mat_mul(acc, x, &(int){4}, NULL); /* x = acc * x */
        memcpy(acc, x, sizeof acc);
    }
    memcpy(m, acc, sizeof acc);
}

static void t_user_ops(int nb)
{
    MPI_Op mop, sop;
    MPI_Datatype m4 = MPI_INT;
    MPI_Op_create(mat_mul, 0, &mop);
    MPI_Op_create(my_sum, 1, &sop);
    int in[8], out[8], ref[4];
    mat_of(rank, in);
    mat_of(rank, in + 4);
    MPI_Request r;
    for (int root = 0; root < size; root++) {
        if (nb)
            MPI_Ireduce(in, out, 8, m4, mop, root, MPI_COMM_WORLD, &r);
        else
            MPI_Reduce(in, out, 8, m4, mop, root, MPI_COMM_WORLD);
        fin(nb, &r);
        mat_ref(size, ref);
        if (rank == root)
            CHECK(!memcmp(out, ref, sizeof ref) && !memcmp(out + 4, ref, sizeof ref),
                  "non-commutative reduce root %d: %d %d %d %d", root, out[0], out[1], out[2],
                  out[3]);
    }
    if (nb)
        MPI_Iallreduce(in, out, 8, m4, mop, MPI_COMM_WORLD, &r);
    else
        MPI_Allreduce(in, out, 8, m4, mop, MPI_COMM_WORLD);
    fin(nb, &r);
    CHECK(!memcmp(out, ref, sizeof ref), "non-commutative allreduce");
    if (nb)
        MPI_Iscan(in, out, 8, m4, mop, MPI_COMM_WORLD, &r);
    else
        MPI_Scan(in, out, 8, m4, mop, MPI_COMM_WORLD);
    fin(nb, &r);
    mat_ref(rank + 1, ref);
    CHECK(!memcmp(out + 4, ref, sizeof ref), "non-commutative scan");
    int bl[64 * 4], rs[4];
    for (int q = 0; q < size; q++)
        mat_of(rank, bl + 4 * q);
    if (nb)
        MPI_Ireduce_scatter_block(bl, rs, 4, m4, mop, MPI_COMM_WORLD, &r);
    else
        MPI_Reduce_scatter_block(bl, rs, 4, m4, mop, MPI_COMM_WORLD);
    fin(nb, &r);
    mat_ref(size, ref);
    CHECK(!memcmp(rs, ref, sizeof ref), "non-commutative reduce_scatter_block");
    int v = rank + 1, sum = 0;
    if (nb)
        MPI_Iallreduce(&v, &sum, 1, MPI_INT, sop, MPI_COMM_WORLD, &r);
    else
        MPI_Allreduce(&v, &sum, 1, MPI_INT, sop, MPI_COMM_WORLD);
    fin(nb, &r);
    CHECK(sum == size * (size + 1) / 2, "user sum %d", sum);
    MPI_Op_free(&mop);
    MPI_Op_free(&sop);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    big = argc > 1 && !strcmp(argv[1], "big");
    CHECK(size <= 64, "at most 64 ranks");
    for (int nb = 0; nb < 2; nb++) {
        t_barrier(nb);
        for (int k = 0; k < (big ? 3 : 2); k++) {
            int n = counts_n(k);
            t_bcast(nb, n);
            for (int ip = 0; ip < 2; ip++) {
                t_gather(nb, n, ip);
                t_scatter(nb, n, ip);
                t_allgather(nb, n, ip);
                t_alltoall(nb, k == 2 ? n / size : n, ip);
                t_reductions(nb, n, ip);
            }
        }
        for (int base = 0; base < 3; base += 2) {
            t_gatherv_scatterv(nb, base);
            for (int ip = 0; ip < 2; ip++) {
                t_allgatherv(nb, base, ip);
                t_reduce_scatter(nb, base, ip);
            }
            t_alltoallv(nb, base, 0);
            t_alltoallv(nb, base, 1);
        }
        t_user_ops(nb);
    }
    t_op_types();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_full: %d ranks ok%s\n", size, big ? " (with > 1 MiB)" : "");
    MPI_Finalize();
    return 0;
}

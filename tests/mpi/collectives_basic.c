/* Collectives against a serial reference on any number of ranks: Barrier,
 * Bcast (every root, small and 1 MiB), Reduce (every root) and Allreduce
 * with SUM/MAX/MIN/PROD on int and double, MAXLOC on MPI_DOUBLE_INT, Gather
 * and Allgather, each also with MPI_IN_PLACE.  Inputs are small integers so
 * every double result is exact. */
#include "mpitest.h"

#define CB_N 37

static int cb_ival(int r, int i) { return (r * 7 + i * 3) % 11 - 5; }
static int cb_pval(int r, int i) { return (r + i) % 3 == 0 ? 2 : 1; }

struct cb_dint {
    double v;
    int r;
};

static void cb_bcast(int rank, int size)
{
    int n = 1 << 18;
    int *buf = mt_malloc(sizeof(int) * (size_t)n);
    for (int root = 0; root < size; root++) {
        for (int len = 1; len <= n; len *= 512) {
            for (int i = 0; i < len; i++)
                buf[i] = rank == root ? root * 1000003 + i : -1;
            MPI_Bcast(buf, len, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < len; i++)
                CHECK(buf[i] == root * 1000003 + i, "Bcast root %d len %d: [%d] = %d", root, len,
                      i, buf[i]);
        }
    }
    free(buf);
}

static int cb_ref_int(MPI_Op op, int size, int i)
{
    int acc = op == MPI_PROD ? cb_pval(0, i) : cb_ival(0, i);
    for (int r = 1; r < size; r++) {
        int v = op == MPI_PROD ? cb_pval(r, i) : cb_ival(r, i);
        if (op == MPI_SUM)
            acc += v;
        else if (op == MPI_MAX)
            acc = v > acc ? v : acc;
        else if (op == MPI_MIN)
            acc = v < acc ? v : acc;
        else
            acc *= v;
    }
    return acc;
}

static void cb_fill(int rank, MPI_Op op, int *iv, double *dv)
{
    for (int i = 0; i < CB_N; i++) {
        iv[i] = op == MPI_PROD ? cb_pval(rank, i) : cb_ival(rank, i);
        dv[i] = (double)iv[i] * 0.5;
    }
}

static void cb_check(const int *iv, const double *dv, MPI_Op op, int size, const char *what,
                     int root)
{
    for (int i = 0; i < CB_N; i++) {
        int ref = cb_ref_int(op, size, i);
        double dref = ref * 0.5; /* SUM, MAX and MIN scale; PROD does not */
        if (op == MPI_PROD) {
            dref = 1.0;
            for (int r = 0; r < size; r++)
                dref *= cb_pval(r, i) * 0.5;
        }
        CHECK(iv[i] == ref, "%s root %d int [%d] = %d, want %d", what, root, i, iv[i], ref);
        CHECK(dv[i] == dref, "%s root %d double [%d] = %g, want %g", what, root, i, dv[i], dref);
    }
}

static void cb_reduce(int rank, int size)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
    int iv[CB_N], ir[CB_N];
    double dv[CB_N], dr[CB_N];
    for (int k = 0; k < 4; k++) {
        MPI_Op op = ops[k];
        for (int root = 0; root < size; root++) {
            cb_fill(rank, op, iv, dv);
            MPI_Reduce(iv, ir, CB_N, MPI_INT, op, root, MPI_COMM_WORLD);
            MPI_Reduce(dv, dr, CB_N, MPI_DOUBLE, op, root, MPI_COMM_WORLD);
            if (rank == root)
                cb_check(ir, dr, op, size, "Reduce", root);
            /* IN_PLACE at the root. */
            if (rank == root) {
                MPI_Reduce(MPI_IN_PLACE, iv, CB_N, MPI_INT, op, root, MPI_COMM_WORLD);
                MPI_Reduce(MPI_IN_PLACE, dv, CB_N, MPI_DOUBLE, op, root, MPI_COMM_WORLD);
                cb_check(iv, dv, op, size, "Reduce IN_PLACE", root);
            } else {
                MPI_Reduce(iv, NULL, CB_N, MPI_INT, op, root, MPI_COMM_WORLD);
                MPI_Reduce(dv, NULL, CB_N, MPI_DOUBLE, op, root, MPI_COMM_WORLD);
            }
        }
        cb_fill(rank, op, iv, dv);
        MPI_Allreduce(iv, ir, CB_N, MPI_INT, op, MPI_COMM_WORLD);
        MPI_Allreduce(dv, dr, CB_N, MPI_DOUBLE, op, MPI_COMM_WORLD);
        cb_check(ir, dr, op, size, "Allreduce", -1);
        MPI_Allreduce(MPI_IN_PLACE, iv, CB_N, MPI_INT, op, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, dv, CB_N, MPI_DOUBLE, op, MPI_COMM_WORLD);
        cb_check(iv, dv, op, size, "Allreduce IN_PLACE", -1);
    }
}

/* MAXLOC: ties go to the lowest rank. */
static void cb_maxloc(int rank, int size)
{
    struct cb_dint in[CB_N], out[CB_N];
    for (int i = 0; i < CB_N; i++) {
        in[i].v = (double)((rank * 5 + i) % 4);
        in[i].r = rank;
    }
    MPI_Allreduce(in, out, CB_N, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    for (int i = 0; i < CB_N; i++) {
        double best = -1;
        int who = -1;
        for (int r = 0; r < size; r++)
            if ((double)((r * 5 + i) % 4) > best) {
                best = (double)((r * 5 + i) % 4);
                who = r;
            }
        CHECK(out[i].v == best && out[i].r == who, "MAXLOC [%d] = (%g,%d), want (%g,%d)", i,
              out[i].v, out[i].r, best, who);
    }
}

static void cb_gather(int rank, int size)
{
    int mine[3], *all = mt_malloc(sizeof(int) * 3 * (size_t)size);
    for (int i = 0; i < 3; i++)
        mine[i] = rank * 10 + i;
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < 3 * size; i++)
            all[i] = -1;
        MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root, MPI_COMM_WORLD);
        if (rank == root)
            for (int i = 0; i < 3 * size; i++)
                CHECK(all[i] == (i / 3) * 10 + i % 3, "Gather root %d [%d] = %d", root, i, all[i]);
        if (rank == root) {
            for (int i = 0; i < 3 * size; i++)
                all[i] = i / 3 == rank ? mine[i % 3] : -1;
            MPI_Gather(MPI_IN_PLACE, 3, MPI_INT, all, 3, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < 3 * size; i++)
                CHECK(all[i] == (i / 3) * 10 + i % 3, "Gather IN_PLACE root %d [%d] = %d", root,
                      i, all[i]);
        } else {
            MPI_Gather(mine, 3, MPI_INT, NULL, 3, MPI_INT, root, MPI_COMM_WORLD);
        }
    }
    for (int i = 0; i < 3 * size; i++)
        all[i] = -1;
    MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 3 * size; i++)
        CHECK(all[i] == (i / 3) * 10 + i % 3, "Allgather [%d] = %d", i, all[i]);
    for (int i = 0; i < 3 * size; i++)
        all[i] = i / 3 == rank ? mine[i % 3] : -1;
    MPI_Allgather(MPI_IN_PLACE, 3, MPI_INT, all, 3, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 3 * size; i++)
        CHECK(all[i] == (i / 3) * 10 + i % 3, "Allgather IN_PLACE [%d] = %d", i, all[i]);
    free(all);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 5; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    cb_bcast(rank, size);
    cb_reduce(rank, size);
    cb_maxloc(rank, size);
    cb_gather(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("collectives_basic: %d ranks: OK\n", size);
    MPI_Finalize();
    return 0;
}

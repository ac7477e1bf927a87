/* Several non-blocking collectives outstanding at once, on MPI_COMM_WORLD
 * and on a duplicate and a split of it, completed by one MPI_Waitall over
 * the requests in a shuffled order (or by polling MPI_Testall): each
 * result must be its own collective's, so sequence tags keep concurrent
 * collectives on one communicator apart.  A blocking collective runs while
 * non-blocking ones are outstanding.  Then the error classes of bad
 * arguments (invalid root, negative count, invalid op) under
 * MPI_ERRORS_RETURN. */
#include "mpitest.h"

#define NB_N 1000
#define NB_K 10 /* collectives per round */

static int rank, size;

static int val(int r, int i, int k) { return (r * 31 + i * 3 + k * 1009) % 4096; }

typedef struct nb_bufs {
    int s[NB_K][NB_N];
    int *d[NB_K];
} nb_bufs_t;

/* Starts NB_K collectives of different kinds, alternating communicators. */
static void nb_start(nb_bufs_t *b, MPI_Comm *comms, int ncomm, MPI_Request *reqs)
{
    for (int k = 0; k < NB_K; k++) {
        MPI_Comm c = comms[k % ncomm];
        int n = NB_N, csize, root = k % size;
        MPI_Comm_size(c, &csize);
        root %= csize;
        for (int i = 0; i < n; i++)
            b->s[k][i] = val(rank, i, k);
        for (int i = 0; i < n * csize; i++)
            b->d[k][i] = -1;
        switch (k % 5) {
        case 0:
            MPI_Iallreduce(b->s[k], b->d[k], n, MPI_INT, MPI_SUM, c, &reqs[k]);
            break;
        case 1:
            MPI_Iallgather(b->s[k], n, MPI_INT, b->d[k], n, MPI_INT, c, &reqs[k]);
            break;
        case 2:
            memcpy(b->d[k], b->s[k], sizeof b->s[k]);
            MPI_Ibcast(b->d[k], n, MPI_INT, root, c, &reqs[k]);
            break;
        case 3:
            MPI_Iscan(b->s[k], b->d[k], n, MPI_INT, MPI_SUM, c, &reqs[k]);
            break;
        default:
            MPI_Ibarrier(c, &reqs[k]);
        }
    }
}

static void nb_check(nb_bufs_t *b, MPI_Comm *comms, int ncomm)
{
    for (int k = 0; k < NB_K; k++) {
        MPI_Comm c = comms[k % ncomm];
        int csize, crank, root = k % size;
        MPI_Comm_size(c, &csize);
        MPI_Comm_rank(c, &crank);
        root %= csize;
        /* world rank of comm rank q */
        int wr[64];
        MPI_Allgather(&rank, 1, MPI_INT, wr, 1, MPI_INT, c);
        for (int i = 0; i < NB_N; i++) {
            long want = 0;
            switch (k % 5) {
            case 0:
            case 3:
                for (int q = 0; q < (k % 5 == 0 ? csize : crank + 1); q++)
                    want += val(wr[q], i, k);
                CHECK(b->d[k][i] == want, "k %d [%d] = %d want %ld", k, i, b->d[k][i], want);
                break;
            case 1:
                for (int q = 0; q < csize; q++)
                    CHECK(b->d[k][q * NB_N + i] == val(wr[q], i, k), "allgather k %d q %d", k, q);
                break;
            case 2:
                CHECK(b->d[k][i] == val(wr[root], i, k), "bcast k %d [%d]", k, i);
                break;
            default:
                break;
            }
        }
    }
}

static void nb_shuffle(MPI_Request *reqs, int n, unsigned seed)
{
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1));
        MPI_Request t = reqs[i];
        reqs[i] = reqs[j];
        reqs[j] = t;
    }
}

static void nb_bad_args(void)
{
    MPI_Request r;
    int x = 0, y = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(mt_class(MPI_Ibcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD, &r)) == MPI_ERR_ROOT,
          "Ibcast invalid root");
    CHECK(mt_class(MPI_Ireduce(&x, &y, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD, &r)) ==
              MPI_ERR_ROOT,
          "Ireduce invalid root");
#ifdef HCMPI /* MPICH as packaged does not check counts */
    CHECK(mt_class(MPI_Iallreduce(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r)) ==
              MPI_ERR_COUNT,
          "Iallreduce negative count");
#endif
    CHECK(mt_class(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &r)) ==
              MPI_ERR_OP,
          "Iallreduce invalid op");
    CHECK(mt_class(MPI_Scan(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD)) == MPI_ERR_OP,
          "Scan invalid op");
#ifdef HCMPI
    CHECK(mt_class(MPI_Iscatter(&x, 1, MPI_INT, &y, -1, MPI_INT, 0, MPI_COMM_WORLD, &r)) ==
              MPI_ERR_COUNT,
          "Iscatter negative count");
    CHECK(mt_class(MPI_Alltoall(&x, -1, MPI_INT, &y, 1, MPI_INT, MPI_COMM_WORLD)) ==
              MPI_ERR_COUNT,
          "Alltoall negative count");
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    MPI_Comm comms[3];
    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &comms[2]);
    nb_bufs_t *b = mt_malloc(sizeof *b);
    for (int k = 0; k < NB_K; k++)
        b->d[k] = mt_malloc(sizeof(int) * NB_N * (size_t)size);
    MPI_Request reqs[NB_K];
    for (int ncomm = 1; ncomm <= 3; ncomm++) {
        for (int it = 0; it < 3; it++) {
            nb_start(b, comms, ncomm, reqs);
            MPI_Request sh[NB_K];
            memcpy(sh, reqs, sizeof sh);
            nb_shuffle(sh, NB_K, (unsigned)(it * 7 + ncomm));
            if (it == 2) {
                int done = 0;
                while (!done)
                    MPI_Testall(NB_K, sh, &done, MPI_STATUSES_IGNORE);
            } else {
                CHECK(MPI_Waitall(NB_K, sh, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall");
            }
            for (int k = 0; k < NB_K; k++)
                CHECK(sh[k] == MPI_REQUEST_NULL, "request %d not freed", k);
            nb_check(b, comms, ncomm);
        }
    }
    /* A blocking collective while non-blocking ones are outstanding. */
    MPI_Request r2[2];
    int x = rank, y = -1, z = -1, w = -1;
    MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r2[0]);
    MPI_Iscan(&x, &z, 1, MPI_INT, MPI_SUM, comms[1], &r2[1]);
    MPI_Allreduce(&x, &w, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Waitall(2, r2, MPI_STATUSES_IGNORE);
    CHECK(y == size - 1 && w == 0 && z == rank * (rank + 1) / 2, "mixed %d %d %d", y, w, z);
    nb_bad_args();
    for (int k = 0; k < NB_K; k++)
        free(b->d[k]);
    free(b);
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_nbc: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}

/* A 2-D Jacobi solve that survives the loss of a rank (User-Level Failure
 * Mitigation).  The grid (NX columns, one strip of ROWS rows per block,
 * as many blocks as ranks at the start) has a hot top edge and cold other
 * edges.  Every CKPT iterations each rank copies its blocks into memory
 * and sends them to its buddy, the next rank; two generations are kept,
 * so a failure during the exchange still leaves a whole one.
 *
 * When a call fails (MPIX_ERR_PROC_FAILED, or MPIX_ERR_REVOKED because
 * another rank saw the failure first), the rank revokes the communicator
 * so that every other rank leaves what it was waiting for, shrinks it to
 * the survivors, agrees on the newest checkpoint every survivor holds,
 * and gives each lost block to the buddy that holds its copy.  Everyone
 * rolls back to that checkpoint and goes on.  The residual is summed per
 * block in block order, so it comes out bit for bit the same as a run
 * without failure, whoever owns the blocks.
 *
 *   resilient_jacobi [--kill RANK@ITER]... [--iters N]
 *
 * --kill makes world rank RANK SIGKILL itself at iteration ITER (a kill -9
 * from outside works as well); give it once per rank to kill.  Run under
 * hcmpirun --no-kill-on-failure (docs/ft.md).  Prints "residual R after N
 * iterations" from the lowest surviving rank. */
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 96   /* columns */
#define ROWS 16 /* rows per block */
#define CKPT 20 /* iterations between checkpoints */
#define MAXB 64 /* blocks at most (ranks at the start) */
#define CELLS ((ROWS + 2) * (NX + 2))

typedef struct {
    int iter;            /* iteration of this checkpoint, -1: none */
    double *own[MAXB];   /* my blocks */
    double *buddy[MAXB]; /* my predecessor's blocks */
} ckpt_t;

static int nblocks;
static int owner[MAXB];        /* rank in comm of each block's owner */
static double *grid[MAXB];     /* current values (with halos) of my blocks */
static double *next_grid[MAXB];
static ckpt_t ck[2]; /* the two newest checkpoints */
static MPI_Comm comm;
static int me, np;

#define AT(u, i, j) ((u)[(i) * (NX + 2) + (j)])

static double *cells(void)
{
    double *p = calloc(CELLS, sizeof *p);
    if (p == NULL) {
        fprintf(stderr, "resilient_jacobi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* The fixed edges: the top halo of block 0 is hot, all else 0. */
static void edges(int b, double *u)
{
    for (int j = 0; j < NX + 2; j++) {
        if (b == 0)
            AT(u, 0, j) = 1.0;
        if (b == nblocks - 1)
            AT(u, ROWS + 1, j) = 0.0;
    }
}

/* Halo rows from the neighbouring blocks: local copies where I own both,
 * else messages tagged by the receiving block and side. */
static int exchange(void)
{
    MPI_Request rq[4 * MAXB];
    int n = 0, rc = MPI_SUCCESS;
    for (int b = 0; b < nblocks && rc == MPI_SUCCESS; b++) {
        if (owner[b] != me)
            continue;
        double *u = grid[b];
        if (b > 0 && owner[b - 1] == me) {
            memcpy(&AT(u, 0, 0), &AT(grid[b - 1], ROWS, 0), (NX + 2) * sizeof(double));
        } else if (b > 0) {
            rc = MPI_Irecv(&AT(u, 0, 0), NX + 2, MPI_DOUBLE, owner[b - 1], 2 * b, comm, &rq[n++]);
            if (rc == MPI_SUCCESS)
                rc = MPI_Isend(&AT(u, 1, 0), NX + 2, MPI_DOUBLE, owner[b - 1], 2 * (b - 1) + 1,
                               comm, &rq[n++]);
        }
        if (b < nblocks - 1 && owner[b + 1] == me) {
            memcpy(&AT(u, ROWS + 1, 0), &AT(grid[b + 1], 1, 0), (NX + 2) * sizeof(double));
        } else if (b < nblocks - 1 && rc == MPI_SUCCESS) {
            rc = MPI_Irecv(&AT(u, ROWS + 1, 0), NX + 2, MPI_DOUBLE, owner[b + 1], 2 * b + 1,
                           comm, &rq[n++]);
            if (rc == MPI_SUCCESS)
                rc = MPI_Isend(&AT(u, ROWS, 0), NX + 2, MPI_DOUBLE, owner[b + 1],
                               2 * (b + 1), comm, &rq[n++]);
        }
    }
    int wrc = MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    return rc != MPI_SUCCESS ? rc : wrc;
}

static void sweep(void)
{
    for (int b = 0; b < nblocks; b++) {
        if (owner[b] != me)
            continue;
        double *u = grid[b], *v = next_grid[b];
        memcpy(v, u, CELLS * sizeof *v);
        for (int i = 1; i <= ROWS; i++)
            for (int j = 1; j <= NX; j++)
                AT(v, i, j) = 0.25 * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) +
                                      AT(u, i, j + 1));
        next_grid[b] = u;
        grid[b] = v;
    }
}

/* Stores my blocks over the older checkpoint and sends them to my buddy,
 * which stores them as its predecessor's; only then does the checkpoint
 * count as complete here. */
static int checkpoint(int iter)
{
    ckpt_t *c = &ck[ck[0].iter <= ck[1].iter ? 0 : 1];
    c->iter = -1;
    int buddy = (me + 1) % np, pred = (me + np - 1) % np, rc = MPI_SUCCESS, n = 0;
    MPI_Request rq[MAXB];
    for (int b = 0; b < nblocks && rc == MPI_SUCCESS; b++) {
        if (owner[b] != me)
            continue;
        if (c->own[b] == NULL)
            c->own[b] = cells();
        memcpy(c->own[b], grid[b], CELLS * sizeof(double));
        if (np > 1)
            rc = MPI_Isend(c->own[b], CELLS, MPI_DOUBLE, buddy, 1000 + b, comm, &rq[n++]);
    }
    for (int b = 0; b < nblocks && rc == MPI_SUCCESS && np > 1; b++) {
        if (owner[b] != pred)
            continue;
        if (c->buddy[b] == NULL)
            c->buddy[b] = cells();
        rc = MPI_Recv(c->buddy[b], CELLS, MPI_DOUBLE, pred, 1000 + b, comm, MPI_STATUS_IGNORE);
    }
    int wrc = MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = wrc;
    if (rc == MPI_SUCCESS)
        c->iter = iter;
    return rc;
}

/* Sum over the blocks, in block order, of the squared 5-point residual. */
static int residual(double *out)
{
    double part[MAXB] = {0}, sum[MAXB];
    for (int b = 0; b < nblocks; b++) {
        if (owner[b] != me)
            continue;
        const double *u = grid[b];
        double s = 0;
        for (int i = 1; i <= ROWS; i++)
            for (int j = 1; j <= NX; j++) {
                double r = 4 * AT(u, i, j) - AT(u, i - 1, j) - AT(u, i + 1, j) -
                           AT(u, i, j - 1) - AT(u, i, j + 1);
                s += r * r;
            }
        part[b] = s;
    }
    int rc = MPI_Allreduce(part, sum, nblocks, MPI_DOUBLE, MPI_SUM, comm);
    double total = 0;
    for (int b = 0; b < nblocks; b++)
        total += sum[b];
    *out = sqrt(total);
    return rc;
}

/* The old ranks that survive, as their ranks in the shrunken comm (-1:
 * lost). */
static void survivors(MPI_Comm old, MPI_Comm shrunk, int n_old, int *new_rank)
{
    MPI_Group go, gn;
    int idx[MAXB];
    for (int r = 0; r < n_old; r++)
        idx[r] = r;
    MPI_Comm_group(old, &go);
    MPI_Comm_group(shrunk, &gn);
    MPI_Group_translate_ranks(go, n_old, idx, gn, new_rank);
    for (int r = 0; r < n_old; r++)
        if (new_rank[r] == MPI_UNDEFINED)
            new_rank[r] = -1;
    MPI_Group_free(&go);
    MPI_Group_free(&gn);
}

/* Gives each block its new owner: a surviving owner keeps it, a lost
 * owner's goes to the survivor that held its copy (its next rank).
 * Returns 0 when a block has no copy left. */
static int reassign(const int *new_rank, int n_old, int *from_buddy)
{
    for (int b = 0; b < nblocks; b++) {
        int o = owner[b];
        from_buddy[b] = new_rank[o] < 0;
        if (!from_buddy[b]) {
            owner[b] = new_rank[o];
            continue;
        }
        int holder = new_rank[(o + 1) % n_old];
        if (holder < 0)
            return 0;
        owner[b] = holder;
    }
    return 1;
}

/* Back to checkpoint generation c: my own copies, and the buddy copies of
 * the blocks I take over. */
static void restore(const ckpt_t *c, const int *from_buddy)
{
    for (int b = 0; b < nblocks; b++) {
        if (owner[b] != me)
            continue;
        const double *src = from_buddy[b] ? c->buddy[b] : c->own[b];
        if (grid[b] == NULL) {
            grid[b] = cells();
            next_grid[b] = cells();
        }
        memcpy(grid[b], src, CELLS * sizeof(double));
    }
}

/* After a failure: revoke, so that every rank leaves what it waits for
 * and comes here; one agreement, which also meets the final one of ranks
 * that had already finished (see main; agreed: this rank comes from it);
 * shrink; agree on a checkpoint every survivor holds; move the lost
 * blocks.  Returns the iteration to go on from. */
static int recover(int agreed)
{
    if (!agreed) {
        int failed = 0;
        MPIX_Comm_revoke(comm);
        MPIX_Comm_agree(comm, &failed);
    }
    MPI_Comm shrunk;
    int rc = MPIX_Comm_shrink(comm, &shrunk);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "resilient_jacobi: shrink failed (%d)\n", rc);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int n_old = np, new_rank[MAXB], from_buddy[MAXB];
    survivors(comm, shrunk, n_old, new_rank);
    /* The newest checkpoint every survivor completed: the AND of one bit
     * per checkpoint each holds (numbered modulo 31: the two kept are
     * neighbours, and neighbours' halo exchanges keep every rank within a
     * checkpoint of the others). */
    int flag = 0;
    for (int s = 0; s < 2; s++)
        if (ck[s].iter >= 0)
            flag |= 1 << (ck[s].iter / CKPT % 31);
    MPIX_Comm_failure_ack(shrunk);
    rc = MPIX_Comm_agree(shrunk, &flag);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_SUCCESS && cls != MPIX_ERR_PROC_FAILED) /* flag not agreed */
        flag = 0;
    const ckpt_t *c = NULL;
    for (int s = 0; s < 2; s++)
        if (ck[s].iter >= 0 && (flag & (1 << (ck[s].iter / CKPT % 31))) &&
            (c == NULL || ck[s].iter > c->iter))
            c = &ck[s];
    if (c == NULL || !reassign(new_rank, n_old, from_buddy)) {
        fprintf(stderr,
                "resilient_jacobi: a block and its copy were both lost (checkpoints agreed "
                "%#x, kept here %d and %d)\n",
                flag, ck[0].iter, ck[1].iter);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
    comm = shrunk;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    restore(c, from_buddy);
    /* The other one belongs to the old owners (or an abandoned future). */
    ck[c == &ck[0] ? 1 : 0].iter = -1;
    int wr;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    printf("world rank %d: recovered on %d ranks from the checkpoint of iteration %d\n", wr, np,
           c->iter);
    return c->iter;
}

int main(int argc, char **argv)
{
    int iters = 300, kill_iter = -1, wr;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    for (int i = 1; i + 1 < argc; i += 2) {
        int r = -1, at = -1;
        if (strcmp(argv[i], "--kill") == 0 && sscanf(argv[i + 1], "%d@%d", &r, &at) == 2 &&
            r == wr)
            kill_iter = at; /* the last one naming this rank */
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
    }
    comm = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    nblocks = np;
    if (np > MAXB) {
        fprintf(stderr, "resilient_jacobi: at most %d ranks\n", MAXB);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int b = 0; b < nblocks; b++)
        owner[b] = b;
    ck[0].iter = ck[1].iter = -1;
    grid[me] = cells();
    next_grid[me] = cells();
    int iter = 0, done = 0;
    double res = 0;
    while (!done) {
        if (iter == kill_iter) {
            fflush(stdout);
            raise(SIGKILL);
        }
        int rc = MPI_SUCCESS;
        if (iter % CKPT == 0 && iter < iters)
            rc = checkpoint(iter);
        for (int b = 0; b < nblocks; b++)
            if (owner[b] == me)
                edges(b, grid[b]);
        if (rc == MPI_SUCCESS)
            rc = exchange();
        int agreed = 0;
        if (rc == MPI_SUCCESS && iter == iters) {
            /* Everyone agrees that everyone has the residual before anyone
             * leaves (one that left would look failed to one still waiting);
             * if not, all recover together. */
            int ok = residual(&res) == MPI_SUCCESS, cls;
            MPI_Error_class(MPIX_Comm_agree(comm, &ok), &cls);
            done = ok && (cls == MPI_SUCCESS || cls == MPIX_ERR_PROC_FAILED);
            rc = done ? MPI_SUCCESS : MPI_ERR_OTHER;
            agreed = 1;
        }
        if (rc != MPI_SUCCESS) {
            iter = recover(agreed);
        } else if (!done) {
            sweep();
            iter++;
        }
    }
    if (me == 0)
        printf("residual %.17g after %d iterations on %d ranks\n", res, iters, np);
    MPI_Finalize();
    return 0;
}

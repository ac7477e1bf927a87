/* The shared-memory Barrier, Bcast, Reduce and Allreduce of one node's
 * ranks (src/hcomm/shmcoll.c), checked against a serial reference.
 *
 *   coll_shm            every one of them, in place and not, on
 *                       MPI_COMM_WORLD, a dup and an even/odd split, over
 *                       sizes that take the whole-vector path, the sliced
 *                       one and several pipeline chunks, with a sum, a
 *                       max, a maxloc and a non-commutative user op (2x2
 *                       matrix products, whose order shows); buffers change
 *                       every iteration, and enough collectives run on each
 *                       communicator to wrap its sequence numbers.  Each
 *                       iteration also runs a ring of point-to-point
 *                       messages and schedule collectives (Iallreduce left
 *                       in flight across the blocking ones, Allgather on
 *                       the dup); a node communicator too
 *                       (MPI_COMM_TYPE_SHARED), for jobs that span nodes.
 *   coll_shm kill KIND  rank 1 dies (SIGKILL) on entering its 6th KIND
 *                       (barrier, bcast, bcast-root, bcast-large,
 *                       bcast-large-root: 300000 bytes, several chunks,
 *                       reduce, allreduce, reduce-large,
 *                       reduce-large-root (its root the victim),
 *                       allreduce-large: 300000 bytes, sliced over two
 *                       slots, allgather, allgather-large (300000
 *                       bytes each, at most 4 ranks), alltoall,
 *                       alltoall-large (75000 bytes each, at most 4
 *                       ranks), alltoallv, alltoallv-large (the same
 *                       blocks), allgatherv, reduce_scatter (2 ints a
 *                       rank), reduce_scatter_block,
 *                       reduce_scatter_block-large (300000 bytes),
 *                       allreduce-init-large, bcast-init-large (the
 *                       persistent forms, 300000 bytes, read in lanes;
 *                       the Allreduce on more than 2 ranks the segment's
 *                       pipeline in a wide lane), allreduce-init-reused
 *                       (the same in a wide lane given back by two made
 *                       and freed before it), alltoall-init-large (blocks
 *                       read from their senders), bcast-init-small,
 *                       reduce-init-small (4 ints, root 0: a deep
 *                       lane), allreduce-init-small (2 ints: a deep
 *                       lane), barrier-init (a lane), gather, gather-root, scatter, scatter-root,
 *                       gatherv, gatherv-root, scatterv, scatterv-root
 *                       (2 ints per rank in the
 *                       segment; -root: the victim is the root),
 *                       gather-16k, scatter-16k and their -root kinds
 *                       (16 KiB a rank: gather's read in place),
 *                       gather-1k, scatter-1k and their -root kinds (1
 *                       KiB a rank: through the large buffers, or a span
 *                       of two small ones where the node is crowded),
 *                       gatherv-1k, scatterv-1k and their -root kinds
 *                       (the same as v-forms: where crowded through the
 *                       medium buffers)); the
 *                       survivors
 *                       must get MPIX_ERR_PROC_FAILED from one of their
 *                       next few KINDs, never hang.  Run under hcmpirun
 *                       --no-kill-on-failure, on 2 ranks or more.
 *   coll_shm large-bcast
 *                       Bcasts from every root of sizes about the
 *                       pipeline's buffers (4 KiB, 64 KiB) and odd ones up
 *                       to 1 MiB, checked byte by byte, and that none of
 *                       them sent a transport message (hcmpi's MPI_T
 *                       counters): the segment takes them on any number
 *                       of ranks, two as well.
 *   coll_shm pair-bcast
 *                       2 ranks, reads of the root's buffer off
 *                       (HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN=0): Bcasts
 *                       about 64 KiB and up to 4 MiB +
 *                       1 from both roots, checked byte by byte; those up
 *                       to 64 KiB and from HCMPI_COLL_SHM_PAIR_BCAST_SEG_MIN
 *                       (bytes) to 4 MiB send no transport message (the
 *                       segment), the others up to 4 MiB do.
 *   coll_shm read-bcast
 *                       Bcasts about the thresholds of reading the root's
 *                       buffer (HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN on two
 *                       ranks, HCMPI_COLL_SHM_BCAST_READ_MIN on more, up to
 *                       HCMPI_COLL_SHM_BCAST_READ_MAX) up to 4 MiB + 1, and
 *                       of a strided type, from every root, checked byte
 *                       by byte; those read send no transport message
 *                       (unless COLL_SHM_READS_REFUSED is set: some rank
 *                       cannot read, and all take the other paths).
 *   coll_shm crowded-bcast-root-free
 *                       more ranks than CPUs (HCMPI_COLL_SHM_CPUS) and
 *                       Bcasts not read there
 *                       (HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN above their
 *                       size): Bcasts and Ibcasts of 64 KiB - 1 to 200003
 *                       bytes (one or two steps of the segment's pipeline)
 *                       from every root, checked byte by byte, each root's
 *                       complete before any other rank enters its own (a
 *                       message from the root lets them in): the root
 *                       posts into the segment and waits for no reader.
 *                       A root that waited for its readers hangs.
 *   coll_shm large-reduce
 *                       Allreduce and Reduce (sum of ints, the matrix
 *                       product), in place and not, every root, of
 *                       vectors from 64 KiB, about the segment's slot
 *                       up to 4 MiB, checked element by
 *                       element, and that none of them sent a transport
 *                       message.
 *   coll_shm read-reduce
 *                       Reduces, Allreduces and Reduce_scatter_blocks
 *                       about the threshold of reading the other rank's
 *                       input on two ranks
 *                       (HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN, up to
 *                       HCMPI_COLL_SHM_PAIR_REDUCE_READ_MAX) and about its
 *                       64 KiB pieces, up to 1 MiB + 16: sums and maxes of
 *                       ints, the non-commutative matrix product (a
 *                       16-byte derived type), a strided type's sum, from
 *                       every root, in place and not, checked element by
 *                       element; none sends a transport message.
 *   coll_shm ring       runs of 300 back-to-back Bcasts and Reduces (sum of
 *                       ints) from every root, 1 to 513 bytes (the
 *                       segment's small buffers and just over), the
 *                       root's (senders') one buffer refilled before each
 *                       call, checked on every rank at each return; a run
 *                       of small strided Bcasts; after each run an
 *                       Allreduce, an Alltoall and a Barrier with a ring
 *                       message across it, checked; the runs send no
 *                       transport message.  With HCMPI_COLL_SHM_DEPTH
 *                       small (1, 2) and default, and asleep.
 *   coll_shm soak SECS  SECS seconds of Bcast, Barrier and Allreduce (and
 *                       nothing else), results checked: under
 *                       HCMPI_HANG_TIMEOUT with HCMPI_SPIN=0 (every wait
 *                       sleeps) the hang watchdog must see them progress.
 */
#include "mpitest.h"
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

static int wrank, wsize;

/* Element i of rank r's input in iteration it: small, so sums of 8 ranks
 * stay exact. */
static int val(int r, int it, size_t i)
{
    return (int)((unsigned)(r * 131 + it * 17) + (unsigned)i * 7u) % 1000 - 500;
}

/* ---- the non-commutative op: products of 2x2 matrices mod 2^32 --------- */

static void mat_mul(const uint32_t *a, const uint32_t *b, uint32_t *out)
{
    uint32_t t[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    memcpy(out, t, sizeof t);
}

/* inout = in * inout: in holds the lower ranks. */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int k = 0; k < *len; k++)
        mat_mul((uint32_t *)in + 4 * k, (uint32_t *)inout + 4 * k, (uint32_t *)inout + 4 * k);
}

static void mat_of(int r, int it, size_t k, uint32_t *m)
{
    for (int j = 0; j < 4; j++)
        m[j] = (uint32_t)val(r, it, 4 * k + (size_t)j) * 2654435761u + (uint32_t)j;
}

/* ---- checks --------------------------------------------------------------- */

typedef struct ctx {
    MPI_Comm comm;
    const char *name;
    int rank, size;
    int *a, *b;       /* int buffers of MAXN */
    uint32_t *m, *mr; /* matrix buffers of MAXM matrices */
    MPI_Datatype mat;
    MPI_Op matop;
} ctx_t;

#define MAXN 70000
#define MAXM 4000

/* Sums, maxes and maxlocs of count ints; in place or not; root -1:
 * Allreduce. */
static void check_int_reduction(ctx_t *c, int it, size_t count, MPI_Op op, int root, int inplace)
{
    int gets = root < 0 || root == c->rank, rc;
    for (size_t i = 0; i < count; i++) {
        c->a[i] = val(c->rank, it, i);
        c->b[i] = -12345;
    }
    const void *send = inplace && gets ? MPI_IN_PLACE : c->a;
    int *recv = inplace && gets ? c->a : c->b;
    if (root < 0)
        rc = MPI_Allreduce(send, recv, (int)count, MPI_INT, op, c->comm);
    else
        rc = MPI_Reduce(send, recv, (int)count, MPI_INT, op, root, c->comm);
    CHECK(rc == MPI_SUCCESS, "%s: reduction of %zu ints: %s", c->name, count, mt_errstr(rc));
    if (!gets) {
        for (size_t i = 0; i < count; i++)
            CHECK(c->b[i] == -12345, "%s: non-root recvbuf written", c->name);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        int want = op == MPI_SUM ? 0 : val(0, it, i);
        for (int r = 0; r < c->size; r++) {
            int v = val(r, it, i);
            want = op == MPI_SUM ? want + v : (v > want ? v : want);
        }
        CHECK(recv[i] == want, "%s it %d: %s of %zu ints (root %d, in place %d): [%zu] = %d, want %d",
              c->name, it, op == MPI_SUM ? "sum" : "max", count, root, inplace, i, recv[i], want);
    }
}

static void check_maxloc(ctx_t *c, int it, int root)
{
    enum { N = 33 };
    int in[2 * N], out[2 * N];
    for (int i = 0; i < N; i++) {
        in[2 * i] = val(c->rank, it, (size_t)i) % 7;
        in[2 * i + 1] = c->rank;
    }
    int rc = root < 0 ? MPI_Allreduce(in, out, N, MPI_2INT, MPI_MAXLOC, c->comm)
                      : MPI_Reduce(in, out, N, MPI_2INT, MPI_MAXLOC, root, c->comm);
    CHECK(rc == MPI_SUCCESS, "%s: maxloc: %s", c->name, mt_errstr(rc));
    if (root >= 0 && root != c->rank)
        return;
    for (int i = 0; i < N; i++) {
        int best = -100, where = -1;
        for (int r = 0; r < c->size; r++)
            if (val(r, it, (size_t)i) % 7 > best) {
                best = val(r, it, (size_t)i) % 7;
                where = r;
            }
        CHECK(out[2 * i] == best && out[2 * i + 1] == where, "%s it %d: maxloc[%d] = (%d, %d), want (%d, %d)",
              c->name, it, i, out[2 * i], out[2 * i + 1], best, where);
    }
}

/* The product of every rank's matrices in rank order. */
static void check_matrix(ctx_t *c, int it, size_t count, int root, int inplace)
{
    int gets = root < 0 || root == c->rank, rc;
    for (size_t k = 0; k < count; k++)
        mat_of(c->rank, it, k, c->m + 4 * k);
    const void *send = inplace && gets ? MPI_IN_PLACE : c->m;
    uint32_t *recv = inplace && gets ? c->m : c->mr;
    rc = root < 0 ? MPI_Allreduce(send, recv, (int)count, c->mat, c->matop, c->comm)
                  : MPI_Reduce(send, recv, (int)count, c->mat, c->matop, root, c->comm);
    CHECK(rc == MPI_SUCCESS, "%s: matrix product: %s", c->name, mt_errstr(rc));
    if (!gets)
        return;
    for (size_t k = 0; k < count; k++) {
        uint32_t want[4], m[4];
        mat_of(0, it, k, want);
        for (int r = 1; r < c->size; r++) {
            mat_of(r, it, k, m);
            mat_mul(want, m, want);
        }
        CHECK(memcmp(want, recv + 4 * k, sizeof want) == 0,
              "%s it %d: product of %zu matrices (root %d, in place %d) wrong at %zu", c->name, it,
              count, root, inplace, k);
    }
}

static void check_bcast(ctx_t *c, int it, size_t bytes, int root)
{
    unsigned char *buf = (unsigned char *)c->a;
    unsigned seed = (unsigned)(it * 31 + root);
    if (c->rank == root)
        mt_fill(buf, bytes, seed);
    else
        memset(buf, 0xee, bytes);
    int rc = MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, c->comm);
    CHECK(rc == MPI_SUCCESS, "%s: bcast of %zu bytes: %s", c->name, bytes, mt_errstr(rc));
    size_t bad = mt_verify(buf, bytes, seed);
    CHECK(bad == MT_OK, "%s it %d: bcast of %zu bytes from %d wrong at byte %zu", c->name, it,
          bytes, root, bad);
}

/* A ring message crosses each barrier: point-to-point mixed with it. */
static void check_barrier(ctx_t *c, int it)
{
    int token = it, got = -1;
    int next = (c->rank + 1) % c->size, prev = (c->rank + c->size - 1) % c->size;
    MPI_Request req;
    MPI_Irecv(&got, 1, MPI_INT, prev, 77, c->comm, &req);
    MPI_Send(&token, 1, MPI_INT, next, 77, c->comm);
    int rc = MPI_Barrier(c->comm);
    CHECK(rc == MPI_SUCCESS, "%s: barrier: %s", c->name, mt_errstr(rc));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(got == it, "%s: ring token %d, want %d", c->name, got, it);
}

static void one_iteration(ctx_t *c, int it, int big)
{
    static const size_t counts[] = {1, 3, 1000, 1500, 40000};
    static const size_t mats[] = {1, 200, 3000};
    static const size_t bcasts[] = {1, 8, 4095, 4097, 5000, 65535, 65537, 200000};
    int root = it % c->size;
    /* A schedule collective in flight across the blocking ones. */
    int sin = c->rank + it, sout = -1;
    MPI_Request ireq;
    MPI_Iallreduce(&sin, &sout, 1, MPI_INT, MPI_SUM, c->comm, &ireq);
    check_barrier(c, it);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        if (counts[k] > 2000 && !big)
            continue;
        check_int_reduction(c, it, counts[k], MPI_SUM, -1, it % 2);
        check_int_reduction(c, it, counts[k], MPI_MAX, root, (it / 2) % 2);
    }
    check_maxloc(c, it, -1);
    check_maxloc(c, it, root);
    for (size_t k = 0; k < sizeof mats / sizeof mats[0]; k++) {
        if (mats[k] > 300 && !big)
            continue;
        check_matrix(c, it, mats[k], -1, it % 2);
        check_matrix(c, it, mats[k], (root + 1) % c->size, (it + 1) % 2);
    }
    for (size_t k = 0; k < sizeof bcasts / sizeof bcasts[0]; k++) {
        if (bcasts[k] > 10000 && !big)
            continue;
        check_bcast(c, it, bcasts[k], (root + (int)k) % c->size);
    }
    MPI_Wait(&ireq, MPI_STATUS_IGNORE);
    int want = c->size * (c->size - 1) / 2 + c->size * it;
    CHECK(sout == want, "%s: Iallreduce across the blocking ones: %d, want %d", c->name, sout, want);
}

/* Buffers of nints ints and nmats matrices. */
static void ctx_init_sized(ctx_t *c, MPI_Comm comm, const char *name, MPI_Datatype mat,
                           MPI_Op op, size_t nints, size_t nmats)
{
    c->comm = comm;
    c->name = name;
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    c->a = mt_malloc(nints * sizeof(int));
    c->b = mt_malloc(nints * sizeof(int));
    c->m = mt_malloc(nmats * 4 * sizeof(uint32_t));
    c->mr = mt_malloc(nmats * 4 * sizeof(uint32_t));
    c->mat = mat;
    c->matop = op;
}

static void ctx_init(ctx_t *c, MPI_Comm comm, const char *name, MPI_Datatype mat, MPI_Op op)
{
    ctx_init_sized(c, comm, name, mat, op, MAXN, MAXM);
}

static void ctx_free(ctx_t *c)
{
    free(c->a);
    free(c->b);
    free(c->m);
    free(c->mr);
}

static void run_checks(void)
{
    MPI_Datatype mat;
    MPI_Op matop;
    MPI_Type_contiguous(4, MPI_UINT32_T, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(mat_op, 0, &matop);
    MPI_Comm dup, half, node;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &half); /* reversed order */
    /* The ranks of this node: shared memory even where the job spans
     * nodes. */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    ctx_t world, d, h, nd;
    ctx_init(&world, MPI_COMM_WORLD, "world", mat, matop);
    ctx_init(&d, dup, "dup", mat, matop);
    ctx_init(&h, half, "split", mat, matop);
    ctx_init(&nd, node, "node", mat, matop);
    int gathered[64];
    for (int it = 0; it < 24; it++) {
        one_iteration(&world, it, it % 6 == 0);
        one_iteration(&h, it, 0);
        int rc = MPI_Allgather(&it, 1, MPI_INT, gathered, 1, MPI_INT, dup);
        CHECK(rc == MPI_SUCCESS && gathered[wsize - 1] == it, "dup: Allgather");
        if (it % 3 == 0)
            one_iteration(&d, it, 0);
        if (it % 4 == 0)
            one_iteration(&nd, it, it == 0);
    }
    /* Enough small ones to wrap every communicator's sequence numbers. */
    for (int it = 0; it < 300; it++) {
        check_int_reduction(&d, it, 2, MPI_SUM, -1, 1);
        check_bcast(&h, it, 16, it % h.size);
        CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
    }
    ctx_free(&world);
    ctx_free(&d);
    ctx_free(&h);
    ctx_free(&nd);
    MPI_Comm_free(&node);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    MPI_Op_free(&matop);
    MPI_Type_free(&mat);
}

/* ---- a rank killed inside a collective ----------------------------------- */

#define VICTIM 1
#define VICTIM_ROUND 5
/* A bcast root or a reduce sender that needs nothing of the dead rank runs
 * on while a small buffer is free (HCMPI_COLL_SHM_DEPTH of them, 256 by
 * default), then waits for the dead rank to finish with one, and fails.
 * The victim may run as far ahead of a slow survivor, which then fails in
 * an earlier round. */
static int rounds_ahead(void)
{
    const char *depth = getenv("HCMPI_COLL_SHM_DEPTH");
    return (depth != NULL ? atoi(depth) : 256) + 1;
}

static int run_kind(const char *kind, int round)
{
    int in[4] = {wrank, round, 1, 2}, out[4] = {0};
    /* Allgather, alltoall(v), reduce_scatter_block: 2 ints per rank. */
    int all_in[128] = {0}, all_out[128], counts[64], displs[64];
    for (int r = 0; r < wsize && r < 64; r++) {
        counts[r] = 2;
        displs[r] = 2 * r;
    }
    /* The -1k kinds: the same calls with posts of 1 KiB a rank, above a
     * small buffer and within the straight steps' 2 KiB (one large
     * buffer). */
    static int mid_in[8 * 256], mid_out[8 * 256];
    if (strstr(kind, "-1k") != NULL) {
        int n = 256, root = strstr(kind, "-root") != NULL ? VICTIM : 0;
        CHECK(wsize <= 8, "the -1k kinds need at most 8 ranks");
        if (strncmp(kind, "bcast", 5) == 0)
            return MPI_Bcast(mid_in, n, MPI_INT, root, MPI_COMM_WORLD);
        if (strncmp(kind, "reduce_scatter_block", 20) == 0)
            return MPI_Reduce_scatter_block(mid_in, mid_out, n / wsize, MPI_INT, MPI_SUM,
                                            MPI_COMM_WORLD);
        if (strncmp(kind, "reduce", 6) == 0)
            return MPI_Reduce(mid_in, mid_out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (strncmp(kind, "allreduce", 9) == 0)
            return MPI_Allreduce(mid_in, mid_out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (strncmp(kind, "allgather", 9) == 0)
            return MPI_Allgather(mid_in, n, MPI_INT, mid_out, n, MPI_INT, MPI_COMM_WORLD);
        if (strncmp(kind, "alltoall", 8) == 0)
            return MPI_Alltoall(mid_in, n / wsize, MPI_INT, mid_out, n / wsize, MPI_INT,
                                MPI_COMM_WORLD);
        /* Gatherv, Scatterv of 1 KiB a rank: the large buffers, or the
         * medium ones where the node is crowded. */
        static int mid_counts[8], mid_displs[8];
        for (int r = 0; r < wsize; r++) {
            mid_counts[r] = n;
            mid_displs[r] = n * (wsize - 1 - r);
        }
        if (strncmp(kind, "gatherv", 7) == 0)
            return MPI_Gatherv(mid_in, n, MPI_INT, mid_out, mid_counts, mid_displs, MPI_INT,
                               root, MPI_COMM_WORLD);
        if (strncmp(kind, "scatterv", 8) == 0)
            return MPI_Scatterv(mid_in, mid_counts, mid_displs, MPI_INT, mid_out, n, MPI_INT,
                                root, MPI_COMM_WORLD);
        /* Gather, Scatter: blocks through the large buffers. */
        if (strncmp(kind, "gather", 6) == 0)
            return MPI_Gather(mid_in, n, MPI_INT, mid_out, n, MPI_INT, root, MPI_COMM_WORLD);
        if (strncmp(kind, "scatter", 7) == 0)
            return MPI_Scatter(mid_in, n, MPI_INT, mid_out, n, MPI_INT, root, MPI_COMM_WORLD);
        CHECK(0, "unknown kind %s", kind);
    }
    /* The -16k kinds: Gather and Scatter of 16 KiB a rank in the segment,
     * a gather's read in place by the root, a scatter's messages. */
    static int read_in[4 * 4096], read_out[4 * 4096];
    if (strstr(kind, "-16k") != NULL) {
        int n = 4096, root = strstr(kind, "-root") != NULL ? VICTIM : 0;
        CHECK(wsize <= 4, "the -16k kinds need at most 4 ranks");
        if (strncmp(kind, "gather", 6) == 0)
            return MPI_Gather(read_in, n, MPI_INT, read_out, n, MPI_INT, root, MPI_COMM_WORLD);
        if (strncmp(kind, "scatter", 7) == 0)
            return MPI_Scatter(read_in, n, MPI_INT, read_out, n, MPI_INT, root, MPI_COMM_WORLD);
        CHECK(0, "unknown kind %s", kind);
    }
    if (strcmp(kind, "allgather") == 0)
        return MPI_Allgather(in, 2, MPI_INT, all_out, 2, MPI_INT, MPI_COMM_WORLD);
    if (strcmp(kind, "alltoall") == 0)
        return MPI_Alltoall(all_in, 2, MPI_INT, all_out, 2, MPI_INT, MPI_COMM_WORLD);
    if (strcmp(kind, "alltoallv") == 0)
        return MPI_Alltoallv(all_in, counts, displs, MPI_INT, all_out, counts, displs, MPI_INT,
                             MPI_COMM_WORLD);
    if (strcmp(kind, "reduce_scatter_block") == 0)
        return MPI_Reduce_scatter_block(all_in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* The v-forms of equal blocks: their straight steps too. */
    if (strcmp(kind, "allgatherv") == 0)
        return MPI_Allgatherv(in, 2, MPI_INT, all_out, counts, displs, MPI_INT, MPI_COMM_WORLD);
    if (strcmp(kind, "reduce_scatter") == 0)
        return MPI_Reduce_scatter(all_in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (strcmp(kind, "barrier") == 0)
        return MPI_Barrier(MPI_COMM_WORLD);
    /* Gather, Scatter: 2 ints per rank in the segment; the -root kinds
     * with the victim as root. */
    int victim_root = strstr(kind, "-root") != NULL ? VICTIM : 0;
    if (strncmp(kind, "gatherv", 7) == 0)
        return MPI_Gatherv(in, 2, MPI_INT, all_out, counts, displs, MPI_INT, victim_root,
                           MPI_COMM_WORLD);
    if (strncmp(kind, "scatterv", 8) == 0)
        return MPI_Scatterv(all_in, counts, displs, MPI_INT, out, 2, MPI_INT, victim_root,
                            MPI_COMM_WORLD);
    if (strncmp(kind, "gather", 6) == 0)
        return MPI_Gather(in, 2, MPI_INT, all_out, 2, MPI_INT, victim_root, MPI_COMM_WORLD);
    if (strncmp(kind, "scatter", 7) == 0)
        return MPI_Scatter(all_in, 2, MPI_INT, out, 2, MPI_INT, victim_root, MPI_COMM_WORLD);
    if (strcmp(kind, "bcast") == 0)
        return MPI_Bcast(in, 4, MPI_INT, 0, MPI_COMM_WORLD);
    if (strcmp(kind, "bcast-root") == 0)
        return MPI_Bcast(in, 4, MPI_INT, VICTIM, MPI_COMM_WORLD);
    static unsigned char large[300000];
    if (strcmp(kind, "bcast-large") == 0)
        return MPI_Bcast(large, (int)sizeof large, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (strcmp(kind, "bcast-large-root") == 0)
        return MPI_Bcast(large, (int)sizeof large, MPI_BYTE, VICTIM, MPI_COMM_WORLD);
    if (strcmp(kind, "reduce") == 0)
        return MPI_Reduce(in, out, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (strcmp(kind, "reduce-root") == 0)
        return MPI_Reduce(in, out, 4, MPI_INT, MPI_SUM, VICTIM, MPI_COMM_WORLD);
    /* Sliced, over two slots: each rank combines its slice in another's. */
    enum { LARGE_INTS = 75000 };
    static int large_in[LARGE_INTS], large_out[LARGE_INTS];
    if (strcmp(kind, "reduce-large") == 0)
        return MPI_Reduce(large_in, large_out, LARGE_INTS, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (strcmp(kind, "reduce-large-root") == 0)
        return MPI_Reduce(large_in, large_out, LARGE_INTS, MPI_INT, MPI_SUM, VICTIM,
                          MPI_COMM_WORLD);
    static unsigned char gathered_large[4 * sizeof large];
    if (strcmp(kind, "allgather-large") == 0 && wsize <= 4)
        return MPI_Allgather(large, (int)sizeof large, MPI_BYTE, gathered_large,
                             (int)sizeof large, MPI_BYTE, MPI_COMM_WORLD);
    if (strcmp(kind, "alltoall-large") == 0 && wsize <= 4)
        return MPI_Alltoall(gathered_large, (int)sizeof large_out / 4, MPI_BYTE, large_out,
                            (int)sizeof large_out / 4, MPI_BYTE, MPI_COMM_WORLD);
    /* Blocks above the segment's part, read from their senders. */
    static int large_counts[4] = {75000, 75000, 75000, 75000},
               large_displs[4] = {0, 75000, 150000, 225000};
    if (strcmp(kind, "alltoallv-large") == 0 && wsize <= 4)
        return MPI_Alltoallv(gathered_large, large_counts, large_displs, MPI_BYTE, large_out,
                             large_counts, large_displs, MPI_BYTE, MPI_COMM_WORLD);
    if (strcmp(kind, "allreduce-large") == 0)
        return MPI_Allreduce(large_in, large_out, LARGE_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* Persistent, built once in the first round (a lane of the segment the
     * Barrier makes) and started in each: reads between the buffers. */
    static MPI_Request persistent = MPI_REQUEST_NULL;
    int reused = strcmp(kind, "allreduce-init-reused") == 0;
    int alltoall_init = strcmp(kind, "alltoall-init-large") == 0;
    int allreduce_init = reused || strcmp(kind, "allreduce-init-large") == 0;
    /* Of 4 ints: a deep lane, where the root (Bcast) or the others
     * (Reduce) run ahead as far as its ring goes. */
    int bcast_small = strcmp(kind, "bcast-init-small") == 0;
    int reduce_small = strcmp(kind, "reduce-init-small") == 0;
    /* Of 2 ints and none: an Allreduce and a Barrier whose starts run the
     * blocking forms' straight steps in their lanes. */
    int allreduce_small = strcmp(kind, "allreduce-init-small") == 0;
    int barrier_init = strcmp(kind, "barrier-init") == 0;
    if (bcast_small || reduce_small || allreduce_small || barrier_init) {
        static int small_in[4], small_out[4]; /* the request's, every round */
        int rc = MPI_SUCCESS;
        small_in[0] = wrank + round;
        if (persistent == MPI_REQUEST_NULL) {
            rc = MPI_Barrier(MPI_COMM_WORLD);
            if (rc == MPI_SUCCESS && bcast_small)
                rc = MPI_Bcast_init(small_out, 4, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                                    &persistent);
            else if (rc == MPI_SUCCESS && reduce_small)
                rc = MPI_Reduce_init(small_in, small_out, 4, MPI_INT, MPI_SUM, 0,
                                     MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
            else if (rc == MPI_SUCCESS && allreduce_small)
                rc = MPI_Allreduce_init(small_in, small_out, 2, MPI_INT, MPI_SUM,
                                        MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
            else if (rc == MPI_SUCCESS)
                rc = MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Start(&persistent);
        return rc == MPI_SUCCESS ? MPI_Wait(&persistent, MPI_STATUS_IGNORE) : rc;
    }
    if (allreduce_init || alltoall_init || strcmp(kind, "bcast-init-large") == 0) {
        int rc = MPI_SUCCESS;
        if (persistent == MPI_REQUEST_NULL) {
            rc = MPI_Barrier(MPI_COMM_WORLD);
            /* Two made and freed first: the one below waits for a wide
             * lane they held, and moves in at its first starts. */
            for (int k = 0; reused && k < 2 && rc == MPI_SUCCESS; k++) {
                MPI_Request freed;
                rc = MPI_Allreduce_init(large_in, large_out, LARGE_INTS, MPI_INT, MPI_SUM,
                                        MPI_COMM_WORLD, MPI_INFO_NULL, &freed);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Request_free(&freed);
            }
            if (rc == MPI_SUCCESS && alltoall_init)
                rc = MPI_Alltoall_init(large_in, LARGE_INTS / wsize, MPI_INT, large_out,
                                       LARGE_INTS / wsize, MPI_INT, MPI_COMM_WORLD,
                                       MPI_INFO_NULL, &persistent);
            else if (rc == MPI_SUCCESS && allreduce_init)
                rc = MPI_Allreduce_init(large_in, large_out, LARGE_INTS, MPI_INT, MPI_SUM,
                                        MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
            else if (rc == MPI_SUCCESS)
                rc = MPI_Bcast_init(large, (int)sizeof large, MPI_BYTE, 0, MPI_COMM_WORLD,
                                    MPI_INFO_NULL, &persistent);
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Start(&persistent);
        return rc == MPI_SUCCESS ? MPI_Wait(&persistent, MPI_STATUS_IGNORE) : rc;
    }
    if (strcmp(kind, "reduce_scatter_block-large") == 0)
        return MPI_Reduce_scatter_block(large_in, large_out, LARGE_INTS / wsize, MPI_INT, MPI_SUM,
                                        MPI_COMM_WORLD);
    return MPI_Allreduce(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

static void run_kill(const char *kind)
{
    CHECK(wsize >= 2, "needs 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int round, rc = MPI_SUCCESS;
    /* Across (fake) nodes a collective runs in two stages, the node's
     * segment and the leaders' schedule, and each may run that far ahead. */
    int two_nodes = getenv("HCMPI_NODE_ID") != NULL;
    int ahead = two_nodes ? 2 * rounds_ahead() : rounds_ahead();
    /* Except a Reduce across nodes: the ranks of the node with neither the
     * root nor the victim need nothing of either, and their leader's
     * eager sends to the root are taken as unexpected messages while the
     * root waits below.  They fail when they learn of the death, which
     * takes time, not rounds: they run until then, and a death never
     * learnt is a hang, which hcmpirun's --timeout turns into a failure. */
    int unbounded = two_nodes && strcmp(kind, "reduce") == 0;
    for (round = 0; unbounded || round < VICTIM_ROUND + 3 * rounds_ahead(); round++) {
        if (wrank == VICTIM && round == VICTIM_ROUND) {
            fflush(stdout);
            raise(SIGKILL);
        }
        rc = run_kind(kind, round);
        if (rc != MPI_SUCCESS)
            break;
    }
    CHECK(rc != MPI_SUCCESS, "%s: still succeeding %d rounds after the death", kind, round);
    CHECK(mt_class(rc) == MPIX_ERR_PROC_FAILED, "%s: round %d: class %d (%s), want MPIX_ERR_PROC_FAILED",
          kind, round, mt_class(rc), mt_errstr(rc));
    CHECK(unbounded || round <= VICTIM_ROUND + ahead, "%s: failed in round %d", kind, round);
    /* No survivor leaves before all failed: one that only ends when another
     * exits would pass here by that exit, not by its own detection. */
    int x = round;
    for (int r = 1; wrank == 0 && r < wsize; r++)
        if (r != VICTIM)
            CHECK(MPI_Recv(&x, 1, MPI_INT, r, 55, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                      MPI_SUCCESS,
                  "survivor %d's report", r);
    if (wrank != 0)
        CHECK(MPI_Send(&x, 1, MPI_INT, 0, 55, MPI_COMM_WORLD) == MPI_SUCCESS, "report to 0");
    printf("rank %d: PASS kill %s (round %d)\n", wrank, kind, round);
    fflush(stdout);
    /* Exit without MPI_Finalize: its barrier would need the dead rank. */
    _exit(0);
}

static void run_soak(double secs)
{
    double t0 = MPI_Wtime();
    int more = 1, it;
    for (it = 0; more; it++) {
        more = wrank != 0 || MPI_Wtime() - t0 < secs;
        CHECK(MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "soak bcast");
        CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "soak barrier");
        int in = wrank + it, sum = -1;
        CHECK(MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
              "soak allreduce");
        CHECK(sum == wsize * (wsize - 1) / 2 + wsize * it, "soak: sum %d in round %d", sum, it);
    }
    if (wrank == 0)
        printf("coll_shm: soak of %d rounds OK\n", it);
}

/* ---- large reductions, in the segment ------------------------------------ */

/* MPI_T and hcmpi's counters of the transport messages this rank sent. */
static void sent_counters_open(MPI_T_pvar_session *session, MPI_T_pvar_handle *sent)
{
    static const char *const sent_names[2] = {"eager_sent_messages", "rndv_sent_messages"};
    int provided = 0;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init");
    mt_counters_open(session, 2, sent_names, sent);
}

static void sent_counters_close(MPI_T_pvar_session *session)
{
    MPI_T_pvar_session_free(session);
    MPI_T_finalize();
}

/* Large reductions checked on MPI_COMM_WORLD: a context whose buffers
 * take vectors of up to most bytes, with the matrix type and product of
 * its own, and the transport messages this rank sent from the start. */
typedef struct large_run {
    ctx_t c;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle sent[2];
    unsigned long long before;
} large_run_t;

static void large_run_open(large_run_t *run, size_t most)
{
    MPI_Datatype mat;
    MPI_Op matop;
    sent_counters_open(&run->session, run->sent);
    MPI_Type_contiguous(4, MPI_UINT32_T, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(mat_op, 0, &matop);
    ctx_init_sized(&run->c, MPI_COMM_WORLD, "world", mat, matop, most / sizeof(int), most / 16);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
    run->before = mt_counters_sum(run->session, 2, run->sent);
}

/* None of what ran (what) may have sent a transport message. */
static void large_run_close(large_run_t *run, const char *what)
{
    unsigned long long moved = mt_counters_sum(run->session, 2, run->sent) - run->before;
    CHECK(moved == 0, "%llu transport messages in %s", moved, what);
    MPI_Op_free(&run->c.matop);
    MPI_Type_free(&run->c.mat);
    ctx_free(&run->c);
    sent_counters_close(&run->session);
}

/* Sums of ints (commutative) and products of matrices (not), Allreduce
 * and Reduce, in place and not, of vectors about the segment's slot
 * (256 KiB by default: each rank combines its slice in place in another
 * rank's slot), checked element by element; none of them may send a
 * transport message. */
static void run_large_reductions(void)
{
    static const size_t bytes[] = {(64 << 10) + 16,  (256 << 10) - 16, 256 << 10,
                                   (256 << 10) + 16, (512 << 10) + 48, (1 << 20) + 32,
                                   (4 << 20)};
    large_run_t run;
    large_run_open(&run, bytes[sizeof bytes / sizeof bytes[0] - 1]);
    ctx_t *c = &run.c;
    for (int it = 0; it < 4; it++)
        for (size_t k = 0; k < sizeof bytes / sizeof bytes[0]; k++) {
            int root = (it + (int)k) % wsize;
            check_int_reduction(c, it, bytes[k] / sizeof(int), MPI_SUM, -1, it % 2);
            check_int_reduction(c, it, bytes[k] / sizeof(int), MPI_SUM, root, (it / 2) % 2);
            check_matrix(c, it, bytes[k] / 16, -1, (it + 1) % 2);
            check_matrix(c, it, bytes[k] / 16, root, it % 2);
        }
    large_run_close(&run, "reductions the segment takes");
}

/* ---- large bcasts, in the segment ---------------------------------------- */

/* One Bcast of n bytes from root, checked byte by byte on every rank. */
static void bcast_checked(unsigned char *buf, size_t n, int root, int it, size_t k)
{
    unsigned seed = (unsigned)(it * 131 + (int)k * 7 + root);
    if (wrank == root)
        mt_fill(buf, n, seed);
    else
        memset(buf, 0xee, n);
    int rc = MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "bcast of %zu bytes: %s", n, mt_errstr(rc));
    size_t bad = mt_verify(buf, n, seed);
    CHECK(bad == MT_OK, "it %d: bcast of %zu bytes from %d wrong at byte %zu", it, n, root, bad);
}

static void run_large_bcasts(void)
{
    static const size_t sizes[] = {4095,  4096,  4097,   12289,  65535,
                                   65536, 65537, 131072, 196611, (1 << 20) + 13};
    MPI_T_pvar_session session;
    MPI_T_pvar_handle sent[2];
    sent_counters_open(&session, sent);
    unsigned char *buf = mt_malloc(sizes[sizeof sizes / sizeof sizes[0] - 1]);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
    unsigned long long before = mt_counters_sum(session, 2, sent);
    for (int it = 0; it < 3; it++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            bcast_checked(buf, sizes[k], (it + (int)k) % wsize, it, k);
    unsigned long long moved = mt_counters_sum(session, 2, sent) - before;
    CHECK(moved == 0, "%llu transport messages in bcasts the segment takes", moved);
    free(buf);
    sent_counters_close(&session);
}

/* Two ranks: Bcasts up to HCMPI_COLL_SHM_PAIR_BCAST_MAX (64 KiB) and from
 * HCMPI_COLL_SHM_PAIR_BCAST_SEG_MIN (as the environment sets it) take the
 * segment (no transport message), those between are one message; every
 * byte checked, from both roots. */
static void run_pair_bcasts(void)
{
    static const size_t sizes[] = {65536,   65537,   262143,  262144,
                                   1048576, 3145731, 4194304, (4 << 20) + 1};
    const char *env = getenv("HCMPI_COLL_SHM_PAIR_BCAST_SEG_MIN");
    size_t seg_min = env != NULL ? (size_t)strtoull(env, NULL, 10) : (size_t)4 << 20;
    CHECK(wsize == 2, "pair-bcast needs 2 ranks");
    MPI_T_pvar_session session;
    MPI_T_pvar_handle sent[2];
    sent_counters_open(&session, sent);
    unsigned char *buf = mt_malloc(sizes[sizeof sizes / sizeof sizes[0] - 1]);
    for (int it = 0; it < 2; it++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            int root = (it + (int)k) % wsize;
            CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
            unsigned long long before = mt_counters_sum(session, 2, sent);
            bcast_checked(buf, sizes[k], root, it, k);
            unsigned long long moved = mt_counters_sum(session, 2, sent) - before;
            /* Above 4 MiB (HCMPI_COLL_SHM_MAX) no segment; its counters
             * are not checked (bytes only). */
            int segment = sizes[k] <= 65536 || (seg_min > 0 && sizes[k] >= seg_min);
            CHECK(wrank != root || sizes[k] > (4u << 20) || segment == (moved == 0),
                  "bcast of %zu bytes from %d: %llu transport messages, want %s", sizes[k], root,
                  moved, segment ? "none (the segment)" : "some");
        }
    free(buf);
    sent_counters_close(&session);
}

/* ---- bcasts read straight from the root's buffer ------------------------- */

/* One Bcast of count vectors of blocks of 3 ints every 5 from root (a
 * strided type: the face packs it), each int checked on every rank and
 * the gaps left alone. */
static void strided_bcast_checked(size_t count, int root, int it)
{
    MPI_Datatype vec;
    MPI_Type_vector((int)count, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    size_t n = 5 * count;
    int *buf = mt_malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        buf[i] = wrank == root || i % 5 >= 3 ? val(root, it, i) : -7;
    int rc = MPI_Bcast(buf, 1, vec, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "strided bcast of %zu ints: %s", 3 * count, mt_errstr(rc));
    for (size_t i = 0; i < n; i++)
        if (buf[i] != val(root, it, i)) {
            CHECK(0, "it %d: strided bcast from %d wrong at int %zu: %d", it, root, i, buf[i]);
            break;
        }
    free(buf);
    MPI_Type_free(&vec);
}

/* The least Bcast that more than two ranks read from the root's buffer
 * where they outnumber the CPUs (HCMPI_COLL_SHM_CPUS, else those online):
 * HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN as set, else the default of the
 * profile HCMPI_CPU_PROFILE names (amd: 0, none; intel, generic: 64 KiB);
 * SIZE_MAX where none reads or this process cannot tell (the processor's
 * profile); 0 where the node is not crowded. */
static size_t crowded_bcast_read_min(void)
{
    size_t cpus = mt_env_bytes("HCMPI_COLL_SHM_CPUS", 0);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus == 0)
        cpus = online > 0 ? (size_t)online : 1;
    if (wsize <= 2 || (size_t)wsize <= cpus)
        return 0;
    size_t set = mt_env_bytes("HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN", SIZE_MAX);
    const char *profile = getenv("HCMPI_CPU_PROFILE");
    if (set == SIZE_MAX && profile != NULL && strcmp(profile, "amd") != 0)
        set = 65536;
    return set > 0 ? set : SIZE_MAX;
}

/* Bcasts about HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN (two ranks) or
 * HCMPI_COLL_SHM_BCAST_READ_MIN (more; as the environment sets them, up to
 * HCMPI_COLL_SHM_BCAST_READ_MAX), each from every root, checked byte by
 * byte; those the ranks read from the root's buffer (from the threshold
 * on, above 4 MiB too) send no transport message; a strided type's too. */
static void run_read_bcasts(void)
{
    static const size_t sizes[] = {1,      4096,   16383,  16384,   16385,   65535,
                                   65536,  65537,  200003, 1048576, (1u << 20) + 13,
                                   (4u << 20) + 1};
    size_t min = wsize == 2 ? mt_env_bytes("HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN", 16384)
                            : mt_env_bytes("HCMPI_COLL_SHM_BCAST_READ_MIN", 65536);
    size_t max = mt_env_bytes("HCMPI_COLL_SHM_BCAST_READ_MAX", 0);
    /* On a crowded node both bounds apply (min 0: none read). */
    size_t crowded_min = crowded_bcast_read_min();
    if (min > 0 && crowded_min > min)
        min = crowded_min == SIZE_MAX ? 0 : crowded_min;
    /* coll_shm.sh refuses the reads on some ranks (HCMPI_SHM_CMA=0): all
     * fall back alike, bytes checked, counters not. */
    if (getenv("COLL_SHM_READS_REFUSED") != NULL)
        min = 0;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle sent[2];
    sent_counters_open(&session, sent);
    unsigned char *buf = mt_malloc(sizes[sizeof sizes / sizeof sizes[0] - 1]);
    for (int it = 0; it < 2; it++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (int root = 0; root < wsize; root++) {
                CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
                unsigned long long before = mt_counters_sum(session, 2, sent);
                bcast_checked(buf, sizes[k], root, it, k);
                unsigned long long moved = mt_counters_sum(session, 2, sent) - before;
                int read = wsize > 1 && min > 0 && sizes[k] >= min && (max == 0 || sizes[k] <= max);
                CHECK(!read || moved == 0,
                      "bcast of %zu bytes from %d read from the root: %llu transport messages",
                      sizes[k], root, moved);
            }
    for (int root = 0; root < wsize; root++) {
        CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
        unsigned long long before = mt_counters_sum(session, 2, sent);
        strided_bcast_checked(30000, root, root); /* 360000 bytes packed */
        unsigned long long moved = mt_counters_sum(session, 2, sent) - before;
        int read = wsize > 1 && min > 0 && 360000 >= min && (max == 0 || 360000 <= max);
        CHECK(!read || moved == 0, "strided bcast from %d: %llu transport messages", root, moved);
    }
    free(buf);
    sent_counters_close(&session);
}

/* Bcasts (ibcast: Ibcasts) on a crowded node that take the segment's
 * pipeline (coll_shm.sh sets the environment): the root's completes
 * before the others enter theirs, which wait for its message. */
static void run_crowded_bcasts_root_free(void)
{
    static const size_t sizes[] = {65535, 65536, 65537, 200003};
    unsigned char *buf = mt_malloc(sizes[sizeof sizes / sizeof sizes[0] - 1]);
    for (int ibcast = 0; ibcast < 2; ibcast++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (int root = 0; root < wsize; root++) {
                size_t n = sizes[k];
                unsigned seed = (unsigned)(ibcast * 977 + (int)k * 7 + root);
                CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
                if (wrank == root)
                    mt_fill(buf, n, seed);
                else {
                    memset(buf, 0xee, n);
                    CHECK(MPI_Recv(NULL, 0, MPI_BYTE, root, 77, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE) == MPI_SUCCESS,
                          "the root's go-ahead");
                }
                int rc;
                if (ibcast) {
                    MPI_Request req;
                    rc = MPI_Ibcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &req);
                    if (rc == MPI_SUCCESS)
                        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                } else
                    rc = MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
                CHECK(rc == MPI_SUCCESS, "%s of %zu bytes: %s", ibcast ? "ibcast" : "bcast", n,
                      mt_errstr(rc));
                for (int r = 0; wrank == root && r < wsize; r++)
                    if (r != root)
                        CHECK(MPI_Send(NULL, 0, MPI_BYTE, r, 77, MPI_COMM_WORLD) ==
                                  MPI_SUCCESS,
                              "go-ahead to %d", r);
                size_t bad = mt_verify(buf, n, seed);
                CHECK(bad == MT_OK, "%s of %zu bytes from %d wrong at byte %zu",
                      ibcast ? "ibcast" : "bcast", n, root, bad);
            }
    free(buf);
}

/* One Reduce (sum) of count blocks of 3 ints every 5 to root (a strided
 * type: the face packs it), each int of the root's result checked and
 * the gaps left alone; in place or not. */
static void strided_reduce_checked(size_t count, int root, int it, int inplace)
{
    MPI_Datatype vec;
    MPI_Type_vector((int)count, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    size_t n = 5 * count;
    int *in = mt_malloc(n * sizeof(int)), *out = mt_malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++) {
        in[i] = val(wrank, it, i);
        out[i] = -7;
    }
    int gets = wrank == root, in_place = inplace && gets;
    int *result = in_place ? in : out;
    int rc = MPI_Reduce(in_place ? MPI_IN_PLACE : in, result, 1, vec, MPI_SUM, root,
                        MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "strided reduce of %zu ints: %s", 3 * count, mt_errstr(rc));
    for (size_t i = 0; gets && i < n; i++) {
        int want = in_place ? val(wrank, it, i) : -7;
        if (i % 5 < 3) {
            want = 0;
            for (int r = 0; r < wsize; r++)
                want += val(r, it, i);
        }
        if (result[i] != want) {
            CHECK(0, "it %d: strided reduce to %d (in place %d) wrong at int %zu: %d, want %d", it,
                  root, inplace, i, result[i], want);
            break;
        }
    }
    free(in);
    free(out);
    MPI_Type_free(&vec);
}

/* Reduce_scatter_block of count matrices per rank (their product in rank
 * order), in place and not: each rank's block checked. */
static void check_matrix_scatter(ctx_t *c, int it, size_t count, int inplace)
{
    size_t total = count * (size_t)c->size;
    for (size_t k = 0; k < total; k++)
        mat_of(c->rank, it, k, c->m + 4 * k);
    uint32_t *recv = inplace ? c->m : c->mr;
    int rc = MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : c->m, recv, (int)count, c->mat,
                                      c->matop, c->comm);
    CHECK(rc == MPI_SUCCESS, "%s: Reduce_scatter_block: %s", c->name, mt_errstr(rc));
    for (size_t k = 0; k < count; k++) {
        size_t at = count * (size_t)c->rank + k;
        uint32_t want[4], m[4];
        mat_of(0, it, at, want);
        for (int r = 1; r < c->size; r++) {
            mat_of(r, it, at, m);
            mat_mul(want, m, want);
        }
        if (memcmp(want, recv + 4 * k, sizeof want) != 0) {
            CHECK(0, "%s it %d: Reduce_scatter_block of %zu matrices (in place %d) wrong at %zu",
                  c->name, it, count, inplace, k);
            break;
        }
    }
}

/* Reduces about HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN (as the environment
 * sets it) and about the reads' 64 KiB pieces, from every root, and
 * Allreduces and Reduce_scatter_blocks of the same (read over each rank's
 * half or block, odd counts too), in place and not: sums and maxes of ints, the matrix product (its order
 * shows), a strided type; checked element by element, and none may send
 * a transport message (the read moves nothing through a transport, nor
 * do the segment's paths it falls back to). */
static void run_read_reductions(void)
{
    size_t min = mt_env_bytes("HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN", 16384);
    if (min < 64)
        min = 16384;
    const size_t bytes[] = {min - 16,          min,           min + 16,   (64 << 10) - 16,
                            64 << 10,          (64 << 10) + 16, 300000 + 32, (1 << 20) + 16};
    large_run_t run;
    large_run_open(&run, bytes[sizeof bytes / sizeof bytes[0] - 1]);
    ctx_t *c = &run.c;
    for (int it = 0; it < 2; it++)
        for (size_t k = 0; k < sizeof bytes / sizeof bytes[0]; k++)
            for (int root = 0; root < wsize; root++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    int t = it * 2 + inplace;
                    check_int_reduction(c, t, bytes[k] / sizeof(int), it ? MPI_MAX : MPI_SUM,
                                        root, inplace);
                    check_matrix(c, t, bytes[k] / 16, root, inplace);
                    if (root > 0)
                        continue;
                    check_int_reduction(c, t, bytes[k] / sizeof(int), it ? MPI_MAX : MPI_SUM,
                                        -1, inplace);
                    check_matrix(c, t, bytes[k] / 16, -1, inplace);
                    check_matrix_scatter(c, t, bytes[k] / 16 / (size_t)wsize, inplace);
                }
    for (int root = 0; root < wsize; root++)
        for (int inplace = 0; inplace < 2; inplace++)
            strided_reduce_checked(30000, root, root + inplace, inplace); /* 360000 bytes */
    large_run_close(&run, "reduces read from the other rank");
}

/* ---- small Bcasts and Reduces that run ahead, through the ring ---------- */

/* More back-to-back calls than the ring is deep (HCMPI_COLL_SHM_DEPTH,
 * up to 256), so that the root of a Bcast (the others of a Reduce) fills
 * it and waits for the slowest rank to free a slot. */
#define RING_RUN 300

/* A run of RING_RUN Bcasts of bytes from root, the root's one buffer
 * refilled before each call (the data must be copied at the call), each
 * checked byte by byte on every rank at its return. */
static void ring_bcasts(unsigned char *buf, size_t bytes, int root, int run)
{
    for (int k = 0; k < RING_RUN; k++)
        bcast_checked(buf, bytes, root, run * RING_RUN + k, 0);
}

/* A run of RING_RUN Reduces (sum of count ints) to root, every rank's one
 * input buffer refilled before each call, the root's result checked. */
static void ring_reduces(int *in, int *out, size_t count, int root, int run)
{
    for (int k = 0; k < RING_RUN; k++) {
        int it = run * RING_RUN + k;
        for (size_t i = 0; i < count; i++) {
            in[i] = val(wrank, it, i);
            out[i] = -12345;
        }
        int rc = MPI_Reduce(in, out, (int)count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "ring reduce of %zu ints: %s", count, mt_errstr(rc));
        for (size_t i = 0; i < count; i++) {
            int want = wrank == root ? 0 : -12345;
            for (int r = 0; wrank == root && r < wsize; r++)
                want += val(r, it, i);
            CHECK(out[i] == want, "run %d call %d: reduce of %zu ints to %d: [%zu] = %d, want %d",
                  run, k, count, root, i, out[i], want);
        }
    }
}

/* What must wait for the runs before it: an Allreduce, an Alltoall, a
 * Barrier with a ring message across it, each checked. */
static void ring_drain(int run)
{
    int one = run + wrank, sum = 0;
    int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && sum == run * wsize + wsize * (wsize - 1) / 2,
          "allreduce after run %d: %d (%s)", run, sum, mt_errstr(rc));
    int *to = mt_malloc((size_t)wsize * sizeof(int)), *from = mt_malloc((size_t)wsize * sizeof(int));
    for (int r = 0; r < wsize; r++)
        to[r] = wrank * 1000 + r + run;
    rc = MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "alltoall after run %d: %s", run, mt_errstr(rc));
    for (int r = 0; r < wsize; r++)
        CHECK(from[r] == r * 1000 + wrank + run, "alltoall after run %d: from %d got %d", run, r,
              from[r]);
    free(to);
    free(from);
    int token = run, got = -1;
    MPI_Request req;
    MPI_Irecv(&got, 1, MPI_INT, (wrank + wsize - 1) % wsize, 78, MPI_COMM_WORLD, &req);
    MPI_Send(&token, 1, MPI_INT, (wrank + 1) % wsize, 78, MPI_COMM_WORLD);
    rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "barrier after run %d: %s", run, mt_errstr(rc));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(got == run, "ring token %d after run %d", got, run);
}

/* Runs of small Bcasts and Reduces from every root, of sizes up to the
 * segment's small buffer (512 bytes) and just over it, each run followed by
 * collectives and a message that must see it finished; a strided Bcast's
 * run too.  The runs alone send no transport message (the segment). */
static void run_ring(void)
{
    static const size_t bytes[] = {1, 8, 64, 511, 512, 513};
    unsigned char *buf = mt_malloc(1024);
    int *in = mt_malloc(1024), *out = mt_malloc(1024);
    MPI_T_pvar_session session;
    MPI_T_pvar_handle sent[2];
    sent_counters_open(&session, sent);
    int run = 0;
    for (int root = 0; root < wsize; root++)
        for (size_t k = 0; k < sizeof bytes / sizeof bytes[0]; k++, run++) {
            unsigned long long before = mt_counters_sum(session, 2, sent);
            ring_bcasts(buf, bytes[k], root, run);
            ring_reduces(in, out, (bytes[k] + 3) / 4, root, run);
            unsigned long long moved = mt_counters_sum(session, 2, sent) - before;
            CHECK(moved == 0, "%llu transport messages in run %d of %zu bytes", moved, run,
                  bytes[k]);
            ring_drain(run);
        }
    for (int k = 0; k < RING_RUN; k++)
        strided_bcast_checked(8, k % wsize, k); /* 96 bytes packed */
    ring_drain(run);
    sent_counters_close(&session);
    free(buf);
    free(in);
    free(out);
}

/* ---- small calls that find their turn: straight steps, mixed ----------- */

/* A user op (the general path: the engine's steps with a user function):
 * inout[i] = 3 * inout[i] - in[i], not commutative, so rank order shows. */
static void mixed_user_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const long *a = in;
    long *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = 3 * b[i] - a[i];
}

/* What rank r contributes to call it, element i (exact in a double). */
static long mixed_val(int r, int it, int i)
{
    return (long)r * 7919 + (long)it * 31 + i;
}

/* The sum over every rank, and the user op's fold of rank 0 op ... op
 * rank n-1 (MPI: ranks in order, a op b with b the accumulated inout). */
static long mixed_sum(int it, int i)
{
    long want = 0;
    for (int r = 0; r < wsize; r++)
        want += mixed_val(r, it, i);
    return want;
}

static long mixed_user(int it, int i)
{
    long acc = mixed_val(wsize - 1, it, i);
    for (int r = wsize - 2; r >= 0; r--)
        acc = 3 * acc - mixed_val(r, it, i);
    return acc;
}

/* Byte i of rank r's block of call it in a mixed Gather(v). */
static unsigned char mixed_byte(int r, int it, int i)
{
    return (unsigned char)(r * 37 + it * 11 + i * 3 + 1);
}

/* A Gather (vform 0) or Gatherv (1) of call it to root, blocks about a
 * line (a post in its sender's line, up to 56 bytes, or its buffer, or
 * nothing): a Gather's bytes a rank, a Gatherv's block of rank r
 * (bytes + 13 r) % 64, its blocks laid out in reverse with a gap after
 * each; in place at the root where inplace.  The root checks every block
 * and gap, the others that their receive buffer stayed untouched. */
static int mixed_gather(int it, int root, int bytes, int vform, int inplace,
                        unsigned char *in, unsigned char *out)
{
    enum { GAP = 0xee };
    int counts[64], displs[64], total = 0;
    for (int r = wsize - 1; r >= 0; r--) {
        counts[r] = vform ? (bytes + 13 * r) % 64 : bytes;
        displs[r] = total;
        total += counts[r] + (vform ? 1 : 0);
    }
    if (!vform)
        for (int r = 0; r < wsize; r++)
            displs[r] = r * bytes;
    int mine = counts[wrank];
    for (int i = 0; i < mine; i++)
        in[i] = mixed_byte(wrank, it, i);
    memset(out, GAP, (size_t)total);
    int at_root = wrank == root, self = at_root && inplace;
    if (self)
        memcpy(out + displs[wrank], in, (size_t)mine);
    int rc = vform ? MPI_Gatherv(self ? MPI_IN_PLACE : in, mine, MPI_BYTE, out, counts, displs,
                                 MPI_BYTE, root, MPI_COMM_WORLD)
                   : MPI_Gather(self ? MPI_IN_PLACE : in, mine, MPI_BYTE, out, bytes, MPI_BYTE,
                                root, MPI_COMM_WORLD);
    for (int r = 0; rc == MPI_SUCCESS && at_root && r < wsize; r++) {
        for (int i = 0; i < counts[r]; i++)
            CHECK(out[displs[r] + i] == mixed_byte(r, it, i),
                  "mixed %d: gather%s to %d, rank %d's %d bytes [%d] = %d", it, vform ? "v" : "",
                  root, r, counts[r], i, out[displs[r] + i]);
        CHECK(!vform || out[displs[r] + counts[r]] == GAP, "mixed %d: gatherv gap after %d", it,
              r);
    }
    for (int k = 0; rc == MPI_SUCCESS && !at_root && k < total; k++)
        CHECK(out[k] == GAP, "mixed %d: a gather wrote a non-root's buffer", it);
    return rc;
}

/* Thousands of small blocking Bcasts, Reduces and Allreduces (1 to 64
 * elements, every root, in place and not, doubles and longs, sum and max),
 * Allgathers, Alltoalls and Reduce_scatter_blocks (1 to 8 longs a
 * block, in place and not), Gathers and Gathervs (mixed_gather, every
 * root),
 * in an order drawn alike on every rank, among which: an Ibcast and an
 * Iallreduce left in flight across the blocking calls after them (which
 * must wait their turn), a persistent Allreduce, Reduce and Gather
 * started and completed (fresh inputs each time), a
 * message around the ring, a user op and a strided type (the general
 * path).  Every result checked against its serial value at its return. */
static void run_mixed(int calls)
{
    MPI_Op user;
    MPI_Op_create(mixed_user_fn, 0, &user);
    MPI_Datatype strided;
    MPI_Type_vector(4, 1, 2, MPI_LONG, &strided);
    MPI_Type_commit(&strided);
    double pin = 0, pout = 0;
    MPI_Request persistent;
    MPI_Allreduce_init(&pin, &pout, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &persistent);
    /* A persistent Reduce of 7 doubles (56 bytes) to the last rank and a
     * Gather of 7 bytes a rank to rank 0, started many times, their
     * inputs changed in between. */
    enum { PERSISTENT_N = 7 };
    double rin[PERSISTENT_N], rout[PERSISTENT_N];
    unsigned char gpin[PERSISTENT_N], *gpout = mt_malloc((size_t)wsize * PERSISTENT_N);
    MPI_Request preduce, pgather;
    MPI_Reduce_init(rin, rout, PERSISTENT_N, MPI_DOUBLE, MPI_SUM, wsize - 1, MPI_COMM_WORLD,
                    MPI_INFO_NULL, &preduce);
    MPI_Gather_init(gpin, PERSISTENT_N, MPI_BYTE, gpout, PERSISTENT_N, MPI_BYTE, 0,
                    MPI_COMM_WORLD, MPI_INFO_NULL, &pgather);
    unsigned char *bin = mt_malloc(600), *bout = mt_malloc((size_t)wsize * 600);
    unsigned seed = 12345;
    /* Up to 513 elements of 8 bytes: past the 2 KiB of the straight steps
     * (one large buffer above 512 B), so both sides of each bound. */
    enum { MIXED_MOST = 513 };
    double din[MIXED_MOST], dout[MIXED_MOST];
    long lin[MIXED_MOST], lout[MIXED_MOST], ibuf[8], iin[2], iout[2];
    long *gin = mt_malloc((size_t)wsize * MIXED_MOST * sizeof(long));
    long *gout = mt_malloc((size_t)wsize * MIXED_MOST * sizeof(long));
    /* An Alltoall's and a Reduce_scatter_block's vector of n a rank, up
     * to ~4 KiB on any size; an Allgather's block alike. */
    int per_rank_most = (MIXED_MOST - 1) / wsize + 1;
    MPI_Request ib = MPI_REQUEST_NULL, ia = MPI_REQUEST_NULL;
    int ib_it = 0, ib_root = 0, ia_it = 0;
    for (int it = 0; it < calls; it++) {
        seed = seed * 1103515245u + 12345u;
        unsigned draw = seed >> 8;
        int kind = (int)(draw % 17), root = (int)((draw >> 4) % (unsigned)wsize);
        int n = 1 + (int)((draw >> 9) % 8) * ((draw >> 12) % 4 == 0 ? 8 : 1); /* 1-57 */
        if ((draw >> 16) % 4 == 0)
            n *= 9; /* up to 513: 1-4 KiB and past */
        int inplace = (draw >> 14) & 1;
        int rc = MPI_SUCCESS;
        switch (kind) {
        case 0:
        case 1: /* Bcast of doubles */
            for (int i = 0; i < n; i++)
                din[i] = wrank == root ? (double)mixed_val(root, it, i) : -1.0;
            rc = MPI_Bcast(din, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
            for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
                CHECK(din[i] == (double)mixed_val(root, it, i), "mixed %d: bcast [%d] = %g", it,
                      i, din[i]);
            break;
        case 2:
        case 3: /* Reduce, sum of doubles, the root in place or not */
            for (int i = 0; i < n; i++) {
                din[i] = (double)mixed_val(wrank, it, i);
                dout[i] = wrank == root && inplace ? din[i] : -1.0;
            }
            rc = MPI_Reduce(wrank == root && inplace ? MPI_IN_PLACE : (void *)din,
                            wrank == root && inplace ? (void *)din : (void *)dout, n, MPI_DOUBLE,
                            MPI_SUM, root, MPI_COMM_WORLD);
            for (int i = 0; rc == MPI_SUCCESS && wrank == root && i < n; i++) {
                double got = inplace ? din[i] : dout[i];
                CHECK(got == (double)mixed_sum(it, i), "mixed %d: reduce to %d [%d] = %g", it,
                      root, i, got);
            }
            for (int i = 0; rc == MPI_SUCCESS && wrank != root && i < n; i++)
                CHECK(dout[i] == -1.0, "mixed %d: a reduce wrote a non-root's result", it);
            break;
        case 4:
        case 5: /* Allreduce, max of longs, in place or not */
            for (int i = 0; i < n; i++) {
                lin[i] = mixed_val(wrank, it, i);
                lout[i] = inplace ? lin[i] : -1;
            }
            rc = MPI_Allreduce(inplace ? MPI_IN_PLACE : (void *)lin, inplace ? lin : lout, n,
                               MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
            for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
                CHECK((inplace ? lin : lout)[i] == mixed_val(wsize - 1, it, i),
                      "mixed %d: allreduce max [%d] = %ld", it, i, (inplace ? lin : lout)[i]);
            break;
        case 6: /* an Ibcast or Iallreduce started, or the one in flight finished */
            if (ib == MPI_REQUEST_NULL) {
                ib_it = it;
                ib_root = root;
                for (int i = 0; i < 8; i++)
                    ibuf[i] = wrank == root ? mixed_val(root, it, i) : -1;
                rc = MPI_Ibcast(ibuf, 8, MPI_LONG, root, MPI_COMM_WORLD, &ib);
            } else {
                rc = MPI_Wait(&ib, MPI_STATUS_IGNORE);
                for (int i = 0; rc == MPI_SUCCESS && i < 8; i++)
                    CHECK(ibuf[i] == mixed_val(ib_root, ib_it, i), "mixed %d: ibcast [%d] = %ld",
                          ib_it, i, ibuf[i]);
            }
            break;
        case 7:
            if (ia == MPI_REQUEST_NULL) {
                ia_it = it;
                iin[0] = mixed_val(wrank, it, 0);
                iin[1] = mixed_val(wrank, it, 1);
                rc = MPI_Iallreduce(iin, iout, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &ia);
            } else {
                rc = MPI_Wait(&ia, MPI_STATUS_IGNORE);
                for (int i = 0; rc == MPI_SUCCESS && i < 2; i++)
                    CHECK(iout[i] == mixed_sum(ia_it, i), "mixed %d: iallreduce [%d] = %ld",
                          ia_it, i, iout[i]);
            }
            break;
        case 8: /* persistent, and a message around the ring */
            pin = (double)mixed_val(wrank, it, 0);
            rc = MPI_Start(&persistent);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&persistent, MPI_STATUS_IGNORE);
            CHECK(rc != MPI_SUCCESS || pout == (double)mixed_sum(it, 0),
                  "mixed %d: persistent allreduce %g", it, pout);
            if (wsize > 1) {
                long token = mixed_val(wrank, it, 0), got = -1;
                rc = MPI_Sendrecv(&token, 1, MPI_LONG, (wrank + 1) % wsize, 91, &got, 1, MPI_LONG,
                                  (wrank + wsize - 1) % wsize, 91, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE);
                CHECK(rc != MPI_SUCCESS || got == mixed_val((wrank + wsize - 1) % wsize, it, 0),
                      "mixed %d: ring message %ld", it, got);
            }
            break;
        case 9: /* a user op: not the straight step */
            for (int i = 0; i < n; i++)
                lin[i] = mixed_val(wrank, it, i);
            rc = MPI_Allreduce(lin, lout, n, MPI_LONG, user, MPI_COMM_WORLD);
            for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
                CHECK(lout[i] == mixed_user(it, i), "mixed %d: user op [%d] = %ld, want %ld", it,
                      i, lout[i], mixed_user(it, i));
            break;
        case 11: /* Allgather of n longs a rank, in place or not */
        case 12: /* Alltoall likewise */
            n = n > per_rank_most ? per_rank_most : n;
            for (int r = 0; r < wsize; r++)
                for (int i = 0; i < n; i++) {
                    long mine = kind == 11 ? mixed_val(wrank, it, i) : mixed_val(wrank, it, r * n + i);
                    gin[r * n + i] = mine;
                    gout[r * n + i] = inplace && (kind == 12 || r == wrank) ? mine : -1;
                }
            if (kind == 11)
                rc = MPI_Allgather(inplace ? MPI_IN_PLACE : (void *)gin, n, MPI_LONG, gout, n,
                                   MPI_LONG, MPI_COMM_WORLD);
            else
                rc = MPI_Alltoall(inplace ? MPI_IN_PLACE : (void *)gin, n, MPI_LONG, gout, n,
                                  MPI_LONG, MPI_COMM_WORLD);
            for (int r = 0; rc == MPI_SUCCESS && r < wsize; r++)
                for (int i = 0; i < n; i++) {
                    long want = kind == 11 ? mixed_val(r, it, i) : mixed_val(r, it, wrank * n + i);
                    CHECK(gout[r * n + i] == want, "mixed %d: %s from %d [%d] = %ld, want %ld", it,
                          kind == 11 ? "allgather" : "alltoall", r, i, gout[r * n + i], want);
                }
            break;
        case 13: /* Reduce_scatter_block, sum of n longs a rank, in place or not */
            n = n > per_rank_most ? per_rank_most : n;
            for (int i = 0; i < wsize * n; i++) {
                gin[i] = mixed_val(wrank, it, i);
                gout[i] = inplace ? gin[i] : -1;
            }
            rc = MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : (void *)gin,
                                          gout, n, MPI_LONG, MPI_SUM,
                                          MPI_COMM_WORLD);
            for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
                CHECK(gout[i] == mixed_sum(it, wrank * n + i),
                      "mixed %d: reduce_scatter_block [%d] = %ld, want %ld", it, i, gout[i],
                      mixed_sum(it, wrank * n + i));
            break;
        case 14: /* Gather, Gatherv of about a line a rank (56 / 57 bytes too) */
        case 15:
            rc = mixed_gather(it, root, n - 1 + (int)((draw >> 20) & 1), kind == 15, inplace, bin,
                              bout);
            break;
        case 16: /* the persistent Reduce and Gather, fresh inputs */
            for (int i = 0; i < PERSISTENT_N; i++) {
                rin[i] = (double)mixed_val(wrank, it, i);
                rout[i] = -1.0;
                gpin[i] = mixed_byte(wrank, it, i);
            }
            memset(gpout, 0, (size_t)wsize * PERSISTENT_N);
            rc = MPI_Start(&preduce);
            if (rc == MPI_SUCCESS)
                rc = MPI_Start(&pgather);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&preduce, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&pgather, MPI_STATUS_IGNORE);
            for (int i = 0; rc == MPI_SUCCESS && i < PERSISTENT_N; i++)
                CHECK(rout[i] == (wrank == wsize - 1 ? (double)mixed_sum(it, i) : -1.0),
                      "mixed %d: persistent reduce [%d] = %g", it, i, rout[i]);
            for (int k = 0; rc == MPI_SUCCESS && wrank == 0 && k < wsize * PERSISTENT_N; k++)
                CHECK(gpout[k] == mixed_byte(k / PERSISTENT_N, it, k % PERSISTENT_N),
                      "mixed %d: persistent gather [%d] = %d", it, k, gpout[k]);
            break;
        default: /* a strided Bcast: packed by the face */
            for (int i = 0; i < 8; i++)
                lin[i] = wrank == root ? mixed_val(root, it, i) : -1;
            rc = MPI_Bcast(lin, 1, strided, root, MPI_COMM_WORLD);
            for (int i = 0; rc == MPI_SUCCESS && i < 8; i++)
                CHECK(lin[i] == (i % 2 == 0 || wrank == root ? mixed_val(root, it, i) : -1),
                      "mixed %d: strided bcast [%d] = %ld", it, i, lin[i]);
        }
        CHECK(rc == MPI_SUCCESS, "mixed %d: kind %d: %s", it, kind, mt_errstr(rc));
    }
    if (ib != MPI_REQUEST_NULL)
        MPI_Wait(&ib, MPI_STATUS_IGNORE);
    if (ia != MPI_REQUEST_NULL)
        MPI_Wait(&ia, MPI_STATUS_IGNORE);
    free(gin);
    free(gout);
    free(bin);
    free(bout);
    free(gpout);
    MPI_Request_free(&persistent);
    MPI_Request_free(&preduce);
    MPI_Request_free(&pgather);
    MPI_Type_free(&strided);
    MPI_Op_free(&user);
    if (wrank == 0)
        printf("coll_shm: %d mixed small collectives OK\n", calls);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (argc > 2 && strcmp(argv[1], "kill") == 0)
        run_kill(argv[2]);
    if (argc > 2 && strcmp(argv[1], "soak") == 0)
        run_soak(atof(argv[2]));
    else if (argc > 1 && strcmp(argv[1], "large-bcast") == 0)
        run_large_bcasts();
    else if (argc > 1 && strcmp(argv[1], "pair-bcast") == 0)
      run_pair_bcasts();
    else if (argc > 1 && strcmp(argv[1], "read-bcast") == 0)
        run_read_bcasts();
    else if (argc > 1 && strcmp(argv[1], "crowded-bcast-root-free") == 0)
        run_crowded_bcasts_root_free();
    else if (argc > 1 && strcmp(argv[1], "large-reduce") == 0)
      run_large_reductions();
    else if (argc > 1 && strcmp(argv[1], "read-reduce") == 0)
      run_read_reductions();
    else if (argc > 1 && strcmp(argv[1], "ring") == 0)
        run_ring();
    else if (argc > 1 && strcmp(argv[1], "mixed") == 0)
        run_mixed(argc > 2 ? atoi(argv[2]) : 5000);
    else
        run_checks();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_shm: %d ranks OK\n", wsize);
    return 0;
}

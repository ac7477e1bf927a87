/* Allgather(v), Alltoall(v) and Reduce_scatter(_block) on a communicator
 * of one node run in its shared-memory segment (src/hcomm/shmcoll.c): the
 * blocking forms, the I-forms (a step of their schedule) and the
 * persistent ones (a lane of the segment), checked byte by byte against a
 * serial reference.
 *
 *   coll_shm_move        on MPI_COMM_WORLD and an even/odd split whose
 *                        order is reversed: every iteration runs each of
 *                        them blocking, in place and not, over block sizes
 *                        from 1 byte to several pipeline chunks (empty
 *                        blocks and gaps between blocks in the v-forms;
 *                        every byte of the receive buffers is checked,
 *                        gaps untouched), then the same as I-forms all
 *                        outstanding at once, completed in an order that
 *                        changes, then persistent ones started again with
 *                        new inputs.  The transport message counters
 *                        (MPI_T) must not move across these on 2 or more
 *                        ranks.  Then the sizes the segment leaves to
 *                        messages (an Allgather of 100000-byte blocks
 *                        where HCMPI_COLL_SHM_ALLGATHER_MAX is lower, as
 *                        coll_shm_move.sh sets it once, an Alltoall of large
 *                        blocks, an Alltoallv mixing large blocks between
 *                        some pairs with small ones between others, in
 *                        place and not): results alike, and messages move.
 *   coll_shm_move p2p    the same under HCMPI_COLL_SHM=0: results alike,
 *                        and the counters move.
 *   coll_shm_move plain  results only, no counters (another MPI, another
 *                        launcher).
 *   coll_shm_move vrun   600 small blocking Alltoallvs on each of two
 *                        communicators, one rank late at each, sizes and
 *                        in place changing, Ialltoallvs and messages in
 *                        flight, a derived type, large blocks between some
 *                        pairs: every byte checked.
 *   coll_shm_move pair   Allgather(v) and Alltoall(v) of blocks about 64
 *                        KiB up to 1 MiB, in place and not, and an
 *                        Allgather of a strided type: on 2 ranks each
 *                        rank reads the other's blocks from its memory,
 *                        and (not in place) no transport message moves;
 *                        on more, an Alltoall's blocks from
 *                        HCMPI_COLL_SHM_ALLTOALL_READ_MIN likewise, and
 *                        an Alltoallv's blocks above the segment's part
 *                        (its receiver reads each; one whose read failed
 *                        follows as a message).
 */
#include "mpitest.h"

#include <unistd.h>

enum { ITERS = 12, SENTINEL = 0x5a };

static int wrank, wsize;

/* ---- transport messages sent, through MPI_T ------------------------------ */

static MPI_T_pvar_session session;
static MPI_T_pvar_handle sent[2];
static const char *const sent_names[2] = {"eager_sent_messages", "rndv_sent_messages"};
static int counted;

static unsigned long long messages_sent(void)
{
    return counted ? mt_counters_sum(session, 2, sent) : 0;
}

/* ---- reference data ------------------------------------------------------ */

/* Byte i of the block rank src sends to rank dst (allgather: dst -1) in
 * iteration it. */
static unsigned char byte_of(int src, int dst, int it, size_t i)
{
    return (unsigned char)((unsigned)src * 73u + (unsigned)(dst + 1) * 29u + (unsigned)it * 11u +
                           (unsigned)i * 7u + (unsigned)(i >> 8));
}

/* Element i of rank r's reduce_scatter input (sums of 8 ranks exact). */
static int elem_of(int r, int it, size_t i)
{
    return (int)((unsigned)(r * 131 + it * 17) + (unsigned)i * 7u) % 1000 - 500;
}

typedef struct comm_ctx {
    MPI_Comm comm;
    const char *name;
    int rank, size;
} comm_ctx_t;

static void check_bytes(const unsigned char *got, const unsigned char *want, size_t n,
                        const char *what, const comm_ctx_t *c, int it)
{
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s it %d: %s: byte %zu is %d, want %d", c->name, it, what, i,
              got[i], want[i]);
}

/* ---- allgather ------------------------------------------------------------ */

/* The v-form's layout: rank r's block of vbytes(r) bytes, blocks in
 * reverse rank order with gaps of 5 bytes. */
static size_t vbytes(int r, size_t bytes)
{
    return r % 3 == 1 ? 0 : bytes + (size_t)r * 3;
}

static void allgather_layout(const comm_ctx_t *c, size_t bytes, int vform, int *counts,
                             int *displs, size_t *span)
{
    size_t at = 0;
    for (int r = c->size - 1; r >= 0; r--) {
        counts[r] = (int)(vform ? vbytes(r, bytes) : bytes);
        displs[r] = vform ? (int)at : (int)((size_t)r * bytes);
        at += (size_t)counts[r] + (vform ? 5 : 0);
    }
    *span = vform ? at : (size_t)c->size * bytes;
}

/* Builds the input, runs kind (0 blocking, 1 I-form started into *req),
 * returns through want what recv must hold once done. */
typedef struct gather_run {
    unsigned char *send, *recv, *want;
    int counts[64], displs[64];
    size_t span;
} gather_run_t;

static void allgather_setup(gather_run_t *g, const comm_ctx_t *c, size_t bytes, int vform,
                            int inplace, int it)
{
    allgather_layout(c, bytes, vform, g->counts, g->displs, &g->span);
    g->send = mt_malloc(bytes + (size_t)c->size * 3 + 1);
    g->recv = mt_malloc(g->span + 1);
    g->want = mt_malloc(g->span + 1);
    memset(g->want, SENTINEL, g->span + 1);
    memset(g->recv, SENTINEL, g->span + 1);
    for (int r = 0; r < c->size; r++)
        for (int i = 0; i < g->counts[r]; i++)
            g->want[g->displs[r] + i] = byte_of(r, -1, it, (size_t)i);
    unsigned char *mine = inplace ? g->recv + g->displs[c->rank] : g->send;
    for (int i = 0; i < g->counts[c->rank]; i++)
        mine[i] = byte_of(c->rank, -1, it, (size_t)i);
}

static int allgather_start(gather_run_t *g, const comm_ctx_t *c, int vform, int inplace,
                           MPI_Request *req)
{
    const void *s = inplace ? MPI_IN_PLACE : g->send;
    int n = g->counts[c->rank];
    if (vform && req)
        return MPI_Iallgatherv(s, n, MPI_BYTE, g->recv, g->counts, g->displs, MPI_BYTE,
                               c->comm, req);
    if (vform)
        return MPI_Allgatherv(s, n, MPI_BYTE, g->recv, g->counts, g->displs, MPI_BYTE, c->comm);
    if (req)
        return MPI_Iallgather(s, n, MPI_BYTE, g->recv, n, MPI_BYTE, c->comm, req);
    return MPI_Allgather(s, n, MPI_BYTE, g->recv, n, MPI_BYTE, c->comm);
}

static void gather_finish(gather_run_t *g, const comm_ctx_t *c, int it, const char *what)
{
    check_bytes(g->recv, g->want, g->span + 1, what, c, it);
    free(g->send);
    free(g->recv);
    free(g->want);
}

/* ---- alltoall ------------------------------------------------------------- */

/* Bytes between ranks a and b (either way: the in-place form needs them
 * alike), from 0 up; big: some pairs far above what the segment takes. */
static size_t pair_bytes(int a, int b, size_t bytes, int big)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    if (big && (lo + hi) % 3 == 0 && lo != hi)
        return 50000 + (size_t)lo;
    if (bytes == 0)
        return 0;
    return (size_t)((lo * 5 + hi * 3) % 4) * (bytes / 3 + 1);
}

typedef struct a2a_run {
    unsigned char *send, *recv, *want;
    int scounts[64], sdispls[64], rcounts[64], rdispls[64];
    size_t sspan, rspan;
} a2a_run_t;

/* vform 0: blocks of bytes; 1: pair_bytes, receive blocks in reverse
 * order with gaps; 2: the same with some large pairs. */
static void a2a_setup(a2a_run_t *a, const comm_ctx_t *c, size_t bytes, int vform, int inplace,
                      int it)
{
    size_t sat = 0, rat = 0;
    for (int j = 0; j < c->size; j++) {
        size_t n = vform ? pair_bytes(c->rank, j, bytes, vform == 2) : bytes;
        a->scounts[j] = (int)n;
        a->sdispls[j] = (int)sat;
        sat += n + (vform ? 3 : 0);
    }
    for (int r = c->size - 1; r >= 0; r--) {
        size_t n = vform ? pair_bytes(r, c->rank, bytes, vform == 2) : bytes;
        a->rcounts[r] = (int)n;
        a->rdispls[r] = vform ? (int)rat : (int)((size_t)r * bytes);
        rat += n + (vform ? 7 : 0);
    }
    a->sspan = sat;
    a->rspan = vform ? rat : (size_t)c->size * bytes;
    a->send = mt_malloc(a->sspan + 1);
    a->recv = mt_malloc(a->rspan + 1);
    a->want = mt_malloc(a->rspan + 1);
    memset(a->recv, SENTINEL, a->rspan + 1);
    memset(a->want, SENTINEL, a->rspan + 1);
    for (int j = 0; j < c->size; j++) {
        /* In place, the input is in recv at the receive layout. */
        unsigned char *to = inplace ? a->recv + a->rdispls[j] : a->send + a->sdispls[j];
        for (int i = 0; i < a->scounts[j]; i++)
            to[i] = byte_of(c->rank, j, it, (size_t)i);
    }
    for (int r = 0; r < c->size; r++)
        for (int i = 0; i < a->rcounts[r]; i++)
            a->want[a->rdispls[r] + i] = byte_of(r, c->rank, it, (size_t)i);
}

static int a2a_start(a2a_run_t *a, const comm_ctx_t *c, int vform, int inplace,
                     MPI_Request *req)
{
    const void *s = inplace ? MPI_IN_PLACE : a->send;
    if (vform && req)
        return MPI_Ialltoallv(s, a->scounts, a->sdispls, MPI_BYTE, a->recv, a->rcounts,
                              a->rdispls, MPI_BYTE, c->comm, req);
    if (vform)
        return MPI_Alltoallv(s, a->scounts, a->sdispls, MPI_BYTE, a->recv, a->rcounts,
                             a->rdispls, MPI_BYTE, c->comm);
    if (req)
        return MPI_Ialltoall(s, a->scounts[0], MPI_BYTE, a->recv, a->rcounts[0], MPI_BYTE,
                             c->comm, req);
    return MPI_Alltoall(s, a->scounts[0], MPI_BYTE, a->recv, a->rcounts[0], MPI_BYTE, c->comm);
}

static void a2a_finish(a2a_run_t *a, const comm_ctx_t *c, int it, const char *what)
{
    check_bytes(a->recv, a->want, a->rspan + 1, what, c, it);
    free(a->send);
    free(a->recv);
    free(a->want);
}

/* ---- reduce_scatter --------------------------------------------------------- */

typedef struct rs_run {
    int *send, *recv;
    int counts[64];
    size_t total, mine_at;
} rs_run_t;

/* vform 0: block elements each (Reduce_scatter_block); 1: counts that
 * differ by rank, some empty. */
static void rs_setup(rs_run_t *s, const comm_ctx_t *c, size_t block, int vform, int inplace,
                     int it)
{
    s->total = 0;
    for (int r = 0; r < c->size; r++) {
        s->counts[r] = (int)(vform ? (r % 3 == 2 ? 0 : block + (size_t)r) : block);
        if (r == c->rank)
            s->mine_at = s->total;
        s->total += (size_t)s->counts[r];
    }
    s->send = mt_malloc((s->total + 1) * sizeof(int));
    s->recv = mt_malloc((s->total + 1) * sizeof(int));
    int *in = inplace ? s->recv : s->send;
    for (size_t i = 0; i < s->total + 1; i++) {
        in[i] = elem_of(c->rank, it, i);
        if (!inplace)
            s->recv[i] = -7777;
    }
}

static int rs_start(rs_run_t *s, const comm_ctx_t *c, int vform, int inplace, MPI_Request *req)
{
    const void *in = inplace ? MPI_IN_PLACE : s->send;
    if (vform && req)
        return MPI_Ireduce_scatter(in, s->recv, s->counts, MPI_INT, MPI_SUM, c->comm, req);
    if (vform)
        return MPI_Reduce_scatter(in, s->recv, s->counts, MPI_INT, MPI_SUM, c->comm);
    if (req)
        return MPI_Ireduce_scatter_block(in, s->recv, s->counts[0], MPI_INT, MPI_SUM, c->comm,
                                         req);
    return MPI_Reduce_scatter_block(in, s->recv, s->counts[0], MPI_INT, MPI_SUM, c->comm);
}

static void rs_finish(rs_run_t *s, const comm_ctx_t *c, int inplace, int it, const char *what)
{
    int n = s->counts[c->rank];
    for (int i = 0; i < n; i++) {
        long long want = 0;
        for (int r = 0; r < c->size; r++)
            want += elem_of(r, it, s->mine_at + (size_t)i);
        CHECK(s->recv[i] == want, "%s it %d: %s: [%d] = %d, want %lld", c->name, it, what, i,
              s->recv[i], want);
    }
    /* Beyond this rank's block nothing written (not in place). */
    for (size_t i = (size_t)n; !inplace && i < s->total + 1; i++)
        CHECK(s->recv[i] == -7777, "%s it %d: %s: [%zu] written past the block", c->name, it,
              what, i);
    free(s->send);
    free(s->recv);
}

/* ---- the runs --------------------------------------------------------------- */

static const size_t gather_sizes[] = {1, 8, 300, 1000, 5000, 16385, 20000, 65520, 262145};
static const size_t a2a_sizes[] = {0, 1, 8, 100, 1000};
static const size_t rs_blocks[] = {1, 3, 100, 2000};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void blocking_round(const comm_ctx_t *c, int it)
{
    for (size_t k = 0; k < NELEM(gather_sizes); k++)
        for (int v = 0; v < 2; v++) {
            int inplace = (int)(k + (size_t)it + (size_t)v) % 2;
            gather_run_t g;
            allgather_setup(&g, c, gather_sizes[k], v, inplace, it);
            CHECK(allgather_start(&g, c, v, inplace, NULL) == MPI_SUCCESS, "Allgather");
            gather_finish(&g, c, it, v ? "Allgatherv" : "Allgather");
        }
    for (size_t k = 0; k < NELEM(a2a_sizes); k++)
        for (int v = 0; v < 2; v++) {
            int inplace = (int)(k + (size_t)it + (size_t)v) % 2;
            a2a_run_t a;
            a2a_setup(&a, c, a2a_sizes[k], v, inplace, it);
            CHECK(a2a_start(&a, c, v, inplace, NULL) == MPI_SUCCESS, "Alltoall");
            a2a_finish(&a, c, it, v ? "Alltoallv" : "Alltoall");
        }
    for (size_t k = 0; k < NELEM(rs_blocks); k++)
        for (int v = 0; v < 2; v++) {
            int inplace = (int)(k + (size_t)it + (size_t)v) % 2;
            rs_run_t s;
            rs_setup(&s, c, rs_blocks[k], v, inplace, it);
            CHECK(rs_start(&s, c, v, inplace, NULL) == MPI_SUCCESS, "Reduce_scatter");
            rs_finish(&s, c, inplace, it, v ? "Reduce_scatter" : "Reduce_scatter_block");
        }
}

/* One of each family, v-form and not, in place and not, all outstanding
 * at once, completed in an order that changes with it. */
static void nonblocking_round(const comm_ctx_t *c, int it)
{
    gather_run_t g[2];
    a2a_run_t a[2];
    rs_run_t s[2];
    MPI_Request r[6];
    for (int v = 0; v < 2; v++) {
        int inplace = (it + v) % 2;
        allgather_setup(&g[v], c, gather_sizes[(it + v) % NELEM(gather_sizes)], v, inplace, it);
        CHECK(allgather_start(&g[v], c, v, inplace, &r[v]) == MPI_SUCCESS, "Iallgather");
        a2a_setup(&a[v], c, a2a_sizes[(it + v) % NELEM(a2a_sizes)], v, inplace, it);
        CHECK(a2a_start(&a[v], c, v, inplace, &r[2 + v]) == MPI_SUCCESS, "Ialltoall");
        rs_setup(&s[v], c, rs_blocks[(it + v) % NELEM(rs_blocks)], v, inplace, it);
        CHECK(rs_start(&s[v], c, v, inplace, &r[4 + v]) == MPI_SUCCESS, "Ireduce_scatter");
    }
    if (it % 2 == 0) {
        CHECK(MPI_Waitall(6, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall");
    } else {
        for (int k = 5; k >= 0; k--)
            CHECK(MPI_Wait(&r[k], MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
    }
    for (int v = 0; v < 2; v++) {
        gather_finish(&g[v], c, it, v ? "Iallgatherv" : "Iallgather");
        a2a_finish(&a[v], c, it, v ? "Ialltoallv" : "Ialltoall");
        rs_finish(&s[v], c, (it + v) % 2, it, v ? "Ireduce_scatter" : "Ireduce_scatter_block");
    }
}

/* Small persistent ones (a lane each), started ITERS times with new
 * inputs, in an order that differs between even and odd ranks. */
static void persistent_rounds(const comm_ctx_t *c)
{
    enum { GB = 24, AB = 16, RB = 8 };
    unsigned char gs[GB] = {0}, gr[64 * GB], as[64 * AB] = {0}, ar[64 * AB];
    int rsend[64 * RB] = {0}, rrecv[RB];
    MPI_Request p[3], order[3];
    /* MPI_Startall starts its requests in an order of its own, so the
     * arrays may differ between ranks. */
    int flip = wrank % 2;
    CHECK(MPI_Allgather_init(gs, GB, MPI_BYTE, gr, GB, MPI_BYTE, c->comm, MPI_INFO_NULL,
                             &p[0]) == MPI_SUCCESS,
          "Allgather_init");
    CHECK(MPI_Alltoall_init(as, AB, MPI_BYTE, ar, AB, MPI_BYTE, c->comm, MPI_INFO_NULL,
                            &p[1]) == MPI_SUCCESS,
          "Alltoall_init");
    CHECK(MPI_Reduce_scatter_block_init(rsend, rrecv, RB, MPI_INT, MPI_SUM, c->comm,
                                        MPI_INFO_NULL, &p[2]) == MPI_SUCCESS,
          "Reduce_scatter_block_init");
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < GB; i++)
            gs[i] = byte_of(c->rank, -1, it, (size_t)i);
        for (int j = 0; j < c->size; j++)
            for (int i = 0; i < AB; i++)
                as[j * AB + i] = byte_of(c->rank, j, it, (size_t)i);
        for (int i = 0; i < c->size * RB; i++)
            rsend[i] = elem_of(c->rank, it, (size_t)i);
        for (int k = 0; k < 3; k++)
            order[k] = p[flip ? 2 - k : k];
        CHECK(MPI_Startall(3, order) == MPI_SUCCESS, "Startall");
        CHECK(MPI_Waitall(3, order, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall");
        for (int k = 0; k < 3; k++)
            p[flip ? 2 - k : k] = order[k];
        for (int r = 0; r < c->size; r++)
            for (int i = 0; i < GB; i++)
                CHECK(gr[r * GB + i] == byte_of(r, -1, it, (size_t)i),
                      "%s it %d: persistent Allgather byte %d of rank %d", c->name, it, i, r);
        for (int r = 0; r < c->size; r++)
            for (int i = 0; i < AB; i++)
                CHECK(ar[r * AB + i] == byte_of(r, c->rank, it, (size_t)i),
                      "%s it %d: persistent Alltoall byte %d from rank %d", c->name, it, i, r);
        for (int i = 0; i < RB; i++) {
            long long want = 0;
            for (int r = 0; r < c->size; r++)
                want += elem_of(r, it, (size_t)(c->rank * RB + i));
            CHECK(rrecv[i] == want, "%s it %d: persistent Reduce_scatter_block [%d]", c->name,
                  it, i);
        }
    }
    for (int k = 0; k < 3; k++)
        CHECK(MPI_Request_free(&p[k]) == MPI_SUCCESS, "Request_free");
}

/* What the segment leaves to messages, blocking and I-form. */
static void large_round(const comm_ctx_t *c, int it)
{
    for (int nb = 0; nb < 2; nb++) {
        MPI_Request req, *rq = nb ? &req : NULL;
        gather_run_t g;
        allgather_setup(&g, c, 100000, 0, it % 2, it);
        CHECK(allgather_start(&g, c, 0, it % 2, rq) == MPI_SUCCESS, "large Allgather");
        CHECK(!nb || MPI_Wait(rq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
        gather_finish(&g, c, it, "large Allgather");
        a2a_run_t a;
        a2a_setup(&a, c, 40000, 0, 0, it);
        CHECK(a2a_start(&a, c, 0, 0, rq) == MPI_SUCCESS, "large Alltoall");
        CHECK(!nb || MPI_Wait(rq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
        a2a_finish(&a, c, it, "large Alltoall");
        for (int inplace = 0; inplace < 2; inplace++) {
            a2a_setup(&a, c, 200, 2, inplace, it);
            CHECK(a2a_start(&a, c, 1, inplace, rq) == MPI_SUCCESS, "mixed Alltoallv");
            CHECK(!nb || MPI_Wait(rq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
            a2a_finish(&a, c, it, inplace ? "mixed Alltoallv in place" : "mixed Alltoallv");
        }
    }
}

/* Sizes about HCMPI_COLL_SHM_PAIR_READ_MIN (64 KiB) and above. */
static const size_t pair_sizes[] = {65535, 65536, 65537, 200000, (1u << 20) + 3};

/* Allgather(v) and Alltoall(v) of blocks about the pair read's threshold,
 * in place and not.  Where two ranks read each other's blocks (the
 * default on 2), those not in place send no transport message (in place,
 * the Alltoall is the schedule's: the block read is where the other's
 * lands). */
static void pair_round(const comm_ctx_t *c, int it)
{
    /* COLL_SHM_READS_REFUSED (coll_shm_move.sh): some rank cannot read the
     * others (HCMPI_SHM_CMA=0), and all take the other paths alike. */
    int refused = getenv("COLL_SHM_READS_REFUSED") != NULL;
    /* Two ranks read blocks from HCMPI_COLL_SHM_PAIR_READ_MIN up to
     * HCMPI_COLL_SHM_PAIR_CACHED_MIN (coll_shm_move.sh pins both). */
    size_t read_min = mt_env_bytes("HCMPI_COLL_SHM_PAIR_READ_MIN", 65536);
    size_t cached_min = mt_env_bytes("HCMPI_COLL_SHM_PAIR_CACHED_MIN", 0);
    int reads = counted && !refused && wsize == 2 && read_min > 0;
    const char *a2a_env = getenv("HCMPI_COLL_SHM_ALLTOALL_READ_MIN");
    size_t a2a_min = refused ? 0
                     : a2a_env != NULL ? (size_t)strtoull(a2a_env, NULL, 10)
                                       : 32768;
    const char *a2av_env = getenv("HCMPI_COLL_SHM_ALLTOALLV_READ");
    int a2av_reads = !refused && (a2av_env == NULL || strcmp(a2av_env, "0") != 0);
    for (int inplace = 0; inplace < 2; inplace++)
        for (size_t k = 0; k < NELEM(pair_sizes); k++)
            for (int v = 0; v < 2; v++) {
                /* The larger block of the two ways (the v-forms' are 3
                 * bytes larger on 2 ranks, rank 1's allgather block none). */
                size_t most = pair_sizes[k] + (v ? 3 : 0);
                int read = reads && most >= read_min &&
                           (cached_min == 0 || most < cached_min);
                unsigned long long before = messages_sent();
                gather_run_t g;
                allgather_setup(&g, c, pair_sizes[k], v, inplace, it);
                CHECK(allgather_start(&g, c, v, inplace, NULL) == MPI_SUCCESS, "pair Allgather");
                gather_finish(&g, c, it, v ? "pair Allgatherv" : "pair Allgather");
                unsigned long long between = messages_sent();
                a2a_run_t a;
                a2a_setup(&a, c, pair_sizes[k], v, inplace, it);
                CHECK(a2a_start(&a, c, v, inplace, NULL) == MPI_SUCCESS, "pair Alltoall");
                a2a_finish(&a, c, it, v ? "pair Alltoallv" : "pair Alltoall");
                unsigned long long moved = messages_sent() - before;
                CHECK(!read || inplace || moved == 0,
                      "%llu transport messages in pair reads of %zu bytes (v-form %d)", moved,
                      pair_sizes[k], v);
                /* From the cached minimum no read: the Alltoall's blocks,
                 * larger than a slot's part (128 KiB on 2 ranks), move as
                 * messages. */
                int cached = counted && !refused && wsize == 2 && cached_min > 0 &&
                             most >= cached_min && most > (128 << 10);
                CHECK(!cached || moved > 0,
                      "no transport message in a pair Alltoall of %zu bytes (v-form %d) "
                      "from HCMPI_COLL_SHM_PAIR_CACHED_MIN",
                      pair_sizes[k], v);
                /* More ranks: an Alltoall of blocks from
                 * HCMPI_COLL_SHM_ALLTOALL_READ_MIN is read from the others. */
                moved = messages_sent() - between;
                CHECK(!counted || wsize < 3 || v || inplace || a2a_min == 0 ||
                          pair_sizes[k] < a2a_min || moved == 0,
                      "%llu transport messages in an Alltoall of %zu bytes read from %d ranks",
                      moved, pair_sizes[k], wsize);
                /* An Alltoallv's blocks above the segment's part are read
                 * from their senders (HCMPI_COLL_SHM_ALLTOALLV_READ). */
                CHECK(!counted || wsize < 3 || !v || inplace || !a2av_reads || moved == 0,
                      "%llu transport messages in an Alltoallv of blocks about %zu bytes on %d "
                      "ranks",
                      moved, pair_sizes[k], wsize);
            }
    /* A strided datatype: the face packs it, the pair read moves bytes. */
    enum { STRIDED = 40000 };
    int *in = mt_malloc(2 * STRIDED * sizeof(int)),
        *out = mt_malloc((size_t)wsize * STRIDED * sizeof(int));
    for (int i = 0; i < 2 * STRIDED; i++)
        in[i] = i % 2 == 0 ? wrank * 1000003 + i / 2 + it : -1;
    MPI_Datatype every_other;
    CHECK(MPI_Type_vector(STRIDED, 1, 2, MPI_INT, &every_other) == MPI_SUCCESS, "Type_vector");
    CHECK(MPI_Type_commit(&every_other) == MPI_SUCCESS, "Type_commit");
    CHECK(MPI_Allgather(in, 1, every_other, out, STRIDED, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS,
          "strided Allgather");
    for (int r = 0; r < wsize; r++)
        for (int i = 0; i < STRIDED; i++)
            CHECK(out[(size_t)r * STRIDED + (size_t)i] == r * 1000003 + i + it,
                  "strided Allgather: rank %d element %d is %d", r, i,
                  out[(size_t)r * STRIDED + (size_t)i]);
    MPI_Type_free(&every_other);
    free(in);
    free(out);
}

/* A run of small blocking Alltoallvs longer than the segment's rings,
 * one rank starting each late so that the others run ahead (their blocks
 * posted, the late one's not yet): sizes and in place changing, every
 * fourth with an Ialltoallv in flight, every fifth with a message between
 * neighbours in flight, every seventh of a derived type (the general path).
 * Every byte checked. */
static void vrun_round(const comm_ctx_t *c)
{
    static const size_t sizes[] = {1, 8, 0, 100, 8, 300};
    for (int it = 0; it < 600; it++) {
        size_t bytes = sizes[it % NELEM(sizes)];
        int inplace = it % 3 == 1;
        if (c->rank == it % c->size && it % 2 == 0)
            usleep(20);
        a2a_run_t pending, a;
        MPI_Request ireq = MPI_REQUEST_NULL, msg[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        int out = it, in = -1;
        if (it % 4 == 0) {
            a2a_setup(&pending, c, 8, 1, 0, it + 1000);
            CHECK(a2a_start(&pending, c, 1, 0, &ireq) == MPI_SUCCESS, "vrun Ialltoallv");
        }
        if (it % 5 == 0 && c->size > 1) {
            CHECK(MPI_Irecv(&in, 1, MPI_INT, (c->rank + c->size - 1) % c->size, 9, c->comm,
                            &msg[0]) == MPI_SUCCESS,
                  "vrun Irecv");
            CHECK(MPI_Isend(&out, 1, MPI_INT, (c->rank + 1) % c->size, 9, c->comm, &msg[1]) ==
                      MPI_SUCCESS,
                  "vrun Isend");
        }
        a2a_setup(&a, c, bytes, 2 - (it % 2 == 0 || bytes > 100), inplace, it);
        if (it % 7 == 3) { /* a derived type of one byte: not the fast path */
            MPI_Datatype one;
            CHECK(MPI_Type_contiguous(1, MPI_BYTE, &one) == MPI_SUCCESS, "Type_contiguous");
            CHECK(MPI_Type_commit(&one) == MPI_SUCCESS, "Type_commit");
            CHECK(MPI_Alltoallv(inplace ? MPI_IN_PLACE : a.send, a.scounts, a.sdispls, one,
                                a.recv, a.rcounts, a.rdispls, one, c->comm) == MPI_SUCCESS,
                  "vrun Alltoallv of a derived type");
            MPI_Type_free(&one);
        } else {
            CHECK(a2a_start(&a, c, 1, inplace, NULL) == MPI_SUCCESS, "vrun Alltoallv");
        }
        a2a_finish(&a, c, it, inplace ? "vrun Alltoallv in place" : "vrun Alltoallv");
        if (ireq != MPI_REQUEST_NULL) {
            CHECK(MPI_Wait(&ireq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
            a2a_finish(&pending, c, it + 1000, "vrun Ialltoallv");
        }
        CHECK(MPI_Waitall(2, msg, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall");
        CHECK(it % 5 != 0 || c->size == 1 || in == it, "vrun message %d: got %d", it, in);
    }
}

/* The end of every mode: what passed, named. */
static int finish(MPI_Comm *half, const char *what)
{
    MPI_Comm_free(half);
    if (counted)
        MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_shm_move: %d ranks passed (%s)\n", wsize, what);
    return 0;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int p2p = argc > 1 && strcmp(argv[1], "p2p") == 0;
    int pair = argc > 1 && strcmp(argv[1], "pair") == 0;
    int vrun = argc > 1 && strcmp(argv[1], "vrun") == 0;
    counted = argc < 2 || p2p || pair;
    CHECK(wsize <= 64, "at most 64 ranks");
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init");
    if (counted)
        mt_counters_open(&session, 2, sent_names, sent);
    MPI_Comm half;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &half) == MPI_SUCCESS, "split");
    comm_ctx_t ctx[2] = {{MPI_COMM_WORLD, "world", wrank, wsize}, {half, "split", 0, 0}};
    MPI_Comm_rank(half, &ctx[1].rank);
    MPI_Comm_size(half, &ctx[1].size);
    if (vrun) {
        for (int k = 0; k < 2; k++)
            vrun_round(&ctx[k]);
        return finish(&half, "a run of small Alltoallvs");
    }
    if (pair) {
        blocking_round(&ctx[0], 0); /* makes the segment (messages) */
        for (int it = 1; it <= 3; it++)
            pair_round(&ctx[0], it);
        return finish(&half, "pair sizes");
    }
    /* The first blocking collective of each makes its segment (messages). */
    for (int k = 0; k < 2; k++)
        blocking_round(&ctx[k], 0);
    unsigned long long before = messages_sent();
    for (int it = 1; it <= ITERS; it++)
        for (int k = 0; k < 2; k++) {
            blocking_round(&ctx[k], it);
            nonblocking_round(&ctx[k], it);
        }
    /* MPICH 4.0.2 replays a persistent Allgather with its first run's
     * data (MT_MPICH_QUIRKS=1: not checked). */
    for (int k = 0; k < 2 && !mt_mpich_quirks(); k++)
        persistent_rounds(&ctx[k]);
    unsigned long long moved = messages_sent() - before;
    if (counted && !p2p && wsize > 1)
        CHECK(moved == 0, "%llu transport messages in collectives the segment takes", moved);
    if (counted && p2p && wsize > 1)
        CHECK(moved > 0, "HCMPI_COLL_SHM=0: the collectives sent no message");
    before = messages_sent();
    for (int it = 0; it < 2; it++)
        large_round(&ctx[0], it);
    if (counted && wsize > 1)
        CHECK(messages_sent() > before, "the large collectives sent no message");
    return finish(&half, p2p ? "point to point" : counted ? "shared memory" : "results only");
}

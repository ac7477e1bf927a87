/* Soak: rounds of random traffic between every pair of ranks.  Each round
 * every rank sends SOAK_PER_RANK messages (random destination, self
 * included; random tag; random size from 0 B to 4 MiB, mostly small; some
 * synchronous) and receives what is sent to it with MPI_ANY_SOURCE /
 * MPI_ANY_TAG.  The plan of a round comes from a generator every rank seeds
 * alike, so each receiver knows what it must get: the k-th message it takes
 * from a source (receives complete in posting order per source, by the
 * non-overtaking rule) must be that source's k-th message to it, with its
 * tag, its size and its checksum.
 *   soak [rounds]   (default SOAK_ROUNDS or 150; SOAK_SEED picks the plan)
 * Prints the messages and bytes moved, summed over all ranks. */
#include "mpitest.h"
#include <stdint.h>

#define SOAK_PER_RANK 4
#define SOAK_MAX_SIZE ((size_t)4 << 20)

typedef struct soak_msg {
    int src, dst, tag, sync;
    size_t size;
    unsigned seed;
} soak_msg_t;

static uint64_t soak_next(uint64_t *s)
{
    /* xorshift64*: the same sequence on every rank. */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* 70% up to 256 B, 20% up to 64 KiB, 8% up to 1 MiB, 2% up to 4 MiB. */
static size_t soak_size(uint64_t *s)
{
    unsigned p = (unsigned)(soak_next(s) % 100);
    size_t cap = p < 70 ? 256 : p < 90 ? (64 << 10) : p < 98 ? (1 << 20) : SOAK_MAX_SIZE;
    return (size_t)(soak_next(s) % (cap + 1));
}

static void soak_plan(soak_msg_t *plan, int size, unsigned seed, int round)
{
    uint64_t s = ((uint64_t)seed << 32 | (unsigned)round) * 0x9e3779b97f4a7c15ull + 1;
    for (int src = 0; src < size; src++)
        for (int k = 0; k < SOAK_PER_RANK; k++) {
            soak_msg_t *m = &plan[src * SOAK_PER_RANK + k];
            m->src = src;
            m->dst = (int)(soak_next(&s) % (unsigned)size);
            m->tag = (int)(soak_next(&s) % 32768);
            m->sync = soak_next(&s) % 8 == 0;
            m->size = soak_size(&s);
            m->seed = (unsigned)soak_next(&s);
        }
}

/* FNV-1a, 64-bit. */
static uint64_t soak_sum(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

typedef struct soak_rank {
    int rank, size;
    unsigned char *sbuf[SOAK_PER_RANK];
    unsigned char **rbuf;
    soak_msg_t **expect; /* per receive, filled in order per source */
    long msgs;
    double bytes;
} soak_rank_t;

static void soak_check(soak_rank_t *r, const soak_msg_t *m, const MPI_Status *st, int i,
                       int round)
{
    int count = mt_status_count(st, MPI_BYTE);
    CHECK(st->MPI_TAG == m->tag && (size_t)count == m->size,
          "round %d: message %d from %d: tag %d size %d, want tag %d size %zu", round, i,
          m->src, st->MPI_TAG, count, m->tag, m->size);
    unsigned char *want = mt_malloc(m->size);
    mt_fill(want, m->size, m->seed);
    CHECK(soak_sum(r->rbuf[i], m->size) == soak_sum(want, m->size),
          "round %d: checksum of a %zu-byte message from %d differs (first bad byte %zu)",
          round, m->size, m->src, mt_verify(r->rbuf[i], m->size, m->seed));
    free(want);
    r->msgs++;
    r->bytes += (double)m->size;
}

static void soak_round(soak_rank_t *r, soak_msg_t *plan, int round, unsigned seed)
{
    int total = r->size * SOAK_PER_RANK, nrecv = 0, nreq = 0;
    MPI_Request *req = mt_malloc((size_t)(total + SOAK_PER_RANK) * sizeof *req);
    MPI_Status *st = mt_malloc((size_t)(total + SOAK_PER_RANK) * sizeof *st);
    int *taken = calloc((size_t)r->size, sizeof *taken);
    soak_plan(plan, r->size, seed, round);
    for (int i = 0; i < total; i++)
        if (plan[i].dst == r->rank) {
            r->rbuf[nrecv] = mt_malloc(SOAK_MAX_SIZE);
            MPI_Irecv(r->rbuf[nrecv], (int)SOAK_MAX_SIZE, MPI_BYTE, MPI_ANY_SOURCE,
                      MPI_ANY_TAG, MPI_COMM_WORLD, &req[nreq++]);
            nrecv++;
        }
    for (int k = 0; k < SOAK_PER_RANK; k++) {
        const soak_msg_t *m = &plan[r->rank * SOAK_PER_RANK + k];
        mt_fill(r->sbuf[k], m->size, m->seed);
        if (m->sync)
            MPI_Issend(r->sbuf[k], (int)m->size, MPI_BYTE, m->dst, m->tag, MPI_COMM_WORLD,
                       &req[nreq++]);
        else
            MPI_Isend(r->sbuf[k], (int)m->size, MPI_BYTE, m->dst, m->tag, MPI_COMM_WORLD,
                      &req[nreq++]);
    }
    CHECK(MPI_Waitall(nreq, req, st) == MPI_SUCCESS, "round %d: Waitall failed", round);
    for (int i = 0; i < nrecv; i++) {
        int src = st[i].MPI_SOURCE, seen = 0;
        CHECK(src >= 0 && src < r->size, "round %d: source %d", round, src);
        const soak_msg_t *m = NULL;
        for (int j = 0; j < total && m == NULL; j++)
            if (plan[j].src == src && plan[j].dst == r->rank && seen++ == taken[src])
                m = &plan[j];
        CHECK(m != NULL, "round %d: an extra message from %d", round, src);
        taken[src]++;
        soak_check(r, m, &st[i], i, round);
        free(r->rbuf[i]);
    }
    free(taken);
    free(st);
    free(req);
    /* A rank a round ahead would feed its messages to this round's
     * wildcard receives elsewhere. */
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    soak_rank_t r = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.size);
    const char *env = getenv("SOAK_ROUNDS");
    int rounds = argc > 1 ? atoi(argv[1]) : env ? atoi(env) : 150;
    unsigned seed = getenv("SOAK_SEED") ? (unsigned)strtoul(getenv("SOAK_SEED"), NULL, 0) : 2026;
    soak_msg_t *plan = mt_malloc((size_t)r.size * SOAK_PER_RANK * sizeof *plan);
    r.rbuf = mt_malloc((size_t)r.size * SOAK_PER_RANK * sizeof *r.rbuf);
    for (int k = 0; k < SOAK_PER_RANK; k++)
        r.sbuf[k] = mt_malloc(SOAK_MAX_SIZE);
    for (int round = 0; round < rounds; round++)
        soak_round(&r, plan, round, seed);
    long msgs = 0;
    double bytes = 0;
    MPI_Reduce(&r.msgs, &msgs, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&r.bytes, &bytes, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r.rank == 0)
        printf("soak: %d ranks, %d rounds (seed %u): %ld messages, %.0f bytes, every one "
               "checksummed: OK\n",
               r.size, rounds, seed, msgs, bytes);
    for (int k = 0; k < SOAK_PER_RANK; k++)
        free(r.sbuf[k]);
    free(r.rbuf);
    free(plan);
    MPI_Finalize();
    return 0;
}

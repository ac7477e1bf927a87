/* Matching order with wildcards.  Rank 0 receives; every other rank sends.
 *  - unexpected-first: senders' messages arrive before any receive is posted;
 *    ANY_SOURCE/ANY_TAG receives must see each sender's messages in send order.
 *  - posted-first: ANY_SOURCE/ANY_TAG receives are posted before anything is
 *    sent; completed in posting order, each sender's sequence must be ordered.
 *  - per (source, tag) non-overtaking with interleaved tags: receiving one
 *    tag first must still give that tag's messages in order, and a
 *    (source, ANY_TAG) receive takes the earliest remaining message. */
#include "mpitest.h"

#define WO_N 64

struct wo_msg {
    int src;
    int seq;
    int tag;
};

static void wo_check_msg(const struct wo_msg *m, const MPI_Status *st, const char *phase)
{
    CHECK(st->MPI_SOURCE == m->src, "%s: MPI_SOURCE %d but payload from %d", phase, st->MPI_SOURCE,
          m->src);
    CHECK(st->MPI_TAG == m->tag, "%s: MPI_TAG %d but payload says tag %d", phase, st->MPI_TAG,
          m->tag);
    CHECK(mt_status_count(st, MPI_INT) == 3, "%s: count %d", phase, mt_status_count(st, MPI_INT));
}

/* Senders Isend WO_N messages (tags vary), wait for the barrier, then wait. */
static void wo_send_all(int rank, int tagbase, int barrier_before_wait)
{
    struct wo_msg msg[WO_N];
    MPI_Request req[WO_N];
    for (int i = 0; i < WO_N; i++) {
        msg[i].src = rank;
        msg[i].seq = i;
        msg[i].tag = tagbase + (i % 3);
        MPI_Isend(&msg[i], 3, MPI_INT, 0, msg[i].tag, MPI_COMM_WORLD, &req[i]);
    }
    if (barrier_before_wait)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(WO_N, req, MPI_STATUSES_IGNORE);
}

static void wo_unexpected_first(int rank, int size)
{
    if (rank != 0) {
        wo_send_all(rank, 10, 1);
        return;
    }
    int next[64] = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < WO_N * (size - 1); k++) {
        struct wo_msg m;
        MPI_Status st;
        MPI_Recv(&m, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        wo_check_msg(&m, &st, "unexpected-first");
        CHECK(m.seq == next[m.src], "unexpected-first: from %d got seq %d, want %d", m.src, m.seq,
              next[m.src]);
        next[m.src]++;
    }
}

static void wo_posted_first(int rank, int size)
{
    if (rank != 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        wo_send_all(rank, 20, 0);
        return;
    }
    int n = WO_N * (size - 1);
    struct wo_msg *m = mt_malloc(sizeof *m * (size_t)n);
    MPI_Request *req = mt_malloc(sizeof *req * (size_t)n);
    MPI_Status *st = mt_malloc(sizeof *st * (size_t)n);
    int next[64] = {0};
    for (int k = 0; k < n; k++)
        MPI_Irecv(&m[k], 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[k]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(n, req, st);
    for (int k = 0; k < n; k++) {
        wo_check_msg(&m[k], &st[k], "posted-first");
        CHECK(m[k].seq == next[m[k].src], "posted-first: receive %d from %d has seq %d, want %d", k,
              m[k].src, m[k].seq, next[m[k].src]);
        next[m[k].src]++;
    }
    free(m);
    free(req);
    free(st);
}

/* Tags 30,31,32 interleave.  Receiver takes all tag-31 messages from each
 * source first, then uses (source, ANY_TAG) for the rest: that must return
 * the remaining messages in send order, and ANY_SOURCE with tag 32 before
 * that must return tag-32 messages only. */
static void wo_per_tag(int rank, int size)
{
    if (rank != 0) {
        wo_send_all(rank, 30, 1);
        return;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int s = 1; s < size; s++) {
        for (int i = 1; i < WO_N; i += 3) {
            struct wo_msg m;
            MPI_Status st;
            MPI_Recv(&m, 3, MPI_INT, s, 31, MPI_COMM_WORLD, &st);
            wo_check_msg(&m, &st, "per-tag 31");
            CHECK(m.src == s && m.seq == i, "tag 31 from %d: got (%d,%d), want seq %d", s, m.src,
                  m.seq, i);
        }
    }
    /* One ANY_SOURCE receive on tag 32 per sender, checked per source. */
    int next32[64];
    for (int s = 0; s < 64; s++)
        next32[s] = 2;
    for (int k = 0; k < size - 1; k++) {
        struct wo_msg m;
        MPI_Status st;
        MPI_Recv(&m, 3, MPI_INT, MPI_ANY_SOURCE, 32, MPI_COMM_WORLD, &st);
        wo_check_msg(&m, &st, "per-tag 32");
        CHECK(m.seq == next32[m.src], "tag 32 from %d: seq %d, want %d", m.src, m.seq,
              next32[m.src]);
        next32[m.src] += 3;
    }
    for (int s = 1; s < size; s++) {
        for (int i = 0; i < WO_N; i++) {
            if (i % 3 == 1 || (i % 3 == 2 && i < next32[s]))
                continue;
            struct wo_msg m;
            MPI_Status st;
            MPI_Recv(&m, 3, MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            wo_check_msg(&m, &st, "per-tag any");
            CHECK(m.src == s && m.seq == i, "ANY_TAG from %d: got seq %d, want %d", s, m.seq, i);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2 && size <= 64, "needs 2..64 ranks, got %d", size);
    for (int round = 0; round < 4; round++) {
        /* Barriers between phases: ANY_SOURCE receives of one phase could
         * otherwise legally match a fast sender's next-phase messages. */
        wo_unexpected_first(rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
        wo_posted_first(rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
        wo_per_tag(rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("wildcard_order: %d senders x %d messages, 3 scenarios x 4 rounds: OK\n", size - 1,
               WO_N);
    MPI_Finalize();
    return 0;
}

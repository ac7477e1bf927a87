/* Messages to oneself: every size from 0 B to 4 MiB (powers of two and one
 * byte either side) through Isend+Recv and Irecv+Send, then Sendrecv and
 * Sendrecv_replace with self, and Sendrecv_replace around a ring. */
#include "mpitest.h"

#define SM_MAX (4u << 20)

static void sm_check(const unsigned char *buf, size_t n, unsigned seed, const MPI_Status *st,
                     int src, int tag, const char *how)
{
    size_t bad = mt_verify(buf, n, seed);
    CHECK(bad == MT_OK, "%s: size %zu byte %zu wrong", how, n, bad);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag, "%s: status %d/%d, want %d/%d", how,
          st->MPI_SOURCE, st->MPI_TAG, src, tag);
    CHECK(mt_status_count(st, MPI_BYTE) == (int)n, "%s: count %d want %zu", how,
          mt_status_count(st, MPI_BYTE), n);
}

static void sm_one(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t n)
{
    MPI_Request req;
    MPI_Status st;
    unsigned seed = (unsigned)n + 3;
    mt_fill(sbuf, n, seed);
    memset(rbuf, 0, n);
    MPI_Isend(sbuf, (int)n, MPI_BYTE, rank, 1, MPI_COMM_WORLD, &req);
    MPI_Recv(rbuf, (int)n, MPI_BYTE, rank, 1, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    sm_check(rbuf, n, seed, &st, rank, 1, "Isend+Recv");
    memset(rbuf, 0, n);
    MPI_Irecv(rbuf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    MPI_Send(sbuf, (int)n, MPI_BYTE, rank, 2, MPI_COMM_WORLD);
    MPI_Wait(&req, &st);
    sm_check(rbuf, n, seed, &st, rank, 2, "Irecv+Send");
    memset(rbuf, 0, n);
    MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, rank, 3, rbuf, (int)n, MPI_BYTE, rank, 3, MPI_COMM_WORLD,
                 &st);
    sm_check(rbuf, n, seed, &st, rank, 3, "Sendrecv");
    memcpy(rbuf, sbuf, n);
    MPI_Sendrecv_replace(rbuf, (int)n, MPI_BYTE, rank, 4, rank, 4, MPI_COMM_WORLD, &st);
    sm_check(rbuf, n, seed, &st, rank, 4, "Sendrecv_replace");
}

static void sm_ring_replace(int rank, int size, unsigned char *buf)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    size_t sizes[] = {0, 5, 4096, 300000};
    for (int i = 0; i < 4; i++) {
        MPI_Status st;
        mt_fill(buf, sizes[i], (unsigned)(rank * 10 + i));
        MPI_Sendrecv_replace(buf, (int)sizes[i], MPI_BYTE, right, 7, left, 7, MPI_COMM_WORLD, &st);
        sm_check(buf, sizes[i], (unsigned)(left * 10 + i), &st, left, 7, "ring Sendrecv_replace");
    }
}

int main(int argc, char **argv)
{
    int rank, size, n = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *sbuf = mt_malloc(SM_MAX + 1), *rbuf = mt_malloc(SM_MAX + 1);
    sm_one(rank, sbuf, rbuf, 0);
    for (size_t p = 1; p <= SM_MAX; p <<= 1, n++) {
        sm_one(rank, sbuf, rbuf, p - 1);
        sm_one(rank, sbuf, rbuf, p);
        sm_one(rank, sbuf, rbuf, p + 1);
    }
    /* sm_one posts ANY_SOURCE/ANY_TAG receives meant for self messages: no
     * neighbour's ring message may be in flight while they are posted. */
    MPI_Barrier(MPI_COMM_WORLD);
    sm_ring_replace(rank, size, sbuf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("self_msgs: %d size groups up to %u bytes, ring replace on %d ranks: OK\n", n,
               SM_MAX, size);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}

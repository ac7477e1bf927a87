/* Every message size from 0 B to 16 MiB (powers of two and one byte either
 * side) goes 0 -> 1 and back with patterned bytes, across the eager and
 * rendezvous boundary, first with blocking Send/Recv, then with Irecv/Isend
 * posted before the peer sends.  Checks bytes, guard bytes past the end,
 * MPI_SOURCE, MPI_TAG and MPI_Get_count.  Ranks above 1 only take part in
 * the final barrier. */
#include "mpitest.h"

#define PP_MAX (16u << 20)
#define PP_GUARD 64u

static size_t pp_sizes[128];
static int pp_nsizes;

static void pp_add(size_t n)
{
    if (n > PP_MAX)
        return;
    for (int i = 0; i < pp_nsizes; i++)
        if (pp_sizes[i] == n)
            return;
    pp_sizes[pp_nsizes++] = n;
}

static void pp_build_sizes(void)
{
    pp_add(0);
    for (size_t p = 1; p <= PP_MAX; p <<= 1) {
        pp_add(p - 1);
        pp_add(p);
        pp_add(p + 1);
    }
}

static void pp_check_recv(const unsigned char *buf, size_t n, unsigned seed, const MPI_Status *st,
                          int src, int tag)
{
    size_t bad = mt_verify(buf, n, seed);
    CHECK(bad == MT_OK, "size %zu: byte %zu is 0x%02x, want 0x%02x", n, bad, buf[bad],
          mt_pattern_byte(bad, seed));
    for (size_t i = n; i < n + PP_GUARD; i++)
        CHECK(buf[i] == 0xA5, "size %zu: guard byte %zu overwritten (0x%02x)", n, i - n, buf[i]);
    CHECK(st->MPI_SOURCE == src, "size %zu: MPI_SOURCE %d, want %d", n, st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == tag, "size %zu: MPI_TAG %d, want %d", n, st->MPI_TAG, tag);
    int count = mt_status_count(st, MPI_BYTE);
    CHECK(count == (int)n, "size %zu: MPI_Get_count %d", n, count);
}

static void pp_blocking(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t n, int tag)
{
    int peer = 1 - rank;
    unsigned seed_out = (unsigned)(n * 2 + (size_t)rank + 1);
    unsigned seed_in = (unsigned)(n * 2 + (size_t)peer + 1);
    MPI_Status st;
    mt_fill(sbuf, n, seed_out);
    memset(rbuf, 0xA5, n + PP_GUARD);
    if (rank == 0) {
        MPI_Send(sbuf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
    } else {
        MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
        MPI_Send(sbuf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
    }
    pp_check_recv(rbuf, n, seed_in, &st, peer, tag);
}

/* Both sides post the receive first, then a zero-byte handshake makes sure
 * the peer's receive is posted before the data is sent. */
static void pp_nonblocking(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t n, int tag)
{
    int peer = 1 - rank;
    unsigned seed_out = (unsigned)(n * 3 + (size_t)rank + 7);
    unsigned seed_in = (unsigned)(n * 3 + (size_t)peer + 7);
    MPI_Request req[2];
    MPI_Status st[2];
    mt_fill(sbuf, n, seed_out);
    memset(rbuf, 0xA5, n + PP_GUARD);
    MPI_Irecv(rbuf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[0]);
    MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 1, NULL, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Isend(sbuf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, st);
    pp_check_recv(rbuf, n, seed_in, &st[0], peer, tag);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 ranks, got %d", size);
    pp_build_sizes();
    unsigned char *sbuf = mt_malloc(PP_MAX + PP_GUARD);
    unsigned char *rbuf = mt_malloc(PP_MAX + PP_GUARD);
    if (rank < 2) {
        for (int i = 0; i < pp_nsizes; i++)
            pp_blocking(rank, sbuf, rbuf, pp_sizes[i], 100 + i);
        for (int i = 0; i < pp_nsizes; i++)
            pp_nonblocking(rank, sbuf, rbuf, pp_sizes[i], 1000 + i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("pingpong_sizes: %d sizes, 0..%u bytes, blocking and nonblocking: OK\n", pp_nsizes,
               PP_MAX);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}

/* Point-to-point payloads at odd offsets from a page and odd lengths, so
 * that the copies into and out of the shared-memory cells and the queue of
 * unexpected messages meet every short distance modulo 4 KiB (and each of
 * the 64 cells of a pool) on both sides: lengths around the 2 KiB where
 * hc_copy_payload leaves hc_copy_small, the eager limit and a cell, and
 * rendezvous pieces.  Each message goes posted (Recv first), unexpected
 * (Isend, a barrier, then Recv) and in a stream of Isend/Irecv; every byte,
 * the guard bytes on either side of the receive buffer, MPI_SOURCE, MPI_TAG
 * and the count are checked, both ways.  Ranks above 1 only take part in the
 * barriers. */
#include "mpitest.h"

#define OF_GUARD 64u
#define OF_GUARD_BYTE 0xa5
#define OF_STREAM 8

static const size_t of_sizes[] = {2047, 2048, 2049, 4095, 8199, 16383, 16384,
                                  16389, 65539, 300001};
static const size_t of_offsets[] = {0, 1, 8, 16, 40, 63, 64, 72, 4000, 4095};
#define OF_NSIZES (sizeof of_sizes / sizeof of_sizes[0])
#define OF_NOFFSETS (sizeof of_offsets / sizeof of_offsets[0])
/* Room for the largest message at the largest offset with its guards, in
 * whole pages (aligned_alloc takes a multiple of the alignment). */
#define OF_SPAN ((300001u + 4096u + 2u * OF_GUARD + 4095u) / 4096u * 4096u)

/* The receive area of one message: guard bytes, then n bytes at off. */
static unsigned char *of_recv_at(unsigned char *area, size_t off)
{
    return area + OF_GUARD + off;
}

static void of_clear(unsigned char *area)
{
    memset(area, OF_GUARD_BYTE, OF_SPAN);
}

static void of_check(const unsigned char *area, size_t off, size_t n,
                     unsigned seed, const MPI_Status *st, int source, int tag,
                     const char *how)
{
    const unsigned char *got = area + OF_GUARD + off;
    size_t bad = mt_verify(got, n, seed);
    CHECK(bad == MT_OK, "%s: %zu bytes at offset %zu: byte %zu wrong", how, n,
          off, bad);
    for (size_t i = 1; i <= OF_GUARD; i++) {
        CHECK(got[-(ptrdiff_t)i] == OF_GUARD_BYTE,
              "%s: %zu bytes at offset %zu: guard %zu before written", how, n,
              off, i);
        CHECK(got[n + i - 1] == OF_GUARD_BYTE,
              "%s: %zu bytes at offset %zu: guard %zu past the end written",
              how, n, off, i - 1);
    }
    CHECK(st->MPI_SOURCE == source && st->MPI_TAG == tag,
          "%s: source %d tag %d, want %d %d", how, st->MPI_SOURCE, st->MPI_TAG,
          source, tag);
    CHECK(mt_status_count(st, MPI_BYTE) == (int)n, "%s: count %d, want %zu",
          how, mt_status_count(st, MPI_BYTE), n);
}

/* One message of n bytes from sender to receiver, sent from offset soff and
 * received at roff; unexpected: the receive is posted after a barrier. */
static void of_one(int rank, int sender, int receiver, unsigned char *send_area,
                   unsigned char *recv_area, size_t n, size_t soff,
                   size_t roff, unsigned seed, int unexpected)
{
    const int tag = (int)(seed & 0x7fff);
    MPI_Request req = MPI_REQUEST_NULL;
    if (rank == sender) {
        mt_fill(send_area + soff, n, seed);
        MPI_Isend(send_area + soff, (int)n, MPI_BYTE, receiver, tag,
                  MPI_COMM_WORLD, &req);
    }
    if (unexpected)
        MPI_Barrier(MPI_COMM_WORLD);
    if (rank == receiver) {
        MPI_Status st;
        of_clear(recv_area);
        MPI_Recv(of_recv_at(recv_area, roff), (int)n, MPI_BYTE, sender, tag,
                 MPI_COMM_WORLD, &st);
        of_check(recv_area, roff, n, seed, &st, sender, tag,
                 unexpected ? "unexpected" : "posted");
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (!unexpected)
        MPI_Barrier(MPI_COMM_WORLD);
}

/* OF_STREAM messages of n bytes in a row, each from and to its own offset
 * (the offsets taken in turn from first), so they fill successive cells. */
static void of_stream(int rank, int sender, int receiver,
                      unsigned char *send_area, unsigned char **recv_areas,
                      size_t n, size_t first, unsigned seed)
{
    MPI_Request reqs[OF_STREAM];
    size_t offs[OF_STREAM];
    for (int k = 0; k < OF_STREAM; k++)
        offs[k] = of_offsets[(first + (size_t)k) % OF_NOFFSETS];
    if (rank == receiver) {
        for (int k = 0; k < OF_STREAM; k++) {
            of_clear(recv_areas[k]);
            MPI_Irecv(of_recv_at(recv_areas[k], offs[k]), (int)n, MPI_BYTE,
                      sender, k, MPI_COMM_WORLD, &reqs[k]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == sender) {
        /* Each message from its own part of the area: all are in flight at
         * once. */
        for (int k = 0; k < OF_STREAM; k++) {
            unsigned char *at = send_area + (size_t)k * OF_SPAN + offs[k];
            mt_fill(at, n, seed + (unsigned)k);
            MPI_Isend(at, (int)n, MPI_BYTE, receiver, k, MPI_COMM_WORLD,
                      &reqs[k]);
        }
    }
    if (rank == sender || rank == receiver) {
        MPI_Status sts[OF_STREAM];
        MPI_Waitall(OF_STREAM, reqs, sts);
        for (int k = 0; rank == receiver && k < OF_STREAM; k++)
            of_check(recv_areas[k], offs[k], n, seed + (unsigned)k, &sts[k],
                     sender, k, "stream");
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    /* Page-aligned areas, so the offsets are offsets from a page. */
    unsigned char *send_area = aligned_alloc(4096, (size_t)OF_STREAM * OF_SPAN);
    unsigned char *recv_areas[OF_STREAM];
    for (int k = 0; k < OF_STREAM; k++)
        recv_areas[k] = aligned_alloc(4096, OF_SPAN);
    MPI_Init(&argc, &argv);
    int rank = mt_world_rank(), ranks = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    CHECK(ranks >= 2, "needs 2 ranks, got %d", ranks);
    CHECK(send_area != NULL, "no memory");
    for (int k = 0; k < OF_STREAM; k++)
        CHECK(recv_areas[k] != NULL, "no memory");
    unsigned seed = 1;
    for (int way = 0; way < 2; way++) {
        int sender = way, receiver = 1 - way;
        for (size_t si = 0; si < OF_NSIZES; si++) {
            size_t n = of_sizes[si];
            for (size_t so = 0; so < OF_NOFFSETS; so++) {
                /* Every receive offset against this send offset, posted and
                 * unexpected, where the area allows both. */
                for (size_t ro = 0; ro < OF_NOFFSETS; ro++) {
                    for (int unexpected = 0; unexpected < 2; unexpected++)
                        of_one(rank, sender, receiver, send_area,
                               recv_areas[0], n, of_offsets[so],
                               of_offsets[ro], seed++, unexpected);
                }
                of_stream(rank, sender, receiver, send_area, recv_areas, n,
                          so, seed);
                seed += OF_STREAM;
            }
        }
    }
    for (int k = 0; k < OF_STREAM; k++)
        free(recv_areas[k]);
    free(send_area);
    if (rank == 0)
        printf("pt2pt_offsets: %zu sizes x %zu x %zu offsets, posted, unexpected and streamed, both ways: ok\n",
               OF_NSIZES, OF_NOFFSETS, OF_NOFFSETS);
    MPI_Finalize();
    return 0;
}

/* The shm transport's placement verdict (HCMPI_SHM_PLACEMENT, or the
 * start-up ping-pong) decides whether rendezvous below HCMPI_SHM_CMA_MIN
 * stream through the cells or are read with CMA; either way every byte
 * arrives.  Run on 2 ranks under the amd profile (CMA from 4 MiB, far
 * pairs from 16 KiB) with the pair never judged contended.  argv[1] names
 * what the script set, argv[2] HCMPI_SHM_FAR_READ_MIN in bytes:
 *   far   every rendezvous of at least argv[2] bytes is read with CMA
 *         (rndv_get counts them), the others stream (rndv_pipelined);
 *   near  every one below 4 MiB streams through the cells;
 *   auto  the ping-pong's verdict, whichever: bytes only.
 * Rank 0 sends, rank 1 receives: lone ping-pong turns of 16385 B, 64 KiB
 * and 1 MiB, then a window of 8 MPI_Isend of 256 KiB; each message's bytes
 * (its own pattern), source, tag and count are checked, and rank 1's
 * counters say how the rendezvous were carried. */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_DATA = 7, TAG_TURN = 8, WINDOW = 8 };
static const int lone_sizes[] = {16385, 65536, 1 << 20};
static const char *const counter_names[3] = {"rndv_received_messages",
                                             "rndv_get_messages",
                                             "rndv_pipelined_messages"};

static void check_message(const unsigned char *buf, int size, unsigned seed,
                          const MPI_Status *st)
{
    CHECK(st->MPI_SOURCE == 0 && st->MPI_TAG == TAG_DATA,
          "%d bytes: source %d tag %d", size, st->MPI_SOURCE, st->MPI_TAG);
    CHECK(mt_status_count(st, MPI_BYTE) == size, "%d bytes: count %d", size,
          mt_status_count(st, MPI_BYTE));
    size_t bad = mt_verify(buf, (size_t)size, seed);
    CHECK(bad == (size_t)-1, "%d bytes (seed %u): byte %zu differs", size,
          seed, bad);
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    const char *mode = argc > 1 ? argv[1] : "auto";
    long far_min = argc > 2 ? atol(argv[2]) : 0;
    int far = strcmp(mode, "far") == 0;
    unsigned long long want_read = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks, not %d", size);
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS,
          "T_init");
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handles[3];
    mt_counters_open(&session, 3, counter_names, handles);
    size_t big = (size_t)1 << 20;
    unsigned char *buf = malloc(big * WINDOW / 4 > big ? big * WINDOW / 4 : big);
    CHECK(buf != NULL, "malloc");
    unsigned long long before[3];
    for (int c = 0; c < 3; c++)
        before[c] = mt_counters_sum(session, 1, &handles[c]);
    unsigned seed = 1;
    int messages = 0;
    for (size_t i = 0; i < sizeof lone_sizes / sizeof lone_sizes[0]; i++) {
        int n = lone_sizes[i];
        want_read += far && n >= far_min ? 3 : 0;
        for (int turn = 0; turn < 3; turn++, seed++, messages++) {
            MPI_Status st;
            if (rank == 0) {
                mt_fill(buf, (size_t)n, seed);
                MPI_Send(buf, n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
                MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_TURN, MPI_COMM_WORLD, &st);
            } else {
                memset(buf, 0, (size_t)n);
                MPI_Recv(buf, n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &st);
                check_message(buf, n, seed, &st);
                MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_TURN, MPI_COMM_WORLD);
            }
        }
    }
    int piece = 256 << 10;
    MPI_Request reqs[WINDOW];
    MPI_Status sts[WINDOW];
    for (int w = 0; w < WINDOW; w++) {
        unsigned char *slot = buf + (size_t)w * (size_t)piece;
        if (rank == 0) {
            mt_fill(slot, (size_t)piece, seed + (unsigned)w);
            MPI_Isend(slot, piece, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &reqs[w]);
        } else {
            memset(slot, 0, (size_t)piece);
            MPI_Irecv(slot, piece, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &reqs[w]);
        }
    }
    CHECK(MPI_Waitall(WINDOW, reqs, sts) == MPI_SUCCESS, "waitall");
    if (rank == 1)
        for (int w = 0; w < WINDOW; w++)
            check_message(buf + (size_t)w * (size_t)piece, piece,
                          seed + (unsigned)w, &sts[w]);
    messages += WINDOW;
    want_read += far && piece >= far_min ? WINDOW : 0;
    if (rank == 1) {
        unsigned long long got[3];
        for (int c = 0; c < 3; c++)
            got[c] = mt_counters_sum(session, 1, &handles[c]) - before[c];
        CHECK(got[0] == (unsigned long long)messages,
              "%s: %llu of %d messages by rendezvous", mode, got[0], messages);
        if (strcmp(mode, "auto") != 0)
            CHECK(got[1] == want_read && got[1] + got[2] == got[0],
                  "%s from %ld B: %llu read, %llu streamed of %llu, want %llu read",
                  mode, far_min, got[1], got[2], got[0], want_read);
        printf("%s: %llu rendezvous, %llu read with CMA, %llu streamed\n", mode,
               got[0], got[1], got[2]);
    }
    free(buf);
    mt_counters_finalize(&session); /* MPI_Finalize too */
    return 0;
}

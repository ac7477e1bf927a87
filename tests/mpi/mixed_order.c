/* Non-overtaking across message sizes: rank 0 sends rank 1 a stream whose
 * sizes straddle every small-message limit (shm's fast box, its ring
 * slots, pool cells, the eager limit: 0 B to 70 KB, same tag), in bursts
 * of nonblocking sends and in blocking sends.  Rank 1 takes them with
 * receives posted before the burst (specific source and tag, ANY_SOURCE,
 * ANY_TAG) or after it arrived (unexpected), and checks that the i-th
 * receive got the i-th message: its size, source, tag and every byte. */
#include "mpitest.h"

#define MO_TAG 11
#define MO_BURST 32
#define MO_ROUNDS 40
#define MO_MAX 70000

/* 96/97 and 1120/1121: the last payload that fits shm's fast box with a
 * short header before and after it grew to 18 lines, and one past it. */
static const int mo_sizes[] = {8,   0,  96,   97,   8,    240, 241,
                               64,  4000, 1,  112,  1120, 8,   70000,
                               8,   16, 1121, 200,  1024, 96,  33};
#define MO_NSIZES ((int)(sizeof mo_sizes / sizeof mo_sizes[0]))

static unsigned char mo_byte(int seq, int i) { return (unsigned char)(seq * 31 + i * 7 + 3); }

static void mo_fill(unsigned char *buf, int seq, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = mo_byte(seq, i);
}

static void mo_check(const unsigned char *buf, int seq, const MPI_Status *st)
{
    int want = mo_sizes[seq % MO_NSIZES];
    CHECK(st->MPI_SOURCE == 0 && st->MPI_TAG == MO_TAG, "message %d: source %d tag %d", seq,
          st->MPI_SOURCE, st->MPI_TAG);
    int got = mt_status_count(st, MPI_BYTE);
    CHECK(got == want, "message %d: %d bytes, sent %d (overtaken?)", seq, got, want);
    for (int i = 0; i < want; i++)
        CHECK(buf[i] == mo_byte(seq, i), "message %d: byte %d is %d", seq, i, buf[i]);
}

static void mo_send_round(unsigned char **bufs, int first)
{
    MPI_Request reqs[MO_BURST];
    /* The first half nonblocking (a burst the receiver may not keep up
     * with), the rest blocking. */
    for (int k = 0; k < MO_BURST / 2; k++) {
        int seq = first + k;
        mo_fill(bufs[k], seq, mo_sizes[seq % MO_NSIZES]);
        MPI_Isend(bufs[k], mo_sizes[seq % MO_NSIZES], MPI_BYTE, 1, MO_TAG, MPI_COMM_WORLD,
                  &reqs[k]);
    }
    for (int k = MO_BURST / 2; k < MO_BURST; k++) {
        int seq = first + k;
        mo_fill(bufs[k], seq, mo_sizes[seq % MO_NSIZES]);
        MPI_Send(bufs[k], mo_sizes[seq % MO_NSIZES], MPI_BYTE, 1, MO_TAG, MPI_COMM_WORLD);
    }
    MPI_Waitall(MO_BURST / 2, reqs, MPI_STATUSES_IGNORE);
}

/* Round r: posted first (r even: named source and tag, or wildcards every
 * fourth round) or taken as unexpected messages after a pause (r odd). */
static void mo_recv_round(unsigned char **bufs, int first, int r)
{
    MPI_Request reqs[MO_BURST];
    MPI_Status st[MO_BURST];
    int src = (r % 4 == 2) ? MPI_ANY_SOURCE : 0;
    int tag = (r % 4 == 2) ? MPI_ANY_TAG : MO_TAG;
    if (r % 2 == 0) {
        for (int k = 0; k < MO_BURST; k++)
            MPI_Irecv(bufs[k], MO_MAX, MPI_BYTE, src, tag, MPI_COMM_WORLD, &reqs[k]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(MO_BURST, reqs, st);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        int flag = 0;
        while (!flag) /* the whole burst's first message is in */
            MPI_Iprobe(0, MO_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        for (int k = 0; k < MO_BURST; k++)
            MPI_Recv(bufs[k], MO_MAX, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st[k]);
    }
    for (int k = 0; k < MO_BURST; k++)
        mo_check(bufs[k], first + k, &st[k]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks, got %d", size);
    unsigned char *bufs[MO_BURST];
    for (int k = 0; k < MO_BURST; k++) {
        bufs[k] = malloc(MO_MAX);
        CHECK(bufs[k] != NULL, "out of memory");
    }
    for (int r = 0; r < MO_ROUNDS; r++) {
        if (rank == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            mo_send_round(bufs, r * MO_BURST);
        } else if (rank == 1) {
            mo_recv_round(bufs, r * MO_BURST, r);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    for (int k = 0; k < MO_BURST; k++)
        free(bufs[k]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mixed_order: %d messages of %d sizes, 0..%d B, in order\n",
               MO_ROUNDS * MO_BURST, MO_NSIZES, MO_MAX);
    MPI_Finalize();
    return 0;
}

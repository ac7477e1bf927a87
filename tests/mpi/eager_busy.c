/* Messages between ranks of a node above the processor profile's eager
 * limit (intel: 4 KiB) that still go eager while the pair is busy (the shm
 * transport's eager_max_now), on 2 ranks with 16 KiB cells (16320 payload
 * bytes after the 64-byte header).  argv[1] names how the script set the
 * pair up:
 *   read    HCMPI_SHM_CMA_MIN=0, or the profile's HCMPI_SHM_LONE_READ_MIN
 *           (4 KiB) with the pair never contended: a lone rendezvous is
 *           read with CMA, so a lone message above 4 KiB is a rendezvous;
 *   stream  HCMPI_SHM_STREAM_RUNQ_MAX=100 and HCMPI_SHM_LONE_READ_MIN=32k:
 *           the pair never counts as contended and would stream even a
 *           lone rendezvous below 32 KiB through its cells, so every
 *           lone message up to a cell goes eager.
 * Part 1, lone messages (one at a time, each after a go-ahead): 4096, 4097,
 * 8192, 8193, 12288, 16320 and 16321 bytes, each received from
 * MPI_ANY_SOURCE, after MPI_Probe (its count), and into a buffer one byte short
 * (MPI_ERR_TRUNCATE); rank 1's MPI_T counters say which protocol carried
 * each.  Part 2, a stream, after a go-ahead: rank 0 starts a 20000-byte
 * send (a rendezvous: more than a cell) and, behind it while it is
 * unfinished, mid-size sends mixed with 8-byte ones and a synchronous one,
 * before rank 1 posts any receive; rank 1 then takes them in order (one
 * into a vector type, one after MPI_Mprobe) with contents checked, and its
 * counters say every message but the 20000-byte ones came eager.  Part 3,
 * windows: twice, rank 0 sends WINDOW messages of 8192 bytes (MPI_Isend,
 * a millisecond apart, so rank 1 may drain the ring between them) and a
 * zero-byte DONE while rank 1 waits for DONE without answering; rank 1
 * then receives them, checks their bytes and answers.  Rank 0's peer did not answer between those
 * sends, so they are a stream: the second window came eager whole (the
 * first window's first message may follow answers, a ping-pong's turn). */
#include "mpitest.h"

#include <unistd.h>

enum { TAG_GO = 1, TAG_DATA = 2, TAG_DONE = 3 };
enum { ROOM = 16320, BIG = 20000 };
static const char *const counter_names[2] = {"eager_received_messages",
                                             "rndv_received_messages"};
static MPI_T_pvar_session session;
static MPI_T_pvar_handle handles[2];
static int stream_mode; /* argv[1] is "stream" */

/* Whether a lone message of size bytes goes eager under this set-up. */
static int lone_eager(int size)
{
    return size <= 4096 || (stream_mode && size <= ROOM);
}

/* Rank 1: one lone message of size bytes, received the way named by way. */
static void receive_lone(int size, int way, unsigned char *buf)
{
    unsigned long long eager = mt_counters_sum(session, 1, &handles[0]);
    unsigned long long rndv = mt_counters_sum(session, 1, &handles[1]);
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
    mt_recv_way(size, way, TAG_DATA, buf);
    eager = mt_counters_sum(session, 1, &handles[0]) - eager;
    rndv = mt_counters_sum(session, 1, &handles[1]) - rndv;
    unsigned long long want_eager = (unsigned long long)lone_eager(size);
    CHECK(eager == want_eager && rndv == !want_eager,
          "lone %d bytes (%s): eager +%llu, rendezvous +%llu", size,
          stream_mode ? "stream" : "read", eager, rndv);
}

static void part_lone(int rank, unsigned char *buf)
{
    static const int sizes[] = {4096, 4097, 8192, 8193, 12288, ROOM, ROOM + 1};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int way = 0; way < MT_WAYS; way++) {
            if (rank == 1) {
                receive_lone(sizes[s], way, buf);
                continue;
            }
            mt_fill(buf, (size_t)sizes[s], (unsigned)sizes[s]);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(MPI_Send(buf, sizes[s], MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD) ==
                      MPI_SUCCESS,
                  "send %d", sizes[s]);
        }
    }
}

/* The stream, in sending order; SYNC marks the synchronous send. */
static const int stream_sizes[] = {BIG, 8193, 8, 12288, ROOM, 8, 9000, BIG, 16000, 8193};
enum { NSTREAM = sizeof stream_sizes / sizeof stream_sizes[0], SYNC = 3, VECTOR = 4,
       MPROBED = 6 };

/* Message i's seed: differs per message, so one in the wrong place shows. */
static unsigned stream_seed(int i)
{
    return 1000u + (unsigned)i;
}

static void send_stream(void)
{
    /* Rank 1's counters count a message when it arrives, in any progress
     * pass: the stream waits until rank 1 has read them after the last lone
     * message, or a pass still under way there counts part of the stream. */
    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    unsigned char *bufs[NSTREAM];
    MPI_Request reqs[NSTREAM];
    for (int i = 0; i < NSTREAM; i++) {
        bufs[i] = mt_malloc((size_t)stream_sizes[i]);
        mt_fill(bufs[i], (size_t)stream_sizes[i], stream_seed(i));
        int rc = i == SYNC ? MPI_Issend(bufs[i], stream_sizes[i], MPI_BYTE, 1, TAG_DATA,
                                        MPI_COMM_WORLD, &reqs[i])
                           : MPI_Isend(bufs[i], stream_sizes[i], MPI_BYTE, 1, TAG_DATA,
                                       MPI_COMM_WORLD, &reqs[i]);
        CHECK(rc == MPI_SUCCESS, "isend %d", i);
    }
    /* Rank 1 posts no receive before this: the first send stays unfinished
     * while the others leave. */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Waitall(NSTREAM, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall");
    for (int i = 0; i < NSTREAM; i++)
        free(bufs[i]);
}

/* Message VECTOR (ROOM bytes) into a vector type: 4080-byte blocks every
 * 8000 bytes; the gaps stay as they were. */
static void receive_vector(int i)
{
    enum { BLOCK = ROOM / 4, STRIDE = 8000 };
    MPI_Datatype vec;
    MPI_Type_vector(4, BLOCK, STRIDE, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    size_t span = 3 * (size_t)STRIDE + BLOCK;
    unsigned char *spread = mt_malloc(span);
    unsigned char *packed = mt_malloc(ROOM);
    memset(spread, 0xa5, span);
    MPI_Status st;
    CHECK(MPI_Recv(spread, 1, vec, 0, TAG_DATA, MPI_COMM_WORLD, &st) == MPI_SUCCESS,
          "recv into vector");
    CHECK(mt_status_count(&st, MPI_BYTE) == ROOM, "vector count %d",
          mt_status_count(&st, MPI_BYTE));
    for (int b = 0; b < 4; b++)
        memcpy(packed + (size_t)b * BLOCK, spread + (size_t)b * STRIDE, BLOCK);
    size_t bad = mt_verify(packed, ROOM, stream_seed(i));
    CHECK(bad == MT_OK, "vector message: byte %zu differs", bad);
    for (int b = 0; b < 3; b++)
        for (size_t k = (size_t)b * STRIDE + BLOCK; k < (size_t)(b + 1) * STRIDE; k++)
            CHECK(spread[k] == 0xa5, "vector gap byte %zu written", k);
    free(spread);
    free(packed);
    MPI_Type_free(&vec);
}

static void receive_stream(void)
{
    unsigned long long eager = mt_counters_sum(session, 1, &handles[0]);
    unsigned long long rndv = mt_counters_sum(session, 1, &handles[1]);
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char *buf = mt_malloc(BIG);
    for (int i = 0; i < NSTREAM; i++) {
        MPI_Status st;
        if (i == VECTOR) {
            receive_vector(i);
            continue;
        }
        if (i == MPROBED) {
            MPI_Message msg;
            CHECK(MPI_Mprobe(MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &msg, &st) ==
                      MPI_SUCCESS,
                  "mprobe");
            CHECK(mt_status_count(&st, MPI_BYTE) == stream_sizes[i], "mprobe count %d of %d",
                  mt_status_count(&st, MPI_BYTE), stream_sizes[i]);
            CHECK(MPI_Mrecv(buf, BIG, MPI_BYTE, &msg, &st) == MPI_SUCCESS, "mrecv");
        } else {
            CHECK(MPI_Recv(buf, BIG, MPI_BYTE, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD,
                           &st) == MPI_SUCCESS,
                  "recv %d", i);
        }
        CHECK(mt_status_count(&st, MPI_BYTE) == stream_sizes[i] && st.MPI_SOURCE == 0,
              "stream message %d: count %d of %d, source %d", i,
              mt_status_count(&st, MPI_BYTE), stream_sizes[i], st.MPI_SOURCE);
        size_t bad = mt_verify(buf, (size_t)stream_sizes[i], stream_seed(i));
        CHECK(bad == MT_OK, "stream message %d (%d bytes): byte %zu differs", i,
              stream_sizes[i], bad);
    }
    free(buf);
    unsigned long long big = 0;
    for (int i = 0; i < NSTREAM; i++)
        big += stream_sizes[i] > ROOM;
    eager = mt_counters_sum(session, 1, &handles[0]) - eager;
    rndv = mt_counters_sum(session, 1, &handles[1]) - rndv;
    CHECK(eager == NSTREAM - big && rndv == big,
          "stream of %d: eager %llu, rendezvous %llu (want %llu, %llu)", NSTREAM, eager, rndv,
          NSTREAM - big, big);
}

enum { WINDOW = 8, WINDOW_BYTES = 8192 };

/* One window of part 3; rank 1 returns how many of it came eager. */
static unsigned long long window_once(int rank, unsigned char *buf)
{
    if (rank == 0) {
        MPI_Request reqs[WINDOW];
        mt_fill(buf, WINDOW_BYTES, 77u);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int w = 0; w < WINDOW; w++) {
            CHECK(MPI_Isend(buf, WINDOW_BYTES, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                            &reqs[w]) == MPI_SUCCESS,
                  "window isend %d", w);
            usleep(1000);
        }
        MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_DONE, MPI_COMM_WORLD);
        CHECK(MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "window waitall");
        return 0;
    }
    unsigned long long eager = mt_counters_sum(session, 1, &handles[0]);
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int w = 0; w < WINDOW; w++) {
        CHECK(MPI_Recv(buf, WINDOW_BYTES, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS,
              "window recv %d", w);
        size_t bad = mt_verify(buf, WINDOW_BYTES, 77u);
        CHECK(bad == MT_OK, "window message %d: byte %zu differs", w, bad);
    }
    /* DONE came eager too. */
    return mt_counters_sum(session, 1, &handles[0]) - eager - 1;
}

static void part_windows(int rank, unsigned char *buf)
{
    (void)window_once(rank, buf);
    unsigned long long eager = window_once(rank, buf);
    CHECK(rank == 0 || eager == WINDOW, "second window: %llu of %d eager", eager, WINDOW);
}

int main(int argc, char **argv)
{
    int provided, rank, nranks;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "T_init_thread");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    CHECK(nranks == 2 && argc == 2 &&
              (strcmp(argv[1], "read") == 0 || strcmp(argv[1], "stream") == 0),
          "run on 2 ranks with read or stream");
    stream_mode = strcmp(argv[1], "stream") == 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *buf = mt_malloc(ROOM + 1);
    mt_counters_open(&session, 2, counter_names, handles);
    part_lone(rank, buf);
    if (rank == 0)
        send_stream();
    else
        receive_stream();
    part_windows(rank, buf);
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    mt_counters_finalize(&session);
    if (rank == 0)
        printf("PASS: eager_busy %s\n", argv[1]);
    return 0;
}

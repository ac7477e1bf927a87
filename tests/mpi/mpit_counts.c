/* MPI_T performance variables move by exactly what was sent, on 2 ranks,
 * over the transport the environment picks (HCMPI_TRANSPORTS=tcp: tcp,
 * HCMPI_TRANSPORTS=verbs: verbs, else shm):
 *   A. N eager messages of M bytes from rank 0 to rank 1, receives posted
 *      first: the posted queue holds N; rank 0's eager and per-transport
 *      send counts rise by N messages and N*M bytes, rank 1's receive
 *      counts by the same, no unexpected message, no rendezvous;
 *   B. large messages go rendezvous: sent, received, and pulled by a get or
 *      a pipelined stream, N messages and N*M bytes each;
 *   C. the eager-limit control variable written at run time below M: the
 *      same M-byte messages now go rendezvous (and the limit reads back);
 *   D. a message that arrives before its receive: the unexpected count, the
 *      queue length and its high-water mark, and the unexpected_message
 *      event with the sender, tag and size; a registration whose only
 *      callback is not safe where the event fires drops it and its dropped
 *      handler hears the count.
 * Each phase's window on rank 1 holds exactly its messages: rank 0 sends
 * only after rank 1's "go", which rank 1 sends after its first reading, and
 * rank 1 sends the next "go" after its last reading.  Rank 0's receive
 * counts are not checked (the next "go" may land in its window). */
#include "mpitest.h"

enum { TAG_GO = 1, TAG_DATA = 2, TAG_LATE = 77 };
enum { NEAGER = 10, MEAGER = 2048, NRNDV = 4, MRNDV = 100000, MLATE = 300 };

/* The counters this test reads, each through its own handle. */
enum {
    EAGER_SENT_M, EAGER_SENT_B, RNDV_SENT_M, RNDV_SENT_B,
    EAGER_RECV_M, EAGER_RECV_B, RNDV_RECV_M, RNDV_RECV_B,
    GET_M, GET_B, PIPE_M, PIPE_B, T_SENT_M, T_SENT_B, T_RECV_M, T_RECV_B,
    UNEXPECTED, UNEXP_LEN, UNEXP_HWM, POSTED_LEN, NCOUNTERS
};
static const char *counter_names[NCOUNTERS] = {
    "eager_sent_messages", "eager_sent_bytes", "rndv_sent_messages", "rndv_sent_bytes",
    "eager_received_messages", "eager_received_bytes", "rndv_received_messages",
    "rndv_received_bytes", "rndv_get_messages", "rndv_get_bytes",
    "rndv_pipelined_messages", "rndv_pipelined_bytes", NULL, NULL, NULL, NULL,
    "unexpected_messages", "unexpected_queue_length", "unexpected_queue_hwm",
    "posted_queue_length"};

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handles[NCOUNTERS];
typedef unsigned long long counts_t[NCOUNTERS];

/* The index of the performance variable called name (any class). */
static int pvar_index(const char *name)
{
    int n = 0;
    MPI_T_pvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char got[128];
        int len = sizeof got, verb, cls, bind, ro, cont, atomic;
        MPI_Datatype type;
        MPI_T_enum e;
        CHECK(MPI_T_pvar_get_info(i, got, &len, &verb, &cls, &type, &e, NULL, NULL, &bind,
                                  &ro, &cont, &atomic) == MPI_SUCCESS, "pvar_get_info %d", i);
        if (strcmp(got, name) == 0) {
            CHECK(type == MPI_UNSIGNED_LONG_LONG, "%s is not unsigned long long", name);
            int again = -1;
            CHECK(MPI_T_pvar_get_index(name, cls, &again) == MPI_SUCCESS && again == i,
                  "pvar_get_index(%s) gave %d, not %d", name, again, i);
            return i;
        }
    }
    CHECK(0, "no performance variable %s", name);
}

static void open_counters(const char *transport)
{
    static char names[4][64];
    const char *what[4] = {"sent_messages", "sent_bytes", "received_messages",
                           "received_bytes"};
    for (int i = 0; i < 4; i++) {
        snprintf(names[i], sizeof names[i], "%s_%s", transport, what[i]);
        counter_names[T_SENT_M + i] = names[i];
    }
    CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "session_create");
    for (int c = 0; c < NCOUNTERS; c++) {
        int count = 0;
        int rc = MPI_T_pvar_handle_alloc(session, pvar_index(counter_names[c]), NULL,
                                         &handles[c], &count);
        CHECK(rc == MPI_SUCCESS && count == 1, "handle_alloc %s: %d", counter_names[c], rc);
    }
    /* Starts the non-continuous ones; the others are always counting. */
    CHECK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start all");
}

static void read_counters(counts_t out)
{
    for (int c = 0; c < NCOUNTERS; c++)
        CHECK(MPI_T_pvar_read(session, handles[c], &out[c]) == MPI_SUCCESS, "read %s",
              counter_names[c]);
}

/* Counter c moved by exactly want. */
static void expect_delta(const char *phase, const counts_t before, const counts_t after,
                         int c, unsigned long long want)
{
    CHECK(after[c] - before[c] == want, "%s: %s moved by %llu, want %llu", phase,
          counter_names[c], after[c] - before[c], want);
}

/* One direction's counts: n messages of total bytes, all eager or all
 * rendezvous, through the transport. */
static void expect_flows(const char *phase, const counts_t before, const counts_t after,
                         int received, int n, unsigned long long total, int rndv)
{
    int eager_m = received ? EAGER_RECV_M : EAGER_SENT_M;
    int rndv_m = received ? RNDV_RECV_M : RNDV_SENT_M;
    int t_m = received ? T_RECV_M : T_SENT_M;
    int used = rndv ? rndv_m : eager_m, unused = rndv ? eager_m : rndv_m;
    expect_delta(phase, before, after, used, (unsigned)n);
    expect_delta(phase, before, after, used + 1, total); /* its _bytes */
    expect_delta(phase, before, after, unused, 0);
    expect_delta(phase, before, after, t_m, (unsigned)n);
    expect_delta(phase, before, after, t_m + 1, total);
}

static void fill_and_send(int n, int bytes, int seed_base)
{
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)n);
    unsigned char **bufs = malloc(sizeof *bufs * (size_t)n);
    for (int i = 0; i < n; i++) {
        bufs[i] = malloc((size_t)bytes);
        mt_fill(bufs[i], (size_t)bytes, (unsigned)(seed_base + i));
        MPI_Isend(bufs[i], bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &reqs[i]);
    }
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; i++)
        free(bufs[i]);
    free(bufs);
    free(reqs);
}

/* Rank 0's side of a phase: wait for "go", send, check the send counts. */
static void sender_phase(const char *phase, int n, int bytes, int seed_base, int rndv)
{
    counts_t before, after;
    read_counters(before);
    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fill_and_send(n, bytes, seed_base);
    read_counters(after);
    expect_flows(phase, before, after, 0, n, (unsigned long long)n * (unsigned)bytes, rndv);
}

/* Rank 1's side: post the receives, say go, wait, check every byte and the
 * receive counts. */
static void receiver_phase(const char *phase, int n, int bytes, int seed_base, int rndv)
{
    counts_t before, after;
    unsigned char **bufs = malloc(sizeof *bufs * (size_t)n);
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)n);
    read_counters(before);
    for (int i = 0; i < n; i++) {
        bufs[i] = malloc((size_t)bytes);
        MPI_Irecv(bufs[i], bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &reqs[i]);
    }
    counts_t posted;
    read_counters(posted);
    CHECK(posted[POSTED_LEN] == before[POSTED_LEN] + (unsigned)n,
          "%s: posted queue %llu after %d receives, was %llu", phase, posted[POSTED_LEN], n,
          before[POSTED_LEN]);
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    read_counters(after);
    for (int i = 0; i < n; i++) {
        size_t bad = mt_verify(bufs[i], (size_t)bytes, (unsigned)(seed_base + i));
        CHECK(bad == MT_OK, "%s: message %d differs at byte %zu", phase, i, bad);
        free(bufs[i]);
    }
    free(bufs);
    free(reqs);
    unsigned long long total = (unsigned long long)n * (unsigned long long)bytes;
    expect_flows(phase, before, after, 1, n, total, rndv);
    expect_delta(phase, before, after, UNEXPECTED, 0);
    /* The go message: the only thing this rank sent in the window. */
    expect_delta(phase, before, after, T_SENT_M, 1);
    expect_delta(phase, before, after, T_SENT_B, 0);
    CHECK(after[POSTED_LEN] == before[POSTED_LEN], "%s: posted queue %llu at the end", phase,
          after[POSTED_LEN]);
    unsigned long long pulled_m = (after[GET_M] - before[GET_M]) + (after[PIPE_M] - before[PIPE_M]);
    unsigned long long pulled_b = (after[GET_B] - before[GET_B]) + (after[PIPE_B] - before[PIPE_B]);
    CHECK(pulled_m == (rndv ? (unsigned)n : 0) && pulled_b == (rndv ? total : 0),
          "%s: rendezvous pulls %llu messages %llu bytes", phase, pulled_m, pulled_b);
}

/* ---- phase C: the eager limit as a control variable ---------------------- */

static unsigned long long eager_limit(MPI_T_cvar_handle h)
{
    unsigned long long v = 0;
    CHECK(MPI_T_cvar_read(h, &v) == MPI_SUCCESS, "cvar_read eager limit");
    return v;
}

static MPI_T_cvar_handle eager_limit_handle(void)
{
    int index = -1, count = 0, verb, bind, scope;
    MPI_Datatype type;
    MPI_T_enum e;
    MPI_T_cvar_handle h;
    CHECK(MPI_T_cvar_get_index("HCMPI_EAGER_LIMIT", &index) == MPI_SUCCESS, "no eager cvar");
    CHECK(MPI_T_cvar_get_info(index, NULL, NULL, &verb, &type, &e, NULL, NULL, &bind,
                              &scope) == MPI_SUCCESS, "cvar_get_info");
    CHECK(type == MPI_UNSIGNED_LONG_LONG && scope == MPI_T_SCOPE_LOCAL,
          "eager limit: type %d scope %d", (int)type, scope);
    CHECK(MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS && count == 1,
          "cvar_handle_alloc");
    return h;
}

/* ---- phase D: an unexpected message and its event ------------------------ */

typedef struct seen {
    int calls;
    int source, tag, context, source_index;
    MPI_Count bytes, stamp;
    MPI_T_cb_safety safety;
} seen_t;

static void on_unexpected(MPI_T_event_instance ev, MPI_T_event_registration reg,
                          MPI_T_cb_safety safety, void *user_data)
{
    (void)reg;
    seen_t *s = user_data;
    struct {
        int source, tag, context;
        MPI_Count bytes;
    } copy;
    s->calls++;
    s->safety = safety;
    MPI_T_event_read(ev, 0, &s->source);
    MPI_T_event_read(ev, 1, &s->tag);
    MPI_T_event_read(ev, 3, &s->bytes);
    MPI_T_event_get_timestamp(ev, &s->stamp);
    MPI_T_event_get_source(ev, &s->source_index);
    /* The copy agrees with the elements, at the displacements info gave. */
    MPI_T_event_copy(ev, &copy);
    s->context = copy.source == s->source && copy.tag == s->tag && copy.bytes == s->bytes;
}

static MPI_Count dropped_total;
static void on_dropped(MPI_Count count, MPI_T_event_registration reg, int source_index,
                       MPI_T_cb_safety safety, void *user_data)
{
    (void)reg, (void)source_index, (void)safety, (void)user_data;
    dropped_total += count;
}

static int freed_calls;
static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *user_data)
{
    (void)reg, (void)safety;
    freed_calls += user_data == &freed_calls;
}

static int event_index(void)
{
    int index = -1, nelem = 8, verb, bind;
    MPI_Datatype types[8];
    MPI_Aint displs[8];
    MPI_T_enum e;
    CHECK(MPI_T_event_get_index("unexpected_message", &index) == MPI_SUCCESS, "no event");
    CHECK(MPI_T_event_get_info(index, NULL, NULL, &verb, types, displs, &nelem, &e, NULL, NULL,
                               NULL, &bind) == MPI_SUCCESS, "event_get_info");
    CHECK(nelem == 4 && types[0] == MPI_INT && types[1] == MPI_INT && types[3] == MPI_COUNT,
          "event elements: %d", nelem);
    CHECK(displs[0] == 0 && displs[1] == (MPI_Aint)sizeof(int), "displacements %ld %ld",
          (long)displs[0], (long)displs[1]);
    return index;
}

static void receiver_unexpected(void)
{
    seen_t seen = {0};
    MPI_T_event_registration reg, unsafe;
    int index = event_index();
    CHECK(MPI_T_event_handle_alloc(index, NULL, MPI_INFO_NULL, &reg) == MPI_SUCCESS, "alloc");
    CHECK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL,
                                        &seen, on_unexpected) == MPI_SUCCESS, "register");
    /* Only safe where nothing is required: inside progress it is not. */
    CHECK(MPI_T_event_handle_alloc(index, NULL, MPI_INFO_NULL, &unsafe) == MPI_SUCCESS, "alloc");
    CHECK(MPI_T_event_register_callback(unsafe, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &seen,
                                        on_unexpected) == MPI_SUCCESS, "register none");
    CHECK(MPI_T_event_set_dropped_handler(unsafe, on_dropped) == MPI_SUCCESS, "dropped");
    counts_t before, after;
    MPI_Count t0, t1;
    read_counters(before);
    MPI_T_source_get_timestamp(0, &t0);
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Probe(0, TAG_LATE, MPI_COMM_WORLD, &st); /* now it sits unexpected */
    MPI_T_source_get_timestamp(0, &t1);
    read_counters(after);
    expect_delta("unexpected", before, after, UNEXPECTED, 1);
    CHECK(after[UNEXP_LEN] == 1, "unexpected queue length %llu, want 1", after[UNEXP_LEN]);
    CHECK(after[UNEXP_HWM] >= 1, "high-water mark %llu", after[UNEXP_HWM]);
    CHECK(seen.calls == 1, "event callback ran %d times, want 1", seen.calls);
    CHECK(seen.source == 0 && seen.tag == TAG_LATE && seen.bytes == MLATE,
          "event said source %d tag %d bytes %ld", seen.source, seen.tag, (long)seen.bytes);
    CHECK(seen.context == 1, "event_copy disagrees with event_read");
    CHECK(seen.source_index == 0 && seen.stamp >= t0 && seen.stamp <= t1,
          "event source %d stamp %ld outside [%ld, %ld]", seen.source_index, (long)seen.stamp,
          (long)t0, (long)t1);
    CHECK(seen.safety >= MPI_T_CB_REQUIRE_MPI_RESTRICTED, "callback at safety %d",
          (int)seen.safety);
    unsigned char buf[MLATE];
    MPI_Recv(buf, MLATE, MPI_BYTE, 0, TAG_LATE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(mt_verify(buf, MLATE, 77) == MT_OK, "late message corrupted");
    read_counters(after);
    CHECK(after[UNEXP_LEN] == 0, "unexpected queue length %llu after the receive",
          after[UNEXP_LEN]);
    CHECK(MPI_T_event_handle_free(unsafe, &freed_calls, on_free) == MPI_SUCCESS, "free");
    CHECK(dropped_total == 1, "dropped handler heard %ld drops, want 1", (long)dropped_total);
    CHECK(freed_calls == 1, "free callback ran %d times", freed_calls);
    CHECK(MPI_T_event_handle_free(reg, NULL, NULL) == MPI_SUCCESS, "free");
    CHECK(MPI_T_event_handle_free(reg, NULL, NULL) == MPI_T_ERR_INVALID_HANDLE,
          "second free of a registration accepted");
}

static void sender_unexpected(void)
{
    unsigned char buf[MLATE];
    mt_fill(buf, MLATE, 77);
    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, MLATE, MPI_BYTE, 1, TAG_LATE, MPI_COMM_WORLD);
}

/* Rank 1 read every message rank 0 sent before its last "go", so every
 * cell of rank 0's shm send pool came back. */
static void expect_pool_returned(void)
{
    MPI_T_pvar_handle h;
    int count;
    unsigned long long cells = ~0ULL;
    int index = -1;
    CHECK(MPI_T_pvar_get_index("shm_pool_cells_in_use", MPI_T_PVAR_CLASS_LEVEL, &index) ==
              MPI_SUCCESS, "no shm_pool_cells_in_use");
    CHECK(MPI_T_pvar_handle_alloc(session, index, NULL, &h, &count) == MPI_SUCCESS, "alloc");
    CHECK(MPI_T_pvar_read(session, h, &cells) == MPI_SUCCESS && cells == 0,
          "%llu shm pool cells still in use", cells);
    CHECK(MPI_T_pvar_handle_free(session, &h) == MPI_SUCCESS, "handle_free");
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    /* MPI_T comes first and outlives MPI. */
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "T_init_thread");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run on 2 ranks, not %d", size);
    const char *list = getenv("HCMPI_TRANSPORTS");
    /* One transport named alone carries the peers; else shm does. */
    const char *transport = "shm";
    if (list != NULL && (strcmp(list, "tcp") == 0 || strcmp(list, "verbs") == 0))
        transport = list;
    open_counters(transport);

    if (rank == 0) {
        sender_phase("eager", NEAGER, MEAGER, 100, 0);
        sender_phase("rendezvous", NRNDV, MRNDV, 200, 1);
        MPI_T_cvar_handle h = eager_limit_handle();
        unsigned long long was = eager_limit(h), lower = MEAGER / 4;
        CHECK(was >= MEAGER, "eager limit %llu below the test's eager size", was);
        CHECK(MPI_T_cvar_write(h, &lower) == MPI_SUCCESS, "cvar_write eager limit");
        CHECK(eager_limit(h) == lower, "eager limit reads %llu after writing %llu",
              eager_limit(h), lower);
        sender_phase("eager limit lowered", NEAGER, MEAGER, 300, 1);
        CHECK(MPI_T_cvar_write(h, &was) == MPI_SUCCESS, "cvar_write restore");
        sender_phase("eager limit restored", NEAGER, MEAGER, 400, 0);
        MPI_T_cvar_handle_free(&h);
        sender_unexpected();
        /* Nothing more goes to rank 1 before it has read its counters. */
        MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (strcmp(transport, "shm") == 0)
            expect_pool_returned();
    } else {
        receiver_phase("eager", NEAGER, MEAGER, 100, 0);
        receiver_phase("rendezvous", NRNDV, MRNDV, 200, 1);
        receiver_phase("eager limit lowered", NEAGER, MEAGER, 300, 1);
        receiver_phase("eager limit restored", NEAGER, MEAGER, 400, 0);
        receiver_unexpected();
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    counts_t last, after;
    read_counters(last);
    MPI_Finalize();
    /* After MPI_Finalize the counters still read, and only grew. */
    read_counters(after);
    CHECK(after[T_SENT_M] >= last[T_SENT_M], "counts fell after MPI_Finalize");
    CHECK(MPI_T_pvar_session_free(&session) == MPI_SUCCESS, "session_free");
    CHECK(session == MPI_T_PVAR_SESSION_NULL, "session not set to null");
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "T_finalize");
    if (rank == 0)
        printf("PASS: mpit_counts\n");
    return 0;
}

/* MPI_T beside MPI_THREAD_MULTIPLE traffic, on 2 ranks: on each rank a tool
 * thread keeps opening sessions, reading, resetting and freeing handles on
 * every performance variable and reading every control variable, while
 * the main thread exchanges messages; on rank 1 a THREAD_SAFE callback
 * counts the unexpected_message events of one tag.  Rank 0 sends K
 * messages on that tag, then one on another; rank 1 waits for the last
 * one first, so all K arrive with no receive posted: exactly K events with
 * that tag, and every byte right.  Run under ThreadSanitizer by
 * tests/tsan/run.sh. */
#include "mpitest.h"
#include <pthread.h>
#include <stdatomic.h>

enum { K = 200, BYTES = 64, TAG_MANY = 11, TAG_LAST = 12 };

static atomic_int stop_tool;
static atomic_int events_seen;

static void on_unexpected(MPI_T_event_instance ev, MPI_T_event_registration reg,
                          MPI_T_cb_safety safety, void *user_data)
{
    (void)reg, (void)safety, (void)user_data;
    int tag = -1;
    MPI_T_event_read(ev, 1, &tag);
    if (tag == TAG_MANY)
        atomic_fetch_add(&events_seen, 1);
}

/* One round of a tool: every pvar through a fresh session, every cvar. */
static void tool_round(void)
{
    int npvars = 0, ncvars = 0, count;
    MPI_T_pvar_session s;
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS, "session_create");
    MPI_T_pvar_get_num(&npvars);
    MPI_T_pvar_handle *h = malloc(sizeof *h * (size_t)npvars);
    for (int i = 0; i < npvars; i++)
        CHECK(MPI_T_pvar_handle_alloc(s, i, NULL, &h[i], &count) == MPI_SUCCESS, "alloc %d", i);
    MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES);
    for (int i = 0; i < npvars; i++) {
        double v[2]; /* large enough for either type */
        CHECK(MPI_T_pvar_read(s, h[i], v) == MPI_SUCCESS, "read %d", i);
    }
    MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES);
    MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES);
    CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS, "session_free");
    free(h);
    MPI_T_cvar_get_num(&ncvars);
    for (int i = 0; i < ncvars; i++) {
        MPI_T_cvar_handle c;
        char buf[512];
        CHECK(MPI_T_cvar_handle_alloc(i, NULL, &c, &count) == MPI_SUCCESS, "cvar alloc %d", i);
        CHECK(MPI_T_cvar_read(c, buf) == MPI_SUCCESS, "cvar read %d", i);
        MPI_T_cvar_handle_free(&c);
    }
}

static void *tool_thread(void *arg)
{
    int *rounds = arg;
    while (!atomic_load(&stop_tool) || *rounds == 0) {
        tool_round();
        ++*rounds;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size, tprov;
    CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &tprov) == MPI_SUCCESS, "T_init_thread");
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run on 2 ranks, not %d", size);
    MPI_T_event_registration reg = NULL;
    if (rank == 1) {
        int index;
        CHECK(MPI_T_event_get_index("unexpected_message", &index) == MPI_SUCCESS, "event");
        CHECK(MPI_T_event_handle_alloc(index, NULL, MPI_INFO_NULL, &reg) == MPI_SUCCESS, "alloc");
        CHECK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL,
                                            NULL, on_unexpected) == MPI_SUCCESS, "register");
    }
    int rounds = 0;
    pthread_t tool;
    CHECK(pthread_create(&tool, NULL, tool_thread, &rounds) == 0, "pthread_create");
    MPI_Barrier(MPI_COMM_WORLD);
    static unsigned char bufs[K][BYTES];
    if (rank == 0) {
        for (int i = 0; i < K; i++) {
            mt_fill(bufs[i], BYTES, (unsigned)i);
            MPI_Send(bufs[i], BYTES, MPI_BYTE, 1, TAG_MANY, MPI_COMM_WORLD);
        }
        MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_LAST, MPI_COMM_WORLD);
    } else {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_LAST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(atomic_load(&events_seen) == K, "%d events for tag %d, want %d",
              atomic_load(&events_seen), TAG_MANY, K);
        for (int i = 0; i < K; i++) {
            MPI_Recv(bufs[i], BYTES, MPI_BYTE, 0, TAG_MANY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(mt_verify(bufs[i], BYTES, (unsigned)i) == MT_OK, "message %d corrupted", i);
        }
        CHECK(MPI_T_event_handle_free(reg, NULL, NULL) == MPI_SUCCESS, "event free");
    }
    atomic_store(&stop_tool, 1);
    pthread_join(tool, NULL);
    CHECK(rounds > 0, "the tool thread never finished a round");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "T_finalize");
    if (rank == 0)
        printf("PASS: mpit_threads\n");
    return 0;
}

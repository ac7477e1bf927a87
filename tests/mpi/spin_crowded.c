/* Which spin bounds a crowded rank's wait for a message, on 2 ranks run as
 * a crowded node (HCMPI_OVERSUBSCRIBED=1): rank 1 stays out of MPI for
 * 200 ms before each of a few sends, while rank 0 waits in MPI_Recv; the
 * MPI_T timer wait_sleep_time tells whether rank 0 slept.  argv[1] says
 * what the script's settings must give: "sleeps" (a wait ran out of
 * polls) or "yields" (200 ms of yielding polls never reached the bound).
 * Every message carries its sequence number. */
#include "mpitest.h"

#include <time.h>

#define SC_MESSAGES 4
#define SC_DELAY_MS 200

static void sc_pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Rank 0's seconds asleep in blocking waits so far. */
static double sc_slept(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    double seconds = -1.0;
    CHECK(MPI_T_pvar_read(session, handle, &seconds) == MPI_SUCCESS, "pvar_read");
    return seconds;
}

int main(int argc, char **argv)
{
    int provided, rank, nranks, index = -1, count = 0;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "T_init_thread");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    CHECK(nranks == 2 && argc == 2 &&
              (strcmp(argv[1], "sleeps") == 0 || strcmp(argv[1], "yields") == 0),
          "run on 2 ranks with sleeps or yields");
    int want_sleep = strcmp(argv[1], "sleeps") == 0;
    CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "session_create");
    CHECK(MPI_T_pvar_get_index("wait_sleep_time", MPI_T_PVAR_CLASS_TIMER, &index) ==
              MPI_SUCCESS,
          "no timer wait_sleep_time");
    CHECK(MPI_T_pvar_handle_alloc(session, index, NULL, &handle, &count) == MPI_SUCCESS &&
              count == 1,
          "handle_alloc wait_sleep_time");
    CHECK(MPI_T_pvar_start(session, handle) == MPI_SUCCESS, "pvar_start");
    MPI_Barrier(MPI_COMM_WORLD);
    double before = sc_slept(session, handle);
    for (long i = 0; i < SC_MESSAGES; i++) {
        long seq = -1;
        if (rank == 1) {
            sc_pause_ms(SC_DELAY_MS);
            MPI_Send(&i, 1, MPI_LONG, 0, 3, MPI_COMM_WORLD);
            continue;
        }
        MPI_Recv(&seq, 1, MPI_LONG, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(seq == i, "message %ld carries %ld", i, seq);
    }
    if (rank == 0) {
        double slept = sc_slept(session, handle) - before;
        CHECK(want_sleep ? slept > 0.0 : slept == 0.0,
              "rank 0 slept %.6f s in %d waits of ~%d ms; expected it %s", slept, SC_MESSAGES,
              SC_DELAY_MS, want_sleep ? "to sleep" : "to yield throughout");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_T_pvar_handle_free(session, &handle) == MPI_SUCCESS, "handle_free");
    mt_counters_finalize(&session);
    if (rank == 0)
        printf("PASS: spin_crowded\n");
    return 0;
}

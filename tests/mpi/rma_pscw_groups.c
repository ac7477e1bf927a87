/* Post/start/complete/wait with groups that change every epoch and overlap:
 * in epoch e rank o accesses the ranks o + d (mod n) for each offset d of
 * that epoch's list (0 is itself, an empty list no one), so each rank
 * exposes its window to the ranks t - d and is origin and target at once,
 * to different groups.  Every origin puts a stamp of (epoch, origin,
 * target) into its slot of each target's window and gets the target's own
 * word, which the target wrote before posting; after its wait (or its
 * MPI_Win_test loop, in odd epochs) each target checks every slot of its
 * exposure group, and each origin the words it got.  A post or completion
 * taken for the wrong epoch shows as a stamp of another epoch: in some
 * epochs a target dawdles before checking, so a start that went ahead of
 * its post would overwrite the slots under it.  What is checked is bytes
 * and return codes, not how a rank waited.
 *
 * argv[1]: "allocate" (MPI_Win_allocate: on one node post and complete
 * are counters in the window's shared mapping), "shared"
 * (MPI_Win_allocate_shared, the same) or "create" (MPI_Win_create:
 * messages).  argv[2] "quiet": every epoch, its operations and its
 * synchronisation sent no message from this rank (the performance
 * variables eager_sent_messages and rndv_sent_messages stand still), as
 * on a shared window whose members' transports wake each other. */
#include "mpitest.h"

enum { EPOCHS = 24, OFFSETS_MAX = 3 };

/* Each epoch's offsets (-1 ends a list). */
static const int epoch_offsets[][OFFSETS_MAX + 1] = {
    {1, -1},       {1, 2, -1},  {0, 1, -1}, {-1},          {2, -1},
    {1, 2, 3, -1}, {0, -1},     {3, 1, -1}, {1, -1},       {2, 0, 1, -1},
    {4, -1},       {1, 4, -1},
};
enum { PATTERNS = sizeof epoch_offsets / sizeof epoch_offsets[0] };

static unsigned long stamp(int e, int origin, int target)
{
    return 0x5057000000000000ul ^ ((unsigned long)e << 32) ^ ((unsigned long)origin << 16) ^
           (unsigned long)target;
}

static unsigned long own_word(int e, int target)
{
    return 0x4f574e0000000000ul ^ ((unsigned long)e << 24) ^ (unsigned long)target;
}

/* The distinct ranks rank + sign * d (mod n) of epoch e's offsets. */
static int group_ranks(int e, int rank, int n, int sign, int *out)
{
    int count = 0;
    for (const int *d = epoch_offsets[e % PATTERNS]; *d >= 0; d++) {
        int r = ((rank + sign * *d) % n + n) % n;
        int seen = 0;
        for (int i = 0; i < count; i++)
            seen |= out[i] == r;
        if (!seen)
            out[count++] = r;
    }
    return count;
}

static MPI_T_pvar_session session;
static MPI_T_pvar_handle sent_handles[2];

/* Starts the counters of messages this rank sends. */
static void open_sent_counters(void)
{
    static const char *const names[2] = {"eager_sent_messages", "rndv_sent_messages"};
    int provided, count = 0;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "T_init");
    CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "session_create");
    for (int i = 0; i < 2; i++) {
        int index = -1;
        CHECK(MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &index) == MPI_SUCCESS,
              "no performance variable %s", names[i]);
        CHECK(MPI_T_pvar_handle_alloc(session, index, NULL, &sent_handles[i], &count) ==
                  MPI_SUCCESS,
              "alloc %s", names[i]);
    }
    CHECK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "pvar start");
}

static unsigned long long messages_sent(void)
{
    unsigned long long total = 0, one = 0;
    for (int i = 0; i < 2; i++) {
        CHECK(MPI_T_pvar_read(session, sent_handles[i], &one) == MPI_SUCCESS, "pvar read");
        total += one;
    }
    return total;
}

static void busy_for(int us)
{
    double until = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < until)
        ;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(argc == 2 || (argc == 3 && strcmp(argv[2], "quiet") == 0),
          "usage: rma_pscw_groups allocate|shared|create [quiet]");
    int quiet = argc == 3;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    /* Slots 0..n-1: what each origin put; slot n: this rank's own word. */
    MPI_Aint bytes = (MPI_Aint)(n + 1) * (MPI_Aint)sizeof(unsigned long);
    unsigned long *mem = NULL;
    MPI_Win win;
    if (strcmp(argv[1], "allocate") == 0)
        MPI_Win_allocate(bytes, sizeof(unsigned long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    else if (strcmp(argv[1], "shared") == 0)
        MPI_Win_allocate_shared(bytes, sizeof(unsigned long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                                &win);
    else {
        CHECK(strcmp(argv[1], "create") == 0, "unknown window kind %s", argv[1]);
        MPI_Alloc_mem(bytes, MPI_INFO_NULL, &mem);
        MPI_Win_create(mem, bytes, sizeof(unsigned long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    int targets[OFFSETS_MAX], origins[OFFSETS_MAX];
    unsigned long got[OFFSETS_MAX], mine[OFFSETS_MAX];
    unsigned long long sent_before = 0;
    if (quiet) {
        open_sent_counters();
        sent_before = messages_sent();
    }
    for (int e = 0; e < EPOCHS; e++) {
        int nt = group_ranks(e, rank, n, 1, targets);
        int no = group_ranks(e, rank, n, -1, origins);
        MPI_Group access, exposure;
        MPI_Group_incl(world, nt, targets, &access);
        MPI_Group_incl(world, no, origins, &exposure);
        /* The own word is this rank's store before the post: the post
         * orders it before its origins' gets. */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        mem[n] = own_word(e, rank);
        MPI_Win_unlock(rank, win);
        CHECK(MPI_Win_post(exposure, 0, win) == MPI_SUCCESS, "post of epoch %d", e);
        CHECK(MPI_Win_start(access, 0, win) == MPI_SUCCESS, "start of epoch %d", e);
        for (int i = 0; i < nt; i++) {
            mine[i] = stamp(e, rank, targets[i]);
            CHECK(MPI_Put(&mine[i], 1, MPI_UNSIGNED_LONG, targets[i], rank, 1,
                          MPI_UNSIGNED_LONG, win) == MPI_SUCCESS,
                  "put of epoch %d", e);
            CHECK(MPI_Get(&got[i], 1, MPI_UNSIGNED_LONG, targets[i], n, 1, MPI_UNSIGNED_LONG,
                          win) == MPI_SUCCESS,
                  "get of epoch %d", e);
        }
        if (e % 5 == 2)
            busy_for(300 * (rank + 1)); /* its targets wait longer */
        CHECK(MPI_Win_complete(win) == MPI_SUCCESS, "complete of epoch %d", e);
        for (int i = 0; i < nt; i++)
            CHECK(got[i] == own_word(e, targets[i]),
                  "epoch %d: got %#lx from rank %d's own word, want %#lx", e, got[i], targets[i],
                  own_word(e, targets[i]));
        if (e % 2 == 0) {
            CHECK(MPI_Win_wait(win) == MPI_SUCCESS, "wait of epoch %d", e);
        } else {
            int flag = 0;
            while (!flag)
                CHECK(MPI_Win_test(win, &flag) == MPI_SUCCESS, "test of epoch %d", e);
        }
        if (e % 4 == 1)
            busy_for(500); /* origins that started early would write now */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        for (int i = 0; i < no; i++)
            CHECK(mem[origins[i]] == stamp(e, origins[i], rank),
                  "epoch %d: slot of rank %d holds %#lx, want %#lx", e, origins[i],
                  mem[origins[i]], stamp(e, origins[i], rank));
        MPI_Win_unlock(rank, win);
        MPI_Group_free(&access);
        MPI_Group_free(&exposure);
    }
    if (quiet) {
        unsigned long long sent = messages_sent() - sent_before;
        CHECK(sent == 0, "%llu messages sent during the epochs, want none", sent);
        MPI_T_pvar_session_free(&session);
        MPI_T_finalize();
    }
    MPI_Win_free(&win);
    if (strcmp(argv[1], "create") == 0)
        MPI_Free_mem(mem);
    MPI_Group_free(&world);
    if (rank == 0)
        printf("rma_pscw_groups %s: %d epochs on %d ranks\n", argv[1], EPOCHS, n);
    MPI_Finalize();
    return 0;
}

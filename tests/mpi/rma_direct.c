/* One-sided operations take the direct paths and stay correct there.
 *
 * argv[1] says which path every operation must take, read from the
 * performance variables rma_direct_messages and rma_active_messages
 * (moved by exactly the operations this rank issued in each phase):
 *   shared  - windows whose memory is one mapping of the node
 *             (MPI_Win_allocate on one node, MPI_Win_allocate_shared)
 *             move every operation by loads and stores; on an
 *             MPI_Win_create window puts and gets to this rank move
 *             directly, and (argv[2] "peer") those to other ranks too,
 *             through CMA or RDMA, unless they have too many pieces.
 *   message - HCMPI_RMA_DIRECT=0: every operation is an active message.
 *
 * Atomicity, on each shared-memory window: every rank at once adds 1 to
 * one word of rank 0 with MPI_Accumulate(MPI_SUM) and fetches-and-adds 1
 * to the same word with MPI_Fetch_and_op, ITERS times each, under a shared
 * lock; a second word takes MPI_Accumulate(MPI_SUM) of 0.5 in double and a
 * third MPI_Get_accumulate(MPI_SUM), and a fourth is read, incremented and
 * written back with MPI_Get and MPI_Put under an exclusive lock (on shared
 * windows a word in the mapping).  The word must end at exactly
 * 2 * size * ITERS, every value MPI_Fetch_and_op returned (across all
 * ranks) must differ, the double must be exact and the locked counter
 * size * ITERS.  Then atomic reads of a {short, int} pair another rank
 * keeps replacing must never be torn.  The MPI_Win_create
 * phase puts a 4 KiB block and a strided vector into the right
 * neighbour's window and reads the block back, under fence, and puts and
 * gets on this rank's own window, checking every byte.  A dense type
 * with data past its origin (true lower bound 8) is put and got back
 * whole, nowhere else. */
#include "mpitest.h"

#define ITERS 100
#define BLOCK 4096
#define READS 4000
#define PAIRS 64

static int rank, size;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle h_direct, h_active;

/* The index of counter name (MPI-4.0's lookup by name). */
static int pvar_index(const char *name)
{
    int index = -1;
    CHECK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index) == MPI_SUCCESS,
          "no performance variable %s", name);
    return index;
}

static void open_counters(void)
{
    int provided, count = 0;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "T_init");
    CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "session_create");
    CHECK(MPI_T_pvar_handle_alloc(session, pvar_index("rma_direct_messages"), NULL,
                                  &h_direct, &count) == MPI_SUCCESS, "alloc direct");
    CHECK(MPI_T_pvar_handle_alloc(session, pvar_index("rma_active_messages"), NULL,
                                  &h_active, &count) == MPI_SUCCESS, "alloc active");
    CHECK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start");
}

typedef struct { unsigned long long direct, active; } counts_t;

static counts_t read_counts(void)
{
    counts_t c;
    CHECK(MPI_T_pvar_read(session, h_direct, &c.direct) == MPI_SUCCESS, "read direct");
    CHECK(MPI_T_pvar_read(session, h_active, &c.active) == MPI_SUCCESS, "read active");
    return c;
}

/* Since before, exactly direct operations moved directly and active as
 * active messages. */
static void expect_paths(const char *phase, counts_t before, unsigned long long direct,
                         unsigned long long active)
{
    counts_t now = read_counts();
    CHECK(now.direct - before.direct == direct && now.active - before.active == active,
          "%s: %llu direct and %llu active operations, want %llu and %llu", phase,
          now.direct - before.direct, now.active - before.active, direct, active);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Every rank's fetched values together: all distinct, all below limit. */
static void check_fetched(const long *mine, long limit, const char *phase)
{
    long *all = rank == 0 ? malloc((size_t)size * ITERS * sizeof(long)) : NULL;
    MPI_Gather(mine, ITERS, MPI_LONG, all, ITERS, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    qsort(all, (size_t)size * ITERS, sizeof(long), cmp_long);
    for (int i = 0; i < size * ITERS; i++) {
        CHECK(all[i] >= 0 && all[i] < limit, "%s: fetched %ld outside [0, %ld)", phase,
              all[i], limit);
        CHECK(i == 0 || all[i] != all[i - 1], "%s: two fetches saw %ld", phase, all[i]);
    }
    free(all);
}

/* The word layout of the atomic phase: [0] long counter, [1] double sum,
 * [2] long get_accumulate counter, [3] a counter each rank reads and
 * writes back plus one under an exclusive lock. */
static void atomic_phase(const char *phase, MPI_Win win, long *words, int direct)
{
    long one = 1, fetched[ITERS], old = 0;
    double half = 0.5;
    memset(words, 0, 4 * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);
    counts_t before = read_counts();
    for (int i = 0; i < ITERS; i++) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
        MPI_Fetch_and_op(&one, &fetched[i], MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, sizeof(long), 1, MPI_DOUBLE, MPI_SUM, win);
        MPI_Get_accumulate(&one, 1, MPI_LONG, &old, 1, MPI_LONG, 0, 2 * sizeof(long), 1,
                           MPI_LONG, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        CHECK(old >= 0 && old < (long)size * ITERS, "%s: get_accumulate saw %ld", phase, old);
    }
    for (int i = 0; i < ITERS; i++) { /* a read-modify-write only the lock guards */
        long v = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_LONG, 0, 3 * sizeof(long), 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_LONG, 0, 3 * sizeof(long), 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
    }
    unsigned long long ops = 6ull * ITERS;
    expect_paths(phase, before, direct ? ops : 0, direct ? 0 : ops);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(words[0] == 2L * size * ITERS, "%s: word is %ld, want %ld", phase, words[0],
              2L * size * ITERS);
        double sum;
        memcpy(&sum, &words[1], sizeof sum);
        CHECK(sum == 0.5 * size * ITERS, "%s: double sum %g, want %g", phase, sum,
              0.5 * size * ITERS);
        CHECK(words[2] == (long)size * ITERS, "%s: get_accumulate word %ld, want %ld", phase,
              words[2], (long)size * ITERS);
        CHECK(words[3] == (long)size * ITERS, "%s: counter under exclusive locks %ld, want %ld",
              phase, words[3], (long)size * ITERS);
    }
    check_fetched(fetched, 2L * size * ITERS, phase);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Atomic reads: rank 1 replaces PAIRS {short, int} pairs in rank 0's
 * window with {v, v} again and again while rank 2 reads them with
 * MPI_Get_accumulate and MPI_Fetch_and_op (MPI_NO_OP, which the library
 * moves as a read); every pair read must be whole.  Its own window, made
 * by MPI_Win_allocate or (shared) MPI_Win_allocate_shared. */
static void atomic_read_phase(const char *phase, int shared)
{
    typedef struct { short s; int i; } pair_t;
    pair_t put[PAIRS], got[PAIRS], *mem = NULL;
    MPI_Aint bytes = rank == 0 ? (MPI_Aint)sizeof put : 0;
    MPI_Win win;
    int rc = shared ? MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win)
                    : MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    CHECK(rc == MPI_SUCCESS, "%s: window for atomic reads", phase);
    if (rank == 0)
        memset(mem, 0, sizeof put);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int k = 1; size >= 3 && rank == 1 && k <= READS; k++) {
        for (int e = 0; e < PAIRS; e++) {
            put[e].s = (short)(k % 30000);
            put[e].i = k % 30000;
        }
        MPI_Accumulate(put, PAIRS, MPI_SHORT_INT, 0, 0, PAIRS, MPI_SHORT_INT, MPI_REPLACE, win);
    }
    for (int k = 0; size >= 3 && rank == 2 && k < READS; k++) {
        int n = k % 4 ? PAIRS : 1;
        if (n == 1)
            MPI_Fetch_and_op(NULL, got, MPI_SHORT_INT, 0, 0, MPI_NO_OP, win);
        else
            MPI_Get_accumulate(NULL, 0, MPI_SHORT_INT, got, n, MPI_SHORT_INT, 0, 0, n,
                               MPI_SHORT_INT, MPI_NO_OP, win);
        MPI_Win_flush(0, win);
        for (int e = 0; e < n; e++)
            CHECK(got[e].s == got[e].i, "%s: read a torn pair {%d, %d}", phase, got[e].s,
                  got[e].i);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

static unsigned char stamp(int from, int i) { return (unsigned char)(from * 31 + i * 7 + 1); }

/* MPI_Win_create: a block and a vector to the right, the block read back,
 * and a put and get on this rank's own window. */
static void create_phase(int direct, int peer)
{
    unsigned char *mem = calloc(3 * BLOCK, 1), *out = malloc(BLOCK), *in = malloc(BLOCK);
    MPI_Win win;
    CHECK(MPI_Win_create(mem, 3 * BLOCK, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
              MPI_SUCCESS, "Win_create");
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < BLOCK; i++)
        out[i] = stamp(rank, i);
    MPI_Datatype every_other;
    MPI_Type_vector(BLOCK / 2, 1, 2, MPI_BYTE, &every_other);
    MPI_Type_commit(&every_other);
    /* A message each way first: transports that connect on first use
     * (verbs) are connected before the counted operations. */
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&token, 1, MPI_INT, left, 8, &got, 1, MPI_INT, right, 8, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    counts_t before = read_counts();
    MPI_Win_fence(0, win);
    MPI_Put(out, BLOCK, MPI_BYTE, right, 0, BLOCK, MPI_BYTE, win);
    MPI_Put(out, BLOCK / 2, MPI_BYTE, right, BLOCK, 1, every_other, win);
    MPI_Put(out, BLOCK, MPI_BYTE, rank, 2 * BLOCK, BLOCK, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    MPI_Get(in, BLOCK, MPI_BYTE, right, 0, BLOCK, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < BLOCK; i++)
        CHECK(in[i] == stamp(rank, i), "read back byte %d from the right: %u, want %u", i, in[i],
              stamp(rank, i));
    for (int i = 0; i < BLOCK; i++) {
        unsigned char want = i % 2 == 0 ? stamp(left, i / 2) : 0;
        CHECK(mem[BLOCK + i] == want, "vector byte %d: %u, want %u", i, mem[BLOCK + i], want);
        CHECK(mem[2 * BLOCK + i] == stamp(rank, i), "own byte %d: %u", i, mem[2 * BLOCK + i]);
    }
    MPI_Get(in, BLOCK, MPI_BYTE, rank, 2 * BLOCK, BLOCK, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    CHECK(memcmp(in, out, BLOCK) == 0, "own get differs");
    /* Five operations.  With neighbours, two go to this rank and three to
     * others, of which the vector's 2048 pieces stay an active message
     * (one message costs less than that many transfers). */
    unsigned long long direct_ops = size > 1 ? 2 + (peer ? 2 : 0) : 5;
    if (!direct)
        direct_ops = 0;
    expect_paths("create", before, direct_ops, 5 - direct_ops);
    MPI_Type_free(&every_other);
    MPI_Win_free(&win);
    free(mem);
    free(out);
    free(in);
}

/* A dense type whose data starts past its origin (one block of two ints 8
 * bytes in: true lower bound 8) moves whole under a lock, both ways, on a
 * shared window: a put to the right neighbour at displacement 1 (unit 4)
 * writes its ints 3 and 4 from the origin's ints 2 and 3, and a get of
 * the same place brings them back to ints 2 and 3; nothing else changes. */
static void dense_lb_phase(int direct)
{
    int *mem = NULL, out[6], in[6], right = (rank + 1) % size, left = (rank + size - 1) % size;
    int blen = 2;
    MPI_Aint disp = 8;
    MPI_Datatype inner = MPI_INT, two;
    MPI_Type_create_struct(1, &blen, &disp, &inner, &two);
    MPI_Type_commit(&two);
    MPI_Win win;
    CHECK(MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win) == MPI_SUCCESS, "dense_lb: Win_allocate");
    for (int i = 0; i < 8; i++)
        mem[i] = -1;
    for (int i = 0; i < 6; i++) {
        out[i] = rank * 100 + i;
        in[i] = -2;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    counts_t before = read_counts();
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(out, 1, two, right, 1, 1, two, win);
    MPI_Win_flush(right, win);
    MPI_Get(in, 1, two, right, 1, 1, two, win);
    MPI_Win_unlock(right, win);
    expect_paths("dense_lb", before, direct ? 2 : 0, direct ? 0 : 2);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 8; i++) {
        int want = i == 3 || i == 4 ? left * 100 + i - 1 : -1;
        CHECK(mem[i] == want, "dense_lb: target int %d is %d, want %d", i, mem[i], want);
    }
    for (int i = 0; i < 6; i++) {
        int want = i == 2 || i == 3 ? rank * 100 + i : -2;
        CHECK(in[i] == want, "dense_lb: fetched int %d is %d, want %d", i, in[i], want);
    }
    MPI_Win_free(&win);
    MPI_Type_free(&two);
}

/* Blocks at odd displacements on a shared window, of the lengths whose
 * direct copy takes each of src/util/copy.c's ways (a few KiB; 64 KiB,
 * which glibc would move by rep movsb; past 256 KiB, where the loop asks
 * for the destination's lines ahead): every rank puts len bytes from
 * out + 1 at displacement 3 of the right neighbour, reads them back into
 * in + 5 (a malloc'd buffer: for the larger lengths 16 bytes into a page,
 * so the get's destination lies a few bytes past its source modulo 4 KiB)
 * and finds its own window holding the left neighbour's bytes there and
 * nothing written around. */
static void mid_block_phase(int direct, int len) {
  int room = len + 64;
  unsigned char *mem = NULL, *out = malloc((size_t)room),
                *in = malloc((size_t)room);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Win win;
  CHECK(out != NULL && in != NULL, "mid_block %d: malloc", len);
  CHECK(MPI_Win_allocate(room, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win) ==
            MPI_SUCCESS,
        "mid_block %d: Win_allocate", len);
  memset(mem, 0xee, (size_t)room);
  memset(in, 0xdd, (size_t)room);
  for (int i = 0; i < room; i++)
    out[i] = stamp(rank, i);
  MPI_Barrier(MPI_COMM_WORLD);
  counts_t before = read_counts();
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
  MPI_Put(out + 1, len, MPI_BYTE, right, 3, len, MPI_BYTE, win);
  MPI_Win_flush(right, win);
  MPI_Get(in + 5, len, MPI_BYTE, right, 3, len, MPI_BYTE, win);
  MPI_Win_unlock(right, win);
  expect_paths("mid_block", before, direct ? 2 : 0, direct ? 0 : 2);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < room; i++) {
    unsigned char want = i >= 3 && i < 3 + len ? stamp(left, i - 2) : 0xee;
    CHECK(mem[i] == want, "mid_block %d: target byte %d is %u, want %u", len,
          i, mem[i], want);
  }
  for (int i = 0; i < room; i++) {
    unsigned char want = i >= 5 && i < 5 + len ? stamp(rank, i - 4) : 0xdd;
    CHECK(in[i] == want, "mid_block %d: fetched byte %d is %u, want %u", len,
          i, in[i], want);
  }
  MPI_Win_free(&win);
  free(out);
  free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc >= 2, "usage: rma_direct shared|message [peer]");
    int direct = strcmp(argv[1], "shared") == 0;
    int peer = argc >= 3 && strcmp(argv[2], "peer") == 0;
    open_counters();

    long *words = NULL;
    MPI_Win win;
    CHECK(MPI_Win_allocate(4 * sizeof(long), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &words,
                           &win) == MPI_SUCCESS, "Win_allocate");
    atomic_phase("allocate", win, words, direct);
    MPI_Win_free(&win);

    CHECK(MPI_Win_allocate_shared(4 * sizeof(long), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                  &words, &win) == MPI_SUCCESS, "Win_allocate_shared");
    atomic_phase("allocate_shared", win, words, direct);
    MPI_Win_free(&win);

    atomic_read_phase("allocate", 0);
    atomic_read_phase("allocate_shared", 1);
    create_phase(direct, peer);
    dense_lb_phase(direct);
    mid_block_phase(direct, 4100);
    mid_block_phase(direct, 65537);
    mid_block_phase(direct, 300001);

    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    if (rank == 0)
        printf("rma_direct %s%s: %d ranks ok\n", argv[1], peer ? " peer" : "", size);
    MPI_Finalize();
    return 0;
}

/* Single-element atomics stay exact when every rank hits the same words of
 * rank 0's window at once.  argv[1] picks the window: "shared"
 * (MPI_Win_allocate_shared), "allocate" (MPI_Win_allocate) or "create"
 * (MPI_Win_create); argv[2], if given, the rounds.  On one node the first
 * two are mapped by every rank, and these calls take the library's short
 * single-element path there, which must stay atomic against the general
 * path of longer accumulates on the same words.
 *
 * Words of rank 0's window (byte displacements, unit 1):
 *   W_MIX    long: MPI_Fetch_and_op(SUM, 1) and a 4-long MPI_Accumulate
 *            (SUM, 1 each) covering W_MIX..W_MIX+3: total 2 * size * iters
 *   W_TICKET long: MPI_Fetch_and_op(SUM, 1): every fetched value of all
 *            ranks together is 0 .. size * iters - 1, once each
 *   W_CAS    long: incremented by compare-and-swap loops (read with
 *            MPI_NO_OP, swap old for old + 1 until it succeeds)
 *   W_INT    int: MPI_Accumulate(SUM, 2)
 *   W_DBL    double: MPI_Accumulate(SUM, 0.25) (exact in binary)
 *   W_SWAP   long: MPI_Fetch_and_op(MPI_REPLACE) of values unique to each
 *            rank and iteration: the values swapped out plus the last one
 *            left are exactly 0 and every value swapped in
 *   W_MAX    long: MPI_Fetch_and_op(MPI_MAX)
 *   W_LOC    {int, int}: MPI_Fetch_and_op(MPI_MINLOC) on MPI_2INT
 *   W_GACC   long: MPI_Get_accumulate(SUM, 3), fetched values in range
 *   W_BYTE   unsigned char at an odd address: MPI_Fetch_and_op(SUM, 1)
 *   W_ODD    int at an unaligned address: MPI_Accumulate(SUM, 1)
 * once in one lock_all epoch with a flush per operation, once with a
 * shared lock around each operation.  Then the errors: an element outside
 * the window (MPI_ERR_RMA_RANGE), no epoch (MPI_ERR_RMA_SYNC, also after
 * a lock/unlock that followed a fence: the lock ended the fence's epoch),
 * a user op (MPI_ERR_OP), compare-and-swap on a floating-point or derived
 * type (MPI_ERR_TYPE), and MPI_PROC_NULL (nothing happens). */
#include "mpitest.h"

#include <stdint.h>

/* Rounds: more where the operations are loads and stores (a race needs
 * many tries to show on few cores), fewer where each is a message. */
#define ITERS_MAX 2000
#define ITERS_MESSAGES 300
#define W_MIX 0
#define W_TICKET 32
#define W_CAS 40
#define W_INT 48
#define W_DBL 56
#define W_SWAP 64
#define W_MAX 72
#define W_LOC 80
#define W_GACC 88
#define W_BYTE 97
#define W_ODD 99
#define WIN_BYTES 128

static int rank, size, iters;

typedef struct {
    int v, k;
} two_int_t;

static long load_long(const unsigned char *mem, int at)
{
    long v;
    memcpy(&v, mem + at, sizeof v);
    return v;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Sorted values of every rank (n each) at rank 0, or NULL elsewhere. */
static long *gather_sorted(const long *mine, int n)
{
    long *all = rank == 0 ? malloc((size_t)size * (size_t)n * sizeof(long)) : NULL;
    MPI_Gather(mine, n, MPI_LONG, all, n, MPI_LONG, 0, MPI_COMM_WORLD);
    if (all != NULL)
        qsort(all, (size_t)size * (size_t)n, sizeof(long), cmp_long);
    return all;
}

static long swap_value(int r, int i) { return (long)(r + 1) * 1000000 + i + 1; }

/* Before and after each operation: a shared lock around it (lock), or a
 * flush after it inside the lock_all epoch. */
static void op_begin(MPI_Win win, int lock)
{
    if (lock)
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
}

static void op_end(MPI_Win win, int lock, int rc, const char *what)
{
    CHECK(rc == MPI_SUCCESS, "%s: %s", what, mt_errstr(rc));
    if (lock)
        MPI_Win_unlock(0, win);
    else
        MPI_Win_flush(0, win);
}

/* MPI_Fetch_and_op on rank 0's window inside op_begin/op_end. */
static void fetch_op(MPI_Win win, int lock, const void *in, void *out, MPI_Datatype type,
                     MPI_Aint at, MPI_Op op, const char *what)
{
    op_begin(win, lock);
    op_end(win, lock, MPI_Fetch_and_op(in, out, type, 0, at, op, win), what);
}

static void accumulate(MPI_Win win, int lock, const void *in, int count, MPI_Datatype type,
                       MPI_Aint at, const char *what)
{
    op_begin(win, lock);
    op_end(win, lock, MPI_Accumulate(in, count, type, 0, at, count, type, MPI_SUM, win), what);
}

/* One increment of W_CAS by compare-and-swap, retried until it holds. */
static void cas_increment(MPI_Win win, int lock)
{
    long old = -1, seen = 0;
    do {
        fetch_op(win, lock, NULL, &seen, MPI_LONG, W_CAS, MPI_NO_OP, "read for the swap");
        long next = seen + 1;
        op_begin(win, lock);
        op_end(win, lock, MPI_Compare_and_swap(&next, &seen, &old, MPI_LONG, 0, W_CAS, win),
               "compare-and-swap");
    } while (old != seen);
}

/* One iteration's operations; lock: a shared lock around each. */
static void one_round(MPI_Win win, int i, int lock, long *ticket, long *swapped)
{
    long one = 1, three = 3, four[4] = {1, 1, 1, 1}, fetched;
    int two = 2, one_int = 1;
    double quarter = 0.25;
    unsigned char one_byte = 1, old_byte;
    two_int_t loc = {(rank * 7 + i) % 13 + 5, rank}, old_loc;
    fetch_op(win, lock, &one, &fetched, MPI_LONG, W_MIX, MPI_SUM, "fetch-and-add (mixed)");
    accumulate(win, lock, four, 4, MPI_LONG, W_MIX, "4-long accumulate");
    fetch_op(win, lock, &one, &ticket[i], MPI_LONG, W_TICKET, MPI_SUM, "ticket");
    cas_increment(win, lock);
    accumulate(win, lock, &two, 1, MPI_INT, W_INT, "int accumulate");
    accumulate(win, lock, &quarter, 1, MPI_DOUBLE, W_DBL, "double accumulate");
    long mine = swap_value(rank, i);
    fetch_op(win, lock, &mine, &swapped[i], MPI_LONG, W_SWAP, MPI_REPLACE, "swap");
    long candidate = (long)rank * iters + i;
    fetch_op(win, lock, &candidate, &fetched, MPI_LONG, W_MAX, MPI_MAX, "max");
    CHECK(fetched <= (long)(size - 1) * iters + iters - 1, "max fetched %ld", fetched);
    fetch_op(win, lock, &loc, &old_loc, MPI_2INT, W_LOC, MPI_MINLOC, "minloc");
    op_begin(win, lock);
    op_end(win, lock,
           MPI_Get_accumulate(&three, 1, MPI_LONG, &fetched, 1, MPI_LONG, 0, W_GACC, 1,
                              MPI_LONG, MPI_SUM, win),
           "get_accumulate");
    CHECK(fetched >= 0 && fetched < 3L * size * iters && fetched % 3 == 0,
          "get_accumulate fetched %ld", fetched);
    fetch_op(win, lock, &one_byte, &old_byte, MPI_UNSIGNED_CHAR, W_BYTE, MPI_SUM, "byte");
    accumulate(win, lock, &one_int, 1, MPI_INT, W_ODD, "unaligned int accumulate");
}

static void check_phase(const char *phase, unsigned char *mem, const long *ticket,
                        const long *swapped)
{
    long total = (long)size * iters;
    long *tickets = gather_sorted(ticket, iters);
    long *swaps = gather_sorted(swapped, iters);
    if (rank == 0) {
        CHECK(load_long(mem, W_MIX) == 2 * total, "%s: mixed word %ld, want %ld", phase,
              load_long(mem, W_MIX), 2 * total);
        for (int w = 1; w < 4; w++)
            CHECK(load_long(mem, W_MIX + 8 * w) == total, "%s: accumulate word %d is %ld",
                  phase, w, load_long(mem, W_MIX + 8 * w));
        CHECK(load_long(mem, W_TICKET) == total, "%s: ticket word %ld", phase,
              load_long(mem, W_TICKET));
        for (long j = 0; j < total; j++)
            CHECK(tickets[j] == j, "%s: sorted ticket #%ld is %ld", phase, j, tickets[j]);
        CHECK(load_long(mem, W_CAS) == total, "%s: compare-and-swap counter %ld, want %ld",
              phase, load_long(mem, W_CAS), total);
        int iv;
        memcpy(&iv, mem + W_INT, sizeof iv);
        CHECK(iv == 2 * size * iters, "%s: int sum %d", phase, iv);
        double dv;
        memcpy(&dv, mem + W_DBL, sizeof dv);
        CHECK(dv == 0.25 * (double)total, "%s: double sum %g", phase, dv);
        /* swapped out: 0 once and every value swapped in but the last */
        long *want = malloc((size_t)(total + 1) * sizeof(long));
        long *got = malloc((size_t)(total + 1) * sizeof(long));
        for (int r = 0; r < size; r++)
            for (int i = 0; i < iters; i++)
                want[r * iters + i] = swap_value(r, i);
        want[total] = 0;
        memcpy(got, swaps, (size_t)total * sizeof(long));
        got[total] = load_long(mem, W_SWAP);
        qsort(want, (size_t)total + 1, sizeof(long), cmp_long);
        qsort(got, (size_t)total + 1, sizeof(long), cmp_long);
        for (long j = 0; j <= total; j++)
            CHECK(got[j] == want[j], "%s: swap #%ld: %ld, want %ld", phase, j, got[j], want[j]);
        free(want);
        free(got);
        CHECK(load_long(mem, W_MAX) == (long)(size - 1) * iters + iters - 1, "%s: max %ld",
              phase, load_long(mem, W_MAX));
        two_int_t loc;
        memcpy(&loc, mem + W_LOC, sizeof loc);
        CHECK(loc.v == 5 && loc.k == 0, "%s: minloc {%d, %d}, want {5, 0}", phase, loc.v, loc.k);
        CHECK(load_long(mem, W_GACC) == 3 * total, "%s: get_accumulate word %ld", phase,
              load_long(mem, W_GACC));
        CHECK(mem[W_BYTE] == (unsigned char)total, "%s: byte %u, want %u", phase, mem[W_BYTE],
              (unsigned char)total);
        memcpy(&iv, mem + W_ODD, sizeof iv);
        CHECK(iv == size * iters, "%s: unaligned int %d", phase, iv);
    }
    free(tickets);
    free(swaps);
}

static void reset(unsigned char *mem, MPI_Win win)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    if (rank == 0) {
        memset(mem, 0, WIN_BYTES);
        two_int_t start = {1000, 99};
        memcpy(mem + W_LOC, &start, sizeof start);
    }
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void never_called(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
    abort();
}

static void errors_phase(MPI_Win win)
{
    long one = 1, got = 42;
    MPI_Op user;
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int rc = MPI_Fetch_and_op(&one, &got, MPI_LONG, 0, 0, MPI_SUM, win);
    CHECK(mt_class(rc) == MPI_ERR_RMA_SYNC, "no epoch: %s", mt_errstr(rc));
    MPI_Win_fence(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Win_unlock(0, win);
    rc = MPI_Fetch_and_op(&one, &got, MPI_LONG, 0, 0, MPI_SUM, win);
    CHECK(mt_class(rc) == MPI_ERR_RMA_SYNC, "fence, lock, unlock, then no epoch: %s",
          mt_errstr(rc));
    CHECK(got == 42, "a refused fetch-and-op wrote its result: %ld", got);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_lock_all(0, win);
    double dnew = 1.0, dcmp = 0.0, dold = 0.0;
    rc = MPI_Compare_and_swap(&dnew, &dcmp, &dold, MPI_DOUBLE, 0, 0, win);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "compare-and-swap on MPI_DOUBLE: %s", mt_errstr(rc));
    MPI_Datatype long_bytes;
    MPI_Type_contiguous((int)sizeof(long), MPI_BYTE, &long_bytes);
    MPI_Type_commit(&long_bytes);
    rc = MPI_Compare_and_swap(&one, &one, &got, long_bytes, 0, 0, win);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "compare-and-swap on a derived type: %s",
          mt_errstr(rc));
    MPI_Type_free(&long_bytes);
    rc = MPI_Fetch_and_op(&one, &got, MPI_LONG, 0, WIN_BYTES - 4, MPI_SUM, win);
    CHECK(mt_class(rc) == MPI_ERR_RMA_RANGE, "past the end: %s", mt_errstr(rc));
    rc = MPI_Compare_and_swap(&one, &one, &got, MPI_LONG, 0, WIN_BYTES, win);
    CHECK(mt_class(rc) == MPI_ERR_RMA_RANGE, "compare-and-swap past the end: %s", mt_errstr(rc));
    rc = MPI_Accumulate(&one, 1, MPI_LONG, 0, -8, 1, MPI_LONG, MPI_SUM, win);
    CHECK(mt_class(rc) == MPI_ERR_RMA_RANGE, "before the start: %s", mt_errstr(rc));
    MPI_Op_create(never_called, 1, &user);
    rc = MPI_Fetch_and_op(&one, &got, MPI_LONG, 0, 0, user, win);
    CHECK(mt_class(rc) == MPI_ERR_OP, "user op: %s", mt_errstr(rc));
    MPI_Op_free(&user);
    rc = MPI_Fetch_and_op(&one, &got, MPI_LONG, MPI_PROC_NULL, 0, MPI_SUM, win);
    CHECK(rc == MPI_SUCCESS && got == 42, "MPI_PROC_NULL: %s, result %ld", mt_errstr(rc), got);
    MPI_Win_unlock_all(win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *how = argc > 1 ? argv[1] : "";
    CHECK(!strcmp(how, "shared") || !strcmp(how, "allocate") || !strcmp(how, "create"),
          "usage: rma_atomic_elem shared|allocate|create");
    MPI_Aint bytes = rank == 0 ? WIN_BYTES : 0;
    unsigned char *mem = NULL, *own = NULL;
    MPI_Win win;
    int rc;
    if (!strcmp(how, "shared")) {
        rc = MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    } else if (!strcmp(how, "allocate")) {
        rc = MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    } else {
        own = mem = calloc(WIN_BYTES, 1);
        rc = MPI_Win_create(mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    CHECK(rc == MPI_SUCCESS, "window: %s", mt_errstr(rc));
    long *ticket = malloc(ITERS_MAX * sizeof(long)), *swapped = malloc(ITERS_MAX * sizeof(long));
    CHECK(ticket && swapped, "out of memory");
    iters = strcmp(how, "create") ? ITERS_MAX : ITERS_MESSAGES;
    if (argc > 2) /* rounds given: fewer when the operations are messages */
        iters = atoi(argv[2]);
    CHECK(iters > 0 && iters <= ITERS_MAX, "rounds %d: 1 to %d", iters, ITERS_MAX);

    reset(mem, win);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < iters; i++)
        one_round(win, i, 0, ticket, swapped);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    check_phase("lock_all", mem, ticket, swapped);

    reset(mem, win);
    for (int i = 0; i < iters; i++)
        one_round(win, i, 1, ticket, swapped);
    MPI_Barrier(MPI_COMM_WORLD);
    check_phase("shared locks", mem, ticket, swapped);

    errors_phase(win);
    MPI_Win_free(&win);
    free(own);
    free(ticket);
    free(swapped);
    if (rank == 0)
        printf("rma_atomic_elem %s: %d ranks x %d rounds exact\n", how, size, iters);
    MPI_Finalize();
    return 0;
}

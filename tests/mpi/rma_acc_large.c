/* Large accumulates land exactly.  Rank 0 is the target; every other rank
 * is an origin.
 *
 *   stream     rounds of: a window created, lock_all, then from each origin
 *              accumulates of 64 KiB to 512 KiB of signed chars (MPI_SUM),
 *              each followed by MPI_Win_flush_local, with the origin data
 *              changed between operations; the target's bytes must be the
 *              exact wrapped sums.  Sizes shrink and grow, so a reused
 *              message buffer holding an older, larger operation's data
 *              would show.
 *   unaligned  ints accumulated at byte displacement 1 of a window of
 *              displacement unit 1, and an odd count of doubles (MPI_MAX)
 *              at an aligned one: exact values, bytes around untouched.
 *   fetch      MPI_Get_accumulate of a large int array, one origin at a
 *              time: the result is the window's content before, the window
 *              the sum after.
 *   strided    a vector target type of doubles (MPI_SUM): covered elements
 *              summed, the gaps untouched.
 *
 * argv[1] "create" uses MPI_Win_create windows, "allocate" MPI_Win_allocate
 * (whose memory other ranks of the node map, so accumulates move directly
 * there unless HCMPI_RMA_DIRECT=0). */
#include "mpitest.h"

#include <stdint.h>

#define MIN_BYTES (64 * 1024)
#define MAX_BYTES (512 * 1024)
#define ROUNDS 3
#define OPS 3

static int rank, size, allocate;

static void win_make(MPI_Aint bytes, int unit, void *mem, void **base, MPI_Win *win)
{
    int rc;
    if (allocate) {
        rc = MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, base, win);
    } else {
        *base = mem;
        rc = MPI_Win_create(mem, bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, win);
    }
    CHECK(rc == MPI_SUCCESS, "window of %ld bytes: %s", (long)bytes, mt_errstr(rc));
}

/* What origin o adds at byte i in its k-th operation of a round. */
static signed char stream_value(int o, int round, int k, int i)
{
    return (signed char)(uint8_t)(o * 13 + round * 7 + k * 5 + i * 3 + 1);
}

static void stream_phase(void)
{
    signed char *mem = calloc(MAX_BYTES, 1), *src = malloc(MAX_BYTES);
    uint8_t *want = calloc(MAX_BYTES, 1);
    CHECK(mem && src && want, "out of memory");
    /* Sizes go up then down: 64, 128, 256, 512, 256, 128, 64 KiB. */
    int sizes[] = {1, 2, 4, 8, 4, 2, 1}, nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    for (int r = 0; r < ROUNDS; r++) {
        void *base = NULL;
        MPI_Win win;
        win_make(MAX_BYTES, 1, mem, &base, &win);
        signed char *target = base;
        if (allocate && rank == 0)
            memcpy(target, mem, MAX_BYTES); /* carry the previous rounds' sums */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock_all(0, win);
        for (int s = 0; rank != 0 && s < nsizes; s++) {
            int n = sizes[s] * MIN_BYTES;
            for (int k = 0; k < OPS; k++) {
                for (int i = 0; i < n; i++)
                    src[i] = stream_value(rank, r, s * OPS + k, i);
                MPI_Accumulate(src, n, MPI_SIGNED_CHAR, 0, 0, n, MPI_SIGNED_CHAR, MPI_SUM, win);
                MPI_Win_flush_local(0, win);
            }
            MPI_Win_flush(0, win);
        }
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            for (int s = 0; s < nsizes; s++)
                for (int k = 0; k < OPS; k++)
                    for (int o = 1; o < size; o++)
                        for (int i = 0; i < sizes[s] * MIN_BYTES; i++)
                            want[i] += (uint8_t)stream_value(o, r, s * OPS + k, i);
            for (int i = 0; i < MAX_BYTES; i++)
                CHECK((uint8_t)target[i] == want[i], "round %d byte %d: %u, want %u", r, i,
                      (uint8_t)target[i], want[i]);
            memcpy(mem, target, MAX_BYTES);
        }
        MPI_Win_free(&win);
    }
    free(mem);
    free(src);
    free(want);
}

#define UNALIGNED_INTS 40001
#define ODD_DOUBLES 30001

static void unaligned_phase(void)
{
    size_t ibytes = UNALIGNED_INTS * sizeof(int), dbytes = ODD_DOUBLES * sizeof(double);
    /* [0] pad, [1, 1 + ibytes) ints, pad to 8, doubles, 8 spare bytes */
    size_t doff = (1 + ibytes + 7) / 8 * 8, total = doff + dbytes + 8;
    unsigned char *mem = calloc(total, 1), *t = NULL;
    int *ints = malloc(ibytes);
    double *dbl = malloc(dbytes);
    CHECK(mem && ints && dbl, "out of memory");
    MPI_Win win;
    win_make((MPI_Aint)total, 1, mem, (void **)&t, &win);
    if (rank == 0)
        memset(t, 0xAB, total);
    for (int i = 0; i < UNALIGNED_INTS; i++)
        ints[i] = rank * 1000 + i;
    for (int i = 0; i < ODD_DOUBLES; i++)
        dbl[i] = rank == 0 ? -1e300 : (double)(rank * 3 + i % 17) - 0.5;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) { /* start the ints from zero, the doubles from rank 0's data */
        memset(t + 1, 0, ibytes);
        memcpy(t + doff, dbl, dbytes);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank != 0) {
        MPI_Accumulate(ints, UNALIGNED_INTS, MPI_INT, 0, 1, UNALIGNED_INTS, MPI_INT, MPI_SUM, win);
        MPI_Win_flush_local(0, win);
        MPI_Accumulate(dbl, ODD_DOUBLES, MPI_DOUBLE, 0, (MPI_Aint)doff, ODD_DOUBLES, MPI_DOUBLE,
                       MPI_MAX, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(t[0] == 0xAB, "byte before the ints changed: %u", t[0]);
        for (int i = 0; i < UNALIGNED_INTS; i++) {
            int got, want = 0;
            memcpy(&got, t + 1 + (size_t)i * sizeof(int), sizeof got);
            for (int o = 1; o < size; o++)
                want += o * 1000 + i;
            CHECK(got == want, "unaligned int %d: %d, want %d", i, got, want);
        }
        for (size_t b = 1 + ibytes; b < doff; b++)
            CHECK(t[b] == 0xAB, "padding byte %zu changed: %u", b, t[b]);
        for (int i = 0; i < ODD_DOUBLES; i++) {
            double got, want = (double)((size - 1) * 3 + i % 17) - 0.5;
            memcpy(&got, t + doff + (size_t)i * sizeof(double), sizeof got);
            CHECK(got == want, "max of double %d: %g, want %g", i, got, want);
        }
        for (size_t b = doff + dbytes; b < total; b++)
            CHECK(t[b] == 0xAB, "byte %zu after the doubles changed: %u", b, t[b]);
    }
    MPI_Win_free(&win);
    free(mem);
    free(ints);
    free(dbl);
}

#define FETCH_INTS (96 * 1024)

static void fetch_phase(void)
{
    int *mem = calloc(FETCH_INTS, sizeof(int)), *add = malloc(FETCH_INTS * sizeof(int));
    int *old = malloc(FETCH_INTS * sizeof(int)), *t = NULL;
    CHECK(mem && add && old, "out of memory");
    MPI_Win win;
    win_make(FETCH_INTS * sizeof(int), sizeof(int), mem, (void **)&t, &win);
    if (rank == 0)
        for (int i = 0; i < FETCH_INTS; i++)
            t[i] = i;
    for (int i = 0; i < FETCH_INTS; i++)
        add[i] = rank * 100000 + i % 1000;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int o = 1; o < size; o++) { /* one origin at a time: old values known */
        if (rank == o) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Get_accumulate(add, FETCH_INTS, MPI_INT, old, FETCH_INTS, MPI_INT, 0, 0,
                               FETCH_INTS, MPI_INT, MPI_SUM, win);
            MPI_Win_unlock(0, win);
            for (int i = 0; i < FETCH_INTS; i++) {
                int want = i;
                for (int p = 1; p < o; p++)
                    want += p * 100000 + i % 1000;
                CHECK(old[i] == want, "origin %d fetched %d at %d, want %d", o, old[i], i, want);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        for (int i = 0; i < FETCH_INTS; i++) {
            int want = i;
            for (int p = 1; p < size; p++)
                want += p * 100000 + i % 1000;
            CHECK(t[i] == want, "int %d after the fetches: %d, want %d", i, t[i], want);
        }
    MPI_Win_free(&win);
    free(mem);
    free(add);
    free(old);
}

#define STRIDED_BLOCKS 10000 /* of 2 doubles every 3 */

static void strided_phase(void)
{
    size_t n = 3 * STRIDED_BLOCKS;
    double *mem = calloc(n, sizeof(double)), *src = malloc(2 * STRIDED_BLOCKS * sizeof(double));
    double *t = NULL;
    CHECK(mem && src, "out of memory");
    MPI_Win win;
    win_make((MPI_Aint)(n * sizeof(double)), sizeof(double), mem, (void **)&t, &win);
    if (rank == 0)
        for (size_t i = 0; i < n; i++)
            t[i] = -(double)i;
    for (int i = 0; i < 2 * STRIDED_BLOCKS; i++)
        src[i] = rank + 0.25 * (i % 8);
    MPI_Datatype vec;
    MPI_Type_vector(STRIDED_BLOCKS, 2, 3, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank != 0)
        MPI_Accumulate(src, 2 * STRIDED_BLOCKS, MPI_DOUBLE, 0, 0, 1, vec, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (size_t i = 0; i < n; i++) {
            double want = -(double)i;
            if (i % 3 != 2) {
                size_t j = i / 3 * 2 + i % 3; /* index in the origin's data */
                for (int o = 1; o < size; o++)
                    want += o + 0.25 * (double)(j % 8);
            }
            CHECK(t[i] == want, "strided element %zu: %g, want %g", i, t[i], want);
        }
    MPI_Type_free(&vec);
    MPI_Win_free(&win);
    free(mem);
    free(src);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc > 1 && (!strcmp(argv[1], "create") || !strcmp(argv[1], "allocate")),
          "usage: rma_acc_large create|allocate");
    allocate = !strcmp(argv[1], "allocate");
    CHECK(size >= 2, "needs 2 ranks or more");
    stream_phase();
    unaligned_phase();
    fetch_phase();
    strided_phase();
    if (rank == 0)
        printf("rma_acc_large %s: %d origins, sums exact\n", argv[1], size - 1);
    MPI_Finalize();
    return 0;
}

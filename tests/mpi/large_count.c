/* Counts above 2^31 end to end (MPI-4 large counts): one message of
 * 2^31 + 8 MPI_BYTEs between two ranks with MPI_Send_c / MPI_Recv_c, and
 * one MPI_Bcast_c of as many bytes.  Every byte is checked (a cheap
 * per-word pattern), and the status says the count through
 * MPI_Get_count_c, while the int forms MPI_Get_count / MPI_Get_elements,
 * which cannot hold it, say MPI_UNDEFINED.
 *
 * usage: large_count p2p | bcast   (the .sh checks the memory first) */
#include "mpitest.h"

#include <stdint.h>

#define BIG_BYTES (((MPI_Count)1 << 31) + 8)

/* Word i of message seed: distinct per word and per message. */
static uint64_t big_word(size_t i, unsigned seed)
{
    return (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 56);
}

static void big_fill(unsigned char *buf, unsigned seed)
{
    uint64_t *w = (uint64_t *)buf;
    for (size_t i = 0; i < (size_t)BIG_BYTES / 8; i++)
        w[i] = big_word(i, seed);
}

/* Index of the first wrong word, or -1. */
static long long big_check(const unsigned char *buf, unsigned seed)
{
    const uint64_t *w = (const uint64_t *)buf;
    for (size_t i = 0; i < (size_t)BIG_BYTES / 8; i++)
        if (w[i] != big_word(i, seed))
            return (long long)i;
    return -1;
}

static void check_status_count(const MPI_Status *st)
{
    MPI_Count n = -1;
    int small = 0;
    CHECK(MPI_Get_count_c(st, MPI_BYTE, &n) == MPI_SUCCESS, "Get_count_c");
    CHECK(n == BIG_BYTES, "Get_count_c says %lld", (long long)n);
    CHECK(MPI_Get_elements_c(st, MPI_BYTE, &n) == MPI_SUCCESS, "Get_elements_c");
    CHECK(n == BIG_BYTES, "Get_elements_c says %lld", (long long)n);
    CHECK(MPI_Get_count(st, MPI_BYTE, &small) == MPI_SUCCESS, "Get_count");
    CHECK(small == MPI_UNDEFINED, "Get_count says %d for 2^31+8 bytes", small);
    CHECK(MPI_Get_elements(st, MPI_BYTE, &small) == MPI_SUCCESS, "Get_elements");
    CHECK(small == MPI_UNDEFINED, "Get_elements says %d", small);
    /* 2^29 + 2 ints fit an int count again. */
    CHECK(MPI_Get_count(st, MPI_INT, &small) == MPI_SUCCESS, "Get_count int");
    CHECK(small == (1 << 29) + 2, "Get_count of MPI_INT says %d", small);
}

static void test_p2p(int rank)
{
    unsigned char *buf = mt_malloc((size_t)BIG_BYTES);
    if (rank == 0) {
        big_fill(buf, 7);
        CHECK(MPI_Send_c(buf, BIG_BYTES, MPI_BYTE, 1, 5, MPI_COMM_WORLD) == MPI_SUCCESS,
              "MPI_Send_c");
    } else if (rank == 1) {
        memset(buf, 0, (size_t)BIG_BYTES);
        MPI_Status st;
        CHECK(MPI_Recv_c(buf, BIG_BYTES, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st) == MPI_SUCCESS,
              "MPI_Recv_c");
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 5, "status source %d tag %d", st.MPI_SOURCE,
              st.MPI_TAG);
        long long bad = big_check(buf, 7);
        CHECK(bad < 0, "word %lld of the message is wrong", bad);
        check_status_count(&st);
    }
    free(buf);
}

static void test_bcast(int rank)
{
    unsigned char *buf = mt_malloc((size_t)BIG_BYTES);
    if (rank == 0)
        big_fill(buf, 11);
    else
        memset(buf, 0, (size_t)BIG_BYTES);
    CHECK(MPI_Bcast_c(buf, BIG_BYTES, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "Bcast_c");
    long long bad = big_check(buf, 11);
    CHECK(bad < 0, "word %lld of the broadcast is wrong", bad);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *what = argc > 1 ? argv[1] : "p2p";
    if (strcmp(what, "p2p") == 0)
        test_p2p(rank);
    else if (strcmp(what, "bcast") == 0)
        test_bcast(rank);
    else
        CHECK(0, "unknown scenario %s", what);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_count %s: ok\n", what);
    MPI_Finalize();
    return 0;
}

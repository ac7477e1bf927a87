/* Rendezvous messages at every boundary of the streamed path and of the
 * switch between streaming and single-copy reads: sizes one byte either
 * side of multiples of the DATA fragment (a shm cell less the 64-byte
 * packet header, for the cell sizes the scenarios set), of the send pool's
 * length in fragments, of the eager limit and of the CMA thresholds the
 * scenarios set, and odd sizes besides.
 *   1. ping-pong of each size, checked bytes, guard bytes, status, count;
 *   2. all sizes in flight at once in both directions (each rank posts
 *      every receive, half of them MPI_ANY_SOURCE, then every send), each
 *      buffer checked with its status;
 *   3. MPI_Probe of a streamed message before its receive: the probe's
 *      count is the message's.
 * With the argument "read" (hcmpi only: its MPI_T counters), ranks 0 and 1
 * also check that every rendezvous they received was read by a single-copy
 * get and none streamed, as when a rank waits for a core
 * (HCMPI_SHM_STREAM_RUNQ_MAX=0).
 * Ranks above 1 only take part in the final barrier. */
#include "mpitest.h"

#define SB_MAX ((size_t)5 << 20)
#define SB_GUARD 64u
#define SB_HEADER 64u
#define SB_SIZES_MAX 256

static size_t sb_sizes[SB_SIZES_MAX];
static int sb_nsizes;

static void sb_add(size_t n) {
  if (n == 0 || n > SB_MAX || sb_nsizes == SB_SIZES_MAX)
    return;
  for (int i = 0; i < sb_nsizes; i++)
    if (sb_sizes[i] == n)
      return;
  sb_sizes[sb_nsizes++] = n;
}

static void sb_add_around(size_t n) {
  sb_add(n - 1);
  sb_add(n);
  sb_add(n + 1);
}

static void sb_build_sizes(void) {
  /* The cell sizes the scenarios use (4 KiB, the 16 KiB default). */
  static const size_t cells[] = {4096, 16384};
  /* Fragments per message: one, two, a pool of 8 and of 64 cells, and
   * one past each, where the sender waits for cells handed back. */
  static const size_t counts[] = {1, 2, 3, 7, 8, 9, 63, 64, 65, 129};
  for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++)
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
      sb_add_around(counts[k] * (cells[c] - SB_HEADER));
  /* Eager limit, the CMA thresholds of the scenarios, powers of two. */
  static const size_t marks[] = {16384, 65536, 262144, 1 << 20, 4 << 20};
  for (size_t m = 0; m < sizeof marks / sizeof marks[0]; m++)
    sb_add_around(marks[m]);
  static const size_t odd[] = {16411, 100003, 777777, 1234567, 3333331};
  for (size_t m = 0; m < sizeof odd / sizeof odd[0]; m++)
    sb_add(odd[m]);
}

static unsigned sb_seed(size_t n, int from, unsigned salt) {
  return (unsigned)(n * 31u + (size_t)from * 7u + salt);
}

static void sb_check(const unsigned char *buf, size_t n, unsigned seed,
                     const MPI_Status *st, int src, int tag, const char *what) {
  size_t bad = mt_verify(buf, n, seed);
  CHECK(bad == MT_OK, "%s, size %zu: byte %zu is 0x%02x, want 0x%02x", what, n,
        bad, buf[bad], mt_pattern_byte(bad, seed));
  for (size_t i = n; i < n + SB_GUARD; i++)
    CHECK(buf[i] == 0xA5, "%s, size %zu: guard byte %zu overwritten (0x%02x)",
          what, n, i - n, buf[i]);
  CHECK(st->MPI_SOURCE == src, "%s, size %zu: MPI_SOURCE %d, want %d", what, n,
        st->MPI_SOURCE, src);
  CHECK(st->MPI_TAG == tag, "%s, size %zu: MPI_TAG %d, want %d", what, n,
        st->MPI_TAG, tag);
  int count = mt_status_count(st, MPI_BYTE);
  CHECK(count == (int)n, "%s, size %zu: MPI_Get_count %d", what, n, count);
}

static void sb_pingpong(int rank, unsigned char *sbuf, unsigned char *rbuf) {
  int peer = 1 - rank;
  for (int i = 0; i < sb_nsizes; i++) {
    size_t n = sb_sizes[i];
    MPI_Status st;
    mt_fill(sbuf, n, sb_seed(n, rank, 1));
    memset(rbuf, 0xA5, n + SB_GUARD);
    if (rank == 0) {
      MPI_Send(sbuf, (int)n, MPI_BYTE, peer, i, MPI_COMM_WORLD);
      MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, i, MPI_COMM_WORLD, &st);
    } else {
      MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, i, MPI_COMM_WORLD, &st);
      MPI_Send(sbuf, (int)n, MPI_BYTE, peer, i, MPI_COMM_WORLD);
    }
    sb_check(rbuf, n, sb_seed(n, peer, 1), &st, peer, i, "ping-pong");
  }
}

/* Every size at once, both ways: each rank's sends stream into the peer
 * while the peer's stream into it, so both send pools fill and drain
 * together and many rendezvous wait for their turn. */
static void sb_all_in_flight(int rank, unsigned char **sbufs,
                             unsigned char **rbufs) {
  int peer = 1 - rank, n = sb_nsizes;
  MPI_Request *reqs = mt_malloc(2 * (size_t)n * sizeof *reqs);
  MPI_Status *sts = mt_malloc(2 * (size_t)n * sizeof *sts);
  for (int i = 0; i < n; i++) {
    memset(rbufs[i], 0xA5, sb_sizes[i] + SB_GUARD);
    mt_fill(sbufs[i], sb_sizes[i], sb_seed(sb_sizes[i], rank, 2));
    /* Tags tell the messages apart, so a wildcard source still
     * matches exactly one. */
    int src = i % 2 ? MPI_ANY_SOURCE : peer;
    MPI_Irecv(rbufs[i], (int)sb_sizes[i], MPI_BYTE, src, 5000 + i,
              MPI_COMM_WORLD, &reqs[i]);
  }
  MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 1, NULL, 0, MPI_BYTE, peer, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++) {
    int k = rank == 0 ? i : n - 1 - i; /* the two ranks in opposite orders */
    MPI_Isend(sbufs[k], (int)sb_sizes[k], MPI_BYTE, peer, 5000 + k,
              MPI_COMM_WORLD, &reqs[n + i]);
  }
  int rc = MPI_Waitall(2 * n, reqs, sts);
  CHECK(rc == MPI_SUCCESS, "all in flight: MPI_Waitall returned %d", rc);
  for (int i = 0; i < n; i++)
    sb_check(rbufs[i], sb_sizes[i], sb_seed(sb_sizes[i], peer, 2), &sts[i],
             peer, 5000 + i, "all in flight");
  free(reqs);
  free(sts);
}

/* Rank 0 sends; rank 1 probes each message, then receives it. */
static void sb_probe_first(int rank, unsigned char *sbuf, unsigned char *rbuf) {
  for (int i = 0; i < sb_nsizes; i += 5) {
    size_t n = sb_sizes[i];
    MPI_Status st;
    if (rank == 0) {
      mt_fill(sbuf, n, sb_seed(n, 0, 3));
      MPI_Send(sbuf, (int)n, MPI_BYTE, 1, 9000 + i, MPI_COMM_WORLD);
      continue;
    }
    memset(rbuf, 0xA5, n + SB_GUARD);
    MPI_Probe(MPI_ANY_SOURCE, 9000 + i, MPI_COMM_WORLD, &st);
    int count = mt_status_count(&st, MPI_BYTE);
    CHECK(count == (int)n && st.MPI_SOURCE == 0,
          "probe, size %zu: count %d from %d", n, count, st.MPI_SOURCE);
    MPI_Recv(rbuf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
             &st);
    sb_check(rbuf, n, sb_seed(n, 0, 3), &st, 0, 9000 + i, "probe");
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs at least 2 ranks, got %d", size);
  sb_build_sizes();
  unsigned char *sbuf = mt_malloc(SB_MAX + SB_GUARD);
  unsigned char *rbuf = mt_malloc(SB_MAX + SB_GUARD);
  unsigned char **sbufs = mt_malloc((size_t)sb_nsizes * sizeof *sbufs);
  unsigned char **rbufs = mt_malloc((size_t)sb_nsizes * sizeof *rbufs);
  size_t total = 0;
  for (int i = 0; i < sb_nsizes; i++) {
    sbufs[i] = mt_malloc(sb_sizes[i]);
    rbufs[i] = mt_malloc(sb_sizes[i] + SB_GUARD);
    total += sb_sizes[i];
  }
  int read_only = argc > 1 && strcmp(argv[1], "read") == 0;
  static const char *const counter_names[2] = {"rndv_get_messages",
                                               "rndv_pipelined_messages"};
  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
  MPI_T_pvar_handle counters[2];
  unsigned long long got0 = 0, piped0 = 0;
  if (read_only) {
    int provided;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS,
          "MPI_T_init_thread");
    mt_counters_open(&session, 2, counter_names, counters);
    got0 = mt_counters_sum(session, 1, &counters[0]);
    piped0 = mt_counters_sum(session, 1, &counters[1]);
  }
  if (rank < 2) {
    sb_pingpong(rank, sbuf, rbuf);
    sb_all_in_flight(rank, sbufs, rbufs);
    sb_probe_first(rank, sbuf, rbuf);
  }
  if (read_only) {
    unsigned long long got = mt_counters_sum(session, 1, &counters[0]) - got0;
    unsigned long long piped =
        mt_counters_sum(session, 1, &counters[1]) - piped0;
    /* Where CMA is refused (a ptrace policy) every one streams instead. */
    if (rank < 2 && got == 0)
      printf("rndv_stream_bounds: rank %d read none (CMA refused?): path not "
             "checked\n",
             rank);
    CHECK(rank >= 2 || got == 0 || piped == 0,
          "rank %d: %llu rendezvous read, %llu streamed; want all read", rank,
          got, piped);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("rndv_stream_bounds: %d sizes up to %zu B (%zu B in flight each "
           "way): OK\n",
           sb_nsizes, SB_MAX, total);
  for (int i = 0; i < sb_nsizes; i++) {
    free(sbufs[i]);
    free(rbufs[i]);
  }
  free(sbufs);
  free(rbufs);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}

/* Shared helpers for the hcmpi benchmarks (bench/).
 *
 * The benchmarks use only standard MPI point-to-point calls and
 * MPI_Barrier, so that the same source builds against hcmpi, MPICH and
 * Open MPI and measures the same work under each.  Timing uses
 * clock_gettime(CLOCK_MONOTONIC) rather than MPI_Wtime so the clock is
 * identical for every implementation and reading it never drives MPI
 * progress. */
#ifndef HC_BENCH_COMMON_H
#define HC_BENCH_COMMON_H

#include <stddef.h>

#define BENCH_MAX_SIZES 64

/* Options common to every benchmark; each program fills its own defaults
 * before calling bench_parse(). */
typedef struct bench_opts {
  size_t sizes[BENCH_MAX_SIZES]; /* message sizes in bytes, ascending */
  int nsizes;
  int reps;     /* timed repetitions per size (statistics are over these) */
  int iters;    /* iterations per repetition for sizes <= 8 KiB */
  int warmup;   /* untimed iterations per size before the repetitions */
  int window;   /* messages in flight per window (bandwidth, msgrate) */
  int bidir;    /* bandwidth: both directions at once */
  int distinct; /* bandwidth/msgrate: one receive buffer per window slot */
  const char *call; /* collective: which MPI call (-c NAME) */
} bench_opts_t;

/* Summary of the per-repetition values of one size. */
typedef struct bench_stats {
  double median;
  double min;
  double max;
  double p10;
  double p90;
} bench_stats_t;

/* Roles in the pairing used by every benchmark: with N ranks, rank i < N/2
 * is paired with i + N/2; an odd last rank sits out. */
enum bench_role { BENCH_IDLE = -1, BENCH_INITIATOR = 0, BENCH_RESPONDER = 1 };

/* Parses argv.  usage_extra describes program-specific flags for -h.
 * Returns 0 on success, 1 when the program should exit quietly (-h), and
 * -1 on a bad argument (a message has been printed on stderr). */
int bench_parse(int argc, char **argv, bench_opts_t *opts,
                const char *usage_extra);

/* Fills sizes with the powers of two in [lo, hi]. */
void bench_size_range(bench_opts_t *opts, size_t lo, size_t hi);

/* Largest entry of opts->sizes (a -s list need not be sorted). */
size_t bench_max_size(const bench_opts_t *opts);

/* Iterations for one repetition at this size: opts->iters up to 8 KiB,
 * then opts->iters * sqrt(8 KiB / size) so large messages do not dominate
 * the run time, but never below min_iters. */
int bench_iters(const bench_opts_t *opts, size_t size, int min_iters);

/* Microseconds on the monotonic clock. */
double bench_now_us(void);

/* Sorts vals in place and summarises them. */
void bench_stats(double *vals, int n, bench_stats_t *out);

/* This rank's role and, unless idle, its peer. */
enum bench_role bench_pair(int rank, int nranks, int *peer);

/* Page-aligned, pre-touched buffer; aborts the job when out of memory. */
void *bench_alloc(size_t bytes);

/* Sends v from every rank to rank 0, which stores them in all[nranks].
 * Uses point-to-point only, so no collective beyond MPI_Barrier is needed. */
void bench_gather_double(double v, double *all, int rank, int nranks);

/* One timed repetition of the window pattern between a pair: the
 * initiator posts opts->window MPI_Isend of size bytes and waits for all,
 * the responder posts as many MPI_Irecv and answers each window with a
 * zero-byte ack.  With opts->bidir both sides send and receive a window at
 * once and there is no ack.  rbuf holds one message, or opts->window of
 * them with opts->distinct.  Returns the elapsed microseconds (meaningful
 * on the initiator; 0 on idle ranks). */
double bench_window_rep(const bench_opts_t *opts, enum bench_role role,
                        int peer, char *sbuf, char *rbuf, size_t size,
                        int iters);

/* Prints a '#' comment line describing the run (rank 0 only). */
void bench_print_header(const char *bench, const bench_opts_t *opts,
                        int nranks);

/* The index of name among names[n] (a -c argument), or -1. */
int bench_lookup(const char *const *names, int n, const char *name);

/* Aborts the MPI job with a message when rc is not MPI_SUCCESS. */
void bench_check(int rc, const char *what);

#endif

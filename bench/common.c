/* Shared helpers for the hcmpi benchmarks; see common.h. */
#include "common.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Above this size a repetition runs fewer iterations, in proportion. */
#define BENCH_SCALE_FROM 8192

static void bench_usage(const char *prog, const char *extra) {
  fprintf(stderr,
          "usage: %s [options]\n"
          "  -m LO:HI   sizes: powers of two from LO to HI bytes\n"
          "  -s A,B,..  sizes: explicit list of byte counts\n"
          "  -r R       timed repetitions per size\n"
          "  -i K       iterations per repetition (<= 8 KiB; scaled above)\n"
          "  -w W       warm-up iterations per size\n"
          "%s",
          prog, extra ? extra : "");
}

static int bench_parse_size(const char *s, size_t *out) {
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s)
    return -1;
  /* Accept K/M suffixes (binary) because 16M is easier to type than
   * 16777216. */
  if (*end == 'K' || *end == 'k') {
    v <<= 10;
    end++;
  } else if (*end == 'M' || *end == 'm') {
    v <<= 20;
    end++;
  }
  if (*end != '\0' && *end != ':' && *end != ',')
    return -1;
  *out = (size_t)v;
  return 0;
}

void bench_size_range(bench_opts_t *opts, size_t lo, size_t hi) {
  size_t s = 1;
  opts->nsizes = 0;
  while (s < lo)
    s <<= 1;
  for (; s <= hi && opts->nsizes < BENCH_MAX_SIZES; s <<= 1)
    opts->sizes[opts->nsizes++] = s;
}

static int bench_parse_range(bench_opts_t *opts, const char *arg) {
  size_t lo, hi;
  const char *colon = strchr(arg, ':');
  if (!colon || bench_parse_size(arg, &lo) || bench_parse_size(colon + 1, &hi))
    return -1;
  if (lo > hi)
    return -1;
  bench_size_range(opts, lo, hi);
  return opts->nsizes > 0 ? 0 : -1;
}

static int bench_parse_list(bench_opts_t *opts, const char *arg) {
  const char *p = arg;
  opts->nsizes = 0;
  while (*p && opts->nsizes < BENCH_MAX_SIZES) {
    if (bench_parse_size(p, &opts->sizes[opts->nsizes]))
      return -1;
    opts->nsizes++;
    p = strchr(p, ',');
    if (!p)
      break;
    p++;
  }
  return opts->nsizes > 0 ? 0 : -1;
}

static int bench_parse_int(const char *arg, int min, int *out) {
  char *end = NULL;
  long v = strtol(arg, &end, 10);
  if (end == arg || *end != '\0' || v < min || v > 100000000L)
    return -1;
  *out = (int)v;
  return 0;
}

static int bench_parse_one(bench_opts_t *opts, int c, const char *arg) {
  switch (c) {
  case 'm':
    return bench_parse_range(opts, arg);
  case 's':
    return bench_parse_list(opts, arg);
  case 'r':
    return bench_parse_int(arg, 1, &opts->reps);
  case 'i':
    return bench_parse_int(arg, 1, &opts->iters);
  case 'w':
    return bench_parse_int(arg, 0, &opts->warmup);
  case 'W':
    return bench_parse_int(arg, 1, &opts->window);
  case 'b':
    opts->bidir = 1;
    return 0;
  case 'd':
    opts->distinct = 1;
    return 0;
  case 'c':
    opts->call = arg;
    return 0;
  default:
    return -1;
  }
}

int bench_parse(int argc, char **argv, bench_opts_t *opts,
                const char *usage_extra) {
  int c;
  opterr = 0;
  while ((c = getopt(argc, argv, "m:s:r:i:w:W:c:bdh")) != -1) {
    if (c == 'h') {
      bench_usage(argv[0], usage_extra);
      return 1;
    }
    if (c == '?' || bench_parse_one(opts, c, optarg)) {
      fprintf(stderr, "%s: bad option -%c\n", argv[0], c == '?' ? optopt : c);
      bench_usage(argv[0], usage_extra);
      return -1;
    }
  }
  return 0;
}

int bench_iters(const bench_opts_t *opts, size_t size, int min_iters) {
  /* Scale by about sqrt(8 KiB / size): large messages still get enough
   * iterations to average out one slow transfer, without 16 MiB costing
   * 2048 times as long as 8 KiB.  The root is taken by halving per factor
   * of four (then a linear step) so the programs need no libm, which MPI
   * compile wrappers do not link. */
  double ratio = (double)size / BENCH_SCALE_FROM, scale = 1.0;
  long n;
  for (; ratio >= 4.0; ratio /= 4.0)
    scale *= 0.5;
  if (ratio > 1.0)
    scale /= 1.0 + (ratio - 1.0) * 0.4142;
  n = (long)(opts->iters * scale);
  return n < min_iters ? min_iters : (int)n;
}

double bench_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Nearest-rank percentile on sorted values. */
static double bench_pct(const double *sorted, int n, double pct) {
  int idx = (int)(pct / 100.0 * n + 0.999999) - 1;
  if (idx < 0)
    idx = 0;
  if (idx >= n)
    idx = n - 1;
  return sorted[idx];
}

void bench_stats(double *vals, int n, bench_stats_t *out) {
  qsort(vals, (size_t)n, sizeof(*vals), bench_cmp_double);
  out->min = vals[0];
  out->max = vals[n - 1];
  out->median = (n % 2) ? vals[n / 2] : 0.5 * (vals[n / 2 - 1] + vals[n / 2]);
  out->p10 = bench_pct(vals, n, 10.0);
  out->p90 = bench_pct(vals, n, 90.0);
}

enum bench_role bench_pair(int rank, int nranks, int *peer) {
  int half = nranks / 2;
  if (rank < half) {
    *peer = rank + half;
    return BENCH_INITIATOR;
  }
  if (rank < 2 * half) {
    *peer = rank - half;
    return BENCH_RESPONDER;
  }
  *peer = -1;
  return BENCH_IDLE;
}

void *bench_alloc(size_t bytes) {
  void *p = NULL;
  if (bytes == 0)
    bytes = 1;
  if (posix_memalign(&p, 4096, bytes) != 0) {
    fprintf(stderr, "bench: cannot allocate %zu bytes\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* Touch every page now so first-touch faults stay out of the timings. */
  memset(p, 0xa5, bytes);
  return p;
}

void bench_gather_double(double v, double *all, int rank, int nranks) {
  const int tag = 4242;
  if (rank != 0) {
    bench_check(MPI_Send(&v, 1, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD),
                "MPI_Send(gather)");
    return;
  }
  all[0] = v;
  for (int r = 1; r < nranks; r++)
    bench_check(MPI_Recv(&all[r], 1, MPI_DOUBLE, r, tag, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE),
                "MPI_Recv(gather)");
}

void bench_print_header(const char *bench, const bench_opts_t *opts,
                        int nranks) {
  printf("# bench=%s ranks=%d reps=%d iters=%d warmup=%d window=%d%s%s\n",
         bench, nranks, opts->reps, opts->iters, opts->warmup, opts->window,
         opts->bidir ? " bidir" : "", opts->distinct ? " distinct" : "");
  fflush(stdout);
}

void bench_check(int rc, const char *what) {
  if (rc == MPI_SUCCESS)
    return;
  fprintf(stderr, "bench: %s failed (rc=%d)\n", what, rc);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

size_t bench_max_size(const bench_opts_t *opts) {
  size_t m = 0;
  for (int i = 0; i < opts->nsizes; i++)
    if (opts->sizes[i] > m)
      m = opts->sizes[i];
  return m;
}

#define BENCH_WIN_TAG 2
#define BENCH_ACK_TAG 3

static void bench_post_recvs(const bench_opts_t *o, int peer, char *rbuf,
                             size_t size, MPI_Request *req) {
  for (int w = 0; w < o->window; w++) {
    char *dst = o->distinct ? rbuf + (size_t)w * size : rbuf;
    bench_check(MPI_Irecv(dst, (int)size, MPI_BYTE, peer, BENCH_WIN_TAG,
                          MPI_COMM_WORLD, &req[w]),
                "MPI_Irecv");
  }
}

static void bench_post_sends(const bench_opts_t *o, int peer, char *sbuf,
                             size_t size, MPI_Request *req) {
  /* Every send of a window reads the same buffer, which MPI-3 allows. */
  for (int w = 0; w < o->window; w++)
    bench_check(MPI_Isend(sbuf, (int)size, MPI_BYTE, peer, BENCH_WIN_TAG,
                          MPI_COMM_WORLD, &req[w]),
                "MPI_Isend");
}

static void bench_window_once(const bench_opts_t *o, enum bench_role role,
                              int peer, char *sbuf, char *rbuf, size_t size,
                              MPI_Request *req) {
  int n = o->window;
  if (o->bidir) {
    bench_post_recvs(o, peer, rbuf, size, req);
    bench_post_sends(o, peer, sbuf, size, req + n);
    bench_check(MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
  } else if (role == BENCH_INITIATOR) {
    bench_post_sends(o, peer, sbuf, size, req);
    bench_check(MPI_Waitall(n, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
    bench_check(MPI_Recv(NULL, 0, MPI_BYTE, peer, BENCH_ACK_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE),
                "MPI_Recv(ack)");
  } else {
    bench_post_recvs(o, peer, rbuf, size, req);
    bench_check(MPI_Waitall(n, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
    bench_check(
        MPI_Send(NULL, 0, MPI_BYTE, peer, BENCH_ACK_TAG, MPI_COMM_WORLD),
        "MPI_Send(ack)");
  }
}

double bench_window_rep(const bench_opts_t *opts, enum bench_role role,
                        int peer, char *sbuf, char *rbuf, size_t size,
                        int iters) {
  MPI_Request *req;
  double t0;

  if (role == BENCH_IDLE)
    return 0.0;
  req = malloc(2 * (size_t)opts->window * sizeof(*req));
  if (!req)
    MPI_Abort(MPI_COMM_WORLD, 2);
  t0 = bench_now_us();
  for (int i = 0; i < iters; i++)
    bench_window_once(opts, role, peer, sbuf, rbuf, size, req);
  t0 = bench_now_us() - t0;
  free(req);
  return t0;
}

int bench_lookup(const char *const *names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(name, names[i]) == 0)
      return i;
  return -1;
}

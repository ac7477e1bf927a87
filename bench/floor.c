/* Physical floors of this machine, measured in the same session as the
 * MPI runs (no MPI here):
 *   memcpy: single-core copy bandwidth per size (bytes copied / time);
 *   cma:    process_vm_readv from a child process per size (single copy
 *           across address spaces, what a rendezvous can reach);
 *   pp:     one-way time of a cache-line ping-pong between two processes
 *           spinning on a shared line (the floor of any shm latency).
 *
 * Output, one line per measure and size:
 *   bench=floor_memcpy size=B median_MBps=.. min_MBps=.. max_MBps=.. reps=R
 *   bench=floor_cma size=B median_MBps=.. ...
 *   bench=floor_pp size=64 median_us=.. min_us=.. p90_us=.. reps=R iters=K
 * Flags: -s/-m sizes, -r repetitions, -i ping-pong round trips per rep. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_MAX_SIZES 64
#define FLOOR_MAX_REPS 101

static double floor_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int floor_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void floor_print(const char *what, size_t size, double *v, int n,
                        const char *unit, const char *extra) {
  qsort(v, (size_t)n, sizeof *v, floor_cmp);
  double hi = !strcmp(unit, "us") ? v[(n * 9) / 10] : v[n - 1];
  printf("bench=%s size=%zu median_%s=%.3f min_%s=%.3f %s_%s=%.3f reps=%d%s\n",
         what, size, unit, v[n / 2], unit, v[0],
         !strcmp(unit, "us") ? "p90" : "max", unit, hi, n, extra);
}

static void *floor_alloc(size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, n) != 0) {
    perror("posix_memalign");
    exit(1);
  }
  memset(p, 1, n);
  return p;
}

/* Copies per repetition: enough to run about a millisecond. */
static int floor_copies(size_t size) {
  size_t n = ((size_t)8 << 20) / (size ? size : 1);
  return n < 1 ? 1 : n > 100000 ? 100000 : (int)n;
}

static void floor_memcpy(const size_t *sizes, int nsizes, int reps) {
  size_t max = sizes[nsizes - 1];
  char *a = floor_alloc(max), *b = floor_alloc(max);
  double v[FLOOR_MAX_REPS];
  for (int s = 0; s < nsizes; s++) {
    int copies = floor_copies(sizes[s]);
    for (int r = 0; r < reps; r++) {
      double t0 = floor_now_us();
      for (int c = 0; c < copies; c++) {
        memcpy(b, a, sizes[s]);
        __asm__ volatile("" : : "r"(b) : "memory");
      }
      v[r] = (double)sizes[s] * copies / (floor_now_us() - t0);
    }
    floor_print("floor_memcpy", sizes[s], v, reps, "MBps", "");
  }
  free(a);
  free(b);
}

/* The child keeps a buffer alive; the parent reads it with CMA. */
static void floor_cma(const size_t *sizes, int nsizes, int reps) {
  size_t max = sizes[nsizes - 1];
  char *src = floor_alloc(max), *dst = floor_alloc(max);
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  double v[FLOOR_MAX_REPS];
  for (int s = 0; s < nsizes && child > 0; s++) {
    int copies = floor_copies(sizes[s]);
    int ok = 1;
    for (int r = 0; r < reps && ok; r++) {
      double t0 = floor_now_us();
      for (int c = 0; c < copies && ok; c++) {
        struct iovec l = {dst, sizes[s]}, rv = {src, sizes[s]};
        ok = process_vm_readv(child, &l, 1, &rv, 1, 0) == (ssize_t)sizes[s];
      }
      v[r] = (double)sizes[s] * copies / (floor_now_us() - t0);
    }
    if (!ok) {
      printf("# floor_cma: process_vm_readv refused here\n");
      break;
    }
    floor_print("floor_cma", sizes[s], v, reps, "MBps", "");
  }
  if (child > 0) {
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
  }
  free(src);
  free(dst);
}

/* Two processes take turns on one shared cache line: the parent writes
 * 2k+1 and waits for 2k+2, the child answers. */
static void floor_pp(int reps, int iters) {
  _Atomic long *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (line == MAP_FAILED) {
    perror("mmap");
    return;
  }
  atomic_store(line, 0);
  long total = (long)reps * iters + 100;
  pid_t child = fork();
  if (child == 0) {
    for (long k = 0; k < total; k++) {
      while (atomic_load_explicit(line, memory_order_acquire) != 2 * k + 1)
        ;
      atomic_store_explicit(line, 2 * k + 2, memory_order_release);
    }
    _exit(0);
  }
  double v[FLOOR_MAX_REPS];
  long k = 0;
  for (int r = -1; r < reps; r++) {
    int n = r < 0 ? 100 : iters; /* r = -1: warm-up */
    double t0 = floor_now_us();
    for (int i = 0; i < n; i++, k++) {
      atomic_store_explicit(line, 2 * k + 1, memory_order_release);
      while (atomic_load_explicit(line, memory_order_acquire) != 2 * k + 2)
        ;
    }
    if (r >= 0)
      v[r] = (floor_now_us() - t0) / (2.0 * n);
  }
  waitpid(child, NULL, 0);
  char extra[32];
  snprintf(extra, sizeof extra, " iters=%d", iters);
  floor_print("floor_pp", 64, v, reps, "us", extra);
  munmap((void *)line, 4096);
}

static size_t floor_size(const char *s) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end == 'K' || *end == 'k')
    v <<= 10;
  else if (*end == 'M' || *end == 'm')
    v <<= 20;
  return (size_t)v;
}

int main(int argc, char **argv) {
  size_t sizes[FLOOR_MAX_SIZES];
  int nsizes = 0, reps = 11, iters = 100000, c;
  while ((c = getopt(argc, argv, "s:m:r:i:w:")) != -1) {
    if (c == 's') {
      for (char *t = strtok(optarg, ","); t && nsizes < FLOOR_MAX_SIZES;
           t = strtok(NULL, ","))
        sizes[nsizes++] = floor_size(t);
    } else if (c == 'm') {
      char *colon = strchr(optarg, ':');
      size_t lo = floor_size(optarg), hi = colon ? floor_size(colon + 1) : lo;
      for (size_t s = lo ? lo : 1; s <= hi && nsizes < FLOOR_MAX_SIZES; s *= 2)
        sizes[nsizes++] = s;
    } else if (c == 'r') {
      reps = atoi(optarg);
    } else if (c == 'i') {
      iters = atoi(optarg);
    } else if (c != 'w') { /* -w (warm-up) is accepted and ignored */
      fprintf(stderr, "usage: %s [-s A,B|-m LO:HI] [-r reps] [-i iters]\n",
              argv[0]);
      return 2;
    }
  }
  if (reps < 1 || reps > FLOOR_MAX_REPS || iters < 1 || nsizes == 0) {
    fprintf(stderr, "floor: need sizes, 1..%d reps, iters >= 1\n",
            FLOOR_MAX_REPS);
    return 2;
  }
  for (int i = 1; i < nsizes; i++) /* ascending, for the buffer size */
    for (int j = i; j > 0 && sizes[j] < sizes[j - 1]; j--) {
      size_t t = sizes[j];
      sizes[j] = sizes[j - 1];
      sizes[j - 1] = t;
    }
  printf("# bench=floor reps=%d iters=%d\n", reps, iters);
  floor_pp(reps, iters);
  floor_memcpy(sizes, nsizes, reps);
  floor_cma(sizes, nsizes, reps);
  fflush(stdout);
  return 0;
}

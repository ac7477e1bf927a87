/* Raw TCP baseline for bench/tcp_netns.sh: the same ping-pong and windowed
 * stream as bench/latency and bench/bandwidth, over one plain blocking
 * socket with TCP_NODELAY, so hcmpi's tcp transport can be compared with
 * what the link gives a program that does nothing else.
 *
 *   rawsock server PORT
 *   rawsock client HOST PORT [-s LAT_SIZES] [-S BW_SIZES] [-r REPS]
 *                            [-i LAT_ITERS] [-I BW_ITERS] [-W WINDOW]
 *
 * The client prints, per size:
 *   bench=raw_latency size=B median_us=.. min_us=.. reps=R iters=K
 *   bench=raw_bandwidth size=B median_MBps=.. max_MBps=.. reps=R iters=K
 *     window=W
 * Latency is round trip / 2; bandwidth is bytes / time with MB = 10^6 B,
 * the receiver acking each window of W messages with one byte, as
 * bench/bandwidth's responder does with a zero-byte message. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum raw_mode { RAW_PINGPONG = 1, RAW_STREAM = 2, RAW_QUIT = 3 };

/* What the client asks the server to do next, in network byte order. */
struct raw_cmd {
  uint32_t mode;
  uint32_t size;
  uint32_t count;  /* ping-pongs, or windows */
  uint32_t window; /* messages per window (stream) */
};

#define RAW_MAX_SIZES 32
#define RAW_WARMUP 50

static double raw_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void raw_die(const char *what) {
  perror(what);
  exit(1);
}

static void raw_write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      raw_die("write");
    p += n;
    len -= (size_t)n;
  }
}

static void raw_read_all(int fd, void *buf, size_t len) {
  char *p = buf;
  while (len > 0) {
    ssize_t n = read(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        fprintf(stderr, "rawsock: peer closed\n");
      raw_die("read");
    }
    p += n;
    len -= (size_t)n;
  }
}

static void raw_nodelay(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
    raw_die("TCP_NODELAY");
}

static void raw_serve_cmd(int fd, const struct raw_cmd *c, char *buf) {
  if (c->mode == RAW_PINGPONG) {
    for (uint32_t i = 0; i < c->count; i++) {
      raw_read_all(fd, buf, c->size);
      raw_write_all(fd, buf, c->size);
    }
    return;
  }
  for (uint32_t w = 0; w < c->count; w++) {
    /* The messages of a window arrive back to back: read them as one
     * stream, as a receiver that knows the total would. */
    raw_read_all(fd, buf, (size_t)c->size * c->window);
    raw_write_all(fd, "a", 1);
  }
}

static char *raw_alloc(size_t bytes) {
  char *b = malloc(bytes ? bytes : 1);
  if (!b)
    raw_die("malloc");
  memset(b, 1, bytes);
  return b;
}

static int raw_server(const char *port) {
  struct sockaddr_in sa = {.sin_family = AF_INET};
  int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0), fd;
  sa.sin_port = htons((uint16_t)atoi(port));
  if (ls < 0)
    raw_die("socket");
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, 1) < 0)
    raw_die("bind/listen");
  fd = accept(ls, NULL, NULL);
  if (fd < 0)
    raw_die("accept");
  raw_nodelay(fd);
  char *buf = NULL;
  size_t cap = 0;
  for (;;) {
    struct raw_cmd c;
    raw_read_all(fd, &c, sizeof c);
    c.mode = ntohl(c.mode);
    c.size = ntohl(c.size);
    c.count = ntohl(c.count);
    c.window = ntohl(c.window);
    if (c.mode == RAW_QUIT)
      break;
    size_t need = (size_t)c.size * (c.mode == RAW_STREAM ? c.window : 1);
    if (need > cap) {
      free(buf);
      buf = raw_alloc(need);
      cap = need;
    }
    raw_serve_cmd(fd, &c, buf);
  }
  free(buf);
  close(fd);
  close(ls);
  return 0;
}

static int raw_connect(const char *host, const char *port) {
  struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM};
  struct addrinfo *ai = NULL;
  int fd = -1;
  if (getaddrinfo(host, port, &hints, &ai) != 0)
    raw_die("getaddrinfo");
  /* The server may still be starting: retry for about 5 s. */
  for (int tries = 0; tries < 100; tries++) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
      raw_die("socket");
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
      break;
    close(fd);
    fd = -1;
    usleep(50000);
  }
  freeaddrinfo(ai);
  if (fd < 0)
    raw_die("connect");
  raw_nodelay(fd);
  return fd;
}

static void raw_send_cmd(int fd, uint32_t mode, uint32_t size, uint32_t count,
                         uint32_t window) {
  struct raw_cmd c = {htonl(mode), htonl(size), htonl(count), htonl(window)};
  raw_write_all(fd, &c, sizeof c);
}

static int raw_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

struct raw_opts {
  size_t lat[RAW_MAX_SIZES], bw[RAW_MAX_SIZES];
  int nlat, nbw, reps, iters, bw_iters, window;
};

/* Iterations per repetition shrink by about sqrt(8 KiB / size) above 8 KiB,
 * as bench_iters in bench/common.c computes them, so both sides time the
 * same amount of traffic. */
static int raw_iters(int base, size_t size, int min_iters) {
  double ratio = (double)size / 8192.0, scale = 1.0;
  long n;
  for (; ratio >= 4.0; ratio /= 4.0)
    scale *= 0.5;
  if (ratio > 1.0)
    scale /= 1.0 + (ratio - 1.0) * 0.4142;
  n = (long)(base * scale);
  return n < min_iters ? min_iters : (int)n;
}

static void raw_pingpong(int fd, const struct raw_opts *o, size_t size,
                         char *sb, char *rb) {
  int iters = raw_iters(o->iters, size, 4);
  double v[256];
  raw_send_cmd(fd, RAW_PINGPONG, (uint32_t)size,
               (uint32_t)(RAW_WARMUP + iters * o->reps), 0);
  for (int i = 0; i < RAW_WARMUP; i++) {
    raw_write_all(fd, sb, size);
    raw_read_all(fd, rb, size);
  }
  for (int r = 0; r < o->reps; r++) {
    double t0 = raw_now_us();
    for (int i = 0; i < iters; i++) {
      raw_write_all(fd, sb, size);
      raw_read_all(fd, rb, size);
    }
    v[r] = (raw_now_us() - t0) / iters / 2.0;
  }
  qsort(v, (size_t)o->reps, sizeof v[0], raw_cmp);
  printf("bench=raw_latency size=%zu median_us=%.2f min_us=%.2f reps=%d "
         "iters=%d\n",
         size, v[o->reps / 2], v[0], o->reps, iters);
}

static void raw_window(int fd, size_t size, int window, const char *sb) {
  char ack;
  for (int m = 0; m < window; m++)
    raw_write_all(fd, sb, size);
  raw_read_all(fd, &ack, 1);
}

static void raw_stream(int fd, const struct raw_opts *o, size_t size,
                       char *sb) {
  int iters = raw_iters(o->bw_iters, size, 1);
  double v[256];
  raw_send_cmd(fd, RAW_STREAM, (uint32_t)size, (uint32_t)(1 + iters * o->reps),
               (uint32_t)o->window);
  raw_window(fd, size, o->window, sb);
  for (int r = 0; r < o->reps; r++) {
    double t0 = raw_now_us();
    for (int i = 0; i < iters; i++)
      raw_window(fd, size, o->window, sb);
    v[r] = (double)size * o->window * iters / (raw_now_us() - t0);
  }
  qsort(v, (size_t)o->reps, sizeof v[0], raw_cmp);
  printf("bench=raw_bandwidth size=%zu median_MBps=%.2f max_MBps=%.2f "
         "reps=%d iters=%d window=%d\n",
         size, v[o->reps / 2], v[o->reps - 1], o->reps, iters, o->window);
}

static int raw_parse_list(const char *s, size_t *out) {
  int n = 0;
  char *end;
  while (n < RAW_MAX_SIZES) {
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
      break;
    if (*end == 'K' || *end == 'k')
      v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
      v <<= 20, end++;
    out[n++] = (size_t)v;
    if (*end != ',')
      break;
    s = end + 1;
  }
  return n;
}

static void raw_defaults(struct raw_opts *o) {
  o->nlat = raw_parse_list("1,8,64,512,4K,32K", o->lat);
  o->nbw = raw_parse_list("64K,256K,1M,4M", o->bw);
  o->reps = 11;
  o->iters = 1000;
  o->bw_iters = 100;
  o->window = 64;
}

static int raw_client_opts(int argc, char **argv, struct raw_opts *o) {
  int c;
  raw_defaults(o);
  while ((c = getopt(argc, argv, "s:S:r:i:I:W:")) != -1) {
    if (c == 's')
      o->nlat = raw_parse_list(optarg, o->lat);
    else if (c == 'S')
      o->nbw = raw_parse_list(optarg, o->bw);
    else if (c == 'r')
      o->reps = atoi(optarg);
    else if (c == 'i')
      o->iters = atoi(optarg);
    else if (c == 'I')
      o->bw_iters = atoi(optarg);
    else if (c == 'W')
      o->window = atoi(optarg);
    else
      return -1;
  }
  if (o->reps < 1 || o->reps > 256 || o->iters < 1 || o->bw_iters < 1 ||
      o->window < 1)
    return -1;
  return 0;
}

static int raw_client(int argc, char **argv) {
  struct raw_opts o;
  size_t maxsz = 1;
  if (argc < 4)
    return 2;
  const char *host = argv[2], *port = argv[3];
  if (raw_client_opts(argc - 3, argv + 3, &o) != 0)
    return 2;
  for (int i = 0; i < o.nlat; i++)
    maxsz = o.lat[i] > maxsz ? o.lat[i] : maxsz;
  for (int i = 0; i < o.nbw; i++)
    maxsz = o.bw[i] > maxsz ? o.bw[i] : maxsz;
  char *sb = raw_alloc(maxsz), *rb = raw_alloc(maxsz);
  int fd = raw_connect(host, port);
  for (int i = 0; i < o.nlat; i++)
    raw_pingpong(fd, &o, o.lat[i], sb, rb);
  for (int i = 0; i < o.nbw; i++)
    raw_stream(fd, &o, o.bw[i], sb);
  raw_send_cmd(fd, RAW_QUIT, 0, 0, 0);
  close(fd);
  free(sb);
  free(rb);
  return 0;
}

int main(int argc, char **argv) {
  int rc = 2;
  if (argc >= 3 && strcmp(argv[1], "server") == 0)
    rc = raw_server(argv[2]);
  else if (argc >= 4 && strcmp(argv[1], "client") == 0)
    rc = raw_client(argc, argv);
  if (rc == 2)
    fprintf(stderr, "usage: rawsock server PORT | rawsock client HOST PORT "
                    "[-s SIZES] [-S SIZES] [-r REPS] [-i ITERS] [-I ITERS] "
                    "[-W WINDOW]\n");
  return rc;
}

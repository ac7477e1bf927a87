/*
 * The tcp transport between two forked processes over 127.0.0.1, with no
 * launcher: the test plays the engine.  The Check test process is world
 * rank 0 and its child rank 1; pipes carry the address exchange and
 * barriers.  Each test builds fresh contexts in both processes.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>

#include "bootstrap/bootstrap.h"
#include "transport/tcp/tcp_auth.h"
#include "transport/tcp/tcp_ip.h"
#include "transport/transport.h"
#include "util/secret.h"
#include "util/sha256.h"

#define GUARD_SECONDS 60

static const hc_transport_ops_t *const ops = &hc_transport_tcp_ops;

typedef struct pair {
  int me;
  int to_child[2];
  int to_parent[2];
  pid_t child;
  void *ctx;
} pair_t;

/* What recv_cb saw in this process. */
static struct {
  unsigned char *last; /* copy of the newest packet */
  size_t last_len;
  long count;
  long bad;
  int failed_rank;
  hc_status_t failed_why;
  int stream; /* 1: packets are [u32 seq][pattern], checked on arrival */
  uint32_t next_seq;
} inbox;

/* Placement, when a test turns it on: packets whose seq (first 4 bytes)
 * is 1 mod 3 are taken in place into place_buf; placed_cb checks them as
 * on_packet does in stream mode. */
#define PLACE_HEAD 8
static struct {
  int on;
  unsigned char *buf;
  size_t len; /* of the packet being placed */
  long placed;
} placing;

static int is_child;
/* The job secret both sides get; the child's differs when child_secret is
 * set (a process of another job). */
static const char job_secret[] =
    "00112233445566778899aabbccddeeff0123456789abcdeffedcba9876543210";
static const char *child_secret;
/* The child's job size when set (a process of another job); else 2. */
static int child_world_size;

static void expect(int ok, const char *what, int line) {
  if (ok)
    return;
  if (is_child) {
    fprintf(stderr, "child: check failed at line %d: %s\n", line, what);
    _exit(1);
  }
  ck_abort_msg("parent: check failed at line %d: %s", line, what);
}

static unsigned char pattern(size_t size, size_t i) {
  return (unsigned char)(size * 31u + i * 7u + 1u);
}

static void on_packet(void *engine, int src, const void *packet, size_t len) {
  (void)engine;
  const unsigned char *p = packet;
  inbox.count++;
  if (src != 1 - (is_child ? 1 : 0)) {
    inbox.bad++;
    return;
  }
  if (inbox.stream) {
    uint32_t seq;
    if (len < 4) {
      inbox.bad++;
      return;
    }
    memcpy(&seq, p, 4);
    if (seq != inbox.next_seq++)
      inbox.bad++;
    for (size_t i = 4; i < len; i++)
      if (p[i] != pattern(seq, i)) {
        inbox.bad++;
        break;
      }
    return;
  }
  free(inbox.last);
  inbox.last = malloc(len ? len : 1);
  if (inbox.last == NULL) {
    inbox.bad++;
    return;
  }
  memcpy(inbox.last, packet, len);
  inbox.last_len = len;
}

static int on_place(void *engine, int src, const void *head, size_t len,
                    void **dst) {
  (void)engine;
  (void)src;
  uint32_t seq;
  memcpy(&seq, head, 4);
  if (seq % 3 != 1)
    return 0;
  placing.len = len;
  *dst = placing.buf;
  return 1;
}

static void on_placed(void *engine, int src, const void *head) {
  (void)engine;
  (void)src;
  uint32_t seq;
  memcpy(&seq, head, 4);
  inbox.count++;
  placing.placed++;
  if (seq != inbox.next_seq++ || seq % 3 != 1)
    inbox.bad++;
  for (size_t i = PLACE_HEAD; i < placing.len; i++)
    if (placing.buf[i - PLACE_HEAD] != pattern(seq, i)) {
      inbox.bad++;
      break;
    }
}

static void on_failed(void *engine, int world_rank, hc_status_t why) {
  (void)engine;
  inbox.failed_rank = world_rank;
  inbox.failed_why = why;
}

static void io_all(int fd, void *buf, size_t len, int writing) {
  unsigned char *p = buf;
  while (len > 0) {
    ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    expect(n > 0, writing ? "pipe write" : "pipe read", __LINE__);
    p += n;
    len -= (size_t)n;
  }
}

static int pair_out(const pair_t *pr) {
  return pr->me == 0 ? pr->to_child[1] : pr->to_parent[1];
}
static int pair_in(const pair_t *pr) {
  return pr->me == 0 ? pr->to_parent[0] : pr->to_child[0];
}

static void pair_barrier(pair_t *pr) {
  char b = 'b';
  io_all(pair_out(pr), &b, 1, 1);
  io_all(pair_in(pr), &b, 1, 0);
}

/* Forks; both processes get a context and know each other's address. */
static void pair_start(pair_t *pr) {
  memset(&inbox, 0, sizeof inbox);
  inbox.failed_rank = -1;
  ck_assert_int_eq(pipe(pr->to_child), 0);
  ck_assert_int_eq(pipe(pr->to_parent), 0);
  fflush(NULL);
  pr->child = fork();
  ck_assert_int_ge(pr->child, 0);
  pr->me = pr->child == 0 ? 1 : 0;
  is_child = pr->me == 1;
  if (is_child)
    alarm(GUARD_SECONDS);
  setenv("HCMPI_JOB_SECRET", is_child && child_secret ? child_secret : job_secret, 1);
  hc_transport_init_args_t args = {
      .world_rank = pr->me,
      .world_size = is_child && child_world_size ? child_world_size : 2,
      .local_rank = 0,
      .local_size = 1,
      .local_world_ranks = &pr->me,
      .recv_cb = on_packet,
      .engine = NULL,
      .peer_failed_cb = on_failed};
  if (placing.on) {
    args.place_cb = on_place;
    args.placed_cb = on_placed;
    args.place_head = PLACE_HEAD;
  }
  expect(ops->init(&args, &pr->ctx) == HC_OK, "init", __LINE__);
  char mine[HC_TRANSPORT_ADDRESS_MAX], theirs[HC_TRANSPORT_ADDRESS_MAX];
  memset(mine, 0, sizeof mine);
  expect(ops->address(pr->ctx, mine, sizeof mine) == HC_OK, "address",
         __LINE__);
  io_all(pair_out(pr), mine, sizeof mine, 1);
  io_all(pair_in(pr), theirs, sizeof theirs, 0);
  expect(ops->connect(pr->ctx, 1 - pr->me, theirs) == HC_OK, "connect",
         __LINE__);
  expect(ops->connect(pr->ctx, pr->me, mine) == HC_ERR_RANK, "self connect",
         __LINE__);
  expect(ops->connected(pr->ctx) == HC_OK, "connected", __LINE__);
}

/* Child: leaves; parent: reaps the child and checks it succeeded. */
static void pair_finish(pair_t *pr) {
  ops->fini(pr->ctx);
  if (is_child)
    _exit(inbox.bad == 0 ? 0 : 2);
  int status;
  ck_assert_int_eq(waitpid(pr->child, &status, 0), pr->child);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "child failed (status 0x%x)", status);
  close(pr->to_child[0]);
  close(pr->to_child[1]);
  close(pr->to_parent[0]);
  close(pr->to_parent[1]);
  free(inbox.last);
  inbox.last = NULL;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Progress (waiting when idle) until *counter reaches want. */
static void pump_until(pair_t *pr, const long *counter, long want) {
  double deadline = now_s() + GUARD_SECONDS;
  while (*counter < want) {
    expect(now_s() < deadline, "timed out waiting for packets", __LINE__);
    if (ops->progress(pr->ctx) == 0)
      ops->wait(pr->ctx, 10);
  }
}

/* Sends, progressing through AGAIN; returns how many AGAINs it saw. */
static long send_retry(pair_t *pr, const struct iovec *iov, int iovcnt) {
  long again = 0;
  double deadline = now_s() + GUARD_SECONDS;
  for (;;) {
    hc_status_t rc = ops->send(pr->ctx, 1 - pr->me, iov, iovcnt);
    if (rc == HC_OK)
      return again;
    expect(rc == HC_ERR_AGAIN, "send failed", __LINE__);
    expect(now_s() < deadline, "send stayed AGAIN", __LINE__);
    again++;
    if (ops->progress(pr->ctx) == 0)
      ops->wait(pr->ctx, 10);
  }
}

/* Sends a patterned packet of size bytes split into three pieces. */
static void send_pattern(pair_t *pr, unsigned char *buf, size_t size) {
  for (size_t i = 0; i < size; i++)
    buf[i] = pattern(size, i);
  size_t a = size / 3, b = size / 2;
  struct iovec iov[3] = {{buf, a}, {buf + a, b - a}, {buf + b, size - b}};
  send_retry(pr, iov, 3);
}

static int check_pattern(const unsigned char *p, size_t len, size_t size) {
  if (len != size)
    return 0;
  for (size_t i = 0; i < len; i++)
    if (p[i] != pattern(size, i))
      return 0;
  return 1;
}

/* Rank 0 sends each size, rank 1 checks and echoes it, rank 0 checks. */
static void pingpong(pair_t *pr, const size_t *sizes, size_t n) {
  size_t max = ops->max_packet(pr->ctx);
  unsigned char *buf = malloc(max);
  expect(buf != NULL, "malloc", __LINE__);
  for (size_t k = 0; k < n; k++) {
    if (pr->me == 0)
      send_pattern(pr, buf, sizes[k]);
    pump_until(pr, &inbox.count, (long)k + 1);
    expect(check_pattern(inbox.last, inbox.last_len, sizes[k]),
           "packet bytes or length differ", __LINE__);
    if (pr->me == 1)
      send_pattern(pr, buf, sizes[k]);
  }
  free(buf);
}

START_TEST(test_pingpong_every_size_small_packets) {
  setenv("HCMPI_TCP_MAX_PACKET", "4096", 1);
  pair_t pr;
  pair_start(&pr);
  unsetenv("HCMPI_TCP_MAX_PACKET");
  size_t max = ops->max_packet(pr.ctx);
  expect(max == 4096, "max_packet follows HCMPI_TCP_MAX_PACKET", __LINE__);
  size_t *sizes = malloc((max + 1) * sizeof *sizes);
  for (size_t s = 0; s <= max; s++)
    sizes[s] = s;
  pingpong(&pr, sizes, max + 1);
  free(sizes);
  /* One byte past max_packet is refused outright. */
  unsigned char *big = calloc(1, max + 1);
  struct iovec iov = {big, max + 1};
  expect(ops->send(pr.ctx, 1 - pr.me, &iov, 1) == HC_ERR_ARG,
         "oversized packet refused", __LINE__);
  free(big);
  pair_barrier(&pr);
  pair_finish(&pr);
}
END_TEST

START_TEST(test_pingpong_sizes_to_default_max_packet) {
  pair_t pr;
  pair_start(&pr);
  size_t max = ops->max_packet(pr.ctx);
  expect(max >= ((size_t)256 << 10), "default max_packet >= 256 KiB", __LINE__);
  size_t sizes[64];
  size_t n = 0;
  for (size_t p = 4096; p <= max && n + 3 <= 64; p *= 2) {
    sizes[n++] = p - 1;
    sizes[n++] = p;
    if (p + 1 <= max)
      sizes[n++] = p + 1;
  }
  sizes[n++] = max;
  pingpong(&pr, sizes, n);
  pair_barrier(&pr);
  pair_finish(&pr);
}
END_TEST

/* The smallest receive buffer of this process's IPv4 stream sockets (the
 * kernel reports twice what was set), or -1 when it has none. */
static int smallest_tcp_rcvbuf(void) {
  int least = -1;
  for (int fd = 3; fd < 1024; fd++) {
    int type = 0, domain = 0, rcv = 0;
    socklen_t len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
        type != SOCK_STREAM)
      continue;
    len = sizeof domain;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 ||
        domain != AF_INET)
      continue;
    len = sizeof rcv;
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, &len) == 0 &&
        (least < 0 || rcv < least))
      least = rcv;
  }
  return least;
}

/* Rank 1 stops reading until rank 0 has seen AGAIN; then every packet,
 * those queued before and those sent after, arrives once and in order. */
START_TEST(test_flood_hits_again_and_recovers) {
  enum { SIZE = 60000, AFTER = 200 };
  setenv("HCMPI_TCP_SENDQ", "256k", 1);
  setenv("HCMPI_TCP_SOCKBUF", "64k", 1);
  pair_t pr;
  pair_start(&pr);
  unsetenv("HCMPI_TCP_SENDQ");
  unsetenv("HCMPI_TCP_SOCKBUF");
  /* Connection up first, so the flood fills socket buffers, then queue. */
  static const size_t one[] = {10};
  pingpong(&pr, one, 1);
  /* 64k asked, 256k set (the floor below which loopback's 64 KiB segments
   * stall), where the kernel's rmem_max lets it. */
  FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");
  long rmem_max = 0;
  if (f) {
    if (fscanf(f, "%ld", &rmem_max) != 1)
      rmem_max = 0;
    fclose(f);
  }
  if (rmem_max >= 256 << 10)
    expect(smallest_tcp_rcvbuf() >= 2 * (256 << 10), "socket buffer floor",
           __LINE__);
  inbox.count = 0;
  inbox.stream = 1;
  unsigned char *buf = malloc(SIZE);
  uint32_t total = 0;
  if (pr.me == 0) {
    long again = 0;
    uint32_t seq = 0;
    for (; again == 0; seq++) {
      memcpy(buf, &seq, 4);
      for (size_t i = 4; i < SIZE; i++)
        buf[i] = pattern(seq, i);
      struct iovec iov[2] = {{buf, 4}, {buf + 4, SIZE - 4}};
      hc_status_t rc = ops->send(pr.ctx, 1, iov, 2);
      expect(seq < 100000, "no AGAIN after 6 GB", __LINE__);
      if (rc == HC_ERR_AGAIN) {
        again = 1;
        break;
      }
      expect(rc == HC_OK, "flood send", __LINE__);
      ops->progress(pr.ctx);
    }
    total = seq + AFTER;
    pair_barrier(&pr); /* rank 1 starts reading */
    io_all(pair_out(&pr), &total, sizeof total, 1);
    for (; seq < total; seq++) {
      memcpy(buf, &seq, 4);
      for (size_t i = 4; i < SIZE; i++)
        buf[i] = pattern(seq, i);
      struct iovec iov[2] = {{buf, 4}, {buf + 4, SIZE - 4}};
      send_retry(&pr, iov, 2);
    }
  } else {
    pair_barrier(&pr);
    io_all(pair_in(&pr), &total, sizeof total, 0);
  }
  /* Rank 0 keeps progressing so its queue drains. */
  if (pr.me == 1) {
    pump_until(&pr, &inbox.count, (long)total);
    expect(inbox.next_seq == total && inbox.bad == 0,
           "every flooded packet once, in order, intact", __LINE__);
    struct iovec done = {&total, sizeof total};
    inbox.stream = 0;
    send_retry(&pr, &done, 1);
  } else {
    inbox.stream = 0;
    pump_until(&pr, &inbox.count, 1);
    expect(inbox.last_len == sizeof total, "done packet", __LINE__);
  }
  free(buf);
  pair_barrier(&pr);
  pair_finish(&pr);
}
END_TEST

/* Rank 1 streams packets: small ones, large ones the receiver takes in
 * place (seq 1 mod 3) and large ones it declines; rank 0 gets each once,
 * in order, intact, the placed ones only through placed_cb. */
START_TEST(test_large_payloads_read_in_place) {
  enum { N = 300, BIG = 200000, SMALL = 100 };
  placing.on = 1;
  placing.placed = 0;
  placing.buf = malloc(BIG);
  pair_t pr;
  pair_start(&pr);
  inbox.stream = 1;
  unsigned char *buf = calloc(1, BIG);
  expect(buf != NULL && placing.buf != NULL, "malloc", __LINE__);
  if (pr.me == 1) {
    for (uint32_t seq = 0; seq < N; seq++) {
      size_t len = seq % 3 == 0 ? SMALL : BIG;
      memcpy(buf, &seq, 4);
      for (size_t i = 4; i < len; i++)
        buf[i] = pattern(seq, i);
      struct iovec iov = {buf, len};
      send_retry(&pr, &iov, 1);
    }
    /* Progress until rank 0's answer, so the send queue drains. */
    inbox.stream = 0;
    pump_until(&pr, &inbox.count, 1);
  } else {
    pump_until(&pr, &inbox.count, N);
    expect(inbox.next_seq == N && inbox.bad == 0,
           "every packet once, in order, intact", __LINE__);
    expect(placing.placed == N / 3, "the seq 1 mod 3 packets were placed",
           __LINE__);
    struct iovec done = {buf, 4};
    send_retry(&pr, &done, 1);
  }
  pair_barrier(&pr);
  placing.on = 0;
  free(buf);
  free(placing.buf);
  pair_finish(&pr);
}
END_TEST

/* Both ranks send first at the same moment, so both connect; whichever
 * connection wins, each side gets every packet of the other once, in
 * order.  Repeated on fresh contexts to meet several interleavings. */
START_TEST(test_simultaneous_first_sends) {
  enum { ROUNDS = 30, PACKETS = 300, SIZE = 1000 };
  for (int round = 0; round < ROUNDS; round++) {
    pair_t pr;
    pair_start(&pr);
    inbox.stream = 1;
    unsigned char buf[SIZE];
    pair_barrier(&pr);
    for (uint32_t seq = 0; seq < PACKETS; seq++) {
      memcpy(buf, &seq, 4);
      for (size_t i = 4; i < SIZE; i++)
        buf[i] = pattern(seq, i);
      struct iovec iov = {buf, SIZE};
      send_retry(&pr, &iov, 1);
    }
    pump_until(&pr, &inbox.count, PACKETS);
    expect(inbox.next_seq == PACKETS && inbox.bad == 0,
           "every packet once, in order, intact", __LINE__);
    /* Neither side may leave while the other still needs its bytes. */
    pair_barrier(&pr);
    pair_finish(&pr);
  }
}
END_TEST

/* Rank 0 progresses until rank 1 is reported failed, for why. */
static void pump_until_failed(pair_t *pr, hc_status_t why) {
  double deadline = now_s() + GUARD_SECONDS;
  while (inbox.failed_rank != 1) {
    ck_assert_msg(now_s() < deadline, "failure never reported");
    if (ops->progress(pr->ctx) == 0)
      ops->wait(pr->ctx, 10);
  }
  ck_assert_int_eq(inbox.failed_why, why);
}

/* Rank 1 releases its context and leaves; rank 0 reaps it. */
static void pair_child_leaves(pair_t *pr) {
  if (pr->me == 1) {
    ops->fini(pr->ctx);
    _exit(0);
  }
  int status;
  ck_assert_int_eq(waitpid(pr->child, &status, 0), pr->child);
}

/* A peer that exits: the survivor's progress reports it failed (no hang)
 * and later sends return HC_ERR_PEER_DEAD. */
START_TEST(test_peer_close_reports_failure) {
  pair_t pr;
  pair_start(&pr);
  static const size_t one[] = {100};
  pingpong(&pr, one, 1);
  if (pr.me == 1)
    _exit(0); /* no fini: the kernel closes the socket */
  pump_until_failed(&pr, HC_ERR_PEER_DEAD);
  unsigned char b = 1;
  struct iovec iov = {&b, 1};
  ck_assert_int_eq(ops->send(pr.ctx, 1, &iov, 1), HC_ERR_PEER_DEAD);
  pair_finish(&pr);
}
END_TEST

/* A peer gone before the first send: the connect is refused, which is
 * reported the same way. */
START_TEST(test_connect_to_gone_peer_reports_failure) {
  pair_t pr;
  pair_start(&pr);
  pair_child_leaves(&pr);
  unsigned char b = 1;
  struct iovec iov = {&b, 1};
  hc_status_t rc = ops->send(pr.ctx, 1, &iov, 1);
  ck_assert(rc == HC_OK || rc == HC_ERR_PEER_DEAD);
  pump_until_failed(&pr, HC_ERR_PEER_DEAD);
  ck_assert_int_eq(ops->send(pr.ctx, 1, &iov, 1), HC_ERR_PEER_DEAD);
  ops->fini(pr.ctx);
  free(inbox.last);
  inbox.last = NULL;
}
END_TEST

/* ---- strangers: a raw socket playing a client of rank 0 ---- */

static int stray_connect(pair_t *pr) {
  char addr[HC_TRANSPORT_ADDRESS_MAX];
  ck_assert_int_eq(ops->address(pr->ctx, addr, sizeof addr), HC_OK);
  char *colon = strrchr(addr, ':');
  ck_assert_ptr_nonnull(colon);
  *colon = '\0';
  struct sockaddr_in sa = {.sin_family = AF_INET,
                           .sin_port = htons((uint16_t)atoi(colon + 1))};
  ck_assert_int_eq(inet_pton(AF_INET, addr, &sa.sin_addr), 1);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
  return fd;
}

/* Progresses rank 0 until the stray socket has want bytes (returns want)
 * or is closed by rank 0 (returns the bytes read before EOF). */
static size_t stray_read(pair_t *pr, int fd, unsigned char *buf, size_t want) {
  size_t got = 0;
  double deadline = now_s() + GUARD_SECONDS;
  while (got < want) {
    ck_assert_msg(now_s() < deadline, "rank 0 neither answered nor closed");
    ops->progress(pr->ctx);
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    if (poll(&pfd, 1, 10) <= 0)
      continue;
    ssize_t n = recv(fd, buf + got, want - got, 0);
    if (n <= 0)
      return got;
    got += (size_t)n;
  }
  return got;
}

/* The HELLO of a client claiming to be rank 1. */
static void stray_hello(int fd, const unsigned char *nonce) {
  unsigned char hello[16 + 32];
  uint32_t head[4] = {0x68637463u, 1, 1, 2}; /* magic, version, rank, size */
  memcpy(hello, head, sizeof head);
  memcpy(hello + 16, nonce, 32);
  ck_assert_int_eq(send(fd, hello, sizeof hello, MSG_NOSIGNAL), (ssize_t)sizeof hello);
}

/* What the real rank 1 would answer to nonce: HMAC(K, "C" | nonce | 1, 0, 2). */
static void stray_answer(const unsigned char *nonce, unsigned char out[32]) {
  unsigned char key[32], msg[1 + 32 + 12];
  for (int i = 0; i < 32; i++) {
    unsigned v;
    sscanf(job_secret + 2 * i, "%2x", &v);
    key[i] = (unsigned char)v;
  }
  uint32_t v[3] = {htonl(1), htonl(0), htonl(2)};
  msg[0] = 'C';
  memcpy(msg + 1, nonce, 32);
  memcpy(msg + 33, v, sizeof v);
  hc_hmac_sha256(key, sizeof key, msg, sizeof msg, out);
}

/* The pair still carries a packet of size each way, nobody was reported
 * failed; then both leave. */
static void pair_finish_working(pair_t *pr, size_t size) {
  inbox.count = 0;
  pingpong(pr, &size, 1);
  expect(inbox.failed_rank == -1, "no failure reported", __LINE__);
  pair_barrier(pr);
  pair_finish(pr);
}

/* Garbage, a wrong answer and a replayed answer are each refused (rank 0
 * closes the socket, after REFUSE for the garbage) while the real pair goes
 * on working, before and after; no failure is reported. */
START_TEST(test_strangers_dropped) {
  pair_t pr;
  pair_start(&pr);
  static const size_t one[] = {100, 5000};
  pingpong(&pr, one, 1);
  if (pr.me == 0) {
    unsigned char buf[64], junk[48], nonce[32], ch1[64], ch2[64], ans[32];
    memset(junk, 0xab, sizeof junk);
    int fd = stray_connect(&pr);
    ck_assert_int_eq(send(fd, junk, sizeof junk, MSG_NOSIGNAL), (ssize_t)sizeof junk);
    /* Garbage the size of a HELLO: REFUSE, then closed. */
    uint32_t refuse = 0x52465344u;
    ck_assert_uint_eq(stray_read(&pr, fd, buf, 8), 4);
    ck_assert_int_eq(memcmp(buf, &refuse, 4), 0);
    close(fd);

    for (int i = 0; i < 32; i++)
      nonce[i] = (unsigned char)(i * 5 + 1);
    fd = stray_connect(&pr);
    stray_hello(fd, nonce);
    ck_assert_uint_eq(stray_read(&pr, fd, ch1, 64), 64); /* challenge */
    memset(ans, 0, sizeof ans);
    ck_assert_int_eq(send(fd, ans, sizeof ans, MSG_NOSIGNAL), (ssize_t)sizeof ans);
    ck_assert_uint_eq(stray_read(&pr, fd, buf, 4), 0); /* wrong answer: closed */
    close(fd);

    /* Replay: the same HELLO again, then the answer that was right for the
     * first challenge.  A fresh nonce makes it wrong now. */
    fd = stray_connect(&pr);
    stray_hello(fd, nonce);
    ck_assert_uint_eq(stray_read(&pr, fd, ch2, 64), 64);
    ck_assert_msg(memcmp(ch1, ch2, 32) != 0, "rank 0 reused its nonce");
    ck_assert_msg(memcmp(ch1 + 32, ch2 + 32, 32) == 0,
                  "rank 0's proof depends only on our nonce");
    stray_answer(ch1, ans);
    ck_assert_int_eq(send(fd, ans, sizeof ans, MSG_NOSIGNAL), (ssize_t)sizeof ans);
    ck_assert_uint_eq(stray_read(&pr, fd, buf, 4), 0);
    close(fd);
    ck_assert_int_eq(inbox.failed_rank, -1);
  }
  pair_barrier(&pr);
  pair_finish_working(&pr, one[1]);
}
END_TEST

/* A barrier that keeps progressing meanwhile: the other side may still
 * need this one's listener to answer. */
static void pair_barrier_progress(pair_t *pr) {
  char b = 'b';
  io_all(pair_out(pr), &b, 1, 1);
  double deadline = now_s() + GUARD_SECONDS;
  for (;;) {
    expect(now_s() < deadline, "barrier timed out", __LINE__);
    ops->progress(pr->ctx);
    struct pollfd pfd = {.fd = pair_in(pr), .events = POLLIN};
    if (poll(&pfd, 1, 10) > 0)
      break;
  }
  io_all(pair_in(pr), &b, 1, 0);
}

/* A process with another secret: each side's connection attempt fails
 * authentication, the peer is reported failed, nothing is delivered. */
START_TEST(test_wrong_secret_refused) {
  pair_t pr;
  child_secret = "ffeeddccbbaa99887766554433221100fedcba98765432100123456789abcdef";
  pair_start(&pr);
  unsigned char b = 7;
  struct iovec iov = {&b, 1};
  hc_status_t rc = ops->send(pr.ctx, 1 - pr.me, &iov, 1);
  expect(rc == HC_OK || rc == HC_ERR_PEER_AUTH, "first send", __LINE__);
  double deadline = now_s() + GUARD_SECONDS;
  while (inbox.failed_rank != 1 - pr.me) {
    expect(now_s() < deadline, "failure never reported", __LINE__);
    if (ops->progress(pr.ctx) == 0)
      ops->wait(pr.ctx, 10);
  }
  expect(inbox.count == 0, "a packet crossed without the secret", __LINE__);
  expect(inbox.failed_why == HC_ERR_PEER_AUTH, "failure cause", __LINE__);
  expect(ops->send(pr.ctx, 1 - pr.me, &iov, 1) == HC_ERR_PEER_AUTH,
         "later send", __LINE__);
  pair_barrier_progress(&pr);
  child_secret = NULL;
  pair_finish(&pr);
}
END_TEST

/* A process of another job size: rank 0 answers its HELLO with REFUSE,
 * and the connector marks rank 0 failed (authentication) instead of
 * trying again; rank 0 reports nothing. */
START_TEST(test_refused_hello_ends_the_attempt) {
  pair_t pr;
  child_world_size = 3;
  pair_start(&pr);
  if (pr.me == 1) {
    unsigned char b = 7;
    struct iovec iov = {&b, 1};
    expect(ops->send(pr.ctx, 0, &iov, 1) == HC_OK, "first send", __LINE__);
    double deadline = now_s() + GUARD_SECONDS;
    while (inbox.failed_rank != 0) {
      expect(now_s() < deadline, "failure never reported", __LINE__);
      if (ops->progress(pr.ctx) == 0)
        ops->wait(pr.ctx, 10);
    }
    expect(inbox.failed_why == HC_ERR_PEER_AUTH, "failure cause", __LINE__);
  }
  pair_barrier_progress(&pr);
  if (pr.me == 0)
    ck_assert_int_eq(inbox.failed_rank, -1);
  child_world_size = 0;
  pair_finish(&pr);
}
END_TEST

/* Progress rank 0 until fd is closed by it (1) or the guard ends (0). */
static int stray_closed(pair_t *pr, int fd) {
  unsigned char buf[64];
  double deadline = now_s() + GUARD_SECONDS;
  while (now_s() < deadline) {
    if (ops->progress(pr->ctx) == 0)
      ops->wait(pr->ctx, 5);
    ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno == ECONNRESET))
      return 1;
  }
  return 0;
}

/* 1 while fd is still open at rank 0's end (nothing to read, no EOF). */
static int stray_open(int fd) {
  unsigned char buf[64];
  ssize_t n;
  do
    n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
  while (n > 0); /* a challenge is fine */
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

/* Strangers that connect and say nothing, or say HELLO and never answer
 * the challenge, are closed once HCMPI_TCP_HANDSHAKE_MS passes; the real
 * pair works before and after and nobody is reported failed. */
START_TEST(test_idle_strangers_closed_at_deadline) {
  setenv("HCMPI_TCP_HANDSHAKE_MS", "200", 1);
  pair_t pr;
  pair_start(&pr);
  unsetenv("HCMPI_TCP_HANDSHAKE_MS");
  static const size_t sizes[] = {100, 5000};
  pingpong(&pr, sizes, 1);
  if (pr.me == 0) {
    unsigned char nonce[32] = {1}, ch[64];
    int quiet = stray_connect(&pr);
    int half = stray_connect(&pr);
    stray_hello(half, nonce);
    ck_assert_uint_eq(stray_read(&pr, half, ch, 64), 64);
    ck_assert_msg(stray_closed(&pr, quiet), "a silent stranger was kept");
    ck_assert_msg(stray_closed(&pr, half), "an unanswered challenge was kept");
    close(quiet);
    close(half);
    ck_assert_int_eq(inbox.failed_rank, -1);
  }
  pair_barrier_progress(&pr);
  pair_finish_working(&pr, sizes[1]);
}
END_TEST

/* With HCMPI_TCP_HANDSHAKES=3, a fourth stranger closes the oldest silent
 * one, not the older one that said HELLO; rank 1's connection, accepted
 * while the three strangers wait, closes another and carries a packet
 * each way. */
START_TEST(test_handshake_cap_closes_oldest_silent) {
  setenv("HCMPI_TCP_HANDSHAKES", "3", 1);
  pair_t pr;
  pair_start(&pr);
  unsetenv("HCMPI_TCP_HANDSHAKES");
  int said = -1, quiet[3] = {-1, -1, -1};
  if (pr.me == 0) {
    unsigned char nonce[32] = {2}, ch[64];
    said = stray_connect(&pr);
    stray_hello(said, nonce);
    ck_assert_uint_eq(stray_read(&pr, said, ch, 64), 64);
    for (int i = 0; i < 3; i++) {
      quiet[i] = stray_connect(&pr);
      for (int k = 0; k < 5; k++)
        ops->progress(pr.ctx); /* accepts it */
    }
    ck_assert_msg(stray_closed(&pr, quiet[0]), "oldest silent one kept");
    ck_assert_msg(stray_open(said), "the one that said HELLO was closed");
    ck_assert_msg(stray_open(quiet[1]) && stray_open(quiet[2]),
                  "a newer stranger was closed");
  }
  pair_barrier_progress(&pr);
  unsigned char b = 5;
  struct iovec iov = {&b, 1};
  if (pr.me == 1)
    send_retry(&pr, &iov, 1);
  pump_until(&pr, &inbox.count, 1);
  if (pr.me == 0)
    send_retry(&pr, &iov, 1);
  expect(inbox.last_len == 1 && inbox.last[0] == 5, "packet", __LINE__);
  expect(inbox.failed_rank == -1, "no failure reported", __LINE__);
  pair_barrier_progress(&pr);
  for (int i = 0; i < 3; i++)
    if (quiet[i] >= 0)
      close(quiet[i]);
  if (said >= 0)
    close(said);
  pair_finish(&pr);
}
END_TEST

/* Rank 1 starts its connection, then does not progress for longer than
 * rank 0's handshake deadline, which closes the attempt: rank 1 connects
 * again, the packet arrives, and nobody is reported failed. */
START_TEST(test_slow_connector_connects_again) {
  setenv("HCMPI_TCP_HANDSHAKE_MS", "100", 1);
  pair_t pr;
  pair_start(&pr);
  unsetenv("HCMPI_TCP_HANDSHAKE_MS");
  unsigned char b = 9;
  struct iovec iov = {&b, 1};
  if (pr.me == 1) {
    expect(ops->send(pr.ctx, 0, &iov, 1) == HC_OK, "send", __LINE__);
    pair_barrier(&pr);
    pair_barrier(&pr); /* rank 0 passed its deadline meanwhile */
    pump_until(&pr, &inbox.count, 1);
  } else {
    pair_barrier(&pr);
    double until = now_s() + 0.5;
    while (now_s() < until)
      if (ops->progress(pr.ctx) == 0)
        ops->wait(pr.ctx, 5);
    pair_barrier(&pr);
    pump_until(&pr, &inbox.count, 1);
    expect(inbox.last_len == 1 && inbox.last[0] == 9, "packet", __LINE__);
    send_retry(&pr, &iov, 1);
  }
  expect(inbox.failed_rank == -1, "no failure reported", __LINE__);
  pair_barrier_progress(&pr);
  pair_finish(&pr);
}
END_TEST

/* A peer gone before any packet: watch connects at once, the refused
 * connect reports it (HC_ERR_PEER_DEAD) without a send. */
START_TEST(test_watch_reports_peer_gone_before_first_packet) {
  pair_t pr;
  pair_start(&pr);
  pair_child_leaves(&pr);
  ops->watch(pr.ctx, 1);
  pump_until_failed(&pr, HC_ERR_PEER_DEAD);
  ops->fini(pr.ctx);
}
END_TEST

START_TEST(test_secret_format) {
  char hex[HC_TCP_SECRET_HEX], other[HC_TCP_SECRET_HEX];
  ck_assert_int_eq(hc_secret_new(hex, sizeof hex), 0);
  ck_assert_int_eq(hc_secret_new(other, sizeof other), 0);
  ck_assert_uint_eq(strlen(hex), 64);
  ck_assert_str_ne(hex, other);
  ck_assert_int_eq(hc_secret_new(hex, 10), -1);
  setenv("HCMPI_JOB_SECRET", "abc", 1);
  int me = 0;
  hc_transport_init_args_t args = {.world_rank = 0,
                                   .world_size = 2,
                                   .local_size = 1,
                                   .local_world_ranks = &me,
                                   .recv_cb = on_packet};
  void *ctx = NULL;
  ck_assert_int_eq(ops->init(&args, &ctx), HC_ERR_ARG);
  ops->fini(ctx);
  unsetenv("HCMPI_JOB_SECRET");
  ck_assert_int_eq(ops->init(&args, &ctx), HC_OK);
  ck_assert_int_eq(hc_tcp_has_secret(ctx), 0);
  ck_assert_int_eq(hc_tcp_set_secret(ctx, "zz"), -1);
  ck_assert_int_eq(hc_tcp_set_secret(ctx, job_secret), 0);
  ck_assert_int_eq(hc_tcp_has_secret(ctx), 1);
  ops->fini(ctx);
}
END_TEST

START_TEST(test_fini_on_failed_init_and_null) {
  ops->fini(NULL);
  setenv("HCMPI_TCP_IF", "no-such-if0", 1);
  int me = 0;
  hc_transport_init_args_t args = {.world_rank = 0,
                                   .world_size = 2,
                                   .local_size = 1,
                                   .local_world_ranks = &me,
                                   .recv_cb = on_packet};
  void *ctx = NULL;
  ck_assert_int_ne(ops->init(&args, &ctx), HC_OK);
  ops->fini(ctx);
  setenv("HCMPI_TCP_IF", "127.0.0.0/8", 1);
  ck_assert_int_eq(ops->init(&args, &ctx), HC_OK);
  char addr[HC_TRANSPORT_ADDRESS_MAX];
  ck_assert_int_eq(ops->address(ctx, addr, sizeof addr), HC_OK);
  ck_assert_msg(strncmp(addr, "127.", 4) == 0, "CIDR picks lo: %s", addr);
  ck_assert_int_eq(ops->connect(ctx, 1, "not-an-address"), HC_ERR_ARG);
  ops->fini(ctx);
  unsetenv("HCMPI_TCP_IF");
}
END_TEST

/* ---- address choice: a made-up interface list ------------------------- */

enum { IF_LO, IF_ETH0, IF_ETH1, IF_DOWN, IF_COUNT };
static struct ifaddrs fake_ifs[IF_COUNT];
static struct sockaddr_in fake_addrs[IF_COUNT];

/* lo 127.0.0.1, eth0 10.1.0.5, eth1 192.168.7.9, down0 172.16.0.3 (DOWN),
 * chained in that order. */
static const struct ifaddrs *fake_list(void) {
  static const char *names[IF_COUNT] = {"lo", "eth0", "eth1", "down0"};
  static const char *ips[IF_COUNT] = {"127.0.0.1", "10.1.0.5", "192.168.7.9",
                                      "172.16.0.3"};
  for (int i = 0; i < IF_COUNT; i++) {
    fake_addrs[i].sin_family = AF_INET;
    ck_assert_int_eq(inet_pton(AF_INET, ips[i], &fake_addrs[i].sin_addr), 1);
    fake_ifs[i] = (struct ifaddrs){
        .ifa_next = i + 1 < IF_COUNT ? &fake_ifs[i + 1] : NULL,
        .ifa_name = (char *)names[i],
        .ifa_flags =
            i == IF_DOWN ? 0 : IFF_UP | (i == IF_LO ? IFF_LOOPBACK : 0),
        .ifa_addr = (struct sockaddr *)&fake_addrs[i]};
  }
  return &fake_ifs[0];
}

/* The address hc_tcp_choose_ip picks, as text ("error" on failure). */
static const char *chosen(const struct ifaddrs *list, const char *spec,
                          const char *reached) {
  static char text[INET_ADDRSTRLEN];
  struct in_addr ip = {.s_addr = htonl(0x01020304)};
  if (hc_tcp_choose_ip(list, spec, reached, &ip) != HC_OK) {
    ck_assert_uint_eq(ntohl(ip.s_addr), 0x01020304); /* untouched */
    return "error";
  }
  return inet_ntop(AF_INET, &ip, text, sizeof text);
}

START_TEST(test_ip_reached_launcher_address_wins_by_default) {
  const struct ifaddrs *list = fake_list();
  ck_assert_str_eq(chosen(list, NULL, "192.168.7.9"), "192.168.7.9");
  ck_assert_str_eq(chosen(list, NULL, "10.1.0.5"), "10.1.0.5");
}
END_TEST

START_TEST(test_ip_unusable_reached_address_falls_back) {
  const struct ifaddrs *list = fake_list();
  /* No launcher over TCP, a loopback launcher, an address on no
   * interface, one on a DOWN interface, text that is no address: the first
   * UP non-loopback interface. */
  ck_assert_str_eq(chosen(list, NULL, NULL), "10.1.0.5");
  ck_assert_str_eq(chosen(list, NULL, ""), "10.1.0.5");
  ck_assert_str_eq(chosen(list, NULL, "127.0.0.1"), "10.1.0.5");
  ck_assert_str_eq(chosen(list, NULL, "10.9.9.9"), "10.1.0.5");
  ck_assert_str_eq(chosen(list, NULL, "172.16.0.3"), "10.1.0.5");
  ck_assert_str_eq(chosen(list, NULL, "host:1"), "10.1.0.5");
  /* Only loopback: 127.0.0.1. */
  fake_ifs[IF_LO].ifa_next = NULL;
  ck_assert_str_eq(chosen(list, NULL, "192.168.7.9"), "127.0.0.1");
}
END_TEST

START_TEST(test_ip_tcp_if_overrides_reached_address) {
  const struct ifaddrs *list = fake_list();
  ck_assert_str_eq(chosen(list, "eth0", "192.168.7.9"), "10.1.0.5");
  ck_assert_str_eq(chosen(list, "192.168.0.0/16", "10.1.0.5"), "192.168.7.9");
  ck_assert_str_eq(chosen(list, "lo", "192.168.7.9"), "127.0.0.1");
  ck_assert_str_eq(chosen(list, "down0", "192.168.7.9"), "error");
  ck_assert_str_eq(chosen(list, "nosuch0", NULL), "error");
}
END_TEST

/* The bootstrap records the local address of a TCP connection to the
 * launcher, and nothing for a Unix socket. */
START_TEST(test_bootstrap_notes_tcp_socket_only) {
  int lfd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET,
                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof sa;
  ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
  ck_assert_int_eq(listen(lfd, 1), 0);
  ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
  int cfd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_eq(connect(cfd, (struct sockaddr *)&sa, sizeof sa), 0);
  hc_bootstrap_info_t info;
  hc_bootstrap_info_clear(&info);
  ck_assert_int_eq(info.local_size, -1);
  ck_assert_str_eq(info.reached_ip, "");
  hc_bootstrap_note_socket(cfd, &info);
  ck_assert_str_eq(info.reached_ip, "127.0.0.1");
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  hc_bootstrap_info_clear(&info);
  hc_bootstrap_note_socket(sv[0], &info);
  ck_assert_str_eq(info.reached_ip, "");
  close(sv[0]);
  close(sv[1]);
  close(cfd);
  close(lfd);
}
END_TEST

static Suite *tcp_suite(void) {
  Suite *s = suite_create("tcp");
  TCase *tc = tcase_create("pair");
  tcase_set_timeout(tc, 2 * GUARD_SECONDS);
  tcase_add_test(tc, test_pingpong_every_size_small_packets);
  tcase_add_test(tc, test_pingpong_sizes_to_default_max_packet);
  tcase_add_test(tc, test_flood_hits_again_and_recovers);
  tcase_add_test(tc, test_simultaneous_first_sends);
  tcase_add_test(tc, test_peer_close_reports_failure);
  tcase_add_test(tc, test_connect_to_gone_peer_reports_failure);
  tcase_add_test(tc, test_fini_on_failed_init_and_null);
  tcase_add_test(tc, test_strangers_dropped);
  tcase_add_test(tc, test_wrong_secret_refused);
  tcase_add_test(tc, test_refused_hello_ends_the_attempt);
  tcase_add_test(tc, test_idle_strangers_closed_at_deadline);
  tcase_add_test(tc, test_handshake_cap_closes_oldest_silent);
  tcase_add_test(tc, test_slow_connector_connects_again);
  tcase_add_test(tc, test_watch_reports_peer_gone_before_first_packet);
  tcase_add_test(tc, test_secret_format);
  tcase_add_test(tc, test_large_payloads_read_in_place);
  suite_add_tcase(s, tc);
  TCase *ip = tcase_create("address");
  tcase_add_test(ip, test_ip_reached_launcher_address_wins_by_default);
  tcase_add_test(ip, test_ip_unusable_reached_address_falls_back);
  tcase_add_test(ip, test_ip_tcp_if_overrides_reached_address);
  tcase_add_test(ip, test_bootstrap_notes_tcp_socket_only);
  suite_add_tcase(s, ip);
  return s;
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  SRunner *sr = srunner_create(tcp_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

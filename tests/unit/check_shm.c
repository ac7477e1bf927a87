/*
 * The shm transport between forked processes, with no launcher: the test
 * plays the engine.  The Check test process is local rank 0; ranks 1..n-1
 * are its children, joined to it by pipes that carry the address exchange
 * and barriers.  World ranks are spread out (10, 13, 16, ...) so the
 * world-to-local mapping is exercised.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "transport/shm/shm_fastbox.h" /* HC_SHM_FASTBOX_MAX */
#include "transport/shm/shm_impl.h"    /* body_rates: the slot, the pool */
#include "transport/transport.h"

#define MAX_RANKS 4
#define GUARD_SECONDS 120

static const hc_transport_ops_t *const ops = &hc_transport_shm_ops;

typedef struct harness {
  int n;
  int me;
  int world[MAX_RANKS];
  int up[MAX_RANKS][2];   /* child i -> rank 0 */
  int down[MAX_RANKS][2]; /* rank 0 -> child i */
  pid_t pid[MAX_RANKS];
  void *ctx;
  char seg_path[HC_TRANSPORT_ADDRESS_MAX + 16];
  int seg_named; /* a /dev/shm name, not local rank 0's memfd */
} harness_t;

/* What recv_cb saw, per process. */
typedef enum { INBOX_COPY, INBOX_STREAM } inbox_mode_t;
static struct {
  inbox_mode_t mode;
  unsigned char *buf;
  size_t cap;
  size_t len;
  int src;
  long count;
  uint32_t next_seq[MAX_RANKS]; /* stream: next sequence per local sender */
  long bad;
} inbox;

static int is_child;

static void expect(int ok, const char *what, int line) {
  if (ok)
    return;
  if (is_child) {
    fprintf(stderr, "rank child: check failed at line %d: %s\n", line, what);
    _exit(1);
  }
  ck_abort_msg("rank 0: check failed at line %d: %s", line, what);
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

static void harness_barrier(harness_t *h) {
  char byte = 'b';
  if (h->me == 0) {
    for (int i = 1; i < h->n; i++)
      io_all(h->up[i][0], &byte, 1, 0);
    for (int i = 1; i < h->n; i++)
      io_all(h->down[i][1], &byte, 1, 1);
  } else {
    io_all(h->up[h->me][1], &byte, 1, 1);
    io_all(h->down[h->me][0], &byte, 1, 0);
  }
}

static int stream_src_index(harness_t *h, int src) {
  for (int i = 0; i < h->n; i++)
    if (h->world[i] == src)
      return i;
  return -1;
}

static harness_t *cb_harness;

static unsigned char stream_byte(uint32_t seq, size_t i) {
  return (unsigned char)(seq * 131u + i * 7u + 1);
}

/* Stream packets: [u32 seq][bytes]; length stream_base + 4 + seq % 2000.
 * A body sets stream_base on every rank before it streams. */
#define STREAM_BASE_MAX 512
static size_t stream_base;
/* Or, when a body sets them, lengths taken in turn from stream_sizes. */
static const size_t *stream_sizes;
static size_t stream_nsizes;
static size_t stream_len(uint32_t seq) {
  if (stream_nsizes > 0)
    return stream_sizes[seq % stream_nsizes];
  return stream_base + 4 + seq % 2000;
}

static void inbox_stream(int src, const unsigned char *packet, size_t len) {
  int from = stream_src_index(cb_harness, src);
  uint32_t seq;
  if (from < 0 || len < 4) {
    inbox.bad++;
    return;
  }
  memcpy(&seq, packet, 4);
  if (seq != inbox.next_seq[from] || len != stream_len(seq)) {
    inbox.bad++;
    return;
  }
  inbox.next_seq[from]++;
  for (size_t i = 4; i < len; i++)
    if (packet[i] != stream_byte(seq, i)) {
      inbox.bad++;
      return;
    }
}

static void inbox_cb(void *engine, int src, const void *packet, size_t len) {
  (void)engine;
  inbox.count++;
  inbox.src = src;
  if (inbox.mode == INBOX_STREAM) {
    inbox_stream(src, packet, len);
    return;
  }
  if (len > inbox.cap) {
    inbox.bad++;
    return;
  }
  memcpy(inbox.buf, packet, len);
  inbox.len = len;
}

static void exchange_addresses(harness_t *h,
                               char addr[][HC_TRANSPORT_ADDRESS_MAX]) {
  size_t rec = HC_TRANSPORT_ADDRESS_MAX;
  expect(ops->address(h->ctx, addr[h->me], rec) == HC_OK, "address", __LINE__);
  expect(strchr(addr[h->me], ' ') == NULL, "address has no space", __LINE__);
  if (h->me == 0) {
    for (int i = 1; i < h->n; i++)
      io_all(h->up[i][0], addr[i], rec, 0);
    for (int i = 1; i < h->n; i++)
      io_all(h->down[i][1], addr, rec * (size_t)h->n, 1);
  } else {
    io_all(h->up[h->me][1], addr[h->me], rec, 1);
    io_all(h->down[h->me][0], addr, rec * (size_t)h->n, 0);
  }
}

static void harness_connect(harness_t *h) {
  hc_transport_init_args_t args = {.world_rank = h->world[h->me],
                                   .world_size = 40,
                                   .local_rank = h->me,
                                   .local_size = h->n,
                                   .local_world_ranks = h->world,
                                   .recv_cb = inbox_cb,
                                   .engine = h};
  expect(ops->init(&args, &h->ctx) == HC_OK, "init", __LINE__);
  /* The engine may size its eager path before the segment is mapped. */
  size_t early_max = ops->max_packet(h->ctx);
  char addr[MAX_RANKS][HC_TRANSPORT_ADDRESS_MAX];
  exchange_addresses(h, addr);
  for (int i = 0; i < h->n; i++)
    if (i != h->me)
      expect(ops->connect(h->ctx, h->world[i], addr[i]) == HC_OK, "connect",
             __LINE__);
  long leader_pid;
  int leader_fd;
  h->seg_named = sscanf(addr[0], "memfd-%ld-%d", &leader_pid, &leader_fd) != 2;
  if (h->seg_named)
    snprintf(h->seg_path, sizeof h->seg_path, "/dev/shm/%.*s",
             (int)strcspn(addr[0], ":"), addr[0]);
  else
    snprintf(h->seg_path, sizeof h->seg_path, "/proc/%ld/fd/%d", leader_pid,
             leader_fd);
  harness_barrier(h);
  if (h->me == 0) {
    struct stat st;
    expect(stat(h->seg_path, &st) == 0, "segment exists before connected",
           __LINE__);
    /* stat follows the /proc fd link to the memfd's inode, which is born
     * 0777 unless the transport changed it. */
    expect((st.st_mode & 0777) == 0600, "segment mode 0600", __LINE__);
  }
  expect(ops->connected(h->ctx) == HC_OK, "connected", __LINE__);
  harness_barrier(h);
  inbox.cap = ops->max_packet(h->ctx);
  expect(early_max == inbox.cap, "max_packet same before and after connect",
         __LINE__);
  inbox.buf = malloc(inbox.cap);
  expect(inbox.buf != NULL && inbox.cap > 0, "inbox", __LINE__);
}

typedef void (*rank_body_t)(harness_t *h);

static void harness_child(harness_t *h, rank_body_t body) {
  is_child = 1;
  alarm(GUARD_SECONDS);
  harness_connect(h);
  body(h);
  harness_barrier(h);
  ops->fini(h->ctx);
  _exit(0);
}

/* Runs body on n ranks; rank 0 is this process.  Fails unless every child
 * exits 0. */
static void harness_run(int n, rank_body_t body) {
  static harness_t h;
  memset(&h, 0, sizeof h);
  memset(&inbox, 0, sizeof inbox);
  cb_harness = &h;
  h.n = n;
  for (int i = 0; i < n; i++)
    h.world[i] = 10 + 3 * i;
  for (int i = 1; i < n; i++)
    ck_assert(pipe(h.up[i]) == 0 && pipe(h.down[i]) == 0);
  for (int i = 1; i < n; i++) {
    h.pid[i] = fork();
    ck_assert_int_ge(h.pid[i], 0);
    if (h.pid[i] == 0) {
      h.me = i;
      harness_child(&h, body);
    }
  }
  alarm(GUARD_SECONDS);
  harness_connect(&h);
  body(&h);
  harness_barrier(&h);
  ops->fini(h.ctx);
  free(inbox.buf);
  for (int i = 1; i < n; i++) {
    int status;
    ck_assert_int_eq(waitpid(h.pid[i], &status, 0), h.pid[i]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "rank %d ended with status 0x%x", i, status);
  }
}

/* Sends, retrying after progress and a sleep while the ring is full. */
static void send_retry(harness_t *h, int to, const struct iovec *iov,
                       int iovcnt) {
  hc_status_t rc;
  while ((rc = ops->send(h->ctx, h->world[to], iov, iovcnt)) == HC_ERR_AGAIN) {
    if (ops->progress(h->ctx) == 0)
      ops->wait(h->ctx, -1);
  }
  expect(rc == HC_OK, "send", __LINE__);
}

/* Progress (sleeping when idle, with no timeout: a lost wake-up hangs
 * until the alarm) until count packets arrived in all. */
static void pump_spin(harness_t *h, long count, int spins) {
  int idle = 0;
  while (inbox.count < count) {
    if (ops->progress(h->ctx) > 0) {
      idle = 0;
    } else if (++idle > spins) {
      ops->wait(h->ctx, -1);
      idle = 0;
    }
  }
}

static void pump_until(harness_t *h, long count) { pump_spin(h, count, 200); }

static unsigned char pp_byte(size_t size, size_t i, int dir) {
  return (unsigned char)(size * 13u + i * 7u + (size_t)dir * 101u);
}

static void pp_fill(unsigned char *buf, size_t size, int dir) {
  for (size_t i = 0; i < size; i++)
    buf[i] = pp_byte(size, i, dir);
}

static void pp_check(harness_t *h, size_t size, int dir, int from) {
  expect(inbox.len == size, "ping-pong length", __LINE__);
  expect(inbox.src == h->world[from], "ping-pong source", __LINE__);
  for (size_t i = 0; i < size; i++)
    if (inbox.buf[i] != pp_byte(size, i, dir))
      expect(0, "ping-pong byte", __LINE__);
}

static void pp_send(harness_t *h, int to, unsigned char *buf, size_t size) {
  /* Two pieces, so the gather path is covered too. */
  struct iovec iov[2] = {{buf, size / 3}, {buf + size / 3, size - size / 3}};
  send_retry(h, to, iov, 2);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Prints (never asserts) the one-way latency of 8-byte packets, polling
 * the way the engine does before it sleeps. */
static void pp_measure(harness_t *h) {
  const int spins = 100000;
  const int iters = 20000;
  unsigned char buf[8] = {0};
  struct iovec iov = {buf, sizeof buf};
  harness_barrier(h);
  double t0 = now_s();
  for (int it = 0; it < iters; it++) {
    if (h->me == 0) {
      send_retry(h, 1, &iov, 1);
      pump_spin(h, inbox.count + 1, spins);
    } else {
      pump_spin(h, inbox.count + 1, spins);
      send_retry(h, 0, &iov, 1);
    }
  }
  double t = now_s() - t0;
  if (h->me == 0)
    printf("shm ping-pong 8 B: %.3f us one-way (%d round trips)\n",
           t / iters / 2 * 1e6, iters);
}

static void body_pingpong(harness_t *h) {
  size_t max = inbox.cap;
  unsigned char *buf = malloc(max + 1);
  expect(buf != NULL, "malloc", __LINE__);
  for (size_t size = 0; size <= max; size++) {
    if (h->me == 0) {
      pp_fill(buf, size, 0);
      pp_send(h, 1, buf, size);
      pump_until(h, inbox.count + 1);
      pp_check(h, size, 1, 1);
    } else {
      pump_until(h, inbox.count + 1);
      pp_check(h, size, 0, 0);
      pp_fill(buf, size, 1);
      pp_send(h, 0, buf, size);
    }
  }
  if (h->me == 0) {
    struct iovec iov = {buf, max + 1};
    expect(ops->send(h->ctx, h->world[1], &iov, 1) == HC_ERR_ARG,
           "packet above max_packet rejected", __LINE__);
    expect(ops->send(h->ctx, h->world[0], &iov, 1) == HC_ERR_RANK,
           "send to self rejected", __LINE__);
    expect(ops->send(h->ctx, 11, &iov, 1) == HC_ERR_RANK,
           "send to a non-local rank rejected", __LINE__);
  }
  pp_measure(h);
  free(buf);
}

START_TEST(test_shm_pingpong_every_size_up_to_max_packet) {
  harness_run(2, body_pingpong);
}
END_TEST

static void stream_send(harness_t *h, int to, uint32_t seq, int retry,
                        hc_status_t *rc) {
  unsigned char buf[4 + 2000 + STREAM_BASE_MAX];
  size_t len = stream_len(seq);
  memcpy(buf, &seq, 4);
  for (size_t i = 4; i < len; i++)
    buf[i] = stream_byte(seq, i);
  struct iovec iov = {buf, len};
  if (retry) {
    send_retry(h, to, &iov, 1);
    *rc = HC_OK;
  } else {
    *rc = ops->send(h->ctx, h->world[to], &iov, 1);
  }
}

#define FLOOD_TOTAL 30000

/* Rank 0: packets first .. total - 1 of the stream to rank 1, each retried
 * until it fits. */
static void stream_send_rest(harness_t *h, uint32_t first, uint32_t total) {
  hc_status_t rc;
  for (uint32_t seq = first; seq < total; seq++)
    stream_send(h, 1, seq, 1, &rc);
}

/* Rank 1's half of a stream from rank 0 that starts at a barrier: every
 * one of total packets arrives once, whole and in order. */
static void stream_receive_all(harness_t *h, uint32_t total) {
  inbox.mode = INBOX_STREAM;
  harness_barrier(h);
  pump_until(h, total);
  expect(inbox.bad == 0, "every packet intact and in order", __LINE__);
  expect(inbox.next_seq[0] == total, "all packets", __LINE__);
}

static void body_flood(harness_t *h) {
  if (h->me == 0) {
    uint32_t seq = 0;
    hc_status_t rc = HC_OK;
    /* Fill the ring while rank 1 does not consume. */
    while (rc == HC_OK) {
      stream_send(h, 1, seq, 0, &rc);
      if (rc == HC_OK)
        seq++;
    }
    expect(rc == HC_ERR_AGAIN, "full ring returns AGAIN", __LINE__);
    expect(seq > 0, "some packets fitted", __LINE__);
    harness_barrier(h); /* lets rank 1 drain */
    /* Sleep for space with no timeout: only rank 1 freeing cells wakes. */
    ops->wait(h->ctx, -1);
    stream_send_rest(h, seq, FLOOD_TOTAL);
  } else {
    stream_receive_all(h, FLOOD_TOTAL);
  }
}

START_TEST(test_shm_flood_hits_again_and_recovers) {
  harness_run(2, body_flood);
}
END_TEST

#define POOL_FLOOD_PER_PEER 5000

/* Packets too large for a ring slot, to two receivers that do not consume
 * at first: the sender's one pool runs out before either ring does, and
 * only a receiver handing cells back wakes the sleeping sender. */
static void body_pool_flood(harness_t *h) {
  stream_base = 300;
  hc_status_t rc = HC_OK;
  if (h->me == 0) {
    uint32_t seq[3] = {0, 0, 0};
    for (int to = 1; rc == HC_OK; to = 3 - to) {
      stream_send(h, to, seq[to], 0, &rc);
      if (rc == HC_OK)
        seq[to]++;
    }
    expect(rc == HC_ERR_AGAIN, "full pool returns AGAIN", __LINE__);
    expect(seq[1] > 0 && seq[2] > 0, "some packets fitted", __LINE__);
    harness_barrier(h); /* lets ranks 1 and 2 drain */
    ops->wait(h->ctx, -1);
    for (int to = 1; to <= 2; to++)
      for (; seq[to] < POOL_FLOOD_PER_PEER; seq[to]++)
        stream_send(h, to, seq[to], 1, &rc);
  } else {
    inbox.mode = INBOX_STREAM;
    harness_barrier(h);
    pump_until(h, POOL_FLOOD_PER_PEER);
    expect(inbox.bad == 0, "every pooled packet intact and in order",
           __LINE__);
    expect(inbox.next_seq[0] == POOL_FLOOD_PER_PEER, "all pooled packets",
           __LINE__);
  }
  stream_base = 0;
}

START_TEST(test_shm_pool_exhausted_then_woken_by_release) {
  harness_run(3, body_pool_flood);
}
END_TEST

static void body_wait_woken(harness_t *h) {
  uint32_t token = 0xfeedbeef;
  for (int round = 0; round < 5; round++) {
    harness_barrier(h);
    if (h->me == 0) {
      usleep(50000); /* Give rank 1 time to fall asleep. */
      struct iovec iov = {&token, sizeof token};
      send_retry(h, 1, &iov, 1);
    } else {
      long before = inbox.count;
      while (inbox.count == before) {
        if (ops->progress(h->ctx) == 0)
          ops->wait(h->ctx, -1);
      }
      expect(inbox.len == 4 && memcmp(inbox.buf, &token, 4) == 0,
             "woken receiver got the packet", __LINE__);
    }
  }
}

START_TEST(test_shm_blocked_wait_is_woken_by_send) {
  harness_run(2, body_wait_woken);
}
END_TEST

#define GET_BYTES ((size_t)8 << 20)

/* Rank 1 exposes a buffer; rank 0 (its parent, which ptrace rules favour)
 * reads it with get at an odd offset and in full. */
static void body_get(harness_t *h) {
  if (h->me == 1) {
    unsigned char *src = malloc(GET_BYTES);
    expect(src != NULL, "malloc", __LINE__);
    for (size_t i = 0; i < GET_BYTES; i++)
      src[i] = (unsigned char)(i * 2654435761u >> 13);
    uint64_t addr = (uint64_t)(uintptr_t)src;
    struct iovec iov = {&addr, sizeof addr};
    send_retry(h, 0, &iov, 1);
    harness_barrier(h); /* rank 0 finished reading */
    free(src);
    return;
  }
  pump_until(h, 1);
  uint64_t addr;
  memcpy(&addr, inbox.buf, sizeof addr);
  unsigned char *dst = malloc(GET_BYTES);
  expect(dst != NULL, "malloc", __LINE__);
  memset(dst, 0, GET_BYTES);
  double t0 = now_s();
  hc_status_t rc = ops->get(h->ctx, h->world[1], dst, addr, GET_BYTES);
  double t = now_s() - t0;
  expect(rc == HC_OK, "get of 8 MiB", __LINE__);
  printf("shm get 8 MiB (first touch of the destination): %.2f GB/s\n",
         GET_BYTES / t * 1e-9);
  t0 = now_s();
  rc = ops->get(h->ctx, h->world[1], dst, addr, GET_BYTES);
  t = now_s() - t0;
  expect(rc == HC_OK, "second get of 8 MiB", __LINE__);
  printf("shm get 8 MiB (warm): %.2f GB/s\n", GET_BYTES / t * 1e-9);
  for (size_t i = 0; i < GET_BYTES; i++)
    if (dst[i] != (unsigned char)(i * 2654435761u >> 13))
      expect(0, "get byte", __LINE__);
  memset(dst, 0, 4096);
  rc = ops->get(h->ctx, h->world[1], dst + 1, addr + 3, 1000);
  expect(rc == HC_OK, "get at odd offsets", __LINE__);
  for (size_t i = 0; i < 1000; i++)
    if (dst[1 + i] != (unsigned char)((i + 3) * 2654435761u >> 13))
      expect(0, "odd get byte", __LINE__);
  expect(dst[0] == 0 && dst[1001] == 0, "get wrote only its bytes", __LINE__);
  free(dst);
  harness_barrier(h);
}

START_TEST(test_shm_get_8mib_through_cma) { harness_run(2, body_get); }
END_TEST

static void body_cma_off(harness_t *h) {
  if (h->me == 0) {
    unsigned char local[64];
    hc_status_t rc =
        ops->get(h->ctx, h->world[1], local, (uint64_t)(uintptr_t)local, 64);
    expect(rc == HC_ERR_NOT_SUPPORTED, "HCMPI_SHM_CMA=0 refuses get", __LINE__);
  }
}

START_TEST(test_shm_get_not_supported_when_cma_disabled) {
  setenv("HCMPI_SHM_CMA", "0", 1);
  harness_run(2, body_cma_off);
}
END_TEST

/* Named: the /dev/shm name is unlinked.  memfd: local rank 0 closed its
 * descriptor (the number may be reused, but not by the segment). */
static void body_name_gone(harness_t *h) {
  if (h->seg_named) {
    struct stat st;
    expect(stat(h->seg_path, &st) != 0 && errno == ENOENT,
           "segment name gone after connected", __LINE__);
    return;
  }
  char target[256] = "";
  ssize_t n = readlink(h->seg_path, target, sizeof target - 1);
  if (n > 0)
    target[n] = '\0';
  expect(strstr(target, "hcmpi-shm") == NULL,
         "leader's memfd closed after connected", __LINE__);
}

START_TEST(test_shm_segment_name_gone_after_connected) {
  harness_run(3, body_name_gone);
}
END_TEST

/* HCMPI_SHM_MEMFD=0: the named /dev/shm segment, mode 0600, unlinked at
 * connected(). */
START_TEST(test_shm_named_segment_when_memfd_disabled) {
  setenv("HCMPI_SHM_MEMFD", "0", 1);
  harness_run(3, body_name_gone);
  unsetenv("HCMPI_SHM_MEMFD");
}
END_TEST

/* Every rank streams to every other at once, so each of the n(n-1) rings
 * carries traffic and a wrong ring index shows up as a bad sequence. */
static void body_all_pairs(harness_t *h) {
  const uint32_t per_peer = 3000;
  inbox.mode = INBOX_STREAM;
  hc_status_t rc;
  for (uint32_t seq = 0; seq < per_peer; seq++)
    for (int to = 0; to < h->n; to++)
      if (to != h->me)
        stream_send(h, to, seq, 1, &rc);
  pump_until(h, (long)per_peer * (h->n - 1));
  expect(inbox.bad == 0, "all-pairs packets intact and in order", __LINE__);
  for (int from = 0; from < h->n; from++)
    if (from != h->me)
      expect(inbox.next_seq[from] == per_peer, "all packets from each peer",
             __LINE__);
}

START_TEST(test_shm_four_ranks_all_pairs_stream_in_order) {
  harness_run(4, body_all_pairs);
}
END_TEST

/* Lengths on both sides of each limit: the fast box's, a ring slot's
 * (240 B) and beyond (a pool cell), small ones between large ones. */
static const size_t mixed_sizes[] = {8,
                                     HC_SHM_FASTBOX_MAX,
                                     HC_SHM_FASTBOX_MAX + 1,
                                     4,
                                     240,
                                     8,
                                     241,
                                     2000,
                                     8,
                                     8,
                                     64,
                                     239,
                                     16,
                                     1000,
                                     HC_SHM_FASTBOX_MAX,
                                     200,
                                     5,
                                     HC_SHM_FASTBOX_MAX - 1};
#define MIXED_BURST 40
#define MIXED_TOTAL 20000

/* First a burst the receiver does not take yet, so the fast box fills and
 * the packets after it go through the ring and the pool; then a stream
 * taken while it flows.  Every packet must arrive once, whole, in the
 * order sent, whichever way each one went. */
static void body_mixed_sizes(harness_t *h) {
  stream_sizes = mixed_sizes;
  stream_nsizes = sizeof mixed_sizes / sizeof mixed_sizes[0];
  if (h->me == 0) {
    hc_status_t rc;
    for (uint32_t seq = 0; seq < MIXED_BURST; seq++) {
      stream_send(h, 1, seq, 0, &rc);
      expect(rc == HC_OK, "the burst fits the box, ring and pool", __LINE__);
    }
    harness_barrier(h);
    stream_send_rest(h, MIXED_BURST, MIXED_TOTAL);
  } else {
    stream_receive_all(h, MIXED_TOTAL);
  }
}

START_TEST(test_shm_fastbox_ring_and_pool_keep_order) {
  harness_run(2, body_mixed_sizes);
}
END_TEST

START_TEST(test_shm_small_cells_from_env_and_fini_on_half_init) {
  setenv("HCMPI_SHM_CELL_SIZE", "1k", 1);
  setenv("HCMPI_SHM_CELLS", "4", 1);
  harness_run(2, body_pingpong);
  /* fini on a context whose init failed, and on NULL. */
  int ranks[2] = {1, 2};
  hc_transport_init_args_t bad = {.world_rank = 1,
                                  .local_rank = 5,
                                  .local_size = 2,
                                  .local_world_ranks = ranks,
                                  .recv_cb = inbox_cb};
  void *ctx = NULL;
  ck_assert_int_eq(ops->init(&bad, &ctx), HC_ERR_ARG);
  ops->fini(ctx);
  ops->fini(NULL);
}
END_TEST

/* The smallest rendezvous read with CMA (get_min toward this rank itself,
 * which no run-delay verdict touches): the processor profile's
 * HCMPI_SHM_CMA_MIN unless the variable is set. */
static size_t cma_min_expected;

static size_t eager_max_expected;

static void body_cma_min(harness_t *h) {
  size_t got = ops->get_min(h->ctx, h->world[h->me], 0);
  expect(got == cma_min_expected, "get_min is the expected CMA_MIN", __LINE__);
  expect(ops->eager_max != NULL &&
             ops->eager_max(h->ctx) == eager_max_expected,
         "eager_max is the processor profile's", __LINE__);
}

/* The profile's eager_max too, which has no setting of its own. */
START_TEST(test_shm_cma_min_from_cpu_profile_unless_set) {
  unsetenv("HCMPI_SHM_CMA_MIN");
  setenv("HCMPI_CPU_PROFILE", "intel", 1);
  cma_min_expected = (size_t)32 << 10;
  eager_max_expected = (size_t)4 << 10;
  harness_run(2, body_cma_min);
  setenv("HCMPI_CPU_PROFILE", "amd", 1);
  cma_min_expected = (size_t)4 << 20;
  eager_max_expected = (size_t)16 << 10;
  harness_run(2, body_cma_min);
  setenv("HCMPI_SHM_CMA_MIN", "100k", 1);
  cma_min_expected = (size_t)100 << 10;
  harness_run(2, body_cma_min);
  setenv("HCMPI_CPU_PROFILE", "intel", 1);
  eager_max_expected = (size_t)4 << 10;
  harness_run(2, body_cma_min);
  unsetenv("HCMPI_SHM_CMA_MIN");
  unsetenv("HCMPI_CPU_PROFILE");
}
END_TEST

/* What the placement op must answer for the other ranks of the node;
 * -1: near or far (the start-up probe's), never unknown. */
static int placement_expected;

static void body_placement(harness_t *h) {
  for (int i = 0; i < h->n; i++) {
    hc_transport_placement_t got = ops->placement(h->ctx, h->world[i]);
    if (i == h->me)
      expect(got == HC_TRANSPORT_PLACEMENT_UNKNOWN, "own rank: unknown",
             __LINE__);
    else if (placement_expected < 0)
      expect(got == HC_TRANSPORT_PLACEMENT_NEAR ||
                 got == HC_TRANSPORT_PLACEMENT_FAR,
             "probed: near or far", __LINE__);
    else
      expect((int)got == placement_expected, "the peer's placement", __LINE__);
  }
  /* A rank of another node (world ranks here are 10, 13, 16...). */
  expect(ops->placement(h->ctx, 11) == HC_TRANSPORT_PLACEMENT_UNKNOWN,
         "a rank not on the node: unknown", __LINE__);
}

/* The placement op answers HCMPI_SHM_PLACEMENT's forced verdict for every
 * peer, the probe's where the profile probes (amd: two ranks), and
 * unknown where nothing was judged (intel's profile has no far choices,
 * so no probe). */
START_TEST(test_shm_placement_op_answers_the_forced_or_probed_verdict) {
  unsetenv("HCMPI_SHM_FAR_READ_MIN");
  unsetenv("HCMPI_SHM_FAR_CELL_STREAM_MIN");
  setenv("HCMPI_CPU_PROFILE", "amd", 1);
  setenv("HCMPI_SHM_PLACEMENT", "far", 1);
  placement_expected = HC_TRANSPORT_PLACEMENT_FAR;
  harness_run(2, body_placement);
  harness_run(3, body_placement);
  setenv("HCMPI_SHM_PLACEMENT", "near", 1);
  placement_expected = HC_TRANSPORT_PLACEMENT_NEAR;
  harness_run(2, body_placement);
  setenv("HCMPI_SHM_PLACEMENT", "auto", 1);
  /* Two ranks on one processor are crowded: not probed. */
  placement_expected =
      sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? -1 : HC_TRANSPORT_PLACEMENT_UNKNOWN;
  harness_run(2, body_placement);
  placement_expected = HC_TRANSPORT_PLACEMENT_UNKNOWN;
  harness_run(3, body_placement); /* probed on two ranks only */
  setenv("HCMPI_CPU_PROFILE", "intel", 1);
  harness_run(2, body_placement);
  unsetenv("HCMPI_SHM_PLACEMENT");
  unsetenv("HCMPI_CPU_PROFILE");
}
END_TEST

/* Rank 1 sends rank 0 a packet of a pool cell, then checks how its pool
 * fills cells now (stream_min: from which size past the cache), which
 * follows what rank 0 last said in its slot's far_now. */
static void rates_fills_are(harness_t *h, size_t stream_min, int line) {
  static unsigned char cell[8192];
  harness_barrier(h);
  if (h->me == 1) {
    struct iovec iov = {cell, sizeof cell};
    send_retry(h, 0, &iov, 1);
    shm_ctx_t *shm = h->ctx;
    expect(shm->pools[shm->local_rank].stream_min == stream_min,
           "rank 1's cell fills follow rank 0's far_now", line);
  } else {
    pump_until(h, inbox.count + 1);
  }
  harness_barrier(h);
}

/* Rank 0's read-or-stream choice for rendezvous from rank 1 under the
 * amd profile (reads from 1 MiB where far, CMA_MIN 4 MiB otherwise), the
 * verdict forced far and the rates allowed to overrule it
 * (HCMPI_TEST_SHM_RATES): get_min is far_read_min while rendezvous from
 * 1 MiB are read, cma_min while they stream (a read to measure that way
 * waits until no stream lands); and rank 1's cell fills,
 * past the cache from 4 KiB while rank 0 reads (far), plain while it
 * streams or streams one to measure that way. */
static void body_rates(harness_t *h) {
  const size_t far = (size_t)1 << 20, stream = (size_t)4 << 20, mib = far;
  const size_t far_fills = HC_COPY_STREAMS ? (size_t)4 << 10 : 0;
  int peer = h->world[1];
  _Atomic uint32_t *far_now = &((shm_ctx_t *)h->ctx)->slots[0].far_now;
  rates_fills_are(h, far_fills, __LINE__); /* the verdict's */
  if (h->me == 0) {
    expect(ops->rndv_measured != NULL, "shm takes rendezvous measures",
           __LINE__);
    expect(ops->get_min(h->ctx, peer, 0) == far,
           "nothing measured: the verdict", __LINE__);
    ops->rndv_measured(h->ctx, peer, mib, 100000, 1); /* read: 10 GB/s */
    expect(*far_now == 2, "reads alone measured: far", __LINE__);
    expect(ops->get_min(h->ctx, peer, 0) == stream,
           "reads measured, streams never: one rendezvous streams", __LINE__);
    expect(*far_now == 1, "a stream to measure: cells filled plain",
           __LINE__);
    expect(ops->get_min(h->ctx, peer, 0) == far,
           "the ones behind it read while that one moves", __LINE__);
    ops->rndv_measured(h->ctx, peer, mib, 50000, 0); /* stream: 20 GB/s */
    expect(ops->get_min(h->ctx, peer, 0) == stream,
           "streams moved more: stream", __LINE__);
    ops->rndv_measured(h->ctx, peer, far / 2, 1000, 1);
    expect(ops->get_min(h->ctx, peer, 0) == stream,
           "a rendezvous below the far threshold measures nothing", __LINE__);
    ops->rndv_measured(h->ctx, peer, mib, 500000, 0); /* stream: 2 GB/s */
    expect(ops->get_min(h->ctx, peer, 0) == stream,
           "a slower measure does not undo a fresh faster one", __LINE__);
    expect(*far_now == 1, "streaming: near", __LINE__);
  }
  rates_fills_are(h, 0, __LINE__);
  if (h->me == 0) {
    /* Past the measures' freshness the other way is tried once more, and
     * a slow measure then counts. */
    struct timespec pause = {0, 250 * 1000 * 1000};
    nanosleep(&pause, NULL);
    expect(ops->get_min(h->ctx, peer, 2) == stream,
           "stale, but streams still land: no read to measure", __LINE__);
    expect(ops->get_min(h->ctx, peer, 0) == far, "stale: one rendezvous reads",
           __LINE__);
    expect(ops->get_min(h->ctx, peer, 0) == stream, "then streams again",
           __LINE__);
    ops->rndv_measured(h->ctx, peer, mib, 500000, 0); /* stream: 2 GB/s */
    expect(ops->get_min(h->ctx, peer, 0) == far,
           "streams now slower than the reads: read", __LINE__);
    expect(*far_now == 2, "reading: far", __LINE__);
  }
  rates_fills_are(h, far_fills, __LINE__);
}

/* The same measures under a forced verdict alone change nothing. */
static void body_rates_forced(harness_t *h) {
  if (h->me != 0)
    return;
  int peer = h->world[1];
  ops->rndv_measured(h->ctx, peer, (size_t)1 << 20, 100000, 1);
  ops->rndv_measured(h->ctx, peer, (size_t)1 << 20, 1000, 0);
  for (int i = 0; i < 3; i++)
    expect(ops->get_min(h->ctx, peer, 0) == ((size_t)1 << 20),
           "forced far: read whatever the measures", __LINE__);
}

START_TEST(test_shm_rendezvous_follow_the_faster_way_once_measured) {
  setenv("HCMPI_CPU_PROFILE", "amd", 1);
  setenv("HCMPI_SHM_PLACEMENT", "far", 1);
  setenv("HCMPI_SHM_LONE_READ_MIN", "1g", 1);
  setenv("HCMPI_SHM_STREAM_RUNQ_MAX", "100", 1);
  unsetenv("HCMPI_SHM_CMA_MIN");
  unsetenv("HCMPI_SHM_FAR_READ_MIN");
  setenv("HCMPI_TEST_SHM_RATES", "1", 1);
  harness_run(2, body_rates);
  unsetenv("HCMPI_TEST_SHM_RATES");
  harness_run(2, body_rates_forced);
  unsetenv("HCMPI_SHM_STREAM_RUNQ_MAX");
  unsetenv("HCMPI_SHM_LONE_READ_MIN");
  unsetenv("HCMPI_SHM_PLACEMENT");
  unsetenv("HCMPI_CPU_PROFILE");
}
END_TEST

static Suite *shm_suite(void) {
  Suite *s = suite_create("shm");
  TCase *tc = tcase_create("shm");
  tcase_set_timeout(tc, GUARD_SECONDS + 30);
  tcase_add_test(tc, test_shm_pingpong_every_size_up_to_max_packet);
  tcase_add_test(tc, test_shm_flood_hits_again_and_recovers);
  tcase_add_test(tc, test_shm_pool_exhausted_then_woken_by_release);
  tcase_add_test(tc, test_shm_blocked_wait_is_woken_by_send);
  tcase_add_test(tc, test_shm_get_8mib_through_cma);
  tcase_add_test(tc, test_shm_get_not_supported_when_cma_disabled);
  tcase_add_test(tc, test_shm_segment_name_gone_after_connected);
  tcase_add_test(tc, test_shm_named_segment_when_memfd_disabled);
  tcase_add_test(tc, test_shm_four_ranks_all_pairs_stream_in_order);
  tcase_add_test(tc, test_shm_fastbox_ring_and_pool_keep_order);
  tcase_add_test(tc, test_shm_small_cells_from_env_and_fini_on_half_init);
  tcase_add_test(tc, test_shm_cma_min_from_cpu_profile_unless_set);
  tcase_add_test(tc,
                 test_shm_placement_op_answers_the_forced_or_probed_verdict);
  tcase_add_test(tc, test_shm_rendezvous_follow_the_faster_way_once_measured);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(shm_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * Engine point-to-point over hcomm.h only: every protocol path, ordering,
 * synchronous mode, truncation, cancel, many outstanding requests, and
 * communicator isolation.  Run with 2 or more ranks (1 rank: skip).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hcomm.h"

static int rank, size;

static void check_at(int ok, const char *what, int line) {
  if (ok)
    return;
  fprintf(stderr, "rank %d: FAILED %s (line %d)\n", rank, what, line);
  hcomm_abort(1, what);
}
#define CHECK(cond) check_at((cond), #cond, __LINE__)

static void check_rc(hc_status_t rc, const char *what, int line) {
  if (rc == HC_OK)
    return;
  fprintf(stderr, "rank %d: %s: %s (line %d)\n", rank, what, hcomm_strerror(rc),
          line);
  hcomm_abort(1, what);
}
#define OK(call) check_rc((call), #call, __LINE__)

static hcomm_comm_t *world;

static unsigned char pattern(size_t i, size_t n, int salt) {
  return (unsigned char)((i * 131u + n * 7u + (unsigned)salt) & 0xff);
}

static void send_blocking(const void *buf, size_t n, int dest, int tag,
                          hcomm_comm_t *comm, int mode) {
  hcomm_request_t *req;
  OK(hcomm_isend(buf, n, dest, tag, comm, mode, &req));
  OK(hcomm_wait(req, NULL));
  hcomm_request_free(req);
}

static hc_status_t recv_blocking(void *buf, size_t n, int src, int tag,
                                 hcomm_comm_t *comm, hcomm_status_t *st) {
  hcomm_request_t *req;
  OK(hcomm_irecv(buf, n, src, tag, comm, &req));
  hc_status_t rc = hcomm_wait(req, st);
  hcomm_request_free(req);
  return rc;
}

/* Rank 0 and 1 bounce every size from 0 B to 16 MiB (around the eager /
 * rendezvous boundary too); bytes checked both ways. */
static void test_pingpong_sizes(void) {
  static const size_t extra[] = {1,     7,     4096,  16319, 16320,
                                 16321, 16384, 16385, 65536, 65537};
  size_t max = (size_t)16 << 20;
  unsigned char *buf = malloc(max);
  CHECK(buf != NULL);
  size_t sizes[64];
  int n = 0;
  sizes[n++] = 0;
  for (size_t s = 1; s <= max; s <<= 2)
    sizes[n++] = s;
  sizes[n++] = max;
  for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
    sizes[n++] = extra[i];
  if (rank > 1)
    goto out;
  for (int k = 0; k < n; k++) {
    size_t len = sizes[k];
    hcomm_status_t st;
    if (rank == 0) {
      for (size_t i = 0; i < len; i++)
        buf[i] = pattern(i, len, 1);
      send_blocking(buf, len, 1, k, world, HCOMM_SEND_STANDARD);
      memset(buf, 0, len);
      OK(recv_blocking(buf, len, 1, k, world, &st));
      for (size_t i = 0; i < len; i++)
        CHECK(buf[i] == pattern(i, len, 2));
    } else {
      memset(buf, 0, len);
      OK(recv_blocking(buf, len, 0, k, world, &st));
      for (size_t i = 0; i < len; i++)
        CHECK(buf[i] == pattern(i, len, 1));
      for (size_t i = 0; i < len; i++)
        buf[i] = pattern(i, len, 2);
      send_blocking(buf, len, 0, k, world, HCOMM_SEND_STANDARD);
    }
    CHECK(st.bytes == len && st.tag == k && st.source == 1 - rank);
    CHECK(st.error == HC_OK && st.cancelled == 0);
  }
out:
  free(buf);
}

/* Every other rank sends rounds of (round) to rank 0, which receives with
 * ANY_SOURCE: per source, values arrive in the order sent. */
static void test_any_source_order(void) {
  enum { ROUNDS = 50 };
  if (rank != 0) {
    for (int r = 0; r < ROUNDS; r++) {
      int v = rank * 1000 + r;
      size_t len = (r % 5 == 0) ? 40000 : sizeof v; /* mix in rendezvous */
      unsigned char *buf = calloc(1, len);
      memcpy(buf, &v, sizeof v);
      send_blocking(buf, len, 0, 5, world, HCOMM_SEND_STANDARD);
      free(buf);
    }
    return;
  }
  int *next = calloc((size_t)size, sizeof *next);
  unsigned char *buf = malloc(40000);
  for (int i = 0; i < ROUNDS * (size - 1); i++) {
    hcomm_status_t st;
    OK(recv_blocking(buf, 40000, HCOMM_ANY_SOURCE, 5, world, &st));
    int v;
    memcpy(&v, buf, sizeof v);
    CHECK(st.source >= 1 && st.source < size);
    CHECK(v == st.source * 1000 + next[st.source]);
    next[st.source]++;
  }
  free(next);
  free(buf);
}

/* A synchronous send stays incomplete until the receiver posts; the
 * receiver only posts after it hears (on another tag) that the sender saw
 * it incomplete, so no timing is assumed. */
static void test_sync_send(size_t len) {
  unsigned char *buf = calloc(1, len + 1);
  if (rank == 0) {
    hcomm_request_t *req;
    int done = 1;
    OK(hcomm_isend(buf, len, 1, 7, world, HCOMM_SEND_SYNC, &req));
    for (int i = 0; i < 1000; i++) {
      OK(hcomm_test(req, &done, NULL));
      CHECK(done == 0);
    }
    send_blocking(NULL, 0, 1, 8, world, HCOMM_SEND_STANDARD);
    OK(hcomm_wait(req, NULL));
    hcomm_request_free(req);
  } else if (rank == 1) {
    OK(recv_blocking(NULL, 0, 0, 8, world, NULL));
    OK(recv_blocking(buf, len, 0, 7, world, NULL));
  }
  free(buf);
}

/* A longer message into a short buffer: what fits lands, the receive
 * reports HC_ERR_TRUNCATE, the send completes normally. */
static void test_truncation(size_t len) {
  unsigned char *buf = malloc(len);
  size_t cap = len / 2;
  if (rank == 0) {
    for (size_t i = 0; i < len; i++)
      buf[i] = pattern(i, len, 3);
    send_blocking(buf, len, 1, 9, world, HCOMM_SEND_STANDARD);
  } else if (rank == 1) {
    memset(buf, 0xee, len);
    hcomm_status_t st;
    hc_status_t rc = recv_blocking(buf, cap, 0, 9, world, &st);
    CHECK(rc == HC_ERR_TRUNCATE && st.error == HC_ERR_TRUNCATE);
    CHECK(st.bytes == cap);
    for (size_t i = 0; i < cap; i++)
      CHECK(buf[i] == pattern(i, len, 3));
    for (size_t i = cap; i < len; i++)
      CHECK(buf[i] == 0xee);
  }
  free(buf);
}

/* An unmatched receive cancels; a later message still goes to the next
 * receive, not the cancelled one. */
static void test_cancel(void) {
  if (rank == 1) {
    int dummy = -1, v = 0;
    hcomm_request_t *req;
    hcomm_status_t st;
    OK(hcomm_irecv(&dummy, sizeof dummy, 0, 11, world, &req));
    OK(hcomm_cancel(req));
    OK(hcomm_wait(req, &st));
    CHECK(st.cancelled == 1);
    hcomm_request_free(req);
    send_blocking(NULL, 0, 0, 12, world, HCOMM_SEND_STANDARD);
    OK(recv_blocking(&v, sizeof v, 0, 11, world, &st));
    CHECK(v == 42 && dummy == -1 && st.cancelled == 0);
  } else if (rank == 0) {
    int v = 42;
    OK(recv_blocking(NULL, 0, 1, 12, world, NULL));
    send_blocking(&v, sizeof v, 1, 11, world, HCOMM_SEND_STANDARD);
  }
}

/* A send whose packet still waits in the per-peer backlog can be
 * cancelled.  Rank 1 stays out of the engine (polling a file, no timing
 * assumed) while rank 0 queues more messages than any shm ring holds, so the
 * last one cannot have left; it must cancel, and rank 1 must see every other
 * message, in order, and not the cancelled one.  Each message carries 64
 * bytes: over tcp the kernel's buffers on both ends (twice the 64 KiB
 * sockets that tcp_local.sh and verbs_local.sh set) and the send queue held
 * most of 20,000 four-byte messages, so the last one had sometimes left. */
struct queued_msg {
  int seq;
  unsigned char fill[60];
};

static void test_cancel_queued_send(void) {
  enum { N = 20000 };
  char path[128];
  snprintf(path, sizeof path, "/tmp/engine_p2p.%d.go", (int)getppid());
  if (rank == 0) {
    struct queued_msg *v = malloc(N * sizeof *v);
    hcomm_request_t **reqs = malloc(N * sizeof *reqs);
    for (int i = 0; i < N; i++) {
      v[i].seq = i;
      memset(v[i].fill, i & 0xff, sizeof v[i].fill);
      OK(hcomm_isend(&v[i], sizeof v[i], 1, 30, world, 0, &reqs[i]));
    }
    OK(hcomm_cancel(reqs[N - 1]));
    hcomm_status_t st;
    OK(hcomm_wait(reqs[N - 1], &st));
    CHECK(st.cancelled == 1);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fclose(f);
    OK(hcomm_wait_some(N - 1, reqs, N - 1));
    for (int i = 0; i < N; i++)
      hcomm_request_free(reqs[i]);
    send_blocking(NULL, 0, 1, 31, world, HCOMM_SEND_STANDARD);
    free(v);
    free(reqs);
  } else if (rank == 1) {
    while (access(path, F_OK) != 0)
      usleep(1000);
    unlink(path);
    for (int i = 0; i < N - 1; i++) {
      struct queued_msg got = {.seq = -1};
      OK(recv_blocking(&got, sizeof got, 0, 30, world, NULL));
      CHECK(got.seq == i);
      CHECK(got.fill[0] == (i & 0xff) &&
            got.fill[sizeof got.fill - 1] == (i & 0xff));
    }
    OK(recv_blocking(NULL, 0, 0, 31, world, NULL));
    int flag = 1;
    OK(hcomm_iprobe(0, 30, world, &flag, NULL));
    CHECK(flag == 0);
  }
}

/* 10,000 outstanding isend/irecv per pair, completed with wait_some. */
static void test_many_outstanding(void) {
  enum { N = 10000 };
  if (rank > 1)
    return;
  int peer = 1 - rank;
  int *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in);
  hcomm_request_t **reqs = malloc(2 * N * sizeof *reqs);
  for (int i = 0; i < N; i++) {
    out[i] = rank * N + i;
    in[i] = -1;
    OK(hcomm_irecv(&in[i], sizeof in[i], peer, 13, world, &reqs[i]));
  }
  for (int i = 0; i < N; i++)
    OK(hcomm_isend(&out[i], sizeof out[i], peer, 13, world, HCOMM_SEND_STANDARD,
                   &reqs[N + i]));
  OK(hcomm_wait_some(2 * N, reqs, 2 * N));
  for (int i = 0; i < 2 * N; i++) {
    CHECK(hcomm_request_done(reqs[i]));
    hcomm_request_free(reqs[i]);
  }
  for (int i = 0; i < N; i++)
    CHECK(in[i] == peer * N + i);
  free(out);
  free(in);
  free(reqs);
}

/* Probe sees the envelope; mprobe removes it so only imrecv gets it. */
static void test_probe(void) {
  if (rank == 0) {
    int v = 77;
    send_blocking(&v, sizeof v, 1, 14, world, HCOMM_SEND_STANDARD);
    send_blocking(&v, sizeof v, 1, 15, world, HCOMM_SEND_STANDARD);
  } else if (rank == 1) {
    hcomm_status_t st;
    OK(hcomm_probe(0, 14, world, &st));
    CHECK(st.source == 0 && st.tag == 14 && st.bytes == sizeof(int));
    int v = 0;
    OK(recv_blocking(&v, sizeof v, 0, 14, world, &st));
    CHECK(v == 77);
    hcomm_message_t *msg;
    OK(hcomm_mprobe(0, HCOMM_ANY_TAG, world, &msg, &st));
    CHECK(st.tag == 15);
    int flag = 1;
    OK(hcomm_iprobe(0, 15, world, &flag, NULL));
    CHECK(flag == 0);
    hcomm_request_t *req;
    v = 0;
    OK(hcomm_imrecv(&v, sizeof v, msg, &req));
    OK(hcomm_wait(req, &st));
    hcomm_request_free(req);
    CHECK(v == 77 && st.tag == 15);
  }
}

/* PROC_NULL and self sends. */
static void test_null_and_self(void) {
  hcomm_request_t *req;
  hcomm_status_t st;
  OK(hcomm_irecv(NULL, 0, HCOMM_PROC_NULL, 1, world, &req));
  OK(hcomm_wait(req, &st));
  hcomm_request_free(req);
  CHECK(st.source == HCOMM_PROC_NULL && st.tag == HCOMM_ANY_TAG &&
        st.bytes == 0);
  size_t len = 100000;
  unsigned char *a = malloc(len), *b = calloc(1, len);
  for (size_t i = 0; i < len; i++)
    a[i] = pattern(i, len, 4);
  OK(hcomm_irecv(b, len, rank, 3, world, &req));
  send_blocking(a, len, rank, 3, world, HCOMM_SEND_STANDARD);
  OK(hcomm_wait(req, &st));
  hcomm_request_free(req);
  CHECK(memcmp(a, b, len) == 0 && st.source == rank);
  send_blocking(a, 10, 0, 3, hcomm_comm_self(), HCOMM_SEND_STANDARD);
  OK(recv_blocking(b, 10, 0, 3, hcomm_comm_self(), &st));
  free(a);
  free(b);
}

/* Same tag on world, a dup and a split: each receive gets its own
 * communicator's message; split orders by key, ties by old rank. */
static void test_comm_isolation(void) {
  hcomm_comm_t *dup, *half, *rev;
  OK(hcomm_comm_dup(world, &dup));
  CHECK(hcomm_comm_compare(world, dup) == HCOMM_CONGRUENT);
  OK(hcomm_comm_split(world, rank % 2, -rank, &half));
  CHECK(hcomm_comm_size(half) == (size + 1 - rank % 2) / 2);
  OK(hcomm_comm_split(world, 0, size - rank, &rev));
  CHECK(hcomm_comm_rank(rev) == size - 1 - rank);
  CHECK(hcomm_comm_compare(world, rev) ==
        (size == 1 ? HCOMM_CONGRUENT : HCOMM_SIMILAR));
  hcomm_comm_t *none;
  OK(hcomm_comm_split(world, rank == 0 ? HCOMM_UNDEFINED : 1, 0, &none));
  CHECK((rank == 0) == (none == NULL));
  int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
  int vw = 100 + rank, vd = 200 + rank, got_w = 0, got_d = 0;
  hcomm_request_t *r[4];
  /* Post the dup receive first: it must not take the world message. */
  OK(hcomm_irecv(&got_d, sizeof got_d, from, 21, dup, &r[0]));
  OK(hcomm_irecv(&got_w, sizeof got_w, from, 21, world, &r[1]));
  OK(hcomm_isend(&vw, sizeof vw, peer, 21, world, 0, &r[2]));
  OK(hcomm_isend(&vd, sizeof vd, peer, 21, dup, 0, &r[3]));
  OK(hcomm_wait_some(4, r, 4));
  for (int i = 0; i < 4; i++)
    hcomm_request_free(r[i]);
  CHECK(got_w == 100 + from && got_d == 200 + from);
  int hr = hcomm_comm_rank(half), hs = hcomm_comm_size(half);
  CHECK(hcomm_comm_world_rank(half, hr) == rank);
  int hv = rank, hgot = -1;
  OK(hcomm_irecv(&hgot, sizeof hgot, (hr + hs - 1) % hs, 22, half, &r[0]));
  OK(hcomm_isend(&hv, sizeof hv, (hr + 1) % hs, 22, half, 0, &r[1]));
  OK(hcomm_wait_some(2, r, 2));
  hcomm_request_free(r[0]);
  hcomm_request_free(r[1]);
  CHECK(hgot == hcomm_comm_world_rank(half, (hr + hs - 1) % hs));
  int list[2] = {size - 1, 0};
  hcomm_comm_t *pair;
  OK(hcomm_comm_create(world, size > 1 ? 2 : 1, list, &pair));
  CHECK((rank == 0 || rank == size - 1) == (pair != NULL));
  if (pair != NULL)
    CHECK(hcomm_comm_rank(pair) == (rank == size - 1 ? 0 : 1));
  /* Many create/free cycles keep context ids unique and recycled. */
  for (int i = 0; i < 3000; i++) {
    hcomm_comm_t *tmp;
    OK(hcomm_comm_dup(dup, &tmp));
    OK(hcomm_comm_free(tmp));
  }
  if (pair != NULL)
    OK(hcomm_comm_free(pair));
  if (none != NULL)
    OK(hcomm_comm_free(none));
  OK(hcomm_comm_free(rev));
  OK(hcomm_comm_free(half));
  OK(hcomm_comm_free(dup));
}

/* ENGINE_P2P_VERBOSE=1 names each phase as it finishes (debugging hangs). */
static void phase(const char *name) {
  static struct timespec last;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (getenv("ENGINE_P2P_VERBOSE") != NULL && last.tv_sec != 0)
    fprintf(stderr, "rank %d: %s done (%.3f s)\n", rank, name,
            (double)(now.tv_sec - last.tv_sec) +
                (double)(now.tv_nsec - last.tv_nsec) * 1e-9);
  last = now;
}

int main(void) {
  int provided;
  OK(hcomm_init(HCOMM_THREAD_SINGLE, &provided));
  world = hcomm_comm_world();
  rank = hcomm_comm_rank(world);
  size = hcomm_comm_size(world);
  phase("init");
  test_null_and_self();
  if (size < 2) {
    OK(hcomm_finalize());
    return 77;
  }
  test_pingpong_sizes();
  phase("test_pingpong_sizes()");
  test_any_source_order();
  phase("test_any_source_order()");
  test_sync_send(8);
  phase("test_sync_send(8)");
  test_sync_send(1 << 20);
  phase("test_sync_send(1 << 20)");
  test_truncation(1000);
  phase("test_truncation(1000)");
  test_truncation(3 << 20);
  phase("test_truncation(3 << 20)");
  test_cancel();
  phase("test_cancel()");
  test_probe();
  phase("test_probe()");
  test_cancel_queued_send();
  phase("test_cancel_queued_send");
  test_many_outstanding();
  phase("test_many_outstanding()");
  test_comm_isolation();
  phase("test_comm_isolation()");
  OK(hcomm_finalize());
  if (rank == 0)
    printf("engine_p2p: %d ranks OK\n", size);
  return 0;
}

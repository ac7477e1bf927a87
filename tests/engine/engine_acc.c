/*
 * Accessor messages (hcomm_isend_acc / hcomm_irecv_acc) over hcomm.h only:
 * message byte i lives at base[2 * i] (a strided layout no single address
 * describes).  Accessor to plain, plain to accessor and accessor to
 * accessor, eager and rendezvous, synchronous mode, truncation and
 * unexpected (send-before-receive) messages; large rendezvous messages
 * must reach the accessor in fragments, never as one whole-message slice.
 * Ranks 0 and 1 talk; others only take part in init and finalize.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm.h"

static int rank, size;
static hcomm_comm_t *world;

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

typedef struct strided {
  unsigned char *base; /* 2 * n bytes: data at even offsets */
  size_t n;
  size_t calls;
  size_t largest; /* largest slice one call moved */
} strided_t;

static void acc_note(strided_t *s, size_t off, size_t len) {
  CHECK(off <= s->n && len <= s->n - off);
  s->calls++;
  if (len > s->largest)
    s->largest = len;
}

static void acc_pack(void *ctx, size_t off, void *dst, size_t len) {
  strided_t *s = ctx;
  acc_note(s, off, len);
  unsigned char *out = dst;
  for (size_t i = 0; i < len; i++)
    out[i] = s->base[2 * (off + i)];
}

static void acc_unpack(void *ctx, size_t off, const void *src, size_t len) {
  strided_t *s = ctx;
  acc_note(s, off, len);
  const unsigned char *in = src;
  for (size_t i = 0; i < len; i++)
    s->base[2 * (off + i)] = in[i];
}

static unsigned char pattern(size_t i, size_t n, int salt) {
  return (unsigned char)((i * 131u + n * 7u + (unsigned)salt) & 0xff);
}

/* A strided buffer of n message bytes; gaps hold 0xEE, data the pattern
 * (fill) or 0x5A (empty). */
static strided_t strided_new(size_t n, int fill, int salt) {
  strided_t s = {malloc(2 * n + 1), n, 0, 0};
  CHECK(s.base != NULL);
  for (size_t i = 0; i < n; i++) {
    s.base[2 * i] = fill ? pattern(i, n, salt) : 0x5A;
    s.base[2 * i + 1] = 0xEE;
  }
  return s;
}

/* The first got bytes carry the pattern of an n-byte message, the rest of
 * the receive is untouched, and no gap was written. */
static void strided_check(const strided_t *s, size_t got, size_t n, int salt) {
  for (size_t i = 0; i < s->n; i++) {
    unsigned char want = i < got ? pattern(i, n, salt) : 0x5A;
    if (s->base[2 * i] != want || s->base[2 * i + 1] != 0xEE) {
      fprintf(stderr, "rank %d: byte %zu of %zu wrong\n", rank, i, s->n);
      CHECK(0);
    }
  }
}

static void send_acc(strided_t *s, int dest, int tag, int mode) {
  hcomm_accessor_t acc = {acc_pack, NULL, s};
  hcomm_request_t *req;
  OK(hcomm_isend_acc(&acc, s->n, dest, tag, world, mode, &req));
  OK(hcomm_wait(req, NULL));
  hcomm_request_free(req);
}

static hc_status_t recv_acc(strided_t *s, int src, int tag,
                            hcomm_status_t *st) {
  hcomm_accessor_t acc = {NULL, acc_unpack, s};
  hcomm_request_t *req;
  OK(hcomm_irecv_acc(&acc, s->n, src, tag, world, &req));
  hc_status_t rc = hcomm_wait(req, st);
  hcomm_request_free(req);
  return rc;
}

/* Rendezvous sizes must never be moved in one slice. */
static void check_pipelined(const strided_t *s) {
  if (s->n >= (4u << 20))
    CHECK(s->largest < s->n);
}

/* Rank 0 sends n bytes (accessor when acc_send), rank 1 receives them
 * (accessor when acc_recv), both checked. */
static void one_way(size_t n, int acc_send, int acc_recv, int tag) {
  int salt = tag;
  if (rank == 0) {
    strided_t s = strided_new(n, 1, salt);
    if (acc_send) {
      send_acc(&s, 1, tag, HCOMM_SEND_STANDARD);
      check_pipelined(&s);
    } else {
      unsigned char *flat = malloc(n + 1);
      CHECK(flat != NULL);
      for (size_t i = 0; i < n; i++)
        flat[i] = pattern(i, n, salt);
      hcomm_request_t *req;
      OK(hcomm_isend(flat, n, 1, tag, world, HCOMM_SEND_STANDARD, &req));
      OK(hcomm_wait(req, NULL));
      hcomm_request_free(req);
      free(flat);
    }
    free(s.base);
  } else if (rank == 1) {
    hcomm_status_t st;
    if (acc_recv) {
      strided_t s = strided_new(n, 0, 0);
      OK(recv_acc(&s, 0, tag, &st));
      strided_check(&s, n, n, salt);
      check_pipelined(&s);
      free(s.base);
    } else {
      unsigned char *flat = malloc(n + 1);
      CHECK(flat != NULL);
      hcomm_request_t *req;
      OK(hcomm_irecv(flat, n, 0, tag, world, &req));
      OK(hcomm_wait(req, &st));
      hcomm_request_free(req);
      for (size_t i = 0; i < n; i++)
        CHECK(flat[i] == pattern(i, n, salt));
      free(flat);
    }
    CHECK(st.bytes == n);
    CHECK(st.source == 0 && st.tag == tag);
  }
}

static void test_sizes(void) {
  static const size_t sizes[] = {0,         1,        1000,      16383,
                                 16384,     16385,    65536 + 7, 1u << 20,
                                 (3u << 20) + 5, (16u << 20) + 3};
  int tag = 1;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    one_way(sizes[k], 1, 0, tag++);
    one_way(sizes[k], 0, 1, tag++);
    one_way(sizes[k], 1, 1, tag++);
  }
}

/* Synchronous accessor sends: both protocols. */
static void test_sync(size_t n) {
  if (rank == 0) {
    strided_t s = strided_new(n, 1, 77);
    send_acc(&s, 1, 77, HCOMM_SEND_SYNC);
    free(s.base);
  } else if (rank == 1) {
    strided_t s = strided_new(n, 0, 0);
    hcomm_status_t st;
    OK(recv_acc(&s, 0, 77, &st));
    strided_check(&s, n, n, 77);
    free(s.base);
  }
}

/* A longer message into a shorter accessor receive: HC_ERR_TRUNCATE, the
 * received part right, nothing past the capacity written. */
static void test_truncation(size_t n, size_t cap) {
  if (rank == 0) {
    strided_t s = strided_new(n, 1, 90);
    send_acc(&s, 1, 90, HCOMM_SEND_STANDARD);
    free(s.base);
  } else if (rank == 1) {
    strided_t s = strided_new(cap, 0, 0);
    hcomm_status_t st;
    CHECK(recv_acc(&s, 0, 90, &st) == HC_ERR_TRUNCATE);
    CHECK(st.bytes == cap);
    strided_check(&s, cap, n, 90);
    free(s.base);
  }
}

/* The message is already waiting (probed) when the accessor receive is
 * posted: eager data comes from the unexpected queue, a rendezvous from
 * its stored RTS. */
static void test_unexpected(size_t n) {
  if (rank == 0) {
    strided_t s = strided_new(n, 1, 55);
    hcomm_accessor_t acc = {acc_pack, NULL, &s};
    hcomm_request_t *req;
    OK(hcomm_isend_acc(&acc, n, 1, 55, world, HCOMM_SEND_STANDARD, &req));
    OK(hcomm_wait(req, NULL));
    hcomm_request_free(req);
    free(s.base);
  } else if (rank == 1) {
    hcomm_status_t st;
    OK(hcomm_probe(0, 55, world, &st));
    CHECK(st.bytes == n);
    strided_t s = strided_new(n, 0, 0);
    OK(recv_acc(&s, 0, 55, &st));
    CHECK(st.bytes == n);
    strided_check(&s, n, n, 55);
    free(s.base);
  }
}

static void test_bad_args(void) {
  hcomm_request_t *req;
  hcomm_accessor_t none = {NULL, NULL, NULL};
  CHECK(hcomm_isend_acc(&none, 8, 0, 0, world, 0, &req) == HC_ERR_ARG);
  CHECK(hcomm_irecv_acc(&none, 8, 0, 0, world, &req) == HC_ERR_ARG);
  CHECK(hcomm_isend_acc(NULL, 8, 0, 0, world, 0, &req) == HC_ERR_ARG);
}

int main(void) {
  int provided;
  OK(hcomm_init(HCOMM_THREAD_SINGLE, &provided));
  world = hcomm_comm_world();
  rank = hcomm_comm_rank(world);
  size = hcomm_comm_size(world);
  test_bad_args();
  if (size < 2) {
    OK(hcomm_finalize());
    return 77;
  }
  test_sizes();
  test_sync(100);
  test_sync(2u << 20);
  test_truncation(1000, 500);
  test_truncation((3u << 20) + 1, 1u << 20);
  test_truncation((3u << 20) + 1, 300);
  test_unexpected(700);
  test_unexpected((2u << 20) + 9);
  OK(hcomm_finalize());
  if (rank == 0)
    printf("engine_acc: %d ranks OK\n", size);
  return 0;
}

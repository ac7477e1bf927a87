/*
 * Engine point-to-point on device buffers from the CANN test double
 * (HCMPI_ACL_LIB): device->device, device->host, host->device (and
 * host->host as the control) for sizes 0 B .. 16 MiB across the eager /
 * rendezvous / chunk boundaries, both directions; truncation; unexpected
 * device messages and probe; synchronous mode; self-sends.  Every byte is
 * checked by copying back to the host with aclrtMemcpy.  The double maps
 * device memory PROT_NONE, so an engine that touched a device pointer
 * would crash this test.  Run on 2 ranks; the data path is chosen by
 * HCMPI_DEVICE_PATH (the script forces each in turn).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_api.h"
#include "hcomm.h"

static int rank, size;
static fake_api_t fa;
static hcomm_comm_t *world;

static void check_at(int ok, const char *what, int line) {
  if (ok)
    return;
  fprintf(stderr, "rank %d: FAILED %s (line %d)\n", rank, what, line);
  hcomm_abort(1, what);
}
#define CHECK(cond) check_at((cond), #cond, __LINE__)

static unsigned char pattern(size_t i, size_t n, int salt) {
  return (unsigned char)((i * 131u + n * 7u + (unsigned)salt) & 0xff);
}

typedef struct buf {
  int dev;
  unsigned char *p; /* device or host address */
  size_t n;
} buf_t;

static buf_t buf_new(int dev, size_t n) {
  buf_t b = {dev, NULL, n};
  size_t alloc = n ? n : 1;
  if (dev)
    CHECK(fa.malloc_dev((void **)&b.p, alloc, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
  else
    CHECK((b.p = malloc(alloc)) != NULL);
  return b;
}

static void buf_free(buf_t *b) {
  if (b->dev)
    fa.free_dev(b->p);
  else
    free(b->p);
}

/* Writes host bytes into b (through the runtime for device memory). */
static void buf_put(buf_t *b, const unsigned char *src, size_t n) {
  if (n == 0)
    return;
  if (b->dev)
    CHECK(fa.memcpy_sync(b->p, b->n, src, n, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
  else
    memcpy(b->p, src, n);
}

static void buf_get(const buf_t *b, unsigned char *dst, size_t n) {
  if (n == 0)
    return;
  if (b->dev)
    CHECK(fa.memcpy_sync(dst, n, b->p, n, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
  else
    memcpy(dst, b->p, n);
}

static void buf_fill(buf_t *b, size_t n, int salt) {
  unsigned char *h = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++)
    h[i] = pattern(i, n, salt);
  buf_put(b, h, n);
  free(h);
}

static void buf_mark(buf_t *b) {
  unsigned char *h = malloc(b->n ? b->n : 1);
  memset(h, 0xee, b->n);
  buf_put(b, h, b->n);
  free(h);
}

/* Bytes [0, n) carry pattern(n_sent, salt); [n, b->n) still the mark. */
static void buf_expect(const buf_t *b, size_t n, size_t n_sent, int salt) {
  unsigned char *h = malloc(b->n ? b->n : 1);
  buf_get(b, h, b->n);
  for (size_t i = 0; i < n; i++)
    if (h[i] != pattern(i, n_sent, salt)) {
      fprintf(stderr, "rank %d: byte %zu of %zu: %u != %u\n", rank, i, n, h[i],
              pattern(i, n_sent, salt));
      CHECK(0);
    }
  for (size_t i = n; i < b->n; i++)
    CHECK(h[i] == 0xee);
  free(h);
}

static void ok(hc_status_t rc, int line) {
  if (rc != HC_OK) {
    fprintf(stderr, "rank %d: %s (line %d)\n", rank, hcomm_strerror(rc), line);
    hcomm_abort(1, "hcomm call failed");
  }
}
#define OK(call) ok((call), __LINE__)

static void xfer(int from, int to, int sdev, int rdev, size_t n, int salt,
                 int mode) {
  hcomm_request_t *req;
  hcomm_status_t st;
  if (rank == from) {
    buf_t b = buf_new(sdev, n);
    buf_fill(&b, n, salt);
    OK(hcomm_isend(b.p, n, to, salt, world, mode, &req));
    OK(hcomm_wait(req, NULL));
    hcomm_request_free(req);
    buf_free(&b);
  } else if (rank == to) {
    buf_t b = buf_new(rdev, n);
    buf_mark(&b);
    OK(hcomm_irecv(b.p, n, from, salt, world, &req));
    OK(hcomm_wait(req, &st));
    hcomm_request_free(req);
    CHECK(st.bytes == n && st.source == from && st.tag == salt);
    buf_expect(&b, n, n, salt);
    buf_free(&b);
  }
}

static void test_sizes(void) {
  static const size_t sizes[] = {0,
                                 1,
                                 100,
                                 16383,
                                 16384,
                                 16385,
                                 65539,
                                 (1u << 20) - 1,
                                 1u << 20,
                                 (1u << 20) + 5,
                                 (4u << 20) + 1,
                                 16u << 20};
  static const int kinds[][2] = {{1, 1}, {1, 0}, {0, 1}, {0, 0}};
  int salt = 1;
  /* DEVICE_P2P_REVERSE: rank 1 sends first (the hccl path then creates the
   * pair's comm from the receiver's side). */
  int a = getenv("DEVICE_P2P_REVERSE") != NULL ? 1 : 0;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      xfer(a, 1 - a, kinds[k][0], kinds[k][1], sizes[i], salt++,
           HCOMM_SEND_STANDARD);
      xfer(1 - a, a, kinds[k][0], kinds[k][1], sizes[i], salt++,
           HCOMM_SEND_STANDARD);
    }
  xfer(0, 1, 1, 1, 300000, salt++, HCOMM_SEND_SYNC);
  xfer(1, 0, 1, 0, 100, salt++, HCOMM_SEND_SYNC);
}

/* A device message larger than the device receive buffer. */
static void test_truncation(void) {
  const size_t sent = 200000, room = 70000;
  hcomm_request_t *req;
  hcomm_status_t st;
  for (int rdev = 0; rdev < 2; rdev++) {
    if (rank == 0) {
      buf_t b = buf_new(1, sent);
      buf_fill(&b, sent, 77);
      OK(hcomm_isend(b.p, sent, 1, 77, world, HCOMM_SEND_STANDARD, &req));
      OK(hcomm_wait(req, NULL));
      hcomm_request_free(req);
      buf_free(&b);
    } else if (rank == 1) {
      buf_t b = buf_new(rdev, room);
      buf_mark(&b);
      OK(hcomm_irecv(b.p, room, 0, 77, world, &req));
      CHECK(hcomm_wait(req, &st) == HC_ERR_TRUNCATE);
      hcomm_request_free(req);
      CHECK(st.bytes == room);
      buf_expect(&b, room, sent, 77);
      buf_free(&b);
    }
  }
}

/* Sent before the receive exists (unexpected RTS with its device
 * descriptor), found by probe, received with ANY_SOURCE. */
static void test_unexpected_probe(void) {
  const size_t n = 500000;
  hcomm_request_t *req;
  hcomm_status_t st;
  if (rank == 0) {
    buf_t b = buf_new(1, n);
    buf_fill(&b, n, 90);
    OK(hcomm_isend(b.p, n, 1, 90, world, HCOMM_SEND_STANDARD, &req));
    OK(hcomm_wait(req, NULL));
    hcomm_request_free(req);
    buf_free(&b);
  } else if (rank == 1) {
    OK(hcomm_probe(HCOMM_ANY_SOURCE, 90, world, &st));
    CHECK(st.source == 0 && st.bytes == n);
    buf_t b = buf_new(1, n);
    buf_mark(&b);
    OK(hcomm_irecv(b.p, n, HCOMM_ANY_SOURCE, HCOMM_ANY_TAG, world, &req));
    OK(hcomm_wait(req, &st));
    hcomm_request_free(req);
    CHECK(st.bytes == n && st.source == 0 && st.tag == 90);
    buf_expect(&b, n, n, 90);
    buf_free(&b);
  }
}

static void test_self(void) {
  static const size_t sizes[] = {5, 100000, 3u << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int sdev = 0; sdev < 2; sdev++)
      for (int rdev = 0; rdev < 2; rdev++) {
        size_t n = sizes[i];
        buf_t s = buf_new(sdev, n), r = buf_new(rdev, n);
        buf_fill(&s, n, 5);
        buf_mark(&r);
        hcomm_request_t *rq, *sq;
        hcomm_status_t st;
        OK(hcomm_irecv(r.p, n, rank, 55, world, &rq));
        OK(hcomm_isend(s.p, n, rank, 55, world, HCOMM_SEND_STANDARD, &sq));
        OK(hcomm_wait(sq, NULL));
        OK(hcomm_wait(rq, &st));
        hcomm_request_free(sq);
        hcomm_request_free(rq);
        CHECK(st.bytes == n);
        buf_expect(&r, n, n, 5);
        buf_free(&s);
        buf_free(&r);
      }
}

int main(void) {
  OK(hcomm_init(HCOMM_THREAD_SINGLE, NULL));
  world = hcomm_comm_world();
  rank = hcomm_comm_rank(world);
  size = hcomm_comm_size(world);
  const char *alloc = getenv("DEVICE_P2P_ALLOC"); /* "cuda": real GPU */
  int loaded = alloc != NULL && strcmp(alloc, "cuda") == 0
                   ? fake_api_load_cuda(0, &fa)
                   : fake_api_load(NULL, rank % 2, &fa);
  if (loaded != 0) {
    fprintf(stderr, "rank %d: no device allocator (%s)\n", rank,
            alloc ? alloc : "CANN test double");
    hcomm_finalize();
    return 77;
  }
  test_sizes();
  OK(hcomm_barrier(world));
  test_truncation();
  test_unexpected_probe();
  test_self();
  OK(hcomm_barrier(world));
  if (rank == 0)
    printf("device_p2p: %d ranks, path %s: ok\n", size,
           getenv("HCMPI_DEVICE_PATH") ? getenv("HCMPI_DEVICE_PATH") : "auto");
  OK(hcomm_finalize());
  return 0;
}

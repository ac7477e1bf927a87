/*
 * Engine point-to-point on device buffers when the device misbehaves or
 * the application reuses memory, against the CANN test double's hooks
 * (tests/fake-cann/fake_acl.h).  Two ranks; DEVICE_FAULTS_CASE picks one:
 *  copy_fails   a host-to-device copy into the receive buffer fails
 *               (FAKE_CANN_FAIL_H2D): the receive ends with
 *               HC_ERR_TRANSPORT, the sender completes normally;
 *  realloc      device message, aclrtFree, aclrtMalloc again at the same
 *               address, new bytes, send again (twice): the receiver gets
 *               the new bytes every time and every aclrtFree succeeds;
 *  free_order   the double refuses an exporter's aclrtFree while another
 *               process imports the memory, and allows it once closed;
 *  held_copies  host-to-device copies held in the stream
 *               (FAKE_CANN_HOLD_H2D): after every fragment arrived the
 *               receive is still incomplete (test: not done), copies were
 *               queued behind earlier unfinished ones (overlap), and once
 *               released it completes with the right bytes.
 *  pinned_short the first pinned buffers cannot be had
 *               (FAKE_CANN_FAIL_MALLOC_HOST): a staged device send waits
 *               for one instead of failing under a receiver that waits
 *               for its bytes, and the bytes arrive.
 * DEVICE_FAULTS_BYTES sets the message size (default 3 MiB + 7).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_api.h"
#include "hcomm.h"

static int rank;
static fake_api_t fa;
static hcomm_comm_t *world;

static void check_at(int ok, const char *what, int line) {
  if (ok)
    return;
  fprintf(stderr, "rank %d: FAILED %s (line %d)\n", rank, what, line);
  hcomm_abort(1, what);
}
#define CHECK(cond) check_at((cond), #cond, __LINE__)

static unsigned char *host_pattern(size_t n, int salt) {
  unsigned char *h = malloc(n);
  CHECK(h != NULL);
  for (size_t i = 0; i < n; i++)
    h[i] = (unsigned char)((i * 29u + (unsigned)salt * 101u) & 0xff);
  return h;
}

static void *dev_pattern(size_t n, int salt) {
  void *d;
  CHECK(fa.malloc_dev(&d, n, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  unsigned char *h = host_pattern(n, salt);
  CHECK(fa.memcpy_sync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  free(h);
  return d;
}

/* The device buffer d holds pattern(n, salt). */
static int dev_matches(const void *d, size_t n, int salt) {
  unsigned char *want = host_pattern(n, salt), *got = malloc(n);
  CHECK(got != NULL);
  CHECK(fa.memcpy_sync(got, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  int same = memcmp(want, got, n) == 0;
  free(want);
  free(got);
  return same;
}

static hc_status_t send_wait(const void *buf, size_t n, int to, int tag) {
  hcomm_request_t *req;
  hc_status_t rc =
      hcomm_isend(buf, n, to, tag, world, HCOMM_SEND_STANDARD, &req);
  if (rc == HC_OK) {
    rc = hcomm_wait(req, NULL);
    hcomm_request_free(req);
  }
  return rc;
}

static hc_status_t recv_wait(void *buf, size_t n, int from, int tag,
                             hcomm_status_t *st) {
  hcomm_request_t *req;
  hc_status_t rc = hcomm_irecv(buf, n, from, tag, world, &req);
  if (rc == HC_OK) {
    rc = hcomm_wait(req, st);
    hcomm_request_free(req);
  }
  return rc;
}

static void case_copy_fails(size_t n) {
  if (rank == 0) {
    unsigned char *h = host_pattern(n, 1);
    CHECK(send_wait(h, n, 1, 10) == HC_OK);
    free(h);
  } else {
    void *d = dev_pattern(n, 2);
    hcomm_status_t st;
    CHECK(recv_wait(d, n, 0, 10, &st) == HC_ERR_TRANSPORT);
    CHECK(st.bytes == 0);
    CHECK(fa.free_dev(d) == ACL_SUCCESS);
  }
}

static void case_realloc(size_t n) {
  void *first = NULL;
  for (int round = 0; round < 3; round++) {
    if (rank == 0) {
      void *d = dev_pattern(n, 20 + round);
      if (round == 0)
        first = d;
      else /* the double hands the freed range out again */
        CHECK(d == first);
      CHECK(send_wait(d, n, 1, 30 + round) == HC_OK);
      /* The receiver closed its import before the send completed. */
      CHECK(fa.free_dev(d) == ACL_SUCCESS);
    } else {
      void *d = dev_pattern(n, 99);
      hcomm_status_t st;
      CHECK(recv_wait(d, n, 0, 30 + round, &st) == HC_OK);
      CHECK(st.bytes == n);
      CHECK(dev_matches(d, n, 20 + round));
      CHECK(fa.free_dev(d) == ACL_SUCCESS);
    }
  }
}

static void case_pinned_short(size_t n) {
  if (rank == 0) {
    void *d = dev_pattern(n, 5);
    CHECK(send_wait(d, n, 1, 40) == HC_OK);
    CHECK(fa.free_dev(d) == ACL_SUCCESS);
  } else {
    unsigned char *want = host_pattern(n, 5), *got = malloc(n);
    CHECK(got != NULL);
    hcomm_status_t st;
    CHECK(recv_wait(got, n, 0, 40, &st) == HC_OK);
    CHECK(st.bytes == n);
    CHECK(memcmp(got, want, n) == 0);
    free(want);
    free(got);
  }
}

static void case_free_order(void) {
  const size_t n = 1 << 16;
  char key[65], note = 0;
  if (rank == 0) {
    void *d = dev_pattern(n, 3);
    CHECK(fa.export_key(d, n, key, sizeof key,
                        ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION) ==
          ACL_SUCCESS);
    CHECK(send_wait(key, sizeof key, 1, 40) == HC_OK);
    CHECK(recv_wait(&note, 1, 1, 41, NULL) == HC_OK); /* imported */
    CHECK(fa.free_dev(d) == ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    CHECK(send_wait(&note, 1, 1, 42) == HC_OK);
    CHECK(recv_wait(&note, 1, 1, 43, NULL) == HC_OK); /* closed */
    CHECK(fa.free_dev(d) == ACL_SUCCESS);
  } else {
    void *p;
    CHECK(recv_wait(key, sizeof key, 0, 40, NULL) == HC_OK);
    CHECK(
        fa.import_key(&p, key, ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS) ==
        ACL_SUCCESS);
    CHECK(send_wait(&note, 1, 0, 41) == HC_OK);
    CHECK(recv_wait(&note, 1, 0, 42, NULL) == HC_OK); /* free refused */
    CHECK(fa.close_key(key) == ACL_SUCCESS);
    CHECK(send_wait(&note, 1, 0, 43) == HC_OK);
  }
}

typedef void (*release_fn)(void);
typedef unsigned long (*overlaps_fn)(void);

static void case_held_copies(size_t n) {
  char done = 0;
  if (rank == 0) {
    void *d = dev_pattern(n, 5);
    CHECK(send_wait(d, n, 1, 50) == HC_OK);
    CHECK(send_wait(&done, 1, 1, 51) == HC_OK);
    CHECK(fa.free_dev(d) == ACL_SUCCESS);
    return;
  }
  void *lib = dlopen(getenv("HCMPI_ACL_LIB"), RTLD_NOW | RTLD_NOLOAD);
  CHECK(lib != NULL);
  release_fn release;
  overlaps_fn overlaps;
  *(void **)&release = dlsym(lib, "fakecann_release_h2d");
  *(void **)&overlaps = dlsym(lib, "fakecann_h2d_overlaps");
  CHECK(release != NULL && overlaps != NULL);
  void *d = dev_pattern(n, 98);
  hcomm_request_t *req;
  hcomm_status_t st;
  int flag = -1;
  CHECK(hcomm_irecv(d, n, 0, 50, world, &req) == HC_OK);
  /* Sent after the data on the same channel: every fragment is in. */
  CHECK(recv_wait(&done, 1, 0, 51, NULL) == HC_OK);
  CHECK(hcomm_test(req, &flag, &st) == HC_OK);
  CHECK(flag == 0); /* the copies to the device are still queued */
  CHECK(overlaps() >= 1);
  release();
  CHECK(hcomm_wait(req, &st) == HC_OK);
  hcomm_request_free(req);
  CHECK(st.bytes == n);
  CHECK(dev_matches(d, n, 5));
  CHECK(fa.free_dev(d) == ACL_SUCCESS);
  printf("device_faults: %lu copies queued behind unfinished ones\n",
         overlaps());
}

int main(void) {
  CHECK(hcomm_init(HCOMM_THREAD_SINGLE, NULL) == HC_OK);
  world = hcomm_comm_world();
  rank = hcomm_comm_rank(world);
  const char *which = getenv("DEVICE_FAULTS_CASE");
  const char *bytes = getenv("DEVICE_FAULTS_BYTES");
  size_t n = bytes != NULL ? strtoul(bytes, NULL, 10) : (3u << 20) + 7;
  if (hcomm_comm_size(world) != 2 || which == NULL ||
      fake_api_load(NULL, rank, &fa) != 0) {
    fprintf(stderr, "device_faults: 2 ranks, DEVICE_FAULTS_CASE and the "
                    "CANN test double needed\n");
    hcomm_finalize();
    return 77;
  }
  if (strcmp(which, "copy_fails") == 0)
    case_copy_fails(n);
  else if (strcmp(which, "realloc") == 0)
    case_realloc(n);
  else if (strcmp(which, "free_order") == 0)
    case_free_order();
  else if (strcmp(which, "pinned_short") == 0)
    case_pinned_short(n);
  else if (strcmp(which, "held_copies") == 0)
    case_held_copies(n);
  else
    CHECK(!"unknown DEVICE_FAULTS_CASE");
  CHECK(hcomm_barrier(world) == HC_OK);
  if (rank == 0)
    printf("device_faults: %s ok\n", which);
  CHECK(hcomm_finalize() == HC_OK);
  return 0;
}

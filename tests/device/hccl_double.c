/*
 * The libhccl.so test double on its own, two processes (fork before any
 * runtime call): a 2-rank comm from one root info; sends and receives pair
 * in issue order per direction, each direction on its own stream, and move
 * the bytes between the processes' device memories; argument errors are
 * refused at the call; a count mismatch fails both streams (ACL reports
 * ACL_ERROR_RT_INTERNAL_ERROR, HcclGetCommAsyncError HCCL_E_PARA).  The
 * collectives: an in-place allreduce and an alltoallv move the right
 * bytes, bad arguments are refused, differing counts fail both ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../fake-cann/fake_hccl.h"

static int me;

static void check_at(int ok, const char *what, int line) {
  if (ok)
    return;
  fprintf(stderr, "hccl_double rank %d: FAILED %s (line %d)\n", me, what, line);
  exit(1);
}
#define CHECK(cond) check_at((cond), #cond, __LINE__)

static unsigned char pat(size_t i, int salt) {
  return (unsigned char)(i * 29u + (unsigned)salt * 7u);
}

static void *dev_fill(size_t n, int salt) {
  void *d;
  CHECK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  unsigned char *h = malloc(n);
  for (size_t i = 0; i < n; i++)
    h[i] = pat(i, salt);
  CHECK(aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  free(h);
  return d;
}

static void dev_expect(void *d, size_t n, int salt) {
  unsigned char *h = malloc(n);
  CHECK(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  for (size_t i = 0; i < n; i++)
    CHECK(h[i] == pat(i, salt));
  free(h);
}

static const size_t sizes[] = {1, 4096, 100003, 3u << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Both directions at once: rank r sends sizes[] to the peer on one stream
 * and receives the peer's on another; issue order pairs them. */
static void test_pairing(HcclComm comm, aclrtStream ss, aclrtStream rs) {
  void *out[NSIZES], *in[NSIZES];
  uint32_t peer = 1u - (uint32_t)me;
  for (size_t i = 0; i < NSIZES; i++) {
    out[i] = dev_fill(sizes[i], (int)i + 10 * me);
    CHECK(aclrtMalloc(&in[i], sizes[i], ACL_MEM_MALLOC_HUGE_FIRST) == 0);
  }
  for (size_t i = 0; i < NSIZES; i++) {
    CHECK(HcclSend(out[i], sizes[i], HCCL_DATA_TYPE_UINT8, peer, comm, ss) ==
          HCCL_SUCCESS);
    CHECK(HcclRecv(in[i], sizes[i], HCCL_DATA_TYPE_UINT8, peer, comm, rs) ==
          HCCL_SUCCESS);
  }
  CHECK(aclrtSynchronizeStream(ss) == ACL_SUCCESS);
  CHECK(aclrtSynchronizeStream(rs) == ACL_SUCCESS);
  for (size_t i = 0; i < NSIZES; i++) {
    dev_expect(in[i], sizes[i], (int)i + 10 * (int)peer);
    aclrtFree(out[i]);
    aclrtFree(in[i]);
  }
}

static void test_refused(HcclComm comm, aclrtStream s) {
  void *d;
  char host[64];
  CHECK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
  CHECK(HcclSend(host, 64, HCCL_DATA_TYPE_UINT8, 1u - (uint32_t)me, comm, s) ==
        HCCL_E_PARA); /* host memory */
  CHECK(HcclSend(d, 65, HCCL_DATA_TYPE_UINT8, 1u - (uint32_t)me, comm, s) ==
        HCCL_E_PARA); /* past the allocation */
  CHECK(HcclSend(d, 8, HCCL_DATA_TYPE_UINT8, (uint32_t)me, comm, s) ==
        HCCL_E_PARA); /* to itself */
  CHECK(HcclSend(d, 8, HCCL_DATA_TYPE_UINT8, 2, comm, s) == HCCL_E_PARA);
  CHECK(HcclSend(d, 8, (HcclDataType)13, 1u - (uint32_t)me, comm, s) ==
        HCCL_E_PARA);
  CHECK(HcclRecv(NULL, 8, HCCL_DATA_TYPE_UINT8, 1u - (uint32_t)me, comm, s) ==
        HCCL_E_PTR);
  CHECK(HcclRecv(d, 8, HCCL_DATA_TYPE_UINT8, 1u - (uint32_t)me, NULL, s) ==
        HCCL_E_PTR);
  aclrtFree(d);
}

/* Rank 0 sends count 16 of type t0, rank 1 expects count c1 of t1: with
 * either differing, both sides fail. */
static void test_mismatch(HcclComm comm, aclrtStream s, HcclDataType t0,
                          HcclDataType t1, uint64_t c1) {
  void *d;
  CHECK(aclrtMalloc(&d, 128, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
  HcclResult rc = me == 0 ? HcclSend(d, 16, t0, 1, comm, s)
                          : HcclRecv(d, c1, t1, 0, comm, s);
  CHECK(rc == HCCL_SUCCESS); /* accepted: the mismatch shows on the stream */
  aclrtEvent ev;
  CHECK(aclrtCreateEvent(&ev) == 0);
  CHECK(aclrtRecordEvent(ev, s) == 0);
  CHECK(aclrtSynchronizeStream(s) == ACL_ERROR_RT_INTERNAL_ERROR);
  aclrtEventRecordedStatus st;
  CHECK(aclrtQueryEventStatus(ev, &st) == ACL_ERROR_RT_INTERNAL_ERROR);
  HcclResult async;
  CHECK(HcclGetCommAsyncError(comm, &async) == HCCL_SUCCESS);
  CHECK(async == HCCL_E_PARA);
  aclrtDestroyEvent(ev);
  aclrtFree(d);
}

/* Collectives on two ranks: an in-place HcclAllReduce (SUM, int32), an
 * HcclAlltoAllV of uneven blocks, refusals at the call; then an
 * HcclAllReduce whose counts differ fails both ranks' streams. */
static void test_collectives(HcclComm comm, aclrtStream s, aclrtStream bad) {
  enum { M = 1000 };
  int32_t h[M];
  for (int i = 0; i < M; i++)
    h[i] = i * 3 + me;
  void *d;
  CHECK(aclrtMalloc(&d, sizeof h, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
  CHECK(aclrtMemcpy(d, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
  CHECK(HcclAllReduce(d, d, M, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm,
                      s) == HCCL_SUCCESS);
  CHECK(aclrtSynchronizeStream(s) == ACL_SUCCESS);
  CHECK(aclrtMemcpy(h, sizeof h, d, sizeof h, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
  for (int i = 0; i < M; i++)
    CHECK(h[i] == i * 6 + 1);
  /* Rank r sends 3 + r bytes to itself and 5 - r to the other, packed. */
  uint64_t sc[2], sd[2], rc[2], rd[2];
  sc[me] = 3u + (unsigned)me;
  sc[1 - me] = 5u - (unsigned)me;
  rc[me] = sc[me];
  rc[1 - me] = 5u - (unsigned)(1 - me);
  sd[0] = rd[0] = 0;
  sd[1] = sc[0];
  rd[1] = rc[0];
  void *sb = dev_fill(16, 50 + me), *rb;
  CHECK(aclrtMalloc(&rb, 16, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
  CHECK(HcclAlltoAllV(sb, sc, sd, HCCL_DATA_TYPE_UINT8, rb, rc, rd,
                      HCCL_DATA_TYPE_UINT8, comm, s) == HCCL_SUCCESS);
  CHECK(aclrtSynchronizeStream(s) == ACL_SUCCESS);
  unsigned char got[16];
  CHECK(aclrtMemcpy(got, 16, rb, 16, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
  for (int from = 0; from < 2; from++)
    for (uint64_t i = 0; i < rc[from]; i++) {
      /* from's block for me starts at from's sdispls[me]. */
      uint64_t at = me == 0 ? 0 : (from == 0 ? 3u : 4u);
      CHECK(got[rd[from] + i] == pat(at + i, 50 + from));
    }
  char host[64];
  CHECK(HcclAllReduce(host, d, 8, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm,
                      s) == HCCL_E_PARA); /* host memory */
  CHECK(HcclAllReduce(d, d, 8, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_SUM, comm, s) ==
        HCCL_E_NOT_SUPPORT); /* the double reduces no fp16 */
  CHECK(HcclAllReduce(d, d, 8, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_RESERVED, comm,
                      s) == HCCL_E_NOT_SUPPORT);
  CHECK(HcclBroadcast(d, 8, HCCL_DATA_TYPE_INT32, 2, comm, s) == HCCL_E_PARA);
  CHECK(HcclAllReduce(d, d, 8u + (unsigned)me, HCCL_DATA_TYPE_INT32,
                      HCCL_REDUCE_SUM, comm, bad) == HCCL_SUCCESS);
  CHECK(aclrtSynchronizeStream(bad) == ACL_ERROR_RT_INTERNAL_ERROR);
  aclrtFree(sb);
  aclrtFree(rb);
  aclrtFree(d);
}

static int rank_main(const HcclRootInfo *root) {
  CHECK(aclInit(NULL) == ACL_SUCCESS);
  CHECK(aclrtSetDevice(me) == ACL_SUCCESS);
  HcclComm comm;
  CHECK(HcclCommInitRootInfo(2, root, (uint32_t)me, &comm) == HCCL_SUCCESS);
  uint32_t n, r;
  CHECK(HcclGetRankSize(comm, &n) == 0 && n == 2);
  CHECK(HcclGetRankId(comm, &r) == 0 && r == (uint32_t)me);
  aclrtStream ss, rs, bad;
  CHECK(aclrtCreateStream(&ss) == 0 && aclrtCreateStream(&rs) == 0);
  CHECK(aclrtCreateStream(&bad) == 0);
  test_pairing(comm, ss, rs);
  test_refused(comm, ss);
  aclrtStream bad3;
  CHECK(aclrtCreateStream(&bad3) == 0);
  test_collectives(comm, ss, bad3);
  aclrtDestroyStream(bad3);
  /* The same bytes (16 x 4), another type; then the same type, another
   * count (each on a stream of its own: a failure breaks its stream). */
  test_mismatch(comm, bad, HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT32, 16);
  aclrtStream bad2;
  CHECK(aclrtCreateStream(&bad2) == 0);
  test_mismatch(comm, bad2, HCCL_DATA_TYPE_UINT8, HCCL_DATA_TYPE_UINT8, 32);
  aclrtDestroyStream(bad2);
  aclrtDestroyStream(ss);
  aclrtDestroyStream(rs);
  aclrtDestroyStream(bad);
  CHECK(HcclCommDestroy(comm) == HCCL_SUCCESS);
  return 0;
}

int main(void) {
  HcclRootInfo root;
  if (HcclGetRootInfo(&root) != HCCL_SUCCESS)
    return 1;
  HcclComm none;
  if (HcclCommInitRootInfo(2, &root, 2, &none) != HCCL_E_PARA)
    return 1; /* rank out of range */
  pid_t child = fork();
  if (child < 0)
    return 77;
  me = child == 0 ? 1 : 0;
  if (child == 0)
    _exit(rank_main(&root));
  int rc = rank_main(&root), st;
  CHECK(waitpid(child, &st, 0) == child);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  char path[200];
  snprintf(path, sizeof path, "/dev/shm/fake-cann-%u/%.100s",
           (unsigned)getuid(), root.internal + strlen("fakehccl-root:"));
  CHECK(access(path, F_OK) != 0); /* the last destroy removed it */
  printf("hccl_double: ok\n");
  return rc;
}

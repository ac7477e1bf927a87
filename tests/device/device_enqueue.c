/*
 * Stream-ordered MPI (MPIX streams and enqueue operations) on 2 ranks over
 * a test double's streams: the CANN double (aclrtStream) by default, the
 * CUDA double (cudaStream_t) with DEVICE_P2P_ALLOC=cuda.  The doubles run
 * each stream's copies, host callbacks and "kernels" (an element-wise add,
 * optionally slow) on a worker thread in order, keep device memory
 * unreadable from the host, and count host synchronisations.
 *
 * Proves: a kernel queued after MPIX_Recv_enqueue sees the received bytes;
 * MPIX_Send_enqueue sends what a slow kernel queued before it wrote; many
 * I-form operations in flight on three streams and communicators; an
 * Allreduce_enqueue (and its in-place form) against a serial reference;
 * a strided type freed right after the call, whose holes stay untouched;
 * a stream communicator freed before the stream ran its operations;
 * the run-length form of "value"; host buffers on a device stream;
 * (on a real runtime, which has no such kernel, a device-to-device copy on
 * the stream stands in for it and syncs are not counted: tests/device/
 * cuda.sh runs it so on a GPU);
 * enqueued calls matching ordinary ones on one communicator; the enqueue
 * calls themselves never synchronise the host with the stream; what
 * holds a stream while an enqueued receive waits for its message (a wait
 * on the stream's flag, no host function; or, with
 * HCMPI_STREAM_WAIT=hostfn, a host function); host
 * streams, multiplexed streams routed by index, MPIX_Info_set_hex; and the
 * bad-input errors.  With DEVICE_ENQUEUE_HCCL=1 (and
 * HCMPI_DEVICE_PATH=hccl), the messages between device buffers went
 * through the HCCL double's HcclSend/HcclRecv (its count).
 */
#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_api.h"
#include "mpi_check.h"

#define N 1024
#define STREAMS 3
#define OPS 6

static int rank, size;
static fake_api_t api;

/* The double's stream entry points, whichever runtime is under test. */
static struct {
  int cuda;
  const char *type; /* the MPIX_Stream_create "type" */
  int (*create)(void **stream);
  int (*sync)(void *stream);
  int (*destroy)(void *stream);
  int (*launch_add)(void *stream, void *dst, const void *src, size_t n,
                    int32_t add, unsigned delay_us);
  unsigned long (*host_syncs)(void);
  /* A real runtime has no such kernel: a device-to-device copy on the
   * stream stands in (it adds nothing), and syncs are not counted. */
  int adds;
  int (*acl_copy)(void *dst, size_t max, const void *src, size_t n, int kind,
                  void *stream);
  int (*cu_copy)(unsigned long long dst, unsigned long long src, size_t n,
                 void *stream);
  /* The doubles' views of a stream's worker: host functions running now,
   * waits on a memory value holding a stream now (NULL on a real one). */
  int (*host_fns_running)(void);
  int (*value_waits_holding)(void);
  /* DEVICE_ENQUEUE_HCCL=1: HcclSend/HcclRecv calls of the HCCL double. */
  unsigned long (*hccl_p2p_calls)(void);
} rt;

/* The "kernel": y = x + add on the stream (y = x without the double). */
static int kernel(void *stream, void *y, const void *x, int32_t add,
                  unsigned delay_us) {
  if (rt.launch_add != NULL)
    return rt.launch_add(stream, y, x, N, add, delay_us);
  if (rt.cuda)
    return rt.cu_copy((uintptr_t)y, (uintptr_t)x, N * 4, stream);
  return rt.acl_copy(y, N * 4, x, N * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, stream);
}

/* What the kernel adds: add with the double's kernel, else nothing. */
static int32_t added(int32_t add) { return rt.adds ? add : 0; }

static unsigned long host_syncs(void) {
  return rt.host_syncs != NULL ? rt.host_syncs() : 0;
}

static int (*cu_stream_create)(void **stream, unsigned flags);

static int cu_create(void **s) { return cu_stream_create(s, 0); }

static void *rt_sym(void *lib, const char *name) {
  void *f = dlsym(lib, name);
  if (f == NULL) {
    fprintf(stderr, "rank %d: the double lacks %s\n", rank, name);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return f;
}

static void rt_load(void) {
  const char *alloc = getenv("DEVICE_P2P_ALLOC");
  rt.cuda = alloc != NULL && strcmp(alloc, "cuda") == 0;
  const char *path = getenv(rt.cuda ? "HCMPI_CUDA_LIB" : "HCMPI_ACL_LIB");
  if (path == NULL && rt.cuda)
    path = "libcuda.so.1"; /* a real GPU (tests/device/cuda.sh) */
  void *lib = path != NULL ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
  CHECK(lib != NULL);
  if (rt.cuda)
    *(void **)&cu_stream_create = rt_sym(lib, "cuStreamCreate");
  rt.type = rt.cuda ? "cudaStream_t" : "aclrtStream";
  *(void **)&rt.create =
      rt.cuda ? (void *)cu_create : rt_sym(lib, "aclrtCreateStream");
  *(void **)&rt.sync =
      rt_sym(lib, rt.cuda ? "cuStreamSynchronize" : "aclrtSynchronizeStream");
  *(void **)&rt.destroy =
      rt_sym(lib, rt.cuda ? "cuStreamDestroy_v2" : "aclrtDestroyStream");
  *(void **)&rt.launch_add =
      dlsym(lib, rt.cuda ? "fakecuda_launch_add" : "fakecann_launch_add");
  *(void **)&rt.host_syncs =
      dlsym(lib, rt.cuda ? "fakecuda_host_syncs" : "fakecann_host_syncs");
  *(void **)&rt.host_fns_running = dlsym(
      lib, rt.cuda ? "fakecuda_host_fns_running" : "fakecann_host_fns_running");
  *(void **)&rt.value_waits_holding =
      dlsym(lib, rt.cuda ? "fakecuda_value_waits_holding"
                         : "fakecann_value_waits_holding");
  if (getenv("DEVICE_ENQUEUE_HCCL") != NULL) {
    void *hccl = dlopen(getenv("HCMPI_HCCL_LIB"), RTLD_NOW | RTLD_LOCAL);
    CHECK(hccl != NULL);
    *(void **)&rt.hccl_p2p_calls = rt_sym(hccl, "fakehccl_p2p_calls");
  }
  if (getenv("DEVICE_ENQUEUE_AS_REAL") != NULL) /* the real-runtime form */
    rt.launch_add = NULL, rt.host_syncs = NULL, rt.host_fns_running = NULL,
    rt.value_waits_holding = NULL;
  rt.adds = rt.launch_add != NULL;
  *(void **)&rt.acl_copy = rt.cuda ? NULL : rt_sym(lib, "aclrtMemcpyAsync");
  *(void **)&rt.cu_copy = rt.cuda ? rt_sym(lib, "cuMemcpyAsync") : NULL;
}

static int err_class(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

static void *dev_alloc(size_t bytes) {
  void *p = NULL;
  CHECK(api.malloc_dev(&p, bytes, ACL_MEM_MALLOC_NORMAL_ONLY) == 0);
  return p;
}

static void dev_put(void *dev, const int32_t *host, size_t n) {
  CHECK(api.memcpy_sync(dev, n * 4, host, n * 4, ACL_MEMCPY_HOST_TO_DEVICE) ==
        0);
}

static void dev_get(int32_t *host, const void *dev, size_t n) {
  CHECK(api.memcpy_sync(host, n * 4, dev, n * 4, ACL_MEMCPY_DEVICE_TO_HOST) ==
        0);
}

static int32_t pattern(int who, int j, int k, int i) {
  return who * 1000003 + j * 10007 + k * 101 + i;
}

/* A device stream, an MPIX stream over it and a communicator with it. */
typedef struct {
  void *dev;
  MPIX_Stream stream;
  MPI_Comm comm;
} sctx_t;

static void sctx_open(sctx_t *c) {
  CHECK(rt.create(&c->dev) == 0);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", rt.type);
  CHECK(MPIX_Info_set_hex(info, "value", &c->dev, sizeof c->dev) ==
        MPI_SUCCESS);
  CHECK(MPIX_Stream_create(info, &c->stream) == MPI_SUCCESS);
  MPI_Info_free(&info);
  CHECK(MPIX_Stream_comm_create(MPI_COMM_WORLD, c->stream, &c->comm) ==
        MPI_SUCCESS);
  MPIX_Stream got;
  CHECK(MPIX_Comm_get_stream(c->comm, 0, &got) == MPI_SUCCESS &&
        got == c->stream);
}

static void sctx_close(sctx_t *c) {
  CHECK(MPI_Comm_free(&c->comm) == MPI_SUCCESS);
  int rc = MPIX_Stream_free(&c->stream);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "rank %d: MPIX_Stream_free: %s\n", rank, msg);
  }
  CHECK(rc == MPI_SUCCESS);
  CHECK(c->stream == MPIX_STREAM_NULL);
  CHECK(rt.destroy(c->dev) == 0);
}

/* Rank 0 sends with plain MPI_Send; rank 1 receives with Recv_enqueue and
 * a kernel behind it copies the bytes (+1) elsewhere. */
static void test_kernel_after_recv(sctx_t *c) {
  static int32_t host[N];
  if (rank == 0) {
    for (int i = 0; i < N; i++)
      host[i] = pattern(0, 0, 1, i);
    CHECK(MPI_Send(host, N, MPI_INT, 1, 11, c->comm) == MPI_SUCCESS);
    return;
  }
  void *in = dev_alloc(N * 4), *out = dev_alloc(N * 4);
  memset(host, 0, sizeof host);
  dev_put(in, host, N);
  dev_put(out, host, N);
  MPI_Status st;
  st.MPI_SOURCE = -7;
  unsigned long syncs = host_syncs();
  CHECK(MPIX_Recv_enqueue(in, N, MPI_INT, 0, 11, c->comm, &st) == MPI_SUCCESS);
  CHECK(kernel(c->dev, out, in, 1, 0) == 0);
  CHECK(host_syncs() == syncs); /* enqueueing never waited */
  CHECK(rt.sync(c->dev) == 0);
  dev_get(host, out, N);
  for (int i = 0; i < N; i++)
    CHECK(host[i] == pattern(0, 0, 1, i) + added(1));
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 11 && count == N);
  api.free_dev(in);
  api.free_dev(out);
}

/* Rank 0: a slow kernel writes the data, then Send_enqueue sends it; rank
 * 1 receives with plain MPI_Recv and must see the kernel's result. */
static void test_send_after_kernel(sctx_t *c) {
  static int32_t host[N];
  if (rank == 1) {
    CHECK(MPI_Recv(host, N, MPI_INT, 0, 12, c->comm, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
    for (int i = 0; i < N; i++)
      CHECK(host[i] == pattern(0, 0, 2, i) + added(5));
    return;
  }
  void *src = dev_alloc(N * 4), *msg = dev_alloc(N * 4);
  for (int i = 0; i < N; i++)
    host[i] = pattern(0, 0, 2, i);
  dev_put(src, host, N);
  memset(host, 0, sizeof host);
  dev_put(msg, host, N);
  unsigned long syncs = host_syncs();
  CHECK(kernel(c->dev, msg, src, 5, 50000) == 0);
  CHECK(MPIX_Send_enqueue(msg, N, MPI_INT, 1, 12, c->comm) == MPI_SUCCESS);
  CHECK(host_syncs() == syncs);
  CHECK(rt.sync(c->dev) == 0);
  api.free_dev(src);
  api.free_dev(msg);
}

/* While rank 1's stream is held by a Recv_enqueue whose message rank 0
 * has not sent yet, what holds it is a wait on the stream's flag and no
 * host function is running (HCMPI_STREAM_WAIT=hostfn: a host function
 * holds it, and no value wait); a kernel behind the receive sees the
 * bytes once rank 0 sent. */
static void test_stream_held_by(sctx_t *c) {
  static int32_t host[N];
  if (rt.value_waits_holding == NULL || rt.host_fns_running == NULL)
    return;
  const char *mode = getenv("HCMPI_STREAM_WAIT");
  int flag_mode = mode == NULL || strcmp(mode, "hostfn") != 0;
  int go = 0;
  if (rank == 0) {
    CHECK(MPI_Recv(&go, 1, MPI_INT, 1, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
    for (int i = 0; i < N; i++)
      host[i] = pattern(0, 6, 0, i);
    CHECK(MPI_Send(host, N, MPI_INT, 1, 32, c->comm) == MPI_SUCCESS);
    return;
  }
  void *in = dev_alloc(N * 4), *out = dev_alloc(N * 4);
  memset(host, 0, sizeof host);
  dev_put(in, host, N);
  dev_put(out, host, N);
  CHECK(MPIX_Recv_enqueue(in, N, MPI_INT, 0, 32, c->comm, MPI_STATUS_IGNORE) ==
        MPI_SUCCESS);
  CHECK(kernel(c->dev, out, in, 2, 0) == 0);
  /* Until the stream reached the receive (60 s at most). */
  for (int i = 0;
       (flag_mode ? rt.value_waits_holding() : rt.host_fns_running()) == 0;
       i++) {
    CHECK(i < 600000);
    usleep(100);
  }
  if (flag_mode)
    CHECK(rt.host_fns_running() == 0);
  else
    CHECK(rt.value_waits_holding() == 0);
  go = 1;
  CHECK(MPI_Send(&go, 1, MPI_INT, 0, 31, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(rt.sync(c->dev) == 0);
  CHECK(rt.value_waits_holding() == 0 && rt.host_fns_running() == 0);
  dev_get(host, out, N);
  for (int i = 0; i < N; i++)
    CHECK(host[i] == pattern(0, 6, 0, i) + added(2));
  api.free_dev(in);
  api.free_dev(out);
}

/* The "value" in the run-length form newer MPICH writes ("[N]" for N zero
 * bytes) names the same stream; host buffers enqueued on it arrive. */
static void test_value_run_length(sctx_t *c) {
  unsigned char b[sizeof c->dev];
  char value[4 * sizeof c->dev + 1] = "";
  memcpy(b, &c->dev, sizeof b);
  for (size_t i = 0; i < sizeof b;) {
    size_t zeros = 0;
    while (i + zeros < sizeof b && b[i + zeros] == 0)
      zeros++;
    char part[8];
    if (zeros >= 2)
      snprintf(part, sizeof part, "[%zu]", zeros), i += zeros;
    else
      snprintf(part, sizeof part, "%02X", b[i]), i++;
    strcat(value, part);
  }
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", rt.type);
  MPI_Info_set(info, "value", value);
  MPIX_Stream s;
  MPI_Comm comm;
  CHECK(MPIX_Stream_create(info, &s) == MPI_SUCCESS);
  MPI_Info_free(&info);
  CHECK(MPIX_Stream_comm_create(MPI_COMM_WORLD, s, &comm) == MPI_SUCCESS);
  int x = rank == 0 ? 42 : 0;
  if (rank == 0)
    CHECK(MPIX_Send_enqueue(&x, 1, MPI_INT, 1, 15, comm) == MPI_SUCCESS);
  else
    CHECK(MPIX_Recv_enqueue(&x, 1, MPI_INT, 0, 15, comm, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
  CHECK(rt.sync(c->dev) == 0);
  CHECK(x == 42);
  CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
  CHECK(MPIX_Stream_free(&s) == MPI_SUCCESS);
}

/* A strided type: Recv_enqueue fills every other int of a device buffer
 * and leaves the holes as they were, although the application frees the
 * type right after the call, before the stream ran the receive. */
static void test_strided_type(sctx_t *c) {
  static int32_t host[N];
  if (rank == 0) {
    for (int i = 0; i < N / 2; i++)
      host[i] = pattern(0, 4, 0, i);
    CHECK(MPI_Send(host, N / 2, MPI_INT, 1, 13, c->comm) == MPI_SUCCESS);
    return;
  }
  MPI_Datatype every_other;
  MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  void *buf = dev_alloc(N * 4);
  for (int i = 0; i < N; i++)
    host[i] = -1;
  dev_put(buf, host, N);
  CHECK(MPIX_Recv_enqueue(buf, 1, every_other, 0, 13, c->comm,
                          MPI_STATUS_IGNORE) == MPI_SUCCESS);
  MPI_Type_free(&every_other);
  CHECK(rt.sync(c->dev) == 0);
  dev_get(host, buf, N);
  for (int i = 0; i < N; i++)
    CHECK(host[i] == (i % 2 ? -1 : pattern(0, 4, 0, i / 2)));
  api.free_dev(buf);
}

/* MPI_Comm_free right after the enqueue calls, before the stream ran
 * them: the operations still complete with the right bytes. */
static void test_free_comm_early(void) {
  static int32_t host[N];
  sctx_t c;
  sctx_open(&c);
  void *buf = dev_alloc(N * 4);
  for (int i = 0; i < N; i++)
    host[i] = rank == 0 ? pattern(0, 5, 0, i) : 0;
  dev_put(buf, host, N);
  if (rank == 0)
    CHECK(MPIX_Send_enqueue(buf, N, MPI_INT, 1, 14, c.comm) == MPI_SUCCESS);
  else
    CHECK(MPIX_Recv_enqueue(buf, N, MPI_INT, 0, 14, c.comm,
                            MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_Comm_free(&c.comm) == MPI_SUCCESS);
  CHECK(rt.sync(c.dev) == 0);
  dev_get(host, buf, N);
  for (int i = 0; i < N; i++)
    CHECK(host[i] == pattern(0, 5, 0, i));
  CHECK(MPIX_Stream_free(&c.stream) == MPI_SUCCESS);
  CHECK(rt.destroy(c.dev) == 0);
  api.free_dev(buf);
}

/* Each rank exchanges OPS messages with the other on each of STREAMS
 * streams (I-forms, Waitall_enqueue), a kernel behind each adds j. */
static void test_many_in_flight(void) {
  sctx_t c[STREAMS];
  void *sbuf[STREAMS][OPS], *rbuf[STREAMS][OPS], *out[STREAMS][OPS];
  static int32_t host[N];
  int peer = 1 - rank;
  for (int j = 0; j < STREAMS; j++) {
    sctx_open(&c[j]);
    for (int k = 0; k < OPS; k++) {
      sbuf[j][k] = dev_alloc(N * 4);
      rbuf[j][k] = dev_alloc(N * 4);
      out[j][k] = dev_alloc(N * 4);
      for (int i = 0; i < N; i++)
        host[i] = pattern(rank, j, k, i);
      dev_put(sbuf[j][k], host, N);
    }
  }
  unsigned long syncs = host_syncs();
  unsigned long hccl_calls = rt.hccl_p2p_calls ? rt.hccl_p2p_calls() : 0;
  for (int k = 0; k < OPS; k++)
    for (int j = 0; j < STREAMS; j++) {
      MPI_Request r[2];
      CHECK(MPIX_Irecv_enqueue(rbuf[j][k], N, MPI_INT, peer, k, c[j].comm,
                               &r[0]) == MPI_SUCCESS);
      CHECK(MPIX_Isend_enqueue(sbuf[j][k], N, MPI_INT, peer, k, c[j].comm,
                               &r[1]) == MPI_SUCCESS);
      CHECK(MPIX_Waitall_enqueue(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
      CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL);
      CHECK(kernel(c[j].dev, out[j][k], rbuf[j][k], j, 0) == 0);
    }
  CHECK(host_syncs() == syncs);
  for (int j = 0; j < STREAMS; j++) {
    CHECK(rt.sync(c[j].dev) == 0);
    for (int k = 0; k < OPS; k++) {
      dev_get(host, out[j][k], N);
      for (int i = 0; i < N; i++)
        CHECK(host[i] == pattern(peer, j, k, i) + added(j));
      api.free_dev(sbuf[j][k]);
      api.free_dev(rbuf[j][k]);
      api.free_dev(out[j][k]);
    }
    sctx_close(&c[j]);
  }
  /* Device to device, both sides enqueued: every message went through
   * HcclSend on one side and HcclRecv on the other. */
  if (rt.hccl_p2p_calls != NULL) {
    unsigned long calls = rt.hccl_p2p_calls() - hccl_calls;
    printf("rank %d: %lu HcclSend/HcclRecv for %d messages each way\n", rank,
           calls, STREAMS * OPS);
    CHECK(calls >= 2 * STREAMS * OPS);
  }
}

/* Allreduce_enqueue of kernel output, out of place and in place, against
 * the sum computed here from every rank's known inputs. */
static void test_allreduce(sctx_t *c) {
  static int32_t host[N];
  void *base = dev_alloc(N * 4), *in = dev_alloc(N * 4),
       *sum = dev_alloc(N * 4);
  for (int i = 0; i < N; i++)
    host[i] = pattern(rank, 3, 0, i);
  dev_put(base, host, N);
  CHECK(kernel(c->dev, in, base, 3, 20000) == 0);
  CHECK(MPIX_Allreduce_enqueue(in, sum, N, MPI_INT, MPI_SUM, c->comm) ==
        MPI_SUCCESS);
  CHECK(MPIX_Allreduce_enqueue(MPI_IN_PLACE, in, N, MPI_INT, MPI_MAX,
                               c->comm) == MPI_SUCCESS);
  CHECK(rt.sync(c->dev) == 0);
  dev_get(host, sum, N);
  for (int i = 0; i < N; i++) {
    int32_t want = 0;
    for (int r = 0; r < size; r++)
      want += pattern(r, 3, 0, i) + added(3);
    CHECK(host[i] == want);
  }
  dev_get(host, in, N);
  for (int i = 0; i < N; i++)
    CHECK(host[i] == pattern(size - 1, 3, 0, i) + added(3));
  api.free_dev(base);
  api.free_dev(in);
  api.free_dev(sum);
}

/* A host stream: operations run at the call, in order, here beside the
 * stream's progress thread (MPIX_Start/Stop_progress_thread). */
static void test_host_stream(void) {
  MPIX_Stream s;
  MPI_Comm comm;
  CHECK(MPIX_Stream_create(MPI_INFO_NULL, &s) == MPI_SUCCESS);
  CHECK(MPIX_Stream_comm_create(MPI_COMM_WORLD, s, &comm) == MPI_SUCCESS);
  /* A progress thread runs beside the traffic below. */
  CHECK(MPIX_Stream_progress(s) == MPI_SUCCESS);
  CHECK(MPIX_Stream_progress(MPIX_STREAM_NULL) == MPI_SUCCESS);
  CHECK(err_class(MPIX_Stop_progress_thread(s)) == MPI_ERR_OTHER);
  CHECK(MPIX_Start_progress_thread(s) == MPI_SUCCESS);
  CHECK(err_class(MPIX_Start_progress_thread(s)) == MPI_ERR_OTHER);
  int out[4] = {rank, rank + 10, rank + 20, rank + 30}, in[4] = {0};
  MPI_Request r[2];
  MPI_Status st[2];
  CHECK(MPIX_Irecv_enqueue(in, 4, MPI_INT, 1 - rank, 3, comm, &r[0]) ==
        MPI_SUCCESS);
  CHECK(MPIX_Isend_enqueue(out, 4, MPI_INT, 1 - rank, 3, comm, &r[1]) ==
        MPI_SUCCESS);
  CHECK(MPIX_Waitall_enqueue(2, r, st) == MPI_SUCCESS);
  CHECK(st[0].MPI_SOURCE == 1 - rank && st[0].MPI_TAG == 3);
  for (int i = 0; i < 4; i++)
    CHECK(in[i] == 1 - rank + 10 * i);
  int total = 0;
  CHECK(MPIX_Allreduce_enqueue(&rank, &total, 1, MPI_INT, MPI_SUM, comm) ==
        MPI_SUCCESS);
  CHECK(total == size * (size - 1) / 2);
  CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
  CHECK(err_class(MPIX_Stream_free(&s)) == MPI_ERR_OTHER); /* thread on */
  CHECK(MPIX_Stop_progress_thread(s) == MPI_SUCCESS);
  CHECK(MPIX_Stream_free(&s) == MPI_SUCCESS);
}

/* Two host streams per rank: a message goes between the streams it names.
 * Rank 0 sends A on 0->1 then B on 1->0 with one tag; rank 1 asks for
 * 1->0 first and must get B, although A was sent first. */
static void test_multiplex(void) {
  MPIX_Stream s[2];
  MPI_Comm comm;
  for (int i = 0; i < 2; i++)
    CHECK(MPIX_Stream_create(MPI_INFO_NULL, &s[i]) == MPI_SUCCESS);
  CHECK(MPIX_Stream_comm_create_multiplex(MPI_COMM_WORLD, 2, s, &comm) ==
        MPI_SUCCESS);
  MPIX_Stream got;
  CHECK(MPIX_Comm_get_stream(comm, 1, &got) == MPI_SUCCESS && got == s[1]);
  if (rank == 0) {
    int a = 111, b = 222;
    CHECK(MPIX_Stream_send(&a, 1, MPI_INT, 1, 5, comm, 0, 1) == MPI_SUCCESS);
    CHECK(MPIX_Stream_send(&b, 1, MPI_INT, 1, 5, comm, 1, 0) == MPI_SUCCESS);
  } else if (rank == 1) {
    int first = 0, second = 0;
    CHECK(MPIX_Stream_recv(&first, 1, MPI_INT, 0, 5, comm, 1, 0,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPIX_Stream_recv(&second, 1, MPI_INT, 0, 5, comm, 0, 1,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(first == 222 && second == 111);
  }
  int x = 0;
  CHECK(MPIX_Stream_send(&x, 1, MPI_INT, 1 - rank, 5, comm, 2, 0) ==
        MPI_ERR_ARG);
  CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
  for (int i = 0; i < 2; i++)
    CHECK(MPIX_Stream_free(&s[i]) == MPI_SUCCESS);
}

static void test_bad_input(sctx_t *c) {
  MPI_Info info;
  MPIX_Stream s = MPIX_STREAM_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", "hipStream_t");
  CHECK(err_class(MPIX_Stream_create(info, &s)) == MPI_ERR_INFO_VALUE);
  MPI_Info_set(info, "type", rt.type); /* no "value" */
  CHECK(err_class(MPIX_Stream_create(info, &s)) == MPI_ERR_INFO_VALUE);
  MPI_Info_set(info, "value", "12XY");
  CHECK(err_class(MPIX_Stream_create(info, &s)) == MPI_ERR_INFO_VALUE);
  MPI_Info_free(&info);
  CHECK(s == MPIX_STREAM_NULL);
  int x = 0;
  CHECK(err_class(MPIX_Send_enqueue(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD)) ==
        MPI_ERR_COMM);
  MPI_Request r;
  CHECK(err_class(MPIX_Irecv_enqueue(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD,
                                     &r)) == MPI_ERR_COMM);
  CHECK(err_class(MPIX_Send_enqueue(&x, 1, MPI_INT, size, 0, c->comm)) ==
        MPI_ERR_RANK);
  MPI_Comm inter, half;
  MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank, 9, &inter);
  MPI_Comm none = MPI_COMM_NULL;
  CHECK(err_class(MPIX_Stream_comm_create(inter, c->stream, &none)) ==
        MPI_ERR_COMM);
  CHECK(none == MPI_COMM_NULL);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPIX_Stream attached = c->stream;
  CHECK(err_class(MPIX_Stream_free(&attached)) == MPI_ERR_OTHER);
  CHECK(attached == c->stream);
  CHECK(err_class(MPIX_Comm_get_stream(c->comm, 1, &s)) == MPI_ERR_ARG);
  MPIX_Stream bogus = (MPIX_Stream)0xbc00ffff;
  CHECK(err_class(MPIX_Stream_free(&bogus)) == MPI_ERR_ARG);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(MPI_ERR_INFO_VALUE, msg, &len);
  CHECK(len > 0);
}

/* MPIX_Info_set_hex writes each byte as two upper-case hex digits. */
static void test_info_hex(void) {
  MPI_Info info;
  MPI_Info_create(&info);
  unsigned char bytes[3] = {0x0a, 0xff, 0x30};
  CHECK(MPIX_Info_set_hex(info, "k", bytes, 3) == MPI_SUCCESS);
  char v[16];
  int len = sizeof v, flag = 0;
  MPI_Info_get_string(info, "k", &len, v, &flag);
  CHECK(flag && strcmp(v, "0AFF30") == 0);
  MPI_Info_free(&info);
}

/* "killed" mode (run under hcmpirun --no-kill-on-failure): rank 1 dies
 * while rank 0 has a receive from it and a kernel behind it enqueued.  The
 * stream must not hang (the watcher, or the host function, gets the
 * failure and lets the stream go on), and the next enqueue call on the
 * stream reports MPIX_ERR_PROC_FAILED. */
static void test_killed_peer(void) {
  sctx_t c;
  sctx_open(&c);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    fflush(stdout);
    raise(SIGKILL);
  }
  void *in = dev_alloc(N * 4), *out = dev_alloc(N * 4);
  CHECK(MPIX_Recv_enqueue(in, N, MPI_INT, 1, 21, c.comm, MPI_STATUS_IGNORE) ==
        MPI_SUCCESS);
  CHECK(kernel(c.dev, out, in, 1, 0) == 0);
  CHECK(rt.sync(c.dev) == 0);
  int x = 0;
  int rc = MPIX_Send_enqueue(&x, 1, MPI_INT, 0, 22, c.comm);
  CHECK(err_class(rc) == MPIX_ERR_PROC_FAILED);
  printf("device_enqueue killed: the stream reported %s\n",
         rc == MPI_SUCCESS ? "nothing" : "MPIX_ERR_PROC_FAILED");
  fflush(stdout);
  _exit(0);
}

/* "killed-sending" mode (hcmpirun --no-kill-on-failure, HCMPI_DEVICE_PATH=
 * hccl, short HCCL timeouts): rank 1 starts an ordinary send of device
 * memory to rank 0 and dies at once, so rank 0's enqueued receive may
 * have matched it and issued its HcclRecv, which no HcclSend will ever
 * pair.  The stream must still go on once HCCL gives up, and the next
 * enqueue call report an error. */
static void test_killed_sending_peer(void) {
  sctx_t c;
  sctx_open(&c);
  void *in = dev_alloc(N * 4), *out = dev_alloc(N * 4);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Request r;
    CHECK(MPI_Isend(in, N, MPI_INT, 0, 23, c.comm, &r) == MPI_SUCCESS);
    for (int i = 0; i < 100; i++) { /* the RTS out, maybe the CTS in */
      int done = 0;
      MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    }
    fflush(stdout);
    raise(SIGKILL);
  }
  CHECK(MPIX_Recv_enqueue(in, N, MPI_INT, 1, 23, c.comm, MPI_STATUS_IGNORE) ==
        MPI_SUCCESS);
  CHECK(kernel(c.dev, out, in, 1, 0) == 0);
  CHECK(rt.sync(c.dev) == 0);
  int x = 0;
  int rc = MPIX_Send_enqueue(&x, 1, MPI_INT, 0, 24, c.comm);
  CHECK(rc != MPI_SUCCESS);
  printf("device_enqueue killed-sending: the stream reported error class "
         "%d\n",
         err_class(rc));
  fflush(stdout);
  _exit(0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2);
  CHECK(fake_api_load_env(0, &api) == 0);
  rt_load();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (argc > 1 && strcmp(argv[1], "killed") == 0)
    test_killed_peer();
  if (argc > 1 && strcmp(argv[1], "killed-sending") == 0)
    test_killed_sending_peer();
  test_info_hex();
  sctx_t c;
  sctx_open(&c);
  test_kernel_after_recv(&c);
  test_send_after_kernel(&c);
  test_stream_held_by(&c);
  test_allreduce(&c);
  test_strided_type(&c);
  test_value_run_length(&c);
  test_bad_input(&c);
  sctx_close(&c);
  test_free_comm_early();
  test_many_in_flight();
  test_host_stream();
  test_multiplex();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("device_enqueue: 2 ranks OK (%s)\n", rt.type);
  MPI_Finalize();
  return 0;
}

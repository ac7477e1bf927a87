/*
 * The CUDA test double (tests/fake-cuda) is as strict as a GPU where hcmpi
 * was caught out on one: the NULL stream is the context's legacy stream
 * (a pageable source is taken at the call; legacy work waits for blocking
 * streams' earlier work and theirs for its; non-blocking streams pass it;
 * copies to host memory return complete), and cuIpcCloseMemHandle waits
 * for the context's streams while it blocks other threads' driver calls,
 * reporting a stream held on a value wait as the hang it is and aborting.
 * Every check here is an ordering or a byte, none a duration.  Skips (77)
 * when the double was not built.
 */
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../fake-cuda/fake_cuda.h"

/* The double's entry points, resolved from the library make check built. */
#define CU_FN(name) __typeof__(&name) name##_
static struct {
  CU_FN(cuInit);
  CU_FN(cuDeviceGet);
  CU_FN(cuDevicePrimaryCtxRetain);
  CU_FN(cuCtxSetCurrent);
  CU_FN(cuCtxSynchronize);
  CU_FN(cuMemAlloc_v2);
  CU_FN(cuMemHostAlloc);
  CU_FN(cuMemHostGetDevicePointer_v2);
  CU_FN(cuMemcpyHtoD_v2);
  CU_FN(cuMemcpyDtoH_v2);
  CU_FN(cuMemcpyAsync);
  CU_FN(cuStreamCreate);
  CU_FN(cuStreamSynchronize);
  CU_FN(cuStreamWaitValue32_v2);
  CU_FN(cuEventCreate);
  CU_FN(cuEventRecord);
  CU_FN(cuEventQuery);
  CU_FN(cuEventSynchronize);
  CU_FN(cuEventDestroy_v2);
  CU_FN(cuIpcGetMemHandle);
  CU_FN(cuIpcOpenMemHandle_v2);
  CU_FN(cuIpcCloseMemHandle);
  CU_FN(fakecuda_closes_waiting);
} cu;

#define CU_LOAD(lib, name)                                                     \
  do {                                                                         \
    *(void **)&cu.name##_ = dlsym(lib, #name);                                 \
    ck_assert_ptr_nonnull(*(void **)&cu.name##_);                              \
  } while (0)

enum { N = 4096 };

static CUcontext ctx;

/* Loads the double and makes device 0's context current: in each test's
 * own process (check forks one per test), so each starts with no streams. */
static void load(void) {
  void *lib = dlopen(HC_FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
  ck_assert_ptr_nonnull(lib);
  CU_LOAD(lib, cuInit);
  CU_LOAD(lib, cuDeviceGet);
  CU_LOAD(lib, cuDevicePrimaryCtxRetain);
  CU_LOAD(lib, cuCtxSetCurrent);
  CU_LOAD(lib, cuCtxSynchronize);
  CU_LOAD(lib, cuMemAlloc_v2);
  CU_LOAD(lib, cuMemHostAlloc);
  CU_LOAD(lib, cuMemHostGetDevicePointer_v2);
  CU_LOAD(lib, cuMemcpyHtoD_v2);
  CU_LOAD(lib, cuMemcpyDtoH_v2);
  CU_LOAD(lib, cuMemcpyAsync);
  CU_LOAD(lib, cuStreamCreate);
  CU_LOAD(lib, cuStreamSynchronize);
  CU_LOAD(lib, cuStreamWaitValue32_v2);
  CU_LOAD(lib, cuEventCreate);
  CU_LOAD(lib, cuEventRecord);
  CU_LOAD(lib, cuEventQuery);
  CU_LOAD(lib, cuEventSynchronize);
  CU_LOAD(lib, cuEventDestroy_v2);
  CU_LOAD(lib, cuIpcGetMemHandle);
  CU_LOAD(lib, cuIpcOpenMemHandle_v2);
  CU_LOAD(lib, cuIpcCloseMemHandle);
  CU_LOAD(lib, fakecuda_closes_waiting);
  CUdevice dev;
  ck_assert_int_eq(cu.cuInit_(0), CUDA_SUCCESS);
  ck_assert_int_eq(cu.cuDeviceGet_(&dev, 0), CUDA_SUCCESS);
  ck_assert_int_eq(cu.cuDevicePrimaryCtxRetain_(&ctx, dev), CUDA_SUCCESS);
  ck_assert_int_eq(cu.cuCtxSetCurrent_(ctx), CUDA_SUCCESS);
}

static CUdeviceptr dev_alloc(void) {
  CUdeviceptr d;
  ck_assert_int_eq(cu.cuMemAlloc_v2_(&d, N), CUDA_SUCCESS);
  return d;
}

static CUstream stream(unsigned flags) {
  CUstream s;
  ck_assert_int_eq(cu.cuStreamCreate_(&s, flags), CUDA_SUCCESS);
  return s;
}

/* A word the host raises with a plain store and a stream can wait on:
 * mapped pinned memory, with its device address. */
typedef struct flag_word {
  volatile uint32_t *host;
  CUdeviceptr dev;
} flag_word_t;

static flag_word_t flag_word(void) {
  void *p;
  flag_word_t f;
  ck_assert_int_eq(cu.cuMemHostAlloc_(&p, 4, FC_HOSTALLOC_DEVICEMAP),
                   CUDA_SUCCESS);
  ck_assert_int_eq(cu.cuMemHostGetDevicePointer_v2_(&f.dev, p, 0),
                   CUDA_SUCCESS);
  f.host = p;
  *f.host = 0;
  return f;
}

/* s (NULL: the legacy stream) held until *f.host reaches 1. */
static void hold(CUstream s, flag_word_t f) {
  ck_assert_int_eq(
      cu.cuStreamWaitValue32_v2_(s, f.dev, 1, CU_STREAM_WAIT_VALUE_GEQ),
      CUDA_SUCCESS);
}

static CUevent record(CUstream s) {
  CUevent e;
  ck_assert_int_eq(cu.cuEventCreate_(&e, 0), CUDA_SUCCESS);
  ck_assert_int_eq(cu.cuEventRecord_(e, s), CUDA_SUCCESS);
  return e;
}

static void expect_bytes(CUdeviceptr d, unsigned char want) {
  unsigned char back[N];
  ck_assert_int_eq(cu.cuMemcpyDtoH_v2_(back, d, N), CUDA_SUCCESS);
  for (size_t i = 0; i < N; i++)
    ck_assert_uint_eq(back[i], want);
}

/* cuMemcpyHtoD from pageable memory stages the source at the call: bytes
 * written there after it returned do not reach the device; a copy to host
 * memory returns with the legacy stream's earlier writes in place. */
START_TEST(test_pageable_source_taken_at_the_call) {
  load();
  CUdeviceptr d = dev_alloc();
  unsigned char src[N];
  memset(src, 1, N);
  ck_assert_int_eq(cu.cuMemcpyHtoD_v2_(d, src, N), CUDA_SUCCESS);
  memset(src, 2, N);
  expect_bytes(d, 1);
}
END_TEST

/* Device memory filled with byte v, synchronised. */
static CUdeviceptr filled(unsigned char v) {
  CUdeviceptr d = dev_alloc();
  unsigned char fill[N];
  memset(fill, v, N);
  ck_assert_int_eq(cu.cuMemcpyHtoD_v2_(d, fill, N), CUDA_SUCCESS);
  ck_assert_int_eq(cu.cuStreamSynchronize_(NULL), CUDA_SUCCESS);
  return d;
}

/* Two copies into one buffer, the first on a stream held on a flag, the
 * second on a stream that must wait for the first: an event after the
 * second stays unreached while the flag is down, and the buffer ends with
 * the second copy's bytes (run out of order, the first would win). */
static void second_waits_for_first(CUstream first, CUstream second) {
  CUdeviceptr d = dev_alloc(), one = filled(1), two = filled(2);
  flag_word_t f = flag_word();
  hold(first, f);
  ck_assert_int_eq(cu.cuMemcpyAsync_(d, one, N, first), CUDA_SUCCESS);
  ck_assert_int_eq(cu.cuMemcpyAsync_(d, two, N, second), CUDA_SUCCESS);
  CUevent e = record(second);
  ck_assert_int_eq(cu.cuEventQuery_(e), CUDA_ERROR_NOT_READY);
  *f.host = 1;
  ck_assert_int_eq(cu.cuEventSynchronize_(e), CUDA_SUCCESS);
  ck_assert_int_eq(cu.cuCtxSynchronize_(), CUDA_SUCCESS); /* both ran */
  expect_bytes(d, 2);
  ck_assert_int_eq(cu.cuEventDestroy_v2_(e), CUDA_SUCCESS);
}

/* Legacy work waits for a blocking stream's earlier work. */
START_TEST(test_legacy_stream_waits_for_blocking_stream) {
  load();
  second_waits_for_first(stream(0), NULL);
}
END_TEST

/* A blocking stream's work waits for the legacy stream's earlier work. */
START_TEST(test_blocking_stream_waits_for_legacy_stream) {
  load();
  second_waits_for_first(NULL, stream(0));
}
END_TEST

/* A non-blocking stream does not order with the legacy stream: its copy
 * completes while the legacy stream is held (else this test hangs). */
START_TEST(test_non_blocking_stream_passes_legacy_stream) {
  load();
  CUdeviceptr d = dev_alloc(), src = filled(5);
  flag_word_t f = flag_word();
  hold(NULL, f);
  CUevent legacy_done = record(NULL);
  CUstream free_running = stream(CU_STREAM_NON_BLOCKING);
  unsigned char back[N];
  ck_assert_int_eq(cu.cuMemcpyAsync_(d, src, N, free_running), CUDA_SUCCESS);
  ck_assert_int_eq(
      cu.cuMemcpyAsync_((CUdeviceptr)(uintptr_t)back, d, N, free_running),
      CUDA_SUCCESS);
  ck_assert_int_eq(cu.cuStreamSynchronize_(free_running), CUDA_SUCCESS);
  for (size_t i = 0; i < N; i++)
    ck_assert_uint_eq(back[i], 5);
  ck_assert_int_eq(cu.cuEventQuery_(legacy_done), CUDA_ERROR_NOT_READY);
  *f.host = 1;
  ck_assert_int_eq(cu.cuEventSynchronize_(legacy_done), CUDA_SUCCESS);
  ck_assert_int_eq(cu.cuEventDestroy_v2_(legacy_done), CUDA_SUCCESS);
}
END_TEST

/* ---- cuIpcCloseMemHandle ------------------------------------------------ */

/* A forked exporter of one allocation: its IPC handle, and the pipe whose
 * closing lets it exit. */
typedef struct exporter {
  pid_t pid;
  CUipcMemHandle handle;
  int release_fd;
} exporter_t;

static exporter_t export_from_child(void) {
  int handle_pipe[2], release_pipe[2];
  ck_assert(pipe(handle_pipe) == 0 && pipe(release_pipe) == 0);
  exporter_t x;
  x.pid = fork();
  ck_assert_int_ge(x.pid, 0);
  if (x.pid == 0) {
    close(release_pipe[1]);
    load();
    CUdeviceptr d = dev_alloc();
    CUipcMemHandle h;
    char done;
    int ok = cu.cuIpcGetMemHandle_(&h, d) == CUDA_SUCCESS &&
             write(handle_pipe[1], &h, sizeof h) == (ssize_t)sizeof h;
    while (ok && read(release_pipe[0], &done, 1) > 0)
      ;
    _exit(ok ? 0 : 1);
  }
  close(handle_pipe[1]);
  close(release_pipe[0]);
  ck_assert_int_eq(read(handle_pipe[0], &x.handle, sizeof x.handle),
                   (ssize_t)sizeof x.handle);
  close(handle_pipe[0]);
  x.release_fd = release_pipe[1];
  return x;
}

static void exporter_done(exporter_t *x) {
  int status;
  close(x->release_fd);
  ck_assert_int_eq(waitpid(x->pid, &status, 0), x->pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The close waits for a stream that is held until the host raises a flag,
 * and returns once it is raised (here by a thread that needs no driver
 * call to do so). */
typedef struct raiser {
  flag_word_t flag;
  int use_driver; /* a driver call first, as hcmpi's watcher made one */
  CUdeviceptr scratch;
} raiser_t;

static void *raise_flag_during_close(void *arg) {
  raiser_t *r = arg;
  while (cu.fakecuda_closes_waiting_() == 0)
    sched_yield();
  if (r->use_driver) {
    ck_assert_int_eq(cu.cuCtxSetCurrent_(ctx), CUDA_SUCCESS);
    unsigned char byte = 1;
    cu.cuMemcpyAsync_(r->scratch, (CUdeviceptr)(uintptr_t)&byte, 1, NULL);
  }
  *r->flag.host = 1;
  return NULL;
}

/* Opens x's export, holds a stream on a flag, and closes the import while
 * a thread raises the flag once the close waits (after a driver call when
 * use_driver).  Returns the close's result. */
static CUresult close_while_held(exporter_t *x, int use_driver) {
  CUdeviceptr imported;
  ck_assert_int_eq(cu.cuIpcOpenMemHandle_v2_(&imported, x->handle, 0),
                   CUDA_SUCCESS);
  raiser_t r = {flag_word(), use_driver, dev_alloc()};
  hold(stream(CU_STREAM_NON_BLOCKING), r.flag);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, raise_flag_during_close, &r), 0);
  CUresult rc = cu.cuIpcCloseMemHandle_(imported);
  pthread_join(t, NULL);
  return rc;
}

START_TEST(test_close_waits_for_held_stream) {
  load();
  exporter_t x = export_from_child();
  ck_assert_int_eq(close_while_held(&x, 0), CUDA_SUCCESS);
  exporter_done(&x);
}
END_TEST

/* The H200's hang: the thread that would raise the flag makes a driver
 * call first, which the close blocks.  The double reports it and aborts;
 * the close runs in a child whose stderr and end are checked. */
START_TEST(test_close_reports_the_hang_and_aborts) {
  int err_pipe[2];
  ck_assert(pipe(err_pipe) == 0);
  pid_t closer = fork();
  ck_assert_int_ge(closer, 0);
  if (closer == 0) {
    dup2(err_pipe[1], STDERR_FILENO);
    close(err_pipe[0]);
    load();
    exporter_t x = export_from_child();
    close_while_held(&x, 1);
    _exit(3); /* the close returned: the double modelled no hang */
  }
  close(err_pipe[1]);
  static char said[4096];
  size_t got = 0;
  ssize_t n;
  while (got < sizeof said - 1 &&
         (n = read(err_pipe[0], said + got, sizeof said - 1 - got)) > 0)
    got += (size_t)n;
  close(err_pipe[0]);
  int status;
  ck_assert_int_eq(waitpid(closer, &status, 0), closer);
  ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
                "the close did not abort (status %d): %s", status, said);
  ck_assert_ptr_nonnull(strstr(said, "cuIpcCloseMemHandle waits for stream"));
  ck_assert_ptr_nonnull(
      strstr(said, "held on a value wait: a real driver would hang here"));
}
END_TEST

static Suite *fake_cuda_suite(void) {
  Suite *s = suite_create("fake-cuda");
  TCase *tc = tcase_create("legacy-stream");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_pageable_source_taken_at_the_call);
  tcase_add_test(tc, test_legacy_stream_waits_for_blocking_stream);
  tcase_add_test(tc, test_blocking_stream_waits_for_legacy_stream);
  tcase_add_test(tc, test_non_blocking_stream_passes_legacy_stream);
  suite_add_tcase(s, tc);
  tc = tcase_create("ipc-close");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_close_waits_for_held_stream);
  tcase_add_test(tc, test_close_reports_the_hang_and_aborts);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (access(HC_FAKE_CUDA, R_OK) != 0)
    return 77; /* the test double was not built */
  SRunner *sr = srunner_create(fake_cuda_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

/*
 * The device layer (src/device) against the CANN test double
 * (tests/fake-cann): classification and its cache, copies in every
 * direction, async copies with events, IPC between forked processes, the
 * double's IPC rules, and proof that a host dereference of a device pointer
 * faults; the cuda backend's dma-buf export and allocation checks against
 * the CUDA test double (tests/fake-cuda).  Skips (77) when the doubles were
 * not built.
 */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../device/fake_api.h"
#include "device/device.h"

static fake_api_t fa;

static void setup(void) {
  setenv("HCMPI_ACL_LIB", HC_FAKE_ACL, 1);
  setenv("HCMPI_DEVICE", "acl", 1);
  ck_assert_int_eq(fake_api_load(HC_FAKE_ACL, 0, &fa), 0);
  hc_device_init();
  ck_assert(hc_device_any());
}

static void teardown(void) { hc_device_fini(); }

static void *dev_alloc(size_t n) {
  void *p = NULL;
  ck_assert_int_eq(fa.malloc_dev(&p, n, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  return p;
}

static void fill(unsigned char *p, size_t n, int salt) {
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(i * 31 + (size_t)salt);
}

static void expect(const unsigned char *p, size_t n, int salt) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (unsigned char)(i * 31 + (size_t)salt))
      ck_abort_msg("byte %zu is %u, want %u", i, p[i],
                   (unsigned char)(i * 31 + (size_t)salt));
}

START_TEST(test_classify_host_device_pinned) {
  char stack[16];
  void *heap = malloc(64);
  unsigned char *d = dev_alloc(10000);
  void *pinned = NULL;
  ck_assert_int_eq(fa.malloc_host(&pinned, 4096), 0);
  hc_mem_info_t info;
  ck_assert_int_eq(hc_device_classify(stack, &info), HC_MEM_HOST);
  ck_assert_int_eq(hc_device_classify(heap, &info), HC_MEM_HOST);
  ck_assert_int_eq(info.device, -1);
  ck_assert_int_eq(hc_device_classify(pinned, &info), HC_MEM_HOST);
  ck_assert_int_eq(hc_device_classify(d + 1234, &info), HC_MEM_ACL);
  ck_assert_int_eq(info.device, 0);
  ck_assert_uint_eq(info.base, (uintptr_t)d);
  ck_assert_uint_eq(info.size, 10000);
  ck_assert_int_eq(hc_device_classify(NULL, &info), HC_MEM_HOST);
  fa.free_host(pinned);
  fa.free_dev(d);
  free(heap);
}
END_TEST

START_TEST(test_classify_other_device) {
  ck_assert_int_eq(fa.set_device(1), 0);
  void *d = dev_alloc(100);
  hc_mem_info_t info;
  ck_assert_int_eq(hc_device_classify(d, &info), HC_MEM_ACL);
  ck_assert_int_eq(info.device, 1);
  fa.free_dev(d);
  ck_assert_int_eq(fa.set_device(0), 0);
}
END_TEST

START_TEST(test_cache_drops_forgotten_ranges) {
  unsigned char *a = dev_alloc(5000), *b = dev_alloc(7000);
  int before = hc_device_cache_count();
  hc_mem_info_t info;
  hc_device_classify(a, &info);
  hc_device_classify(a + 10, &info); /* same range: no new entry */
  hc_device_classify(b + 6999, &info);
  ck_assert_int_eq(hc_device_cache_count(), before + 2);
  fa.free_dev(a);
  hc_device_forget(a + 100);
  ck_assert_int_eq(hc_device_cache_count(), before + 1);
  /* Freed and forgotten: the runtime no longer claims it. */
  ck_assert_int_eq(hc_device_classify(a, &info), HC_MEM_HOST);
  ck_assert_int_eq(hc_device_cache_count(), before + 1);
  fa.free_dev(b);
  hc_device_forget(b);
  ck_assert_int_eq(hc_device_cache_count(), before);
}
END_TEST

/* Freed and allocated again at the same address (the double reuses the
 * range) with another size: the cached range is re-checked and replaced,
 * never handed out stale. */
START_TEST(test_cache_rechecks_reallocated_ranges) {
  unsigned char *a = dev_alloc(5000);
  hc_mem_info_t info;
  ck_assert_int_eq(hc_device_classify(a, &info), HC_MEM_ACL);
  ck_assert_uint_eq(info.size, 5000);
  fa.free_dev(a);
  unsigned char *b = dev_alloc(9000);
  ck_assert_ptr_eq(b, a);
  ck_assert_int_eq(hc_device_classify(b + 100, &info), HC_MEM_ACL);
  ck_assert_uint_eq(info.base, (uintptr_t)b);
  ck_assert_uint_eq(info.size, 9000);
  fa.free_dev(b);
  /* Freed for good: host memory now, as far as anyone can tell. */
  ck_assert_int_eq(hc_device_classify(b, &info), HC_MEM_HOST);
}
END_TEST

START_TEST(test_copies_every_direction) {
  const size_t n = 300000;
  unsigned char *h1 = malloc(n), *h2 = calloc(1, n);
  unsigned char *d1 = dev_alloc(n), *d2 = dev_alloc(n);
  hc_mem_info_t hi, d1i, d2i;
  hc_device_classify(h1, &hi);
  hc_device_classify(d1, &d1i);
  hc_device_classify(d2, &d2i);
  fill(h1, n, 5);
  ck_assert_int_eq(hc_device_copy(d1, &d1i, h1, &hi, n), HC_OK);  /* h2d */
  ck_assert_int_eq(hc_device_copy(d2, &d2i, d1, &d1i, n), HC_OK); /* d2d */
  ck_assert_int_eq(hc_device_copy(h2, &hi, d2, &d2i, n), HC_OK);  /* d2h */
  expect(h2, n, 5);
  memset(h2, 0, n);
  ck_assert_int_eq(hc_device_copy(h2, &hi, h1, &hi, n), HC_OK); /* h2h */
  expect(h2, n, 5);
  /* Checked against the runtime's own copy, not only ours. */
  memset(h2, 0, n);
  ck_assert_int_eq(fa.memcpy_sync(h2, n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST), 0);
  expect(h2, n, 5);
  /* The double refuses a copy past the allocation. */
  ck_assert_int_ne(
      fa.memcpy_sync(h2, n + 1, d2, n + 1, ACL_MEMCPY_DEVICE_TO_HOST), 0);
  fa.free_dev(d1);
  fa.free_dev(d2);
  free(h1);
  free(h2);
}
END_TEST

START_TEST(test_async_copy_and_event) {
  const hc_device_ops_t *ops = hc_device_backend(HC_MEM_ACL);
  ck_assert_ptr_nonnull(ops);
  const size_t n = 1 << 22;
  unsigned char *d = dev_alloc(n);
  unsigned char *pin;
  ck_assert_int_eq(ops->host_alloc(n, (void **)&pin), HC_OK);
  fill(pin, n, 9);
  void *stream, *event;
  ck_assert_int_eq(ops->stream_create(0, &stream), HC_OK);
  ck_assert_int_eq(ops->event_create(&event), HC_OK);
  ck_assert_int_eq(ops->copy_async(d, pin, n, HC_COPY_H2D, stream), HC_OK);
  ck_assert_int_eq(ops->event_record(event, stream), HC_OK);
  hc_status_t rc;
  while ((rc = ops->event_query(event)) == HC_ERR_AGAIN)
    ;
  ck_assert_int_eq(rc, HC_OK);
  memset(pin, 0, n);
  ck_assert_int_eq(ops->copy_async(pin, d, n, HC_COPY_D2H, stream), HC_OK);
  ck_assert_int_eq(ops->event_record(event, stream), HC_OK);
  while ((rc = ops->event_query(event)) == HC_ERR_AGAIN)
    ;
  ck_assert_int_eq(rc, HC_OK);
  expect(pin, n, 9);
  ops->event_destroy(event);
  ops->stream_destroy(stream);
  ops->host_free(pin);
  fa.free_dev(d);
}
END_TEST

/* Child of the IPC test: imports the parent's export through the device
 * layer, checks it, writes its own pattern back, closes.  Exit 0 = ok. */
static int ipc_child(const hc_ipc_handle_t *h, size_t offset, size_t n) {
  const hc_device_ops_t *ops = hc_device_backend(HC_MEM_ACL);
  void *imp, *stream, *event;
  unsigned char *mine = dev_alloc(n), *host = malloc(n);
  if (hc_device_ipc_import(h, &imp) != HC_OK)
    return 2;
  void *again;
  if (hc_device_ipc_import(h, &again) != HC_OK || again != imp)
    return 3; /* cached */
  hc_device_ipc_release(h);
  if (ops->stream_create(0, &stream) != HC_OK ||
      ops->event_create(&event) != HC_OK)
    return 4;
  unsigned char *src = (unsigned char *)imp + offset;
  ops->copy_async(mine, src, n, HC_COPY_D2D, stream);
  ops->event_record(event, stream);
  while (ops->event_query(event) == HC_ERR_AGAIN)
    ;
  hc_mem_info_t hi, mi;
  hc_device_classify(host, &hi);
  hc_device_classify(mine, &mi);
  if (hc_device_copy(host, &hi, mine, &mi, n) != HC_OK)
    return 5;
  for (size_t i = 0; i < n; i++)
    if (host[i] != (unsigned char)(i * 31 + 3))
      return 6;
  /* A synchronous copy from imported memory is refused, as documented. */
  if (fa.memcpy_sync(host, n, src, n, ACL_MEMCPY_DEVICE_TO_HOST) == 0)
    return 7;
  fill(host, n, 4);
  hc_device_copy(mine, &mi, host, &hi, n);
  ops->copy_async(src, mine, n, HC_COPY_D2D, stream);
  ops->event_record(event, stream);
  while (ops->event_query(event) == HC_ERR_AGAIN)
    ;
  hc_device_ipc_release(h);
  ops->event_destroy(event);
  ops->stream_destroy(stream);
  hc_device_ipc_close_all();
  return 0;
}

START_TEST(test_ipc_between_processes) {
  const size_t total = 3 * 65536, offset = 4096 + 100, n = 50000;
  unsigned char *d = dev_alloc(total), *host = malloc(total);
  fill(host, n, 3);
  hc_mem_info_t di, hi;
  hc_device_classify(d + offset, &di);
  hc_device_classify(host, &hi);
  ck_assert_int_eq(hc_device_copy(d + offset, &di, host, &hi, n), HC_OK);
  hc_ipc_handle_t h;
  size_t off;
  ck_assert_int_eq(hc_device_ipc_export(d + offset, &di, &h, &off), HC_OK);
  ck_assert_uint_eq(off, offset); /* the allocation base is exported */
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    _exit(ipc_child(&h, off, n));
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st));
  ck_assert_int_eq(WEXITSTATUS(st), 0);
  memset(host, 0, n);
  ck_assert_int_eq(hc_device_copy(host, &hi, d + offset, &di, n), HC_OK);
  expect(host, n, 4);  /* the child's bytes, through the shared pages */
  hc_device_forget(d); /* withdraws the export: every importer closed */
  fa.free_dev(d);
  free(host);
}
END_TEST

/* The double's IPC rules, straight through its ACL calls. */
START_TEST(test_ipc_rules_of_the_double) {
  unsigned char *d = dev_alloc(2 * 4096);
  char key[65];
  ck_assert_int_eq(fa.export_key(d + 8, 4096, key, sizeof key, 0),
                   ACL_ERROR_MEMORY_ADDRESS_UNALIGNED);
  ck_assert_int_eq(fa.export_key(d, 4096, key, 10, 0), ACL_ERROR_INVALID_PARAM);
  ck_assert_int_eq(fa.export_key(d, 2 * 4096, key, sizeof key,
                                 ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT),
                   0);
  int up[2], down[2]; /* child -> parent, parent -> child */
  ck_assert_int_eq(pipe(up), 0);
  ck_assert_int_eq(pipe(down), 0);
  pid_t pid = fork();
  if (pid == 0) { /* not whitelisted yet, then whitelisted */
    void *p;
    if (fa.import_key(&p, key, 0) != ACL_ERROR_RT_PARAM_INVALID)
      _exit(2);
    char go;
    if (write(up[1], "r", 1) != 1 || read(down[0], &go, 1) != 1)
      _exit(3);
    if (fa.import_key(&p, key, 0) != 0)
      _exit(4);
    if (write(up[1], "i", 1) != 1 || read(down[0], &go, 1) != 1)
      _exit(5);
    _exit(fa.close_key(key) == 0 ? 0 : 6);
  }
  char c;
  ck_assert_int_eq(read(up[0], &c, 1), 1);
  int32_t child = pid;
  ck_assert_int_eq(fa.set_pid(key, &child, 1), 0);
  ck_assert_int_eq(write(down[1], "g", 1), 1);
  ck_assert_int_eq(read(up[0], &c, 1), 1);
  /* An importer still holds it: the exporter may not close yet. */
  ck_assert_int_eq(fa.close_key(key), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  ck_assert_int_eq(write(down[1], "c", 1), 1);
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st));
  ck_assert_int_eq(WEXITSTATUS(st), 0);
  ck_assert_int_eq(fa.close_key(key), 0);
  ck_assert_int_eq(fa.close_key(key), ACL_ERROR_INVALID_PARAM);
  fa.free_dev(d);
}
END_TEST

START_TEST(test_host_dereference_of_device_pointer_faults) {
  volatile unsigned char *d = dev_alloc(4096);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL);
    unsigned char v = d[17]; /* must fault */
    _exit(v == 0x5a ? 10 : 11);
  }
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFSIGNALED(st));
  ck_assert_int_eq(WTERMSIG(st), SIGSEGV);
  fa.free_dev((void *)d);
}
END_TEST

START_TEST(test_device_none_means_host) {
  void *d = dev_alloc(64);
  hc_device_fini();
  setenv("HCMPI_DEVICE", "none", 1);
  hc_device_init();
  ck_assert(!hc_device_any());
  ck_assert_int_eq(hc_device_classify(d, NULL), HC_MEM_HOST);
  hc_device_fini();
  setenv("HCMPI_DEVICE", "acl", 1);
  setenv("HCMPI_ACL_LIB", "/nonexistent/libascendcl.so", 1);
  hc_device_init(); /* a missing runtime is not an error */
  ck_assert(!hc_device_any());
  hc_device_fini();
  setenv("HCMPI_ACL_LIB", HC_FAKE_ACL, 1);
  fa.free_dev(d);
}
END_TEST

/* ---- the cuda backend on the CUDA test double (tests/fake-cuda) ------- */

static void setup_cuda(void) {
  setenv("HCMPI_CUDA_LIB", HC_FAKE_CUDA, 1);
  setenv("HCMPI_DEVICE", "cuda", 1);
  ck_assert_int_eq(fake_api_load_cuda(0, &fa), 0);
  hc_device_init();
  ck_assert(hc_device_any());
}

/* The whole allocation as a dma-buf whose bytes are the device's; host
 * memory and a driver without dma-buf support refuse. */
START_TEST(test_cuda_dmabuf_export) {
  const size_t n = 10000, page = (size_t)sysconf(_SC_PAGESIZE);
  unsigned char *d = dev_alloc(n), host[10000], back[10000];
  hc_mem_info_t info;
  ck_assert_int_eq(hc_device_classify(d + 100, &info), HC_MEM_CUDA);
  ck_assert(info.base == (uintptr_t)d && info.size == n && info.alloc_id != 0);
  fill(host, n, 3);
  ck_assert_int_eq(fa.memcpy_sync(d, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  int fd = -1;
  uint64_t offset = 1;
  size_t len = 0;
  ck_assert_int_eq(hc_device_dmabuf_export(&info, &fd, &offset, &len), HC_OK);
  ck_assert_int_ge(fd, 0);
  ck_assert_uint_eq(offset, 0);
  ck_assert_uint_eq(len, (n + page - 1) / page * page);
  ck_assert_int_eq(pread(fd, back, n, 0), (ssize_t)n);
  expect(back, n, 3);
  close(fd);
  hc_mem_info_t hinfo;
  ck_assert_int_eq(hc_device_classify(host, &hinfo), HC_MEM_HOST);
  ck_assert_int_eq(hc_device_dmabuf_export(&hinfo, &fd, &offset, &len),
                   HC_ERR_NOT_SUPPORTED);
  setenv("FAKE_CUDA_NO_DMABUF", "1", 1);
  ck_assert_int_eq(hc_device_dmabuf_export(&info, &fd, &offset, &len),
                   HC_ERR_NOT_SUPPORTED);
  unsetenv("FAKE_CUDA_NO_DMABUF");
  fa.free_dev(d);
}
END_TEST

/* A freed allocation is gone, and so is it when the driver hands its
 * address to a new one (another buffer id). */
START_TEST(test_cuda_alloc_alive_until_freed) {
  unsigned char *d = dev_alloc(8192);
  hc_mem_info_t info, again;
  ck_assert_int_eq(hc_device_classify(d, &info), HC_MEM_CUDA);
  ck_assert(hc_device_alloc_alive(&info));
  fa.free_dev(d);
  ck_assert(!hc_device_alloc_alive(&info));
  unsigned char *d2 = dev_alloc(8192);
  ck_assert_ptr_eq(d2, d); /* the double reuses freed addresses */
  ck_assert(!hc_device_alloc_alive(&info));
  ck_assert_int_eq(hc_device_classify(d2, &again), HC_MEM_CUDA);
  ck_assert(again.alloc_id != info.alloc_id);
  ck_assert(hc_device_alloc_alive(&again));
  hc_mem_info_t host = {HC_MEM_HOST, -1, 0, 0, 0};
  ck_assert(!hc_device_alloc_alive(&host));
  fa.free_dev(d2);
}
END_TEST

static Suite *device_suite(void) {
  Suite *s = suite_create("device");
  TCase *tc = tcase_create("acl-double");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_classify_host_device_pinned);
  tcase_add_test(tc, test_classify_other_device);
  tcase_add_test(tc, test_cache_drops_forgotten_ranges);
  tcase_add_test(tc, test_cache_rechecks_reallocated_ranges);
  tcase_add_test(tc, test_copies_every_direction);
  tcase_add_test(tc, test_async_copy_and_event);
  tcase_add_test(tc, test_ipc_between_processes);
  tcase_add_test(tc, test_ipc_rules_of_the_double);
  tcase_add_test(tc, test_host_dereference_of_device_pointer_faults);
  tcase_add_test(tc, test_device_none_means_host);
  suite_add_tcase(s, tc);
  tc = tcase_create("cuda-double");
  tcase_add_checked_fixture(tc, setup_cuda, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_host_dereference_of_device_pointer_faults);
  tcase_add_test(tc, test_cuda_dmabuf_export);
  tcase_add_test(tc, test_cuda_alloc_alive_until_freed);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (access(HC_FAKE_ACL, R_OK) != 0 || access(HC_FAKE_CUDA, R_OK) != 0)
    return 77; /* the test double was not built */
  SRunner *sr = srunner_create(device_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

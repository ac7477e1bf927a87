#include "fake_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fake_api_sym(void *lib, const char *name, void *slot) {
  void *f = dlsym(lib, name);
  *(void **)slot = f;
  if (f == NULL)
    fprintf(stderr, "test double lacks %s\n", name);
  return f == NULL;
}

/* ACL's stream calls behind acl_copy_d2d. */
static struct {
  aclError (*create)(aclrtStream *);
  aclError (*copy)(void *, size_t, const void *, size_t, aclrtMemcpyKind,
                   aclrtStream);
  aclError (*sync)(aclrtStream);
  aclError (*destroy)(aclrtStream);
} acl_stream;

static aclError acl_copy_d2d(void *dst, const void *src, size_t n) {
  aclrtStream s = NULL;
  aclError err = acl_stream.create(&s);
  if (err != ACL_SUCCESS)
    return err;
  err = acl_stream.copy(dst, n, src, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s);
  if (err == ACL_SUCCESS)
    err = acl_stream.sync(s);
  acl_stream.destroy(s);
  return err;
}

int fake_api_load(const char *path, int dev, fake_api_t *api) {
  if (path == NULL)
    path = getenv("HCMPI_ACL_LIB");
  if (path == NULL)
    return -1;
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    return -1;
  }
  int bad = 0;
  bad += fake_api_sym(lib, "aclInit", &api->init);
  bad += fake_api_sym(lib, "aclrtSetDevice", &api->set_device);
  bad += fake_api_sym(lib, "aclrtMalloc", &api->malloc_dev);
  bad += fake_api_sym(lib, "aclrtFree", &api->free_dev);
  bad += fake_api_sym(lib, "aclrtMallocHost", &api->malloc_host);
  bad += fake_api_sym(lib, "aclrtFreeHost", &api->free_host);
  bad += fake_api_sym(lib, "aclrtMemcpy", &api->memcpy_sync);
  bad += fake_api_sym(lib, "aclrtIpcMemGetExportKey", &api->export_key);
  bad += fake_api_sym(lib, "aclrtIpcMemSetImportPid", &api->set_pid);
  bad += fake_api_sym(lib, "aclrtIpcMemImportByKey", &api->import_key);
  bad += fake_api_sym(lib, "aclrtIpcMemClose", &api->close_key);
  bad += fake_api_sym(lib, "aclrtCreateStream", &acl_stream.create);
  bad += fake_api_sym(lib, "aclrtMemcpyAsync", &acl_stream.copy);
  bad += fake_api_sym(lib, "aclrtSynchronizeStream", &acl_stream.sync);
  bad += fake_api_sym(lib, "aclrtDestroyStream", &acl_stream.destroy);
  api->copy_d2d = acl_copy_d2d;
  if (bad)
    return -1;
  aclError err = api->init(NULL);
  if (err != ACL_SUCCESS && err != ACL_ERROR_REPEAT_INITIALIZE)
    return -1;
  return api->set_device(dev) == ACL_SUCCESS ? 0 : -1;
}

/* ---- the same table over CUDA memory (tests/device/cuda.sh on a GPU,
 * cuda_double.sh on the driver's test double) ------------------------------ */

static struct {
  int (*alloc)(unsigned long long *, size_t);
  int (*free_)(unsigned long long);
  int (*htod)(unsigned long long, const void *, size_t);
  int (*dtoh)(void *, unsigned long long, size_t);
  int (*dtod)(unsigned long long, unsigned long long, size_t);
  int (*sync)(void *stream);
} cu;

static aclError cu_init(const char *c) {
  (void)c;
  return 0;
}
static aclError cu_set_device(int32_t d) {
  (void)d;
  return 0;
}

static aclError cu_malloc_dev(void **p, size_t n, aclrtMemMallocPolicy pol) {
  (void)pol;
  unsigned long long d = 0;
  int rc = cu.alloc(&d, n);
  *p = (void *)(uintptr_t)d;
  return rc;
}

static aclError cu_free_dev(void *p) {
  return cu.free_((unsigned long long)(uintptr_t)p);
}

/* cuMemcpy* returns before a device-to-device copy ran and before one from
 * pageable memory reached the device; these stand for aclrtMemcpy, which
 * returns with the bytes in place, so they drain the legacy stream (another
 * rank may read the memory through IPC next). */
static aclError cu_done(int rc) { return rc != 0 ? rc : cu.sync(NULL); }

static aclError cu_copy_d2d(void *dst, const void *src, size_t n) {
  return cu_done(cu.dtod((unsigned long long)(uintptr_t)dst,
                         (unsigned long long)(uintptr_t)src, n));
}

static aclError cu_memcpy(void *dst, size_t max, const void *src, size_t n,
                          aclrtMemcpyKind kind) {
  if (n > max)
    return ACL_ERROR_INVALID_PARAM;
  if (kind == ACL_MEMCPY_HOST_TO_DEVICE)
    return cu_done(cu.htod((unsigned long long)(uintptr_t)dst, src, n));
  return cu.dtoh(dst, (unsigned long long)(uintptr_t)src, n);
}

int fake_api_load_cuda(int ordinal, fake_api_t *api) {
  /* The library hcmpi's cuda backend loads, so both share its state (the
   * CUDA test double under make check: tests/device/cuda_double.sh). */
  const char *path = getenv("HCMPI_CUDA_LIB");
  void *lib =
      dlopen(path != NULL ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    return -1;
  int (*init)(unsigned);
  int (*dev_get)(int *, int);
  int (*retain)(void **, int);
  int (*set_current)(void *);
  int bad = fake_api_sym(lib, "cuInit", &init);
  bad += fake_api_sym(lib, "cuDeviceGet", &dev_get);
  bad += fake_api_sym(lib, "cuDevicePrimaryCtxRetain", &retain);
  bad += fake_api_sym(lib, "cuCtxSetCurrent", &set_current);
  bad += fake_api_sym(lib, "cuMemAlloc_v2", &cu.alloc);
  bad += fake_api_sym(lib, "cuMemFree_v2", &cu.free_);
  bad += fake_api_sym(lib, "cuMemcpyHtoD_v2", &cu.htod);
  bad += fake_api_sym(lib, "cuMemcpyDtoH_v2", &cu.dtoh);
  bad += fake_api_sym(lib, "cuMemcpyDtoD_v2", &cu.dtod);
  bad += fake_api_sym(lib, "cuStreamSynchronize", &cu.sync);
  int dev;
  void *ctx;
  if (bad || init(0) != 0 || dev_get(&dev, ordinal) != 0 ||
      retain(&ctx, dev) != 0 || set_current(ctx) != 0)
    return -1;
  api->init = cu_init;
  api->set_device = cu_set_device;
  api->malloc_dev = cu_malloc_dev;
  api->free_dev = cu_free_dev;
  api->memcpy_sync = cu_memcpy;
  api->copy_d2d = cu_copy_d2d;
  api->malloc_host = NULL;
  api->free_host = NULL;
  return 0;
}

int fake_api_load_env(int dev, fake_api_t *api) {
  const char *alloc = getenv("DEVICE_P2P_ALLOC");
  if (alloc != NULL && strcmp(alloc, "cuda") == 0)
    return fake_api_load_cuda(0, api);
  return fake_api_load(NULL, dev, api);
}

void *fake_api_buf_alloc(const fake_api_t *api, int dev, size_t bytes) {
  void *p = NULL;
  if (!dev)
    return malloc(bytes ? bytes : 1);
  if (api->malloc_dev(&p, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST) != 0)
    return NULL;
  return p;
}

void fake_api_buf_free(const fake_api_t *api, int dev, void *p) {
  if (dev)
    api->free_dev(p);
  else
    free(p);
}

int fake_api_buf_store(const fake_api_t *api, int dev, void *dst,
                       const void *src, size_t bytes) {
  if (!dev) {
    memcpy(dst, src, bytes);
    return 0;
  }
  return api->memcpy_sync(dst, bytes, src, bytes, ACL_MEMCPY_HOST_TO_DEVICE) ==
                 0
             ? 0
             : -1;
}

int fake_api_buf_load(const fake_api_t *api, int dev, void *dst,
                      const void *src, size_t bytes) {
  if (!dev) {
    memcpy(dst, src, bytes);
    return 0;
  }
  return api->memcpy_sync(dst, bytes, src, bytes, ACL_MEMCPY_DEVICE_TO_HOST) ==
                 0
             ? 0
             : -1;
}

/*
 * The cuda backend: NVIDIA GPU memory through the driver API in
 * libcuda.so.1, dlopen()ed at first use (HCMPI_CUDA_LIB overrides).  Types
 * and values declared here from the driver's documented ABI.  Each thread
 * makes the device's primary context current before a driver call.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "util/env.h"
#include "util/log.h"

typedef int cu_result_t;             /* CUresult */
typedef unsigned long long cu_ptr_t; /* CUdeviceptr */
typedef void *cu_ctx_t;
typedef void *cu_stream_t;
typedef void *cu_event_t;
typedef struct cu_ipc_handle {
  char reserved[64];
} cu_ipc_handle_t; /* CUipcMemHandle */

#define CU_OK 0
#define CU_NOT_READY 600
#define CU_INVALID_CONTEXT 201
#define CU_ATTR_MEMORY_TYPE 2    /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE */
#define CU_ATTR_BUFFER_ID 7      /* CU_POINTER_ATTRIBUTE_BUFFER_ID */
#define CU_ATTR_DEVICE_ORDINAL 9 /* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL */
#define CU_MEMORYTYPE_DEVICE 2
#define CU_IPC_LAZY_PEER_ACCESS 0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_HOSTALLOC_PORTABLE 0x1
#define CU_HOSTALLOC_DEVICEMAP 0x2
#define CU_STREAM_WAIT_VALUE_GEQ 0x0 /* (int32_t)(*addr - value) >= 0 */
#define CU_DEVICES_MAX 64
#define CU_RANGE_HANDLE_DMA_BUF_FD 1 /* CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD */

typedef struct cuda_api {
  cu_result_t (*init)(unsigned flags);
  cu_result_t (*device_get)(int *dev, int ordinal);
  cu_result_t (*primary_retain)(cu_ctx_t *ctx, int dev);
  cu_result_t (*primary_release)(int dev);
  cu_result_t (*ctx_set_current)(cu_ctx_t ctx);
  /* Optional: the device of the context current on the calling thread. */
  cu_result_t (*ctx_get_device)(int *dev);
  cu_result_t (*mem_alloc)(cu_ptr_t *ptr, size_t len);
  cu_result_t (*mem_free)(cu_ptr_t ptr);
  cu_result_t (*pointer_attribute)(void *data, int attr, cu_ptr_t ptr);
  cu_result_t (*address_range)(cu_ptr_t *base, size_t *size, cu_ptr_t ptr);
  cu_result_t (*memcpy_async)(cu_ptr_t dst, cu_ptr_t src, size_t len,
                              cu_stream_t stream);
  cu_result_t (*stream_create)(cu_stream_t *stream, unsigned flags);
  cu_result_t (*stream_destroy)(cu_stream_t stream);
  cu_result_t (*stream_sync)(cu_stream_t stream);
  cu_result_t (*event_create)(cu_event_t *event, unsigned flags);
  cu_result_t (*event_record)(cu_event_t event, cu_stream_t stream);
  cu_result_t (*event_query)(cu_event_t event);
  cu_result_t (*event_destroy)(cu_event_t event);
  cu_result_t (*host_alloc)(void **ptr, size_t len, unsigned flags);
  cu_result_t (*host_free)(void *ptr);
  cu_result_t (*ipc_get)(cu_ipc_handle_t *handle, cu_ptr_t ptr);
  cu_result_t (*ipc_open)(cu_ptr_t *ptr, cu_ipc_handle_t handle,
                          unsigned flags);
  cu_result_t (*ipc_close)(cu_ptr_t ptr);
  /* Optional (drivers since CUDA 11.7): NULL where the library lacks it. */
  cu_result_t (*range_handle)(void *handle, cu_ptr_t ptr, size_t size, int type,
                              unsigned long long flags);
  /* Optional (CUDA 10+): host functions in stream order. */
  cu_result_t (*launch_host_func)(cu_stream_t stream, void (*fn)(void *arg),
                                  void *arg);
  /* Optional: stream waits on a word of mapped host memory (the flags). */
  cu_result_t (*host_device_pointer)(cu_ptr_t *dptr, void *host,
                                     unsigned flags);
  cu_result_t (*stream_wait_value32)(cu_stream_t stream, cu_ptr_t addr,
                                     uint32_t value, unsigned flags);
} cuda_api_t;

static cuda_api_t cuda_api;
static void *cuda_lib;
static cu_ctx_t cuda_ctx[CU_DEVICES_MAX];
static __thread int cuda_thread_device = -1;
/* Per device, the stream cuda_copy runs on (created at first use). */
static cu_stream_t cuda_copy_stream[CU_DEVICES_MAX];
static pthread_mutex_t cuda_copy_stream_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct cuda_stream {
  cu_stream_t stream;
  int device;
  int adopted; /* the application's stream: never destroyed here */
} cuda_stream_wrap_t;

typedef struct cuda_event {
  cu_event_t event;
  int device;
} cuda_event_wrap_t;

static hc_status_t cuda_status(const char *call, cu_result_t err) {
  if (err == CU_OK)
    return HC_OK;
  hc_log(HC_LOG_DEBUG, "cuda", "%s failed: CUresult %d", call, err);
  return HC_ERR_TRANSPORT;
}

static hc_status_t cuda_bind(int device) {
  if (device < 0)
    device = 0;
  if (device >= CU_DEVICES_MAX)
    return HC_ERR_ARG;
  if (cuda_thread_device == device)
    return HC_OK;
  if (cuda_ctx[device] == NULL) {
    int dev;
    cu_result_t err = cuda_api.device_get(&dev, device);
    if (err == CU_OK)
      err = cuda_api.primary_retain(&cuda_ctx[device], dev);
    if (err != CU_OK)
      return cuda_status("cuDevicePrimaryCtxRetain", err);
  }
  cu_result_t err = cuda_api.ctx_set_current(cuda_ctx[device]);
  if (err != CU_OK)
    return cuda_status("cuCtxSetCurrent", err);
  cuda_thread_device = device;
  return HC_OK;
}

/* *missing names the first symbol not found. */
static void *cuda_sym(const char *name, const char **missing) {
  void *f = dlsym(cuda_lib, name);
  if (f == NULL && *missing == NULL)
    *missing = name;
  return f;
}

#define CUDA_LOAD(field, name)                                                 \
  *(void **)(&cuda_api.field) = cuda_sym(name, &missing)

static const char *cuda_resolve(void) {
  const char *missing = NULL;
  CUDA_LOAD(init, "cuInit");
  CUDA_LOAD(device_get, "cuDeviceGet");
  CUDA_LOAD(primary_retain, "cuDevicePrimaryCtxRetain");
  CUDA_LOAD(primary_release, "cuDevicePrimaryCtxRelease_v2");
  CUDA_LOAD(ctx_set_current, "cuCtxSetCurrent");
  CUDA_LOAD(pointer_attribute, "cuPointerGetAttribute");
  CUDA_LOAD(address_range, "cuMemGetAddressRange_v2");
  CUDA_LOAD(memcpy_async, "cuMemcpyAsync");
  CUDA_LOAD(stream_create, "cuStreamCreate");
  CUDA_LOAD(stream_destroy, "cuStreamDestroy_v2");
  CUDA_LOAD(stream_sync, "cuStreamSynchronize");
  CUDA_LOAD(event_create, "cuEventCreate");
  CUDA_LOAD(event_record, "cuEventRecord");
  CUDA_LOAD(event_query, "cuEventQuery");
  CUDA_LOAD(event_destroy, "cuEventDestroy_v2");
  CUDA_LOAD(mem_alloc, "cuMemAlloc_v2");
  CUDA_LOAD(mem_free, "cuMemFree_v2");
  CUDA_LOAD(host_alloc, "cuMemHostAlloc");
  CUDA_LOAD(host_free, "cuMemFreeHost");
  CUDA_LOAD(ipc_get, "cuIpcGetMemHandle");
  CUDA_LOAD(ipc_open, "cuIpcOpenMemHandle_v2");
  CUDA_LOAD(ipc_close, "cuIpcCloseMemHandle");
  *(void **)(&cuda_api.ctx_get_device) = dlsym(cuda_lib, "cuCtxGetDevice");
  *(void **)(&cuda_api.range_handle) =
      dlsym(cuda_lib, "cuMemGetHandleForAddressRange");
  *(void **)(&cuda_api.launch_host_func) = dlsym(cuda_lib, "cuLaunchHostFunc");
  *(void **)(&cuda_api.host_device_pointer) =
      dlsym(cuda_lib, "cuMemHostGetDevicePointer_v2");
  /* The _v2 form (CUDA 11.7+) works on every driver; the first one only
   * where the driver was loaded with stream memory operations enabled. */
  *(void **)(&cuda_api.stream_wait_value32) =
      dlsym(cuda_lib, "cuStreamWaitValue32_v2");
  if (cuda_api.stream_wait_value32 == NULL)
    *(void **)(&cuda_api.stream_wait_value32) =
        dlsym(cuda_lib, "cuStreamWaitValue32");
  return missing;
}

static hc_status_t cuda_init(char *why, size_t len) {
  const char *path = hc_env_string("HCMPI_CUDA_LIB", "libcuda.so.1");
  cuda_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (cuda_lib == NULL) {
    snprintf(why, len, "cannot load %s", path);
    hc_log(HC_LOG_DEBUG, "cuda", "%s", dlerror());
    return HC_ERR_NOT_SUPPORTED;
  }
  const char *missing = cuda_resolve();
  if (missing != NULL) {
    snprintf(why, len, "%s lacks %s", path, missing);
    return HC_ERR_NOT_SUPPORTED;
  }
  cu_result_t err = cuda_api.init(0);
  if (err != CU_OK) {
    snprintf(why, len, "cuInit: CUresult %d (no usable GPU)", err);
    return HC_ERR_NOT_SUPPORTED;
  }
  return HC_OK;
}

static void cuda_fini(void) {
  for (int d = 0; d < CU_DEVICES_MAX; d++)
    if (cuda_copy_stream[d] != NULL && cuda_bind(d) == HC_OK) {
      cuda_api.stream_destroy(cuda_copy_stream[d]);
      cuda_copy_stream[d] = NULL;
    }
  for (int d = 0; d < CU_DEVICES_MAX; d++)
    if (cuda_ctx[d] != NULL && cuda_api.primary_release != NULL) {
      int dev;
      if (cuda_api.device_get(&dev, d) == CU_OK)
        cuda_api.primary_release(dev);
      cuda_ctx[d] = NULL;
    }
  if (cuda_lib != NULL)
    dlclose(cuda_lib);
  cuda_lib = NULL;
  memset(&cuda_api, 0, sizeof cuda_api);
  cuda_thread_device = -1;
}

static int cuda_any_retained(void) {
  for (int d = 0; d < CU_DEVICES_MAX; d++)
    if (cuda_ctx[d] != NULL)
      return 1;
  return 0;
}

/* The pointer queries run without binding a context: on a host pointer
 * cuPointerGetAttribute answers CUDA_ERROR_INVALID_VALUE whether or not a
 * context is current, and a device pointer names its own context (unified
 * addressing).  So an application that only passes host memory never gets
 * a primary context retained (and its GPU memory used) by hcmpi; the
 * device's context is bound only once one of its pointers was seen. */
static int cuda_classify(const void *ptr, hc_mem_info_t *info,
                         uint64_t *alloc_id) {
  unsigned int type = 0;
  int ordinal = 0;
  unsigned long long id = 0;
  cu_ptr_t p = (cu_ptr_t)(uintptr_t)ptr;
  cu_result_t err = cuda_api.pointer_attribute(&type, CU_ATTR_MEMORY_TYPE, p);
  /* A driver that wants a current context after all: only once a device
   * pointer made us retain one is it worth binding for the question. */
  if (err == CU_INVALID_CONTEXT && cuda_any_retained() &&
      cuda_bind(cuda_thread_device) == HC_OK)
    err = cuda_api.pointer_attribute(&type, CU_ATTR_MEMORY_TYPE, p);
  /* Not initialised / not a CUDA pointer both mean host memory. */
  if (err != CU_OK || type != CU_MEMORYTYPE_DEVICE)
    return 0;
  if (cuda_api.pointer_attribute(&ordinal, CU_ATTR_DEVICE_ORDINAL, p) != CU_OK)
    return 0;
  if (cuda_api.pointer_attribute(&id, CU_ATTR_BUFFER_ID, p) != CU_OK)
    id = 0;
  info->kind = HC_MEM_CUDA;
  info->device = ordinal;
  info->base = 0;
  info->size = 0;
  *alloc_id = id;
  cu_ptr_t base;
  size_t size;
  if (cuda_bind(ordinal) == HC_OK &&
      cuda_api.address_range(&base, &size, p) == CU_OK) {
    info->base = (uintptr_t)base;
    info->size = size;
  }
  return 1;
}

/* The buffer id is unique per allocation for the process's lifetime: a
 * new allocation at a cached address has another one. */
static int cuda_still_valid(const void *ptr, const hc_mem_info_t *info,
                            uint64_t alloc_id) {
  (void)info;
  unsigned long long id = 0;
  if (cuda_api.pointer_attribute(&id, CU_ATTR_BUFFER_ID,
                                 (cu_ptr_t)(uintptr_t)ptr) != CU_OK)
    return 0;
  return alloc_id != 0 && id == alloc_id;
}

/* The copy op promises the bytes are in place on return, which cuMemcpy
 * alone does not: a device-to-device copy returns before it ran, and one
 * from pageable host memory once the source is staged, not written; a peer
 * reading the memory through IPC right after would see the old bytes.  So
 * each device has a stream of ours for these copies, synchronised after
 * each.  Not the legacy default stream: work there waits for every
 * blocking stream of the application, and one that holds on an enqueued
 * receive's flag would wait for this very copy (cuda_copy_stream). */
static hc_status_t cuda_copy_stream_get(int device, cu_stream_t *out) {
  pthread_mutex_lock(&cuda_copy_stream_lock);
  hc_status_t rc = HC_OK;
  if (cuda_copy_stream[device] == NULL)
    rc = cuda_status("cuStreamCreate",
                     cuda_api.stream_create(&cuda_copy_stream[device],
                                            CU_STREAM_NON_BLOCKING));
  *out = cuda_copy_stream[device];
  pthread_mutex_unlock(&cuda_copy_stream_lock);
  return rc;
}

static hc_status_t cuda_copy(void *dst, const void *src, size_t len,
                             hc_copy_dir_t dir, int device) {
  (void)dir; /* unified addressing infers the direction */
  hc_status_t rc = cuda_bind(device);
  cu_stream_t stream = NULL;
  if (rc == HC_OK)
    rc = cuda_copy_stream_get(cuda_thread_device, &stream);
  if (rc == HC_OK)
    rc = cuda_status("cuMemcpyAsync",
                     cuda_api.memcpy_async((cu_ptr_t)(uintptr_t)dst,
                                           (cu_ptr_t)(uintptr_t)src, len,
                                           stream));
  if (rc == HC_OK)
    rc = cuda_status("cuStreamSynchronize", cuda_api.stream_sync(stream));
  return rc;
}

static hc_status_t cuda_stream_create(int device, void **stream) {
  cuda_stream_wrap_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc = cuda_bind(device);
  /* Non-blocking, for the reason cuda_copy's stream is. */
  if (rc == HC_OK)
    rc =
        cuda_status("cuStreamCreate",
                    cuda_api.stream_create(&s->stream, CU_STREAM_NON_BLOCKING));
  if (rc != HC_OK) {
    free(s);
    return rc;
  }
  s->device = device;
  *stream = s;
  return HC_OK;
}

static void cuda_stream_destroy(void *stream) {
  cuda_stream_wrap_t *s = stream;
  if (s == NULL)
    return;
  if (!s->adopted && cuda_bind(s->device) == HC_OK) {
    cuda_api.stream_sync(s->stream);
    cuda_api.stream_destroy(s->stream);
  }
  free(s);
}

static hc_status_t cuda_copy_async(void *dst, const void *src, size_t len,
                                   hc_copy_dir_t dir, void *stream) {
  (void)dir;
  cuda_stream_wrap_t *s = stream;
  hc_status_t rc = cuda_bind(s->device);
  if (rc != HC_OK)
    return rc;
  return cuda_status("cuMemcpyAsync",
                     cuda_api.memcpy_async((cu_ptr_t)(uintptr_t)dst,
                                           (cu_ptr_t)(uintptr_t)src, len,
                                           s->stream));
}

static hc_status_t cuda_event_create(void **event) {
  cuda_event_wrap_t *e = calloc(1, sizeof *e);
  if (e == NULL)
    return HC_ERR_NOMEM;
  e->device = cuda_thread_device < 0 ? 0 : cuda_thread_device;
  hc_status_t rc = cuda_bind(e->device);
  if (rc == HC_OK)
    rc = cuda_status("cuEventCreate",
                     cuda_api.event_create(&e->event, CU_EVENT_DISABLE_TIMING));
  if (rc != HC_OK) {
    free(e);
    return rc;
  }
  *event = e;
  return HC_OK;
}

static hc_status_t cuda_event_record(void *event, void *stream) {
  cuda_event_wrap_t *e = event;
  cuda_stream_wrap_t *s = stream;
  hc_status_t rc = cuda_bind(s->device);
  if (rc != HC_OK)
    return rc;
  return cuda_status("cuEventRecord",
                     cuda_api.event_record(e->event, s->stream));
}

static hc_status_t cuda_event_query(void *event) {
  cuda_event_wrap_t *e = event;
  hc_status_t rc = cuda_bind(e->device);
  if (rc != HC_OK)
    return rc;
  cu_result_t err = cuda_api.event_query(e->event);
  if (err == CU_NOT_READY)
    return HC_ERR_AGAIN;
  return cuda_status("cuEventQuery", err);
}

static void cuda_event_destroy(void *event) {
  cuda_event_wrap_t *e = event;
  if (e == NULL)
    return;
  if (cuda_bind(e->device) == HC_OK)
    cuda_api.event_destroy(e->event);
  free(e);
}

/* The device of the application's current context (cudaSetDevice makes
 * its primary context current), else the one hcmpi bound last, else 0. */
static int cuda_current_device(void) {
  int dev = -1;
  if (cuda_api.ctx_get_device != NULL &&
      cuda_api.ctx_get_device(&dev) == CU_OK && dev >= 0)
    return dev;
  return cuda_thread_device < 0 ? 0 : cuda_thread_device;
}

static hc_status_t cuda_dev_alloc(size_t len, int device, void **ptr) {
  hc_status_t rc = cuda_bind(device < 0 ? cuda_current_device() : device);
  if (rc != HC_OK)
    return rc;
  cu_ptr_t p = 0;
  rc = cuda_status("cuMemAlloc", cuda_api.mem_alloc(&p, len ? len : 1));
  if (rc == HC_OK)
    *ptr = (void *)(uintptr_t)p;
  return rc;
}

static void cuda_dev_free(void *ptr) {
  if (ptr != NULL && cuda_api.mem_free != NULL)
    cuda_api.mem_free((cu_ptr_t)(uintptr_t)ptr);
}

static hc_status_t cuda_host_alloc(size_t len, void **ptr) {
  hc_status_t rc = cuda_bind(cuda_thread_device);
  if (rc != HC_OK)
    return rc;
  /* CU_MEMHOSTALLOC_PORTABLE: usable from every context. */
  return cuda_status("cuMemHostAlloc",
                     cuda_api.host_alloc(ptr, len ? len : 1, 0x1));
}

static void cuda_host_free(void *ptr) {
  if (ptr != NULL && cuda_api.host_free != NULL)
    cuda_api.host_free(ptr);
}

static hc_status_t cuda_ipc_export(void *base, size_t size, int device,
                                   hc_ipc_handle_t *handle) {
  hc_status_t rc = cuda_bind(device);
  if (rc != HC_OK)
    return rc;
  cu_ipc_handle_t h;
  rc = cuda_status("cuIpcGetMemHandle",
                   cuda_api.ipc_get(&h, (cu_ptr_t)(uintptr_t)base));
  if (rc != HC_OK)
    return rc;
  memset(handle, 0, sizeof *handle);
  memcpy(handle->data, &h, sizeof h);
  handle->kind = HC_MEM_CUDA;
  handle->device = device;
  handle->size = size;
  return HC_OK;
}

/* A CUDA export needs no withdrawal: it dies with the allocation. */
static hc_status_t cuda_ipc_unexport(const hc_ipc_handle_t *handle) {
  (void)handle;
  return HC_OK;
}

static hc_status_t cuda_ipc_import(const hc_ipc_handle_t *handle, void **ptr) {
  hc_status_t rc = cuda_bind(cuda_thread_device);
  if (rc != HC_OK)
    return rc;
  cu_ipc_handle_t h;
  memcpy(&h, handle->data, sizeof h);
  cu_ptr_t p = 0;
  rc = cuda_status("cuIpcOpenMemHandle",
                   cuda_api.ipc_open(&p, h, CU_IPC_LAZY_PEER_ACCESS));
  if (rc == HC_OK)
    *ptr = (void *)(uintptr_t)p;
  return rc;
}

/* The context bound is the one the import lives in, whichever thread
 * closes it. */
static hc_status_t cuda_ipc_close(const hc_ipc_handle_t *handle, void *ptr) {
  (void)handle;
  int ordinal = cuda_thread_device;
  cu_ptr_t p = (cu_ptr_t)(uintptr_t)ptr;
  if (cuda_api.pointer_attribute(&ordinal, CU_ATTR_DEVICE_ORDINAL, p) != CU_OK)
    ordinal = cuda_thread_device;
  hc_status_t rc = cuda_bind(ordinal);
  if (rc != HC_OK)
    return rc;
  return cuda_status("cuIpcCloseMemHandle", cuda_api.ipc_close(p));
}

/* The dma-buf of a device range: a driver without the call, or one that
 * refuses it (no dma-buf support in the kernel or the GPU), is "not
 * supported", so the caller stages. */
static hc_status_t cuda_dmabuf_export(void *base, size_t size, int device,
                                      int *fd, uint64_t *offset) {
  if (cuda_api.range_handle == NULL)
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc = cuda_bind(device);
  if (rc != HC_OK)
    return rc;
  int handle = -1;
  cu_result_t err = cuda_api.range_handle(&handle, (cu_ptr_t)(uintptr_t)base,
                                          size, CU_RANGE_HANDLE_DMA_BUF_FD, 0);
  if (err != CU_OK) {
    hc_log(HC_LOG_DEBUG, "cuda",
           "cuMemGetHandleForAddressRange (dma-buf, %zu B): CUresult %d", size,
           err);
    return HC_ERR_NOT_SUPPORTED;
  }
  *fd = handle;
  *offset = 0; /* the dma-buf starts at base */
  return HC_OK;
}

static hc_status_t cuda_stream_adopt(void *app_stream, void **stream) {
  cuda_stream_wrap_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return HC_ERR_NOMEM;
  s->stream = app_stream;
  s->device = cuda_thread_device < 0 ? 0 : cuda_thread_device;
  s->adopted = 1;
  *stream = s;
  return HC_OK;
}

static hc_status_t cuda_launch_host_fn(void *stream, void (*fn)(void *arg),
                                       void *arg) {
  cuda_stream_wrap_t *s = stream;
  if (cuda_api.launch_host_func == NULL)
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc = cuda_bind(s->device);
  if (rc != HC_OK)
    return rc;
  return cuda_status("cuLaunchHostFunc",
                     cuda_api.launch_host_func(s->stream, fn, arg));
}

/* A flag is a word of pinned host memory mapped into the device's
 * address space: the stream polls it (cuStreamWaitValue32) and a host
 * thread sets it with a plain store, which needs no driver call. */
typedef struct cuda_flag {
  _Atomic uint32_t *word;
  cu_ptr_t device_addr;
} cuda_flag_t;

static hc_status_t cuda_flag_create(void *stream, void **flag) {
  if (cuda_api.host_device_pointer == NULL ||
      cuda_api.stream_wait_value32 == NULL)
    return HC_ERR_NOT_SUPPORTED;
  cuda_flag_t *f = calloc(1, sizeof *f);
  if (f == NULL)
    return HC_ERR_NOMEM;
  void *word = NULL;
  hc_status_t rc = cuda_bind(((cuda_stream_wrap_t *)stream)->device);
  if (rc == HC_OK)
    rc = cuda_status(
        "cuMemHostAlloc",
        cuda_api.host_alloc(&word, sizeof *f->word,
                            CU_HOSTALLOC_PORTABLE | CU_HOSTALLOC_DEVICEMAP));
  if (rc == HC_OK)
    rc = cuda_status("cuMemHostGetDevicePointer",
                     cuda_api.host_device_pointer(&f->device_addr, word, 0));
  if (rc != HC_OK) {
    if (word != NULL)
      cuda_api.host_free(word);
    free(f);
    return rc;
  }
  f->word = word;
  atomic_store(f->word, 0);
  *flag = f;
  return HC_OK;
}

static void cuda_flag_destroy(void *flag) {
  cuda_flag_t *f = flag;
  if (f == NULL)
    return;
  cuda_api.host_free((void *)f->word);
  free(f);
}

static hc_status_t cuda_flag_wait(void *flag, uint64_t value, void *stream) {
  cuda_flag_t *f = flag;
  cuda_stream_wrap_t *s = stream;
  hc_status_t rc = cuda_bind(s->device);
  if (rc != HC_OK)
    return rc;
  return cuda_status("cuStreamWaitValue32",
                     cuda_api.stream_wait_value32(s->stream, f->device_addr,
                                                  (uint32_t)value,
                                                  CU_STREAM_WAIT_VALUE_GEQ));
}

static hc_status_t cuda_flag_set(void *flag, uint64_t value) {
  cuda_flag_t *f = flag;
  atomic_store_explicit(f->word, (uint32_t)value, memory_order_release);
  return HC_OK;
}

const hc_device_ops_t hc_device_cuda_ops = {
    .name = "cuda",
    .kind = HC_MEM_CUDA,
    /* An IPC import is a device pointer of this context like any other. */
    .flags = HC_DEVICE_IMPORT_HOST_COPIES | HC_DEVICE_CLOSE_WAITS,
    .init = cuda_init,
    .fini = cuda_fini,
    .classify = cuda_classify,
    .still_valid = cuda_still_valid,
    .copy = cuda_copy,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .copy_async = cuda_copy_async,
    .event_create = cuda_event_create,
    .event_record = cuda_event_record,
    .event_query = cuda_event_query,
    .event_destroy = cuda_event_destroy,
    /* Windows of device memory (MPI_Win_allocate); imports take host
     * copies, so the engine's copies need no device staging. */
    .dev_alloc = cuda_dev_alloc,
    .dev_free = cuda_dev_free,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .ipc_export = cuda_ipc_export,
    .ipc_unexport = cuda_ipc_unexport,
    .ipc_import = cuda_ipc_import,
    .ipc_close = cuda_ipc_close,
    .dmabuf_export = cuda_dmabuf_export,
    .stream_adopt = cuda_stream_adopt,
    .launch_host_fn = cuda_launch_host_fn,
    .flag_create = cuda_flag_create,
    .flag_destroy = cuda_flag_destroy,
    .flag_wait = cuda_flag_wait,
    .flag_set = cuda_flag_set,
};

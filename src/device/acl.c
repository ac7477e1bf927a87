/*
 * The acl backend: Ascend NPU memory through libascendcl.so, dlopen()ed at
 * first use (HCMPI_ACL_LIB overrides the name).  The vendor headers are not
 * valid C, so the few types, values and prototypes used are declared here
 * from the documented ABI (docs: shared/reference/hcomm-acl-api.md, §3).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/acl.h"
#include "device/device.h"
#include "util/env.h"
#include "util/log.h"

/* ---- our declarations of the ACL ABI ------------------------------------ */
typedef int acl_error_t; /* aclError */
typedef void *acl_stream_t;
typedef void *acl_event_t;

#define ACL_OK 0
#define ACL_REPEAT_INITIALIZE 100002
#define ACL_IMPORTERS_OPEN 207000      /* ACL_ERROR_RT_FEATURE_NOT_SUPPORT */
#define ACL_API_NOT_SUPPORT 200001     /* ACL_ERROR_API_NOT_SUPPORT */
#define ACL_FEATURE_UNSUPPORTED 200006 /* ACL_ERROR_FEATURE_UNSUPPORTED */
#define ACL_RT_FEATURE_NOT_SUPPORT                                             \
  207000                 /* ACL_ERROR_RT_FEATURE_NOT_SUPPORT                   \
                          */
#define ACL_KEY_BYTES 65 /* aclrtIpcMemGetExportKey's fixed key length */
#define ACL_MEMCPY_HOST_TO_HOST 0
#define ACL_MEMCPY_HOST_TO_DEVICE 1
#define ACL_MEMCPY_DEVICE_TO_HOST 2
#define ACL_MEMCPY_DEVICE_TO_DEVICE 3
#define ACL_LOCATION_DEVICE 1         /* ACL_MEM_LOCATION_TYPE_DEVICE */
#define ACL_EVENT_COMPLETE 1          /* ACL_EVENT_RECORDED_STATUS_COMPLETE */
#define ACL_EXPORT_NO_PID_CHECK 0x1UL /* ..._FLAG_DISABLE_PID_VALIDATION */
#define ACL_IMPORT_PEER_ACCESS 0x1UL  /* ..._FLAG_ENABLE_PEER_ACCESS */
#define ACL_CALLBACK_BLOCK 1          /* aclrtCallbackBlockType */
#define ACL_MALLOC_NORMAL_ONLY 2      /* ACL_MEM_MALLOC_NORMAL_ONLY */
#define ACL_VALUE_WAIT_GEQ 0          /* (int64_t)(*devAddr - value) >= 0 */
/* How long a reporter thread waits in aclrtProcessReport before it looks
 * whether its stream is going away. */
#define ACL_REPORT_WAIT_MS 50

typedef struct acl_mem_location {
  uint32_t id;
  int type; /* aclrtMemLocationType */
} acl_mem_location_t;

typedef struct acl_ptr_attributes {
  acl_mem_location_t location;
  uint32_t page_size;
  uint32_t rsv[4];
} acl_ptr_attributes_t;

/* Entry points; the optional ones may stay NULL. */
typedef struct acl_api {
  acl_error_t (*init)(const char *config);
  acl_error_t (*finalize)(void);
  acl_error_t (*set_device)(int32_t device);
  acl_error_t (*pointer_attributes)(const void *ptr,
                                    acl_ptr_attributes_t *attr);
  acl_error_t (*address_range)(void *ptr, void **base, size_t *size);
  acl_error_t (*memcpy_sync)(void *dst, size_t max, const void *src,
                             size_t count, int kind);
  acl_error_t (*memcpy_async)(void *dst, size_t max, const void *src,
                              size_t count, int kind, acl_stream_t stream);
  acl_error_t (*stream_create)(acl_stream_t *stream);
  acl_error_t (*stream_destroy)(acl_stream_t stream);
  acl_error_t (*stream_sync)(acl_stream_t stream);
  acl_error_t (*event_create)(acl_event_t *event);
  acl_error_t (*event_record)(acl_event_t event, acl_stream_t stream);
  acl_error_t (*event_status)(acl_event_t event, int *status);
  acl_error_t (*event_destroy)(acl_event_t event);
  acl_error_t (*malloc_dev)(void **ptr, size_t size, int policy);
  acl_error_t (*free_dev)(void *ptr);
  acl_error_t (*malloc_host)(void **ptr, size_t size);
  acl_error_t (*free_host)(void *ptr);
  acl_error_t (*ipc_export)(void *ptr, size_t size, char *key, size_t len,
                            uint64_t flags);
  acl_error_t (*ipc_set_pid)(const char *key, int32_t *pid, size_t num);
  acl_error_t (*ipc_import)(void **ptr, const char *key, uint64_t flags);
  acl_error_t (*ipc_close)(const char *key);
  const char *(*recent_error)(void);
  /* Host callbacks on streams (optional): run by a thread subscribed to
   * the stream, inside its aclrtProcessReport. */
  acl_error_t (*get_device)(int32_t *device);
  acl_error_t (*launch_callback)(void (*fn)(void *arg), void *arg, int block,
                                 acl_stream_t stream);
  acl_error_t (*subscribe_report)(uint64_t thread, acl_stream_t stream);
  acl_error_t (*unsubscribe_report)(uint64_t thread, acl_stream_t stream);
  acl_error_t (*process_report)(int32_t timeout_ms);
  /* Stream waits on device memory values (optional, CANN 8.2+ on A2/A3),
   * for the stream flags. */
  acl_error_t (*malloc_device)(void **ptr, size_t size, int policy);
  acl_error_t (*free_device)(void *ptr);
  acl_error_t (*value_wait)(void *dev_addr, uint64_t value, uint32_t flag,
                            acl_stream_t stream);
  acl_error_t (*value_write)(void *dev_addr, uint64_t value, uint32_t flag,
                             acl_stream_t stream);
} acl_api_t;

static acl_api_t acl_api;
static void *acl_lib;
static int acl_we_initialised;
/* aclrtSetDevice binds the calling thread only: remembered per thread. */
static __thread int acl_thread_device = -1;

typedef struct acl_stream {
  acl_stream_t stream;
  int device;
  int adopted; /* the application's stream: never destroyed here */
  struct acl_reporter *reporter; /* adopted: its callbacks' thread; NULL */
} acl_stream_wrap_t;

/* The thread that runs an application stream's host callbacks: one per
 * stream (ACL lets one thread subscribe to a stream), shared by every
 * wrapper of that stream, and one per stream rather than one for all,
 * because a callback may block on a message that only another stream's
 * callback lets through. */
typedef struct acl_reporter {
  struct acl_reporter *next;
  acl_stream_t stream;
  int device;
  int refs;    /* wrappers using it, under acl_reporters_lock */
  int stopped; /* by fini: its thread is gone, only the object is left */
  atomic_int stop;
  pthread_t thread;
} acl_reporter_t;

static pthread_mutex_t acl_reporters_lock = PTHREAD_MUTEX_INITIALIZER;
static acl_reporter_t *acl_reporters;

typedef struct acl_event {
  acl_event_t event;
  int device;
} acl_event_wrap_t;

static void acl_report(const char *call, acl_error_t err) {
  const char *msg = acl_api.recent_error ? acl_api.recent_error() : NULL;
  hc_log(HC_LOG_DEBUG, "acl", "%s failed: error %d%s%s", call, err,
         msg ? ": " : "", msg ? msg : "");
}

static hc_status_t acl_status(const char *call, acl_error_t err) {
  if (err == ACL_OK)
    return HC_OK;
  acl_report(call, err);
  return HC_ERR_TRANSPORT;
}

static hc_status_t acl_bind(int device) {
  if (device < 0)
    device = 0;
  if (acl_thread_device == device)
    return HC_OK;
  acl_error_t err = acl_api.set_device(device);
  if (err != ACL_OK)
    return acl_status("aclrtSetDevice", err);
  acl_thread_device = device;
  return HC_OK;
}

/* *missing names the first required symbol not found. */
static void *acl_sym(const char *name, int required, const char **missing) {
  void *f = dlsym(acl_lib, name);
  if (f == NULL && required && *missing == NULL)
    *missing = name;
  return f;
}

/* Function-pointer stores through void* are how dlsym is used in C. */
#define ACL_LOAD(field, name, req)                                             \
  *(void **)(&acl_api.field) = acl_sym(name, req, &missing)

static const char *acl_resolve(void) {
  const char *missing = NULL;
  ACL_LOAD(init, "aclInit", 1);
  ACL_LOAD(finalize, "aclFinalize", 1);
  ACL_LOAD(set_device, "aclrtSetDevice", 1);
  ACL_LOAD(pointer_attributes, "aclrtPointerGetAttributes", 1);
  ACL_LOAD(address_range, "aclrtMemGetAddressRange", 0);
  ACL_LOAD(memcpy_sync, "aclrtMemcpy", 1);
  ACL_LOAD(memcpy_async, "aclrtMemcpyAsync", 1);
  ACL_LOAD(stream_create, "aclrtCreateStream", 1);
  ACL_LOAD(stream_destroy, "aclrtDestroyStream", 1);
  ACL_LOAD(stream_sync, "aclrtSynchronizeStream", 1);
  ACL_LOAD(event_create, "aclrtCreateEvent", 1);
  ACL_LOAD(event_record, "aclrtRecordEvent", 1);
  ACL_LOAD(event_status, "aclrtQueryEventStatus", 1);
  ACL_LOAD(event_destroy, "aclrtDestroyEvent", 1);
  ACL_LOAD(malloc_dev, "aclrtMalloc", 0);
  ACL_LOAD(free_dev, "aclrtFree", 0);
  ACL_LOAD(malloc_host, "aclrtMallocHost", 1);
  ACL_LOAD(free_host, "aclrtFreeHost", 1);
  ACL_LOAD(ipc_export, "aclrtIpcMemGetExportKey", 0);
  ACL_LOAD(ipc_set_pid, "aclrtIpcMemSetImportPid", 0);
  ACL_LOAD(ipc_import, "aclrtIpcMemImportByKey", 0);
  ACL_LOAD(ipc_close, "aclrtIpcMemClose", 0);
  ACL_LOAD(recent_error, "aclGetRecentErrMsg", 0);
  ACL_LOAD(get_device, "aclrtGetDevice", 0);
  ACL_LOAD(launch_callback, "aclrtLaunchCallback", 0);
  ACL_LOAD(subscribe_report, "aclrtSubscribeReport", 0);
  ACL_LOAD(unsubscribe_report, "aclrtUnSubscribeReport", 0);
  ACL_LOAD(process_report, "aclrtProcessReport", 0);
  ACL_LOAD(malloc_device, "aclrtMalloc", 0);
  ACL_LOAD(free_device, "aclrtFree", 0);
  ACL_LOAD(value_wait, "aclrtValueWait", 0);
  ACL_LOAD(value_write, "aclrtValueWrite", 0);
  return missing;
}

static hc_status_t acl_init(char *why, size_t len) {
  const char *path = hc_env_string("HCMPI_ACL_LIB", "libascendcl.so");
  acl_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (acl_lib == NULL) {
    snprintf(why, len, "cannot load %s", path);
    hc_log(HC_LOG_DEBUG, "acl", "%s", dlerror());
    return HC_ERR_NOT_SUPPORTED;
  }
  const char *missing = acl_resolve();
  if (missing != NULL) {
    snprintf(why, len, "%s lacks %s", path, missing);
    return HC_ERR_NOT_SUPPORTED;
  }
  acl_error_t err = acl_api.init(NULL);
  /* torch_npu (or the application) may have initialised ACL already. */
  if (err != ACL_OK && err != ACL_REPEAT_INITIALIZE) {
    acl_report("aclInit", err);
    snprintf(why, len, "aclInit: error %d", err);
    return HC_ERR_NOT_SUPPORTED;
  }
  acl_we_initialised = err == ACL_OK;
  return HC_OK;
}

static void acl_reporters_stop_all(void);

static void acl_fini(void) {
  acl_reporters_stop_all();
  if (acl_we_initialised && acl_api.finalize != NULL)
    acl_api.finalize();
  acl_we_initialised = 0;
  if (acl_lib != NULL)
    dlclose(acl_lib);
  acl_lib = NULL;
  memset(&acl_api, 0, sizeof acl_api);
  acl_thread_device = -1;
}

/* aclrtMemGetAddressRange is optional (newer than CANN 8.5): absent, or
 * present but answering "not supported", there is no allocation base to
 * export and cache, so each device message exports its own pages
 * (hc_device_ipc_export_span) or is staged; said once per process. */
static void acl_no_address_range(const char *why) {
  acl_api.address_range = NULL;
  hc_log(HC_LOG_INFO, "acl",
         "aclrtMemGetAddressRange %s: IPC exports per message, uncached", why);
}

static int acl_unsupported(acl_error_t err) {
  return err == ACL_API_NOT_SUPPORT || err == ACL_FEATURE_UNSUPPORTED ||
         err == ACL_RT_FEATURE_NOT_SUPPORT;
}

/* The allocation holding ptr: 1 and base/size, or 0 when unknown. */
static int acl_range(const void *ptr, uintptr_t *base, size_t *size) {
  static int said_missing;
  if (acl_api.address_range == NULL) {
    if (!said_missing++)
      acl_no_address_range("missing");
    return 0;
  }
  void *b;
  size_t n;
  acl_error_t err = acl_api.address_range((void *)ptr, &b, &n);
  if (acl_unsupported(err)) {
    said_missing = 1;
    acl_no_address_range("not supported by this runtime");
    return 0;
  }
  if (err != ACL_OK)
    return 0;
  *base = (uintptr_t)b;
  *size = n;
  return 1;
}

static int acl_classify(const void *ptr, hc_mem_info_t *info,
                        uint64_t *alloc_id) {
  acl_ptr_attributes_t attr;
  memset(&attr, 0, sizeof attr);
  if (acl_api.pointer_attributes(ptr, &attr) != ACL_OK ||
      attr.location.type != ACL_LOCATION_DEVICE)
    return 0;
  info->kind = HC_MEM_ACL;
  info->device = (int)attr.location.id;
  info->base = 0;
  info->size = 0;
  *alloc_id = 0; /* ACL has no allocation ids: the range must do */
  if (!acl_range(ptr, &info->base, &info->size))
    info->base = info->size = 0;
  return 1;
}

/* A freed allocation fails the query; a new one at the same address with
 * the same size passes: its stale export is caught when the receiver's
 * import fails (devpath.c, HC_PKT_FLAG_STALE). */
static int acl_still_valid(const void *ptr, const hc_mem_info_t *info,
                           uint64_t alloc_id) {
  (void)alloc_id;
  uintptr_t base;
  size_t size;
  return acl_range(ptr, &base, &size) && base == info->base &&
         size == info->size;
}

static int acl_kind(hc_copy_dir_t dir) {
  switch (dir) {
  case HC_COPY_H2D:
    return ACL_MEMCPY_HOST_TO_DEVICE;
  case HC_COPY_D2H:
    return ACL_MEMCPY_DEVICE_TO_HOST;
  case HC_COPY_D2D:
    return ACL_MEMCPY_DEVICE_TO_DEVICE;
  default:
    return ACL_MEMCPY_HOST_TO_HOST;
  }
}

static hc_status_t acl_copy(void *dst, const void *src, size_t len,
                            hc_copy_dir_t dir, int device) {
  hc_status_t rc = acl_bind(device);
  if (rc != HC_OK)
    return rc;
  return acl_status("aclrtMemcpy",
                    acl_api.memcpy_sync(dst, len, src, len, acl_kind(dir)));
}

static hc_status_t acl_stream_create(int device, void **stream) {
  acl_stream_wrap_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc = acl_bind(device);
  if (rc == HC_OK)
    rc = acl_status("aclrtCreateStream", acl_api.stream_create(&s->stream));
  if (rc != HC_OK) {
    free(s);
    return rc;
  }
  s->device = device;
  *stream = s;
  return HC_OK;
}

static void acl_reporter_release(acl_reporter_t *r);

static void acl_stream_destroy(void *stream) {
  acl_stream_wrap_t *s = stream;
  if (s == NULL)
    return;
  if (s->adopted) {
    acl_reporter_release(s->reporter);
    free(s);
    return;
  }
  if (acl_bind(s->device) == HC_OK) {
    acl_api.stream_sync(s->stream);
    acl_api.stream_destroy(s->stream);
  }
  free(s);
}

void *hc_acl_stream_handle(void *stream) {
  return stream != NULL ? ((acl_stream_wrap_t *)stream)->stream : NULL;
}

int hc_acl_stream_device(void *stream) {
  return stream != NULL ? ((acl_stream_wrap_t *)stream)->device : -1;
}

hc_status_t hc_acl_bind_device(int device) { return acl_bind(device); }

static hc_status_t acl_copy_async(void *dst, const void *src, size_t len,
                                  hc_copy_dir_t dir, void *stream) {
  acl_stream_wrap_t *s = stream;
  hc_status_t rc = acl_bind(s->device);
  if (rc != HC_OK)
    return rc;
  return acl_status(
      "aclrtMemcpyAsync",
      acl_api.memcpy_async(dst, len, src, len, acl_kind(dir), s->stream));
}

static hc_status_t acl_event_create(void **event) {
  acl_event_wrap_t *e = calloc(1, sizeof *e);
  if (e == NULL)
    return HC_ERR_NOMEM;
  e->device = acl_thread_device < 0 ? 0 : acl_thread_device;
  hc_status_t rc = acl_bind(e->device);
  if (rc == HC_OK)
    rc = acl_status("aclrtCreateEvent", acl_api.event_create(&e->event));
  if (rc != HC_OK) {
    free(e);
    return rc;
  }
  *event = e;
  return HC_OK;
}

static hc_status_t acl_event_record(void *event, void *stream) {
  acl_event_wrap_t *e = event;
  acl_stream_wrap_t *s = stream;
  hc_status_t rc = acl_bind(s->device);
  if (rc != HC_OK)
    return rc;
  e->device = s->device;
  return acl_status("aclrtRecordEvent",
                    acl_api.event_record(e->event, s->stream));
}

static hc_status_t acl_event_query(void *event) {
  acl_event_wrap_t *e = event;
  hc_status_t rc = acl_bind(e->device);
  if (rc != HC_OK)
    return rc;
  int status = 0;
  rc = acl_status("aclrtQueryEventStatus",
                  acl_api.event_status(e->event, &status));
  if (rc != HC_OK)
    return rc;
  return status == ACL_EVENT_COMPLETE ? HC_OK : HC_ERR_AGAIN;
}

static void acl_event_destroy(void *event) {
  acl_event_wrap_t *e = event;
  if (e == NULL)
    return;
  if (acl_bind(e->device) == HC_OK)
    acl_api.event_destroy(e->event);
  free(e);
}

/* Policy 0: huge pages first (ACL_MEM_MALLOC_HUGE_FIRST).  Device -1:
 * the application's current device (aclrtGetDevice), else 0. */
static hc_status_t acl_dev_alloc(size_t len, int device, void **ptr) {
  if (acl_api.malloc_dev == NULL || acl_api.free_dev == NULL)
    return HC_ERR_NOT_SUPPORTED;
  int32_t current = acl_thread_device;
  if (device < 0 && acl_api.get_device != NULL &&
      acl_api.get_device(&current) != ACL_OK)
    current = acl_thread_device;
  if (device < 0)
    device = current;
  hc_status_t rc = acl_bind(device);
  if (rc != HC_OK)
    return rc;
  return acl_status("aclrtMalloc", acl_api.malloc_dev(ptr, len ? len : 1, 0));
}

static void acl_dev_free(void *ptr) {
  if (ptr != NULL && acl_api.free_dev != NULL)
    acl_api.free_dev(ptr);
}

static hc_status_t acl_host_alloc(size_t len, void **ptr) {
  hc_status_t rc = acl_bind(acl_thread_device);
  if (rc != HC_OK)
    return rc;
  return acl_status("aclrtMallocHost", acl_api.malloc_host(ptr, len ? len : 1));
}

static void acl_host_free(void *ptr) {
  if (ptr != NULL && acl_api.free_host != NULL)
    acl_api.free_host(ptr);
}

static hc_status_t acl_ipc_export(void *base, size_t size, int device,
                                  hc_ipc_handle_t *handle) {
  if (acl_api.ipc_export == NULL)
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc = acl_bind(device);
  if (rc != HC_OK)
    return rc;
  memset(handle, 0, sizeof *handle);
  /* Like torch_npu: any process of the node may import (the PID list
   * would need the importer's bare TGID before the RTS is sent). */
  rc = acl_status("aclrtIpcMemGetExportKey",
                  acl_api.ipc_export(base, size, (char *)handle->data,
                                     ACL_KEY_BYTES, ACL_EXPORT_NO_PID_CHECK));
  if (rc != HC_OK)
    return rc;
  handle->kind = HC_MEM_ACL;
  handle->device = device;
  handle->size = size;
  return HC_OK;
}

static hc_status_t acl_ipc_unexport(const hc_ipc_handle_t *handle) {
  if (acl_api.ipc_close == NULL)
    return HC_ERR_NOT_SUPPORTED;
  acl_error_t err = acl_api.ipc_close((const char *)handle->data);
  /* Importers still attached: worth retrying.  Anything else (the key
   * already died with its allocation, say) is final. */
  if (err == ACL_IMPORTERS_OPEN)
    return HC_ERR_AGAIN;
  return acl_status("aclrtIpcMemClose", err);
}

static hc_status_t acl_ipc_import(const hc_ipc_handle_t *handle, void **ptr) {
  if (acl_api.ipc_import == NULL)
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc = acl_bind(acl_thread_device < 0 ? 0 : acl_thread_device);
  if (rc != HC_OK)
    return rc;
  return acl_status("aclrtIpcMemImportByKey",
                    acl_api.ipc_import(ptr, (const char *)handle->data,
                                       ACL_IMPORT_PEER_ACCESS));
}

static hc_status_t acl_ipc_close(const hc_ipc_handle_t *handle, void *ptr) {
  (void)ptr;
  if (acl_api.ipc_close == NULL)
    return HC_ERR_NOT_SUPPORTED;
  return acl_status("aclrtIpcMemClose",
                    acl_api.ipc_close((const char *)handle->data));
}

/* ---- application streams and host callbacks ---------------------------- */

static void *acl_reporter_main(void *arg) {
  acl_reporter_t *r = arg;
  if (acl_bind(r->device) != HC_OK)
    return NULL;
  /* A timeout is not an error here: it is the moment to look at stop. */
  while (!atomic_load(&r->stop))
    acl_api.process_report(ACL_REPORT_WAIT_MS);
  return NULL;
}

static int acl_callbacks_available(void) {
  return acl_api.launch_callback != NULL && acl_api.subscribe_report != NULL &&
         acl_api.unsubscribe_report != NULL && acl_api.process_report != NULL;
}

/* A new reporter subscribed to stream; NULL when that fails. */
static acl_reporter_t *acl_reporter_start(acl_stream_t stream, int device) {
  acl_reporter_t *r = calloc(1, sizeof *r);
  if (r == NULL)
    return NULL;
  r->stream = stream;
  r->device = device;
  r->refs = 1;
  atomic_init(&r->stop, 0);
  if (pthread_create(&r->thread, NULL, acl_reporter_main, r) != 0) {
    free(r);
    return NULL;
  }
  acl_error_t err = acl_api.subscribe_report((uint64_t)r->thread, stream);
  if (err == ACL_OK)
    return r;
  acl_report("aclrtSubscribeReport", err);
  atomic_store(&r->stop, 1);
  pthread_join(r->thread, NULL);
  free(r);
  return NULL;
}

/* The reporter of stream, shared; NULL without host callbacks. */
static acl_reporter_t *acl_reporter_get(acl_stream_t stream, int device) {
  if (!acl_callbacks_available())
    return NULL;
  pthread_mutex_lock(&acl_reporters_lock);
  acl_reporter_t *r = acl_reporters;
  while (r != NULL && r->stream != stream)
    r = r->next;
  if (r != NULL) {
    r->refs++;
  } else if ((r = acl_reporter_start(stream, device)) != NULL) {
    r->next = acl_reporters;
    acl_reporters = r;
  }
  pthread_mutex_unlock(&acl_reporters_lock);
  return r;
}

static void acl_reporter_release(acl_reporter_t *r) {
  if (r == NULL)
    return;
  pthread_mutex_lock(&acl_reporters_lock);
  int last = --r->refs == 0;
  if (last && r->stopped) {
    pthread_mutex_unlock(&acl_reporters_lock);
    free(r);
    return;
  }
  if (last) {
    acl_reporter_t **p = &acl_reporters;
    while (*p != r)
      p = &(*p)->next;
    *p = r->next;
  }
  pthread_mutex_unlock(&acl_reporters_lock);
  if (!last)
    return;
  /* Callbacks still queued must run before nobody serves them. */
  if (acl_bind(r->device) == HC_OK)
    acl_api.stream_sync(r->stream);
  acl_api.unsubscribe_report((uint64_t)r->thread, r->stream);
  atomic_store(&r->stop, 1);
  pthread_join(r->thread, NULL);
  free(r);
}

/* At fini: streams the application has not freed yet keep no thread
 * running into an unloaded library. */
static void acl_reporters_stop_all(void) {
  pthread_mutex_lock(&acl_reporters_lock);
  acl_reporter_t *r = acl_reporters;
  acl_reporters = NULL;
  pthread_mutex_unlock(&acl_reporters_lock);
  while (r != NULL) {
    acl_reporter_t *next = r->next;
    acl_api.unsubscribe_report((uint64_t)r->thread, r->stream);
    atomic_store(&r->stop, 1);
    pthread_join(r->thread, NULL);
    r->stopped = 1; /* freed by the last wrapper's release */
    r = next;
  }
}

static hc_status_t acl_stream_adopt(void *app_stream, void **stream) {
  acl_stream_wrap_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return HC_ERR_NOMEM;
  int32_t device = acl_thread_device;
  if (acl_api.get_device != NULL && acl_api.get_device(&device) != ACL_OK)
    device = acl_thread_device;
  s->stream = app_stream;
  s->device = device < 0 ? 0 : device;
  s->adopted = 1;
  s->reporter = acl_reporter_get(app_stream, s->device);
  *stream = s;
  return HC_OK;
}

static hc_status_t acl_launch_host_fn(void *stream, void (*fn)(void *arg),
                                      void *arg) {
  acl_stream_wrap_t *s = stream;
  if (s->reporter == NULL)
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc = acl_bind(s->device);
  if (rc != HC_OK)
    return rc;
  return acl_status(
      "aclrtLaunchCallback",
      acl_api.launch_callback(fn, arg, ACL_CALLBACK_BLOCK, s->stream));
}

/* A flag is 8 bytes of device memory: the application's stream waits on
 * it (aclrtValueWait) and the host raises it with aclrtValueWrite on a
 * stream of its own, which is idle but for those writes, so the write
 * lands at once and in the order the values were set.  ACL has no call
 * that sets device memory from the host without a stream (aclrtMemcpy
 * would be a synchronous copy), and no way to set an event from the
 * host, which is what rules out aclrtStreamWaitEvent here. */
typedef struct acl_flag {
  void *word;
  acl_stream_t writer;
  int device;
} acl_flag_t;

static hc_status_t acl_flag_create(void *stream, void **flag) {
  if (acl_api.malloc_device == NULL || acl_api.free_device == NULL ||
      acl_api.value_wait == NULL || acl_api.value_write == NULL)
    return HC_ERR_NOT_SUPPORTED;
  acl_flag_t *f = calloc(1, sizeof *f);
  if (f == NULL)
    return HC_ERR_NOMEM;
  f->device = ((acl_stream_wrap_t *)stream)->device;
  static const uint64_t zero;
  hc_status_t rc = acl_bind(f->device);
  if (rc == HC_OK)
    rc = acl_status(
        "aclrtMalloc",
        acl_api.malloc_device(&f->word, sizeof zero, ACL_MALLOC_NORMAL_ONLY));
  if (rc == HC_OK)
    rc =
        acl_status("aclrtMemcpy",
                   acl_api.memcpy_sync(f->word, sizeof zero, &zero, sizeof zero,
                                       ACL_MEMCPY_HOST_TO_DEVICE));
  if (rc == HC_OK)
    rc = acl_status("aclrtCreateStream", acl_api.stream_create(&f->writer));
  if (rc != HC_OK) {
    if (f->word != NULL)
      acl_api.free_device(f->word);
    free(f);
    return rc;
  }
  *flag = f;
  return HC_OK;
}

static void acl_flag_destroy(void *flag) {
  acl_flag_t *f = flag;
  if (f == NULL)
    return;
  if (acl_bind(f->device) == HC_OK) {
    acl_api.stream_sync(f->writer); /* the last write lands first */
    acl_api.stream_destroy(f->writer);
    acl_api.free_device(f->word);
  }
  free(f);
}

static hc_status_t acl_flag_wait(void *flag, uint64_t value, void *stream) {
  acl_flag_t *f = flag;
  acl_stream_wrap_t *s = stream;
  hc_status_t rc = acl_bind(s->device);
  if (rc != HC_OK)
    return rc;
  return acl_status(
      "aclrtValueWait",
      acl_api.value_wait(f->word, value, ACL_VALUE_WAIT_GEQ, s->stream));
}

static hc_status_t acl_flag_set(void *flag, uint64_t value) {
  acl_flag_t *f = flag;
  hc_status_t rc = acl_bind(f->device);
  if (rc != HC_OK)
    return rc;
  return acl_status("aclrtValueWrite",
                    acl_api.value_write(f->word, value, 0, f->writer));
}

const hc_device_ops_t hc_device_acl_ops = {
    .name = "acl",
    .kind = HC_MEM_ACL,
    .init = acl_init,
    .fini = acl_fini,
    .classify = acl_classify,
    .still_valid = acl_still_valid,
    .copy = acl_copy,
    .stream_create = acl_stream_create,
    .stream_destroy = acl_stream_destroy,
    .copy_async = acl_copy_async,
    .event_create = acl_event_create,
    .event_record = acl_event_record,
    .event_query = acl_event_query,
    .event_destroy = acl_event_destroy,
    .dev_alloc = acl_dev_alloc,
    .dev_free = acl_dev_free,
    .host_alloc = acl_host_alloc,
    .host_free = acl_host_free,
    .ipc_export = acl_ipc_export,
    .ipc_unexport = acl_ipc_unexport,
    .ipc_import = acl_ipc_import,
    .ipc_close = acl_ipc_close,
    /* Ascend RDMA goes through HCCL (devpath_hccl.c), not dma-buf. */
    .dmabuf_export = hc_device_dmabuf_export_not_supported,
    .stream_adopt = acl_stream_adopt,
    .launch_host_fn = acl_launch_host_fn,
    .flag_create = acl_flag_create,
    .flag_destroy = acl_flag_destroy,
    .flag_wait = acl_flag_wait,
    .flag_set = acl_flag_set,
};

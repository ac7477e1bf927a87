/*
 * The device layer proper: backend registration and selection
 * (HCMPI_DEVICE), the classification cache, copies between kinds, and the
 * IPC export/import caches.
 */
#include "device/device.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/env.h"
#include "util/log.h"

/* Small on purpose: a job passes a handful of long-lived device buffers. */
#define DEVICE_CACHE_SLOTS 64
#define DEVICE_EXPORT_SLOTS 64
#define DEVICE_IMPORT_SLOTS 64

typedef struct device_export {
  int used;
  unsigned long last_use;
  uintptr_t base;
  size_t size;
  hc_ipc_handle_t handle;
} device_export_t;

typedef struct device_import {
  int used;
  int busy; /* copies in flight from it (hc_device_ipc_release) */
  hc_ipc_handle_t handle;
  void *ptr;
} device_import_t;

/* A cached classification and what tells its allocation from a later one
 * at the same address (hc_device_ops_t.classify). */
typedef struct device_cached {
  hc_mem_info_t info;
  uint64_t alloc_id;
} device_cached_t;

typedef struct device_state {
  pthread_mutex_t lock;
  atomic_int initialized; /* read without the lock on every classify */
  atomic_int any;
  const hc_device_ops_t *backend[HC_MEM_KINDS];
  device_cached_t cache[DEVICE_CACHE_SLOTS];
  int cache_next;     /* round-robin victim */
  unsigned long tick; /* LRU clock of the IPC caches */
  device_export_t exports[DEVICE_EXPORT_SLOTS];
  device_import_t imports[DEVICE_IMPORT_SLOTS];
} device_state_t;

static device_state_t device_state = {.lock = PTHREAD_MUTEX_INITIALIZER};
atomic_int hc_device_host_only;

hc_status_t hc_device_ipc_export_not_supported(void *base, size_t size,
                                               int device,
                                               hc_ipc_handle_t *handle) {
  (void)base, (void)size, (void)device, (void)handle;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_device_ipc_unexport_not_supported(const hc_ipc_handle_t *h) {
  (void)h;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_device_ipc_import_not_supported(const hc_ipc_handle_t *handle,
                                               void **ptr) {
  (void)handle, (void)ptr;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_device_ipc_close_not_supported(const hc_ipc_handle_t *handle,
                                              void *ptr) {
  (void)handle, (void)ptr;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_device_dmabuf_export_not_supported(void *base, size_t size,
                                                  int device, int *fd,
                                                  uint64_t *offset) {
  (void)base, (void)size, (void)device, (void)fd, (void)offset;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_device_dev_alloc_not_supported(size_t len, int device,
                                              void **ptr) {
  (void)len, (void)device, (void)ptr;
  return HC_ERR_NOT_SUPPORTED;
}

void hc_device_dev_free_not_supported(void *ptr) { (void)ptr; }

hc_status_t hc_device_stream_adopt_not_supported(void *app_stream,
                                                 void **stream) {
  (void)app_stream, (void)stream;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_device_launch_host_fn_not_supported(void *stream,
                                                   void (*fn)(void *arg),
                                                   void *arg) {
  (void)stream, (void)fn, (void)arg;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_device_flag_create_not_supported(void *stream, void **flag) {
  (void)stream, (void)flag;
  return HC_ERR_NOT_SUPPORTED;
}

void hc_device_flag_destroy_not_supported(void *flag) { (void)flag; }

hc_status_t hc_device_flag_wait_not_supported(void *flag, uint64_t value,
                                              void *stream) {
  (void)flag, (void)value, (void)stream;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_device_flag_set_not_supported(void *flag, uint64_t value) {
  (void)flag, (void)value;
  return HC_ERR_NOT_SUPPORTED;
}

/* The registration list: every compiled-in device backend, in the order
 * HCMPI_DEVICE=auto tries them. */
static const hc_device_ops_t *const device_candidates[] = {
    &hc_device_acl_ops,
    &hc_device_cuda_ops,
};

static int device_wanted(const char *choice, const hc_device_ops_t *ops) {
  if (strcmp(choice, "auto") == 0)
    return 1;
  return strcmp(choice, ops->name) == 0;
}

/* Appends "name (why)" to the list of runtimes that did not load. */
static void device_note_missing(char *list, size_t len, const char *name,
                                const char *why) {
  size_t used = strlen(list);
  snprintf(list + used, len - used, "%s%s (%s)", used ? "; " : "", name,
           why[0] ? why : "not available");
}

/* Every wanted runtime that did not load goes into one line per process
 * at HCMPI_LOG=info (the details at debug). */
static void device_load_locked(void) {
  const char *choice = hc_env_string("HCMPI_DEVICE", "auto");
  device_state.backend[HC_MEM_HOST] = &hc_device_host_ops;
  char missing[512] = "";
  size_t n = sizeof device_candidates / sizeof device_candidates[0];
  for (size_t i = 0; i < n; i++) {
    const hc_device_ops_t *ops = device_candidates[i];
    if (!device_wanted(choice, ops))
      continue;
    char why[160] = "";
    if (ops->init(why, sizeof why) != HC_OK) {
      device_note_missing(missing, sizeof missing, ops->name, why);
      ops->fini();
      continue;
    }
    device_state.backend[ops->kind] = ops;
    device_state.any = 1;
    hc_log(HC_LOG_DEBUG, "device", "%s runtime loaded", ops->name);
  }
  if (strcmp(choice, "none") != 0 && strcmp(choice, "auto") != 0 &&
      !device_state.any && missing[0] == '\0')
    device_note_missing(missing, sizeof missing, choice, "no such runtime");
  if (missing[0] != '\0')
    hc_log(HC_LOG_INFO, "device",
           "HCMPI_DEVICE=%s: not loaded: %s; such buffers are treated as host "
           "memory",
           choice, missing);
}

hc_status_t hc_device_init(void) {
  pthread_mutex_lock(&device_state.lock);
  if (!device_state.initialized) {
    device_load_locked();
    device_state.initialized = 1;
    atomic_store_explicit(&hc_device_host_only, !device_state.any,
                          memory_order_relaxed);
  }
  pthread_mutex_unlock(&device_state.lock);
  return HC_OK;
}

static void device_import_close_locked(device_import_t *im) {
  const hc_device_ops_t *ops = device_state.backend[im->handle.kind];
  if (ops != NULL)
    ops->ipc_close(&im->handle, im->ptr);
  im->used = 0;
}

static void device_close_imports_locked(void) {
  for (int i = 0; i < DEVICE_IMPORT_SLOTS; i++)
    if (device_state.imports[i].used)
      device_import_close_locked(&device_state.imports[i]);
}

/* One attempt: HC_ERR_AGAIN (entry kept) while importers hold it. */
static hc_status_t device_unexport_once_locked(device_export_t *ex) {
  const hc_device_ops_t *ops = device_state.backend[ex->handle.kind];
  hc_status_t rc = ops != NULL ? ops->ipc_unexport(&ex->handle) : HC_OK;
  if (rc != HC_ERR_AGAIN)
    ex->used = 0;
  return rc;
}

static void device_withdraw(const hc_device_ops_t *ops,
                            const hc_ipc_handle_t *handle) {
  if (ops == NULL)
    return;
  /* Importers (other ranks) close their mappings at about the same time
   * during finalize; give them a moment. */
  hc_status_t rc;
  struct timespec ms = {0, 1000000};
  for (int tries = 0;
       (rc = ops->ipc_unexport(handle)) == HC_ERR_AGAIN && tries < 1000;
       tries++)
    nanosleep(&ms, NULL);
  if (rc != HC_OK)
    hc_log(HC_LOG_DEBUG, "device", "withdrawing an export: %s",
           hcomm_strerror(rc));
}

static void device_unexport_locked(device_export_t *ex) {
  ex->used = 0;
  device_withdraw(device_state.backend[ex->handle.kind], &ex->handle);
}

hc_status_t hc_device_ipc_export_span(const void *ptr, size_t len,
                                      const hc_mem_info_t *info,
                                      hc_ipc_handle_t *handle, size_t *offset) {
  const hc_device_ops_t *ops = hc_device_backend(info->kind);
  if (ops == NULL || info->kind == HC_MEM_HOST || len == 0)
    return HC_ERR_NOT_SUPPORTED;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t base = (uintptr_t)ptr & ~(page - 1);
  hc_status_t rc = ops->ipc_export((void *)base, (uintptr_t)ptr + len - base,
                                   info->device, handle);
  if (rc == HC_OK)
    *offset = (uintptr_t)ptr - base;
  return rc;
}

void hc_device_ipc_unexport(const hc_ipc_handle_t *handle) {
  if (handle->kind < HC_MEM_KINDS)
    device_withdraw(hc_device_backend((hc_mem_kind_t)handle->kind), handle);
}

void hc_device_fini(void) {
  pthread_mutex_lock(&device_state.lock);
  if (device_state.initialized) {
    device_close_imports_locked();
    for (int i = 0; i < DEVICE_EXPORT_SLOTS; i++)
      if (device_state.exports[i].used)
        device_unexport_locked(&device_state.exports[i]);
    for (int k = HC_MEM_HOST + 1; k < HC_MEM_KINDS; k++)
      if (device_state.backend[k] != NULL)
        device_state.backend[k]->fini();
  }
  atomic_store_explicit(&hc_device_host_only, 0, memory_order_relaxed);
  memset(device_state.backend, 0, sizeof device_state.backend);
  memset(device_state.cache, 0, sizeof device_state.cache);
  device_state.any = 0;
  device_state.initialized = 0;
  pthread_mutex_unlock(&device_state.lock);
}

int hc_device_any_slow(void) {
  if (!atomic_load_explicit(&device_state.initialized, memory_order_acquire))
    hc_device_init();
  return atomic_load_explicit(&device_state.any, memory_order_relaxed);
}

const hc_device_ops_t *hc_device_backend(hc_mem_kind_t kind) {
  hc_device_init();
  if ((int)kind < 0 || kind >= HC_MEM_KINDS)
    return NULL;
  return device_state.backend[kind];
}

static int device_cache_covers(const device_cached_t *c, uintptr_t p) {
  return c->info.size != 0 && p >= c->info.base &&
         p - c->info.base < c->info.size;
}

static void device_forget_locked(uintptr_t p);

/* A cached entry covering p that the runtime still confirms; entries it
 * no longer confirms (freed, or a new allocation at that address) are
 * dropped with their exports. */
static int device_cache_find_locked(uintptr_t p, hc_mem_info_t *info) {
  for (int i = 0; i < DEVICE_CACHE_SLOTS; i++) {
    device_cached_t *c = &device_state.cache[i];
    if (!device_cache_covers(c, p))
      continue;
    const hc_device_ops_t *ops = device_state.backend[c->info.kind];
    if (ops != NULL &&
        ops->still_valid((const void *)p, &c->info, c->alloc_id)) {
      *info = c->info;
      return 1;
    }
    hc_log(HC_LOG_DEBUG, "device",
           "cached range at %#lx changed (freed or reallocated): dropped",
           (unsigned long)c->info.base);
    device_forget_locked(p);
    return 0;
  }
  return 0;
}

static void device_cache_add_locked(const hc_mem_info_t *info,
                                    uint64_t alloc_id) {
  if (info->size == 0)
    return;
  device_cached_t *c = &device_state.cache[device_state.cache_next];
  c->info = *info;
  c->alloc_id = alloc_id;
  device_state.cache_next = (device_state.cache_next + 1) % DEVICE_CACHE_SLOTS;
}

static void device_host_info(hc_mem_info_t *info) {
  info->kind = HC_MEM_HOST;
  info->device = -1;
  info->base = 0;
  info->size = 0;
  info->alloc_id = 0;
}

hc_mem_kind_t hc_device_classify(const void *ptr, hc_mem_info_t *info) {
  hc_mem_info_t local;
  if (info == NULL)
    info = &local;
  device_host_info(info);
  if (!hc_device_any() || ptr == NULL)
    return HC_MEM_HOST;
  pthread_mutex_lock(&device_state.lock);
  int hit = device_cache_find_locked((uintptr_t)ptr, info);
  for (int k = HC_MEM_HOST + 1; !hit && k < HC_MEM_KINDS; k++) {
    const hc_device_ops_t *ops = device_state.backend[k];
    uint64_t alloc_id = 0;
    if (ops != NULL && ops->classify(ptr, info, &alloc_id)) {
      info->alloc_id = alloc_id;
      device_cache_add_locked(info, alloc_id);
      hit = 1;
    }
  }
  pthread_mutex_unlock(&device_state.lock);
  if (!hit)
    device_host_info(info);
  return info->kind;
}

static void device_forget_locked(uintptr_t p) {
  for (int i = 0; i < DEVICE_CACHE_SLOTS; i++) {
    device_cached_t *c = &device_state.cache[i];
    if (device_cache_covers(c, p))
      memset(c, 0, sizeof *c);
  }
  for (int i = 0; i < DEVICE_EXPORT_SLOTS; i++) {
    device_export_t *ex = &device_state.exports[i];
    if (ex->used && p >= ex->base && p - ex->base < ex->size)
      device_unexport_locked(ex);
  }
}

int hc_device_alloc_alive(const hc_mem_info_t *info) {
  const hc_device_ops_t *ops = hc_device_backend(info->kind);
  if (ops == NULL || info->kind == HC_MEM_HOST || info->size == 0)
    return 0;
  pthread_mutex_lock(&device_state.lock);
  int alive = ops->still_valid((const void *)info->base, info, info->alloc_id);
  pthread_mutex_unlock(&device_state.lock);
  return alive;
}

hc_status_t hc_device_dmabuf_export(const hc_mem_info_t *info, int *fd,
                                    uint64_t *offset, size_t *len) {
  const hc_device_ops_t *ops = hc_device_backend(info->kind);
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  if (ops == NULL || info->kind == HC_MEM_HOST || info->size == 0 ||
      info->base % page != 0)
    return HC_ERR_NOT_SUPPORTED;
  size_t pages = (info->size + page - 1) / page * page;
  hc_status_t rc =
      ops->dmabuf_export((void *)info->base, pages, info->device, fd, offset);
  if (rc == HC_OK)
    *len = pages;
  return rc;
}

void hc_device_forget(const void *ptr) {
  pthread_mutex_lock(&device_state.lock);
  device_forget_locked((uintptr_t)ptr);
  pthread_mutex_unlock(&device_state.lock);
}

int hc_device_cache_count(void) {
  int n = 0;
  pthread_mutex_lock(&device_state.lock);
  for (int i = 0; i < DEVICE_CACHE_SLOTS; i++)
    n += device_state.cache[i].info.size != 0;
  pthread_mutex_unlock(&device_state.lock);
  return n;
}

hc_status_t hc_device_copy(void *dst, const hc_mem_info_t *dinfo,
                           const void *src, const hc_mem_info_t *sinfo,
                           size_t len) {
  if (len == 0)
    return HC_OK;
  int dd = dinfo->kind != HC_MEM_HOST, sd = sinfo->kind != HC_MEM_HOST;
  if (!dd && !sd) {
    memcpy(dst, src, len);
    return HC_OK;
  }
  if (dd && sd && dinfo->kind != sinfo->kind)
    return HC_ERR_NOT_SUPPORTED;
  const hc_device_ops_t *ops =
      hc_device_backend(dd ? dinfo->kind : sinfo->kind);
  if (ops == NULL)
    return HC_ERR_NOT_SUPPORTED;
  hc_copy_dir_t dir = dd ? (sd ? HC_COPY_D2D : HC_COPY_H2D) : HC_COPY_D2H;
  return ops->copy(dst, src, len, dir, dd ? dinfo->device : sinfo->device);
}

static device_export_t *device_export_find_locked(uintptr_t p) {
  for (int i = 0; i < DEVICE_EXPORT_SLOTS; i++) {
    device_export_t *ex = &device_state.exports[i];
    if (ex->used && p >= ex->base && p - ex->base < ex->size)
      return ex;
  }
  return NULL;
}

/* A free slot, else the least recently used export that can be withdrawn
 * now (no importer holds it, or it died with its allocation). */
static device_export_t *device_export_slot_locked(void) {
  for (int i = 0; i < DEVICE_EXPORT_SLOTS; i++)
    if (!device_state.exports[i].used)
      return &device_state.exports[i];
  for (int tries = 0; tries < 4; tries++) {
    device_export_t *lru = NULL;
    for (int i = 0; i < DEVICE_EXPORT_SLOTS; i++) {
      device_export_t *ex = &device_state.exports[i];
      if (ex->used && (lru == NULL || ex->last_use < lru->last_use))
        lru = ex;
    }
    if (device_unexport_once_locked(lru) != HC_ERR_AGAIN)
      return lru;
    lru->last_use = ++device_state.tick; /* busy: try the next oldest */
  }
  return NULL;
}

hc_status_t hc_device_ipc_export(const void *ptr, const hc_mem_info_t *info,
                                 hc_ipc_handle_t *handle, size_t *offset) {
  const hc_device_ops_t *ops = hc_device_backend(info->kind);
  if (ops == NULL || info->kind == HC_MEM_HOST || info->size == 0)
    return HC_ERR_NOT_SUPPORTED;
  pthread_mutex_lock(&device_state.lock);
  hc_status_t rc = HC_OK;
  device_export_t *ex = device_export_find_locked((uintptr_t)ptr);
  if (ex == NULL) {
    ex = device_export_slot_locked();
    if (ex == NULL)
      rc = HC_ERR_AGAIN; /* table full: the caller stages instead */
    else
      rc = ops->ipc_export((void *)info->base, info->size, info->device,
                           &ex->handle);
    if (rc == HC_OK) {
      ex->used = 1;
      ex->base = info->base;
      ex->size = info->size;
    }
  }
  if (rc == HC_OK) {
    ex->last_use = ++device_state.tick;
    *handle = ex->handle;
    *offset = (uintptr_t)ptr - ex->base;
  }
  pthread_mutex_unlock(&device_state.lock);
  return rc;
}

static int device_handle_equal(const hc_ipc_handle_t *a,
                               const hc_ipc_handle_t *b) {
  return a->kind == b->kind && a->device == b->device && a->size == b->size &&
         memcmp(a->data, b->data, sizeof a->data) == 0;
}

/* A free slot (imports close when their last copy is done, so every used
 * slot is busy), or NULL. */
static device_import_t *device_import_slot_locked(void) {
  for (int i = 0; i < DEVICE_IMPORT_SLOTS; i++)
    if (!device_state.imports[i].used)
      return &device_state.imports[i];
  return NULL;
}

hc_status_t hc_device_ipc_import(const hc_ipc_handle_t *handle, void **ptr) {
  if (handle->kind >= HC_MEM_KINDS)
    return HC_ERR_ARG;
  const hc_device_ops_t *ops = hc_device_backend((hc_mem_kind_t)handle->kind);
  if (ops == NULL || handle->kind == HC_MEM_HOST)
    return HC_ERR_NOT_SUPPORTED;
  pthread_mutex_lock(&device_state.lock);
  hc_status_t rc = HC_OK;
  device_import_t *im = NULL;
  for (int i = 0; i < DEVICE_IMPORT_SLOTS && im == NULL; i++)
    if (device_state.imports[i].used &&
        device_handle_equal(&device_state.imports[i].handle, handle))
      im = &device_state.imports[i];
  if (im == NULL) {
    im = device_import_slot_locked();
    if (im == NULL)
      rc = HC_ERR_AGAIN;
    else
      rc = ops->ipc_import(handle, &im->ptr);
    if (rc == HC_OK) {
      im->used = 1;
      im->handle = *handle;
    }
  }
  if (rc == HC_OK) {
    im->busy++;
    *ptr = im->ptr;
  }
  pthread_mutex_unlock(&device_state.lock);
  return rc;
}

void hc_device_ipc_release(const hc_ipc_handle_t *handle) {
  pthread_mutex_lock(&device_state.lock);
  for (int i = 0; i < DEVICE_IMPORT_SLOTS; i++) {
    device_import_t *im = &device_state.imports[i];
    if (im->used && im->busy > 0 && device_handle_equal(&im->handle, handle)) {
      /* Closed at once when unused: the exporter may free next. */
      if (--im->busy == 0)
        device_import_close_locked(im);
      break;
    }
  }
  pthread_mutex_unlock(&device_state.lock);
}

void hc_device_ipc_close_all(void) {
  pthread_mutex_lock(&device_state.lock);
  device_close_imports_locked();
  pthread_mutex_unlock(&device_state.lock);
}

/*
 * TEST DOUBLE of libascendcl.so: memory, copies, streams and events.
 * Never installed.  "Device" memory is a PROT_NONE reservation at the
 * address handed out, so any host dereference of a device pointer faults;
 * the bytes live in a memfd that only this library's own copies reach,
 * through a second (private to the double) mapping.  See README.md.
 */
#define _GNU_SOURCE
#include "fake_acl_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

fake_state_t fake = {.lock = PTHREAD_MUTEX_INITIALIZER};
static __thread int fake_thread_device = -1;

/* Device virtual addresses come from one PROT_NONE reservation, so a freed
 * device range never turns into host memory.  Freed spans are handed out
 * again (same span size, most recently freed first), as real allocators
 * do: that is what makes stale per-address caches in hcmpi visible. */
#define FAKE_VA_BYTES (64ULL << 30)
#define FAKE_VA_ALIGN (64ULL << 10)
#define FAKE_VA_FREE_MAX 256

static struct {
  uintptr_t va[FAKE_VA_FREE_MAX];
  size_t span[FAKE_VA_FREE_MAX];
  int n;
} fake_va_free;

aclError fake_fail(aclError err, const char *why) {
  snprintf(fake.last_error, sizeof fake.last_error, "fake-cann: %s", why);
  return err;
}

int fake_devices(void) {
  const char *s = getenv("FAKE_CANN_DEVICES");
  int n = s != NULL ? atoi(s) : 2;
  return n > 0 ? n : 1;
}

int fake_current_device(void) { return fake_thread_device; }

aclError aclInit(const char *configPath) {
  (void)configPath;
  pthread_mutex_lock(&fake.lock);
  int again = fake.initialized;
  fake.initialized = 1;
  pthread_mutex_unlock(&fake.lock);
  return again ? ACL_ERROR_REPEAT_INITIALIZE : ACL_SUCCESS;
}

aclError aclFinalize(void) {
  pthread_mutex_lock(&fake.lock);
  int was = fake.initialized;
  fake.initialized = 0;
  pthread_mutex_unlock(&fake.lock);
  return was ? ACL_SUCCESS : ACL_ERROR_REPEAT_FINALIZE;
}

aclError aclrtSetDevice(int32_t deviceId) {
  if (!fake.initialized)
    return fake_fail(ACL_ERROR_UNINITIALIZE, "aclInit not called");
  if (deviceId < 0 || deviceId >= fake_devices())
    return fake_fail(ACL_ERROR_RT_INVALID_DEVICEID, "no such device");
  fake_thread_device = deviceId;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  if (deviceId < 0 || deviceId >= fake_devices())
    return fake_fail(ACL_ERROR_RT_INVALID_DEVICEID, "no such device");
  if (fake_thread_device == deviceId)
    fake_thread_device = -1;
  return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *deviceId) {
  if (deviceId == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  if (fake_thread_device < 0)
    return fake_fail(ACL_ERROR_RT_CONTEXT_NULL, "no device set in thread");
  *deviceId = fake_thread_device;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count) {
  if (count == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  *count = (uint32_t)fake_devices();
  return ACL_SUCCESS;
}

aclError aclrtDeviceGetBareTgid(int32_t *pid) {
  if (pid == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  *pid = (int32_t)getpid();
  return ACL_SUCCESS;
}

const char *aclGetRecentErrMsg(void) { return fake.last_error; }

/* A context (aclrtSetDevice in this thread) is needed by every call that
 * touches a device. */
aclError fake_need_context(void) {
  if (!fake.initialized)
    return fake_fail(ACL_ERROR_UNINITIALIZE, "aclInit not called");
  if (fake_thread_device < 0)
    return fake_fail(ACL_ERROR_RT_CONTEXT_NULL, "no device set in thread");
  return ACL_SUCCESS;
}

static size_t fake_va_span(size_t bytes) {
  size_t span = (bytes + FAKE_VA_ALIGN - 1) & ~(FAKE_VA_ALIGN - 1);
  return span + FAKE_VA_ALIGN; /* a gap: ranges never touch */
}

/* Caller holds fake.lock.  A full free list just forgets the span. */
static void fake_release_va(uintptr_t va, size_t bytes) {
  if (va == 0 || fake_va_free.n == FAKE_VA_FREE_MAX)
    return;
  fake_va_free.va[fake_va_free.n] = va;
  fake_va_free.span[fake_va_free.n] = fake_va_span(bytes);
  fake_va_free.n++;
}

/* Caller holds fake.lock. */
uintptr_t fake_reserve_va(size_t bytes) {
  if (fake.va_base == 0) {
    void *p = mmap(NULL, FAKE_VA_BYTES, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return 0;
    fake.va_base = (uintptr_t)p;
    fake.va_next = fake.va_base;
  }
  size_t span = fake_va_span(bytes);
  for (int i = fake_va_free.n - 1; i >= 0; i--)
    if (fake_va_free.span[i] == span) {
      uintptr_t va = fake_va_free.va[i];
      fake_va_free.n--;
      fake_va_free.va[i] = fake_va_free.va[fake_va_free.n];
      fake_va_free.span[i] = fake_va_free.span[fake_va_free.n];
      return va;
    }
  if (fake.va_next + span > fake.va_base + FAKE_VA_BYTES)
    return 0;
  uintptr_t va = fake.va_next;
  fake.va_next += span;
  return va;
}

/* Caller holds fake.lock. */
fake_alloc_t *fake_find(uintptr_t p) {
  for (fake_alloc_t *a = fake.allocs; a != NULL; a = a->next)
    if (p >= a->dev && p - a->dev < a->size)
      return a;
  return NULL;
}

static size_t fake_page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

size_t fake_round_page(size_t n) {
  size_t pg = fake_page();
  return (n + pg - 1) / pg * pg;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  (void)policy;
  aclError err = fake_need_context();
  if (err != ACL_SUCCESS)
    return err;
  if (devPtr == NULL || size == 0)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: bad argument");
  fake_alloc_t *a = calloc(1, sizeof *a);
  if (a == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  a->map_size = fake_round_page(size);
  a->fd = memfd_create("fake-cann-device", MFD_CLOEXEC);
  if (a->fd < 0 || ftruncate(a->fd, (off_t)a->map_size) != 0) {
    if (a->fd >= 0)
      close(a->fd);
    free(a);
    return fake_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "memfd failed");
  }
  a->shadow =
      mmap(NULL, a->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, a->fd, 0);
  pthread_mutex_lock(&fake.lock);
  a->dev = fake_reserve_va(a->map_size);
  if (a->shadow == MAP_FAILED || a->dev == 0) {
    pthread_mutex_unlock(&fake.lock);
    if (a->shadow != MAP_FAILED)
      munmap(a->shadow, a->map_size);
    close(a->fd);
    free(a);
    return fake_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no device memory left");
  }
  a->size = size;
  a->device = fake_thread_device;
  a->next = fake.allocs;
  fake.allocs = a;
  pthread_mutex_unlock(&fake.lock);
  *devPtr = (void *)a->dev;
  return ACL_SUCCESS;
}

static void fake_unlink_alloc_locked(fake_alloc_t *a) {
  for (fake_alloc_t **l = &fake.allocs; *l != NULL; l = &(*l)->next)
    if (*l == a) {
      *l = a->next;
      return;
    }
}

void fake_drop_alloc_locked(fake_alloc_t *a) {
  fake_unlink_alloc_locked(a);
  fake_release_va(a->dev, a->map_size);
  munmap(a->shadow, a->map_size);
  if (a->fd >= 0)
    close(a->fd);
  free(a);
}

aclError aclrtFree(void *devPtr) {
  pthread_mutex_lock(&fake.lock);
  fake_alloc_t *a = fake_find((uintptr_t)devPtr);
  if (a == NULL || a->dev != (uintptr_t)devPtr || a->imported) {
    pthread_mutex_unlock(&fake.lock);
    return fake_fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: not an allocation");
  }
  /* The documented order: every importer closes before the exporter
   * frees.  Refused while one has not (the allocation stays). */
  if (fake_ipc_imported_locked(a)) {
    pthread_mutex_unlock(&fake.lock);
    return fake_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "aclrtFree: another process still imports it");
  }
  /* Exports of a freed allocation are withdrawn: their keys die. */
  fake_ipc_withdraw_locked(a);
  fake_drop_alloc_locked(a);
  pthread_mutex_unlock(&fake.lock);
  return ACL_SUCCESS;
}

/* FAKE_CANN_FAIL_MALLOC_HOST (fake_acl.h): whether to refuse this call. */
static int fake_pinned_short(void) {
  static long left = -1; /* -1: not read yet */
  pthread_mutex_lock(&fake.lock);
  if (left < 0) {
    const char *s = getenv("FAKE_CANN_FAIL_MALLOC_HOST");
    left = s != NULL && atol(s) > 0 ? atol(s) : 0;
  }
  int refuse = left > 0;
  left -= refuse;
  pthread_mutex_unlock(&fake.lock);
  return refuse;
}

aclError aclrtMallocHost(void **hostPtr, size_t size) {
  if (!fake.initialized)
    return fake_fail(ACL_ERROR_UNINITIALIZE, "aclInit not called");
  if (hostPtr == NULL || size == 0)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: bad argument");
  if (fake_pinned_short())
    return fake_fail(ACL_ERROR_BAD_ALLOC, "pinned memory short (test hook)");
  fake_pinned_t *h = calloc(1, sizeof *h);
  if (h == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  h->size = fake_round_page(size);
  void *p = mmap(NULL, h->size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    free(h);
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  }
  h->base = (uintptr_t)p;
  pthread_mutex_lock(&fake.lock);
  h->next = fake.pinned;
  fake.pinned = h;
  pthread_mutex_unlock(&fake.lock);
  *hostPtr = p;
  return ACL_SUCCESS;
}

aclError aclrtFreeHost(void *hostPtr) {
  pthread_mutex_lock(&fake.lock);
  for (fake_pinned_t **l = &fake.pinned; *l != NULL; l = &(*l)->next) {
    fake_pinned_t *h = *l;
    if (h->base == (uintptr_t)hostPtr) {
      *l = h->next;
      pthread_mutex_unlock(&fake.lock);
      munmap(hostPtr, h->size);
      free(h);
      return ACL_SUCCESS;
    }
  }
  pthread_mutex_unlock(&fake.lock);
  return fake_fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: not pinned memory");
}

/* Caller holds fake.lock: 1 when [p, p+n) lies in pinned host memory. */
int fake_is_pinned_locked(uintptr_t p, size_t n) {
  for (fake_pinned_t *h = fake.pinned; h != NULL; h = h->next)
    if (p >= h->base && p - h->base <= h->size && n <= h->size - (p - h->base))
      return 1;
  return 0;
}

aclError aclrtPointerGetAttributes(const void *ptr,
                                   aclrtPtrAttributes *attributes) {
  if (ptr == NULL || attributes == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  memset(attributes, 0, sizeof *attributes);
  attributes->pageSize = (uint32_t)fake_page();
  pthread_mutex_lock(&fake.lock);
  fake_alloc_t *a = fake_find((uintptr_t)ptr);
  if (a != NULL) {
    attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    attributes->location.id = (uint32_t)a->device;
  } else if (fake_is_pinned_locked((uintptr_t)ptr, 1)) {
    attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
  } else {
    attributes->location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
  }
  pthread_mutex_unlock(&fake.lock);
  return ACL_SUCCESS;
}

aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize) {
  if (pbase == NULL || psize == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  const char *hide = getenv("FAKE_CANN_NO_ADDRESS_RANGE");
  if (hide != NULL && atoi(hide) != 0) /* test hook: an older runtime */
    return fake_fail(ACL_ERROR_API_NOT_SUPPORT,
                     "aclrtMemGetAddressRange not supported");
  pthread_mutex_lock(&fake.lock);
  fake_alloc_t *a = fake_find((uintptr_t)ptr);
  if (a != NULL) {
    *pbase = (void *)a->dev;
    *psize = a->size;
  }
  pthread_mutex_unlock(&fake.lock);
  return a != NULL ? ACL_SUCCESS
                   : fake_fail(ACL_ERROR_INVALID_PARAM, "not device memory");
}

/* Translates one side of a copy.  Device ranges must lie inside one
 * allocation; the result points into the double's private mapping. */
static aclError fake_side_locked(uintptr_t p, size_t n, int device_side,
                                 void **real, fake_alloc_t **owner) {
  fake_alloc_t *a = fake_find(p);
  *owner = a;
  if (!device_side) {
    if (a != NULL)
      return fake_fail(ACL_ERROR_INVALID_PARAM,
                       "device pointer passed as the host side of a copy");
    *real = (void *)p;
    return ACL_SUCCESS;
  }
  if (a == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM,
                     "host pointer passed as the device side of a copy");
  if (n > a->size - (p - a->dev))
    return fake_fail(ACL_ERROR_INVALID_PARAM, "copy runs past the allocation");
  *real = a->shadow + (p - a->dev);
  return ACL_SUCCESS;
}

aclError fake_resolve_copy(void *dst, size_t destMax, const void *src,
                           size_t count, aclrtMemcpyKind kind, int async,
                           fake_copy_t *out) {
  if (count > destMax)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "count exceeds destMax");
  if (count > 0 && (dst == NULL || src == NULL))
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  pthread_mutex_lock(&fake.lock);
  if (kind == ACL_MEMCPY_DEFAULT)
    kind = (aclrtMemcpyKind)((fake_find((uintptr_t)src) ? 2 : 0) +
                             (fake_find((uintptr_t)dst) ? 1 : 0));
  if (kind == 2)
    kind = ACL_MEMCPY_DEVICE_TO_HOST;
  else if (kind == 3)
    kind = ACL_MEMCPY_DEVICE_TO_DEVICE;
  int dst_dev =
      kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  int src_dev =
      kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  fake_alloc_t *da = NULL, *sa = NULL;
  aclError err = (unsigned)kind > ACL_MEMCPY_DEVICE_TO_DEVICE
                     ? fake_fail(ACL_ERROR_INVALID_PARAM, "bad copy kind")
                     : ACL_SUCCESS;
  if (err == ACL_SUCCESS)
    err = fake_side_locked((uintptr_t)dst, count, dst_dev, &out->dst, &da);
  if (err == ACL_SUCCESS)
    err = fake_side_locked((uintptr_t)src, count, src_dev, &out->src, &sa);
  /* Imported memory: explicit device-to-device, asynchronous copies only. */
  int imported = (da && da->imported) || (sa && sa->imported);
  if (err == ACL_SUCCESS && imported &&
      (!async || kind != ACL_MEMCPY_DEVICE_TO_DEVICE))
    err = fake_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    "imported IPC memory: only async device-to-device copies");
  out->pinned = fake_is_pinned_locked((uintptr_t)(dst_dev ? src : dst), count);
  out->n = count;
  pthread_mutex_unlock(&fake.lock);
  return err;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind) {
  aclError err = fake_need_context();
  fake_copy_t c;
  if (err == ACL_SUCCESS)
    err = fake_resolve_copy(dst, destMax, src, count, kind, 0, &c);
  if (err == ACL_SUCCESS && count > 0)
    memmove(c.dst, c.src, count);
  return err;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value,
                     size_t count) {
  aclError err = fake_need_context();
  if (err != ACL_SUCCESS)
    return err;
  if (count > maxCount)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "count exceeds maxCount");
  pthread_mutex_lock(&fake.lock);
  void *real;
  fake_alloc_t *a;
  err = fake_side_locked((uintptr_t)devPtr, count, 1, &real, &a);
  pthread_mutex_unlock(&fake.lock);
  if (err == ACL_SUCCESS)
    memset(real, value, count);
  return err;
}

aclError fakecann_device_span(const void *dev, size_t n, void **shadow, int *fd,
                              uint64_t *offset) {
  pthread_mutex_lock(&fake.lock);
  fake_alloc_t *a = fake_find((uintptr_t)dev);
  aclError err = ACL_SUCCESS;
  if (a == NULL || a->imported || a->fd < 0)
    err = fake_fail(ACL_ERROR_INVALID_PARAM, "not an owned device buffer");
  else if (n > a->size - ((uintptr_t)dev - a->dev))
    err = fake_fail(ACL_ERROR_INVALID_PARAM, "span runs past the allocation");
  if (err == ACL_SUCCESS) {
    *shadow = a->shadow + ((uintptr_t)dev - a->dev);
    *fd = a->fd;
    *offset = (uint64_t)((uintptr_t)dev - a->dev);
  }
  pthread_mutex_unlock(&fake.lock);
  return err;
}

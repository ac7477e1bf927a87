/*
 * TEST DOUBLE of the CUDA driver library (libcuda.so.1).  Never installed:
 * built only by make check so that hcmpi's cuda backend (src/device/cuda.c)
 * runs on machines without an NVIDIA GPU.  See tests/fake-cuda/README.md.
 *
 * Names, signatures, enum values and CUresult codes are the driver API's
 * documented ones, declared here by hand (no CUDA header is needed).
 *
 * "Device" memory: the address handed out lies in one PROT_NONE
 * reservation, so any host dereference of a device pointer faults; the
 * bytes live in a memfd that only this library's copies reach, through a
 * second mapping private to the double.  Freed device addresses are handed
 * out again (same span, most recently freed first) with a new buffer id.
 *
 * Streams: a worker thread per stream runs its copies, event records,
 * host functions (cuLaunchHostFunc), waits on a memory value
 * (cuStreamWaitValue32_v2, polled) and the double's "kernels" in order.
 * The NULL stream is each context's legacy stream, with the driver's
 * implicit ordering against blocking streams; cuMemcpy and its typed forms
 * run there and return when the driver's do: before a write to device
 * memory from device or pageable memory landed.  Host waits on streams are
 * counted (fakecuda_host_syncs), as are host functions and value waits
 * holding their stream now.
 *
 * cuIpcCloseMemHandle waits for every stream of its context to drain while
 * it holds a driver lock that every other entry point passes (fc_enter);
 * a stream held on the host meanwhile is reported as the hang it is on a
 * real driver, and the process aborted.
 *
 * IPC: a CUipcMemHandle names the exporter's pid and memfd; the importer
 * maps /proc/<pid>/fd/<fd>.  cuMemGetHandleForAddressRange (dma-buf) hands
 * out a dup of the allocation's memfd as the "dma-buf", which the verbs
 * double (tests/fake-verbs) can mmap.
 *
 * Test hooks (not CUDA): FAKE_CUDA_DEVICES=N devices (default 2);
 * FAKE_CUDA_NO_DMABUF=1: cuMemGetHandleForAddressRange answers
 * CUDA_ERROR_NOT_SUPPORTED, as a driver without dma-buf support does;
 * FAKE_CUDA_ASYNC_LAG_US=N: a cuMemcpyAsync copy runs no earlier than N
 * microseconds after the call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fake_cuda.h"

/* ---- the double's state ------------------------------------------------ */

#define FC_VA_BYTES (64ULL << 30)
#define FC_VA_ALIGN (64ULL << 10)
#define FC_VA_FREE_MAX 256
#define FC_DEVICES_MAX 16
#define FC_IPC_MAGIC 0x46414b43u /* "FAKC" */
#define FC_STREAM_MAGIC 0x5354524du
#define FC_EVENT_MAGIC 0x45564e54u

typedef struct fc_alloc { /* one allocation, or one import of a peer's */
  struct fc_alloc *next;
  uintptr_t dev;         /* the address handed out: PROT_NONE */
  size_t size;           /* bytes asked for (imports: the exporter's) */
  size_t map_size;       /* page-rounded */
  unsigned char *shadow; /* the double's own mapping of the bytes */
  int fd;                /* memfd (-1 for imports) */
  int device;
  unsigned long long buffer_id;
  int imported; /* opens of the handle still held (imports only) */
  int src_pid;  /* imports: the exporter and its memfd */
  int src_fd;
  unsigned long long src_id;
} fc_alloc_t;

typedef struct fc_pinned {
  struct fc_pinned *next;
  void *base;
  size_t size;
  unsigned long long buffer_id;
  unsigned flags; /* cuMemHostAlloc's: DEVICEMAP maps it for the device */
} fc_pinned_t;

struct fc_ctx {
  int device;
  int retained;
};

/* What a CUipcMemHandle holds here (64 bytes at most). */
typedef struct fc_ipc_wire {
  uint32_t magic;
  int32_t pid;
  int32_t fd;
  int32_t device;
  uint64_t size;
  uint64_t map_size;
  unsigned long long buffer_id;
} fc_ipc_wire_t;

static struct {
  pthread_mutex_t lock;
  int initialized;
  uintptr_t va_base, va_next;
  uintptr_t free_va[FC_VA_FREE_MAX];
  size_t free_span[FC_VA_FREE_MAX];
  int nfree;
  fc_alloc_t *allocs;
  fc_pinned_t *pinned;
  struct fc_ctx ctx[FC_DEVICES_MAX];
  unsigned long long next_id;
  struct fc_stream *streams; /* every stream, legacy ones included */
  struct fc_stream *legacy[FC_DEVICES_MAX]; /* each context's NULL stream */
} fc = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The driver's lock: cuIpcCloseMemHandle holds it exclusive while it waits
 * for its context's streams to drain, and every other entry point passes
 * through it shared first (fc_enter), so a close blocks other threads'
 * driver calls meanwhile, as the driver's does.  Writers first: a close
 * waiting for it stops new calls. */
static pthread_rwlock_t fc_driver_lock =
    PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static __thread int fc_closing_here; /* this thread holds it exclusive */

static void fc_enter(void) {
  if (fc_closing_here)
    return;
  pthread_rwlock_rdlock(&fc_driver_lock);
  pthread_rwlock_unlock(&fc_driver_lock);
}

static __thread struct fc_ctx *fc_current;

static int fc_devices(void) {
  const char *s = getenv("FAKE_CUDA_DEVICES");
  int n = s != NULL ? atoi(s) : 2;
  return n < 1 ? 1 : n > FC_DEVICES_MAX ? FC_DEVICES_MAX : n;
}

static size_t fc_page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static size_t fc_round_page(size_t n) {
  size_t pg = fc_page();
  return (n + pg - 1) / pg * pg;
}

/* Calls that touch a device need cuInit and a current context. */
static CUresult fc_need_context(void) {
  if (!fc.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  return fc_current != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static size_t fc_va_span(size_t map_size) {
  return (map_size + FC_VA_ALIGN - 1) / FC_VA_ALIGN * FC_VA_ALIGN +
         FC_VA_ALIGN; /* a gap: ranges never touch */
}

/* Caller holds fc.lock.  0 when the reservation is spent. */
static uintptr_t fc_reserve_va(size_t map_size) {
  if (fc.va_base == 0) {
    void *p = mmap(NULL, FC_VA_BYTES, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return 0;
    fc.va_base = fc.va_next = (uintptr_t)p;
  }
  size_t span = fc_va_span(map_size);
  for (int i = fc.nfree - 1; i >= 0; i--)
    if (fc.free_span[i] == span) {
      uintptr_t va = fc.free_va[i];
      fc.nfree--;
      fc.free_va[i] = fc.free_va[fc.nfree];
      fc.free_span[i] = fc.free_span[fc.nfree];
      return va;
    }
  if (fc.va_next + span > fc.va_base + FC_VA_BYTES)
    return 0;
  uintptr_t va = fc.va_next;
  fc.va_next += span;
  return va;
}

/* Caller holds fc.lock; a full free list forgets the span. */
static void fc_release_va(uintptr_t va, size_t map_size) {
  if (fc.nfree == FC_VA_FREE_MAX)
    return;
  fc.free_va[fc.nfree] = va;
  fc.free_span[fc.nfree] = fc_va_span(map_size);
  fc.nfree++;
}

static int fc_in_reservation(uintptr_t p) {
  return fc.va_base != 0 && p >= fc.va_base && p - fc.va_base < FC_VA_BYTES;
}

/* Caller holds fc.lock. */
static fc_alloc_t *fc_find(uintptr_t p) {
  for (fc_alloc_t *a = fc.allocs; a != NULL; a = a->next)
    if (p >= a->dev && p - a->dev < a->size)
      return a;
  return NULL;
}

static fc_pinned_t *fc_find_pinned(uintptr_t p) {
  for (fc_pinned_t *h = fc.pinned; h != NULL; h = h->next)
    if (p >= (uintptr_t)h->base && p - (uintptr_t)h->base < h->size)
      return h;
  return NULL;
}

/* ---- init, devices, contexts ------------------------------------------ */

CUresult cuInit(unsigned int Flags) {
  fc_enter();
  if (Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&fc.lock);
  fc.initialized = 1;
  for (int d = 0; d < FC_DEVICES_MAX; d++)
    fc.ctx[d].device = d;
  pthread_mutex_unlock(&fc.lock);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  fc_enter();
  if (!fc.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (count == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  *count = fc_devices();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  fc_enter();
  if (!fc.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (device == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal < 0 || ordinal >= fc_devices())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  fc_enter();
  if (!fc.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (pctx == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev < 0 || dev >= fc_devices())
    return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&fc.lock);
  fc.ctx[dev].retained++;
  pthread_mutex_unlock(&fc.lock);
  *pctx = &fc.ctx[dev];
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  fc_enter();
  if (!fc.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (dev < 0 || dev >= fc_devices())
    return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&fc.lock);
  CUresult rc = CUDA_ERROR_INVALID_CONTEXT;
  if (fc.ctx[dev].retained > 0) {
    fc.ctx[dev].retained--;
    rc = CUDA_SUCCESS;
  }
  pthread_mutex_unlock(&fc.lock);
  return rc;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  fc_enter();
  if (!fc.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (ctx != NULL &&
      (ctx < &fc.ctx[0] || ctx >= &fc.ctx[fc_devices()] || ctx->retained == 0))
    return CUDA_ERROR_INVALID_CONTEXT;
  fc_current = ctx;
  return CUDA_SUCCESS;
}

/* ---- pointer queries -------------------------------------------------- */

/* One attribute of memory of type (CU_MEMORYTYPE_*) with buffer id and
 * device ordinal. */
static CUresult fc_attribute(void *data, int attribute, unsigned int type,
                             unsigned long long id, int device) {
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    *(unsigned int *)data = type;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    *(unsigned long long *)data = id;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    *(int *)data = device;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_CONTEXT:
    *(CUcontext *)data = &fc.ctx[device];
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

/* Needs no current context (unified addressing names the pointer's own);
 * memory the driver does not know: CUDA_ERROR_INVALID_VALUE. */
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr) {
  fc_enter();
  if (!fc.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (data == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&fc.lock);
  CUresult rc = CUDA_ERROR_INVALID_VALUE;
  const fc_alloc_t *a = fc_find((uintptr_t)ptr);
  const fc_pinned_t *h = a == NULL ? fc_find_pinned((uintptr_t)ptr) : NULL;
  if (a != NULL)
    rc = fc_attribute(data, attribute, CU_MEMORYTYPE_DEVICE, a->buffer_id,
                      a->device);
  else if (h != NULL)
    rc = fc_attribute(data, attribute, CU_MEMORYTYPE_HOST, h->buffer_id, 0);
  pthread_mutex_unlock(&fc.lock);
  return rc;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize,
                                 CUdeviceptr dptr) {
  fc_enter();
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  pthread_mutex_lock(&fc.lock);
  const fc_alloc_t *a = fc_find((uintptr_t)dptr);
  if (a != NULL) {
    if (pbase != NULL)
      *pbase = a->dev;
    if (psize != NULL)
      *psize = a->size;
  }
  pthread_mutex_unlock(&fc.lock);
  return a != NULL ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* ---- allocation ------------------------------------------------------- */

/* Maps the bytes of fd for the double and gives them a device address;
 * the record is linked in.  Caller holds fc.lock. */
static CUresult fc_map_locked(fc_alloc_t *a) {
  a->shadow =
      mmap(NULL, a->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, a->fd, 0);
  if (a->shadow == MAP_FAILED) {
    a->shadow = NULL;
    return CUDA_ERROR_MAP_FAILED;
  }
  a->dev = fc_reserve_va(a->map_size);
  if (a->dev == 0) {
    munmap(a->shadow, a->map_size);
    a->shadow = NULL;
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  a->buffer_id = ++fc.next_id;
  a->next = fc.allocs;
  fc.allocs = a;
  return CUDA_SUCCESS;
}

static void fc_unlink_locked(fc_alloc_t *a) {
  for (fc_alloc_t **l = &fc.allocs; *l != NULL; l = &(*l)->next)
    if (*l == a) {
      *l = a->next;
      break;
    }
  munmap(a->shadow, a->map_size);
  fc_release_va(a->dev, a->map_size);
  if (a->fd >= 0)
    close(a->fd);
  free(a);
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
  fc_enter();
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (dptr == NULL || bytesize == 0)
    return CUDA_ERROR_INVALID_VALUE;
  fc_alloc_t *a = calloc(1, sizeof *a);
  if (a == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  a->size = bytesize;
  a->map_size = fc_round_page(bytesize);
  a->device = fc_current->device;
  a->fd = memfd_create("fake-cuda-device", MFD_CLOEXEC);
  if (a->fd < 0 || ftruncate(a->fd, (off_t)a->map_size) != 0) {
    if (a->fd >= 0)
      close(a->fd);
    free(a);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  pthread_mutex_lock(&fc.lock);
  rc = fc_map_locked(a);
  pthread_mutex_unlock(&fc.lock);
  if (rc != CUDA_SUCCESS) {
    close(a->fd);
    free(a);
    return rc;
  }
  *dptr = a->dev;
  return CUDA_SUCCESS;
}

/* Drops one reference on what starts at dptr: an allocation of this
 * process (import 0: freed at once) or an import (import 1: unmapped with
 * its last close).  Anything else: CUDA_ERROR_INVALID_VALUE. */
static CUresult fc_release(CUdeviceptr dptr, int import) {
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  pthread_mutex_lock(&fc.lock);
  fc_alloc_t *a = fc_find((uintptr_t)dptr);
  rc = CUDA_ERROR_INVALID_VALUE;
  if (a != NULL && a->dev == dptr && (a->imported > 0) == import) {
    if (!import || --a->imported == 0)
      fc_unlink_locked(a);
    rc = CUDA_SUCCESS;
  }
  pthread_mutex_unlock(&fc.lock);
  return rc;
}

static void fc_legacy_drain(void);

/* The free waits for the legacy stream, whose copies may still write the
 * memory (the driver's free synchronises too). */
CUresult cuMemFree_v2(CUdeviceptr dptr) {
  fc_enter();
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  fc_legacy_drain();
  return fc_release(dptr, 0);
}

CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) {
  fc_enter();
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (pp == NULL || bytesize == 0 || (Flags & ~FC_HOSTALLOC_FLAGS) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  fc_pinned_t *h = calloc(1, sizeof *h);
  if (h == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  h->size = fc_round_page(bytesize);
  h->base = mmap(NULL, h->size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (h->base == MAP_FAILED) {
    free(h);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  h->flags = Flags;
  pthread_mutex_lock(&fc.lock);
  h->buffer_id = ++fc.next_id;
  h->next = fc.pinned;
  fc.pinned = h;
  pthread_mutex_unlock(&fc.lock);
  *pp = h->base;
  return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *p) {
  fc_enter();
  if (!fc.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  pthread_mutex_lock(&fc.lock);
  CUresult rc = CUDA_ERROR_INVALID_VALUE;
  for (fc_pinned_t **l = &fc.pinned; *l != NULL; l = &(*l)->next)
    if ((*l)->base == p) {
      fc_pinned_t *h = *l;
      *l = h->next;
      munmap(h->base, h->size);
      free(h);
      rc = CUDA_SUCCESS;
      break;
    }
  pthread_mutex_unlock(&fc.lock);
  return rc;
}

/* ---- streams ------------------------------------------------------------
 * Each stream has a worker thread that runs its queued work (copies, event
 * records, host functions, value waits, kernels) in order, so asynchronous
 * work really is asynchronous.  The NULL stream is the context's legacy
 * default stream, a worker of its own created at first use, ordered with
 * the context's blocking streams (created with flags 0) as the driver
 * orders it: its work waits for theirs queued before, and theirs for its;
 * CU_STREAM_NON_BLOCKING streams do not order with it. */

typedef struct fc_fence fc_fence_t;

typedef struct fc_task {
  struct fc_task *next;
  void (*fn)(void *arg);
  void *arg;
  fc_fence_t *after; /* passed before fn runs (NULL: nothing to wait for) */
} fc_task_t;

struct fc_stream {
  uint32_t magic;
  int device;
  int blocking; /* orders with the legacy stream (flags 0, or it itself) */
  int legacy;   /* the context's NULL stream */
  struct fc_stream *next_of_all; /* fc.streams, under fc.lock */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  fc_task_t *head, *tail;
  int running;
  int stop;
  const char *holding; /* the running task waits on the host: what for */
  double hold_since;   /* since when (fc_now) */
  pthread_t worker;
};

struct fc_event {
  uint32_t magic;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned long recorded; /* records issued */
  unsigned long reached;  /* records a stream got to */
};

static double fc_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fc_sleep_s(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* The double's own bookkeeping (a stream's queue, the legacy stream's
 * ordering) cannot be modelled failing: out of memory there ends the run. */
static void *fc_alloc_or_die(size_t n) {
  void *p = calloc(1, n);
  if (p == NULL) {
    fputs("fake-cuda: out of memory for the double's own bookkeeping\n",
          stderr);
    abort();
  }
  return p;
}

/* Times the host waited for streams (fakecuda_host_syncs). */
static atomic_ulong fc_host_syncs;

unsigned long fakecuda_host_syncs(void) { return atomic_load(&fc_host_syncs); }

static int fc_stream_ok(CUstream s) {
  return s == NULL || s->magic == FC_STREAM_MAGIC; /* NULL: default stream */
}

/* Tasks that hold their stream until the host does something (what
 * cuIpcCloseMemHandle's wait reports). */
static void fc_value_wait_run(void *arg);
static void fc_host_fn_run(void *arg);

static const char *fc_task_holds(const fc_task_t *t) {
  if (t->fn == fc_value_wait_run)
    return "a value wait";
  return t->fn == fc_host_fn_run ? "a host function" : NULL;
}

/* A task's wait for work queued before it on other streams: open once each
 * of `pending` signal tasks, queued behind that work, ran.  Guarded by
 * fc_fence_mu; freed by whichever of the waiter and the signals goes last. */
struct fc_fence {
  int pending;
  int refs;
};
static pthread_mutex_t fc_fence_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fc_fence_cv = PTHREAD_COND_INITIALIZER;

static void fc_fence_drop_locked(fc_fence_t *f) {
  if (--f->refs == 0)
    free(f);
}

static void fc_fence_signal(void *arg) {
  fc_fence_t *f = arg;
  pthread_mutex_lock(&fc_fence_mu);
  f->pending--;
  pthread_cond_broadcast(&fc_fence_cv);
  fc_fence_drop_locked(f);
  pthread_mutex_unlock(&fc_fence_mu);
}

static void fc_fence_pass(fc_fence_t *f) {
  pthread_mutex_lock(&fc_fence_mu);
  while (f->pending > 0)
    pthread_cond_wait(&fc_fence_cv, &fc_fence_mu);
  fc_fence_drop_locked(f);
  pthread_mutex_unlock(&fc_fence_mu);
}

static void *fc_stream_main(void *arg) {
  CUstream s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (s->head == NULL && !s->stop)
      pthread_cond_wait(&s->cv, &s->mu);
    if (s->head == NULL)
      break;
    fc_task_t *t = s->head;
    s->head = t->next;
    if (s->head == NULL)
      s->tail = NULL;
    s->running = 1;
    s->holding = fc_task_holds(t);
    s->hold_since = fc_now();
    pthread_mutex_unlock(&s->mu);
    if (t->after != NULL)
      fc_fence_pass(t->after);
    t->fn(t->arg);
    free(t);
    pthread_mutex_lock(&s->mu);
    s->running = 0;
    s->holding = NULL;
    pthread_cond_broadcast(&s->cv);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

static void fc_queue(CUstream s, fc_task_t *t) {
  pthread_mutex_lock(&s->mu);
  if (s->tail != NULL)
    s->tail->next = t;
  else
    s->head = t;
  s->tail = t;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

static int fc_stream_busy(CUstream s) {
  pthread_mutex_lock(&s->mu);
  int busy = s->head != NULL || s->running;
  pthread_mutex_unlock(&s->mu);
  return busy;
}

/* The legacy stream's implicit ordering, for work about to be queued on
 * the blocking stream s: the fence it must pass first, signalled behind
 * the work queued so far on the legacy stream (s blocking) or on every
 * blocking stream (s the legacy one); NULL when none has work queued. */
static fc_fence_t *fc_order_after(CUstream s) {
  fc_fence_t *f = fc_alloc_or_die(sizeof *f);
  f->refs = 1;
  pthread_mutex_lock(&fc.lock);
  for (CUstream o = fc.streams; o != NULL; o = o->next_of_all) {
    if (o == s || o->device != s->device || !o->blocking ||
        !(s->legacy || o->legacy) || !fc_stream_busy(o))
      continue;
    fc_task_t *signal = fc_alloc_or_die(sizeof *signal);
    signal->fn = fc_fence_signal;
    signal->arg = f;
    pthread_mutex_lock(&fc_fence_mu);
    f->pending++;
    f->refs++;
    pthread_mutex_unlock(&fc_fence_mu);
    fc_queue(o, signal);
  }
  pthread_mutex_unlock(&fc.lock);
  pthread_mutex_lock(&fc_fence_mu);
  int waits = f->pending > 0; /* else every signal ran and dropped f */
  if (!waits)
    free(f);
  pthread_mutex_unlock(&fc_fence_mu);
  return waits ? f : NULL;
}

/* A stream of device with its worker, linked into fc.streams.  Caller
 * holds fc.lock. */
static CUresult fc_stream_new_locked(int device, int blocking, int legacy,
                                     CUstream *out) {
  CUstream s = calloc(1, sizeof *s);
  if (s == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  s->magic = FC_STREAM_MAGIC;
  s->device = device;
  s->blocking = blocking;
  s->legacy = legacy;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  if (pthread_create(&s->worker, NULL, fc_stream_main, s) != 0) {
    free(s);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  s->next_of_all = fc.streams;
  fc.streams = s;
  *out = s;
  return CUDA_SUCCESS;
}

/* The current context's legacy stream (created at first use, kept for the
 * process's life); needs a current context. */
static CUresult fc_legacy(CUstream *out) {
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  int device = fc_current->device;
  pthread_mutex_lock(&fc.lock);
  if (fc.legacy[device] == NULL)
    rc = fc_stream_new_locked(device, 1, 1, &fc.legacy[device]);
  *out = fc.legacy[device];
  pthread_mutex_unlock(&fc.lock);
  return rc;
}

/* Queues fn(arg) on s (NULL: the legacy stream), behind what the legacy
 * stream's ordering asks it to wait for. */
static CUresult fc_stream_push(CUstream s, void (*fn)(void *arg), void *arg) {
  if (s == NULL) {
    CUresult rc = fc_legacy(&s);
    if (rc != CUDA_SUCCESS)
      return rc;
  }
  fc_task_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  t->fn = fn;
  t->arg = arg;
  if (s->blocking)
    t->after = fc_order_after(s);
  fc_queue(s, t);
  return CUDA_SUCCESS;
}

static void fc_stream_drain(CUstream s) {
  pthread_mutex_lock(&s->mu);
  while (s->head != NULL || s->running)
    pthread_cond_wait(&s->cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
}

static void fc_nothing(void *arg) { (void)arg; }

/* The current context's legacy stream drained, if it has one. */
static void fc_legacy_drain(void) {
  pthread_mutex_lock(&fc.lock);
  CUstream legacy = fc.legacy[fc_current->device];
  pthread_mutex_unlock(&fc.lock);
  if (legacy != NULL)
    fc_stream_drain(legacy);
}

/* The host's wait for the legacy stream: a marker queued there (so it
 * waits for the blocking streams' earlier work too), then its drain. */
static CUresult fc_legacy_sync(void) {
  CUstream legacy;
  CUresult rc = fc_legacy(&legacy);
  if (rc == CUDA_SUCCESS)
    rc = fc_stream_push(legacy, fc_nothing, NULL);
  if (rc == CUDA_SUCCESS)
    fc_stream_drain(legacy);
  return rc;
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  fc_enter();
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (phStream == NULL || (Flags & ~FC_STREAM_FLAGS) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&fc.lock);
  rc = fc_stream_new_locked(fc_current->device,
                            (Flags & CU_STREAM_NON_BLOCKING) == 0, 0, phStream);
  pthread_mutex_unlock(&fc.lock);
  return rc;
}

/* As the driver's: work still queued completes before the stream goes.
 * Unlinked first, so that no fence signal is queued on it after its
 * worker stopped. */
CUresult cuStreamDestroy_v2(CUstream hStream) {
  fc_enter();
  if (hStream == NULL || hStream->magic != FC_STREAM_MAGIC || hStream->legacy)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&fc.lock);
  for (CUstream *l = &fc.streams; *l != NULL; l = &(*l)->next_of_all)
    if (*l == hStream) {
      *l = hStream->next_of_all;
      break;
    }
  pthread_mutex_unlock(&fc.lock);
  pthread_mutex_lock(&hStream->mu);
  hStream->stop = 1;
  pthread_cond_broadcast(&hStream->cv);
  pthread_mutex_unlock(&hStream->mu);
  pthread_join(hStream->worker, NULL);
  hStream->magic = 0;
  pthread_mutex_destroy(&hStream->mu);
  pthread_cond_destroy(&hStream->cv);
  free(hStream);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream hStream) {
  fc_enter();
  if (!fc_stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  atomic_fetch_add(&fc_host_syncs, 1);
  if (hStream == NULL)
    return fc_legacy_sync();
  fc_stream_drain(hStream);
  return CUDA_SUCCESS;
}

/* Every stream of the current context, legacy stream included, drained. */
CUresult cuCtxSynchronize(void) {
  fc_enter();
  atomic_fetch_add(&fc_host_syncs, 1);
  CUresult rc = fc_legacy_sync();
  if (rc != CUDA_SUCCESS)
    return rc;
  for (;;) {
    CUstream busy = NULL;
    pthread_mutex_lock(&fc.lock);
    for (CUstream s = fc.streams; s != NULL && busy == NULL;
         s = s->next_of_all)
      if (s->device == fc_current->device && fc_stream_busy(s))
        busy = s;
    pthread_mutex_unlock(&fc.lock);
    if (busy == NULL)
      return CUDA_SUCCESS;
    fc_sleep_s(100e-6); /* a stream destroyed meanwhile must not be waited */
  }
}

/* ---- copies ----------------------------------------------------------- */

enum { FC_SIDE_ANY = 0, FC_SIDE_HOST = 1, FC_SIDE_DEVICE = 2 };

/* How long legacy-stream writes to device memory lag the call that queued
 * them: long enough that a reader not synchronised with the legacy stream
 * (another process through IPC, another stream) sees the old bytes. */
#define FC_LEGACY_LAG_S 0.002

/* Where the double reaches [p, p+n): a device range through its shadow
 * (wholly inside one allocation), host memory as is.  NULL for a range in
 * the device reservation that no allocation covers, a range crossing an
 * allocation's end, or a side of the wrong kind.  Caller holds fc.lock. */
static unsigned char *fc_reach(CUdeviceptr p, size_t n, int want) {
  uintptr_t a0 = (uintptr_t)p;
  if (!fc_in_reservation(a0))
    return want == FC_SIDE_DEVICE || p == 0 ? NULL : (unsigned char *)a0;
  if (want == FC_SIDE_HOST)
    return NULL;
  fc_alloc_t *a = fc_find(a0);
  if (a == NULL || n > a->size - (a0 - a->dev))
    return NULL;
  return a->shadow + (a0 - a->dev);
}

typedef struct fc_copy_task {
  unsigned char *dst;
  const unsigned char *src;
  size_t n;
  unsigned char *staged; /* the pageable source as it was at the call */
  double not_before;     /* fc_now() before which it does not run */
} fc_copy_task_t;

static void fc_copy_run(void *arg) {
  fc_copy_task_t *c = arg;
  double lag = c->not_before - fc_now();
  if (lag > 0)
    fc_sleep_s(lag);
  memmove(c->dst, c->src, c->n);
  free(c->staged);
  free(c);
}

/* The checked copy of n bytes from src to dst, sides as asked; NULL when
 * a side is refused. */
static fc_copy_task_t *fc_copy_task(CUdeviceptr dst, int dst_side,
                                    CUdeviceptr src, int src_side, size_t n) {
  fc_copy_task_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  pthread_mutex_lock(&fc.lock);
  c->dst = fc_reach(dst, n, dst_side);
  c->src = fc_reach(src, n, src_side);
  pthread_mutex_unlock(&fc.lock);
  c->n = n;
  if (c->dst == NULL || c->src == NULL) {
    free(c);
    return NULL;
  }
  return c;
}

/* cuMemcpy and its typed forms run on the legacy stream, returning as the
 * driver's "API synchronization behavior" says: to device memory from
 * device memory at once (the copy runs later), from pageable host memory
 * once the source is staged (snapshot here; the write lands later); from
 * pinned memory, and anything to host memory, complete. */
static CUresult fc_copy(CUdeviceptr dst, int dst_side, CUdeviceptr src,
                        int src_side, size_t n) {
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS || n == 0)
    return rc;
  fc_copy_task_t *c = fc_copy_task(dst, dst_side, src, src_side, n);
  if (c == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&fc.lock);
  int to_device = fc_in_reservation((uintptr_t)dst);
  int from_device = fc_in_reservation((uintptr_t)src);
  int from_pinned = fc_find_pinned((uintptr_t)src) != NULL;
  pthread_mutex_unlock(&fc.lock);
  int returns_early = to_device && !from_pinned;
  if (to_device && !from_device && !from_pinned) {
    c->staged = malloc(n);
    if (c->staged == NULL) {
      free(c);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(c->staged, c->src, n);
    c->src = c->staged;
  }
  if (returns_early)
    c->not_before = fc_now() + FC_LEGACY_LAG_S;
  rc = fc_stream_push(NULL, fc_copy_run, c);
  if (rc != CUDA_SUCCESS) {
    free(c->staged);
    free(c);
    return rc;
  }
  return returns_early ? CUDA_SUCCESS : fc_legacy_sync();
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  fc_enter();
  return fc_copy(dst, FC_SIDE_ANY, src, FC_SIDE_ANY, ByteCount);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost,
                         size_t ByteCount) {
  fc_enter();
  return fc_copy(dstDevice, FC_SIDE_DEVICE, (CUdeviceptr)(uintptr_t)srcHost,
                 FC_SIDE_HOST, ByteCount);
}

CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice,
                         size_t ByteCount) {
  fc_enter();
  return fc_copy((CUdeviceptr)(uintptr_t)dstHost, FC_SIDE_HOST, srcDevice,
                 FC_SIDE_DEVICE, ByteCount);
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                         size_t ByteCount) {
  fc_enter();
  return fc_copy(dstDevice, FC_SIDE_DEVICE, srcDevice, FC_SIDE_DEVICE,
                 ByteCount);
}

/* FAKE_CUDA_ASYNC_LAG_US=n: a copy queued on a stream runs no earlier
 * than n microseconds after the call (default 0), so that a caller which
 * forgot to wait for it sees the old bytes. */
static double fc_async_lag_s(void) {
  static _Atomic double lag = -1;
  double v = atomic_load(&lag);
  if (v < 0) {
    const char *s = getenv("FAKE_CUDA_ASYNC_LAG_US");
    v = s != NULL && atol(s) > 0 ? (double)atol(s) * 1e-6 : 0;
    atomic_store(&lag, v);
  }
  return v;
}

/* Checked at the call, copied when the stream gets there. */
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                       CUstream hStream) {
  fc_enter();
  if (!fc_stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS || ByteCount == 0)
    return rc;
  fc_copy_task_t *c =
      fc_copy_task(dst, FC_SIDE_ANY, src, FC_SIDE_ANY, ByteCount);
  if (c == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (fc_async_lag_s() > 0)
    c->not_before = fc_now() + fc_async_lag_s();
  rc = fc_stream_push(hStream, fc_copy_run, c);
  if (rc != CUDA_SUCCESS)
    free(c);
  return rc;
}

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  fc_enter();
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (phEvent == NULL || (Flags & ~FC_EVENT_FLAGS) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  CUevent e = calloc(1, sizeof *e);
  if (e == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  e->magic = FC_EVENT_MAGIC;
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  *phEvent = e;
  return CUDA_SUCCESS;
}

typedef struct fc_record {
  CUevent event;
  unsigned long ticket;
} fc_record_t;

static void fc_record_run(void *arg) {
  fc_record_t *r = arg;
  pthread_mutex_lock(&r->event->mu);
  if (r->ticket > r->event->reached)
    r->event->reached = r->ticket;
  pthread_cond_broadcast(&r->event->cv);
  pthread_mutex_unlock(&r->event->mu);
  free(r);
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  fc_enter();
  if (hEvent == NULL || hEvent->magic != FC_EVENT_MAGIC ||
      !fc_stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  fc_record_t *r = calloc(1, sizeof *r);
  if (r == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  r->event = hEvent;
  pthread_mutex_lock(&hEvent->mu);
  r->ticket = ++hEvent->recorded;
  pthread_mutex_unlock(&hEvent->mu);
  CUresult rc = fc_stream_push(hStream, fc_record_run, r);
  if (rc != CUDA_SUCCESS)
    free(r);
  return rc;
}

/* A never-recorded event counts as complete, as the driver's does. */
CUresult cuEventQuery(CUevent hEvent) {
  fc_enter();
  if (hEvent == NULL || hEvent->magic != FC_EVENT_MAGIC)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&hEvent->mu);
  int done = hEvent->reached >= hEvent->recorded;
  pthread_mutex_unlock(&hEvent->mu);
  return done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

static void fc_event_wait(CUevent e) {
  pthread_mutex_lock(&e->mu);
  while (e->reached < e->recorded)
    pthread_cond_wait(&e->cv, &e->mu);
  pthread_mutex_unlock(&e->mu);
}

CUresult cuEventSynchronize(CUevent hEvent) {
  fc_enter();
  if (hEvent == NULL || hEvent->magic != FC_EVENT_MAGIC)
    return CUDA_ERROR_INVALID_HANDLE;
  atomic_fetch_add(&fc_host_syncs, 1);
  fc_event_wait(hEvent);
  return CUDA_SUCCESS;
}

/* A record still queued would touch freed memory: it is waited out. */
CUresult cuEventDestroy_v2(CUevent hEvent) {
  fc_enter();
  if (hEvent == NULL || hEvent->magic != FC_EVENT_MAGIC)
    return CUDA_ERROR_INVALID_HANDLE;
  fc_event_wait(hEvent);
  hEvent->magic = 0;
  pthread_mutex_destroy(&hEvent->mu);
  pthread_cond_destroy(&hEvent->cv);
  free(hEvent);
  return CUDA_SUCCESS;
}

/* Host functions running now, and stream waits on a value holding their
 * stream now (fakecuda_host_fns_running, fakecuda_value_waits_holding). */
static atomic_int fc_host_fns_running, fc_value_waits_holding;

int fakecuda_host_fns_running(void) {
  return atomic_load(&fc_host_fns_running);
}

int fakecuda_value_waits_holding(void) {
  return atomic_load(&fc_value_waits_holding);
}

typedef struct fc_host_fn {
  CUhostFn fn;
  void *arg;
} fc_host_fn_t;

static void fc_host_fn_run(void *arg) {
  fc_host_fn_t h = *(fc_host_fn_t *)arg;
  free(arg);
  atomic_fetch_add(&fc_host_fns_running, 1);
  h.fn(h.arg);
  atomic_fetch_sub(&fc_host_fns_running, 1);
}

/* Host functions run on the stream's worker, which waits for them. */
CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData) {
  fc_enter();
  if (!fc_stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  if (fn == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  fc_host_fn_t *h = malloc(sizeof *h);
  if (h == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  h->fn = fn;
  h->arg = userData;
  CUresult rc = fc_stream_push(hStream, fc_host_fn_run, h);
  if (rc != CUDA_SUCCESS)
    free(h);
  return rc;
}

/* ---- stream memory operations: waits on a 32-bit value ------------------ */

/* The device address of mapped pinned memory: under unified addressing
 * the host address itself.  Memory allocated without DEVICEMAP, or not by
 * cuMemHostAlloc: CUDA_ERROR_INVALID_VALUE. */
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p,
                                      unsigned int Flags) {
  fc_enter();
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (pdptr == NULL || Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&fc.lock);
  const fc_pinned_t *h = fc_find_pinned((uintptr_t)p);
  int mapped = h != NULL && (h->flags & FC_HOSTALLOC_DEVICEMAP) != 0;
  pthread_mutex_unlock(&fc.lock);
  if (!mapped)
    return CUDA_ERROR_INVALID_VALUE;
  *pdptr = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}

typedef struct fc_value_wait {
  _Atomic uint32_t *word; /* the double's reach of the address */
  uint32_t value;
  unsigned kind;
} fc_value_wait_t;

static int fc_value_reached(uint32_t v, const fc_value_wait_t *w) {
  switch (w->kind) {
  case CU_STREAM_WAIT_VALUE_GEQ:
    return (int32_t)(v - w->value) >= 0;
  case CU_STREAM_WAIT_VALUE_EQ:
    return v == w->value;
  case CU_STREAM_WAIT_VALUE_AND:
    return (v & w->value) != 0;
  default: /* CU_STREAM_WAIT_VALUE_NOR */
    return ~(v | w->value) != 0;
  }
}

/* The stream's worker polls the word, as the device's front end does:
 * the host sets it with a plain store, which the double cannot see. */
static void fc_value_wait_run(void *arg) {
  fc_value_wait_t *w = arg;
  atomic_fetch_add(&fc_value_waits_holding, 1);
  while (!fc_value_reached(atomic_load(w->word), w)) {
    struct timespec ts = {0, 20 * 1000};
    nanosleep(&ts, NULL);
  }
  atomic_fetch_sub(&fc_value_waits_holding, 1);
  free(w);
}

/* addr: device memory, or pinned host memory mapped with DEVICEMAP (its
 * device address), 4-byte aligned. */
CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr,
                                uint32_t value, unsigned int flags) {
  fc_enter();
  if (!fc_stream_ok(stream))
    return CUDA_ERROR_INVALID_HANDLE;
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  unsigned kind = flags & ~CU_STREAM_WAIT_VALUE_FLUSH;
  if (kind > CU_STREAM_WAIT_VALUE_NOR || addr % 4 != 0)
    return CUDA_ERROR_INVALID_VALUE;
  fc_value_wait_t *w = calloc(1, sizeof *w);
  if (w == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  pthread_mutex_lock(&fc.lock);
  const fc_pinned_t *h = fc_find_pinned((uintptr_t)addr);
  if (h != NULL && (h->flags & FC_HOSTALLOC_DEVICEMAP) != 0 &&
      (uintptr_t)addr + 4 <= (uintptr_t)h->base + h->size)
    w->word = (_Atomic uint32_t *)(uintptr_t)addr;
  else if (h == NULL)
    w->word = (_Atomic uint32_t *)fc_reach(addr, 4, FC_SIDE_DEVICE);
  pthread_mutex_unlock(&fc.lock);
  if (w->word == NULL) {
    free(w);
    return CUDA_ERROR_INVALID_VALUE;
  }
  w->value = value;
  w->kind = kind;
  rc = fc_stream_push(stream, fc_value_wait_run, w);
  if (rc != CUDA_SUCCESS)
    free(w);
  return rc;
}

/* ---- "kernels" (test hook) ---------------------------------------------- */

typedef struct fc_kernel {
  unsigned char *dst;
  const unsigned char *src;
  size_t n;
  int32_t add;
  unsigned delay_us;
} fc_kernel_t;

static void fc_kernel_run(void *arg) {
  fc_kernel_t *k = arg;
  if (k->delay_us > 0)
    usleep(k->delay_us); /* a slow kernel: later work must still wait */
  for (size_t i = 0; i < k->n; i++) {
    int32_t v;
    memcpy(&v, k->src + i * sizeof v, sizeof v);
    v += k->add;
    memcpy(k->dst + i * sizeof v, &v, sizeof v);
  }
  free(k);
}

CUresult fakecuda_launch_add(CUstream hStream, CUdeviceptr dst, CUdeviceptr src,
                             size_t n, int32_t add, unsigned delay_us) {
  fc_enter();
  if (!fc_stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  fc_kernel_t *k = calloc(1, sizeof *k);
  if (k == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  pthread_mutex_lock(&fc.lock);
  k->dst = fc_reach(dst, n * sizeof(int32_t), FC_SIDE_DEVICE);
  k->src = fc_reach(src, n * sizeof(int32_t), FC_SIDE_DEVICE);
  pthread_mutex_unlock(&fc.lock);
  k->n = n;
  k->add = add;
  k->delay_us = delay_us;
  CUresult rc = k->dst != NULL && k->src != NULL
                    ? fc_stream_push(hStream, fc_kernel_run, k)
                    : CUDA_ERROR_INVALID_VALUE;
  if (rc != CUDA_SUCCESS)
    free(k);
  return rc;
}

/* ---- IPC -------------------------------------------------------------- */

CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr) {
  fc_enter();
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (pHandle == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&fc.lock);
  const fc_alloc_t *a = fc_find((uintptr_t)dptr);
  fc_ipc_wire_t w = {0};
  if (a != NULL && !a->imported)
    w = (fc_ipc_wire_t){FC_IPC_MAGIC, (int32_t)getpid(), a->fd,       a->device,
                        a->size,      a->map_size,       a->buffer_id};
  pthread_mutex_unlock(&fc.lock);
  if (w.magic == 0)
    return CUDA_ERROR_INVALID_VALUE;
  memset(pHandle, 0, sizeof *pHandle);
  memcpy(pHandle->reserved, &w, sizeof w);
  return CUDA_SUCCESS;
}

/* Caller holds fc.lock: an import of the same export already open. */
static fc_alloc_t *fc_find_import(const fc_ipc_wire_t *w) {
  for (fc_alloc_t *a = fc.allocs; a != NULL; a = a->next)
    if (a->imported && a->src_pid == w->pid && a->src_fd == w->fd &&
        a->src_id == w->buffer_id)
      return a;
  return NULL;
}

static CUresult fc_import_locked(const fc_ipc_wire_t *w, fc_alloc_t **out) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)w->pid, (int)w->fd);
  fc_alloc_t *a = calloc(1, sizeof *a);
  if (a == NULL)
    return CUDA_ERROR_OUT_OF_MEMORY;
  a->fd = open(path, O_RDWR | O_CLOEXEC);
  if (a->fd < 0) {
    free(a);
    return CUDA_ERROR_INVALID_VALUE; /* the exporter or its memory is gone */
  }
  a->size = w->size;
  a->map_size = w->map_size;
  a->device = w->device;
  CUresult rc = fc_map_locked(a);
  close(a->fd); /* the mapping keeps the bytes */
  a->fd = -1;
  if (rc != CUDA_SUCCESS) {
    free(a);
    return rc;
  }
  a->imported = 1;
  a->src_pid = w->pid;
  a->src_fd = w->fd;
  a->src_id = w->buffer_id;
  *out = a;
  return CUDA_SUCCESS;
}

/* A handle from the calling process itself is refused, as the driver
 * refuses it; opening one export twice shares the mapping. */
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle,
                               unsigned int Flags) {
  fc_enter();
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  fc_ipc_wire_t w;
  memcpy(&w, handle.reserved, sizeof w);
  if (pdptr == NULL || w.magic != FC_IPC_MAGIC ||
      (Flags & ~FC_IPC_OPEN_FLAGS) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (w.pid == (int32_t)getpid())
    return CUDA_ERROR_INVALID_CONTEXT;
  pthread_mutex_lock(&fc.lock);
  fc_alloc_t *a = fc_find_import(&w);
  if (a != NULL)
    a->imported++;
  else
    rc = fc_import_locked(&w, &a);
  if (rc == CUDA_SUCCESS)
    *pdptr = a->dev;
  pthread_mutex_unlock(&fc.lock);
  return rc;
}

static atomic_int fc_closes_waiting; /* fakecuda_closes_waiting */

int fakecuda_closes_waiting(void) { return atomic_load(&fc_closes_waiting); }

/* How long cuIpcCloseMemHandle lets a stream of its context stay held on
 * the host (a value wait, a host function) before it calls the hang. */
#define FC_CLOSE_HOLD_LIMIT_S 5.0

/* Waits until every stream of device, its legacy stream included, has
 * drained.  A stream held on the host that long, while every other thread's
 * driver calls wait for this close, is a hang on a real driver: it is
 * reported and the process aborted, rather than left to a harness
 * timeout.  Caller holds fc_driver_lock exclusive, so no stream comes or
 * goes meanwhile. */
static void fc_close_wait(int device) {
  double start = fc_now();
  for (;;) {
    int busy = 0;
    pthread_mutex_lock(&fc.lock);
    for (CUstream s = fc.streams; s != NULL; s = s->next_of_all) {
      if (s->device != device)
        continue;
      pthread_mutex_lock(&s->mu);
      busy |= s->head != NULL || s->running;
      const char *held = s->holding;
      double since = s->hold_since > start ? s->hold_since : start;
      pthread_mutex_unlock(&s->mu);
      if (held != NULL && fc_now() - since > FC_CLOSE_HOLD_LIMIT_S) {
        char name[32];
        if (s->legacy)
          snprintf(name, sizeof name, "NULL (legacy)");
        else
          snprintf(name, sizeof name, "%p", (void *)s);
        fprintf(stderr,
                "fake-cuda: cuIpcCloseMemHandle waits for stream %s held on "
                "%s: a real driver would hang here (held %.0f s while the "
                "close blocks every other driver call)\n",
                name, held, FC_CLOSE_HOLD_LIMIT_S);
        abort();
      }
    }
    pthread_mutex_unlock(&fc.lock);
    if (!busy)
      return;
    fc_sleep_s(200e-6);
  }
}

/* As the driver's: waits for all work queued on the context, holding the
 * driver's lock (fc_driver_lock) meanwhile. */
CUresult cuIpcCloseMemHandle(CUdeviceptr dptr) {
  fc_enter();
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  pthread_rwlock_wrlock(&fc_driver_lock);
  fc_closing_here = 1;
  atomic_fetch_add(&fc_closes_waiting, 1);
  fc_close_wait(fc_current->device);
  atomic_fetch_sub(&fc_closes_waiting, 1);
  rc = fc_release(dptr, 1);
  fc_closing_here = 0;
  pthread_rwlock_unlock(&fc_driver_lock);
  return rc;
}

/* ---- dma-buf ---------------------------------------------------------- */

/* The driver wants dptr and size aligned to the host page size, flags 0
 * and a range of one allocation.  The double's "dma-buf" is a dup of the
 * allocation's memfd, whose offset 0 is the allocation's base: so it can
 * stand in only for ranges that start there (others: NOT_SUPPORTED, a
 * limit of the double, not of the driver), and not for imports. */
CUresult cuMemGetHandleForAddressRange(void *handle, CUdeviceptr dptr,
                                       size_t size, int handleType,
                                       unsigned long long flags) {
  fc_enter();
  const char *off = getenv("FAKE_CUDA_NO_DMABUF");
  if (off != NULL && off[0] == '1')
    return CUDA_ERROR_NOT_SUPPORTED;
  CUresult rc = fc_need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  size_t pg = fc_page();
  if (handle == NULL || handleType != CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD ||
      flags != 0 || size == 0 || dptr % pg != 0 || size % pg != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&fc.lock);
  const fc_alloc_t *a = fc_find((uintptr_t)dptr);
  int fd = -1;
  if (a == NULL || size > a->map_size - (dptr - a->dev))
    rc = CUDA_ERROR_INVALID_VALUE;
  else if (a->imported || dptr != a->dev)
    rc = CUDA_ERROR_NOT_SUPPORTED;
  else if ((fd = fcntl(a->fd, F_DUPFD_CLOEXEC, 0)) < 0)
    rc = CUDA_ERROR_OUT_OF_MEMORY;
  pthread_mutex_unlock(&fc.lock);
  if (rc == CUDA_SUCCESS)
    *(int *)handle = fd;
  return rc;
}

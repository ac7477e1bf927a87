/*
 * Device layer: what memory a pointer is, and how to move bytes in and out
 * of it.  One ops table per memory kind (host, acl, cuda), indexed by
 * hc_mem_kind_t; host is a real entry, vendor runtimes are dlopen()ed at
 * first use so one build runs everywhere.  The engine never dereferences a
 * pointer this layer classified as device memory: every byte goes through
 * these ops.
 *
 * Threading: the hc_device_* functions take the layer's own lock where they
 * touch shared state (the classification and IPC caches); ops themselves may
 * be called from any thread (backends bind the calling thread to the device
 * they need, e.g. aclrtSetDevice, before a runtime call).
 */
#ifndef HC_DEVICE_H
#define HC_DEVICE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hcomm_status.h"

typedef enum hc_mem_kind {
  HC_MEM_HOST = 0,
  HC_MEM_ACL = 1,  /* Ascend NPU memory (libascendcl) */
  HC_MEM_CUDA = 2, /* NVIDIA GPU memory (libcuda) */
  HC_MEM_KINDS = 3
} hc_mem_kind_t;

typedef enum hc_copy_dir {
  HC_COPY_H2H = 0,
  HC_COPY_H2D = 1,
  HC_COPY_D2H = 2,
  HC_COPY_D2D = 3
} hc_copy_dir_t;

/* What a classification found.  base/size describe the whole allocation
 * when the runtime can tell (size 0 otherwise). */
typedef struct hc_mem_info {
  hc_mem_kind_t kind;
  int device; /* device ordinal; -1 for host memory */
  uintptr_t base;
  size_t size;
  /* What tells this allocation from a later one at the same address
   * (hc_device_ops_t.classify's alloc_id; 0 when the runtime cannot
   * tell, and for host memory). */
  uint64_t alloc_id;
} hc_mem_info_t;

/* An exported device allocation, sent to a peer on the same node as is.
 * data holds the runtime's key (ACL: a 65-byte string; CUDA: 64 bytes). */
#define HC_IPC_HANDLE_BYTES 72
typedef struct hc_ipc_handle {
  uint32_t kind; /* hc_mem_kind_t of the exporter */
  int32_t device;
  uint64_t size; /* bytes exported from the allocation base */
  unsigned char data[HC_IPC_HANDLE_BYTES];
} hc_ipc_handle_t;

/*
 * A backend.  Unless stated otherwise, ops return HC_OK or a negative
 * hc_status_t, may block for the duration of the runtime call, and never
 * take ownership of the caller's buffers.  Ops a backend lacks point at the
 * hc_device_*_not_supported functions below, never NULL.
 */
/* hc_device_ops_t.flags: memory from ipc_import takes synchronous copies
 * to and from host memory (copy, HC_COPY_H2D/D2H), as CUDA's does.
 * Without it only copy_async device-to-device may touch an import (ACL:
 * no host copies of another process's memory). */
#define HC_DEVICE_IMPORT_HOST_COPIES 0x1u
/* ipc_close waits for all work queued on the device, a stream held on a
 * stream flag included, and blocks the runtime's other calls meanwhile
 * (CUDA's cuIpcCloseMemHandle, seen on an H200): an import must not close
 * while an application stream waits for an enqueued operation, so such
 * operations stage rather than go to the engine's device paths
 * (HCMPI_STREAM_DIRECT=auto). */
#define HC_DEVICE_CLOSE_WAITS 0x2u

typedef struct hc_device_ops {
  const char *name;
  hc_mem_kind_t kind;
  unsigned flags; /* HC_DEVICE_* */
  /* Loads the runtime.  HC_ERR_NOT_SUPPORTED (quietly: why, len bytes,
   * says what was missing, for the layer's one log line) when it is
   * absent; fini is then still safe to call. */
  hc_status_t (*init)(char *why, size_t len);
  /* Releases streams, events and the runtime; safe after a failed init. */
  void (*fini)(void);
  /* 1 and *info filled when ptr lies in memory of this runtime's devices;
   * 0 for anything else (host memory, unknown pointers, runtime errors).
   * *alloc_id: what tells this allocation from a later one at the same
   * address where the runtime can tell (CUDA's buffer id), else 0. */
  int (*classify)(const void *ptr, hc_mem_info_t *info, uint64_t *alloc_id);
  /* Cheap re-check of a cached classification, once per message: 1 when
   * the allocation holding ptr is still [info->base, +info->size) with
   * alloc_id, 0 when it was freed or replaced (the cache entry and any
   * export of it are then dropped). */
  int (*still_valid)(const void *ptr, const hc_mem_info_t *info,
                     uint64_t alloc_id);
  /* Synchronous copy of len bytes; device is the ordinal the device side
   * belongs to (the calling thread is bound to it first). */
  hc_status_t (*copy)(void *dst, const void *src, size_t len, hc_copy_dir_t dir,
                      int device);
  /* A stream on device; *stream owned by the caller until stream_destroy. */
  hc_status_t (*stream_create)(int device, void **stream);
  void (*stream_destroy)(void *stream);
  /* Queues a copy on stream and returns at once; src and dst must stay
   * valid until an event recorded after it completes.  Host sides should
   * be staging buffers from host_alloc (pageable memory may make the copy
   * synchronous). */
  hc_status_t (*copy_async)(void *dst, const void *src, size_t len,
                            hc_copy_dir_t dir, void *stream);
  hc_status_t (*event_create)(void **event);
  /* Marks the point in stream's queue that event_query waits for. */
  hc_status_t (*event_record)(void *event, void *stream);
  /* HC_OK when the recorded work finished, HC_ERR_AGAIN when not yet,
   * another error when the queued work failed.  Never blocks. */
  hc_status_t (*event_query)(void *event);
  void (*event_destroy)(void *event);
  /* len bytes of device memory on device (-1: the device the application
   * made current on the calling thread, else 0), for the engine's own
   * staging and for windows MPI allocates (*ptr owned by the caller until
   * dev_free).  HC_ERR_NOT_SUPPORTED where the backend offers none. */
  hc_status_t (*dev_alloc)(size_t len, int device, void **ptr);
  void (*dev_free)(void *ptr);
  /* Page-locked host memory usable by copy_async at full speed. */
  hc_status_t (*host_alloc)(size_t len, void **ptr);
  void (*host_free)(void *ptr);
  /* Exports [base, base+size) of one allocation (base page-aligned: pass
   * the allocation base from classify) for any process on this node. */
  hc_status_t (*ipc_export)(void *base, size_t size, int device,
                            hc_ipc_handle_t *handle);
  /* Exporter side: withdraws the export.  Every importer must have closed
   * it first (HC_ERR_AGAIN while one has not). */
  hc_status_t (*ipc_unexport)(const hc_ipc_handle_t *handle);
  /* Maps a peer's export into this process; *ptr is device memory usable
   * by copy_async (HC_COPY_D2D), and by copy from and to the host where
   * flags has HC_DEVICE_IMPORT_HOST_COPIES. */
  hc_status_t (*ipc_import)(const hc_ipc_handle_t *handle, void **ptr);
  /* Importer side: unmaps what ipc_import returned. */
  hc_status_t (*ipc_close)(const hc_ipc_handle_t *handle, void *ptr);
  /* Exports [base, base+size) of one allocation (both page-aligned) as a
   * dma-buf, for an RDMA device to register (ibv_reg_dmabuf_mr): *fd is
   * a new descriptor the caller closes once it registered it, *offset
   * where base lies in it.  HC_ERR_NOT_SUPPORTED where the runtime or its
   * driver cannot (quietly: the caller stages). */
  hc_status_t (*dmabuf_export)(void *base, size_t size, int device, int *fd,
                               uint64_t *offset);
  /* Wraps an application's stream (aclrtStream, CUstream) of the device
   * the calling thread is bound to (0 when none), for copy_async,
   * event_record and launch_host_fn.  stream_destroy of the wrapper
   * forgets it and leaves the application's stream alone.
   * HC_ERR_NOT_SUPPORTED for a backend without streams. */
  hc_status_t (*stream_adopt)(void *app_stream, void **stream);
  /* Queues fn(arg) on stream: it runs on a host thread once the work
   * queued before it finished, and the work queued after it waits until
   * fn returned.  fn may block (on messages) but must not call the
   * runtime.  HC_ERR_NOT_SUPPORTED where the runtime cannot (quietly). */
  hc_status_t (*launch_host_fn)(void *stream, void (*fn)(void *arg), void *arg);
  /* A stream flag: a counter, 0 at first, that work queued on streams of
   * this backend can wait for (flag_wait) and host threads raise
   * (flag_set), so a stream holds later work until the host says an
   * operation completed without a host function blocking it meanwhile.
   * The flag lives on stream's device (a stream_create or stream_adopt
   * wrapper).  HC_ERR_NOT_SUPPORTED (quietly) where the runtime has no
   * stream waits on memory values. */
  hc_status_t (*flag_create)(void *stream, void **flag);
  /* Frees a flag no queued wait still reads; may wait for the backend's
   * own writes of it to land. */
  void (*flag_destroy)(void *flag);
  /* Queues on stream a wait that ends once the flag reached value (in
   * wrap-around order: the flag only grows, by less than 2^31 between a
   * wait and the set that ends it).  Returns at once. */
  hc_status_t (*flag_wait)(void *flag, uint64_t value, void *stream);
  /* Raises the flag to value (larger than any value set before).  From
   * an ordinary host thread, never from a host function: a backend may
   * call the runtime here.  Never blocks on the streams waiting. */
  hc_status_t (*flag_set)(void *flag, uint64_t value);
} hc_device_ops_t;

/* The compiled-in backends (registered in device.c). */
extern const hc_device_ops_t hc_device_host_ops;
extern const hc_device_ops_t hc_device_acl_ops;
extern const hc_device_ops_t hc_device_cuda_ops;

/* Stand-ins for ops a backend lacks: each returns HC_ERR_NOT_SUPPORTED. */
hc_status_t hc_device_ipc_export_not_supported(void *base, size_t size,
                                               int device,
                                               hc_ipc_handle_t *handle);
hc_status_t hc_device_ipc_unexport_not_supported(const hc_ipc_handle_t *h);
hc_status_t hc_device_ipc_import_not_supported(const hc_ipc_handle_t *handle,
                                               void **ptr);
hc_status_t hc_device_ipc_close_not_supported(const hc_ipc_handle_t *handle,
                                              void *ptr);
hc_status_t hc_device_dmabuf_export_not_supported(void *base, size_t size,
                                                  int device, int *fd,
                                                  uint64_t *offset);
hc_status_t hc_device_stream_adopt_not_supported(void *app_stream,
                                                 void **stream);
hc_status_t hc_device_dev_alloc_not_supported(size_t len, int device,
                                              void **ptr);
void hc_device_dev_free_not_supported(void *ptr);
hc_status_t hc_device_launch_host_fn_not_supported(void *stream,
                                                   void (*fn)(void *arg),
                                                   void *arg);
hc_status_t hc_device_flag_create_not_supported(void *stream, void **flag);
void hc_device_flag_destroy_not_supported(void *flag);
hc_status_t hc_device_flag_wait_not_supported(void *flag, uint64_t value,
                                              void *stream);
hc_status_t hc_device_flag_set_not_supported(void *flag, uint64_t value);

/* ---- the layer ----------------------------------------------------------
 * Initialisation is lazy (first hc_device_* call) and idempotent.  The
 * backends tried follow HCMPI_DEVICE=auto|acl|cuda|none (default auto);
 * a runtime that is missing leaves host-only behaviour plus one line at
 * HCMPI_LOG=info. */
hc_status_t hc_device_init(void);
/* Closes imports, withdraws exports, unloads runtimes.  The layer may be
 * initialised again afterwards. */
void hc_device_fini(void);
/* 1 while the layer is initialised and no device backend loaded (every
 * pointer is host memory); 0 before initialisation, after hc_device_fini,
 * and with a backend.  Set only by device.c. */
extern atomic_int hc_device_host_only;
/* hc_device_any for a layer not known to be host-only (a call). */
int hc_device_any_slow(void);
/* 1 when some device backend is loaded (else every pointer is host).
 * Inline: every send and receive asks it, and a host-only process
 * answers with one load instead of a call. */
static inline int hc_device_any(void) {
  if (atomic_load_explicit(&hc_device_host_only, memory_order_relaxed))
    return 0;
  return hc_device_any_slow();
}
/* The backend of kind, or NULL when it is not loaded. */
const hc_device_ops_t *hc_device_backend(hc_mem_kind_t kind);

/* Classifies ptr (host when no backend claims it).  Device results are
 * cached by allocation range and re-checked on every hit with the
 * backend's still_valid query: a range freed or replaced by a new
 * allocation is dropped (with its export), as are ranges passed to
 * hc_device_forget and everything at hc_device_fini. */
hc_mem_kind_t hc_device_classify(const void *ptr, hc_mem_info_t *info);
/* 1 when ptr is host memory.  Inline: a host-only process answers every
 * send's and receive's question with one load, others classify. */
static inline int hc_device_is_host(const void *ptr) {
  return !hc_device_any() || hc_device_classify(ptr, NULL) == HC_MEM_HOST;
}
/* 1 while the allocation info describes (classified device memory) is
 * still there, unreplaced: the backend's still_valid.  0 for host memory
 * and once it was freed or another allocation took its place. */
int hc_device_alloc_alive(const hc_mem_info_t *info);
/* Drops any cached classification (and cached export) covering ptr; call
 * when the allocation is freed or an operation on it failed. */
void hc_device_forget(const void *ptr);
/* Number of cached ranges (tests). */
int hc_device_cache_count(void);

/* Synchronous copy between any two kinds (one side at least host or both
 * of one runtime); picks the backend from the infos. */
hc_status_t hc_device_copy(void *dst, const hc_mem_info_t *dinfo,
                           const void *src, const hc_mem_info_t *sinfo,
                           size_t len);

/* Exports the allocation holding ptr (cached per allocation): *handle and
 * the offset of ptr from the exported base. */
hc_status_t hc_device_ipc_export(const void *ptr, const hc_mem_info_t *info,
                                 hc_ipc_handle_t *handle, size_t *offset);
/* Without an allocation range (info->size 0: ACL without
 * aclrtMemGetAddressRange) the pages holding [ptr, ptr+len) are exported
 * for one message, uncached: *handle and the offset of ptr in it.  The
 * caller withdraws it with hc_device_ipc_unexport once the message is done
 * (every importer closes first).  Fails where the runtime refuses such a
 * range (huge pages, a caching allocator's sub-block): stage then. */
hc_status_t hc_device_ipc_export_span(const void *ptr, size_t len,
                                      const hc_mem_info_t *info,
                                      hc_ipc_handle_t *handle, size_t *offset);
void hc_device_ipc_unexport(const hc_ipc_handle_t *handle);

/* The whole allocation info describes (device memory, allocation range
 * known) as a dma-buf for RDMA registration: *fd (the caller's to close),
 * *offset of the allocation base in it and *len, the allocation's size
 * rounded up to whole pages.  HC_ERR_NOT_SUPPORTED for host memory, an
 * unknown range, and where the runtime cannot export one. */
hc_status_t hc_device_dmabuf_export(const hc_mem_info_t *info, int *fd,
                                    uint64_t *offset, size_t *len);

/* Imports a peer's export and marks it in use: every successful import is
 * paired with hc_device_ipc_release once the copies from it are done.
 * Imports of one handle in use together share one mapping; the last
 * release closes it, because both runtimes require importers to close
 * before the exporter frees, and the exporting application may free its
 * buffer as soon as its send completed. */
hc_status_t hc_device_ipc_import(const hc_ipc_handle_t *handle, void **ptr);
void hc_device_ipc_release(const hc_ipc_handle_t *handle);
/* Closes every cached import now (before the exporters withdraw). */
void hc_device_ipc_close_all(void);

#endif /* HC_DEVICE_H */

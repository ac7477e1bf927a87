/*
 * Test helper: the CANN test double's ACL entry points, dlopen()ed from the
 * same path hcmpi's acl backend loads (HCMPI_ACL_LIB), so both share the
 * double's state.  Tests use it to allocate "device" buffers and to check
 * their bytes by copying them back to the host with aclrtMemcpy.
 */
#ifndef FAKE_API_H
#define FAKE_API_H

#include "../fake-cann/fake_acl.h"

typedef struct fake_api {
  aclError (*init)(const char *);
  aclError (*set_device)(int32_t);
  aclError (*malloc_dev)(void **, size_t, aclrtMemMallocPolicy);
  aclError (*free_dev)(void *);
  aclError (*malloc_host)(void **, size_t);
  aclError (*free_host)(void *);
  aclError (*memcpy_sync)(void *, size_t, const void *, size_t,
                          aclrtMemcpyKind);
  aclError (*export_key)(void *, size_t, char *, size_t, uint64_t);
  aclError (*set_pid)(const char *, int32_t *, size_t);
  aclError (*import_key)(void **, const char *, uint64_t);
  aclError (*close_key)(const char *);
  /* A device-to-device copy that also reaches another process's memory
   * imported here (ACL: only asynchronous copies may; this one waits). */
  aclError (*copy_d2d)(void *dst, const void *src, size_t n);
} fake_api_t;

/* Loads path (NULL: $HCMPI_ACL_LIB), calls aclInit and aclrtSetDevice(dev).
 * Returns 0, or -1 when the double cannot be loaded. */
int fake_api_load(const char *path, int dev, fake_api_t *api);
/* The same table over CUDA device memory (cuMemAlloc, cuMemcpy*) on GPU
 * ordinal, from $HCMPI_CUDA_LIB (else libcuda.so.1); the IPC members stay
 * unset.  0, or -1 without a GPU. */
int fake_api_load_cuda(int ordinal, fake_api_t *api);
/* The memory DEVICE_P2P_ALLOC names: "cuda" the CUDA table on ordinal 0,
 * anything else the CANN double on device dev.  0, or -1 as above. */
int fake_api_load_env(int dev, fake_api_t *api);

/* Buffers of either memory, for tests that run each case on host and on
 * device memory: bytes of api's device memory when dev, else of malloc
 * (NULL on failure); _free releases either; _store and _load copy bytes
 * into and out of one (0, or -1 when the device copy failed). */
void *fake_api_buf_alloc(const fake_api_t *api, int dev, size_t bytes);
void fake_api_buf_free(const fake_api_t *api, int dev, void *p);
int fake_api_buf_store(const fake_api_t *api, int dev, void *dst,
                       const void *src, size_t bytes);
int fake_api_buf_load(const fake_api_t *api, int dev, void *dst,
                      const void *src, size_t bytes);

#endif /* FAKE_API_H */

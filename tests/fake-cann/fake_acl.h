/*
 * TEST DOUBLE of libascendcl.so (CANN's ACL runtime) -- never installed,
 * never shipped.  Declares exactly the calls hcmpi's acl backend and its
 * tests use, with the real names, signatures, enum values and error codes
 * (shared/reference/hcomm-acl-api.md, §3).  See README.md beside it.
 */
#ifndef FAKE_ACL_H
#define FAKE_ACL_H

#include <stddef.h>
#include <stdint.h>

typedef int aclError;
typedef void *aclrtStream;
typedef void *aclrtEvent;

#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_REPEAT_FINALIZE 100037
#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_API_NOT_SUPPORT 200001
#define ACL_ERROR_INVALID_DEVICE 200002
#define ACL_ERROR_MEMORY_ADDRESS_UNALIGNED 200003
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_INTERNAL_ERROR 507000
/* aclrtProcessReport found no callback to run before its timeout. */
#define ACL_ERROR_WAIT_CALLBACK_TIMEOUT 100018

#define ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x1UL

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
  ACL_MEMCPY_DEFAULT = 4
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2
} aclrtMemMallocPolicy;

typedef enum aclrtMemLocationType {
  ACL_MEM_LOCATION_TYPE_HOST = 0,
  ACL_MEM_LOCATION_TYPE_DEVICE = 1,
  ACL_MEM_LOCATION_TYPE_UNREGISTERED = 2,
  ACL_MEM_LOCATION_TYPE_MANAGED = 3,
  ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4
} aclrtMemLocationType;

typedef struct aclrtMemLocation {
  uint32_t id;
  aclrtMemLocationType type;
} aclrtMemLocation;

typedef struct aclrtPtrAttributes {
  aclrtMemLocation location;
  uint32_t pageSize;
  uint32_t rsv[4];
} aclrtPtrAttributes;

typedef enum aclrtStreamStatus {
  ACL_STREAM_STATUS_COMPLETE = 0,
  ACL_STREAM_STATUS_NOT_READY = 1
} aclrtStreamStatus;

typedef void (*aclrtCallback)(void *userData);

typedef enum aclrtCallbackBlockType {
  ACL_CALLBACK_NO_BLOCK = 0,
  ACL_CALLBACK_BLOCK = 1
} aclrtCallbackBlockType;

typedef enum aclrtEventRecordedStatus {
  ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
  ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
} aclrtEventRecordedStatus;

aclError aclInit(const char *configPath);
aclError aclFinalize(void);
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtGetDevice(int32_t *deviceId);
aclError aclrtGetDeviceCount(uint32_t *count);
aclError aclrtDeviceGetBareTgid(int32_t *pid);
const char *aclGetRecentErrMsg(void);

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void *devPtr);
aclError aclrtMallocHost(void **hostPtr, size_t size);
aclError aclrtFreeHost(void *hostPtr);
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind);
aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src,
                          size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream);
aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value,
                     size_t count);
aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize);
aclError aclrtPointerGetAttributes(const void *ptr,
                                   aclrtPtrAttributes *attributes);

aclError aclrtCreateStream(aclrtStream *stream);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);
aclError aclrtCreateEvent(aclrtEvent *event);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtQueryEventStatus(aclrtEvent event,
                               aclrtEventRecordedStatus *status);
aclError aclrtSynchronizeEvent(aclrtEvent event);
aclError aclrtDestroyEvent(aclrtEvent event);
aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);
aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);
aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
                             aclrtCallbackBlockType blockType,
                             aclrtStream stream);
aclError aclrtProcessReport(int32_t timeout);
/* Stream memory operations (CANN 8.2+, A2/A3): waits on and writes of a
 * 64-bit value in device memory, in stream order. */
#define ACL_VALUE_WAIT_GEQ 0x0u /* (int64_t)(*devAddr - value) >= 0 */
#define ACL_VALUE_WAIT_EQ 0x1u
#define ACL_VALUE_WAIT_AND 0x2u
#define ACL_VALUE_WAIT_NOR 0x3u
aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag,
                        aclrtStream stream);
aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag,
                         aclrtStream stream);

aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key,
                                 size_t len, uint64_t flags);
aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num);
aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags);
aclError aclrtIpcMemClose(const char *key);

/* ---- hooks of the double itself (not ACL) --------------------------------
 * Used by the libhccl.so double (fake_hccl.c), which runs on these streams
 * and reads these memfds as the real HCCL runs on ACL streams. */

/* Queues fn(arg) on stream's worker, in order with its copies and event
 * records.  A non-zero return fails the stream: later event records and
 * synchronisations report ACL_ERROR_RT_INTERNAL_ERROR. */
aclError fakecann_stream_call(aclrtStream stream, int (*fn)(void *arg),
                              void *arg);
/* Resolves [dev, dev+n) of one owned (not imported) device allocation:
 * the double's private mapping of it, the memfd holding it and the offset
 * in that memfd.  ACL_ERROR_INVALID_PARAM for anything else. */
aclError fakecann_device_span(const void *dev, size_t n, void **shadow, int *fd,
                              uint64_t *offset);

/* ---- test hooks (not ACL): faults and observations for hcmpi's tests ----
 * Environment knobs, read when the first copy is queued:
 *  FAKE_CANN_FAIL_H2D=N      the Nth aclrtMemcpyAsync host-to-device copy
 *                            of the process (1 = the first) fails on its
 *                            stream, as a device fault would: the events
 *                            after it report ACL_ERROR_RT_INTERNAL_ERROR;
 *  FAKE_CANN_HOLD_H2D=1      async host-to-device copies wait in their
 *                            stream until fakecann_release_h2d() is called;
 *  FAKE_CANN_NO_ADDRESS_RANGE=1  aclrtMemGetAddressRange answers
 *                            ACL_ERROR_API_NOT_SUPPORT, as on a CANN (8.5 or
 *                            older) whose runtime lacks it;
 *  FAKE_CANN_FAIL_MALLOC_HOST=N  the first N aclrtMallocHost calls of the
 *                            process fail with ACL_ERROR_BAD_ALLOC, as when
 *                            pinned memory runs short for a while. */
/* The directory of the doubles' IPC records and HCCL rendezvous files:
 * $FAKE_CANN_DIR when set (test scripts running side by side each use
 * their own), else /dev/shm/fake-cann-<uid>. */
void fakecann_dir(char *dir, size_t len);
/* Lets held host-to-device copies run (FAKE_CANN_HOLD_H2D). */
void fakecann_release_h2d(void);
/* Async host-to-device copies queued while an earlier one on the same
 * stream had not finished yet (a measure of copy/receive overlap). */
unsigned long fakecann_h2d_overlaps(void);
/* Times the host waited for a stream: aclrtSynchronizeStream,
 * aclrtSynchronizeEvent, and async copies of pageable host memory (which
 * return only after the stream ran them). */
unsigned long fakecann_host_syncs(void);
/* Host callbacks running now (inside aclrtProcessReport); waits on a
 * memory value (aclrtValueWait) holding their stream now. */
int fakecann_host_fns_running(void);
int fakecann_value_waits_holding(void);
/* A "kernel" on stream: dst[i] = src[i] + add for n int32 elements of two
 * owned device buffers, after sleeping delay_us (a slow kernel that work
 * queued after it must still wait for). */
aclError fakecann_launch_add(aclrtStream stream, void *dst, const void *src,
                             size_t n, int32_t add, unsigned delay_us);

#endif /* FAKE_ACL_H */

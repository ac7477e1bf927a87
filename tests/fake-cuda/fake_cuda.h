/*
 * TEST DOUBLE of libcuda.so.1: the driver API's types, values and entry
 * points as the double implements them (declared from the driver API
 * documentation; see README.md).  Never installed.
 */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct fc_ctx *CUcontext;
typedef struct fc_stream *CUstream;
typedef struct fc_event *CUevent;
typedef void (*CUhostFn)(void *userData);
typedef struct CUipcMemHandle_st {
  char reserved[64];
} CUipcMemHandle;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_INVALID_CONTEXT 201
#define CUDA_ERROR_MAP_FAILED 205
#define CUDA_ERROR_INVALID_HANDLE 400
#define CUDA_ERROR_NOT_FOUND 500
#define CUDA_ERROR_NOT_READY 600
#define CUDA_ERROR_NOT_SUPPORTED 801

/* CUpointer_attribute */
#define CU_POINTER_ATTRIBUTE_CONTEXT 1
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_BUFFER_ID 7
#define CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL 9
/* CUmemorytype */
#define CU_MEMORYTYPE_HOST 1
#define CU_MEMORYTYPE_DEVICE 2
/* CUmemRangeHandleType */
#define CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD 1
/* Flag masks of cuStreamCreate, cuEventCreate, cuMemHostAlloc and
 * cuIpcOpenMemHandle. */
#define FC_STREAM_FLAGS 0x1u    /* CU_STREAM_NON_BLOCKING */
#define CU_STREAM_NON_BLOCKING 0x1u
#define FC_EVENT_FLAGS 0x7u     /* BLOCKING_SYNC | DISABLE_TIMING | IPC */
#define FC_HOSTALLOC_FLAGS 0x7u /* PORTABLE | DEVICEMAP | WRITECOMBINED */
#define FC_IPC_OPEN_FLAGS 0x1u  /* CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS */
#define FC_HOSTALLOC_DEVICEMAP 0x2u
/* CUstreamWaitValue_flags */
#define CU_STREAM_WAIT_VALUE_GEQ 0x0u
#define CU_STREAM_WAIT_VALUE_EQ 0x1u
#define CU_STREAM_WAIT_VALUE_AND 0x2u
#define CU_STREAM_WAIT_VALUE_NOR 0x3u
#define CU_STREAM_WAIT_VALUE_FLUSH (1u << 30)

/* The driver-API entry points the double exports. */
CUresult cuInit(unsigned int Flags);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr);
CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize,
                                 CUdeviceptr dptr);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags);
CUresult cuMemFreeHost(void *p);
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost,
                         size_t ByteCount);
CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice,
                         size_t ByteCount);
CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                         size_t ByteCount);
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                       CUstream hStream);
CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags);
CUresult cuStreamDestroy_v2(CUstream hStream);
CUresult cuStreamSynchronize(CUstream hStream);
CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags);
CUresult cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult cuEventQuery(CUevent hEvent);
CUresult cuEventSynchronize(CUevent hEvent);
CUresult cuEventDestroy_v2(CUevent hEvent);
CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData);
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p,
                                      unsigned int Flags);
CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr,
                                uint32_t value, unsigned int flags);
CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr);
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle,
                               unsigned int Flags);
CUresult cuIpcCloseMemHandle(CUdeviceptr dptr);
CUresult cuMemGetHandleForAddressRange(void *handle, CUdeviceptr dptr,
                                       size_t size, int handleType,
                                       unsigned long long flags);

/* ---- test hooks (not CUDA) ---------------------------------------------- */
/* Times the host waited for a stream or event (cuStreamSynchronize,
 * cuEventSynchronize, cuCtxSynchronize). */
unsigned long fakecuda_host_syncs(void);
/* Host functions running now; waits on a memory value holding their
 * stream now. */
int fakecuda_host_fns_running(void);
int fakecuda_value_waits_holding(void);
/* cuIpcCloseMemHandle calls waiting for their context's streams now. */
int fakecuda_closes_waiting(void);
/* A "kernel" on hStream: dst[i] = src[i] + add for n int32 elements of
 * device memory, after sleeping delay_us. */
CUresult fakecuda_launch_add(CUstream hStream, CUdeviceptr dst, CUdeviceptr src,
                             size_t n, int32_t add, unsigned delay_us);

#endif /* FAKE_CUDA_H */

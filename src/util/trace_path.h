/*
 * The paths a trace file records for a message (the format of
 * hcomm/trace.h, decoded by tools/hcmpi-trace).  Here, below the engine,
 * because a transport's descriptor names its own (transport.h).
 */
#ifndef HC_UTIL_TRACE_PATH_H
#define HC_UTIL_TRACE_PATH_H

/* How a message's bytes moved (receiver side decides rendezvous paths). */
typedef enum hc_trace_path {
  HC_TRACE_PATH_NONE = 0,
  HC_TRACE_PATH_SELF = 1,
  HC_TRACE_PATH_SHM = 2, /* eager through the shared-memory ring */
  HC_TRACE_PATH_TCP = 3,
  HC_TRACE_PATH_CMA = 4,       /* single-copy process_vm_readv */
  HC_TRACE_PATH_PIPELINED = 5, /* rendezvous streamed as DATA packets */
  HC_TRACE_PATH_DEVICE = 6,    /* unused since format 1.1: see 8..10 */
  HC_TRACE_PATH_RNDV = 7,      /* sender side of a rendezvous */
  HC_TRACE_PATH_IPC = 8,       /* device: one device-to-device IPC copy */
  HC_TRACE_PATH_HCCL = 9,      /* device: paired HcclSend/HcclRecv */
  HC_TRACE_PATH_STAGING = 10,  /* device: chunks through pinned host */
  HC_TRACE_PATH_VERBS = 11     /* eager or rendezvous over InfiniBand/RoCE */
} hc_trace_path_t;

#endif /* HC_UTIL_TRACE_PATH_H */

/*
 * The engine's device data path (see docs/engine.md, "Device buffers").
 * A message whose send or receive buffer is device memory is matched on
 * the host like any other; it is always rendezvous, and its bytes move by
 * one of:
 *  - ipc: same node, both buffers device of one runtime: the RTS carries an
 *    IPC handle + offset; the receiver imports it (cached) and runs one
 *    async device-to-device copy, then FIN;
 *  - staging: anything else: the receiver answers CTS; the sender streams
 *    DATA packets out of a pipeline of chunked device-to-pinned-host async
 *    copies; a device receiver copies each fragment to the device;
 *  - hccl: both buffers ACL device memory: paired HcclSend/HcclRecv on a
 *    per-pair HcclComm (devpath_hccl.h); the receiver answers with its own
 *    CTS flagged HC_PKT_FLAG_DEVICE; no FIN (each side completes when its
 *    stream got past its call);
 *  - rdma: the peer's transport registers device memory (verbs with
 *    dma-buf, devpath_rdma.h): the sender registers its device buffer and
 *    says so in the RTS, the receiver registers its own (or has host
 *    memory) and the transport's get READs the sender's buffer straight
 *    into it, then FIN; a refusal on either side stages;
 *  - self: both ends in this process: one copy through the device layer.
 * Each path is one ops table (devpath_impl.h) in its own file; devpath.c
 * tries them in one order, as its policy function permits:
 * HCMPI_DEVICE_PATH=auto|staging|ipc|hccl|rdma forces the choice (ipc,
 * hccl and rdma fall back to staging where they cannot work; auto uses
 * hccl only for peers on other nodes, and tries ipc before rdma).  Nothing
 * here dereferences device memory.
 *
 * Every function runs under the engine lock, as proto.c does.
 */
#ifndef HC_DEVPATH_H
#define HC_DEVPATH_H

#include <stddef.h>
#include <stdint.h>

#include "device/device.h"
#include "hcomm/proto.h"

typedef struct hc_devreq hc_devreq_t;

/* RTS flag: the sender's buffer is device memory; the RTS payload is an
 * hc_dev_rts_t. */
#define HC_PKT_FLAG_DEVICE 0x2
/* CTS flag: the RTS's IPC export could not be imported (stale): the
 * sender drops it from its cache and streams this message. */
#define HC_PKT_FLAG_STALE 0x4

/* hc_devpath_classify in a process with a device backend loaded. */
hc_status_t hc_devpath_classify_loaded(hcomm_request_t *req);
/* Classifies the request's buffer (send_buf or recv_buf); device buffers
 * get req->dev.  Host buffers cost one classification and nothing else,
 * and in a host-only process one load (inline: every post asks).
 * HC_ERR_NOMEM when the request cannot carry its device state. */
static inline hc_status_t hc_devpath_classify(hcomm_request_t *req) {
  return hc_device_any() ? hc_devpath_classify_loaded(req) : HC_OK;
}
/* Sender: the RTS payload describing a device send buffer (kept in req->dev
 * until the request is released); *len its size. */
const void *hc_devpath_rts_payload(hcomm_request_t *req, size_t *len);
/* Receiver: remembers what a device RTS said (call before the rendezvous
 * starts; ignores RTS packets without HC_PKT_FLAG_DEVICE). */
void hc_devpath_on_rts(hcomm_request_t *req, const hc_pkt_hdr_t *hdr,
                       const void *payload);

enum hc_devpath_start {
  HC_DEVPATH_HOST = 0,    /* no device involved: the host protocol runs */
  HC_DEVPATH_STARTED = 1, /* the device path owns the receive now */
  HC_DEVPATH_CTS = 2      /* stream DATA: send CTS, never a CMA get */
};
/* Receiver: a matched rendezvous with take > 0 is starting. */
int hc_devpath_recv_start(hcomm_request_t *req);
/* Receiver: n bytes of host data for [offset, offset+n) of the receive
 * buffer, whatever memory that buffer is; src may be reused on return.
 * For a device buffer the copy is queued (asynchronously) and a failure
 * is remembered: the request then ends with that error, see below. */
hc_status_t hc_devpath_copy_in(hcomm_request_t *req, size_t offset,
                               const void *src, size_t n);
/* Receiver: every byte of req has gone through hc_devpath_copy_in.  1 when
 * the device path now owns the completion (copies still queued, or one
 * failed): it completes req from hc_devpath_progress once the last copy's
 * event is done; 0 when the caller completes it now. */
int hc_devpath_recv_landed(hcomm_request_t *req);
/* Sender: CTS (hdr, payload) from world rank peer for a device send
 * buffer: an hccl CTS (flag HC_PKT_FLAG_DEVICE; offset: the receive's
 * number; payload: maybe the pair's root info) queues the HcclSend, else
 * the staging pipeline streams total_bytes as DATA to request rreq.
 * Returns 0 when req is not a device send (the host stream runs). */
int hc_devpath_on_cts(hcomm_request_t *req, int peer, const hc_pkt_hdr_t *hdr,
                      const void *payload);
/* Advances pipelines and polls copies; returns how much moved. */
int hc_devpath_progress(void);
/* Device requests with work in progress; lets an idle poll skip
 * hc_devpath_progress. */
extern int hc_devpath_nactive;
/* Frees req->dev (at request release). */
void hc_devpath_release(hcomm_request_t *req);
/* One device-to-device copy of len bytes on hcmpi's stream of (kind,
 * device), waited for here: either side may be an IPC import (which only
 * such copies may touch).  HC_ERR_NOT_SUPPORTED when no stream or event
 * could be had (nothing was queued), else the copy's status. */
hc_status_t hc_devpath_copy_d2d(void *dst, const void *src, size_t len,
                                hc_mem_kind_t kind, int device);
/* hc_devpath_copy_d2d without the wait: the copy is queued on hcmpi's
 * stream of (kind, device) and runs in that stream's order; src and dst
 * must stay valid until a hc_devpath_drain of that stream (or a mark
 * recorded after it) says it is done.  HC_ERR_NOT_SUPPORTED when no
 * stream could be had (nothing was queued). */
hc_status_t hc_devpath_copy_d2d_queue(void *dst, const void *src, size_t len,
                                      hc_mem_kind_t kind, int device);
/* A point in hcmpi's stream of (kind, device): done once everything
 * queued there before it is. */
typedef struct hc_devchunk hc_devmark_t;
/* A mark not yet recorded, for hc_devpath_drain (which then needs no
 * allocation); owned by the caller until hc_devpath_mark_free.
 * HC_ERR_NOT_SUPPORTED when no event could be had. */
hc_status_t hc_devpath_mark_reserve(hc_mem_kind_t kind, hc_devmark_t **mark);
/* Records a mark at the end of the stream's queue now (*mark owned by
 * the caller until hc_devpath_mark_free).  HC_ERR_NOT_SUPPORTED when no
 * stream or event could be had. */
hc_status_t hc_devpath_mark(hc_mem_kind_t kind, int device,
                            hc_devmark_t **mark);
/* HC_OK once the mark was reached, HC_ERR_AGAIN before, another error
 * when work queued before it failed.  Never blocks. */
hc_status_t hc_devpath_mark_test(hc_devmark_t *mark);
void hc_devpath_mark_free(hc_devmark_t *mark);
/* Records mark (reserved for mark's kind) at the end of hcmpi's stream of
 * device and waits until everything queued there so far is done: its
 * first failure, else HC_OK.  Allocates nothing, so a drain that must
 * happen cannot fail for want of memory. */
hc_status_t hc_devpath_drain(hc_devmark_t *mark, int device);
/* Copies len bytes between host memory and an IPC import (imem: its kind
 * and the device it was imported on), into the import when to_import:
 * one copy where the backend's imports take host copies
 * (HC_DEVICE_IMPORT_HOST_COPIES), else chunks through device memory of
 * this process (a host copy there and a device-to-device copy), waited
 * for here.  HC_ERR_NOT_SUPPORTED, with nothing copied, when neither can
 * be had. */
hc_status_t hc_devpath_copy_import(void *import, const hc_mem_info_t *imem,
                                   void *host, size_t len, int to_import);
/* One-sided windows follow the same policy (HCMPI_DEVICE_PATH): 1 when
 * it lets a device window of world rank peer be reached by IPC (rdma 0)
 * or by the transport's RDMA (rdma 1). */
int hc_devpath_rma_permits(int peer, int rdma);
/* Finalize: streams, staging buffers, IPC imports/exports, runtimes. */
void hc_devpath_fini(void);

#endif /* HC_DEVPATH_H */

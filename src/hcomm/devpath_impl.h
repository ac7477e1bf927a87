/*
 * Inside the engine's device data path (devpath.h): the state a device
 * message carries, the ops table every path (self, hccl, ipc, rdma,
 * staging) fills in, and what the paths share: the policy, pinned staging
 * chunks, streams and the list of requests with work in flight.
 *
 * devpath.c owns the table and the policy; each path lives in its own
 * file and is reached only through its ops.  Only src/hcomm/devpath*.c
 * include this header.  Everything runs under the engine lock.
 */
#ifndef HC_DEVPATH_IMPL_H
#define HC_DEVPATH_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "device/device.h"
#include "hcomm/devpath.h"
#include "hcomm/devpath_hccl.h"
#include "hcomm/trace.h"

#define HC_DEVPATH_SLOTS_MAX 8

/* What a device RTS carries after its header (a path may append a tail,
 * see hc_devreq.rts_tail). */
typedef struct hc_dev_rts {
  uint32_t magic;
  uint32_t kind; /* hc_mem_kind_t of the send buffer */
  int32_t device;
  uint32_t has_ipc;
  uint32_t rdma; /* the sender's transport can serve a get of the buffer */
  uint32_t reserved;
  uint64_t ipc_offset; /* of the send buffer from the exported base */
  hc_ipc_handle_t ipc;
} hc_dev_rts_t;

/* A pinned staging buffer (allocated on first need) and an event, pooled
 * per memory kind: runtime host allocations are far too slow per message. */
typedef struct hc_devchunk {
  struct hc_devchunk *next;
  hc_mem_kind_t kind;
  void *buf;
  void *event;
} hc_devchunk_t;

enum { HC_DEVSLOT_FREE = 0, HC_DEVSLOT_COPYING = 1, HC_DEVSLOT_READY = 2 };

typedef struct hc_devslot {
  hc_devchunk_t *chunk;
  int state;
  size_t off, len, sent;
} hc_devslot_t;

typedef struct hc_devpath_ops hc_devpath_ops_t;

struct hc_devreq {
  hcomm_request_t *req;
  hc_mem_info_t
      info; /* this side's buffer (HOST when only the peer's is device) */
  int peer_device;  /* the RTS said the sender's buffer is device memory */
  hc_dev_rts_t rts; /* sent (sender) or received (receiver) */
  /* The path with work in flight for this request (NULL: none), and
   * whether this side sends. */
  const hc_devpath_ops_t *active;
  int sending;
  struct hc_devreq *next_active;
  /* sender staging */
  int to;
  uint64_t rreq;
  size_t end, issued, sent;
  int nslots;
  hc_devslot_t slot[HC_DEVPATH_SLOTS_MAX];
  /* receiver ipc: the event of its one copy */
  hc_devchunk_t *wait;
  /* receiver staging: host bytes gathered into pinned chunks, each copied
   * to the device asynchronously while later fragments arrive */
  hc_devchunk_t *fill; /* the chunk being filled, or NULL */
  size_t fill_off, fill_len;
  hc_devchunk_t *rx_head, *rx_tail; /* copies queued, oldest first */
  int rx_count;
  hc_status_t rx_error; /* first failure: the request ends with it */
  /* hccl (either side) */
  hc_hccl_op_t *hop;
  /* Sender: bytes a path appends to the RTS (hccl: the pair's root info),
   * and the payload assembled with them. */
  const void *rts_tail;
  size_t rts_tail_len;
  unsigned char *rts_buf;
  int own_export; /* rts.ipc exported for this message alone */
  int rdma_ref;   /* sender: its registration (devpath_rdma.h) */
};

/* One device data path.  Optional ops are NULL. */
struct hc_devpath_ops {
  const char *name; /* as HCMPI_DEVICE_PATH spells it */
  hc_trace_path_t trace;
  int always; /* may serve whatever HCMPI_DEVICE_PATH says (self, staging) */
  int remote_only_in_auto; /* auto uses it only for peers on other nodes */
  /* Sender: adds this path's part to req->dev->rts (and maybe its tail)
   * for a peer the policy permits. */
  void (*rts_fill)(hcomm_request_t *req);
  /* Receiver: a tail of len bytes followed the RTS. */
  void (*rts_tail_seen)(int peer, const void *tail, size_t len);
  /* Receiver: a matched rendezvous; returns an hc_devpath_start value:
   * HC_DEVPATH_HOST when this path cannot take it (the next one tries). */
  int (*recv_try)(hcomm_request_t *req);
  /* Sender: a CTS for this path (see hc_devpath_on_cts). */
  void (*send_cts)(hcomm_request_t *req, int peer, const hc_pkt_hdr_t *hdr,
                   const void *payload);
  /* Advances a request this path activated; returns how much moved. */
  int (*step)(hc_devreq_t *d);
  /* Gives back what an active request holds on this path. */
  void (*stop)(hc_devreq_t *d);
};

extern const hc_devpath_ops_t hc_devpath_self_ops, hc_devpath_hccl_ops,
    hc_devpath_ipc_ops, hc_devpath_rdma_ops, hc_devpath_staging_ops;

/* The policy: 1 when path p may carry a message with world rank peer. */
int hc_devpath_permits(const hc_devpath_ops_t *p, int peer);
/* HCMPI_DEVICE_CHUNK and HCMPI_DEVICE_SLOTS. */
size_t hc_devpath_chunk_bytes(void);
int hc_devpath_slots(void);

hc_devchunk_t *hc_devpath_chunk_get(hc_mem_kind_t kind, int need_buf);
void hc_devpath_chunk_put(hc_devchunk_t *c);
/* hcmpi's stream on (kind, device), created on first use; NULL if none. */
void *hc_devpath_stream(hc_mem_kind_t kind, int device);

/* d has work in flight on path p (progress steps it) until deactivated. */
void hc_devpath_activate(hc_devreq_t *d, const hc_devpath_ops_t *p,
                         int sending);
void hc_devpath_deactivate(hc_devreq_t *d);

/* A receive took path p: counted, logged the first time, traced. */
void hc_devpath_note(const hc_devpath_ops_t *p, const hcomm_request_t *r);
/* The memory the sender's RTS described (host when not device). */
hc_mem_info_t hc_devpath_peer_info(const hc_devreq_t *d);
/* A receive whose bytes were moved in one piece (rc HC_OK) or not. */
void hc_devpath_recv_end(hcomm_request_t *req, hc_status_t rc);
/* A CTS of our own with flags, offset and payload (see devpath.h). */
void hc_devpath_send_cts(hcomm_request_t *req, uint8_t flags, uint64_t offset,
                         const void *payload, size_t len);

#endif /* HC_DEVPATH_IMPL_H */

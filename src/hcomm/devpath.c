/*
 * The engine's device data path: ipc, staging and self copies for messages
 * whose buffers are device memory.  See devpath.h and docs/engine.md.
 */
#include "hcomm/devpath.h"

#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "hcomm/devpath_hccl.h"
#include "hcomm/devpath_rdma.h"
#include "hcomm/trace.h"
#include "util/env.h"
#include "util/log.h"

#define DEVPATH_RTS_MAGIC 0x68634456u /* "hcDV" */
#define DEVPATH_SLOTS_MAX 8
#define DEVPATH_STREAMS_MAX 16
#define DEVPATH_CHUNK_DEFAULT ((size_t)1 << 20)

/* What a device RTS carries after its header. */
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

enum {
  PATH_AUTO = 0,
  PATH_STAGING = 1,
  PATH_IPC = 2,
  PATH_HCCL = 3,
  PATH_RDMA = 4
};
enum { SLOT_FREE = 0, SLOT_COPYING = 1, SLOT_READY = 2 };
enum {
  WORK_NONE = 0,
  WORK_SEND_STAGING = 1,
  WORK_RECV_IPC = 2,
  WORK_SEND_HCCL = 3,
  WORK_RECV_HCCL = 4,
  WORK_RECV_STAGING = 5
};
enum { USED_SELF, USED_IPC, USED_STAGING, USED_HCCL, USED_RDMA, USED_KINDS };

/* A pinned staging buffer (allocated on first need) and an event, pooled
 * per memory kind: runtime host allocations are far too slow per message. */
typedef struct devpath_chunk {
  struct devpath_chunk *next;
  hc_mem_kind_t kind;
  void *buf;
  void *event;
} devpath_chunk_t;

typedef struct devpath_slot {
  devpath_chunk_t *chunk;
  int state;
  size_t off, len, sent;
} devpath_slot_t;

struct hc_devreq {
  hcomm_request_t *req;
  hc_mem_info_t
      info; /* this side's buffer (HOST when only the peer's is device) */
  int peer_device;  /* the RTS said the sender's buffer is device memory */
  hc_dev_rts_t rts; /* sent (sender) or received (receiver) */
  int work;
  struct hc_devreq *next_active;
  /* sender staging */
  int to;
  uint64_t rreq;
  size_t end, issued, sent;
  int nslots;
  devpath_slot_t slot[DEVPATH_SLOTS_MAX];
  /* receiver ipc */
  devpath_chunk_t *wait;
  /* receiver staging: host bytes gathered into pinned chunks, each copied
   * to the device asynchronously while later fragments arrive */
  devpath_chunk_t *fill; /* the chunk being filled, or NULL */
  size_t fill_off, fill_len;
  devpath_chunk_t *rx_head, *rx_tail; /* copies queued, oldest first */
  int rx_count;
  hc_status_t rx_error; /* first failure: the request ends with it */
  /* hccl (either side) */
  hc_hccl_op_t *hop;
  unsigned char *rts_buf; /* RTS payload with the pair's root info */
  int own_export;         /* rts.ipc exported for this message alone */
  int rdma_ref;           /* sender: its registration (devpath_rdma.h) */
};

typedef struct devpath_stream {
  hc_mem_kind_t kind;
  int device;
  void *stream;
} devpath_stream_t;

static struct {
  int configured;
  int path;
  size_t chunk_bytes;
  int slots;
  devpath_chunk_t *pool[HC_MEM_KINDS];
  devpath_stream_t streams[DEVPATH_STREAMS_MAX];
  int nstreams;
  hc_devreq_t *active;
  int used[USED_KINDS];
} devpath;

static void devpath_configure(void) {
  if (devpath.configured)
    return;
  const char *p = hc_env_string("HCMPI_DEVICE_PATH", "auto");
  devpath.path = PATH_AUTO;
  if (strcmp(p, "staging") == 0)
    devpath.path = PATH_STAGING;
  else if (strcmp(p, "ipc") == 0)
    devpath.path = PATH_IPC;
  else if (strcmp(p, "hccl") == 0)
    devpath.path = PATH_HCCL;
  else if (strcmp(p, "rdma") == 0)
    devpath.path = PATH_RDMA;
  else if (strcmp(p, "auto") != 0)
    hc_log(HC_LOG_INFO, "device",
           "HCMPI_DEVICE_PATH=%s not available here; using auto", p);
  devpath.chunk_bytes =
      hc_env_size("HCMPI_DEVICE_CHUNK", DEVPATH_CHUNK_DEFAULT);
  if (devpath.chunk_bytes < 4096)
    devpath.chunk_bytes = 4096;
  long slots = hc_env_long("HCMPI_DEVICE_SLOTS", 4);
  devpath.slots = slots < 1                   ? 1
                  : slots > DEVPATH_SLOTS_MAX ? DEVPATH_SLOTS_MAX
                                              : (int)slots;
  devpath.configured = 1;
}

/* What each USED_ kind is called in a trace. */
static const hc_trace_path_t devpath_trace_path[USED_KINDS] = {
    [USED_SELF] = HC_TRACE_PATH_SELF,
    [USED_IPC] = HC_TRACE_PATH_IPC,
    [USED_STAGING] = HC_TRACE_PATH_STAGING,
    [USED_HCCL] = HC_TRACE_PATH_HCCL,
    [USED_RDMA] = HC_TRACE_PATH_VERBS};

/* A receive took path which: counted, logged the first time, and traced
 * here because only this file knows which device path it is. */
static void devpath_note(int which, const char *what,
                         const hcomm_request_t *r) {
  if (hc_trace_on)
    hc_trace_engine(HC_TRACE_ENG_RECV, r->peer, r->status.tag, r->total,
                    r->remote_id, 1, devpath_trace_path[which]);
  if (devpath.used[which]++ == 0 && hc_log_level() >= HC_LOG_DEBUG)
    hc_log(HC_LOG_DEBUG, "device", "rank %d: device path %s (first use, %zu B)",
           hc_engine.world_rank, what, r->take);
}

hc_status_t hc_devpath_classify(hcomm_request_t *req) {
  const void *buf = req->kind == HC_REQ_SEND ? req->send_buf : req->recv_buf;
  if (req->bytes == 0 || buf == NULL || !hc_device_any())
    return HC_OK;
  hc_mem_info_t info;
  if (hc_device_classify(buf, &info) == HC_MEM_HOST)
    return HC_OK;
  hc_devreq_t *d = calloc(1, sizeof *d);
  if (d == NULL)
    return HC_ERR_NOMEM;
  devpath_configure();
  d->req = req;
  d->info = info;
  req->dev = d;
  return HC_OK;
}

static int devpath_same_node(int world_rank) {
  for (int i = 0; i < hc_engine.local_size; i++)
    if (hc_engine.local_world_ranks[i] == world_rank)
      return 1;
  return 0;
}

/* hccl wanted for a message with world rank peer: forced, or (auto) when
 * the peer is on another node, where ipc cannot serve. */
static int devpath_wants_hccl(int peer) {
  if (devpath.path == PATH_HCCL)
    return 1;
  return devpath.path == PATH_AUTO && !devpath_same_node(peer);
}

/* The pair's root rides the first device RTS its root sends (see
 * devpath_hccl.h); transports with packets too small for it get none, and
 * the receiver then stages. */
static const void *devpath_rts_with_root(hcomm_request_t *req, size_t *len) {
  hc_devreq_t *d = req->dev;
  if (d->info.kind != HC_MEM_ACL || req->peer == hc_engine.world_rank ||
      !devpath_wants_hccl(req->peer) || !hc_hccl_usable())
    return &d->rts;
  size_t total = sizeof d->rts + HC_HCCL_ROOT_BYTES;
  if (hc_engine.peers[req->peer].max_packet < sizeof(hc_pkt_hdr_t) + total)
    return &d->rts;
  const void *root = hc_hccl_rts_root(req->peer, d->info.device);
  if (root == NULL || (d->rts_buf = malloc(total)) == NULL)
    return &d->rts;
  memcpy(d->rts_buf, &d->rts, sizeof d->rts);
  memcpy(d->rts_buf + sizeof d->rts, root, HC_HCCL_ROOT_BYTES);
  *len = total;
  return d->rts_buf;
}

static int devpath_rdma_on(void) {
  return devpath.path == PATH_AUTO || devpath.path == PATH_RDMA;
}

/* A peer whose transport can RDMA device memory (verbs with dma-buf) may
 * read the send buffer straight out of the device: registered now, held
 * until the request is released, and said in the RTS. */
static void devpath_rts_rdma(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  hc_devrdma_put(d->rdma_ref); /* an RTS built again */
  d->rdma_ref = 0;
  if (!devpath_rdma_on() || req->peer == hc_engine.world_rank)
    return;
  d->rdma_ref = hc_devrdma_get(&hc_engine.peers[req->peer], &d->info);
  d->rts.rdma = d->rdma_ref > 0;
}

const void *hc_devpath_rts_payload(hcomm_request_t *req, size_t *len) {
  hc_devreq_t *d = req->dev;
  if (d->own_export) /* built again: the earlier export is unused */
    hc_device_ipc_unexport(&d->rts.ipc);
  d->own_export = 0;
  memset(&d->rts, 0, sizeof d->rts);
  d->rts.magic = DEVPATH_RTS_MAGIC;
  d->rts.kind = d->info.kind;
  d->rts.device = d->info.device;
  int ipc_on = devpath.path == PATH_AUTO || devpath.path == PATH_IPC;
  if (ipc_on && req->peer != hc_engine.world_rank &&
      devpath_same_node(req->peer)) {
    size_t off;
    hc_status_t rc =
        hc_device_ipc_export(req->send_buf, &d->info, &d->rts.ipc, &off);
    if (rc != HC_OK && d->info.size == 0) {
      /* No allocation range known: this message's pages, uncached. */
      rc = hc_device_ipc_export_span(req->send_buf, req->bytes, &d->info,
                                     &d->rts.ipc, &off);
      d->own_export = rc == HC_OK;
    }
    if (rc == HC_OK) {
      d->rts.has_ipc = 1;
      d->rts.ipc_offset = off;
    }
  }
  devpath_rts_rdma(req);
  *len = sizeof d->rts;
  return devpath_rts_with_root(req, len);
}

void hc_devpath_on_rts(hcomm_request_t *req, const hc_pkt_hdr_t *hdr,
                       const void *payload) {
  if (!(hdr->flags & HC_PKT_FLAG_DEVICE) ||
      (hdr->payload_bytes != sizeof(hc_dev_rts_t) &&
       hdr->payload_bytes != sizeof(hc_dev_rts_t) + HC_HCCL_ROOT_BYTES))
    return;
  hc_dev_rts_t rts;
  memcpy(&rts, payload, sizeof rts);
  if (rts.magic != DEVPATH_RTS_MAGIC)
    return;
  if (hdr->payload_bytes > sizeof rts && hc_hccl_usable())
    hc_hccl_note_root(req->peer, (const unsigned char *)payload + sizeof rts);
  if (req->dev == NULL) {
    /* A host receive buffer: only the peer's side is device memory. */
    req->dev = calloc(1, sizeof *req->dev);
    if (req->dev == NULL)
      return; /* the receive stays host-only: CTS is still forced below */
    devpath_configure();
    req->dev->req = req;
    req->dev->info.kind = HC_MEM_HOST;
    req->dev->info.device = -1;
  }
  req->dev->peer_device = 1;
  req->dev->rts = rts;
}

/* ---- pools and streams ----------------------------------------------------
 */

static devpath_chunk_t *devpath_chunk_get(hc_mem_kind_t kind, int need_buf) {
  const hc_device_ops_t *ops = hc_device_backend(kind);
  devpath_chunk_t *c = devpath.pool[kind];
  if (c != NULL) {
    devpath.pool[kind] = c->next;
  } else {
    c = calloc(1, sizeof *c);
    if (c == NULL)
      return NULL;
    c->kind = kind;
    if (ops->event_create(&c->event) != HC_OK) {
      free(c);
      return NULL;
    }
  }
  if (need_buf && c->buf == NULL &&
      ops->host_alloc(devpath.chunk_bytes, &c->buf) != HC_OK) {
    c->next = devpath.pool[kind];
    devpath.pool[kind] = c;
    return NULL;
  }
  return c;
}

static void devpath_chunk_put(devpath_chunk_t *c) {
  if (c == NULL)
    return;
  c->next = devpath.pool[c->kind];
  devpath.pool[c->kind] = c;
}

static void *devpath_stream(hc_mem_kind_t kind, int device) {
  for (int i = 0; i < devpath.nstreams; i++)
    if (devpath.streams[i].kind == kind && devpath.streams[i].device == device)
      return devpath.streams[i].stream;
  if (devpath.nstreams == DEVPATH_STREAMS_MAX)
    return NULL;
  void *s;
  if (hc_device_backend(kind)->stream_create(device, &s) != HC_OK)
    return NULL;
  devpath.streams[devpath.nstreams].kind = kind;
  devpath.streams[devpath.nstreams].device = device;
  devpath.streams[devpath.nstreams].stream = s;
  devpath.nstreams++;
  return s;
}

int hc_devpath_nactive;

/* Returns the receiver's staging chunks to the pool. */
static void devpath_rx_drop(hc_devreq_t *d) {
  devpath_chunk_put(d->fill);
  d->fill = NULL;
  while (d->rx_head != NULL) {
    devpath_chunk_t *c = d->rx_head;
    d->rx_head = c->next;
    devpath_chunk_put(c);
  }
  d->rx_tail = NULL;
  d->rx_count = 0;
}

static void devpath_activate(hc_devreq_t *d, int work) {
  hc_devpath_nactive++;
  d->work = work;
  d->next_active = devpath.active;
  devpath.active = d;
}

static void devpath_deactivate(hc_devreq_t *d) {
  for (hc_devreq_t **l = &devpath.active; *l != NULL; l = &(*l)->next_active)
    if (*l == d) {
      *l = d->next_active;
      hc_devpath_nactive--;
      break;
    }
  if (d->work == WORK_RECV_IPC)
    hc_device_ipc_release(&d->rts.ipc);
  d->work = WORK_NONE;
  hc_hccl_op_free(d->hop);
  d->hop = NULL;
  for (int i = 0; i < d->nslots; i++) {
    devpath_chunk_put(d->slot[i].chunk);
    d->slot[i].chunk = NULL;
  }
  d->nslots = 0;
  devpath_chunk_put(d->wait);
  d->wait = NULL;
  devpath_rx_drop(d);
}

/* ---- receiver -------------------------------------------------------------
 */

static hc_mem_info_t devpath_peer_info(const hc_devreq_t *d) {
  hc_mem_info_t info = {HC_MEM_HOST, -1, 0, 0, 0};
  if (d->peer_device) {
    info.kind = (hc_mem_kind_t)d->rts.kind;
    info.device = d->rts.device;
  }
  return info;
}

/* A receive whose bytes were moved in one piece (rc HC_OK) or not. */
static void devpath_recv_end(hcomm_request_t *req, hc_status_t rc) {
  req->landed = req->take;
  if (rc != HC_OK) {
    req->status.bytes = 0;
    hc_request_complete(req, rc);
  } else {
    hc_proto_finish_recv(req);
  }
}

/* Both ends in this process: one copy, whatever the two kinds are. */
static void devpath_self_copy(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  hc_mem_info_t src = devpath_peer_info(d);
  hc_status_t rc = hc_device_copy(req->recv_buf, &d->info,
                                  (const void *)(uintptr_t)req->remote_addr,
                                  &src, req->take);
  devpath_note(USED_SELF, "self", req);
  hc_proto_send_fin(req->peer, req->remote_id);
  devpath_recv_end(req, rc);
}

/* A CTS of our own: flags HC_PKT_FLAG_STALE (staging: the sender's export
 * could not be imported, its key died with a freed allocation, say, so it
 * drops the cached export and exports afresh next time) or
 * HC_PKT_FLAG_DEVICE (hccl: offset is our HcclRecv's number, payload
 * maybe the pair's root info). */
static void devpath_send_cts(hcomm_request_t *req, uint8_t flags,
                             uint64_t offset, const void *payload, size_t len) {
  hc_pkt_hdr_t hdr = {0};
  hdr.type = HC_PKT_CTS;
  hdr.flags = flags;
  hdr.sreq = req->remote_id;
  hdr.rreq = hc_request_id(req);
  hdr.total_bytes = req->take;
  hdr.offset = offset;
  hc_proto_send_ctl(req->peer, &hdr, payload, len);
}

static int devpath_ipc_usable(const hcomm_request_t *req) {
  const hc_devreq_t *d = req->dev;
  int ipc_on = devpath.path == PATH_AUTO || devpath.path == PATH_IPC;
  return ipc_on && d->peer_device && d->rts.has_ipc &&
         d->info.kind != HC_MEM_HOST && d->rts.kind == d->info.kind &&
         d->rts.ipc.kind == d->info.kind && devpath_same_node(req->peer) &&
         d->rts.ipc_offset <= d->rts.ipc.size &&
         req->take <= d->rts.ipc.size - d->rts.ipc_offset;
}

static int devpath_try_ipc(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  if (!devpath_ipc_usable(req))
    return 0;
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  void *base, *stream = devpath_stream(d->info.kind, d->info.device);
  if (stream == NULL)
    return 0;
  hc_status_t irc = hc_device_ipc_import(&d->rts.ipc, &base);
  if (irc != HC_OK) {
    hc_log(HC_LOG_DEBUG, "device", "import from rank %d: %s; staging",
           req->peer, hcomm_strerror(irc));
    devpath_send_cts(req, HC_PKT_FLAG_STALE, 0, NULL, 0);
    devpath_note(USED_STAGING, "staging", req);
    return 1;
  }
  d->wait = devpath_chunk_get(d->info.kind, 0);
  if (d->wait == NULL) {
    hc_device_ipc_release(&d->rts.ipc);
    return 0;
  }
  const unsigned char *src = (const unsigned char *)base + d->rts.ipc_offset;
  hc_status_t rc =
      ops->copy_async(req->recv_buf, src, req->take, HC_COPY_D2D, stream);
  if (rc == HC_OK)
    rc = ops->event_record(d->wait->event, stream);
  if (rc != HC_OK) {
    /* Nothing was queued that could still land: stage instead. */
    hc_log(HC_LOG_DEBUG, "device", "ipc copy: %s; staging", hcomm_strerror(rc));
    devpath_chunk_put(d->wait);
    d->wait = NULL;
    hc_device_ipc_release(&d->rts.ipc);
    return 0;
  }
  devpath_note(USED_IPC, "ipc", req);
  devpath_activate(d, WORK_RECV_IPC);
  return 1;
}

/* Both buffers ACL device memory: claim the next HcclRecv from the peer and
 * tell the sender its number in our own CTS (flagged DEVICE). */
static int devpath_try_hccl(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  if (!d->peer_device || d->info.kind != HC_MEM_ACL ||
      d->rts.kind != HC_MEM_ACL || !devpath_wants_hccl(req->peer) ||
      !hc_hccl_usable())
    return 0;
  /* Our CTS may have to carry the root info. */
  if (hc_engine.peers[req->peer].max_packet <
      sizeof(hc_pkt_hdr_t) + HC_HCCL_ROOT_BYTES)
    return 0;
  const void *root;
  d->hop = hc_hccl_recv_claim(req->peer, d->info.device, req->recv_buf,
                              req->take, &root);
  if (d->hop == NULL)
    return 0;
  size_t root_len = root != NULL ? HC_HCCL_ROOT_BYTES : 0;
  devpath_send_cts(req, HC_PKT_FLAG_DEVICE, hc_hccl_op_seq(d->hop), root,
                   root_len);
  devpath_note(USED_HCCL, "hccl", req);
  devpath_activate(d, WORK_RECV_HCCL);
  return 1;
}

/* Both ends registrable with the peer's transport (the sender's buffer by
 * the sender, said in its RTS, or host memory; ours here, or host): one
 * get straight from the sender's buffer into ours, then FIN.  0 (stage)
 * when either side cannot, or the get was refused. */
static int devpath_try_rdma(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  hc_peer_t *peer = &hc_engine.peers[req->peer];
  int sender_ok = d->peer_device ? d->rts.rdma != 0 : req->remote_addr != 0;
  if (!devpath_rdma_on() || !hc_devrdma_possible(peer) || !sender_ok ||
      req->acc.unpack != NULL)
    return 0;
  int ref = 0;
  if (d->info.kind != HC_MEM_HOST &&
      (ref = hc_devrdma_get(peer, &d->info)) == 0)
    return 0;
  hc_status_t rc = peer->ops->get(peer->tctx, req->peer, req->recv_buf,
                                  req->remote_addr, req->take);
  hc_devrdma_put(ref);
  if (rc != HC_OK && rc != HC_ERR_PEER_DEAD) {
    hc_log(HC_LOG_DEBUG, "device",
           "rank %d: rdma get from rank %d: %s; staging", hc_engine.world_rank,
           req->peer, hcomm_strerror(rc));
    return 0; /* staging rewrites every byte */
  }
  devpath_note(USED_RDMA, "rdma", req);
  if (rc == HC_OK)
    hc_proto_send_fin(req->peer, req->remote_id);
  devpath_recv_end(req, rc);
  return 1;
}

int hc_devpath_recv_start(hcomm_request_t *req) {
  if (req->dev == NULL)
    return HC_DEVPATH_HOST;
  if (req->peer == hc_engine.world_rank) {
    devpath_self_copy(req);
    return HC_DEVPATH_STARTED;
  }
  if (devpath_try_hccl(req))
    return HC_DEVPATH_STARTED;
  if (devpath_try_ipc(req))
    return HC_DEVPATH_STARTED;
  if (devpath_try_rdma(req))
    return HC_DEVPATH_STARTED;
  devpath_note(USED_STAGING, "staging", req);
  return HC_DEVPATH_CTS;
}

/* ---- receiver staging: host fragments to a device buffer ---------------
 * Fragments are gathered in a pinned chunk; a full chunk (and the last,
 * partial one at hc_devpath_recv_landed) is queued as one async
 * host-to-device copy with an event, so the copy runs while the next
 * fragments arrive.  At most devpath.slots copies are queued per request;
 * the request completes when the last one's event is done. */

/* Retires finished copies, oldest first; with block, waits for at least
 * the oldest.  A failed copy is remembered in d->rx_error. */
static int devpath_rx_reap(hc_devreq_t *d, int block) {
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  int retired = 0;
  while (d->rx_head != NULL) {
    hc_status_t rc = ops->event_query(d->rx_head->event);
    if (rc == HC_ERR_AGAIN) {
      if (block && retired == 0)
        continue; /* device work finishes without us: spin on it */
      break;
    }
    if (rc != HC_OK && d->rx_error == HC_OK)
      d->rx_error = rc;
    devpath_chunk_t *c = d->rx_head;
    d->rx_head = c->next;
    if (d->rx_head == NULL)
      d->rx_tail = NULL;
    d->rx_count--;
    devpath_chunk_put(c);
    retired++;
  }
  return retired;
}

/* Queues the filled chunk's copy to the device. */
static hc_status_t devpath_rx_flush(hc_devreq_t *d) {
  devpath_chunk_t *c = d->fill;
  if (c == NULL)
    return HC_OK;
  d->fill = NULL;
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  void *stream = devpath_stream(d->info.kind, d->info.device);
  unsigned char *dst = (unsigned char *)d->req->recv_buf + d->fill_off;
  hc_status_t rc = stream == NULL ? HC_ERR_NOT_SUPPORTED
                                  : ops->copy_async(dst, c->buf, d->fill_len,
                                                    HC_COPY_H2D, stream);
  if (rc == HC_OK)
    rc = ops->event_record(c->event, stream);
  if (rc != HC_OK) {
    devpath_chunk_put(c);
    return rc;
  }
  c->next = NULL;
  if (d->rx_tail != NULL)
    d->rx_tail->next = c;
  else
    d->rx_head = c;
  d->rx_tail = c;
  d->rx_count++;
  return HC_OK;
}

static void devpath_reap_until_room(hc_devreq_t *d) {
  devpath_rx_reap(d, 0);
  while (d->rx_count >= devpath.slots)
    devpath_rx_reap(d, 1);
}

/* A chunk to gather into from offset; NULL when no pinned memory. */
static devpath_chunk_t *devpath_rx_chunk(hc_devreq_t *d, size_t offset) {
  devpath_reap_until_room(d);
  d->fill = devpath_chunk_get(d->info.kind, 1);
  d->fill_off = offset;
  d->fill_len = 0;
  return d->fill;
}

static hc_status_t devpath_rx_put(hc_devreq_t *d, size_t offset,
                                  const unsigned char *src, size_t n) {
  while (n > 0) {
    hc_status_t rc = HC_OK;
    if (d->fill != NULL && offset != d->fill_off + d->fill_len)
      rc = devpath_rx_flush(d); /* not contiguous: a chunk of its own */
    if (rc == HC_OK && d->fill == NULL && devpath_rx_chunk(d, offset) == NULL) {
      /* No pinned memory: a synchronous copy still delivers. */
      hc_mem_info_t host = {HC_MEM_HOST, -1, 0, 0, 0};
      return hc_device_copy((unsigned char *)d->req->recv_buf + offset,
                            &d->info, src, &host, n);
    }
    if (rc != HC_OK)
      return rc;
    size_t k = devpath.chunk_bytes - d->fill_len;
    k = k < n ? k : n;
    memcpy((unsigned char *)d->fill->buf + d->fill_len, src, k);
    d->fill_len += k;
    offset += k;
    src += k;
    n -= k;
    if (d->fill_len == devpath.chunk_bytes &&
        (rc = devpath_rx_flush(d)) != HC_OK)
      return rc;
  }
  return HC_OK;
}

hc_status_t hc_devpath_copy_in(hcomm_request_t *req, size_t offset,
                               const void *src, size_t n) {
  hc_devreq_t *d = req->dev;
  if (d == NULL || d->info.kind == HC_MEM_HOST) {
    memcpy((unsigned char *)req->recv_buf + offset, src, n);
    return HC_OK;
  }
  /* After a failure the remaining fragments are only counted: the request
   * ends with the first error once all of them arrived. */
  if (d->rx_error != HC_OK)
    return d->rx_error;
  hc_status_t rc = devpath_rx_put(d, offset, src, n);
  if (rc != HC_OK)
    d->rx_error = rc;
  return rc;
}

int hc_devpath_recv_landed(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  if (d == NULL || d->work != WORK_NONE ||
      (d->fill == NULL && d->rx_head == NULL && d->rx_error == HC_OK))
    return 0;
  hc_status_t rc = devpath_rx_flush(d);
  if (rc != HC_OK && d->rx_error == HC_OK)
    d->rx_error = rc;
  devpath_activate(d, WORK_RECV_STAGING);
  return 1;
}

/* The receive completes once every queued copy finished (with the first
 * error, if any: its bytes are not trustworthy). */
static int devpath_recv_staging_step(hc_devreq_t *d) {
  int moved = devpath_rx_reap(d, 0);
  if (d->rx_head != NULL)
    return moved;
  hcomm_request_t *req = d->req;
  hc_status_t rc = d->rx_error;
  devpath_deactivate(d);
  d->rx_error = HC_OK;
  if (rc != HC_OK) {
    hc_log(HC_LOG_ERROR, "device",
           "copy to device receive buffer (from rank %d): %s", req->peer,
           hcomm_strerror(rc));
    req->status.bytes = 0;
    hc_request_complete(req, rc);
  } else {
    hc_proto_finish_recv(req);
  }
  return moved + 1;
}

static int devpath_recv_ipc_step(hc_devreq_t *d) {
  hcomm_request_t *req = d->req;
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  hc_status_t rc = ops->event_query(d->wait->event);
  if (rc == HC_ERR_AGAIN)
    return 0;
  devpath_deactivate(d);
  hc_proto_send_fin(req->peer, req->remote_id);
  devpath_recv_end(req, rc);
  return 1;
}

/* ---- sender staging -------------------------------------------------------
 */

/* An hccl CTS: the receiver issued (or will issue) HcclRecv number
 * hdr->offset; our HcclSend takes that place in the pair's order. */
static void devpath_hccl_cts(hcomm_request_t *req, int peer,
                             const hc_pkt_hdr_t *hdr, const void *payload) {
  hc_devreq_t *d = req->dev;
  if (hdr->payload_bytes == HC_HCCL_ROOT_BYTES && hc_hccl_usable())
    hc_hccl_note_root(peer, payload);
  size_t bytes = hdr->total_bytes < req->bytes ? hdr->total_bytes : req->bytes;
  d->hop = d->info.kind == HC_MEM_ACL && hc_hccl_usable()
               ? hc_hccl_send_accept(peer, d->info.device, hdr->offset,
                                     (void *)(uintptr_t)req->send_buf, bytes)
               : NULL;
  if (d->hop == NULL) {
    hc_log(HC_LOG_ERROR, "device", "hccl send to rank %d impossible", peer);
    hc_request_complete(req, HC_ERR_TRANSPORT);
    return;
  }
  d->to = peer;
  devpath_activate(d, WORK_SEND_HCCL);
}

int hc_devpath_on_cts(hcomm_request_t *req, int peer, const hc_pkt_hdr_t *hdr,
                      const void *payload) {
  hc_devreq_t *d = req->dev;
  if (d == NULL)
    return 0;
  if (hdr->flags & HC_PKT_FLAG_DEVICE) {
    devpath_hccl_cts(req, peer, hdr, payload);
    return 1;
  }
  if (hdr->flags & HC_PKT_FLAG_STALE) {
    hc_log(HC_LOG_DEBUG, "device",
           "rank %d could not import our export: "
           "dropped",
           peer);
    hc_device_forget(req->send_buf);
  }
  uint64_t rreq = hdr->rreq;
  size_t bytes = hdr->total_bytes;
  d->to = peer;
  d->rreq = rreq;
  d->end = bytes < req->bytes ? bytes : req->bytes;
  d->issued = d->sent = 0;
  size_t chunks = (d->end + devpath.chunk_bytes - 1) / devpath.chunk_bytes;
  d->nslots = chunks < (size_t)devpath.slots ? (int)chunks : devpath.slots;
  memset(d->slot, 0, sizeof d->slot);
  /* Started from progress: this may run inside a transport callback. */
  devpath_activate(d, WORK_SEND_STAGING);
  return 1;
}

static hc_status_t devpath_issue(hc_devreq_t *d, devpath_slot_t *s,
                                 void *stream) {
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  if (s->chunk == NULL)
    s->chunk = devpath_chunk_get(d->info.kind, 1);
  if (s->chunk == NULL)
    return HC_ERR_NOMEM;
  s->off = d->issued;
  s->len = d->end - d->issued;
  if (s->len > devpath.chunk_bytes)
    s->len = devpath.chunk_bytes;
  s->sent = 0;
  const unsigned char *src = (const unsigned char *)d->req->send_buf + s->off;
  hc_status_t rc =
      ops->copy_async(s->chunk->buf, src, s->len, HC_COPY_D2H, stream);
  if (rc == HC_OK)
    rc = ops->event_record(s->chunk->event, stream);
  if (rc != HC_OK)
    return rc;
  s->state = SLOT_COPYING;
  d->issued += s->len;
  return HC_OK;
}

static hc_status_t devpath_transmit_slot(hc_devreq_t *d, devpath_slot_t *s,
                                         int *moved) {
  hc_peer_t *peer = &hc_engine.peers[d->to];
  size_t frag = peer->max_packet - sizeof(hc_pkt_hdr_t);
  hc_pkt_hdr_t hdr = {0};
  hdr.type = HC_PKT_DATA;
  hdr.source = hc_engine.world_rank;
  hdr.rreq = d->rreq;
  while (s->sent < s->len) {
    size_t n = s->len - s->sent < frag ? s->len - s->sent : frag;
    hdr.offset = s->off + s->sent;
    hdr.payload_bytes = n;
    struct iovec iov[2] = {{&hdr, sizeof hdr},
                           {(unsigned char *)s->chunk->buf + s->sent, n}};
    hc_status_t rc = peer->ops->send(peer->tctx, d->to, iov, 2);
    if (rc != HC_OK)
      return rc;
    hc_engine_sent_to(peer);
    s->sent += n;
    (*moved)++;
  }
  return HC_OK;
}

/* The oldest slot still holding bytes: data leaves in offset order. */
static devpath_slot_t *devpath_oldest(hc_devreq_t *d) {
  devpath_slot_t *best = NULL;
  for (int i = 0; i < d->nslots; i++) {
    devpath_slot_t *s = &d->slot[i];
    if (s->state != SLOT_FREE && (best == NULL || s->off < best->off))
      best = s;
  }
  return best;
}

/* One pass: issue copies into free slots, then send finished chunks in
 * order.  Returns the status that ends the pipeline (HC_ERR_AGAIN while it
 * runs); *moved counts what happened. */
static hc_status_t devpath_send_pass(hc_devreq_t *d, int *moved) {
  void *stream = devpath_stream(d->info.kind, d->info.device);
  if (stream == NULL)
    return HC_ERR_NOT_SUPPORTED;
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  for (int i = 0; i < d->nslots && d->issued < d->end; i++) {
    if (d->slot[i].state != SLOT_FREE)
      continue;
    hc_status_t rc = devpath_issue(d, &d->slot[i], stream);
    if (rc == HC_ERR_NOMEM)
      break; /* no pinned buffer now: the next pass tries again, as the
              * receiver waits for these bytes */
    if (rc != HC_OK)
      return rc;
    (*moved)++;
  }
  devpath_slot_t *s;
  while ((s = devpath_oldest(d)) != NULL) {
    if (s->state == SLOT_COPYING) {
      hc_status_t rc = ops->event_query(s->chunk->event);
      if (rc != HC_OK)
        return rc;
      s->state = SLOT_READY;
    }
    hc_status_t rc = devpath_transmit_slot(d, s, moved);
    if (rc != HC_OK)
      return rc;
    d->sent += s->len;
    s->state = SLOT_FREE;
    if (d->issued < d->end) {
      rc = devpath_issue(d, s, stream);
      if (rc != HC_OK)
        return rc;
    }
  }
  return d->sent == d->end ? HC_OK : HC_ERR_AGAIN;
}

static int devpath_send_step(hc_devreq_t *d) {
  int moved = 0;
  hc_status_t rc = devpath_send_pass(d, &moved);
  if (rc == HC_ERR_AGAIN)
    return moved;
  hcomm_request_t *req = d->req;
  devpath_deactivate(d);
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "device", "staging to rank %d: %s", d->to,
           hcomm_strerror(rc));
  hc_request_complete(req, rc);
  return moved + 1;
}

/* Either side of an hccl transfer: done when its stream got past it. */
static int devpath_hccl_step(hc_devreq_t *d) {
  hc_status_t rc = hc_hccl_op_poll(d->hop);
  if (rc == HC_ERR_AGAIN)
    return 0;
  hcomm_request_t *req = d->req;
  int recv = d->work == WORK_RECV_HCCL;
  devpath_deactivate(d);
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "device", "hccl %s rank %d: %s",
           recv ? "receive from" : "send to", recv ? req->peer : d->to,
           hcomm_strerror(rc));
  if (recv && rc == HC_OK) {
    req->landed = req->take;
    hc_proto_finish_recv(req);
  } else {
    if (recv)
      req->status.bytes = 0;
    hc_request_complete(req, rc);
  }
  return 1;
}

int hc_devpath_progress(void) {
  int moved = 0;
  hc_devreq_t *d = devpath.active;
  while (d != NULL) {
    hc_devreq_t *next = d->next_active; /* d may finish (and be freed) */
    if (d->work == WORK_SEND_STAGING)
      moved += devpath_send_step(d);
    else if (d->work == WORK_RECV_IPC)
      moved += devpath_recv_ipc_step(d);
    else if (d->work == WORK_RECV_STAGING)
      moved += devpath_recv_staging_step(d);
    else if (d->work == WORK_SEND_HCCL || d->work == WORK_RECV_HCCL)
      moved += devpath_hccl_step(d);
    d = next;
  }
  /* Copies in flight finish on the device, which rings no doorbell: while
   * any are pending, report activity so blocking waits keep polling
   * instead of sleeping on the transport. */
  if (moved == 0 && devpath.active != NULL)
    moved = 1;
  return moved;
}

void hc_devpath_release(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  req->dev = NULL;
  if (d == NULL)
    return;
  if (d->work != WORK_NONE)
    devpath_deactivate(d);
  /* The receiver closed its import before the FIN that completed us. */
  if (d->own_export)
    hc_device_ipc_unexport(&d->rts.ipc);
  hc_devrdma_put(d->rdma_ref);
  free(d->rts_buf);
  free(d);
}

static void devpath_pool_free(void) {
  for (int k = 0; k < HC_MEM_KINDS; k++) {
    const hc_device_ops_t *ops = hc_device_backend((hc_mem_kind_t)k);
    while (devpath.pool[k] != NULL) {
      devpath_chunk_t *c = devpath.pool[k];
      devpath.pool[k] = c->next;
      if (ops != NULL) {
        ops->event_destroy(c->event);
        if (c->buf != NULL)
          ops->host_free(c->buf);
      }
      free(c);
    }
  }
}

void hc_devpath_fini(void) {
  while (devpath.active != NULL)
    devpath_deactivate(devpath.active);
  if (devpath.configured)
    hc_log(HC_LOG_DEBUG, "device",
           "rank %d: device paths: self %d, ipc %d, staging %d, hccl %d, "
           "rdma %d",
           hc_engine.world_rank, devpath.used[USED_SELF],
           devpath.used[USED_IPC], devpath.used[USED_STAGING],
           devpath.used[USED_HCCL], devpath.used[USED_RDMA]);
  hc_devrdma_fini(); /* before the transports go */
  devpath_pool_free();
  hc_hccl_fini(); /* before the ACL runtime goes */
  for (int i = 0; i < devpath.nstreams; i++)
    hc_device_backend(devpath.streams[i].kind)
        ->stream_destroy(devpath.streams[i].stream);
  devpath.nstreams = 0;
  /* Importers close first so exporters (other ranks, finishing at about
   * the same time) can withdraw their keys. */
  hc_device_ipc_close_all();
  hc_device_fini();
  memset(devpath.used, 0, sizeof devpath.used);
  devpath.configured = 0;
}

/*
 * The engine's device data path: the table of paths, the policy that
 * chooses among them, and what every path shares.  The paths themselves
 * are in devpath_ipc.c, devpath_staging.c, devpath_hccl.c and
 * devpath_rdma.c.  See devpath.h and docs/engine.md.
 */
#include "hcomm/devpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/coll_hccl.h"
#include "hcomm/devpath_impl.h"
#include "hcomm/devpath_rdma.h"
#include "util/env.h"
#include "util/log.h"

#define DEVPATH_RTS_MAGIC 0x68634456u /* "hcDV" */
#define DEVPATH_STREAMS_MAX 16
#define DEVPATH_CHUNK_DEFAULT ((size_t)1 << 20)

/* The receiver tries the paths in this order: self first (one copy), hccl
 * before ipc (where the policy lets both serve, HCCL was asked for), ipc's
 * single device copy before an RDMA read, and staging, which serves
 * anything, last. */
static const hc_devpath_ops_t *const devpath_table[] = {
    &hc_devpath_self_ops, &hc_devpath_hccl_ops, &hc_devpath_ipc_ops,
    &hc_devpath_rdma_ops, &hc_devpath_staging_ops};
#define DEVPATH_COUNT (sizeof devpath_table / sizeof devpath_table[0])

typedef struct devpath_stream {
  hc_mem_kind_t kind;
  int device;
  void *stream;
  /* chunk_bytes of device memory on device, made at first need, through
   * which host bytes reach an IPC import that takes no host copies
   * (hc_devpath_copy_import). */
  void *scratch;
} devpath_stream_t;

static struct {
  int configured;
  const hc_devpath_ops_t *forced; /* HCMPI_DEVICE_PATH, NULL for auto */
  size_t chunk_bytes;
  int slots;
  hc_devchunk_t *pool[HC_MEM_KINDS];
  devpath_stream_t streams[DEVPATH_STREAMS_MAX];
  int nstreams;
  hc_devreq_t *active;
  int used[DEVPATH_COUNT];
} devpath;

int hc_devpath_nactive;

static void devpath_configure(void) {
  if (devpath.configured)
    return;
  const char *p = hc_env_string("HCMPI_DEVICE_PATH", "auto");
  devpath.forced = NULL;
  for (size_t i = 0; i < DEVPATH_COUNT; i++)
    if (strcmp(p, devpath_table[i]->name) == 0 && !devpath_table[i]->always)
      devpath.forced = devpath_table[i];
  if (strcmp(p, "staging") == 0)
    devpath.forced = &hc_devpath_staging_ops;
  if (devpath.forced == NULL && strcmp(p, "auto") != 0)
    hc_log(HC_LOG_INFO, "device",
           "HCMPI_DEVICE_PATH=%s not available here; using auto", p);
  devpath.chunk_bytes =
      hc_env_size("HCMPI_DEVICE_CHUNK", DEVPATH_CHUNK_DEFAULT);
  if (devpath.chunk_bytes < 4096)
    devpath.chunk_bytes = 4096;
  long slots = hc_env_long("HCMPI_DEVICE_SLOTS", 4);
  devpath.slots = slots < 1                      ? 1
                  : slots > HC_DEVPATH_SLOTS_MAX ? HC_DEVPATH_SLOTS_MAX
                                                 : (int)slots;
  devpath.configured = 1;
}

/* HCMPI_DEVICE_PATH=name forces one path (the others then stage); auto
 * lets every path try, hccl only for peers on other nodes: on one node
 * ipc's single device copy serves, and HCCL would only add a communicator
 * per pair. */
int hc_devpath_permits(const hc_devpath_ops_t *p, int peer) {
  if (p->always)
    return 1;
  if (devpath.forced != NULL)
    return p == devpath.forced;
  return !p->remote_only_in_auto || !hc_engine_is_local(peer);
}

int hc_devpath_rma_permits(int peer, int rdma) {
  devpath_configure();
  return hc_devpath_permits(rdma ? &hc_devpath_rdma_ops : &hc_devpath_ipc_ops,
                            peer);
}

size_t hc_devpath_chunk_bytes(void) { return devpath.chunk_bytes; }
int hc_devpath_slots(void) { return devpath.slots; }

static size_t devpath_index(const hc_devpath_ops_t *p) {
  size_t i = 0;
  while (i + 1 < DEVPATH_COUNT && devpath_table[i] != p)
    i++;
  return i;
}

/* Traced here because only the device path knows which path it is. */
void hc_devpath_note(const hc_devpath_ops_t *p, const hcomm_request_t *r) {
  if (hc_trace_on)
    hc_trace_engine(HC_TRACE_ENG_RECV, r->peer, r->status.tag, r->total,
                    r->remote_id, 1, p->trace);
  if (devpath.used[devpath_index(p)]++ == 0 && hc_log_level() >= HC_LOG_DEBUG)
    hc_log(HC_LOG_DEBUG, "device", "rank %d: device path %s (first use, %zu B)",
           hc_engine.world_rank, p->name, r->take);
}

hc_status_t hc_devpath_classify_loaded(hcomm_request_t *req) {
  const void *buf = req->kind == HC_REQ_SEND ? req->send_buf : req->recv_buf;
  if (req->bytes == 0 || buf == NULL)
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
  hc_request_mark_rare(req);
  req->dev = d;
  return HC_OK;
}

/* ---- the RTS: each path permitted for the peer adds its part -------------
 */

const void *hc_devpath_rts_payload(hcomm_request_t *req, size_t *len) {
  hc_devreq_t *d = req->dev;
  if (d->own_export) /* built again: the earlier export is unused */
    hc_device_ipc_unexport(&d->rts.ipc);
  d->own_export = 0;
  hc_devrdma_put(d->rdma_ref);
  d->rdma_ref = 0;
  free(d->rts_buf);
  d->rts_buf = NULL;
  d->rts_tail = NULL;
  d->rts_tail_len = 0;
  memset(&d->rts, 0, sizeof d->rts);
  d->rts.magic = DEVPATH_RTS_MAGIC;
  d->rts.kind = d->info.kind;
  d->rts.device = d->info.device;
  *len = sizeof d->rts;
  if (req->peer == hc_engine.world_rank)
    return &d->rts; /* the self path needs nothing more */
  for (size_t i = 0; i < DEVPATH_COUNT; i++)
    if (devpath_table[i]->rts_fill != NULL &&
        hc_devpath_permits(devpath_table[i], req->peer))
      devpath_table[i]->rts_fill(req);
  if (d->rts_tail == NULL ||
      (d->rts_buf = malloc(sizeof d->rts + d->rts_tail_len)) == NULL)
    return &d->rts; /* without its tail the receiver stages */
  memcpy(d->rts_buf, &d->rts, sizeof d->rts);
  memcpy(d->rts_buf + sizeof d->rts, d->rts_tail, d->rts_tail_len);
  *len += d->rts_tail_len;
  return d->rts_buf;
}

void hc_devpath_on_rts(hcomm_request_t *req, const hc_pkt_hdr_t *hdr,
                       const void *payload) {
  if (!(hdr->flags & HC_PKT_FLAG_DEVICE) ||
      hdr->payload_bytes < sizeof(hc_dev_rts_t))
    return;
  hc_dev_rts_t rts;
  memcpy(&rts, payload, sizeof rts);
  if (rts.magic != DEVPATH_RTS_MAGIC)
    return;
  devpath_configure();
  size_t tail = hdr->payload_bytes - sizeof rts;
  for (size_t i = 0; tail > 0 && i < DEVPATH_COUNT; i++)
    if (devpath_table[i]->rts_tail_seen != NULL)
      devpath_table[i]->rts_tail_seen(
          req->peer, (const unsigned char *)payload + sizeof rts, tail);
  if (req->dev == NULL) {
    /* A host receive buffer: only the peer's side is device memory. */
    hc_request_mark_rare(req);
    req->dev = calloc(1, sizeof *req->dev);
    if (req->dev == NULL)
      return; /* the receive stays host-only: CTS is still forced below */
    req->dev->req = req;
    req->dev->info.kind = HC_MEM_HOST;
    req->dev->info.device = -1;
  }
  req->dev->peer_device = 1;
  req->dev->rts = rts;
}

/* ---- pools, streams, activation --------------------------------------------
 */

hc_devchunk_t *hc_devpath_chunk_get(hc_mem_kind_t kind, int need_buf) {
  const hc_device_ops_t *ops = hc_device_backend(kind);
  hc_devchunk_t *c = devpath.pool[kind];
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

void hc_devpath_chunk_put(hc_devchunk_t *c) {
  if (c == NULL)
    return;
  c->next = devpath.pool[c->kind];
  devpath.pool[c->kind] = c;
}

/* hcmpi's stream of (kind, device), made at first use; NULL when none. */
static devpath_stream_t *devpath_stream_of(hc_mem_kind_t kind, int device) {
  for (int i = 0; i < devpath.nstreams; i++)
    if (devpath.streams[i].kind == kind && devpath.streams[i].device == device)
      return &devpath.streams[i];
  if (devpath.nstreams == DEVPATH_STREAMS_MAX)
    return NULL;
  void *s;
  if (hc_device_backend(kind)->stream_create(device, &s) != HC_OK)
    return NULL;
  devpath_stream_t *ds = &devpath.streams[devpath.nstreams++];
  *ds = (devpath_stream_t){kind, device, s, NULL};
  return ds;
}

void *hc_devpath_stream(hc_mem_kind_t kind, int device) {
  devpath_stream_t *ds = devpath_stream_of(kind, device);
  return ds != NULL ? ds->stream : NULL;
}

/* Records c's event on stream and waits for it: everything queued there
 * before is then done (or the first failure of it is returned). */
static hc_status_t devpath_wait_on(hc_devchunk_t *c, void *stream) {
  const hc_device_ops_t *ops = hc_device_backend(c->kind);
  hc_status_t rc = ops->event_record(c->event, stream);
  if (rc == HC_OK)
    do
      rc = ops->event_query(c->event);
    while (rc == HC_ERR_AGAIN);
  return rc;
}

hc_status_t hc_devpath_copy_d2d(void *dst, const void *src, size_t len,
                                hc_mem_kind_t kind, int device) {
  const hc_device_ops_t *ops = hc_device_backend(kind);
  void *stream = ops != NULL ? hc_devpath_stream(kind, device) : NULL;
  /* The event is had before anything is queued: a copy never waited for
   * would outlive the caller's buffers. */
  hc_devchunk_t *done = stream != NULL ? hc_devpath_chunk_get(kind, 0) : NULL;
  if (done == NULL)
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc = ops->copy_async(dst, src, len, HC_COPY_D2D, stream);
  if (rc == HC_OK)
    rc = devpath_wait_on(done, stream);
  hc_devpath_chunk_put(done);
  return rc;
}

hc_status_t hc_devpath_copy_d2d_queue(void *dst, const void *src, size_t len,
                                      hc_mem_kind_t kind, int device) {
  const hc_device_ops_t *ops = hc_device_backend(kind);
  void *stream = ops != NULL ? hc_devpath_stream(kind, device) : NULL;
  if (stream == NULL)
    return HC_ERR_NOT_SUPPORTED;
  return ops->copy_async(dst, src, len, HC_COPY_D2D, stream);
}

hc_status_t hc_devpath_mark_reserve(hc_mem_kind_t kind, hc_devmark_t **mark) {
  hc_devchunk_t *c =
      hc_device_backend(kind) != NULL ? hc_devpath_chunk_get(kind, 0) : NULL;
  if (c == NULL)
    return HC_ERR_NOT_SUPPORTED;
  *mark = c;
  return HC_OK;
}

hc_status_t hc_devpath_mark(hc_mem_kind_t kind, int device,
                            hc_devmark_t **mark) {
  const hc_device_ops_t *ops = hc_device_backend(kind);
  void *stream = ops != NULL ? hc_devpath_stream(kind, device) : NULL;
  hc_devchunk_t *c = NULL;
  if (stream == NULL || hc_devpath_mark_reserve(kind, &c) != HC_OK)
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc = ops->event_record(c->event, stream);
  if (rc != HC_OK) {
    hc_devpath_chunk_put(c);
    return rc;
  }
  *mark = c;
  return HC_OK;
}

hc_status_t hc_devpath_mark_test(hc_devmark_t *mark) {
  return hc_device_backend(mark->kind)->event_query(mark->event);
}

void hc_devpath_mark_free(hc_devmark_t *mark) { hc_devpath_chunk_put(mark); }

hc_status_t hc_devpath_drain(hc_devmark_t *mark, int device) {
  void *stream = hc_devpath_stream(mark->kind, device);
  if (stream == NULL)
    return HC_ERR_NOT_SUPPORTED;
  return devpath_wait_on(mark, stream);
}

hc_status_t hc_devpath_copy_import(void *import, const hc_mem_info_t *imem,
                                   void *host, size_t len, int to_import) {
  static const hc_mem_info_t host_mem = {HC_MEM_HOST, -1, 0, 0, 0};
  const hc_device_ops_t *ops = hc_device_backend(imem->kind);
  if (ops == NULL || imem->kind == HC_MEM_HOST)
    return HC_ERR_NOT_SUPPORTED;
  if (ops->flags & HC_DEVICE_IMPORT_HOST_COPIES)
    return to_import ? hc_device_copy(import, imem, host, &host_mem, len)
                     : hc_device_copy(host, &host_mem, import, imem, len);
  /* Host bytes and an import meet in this process's own device memory:
   * a host copy there, a device-to-device copy to or from the import. */
  devpath_configure();
  devpath_stream_t *ds = devpath_stream_of(imem->kind, imem->device);
  if (ds != NULL && ds->scratch == NULL &&
      ops->dev_alloc(devpath.chunk_bytes, imem->device, &ds->scratch) != HC_OK)
    ds->scratch = NULL;
  if (ds == NULL || ds->scratch == NULL)
    return HC_ERR_NOT_SUPPORTED; /* nothing was copied */
  char *at = import, *h = host;
  hc_status_t rc = HC_OK;
  for (size_t done = 0; rc == HC_OK && done < len;) {
    size_t n =
        len - done < devpath.chunk_bytes ? len - done : devpath.chunk_bytes;
    if (to_import) {
      rc = ops->copy(ds->scratch, h + done, n, HC_COPY_H2D, imem->device);
      if (rc == HC_OK)
        rc = hc_devpath_copy_d2d(at + done, ds->scratch, n, imem->kind,
                                 imem->device);
    } else {
      rc = hc_devpath_copy_d2d(ds->scratch, at + done, n, imem->kind,
                               imem->device);
      if (rc == HC_OK)
        rc = ops->copy(h + done, ds->scratch, n, HC_COPY_D2H, imem->device);
    }
    done += n;
  }
  /* A stream and an event were had before: a failure now is the copy's. */
  return rc == HC_ERR_NOT_SUPPORTED ? HC_ERR_TRANSPORT : rc;
}

void hc_devpath_activate(hc_devreq_t *d, const hc_devpath_ops_t *p,
                         int sending) {
  hc_devpath_nactive++;
  d->active = p;
  d->sending = sending;
  d->next_active = devpath.active;
  devpath.active = d;
}

void hc_devpath_deactivate(hc_devreq_t *d) {
  for (hc_devreq_t **l = &devpath.active; *l != NULL; l = &(*l)->next_active)
    if (*l == d) {
      *l = d->next_active;
      hc_devpath_nactive--;
      break;
    }
  const hc_devpath_ops_t *p = d->active;
  d->active = NULL;
  if (p != NULL && p->stop != NULL)
    p->stop(d);
}

/* ---- receiver --------------------------------------------------------------
 */

hc_mem_info_t hc_devpath_peer_info(const hc_devreq_t *d) {
  hc_mem_info_t info = {HC_MEM_HOST, -1, 0, 0, 0};
  if (d->peer_device) {
    info.kind = (hc_mem_kind_t)d->rts.kind;
    info.device = d->rts.device;
  }
  return info;
}

void hc_devpath_recv_end(hcomm_request_t *req, hc_status_t rc) {
  req->landed = req->take;
  if (rc != HC_OK) {
    req->status.bytes = 0;
    hc_request_complete(req, rc);
  } else {
    hc_proto_finish_recv(req);
  }
}

void hc_devpath_send_cts(hcomm_request_t *req, uint8_t flags, uint64_t offset,
                         const void *payload, size_t len) {
  hc_pkt_hdr_t hdr = {0};
  hdr.type = HC_PKT_CTS;
  hdr.flags = flags;
  hdr.sreq = req->remote_id;
  hdr.rreq = hc_request_id(req);
  hdr.total_bytes = req->take;
  hdr.offset = offset;
  hc_proto_send_ctl(req->peer, &hdr, payload, len);
}

int hc_devpath_recv_start(hcomm_request_t *req) {
  if (req->dev == NULL)
    return HC_DEVPATH_HOST;
  for (size_t i = 0; i < DEVPATH_COUNT; i++) {
    const hc_devpath_ops_t *p = devpath_table[i];
    if (!hc_devpath_permits(p, req->peer))
      continue;
    int started = p->recv_try(req);
    if (started != HC_DEVPATH_HOST)
      return started;
  }
  return HC_DEVPATH_CTS; /* not reached: staging takes anything */
}

/* Both ends in this process: one copy, whatever the two kinds are. */
static int devpath_self_recv(hcomm_request_t *req) {
  if (req->peer != hc_engine.world_rank)
    return HC_DEVPATH_HOST;
  hc_devreq_t *d = req->dev;
  hc_mem_info_t src = hc_devpath_peer_info(d);
  hc_status_t rc = hc_device_copy(req->recv_buf, &d->info,
                                  (const void *)(uintptr_t)req->remote_addr,
                                  &src, req->take);
  hc_devpath_note(&hc_devpath_self_ops, req);
  hc_proto_send_fin(req->peer, req->remote_id);
  hc_devpath_recv_end(req, rc);
  return HC_DEVPATH_STARTED;
}

const hc_devpath_ops_t hc_devpath_self_ops = {
    .name = "self",
    .trace = HC_TRACE_PATH_SELF,
    .always = 1,
    .recv_try = devpath_self_recv,
};

/* ---- sender ------------------------------------------------------------------
 */

int hc_devpath_on_cts(hcomm_request_t *req, int peer, const hc_pkt_hdr_t *hdr,
                      const void *payload) {
  if (req->dev == NULL)
    return 0;
  if (hdr->flags & HC_PKT_FLAG_STALE) {
    /* The receiver could not import our export (its key died with a freed
     * allocation, say): forget it, so the next message exports afresh. */
    hc_log(HC_LOG_DEBUG, "device",
           "rank %d could not import our export: dropped", peer);
    hc_device_forget(req->send_buf);
  }
  const hc_devpath_ops_t *p = (hdr->flags & HC_PKT_FLAG_DEVICE)
                                  ? &hc_devpath_hccl_ops
                                  : &hc_devpath_staging_ops;
  p->send_cts(req, peer, hdr, payload);
  return 1;
}

/* ---- progress and teardown ------------------------------------------------
 */

int hc_devpath_progress(void) {
  int moved = 0;
  hc_devreq_t *d = devpath.active;
  while (d != NULL) {
    hc_devreq_t *next = d->next_active; /* d may finish (and be freed) */
    moved += d->active->step(d);
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
  if (d->active != NULL)
    hc_devpath_deactivate(d);
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
      hc_devchunk_t *c = devpath.pool[k];
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

static void devpath_log_use(void) {
  char line[160];
  size_t at = 0;
  for (size_t i = 0; i < DEVPATH_COUNT && at < sizeof line; i++)
    at += (size_t)snprintf(line + at, sizeof line - at, "%s%s %d",
                           i ? ", " : "", devpath_table[i]->name,
                           devpath.used[i]);
  hc_log(HC_LOG_DEBUG, "device", "rank %d: device paths: %s",
         hc_engine.world_rank, line);
}

void hc_devpath_fini(void) {
  while (devpath.active != NULL)
    hc_devpath_deactivate(devpath.active);
  if (devpath.configured)
    devpath_log_use();
  hc_devrdma_fini(); /* before the transports go */
  devpath_pool_free();
  hc_hccl_coll_fini(); /* before HCCL goes */
  hc_hccl_fini();      /* before the ACL runtime goes */
  for (int i = 0; i < devpath.nstreams; i++) {
    const hc_device_ops_t *ops = hc_device_backend(devpath.streams[i].kind);
    ops->stream_destroy(devpath.streams[i].stream);
    if (devpath.streams[i].scratch != NULL)
      ops->dev_free(devpath.streams[i].scratch);
  }
  devpath.nstreams = 0;
  /* Importers close first so exporters (other ranks, finishing at about
   * the same time) can withdraw their keys. */
  hc_device_ipc_close_all();
  hc_device_fini();
  memset(devpath.used, 0, sizeof devpath.used);
  devpath.configured = 0;
}

/*
 * Registrations of device memory with RDMA-capable transports, cached per
 * allocation, and the rdma path that uses them.  See devpath_rdma.h.
 */
#include "hcomm/devpath_rdma.h"

#include <string.h>
#include <unistd.h>

#include "hcomm/devpath_impl.h"
#include "util/log.h"

/* Small on purpose, like the device layer's caches: a job moves a handful
 * of long-lived device buffers. */
#define DEVRDMA_SLOTS 32

typedef struct devrdma_entry {
  int used;
  int refused; /* the allocation cannot be registered: stage it */
  int busy;    /* references held by messages in flight */
  unsigned long last_use;
  const hc_transport_ops_t *ops;
  void *tctx;
  hc_mem_info_t info; /* the allocation (base, size, buffer id) */
  void *handle;       /* the transport's, when registered */
} devrdma_entry_t;

static struct {
  devrdma_entry_t slot[DEVRDMA_SLOTS];
  unsigned long tick;
  long registered, refused, dropped;
} devrdma;

int hc_devrdma_possible(const hc_peer_t *peer) {
  return peer->ops != NULL && peer->ops->mem_reg != NULL && peer->tctx != NULL;
}

static void devrdma_drop(devrdma_entry_t *e) {
  if (e->handle != NULL)
    e->ops->mem_dereg(e->tctx, e->handle);
  memset(e, 0, sizeof *e);
}

static int devrdma_same_alloc(const devrdma_entry_t *e,
                              const hc_mem_info_t *info) {
  return e->info.base == info->base && e->info.size == info->size &&
         e->info.alloc_id == info->alloc_id && e->info.kind == info->kind;
}

static int devrdma_overlaps(const devrdma_entry_t *e,
                            const hc_mem_info_t *info) {
  return e->info.base < info->base + info->size &&
         info->base < e->info.base + e->info.size;
}

/* The entry of info's allocation for this transport; entries overlapping
 * it for another allocation are stale (their memory was freed) and go. */
static devrdma_entry_t *devrdma_find(const hc_peer_t *peer,
                                     const hc_mem_info_t *info) {
  devrdma_entry_t *hit = NULL;
  for (int i = 0; i < DEVRDMA_SLOTS; i++) {
    devrdma_entry_t *e = &devrdma.slot[i];
    if (!e->used || e->tctx != peer->tctx || !devrdma_overlaps(e, info))
      continue;
    if (devrdma_same_alloc(e, info)) {
      hit = e;
    } else if (e->busy == 0) {
      devrdma.dropped++;
      devrdma_drop(e);
    }
  }
  return hit;
}

/* Before a new registration: what the device layer no longer confirms
 * goes, then a free slot, else the least recently used idle one. */
static devrdma_entry_t *devrdma_slot(void) {
  devrdma_entry_t *lru = NULL;
  for (int i = 0; i < DEVRDMA_SLOTS; i++) {
    devrdma_entry_t *e = &devrdma.slot[i];
    if (e->used && e->busy == 0 && !hc_device_alloc_alive(&e->info)) {
      devrdma.dropped++;
      devrdma_drop(e);
    }
  }
  for (int i = 0; i < DEVRDMA_SLOTS; i++) {
    devrdma_entry_t *e = &devrdma.slot[i];
    if (!e->used)
      return e;
    if (e->busy == 0 && (lru == NULL || e->last_use < lru->last_use))
      lru = e;
  }
  if (lru != NULL)
    devrdma_drop(lru);
  return lru;
}

/* Exports the allocation and hands the dma-buf to the transport. */
static void devrdma_register(devrdma_entry_t *e, const hc_peer_t *peer,
                             const hc_mem_info_t *info) {
  e->used = 1;
  e->ops = peer->ops;
  e->tctx = peer->tctx;
  e->info = *info;
  hc_transport_mem_t mem = {.addr = info->base, .dmabuf_fd = -1};
  hc_status_t rc = info->alloc_id == 0 /* reuse could not be told */
                       ? HC_ERR_NOT_SUPPORTED
                       : hc_device_dmabuf_export(info, &mem.dmabuf_fd,
                                                 &mem.dmabuf_offset, &mem.len);
  if (rc == HC_OK) {
    rc = peer->ops->mem_reg(peer->tctx, &mem, &e->handle, NULL);
    close(mem.dmabuf_fd); /* the registration holds the memory now */
  }
  if (rc != HC_OK) {
    e->handle = NULL;
    e->refused = 1;
    devrdma.refused++;
    hc_log(HC_LOG_DEBUG, "device",
           "rank %d: no RDMA registration of %zu B device memory (%s); "
           "staging it",
           hc_engine.world_rank, info->size, hcomm_strerror(rc));
    return;
  }
  devrdma.registered++;
}

int hc_devrdma_get(const hc_peer_t *peer, const hc_mem_info_t *info) {
  if (!hc_devrdma_possible(peer) || info->kind == HC_MEM_HOST ||
      info->size == 0)
    return 0;
  devrdma_entry_t *e = devrdma_find(peer, info);
  if (e == NULL) {
    e = devrdma_slot();
    if (e == NULL)
      return 0; /* every slot in flight: stage this one */
    devrdma_register(e, peer, info);
  }
  e->last_use = ++devrdma.tick;
  if (e->refused)
    return 0;
  e->busy++;
  return (int)(e - devrdma.slot) + 1;
}

void hc_devrdma_put(int ref) {
  if (ref > 0 && ref <= DEVRDMA_SLOTS && devrdma.slot[ref - 1].busy > 0)
    devrdma.slot[ref - 1].busy--;
}

void hc_devrdma_fini(void) {
  if (devrdma.registered + devrdma.refused > 0)
    hc_log(HC_LOG_DEBUG, "device",
           "rank %d: device registrations: %ld dmabuf, %ld refused, %ld "
           "dropped (freed or reallocated)",
           hc_engine.world_rank, devrdma.registered, devrdma.refused,
           devrdma.dropped);
  for (int i = 0; i < DEVRDMA_SLOTS; i++)
    if (devrdma.slot[i].used)
      devrdma_drop(&devrdma.slot[i]);
  memset(&devrdma, 0, sizeof devrdma);
}

/* ---- the rdma path: the receiver READs the sender's buffer -------------- */

/* Sender: registers its device buffer with the peer's transport, held
 * until the request is released, and says so in the RTS. */
static void rdma_rts_fill(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  d->rdma_ref = hc_devrdma_get(&hc_engine.peers[req->peer], &d->info);
  d->rts.rdma = d->rdma_ref > 0;
}

/* Both ends registrable with the peer's transport (the sender's buffer by
 * the sender, said in its RTS, or host memory; ours here, or host): one
 * get straight from the sender's buffer into ours, then FIN.  Declines
 * (staging follows) when either side cannot, or the get was refused. */
static int rdma_recv_try(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  hc_peer_t *peer = &hc_engine.peers[req->peer];
  int sender_ok = d->peer_device ? d->rts.rdma != 0 : req->remote_addr != 0;
  if (!hc_devrdma_possible(peer) || !sender_ok || req->acc.unpack != NULL)
    return HC_DEVPATH_HOST;
  int ref = 0;
  if (d->info.kind != HC_MEM_HOST &&
      (ref = hc_devrdma_get(peer, &d->info)) == 0)
    return HC_DEVPATH_HOST;
  hc_status_t rc = peer->ops->get(peer->tctx, req->peer, req->recv_buf,
                                  req->remote_addr, req->take);
  hc_devrdma_put(ref);
  if (rc != HC_OK && rc != HC_ERR_PEER_DEAD) {
    hc_log(HC_LOG_DEBUG, "device",
           "rank %d: rdma get from rank %d: %s; staging", hc_engine.world_rank,
           req->peer, hcomm_strerror(rc));
    return HC_DEVPATH_HOST; /* staging rewrites every byte */
  }
  hc_devpath_note(&hc_devpath_rdma_ops, req);
  if (rc == HC_OK)
    hc_proto_send_fin(req->peer, req->remote_id);
  hc_devpath_recv_end(req, rc);
  return HC_DEVPATH_STARTED;
}

const hc_devpath_ops_t hc_devpath_rdma_ops = {
    .name = "rdma",
    .trace = HC_TRACE_PATH_VERBS,
    .rts_fill = rdma_rts_fill,
    .recv_try = rdma_recv_try,
};
